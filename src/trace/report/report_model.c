/* A device's report decided once (issue 21): the verdict and the routes of its headline, whether it is
 * start-up or unfit, the optimizer finding, the with_stack hint, each inference phase routed on its own, and
 * the ranked next steps. The text, JSON and HTML printers read this and decide nothing. */
#include <stdio.h>
#include <string.h>

#include "nextstep/device_memory.h"
#include "nextstep/devices.h"
#include "trace/report/report_private.h"

_Static_assert(REPORT_FIX_SLOTS == NS_REPORT_FIXES, "a device report holds one fix per evidence slot");

bool ns_device_startup_only(const ns_split_device *d)
{
	for (size_t i = 0; i < d->nsteps; i++)
		if (!ns_split_device_step(d, i).warmup)
			return false;
	return d->nsteps > 0;
}

const ns_roof_time *ns_report_roof(const ns_report_options *o, const ns_split_device *d, ns_roof_time *buf)
{
	return o->roof != NULL && o->roof(o->roof_ctx, d, buf) ? buf : NULL;
}

static void route_window(const ns_split_window *w, const ns_classify_options *classify, ns_verdict *v)
{
	ns_profile p;

	ns_split_window_profile(w, &p);
	ns_classify_profile(&p, classify, v);
}

static size_t counted_steps(const ns_split_device *d)
{
	size_t n = d->nsteps - d->nwarmup;

	return n > 0 ? n : (d->nsteps > 0 ? d->nsteps : 1);
}

/* The routes the next steps name: the optimizer's idle time takes the optimizer finding's fix, worded for
 * the trace's optimizer class (the cause's own route only points at that finding). */
static void next_step_routes(const ns_device_report *r, const ns_routes *base, ns_routes *out)
{
	const ns_route *f = &base->finding[NS_FINDING_OPTIMIZER];

	*out = *base;
	if (f->fix != NULL) {
		out->cause[NS_CAUSE_OPTIMIZER].module = f->module;
		out->cause[NS_CAUSE_OPTIMIZER].fix = (char *)r->optimizer_fix;
		out->cause[NS_CAUSE_OPTIMIZER].next_check = f->next_check;
	}
}

/* An inference phase's kernels: the placement is of the whole trace, whose mix of ops is not the phase's
 * (decode's matrix multiplies are bound by their weight reads, prefill's by their FLOPs). */
static void phase_roof(const ns_roof_time *roof, ns_roof_time *out)
{
	for (int k = 0; roof != NULL && k < NS_KCLASS_COUNT; k++) {
		memset(&out[k], 0, sizeof(out[k]));
		out[k].state = NS_ROOF_NONE;
		out[k].why = "the placement is of the whole trace, not of one phase";
	}
}

static void build_phases(const ns_split_device *d, const ns_classify_options *classify, const ns_routes *base,
                         const ns_routes *next_routes, const ns_roof_time *roof, ns_device_report *out)
{
	ns_roof_time per_phase[NS_KCLASS_COUNT];
	ns_next_inputs in = {.roof = roof != NULL ? per_phase : NULL};

	phase_roof(roof, per_phase);
	for (int p = NS_STEP_PHASE_PREFILL; p < NS_STEP_PHASE_COUNT; p++) {
		ns_phase_report *ph = &out->phase[p];
		ph->steps = d->phase_steps[p];
		if (ph->steps == 0)
			continue;
		ph->window = d->phase_sum[p];
		ph->window.phase = (uint8_t)p;
		if (p == NS_STEP_PHASE_DECODE) {
			ph->small_m_gemms = d->small_m_gemms;
			ph->small_m_gemm_ns = d->small_m_gemm_ns;
		}
		route_window(&ph->window, classify, &ph->verdict);
		report_cause_routes(&ph->window, base, &ph->routes);
		ns_next_steps_of_window(&ph->window, ph->steps, next_routes, &in, &ph->next);
	}
}

static bool same_fix(const ns_next_step *s, const ns_route *r)
{
	return s != NULL && s->route.fix != NULL && r->fix != NULL && strcmp(s->route.fix, r->fix) == 0;
}

