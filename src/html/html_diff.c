/* The diff page: the change in one line, both verdicts, the buckets before and after in ms per step, the
 * differences that make the comparison suspect, and the kernels that moved. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>

#include "html_private.h"
#include "nextstep/trace_report.h"

#define DIFF_KERNELS_SHOWN 20

static void put_sides(ns_html_page *p, const ns_html_source src[2])
{
	static const char *const side[2] = {"before", "after"};

	for (int i = 0; i < 2; i++) {
		hp_printf(p, "<div class=\"side-%s\"><h3>%s</h3>\n", side[i], i == 0 ? "Before" : "After");
		hp_source(p, &src[i]);
		hp_puts(p, "</div>\n");
	}
}

static void put_bucket_table(ns_html_page *p, const ns_diff_result *r)
{
	hp_puts(
	    p,
	    "<table class=\"diff-buckets\"><caption>Buckets in ms per step</caption>\n<thead><tr>"
	    "<th>bucket</th><th class=\"n\">before</th><th class=\"n\">after</th><th class=\"n\">change</th>"
	    "</tr></thead><tbody>\n");
	for (int b = 0; b < NS_REGIME_COUNT; b++) {
		double x = r->bucket_ms[0][b], y = r->bucket_ms[1][b];
		hp_printf(p,
		          "<tr data-bucket=\"%s\"><td><i class=\"swatch\" style=\"background:%s\"></i>%s</td>"
		          "<td class=\"n before\">%.3f</td><td class=\"n after\">%.3f</td><td "
		          "class=\"n\">%+.3f</td></tr>\n",
		          ns_regime_name((ns_regime)b), hp_bucket_colour((ns_regime)b),
		          ns_regime_name((ns_regime)b), x, y, y - x);
	}
	hp_puts(p, "</tbody></table>\n");
}

static void put_bucket_chart(ns_html_page *p, const ns_diff_result *r)
{
	hp_bar bars[2];

	memset(bars, 0, sizeof(bars));
	for (int i = 0; i < 2; i++) {
		for (int b = 0; b < NS_REGIME_COUNT; b++)
			bars[i].v[b] = r->bucket_ms[i][b];
		snprintf(bars[i].label, sizeof(bars[i].label), "%s", i == 0 ? "before" : "after");
		snprintf(bars[i].tip, sizeof(bars[i].tip), "%s, ms per step", i == 0 ? "before" : "after");
	}
	hp_legend(p);
	hp_bar_chart(p, "diff", "Before and after: the buckets of a step, in ms per step.", bars, 2, "ms");
}

static void put_suspects(ns_html_page *p, const ns_diff_result *r)
{
	if (r->nsuspects == 0)
		return;
	hp_puts(p, "<h3>The runs differ in more than the change</h3>\n<ul class=\"suspects\">\n");
	for (size_t i = 0; i < r->nsuspects; i++) {
		hp_puts(p, "<li>");
		hp_text(p, r->suspects[i].what, 100);
		hp_puts(p, ": ");
		hp_text(p, r->suspects[i].before, NS_DIFF_DEVICE_MAX);
		hp_puts(p, " &rarr; ");
		hp_text(p, r->suspects[i].after, NS_DIFF_DEVICE_MAX);
		hp_puts(p, "</li>\n");
	}
	hp_puts(p, "</ul>\n");
}

static void put_known(ns_html_page *p, bool known, double v)
{
	if (known)
		hp_printf(p, "<td class=\"n\" data-v=\"%.6f\">%.3f</td>", v, v);
	else
		hp_puts(p, "<td class=\"n\" data-v=\"0\">?</td>");
}

static void put_kernels(ns_html_page *p, const ns_diff_result *r)
{
	size_t n = r->nkernels < DIFF_KERNELS_SHOWN ? r->nkernels : DIFF_KERNELS_SHOWN;
	char shown[NS_HTML_NAME_MAX + 1];

	if (n == 0)
		return;
	hp_puts(
	    p,
	    "<h3>Kernels that moved</h3>\n<table class=\"diff-kernels sortable\"><thead><tr><th>kernel</th>"
	    "<th>class</th><th class=\"n\">before ms/step</th><th class=\"n\">after ms/step</th>"
	    "<th class=\"n\">change</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < n; i++) {
		const ns_diff_kernel_delta *k = &r->kernels[i];
		ns_report_short_name(k->name, shown, sizeof(shown));
		hp_puts(p, "<tr><td class=\"kname\" title=\"");
		hp_text(p, k->name, NS_HTML_TITLE_MAX);
		hp_puts(p, "\">");
		hp_text(p, shown, sizeof(shown));
		hp_printf(p, "</td><td>%s</td>", ns_kernel_class_name(k->cls));
		put_known(p, k->before_known, k->before_ms);
		put_known(p, k->after_known, k->after_ms);
		hp_printf(p, "<td class=\"n\" data-v=\"%.6f\">%+.3f</td></tr>\n", k->delta_ms, k->delta_ms);
	}
	hp_puts(p, "</tbody></table>\n");
	if (r->nkernels > n)
		hp_printf(p, "<p class=\"note\">%zu more kernels changed less.</p>\n", r->nkernels - n);
}

/* BEFORE's predictions checked, as the text's "prediction:" lines (the model's shown checks). */
static void put_predictions(ns_html_page *p, const ns_diff_result *r)
{
	bool any = r->over_bound;

	for (size_t i = 0; i < r->nchecks; i++)
		any = any || r->checks[i].shown;
	if (!any)
		return;
	hp_puts(p, "<ul class=\"predictions\">\n");
	for (size_t i = 0; i < r->nchecks; i++) {
		const ns_diff_check *c = &r->checks[i];
		if (!c->shown)
			continue;
		hp_printf(p, "<li class=\"prediction\" data-applied=\"%d\" ", c->applied ? 1 : 0);
		if (!c->p->unbounded) /* no bound: no data-predicted-us, as JSON's predicted_us is null */
			hp_printf(p, "data-predicted-us=\"%.3f\" ", c->p->predicted_us);
		hp_printf(p, "data-achieved-us=\"%.3f\">", c->achieved_ms * 1e3);
		hp_text(p, c->words, sizeof(c->words));
		hp_puts(p, "</li>\n");
	}
	if (r->over_bound) {
		hp_puts(p, "<li class=\"prediction exceeded\">");
		hp_text(p, r->exceeded, sizeof(r->exceeded));
		hp_puts(p, "</li>\n");
	}
	hp_puts(p, "</ul>\n");
}

