/* The median step's timeline (split_timeline.c) on hand-built events: which step is drawn, what each pixel
 * holds, and that the rows stay bounded however many streams there are. Times in the tables are microseconds;
 * a step of 200 us is 300 pixels of 666.67 ns, so 100 us is 150 pixels. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/trace_split.h"

#define GEMM "volta_sgemm_64x64_nt"
#define NCCL "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
#define FULL NS_SPLIT_TIMELINE_FULL

typedef struct {
	ns_trace_category cat;
	const char *name; /* NULL ends a list */
	int64_t ts, dur;  /* us */
	int64_t stream;   /* GPU events */
} ev_spec;

#define STEP(n, ts, dur)                                                                                     \
	{                                                                                                    \
		NS_TCAT_USER_ANNOTATION, "ProfilerStep#" #n, ts, dur, -1                                     \
	}
#define CPU(ts, dur)                                                                                         \
	{                                                                                                    \
		NS_TCAT_CPU_OP, "aten::add", ts, dur, -1                                                     \
	}
#define K(name, ts, dur, s)                                                                                  \
	{                                                                                                    \
		NS_TCAT_KERNEL, name, ts, dur, s                                                             \
	}
#define END                                                                                                  \
	{                                                                                                    \
		NS_TCAT_OTHER, NULL, 0, 0, -1                                                                \
	}

static ns_kernel_rules *rules;

static void run(const ev_spec *evs, ns_split_result *res)
{
	ns_trace_split *s = ns_trace_split_new(rules);
	ns_error err;

	ns_error_clear(&err);
	ck_assert_ptr_nonnull(s);
	ns_trace_split_want_timeline(s, true);
	for (long i = 0; evs[i].name != NULL; i++) {
		ns_trace_event ev;
		bool gpu = evs[i].cat == NS_TCAT_KERNEL;
		memset(&ev, 0, sizeof(ev));
		ev.index = i;
		ev.offset = -1;
		ev.cat = evs[i].cat;
		ev.ph = 'X';
		ev.name.ptr = evs[i].name;
		ev.name.len = strlen(evs[i].name);
		ev.pid = gpu ? 0 : 100;
		ev.tid = gpu ? 7 : 1;
		ev.has_ts = ev.has_dur = true;
		ev.ts_ns = evs[i].ts * 1000;
		ev.dur_ns = evs[i].dur * 1000;
		ev.device = gpu ? 0 : -1;
		ev.stream = evs[i].stream;
		ev.correlation = ev.external_id = -1;
		ck_assert_int_eq(ns_trace_split_event(&ev, s, &err), NS_OK);
	}
	ck_assert_msg(ns_trace_split_finish(s, NULL, res, &err) == NS_OK, "%s", err.msg);
	ns_trace_split_free(s);
	ck_assert_uint_eq(res->ndevices, 1);
	ck_assert_ptr_nonnull(res->device[0].timeline);
}

static void setup(void)
{
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_rules_default(&rules, &err), NS_OK);
}

static void teardown(void)
{
	ns_kernel_rules_free(rules);
}

/* Steps of 100, 300 and 200 us: the lower median by length is the 200 us one, step 3 (at 400 us). In it a
 * GEMM on stream 7 fills the first half, an all-reduce on stream 13 the second, the host's op the first 60 us
 * (90 pixels). Work in the other steps must not show. */
static const ev_spec ev_median[] = {
    STEP(1, 0, 100),       STEP(2, 100, 300),    STEP(3, 400, 200),
    K(GEMM, 10, 80, 7),    K(GEMM, 150, 200, 7), K(GEMM, 400, 100, 7),
    K(NCCL, 500, 100, 13), CPU(400, 60),         END,
};

