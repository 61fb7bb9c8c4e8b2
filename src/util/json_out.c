/* JSON straight into a stream (json_out.h). The rules are cJSON's (1.7.15, Debian bookworm; checked against
 * the linked library by tests/unit/test_json_out.c): strings escape '"', '\\' and bytes below 0x20 only
 * (\b \f \n \r \t by name, the others \u00XX in lower-case hex); a number prints "null" when not finite,
 * else "%1.15g" when strtod gives back a double within DBL_EPSILON (relative) of it, else "%1.17g".
 *
 * The speed is in the numbers. Integers below 10^15 print their digits. Other doubles are rounded to 15
 * significant digits exactly, in 128-bit integers (d = m * 2^e scaled by a power of ten, rounded half to
 * even as glibc's printf rounds the exact value), and the distance between that decimal and d, measured in
 * units in the last place of d, says whether strtod would read back d or a neighbour (which cJSON's
 * tolerance accepts) or something farther. Whatever this cannot decide exactly (subnormals, very small or
 * very large magnitudes, a distance on the boundary, d next to a power of two) is done as cJSON does it. */
#define _POSIX_C_SOURCE 200809L
#include "util/json_out.h"
#include "util/text.h"

#include <float.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* cJSON 1.7.16 added a "%d" branch for numbers equal to their valueint: it changes only -0, printed 0. */
#define CJSON_VERSION_NUMBER  (CJSON_VERSION_MAJOR * 10000 + CJSON_VERSION_MINOR * 100 + CJSON_VERSION_PATCH)
#define CJSON_PRINTS_VALUEINT (CJSON_VERSION_NUMBER >= 10716)

void json_out_init(json_out *w, FILE *out)
{
	w->out = out;
	w->len = 0;
	w->failed = false;
}

bool json_out_flush(json_out *w)
{
	if (!w->failed && w->len > 0 && fwrite(w->buf, 1, w->len, w->out) != w->len)
		w->failed = true;
	if (ferror(w->out))
		w->failed = true;
	w->len = 0;
	return !w->failed;
}

