/* The next steps (issue 21): every fix a report can name, each with an upper bound on the step time it can
 * win, ranked by that bound. The rules are in docs/next-step.md; in short, a fix can win only the time in
 * which the step waits on its cause (the device idle while the host does it, or the device running it
 * alone), the causes of a split never share a nanosecond, so the bounds never add up to more than the step,
 * and kernels can win only their time above the roofline, which is unknown until their ops are placed. */
#ifndef NEXTSTEP_NEXT_STEP_H
#define NEXTSTEP_NEXT_STEP_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/next_step.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "nextstep/api.h"
#include "nextstep/cause.h"
#include "nextstep/op_models.h"
#include "nextstep/routes.h"
#include "nextstep/trace_kernels.h"
#include "nextstep/trace_split.h"

NS_BEGIN_DECLS

/* How a candidate's bound is computed. */
typedef enum {
	NS_GAIN_WAITING,  /* host-side time with the device idle (data loader, overhead, idle, host comm): all
	                     of it */
	NS_GAIN_EXPOSED,  /* device work running alone that could run under other work (copies, collectives):
	                     all of it */
	NS_GAIN_ROOFLINE, /* kernels: their time minus their time at the roofline; unknown without a placement
	                   */
	NS_GAIN_STRAGGLER, /* a job's straggler: the others' waiting for it, at most its excess time */
	NS_GAIN_NONE /* no fix of its own: a rank's waiting for the others (the straggler's fix claims it) */
} ns_gain_rule;

/* The rule of a bucket's cause (cause -1: a bucket the split does not divide, compute or dataloader). A
 * cause not in the rule table gets its bucket's rule, so a new cause has a bound without new code. */
NS_STATIC_API ns_gain_rule ns_gain_rule_of(ns_regime bucket, int cause);

/* "waiting", "exposed", "roofline", "straggler", "none" (JSON "rule"). */
NS_STATIC_API const char *ns_gain_rule_name(ns_gain_rule r);

/* How much of a kernel class the op-level roofline (issue 22) covers. */
typedef enum {
	NS_ROOF_NOT_RUN, /* no placement was made: the caller's option that makes one applies (the CLI's
	                    --roofline) */
	NS_ROOF_NONE,  /* a placement was made and none of the class's time is in placed ops (`why` says why)
	                */
	NS_ROOF_PLACED /* some or all of the class's time is in placed ops */
} ns_roof_state;

#define NS_ROOF_FAMILIES 3

/* The roofline placement of one kernel class (issue 22 fills it from ns_troof_report: trace_roofline.h). The
 * times are over the extent the placement covers (the whole trace); a window's bound uses their ratios:
 * of the time the window holds in the class, the share placed_ns / max(kernel_ns, placed_ns) is in placed
 * ops, and of that, (placed_ns - roof_ns) / placed_ns is above the roof. */
typedef struct {
	ns_roof_state state;
	const char *why;   /* NS_ROOF_NONE: static words saying why nothing is placed */
	bool no_shapes;    /* NS_ROOF_NONE because a profiler trace records no op shapes (record_shapes) */
	int64_t kernel_ns; /* the class's kernel time */
	int64_t placed_ns; /* of it, the time of ops placed on the roofline */
	int64_t roof_ns;   /* the placed ops' time at the roof the class's fix can reach: their own dtype's,
	                      or for fp32 work of the computing families the device's 16-bit roof (the fix says
	                      "lower precision"); each op at most its own time */
	/* What the verdict line says of the class (issue 22 item 3). */
	int64_t own_roof_ns; /* the placed ops' time at their own dtype's roof, each at most its own time */
	int64_t fp32_ns;     /* of placed_ns, fp32 work a 16-bit roof applies to (0: none) */
	ns_dtype half;       /* that 16-bit roof's dtype (bf16, else fp16) */
	/* roof_ns with the 16-bit GEMMs at the device's fp8 roof, and their time (fp8_ns 0: no fp8 roof above
	 * theirs, or no such GEMM; fp8_roof_ns is then roof_ns). The compute fix reaches it when the ops are
	 * near their own roof (ns_roof_near). */
	int64_t fp8_roof_ns;
	int64_t fp8_ns;
	size_t nfamilies; /* the op families holding the class, most time first */
	ns_op_family family[NS_ROOF_FAMILIES];
	double family_fraction[NS_ROOF_FAMILIES]; /* each family's time at its roof over its time */
} ns_roof_time;

