/* Reading rank summary lines back (untrusted input: every value checked, every error located), one line or a
 * stream of them.
 *
 * The line is read as it arrives, by a JSON reader that knows the summary's form (docs/job.md): each value
 * goes straight into the ns_job_rank it describes, and keys the form does not name are skipped. Neither the
 * line's text nor a tree of it is kept, so a summary takes the memory of what it holds (216 bytes a step,
 * 232 a collective: about 1.5 times its text) and no more. A value that is wrong is remembered and the rest
 * of the line still read, so that a line that is no JSON is called so, and one without the version key is
 * "not a nextstep summary", whatever it holds. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_private.h"
#include "util/text.h"
#include "util/vec.h"

/* Integers beyond this are not exact in a JSON number read as a double. */
#define EXACT_MAX 9007199254740992LL
/* Times are offsets from t0 within this (52 days of nanoseconds), so that written again from their earliest
 * time they still fit in EXACT_MAX. */
#define TIME_OFFSET_MAX 4503599627370496LL
/* Keys longer than this are none of the form's (kept cut, for a message). */
#define KEY_MAX 128
/* Values the form does not name may nest this deep (as cJSON allows); deeper is refused, not recursed. */
#define SKIP_DEPTH_MAX 1000
/* The bytes read from a stream at a time. */
#define READ_CHUNK ((size_t)1 << 16)

#define END_OF_LINE (-1)

/* ---- the bytes of one line ---- */

typedef struct {
	ns_input *in; /* NULL: the line is [p, end) alone */
	const unsigned char *p, *end;
	const unsigned char *buf; /* the bytes p is in: chunk, or the line given whole */
	unsigned char *chunk;     /* a stream's read buffer */
	long long base;       /* offset in the input of buf[0] (of the line's first byte when in is NULL) */
	long long line_start; /* offset in the input of the current line's first byte */
	bool newline_ends;    /* '\n' ends the line (a stream); inside a line given whole it is a blank */
	bool eof;
	ns_status stopped; /* NS_ERR_IO or NS_ERR_LIMIT when the input stopped the reading */
} source;

static int refill(source *s)
{
	ssize_t got;

	if (s->in == NULL || s->eof || s->stopped != NS_OK)
		return END_OF_LINE;
	s->base += s->end - s->buf;
	s->p = s->end = s->buf = s->chunk;
	if (s->base - s->line_start > (long long)NS_JOB_LINE_MAX) {
		s->stopped = NS_ERR_LIMIT;
		return END_OF_LINE;
	}
	got = ns_input_read(s->in, s->chunk, READ_CHUNK);
	if (got <= 0) {
		s->eof = true;
		if (got < 0)
			s->stopped = NS_ERR_IO;
		return END_OF_LINE;
	}
	s->end += got;
	return *s->p;
}

static inline int peek(source *s)
{
	return s->p < s->end ? *s->p : refill(s);
}

/* The offset in the line of the next byte. */
static long long offset_in_line(const source *s)
{
	return s->base + (s->p - s->buf) - s->line_start;
}

/* ---- the parse ---- */

typedef struct {
	source src;
	ns_error *err;
	int64_t t0;
	/* The first wrong value (its message is in err) or an out-of-memory: the rest of the line is only
	 * read through, nothing kept. */
	bool failed, nomem;
	bool syntax; /* not JSON (or nested too deep): the parse stopped; err holds why */
	bool has_version;
	int64_t version;
	int64_t time_min, time_max; /* over every time read, as offsets from t0 */
} parser;

static bool syntax_error(parser *j, ns_status status, const char *what)
{
	if (!j->syntax) {
		j->syntax = true;
		ns_error_set(j->err, status, "%s", what);
		if (j->err != NULL)
			ns_error_at(j->err, -1, offset_in_line(&j->src), -1);
	}
	return false;
}

static bool malformed(parser *j)
{
	return syntax_error(j, NS_ERR_SYNTAX, "malformed JSON");
}

/* Wrong values: the first is the line's error. key names the value, sub the key inside it ("c"'s cause) or
 * NULL. Returns true: the line is still read through. */
static bool bad_in(parser *j, ns_status status, const char *key, const char *sub, const char *what)
{
	if (j->failed)
		return true;
	j->failed = true;
	if (sub != NULL)
		ns_error_set(j->err, status, "summary: \"%s\".\"%.40s\": %s", key, sub, what);
	else if (key != NULL)
		ns_error_set(j->err, status, "summary: \"%s\": %s", key, what);
	else
		ns_error_set(j->err, status, "summary: %s", what);
	return true;
}

/* A wrong value placed by where ("\"steps\"[3]") rather than by key. */
static bool bad_at(parser *j, ns_status status, const char *where, const char *what)
{
	if (j->failed)
		return true;
	j->failed = true;
	ns_error_set(j->err, status, "summary: %s: %s", where, what);
	return true;
}

static bool bad(parser *j, const char *key, const char *what)
{
	return bad_in(j, NS_ERR_VALUE, key, NULL, what);
}

static bool out_of_memory(parser *j)
{
	j->nomem = true;
	j->failed = true;
	return true;
}

static int skip_blanks(parser *j)
{
	for (;;) {
		int c = peek(&j->src);
		if (c == ' ' || c == '\t' || c == '\r' || (c == '\n' && !j->src.newline_ends))
			j->src.p++;
		else
			return c;
	}
}

static bool expect(parser *j, int want)
{
	if (skip_blanks(j) != want)
		return malformed(j);
	j->src.p++;
	return true;
}

/* Where a string's bytes go: a buffer of cap bytes (grown when grow, else the rest dropped), NUL-terminated;
 * a NUL in the string ends it, as it ends a C string. p NULL: the string is only read through. */
typedef struct {
	char *p;
	size_t n, cap;
	bool grow, full;
} text_sink;

static void sink_byte(parser *j, text_sink *t, unsigned char c)
{
	if (t == NULL || t->full)
		return;
	if (c == 0) {
		t->full = true;
		return;
	}
	if (t->n + 1 >= t->cap) {
		char *grown = t->grow ? ns_grow(t->p, &t->cap, t->n + 2, 1) : NULL;
		if (grown == NULL) {
			t->full = true;
			if (t->grow)
				out_of_memory(j);
			return;
		}
		t->p = grown;
	}
	t->p[t->n++] = (char)c;
	t->p[t->n] = '\0';
}

static void sink_code_point(parser *j, text_sink *t, unsigned long cp)
{
	if (cp < 0x80) {
		sink_byte(j, t, (unsigned char)cp);
	} else if (cp < 0x800) {
		sink_byte(j, t, (unsigned char)(0xC0 | (cp >> 6)));
		sink_byte(j, t, (unsigned char)(0x80 | (cp & 0x3F)));
	} else if (cp < 0x10000) {
		sink_byte(j, t, (unsigned char)(0xE0 | (cp >> 12)));
		sink_byte(j, t, (unsigned char)(0x80 | ((cp >> 6) & 0x3F)));
		sink_byte(j, t, (unsigned char)(0x80 | (cp & 0x3F)));
	} else {
		sink_byte(j, t, (unsigned char)(0xF0 | (cp >> 18)));
		sink_byte(j, t, (unsigned char)(0x80 | ((cp >> 12) & 0x3F)));
		sink_byte(j, t, (unsigned char)(0x80 | ((cp >> 6) & 0x3F)));
		sink_byte(j, t, (unsigned char)(0x80 | (cp & 0x3F)));
	}
}

static bool read_hex4(parser *j, unsigned long *out)
{
	*out = 0;
	for (int i = 0; i < 4; i++) {
		int c = peek(&j->src), d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return malformed(j);
		*out = *out << 4 | (unsigned long)d;
		j->src.p++;
	}
	return true;
}

/* \uXXXX, with a surrogate pair's second half; a lone surrogate is malformed. */
static bool read_unicode_escape(parser *j, text_sink *t)
{
	unsigned long hi, lo;

	if (!read_hex4(j, &hi))
		return false;
	if (hi >= 0xDC00 && hi <= 0xDFFF)
		return malformed(j);
	if (hi >= 0xD800 && hi <= 0xDBFF) {
		if (peek(&j->src) != '\\')
			return malformed(j);
		j->src.p++;
		if (peek(&j->src) != 'u')
			return malformed(j);
		j->src.p++;
		if (!read_hex4(j, &lo))
			return false;
		if (lo < 0xDC00 || lo > 0xDFFF)
			return malformed(j);
		hi = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
	}
	sink_code_point(j, t, hi);
	return true;
}

