/* Period detection (step_period.h) on hand-made kernel sequences, one letter per kernel name. The expected
 * anchors, periods and counts are worked out by hand from the documented rule: candidates seen at least three
 * times, fewest occurrences first, then by first appearance; the first whose stretches between occurrences
 * are at least 3 in 4 one sequence of two or more events, covering half of the sequence, anchors the steps.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/step_period.h"

typedef struct {
	const char *name;
	const char *seq; /* 'A' is id 0, 'B' id 1, ... */
	bool found;
	char anchor;
	size_t period, first, iterations, matching;
} period_case;

static const period_case cases[] = {
    /* A, B, C, D four times each: A is first among the ties; three equal stretches ABCD */
    {"an_exact_period_is_found_with_every_iteration", "ABCDABCDABCDABCD", true, 'A', 4, 0, 4, 3},
    /* X and Y once (start-up), A and B four times, C three: C is tried first and its two stretches CAB agree;
     * the steps start at C (the anchor may sit anywhere in the loop body) */
    {"start_up_before_the_loop_is_left_out_and_the_rarest_repeating_kernel_anchors", "XYABCABCABCAB", true,
     'C', 3, 4, 3, 2},
    /* one iteration holds an extra kernel X: three of the four stretches are ABCD, enough (3 in 4) */
    {"one_noisy_iteration_still_gives_the_period", "ABCDABCDABXCDABCDABCD", true, 'A', 4, 0, 5, 3},
    /* every kernel once: nothing repeats */
    {"a_sequence_that_never_repeats_has_no_period", "ABCDEFGHIJ", false, 0, 0, 0, 0, 0},
    /* A's stretches ABB, ACCC, ABBBB all differ; B's and C's agreeing stretches are single events */
    {"repeated_kernels_in_no_common_order_give_no_period", "ABBACCCABBBBA", false, 0, 0, 0, 0, 0},
    /* ABABAB repeats, but covers 6 of 26 events: a local repetition is not the trace's loop */
    {"a_short_repetition_in_a_long_sequence_is_not_a_period", "ABABABCDEFGHIJKLMNOPQRSTUV", false, 0, 0, 0, 0,
     0},
};

START_TEST(periods_of_hand_made_sequences)
{
	const period_case *c = &cases[_i];
	size_t n = strlen(c->seq);
	uint32_t *seq = malloc(n * sizeof(*seq));
	ns_step_period p;
	bool nomem = true, found;

	ck_assert_ptr_nonnull(seq);
	for (size_t i = 0; i < n; i++)
		seq[i] = (uint32_t)(c->seq[i] - 'A');
	memset(&p, 0, sizeof(p));
	found = ns_step_period_find(seq, n, 26, &p, &nomem);
	free(seq);
	ck_assert_msg(!nomem, "%s: out of memory", c->name);
	ck_assert_msg(found == c->found, "%s: found %d", c->name, found);
	if (!c->found)
		return;
	ck_assert_msg(p.anchor == (uint32_t)(c->anchor - 'A'), "%s: anchor %c", c->name, 'A' + (int)p.anchor);
	ck_assert_msg(p.period == c->period, "%s: period %zu", c->name, p.period);
	ck_assert_msg(p.first == c->first, "%s: first %zu", c->name, p.first);
	ck_assert_msg(p.iterations == c->iterations, "%s: iterations %zu", c->name, p.iterations);
	ck_assert_msg(p.matching == c->matching, "%s: matching %zu", c->name, p.matching);
}
END_TEST

START_TEST(too_short_a_sequence_has_no_period)
{
	static const uint32_t seq[] = {0, 1, 0, 1, 0};
	ns_step_period p;
	bool nomem;

	ck_assert(!ns_step_period_find(seq, 5, 2, &p, &nomem));
	ck_assert(!nomem);
}
END_TEST

START_TEST(ids_outside_the_table_are_ignored)
{
	/* id 7 with nids 2: counted nowhere, never a candidate; A B repeat around it */
	static const uint32_t seq[] = {0, 1, 7, 0, 1, 7, 0, 1, 7, 0, 1, 7};
	ns_step_period p;
	bool nomem;

	ck_assert(ns_step_period_find(seq, 12, 2, &p, &nomem));
	ck_assert_uint_eq(p.anchor, 0);
	ck_assert_uint_eq(p.period, 3);
	ck_assert_uint_eq(p.iterations, 4);
}
END_TEST

static Suite *period_suite(void)
{
	Suite *s = suite_create("step_period");
	TCase *tc = tcase_create("period");

	tcase_add_loop_test(tc, periods_of_hand_made_sequences, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, too_short_a_sequence_has_no_period);
	tcase_add_test(tc, ids_outside_the_table_are_ignored);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(period_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
