/* The one growable array of libnextstep: a buffer of fixed-size elements that doubles when full.
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

/* A vector of elements of one size; owns data. Zero-initialise with NS_VEC_INIT(type). */
typedef struct {
	void *data;
	size_t len, cap; /* in elements */
	size_t elem;     /* bytes per element */
} ns_vec;

#define NS_VEC_INIT(type)                                                                                    \
	{                                                                                                    \
		NULL, 0, 0, sizeof(type)                                                                     \
	}
#define NS_VEC_AT(v, type, i) (((type *)(v)->data)[i])

/* Capacity for at least n elements in all. False on overflow or OOM (the vector is unchanged). */
bool ns_vec_reserve(ns_vec *v, size_t n);
/* Appends one zeroed element and returns it, or NULL on overflow or OOM. */
void *ns_vec_push(ns_vec *v);
/* Appends n elements copied from items. False on overflow or OOM (the vector is unchanged). */
bool ns_vec_append(ns_vec *v, const void *items, size_t n);
/* Frees the elements; the vector is empty and reusable afterwards. */
void ns_vec_free(ns_vec *v);

#endif
