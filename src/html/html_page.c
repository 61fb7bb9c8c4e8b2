/* The page itself: head, style sheet, script, the counted writer and the pieces every section shares. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_private.h"
#include "util/magic.h"
#include "util/palette.h"
#include "util/text.h"

/* Screen and print. The print rules drop the interactive bits, keep the colours (a stacked bar without them
 * says nothing) and keep a chart from being cut across pages. */
static const char style[] =
    "<style>\n"
    ":root{--fg:#1b1b1b;--muted:#555;--rule:#d0d0d0;--band:#f3f3f3}\n"
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe "
    "UI',Roboto,Helvetica,Arial,sans-serif;color:var(--fg);"
    "margin:0 auto;max-width:1000px;padding:16px 20px 40px}\n"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid "
    "var(--rule);padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}\n"
    ".meta{color:var(--muted);font-size:13px;margin:0}\n"
    ".src{font-size:13px;color:var(--muted);margin:4px 0 10px;word-break:break-all}\n"
    ".src code{font-size:12px}\n"
    ".banner{border-left:6px solid var(--c);background:var(--band);padding:10px 14px;margin:10px 0}\n"
    ".banner .regime{font-size:20px;font-weight:700}\n"
    ".banner p{margin:4px 0}.banner .fix{font-weight:600}\n"
    ".finding{margin:2px 0}.note{color:var(--muted);font-size:13px}\n"
    ".swatch{display:inline-block;width:12px;height:12px;border:1px solid #0003;vertical-align:-1px;"
    "margin-right:4px}\n"
    ".legend{font-size:13px;margin:4px 0}.legend span{margin-right:14px;white-space:nowrap}\n"
    "svg{max-width:100%;height:auto}svg text{font-size:11px;fill:#333}\n"
    "table{border-collapse:collapse;font-size:13px;margin:6px 0}\n"
    "th,td{padding:3px 8px;border-bottom:1px solid var(--rule);text-align:left;vertical-align:top}\n"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    "caption{text-align:left;font-weight:600;padding:4px 0}td.kname{word-break:break-all}\n"
    "table.kernels,table.diff-kernels,table.roofline-ops{width:100%}\n"
    "table.sortable th{cursor:pointer}table.sortable th:after{content:' \\2195';color:#999}\n"
    "th[aria-sort=ascending]:after{content:' \\2191'}th[aria-sort=descending]:after{content:' \\2193'}\n"
    ".card{display:inline-block;vertical-align:top;width:300px;border:1px solid var(--rule);"
    "border-top:5px solid var(--c);padding:6px 10px;margin:4px;font-size:13px}\n"
    ".card .regime{font-weight:700}.err{border-top-color:#000}\n"
    "#js-errors{color:#b00}\n"
    ".quality{border:2px solid #D55E00;padding:4px 12px;margin:8px "
    "0}.quality[data-grade=unfit]{border-color:#000}\n"
    "tr.straggler td{border-top:2px solid #000;border-bottom:2px solid #000}tr.straggler "
    "td:first-child{font-weight:700}\n"
    ".steps-table summary{cursor:pointer;color:var(--muted);font-size:13px;margin:6px 0}\n"
    /* Print: A4 or Letter, no tooltips and no clicks. The interactive hints go, the folded steps table
     * opens (in print it is the only place of the per-step numbers), colours are kept (a stacked bar
     * without them says nothing), a chart, a banner or a short table is never cut across pages, and a
     * heading stays with what follows it. A section is let break: most are longer than a page. */
    "@media print{@page{margin:14mm}body{max-width:none;padding:0;font-size:10pt}"
    "*{-webkit-print-color-adjust:exact;print-color-adjust:exact}"
    ".screen,#js-errors,details>summary{display:none}table.sortable th:after{content:''}"
    "details::details-content{content-visibility:visible;display:block}"
    "figure,.banner,.card,.quality,tr,table:not(.steps){break-inside:avoid}"
    "h2,h3,caption,.legend,h3+.note{break-after:avoid}figure{margin:6px 0}"
    "a{color:inherit;text-decoration:none}}\n"
    "</style>\n";

