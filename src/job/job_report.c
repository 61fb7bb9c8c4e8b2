/* The job report: a merged job routed through the classifier, routes and formatter like any other split, then
 * written as text, one regime word or one JSON document (job_report.h). */
#include "nextstep/job_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "job_private.h"
#include "nextstep/next_step.h"
#include "nextstep/trace_report.h"
#include "trace/report/report_private.h"
#include "util/json_out.h"
#include "util/sort.h"
#include "util/text.h"

/* Width of the per-rank bar. */
#define BAR_WIDTH 20

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* ---- routing ---- */

/* The routes a rank's own trace report gives its judged device, decided once per report from the evidence its
 * summary carries; the verdict's, the rank lines' and the next steps' routes borrow its fixes. */
struct ns_job_rank_routes {
	ns_routes routes;
	ns_routes
	    next; /* for its next steps: the optimizer's candidate worded for its class, as the trace's */
	char fixes[REPORT_FIX_SLOTS][NS_REPORT_FIX_MAX];
	char optimizer_fix[NS_REPORT_FIX_MAX];
	report_precision prec;
	int64_t optimizer_launch_ns;
	const ns_roof_time *roof; /* the device's placed kernel classes (ns_job_device.roof), or NULL */
};

/* A straggler's route, with its fix worded where its own report words it. */
typedef struct {
	ns_route route;
	char fix[NS_REPORT_FIX_MAX];
} job_route_text;

/* What a report's lines borrow their words from, decided once (ns_job_report_build): the reference rank's
 * own routes (the job's median verdict and next steps) and each straggler's route. */
struct ns_job_routes_store {
	const ns_job_rank_result *ref_rank; /* reference_rank(): the job's fixes are bounded on it */
	ns_job_rank_routes ref;
	job_route_text strag[]; /* res->nstrag */
};

/* What the routing of a report reads: its options, the job, and the routes decided once. */
typedef struct {
	const ns_job_report_options *o;
	const ns_job_result *res;
	const ns_job_routes_store *store;
} job_ctx;

/* The next steps' routes: the optimizer's candidate takes the optimizer finding's fix for the rank's class
 * and the launch time inside its step, as the trace report's next steps do, where the summary says what the
 * optimizer is (a summary of before it, none: the stock route, no launch time). */
static void optimizer_routes(const ns_route_evidence *ev, const ns_routes *in, ns_job_rank_routes *out)
{
	const ns_route *f = &in->finding[NS_FINDING_OPTIMIZER];

	out->next = out->routes;
	out->optimizer_launch_ns = 0;
	if (!ev->optimizer_known)
		return;
	out->optimizer_launch_ns = ev->optimizer_launch_ns;
	if (f->fix == NULL)
		return;
	report_optimizer_fix_of(ev->optimizer, ev->optimizer_fused, f, out->optimizer_fix,
	                        sizeof(out->optimizer_fix));
	out->next.cause[NS_CAUSE_OPTIMIZER].module = f->module;
	out->next.cause[NS_CAUSE_OPTIMIZER].fix = out->optimizer_fix;
	out->next.cause[NS_CAUSE_OPTIMIZER].next_check = f->next_check;
}

/* The routes a rank's own trace report gives device dev (window: its whole run; the judged device's has its
 * exposed comm split), as far as the rank's summary carries the evidence (docs/job.md, rule 7): the library's
 * routing of a trace's device, from the device's evidence and the rank's host stalls and allocator calls. A
 * job's comm transfer is the exposed comm less the waiting: the route the evidence gives the exposed comm is
 * its route too. */
static void device_routes(const ns_job_report_options *o, const ns_job_rank *src, const ns_job_device *dev,
                          const ns_split_window *window, ns_job_rank_routes *out)
{
	ns_route_evidence ev = dev->evidence;
	ns_split_window own = *window; /* as its trace has it: the job's split of the exposed comm undone */
	report_device_facts f = {&own, dev->name, dev->nsteps, 0, 0};

	own.cause_ns[NS_CAUSE_EXPOSED] += own.cause_ns[NS_CAUSE_WAIT] + own.cause_ns[NS_CAUSE_COMM_TRANSFER];
	own.cause_ns[NS_CAUSE_WAIT] = own.cause_ns[NS_CAUSE_COMM_TRANSFER] = 0;

	ev.host_stalls = src->host_stalls;
	ev.host_stall_ns = src->host_stall_ns;
	ev.alloc_ns = src->alloc_ns;
	for (size_t i = 0; i < dev->nsteps; i++) {
		f.counted += !dev->steps[i].warmup;
		f.with_init += !dev->steps[i].warmup && dev->steps[i].cause_ns[NS_CAUSE_INIT] > 0;
	}
	report_routes_of_evidence(&ev, &f, o->devices, o->routes, &out->routes, out->fixes, &out->prec);
	out->roof = job_device_placed(dev) ? dev->roof : NULL;
	report_roof_route(out->roof, &out->prec, &out->routes, out->fixes[REPORT_FIX_COMPUTE]);
	if (out->routes.cause[NS_CAUSE_EXPOSED].fix != o->routes->cause[NS_CAUSE_EXPOSED].fix)
		out->routes.cause[NS_CAUSE_COMM_TRANSFER] = out->routes.cause[NS_CAUSE_EXPOSED];
	optimizer_routes(&ev, o->routes, out);
}

/* The routes of a rank's judged device (device_routes); the stock ones for a rank without a device. */
static void rank_own_routes(const ns_job_report_options *o, const ns_job_rank_result *r,
                            ns_job_rank_routes *out)
{
	if (r->device < r->src->ndev) {
		device_routes(o, r->src, &r->src->dev[r->device], &r->overall, out);
		return;
	}
	out->routes = out->next = *o->routes;
	memset(&out->prec, 0, sizeof(out->prec));
	out->optimizer_launch_ns = 0;
	out->roof = NULL;
}

static const ns_finding_kind straggler_findings[NS_STRAGGLER_KIND_COUNT] = {
    [NS_STRAGGLER_DEVICE] = NS_FINDING_STRAGGLER_DEVICE, [NS_STRAGGLER_WORK] = NS_FINDING_STRAGGLER_WORK,
    [NS_STRAGGLER_INPUTS] = NS_FINDING_STRAGGLER_INPUTS, [NS_STRAGGLER_JITTER] = NS_FINDING_STRAGGLER_JITTER,
    [NS_STRAGGLER_ALLOC] = NS_FINDING_STRAGGLER_ALLOC,
};

