/* The trace split on hand-built events: windows, the six buckets and their precedence, overlap, links from
 * kernels to collectives, B/E pairs, devices, host-only traces. Times in the tables are microseconds. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/trace_split.h"

#define MAIN_PID    100
#define MAIN_TID    1
#define OTHER_TID   2
#define FOREIGN_TID 99 /* a thread of another process (pid FOREIGN_PID) */
#define FOREIGN_PID 200
#define NONE        (-1)

typedef struct {
	char ph;
	ns_trace_category cat;
	const char *name; /* NULL ends a list */
	int64_t tid;
	int64_t ts, dur; /* us */
	int64_t device, corr, ext;
} ev_spec;

/* Host events on the main thread, GPU events on device 0 unless said otherwise. */
#define STEP(n, ts, dur)                                                                                     \
	{                                                                                                    \
		'X', NS_TCAT_USER_ANNOTATION, "ProfilerStep#" #n, MAIN_TID, ts, dur, NONE, NONE, NONE        \
	}
#define DL(ts, dur)                                                                                          \
	{                                                                                                    \
		'X', NS_TCAT_USER_ANNOTATION, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", \
		    MAIN_TID, ts, dur, NONE, NONE, NONE                                                      \
	}
#define CPU(name, ts, dur)                                                                                   \
	{                                                                                                    \
		'X', NS_TCAT_CPU_OP, name, MAIN_TID, ts, dur, NONE, NONE, NONE                               \
	}
#define CPU_EXT(name, ts, dur, ext)                                                                          \
	{                                                                                                    \
		'X', NS_TCAT_CPU_OP, name, MAIN_TID, ts, dur, NONE, NONE, ext                                \
	}
#define RT(name, ts, dur, corr)                                                                              \
	{                                                                                                    \
		'X', NS_TCAT_RUNTIME, name, MAIN_TID, ts, dur, NONE, corr, NONE                              \
	}
#define RT_EXT(name, ts, dur, corr, ext)                                                                     \
	{                                                                                                    \
		'X', NS_TCAT_RUNTIME, name, MAIN_TID, ts, dur, NONE, corr, ext                               \
	}
#define K(name, ts, dur)                                                                                     \
	{                                                                                                    \
		'X', NS_TCAT_KERNEL, name, 7, ts, dur, 0, NONE, NONE                                         \
	}
#define K_ON(dev, name, ts, dur)                                                                             \
	{                                                                                                    \
		'X', NS_TCAT_KERNEL, name, 7, ts, dur, dev, NONE, NONE                                       \
	}
#define K_CORR(name, ts, dur, corr, ext)                                                                     \
	{                                                                                                    \
		'X', NS_TCAT_KERNEL, name, 7, ts, dur, 0, corr, ext                                          \
	}
#define COPY(ts, dur)                                                                                        \
	{                                                                                                    \
		'X', NS_TCAT_MEMCPY, "Memcpy HtoD (Pinned -> Device)", 7, ts, dur, 0, NONE, NONE             \
	}
#define END                                                                                                  \
	{                                                                                                    \
		0, NS_TCAT_OTHER, NULL, 0, 0, 0, NONE, NONE, NONE                                            \
	}

#define GEMM "volta_sgemm_64x64_nt"
#define ADD  "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >"
#define NCCL "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"

/* Causes in cause.h order: launch, host_threads, sync, init (overhead); host_gap, sync_wait (idle); transfer,
 * kernels (memory); exposed, host (comm). */
typedef struct {
	int64_t step, start, dur;
	int64_t b[NS_REGIME_COUNT]; /* compute, memory, comm, dataloader, overhead, idle */
	int64_t overlapped, transfer;
	long kernels; /* -1: not checked */
	int64_t c[NS_CAUSE_COUNT];
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

/* A kernel far after every step: gives a trace a device without touching its windows. */
#define FAR_KERNEL K(GEMM, 500, 1)
#define OTHER(cat, name, ts, dur)                                                                            \
	{                                                                                                    \
		'X', cat, name, OTHER_TID, ts, dur, NONE, NONE, NONE                                         \
	}

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
    STEP(1, 0, 100),
    OTHER(NS_TCAT_CPU_OP, "aten::mm", 0, 50),
    {'X', NS_TCAT_CPU_OP, "aten::mm", FOREIGN_TID, 60, 30, NONE, NONE, NONE},
    FAR_KERNEL,
    END};
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
                                        K_CORR(GEMM, 60, 10, 12, NONE),
                                        END};
static const ev_spec ev_begin_end[] = {
    STEP(1, 0, 100),
    {'E', NS_TCAT_OTHER, "", MAIN_TID, 5, 0, NONE, NONE, NONE},
    {'B', NS_TCAT_CPU_OP, "aten::add", MAIN_TID, 10, 0, NONE, NONE, NONE},
    {'B', NS_TCAT_RUNTIME, "cudaStreamSynchronize", MAIN_TID, 12, 0, NONE, NONE, NONE},
    {'E', NS_TCAT_OTHER, "", MAIN_TID, 15, 0, NONE, NONE, NONE},
    {'E', NS_TCAT_OTHER, "", MAIN_TID, 30, 0, NONE, NONE, NONE},
    {'B', NS_TCAT_CPU_OP, "never_ends", MAIN_TID, 40, 0, NONE, NONE, NONE},
    FAR_KERNEL,
    END};
static const ev_spec ev_transfer[] = {STEP(1, 0, 100), COPY(0, 20), K(ADD, 10, 20), END};
static const ev_spec ev_devices[] = {STEP(1, 0, 100), K_ON(0, GEMM, 0, 50), K_ON(1, GEMM, 0, 20), END};
static const ev_spec ev_old_style[] = {
    {'X', NS_TCAT_CPU_OP, "ProfilerStep#5", MAIN_TID, 0, 100, NONE, NONE, NONE},
    {'X', NS_TCAT_CPU_OP, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", MAIN_TID, 0, 30,
     NONE, NONE, NONE},
    K(GEMM, 50, 10),
    END};
