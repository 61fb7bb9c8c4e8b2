/* The JSON report's step objects are written without a cJSON tree (report_put_step) for speed; the tree
 * (report_step_json) is what every other part of the report is made of and what cJSON prints. Here both are
 * made for every step of every trace fixture in tests/data, and the bytes must be the same, so a member added
 * to the tree and not to the writer (or the reverse) fails here. The same holds of a bare window
 * (report_put_window, the job report's steps, against ns_report_window_json). */
#define _POSIX_C_SOURCE 200809L /* open_memstream, mkstemp */
#include <check.h>
#include <glob.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nextstep/analysis.h"
#include "nextstep/kernel_rules.h"
#include "nextstep/trace_read.h"
#include "nextstep/trace_split.h"
#include "trace/report/report_private.h"

typedef struct {
	size_t steps, with_passes, with_markers;
} coverage;

static bool read_split(const char *path, ns_kernel_rules *rules, ns_split_result *res)
{
	ns_trace_split *split = ns_trace_split_new(rules);
	ns_trace_meta meta;
	ns_input in;
	ns_error err;
	bool ok;

	ck_assert_ptr_nonnull(split);
	ns_error_clear(&err);
	memset(&meta, 0, sizeof(meta));
	ck_assert_msg(ns_input_open(&in, path, &err) == NS_OK, "%s: %s", path, err.msg);
	ok = ns_trace_read(&in, ns_trace_split_event, split, &meta, &err) == NS_OK && meta.events > 0 &&
	     ns_trace_split_finish(split, &meta, res, &err) == NS_OK;
	ns_input_close(&in);
	ns_trace_split_free(split);
	return ok; /* fixtures of bad traces have no steps to compare */
}

/* read_split() of the trace text in a temporary file. */
static bool read_split_text(const char *trace, ns_kernel_rules *rules, ns_split_result *res)
{
	char path[] = "/tmp/nextstep-test-XXXXXX";
	int fd = mkstemp(path);
	size_t n = strlen(trace);
	bool ok;

	ck_assert_int_ge(fd, 0);
	ck_assert(write(fd, trace, n) == (ssize_t)n);
	close(fd);
	ok = read_split(path, rules, res);
	unlink(path);
	return ok;
}

/* ns_report_print() of res in the given kind, as a string (caller frees). */
static char *report_text(const ns_split_result *res, ns_format_kind kind)
{
	ns_classify_options classify;
	ns_routes routes;
	ns_format_options format = {.kind = kind, .verbose = true};
	ns_report_options o = {
	    .classify = &classify, .routes = &routes, .format = &format, .source = "t", .top = 10};
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	ns_error err;

	ck_assert_ptr_nonnull(f);
	ns_error_clear(&err);
	ns_classify_options_default(&classify);
	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	ck_assert_int_eq(ns_report_print(f, res, &o, &err), NS_OK);
	fclose(f);
	ns_routes_free(&routes);
	return text;
}

static char *step_written(const ns_split_result *res, const ns_split_device *d, size_t i, const char *label,
                          const ns_report_options *o)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	json_out w;

	ck_assert_ptr_nonnull(f);
	json_out_init(&w, f);
	ck_assert(report_put_step(&w, res, d, i, label, o));
	ck_assert(json_out_flush(&w));
	fclose(f);
	return text;
}

/* report_put_window() (the job report's steps) against ns_report_window_json(..., true, ...). */
static void compare_window(const char *path, const ns_split_window *win, const char *label,
                           const ns_report_options *o)
{
	cJSON *tree = ns_report_window_json(label, win, true, o);
	char *want = tree != NULL ? cJSON_PrintUnformatted(tree) : NULL, *got = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&got, &size);
	json_out w;

	ck_assert_ptr_nonnull(want);
	ck_assert_ptr_nonnull(f);
	json_out_init(&w, f);
	report_put_window(&w, label, win, o);
	ck_assert(json_out_flush(&w));
	fclose(f);
	if (strcmp(want, got) != 0)
		ck_abort_msg("%s window:\n tree:   %s\n writer: %s", path, want, got);
	cJSON_free(want);
	cJSON_Delete(tree);
	free(got);
}

