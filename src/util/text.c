#include "util/text.h"

#include <stdlib.h>
#include <string.h>

size_t ns_count_newlines(const char *p, size_t n)
{
	size_t count = 0;
	const char *end = p + n;

	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		count++;
		p++;
	}
	return count;
}

long ns_line_of(const char *text, size_t len, size_t pos)
{
	return 1 + (long)ns_count_newlines(text, pos < len ? pos : len);
}

size_t ns_put_u64(uint64_t v, char *out)
{
	char tmp[20];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

/* ---- UTF-8 ---- */

static bool is_cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

size_t ns_utf8_char(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *b = (const unsigned char *)s;
	size_t len;
	uint32_t c, min;

	if (n == 0)
		return 0;
	if (b[0] < 0x80) {
		len = 1, c = b[0], min = 0;
	} else if (b[0] >= 0xc2 && b[0] <= 0xdf) {
		len = 2, c = b[0] & 0x1fu, min = 0x80;
	} else if (b[0] >= 0xe0 && b[0] <= 0xef) {
		len = 3, c = b[0] & 0x0fu, min = 0x800;
	} else if (b[0] >= 0xf0 && b[0] <= 0xf4) {
		len = 4, c = b[0] & 0x07u, min = 0x10000;
	} else {
		return 0; /* a continuation byte, C0/C1 (always overlong) or F5..FF (beyond U+10FFFF) */
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if (!is_cont(b[i]))
			return 0;
		c = c << 6 | (b[i] & 0x3fu);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	if (cp != NULL)
		*cp = c;
	return len;
}

size_t ns_utf8_put(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
		memcpy(out, NS_UTF8_REPLACEMENT, NS_UTF8_REPLACEMENT_LEN);
		return NS_UTF8_REPLACEMENT_LEN;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

size_t ns_utf8_cut(const char *s, size_t len, size_t max)
{
	size_t i = 0;

	if (len <= max)
		return len;
	/* Forward, character by character: walking back from max cannot tell a split character from stray
	 * continuation bytes. A byte that is not UTF-8 counts as one character of its own. */
	while (i < len) {
		size_t c = ns_utf8_char(s + i, len - i, NULL);
		if (c == 0)
			c = 1;
		if (c > max - i)
			break;
		i += c;
	}
	return i;
}

size_t ns_utf8_clean(const char *in, size_t len, char *out, size_t cap)
{
	size_t o = 0;

	for (size_t i = 0; i < len;) {
		size_t c;
		if ((unsigned char)in[i] < 0x80) { /* ASCII, most labels: as ns_utf8_char would take it */
			if (o + 1 >= cap)
				break;
			out[o++] = in[i++];
			continue;
		}
		c = ns_utf8_char(in + i, len - i, NULL);
		const char *piece = c != 0 ? in + i : NS_UTF8_REPLACEMENT;
		size_t plen = c != 0 ? c : NS_UTF8_REPLACEMENT_LEN;
		if (plen >= cap - o)
			break;
		memcpy(out + o, piece, plen);
		o += plen;
		i += c != 0 ? c : 1;
	}
	out[o] = '\0';
	return o;
}

/* ---- escaping for display ---- */

/* Where escaped text goes: a bounded buffer (snprintf-like) or a stream. */
typedef struct {
	char *buf;
	size_t cap, used; /* used: bytes written to buf */
	size_t len;       /* bytes of the whole text, written or not */
	bool full;        /* a piece did not fit: later ones are counted, not written */
	FILE *fp;
	bool failed;
} sink;

static void emit(sink *k, const char *p, size_t n)
{
	if (k->fp != NULL) {
		if (!k->failed && fwrite(p, 1, n, k->fp) != n)
			k->failed = true;
	} else if (!k->full && k->cap > 0 && n < k->cap - k->used) {
		memcpy(k->buf + k->used, p, n);
		k->used += n;
	} else {
		k->full = true;
	}
	k->len += n;
}

static bool is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

static void emit_control(sink *k, uint32_t cp)
{
	static const char hex[] = "0123456789abcdef";
	char esc[8];

	if (cp == '\n' || cp == '\r' || cp == '\t') {
		esc[0] = '\\';
		esc[1] = cp == '\n' ? 'n' : cp == '\r' ? 'r' : 't';
		emit(k, esc, 2);
	} else if (cp < 0x80) {
		memcpy(esc, "\\x", 2);
		esc[2] = hex[cp >> 4];
		esc[3] = hex[cp & 0xf];
		emit(k, esc, 4);
	} else {
		memcpy(esc, "\\u00", 4);
		esc[4] = hex[cp >> 4];
		esc[5] = hex[cp & 0xf];
		emit(k, esc, 6);
	}
}

static void escape_into(sink *k, const char *in, size_t len)
{
	size_t plain = 0; /* start of the run of bytes that need no change */

	for (size_t i = 0; i < len;) {
		uint32_t cp = 0;
		size_t c;
		if ((unsigned char)in[i] >= 0x20 && (unsigned char)in[i] < 0x7f) { /* printable ASCII: kept */
			i++;
			continue;
		}
		c = ns_utf8_char(in + i, len - i, &cp);
		if (c != 0 && !is_control(cp)) {
			i += c;
			continue;
		}
		emit(k, in + plain, i - plain);
		if (c == 0)
			emit(k, NS_UTF8_REPLACEMENT, NS_UTF8_REPLACEMENT_LEN);
		else
			emit_control(k, cp);
		i += c != 0 ? c : 1;
		plain = i;
	}
	emit(k, in + plain, len - plain);
}

size_t ns_text_escape(const char *in, size_t len, char *out, size_t cap)
{
	sink k = {out, cap, 0, 0, false, NULL, false};

	escape_into(&k, in, len);
	if (cap > 0)
		out[k.used] = '\0';
	return k.len;
}

bool ns_fput_text(FILE *out, const char *s)
{
	sink k = {NULL, 0, 0, 0, false, out, false};

	escape_into(&k, s, strlen(s));
	return !k.failed;
}

/* ---- JSON string escapes ---- */

static int hex_digit(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
	                              : -1;
}

/* The four hex digits at p (avail bytes there) as a number, or -1. */
static long hex4(const char *p, size_t avail)
{
	long v = 0;

	if (avail < 4)
		return -1;
	for (int k = 0; k < 4; k++) {
		int d = hex_digit(p[k]);
		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

/* A \uXXXX escape whose digits start at in[i] (the 'u' is in[i - 1]): writes the character to out and
 * returns how many input bytes after the 'u' it used (4, or 10 for a surrogate pair). */
static size_t put_u_escape(const char *in, size_t len, size_t i, char *out, size_t *o)
{
	long hi = hex4(in + i, len - i), lo;

	if (hi >= 0xd800 && hi <= 0xdbff && len - i >= 10 && in[i + 4] == '\\' && in[i + 5] == 'u' &&
	    (lo = hex4(in + i + 6, len - i - 6)) >= 0xdc00 && lo <= 0xdfff) {
		uint32_t cp = 0x10000 + (((uint32_t)hi - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
		*o += ns_utf8_put(cp, out + *o);
		return 10;
	}
	*o += ns_utf8_put(hi == 0 ? 0xfffd : (uint32_t)hi, out + *o); /* lone surrogates: U+FFFD too */
	return 4;
}

size_t ns_json_unescape(const char *in, size_t len, char *out)
{
	static const char plain[] = "bfnrt", meant[] = "\b\f\n\r\t";
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		const char *p;
		if (in[i] != '\\' || i + 1 >= len) {
			out[o++] = in[i];
			continue;
		}
		i++;
		if (in[i] == 'u' && hex4(in + i + 1, len - i - 1) >= 0)
			i += put_u_escape(in, len, i + 1, out, &o);
		else if (in[i] != '\0' && (p = strchr(plain, in[i])) != NULL)
			out[o++] = meant[p - plain];
		else
			out[o++] = in[i]; /* \" \\ \/ and anything unknown: the character itself */
	}
	out[o] = '\0';
	return o;
}

/* ---- numbers ---- */

char *ns_shortest_g(double v, char *out, size_t cap)
{
	for (int digits = 1; digits <= 17; digits++) {
		snprintf(out, cap, "%.*g", digits, v);
		if (strtod(out, NULL) == v)
			break;
	}
	return out;
}

size_t ns_edit_distance(const char *a, const char *b)
{
	/* Three rows of the table: the row before the previous one is what a swap looks back to. */
	size_t rows[3][NS_EDIT_WORD_MAX + 1];
	size_t na = strlen(a), nb = strlen(b);

	if (na > NS_EDIT_WORD_MAX || nb > NS_EDIT_WORD_MAX)
		return NS_EDIT_FAR;
	for (size_t j = 0; j <= nb; j++)
		rows[0][j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t *cur = rows[i % 3], *prev = rows[(i - 1) % 3], *prev2 = rows[(i + 1) % 3];
		cur[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = prev[j - 1] + cost;
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
	}
	return rows[na % 3][nb];
}
