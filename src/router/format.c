#include "nextstep/format.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_out.h"
#include "util/palette.h"
#include "util/text.h"

#define BAR_WIDTH 40

const char *ns_format_style(const ns_format_options *o, const char *code)
{
	return o->color ? code : "";
}

/* Whole percents from 10% up (printf rounds the exact binary value half-to-even, as Python's "{:.0%}" does,
 * so the lesson's lines come out the same); two significant digits below, so 0.2% is not shown as 0%.
 * nearbyint() rounds as printf's "%.0f" does (half to even, in the same rounding mode) and is exact below
 * 2^53: the common case needs no printf. */
size_t ns_format_percent_text(double share, char *buf)
{
	double pct = share * 100.0;
	int n;

	if (pct >= 9.95 && pct < 1e15) {
		size_t len = ns_put_u64((uint64_t)nearbyint(pct), buf);
		buf[len++] = '%';
		buf[len] = '\0';
		return len;
	}
	if (pct >= 9.95 || pct == 0.0)
		n = snprintf(buf, NS_FORMAT_PERCENT_MAX, "%.0f%%", pct);
	else
		n = snprintf(buf, NS_FORMAT_PERCENT_MAX, "%.2g%%", pct);
	return n > 0 && n < NS_FORMAT_PERCENT_MAX ? (size_t)n : 0;
}

void ns_format_percent(FILE *out, double share)
{
	char text[NS_FORMAT_PERCENT_MAX];
	size_t n = ns_format_percent_text(share, text);

	fwrite(text, 1, n, out);
}

double ns_format_tidy(double x)
{
	return round(x * 1e9) / 1e9;
}

/* One line of text gathered in memory and handed to the stream in one call: fprintf's parsing and the
 * stream's lock for every piece cost more than classifying the profile. */
typedef struct {
	FILE *out;
	size_t len;
	char buf[512];
} line_out;

static void line_flush(line_out *l)
{
	fwrite(l->buf, 1, l->len, l->out);
	l->len = 0;
}

static void line_put(line_out *l, const char *s, size_t n)
{
	if (n > sizeof(l->buf) - l->len) {
		line_flush(l);
		if (n > sizeof(l->buf)) {
			fwrite(s, 1, n, l->out);
			return;
		}
	}
	memcpy(l->buf + l->len, s, n);
	l->len += n;
}

static void line_puts(line_out *l, const char *s)
{
	line_put(l, s, strlen(s));
}

/* The label escaped (a newline or ESC in it must not split the record or reach the tty). */
static void line_put_label(line_out *l, const char *label)
{
	char text[4 * NS_PROFILE_LABEL_MAX];
	size_t n = ns_text_escape(label, strlen(label), text, sizeof(text));

	if (n < sizeof(text)) {
		line_put(l, text, n);
		return;
	}
	line_flush(l);
	ns_fput_text(l->out, label);
}

void ns_format_verdict_line(FILE *out, const char *label, const ns_verdict *v, const ns_routes *r,
                            const ns_format_options *o)
{
	const ns_route *route = &r->route[v->regime];
	char pct[NS_FORMAT_PERCENT_MAX];
	line_out l;
	size_t pct_len;

	l.out = out;
	l.len = 0;
	if (label != NULL && label[0] != '\0') {
		line_put_label(&l, label);
		line_put(&l, ": ", 2);
	}
	line_puts(&l, ns_format_style(o, NS_FORMAT_STYLE_VERDICT));
	line_puts(&l, ns_regime_bound_word(v->regime));
	line_puts(&l, ns_format_style(o, NS_FORMAT_STYLE_RESET));
	line_put(&l, " (", 2);
	pct_len = ns_format_percent_text(v->share, pct);
	line_put(&l, pct, pct_len);
	line_put(&l, ") -> ", 5);
	line_puts(&l, route->fix);
	line_put(&l, " (", 2);
	line_puts(&l, route->module);
	line_put(&l, ")\n", 2);
	line_flush(&l);
}

