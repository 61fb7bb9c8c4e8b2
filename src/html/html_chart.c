/* The stacked bar chart every page draws (steps of a trace, before/after of a diff). Its size depends only on
 * the number of bars, which the callers bound. */
#include <math.h>
#include <string.h>

#include "html_private.h"

/* The drawing area in SVG units (the chart scales to the page's width). */
#define CHART_W 960.0
#define CHART_H 280.0
#define PLOT_L  64.0
#define PLOT_R  950.0
#define PLOT_T  22.0
#define PLOT_B  236.0
#define TICKS   5
#define XLABELS 12

size_t ns_html_step_groups(size_t n, size_t max, size_t *per)
{
	if (max == 0)
		max = 1;
	*per = n <= max ? 1 : (n + max - 1) / max;
	return n == 0 ? 0 : (n + *per - 1) / *per;
}

/* 1, 2 or 5 times a power of ten, at least x: a tick step a reader can add up. */
static double nice_step(double x)
{
	double e, f;

	if (isnan(x) || x <= 0.0 || isinf(x))
		return 1.0;
	e = pow(10.0, floor(log10(x)));
	f = x / e;
	return (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * e;
}

static double bar_total(const hp_bar *b)
{
	double t = 0.0;

	for (int r = 0; r < NS_REGIME_COUNT; r++)
		t += b->v[r] > 0.0 ? b->v[r] : 0.0;
	return t;
}

static void put_axis(ns_html_page *p, double top, double step, const char *unit)
{
	hp_printf(p, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#333\"/>\n", PLOT_L,
	          PLOT_B, PLOT_R, PLOT_B);
	for (int i = 0; i <= TICKS && step * i <= top * 1.0000001; i++) {
		double y = PLOT_B - (step * i) / top * (PLOT_B - PLOT_T);
		hp_printf(p,
		          "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
		          "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
		          PLOT_L, y, PLOT_R, y, PLOT_L - 6, y + 4, step * i);
	}
	hp_printf(p, "<text x=\"14\" y=\"%.0f\" transform=\"rotate(-90 14 %.0f)\" text-anchor=\"middle\">",
	          (PLOT_T + PLOT_B) / 2, (PLOT_T + PLOT_B) / 2);
	hp_text(p, unit, 40);
	hp_puts(p, "</text>\n");
}

/* The tooltip: the bar's head, its total and every bucket with its share of the bar. */
static void put_title(ns_html_page *p, const hp_bar *b, const char *unit)
{
	double total = bar_total(b);

	hp_puts(p, "<title>");
	hp_text(p, b->tip, sizeof(b->tip));
	hp_printf(p, ": %.3f %s", total, unit);
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		hp_printf(p, "; %s %.3f (%.1f%%)", ns_regime_name((ns_regime)r), b->v[r],
		          total > 0 ? 100.0 * b->v[r] / total : 0.0);
	if (b->extra[0] != '\0') {
		hp_puts(p, "; ");
		hp_text(p, b->extra, sizeof(b->extra));
	}
	if (b->marked)
		hp_puts(p, "; warm-up");
	hp_puts(p, "</title>");
}

static void put_bar(ns_html_page *p, const hp_bar *b, double x, double w, double top, const char *unit)
{
	double y = PLOT_B;

	hp_printf(p, "<g class=\"bar%s\">", b->marked ? " warmup" : "");
	put_title(p, b, unit);
	for (int r = 0; r < NS_REGIME_COUNT; r++) {
		double h = b->v[r] > 0.0 ? b->v[r] / top * (PLOT_B - PLOT_T) : 0.0;
		if (h <= 0.0)
			continue;
		y -= h;
		hp_printf(p, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s/>", x,
		          y, w, h, hp_bucket_colour((ns_regime)r), b->marked ? " fill-opacity=\"0.45\"" : "");
	}
	if (b->marked) /* a triangle over a warm-up bar */
		hp_printf(p, "<path d=\"M%.1f %.1fl-4 -7h8z\" fill=\"#333\"/>", x + w / 2, y - 2);
	hp_puts(p, "</g>\n");
}

void hp_bar_chart(ns_html_page *p, const char *css_class, const char *caption, const hp_bar *bars, size_t n,
                  const char *unit)
{
	double top = 0.0, step, slot = n > 0 ? (PLOT_R - PLOT_L) / (double)n : 0.0;
	double gap = slot > 6.0 ? slot * 0.18 : 0.0;
	size_t every = n > XLABELS ? (n + XLABELS - 1) / XLABELS : 1;
	bool any_marked = false;

	for (size_t i = 0; i < n; i++) {
		top = fmax(top, bar_total(&bars[i]));
		any_marked = any_marked || bars[i].marked;
	}
	step = top > 0.0 ? nice_step(top / TICKS) : 1.0; /* an empty chart still gets an axis */
	top = step * ceil(top / step - 1e-9);
	if (!(top > 0.0))
		top = step;
	hp_printf(p,
	          "<figure class=\"%s\"><svg role=\"img\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
	          "height=\"%.0f\"><title>",
	          css_class, CHART_W, CHART_H, CHART_W, CHART_H);
	hp_text(p, caption, 300);
	hp_puts(p, "</title>\n");
	put_axis(p, top, step, unit);
	for (size_t i = 0; i < n; i++) {
		double x = PLOT_L + slot * (double)i + gap / 2;
		put_bar(p, &bars[i], x, slot - gap, top, unit);
		if (i % every == 0 || i + 1 == n) {
			hp_printf(p, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">",
			          x + (slot - gap) / 2, PLOT_B + 16);
			hp_text(p, bars[i].label, sizeof(bars[i].label));
			hp_puts(p, "</text>\n");
		}
	}
	hp_puts(p, "</svg><figcaption class=\"note\">");
	hp_text(p, caption, 300);
	if (any_marked)
		hp_puts(p, " &#9660; and pale bars: warm-up, left out of the verdict.");
	hp_puts(p, " <span class=\"screen\">Hover a bar for its numbers.</span></figcaption></figure>\n");
}

/* The strip's height in SVG units: thin, so it reads as part of the chart above it. */
#define STRIP_H 64.0
#define STRIP_T 4.0
#define STRIP_B 52.0

static double strip_total(const hp_strip_bar *b, size_t nseries)
{
	double t = 0.0;

	for (size_t k = 0; k < nseries; k++)
		t += b->v[k] > 0.0 ? b->v[k] : 0.0;
	return t;
}

static void put_strip_bar(ns_html_page *p, const hp_strip_bar *b, const hp_series *s, size_t nseries,
                          double x, double w, const char *unit)
{
	double total = strip_total(b, nseries), y = STRIP_B;

	hp_puts(p, "<g class=\"strip-bar\"><title>");
	hp_text(p, b->tip, sizeof(b->tip));
	hp_printf(p, ": %.3f %s", total, unit);
	for (size_t k = 0; k < nseries; k++)
		hp_printf(p, "; %s %.3f (%.1f%%)", s[k].name, b->v[k],
		          total > 0.0 ? 100.0 * b->v[k] / total : 0.0);
	hp_puts(p, "</title>");
	hp_printf(
	    p, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#999\"/>",
	    x, STRIP_T, w, STRIP_B - STRIP_T);
	for (size_t k = 0; k < nseries && total > 0.0; k++) {
		double h = b->v[k] > 0.0 ? b->v[k] / total * (STRIP_B - STRIP_T) : 0.0;
		if (h <= 0.0)
			continue;
		y -= h;
		hp_printf(p, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>", x, y,
		          w, h, s[k].colour);
	}
	hp_puts(p, "</g>\n");
}

void hp_strip(ns_html_page *p, const char *css_class, const char *caption, const hp_series *s, size_t nseries,
              const hp_strip_bar *bars, size_t n, const char *unit)
{
	/* the bars' slots are the step chart's (hp_bar_chart), so each sits under its bar */
	double slot = n > 0 ? (PLOT_R - PLOT_L) / (double)n : 0.0;
	double gap = slot > 6.0 ? slot * 0.18 : 0.0;

	if (nseries > HP_SERIES_MAX)
		nseries = HP_SERIES_MAX;
	hp_puts(p, "<p class=\"legend\">");
	for (size_t k = 0; k < nseries; k++) {
		hp_printf(p, "<span><i class=\"swatch\" style=\"background:%s\"></i>", s[k].colour);
		hp_text(p, s[k].name, 40);
		hp_puts(p, "</span>");
	}
	hp_puts(p, "</p>\n");
	hp_printf(p,
	          "<figure class=\"%s\"><svg role=\"img\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
	          "height=\"%.0f\"><title>",
	          css_class, CHART_W, STRIP_H, CHART_W, STRIP_H);
	hp_text(p, caption, 300);
	hp_puts(p, "</title>\n");
	hp_printf(p, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">100%%</text>", PLOT_L - 6, STRIP_T + 8);
	hp_printf(p, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">0</text>\n", PLOT_L - 6, STRIP_B);
	for (size_t i = 0; i < n; i++)
		put_strip_bar(p, &bars[i], s, nseries, PLOT_L + slot * (double)i + gap / 2, slot - gap, unit);
	hp_puts(p, "</svg><figcaption class=\"note\">");
	hp_text(p, caption, 300);
	hp_puts(p, " <span class=\"screen\">Hover a bar for its numbers.</span></figcaption></figure>\n");
}