/* What a next step is computed from besides its window and routes. */
typedef struct {
	const ns_roof_time
	    *roof; /* indexed by ns_kernel_class; NULL: no placement was made (NS_ROOF_NOT_RUN) */
	/* Of the window's launch time (overhead.launch), the part inside the optimizer's step (the main
	 * thread in an Optimizer.step# span): the optimizer's own per-tensor launches, which a fused or
	 * foreach optimizer removes. 0 when none, or not known. */
	int64_t optimizer_launch_ns;
	/* When the compute route is autocast for fp32 GEMMs and convolutions on a GPU with tensor cores:
	 * their share of the compute class's kernel time, and the 16-bit tensor-core peak over the fp32 peak
	 * (both 0 otherwise). Without a placement they bound the compute candidate (docs/next-step.md,
	 * "Precision"). */
	double fp32_share;
	double tensor_ratio;
	/* A slow host op that the launch cause is routed to (docs/trace.md, "A slow host op"): of the
	 * window's launch time, the time inside it (0: none), its name and finding key (borrowed), the
	 * numbers its basis quotes (over the window), and the route the rest of the launch time keeps (NULL:
	 * the launch cause's). */
	int64_t host_op_ns;
	const char *host_op;
	const char *host_op_finding;
	int64_t host_op_calls, host_op_host_ns, host_op_launches;
	const ns_route *launch_rest;
} ns_next_inputs;

#define NS_BASIS_MAX   512
#define NS_NEXT_OP_MAX 128 /* bytes of a slow host op's name kept (ns_next_step.op) */

/* One candidate fix. Times are per step (the mean over the window's steps). */
typedef struct {
	ns_regime bucket;
	int cause; /* ns_cause, or -1 for compute and dataloader (not divided into causes) */
	ns_gain_rule rule;
	bool known;      /* false: no bound can be given (kernels without a roofline placement) */
	bool estimate;   /* the bound is a floor of the headroom, not a ceiling: said "about" (the tensor-core
	                    peak ratio's, docs/next-step.md "Precision") */
	int64_t gain_ns; /* the bound (0 when unknown) */
	int64_t held_ns; /* the time the cause holds; the bound is never more */
	double gain_share;    /* gain_ns / the step */
	int64_t rank;         /* NS_GAIN_STRAGGLER: the straggler; else -1 */
	ns_roof_state roof;   /* NS_GAIN_ROOFLINE: what the placement covers */
	const char *roof_why; /* NS_ROOF_NONE: why nothing of the class was placed (static text), or NULL */
	bool no_shapes;       /* NS_ROOF_NONE because the trace records no op shapes */
	double placed_share;  /* NS_GAIN_ROOFLINE: the share of held_ns in placed ops (0 unless placed) */
	int64_t unknown_ns;   /* of held_ns, the time whose bound is unknown (ops not placed) */
	int64_t launch_ns;    /* the optimizer's candidate: of held_ns, its launch time (overhead.launch)
	                         that the launch overhead candidate leaves to it */
	/* The step capture (docs/trace.md, "Capturing the step"): the causes, one bit per ns_cause, whose
	 * time it claims whole, each also a candidate of its own below it (the partial fixes); 0 for every
	 * other candidate. Its bucket is overhead, its cause -1. */
	uint32_t spans;
	bool has_batch;     /* the fix raises the batch and the trace's memory says how much larger fits */
	double batch_scale; /* then: the largest multiple of the batch that fits (device_memory.h) */
	ns_route route;     /* the fix; strings borrowed from the routes it was built with */
	/* The key (ns_finding_name) of the finding whose route the trace's evidence gave the cause, when
	 * that finding has a title of its own (allocator calls that recur in the steady steps are not
	 * "start-up"); NULL: the cause's title. */
	const char *finding;
	char basis[NS_BASIS_MAX]; /* the bound's reason, in words and numbers */
	char op[NS_NEXT_OP_MAX];  /* a slow host op's candidate: the op ("": another candidate) */
} ns_next_step;

#define NS_NEXT_STEPS_MAX (NS_CAUSE_COUNT + NS_REGIME_COUNT + 8)

/* The candidates of one window, ranked: known bounds first, largest first; then unknown bounds, by the time
 * their cause holds. Ties go to the earlier bucket, then the earlier cause (deterministic). The known bounds
 * never add up to more than step_ns. */
typedef struct {
	int64_t step_ns; /* the step the shares are of (the window's mean step) */
	size_t n;
	ns_next_step item[NS_NEXT_STEPS_MAX];
} ns_next_steps;

/* The candidates of w, a sum of `steps` windows (at least 1). routes gives each cause its fix (a cause
 * without one takes its bucket's; a decode window's memory kernels take the decode finding's); in may be
 * NULL (no placement, no optimizer launches known). */
