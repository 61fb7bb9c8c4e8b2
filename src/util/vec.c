#define _DEFAULT_SOURCE /* madvise() and MADV_POPULATE_WRITE */
#include "util/vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

void *ns_grow(void *data, size_t *cap, size_t need, size_t elem)
{
	return ns_grow_capped(data, cap, need, elem, elem != 0 ? SIZE_MAX / elem : 0);
}

void *ns_grow_capped(void *data, size_t *cap, size_t need, size_t elem, size_t max)
{
	size_t want = *cap != 0 ? *cap : 16;
	void *grown;

	if (need <= *cap)
		return data;
	if (elem == 0 || need > max || need > SIZE_MAX / elem)
		return NULL;
	while (want < need)
		want = want <= max / 2 ? want * 2 : max;
	if (want > max || want > SIZE_MAX / elem)
		want = need; /* the first size (16), or a max too large for elem, is past the limit */
	grown = realloc(data, want * elem);
	if (grown != NULL)
		*cap = want;
	return grown;
}

/* Makes the 64 KiB of data past used bytes (within cap bytes) present, and past *done; nothing is written. */
static void prefault_ahead(void *data, size_t used, size_t cap, size_t *done)
{
#ifdef MADV_POPULATE_WRITE
	/* glibc reads the page size from the auxiliary vector: no syscall */
	const long page_size = sysconf(_SC_PAGESIZE);
	const uintptr_t page = page_size > 0 ? (uintptr_t)page_size : 4096, step = 64 * 1024;
	uintptr_t base = (uintptr_t)data, from = used > *done ? used : *done;
	uintptr_t lo = (base + from + page - 1) & ~(page - 1);
	uintptr_t hi = (base + (cap < used + step ? cap : used + step)) & ~(page - 1);

	if (hi > lo) /* an error (a kernel before 5.14: EINVAL) leaves the pages to fault one by one */
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
	*done = hi > base + from ? hi - base : from;
#else
	(void)data;
	(void)used;
	*done = cap;
#endif
}

void *ns_grow_prefaulted(void *data, size_t *cap, size_t need, size_t elem, size_t *done)
{
	void *grown = ns_grow(data, cap, need, elem);
	size_t used = (need - 1) * elem;

	if (grown == NULL)
		return NULL;
	if (grown != data)
		*done = used; /* a move keeps the pages written so far, not those made present past them */
	if (need * elem > *done)
		prefault_ahead(grown, used, *cap * elem, done);
	return grown;
}
