/* The trace report: a ns_split_result routed and printed, per device, as text or as one JSON document written
 * step by step. */
#ifndef NEXTSTEP_TRACE_REPORT_H
#define NEXTSTEP_TRACE_REPORT_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/trace_report.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cJSON.h>

#include "nextstep/api.h"
#include "nextstep/classify.h"
#include "nextstep/devices.h"
#include "nextstep/format.h"
#include "nextstep/next_step.h"
#include "nextstep/routes.h"
#include "nextstep/trace_split.h"

NS_BEGIN_DECLS

/* Longest kernel name shown in the text report (the JSON keeps whole names). */
#define NS_REPORT_NAME_MAX    72
#define NS_REPORT_TOP_DEFAULT 5

/* Settings a report may suggest the user change. The library decides when a suggestion applies; the caller
 * words it (the CLI names its flag) in ns_report_options.hints, indexed by this enum. A NULL array or entry
 * leaves that suggestion out. */
typedef enum {
	NS_REPORT_HINT_DEVICE_GIVEN, /* after a device the caller chose rather than the trace's, e.g.
	                             "(--device)" */
	NS_REPORT_HINT_NAME_DEVICE,  /* the trace's device is unknown or missing: how to name one */
	NS_REPORT_HINT_MORE_ROWS,    /* after "... N more" rows than were shown: how to show more */
	NS_REPORT_HINT_TF32, /* fp32 ops placed on the fp32 roof on a device with TF32: how to use that roof
	                      */
	NS_REPORT_HINT_WARMUP_ONE,     /* one warm-up step was left out of the verdict: how to include it */
	NS_REPORT_HINT_WARMUP_SEVERAL, /* several warm-up steps were: how to include them */
	NS_REPORT_HINT_STEP_MARKER, /* the steps came from the caller's step-marker pattern: what it is called
	                             */
	NS_REPORT_HINT_PYTHON_DETAIL, /* after the with_stack hint: where the Python behind the causes is
	                               * shown
	                               */
	NS_REPORT_HINT_ROOFLINE,  /* kernels whose bound is unknown because no placement was made: how to make
	                           * one
	                           */
	NS_REPORT_HINT_EVERY_RANK /* one rank of a larger job, exposed comm high: how to give the whole job,
	                           * so that a straggler's wait is told from transfer */
} ns_report_hint;
#define NS_REPORT_HINT_COUNT 10

typedef struct ns_device_report ns_device_report;

typedef struct {
	const ns_classify_options *classify;
	const ns_routes *routes;
	const ns_format_options *format; /* kind, verbose, color */
	const char *source;              /* the input's display name */
	bool steps;                      /* one line per step (text) */
	size_t top;                      /* kernels listed per device with -v (text) and in JSON */
	const char *const *hints; /* NS_REPORT_HINT_COUNT suggestions in the caller's words, or NULL (text) */
	/* The roofline placement of each device's kernel classes (issue 22): roof(ctx, device, out) fills
	 * out[NS_KCLASS_COUNT] for device d's overall window and returns true, or returns false (no
	 * placement: the kernels' bounds are unknown). NULL: no placement anywhere. */
	bool (*roof)(void *ctx, const ns_split_device *d, ns_roof_time *out);
	void *roof_ctx;
	const ns_device_table *devices; /* peaks for the fp32 advice (docs/trace.md); NULL: none given */
	/* Each device's report decided already with these options, one per device of the split in its order
	 * (an analysis's: ns_analysis_print()); NULL: each is decided as it is printed. Text and JSON print
	 * them as they are. */
	const ns_device_report *reports;
} ns_report_options;

/* One inference phase of a device (prefill, decode, mixed), routed on its own. */
typedef struct {
	size_t steps;           /* 0: the device has no step of this phase */
	ns_split_window window; /* its steps summed, with its phase set (the routes depend on it) */
	ns_verdict verdict;
	ns_routes routes; /* shallow: borrows the report's routes */
	ns_next_steps next;
	/* decode: GEMMs of iterations of at most 64 tokens, counted as memory (ns_split_device.small_m_gemms)
	 */
	long small_m_gemms;
	int64_t small_m_gemm_ns;
} ns_phase_report;

#define NS_REPORT_FIXES   5   /* fixes a device report words from the trace's evidence */
#define NS_REPORT_FIX_MAX 640 /* bytes of one */
#define NS_REPORT_WHY_MAX 384 /* bytes of ns_device_report.first_why */

