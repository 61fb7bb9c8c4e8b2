#define _POSIX_C_SOURCE 200809L
#include "nextstep/parse_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/json_file.h"
#include "parse_flat.h"
#include "util/text.h"
#include "util/vec.h"

#define READ_CHUNK 65536

/* ---- one object ---------------------------------------------------------------------------------- */

static ns_status read_share(const cJSON *item, double *out, ns_error *err)
{
	ns_status st;

	if (cJSON_IsNumber(item)) {
		st = ns_profile_check_share(item->valuedouble, err);
		*out = item->valuedouble;
	} else if (cJSON_IsString(item)) {
		st = ns_profile_parse_share(item->valuestring, out, err);
	} else {
		st = ns_error_set(err, NS_ERR_VALUE, "must be a number or a string like \"72%%\"");
	}
	if (st != NS_OK) {
		char why[sizeof(err->msg)];
		snprintf(why, sizeof(why), "%s", err->msg);
		return ns_error_set(err, st, "\"%s\": %s", item->string, why);
	}
	return NS_OK;
}

static ns_status read_label(const cJSON *item, ns_profile *p, bool *seen, ns_error *err)
{
	if (*seen)
		return ns_error_set(err, NS_ERR_KEY, "duplicate label (\"label\" and \"name\" both given)");
	*seen = true;
	if (cJSON_IsNull(item))
		return NS_OK;
	if (!cJSON_IsString(item))
		return ns_error_set(err, NS_ERR_VALUE, "\"%s\" must be a string", item->string);
	ns_profile_set_label(p, item->valuestring);
	return NS_OK;
}

static ns_status read_bucket(const cJSON *item, ns_regime r, ns_profile *p, ns_error *err)
{
	if (p->present[r])
		return ns_error_set(err, NS_ERR_KEY, "duplicate key \"%s\" (bucket %s given twice)",
		                    item->string, ns_regime_name(r));
	p->present[r] = true;
	return read_share(item, &p->share[r], err);
}

/* A verdict printed by nextstep: the shares are in "split"; the rest is our own output and is ignored. */
static ns_status read_verdict(const cJSON *obj, const cJSON *split, ns_profile *p, ns_error *err)
{
	const cJSON *item;
	bool label_seen = false;

	cJSON_ArrayForEach(item, split)
	{
		ns_regime r;
		if (!ns_regime_from_name(item->string, &r))
			return ns_error_set(err, NS_ERR_KEY, "split: unknown bucket \"%s\"", item->string);
		if (read_bucket(item, r, p, err) != NS_OK)
			return err->status;
	}
	item = cJSON_GetObjectItemCaseSensitive(obj, "label");
	return item != NULL ? read_label(item, p, &label_seen, err) : NS_OK;
}

ns_status ns_parse_profile_json(const cJSON *obj, ns_profile *p, bool strict,
                                ns_profile_unknown_keys *unknown, ns_error *err)
{
	const cJSON *item, *split;
	bool label_seen = false;

	ns_profile_init(p);
	unknown->count = 0;
	if (!cJSON_IsObject(obj))
		return ns_error_set(err, NS_ERR_VALUE, "expected a JSON object with bucket shares");
	split = cJSON_GetObjectItemCaseSensitive(obj, "split");
	if (cJSON_IsObject(split))
		return read_verdict(obj, split, p, err);
	cJSON_ArrayForEach(item, obj)
	{
		ns_regime r;
		if (profile_bucket_from_key(item->string, strlen(item->string), &r)) {
			if (read_bucket(item, r, p, err) != NS_OK)
				return err->status;
		} else if (strcmp(item->string, "label") == 0 || strcmp(item->string, "name") == 0) {
			if (read_label(item, p, &label_seen, err) != NS_OK)
				return err->status;
		} else if (strict) {
			ns_error_set(err, NS_ERR_KEY, "unknown key \"%s\"", item->string);
			return ns_error_set_param(err, NS_PROFILE_PARAM_STRICT);
		} else {
			profile_note_unknown(unknown, item->string, strlen(item->string));
		}
	}
	return NS_OK;
}

/* ---- the stream ---------------------------------------------------------------------------------- */

