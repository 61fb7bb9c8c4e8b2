/* The stable API as a program using libnextstep.so sees it: nextstep/nextstep.h without the unstable tier. */
#undef NEXTSTEP_STATIC_LINKING_ONLY /* the build defines it for the tree; this test must do without */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/nextstep.h"

START_TEST(version_macros_agree_with_the_library)
{
	char want[32];

	snprintf(want, sizeof(want), "%d.%d.%d", NS_VERSION_MAJOR, NS_VERSION_MINOR, NS_VERSION_PATCH);
	ck_assert_str_eq(NS_VERSION_STRING, want);
	ck_assert_str_eq(ns_version_string(), want);
	ck_assert_uint_eq(ns_version(),
	                  (unsigned)(NS_VERSION_MAJOR * 10000 + NS_VERSION_MINOR * 100 + NS_VERSION_PATCH));
	ck_assert_uint_eq(ns_version(), NS_VERSION_NUMBER);
}
END_TEST

/* The lesson's first profile, routed with routes made by ns_routes_new() (examples/compute.json's line). */
START_TEST(routes_new_routes_a_profile)
{
	ns_profile p;
	classify_options o;
	ns_verdict v;
	ns_error err;
	format_options text = {FORMAT_TEXT, false, false};
	char *line = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&line, &size);
	ns_routes *r;

	ns_error_clear(&err);
	profile_init(&p);
	ck_assert_int_eq(parse_flag_bucket(&p, REGIME_COMPUTE, "0.72", &err), NS_OK);
	ck_assert_int_eq(parse_flag_bucket(&p, REGIME_MEMORY, "0.15", &err), NS_OK);
	r = ns_routes_new(NULL, &err);
	ck_assert_ptr_nonnull(r);
	classify_options_default(&o);
	classify_profile(&p, &o, &v);
	format_verdict_line(out, "", &v, r, &text);
	fclose(out);
	ck_assert_str_eq(line,
	                 "compute-bound (72%) -> write/use a fused kernel or lower precision (Module 4/5)\n");
	free(line);
	ns_routes_delete(r);
	ns_routes_delete(NULL);
}
END_TEST

static Suite *api_suite(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("stable");

	tcase_add_test(tc, version_macros_agree_with_the_library);
	tcase_add_test(tc, routes_new_routes_a_profile);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(api_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
