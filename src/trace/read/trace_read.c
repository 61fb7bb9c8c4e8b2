#define _POSIX_C_SOURCE 200809L
#include "nextstep/trace_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "nextstep/trace_categories.h"

#include "trace/read/trace_gunzip.h"
#include "trace/read/trace_read_private.h"
#include "util/text.h"
#include "util/vec.h"

/* The scanner works on a sliding window of the document. Every token, and every whole event, must be in
 * the window while it is parsed (string slices handed to the callback point into it), so a step that runs
 * off the end of the window returns SCAN_MORE and is restarted from its first byte after a refill. */
#define CHUNK_BYTES ((size_t)1 << 20)
/* Zero sentinel after the data, plus slack so 16-byte loads near the end stay inside the allocation (all
 * zero after each refill). */
#define BUF_PAD 32
/* The window never needs to hold more than one event (or one top-level value other than traceEvents). */
#define UNIT_MAX ((size_t)2 * NS_TRACE_MAX_STRING + CHUNK_BYTES)

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

/* The entries of a name table (event keys, args keys, categories) with each name length, chained as index + 1
 * (0 ends a chain), and each name's bytes as words, zero-padded: a lookup reads the key a word at a time and
 * compares it only with entries of its length, and most keys of an event's args ("grid", "queued",
 * "registers per thread", ...) have a length no entry has. */
#define KEY_LEN_MAX 31
#define KEY_WORDS   4 /* (KEY_LEN_MAX + 1) / 8 */
#define KEYS_MAX    64
typedef struct {
	uint8_t first[KEY_LEN_MAX + 1];
	uint8_t next[KEYS_MAX];
	uint64_t word[KEYS_MAX][KEY_WORDS];
} key_index;

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
} reader;

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

enum { EK_PH, EK_CAT, EK_NAME, EK_PID, EK_TID, EK_TS, EK_DUR, EK_ARGS };
static const name_entry event_keys[] = {
    ENTRY("ph", EK_PH),   ENTRY("cat", EK_CAT), ENTRY("name", EK_NAME), ENTRY("pid", EK_PID),
    ENTRY("tid", EK_TID), ENTRY("ts", EK_TS),   ENTRY("dur", EK_DUR),   ENTRY("args", EK_ARGS),
};

enum {
	AK_DEVICE,
	AK_STREAM,
	AK_CORRELATION,
	AK_EXTERNAL_ID,
	AK_FLOPS,
	AK_INPUT_DIMS,
	AK_INPUT_TYPES,
	AK_CONCRETE_INPUTS,
	AK_SEQ_NUMBER,
	AK_COLL_NAME,
	AK_COLL_PG,
	AK_COLL_DTYPE,
	AK_COLL_SEQ,
	AK_COLL_IN,
	AK_COLL_OUT,
	AK_META_NAME,
	AK_SORT_INDEX,
	AK_MEM_BYTES,
	AK_MEM_ALLOCATED,
	AK_MEM_RESERVED,
	AK_MEM_DEVICE_TYPE,
	AK_MEM_DEVICE_ID
};
static const name_entry arg_keys[] = {
    ENTRY("External id", AK_EXTERNAL_ID),
    ENTRY("correlation", AK_CORRELATION),
    ENTRY("device", AK_DEVICE),
    ENTRY("stream", AK_STREAM),
    ENTRY("external id", AK_EXTERNAL_ID), /* older profiler spelling */
    ENTRY("flops", AK_FLOPS),
    ENTRY("Input Dims", AK_INPUT_DIMS),
    ENTRY("Input type", AK_INPUT_TYPES),
    ENTRY("Concrete Inputs", AK_CONCRETE_INPUTS),
    ENTRY("Sequence number", AK_SEQ_NUMBER),
    /* collective metadata (the profiler's names, torch/csrc/profiler/util.h) */
    ENTRY("Collective name", AK_COLL_NAME),
    ENTRY("Process Group Name", AK_COLL_PG),
    ENTRY("dtype", AK_COLL_DTYPE),
    ENTRY("Seq", AK_COLL_SEQ),
    ENTRY("In msg nelems", AK_COLL_IN),
    ENTRY("Out msg nelems", AK_COLL_OUT),
    /* metadata events (ph "M"): thread_name's and process_name's "name", thread_sort_index's "sort_index" */
    ENTRY("name", AK_META_NAME),
    ENTRY("sort_index", AK_SORT_INDEX),
    /* profile_memory's [memory] events (torch/csrc/profiler: the allocation's metadata), last so the
     * keys every kernel and op carries are matched first */
    ENTRY("Bytes", AK_MEM_BYTES),
    ENTRY("Total Allocated", AK_MEM_ALLOCATED),
    ENTRY("Total Reserved", AK_MEM_RESERVED),
    ENTRY("Device Type", AK_MEM_DEVICE_TYPE),
    ENTRY("Device Id", AK_MEM_DEVICE_ID),
};

enum { TK_TRACE_EVENTS, TK_DEVICES, TK_DISTRIBUTED };
static const name_entry top_keys[] = {
    ENTRY("traceEvents", TK_TRACE_EVENTS),
    ENTRY("deviceProperties", TK_DEVICES),
    ENTRY("distributedInfo", TK_DISTRIBUTED),
};

enum { DK_ID, DK_NAME, DK_TOTAL_MEM, DK_RANK, DK_WORLD_SIZE };
static const name_entry device_keys[] = {ENTRY("id", DK_ID), ENTRY("name", DK_NAME),
                                         ENTRY("totalGlobalMem", DK_TOTAL_MEM)};