static const ev_spec ev_host_comm[] = {STEP(1, 0, 100), DL(0, 40), CPU("aten::add", 50, 10),
                                       OTHER(NS_TCAT_USER_ANNOTATION, "gloo:all_reduce", 55, 25), END};
static const ev_spec ev_gpu_annotation[] = {
    {'X', NS_TCAT_GPU_USER_ANNOTATION, "ProfilerStep#1", 7, 0, 100, 0, NONE, NONE}, K(GEMM, 10, 10), END};
static const ev_spec ev_main_thread[] = {
    {'X', NS_TCAT_USER_ANNOTATION, "ProfilerStep#3", OTHER_TID, 0, 100, NONE, NONE, NONE},
    {'X', NS_TCAT_CPU_OP, "aten::add", OTHER_TID, 10, 20, NONE, NONE, NONE},
    CPU("aten::mul", 50, 20),
    FAR_KERNEL,
    END};
static const ev_spec ev_blocking_op[] = {
    STEP(1, 0, 100),
    RT("cudaLaunchKernel", 0, 5, 1),
    K_CORR(GEMM, 5, 40, 1, NONE),
    CPU("aten::item", 10, 60),
    RT("cudaMemcpyAsync", 10, 5, 2),
    {'X', NS_TCAT_MEMCPY, "Memcpy DtoH (Device -> Pageable)", 7, 45, 5, 0, 2, NONE},
    RT("cudaStreamSynchronize", 15, 53, NONE),
    END};
static const ev_spec ev_blocking_call[] = {STEP(1, 0, 100),
                                           RT("hipMemcpyWithStream", 0, 30, 1),
                                           {'X', NS_TCAT_MEMCPY, "Memcpy DtoH", 7, 20, 5, 0, 1, NONE},
                                           END};
static const ev_spec ev_init[] = {STEP(1, 0, 100),
                                  RT("cudaMalloc", 0, 60, NONE),
                                  RT("cudaLaunchKernel", 60, 2, 1),
                                  K_CORR(GEMM, 62, 10, 1, NONE),
                                  OTHER(NS_TCAT_RUNTIME, "cudaStreamCreateWithPriority", 80, 5),
                                  END};