/* The rank numbered rank, or NULL. */
static const ns_job_rank_result *rank_numbered(const ns_job_result *res, int64_t rank)
{
	size_t i = job_rank_index(res, rank);

	return i < res->nranks && res->rank[i].src->rank == rank ? &res->rank[i] : NULL;
}

/* The route that fixes a straggler: on the device, the finding for what makes it slow (kernel advice would
 * not help: the others wait for this rank whatever its kernels are); on the host, its bucket's, or that
 * bucket's dominant cause's, as its own report routes them. Its fix is worded into out->fix. NS_ERR_NOMEM
 * without memory for the rank's own routes. */
static ns_status decide_straggler_route(const ns_job_report_options *o, const ns_job_result *res,
                                        const ns_job_straggler *s, job_route_text *out)
{
	const ns_job_rank_result *r = rank_numbered(res, s->rank);
	ns_job_rank_routes *own;
	ns_routes by_cause;

	out->route = s->kind != NS_STRAGGLER_HOST ? o->routes->finding[straggler_findings[s->kind]]
	                                          : o->routes->route[s->bucket];
	if (s->kind != NS_STRAGGLER_HOST || r == NULL)
		return NS_OK;
	if ((own = malloc(sizeof(*own))) == NULL) /* not its bucket's route instead, in silence */
		return NS_ERR_NOMEM;
	rank_own_routes(o, r, own);
	report_cause_routes(&r->overall, &own->routes, &by_cause);
	out->route = by_cause.route[s->bucket];
	if (out->route.fix != NULL) {
		snprintf(out->fix, sizeof(out->fix), "%s", out->route.fix);
		out->route.fix = out->fix;
	}
	free(own);
	return NS_OK;
}

/* Its route decided once (a report whose store could not be made has none: its bucket's). */
static ns_route straggler_route(const job_ctx *c, const ns_job_straggler *s)
{
	return c->store != NULL ? c->store->strag[s - c->res->strag].route : c->o->routes->route[s->bucket];
}

/* Waiting without a straggler: comm.wait's route would send the reader to a straggler nobody is (docs/job.md,
 * "Waiting without a straggler"). */
static void wait_without_straggler(const ns_job_report_options *o, ns_routes *routes)
{
	if (o->routes->finding[NS_FINDING_WAIT_NO_STRAGGLER].fix != NULL)
		routes->route[NS_REGIME_COMM] = o->routes->finding[NS_FINDING_WAIT_NO_STRAGGLER];
}

/* A rank's routes: its own report's (own: room for them, whose fixes out borrows), and when waiting is most
 * of its exposed comm and a straggler is known, comm routes to the straggler's fix (the collectives are slow
 * because that rank arrives late). fix_buf holds the text. */
static void rank_routes(const job_ctx *c, const ns_job_rank_result *r, ns_job_rank_routes *own,
                        ns_routes *out, char *fix_buf, size_t size)
{
	const ns_job_result *res = c->res;
	const ns_split_window *w = &r->overall;
	int64_t wait = w->cause_ns[NS_CAUSE_WAIT], exposed = wait + w->cause_ns[NS_CAUSE_COMM_TRANSFER];

	rank_own_routes(c->o, r, own);
	report_cause_routes(w, &own->routes, out);
	if (res->nstrag == 0 && exposed > 0 && 2 * wait >= exposed)
		wait_without_straggler(c->o, out);
	if (res->nstrag == 0 || r->straggler || exposed == 0 || 2 * wait < exposed)
		return;
	const ns_job_straggler *s = &res->strag[0];
	for (size_t i = 0; i < res->nstrag; i++)
		if (res->strag[i].rank == r->waited_for)
			s = &res->strag[i];
	ns_route fix = straggler_route(c, s);
	snprintf(fix_buf, size, "waiting for rank %" PRId64 " (%s): %s", s->rank, ns_regime_name(s->bucket),
	         fix.fix != NULL ? fix.fix : "");
	out->route[NS_REGIME_COMM] = fix;
	out->route[NS_REGIME_COMM].fix = fix_buf;
}

static void verdict_of(const ns_job_report_options *o, const ns_split_window *w, ns_verdict *v)
{
	ns_profile p;

	ns_split_window_profile(w, &p);
	ns_classify_profile(&p, o->classify, v);
}

/* The median split has no causes of its own: its bucket takes the route the reference rank's own report
 * gives it (the rank the job's next steps are bounded on: its evidence, as autocast for fp32 GEMMs), or,
 * where one cause dominates that bucket on most ranks, that cause's route on the reference rank (comm mostly
 * waiting on most ranks routes to comm.wait's fix). */
static void median_cause_route(const job_ctx *c, ns_regime b, ns_routes *routes)
{
	const ns_job_result *res = c->res;
	const ns_routes *ref = c->store != NULL ? &c->store->ref.routes : c->o->routes;
	size_t votes[NS_CAUSE_COUNT] = {0};

	routes->route[b] = ref->route[b];
	for (size_t i = 0; i < res->nranks; i++) {
		ns_cause k;
		if (report_dominant_cause(&res->rank[i].overall, b, &k)) /* the cause its own report names */
			votes[k]++;
	}
	for (int k = 0; k < NS_CAUSE_COUNT; k++)
		if (2 * votes[k] > res->nranks) {
			if (ref->cause[k].fix != NULL)
				routes->route[b] = ref->cause[k];
			break;
		}
	if (b == NS_REGIME_COMM && res->nstrag == 0 && 2 * votes[NS_CAUSE_WAIT] > res->nranks)
		wait_without_straggler(c->o, routes);
}

