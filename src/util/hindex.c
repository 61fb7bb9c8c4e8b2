#include "util/hindex.h"

#include <stdlib.h>
#include <string.h>

#define SLOTS_MAX ((size_t)NS_HINDEX_MAX * 2)

bool ns_hindex_init(ns_hindex *t, size_t expect)
{
	size_t nslots = 16;

	while (nslots / 2 < expect && nslots < SLOTS_MAX)
		nslots *= 2;
	t->slot = calloc(nslots, sizeof(*t->slot));
	t->nslots = t->slot != NULL ? nslots : 0;
	t->n = 0;
	return t->slot != NULL;
}

void ns_hindex_free(ns_hindex *t)
{
	free(t->slot);
	t->slot = NULL;
	t->nslots = t->n = 0;
}

static void place(ns_hslot *slot, size_t nslots, ns_hslot s)
{
	size_t i = s.tag & (nslots - 1);

	while (slot[i].id != 0)
		i = (i + 1) & (nslots - 1);
	slot[i] = s;
}

static bool rehash(ns_hindex *t)
{
	size_t nslots = t->nslots * 2;
	ns_hslot *slot;

	if (nslots > SLOTS_MAX)
		return false;
	if ((slot = calloc(nslots, sizeof(*slot))) == NULL)
		return false;
	for (size_t i = 0; i < t->nslots; i++)
		if (t->slot[i].id != 0)
			place(slot, nslots, t->slot[i]);
	free(t->slot);
	t->slot = slot;
	t->nslots = nslots;
	return true;
}

bool ns_hindex_add(ns_hindex *t, uint64_t h, uint32_t id)
{
	ns_hslot s = {id + 1, (uint32_t)h};

	if (t->n >= NS_HINDEX_MAX || id >= NS_HINDEX_MAX)
		return false;
	/* Half full at most, so chains stay short and a probe always ends at an empty slot. */
	if ((t->n + 1) * 2 > t->nslots && !rehash(t))
		return false;
	place(t->slot, t->nslots, s);
	t->n++;
	return true;
}

uint64_t ns_hash_bytes(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)len, w = 0;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	if (len > i)
		memcpy(&w, b + i, len - i);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

uint64_t ns_hash_i64_pair(int64_t a, int64_t b)
{
	uint64_t h = (uint64_t)a * 0x9e3779b97f4a7c15ull ^ (uint64_t)b * 0xc2b2ae3d27d4eb4full;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}
