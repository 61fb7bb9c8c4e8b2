/* The trace split's stages, shared between its source files (not installed):
 *   split_ingest.c   events in: what each event means, compact records kept per GPU event and host span
 *   split_threads.c  the host-thread table, span lists, the thread that records the steps and its process
 *   split_link.c     GPU records linked to their launches (collectives, step of launch)
 *   split_sweep.c    one time-ordered pass that fills the buckets and causes of every window
 *   split_tally.c    kernel time per name and class, per-window counts, the overall sums
 *   trace_split.c    windows, devices and the result (ns_trace_split_finish)
 *   split_names.c    the runtime-API and op-name tables the rules use (data)
 *   split_quality.c  the trace-quality verdict: what the capture lost or got wrong, from hooks in the others
 */
#ifndef NEXTSTEP_SPLIT_PRIVATE_H
#define NEXTSTEP_SPLIT_PRIVATE_H

#include "nextstep/trace_split.h"
#include "trace/split/split_quality.h"
#include "util/hindex.h"
#include "util/satmath.h"
#include "util/sort.h"
#include "util/vec.h"

/* ---- the window store (split_store.c) ----
 * Windows live in chunks of SPLIT_STORE_CHUNK; a device's windows start at a chunk boundary. Without a spill
 * directory every chunk stays in memory. With one, at most SPLIT_STORE_RESIDENT chunks are in memory: the one
 * least recently touched is written to an unlinked temporary file (when changed since read) to make room, and
 * read back when touched again. A pointer from split_store_at() stays valid until SPLIT_STORE_RESIDENT - 1
 * other chunks have been touched; code here holds at most two at a time. */
#define SPLIT_STORE_CHUNK    2048 /* 432 KiB of windows */
#define SPLIT_STORE_RESIDENT 16   /* 6.75 MiB in memory when spilling */

typedef struct {
	ns_split_window *mem; /* NULL: not in memory (on file, or never touched: zeroed) */
	uint64_t touched;     /* the store's clock at the last touch (least recently touched goes first) */
	bool dirty;           /* changed since written */
	bool on_file;
} store_chunk;

struct ns_split_store {
	store_chunk *chunk;
	size_t nchunks, capchunks;
	size_t resident; /* chunks with mem */
	uint64_t clock;
	char *dir;  /* spill directory, NULL: keep everything in memory */
	int fd;     /* the temporary file, -1 until the first spill */
	size_t hot; /* the chunk touched last (SIZE_MAX: none), for the fast path */
	ns_split_window *hot_mem;
	bool hot_dirty;
	ns_status status; /* the first failure (NS_OK: none) and its message */
	char why[160];
	ns_split_window zero; /* handed out when a chunk cannot be had */
};

ns_split_store *split_store_new(const char *dir);
void split_store_free(ns_split_store *st);
/* Adds n zeroed windows at a chunk boundary; their first index in *first. */
ns_status split_store_add(ns_split_store *st, size_t n, size_t *first, ns_error *err);
/* Window i, through the chunk cache (the slow path of split_store_at). */
ns_split_window *split_store_load(ns_split_store *st, size_t i, bool write);
/* Copies n windows from index from to index to (both chunk-aligned, from a different chunk range). */
void split_store_copy(ns_split_store *st, size_t to, size_t from, size_t n);

/* Window i; write marks its chunk changed. Never NULL: on failure, a scratch zero window (st->status set). */
static inline ns_split_window *split_store_at(ns_split_store *st, size_t i, bool write)
{
	if (i / SPLIT_STORE_CHUNK == st->hot && (!write || st->hot_dirty))
		return st->hot_mem + i % SPLIT_STORE_CHUNK;
	return split_store_load(st, i, write);
}

/* A run of windows in a store: a device's, or the template every device copies. */
typedef struct {
	ns_split_store *st;
	size_t first, n;
} split_view;

static inline split_view split_device_view(const ns_split_device *d)
{
	return (split_view){d->store, d->first, d->nsteps};
}
static inline ns_split_window *split_view_at(const split_view *v, size_t k)
{
	return split_store_at(v->st, v->first + k, true);
}
static inline const ns_split_window *split_view_get(const split_view *v, size_t k)
{
	return split_store_at(v->st, v->first + k, false);
}

/* Where window k of v ends. */
static inline int64_t split_view_end(const split_view *v, size_t k)
{
	const ns_split_window *w = split_view_get(v, k);
	return w->start_ns + w->dur_ns;
}

/* What a GPU record is; the first three equal ns_kernel_class so a kernel's class is its kind. */
enum {
	GK_COMPUTE = NS_KCLASS_COMPUTE,
	GK_MEMORY = NS_KCLASS_MEMORY,
	GK_COMM = NS_KCLASS_COMM,
	GK_TRANSFER,
	GK_COUNT
};

/* Host span kinds kept per thread. One event can be several (cudaMemcpy is host work and a blocking copy). */
enum {
	HK_CPU,   /* ops and runtime calls (not the *Synchronize calls) */
	HK_DL,    /* enumerate(DataLoader)# spans */
	HK_BLOCK, /* ops and calls that block the host on the device: aten::item, cudaMemcpy, ... */
	HK_SYNC,  /* *Synchronize calls */
	HK_INIT,  /* allocator, context, module, stream/event set-up */
	HK_COMM,  /* host-side collectives (gloo) */
	HK_COUNT
};

