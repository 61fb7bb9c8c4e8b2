#define _POSIX_C_SOURCE 200809L
#include "nextstep/roofline_svg.h"

#include <math.h>
#include <string.h>

#include "nextstep/units.h"
#include "nextstep/version.h"
#include "util/magic.h"
#include "util/outfile.h"
#include "util/palette.h"
#include "util/text.h"

/* Canvas and plot area in pixels. */
#define SVG_W  760
#define SVG_H  520
#define PLOT_L 90.0
#define PLOT_R 730.0
#define PLOT_T 50.0
#define PLOT_B 460.0
/* The axes never span more than this many decades; what lies beyond (the lower memory roof, a kernel far
 * from every ridge) is clipped to the plot's edge. This also bounds the size of the document. */
#define Y_DECADES_MAX 10
#define X_DECADES_MAX 12
/* log10 of anything that is not a positive finite number, clamped: no axis or cast ever sees inf or NaN. */
#define LOG_LIMIT 400.0
/* Escaped text (labels, the device name) is cut to this many bytes. */
#define TEXT_MAX 512

/* Colours come from the shared palette (util/palette.h), as in the HTML report and the terminal bars. */
#define COLOR_ROOF     (ns_palette_mark(PALETTE_ROOF)->hex)
#define COLOR_OTHER    (ns_palette_mark(PALETTE_OTHER_ROOF)->hex)
#define COLOR_KERNEL   (ns_palette_mark(PALETTE_KERNEL)->hex)
#define COLOR_ACHIEVED (ns_palette_mark(PALETTE_ACHIEVED)->hex)

typedef struct {
	double lx0, lx1, ly0, ly1; /* log10 of the axis ranges */
} axes;

static double safe_log10(double x)
{
	if (!(x > 0.0))
		return -LOG_LIMIT;
	return fmin(LOG_LIMIT, log10(x));
}

static double clamp(double v, double lo, double hi)
{
	return fmin(hi, fmax(lo, v)); /* fmax(NaN, lo) is lo */
}

/* Pixel positions, kept inside the plot area whatever the value. */
static double px_x(const axes *a, double x)
{
	return clamp(PLOT_L + (safe_log10(x) - a->lx0) / (a->lx1 - a->lx0) * (PLOT_R - PLOT_L), PLOT_L,
	             PLOT_R);
}

static double px_y(const axes *a, double y)
{
	return clamp(PLOT_B - (safe_log10(y) - a->ly0) / (a->ly1 - a->ly0) * (PLOT_B - PLOT_T), PLOT_T,
	             PLOT_B);
}

/* Text as XML character data: well-formed UTF-8, control characters (which XML 1.0 forbids) shown as
 * escapes, markup characters as entities, at most TEXT_MAX bytes. */
