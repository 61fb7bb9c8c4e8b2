/* diff: two runs of one job compared. Did the step get faster, did the bottleneck named for BEFORE shrink,
 * what is the bottleneck now, and what moved.
 *
 * Each side is first summarised (ns_diff_side) from a trace (read and split here), from a saved
 * `nextstep trace --format json` report, or from a profile (shares only). A trace is summarised through its
 * own report document, so a trace and the report saved from it give the same summary. The comparison
 * (ns_diff_result) is arithmetic on two summaries; the noise rule is ns_diff_noise_judge(). */
#ifndef NEXTSTEP_DIFF_H
#define NEXTSTEP_DIFF_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/diff.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "nextstep/api.h"
#include "nextstep/classify.h"
#include "nextstep/devices.h"
#include "nextstep/error.h"
#include "nextstep/format.h"
#include "nextstep/input.h"
#include "nextstep/regime.h"
#include "nextstep/routes.h"
#include "nextstep/trace_kernels.h"
#include "nextstep/trace_roofline.h"
#include "nextstep/trace_split.h"

NS_BEGIN_DECLS

/* Named limits on a saved report (untrusted input). The devices' steps are held as text and read one step at
 * a time; the rest of the document is held as a tree, so it is bounded as every JSON file read whole is
 * (NS_JSON_FILE_MAX). */
#define NS_DIFF_FILE_MAX      (1u << 30) /* bytes of a saved report or profile */
#define NS_DIFF_STEP_TEXT_MAX 65536      /* bytes of one step's JSON (a report writes about 2,000) */
#define NS_DIFF_MAX_DEVICES   64         /* devices[] */
#define NS_DIFF_MAX_STEPS     (1 << 20)  /* steps[] of one device */
#define NS_DIFF_MAX_KERNELS   4096       /* top_kernels[] of one device; also what a trace side keeps */
#define NS_DIFF_MAX_CAUSES    256        /* causes[] of one window */
#define NS_DIFF_NAME_MAX      8192       /* bytes of one kernel name */
#define NS_DIFF_CAUSE_MAX     48         /* bytes of one cause name, NUL included */
#define NS_DIFF_DEVICE_MAX    128        /* bytes of a device name kept, NUL included (longer ones are cut) */
#define NS_DIFF_US_MAX        1e15       /* any time in µs (about 31 years): larger is not a profile */
#define NS_DIFF_DTYPE_MAX     8          /* "bf16", "fp8", ... NUL included */
#define NS_DIFF_MAX_DEPTH     64   /* nesting of a saved report or profile (a report nests about 8 levels) */
#define NS_DIFF_MIN_STEP_US   1e-3 /* a side's mean step below this (1 ns) has no step time to compare */
/* The next steps a saved report predicted. */
#define NS_DIFF_MAX_NEXT  64 /* next_steps[] of the overall window */
#define NS_DIFF_TITLE_MAX 64 /* bytes of a next step's title kept, NUL included (longer ones are cut) */

/* The noise rule (ns_diff_noise_judge). */
#define NS_DIFF_BOOTSTRAP_RESAMPLES 1000
#define NS_DIFF_BOOTSTRAP_SEED      UINT64_C(0x6e65787473746570)
#define NS_DIFF_BOOTSTRAP_LEVEL     0.95
/* A bucket that lost at least this fraction of its time per step "shrank"; one that gained as much "grew". */
#define NS_DIFF_SHRINK_MIN 0.10

typedef enum { NS_DIFF_FROM_TRACE, NS_DIFF_FROM_REPORT, NS_DIFF_FROM_PROFILE } ns_diff_origin;

/* One kernel name's time in the whole run of one side. */
typedef struct {
	char *name; /* owned */
	ns_kernel_class cls;
	double us;
	long count;
} ns_diff_kernel;

/* One cause of one bucket (issue 10's causes), whole run. */
typedef struct {
	ns_regime bucket;
	char cause[NS_DIFF_CAUSE_MAX];
	double us;
} ns_diff_cause;