/* The optimizer's launches in a shown next step, a step (0 when neither shown step is the optimizer's). */
static int64_t shown_optimizer_launches(const ns_next_step *top, const ns_next_step *second)
{
	if (top != NULL && top->cause == NS_CAUSE_OPTIMIZER)
		return top->launch_ns;
	return second != NULL && second->cause == NS_CAUSE_OPTIMIZER ? second->launch_ns : 0;
}

/* The high findings to print under the headline, less those whose fix a next step line already gives, and
 * overhead's when the optimizer's launches, a shown next step, are at least half of it: the optimizer's fix,
 * not overhead's generic one, is the one to make there. */
static void pick_also(ns_device_report *out)
{
	const ns_next_step *top = ns_next_steps_top(&out->next),
	                   *second = ns_next_steps_runner_up(&out->next);
	int64_t opt = shown_optimizer_launches(top, second);

	out->optimizer_also = out->optimizer_grade == NS_GRADE_HIGH &&
	                      !(top != NULL && top->cause == NS_CAUSE_OPTIMIZER) &&
	                      !(second != NULL && second->cause == NS_CAUSE_OPTIMIZER);
	for (size_t i = 0; i < out->verdict.nfindings; i++) {
		const ns_finding *f = &out->verdict.findings[i];
		const ns_route *r = &out->routes.route[f->regime];
		bool optimizers =
		    f->regime == NS_REGIME_OVERHEAD && opt > 0 &&
		    2 * opt >= out->routed.bucket_ns[NS_REGIME_OVERHEAD] / (int64_t)out->counted_steps;
		if (f->grade == NS_GRADE_HIGH && !same_fix(top, r) && !same_fix(second, r) && !optimizers)
			out->also[out->nalso++] = *f;
	}
}

static const char *const lever_names[] = {"fusion", "kernel", "precision", "less_work"};

const char *ns_roof_lever_name(ns_roof_lever l)
{
	return (unsigned)l < sizeof(lever_names) / sizeof(lever_names[0]) ? lever_names[l] : NULL;
}

/* fp32 work whose time at the 16-bit roof is at most this share of its time: lower precision is the lever
 * (at 0.5 it would at least halve). */
#define ROOF_NOTE_HALF 0.5

static bool roof_note_of(const ns_roof_time *t, ns_regime bucket, ns_roof_note *n)
{
	double placed = (double)t->placed_ns;

	if (t->state != NS_ROOF_PLACED || t->placed_ns <= 0)
		return false;
	memset(n, 0, sizeof(*n));
	n->bucket = bucket;
	n->nfamilies = t->nfamilies;
	for (size_t i = 0; i < t->nfamilies && i < NS_ROOF_FAMILIES; i++) {
		n->family[i] = t->family[i];
		n->fraction[i] = t->family_fraction[i];
	}
	n->placed_share = placed / (double)(t->kernel_ns > t->placed_ns ? t->kernel_ns : t->placed_ns);
	n->above_share = ns_roof_above_share(t);
	n->half = t->half;
	n->half_share = t->fp32_ns > 0 && t->roof_ns < t->own_roof_ns ? (double)t->roof_ns / placed : -1.0;
	n->fp8_share = -1.0;
	if (n->half_share >= 0.0 && 2 * t->fp32_ns >= t->placed_ns && n->half_share <= ROOF_NOTE_HALF)
		n->lever = NS_LEVER_PRECISION;
	else if (!ns_roof_near(t, bucket))
		n->lever = NS_LEVER_KERNEL;
	else
		n->lever = bucket == NS_REGIME_COMPUTE ? NS_LEVER_LESS_WORK : NS_LEVER_FUSION;
	if (n->lever == NS_LEVER_LESS_WORK && t->fp8_ns > 0 && t->fp8_roof_ns < t->roof_ns)
		n->fp8_share = (double)t->fp8_roof_ns / placed;
	return true;
}

