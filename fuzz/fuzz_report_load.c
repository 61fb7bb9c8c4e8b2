/* Feeds arbitrary bytes to the loader of a diff side that is not a trace (a saved `nextstep trace --format
 * json` report, or a profile) the way `nextstep diff` does, then compares the side with itself and builds the
 * text and JSON output, so every value the loader lets through is also used. A bad document must end as an
 * error with a message; a good one must hold only finite, non-negative times. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "nextstep/diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_side(const diff_side *s)
{
	for (size_t i = 0; i < s->nsteps; i++)
		if (!(s->step_us[i] >= 0 && isfinite(s->step_us[i])))
			abort();
	for (int r = 0; r < REGIME_COUNT; r++)
		if (!(s->bucket_us[r] >= 0 && s->shares.share[r] >= 0 && s->shares.share[r] <= 1.0 + 1e-6))
			abort();
	if (s->report == NULL)
		abort();
}

static void compare_with_itself(const diff_side *s, const classify_options *co)
{
	diff_print_options po = {{"before", "after"}, true, 5};
	diff_result r;
	ns_error err;
	cJSON *doc;
	FILE *sink = fopen("/dev/null", "w");

	ns_error_clear(&err);
	if (sink == NULL || diff_compare(s, s, co, &r, &err) != NS_OK)
		abort();
	if (r.change != DIFF_NO_CHANGE)
		abort();
	diff_print_text(sink, s, s, &r, &po);
	doc = diff_json(s, s, &r, 5);
	cJSON_Delete(doc);
	diff_result_free(&r);
	fclose(sink);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static ns_routes routes;
	static bool ready;
	classify_options co;
	diff_load_options o;
	diff_side s;
	ns_error err;

	ns_error_clear(&err);
	if (!ready && routes_init_default(&routes, &err) != NS_OK)
		abort();
	ready = true;
	classify_options_default(&co);
	o = (diff_load_options){{NULL, NULL}, &co, &routes, 5};
	diff_side_init(&s);
	if (diff_side_parse((const char *)data, size, &o, &s, &err) == NS_OK) {
		check_side(&s);
		compare_with_itself(&s, &co);
	} else if (err.msg[0] == '\0') {
		abort();
	}
	diff_side_free(&s);
	return 0;
}