START_TEST(the_median_step_is_drawn_pixel_by_pixel)
{
	ns_split_result res;
	const ns_split_timeline *tl;

	run(ev_median, &res);
	tl = res.device[0].timeline;
	ck_assert_int_eq(tl->step, 3);
	ck_assert_int_eq(tl->start_ns, 400000);
	ck_assert_int_eq(tl->dur_ns, 200000);
	ck_assert_uint_eq(tl->nrows, 3); /* two streams, one thread */
	ck_assert(!tl->row[0].host && tl->row[0].id == 7 && tl->row[0].busy_ns == 100000);
	ck_assert(!tl->row[1].host && tl->row[1].id == 13 && tl->row[1].busy_ns == 100000);
	ck_assert(tl->row[2].host && tl->row[2].id == 1 && tl->row[2].pid == 100);
	ck_assert_int_eq(tl->row[2].busy_ns, 60000);
	ck_assert_uint_eq(tl->row[0].frac[0][NS_KCLASS_COMPUTE], FULL);
	ck_assert_uint_eq(tl->row[0].frac[149][NS_KCLASS_COMPUTE], FULL);
	ck_assert_uint_eq(tl->row[0].frac[150][NS_KCLASS_COMPUTE], 0);
	ck_assert_uint_eq(tl->row[1].frac[149][NS_KCLASS_COMM], 0);
	ck_assert_uint_eq(tl->row[1].frac[150][NS_KCLASS_COMM], FULL);
	ck_assert_uint_eq(tl->row[1].frac[299][NS_KCLASS_COMM], FULL);
	ck_assert_uint_eq(tl->row[2].frac[89][NS_TIMELINE_HOST_CPU], FULL);
	ck_assert_uint_eq(tl->row[2].frac[90][NS_TIMELINE_HOST_CPU], 0);
	ns_split_result_free(&res);
}
END_TEST

/* A zero-length kernel draws nothing (no row); in a 600 us step (pixels of 2 us) a 1 us kernel at the start
 * fills half of pixel 0: FULL / 2, rounded. */
START_TEST(a_kernel_shorter_than_a_pixel_fills_its_share_of_it)
{
	static const ev_spec ev[] = {STEP(1, 0, 200), END, END};
	ev_spec evs[3];
	ns_split_result res;

	memcpy(evs, ev, sizeof(ev));
	evs[1] = (ev_spec)K(GEMM, 0, 0, 7);
	run(evs, &res); /* a zero-length kernel: nothing drawn, no row */
	ck_assert_uint_eq(res.device[0].timeline->nrows, 0);
	ns_split_result_free(&res);
	/* the trace's times are us; 333 ns is written as a kernel from 0 to 0.333 us through a longer step
	 * scale: a 600 us step makes pixels of 2 us, and a 1 us kernel fills half of pixel 0 */
	evs[0] = (ev_spec)STEP(1, 0, 600);
	evs[1] = (ev_spec)K(GEMM, 0, 1, 7);
	run(evs, &res);
	ck_assert_uint_eq(res.device[0].timeline->nrows, 1);
	ck_assert_uint_ge(res.device[0].timeline->row[0].frac[0][NS_KCLASS_COMPUTE], FULL / 2);
	ck_assert_uint_le(res.device[0].timeline->row[0].frac[0][NS_KCLASS_COMPUTE], FULL / 2 + 1);
	ck_assert_uint_eq(res.device[0].timeline->row[0].frac[1][NS_KCLASS_COMPUTE], 0);
	ns_split_result_free(&res);
}
END_TEST

/* 20 streams, stream s busy 1 + s us: the 12 busiest get rows (streams 19 down to 8), the other 8 share one
 * whose time is 1 + 2 + ... + 8 = 36 us. */