static const split_case cases[] = {
    /* compute 10-50, the ADD alone 50-70 (memory kernels), nothing 0-10 and 70-100 */
    {"compute_wins_over_memory_when_both_run",
     ev_compute_over_memory,
     1,
     0,
     0,
     1,
     {{1, 0, 100, {40, 20, 0, 0, 0, 40}, 0, 0, 2, {0, 0, 0, 0, 40, 0, 0, 20, 0, 0}}}},
    /* GEMM 0-40 hides NCCL 20-40; NCCL alone 40-60 is exposed comm */
    {"comm_under_compute_is_overlapped_not_comm",
     ev_overlap,
     1,
     0,
     0,
     1,
     {{1, 0, 100, {40, 0, 20, 0, 0, 40}, 20, 0, 2, {0, 0, 0, 0, 40, 0, 0, 0, 20, 0}}}},
    /* DL 0-30 (the copy_ inside it too), add alone 30-40 (launch), ADD kernel 40-60 */
    {"dataloader_beats_overhead_and_gpu_work_beats_both",
     ev_dataloader,
     1,
     0,
     0,
     1,
     {{1, 0, 100, {0, 20, 0, 30, 10, 40}, 0, 0, 1, {10, 0, 0, 0, 40, 0, 0, 20, 0, 0}}}},
    /* launch 0-10; ADD 10-30; the synchronize calls with the GPU idle, outside any op: 30-50 and 60-90 are
     * sync_wait (50), 50-60 and 90-100 host_gap (20) */
    {"host_waiting_in_synchronize_outside_an_op_is_idle_sync_wait",
     ev_sync,
     1,
     0,
     0,
     1,
     {{1, 0, 100, {0, 20, 0, 0, 10, 70}, 0, 0, 1, {10, 0, 0, 0, 20, 50, 0, 20, 0, 0}}}},
    /* aten::mm on another thread of the process 0-50 is host_threads overhead; the one of another process
     * (60-90) is not the profiled process's: idle */
    {"other_threads_of_the_process_are_host_threads_overhead",
     ev_other_thread,
     1,
     0,
     0,
     1,
     {{1, 0, 100, {0, 0, 0, 0, 50, 50}, 0, 0, 0, {0, 50, 0, 0, 50, 0, 0, 0, 0, 0}}}},
    /* Each step holds the GPU work it launched. Step 1 launched the GEMM (95-105) and an ADD that runs at
     * 300-310, step 2 the ADD 140-200. Window 1 runs on past host step 2's start (100) while step 1's work
     * runs, up to 140, where step 2's first work starts (the ADD of 300 would overlap it); window 2 ends with
     * its ADD (200, later than its span's end at 150). Window 1 [0,140): launches 20-22, 90-92, 120-125 (9),
     * GEMM 95-105 (10), host_gap 121; window 2 [140,200): the ADD (memory kernels 60). The ADD at 300 runs
     * after every window and is in none. */
    {"steps_hold_the_gpu_work_they_launched",
     ev_last_step,
     1,
     0,
     0,
     2,
     {{1, 0, 140, {10, 0, 0, 0, 9, 121}, 0, 0, 1, {9, 0, 0, 0, 121, 0, 0, 0, 0, 0}},
      {2, 140, 60, {0, 60, 0, 0, 0, 0}, 0, 0, 1, {0, 0, 0, 0, 0, 0, 0, 60, 0, 0}}}},
    /* window 50-80: GEMM 50-60, add 60-65, nothing 65-70, ADD 70-80 */
    {"no_step_markers_make_one_window_over_the_gpu_work",
     ev_no_steps,
     1,
     0,
     0,
     1,
     {{-1, 50, 30, {10, 10, 0, 0, 5, 5}, 0, 0, 2, {5, 0, 0, 0, 5, 0, 0, 10, 0, 0}}}},
    /* the kernel linked by External id 5 (20-50) and the GEMM launched inside c10d::allreduce_ (60-70) are
     * comm whatever their names; the two comm ops 0-10 and 50-60 are host work on the step thread */
    {"kernels_launched_by_collective_ops_are_comm_whatever_their_name",
     ev_comm_links,
     1,
     0,
     0,
     1,
     {{1, 0, 100, {0, 0, 40, 0, 20, 40}, 0, 0, 2, {20, 0, 0, 0, 40, 0, 0, 0, 40, 0}}}},
    /* add 10-30 holds a synchronize 12-15: 3 sync, 17 launch; the stray E and the unclosed B count for
     * nothing */
    {"begin_end_pairs_count_like_complete_events",
     ev_begin_end,
     1,
     0,
     0,
     1,
     {{1, 0, 100, {0, 0, 0, 0, 20, 80}, 0, 0, 0, {17, 0, 3, 0, 80, 0, 0, 0, 0, 0}}}},
    /* copy alone 0-10 (transfer), ADD 10-30 (kernels) */
    {"copies_are_memory_transfer_unless_a_memory_kernel_runs",
     ev_transfer,
     1,
     0,
     0,
     1,
     {{1, 0, 100, {0, 30, 0, 0, 0, 70}, 0, 10, 1, {0, 0, 0, 0, 70, 0, 10, 20, 0, 0}}}},
    {"each_device_has_its_own_split",
     ev_devices,
     2,
     1,
     1,
     1,
     {{1, 0, 100, {20, 0, 0, 0, 0, 80}, 0, 0, 1, {0, 0, 0, 0, 80, 0, 0, 0, 0, 0}}}},
    {"old_style_step_and_dataloader_operators_are_not_overhead",
     ev_old_style,
     1,
     0,
     0,
     1,
     {{5, 0, 100, {10, 0, 0, 30, 0, 60}, 0, 0, 1, {0, 0, 0, 0, 60, 0, 0, 0, 0, 0}}}},
    /* host-only with a gloo collective on another thread: DL 0-40, add 50-55 (launch), gloo 55-80 (host comm,
     * over the add's last 5), nothing 40-50 and 80-100 */
    {"host_collectives_make_a_host_only_trace_comm_on_the_host",
     ev_host_comm,
     1,
     0,
     -1,
     1,
     {{1, 0, 100, {0, 0, 25, 40, 5, 30}, 0, 0, 0, {5, 0, 0, 0, 30, 0, 0, 0, 0, 25}}}},
    {"gpu_profiler_step_annotation_is_not_a_step",
     ev_gpu_annotation,
     1,
     0,
     0,
     1,
     {{-1, 10, 10, {10, 0, 0, 0, 0, 0}, 0, 0, 1, {0}}}},
    /* the steps' thread's add 10-30 is launch; the other thread's mul 50-70 is host_threads */
    {"main_thread_is_the_one_recording_the_steps",
     ev_main_thread,
     1,
     0,
     0,
     1,
     {{3, 0, 100, {0, 0, 0, 0, 40, 60}, 0, 0, 0, {20, 20, 0, 0, 60, 0, 0, 0, 0, 0}}}},
    /* launch 0-5; GEMM 5-45; copy 45-50 (transfer); aten::item (blocking) holds the host to 70 with the GPU
     * idle 50-70: sync 20; nothing 70-100 */
    {"host_blocked_in_item_is_overhead_sync",
     ev_blocking_op,
     1,
     0,
     0,
     1,
     {{1, 0, 100, {40, 5, 0, 0, 25, 30}, 0, 5, 1, {5, 0, 20, 0, 30, 0, 5, 0, 0, 0}}}},
    /* hipMemcpyWithStream (a synchronous copy) 0-30: 0-20 and 25-30 are sync; its copy 20-25 is transfer */
    {"a_synchronous_copy_call_is_overhead_sync",
     ev_blocking_call,
     1,
     0,
     0,
     1,
     {{1, 0, 100, {0, 5, 0, 0, 25, 70}, 0, 5, 0, {0, 0, 25, 0, 70, 0, 5, 0, 0, 0}}}},
    /* cudaMalloc 0-60 (init), launch 60-62, GEMM 62-72, stream creation on another thread 80-85 (init too),
     * nothing 72-80 and 85-100 */
    {"allocation_and_stream_creation_are_overhead_init",
     ev_init,
     1,
     0,
     0,
     1,
     {{1, 0, 100, {10, 0, 0, 0, 67, 23}, 0, 0, 1, {2, 0, 0, 65, 23, 0, 0, 0, 0, 0}}}},
};

static ns_trace_event make_event(const ev_spec *s, long index)
{
	ns_trace_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.index = index;
	ev.offset = -1;
	ev.cat = s->cat;
	ev.ph = s->ph;
	ev.name.ptr = s->name;
	ev.name.len = strlen(s->name);
	ev.pid = s->cat == NS_TCAT_KERNEL || s->cat == NS_TCAT_MEMCPY || s->cat == NS_TCAT_MEMSET ? 0
	         : s->tid == FOREIGN_TID ? FOREIGN_PID
	                                 : MAIN_PID;
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

static void run_split(const ev_spec *evs, ns_split_result *res, ns_kernel_rules **rules)
{
	ns_trace_split *s;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_rules_default(rules, &err), NS_OK);
	s = ns_trace_split_new(*rules);
	ck_assert_ptr_nonnull(s);
	for (long i = 0; evs[i].name != NULL; i++) {
		ns_trace_event ev = make_event(&evs[i], i);
		ck_assert_int_eq(ns_trace_split_event(&ev, s, &err), NS_OK);
	}
	ck_assert_msg(ns_trace_split_finish(s, NULL, res, &err) == NS_OK, "%s", err.msg);
	ns_trace_split_free(s);
}