/* The job verdict: the straggler's bucket with its share, else the median split's verdict. */
static void job_verdict(const job_ctx *c, ns_verdict *v, ns_routes *routes)
{
	const ns_job_result *res = c->res;

	*routes = *c->o->routes;
	if (res->nranks == 0) {
		ns_classify_profile(&res->median, c->o->classify, v);
		return;
	}
	/* every bucket, the verdict's and the findings' (-v) alike, as the reference rank's report routes it
	 */
	for (int b = 0; b < NS_REGIME_COUNT; b++)
		median_cause_route(c, (ns_regime)b, routes);
	if (res->nstrag == 0) {
		ns_classify_profile(&res->median, c->o->classify, v);
		return;
	}
	/* The straggler's own split, its slow bucket as the regime: the job's step time is that rank's. */
	const ns_job_straggler *s = &res->strag[0];
	const ns_job_rank_result *r = &res->rank[0];
	for (size_t i = 0; i < res->nranks; i++)
		if (res->rank[i].src->rank == s->rank)
			r = &res->rank[i];
	verdict_of(c->o, &r->overall, v);
	if (v->regime != s->bucket) {
		v->runner_up = v->regime;
		v->runner_up_share = v->share;
		v->regime = s->bucket;
		v->share = v->split[s->bucket];
		v->margin = v->share - v->runner_up_share;
		v->by_priority = false;
	}
	routes->route[s->bucket] = straggler_route(c, s);
}

/* ---- next steps ---- */

/* The counted steps of a device: those in its overall window (warm-up left out unless all are). */
static size_t device_steps(const ns_job_device *d)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nsteps; i++)
		n += !d->steps[i].warmup;
	return n > 0 ? n : (d->nsteps > 0 ? d->nsteps : 1);
}

/* A rank whose summary lists no device counts one step of nothing (it waits for no one). */
static size_t counted_steps(const ns_job_rank_result *r)
{
	return r->device < r->src->ndev ? device_steps(&r->src->dev[r->device]) : 1;
}

/* A rank's waiting for the others a step: its comm wait where the job split it, else all its exposed comm
 * (the waiting is part of it). */
static int64_t waiting_per_step(const ns_job_result *res, const ns_job_rank_result *r)
{
	const ns_split_window *w = &r->overall;
	int64_t t = res->split ? w->cause_ns[NS_CAUSE_WAIT] : w->bucket_ns[NS_REGIME_COMM];

	return t / (int64_t)counted_steps(r);
}

/* A rank that may bound the job's fixes: one on time whose summary has a device (a rank without one has no
 * step to bound anything by, and its zero time would pull the median down). */
static bool is_reference_candidate(const ns_job_rank_result *r)
{
	return !r->straggler && r->device < r->src->ndev;
}

/* The rank the job's other fixes are bounded on: of the ranks on time with a device, the one whose non-comm
 * step time is nearest the median of them (the lowest rank on a tie). The job as it would run once its
 * stragglers arrived like the median rank. NULL when memory runs out. */
static const ns_job_rank_result *reference_rank(const ns_job_result *res)
{
	const ns_job_rank_result *best = NULL;
	int64_t *nc = malloc((res->nranks + 1) * sizeof(*nc)), median;
	size_t n = 0;

	if (nc == NULL) /* out of memory; not rank 0 instead: another job's fixes, said as this one's */
		return NULL;
	for (size_t i = 0; i < res->nranks; i++)
		if (is_reference_candidate(&res->rank[i]))
			nc[n++] = res->rank[i].noncomm_ns;
	ns_sort(nc, n, sizeof(*nc), ns_cmp_i64);
	median = n > 0 ? nc[(n - 1) / 2] : 0;
	free(nc);
	for (size_t i = 0; i < res->nranks; i++) {
		const ns_job_rank_result *r = &res->rank[i];
		int64_t d = r->noncomm_ns - median, bd = best != NULL ? best->noncomm_ns - median : 0;
		if (!is_reference_candidate(r) && n > 0)
			continue;
		if (best == NULL || (d < 0 ? -d : d) < (bd < 0 ? -bd : bd) ||
		    ((d < 0 ? -d : d) == (bd < 0 ? -bd : bd) && r->src->rank < best->src->rank))
			best = r;
	}
	return best != NULL ? best : &res->rank[0];
}

/* A straggler's fix: the job saves at most the time every other rank waits (a rank's step cannot shrink by
 * more than its waiting), and at most the straggler's excess over the median rank; the stragglers together
 * at most the reference rank's waiting (it waits for the last of them). */
static void add_straggler(ns_next_steps *out, const job_ctx *ctx, const ns_job_straggler *s, int64_t *left)
{
	const ns_job_result *res = ctx->res;
	ns_next_step c;
	int64_t least = -1;

	for (size_t i = 0; i < res->nranks; i++) {
		int64_t w = waiting_per_step(res, &res->rank[i]);
		if (res->rank[i].src->rank != s->rank && (least < 0 || w < least))
			least = w;
	}
	if (least < 0)
		return;
	memset(&c, 0, sizeof(c));
	c.bucket = NS_REGIME_COMM;
	c.cause = NS_CAUSE_WAIT;
	c.rule = NS_GAIN_STRAGGLER;
	c.rank = s->rank;
	c.known = true;
	c.held_ns = least;
	c.gain_ns = s->excess_ns < least ? s->excess_ns : least;
	c.gain_ns = c.gain_ns < *left ? c.gain_ns : *left;
	if (c.gain_ns <= 0)
		return;
	*left -= c.gain_ns;
	c.gain_share = out->step_ns > 0 ? (double)c.gain_ns / (double)out->step_ns : 0.0;
	c.route = straggler_route(ctx, s);
	snprintf(
	    c.basis, sizeof(c.basis),
	    "rank %lld runs %.3f ms a step longer than the median rank outside comm, and every other rank "
	    "waits at least %.3f ms a step%s: the job saves at most the smaller",
	    (long long)s->rank, (double)s->excess_ns / 1e6, (double)least / 1e6,
	    res->split ? " for the last rank" : " in exposed comm");
	ns_next_steps_add(out, &c);
}

/* The next steps of a rank's window, routed as its own report routes them, with the precision bound its
 * evidence gives (docs/next-step.md, "Precision") and the kernels' bounds of its placement, when its trace
 * placed ops on the roofline. */
static void window_next_steps(const ns_split_window *w, size_t steps, const ns_job_rank_routes *own,
                              ns_next_steps *out)
{
	ns_next_inputs in = {.roof = own->roof,
	                     .optimizer_launch_ns = own->optimizer_launch_ns,
	                     .fp32_share = own->prec.fp32_share,
	                     .tensor_ratio = own->prec.tensor_ratio};

	ns_next_steps_of_window(w, steps, &own->next, &in, out);
}

