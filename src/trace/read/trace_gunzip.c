#define _POSIX_C_SOURCE 200809L
#include "trace/read/trace_gunzip.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "util/magic.h"

/* Four 128 KiB slots keep the inflater a little ahead of the parser. They and the compressed input are what
 * gzip input adds to the peak RSS (1.1 MB with 256 KiB slots and 128 KiB of input, 0.6 MB now), and as a read
 * hands out one slot at most, the reader touches its window only a slot past what it keeps (docs/
 * performance.md, issue 27). A full ring wakes the inflater only once half of it is free again: a thread's
 * sleep and wake costs tens of microseconds on a virtual machine, and a wake per slot made small slots cost
 * 10 % more CPU. */
#define RING_SLOTS 4
#define SLOT_BYTES (128u << 10)
#define ZIN_BYTES  (64u << 10)
#define RING_LOW   (RING_SLOTS / 2) /* full slots at which a waiting inflater is woken */

typedef struct {
	unsigned char *data;
	size_t len;
} ring_slot;

struct trace_source {
	ns_input *in;
	bool gz;
	unsigned char magic[2]; /* bytes read to sniff; handed out (plain) or inflated (gzip) first */
	size_t magic_len, magic_pos;

	/* gzip only: everything below is shared with the inflating thread under mu. */
	pthread_t thread;
	bool thread_started;
	/* the input is not a regular file: a read may wait for ever (a pipe, a terminal) */
	bool read_may_wait;
	pthread_mutex_t mu;
	pthread_cond_t slot_free, slot_full;
	ring_slot ring[RING_SLOTS];
	size_t fill_at, take_at, full; /* ring indices and number of full slots */
	size_t take_off;               /* bytes of ring[take_at] already handed out */
	bool producer_done;            /* no more slots will come */
	bool stop;                     /* the consumer has gone away */
	ns_status status;              /* the producer's outcome, valid once producer_done */
	bool truncated;                /* the outcome is a stream that stopped before its end */
	char msg[256];
	long long err_offset;
	/* Inflated by the reading thread itself, into ring[0] (the caller allows no thread of ours). */
	bool inline_gz;
	bool member_done;

	/* owned by the thread while it runs */
	z_stream zs;
	unsigned char *zin;
	long long produced;
};

static ns_status read_magic(trace_source *src, ns_error *err)
{
	while (src->magic_len < 2) {
		ssize_t got = ns_input_read(src->in, src->magic + src->magic_len, 2 - src->magic_len);
		if (got < 0)
			return ns_error_set(err, NS_ERR_IO, "read error: %s", strerror(src->in->read_errno));
		if (got == 0)
			break;
		src->magic_len += (size_t)got;
	}
	src->gz = ns_is_gzip(src->magic, src->magic_len);
	return NS_OK;
}

/* Records the producer's failure; the consumer reports it after the bytes that came before it. */
static void producer_fail(trace_source *src, ns_status status, const char *what, const char *detail)
{
	pthread_mutex_lock(&src->mu);
	src->status = status;
	snprintf(src->msg, sizeof(src->msg), "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
	src->err_offset = src->produced;
	pthread_mutex_unlock(&src->mu);
}

/* Refills the compressed-input window. Returns 1 with bytes, 0 at EOF, -1 on a read error. */
static int feed_input(trace_source *src)
{
	ssize_t got;

	if (src->magic_pos < src->magic_len) {
		memcpy(src->zin, src->magic, src->magic_len);
		src->zs.next_in = src->zin;
		src->zs.avail_in = (uInt)src->magic_len;
		src->magic_pos = src->magic_len;
		return 1;
	}
	/* The only place the thread may be cancelled: a pipe that stays open must not keep close() waiting.
	 * Inline, this is the caller's thread, whose cancel state is not ours to change. */
	if (!src->inline_gz)
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	got = ns_input_read(src->in, src->zin, ZIN_BYTES);
	if (!src->inline_gz)
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	if (got < 0) {
		producer_fail(src, NS_ERR_IO, "read error", strerror(src->in->read_errno));
		return -1;
	}
	src->zs.next_in = src->zin;
	src->zs.avail_in = (uInt)got;
	return got > 0;
}

/* Inflates into one slot until it is full or the stream ends. Returns false when the producer is done
 * (end of input or an error already recorded). */
static bool inflate_slot(trace_source *src, ring_slot *slot, bool *member_done)
{
	src->zs.next_out = slot->data;
	src->zs.avail_out = SLOT_BYTES;
	while (src->zs.avail_out > 0) {
		int rc;
		if (src->zs.avail_in == 0) {
			int fed;
			/* Hand over what is inflated before a read that may block (a slow pipe). */
			if (slot->len > 0)
				return true;
			fed = feed_input(src);
			if (fed < 0)
				return false;
			if (fed == 0) {
				if (!*member_done) {
					producer_fail(src, NS_ERR_SYNTAX, "truncated gzip data", NULL);
					pthread_mutex_lock(&src->mu);
					src->truncated = true;
					pthread_mutex_unlock(&src->mu);
				}
				return false;
			}
		}
		if (*member_done) {
			/* Another member follows (concatenated gzip): start it with a fresh header. */
			if (inflateReset(&src->zs) != Z_OK) {
				producer_fail(src, NS_ERR_INTERNAL, "inflateReset failed", NULL);
				return false;
			}
			*member_done = false;
		}
		rc = inflate(&src->zs, Z_NO_FLUSH);
		slot->len = SLOT_BYTES - src->zs.avail_out;
		if (rc == Z_STREAM_END) {
			*member_done = true;
		} else if (rc == Z_MEM_ERROR) {
			producer_fail(src, NS_ERR_NOMEM, "out of memory inflating gzip data", NULL);
			return false;
		} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			producer_fail(src, NS_ERR_SYNTAX, "bad gzip data",
			              src->zs.msg ? src->zs.msg : "corrupt stream");
			return false;
		}
	}
	return true;
}

