/* The next steps of a window: one candidate per cause with a fix, each bounded by the time its cause holds
 * where the step waits on it (docs/next-step.md). The split already gives every nanosecond of a window to
 * exactly one bucket and cause, first match wins, and only time in which nothing of an earlier bucket runs
 * reaches the host-side buckets: a cause's time is then the time the step waits on it, and no two causes
 * share any of it. */
#include "nextstep/next_step.h"

#include <stdio.h>
#include <string.h>

/* Causes whose rule is not their bucket's (bucket_rule below). */
static const struct {
	ns_cause cause;
	ns_gain_rule rule;
} cause_rules[] = {
    {NS_CAUSE_KERNELS, NS_GAIN_ROOFLINE}, /* memory-bound kernels: faster only up to the bandwidth roof */
    {NS_CAUSE_WAIT, NS_GAIN_NONE},        /* a rank's waiting is the straggler's to win (job_report.c) */
};

/* Titles: the words for each fix's target. A cause missing here is named by its key. */
static const char *const cause_titles[NS_CAUSE_COUNT] = {
    [NS_CAUSE_LAUNCH] = "launch overhead",
    [NS_CAUSE_HOST_THREADS] = "other host threads",
    [NS_CAUSE_SYNC] = "blocking syncs",
    [NS_CAUSE_INIT] = "start-up",
    [NS_CAUSE_HOST_GAP] = "unrecorded host time",
    [NS_CAUSE_SYNC_WAIT] = "synchronize waits",
    [NS_CAUSE_TRANSFER] = "transfers",
    [NS_CAUSE_KERNELS] = "memory-bound kernels",
    [NS_CAUSE_EXPOSED] = "exposed communication",
    [NS_CAUSE_HOST_COMM] = "host collectives",
    [NS_CAUSE_OPTIMIZER] = "optimizer step",
    [NS_CAUSE_WAIT] = "waiting for a straggler",
    [NS_CAUSE_COMM_TRANSFER] = "exposed comm transfer",
};

/* Findings the trace's evidence routes a cause to whose target the cause's title misnames: the allocator's
 * calls in every steady step are set-up time, but not start-up. */
static const struct {
	ns_finding_kind finding;
	const char *title;
} finding_titles[] = {
    {NS_FINDING_ALLOC_STEPS, "allocator calls in the steps"},
    {NS_FINDING_HOST_STALLS, "host stalls"},
    {NS_FINDING_STEP_CAPTURE, "step capture"},
    {NS_FINDING_SLOW_HOST_OP, "slow host op"},
    {NS_FINDING_HOST_OP_CUDNN_ATTENTION, "slow host op"},
    {NS_FINDING_STEP_CAPTURE_INFERENCE, "step capture"},
};

static const char *const bucket_titles[NS_REGIME_COUNT] = {
    [NS_REGIME_COMPUTE] = "compute-bound kernels",
    [NS_REGIME_MEMORY] = "memory",
    [NS_REGIME_COMM] = "communication",
    [NS_REGIME_DATALOADER] = "data loader",
    [NS_REGIME_OVERHEAD] = "host overhead",
    [NS_REGIME_IDLE] = "idle",
};

static const char *const rule_names[] = {"waiting", "exposed", "roofline", "straggler", "none"};

/* A bucket's rule, and the rule of a cause the table does not name: the host-side buckets hold time in which
 * the device is idle; memory and comm time not in a kernel class of their own is device work running alone
 * (copies, collectives); compute is kernels. */
static ns_gain_rule bucket_rule(ns_regime b)
{
	switch (b) {
	case NS_REGIME_COMPUTE:
		return NS_GAIN_ROOFLINE;
	case NS_REGIME_MEMORY:
	case NS_REGIME_COMM:
		return NS_GAIN_EXPOSED;
	default:
		return NS_GAIN_WAITING;
	}
}

ns_gain_rule ns_gain_rule_of(ns_regime bucket, int cause)
{
	for (size_t i = 0; cause >= 0 && i < sizeof(cause_rules) / sizeof(cause_rules[0]); i++)
		if ((int)cause_rules[i].cause == cause)
			return cause_rules[i].rule;
	return bucket_rule(bucket);
}

