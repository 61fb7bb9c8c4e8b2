/* The one hash table of libnextstep: an open-addressing index from a 64-bit hash to the position of an
 * entry that the caller keeps in its own array (so entries stay dense and ids stay small). The caller
 * confirms each candidate, since different keys can share a hash. Private to the library.
 *
 *   size_t slot = ns_hindex_home(&t, h);
 *   uint32_t id;
 *   while (ns_hindex_probe(&t, h, &slot, &id))
 *           if (same_key(&entry[id], key))
 *                   return id;
 *   ... append the new entry as id n, then ns_hindex_add(&t, h, n) ...
 */
#ifndef NEXTSTEP_UTIL_HINDEX_H
#define NEXTSTEP_UTIL_HINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most entries one index holds (its slots then take 16 GiB). */
#define NS_HINDEX_MAX (1u << 30)

typedef struct {
	uint32_t id;  /* entry + 1; 0 = empty */
	uint32_t tag; /* the low 32 bits of the entry's hash: places it on rehash, filters candidates */
} ns_hslot;

typedef struct {
	ns_hslot *slot;
	size_t nslots; /* a power of two, at least twice n */
	size_t n;
} ns_hindex;

/* An empty index sized for about expect entries. False on OOM. Free with ns_hindex_free(). */
bool ns_hindex_init(ns_hindex *t, size_t expect);
void ns_hindex_free(ns_hindex *t);

/* Where the search for hash h starts. */
static inline size_t ns_hindex_home(const ns_hindex *t, uint64_t h)
{
	return (size_t)((uint32_t)h & (t->nslots - 1));
}

/* The next entry at or after *slot whose hash may be h: true with its id, *slot moved past it; false at the
 * end of the chain (h is not in the index, unless a candidate already matched). */
static inline bool ns_hindex_probe(const ns_hindex *t, uint64_t h, size_t *slot, uint32_t *id)
{
	for (;;) {
		const ns_hslot *s = &t->slot[*slot];
		if (s->id == 0)
			return false;
		*slot = (*slot + 1) & (t->nslots - 1);
		if (s->tag == (uint32_t)h) {
			*id = s->id - 1;
			return true;
		}
	}
}

/* Records entry id under hash h (the caller has checked it is absent); grows the index as needed.
 * False on OOM or past NS_HINDEX_MAX entries, with the index unchanged. */
bool ns_hindex_add(ns_hindex *t, uint64_t h, uint32_t id);

/* Hashes for keys: bytes (eight at a time: kernel names run to hundreds of bytes), and pairs of ids. */
uint64_t ns_hash_bytes(const void *p, size_t len);
uint64_t ns_hash_i64_pair(int64_t a, int64_t b);

#endif
