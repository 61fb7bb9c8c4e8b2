/* The streaming JSON scanner under the trace reader: the window it works on, the reader's state, and its hot
 * paths inline (strings, objects, numbers, key lookups); trace_scan.c holds the rest. It knows JSON, not
 * Kineto: the schema (trace_kineto.c) hands it member callbacks and key tables, the read loop
 * (trace_read.c) refills the window and restarts a step that ran off its end. Private to the reader. */
#ifndef NEXTSTEP_TRACE_SCAN_H
#define NEXTSTEP_TRACE_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "nextstep/trace_categories.h"
#include "nextstep/trace_read.h"

#include "trace/read/trace_gunzip.h"

/* Zero sentinel after the data, plus slack so 16-byte loads near the end stay inside the allocation (all
 * zero after each refill). */
#define BUF_PAD 32

typedef enum { SCAN_OK, SCAN_MORE, SCAN_FAIL } scan_rc;

typedef enum {
	ST_START,
	ST_FIRST_KEY,
	ST_KEY,
	ST_AFTER_MEMBER,
	ST_FIRST_EVENT,
	ST_EVENT,
	ST_AFTER_EVENT,
	ST_TRAILER,
} read_state;

/* The entries of a name table (event keys, args keys, categories), found by a hash of a name's length and
 * first word, chained as index + 1 (0 ends a chain), with each name's bytes as words, zero-padded: a lookup
 * reads the key a word at a time and compares it with the entries of its slot alone, mostly one or none.
 * Most keys of an event's args ("grid", "queued", "registers per thread", ...) land in an empty slot. Chained
 * by length alone, the walk along a length's entries ("cat", "pid", "tid", "dur") was the parse's most
 * mispredicted branch (issue 27). */
#define KEY_LEN_MAX    31
#define KEY_WORDS      4 /* (KEY_LEN_MAX + 1) / 8 */
#define KEYS_MAX       64
#define KEY_SLOTS_BITS 8
typedef struct {
	uint8_t slot[1u << KEY_SLOTS_BITS];
	uint8_t next[KEYS_MAX];
	uint8_t len[KEYS_MAX];
	uint64_t word[KEYS_MAX][KEY_WORDS];
} key_index;

/* The last short number a field held, as its bytes and the byte that ended it: profiler traces repeat pid,
 * tid, device and stream on nearly every event, and one masked load that matches them replaces the digits'
 * parse (issue 27). Zeroed, it matches nothing: a number never starts with a zero byte. */
typedef struct {
	uint64_t word[2]; /* the token's len bytes and the one after it, the rest zero */
	int64_t value[2];
	unsigned len[2]; /* 1 to 7 */
	unsigned next;   /* the entry a miss replaces: CPU and GPU events alternate, each with its own ids */
} number_memo;

enum { MEMO_PID, MEMO_TID, MEMO_DEVICE, MEMO_STREAM, MEMO_COUNT };

typedef struct {
	unsigned char *buf;
	size_t cap, len, pos;     /* window capacity, bytes held, committed parse position */
	const unsigned char *end; /* buf + len, where the zero sentinel sits */
	long long base;           /* document offset of buf[0] */
	bool eof;
	size_t max_read; /* 0, or a cap on each source read (for the fuzz harness) */
	trace_source *src;
	read_state state;
	bool seen_events;
	bool bare_array; /* the JSON Array Format: the document is the events' array, its ']' optional */
	long index;      /* event being parsed, or -1 */
	ns_trace_meta *meta;
	ns_trace_event_fn fn;
	void *ctx;
	ns_error *err;
	ns_status status;
	key_index event_index, arg_index, cat_index; /* of event_keys, arg_keys and the category table */
	const ns_trace_category_row *cats;
	bool cats_partial; /* some category is not in cat_index */
	/* The parse worker (trace_chunk.h): started at the first chunk, NULL until then or without one */
	struct trace_chunker *chunker;
	const unsigned char *guess; /* where the chunk in flight starts, or NULL */
	bool chunk_tried;           /* no more chunks in this window (a wrong guess, none found) */
	size_t chunk_min;           /* bytes ahead worth a chunk; 0: the reader parses alone */
	long chunked;               /* events the worker parsed and the reader adopted */
	unsigned chunk_share;       /* of what is ahead, 64ths the reader parses itself before the chunk */
	/* The other window: the next one is read into it while the worker's records still point into this
	 * one (trace_read.c, refill_ahead), so the worker parses on while the reader hands them on */
	unsigned char *spare;
	size_t spare_cap;
	long ahead;                   /* windows read while the worker parsed on (refill_ahead) */
	number_memo memo[MEMO_COUNT]; /* each thread's own: the worker's reader is a copy */
} reader;

