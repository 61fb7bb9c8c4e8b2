/* A saved report or profile as text (issue 26): checked whole before anything is allocated, then held as a
 * cJSON tree except for the devices' "steps" arrays, which stay text and are parsed one step at a time.
 *
 * Why the check comes first: cJSON returns NULL both for text that is no JSON and when it runs out of memory.
 * Once the whole text is known to be JSON that cJSON reads (strict RFC 8259, and the surrogate escapes cJSON
 * refuses refused here too), a NULL from cJSON can only be memory, and is said so.
 * Why the steps stay text: a report holds about 2 KB of text a step and cJSON about five times as much as a
 * tree; a baseline saved from a long trace would take gigabytes. The text is held once (the side owns it),
 * and what the comparison needs of the compared device's steps is a few doubles each. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "diff_private.h"
#include "util/text.h"
#include "util/vec.h"

/* The messages of the two limits the check applies (formatted with the limit when said). */
static const char too_deep[] = "too deep", step_too_large[] = "step too large";

/* Where the text being checked stands: the byte, what failed there. */
typedef struct {
	const char *t;
	size_t len, i;
	ns_status status; /* NS_OK, NS_ERR_SYNTAX or NS_ERR_LIMIT */
	const char *what;
	diff_steps_list *steps; /* the devices' "steps" arrays found */
} scan;

/* What a value is in a report's layout: only the devices' steps are kept as text. */
typedef enum { AT_TOP, AT_DEVICES, AT_DEVICE, AT_STEPS, AT_OTHER } place;

static bool fail(scan *s, ns_status st, const char *what)
{
	if (s->status == NS_OK) {
		s->status = st;
		s->what = what;
	}
	return false;
}

static void skip_blanks(scan *s)
{
	while (s->i < s->len &&
	       (s->t[s->i] == ' ' || s->t[s->i] == '\t' || s->t[s->i] == '\n' || s->t[s->i] == '\r'))
		s->i++;
}

static int at(const scan *s)
{
	return s->i < s->len ? (unsigned char)s->t[s->i] : -1;
}

static bool hex4(scan *s, unsigned *out)
{
	unsigned v = 0;

	for (int k = 0; k < 4; k++) {
		int c = at(s);
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return fail(s, NS_ERR_SYNTAX, "malformed JSON");
		v = v * 16 + d;
		s->i++;
	}
	*out = v;
	return true;
}

/* \uXXXX: a low surrogate alone, or a high one not followed by a low one, is refused as cJSON refuses it. */
static bool unicode_escape(scan *s)
{
	unsigned first = 0, second = 0;

	if (!hex4(s, &first))
		return false;
	if (first >= 0xDC00 && first <= 0xDFFF)
		return fail(s, NS_ERR_SYNTAX, "malformed JSON");
	if (first < 0xD800 || first > 0xDBFF)
		return true;
	if (s->i + 2 > s->len || s->t[s->i] != '\\' || s->t[s->i + 1] != 'u')
		return fail(s, NS_ERR_SYNTAX, "malformed JSON");
	s->i += 2;
	if (!hex4(s, &second))
		return false;
	return second >= 0xDC00 && second <= 0xDFFF ? true : fail(s, NS_ERR_SYNTAX, "malformed JSON");
}

static bool string(scan *s)
{
	s->i++; /* the opening quote */
	for (;;) {
		int c = at(s);
		if (c < 0 || c < 0x20)
			return fail(s, NS_ERR_SYNTAX, "malformed JSON");
		s->i++;
		if (c == '"')
			return true;
		if (c != '\\')
			continue;
		c = at(s);
		s->i++;
		if (c == 'u') {
			if (!unicode_escape(s))
				return false;
		} else if (c < 0 || strchr("\"\\/bfnrt", c) == NULL) {
			s->i--;
			return fail(s, NS_ERR_SYNTAX, "malformed JSON");
		}
	}
}

