/* The split's compact records: a launch call is kept in 16 bytes relative to the first launch (time in 48
 * bits, correlation id in 28 bits above the first id's high word); one that does not fit is kept whole in a
 * second table. Every launch must read back exactly, and be found by its id, from either table. */
#include <check.h>
#include <stdlib.h>

#include "trace/split/split_private.h"

static ns_kernel_rules *rules;

static void free_rules(void)
{
	ns_kernel_rules_free(rules);
	rules = NULL;
}

static ns_trace_split *new_split(void)
{
	ns_error err = {0};
	ns_trace_split *s;

	if (rules == NULL)
		ck_assert_int_eq(ns_kernel_rules_default(&rules, &err), NS_OK);
	s = ns_trace_split_new(rules);
	ck_assert_ptr_nonnull(s);
	return s;
}

/* A cudaLaunchKernel call of 5 ns on thread (1, tid). */
static void feed_launch(ns_trace_split *s, int64_t tid, int64_t ts, int64_t corr, int64_t ext)
{
	ns_trace_event ev = {.cat = NS_TCAT_RUNTIME,
	                     .ph = 'X',
	                     .name = {"cudaLaunchKernel", 16},
	                     .pid = 1,
	                     .tid = tid,
	                     .has_ts = true,
	                     .has_dur = true,
	                     .ts_ns = ts,
	                     .dur_ns = 5,
	                     .device = -1,
	                     .stream = -1,
	                     .correlation = corr,
	                     .external_id = ext};
	ns_error err = {0};

	ck_assert_int_eq(ns_trace_split_event(&ev, s, &err), NS_OK);
}

/* The launch of id corr reads back with time ts, External id ext and the thread of tid. */
static void check_launch(ns_trace_split *s, int64_t corr, int64_t ts, int64_t ext, int64_t tid)
{
	launch_call l;

	ck_assert_msg(split_launch_of(s, corr, &l), "no launch of id %lld", (long long)corr);
	ck_assert_int_eq(l.corr, corr);
	ck_assert_int_eq(l.ts, ts);
	ck_assert_int_eq(split_launch_ext(s, &l), ext);
	ck_assert_int_eq(s->thread[l.thread].tid, tid);
	ck_assert_uint_eq(l.kind, LK_KERNEL);
	ck_assert(!l.ex);
}

START_TEST(a_launch_record_is_16_bytes)
{
	ck_assert_uint_eq(sizeof(launch_rec), 16);
}
END_TEST

/* First launch: id 5, time 1000, so the bases are id 0 (5 with its low 32 bits cleared) and time 1000. The
 * farthest a packed launch may lie: id 2^28 - 1, time 1000 + 2^47 - 1 and 1000 - 2^47. */
START_TEST(launches_within_the_bounds_are_packed)
{
	ns_trace_split *s = new_split();
	const int64_t half = (int64_t)1 << 47;

	feed_launch(s, 3, 1000, 5, 70);
	feed_launch(s, 4, 1000 + half - 1, ((int64_t)1 << 28) - 1, -1);
	feed_launch(s, 3, 1000 - half, 0, 0);
	ck_assert_uint_eq(s->nlaunch, 3);
	ck_assert_uint_eq(s->nwide_launch, 0);
	split_launches_sort(s);
	check_launch(s, 5, 1000, 70, 3);
	check_launch(s, ((int64_t)1 << 28) - 1, 1000 + half - 1, -1, 4);
	check_launch(s, 0, 1000 - half, 0, 3);
	ns_trace_split_free(s);
}
END_TEST