/* The process-wide host lists the sweep reads: the step thread's host work apart from the other threads'. */
enum { SL_LAUNCH, SL_OTHER, SL_DL, SL_BLOCK, SL_SYNC, SL_INIT, SL_COMM, SL_OPT, SL_COUNT };

/* One record per GPU event, 24 bytes: a trace has millions (an Nsight Systems export of 1 GB, 4.3 M). The
 * start is kept in 48 bits relative to the first record's (gpu_t0: 39 hours either side), biased by 2^47 so
 * that the low 56 bits of start_bits, device above start, sort as (device, start) do. The end is kept as the
 * duration in 32 bits (4.29 s), the correlation id in 32 bits above gpu_corr0 (the first record's id with its
 * low 32 bits cleared), the External id as launch_rec's. A record whose start, duration or id does not fit
 * is wide: dur is then the index of its whole start, end and id in ns_trace_split.wide_gpu, and its biased
 * start is 0 or GPU_START_MASK when the start is out of reach (split_gpu_sort orders those). Read every
 * field through the split_gpu_* accessors. */
#define GPU_START_BITS 48
#define GPU_START_MASK (((uint64_t)1 << GPU_START_BITS) - 1)
#define GPU_START_BIAS ((int64_t)1 << (GPU_START_BITS - 1))
#define GPU_SORT_MASK  (((uint64_t)1 << (GPU_START_BITS + 8)) - 1) /* device and start */
#define GPU_NAME_BITS  29
#define GPU_NAME_MASK  ((1u << GPU_NAME_BITS) - 1)
#define GPU_KIND_SHIFT GPU_NAME_BITS
#define GPU_WIDE       (1u << 31)
#define GPU_CORR_NONE  UINT32_MAX /* the id -1: none */
typedef struct {
	uint64_t start_bits; /* bits 0-47: start - gpu_t0 + 2^47; 48-55: device index; 56-63: stream index
	                        (split_stream_key; SPLIT_STREAM_OTHER past the table's end) */
	uint32_t dur;        /* end - start; the index in wide_gpu when wide */
	uint32_t corr;       /* corr - gpu_corr0; GPU_CORR_NONE: -1 */
	int32_t ext;         /* -1: none; LAUNCH_EXT_WIDE - k: wide_ext[k] */
	uint32_t name_kind;  /* bits 0-28: name id; 29-30: GK_*; 31: GPU_WIDE */
} gpu_rec;

/* A wide GPU record's start, end and correlation id. */
typedef struct {
	int64_t start, end, corr;
} gpu_wide;

static inline uint8_t split_gpu_dev(const gpu_rec *g)
{
	return (uint8_t)(g->start_bits >> GPU_START_BITS);
}
static inline uint8_t split_gpu_stream(const gpu_rec *g)
{
	return (uint8_t)(g->start_bits >> (GPU_START_BITS + 8));
}
static inline uint8_t split_gpu_kind(const gpu_rec *g)
{
	return (uint8_t)((g->name_kind >> GPU_KIND_SHIFT) & 3u);
}
static inline uint32_t split_gpu_name(const gpu_rec *g)
{
	return g->name_kind & GPU_NAME_MASK;
}
static inline bool split_gpu_wide(const gpu_rec *g)
{
	return (g->name_kind & GPU_WIDE) != 0;
}
static inline void split_gpu_set_dev(gpu_rec *g, uint8_t dev)
{
	g->start_bits = (g->start_bits & ~((uint64_t)0xff << GPU_START_BITS)) | (uint64_t)dev
	                                                                            << GPU_START_BITS;
}
static inline void split_gpu_set_kind(gpu_rec *g, uint8_t kind)
{
	g->name_kind = (g->name_kind & ~(3u << GPU_KIND_SHIFT)) | (uint32_t)(kind & 3u) << GPU_KIND_SHIFT;
}

/* GPU streams: each (device, stream) pair gets a one-byte index in order of first appearance, so a record
 * stays 24 bytes. Traces have a few dozen streams; past 255 pairs the rest share SPLIT_STREAM_OTHER. */
#define SPLIT_STREAM_OTHER 255
#define SPLIT_STREAM_SLOTS 512 /* open-addressing slots for the lookup: at most half full */
typedef struct {
	int64_t stream; /* args.stream as written; -1 when the event has none */
	uint16_t dev;   /* index in the split's device table, like split_gpu_dev */
} stream_key;

/* What a launch call starts (split_quality.c judges missing GPU work by it). */
enum { LK_KERNEL, LK_COPY, LK_GRAPH, LK_QUIET /* starts no GPU activity: cudaLaunchHostFunc */ };

/* One launch call, 16 bytes: a trace has as many as it has GPU records, and both tables are held until the
 * links are made (an Nsight Systems export of 1 GB holds 4.3 M of each). The time and the correlation id are
 * kept relative to the split's first launch (launch_t0, launch_corr0): the time in 48 bits (39 hours either
 * side), the correlation id in 28 bits above launch_corr0, which is that launch's id with its low 32 bits
 * cleared (CUPTI counts ids up from 1 in each process; an Nsight Systems export puts the process above bit
 * 32). A launch that does not fit (an id below, or 2^28 past, the base; negative; a time farther away) is
 * kept whole in ns_trace_split.wide_launch as a launch_call: read every launch through split_launch_get. The
 * External id is kept in 32 bits: -1 for none, an id past INT32_MAX as LAUNCH_EXT_WIDE - k, k its index in
 * ns_trace_split.wide_ext (read it with split_launch_ext). The thread index fits 16 bits
 * (NS_SPLIT_MAX_THREADS). */