typedef enum { MODE_START, MODE_NDJSON, MODE_DOCUMENT, MODE_ARRAY, MODE_DONE } reader_mode;

typedef enum {
	LINE_OK,
	LINE_TOO_LONG, /* reported as soon as the line passes the limit; its rest is dropped as it arrives */
	LINE_BINARY,   /* a NUL byte in the rest of an over-long line: not a text stream */
	LINE_NOMEM,
	LINE_EOF
} line_status;

/* Tracks brace depth across lines, string-aware, to know where a multi-line object ends. */
typedef struct {
	int depth;
	bool in_string, escaped, started;
} depth_scan;

struct ns_profile_reader {
	ns_input *in;
	bool strict;
	reader_mode mode;
	char *buf; /* raw bytes read; buf[pos..len) not yet consumed */
	size_t len, pos, cap;
	bool eof;
	bool skipping; /* dropping the rest of an over-long line, already reported */
	bool binary;   /* a NUL byte was dropped with it */
	long line;     /* number of the last line handed out */
	char *rec;     /* a multi-line object or the whole array being gathered */
	size_t rec_len, rec_cap;
	long rec_line;
	cJSON *array;
	const cJSON *array_next;
	long array_index;
};

/* The buffer holds one whole line of the largest size allowed (with its CR LF) and a read's worth more. */
#define BUFFER_MAX (NS_PROFILE_LINE_MAX + 2 + READ_CHUNK)

ns_profile_reader *ns_profile_reader_new(ns_input *in, bool strict)
{
	ns_profile_reader *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->in = in;
	r->strict = strict;
	r->cap = READ_CHUNK;
	r->buf = malloc(r->cap);
	if (r->buf == NULL) {
		free(r);
		return NULL;
	}
	return r;
}

void ns_profile_reader_free(ns_profile_reader *r)
{
	if (r == NULL)
		return;
	cJSON_Delete(r->array);
	free(r->rec);
	free(r->buf);
	free(r);
}

/* Doubles the buffer up to BUFFER_MAX; on OOM it keeps its size (fill_buffer then reports a full buffer). */
static void grow_buffer(ns_profile_reader *r)
{
	char *grown = ns_grow_capped(r->buf, &r->cap, r->cap + 1, 1, BUFFER_MAX);

	if (grown != NULL)
		r->buf = grown;
}

/* Pulls more bytes, as many as the pipe has. False when the buffer is full and cannot grow (OOM). */
static bool fill_buffer(ns_profile_reader *r)
{
	ssize_t got;

	memmove(r->buf, r->buf + r->pos, r->len - r->pos);
	r->len -= r->pos;
	r->pos = 0;
	if (r->cap - r->len < READ_CHUNK / 2)
		grow_buffer(r);
	if (r->len == r->cap)
		return false;
	got = ns_input_read(r->in, r->buf + r->len, r->cap - r->len);
	if (got <= 0)
		r->eof = true;
	else
		r->len += (size_t)got;
	return true;
}

/* A line's length without the CR of a CR LF ending. */
static size_t without_cr(const char *s, size_t n)
{
	return n > 0 && s[n - 1] == '\r' ? n - 1 : n;
}

/* Drops the rest of an over-long line, up to its newline when that has arrived. */
static void skip_rest(ns_profile_reader *r)
{
	char *start = r->buf + r->pos;
	char *nl = memchr(start, '\n', r->len - r->pos);
	size_t n = nl != NULL ? (size_t)(nl - start) : r->len - r->pos;

	if (memchr(start, '\0', n) != NULL)
		r->binary = true;
	r->pos += n + (nl != NULL);
	r->skipping = nl == NULL;
}

