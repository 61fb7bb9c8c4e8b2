/* The ranks of a distributed job with libnextstep from another program: their traces merged in one call
 * (ns_job_analyse()), the time the ranks wait for each other, and the stragglers that make them wait, as
 * `nextstep trace rank-*.json` names them.
 *
 * Jobs are libnextstep's unstable tier (the merged job is a struct whose fields change between releases),
 * so this program defines NEXTSTEP_STATIC_LINKING_ONLY and links libnextstep.a of the same version: with
 * CMake, examples/CMakeLists.txt builds it against nextstep::nextstep_static. Run it on a job's traces:
 *   ./job_stragglers tests/data/job-dir/rank-0.json tests/data/job-dir/rank-1.json
 */
#define NEXTSTEP_STATIC_LINKING_ONLY
#include <inttypes.h>
#include <stdio.h>

#include <nextstep/nextstep.h>

int main(int argc, char **argv)
{
	ns_job_result *job;
	ns_error err;

	if (argc < 2) {
		fprintf(stderr, "usage: %s RANK-TRACE...\n", argv[0]);
		return 2;
	}
	if (ns_job_analyse((const char *const *)argv + 1, (size_t)argc - 1, NULL, &job, &err) != NS_OK) {
		fprintf(stderr, "job_stragglers: %s\n", err.msg);
		return 1;
	}
	printf("%zu ranks of a world of %" PRId64 "\n", job->nranks, job->world_size);
	if (job->split)
		printf("waiting for other ranks: %.0f%% of the step (median rank)\n",
		       job->wait_share * 100.0);
	else
		printf("waiting not told from transfer: %s\n", job->why_not);
	for (size_t i = 0; i < job->nstrag; i++) {
		const ns_job_straggler *s = &job->strag[i];
		printf("straggler: rank %" PRId64 " (%s): %s %.0f%% of its step, %.0f%% on the others\n",
		       s->rank, ns_job_straggler_kind_name(s->kind), ns_regime_name(s->bucket),
		       s->share * 100.0, s->median_share * 100.0);
	}
	if (job->nstrag == 0)
		printf("no straggler\n");
	ns_job_result_free(job);
	return 0;
}
