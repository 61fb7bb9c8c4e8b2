/* Loading a side: a trace is analysed (ns_trace_analyse_input), then summarised through its report document
 * without its steps and the split's steps (so a saved report of the same trace summarises the same); any
 * other JSON document is a saved report (its steps held as text: diff_text.c) or a profile. Two traces are
 * loaded at once, one on a second thread: reading a large trace is CPU-bound (inflate, scan). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diff_private.h"
#include "nextstep/analysis.h"
#include "nextstep/json_file.h"
#include "nextstep/parse_json.h"
#include "nextstep/trace_report.h"
#include "nextstep/trace_split.h"
#include "trace/report/report_private.h"
#include "trace/trace_analyse_private.h"
#include "util/memstream.h"
#include "util/text.h"
#include "util/vec.h"

static bool kernel_list_cut(const ns_split_result *res)
{
	for (size_t i = 0; i < res->ndevices; i++)
		if (res->device[i].nkernel_time > NS_DIFF_MAX_KERNELS)
			return true;
	return false;
}

/* The trace's report document, as `nextstep trace --format json` prints it but without its steps (printed to
 * memory and parsed back: a trace and the report saved from it then summarise the same); the steps are read
 * from the split itself (diff_side_from_trace_report). Each device's report is decided here, once, into
 * *reports (free() them), for the diff's JSON to print again. */