static void put_escaped(FILE *out, const char *text)
{
	char safe[TEXT_MAX];

	ns_text_escape(text, strlen(text), safe, sizeof(safe));
	for (const char *s = safe; *s != '\0'; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

static void put_text(FILE *out, double x, double y, const char *anchor, const char *style, const char *text)
{
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" %s>", x, y, anchor, style);
	put_escaped(out, text);
	fputs("</text>\n", out);
}

/* A roof is drawn for each dtype whose peak is a positive number. */
static bool has_peak(const ns_device *d, int i)
{
	return isfinite(d->peak[i]) && d->peak[i] > 0.0;
}

static double max_peak(const ns_device *d)
{
	double m = 0.0;

	for (int i = 0; i < NS_DTYPE_COUNT; i++)
		if (has_peak(d, i))
			m = fmax(m, d->peak[i]);
	return m;
}

static double min_ridge(const ns_device *d)
{
	double m = INFINITY;

	for (int i = 0; i < NS_DTYPE_COUNT; i++)
		if (has_peak(d, i))
			m = fmin(m, ns_device_ridge(d, (ns_dtype)i));
	return m;
}

/* Whole decades that hold the kernel, every ridge and the roofs, with a decade of margin; at most
 * X_DECADES_MAX of them, keeping the ridges in view and clipping a kernel far from them to the edge. */
static void choose_axes(const ns_roofline_plot *p, axes *a)
{
	double peak = max_peak(p->dev);
	double ridge_lo = floor(safe_log10(min_ridge(p->dev)) - 1.0);
	double ridge_hi = ceil(safe_log10(peak / p->dev->mem_bw) + 1.0);
	double k = safe_log10(p->intensity);
	double lo_y = fmin(p->attainable, p->timed ? p->achieved : p->attainable) / 3.0;

	a->lx0 = fmin(ridge_lo, floor(k - 1.0));
	a->lx1 = fmax(ridge_hi, ceil(k + 1.0));
	if (a->lx1 - a->lx0 > X_DECADES_MAX) {
		if (k < ridge_lo)
			a->lx0 = a->lx1 - X_DECADES_MAX;
		else
			a->lx1 = a->lx0 + X_DECADES_MAX;
	}
	a->ly1 = ceil(safe_log10(peak * 2.0));
	a->ly0 = fmax(floor(safe_log10(lo_y)), a->ly1 - Y_DECADES_MAX);
	if (a->ly1 - a->ly0 < 3)
		a->ly0 = a->ly1 - 3;
}

/* "0.01", "1", "100", "10k" for FLOP/B; "1T", "100T", "1P" for FLOP/s: decade labels without exponents. */
static void decade_label(int e, bool si, char *buf, size_t size)
{
	static const char *const prefix[] = {"", "k", "M", "G", "T", "P", "E", "Z"};

	if (e < -6)
		snprintf(buf, size, "1e%d", e);
	else if (e < 0)
		snprintf(buf, size, "%.*f", -e, pow(10.0, e));
	else if (!si && e < 3)
		snprintf(buf, size, "%.0f", pow(10.0, e));
	else if (e / 3 < (int)(sizeof(prefix) / sizeof(prefix[0])))
		snprintf(buf, size, "%.0f%s", pow(10.0, e % 3), prefix[e / 3]);
	else
		snprintf(buf, size, "1e%d", e);
}

static void draw_frame(FILE *out, const axes *a, const ns_roofline_plot *p)
{
	char buf[160];

	fprintf(
	    out,
	    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"white\" stroke=\"#333\"/>\n",
	    PLOT_L, PLOT_T, PLOT_R - PLOT_L, PLOT_B - PLOT_T);
	for (int e = (int)a->lx0; e <= (int)a->lx1; e++) {
		double x = PLOT_L + (e - a->lx0) / (a->lx1 - a->lx0) * (PLOT_R - PLOT_L);
		fprintf(out,
		        "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		        "stroke=\"#e6e6e6\"/>\n",
		        x, PLOT_T, x, PLOT_B);
		decade_label(e, false, buf, sizeof(buf));
		put_text(out, x, PLOT_B + 18, "middle", "class=\"tick\"", buf);
	}
	for (int e = (int)a->ly0; e <= (int)a->ly1; e++) {
		double y = PLOT_B - (e - a->ly0) / (a->ly1 - a->ly0) * (PLOT_B - PLOT_T);
		fprintf(out,
		        "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		        "stroke=\"#e6e6e6\"/>\n",
		        PLOT_L, y, PLOT_R, y);
		decade_label(e, true, buf, sizeof(buf));
		put_text(out, PLOT_L - 8, y + 4, "end", "class=\"tick\"", buf);
	}
	put_text(out, (PLOT_L + PLOT_R) / 2, PLOT_B + 42, "middle", "class=\"axis\"",
	         "arithmetic intensity (FLOP/byte, log scale)");
	fprintf(out,
	        "<text x=\"20\" y=\"%.1f\" text-anchor=\"middle\" class=\"axis\" transform=\"rotate(-90 20 "
	        "%.1f)\">"
	        "attainable FLOP/s (log scale)</text>\n",
	        (PLOT_T + PLOT_B) / 2, (PLOT_T + PLOT_B) / 2);
	snprintf(buf, sizeof(buf), "Roofline: %s, %s (dense datasheet peaks)", p->dev->name,
	         ns_dtype_name(p->dtype));
	put_text(out, (PLOT_L + PLOT_R) / 2, 28, "middle", "class=\"title\"", buf);
}

/* Dtypes with the same peak share one roof line and one label ("BF16/FP16 990 TFLOP/s"). */
static void roof_label(const ns_device *d, ns_dtype first, char *buf, size_t size)
{
	size_t n = 0;

	for (int i = first; i < NS_DTYPE_COUNT && n < size; i++) {
		if (d->peak[i] != d->peak[first])
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s", n ? "/" : "");
		for (const char *c = ns_dtype_name((ns_dtype)i); *c && n + 1 < size; c++)
			buf[n++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
		buf[n] = '\0';
	}
	if (n < size) {
		char peak[48];
		snprintf(buf + n, size - n, " %s",
		         ns_units_format_si(d->peak[first], "FLOP/s", peak, sizeof(peak)));
	}
}

static bool drawn_before(const ns_device *d, int i)
{
	for (int j = 0; j < i; j++)
		if (d->peak[j] == d->peak[i])
			return true;
	return false;
}

/* Distinct peaks of the device, largest first. */
static int peaks_descending(const ns_device *d, int order[NS_DTYPE_COUNT])
{
	int n = 0;

	for (int i = 0; i < NS_DTYPE_COUNT; i++) {
		if (!has_peak(d, i) || drawn_before(d, i))
			continue;
		int j = n++;
		while (j > 0 && d->peak[order[j - 1]] < d->peak[i]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	return n;
}

static void draw_roof_line(FILE *out, const axes *a, double x0, double xmax, double bw, double ridge,
                           double peak, bool chosen)
{
	fprintf(out,
	        "<polyline class=\"roof%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" "
	        "points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n",
	        chosen ? " chosen" : "", chosen ? COLOR_ROOF : COLOR_OTHER, chosen ? "3" : "1.2", px_x(a, x0),
	        px_y(a, x0 * bw), px_x(a, ridge), px_y(a, peak), px_x(a, xmax), px_y(a, peak));
}

static void draw_roofs(FILE *out, const axes *a, const ns_roofline_plot *p)
{
	const ns_device *d = p->dev;
	double x0 = fmax(pow(10.0, a->lx0), pow(10.0, a->ly0) / d->mem_bw);
	double xmax = pow(10.0, a->lx1), last_label_y = -1e9;
	int order[NS_DTYPE_COUNT], n = peaks_descending(d, order);
	char label[160], attrs[64];

	for (int o = 0; o < n; o++) {
		int i = order[o];
		bool chosen = d->peak[i] == d->peak[p->dtype];
		double ridge = ns_device_ridge(d, (ns_dtype)i);
		/* Labels sit just above their roof, pushed down when roofs are closer than a line of text. */
		double label_y = fmax(px_y(a, d->peak[i]) - 6, last_label_y + 14);
		if (!chosen)
			draw_roof_line(out, a, x0, xmax, d->mem_bw, ridge, d->peak[i], false);
		roof_label(d, (ns_dtype)i, label, sizeof(label));
		if (chosen)
			snprintf(attrs, sizeof(attrs), "class=\"roof-label chosen\" fill=\"%s\"", COLOR_ROOF);
		else
			snprintf(attrs, sizeof(attrs), "class=\"roof-label\" fill=\"#666\"");
		put_text(out, PLOT_R - 6, label_y, "end", attrs, label);
		last_label_y = label_y;
	}
	/* The chosen roof last, so the grey ones do not cross it on the shared memory slope. */
	draw_roof_line(out, a, x0, xmax, d->mem_bw, ns_device_ridge(d, p->dtype), d->peak[p->dtype], true);
}

static void draw_memory_label(FILE *out, const axes *a, const ns_roofline_plot *p)
{
	const ns_device *d = p->dev;
	double lx = a->lx0 + 0.35, angle;

	/* Keep clear of a memory-bound kernel's point and label near the left edge: halfway to the first
	 * ridge. */
	if (p->intensity < min_ridge(d) && safe_log10(p->intensity) < lx + 1.0)
		lx = fmax(a->lx0, (safe_log10(p->intensity) + safe_log10(min_ridge(d))) / 2.0);
	double x = pow(10.0, lx), y = x * d->mem_bw;
	char bw[48], text[96];

	if (log10(y) < a->ly0 + 0.3) {
		y = pow(10.0, a->ly0 + 0.5);
		x = y / d->mem_bw;
	}
	angle = atan2(px_y(a, y * 10.0) - px_y(a, y), px_x(a, x * 10.0) - px_x(a, x)) *
	        57.29577951308232; /* degrees */
	snprintf(text, sizeof(text), "memory %s", ns_units_format_si(d->mem_bw, "B/s", bw, sizeof(bw)));
	/* dy lifts the text off the line in the rotated frame, so it sits above the slope at any angle. */
	fprintf(out,
	        "<text class=\"roof-label memory\" x=\"%.1f\" y=\"%.1f\" dy=\"-7\" text-anchor=\"start\" "
	        "fill=\"#666\" transform=\"rotate(%.1f %.1f %.1f)\">",
	        px_x(a, x), px_y(a, y), angle, px_x(a, x), px_y(a, y));
	put_escaped(out, text);
	fputs("</text>\n", out);
}

static void draw_ridge(FILE *out, const axes *a, const ns_roofline_plot *p)
{
	double ridge = ns_device_ridge(p->dev, p->dtype), peak = p->dev->peak[p->dtype];
	char r[32], text[64], attrs[64];

	fprintf(out,
	        "<line class=\"ridge\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
	        "stroke-dasharray=\"4 4\"/>\n",
	        px_x(a, ridge), px_y(a, peak), px_x(a, ridge), PLOT_B, COLOR_ROOF);
	fprintf(out, "<circle class=\"ridge\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"/>\n",
	        px_x(a, ridge), px_y(a, peak), COLOR_ROOF);
	snprintf(text, sizeof(text), "ridge %s FLOP/B", ns_units_format_plain(ridge, r, sizeof(r)));
	snprintf(attrs, sizeof(attrs), "class=\"ridge-label\" fill=\"%s\"", COLOR_ROOF);
	put_text(out, px_x(a, ridge) + 6, PLOT_B - 8, "start", attrs, text);
}

/* The numbers a caller hands in are shown only when they are numbers; the point is drawn (clamped) either
 * way. */
static bool shown(double v)
{
	return isfinite(v) && v >= 0.0;
}

static void draw_kernel(FILE *out, const axes *a, const ns_roofline_plot *p)
{
	double x = px_x(a, p->intensity), y = px_y(a, p->attainable);
	bool right_half = x > (PLOT_L + PLOT_R) / 2;
	const char *anchor = right_half ? "end" : "start";
	double dx = right_half ? -10 : 10;
	char ai[32], text[256], b1[48], pct[32], attrs[64];

	fprintf(out, "<circle class=\"kernel\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"%s\"/>\n", x, y,
	        COLOR_KERNEL);
	snprintf(text, sizeof(text), "%.*s: AI %s FLOP/B", (int)ns_utf8_cut(p->label, strlen(p->label), 120),
	         p->label, shown(p->intensity) ? ns_units_format_plain(p->intensity, ai, sizeof(ai)) : "?");
	snprintf(attrs, sizeof(attrs), "class=\"kernel-label\" fill=\"%s\"", COLOR_KERNEL);
	put_text(out, x + dx, y + (p->timed ? -10 : 18), anchor, attrs, text);
	if (!p->timed)
		return;
	double ya = px_y(a, fmax(p->achieved, pow(10.0, a->ly0)));
	fprintf(out,
	        "<line class=\"achieved\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
	        "stroke=\"%s\" stroke-dasharray=\"2 3\"/>\n",
	        x, y, x, ya, COLOR_ACHIEVED);
	fprintf(out,
	        "<circle class=\"achieved\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"white\" "
	        "stroke=\"%s\" stroke-width=\"2.5\"/>\n",
	        x, ya, COLOR_ACHIEVED);
	if (!shown(p->fraction_of_roof * 100.0))
		snprintf(pct, sizeof(pct), "?");
	else if (p->fraction_of_roof * 100.0 >= 9.95)
		snprintf(pct, sizeof(pct), "%.0f%%", p->fraction_of_roof * 100.0);
	else
		snprintf(pct, sizeof(pct), "%.2g%%", p->fraction_of_roof * 100.0);
	snprintf(text, sizeof(text), "achieved %s (%s of roof)",
	         shown(p->achieved) ? ns_units_format_si(p->achieved, "FLOP/s", b1, sizeof(b1)) : "?", pct);
	snprintf(attrs, sizeof(attrs), "class=\"achieved-label\" fill=\"%s\"", COLOR_ACHIEVED);
	put_text(out, x + dx, ya > PLOT_B - 30 ? ya - 10 : ya + 18, anchor, attrs, text);
}

/* standalone: an XML document of its own (prolog, namespace); else an <svg> element for an HTML page. */
static void write_svg(FILE *out, const ns_roofline_plot *p, bool standalone)
{
	axes a;

	choose_axes(p, &a);
	if (standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" NS_GENERATOR_SVG NS_VERSION_STRING
		      " -->\n"
		      "<svg xmlns=\"http://www.w3.org/2000/svg\" ",
		      out);
	else
		fputs("<svg role=\"img\" class=\"roofline\" ", out);
	fprintf(out,
	        "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	        "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n",
	        SVG_W, SVG_H, SVG_W, SVG_H);
	fputs("<title>", out);
	put_escaped(out, p->dev->name);
	fputs(" roofline</title>\n", out);
	fputs("<style>.title{font-size:15px;font-weight:bold}.axis{font-size:13px}.tick{fill:#444}"
	      ".chosen{font-weight:bold}.roof-label,.ridge-label,.kernel-label,.achieved-label{paint-order:"
	      "stroke;"
	      "stroke:white;stroke-width:3px;stroke-linejoin:round}</style>\n",
	      out);
	fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", SVG_W, SVG_H);
	draw_frame(out, &a, p);
	draw_roofs(out, &a, p);
	draw_memory_label(out, &a, p);
	draw_ridge(out, &a, p);
	draw_kernel(out, &a, p);
	fputs("</svg>\n", out);
}

void ns_roofline_svg_write(FILE *out, const ns_roofline_plot *p)
{
	write_svg(out, p, true);
}

void ns_roofline_svg_write_inline(FILE *out, const ns_roofline_plot *p)
{
	write_svg(out, p, false);
}

ns_status ns_roofline_svg_save(const char *path, const ns_roofline_plot *p, ns_error *err)
{
	outfile out;

	if (outfile_open(&out, path, err) != NS_OK)
		return err->status;
	ns_roofline_svg_write(out.fp, p);
	return outfile_commit(&out, err);
}