ns_status ns_html_diff(ns_html_page *p, const ns_html_source src[2], const ns_diff_side *before,
                       const ns_diff_side *after, const ns_diff_result *r, const ns_routes *routes,
                       ns_error *err)
{
	(void)before;
	(void)after;
	(void)err;
	p->results++;
	if (!hp_room_line(p)) {
		p->dropped_sections++;
		return NS_OK;
	}
	hp_printf(p,
	          "<article class=\"diff\" id=\"s%u\">\n<h2>The change</h2>\n<p class=\"headline\" "
	          "data-change=\"%s\">",
	          p->sections++, ns_diff_change_name(r->change));
	hp_text(p, r->headline, sizeof(r->headline));
	hp_puts(p, "</p>\n");
	if (r->before.n > 0 && r->after.n > 0)
		hp_printf(
		    p,
		    "<p class=\"summary\">Median step <span class=\"median-before\">%.3f</span> ms &rarr; "
		    "<span class=\"median-after\">%.3f</span> ms over %zu and %zu steps.</p>\n",
		    r->before.median, r->after.median, r->before.n, r->after.n);
	put_predictions(p, r);
	put_sides(p, src);
	hp_puts(p, "<h3>Verdicts</h3>\n");
	hp_banner(p, "before", &r->verdict[0], routes);
	hp_banner(p, "after", &r->verdict[1], routes);
	put_suspects(p, r);
	hp_puts(p, "<h3>Buckets</h3>\n");
	put_bucket_chart(p, r);
	put_bucket_table(p, r);
	if (hp_fits(p, DIFF_KERNELS_SHOWN * ROW_WORST))
		put_kernels(p, r);
	hp_puts(p, "</article>\n");
	return NS_OK;
}
