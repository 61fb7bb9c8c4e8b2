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
    {"0.5%%", NS_ERR_VALUE, 0},  {"1e-400", NS_OK, 0.0}, /* underflows to 0: a share of 0 */
    {"-1e-400", NS_OK, 0.0},
};

START_TEST(parse_share_accepts_fractions_and_percentages_only)
{
	const share_case *c = &share_cases[_i];
	double v = -1;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_msg(ns_profile_parse_share(c->text, &v, &err) == c->want, "'%s': %s", c->text, err.msg);
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
	ck_assert_int_eq(ns_profile_parse_share("72", &v, &err), NS_ERR_VALUE);
	ck_assert_ptr_nonnull(strstr(err.msg, "72%"));
}
END_TEST

/* The message must not round the value it rejects into one that would be accepted. */
static const struct {
	const char *text;
	const char *says;
} share_messages[] = {
    {"1.0000001", "share 1.0000001 is above 1"},
    {"1.0000000000000002", "share 1.0000000000000002 is above 1"},
    {"72", "share 72 is above 1"},
    {"-0.000001", "share -1e-06 is negative"},
    {"1e400", "'1e400' is out of range"},
};

START_TEST(share_messages_print_the_value_with_every_digit_it_needs)
{
	double v;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_profile_parse_share(share_messages[_i].text, &v, &err), NS_ERR_VALUE);
	ck_assert_msg(strstr(err.msg, share_messages[_i].says) != NULL, "'%s': %s", share_messages[_i].text,
	              err.msg);
}
END_TEST

static ns_profile make(double compute, double memory, double idle)
{
	ns_profile p;

	ns_profile_init(&p);
	p.share[NS_REGIME_COMPUTE] = compute;
	p.share[NS_REGIME_MEMORY] = memory;
	p.share[NS_REGIME_IDLE] = idle;
	p.present[NS_REGIME_COMPUTE] = p.present[NS_REGIME_MEMORY] = p.present[NS_REGIME_IDLE] = true;
	return p;
}

START_TEST(sum_above_one_plus_tolerance_is_an_error_naming_the_sum)
{
	ns_profile p = make(0.6, 0.5, 0.1);
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_profile_validate(&p, false, &err), NS_ERR_VALUE);
	ck_assert_ptr_nonnull(strstr(err.msg, "1.2"));
	ck_assert_ptr_nonnull(strstr(err.msg, "same time"));
}
END_TEST

START_TEST(sum_within_tolerance_is_accepted)
{
	ns_profile p = make(0.6, 0.3, 0.105);
	ns_error err;

	ck_assert_int_eq(ns_profile_validate(&p, false, &err), NS_OK);
	ck_assert_double_eq_tol(p.share[NS_REGIME_COMPUTE], 0.6, 1e-15);
}
END_TEST

START_TEST(normalize_rescales_a_sum_above_one)
{
	ns_profile p = make(0.8, 0.8, 0.4);
	ns_error err;

	ck_assert_int_eq(ns_profile_validate(&p, true, &err), NS_OK);
	ck_assert_double_eq_tol(ns_profile_sum(&p), 1.0, 1e-12);
	ck_assert_double_eq_tol(p.share[NS_REGIME_IDLE], 0.2, 1e-12);
}
END_TEST

START_TEST(normalize_leaves_a_sum_below_one_alone)
{
	ns_profile p = make(0.5, 0.2, 0.1);
	ns_error err;

	ck_assert_int_eq(ns_profile_validate(&p, true, &err), NS_OK);
	ck_assert_double_eq_tol(ns_profile_sum(&p), 0.8, 1e-12);
}
END_TEST

START_TEST(no_bucket_or_all_zero_is_an_error)
{
	ns_profile p;
	ns_error err;

	ns_profile_init(&p);
	ck_assert_int_eq(ns_profile_validate(&p, false, &err), NS_ERR_VALUE);
	p.present[NS_REGIME_IDLE] = true;
	ck_assert_int_eq(ns_profile_validate(&p, false, &err), NS_ERR_VALUE);
}
END_TEST

START_TEST(long_label_is_truncated_not_overflowed)
{
	char big[1000];
	ns_profile p;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ns_profile_init(&p);
	ns_profile_set_label(&p, big);
	ck_assert_uint_eq(strlen(p.label), NS_PROFILE_LABEL_MAX - 1);
}
END_TEST

static const struct {
	const char *in;
	const char *want;
} label_cases[] = {
    {"resnet50", "resnet50"},
    {"bad\xff"
     "byte",
     "bad\xef\xbf\xbd"
     "byte"},                                                         /* invalid UTF-8 becomes U+FFFD */
    {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},                         /* an overlong '/' is two bad bytes */
    {"caf\xc3\xa9 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xf0\x9f\x98\x80"}, /* well-formed text is kept */
};

START_TEST(label_is_kept_as_well_formed_utf8)
{
	ns_profile p;

	ns_profile_init(&p);
	ns_profile_set_label(&p, label_cases[_i].in);
	ck_assert_str_eq(p.label, label_cases[_i].want);
}
END_TEST

START_TEST(long_label_is_cut_between_characters)
{
	char big[NS_PROFILE_LABEL_MAX + 8];
	ns_profile p;

	/* 254 ASCII bytes, then a 2-byte character that would end at byte 256: one byte too many. */
	memset(big, 'x', 254);
	memcpy(big + 254, "\xc3\xa9\xc3\xa9", 5);
	ns_profile_init(&p);
	ns_profile_set_label(&p, big);
	ck_assert_uint_eq(strlen(p.label), 254);
	/* 253 then the character fits exactly in the 255 bytes a label holds. */
	memmove(big + 253, big + 254, 5);
	ns_profile_set_label(&p, big);
	ck_assert_uint_eq(strlen(p.label), 255);
	ck_assert_str_eq(p.label + 253, "\xc3\xa9");
}
END_TEST

static Suite *profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("profile");

	tcase_add_loop_test(tc, parse_share_accepts_fractions_and_percentages_only, 0,
	                    sizeof(share_cases) / sizeof(share_cases[0]));
	tcase_add_test(tc, bare_number_above_one_suggests_the_percent_form);
	tcase_add_loop_test(tc, share_messages_print_the_value_with_every_digit_it_needs, 0,
	                    sizeof(share_messages) / sizeof(share_messages[0]));
	tcase_add_loop_test(tc, label_is_kept_as_well_formed_utf8, 0,
	                    sizeof(label_cases) / sizeof(label_cases[0]));
	tcase_add_test(tc, long_label_is_cut_between_characters);
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