static const name_entry distributed_keys[] = {ENTRY("rank", DK_RANK), ENTRY("world_size", DK_WORLD_SIZE)};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static scan_rc fail(reader *r, const unsigned char *at, ns_status status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static scan_rc fail(reader *r, const unsigned char *at, ns_status status, const char *fmt, ...)
{
	char raw[sizeof(r->err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	ns_error_set(r->err, status, "%s", raw);
	ns_error_at(r->err, -1, r->base + (at - r->buf), r->index);
	r->status = status;
	return SCAN_FAIL;
}

/* At the sentinel the token may simply continue in the next chunk; anywhere else the byte is wrong. */
static scan_rc more_or_fail(reader *r, const unsigned char *at, const char *what)
{
	if (at >= r->end)
		return SCAN_MORE;
	return fail(r, at, NS_ERR_SYNTAX, "%s", what);
}

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

/* Most gaps are empty or one space; indentation in pretty-printed traces is skipped 16 bytes at a time. */
static inline const unsigned char *skip_ws(const unsigned char *p)
{
	if (!is_blank(*p))
		return p;
	if (!is_blank(*++p))
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

static scan_rc check_escape(reader *r, const unsigned char *p)
{
	size_t avail = (size_t)(r->end - p);

	if (avail < 2)
		return SCAN_MORE;
	switch (p[1]) {
	case '"':
	case '\\':
	case '/':
	case 'b':
	case 'f':
	case 'n':
	case 'r':
	case 't':
		return SCAN_OK;
	case 'u':
		for (size_t i = 2; i < 6; i++) {
			unsigned char c;
			if (i >= avail)
				return SCAN_MORE;
			c = p[i];
			if (!is_digit(c) && !((c | 0x20) >= 'a' && (c | 0x20) <= 'f'))
				return fail(r, p, NS_ERR_SYNTAX, "invalid \\u escape in string");
		}
		return SCAN_OK;
	default:
		return fail(r, p, NS_ERR_SYNTAX, "invalid escape in string");
	}
}

static scan_rc string_too_long(reader *r, const unsigned char *start)
{
	return fail(r, start - 1, NS_ERR_LIMIT, "string longer than %u bytes", NS_TRACE_MAX_STRING);
}

/* The rest of a string after its first stop byte q: escapes, the window's end, bad bytes, the limit. */
static scan_rc scan_string_slow(reader *r, const unsigned char *start, const unsigned char *p,
                                const unsigned char **endp)
{
	for (;;) {
		if (*p == '"')
			break;
		if (*p == '\\') {
			scan_rc rc = check_escape(r, p);
			if (rc == SCAN_OK) {
				p = find_string_stop(p + (p[1] == 'u' ? 6 : 2));
				continue;
			}
			if (rc == SCAN_MORE && (size_t)(p - start) > NS_TRACE_MAX_STRING)
				return string_too_long(r, start);
			return rc;
		}
		if (p >= r->end)
			return (size_t)(p - start) > NS_TRACE_MAX_STRING ? string_too_long(r, start)
			                                                 : SCAN_MORE;
		return fail(r, p, NS_ERR_SYNTAX, "control character in string");
	}
	if ((size_t)(p - start) > NS_TRACE_MAX_STRING)
		return string_too_long(r, start);
	*endp = p + 1;
	return SCAN_OK;
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

static scan_rc scan_digits(reader *r, const unsigned char **pp)
{
	const unsigned char *p = *pp;

	if (!is_digit(*p))
		return more_or_fail(r, p, "invalid number");
	while (is_digit(*p))
		p++;
	*pp = p;
	return SCAN_OK;
}

/* Validates a JSON number; a number that reaches the sentinel may go on in the next chunk. */
static scan_rc scan_number(reader *r, const unsigned char *p, const unsigned char **endp)
{
	scan_rc rc;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if ((rc = scan_digits(r, &p)) != SCAN_OK)
		return rc;
	if (*p == '.') {
		p++;
		if ((rc = scan_digits(r, &p)) != SCAN_OK)
			return rc;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if ((rc = scan_digits(r, &p)) != SCAN_OK)
			return rc;
	}
	if (p >= r->end)
		return SCAN_MORE;
	if (is_digit(*p) || *p == '.' || *p == '-' || *p == '+' || *p == 'e' || *p == 'E')
		return fail(r, p, NS_ERR_SYNTAX, "invalid number");
	*endp = p;
	return SCAN_OK;
}

static scan_rc scan_literal(reader *r, const unsigned char *p, const char *word, const unsigned char **endp)
{
	size_t n = strlen(word);

	for (size_t i = 0; i < n; i++) {
		if (p + i >= r->end)
			return SCAN_MORE;
		if (p[i] != (unsigned char)word[i])
			return fail(r, p, NS_ERR_SYNTAX, "invalid literal");
	}
	*endp = p + n;
	return SCAN_OK;
}

static scan_rc skip_value(reader *r, const unsigned char *p, int depth, const unsigned char **endp);

static scan_rc too_deep(reader *r, const unsigned char *p)
{
	return fail(r, p, NS_ERR_LIMIT, "nesting deeper than %d", NS_TRACE_MAX_DEPTH);
}

/* Walks the members of the object at p ('{'), handing each value to fn (or skipping it when fn is NULL
 * or says nothing about it). depth is the nesting level of this object. */
static inline scan_rc scan_object(reader *r, const unsigned char *p, int depth, member_fn fn, void *obj,
                                  const unsigned char **endp)
{
	scan_rc rc;

	if (depth > NS_TRACE_MAX_DEPTH)
		return too_deep(r, p);
	p = skip_ws(p + 1);
	if (*p == '}') {
		*endp = p + 1;
		return SCAN_OK;
	}
	for (;;) {
		const unsigned char *key = p + 1, *kend;
		if (*p != '"')
			return more_or_fail(r, p, "expected a string key");
		if ((rc = scan_string(r, key, &kend)) != SCAN_OK)
			return rc;
		p = skip_ws(kend);
		if (*p != ':')
			return more_or_fail(r, p, "expected ':' after a key");
		p = skip_ws(p + 1);
		rc = fn != NULL ? fn(r, key, (size_t)(kend - 1 - key), p, depth, &p, obj)
		                : skip_value(r, p, depth, &p);
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
		return more_or_fail(r, p, "expected ',' or '}' in an object");
	}
}

static scan_rc skip_array(reader *r, const unsigned char *p, int depth, const unsigned char **endp)
{
	scan_rc rc;

	if (depth > NS_TRACE_MAX_DEPTH)
		return too_deep(r, p);
	p = skip_ws(p + 1);
	if (*p == ']') {
		*endp = p + 1;
		return SCAN_OK;
	}
	for (;;) {
		if ((rc = skip_value(r, p, depth, &p)) != SCAN_OK)
			return rc;
		p = skip_ws(p);
		if (*p == ',') {
			p = skip_ws(p + 1);
			continue;
		}
		if (*p == ']') {
			*endp = p + 1;
			return SCAN_OK;
		}
		return more_or_fail(r, p, "expected ',' or ']' in an array");
	}
}

/* depth is the nesting level of the container holding the value. */
static scan_rc skip_value(reader *r, const unsigned char *p, int depth, const unsigned char **endp)
{
	switch (*p) {
	case '"':
		return scan_string(r, p + 1, endp);
	case '{':
		return scan_object(r, p, depth + 1, NULL, NULL, endp);
	case '[':
		return skip_array(r, p, depth + 1, endp);
	case 't':
		return scan_literal(r, p, "true", endp);
	case 'f':
		return scan_literal(r, p, "false", endp);
	case 'n':
		return scan_literal(r, p, "null", endp);
	default:
		if (*p == '-' || is_digit(*p))
			return scan_number(r, p, endp);
		return more_or_fail(r, p, "expected a JSON value");
	}
}

/* Converts a validated number token to an integer count of 10^-scale units, working on the decimal digits
 * (never through double) so "321456789012.345" µs is exactly 321456789012345 ns. Digits beyond the scale
 * round half away from zero. Returns false when the result does not fit in int64. */
static bool decimal_scaled(const unsigned char *s, const unsigned char *e, int scale, int64_t *out)
{
	const unsigned char *ip, *fp = s;
	long nint, nfrac = 0, exp = 0, keep, n;
	uint64_t acc = 0;
	bool neg = *s == '-';

	if (neg)
		s++;
	ip = s;
	while (s < e && is_digit(*s))
		s++;
	nint = s - ip;
	if (s < e && *s == '.') {
		fp = ++s;
		while (s < e && is_digit(*s))
			s++;
		nfrac = s - fp;
	}
	if (s < e) {
		bool eneg = false;
		s++;
		if (*s == '+' || *s == '-')
			eneg = *s++ == '-';
		for (; s < e; s++)
			if (exp < 1000000)
				exp = exp * 10 + (*s - '0');
		if (eneg)
			exp = -exp;
	}
	n = nint + nfrac;
	keep = nint + exp + scale; /* how many leading digits land before the result's decimal point */
	for (long i = 0; i < n && i < keep; i++) {
		unsigned d = (unsigned)((i < nint ? ip[i] : fp[i - nint]) - '0');
		if (acc > ((uint64_t)INT64_MAX - d) / 10)
			return false;
		acc = acc * 10 + d;
	}
	for (long i = n; i < keep && acc != 0; i++) {
		if (acc > (uint64_t)INT64_MAX / 10)
			return false;
		acc *= 10;
	}
	if (keep >= 0 && keep < n && (keep < nint ? ip[keep] : fp[keep - nint]) >= '5') {
		if (acc == (uint64_t)INT64_MAX)
			return false;
		acc++;
	}
	*out = neg ? -(int64_t)acc : (int64_t)acc;
	return true;
}

static const name_entry *find_name(const name_entry *tab, size_t n, const unsigned char *s, size_t len)
{
	/* Keys are a few bytes long: an inline byte loop beats a call to memcmp for each one. */
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		if (tab[i].len != len)
			continue;
		while (j < len && (unsigned char)tab[i].name[j] == s[j])
			j++;
		if (j == len)
			return &tab[i];
	}
	return NULL;
}

/* The bytes of s[i * 8, len) that fall in word i, as an integer whose other bytes are zero. The window
 * keeps BUF_PAD zero bytes after its data, so a word that runs past a key's end (even the last key before
 * the window's end) stays inside the allocation and reads defined bytes. */
static inline uint64_t key_word(const unsigned char *s, size_t len, size_t i)
{
	size_t rest = len - 8 * i;
	uint64_t w;

	memcpy(&w, s + 8 * i, sizeof(w));
	if (rest < 8) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		w &= ~(~0ull >> (8 * rest));
#else
		w &= (1ull << (8 * rest)) - 1;
#endif
	}
	return w;
}

static void key_index_init(key_index *x)
{
	memset(x, 0, sizeof(*x));
}

/* Entries are added backwards (from the table's end), so each chain keeps the table's order. */
static void key_index_add(key_index *x, size_t i, const char *name, size_t len)
{
	char padded[8 * KEY_WORDS] = {0};

	memcpy(padded, name, len);
	memcpy(x->word[i], padded, sizeof(padded));
	x->next[i] = x->first[len];
	x->first[len] = (uint8_t)(i + 1);
}

_Static_assert(COUNT(arg_keys) <= KEYS_MAX && COUNT(event_keys) <= KEYS_MAX, "a key table outgrew KEYS_MAX");

static void key_index_build(key_index *x, const name_entry *tab, size_t n)
{
	key_index_init(x);
	for (size_t i = n; i-- > 0;)
		key_index_add(x, i, tab[i].name, tab[i].len);
}

/* The categories' table is data of its own module: names too long for the index are left out here and
 * looked up in the table itself. */
static bool cat_index_build(key_index *x, const ns_trace_category_row **rows)
{
	size_t n;
	bool all = true;

	*rows = ns_trace_category_table(&n);
	key_index_init(x);
	for (size_t i = n; i-- > 0;) {
		size_t len = strlen((*rows)[i].name);
		if (i < KEYS_MAX && len > 0 && len <= KEY_LEN_MAX)
			key_index_add(x, i, (*rows)[i].name, len);
		else
			all = false;
	}
	return all;
}

/* The entry (index + 1) whose name is s[0, len), or 0. s lies in the window (see key_word). */
static inline unsigned find_indexed(const key_index *x, const unsigned char *s, size_t len)
{
	unsigned i;
	uint64_t w0;

	if (len > KEY_LEN_MAX || (i = x->first[len]) == 0)
		return 0;
	w0 = key_word(s, len, 0);
	for (; i != 0; i = x->next[i - 1]) {
		const uint64_t *w = x->word[i - 1];
		size_t k = 1;
		if (w[0] != w0)
			continue;
		while (8 * k < len && w[k] == key_word(s, len, k))
			k++;
		if (8 * k >= len)
			return i;
	}
	return 0;
}

/* FNV-1a over the id as written, with bit 62 set (and 63 clear) so it cannot meet a real small id. */
static int64_t string_id(const unsigned char *s, size_t n)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ull;
	}
	return (int64_t)((h & ~(3ull << 62)) | (1ull << 62));
}

static inline bool starts_number(unsigned char c)
{
	return c == '-' || is_digit(c);
}

static const int64_t pow10_small[] = {1, 10, 100, 1000};

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static const uint64_t pow10_run[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/* The run of ASCII digits at s, up to eight, read with one load: *n is its length and the result its value.
 * s lies in the window, whose BUF_PAD zero bytes after the data keep the load inside the allocation. */
static inline uint64_t digit_run(const unsigned char *s, int *n)
{
	uint64_t v, other;

	memcpy(&v, s, sizeof(v));
	/* Zero in each digit's byte (high nibble 3, and adding 6 leaves it 3); a carry out of another byte
	 * reaches only the bytes after it, so the first non-zero byte is the first non-digit. */
	other = ((v & 0xF0F0F0F0F0F0F0F0u) | (((v + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) >> 4)) ^
	        0x3333333333333333u;
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
static inline bool integer_digits(const unsigned char **sp, uint64_t *acc, int *ndig, int max)
{
	const unsigned char *s = *sp;

	while (is_digit(*s) && *ndig < max)
		*acc = *acc * 10 + (uint64_t)(*s++ - '0'), ++*ndig;
	*sp = s;
	return !is_digit(*s);
}
#endif

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

static scan_rc number_value(reader *r, const unsigned char *p, int scale, const char *what, int64_t *out,
                            const unsigned char **endp)
{
	const unsigned char *e;
	scan_rc rc;

	if (quick_number(p, scale, out, endp))
		return SCAN_OK;
	rc = scan_number(r, p, &e);

	if (rc != SCAN_OK)
		return rc;
	if (!decimal_scaled(p, e, scale, out))
		return fail(r, p, NS_ERR_VALUE, "%s out of range", what);
	*endp = e;
	return SCAN_OK;
}

static scan_rc string_value(reader *r, const unsigned char *p, ns_str *out, const unsigned char **endp)
{
	scan_rc rc = scan_string(r, p + 1, endp);

	if (rc == SCAN_OK) {
		out->ptr = (const char *)p + 1;
		out->len = (size_t)(*endp - p - 2);
	}
	return rc;
}

/* pid/tid: a number as given, a string as its hash; any other value leaves the id absent (-1). */
static scan_rc id_value(reader *r, const unsigned char *p, int depth, const char *what, int64_t *out,
                        const unsigned char **endp)
{
	if (*p == '"') {
		ns_str s;
		scan_rc rc = string_value(r, p, &s, endp);
		if (rc == SCAN_OK)
			*out = string_id((const unsigned char *)s.ptr, s.len);
		return rc;
	}
	if (starts_number(*p))
		return number_value(r, p, 0, what, out, endp);
	return skip_value(r, p, depth, endp);
}

static scan_rc time_value(reader *r, const unsigned char *p, const char *what, int64_t *out, bool *has,
                          const unsigned char **endp)
{
	scan_rc rc;

	if (!starts_number(*p)) {
		if (p >= r->end)
			return SCAN_MORE;
		return fail(r, p, NS_ERR_VALUE, "%s is not a number", what);
	}
	rc = number_value(r, p, 3, what, out, endp);
	if (rc == SCAN_OK)
		*has = true;
	return rc;
}

static scan_rc flops_value(reader *r, const unsigned char *p, double *out, const unsigned char **endp)
{
	char text[64];
	scan_rc rc = scan_number(r, p, endp);
	size_t n = (size_t)(*endp - p);

	if (rc != SCAN_OK)
		return rc;
	/* A number this long carries no more precision than a double holds; leave flops absent. */
	if (n < sizeof(text)) {
		memcpy(text, p, n);
		text[n] = '\0';
		*out = strtod(text, NULL);
	}
	return SCAN_OK;
}

/* Collective metadata and the sequence number never fail a read: a value of the wrong type or range is
 * skipped (left absent). */
static scan_rc coll_arg(reader *r, int id, const unsigned char *p, int depth, const unsigned char **endp,
                        ns_trace_event *ev)
{
	scan_rc rc;

	if (id == AK_COLL_NAME || id == AK_COLL_PG || id == AK_COLL_DTYPE) {
		ns_str *slot = id == AK_COLL_NAME ? &ev->coll_name
		               : id == AK_COLL_PG ? &ev->coll_pg
		                                  : &ev->coll_dtype;
		if (*p == '"')
			return string_value(r, p, slot, endp);
		return skip_value(r, p, depth, endp);
	}
	rc = skip_value(r, p, depth, endp);
	if (rc == SCAN_OK && *p >= '0' && *p <= '9' && *endp - p <= 18) {
		int64_t v = 0;
		const unsigned char *q = p;
		while (q < *endp && *q >= '0' && *q <= '9')
			v = v * 10 + (*q++ - '0');
		if (q == *endp)
			*(id == AK_SEQ_NUMBER ? &ev->seq_number
			  : id == AK_COLL_SEQ ? &ev->coll_seq
			  : id == AK_COLL_IN  ? &ev->coll_in
			                      : &ev->coll_out) = v;
	}
	return rc;
}

/* [p, end) is a plain integer of at most 18 digits, with an optional '-': *v. */
static bool plain_integer(const unsigned char *p, const unsigned char *end, int64_t *v)
{
	const unsigned char *q = p + (*p == '-');
	int64_t n = 0;

	if (q >= end || end - q > 18)
		return false;
	while (q < end && is_digit(*q))
		n = n * 10 + (*q++ - '0');
	if (q != end)
		return false;
	*v = *p == '-' ? -n : n;
	return true;
}

/* A display order only: a value that is not a whole number of at most 18 digits is left absent, never an
 * error. */
static scan_rc sort_index_arg(reader *r, const unsigned char *p, int depth, const unsigned char **endp,
                              ns_trace_event *ev)
{
	scan_rc rc = skip_value(r, p, depth, endp);

	if (rc == SCAN_OK && plain_integer(p, *endp, &ev->sort_index))
		ev->has_sort_index = true;
	return rc;
}

/* Memory metadata never fails a read either: anything but a plain integer of at most 18 digits is left absent
 * (INT64_MIN). */
static scan_rc mem_arg(reader *r, int id, const unsigned char *p, int depth, const unsigned char **endp,
                       ns_trace_event *ev)
{
	scan_rc rc = skip_value(r, p, depth, endp);
	int64_t v;

	if (rc == SCAN_OK && plain_integer(p, *endp, &v))
		*(id == AK_MEM_BYTES         ? &ev->mem_bytes
		  : id == AK_MEM_ALLOCATED   ? &ev->mem_allocated
		  : id == AK_MEM_RESERVED    ? &ev->mem_reserved
		  : id == AK_MEM_DEVICE_TYPE ? &ev->mem_device_type
		                             : &ev->mem_device_id) = v;
	return rc;
}

static scan_rc arg_member(reader *r, const unsigned char *key, size_t klen, const unsigned char *p, int depth,
                          const unsigned char **endp, void *obj)
{
	ns_trace_event *ev = obj;
	unsigned i = find_indexed(&r->arg_index, key, klen);
	const name_entry *k = &arg_keys[i - (i > 0)];
	int64_t *slot;
	scan_rc rc;

	if (i == 0)
		return skip_value(r, p, depth, endp);
	switch (k->id) {
	case AK_DEVICE:
		slot = &ev->device;
		break;
	case AK_STREAM:
		slot = &ev->stream;
		break;
	case AK_CORRELATION:
		slot = &ev->correlation;
		break;
	case AK_EXTERNAL_ID:
		slot = &ev->external_id;
		break;
	case AK_FLOPS:
		if (starts_number(*p))
			return flops_value(r, p, &ev->flops, endp);
		return skip_value(r, p, depth, endp);
	case AK_META_NAME:
		if (*p == '"')
			return string_value(r, p, &ev->meta_name, endp);
		return skip_value(r, p, depth, endp);
	case AK_SORT_INDEX:
		return sort_index_arg(r, p, depth, endp, ev);
	case AK_SEQ_NUMBER:
	case AK_COLL_NAME:
	case AK_COLL_PG:
	case AK_COLL_DTYPE:
	case AK_COLL_SEQ:
	case AK_COLL_IN:
	case AK_COLL_OUT:
		return coll_arg(r, k->id, p, depth, endp, ev);
	case AK_MEM_BYTES:
	case AK_MEM_ALLOCATED:
	case AK_MEM_RESERVED:
	case AK_MEM_DEVICE_TYPE:
	case AK_MEM_DEVICE_ID:
		return mem_arg(r, k->id, p, depth, endp, ev);
	default: /* AK_INPUT_DIMS, AK_INPUT_TYPES, AK_CONCRETE_INPUTS: kept as raw JSON text */
		rc = skip_value(r, p, depth, endp);
		if (rc == SCAN_OK) {
			ns_str *raw = k->id == AK_INPUT_DIMS    ? &ev->input_dims
			              : k->id == AK_INPUT_TYPES ? &ev->input_types
			                                        : &ev->concrete_inputs;
			raw->ptr = (const char *)p;
			raw->len = (size_t)(*endp - p);
		}
		return rc;
	}
	if (starts_number(*p))
		return number_value(r, p, 0, k->name, slot, endp);
	return skip_value(r, p, depth, endp);
}

static const ns_trace_category_row *category_of(const reader *r, ns_str s)
{
	unsigned i = find_indexed(&r->cat_index, (const unsigned char *)s.ptr, s.len);

	if (i > 0)
		return &r->cats[i - 1];
	return r->cats_partial ? ns_trace_category_find(s.ptr, s.len) : NULL;
}

static scan_rc event_member(reader *r, const unsigned char *key, size_t klen, const unsigned char *p,
                            int depth, const unsigned char **endp, void *obj)
{
	ns_trace_event *ev = obj;
	unsigned i = find_indexed(&r->event_index, key, klen);
	const name_entry *k = &event_keys[i - (i > 0)];
	ns_str s;
	scan_rc rc;

	if (i == 0)
		return skip_value(r, p, depth, endp);
	switch (k->id) {
	case EK_PH:
	case EK_CAT:
	case EK_NAME:
		if (*p != '"')
			return skip_value(r, p, depth, endp);
		if ((rc = string_value(r, p, &s, endp)) != SCAN_OK)
			return rc;
		if (k->id == EK_PH) {
			ev->ph = s.len > 0 ? s.ptr[0] : 0;
		} else if (k->id == EK_CAT) {
			const ns_trace_category_row *c = category_of(r, s);
			ev->cat_raw = s;
			ev->cat = c != NULL ? c->cat : NS_TCAT_OTHER;
		} else {
			ev->name = s;
		}
		return SCAN_OK;
	case EK_PID:
		return id_value(r, p, depth, "pid", &ev->pid, endp);
	case EK_TID:
		return id_value(r, p, depth, "tid", &ev->tid, endp);
	case EK_TS:
		return time_value(r, p, "ts", &ev->ts_ns, &ev->has_ts, endp);
	case EK_DUR:
		rc = time_value(r, p, "dur", &ev->dur_ns, &ev->has_dur, endp);
		if (rc == SCAN_OK && ev->dur_ns < 0)
			return fail(r, p, NS_ERR_VALUE, "negative dur");
		return rc;
	default: /* EK_ARGS */
		if (*p == '{')
			return scan_object(r, p, depth + 1, arg_member, ev, endp);
		return skip_value(r, p, depth, endp);
	}
}

static void event_init(ns_trace_event *ev, long index, long long offset)
{
	memset(ev, 0, sizeof(*ev));
	ev->index = index;
	ev->offset = offset;
	ev->pid = ev->tid = -1;
	ev->device = ev->stream = ev->correlation = ev->external_id = -1;
	ev->coll_seq = ev->coll_in = ev->coll_out = -1;
	ev->seq_number = -1;
	ev->mem_bytes = ev->mem_allocated = ev->mem_reserved = ev->mem_device_type = ev->mem_device_id =
	    INT64_MIN;
	ev->flops = -1;
}

/* Depth 1 is the top-level object, 2 traceEvents, 3 an event, 4 its args. */
static scan_rc read_event(reader *r, const unsigned char *p, const unsigned char **endp)
{
	ns_trace_event ev;
	ns_status st;
	scan_rc rc;

	if (*p != '{')
		return fail(r, p, NS_ERR_VALUE, "event is not an object");
	event_init(&ev, r->index, r->base + (p - r->buf));
	rc = scan_object(r, p, 3, event_member, &ev, endp);
	if (rc != SCAN_OK)
		return rc;
	/* A complete event is a span: without its length every split of it would be a guess (it used to make
	 * a trace of them "compute-bound (0%)"). */
	if (ev.ph == 'X' && !ev.has_dur) {
		ns_error_set(r->err, NS_ERR_VALUE, "complete event (\"ph\": \"X\") without \"dur\"");
		r->status = ns_error_at(r->err, -1, ev.offset, ev.index); /* p may have moved with a refill */
		return SCAN_FAIL;
	}
	r->meta->events++;
	if (r->fn != NULL && (st = r->fn(&ev, r->ctx, r->err)) != NS_OK) {
		/* The consumer's complaint is about this event unless it said where. */
		if (r->err->offset < 0 && r->err->index < 0)
			ns_error_at(r->err, r->err->line, ev.offset, ev.index);
		r->status = st;
		return SCAN_FAIL;
	}
	return SCAN_OK;
}

/* The name as shown: JSON escapes resolved and bytes that are not UTF-8 replaced (U+FFFD), cut between
 * characters. An escape takes at most 6 bytes for one output byte, so a prefix of the raw text that long is
 * enough to fill out. */
static void device_name_copy(char *out, size_t size, ns_str s)
{
	char plain[NS_TRACE_DEVICE_NAME_MAX * 6 + 16];
	size_t raw = s.len < sizeof(plain) - 1 ? s.len : sizeof(plain) - 1;
	size_t n = ns_json_unescape(s.ptr, raw, plain);

	ns_utf8_clean(plain, n, out, size);
}

static scan_rc device_member(reader *r, const unsigned char *key, size_t klen, const unsigned char *p,
                             int depth, const unsigned char **endp, void *obj)
{
	ns_trace_device *dev = obj;
	const name_entry *k = find_name(device_keys, COUNT(device_keys), key, klen);

	if (k != NULL && k->id == DK_ID && starts_number(*p))
		return number_value(r, p, 0, "device id", &dev->id, endp);
	if (k != NULL && k->id == DK_TOTAL_MEM && is_digit(*p)) {
		scan_rc rc = skip_value(r, p, depth, endp);
		int64_t v = 0;
		const unsigned char *q = p;
		if (rc != SCAN_OK || *endp - p > 18)
			return rc;
		while (q < *endp && is_digit(*q))
			v = v * 10 + (*q++ - '0');
		if (q == *endp) /* a plain integer, else left unknown */
			dev->total_mem = v;
		return rc;
	}
	if (k != NULL && k->id == DK_NAME && *p == '"') {
		ns_str s;
		scan_rc rc = string_value(r, p, &s, endp);
		if (rc != SCAN_OK)
			return rc;
		device_name_copy(dev->name, sizeof(dev->name), s);
		return SCAN_OK;
	}
	return skip_value(r, p, depth, endp);
}

/* deviceProperties: an array of {"id", "name", ...}; anything else is skipped (but must be valid JSON). */
static scan_rc read_devices(reader *r, const unsigned char *p, const unsigned char **endp)
{
	ns_trace_meta *m = r->meta;
	scan_rc rc;

	m->ndevices = 0;
	if (*p != '[')
		return skip_value(r, p, 1, endp);
	p = skip_ws(p + 1);
	if (*p == ']') {
		*endp = p + 1;
		return SCAN_OK;
	}
	for (;;) {
		if (*p == '{') {
			ns_trace_device dev = {.id = -1};
			rc = scan_object(r, p, 3, device_member, &dev, &p);
			if (rc == SCAN_OK && m->ndevices < NS_TRACE_MAX_DEVICES)
				m->devices[m->ndevices++] = dev;
		} else {
			rc = skip_value(r, p, 2, &p);
		}
		if (rc != SCAN_OK)
			return rc;
		p = skip_ws(p);
		if (*p == ',') {
			p = skip_ws(p + 1);
			continue;
		}
		if (*p == ']') {
			*endp = p + 1;
			return SCAN_OK;
		}
		return more_or_fail(r, p, "expected ',' or ']' in an array");
	}
}

static scan_rc distributed_member(reader *r, const unsigned char *key, size_t klen, const unsigned char *p,
                                  int depth, const unsigned char **endp, void *obj)
{
	ns_trace_meta *m = obj;
	const name_entry *k = find_name(distributed_keys, COUNT(distributed_keys), key, klen);
	int64_t v;
	scan_rc rc;

	if (k == NULL || !starts_number(*p))
		return skip_value(r, p, depth, endp);
	if ((rc = number_value(r, p, 0, k->name, &v, endp)) != SCAN_OK)
		return rc;
	if (k->id == DK_RANK) {
		m->rank = v;
		m->has_rank = true;
	} else {
		m->world_size = v;
	}
	return SCAN_OK;
}

static scan_rc read_distributed(reader *r, const unsigned char *p, const unsigned char **endp)
{
	if (*p == '{')
		return scan_object(r, p, 2, distributed_member, r->meta, endp);
	return skip_value(r, p, 1, endp);
}

/* One top-level member; for traceEvents only up to its '[' (the events are read one step each). */
static scan_rc read_member(reader *r, const unsigned char *p, const unsigned char **endp)
{
	const unsigned char *key = p + 1, *kend;
	const name_entry *k;
	scan_rc rc;

	if (*p != '"')
		return fail(r, p, NS_ERR_SYNTAX, "expected a string key in the top-level object");
	if ((rc = scan_string(r, key, &kend)) != SCAN_OK)
		return rc;
	p = skip_ws(kend);
	if (*p != ':')
		return more_or_fail(r, p, "expected ':' after a key");
	p = skip_ws(p + 1);
	k = find_name(top_keys, COUNT(top_keys), key, (size_t)(kend - 1 - key));
	switch (k != NULL ? k->id : -1) {
	case TK_TRACE_EVENTS:
		if (r->seen_events)
			return fail(r, key - 1, NS_ERR_KEY, "duplicate traceEvents");
		if (*p != '[') {
			if (p >= r->end)
				return SCAN_MORE;
			return fail(r, p, NS_ERR_VALUE, "traceEvents is not an array");
		}
		r->seen_events = true;
		r->state = ST_FIRST_EVENT;
		*endp = p + 1;
		return SCAN_OK;
	case TK_DEVICES:
		rc = read_devices(r, p, endp);
		break;
	case TK_DISTRIBUTED:
		rc = read_distributed(r, p, endp);
		break;
	default:
		rc = skip_value(r, p, 1, endp);
		break;
	}
	if (rc == SCAN_OK)
		r->state = ST_AFTER_MEMBER;
	return rc;
}

static scan_rc close_document(reader *r, const unsigned char *p, const unsigned char **endp)
{
	if (!r->seen_events)
		return fail(r, p, NS_ERR_SYNTAX, "not a trace: no traceEvents");
	r->state = ST_TRAILER;
	*endp = p + 1;
	return SCAN_OK;
}

static scan_rc goto_state(reader *r, read_state next, const unsigned char *p, const unsigned char **endp)
{
	r->state = next;
	*endp = p + 1;
	return SCAN_OK;
}

/* After the events' array: the object's next member, or the document's end in the JSON Array Format. */
static read_state after_events(const reader *r)
{
	return r->bare_array ? ST_TRAILER : ST_AFTER_MEMBER;
}

/* One restartable step of the top-level grammar; p is at a non-blank byte before the window's end. */
static scan_rc step(reader *r, const unsigned char *p, const unsigned char **endp)
{
	scan_rc rc;

	switch (r->state) {
	case ST_START:
		if (*p ==
		    '[') { /* the Trace Event Format's JSON Array Format: events, no object around them */
			r->seen_events = r->bare_array = true;
			return goto_state(r, ST_FIRST_EVENT, p, endp);
		}
		if (*p != '{')
			return fail(r, p, NS_ERR_SYNTAX,
			            "not a trace: the top level is not a JSON object or an array of events");
		return goto_state(r, ST_FIRST_KEY, p, endp);
	case ST_FIRST_KEY:
		if (*p == '}')
			return close_document(r, p, endp);
		return read_member(r, p, endp);
	case ST_KEY:
		return read_member(r, p, endp);
	case ST_AFTER_MEMBER:
		if (*p == ',')
			return goto_state(r, ST_KEY, p, endp);
		if (*p == '}')
			return close_document(r, p, endp);
		return fail(r, p, NS_ERR_SYNTAX, "expected ',' or '}' after a top-level member");
	case ST_FIRST_EVENT:
	case ST_EVENT:
		if (r->state == ST_FIRST_EVENT && *p == ']')
			return goto_state(r, after_events(r), p, endp);
		r->index = r->meta->events;
		if ((rc = read_event(r, p, endp)) != SCAN_OK)
			return rc;
		r->index = -1;
		r->state = ST_AFTER_EVENT;
		return SCAN_OK;
	case ST_AFTER_EVENT:
		if (*p == ',')
			return goto_state(r, ST_EVENT, p, endp);
		if (*p == ']')
			return goto_state(r, after_events(r), p, endp);
		return fail(r, p, NS_ERR_SYNTAX, "expected ',' or ']' after an event");
	default: /* ST_TRAILER */
		return fail(r, p, NS_ERR_SYNTAX, "garbage after the top-level %s",
		            r->bare_array ? "array" : "object");
	}
}

/* The input stopped before the document's end (err says where): meta says it was a cut, so the caller may
 * report the events handed out before it. */
static void note_cut(reader *r)
{
	r->meta->truncated = true;
	r->meta->truncated_at = r->err->offset;
	r->meta->truncated_in_events =
	    r->state == ST_FIRST_EVENT || r->state == ST_EVENT || r->state == ST_AFTER_EVENT;
}

/* Drops the committed bytes, grows the window when one unit fills half of it, and reads more: at least
 * as much again as is kept, so a long unit through a slow pipe is restarted only a few times. */
static scan_rc refill(reader *r)
{
	size_t keep = r->len - r->pos, want, got_total = 0;

	if (r->pos > 0) {
		memmove(r->buf, r->buf + r->pos, keep);
		r->base += (long long)r->pos;
		r->len = keep;
		r->pos = 0;
	}
	if (keep > r->cap / 2) {
		size_t alloc =
		    r->cap + BUF_PAD; /* the pad is allocated past the window, so it grows with it */
		unsigned char *bigger = ns_grow(r->buf, &alloc, 2 * r->cap + BUF_PAD, 1);
		if (bigger == NULL)
			return fail(r, r->buf, NS_ERR_NOMEM, "out of memory");
		r->buf = bigger;
		r->cap = alloc - BUF_PAD;
	}
	want = keep < r->cap - r->len ? keep : r->cap - r->len;
	if (want == 0)
		want = 1;
	while (got_total < want) {
		size_t room = r->cap - r->len;
		long got =
		    trace_source_read(r->src, r->buf + r->len,
		                      r->max_read > 0 && room > r->max_read ? r->max_read : room, r->err);
		if (got < 0) {
			/* a read error is where the reader was; the gunzip thread says where its stream broke
			 */
			ns_error_at(r->err, -1,
			            r->err->offset >= 0 ? r->err->offset : r->base + (long long)r->len,
			            r->index);
			r->status = r->err->status;
			if (trace_source_truncated(r->src) && r->state != ST_START)
				note_cut(r);
			return SCAN_FAIL;
		}
		if (got == 0) {
			r->eof = true;
			break;
		}
		r->len += (size_t)got;
		got_total += (size_t)got;
	}
	r->end = r->buf + r->len;
	memset(r->buf + r->len, 0, BUF_PAD); /* the sentinel, and defined bytes for key_word's loads */
	return SCAN_OK;
}

static void cut_off(reader *r, const char *what)
{
	fail(r, r->end, NS_ERR_SYNTAX, "%s", what);
	note_cut(r);
}

static void finish_at_eof(reader *r)
{
	if (r->state == ST_TRAILER)
		return;
	/* The JSON Array Format lets a writer stop after any event (a process killed while tracing): the ']'
	 * and a last ',' may be missing. */
	if (r->bare_array &&
	    (r->state == ST_FIRST_EVENT || r->state == ST_EVENT || r->state == ST_AFTER_EVENT))
		return;
	if (r->state == ST_START)
		fail(r, r->end, NS_ERR_SYNTAX, "not a trace: empty input");
	else
		cut_off(r, "unexpected end of input");
}

static void run(reader *r)
{
	for (;;) {
		/* Every SCAN_OK of step() sets next past p; the other returns leave it alone. The analyzer
		 * loses that where its inlining budget runs out (it saw more_or_fail() "return" SCAN_OK), so
		 * next starts defined. */
		const unsigned char *p = skip_ws(r->buf + r->pos), *next = p;
		scan_rc rc;

		r->pos = (size_t)(p - r->buf);
		if (p >= r->end) {
			if (r->eof) {
				finish_at_eof(r);
				return;
			}
			if (refill(r) != SCAN_OK)
				return;
			continue;
		}
		rc = step(r, p, &next);
		if (rc == SCAN_OK) {
			r->pos = (size_t)(next - r->buf);
			continue;
		}
		if (rc == SCAN_FAIL)
			return;
		if (r->eof) {
			cut_off(r, "unexpected end of input");
			return;
		}
		if (r->len - r->pos >= UNIT_MAX) {
			fail(r, p, NS_ERR_LIMIT, "one event or top-level value is larger than %zu bytes",
			     UNIT_MAX);
			return;
		}
		if (refill(r) != SCAN_OK)
			return;
	}
}

ns_status ns_trace_read(ns_input *in, ns_trace_event_fn fn, void *ctx, ns_trace_meta *meta, ns_error *err)
{
	static const trace_read_knobs defaults = {0, 0, 0};

	return trace_read_tuned(in, fn, ctx, meta, err, &defaults);
}

ns_status trace_read_tuned(ns_input *in, ns_trace_event_fn fn, void *ctx, ns_trace_meta *meta, ns_error *err,
                           const trace_read_knobs *knobs)
{
	reader r;

	ns_error_clear(err);
	memset(meta, 0, sizeof(*meta));
	meta->rank = -1;
	memset(&r, 0, sizeof(r));
	r.meta = meta;
	r.fn = fn;
	r.ctx = ctx;
	r.err = err;
	r.index = -1;
	r.max_read = knobs->max_read;
	r.state = ST_START;
	key_index_build(&r.event_index, event_keys, COUNT(event_keys));
	key_index_build(&r.arg_index, arg_keys, COUNT(arg_keys));
	r.cats_partial = !cat_index_build(&r.cat_index, &r.cats);
	r.status = trace_source_open(&r.src, in, knobs->threads != 1, err);
	if (r.status != NS_OK)
		return r.status;
	meta->compressed = trace_source_compressed(r.src);
	r.cap = knobs->window > 0 ? knobs->window : CHUNK_BYTES;
	r.buf = malloc(r.cap + BUF_PAD);
	if (r.buf == NULL) {
		trace_source_close(r.src);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	memset(r.buf, 0, BUF_PAD);
	r.end = r.buf;
	run(&r);
	meta->bytes = r.base + (long long)r.len;
	free(r.buf);
	trace_source_close(r.src);
	return r.status;
}
