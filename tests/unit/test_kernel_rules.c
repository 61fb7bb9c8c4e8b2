/* The kernel-rules engine: rules files parse into ordered rules, first match wins, and bad files are clear
 * errors. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/kernel_rules.h"

static ns_kernel_rules *parse_ok(const char *text)
{
	ns_kernel_rules *r = NULL;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_msg(ns_kernel_rules_parse(text, strlen(text), &r, &err) == NS_OK, "%s: %s", text, err.msg);
	return r;
}

START_TEST(rules_file_first_match_wins_and_default_is_memory)
{
	ns_kernel_rules *r =
	    parse_ok("{\"rules\": [{\"match\": \"foo_gemm\", \"class\": \"memory\"},"
	             " {\"match\": \"GEMM\", \"class\": \"compute\"},"
	             " {\"match\": \"^all(reduce|gather)\", \"regex\": true, \"class\": \"comm\"}]}");

	ck_assert_uint_eq(ns_kernel_rules_count(r), 3);
	ck_assert_int_eq(ns_kernel_rules_classify(r, "my_foo_gemm_kernel"), NS_KCLASS_MEMORY);
	ck_assert_int_eq(ns_kernel_rules_classify(r, "sgemm_128"), NS_KCLASS_COMPUTE);
	ck_assert_int_eq(ns_kernel_rules_classify(r, "AllGather_ring"), NS_KCLASS_COMM);
	ck_assert_int_eq(ns_kernel_rules_classify(r, "x_allgather"), NS_KCLASS_MEMORY);
	ck_assert_int_eq(ns_kernel_rules_classify(r, "ncclDevKernel_AllReduce"), NS_KCLASS_MEMORY);
	ns_kernel_rules_free(r);
}
END_TEST

START_TEST(rules_file_substring_is_not_a_regex)
{
	ns_kernel_rules *r =
	    parse_ok("{\"rules\": [{\"match\": \"a.b\", \"regex\": false, \"class\": \"compute\"}]}");

	ck_assert_int_eq(ns_kernel_rules_classify(r, "xa.by"), NS_KCLASS_COMPUTE);
	ck_assert_int_eq(ns_kernel_rules_classify(r, "xaxby"), NS_KCLASS_MEMORY);
	ns_kernel_rules_free(r);
}
END_TEST

START_TEST(empty_rules_file_makes_everything_memory)
{
	ns_kernel_rules *r = parse_ok("{\"rules\": []}");

	ck_assert_int_eq(ns_kernel_rules_classify(r, "ampere_sgemm_32x128_nt"), NS_KCLASS_MEMORY);
	ns_kernel_rules_free(r);
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
    /* not regular (backreferences, lookaround, recursion...), or too large once compiled: refused at load
     * time, with the byte offset in the pattern where the construct starts */
    {"{\"rules\": [{\"match\": \"cot++++\", \"regex\": true, \"class\": \"compute\"}]}", NS_ERR_VALUE,
     "bad regex \"cot++++\" at offset 5"},
    {"{\"rules\": [{\"match\": \"((a{0,100}){0,100}){0,100}\", \"regex\": true, \"class\": \"compute\"}]}",
     NS_ERR_VALUE, "too large"},
    {"{\"rules\": [{\"match\": \"(a*)\\\\1\", \"regex\": true, \"class\": \"compute\"}]}", NS_ERR_VALUE,
     "at offset 4: a backreference is not allowed"},
    {"{\"rules\": [{\"match\": \"(?<n>a)\\\\k<n>\", \"regex\": true, \"class\": \"compute\"}]}", NS_ERR_VALUE,
     "at offset 0: a named group"},
    {"{\"rules\": [{\"match\": \"x\\\\g{-1}\", \"regex\": true, \"class\": \"compute\"}]}", NS_ERR_VALUE,
     "a backreference"},
    {"{\"rules\": [{\"match\": \"gemm(?=_nt)\", \"regex\": true, \"class\": \"compute\"}]}", NS_ERR_VALUE,
     "at offset 4: a lookahead"},
    {"{\"rules\": [{\"match\": \"(?<!fb)gemm\", \"regex\": true, \"class\": \"compute\"}]}", NS_ERR_VALUE,
     "a lookbehind"},
    {"{\"rules\": [{\"match\": \"a(?R)?b\", \"regex\": true, \"class\": \"compute\"}]}", NS_ERR_VALUE,
     "(?...) construct"},
    {"{\"rules\": [{\"match\": \"(?(1)a|b)\", \"regex\": true, \"class\": \"compute\"}]}", NS_ERR_VALUE,
     "a conditional group"},
    {"{\"rules\": [{\"match\": \"(*LIMIT_MATCH=999999999)gemm\", \"regex\": true, \"class\": \"compute\"}]}",
     NS_ERR_VALUE, "a (*VERB)"},
    {"{\"rules\": [{\"match\": \"a(?C1)b\", \"regex\": true, \"class\": \"compute\"}]}", NS_ERR_VALUE,
     "a callout"},
    {"{\"rules\": [{\"match\": \"\\\\Q[\\\\E(?=x)]\", \"regex\": true, \"class\": \"compute\"}]}",
     NS_ERR_VALUE, "quoting"},
    {"{\"rules\": [{\"match\": \"[[:x](?=y):]\", \"regex\": true, \"class\": \"compute\"}]}", NS_ERR_VALUE,
     "at offset 5: a lookahead"},
    {"{\"rules\": [{\"match\": \"[\\\\]](?=y)\", \"regex\": true, \"class\": \"compute\"}]}", NS_ERR_VALUE,
     "at offset 4: a lookahead"},
};