/* For the object walk and the member callbacks of events and their args: inlined into each other, so that
 * each member is a direct branch rather than a call through a pointer, and the key's and value's checks are
 * compiled for the schema that uses them. GCC's own heuristics leave them apart (the walk is too large):
 * forced, `trace` executes 10 % fewer instructions (docs/performance.md). */
#define SCAN_HOT static inline __attribute__((always_inline))

typedef scan_rc (*member_fn)(reader *r, const unsigned char *key, size_t klen, const unsigned char *val,
                             int depth, const unsigned char **endp, void *obj);

typedef struct {
	const char *name;
	size_t len;
	int id;
} name_entry;

/* The length is checked against KEY_LEN_MAX at compile time (an array of negative size does not compile). */
#define ENTRY(s, v)                                                                                          \
	{                                                                                                    \
		s, sizeof(s) - 1 + 0 * sizeof(char[sizeof(s) - 1 <= KEY_LEN_MAX ? 1 : -1]), v                \
	}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the scanner's out-of-line parts (trace_scan.c) ---- */
/* Records the error at byte at of the window (its document offset and the event index) and returns
 * SCAN_FAIL. */
scan_rc scan_fail(reader *r, const unsigned char *at, ns_status status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* At the sentinel the token may simply continue in the next chunk (SCAN_MORE); anywhere else the byte is
 * wrong. */
scan_rc scan_more_or_fail(reader *r, const unsigned char *at, const char *what);
scan_rc scan_too_deep(reader *r, const unsigned char *p);
/* The rest of a string after its first stop byte: escapes, the window's end, bad bytes, the limit. */
scan_rc scan_string_slow(reader *r, const unsigned char *start, const unsigned char *p,
                         const unsigned char **endp);
/* Validates a JSON number; a number that reaches the sentinel may go on in the next chunk. */
scan_rc scan_number(reader *r, const unsigned char *p, const unsigned char **endp);
scan_rc scan_literal(reader *r, const unsigned char *p, const char *word, const unsigned char **endp);
/* Skips any JSON value; depth is the nesting level of the container holding it. */
scan_rc scan_skip_value(reader *r, const unsigned char *p, int depth, const unsigned char **endp);
/* A validated number token [s, e) as a count of 10^-scale units, exactly; false when it does not fit. */
bool scan_decimal(const unsigned char *s, const unsigned char *e, int scale, int64_t *out);
/* The entry of tab[0, n) named s[0, len), or NULL. */
const name_entry *scan_find_name(const name_entry *tab, size_t n, const unsigned char *s, size_t len);
void scan_index_init(key_index *x);
/* Adds entry i (name[0, len), len at most KEY_LEN_MAX) in front of its slot's chain. */
void scan_index_add(key_index *x, size_t i, const char *name, size_t len);
/* The index of tab[0, n) (at most KEYS_MAX entries). */
void scan_index_build(key_index *x, const name_entry *tab, size_t n);

static inline bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_blank(unsigned char c)
{
	/* One compare and one bit test; the zero sentinel is not in the mask. */
	const uint64_t blanks = (1ull << ' ') | (1ull << '\n') | (1ull << '\r') | (1ull << '\t');
	return c <= ' ' && ((blanks >> c) & 1) != 0;
}

/* Most gaps are empty or one space (the usual ", " and ": "): each of those is a compare or two, ahead of
 * the blank test (issue 27). Indentation in pretty-printed traces is skipped 16 bytes at a time. */
static inline const unsigned char *skip_ws(const unsigned char *p)
{
	if (*p > ' ')
		return p;
	if (*p == ' ' && p[1] > ' ')
		return p + 1;
	if (!is_blank(*p))
		return p;
#if defined(__SSE2__)
	for (;;) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i blank = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
		                                          _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
		                             _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')),
		                                          _mm_cmpeq_epi8(v, _mm_set1_epi8('\r'))));
		unsigned other = ~(unsigned)_mm_movemask_epi8(blank) & 0xFFFFu;
		if (other != 0)
			return p + __builtin_ctz(other);
		p += 16;
	}