static bool read_escape(parser *j, text_sink *t)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	int c = peek(&j->src);
	const char *at = c > 0 ? strchr(from, c) : NULL;

	if (c == 'u') {
		j->src.p++;
		return read_unicode_escape(j, t);
	}
	if (at == NULL || c == 0)
		return malformed(j);
	j->src.p++;
	sink_byte(j, t, (unsigned char)to[at - from]);
	return true;
}

/* A JSON string (the next byte is its quote), decoded into t (NULL: read through). Bytes that are not
 * UTF-8 are kept as they are: whoever keeps the text makes it UTF-8. */
static bool read_string(parser *j, text_sink *t)
{
	j->src.p++;
	for (;;) {
		const unsigned char *p = j->src.p, *end = j->src.end;
		while (p < end && *p != '"' && *p != '\\' && *p != '\n') {
			sink_byte(j, t, *p);
			p++;
		}
		j->src.p = p;
		int c = peek(&j->src);
		if (c == '"') {
			j->src.p++;
			return true;
		}
		if (c == END_OF_LINE || c == '\n')
			return malformed(j);
		if (c == '\\') {
			j->src.p++;
			if (!read_escape(j, t))
				return false;
		}
	}
}

/* A number: integral when it is an integer that a double holds exactly (|v| <= 2^53), as every number of the
 * form is. Written as a JSON number another tool may give an integer a fraction or an exponent (1e3). */
typedef struct {
	bool integral;
	int64_t v;
} number;

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

typedef struct {
	char text[64];
	size_t n;
	bool cut; /* longer than text holds: no exact integer */
} number_text;

static int take(parser *j, number_text *t, int c)
{
	if (t->n < sizeof(t->text) - 1)
		t->text[t->n++] = (char)c;
	else
		t->cut = true;
	j->src.p++;
	return peek(&j->src);
}

static int take_digits(parser *j, number_text *t, int c)
{
	while (is_digit(c))
		c = take(j, t, c);
	return c;
}

static void number_value(number_text *t, bool fraction, number *out)
{
	out->integral = false;
	out->v = 0;
	t->text[t->n] = '\0';
	if (t->cut)
		return;
	if (!fraction && t->n <= 17) { /* at most 16 digits and a sign: exact in an int64_t */
		const char *p = t->text + (t->text[0] == '-');
		int64_t v = 0;
		for (; *p != '\0'; p++)
			v = v * 10 + (*p - '0');
		if (v <= EXACT_MAX) {
			out->integral = true;
			out->v = t->text[0] == '-' ? -v : v;
		}
		return;
	}
	double d = strtod(t->text, NULL);
	if (isfinite(d) && fabs(d) <= (double)EXACT_MAX && d == floor(d)) {
		out->integral = true;
		out->v = (int64_t)d;
	}
}

static bool read_number(parser *j, number *out)
{
	number_text t = {{0}, 0, false};
	bool fraction = false;
	int c = peek(&j->src);

	if (c == '-')
		c = take(j, &t, c);
	if (c == '0')
		c = take(j, &t, c);
	else if (is_digit(c))
		c = take_digits(j, &t, c);
	else
		return malformed(j);
	if (c == '.') {
		fraction = true;
		c = take(j, &t, c);
		if (!is_digit(c))
			return malformed(j);
		c = take_digits(j, &t, c);
	}
	if (c == 'e' || c == 'E') {
		fraction = true;
		c = take(j, &t, c);
		if (c == '+' || c == '-')
			c = take(j, &t, c);
		if (!is_digit(c))
			return malformed(j);
		take_digits(j, &t, c);
	}
	number_value(&t, fraction, out);
	return true;
}

static bool read_literal(parser *j, const char *word)
{
	for (; *word != '\0'; word++) {
		if (peek(&j->src) != *word)
			return malformed(j);
		j->src.p++;
	}
	return true;
}

/* The kind of the next value, told by its first byte (blanks skipped). */
typedef enum { V_STRING, V_NUMBER, V_OBJECT, V_ARRAY, V_TRUE, V_FALSE, V_NULL, V_NONE } value_kind;

static value_kind next_kind(parser *j)
{
	int c = skip_blanks(j);

	switch (c) {
	case '"':
		return V_STRING;
	case '{':
		return V_OBJECT;
	case '[':
		return V_ARRAY;
	case 't':
		return V_TRUE;
	case 'f':
		return V_FALSE;
	case 'n':
		return V_NULL;
	default:
		return c == '-' || is_digit(c) ? V_NUMBER : V_NONE;
	}
}

static bool skip_value(parser *j, int depth);

/* The members of an object (the next byte is its brace): for each, member() reads the value after the
 * colon. Once a value was wrong, the rest is read through. */
typedef bool (*member_fn)(parser *j, const char *key, void *ctx);

static bool read_object(parser *j, member_fn member, void *ctx, int depth)
{
	j->src.p++;
	if (skip_blanks(j) == '}') {
		j->src.p++;
		return true;
	}
	for (;;) {
		char key[KEY_MAX];
		text_sink k = {key, 0, sizeof(key), false, false};
		key[0] = '\0';
		if (skip_blanks(j) != '"')
			return malformed(j);
		if (!read_string(j, &k) || !expect(j, ':'))
			return false;
		if (!(j->failed || member == NULL ? skip_value(j, depth + 1) : member(j, key, ctx)))
			return false;
		int c = skip_blanks(j);
		if (c != ',' && c != '}')
			return malformed(j);
		j->src.p++;
		if (c == '}')
			return true;
	}
}

/* The items of an array (the next byte is its bracket), each read by item() with its index. */
typedef bool (*item_fn)(parser *j, size_t index, void *ctx);

static bool read_array(parser *j, item_fn item, void *ctx, int depth)
{
	j->src.p++;
	if (skip_blanks(j) == ']') {
		j->src.p++;
		return true;
	}
	for (size_t i = 0;; i++) {
		if (!(j->failed || item == NULL ? skip_value(j, depth + 1) : item(j, i, ctx)))
			return false;
		int c = skip_blanks(j);
		if (c != ',' && c != ']')
			return malformed(j);
		j->src.p++;
		if (c == ']')
			return true;
	}
}

/* Any value, read through (syntax checked, nothing kept). */
static bool skip_value(parser *j, int depth)
{
	number n;

	if (depth > SKIP_DEPTH_MAX)
		return syntax_error(j, NS_ERR_LIMIT, "JSON nested more than 1000 levels deep");
	switch (next_kind(j)) {
	case V_STRING:
		return read_string(j, NULL);
	case V_NUMBER:
		return read_number(j, &n);
	case V_OBJECT:
		return read_object(j, NULL, NULL, depth);
	case V_ARRAY:
		return read_array(j, NULL, NULL, depth);
	case V_TRUE:
		return read_literal(j, "true");
	case V_FALSE:
		return read_literal(j, "false");
	case V_NULL:
		return read_literal(j, "null");
	default:
		return malformed(j);
	}
}

/* ---- values of the form ---- */

/* An integer; anything else is read through and *ok is false. */
static bool read_int(parser *j, int64_t *out, bool *ok)
{
	number n = {false, 0};

	*ok = false;
	*out = 0;
	if (next_kind(j) != V_NUMBER)
		return skip_value(j, 1);
	if (!read_number(j, &n))
		return false;
	*ok = n.integral;
	*out = n.v;
	return true;
}

/* An integer of key; a wrong one is the line's error. */
static bool int_of(parser *j, const char *key, int64_t *out)
{
	bool ok;

	if (!read_int(j, out, &ok))
		return false;
	return ok || bad(j, key, "not an integer (at most 2^53 in size)");
}

static bool nonneg_of(parser *j, const char *key, int64_t *out)
{
	if (!int_of(j, key, out))
		return false;
	return j->failed || *out >= 0 || bad(j, key, "negative");
}

static void note_time(parser *j, int64_t off)
{
	if (off < j->time_min)
		j->time_min = off;
	if (off > j->time_max)
		j->time_max = off;
}

/* A time: an offset from t0 (t0 is added when the line is read: it may come after the times). */
static bool time_of(parser *j, const char *key, int64_t *out)
{
	if (!int_of(j, key, out) || j->failed)
		return !j->syntax;
	if (*out > TIME_OFFSET_MAX || *out < -TIME_OFFSET_MAX)
		return bad(j, key, "time out of range");
	note_time(j, *out);
	return true;
}

