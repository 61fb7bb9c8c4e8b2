/* Interned kernel names: one id per distinct name, JSON escapes resolved for display and classification. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/kernel_names.h"

START_TEST(interned_names_get_one_id_each_and_classify_once)
{
	kernel_names *t = kernel_names_new();
	kernel_rules *r = NULL;
	uint32_t a, b, c;
	ns_error err;
	char many[32];

	ns_error_clear(&err);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(kernel_rules_default(&r, &err), NS_OK);
	ck_assert_int_eq(kernel_names_intern(t, "volta_sgemm_64x64_nt_extra", 20, &a, &err), NS_OK);
	ck_assert_int_eq(kernel_names_intern(t, "ncclKernel_AllReduce", 20, &b, &err), NS_OK);
	ck_assert_int_eq(kernel_names_intern(t, "volta_sgemm_64x64_nt", 20, &c, &err), NS_OK);
	ck_assert_uint_eq(a, c);
	ck_assert_uint_ne(a, b);
	ck_assert_str_eq(kernel_names_get(t, a), "volta_sgemm_64x64_nt");
	ck_assert_int_eq(kernel_names_classify(t, a, r), KCLASS_COMPUTE);
	ck_assert_int_eq(kernel_names_classify(t, b, r), KCLASS_COMM);
	for (int i = 0; i < 1000; i++) { /* past several rehashes */
		snprintf(many, sizeof(many), "kernel_%d", i);
		ck_assert_int_eq(kernel_names_intern(t, many, strlen(many), &c, &err), NS_OK);
		ck_assert_uint_eq(c, (uint32_t)i + 2);
	}
	ck_assert_int_eq(kernel_names_intern(t, "kernel_500", 10, &c, &err), NS_OK);
	ck_assert_uint_eq(c, 502);
	ck_assert_uint_eq(kernel_names_count(t), 1002);
	kernel_rules_free(r);
	kernel_names_free(t);
}
END_TEST

START_TEST(interned_names_resolve_json_escapes_for_display_and_classes)
{
	/* the escaped "g" is in the kernel's own name: the built-in table matches identities */
	static const char raw[] = "k_\\u0067emm<\\\"x\\\"> \\u00e9\\n\\u0041\\/\\ud83d\\u0000";
	kernel_names *t = kernel_names_new();
	kernel_rules *r = NULL;
	uint32_t a, b;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(kernel_rules_default(&r, &err), NS_OK);
	ck_assert_int_eq(kernel_names_intern(t, raw, strlen(raw), &a, &err), NS_OK);
	ck_assert_int_eq(kernel_names_intern(t, raw, strlen(raw), &b, &err), NS_OK);
	ck_assert_uint_eq(a, b);
	ck_assert_str_eq(kernel_names_get(t, a), "k_gemm<\"x\"> \xc3\xa9\nA/??");
	ck_assert_int_eq(kernel_names_classify(t, a, r), KCLASS_COMPUTE);
	kernel_rules_free(r);
	kernel_names_free(t);
}
END_TEST

static Suite *names_suite(void)
{
	Suite *s = suite_create("kernel_names");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, interned_names_get_one_id_each_and_classify_once);
	tcase_add_test(tc, interned_names_resolve_json_escapes_for_display_and_classes);
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
