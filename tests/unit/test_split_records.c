/* The split's compact records: a launch call is kept in 16 bytes relative to the first launch (time in 48
 * bits, correlation id in 28 bits above the first id's high word); one that does not fit is kept whole in a
 * second table. Every launch must read back exactly, and be found by its id, from either table. A GPU
 * record keeps its start in 48 bits relative to the first record's, its duration in 32 bits and its id in
 * 32 bits above the first record's high word; one that does not fit keeps them whole in a side table, and
 * must read back exactly and sort in its place too. */
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

/* A kernel on device dev, stream 7. */
static void feed_kernel_on(ns_trace_split *s, int64_t dev, int64_t ts, int64_t dur, int64_t corr, int64_t ext)
{
	ns_trace_event ev = {.cat = NS_TCAT_KERNEL,
	                     .ph = 'X',
	                     .name = {"k", 1},
	                     .pid = 0,
	                     .tid = 7,
	                     .has_ts = true,
	                     .has_dur = true,
	                     .ts_ns = ts,
	                     .dur_ns = dur,
	                     .device = dev,
	                     .stream = 7,
	                     .correlation = corr,
	                     .external_id = ext};
	ns_error err = {0};

	ck_assert_int_eq(ns_trace_split_event(&ev, s, &err), NS_OK);
}

static void feed_kernel(ns_trace_split *s, int64_t ts, int64_t dur, int64_t corr, int64_t ext)
{
	feed_kernel_on(s, 0, ts, dur, corr, ext);
}

/* GPU record i reads back as [start, end), ids corr and ext, wide or not. */
static void check_gpu(ns_trace_split *s, size_t i, int64_t start, int64_t end, int64_t corr, int64_t ext,
                      bool wide)
{
	const gpu_rec *g = &s->gpu[i];

	ck_assert_msg(split_gpu_wide(g) == wide, "record %zu: wide %d", i, (int)split_gpu_wide(g));
	ck_assert_int_eq(split_gpu_start(s, g), start);
	ck_assert_int_eq(split_gpu_end(s, g), end);
	ck_assert_int_eq(split_gpu_corr(s, g), corr);
	ck_assert_int_eq(split_gpu_ext(s, g), ext);
}

START_TEST(a_gpu_record_is_24_bytes)
{
	ck_assert_uint_eq(sizeof(gpu_rec), 24);
}
END_TEST

/* A duration up to 2^32 - 1 ns (4.29 s) is kept in the record; one ns more is kept whole. */
START_TEST(durations_past_32_bits_are_kept_whole)
{
	ns_trace_split *s = new_split();
	const int64_t max = (int64_t)UINT32_MAX;

	feed_kernel(s, 100, max, 5, 1);
	feed_kernel(s, 200, max + 1, 6, 2);
	feed_kernel(s, 300, 9000000000000, 7, 3); /* 2.5 hours */
	feed_kernel(s, 400, 0, 8, 4);
	ck_assert_uint_eq(s->ngpu, 4);
	ck_assert_uint_eq(s->nwide_gpu, 2);
	check_gpu(s, 0, 100, 100 + max, 5, 1, false);
	check_gpu(s, 1, 200, 200 + max + 1, 6, 2, true);
	check_gpu(s, 2, 300, 300 + 9000000000000, 7, 3, true);
	check_gpu(s, 3, 400, 400, 8, 4, false);
	ns_trace_split_free(s);
}
END_TEST

/* First id 5: the base is 0, and ids 0 to 2^32 - 2 fit (2^32 - 1 above the base is the code for none). No
 * id (-1) fits; any other negative id, another high word, or an id below the base is kept whole. */
