/* Test helper: writes the rank summary line of each trace FILE (the library's ns_job_rank_to_ndjson), so the
 * job tests do not depend on the trace subcommand's options. Usage: summarize FILE... > summaries.ndjson */
#include <stdio.h>
#include <stdlib.h>

#include "nextstep/input.h"
#include "nextstep/job.h"
#include "nextstep/trace_input.h"
#include "nextstep/trace_kernels.h"

static int summarize(const ns_kernel_rules *rules, const char *path)
{
	ns_error err;
	ns_input in;
	ns_trace_meta meta;
	ns_split_result res = {0};
	ns_trace_split *s = ns_trace_split_new(rules);
	ns_job_rank *k = NULL;
	char *line = NULL;
	int rc = 1;

	ns_error_clear(&err);
	if (s == NULL || ns_input_open(&in, path, &err) != NS_OK) {
		fprintf(stderr, "summarize: %s: %s\n", path, err.msg);
		ns_trace_split_free(s);
		return 1;
	}
	if (ns_trace_read_input(&in, ns_trace_split_event, s, &meta, &err) == NS_OK &&
	    ns_trace_split_finish(s, &meta, &res, &err) == NS_OK &&
	    ns_job_rank_from_split(&res, path, &k, &err) == NS_OK &&
	    (line = ns_job_rank_to_ndjson(k)) != NULL) {
		printf("%s\n", line);
		rc = 0;
	} else {
		fprintf(stderr, "summarize: %s: %s\n", path, err.msg);
	}
	free(line);
	ns_job_rank_free(k);
	ns_split_result_free(&res);
	ns_trace_split_free(s);
	ns_input_close(&in);
	return rc;
}

int main(int argc, char **argv)
{
	ns_kernel_rules *rules = NULL;
	ns_error err;
	int rc = 0;

	if (ns_kernel_rules_default(&rules, &err) != NS_OK) {
		fprintf(stderr, "summarize: %s\n", err.msg);
		return 1;
	}
	for (int i = 1; i < argc; i++)
		rc |= summarize(rules, argv[i]);
	ns_kernel_rules_free(rules);
	return rc;
}
