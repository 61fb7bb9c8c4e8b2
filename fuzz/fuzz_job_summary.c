/* Feeds arbitrary bytes to the rank-summary reader the way `nextstep job` reads one line. A good summary must
 * write back to a line of UTF-8 that reads again to the same line (the form is stable), and merge on its own;
 * a bad one must end as an error with a message safe to print (fuzz_text_safe.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text_safe.h"
#include "nextstep/job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void merge_alone(ns_job_rank *k)
{
	ns_job_merge *m = ns_job_merge_new();
	ns_job_result *res = NULL;
	ns_error err;

	if (m == NULL)
		abort();
	ns_error_clear(&err);
	if (ns_job_merge_add(m, k, &err) == NS_OK && ns_job_merge_finish(m, &res, &err) == NS_OK) {
		if (res->nranks != 1 || res->nstrag != 0 || res->split)
			abort(); /* one rank: nobody to compare with */
		ns_job_result_free(res);
	} else if (err.msg[0] == '\0') {
		abort();
	}
	ns_job_merge_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ns_job_rank *k = NULL, *again = NULL;
	char *line, *line2;
	ns_error err;

	ns_error_clear(&err);
	if (ns_job_rank_from_ndjson((const char *)data, size, &k, &err) != NS_OK) {
		if (err.msg[0] == '\0' || k != NULL)
			abort();
		fuzz_check_message(err.msg);
		return 0;
	}
	line = ns_job_rank_to_ndjson(k);
	if (line == NULL || !fuzz_utf8_valid(line, strlen(line)))
		abort();
	if (ns_job_rank_from_ndjson(line, strlen(line), &again, &err) != NS_OK)
		abort();
	line2 = ns_job_rank_to_ndjson(again);
	if (line2 == NULL || strcmp(line, line2) != 0)
		abort();
	free(line);
	free(line2);
	ns_job_rank_free(again);
	merge_alone(k);
	return 0;
}
