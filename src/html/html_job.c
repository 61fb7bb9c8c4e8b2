/* The job page: the job's verdict (the straggler when there is one), the ranks as a heat map (each bucket's
 * share of the rank's step, shaded against the largest in its column; the straggler's row marked), and each
 * rank's exposed comm split into waiting for the last rank and transfer. At most NS_HTML_JOB_RANKS_MAX rows,
 * in the text report's order (ns_job_ranks_in_order: outliers first). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html_private.h"
#include "nextstep/job_report.h"
#include "util/palette.h"

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

typedef const ns_job_rank_result *rank_ref;

typedef struct {
	double max[NS_REGIME_COUNT + 2]; /* largest share per column: the buckets, waiting, transfer */
} column_max;

static double share_of(const ns_job_rank_result *r, int col)
{
	const ns_split_window *w = &r->overall;

	if (col < NS_REGIME_COUNT)
		return pct(w->bucket_ns[col], w->dur_ns);
	return pct(w->cause_ns[col == NS_REGIME_COUNT ? NS_CAUSE_WAIT : NS_CAUSE_COMM_TRANSFER], w->dur_ns);
}

static void put_cell(ns_html_page *p, double v, double max, ns_regime b)
{
	const ns_colour *c = ns_palette_bucket((int)b);
	double a = max > 0.0 ? 0.08 + 0.62 * v / max : 0.0; /* never so dark that the number is unreadable */

	hp_printf(p,
	          "<td class=\"n heat\" data-v=\"%.4f\" style=\"background:rgba(%d,%d,%d,%.2f)\">%.1f%%</td>",
	          v, c->r, c->g, c->b, a, v);
}

static void put_rank_row(ns_html_page *p, const ns_job_result *res, const ns_job_rank_result *r,
                         const column_max *m)
{
	hp_printf(p,
	          "<tr class=\"rank%s\" data-rank=\"%" PRId64 "\"><td>%" PRId64
	          "%s</td><td class=\"n\" data-v=\"%.6f\">%.3f</td>",
	          r->straggler ? " straggler" : "", r->src->rank, r->src->rank,
	          r->straggler ? " <b>straggler</b>" : "", (double)r->median_step_ns / 1e6,
	          (double)r->median_step_ns / 1e6);
	for (int b = 0; b < NS_REGIME_COUNT; b++)
		put_cell(p, share_of(r, b), m->max[b], (ns_regime)b);
	if (res->split) {
		put_cell(p, share_of(r, NS_REGIME_COUNT), m->max[NS_REGIME_COUNT], NS_REGIME_COMM);
		put_cell(p, share_of(r, NS_REGIME_COUNT + 1), m->max[NS_REGIME_COUNT + 1], NS_REGIME_COMM);
		if (r->waited_for >= 0)
			hp_printf(p, "<td class=\"n\">%" PRId64 "</td>", r->waited_for);
		else
			hp_puts(p, "<td></td>");
	}
	hp_puts(p, "</tr>\n");
}

static void put_heat_map(ns_html_page *p, const ns_job_result *res, const rank_ref *order, size_t shown)
{
	column_max m;

	memset(&m, 0, sizeof(m));
	for (size_t i = 0; i < shown; i++)
		for (int c = 0; c < NS_REGIME_COUNT + 2; c++)
			if (share_of(order[i], c) > m.max[c])
				m.max[c] = share_of(order[i], c);
	hp_puts(
	    p,
	    "<h3>Ranks</h3>\n<p class=\"note\">Each bucket's share of the rank's step; the darker the "
	    "cell, the "
	    "closer to the largest share in its column. Stragglers first, then the ranks furthest from the "
	    "median rank's step time outside comm, as in the text report. <span "
	    "class=\"screen\">Click a column to sort.</span></p>\n<table class=\"job-ranks "
	    "sortable\"><thead><tr><th>rank</th><th "
	    "class=\"n\">"
	    "median step ms</th>");
	for (int b = 0; b < NS_REGIME_COUNT; b++)
		hp_printf(p, "<th class=\"n\">%s</th>", ns_regime_name((ns_regime)b));
	if (res->split)
		hp_puts(p, "<th class=\"n\">comm: waiting</th><th class=\"n\">comm: transfer</th>"
		           "<th class=\"n\">waited for rank</th>");
	hp_puts(p, "</tr></thead><tbody>\n");
	for (size_t i = 0; i < shown; i++)
		put_rank_row(p, res, order[i], &m);
	hp_puts(p, "</tbody></table>\n");
	if (shown < res->nranks)
		hp_printf(p,
		          "<p class=\"note\">%zu more ranks left out (the first %zu of that order are "
		          "shown).</p>\n",
		          res->nranks - shown, shown);
}