/* Splits ev and checks device 0's comm and compute time over the whole trace (ns). */
static void check_comm_compute(const ev_spec *ev, int64_t comm_ns, int64_t compute_ns)
{
	ns_kernel_rules *rules = NULL;
	ns_split_result res;

	run_split(ev, &res, &rules);
	ck_assert_int_eq(res.device[0].overall.bucket_ns[NS_REGIME_COMM], comm_ns);
	ck_assert_int_eq(res.device[0].overall.bucket_ns[NS_REGIME_COMPUTE], compute_ns);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}

/* Every split bucket is exactly the sum of its causes. */
static void check_causes_partition(const ns_split_window *w)
{
	int64_t sum[NS_REGIME_COUNT] = {0};

	for (int c = 0; c < NS_CAUSE_COUNT; c++)
		sum[ns_cause_bucket((ns_cause)c)] += w->cause_ns[c];
	ck_assert_int_eq(sum[NS_REGIME_OVERHEAD], w->bucket_ns[NS_REGIME_OVERHEAD]);
	ck_assert_int_eq(sum[NS_REGIME_IDLE], w->bucket_ns[NS_REGIME_IDLE]);
	ck_assert_int_eq(sum[NS_REGIME_MEMORY], w->bucket_ns[NS_REGIME_MEMORY]);
	ck_assert_int_eq(sum[NS_REGIME_COMM], w->bucket_ns[NS_REGIME_COMM]);
}

static void check_window(const char *name, size_t i, const ns_split_window *got, const want_window *want)
{
	int64_t sum = 0;

	ck_assert_msg(got->step == want->step, "%s[%zu]: step %lld", name, i, (long long)got->step);
	ck_assert_msg(got->start_ns == want->start * 1000, "%s[%zu]: start %lld", name, i,
	              (long long)got->start_ns);
	ck_assert_msg(got->dur_ns == want->dur * 1000, "%s[%zu]: dur %lld", name, i, (long long)got->dur_ns);
	for (int b = 0; b < NS_REGIME_COUNT; b++) {
		ck_assert_msg(got->bucket_ns[b] == want->b[b] * 1000, "%s[%zu]: %s %lld ns, want %lld us",
		              name, i, ns_regime_name((ns_regime)b), (long long)got->bucket_ns[b],
		              (long long)want->b[b]);
		sum += got->bucket_ns[b];
	}
	ck_assert_int_eq(sum, got->dur_ns);
	ck_assert_msg(got->comm_overlapped_ns == want->overlapped * 1000, "%s[%zu]: overlapped %lld", name, i,
	              (long long)got->comm_overlapped_ns);
	ck_assert_msg(got->cause_ns[NS_CAUSE_TRANSFER] == want->transfer * 1000, "%s[%zu]: transfer %lld",
	              name, i, (long long)got->cause_ns[NS_CAUSE_TRANSFER]);
	ck_assert_int_eq(got->cause_ns[NS_CAUSE_KERNELS] + got->cause_ns[NS_CAUSE_TRANSFER],
	                 got->bucket_ns[NS_REGIME_MEMORY]);
	if (want->kernels >= 0)
		ck_assert_msg(got->kernels == want->kernels, "%s[%zu]: %ld kernels", name, i, got->kernels);
	for (int c = 0; c < NS_CAUSE_COUNT; c++)
		ck_assert_msg(got->cause_ns[c] == want->c[c] * 1000,
		              "%s[%zu]: cause %s %lld ns, want %lld us", name, i, ns_cause_name((ns_cause)c),
		              (long long)got->cause_ns[c], (long long)want->c[c]);
	check_causes_partition(got);
}