/* A next step a saved report predicted (its overall window's "next_steps" with a known bound): the fix's
 * bucket and cause ("" for a bucket without causes) and the most it could win a step. */
typedef struct {
	ns_regime bucket;
	char cause[NS_DIFF_CAUSE_MAX];
	char title[NS_DIFF_TITLE_MAX];
	double predicted_us;
	/* the most the fix can win a step at all: predicted_us, except for a bound that is a floor of the
	 * headroom (compute kernels bounded by the tensor-core peak ratio without a placement,
	 * docs/next-step.md "Precision"), whose fix can win up to the time its kernels hold ("held_us") */
	double ceiling_us;
	bool estimate; /* that floor: the report said "about" */
	double
	    launch_us;  /* the optimizer's: of its time, the launch time it claims from overhead.launch a step
	                   ("launch_us"; 0 when none) */
	uint32_t spans; /* the step capture's causes ("causes": one bit per ns_cause; 0 for the rest): its
	                   time is theirs summed (docs/trace.md, "Capturing the step") */
	/* the report gave no bound ("gain_us": null, e.g. kernels not placed on the roofline): predicted_us
	 * and ceiling_us are 0, and what the fix achieved is still checked, but never against a bound */
	bool unbounded;
	/* a slow host op's ("op"; "" for any other candidate): of overhead.launch, the time inside that op a
	 * step is its held_us (docs/trace.md, "A slow host op"); cut to the title's bytes */
	char op[NS_DIFF_TITLE_MAX];
} ns_diff_prediction;

/* A device's "steps" array in a saved report's text (ns_diff_side.report_text): the report's tree holds an
 * empty array in its place (placeholder), and its steps are parsed one at a time when they are read or
 * printed. */
typedef struct {
	const cJSON *placeholder;
	size_t off, len; /* the array's bytes in the text, brackets included */
} ns_diff_steps_text;

/* One side of the comparison. Owns everything; free with ns_diff_side_free(). */
typedef struct {
	ns_diff_origin origin;
	bool has_time;   /* false for a profile: shares only, no step time */
	size_t nsteps;   /* step windows (a trace without markers has one whole-trace window) */
	double *step_us; /* nsteps window lengths, in time order */
	double (*step_bucket_us)[NS_REGIME_COUNT]; /* nsteps rows of bucket time */
	double dur_us;                             /* whole run: sum of the windows */
	double bucket_us[NS_REGIME_COUNT];         /* whole run */
	ns_profile shares;                         /* whole-run shares (a profile: as given) */
	ns_diff_cause *causes;                     /* whole run; none when the input had none */
	size_t ncauses;
	ns_diff_kernel *kernels; /* largest first */
	size_t nkernels;
	bool kernels_partial; /* the list may leave out kernels (a saved report lists only its top N) */
	bool step_markers;    /* the windows are ProfilerStep# steps (else one whole-trace window) */
	char device[NS_DIFF_DEVICE_MAX]; /* the compared device's name, "" when unknown */
	size_t ndevices;                 /* devices in the input; the busiest one is compared */
	size_t nranks;                   /* distinct ranks named in the input; 0 when none is */
	char
	    dtype[NS_DIFF_DTYPE_MAX]; /* dtype of the compute kernels by time, from their names; "" unknown */
	/* the report's next steps with a known bound, ranked; none from an older report or a profile */
	ns_diff_prediction *predicted;
	size_t npredicted;
	cJSON
	    *report; /* the report object R of this side, as printed in the diff JSON; NULL for a trace... */
	/* ...whose R is its report, printed from its split when the diff's JSON is (owned, with its name; the
	 * classifier and routes are ns_diff_load_options', borrowed: they must outlive the side) */
	ns_split_result *trace;
	ns_troof_report *trace_roof; /* its ops placed for the next steps' bounds, or NULL (owned) */
	/* its devices' reports, decided once when it was loaded and printed as they are (owned) */
	struct ns_device_report *trace_reports;
	char *trace_source;
	const ns_classify_options *trace_classify;
	const ns_routes *trace_routes;
	const ns_device_table *trace_devices; /* ns_diff_load_options' devices, borrowed as above */
	size_t trace_top;
	/* a saved report's text, held for its devices' steps (NULL otherwise) */
	char *report_text;
	size_t report_len;
	ns_diff_steps_text *steps_text; /* in document order */
	size_t nsteps_text;
} ns_diff_side;