/* Any script error lands in the page (and a test reads it from the DOM). */
static const char error_hook[] =
    "<script>window.addEventListener('error',function(e){var p=document.getElementById('js-errors');"
    "if(p){p.hidden=false;p.textContent+=String(e.message)+'\\n';}});</script>\n";

/* Sortable tables: a click (or Enter) on a header sorts by that column, numbers by their data-v. */
static const char script[] =
    "<script>\n"
    "(function(){\n"
    "function key(c){var v=c.getAttribute('data-v');return "
    "v!==null?parseFloat(v):c.textContent.toLowerCase();}\n"
    "function sortBy(th){var t=th.closest('table'),b=t.tBodies[0],"
    "i=Array.prototype.indexOf.call(th.parentNode.children,th),"
    "d=th.getAttribute('aria-sort')==='descending'?1:-1,rows=Array.prototype.slice.call(b.rows);\n"
    "rows.sort(function(x,y){var a=key(x.cells[i]),c=key(y.cells[i]);return(a<c?-1:a>c?1:0)*d;});\n"
    "th.parentNode.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort');});\n"
    "th.setAttribute('aria-sort',d<0?'descending':'ascending');rows.forEach(function(r){b.appendChild(r);});}"
    "\n"
    "document.querySelectorAll('table.sortable th').forEach(function(th){th.tabIndex=0;"
    "th.addEventListener('click',function(){sortBy(th);});"
    "th.addEventListener('keydown',function(e){if(e.key==='Enter')sortBy(th);});});\n"
    "document.documentElement.setAttribute('data-script','ran');\n"
    "})();\n"
    "</script>\n";

/* The reason of the first failed write, taken right after it: by the page's end other calls (stdio's isatty
 * on its first buffer, say) have set errno, and a full disk read "Inappropriate ioctl for device". */
static void note_write_error(ns_html_page *p)
{
	if (p->write_errno == 0 && ferror(p->out))
		p->write_errno = errno != 0 ? errno : EIO;
}

void hp_puts(ns_html_page *p, const char *s)
{
	size_t n = strlen(s);

	errno = 0;
	p->bytes += fwrite(s, 1, n, p->out);
	note_write_error(p);
}

void hp_printf(ns_html_page *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	errno = 0;
	va_start(ap, fmt);
	n = vfprintf(p->out, fmt, ap);
	va_end(ap);
	note_write_error(p);
	if (n > 0)
		p->bytes += (unsigned long long)n;
}