START_TEST(streams_past_the_limit_share_one_row)
{
	ev_spec evs[23];
	ns_split_result res;
	const ns_split_timeline *tl;

	evs[0] = (ev_spec)STEP(1, 0, 200);
	for (int s = 0; s < 20; s++)
		evs[1 + s] = (ev_spec)K(GEMM, 10, 1 + s, 100 + s);
	evs[21] = (ev_spec)END;
	run(evs, &res);
	tl = res.device[0].timeline;
	ck_assert_uint_eq(tl->nrows, NS_SPLIT_TIMELINE_GPU_ROWS + 1);
	for (int r = 0; r < NS_SPLIT_TIMELINE_GPU_ROWS; r++) {
		ck_assert_int_eq(tl->row[r].id, 100 + 19 - r);
		ck_assert(!tl->row[r].merged);
	}
	ck_assert(tl->row[NS_SPLIT_TIMELINE_GPU_ROWS].merged);
	ck_assert_int_eq(tl->row[NS_SPLIT_TIMELINE_GPU_ROWS].id, -1);
	ck_assert_int_eq(tl->row[NS_SPLIT_TIMELINE_GPU_ROWS].busy_ns, 36000);
	ns_split_result_free(&res);
}
END_TEST

START_TEST(no_timeline_unless_asked_for)
{
	static const ev_spec ev[] = {STEP(1, 0, 100), K(GEMM, 0, 10, 7), END};
	ns_trace_split *s = ns_trace_split_new(rules);
	ns_split_result res;
	ns_error err;

	ns_error_clear(&err);
	for (long i = 0; ev[i].name != NULL; i++) {
		ns_trace_event e;
		memset(&e, 0, sizeof(e));
		e.offset = -1;
		e.cat = ev[i].cat;
		e.ph = 'X';
		e.name.ptr = ev[i].name;
		e.name.len = strlen(ev[i].name);
		e.pid = e.cat == NS_TCAT_KERNEL ? 0 : 100;
		e.tid = 1;
		e.has_ts = e.has_dur = true;
		e.ts_ns = ev[i].ts * 1000;
		e.dur_ns = ev[i].dur * 1000;
		e.device = e.cat == NS_TCAT_KERNEL ? 0 : -1;
		e.stream = ev[i].stream;
		e.correlation = e.external_id = -1;
		ck_assert_int_eq(ns_trace_split_event(&e, s, &err), NS_OK);
	}
	ck_assert_int_eq(ns_trace_split_finish(s, NULL, &res, &err), NS_OK);
	ns_trace_split_free(s);
	ck_assert_ptr_null(res.device[0].timeline);
	ns_split_result_free(&res);
}
END_TEST

/* One event into s: a metadata event (ph 'M', no time) when meta is not NULL, else a complete one. */
static void feed(ns_trace_split *s, ns_trace_category cat, const char *name, int64_t tid, int64_t ts,
                 int64_t dur, const char *meta, int64_t sort_index)
{
	ns_trace_event ev;
	ns_error err;

	memset(&ev, 0, sizeof(ev));
	ns_error_clear(&err);
	ev.offset = -1;
	ev.cat = cat;
	ev.ph = meta != NULL || sort_index >= 0 ? 'M' : 'X';
	ev.name.ptr = name;
	ev.name.len = strlen(name);
	ev.pid = cat == NS_TCAT_KERNEL ? 0 : 100;
	ev.tid = cat == NS_TCAT_KERNEL ? 7 : tid;
	ev.has_ts = ev.has_dur = ev.ph == 'X';
	ev.ts_ns = ts * 1000;
	ev.dur_ns = dur * 1000;
	ev.device = cat == NS_TCAT_KERNEL ? 0 : -1;
	ev.stream = cat == NS_TCAT_KERNEL ? 7 : -1;
	ev.correlation = ev.external_id = -1;
	if (meta != NULL) {
		ev.meta_name.ptr = meta;
		ev.meta_name.len = strlen(meta);
	}
	ev.has_sort_index = sort_index >= 0;
	ev.sort_index = sort_index;
	ck_assert_int_eq(ns_trace_split_event(&ev, s, &err), NS_OK);
}