void json_out_bytes_slow(json_out *w, const char *p, size_t n)
{
	if (w->failed)
		return;
	if (n > sizeof(w->buf) - w->len) {
		json_out_flush(w);
		if (n >= sizeof(w->buf)) { /* a long string: past the buffer */
			if (!w->failed && fwrite(p, 1, n, w->out) != n)
				w->failed = true;
			return;
		}
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

/* The escape of byte c (below 0x20, '"' or '\\') into esc; returns its length. */
static size_t escape(unsigned char c, char *esc)
{
	static const char hex[] = "0123456789abcdef";
	static const char named[] = {['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't'};

	esc[0] = '\\';
	if (c == '"' || c == '\\') {
		esc[1] = (char)c;
		return 2;
	}
	if (c < sizeof(named) && named[c] != 0) {
		esc[1] = named[c];
		return 2;
	}
	esc[1] = 'u';
	esc[2] = '0';
	esc[3] = '0';
	esc[4] = hex[c >> 4];
	esc[5] = hex[c & 15];
	return 6;
}

/* A string too long for the buffer: its runs that need no escape go out as they are. */
static void put_long_string(json_out *w, const char *p, size_t n)
{
	const char *run = p, *end = p + n;
	char esc[6];

	json_out_char(w, '"');
	for (; p < end; p++) {
		unsigned char c = (unsigned char)*p;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		json_out_bytes(w, run, (size_t)(p - run));
		json_out_bytes(w, esc, escape(c, esc));
		run = p + 1;
	}
	json_out_bytes(w, run, (size_t)(p - run));
	json_out_char(w, '"');
}

/* How many bytes at p need no escape, eight at a time while no byte of a word is below 0x20, '"' or '\\'
 * (the tests are exact for "any byte": a word they flag is looked at byte by byte). */
static size_t plain_run(const char *p, size_t n)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t x, quote, backslash;
		memcpy(&x, p + i, sizeof(x));
		quote = x ^ (ones * '"');
		backslash = x ^ (ones * '\\');
		if ((((x - ones * 0x20) & ~x) | ((quote - ones) & ~quote) |
		     ((backslash - ones) & ~backslash)) &
		    highs)
			break;
	}
	for (; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c < 0x20 || c == '"' || c == '\\')
			break;
	}
	return i;
}

void json_out_string(json_out *w, const char *s)
{
	const char *p = s != NULL ? s : "";

	json_out_string_n(w, p, strlen(p));
}

void json_out_string_n(json_out *w, const char *p, size_t n)
{
	char *o;

	if (n > (sizeof(w->buf) - 2) / 6) {
		put_long_string(w, p, n);
		return;
	}
	if (sizeof(w->buf) - w->len < 6 * n + 2) /* room for the string if every byte were \u00XX */
		json_out_flush(w);
	if (w->failed)
		return;
	o = w->buf + w->len;
	*o++ = '"';
	for (size_t i = 0; i < n;) {
		size_t run = plain_run(p + i, n - i);
		memcpy(o, p + i, run);
		o += run;
		i += run;
		if (i < n)
			o += escape((unsigned char)p[i++], o);
	}
	*o++ = '"';
	w->len = (size_t)(o - w->buf);
}

static size_t put_integer(int64_t v, char *buf)
{
	size_t n = 0;

	if (v < 0)
		buf[n++] = '-';
	n += ns_put_u64(v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, buf + n);
	buf[n] = '\0';
	return n;
}

static bool within_epsilon(double a, double b)
{
	double larger = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	return fabs(a - b) <= larger * DBL_EPSILON;
}

/* cJSON's locale's decimal point becomes '.'. */
static size_t printf_number(double d, int digits, char *buf)
{
	char point = localeconv()->decimal_point[0];
	int n = snprintf(buf, JSON_NUMBER_MAX, "%1.*g", digits, d);

	if (n < 0 || n >= JSON_NUMBER_MAX) { /* cannot happen for %g of a double; cJSON fails the print */
		memcpy(buf, "null", 5);
		return 4;
	}
	for (int i = 0; i < n; i++)
		if (buf[i] == point)
			buf[i] = '.';
	return (size_t)n;
}

/* The way cJSON does it: printf, then strtod back. */
static size_t format_as_cjson(double d, char *buf)
{
	char *end;
	double back;

	printf_number(d, 15, buf);
	back = strtod(buf, &end);
	if (end == buf || !within_epsilon(back, d))
		return printf_number(d, 17, buf);
	return strlen(buf);
}

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128;

/* Largest powers of ten the exact rounding uses: 10^22 * 2^53 fits 128 bits, and so does 10^26 * 2^3. */
#define SCALE_UP_MAX   22
#define SCALE_DOWN_MAX 26

static u128 pow10_u128(int k)
{
	static const uint64_t p[20] = {1ULL,
	                               10ULL,
	                               100ULL,
	                               1000ULL,
	                               10000ULL,
	                               100000ULL,
	                               1000000ULL,
	                               10000000ULL,
	                               100000000ULL,
	                               1000000000ULL,
	                               10000000000ULL,
	                               100000000000ULL,
	                               1000000000000ULL,
	                               10000000000000ULL,
	                               100000000000000ULL,
	                               1000000000000000ULL,
	                               10000000000000000ULL,
	                               100000000000000000ULL,
	                               1000000000000000000ULL,
	                               10000000000000000000ULL};

	return k < 20 ? (u128)p[k] : (u128)p[19] * p[k - 19];
}

/* d rounded to p significant digits: digits (p of them), the power of ten of the first, and how far the
 * decimal lies from d: gap / unit units in the last place of d. */
typedef struct {
	uint64_t digits;
	int exp10;
	u128 gap, unit;
} rounded;

/* Rounds m * 2^e (2^52 <= m < 2^53, so d is in [2^(e+52), 2^(e+53))) to p <= 17 digits, the first of power
 * x: the exact value times 10^(p-1-x) = num / den, rounded half to even. False when that needs more than
 * 128 bits, or when x is not the power of d's first digit. */
static bool round_at(uint64_t m, int e, int p, int x, rounded *r)
{
	int k = p - 1 - x;
	int up_bits = 53 + (k > 0 ? (k * 3322 + 999) / 1000 : 0) + (e > 0 ? e : 0);
	int down_bits = (k < 0 ? (-k * 3322 + 999) / 1000 : 0) + (e < 0 ? -e : 0);
	u128 num, den, q, rem, top = pow10_u128(p);
	bool up;

	if (k > SCALE_UP_MAX || -k > SCALE_DOWN_MAX || up_bits > 128 || down_bits > 125)
		return false;
	num = ((u128)m * (k > 0 ? pow10_u128(k) : 1)) << (e > 0 ? e : 0);
	den = (k < 0 ? pow10_u128(-k) : 1) << (e < 0 ? -e : 0);
	q = num / den;
	rem = num % den;
	if (q >= top || q < top / 10)
		return false; /* x is not the first digit's power */
	up = 2 * rem > den || (2 * rem == den && (q & 1) != 0);
	q += up;
	r->exp10 = x;
	if (q == top) { /* 9.99...95 rounded up: one digit fewer, the next power of ten */
		q /= 10;
		r->exp10++;
	}
	r->digits = (uint64_t)q;
	r->gap = up ? den - rem : rem;
	r->unit = (k > 0 ? pow10_u128(k) : 1) << (e > 0 ? e : 0);
	return true;
}

static bool round_digits(uint64_t m, int e, int p, rounded *r)
{
	/* floor(log10(2^(e+52))): the first digit's power of ten, or one less */
	int x = (int)floor((e + 52) * 0.30102999566398120);

	return round_at(m, e, p, x, r) || round_at(m, e, p, x + 1, r);
}

/* %g's layout of the digits: trailing zeros dropped, exponent form below 10^-4 or from 10^p. */
static size_t layout(const rounded *r, int p, bool negative, char *buf)
{
	char dig[20];
	int nd = p, x = r->exp10;
	size_t o = 0;

	ns_put_u64(r->digits, dig);
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	if (negative)
		buf[o++] = '-';
	if (x < -4 || x >= p) {
		buf[o++] = dig[0];
		if (nd > 1) {
			buf[o++] = '.';
			memcpy(buf + o, dig + 1, (size_t)nd - 1);
			o += (size_t)nd - 1;
		}
		buf[o++] = 'e';
		buf[o++] = x < 0 ? '-' : '+';
		if (abs(x) < 10)
			buf[o++] = '0';
		o += ns_put_u64((uint64_t)abs(x), buf + o);
	} else if (x >= 0) {
		for (int j = 0; j <= x; j++)
			buf[o++] = j < nd ? dig[j] : '0';
		if (nd > x + 1) {
			buf[o++] = '.';
			memcpy(buf + o, dig + x + 1, (size_t)(nd - x - 1));
			o += (size_t)(nd - x - 1);
		}
	} else {
		buf[o++] = '0';
		buf[o++] = '.';
		for (int j = 0; j < -x - 1; j++)
			buf[o++] = '0';
		memcpy(buf + o, dig, (size_t)nd);
		o += (size_t)nd;
	}
	buf[o] = '\0';
	return o;
}

typedef enum { READS_BACK, READS_FARTHER, UNSURE } read_back;

/* Whether strtod of the 15-digit decimal gives d within cJSON's tolerance. Away from a power of two the
 * doubles near d are one ulp apart, and the tolerance (the larger magnitude times 2^-52) is at least one ulp
 * and below two: a decimal less than 1.5 ulp from d reads back as d or a neighbour (accepted), one farther
 * reads back two or more ulps away (refused). The 15-digit rounding moves d by at most 46 ulps, so 64 ulps
 * from a power of two everything stays in d's binade. */
static read_back reads_back(uint64_t m, const rounded *r)
{
	const uint64_t low = 1ULL << 52, high = 1ULL << 53;

	if (r->gap == 0)
		return READS_BACK; /* the decimal is d itself */
	if (m - low < 64 || high - m <= 64)
		return UNSURE;
	if (2 * r->gap == 3 * r->unit)
		return UNSURE;
	return 2 * r->gap < 3 * r->unit ? READS_BACK : READS_FARTHER;
}

/* Nonzero finite d that is no integer below 10^15. 0 when the exact way cannot decide. */
static size_t format_exact(double d, char *buf)
{
	uint64_t bits, m;
	int biased;
	rounded r;

	memcpy(&bits, &d, sizeof(bits));
	biased = (int)((bits >> 52) & 0x7ff);
	if (biased == 0)
		return 0; /* subnormal */
	m = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
	if (!round_digits(m, biased - 1075, 15, &r))
		return 0;
	switch (reads_back(m, &r)) {
	case READS_BACK:
		return layout(&r, 15, d < 0, buf);
	case READS_FARTHER:
		if (round_digits(m, biased - 1075, 17, &r))
			return layout(&r, 17, d < 0, buf);
		return printf_number(d, 17, buf);
	default:
		return 0;
	}
}
#else
static size_t format_exact(double d, char *buf)
{
	(void)d;
	(void)buf;
	return 0;
}
#endif

/* Most numbers of a report are short decimals (shares, microseconds: 0.6, 40.5). When d is the double nearest
 * m / 10^k for some k <= 6 and |d| in [10^-4, 10^9), m / 10^k has at most 15 significant digits and d is
 * within half an ulp (2^-53 relative) of it, far less than half a step of the 15-digit grid (10^-15
 * relative): %1.15g prints m / 10^k's digits, in fixed notation, and strtod reads them back as d, so cJSON
 * keeps them. One try at k = 6 finds every such d: m / 10^k is m * 10^(6-k) / 10^6, the same number; below
 * 10^9 an ulp of d (at most 2^-23) is less than 10^-6, so no other six-place decimal has d as its nearest
 * double; and |d| * 10^6 < 10^15 is within 0.3 of that integer after the multiplication's rounding, so adding
 * 0.5 and truncating gives it. The check is IEEE division, correctly rounded: m / 10^6 == d says d is that
 * nearest double. Trailing zeros are dropped, as %g drops them. 0 when d is no such decimal. */
static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324"
                                  "25262728293031323334353637383940414243444546474849"
                                  "50515253545556575859606162636465666768697071727374"
                                  "75767778798081828384858687888990919293949596979899";

static size_t format_short_decimal(double d, char *buf)
{
	double a = fabs(d);
	uint64_t m;
	uint32_t fraction;
	size_t n = 0;

	if (!(a >= 1e-4 && a < 1e9))
		return 0;
	m = (uint64_t)(a * 1e6 + 0.5);
	if ((double)m / 1e6 != a)
		return 0;
	if (d < 0)
		buf[n++] = '-';
	if (m < 1000000) /* a share: no call for its "0" */
		buf[n++] = '0';
	else
		n += ns_put_u64(m / 1000000, buf + n);
	fraction = (uint32_t)(m % 1000000);
	if (fraction != 0) { /* six places, two at a time, then %g's trailing zeros dropped */
		buf[n] = '.';
		memcpy(buf + n + 1, digit_pairs + 2 * (fraction / 10000), 2);
		memcpy(buf + n + 3, digit_pairs + 2 * (fraction / 100 % 100), 2);
		memcpy(buf + n + 5, digit_pairs + 2 * (fraction % 100), 2);
		n += 7;
		while (buf[n - 1] == '0')
			n--;
	}
	buf[n] = '\0';
	return n;
}

size_t json_format_number(double d, int i, char *buf)
{
	size_t n;

	/* First, as most numbers of a report are short decimals: NaN, the infinities, zeros and integers from
	 * 10^9 up fail its range test, and an integer below 10^9 prints its digits there as below. */
	if ((n = format_short_decimal(d, buf)) > 0)
		return n;
	if (isnan(d) || isinf(d)) {
		memcpy(buf, "null", 5);
		return 4;
	}
#if CJSON_PRINTS_VALUEINT
	if (d == (double)i)
		return put_integer(i, buf);
#else
	(void)i;
#endif
	if (d == 0) { /* -0 prints "-0" through %g */
		n = 0;
		if (signbit(d))
			buf[n++] = '-';
		buf[n++] = '0';
		buf[n] = '\0';
		return n;
	}
	if (fabs(d) < 1e15 && d == (double)(int64_t)d)
		return put_integer((int64_t)d, buf);
	if ((n = format_exact(d, buf)) > 0)
		return n;
	return format_as_cjson(d, buf);
}

/* valueint as cJSON_CreateNumber sets it (NaN, which cJSON casts, has no integer: 0). */
static int valueint_of(double d)
{
	if (isnan(d))
		return 0;
	if (d >= INT_MAX)
		return INT_MAX;
	if (d <= (double)INT_MIN)
		return INT_MIN;
	return (int)d;
}

size_t json_format_double(double d, char *buf)
{
	return json_format_number(d, valueint_of(d), buf);
}

void json_out_number(json_out *w, double d)
{
	char buf[JSON_NUMBER_MAX];

	json_out_bytes(w, buf, json_format_double(d, buf));
}

static bool put_children(json_out *w, const cJSON *item, bool keys)
{
	bool ok = true;

	json_out_char(w, keys ? '{' : '[');
	for (const cJSON *c = item->child; c != NULL && ok; c = c->next) {
		if (c != item->child)
			json_out_char(w, ',');
		if (keys) {
			json_out_string(w, c->string);
			json_out_char(w, ':');
		}
		ok = json_out_item(w, c);
	}
	json_out_char(w, keys ? '}' : ']');
	return ok;
}

bool json_out_item(json_out *w, const cJSON *item)
{
	char buf[JSON_NUMBER_MAX];

	if (item == NULL)
		return false;
	switch (item->type & 0xff) {
	case cJSON_NULL:
		json_out_raw(w, "null");
		return true;
	case cJSON_False:
		json_out_raw(w, "false");
		return true;
	case cJSON_True:
		json_out_raw(w, "true");
		return true;
	case cJSON_Number:
		json_out_bytes(w, buf, json_format_number(item->valuedouble, item->valueint, buf));
		return true;
	case cJSON_String:
		json_out_string(w, item->valuestring);
		return true;
	case cJSON_Raw:
		if (item->valuestring == NULL)
			return false;
		json_out_raw(w, item->valuestring);
		return true;
	case cJSON_Array:
		return put_children(w, item, false);
	case cJSON_Object:
		return put_children(w, item, true);
	default:
		return false;
	}
}