/* With colour, a bucket's bar has its colour from the shared palette (the HTML report's and the roofline's),
 * as a 24-bit foreground; c NULL (the unattributed rest) keeps the verdict style. */
static void print_bar(FILE *out, const char *name, double share, const ns_colour *c,
                      const ns_format_options *o)
{
	int width = (int)lround(share * BAR_WIDTH);

	fprintf(out, "  %-12s %4.0f%%", name, share * 100.0);
	if (width > 0 && o->color && c != NULL)
		fprintf(out, "  \033[38;2;%d;%d;%dm", c->r, c->g, c->b);
	else if (width > 0)
		fprintf(out, "  %s", ns_format_style(o, NS_FORMAT_STYLE_VERDICT));
	for (int i = 0; i < width; i++)
		fputc('#', out);
	fprintf(out, "%s\n", width > 0 ? ns_format_style(o, NS_FORMAT_STYLE_RESET) : "");
}

static void print_tie_note(FILE *out, const ns_verdict *v)
{
	fprintf(out, "tie: %s and %s are tied", ns_regime_name(v->regime), ns_regime_name(v->runner_up));
	if (v->margin != 0.0)
		fprintf(out, " within the tie tolerance (margin %+.1f points)", v->margin * 100.0);
	fprintf(out, "; the priority order, not the numbers, decided\n");
}

void ns_format_verdict_explain(FILE *out, const ns_verdict *v, const ns_routes *r, const ns_format_options *o)
{
	const char *next = r->route[v->regime].next_check;

	fprintf(out, "%ssplit, verdict first, then by share:%s\n", ns_format_style(o, NS_FORMAT_STYLE_DIM),
	        ns_format_style(o, NS_FORMAT_STYLE_RESET));
	for (int i = 0; i < NS_REGIME_COUNT; i++)
		print_bar(out, ns_regime_name(v->ranked[i]), v->split[v->ranked[i]],
		          ns_palette_bucket((int)v->ranked[i]), o);
	if (v->unattributed > 0.0005)
		print_bar(out, "unattributed", v->unattributed, NULL, o);
	fprintf(out, "runner-up: %s (", ns_regime_name(v->runner_up));
	ns_format_percent(out, v->runner_up_share);
	fprintf(out, "), margin %.1f points\n", v->margin * 100.0);
	if (v->by_priority)
		print_tie_note(out, v);
	if (v->nfindings == 0)
		fprintf(out, "findings: none above the moderate threshold\n");
	for (size_t i = 0; i < v->nfindings; i++) {
		fprintf(out, "finding: %s ", ns_regime_name(v->findings[i].regime));
		ns_format_percent(out, v->findings[i].share);
		fprintf(out, " (%s) -> %s (%s)\n", ns_grade_name(v->findings[i].grade),
		        r->route[v->findings[i].regime].fix, r->route[v->findings[i].regime].module);
	}
	if (next != NULL)
		fprintf(out, "next check: %s\n", next);
	if (r->route[v->regime].doc != NULL)
		fprintf(out, "fix explained: %s\n", r->route[v->regime].doc);
}

/* Flushes out and tells whether everything written to it so far arrived. */
static ns_status flush_status(FILE *out)
{
	return fflush(out) != 0 || ferror(out) ? NS_ERR_IO : NS_OK;
}

/* The verdict's JSON text straight into out, key for key and byte for byte what ns_format_verdict_json() and
 * ns_format_print_json() write, then "next_steps" (tests/unit/test_format.c and fuzz_profile compare the two,
 * adding the next steps to the tree themselves), without a cJSON
 * tree: building and printing the tree cost a stream of profiles more than everything else together. */
/* ,"key": with its length known where it is written (key is a literal). */
#define put_key(w, key) json_out_raw(w, ",\"" key "\":")

/* One of nextstep's own words (a regime's name, a verdict, a grade): plain ASCII, nothing to escape. */
static void put_word(json_out *w, const char *word)
{
	json_out_char(w, '"');
	json_out_raw(w, word);
	json_out_char(w, '"');
}

