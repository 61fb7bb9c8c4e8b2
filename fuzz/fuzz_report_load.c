/* Feeds arbitrary bytes to the loader of a diff side that is not a trace (a saved `nextstep trace --format
 * json` report, or a profile) the way `nextstep diff` does, then compares the side with itself and builds the
 * text and JSON output, so every value the loader lets through is also used. A bad document must end as an
 * error with a message safe to print; a good one must hold only finite, non-negative times, and both outputs
 * must be safe to show (fuzz_text_safe.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_text_safe.h"
#include "nextstep/diff.h"
#include "nextstep/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_side(const ns_diff_side *s)
{
	for (size_t i = 0; i < s->nsteps; i++)
		if (!(s->step_us[i] >= 0 && isfinite(s->step_us[i])))
			abort();
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		if (!(s->bucket_us[r] >= 0 && s->shares.share[r] >= 0 && s->shares.share[r] <= 1.0 + 1e-6))
			abort();
	if (s->report == NULL)
		abort();
}

static void check_text(const ns_diff_side *s, const ns_diff_result *r, const ns_diff_print_options *po)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (mem == NULL)
		abort();
	ns_diff_print_text(mem, s, s, r, po);
	if (fclose(mem) != 0)
		abort();
	fuzz_check_text(text, len);
	free(text);
}

static void check_json(const ns_diff_side *s, const ns_diff_result *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	ns_error err;
	ns_status st;

	if (mem == NULL)
		abort();
	ns_error_clear(&err);
	st = ns_diff_print_json(mem, s, s, r, 5, &err);
	if (fclose(mem) != 0)
		abort();
	if (st == NS_OK)
		fuzz_check_json(text, len);
	free(text);
}

static void compare_with_itself(const ns_diff_side *s, const ns_classify_options *co)
{
	ns_diff_print_options po = {{"before", "after"}, true, 5};
	ns_diff_result r;
	ns_error err;

	ns_error_clear(&err);
	if (ns_diff_compare(s, s, co, &r, &err) != NS_OK)
		abort();
	if (r.change != NS_DIFF_NO_CHANGE)
		abort();
	check_text(s, &r, &po);
	check_json(s, &r);
	ns_diff_result_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static ns_routes routes;
	static bool ready;
	ns_classify_options co;
	ns_diff_load_options o;
	ns_diff_side s;
	ns_error err;

	ns_error_clear(&err);
	if (!ready && ns_routes_init_default(&routes, &err) != NS_OK)
		abort();
	ready = true;
	ns_classify_options_default(&co);
	o = (ns_diff_load_options){{NULL, NULL}, &co, &routes, 5, NULL};
	ns_diff_side_init(&s);
	if (ns_diff_side_parse((const char *)data, size, &o, &s, &err) == NS_OK) {
		check_side(&s);
		compare_with_itself(&s, &co);
	} else {
		fuzz_check_message(err.msg);
		if (err.msg[0] == '\0')
			abort();
	}
	ns_diff_side_free(&s);
	return 0;
}