START_TEST(bad_rules_file_is_a_clear_error)
{
	const bad_rules_case *c = &bad_rules[_i];
	ns_kernel_rules *r = NULL;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_rules_parse(c->text, strlen(c->text), &r, &err), c->want);
	ck_assert_ptr_null(r);
	ck_assert_msg(strstr(err.msg, c->msg_part) != NULL, "%s: message '%s' lacks '%s'", c->text, err.msg,
	              c->msg_part);
}
END_TEST

/* The regexes of issue 9 that made glibc run for seconds to minutes or take gigabytes. On a name that lacks
 * the literal they end in, PCRE2 answers without backtracking; on one that has it out of reach, they
 * backtrack until the match limit, give up, and count as not matching (even where a match lies further on):
 * the class falls to the next rule, here the default memory, and the rule is named. */
typedef struct {
	const char *pattern;
	char fill;            /* the name is this byte repeated */
	size_t len;           /* that many times */
	const char *tail;     /* then this */
	size_t gave_up;       /* 1 when rule 1 must give up, 0 when it must answer */
	ns_kernel_class want; /* with this class */
} costly_case;

static const costly_case costly[] = {
    {"([a-z]{0,100}){0,100}x", 'a', 31, "", 0, NS_KCLASS_MEMORY},
    {"([a-z]{0,100}){0,100}x", 'a', 31, "-x", 1, NS_KCLASS_MEMORY},
    {"([a-z]{0,100}){0,100}x", 'a', 1000, "-x", 1, NS_KCLASS_MEMORY},
    {"(a|aa)*c", 'a', 100000, "", 0, NS_KCLASS_MEMORY},
    {"(a|aa)*c", 'a', 1000, "bc", 1, NS_KCLASS_MEMORY},
    {"(x+x+)+y", 'x', 100000, "", 0, NS_KCLASS_MEMORY},
    {"(x+x+)+y", 'x', 1000, "-y", 1, NS_KCLASS_MEMORY},
    {"(a|aa)*c", 'a', 20, "c", 0, NS_KCLASS_COMPUTE},
    {"(x+x+)+y", 'x', 100000, "y", 0, NS_KCLASS_MEMORY}, /* the 'y' lies past the first 1024 bytes */
};

