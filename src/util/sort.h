/* Sorting and searching tables of records. Private to the library. */
#ifndef NEXTSTEP_UTIL_SORT_H
#define NEXTSTEP_UTIL_SORT_H

#include <stddef.h>
#include <stdint.h>

typedef int (*ns_cmp_fn)(const void *, const void *);

/* Records up to this size are sorted in place; larger ones go to qsort. */
#define NS_SORT_ELEM_MAX 64

/* Sorts in place (introsort: O(n log n) worst case, no second buffer as large as the table, unlike glibc's
 * qsort, which would double the peak memory). Not stable. An already sorted table is only checked. */
void ns_sort(void *base, size_t n, size_t size, ns_cmp_fn cmp);
/* bsearch that accepts an empty table with a NULL base. */
void *ns_bsearch(const void *key, const void *base, size_t n, size_t size, ns_cmp_fn cmp);

/* -1, 0, 1 as a < b, a == b, a > b (never a - b, which overflows). */
static inline int ns_order_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/* qsort-style comparators for arrays of int64_t and double (NaN sorts last). */
int ns_cmp_i64(const void *a, const void *b);
int ns_cmp_double(const void *a, const void *b);

#endif
