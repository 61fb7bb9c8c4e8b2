/* A flat NDJSON record read straight from its bytes. parse_record() tries this first and gives the record to
 * cJSON and ns_parse_profile_json() whenever it returns false, so this never reports an error and never takes
 * a record the general path would read differently. That holds because it accepts a subset of what cJSON
 * reads, and reads each accepted value as cJSON does:
 * - whitespace is space, tab, CR and LF (cJSON skips every byte up to 32); a byte order mark is not taken;
 * - strings have no escape and no byte below 0x20 (cJSON copies such bytes as they are);
 * - values are such strings, null, true, false, or numbers -?D+(.D+)? of at most 19 digits and
 *   22 decimals, followed by space, ',' or '}' as every value is (so never by what cJSON would hand to
 *   strtod with them, "e5", ".", "+"): m / 10^k with both exact doubles (m at most 2^53) is the correctly
 *   rounded quotient, the double glibc's strtod returns for the text;
 * - nested values, duplicates and every value the general path refuses are left to it.
 * Lines with anything else (exponents, escapes, 17-digit numbers) are read correctly, only slower. */
#include "parse_flat.h"

#include <stdint.h>
#include <string.h>

#include "util/text.h"

#define FLAT_DIGITS_MAX   19           /* digits of a number, leading zeros too: m fits 64 bits */
#define FLAT_MANTISSA_MAX (1ULL << 53) /* the digits as an integer: an exact double up to here */
#define FLAT_DECIMALS_MAX 22           /* 10^22 is the largest power of ten that is an exact double */
#define FLAT_SHARE_TEXT   64 /* a share given as a string ("72%"); ns_profile_parse_share's own limit */

typedef struct {
	const char *p, *end;
} cursor;

static const double powers_of_ten[FLAT_DECIMALS_MAX + 1] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

bool profile_bucket_from_key(const char *key, size_t n, ns_regime *r)
{
	if (n > 4 && memcmp(key + n - 4, "_pct", 4) == 0)
		n -= 4;
	return ns_regime_from_text(key, n, r);
}

