/* The JSON writer (src/util/json_out.c) against an independent implementation: every value and tree here is
 * also printed by the linked cJSON's cJSON_PrintUnformatted, and the bytes must be the same. A few rows also
 * state the expected text, worked out by hand from cJSON's rule (%1.15g when it reads back within
 * DBL_EPSILON, else %1.17g), so a change in the reference would show too. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_out.h"

/* The number loops compare hundreds of thousands of numbers with cJSON: arithmetic, which the plain build's
 * run checks in full. Under AddressSanitizer (4 times the CPU: 11 s there) they compare an eighth of them,
 * the same shapes, every path of the printer still taken thousands of times. */
#if defined(__SANITIZE_ADDRESS__)
#define NUMBER_ROUNDS_DIVISOR 8
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NUMBER_ROUNDS_DIVISOR 8
#endif
#endif
#ifndef NUMBER_ROUNDS_DIVISOR
#define NUMBER_ROUNDS_DIVISOR 1
#endif

/* What json_out writes for item, as a string (caller frees). */
static char *written(const cJSON *item, bool *ok)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	json_out w;

	ck_assert_ptr_nonnull(f);
	json_out_init(&w, f);
	*ok = json_out_item(&w, item);
	ck_assert(json_out_flush(&w));
	fclose(f);
	return text;
}

/* json_out's text for item equals cJSON_PrintUnformatted's. */
static void assert_same_as_cjson(const cJSON *item)
{
	char *want = cJSON_PrintUnformatted(item);
	bool ok;
	char *got = written(item, &ok);

	ck_assert_ptr_nonnull(want);
	ck_assert(ok);
	ck_assert_str_eq(got, want);
	free(got);
	cJSON_free(want);
}

static void assert_number_same_as_cjson(double d)
{
	cJSON *n = cJSON_CreateNumber(d);
	char *want = cJSON_PrintUnformatted(n);
	char buf[JSON_NUMBER_MAX];
	size_t len = json_format_number(d, n->valueint, buf);

	ck_assert_ptr_nonnull(want);
	if (strcmp(buf, want) != 0)
		ck_abort_msg("%.17g (bits %a): json_out wrote %s, cJSON %s", d, d, buf, want);
	ck_assert_uint_eq(len, strlen(want));
	cJSON_free(want);
	cJSON_Delete(n);
}

static const struct {
	double value;
	const char *text; /* by hand from the rule; NULL: only compared with cJSON */
} number_cases[] = {
    {0.0, "0"},
    {1.0, "1"},
    {-7.0, "-7"},
    {0.5, "0.5"},
    {0.1, "0.1"},       /* the double nearest 0.1 reads back from "0.1" */
    {0.1 + 0.2, "0.3"}, /* 0.30000000000000004: "0.3" reads back one ulp away, within tolerance */
    {1.0 / 3.0, "0.33333333333333331"}, /* 15 digits read back 3e-16 away: 17 digits */
    {2.0 / 3.0, "0.66666666666666663"},
    {1e21, "1e+21"},
    {1e15, "1e+15"}, /* 16 digits: %g's exponent form from 10^15 on */
    {999999999999999.0, "999999999999999"},
    {2147483648.0, "2147483648"}, /* 2^31: above valueint's range */
    {-2147483649.0, "-2147483649"},
    {9007199254740992.0, "9.00719925474099e+15"}, /* 2^53: 15 digits are within its tolerance */
    {9007199254740993.0, NULL},                   /* 2^53 + 1 is 2^53 as a double */
    {123456789012345678.0, "1.2345678901234568e+17"},
    {1e-7, "1e-07"}, /* exponent form below 10^-4, two exponent digits */
    {0.0001, "0.0001"},
    {0.00012345, "0.00012345"},
    {60.5, "60.5"},
    {-0.25, "-0.25"},
    {1.5e300, "1.5e+300"},
    {DBL_MAX, "1.79769313486232e+308"}, /* reads back as inf, and inf - DBL_MAX <= inf * DBL_EPSILON */
    {DBL_MIN, NULL},
    {4.9406564584124654e-324, "4.94065645841247e-324"}, /* the smallest denormal */
    {2.2250738585072009e-308, NULL},                    /* the largest denormal */
    {1e-300 / 3.0, NULL},
    {12345.678901234567, NULL},
    {0.1 * 3.0, NULL},
    {1.0 - 1e-16, NULL},
    {1.0 + DBL_EPSILON, NULL},
    {4503599627370495.5, NULL}, /* 2^52 - 0.5: the last non-integer step */
    {1e16 / 3.0, NULL},
    {NAN, "null"},
    {INFINITY, "null"},
    {-INFINITY, "null"},
};

START_TEST(numbers_print_as_cjson_prints_them)
{
	double d = number_cases[_i].value;
	char buf[JSON_NUMBER_MAX];
	cJSON *n = cJSON_CreateNumber(d);

	assert_number_same_as_cjson(d);
	assert_number_same_as_cjson(-d);
	json_format_number(d, n->valueint, buf);
	if (number_cases[_i].text != NULL)
		ck_assert_str_eq(buf, number_cases[_i].text);
	cJSON_Delete(n);
}
END_TEST

