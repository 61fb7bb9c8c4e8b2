/* Numbers as people write them on a command line: 2.1T, 64GiB, 7B, 1.3ms, 850us; and back to short text. */
#ifndef NEXTSTEP_UNITS_H
#define NEXTSTEP_UNITS_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/units.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stddef.h>

#include "nextstep/api.h"
#include "nextstep/error.h"

NS_BEGIN_DECLS

/* What a quantity counts; it decides which unit words are accepted after the number. */
typedef enum {
	NS_UNIT_COUNT, /* plain count (elements, parameters): also "B" for billion, as in 7B parameters */
	NS_UNIT_FLOP,  /* optional "FLOP", "FLOPs" or "FLOPS" after the prefix */
	NS_UNIT_BYTE   /* optional "B" after the prefix; "B" alone means bytes */
} ns_units_kind;

/* Parses a non-negative finite number with an optional decimal (k M G T P E, case-insensitive) or binary
 * (Ki Mi Gi Ti Pi Ei) prefix and the unit word allowed by kind. Rejects negatives, NaN, Inf, empty text and
 * trailing junk. what names the option in the message ("--bytes"). */
NS_STATIC_API ns_status ns_units_parse(const char *text, ns_units_kind kind, const char *what, double *out,
                                       ns_error *err);
/* Parses a duration into seconds. A unit is required: s, ms, us (or µs), ns. */
NS_STATIC_API ns_status ns_units_parse_time(const char *text, const char *what, double *seconds,
                                            ns_error *err);
/* Parses a positive whole number with an optional decimal/binary prefix (no fractions after scaling). */
NS_STATIC_API ns_status ns_units_parse_whole(const char *text, ns_units_kind kind, const char *what,
                                             double *out, ns_error *err);

/* value in three significant digits with a decimal prefix and unit: "989 TFLOP/s", "3.35 TB/s", "403 MB".
 * Returns buf. */
NS_STATIC_API char *ns_units_format_si(double value, const char *unit, char *buf, size_t size);
/* Seconds as "1.30 ms", "850 us", "2.00 s". Returns buf. */
NS_STATIC_API char *ns_units_format_time(double seconds, char *buf, size_t size);
/* A plain number without exponent, three significant digits or more: 2731, 295, 12.5, 0.0833. */
NS_STATIC_API char *ns_units_format_plain(double value, char *buf, size_t size);

NS_END_DECLS

#endif