static void put_string_or_null(json_out *w, const char *s)
{
	if (s != NULL)
		json_out_string(w, s);
	else
		json_out_raw(w, "null");
}

#define put_number(w, key, d) (put_key(w, key), json_out_number(w, d))

/* As add_label(): "" is null, and the text is made UTF-8. False when out of memory. */
static bool put_label(json_out *w, const char *label)
{
	size_t n = label != NULL ? strlen(label) : 0, cap = n * NS_UTF8_REPLACEMENT_LEN + 1;
	char small[3 * NS_PROFILE_LABEL_MAX + 1];
	char *clean = cap <= sizeof(small) ? small : malloc(cap);

	put_key(w, "label");
	if (n == 0) {
		json_out_raw(w, "null");
		return true;
	}
	if (clean == NULL)
		return false;
	ns_utf8_clean(label, n, clean, cap);
	json_out_string(w, clean);
	if (clean != small)
		free(clean);
	return true;
}

static void put_findings(json_out *w, const ns_verdict *v)
{
	put_key(w, "findings");
	json_out_char(w, '[');
	for (size_t i = 0; i < v->nfindings; i++) {
		json_out_raw(w, i > 0 ? ",{\"regime\":" : "{\"regime\":");
		put_word(w, ns_regime_name(v->findings[i].regime));
		put_number(w, "share", v->findings[i].share);
		put_key(w, "grade");
		put_word(w, ns_grade_name(v->findings[i].grade));
		json_out_char(w, '}');
	}
	json_out_char(w, ']');
}

/* The split's shares as JSON numbers, formatted once: "split" and "next_steps" both print them. */
typedef struct {
	char text[NS_REGIME_COUNT][JSON_NUMBER_MAX];
	size_t len[NS_REGIME_COUNT];
} share_texts;

static void format_shares(const ns_verdict *v, share_texts *t)
{
	for (int r = 0; r < NS_REGIME_COUNT; r++) {
		double d = v->split[r];
		int valueint = isnan(d) ? 0 : (int)fmax(fmin(d, INT_MAX), INT_MIN); /* json_out_number()'s */
		t->len[r] = json_format_number(d, valueint, t->text[r]);
	}
}

static void put_split(json_out *w, const share_texts *t)
{
	put_key(w, "split");
	json_out_char(w, '{');
	for (int r = 0; r < NS_REGIME_COUNT; r++) {
		if (r > 0)
			json_out_char(w, ',');
		put_word(w, ns_regime_name((ns_regime)r));
		json_out_char(w, ':');
		json_out_bytes(w, t->text[r], t->len[r]);
	}
	json_out_char(w, '}');
}

/* The next steps of a profile split (issue 21, docs/next-step.md): a split of shares says nothing finer than
 * its buckets, so each bucket's fix can win at most the bucket's share of the step (the trivial bound): the
 * buckets with time, largest share first, ties in bucket order. The fixes are the routes' (the verdict's
 * own fix is in "fix"); there are no times, causes or bases to give. */
/* Each item's text up to its share, after a comma (skip it for the first), in bucket order: the stream
 * writes a million of these a second. tests/unit/test_format.c compares them with ns_regime_name()'s. */
static const char *const step_head[NS_REGIME_COUNT] = {
    ",{\"bucket\":\"compute\",\"gain_share\":",  ",{\"bucket\":\"memory\",\"gain_share\":",
    ",{\"bucket\":\"comm\",\"gain_share\":",     ",{\"bucket\":\"dataloader\",\"gain_share\":",
    ",{\"bucket\":\"overhead\",\"gain_share\":", ",{\"bucket\":\"idle\",\"gain_share\":"};

