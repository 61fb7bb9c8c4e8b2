/* Feeds arbitrary bytes to the job merger the way `nextstep job` does (ns_job_merge_read() over an input):
 * every line that reads as a summary is added, each other one told (with a message safe to show), then the
 * job is finished. Whatever the summaries say, the result must hold: waiting and transfer partition each
 * rank's exposed comm, waiting is never negative, stragglers are ranks of the job; and the job report, in
 * each form `nextstep job` prints, must be safe to show (fuzz_text_safe.h).
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

static void check(const ns_job_result *res)
{
	for (size_t i = 0; i < res->nranks; i++) {
		const ns_job_rank_result *r = &res->rank[i];
		const ns_split_window *w = &r->overall;
		int64_t exposed =
		    r->src->ndev > 0 ? r->src->dev[r->device].overall.cause_ns[NS_CAUSE_EXPOSED] : 0;
		if (w->cause_ns[NS_CAUSE_WAIT] < 0 || w->cause_ns[NS_CAUSE_COMM_TRANSFER] < 0)
			abort();
		if (res->split && w->cause_ns[NS_CAUSE_WAIT] + w->cause_ns[NS_CAUSE_COMM_TRANSFER] != exposed)
			abort();
		if (i > 0 && res->rank[i - 1].src->rank >= r->src->rank)
			abort(); /* sorted, each rank once */
	}
	if (res->nstrag > res->nranks)
		abort();
	for (size_t i = 0; i < res->nstrag; i++)
		if (res->strag[i].bucket == NS_REGIME_COMM || res->strag[i].excess_ns <= 0)
			abort();
}

static void check_form(const ns_job_result *res, ns_format_kind kind)
{
	static ns_routes routes;
	static ns_device_table devices; /* the ranks' fp32 advice names its peaks, as the CLI's does */
	static bool ready;
	ns_classify_options co;
	ns_format_options fo = {kind, true, false};
	ns_job_report_options o = {&co, &routes, &fo, &devices};
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	ns_error err;
	ns_status st;

	ns_error_clear(&err);
	if (!ready)
		ns_devices_init(&devices);
	if (mem == NULL || (!ready && (ns_routes_init_default(&routes, &err) != NS_OK ||
	                               ns_devices_load_file(&devices, NS_FUZZ_DEVICES, &err) != NS_OK)))
		abort();
	ready = true;
	ns_classify_options_default(&co);
	st = ns_job_report_print(mem, res, &o, &err);
	if (fclose(mem) != 0)
		abort();
	if (st == NS_OK && kind == NS_FORMAT_JSON)
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

/* The bytes as a file (an anonymous one), read by ns_job_merge_read() as `nextstep job` reads its inputs. */
static void read_lines(ns_job_merge *m, const uint8_t *data, size_t size)
{
	int fd = memfd_create("summaries", 0);
	char path[64];
	ns_input in;
	ns_error err;

	if (fd < 0 || (size > 0 && write(fd, data, size) != (ssize_t)size))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ns_error_clear(&err);
	if (ns_input_open(&in, path, &err) != NS_OK)
		abort();
	(void)ns_input_sniff(&in);
	if (ns_job_merge_read(m, &in, ignore_line, NULL, &err) != NS_OK)
		abort(); /* a file this small is no read error and no line past NS_JOB_LINE_MAX */
	ns_input_close(&in);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ns_job_merge *m = ns_job_merge_new();
	ns_job_result *res = NULL;
	ns_error err;

	if (m == NULL)
		abort();
	read_lines(m, data, size);
	ns_error_clear(&err);
	if (ns_job_merge_finish(m, &res, &err) == NS_OK) {
		check(res);
		check_form(res, NS_FORMAT_TEXT);
		check_form(res, NS_FORMAT_QUIET);
		check_form(res, NS_FORMAT_JSON);
		ns_job_result_free(res);
	}
	ns_job_merge_free(m);
	return 0;
}
