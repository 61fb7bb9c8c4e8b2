/* The kernel-rules engine: rules files parse into ordered rules, first match wins, and bad files are clear
 * errors. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/kernel_rules.h"

static kernel_rules *parse_ok(const char *text)
{
	kernel_rules *r = NULL;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_msg(kernel_rules_parse(text, strlen(text), &r, &err) == NS_OK, "%s: %s", text, err.msg);
	return r;
}

START_TEST(rules_file_first_match_wins_and_default_is_memory)
{
	kernel_rules *r =
	    parse_ok("{\"rules\": [{\"match\": \"foo_gemm\", \"class\": \"memory\"},"
	             " {\"match\": \"GEMM\", \"class\": \"compute\"},"
	             " {\"match\": \"^all(reduce|gather)\", \"regex\": true, \"class\": \"comm\"}]}");

	ck_assert_uint_eq(kernel_rules_count(r), 3);
	ck_assert_int_eq(kernel_rules_classify(r, "my_foo_gemm_kernel"), KCLASS_MEMORY);
	ck_assert_int_eq(kernel_rules_classify(r, "sgemm_128"), KCLASS_COMPUTE);
	ck_assert_int_eq(kernel_rules_classify(r, "AllGather_ring"), KCLASS_COMM);
	ck_assert_int_eq(kernel_rules_classify(r, "x_allgather"), KCLASS_MEMORY);
	ck_assert_int_eq(kernel_rules_classify(r, "ncclDevKernel_AllReduce"), KCLASS_MEMORY);
	kernel_rules_free(r);
}
END_TEST

START_TEST(rules_file_substring_is_not_a_regex)
{
	kernel_rules *r =
	    parse_ok("{\"rules\": [{\"match\": \"a.b\", \"regex\": false, \"class\": \"compute\"}]}");

	ck_assert_int_eq(kernel_rules_classify(r, "xa.by"), KCLASS_COMPUTE);
	ck_assert_int_eq(kernel_rules_classify(r, "xaxby"), KCLASS_MEMORY);
	kernel_rules_free(r);
}
END_TEST

START_TEST(empty_rules_file_makes_everything_memory)
{
	kernel_rules *r = parse_ok("{\"rules\": []}");

	ck_assert_int_eq(kernel_rules_classify(r, "ampere_sgemm_32x128_nt"), KCLASS_MEMORY);
	kernel_rules_free(r);
}
END_TEST

typedef struct {
	const char *text;
	ns_status want;
	const char *msg_part;
} bad_rules_case;

static const bad_rules_case bad_rules[] = {
    {"{\"rules\": [{\"match\": \"(\", \"regex\": true, \"class\": \"compute\"}]}", NS_ERR_VALUE, "bad regex"},
    {"{\"rules\": [{\"match\": \"gemm\", \"class\": \"fast\"}]}", NS_ERR_VALUE, "\"class\""},
    {"{\"rules\": [{\"match\": \"\", \"class\": \"compute\"}]}", NS_ERR_VALUE, "non-empty"},
    {"{\"rules\": [{\"match\": 3, \"class\": \"compute\"}]}", NS_ERR_VALUE, "\"match\""},
    {"{\"rules\": [{\"match\": \"x\", \"regex\": \"yes\", \"class\": \"comm\"}]}", NS_ERR_VALUE, "\"regex\""},
    {"{\"rules\": [{\"match\": \"x\", \"class\": \"comm\", \"colour\": 1}]}", NS_ERR_KEY, "colour"},
    {"{\"rules\": [\"gemm\"]}", NS_ERR_VALUE, "not an object"},
    {"{\"rules\": {}}", NS_ERR_VALUE, "must be an array"},
    {"{\"patterns\": []}", NS_ERR_KEY, "patterns"},
    {"[1, 2]", NS_ERR_VALUE, "expected an object"},
    {"{\"rules\": [", NS_ERR_SYNTAX, "malformed"},
    /* regexes that glibc would compile into huge automata */
    {"{\"rules\": [{\"match\": \"cot++++\", \"regex\": true, \"class\": \"compute\"}]}", NS_ERR_LIMIT,
     "adjacent repetition"},
    {"{\"rules\": [{\"match\": \"(a{1,255}){2}\", \"regex\": true, \"class\": \"compute\"}]}", NS_ERR_LIMIT,
     "interval bound above 100"},
    {"{\"rules\": [{\"match\": \"a*b*c*d*e*f*g*h*i*j*k*l*m*n*o*p*q*r*s*t*u*v*w*x*y*z*a*b*c*d*e*f*g*\", "
     "\"regex\": true, "
     "\"class\": \"compute\"}]}",
     NS_ERR_LIMIT, "too many repetition"},
};

START_TEST(bad_rules_file_is_a_clear_error)
{
	const bad_rules_case *c = &bad_rules[_i];
	kernel_rules *r = NULL;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(kernel_rules_parse(c->text, strlen(c->text), &r, &err), c->want);
	ck_assert_ptr_null(r);
	ck_assert_msg(strstr(err.msg, c->msg_part) != NULL, "%s: message '%s' lacks '%s'", c->text, err.msg,
	              c->msg_part);
}
END_TEST

START_TEST(rules_file_that_is_missing_is_an_io_error)
{
	kernel_rules *r = NULL;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(kernel_rules_load("/nonexistent/rules.json", &r, &err), NS_ERR_IO);
	ck_assert_ptr_null(r);
}
END_TEST

static Suite *rules_suite(void)
{
	Suite *s = suite_create("kernel_rules");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, rules_file_first_match_wins_and_default_is_memory);
	tcase_add_test(tc, rules_file_substring_is_not_a_regex);
	tcase_add_test(tc, empty_rules_file_makes_everything_memory);
	tcase_add_loop_test(tc, bad_rules_file_is_a_clear_error, 0,
	                    (int)(sizeof(bad_rules) / sizeof(bad_rules[0])));
	tcase_add_test(tc, rules_file_that_is_missing_is_an_io_error);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(rules_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