#define LAUNCH_EXT_WIDE   (-2)
#define LAUNCH_TS_BITS    48
#define LAUNCH_CORR_BITS  28
#define LAUNCH_CORR_MASK  ((1u << LAUNCH_CORR_BITS) - 1)
#define LAUNCH_KIND_SHIFT LAUNCH_CORR_BITS
#define LAUNCH_SEEN       (1u << 30)
#define LAUNCH_EX         (1u << 31)
typedef struct {
	uint64_t ts_thread; /* bits 0-47: ts - launch_t0 (two's complement); 48-63: the thread index */
	uint32_t corr_bits; /* bits 0-27: corr - launch_corr0; 28-29: LK_*; 30: LAUNCH_SEEN; 31: LAUNCH_EX */
	int32_t ext;
} launch_rec;

/* A launch call whole: how split_launch_get hands every launch out, and how a wide one is kept. */
typedef struct {
	int64_t corr, ts;
	int32_t ext; /* launch_rec.ext's coding */
	uint16_t thread;
	unsigned kind : 2; /* LK_* */
	unsigned seen : 1; /* some GPU record links to it */
	unsigned ex : 1;   /* cuLaunchKernelEx/cudaLaunchKernelExC: may start before the kernel before it on
	                      its stream ends (programmatic dependent launch, sm_90+) */
} launch_call;

typedef struct {
	int64_t start, end;
} span;

typedef struct {
	span *v;
	size_t n, cap;
} span_list;

typedef struct {
	int64_t start, end, number;
	uint32_t thread;
	uint32_t name_id; /* markers: the name in marker_names; period: the anchor kernel's; else unused */
	uint8_t source;   /* ns_step_source */
	uint8_t phase;    /* ns_step_phase */
	uint32_t tokens;  /* inference iterations: the tokens the iteration runs (the rows of its GEMMs); 0
	                     when  the marker does not say */
} step_rec;

typedef struct {
	step_rec *v;
	size_t n, cap;
} step_list;

/* A GPU record launched outside every step: sorted after every device, so no device's split sees it. */
#define GPU_DEV_OUTSIDE UINT8_MAX

typedef struct {
	int64_t start, end;
	uint32_t thread;
} thread_span;

typedef enum { SK_NONE, SK_GPU, SK_STEP, SK_HOST, SK_PYTHON } span_kind;

/* What one event (or B/E pair) means for the split, derived once from its category and name. */
typedef struct {
	span_kind kind;
	uint8_t host;        /* SK_HOST: bit HK_* set for each host list the span belongs to */
	bool comm_op;        /* a CPU op that launches collectives */
	bool launches;       /* a runtime call that can start GPU work */
	uint8_t launch_kind; /* LK_*, when launches */
	bool launch_ex;      /* launched with cuLaunchKernelEx/cudaLaunchKernelExC: may be a programmatic
	                        dependent launch */
	uint8_t capture;     /* CAPTURE_BEGIN/END: a runtime call that opens or closes a stream capture */
	uint8_t stall;       /* STALL_*: a call whose milliseconds mean a stall, the allocator's, or set-up */
	uint8_t pass;        /* 1 + the pass (PASS_*) the span marks, 0 for none (split_phases.c) */
	uint8_t gpu_kind;
	uint32_t name_id;
	bool host_op; /* a cpu_op that may be a slow host op: op_id names it (split_hostops.h) */
	uint32_t op_id;
	uint8_t ns_step_source, phase; /* SK_STEP */
	uint32_t tokens;               /* SK_STEP: step_rec.tokens */
	int64_t device, stream, corr, ext, step;
	int64_t start, end;
} span_info;

typedef struct {
	int64_t pid, tid;
	span_list list[HK_COUNT]; /* merged as they arrive; may still overlap when events come out of order */
	span_info *open;          /* B events waiting for their E */
	size_t nopen, capopen;
	bool capturing;        /* between a stream capture's begin and end call */
	int64_t capture_start; /* ... the begin call's start */
	bool launched;         /* a launch call names it (launch_call.thread): its process launched work */
} host_thread;

/* What the trace's metadata events say of a thread: its name (thread_name) and its place in the trace's own
 * viewer (thread_sort_index). */
typedef struct {
	int64_t pid, tid;
	bool has_sort_index;
	int64_t sort_index;
	char name[NS_SPLIT_THREAD_NAME_MAX]; /* UTF-8, cut between characters; "" when only sorted */
} thread_label;

/* The runtime-call rules' answer for one name, remembered: a trace has a few dozen distinct runtime calls and
 * millions of calls, and the name tables are read once per name instead of once per call. */
#define RUNTIME_CACHE_SLOTS 256
#define RUNTIME_CACHE_NAME  56
typedef struct {
	char name[RUNTIME_CACHE_NAME];
	uint8_t len; /* 0: empty slot */
	uint8_t host;
	bool launch_name;
	uint8_t launch_kind;
	bool launch_ex;
	uint8_t capture;
	uint8_t stall; /* STALL_* */
} runtime_cache_slot;

/* The cpu_op rules' answer for one name (OP_* bits and the pass it marks), remembered the same way: a trace
 * repeats a few hundred op names tens of thousands of times. Autograd's names of attention and fused ops run
 * past 60 bytes ("autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0" is 76), and
 * one not kept runs the rules again on each call, 1,260 instructions (issue 27): slots of 128 bytes. */