/* A string of key into buf as UTF-8, cut between characters. */
static bool text_of(parser *j, const char *key, char *buf, size_t size)
{
	char raw[NS_SPLIT_COLL_TEXT > NS_TRACE_DEVICE_NAME_MAX ? NS_SPLIT_COLL_TEXT + 8
	                                                       : NS_TRACE_DEVICE_NAME_MAX + 8];
	text_sink t = {raw, 0, sizeof(raw), false, false};

	raw[0] = '\0';
	if (next_kind(j) != V_STRING)
		return skip_value(j, 1) && bad(j, key, "not a string");
	if (!read_string(j, &t))
		return false;
	/* raw holds more than buf: the cut in it is past what ns_utf8_clean keeps */
	ns_utf8_clean(raw, t.n, buf, size);
	return true;
}

/* A key of the form met twice: which to believe? */
static bool once(parser *j, unsigned *seen, unsigned bit, const char *key)
{
	if (*seen & bit) {
		bad_in(j, NS_ERR_KEY, key, NULL, "repeated key");
		return false;
	}
	*seen |= bit;
	return true;
}

/* Room for item n of an array of elem-byte items: grown by a quarter (an array of a large summary is most of
 * its memory; a doubling would leave up to half of it unused), trimmed to size when the array ends. */
static void *room_for(parser *j, void *items, size_t *cap, size_t n, size_t elem)
{
	size_t more = *cap < 64 ? 16 : *cap / 4;
	void *grown = NULL;

	if (n < *cap)
		return items;
	if (n <= SIZE_MAX / elem - more)
		grown = realloc(items, (n + more) * elem);
	if (grown == NULL) {
		out_of_memory(j);
		return NULL;
	}
	*cap = n + more;
	return grown;
}

/* items cut to n (the same block when the system keeps it). */
static void *trim(void *items, size_t n, size_t elem)
{
	void *fit;

	if (n == 0) {
		free(items);
		return NULL;
	}
	fit = realloc(items, n * elem);
	if (fit == NULL)
		return items; /* the larger block still holds them */
	return fit;
}

/* ---- a window ---- */

enum {
	W_STEP = 1,
	W_START = 2,
	W_DUR = 4,
	W_B = 8,
	W_C = 16,
	W_HIDDEN = 32,
	W_KERNELS = 64,
	W_WARMUP = 128,
	W_BUSY = 256,
	W_STALL = 512
};

typedef struct {
	ns_split_window *w;
	unsigned seen;
	int nb; /* buckets read */
	int64_t bucket_sum;
	int64_t *stall; /* a step's "stall" (NULL: the key is skipped, as in "overall") */
} window_ctx;

static bool bucket_item(parser *j, size_t i, void *ctx)
{
	window_ctx *x = ctx;
	number n = {false, 0};

	if (next_kind(j) != V_NUMBER)
		return skip_value(j, 1) && bad(j, "b", "a bucket is not a non-negative integer");
	if (!read_number(j, &n))
		return false;
	if (!n.integral || n.v < 0)
		return bad(j, "b", "a bucket is not a non-negative integer");
	if (i >= NS_REGIME_COUNT)
		return bad(j, "b", "not one number per bucket");
	x->w->bucket_ns[i] = n.v;
	x->bucket_sum += n.v;
	x->nb++;
	return true;
}

static bool cause_member(parser *j, const char *key, void *ctx)
{
	window_ctx *x = ctx;
	ns_cause k;
	bool ok;
	int64_t v = 0;

	if (!ns_cause_from_key(key, &k))
		return skip_value(j, 2) && bad_in(j, NS_ERR_VALUE, "c", key, "unknown cause");
	if (!read_int(j, &v, &ok))
		return false;
	if (!ok || v < 0)
		return bad_in(j, NS_ERR_VALUE, "c", key, "not an integer within its bucket");
	x->w->cause_ns[k] = v;
	return true;
}

static bool window_member(parser *j, const char *key, void *ctx)
{
	window_ctx *x = ctx;
	ns_split_window *w = x->w;
	int64_t kernels = 0;

	if (strcmp(key, "step") == 0)
		return once(j, &x->seen, W_STEP, key) ? int_of(j, key, &w->step) : skip_value(j, 1);
	if (strcmp(key, "start") == 0)
		return once(j, &x->seen, W_START, key) ? time_of(j, key, &w->start_ns) : skip_value(j, 1);
	if (strcmp(key, "dur") == 0)
		return once(j, &x->seen, W_DUR, key) ? nonneg_of(j, key, &w->dur_ns) : skip_value(j, 1);
	if (strcmp(key, "hidden") == 0)
		return once(j, &x->seen, W_HIDDEN, key) ? nonneg_of(j, key, &w->comm_overlapped_ns)
		                                        : skip_value(j, 1);
	if (strcmp(key, "kernels") == 0) {
		if (!once(j, &x->seen, W_KERNELS, key))
			return skip_value(j, 1);
		if (!nonneg_of(j, key, &kernels))
			return false;
		w->kernels = kernels > (int64_t)LONG_MAX ? LONG_MAX : (long)kernels;
		return true;
	}
	if (strcmp(key, "stall") == 0 && x->stall != NULL) /* the host stalls' time in a step; came later */
		return once(j, &x->seen, W_STALL, key) ? nonneg_of(j, key, x->stall) : skip_value(j, 1);
	if (strcmp(key, "busy") == 0) /* the kernel time; came after the first summaries */
		return once(j, &x->seen, W_BUSY, key) ? nonneg_of(j, key, &w->kernel_ns) : skip_value(j, 1);
	if (strcmp(key, "b") == 0) {
		if (!once(j, &x->seen, W_B, key))
			return skip_value(j, 1);
		if (next_kind(j) != V_ARRAY)
			return skip_value(j, 1) && bad(j, key, "not an array");
		return read_array(j, bucket_item, x, 1);
	}
	if (strcmp(key, "c") == 0) {
		if (!once(j, &x->seen, W_C, key))
			return skip_value(j, 1);
		if (next_kind(j) != V_OBJECT)
			return skip_value(j, 1) && bad(j, key, "not an object");
		return read_object(j, cause_member, x, 1);
	}
	if (strcmp(key, "warmup") == 0 && once(j, &x->seen, W_WARMUP, key)) {
		w->warmup = next_kind(j) == V_TRUE;
		return skip_value(j, 1);
	}
	return skip_value(j, 1);
}

/* What a window's members say together: every required one there, the buckets summing to dur, each cause
 * within its bucket. */
static void check_window(parser *j, const window_ctx *x)
{
	static const struct {
		unsigned bit;
		const char *key;
	} required[] = {{W_STEP, "step"}, {W_START, "start"},   {W_DUR, "dur"},
	                {W_B, "b"},       {W_HIDDEN, "hidden"}, {W_KERNELS, "kernels"}};
	const ns_split_window *w = x->w;

	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]) && !j->failed; i++)
		if (!(x->seen & required[i].bit))
			bad(j, required[i].key, "missing");
	if (j->failed)
		return;
	note_time(j, w->start_ns + w->dur_ns);
	if (x->nb != NS_REGIME_COUNT) {
		bad(j, "b", "not one number per bucket");
		return;
	}
	if (x->bucket_sum != w->dur_ns) {
		bad(j, "b", "buckets do not sum to dur");
		return;
	}
	if (x->stall != NULL && *x->stall > w->dur_ns) {
		bad(j, "stall", "more than the step's dur");
		return;
	}
	for (int c = 0; c < NS_CAUSE_COUNT; c++)
		if (w->cause_ns[c] > w->bucket_ns[ns_cause_bucket((ns_cause)c)]) {
			char key[64];
			ns_cause_key((ns_cause)c, key, sizeof(key));
			bad_in(j, NS_ERR_VALUE, "c", key, "not an integer within its bucket");
			return;
		}
}

/* stall: where a step's "stall" goes (-1 when it has none); NULL for a window that has no such key. */
static bool read_window(parser *j, ns_split_window *w, int64_t *stall)
{
	window_ctx x = {w, 0, 0, 0, stall};

	memset(w, 0, sizeof(*w));
	w->step = -1;
	w->kernel_ns = -1; /* without "busy", GPU-Util is unknown */
	if (next_kind(j) != V_OBJECT)
		return skip_value(j, 1) && bad(j, NULL, "a window is not an object");
	if (!read_object(j, window_member, &x, 1))
		return false;
	if (!j->failed)
		check_window(j, &x);
	return true;
}

/* ---- a collective ---- */

enum {
	C_START = 1,
	C_END = 2,
	C_STEP = 4,
	C_SEQ = 8,
	C_IN = 16,
	C_OUT = 32,
	C_NAME = 64,
	C_GROUP = 128,
	C_DTYPE = 256,
	C_EXPOSED = 512
};

