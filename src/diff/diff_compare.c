/* The comparison of two summaries: step time with its noise, the six buckets per step, what became of the
 * bottleneck BEFORE named, kernels and causes matched by name, and the differences that make the comparison
 * suspect. Pure arithmetic: no input, no output. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_private.h"

/* Whole-run µs as ms per step: the figure every per-step number of the diff uses. */
static double ms_per_step(const ns_diff_side *s, double us)
{
	return s->has_time && s->nsteps > 0 ? us / (double)s->nsteps / 1e3 : 0;
}

static bool same_doubles(const double *x, const double *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return false;
	return true;
}

static bool identical(const ns_diff_side *b, const ns_diff_side *a)
{
	if (b->has_time != a->has_time)
		return false;
	if (!b->has_time)
		return same_doubles(b->shares.share, a->shares.share, NS_REGIME_COUNT);
	return b->nsteps == a->nsteps && same_doubles(b->step_us, a->step_us, b->nsteps) &&
	       same_doubles(b->bucket_us, a->bucket_us, NS_REGIME_COUNT);
}

/* A side's mean step below a nanosecond (the reports' resolution) has no step time to compare: its speed-up
 * would read "infx slower", or hundreds of digits for a denormal. Identical sides are still "no change". */
static ns_status check_step_time(const ns_diff_step_stats *st, const char *which, ns_error *err)
{
	if (st->mean * 1e3 >= NS_DIFF_MIN_STEP_US)
		return NS_OK;
	return ns_error_set(err, NS_ERR_VALUE,
	                    "%s's steps last %g ns on average, less than 1 ns: no step time to compare",
	                    which, st->mean * 1e6);
}

static ns_status judge_time(const ns_diff_side *b, const ns_diff_side *a, ns_diff_result *r, ns_error *err)
{
	bool same = identical(b, a);

	if (!b->has_time || !a->has_time) {
		r->change = same ? NS_DIFF_NO_CHANGE : NS_DIFF_TIME_UNKNOWN;
		return NS_OK;
	}
	ns_diff_step_stats_of(b->step_us, b->nsteps, &r->before);
	ns_diff_step_stats_of(a->step_us, a->nsteps, &r->after);
	if (!same && (check_step_time(&r->before, "BEFORE", err) != NS_OK ||
	              check_step_time(&r->after, "AFTER", err) != NS_OK))
		return err->status;
	ns_diff_noise_judge(b->step_us, b->nsteps, a->step_us, a->nsteps, &r->noise);
	r->speedup = r->noise.speedup;
	if (same)
		r->change = NS_DIFF_NO_CHANGE;
	else if (!r->noise.significant)
		r->change = NS_DIFF_NOT_SIGNIFICANT;
	else
		r->change = r->speedup > 1 ? NS_DIFF_FASTER : NS_DIFF_SLOWER;
	return NS_OK;
}

/* Fixed: below the moderate grade after, with less time per step. Shrank/grew: by NS_DIFF_SHRINK_MIN of its
 * own time per step (of its share when a side has no time). */
static ns_diff_fate fate_of(const ns_diff_target *t, bool by_time, double moderate)
{
	double before = by_time ? t->before_ms : t->before_share;
	double after = by_time ? t->after_ms : t->after_share;

	if (t->after_share < moderate && after < before)
		return NS_FATE_FIXED;
	if (after <= before * (1 - NS_DIFF_SHRINK_MIN))
		return NS_FATE_SHRANK;
	if (after >= before * (1 + NS_DIFF_SHRINK_MIN) && after > before)
		return NS_FATE_GREW;
	return NS_FATE_UNCHANGED;
}

static void add_target(ns_diff_result *r, const ns_diff_side *b, const ns_diff_side *a, ns_regime bucket,
                       bool was_regime, double moderate)
{
	ns_diff_target *t = &r->targets[r->ntargets++];

	t->bucket = bucket;
	t->was_regime = was_regime;
	t->before_share = b->shares.share[bucket];
	t->after_share = a->shares.share[bucket];
	t->before_ms = r->bucket_ms[0][bucket];
	t->after_ms = r->bucket_ms[1][bucket];
	t->fate = fate_of(t, b->has_time && a->has_time, moderate);
}

