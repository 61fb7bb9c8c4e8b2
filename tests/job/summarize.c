/* Test helper: writes the rank summary line of each trace FILE (the library's ns_job_rank_from_trace() and
 * ns_job_rank_to_ndjson()), so the job tests do not depend on the trace subcommand's options.
 * Usage: summarize FILE... > summaries.ndjson */
#include <stdio.h>
#include <stdlib.h>

#include "nextstep/job.h"

static int summarize(const char *path)
{
	ns_job_rank *k = NULL;
	char *line = NULL;
	ns_error err;
	int rc = 1;

	if (ns_job_rank_from_trace(path, NULL, &k, &err) == NS_OK &&
	    (line = ns_job_rank_to_ndjson(k)) != NULL) {
		printf("%s\n", line);
		rc = 0;
	} else {
		fprintf(stderr, "summarize: %s: %s\n", path, k == NULL ? err.msg : "out of memory");
	}
	free(line);
	ns_job_rank_free(k);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;

	for (int i = 1; i < argc; i++)
		rc |= summarize(argv[i]);
	return rc;
}