typedef struct {
	ns_split_collective *c;
	unsigned seen;
} coll_ctx;

typedef struct {
	int64_t v[3];
	int n;
} piece_ctx;

static bool piece_value(parser *j, size_t i, void *ctx)
{
	piece_ctx *x = ctx;
	bool ok;
	int64_t v = 0;

	if (!read_int(j, &v, &ok))
		return false;
	if (i >= 3)
		return bad(j, "exposed", "a piece is not [start, end, ns]");
	if (!ok)
		return bad(j, "exposed", "a piece holds a non-integer");
	x->v[i] = v;
	x->n++;
	return true;
}

static bool piece_item(parser *j, size_t i, void *ctx)
{
	ns_split_collective *c = ctx;
	piece_ctx p = {{0, 0, 0}, 0};

	if (next_kind(j) != V_ARRAY)
		return skip_value(j, 1) && bad(j, "exposed", "a piece is not [start, end, ns]");
	if (!read_array(j, piece_value, &p, 2) || j->failed)
		return !j->syntax;
	if (p.n != 3)
		return bad(j, "exposed", "a piece is not [start, end, ns]");
	if (i >= NS_SPLIT_COLL_PIECES)
		return bad(j, "exposed", "too many pieces");
	if (p.v[0] > TIME_OFFSET_MAX || p.v[0] < -TIME_OFFSET_MAX || p.v[1] > TIME_OFFSET_MAX ||
	    p.v[1] < -TIME_OFFSET_MAX)
		return bad(j, "exposed", "a piece's time out of range");
	note_time(j, p.v[0]);
	note_time(j, p.v[1]);
	c->piece[c->npieces++] = (ns_split_piece){p.v[0], p.v[1], p.v[2]};
	return true;
}

static bool coll_text(parser *j, coll_ctx *x, unsigned bit, const char *key, char *buf, size_t size)
{
	return once(j, &x->seen, bit, key) ? text_of(j, key, buf, size) : skip_value(j, 1);
}

static bool coll_member(parser *j, const char *key, void *ctx)
{
	coll_ctx *x = ctx;
	ns_split_collective *c = x->c;

	if (strcmp(key, "start") == 0)
		return once(j, &x->seen, C_START, key) ? time_of(j, key, &c->start_ns) : skip_value(j, 1);
	if (strcmp(key, "end") == 0)
		return once(j, &x->seen, C_END, key) ? time_of(j, key, &c->end_ns) : skip_value(j, 1);
	if (strcmp(key, "step") == 0)
		return once(j, &x->seen, C_STEP, key) ? int_of(j, key, &c->step) : skip_value(j, 1);
	if (strcmp(key, "seq") == 0)
		return once(j, &x->seen, C_SEQ, key) ? int_of(j, key, &c->seq) : skip_value(j, 1);
	if (strcmp(key, "in") == 0)
		return once(j, &x->seen, C_IN, key) ? int_of(j, key, &c->in_nelems) : skip_value(j, 1);
	if (strcmp(key, "out") == 0)
		return once(j, &x->seen, C_OUT, key) ? int_of(j, key, &c->out_nelems) : skip_value(j, 1);
	if (strcmp(key, "name") == 0)
		return coll_text(j, x, C_NAME, key, c->name, sizeof(c->name));
	if (strcmp(key, "group") == 0)
		return coll_text(j, x, C_GROUP, key, c->group, sizeof(c->group));
	if (strcmp(key, "dtype") == 0)
		return coll_text(j, x, C_DTYPE, key, c->dtype, sizeof(c->dtype));
	if (strcmp(key, "exposed") == 0) {
		if (!once(j, &x->seen, C_EXPOSED, key))
			return skip_value(j, 1);
		if (next_kind(j) != V_ARRAY)
			return skip_value(j, 1) && bad(j, key, "not an array");
		return read_array(j, piece_item, c, 1);
	}
	return skip_value(j, 1);
}

/* The pieces lie inside their collective, in order (checked once its start and end are known). */
static void check_collective(parser *j, const coll_ctx *x)
{
	static const struct {
		unsigned bit;
		const char *key;
	} required[] = {{C_START, "start"}, {C_END, "end"}, {C_STEP, "step"}, {C_EXPOSED, "exposed"}};
	ns_split_collective *c = x->c;

	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]) && !j->failed; i++)
		if (!(x->seen & required[i].bit))
			bad(j, required[i].key, "missing");
	if (j->failed)
		return;
	if (c->end_ns < c->start_ns) {
		bad(j, "end", "a collective ends before it starts");
		return;
	}
	for (unsigned i = 0; i < c->npieces; i++) {
		const ns_split_piece *p = &c->piece[i];
		if (p->end_ns < p->start_ns || p->ns < 0 || p->ns > p->end_ns - p->start_ns ||
		    p->start_ns < c->start_ns || p->end_ns > c->end_ns ||
		    (i > 0 && p->start_ns < c->piece[i - 1].end_ns)) {
			bad(j, "exposed", "a piece is not in order inside its collective");
			return;
		}
		c->exposed_ns += p->ns;
	}
}

static bool read_collective(parser *j, ns_split_collective *c)
{
	coll_ctx x = {c, 0};

	memset(c, 0, sizeof(*c));
	c->step = c->seq = c->in_nelems = c->out_nelems = -1;
	if (next_kind(j) != V_OBJECT)
		return skip_value(j, 1) && bad(j, NULL, "a collective is not an object");
	if (!read_object(j, coll_member, &x, 1))
		return false;
	if (!j->failed)
		check_collective(j, &x);
	return true;
}

/* ---- a device's evidence (route_evidence.h) ---- */

/* true or false of key into *out. */
static bool bool_of(parser *j, const char *key, bool *out)
{
	value_kind k = next_kind(j);

	if (k != V_TRUE && k != V_FALSE)
		return skip_value(j, 2) && bad_in(j, NS_ERR_VALUE, "evidence", key, "not true or false");
	*out = k == V_TRUE;
	return read_literal(j, k == V_TRUE ? "true" : "false");
}

/* A non-negative integer of "evidence"."key". */
static bool evidence_ns(parser *j, const char *key, int64_t *out)
{
	bool ok;
	int64_t v = 0;

	if (!read_int(j, &v, &ok))
		return false;
	if (!ok || v < 0)
		return bad_in(j, NS_ERR_VALUE, "evidence", key, "not a non-negative integer (at most 2^53)");
	*out = v;
	return true;
}

typedef struct {
	ns_job_device *d;
	int host;      /* ns_evidence_host of the cause being read */
	unsigned seen; /* keys met, of the object being read */
	int64_t v[2];  /* a frame's [name, ns] being read: ns */
	int nv;        /* items of it read */
	char name[NS_JOB_FRAME_NAME_MAX];
} evidence_ctx;

static bool frame_value(parser *j, size_t i, void *ctx)
{
	evidence_ctx *x = ctx;

	if (i == 0) {
		char raw[NS_JOB_FRAME_NAME_MAX + 8];
		text_sink t = {raw, 0, sizeof(raw), false, false};
		raw[0] = '\0';
		if (next_kind(j) != V_STRING)
			return skip_value(j, 3) &&
			       bad_in(j, NS_ERR_VALUE, "evidence", "frames", "a frame is not [name, ns]");
		if (!read_string(j, &t))
			return false;
		ns_utf8_clean(raw, t.n, x->name, sizeof(x->name));
		x->nv++;
		return true;
	}
	if (i > 1)
		return skip_value(j, 3) &&
		       bad_in(j, NS_ERR_VALUE, "evidence", "frames", "a frame is not [name, ns]");
	x->nv++;
	return evidence_ns(j, "frames", &x->v[1]);
}

static bool frame_item(parser *j, size_t i, void *ctx)
{
	evidence_ctx *x = ctx;
	ns_evidence_python *p = &x->d->evidence.python[x->host];
	char **slot;

	if (next_kind(j) != V_ARRAY)
		return skip_value(j, 2) &&
		       bad_in(j, NS_ERR_VALUE, "evidence", "frames", "a frame is not [name, ns]");
	x->nv = 0;
	x->v[1] = 0;
	x->name[0] = '\0';
	if (!read_array(j, frame_value, x, 3) || j->failed)
		return !j->syntax;
	if (x->nv != 2)
		return bad_in(j, NS_ERR_VALUE, "evidence", "frames", "a frame is not [name, ns]");
	if (i >= NS_EVIDENCE_FRAMES)
		return bad_in(j, NS_ERR_LIMIT, "evidence", "frames", "more than 3 frames");
	slot = &x->d->frame_names[x->host][i];
	free(*slot);
	if ((*slot = malloc(strlen(x->name) + 1)) == NULL)
		return out_of_memory(j);
	memcpy(*slot, x->name, strlen(x->name) + 1);
	p->frame[i] = (ns_evidence_frame){*slot, x->v[1]};
	p->nframes = i + 1;
	return true;
}