#define OP_CACHE_SLOTS 512
#define OP_CACHE_NAME  124
enum {
	OP_STEP = 1u << 0,       /* ProfilerStep#: not cached (each has its own number) */
	OP_DATALOADER = 1u << 1, /* enumerate(DataLoader)# */
	OP_HOST_COLL = 1u << 2,  /* a collective run on the host */
	OP_ATEN = 1u << 3,
	OP_BLOCKING = 1u << 4, /* an aten op that waits for the device */
	OP_COMM = 1u << 5,     /* launches communication */
	OP_COMPILED = 1u << 6, /* a torch.compile region's marker: the model is compiled */
	OP_TRIVIAL = 1u << 7,  /* an op that takes microseconds (split_is_trivial_op) */
	OP_GEMM = 1u << 8, /* a matrix multiply the op models know (its shapes may make it memory-bound) */
};
typedef struct {
	char name[OP_CACHE_NAME];
	uint8_t len; /* 0: empty slot */
	uint8_t pass;
	uint16_t traits;
} op_cache_slot;

/* A memcpy runtime call that may turn out to be a blocking copy (split_copies.c): its start and thread are
 * those of its launch record (the same correlation). */
typedef struct {
	int64_t corr, end;
} copy_call;

/* A kernel launch call of a millisecond or more (split_first_use()). */
typedef struct {
	int64_t corr, start, end;
	uint32_t thread;
} slow_call;

/* Host calls the host-stall rule reads (split_first_use()): a trivial op or runtime call of a millisecond or
 * more, and the allocator's calls that may lie inside one. */
/* STALL_SETUP: a set-up call (split_is_init_call) nested in a trivial one is start-up, not a stall. */
enum { STALL_NONE, STALL_TRIVIAL, STALL_ALLOC, STALL_SETUP };
typedef struct {
	int64_t start, end;
	uint32_t thread;
	uint8_t kind; /* STALL_TRIVIAL, STALL_ALLOC or STALL_SETUP */
} stall_call;

struct split_python;
struct split_phases;

/* Collective metadata seen on a kernel (by correlation) or on its record_param_comms op (by External id). */
typedef struct {
	int64_t key;
	bool by_corr;
	int64_t seq, in, out;
	char name[NS_SPLIT_COLL_TEXT], group[NS_SPLIT_COLL_TEXT], dtype[NS_SPLIT_COLL_TEXT / 2];
	uint8_t role; /* ns_coll_role, from "Process Group Description" */
} coll_meta;

