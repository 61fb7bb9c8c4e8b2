/* The one way libnextstep grows an array: a buffer of fixed-size elements that doubles when full, kept by its
 * owner as (pointer, count, capacity): `p = ns_grow(p, &cap, n + 1, sizeof(*p))`, NULL checked, stored back.
 * Not installed: for the library and the command line (see CONTRIBUTING.md). */
#ifndef NEXTSTEP_UTIL_VEC_H
#define NEXTSTEP_UTIL_VEC_H

#include <stdbool.h>
#include <stddef.h>

/* Makes room for at least need elements of elem bytes in data, whose capacity (in elements) is *cap, and
 * returns the buffer, which may have moved (store it back: p = ns_grow(p, ...)). Doubles, starting at 16.
 * NULL, with data still valid and *cap unchanged, when need * elem overflows or on OOM. Returns data itself
 * when it already has room (even NULL for need 0). */
void *ns_grow(void *data, size_t *cap, size_t need, size_t elem);
/* ns_grow for a buffer with a size limit (an input read whole, one line of a stream): doubles, but to no more
 * than max elements. NULL, with data still valid and *cap unchanged, when need > max, when need * elem
 * overflows, or on OOM; the caller tells a limit from OOM by need > max. */
void *ns_grow_capped(void *data, size_t *cap, size_t need, size_t elem, size_t max);

/* ns_grow for an array appended to one element at a time (need, at least 1, is the count after the append),
 * whose pages are made present 64 KiB ahead of the writer, within its capacity: a first write to each page
 * would fault on its own, and one madvise(MADV_POPULATE_WRITE) for 16 pages costs less (on the 2-vCPU VM of
 * docs/performance.md, 6.0 us a page against 10.8). *done, kept beside the capacity, is the bytes known
 * present; it starts at 0. */
void *ns_grow_prefaulted(void *data, size_t *cap, size_t need, size_t elem, size_t *done);

#endif