/* Host threads are labelled with the names the trace's thread_name metadata gives them (JSON escapes
 * resolved, cut between characters), and the drawn ones are in its thread_sort_index order: threads 1, 2, 3
 * are busy 60, 40 and 20 us (busy order 1, 2, 3); thread 2 sorts at 1 and thread 1 at 5, thread 3 has no
 * place, so the strip shows 2, 1, then 3. */
START_TEST(host_threads_are_named_and_ordered_by_the_trace_metadata)
{
	static const char long_name[] =
	    "a_thread_name_of_seventy_bytes_is_cut_to_the_sixty_three_a_row_holds_";
	ns_trace_split *s = ns_trace_split_new(rules);
	ns_split_result res;
	const ns_split_timeline *tl;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_ptr_nonnull(s);
	ns_trace_split_want_timeline(s, true);
	feed(s, NS_TCAT_OTHER, "thread_name", 1, 0, 0, "Main\\u00e9", -1); /* "Mainé" */
	feed(s, NS_TCAT_OTHER, "thread_name", 2, 0, 0, "pt_autograd_0", -1);
	feed(s, NS_TCAT_OTHER, "thread_sort_index", 2, 0, 0, NULL, 1);
	feed(s, NS_TCAT_OTHER, "thread_sort_index", 1, 0, 0, NULL, 5);
	feed(s, NS_TCAT_OTHER, "process_name", 3, 0, 0, long_name, -1); /* not a thread's name */
	feed(s, NS_TCAT_USER_ANNOTATION, "ProfilerStep#1", 1, 0, 100, NULL, -1);
	feed(s, NS_TCAT_KERNEL, GEMM, 7, 10, 50, NULL, -1);
	feed(s, NS_TCAT_CPU_OP, "aten::add", 1, 0, 60, NULL, -1);
	feed(s, NS_TCAT_CPU_OP, "aten::mul", 2, 0, 40, NULL, -1);
	feed(s, NS_TCAT_CPU_OP, "aten::sub", 3, 0, 20, NULL, -1);
	feed(s, NS_TCAT_OTHER, "thread_name", 4, 0, 0, long_name,
	     -1); /* after the spans: metadata may come last */
	feed(s, NS_TCAT_CPU_OP, "aten::div", 4, 0, 10, NULL, -1);
	ck_assert_msg(ns_trace_split_finish(s, NULL, &res, &err) == NS_OK, "%s", err.msg);
	ns_trace_split_free(s);
	tl = res.device[0].timeline;
	ck_assert_ptr_nonnull(tl);
	ck_assert_uint_eq(tl->nrows, 5); /* stream 7, threads 2, 1, 3, 4 */
	ck_assert(!tl->row[0].host);
	ck_assert(tl->row[1].host && tl->row[1].id == 2 && tl->row[1].busy_ns == 40000);
	ck_assert_str_eq(tl->row[1].name, "pt_autograd_0");
	ck_assert(tl->row[2].host && tl->row[2].id == 1 && tl->row[2].busy_ns == 60000);
	ck_assert_str_eq(tl->row[2].name, "Main\xc3\xa9");
	ck_assert(tl->row[3].host && tl->row[3].id == 3);
	ck_assert_str_eq(tl->row[3].name, "");
	ck_assert(tl->row[4].host && tl->row[4].id == 4);
	ck_assert_uint_eq(strlen(tl->row[4].name), NS_SPLIT_THREAD_NAME_MAX - 1);
	ck_assert_int_eq(strncmp(tl->row[4].name, long_name, NS_SPLIT_THREAD_NAME_MAX - 1), 0);
	ns_split_result_free(&res);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("split_timeline");
	TCase *tc = tcase_create("timeline");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, the_median_step_is_drawn_pixel_by_pixel);
	tcase_add_test(tc, a_kernel_shorter_than_a_pixel_fills_its_share_of_it);
	tcase_add_test(tc, streams_past_the_limit_share_one_row);
	tcase_add_test(tc, no_timeline_unless_asked_for);
	tcase_add_test(tc, host_threads_are_named_and_ordered_by_the_trace_metadata);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