struct ns_trace_split {
	const ns_kernel_rules *rules;
	coll_meta *cmeta; /* split_collectives.c */
	size_t ncmeta, capcmeta;
	int64_t *fwd_coll; /* correlations of the all-reduces launched in a forward pass, sorted */
	size_t nfwd_coll, capfwd_coll;
	struct split_python *py;       /* python_function frames (split_python.c) */
	struct split_hostops *hostops; /* slow host ops (split_hostops.c); NULL until the first */
	struct split_phases *phases;   /* forward/backward/optimizer markers (split_phases.c) */
	struct split_memtrack *mem;    /* profile_memory's events (split_memory.c); NULL until the first */
	copy_call
	    *copy_call; /* memcpy calls, and the correlations of pageable DtoH copies (split_copies.c) */
	size_t ncopy_call, capcopy_call;
	int64_t *pageable_corr;
	size_t npageable_corr, cappageable_corr;
	char unknown_device_cat[NS_SPLIT_UNKNOWN_CAT_MAX]; /* the first device event of an unknown category */
	long unknown_device_events;                        /* events of unknown categories naming a device */
	uint32_t main_thread; /* index of the thread that records the steps, once picked */
	runtime_cache_slot runtime_cache[RUNTIME_CACHE_SLOTS];
	op_cache_slot op_cache[OP_CACHE_SLOTS];
	ns_kernel_names *names;
	gpu_rec *gpu;
	size_t ngpu, capgpu;
	size_t gpu_faulted; /* bytes of gpu[] whose pages are known present (ns_grow_prefaulted) */
	gpu_wide *wide_gpu; /* whole start, end and id of the wide GPU records */
	size_t nwide_gpu, capwide_gpu;
	size_t nfar_gpu;   /* wide records whose start is out of gpu_rec's reach */
	int64_t gpu_t0;    /* gpu_rec's start base, the first record's */
	int64_t gpu_corr0; /* gpu_rec.corr's base, from the first record with an id */
	bool gpu_based, gpu_corr_based;
	launch_rec *launch; /* sorted by correlation once the links are made */
	size_t nlaunch, caplaunch;
	size_t launch_faulted;
	launch_call *wide_launch; /* launches that do not fit a launch_rec, also sorted then */
	size_t nwide_launch, capwide_launch;
	int64_t launch_t0, launch_corr0; /* launch_rec's bases, from the first launch with an id */
	bool launch_based;
	size_t nex_launch; /* launches with launch_call.ex set */
	/* a launch came with a lower correlation id than the one before it in its table: the table needs its
	 * sort (split_launches_sort); most traces record launches in id order */
	bool launch_unsorted, wide_launch_unsorted;
	step_rec *steps;
	size_t nsteps, capsteps;
	thread_span *comm_span;
	size_t ncomm_span, capcomm_span;
	thread_span
	    *capture; /* stream captures per thread (launches in them leave no GPU record by design) */
	size_t ncapture, capcapture;
	/* Kernel launch calls by duration (bucket b: bit length b of the ns), for the median launch, and the
	 * calls of a millisecond or more, which may hold a first-use load (split_first_use()). */
	long launch_hist[64];
	slow_call *slow;
	size_t nslow, capslow;
	stall_call *stall; /* trivial calls of SPLIT_FIRST_USE_MIN_NS or more, allocator calls of
	                      SPLIT_ALLOC_NEST_MIN_NS or more */
	size_t nstall, capstall;
	span_list stall_spans;         /* the host stalls' held time, sorted and merged (split_first_use()) */
	int64_t alloc_calls, alloc_ns; /* ns_split_result's, summed as the calls arrive */
	int64_t *comm_ext;
	size_t ncomm_ext, capcomm_ext;
	/* External ids of the GEMM ops whose recorded shapes make them memory-bound
	 * (ns_op_gemm_memory_bound), and the most FLOPs per byte of one of them */
	int64_t *memgemm_ext;
	size_t nmemgemm_ext, capmemgemm_ext;
	double memgemm_intensity;
	int64_t *wide_ext; /* launch and GPU External ids past 32 bits (launch_rec.ext, gpu_rec.ext) */
	size_t nwide_ext, capwide_ext;
	host_thread *thread;
	size_t nthreads, capthreads;
	thread_label *label; /* thread names and display order from metadata events (split_labels.c) */
	size_t nlabels, caplabels;
	ns_hindex label_index;  /* (pid, tid) -> index in label; nslots 0 until the first label */
	ns_hindex thread_index; /* (pid, tid) -> index in thread */
	uint32_t last_thread;   /* index + 1 of the last thread looked up */
	int64_t device_id[NS_TRACE_MAX_DEVICES];
	size_t ndevices;
	stream_key stream_key[SPLIT_STREAM_OTHER]; /* index -> (device, stream) */
	size_t nstreams;
	uint8_t stream_slot[SPLIT_STREAM_SLOTS]; /* hash slot -> index + 1 (0: empty) */
	uint8_t last_stream;                     /* index + 1 of the last stream looked up */
	long events;
	bool compiled;               /* a torch.compile marker was seen (ns_split_result.compiled) */
	split_quality_state quality; /* split_quality.c */
	bool keep_warmup;
	bool want_timeline;            /* split_timeline.c */
	bool names_taken;              /* finish() handed names to the result */
	const ns_step_marker *marker;  /* --step-marker, borrowed; NULL: none */
	void *marker_md;               /* its pcre2_match_data, this splitter's own (a match writes it) */
	ns_kernel_names *marker_names; /* names of server and --step-marker markers (handed to the result) */
	char *spill_dir; /* where the window store may spill (ns_trace_split_spill_dir); NULL: nowhere */
	uint8_t ns_step_source; /* the source the steps were taken from (split_steps_choose) */
	step_list phase_marks;  /* server markers kept for their phase when another source won */
	step_list gpu_marks;    /* GPU-side ProfilerStep# spans beside host ones: where each step ended */
	long outside_gpu[NS_TRACE_MAX_DEVICES];       /* GPU events launched outside every step, per device */
	int64_t outside_gpu_ns[NS_TRACE_MAX_DEVICES]; /* and their time */
	long small_m_gemm[NS_TRACE_MAX_DEVICES]; /* decode GEMMs of few rows counted as memory, per device */
	int64_t small_m_gemm_ns[NS_TRACE_MAX_DEVICES]; /* and their time */
	long shape_gemm[NS_TRACE_MAX_DEVICES];       /* GEMM kernels of memgemm_ext ops counted as memory, per
	                                                device */
	int64_t shape_gemm_ns[NS_TRACE_MAX_DEVICES]; /* and their time */
	uint8_t *gemm_name; /* per kernel name id: 0 not asked yet, 1 a GEMM by the built-in table, 2 not */
	size_t ngemm_name, capgemm_name;
};

/* Whether kernel name id is a GEMM by the built-in table (family "gemm"), asked once per name
 * (split_steps.c). */
bool split_is_gemm_kernel(ns_trace_split *s, uint32_t id);

/* A GPU record's start, end, correlation id (-1: none) and External id (-1: none). */
static inline int64_t split_gpu_start(const ns_trace_split *s, const gpu_rec *g)
{
	if (split_gpu_wide(g))
		return s->wide_gpu[g->dur].start;
	return s->gpu_t0 + ((int64_t)(g->start_bits & GPU_START_MASK) - GPU_START_BIAS);
}
static inline int64_t split_gpu_end(const ns_trace_split *s, const gpu_rec *g)
{
	if (split_gpu_wide(g))
		return s->wide_gpu[g->dur].end;
	return s->gpu_t0 + ((int64_t)(g->start_bits & GPU_START_MASK) - GPU_START_BIAS) + (int64_t)g->dur;
}
static inline int64_t split_gpu_corr(const ns_trace_split *s, const gpu_rec *g)
{
	if (split_gpu_wide(g))
		return s->wide_gpu[g->dur].corr;
	return g->corr == GPU_CORR_NONE ? -1 : s->gpu_corr0 + (int64_t)g->corr;
}
static inline int64_t split_gpu_ext(const ns_trace_split *s, const gpu_rec *g)
{
	return g->ext > LAUNCH_EXT_WIDE ? g->ext : s->wide_ext[LAUNCH_EXT_WIDE - g->ext];
}
/* Sorts s->gpu by (device, start). */
void split_gpu_sort(ns_trace_split *s);