static line_status take_line(ns_profile_reader *r, const char **s, size_t *n)
{
	for (;;) {
		if (r->skipping)
			skip_rest(r);
		if (r->binary)
			return LINE_BINARY;
		if (!r->skipping) {
			char *start = r->buf + r->pos;
			size_t avail = r->len - r->pos;
			char *nl = memchr(start, '\n', avail);
			size_t len = nl != NULL ? (size_t)(nl - start) : avail;
			/* A line is too long as soon as its bytes so far pass the limit, newline or not. */
			if (without_cr(start, len) > NS_PROFILE_LINE_MAX) {
				r->line++;
				skip_rest(r);
				return LINE_TOO_LONG;
			}
			if (nl != NULL || (r->eof && avail > 0)) {
				*s = start;
				*n = without_cr(start, len);
				r->pos += len + (nl != NULL);
				r->line++;
				return LINE_OK;
			}
		}
		if (r->eof)
			return LINE_EOF;
		if (!fill_buffer(r))
			return LINE_NOMEM;
	}
}

/* Skips blanks before the first record (counting its lines); returns the first other byte, or EOF. */
static int first_nonblank(ns_profile_reader *r)
{
	for (;;) {
		for (; r->pos < r->len; r->pos++) {
			char c = r->buf[r->pos];
			if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
				return (unsigned char)c;
			r->line += c == '\n';
		}
		if (r->eof || !fill_buffer(r))
			return EOF;
	}
}

static bool is_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			return false;
	return true;
}

static char first_char(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return s[i];
	return '\0';
}

static void scan_depth(depth_scan *d, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (d->in_string) {
			if (d->escaped)
				d->escaped = false;
			else if (c == '\\')
				d->escaped = true;
			else if (c == '"')
				d->in_string = false;
		} else if (c == '"') {
			d->in_string = true;
		} else if (c == '{' || c == '[') {
			d->depth++;
			d->started = true;
		} else if (c == '}' || c == ']') {
			d->depth--;
		}
	}
}

/* Appends n bytes to the record, keeping it NUL-terminated. */
static bool rec_append(ns_profile_reader *r, const char *s, size_t n)
{
	char *grown = ns_grow(r->rec, &r->rec_cap, r->rec_len + n + 1, 1);

	if (grown == NULL)
		return false;
	r->rec = grown;
	memcpy(r->rec + r->rec_len, s, n);
	r->rec_len += n;
	r->rec[r->rec_len] = '\0';
	return true;
}

static bool rec_append_line(ns_profile_reader *r, const char *s, size_t n)
{
	return rec_append(r, s, n) && rec_append(r, "\n", 1);
}

static ns_profile_read_result bad(ns_error *err, long line, ns_status st, const char *msg)
{
	ns_error_set(err, st, "%s", msg);
	ns_error_at(err, line, -1, -1);
	return NS_PROFILE_READ_BAD;
}

/* What a take_line status other than LINE_OK and LINE_EOF means for the record at r->line. */
static ns_profile_read_result line_problem(ns_profile_reader *r, line_status ls, ns_error *err)
{
	switch (ls) {
	case LINE_TOO_LONG:
		return bad(err, r->line, NS_ERR_LIMIT, "line longer than 1 MiB");
	case LINE_BINARY:
		r->mode = MODE_DONE;
		return bad(err, r->line, NS_ERR_SYNTAX,
		           "NUL bytes in the input: not a text stream, stopped reading");
	case LINE_NOMEM:
		r->mode = MODE_DONE;
		return bad(err, r->line + 1, NS_ERR_NOMEM, "out of memory");
	case LINE_OK:
	case LINE_EOF:
		break;
	}
	return NS_PROFILE_READ_END;
}

/* Parses one complete record that starts at line first_line. */
static ns_profile_read_result parse_record(ns_profile_reader *r, const char *s, size_t n, long first_line,
                                           ns_profile *p, ns_profile_unknown_keys *unknown, ns_error *err)
{
	const char *end = NULL, *nul = memchr(s, '\0', n);
	cJSON *obj;
	ns_status st;

	/* cJSON would stop at the NUL and take what came before it for the whole record. */
	if (nul != NULL)
		return bad(err, first_line + ns_line_of(s, n, (size_t)(nul - s)) - 1, NS_ERR_SYNTAX,
		           "NUL byte in the JSON text");
	if (profile_parse_flat(s, n, r->strict, p, unknown)) {
		ns_error_at(err, first_line, -1, -1); /* where the record was (warnings name it) */
		return NS_PROFILE_READ_OK;
	}
	obj = cJSON_ParseWithLengthOpts(s, n, &end, 0);
	if (obj == NULL) {
		size_t at = end != NULL && end >= s ? (size_t)(end - s) : 0;
		return bad(err, first_line + ns_line_of(s, n, at) - 1, NS_ERR_SYNTAX, "malformed JSON");
	}
	if (end != NULL && !is_blank(end, n - (size_t)(end - s))) {
		cJSON_Delete(obj);
		return bad(err, first_line, NS_ERR_SYNTAX, "unexpected text after the JSON object");
	}
	st = ns_parse_profile_json(obj, p, r->strict, unknown, err);
	cJSON_Delete(obj);
	/* where the record was, read or not (the caller names it in messages and warnings) */
	ns_error_at(err, first_line, -1, -1);
	return st != NS_OK ? NS_PROFILE_READ_BAD : NS_PROFILE_READ_OK;
}

