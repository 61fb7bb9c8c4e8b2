/* Jobs in one call (nextstep/job.h): rank traces or their summary lines in, the merged job out. The stages
 * are the ones `nextstep trace FILE...` and `nextstep job` run: a trace split as ns_trace_analyse() splits
 * it, its rank summary, the merger. */
#include <stdio.h>
#include <string.h>

#include "nextstep/job.h"
#include "trace/trace_analyse_private.h"

/* err's message led by the file it is about; its position kept. */
static ns_status about_file(ns_error *err, const char *path)
{
	ns_error was = *err;

	ns_error_set(err, was.status, "%s: %s", path, was.msg);
	return ns_error_at(err, was.line, was.offset, was.index);
}

ns_status ns_job_rank_from_trace(const char *path, const ns_trace_options *options, ns_job_rank **out,
                                 ns_error *err)
{
	ns_split_result res;
	ns_troof_report roof;
	bool placed;
	ns_status st;

	*out = NULL;
	ns_error_clear(err);
	if ((st = trace_analyse_split_placed(path, options, &res, &roof, &placed, err)) != NS_OK)
		return st;
	st = ns_job_rank_from_split(&res, path, out, err);
	if (st == NS_OK && placed) /* the bounds of its kernels, as `nextstep trace` keeps them */
		ns_job_rank_set_roof(*out, &res, &roof);
	if (placed)
		ns_troof_report_free(&roof);
	ns_split_result_free(&res);
	return st;
}

/* The merger of what add() made of each path; m is freed here. */
static ns_status finish(ns_job_merge *m, ns_status st, ns_job_result **out, ns_error *err)
{
	if (st == NS_OK)
		st = ns_job_merge_finish(m, out, err);
	ns_job_merge_free(m);
	return st;
}

ns_status ns_job_analyse(const char *const *paths, size_t n, const ns_trace_options *options,
                         ns_job_result **out, ns_error *err)
{
	ns_job_merge *m = ns_job_merge_new();
	ns_status st = NS_OK;

	*out = NULL;
	ns_error_clear(err);
	if (m == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n && st == NS_OK; i++) {
		ns_job_rank *rank = NULL;
		st = ns_job_rank_from_trace(paths[i], options, &rank, err);
		if (st == NS_OK)
			st = ns_job_merge_add(m, rank, err);
		if (st != NS_OK)
			about_file(err, paths[i]);
	}
	return finish(m, st, out, err);
}

typedef struct {
	ns_error first; /* the first bad line */
	bool bad;
} line_errors;

static void note_bad_line(void *ctx, const ns_error *err)
{
	line_errors *e = ctx;

	if (!e->bad)
		e->first = *err;
	e->bad = true;
}

/* Adds the summary lines of path to m; the first bad line is an error. */
static ns_status add_summaries(ns_job_merge *m, const char *path, ns_error *err)
{
	line_errors bad = {.bad = false};
	ns_input in;
	ns_status st;

	if ((st = ns_input_open(&in, path, err)) != NS_OK)
		return st;
	st = ns_job_merge_read(m, &in, note_bad_line, &bad, err);
	ns_input_close(&in);
	if (st == NS_OK && bad.bad) {
		*err = bad.first;
		st = err->status;
	}
	return st;
}

ns_status ns_job_read_summaries(const char *const *paths, size_t n, ns_job_result **out, ns_error *err)
{
	ns_job_merge *m = ns_job_merge_new();
	ns_status st = NS_OK;

	*out = NULL;
	ns_error_clear(err);
	if (m == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n && st == NS_OK; i++)
		if ((st = add_summaries(m, paths[i], err)) != NS_OK)
			about_file(err, paths[i]);
	return finish(m, st, out, err);
}
