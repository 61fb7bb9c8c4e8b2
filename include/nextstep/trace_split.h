/* The trace split: trace events in, per-step and per-device bucket times out.
 *
 * Feed every traceEvents element to ns_trace_split_event() (it is a ns_trace_event_fn), then call
 * ns_trace_split_finish(). Only compact records are kept while reading (GPU activity, launches, merged host
 * spans), a few dozen bytes per GPU event; names are interned. The rules are documented in the README. */
#ifndef NEXTSTEP_TRACE_SPLIT_H
#define NEXTSTEP_TRACE_SPLIT_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/trace_split.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nextstep/api.h"
#include "nextstep/cause.h"
#include "nextstep/error.h"
#include "nextstep/kernel_names.h"
#include "nextstep/kernel_rules.h"
#include "nextstep/profile.h"
#include "nextstep/regime.h"
#include "nextstep/trace_kernels.h"
#include "nextstep/trace_read.h"

NS_BEGIN_DECLS

/* Bytes kept of an unknown device category's name (ns_split_result.unknown_device_cat), NUL included; bytes
 * that are not UTF-8 are replaced (U+FFFD). */
#define NS_SPLIT_UNKNOWN_CAT_MAX 48
/* Open B events per thread waiting for their E. */
#define NS_SPLIT_MAX_OPEN_SPANS 4096
/* Distinct host threads (pid, tid). */
#define NS_SPLIT_MAX_THREADS 65536

/* Where the steps came from, in the order they are tried (docs/trace.md, "Steps"). */
typedef enum ns_step_source {
	NS_STEP_SOURCE_NONE,         /* no steps: the whole trace is one window */
	NS_STEP_SOURCE_PROFILER,     /* ProfilerStep# spans on the host */
	NS_STEP_SOURCE_GPU_PROFILER, /* ProfilerStep# annotations on the GPU timeline (gpu_user_annotation) */
	NS_STEP_SOURCE_SERVER, /* inference-server iteration markers (vLLM execute_*, SGLang step[...]) */
	NS_STEP_SOURCE_MARKER, /* user annotations matching the caller's step marker (ns_step_marker_new) */
	NS_STEP_SOURCE_PERIOD, /* a repeating sequence of kernels (step_period.h) */
	NS_STEP_SOURCE_COUNT
} ns_step_source;

/* The phase of an inference iteration, where its marker says it. */
typedef enum {
	NS_STEP_PHASE_NONE,
	NS_STEP_PHASE_PREFILL,
	NS_STEP_PHASE_DECODE,
	NS_STEP_PHASE_MIXED,
	NS_STEP_PHASE_COUNT
} ns_step_phase;

/* "profiler_step", "gpu_profiler_step", "server", "marker", "period", "none" (the JSON words). */
NS_STATIC_API const char *ns_step_source_name(ns_step_source s);
/* "prefill", "decode", "mixed"; NULL for NS_STEP_PHASE_NONE. */
NS_STATIC_API const char *ns_step_phase_name(ns_step_phase p);

/* A compiled --step-marker regex (PCRE2, under the kernel rules' match, depth and heap limits). */
typedef struct ns_step_marker ns_step_marker;
/* NULL with err set (NS_ERR_VALUE: the regex does not compile; NS_ERR_NOMEM). */
NS_STATIC_API ns_step_marker *ns_step_marker_new(const char *regex, ns_error *err);
NS_STATIC_API void ns_step_marker_free(ns_step_marker *m);

/* One window: a step (or the whole trace) on one device. Times are exact integer nanoseconds. A device keeps
 * one window per step, so the fields are ordered and sized to keep it at 224 bytes (a million steps: 224 MB):
 * the memory bucket's two parts are its causes (cause_ns[NS_CAUSE_KERNELS], cause_ns[NS_CAUSE_TRANSFER]), and
 * the graph counts saturate at UINT32_MAX. */