/* What the roofline says of a kernel bucket under a compute- or memory-bound verdict (issue 22 item 3): the
 * op families that hold it, how close each comes to its roof, and the lever that follows. */
typedef enum {
	NS_LEVER_FUSION,    /* memory: the ops move their bytes near the bandwidth: only fewer bytes help
	                       (fusion,    a smaller dtype) */
	NS_LEVER_KERNEL,    /* well below the roof: a better kernel wins the distance */
	NS_LEVER_PRECISION, /* compute: fp32 work that the device's 16-bit roof would run far faster */
	NS_LEVER_LESS_WORK  /* compute at its roof: only fewer FLOPs, or fp8 GEMMs, help */
} ns_roof_lever;

typedef struct {
	ns_regime bucket; /* NS_REGIME_COMPUTE or NS_REGIME_MEMORY */
	size_t nfamilies;
	ns_op_family family[NS_ROOF_FAMILIES];
	double fraction[NS_ROOF_FAMILIES]; /* each family's time at its roof over its time */
	double placed_share;               /* of the class's kernel time, in placed ops */
	double above_share;                /* of the placed time, above the roof the fix can reach */
	double half_share; /* compute: the placed time at the 16-bit roof over the placed time;
	                      -1 when no 16-bit roof applies */
	ns_dtype half;
	/* compute near its roof (NS_LEVER_LESS_WORK): the placed time with the 16-bit GEMMs at the fp8 roof
	 * over the placed time; -1 when no fp8 roof applies */
	double fp8_share;
	ns_roof_lever lever;
} ns_roof_note;

/* "fusion", "kernel", "precision", "less_work" (JSON "lever"). */
NS_STATIC_API const char *ns_roof_lever_name(ns_roof_lever l);
/* The note in words, as every form prints it: "compute-bound ops: conv 74%, gemm 36% of their roof (100% of
 * their kernel time placed) -> lower precision: at the fp16 roof they would take 11% of their time
 * (autocast)". NS_ROOF_NOTE_WORDS bytes are enough (three families and the longest lever's words). */
#define NS_ROOF_NOTE_WORDS 512
NS_STATIC_API void ns_roof_note_words(const ns_roof_note *n, char *buf, size_t size);

/* The slow host op the launch overhead mostly waits on (docs/trace.md, "A slow host op"), a step: every form
 * prints it beside the launch cause. */
typedef struct {
	bool found;              /* the rule holds: the launch cause is routed to the op */
	char op[NS_NEXT_OP_MAX]; /* its name, control characters escaped */
	const char *finding;     /* the finding whose fix it takes ("slow_host_op", ...) */
	int64_t idle_ns;         /* the launch time inside it, a step */
	double launch_share;     /* of the launch time */
	double calls;            /* its slow calls a step */
	int64_t host_ns;         /* host time a call (less slow calls nested in it) */
	double launches;         /* launch calls a call */
} ns_report_host_op;

/* One device's report, decided once (issue 21): text, JSON and HTML print it and decide nothing. It borrows
 * the split result's and the routes' strings (both must outlive it) and owns only the fixes it words itself;
 * the routes and next steps point into it, so it is not copied. About 125 kB, three quarters of it the
 * phases' next steps: allocate it. */
