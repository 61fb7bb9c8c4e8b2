/* The split's stream table: each (device, stream) pair of a GPU event gets a one-byte index in order of first
 * appearance, kept in the GPU record; past 255 pairs the rest share SPLIT_STREAM_OTHER. */
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

static void feed_kernel(ns_trace_split *s, int64_t device, int64_t stream, int64_t ts)
{
	ns_trace_event ev = {.cat = NS_TCAT_KERNEL,
	                     .ph = 'X',
	                     .name = {"k", 1},
	                     .pid = 0,
	                     .tid = stream,
	                     .has_ts = true,
	                     .has_dur = true,
	                     .ts_ns = ts,
	                     .dur_ns = 10,
	                     .device = device,
	                     .stream = stream,
	                     .correlation = -1,
	                     .external_id = -1};
	ns_error err = {0};

	ck_assert_int_eq(ns_trace_split_event(&ev, s, &err), NS_OK);
}

START_TEST(pairs_are_numbered_in_order_of_first_appearance)
{
	ns_trace_split *s = new_split();
	stream_key k;

	ck_assert_uint_eq(split_stream_index(s, 0, 7), 0);
	ck_assert_uint_eq(split_stream_index(s, 0, 20), 1);
	ck_assert_uint_eq(split_stream_index(s, 1, 7), 2); /* same stream number on another device */
	ck_assert_uint_eq(split_stream_index(s, 0, 7), 0);
	ck_assert_uint_eq(split_stream_index(s, 0, -1), 3); /* no args.stream is a stream of its own */
	ck_assert(split_stream_key(s, 2, &k));
	ck_assert_int_eq(k.stream, 7);
	ck_assert_uint_eq(k.dev, 1);
	ck_assert(!split_stream_key(s, 4, &k));
	ck_assert(!split_stream_key(s, SPLIT_STREAM_OTHER, &k));
	ns_trace_split_free(s);
}
END_TEST

START_TEST(pairs_past_the_table_share_the_other_index)
{
	ns_trace_split *s = new_split();
	stream_key k;

	for (int64_t i = 0; i < SPLIT_STREAM_OTHER; i++)
		ck_assert_uint_eq(split_stream_index(s, (uint16_t)(i % 3), i * 1000), (unsigned)i);
	ck_assert_uint_eq(split_stream_index(s, 0, 99999999), SPLIT_STREAM_OTHER);
	ck_assert_uint_eq(split_stream_index(s, 5, 1), SPLIT_STREAM_OTHER);
	/* every earlier pair is still found, in any order */
	for (int64_t i = SPLIT_STREAM_OTHER - 1; i >= 0; i--)
		ck_assert_uint_eq(split_stream_index(s, (uint16_t)(i % 3), i * 1000), (unsigned)i);
	ck_assert(split_stream_key(s, 254, &k));
	ck_assert_int_eq(k.stream, 254000);
	ns_trace_split_free(s);
}
END_TEST

START_TEST(gpu_records_carry_their_stream_without_growing)
{
	ns_trace_split *s = new_split();
	stream_key k;

	feed_kernel(s, 0, 7, 0);
	feed_kernel(s, 1, 7, 5);
	feed_kernel(s, 0, 13, 10);
	feed_kernel(s, 0, 7, 20);
	ck_assert_uint_eq(s->ngpu, 4);
	ck_assert_uint_eq(split_gpu_stream(&s->gpu[0]), split_gpu_stream(&s->gpu[3]));
	ck_assert_uint_ne(split_gpu_stream(&s->gpu[0]), split_gpu_stream(&s->gpu[1]));
	ck_assert_uint_ne(split_gpu_stream(&s->gpu[0]), split_gpu_stream(&s->gpu[2]));
	ck_assert(split_stream_key(s, split_gpu_stream(&s->gpu[2]), &k));
	ck_assert_int_eq(k.stream, 13);
	ck_assert_uint_eq(k.dev, split_gpu_dev(&s->gpu[2]));
	ck_assert_uint_eq(sizeof(gpu_rec), 24);
	ns_trace_split_free(s);
}
END_TEST

static Suite *streams_suite(void)
{
	Suite *s = suite_create("split_streams");
	TCase *tc = tcase_create("streams");

	tcase_add_checked_fixture(tc, NULL, free_rules);
	tcase_add_test(tc, pairs_are_numbered_in_order_of_first_appearance);
	tcase_add_test(tc, pairs_past_the_table_share_the_other_index);
	tcase_add_test(tc, gpu_records_carry_their_stream_without_growing);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(streams_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