static void put_straggler_banner(ns_html_page *p, const ns_job_result *res, const ns_routes *routes)
{
	const ns_job_straggler *s = &res->strag[0];
	const ns_route *route = &routes->route[s->bucket];

	hp_printf(p,
	          "<div class=\"banner\" style=\"--c:%s\" data-regime=\"straggler\" data-straggler=\"%" PRId64
	          "\">\n"
	          "<p><span class=\"regime\">straggler-bound</span>: rank %" PRId64
	          ", %s %.0f%% of its step against a "
	          "median of %.0f%% on the other ranks (%.3f ms more per step outside comm)</p>\n<p "
	          "class=\"fix\">Fix: ",
	          hp_bucket_colour(s->bucket), s->rank, s->rank, ns_regime_name(s->bucket), s->share * 100.0,
	          s->median_share * 100.0, (double)s->excess_ns / 1e6);
	hp_text(p, route->fix, HTML_FIX_MAX);
	hp_puts(p, "</p>\n<p>Course module: <span class=\"module\">");
	hp_text(p, route->module, 200);
	hp_puts(p, "</span></p>\n</div>\n");
}

/* What the text report says above and below its verdict: the job's grade when a rank's trace is below good
 * (rule 8 of docs/job.md), and where the waiting comes from when no rank is a straggler (rule 9). */
static void put_job_notes(ns_html_page *p, const ns_job_result *res)
{
	if (res->quality == NS_QUALITY_DEGRADED)
		hp_printf(
		    p,
		    "<p class=\"note quality\" data-grade=\"degraded\" data-rank=\"%" PRId64
		    "\">Job quality: degraded, low confidence in the verdict: the trace of rank %" PRId64
		    " is degraded (see that rank's own report).</p>\n",
		    res->quality_rank, res->quality_rank);
	if (res->wait_without_straggler && res->late_rank >= 0)
		hp_printf(
		    p,
		    "<p class=\"note\" data-spread-us=\"%.3f\" data-last-to-start=\"%" PRId64
		    "\">The ranks start a step up to %.3f ms apart (rank %" PRId64
		    " last), over %zu steps compared: the waiting in collectives comes from before the "
		    "step, and no rank is late often enough to be a straggler; capture more steps.</p>\n",
		    (double)res->start_spread_ns / 1e3, res->late_rank, (double)res->start_spread_ns / 1e6,
		    res->late_rank, res->spread_steps);
	else if (res->wait_without_straggler)
		hp_puts(
		    p,
		    "<p class=\"note\">The ranks wait in collectives, but no rank is late often enough to be "
		    "a straggler and no step could be compared across ranks: capture more steps.</p>\n");
}

void ns_html_inputs(ns_html_page *p, const ns_html_source *src, size_t n, size_t more)
{
	hp_printf(p, "<details class=\"inputs\"%s><summary>Inputs</summary>\n", n + more <= 8 ? " open" : "");
	for (size_t i = 0; i < n; i++)
		hp_source(p, &src[i]);
	if (more > 0)
		hp_printf(p, "<p class=\"note\">and %zu more.</p>\n", more);
	hp_puts(p, "</details>\n");
}

ns_status ns_html_job(ns_html_page *p, const ns_job_result *res, const ns_job_report *m, ns_error *err)
{
	const rank_ref *order = m->order;
	size_t shown = res->nranks < NS_HTML_JOB_RANKS_MAX ? res->nranks : NS_HTML_JOB_RANKS_MAX;
	/* after many traces' sections the page may be nearly full: fewer rows (about 1 kB each), never none
	 */
	unsigned long long room =
	    p->bytes < NS_HTML_PAGE_MAX - 32 * 1024 ? NS_HTML_PAGE_MAX - 32 * 1024 - p->bytes : 0;

	(void)err;
	p->results++;
	if (shown > room / 1024)
		shown = room / 1024 > 8 ? (size_t)(room / 1024) : 8;
	hp_printf(p, "<article class=\"job\" id=\"s%u\">\n<h2>Job: %zu rank%s</h2>\n", p->sections++,
	          res->nranks, res->nranks == 1 ? "" : "s");
	if (res->quality == NS_QUALITY_UNFIT)
		hp_printf(
		    p,
		    "<div class=\"banner\" data-regime=\"unfit\"><p>No verdict: the trace of rank %" PRId64
		    " is unfit, and a job is judged from every rank's split (see that rank's own "
		    "report).</p></div>\n",
		    res->quality_rank);
	else if (m->nothing_to_route)
		hp_puts(p, "<div class=\"banner\" data-regime=\"none\"><p>No device activity in any rank's "
		           "trace: nothing to route.</p></div>\n");
	else if (res->nstrag > 0)
		put_straggler_banner(p, res, &m->routes);
	else
		hp_banner(p, NULL, &m->verdict, &m->routes);
	put_job_notes(p, res);
	if (hp_next_steps_open(p, &m->next, true)) /* first, as the text report's lines under the verdict */
		hp_puts(p, "</div>\n");
	if (res->split)
		hp_printf(p,
		          "<p class=\"summary\">Exposed communication split into waiting for the last rank "
		          "to arrive "
		          "and transfer: waiting is %.1f%% of the step (median over ranks), aligned on %zu "
		          "collectives.</p>\n",
		          res->wait_share * 100.0, res->matched);
	else {
		hp_puts(p, "<p class=\"summary\">Waiting and transfer not told apart: ");
		hp_text(p, res->why_not, sizeof(res->why_not));
		hp_puts(p, "</p>\n");
	}
	put_heat_map(p, res, order, shown);
	hp_puts(p, "</article>\n");
	return NS_OK;
}
