/* Interned kernel names: one id per distinct name, JSON escapes resolved for display and classification. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/kernel_names.h"

START_TEST(interned_names_get_one_id_each_and_classify_once)
{
	ns_kernel_names *t = ns_kernel_names_new();
	ns_kernel_rules *r = NULL;
	uint32_t a, b, c;
	ns_error err;
	char many[32];

	ns_error_clear(&err);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(ns_kernel_rules_default(&r, &err), NS_OK);
	ck_assert_int_eq(ns_kernel_names_intern(t, "volta_sgemm_64x64_nt_extra", 20, &a, &err), NS_OK);
	ck_assert_int_eq(ns_kernel_names_intern(t, "ncclKernel_AllReduce", 20, &b, &err), NS_OK);
	ck_assert_int_eq(ns_kernel_names_intern(t, "volta_sgemm_64x64_nt", 20, &c, &err), NS_OK);
	ck_assert_uint_eq(a, c);
	ck_assert_uint_ne(a, b);
	ck_assert_str_eq(ns_kernel_names_get(t, a), "volta_sgemm_64x64_nt");
	ck_assert_int_eq(ns_kernel_names_classify(t, a, r), NS_KCLASS_COMPUTE);
	ck_assert_int_eq(ns_kernel_names_classify(t, b, r), NS_KCLASS_COMM);
	for (int i = 0; i < 1000; i++) { /* past several rehashes */
		snprintf(many, sizeof(many), "kernel_%d", i);
		ck_assert_int_eq(ns_kernel_names_intern(t, many, strlen(many), &c, &err), NS_OK);
		ck_assert_uint_eq(c, (uint32_t)i + 2);
	}
	ck_assert_int_eq(ns_kernel_names_intern(t, "kernel_500", 10, &c, &err), NS_OK);
	ck_assert_uint_eq(c, 502);
	ck_assert_uint_eq(ns_kernel_names_count(t), 1002);
	ns_kernel_rules_free(r);
	ns_kernel_names_free(t);
}
END_TEST

START_TEST(interned_names_resolve_json_escapes_for_display_and_classes)
{
	/* the escaped "g" is in the kernel's own name: the built-in table matches identities */
	static const char raw[] = "k_\\u0067emm<\\\"x\\\"> \\u00e9\\n\\u0041\\/\\ud83d\\u0000";
	ns_kernel_names *t = ns_kernel_names_new();
	ns_kernel_rules *r = NULL;
	uint32_t a, b;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_rules_default(&r, &err), NS_OK);
	ck_assert_int_eq(ns_kernel_names_intern(t, raw, strlen(raw), &a, &err), NS_OK);
	ck_assert_int_eq(ns_kernel_names_intern(t, raw, strlen(raw), &b, &err), NS_OK);
	ck_assert_uint_eq(a, b);
	/* a lone surrogate and \u0000 (which a C string cannot hold) are U+FFFD each */
	ck_assert_str_eq(ns_kernel_names_get(t, a), "k_gemm<\"x\"> \xc3\xa9\nA/\xef\xbf\xbd\xef\xbf\xbd");
	ck_assert_int_eq(ns_kernel_names_classify(t, a, r), NS_KCLASS_COMPUTE);
	ns_kernel_rules_free(r);
	ns_kernel_names_free(t);
}
END_TEST

/* What a name shows: escapes resolved, a surrogate pair one character, bytes that are not UTF-8 U+FFFD. */
typedef struct {
	const char *raw; /* as written between the quotes in the trace */
	const char *shown;
} display_case;

static const display_case displays[] = {
    {"flash_fwd_\\ud83d\\ude00", "flash_fwd_\xf0\x9f\x98\x80"}, /* U+1F600 from its surrogate pair */
    {"k\xff\xfe_x", "k\xef\xbf\xbd\xef\xbf\xbd_x"},             /* two stray bytes */
    {"k\xe2\x82", "k\xef\xbf\xbd\xef\xbf\xbd"},                 /* a character cut short */
    {"caf\xc3\xa9_kernel", "caf\xc3\xa9_kernel"},               /* valid UTF-8 kept */
    {"esc\\u001b[31m", "esc\x1b[31m"}, /* control characters stay (text output escapes them) */
};

START_TEST(interned_names_show_well_formed_utf8)
{
	const display_case *c = &displays[_i];
	ns_kernel_names *t = ns_kernel_names_new();
	uint32_t id;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_names_intern(t, c->raw, strlen(c->raw), &id, &err), NS_OK);
	ck_assert_str_eq(ns_kernel_names_get(t, id), c->shown);
	ns_kernel_names_free(t);
}
END_TEST

START_TEST(a_name_longer_than_the_bound_is_an_error)
{
	size_t len = NS_KERNEL_NAME_MAX + 1;
	char *name = malloc(len);
	ns_kernel_names *t = ns_kernel_names_new();
	uint32_t id;
	ns_error err;

	ck_assert_ptr_nonnull(name);
	memset(name, 'k', len);
	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_names_intern(t, name, len, &id, &err), NS_ERR_LIMIT);
	ck_assert_ptr_nonnull(strstr(err.msg, "longer than"));
	ck_assert_int_eq(ns_kernel_names_intern(t, name, len - 1, &id, &err), NS_OK);
	ck_assert_uint_eq(ns_kernel_names_count(t), 1);
	free(name);
	ns_kernel_names_free(t);
}
END_TEST

START_TEST(distinct_names_past_the_total_bound_are_an_error)
{
	size_t len = NS_KERNEL_NAME_MAX, fit = NS_KERNEL_NAMES_BYTES_MAX / (NS_KERNEL_NAME_MAX + 1);
	char *name = malloc(len);
	ns_kernel_names *t = ns_kernel_names_new();
	uint32_t id;
	ns_error err;

	ck_assert_ptr_nonnull(name);
	memset(name, 'k', len);
	ns_error_clear(&err);
	/* each name costs its bytes and a NUL: fit names of NS_KERNEL_NAME_MAX bytes go in, the next does not
	 */
	for (size_t i = 0; i < fit; i++) {
		memcpy(name, &i, sizeof(i));
		ck_assert_int_eq(ns_kernel_names_intern(t, name, len, &id, &err), NS_OK);
	}
	memcpy(name, &fit, sizeof(fit));
	ck_assert_int_eq(ns_kernel_names_intern(t, name, len, &id, &err), NS_ERR_LIMIT);
	ck_assert_ptr_nonnull(strstr(err.msg, "MiB"));
	/* a name already held is still found */
	memset(name, 0, sizeof(size_t));
	ck_assert_int_eq(ns_kernel_names_intern(t, name, len, &id, &err), NS_OK);
	ck_assert_uint_eq(id, 0);
	free(name);
	ns_kernel_names_free(t);
}
END_TEST

static Suite *names_suite(void)
{
	Suite *s = suite_create("kernel_names");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, interned_names_get_one_id_each_and_classify_once);
	tcase_add_test(tc, interned_names_resolve_json_escapes_for_display_and_classes);
	tcase_add_loop_test(tc, interned_names_show_well_formed_utf8, 0,
	                    (int)(sizeof(displays) / sizeof(displays[0])));
	tcase_add_test(tc, a_name_longer_than_the_bound_is_an_error);
	tcase_add_test(tc, distinct_names_past_the_total_bound_are_an_error);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(names_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
