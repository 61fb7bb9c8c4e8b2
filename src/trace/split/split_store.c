/* The window store: every device's step windows, in chunks (split_private.h says how they are kept).
 *
 * A window is 224 bytes and each device has one per step, so a million steps is 224 MB per device; the
 * split's other per-step costs are a few bytes. With a spill directory the store keeps a bounded number of
 * chunks in memory and the rest in an unlinked temporary file: the split and the report read the windows in
 * time order, so each pass reads each chunk once, and peak memory no longer grows with the steps. When the
 * file cannot be made or written (no such directory, a full disk), the chunks stay in memory: the result is
 * the same, only the memory bound is lost. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/split/split_private.h"
#include "util/vec.h"

#define CHUNK_BYTES (SPLIT_STORE_CHUNK * sizeof(ns_split_window))

ns_split_store *split_store_new(const char *dir)
{
	ns_split_store *st = calloc(1, sizeof(*st));

	if (st == NULL)
		return NULL;
	st->fd = -1;
	st->hot = SIZE_MAX;
	if (dir != NULL && (st->dir = strdup(dir)) == NULL) {
		free(st);
		return NULL;
	}
	return st;
}

void split_store_free(ns_split_store *st)
{
	if (st == NULL)
		return;
	for (size_t c = 0; c < st->nchunks; c++)
		free(st->chunk[c].mem);
	free(st->chunk);
	if (st->fd >= 0)
		close(st->fd);
	free(st->dir);
	free(st);
}

ns_status split_store_add(ns_split_store *st, size_t n, size_t *first, ns_error *err)
{
	size_t add = (n + SPLIT_STORE_CHUNK - 1) / SPLIT_STORE_CHUNK;

	*first = st->nchunks * SPLIT_STORE_CHUNK;
	if (add == 0)
		return NS_OK;
	if (add > SIZE_MAX / SPLIT_STORE_CHUNK - st->nchunks)
		return split_oom(err);
	if (st->nchunks + add > st->capchunks) {
		void *v = ns_grow(st->chunk, &st->capchunks, st->nchunks + add, sizeof(*st->chunk));
		if (v == NULL)
			return split_oom(err);
		st->chunk = v;
	}
	memset(st->chunk + st->nchunks, 0, add * sizeof(*st->chunk));
	st->nchunks += add;
	return NS_OK;
}

static void fail(ns_split_store *st, ns_status status, const char *what)
{
	if (st->status != NS_OK)
		return;
	st->status = status;
	snprintf(st->why, sizeof(st->why), "%s", what);
}

/* The temporary file, made on the first spill and unlinked at once: nothing is left behind, whatever way the
 * process ends. False (and no more spilling) when it cannot be made. */
static bool open_spill(ns_split_store *st)
{
	size_t len;
	char *path;

	if (st->fd >= 0)
		return true;
	len = strlen(st->dir) + sizeof("/nextstep-steps-XXXXXX");
	if ((path = malloc(len)) == NULL)
		return false;
	snprintf(path, len, "%s/nextstep-steps-XXXXXX", st->dir);
	st->fd = mkstemp(path);
	if (st->fd >= 0)
		unlink(path);
	free(path);
	return st->fd >= 0;
}

/* Moves chunk c between buf and its place in the file (pwrite or pread), retrying short transfers and EINTR.
 */