const char *ns_gain_rule_name(ns_gain_rule r)
{
	return (unsigned)r < sizeof(rule_names) / sizeof(rule_names[0]) ? rule_names[r] : NULL;
}

const char *ns_next_step_title(const ns_next_step *s, char *buf, size_t size)
{
	for (size_t i = 0; s->finding != NULL && i < sizeof(finding_titles) / sizeof(finding_titles[0]); i++)
		if (strcmp(s->finding, ns_finding_name(finding_titles[i].finding)) == 0) {
			snprintf(buf, size, "%s%s%s", finding_titles[i].title, s->op[0] != '\0' ? ": " : "",
			         s->op);
			return buf;
		}
	if (s->rule == NS_GAIN_STRAGGLER)
		snprintf(buf, size, "straggler rank %lld", (long long)s->rank);
	else if (s->cause < 0)
		snprintf(buf, size, "%s",
		         (unsigned)s->bucket < NS_REGIME_COUNT ? bucket_titles[s->bucket] : "");
	else if (s->cause < NS_CAUSE_COUNT && cause_titles[s->cause] != NULL)
		snprintf(buf, size, "%s", cause_titles[s->cause]);
	else
		ns_cause_key((ns_cause)s->cause, buf, (unsigned)size);
	return buf;
}

const char *ns_next_step_bound_word(const ns_next_step *s)
{
	return s->estimate ? "about" : "up to";
}

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

/* known before unknown; a larger bound (known) or held time (unknown) first; then bucket, then cause. */
static bool ranks_before(const ns_next_step *a, const ns_next_step *b)
{
	int64_t x = a->known ? a->gain_ns : a->held_ns, y = b->known ? b->gain_ns : b->held_ns;

	if (a->known != b->known)
		return a->known;
	if (x != y)
		return x > y;
	if (a->bucket != b->bucket)
		return a->bucket < b->bucket;
	return a->cause < b->cause;
}

void ns_next_steps_add(ns_next_steps *s, const ns_next_step *c)
{
	size_t at = s->n;

	if (s->n >= NS_NEXT_STEPS_MAX)
		return;
	while (at > 0 && ranks_before(c, &s->item[at - 1])) {
		s->item[at] = s->item[at - 1];
		at--;
	}
	s->item[at] = *c;
	s->n++;
}

/* The first candidate holding the most time with its bound unknown, or NULL when none holds any. */
static const ns_next_step *most_unknown(const ns_next_steps *s)
{
	const ns_next_step *most = NULL;

	for (size_t i = 0; i < s->n; i++)
		if (s->item[i].unknown_ns > 0 && (most == NULL || s->item[i].unknown_ns > most->unknown_ns))
			most = &s->item[i];
	return most;
}

const ns_next_step *ns_next_steps_top(const ns_next_steps *s)
{
	const ns_next_step *top = s->n > 0 && s->item[0].known && s->item[0].gain_ns > 0 ? &s->item[0] : NULL;
	const ns_next_step *unknown = most_unknown(s);

	/* 1 % of the step named first while kernels of unknown bound hold the rest is not what to do first:
	 * a bound under the moderate share does not lead over one that may be larger (docs/next-step.md) */
	if (top != NULL && unknown != NULL && top->gain_share < NS_NEXT_STEP_LEAD_SHARE &&
	    unknown->unknown_ns > top->gain_ns &&
	    (double)unknown->unknown_ns >= NS_NEXT_STEP_LEAD_SHARE * (double)s->step_ns)
		return NULL;
	return top;
}

const ns_next_step *ns_next_steps_runner_up(const ns_next_steps *s)
{
	const ns_next_step *top = ns_next_steps_top(s);

	if (top == NULL || s->n < 2 || !s->item[1].known || s->item[1].gain_ns <= 0)
		return NULL;
	return 2 * s->item[1].gain_ns >= top->gain_ns ? &s->item[1] : NULL;
}

const ns_next_step *ns_next_steps_unbounded(const ns_next_steps *s)
{
	const ns_next_step *top = ns_next_steps_top(s), *most = most_unknown(s);

	return most != NULL && (top == NULL || most->unknown_ns > top->gain_ns) ? most : NULL;
}