static bool digits(scan *s)
{
	size_t from = s->i;

	while (at(s) >= '0' && at(s) <= '9')
		s->i++;
	return s->i > from ? true : fail(s, NS_ERR_SYNTAX, "malformed JSON");
}

static bool number(scan *s)
{
	if (at(s) == '-')
		s->i++;
	if (at(s) == '0')
		s->i++;
	else if (!digits(s))
		return false;
	if (at(s) == '.') {
		s->i++;
		if (!digits(s))
			return false;
	}
	if (at(s) == 'e' || at(s) == 'E') {
		s->i++;
		if (at(s) == '+' || at(s) == '-')
			s->i++;
		if (!digits(s))
			return false;
	}
	return true;
}

static bool literal(scan *s, const char *word)
{
	size_t n = strlen(word);

	if (s->len - s->i < n || memcmp(s->t + s->i, word, n) != 0)
		return fail(s, NS_ERR_SYNTAX, "malformed JSON");
	s->i += n;
	return true;
}

static bool value(scan *s, int depth, place where);

/* The raw key just read (quotes included) is `"name"`. Escaped spellings of the name are other keys here,
 * and the tree walk (below) decides the same way. */
static bool key_is(const scan *s, size_t from, const char *name)
{
	size_t n = strlen(name);

	return s->i - from == n + 2 && memcmp(s->t + from + 1, name, n) == 0;
}

static place member_place(const scan *s, size_t key_from, place where)
{
	if (where == AT_TOP && key_is(s, key_from, "devices"))
		return AT_DEVICES;
	if (where == AT_DEVICE && key_is(s, key_from, "steps"))
		return AT_STEPS;
	return AT_OTHER;
}

static bool object(scan *s, int depth, place where)
{
	s->i++;
	skip_blanks(s);
	if (at(s) == '}') {
		s->i++;
		return true;
	}
	for (;;) {
		size_t key_from = s->i;
		if (at(s) != '"' || !string(s))
			return fail(s, NS_ERR_SYNTAX, "malformed JSON");
		place inner = member_place(s, key_from, where);
		skip_blanks(s);
		if (at(s) != ':')
			return fail(s, NS_ERR_SYNTAX, "malformed JSON");
		s->i++;
		skip_blanks(s);
		if (!value(s, depth + 1, inner))
			return false;
		skip_blanks(s);
		if (at(s) == '}') {
			s->i++;
			return true;
		}
		if (at(s) != ',')
			return fail(s, NS_ERR_SYNTAX, "malformed JSON");
		s->i++;
		skip_blanks(s);
	}
}

/* A step's text is parsed whole when it is read or printed: its size is bounded. */
static bool element(scan *s, int depth, place where)
{
	size_t from = s->i;

	if (!value(s, depth, where == AT_DEVICES ? AT_DEVICE : AT_OTHER))
		return false;
	if (where == AT_STEPS && s->i - from > NS_DIFF_STEP_TEXT_MAX) {
		s->i = from;
		return fail(s, NS_ERR_LIMIT, step_too_large);
	}
	return true;
}

static bool array(scan *s, int depth, place where)
{
	size_t from = s->i;

	s->i++;
	skip_blanks(s);
	if (at(s) != ']')
		for (;;) {
			if (!element(s, depth + 1, where))
				return false;
			skip_blanks(s);
			if (at(s) == ']')
				break;
			if (at(s) != ',')
				return fail(s, NS_ERR_SYNTAX, "malformed JSON");
			s->i++;
			skip_blanks(s);
		}
	s->i++;
	if (where == AT_STEPS && s->steps != NULL) {
		diff_steps_list *l = s->steps;
		ns_diff_steps_text *grown = ns_grow(l->items, &l->cap, l->n + 1, sizeof(*grown));
		if (grown == NULL)
			return fail(s, NS_ERR_NOMEM, "out of memory");
		l->items = grown;
		memset(&l->items[l->n], 0, sizeof(l->items[l->n]));
		l->items[l->n].off = from;
		l->items[l->n++].len = s->i - from;
	}
	return true;
}

