/* The trace split on hand-built events: windows, the six buckets and their precedence, overlap, links from
 * kernels to collectives, B/E pairs, devices, host-only traces. Times in the tables are microseconds. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/trace_split.h"

#define MAIN_PID  100
#define MAIN_TID  1
#define OTHER_TID 2
#define NONE      (-1)

typedef struct {
	char ph;
	trace_category cat;
	const char *name; /* NULL ends a list */
	int64_t tid;
	int64_t ts, dur; /* us */
	int64_t device, corr, ext;
} ev_spec;

/* Host events on the main thread, GPU events on device 0 unless said otherwise. */
#define STEP(n, ts, dur)                                                                                     \
	{                                                                                                    \
		'X', TCAT_USER_ANNOTATION, "ProfilerStep#" #n, MAIN_TID, ts, dur, NONE, NONE, NONE           \
	}
#define DL(ts, dur)                                                                                          \
	{                                                                                                    \
		'X', TCAT_USER_ANNOTATION, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",    \
		    MAIN_TID, ts, dur, NONE, NONE, NONE                                                      \
	}
#define CPU(name, ts, dur)                                                                                   \
	{                                                                                                    \
		'X', TCAT_CPU_OP, name, MAIN_TID, ts, dur, NONE, NONE, NONE                                  \
	}
#define CPU_EXT(name, ts, dur, ext)                                                                          \
	{                                                                                                    \
		'X', TCAT_CPU_OP, name, MAIN_TID, ts, dur, NONE, NONE, ext                                   \
	}
#define RT(name, ts, dur, corr)                                                                              \
	{                                                                                                    \
		'X', TCAT_RUNTIME, name, MAIN_TID, ts, dur, NONE, corr, NONE                                 \
	}
#define RT_EXT(name, ts, dur, corr, ext)                                                                     \
	{                                                                                                    \
		'X', TCAT_RUNTIME, name, MAIN_TID, ts, dur, NONE, corr, ext                                  \
	}
#define K(name, ts, dur)                                                                                     \
	{                                                                                                    \
		'X', TCAT_KERNEL, name, 7, ts, dur, 0, NONE, NONE                                            \
	}
#define K_ON(dev, name, ts, dur)                                                                             \
	{                                                                                                    \
		'X', TCAT_KERNEL, name, 7, ts, dur, dev, NONE, NONE                                          \
	}
#define K_CORR(name, ts, dur, corr, ext)                                                                     \
	{                                                                                                    \
		'X', TCAT_KERNEL, name, 7, ts, dur, 0, corr, ext                                             \
	}
#define COPY(ts, dur)                                                                                        \
	{                                                                                                    \
		'X', TCAT_MEMCPY, "Memcpy HtoD (Pinned -> Device)", 7, ts, dur, 0, NONE, NONE                \
	}
#define END                                                                                                  \
	{                                                                                                    \
		0, TCAT_OTHER, NULL, 0, 0, 0, NONE, NONE, NONE                                               \
	}

#define GEMM "volta_sgemm_64x64_nt"
#define ADD  "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >"
#define NCCL "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"

typedef struct {
	int64_t step, start, dur;
	int64_t b[REGIME_COUNT]; /* compute, memory, comm, dataloader, overhead, idle */
	int64_t overlapped, transfer;
	long kernels; /* -1: not checked */
} want_window;

typedef struct {
	const char *name;
	const ev_spec *ev;
	size_t ndevices;
	size_t dev; /* the device checked */
	int64_t dev_id;
	size_t nsteps;
	want_window w[2];
} split_case;

static const ev_spec ev_compute_over_memory[] = {STEP(1, 0, 100), K(GEMM, 10, 40), K(ADD, 30, 40), END};
static const ev_spec ev_overlap[] = {STEP(1, 0, 100), K(GEMM, 0, 40), K(NCCL, 20, 40), END};
static const ev_spec ev_dataloader[] = {STEP(1, 0, 100),          DL(0, 30),      CPU("aten::copy_", 10, 10),
                                        CPU("aten::add", 30, 20), K(ADD, 40, 20), END};
static const ev_spec ev_sync[] = {STEP(1, 0, 100),
                                  RT("cudaLaunchKernel", 0, 10, 1),
                                  K_CORR(ADD, 10, 20, 1, NONE),
                                  RT("cudaDeviceSynchronize", 10, 40, NONE),
                                  RT("cudaStreamSynchronize", 60, 30, NONE),
                                  END};
static const ev_spec ev_other_thread[] = {
    STEP(1, 0, 100), {'X', TCAT_CPU_OP, "aten::mm", OTHER_TID, 0, 50, NONE, NONE, NONE}, END};
static const ev_spec ev_last_step[] = {STEP(1, 0, 100),
                                       STEP(2, 100, 50),
                                       RT("cudaLaunchKernel", 20, 2, 9),
                                       K_CORR(ADD, 300, 10, 9, NONE),
                                       RT("cudaLaunchKernel", 90, 2, 8),
                                       K_CORR(GEMM, 95, 10, 8, NONE),
                                       RT("cudaLaunchKernel", 120, 5, 7),
                                       K_CORR(ADD, 140, 60, 7, NONE),
                                       END};
static const ev_spec ev_no_steps[] = {K(GEMM, 50, 10), K(ADD, 70, 10), CPU("aten::add", 60, 5), END};
static const ev_spec ev_comm_links[] = {STEP(1, 0, 100),
                                        CPU_EXT("record_param_comms", 0, 10, 5),
                                        RT_EXT("cudaLaunchKernel", 2, 3, 11, 5),
                                        K_CORR("my_allreduce_kernel", 20, 30, 11, 5),
                                        CPU("c10d::allreduce_", 50, 10),
                                        RT("cudaLaunchKernel", 52, 3, 12),
                                        K_CORR("custom_reduce", 60, 10, 12, NONE),
                                        END};
static const ev_spec ev_begin_end[] = {
    STEP(1, 0, 100),
    {'E', TCAT_OTHER, "", MAIN_TID, 5, 0, NONE, NONE, NONE},
    {'B', TCAT_CPU_OP, "aten::add", MAIN_TID, 10, 0, NONE, NONE, NONE},
    {'B', TCAT_RUNTIME, "cudaStreamSynchronize", MAIN_TID, 12, 0, NONE, NONE, NONE},
    {'E', TCAT_OTHER, "", MAIN_TID, 15, 0, NONE, NONE, NONE},
    {'E', TCAT_OTHER, "", MAIN_TID, 30, 0, NONE, NONE, NONE},
    {'B', TCAT_CPU_OP, "never_ends", MAIN_TID, 40, 0, NONE, NONE, NONE},
    END};
static const ev_spec ev_transfer[] = {STEP(1, 0, 100), COPY(0, 20), K(ADD, 10, 20), END};
static const ev_spec ev_devices[] = {STEP(1, 0, 100), K_ON(0, GEMM, 0, 50), K_ON(1, GEMM, 0, 20), END};
static const ev_spec ev_old_style[] = {
    {'X', TCAT_CPU_OP, "ProfilerStep#5", MAIN_TID, 0, 100, NONE, NONE, NONE},
    {'X', TCAT_CPU_OP, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", MAIN_TID, 0, 30, NONE,
     NONE, NONE},
    K(GEMM, 50, 10),
    END};
static const ev_spec ev_host_only[] = {STEP(1, 0, 100), DL(0, 40), CPU("aten::add", 50, 10), END};
static const ev_spec ev_gpu_annotation[] = {
    {'X', TCAT_GPU_USER_ANNOTATION, "ProfilerStep#1", 7, 0, 100, 0, NONE, NONE}, K(GEMM, 10, 10), END};
static const ev_spec ev_main_thread[] = {
    {'X', TCAT_USER_ANNOTATION, "ProfilerStep#3", OTHER_TID, 0, 100, NONE, NONE, NONE},
    {'X', TCAT_CPU_OP, "aten::add", OTHER_TID, 10, 20, NONE, NONE, NONE},
    CPU("aten::mul", 50, 20),
    END};

static const split_case cases[] = {
    {"compute_wins_over_memory_when_both_run",
     ev_compute_over_memory,
     1,
     0,
     0,
     1,
     {{1, 0, 100, {40, 20, 0, 0, 0, 40}, 0, 0, 2}}},
    {"comm_under_compute_is_overlapped_not_comm",
     ev_overlap,
     1,
     0,
     0,
     1,
     {{1, 0, 100, {40, 0, 20, 0, 0, 40}, 20, 0, 2}}},
    {"dataloader_beats_overhead_and_gpu_work_beats_both",
     ev_dataloader,
     1,
     0,
     0,
     1,
     {{1, 0, 100, {0, 20, 0, 30, 10, 40}, 0, 0, 1}}},
    {"host_waiting_in_synchronize_is_idle",
     ev_sync,
     1,
     0,
     0,
     1,
     {{1, 0, 100, {0, 20, 0, 0, 10, 70}, 0, 0, 1}}},
    {"other_threads_host_work_is_not_overhead",
     ev_other_thread,
     1,
     0,
     -1,
     1,
     {{1, 0, 100, {0, 0, 0, 0, 0, 100}, 0, 0, 0}}},
    {"last_step_ends_with_the_gpu_work_it_launched",
     ev_last_step,
     1,
     0,
     0,
     2,
     {{1, 0, 100, {5, 0, 0, 0, 4, 91}, 0, 0, 1}, {2, 100, 100, {5, 60, 0, 0, 5, 30}, 0, 0, 1}}},
    {"no_step_markers_make_one_window_over_the_gpu_work",
     ev_no_steps,
     1,
     0,
     0,
     1,
     {{-1, 50, 30, {10, 10, 0, 0, 5, 5}, 0, 0, 2}}},
    {"kernels_launched_by_collective_ops_are_comm",
     ev_comm_links,
     1,
     0,
     0,
     1,
     {{1, 0, 100, {0, 0, 40, 0, 20, 40}, 0, 0, 2}}},
    {"begin_end_pairs_count_like_complete_events",
     ev_begin_end,
     1,
     0,
     -1,
     1,
     {{1, 0, 100, {0, 0, 0, 0, 20, 80}, 0, 0, 0}}},
    {"copies_are_memory_transfer_unless_a_memory_kernel_runs",
     ev_transfer,
     1,
     0,
     0,
     1,
     {{1, 0, 100, {0, 30, 0, 0, 0, 70}, 0, 10, 1}}},
    {"each_device_has_its_own_split", ev_devices, 2, 1, 1, 1, {{1, 0, 100, {20, 0, 0, 0, 0, 80}, 0, 0, 1}}},
    {"old_style_step_and_dataloader_operators_are_not_overhead",
     ev_old_style,
     1,
     0,
     0,
     1,
     {{5, 0, 100, {10, 0, 0, 30, 0, 60}, 0, 0, 1}}},
    {"host_only_trace_is_split_on_the_host",
     ev_host_only,
     1,
     0,
     -1,
     1,
     {{1, 0, 100, {0, 0, 0, 40, 10, 50}, 0, 0, 0}}},
    {"gpu_profiler_step_annotation_is_not_a_step",
     ev_gpu_annotation,
     1,
     0,
     0,
     1,
     {{-1, 10, 10, {10, 0, 0, 0, 0, 0}, 0, 0, 1}}},
    {"main_thread_is_the_one_recording_the_steps",
     ev_main_thread,
     1,
     0,
     -1,
     1,
     {{3, 0, 100, {0, 0, 0, 0, 20, 80}, 0, 0, 0}}},
};

static trace_event make_event(const ev_spec *s, long index)
{
	trace_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.index = index;
	ev.offset = -1;
	ev.cat = s->cat;
	ev.ph = s->ph;
	ev.name.ptr = s->name;
	ev.name.len = strlen(s->name);
	ev.pid = s->cat == TCAT_KERNEL || s->cat == TCAT_MEMCPY || s->cat == TCAT_MEMSET ? 0 : MAIN_PID;
	ev.tid = s->tid;
	ev.has_ts = true;
	ev.has_dur = s->ph == 'X';
	ev.ts_ns = s->ts * 1000;
	ev.dur_ns = s->dur * 1000;
	ev.device = s->device;
	ev.stream = -1;
	ev.correlation = s->corr;
	ev.external_id = s->ext;
	return ev;
}

static void run_split(const ev_spec *evs, split_result *res, kernel_rules **rules)
{
	trace_split *s;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(kernel_rules_default(rules, &err), NS_OK);
	s = trace_split_new(*rules);
	ck_assert_ptr_nonnull(s);
	for (long i = 0; evs[i].name != NULL; i++) {
		trace_event ev = make_event(&evs[i], i);
		ck_assert_int_eq(trace_split_event(&ev, s, &err), NS_OK);
	}
	ck_assert_msg(trace_split_finish(s, NULL, res, &err) == NS_OK, "%s", err.msg);
	trace_split_free(s);
}

static void check_window(const char *name, size_t i, const split_window *got, const want_window *want)
{
	int64_t sum = 0;

	ck_assert_msg(got->step == want->step, "%s[%zu]: step %lld", name, i, (long long)got->step);
	ck_assert_msg(got->start_ns == want->start * 1000, "%s[%zu]: start %lld", name, i,
	              (long long)got->start_ns);
	ck_assert_msg(got->dur_ns == want->dur * 1000, "%s[%zu]: dur %lld", name, i, (long long)got->dur_ns);
	for (int b = 0; b < REGIME_COUNT; b++) {
		ck_assert_msg(got->bucket_ns[b] == want->b[b] * 1000, "%s[%zu]: %s %lld ns, want %lld us",
		              name, i, regime_name((ns_regime)b), (long long)got->bucket_ns[b],
		              (long long)want->b[b]);
		sum += got->bucket_ns[b];
	}
	ck_assert_int_eq(sum, got->dur_ns);
	ck_assert_msg(got->comm_overlapped_ns == want->overlapped * 1000, "%s[%zu]: overlapped %lld", name, i,
	              (long long)got->comm_overlapped_ns);
	ck_assert_msg(got->memory_transfer_ns == want->transfer * 1000, "%s[%zu]: transfer %lld", name, i,
	              (long long)got->memory_transfer_ns);
	ck_assert_int_eq(got->memory_kernels_ns + got->memory_transfer_ns, got->bucket_ns[REGIME_MEMORY]);
	if (want->kernels >= 0)
		ck_assert_msg(got->kernels == want->kernels, "%s[%zu]: %ld kernels", name, i, got->kernels);
}

START_TEST(split_table)
{
	const split_case *c = &cases[_i];
	kernel_rules *rules = NULL;
	split_result res;
	const split_device *d;
	int64_t total = 0;

	run_split(c->ev, &res, &rules);
	ck_assert_msg(res.ndevices == c->ndevices, "%s: %zu devices", c->name, res.ndevices);
	d = &res.device[c->dev];
	ck_assert_msg(d->id == c->dev_id, "%s: device id %lld", c->name, (long long)d->id);
	ck_assert_msg(d->nsteps == c->nsteps, "%s: %zu steps", c->name, d->nsteps);
	for (size_t i = 0; i < d->nsteps; i++) {
		check_window(c->name, i, &d->steps[i], &c->w[i]);
		total += d->steps[i].dur_ns;
	}
	ck_assert_int_eq(d->overall.dur_ns, total);
	ck_assert_int_eq(res.gpu_activity, c->dev_id >= 0);
	split_result_free(&res);
	kernel_rules_free(rules);
}
END_TEST

START_TEST(step_markers_count_the_main_threads_steps)
{
	static const ev_spec ev[] = {STEP(1, 0, 10), STEP(2, 10, 10), STEP(3, 20, 10), K(GEMM, 0, 5), END};
	kernel_rules *rules = NULL;
	split_result res;

	run_split(ev, &res, &rules);
	ck_assert(res.has_steps);
	ck_assert_uint_eq(res.step_markers, 3);
	ck_assert_uint_eq(res.device[0].nsteps, 3);
	split_result_free(&res);
	kernel_rules_free(rules);
}
END_TEST

START_TEST(top_kernels_sum_time_per_name_and_class_largest_first)
{
	static const ev_spec ev[] = {STEP(1, 0, 100), K(GEMM, 0, 10), K(ADD, 10, 30), K(GEMM, 50, 15), END};
	kernel_rules *rules = NULL;
	split_result res;
	const split_device *d;

	run_split(ev, &res, &rules);
	d = &res.device[0];
	ck_assert_uint_eq(d->nkernel_time, 2);
	ck_assert_str_eq(kernel_names_get(res.names, d->kernel_time[0].name_id), ADD);
	ck_assert_int_eq(d->kernel_time[0].ns, 30000);
	ck_assert_int_eq(d->kernel_time[1].cls, KCLASS_COMPUTE);
	ck_assert_int_eq(d->kernel_time[1].ns, 25000);
	ck_assert_int_eq(d->kernel_time[1].count, 2);
	ck_assert_int_eq(d->class_ns[KCLASS_COMPUTE], 25000);
	split_result_free(&res);
	kernel_rules_free(rules);
}
END_TEST

START_TEST(nothing_to_split_gives_no_devices)
{
	static const ev_spec ev[] = {{'X', TCAT_FLOW, "ac2g", 1, 0, 0, NONE, NONE, NONE}, END};
	kernel_rules *rules = NULL;
	split_result res;

	run_split(ev, &res, &rules);
	ck_assert_uint_eq(res.ndevices, 0);
	ck_assert(!res.gpu_activity);
	split_result_free(&res);
	kernel_rules_free(rules);
}
END_TEST

START_TEST(a_trace_longer_than_int64_nanoseconds_is_a_limit_error)
{
	static const ev_spec ev[] = {STEP(1, -9000000000000000, 1), STEP(2, 9000000000000000, 1),
	                             K(GEMM, 0, 10), END};
	kernel_rules *rules = NULL;
	trace_split *s;
	split_result res;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(kernel_rules_default(&rules, &err), NS_OK);
	s = trace_split_new(rules);
	for (long i = 0; ev[i].name != NULL; i++) {
		trace_event e = make_event(&ev[i], i);
		ck_assert_int_eq(trace_split_event(&e, s, &err), NS_OK);
	}
	ck_assert_int_eq(trace_split_finish(s, NULL, &res, &err), NS_ERR_LIMIT);
	ck_assert_ptr_nonnull(strstr(err.msg, "spans more than"));
	trace_split_free(s);
	split_result_free(&res);
	kernel_rules_free(rules);
}
END_TEST

START_TEST(events_without_a_name_are_split_by_their_category)
{
	static const trace_category cats[] = {TCAT_KERNEL, TCAT_RUNTIME, TCAT_CPU_OP, TCAT_USER_ANNOTATION};
	kernel_rules *rules = NULL;
	trace_split *s;
	split_result res;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(kernel_rules_default(&rules, &err), NS_OK);
	s = trace_split_new(rules);
	for (size_t i = 0; i < sizeof(cats) / sizeof(cats[0]); i++) {
		ev_spec spec = K(GEMM, 10 * (int64_t)i, 5);
		trace_event ev = make_event(&spec, (long)i);
		ev.cat = cats[i];
		ev.name.ptr = NULL; /* "name" absent */
		ev.name.len = 0;
		ev.pid = cats[i] == TCAT_KERNEL ? 0 : MAIN_PID;
		ck_assert_int_eq(trace_split_event(&ev, s, &err), NS_OK);
	}
	ck_assert_int_eq(trace_split_finish(s, NULL, &res, &err), NS_OK);
	ck_assert_uint_eq(res.ndevices, 1);
	ck_assert_str_eq(kernel_names_get(res.names, 0), "");
	ck_assert_int_eq(res.device[0].overall.bucket_ns[REGIME_MEMORY], 5000);
	trace_split_free(s);
	split_result_free(&res);
	kernel_rules_free(rules);
}
END_TEST

START_TEST(window_profile_shares_are_bucket_over_duration)
{
	split_window w;
	ns_profile p;

	memset(&w, 0, sizeof(w));
	w.dur_ns = 200;
	w.bucket_ns[REGIME_COMPUTE] = 150;
	w.bucket_ns[REGIME_IDLE] = 50;
	split_window_profile(&w, &p);
	ck_assert_double_eq_tol(p.share[REGIME_COMPUTE], 0.75, 1e-12);
	ck_assert_double_eq_tol(p.share[REGIME_IDLE], 0.25, 1e-12);
	ck_assert(p.present[REGIME_COMM]);
}
END_TEST

/* ---- random traces against a slot-by-slot reference ---- */

#define RANDOM_TRACES 300
#define RANDOM_EVENTS 120
#define HORIZON       200 /* us; steps at 0, 60 and 120, the last one ending at HORIZON */

enum {
	R_COMPUTE,
	R_MEMORY,
	R_COMM,
	R_COPY,
	R_CPU,
	R_RUNTIME,
	R_SYNC,
	R_DL,
	R_OTHER_THREAD,
	R_ANNOTATION,
	R_KINDS
};

static uint32_t next_random(uint32_t *state)
{
	*state = *state * 1664525u + 1013904223u;
	return *state >> 8;
}

static void random_event(uint32_t *rng, ev_spec *e)
{
	static const ev_spec proto[R_KINDS] = {
	    K(GEMM, 0, 0),
	    K(ADD, 0, 0),
	    K(NCCL, 0, 0),
	    COPY(0, 0),
	    CPU("aten::add", 0, 0),
	    RT("cudaLaunchKernel", 0, 0, NONE),
	    RT("cudaStreamSynchronize", 0, 0, NONE),
	    DL(0, 0),
	    {'X', TCAT_CPU_OP, "aten::mm", OTHER_TID, 0, 0, NONE, NONE, NONE},
	    {'X', TCAT_USER_ANNOTATION, "## forward ##", MAIN_TID, 0, 0, NONE, NONE, NONE},
	};
	*e = proto[next_random(rng) % R_KINDS];
	e->ts = next_random(rng) % (HORIZON - 10);
	e->dur = next_random(rng) % 30;
	if (e->ts + e->dur > HORIZON)
		e->dur = HORIZON - e->ts;
}

/* Is some event of this kind busy over the slot [t, t + 1)? */
static bool busy(const ev_spec *ev, size_t n, int kind, const ev_spec *proto, int64_t t)
{
	for (size_t i = 0; i < n; i++)
		if (ev[i].cat == proto[kind].cat && ev[i].name == proto[kind].name &&
		    ev[i].tid == proto[kind].tid && ev[i].ts <= t && ev[i].ts + ev[i].dur >= t + 1)
			return true;
	return false;
}

/* The rules written out once more, slot by slot, for a window [a, b). */
static void reference_window(const ev_spec *ev, size_t n, const ev_spec *proto, int64_t a, int64_t b,
                             int64_t bucket[REGIME_COUNT], int64_t *overlapped, int64_t *transfer)
{
	memset(bucket, 0, REGIME_COUNT * sizeof(*bucket));
	*overlapped = *transfer = 0;
	for (int64_t t = a; t < b; t++) {
		bool c = busy(ev, n, R_COMPUTE, proto, t), mk = busy(ev, n, R_MEMORY, proto, t);
		bool cp = busy(ev, n, R_COPY, proto, t), x = busy(ev, n, R_COMM, proto, t);
		bool host = busy(ev, n, R_CPU, proto, t) || busy(ev, n, R_RUNTIME, proto, t);
		int r = c                             ? REGIME_COMPUTE
		        : mk || cp                    ? REGIME_MEMORY
		        : x                           ? REGIME_COMM
		        : busy(ev, n, R_DL, proto, t) ? REGIME_DATALOADER
		        : host                        ? REGIME_OVERHEAD
		                                      : REGIME_IDLE;
		bucket[r]++;
		*overlapped += x && (c || mk || cp);
		*transfer += r == REGIME_MEMORY && !mk;
	}
}

static void check_random_trace(int seed)
{
	static const ev_spec proto[R_KINDS] = {
	    K(GEMM, 0, 0),
	    K(ADD, 0, 0),
	    K(NCCL, 0, 0),
	    COPY(0, 0),
	    CPU("aten::add", 0, 0),
	    RT("cudaLaunchKernel", 0, 0, NONE),
	    RT("cudaStreamSynchronize", 0, 0, NONE),
	    DL(0, 0),
	    {'X', TCAT_CPU_OP, "aten::mm", OTHER_TID, 0, 0, NONE, NONE, NONE},
	    {'X', TCAT_USER_ANNOTATION, "## forward ##", MAIN_TID, 0, 0, NONE, NONE, NONE},
	};
	static const int64_t edge[] = {0, 60, 120, HORIZON};
	uint32_t rng = 12345u + (uint32_t)seed * 7919u;
	ev_spec ev[RANDOM_EVENTS + 5];
	size_t n = 0;
	kernel_rules *rules = NULL;
	split_result res;

	ev[n++] = (ev_spec)STEP(1, 0, 50);
	ev[n++] = (ev_spec)STEP(2, 60, 40);
	ev[n++] = (ev_spec)STEP(3, 120, HORIZON - 120);
	ev[n++] = (ev_spec)K(GEMM, 0, 1); /* a device exists in every trace */
	while (n < RANDOM_EVENTS + 4) {
		random_event(&rng, &ev[n]);
		for (int k = 0; k < R_KINDS;
		     k++) /* point names at the prototypes' so busy() can compare pointers */
			if (ev[n].cat == proto[k].cat && strcmp(ev[n].name, proto[k].name) == 0 &&
			    ev[n].tid == proto[k].tid)
				ev[n].name = proto[k].name;
		n++;
	}
	ev[n] = (ev_spec)END;
	run_split(ev, &res, &rules);
	ck_assert_uint_eq(res.ndevices, 1);
	ck_assert_uint_eq(res.device[0].nsteps, 3);
	for (size_t w = 0; w < 3; w++) {
		const split_window *got = &res.device[0].steps[w];
		int64_t want[REGIME_COUNT], overlapped, transfer;
		reference_window(ev, n, proto, edge[w], edge[w + 1], want, &overlapped, &transfer);
		ck_assert_int_eq(got->dur_ns, (edge[w + 1] - edge[w]) * 1000);
		for (int b = 0; b < REGIME_COUNT; b++)
			ck_assert_msg(got->bucket_ns[b] == want[b] * 1000,
			              "trace %d window %zu: %s %lld ns, reference %lld us", seed, w,
			              regime_name((ns_regime)b), (long long)got->bucket_ns[b],
			              (long long)want[b]);
		ck_assert_int_eq(got->comm_overlapped_ns, overlapped * 1000);
		ck_assert_int_eq(got->memory_transfer_ns, transfer * 1000);
	}
	split_result_free(&res);
	kernel_rules_free(rules);
}

START_TEST(random_traces_match_a_slot_by_slot_reference)
{
	for (int seed = 0; seed < RANDOM_TRACES; seed++)
		check_random_trace(seed);
}
END_TEST

static Suite *split_suite(void)
{
	Suite *s = suite_create("trace_split");
	TCase *tc = tcase_create("split");

	tcase_add_loop_test(tc, split_table, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, step_markers_count_the_main_threads_steps);
	tcase_add_test(tc, top_kernels_sum_time_per_name_and_class_largest_first);
	tcase_add_test(tc, nothing_to_split_gives_no_devices);
	tcase_add_test(tc, a_trace_longer_than_int64_nanoseconds_is_a_limit_error);
	tcase_add_test(tc, random_traces_match_a_slot_by_slot_reference);
	tcase_add_test(tc, events_without_a_name_are_split_by_their_category);
	tcase_add_test(tc, window_profile_shares_are_bucket_over_duration);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(split_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