static bool host_member(parser *j, const char *key, void *ctx)
{
	evidence_ctx *x = ctx;

	if (strcmp(key, "framed") == 0)
		return once(j, &x->seen, 1, key)
		           ? evidence_ns(j, key, &x->d->evidence.python[x->host].framed_ns)
		           : skip_value(j, 3);
	if (strcmp(key, "frames") == 0) {
		if (!once(j, &x->seen, 2, key))
			return skip_value(j, 3);
		if (next_kind(j) != V_ARRAY)
			return skip_value(j, 3) && bad_in(j, NS_ERR_VALUE, "evidence", key, "not an array");
		return read_array(j, frame_item, x, 3);
	}
	return skip_value(j, 3);
}

static bool python_member(parser *j, const char *key, void *ctx)
{
	evidence_ctx *x = ctx;
	static const char *const hosts[NS_EVIDENCE_HOSTS] = {"idle.host_gap", "overhead.launch"};
	unsigned seen = x->seen;

	for (int h = 0; h < NS_EVIDENCE_HOSTS; h++) {
		if (strcmp(key, hosts[h]) != 0)
			continue;
		if (!once(j, &seen, 1u << h, key))
			return skip_value(j, 2);
		if (next_kind(j) != V_OBJECT)
			return skip_value(j, 2) && bad_in(j, NS_ERR_VALUE, "evidence", key, "not an object");
		x->host = h;
		x->seen = 0;
		bool ok = read_object(j, host_member, x, 2);
		x->seen = seen;
		return ok;
	}
	return skip_value(j, 2);
}

/* {"memory", "layout", "compute", "fp32"} and {"exposed", "tp"}: times of a class and of its part; a roof's
 * seven times (roof_member). */
typedef struct {
	const char *const *keys;
	int64_t *to[8];
	unsigned seen;
} times_ctx;

static bool times_member(parser *j, const char *key, void *ctx)
{
	times_ctx *x = ctx;

	for (int i = 0; x->keys[i] != NULL; i++)
		if (strcmp(key, x->keys[i]) == 0)
			return once(j, &x->seen, 1u << i, key) ? evidence_ns(j, key, x->to[i])
			                                       : skip_value(j, 2);
	return skip_value(j, 2);
}

static bool evidence_times(parser *j, const char *key, times_ctx *x)
{
	if (next_kind(j) != V_OBJECT)
		return skip_value(j, 2) && bad_in(j, NS_ERR_VALUE, "evidence", key, "not an object");
	return read_object(j, times_member, x, 2);
}

static bool program_kind(parser *j, ns_program_kind *out)
{
	static const char *const kinds[] = {
	    [NS_PROGRAM_UNKNOWN] = "unknown", [NS_PROGRAM_PYTHON] = "python", [NS_PROGRAM_NATIVE] = "native"};
	char word[16];
	text_sink t = {word, 0, sizeof(word), false, false};

	word[0] = '\0';
	if (next_kind(j) != V_STRING)
		return skip_value(j, 3) &&
		       bad_in(j, NS_ERR_VALUE, "evidence", "program", "not python, native or unknown");
	if (!read_string(j, &t))
		return false;
	for (int k = 0; k < (int)(sizeof(kinds) / sizeof(kinds[0])); k++)
		if (strcmp(word, kinds[k]) == 0) {
			*out = (ns_program_kind)k;
			return true;
		}
	return bad_in(j, NS_ERR_VALUE, "evidence", "program", "not python, native or unknown");
}

static bool nsys_member(parser *j, const char *key, void *ctx)
{
	evidence_ctx *x = ctx;
	ns_program_info *p = &x->d->evidence.program;

	if (strcmp(key, "program") == 0)
		return once(j, &x->seen, 1, key) ? program_kind(j, &p->kind) : skip_value(j, 3);
	if (strcmp(key, "osrt") == 0)
		return once(j, &x->seen, 2, key) ? bool_of(j, key, &p->osrt) : skip_value(j, 3);
	if (strcmp(key, "cpu_samples") == 0)
		return once(j, &x->seen, 4, key) ? bool_of(j, key, &p->cpu_samples) : skip_value(j, 3);
	if (strcmp(key, "samples_read") == 0)
		return once(j, &x->seen, 8, key) ? bool_of(j, key, &p->samples_read) : skip_value(j, 3);
	if (strcmp(key, "mpi") == 0)
		return once(j, &x->seen, 16, key) ? bool_of(j, key, &p->mpi) : skip_value(j, 3);
	return skip_value(j, 3);
}

static bool optimizer_member(parser *j, const char *key, void *ctx)
{
	evidence_ctx *x = ctx;
	ns_route_evidence *e = &x->d->evidence;

	if (strcmp(key, "class") == 0) {
		char raw[sizeof(e->optimizer) + 8];
		text_sink t = {raw, 0, sizeof(raw), false, false};
		if (!once(j, &x->seen, 1, key))
			return skip_value(j, 3);
		raw[0] = '\0';
		if (next_kind(j) != V_STRING)
			return skip_value(j, 3) && bad_in(j, NS_ERR_VALUE, "evidence", key, "not a string");
		if (!read_string(j, &t))
			return false;
		/* shown in the fix's text: escaped as the trace's reader escapes it (a summary that trace
		 * wrote has no control left, and its backslashes stay as they are) */
		ns_text_escape(raw, t.n, e->optimizer, sizeof(e->optimizer));
		return true;
	}
	if (strcmp(key, "fused") == 0)
		return once(j, &x->seen, 2, key) ? bool_of(j, key, &e->optimizer_fused) : skip_value(j, 3);
	if (strcmp(key, "launch") == 0)
		return once(j, &x->seen, 4, key) ? evidence_ns(j, key, &e->optimizer_launch_ns)
		                                 : skip_value(j, 3);
	return skip_value(j, 3);
}

/* An object member of "evidence", read by member with a fresh set of keys met. */
static bool evidence_object(parser *j, const char *key, member_fn member, evidence_ctx *x)
{
	unsigned seen = x->seen;
	bool ok;

	if (next_kind(j) != V_OBJECT)
		return skip_value(j, 2) && bad_in(j, NS_ERR_VALUE, "evidence", key, "not an object");
	x->seen = 0;
	ok = read_object(j, member, x, 2);
	x->seen = seen;
	return ok;
}

enum {
	E_FRAMES = 1,
	E_COMPILED = 2,
	E_NSYS = 4,
	E_CAPTURE = 8,
	E_PYTHON = 16,
	E_KERNELS = 32,
	E_INFERENCE = 64,
	E_COLL = 128,
	E_OPTIMIZER = 256,
	E_STALL_IDLE = 512,
	E_ROOF = 1024
};

/* A placed kernel class's times: its parts within its placed time, that within the class's, the fp8 reach
 * within the class's own reach (as ns_troof_roof_times makes them). */
static void check_roof(parser *j, const char *key, const ns_roof_time *t)
{
	if (t->placed_ns <= 0 || t->placed_ns > t->kernel_ns)
		bad_in(j, NS_ERR_VALUE, "roof", key, "placed is not between 1 and the kernel time");
	else if (t->roof_ns > t->placed_ns || t->own_roof_ns > t->placed_ns || t->fp32_ns > t->placed_ns ||
	         t->fp8_ns > t->placed_ns || t->fp8_roof_ns > t->roof_ns)
		bad_in(j, NS_ERR_VALUE, "roof", key, "a part is more than its whole");
}

/* {"compute": {...}, "memory": {...}}: each a kernel class placed on the roofline. */
static bool roof_member(parser *j, const char *key, void *ctx)
{
	static const char *const classes[] = {"compute", "memory", "comm"};
	static const char *const keys[] = {"kernel", "placed",   "roof", "own",
	                                   "fp32",   "fp8_roof", "fp8",  NULL};
	evidence_ctx *x = ctx;

	for (int k = 0; k < NS_KCLASS_COUNT; k++) {
		ns_roof_time *t = &x->d->roof[k];
		if (strcmp(key, classes[k]) != 0)
			continue;
		if (!once(j, &x->seen, 1u << k, key))
			return skip_value(j, 3);
		times_ctx m = {keys,
		               {&t->kernel_ns, &t->placed_ns, &t->roof_ns, &t->own_roof_ns, &t->fp32_ns,
		                &t->fp8_roof_ns, &t->fp8_ns, NULL},
		               0};
		if (next_kind(j) != V_OBJECT)
			return skip_value(j, 3) && bad_in(j, NS_ERR_VALUE, "roof", key, "not an object");
		t->state = NS_ROOF_PLACED;
		if (!read_object(j, times_member, &m, 3))
			return false;
		if (m.seen != 0x7fu)
			return bad_in(j, NS_ERR_VALUE, "roof", key, "not every time given");
		check_roof(j, key, t);
		return true;
	}
	return skip_value(j, 3);
}