void ns_roof_note_words(const ns_roof_note *n, char *buf, size_t size)
{
	size_t at = 0;

#define PUT(...)                                                                                             \
	do {                                                                                                 \
		int w_ = snprintf(buf + at, at < size ? size - at : 0, __VA_ARGS__);                         \
		at += w_ > 0 ? (size_t)w_ : 0;                                                               \
	} while (0)
	if (size == 0)
		return;
	buf[0] = '\0';
	PUT("%s ops:", n->bucket == NS_REGIME_COMPUTE ? "compute-bound" : "memory-bound");
	for (size_t i = 0; i < n->nfamilies; i++)
		PUT("%s %s %.0f%%", i > 0 ? "," : "", ns_op_family_name(n->family[i]),
		    100.0 * n->fraction[i]);
	PUT(" of %s (%.0f%% of their kernel time placed) -> ",
	    n->bucket == NS_REGIME_COMPUTE ? "their roof" : "the memory bandwidth", 100.0 * n->placed_share);
	switch (n->lever) {
	case NS_LEVER_PRECISION:
		PUT("lower precision: at the %s roof they would take %.0f%% of their time (autocast)",
		    ns_dtype_name(n->half), 100.0 * n->half_share);
		break;
	case NS_LEVER_LESS_WORK:
		PUT("%.0f%% of their time is above their roof, about what the best kernels leave (they reach "
		    "70-80%% of the datasheet peak): ",
		    100.0 * n->above_share);
		if (n->fp8_share >= 0.0)
			PUT("fp8 matmuls (Transformer Engine, torchao float8) or less work (fewer FLOPs) "
			    "shorten them: with their 16-bit GEMMs at the fp8 roof they would take %.0f%% of "
			    "their time",
			    100.0 * n->fp8_share);
		else
			PUT("only less work (fewer FLOPs) or a lower precision (fp8 where the GPU has it) "
			    "shortens them");
		break;
	case NS_LEVER_FUSION:
		PUT("at the bandwidth: only fusion or a smaller dtype (fewer bytes) shortens them");
		break;
	case NS_LEVER_KERNEL:
		if (n->bucket == NS_REGIME_COMPUTE)
			PUT("%.0f%% of their time is above their roof: a better kernel (tiles, algorithm, "
			    "fused "
			    "epilogue) wins that",
			    100.0 * n->above_share);
		else
			PUT("%.0f%% of their time is above the bandwidth roof: a better kernel wins that; "
			    "fusion "
			    "or a smaller dtype removes bytes beyond it",
			    100.0 * n->above_share);
		break;
	}
#undef PUT
}

static cJSON *roof_note_json(const ns_roof_note *n)
{
	cJSON *o = cJSON_CreateObject(), *fams = cJSON_CreateArray();
	char words[NS_ROOF_NOTE_WORDS];
	bool ok = o != NULL && fams != NULL &&
	          cJSON_AddItemToObject(o, "bucket", cJSON_CreateString(ns_regime_name(n->bucket)));

	if (o == NULL || !cJSON_AddItemToObject(o, "families", fams)) {
		cJSON_Delete(fams);
		cJSON_Delete(o);
		return NULL;
	}
	for (size_t i = 0; ok && i < n->nfamilies; i++) {
		cJSON *f = cJSON_CreateObject();
		ok = f != NULL && cJSON_AddItemToArray(fams, f) &&
		     cJSON_AddStringToObject(f, "family", ns_op_family_name(n->family[i])) != NULL &&
		     cJSON_AddNumberToObject(f, "fraction", n->fraction[i]) != NULL;
	}
	ns_roof_note_words(n, words, sizeof(words));
	ok = ok && cJSON_AddNumberToObject(o, "placed_share", n->placed_share) != NULL;
	ok = ok && cJSON_AddNumberToObject(o, "above_share", n->above_share) != NULL;
	ok = ok && (n->half_share >= 0.0 ? cJSON_AddStringToObject(o, "half_dtype", ns_dtype_name(n->half))
	                                 : cJSON_AddNullToObject(o, "half_dtype")) != NULL;
	ok = ok && (n->half_share >= 0.0 ? cJSON_AddNumberToObject(o, "half_share", n->half_share)
	                                 : cJSON_AddNullToObject(o, "half_share")) != NULL;
	ok = ok && (n->fp8_share >= 0.0 ? cJSON_AddNumberToObject(o, "fp8_share", n->fp8_share)
	                                : cJSON_AddNullToObject(o, "fp8_share")) != NULL;
	ok = ok && cJSON_AddStringToObject(o, "lever", ns_roof_lever_name(n->lever)) != NULL;
	ok = ok && cJSON_AddStringToObject(o, "text", words) != NULL;
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *ns_roof_notes_json(const ns_device_report *m)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; arr != NULL && i < m->nroof_notes; i++) {
		cJSON *n = roof_note_json(&m->roof_note[i]);
		if (n == NULL || !cJSON_AddItemToArray(arr, n)) {
			cJSON_Delete(n);
			cJSON_Delete(arr);
			return NULL;
		}
	}
	return arr;
}

