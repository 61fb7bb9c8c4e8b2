#include "util/vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

bool ns_vec_reserve(ns_vec *v, size_t n)
{
	void *grown;

	if (n <= v->cap)
		return true;
	if ((grown = ns_grow(v->data, &v->cap, n, v->elem)) == NULL)
		return false;
	v->data = grown;
	return true;
}

void *ns_vec_push(ns_vec *v)
{
	char *slot;

	if (v->len == SIZE_MAX || !ns_vec_reserve(v, v->len + 1))
		return NULL;
	slot = (char *)v->data + v->len * v->elem;
	memset(slot, 0, v->elem);
	v->len++;
	return slot;
}

bool ns_vec_append(ns_vec *v, const void *items, size_t n)
{
	if (n == 0)
		return true;
	if (n > SIZE_MAX - v->len || !ns_vec_reserve(v, v->len + n))
		return false;
	memcpy((char *)v->data + v->len * v->elem, items, n * v->elem);
	v->len += n;
	return true;
}

void ns_vec_free(ns_vec *v)
{
	free(v->data);
	v->data = NULL;
	v->len = v->cap = 0;
}