/* depth: 1 for the document. Deeper than NS_DIFF_MAX_DEPTH is refused before it is entered. */
static bool value(scan *s, int depth, place where)
{
	if (depth > NS_DIFF_MAX_DEPTH)
		return fail(s, NS_ERR_LIMIT, too_deep);
	switch (at(s)) {
	case '{':
		return object(s, depth, where == AT_TOP || where == AT_DEVICE ? where : AT_OTHER);
	case '[':
		return array(s, depth, where == AT_DEVICES || where == AT_STEPS ? where : AT_OTHER);
	case '"':
		return string(s);
	case 't':
		return literal(s, "true");
	case 'f':
		return literal(s, "false");
	case 'n':
		return literal(s, "null");
	default:
		return at(s) == '-' || (at(s) >= '0' && at(s) <= '9')
		           ? number(s)
		           : fail(s, NS_ERR_SYNTAX, "malformed JSON");
	}
}

static size_t after_bom(const char *text, size_t len)
{
	return len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
}

ns_status diff_text_check(const char *text, size_t len, diff_steps_list *steps, ns_error *err)
{
	scan s = {text, len, after_bom(text, len), NS_OK, NULL, steps};
	size_t end;

	skip_blanks(&s);
	if (value(&s, 1, AT_TOP)) {
		end = s.i;
		skip_blanks(&s);
		if (s.i == len)
			return NS_OK;
		s.i = end;
		fail(&s, NS_ERR_SYNTAX, "more than one JSON value: a side is one report or one profile");
	}
	if (s.what == too_deep)
		ns_error_set(err, s.status, "JSON nested more than %d levels deep: not a report or profile",
		             NS_DIFF_MAX_DEPTH);
	else if (s.what == step_too_large)
		ns_error_set(err, s.status, "a step of more than %d bytes of JSON: not a report's step",
		             NS_DIFF_STEP_TEXT_MAX);
	else
		ns_error_set(err, s.status, "%s", s.what);
	return ns_error_at(err, ns_line_of(text, len, s.i), -1, -1);
}

/* ---- the tree, from text diff_text_check() accepted ---------------------------------------------- */

/* Walks checked text: nothing here can be malformed, so a NULL from cJSON is memory. */
typedef struct {
	const char *t;
	size_t len, i;
	const ns_diff_steps_text *steps; /* the spans the check found, consumed in order */
	size_t nsteps, next;
	cJSON **placeholder; /* each span's empty array in the tree */
} walk;

static void walk_blanks(walk *w)
{
	while (w->i < w->len &&
	       (w->t[w->i] == ' ' || w->t[w->i] == '\t' || w->t[w->i] == '\n' || w->t[w->i] == '\r'))
		w->i++;
}

static cJSON *piece(walk *w)
{
	const char *end = NULL;
	cJSON *item = cJSON_ParseWithLengthOpts(w->t + w->i, w->len - w->i, &end, 0);

	if (item != NULL)
		w->i = (size_t)(end - w->t);
	return item;
}

static cJSON *walk_value(walk *w, place where);

static cJSON *walk_object(walk *w, place where)
{
	cJSON *obj = cJSON_CreateObject();

	w->i++;
	walk_blanks(w);
	while (obj != NULL && w->t[w->i] != '}') {
		size_t key_from = w->i;
		cJSON *key = piece(w), *v = NULL;
		scan probe = {w->t, w->len, w->i, NS_OK, NULL, NULL};
		place inner = key != NULL ? member_place(&probe, key_from, where) : AT_OTHER;
		if (key != NULL) {
			walk_blanks(w);
			w->i++; /* ':' */
			walk_blanks(w);
			v = walk_value(w, inner);
		}
		if (v == NULL || !cJSON_AddItemToObject(obj, key->valuestring, v)) {
			cJSON_Delete(v);
			cJSON_Delete(key);
			cJSON_Delete(obj);
			return NULL;
		}
		cJSON_Delete(key);
		walk_blanks(w);
		if (w->t[w->i] == ',') {
			w->i++;
			walk_blanks(w);
		}
	}
	w->i++;
	return obj;
}