/* ---- helpers (split_threads.c) ---- */
/* NS_ERR_NOMEM, "out of memory". */
ns_status split_oom(ns_error *err);
/* Nested spans (ops, Python frames) of one thread: each record begins with this. */
typedef struct {
	int64_t start, end;
	uint32_t name;
} split_nest_span;
typedef ns_status (*split_nest_emit_fn)(void *ctx, int64_t start, int64_t end, uint32_t name, ns_error *err);
/* The n records of `size` bytes at spans (each starting with a split_nest_span; sorted by start, the longer
 * first among equal starts) into disjoint segments, each handed to emit with the innermost span open over it
 * (empty ones too: emit drops them). A span that starts inside another but ends after it is cut at its
 * parent's end (a nesting the recorders do not produce; kept well-formed here rather than trusted). */
ns_status split_nest_flatten(const void *spans, size_t n, size_t size, split_nest_emit_fn emit, void *ctx,
                             ns_error *err);

/* ---- threads and host spans (split_threads.c) ---- */
ns_status split_thread_find(ns_trace_split *s, int64_t pid, int64_t tid, uint32_t *idx, ns_error *err);
/* A metadata event (ph "M"): thread_name and thread_sort_index are kept (at most NS_SPLIT_MAX_THREADS
 * threads; more are ignored), anything else is skipped. */
ns_status split_label_event(ns_trace_split *s, const ns_trace_event *ev, ns_error *err);
/* The label of a thread, or NULL. */
const thread_label *split_label_find(const ns_trace_split *s, int64_t pid, int64_t tid);
void split_labels_free(ns_trace_split *s);
/* Adds [a, b) to l, merged with the previous span when they touch: nested ops cost no memory. */
ns_status split_span_add(span_list *l, int64_t a, int64_t b, ns_error *err);
/* Sorts and merges in place; returns the covered length. */
int64_t split_spans_union(span_list *l);
/* The thread that records the most steps into *thread; *found false when none records one. NS_ERR_NOMEM (the
 * count needs a table): never taken for "no steps", which would report the trace without its steps. */
ns_status split_thread_with_most_steps(const ns_trace_split *s, uint32_t *thread, bool *found, ns_error *err);
/* The thread that records the most steps (host sources); without any, the one with the most host-op time;
 * *found false when there is neither. NS_ERR_NOMEM. */
ns_status split_pick_main_thread(ns_trace_split *s, uint32_t *main_thread, bool *found, ns_error *err);
/* Keeps the main thread's steps, in time order; returns how many. *dups counts steps sharing a start time
 * with another (kept: they are reported, not merged silently). */
size_t split_main_steps(ns_trace_split *s, uint32_t main_thread, size_t *dups);
/* The process-wide host lists of the main thread's process (sorted, disjoint). */
ns_status split_process_lists(ns_trace_split *s, uint32_t main_thread, span_list out[SL_COUNT],
                              size_t *nthreads, ns_error *err);
void split_lists_free(span_list l[SL_COUNT]);

/* ---- streams (split_ingest.c) ---- */
/* The index of (dev, stream), added on first sight; SPLIT_STREAM_OTHER once the table is full. */
uint8_t split_stream_index(ns_trace_split *s, uint16_t dev, int64_t stream);
/* The (device index, stream) of index idx; false for SPLIT_STREAM_OTHER and indexes never handed out. */
bool split_stream_key(const ns_trace_split *s, uint8_t idx, stream_key *key);

/* ---- names (split_names.c) ---- */
bool split_is_comm_op(ns_str name);
bool split_is_host_collective(ns_str name);
bool split_is_launch(ns_str name);
bool split_is_sync_call(ns_str name);
bool split_is_blocking_call(ns_str name);
bool split_is_blocking_op(ns_str name);
bool split_is_init_call(ns_str name);
bool split_is_compiled_marker(ns_str name);
bool split_is_alloc_call(ns_str name);
bool split_is_trivial_call(ns_str name);
bool split_is_trivial_op(ns_str name);
/* The ns_coll_role a process group's description names (NS_COLL_ROLE_UNKNOWN for none, or for both). */
uint8_t split_group_role(ns_str desc);
/* CAPTURE_BEGIN or CAPTURE_END for the calls that open and close a stream capture, else 0. */
enum { CAPTURE_BEGIN = 1, CAPTURE_END = 2 };
uint8_t split_capture_edge(ns_str name);
bool split_str_starts(ns_str s, const char *lit);

typedef struct step_hold step_hold; /* split_steps.c */

/* ---- blocking copies (split_copies.c) ---- */
/* "Memcpy DtoH (Device -> Pageable)": a copy that blocks the host that launched it. */
bool split_is_pageable_dtoh(ns_str name);
/* A memcpy call, after its launch record was added. */
ns_status split_copies_note_call(ns_trace_split *s, int64_t corr, int64_t end, ns_error *err);
ns_status split_copies_note_pageable(ns_trace_split *s, int64_t corr, ns_error *err);
/* Adds the calls that launched pageable DtoH copies to their threads' blocking lists. Before the host lists
 * are built. */
ns_status split_copies_block(ns_trace_split *s, ns_error *err);

/* ---- first-use loads (split_ingest.c) ---- */
/* A kernel launch call of at least SPLIT_FIRST_USE_MIN_NS and SPLIT_FIRST_USE_FACTOR times the median launch
 * call that launched the first recorded kernel of its name did a first-use load (module, JIT, library
 * set-up): its time becomes set-up (init). Before the host lists are built. */
#define SPLIT_FIRST_USE_MIN_NS 1000000
#define SPLIT_FIRST_USE_FACTOR 50
/* Allocator calls shorter than this are kept out of the stall list: they cannot explain a stall of a
 * millisecond (their time still counts in ns_split_result.alloc_ns). */
