#include "util/vec.h"

#include <stdint.h>
#include <stdlib.h>

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
