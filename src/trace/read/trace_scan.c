/* The JSON scanner's out-of-line parts: errors, strings' slow path, numbers, literals, skipping values, the
 * key tables' index. The hot paths are inline in trace_scan.h. */
#define _POSIX_C_SOURCE 200809L
#include "trace/read/trace_scan.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/text.h"

scan_rc scan_fail(reader *r, const unsigned char *at, ns_status status, const char *fmt, ...)
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
scan_rc scan_more_or_fail(reader *r, const unsigned char *at, const char *what)
{
	if (at >= r->end)
		return SCAN_MORE;
	return scan_fail(r, at, NS_ERR_SYNTAX, "%s", what);
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
				return scan_fail(r, p, NS_ERR_SYNTAX, "invalid \\u escape in string");
		}
		return SCAN_OK;
	default:
		return scan_fail(r, p, NS_ERR_SYNTAX, "invalid escape in string");
	}
}

static scan_rc string_too_long(reader *r, const unsigned char *start)
{
	return scan_fail(r, start - 1, NS_ERR_LIMIT, "string longer than %u bytes", NS_TRACE_MAX_STRING);
}

/* The rest of a string after its first stop byte q: escapes, the window's end, bad bytes, the limit. */
scan_rc scan_string_slow(reader *r, const unsigned char *start, const unsigned char *p,
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
		return scan_fail(r, p, NS_ERR_SYNTAX, "control character in string");
	}
	if ((size_t)(p - start) > NS_TRACE_MAX_STRING)
		return string_too_long(r, start);
	*endp = p + 1;
	return SCAN_OK;
}

static scan_rc scan_digits(reader *r, const unsigned char **pp)
{
	const unsigned char *p = *pp;

	if (!is_digit(*p))
		return scan_more_or_fail(r, p, "invalid number");
	while (is_digit(*p))
		p++;
	*pp = p;
	return SCAN_OK;
}

/* Validates a JSON number; a number that reaches the sentinel may go on in the next chunk. */
scan_rc scan_number(reader *r, const unsigned char *p, const unsigned char **endp)
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
		return scan_fail(r, p, NS_ERR_SYNTAX, "invalid number");
	*endp = p;
	return SCAN_OK;
}

scan_rc scan_literal(reader *r, const unsigned char *p, const char *word, const unsigned char **endp)
{
	size_t n = strlen(word);

	for (size_t i = 0; i < n; i++) {
		if (p + i >= r->end)
			return SCAN_MORE;
		if (p[i] != (unsigned char)word[i])
			return scan_fail(r, p, NS_ERR_SYNTAX, "invalid literal");
	}
	*endp = p + n;
	return SCAN_OK;
}

scan_rc scan_too_deep(reader *r, const unsigned char *p)
{
	return scan_fail(r, p, NS_ERR_LIMIT, "nesting deeper than %d", NS_TRACE_MAX_DEPTH);
}

static scan_rc skip_array(reader *r, const unsigned char *p, int depth, const unsigned char **endp)
{
	scan_rc rc;

	if (depth > NS_TRACE_MAX_DEPTH)
		return scan_too_deep(r, p);
	p = skip_ws(p + 1);
	if (*p == ']') {
		*endp = p + 1;
		return SCAN_OK;
	}
	for (;;) {
		/* Arrays of shapes, grids and types: their numbers and strings are skipped here, without a
		 * call each (issue 27). */
		if (*p == '"')
			rc = scan_string(r, p + 1, &p);
		else if (!quick_skip_number(p, &p))
			rc = scan_skip_value(r, p, depth, &p);
		else
			rc = SCAN_OK;
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
		return scan_more_or_fail(r, p, "expected ',' or ']' in an array");
	}
}

/* depth is the nesting level of the container holding the value. */
scan_rc scan_skip_value(reader *r, const unsigned char *p, int depth, const unsigned char **endp)
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
		if (quick_skip_number(p, endp))
			return SCAN_OK;
		if (*p == '-' || is_digit(*p))
			return scan_number(r, p, endp);
		return scan_more_or_fail(r, p, "expected a JSON value");
	}
}

/* Converts a validated number token to an integer count of 10^-scale units, working on the decimal digits
 * (never through double) so "321456789012.345" µs is exactly 321456789012345 ns. Digits beyond the scale
 * round half away from zero. Returns false when the result does not fit in int64. */
bool scan_decimal(const unsigned char *s, const unsigned char *e, int scale, int64_t *out)
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

const name_entry *scan_find_name(const name_entry *tab, size_t n, const unsigned char *s, size_t len)
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

void scan_index_init(key_index *x)
{
	memset(x, 0, sizeof(*x));
}

/* Entries are added backwards (from the table's end), so each chain keeps the table's order. */
void scan_index_add(key_index *x, size_t i, const char *name, size_t len)
{
	char padded[8 * KEY_WORDS] = {0};

	memcpy(padded, name, len);
	memcpy(x->word[i], padded, sizeof(padded));
	x->len[i] = (uint8_t)len;
	x->next[i] = x->slot[key_slot(x->word[i][0], len)];
	x->slot[key_slot(x->word[i][0], len)] = (uint8_t)(i + 1);
}

void scan_index_build(key_index *x, const name_entry *tab, size_t n)
{
	scan_index_init(x);
	for (size_t i = n; i-- > 0;)
		scan_index_add(x, i, tab[i].name, tab[i].len);
}