static void put_next_steps(json_out *w, const ns_verdict *v, const share_texts *t)
{
	int order[NS_REGIME_COUNT] = {0}, n = 0;

	for (int b = 0; b < NS_REGIME_COUNT; b++) {
		int at = n++;
		for (; at > 0 && v->split[b] > v->split[order[at - 1]]; at--)
			order[at] = order[at - 1];
		order[at] = b;
	}
	put_key(w, "next_steps");
	json_out_char(w, '[');
	for (int i = 0, shown = 0; i < n; i++) {
		if (!(v->split[order[i]] > 0.0))
			continue;
		const char *head = step_head[order[i]] + (shown++ > 0 ? 0 : 1);
		json_out_raw(w, head);
		json_out_bytes(w, t->text[order[i]], t->len[order[i]]);
		json_out_char(w, '}');
	}
	json_out_char(w, ']');
}

static ns_status write_verdict_json(FILE *out, const char *label, const ns_verdict *v, const ns_routes *r,
                                    const char *source)
{
	const ns_route *route = &r->route[v->regime];
	share_texts shares = {0}; /* zeroed: cppcheck reads filling it as reading it */
	json_out w;

	format_shares(v, &shares);
	json_out_init(&w, out);
	json_out_raw(&w, "{\"regime\":");
	put_word(&w, ns_regime_name(v->regime));
	put_key(&w, "verdict");
	put_word(&w, ns_regime_bound_word(v->regime));
	if (!(v->share < 0.0))
		put_number(&w, "share", v->share);
	if (!put_label(&w, label))
		return NS_ERR_NOMEM; /* nothing written to out yet */
	put_key(&w, "module");
	put_string_or_null(&w, route->module);
	put_key(&w, "fix");
	put_string_or_null(&w, route->fix);
	put_key(&w, "next_check");
	put_string_or_null(&w, route->next_check);
	put_key(&w, "runner_up");
	put_word(&w, ns_regime_name(v->runner_up));
	put_number(&w, "runner_up_share", v->runner_up_share);
	put_number(&w, "margin", ns_format_tidy(v->margin));
	put_key(&w, "decided_by");
	json_out_raw(&w, v->by_priority ? "\"priority\"" : "\"share\"");
	put_findings(&w, v);
	put_split(&w, &shares);
	put_number(&w, "unattributed", ns_format_tidy(v->unattributed));
	put_next_steps(&w, v, &shares);
	if (source != NULL) {
		put_key(&w, "source");
		json_out_string(&w, source);
	}
	json_out_raw(&w, "}\n");
	return json_out_flush(&w) ? NS_OK : NS_ERR_IO;
}

ns_status ns_format_verdict_write(FILE *out, const char *label, const ns_verdict *v, const ns_routes *r,
                                  const ns_format_options *o, const char *source)
{
	switch (o->kind) {
	case NS_FORMAT_QUIET:
		fputs(ns_regime_name(v->regime), out);
		fputc('\n', out);
		break;
	case NS_FORMAT_JSON:
		return write_verdict_json(out, label, v, r, source);
	case NS_FORMAT_TEXT:
		ns_format_verdict_line(out, label, v, r, o);
		if (o->verbose)
			ns_format_verdict_explain(out, v, r, o);
		break;
	}
	return ferror(out) ? NS_ERR_IO : NS_OK;
}

ns_status ns_format_verdict(FILE *out, const char *label, const ns_verdict *v, const ns_routes *r,
                            const ns_format_options *o)
{
	ns_status st = ns_format_verdict_write(out, label, v, r, o, NULL);

	return st != NS_OK ? st : flush_status(out);
}

static cJSON *add_string_or_null(cJSON *obj, const char *key, const char *value)
{
	return value != NULL ? cJSON_AddStringToObject(obj, key, value) : cJSON_AddNullToObject(obj, key);
}

static bool add_findings(cJSON *obj, const ns_verdict *v)
{
	cJSON *arr = cJSON_AddArrayToObject(obj, "findings");

	if (arr == NULL)
		return false;
	for (size_t i = 0; i < v->nfindings; i++) {
		cJSON *f = cJSON_CreateObject();
		if (f == NULL || !cJSON_AddItemToArray(arr, f))
			return false;
		if (!cJSON_AddStringToObject(f, "regime", ns_regime_name(v->findings[i].regime)) ||
		    !cJSON_AddNumberToObject(f, "share", v->findings[i].share) ||
		    !cJSON_AddStringToObject(f, "grade", ns_grade_name(v->findings[i].grade)))
			return false;
	}
	return true;
}