static void compare_steps(const char *path, const ns_split_result *res, const ns_report_options *o,
                          coverage *c)
{
	for (size_t k = 0; k < res->ndevices; k++) {
		const ns_split_device *d = &res->device[k];
		for (size_t i = 0; i < d->nsteps; i++) {
			char label[64];
			snprintf(label, sizeof(label), "device %zu step %" PRId64, k,
			         ns_split_device_step(d, i).step);
			cJSON *tree = report_step_json(res, d, i, label, o);
			char *want = tree != NULL ? cJSON_PrintUnformatted(tree) : NULL;
			char *got = step_written(res, d, i, label, o);
			ck_assert_ptr_nonnull(want);
			if (strcmp(want, got) != 0)
				ck_abort_msg("%s device %zu step %zu:\n tree:   %s\n writer: %s", path, k, i,
				             want, got);
			ns_split_window win = ns_split_device_step(d, i);
			compare_window(path, &win, label, o);
			c->steps++;
			c->with_passes += res->passes != NULL;
			c->with_markers += strstr(want, "\"marker\":null") == NULL;
			cJSON_free(want);
			cJSON_Delete(tree);
			free(got);
		}
	}
}

START_TEST(step_objects_written_directly_are_the_bytes_of_their_trees)
{
	ns_classify_options classify;
	ns_routes routes;
	ns_format_options format = {.kind = NS_FORMAT_JSON};
	ns_report_options o = {
	    .classify = &classify, .routes = &routes, .format = &format, .source = "fixture", .top = 10};
	ns_kernel_rules *rules = NULL;
	coverage c = {0, 0, 0};
	glob_t g;
	ns_error err;

	ns_error_clear(&err);
	ns_classify_options_default(&classify);
	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	ck_assert_int_eq(ns_kernel_rules_default(&rules, &err), NS_OK);
	ck_assert_int_eq(glob("tests/data/trace*.json", 0, NULL, &g), 0);
	for (size_t f = 0; f < g.gl_pathc; f++) {
		ns_split_result res;
		if (strstr(g.gl_pathv[f], ".expect.json") != NULL)
			continue;
		memset(&res, 0, sizeof(res));
		if (read_split(g.gl_pathv[f], rules, &res))
			compare_steps(g.gl_pathv[f], &res, &o, &c);
		ns_split_result_free(&res);
	}
	globfree(&g);
	ns_kernel_rules_free(rules);
	ns_routes_free(&routes);
	/* the fixtures have steps, host passes and named markers: each part of the writer was compared */
	ck_assert_uint_ge(c.steps, 20);
	ck_assert_uint_gt(c.with_passes, 0);
	ck_assert_uint_gt(c.with_markers, 0);
}
END_TEST

/* A file name is whatever bytes the file system holds; the JSON report must still be UTF-8 (RFC 8259), so a
 * byte that begins no character becomes U+FFFD (EF BF BD) and a control character its \u escape. */
START_TEST(a_source_name_that_is_not_utf8_is_written_with_replacement_characters)
{
	ns_classify_options classify;
	ns_routes routes;
	ns_format_options format = {.kind = NS_FORMAT_JSON};
	ns_report_options o = {.classify = &classify,
	                       .routes = &routes,
	                       .format = &format,
	                       .source = "a\xff\x1b[31mb\xc3",
	                       .top = 10};
	const char *want = "{\"source\":\"a\xef\xbf\xbd\\u001b[31mb\xef\xbf\xbd\",";
	ns_kernel_rules *rules = NULL;
	ns_split_result res;
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	ns_error err;

	ck_assert_ptr_nonnull(f);
	ns_error_clear(&err);
	ns_classify_options_default(&classify);
	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	ck_assert_int_eq(ns_kernel_rules_default(&rules, &err), NS_OK);
	memset(&res, 0, sizeof(res));
	ck_assert(read_split("tests/data/trace_buckets.json", rules, &res));
	ck_assert_int_eq(ns_report_print(f, &res, &o, &err), NS_OK);
	fclose(f);
	ck_assert_msg(strncmp(text, want, strlen(want)) == 0, "got: %.60s", text);
	free(text);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
	ns_routes_free(&routes);
}
END_TEST