/* The fix of a candidate: its cause's route, else its bucket's; a decode window's memory kernels read the
 * weights and the KV cache (report_cause_routes() does the same for the headline). */
static ns_route candidate_route(const ns_split_window *w, ns_regime b, int c, const ns_routes *r,
                                const ns_next_inputs *in)
{
	if (c == NS_CAUSE_LAUNCH && in != NULL && in->host_op != NULL && in->launch_rest != NULL)
		/* the launch time outside the slow host op keeps its route */
		return in->launch_rest->fix != NULL ? *in->launch_rest : r->route[b];
	if (c == NS_CAUSE_KERNELS && w->phase == NS_STEP_PHASE_DECODE &&
	    r->finding[NS_FINDING_DECODE_MEMORY].fix != NULL)
		return r->finding[NS_FINDING_DECODE_MEMORY];
	if (c >= 0 && r->cause[c].fix != NULL)
		return r->cause[c];
	return r->route[b];
}

/* The key of the titled finding whose route the evidence gave the candidate (the routes copy a finding's
 * route whole, so its fix is the finding's own string), or NULL. */
static const char *titled_finding(const ns_route *route, const ns_routes *r)
{
	for (size_t i = 0; route->fix != NULL && i < sizeof(finding_titles) / sizeof(finding_titles[0]); i++)
		if (route->fix == r->finding[finding_titles[i].finding].fix)
			return ns_finding_name(finding_titles[i].finding);
	return NULL;
}

static bool class_of_candidate(ns_regime b, int c, ns_kernel_class *k)
{
	if (b == NS_REGIME_COMPUTE)
		*k = NS_KCLASS_COMPUTE;
	else if (b == NS_REGIME_MEMORY && c == NS_CAUSE_KERNELS)
		*k = NS_KCLASS_MEMORY;
	else
		return false;
	return true;
}

/* A class at most this share above the roof it can reach is near it: a better kernel has little to win. The
 * roofs are the datasheets' peaks, which kernels do not reach: a memory kernel streams at about 90 % of the
 * HBM peak, and tensor-core GEMMs, convolutions and attention at about 70-80 % of the dense peak (cuBLAS's
 * bf16 GEMMs of 8192 x 32768 x 8192 on the recorded H200, tests/data/real/compute_bound: 723-745 TFLOP/s of
 * 989.5, 73-75 %), so compute is near its roof sooner. */
#define ROOF_NEAR_MEMORY  0.2
#define ROOF_NEAR_COMPUTE 0.3

double ns_roof_above_share(const ns_roof_time *t)
{
	double placed = (double)t->placed_ns;

	return t->roof_ns < t->placed_ns && placed > 0.0 ? (placed - (double)t->roof_ns) / placed : 0.0;
}

bool ns_roof_near(const ns_roof_time *t, ns_regime bucket)
{
	return ns_roof_above_share(t) <= (bucket == NS_REGIME_COMPUTE ? ROOF_NEAR_COMPUTE : ROOF_NEAR_MEMORY);
}

/* Compute ops near their roof whose 16-bit GEMMs an fp8 roof would run faster: the lower precision the
 * compute fix names is what is left, so the bound is at the fp8 roof. */
bool ns_roof_fp8_reach(const ns_roof_time *t, ns_regime bucket)
{
	return bucket == NS_REGIME_COMPUTE && t->fp8_ns > 0 && t->fp8_roof_ns < t->roof_ns &&
	       ns_roof_near(t, bucket);
}

static const char *const roof_state_names[] = {"not_run", "none", "placed"};

const char *ns_roof_state_name(ns_roof_state s)
{
	return (unsigned)s < sizeof(roof_state_names) / sizeof(roof_state_names[0]) ? roof_state_names[s]
	                                                                            : NULL;
}