#else
	while (is_blank(*p))
		p++;
	return p;
#endif
}

/* Finds the next '"', '\\' or control byte (the zero sentinel is one). */
static inline const unsigned char *find_string_stop(const unsigned char *p)
{
#if defined(__SSE2__)
	const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
	for (;;) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i hit =
		    _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
		                 _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));
		int mask = _mm_movemask_epi8(hit);
		if (mask != 0)
			return p + __builtin_ctz((unsigned)mask);
		p += 16;
	}
#else
	while (*p >= 0x20 && *p != '"' && *p != '\\')
		p++;
	return p;
#endif
}

/* p is just past the opening quote; on success *endp is just past the closing quote. Inline because most
 * strings (keys above all) are short and plain. */
static inline scan_rc scan_string(reader *r, const unsigned char *p, const unsigned char **endp)
{
	const unsigned char *q = find_string_stop(p);

	if (*q == '"' && (size_t)(q - p) <= NS_TRACE_MAX_STRING) {
		*endp = q + 1;
		return SCAN_OK;
	}
	return scan_string_slow(r, p, q, endp);
}

/* Walks the members of the object at p ('{'), handing each value to fn (or skipping it when fn is NULL
 * or says nothing about it). depth is the nesting level of this object. */
SCAN_HOT scan_rc scan_object(reader *r, const unsigned char *p, int depth, member_fn fn, void *obj,
                             const unsigned char **endp)
{
	scan_rc rc;

	if (depth > NS_TRACE_MAX_DEPTH)
		return scan_too_deep(r, p);
	p = skip_ws(p + 1);
	if (*p == '}') {
		*endp = p + 1;
		return SCAN_OK;
	}
	for (;;) {
		const unsigned char *key = p + 1, *kend = key;
		if (*p != '"')
			return scan_more_or_fail(r, p, "expected a string key");
		if ((rc = scan_string(r, key, &kend)) != SCAN_OK)
			return rc;
		p = skip_ws(kend);
		if (*p != ':')
			return scan_more_or_fail(r, p, "expected ':' after a key");
		p = skip_ws(p + 1);
		rc = fn != NULL ? fn(r, key, (size_t)(kend - 1 - key), p, depth, &p, obj)
		                : scan_skip_value(r, p, depth, &p);
		if (rc != SCAN_OK)
			return rc;
		p = skip_ws(p);
		if (*p == ',') {
			p = skip_ws(p + 1);
			continue;
		}
		if (*p == '}') {
			*endp = p + 1;
			return SCAN_OK;
		}
		return scan_more_or_fail(r, p, "expected ',' or '}' in an object");
	}
}

/* The first n bytes of a word (n at most 8) as a mask: a load, not the shifts that build it (issue 27). */
static inline uint64_t first_bytes(size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	static const uint64_t mask[9] = {0,
	                                 0xFF00000000000000u,
	                                 0xFFFF000000000000u,
	                                 0xFFFFFF0000000000u,
	                                 0xFFFFFFFF00000000u,
	                                 0xFFFFFFFFFF000000u,
	                                 0xFFFFFFFFFFFF0000u,
	                                 0xFFFFFFFFFFFFFF00u,
	                                 0xFFFFFFFFFFFFFFFFu};
#else
	static const uint64_t mask[9] = {0,
	                                 0xFF,
	                                 0xFFFF,
	                                 0xFFFFFF,
	                                 0xFFFFFFFFu,
	                                 0xFFFFFFFFFFu,
	                                 0xFFFFFFFFFFFFu,
	                                 0xFFFFFFFFFFFFFFu,
	                                 0xFFFFFFFFFFFFFFFFu};
#endif
	return mask[n];
}

/* The bytes of s[i * 8, len) that fall in word i, as an integer whose other bytes are zero. The window
 * keeps BUF_PAD zero bytes after its data, so a word that runs past a key's end (even the last key before
 * the window's end) stays inside the allocation and reads defined bytes. */