/* Whether s's fix raises the batch: launch overhead's ("larger batches"), decode's memory kernels' ("batch
 * more sequences per iteration"), and compute kernels' where their ops run well below their roof (small
 * matrices: a larger batch fills the device). */
static bool raises_batch(const ns_device_report *m, const ns_next_step *s)
{
	if (s->cause == NS_CAUSE_LAUNCH)
		return s->op[0] == '\0'; /* a slow host op's fix is the op's, not a larger batch */
	if (s->bucket == NS_REGIME_MEMORY && s->cause == NS_CAUSE_KERNELS)
		return m->routed.phase == NS_STEP_PHASE_DECODE;
	if (s->bucket == NS_REGIME_COMPUTE)
		for (size_t i = 0; i < m->nroof_notes; i++)
			if (m->roof_note[i].bucket == NS_REGIME_COMPUTE)
				return m->roof_note[i].lever == NS_LEVER_KERNEL;
	return false;
}

/* The memory's say on the fixes that raise the batch; the line under the next steps for the first shown. */
static void batch_headroom(const ns_split_device *d, ns_device_report *m)
{
	const ns_next_step *top = ns_next_steps_top(&m->next), *second = ns_next_steps_runner_up(&m->next);
	double scale = ns_memory_batch_scale(&d->memory);

	m->batch_item = -1;
	if (scale < 0.0 || !ns_memory_batch_words(&d->memory, m->batch_words, sizeof(m->batch_words)))
		return;
	for (size_t i = 0; i < m->next.n; i++) {
		ns_next_step *s = &m->next.item[i];
		if (!raises_batch(m, s))
			continue;
		s->has_batch = true;
		s->batch_scale = scale;
		if (m->batch_item < 0 && (s == top || s == second))
			m->batch_item = (int)i;
	}
}

static bool is_high_finding(const ns_verdict *v, ns_regime b)
{
	for (size_t i = 0; i < v->nfindings; i++)
		if (v->findings[i].regime == b && v->findings[i].grade == NS_GRADE_HIGH)
			return true;
	return false;
}

/* The verdict's kernel bucket first, then the other when it is a high finding. */
static void build_roof_notes(const ns_roof_time *roof, ns_device_report *out)
{
	static const struct {
		ns_regime bucket;
		ns_kernel_class k;
	} kinds[] = {{NS_REGIME_COMPUTE, NS_KCLASS_COMPUTE}, {NS_REGIME_MEMORY, NS_KCLASS_MEMORY}};

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < 2; i++) {
			bool verdict = out->verdict.regime == kinds[i].bucket;
			if ((pass == 0) != verdict ||
			    (!verdict && !is_high_finding(&out->verdict, kinds[i].bucket)))
				continue;
			if (roof_note_of(&roof[kinds[i].k], kinds[i].bucket,
			                 &out->roof_note[out->nroof_notes]))
				out->nroof_notes++;
		}
}

/* The headline names the bucket that holds the most time; the next step is the fix that can win the most.
 * When they differ (ResNet-50 with num_workers=0: compute-bound 37 %, next step the data loader), a reader
 * takes the headline's fix for the advice unless the report says why the other comes first: what the top can
 * win against what the headline bucket's own fix can (its bound, or that it is unknown). */