static void unknown_bound(ns_next_step *c, const ns_roof_time *t)
{
	c->known = false;
	c->gain_ns = 0;
	c->unknown_ns = c->held_ns;
	c->roof = t != NULL ? t->state : NS_ROOF_NOT_RUN;
	c->roof_why = t != NULL && t->state == NS_ROOF_NONE ? t->why : NULL;
	c->no_shapes = t != NULL && t->state == NS_ROOF_NONE && t->no_shapes;
	if (t == NULL || t->state == NS_ROOF_NOT_RUN)
		snprintf(
		    c->basis, sizeof(c->basis),
		    "%.3f ms a step in these kernels; their ops were not placed on the roofline: how much "
		    "faster they can run is unknown",
		    ms(c->held_ns));
	else
		snprintf(
		    c->basis, sizeof(c->basis),
		    "%.3f ms a step in these kernels, none of their ops placed on the roofline (%s): how "
		    "much faster they can run is unknown",
		    ms(c->held_ns), t->why != NULL ? t->why : "no placement");
}

/* Compute kernels with no placement whose route is autocast: fp32 GEMMs and convolutions on the CUDA cores
 * execute at most the fp32 peak's FLOPs in their time t, so at the 16-bit tensor-core peak, ratio times the
 * fp32 peak, the same FLOPs take at most t / ratio. The headroom a placement would find is at least
 * t (1 - 1/ratio), whatever their shapes: that is the bound, a conservative one (docs/next-step.md,
 * "Precision"). The compute time not in those kernels stays unknown. */
static bool precision_bound(ns_next_step *c, const ns_next_inputs *in)
{
	double fp32, gain;

	if (in == NULL || c->bucket != NS_REGIME_COMPUTE || in->tensor_ratio <= 1.0 || in->fp32_share <= 0.0)
		return false;
	fp32 = (double)c->held_ns * (in->fp32_share < 1.0 ? in->fp32_share : 1.0);
	gain = fp32 * (1.0 - 1.0 / in->tensor_ratio);
	c->known = true;
	c->estimate = true;
	c->gain_ns = (int64_t)gain;
	c->unknown_ns = c->held_ns - (int64_t)fp32;
	snprintf(
	    c->basis, sizeof(c->basis),
	    "%.3f ms a step in these kernels, %.3f ms of it fp32 GEMMs and convolutions on the CUDA cores: "
	    "at the 16-bit tensor-core peak (%.1fx fp32) their FLOPs take at most 1/%.1f of that, so at "
	    "least "
	    "%.3f ms is above that roof; placing their ops on the roofline gives the full bound",
	    ms(c->held_ns), ms((int64_t)fp32), in->tensor_ratio, in->tensor_ratio, ms(c->gain_ns));
	return true;
}

/* Memory-bound kernels at their roof still move the bytes their ops read and write; the fix the route names
 * first, fusion (and a smaller dtype), removes bytes, which the roof does not bound. The placement's headroom
 * is then a floor, what a better kernel wins at the same bytes, and what the fix can win at all is the time
 * the kernels hold: an estimate, as the precision bound is (docs/next-step.md, "Roofline"). */
static void memory_roof_basis(ns_next_step *c, double covered, double above)
{
	c->estimate = true;
	snprintf(
	    c->basis, sizeof(c->basis),
	    "%.3f ms a step in these kernels, %.0f%% of it in ops placed on the roofline, which would "
	    "take %.0f%% of their time at their roof: a better kernel wins at least %.3f ms at the same "
	    "bytes%s; fusion or a smaller dtype moves fewer bytes and can win more, up to the %.3f ms they "
	    "hold",
	    ms(c->held_ns), 100.0 * covered, 100.0 * (1.0 - above), ms(c->gain_ns),
	    c->unknown_ns > 0 ? " (the rest, in ops not placed, is unknown)" : "", ms(c->held_ns));
}

/* A placed bound: of the time c holds, the share covered by placed ops, and of that the share above the reach
 * (the rest, in ops not placed, is unknown_ns). */
static void placed_bound(ns_next_step *c, double covered, double above)
{
	c->known = true;
	c->roof = NS_ROOF_PLACED;
	c->placed_share = covered;
	c->gain_ns = (int64_t)((double)c->held_ns * covered * above);
	c->unknown_ns = c->held_ns - (int64_t)((double)c->held_ns * covered);
	if (c->gain_ns > c->held_ns)
		c->gain_ns = c->held_ns;
}