static ns_status report_document(const ns_split_result *res, const ns_troof_report *roof, const char *source,
                                 const ns_diff_load_options *o, cJSON **out, ns_device_report **reports,
                                 ns_error *err)
{
	ns_format_options f = {.kind = NS_FORMAT_JSON};
	ns_report_options ro = {.classify = o->classify,
	                        .routes = o->routes,
	                        .format = &f,
	                        .source = source,
	                        .steps = false,
	                        .top = NS_DIFF_MAX_KERNELS,
	                        .devices = o->devices};
	ns_troof_roof_ctx rc = {roof, res};
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	ns_status st;

	if (mem == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	if (roof != NULL) { /* the kernels' next steps bounded as `nextstep trace` bounds them */
		ro.roof = ns_troof_roof;
		ro.roof_ctx = &rc;
	}
	if ((st = ns_report_decide(res, &ro, reports, err)) == NS_OK) {
		ro.reports = *reports;
		st = report_print_json_as(mem, res, &ro, REPORT_JSON_NO_STEPS, err);
	}
	if (!ns_memstream_close(mem, &text) && st == NS_OK)
		st = ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	if (st == NS_OK && (*out = cJSON_ParseWithLength(text, len)) == NULL)
		st = ns_error_set(err, NS_ERR_NOMEM, "out of memory reading the trace's report back");
	free(text);
	return st;
}

/* A trace side: summarised from its report without steps and its split's steps; it keeps the split (owned
 * from here, freed with the side) to print its report in the diff's JSON. */
static ns_status side_from_split(ns_split_result *res, ns_troof_report *roof, const char *source,
                                 const ns_diff_load_options *o, ns_diff_side *s, ns_error *err)
{
	cJSON *doc = NULL;
	ns_device_report *reports = NULL;
	ns_status st = report_document(res, roof, source, o, &doc, &reports, err);

	if (st == NS_OK)
		st = diff_side_from_trace_report(doc, res, s, err);
	if (st == NS_OK)
		st = ns_split_result_steps_status(res, err);
	cJSON_Delete(doc);
	if (st == NS_OK && (s->trace_source = strdup(source)) == NULL)
		st = ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	if (st != NS_OK) {
		ns_split_result_free(res);
		free(res);
		if (roof != NULL)
			ns_troof_report_free(roof);
		free(roof);
		free(reports);
		return st;
	}
	s->origin = NS_DIFF_FROM_TRACE;
	s->trace_roof = roof;
	s->trace_reports = reports;
	s->kernels_partial = kernel_list_cut(res);
	s->trace = res;
	s->trace_classify = o->classify;
	s->trace_routes = o->routes;
	s->trace_devices = o->devices;
	s->trace_top = o->report_top;
	return NS_OK;
}

/* A trace side, analysed as `nextstep trace` analyses it (with this side's kernel rules); a trace cut short
 * is an error here, as its report would not be the run's. */
static ns_status analyse_trace(ns_input *in, const ns_diff_load_options *o, int which, ns_split_result *res,
                               ns_troof_report **roof, ns_error *err)
{
	ns_trace_options *to = ns_trace_options_new();
	ns_analysis *a = NULL;
	ns_status st;

	if (to == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	ns_trace_options_set_rules(to, o->rules[which]);
	ns_trace_options_set_classify(to, o->classify);
	ns_trace_options_set_routes(to, o->routes);
	/* only the split and the placement are kept: the side decides its reports once (report_document) */
	ns_trace_options_set_reports(to, false);
	trace_options_set_empty(to, "nothing to compare");
	if (o->devices !=
	    NULL) /* placed for the next steps' bounds when the trace has shapes, as `trace` does */
		ns_trace_options_set_shape_bounds(to, o->devices);
	st = ns_trace_analyse_input(in, to, &a, err);
	ns_trace_options_free(to);
	if (st == NS_OK && ns_analysis_cut(a) != NULL) {
		*err = *ns_analysis_cut(a);
		st = err->status;
	}
	if (st == NS_OK && a != NULL) {
		ns_troof_report placed;
		if (trace_analysis_take_roofline(a, &placed) && (*roof = malloc(sizeof(**roof))) == NULL) {
			ns_troof_report_free(&placed);
			st = ns_error_set(err, NS_ERR_NOMEM, "out of memory");
		} else if (*roof != NULL) {
			**roof = placed;
		}
		if (st == NS_OK)
			trace_analysis_take_split(a, res);
	}
	ns_analysis_free(a);
	return st;
}

static ns_status load_trace(ns_input *in, const ns_diff_load_options *o, int which, ns_diff_side *s,
                            ns_error *err)
{
	ns_split_result *res = calloc(1, sizeof(*res));
	ns_troof_report *roof = NULL;
	ns_status st;

	if (res == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	if ((st = analyse_trace(in, o, which, res, &roof, err)) != NS_OK) {
		free(res);
		return st;
	}
	return side_from_split(res, roof, ns_input_display_name(in), o, s, err);
}

/* The whole input, up to NS_DIFF_FILE_MAX bytes, in a buffer of its size. */
/* A regular file's size (and a byte to tell that it ended), so that it is read into one buffer of its size:
 * doubling would hold up to twice the text in address space. */
static size_t first_capacity(const ns_input *in)
{
	struct stat st;

	if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 65536 &&
	    (unsigned long long)st.st_size < NS_DIFF_FILE_MAX)
		return (size_t)st.st_size + 1;
	return 65536;
}

static ns_status read_all(ns_input *in, char **out, size_t *len, ns_error *err)
{
	size_t cap = first_capacity(in), n = 0;
	char *buf = malloc(cap);

	if (buf == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	for (;;) {
		ssize_t got;
		if (n == cap) {
			char *grown = ns_grow_capped(buf, &cap, cap + 1, 1, NS_DIFF_FILE_MAX);
			if (grown == NULL) {
				free(buf);
				return cap >= NS_DIFF_FILE_MAX
				           ? ns_error_set(
				                 err, NS_ERR_LIMIT,
				                 "larger than %u bytes: not a saved report or profile",
				                 NS_DIFF_FILE_MAX)
				           : ns_error_set(err, NS_ERR_NOMEM, "out of memory");
			}
			buf = grown;
		}
		got = ns_input_read(in, buf + n, cap - n);
		if (got == 0)
			break;
		if (got < 0) {
			free(buf);
			return ns_error_set(err, NS_ERR_IO, "read error: %s", strerror(in->read_errno));
		}
		n += (size_t)got;
	}
	if (n + 1 < cap) { /* the text is held as long as the side: no more than it */
		char *fit = realloc(buf, n + 1);
		buf = fit != NULL ? fit : buf;
	}
	*out = buf;
	*len = n;
	return NS_OK;
}

static bool any_bucket(const ns_profile *p)
{
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		if (p->present[r])
			return true;
	return false;
}

/* A profile (the router's input, or a verdict it printed): shares only. */
static ns_status side_from_profile(const cJSON *obj, const ns_diff_load_options *o, ns_diff_side *s,
                                   ns_error *err)
{
	ns_profile_unknown_keys unknown;
	ns_verdict v;

	/* Unknown keys are ignored as the router does by default; a document with no bucket at all is
	 * refused. */
	if (ns_parse_profile_json(obj, &s->shares, false, &unknown, err) != NS_OK)
		return err->status;
	if (!any_bucket(&s->shares))
		return ns_error_set(
		    err, NS_ERR_VALUE,
		    "neither a saved report (no \"devices\") nor a profile (no bucket share)");
	if (ns_profile_validate(&s->shares, false, err) != NS_OK)
		return err->status;
	s->origin = NS_DIFF_FROM_PROFILE;
	ns_classify_profile(&s->shares, o->classify, &v);
	s->report = ns_format_verdict_json(s->shares.label, &v, o->routes);
	return s->report != NULL ? NS_OK : ns_error_set(err, NS_ERR_NOMEM, "out of memory");
}

/* A side from text it owns (freed here, or held by a saved report's side for its steps). */
static ns_status parse_owned(char *text, size_t len, const ns_diff_load_options *o, ns_diff_side *s,
                             ns_error *err)
{
	diff_steps_list steps = {NULL, 0, 0};
	size_t in_steps = 0;
	cJSON *doc = NULL;
	ns_status st = diff_text_check(text, len, &steps, err);

	for (size_t i = 0; st == NS_OK && i < steps.n; i++)
		in_steps += steps.items[i].len;
	/* the rest is held as a tree, several times its text */
	if (st == NS_OK && len - in_steps > NS_JSON_FILE_MAX)
		st = steps.n > 0 ? ns_error_set(err, NS_ERR_LIMIT,
		                                "%zu bytes outside the devices' steps, more than %u: not a "
		                                "saved report",
		                                len - in_steps, NS_JSON_FILE_MAX)
		                 : ns_error_set(err, NS_ERR_LIMIT,
		                                "larger than %u bytes: not a saved report or profile",
		                                NS_JSON_FILE_MAX);
	if (st == NS_OK)
		st = diff_text_tree(text, len, steps.items, steps.n, &doc, err);
	if (st != NS_OK || !cJSON_IsObject(doc) || !cJSON_HasObjectItem(doc, "devices")) {
		free(text);
		free(steps.items);
		if (st == NS_OK)
			st = side_from_profile(doc, o, s, err);
		cJSON_Delete(doc);
		return st;
	}
	/* the side holds the text, the steps' places in it and the tree; ns_diff_side_free() frees them */
	s->report_text = text;
	s->report_len = len;
	s->steps_text = steps.items;
	s->nsteps_text = steps.n;
	s->report = doc;
	return diff_clean_strings(doc) ? ns_diff_side_from_report(doc, s, err)
	                               : ns_error_set(err, NS_ERR_NOMEM, "out of memory");
}

ns_status ns_diff_side_parse(const char *text, size_t len, const ns_diff_load_options *o, ns_diff_side *s,
                             ns_error *err)
{
	char *copy = malloc(len + 1);

	if (copy == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	memcpy(copy, text, len);
	copy[len] = '\0';
	return parse_owned(copy, len, o, s, err);
}

ns_status ns_diff_side_load(ns_input *in, const ns_diff_load_options *o, int which, ns_diff_side *s,
                            ns_error *err)
{
	ns_input_kind kind = ns_input_sniff(in);
	char *text = NULL;
	size_t len = 0;
	ns_status st;

	if (ns_input_is_trace(kind))
		return load_trace(in, o, which, s, err);
	if (kind == NS_INPUT_EMPTY)
		return ns_error_set(err, NS_ERR_VALUE, "empty input");
	st = read_all(in, &text, &len, err);
	return st == NS_OK ? parse_owned(text, len, o, s, err) : st;
}

typedef struct {
	ns_input *in;
	const ns_diff_load_options *o;
	int which;
	ns_diff_side *side;
	ns_error *err;
	ns_status st;
} load_job;

static void *run_load_job(void *arg)
{
	load_job *job = arg;

	job->st = ns_diff_side_load(job->in, job->o, job->which, job->side, job->err);
	return NULL;
}

ns_status ns_diff_load_pair(ns_input *before, ns_input *after, const ns_diff_load_options *o,
                            ns_diff_side sides[2], ns_error errs[2])
{
	load_job jobs[2] = {{before, o, 0, &sides[0], &errs[0], NS_OK},
	                    {after, o, 1, &sides[1], &errs[1], NS_OK}};
	pthread_t thread;
	bool threaded;

	for (int i = 0; i < 2; i++) {
		ns_diff_side_init(&sides[i]);
		ns_error_clear(&errs[i]);
	}
	/* A second thread only where it pays: reading a trace is CPU-bound, a saved report or profile is read
	 * in a fraction of a second. A thread's malloc arena reserves 64 MB of address space; under a tight
	 * `ulimit -v` none can be had, and each of the thread's allocations then is an mmap of its own (a
	 * 12,000-step baseline took 40 s of system time). */
	threaded = ns_input_is_trace(ns_input_sniff(before)) && ns_input_is_trace(ns_input_sniff(after)) &&
	           pthread_create(&thread, NULL, run_load_job, &jobs[0]) == 0;
	if (!threaded)
		run_load_job(&jobs[0]); /* one after the other */
	run_load_job(&jobs[1]);
	if (threaded)
		pthread_join(thread, NULL);
	return jobs[0].st != NS_OK ? jobs[0].st : jobs[1].st;
}