/* Whether some rank's judged device has time: a job none of whose ranks has has nothing to route. */
static bool any_rank_routable(const ns_job_result *res)
{
	for (size_t i = 0; i < res->nranks; i++)
		if (res->rank[i].routable)
			return true;
	return false;
}

/* The job's next steps: each straggler's fix (bounded by the waiting of every other rank), then the fixes of
 * the rank nearest the median, the job as it would run with its stragglers on time (docs/next-step.md). */
static void job_next_steps(const job_ctx *c, bool nothing_to_route, ns_next_steps *out)
{
	const ns_job_result *res = c->res;
	const ns_job_rank_result *ref;
	int64_t left;

	memset(out, 0, sizeof(*out));
	if (res->nranks == 0 || res->quality == NS_QUALITY_UNFIT || c->store == NULL ||
	    nothing_to_route) /* no verdict, no fix */
		return;
	ref = c->store->ref_rank;
	window_next_steps(&ref->overall, counted_steps(ref), &c->store->ref, out);
	left = waiting_per_step(res, ref);
	for (size_t i = 0; i < res->nstrag; i++)
		add_straggler(out, c, &res->strag[i], &left);
}

/* ---- order of the rank table ---- */

/* A rank and how far its non-comm step time is from the median rank's. */
typedef struct {
	const ns_job_rank_result *r;
	int64_t distance;
} outlier;

static int cmp_outliers(const void *a, const void *b)
{
	const outlier *x = a, *y = b;

	if (x->r->straggler != y->r->straggler)
		return x->r->straggler ? -1 : 1;
	if (x->distance != y->distance)
		return ns_order_i64(y->distance, x->distance);
	return ns_order_i64(x->r->src->rank, y->r->src->rank);
}

