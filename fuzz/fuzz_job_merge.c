/* Feeds arbitrary bytes to the job merger the way `nextstep job` does (job_merge_read() over an input): every
 * line that reads as a summary is added, each other one told (with a message safe to show), then the job is
 * finished. Whatever the summaries say, the result must hold: waiting and transfer partition each rank's
 * exposed comm, waiting is never negative, stragglers are ranks of the job; and the job report, in each form
 * `nextstep job` prints, must be safe to show (fuzz_text_safe.h).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_text_safe.h"
#include "nextstep/job.h"
#include "nextstep/job_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const job_result *res)
{
	for (size_t i = 0; i < res->nranks; i++) {
		const job_rank_result *r = &res->rank[i];
		const split_window *w = &r->overall;
		int64_t exposed =
		    r->src->ndev > 0 ? r->src->dev[r->device].overall.cause_ns[CAUSE_EXPOSED] : 0;
		if (w->cause_ns[CAUSE_WAIT] < 0 || w->cause_ns[CAUSE_COMM_TRANSFER] < 0)
			abort();
		if (res->split && w->cause_ns[CAUSE_WAIT] + w->cause_ns[CAUSE_COMM_TRANSFER] != exposed)
			abort();
		if (i > 0 && res->rank[i - 1].src->rank >= r->src->rank)
			abort(); /* sorted, each rank once */
	}
	if (res->nstrag > res->nranks)
		abort();
	for (size_t i = 0; i < res->nstrag; i++)
		if (res->strag[i].bucket == REGIME_COMM || res->strag[i].excess_ns <= 0)
			abort();
}

static void check_form(const job_result *res, format_kind kind)
{
	static ns_routes routes;
	static bool ready;
	classify_options co;
	format_options fo = {kind, true, false};
	job_report_options o = {&co, &routes, &fo};
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	ns_error err;
	ns_status st;

	ns_error_clear(&err);
	if (mem == NULL || (!ready && routes_init_default(&routes, &err) != NS_OK))
		abort();
	ready = true;
	classify_options_default(&co);
	st = job_report_print(mem, res, &o, &err);
	if (fclose(mem) != 0)
		abort();
	if (st == NS_OK && kind == FORMAT_JSON)
		fuzz_check_json(text, len);
	else if (st == NS_OK)
		fuzz_check_text(text, len);
	free(text);
}

static void ignore_line(void *ctx, const ns_error *err)
{
	(void)ctx;
	if (err->msg[0] == '\0' || err->line < 1)
		abort();
	fuzz_check_message(err->msg);
}

/* The bytes as a file (an anonymous one), read by job_merge_read() as `nextstep job` reads its inputs. */
static void read_lines(job_merge *m, const uint8_t *data, size_t size)
{
	int fd = memfd_create("summaries", 0);
	char path[64];
	ns_input in;
	ns_error err;

	if (fd < 0 || (size > 0 && write(fd, data, size) != (ssize_t)size))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ns_error_clear(&err);
	if (input_open(&in, path, &err) != NS_OK)
		abort();
	(void)input_sniff(&in);
	if (job_merge_read(m, &in, ignore_line, NULL, &err) != NS_OK)
		abort(); /* a file this small is no read error and no line past JOB_LINE_MAX */
	input_close(&in);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	job_merge *m = job_merge_new();
	job_result *res = NULL;
	ns_error err;

	if (m == NULL)
		abort();
	read_lines(m, data, size);
	ns_error_clear(&err);
	if (job_merge_finish(m, &res, &err) == NS_OK) {
		check(res);
		check_form(res, FORMAT_TEXT);
		check_form(res, FORMAT_QUIET);
		check_form(res, FORMAT_JSON);
		job_result_free(res);
	}
	job_merge_free(m);
	return 0;
}
