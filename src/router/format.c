#include "nextstep/format.h"

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
 * adding the next steps to the tree themselves), without a cJSON tree: building and printing the tree cost a
 * stream of profiles more than everything else together. A stream writes a million of these lines a second,
 * so the parts of bounded length (words, numbers, keys) are written with a cursor into room reserved for
 * them beforehand (json_out_reserve), not checked piece by piece; the strings of any length (label, module,
 * fix, next check, source) go through json_out's checked calls. */

/* A piece of the line that depends on a regime or a grade alone, and its length. It is copied PIECE_MAX
 * bytes at a time (a few fixed-size moves, no call) and the cursor moves by its length, so the room reserved
 * for a piece has PIECE_MAX bytes. The comparison with the cJSON tree (tests/unit/test_format.c) prints
 * every entry. */
#define PIECE_MAX 48
typedef struct {
	char text[PIECE_MAX];
	size_t len;
} piece;
#define TEXT(s) s, sizeof(s) - 1

static const piece quoted_name[NS_REGIME_COUNT] = {
    [NS_REGIME_COMPUTE] = {TEXT("\"compute\"")},   [NS_REGIME_MEMORY] = {TEXT("\"memory\"")},
    [NS_REGIME_COMM] = {TEXT("\"comm\"")},         [NS_REGIME_DATALOADER] = {TEXT("\"dataloader\"")},
    [NS_REGIME_OVERHEAD] = {TEXT("\"overhead\"")}, [NS_REGIME_IDLE] = {TEXT("\"idle\"")},
};
static const piece quoted_bound_word[NS_REGIME_COUNT] = {
    [NS_REGIME_COMPUTE] = {TEXT("\"compute-bound\"")},
    [NS_REGIME_MEMORY] = {TEXT("\"memory-bound\"")},
    [NS_REGIME_COMM] = {TEXT("\"comm-bound\"")},
    [NS_REGIME_DATALOADER] = {TEXT("\"dataloader-bound\"")},
    [NS_REGIME_OVERHEAD] = {TEXT("\"overhead-bound\"")},
    [NS_REGIME_IDLE] = {TEXT("\"idle\"")},
};
/* List items and members start with their comma; close_list() turns the first one's into the bracket. */
static const piece finding_head[NS_REGIME_COUNT] = {
    [NS_REGIME_COMPUTE] = {TEXT(",{\"regime\":\"compute\",\"share\":")},
    [NS_REGIME_MEMORY] = {TEXT(",{\"regime\":\"memory\",\"share\":")},
    [NS_REGIME_COMM] = {TEXT(",{\"regime\":\"comm\",\"share\":")},
    [NS_REGIME_DATALOADER] = {TEXT(",{\"regime\":\"dataloader\",\"share\":")},
    [NS_REGIME_OVERHEAD] = {TEXT(",{\"regime\":\"overhead\",\"share\":")},
    [NS_REGIME_IDLE] = {TEXT(",{\"regime\":\"idle\",\"share\":")},
};
static const piece finding_tail[] = {
    [NS_GRADE_NONE] = {TEXT(",\"grade\":\"none\"}")},
    [NS_GRADE_MODERATE] = {TEXT(",\"grade\":\"moderate\"}")},
    [NS_GRADE_HIGH] = {TEXT(",\"grade\":\"high\"}")},
};
static const piece split_key[NS_REGIME_COUNT] = {
    [NS_REGIME_COMPUTE] = {TEXT(",\"compute\":")},   [NS_REGIME_MEMORY] = {TEXT(",\"memory\":")},
    [NS_REGIME_COMM] = {TEXT(",\"comm\":")},         [NS_REGIME_DATALOADER] = {TEXT(",\"dataloader\":")},
    [NS_REGIME_OVERHEAD] = {TEXT(",\"overhead\":")}, [NS_REGIME_IDLE] = {TEXT(",\"idle\":")},
};
static const piece step_head[NS_REGIME_COUNT] = {
    [NS_REGIME_COMPUTE] = {TEXT(",{\"bucket\":\"compute\",\"gain_share\":")},
    [NS_REGIME_MEMORY] = {TEXT(",{\"bucket\":\"memory\",\"gain_share\":")},
    [NS_REGIME_COMM] = {TEXT(",{\"bucket\":\"comm\",\"gain_share\":")},
    [NS_REGIME_DATALOADER] = {TEXT(",{\"bucket\":\"dataloader\",\"gain_share\":")},
    [NS_REGIME_OVERHEAD] = {TEXT(",{\"bucket\":\"overhead\",\"gain_share\":")},
    [NS_REGIME_IDLE] = {TEXT(",{\"bucket\":\"idle\",\"gain_share\":")},
};