typedef struct {
	int64_t step;     /* ProfilerStep number; -1 for the whole-trace window and for "overall" */
	int64_t start_ns; /* window start (overall: start of the first window) */
	int64_t dur_ns;   /* window length (overall: sum of the windows) */
	int64_t bucket_ns[NS_REGIME_COUNT]; /* sums to dur_ns */
	int64_t comm_overlapped_ns;         /* comm kernels running under compute or memory: not in comm */
	int64_t kernel_ns; /* time with at least one kernel running (GPU-Util's numerator); -1 unknown (a
	                    * summary written before it was kept) */
	int64_t cause_ns[NS_CAUSE_COUNT]; /* each split bucket's causes sum to it (cause.h) */
	long kernels;                     /* kernels starting in the window */
	int64_t graph_ns;                 /* kernel time of the graph replays below, clipped to the window */
	uint32_t graph_launches;          /* CUDA/HIP graph replays whose first kernel starts in the window */
	uint32_t graph_kernels; /* kernels of graph replays starting in the window (in kernels too) */
	uint32_t
	    marker; /* name id (ns_split_result.names) of the event that defined the step; UINT32_MAX: none */
	uint8_t phase; /* ns_step_phase of the step (NS_STEP_PHASE_NONE when its marker does not say) */
	bool warmup;   /* mostly set-up, or > 2x the median step with set-up calls in it (docs/trace.md) */
} ns_split_window;

/* Python frames kept behind each host cause (docs/trace.md, "The Python behind host time"). */
#define NS_SPLIT_PYTHON_TOP 5
/* Frames kept over the whole trace (24 bytes each); more are counted in python_dropped, not kept. */
#define NS_SPLIT_PYTHON_MAX_FRAMES (1u << 22)

/* One Python frame's self time behind a host cause: name_id indexes ns_split_result.python_names. */
typedef struct {
	uint32_t name_id;
	int64_t ns;
} ns_split_python_frame;

/* The Python behind one host cause of a device's overall window. */
typedef struct {
	ns_split_python_frame top[NS_SPLIT_PYTHON_TOP]; /* largest first */
	size_t ntop;
	int64_t framed_ns; /* the cause's time with some frame open (the rest ran outside recorded Python) */
} ns_split_python_cause;

/* The op name of the step thread's slow calls (docs/trace.md, "A slow host op": calls of at least 200 us,
 * each counted where it is the innermost such call) that holds the most of a device's launch time. */
typedef struct {
	uint32_t name_id; /* in ns_split_result.host_op_names */
	int64_t idle_ns; /* of overall's launch time (GPU idle, the step thread in an op), the time inside it;
	                    0: no slow call holds any */
	int64_t calls;   /* its slow calls in the windows of overall */
	int64_t host_ns; /* their host time, less the slow calls nested in them */
	int64_t launches; /* the launch calls made inside that time (kernels, copies, graphs) */
} ns_split_host_op;

/* Longest optimizer class name kept, NUL included (longer names are cut; control characters escaped and
 * bytes that are not UTF-8 replaced, as ns_text_escape() does). */
#define NS_SPLIT_OPTIMIZER_NAME_MAX 48

/* The passes of a training step (docs/trace.md, "Phases"): where the host is, by the markers it records. */
typedef enum { NS_PASS_FORWARD, NS_PASS_BACKWARD, NS_PASS_OPTIMIZER, NS_PASS_COUNT } ns_split_pass;

/* A window's host time in each pass; the rest of the window is in none of them. */
typedef struct {
	int64_t ns[NS_PASS_COUNT];
} ns_split_pass_time;

/* Time of one kernel (or memcpy/memset) name in one class on one device, inside the windows. */
typedef struct {
	uint32_t name_id;
	ns_kernel_class cls;
	int64_t ns;
	long count;
} ns_split_kernel_time;

/* A collective's exposed time (comm running alone on its device) as at most NS_SPLIT_COLL_PIECES pieces in
 * time order, so that the exposed time inside any [a, b) can be computed: a piece with ns == end - start is
 * exact; when a collective has more pieces, the last one is the hull of the rest with their total in ns
 * (spread evenly over it when intersected). */
#define NS_SPLIT_COLL_PIECES 4
#define NS_SPLIT_COLL_TEXT   32 /* names kept per collective, truncated */
typedef struct {
	int64_t start_ns, end_ns, ns;
} ns_split_piece;

/* What a collective moves (docs/trace.md, "Which collectives"), from its process group's description (PyTorch
 * >= 2.4 records it: DeviceMesh's "mesh_tp", Megatron's "TENSOR_MODEL_PARALLEL_GROUP") or, without one, its
 * place: an all-reduce launched inside the forward pass reduces activations, not gradients. */
