#include "util/sort.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
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

/* The stable sort orders pointers to the elements, then moves each element once: a table's records are 24 to
 * 200 bytes, and merging them would copy each about log2(n) times, through a second table as large (whose
 * fresh pages cost more than the sort where page faults are dear). */

/* Insertion sort of the pointers p[0..n): one moves only past elements greater than its own. */
static void insertion_sort_ptrs(const char **p, size_t n, ns_cmp_fn cmp)
{
	for (size_t i = 1; i < n; i++) {
		const char *x = p[i];
		size_t j = i;
		for (; j > 0 && cmp(p[j - 1], x) > 0; j--)
			p[j] = p[j - 1];
		p[j] = x;
	}
}

/* Merges the sorted runs p[0..na) and p[na..n): the left run goes to tmp and the merge writes back from the
 * start, never past the right run's next pointer. On a tie the left run's element goes first. */
static void merge_ptrs(const char **p, size_t na, size_t n, ns_cmp_fn cmp, const char **tmp)
{
	size_t l = 0, r = na, out = 0;

	if (cmp(p[na - 1], p[na]) <= 0) /* already in order */
		return;
	memcpy(tmp, p, na * sizeof(*p));
	while (l < na && r < n)
		p[out++] = cmp(p[r], tmp[l]) < 0 ? p[r++] : tmp[l++];
	while (l < na) /* what is left of the right run is in place already */
		p[out++] = tmp[l++];
}

/* Moves the elements where the sorted pointers say, following each cycle of the permutation with one element
 * set aside in spare; p[i] is set to i's own place once filled. */
static void apply_order(char *b, const char **p, size_t n, size_t size, char *spare)
{
	for (size_t i = 0; i < n; i++) {
		size_t j = i;
		if (p[i] == b + i * size)
			continue;
		memcpy(spare, b + i * size, size);
		while (p[j] != b + i * size) {
			size_t from = (size_t)(p[j] - b) / size;
			memcpy(b + j * size, p[j], size);
			p[j] = b + j * size;
			j = from;
		}
		memcpy(b + j * size, spare, size);
		p[j] = b + j * size;
	}
}

#define STABLE_RUN 16 /* runs of this many are sorted by insertion, then merged pairwise */

bool ns_sort_stable(void *base, size_t n, size_t size, ns_cmp_fn cmp)
{
	char *b = base;
	const char **p;

	if (n < 2 || is_sorted(b, n, size, cmp))
		return true;
	if (n > (SIZE_MAX - size) / (2 * sizeof(*p)) || (p = malloc(2 * n * sizeof(*p) + size)) == NULL)
		return false;
	for (size_t i = 0; i < n; i++)
		p[i] = b + i * size;
	for (size_t i = 0; i < n; i += STABLE_RUN)
		insertion_sort_ptrs(p + i, n - i < STABLE_RUN ? n - i : STABLE_RUN, cmp);
	for (size_t w = STABLE_RUN; w < n; w *= 2)
		for (size_t i = 0; i + w < n; i += 2 * w)
			merge_ptrs(p + i, w, n - i < 2 * w ? n - i : 2 * w, cmp, p + n);
	apply_order(b, p, n, size, (char *)(p + 2 * n));
	free(p);
	return true;
}

void *ns_bsearch(const void *key, const void *base, size_t n, size_t size, ns_cmp_fn cmp)
{
	return n > 0 ? bsearch(key, base, n, size, cmp) : NULL;
}
