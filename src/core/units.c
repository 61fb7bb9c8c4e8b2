#define _POSIX_C_SOURCE 200809L
#include "nextstep/units.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
	char letter;
	double decimal;
	double binary;
} unit_prefix;

static const unit_prefix prefixes[] = {
    {'k', 1e3, 1024.0},           {'m', 1e6, 1048576.0},           {'g', 1e9, 1073741824.0},
    {'t', 1e12, 1099511627776.0}, {'p', 1e15, 1125899906842624.0}, {'e', 1e18, 1152921504606846976.0},
};

typedef struct {
	const char *word;
	double seconds;
} time_unit;

/* Longest spellings first is not needed: a unit must match the whole remaining text. */
static const time_unit time_units[] = {
    {"s", 1.0},          {"sec", 1.0},        {"ms", 1e-3}, {"us", 1e-6},
    {"\xc2\xb5s", 1e-6}, {"\xce\xbcs", 1e-6}, {"ns", 1e-9},
};

/* Accepts only what a person means by a plain decimal: digits, one point, an optional exponent. strtod alone
 * would also take "inf", "nan", hex floats, signs and leading blanks. */
static bool parse_mantissa(const char *text, double *value, const char **rest)
{
	char *end;

	if (!(isdigit((unsigned char)text[0]) || (text[0] == '.' && isdigit((unsigned char)text[1]))))
		return false;
	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
		return false;
	*value = strtod(text, &end);
	*rest = end;
	return end != text && isfinite(*value);
}

static double take_prefix(const char **rest)
{
	const char *p = *rest;

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		if (tolower((unsigned char)p[0]) != prefixes[i].letter)
			continue;
		if (p[1] == 'i') {
			*rest = p + 2;
			return prefixes[i].binary;
		}
		*rest = p + 1;
		return prefixes[i].decimal;
	}
	return 1.0;
}

static bool unit_word_ok(const char *word, ns_units_kind kind)
{
	if (word[0] == '\0')
		return true;
	switch (kind) {
	case NS_UNIT_FLOP:
		return strcasecmp(word, "flop") == 0 || strcasecmp(word, "flops") == 0;
	case NS_UNIT_BYTE:
		return strcmp(word, "B") == 0;
	case NS_UNIT_COUNT:
		return false;
	}
	return false;
}

static const char *kind_hint(ns_units_kind kind)
{
	switch (kind) {
	case NS_UNIT_FLOP:
		return "a number like 2.1T, 1.1e12 or 5GFLOP";
	case NS_UNIT_BYTE:
		return "a number like 64GiB, 403M or 1.5e9";
	case NS_UNIT_COUNT:
		break;
	}
	return "a number like 7B, 4096, 32k or 1.5e9";
}

ns_status ns_units_parse(const char *text, ns_units_kind kind, const char *what, double *out, ns_error *err)
{
	const char *rest;
	double value, scale;

	if (text == NULL || !parse_mantissa(text, &value, &rest))
		return ns_error_set(err, NS_ERR_VALUE, "%s: '%s' is not %s", what, text ? text : "",
		                    kind_hint(kind));
	/* "7B" is seven billion parameters but seven bytes: the count form reads B as a prefix. */
	if (kind == NS_UNIT_COUNT && (rest[0] == 'B' || rest[0] == 'b') && rest[1] == '\0') {
		scale = 1e9;
		rest++;
	} else if (kind == NS_UNIT_BYTE && rest[0] == 'B') {
		scale = 1.0;
	} else {
		scale = take_prefix(&rest);
	}
	if (!unit_word_ok(rest, kind))
		return ns_error_set(err, NS_ERR_VALUE, "%s: '%s' is not %s", what, text, kind_hint(kind));
	value *= scale;
	if (!isfinite(value))
		return ns_error_set(err, NS_ERR_VALUE, "%s: '%s' is too large", what, text);
	*out = value;
	return NS_OK;
}

ns_status ns_units_parse_whole(const char *text, ns_units_kind kind, const char *what, double *out,
                               ns_error *err)
{
	double v = 0.0; /* GCC -O2 cannot see that ns_units_parse sets it whenever it returns NS_OK */

	if (ns_units_parse(text, kind, what, &v, err) != NS_OK)
		return err->status;
	if (v < 1.0 || v != floor(v) || v > 9007199254740992.0)
		return ns_error_set(err, NS_ERR_VALUE, "%s: '%s' must be a positive whole number", what,
		                    text);
	*out = v;
	return NS_OK;
}

ns_status ns_units_parse_time(const char *text, const char *what, double *seconds, ns_error *err)
{
	const char *rest;
	double value;

	if (text == NULL || !parse_mantissa(text, &value, &rest))
		return ns_error_set(err, NS_ERR_VALUE, "%s: '%s' is not a duration like 1.3ms, 850us or 2s",
		                    what, text ? text : "");
	if (rest[0] == '\0')
		return ns_error_set(err, NS_ERR_VALUE, "%s: '%s' needs a unit (s, ms, us or ns)", what, text);
	for (size_t i = 0; i < sizeof(time_units) / sizeof(time_units[0]); i++) {
		if (strcmp(rest, time_units[i].word) != 0)
			continue;
		if (value <= 0.0)
			return ns_error_set(err, NS_ERR_VALUE, "%s: '%s' must be longer than zero", what,
			                    text);
		*seconds = value * time_units[i].seconds;
		return NS_OK;
	}
	return ns_error_set(err, NS_ERR_VALUE, "%s: unknown time unit in '%s' (use s, ms, us or ns)", what,
	                    text);
}

/* Digits after the point that keep three significant digits for a mantissa in [1, 1000). */
static int decimals_for(double mantissa)
{
	if (mantissa >= 99.95)
		return 0;
	if (mantissa >= 9.995)
		return 1;
	return 2;
}

char *ns_units_format_si(double value, const char *unit, char *buf, size_t size)
{
	static const char *const names[] = {"", "k", "M", "G", "T", "P", "E"};
	size_t step = 0;
	double m = value;

	while (fabs(m) >= 999.5 && step + 1 < sizeof(names) / sizeof(names[0])) {
		m /= 1000.0;
		step++;
	}
	if (step == 0 && fabs(m) < 1.0) {
		char plain[32];
		snprintf(buf, size, "%s %s", ns_units_format_plain(value, plain, sizeof(plain)), unit);
		return buf;
	}
	snprintf(buf, size, "%.*f %s%s", decimals_for(fabs(m)), m, names[step], unit);
	return buf;
}

char *ns_units_format_time(double seconds, char *buf, size_t size)
{
	static const struct {
		double scale;
		const char *name;
	} scales[] = {{1.0, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
	size_t i = 0;

	while (i + 1 < sizeof(scales) / sizeof(scales[0]) && seconds < scales[i].scale * 0.9995)
		i++;
	double m = seconds / scales[i].scale;
	snprintf(buf, size, "%.*f %s", decimals_for(m), m, scales[i].name);
	return buf;
}

char *ns_units_format_plain(double value, char *buf, size_t size)
{
	double a = fabs(value);

	if (a >= 99.95 || a == 0.0)
		snprintf(buf, size, "%.0f", value);
	else if (a >= 0.9995)
		snprintf(buf, size, "%.*f", decimals_for(a), value);
	else
		snprintf(buf, size, "%.3g", value);
	return buf;
}