/* BEFORE's regime, then each of its high findings: what the user was told to fix. */
static void judge_targets(const ns_diff_side *b, const ns_diff_side *a, const ns_classify_options *o,
                          ns_diff_result *r)
{
	const ns_verdict *v = &r->verdict[0];

	add_target(r, b, a, v->regime, true, o->moderate);
	for (size_t i = 0; i < v->nfindings; i++)
		if (v->findings[i].grade == NS_GRADE_HIGH)
			add_target(r, b, a, v->findings[i].regime, false, o->moderate);
}

/* ---- kernels, matched by (name, class) ----------------------------------------------------------- */

static int cmp_kernel_ptr(const void *x, const void *y)
{
	const ns_diff_kernel *a = *(const ns_diff_kernel *const *)x, *b = *(const ns_diff_kernel *const *)y;
	int c = strcmp(a->name, b->name);

	return c != 0 ? c : (a->cls > b->cls) - (a->cls < b->cls);
}

static const ns_diff_kernel **sorted_kernels(const ns_diff_side *s)
{
	const ns_diff_kernel **v = malloc((s->nkernels + 1) * sizeof(const ns_diff_kernel *));

	if (v == NULL)
		return NULL;
	for (size_t i = 0; i < s->nkernels; i++)
		v[i] = &s->kernels[i];
	qsort(v, s->nkernels, sizeof(const ns_diff_kernel *), cmp_kernel_ptr);
	return v;
}

static void set_kernel_side(ns_diff_kernel_delta *d, const ns_diff_kernel *k, const ns_diff_side *s,
                            bool after)
{
	bool known = k != NULL || !s->kernels_partial;
	double ms = k != NULL ? ms_per_step(s, k->us) : 0;
	long count = k != NULL ? k->count : 0;

	if (k != NULL) {
		d->name = k->name;
		d->cls = k->cls;
	}
	if (after) {
		d->after_known = known;
		d->after_ms = ms;
		d->after_count = count;
	} else {
		d->before_known = known;
		d->before_ms = ms;
		d->before_count = count;
	}
}