/* Compute ops near their roof with 16-bit GEMMs: of the placed time, the share above the fp8 reach
 * (ns_roof_time.fp8_roof_ns) is the bound. */
static void fp8_roof_bound(ns_next_step *c, const ns_roof_time *t, double covered, double above)
{
	double placed = (double)t->placed_ns, fp8_above = (placed - (double)t->fp8_roof_ns) / placed;

	placed_bound(c, covered, fp8_above);
	snprintf(
	    c->basis, sizeof(c->basis),
	    "%.3f ms a step in these kernels, %.0f%% of it in ops placed on the roofline, %.0f%% of whose "
	    "time is above their roof, about what the best kernels leave; with their 16-bit GEMMs (%.0f%% "
	    "of the placed time) at the fp8 roof they would take %.0f%% of it: fp8 matmuls win at most "
	    "%.3f ms%s",
	    ms(c->held_ns), 100.0 * covered, 100.0 * above, 100.0 * (double)t->fp8_ns / placed,
	    100.0 * (1.0 - fp8_above), ms(c->gain_ns),
	    c->unknown_ns > 0 ? "; the rest, in ops not placed, is unknown" : "");
}

/* Kernels: of the time the window holds in the class, the share in placed ops, and of that the share above
 * the roof the fix can reach (docs/next-step.md, "Roofline"). The rest, in ops not placed, has no bound: it
 * is unknown_ns, not counted in the bound. */
static void ns_roofline_bound(ns_next_step *c, const ns_next_inputs *in)
{
	const ns_roof_time *roof = in != NULL ? in->roof : NULL;
	ns_kernel_class k;
	const ns_roof_time *t = NULL;
	double covered, above, placed;

	if (roof != NULL && class_of_candidate(c->bucket, c->cause, &k))
		t = &roof[k];
	if (t == NULL || t->state != NS_ROOF_PLACED || t->placed_ns <= 0) {
		if (!precision_bound(c, in)) {
			unknown_bound(c, t);
		} else {
			c->roof = t != NULL ? t->state : NS_ROOF_NOT_RUN;
			c->roof_why = t != NULL && t->state == NS_ROOF_NONE ? t->why : NULL;
			c->no_shapes = t != NULL && t->state == NS_ROOF_NONE && t->no_shapes;
		}
		return;
	}
	placed = (double)t->placed_ns;
	covered = placed / (double)(t->kernel_ns > t->placed_ns ? t->kernel_ns : t->placed_ns);
	above = ns_roof_above_share(t);
	if (ns_roof_fp8_reach(t, c->bucket)) {
		fp8_roof_bound(c, t, covered, above);
		return;
	}
	placed_bound(c, covered, above);
	if (c->bucket == NS_REGIME_MEMORY) {
		memory_roof_basis(c, covered, above);
		return;
	}
	snprintf(c->basis, sizeof(c->basis),
	         "%.3f ms a step in these kernels, %.0f%% of it in ops placed on the roofline, which would "
	         "take %.0f%% of their time at %s: at most %.3f ms faster%s",
	         ms(c->held_ns), 100.0 * covered, 100.0 * (1.0 - above),
	         t->fp32_ns > 0 && t->roof_ns < t->own_roof_ns ? "their roof (fp32 work at the 16-bit roof)"
	                                                       : "their roof",
	         ms(c->gain_ns), c->unknown_ns > 0 ? "; the rest, in ops not placed, is unknown" : "");
}

/* The optimizer's launches, at most the window's launch time. */
static int64_t optimizer_launch(const ns_split_window *w, const ns_next_inputs *in)
{
	int64_t opt = in != NULL ? in->optimizer_launch_ns : 0;

	return opt < 0 ? 0 : opt < w->cause_ns[NS_CAUSE_LAUNCH] ? opt : w->cause_ns[NS_CAUSE_LAUNCH];
}