static void first_why(ns_device_report *m)
{
	const ns_next_step *top = ns_next_steps_top(&m->next), *known = NULL, *unknown = NULL;
	ns_regime v = m->verdict.regime;
	char title[160];
	int64_t steps = (int64_t)m->counted_steps, held;
	size_t at;

	m->first_why[0] = '\0';
	if (top == NULL || top->bucket == v)
		return;
	for (size_t i = 0; i < m->next.n;
	     i++) { /* the headline bucket's best bound, and its largest unknown */
		const ns_next_step *s = &m->next.item[i];
		if (s->bucket == v && s->known && (known == NULL || s->gain_ns > known->gain_ns))
			known = s;
		if (s->bucket == v && s->unknown_ns > 0 &&
		    (unknown == NULL || s->unknown_ns > unknown->unknown_ns))
			unknown = s;
	}
	if (unknown != NULL && known != NULL && unknown->unknown_ns <= top->gain_ns)
		unknown = NULL; /* what cannot be bounded is less than the next step wins anyway */
	held = steps > 0 ? m->routed.bucket_ns[v] / steps : 0;
	at = (size_t)snprintf(
	    m->first_why, sizeof(m->first_why),
	    "the headline is where most of the step goes (%s, %.3f ms a step), the next step "
	    "the fix that can win the most (%s %.3f ms a step)",
	    ns_regime_bound_word(v), (double)held / 1e6, ns_next_step_bound_word(top),
	    (double)top->gain_ns / 1e6);
	if (at >= sizeof(m->first_why))
		return;
	if (unknown != NULL && ns_next_steps_unbounded(&m->next) == unknown)
		snprintf(m->first_why + at, sizeof(m->first_why) - at,
		         "; what the headline's fix can win is unknown (bound unknown, above)");
	else if (unknown != NULL)
		snprintf(m->first_why + at, sizeof(m->first_why) - at,
		         "; what the headline's fix (%s) can win is unknown%s",
		         ns_next_step_title(unknown, title, sizeof(title)),
		         unknown->roof == NS_ROOF_NOT_RUN ? " until their ops are placed on the roofline"
		                                          : "");
	else if (known != NULL)
		snprintf(m->first_why + at, sizeof(m->first_why) - at,
		         "; the headline's fix (%s) can win %s %.3f ms",
		         ns_next_step_title(known, title, sizeof(title)),
		         known->estimate ? "about" : "at most", (double)known->gain_ns / 1e6);
	else
		snprintf(m->first_why + at, sizeof(m->first_why) - at,
		         "; no fix of the headline's bucket has a bound");
}

/* A slow host op's candidate (docs/trace.md, "A slow host op"): the launch time inside it, claimed from the
 * launch candidate, which keeps the launch route it had before the op's. */
static void host_op_inputs(const report_precision *prec, ns_next_inputs *in)
{
	if (!prec->host_op)
		return;
	in->host_op_ns = prec->host_op_idle_ns;
	in->host_op = prec->host_op_name;
	in->host_op_finding = ns_finding_name(prec->host_op_finding);
	in->host_op_calls = prec->host_op_calls;
	in->host_op_host_ns = prec->host_op_host_ns;
	in->host_op_launches = prec->host_op_launches;
	in->launch_rest = &prec->launch_rest;
}

/* The op beside the launch cause, a step, as every form prints it. */
static void host_op_summary(const report_precision *prec, ns_device_report *out)
{
	ns_report_host_op *h = &out->host_op;
	int64_t steps = (int64_t)out->counted_steps, launch = out->routed.cause_ns[NS_CAUSE_LAUNCH];

	if (!prec->host_op || steps <= 0 || prec->host_op_calls <= 0)
		return;
	h->found = true;
	snprintf(h->op, sizeof(h->op), "%s", prec->host_op_name);
	h->finding = ns_finding_name(prec->host_op_finding);
	h->idle_ns = prec->host_op_idle_ns / steps;
	h->launch_share = launch > 0 ? (double)prec->host_op_idle_ns / (double)launch : 0.0;
	h->calls = (double)prec->host_op_calls / (double)steps;
	h->host_ns = prec->host_op_host_ns / prec->host_op_calls;
	h->launches = (double)prec->host_op_launches / (double)prec->host_op_calls;
}

/* The placement's say on the compute route (fp32 work keeps autocast's, which comes first), when placed ops
 * hold at least this share of the compute kernels' time and are near their roof: fp8 matmuls when at least
 * this share of the placed time is 16-bit GEMMs a faster fp8 roof applies to, else no kernel or precision
 * change wins much, and the route says so (compute_at_roof). */
#define ROOF_ROUTE_SHARE 0.5