static bool evidence_member(parser *j, const char *key, void *ctx)
{
	evidence_ctx *x = ctx;
	ns_route_evidence *e = &x->d->evidence;
	static const char *const kernel_keys[] = {"memory", "layout", "compute", "fp32", NULL};
	static const char *const coll_keys[] = {"exposed", "tp", NULL};

	if (strcmp(key, "frames") == 0)
		return once(j, &x->seen, E_FRAMES, key) ? bool_of(j, key, &e->python_frames)
		                                        : skip_value(j, 2);
	if (strcmp(key, "compiled") == 0)
		return once(j, &x->seen, E_COMPILED, key) ? bool_of(j, key, &e->compiled) : skip_value(j, 2);
	if (strcmp(key, "inference") == 0)
		return once(j, &x->seen, E_INFERENCE, key) ? bool_of(j, key, &e->inference)
		                                           : skip_value(j, 2);
	if (strcmp(key, "capture") == 0)
		return once(j, &x->seen, E_CAPTURE, key) ? evidence_ns(j, key, &e->capture_ns)
		                                         : skip_value(j, 2);
	if (strcmp(key, "nsys") == 0) {
		if (!once(j, &x->seen, E_NSYS, key))
			return skip_value(j, 2);
		e->nsys = true;
		return evidence_object(j, key, nsys_member, x);
	}
	if (strcmp(key, "optimizer") == 0) {
		if (!once(j, &x->seen, E_OPTIMIZER, key))
			return skip_value(j, 2);
		e->optimizer_known = true;
		return evidence_object(j, key, optimizer_member, x);
	}
	if (strcmp(key, "python") == 0)
		return once(j, &x->seen, E_PYTHON, key) ? evidence_object(j, key, python_member, x)
		                                        : skip_value(j, 2);
	if (strcmp(key, "host_stall_idle") == 0) {
		if (!once(j, &x->seen, E_STALL_IDLE, key))
			return skip_value(j, 2);
		e->host_stall_idle_known = true;
		return evidence_ns(j, key, &e->host_stall_idle_ns);
	}
	if (strcmp(key, "kernels") == 0) {
		times_ctx t = {kernel_keys, {&e->memory_ns, &e->layout_ns, &e->compute_ns, &e->fp32_ns}, 0};
		return once(j, &x->seen, E_KERNELS, key) ? evidence_times(j, key, &t) : skip_value(j, 2);
	}
	if (strcmp(key, "roof") == 0)
		return once(j, &x->seen, E_ROOF, key) ? evidence_object(j, key, roof_member, x)
		                                      : skip_value(j, 2);
	if (strcmp(key, "collectives") == 0) {
		times_ctx t = {coll_keys, {&e->coll_exposed_ns, &e->tp_exposed_ns, NULL, NULL}, 0};
		return once(j, &x->seen, E_COLL, key) ? evidence_times(j, key, &t) : skip_value(j, 2);
	}
	return skip_value(j, 2);
}

/* A part within its whole: the layout transforms within the memory kernels, fp32 within compute, the
 * tensor-parallel collectives' exposed time within all of it. */
static void check_evidence(parser *j, const ns_route_evidence *e)
{
	if (e->layout_ns > e->memory_ns)
		bad_in(j, NS_ERR_VALUE, "evidence", "layout", "more than the memory kernels' time");
	else if (e->fp32_ns > e->compute_ns)
		bad_in(j, NS_ERR_VALUE, "evidence", "fp32", "more than the compute kernels' time");
	else if (e->tp_exposed_ns > e->coll_exposed_ns)
		bad_in(j, NS_ERR_VALUE, "evidence", "tp", "more than the collectives' exposed time");
}

static bool read_evidence(parser *j, ns_job_device *d)
{
	evidence_ctx *x;
	bool ok;

	if (next_kind(j) != V_OBJECT)
		return skip_value(j, 1) && bad(j, "evidence", "not an object");
	if ((x = calloc(1, sizeof(*x))) == NULL) /* a frame's name: too large for the stack of a deep parse */
		return out_of_memory(j) && skip_value(j, 1);
	x->d = d;
	ok = read_object(j, evidence_member, x, 1);
	free(x);
	if (ok && !j->failed)
		check_evidence(j, &d->evidence);
	return ok;
}

/* ---- a device ---- */

enum { D_DEVICE = 1, D_NAME = 2, D_OVERALL = 4, D_STEPS = 8, D_COLL = 16, D_EVIDENCE = 32 };

typedef struct {
	ns_job_device *d;
	unsigned seen;
	size_t cap;
	size_t stall_cap; /* of d->step_stall_ns, made at the first step with "stall" */
} device_ctx;

/* Step i's stall time kept once a step of the device has one (0 for the steps without: a summary writes
 * it on every step of a rank with stalls). Running out of memory fails the line (room_for). */
static void keep_stall(parser *j, device_ctx *x, size_t i, int64_t stall)
{
	size_t had = x->d->step_stall_ns != NULL ? x->stall_cap : 0;
	int64_t *grown;

	if (stall < 0 && x->d->step_stall_ns == NULL)
		return;
	if ((grown = room_for(j, x->d->step_stall_ns, &x->stall_cap, i, sizeof(*grown))) == NULL)
		return;
	if (x->stall_cap > had)
		memset(grown + had, 0, (x->stall_cap - had) * sizeof(*grown));
	grown[i] = stall > 0 ? stall : 0;
	x->d->step_stall_ns = grown;
}

static bool step_item(parser *j, size_t i, void *ctx)
{
	device_ctx *x = ctx;
	ns_split_window *grown = room_for(j, x->d->steps, &x->cap, i, sizeof(*grown));
	int64_t stall = -1;

	if (grown == NULL)
		return skip_value(j, 1);
	x->d->steps = grown;
	x->d->nsteps = i + 1;
	if (!read_window(j, &grown[i], &stall))
		return false;
	if (!j->failed)
		keep_stall(j, x, i, stall);
	return true;
}

static bool coll_item(parser *j, size_t i, void *ctx)
{
	device_ctx *x = ctx;
	ns_split_collective *grown = room_for(j, x->d->coll, &x->cap, i, sizeof(*grown));

	if (grown == NULL)
		return skip_value(j, 1);
	x->d->coll = grown;
	x->d->ncoll = i + 1;
	return read_collective(j, &grown[i]);
}

static bool device_list(parser *j, device_ctx *x, unsigned bit, const char *key, item_fn item)
{
	if (!once(j, &x->seen, bit, key))
		return skip_value(j, 1);
	if (next_kind(j) != V_ARRAY)
		return skip_value(j, 1) && bad(j, key, "not an array");
	x->cap = 0;
	return read_array(j, item, x, 1);
}

static bool device_member(parser *j, const char *key, void *ctx)
{
	device_ctx *x = ctx;
	ns_job_device *d = x->d;

	if (strcmp(key, "device") == 0)
		return once(j, &x->seen, D_DEVICE, key) ? int_of(j, key, &d->id) : skip_value(j, 1);
	if (strcmp(key, "name") == 0)
		return once(j, &x->seen, D_NAME, key) ? text_of(j, key, d->name, sizeof(d->name))
		                                      : skip_value(j, 1);
	if (strcmp(key, "overall") == 0)
		return once(j, &x->seen, D_OVERALL, key) ? read_window(j, &d->overall, NULL)
		                                         : skip_value(j, 1);
	if (strcmp(key, "steps") == 0) {
		bool ok = device_list(j, x, D_STEPS, key, step_item);
		d->steps = trim(d->steps, d->nsteps, sizeof(*d->steps));
		if (d->step_stall_ns != NULL)
			d->step_stall_ns = trim(d->step_stall_ns, d->nsteps, sizeof(*d->step_stall_ns));
		return ok;
	}
	if (strcmp(key, "collectives") == 0) {
		bool ok = device_list(j, x, D_COLL, key, coll_item);
		d->coll = trim(d->coll, d->ncoll, sizeof(*d->coll));
		return ok;
	}
	if (strcmp(key, "evidence") == 0) /* came after the first summaries: absent, the stock routes */
		return once(j, &x->seen, D_EVIDENCE, key) ? read_evidence(j, d) : skip_value(j, 1);
	return skip_value(j, 1);
}

