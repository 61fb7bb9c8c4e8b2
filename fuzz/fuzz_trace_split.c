/* Feeds arbitrary bytes through the whole trace path: the analysis (reader, split, each device's report
 * decided) and the report's three forms. A trace that reads must split into buckets that are never negative
 * and sum exactly to each step, and print without a fault: text and quiet output safe to show
 * (fuzz_text_safe.h), the JSON report one document, and every step the streamed JSON writes byte for byte
 * the tree report_step_json() builds. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_split_bytes.h"
#include "fuzz_text_safe.h"
#include "nextstep/trace_report.h"
#include "nextstep/trace_split.h"
#include "trace/report/report_private.h"
#include "util/json_out.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ns_kernel_rules *rules;
static ns_routes routes;

static void check_buckets(const ns_split_result *res)
{
	for (size_t d = 0; d < res->ndevices; d++) {
		for (size_t w = 0; w < res->device[d].nsteps; w++) {
			const ns_split_window xw = ns_split_device_step(&res->device[d], w), *x = &xw;
			int64_t sum = 0;
			for (int b = 0; b < NS_REGIME_COUNT; b++) {
				if (x->bucket_ns[b] < 0)
					abort();
				sum += x->bucket_ns[b];
			}
			if (sum != x->dur_ns)
				abort();
		}
	}
}

/* Prints through print() into memory; the text (NUL-terminated) and its length, or NULL. */
static char *print_to_memory(const ns_split_result *res, const ns_report_options *o, size_t *len)
{
	char *text = NULL;
	FILE *mem = open_memstream(&text, len);
	ns_error err;
	ns_status st;

	if (mem == NULL)
		abort();
	ns_error_clear(&err);
	st = ns_report_print(mem, res, o, &err);
	if (fclose(mem) != 0)
		abort();
	if (st != NS_OK) {
		free(text);
		return NULL;
	}
	return text;
}

static void check_form(const ns_split_result *res, const ns_report_options *o)
{
	size_t len = 0;
	char *text = print_to_memory(res, o, &len);

	if (text == NULL)
		return;
	if (o->format->kind == NS_FORMAT_JSON)
		fuzz_check_json(text, len);
	else
		fuzz_check_text(text, len);
	free(text);
}

/* The bytes json_out writes for one step, through the tree (tree) or straight (!tree); NULL on OOM. */
static char *step_bytes(const ns_split_result *res, const ns_split_device *d, size_t i,
                        const ns_report_options *o, bool tree, size_t *len)
{
	char *text = NULL;
	FILE *mem = open_memstream(&text, len);
	json_out w;
	cJSON *obj = NULL;
	bool ok;

	if (mem == NULL)
		abort();
	json_out_init(&w, mem);
	if (tree) {
		obj = report_step_json(res, d, i, "fuzz step", o);
		ok = obj != NULL && json_out_item(&w, obj);
		cJSON_Delete(obj);
	} else {
		ok = report_put_step(&w, res, d, i, "fuzz step", o);
	}
	if (!json_out_flush(&w) || fclose(mem) != 0)
		abort();
	if (!ok) {
		free(text);
		return NULL;
	}
	return text;
}

static void check_steps_streamed(const ns_split_result *res, const ns_report_options *o)
{
	for (size_t d = 0; d < res->ndevices; d++) {
		for (size_t i = 0; i < res->device[d].nsteps; i++) {
			size_t tree_len = 0, put_len = 0;
			char *tree = step_bytes(res, &res->device[d], i, o, true, &tree_len);
			char *put = step_bytes(res, &res->device[d], i, o, false, &put_len);
			if (tree != NULL && put != NULL &&
			    (tree_len != put_len || memcmp(tree, put, tree_len) != 0))
				abort();
			free(tree);
			free(put);
		}
	}
}

static void check_all_forms(const ns_split_result *res)
{
	static const char *const hints[NS_REPORT_HINT_COUNT] = {"hint 0", "hint 1", "hint 2", "hint 3",
	                                                        "hint 4", "hint 5", "hint 6", "hint 7"};
	ns_classify_options co;
	ns_format_options fo = {NS_FORMAT_TEXT, true, false};
	ns_report_options o = {.classify = &co,
	                       .routes = &routes,
	                       .format = &fo,
	                       .source = "fuzz",
	                       .steps = true,
	                       .top = 5,
	                       .hints = hints};

	ns_classify_options_default(&co);
	check_form(res, &o);
	fo.kind = NS_FORMAT_QUIET;
	check_form(res, &o);
	fo.kind = NS_FORMAT_JSON;
	check_form(res, &o);
	check_steps_streamed(res, &o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ns_error err;
	ns_analysis *a = NULL;

	ns_error_clear(&err);
	if (rules == NULL && (ns_kernel_rules_default(&rules, &err) != NS_OK ||
	                      ns_routes_init_default(&routes, &err) != NS_OK))
		abort();
	if (fuzz_analyse_bytes(data, size, rules, false, NULL, &a, &err) == NS_OK) {
		check_buckets(ns_analysis_split(a));
		check_all_forms(ns_analysis_split(a));
	} else {
		fuzz_check_message(err.msg);
	}
	ns_analysis_free(a);
	return 0;
}
