/* Number parsing with SI/IEC prefixes, durations, and the short forms the roofline prints. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/units.h"

static const struct {
	const char *text;
	ns_units_kind kind;
	double want;
} good_numbers[] = {
    {"2.1T", NS_UNIT_FLOP, 2.1e12},
    {"1.1e12", NS_UNIT_FLOP, 1.1e12},
    {"5GFLOP", NS_UNIT_FLOP, 5e9},
    {"1TFLOPs", NS_UNIT_FLOP, 1e12},
    {"3PFLOPS", NS_UNIT_FLOP, 3e15},
    {"64GiB", NS_UNIT_BYTE, 68719476736.0},
    {"64Gi", NS_UNIT_BYTE, 68719476736.0},
    {"64GB", NS_UNIT_BYTE, 64e9},
    {"64B", NS_UNIT_BYTE, 64.0},
    {"403M", NS_UNIT_BYTE, 403e6},
    {"1KiB", NS_UNIT_BYTE, 1024.0},
    {"1.5MiB", NS_UNIT_BYTE, 1572864.0},
    {"2TiB", NS_UNIT_BYTE, 2199023255552.0},
    {"7B", NS_UNIT_COUNT, 7e9},
    {"7b", NS_UNIT_COUNT, 7e9},
    {"70G", NS_UNIT_COUNT, 70e9},
    {"32k", NS_UNIT_COUNT, 32000.0},
    {"32K", NS_UNIT_COUNT, 32000.0},
    {"4Ki", NS_UNIT_COUNT, 4096.0},
    {"8192", NS_UNIT_COUNT, 8192.0},
    {".5", NS_UNIT_COUNT, 0.5},
    {"0", NS_UNIT_BYTE, 0.0},
};

static const struct {
	const char *text;
	ns_units_kind kind;
} bad_numbers[] = {
    {"", NS_UNIT_COUNT},     {"-1", NS_UNIT_BYTE},   {"+1", NS_UNIT_BYTE},     {"abc", NS_UNIT_COUNT},
    {"nan", NS_UNIT_FLOP},   {"inf", NS_UNIT_FLOP},  {"1.2.3", NS_UNIT_COUNT}, {"64GiBx", NS_UNIT_BYTE},
    {"0x10", NS_UNIT_COUNT}, {" 5", NS_UNIT_COUNT},  {"7B", NS_UNIT_FLOP},     {"5gb", NS_UNIT_BYTE},
    {"5FLOP", NS_UNIT_BYTE}, {"5 G", NS_UNIT_COUNT}, {"1e999", NS_UNIT_COUNT}, {"5Q", NS_UNIT_COUNT},
};

START_TEST(units_parse_reads_prefixes_and_unit_words)
{
	ns_error err;
	double v = -1.0;

	ns_error_clear(&err);
	ck_assert_msg(ns_units_parse(good_numbers[_i].text, good_numbers[_i].kind, "--x", &v, &err) == NS_OK,
	              "'%s': %s", good_numbers[_i].text, err.msg);
	ck_assert_msg(fabs(v - good_numbers[_i].want) <= 1e-9 * fabs(good_numbers[_i].want), "'%s' -> %.17g",
	              good_numbers[_i].text, v);
}
END_TEST

START_TEST(units_parse_rejects_what_is_not_a_number)
{
	ns_error err;
	double v = 0.0;

	ns_error_clear(&err);
	ck_assert_msg(ns_units_parse(bad_numbers[_i].text, bad_numbers[_i].kind, "--bytes", &v, &err) ==
	                  NS_ERR_VALUE,
	              "'%s' accepted as %g", bad_numbers[_i].text, v);
	ck_assert_ptr_nonnull(strstr(err.msg, "--bytes"));
}
END_TEST

static const struct {
	const char *text;
	double seconds;
} good_times[] = {
    {"1.3ms", 1.3e-3}, {"850us", 850e-6}, {"850\xc2\xb5s", 850e-6}, {"2s", 2.0},
    {"10ns", 1e-8},    {"1.5sec", 1.5},   {"1e3us", 1e-3},
};

START_TEST(units_parse_time_converts_to_seconds)
{
	ns_error err;
	double s = 0.0;

	ns_error_clear(&err);
	ck_assert_msg(ns_units_parse_time(good_times[_i].text, "--time", &s, &err) == NS_OK, "%s", err.msg);
	ck_assert_msg(fabs(s - good_times[_i].seconds) <= 1e-12 * good_times[_i].seconds, "'%s' -> %g",
	              good_times[_i].text, s);
}
END_TEST

START_TEST(units_parse_time_requires_a_unit)
{
	ns_error err;
	double s = 0.0;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_units_parse_time("1.3", "--time", &s, &err), NS_ERR_VALUE);
	ck_assert_str_eq(err.msg, "--time: '1.3' needs a unit (s, ms, us or ns)");
}
END_TEST

START_TEST(units_parse_time_rejects_zero_negative_and_unknown_units)
{
	const char *bad[] = {"0ms", "-1ms", "1.3m", "1.3 ms", "ms", "1h", ""};
	ns_error err;
	double s = 0.0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ns_error_clear(&err);
		ck_assert_msg(ns_units_parse_time(bad[i], "--time", &s, &err) == NS_ERR_VALUE,
		              "'%s' accepted", bad[i]);
	}
}
END_TEST

START_TEST(units_parse_whole_wants_positive_integers)
{
	ns_error err;
	double v = 0.0;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_units_parse_whole("8k", NS_UNIT_COUNT, "--matmul", &v, &err), NS_OK);
	ck_assert_double_eq(v, 8000.0);
	ck_assert_int_eq(ns_units_parse_whole("8Ki", NS_UNIT_COUNT, "--matmul", &v, &err), NS_OK);
	ck_assert_double_eq(v, 8192.0);
	ck_assert_int_eq(ns_units_parse_whole("1.5", NS_UNIT_COUNT, "--matmul", &v, &err), NS_ERR_VALUE);
	ck_assert_int_eq(ns_units_parse_whole("0", NS_UNIT_COUNT, "--matmul", &v, &err), NS_ERR_VALUE);
	ck_assert_int_eq(ns_units_parse_whole("1e20", NS_UNIT_COUNT, "--matmul", &v, &err), NS_ERR_VALUE);
}
END_TEST

static const struct {
	double value;
	const char *unit;
	const char *want;
} si_rows[] = {
    {989.5e12, "FLOP/s", "990 TFLOP/s"}, /* 989.5 is exact in binary: printf rounds half to even */
    {494.5e12, "FLOP/s", "494 TFLOP/s"},
    {3.35e12, "B/s", "3.35 TB/s"},
    {402653184.0, "B", "403 MB"},
    {1099511627776.0, "FLOP", "1.10 TFLOP"},
    {999.6e9, "FLOP", "1.00 TFLOP"},
    {12.5e6, "B", "12.5 MB"},
    {42.0, "B", "42.0 B"},
    {0.5, "B", "0.5 B"},
    {2e21, "B", "2000 EB"},
};