static int cmp_delta(const void *x, const void *y)
{
	const ns_diff_kernel_delta *a = x, *b = y;
	bool ka = a->before_known && a->after_known, kb = b->before_known && b->after_known;
	double ma = ka ? fabs(a->delta_ms) : fmax(a->before_ms, a->after_ms);
	double mb = kb ? fabs(b->delta_ms) : fmax(b->before_ms, b->after_ms);

	if (ka != kb)
		return ka ? -1 : 1;
	if (ma != mb)
		return ma > mb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static ns_status match_kernels(const ns_diff_side *b, const ns_diff_side *a, ns_diff_result *r, ns_error *err)
{
	const ns_diff_kernel **kb = sorted_kernels(b), **ka = sorted_kernels(a);
	size_t i = 0, j = 0;

	r->kernels = calloc(b->nkernels + a->nkernels + 1, sizeof(*r->kernels));
	if (kb == NULL || ka == NULL || r->kernels == NULL) {
		free(kb);
		free(ka);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	while (i < b->nkernels || j < a->nkernels) {
		int c = i == b->nkernels ? 1 : j == a->nkernels ? -1 : cmp_kernel_ptr(&kb[i], &ka[j]);
		ns_diff_kernel_delta *d = &r->kernels[r->nkernels++];
		set_kernel_side(d, c <= 0 ? kb[i++] : NULL, b, false);
		set_kernel_side(d, c >= 0 ? ka[j++] : NULL, a, true);
		d->delta_ms = d->after_ms - d->before_ms;
	}
	free(kb);
	free(ka);
	qsort(r->kernels, r->nkernels, sizeof(*r->kernels), cmp_delta);
	return NS_OK;
}

/* ---- causes, matched by (bucket, cause) ---------------------------------------------------------- */

static ns_diff_cause_delta *find_cause(ns_diff_result *r, ns_regime bucket, const char *cause)
{
	for (size_t i = 0; i < r->ncauses; i++)
		if (r->causes[i].bucket == bucket && strcmp(r->causes[i].cause, cause) == 0)
			return &r->causes[i];
	return NULL;
}

static ns_status match_causes(const ns_diff_side *b, const ns_diff_side *a, ns_diff_result *r, ns_error *err)
{
	const ns_diff_side *side[2] = {b, a};

	if (b->ncauses + a->ncauses == 0)
		return NS_OK;
	r->causes = calloc(b->ncauses + a->ncauses, sizeof(*r->causes));
	r->ncauses = 0; /* only entries filled below are counted */
	if (r->causes == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < side[k]->ncauses; i++) {
			const ns_diff_cause *c = &side[k]->causes[i];
			ns_diff_cause_delta *d = find_cause(r, c->bucket, c->cause);
			if (d == NULL) { /* a new entry, filled before it is counted */
				d = &r->causes[r->ncauses];
				d->bucket = c->bucket;
				d->cause = c->cause;
				r->ncauses++;
			}
			*(k == 0 ? &d->before_ms : &d->after_ms) += ms_per_step(side[k], c->us);
		}
	for (size_t i = 0; i < r->ncauses; i++)
		r->causes[i].delta_ms = r->causes[i].after_ms - r->causes[i].before_ms;
	return NS_OK;
}

/* ---- what makes the comparison suspect ----------------------------------------------------------- */

static void suspect(ns_diff_result *r, const char *what, const char *before, const char *after)
{
	ns_diff_suspect *s;

	if (r->nsuspects == NS_DIFF_MAX_SUSPECTS)
		return;
	s = &r->suspects[r->nsuspects++];
	s->what = what;
	snprintf(s->before, sizeof(s->before), "%s", before);
	snprintf(s->after, sizeof(s->after), "%s", after);
}

static void suspect_count(ns_diff_result *r, const char *what, size_t before, size_t after)
{
	char b[32], a[32];

	if (before == after)
		return;
	snprintf(b, sizeof(b), "%zu", before);
	snprintf(a, sizeof(a), "%zu", after);
	suspect(r, what, b, a);
}

/* A GEMM dtype's width in bytes, for the precision fixes below: 0 for one that is not a step of them. */
static double precision_width(const char *dtype)
{
	static const struct {
		const char *dtype;
		double bytes;
	} widths[] = {{"fp32", 4}, {"tf32", 4}, {"bf16", 2}, {"fp16", 2}, {"fp8", 1}, {"fp4", 0.5}};

	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		if (strcmp(dtype, widths[i].dtype) == 0)
			return widths[i].bytes;
	return 0.0;
}

/* GEMMs that became narrower ones (fp32 to 16-bit, or 16-bit to fp8) while BEFORE's next steps named the
 * compute kernels' fix: that fix is lower precision (autocast for fp32 work; fp8 matmuls for 16-bit GEMMs
 * near their roof), so the change of dtype is the fix being checked, not a reason the runs differ. */
static bool precision_was_the_fix(const ns_diff_side *b, const ns_diff_side *a)
{
	double from = precision_width(b->dtype), to = precision_width(a->dtype);

	if (from == 0.0 || to == 0.0 || to >= from || from < 2.0)
		return false;
	for (size_t i = 0; i < b->npredicted; i++)
		if (b->predicted[i].bucket == NS_REGIME_COMPUTE)
			return true;
	return false;
}

static void find_suspects(const ns_diff_side *b, const ns_diff_side *a, ns_diff_result *r)
{
	if (b->device[0] != '\0' && a->device[0] != '\0' && strcmp(b->device, a->device) != 0)
		suspect(r, "device", b->device, a->device);
	if (b->dtype[0] != '\0' && a->dtype[0] != '\0' && strcmp(b->dtype, a->dtype) != 0 &&
	    !precision_was_the_fix(b, a))
		suspect(r, "GEMM dtype", b->dtype, a->dtype);
	if (!b->has_time || !a->has_time)
		return;
	if (b->step_markers != a->step_markers)
		suspect(r, "step markers", b->step_markers ? "ProfilerStep#" : "none (whole trace)",
		        a->step_markers ? "ProfilerStep#" : "none (whole trace)");
	suspect_count(r, "number of devices", b->ndevices, a->ndevices);
	suspect_count(r, "number of ranks", b->nranks, a->nranks);
}

/* ---- BEFORE's next steps, checked ----------------------------------------------------------------- */

/* Whole-run µs of a side's cause (bucket for "" : a bucket without causes); 0 when the side does not list it.
 */
static double cause_us(const ns_diff_side *s, ns_regime bucket, const char *cause)
{
	double us = 0;

	if (cause[0] == '\0')
		return s->bucket_us[bucket];
	for (size_t i = 0; i < s->ncauses; i++)
		if (s->causes[i].bucket == bucket && strcmp(s->causes[i].cause, cause) == 0)
			us += s->causes[i].us;
	return us;
}

/* The launch time a side's optimizer candidate claims a step, in ms (0 when it has none). */
static double optimizer_launch_ms(const ns_diff_side *s)
{
	for (size_t i = 0; i < s->npredicted; i++)
		if (strcmp(s->predicted[i].cause, "optimizer") == 0)
			return s->predicted[i].launch_us / 1e3;
	return 0.0;
}

/* The optimizer's launches (docs/next-step.md) are the optimizer's candidate's, not launch overhead's: on
 * each side they move from overhead.launch to idle.optimizer's candidate, and its fall is capped by both
 * buckets'. */
static void move_optimizer_launches(const ns_diff_side *b, const ns_diff_side *a, const ns_diff_result *r,
                                    ns_diff_check *c, double *bucket_fall)
{
	double lb = optimizer_launch_ms(b), la = optimizer_launch_ms(a);

	if (strcmp(c->p->cause, "optimizer") == 0) {
		c->before_ms += lb;
		c->after_ms += la;
		*bucket_fall += r->bucket_ms[0][NS_REGIME_OVERHEAD] - r->bucket_ms[1][NS_REGIME_OVERHEAD];
	} else if (c->p->bucket == NS_REGIME_OVERHEAD && strcmp(c->p->cause, "launch") == 0) {
		c->before_ms = fmax(0, c->before_ms - lb);
		c->after_ms = fmax(0, c->after_ms - la);
	}
}

/* The step capture's time on each side: its causes summed (the optimizer's launches are in
 * overhead.launch, all of which it claims); its fall is capped by the fall of the buckets they are in. */
static void sum_spans(const ns_diff_side *b, const ns_diff_side *a, const ns_diff_result *r, ns_diff_check *c,
                      double *bucket_fall)
{
	bool bucket[NS_REGIME_COUNT] = {false};

	c->before_ms = c->after_ms = *bucket_fall = 0;
	for (int k = 0; k < NS_CAUSE_COUNT; k++) {
		if (!(c->p->spans & (1u << k)))
			continue;
		ns_regime bk = ns_cause_bucket((ns_cause)k);
		c->before_ms += ms_per_step(b, cause_us(b, bk, ns_cause_name((ns_cause)k)));
		c->after_ms += ms_per_step(a, cause_us(a, bk, ns_cause_name((ns_cause)k)));
		bucket[bk] = true;
	}
	for (int k = 0; k < NS_REGIME_COUNT; k++)
		if (bucket[k])
			*bucket_fall += r->bucket_ms[0][k] - r->bucket_ms[1][k];
}

/* Whether check c's cause is one that an applied step capture claims. */
static bool spanned_by_capture(const ns_diff_result *r, const ns_diff_check *c)
{
	ns_cause k;
	char key[NS_DIFF_CAUSE_MAX + 16];

	if (c->p->spans != 0 || c->p->cause[0] == '\0')
		return false;
	snprintf(key, sizeof(key), "%s.%s", ns_regime_name(c->p->bucket), c->p->cause);
	if (!ns_cause_from_key(key, &k))
		return false;
	for (size_t i = 0; i < r->nchecks; i++)
		if (r->checks[i].applied && (r->checks[i].p->spans & (1u << k)))
			return true;
	return false;
}

/* When the step capture was applied, its causes fell because of it: they are one fix, not several, so
 * their own candidates (the partial fixes) do not count as applied, nor their bounds twice. */
static void subsume_spanned(ns_diff_result *r)
{
	for (size_t i = 0; i < r->nchecks; i++)
		if (spanned_by_capture(r, &r->checks[i]))
			r->checks[i].applied = false;
}

/* A side's slow host op candidate (docs/trace.md, "A slow host op"), or NULL. */
static const ns_diff_prediction *host_op_of(const ns_diff_side *s)
{
	for (size_t i = 0; i < s->npredicted; i++)
		if (s->predicted[i].op[0] != '\0')
			return &s->predicted[i];
	return NULL;
}

/* A slow host op's launch time is its candidate's, not launch overhead's: the op's check reads the time
 * inside it before (its held_us) and after (the same op's held_us there; without it, all of AFTER's launch
 * time, the most the op can still hold, since AFTER names no op holding half of it), and launch overhead's
 * check takes each side's op time away from its launch time. */
static void move_host_op(const ns_diff_side *b, const ns_diff_side *a, ns_diff_check *c)
{
	const ns_diff_prediction *ob = host_op_of(b), *oa = host_op_of(a);
	double mb = ob != NULL ? ob->ceiling_us / 1e3 : 0.0, ma = oa != NULL ? oa->ceiling_us / 1e3 : 0.0;

	if (c->p->op[0] != '\0') {
		c->before_ms = fmin(c->before_ms, mb);
		if (oa != NULL && strcmp(oa->op, c->p->op) == 0)
			c->after_ms = fmin(c->after_ms, ma);
	} else if (c->p->bucket == NS_REGIME_OVERHEAD && strcmp(c->p->cause, "launch") == 0) {
		c->before_ms = fmax(0, c->before_ms - mb);
		c->after_ms = fmax(0, c->after_ms - ma);
	}
}

/* Each prediction's cause on both sides; what it achieved is the fall of its cause, at most the fall of its
 * bucket (time that moved to a sibling cause, a copy now under a memory kernel, left nothing) and of the step
 * (the rest went into other time, not off the step). */
static ns_status check_predictions(const ns_diff_side *b, const ns_diff_side *a, ns_diff_result *r,
                                   ns_error *err)
{
	if (b->npredicted == 0 || !b->has_time || !a->has_time)
		return NS_OK;
	r->checks = calloc(b->npredicted, sizeof(*r->checks));
	if (r->checks == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	r->saved_ms = r->before.mean - r->after.mean;
	for (size_t i = 0; i < b->npredicted; i++) {
		ns_diff_check *c = &r->checks[r->nchecks++];
		double fall;
		c->p = &b->predicted[i];
		double bucket_fall;
		c->before_ms = ms_per_step(b, cause_us(b, c->p->bucket, c->p->cause));
		c->after_ms = ms_per_step(a, cause_us(a, c->p->bucket, c->p->cause));
		bucket_fall = r->bucket_ms[0][c->p->bucket] - r->bucket_ms[1][c->p->bucket];
		if (c->p->spans != 0) {
			sum_spans(b, a, r, c, &bucket_fall);
		} else {
			move_optimizer_launches(b, a, r, c, &bucket_fall);
			move_host_op(b, a, c);
		}
		fall = fmin(c->before_ms - c->after_ms, bucket_fall);
		c->achieved_ms = fmax(0, fmin(fall, r->saved_ms));
		c->applied = c->after_ms <= c->before_ms * (1 - NS_DIFF_SHRINK_MIN) && c->achieved_ms > 0;
	}
	subsume_spanned(r);
	for (size_t i = 0; i < r->nchecks; i++) {
		ns_diff_check *c = &r->checks[i];
		c->shown = c->applied || i == 0;
		if (c->applied)
			r->applied_ms += c->p->ceiling_us / 1e3;
		r->applied_unbounded = r->applied_unbounded || (c->applied && c->p->unbounded);
	}
	/* a hundredth of a microsecond of slack: the bounds are printed to the nanosecond. A fix applied
	 * without a bound can account for any saving, so no bound is shown wrong then. */
	r->over_bound = r->applied_ms > 0 && !r->applied_unbounded && r->saved_ms > r->applied_ms + 1e-5;
	return NS_OK;
}

/* The words every form prints: decided once, here. */
static void put_words(ns_diff_result *r)
{
	ns_diff_headline(r, r->headline, sizeof(r->headline));
	for (size_t i = 0; i < r->nchecks; i++)
		if (r->checks[i].shown)
			ns_diff_check_words(&r->checks[i], r->checks[i].words, sizeof(r->checks[i].words));
	if (r->over_bound)
		ns_diff_exceeded_words(r, r->exceeded, sizeof(r->exceeded));
}

ns_status ns_diff_compare(const ns_diff_side *before, const ns_diff_side *after, const ns_classify_options *o,
                          ns_diff_result *r, ns_error *err)
{
	memset(r, 0, sizeof(*r));
	for (int k = 0; k < NS_REGIME_COUNT; k++) {
		r->bucket_ms[0][k] = ms_per_step(before, before->bucket_us[k]);
		r->bucket_ms[1][k] = ms_per_step(after, after->bucket_us[k]);
	}
	ns_classify_profile(&before->shares, o, &r->verdict[0]);
	ns_classify_profile(&after->shares, o, &r->verdict[1]);
	if (judge_time(before, after, r, err) != NS_OK)
		return err->status;
	judge_targets(before, after, o, r);
	find_suspects(before, after, r);
	if (match_kernels(before, after, r, err) != NS_OK || match_causes(before, after, r, err) != NS_OK ||
	    check_predictions(before, after, r, err) != NS_OK) {
		ns_diff_result_free(r);
		return err->status;
	}
	put_words(r);
	return NS_OK;
}

ns_status ns_diff_analyse(ns_input *before, ns_input *after, const ns_diff_load_options *o, ns_diff *d,
                          ns_error *err)
{
	ns_status st;

	memset(d, 0, sizeof(*d));
	st = ns_diff_load_pair(before, after, o, d->side, d->side_err);
	if (st != NS_OK)
		return st;
	st = ns_diff_compare(&d->side[0], &d->side[1], o->classify, &d->result, err);
	d->compared = st == NS_OK;
	return st;
}

void ns_diff_free(ns_diff *d)
{
	if (d->compared)
		ns_diff_result_free(&d->result);
	ns_diff_side_free(&d->side[0]);
	ns_diff_side_free(&d->side[1]);
	d->compared = false;
}

void ns_diff_result_free(ns_diff_result *r)
{
	free(r->kernels);
	free(r->causes);
	free(r->checks);
	r->kernels = NULL;
	r->causes = NULL;
	r->checks = NULL;
	r->nkernels = r->ncauses = r->nchecks = 0;
}

const char *ns_diff_change_name(ns_diff_change c)
{
	static const char *const names[] = {
	    [NS_DIFF_NO_CHANGE] = "no change",
	    [NS_DIFF_FASTER] = "faster",
	    [NS_DIFF_SLOWER] = "slower",
	    [NS_DIFF_NOT_SIGNIFICANT] = "no significant change",
	    [NS_DIFF_TIME_UNKNOWN] = "time unknown",
	};
	return (unsigned)c < sizeof(names) / sizeof(names[0]) ? names[c] : "?";
}

const char *ns_diff_fate_name(ns_diff_fate f)
{
	static const char *const names[] = {[NS_FATE_FIXED] = "fixed",
	                                    [NS_FATE_SHRANK] = "shrank",
	                                    [NS_FATE_UNCHANGED] = "unchanged",
	                                    [NS_FATE_GREW] = "grew"};
	return (unsigned)f < sizeof(names) / sizeof(names[0]) ? names[f] : "?";
}
