/* StringIds held in memory: read once, so that the names of every row are found by id without a join (a join
 * costs each row a B-tree seek into StringIds and a second text copy). A real export's table holds the
 * kernel, CUDA call, OS call and registered NVTX names: thousands of strings, a few MiB; a table past the
 * caps below stays on disk and the reader joins instead (nsys_read.c). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "nsys_private.h"
#include "nsys_sqlite.h"
#include "util/vec.h"

/* Caps on the table held: escaped text bytes, and rows (16 bytes each of index). */
#define STRINGS_MAX_BYTES (64u << 20)
#define STRINGS_MAX_ROWS  (2u << 20)

void nsys_strings_free(nsys_strings *s)
{
	free(s->ids);
	free(s->off);
	free(s->text);
	memset(s, 0, sizeof(*s));
}

/* Appends one string (escaped as every ns_trace_event string is); false when a cap is reached or memory
 * runs out. */
static bool add(nsys_strings *s, int64_t id, const unsigned char *v, size_t len, char **buf, size_t *cap)
{
	size_t n = len;
	bool too_long = false;
	const char *text = (const char *)v;
	void *p;

	if (nsys_needs_escape(v, len)) {
		if ((text = nsys_escape(v, len, buf, cap, &n, &too_long)) == NULL)
			return false;
	}
	if (s->n >= STRINGS_MAX_ROWS || n > STRINGS_MAX_BYTES - s->text_len)
		return false;
	if ((p = ns_grow(s->ids, &s->cap_ids, s->n + 1, sizeof(*s->ids))) == NULL)
		return false;
	s->ids = p;
	if ((p = ns_grow(s->off, &s->cap_off, s->n + 2, sizeof(*s->off))) == NULL)
		return false;
	s->off = p;
	if (s->n == 0)
		s->off[0] = 0;
	if ((p = ns_grow(s->text, &s->cap_text, s->text_len + n + 1, 1)) == NULL)
		return false;
	s->text = p;
	memcpy(s->text + s->text_len, text, n);
	s->text_len += n;
	s->ids[s->n++] = id;
	s->off[s->n] = (uint32_t)s->text_len;
	return true;
}

bool nsys_strings_load(sqlite3 *db, nsys_strings *s)
{
	sqlite3_stmt *st = NULL;
	char *buf = NULL;
	size_t cap = 0;
	bool ok = true;
	int rc;

	memset(s, 0, sizeof(*s));
	/* a scan in rowid order: StringIds.id is the rowid (nsys_schema_read checks it), so ids ascend */
	if (sqlite3_prepare_v2(db, "SELECT id, value FROM StringIds", -1, &st, NULL) != SQLITE_OK)
		return false;
	while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(st, 1);
		ok = v != NULL || sqlite3_column_type(st, 1) == SQLITE_NULL;
		if (ok)
			ok = add(s, sqlite3_column_int64(st, 0), v != NULL ? v : (const unsigned char *)"",
			         (size_t)sqlite3_column_bytes(st, 1), &buf, &cap);
	}
	ok = ok && rc == SQLITE_DONE;
	sqlite3_finalize(st);
	free(buf);
	if (!ok)
		nsys_strings_free(s);
	else
		s->loaded = true;
	return ok;
}

bool nsys_strings_get(const nsys_strings *s, int64_t id, ns_str *out)
{
	size_t lo = 0, hi = s->n;
	uint64_t at;

	if (s->n == 0)
		return false;
	/* dense ids (nsys numbers them from 0 or 1 without gaps) sit at their offset from the first
	 * (unsigned: hostile ids span the whole int64 range) */
	at = (uint64_t)id - (uint64_t)s->ids[0];
	if (id >= s->ids[0] && at < s->n && s->ids[at] == id) {
		lo = (size_t)at;
	} else {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (s->ids[mid] < id)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == s->n || s->ids[lo] != id)
			return false;
	}
	*out = (ns_str){s->text + s->off[lo], s->off[lo + 1] - s->off[lo]};
	return true;
}