#define SPLIT_ALLOC_NEST_MIN_NS 20000
ns_status split_first_use(ns_trace_split *s, ns_split_result *res, ns_error *err);
/* Of the host stalls' held time (s->stall_spans), the part during which none of the device's records
 * g[0..n) (sorted by start: kernels, copies, memsets, collectives) ran: what the stalls cost that device
 * (docs/trace.md, "Host stalls"). */
int64_t split_stall_idle(const ns_trace_split *s, const gpu_rec *g, size_t n);

/* ---- stream captures (split_ingest.c) ---- */
/* Whether a launch of thread `thread` at ts lies inside a stream capture (s->capture sorted by thread,
 * start). */
bool split_in_capture(const ns_trace_split *s, uint32_t thread, int64_t ts);
/* Closes the captures still open and sorts them (before split_quality_links_end). */
ns_status split_captures_finish(ns_trace_split *s, ns_error *err);

/* ---- links (split_link.c) ---- */
/* Links every GPU record to its launch, and hands each, with its launch time, to split_steps_place(h) when h
 * is not NULL. */
void split_link_all(ns_trace_split *s, step_hold *h);
/* Sorts the launches by correlation (split_link_all does; split_copies_block needs it earlier). */
void split_launches_sort(ns_trace_split *s);
/* The launches sorted: the index of the launch of correlation corr (the first table's, then the wide one's,
 * as split_launch_get counts them); false when none. */
bool split_launch_find(const ns_trace_split *s, int64_t corr, size_t *i);
/* The launch of correlation corr, the launches sorted; false when none. */
bool split_launch_of(const ns_trace_split *s, int64_t corr, launch_call *out);
static inline size_t split_launch_count(const ns_trace_split *s)
{
	return s->nlaunch + s->nwide_launch;
}
/* A packed launch's fields, read in place (a loop over every launch that needs a few of them). */
static inline int64_t split_launch_rec_ts(const ns_trace_split *s, const launch_rec *l)
{
	uint64_t dt = l->ts_thread << (64 - LAUNCH_TS_BITS); /* the time's sign bit at bit 63 */
	return s->launch_t0 + ((int64_t)dt >> (64 - LAUNCH_TS_BITS));
}
static inline uint16_t split_launch_rec_thread(const launch_rec *l)
{
	return (uint16_t)(l->ts_thread >> LAUNCH_TS_BITS);
}
static inline unsigned split_launch_rec_kind(const launch_rec *l)
{
	return (l->corr_bits >> LAUNCH_KIND_SHIFT) & 3u;
}
/* Launch i (i < split_launch_count): the packed ones first, then the wide ones. */
static inline launch_call split_launch_get(const ns_trace_split *s, size_t i)
{
	if (i >= s->nlaunch)
		return s->wide_launch[i - s->nlaunch];
	const launch_rec *l = &s->launch[i];
	launch_call c = {.corr = s->launch_corr0 + (int64_t)(l->corr_bits & LAUNCH_CORR_MASK),
	                 .ts = split_launch_rec_ts(s, l),
	                 .ext = l->ext,
	                 .thread = split_launch_rec_thread(l)};
	c.kind = split_launch_rec_kind(l);
	c.seen = (l->corr_bits & LAUNCH_SEEN) != 0;
	c.ex = (l->corr_bits & LAUNCH_EX) != 0;
	return c;
}
static inline void split_launch_set_seen(ns_trace_split *s, size_t i)
{
	if (i < s->nlaunch)
		s->launch[i].corr_bits |= LAUNCH_SEEN;
	else
		s->wide_launch[i - s->nlaunch].seen = 1;
}
/* The External id of launch l (-1: none). */
static inline int64_t split_launch_ext(const ns_trace_split *s, const launch_call *l)
{
	return l->ext > LAUNCH_EXT_WIDE ? l->ext : s->wide_ext[LAUNCH_EXT_WIDE - l->ext];
}

/* ---- the sweep (split_sweep.c) ---- */
/* Told [a, b) of window w is GPU-idle time of host cause c (launch, host_threads, sync, init, host_gap,
 * optimizer). */
typedef void (*split_sweep_hook)(void *ctx, const ns_split_window *w, int64_t a, int64_t b, ns_cause c);
typedef struct {
	split_view v;
	size_t first; /* the first window that can still overlap the sweep position */
	span_list
	    *exposed; /* when set, the sweep adds every exposed-comm interval to it (split_collectives.c) */
	bool exposed_oom; /* adding to exposed ran out of memory */

	/* With a hook, the sweep only reports host-cause time to it (split_python.c): windows unchanged. */
	split_sweep_hook hook;
	void *hook_ctx;
	/* When set (one per window), the launch time of each window while the main thread is in the
	 * optimizer's step (SL_OPT): the optimizer's own launches (issue 21, docs/next-step.md). */
	int64_t *opt_launch;
} window_set;
/* GPU records g[0..n) sorted by start, and the process's host lists. */
void split_sweep(const ns_trace_split *s, const gpu_rec *g, size_t n, const span_list host[SL_COUNT],
                 window_set *ws);

/* ---- step sources and attribution (split_steps.c) ---- */
void split_steps_free_marker(ns_trace_split *s);
/* A user annotation that is a step marker (--step-marker, or a server's iteration marker): fills si as an
 * SK_STEP and returns true (*st says whether interning its name worked). */