/* A split's steps follow each other in time: the merger finds a collective's steps by binary search. */
static void check_steps(parser *j, const ns_job_device *d)
{
	for (size_t i = 1; i < d->nsteps; i++) {
		const ns_split_window *p = &d->steps[i - 1];
		if (d->steps[i].start_ns < p->start_ns + p->dur_ns) {
			char where[64];
			snprintf(where, sizeof(where), "\"steps\"[%zu]", i);
			bad_at(j, NS_ERR_VALUE, where,
			       "starts before the step before it ends (steps follow each other in time)");
			return;
		}
	}
}

/* A split gives each exposed instant to one collective, the earlier: the exposed pieces of a device's
 * collectives, taken in order, follow each other in time (the merger's waiting pass relies on it). */
static void check_pieces(parser *j, const ns_job_device *d)
{
	int64_t end = INT64_MIN;

	for (size_t i = 0; i < d->ncoll; i++) {
		const ns_split_collective *c = &d->coll[i];
		if (c->npieces == 0)
			continue;
		if (c->piece[0].start_ns < end) {
			char where[64];
			snprintf(where, sizeof(where), "\"collectives\"[%zu].\"exposed\"", i);
			bad_at(
			    j, NS_ERR_VALUE, where,
			    "starts before an earlier collective's exposed piece ends (an exposed instant is "
			    "one collective's)");
			return;
		}
		end = c->piece[c->npieces - 1].end_ns;
	}
}

static void check_device(parser *j, const device_ctx *x)
{
	if (!(x->seen & D_DEVICE))
		bad(j, "device", "missing");
	else if (!(x->seen & D_OVERALL))
		bad(j, NULL, "a window is not an object");
	else if (!(x->seen & D_STEPS))
		bad(j, "steps", "missing");
	if (j->failed)
		return;
	check_steps(j, x->d);
	if (!j->failed && !(x->seen & D_COLL))
		bad(j, "collectives", "missing");
	if (!j->failed)
		check_pieces(j, x->d);
}

typedef struct {
	ns_job_rank *k;
	size_t cap;
} devices_ctx;

static bool device_item(parser *j, size_t i, void *ctx)
{
	devices_ctx *x = ctx;
	device_ctx dx;

	if (i >= NS_JOB_MAX_DEVICES) {
		char what[64];
		snprintf(what, sizeof(what), "more than %d", NS_JOB_MAX_DEVICES);
		return skip_value(j, 1) && bad_at(j, NS_ERR_LIMIT, "devices", what);
	}
	dx.d = room_for(j, x->k->dev, &x->cap, i, sizeof(*dx.d));
	if (dx.d == NULL)
		return skip_value(j, 1);
	x->k->dev = dx.d;
	dx.d += i;
	memset(dx.d, 0, sizeof(*dx.d));
	dx.d->id = -1;
	dx.d->overall.step = -1;
	x->k->ndev = i + 1;
	dx.seen = 0;
	dx.cap = 0;
	dx.stall_cap = 0;
	if (next_kind(j) != V_OBJECT)
		return skip_value(j, 1) && bad(j, NULL, "a device is not an object");
	if (!read_object(j, device_member, &dx, 1))
		return false;
	if (!j->failed)
		check_device(j, &dx);
	return true;
}

/* ---- the line ---- */

enum {
	R_VERSION = 1,
	R_RANK = 2,
	R_WORLD = 4,
	R_QUALITY = 8,
	R_FILE = 16,
	R_T0 = 32,
	R_DEVICES = 64,
	R_STALLS = 128,
	R_STALL_NS = 256,
	R_ALLOCS = 512,
	R_ALLOC_NS = 1024
};

typedef struct {
	ns_job_rank *k;
	unsigned seen;
} root_ctx;

static bool read_version(parser *j)
{
	bool ok;
	int64_t v = 0;

	if (!read_int(j, &v, &ok))
		return false;
	j->has_version = ok;
	j->version = v;
	return true;
}

static bool read_rank(parser *j, ns_job_rank *k)
{
	if (next_kind(j) == V_NULL)
		return read_literal(j, "null");
	if (!int_of(j, "rank", &k->rank) || j->failed)
		return !j->syntax;
	if (k->rank < 0 || k->rank >= NS_JOB_MAX_RANKS)
		return bad(j, "rank", "out of range");
	k->has_rank = true;
	return true;
}

static bool read_world(parser *j, ns_job_rank *k)
{
	if (!int_of(j, "world_size", &k->world_size) || j->failed)
		return !j->syntax;
	if (k->world_size < 0 || k->world_size > NS_JOB_MAX_RANKS)
		return bad(j, "world_size", "out of range");
	return true;
}

/* "quality": the trace's grade ("good", "degraded", "unfit"); absent in summaries of before it was written.
 */
static bool read_quality(parser *j, ns_job_rank *k)
{
	char q[16];
	text_sink t = {q, 0, sizeof(q), false, false};

	q[0] = '\0';
	if (next_kind(j) != V_STRING)
		return skip_value(j, 1) && bad(j, "quality", "not good, degraded or unfit");
	if (!read_string(j, &t))
		return false;
	for (int g = NS_QUALITY_GOOD; g <= NS_QUALITY_UNFIT; g++)
		if (strcmp(q, ns_quality_grade_name((ns_quality_grade)g)) == 0) {
			k->quality = g;
			return true;
		}
	return bad(j, "quality", "not good, degraded or unfit");
}

/* "host_stalls", "host_stall_ns", "alloc_calls", "alloc_ns": the trace's host stalls and allocator calls
 * (absent: none, or a summary of before them). */
static bool read_count(parser *j, const char *key, int64_t *to)
{
	int64_t v = 0;

	if (!int_of(j, key, &v) || j->failed)
		return !j->syntax;
	if (v < 0)
		return bad(j, key, "negative");
	*to = v;
	return true;
}

static bool read_file(parser *j, ns_job_rank *k)
{
	text_sink t = {NULL, 0, 0, true, false};
	size_t cap;

	if (next_kind(j) != V_STRING)
		return skip_value(j, 1) && bad(j, "file", "not a string");
	if (!read_string(j, &t)) {
		free(t.p);
		return false;
	}
	cap = t.n * NS_UTF8_REPLACEMENT_LEN + 1;
	free(k->file);
	k->file = j->failed ? NULL : malloc(cap);
	if (k->file != NULL)
		ns_utf8_clean(t.p != NULL ? t.p : "", t.n, k->file, cap); /* UTF-8, as names are kept */
	else if (!j->failed)
		out_of_memory(j);
	free(t.p);
	return true;
}

static bool read_t0(parser *j)
{
	char text[40], *end;
	text_sink t = {text, 0, sizeof(text), false, false};
	long long v;

	text[0] = '\0';
	if (next_kind(j) != V_STRING)
		return skip_value(j, 1) && bad(j, "t0", "not a string");
	if (!read_string(j, &t))
		return false;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (t.full || errno != 0 || end == text || *end != '\0')
		return bad(j, "t0", "not a decimal integer");
	j->t0 = (int64_t)v;
	return true;
}

