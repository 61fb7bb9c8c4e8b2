#include "util/sort.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int ns_cmp_i64(const void *a, const void *b)
{
	return ns_order_i64(*(const int64_t *)a, *(const int64_t *)b);
}

int ns_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return (x > y) - (x < y);
}

static void swap_elems(char *a, char *b, size_t size)
{
	char t[NS_SORT_ELEM_MAX];

	memcpy(t, a, size);
	memcpy(a, b, size);
	memcpy(b, t, size);
}

static void sift_down(char *b, size_t root, size_t n, size_t size, ns_cmp_fn cmp)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n && cmp(b + child * size, b + (child + 1) * size) < 0)
			child++;
		if (cmp(b + root * size, b + child * size) >= 0)
			return;
		swap_elems(b + root * size, b + child * size, size);
		root = child;
	}
}

static void heap_sort(char *b, size_t n, size_t size, ns_cmp_fn cmp)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(b, i, n, size, cmp);
	for (size_t end = n; end-- > 1;) {
		swap_elems(b, b + end * size, size);
		sift_down(b, 0, end, size, cmp);
	}
}

static void insertion_sort(char *b, size_t n, size_t size, ns_cmp_fn cmp)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp(b + (j - 1) * size, b + j * size) > 0; j--)
			swap_elems(b + (j - 1) * size, b + j * size, size);
}

/* Hoare partition around the median of the first, middle and last; returns the size of the left part,
 * which is never 0 nor n, so the recursion always shrinks. */
static size_t partition(char *b, size_t n, size_t size, ns_cmp_fn cmp)
{
	char pivot[NS_SORT_ELEM_MAX];
	char *lo = b, *mid = b + n / 2 * size, *hi = b + (n - 1) * size;
	size_t i = 0, j = n - 1;

	if (cmp(mid, lo) < 0)
		swap_elems(mid, lo, size);
	if (cmp(hi, mid) < 0)
		swap_elems(hi, mid, size);
	if (cmp(mid, lo) < 0)
		swap_elems(mid, lo, size);
	memcpy(pivot, mid, size);
	for (;;) {
		while (cmp(b + i * size, pivot) < 0)
			i++;
		while (cmp(pivot, b + j * size) < 0)
			j--;
		if (i >= j)
			return j + 1;
		swap_elems(b + i * size, b + j * size, size);
		i++;
		j--;
	}
}

/* Quicksort, heapsort past a depth limit (so adversarial orders stay O(n log n)), insertion sort for short
 * runs; recursion only into the smaller part, so the stack stays O(log n). */
static void intro_sort(char *b, size_t n, size_t size, ns_cmp_fn cmp, int depth)
{
	while (n > 16) {
		size_t left;
		if (depth-- == 0) {
			heap_sort(b, n, size, cmp);
			return;
		}
		left = partition(b, n, size, cmp);
		if (left < n - left) {
			intro_sort(b, left, size, cmp, depth);
			b += left * size;
			n -= left;
		} else {
			intro_sort(b + left * size, n - left, size, cmp, depth);
			n = left;
		}
	}
	insertion_sort(b, n, size, cmp);
}

static bool is_sorted(const char *b, size_t n, size_t size, ns_cmp_fn cmp)
{
	for (size_t i = 1; i < n; i++)
		if (cmp(b + (i - 1) * size, b + i * size) > 0)
			return false;
	return true;
}

void ns_sort(void *base, size_t n, size_t size, ns_cmp_fn cmp)
{
	int depth = 0;

	if (n < 2 || is_sorted(base, n, size, cmp))
		return;
	if (size > NS_SORT_ELEM_MAX) {
		qsort(base, n, size, cmp);
		return;
	}
	for (size_t k = n; k > 1; k >>= 1)
		depth += 2;
	intro_sort(base, n, size, cmp, depth);
}

void *ns_bsearch(const void *key, const void *base, size_t n, size_t size, ns_cmp_fn cmp)
{
	return n > 0 ? bsearch(key, base, n, size, cmp) : NULL;
}
