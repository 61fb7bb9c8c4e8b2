/* The timeline strip of the median step: a row per GPU stream and per busy host thread, drawn from the
 * split's fixed-size pixel table (ns_split_timeline), so its size does not grow with the trace. Adjacent
 * pixels of the same class and shade are one rectangle. */
#include <inttypes.h>
#include <string.h>

#include "html_private.h"
#include "util/palette.h"

#define LABEL_W     170.0
#define LABEL_CHARS 26 /* bytes of a row's label that fit in LABEL_W at the strip's font size */
#define STRIP_W     780.0
#define ROW_H       14.0
#define ROW_GAP     5.0
#define TOP         16.0
/* Shades: a pixel is drawn at the quarter its class fills (nothing below 2 %). */
#define SHADES 4

static const char *gpu_class_word[NS_SPLIT_TIMELINE_CLASSES] = {"compute", "memory", "comm", "memcpy/memset"};
static const char *host_class_word[NS_SPLIT_TIMELINE_CLASSES] = {"CPU ops", "data loader",
                                                                 "blocked on device", "host collectives"};

static const char *class_colour(bool host, int c)
{
	static const ns_regime gpu[NS_SPLIT_TIMELINE_CLASSES] = {NS_REGIME_COMPUTE, NS_REGIME_MEMORY,
	                                                         NS_REGIME_COMM, NS_REGIME_MEMORY};
	static const ns_regime hostr[NS_SPLIT_TIMELINE_CLASSES] = {NS_REGIME_COUNT, NS_REGIME_DATALOADER,
	                                                           NS_REGIME_OVERHEAD, NS_REGIME_COMM};

	if (host && c == NS_TIMELINE_HOST_CPU)
		return ns_palette_host()->hex;
	if (!host && c == NS_KCLASS_COUNT) /* memcpy/memset */
		return ns_palette_transfer()->hex;
	return hp_bucket_colour(host ? hostr[c] : gpu[c]);
}

/* The class filling most of pixel p (later classes win ties: on a host row a blocking op is both CPU and
 * blocked) and its shade 0..SHADES. */
static int pixel_mark(const ns_split_timeline_row *r, size_t p, int *shade)
{
	int best = 0;

	for (int c = 1; c < NS_SPLIT_TIMELINE_CLASSES; c++)
		if (r->frac[p][c] >= r->frac[p][best])
			best = c;
	double f = (double)r->frac[p][best] / NS_SPLIT_TIMELINE_FULL;
	*shade = f < 0.02 ? 0 : f >= 0.75 ? 4 : f >= 0.5 ? 3 : f >= 0.25 ? 2 : 1;
	return best;
}

static void row_label(const ns_split_timeline_row *r, char *buf, size_t size)
{
	if (r->merged)
		snprintf(buf, size, "%s", r->host ? "other threads" : "other streams");
	else if (r->host && r->name[0] != '\0') /* the trace's thread_name, not a 19-digit id */
		snprintf(buf, size, "%s", r->name);
	else if (r->host)
		snprintf(buf, size, "tid %" PRId64, r->id);
	else if (r->id >= 0)
		snprintf(buf, size, "stream %" PRId64, r->id);
	else
		snprintf(buf, size, "stream ?");
}

static void row_title(ns_html_page *p, const ns_split_timeline *tl, const ns_split_timeline_row *r,
                      const char *label)
{
	double per_px_ms = (double)tl->dur_ns / 1e6 / NS_SPLIT_TIMELINE_PX;

	hp_puts(p, "<title>");
	hp_text(p, label, NS_SPLIT_THREAD_NAME_MAX);
	if (r->host && !r->merged && r->name[0] != '\0')
		hp_printf(p, " (pid %" PRId64 ", tid %" PRId64 ")", r->pid, r->id);
	else if (r->host && !r->merged)
		hp_printf(p, " (pid %" PRId64 ")", r->pid);
	hp_printf(p, ": busy %.3f ms", (double)r->busy_ns / 1e6);
	hp_printf(p, " of %.3f ms", (double)tl->dur_ns / 1e6);
	for (int c = 0; c < NS_SPLIT_TIMELINE_CLASSES; c++) {
		double sum = 0.0;
		for (size_t x = 0; x < NS_SPLIT_TIMELINE_PX; x++)
			sum += (double)r->frac[x][c] / NS_SPLIT_TIMELINE_FULL;
		if (sum * per_px_ms >= 0.0005)
			hp_printf(p, "; %s %.3f ms", r->host ? host_class_word[c] : gpu_class_word[c],
			          sum * per_px_ms);
	}
	hp_puts(p, "</title>");
}