static bool transfer_chunk(ns_split_store *st, size_t c, char *buf, bool to_file)
{
	off_t at = (off_t)(c * CHUNK_BYTES);
	size_t done = 0;

	while (done < CHUNK_BYTES) {
		ssize_t k = to_file ? pwrite(st->fd, buf + done, CHUNK_BYTES - done, at + (off_t)done)
		                    : pread(st->fd, buf + done, CHUNK_BYTES - done, at + (off_t)done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		done += (size_t)k;
	}
	return true;
}

static bool write_chunk(ns_split_store *st, size_t c)
{
	return open_spill(st) && transfer_chunk(st, c, (char *)st->chunk[c].mem, true);
}

static bool read_chunk(ns_split_store *st, size_t c, ns_split_window *mem)
{
	return transfer_chunk(st, c, (char *)mem, false);
}

/* Makes room for one more chunk in memory: below the bound, nothing to do (NULL: allocate); at it, the least
 * recently touched chunk goes to the file and its buffer is returned for reuse. When it cannot be written
 * the store stops spilling (dir dropped) and keeps every chunk from then on. */
static ns_split_window *evict(ns_split_store *st)
{
	size_t victim = SIZE_MAX;
	ns_split_window *mem;

	if (st->dir == NULL || st->resident < SPLIT_STORE_RESIDENT)
		return NULL;
	for (size_t c = 0; c < st->nchunks; c++)
		if (st->chunk[c].mem != NULL &&
		    (victim == SIZE_MAX || st->chunk[c].touched < st->chunk[victim].touched))
			victim = c;
	if (victim == SIZE_MAX)
		return NULL;
	if (st->chunk[victim].dirty) {
		if (!write_chunk(st, victim)) {
			free(st->dir);
			st->dir = NULL;
			return NULL;
		}
		st->chunk[victim].dirty = false;
		st->chunk[victim].on_file = true;
	}
	mem = st->chunk[victim].mem;
	st->chunk[victim].mem = NULL;
	st->resident--;
	if (victim == st->hot)
		st->hot = SIZE_MAX;
	return mem;
}

static ns_split_window zero_window(void)
{
	ns_split_window w;

	memset(&w, 0, sizeof(w));
	w.step = -1;
	w.marker = UINT32_MAX;
	return w;
}

/* A window for a caller that must be handed one when there is none to give; what it writes is lost. */
static ns_split_window *scratch(ns_split_store *st)
{
	st->zero = zero_window();
	return &st->zero;
}

/* Brings chunk c into memory; false (st->status set) when it cannot be. */
static bool bring_in(ns_split_store *st, size_t c)
{
	store_chunk *k = &st->chunk[c];
	ns_split_window *mem = evict(st);
	bool zeroed = false;

	/* A new chunk from calloc: its pages stay untouched (not resident) until windows are written there,
	 * and each device takes a whole chunk (448 KiB) however few its steps: a trace of one step and eight
	 * devices wrote 4 MB of zeros. */
	if (mem == NULL) {
		zeroed = !k->on_file;
		mem = zeroed ? calloc(SPLIT_STORE_CHUNK, sizeof(*mem)) : malloc(CHUNK_BYTES);
		if (mem == NULL) {
			fail(st, NS_ERR_NOMEM, "out of memory");
			return false;
		}
	}
	if (!k->on_file) {
		if (!zeroed)
			memset(mem, 0, CHUNK_BYTES);
	} else if (!read_chunk(st, c, mem)) {
		char why[120];
		snprintf(why, sizeof(why), "cannot read step windows back from their temporary file: %s",
		         errno != 0 ? strerror(errno) : "short read");
		fail(st, NS_ERR_IO, why);
		memset(mem, 0, CHUNK_BYTES);
	}
	k->mem = mem;
	st->resident++;
	return true;
}

ns_split_window *split_store_load(ns_split_store *st, size_t i, bool write)
{
	size_t c = i / SPLIT_STORE_CHUNK;
	store_chunk *k;

	if (c >= st->nchunks) {
		fail(st, NS_ERR_INTERNAL, "a step window past the end of the store");
		return scratch(st);
	}
	k = &st->chunk[c];
	if (k->mem == NULL && !bring_in(st, c))
		return scratch(st);
	k->touched = ++st->clock;
	k->dirty = k->dirty || write;
	st->hot = c;
	st->hot_mem = k->mem;
	st->hot_dirty = k->dirty;
	return k->mem + i % SPLIT_STORE_CHUNK;
}

void split_store_copy(ns_split_store *st, size_t to, size_t from, size_t n)
{
	for (size_t o = 0; o < n; o += SPLIT_STORE_CHUNK) {
		size_t m = n - o < SPLIT_STORE_CHUNK ? n - o : SPLIT_STORE_CHUNK;
		const ns_split_window *src = split_store_at(st, from + o, false);
		ns_split_window *dst =
		    split_store_at(st, to + o, true); /* src, touched last, is not evicted */
		memmove(dst, src, m * sizeof(*dst));  /* both the scratch window when neither can be had */
	}
}

ns_split_window ns_split_device_step(const ns_split_device *d, size_t i)
{
	if (i >= d->nsteps || d->store == NULL)
		return zero_window();
	return *split_store_at(d->store, d->first + i, false);
}

ns_status ns_split_result_steps_status(const ns_split_result *res, ns_error *err)
{
	if (res->store == NULL || res->store->status == NS_OK)
		return NS_OK;
	return ns_error_set(err, res->store->status, "%s", res->store->why);
}

ns_status ns_split_device_set_steps(ns_split_result *res, ns_split_device *d, const ns_split_window *w,
                                    size_t n, ns_error *err)
{
	ns_status st;

	if (res->store == NULL && (res->store = split_store_new(NULL)) == NULL)
		return split_oom(err);
	if ((st = split_store_add(res->store, n, &d->first, err)) != NS_OK)
		return st;
	d->store = res->store;
	d->nsteps = n;
	for (size_t i = 0; i < n; i++)
		*split_store_at(res->store, d->first + i, true) = w[i];
	return NS_OK;
}

void ns_split_result_free_store(ns_split_result *res)
{
	split_store_free(res->store);
	res->store = NULL;
}