START_TEST(split_table)
{
	const split_case *c = &cases[_i];
	ns_kernel_rules *rules = NULL;
	ns_split_result res;
	const ns_split_device *d;
	int64_t total = 0;

	run_split(c->ev, &res, &rules);
	ck_assert_msg(res.ndevices == c->ndevices, "%s: %zu devices", c->name, res.ndevices);
	d = &res.device[c->dev];
	ck_assert_msg(d->id == c->dev_id, "%s: device id %lld", c->name, (long long)d->id);
	ck_assert_msg(d->nsteps == c->nsteps, "%s: %zu steps", c->name, d->nsteps);
	for (size_t i = 0; i < d->nsteps; i++) {
		ns_split_window w = ns_split_device_step(d, i);
		check_window(c->name, i, &w, &c->w[i]);
		total += w.dur_ns;
	}
	ck_assert_int_eq(d->overall.dur_ns + d->warmup.dur_ns, total);
	ck_assert_int_eq(res.gpu_activity, c->dev_id >= 0);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

START_TEST(step_markers_count_the_main_threads_steps)
{
	static const ev_spec ev[] = {STEP(1, 0, 10), STEP(2, 10, 10), STEP(3, 20, 10), K(GEMM, 0, 5), END};
	ns_kernel_rules *rules = NULL;
	ns_split_result res;

	run_split(ev, &res, &rules);
	ck_assert(res.has_steps);
	ck_assert_uint_eq(res.step_markers, 3);
	ck_assert_uint_eq(res.device[0].nsteps, 3);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

START_TEST(top_kernels_sum_time_per_name_and_class_largest_first)
{
	static const ev_spec ev[] = {STEP(1, 0, 100), K(GEMM, 0, 10), K(ADD, 10, 30), K(GEMM, 50, 15), END};
	ns_kernel_rules *rules = NULL;
	ns_split_result res;
	const ns_split_device *d;

	run_split(ev, &res, &rules);
	d = &res.device[0];
	ck_assert_uint_eq(d->nkernel_time, 2);
	ck_assert_str_eq(ns_kernel_names_get(res.names, d->kernel_time[0].name_id), ADD);
	ck_assert_int_eq(d->kernel_time[0].ns, 30000);
	ck_assert_int_eq(d->kernel_time[1].cls, NS_KCLASS_COMPUTE);
	ck_assert_int_eq(d->kernel_time[1].ns, 25000);
	ck_assert_int_eq(d->kernel_time[1].count, 2);
	ck_assert_int_eq(d->class_ns[NS_KCLASS_COMPUTE], 25000);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

START_TEST(nothing_to_split_gives_no_devices)
{
	static const ev_spec ev[] = {{'X', NS_TCAT_FLOW, "ac2g", 1, 0, 0, NONE, NONE, NONE}, END};
	ns_kernel_rules *rules = NULL;
	ns_split_result res;

	run_split(ev, &res, &rules);
	ck_assert_uint_eq(res.ndevices, 0);
	ck_assert(!res.gpu_activity);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

START_TEST(kernels_launched_by_functional_collectives_and_vllm_all_reduce_are_comm)
{
	/* each op encloses the launch of a GEMM-named kernel (10 us): all three kernels are comm */
	static const ev_spec ev[] = {STEP(1, 0, 100),
	                             CPU("_c10d_functional::all_reduce", 0, 10),
	                             RT("cudaLaunchKernel", 2, 2, 1),
	                             K_CORR(GEMM, 10, 10, 1, NONE),
	                             CPU("vllm::all_reduce", 20, 10),
	                             RT("cudaLaunchKernel", 22, 2, 2),
	                             K_CORR(GEMM, 30, 10, 2, NONE),
	                             CPU("aten::mm", 40, 10),
	                             RT("cudaLaunchKernel", 42, 2, 3),
	                             K_CORR(GEMM, 50, 10, 3, NONE),
	                             END};

	check_comm_compute(ev, 20000, 10000); /* aten::mm's kernel */
}
END_TEST

START_TEST(launches_with_external_ids_past_32_bits_link_to_their_collective)
{
	/* the launches lie outside record_param_comms (0-10): only their External ids tie them to it. The
	 * first id past 32 bits is another op's, so its GEMM (20-30) stays compute; the second is the
	 * collective's, so its GEMM (40-50) is comm */
	static const ev_spec ev[] = {STEP(1, 0, 100),
	                             CPU_EXT("record_param_comms", 0, 10, INT64_C(5000000000)),
	                             RT_EXT("cudaLaunchKernel", 12, 2, 11, INT64_C(6000000000)),
	                             K_CORR(GEMM, 20, 10, 11, NONE),
	                             RT_EXT("cudaLaunchKernel", 15, 2, 12, INT64_C(5000000000)),
	                             K_CORR(GEMM, 40, 10, 12, NONE),
	                             END};

	check_comm_compute(ev, 10000, 10000);
}
END_TEST

START_TEST(kernels_out_of_launch_order_still_link_to_their_collectives)
{
	/* three collectives (ids 10, 30, 50, at 0-15) and seven launches after them, so only the External ids
	 * tie a launch to one; the kernels (10 us each, in time order) carry ids 50, 20, 10, 40, 30, 60, 10,
	 * so each search for a kernel's id starts after, before or at the last one's: the four of ids 10, 30
	 * and 50 are comm, the three others compute */
	static const ev_spec ev[] = {STEP(1, 0, 300),
	                             CPU_EXT("record_param_comms", 0, 4, 10),
	                             CPU_EXT("record_param_comms", 5, 4, 30),
	                             CPU_EXT("record_param_comms", 10, 4, 50),
	                             RT_EXT("cudaLaunchKernel", 20, 2, 1, 50),
	                             RT_EXT("cudaLaunchKernel", 23, 2, 2, 20),
	                             RT_EXT("cudaLaunchKernel", 26, 2, 3, 10),
	                             RT_EXT("cudaLaunchKernel", 29, 2, 4, 40),
	                             RT_EXT("cudaLaunchKernel", 32, 2, 5, 30),
	                             RT_EXT("cudaLaunchKernel", 35, 2, 6, 60),
	                             RT_EXT("cudaLaunchKernel", 38, 2, 7, 10),
	                             K_CORR(GEMM, 100, 10, 1, NONE),
	                             K_CORR(GEMM, 110, 10, 2, NONE),
	                             K_CORR(GEMM, 120, 10, 3, NONE),
	                             K_CORR(GEMM, 130, 10, 4, NONE),
	                             K_CORR(GEMM, 140, 10, 5, NONE),
	                             K_CORR(GEMM, 150, 10, 6, NONE),
	                             K_CORR(GEMM, 160, 10, 7, NONE),
	                             END};

	check_comm_compute(ev, 40000, 30000);
}
END_TEST

START_TEST(kernels_out_of_launch_order_still_link_to_their_collective_spans)
{
	/* two collective ops (0-8 and 45-60) and four launches, at 50, 10, 52 and 5: each kernel's search for
	 * its launch's time starts after or before the last one's; the kernels of the launches inside the
	 * ops (the first, third and fourth) are comm, the second's compute */
	static const ev_spec ev[] = {STEP(1, 0, 300),
	                             CPU("_c10d_functional::all_reduce", 0, 8),
	                             RT("cudaLaunchKernel", 5, 1, 4),
	                             RT("cudaLaunchKernel", 10, 2, 2),
	                             CPU("_c10d_functional::all_reduce", 45, 15),
	                             RT("cudaLaunchKernel", 50, 1, 1),
	                             RT("cudaLaunchKernel", 52, 1, 3),
	                             K_CORR(GEMM, 200, 10, 1, NONE),
	                             K_CORR(GEMM, 210, 10, 2, NONE),
	                             K_CORR(GEMM, 220, 10, 3, NONE),
	                             K_CORR(GEMM, 230, 10, 4, NONE),
	                             END};

	check_comm_compute(ev, 30000, 10000);
}
END_TEST

START_TEST(host_work_alone_gives_no_device_verdict)
{
	/* steps, a data loader and ops but no device work and no host collective: nothing to route */
	static const ev_spec ev[] = {STEP(1, 0, 100), DL(0, 40), CPU("aten::add", 50, 10), END};
	ns_kernel_rules *rules = NULL;
	ns_split_result res;

	run_split(ev, &res, &rules);
	ck_assert_uint_eq(res.ndevices, 0);
	ck_assert(!res.gpu_activity);
	ck_assert(!res.host_comm);
	ck_assert_uint_eq(res.step_markers, 1);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

/* Four 100 us steps; step 1 is 60 us of cudaMalloc with the GPU idle (mostly set-up): warm-up. */
static const ev_spec ev_warmup_init[] = {STEP(1, 0, 100),
                                         RT("cudaMalloc", 0, 60, NONE),
                                         STEP(2, 100, 100),
                                         STEP(3, 200, 100),
                                         STEP(4, 300, 100),
                                         K(GEMM, 100, 300),
                                         END};

START_TEST(a_step_that_is_mostly_set_up_is_warm_up_and_left_out)
{
	ns_kernel_rules *rules = NULL;
	ns_split_result res;
	const ns_split_device *d;

	run_split(ev_warmup_init, &res, &rules);
	d = &res.device[0];
	ck_assert(ns_split_device_step(d, 0).warmup);
	ck_assert(!ns_split_device_step(d, 1).warmup && !ns_split_device_step(d, 2).warmup &&
	          !ns_split_device_step(d, 3).warmup);
	ck_assert_uint_eq(d->nwarmup, 1);
	ck_assert_int_eq(d->warmup.dur_ns, 100000);
	ck_assert_int_eq(d->overall.dur_ns, 300000); /* steps 2-4 */
	ck_assert_int_eq(d->overall.start_ns, 100000);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

START_TEST(keep_warmup_counts_every_step)
{
	ns_kernel_rules *rules = NULL;
	ns_trace_split *s;
	ns_split_result res;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_rules_default(&rules, &err), NS_OK);
	s = ns_trace_split_new(rules);
	ns_trace_split_keep_warmup(s, true);
	for (long i = 0; ev_warmup_init[i].name != NULL; i++) {
		ns_trace_event e = make_event(&ev_warmup_init[i], i);
		ck_assert_int_eq(ns_trace_split_event(&e, s, &err), NS_OK);
	}
	ck_assert_int_eq(ns_trace_split_finish(s, NULL, &res, &err), NS_OK);
	ck_assert_int_eq(res.device[0].overall.dur_ns, 400000);
	ck_assert_int_eq(res.device[0].warmup.dur_ns, 0);
	ns_trace_split_free(s);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

START_TEST(a_slow_step_with_set_up_calls_is_warm_up)
{
	/* durations 300, 100, 100, 100: median 100, step 1 > 2 x 100 and holds a 5 us stream creation; a slow
	 * step without set-up (step 3 of the second trace) is not warm-up */
	static const ev_spec ev[] = {STEP(1, 0, 300),
	                             RT("cudaStreamCreate", 10, 5, NONE),
	                             STEP(2, 300, 100),
	                             STEP(3, 400, 100),
	                             STEP(4, 500, 100),
	                             K(GEMM, 20, 580),
	                             END};
	static const ev_spec ev_plain[] = {STEP(1, 0, 100),   STEP(2, 100, 100), STEP(3, 200, 300),
	                                   STEP(4, 500, 100), K(GEMM, 0, 600),   END};
	ns_kernel_rules *rules = NULL;
	ns_split_result res;

	run_split(ev, &res, &rules);
	ck_assert(ns_split_device_step(&res.device[0], 0).warmup);
	ck_assert_int_eq(res.device[0].overall.dur_ns, 300000);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
	run_split(ev_plain, &res, &rules);
	ck_assert_uint_eq(res.device[0].nwarmup, 0);
	ck_assert_int_eq(res.device[0].overall.dur_ns, 600000);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

START_TEST(a_step_less_trace_of_set_up_is_one_warm_up_window)
{
	/* window 0-100 over the kernels; cudaFree 10-80 with the GPU idle: init 70 of 100 */
	static const ev_spec ev[] = {K(GEMM, 0, 10), RT("cudaFree", 10, 70, NONE), K(GEMM, 90, 10), END};
	ns_kernel_rules *rules = NULL;
	ns_split_result res;

	run_split(ev, &res, &rules);
	ck_assert_uint_eq(res.device[0].nsteps, 1);
	ck_assert(ns_split_device_step(&res.device[0], 0).warmup);
	ck_assert_int_eq(res.device[0].overall.cause_ns[NS_CAUSE_INIT], 70000);
	ck_assert_int_eq(res.device[0].overall.dur_ns, 100000); /* all warm-up: nothing left out */
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

START_TEST(steps_sharing_a_start_time_are_counted_not_merged_silently)
{
	static const ev_spec ev[] = {STEP(1, 0, 100), STEP(1, 0, 40), STEP(2, 100, 100), K(GEMM, 0, 10), END};
	ns_kernel_rules *rules = NULL;
	ns_split_result res;

	run_split(ev, &res, &rules);
	ck_assert_uint_eq(res.duplicate_steps, 1);
	ck_assert_uint_eq(res.device[0].nsteps, 2);
	ck_assert_int_eq(ns_split_device_step(&res.device[0], 0).dur_ns,
	                 100000); /* the longest is the window */
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

START_TEST(a_kernel_whose_end_overflows_int64_is_kept_and_saturated)
{
	ns_kernel_rules *rules = NULL;
	ns_trace_split *s;
	ns_split_result res;
	ns_error err;
	ev_spec k = K(GEMM, 0, 0);
	ns_trace_event e = make_event(&k, 0);

	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_rules_default(&rules, &err), NS_OK);
	s = ns_trace_split_new(rules);
	e.ts_ns = INT64_MAX - 1000;
	e.dur_ns = 5000; /* ends past INT64_MAX */
	ck_assert_int_eq(ns_trace_split_event(&e, s, &err), NS_OK);
	ck_assert_int_eq(ns_trace_split_finish(s, NULL, &res, &err), NS_OK);
	ck_assert_uint_eq(res.ndevices, 1);
	ck_assert_int_eq(res.device[0].overall.dur_ns, 1000);
	ck_assert_int_eq(res.device[0].overall.bucket_ns[NS_REGIME_COMPUTE], 1000);
	ck_assert_int_eq(res.device[0].overall.kernels, 1);
	ns_trace_split_free(s);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

START_TEST(a_trace_longer_than_int64_nanoseconds_is_a_limit_error)
{
	static const ev_spec ev[] = {STEP(1, -9000000000000000, 1), STEP(2, 9000000000000000, 1),
	                             K(GEMM, 0, 10), END};
	ns_kernel_rules *rules = NULL;
	ns_trace_split *s;
	ns_split_result res;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_rules_default(&rules, &err), NS_OK);
	s = ns_trace_split_new(rules);
	for (long i = 0; ev[i].name != NULL; i++) {
		ns_trace_event e = make_event(&ev[i], i);
		ck_assert_int_eq(ns_trace_split_event(&e, s, &err), NS_OK);
	}
	ck_assert_int_eq(ns_trace_split_finish(s, NULL, &res, &err), NS_ERR_LIMIT);
	ck_assert_ptr_nonnull(strstr(err.msg, "spans more than"));
	ns_trace_split_free(s);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

START_TEST(events_without_a_name_are_split_by_their_category)
{
	static const ns_trace_category cats[] = {NS_TCAT_KERNEL, NS_TCAT_RUNTIME, NS_TCAT_CPU_OP,
	                                         NS_TCAT_USER_ANNOTATION};
	ns_kernel_rules *rules = NULL;
	ns_trace_split *s;
	ns_split_result res;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_rules_default(&rules, &err), NS_OK);
	s = ns_trace_split_new(rules);
	for (size_t i = 0; i < sizeof(cats) / sizeof(cats[0]); i++) {
		ev_spec spec = K(GEMM, 10 * (int64_t)i, 5);
		ns_trace_event ev = make_event(&spec, (long)i);
		ev.cat = cats[i];
		ev.name.ptr = NULL; /* "name" absent */
		ev.name.len = 0;
		ev.pid = cats[i] == NS_TCAT_KERNEL ? 0 : MAIN_PID;
		ck_assert_int_eq(ns_trace_split_event(&ev, s, &err), NS_OK);
	}
	ck_assert_int_eq(ns_trace_split_finish(s, NULL, &res, &err), NS_OK);
	ck_assert_uint_eq(res.ndevices, 1);
	ck_assert_str_eq(ns_kernel_names_get(res.names, 0), "");
	ck_assert_int_eq(res.device[0].overall.bucket_ns[NS_REGIME_MEMORY], 5000);
	ns_trace_split_free(s);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

START_TEST(window_profile_shares_are_bucket_over_duration)
{
	ns_split_window w;
	ns_profile p;

	memset(&w, 0, sizeof(w));
	w.dur_ns = 200;
	w.bucket_ns[NS_REGIME_COMPUTE] = 150;
	w.bucket_ns[NS_REGIME_IDLE] = 50;
	ns_split_window_profile(&w, &p);
	ck_assert_double_eq_tol(p.share[NS_REGIME_COMPUTE], 0.75, 1e-12);
	ck_assert_double_eq_tol(p.share[NS_REGIME_IDLE], 0.25, 1e-12);
	ck_assert(p.present[NS_REGIME_COMM]);
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
	R_ITEM,
	R_INIT,
	R_GLOO,
	R_FOREIGN,
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
	    {'X', NS_TCAT_CPU_OP, "aten::mm", OTHER_TID, 0, 0, NONE, NONE, NONE},
	    {'X', NS_TCAT_USER_ANNOTATION, "## forward ##", MAIN_TID, 0, 0, NONE, NONE, NONE},
	    CPU("aten::item", 0, 0),
	    RT("cudaMalloc", 0, 0, NONE),
	    {'X', NS_TCAT_USER_ANNOTATION, "gloo:all_reduce", OTHER_TID, 0, 0, NONE, NONE, NONE},
	    {'X', NS_TCAT_CPU_OP, "aten::mm", FOREIGN_TID, 0, 0, NONE, NONE, NONE},
	};
	*e = proto[next_random(rng) % R_KINDS];
	e->ts = next_random(rng) % (HORIZON - 10);
	e->dur = next_random(rng) % 30;
	if (e->ts + e->dur > HORIZON)
		e->dur = HORIZON - e->ts;
}

/* busy[k][t]: some event of kind k covers the slot [t, t + 1). */
typedef bool occupancy[R_KINDS][HORIZON];

static void fill_occupancy(const ev_spec *ev, size_t n, const ev_spec *proto, occupancy busy)
{
	memset(busy, 0, sizeof(occupancy));
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < R_KINDS; k++)
			if (ev[i].cat == proto[k].cat && ev[i].name == proto[k].name &&
			    ev[i].tid == proto[k].tid)
				for (int64_t t = ev[i].ts; t < ev[i].ts + ev[i].dur && t < HORIZON; t++)
					busy[k][t] = true;
}

/* The rules written out once more, slot by slot, for a window [a, b): GPU work first (compute, memory, comm),
 * then the data loader, host collectives, host work of the process (a blocking op or a synchronize makes it
 * sync, else set-up makes it init, else the step thread's work is launch and other threads' host_threads),
 * then idle (sync_wait inside a synchronize, else host_gap). A thread of another process counts for nothing.
 */
static void reference_window(occupancy busy, int64_t a, int64_t b, int64_t bucket[NS_REGIME_COUNT],
                             int64_t cause[NS_CAUSE_COUNT], int64_t *overlapped)
{
	memset(bucket, 0, NS_REGIME_COUNT * sizeof(*bucket));
	memset(cause, 0, NS_CAUSE_COUNT * sizeof(*cause));
	*overlapped = 0;
	for (int64_t t = a; t < b; t++) {
		bool on[R_KINDS];
		for (int k = 0; k < R_KINDS; k++)
			on[k] = busy[k][t];
		bool memory = on[R_MEMORY] || on[R_COPY];
		bool main_host = on[R_CPU] || on[R_RUNTIME] || on[R_ITEM] || on[R_INIT];
		bool host = main_host || on[R_OTHER_THREAD];
		int r = on[R_COMPUTE] ? NS_REGIME_COMPUTE
		        : memory      ? NS_REGIME_MEMORY
		        : on[R_COMM]  ? NS_REGIME_COMM
		        : on[R_DL]    ? NS_REGIME_DATALOADER
		        : on[R_GLOO]  ? NS_REGIME_COMM
		        : host        ? NS_REGIME_OVERHEAD
		                      : NS_REGIME_IDLE;
		int c = -1;
		if (r == NS_REGIME_MEMORY)
			c = on[R_MEMORY] ? NS_CAUSE_KERNELS : NS_CAUSE_TRANSFER;
		else if (r == NS_REGIME_COMM)
			c = on[R_COMM] ? NS_CAUSE_EXPOSED : NS_CAUSE_HOST_COMM;
		else if (r == NS_REGIME_OVERHEAD)
			c = on[R_ITEM] || on[R_SYNC] ? NS_CAUSE_SYNC
			    : on[R_INIT]             ? NS_CAUSE_INIT
			    : main_host              ? NS_CAUSE_LAUNCH
			                             : NS_CAUSE_HOST_THREADS;
		else if (r == NS_REGIME_IDLE)
			c = on[R_SYNC] ? NS_CAUSE_SYNC_WAIT : NS_CAUSE_HOST_GAP;
		bucket[r]++;
		if (c >= 0)
			cause[c]++;
		*overlapped += on[R_COMM] && (on[R_COMPUTE] || memory);
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
	    {'X', NS_TCAT_CPU_OP, "aten::mm", OTHER_TID, 0, 0, NONE, NONE, NONE},
	    {'X', NS_TCAT_USER_ANNOTATION, "## forward ##", MAIN_TID, 0, 0, NONE, NONE, NONE},
	    CPU("aten::item", 0, 0),
	    RT("cudaMalloc", 0, 0, NONE),
	    {'X', NS_TCAT_USER_ANNOTATION, "gloo:all_reduce", OTHER_TID, 0, 0, NONE, NONE, NONE},
	    {'X', NS_TCAT_CPU_OP, "aten::mm", FOREIGN_TID, 0, 0, NONE, NONE, NONE},
	};
	static const int64_t edge[] = {0, 60, 120, HORIZON};
	uint32_t rng = 12345u + (uint32_t)seed * 7919u;
	static occupancy busy;
	ev_spec ev[RANDOM_EVENTS + 5];
	size_t n = 0;
	ns_kernel_rules *rules = NULL;
	ns_split_result res;

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
	fill_occupancy(ev, n, proto, busy);
	run_split(ev, &res, &rules);
	ck_assert_uint_eq(res.ndevices, 1);
	ck_assert_uint_eq(res.device[0].nsteps, 3);
	for (size_t w = 0; w < 3; w++) {
		const ns_split_window got_copy = ns_split_device_step(&res.device[0], w), *got = &got_copy;
		int64_t want[NS_REGIME_COUNT], cause[NS_CAUSE_COUNT], overlapped;
		reference_window(busy, edge[w], edge[w + 1], want, cause, &overlapped);
		ck_assert_int_eq(got->dur_ns, (edge[w + 1] - edge[w]) * 1000);
		for (int b = 0; b < NS_REGIME_COUNT; b++)
			ck_assert_msg(got->bucket_ns[b] == want[b] * 1000,
			              "trace %d window %zu: %s %lld ns, reference %lld us", seed, w,
			              ns_regime_name((ns_regime)b), (long long)got->bucket_ns[b],
			              (long long)want[b]);
		for (int c = 0; c < NS_CAUSE_COUNT; c++)
			ck_assert_msg(got->cause_ns[c] == cause[c] * 1000,
			              "trace %d window %zu: cause %s %lld ns, reference %lld us", seed, w,
			              ns_cause_name((ns_cause)c), (long long)got->cause_ns[c],
			              (long long)cause[c]);
		ck_assert_int_eq(got->comm_overlapped_ns, overlapped * 1000);
	}
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
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
	tcase_add_test(tc, host_work_alone_gives_no_device_verdict);
	tcase_add_test(tc, kernels_launched_by_functional_collectives_and_vllm_all_reduce_are_comm);
	tcase_add_test(tc, launches_with_external_ids_past_32_bits_link_to_their_collective);
	tcase_add_test(tc, kernels_out_of_launch_order_still_link_to_their_collectives);
	tcase_add_test(tc, kernels_out_of_launch_order_still_link_to_their_collective_spans);
	tcase_add_test(tc, a_step_that_is_mostly_set_up_is_warm_up_and_left_out);
	tcase_add_test(tc, keep_warmup_counts_every_step);
	tcase_add_test(tc, a_slow_step_with_set_up_calls_is_warm_up);
	tcase_add_test(tc, a_step_less_trace_of_set_up_is_one_warm_up_window);
	tcase_add_test(tc, steps_sharing_a_start_time_are_counted_not_merged_silently);
	tcase_add_test(tc, a_kernel_whose_end_overflows_int64_is_kept_and_saturated);
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