/* The category of device events nextstep cannot analyse comes from the trace: its bytes that are not UTF-8
 * (here 0xd2, a lead byte followed by no continuation) become U+FFFD in the JSON report too, not only in
 * the text. */
START_TEST(an_unknown_device_category_that_is_not_utf8_is_written_with_replacement_characters)
{
	static const char trace[] = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"ke\xd2nel\",\"name\":\"k\","
	                            "\"ts\":0,\"dur\":5,\"pid\":0,\"tid\":0,\"args\":{\"device\":0}}]}";
	ns_kernel_rules *rules = NULL;
	ns_split_result res;
	char *text;
	cJSON *doc, *cat;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_rules_default(&rules, &err), NS_OK);
	memset(&res, 0, sizeof(res));
	ck_assert(read_split_text(trace, rules, &res));
	text = report_text(&res, NS_FORMAT_JSON);
	doc = cJSON_Parse(text);
	cat = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "unknown_device"), "category");
	ck_assert_msg(cJSON_IsString(cat), "no unknown_device.category in %s", text);
	ck_assert_str_eq(cat->valuestring, "ke\xef\xbf\xbdnel");
	cJSON_Delete(doc);
	free(text);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

/* The optimizer class comes from the trace's "Optimizer.step#CLASS.step" marker: a byte that is not UTF-8
 * in it (0x91, a continuation byte with no lead) is U+FFFD in the text finding and in the JSON. */
START_TEST(an_optimizer_class_that_is_not_utf8_is_shown_with_replacement_characters)
{
	static const char trace[] =
	    "{\"traceEvents\":["
	    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#7\",\"pid\":10,\"tid\":10,"
	    "\"ts\":0,\"dur\":100},"
	    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":10,\"tid\":10,"
	    "\"ts\":3,\"dur\":2,\"args\":{\"correlation\":1}},"
	    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":8,\"dur\":70,"
	    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
	    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"Optimizer.step#Adam\x91.step\",\"pid\":10,"
	    "\"tid\":10,\"ts\":80,\"dur\":12}]}";
	ns_kernel_rules *rules = NULL;
	ns_split_result res;
	char *text;
	cJSON *doc, *opt;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_rules_default(&rules, &err), NS_OK);
	memset(&res, 0, sizeof(res));
	ck_assert(read_split_text(trace, rules, &res));
	ck_assert_str_eq(res.optimizer, "Adam\xef\xbf\xbd");
	text = report_text(&res, NS_FORMAT_TEXT);
	ck_assert_msg(strstr(text, "-> Adam\xef\xbf\xbd is not one of torch.optim's") != NULL, "%s", text);
	free(text);
	text = report_text(&res, NS_FORMAT_JSON);
	doc = cJSON_Parse(text);
	opt = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "devices"), 0), "overall");
	opt = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(opt, "phases"), "finding"),
	                          "optimizer");
	ck_assert_msg(cJSON_IsString(opt), "no devices[0].overall.phases.finding.optimizer in %s", text);
	ck_assert_str_eq(opt->valuestring, "Adam\xef\xbf\xbd");
	cJSON_Delete(doc);
	free(text);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

/* A rank of a larger job read alone, its collectives exposed: the hint is the library's, but how to give the
 * whole job is the caller's to word (NS_REPORT_HINT_EVERY_RANK); a caller that gives no hints gets the
 * sentence without it, never the command line's words. */
START_TEST(the_one_rank_hint_asks_for_the_job_only_in_the_callers_words)
{
	ns_kernel_rules *rules = NULL;
	ns_split_result res;
	char *text;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_rules_default(&rules, &err), NS_OK);
	memset(&res, 0, sizeof(res));
	ck_assert(read_split("tests/data/trace_one_rank_exposed_comm.json", rules, &res));
	text = report_text(&res, NS_FORMAT_TEXT);
	ck_assert_msg(strstr(text,
	                     "this is rank 0 of 8 alone: a collective's time on one rank holds its wait "
	                     "for the last rank to join, which one rank's trace cannot tell from "
	                     "transfer\n") != NULL,
	              "%s", text);
	ck_assert_msg(strstr(text, "nextstep trace DIR") == NULL, "%s", text);
	free(text);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