typedef enum {
	NS_COLL_ROLE_UNKNOWN,
	NS_COLL_ROLE_TP,    /* tensor-parallel activations (and their gradients in backward) */
	NS_COLL_ROLE_DP,    /* data-parallel (DDP, FSDP, HSDP): gradients and parameter shards */
	NS_COLL_ROLE_OTHER, /* pipeline, context, expert parallelism */
	NS_COLL_ROLE_COUNT
} ns_coll_role;

/* One collective kernel on one device, in start order (issue 12: the timeline a job is matched on). */
typedef struct {
	int64_t start_ns, end_ns;
	int64_t step;                   /* step number of the window it starts in; -1 outside every step */
	int64_t seq;                    /* the profiler's "Seq" of the collective, -1 when absent */
	int64_t in_nelems, out_nelems;  /* message sizes in elements, -1 when absent */
	int64_t exposed_ns;             /* time running alone: sum of the pieces */
	char name[NS_SPLIT_COLL_TEXT];  /* "Collective name" ("allreduce"), "" when absent */
	char group[NS_SPLIT_COLL_TEXT]; /* "Process Group Name", "" when absent */
	char dtype[NS_SPLIT_COLL_TEXT / 2]; /* "dtype", "" when absent */
	ns_split_piece piece[NS_SPLIT_COLL_PIECES];
	uint8_t npieces;
	uint8_t role;  /* ns_coll_role */
	bool by_place; /* role TP from its place (an all-reduce launched in the forward pass), no description
	                */
} ns_split_collective;

/* The median step of a device drawn at a fixed resolution (issue 14: the HTML report's timeline strip): for
 * each GPU stream and busy host thread, the share of each pixel's time spent in each class. Its size is fixed
 * whatever the trace: rows past the limits are merged into one "other" row of their kind. Built only when
 * asked for (ns_trace_split_want_timeline). */
#define NS_SPLIT_TIMELINE_PX        300
#define NS_SPLIT_TIMELINE_GPU_ROWS  12
#define NS_SPLIT_TIMELINE_HOST_ROWS 6
#define NS_SPLIT_TIMELINE_CLASSES   4
#define NS_SPLIT_TIMELINE_FULL      65535 /* a class filling the whole pixel */
/* Classes of a host row (a GPU row's are ns_kernel_class, then memcpy/memset transfers as 3). */
enum { NS_TIMELINE_HOST_CPU, NS_TIMELINE_HOST_DATALOADER, NS_TIMELINE_HOST_SYNC, NS_TIMELINE_HOST_COMM };
/* Bytes of a thread's name kept from the trace's thread_name metadata, NUL included. */
#define NS_SPLIT_THREAD_NAME_MAX 64
typedef struct {
	bool host;       /* a host thread, else a GPU stream */
	bool merged;     /* the rows past the limit of its kind, together */
	int64_t pid, id; /* host: process and thread id; GPU: -1 and the stream id (-1 unknown) */
	/* host: the name the trace gives the thread (thread_name metadata; "" when none), as UTF-8 */
	char name[NS_SPLIT_THREAD_NAME_MAX];
	int64_t busy_ns; /* class time in the window, summed */
	/* the share of each pixel each class fills, NS_SPLIT_TIMELINE_FULL = all of it */
	uint16_t frac[NS_SPLIT_TIMELINE_PX][NS_SPLIT_TIMELINE_CLASSES];
} ns_split_timeline_row;
typedef struct {
	int64_t step; /* the step drawn (-1: the whole-trace window) */
	int64_t start_ns, dur_ns;
	size_t nrows; /* GPU rows first, by busy time, then the busiest host threads in the trace's
	                 thread_sort_index order (by busy time where it gives none) */
	ns_split_timeline_row row[NS_SPLIT_TIMELINE_GPU_ROWS + NS_SPLIT_TIMELINE_HOST_ROWS + 2];
} ns_split_timeline;

/* profile_memory's allocator events on one device (docs/trace.md, "Memory"). Samples kept over the whole
 * trace (16 bytes each) for the steps' floor; past this many the peaks are still known, the floor is not. */