void profile_note_unknown(ns_profile_unknown_keys *unknown, const char *key, size_t n)
{
	if (unknown->count < NS_PROFILE_UNKNOWN_KEPT) /* printed in a warning: escaped as messages are */
		ns_text_escape(key, n, unknown->name[unknown->count], NS_PROFILE_UNKNOWN_NAME_MAX);
	unknown->count++;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void skip_space(cursor *c)
{
	while (c->p < c->end && is_space(*c->p))
		c->p++;
}

static bool take_char(cursor *c, char want)
{
	if (c->p == c->end || *c->p != want)
		return false;
	c->p++;
	return true;
}

static bool take_word(cursor *c, const char *word, size_t n)
{
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
		return false;
	c->p += n;
	return true;
}

/* Bytes that end the plain part of a string: the quote, an escape, a control byte. */
static const bool string_stop[256] = {
    [0x00] = true, [0x01] = true, [0x02] = true, [0x03] = true, [0x04] = true, [0x05] = true, [0x06] = true,
    [0x07] = true, [0x08] = true, [0x09] = true, [0x0a] = true, [0x0b] = true, [0x0c] = true, [0x0d] = true,
    [0x0e] = true, [0x0f] = true, [0x10] = true, [0x11] = true, [0x12] = true, [0x13] = true, [0x14] = true,
    [0x15] = true, [0x16] = true, [0x17] = true, [0x18] = true, [0x19] = true, [0x1a] = true, [0x1b] = true,
    [0x1c] = true, [0x1d] = true, [0x1e] = true, [0x1f] = true, ['"'] = true,  ['\\'] = true,
};

/* A string without escapes or control bytes: its bytes are *s, *n long. */
static bool take_string(cursor *c, const char **s, size_t *n)
{
	const char *q;

	if (!take_char(c, '"'))
		return false;
	for (q = c->p; q < c->end && !string_stop[(unsigned char)*q]; q++)
		;
	if (q == c->end || *q != '"')
		return false;
	*s = c->p;
	*n = (size_t)(q - c->p);
	c->p = q + 1;
	return true;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool take_number(cursor *c, double *out)
{
	const char *q = c->p, *end = c->end, *start;
	bool negative = q < end && *q == '-';
	uint64_t m = 0;
	size_t whole, decimals = 0;

	q += negative;
	for (start = q; q < end && is_digit(*q); q++)
		m = m * 10 + (uint64_t)(*q - '0');
	whole = (size_t)(q - start);
	if (whole == 0)
		return false;
	if (q < end && *q == '.') {
		for (start = ++q; q < end && is_digit(*q); q++)
			m = m * 10 + (uint64_t)(*q - '0');
		decimals = (size_t)(q - start);
		if (decimals == 0)
			return false;
	}
	/* Past FLAT_DIGITS_MAX digits m may have wrapped; the check on it is valid only below that. */
	if (whole + decimals > FLAT_DIGITS_MAX || decimals > FLAT_DECIMALS_MAX || m > FLAT_MANTISSA_MAX)
		return false;
	c->p = q;
	*out = negative ? -((double)m / powers_of_ten[decimals]) : (double)m / powers_of_ten[decimals];
	return true;
}

/* Any value the fast path reads, for a key whose value is not used. */
static bool skip_value(cursor *c)
{
	const char *s;
	size_t n;
	double v;

	if (c->p == c->end)
		return false;
	switch (*c->p) {
	case '"':
		return take_string(c, &s, &n);
	case 'n':
		return take_word(c, "null", 4);
	case 't':
		return take_word(c, "true", 4);
	case 'f':
		return take_word(c, "false", 5);
	default:
		return take_number(c, &v);
	}
}

static bool take_share(cursor *c, double *out)
{
	ns_error err;
	const char *s;
	size_t n;

	if (c->p < c->end && *c->p == '"') {
		char text[FLAT_SHARE_TEXT];
		if (!take_string(c, &s, &n) || n >= sizeof(text))
			return false;
		memcpy(text, s, n);
		text[n] = '\0';
		return ns_profile_parse_share(text, out, &err) == NS_OK;
	}
	return take_number(c, out) && ns_profile_check_share(*out, &err) == NS_OK;
}

static bool take_label(cursor *c, ns_profile *p, bool *seen)
{
	const char *s;
	size_t n;

	if (*seen)
		return false;
	*seen = true;
	if (take_word(c, "null", 4))
		return true;
	if (!take_string(c, &s, &n))
		return false;
	ns_utf8_clean(s, n, p->label, sizeof(p->label)); /* as ns_profile_set_label() */
	return true;
}

static bool take_member(cursor *c, bool strict, ns_profile *p, ns_profile_unknown_keys *unknown,
                        bool *label_seen)
{
	const char *key;
	size_t n;
	ns_regime r;

	if (!take_string(c, &key, &n))
		return false;
	skip_space(c);
	if (!take_char(c, ':'))
		return false;
	skip_space(c);
	if (profile_bucket_from_key(key, n, &r)) {
		if (p->present[r])
			return false;
		p->present[r] = true;
		return take_share(c, &p->share[r]);
	}
	if ((n == 5 && memcmp(key, "label", 5) == 0) || (n == 4 && memcmp(key, "name", 4) == 0))
		return take_label(c, p, label_seen);
	if (strict)
		return false;
	profile_note_unknown(unknown, key, n);
	return skip_value(c);
}

bool profile_parse_flat(const char *s, size_t n, bool strict, ns_profile *p, ns_profile_unknown_keys *unknown)
{
	cursor c = {s, s + n};
	bool label_seen = false;

	ns_profile_init(p);
	unknown->count = 0;
	skip_space(&c);
	if (!take_char(&c, '{'))
		return false;
	skip_space(&c);
	if (!take_char(&c, '}')) {
		do {
			skip_space(&c);
			if (!take_member(&c, strict, p, unknown, &label_seen))
				return false;
			skip_space(&c);
		} while (take_char(&c, ','));
		if (!take_char(&c, '}'))
			return false;
	}
	skip_space(&c);
	return c.p == c.end;
}
