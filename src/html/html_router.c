/* The router's page: a card per record (a profile's verdict or the error of a bad record), a section per
 * input. Past NS_HTML_CARDS_MAX cards, or when the page is full, records are only counted. */
#include <string.h>

#include "html_private.h"

static void put_share_bar(ns_html_page *p, const ns_verdict *v)
{
	double x = 0.0;

	hp_puts(p, "<svg role=\"img\" viewBox=\"0 0 280 10\" width=\"280\" height=\"10\"><title>");
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		hp_printf(p, "%s%s %.1f%%", r > 0 ? ", " : "", ns_regime_name((ns_regime)r),
		          v->split[r] * 100.0);
	hp_puts(p, "</title>");
	for (int r = 0; r < NS_REGIME_COUNT; r++) {
		double w = v->split[r] * 280.0;
		if (w <= 0.0)
			continue;
		hp_printf(p, "<rect x=\"%.1f\" width=\"%.1f\" height=\"10\" fill=\"%s\"/>", x, w,
		          hp_bucket_colour((ns_regime)r));
		x += w;
	}
	hp_puts(p, "</svg>\n");
}

void ns_html_router_begin(ns_html_page *p, const char *input_name)
{
	hp_printf(p, "<section class=\"router\" id=\"s%u\">\n<h2>", p->sections++);
	hp_text(p, input_name, 400);
	hp_puts(p, "</h2>\n<div class=\"cards\">\n");
}

static bool card_fits(ns_html_page *p)
{
	return p->cards < NS_HTML_CARDS_MAX && hp_room_line(p);
}

void ns_html_router_card(ns_html_page *p, const char *label, const ns_verdict *v, const ns_routes *r)
{
	const ns_route *route = &r->route[v->regime];

	p->results++;
	if (!card_fits(p)) {
		p->dropped_cards[v->regime]++;
		return;
	}
	p->cards++;
	hp_printf(p, "<div class=\"card\" style=\"--c:%s\" data-regime=\"%s\">", hp_bucket_colour(v->regime),
	          ns_regime_name(v->regime));
	if (label != NULL && label[0] != '\0') {
		hp_puts(p, "<div class=\"label\">");
		hp_text(p, label, 200);
		hp_puts(p, "</div>");
	}
	hp_printf(p, "<div><span class=\"regime\">%s</span> (%.0f%%)</div>\n",
	          ns_regime_bound_word(v->regime), v->share * 100.0);
	put_share_bar(p, v);
	hp_puts(p, "<div class=\"fix\">");
	hp_text(p, route->fix, 300);
	hp_puts(p, " (");
	hp_text(p, route->module, 200);
	hp_puts(p, ")</div></div>\n");
}

void ns_html_router_error(ns_html_page *p, long line, const char *msg)
{
	if (!card_fits(p)) {
		p->dropped_errors++;
		return;
	}
	p->cards++;
	hp_puts(p, "<div class=\"card err\" data-error=\"1\"><div class=\"regime\">bad record");
	if (line > 0)
		hp_printf(p, " (line %ld)", line);
	hp_puts(p, "</div><div>");
	hp_text(p, msg, 300);
	hp_puts(p, "</div></div>\n");
}

void ns_html_router_end(ns_html_page *p, const ns_html_source *src)
{
	hp_puts(p, "</div>\n");
	hp_source(p, src);
	hp_puts(p, "</section>\n");
}
