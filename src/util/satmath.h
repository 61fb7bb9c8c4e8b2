/* Saturating int64 arithmetic: trace timestamps and durations come from files, so sums and products of
 * them must clamp instead of overflowing (which is undefined behaviour in C). Private to the library. */
#ifndef NEXTSTEP_UTIL_SATMATH_H
#define NEXTSTEP_UTIL_SATMATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* a + b, clamped to [INT64_MIN, INT64_MAX]. */
static inline int64_t ns_sat_add_i64(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* a - b, clamped to [INT64_MIN, INT64_MAX]. */
static inline int64_t ns_sat_sub_i64(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* a + b, UINT32_MAX when it does not fit (narrow counters such as ns_split_window's). */
static inline uint32_t ns_sat_add_u32(uint32_t a, uint32_t b)
{
	return b > UINT32_MAX - a ? UINT32_MAX : a + b;
}

/* a * b, clamped to [INT64_MIN, INT64_MAX]. */
static inline int64_t ns_sat_mul_i64(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
	return r;
}

/* *out = a * b; false when that does not fit in size_t. */
static inline bool ns_size_mul(size_t a, size_t b, size_t *out)
{
	return !__builtin_mul_overflow(a, b, out);
}

/* *out = a + b; false when that does not fit in size_t. */
static inline bool ns_size_add(size_t a, size_t b, size_t *out)
{
	return !__builtin_add_overflow(a, b, out);
}

#endif