/* A trace that marks only the optimizer's step (Optimizer.step#Adam.step, 80-92 us of a 100 us step): its
 * share is 12 %; forward and backward are not 0 %, they are unknown (in "other", 88 %), and the reports say
 * so: "not marked" in the text, a "not_marked" list beside the (still numeric) JSON members. */
START_TEST(passes_the_trace_does_not_mark_are_not_marked_not_zero)
{
	static const char trace[] =
	    "{\"traceEvents\":["
	    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#7\",\"pid\":10,\"tid\":10,"
	    "\"ts\":0,\"dur\":100},"
	    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":10,\"tid\":10,"
	    "\"ts\":3,\"dur\":2,\"args\":{\"correlation\":1}},"
	    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":8,\"dur\":70,"
	    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
	    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"Optimizer.step#Adam.step\",\"pid\":10,"
	    "\"tid\":10,\"ts\":80,\"dur\":12}]}";
	ns_kernel_rules *rules = NULL;
	ns_split_result res;
	char *text;
	cJSON *doc, *phases, *list;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_rules_default(&rules, &err), NS_OK);
	memset(&res, 0, sizeof(res));
	ck_assert(read_split_text(trace, rules, &res));
	ck_assert(!res.pass_marked[NS_PASS_FORWARD] && !res.pass_marked[NS_PASS_BACKWARD]);
	ck_assert(res.pass_marked[NS_PASS_OPTIMIZER]);
	text = report_text(&res, NS_FORMAT_TEXT);
	ck_assert_msg(strstr(text,
	                     "phases (host timeline, share of the step): forward not marked, backward not "
	                     "marked, optimizer 12.0%, other 88.0%\n") != NULL,
	              "%s", text);
	ck_assert_ptr_null(strstr(text, "forward 0.0%"));
	free(text);
	text = report_text(&res, NS_FORMAT_JSON);
	doc = cJSON_Parse(text);
	phases = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "devices"), 0), "overall");
	phases = cJSON_GetObjectItem(phases, "phases");
	ck_assert_msg(cJSON_IsNumber(cJSON_GetObjectItem(phases, "forward_us")), "%s", text);
	ck_assert(cJSON_GetObjectItem(phases, "forward_us")->valuedouble == 0.0);
	ck_assert(cJSON_GetObjectItem(phases, "optimizer_us")->valuedouble == 12.0);
	list = cJSON_GetObjectItem(phases, "not_marked");
	ck_assert_msg(cJSON_GetArraySize(list) == 2, "%s", text);
	ck_assert_str_eq(cJSON_GetArrayItem(list, 0)->valuestring, "forward");
	ck_assert_str_eq(cJSON_GetArrayItem(list, 1)->valuestring, "backward");
	cJSON_Delete(doc);
	free(text);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

/* A share the detail prints as 20% must be at least 20%: the unfit threshold of missing_ops is 20%, and a
 * degraded problem printed "20%" read as a contradiction. 999 of 5003 ids absent is 19.97%: printed 19%. The
 * shares' digits are cut, not rounded, in every detail. */
typedef struct {
	ns_quality_kind kind;
	double share;
	const char *want;
} shown_case;

static const shown_case shown_cases[] = {
    {NS_QP_MISSING_OPS, 999.0 / 5003.0, "(19% of the ids"},
    {NS_QP_MISSING_OPS, 0.2, "(20% of the ids"},
    {NS_QP_LAUNCH_WITHOUT_ACTIVITY, 0.19999, "~19.9% of GPU time"},
    {NS_QP_ACTIVITY_WITHOUT_LAUNCH, 0.0049999, ": 0.4% of GPU"},
    {NS_QP_PROFILER_OVERHEAD, 0.0999, "~9% of the host"},
};

START_TEST(a_quality_share_is_printed_no_higher_than_it_is)
{
	const shown_case *c = &shown_cases[_i];
	ns_split_quality q;
	char detail[512];

	memset(&q, 0, sizeof(q));
	q.problem[c->kind] = (ns_quality_problem){999, 4004, 0, c->share, 999, NS_QUALITY_DEGRADED};
	ns_report_quality_detail(&q, c->kind, detail, sizeof(detail));
	ck_assert_msg(strstr(detail, c->want) != NULL, "%s: %s", c->want, detail);
}
END_TEST