/* What loading a side needs: a kernel table per side for traces (borrowed; a ns_kernel_rules serves one
 * thread at a time, so ns_diff_load_pair reads side i with rules[i]: load the table twice), the classifier
 * and routes for the report objects, how many kernels the printed report object lists (its top_kernels,
 * as `nextstep trace --top`), and the device table of the report's fp32 advice. */
typedef struct {
	const ns_kernel_rules *rules[2];
	const ns_classify_options *classify;
	const ns_routes *routes;
	size_t report_top;
	const ns_device_table *devices; /* peaks for the fp32 advice and its bound, as `trace` has them (NULL:
	                                   none); borrowed, it must outlive the sides */
} ns_diff_load_options;

NS_STATIC_API void ns_diff_side_init(ns_diff_side *s);
/* The dtype a kernel name spells ("bf16", "fp16", "fp32", "tf32", "fp8", ...), or NULL when it does not say.
 */
NS_STATIC_API const char *ns_diff_dtype_of_name(const char *name);
NS_STATIC_API void ns_diff_side_free(ns_diff_side *s);

/* Summarises a report document (`nextstep trace --format json`) into s, which ns_diff_side_init() made empty;
 * s->report is left for the caller to set (and free with the side). Unknown keys
 * are ignored (newer reports add fields); missing or ill-typed required fields, values out of range and
 * breached limits are errors whose message starts with the JSON path ("devices[0].steps[3].dur_us: ..."). */
NS_STATIC_API ns_status ns_diff_side_from_report(const cJSON *doc, ns_diff_side *s, ns_error *err);
/* A saved report or a profile JSON (one object, as the router reads it) from text. A syntax error sets
 * err->line. */
NS_STATIC_API ns_status ns_diff_side_parse(const char *text, size_t len, const ns_diff_load_options *o,
                                           ns_diff_side *s, ns_error *err);
/* Any input: a trace (plain or gzip, read and split with o->rules[which]), a saved report, or a profile.
 * Trace errors set err->offset (byte in the decompressed document). */
NS_STATIC_API ns_status ns_diff_side_load(ns_input *in, const ns_diff_load_options *o, int which,
                                          ns_diff_side *s, ns_error *err);
/* Loads both sides: two traces at once on two threads, else one after the other. Each side has its own error;
 * the status is NS_OK only when both loaded. */
NS_STATIC_API ns_status ns_diff_load_pair(ns_input *before, ns_input *after, const ns_diff_load_options *o,
                                          ns_diff_side sides[2], ns_error errs[2]);

/* Step-time statistics of one side, in ms. */
typedef struct {
	size_t n;
	double mean, median, min, max;
} ns_diff_step_stats;

NS_STATIC_API void ns_diff_step_stats_of(const double *step_us, size_t n, ns_diff_step_stats *out);

/* The noise rule: a percentile bootstrap (NS_DIFF_BOOTSTRAP_RESAMPLES resamples of the steps of each side,
 * fixed seed) of the speed-up = mean BEFORE step / mean AFTER step. The change is significant when the
 * NS_DIFF_BOOTSTRAP_LEVEL interval excludes 1. With fewer than two steps on a side the spread is unknown and
 * nothing is significant. */
typedef struct {
	double speedup; /* on the steps as they are */
	double lo, hi;  /* the interval */
	bool known;     /* at least two steps on each side */
	bool significant;
} ns_diff_noise;

NS_STATIC_API void ns_diff_noise_judge(const double *before_us, size_t nb, const double *after_us, size_t na,
                                       ns_diff_noise *out);

