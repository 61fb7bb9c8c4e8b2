/* Sorting and searching tables of records. Private to the library. */
#ifndef NEXTSTEP_UTIL_SORT_H
#define NEXTSTEP_UTIL_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int (*ns_cmp_fn)(const void *, const void *);

/* Records up to this size are sorted in place; larger ones go to qsort. */
#define NS_SORT_ELEM_MAX 64

/* Sorts in place (introsort: O(n log n) worst case, no second buffer as large as the table, unlike glibc's
 * qsort, which would double the peak memory). Not stable. An already sorted table is only checked. */
void ns_sort(void *base, size_t n, size_t size, ns_cmp_fn cmp);
/* Sorts stably: elements that compare equal keep their order. The order of ties is then the program's, not
 * the C library's (glibc's qsort is a merge sort unless memory is short; musl's and the BSDs' are not
 * stable), so output that shows the first of equal elements is the same everywhere. A merge sort of pointers
 * to the elements (16 bytes of scratch an element); false, the table as it was, when that cannot be had. An
 * already sorted table is only checked. */
bool ns_sort_stable(void *base, size_t n, size_t size, ns_cmp_fn cmp);
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
