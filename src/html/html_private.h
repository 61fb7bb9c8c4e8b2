/* Shared by the html module's files (not installed): the page's writer, which counts what it writes so the
 * page's size can be bounded, and the pieces every section uses. */
#ifndef NEXTSTEP_HTML_PRIVATE_H
#define NEXTSTEP_HTML_PRIVATE_H

#include <stdarg.h>

#include "nextstep/html.h"
#include "nextstep/trace_report.h"

struct ns_html_page {
	FILE *out;
	unsigned long long bytes; /* written so far */
	unsigned sections;        /* ids for the sections' anchors */
	/* left out because the page was full: traces/diffs, router cards (by regime) and error cards */
	size_t dropped_sections;
	size_t dropped_cards[NS_REGIME_COUNT];
	size_t dropped_errors;
	size_t cards;    /* router cards drawn */
	size_t results;  /* reports and verdicts given to the page, drawn or counted (ns_html_page_results) */
	int write_errno; /* of the first write that failed (0: none): errno is stale by the page's end */
};

void hp_puts(ns_html_page *p, const char *s);
void hp_printf(ns_html_page *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Escaped text, cut to max bytes. */
void hp_text(ns_html_page *p, const char *s, size_t max);
/* "<h2>", a section id, and whether the section still fits in full / at all. */
bool hp_room_full(const ns_html_page *p);
bool hp_room_line(const ns_html_page *p);
/* Whether a part of at most worst bytes still fits, keeping room for the page's end. */
bool hp_fits(const ns_html_page *p, unsigned long long worst);
/* Worst cases of the large parts, in bytes: a bar of the step chart (tooltip with causes and six
 * rectangles), a rectangle of the timeline, a table row with a name and its whole-name tooltip (escaping can
 * make a byte six). */
#define BAR_WORST  (6 * 240 + 6 * 110 + 400)
#define RECT_WORST 120
#define ROW_WORST  (6 * (NS_HTML_NAME_MAX + NS_HTML_TITLE_MAX) + 400)

/* A fix is cut at this many bytes, like a next step's: the library composes fixes with their evidence
 * (the fp32 advice quotes the device's peaks), and the page shows the whole of what text and JSON say. */
#define HTML_FIX_MAX 1024

/* A bucket's colour ("#0072B2"). */
const char *hp_bucket_colour(ns_regime r);
/* The verdict banner: regime, share, fix, module, next check, high findings; label names the device. */
void hp_banner(ns_html_page *p, const char *label, const ns_verdict *v, const ns_routes *routes);
/* The same, left open for more findings; the caller writes "</div>". */
void hp_banner_open(ns_html_page *p, const char *label, const ns_verdict *v, const ns_routes *routes);
/* The input's name, size and SHA-256. */
void hp_source(ns_html_page *p, const ns_html_source *src);
/* A milliseconds value with three decimals (microsecond resolution), the unit left to the caller. */
void hp_ms(ns_html_page *p, double ms);

/* One bar of a stacked bar chart: six bucket values (any unit) and its label and tooltip head. */
typedef struct {
	double v[NS_REGIME_COUNT];
	char label[48];
	char tip[160];
	char extra[240]; /* more for the tooltip ("causes: ..."), may be "" */
	bool marked;     /* drawn hatched with a marker above (warm-up) */
} hp_bar;

/* A stacked bar chart, value axis in unit; each bar's numbers are in its <title>. */
void hp_bar_chart(ns_html_page *p, const char *css_class, const char *caption, const hp_bar *bars, size_t n,
                  const char *unit);
/* A thin strip of 100 % stacked bars in the step chart's slots (n bars, like the chart above it): each bar's
 * series as shares of its total, the values (in unit) in its <title>. */
#define HP_SERIES_MAX 4
typedef struct {
	const char *name;
	const char *colour;
} hp_series;
typedef struct {
	double v[HP_SERIES_MAX];
	char tip[160];
} hp_strip_bar;
#define STRIP_BAR_WORST (6 * 160 + HP_SERIES_MAX * 150 + 200)
void hp_strip(ns_html_page *p, const char *css_class, const char *caption, const hp_series *s, size_t nseries,
              const hp_strip_bar *bars, size_t n, const char *unit);
/* The timeline strip of a device's median step (html_timeline.c). */
void hp_timeline(ns_html_page *p, const ns_split_timeline *tl);
/* ---- the trace page's step details (html_steps.c) ---- */
/* The steps in a device's overall: warm-up ones are left out unless every step is warm-up. */
size_t hp_counted_steps(const ns_split_device *d);
/* A window routed with the page's classifier. */
void hp_route_window(const ns_split_window *w, const ns_html_trace_options *o, ns_verdict *v);
/* " (steps from inference-server iteration markers)" for sources other than the host's ProfilerStep#. */
void hp_step_source(ns_html_page *p, const ns_split_result *res);
/* "CUDA/HIP graphs: 85% of GPU time in 6 replays (17 kernels, ...)" when the device replayed graphs. */
void hp_graphs(ns_html_page *p, const ns_split_device *d);
/* Inside an open banner: the optimizer finding when it is high. */
void hp_optimizer_also(ns_html_page *p, const ns_device_report *m);
/* One verdict per inference phase (prefill, decode, mixed) when the steps have phases. */
void hp_inference_phases(ns_html_page *p, const ns_device_report *m);
/* The forward / backward / optimizer passes: a strip under the step chart (strip), their mean per step as a
 * table, and the optimizer finding at any grade. Nothing when the trace marks no pass. */
void hp_passes(ns_html_page *p, const ns_split_result *res, const ns_split_device *d,
               const ns_device_report *m, bool strip);
/* The steps as a table (a row per bar of the step chart), folded. */
void hp_steps_table(ns_html_page *p, const ns_split_result *res, const ns_split_device *d,
                    const ns_html_trace_options *o);
/* The Python frames behind each host cause, when the trace has them; else, where the device report's hint
 * share is at least high, how to record them. */
void hp_python(ns_html_page *p, const ns_split_result *res, const ns_split_device *d,
               const ns_device_report *m, double high);
/* Worst cases: a row of the steps table (marker, 14 numbers), a Python frame row. */
#define STEP_ROW_WORST (6 * NS_HTML_NAME_MAX + 16 * 64 + 200)
#define PY_ROW_WORST   (6 * NS_HTML_NAME_MAX + 200)

/* The legend of the six buckets. */
void hp_legend(ns_html_page *p);

/* The ranked next steps as a list (the text's "next step:" and "then:" items marked shown), in an open
 * <div class="next-steps"> the caller closes; false (nothing written) when there are none or the page is
 * full. */
bool hp_next_steps_open(ns_html_page *p, const ns_next_steps *n, bool per_step);

#endif