static void waiting_basis(ns_next_step *s)
{
	if (s->launch_ns > 0)
		snprintf(
		    s->basis, sizeof(s->basis),
		    "the device idles %.3f ms a step during the optimizer's step: %.3f ms while it launches "
		    "its per-tensor kernels (not counted under launch overhead) and %.3f ms between its "
		    "ops: a faster optimizer step wins at most that",
		    ms(s->held_ns), ms(s->launch_ns), ms(s->held_ns - s->launch_ns));
	else
		snprintf(s->basis, sizeof(s->basis),
		         "the device idles %.3f ms a step while the step waits on it: removing it wins at "
		         "most that",
		         ms(s->held_ns));
}

static void add_candidate(ns_next_steps *out, const ns_split_window *w, size_t steps, ns_regime b, int c,
                          int64_t held_ns, const ns_routes *routes, const ns_next_inputs *in)
{
	ns_next_step s;

	memset(&s, 0, sizeof(s));
	s.bucket = b;
	s.cause = c;
	s.rank = -1;
	s.rule = ns_gain_rule_of(b, c);
	s.held_ns = held_ns / (int64_t)steps;
	if (c == NS_CAUSE_OPTIMIZER)
		s.launch_ns = optimizer_launch(w, in) / (int64_t)steps;
	if (s.rule == NS_GAIN_NONE || s.held_ns <= 0)
		return;
	s.route = candidate_route(w, b, c, routes, in);
	s.finding = titled_finding(&s.route, routes);
	s.known = true;
	s.gain_ns = s.held_ns;
	if (s.rule == NS_GAIN_WAITING)
		waiting_basis(&s);
	else if (s.rule == NS_GAIN_EXPOSED)
		snprintf(s.basis, sizeof(s.basis),
		         "it runs alone on the device %.3f ms a step: under other work it would cost no step "
		         "time, so at most that",
		         ms(s.held_ns));
	else
		ns_roofline_bound(&s, in);
	s.gain_share = out->step_ns > 0 ? (double)s.gain_ns / (double)out->step_ns : 0.0;
	ns_next_steps_add(out, &s);
}

/* A slow host op's launch time (docs/trace.md, "A slow host op"), at most what the optimizer's launches
 * leave of the window's launch time (the two never share an instant in the split, but the caps keep the
 * candidates within the cause whatever the inputs say). */
static int64_t host_op_launch(const ns_split_window *w, const ns_next_inputs *in)
{
	int64_t op = in != NULL && in->host_op != NULL ? in->host_op_ns : 0,
	        left = w->cause_ns[NS_CAUSE_LAUNCH] - optimizer_launch(w, in);

	return op < 0 ? 0 : op < left ? op : left;
}

/* The slow host op's candidate: the launch time inside the op, with the op's route (the launch cause's,
 * which the evidence gave it) and its numbers in the basis. */
static void add_host_op(ns_next_steps *out, const ns_split_window *w, size_t steps, const ns_routes *routes,
                        const ns_next_inputs *in)
{
	ns_next_step s;
	int64_t calls = in->host_op_calls > 0 ? in->host_op_calls : 1;

	memset(&s, 0, sizeof(s));
	s.bucket = NS_REGIME_OVERHEAD;
	s.cause = NS_CAUSE_LAUNCH;
	s.rank = -1;
	s.rule = NS_GAIN_WAITING;
	s.held_ns = host_op_launch(w, in) / (int64_t)steps;
	if (s.held_ns <= 0)
		return;
	s.route = routes->cause[NS_CAUSE_LAUNCH];
	s.finding = in->host_op_finding;
	snprintf(s.op, sizeof(s.op), "%s", in->host_op);
	s.known = true;
	s.gain_ns = s.held_ns;
	snprintf(s.basis, sizeof(s.basis),
	         "the device idles %.3f ms a step while the step thread is inside %s (%.1f calls a step of "
	         "%.3f ms host time each, %.1f launch calls a call): a faster op wins at most that",
	         ms(s.held_ns), s.op, (double)in->host_op_calls / (double)steps,
	         ms(in->host_op_host_ns / calls), (double)in->host_op_launches / (double)calls);
	s.gain_share = out->step_ns > 0 ? (double)s.gain_ns / (double)out->step_ns : 0.0;
	ns_next_steps_add(out, &s);
}