const ns_job_rank_result **ns_job_ranks_in_order(const ns_job_result *res)
{
	size_t n = res->nranks;
	const ns_job_rank_result **v = malloc((n + 1) * sizeof(const ns_job_rank_result *));
	outlier *k = malloc((n + 1) * sizeof(*k));
	int64_t *nc = malloc((n + 1) * sizeof(*nc)), median;

	if (v == NULL || k == NULL || nc == NULL) {
		free(v);
		free(k);
		free(nc);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		nc[i] = res->rank[i].noncomm_ns;
	ns_sort(nc, n, sizeof(*nc), ns_cmp_i64);
	median = n > 0 ? nc[n / 2] : 0;
	for (size_t i = 0; i < n; i++) {
		int64_t d = res->rank[i].noncomm_ns - median;
		k[i] = (outlier){&res->rank[i], d < 0 ? -d : d};
	}
	ns_sort(k, n, sizeof(*k), cmp_outliers);
	for (size_t i = 0; i < n; i++)
		v[i] = k[i].r;
	free(k);
	free(nc);
	return v;
}

/* ---- text ---- */

static const char bar_glyph[NS_REGIME_COUNT] = {'#', '=', '~', 'D', 'o', '.'};

static void print_bar(FILE *out, const ns_split_window *w)
{
	int filled = 0;
	double acc = 0;

	fputc('|', out);
	for (int b = 0; b < NS_REGIME_COUNT; b++) {
		acc += w->dur_ns > 0 ? (double)w->bucket_ns[b] / (double)w->dur_ns : 0;
		int upto = (int)(acc * BAR_WIDTH + 0.5);
		for (; filled < upto && filled < BAR_WIDTH; filled++)
			fputc(bar_glyph[b], out);
	}
	for (; filled < BAR_WIDTH; filled++)
		fputc(' ', out);
	fputc('|', out);
}

static void print_rank_row(FILE *out, const ns_job_report_options *o, const ns_job_rank_result *r)
{
	const ns_split_window *w = &r->overall;
	ns_verdict v;

	verdict_of(o, w, &v);
	fprintf(out, "%6" PRId64 " %9.3f", r->src->rank, (double)r->median_step_ns / 1e6);
	for (int b = 0; b < NS_REGIME_COUNT; b++)
		fprintf(out, " %5.1f%%", pct(w->bucket_ns[b], w->dur_ns));
	fputs("  ", out);
	print_bar(out, w);
	if (!r->routable) /* as the trace report says of a trace without device activity */
		fputs(" no device activity: nothing to route\n", out);
	else
		fprintf(out, " %s (%.0f%%)%s\n", ns_regime_bound_word(v.regime), v.share * 100.0,
		        r->straggler ? "  straggler" : "");
}

static void print_table(FILE *out, const ns_job_report_options *o, const ns_job_rank_result **order, size_t n)
{
	fputs("  rank   step ms compute  memory    comm    data overhead   idle  "
	      "#compute =memory ~comm Ddata o.head .idle\n",
	      out);
	for (size_t i = 0; i < n; i++)
		print_rank_row(out, o, order[i]);
}

/* "rank 0 comm: 28% exposed = 19% waiting for rank 5 + 9% transfer", and where waiting is most of it, the fix
 * it routes to. */
static void print_comm_lines(FILE *out, const job_ctx *c, const ns_job_rank_result **order)
{
	const ns_job_result *res = c->res;

	if (!res->split) {
		/* why_not quotes collective names and groups from the summaries, and may be cut mid-character
		 */
		fputs("comm: waiting and transfer not told apart: ", out);
		ns_fput_text(out, res->why_not);
		fputc('\n', out);
		return;
	}
	for (size_t i = 0; i < res->nranks; i++) {
		const ns_split_window *w = &order[i]->overall;
		int64_t wait = w->cause_ns[NS_CAUSE_WAIT], xfer = w->cause_ns[NS_CAUSE_COMM_TRANSFER];
		if (wait + xfer == 0)
			continue;
		fprintf(out, "rank %" PRId64 " comm: %.0f%% exposed = %.0f%% waiting", order[i]->src->rank,
		        pct(wait + xfer, w->dur_ns), pct(wait, w->dur_ns));
		if (order[i]->waited_for >= 0)
			fprintf(out, " for rank %" PRId64, order[i]->waited_for);
		fprintf(out, " + %.0f%% transfer", pct(xfer, w->dur_ns));
		if (2 * wait >= wait + xfer && res->quality != NS_QUALITY_UNFIT) { /* no verdict, no fix */
			ns_routes routes;
			ns_job_rank_routes own;
			char fix[1024];
			rank_routes(c, order[i], &own, &routes, fix, sizeof(fix));
			fprintf(out, " -> %s", routes.route[NS_REGIME_COMM].fix);
		}
		fputc('\n', out);
	}
}

static void print_stragglers(FILE *out, const job_ctx *c)
{
	const ns_job_result *res = c->res;

	for (size_t i = 0; i < res->nstrag; i++) {
		const ns_job_straggler *s = &res->strag[i];
		ns_route r = straggler_route(c, s);
		fprintf(out,
		        "straggler: rank %" PRId64
		        " - %s %.0f%% vs median %.0f%% (+%.3f ms of non-comm time a step",
		        s->rank, ns_regime_name(s->bucket), s->share * 100.0, s->median_share * 100.0,
		        (double)s->excess_ns / 1e6);
		if (s->kernels_ratio > 0)
			fprintf(out, "; %.2fx the median rank's kernels a step", s->kernels_ratio);
		if (s->kind == NS_STRAGGLER_JITTER)
			fprintf(out, "; %.3f ms a step in trivial host calls stalled for milliseconds",
			        (double)s->stall_ns / 1e6);
		if (s->stall_compared > 0 && (s->kind == NS_STRAGGLER_JITTER || s->stall_steps > 0))
			fprintf(out, "%s most of its excess in %zu of %zu steps",
			        s->kind == NS_STRAGGLER_JITTER ? "," : "; stalls hold", s->stall_steps,
			        s->stall_compared);
		if (s->kind == NS_STRAGGLER_ALLOC)
			fprintf(out, "; %.3f ms a step in cudaMalloc/cudaFree", (double)s->alloc_ns / 1e6);
		if (s->compared_steps > 0)
			fprintf(out, "; the slowest rank in %zu of %zu steps", s->slowest_steps,
			        s->compared_steps);
		if (s->shared_ops > 0 && s->waited_share > 0)
			fprintf(out,
			        "; %.0f%% of the job's waiting is for it, the last to start %zu of %zu "
			        "collectives",
			        s->waited_share * 100.0, s->last_ops, s->shared_ops);
		fprintf(out, ") -> %s (%s)\n", r.fix != NULL ? r.fix : "", r.module != NULL ? r.module : "");
	}
}

/* Waiting without a straggler (res->wait_without_straggler): how far apart the ranks start the steps, the
 * evidence that the lateness is from before the step. */
static void print_start_spread(FILE *out, const ns_job_result *res)
{
	if (!res->wait_without_straggler)
		return;
	if (res->late_rank >= 0)
		fprintf(
		    out,
		    "steps: the ranks start a step up to %.3f ms apart (rank %" PRId64
		    " last), over %zu steps compared: the waiting in collectives comes from before the step, "
		    "and no rank is late often enough to be a straggler; capture more steps\n",
		    (double)res->start_spread_ns / 1e6, res->late_rank, res->spread_steps);
	else
		fputs("steps: the ranks wait in collectives, but no rank is late often enough to be a "
		      "straggler and "
		      "no step could be compared across ranks: capture more steps\n",
		      out);
}

static void print_clocks(FILE *out, const ns_job_result *res)
{
	bool any = false;

	for (size_t i = 1; i < res->nranks; i++)
		any = any || (res->rank[i].has_offset && res->rank[i].offset_ns != 0);
	if (!res->split || !any)
		return;
	fprintf(out, "clocks: aligned on %zu collectives; offset to rank %" PRId64 ":", res->matched,
	        res->rank[0].src->rank);
	for (size_t i = 1; i < res->nranks; i++)
		fprintf(out, "%s rank %" PRId64 " %+.3f ms", i > 1 ? "," : "", res->rank[i].src->rank,
		        (double)res->rank[i].offset_ns / 1e6);
	fputc('\n', out);
}

/* "job quality: degraded: the trace of rank 3 is degraded (...)" when a rank's grade is below good; with -v,
 * a good job says so too. */
static void print_quality(FILE *out, const ns_job_report_options *o, const ns_job_result *res)
{
	const char *g = res->quality >= 0 ? ns_quality_grade_name((ns_quality_grade)res->quality) : NULL;

	if (g == NULL || (res->quality == NS_QUALITY_GOOD && !o->format->verbose))
		return;
	if (res->quality == NS_QUALITY_GOOD) {
		fputs("job quality: good (every rank's trace)\n", out);
		return;
	}
	fprintf(out, "job quality: %s%s: the trace of rank %" PRId64 " is %s", g,
	        res->quality == NS_QUALITY_UNFIT ? ", no verdict" : ", low confidence in the verdict",
	        res->quality_rank, g);
	if (res->unfit_ranks > 1)
		fprintf(out, " (%zu ranks are unfit)", res->unfit_ranks);
	fprintf(out,
	        "; a job is judged from every rank's split: see why in that rank's own report (nextstep "
	        "trace --rank %" PRId64 ")\n",
	        res->quality_rank);
}

static void print_text(FILE *out, const ns_job_report_options *o, const ns_job_result *res,
                       const ns_job_report *m)
{
	job_ctx c = {o, res, m->store};

	print_quality(out, o, res);
	if (res->quality == NS_QUALITY_UNFIT) {
		fprintf(out, "%s: no verdict (a rank's trace is unfit, above)\n", m->label);
	} else if (m->nothing_to_route) {
		fprintf(out, "%s: no device activity: nothing to route\n", m->label);
	} else if (res->nstrag > 0) {
		const ns_job_straggler *s = &res->strag[0];
		fprintf(out,
		        "%s: %sstraggler-bound: rank %" PRId64 ", %s %.0f%% vs median %.0f%%%s -> %s (%s)\n",
		        m->label, ns_format_style(o->format, NS_FORMAT_STYLE_VERDICT), s->rank,
		        ns_regime_name(s->bucket), s->share * 100.0, s->median_share * 100.0,
		        ns_format_style(o->format, NS_FORMAT_STYLE_RESET), m->routes.route[s->bucket].fix,
		        m->routes.route[s->bucket].module);
	} else {
		ns_format_verdict_line(out, m->label, &m->verdict, &m->routes, o->format);
	}
	ns_next_steps_print(out, &m->next, true, NULL);
	if (o->format->verbose && res->quality != NS_QUALITY_UNFIT && !m->nothing_to_route) {
		ns_format_verdict_explain(out, &m->verdict, &m->routes, o->format);
		ns_next_steps_print_all(out, &m->next, true, NULL);
	}
	print_stragglers(out, &c);
	print_table(out, o, m->order, res->nranks);
	print_comm_lines(out, &c, m->order);
	print_start_spread(out, res);
	print_clocks(out, res);
	if (res->nranks == 1)
		fputs("note: one rank only: no straggler can be named and waiting is not told from transfer "
		      "(give every rank of the job)\n",
		      out);
}

ns_status ns_job_report_build(const ns_job_result *res, const ns_job_report_options *o, ns_job_report *out,
                              ns_error *err)
{
	memset(out, 0, sizeof(*out));
	if (res->world_size > 0 && (size_t)res->world_size != res->nranks)
		snprintf(out->label, sizeof(out->label), "job (%zu of %" PRId64 " ranks)", res->nranks,
		         res->world_size);
	else
		snprintf(out->label, sizeof(out->label), "job (%zu rank%s)", res->nranks,
		         res->nranks == 1 ? "" : "s");
	out->store = malloc(sizeof(*out->store) + res->nstrag * sizeof(out->store->strag[0]));
	out->order = ns_job_ranks_in_order(res);
	if (out->store == NULL || out->order == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	memset(&out->store->ref, 0, sizeof(out->store->ref));
	out->store->ref_rank = NULL;
	out->store->ref.routes = out->store->ref.next = *o->routes;
	if (res->nranks > 0) {
		const ns_job_rank_result *ref = reference_rank(res);
		if (ref == NULL)
			return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
		out->store->ref_rank = ref;
		rank_own_routes(o, ref, &out->store->ref);
	}
	for (size_t i = 0; i < res->nstrag; i++)
		if (decide_straggler_route(o, res, &res->strag[i], &out->store->strag[i]) != NS_OK)
			return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	job_ctx c = {o, res, out->store};
	job_verdict(&c, &out->verdict, &out->routes);
	out->nothing_to_route = res->nranks > 0 && !any_rank_routable(res);
	job_next_steps(&c, out->nothing_to_route, &out->next);
	return NS_OK;
}

void ns_job_report_free(ns_job_report *r)
{
	if (r == NULL)
		return;
	free((void *)r->order);
	free(r->store);
	r->order = NULL;
	r->store = NULL;
}

/* ---- JSON ---- */

static cJSON *us_number(int64_t ns)
{
	return cJSON_CreateNumber((double)ns / 1e3);
}

/* A copy of step window i of r's judged device with its exposed comm split into wait and transfer. */
static ns_split_window split_step(const ns_job_rank_result *r, size_t i)
{
	ns_split_window w = r->src->dev[r->device].steps[i];
	int64_t exposed = w.cause_ns[NS_CAUSE_EXPOSED], wait;

	if (r->step_wait_ns == NULL)
		return w;
	wait = r->step_wait_ns[i] < exposed ? r->step_wait_ns[i] : exposed;
	w.cause_ns[NS_CAUSE_WAIT] = wait;
	w.cause_ns[NS_CAUSE_COMM_TRANSFER] = exposed - wait;
	w.cause_ns[NS_CAUSE_EXPOSED] = 0;
	return w;
}

/* The JSON report is written as it is made, one rank and one step at a time: as one cJSON tree, 200 ranks of
 * 2,000 steps made a 604 MB document in 5.3 GB. The small parts (the job, a rank's and a device's own
 * members) are still trees, written by json_out.h in the bytes cJSON_PrintUnformatted gives; steps are
 * written by the trace report's window writer. */
typedef struct {
	json_out w;
	bool nomem;
} job_json;

/* The members of obj (consumed; NULL: it could not be made), after its opening brace. */
static bool put_members(job_json *js, cJSON *obj)
{
	if (obj == NULL) {
		js->nomem = true;
		return false;
	}
	for (const cJSON *c = obj->child; c != NULL && !js->nomem; c = c->next) {
		if (c != obj->child)
			json_out_char(&js->w, ',');
		json_out_string(&js->w, c->string);
		json_out_char(&js->w, ':');
		js->nomem = !json_out_item(&js->w, c);
	}
	cJSON_Delete(obj);
	return !js->nomem && !js->w.failed;
}

/* A device's members up to its steps. */
static cJSON *device_head(const ns_report_options *ro, const ns_job_rank_routes *own,
                          const ns_job_rank_result *r, size_t d, const ns_split_window *window,
                          const char *label, ns_next_steps *next)
{
	const ns_job_device *dev = &r->src->dev[d];
	cJSON *obj = cJSON_CreateObject(), *overall = NULL;
	bool ok = obj != NULL;

	ok = ok &&
	     cJSON_AddItemToObject(obj, "device",
	                           dev->id >= 0 ? cJSON_CreateNumber((double)dev->id) : cJSON_CreateNull());
	ok = ok &&
	     cJSON_AddItemToObject(obj, "name",
	                           dev->name[0] != '\0' ? cJSON_CreateString(dev->name) : cJSON_CreateNull());
	ok = ok && cJSON_AddNumberToObject(obj, "rank", (double)r->src->rank);
	ok = ok && cJSON_AddItemToObject(obj, "overall",
	                                 (overall = ns_report_window_json(label, window, false, ro)));
	if (ok) { /* the rank's own fixes: its waiting is the straggler's to win (the job's next steps) */
		window_next_steps(window, device_steps(dev), own, next);
		ok = cJSON_AddItemToObject(overall, "next_steps", ns_next_steps_json(next, false));
	}
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

static bool put_device(job_json *js, const ns_job_report_options *o, const ns_job_rank_result *r, size_t d,
                       ns_next_steps *next)
{
	const ns_job_device *dev = &r->src->dev[d];
	const ns_split_window *window = d == r->device ? &r->overall : &dev->overall;
	/* the rank's own routes for this device: its lines and next steps say what its trace's do */
	ns_job_rank_routes own;
	ns_report_options ro = {
	    .classify = o->classify, .routes = &own.routes, .format = o->format, .source = r->src->file};
	char label[NS_TRACE_DEVICE_NAME_MAX + 64], step_label[NS_TRACE_DEVICE_NAME_MAX + 96];

	device_routes(o, r->src, dev, window, &own);
	snprintf(label, sizeof(label), "rank %" PRId64 " dev %" PRId64, r->src->rank, dev->id);
	json_out_char(&js->w, '{');
	if (!put_members(js, device_head(&ro, &own, r, d, window, label, next)))
		return false;
	json_out_raw(&js->w, ",\"steps\":[");
	for (size_t i = 0; i < dev->nsteps && !js->w.failed; i++) {
		ns_split_window w = d == r->device ? split_step(r, i) : dev->steps[i];
		snprintf(step_label, sizeof(step_label), "%s step %" PRId64, label, w.step);
		if (i > 0)
			json_out_char(&js->w, ',');
		report_put_window(&js->w, step_label, &w, &ro);
	}
	json_out_raw(&js->w, "],\"collectives\":");
	json_out_number(&js->w, (double)dev->ncoll);
	json_out_char(&js->w, '}');
	return !js->w.failed;
}

/* A rank's members up to its per-step waits. */
static cJSON *rank_head(const job_ctx *c, const ns_job_rank_result *r)
{
	const ns_job_report_options *o = c->o;
	const ns_job_result *res = c->res;
	cJSON *obj = cJSON_CreateObject();
	ns_verdict v;
	ns_routes routes;
	ns_job_rank_routes own;
	char fix[1024], label[64];
	bool ok = obj != NULL;

	snprintf(label, sizeof(label), "rank %" PRId64, r->src->rank);
	rank_routes(c, r, &own, &routes, fix, sizeof(fix));
	verdict_of(o, &r->overall, &v);
	ok = ok && cJSON_AddNumberToObject(obj, "rank", (double)r->src->rank);
	ok = ok && cJSON_AddStringToObject(obj, "file", r->src->file);
	ok = ok && cJSON_AddItemToObject(obj, "quality",
	                                 r->src->quality >= 0 ? cJSON_CreateString(ns_quality_grade_name(
	                                                            (ns_quality_grade)r->src->quality))
	                                                      : cJSON_CreateNull());
	ok = ok && cJSON_AddItemToObject(obj, "verdict",
	                                 r->routable ? ns_format_verdict_json(label, &v, &routes)
	                                             : cJSON_CreateNull());
	ok = ok && cJSON_AddItemToObject(obj, "median_step_us", us_number(r->median_step_ns));
	ok = ok && cJSON_AddItemToObject(obj, "noncomm_us", us_number(r->noncomm_ns));
	ok = ok && cJSON_AddBoolToObject(obj, "straggler", r->straggler);
	ok = ok && cJSON_AddItemToObject(obj, "clock_offset_us",
	                                 r->has_offset && res->split ? us_number(r->offset_ns)
	                                                             : cJSON_CreateNull());
	ok = ok && cJSON_AddItemToObject(obj, "waited_for",
	                                 r->waited_for >= 0 ? cJSON_CreateNumber((double)r->waited_for)
	                                                    : cJSON_CreateNull());
	ok = ok && cJSON_AddItemToObject(obj, "comm_wait_us",
	                                 res->split ? us_number(r->overall.cause_ns[NS_CAUSE_WAIT])
	                                            : cJSON_CreateNull());
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

static bool put_rank(job_json *js, const job_ctx *c, const ns_job_rank_result *r, ns_next_steps *next)
{
	const ns_job_result *res = c->res;

	json_out_char(&js->w, '{');
	if (!put_members(js, rank_head(c, r)))
		return false;
	if (res->split && r->step_wait_ns != NULL) {
		json_out_raw(&js->w, ",\"steps_comm_wait_us\":[");
		for (size_t i = 0; i < r->src->dev[r->device].nsteps; i++) {
			if (i > 0)
				json_out_char(&js->w, ',');
			json_out_number(&js->w, (double)r->step_wait_ns[i] / 1e3);
		}
		json_out_char(&js->w, ']');
	}
	json_out_raw(&js->w, ",\"devices\":[");
	for (size_t d = 0; d < r->src->ndev; d++) {
		if (d > 0)
			json_out_char(&js->w, ',');
		if (!put_device(js, c->o, r, d, next))
			return false;
	}
	json_out_raw(&js->w, "]}");
	return !js->w.failed;
}

static cJSON *straggler_json(const job_ctx *c, const ns_job_straggler *s)
{
	cJSON *obj = cJSON_CreateObject();
	bool ok = obj != NULL;

	ok = ok && cJSON_AddNumberToObject(obj, "rank", (double)s->rank);
	ok = ok && cJSON_AddStringToObject(obj, "bucket", ns_regime_name(s->bucket));
	ok = ok && cJSON_AddNumberToObject(obj, "share", ns_format_tidy(s->share));
	ok = ok && cJSON_AddNumberToObject(obj, "median_share", ns_format_tidy(s->median_share));
	ok = ok && cJSON_AddItemToObject(obj, "excess_us", us_number(s->excess_ns));
	ok = ok && cJSON_AddStringToObject(obj, "kind", ns_job_straggler_kind_name(s->kind));
	ok = ok && cJSON_AddNumberToObject(obj, "kernels_ratio", ns_format_tidy(s->kernels_ratio));
	ok = ok && cJSON_AddNumberToObject(obj, "slowest_steps", (double)s->slowest_steps);
	ok = ok && cJSON_AddNumberToObject(obj, "last_collectives", (double)s->last_ops);
	ok = ok && cJSON_AddNumberToObject(obj, "shared_collectives", (double)s->shared_ops);
	ok = ok && cJSON_AddNumberToObject(obj, "waited_share", s->waited_share);
	ok = ok && cJSON_AddNumberToObject(obj, "compared_steps", (double)s->compared_steps);
	if (ok && s->stall_ns > 0)
		ok = cJSON_AddItemToObject(obj, "stall_us", us_number(s->stall_ns));
	if (ok && s->stall_compared > 0 && s->stall_ns > 0) {
		ok = cJSON_AddNumberToObject(obj, "stall_steps", (double)s->stall_steps);
		ok = ok && cJSON_AddNumberToObject(obj, "stall_compared_steps", (double)s->stall_compared);
	}
	if (ok && s->alloc_ns > 0)
		ok = cJSON_AddItemToObject(obj, "alloc_us", us_number(s->alloc_ns));
	ok = ok && cJSON_AddStringToObject(obj, "fix", straggler_route(c, s).fix);
	ok = ok && cJSON_AddStringToObject(obj, "module", straggler_route(c, s).module);
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

static bool add_job_fields(const job_ctx *c, cJSON *j)
{
	const ns_job_result *res = c->res;
	cJSON *st = cJSON_AddArrayToObject(j, "stragglers"), *off;
	char why[sizeof(res->why_not) * NS_UTF8_REPLACEMENT_LEN + 1];
	bool ok = st != NULL;

	if (ok && res->nstrag > 0)
		ok = cJSON_ReplaceItemInObject(j, "verdict", cJSON_CreateString("straggler-bound"));
	ok = ok &&
	     cJSON_AddNumberToObject(j, "world_size",
	                             (double)(res->world_size > 0 ? res->world_size : (int64_t)res->nranks));
	ok = ok && cJSON_AddNumberToObject(j, "ranks", (double)res->nranks);
	ok = ok && cJSON_AddItemToObject(j, "quality",
	                                 res->quality >= 0 ? cJSON_CreateString(ns_quality_grade_name(
	                                                         (ns_quality_grade)res->quality))
	                                                   : cJSON_CreateNull());
	ok =
	    ok && cJSON_AddItemToObject(j, "quality_rank",
	                                res->quality_rank >= 0 ? cJSON_CreateNumber((double)res->quality_rank)
	                                                       : cJSON_CreateNull());
	for (size_t i = 0; ok && i < res->nstrag; i++)
		ok = cJSON_AddItemToArray(st, straggler_json(c, &res->strag[i]));
	ok = ok && (off = cJSON_AddObjectToObject(j, "clock_offset_us")) != NULL;
	for (size_t i = 0; ok && res->split && i < res->nranks; i++) {
		char key[32];
		snprintf(key, sizeof(key), "%" PRId64, res->rank[i].src->rank);
		ok = cJSON_AddItemToObject(off, key, us_number(res->rank[i].offset_ns));
	}
	ok = ok && cJSON_AddBoolToObject(j, "comm_split", res->split);
	ns_utf8_clean(res->why_not, strlen(res->why_not), why, sizeof(why)); /* see print_comm_lines() */
	ok = ok && cJSON_AddItemToObject(j, "comm_split_refused",
	                                 res->split ? cJSON_CreateNull() : cJSON_CreateString(why));
	ok = ok && cJSON_AddNumberToObject(j, "matched_collectives", (double)res->matched);
	ok = ok && cJSON_AddItemToObject(j, "step_start_spread_us",
	                                 res->late_rank >= 0 ? us_number(res->start_spread_ns)
	                                                     : cJSON_CreateNull());
	ok = ok && cJSON_AddItemToObject(j, "last_to_start",
	                                 res->late_rank >= 0 ? cJSON_CreateNumber((double)res->late_rank)
	                                                     : cJSON_CreateNull());
	return ok;
}

/* The job's own object, from the model. */
static cJSON *job_object(const job_ctx *c, const ns_job_report *m)
{
	/* nothing to route: regime, verdict and the route's words null, as a rank's verdict is */
	cJSON *j = m->nothing_to_route ? ns_format_route_json("job", NULL, NULL, -1.0, NULL)
	                               : ns_format_verdict_json("job", &m->verdict, &m->routes);

	if (j != NULL && add_job_fields(c, j) &&
	    cJSON_AddItemToObject(j, "next_steps", ns_next_steps_json(&m->next, true)))
		return j;
	cJSON_Delete(j);
	return NULL;
}

/* {"job": J, "ranks": [R, ...]} and a newline; a report cut short by a failed write or OOM still ends its
 * line. */
static ns_status print_json(FILE *out, const ns_job_report_options *o, const ns_job_result *res,
                            const ns_job_report *m, ns_next_steps *next)
{
	job_json js;
	job_ctx c = {o, res, m->store};
	cJSON *j = job_object(&c, m);
	bool ok = j != NULL;

	json_out_init(&js.w, out);
	js.nomem = !ok;
	if (ok) {
		json_out_raw(&js.w, "{\"job\":");
		ok = json_out_item(&js.w, j);
		js.nomem = !ok;
		json_out_raw(&js.w, ",\"ranks\":[");
	}
	cJSON_Delete(j);
	for (size_t i = 0; ok && i < res->nranks; i++) {
		if (i > 0)
			json_out_char(&js.w, ',');
		ok = put_rank(&js, &c, m->order[i], next);
	}
	json_out_raw(&js.w, ok ? "]}\n" : "\n");
	ok = json_out_flush(&js.w) && ok;
	if (js.nomem)
		return NS_ERR_NOMEM;
	return ok ? NS_OK : NS_ERR_IO;
}

ns_status ns_job_report_print(FILE *out, const ns_job_result *res, const ns_job_report_options *o,
                              ns_error *err)
{
	ns_job_report *m = malloc(sizeof(*m));
	ns_next_steps *next = malloc(sizeof(*next)); /* a rank's, in JSON */
	ns_status st = NS_OK;

	if (m == NULL || next == NULL) {
		free(m);
		free(next);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	if (ns_job_report_build(res, o, m, err) != NS_OK) {
		ns_job_report_free(m);
		free(m);
		free(next);
		return err->status;
	}
	if (o->format->kind == NS_FORMAT_JSON) {
		st = print_json(out, o, res, m, next);
	} else if (o->format->kind == NS_FORMAT_QUIET) {
		if (res->quality == NS_QUALITY_UNFIT)
			fputs("unfit\n", out);
		else if (!m->nothing_to_route) /* no regime, no line */
			fprintf(out, "%s\n", ns_regime_name(m->verdict.regime));
	} else {
		print_text(out, o, res, m);
	}
	ns_job_report_free(m);
	free(m);
	free(next);
	if (st == NS_ERR_NOMEM)
		return ns_error_set(err, st, "out of memory while writing the job report (incomplete)");
	if (fflush(out) != 0 || ferror(out) || st == NS_ERR_IO)
		return ns_error_set(err, NS_ERR_IO, "error writing the job report");
	return NS_OK;
}