static ns_profile_read_result next_ndjson(ns_profile_reader *r, ns_profile *p,
                                          ns_profile_unknown_keys *unknown, ns_error *err)
{
	const char *s;
	size_t n;

	for (;;) {
		line_status ls = take_line(r, &s, &n);
		if (ls == LINE_EOF)
			return NS_PROFILE_READ_END;
		if (ls != LINE_OK)
			return line_problem(r, ls, err);
		if (!is_blank(s, n))
			return parse_record(r, s, n, r->line, p, unknown, err);
	}
}

/* Pretty-printed objects, one after another: gather lines until the braces balance. d carries the state of
 * a record already begun in r->rec. */
static ns_profile_read_result gather_document(ns_profile_reader *r, depth_scan *d, ns_profile *p,
                                              ns_profile_unknown_keys *unknown, ns_error *err)
{
	const char *s;
	size_t n, len;

	while (!(d->started && d->depth <= 0)) {
		line_status ls = take_line(r, &s, &n);
		if (ls == LINE_EOF) {
			if (r->rec_len == 0)
				return NS_PROFILE_READ_END;
			r->rec_len = 0;
			return bad(err, r->rec_line, NS_ERR_SYNTAX,
			           "truncated JSON object (no closing brace)");
		}
		if (ls != LINE_OK) {
			r->rec_len = 0;
			return line_problem(r, ls, err);
		}
		if (r->rec_len == 0) {
			if (is_blank(s, n))
				continue;
			r->rec_line = r->line;
			if (first_char(s, n) != '{')
				return bad(err, r->line, NS_ERR_SYNTAX, "expected a JSON object");
		}
		if (r->rec_len + n > NS_PROFILE_LINE_MAX) {
			r->mode = MODE_DONE;
			return bad(err, r->rec_line, NS_ERR_LIMIT, "JSON object longer than 1 MiB");
		}
		if (!rec_append_line(r, s, n))
			return bad(err, r->line, NS_ERR_NOMEM, "out of memory");
		scan_depth(d, s, n);
	}
	len = r->rec_len;
	r->rec_len = 0;
	return parse_record(r, r->rec, len, r->rec_line, p, unknown, err);
}

static ns_profile_read_result next_document(ns_profile_reader *r, ns_profile *p,
                                            ns_profile_unknown_keys *unknown, ns_error *err)
{
	depth_scan d = {0, false, false, false};

	r->rec_len = 0;
	return gather_document(r, &d, p, unknown, err);
}

/* An array is the whole input: its bytes are gathered as they come, whatever their lines, up to
 * NS_PROFILE_ARRAY_MAX, then parsed at once. */
