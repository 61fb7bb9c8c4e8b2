/* A device's report decided once (issue 21): the verdict and the routes of its headline, whether it is
 * start-up or unfit, the optimizer finding, the with_stack hint, each inference phase routed on its own, and
 * the ranked next steps. The text, JSON and HTML printers read this and decide nothing. */
#include <string.h>

#include "report_private.h"

_Static_assert(REPORT_FIX_SLOTS == NS_REPORT_FIXES, "a device report holds one fix per evidence slot");

bool ns_device_startup_only(const split_device *d)
{
	for (size_t i = 0; i < d->nsteps; i++)
		if (!split_device_step(d, i).warmup)
			return false;
	return d->nsteps > 0;
}

const ns_roof_time *ns_report_roof(const report_options *o, const split_device *d, ns_roof_time *buf)
{
	return o->roof != NULL && o->roof(o->roof_ctx, d, buf) ? buf : NULL;
}

static void route_window(const split_window *w, const classify_options *classify, ns_verdict *v)
{
	ns_profile p;

	split_window_profile(w, &p);
	classify_profile(&p, classify, v);
}

static size_t counted_steps(const split_device *d)
{
	size_t n = d->nsteps - d->nwarmup;

	return n > 0 ? n : (d->nsteps > 0 ? d->nsteps : 1);
}

/* The routes the next steps name: the optimizer's idle time takes the optimizer finding's fix, worded for
 * the trace's optimizer class (the cause's own route only points at that finding). */
static void next_step_routes(const ns_device_report *r, const ns_routes *base, ns_routes *out)
{
	const ns_route *f = &base->finding[FINDING_OPTIMIZER];

	*out = *base;
	if (f->fix != NULL) {
		out->cause[CAUSE_OPTIMIZER].module = f->module;
		out->cause[CAUSE_OPTIMIZER].fix = (char *)r->optimizer_fix;
		out->cause[CAUSE_OPTIMIZER].next_check = f->next_check;
	}
}

static void build_phases(const split_device *d, const classify_options *classify, const ns_routes *base,
                         const ns_routes *next_routes, ns_device_report *out)
{
	for (int p = STEP_PHASE_PREFILL; p < STEP_PHASE_COUNT; p++) {
		ns_phase_report *ph = &out->phase[p];
		ph->steps = d->phase_steps[p];
		if (ph->steps == 0)
			continue;
		ph->window = d->phase_sum[p];
		ph->window.phase = (uint8_t)p;
		route_window(&ph->window, classify, &ph->verdict);
		report_cause_routes(&ph->window, base, &ph->routes);
		ns_next_steps_of_window(&ph->window, ph->steps, next_routes, NULL, &ph->next);
	}
}

static bool same_fix(const ns_next_step *s, const ns_route *r)
{
	return s != NULL && s->route.fix != NULL && r->fix != NULL && strcmp(s->route.fix, r->fix) == 0;
}

/* The high findings to print under the headline, less those whose fix a next step line already gives. */
static void pick_also(ns_device_report *out)
{
	const ns_next_step *top = ns_next_steps_top(&out->next),
	                   *second = ns_next_steps_runner_up(&out->next);

	for (size_t i = 0; i < out->verdict.nfindings; i++) {
		const ns_finding *f = &out->verdict.findings[i];
		const ns_route *r = &out->routes.route[f->regime];
		if (f->grade == GRADE_HIGH && !same_fix(top, r) && !same_fix(second, r))
			out->also[out->nalso++] = *f;
	}
}

void ns_device_report_build(const split_result *res, const split_device *d, const classify_options *classify,
                            const ns_routes *routes, const ns_roof_time *roof, const ns_device_table *devices,
                            ns_device_report *out)
{
	const split_quality *q = &res->quality;
	ns_routes base, next_routes;

	memset(out, 0, sizeof(*out));
	base = *routes;
	if (res->ndevices > 0 && !res->gpu_activity) /* a host-only split: no GPU advice */
		report_host_only_routes(routes, &base);
	else
		report_evidence_routes(res, d, devices, routes, &base, out->fixes);
	report_device_label(res, d, out->label, sizeof(out->label));
	out->counted_steps = counted_steps(d);
	out->routed = report_overall_routed(d);
	route_window(&out->routed, classify, &out->verdict);
	report_cause_routes(&out->routed, &base, &out->routes);
	out->unfit = q->grade == QUALITY_UNFIT;
	out->startup = ns_device_startup_only(d);
	out->startup_route = *report_startup_route(res, d, &base);
	if (res->python_frames == 0 && !out->unfit &&
	    q->problem[QP_PROFILER_OVERHEAD].grade == QUALITY_GOOD && !out->startup &&
	    (out->verdict.regime == REGIME_OVERHEAD || out->verdict.regime == REGIME_IDLE))
		out->python_hint = report_host_cause_share(&d->overall);
	if (res->passes != NULL)
		out->optimizer_grade = report_optimizer_grade(d, &out->optimizer_share);
	report_optimizer_fix(res, &base.finding[FINDING_OPTIMIZER], out->optimizer_fix,
	                     sizeof(out->optimizer_fix));
	next_step_routes(out, &base, &next_routes);
	if (!out->unfit && !out->startup) {
		ns_next_steps_of_window(&out->routed, out->counted_steps, &next_routes, roof, &out->next);
		pick_also(out);
	}
	build_phases(d, classify, &base, &next_routes, out);
}