bool split_steps_annotation(ns_trace_split *s, ns_str name, span_info *si, ns_status *st, ns_error *err);
/* Drops markers of processes that launched no device work, keeps the steps of the first source that has any
 * (the others kept aside where they still say something), and records the source in res. */
ns_status split_steps_choose(ns_trace_split *s, ns_split_result *res, ns_error *err);
/* The steps are device-time windows (GPU-side ProfilerStep#, period), not host spans. */
bool split_steps_on_device(const ns_trace_split *s);
/* After the main thread's steps are sorted: numbers for marker steps, phases from nested server markers. */
void split_steps_finish_markers(ns_trace_split *s);
/* No marker at all: steps from a repeating kernel sequence on the busiest device (gpu sorted by device,
 * start). Leaves s->nsteps 0 when there is no period. */
ns_status split_steps_period(ns_trace_split *s, ns_split_result *res, ns_error *err);
struct step_hold {
	const step_rec *steps;
	size_t n;
	int64_t *gpu_end;   /* per step, the end of the GPU work launched in it (INT64_MIN: none) */
	int64_t *gpu_first; /* per step, the start of the first GPU work launched in it (INT64_MAX: none) */
	bool active;        /* host steps: GPU work is placed by its launch */
	size_t last;        /* the step of the previous record (a hint) */
};
ns_status split_steps_hold_begin(ns_trace_split *s, step_hold *h, ns_error *err);
/* Called for every GPU record with its launch time (-1: unknown): the record belongs to the step it was
 * launched in, or, outside every step, is counted and set to GPU_DEV_OUTSIDE. */
void split_steps_place(ns_trace_split *s, step_hold *h, gpu_rec *g, int64_t launch_ts);
/* Sets the windows' starts (see split_steps.c) and returns the end of the last one; frees h. */
int64_t split_steps_hold_end(ns_trace_split *s, step_hold *h);
/* Per-phase sums of the steps that count in overall. */
void split_steps_sum_phases(ns_split_device *d, bool keep_warmup);

/* ---- tallies (split_tally.c) ---- */
/* Index of the window of v (in time order, disjoint) that contains t, or v->n. *hint is the previous answer
 * (start at 0): lookups in time order touch each chunk once. */
size_t split_window_of(const split_view *v, int64_t t, size_t *hint);
/* o += w (durations, buckets, causes, counts). */
void split_add_window(ns_split_window *o, const ns_split_window *w);
ns_status split_tally_kernels(const ns_trace_split *s, const gpu_rec *g, size_t n, ns_split_device *d,
                              ns_error *err);
/* keep_warmup: warm-up steps count in overall too. */
/* opt_launch (one per window, or NULL) is summed over the same windows into d->optimizer_launch_ns. */
void split_sum_overall(ns_split_device *d, bool keep_warmup, const int64_t *opt_launch);

/* ---- the median step's timeline (split_timeline.c) ---- */
/* d's timeline from its records g[0..n) and every thread's host spans; d's windows are final. */
ns_status split_timeline_build(const ns_trace_split *s, const gpu_rec *g, size_t n, ns_split_device *d,
                               ns_error *err);

/* ---- collectives (split_collectives.c) ---- */
/* Keeps the collective metadata of ev, when it has any. */
ns_status split_coll_note(ns_trace_split *s, const ns_trace_event *ev, ns_error *err);
/* Sorts the metadata for lookups (once, before the devices are split). */
void split_coll_prepare(ns_trace_split *s);
/* Notes the all-reduces launched inside a forward pass (s->fwd_coll); after split_phases_windows, while the
 * launches are still there. */
ns_status split_coll_forward(ns_trace_split *s, ns_error *err);
/* The device's collective kernels among g[0..n) (sorted by start), with their exposed pieces. */
ns_status split_coll_build(const ns_trace_split *s, const gpu_rec *g, size_t n, const span_list *exposed,
                           ns_split_device *d, ns_error *err);

/* ---- quality (split_quality.c): hooks called by the stages above ---- */
/* Runtime-call name -> LK_*. */
uint8_t split_launch_kind(ns_str name);
/* cuLaunchKernelEx, cudaLaunchKernelExC (and HIP's spellings): the launch API that carries launch attributes,
 * programmatic stream serialization among them. */
bool split_is_launch_ex(ns_str name);
/* The External id of a CPU op or user annotation (negative: none): the ids of a whole capture are
 * consecutive, so holes between them are ops the file lost (docs/trace.md, "missing_ops"). */
void split_quality_op_id(split_quality_state *q, int64_t id);
/* An event that is neither GPU work nor host work the split keeps: the capture's own span, ... */
void split_quality_event(split_quality_state *q, const ns_trace_event *ev);
/* Before linking: the counts' start. Per GPU record, in the order of s->gpu: its launch (NULL when none).
 * After: graphs. */
void split_quality_links_begin(ns_trace_split *s);
void split_quality_link(ns_trace_split *s, const gpu_rec *g, const launch_call *l);
ns_status split_quality_links_end(ns_trace_split *s, ns_error *err);
/* One device's records g[0..n) sorted by start: same-stream overlaps, duplicates, graph time per window. */
ns_status split_quality_device(ns_trace_split *s, const gpu_rec *g, size_t n, ns_split_device *d,
                               ns_error *err);
/* The grade and each problem, once the devices are split. NS_ERR_NOMEM only. */
ns_status split_quality_finish(ns_trace_split *s, ns_split_result *res, ns_error *err);
void split_quality_free(split_quality_state *q);

#endif
