/* The routing table: regime -> course module, fix, and the measurement that confirms the fix.
 * Built-in routes are data in routes.c; a playbook (JSON) replaces or extends them. */
#ifndef NEXTSTEP_ROUTES_H
#define NEXTSTEP_ROUTES_H

#include "nextstep/api.h"
#include "nextstep/cause.h"
#include "nextstep/error.h"
#include "nextstep/regime.h"

NS_BEGIN_DECLS

typedef struct {
	char *module;
	char *fix;
	char *next_check;
	/* Where the fix is explained: a built-in route's section of nextstep's fixes page,
	 * "fixes.md#data-loader", relative to the documentation folder until ns_routes_set_doc_dir() puts a
	 * folder in front. NULL when a playbook gave the fix (its own words, not the page's). */
	char *doc;
} ns_route;

/* Findings that are not a bucket: a part of the step the trace can name (docs/trace.md). */
typedef enum {
	NS_FINDING_OPTIMIZER,        /* the optimizer step takes a large share of the step */
	NS_FINDING_STRAGGLER_DEVICE, /* a job's straggler runs the same kernels slower in every step */
	NS_FINDING_STRAGGLER_WORK,   /* a job's straggler launches more kernels a step than the others */
	NS_FINDING_STRAGGLER_INPUTS, /* a job's straggler is slower in some steps only, with the same kernels
	                              */
	NS_FINDING_DECODE_MEMORY,    /* the memory-bound kernels of an inference server's decode steps */
	/* A memory budget's largest term (docs/budget.md): the lever that makes room. */
	NS_FINDING_BUDGET_WEIGHTS,
	NS_FINDING_BUDGET_KV_CACHE,
	NS_FINDING_BUDGET_ACTIVATIONS,
	NS_FINDING_BUDGET_TRAINING_STATE, /* gradients and optimizer state */
	/* Host time the trace's Python frames explain (docs/trace.md, "The Python behind host time"):
	 * "{frames}" in the fix is where the report names the top frames. */
	NS_FINDING_PYTHON_PREPROCESS,  /* CPU data preprocessing on the step thread */
	NS_FINDING_PYTHON_BETWEEN_OPS, /* Python between the ops of an eager model */
	NS_FINDING_PYTHON_COMPILED,    /* Python around a model already under torch.compile */
	NS_FINDING_PYTHON_NATIVE,      /* host gap outside every recorded frame: native code, I/O */
	NS_FINDING_LAUNCH_COMPILED,    /* dispatch-bound with the model already under torch.compile */
	NS_FINDING_GRAPH_CAPTURE,      /* a start-up window that mostly records CUDA/HIP graphs */
	NS_FINDING_LAYOUT_TRANSFORM,   /* NCHW<->NHWC transposes around convolutions: channels_last */
	NS_FINDING_FP32_TENSOR_CORES, /* fp32 GEMMs/convolutions on a GPU with tensor cores: autocast, TF32 */
	NS_FINDING_WAIT_NO_STRAGGLER, /* a job's ranks wait in collectives, but no rank is a straggler */
	/* An Nsight Systems export's host time, worded by what the export shows (docs/nsys.md): "{see}" is
	 * where the report says how to see the untraced code, "{frames}" names the OS calls. */
	NS_FINDING_HOST_OS_CALLS,        /* the step thread inside traced OS calls (I/O, waits, locks) */
	NS_FINDING_HOST_UNTRACED,        /* host code between CUDA calls that nsys does not trace */
	NS_FINDING_HOST_UNTRACED_PYTHON, /* ... in a Python program */
	NS_FINDING_MPI_HOST,             /* MPI calls on the host with the device idle */
	NS_FINDING_STARTUP_NSYS,         /* start-up in an nsys capture: its capture range */
	NS_FINDING_SYNC_NATIVE,          /* host syncs of a program that is not Python */
	NS_FINDING_LAUNCH_NATIVE,        /* launch overhead of a program that is not Python */
	NS_FINDING_TRANSFER_NATIVE,      /* host-device copies of a program that is not Python */
	NS_FINDING_TP_COLLECTIVES,       /* an inference server's collectives: tensor-parallel activations, no
	                                  * gradients
	                                  */
	NS_FINDING_STRAGGLER_JITTER, /* a job's straggler loses its host time to rare multi-ms stalls: jitter
	                              */
	NS_FINDING_SYNC_WAIT_NATIVE, /* the host blocked on other work, in a program that is not Python */
	NS_FINDING_HOST_SAMPLED,     /* host code between CUDA calls, named by the export's CPU samples */
	NS_FINDING_STRAGGLER_ALLOC,  /* a job's straggler loses its host time in the allocator's
	                                cudaMalloc/Free */
	NS_FINDING_TP_TRAINING, /* a training job's exposed collectives are tensor-parallel activations */
	NS_FINDING_ALLOC_STEPS, /* set-up time that recurs in the steady steps and is the allocator's calls */
	NS_FINDING_HOST_STALLS, /* launch overhead that is mostly rare multi-ms stalls of trivial calls */
	NS_FINDING_STEP_CAPTURE,   /* a step dispatch-bound on several host causes: capture the whole step */
	NS_FINDING_LAUNCH_GRAPHED, /* launch overhead of a step whose GPU time is already graph replays */
	NS_FINDING_SLOW_HOST_OP,   /* launch overhead that is mostly one op's own host time, far above a
	                              dispatch */
	NS_FINDING_HOST_OP_CUDNN_ATTENTION, /* ... and that op is cuDNN attention: a plan built per shape */
	NS_FINDING_STEP_CAPTURE_INFERENCE,  /* the step capture of a program that runs no training step */
	NS_FINDING_FP8_GEMMS, /* 16-bit GEMMs near their roof on a GPU with a faster fp8 roof: fp8 matmuls */
	NS_FINDING_FP8_GEMMS_INFERENCE, /* ... of a program that runs no training step: serve them in fp8 */
	NS_FINDING_COMPUTE_AT_ROOF, /* compute ops near their roof, no faster precision left: fewer FLOPs */
	NS_FINDING_COUNT
} ns_finding_kind;