struct ns_device_report {
	char label[NS_TRACE_DEVICE_NAME_MAX +
	           64];         /* "device 0 (NVIDIA A100-SXM4-40GB)", "rank 3 dev 0", "host" */
	size_t counted_steps;   /* the steps in overall (1: a whole-trace window) */
	ns_split_window routed; /* overall, its phase decode when decode holds most of its memory time */
	ns_verdict verdict;
	ns_routes routes; /* the headline's: host-only, dominant causes', decode's (shallow) */
	/* What every window of the device is routed from (its steps, warm-up and phases): the routes the
	 * trace's evidence words (Python frames, fp32 compute, graph capture, host-only), before each
	 * window's dominant causes pick among them. */
	ns_routes window_routes;
	bool unfit;             /* no verdict: the trace is unfit */
	bool startup;           /* every window is warm-up: start-up, not steady state */
	ns_route startup_route; /* start-up's advice (init's route, else overhead's) */
	double python_hint;     /* the host causes' share where Python frames would explain the verdict
	                           and the trace has none (0 where they would not) */
	/* Exposed communication's share (collective kernels alone, host collectives) when the trace is one
	 * rank of a larger job read alone and that share is high: a collective's time on one rank holds the
	 * wait for the last rank to join, which only every rank's trace tells from transfer (0: no hint).
	 * The text prints it (a rank's own report is printed only when no job formed); the page leaves it
	 * out, as it draws a rank's section before that is known. */
	double rank_alone_comm;
	bool rank_alone_host; /* host collectives (gloo) hold most of it: the job report compares the ranks'
	                       * step times, but splits only the device's collectives into waiting */
	ns_grade optimizer_grade; /* the optimizer finding (NS_GRADE_NONE: none, or no passes marked) */
	double optimizer_share;
	bool optimizer_also; /* the headline repeats the finding: high, and its fix in no next step line */
	char optimizer_fix[1024]; /* the finding's fix for the trace's optimizer class */
	ns_next_steps next;       /* ranked; empty for an unfit trace and for start-up */
	bool placed;              /* a roofline placement was given (roof_notes may still be empty) */
	/* The kernel buckets the roofline speaks of: the verdict's when it is compute or memory, and the
	 * other one when it is a high finding (none for an unfit trace or start-up). */
	ns_roof_note roof_note[2];
	size_t nroof_notes;
	/* A shown next step (top or runner-up) whose fix raises the batch (launch overhead, a decode step's
	 * memory kernels, compute kernels well below their roof), with the memory the trace recorded: which,
	 * and how much larger a batch fits, in words (device_memory.h). batch_item < 0: no such line. */
	int batch_item;
	char batch_words[128];
	/* The headline's "also:" findings: the verdict's high findings whose fix the next step lines do not
	 * already give (none for an unfit trace or start-up). */
	ns_finding also[NS_REGIME_COUNT];
	size_t nalso;
	ns_phase_report phase[NS_STEP_PHASE_COUNT];
	/* When the next step fixes another bucket than the headline's (the headline says where the time goes,
	 * the next step what wins the most): why that fix comes first, in words; "" when the next step is the
	 * headline bucket's own fix, or there is none. */
	char first_why[NS_REPORT_WHY_MAX];
	/* GEMM kernels counted as memory because their ops' recorded shapes make them memory-bound on every
	 * device (ns_split_device.shape_memory_gemms, docs/trace.md), their time and the most FLOPs per byte
	 * of one; 0 kernels: none, no line. */
	long shape_gemms;
	int64_t shape_gemm_ns;
	double shape_gemm_intensity;
	/* The fixes worded from the trace's evidence (the Python frames behind host time, ...): the routes
	 * above point here. */
	char fixes[NS_REPORT_FIXES][NS_REPORT_FIX_MAX];
	ns_report_host_op host_op;
};

/* The slow host op in words, as every form prints it after "launch is mostly one host op, ":
 * "aten::_cudnn_attention_forward: 97% of it (16.3 calls a step of 46.038 ms host time each, 2.0 launch
 * calls a call)". NS_NEXT_OP_MAX + 128 bytes are enough. */
NS_STATIC_API void ns_report_host_op_words(const ns_report_host_op *h, char *buf, size_t size);
/* [{"bucket", "families": [{"family", "fraction"}], "placed_share", "above_share", "half_dtype",
 * "half_share", "lever", "text"}] of m's roof notes. NULL on OOM. */
NS_STATIC_API cJSON *ns_roof_notes_json(const ns_device_report *m);
/* Every window of d is warm-up: a capture of start-up, which no regime describes. */
NS_STATIC_API bool ns_device_startup_only(const ns_split_device *d);
/* Builds d's report. roof: d's placement per kernel class, or NULL; devices: the peaks the fp32 advice
 * quotes, or NULL (no such advice). */
NS_STATIC_API void ns_device_report_build(const ns_split_result *res, const ns_split_device *d,
                                          const ns_classify_options *classify, const ns_routes *routes,
                                          const ns_roof_time *roof, const ns_device_table *devices,
                                          ns_device_report *out);
/* Each device's report, decided once with o's classify, routes, roof and devices, for the printers to print
 * as they are (ns_report_options.reports, ns_html_trace_options.reports: a caller that prints a split in
 * several forms decides once for all of them). *out gets res->ndevices reports (free() them; NULL when res
 * has no device), about 128 kB each. NS_ERR_NOMEM. */