/* Room reserved for the line's head (from "{" to the share: 91 bytes at most, and a piece's copy to spare)
 * and for its tail (from "runner_up" to the next steps: 13 + 12 + 19 + 31 + 10 + 31 + 24 + 12 + 6 * (32 + 31
 * + 20) + 2 + 9 + 6 * (14 + 31) + 1 + 16 + 31 + 14 + 6 * (37 + 31 + 1) + 2 = 1,409 bytes at most, numbers at
 * their longest, 31 bytes). */
#define HEAD_ROOM 256
#define TAIL_ROOM 2048

static char *put_piece(char *o, const piece *p)
{
	memcpy(o, p->text, PIECE_MAX);
	return o + p->len;
}

/* A literal, its length known where it is written. */
#define put_literal(o, lit) (memcpy(o, lit, sizeof(lit) - 1), (o) + sizeof(lit) - 1)

/* The split's shares as JSON numbers, formatted once: "split" and "next_steps" print them all, and the
 * verdict's share, the runner-up's and the findings' are copies of them. */
typedef struct {
	char text[NS_REGIME_COUNT][JSON_NUMBER_MAX];
	size_t len[NS_REGIME_COUNT];
} share_texts;

static void format_shares(const ns_verdict *v, share_texts *t)
{
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		t->len[r] = json_format_double(v->split[r], t->text[r]);
}

/* A number at the cursor (json_format_double writes at most JSON_NUMBER_MAX bytes, its NUL overwritten
 * by what follows). */
static char *put_number(char *o, double d)
{
	return o + json_format_double(d, o);
}

static char *put_split_share(char *o, const share_texts *t, int r)
{
	memcpy(o, t->text[r], JSON_NUMBER_MAX);
	return o + t->len[r];
}

/* d, which is usually a copy of the split's share of regime r: then the text formatted for the split (equal
 * bits print equal text), else d printed now. */
static uint64_t bits_of(double d)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	return bits;
}

static char *put_share(char *o, const ns_verdict *v, const share_texts *t, ns_regime r, double d)
{
	return bits_of(v->split[r]) == bits_of(d) ? put_split_share(o, t, r) : put_number(o, d);
}

/* Items written from open on, each after a comma: the first one's comma becomes the opening bracket (which
 * is written when there is no item); then the closing one. */
static char *close_list(char *open, char *o, char opening, char closing)
{
	if (o == open)
		*o++ = opening;
	else
		*open = opening;
	*o++ = closing;
	return o;
}

static char *put_findings(char *o, const ns_verdict *v, const share_texts *t)
{
	char *open;

	o = put_literal(o, ",\"findings\":");
	open = o;
	for (size_t i = 0; i < v->nfindings && i < NS_REGIME_COUNT; i++) {
		const ns_finding *f = &v->findings[i];
		ns_grade g =
		    f->grade == NS_GRADE_MODERATE || f->grade == NS_GRADE_HIGH ? f->grade : NS_GRADE_NONE;
		o = put_piece(o, &finding_head[f->regime]);
		o = put_share(o, v, t, f->regime, f->share);
		o = put_piece(o, &finding_tail[g]);
	}
	return close_list(open, o, '[', ']');
}

static char *put_split(char *o, const share_texts *t)
{
	char *open;

	o = put_literal(o, ",\"split\":");
	open = o;
	for (int r = 0; r < NS_REGIME_COUNT; r++) {
		o = put_piece(o, &split_key[r]);
		o = put_split_share(o, t, r);
	}
	return close_list(open, o, '{', '}');
}

/* The next steps of a profile split (issue 21, docs/next-step.md): a split of shares says nothing finer than
 * its buckets, so each bucket's fix can win at most the bucket's share of the step (the trivial bound): the
 * buckets with time, largest share first, ties in bucket order. The fixes are the routes' (the verdict's
 * own fix is in "fix"); there are no times, causes or bases to give. */