/* The time a cause's candidate holds: its own, except that the optimizer's launches inside its step go to
 * the optimizer's candidate (one fix removes them: a fused or foreach optimizer), not to launch overhead's
 * generic fix. Never more than the launch time the window has. */
static int64_t held_of(const ns_split_window *w, int c, const ns_next_inputs *in)
{
	int64_t opt = optimizer_launch(w, in);

	if (c == NS_CAUSE_LAUNCH)
		return w->cause_ns[c] - opt - host_op_launch(w, in);
	if (c == NS_CAUSE_OPTIMIZER)
		return w->cause_ns[c] + opt;
	return w->cause_ns[c];
}

/* Capturing the step (docs/trace.md, "Capturing the step"). The causes a replay of the captured step
 * removes: the step thread's launches (the optimizer's among them), the other host threads' (the autograd
 * engine launching backward), the optimizer's host code between its ops, and the Python between the ops
 * (unrecorded host time), unless the evidence says that is preprocessing or native code, which a replay
 * does not run. Not blocking syncs: a sync inside the step breaks the capture, it is removed first. */
static const ns_cause capture_causes[] = {NS_CAUSE_LAUNCH, NS_CAUSE_HOST_THREADS, NS_CAUSE_OPTIMIZER,
                                          NS_CAUSE_HOST_GAP};
/* The rule's thresholds (docs/trace.md, "Capturing the step", derives them from the recorded traces:
 * the dispatch-bound H200 step has 1,640 kernels of 1.2 us GPU time and 31 us of dispatch each, 95 % of the
 * step; a step held by one slow host op has ms of host time a kernel). */
#define CAPTURE_STEP_SHARE  0.5    /* the causes hold at least half of the step: the step is host-bound */
#define CAPTURE_CAUSE_SHARE 0.05   /* a cause counts toward "several" when it holds 5 % of the step */
#define CAPTURE_KERNEL_NS   10000  /* mean GPU time a kernel: shorter than an eager launch costs the host */
#define CAPTURE_HOST_NS     100000 /* their time a kernel: more is a slow host op, not dispatch */
#define CAPTURE_SYNC_SHARE  0.1    /* blocking syncs past 10 % of the step: those are the first fix */

static bool capture_counts(const ns_routes *r, ns_cause c)
{
	const char *fix = r->cause[c].fix;

	if (fix == NULL)
		return true;
	if (c == NS_CAUSE_HOST_GAP)
		return fix != r->finding[NS_FINDING_PYTHON_PREPROCESS].fix &&
		       fix != r->finding[NS_FINDING_PYTHON_NATIVE].fix;
	if (c == NS_CAUSE_LAUNCH) /* stalls of trivial calls are the CPU lost, not dispatch */
		return fix != r->finding[NS_FINDING_HOST_STALLS].fix;
	return true;
}

/* Whether w's step is dispatch-bound on several host causes with short kernels and not yet captured; the
 * causes' time and bits in *held and *spans. */
static bool capture_fits(const ns_split_window *w, const ns_routes *r, int64_t *held, uint32_t *spans)
{
	int64_t sync = w->cause_ns[NS_CAUSE_SYNC] + w->cause_ns[NS_CAUSE_SYNC_WAIT];
	int several = 0;

	*held = 0;
	*spans = 0;
	if (w->dur_ns <= 0 || w->kernels <= 0 || w->kernel_ns < 0 || 2 * w->graph_ns >= w->kernel_ns)
		return false; /* nothing to judge by, or already captured */
	for (size_t i = 0; i < sizeof(capture_causes) / sizeof(capture_causes[0]); i++) {
		int64_t t = w->cause_ns[capture_causes[i]];
		if (t <= 0 || !capture_counts(r, capture_causes[i]))
			continue;
		*held += t;
		*spans |= 1u << capture_causes[i];
		several += (double)t >= CAPTURE_CAUSE_SHARE * (double)w->dur_ns;
	}
	return several >= 2 && (double)*held >= CAPTURE_STEP_SHARE * (double)w->dur_ns &&
	       w->kernel_ns <= CAPTURE_KERNEL_NS * (int64_t)w->kernels &&
	       *held <= CAPTURE_HOST_NS * (int64_t)w->kernels &&
	       (double)sync <= CAPTURE_SYNC_SHARE * (double)w->dur_ns;
}