#define NS_SPLIT_MEMORY_SAMPLES_MAX (1u << 21)
typedef struct {
	long events;            /* "[memory]" events of this device; 0: none recorded */
	bool totals;            /* every one carries "Total Allocated": absolute amounts. false: only each
	                         * allocation's signed "Bytes", so every amount is relative to what was allocated
	                         * when the capture started (unknown) */
	int64_t peak_allocated; /* the most allocated at once (without totals: above the capture's start) */
	int64_t peak_reserved;  /* the most the caching allocator held from the device; -1 without totals */
	int64_t step_floor; /* the least allocated inside the counted steps: what stays across steps (weights,
	                     * gradients, optimizer state); INT64_MIN when no event falls in a counted step */
	int64_t step_peak;  /* the most allocated inside the counted steps; INT64_MIN as step_floor */
	int64_t device_bytes; /* deviceProperties' totalGlobalMem; 0 unknown */
	bool samples_dropped; /* more than NS_SPLIT_MEMORY_SAMPLES_MAX events: the steps' floor and peak
	                       * unknown
	                       */
} ns_split_memory;

/* The windows of every device of a result (split_store.c). A million steps of windows is 224 MB per device,
 * so they are not one array: they are kept in chunks, and past a few megabytes of chunks, when the caller
 * named a directory (ns_trace_split_spill_dir), the chunks not in use wait in an unlinked temporary file
 * there. Read a device's windows with ns_split_device_step(). */
typedef struct ns_split_store ns_split_store;

typedef struct {
	int64_t id;                          /* args.device (else the GPU pid); -1 for the host-only split */
	char name[NS_TRACE_DEVICE_NAME_MAX]; /* from deviceProperties, "" when unknown */
	ns_split_store *store; /* the result's; the device's windows are first .. first + nsteps - 1 */
	size_t first;
	size_t nsteps;                     /* windows, in time order (ns_split_device_step) */
	ns_split_window overall;           /* sum over the windows, warm-up steps left out (unless all are) */
	ns_split_window warmup;            /* sum over the warm-up steps left out of overall (dur 0: none) */
	size_t nwarmup;                    /* steps in warmup */
	ns_split_kernel_time *kernel_time; /* per (name, class) with time > 0, largest first */
	size_t nkernel_time;
	int64_t class_ns[NS_KCLASS_COUNT]; /* summed kernel time per class inside the windows */
	int64_t transfer_ns;               /* of class_ns[NS_KCLASS_MEMORY], the copies' and memsets' */
	ns_split_collective *coll;         /* collective kernels in start order (split_collectives.c) */
	size_t ncoll;

	/* The Python behind each host cause of overall (host causes only; empty without frames). */
	ns_split_python_cause python[NS_CAUSE_COUNT];
	ns_split_timeline *timeline; /* the median step in pixels (split_timeline.c); NULL unless asked for */
	ns_split_window
	    phase_sum[NS_STEP_PHASE_COUNT];      /* per phase, the steps of overall summed (dur 0: none) */
	size_t phase_steps[NS_STEP_PHASE_COUNT]; /* how many steps each phase_sum holds */
	long outside_gpu;       /* GPU events launched outside every step, left out of every window */
	int64_t outside_gpu_ns; /* their summed duration */
	long small_m_gemms; /* GEMMs of decode iterations of at most 64 tokens (rows), counted as memory: they
	                       read their weights (docs/trace.md, "Inference") */
	int64_t small_m_gemm_ns; /* their summed duration */
	long shape_memory_gemms; /* GEMM kernels of ops whose recorded shapes make them memory-bound on every
	                            device (ns_op_gemm_memory_bound), counted as memory (docs/trace.md) */
	int64_t shape_memory_gemm_ns;  /* their summed duration */
	double shape_memory_intensity; /* the most FLOPs per byte of such an op in the trace */

	/* The passes summed over the windows in overall (all zero when the trace marks none). */
	ns_split_pass_time passes;
	/* Of overall's launch time (overhead.launch), the part while the main thread is in the optimizer's
	 * step: its per-tensor launches (docs/next-step.md); 0 when the trace marks no optimizer step. */
	int64_t optimizer_launch_ns;
	/* Of the trace's host stalls (ns_split_result.host_stall_ns, the whole capture), the time this device
	 * ran nothing (no kernel, copy, memset or collective on any of its streams): what the stalls cost it.
	 * A launch blocked by a full queue runs under busy kernels and costs nothing (docs/trace.md, "Host
	 * stalls"). */
	int64_t host_stall_idle_ns;
	/* Per window (nsteps), the host stalls' time inside it: the job compares a straggler's stalls with
	 * its excess step by step (docs/job.md, "Why a rank is slow"). NULL when the trace has no stall. */
	int64_t *step_stall_ns;
	ns_split_host_op host_op; /* the slow host op behind most of overall's launch time */
	ns_split_memory memory;   /* the allocator's events (events 0: none) */
} ns_split_device;