/* One character (cp, n bytes at s) as HTML. */
static size_t put_char(FILE *out, const char *s, size_t n, uint32_t cp)
{
	static const char fffd[] = "\xEF\xBF\xBD";

	switch (cp) {
	case '&':
		return fwrite("&amp;", 1, 5, out);
	case '<':
		return fwrite("&lt;", 1, 4, out);
	case '>':
		return fwrite("&gt;", 1, 4, out);
	case '"':
		return fwrite("&quot;", 1, 6, out);
	case '\'':
		return fwrite("&#39;", 1, 5, out);
	default:
		break;
	}
	/* controls (tab and newline are fine in text), DEL, C1 controls and non-characters HTML forbids */
	if ((cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7F && cp < 0xA0) ||
	    (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE)
		return fwrite(fffd, 1, 3, out);
	return fwrite(s, 1, n, out);
}

size_t ns_html_escape(FILE *out, const char *s, size_t len, size_t max)
{
	size_t cut = len > max ? ns_utf8_cut(s, len, max > 3 ? max - 3 : 0) : len;
	size_t written = 0;

	for (size_t i = 0; i < cut;) {
		uint32_t cp;
		size_t n = ns_utf8_char(s + i, cut - i, &cp);
		if (n == 0) { /* not UTF-8: one byte becomes U+FFFD */
			written += put_char(out, s + i, 1, 0xFFFF);
			i++;
			continue;
		}
		written += put_char(out, s + i, n, cp);
		i += n;
	}
	if (cut < len)
		written += fwrite("...", 1, 3, out);
	return written;
}

void hp_text(ns_html_page *p, const char *s, size_t max)
{
	errno = 0;
	if (s != NULL)
		p->bytes += ns_html_escape(p->out, s, strlen(s), max);
	note_write_error(p);
}

bool hp_room_full(const ns_html_page *p)
{
	return p->bytes < NS_HTML_PAGE_SOFT;
}

bool hp_fits(const ns_html_page *p, unsigned long long worst)
{
	return p->bytes + worst <= NS_HTML_PAGE_MAX - 16 * 1024;
}

/* A verdict line costs a few kB at most. */
bool hp_room_line(const ns_html_page *p)
{
	return p->bytes < NS_HTML_PAGE_MAX - 64 * 1024;
}

const char *hp_bucket_colour(ns_regime r)
{
	return ns_palette_bucket((int)r)->hex;
}

void hp_ms(ns_html_page *p, double ms)
{
	hp_printf(p, "%.3f", ms);
}

unsigned long long ns_html_page_bytes(const ns_html_page *p)
{
	return p->bytes;
}

FILE *ns_html_page_divert(ns_html_page *p, FILE *out)
{
	FILE *was = p->out;

	p->out = out;
	return was;
}

size_t ns_html_page_results(const ns_html_page *p)
{
	return p->results;
}

ns_html_page *ns_html_page_begin(FILE *out, const ns_html_page_info *info)
{
	ns_html_page *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return NULL;
	p->out = out;
	hp_puts(
	    p,
	    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n" NS_GENERATOR_HTML);
	hp_text(p, info->version, 64);
	hp_puts(p, "\">\n<title>");
	hp_text(p, info->title, 200);
	hp_puts(p, "</title>\n");
	hp_puts(p, style);
	hp_puts(p, error_hook);
	hp_puts(p, "</head>\n<body>\n<header>\n<h1>");
	hp_text(p, info->title, 200);
	hp_puts(p, "</h1>\n<p class=\"meta\">nextstep <span id=\"version\">");
	hp_text(p, info->version, 64);
	hp_puts(p, "</span>, analysed <time id=\"analysed\">");
	hp_text(p, info->analysed_at, 64);
	hp_puts(p, "</time></p>\n</header>\n<pre id=\"js-errors\" hidden></pre>\n<main>\n");
	return p;
}

static void put_dropped(ns_html_page *p)
{
	size_t cards = 0;

	for (int r = 0; r < NS_REGIME_COUNT; r++)
		cards += p->dropped_cards[r];
	if (p->dropped_sections == 0 && cards == 0 && p->dropped_errors == 0)
		return;
	hp_puts(p, "<section id=\"left-out\"><h2>Left out of this page</h2>\n<p>The page is kept under ");
	hp_printf(p, "%d kB; the text or JSON report has everything.", NS_HTML_PAGE_MAX / 1024);
	if (p->dropped_sections > 0)
		hp_printf(p, " %zu more report%s.", p->dropped_sections, p->dropped_sections == 1 ? "" : "s");
	if (p->dropped_errors > 0)
		hp_printf(p, " %zu bad record%s.", p->dropped_errors, p->dropped_errors == 1 ? "" : "s");
	hp_puts(p, "</p>\n");
	if (cards > 0) {
		hp_printf(p, "<table id=\"left-out-cards\"><caption>%zu more verdicts, by regime</caption>\n",
		          cards);
		hp_puts(p, "<thead><tr><th>regime</th><th class=\"n\">records</th></tr></thead><tbody>\n");
		for (int r = 0; r < NS_REGIME_COUNT; r++)
			if (p->dropped_cards[r] > 0)
				hp_printf(p, "<tr><td>%s</td><td class=\"n\">%zu</td></tr>\n",
				          ns_regime_name((ns_regime)r), p->dropped_cards[r]);
		hp_puts(p, "</tbody></table>\n");
	}
	hp_puts(p, "</section>\n");
}

ns_status ns_html_page_end(ns_html_page *p, ns_error *err)
{
	bool failed;
	int e;

	put_dropped(p);
	hp_puts(p, "</main>\n");
	hp_puts(p, script);
	hp_puts(p, "</body>\n</html>\n");
	errno = 0;
	if (fflush(p->out) != 0 && p->write_errno == 0)
		p->write_errno = errno != 0 ? errno : EIO;
	note_write_error(p);
	failed = p->write_errno != 0;
	e = p->write_errno;
	free(p);
	if (failed)
		return ns_error_set(err, NS_ERR_IO, "write error: %s", strerror(e));
	return NS_OK;
}

void hp_source(ns_html_page *p, const ns_html_source *src)
{
	if (src == NULL)
		return;
	hp_puts(p, "<p class=\"src\">input <code class=\"src-name\">");
	hp_text(p, src->name, 400);
	hp_printf(p, "</code>, <span class=\"src-size\" data-bytes=\"%llu\">%llu bytes</span>", src->size,
	          src->size);
	if (src->sha256 != NULL) {
		hp_puts(p, ", SHA-256 <code class=\"src-sha256\">");
		hp_text(p, src->sha256, 64);
		hp_puts(p, "</code>");
	}
	hp_puts(p, "</p>\n");
}

void hp_legend(ns_html_page *p)
{
	hp_puts(p, "<p class=\"legend\">");
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		hp_printf(p, "<span><i class=\"swatch\" style=\"background:%s\"></i>%s</span>",
		          hp_bucket_colour((ns_regime)r), ns_regime_name((ns_regime)r));
	hp_puts(p, "</p>\n");
}

static void put_share(ns_html_page *p, double share)
{
	double pct = share * 100.0;

	if (pct >= 9.95 || pct == 0.0)
		hp_printf(p, "%.0f%%", pct);
	else
		hp_printf(p, "%.2g%%", pct);
}

void hp_banner(ns_html_page *p, const char *label, const ns_verdict *v, const ns_routes *routes)
{
	hp_banner_open(p, label, v, routes);
	hp_puts(p, "</div>\n");
}

void hp_banner_open(ns_html_page *p, const char *label, const ns_verdict *v, const ns_routes *routes)
{
	const ns_route *route = &routes->route[v->regime];

	hp_printf(p, "<div class=\"banner\" style=\"--c:%s\" data-regime=\"%s\" data-share=\"%.6f\">\n",
	          hp_bucket_colour(v->regime), ns_regime_name(v->regime), v->share);
	hp_puts(p, "<p>");
	if (label != NULL && label[0] != '\0') {
		hp_text(p, label, 200);
		hp_puts(p, ": ");
	}
	hp_printf(p, "<span class=\"regime\">%s</span> (<span class=\"share\">",
	          ns_regime_bound_word(v->regime));
	put_share(p, v->share);
	hp_puts(p, "</span> of the time)</p>\n<p class=\"fix\">Fix: ");
	hp_text(p, route->fix, HTML_FIX_MAX);
	hp_puts(p, "</p>\n<p>Course module: <span class=\"module\">");
	hp_text(p, route->module, 200);
	hp_puts(p, "</span></p>\n");
	if (route->next_check != NULL) {
		hp_puts(p, "<p>Next check: <span class=\"next-check\">");
		hp_text(p, route->next_check, 400);
		hp_puts(p, "</span></p>\n");
	}
	if (route->doc != NULL) {
		hp_puts(p, "<p>How to apply it: <span class=\"doc\">");
		hp_text(p, route->doc, 600);
		hp_puts(p, "</span></p>\n");
	}
	for (size_t i = 0; i < v->nfindings; i++) {
		const ns_finding *f = &v->findings[i];
		if (f->grade != NS_GRADE_HIGH)
			continue;
		hp_printf(p, "<p class=\"finding\" data-regime=\"%s\">Also high: %s ",
		          ns_regime_name(f->regime), ns_regime_name(f->regime));
		put_share(p, f->share);
		hp_puts(p, " &rarr; ");
		hp_text(p, routes->route[f->regime].fix, HTML_FIX_MAX);
		hp_puts(p, " (");
		hp_text(p, routes->route[f->regime].module, 200);
		hp_puts(p, ")</p>\n");
	}
}

void ns_html_input_error(ns_html_page *p, const ns_html_source *src, const char *msg)
{
	if (!hp_room_line(p)) {
		p->dropped_sections++;
		return;
	}
	hp_printf(p, "<article class=\"input-error\" id=\"s%u\">\n", p->sections++);
	hp_source(p, src);
	hp_puts(p, "<div class=\"banner\" style=\"--c:#000\" data-error=\"1\"><p><span class=\"regime\">not "
	           "analysed</span></p>\n<p>");
	hp_text(p, msg, 400);
	hp_puts(p, "</p></div>\n</article>\n");
}