NS_STATIC_API void ns_next_steps_of_window(const ns_split_window *w, size_t steps, const ns_routes *routes,
                                           const ns_next_inputs *in, ns_next_steps *out);
/* A few words naming the fix's target: "data loader", "launch overhead", "blocking syncs", "straggler rank
 * 3", "allocator calls in the steps" (a cause the evidence routed to a finding with a title), ...; a cause
 * not in the title table is named by its key ("idle.host_gap"). Written into buf (64 bytes are enough). */
NS_STATIC_API const char *ns_next_step_title(const ns_next_step *s, char *buf, size_t size);
/* How a known bound is said: "about" for an estimate (a floor of the headroom), else "up to". */
NS_STATIC_API const char *ns_next_step_bound_word(const ns_next_step *s);
/* Adds c in rank order (ignored when full). */
NS_STATIC_API void ns_next_steps_add(ns_next_steps *s, const ns_next_step *c);
/* The least share of the step a known bound wins to lead over time of unknown bound: the moderate grade's
 * (NS_CLASSIFY_MODERATE_DEFAULT). */
#define NS_NEXT_STEP_LEAD_SHARE 0.05
/* The first candidate with a known bound, or NULL; also NULL when that bound is under
 * NS_NEXT_STEP_LEAD_SHARE of the step while a candidate holds more time than it, at least that share, with
 * its bound unknown: the report then says what it cannot bound rather than name a trifle first. */
NS_STATIC_API const ns_next_step *ns_next_steps_top(const ns_next_steps *s);
/* The runner-up shown under the top: the second known bound when it is at least half the first. */
NS_STATIC_API const ns_next_step *ns_next_steps_runner_up(const ns_next_steps *s);
/* The candidate with the most time whose bound is unknown (unknown_ns: all of a class without a placement,
 * the part of a class in ops not placed) when that time is more than the top's bound (or any, without a
 * top): the report says what it cannot bound. NULL when none. */
NS_STATIC_API const ns_next_step *ns_next_steps_unbounded(const ns_next_steps *s);

/* "next step: data loader, up to 59.295 ms a step (33.4%) -> fix (module)" for the top candidate, "then: ..."
 * for the runner-up, and a line for a larger time whose bound is unknown. per_step: the window is a mean step
 * (else a whole trace: no "a step"). place_hint: the caller's words for how to place kernels on the
 * roofline ("--roofline"), said where no placement was made; NULL leaves it out. */
NS_STATIC_API void ns_next_steps_print(FILE *out, const ns_next_steps *s, bool per_step,
                                       const char *place_hint);
/* -v: every candidate, ranked, with its basis. */
NS_STATIC_API void ns_next_steps_print_all(FILE *out, const ns_next_steps *s, bool per_step,
                                           const char *place_hint);
/* "not_run", "none", "placed" (JSON "roofline"). */
NS_STATIC_API const char *ns_roof_state_name(ns_roof_state s);
/* Of a placed class's time, the share above the roof its fix can reach (roof_ns), at least 0. */
NS_STATIC_API double ns_roof_above_share(const ns_roof_time *t);
/* Whether that share is small enough that a better kernel has little to win: at most 30 % for compute,
 * 20 % for memory (the datasheet roofs are above what kernels reach; docs/next-step.md). */
NS_STATIC_API bool ns_roof_near(const ns_roof_time *t, ns_regime bucket);
/* Whether the class's bound is at the fp8 reach: compute near its roof with 16-bit GEMMs a faster fp8 roof
 * applies to (docs/next-step.md, "fp8 for 16-bit GEMMs near their roof"). */
NS_STATIC_API bool ns_roof_fp8_reach(const ns_roof_time *t, ns_regime bucket);
/* [{"bucket", "cause", "title", ["finding",] "fix", "module", "gain_us", "gain_share", ["estimate",]
 * ["shown",] "held_us", "rule", ["rank",] ["roofline", "placed_share", "unknown_us",] ["launch_us",]
 * ["batch_scale",] "basis"}, ...] in rank order (finding where the step has one; gain_us and gain_share null
 * when the bound is unknown; the roofline keys on kernel candidates, launch_us on the optimizer's when it
 * claims launch time, batch_scale where has_batch). With shown, "shown": true marks the top and the
 * runner-up, the lines a report prints (a list the text does not print, as an inference phase's, is given
 * without). NULL on OOM. */
NS_STATIC_API cJSON *ns_next_steps_json(const ns_next_steps *s, bool shown);

NS_END_DECLS

#endif