/* Trace quality (docs/trace.md, "Trace quality"): what in the capture limits how far its split can be
 * trusted. Each problem has a grade of its own; the trace's grade is the worst of them. */
typedef enum { NS_QUALITY_GOOD, NS_QUALITY_DEGRADED, NS_QUALITY_UNFIT } ns_quality_grade;

typedef enum {
	NS_QP_TRUNCATED,          /* the file ends early: a capture cut off (a killed job, a full disk) */
	NS_QP_NO_DEVICE_ACTIVITY, /* nothing ran on a device (or none of it was recorded) */
	NS_QP_LAUNCH_WITHOUT_ACTIVITY, /* launch calls whose GPU work is missing: dropped device events */
	NS_QP_ACTIVITY_WITHOUT_LAUNCH, /* GPU work whose launch call is missing: dropped host events */
	NS_QP_MISSING_OPS, /* holes in the ops' ids: the trace was filtered or sampled after capture */
	NS_QP_GRAPH_REPLAYS_MISSING, /* graph launches with no recorded kernel */
	NS_QP_GRAPH_REPLAY_MISMATCH, /* graph replays with another kernel count than the others of their size
	                              */
	NS_QP_CONCENTRATED_STEPS,    /* the GPU work of the capture lies in a few of its steps */
	NS_QP_STREAM_OVERLAP,    /* GPU records overlapping on one stream (impossible in-order execution) */
	NS_QP_DUPLICATE_EVENTS,  /* the same GPU record twice */
	NS_QP_OUT_OF_ORDER,      /* an E before its B or without one; GPU work starting before its launch */
	NS_QP_CUT_SHORT,         /* a span or step without its end; GPU work past the capture's end */
	NS_QP_PROFILER_OVERHEAD, /* host time of a dispatch-bound trace inflated by with_stack/record_shapes
	                          */
	NS_QP_UNEQUAL_STEPS, /* steps an order of magnitude apart in length: not one loop's steady state */
	NS_QP_SINGLE_STEP,   /* one step counts: nothing to say whether it is typical (a note) */
	NS_QP_LITTLE_DEVICE_WORK, /* a sliver of device work in much host activity: no verdict on it */
	NS_QP_ATYPICAL_WAIT,      /* steps that are mostly the host waiting on something outside the device */
	NS_QP_QUEUED_BEFORE_CAPTURE, /* GPU work launched before the profiler started: the device ran behind
	                             (a note) */
	NS_QP_COUNT
} ns_quality_kind;

typedef struct {
	long count;             /* 0: not found */
	long of;                /* the population count is out of (launches, records, steps, ...) */
	int64_t ns;             /* the time it implies (estimated where said: docs/trace.md) */
	double share;           /* ns as a share of the device time it is compared with */
	long aux;               /* kind-specific: steps holding 90% of GPU time; kernels per replay; ... */
	ns_quality_grade grade; /* what it does to the trace's grade */
} ns_quality_problem;

typedef struct {
	ns_quality_grade grade; /* the worst problem's grade */
	ns_quality_problem problem[NS_QP_COUNT];
	long graph_launches;              /* graph launch calls with recorded kernels (replays) */
	long graph_kernels;               /* kernels of those replays */
	int64_t graph_ns;                 /* their summed kernel time */
	int64_t gpu_ns;                   /* summed time of every GPU record (the share's denominator) */
	int64_t step_min_ns, step_max_ns; /* NS_QP_UNEQUAL_STEPS: the shortest and longest counted step */
	long long truncated_at;           /* NS_QP_TRUNCATED: the decompressed byte where the file ended */
	bool truncated_lost_activity;     /* ... before the device activity ended (unfit: docs/trace.md) */
	int64_t busy_ns;                  /* NS_QP_LITTLE_DEVICE_WORK: the busiest device's work */
	int64_t host_span_ns;             /* ... the profiled process's host activity */
	int64_t queued_lag_ns; /* NS_QP_QUEUED_BEFORE_CAPTURE: how far that work ran past the first launch */
	bool nsys; /* an Nsight Systems capture: the advice on what to capture names nsys's options */
} ns_split_quality;