typedef enum {
	NS_DIFF_NO_CHANGE, /* identical steps and buckets */
	NS_DIFF_FASTER,    /* significant */
	NS_DIFF_SLOWER,    /* significant */
	NS_DIFF_NOT_SIGNIFICANT,
	NS_DIFF_TIME_UNKNOWN /* a side has no step time (a profile) */
} ns_diff_change;

/* What became of a bucket BEFORE named (its regime, or a high finding). */
typedef enum { NS_FATE_FIXED, NS_FATE_SHRANK, NS_FATE_UNCHANGED, NS_FATE_GREW } ns_diff_fate;

typedef struct {
	ns_regime bucket;
	bool was_regime; /* BEFORE's verdict (else a high finding) */
	ns_diff_fate fate;
	double before_share, after_share; /* of the whole run */
	double before_ms, after_ms;       /* per step; 0 when the time is unknown */
} ns_diff_target;

/* One kernel name's change; a side that does not list the name has *_known false when its list is
 * partial, else zero time. */
typedef struct {
	const char *name; /* borrowed from a side */
	ns_kernel_class cls;
	bool before_known, after_known;
	double before_ms, after_ms, delta_ms; /* per step */
	long before_count, after_count;       /* whole run */
} ns_diff_kernel_delta;

typedef struct {
	ns_regime bucket;
	const char *cause; /* borrowed from a side */
	double before_ms, after_ms, delta_ms;
} ns_diff_cause_delta;

/* A difference between the sides that makes the comparison suspect. */
typedef struct {
	const char *what; /* "device", "GEMM dtype", "step markers", "number of devices", "number of ranks" */
	char before[NS_DIFF_DEVICE_MAX], after[NS_DIFF_DEVICE_MAX];
} ns_diff_suspect;

#define NS_DIFF_MAX_SUSPECTS 8

/* Room for one line of a diff's words (a check, the exceeded bound), NUL included. */
#define NS_DIFF_WORDS_MAX (NS_DIFF_TITLE_MAX * 4 + 256)
/* Room for the headline, NUL included. */
#define NS_DIFF_HEADLINE_MAX 1024

/* A next step BEFORE predicted, checked against AFTER (docs/next-step.md): its cause's time a step on each
 * side, and the step time the fix achieved: the fall of its cause, at most its bucket's and the step's
 * (never negative). Applied: its cause fell by NS_DIFF_SHRINK_MIN of its time or more, and it achieved some.
 */
typedef struct {
	const ns_diff_prediction *p; /* borrowed from BEFORE */
	double before_ms, after_ms;
	double achieved_ms;
	bool applied;
	bool shown;                    /* every form says it: applied, or BEFORE's top prediction */
	char words[NS_DIFF_WORDS_MAX]; /* when shown: ns_diff_check_words(), as every form prints it */
} ns_diff_check;

/* The comparison. Borrows names from the two sides, which must outlive it; free with ns_diff_result_free().
 */
typedef struct {
	ns_diff_change change;
	ns_diff_step_stats before, after; /* ms; n = 0 when the time is unknown */
	ns_diff_noise noise;
	double speedup;                          /* mean before / mean after; 0 when unknown */
	double bucket_ms[2][NS_REGIME_COUNT];    /* per step = whole-run bucket / steps */
	ns_verdict verdict[2];                   /* whole-run verdicts */
	ns_diff_target targets[NS_REGIME_COUNT]; /* BEFORE's regime first, then its high findings */
	size_t ntargets;
	ns_diff_kernel_delta *kernels; /* by |delta| descending, kernels known on both sides first */
	size_t nkernels;
	ns_diff_cause_delta *causes;
	size_t ncauses;
	ns_diff_suspect suspects[NS_DIFF_MAX_SUSPECTS];
	size_t nsuspects;
	ns_diff_check *checks; /* one per BEFORE prediction, in its order */
	size_t nchecks;
	double saved_ms;        /* mean step BEFORE - mean step AFTER (0 when the time is unknown) */
	double applied_ms;      /* the predictions of the applied fixes, summed */
	bool applied_unbounded; /* an applied fix had no bound: it may account for any saving past applied_ms
	                         */
	bool over_bound; /* the step saved more than applied_ms: a bound was wrong, or something else changed
	                  */
	/* The words every form prints, decided here once (text, JSON and HTML only render them). */
	char headline[NS_DIFF_HEADLINE_MAX]; /* ns_diff_headline() */
	char exceeded[NS_DIFF_WORDS_MAX];    /* ns_diff_exceeded_words() when over_bound, else "" */
} ns_diff_result;