/* The routes: opaque in the stable API (ns_routes_new() makes one), a struct in the unstable tier. */
typedef struct ns_routes ns_routes;

/* The finding's key under a playbook's "findings" ("optimizer", "decode_memory", "budget_weights",
 * "python_preprocess", ...: the table in routes.c); NULL for an out-of-range value. */
NS_API const char *ns_finding_name(ns_finding_kind f);

/* The command a built-in route points to for its next step, as a value: the caller words it (the CLI names
 * its subcommands and options; the library knows none). */
typedef enum {
	NS_FOLLOW_UP_NONE,
	NS_FOLLOW_UP_ROOFLINE_TIMED, /* place the kernel against the roofs with its measured time */
	NS_FOLLOW_UP_TRACE_VERBOSE,  /* the trace report's causes, in detail */
	NS_FOLLOW_UP_COMM_SPLIT,     /* the trace report that shows exposed vs hidden communication */
	NS_FOLLOW_UP_PHASES,         /* the trace report's forward/backward/optimizer phases */
	NS_FOLLOW_UP_SCALING,        /* the batch-doubling test */
	NS_FOLLOW_UP_JOB,            /* the job report over every rank's summary */
	NS_FOLLOW_UP_STRAGGLER,      /* the job report, for the straggler and its cause */
	NS_FOLLOW_UP_COUNT
} ns_routes_follow_up;

/* The built-in routes with each follow-up worded (as ns_routes_init_worded() below; follow_ups may be NULL),
 * or NULL with err set. Free with ns_routes_delete(). */
NS_API ns_routes *ns_routes_new(const char *const *follow_ups, ns_error *err);
NS_API void ns_routes_delete(ns_routes *r);
/* Puts dir and a '/' in front of every route's doc ("DIR/fixes.md#data-loader"): the folder where the caller
 * found the documentation (the CLI: share/doc/nextstep of its installation). */
NS_API ns_status ns_routes_set_doc_dir(ns_routes *r, const char *dir, ns_error *err);
/* Overlays a playbook file on r: {"routes": {"compute": {"module":..., "fix":..., "next_check":...}, ...},
 * "causes": {"overhead.sync": {...}, ...}, "replace": false}. A route whose fix the playbook gives loses its
 * doc. On error r is unchanged. */
NS_API ns_status ns_routes_load_playbook(ns_routes *r, const char *path, ns_error *err);

#ifdef NEXTSTEP_STATIC_LINKING_ONLY
/* Owns its strings; release with ns_routes_free(). A cause's route replaces its bucket's in the headline when
 * the cause holds at least half of the bucket. */
struct ns_routes {
	ns_route route[NS_REGIME_COUNT];
	ns_route cause[NS_CAUSE_COUNT];
	/* A host-only split's routes (a CPU job whose host time is in gloo collectives: no device to keep
	 * busy): overhead, idle and comm without GPU advice; a NULL fix means the ordinary route. A playbook
	 * does not set them; "replace": true clears them. */
	ns_route host_only[NS_REGIME_COUNT];
	/* The findings' routes; a playbook overrides them under "findings": {"optimizer": {...}}. */
	ns_route finding[NS_FINDING_COUNT];
};

/* The built-in routes, their follow-ups left out. */
NS_STATIC_API ns_status ns_routes_init_default(ns_routes *r, ns_error *err);
/* The built-in routes with each follow-up worded: follow_ups[FOLLOW_UP_...] (NS_FOLLOW_UP_COUNT entries) goes
 * in parentheses where the route's text refers to it; NULL, or a NULL entry, leaves it out. */
NS_STATIC_API ns_status ns_routes_init_worded(ns_routes *r, const char *const *follow_ups, ns_error *err);
NS_STATIC_API void ns_routes_free(ns_routes *r);
#endif

NS_END_DECLS

#endif