static int64_t held_of(const ns_split_window *w, int c, const ns_next_inputs *in);

/* The basis names each cause with the time its own candidate holds (the optimizer's launches its). */
static void capture_basis(ns_next_step *s, const ns_split_window *w, size_t steps, const ns_next_inputs *in)
{
	int64_t per = (int64_t)steps,
	        sync = (w->cause_ns[NS_CAUSE_SYNC] + w->cause_ns[NS_CAUSE_SYNC_WAIT]) / per;
	size_t at = (size_t)snprintf(s->basis, sizeof(s->basis),
	                             "the device idles %.3f ms a step while the host dispatches %ld kernels "
	                             "a step of %.1f us GPU time each (",
	                             ms(s->held_ns), w->kernels / (long)per,
	                             (double)w->kernel_ns / (double)w->kernels / 1e3);
	for (size_t i = 0; i < sizeof(capture_causes) / sizeof(capture_causes[0]) && at < sizeof(s->basis);
	     i++)
		if (s->spans & (1u << capture_causes[i]))
			at += (size_t)snprintf(s->basis + at, sizeof(s->basis) - at, "%s%s %.3f",
			                       s->basis[at - 1] == '(' ? "" : ", ",
			                       cause_titles[capture_causes[i]],
			                       ms(held_of(w, capture_causes[i], in) / per));
	if (at < sizeof(s->basis))
		at += (size_t)snprintf(
		    s->basis + at, sizeof(s->basis) - at,
		    " ms): replaying the captured step launches them all at once, so at most that");
	if (sync > 0 && at < sizeof(s->basis))
		snprintf(
		    s->basis + at, sizeof(s->basis) - at,
		    "; its %.3f ms of blocking syncs must leave the step first (a sync breaks a capture)",
		    ms(sync));
}

/* The step capture: one candidate whose bound is the causes a replay removes together, ranked by it like
 * every candidate; the causes stay listed as the partial fixes. */
static void add_capture(ns_next_steps *out, const ns_split_window *w, size_t steps, const ns_routes *r,
                        const ns_next_inputs *in)
{
	ns_next_step s;
	int64_t held;
	uint32_t spans;

	if (r->finding[NS_FINDING_STEP_CAPTURE].fix == NULL || !capture_fits(w, r, &held, &spans))
		return;
	memset(&s, 0, sizeof(s));
	s.bucket = NS_REGIME_OVERHEAD;
	s.cause = -1;
	s.rank = -1;
	s.rule = NS_GAIN_WAITING;
	s.spans = spans;
	s.held_ns = held / (int64_t)steps;
	s.route = r->finding[NS_FINDING_STEP_CAPTURE];
	s.finding = ns_finding_name(NS_FINDING_STEP_CAPTURE);
	s.known = true;
	s.gain_ns = s.held_ns;
	s.gain_share = out->step_ns > 0 ? (double)s.gain_ns / (double)out->step_ns : 0.0;
	capture_basis(&s, w, steps, in);
	ns_next_steps_add(out, &s);
}

void ns_next_steps_of_window(const ns_split_window *w, size_t steps, const ns_routes *routes,
                             const ns_next_inputs *in, ns_next_steps *out)
{
	memset(out, 0, sizeof(*out));
	if (steps == 0)
		steps = 1;
	out->step_ns = w->dur_ns / (int64_t)steps;
	for (int b = 0; b < NS_REGIME_COUNT; b++) {
		bool divided = false;
		for (int c = 0; c < NS_CAUSE_COUNT; c++) {
			if (ns_cause_bucket((ns_cause)c) != (ns_regime)b)
				continue;
			divided = true;
			add_candidate(out, w, steps, (ns_regime)b, c, held_of(w, c, in), routes, in);
			if (c == NS_CAUSE_LAUNCH && in != NULL && in->host_op != NULL)
				add_host_op(out, w, steps, routes, in);
		}
		if (!divided)
			add_candidate(out, w, steps, (ns_regime)b, -1, w->bucket_ns[b], routes, in);
	}
	add_capture(out, w, steps, routes, in);
}
