/* The JSON report's step objects are written without a cJSON tree (report_put_step) for speed; the tree
 * (report_step_json) is what every other part of the report is made of and what cJSON prints. Here both are
 * made for every step of every trace fixture in tests/data, and the bytes must be the same, so a member added
 * to the tree and not to the writer (or the reverse) fails here. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <check.h>
#include <glob.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/kernel_rules.h"
#include "nextstep/trace_read.h"
#include "nextstep/trace_split.h"
#include "trace/report_private.h"

typedef struct {
	size_t steps, with_passes, with_markers;
} coverage;

static bool read_split(const char *path, kernel_rules *rules, split_result *res)
{
	trace_split *split = trace_split_new(rules);
	trace_meta meta;
	ns_input in;
	ns_error err;
	bool ok;

	ck_assert_ptr_nonnull(split);
	ns_error_clear(&err);
	memset(&meta, 0, sizeof(meta));
	ck_assert_msg(input_open(&in, path, &err) == NS_OK, "%s: %s", path, err.msg);
	ok = trace_read(&in, trace_split_event, split, &meta, &err) == NS_OK && meta.events > 0 &&
	     trace_split_finish(split, &meta, res, &err) == NS_OK;
	input_close(&in);
	trace_split_free(split);
	return ok; /* fixtures of bad traces have no steps to compare */
}

static char *step_written(const split_result *res, const split_device *d, size_t i, const char *label,
                          const report_options *o)
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

static void compare_steps(const char *path, const split_result *res, const report_options *o, coverage *c)
{
	for (size_t k = 0; k < res->ndevices; k++) {
		const split_device *d = &res->device[k];
		for (size_t i = 0; i < d->nsteps; i++) {
			char label[64];
			snprintf(label, sizeof(label), "device %zu step %" PRId64, k, d->steps[i].step);
			cJSON *tree = report_step_json(res, d, i, label, o);
			char *want = tree != NULL ? cJSON_PrintUnformatted(tree) : NULL;
			char *got = step_written(res, d, i, label, o);
			ck_assert_ptr_nonnull(want);
			if (strcmp(want, got) != 0)
				ck_abort_msg("%s device %zu step %zu:\n tree:   %s\n writer: %s", path, k, i,
				             want, got);
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
	classify_options classify;
	ns_routes routes;
	format_options format = {.kind = FORMAT_JSON};
	report_options o = {&classify, &routes, &format, "fixture", false, 10, NULL};
	kernel_rules *rules = NULL;
	coverage c = {0, 0, 0};
	glob_t g;
	ns_error err;

	ns_error_clear(&err);
	classify_options_default(&classify);
	ck_assert_int_eq(routes_init_default(&routes, &err), NS_OK);
	ck_assert_int_eq(kernel_rules_default(&rules, &err), NS_OK);
	ck_assert_int_eq(glob("tests/data/trace*.json", 0, NULL, &g), 0);
	for (size_t f = 0; f < g.gl_pathc; f++) {
		split_result res;
		if (strstr(g.gl_pathv[f], ".expect.json") != NULL)
			continue;
		memset(&res, 0, sizeof(res));
		if (read_split(g.gl_pathv[f], rules, &res))
			compare_steps(g.gl_pathv[f], &res, &o, &c);
		split_result_free(&res);
	}
	globfree(&g);
	kernel_rules_free(rules);
	routes_free(&routes);
	/* the fixtures have steps, host passes and named markers: each part of the writer was compared */
	ck_assert_uint_ge(c.steps, 20);
	ck_assert_uint_gt(c.with_passes, 0);
	ck_assert_uint_gt(c.with_markers, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trace_report");
	TCase *json = tcase_create("json");
	SRunner *sr;
	int failed;

	tcase_add_test(json, step_objects_written_directly_are_the_bytes_of_their_trees);
	suite_add_tcase(s, json);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