void report_roof_route(const ns_roof_time *roof, const report_precision *prec, ns_routes *base, char *fix)
{
	const ns_roof_time *t = roof != NULL ? &roof[NS_KCLASS_COMPUTE] : NULL;
	const ns_route *f;
	char share[32];

	if (t == NULL || t->state != NS_ROOF_PLACED || prec->fp32_share > 0.0 ||
	    (double)t->placed_ns < ROOF_ROUTE_SHARE * (double)t->kernel_ns ||
	    !ns_roof_near(t, NS_REGIME_COMPUTE))
		return;
	if (ns_roof_fp8_reach(t, NS_REGIME_COMPUTE) &&
	    (double)t->fp8_ns >= ROOF_ROUTE_SHARE * (double)t->placed_ns) {
		f = &base->finding[NS_FINDING_FP8_GEMMS];
		snprintf(share, sizeof(share), "%.0f%%", 100.0 * (double)t->fp8_ns / (double)t->placed_ns);
	} else {
		f = &base->finding[NS_FINDING_COMPUTE_AT_ROOF];
		snprintf(share, sizeof(share), "%.0f%%", 100.0 * ns_roof_above_share(t));
	}
	if (f->fix == NULL)
		return;
	base->route[NS_REGIME_COMPUTE] = *f;
	base->route[NS_REGIME_COMPUTE].fix = report_subst(f->fix, "{share}", share, fix, NS_REPORT_FIX_MAX);
}

void ns_device_report_build(const ns_split_result *res, const ns_split_device *d,
                            const ns_classify_options *classify, const ns_routes *routes,
                            const ns_roof_time *roof, const ns_device_table *devices, ns_device_report *out)
{
	const ns_split_quality *q = &res->quality;
	ns_routes base, next_routes;
	report_precision prec = {.fp32_share = 0.0};

	memset(out, 0, sizeof(*out));
	base = *routes;
	if (res->ndevices > 0 && !res->gpu_activity) { /* a host-only split: no GPU advice */
		report_host_only_routes(routes, &base);
	} else {
		report_evidence_routes(res, d, devices, routes, &base, out->fixes, &prec);
		report_roof_route(roof, &prec, &base, out->fixes[REPORT_FIX_COMPUTE]);
	}
	ns_report_device_label(res, d, out->label, sizeof(out->label));
	out->shape_gemms = d->shape_memory_gemms;
	out->shape_gemm_ns = d->shape_memory_gemm_ns;
	out->shape_gemm_intensity = d->shape_memory_intensity;
	out->counted_steps = counted_steps(d);
	out->routed = report_overall_routed(d);
	route_window(&out->routed, classify, &out->verdict);
	report_cause_routes(&out->routed, &base, &out->routes);
	out->window_routes = base;
	out->unfit = q->grade == NS_QUALITY_UNFIT;
	out->startup = ns_device_startup_only(d);
	out->startup_route = *report_startup_route(res, d, &base);
	if (!out->unfit && !out->startup) /* start-up's one advice is a steady-state capture */
		host_op_summary(&prec, out);
	if (res->python_frames == 0 && !out->unfit &&
	    q->problem[NS_QP_PROFILER_OVERHEAD].grade == NS_QUALITY_GOOD && !out->startup &&
	    (out->verdict.regime == NS_REGIME_OVERHEAD || out->verdict.regime == NS_REGIME_IDLE))
		out->python_hint = report_host_cause_share(&d->overall);
	if (res->has_rank && res->world_size > 1 && !out->unfit && !out->startup) {
		out->rank_alone_comm = report_rank_alone_comm(&d->overall, classify->high);
		out->rank_alone_host =
		    d->overall.cause_ns[NS_CAUSE_HOST_COMM] > d->overall.cause_ns[NS_CAUSE_EXPOSED];
	}
	if (res->passes != NULL)
		out->optimizer_grade = report_optimizer_grade(d, &out->optimizer_share);
	report_optimizer_fix(res, &base.finding[NS_FINDING_OPTIMIZER], out->optimizer_fix,
	                     sizeof(out->optimizer_fix));
	next_step_routes(out, &base, &next_routes);
	out->placed = roof != NULL;
	if (!out->unfit && !out->startup) {
		ns_next_inputs in = {.roof = roof,
		                     .optimizer_launch_ns = d->optimizer_launch_ns,
		                     .fp32_share = prec.fp32_share,
		                     .tensor_ratio = prec.tensor_ratio};
		host_op_inputs(&prec, &in);
		ns_next_steps_of_window(&out->routed, out->counted_steps, &next_routes, &in, &out->next);
		pick_also(out);
		if (roof != NULL)
			build_roof_notes(roof, out);
		batch_headroom(d, out);
		first_why(out);
	} else {
		out->batch_item = -1;
	}
	build_phases(d, classify, &base, &next_routes, roof, out);
}