START_TEST(gpu_ids_past_the_base_are_kept_whole)
{
	ns_trace_split *s = new_split();
	const int64_t top = (int64_t)UINT32_MAX - 1;

	feed_kernel(s, 10, 5, 5, -1);
	feed_kernel(s, 20, 5, top, -1);
	feed_kernel(s, 30, 5, top + 1, -1);
	feed_kernel(s, 40, 5, -1, -1);
	feed_kernel(s, 50, 5, -7, -1);
	feed_kernel(s, 60, 5, ((int64_t)3 << 32) | 4, -1);
	ck_assert_int_eq(s->gpu_corr0, 0);
	check_gpu(s, 0, 10, 15, 5, -1, false);
	check_gpu(s, 1, 20, 25, top, -1, false);
	check_gpu(s, 2, 30, 35, top + 1, -1, true);
	check_gpu(s, 3, 40, 45, -1, -1, false);
	check_gpu(s, 4, 50, 55, -7, -1, true);
	check_gpu(s, 5, 60, 65, ((int64_t)3 << 32) | 4, -1, true);
	ns_trace_split_free(s);
}
END_TEST

/* An export's ids carry the process above bit 32: the first one's high word is the base. */
START_TEST(an_exports_gpu_ids_pack_above_their_process)
{
	ns_trace_split *s = new_split();
	const int64_t p = (int64_t)4242 << 32;

	feed_kernel(s, 10, 5, p | 1, -1);
	feed_kernel(s, 20, 5, p | 2, -1);
	feed_kernel(s, 30, 5, 3, -1); /* below the base */
	ck_assert_int_eq(s->gpu_corr0, p);
	check_gpu(s, 0, 10, 15, p | 1, -1, false);
	check_gpu(s, 1, 20, 25, p | 2, -1, false);
	check_gpu(s, 2, 30, 35, 3, -1, true);
	ns_trace_split_free(s);
}
END_TEST

/* External ids past INT32_MAX are kept aside; negative ones read as none, as they mean. */
START_TEST(gpu_external_ids_past_31_bits_are_kept_aside)
{
	ns_trace_split *s = new_split();

	feed_kernel(s, 10, 5, 1, INT32_MAX);
	feed_kernel(s, 20, 5, 2, (int64_t)INT32_MAX + 1);
	feed_kernel(s, 30, 5, 3, (int64_t)1 << 40);
	feed_kernel(s, 40, 5, 4, -9);
	check_gpu(s, 0, 10, 15, 1, INT32_MAX, false);
	check_gpu(s, 1, 20, 25, 2, (int64_t)INT32_MAX + 1, false);
	check_gpu(s, 2, 30, 35, 3, (int64_t)1 << 40, false);
	check_gpu(s, 3, 40, 45, 4, -1, false);
	ns_trace_split_free(s);
}
END_TEST

/* First start 1000: starts from 1000 - (2^47 - 1) to 1000 + 2^47 - 2 are kept in the record (the two
 * biased values past them mark the starts out of reach); one ns farther either way is kept whole. */
START_TEST(gpu_starts_out_of_reach_are_kept_whole)
{
	ns_trace_split *s = new_split();
	const int64_t half = (int64_t)1 << 47;

	feed_kernel(s, 1000, 10, 1, -1);
	feed_kernel(s, 1000 + half - 2, 10, 2, -1);
	feed_kernel(s, 1000 + half - 1, 10, 3, -1);
	feed_kernel(s, 1000 - half + 1, 10, 4, -1);
	feed_kernel(s, 1000 - half, 10, 5, -1);
	feed_kernel(s, INT64_MAX - 10, 10, 6, -1);
	ck_assert_uint_eq(s->nfar_gpu, 3);
	check_gpu(s, 0, 1000, 1010, 1, -1, false);
	check_gpu(s, 1, 1000 + half - 2, 1000 + half + 8, 2, -1, false);
	check_gpu(s, 2, 1000 + half - 1, 1000 + half + 9, 3, -1, true);
	check_gpu(s, 3, 1000 - half + 1, 1000 - half + 11, 4, -1, false);
	check_gpu(s, 4, 1000 - half, 1000 - half + 10, 5, -1, true);
	check_gpu(s, 5, INT64_MAX - 10, INT64_MAX, 6, -1, true);
	ns_trace_split_free(s);
}
END_TEST