/* "good", "degraded", "unfit"; "launch_without_activity", ... (the JSON names). */
NS_STATIC_API const char *ns_quality_grade_name(ns_quality_grade g);
NS_STATIC_API const char *ns_quality_kind_name(ns_quality_kind k);

/* The result. Owns everything; free with ns_split_result_free(). */
typedef struct {
	ns_split_device *device;
	size_t ndevices;
	bool gpu_activity;   /* false: device[0] is the host-only split of host collectives (or ndevices is 0:
	                      * no device activity and no host communication, nothing to route) */
	bool has_steps;      /* steps were found (ns_step_source says where from) */
	size_t step_markers; /* the steps' markers on the main thread (ProfilerStep# spans, ...; period: 0) */
	size_t duplicate_steps;  /* steps sharing a start time with another (the longest is kept) */
	size_t unnumbered_steps; /* ProfilerStep# steps whose marker gives no number (#-1, #1e5): step -1 */
	size_t host_threads;     /* threads of the profiled process with host activity */
	bool host_comm;          /* host-side collectives (gloo) were found */
	bool has_rank;
	int64_t rank;
	int64_t world_size;     /* distributedInfo.world_size, 0 when absent */
	long events;            /* trace events seen */
	ns_kernel_names *names; /* owned */
	ns_split_store *store;  /* owned: every device's windows */

	/* python_function frames: their names (owned; NULL when none were kept), how many were kept (0: none,
	 * or only built-ins), and how many were not (over NS_SPLIT_PYTHON_MAX_FRAMES or the name table's
	 * limits). */
	ns_kernel_names *python_names;
	size_t python_frames;
	size_t python_dropped;
	/* The names of the devices' host_op (owned; NULL when no device has one). */
	ns_kernel_names *host_op_names;
	/* The trace ran code compiled by torch.compile: a "Torch-Compiled Region: N/M" annotation (Dynamo's
	 * frame) or an AOTAutograd "CompiledFunction" op. Its launch and Python advice differs
	 * (docs/trace.md). */
	bool compiled;
	/* Stream captures (CUDA/HIP graphs being recorded: cudaStreamBeginCapture ... EndCapture): how many,
	 * their host time (set-up, in the init cause), and the launches inside them, which record into the
	 * graph and leave no GPU record by design (not launch_without_activity). */
	size_t graph_captures;
	int64_t capture_ns;
	long captured_launches;
	/* Kernel launch calls that held a first-use load (docs/trace.md, "first-use loads"): counted as
	 * set-up. */
	size_t first_use_loads;
	int64_t first_use_ns;
	/* Calls that take microseconds (kernel launches that are not first-use loads, event records,
	 * aten::empty and other metadata ops) held for at least 1 ms and 50 times the median launch by
	 * something other than a nested allocator or set-up call: the host stalled (descheduled, a GC pause,
	 * a full launch queue). Only the stalled part counts. The job compares them across ranks (host
	 * jitter, docs/job.md). */
	int64_t host_stalls;
	int64_t host_stall_ns;
	/* The device-memory allocator's runtime calls (cudaMalloc, cudaFree, cuMemCreate/Map, hipMalloc, ...)
	 * and their time: the caching allocator missed its cache or released it. The job tells a rank slow in
	 * them from host jitter (docs/job.md). */
	int64_t alloc_calls;
	int64_t alloc_ns;
	ns_split_quality quality; /* how far the split can be trusted */

	/* where the steps came from ("enum": in C++ the field's name hides the type's) */
	enum ns_step_source ns_step_source;
	size_t ignored_step_markers; /* step markers of processes that launched no device work, ignored */
	int64_t ignored_step_pid;    /* the first such process */
	ns_kernel_names
	    *marker_names; /* owned: the names of server and --step-marker markers (ns_split_window.marker) */
	/* Each window's passes, in window order (the same windows on every device); NULL when the profiled
	 * process marks no forward, backward or optimizer pass. */
	ns_split_pass_time *passes;
	/* Which passes the profiled process marks at all: an unmarked pass's time is not 0, it is unknown (in
	 * "other"), and the reports say "not marked". */
	bool pass_marked[NS_PASS_COUNT];
	/* The optimizer: of the Optimizer.step#<Class>.step / Optimizer.zero_grad#<Class>.zero_grad markers
	 * of the step process (the main thread's), the class that holds the most time ("" when none), and
	 * whether a fused optimizer op ran in that process (aten::_fused_adam_, _fused_adamw_, _fused_sgd_,
	 * _fused_adagrad_): its fix depends on both. */
	char optimizer[NS_SPLIT_OPTIMIZER_NAME_MAX];
	size_t optimizer_classes; /* classes the step process's markers name (the most time picks one) */
	bool optimizer_fused;

	/* Events of a category nextstep does not know that name a device (args.device): device work of a kind
	 * it cannot analyse. With no device split, the report names the first such category and declines. */
	char unknown_device_cat[NS_SPLIT_UNKNOWN_CAT_MAX];
	long unknown_device_events;

	/* Read from an Nsight Systems export (ns_trace_meta.nsys), and its schema version: such a capture has
	 * no Python frames, and ops only where PyTorch's emit_nvtx wrote them (nsys_ops NVTX ranges read as
	 * ops). */
	bool nsys;
	char nsys_schema[32];
	long nsys_ops;
	ns_program_info program; /* what the export says of the profiled program (ns_trace_meta.program) */
} ns_split_result;

