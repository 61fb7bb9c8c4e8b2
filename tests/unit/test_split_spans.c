/* A thread's host span list (split_span_add): spans that come out of order are merged when the list is full,
 * so a list holds the thread's busy time, not one span per event, and no span's time is lost. */
#include <check.h>
#include <stdlib.h>

#include "trace/split/split_private.h"

static void add(span_list *l, int64_t a, int64_t b)
{
	ns_error err = {0};

	ck_assert_int_eq(split_span_add(l, a, b, &err), NS_OK);
}

/* 100 op ranges of 900 ns, 1 us apart, then 100 runtime calls of 5 ns inside each (the order an Nsight
 * Systems export is read in: NVTX ranges, then the runtime calls). */
START_TEST(calls_inside_ranges_that_came_first_merge_into_them)
{
	span_list l = {NULL, 0, 0};

	for (int64_t k = 0; k < 100; k++)
		add(&l, k * 1000, k * 1000 + 900);
	for (int64_t k = 0; k < 100; k++)
		for (int64_t i = 0; i < 100; i++)
			add(&l, k * 1000 + i * 8, k * 1000 + i * 8 + 5);
	/* 10,100 spans unmerged would need a list of 16,384; merged at the first full list of 1,024 and after
	 */
	ck_assert_uint_le(l.cap, 1024);
	ck_assert_int_eq(split_spans_union(&l), 100 * 900);
	ck_assert_uint_eq(l.n, 100);
	free(l.v);
}
END_TEST

/* 5,000 disjoint calls of 5 ns, newest first: merging frees nothing, so the list grows and keeps them all. */
START_TEST(disjoint_spans_out_of_order_are_all_kept)
{
	span_list l = {NULL, 0, 0};

	for (int64_t k = 4999; k >= 0; k--)
		add(&l, k * 10, k * 10 + 5);
	ck_assert_uint_eq(l.n, 5000);
	ck_assert_int_eq(split_spans_union(&l), 5000 * 5);
	ck_assert_int_eq(l.v[0].start, 0);
	ck_assert_int_eq(l.v[4999].end, 49995);
	free(l.v);
}
END_TEST

/* 3,000 calls newest first, then a second call overlapping each, newest first: the merge at the full list of
 * 4,096 takes 1,096 of them away but frees less than half, so the list grows (to 8,192) instead of being
 * merged again every few adds; at the end each pair is one span of 20 ns. */
START_TEST(a_list_that_merges_little_still_grows)
{
	span_list l = {NULL, 0, 0};

	for (int64_t k = 2999; k >= 0; k--)
		add(&l, k * 100, k * 100 + 10);
	for (int64_t k = 2999; k >= 0; k--)
		add(&l, k * 100 + 5, k * 100 + 20);
	ck_assert_uint_eq(l.cap, 8192);
	ck_assert_uint_eq(l.n, 3000 + 3000 - 1096);
	ck_assert_int_eq(split_spans_union(&l), 3000 * 20);
	ck_assert_uint_eq(l.n, 3000);
	free(l.v);
}
END_TEST

static Suite *spans_suite(void)
{
	Suite *s = suite_create("split_spans");
	TCase *tc = tcase_create("spans");

	tcase_add_test(tc, calls_inside_ranges_that_came_first_merge_into_them);
	tcase_add_test(tc, disjoint_spans_out_of_order_are_all_kept);
	tcase_add_test(tc, a_list_that_merges_little_still_grows);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(spans_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
