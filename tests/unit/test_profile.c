/* Profile values: fractions, percentages, the limits of a share, and the sum rule. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/profile.h"

typedef struct {
	const char *text;
	ns_status want;
	double value;
} share_case;

static const share_case share_cases[] = {
    {"0.72", NS_OK, 0.72},       {"72%", NS_OK, 0.72},      {".5", NS_OK, 0.5},
    {"1", NS_OK, 1.0},           {"0", NS_OK, 0.0},         {"100%", NS_OK, 1.0},
    {"7.5e-1", NS_OK, 0.75},     {"72", NS_ERR_VALUE, 0}, /* a bare number above 1: suggests 72% */
    {"1.0001", NS_ERR_VALUE, 0}, {"101%", NS_ERR_VALUE, 0}, {"-0.1", NS_ERR_VALUE, 0},
    {"-5%", NS_ERR_VALUE, 0},    {"nan", NS_ERR_VALUE, 0},  {"inf", NS_ERR_VALUE, 0},
    {"0x1p-1", NS_ERR_VALUE, 0}, {"abc", NS_ERR_VALUE, 0},  {"", NS_ERR_VALUE, 0},
    {"%", NS_ERR_VALUE, 0},      {"0.5 ", NS_ERR_VALUE, 0}, {"1e999", NS_ERR_VALUE, 0},
    {"0.5%%", NS_ERR_VALUE, 0},
};

START_TEST(parse_share_accepts_fractions_and_percentages_only)
{
	const share_case *c = &share_cases[_i];
	double v = -1;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_msg(profile_parse_share(c->text, &v, &err) == c->want, "'%s': %s", c->text, err.msg);
	if (c->want == NS_OK)
		ck_assert_double_eq_tol(v, c->value, 1e-12);
	else
		ck_assert_str_ne(err.msg, "");
}
END_TEST

START_TEST(bare_number_above_one_suggests_the_percent_form)
{
	double v;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(profile_parse_share("72", &v, &err), NS_ERR_VALUE);
	ck_assert_ptr_nonnull(strstr(err.msg, "72%"));
}
END_TEST

static ns_profile make(double compute, double memory, double idle)
{
	ns_profile p;

	profile_init(&p);
	p.share[REGIME_COMPUTE] = compute;
	p.share[REGIME_MEMORY] = memory;
	p.share[REGIME_IDLE] = idle;
	p.present[REGIME_COMPUTE] = p.present[REGIME_MEMORY] = p.present[REGIME_IDLE] = true;
	return p;
}

START_TEST(sum_above_one_plus_tolerance_is_an_error_naming_the_sum)
{
	ns_profile p = make(0.6, 0.5, 0.1);
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(profile_validate(&p, false, &err), NS_ERR_VALUE);
	ck_assert_ptr_nonnull(strstr(err.msg, "1.2"));
	ck_assert_ptr_nonnull(strstr(err.msg, "same time"));
}
END_TEST

START_TEST(sum_within_tolerance_is_accepted)
{
	ns_profile p = make(0.6, 0.3, 0.105);
	ns_error err;

	ck_assert_int_eq(profile_validate(&p, false, &err), NS_OK);
	ck_assert_double_eq_tol(p.share[REGIME_COMPUTE], 0.6, 1e-15);
}
END_TEST

START_TEST(normalize_rescales_a_sum_above_one)
{
	ns_profile p = make(0.8, 0.8, 0.4);
	ns_error err;

	ck_assert_int_eq(profile_validate(&p, true, &err), NS_OK);
	ck_assert_double_eq_tol(profile_sum(&p), 1.0, 1e-12);
	ck_assert_double_eq_tol(p.share[REGIME_IDLE], 0.2, 1e-12);
}
END_TEST

START_TEST(normalize_leaves_a_sum_below_one_alone)
{
	ns_profile p = make(0.5, 0.2, 0.1);
	ns_error err;

	ck_assert_int_eq(profile_validate(&p, true, &err), NS_OK);
	ck_assert_double_eq_tol(profile_sum(&p), 0.8, 1e-12);
}
END_TEST

START_TEST(no_bucket_or_all_zero_is_an_error)
{
	ns_profile p;
	ns_error err;

	profile_init(&p);
	ck_assert_int_eq(profile_validate(&p, false, &err), NS_ERR_VALUE);
	p.present[REGIME_IDLE] = true;
	ck_assert_int_eq(profile_validate(&p, false, &err), NS_ERR_VALUE);
}
END_TEST

START_TEST(long_label_is_truncated_not_overflowed)
{
	char big[1000];
	ns_profile p;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	profile_init(&p);
	profile_set_label(&p, big);
	ck_assert_uint_eq(strlen(p.label), PROFILE_LABEL_MAX - 1);
}
END_TEST

static Suite *profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("profile");

	tcase_add_loop_test(tc, parse_share_accepts_fractions_and_percentages_only, 0,
	                    sizeof(share_cases) / sizeof(share_cases[0]));
	tcase_add_test(tc, bare_number_above_one_suggests_the_percent_form);
	tcase_add_test(tc, sum_above_one_plus_tolerance_is_an_error_naming_the_sum);
	tcase_add_test(tc, sum_within_tolerance_is_accepted);
	tcase_add_test(tc, normalize_rescales_a_sum_above_one);
	tcase_add_test(tc, normalize_leaves_a_sum_below_one_alone);
	tcase_add_test(tc, no_bucket_or_all_zero_is_an_error);
	tcase_add_test(tc, long_label_is_truncated_not_overflowed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(profile_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