static inline uint64_t key_word(const unsigned char *s, size_t len, size_t i)
{
	size_t rest = len - 8 * i;
	uint64_t w;

	memcpy(&w, s + 8 * i, sizeof(w));
	if (rest < 8)
		w &= first_bytes(rest);
	return w;
}

/* The slot of a name of length len whose first word is w0. */
static inline unsigned key_slot(uint64_t w0, size_t len)
{
	return (unsigned)(((w0 ^ len) * 0x9E3779B97F4A7C15ull) >> (64 - KEY_SLOTS_BITS));
}

/* The entry (index + 1) whose name is s[0, len), or 0. s lies in the window (see key_word). */
static inline unsigned find_indexed(const key_index *x, const unsigned char *s, size_t len)
{
	unsigned i;
	uint64_t w0;

	if (len > KEY_LEN_MAX)
		return 0;
	w0 = key_word(s, len, 0);
	for (i = x->slot[key_slot(w0, len)]; i != 0; i = x->next[i - 1]) {
		const uint64_t *w = x->word[i - 1];
		size_t k = 1;
		if (w[0] != w0 || x->len[i - 1] != len)
			continue;
		while (8 * k < len && w[k] == key_word(s, len, k))
			k++;
		if (8 * k >= len)
			return i;
	}
	return 0;
}

static inline bool starts_number(unsigned char c)
{
	return c == '-' || is_digit(c);
}