/* What ns_analysis_print() writes, in memory; NULL when it fails (err then says why). */
static char *analysis_text(const ns_analysis *a, ns_error *err)
{
	ns_format_options format = {.kind = NS_FORMAT_TEXT};
	char *text = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size);
	ns_status st;

	ck_assert_ptr_nonnull(mem);
	st = ns_analysis_print(mem, a, &format, err);
	fclose(mem);
	if (st != NS_OK) {
		free(text);
		return NULL;
	}
	return text;
}

/* The command line prints each trace with its own report options, which decide the reports as they print:
 * an analysis asked for no reports decides none (their accessors answer as for no such device, and it will
 * not print), and its split printed with the options ns_analysis_print() uses is that print, byte for byte.
 */
START_TEST(an_analysis_without_reports_leaves_the_deciding_to_the_printer)
{
	static const char path[] = "tests/data/trace_buckets.json";
	ns_trace_options *o = ns_trace_options_new();
	ns_analysis *decided = NULL, *split_only = NULL;
	ns_classify_options classify;
	ns_format_options format = {.kind = NS_FORMAT_TEXT};
	ns_report_options ro = {
	    .classify = &classify, .format = &format, .source = path, .top = NS_REPORT_TOP_DEFAULT};
	ns_routes *routes;
	ns_error err;
	char *want, *got = NULL;
	size_t size = 0;
	FILE *mem;

	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(ns_trace_analyse(path, NULL, &decided, &err), NS_OK);
	ns_trace_options_set_reports(o, false);
	ck_assert_int_eq(ns_trace_analyse(path, o, &split_only, &err), NS_OK);
	ck_assert_uint_eq(ns_analysis_devices(split_only), 1);
	ck_assert_ptr_nonnull(ns_analysis_verdict(decided, 0));
	ck_assert_ptr_null(ns_analysis_verdict(split_only, 0));
	ck_assert_ptr_null(ns_analysis_device_report(split_only, 0));
	ck_assert_ptr_null(ns_analysis_next_fix(split_only, 0, NULL));
	ck_assert(!ns_analysis_routed(split_only, 0));
	ck_assert_ptr_null(analysis_text(split_only, &err));
	ck_assert_int_eq(err.status, NS_ERR_VALUE);

	want = analysis_text(decided, &err);
	ck_assert_ptr_nonnull(want);
	ns_classify_options_default(&classify);
	ro.routes = routes = ns_routes_new(NULL, &err);
	ck_assert_ptr_nonnull(routes);
	mem = open_memstream(&got, &size);
	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(ns_report_print(mem, ns_analysis_split(split_only), &ro, &err), NS_OK);
	fclose(mem);
	ck_assert_str_eq(got, want);
	ck_assert(strstr(want, "compute-bound (30%)") != NULL); /* the fixture's hand-derived verdict */
	free(got);
	free(want);
	ns_routes_delete(routes);
	ns_analysis_free(split_only);
	ns_analysis_free(decided);
	ns_trace_options_free(o);
}
END_TEST

/* ns_analysis_print() prints the reports the analysis decided, in every form, and decides none again: a mark
 * put on the decided report (its label) is what it prints. */
START_TEST(an_analysis_prints_the_reports_it_decided)
{
	static const char path[] = "tests/data/trace_buckets.json";
	static const char mark[] = "the report decided by the analysis";
	static const ns_format_kind kinds[] = {NS_FORMAT_TEXT, NS_FORMAT_JSON};
	ns_analysis *a = NULL;
	ns_device_report *m;
	ns_error err;

	ck_assert_int_eq(ns_trace_analyse(path, NULL, &a, &err), NS_OK);
	ck_assert_uint_eq(ns_analysis_devices(a), 1);
	/* the test's own write into the analysis: the API hands the report out read-only */
	m = (ns_device_report *)ns_analysis_device_report(a, 0);
	ck_assert_ptr_nonnull(m);
	ck_assert(strstr(m->label, "device") != NULL || strstr(m->label, "dev ") != NULL);
	snprintf(m->label, sizeof(m->label), "%s", mark);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		ns_format_options format = {.kind = kinds[k]};
		char *text = NULL;
		size_t size = 0;
		FILE *mem = open_memstream(&text, &size);

		ck_assert_ptr_nonnull(mem);
		ck_assert_int_eq(ns_analysis_print(mem, a, &format, &err), NS_OK);
		fclose(mem);
		ck_assert_msg(strstr(text, mark) != NULL, "form %zu: %s", k, text);
		free(text);
	}
	ns_analysis_free(a);
}
END_TEST