static cJSON *walk_devices(walk *w)
{
	cJSON *arr = cJSON_CreateArray();

	w->i++;
	walk_blanks(w);
	while (arr != NULL && w->t[w->i] != ']') {
		cJSON *v = walk_value(w, AT_DEVICE);
		if (v == NULL || !cJSON_AddItemToArray(arr, v)) {
			cJSON_Delete(v);
			cJSON_Delete(arr);
			return NULL;
		}
		walk_blanks(w);
		if (w->t[w->i] == ',') {
			w->i++;
			walk_blanks(w);
		}
	}
	w->i++;
	return arr;
}

/* A device's steps: an empty array in the tree, its place recorded; the text is skipped. */
static cJSON *walk_steps(walk *w)
{
	cJSON *arr;

	if (w->next >= w->nsteps || w->steps[w->next].off != w->i)
		return piece(w); /* cannot happen: the check found every such array */
	arr = cJSON_CreateArray();
	if (arr != NULL) {
		w->placeholder[w->next] = arr;
		w->i += w->steps[w->next].len;
		w->next++;
	}
	return arr;
}

static cJSON *walk_value(walk *w, place where)
{
	char c = w->t[w->i];

	if (c == '{' && (where == AT_TOP || where == AT_DEVICE))
		return walk_object(w, where);
	if (c == '[' && where == AT_DEVICES)
		return walk_devices(w);
	if (c == '[' && where == AT_STEPS)
		return walk_steps(w);
	return piece(w);
}