static const int64_t pow10_small[] = {1, 10, 100, 1000};

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static const uint64_t pow10_run[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/* Non-zero from the first byte of the word v that is not an ASCII digit: zero in each digit's byte (high
 * nibble 3, and adding 6 leaves it 3); a carry out of another byte reaches only the bytes after it, so the
 * first non-zero byte is the first non-digit. */
static inline uint64_t non_digits(uint64_t v)
{
	return ((v & 0xF0F0F0F0F0F0F0F0u) | (((v + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) >> 4)) ^
	       0x3333333333333333u;
}

/* Past the run of ASCII digits at s, eight bytes a load. s lies in the window: the run ends at the zero
 * sentinel at the latest, and BUF_PAD zero bytes after it keep the loads inside the allocation. */
static inline const unsigned char *skip_digits(const unsigned char *s)
{
	for (;;) {
		uint64_t v, other;
		memcpy(&v, s, sizeof(v));
		other = non_digits(v);
		if (other != 0)
			return s + __builtin_ctzll(other) / 8;
		s += 8;
	}
}

/* The run of ASCII digits at s, up to eight, read with one load: *n is its length and the result its value.
 * s lies in the window, whose BUF_PAD zero bytes after the data keep the load inside the allocation. */
static inline uint64_t digit_run(const unsigned char *s, int *n)
{
	uint64_t v, other;

	memcpy(&v, s, sizeof(v));
	other = non_digits(v);
	*n = other == 0 ? 8 : __builtin_ctzll(other) / 8;
	if (*n == 0)
		return 0;
	v -= 0x3030303030303030u; /* the digits' bytes borrow from nothing: they come first */
	v <<= 8 * (8 - *n);       /* the run's last digit in the top byte, zero digits before its first */
	v = v * 10 + (v >> 8);    /* pairs of digits in bytes 0, 2, 4, 6 */
	return (((v & 0x000000FF000000FFu) * (100 + (1000000ull << 32))) +
	        (((v >> 16) & 0x000000FF000000FFu) * (1 + (10000ull << 32)))) >>
	       32;
}

/* The integer digits at *sp into *acc (ndig of them so far): false when the run has more than max. */
static inline bool integer_digits(const unsigned char **sp, uint64_t *acc, int *ndig, int max)
{
	for (;;) {
		int n;
		uint64_t run = digit_run(*sp, &n);
		if (*ndig + n > max)
			return false;
		*acc = *acc * pow10_run[n] + run;
		*ndig += n;
		*sp += n;
		if (n < 8)
			return true;
	}
}
#else
static inline const unsigned char *skip_digits(const unsigned char *s)
{
	while (is_digit(*s))
		s++;
	return s;
}

static inline bool integer_digits(const unsigned char **sp, uint64_t *acc, int *ndig, int max)
{
	const unsigned char *s = *sp;

	while (is_digit(*s) && *ndig < max)
		*acc = *acc * 10 + (uint64_t)(*s++ - '0'), ++*ndig;
	*sp = s;
	return !is_digit(*s);
}
#endif

/* A number of the common shape, -?digits(.digits)? followed by a byte that cannot go on a number, skipped in
 * one pass: *endp where scan_number() would put it. False for anything else (an exponent, an error, the
 * window's end, a zero byte), which scan_number() decides. */
static inline bool quick_skip_number(const unsigned char *p, const unsigned char **endp)
{
	const unsigned char *s = p + (*p == '-'), *e = *s == '0' ? s + 1 : skip_digits(s);

	if (e == s)
		return false;
	if (*e == '.') {
		const unsigned char *f = skip_digits(e + 1);
		if (f == e + 1)
			return false;
		e = f;
	}
	if (*e == '\0' || is_digit(*e) || *e == '.' || *e == 'e' || *e == 'E' || *e == '-' || *e == '+')
		return false;
	*endp = e;
	return true;
}

/* The common shape, -?digits(.d{1,scale})? followed by a plain byte, in one pass; the result has at most
 * 19 digits, so it cannot wrap in uint64. Returns false for anything else, which takes the general path. */
static inline bool quick_number(const unsigned char *p, int scale, int64_t *out, const unsigned char **endp)
{
	const unsigned char *s = p + (*p == '-');
	uint64_t acc = 0;
	int ndig = 0, nfrac = 0;

	if (*s == '0' && is_digit(s[1]))
		return false;
	if (!integer_digits(&s, &acc, &ndig, 19 - scale) || ndig == 0)
		return false;
	if (*s == '.') {
		s++;
		while (is_digit(*s) && nfrac < scale)
			acc = acc * 10 + (uint64_t)(*s++ - '0'), nfrac++;
		if (nfrac == 0)
			return false;
	}
	if (*s == '\0' || is_digit(*s) || *s == '.' || *s == 'e' || *s == 'E' || *s == '-' || *s == '+')
		return false;
	acc *= (uint64_t)pow10_small[scale - nfrac];
	if (acc > (uint64_t)INT64_MAX)
		return false;
	*out = *p == '-' ? -(int64_t)acc : (int64_t)acc;
	*endp = s;
	return true;
}

static inline scan_rc number_value(reader *r, const unsigned char *p, int scale, const char *what,
                                   int64_t *out, const unsigned char **endp)
{
	const unsigned char *e;
	scan_rc rc;

	if (quick_number(p, scale, out, endp))
		return SCAN_OK;
	rc = scan_number(r, p, &e);

	if (rc != SCAN_OK)
		return rc;
	if (!scan_decimal(p, e, scale, out))
		return scan_fail(r, p, NS_ERR_VALUE, "%s out of range", what);
	*endp = e;
	return SCAN_OK;
}

/* number_value() with scale 0 through the field's memo. A hit's bytes are those of a number the parse took,
 * and its last byte ended it there: not a digit, a sign, '.', an exponent or the zero sentinel, which is
 * never kept (it may be the window's end, where the number goes on in the next read). So the same token gives
 * the same value; past the window's end the zero bytes match nothing. */
static inline scan_rc memo_number(reader *r, number_memo *m, const unsigned char *p, const char *what,
                                  int64_t *out, const unsigned char **endp)
{
	uint64_t w;
	scan_rc rc;

	memcpy(&w, p, sizeof(w));
	for (unsigned i = 0; i < 2; i++) {
		if ((w & first_bytes(m->len[i] + 1)) == m->word[i]) {
			*out = m->value[i];
			*endp = p + m->len[i];
			return SCAN_OK;
		}
	}
	rc = number_value(r, p, 0, what, out, endp);
	if (rc == SCAN_OK && *endp - p <= 7 && **endp != '\0') {
		unsigned i = m->next;
		m->len[i] = (unsigned)(*endp - p);
		m->word[i] = w & first_bytes(m->len[i] + 1);
		m->value[i] = *out;
		m->next = i ^ 1;
	}
	return rc;
}

static inline scan_rc string_value(reader *r, const unsigned char *p, ns_str *out, const unsigned char **endp)
{
	scan_rc rc = scan_string(r, p + 1, endp);

	if (rc == SCAN_OK) {
		out->ptr = (const char *)p + 1;
		out->len = (size_t)(*endp - p - 2);
	}
	return rc;
}

#endif