/* Sorted by (device, start), the starts out of reach too, each in its place. Devices are numbered in order
 * of first appearance: device 5 is index 0, device 2 index 1. */
START_TEST(gpu_records_sort_by_device_and_whole_start)
{
	ns_trace_split *s = new_split();
	const int64_t far[] = {(int64_t)1 << 60, (int64_t)1 << 59, -((int64_t)1 << 50), -((int64_t)1 << 51)};
	const int64_t want0[] = {-((int64_t)1 << 51), -((int64_t)1 << 50), 1000, 2000, 3000,
	                         (int64_t)1 << 59,    (int64_t)1 << 60};
	const int64_t want1[] = {-((int64_t)1 << 55), 500, (int64_t)1 << 58};

	feed_kernel_on(s, 5, 1000, 1, 1, -1);
	feed_kernel_on(s, 2, (int64_t)1 << 58, 1, 2, -1);
	feed_kernel_on(s, 5, 3000, 1, 3, -1);
	for (int i = 0; i < 4; i++)
		feed_kernel_on(s, 5, far[i], 1, 10 + i, -1);
	feed_kernel_on(s, 2, 500, 1, 4, -1);
	feed_kernel_on(s, 5, 2000, 1, 5, -1);
	feed_kernel_on(s, 2, -((int64_t)1 << 55), 1, 6, -1);
	split_gpu_sort(s);
	ck_assert_uint_eq(s->ngpu, 10);
	for (size_t i = 0; i < 7; i++) {
		ck_assert_uint_eq(split_gpu_dev(&s->gpu[i]), 0);
		ck_assert_int_eq(split_gpu_start(s, &s->gpu[i]), want0[i]);
	}
	for (size_t i = 0; i < 3; i++) {
		ck_assert_uint_eq(split_gpu_dev(&s->gpu[7 + i]), 1);
		ck_assert_int_eq(split_gpu_start(s, &s->gpu[7 + i]), want1[i]);
	}
	ns_trace_split_free(s);
}
END_TEST

/* The device, kind, stream and name share words with other fields: setting one leaves the rest. */
START_TEST(gpu_fields_set_alone)
{
	ns_trace_split *s = new_split();
	gpu_rec *g;

	feed_kernel(s, 1000, 10, 1, 3);
	g = &s->gpu[0];
	uint8_t stream = split_gpu_stream(g);
	uint32_t name = split_gpu_name(g);
	split_gpu_set_dev(g, GPU_DEV_OUTSIDE);
	split_gpu_set_kind(g, GK_COMM);
	ck_assert_uint_eq(split_gpu_dev(g), GPU_DEV_OUTSIDE);
	ck_assert_uint_eq(split_gpu_kind(g), GK_COMM);
	ck_assert_uint_eq(split_gpu_stream(g), stream);
	ck_assert_uint_eq(split_gpu_name(g), name);
	check_gpu(s, 0, 1000, 1010, 1, 3, false);
	split_gpu_set_kind(g, GK_TRANSFER);
	ck_assert_uint_eq(split_gpu_kind(g), GK_TRANSFER);
	ck_assert_uint_eq(split_gpu_dev(g), GPU_DEV_OUTSIDE);
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
	tc = tcase_create("gpu");
	tcase_add_checked_fixture(tc, NULL, free_rules);
	tcase_add_test(tc, a_gpu_record_is_24_bytes);
	tcase_add_test(tc, durations_past_32_bits_are_kept_whole);
	tcase_add_test(tc, gpu_ids_past_the_base_are_kept_whole);
	tcase_add_test(tc, an_exports_gpu_ids_pack_above_their_process);
	tcase_add_test(tc, gpu_external_ids_past_31_bits_are_kept_aside);
	tcase_add_test(tc, gpu_starts_out_of_reach_are_kept_whole);
	tcase_add_test(tc, gpu_records_sort_by_device_and_whole_start);
	tcase_add_test(tc, gpu_fields_set_alone);
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