static ns_profile_read_result load_array(ns_profile_reader *r, ns_error *err)
{
	const char *end = NULL, *nul;

	r->mode = MODE_DONE; /* unless the array parses */
	r->rec_len = 0;
	for (;;) {
		size_t avail = r->len - r->pos;
		if (avail > NS_PROFILE_ARRAY_MAX - r->rec_len)
			return bad(err, r->rec_line, NS_ERR_LIMIT,
			           "array input larger than 16 MiB (use NDJSON for streams)");
		if (!rec_append(r, r->buf + r->pos, avail))
			return bad(err, r->rec_line, NS_ERR_NOMEM, "out of memory");
		r->pos = r->len;
		if (r->eof)
			break;
		if (!fill_buffer(r))
			return bad(err, r->rec_line, NS_ERR_NOMEM, "out of memory");
	}
	if ((nul = memchr(r->rec, '\0', r->rec_len)) != NULL)
		return bad(err, r->rec_line + ns_line_of(r->rec, r->rec_len, (size_t)(nul - r->rec)) - 1,
		           NS_ERR_SYNTAX, "NUL byte in the JSON text");
	r->array = cJSON_ParseWithLengthOpts(r->rec, r->rec_len, &end, 0);
	if (r->array == NULL || !is_blank(end, r->rec_len - (size_t)(end - r->rec))) {
		size_t at = end != NULL && end >= r->rec ? (size_t)(end - r->rec) : 0;
		return bad(err, r->rec_line + ns_line_of(r->rec, r->rec_len, at) - 1, NS_ERR_SYNTAX,
		           "malformed JSON array");
	}
	r->mode = MODE_ARRAY;
	r->array_next = r->array->child;
	return NS_PROFILE_READ_OK;
}

static ns_profile_read_result next_array_item(ns_profile_reader *r, ns_profile *p,
                                              ns_profile_unknown_keys *unknown, ns_error *err)
{
	const cJSON *item = r->array_next;
	ns_status st;

	if (item == NULL) {
		r->mode = MODE_DONE;
		return NS_PROFILE_READ_END;
	}
	r->array_next = item->next;
	r->array_index++;
	st = ns_parse_profile_json(item, p, r->strict, unknown, err);
	/* where the item was, read or not (the caller names it in messages and warnings) */
	ns_error_at(err, -1, -1, r->array_index);
	return st != NS_OK ? NS_PROFILE_READ_BAD : NS_PROFILE_READ_OK;
}

/* The first non-blank byte decides: '[' an array; '{' on a line of its own object NDJSON, else the start of a
 * pretty-printed object; a NUL byte binary data, which ends the stream at once (nextstep /dev/zero). */
static ns_profile_read_result read_first_record(ns_profile_reader *r, ns_profile *p,
                                                ns_profile_unknown_keys *unknown, ns_error *err)
{
	const char *s;
	size_t n;
	line_status ls;
	depth_scan d = {0, false, false, false};
	int first = first_nonblank(r);

	r->mode = MODE_DONE;
	if (first == EOF)
		return bad(err, -1, NS_ERR_SYNTAX,
		           "no input (expected a JSON object, an array of objects, or NDJSON)");
	if (first == '\0')
		return bad(err, r->line + 1, NS_ERR_SYNTAX,
		           "binary data (a NUL byte) where JSON was expected; stopped reading");
	if (first == '[') {
		r->rec_line = r->line + 1;
		if (load_array(r, err) != NS_PROFILE_READ_OK)
			return NS_PROFILE_READ_BAD;
		return next_array_item(r, p, unknown, err);
	}
	r->mode = MODE_NDJSON;
	ls = take_line(r, &s, &n);
	if (ls != LINE_OK)
		return line_problem(r, ls, err);
	scan_depth(&d, s, n);
	if (first == '{' && d.depth > 0) {
		r->mode = MODE_DOCUMENT;
		r->rec_len = 0;
		r->rec_line = r->line;
		if (!rec_append_line(r, s, n))
			return bad(err, r->line, NS_ERR_NOMEM, "out of memory");
		return gather_document(r, &d, p, unknown, err);
	}
	return parse_record(r, s, n, r->line, p, unknown, err);
}

ns_profile_read_result ns_profile_reader_next(ns_profile_reader *r, ns_profile *p,
                                              ns_profile_unknown_keys *unknown, ns_error *err)
{
	unknown->count = 0;
	ns_error_clear(err);
	switch (r->mode) {
	case MODE_START:
		return read_first_record(r, p, unknown, err);
	case MODE_NDJSON:
		return next_ndjson(r, p, unknown, err);
	case MODE_DOCUMENT:
		return next_document(r, p, unknown, err);
	case MODE_ARRAY:
		return next_array_item(r, p, unknown, err);
	case MODE_DONE:
		break;
	}
	return NS_PROFILE_READ_END;
}