START_TEST(negative_zero_prints_as_cjson_prints_it)
{
	assert_number_same_as_cjson(-0.0);
}
END_TEST

/* A fixed pseudo-random sequence (xorshift64*), so a failure repeats. */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static double from_bits(uint64_t bits)
{
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

/* The shapes a report's numbers take (shares, microseconds, ratios) and arbitrary doubles: every one
 * printed by both. */
START_TEST(many_numbers_of_every_shape_print_as_cjson_prints_them)
{
	uint64_t s = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < 40000 / NUMBER_ROUNDS_DIVISOR; i++) {
		uint64_t a = next_random(&s), b = next_random(&s);
		assert_number_same_as_cjson((double)(a % 1000000) / (double)(b % 1000000 + 1)); /* ratios */
		assert_number_same_as_cjson((double)(a % 100000000000ULL) / 1e3);               /* ns as us */
		assert_number_same_as_cjson((double)(a % 1000) / 1000.0); /* short decimals */
		assert_number_same_as_cjson(from_bits(b));                /* any double */
		assert_number_same_as_cjson(
		    from_bits((b & 0x800fffffffffffffULL) | ((uint64_t)(1023 - 40 + (int)(a % 100)) << 52)));
		assert_number_same_as_cjson(ldexp(1.0, (int)(a % 200) - 100) *
		                            (1.0 + (double)(b % 128) * DBL_EPSILON));
	}
}
END_TEST

/* The short-decimal path (m / 10^k, k <= 6, magnitudes 10^-4 to 10^9): every place count, the ends of the
 * range and the doubles next to each decimal (which are no short decimal and take the exact path). */
START_TEST(short_decimals_and_their_neighbours_print_as_cjson_prints_them)
{
	static const double scale[] = {1e1, 1e2, 1e3, 1e4, 1e5, 1e6};
	uint64_t s = 0x2545f4914f6cdd1dULL;

	for (int k = 0; k < 6; k++) {
		for (int i = 0; i < 20000 / NUMBER_ROUNDS_DIVISOR; i++) {
			uint64_t m = next_random(&s) % (i % 2 ? 1000000000000000ULL : 100000ULL);
			double d = (double)m / scale[k];
			assert_number_same_as_cjson(d);
			assert_number_same_as_cjson(-d);
			assert_number_same_as_cjson(nextafter(d, 0));
			assert_number_same_as_cjson(nextafter(d, 2e9));
		}
	}
	static const double ends[] = {
	    1e-4, 0.00011, 0.000099, 999999999.5, 999999999.999999, 1e9 + 0.5, 123456789.123456, 0.1,
	    0.3,  0.7,     2.675,    1.005,       0.000123};
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		assert_number_same_as_cjson(ends[i]);
		assert_number_same_as_cjson(nextafter(ends[i], 0));
	}
}
END_TEST

/* cJSON's rule worked here with the C library alone (not through cJSON, not through json_out): "%1.15g" when
 * strtod reads it back within DBL_EPSILON (relative) of d, else "%1.17g". */
static void rule_text(double d, char *buf, size_t cap)
{
	double back, larger;

	snprintf(buf, cap, "%1.15g", d);
	back = strtod(buf, NULL);
	larger = fabs(back) > fabs(d) ? fabs(back) : fabs(d);
	if (!(fabs(back - d) <= larger * DBL_EPSILON))
		snprintf(buf, cap, "%1.17g", d);
}

static void assert_number_follows_the_rule(double d)
{
	char want[64], got[JSON_NUMBER_MAX];
	size_t len = json_format_double(d, got);

	rule_text(d, want, sizeof(want));
	if (strcmp(got, want) != 0)
		ck_abort_msg("%.17g (bits %a): json_out wrote %s, the rule %s", d, d, got, want);
	ck_assert_uint_eq(len, strlen(want));
}

/* The short-decimal path writes a share's places two at a time and drops the trailing zeros: every share of
 * one to four places (0.0001 to 0.9999), every six-place share of a stretch with zeros at each place, a
 * random sample of six places with integer parts up to 10^9, and the doubles next to each, against the rule
 * worked out with snprintf and strtod. */
START_TEST(short_decimals_follow_the_rule)
{
	uint64_t s = 0x6a09e667f3bcc909ULL;

	for (int m = 0; m < 10000; m++) {
		double d = m / 1e4;
		assert_number_follows_the_rule(d);
		if (m > 0) /* -0 is "-0" by the rule, and 0 from cJSON 1.7.16 on (test above) */
			assert_number_follows_the_rule(-d);
		assert_number_follows_the_rule(nextafter(d, 1.0));
		assert_number_follows_the_rule(nextafter(d, 0.0));
	}
	for (int m = 0; m < 20000; m += 1 + m % 7)
		assert_number_follows_the_rule((double)(m * 50) / 1e6);
	for (int i = 0; i < 50000 / NUMBER_ROUNDS_DIVISOR; i++) {
		uint64_t r = next_random(&s);
		double d = (double)(r % 1000000000000000ULL) / 1e6;
		assert_number_follows_the_rule(d);
		assert_number_follows_the_rule((double)(r % 1000000ULL) / 1e6);
		assert_number_follows_the_rule(nextafter(d, 0.0));
	}
}
END_TEST