NS_STATIC_API ns_status ns_report_decide(const ns_split_result *res, const ns_report_options *o,
                                         ns_device_report **out, ns_error *err);
/* The roofline placement o->roof gives for d into buf, or NULL when none. */
NS_STATIC_API const ns_roof_time *ns_report_roof(const ns_report_options *o, const ns_split_device *d,
                                                 ns_roof_time *buf);

/* For an Nsight Systems export whose host causes hold much of the time: what to record to see the code behind
 * them, by what the export shows (a Python program: py-spy or nsys's Python sampling; otherwise its CPU
 * samples, or how to take them, and OS runtime calls when not traced). The words follow "host-side causes
 * hold N% of the time and "; text and HTML print the same. */
NS_STATIC_API void ns_report_export_hint(const ns_split_result *res, char *buf, size_t size);
/* Why --roofline places nothing of an Nsight Systems export, and what places its kernels instead (text:
 * after "roofline: "; JSON: the roofline section's "not_placed"). */
NS_STATIC_API void ns_report_export_roofline(const ns_split_result *res, char *buf, size_t size);
/* The decode phase's GEMMs counted as memory (ph->small_m_gemms > 0), in words, as every form prints them.
 * 192 bytes are enough. Returns buf. */
NS_STATIC_API const char *ns_report_small_m_words(const ns_phase_report *ph, char *buf, size_t size);
/* The GEMMs counted as memory by their recorded shapes (m->shape_gemms > 0), in words, as every form prints
 * them. 256 bytes are enough. Returns buf. */
NS_STATIC_API const char *ns_report_shape_gemm_words(const ns_device_report *m, char *buf, size_t size);
/* A quality problem's one-line explanation (text and JSON "detail"). */
NS_STATIC_API void ns_report_quality_detail(const ns_split_quality *q, ns_quality_kind k, char *buf,
                                            size_t size);
/* Where the steps came from, in words ("inference-server iteration markers"; a step marker's as hints word
 * it, "step-marker annotations" without); NULL for the host's ProfilerStep# and for no steps. */
NS_STATIC_API const char *ns_report_step_source_words(ns_step_source s, const char *const *hints);
/* The marker of a step as text: NULL when the step has none. buf holds a ProfilerStep# name. */
NS_STATIC_API const char *ns_report_step_marker(const ns_split_result *res, const ns_split_window *w,
                                                char *buf, size_t size);

/* hints[h], or NULL when there are no hints or none for h. */
NS_STATIC_API const char *ns_report_hint_text(const char *const *hints, ns_report_hint h);

/* "rank 0 dev 0", "device 0 (NVIDIA A100-SXM4-40GB)", "device 0"; the host-only split is "rank 3 host" or
 * "host". */
NS_STATIC_API void ns_report_device_label(const ns_split_result *res, const ns_split_device *d, char *buf,
                                          size_t size);
/* A kernel name cut to at most max bytes for a one-line listing: no "void ", no parameter list. */
NS_STATIC_API void ns_report_short_name(const char *name, char *buf, size_t max);
/* One window's JSON object as the report writes it (a routed verdict plus the window's numbers; with_step
 * adds "step" and "warmup"). Caller owns it; NULL on OOM. The job report (issue 12) writes its ranks' devices
 * with it. */
NS_STATIC_API cJSON *ns_report_window_json(const char *label, const ns_split_window *w, bool with_step,
                                           const ns_report_options *o);
/* Prints the report in o->format->kind (text, quiet or JSON), streaming: memory does not grow with the number
 * of steps or devices. NS_ERR_NOMEM when memory ran out part-way (the output is then incomplete), NS_ERR_IO
 * when a write failed. */
NS_STATIC_API ns_status ns_report_print(FILE *out, const ns_split_result *res, const ns_report_options *o,
                                        ns_error *err);
/* The same, with one more member extra_key: extra (consumed, may be NULL) at the end of the JSON document;
 * ignored in the other forms. */
NS_STATIC_API ns_status ns_report_print_with(FILE *out, const ns_split_result *res,
                                             const ns_report_options *o, const char *extra_key, cJSON *extra,
                                             ns_error *err);

NS_END_DECLS

#endif