static void *inflate_thread(void *arg)
{
	trace_source *src = arg;
	bool member_done = false;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);

	for (;;) {
		ring_slot *slot;
		bool more;

		pthread_mutex_lock(&src->mu);
		if (src->full == RING_SLOTS)
			while (src->full > RING_LOW && !src->stop)
				pthread_cond_wait(&src->slot_free, &src->mu);
		if (src->stop) {
			pthread_mutex_unlock(&src->mu);
			break;
		}
		slot = &src->ring[src->fill_at];
		pthread_mutex_unlock(&src->mu);

		slot->len = 0;
		more = inflate_slot(src, slot, &member_done);

		pthread_mutex_lock(&src->mu);
		src->produced += (long long)slot->len;
		if (slot->len > 0) {
			src->fill_at = (src->fill_at + 1) % RING_SLOTS;
			src->full++;
		}
		if (!more) {
			if (src->status != NS_OK)
				src->err_offset = src->produced;
			src->producer_done = true;
		}
		pthread_cond_signal(&src->slot_full);
		pthread_mutex_unlock(&src->mu);
		if (!more)
			break;
	}
	return NULL;
}

static ns_status start_inflater(trace_source *src, bool threaded, ns_error *err)
{
	struct stat st;

	for (size_t i = 0; i < (threaded ? RING_SLOTS : 1); i++) {
		src->ring[i].data = malloc(SLOT_BYTES);
		if (src->ring[i].data == NULL)
			return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	src->zin = malloc(ZIN_BYTES);
	if (src->zin == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	if (inflateInit2(&src->zs, 16 + MAX_WBITS) != Z_OK)
		return ns_error_set(err, NS_ERR_NOMEM, "cannot initialise zlib");
	pthread_mutex_init(&src->mu, NULL);
	pthread_cond_init(&src->slot_free, NULL);
	pthread_cond_init(&src->slot_full, NULL);
	/* No thread to be had (a process at its limit): inflated inline, as with one thread, not an error.
	 * The thread reads inline_gz (feed_input()), so it is set before the thread starts, and after only
	 * when none did. */
	src->inline_gz = false;
	src->read_may_wait = fstat(src->in->fd, &st) != 0 || !S_ISREG(st.st_mode);
	src->thread_started = threaded && pthread_create(&src->thread, NULL, inflate_thread, src) == 0;
	if (!src->thread_started)
		src->inline_gz = true;
	return NS_OK;
}

ns_status trace_source_open(trace_source **out, ns_input *in, bool threaded, ns_error *err)
{
	trace_source *src = calloc(1, sizeof(*src));
	ns_status st;

	*out = NULL;
	if (src == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	src->in = in;
	st = read_magic(src, err);
	if (st == NS_OK && src->gz)
		st = start_inflater(src, threaded, err);
	if (st != NS_OK) {
		trace_source_close(src);
		return st;
	}
	*out = src;
	return NS_OK;
}

static long read_plain(trace_source *src, unsigned char *buf, size_t n, ns_error *err)
{
	ssize_t got;

	if (src->magic_pos < src->magic_len) {
		size_t take = src->magic_len - src->magic_pos;
		if (take > n)
			take = n;
		memcpy(buf, src->magic + src->magic_pos, take);
		src->magic_pos += take;
		return (long)take;
	}
	got = ns_input_read(src->in, buf, n);
	if (got < 0) {
		ns_error_set(err, NS_ERR_IO, "read error: %s", strerror(src->in->read_errno));
		return -1;
	}
	return (long)got;
}

/* Copies from the slot being handed out and no further, waiting only while none is ready: each read returns
 * what read_gz_inline() would (slot by slot), so the bytes read before an error (meta.bytes) do not depend on
 * how far ahead the thread was. */
static long read_gz(trace_source *src, unsigned char *buf, size_t n, ns_error *err)
{
	size_t copied = 0;

	pthread_mutex_lock(&src->mu);
	while (src->full == 0 && !src->producer_done)
		pthread_cond_wait(&src->slot_full, &src->mu);
	if (src->full > 0) {
		ring_slot *slot = &src->ring[src->take_at];
		copied = slot->len - src->take_off < n ? slot->len - src->take_off : n;
		/* The producer never touches a full slot, so the copy can run unlocked. */
		pthread_mutex_unlock(&src->mu);
		memcpy(buf, slot->data + src->take_off, copied);
		pthread_mutex_lock(&src->mu);
		src->take_off += copied;
		if (src->take_off == slot->len) {
			src->take_off = 0;
			src->take_at = (src->take_at + 1) % RING_SLOTS;
			src->full--;
			if (src->full <= RING_LOW)
				pthread_cond_signal(&src->slot_free);
		}
	}
	if (copied == 0 && src->status != NS_OK) {
		ns_error_set(err, src->status, "%s", src->msg);
		ns_error_at(err, -1, src->err_offset, -1);
		pthread_mutex_unlock(&src->mu);
		return -1;
	}
	pthread_mutex_unlock(&src->mu);
	return (long)copied;
}

/* Inline: inflates the next slot's worth when the last one is handed out, then hands out of it. */
static long read_gz_inline(trace_source *src, unsigned char *buf, size_t n, ns_error *err)
{
	ring_slot *slot = &src->ring[0];
	size_t take;

	if (src->take_off == slot->len && !src->producer_done) {
		slot->len = 0;
		src->take_off = 0;
		if (!inflate_slot(src, slot, &src->member_done))
			src->producer_done = true;
		src->produced += (long long)slot->len;
		if (src->producer_done && src->status != NS_OK)
			src->err_offset = src->produced;
	}
	take = slot->len - src->take_off < n ? slot->len - src->take_off : n;
	if (take == 0 && src->status != NS_OK) {
		ns_error_set(err, src->status, "%s", src->msg);
		ns_error_at(err, -1, src->err_offset, -1);
		return -1;
	}
	memcpy(buf, slot->data + src->take_off, take);
	src->take_off += take;
	return (long)take;
}

long trace_source_read(trace_source *src, unsigned char *buf, size_t n, ns_error *err)
{
	if (n == 0)
		return 0;
	if (!src->gz)
		return read_plain(src, buf, n, err);
	return src->inline_gz ? read_gz_inline(src, buf, n, err) : read_gz(src, buf, n, err);
}

bool trace_source_truncated(trace_source *src)
{
	bool cut;

	if (!src->gz)
		return false;
	pthread_mutex_lock(&src->mu);
	cut = src->producer_done && src->truncated;
	pthread_mutex_unlock(&src->mu);
	return cut;
}

bool trace_source_compressed(const trace_source *src)
{
	return src->gz;
}

void trace_source_close(trace_source *src)
{
	if (src == NULL)
		return;
	if (src->thread_started) {
		pthread_mutex_lock(&src->mu);
		src->stop = true;
		pthread_cond_broadcast(&src->slot_free);
		pthread_mutex_unlock(&src->mu);
		/* The thread sees stop after its slot; only a read that may wait for ever is cancelled. Not
		 * the others: glibc's pthread_cancel() loads libgcc_s first, and abort()s when that runs out
		 * of memory (tests/trace/alloc-fail.sh met it when the thread had not ended yet at the
		 * close). */
		if (src->read_may_wait)
			pthread_cancel(src->thread);
		pthread_join(src->thread, NULL);
	}
	if (src->thread_started || src->inline_gz) {
		inflateEnd(&src->zs);
		pthread_mutex_destroy(&src->mu);
		pthread_cond_destroy(&src->slot_free);
		pthread_cond_destroy(&src->slot_full);
	}
	for (size_t i = 0; i < RING_SLOTS; i++)
		free(src->ring[i].data);
	free(src->zin);
	free(src);
}