static bool root_member(parser *j, const char *key, void *ctx)
{
	root_ctx *x = ctx;
	devices_ctx dx = {x->k, 0};
	bool ok;

	if (strcmp(key, "nextstep_summary") == 0)
		return once(j, &x->seen, R_VERSION, key) ? read_version(j) : skip_value(j, 1);
	if (j->has_version && j->version != NS_JOB_SUMMARY_VERSION)
		return skip_value(j, 1); /* another version's form: nothing of it is read */
	if (strcmp(key, "rank") == 0)
		return once(j, &x->seen, R_RANK, key) ? read_rank(j, x->k) : skip_value(j, 1);
	if (strcmp(key, "world_size") == 0)
		return once(j, &x->seen, R_WORLD, key) ? read_world(j, x->k) : skip_value(j, 1);
	if (strcmp(key, "quality") == 0)
		return once(j, &x->seen, R_QUALITY, key) ? read_quality(j, x->k) : skip_value(j, 1);
	if (strcmp(key, "file") == 0)
		return once(j, &x->seen, R_FILE, key) ? read_file(j, x->k) : skip_value(j, 1);
	if (strcmp(key, "host_stalls") == 0)
		return once(j, &x->seen, R_STALLS, key) ? read_count(j, key, &x->k->host_stalls)
		                                        : skip_value(j, 1);
	if (strcmp(key, "host_stall_ns") == 0)
		return once(j, &x->seen, R_STALL_NS, key) ? read_count(j, key, &x->k->host_stall_ns)
		                                          : skip_value(j, 1);
	if (strcmp(key, "alloc_calls") == 0)
		return once(j, &x->seen, R_ALLOCS, key) ? read_count(j, key, &x->k->alloc_calls)
		                                        : skip_value(j, 1);
	if (strcmp(key, "alloc_ns") == 0)
		return once(j, &x->seen, R_ALLOC_NS, key) ? read_count(j, key, &x->k->alloc_ns)
		                                          : skip_value(j, 1);
	if (strcmp(key, "t0") == 0)
		return once(j, &x->seen, R_T0, key) ? read_t0(j) : skip_value(j, 1);
	if (strcmp(key, "devices") == 0) {
		if (!once(j, &x->seen, R_DEVICES, key))
			return skip_value(j, 1);
		if (next_kind(j) != V_ARRAY)
			return skip_value(j, 1) && bad(j, key, "not an array");
		ok = read_array(j, device_item, &dx, 1);
		x->k->dev = trim(x->k->dev, x->k->ndev, sizeof(*x->k->dev));
		return ok;
	}
	return skip_value(j, 1);
}

static void add_t0(ns_job_rank *k, int64_t t0)
{
	for (size_t i = 0; i < k->ndev; i++) {
		ns_job_device *d = &k->dev[i];
		d->overall.start_ns += t0;
		for (size_t s = 0; s < d->nsteps; s++)
			d->steps[s].start_ns += t0;
		for (size_t c = 0; c < d->ncoll; c++) {
			ns_split_collective *x = &d->coll[c];
			x->start_ns += t0;
			x->end_ns += t0;
			for (unsigned p = 0; p < x->npieces; p++) {
				x->piece[p].start_ns += t0;
				x->piece[p].end_ns += t0;
			}
		}
	}
}

/* The line's keys together: the required ones there, every time within int64_t once t0 is added. */
static void finish_root(parser *j, const root_ctx *x)
{
	int64_t lo = j->time_min, hi = j->time_max;

	if (!(x->seen & R_T0))
		bad(j, "t0", "missing");
	else if (!(x->seen & R_DEVICES))
		bad(j, "devices", "missing");
	else if ((hi > 0 && j->t0 > INT64_MAX - hi) || (lo < 0 && j->t0 < INT64_MIN - lo))
		bad(j, "t0", "a time out of range from it");
	for (size_t i = 0; !j->failed && i < x->k->ndev; i++)
		if (x->k->dev[i].evidence.host_stall_idle_ns > x->k->host_stall_ns)
			bad_in(j, NS_ERR_VALUE, "evidence", "host_stall_idle",
			       "more than the host stalls' time");
	if (j->failed)
		return;
	if (x->k->file == NULL && (x->k->file = calloc(1, 1)) == NULL) {
		out_of_memory(j);
		return;
	}
	add_t0(x->k, j->t0);
}

/* Which error the line gets: not JSON first, then out of memory, then no summary, then another version,
 * then the first wrong value. */
static ns_status line_status(parser *j)
{
	if (j->syntax)
		return j->err != NULL ? j->err->status : NS_ERR_SYNTAX;
	if (j->nomem)
		return ns_error_set(j->err, NS_ERR_NOMEM, "out of memory");
	if (!j->has_version)
		return ns_error_set(j->err, NS_ERR_VALUE,
		                    "not a nextstep summary (no \"nextstep_summary\" version key)");
	if (j->version != NS_JOB_SUMMARY_VERSION)
		return ns_error_set(j->err, NS_ERR_VALUE,
		                    "summary version %lld, this nextstep reads version %d",
		                    (long long)j->version, NS_JOB_SUMMARY_VERSION);
	if (j->failed)
		return j->err != NULL ? j->err->status : NS_ERR_VALUE;
	return NS_OK;
}

/* Only blanks may follow the object: two summaries run together (files concatenated without a final
 * newline, lines that end in a bare CR) would otherwise be read as the first alone, a rank lost unsaid. */
static bool nothing_after(parser *j)
{
	int c = skip_blanks(j);

	if (c == END_OF_LINE || c == '\n')
		return true;
	return syntax_error(j, NS_ERR_SYNTAX,
	                    "text after the summary's JSON object (two summaries on one line? lines that end "
	                    "in a bare CR?)");
}

/* One summary, from the next byte of j's source to the end of its line (not read). */
static ns_status read_line(parser *j, ns_job_rank **out)
{
	ns_job_rank *k = calloc(1, sizeof(*k));
	root_ctx x = {k, 0};
	ns_status st;

	*out = NULL;
	if (k == NULL)
		return ns_error_set(j->err, NS_ERR_NOMEM, "out of memory");
	k->rank = -1;
	k->quality = -1;
	j->time_min = j->time_max = 0;
	if (next_kind(j) != V_OBJECT) {
		bool json = skip_value(j, 0) && nothing_after(j);
		ns_job_rank_free(k);
		return json ? ns_error_set(j->err, NS_ERR_VALUE, "a summary line must be a JSON object")
		            : j->err->status;
	}
	if (read_object(j, root_member, &x, 0) && nothing_after(j) && !j->failed && j->has_version &&
	    j->version == NS_JOB_SUMMARY_VERSION)
		finish_root(j, &x);
	st = line_status(j);
	if (st != NS_OK) {
		ns_job_rank_free(k);
		return st;
	}
	*out = k;
	return NS_OK;
}

ns_status ns_job_rank_from_ndjson(const char *line, size_t len, ns_job_rank **out, ns_error *err)
{
	ns_error scratch;
	parser j;

	ns_error_clear(&scratch);
	memset(&j, 0, sizeof(j));
	j.src.p = j.src.buf = (const unsigned char *)line;
	j.src.end = j.src.p + len;
	j.err = err != NULL ? err : &scratch;
	return read_line(&j, out);
}

/* ---- a stream of summary lines ---- */

/* Past the end of the current line (its '\n' included). */
static void skip_line(source *s)
{
	for (;;) {
		const unsigned char *nl = s->p < s->end ? memchr(s->p, '\n', (size_t)(s->end - s->p)) : NULL;
		if (nl != NULL) {
			s->p = nl + 1;
			return;
		}
		s->p = s->end;
		if (refill(s) == END_OF_LINE)
			return;
	}
}

/* Blanks before a line's first byte: true when the line is blank (or the input ended). */
static bool blank_line(source *s)
{
	for (;;) {
		int c = peek(s);
		if (c == ' ' || c == '\t' || c == '\r')
			s->p++;
		else
			return c == '\n' || c == END_OF_LINE;
	}
}

ns_status ns_job_merge_read(ns_job_merge *m, ns_input *in, ns_job_line_error_fn on_error, void *ctx,
                            ns_error *err)
{
	parser j;
	ns_error line_err;
	long lineno = 1;

	memset(&j, 0, sizeof(j));
	j.src.in = in;
	j.src.newline_ends = true;
	j.src.chunk = malloc(READ_CHUNK);
	if (j.src.chunk == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	j.src.p = j.src.end = j.src.buf = j.src.chunk;
	j.err = &line_err;
	for (; j.src.stopped == NS_OK; lineno++) {
		ns_job_rank *rank = NULL;
		j.src.line_start = j.src.base + (j.src.p - j.src.buf);
		if (!blank_line(&j.src)) {
			j.failed = j.nomem = j.syntax = j.has_version = false;
			j.t0 = 0;
			ns_error_clear(&line_err);
			if ((read_line(&j, &rank) != NS_OK ||
			     ns_job_merge_add(m, rank, &line_err) != NS_OK) &&
			    j.src.stopped == NS_OK) {
				line_err.line = lineno;
				line_err.offset = -1;
				on_error(ctx, &line_err);
			}
		}
		if (peek(&j.src) == END_OF_LINE)
			break;
		skip_line(&j.src);
	}
	free(j.src.chunk);
	if (j.src.stopped == NS_ERR_IO)
		return ns_error_set(err, NS_ERR_IO, "read error");
	if (j.src.stopped == NS_ERR_LIMIT) {
		ns_error_set(err, NS_ERR_LIMIT, "a summary line longer than %zu bytes", NS_JOB_LINE_MAX);
		return ns_error_at(err, lineno, -1, -1);
	}
	return NS_OK;
}