static const struct {
	const char *text;
	const char *escaped; /* by hand from the rule */
} string_cases[] = {
    {"", "\"\""},
    {"plain", "\"plain\""},
    {"quote \" and backslash \\", "\"quote \\\" and backslash \\\\\""},
    {"slash / stays", "\"slash / stays\""},
    {"\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\""},
    {"\x01\x1f\x1b[0m", "\"\\u0001\\u001f\\u001b[0m\""},
    {"del \x7f stays", "\"del \x7f stays\""},
    {"caf\xc3\xa9 \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xf0\x9f\x98\x80\""}, /* UTF-8 as it is */
    {"bad \xff\xfe bytes", "\"bad \xff\xfe bytes\""},                     /* and any other byte */
};

START_TEST(strings_are_escaped_as_cjson_escapes_them)
{
	cJSON *str = cJSON_CreateString(string_cases[_i].text);
	bool ok;
	char *got = written(str, &ok);

	ck_assert(ok);
	ck_assert_str_eq(got, string_cases[_i].escaped);
	assert_same_as_cjson(str);
	free(got);
	cJSON_Delete(str);
}
END_TEST

START_TEST(trees_print_as_cjson_prints_them)
{
	cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "list");
	char big[40000];

	memset(big, 'x', sizeof(big) - 1); /* longer than the writer's buffer */
	big[sizeof(big) - 1] = '\0';
	cJSON_AddNumberToObject(root, "share", 0.6);
	cJSON_AddNullToObject(root, "none");
	cJSON_AddBoolToObject(root, "yes", 1);
	cJSON_AddBoolToObject(root, "no", 0);
	cJSON_AddStringToObject(root, "key \"with\" \n escapes", "v\t");
	cJSON_AddItemToObject(root, "empty object", cJSON_CreateObject());
	cJSON_AddItemToObject(root, "empty array", cJSON_CreateArray());
	cJSON_AddRawToObject(root, "raw", "[1,2]");
	cJSON_AddStringToObject(root, "big", big);
	for (int i = 0; i < 3000; i++) { /* over the writer's buffer many times, escapes at every boundary */
		char name[64];
		snprintf(name, sizeof(name), "k%*s\x01\"%d\n", i % 40, "", i);
		cJSON_AddItemToArray(arr, cJSON_CreateNumber(i / 7.0));
		cJSON_AddItemToArray(arr, cJSON_CreateString(name));
	}
	cJSON_AddItemToArray(arr, cJSON_CreateObject());
	assert_same_as_cjson(root);
	cJSON_Delete(root);
}
END_TEST

START_TEST(an_item_cjson_cannot_print_is_refused)
{
	cJSON raw = {.type = cJSON_Raw}, odd = {.type = 1 << 7};
	bool ok;
	char *got;

	ck_assert_ptr_null(cJSON_PrintUnformatted(&raw));
	got = written(&raw, &ok);
	ck_assert(!ok);
	free(got);
	got = written(&odd, &ok);
	ck_assert(!ok);
	free(got);
}
END_TEST

START_TEST(a_failed_write_is_reported_and_stops_the_output)
{
	FILE *full = fopen("/dev/full", "w");
	json_out w;

	if (full == NULL)
		return; /* no /dev/full here */
	json_out_init(&w, full);
	for (int i = 0; i < 5000 && !w.failed; i++)
		json_out_raw(&w, "0123456789");
	ck_assert(w.failed);
	ck_assert(!json_out_flush(&w));
	fclose(full);
}
END_TEST

#define NROWS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *json_out_suite(void)
{
	Suite *s = suite_create("json_out");
	TCase *numbers = tcase_create("numbers");
	TCase *text = tcase_create("text");

	tcase_set_timeout(numbers, 60);
	tcase_add_loop_test(numbers, numbers_print_as_cjson_prints_them, 0, NROWS(number_cases));
	tcase_add_test(numbers, negative_zero_prints_as_cjson_prints_it);
	tcase_add_test(numbers, many_numbers_of_every_shape_print_as_cjson_prints_them);
	tcase_add_test(numbers, short_decimals_and_their_neighbours_print_as_cjson_prints_them);
	tcase_add_test(numbers, short_decimals_follow_the_rule);
	tcase_add_loop_test(text, strings_are_escaped_as_cjson_escapes_them, 0, NROWS(string_cases));
	tcase_add_test(text, trees_print_as_cjson_prints_them);
	tcase_add_test(text, an_item_cjson_cannot_print_is_refused);
	tcase_add_test(text, a_failed_write_is_reported_and_stops_the_output);
	suite_add_tcase(s, numbers);
	suite_add_tcase(s, text);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(json_out_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
