/* Feeds arbitrary bytes through the whole trace path: reader, split, and both report forms. A trace that
 * reads must split into buckets that are never negative and sum exactly to each step, and print without a
 * fault. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_split_bytes.h"
#include "nextstep/trace_read.h"
#include "nextstep/trace_report.h"
#include "nextstep/trace_split.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static kernel_rules *rules;
static ns_routes routes;
static FILE *sink;

static void check_buckets(const split_result *res)
{
	for (size_t d = 0; d < res->ndevices; d++) {
		for (size_t w = 0; w < res->device[d].nsteps; w++) {
			const split_window *x = &res->device[d].steps[w];
			int64_t sum = 0;
			for (int b = 0; b < REGIME_COUNT; b++) {
				if (x->bucket_ns[b] < 0)
					abort();
				sum += x->bucket_ns[b];
			}
			if (sum != x->dur_ns)
				abort();
		}
	}
}

static void print_both_forms(const split_result *res)
{
	classify_options co;
	format_options fo = {FORMAT_TEXT, true, false};
	report_options o = {
	    .classify = &co, .routes = &routes, .format = &fo, .source = "fuzz", .steps = true, .top = 5};

	ns_error err;

	classify_options_default(&co);
	ns_error_clear(&err);
	(void)report_print(sink, res, &o, &err);
	fo.kind = FORMAT_JSON;
	(void)report_print(sink, res, &o, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ns_error err;
	split_result res;

	ns_error_clear(&err);
	if (rules == NULL &&
	    (kernel_rules_default(&rules, &err) != NS_OK || routes_init_default(&routes, &err) != NS_OK ||
	     (sink = fopen("/dev/null", "w")) == NULL))
		abort();
	if (fuzz_split_bytes(data, size, rules, false, &res, &err) == NS_OK) {
		check_buckets(&res);
		print_both_forms(&res);
	}
	split_result_free(&res);
	return 0;
}