START_TEST(costly_regex_answers_or_gives_up_within_its_limits)
{
	const costly_case *c = &costly[_i];
	char text[256];
	char *name = malloc(c->len + strlen(c->tail) + 1);
	ns_kernel_rules *r;
	size_t gave_up = 99;

	ck_assert_ptr_nonnull(name);
	snprintf(text, sizeof(text),
	         "{\"rules\": [{\"match\": \"%s\", \"regex\": true, \"class\": \"compute\"}]}", c->pattern);
	r = parse_ok(text);
	memset(name, c->fill, c->len);
	strcpy(name + c->len, c->tail);
	ck_assert_int_eq(ns_kernel_rules_classify_ex(r, name, &gave_up), c->want);
	ck_assert_uint_eq(gave_up, c->gave_up);
	ns_kernel_rules_free(r);
	free(name);
}
END_TEST

/* Rules see the first NS_KERNEL_CLASSIFY_MAX bytes of a name, after its parameter list is cut. */
typedef struct {
	size_t at;   /* "gemm" written at this byte of a long name of 'x' */
	bool params; /* and the name ends in a parameter list holding "conv" */
	ns_kernel_class want;
} bound_case;

static const bound_case bounds[] = {
    {0, false, NS_KCLASS_COMPUTE},
    {NS_KERNEL_CLASSIFY_MAX - 4, false, NS_KCLASS_COMPUTE}, /* the last four bytes seen */
    {NS_KERNEL_CLASSIFY_MAX - 3, false, NS_KCLASS_MEMORY},  /* cut through */
    {5000, false, NS_KCLASS_MEMORY},
    {5000, true, NS_KCLASS_MEMORY}, /* parameters never count */
};

START_TEST(classification_sees_a_bounded_head_of_the_name)
{
	const bound_case *c = &bounds[_i];
	ns_kernel_rules *r = parse_ok("{\"rules\": [{\"match\": \"gemm\", \"class\": \"compute\"},"
	                              " {\"match\": \"conv\", \"class\": \"compute\"}]}");
	char name[8192];

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	memcpy(name + c->at, "GEMM", 4);
	if (c->params)
		memcpy(name + sizeof(name) - 7, "(conv)", 6);
	ck_assert_int_eq(ns_kernel_rules_classify(r, name), c->want);
	ns_kernel_rules_free(r);
}
END_TEST

START_TEST(regex_rules_keep_posix_meaning_of_dollar_and_case)
{
	ns_kernel_rules *r =
	    parse_ok("{\"rules\": [{\"match\": \"^CONV$\", \"regex\": true, \"class\": \"compute\"},"
	             " {\"match\": \"[^a-z]cijk_\", \"regex\": true, \"class\": \"compute\"}]}");

	ck_assert_int_eq(ns_kernel_rules_classify(r, "conv"), NS_KCLASS_COMPUTE);
	ck_assert_int_eq(ns_kernel_rules_classify(r, "Conv(int)"), NS_KCLASS_COMPUTE); /* parameters cut */
	ck_assert_int_eq(ns_kernel_rules_classify(r, "conv\n"), NS_KCLASS_MEMORY); /* '$' is the end only */
	ck_assert_int_eq(ns_kernel_rules_classify(r, "x_Cijk_Ailk"), NS_KCLASS_COMPUTE);
	ck_assert_int_eq(ns_kernel_rules_classify(r, "xCijk_Ailk"), NS_KCLASS_MEMORY);
	ns_kernel_rules_free(r);
}
END_TEST

START_TEST(rules_file_that_is_missing_is_an_io_error)
{
	ns_kernel_rules *r = NULL;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_rules_load("/nonexistent/rules.json", &r, &err), NS_ERR_IO);
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
	tcase_add_loop_test(tc, costly_regex_answers_or_gives_up_within_its_limits, 0,
	                    (int)(sizeof(costly) / sizeof(costly[0])));
	tcase_add_loop_test(tc, classification_sees_a_bounded_head_of_the_name, 0,
	                    (int)(sizeof(bounds) / sizeof(bounds[0])));
	tcase_add_test(tc, regex_rules_keep_posix_meaning_of_dollar_and_case);
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