static char *put_next_steps(char *o, const ns_verdict *v, const share_texts *t)
{
	int order[NS_REGIME_COUNT] = {0}, n = 0;
	char *open;

	for (int b = 0; b < NS_REGIME_COUNT; b++) {
		int at = n++;
		for (; at > 0 && v->split[b] > v->split[order[at - 1]]; at--)
			order[at] = order[at - 1];
		order[at] = b;
	}
	o = put_literal(o, ",\"next_steps\":");
	open = o;
	for (int i = 0; i < n; i++) {
		if (!(v->split[order[i]] > 0.0))
			continue;
		o = put_piece(o, &step_head[order[i]]);
		o = put_split_share(o, t, order[i]);
		*o++ = '}';
	}
	return close_list(open, o, '[', ']');
}

/* From "{" to the share. False when the output has failed. */
static bool put_head(json_out *w, const ns_verdict *v, const share_texts *t)
{
	char *o = json_out_reserve(w, HEAD_ROOM);

	if (o == NULL)
		return false;
	o = put_literal(o, "{\"regime\":");
	o = put_piece(o, &quoted_name[v->regime]);
	o = put_literal(o, ",\"verdict\":");
	o = put_piece(o, &quoted_bound_word[v->regime]);
	if (!(v->share < 0.0)) {
		o = put_literal(o, ",\"share\":");
		o = put_share(o, v, t, v->regime, v->share);
	}
	json_out_commit(w, o);
	return true;
}

/* From "runner_up" to the next steps. False when the output has failed. */
static bool put_tail(json_out *w, const ns_verdict *v, const share_texts *t)
{
	char *o = json_out_reserve(w, TAIL_ROOM);

	if (o == NULL)
		return false;
	o = put_literal(o, ",\"runner_up\":");
	o = put_piece(o, &quoted_name[v->runner_up]);
	o = put_literal(o, ",\"runner_up_share\":");
	o = put_share(o, v, t, v->runner_up, v->runner_up_share);
	o = put_literal(o, ",\"margin\":");
	o = put_number(o, ns_format_tidy(v->margin));
	if (v->by_priority)
		o = put_literal(o, ",\"decided_by\":\"priority\"");
	else
		o = put_literal(o, ",\"decided_by\":\"share\"");
	o = put_findings(o, v, t);
	o = put_split(o, t);
	o = put_literal(o, ",\"unattributed\":");
	o = put_number(o, ns_format_tidy(v->unattributed));
	o = put_next_steps(o, v, t);
	json_out_commit(w, o);
	return true;
}

/* ,"key": with its length known where it is written (key is a literal). */
#define put_key(w, key) json_out_raw(w, ",\"" key "\":")

static void put_string_or_null(json_out *w, const char *s)
{
	if (s != NULL)
		json_out_string(w, s);
	else
		json_out_raw(w, "null");
}

/* As add_label(): "" is null, and the text is made UTF-8 (ASCII, most labels, is as it is). False when out
 * of memory. */
static bool put_label(json_out *w, const char *label)
{
	size_t n = label != NULL ? strlen(label) : 0, cap = n * NS_UTF8_REPLACEMENT_LEN + 1, ascii = 0;
	char small[3 * NS_PROFILE_LABEL_MAX + 1];
	char *clean;

	put_key(w, "label");
	if (n == 0) {
		json_out_raw(w, "null");
		return true;
	}
	while (ascii < n && (unsigned char)label[ascii] < 0x80)
		ascii++;
	if (ascii == n) {
		json_out_string_n(w, label, n);
		return true;
	}
	clean = cap <= sizeof(small) ? small : malloc(cap);
	if (clean == NULL)
		return false;
	json_out_string_n(w, clean, ns_utf8_clean(label, n, clean, cap));
	if (clean != small)
		free(clean);
	return true;
}

static ns_status write_verdict_json(FILE *out, const char *label, const ns_verdict *v, const ns_routes *r,
                                    const char *source)
{
	const ns_route *route = &r->route[v->regime];
	share_texts shares = {0}; /* zeroed: cppcheck reads filling it as reading it */
	json_out w;

	format_shares(v, &shares);
	json_out_init(&w, out);
	if (!put_head(&w, v, &shares))
		return NS_ERR_IO;
	if (!put_label(&w, label))
		return NS_ERR_NOMEM; /* nothing written to out yet */
	put_key(&w, "module");
	put_string_or_null(&w, route->module);
	put_key(&w, "fix");
	put_string_or_null(&w, route->fix);
	put_key(&w, "next_check");
	put_string_or_null(&w, route->next_check);
	if (!put_tail(&w, v, &shares))
		return NS_ERR_IO;
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