/* Each one past a bound, or with an id below the base, is kept whole and found all the same. */
START_TEST(launches_past_the_bounds_are_kept_whole)
{
	ns_trace_split *s = new_split();
	const int64_t half = (int64_t)1 << 47;
	launch_call l;

	feed_launch(s, 3, 1000, 5, 70);
	feed_launch(s, 3, 1000 + half, 6, 71);                    /* time 2^47 past the first */
	feed_launch(s, 3, 1000 - half - 1, 7, 72);                /* 2^47 + 1 before it */
	feed_launch(s, 4, 2000, (int64_t)1 << 28, 73);            /* id 2^28 past the base */
	feed_launch(s, 4, 2100, ((int64_t)9 << 32) + 8, 74);      /* another high word */
	feed_launch(s, 4, INT64_MAX, 10, ((int64_t)1 << 40) + 3); /* time and External id both wide */
	ck_assert_uint_eq(s->nlaunch, 1);
	ck_assert_uint_eq(s->nwide_launch, 5);
	ck_assert_uint_eq(split_launch_count(s), 6);
	split_launches_sort(s);
	check_launch(s, 5, 1000, 70, 3);
	check_launch(s, 6, 1000 + half, 71, 3);
	check_launch(s, 7, 1000 - half - 1, 72, 3);
	check_launch(s, (int64_t)1 << 28, 2000, 73, 4);
	check_launch(s, ((int64_t)9 << 32) + 8, 2100, 74, 4);
	check_launch(s, 10, INT64_MAX, ((int64_t)1 << 40) + 3, 4);
	ck_assert(!split_launch_of(s, 11, &l));
	ck_assert(!split_launch_of(s, ((int64_t)1 << 28) - 1, &l));
	ns_trace_split_free(s);
}
END_TEST

/* An Nsight Systems export puts the process id above bit 32 of every correlation id: the base is the first
 * launch's high word, so the process's launches pack; another process's are kept whole. */
START_TEST(an_exports_process_word_is_the_base)
{
	ns_trace_split *s = new_split();
	const int64_t p = (int64_t)12345 << 32;

	feed_launch(s, 3, 500, p | 7, -1);
	feed_launch(s, 3, 600, p | 9, -1);
	feed_launch(s, 3, 700, ((int64_t)12346 << 32) | 1, -1);
	feed_launch(s, 3, 800, 7, -1); /* below the base */
	ck_assert_uint_eq(s->nlaunch, 2);
	ck_assert_uint_eq(s->nwide_launch, 2);
	ck_assert_int_eq(s->launch_corr0, p);
	split_launches_sort(s);
	check_launch(s, p | 7, 500, -1, 3);
	check_launch(s, p | 9, 600, -1, 3);
	check_launch(s, ((int64_t)12346 << 32) | 1, 700, -1, 3);
	check_launch(s, 7, 800, -1, 3);
	ns_trace_split_free(s);
}
END_TEST

/* A launch marked seen reads back seen, in either table, and no other launch changes. */
START_TEST(seen_is_kept_in_either_table)
{
	ns_trace_split *s = new_split();
	size_t packed, wide, other;

	feed_launch(s, 3, 1000, 5, -1);
	feed_launch(s, 3, 1100, 6, -1);
	feed_launch(s, 3, 1300, (int64_t)1 << 30, -1);
	split_launches_sort(s);
	ck_assert(split_launch_find(s, 5, &packed));
	ck_assert(split_launch_find(s, (int64_t)1 << 30, &wide));
	ck_assert(split_launch_find(s, 6, &other));
	ck_assert_uint_lt(packed, s->nlaunch);
	ck_assert_uint_ge(wide, s->nlaunch);
	split_launch_set_seen(s, packed);
	split_launch_set_seen(s, wide);
	ck_assert(split_launch_get(s, packed).seen);
	ck_assert(split_launch_get(s, wide).seen);
	ck_assert(!split_launch_get(s, other).seen);
	ck_assert_int_eq(split_launch_get(s, packed).ts, 1000);
	ck_assert_int_eq(split_launch_get(s, wide).ts, 1300);
	ns_trace_split_free(s);
}
END_TEST

static Suite *records_suite(void)
{
	Suite *s = suite_create("split_records");
	TCase *tc = tcase_create("launches");

	tcase_add_checked_fixture(tc, NULL, free_rules);
	tcase_add_test(tc, a_launch_record_is_16_bytes);
	tcase_add_test(tc, launches_within_the_bounds_are_packed);
	tcase_add_test(tc, launches_past_the_bounds_are_kept_whole);
	tcase_add_test(tc, an_exports_process_word_is_the_base);
	tcase_add_test(tc, seen_is_kept_in_either_table);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(records_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