typedef struct ns_trace_split ns_trace_split;

/* rules is borrowed and must outlive the splitter. NULL on OOM. */
NS_STATIC_API ns_trace_split *ns_trace_split_new(const ns_kernel_rules *rules);
/* Whether warm-up steps count in the overall window (default false: they are summed apart). */
NS_STATIC_API void ns_trace_split_keep_warmup(ns_trace_split *s, bool keep);
/* Whether each device gets its median step's timeline (default false: it costs a pass over the records). */
NS_STATIC_API void ns_trace_split_want_timeline(ns_trace_split *s, bool want);
/* Steps from user annotations matching m (borrowed; must outlive the splitter), ahead of the other sources.
 * One ns_step_marker may serve splitters on several threads: each has match data of its own. False on OOM. */
NS_STATIC_API bool ns_trace_split_step_marker(ns_trace_split *s, const ns_step_marker *m);
/* The ns_trace_event_fn: ctx is the ns_trace_split. */
NS_STATIC_API ns_status ns_trace_split_event(const ns_trace_event *ev, void *ctx, ns_error *err);
/* Where the windows may wait when they do not fit in memory (ns_split_store): a directory, copied; NULL (the
 * default) keeps them all in memory. False on OOM. */
NS_STATIC_API bool ns_trace_split_spill_dir(ns_trace_split *s, const char *dir);
/* Builds the windows and sweeps them. meta may be NULL (no device names, no rank). The splitter can only be
 * freed afterwards. */
NS_STATIC_API ns_status ns_trace_split_finish(ns_trace_split *s, const ns_trace_meta *meta,
                                              ns_split_result *res, ns_error *err);
NS_STATIC_API void ns_trace_split_free(ns_trace_split *s);
NS_STATIC_API void ns_split_result_free(ns_split_result *res);

/* Window i (i < d->nsteps) of device d, a copy. A window that cannot be read back from the temporary file
 * (an I/O error, or no memory for its chunk) comes back zeroed with step -1, and
 * ns_split_result_steps_status() says what went wrong. */
NS_STATIC_API ns_split_window ns_split_device_step(const ns_split_device *d, size_t i);
/* For a result assembled by hand (tests): d's windows become copies of w[0..n), kept in res->store (made on
 * first use; ns_split_result_free_store() frees it, as ns_split_result_free() does). */
NS_STATIC_API ns_status ns_split_device_set_steps(ns_split_result *res, ns_split_device *d,
                                                  const ns_split_window *w, size_t n, ns_error *err);
NS_STATIC_API void ns_split_result_free_store(ns_split_result *res);
/* NS_OK, or the first error met keeping or reading back the windows since the split (NS_ERR_IO,
 * NS_ERR_NOMEM). A report checks it once it has read the windows. */
NS_STATIC_API ns_status ns_split_result_steps_status(const ns_split_result *res, ns_error *err);

/* Shares of a window (bucket / dur) as a profile with every bucket present. */
NS_STATIC_API void ns_split_window_profile(const ns_split_window *w, ns_profile *p);

NS_END_DECLS

#endif