START_TEST(units_format_si_keeps_three_significant_digits)
{
	char buf[64];

	ck_assert_str_eq(ns_units_format_si(si_rows[_i].value, si_rows[_i].unit, buf, sizeof(buf)),
	                 si_rows[_i].want);
}
END_TEST

START_TEST(units_format_time_and_plain_pick_readable_forms)
{
	char buf[64];

	ck_assert_str_eq(ns_units_format_time(1.3e-3, buf, sizeof(buf)), "1.30 ms");
	ck_assert_str_eq(ns_units_format_time(850e-6, buf, sizeof(buf)), "850 us");
	ck_assert_str_eq(ns_units_format_time(2.0, buf, sizeof(buf)), "2.00 s");
	ck_assert_str_eq(ns_units_format_time(9.9996e-4, buf, sizeof(buf)), "1.00 ms");
	ck_assert_str_eq(ns_units_format_time(5e-9, buf, sizeof(buf)), "5.00 ns");
	ck_assert_str_eq(ns_units_format_plain(2730.6666, buf, sizeof(buf)), "2731");
	ck_assert_str_eq(ns_units_format_plain(295.37, buf, sizeof(buf)), "295");
	ck_assert_str_eq(ns_units_format_plain(12.345, buf, sizeof(buf)), "12.3");
	ck_assert_str_eq(ns_units_format_plain(1.0, buf, sizeof(buf)), "1.00");
	ck_assert_str_eq(ns_units_format_plain(1.0 / 12.0, buf, sizeof(buf)), "0.0833");
	ck_assert_str_eq(ns_units_format_plain(0.0, buf, sizeof(buf)), "0");
}
END_TEST

static Suite *units_suite(void)
{
	Suite *s = suite_create("units");
	TCase *parse = tcase_create("parse");
	TCase *format = tcase_create("format");

	tcase_add_loop_test(parse, units_parse_reads_prefixes_and_unit_words, 0,
	                    sizeof(good_numbers) / sizeof(good_numbers[0]));
	tcase_add_loop_test(parse, units_parse_rejects_what_is_not_a_number, 0,
	                    sizeof(bad_numbers) / sizeof(bad_numbers[0]));
	tcase_add_loop_test(parse, units_parse_time_converts_to_seconds, 0,
	                    sizeof(good_times) / sizeof(good_times[0]));
	tcase_add_test(parse, units_parse_time_requires_a_unit);
	tcase_add_test(parse, units_parse_time_rejects_zero_negative_and_unknown_units);
	tcase_add_test(parse, units_parse_whole_wants_positive_integers);
	tcase_add_loop_test(format, units_format_si_keeps_three_significant_digits, 0,
	                    sizeof(si_rows) / sizeof(si_rows[0]));
	tcase_add_test(format, units_format_time_and_plain_pick_readable_forms);
	suite_add_tcase(s, parse);
	suite_add_tcase(s, format);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(units_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