/* The comparison and its words (the diff's report model: every form renders it). */
NS_STATIC_API ns_status ns_diff_compare(const ns_diff_side *before, const ns_diff_side *after,
                                        const ns_classify_options *o, ns_diff_result *r, ns_error *err);
NS_STATIC_API void ns_diff_result_free(ns_diff_result *r);

/* The whole workflow in one value: both sides loaded and compared. Free with ns_diff_free(). */
typedef struct {
	ns_diff_side side[2];
	ns_error side_err[2];  /* each side's load error (status NS_OK when it loaded) */
	ns_diff_result result; /* when ns_diff_analyse() returned NS_OK */
	bool compared;
} ns_diff;

/* Loads BEFORE and AFTER (traces, saved reports or profiles: ns_diff_load_pair) and compares them with
 * o->classify. NS_OK: d->result holds the comparison and its words. Else a side did not load (its error in
 * d->side_err[i], both sides' said) or the comparison failed (err). d is always the caller's to free. */
NS_STATIC_API ns_status ns_diff_analyse(ns_input *before, ns_input *after, const ns_diff_load_options *o,
                                        ns_diff *d, ns_error *err);
NS_STATIC_API void ns_diff_free(ns_diff *d);

/* A shown check in words, as every form prints it after "prediction: ": "data loader: predicted up to 59.262
 * ms, achieved 36.502 ms (62% of the bound)", or "..., not applied (its time a step 3.000 -> 2.900 ms)"; the
 * title escaped for a terminal. */
NS_STATIC_API void ns_diff_check_words(const ns_diff_check *c, char *buf, size_t size);
/* r->over_bound in words: "the step saved X ms, more than the Y ms the applied fixes could win: ...". */
NS_STATIC_API void ns_diff_exceeded_words(const ns_diff_result *r, char *buf, size_t size);
/* The first line: "step 177.6 ms -> 141.1 ms (1.26x faster); dataloader-bound fixed: ...; now ...". */
NS_STATIC_API void ns_diff_headline(const ns_diff_result *r, char *buf, size_t size);
typedef struct {
	const char *names[2]; /* how to call the two inputs */
	bool verbose;         /* add what moved */
	size_t top;           /* kernels listed (text and JSON) */
} ns_diff_print_options;

/* The text output: the headline, one line per suspect difference, and with verbose what moved. */
NS_STATIC_API void ns_diff_print_text(FILE *out, const ns_diff_side *before, const ns_diff_side *after,
                                      const ns_diff_result *r, const ns_diff_print_options *o);
/* CI gates. Slower: AFTER's median step is more than pct percent above BEFORE's and the change is
 * significant. Regime: the two whole-run verdicts name different regimes. */
NS_STATIC_API bool ns_diff_gate_slower(const ns_diff_result *r, double pct);
NS_STATIC_API bool ns_diff_gate_regime(const ns_diff_result *r);
/* The JSON document (docs/diff.md) and a newline, written as it is made: a trace side's report (its "before"
 * or "after") is printed from its split, not held. NS_ERR_NOMEM or NS_ERR_IO (the document is then cut
 * short, its line ended). */
NS_STATIC_API ns_status ns_diff_print_json(FILE *out, const ns_diff_side *before, const ns_diff_side *after,
                                           const ns_diff_result *r, size_t top, ns_error *err);
/* The word for the change: "no change", "faster", "slower", "no significant change", "time unknown". */
NS_STATIC_API const char *ns_diff_change_name(ns_diff_change c);
NS_STATIC_API const char *ns_diff_fate_name(ns_diff_fate f);

NS_END_DECLS

#endif