static bool add_split(cJSON *obj, const ns_verdict *v)
{
	cJSON *split = cJSON_AddObjectToObject(obj, "split");

	if (split == NULL)
		return false;
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		if (!cJSON_AddNumberToObject(split, ns_regime_name((ns_regime)r), v->split[r]))
			return false;
	return true;
}

/* JSON text must be UTF-8: a label given on the command line (roofline --label) has not been through
 * ns_profile_set_label, so bad bytes become U+FFFD here. */
static bool add_label(cJSON *obj, const char *label)
{
	size_t n = label != NULL ? strlen(label) : 0, cap;
	char *clean;
	bool ok;

	if (n == 0)
		return cJSON_AddNullToObject(obj, "label") != NULL;
	cap = n * NS_UTF8_REPLACEMENT_LEN + 1; /* each byte at most one U+FFFD */
	if ((clean = malloc(cap)) == NULL)
		return false;
	ns_utf8_clean(label, n, clean, cap);
	ok = cJSON_AddStringToObject(obj, "label", clean) != NULL;
	free(clean);
	return ok;
}

cJSON *ns_format_route_json(const char *label, const char *regime, const char *verdict, double share,
                            const ns_route *route)
{
	cJSON *obj = cJSON_CreateObject();
	bool ok = obj != NULL;

	ok = ok && add_string_or_null(obj, "regime", regime);
	ok = ok && add_string_or_null(obj, "verdict", verdict);
	ok = ok && (share < 0.0 || cJSON_AddNumberToObject(obj, "share", share));
	ok = ok && add_label(obj, label);
	ok = ok && add_string_or_null(obj, "module", route != NULL ? route->module : NULL);
	ok = ok && add_string_or_null(obj, "fix", route != NULL ? route->fix : NULL);
	ok = ok && add_string_or_null(obj, "next_check", route != NULL ? route->next_check : NULL);
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

cJSON *ns_format_verdict_json(const char *label, const ns_verdict *v, const ns_routes *r)
{
	cJSON *obj = ns_format_route_json(label, ns_regime_name(v->regime), ns_regime_bound_word(v->regime),
	                                  v->share, &r->route[v->regime]);
	bool ok = obj != NULL;

	ok = ok && cJSON_AddStringToObject(obj, "runner_up", ns_regime_name(v->runner_up));
	ok = ok && cJSON_AddNumberToObject(obj, "runner_up_share", v->runner_up_share);
	ok = ok && cJSON_AddNumberToObject(obj, "margin", ns_format_tidy(v->margin));
	ok = ok && cJSON_AddStringToObject(obj, "decided_by", v->by_priority ? "priority" : "share");
	ok = ok && add_findings(obj, v);
	ok = ok && add_split(obj, v);
	ok = ok && cJSON_AddNumberToObject(obj, "unattributed", ns_format_tidy(v->unattributed));
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

ns_status ns_format_print_json(FILE *out, const cJSON *obj)
{
	char *text = cJSON_PrintUnformatted(obj);

	/* Nothing at all on out: a reader of the stream must not take a stand-in for a result. */
	if (text == NULL)
		return NS_ERR_NOMEM;
	fputs(text, out);
	fputc('\n', out);
	cJSON_free(text);
	return ferror(out) ? NS_ERR_IO : NS_OK;
}

ns_status ns_format_error_json(FILE *out, const ns_error *err)
{
	cJSON *obj = cJSON_CreateObject();
	ns_status st = NS_ERR_NOMEM;

	if (obj != NULL && cJSON_AddStringToObject(obj, "error", err->msg) &&
	    (err->line < 0 ? cJSON_AddNullToObject(obj, "line")
	                   : cJSON_AddNumberToObject(obj, "line", (double)err->line)))
		st = ns_format_print_json(out, obj);
	cJSON_Delete(obj);
	return st != NS_OK ? st : flush_status(out);
}