static void put_row(ns_html_page *p, const ns_split_timeline *tl, const ns_split_timeline_row *r, double y)
{
	const double px = STRIP_W / NS_SPLIT_TIMELINE_PX;
	char label[NS_SPLIT_THREAD_NAME_MAX + 32];
	size_t x = 0;

	row_label(r, label, sizeof(label));
	hp_printf(p, "<g class=\"tl-row%s\">", r->host ? " host" : " gpu");
	row_title(p, tl, r, label);
	/* A thread's name is the trace's text: escaped, and cut to what the label column holds. */
	hp_printf(p, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", LABEL_W - 6, y + ROW_H - 3);
	hp_text(p, label, LABEL_CHARS);
	hp_puts(p, "</text>");
	hp_printf(p, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"#f4f4f4\"/>", LABEL_W,
	          y, STRIP_W, ROW_H);
	while (x < NS_SPLIT_TIMELINE_PX) {
		int shade, c = pixel_mark(r, x, &shade), s2;
		size_t end = x + 1;
		while (end < NS_SPLIT_TIMELINE_PX && pixel_mark(r, end, &s2) == c && s2 == shade)
			end++;
		if (shade > 0)
			hp_printf(
			    p, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\"%s%s/>",
			    LABEL_W + (double)x * px, y, (double)(end - x) * px, ROW_H,
			    class_colour(r->host, c), shade < SHADES ? " fill-opacity=\"" : "",
			    shade == 1   ? "0.3\""
			    : shade == 2 ? "0.55\""
			    : shade == 3 ? "0.8\""
			                 : "");
		x = end;
	}
	hp_puts(p, "</g>\n");
}

static void put_key(ns_html_page *p)
{
	hp_puts(p, "<p class=\"legend\">GPU: ");
	for (int c = 0; c < NS_SPLIT_TIMELINE_CLASSES; c++)
		hp_printf(p, "<span><i class=\"swatch\" style=\"background:%s\"></i>%s</span>",
		          class_colour(false, c), gpu_class_word[c]);
	hp_puts(p, " host: ");
	for (int c = 0; c < NS_SPLIT_TIMELINE_CLASSES; c++)
		hp_printf(p, "<span><i class=\"swatch\" style=\"background:%s\"></i>%s</span>",
		          class_colour(true, c), host_class_word[c]);
	hp_puts(p, "</p>\n");
}

void hp_timeline(ns_html_page *p, const ns_split_timeline *tl)
{
	double h = TOP + (double)tl->nrows * (ROW_H + ROW_GAP) + 22;
	double ms = (double)tl->dur_ns / 1e6;

	if (tl->nrows == 0)
		return;
	hp_puts(p, "<h3>Timeline of the median step</h3>\n");
	put_key(p);
	hp_printf(p,
	          "<figure class=\"timeline\"><svg role=\"img\" viewBox=\"0 0 960 %.0f\" width=\"960\" "
	          "height=\"%.0f\">"
	          "<title>step ",
	          h, h);
	if (tl->step >= 0)
		hp_printf(p, "%" PRId64, tl->step);
	else
		hp_puts(p, "(whole trace)");
	hp_printf(p, ", %.3f ms, %d pixels across</title>\n", ms, NS_SPLIT_TIMELINE_PX);
	for (size_t r = 0; r < tl->nrows; r++)
		put_row(p, tl, &tl->row[r], TOP + (double)r * (ROW_H + ROW_GAP));
	for (int t = 0; t <= 4; t++) {
		double x = LABEL_W + STRIP_W * t / 4.0;
		hp_printf(p,
		          "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#999\"/>"
		          "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"%s\">%.3f ms</text>\n",
		          x, TOP - 4, x, h - 18, x, h - 6,
		          t == 0   ? "start"
		          : t == 4 ? "end"
		                   : "middle",
		          ms * t / 4.0);
	}
	hp_puts(p, "</svg><figcaption class=\"note\">The median step, ");
	if (tl->step >= 0)
		hp_printf(p, "step %" PRId64 ", ", tl->step);
	hp_printf(
	    p,
	    "%.3f ms in %d columns of %.1f &micro;s each; a column shows the class that fills most of it, "
	    "paler when it fills less. <span class=\"screen\">Hover a row for its totals.</span> Busiest "
	    "streams and threads "
	    "first.</figcaption>"
	    "</figure>\n",
	    ms, NS_SPLIT_TIMELINE_PX, ms * 1000.0 / NS_SPLIT_TIMELINE_PX);
}