ns_status diff_text_tree(const char *text, size_t len, ns_diff_steps_text *steps, size_t nsteps, cJSON **out,
                         ns_error *err)
{
	cJSON **placeholder = calloc(nsteps + 1, sizeof(cJSON *));
	walk w = {text, len, after_bom(text, len), steps, nsteps, 0, placeholder};

	*out = NULL;
	if (placeholder == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	walk_blanks(&w);
	*out = walk_value(&w, AT_TOP);
	for (size_t i = 0; i < nsteps; i++)
		steps[i].placeholder = placeholder[i];
	free(placeholder);
	return *out != NULL ? NS_OK : ns_error_set(err, NS_ERR_NOMEM, "out of memory");
}

/* ---- one step at a time --------------------------------------------------------------------------- */

void diff_steps_begin(const char *text, const ns_diff_steps_text *st, diff_steps_cursor *c)
{
	c->text = text;
	c->pos = st->off + 1; /* past '[' */
	c->end = st->off + st->len - 1;
}

static void cursor_blanks(diff_steps_cursor *c)
{
	while (c->pos < c->end &&
	       (c->text[c->pos] == ' ' || c->text[c->pos] == '\t' || c->text[c->pos] == '\n' ||
	        c->text[c->pos] == '\r' || c->text[c->pos] == ','))
		c->pos++;
}

ns_status diff_steps_next(diff_steps_cursor *c, cJSON **item, ns_error *err)
{
	const char *end = NULL;

	*item = NULL;
	cursor_blanks(c);
	if (c->pos >= c->end)
		return NS_OK;
	*item = cJSON_ParseWithLengthOpts(c->text + c->pos, c->end - c->pos, &end, 0);
	if (*item == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	c->pos = (size_t)(end - c->text);
	return NS_OK;
}

size_t diff_steps_count(const char *text, const ns_diff_steps_text *st)
{
	scan s = {text, st->off + st->len, st->off + 1, NS_OK, NULL, NULL};
	size_t n = 0;

	skip_blanks(&s);
	while (at(&s) != ']' && value(&s, 1, AT_OTHER)) {
		n++;
		skip_blanks(&s);
		if (at(&s) == ',')
			s.i++;
		skip_blanks(&s);
	}
	return n;
}

const ns_diff_steps_text *diff_steps_of(const ns_diff_side *s, const cJSON *placeholder)
{
	for (size_t i = 0; i < s->nsteps_text; i++)
		if (s->steps_text[i].placeholder == placeholder)
			return &s->steps_text[i];
	return NULL;
}

/* ---- strings made UTF-8 ---------------------------------------------------------------------------- */

/* *str as UTF-8: left alone when it is, else replaced by a copy with U+FFFD for each byte that begins no
 * character. False on OOM. */
static bool clean_utf8(char **str)
{
	size_t n = strlen(*str), i = 0, len, cap;
	char *clean;

	while (i < n && (len = ns_utf8_char(*str + i, n - i, NULL)) > 0)
		i += len;
	if (i == n)
		return true;
	cap = n * NS_UTF8_REPLACEMENT_LEN + 1;
	if ((clean = cJSON_malloc(cap)) == NULL)
		return false;
	ns_utf8_clean(*str, n, clean, cap);
	cJSON_free(*str);
	*str = clean;
	return true;
}

/* A saved report is printed again inside the diff's JSON ("before", "after") and its names in the text: its
 * keys and strings are made UTF-8 first, as every output is. */
bool diff_clean_strings(cJSON *item)
{
	for (; item != NULL; item = item->next) {
		if (item->string != NULL && !(item->type & cJSON_StringIsConst) && !clean_utf8(&item->string))
			return false;
		if (cJSON_IsString(item) && item->valuestring != NULL && !clean_utf8(&item->valuestring))
			return false;
		if (!diff_clean_strings(item->child))
			return false;
	}
	return true;
}

/* ---- a saved report printed again ----------------------------------------------------------------- */

static ns_status put_steps(json_out *w, const ns_diff_side *s, const ns_diff_steps_text *st, ns_error *err)
{
	diff_steps_cursor c;
	cJSON *item;
	bool first = true;
	ns_status got;

	diff_steps_begin(s->report_text, st, &c);
	json_out_char(w, '[');
	while ((got = diff_steps_next(&c, &item, err)) == NS_OK && item != NULL) {
		bool ok = diff_clean_strings(item);
		if (!first)
			json_out_char(w, ',');
		first = false;
		ok = ok && json_out_item(w, item);
		cJSON_Delete(item);
		if (!ok)
			return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	if (got != NS_OK)
		return got;
	json_out_char(w, ']');
	return NS_OK;
}

/* The tree as json_out_item() prints it, down to the devices' steps (depth 3), which are printed from the
 * text; *next: the next steps array in document order, which is the tree's order. */
static ns_status put_tree(json_out *w, const cJSON *item, const ns_diff_side *s, size_t *next, int depth,
                          ns_error *err)
{
	bool obj = cJSON_IsObject(item);

	if (*next < s->nsteps_text && item == s->steps_text[*next].placeholder)
		return put_steps(w, s, &s->steps_text[(*next)++], err);
	if (*next >= s->nsteps_text || depth >= 3 || !(obj || cJSON_IsArray(item)))
		return json_out_item(w, item) ? NS_OK : ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	json_out_char(w, obj ? '{' : '[');
	for (const cJSON *c = item->child; c != NULL; c = c->next) {
		if (c != item->child)
			json_out_char(w, ',');
		if (obj) {
			json_out_string(w, c->string);
			json_out_char(w, ':');
		}
		if (put_tree(w, c, s, next, depth + 1, err) != NS_OK)
			return err->status;
	}
	json_out_char(w, obj ? '}' : ']');
	return NS_OK;
}

ns_status diff_put_report(json_out *w, const ns_diff_side *s, ns_error *err)
{
	size_t next = 0;

	return put_tree(w, s->report, s, &next, 0, err);
}