/* What ns_report_print() writes with opts, in memory. */
static char *printed(const ns_split_result *res, const ns_report_options *opts)
{
	char *text = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size);
	ns_error err;

	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(ns_report_print(mem, res, opts, &err), NS_OK);
	fclose(mem);
	return text;
}

/* Reports decided once (ns_report_decide) and handed to the printers print the same bytes as the printers
 * deciding each as they go, in text (with -v's detail) and JSON, for a trace of two devices. */
START_TEST(reports_decided_once_print_as_the_printer_decides_them)
{
	static const char path[] = "tests/data/trace_two_devices.json";
	static const ns_format_kind kinds[] = {NS_FORMAT_TEXT, NS_FORMAT_JSON};
	ns_trace_options *o = ns_trace_options_new();
	ns_analysis *a = NULL;
	ns_classify_options classify;
	ns_routes *routes;
	ns_device_report *reports = NULL;
	ns_error err;

	ck_assert_ptr_nonnull(o);
	ns_trace_options_set_reports(o, false);
	ck_assert_int_eq(ns_trace_analyse(path, o, &a, &err), NS_OK);
	ck_assert_uint_eq(ns_analysis_devices(a), 2);
	ns_classify_options_default(&classify);
	routes = ns_routes_new(NULL, &err);
	ck_assert_ptr_nonnull(routes);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		ns_format_options format = {.kind = kinds[k], .verbose = true};
		ns_report_options ro = {.classify = &classify,
		                        .routes = routes,
		                        .format = &format,
		                        .source = path,
		                        .top = NS_REPORT_TOP_DEFAULT};
		char *want = printed(ns_analysis_split(a), &ro), *got;

		ck_assert_int_eq(ns_report_decide(ns_analysis_split(a), &ro, &reports, &err), NS_OK);
		ck_assert_ptr_nonnull(reports);
		ro.reports = reports;
		got = printed(ns_analysis_split(a), &ro);
		ck_assert_str_eq(got, want);
		ck_assert(strstr(want, "device 1 (") != NULL ||
		          strstr(want, "\"device\":1") != NULL); /* both devices */
		free(got);
		free(want);
		free(reports);
	}
	ns_routes_delete(routes);
	ns_analysis_free(a);
	ns_trace_options_free(o);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trace_report");
	TCase *json = tcase_create("json"), *model = tcase_create("model");
	SRunner *sr;
	int failed;

	tcase_add_test(json, step_objects_written_directly_are_the_bytes_of_their_trees);
	tcase_add_test(json, a_source_name_that_is_not_utf8_is_written_with_replacement_characters);
	tcase_add_test(json,
	               an_unknown_device_category_that_is_not_utf8_is_written_with_replacement_characters);
	tcase_add_test(json, an_optimizer_class_that_is_not_utf8_is_shown_with_replacement_characters);
	tcase_add_test(json, passes_the_trace_does_not_mark_are_not_marked_not_zero);
	tcase_add_test(json, the_one_rank_hint_asks_for_the_job_only_in_the_callers_words);
	tcase_add_loop_test(json, a_quality_share_is_printed_no_higher_than_it_is, 0,
	                    (int)(sizeof(shown_cases) / sizeof(shown_cases[0])));
	suite_add_tcase(s, json);
	tcase_add_test(model, an_analysis_without_reports_leaves_the_deciding_to_the_printer);
	tcase_add_test(model, an_analysis_prints_the_reports_it_decided);
	tcase_add_test(model, reports_decided_once_print_as_the_printer_decides_them);
	suite_add_tcase(s, model);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
