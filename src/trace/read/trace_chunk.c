/* The parse worker (trace_chunk.h): one thread, one chunk at a time, handed over under a mutex (after a
 * short spin). */
#define _POSIX_C_SOURCE 200809L
#include "trace/read/trace_chunk.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "trace/read/trace_kineto.h"

/* Records a chunk may hold: two sets of 0.7 MiB (a record is 344 bytes), so a window of tiny events cannot
 * make them outgrow the window; a chunk that hits the limit simply ends there. A chunk of a typical trace
 * (some 360 KiB of a 512 KiB window, about 300 bytes an event) is some 1,200 events. */
#define CHUNK_RECORDS 2048

typedef enum { JOB_IDLE, JOB_POSTED, JOB_DONE } job_state;

struct trace_chunker {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t posted, done;
	int job;  /* a job_state: written under mu, read atomically (spin_until()) */
	int quit; /* written under mu, read atomically */
	int stop; /* atomic: the reader no longer wants the chunk in flight */
	reader w; /* the worker's view of the reader: its own error, no callback, no meta */
	ns_error err;
	ns_trace_meta meta;
	const unsigned char *start, *resume;
	read_state resume_state;
	bool at_end;
	ns_trace_event *records; /* the set being filled: one of sets[] */
	ns_trace_event *sets[2];
	size_t n;
	/* a job that reads the next window first (chunker_start_ahead) */
	bool read_first;
	const unsigned char *tail;
	size_t keep, want, chunk_min;
	long read_index;
	unsigned share;
	int window_ready; /* written under mu, read atomically */
	bool read_ok;
	const unsigned char *guess;
	ns_error read_err;
	long spin_worker, spin_reader; /* each thread's spin budget, ns (spin_until()) */
	bool prefetch_w;               /* the CPU has a prefetch for writing (prefetch_record()) */
};

/* A thread that waits for the other first spins on the word that tells it, for at most its budget, and only
 * then sleeps on the condition variable. Sleeping costs both threads a system call per handover (the wake-up
 * of a sleeping thread is some 15 us in this VM, on the critical path), and there are three handovers a
 * window; most waits are shorter than that (4-64 us, measured on the 1 GB trace). The budget, per thread,
 * halves after a spin that ran out (the other thread was off its core: a loaded machine) and doubles back
 * after one that did not, between SPIN_MIN_NS and SPIN_MAX_NS (beyond the 4-64 us of most waits). */
#define SPIN_MAX_NS   200000L
#define SPIN_MIN_NS   8000L
#define SPIN_CLOCK_AT 256 /* loads of the word between looks at the clock */

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Spins until (*word == want) == equal or c->quit is set, for at most *budget ns; true when it came. The
 * caller then takes the mutex and waits on the condition variable as before, which finds the word set (no
 * sleep, and no wake-up call for the other thread) or sleeps. */
static bool spin_until(const trace_chunker *c, const int *word, int want, bool equal, long *budget)
{
	long long until = now_ns() + *budget;

	for (unsigned i = 1;; i++) {
		if ((__atomic_load_n(word, __ATOMIC_ACQUIRE) == want) == equal ||
		    __atomic_load_n(&c->quit, __ATOMIC_ACQUIRE)) {
			*budget = *budget < SPIN_MAX_NS / 2 ? 2 * *budget : SPIN_MAX_NS;
			return true;
		}
		if (i % SPIN_CLOCK_AT == 0 && now_ns() > until) {
			*budget = *budget > 2 * SPIN_MIN_NS ? *budget / 2 : SPIN_MIN_NS;
			return false;
		}
	}
}

static void set_word(int *word, int v)
{
	__atomic_store_n(word, v, __ATOMIC_RELEASE);
}

/* A set's records were last read by the reading thread, on the other core, so the worker's first store to
 * each of their lines waits for the line to come back, and the stores behind it stall too (on the 300 MB
 * trace 7 % of the run's CPU samples fell in the first call after a record was cleared, under 1 % on one
 * thread). Asking for the next record's lines for writing while this one is parsed overlaps that wait with
 * the parse (issue 27, docs/performance.md). A prefetch for reading does not: the line then still has to be
 * taken from the other core when written. x86 has the write prefetch (PREFETCHW) where CPUID says so; GCC's
 * write prefetch is one elsewhere (AArch64's PRFM PSTL1KEEP). */
#if defined(__x86_64__) || defined(__i386__)
static bool cpu_prefetches_writes(void)
{
	unsigned a, b, c, d;

	return __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & (1u << 8)) != 0; /* PRFCHW */
}

static void prefetch_record(const ns_trace_event *ev)
{
	for (size_t i = 0; i < sizeof(*ev); i += 64)
		__asm__("prefetchw %0" : : "m"(((const char *)ev)[i]));
}
#else
static bool cpu_prefetches_writes(void)
{
	return true;
}

static void prefetch_record(const ns_trace_event *ev)
{
	for (size_t i = 0; i < sizeof(*ev); i += 64)
		__builtin_prefetch((const char *)ev + i, 1, 3);
}
#endif

/* Parses whole events from c->start until one cannot be taken; never reports why. */
static void parse_chunk(trace_chunker *c)
{
	reader *w = &c->w;
	const unsigned char *p = c->start;

	c->n = 0;
	c->resume = p;
	c->resume_state = ST_EVENT;
	c->at_end = false;
	while (c->n < CHUNK_RECORDS && !__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
		ns_trace_event *ev = &c->records[c->n];
		const unsigned char *e = p;
		scan_rc rc;
		if (c->prefetch_w && c->n + 1 < CHUNK_RECORDS)
			prefetch_record(ev + 1);
		if (p >= w->end) { /* blanks up to the window's end after a ',' */
			c->at_end = true;
			return;
		}
		rc = kineto_parse_event(w, p, ev, &e);
		if (rc != SCAN_OK || !kineto_event_whole(ev)) {
			c->at_end = rc == SCAN_MORE;
			return;
		}
		c->n++;
		c->resume = e;
		c->resume_state = ST_AFTER_EVENT;
		p = skip_ws(e);
		if (*p != ',') {
			c->at_end = p >= w->end;
			return;
		}
		p = skip_ws(p + 1);
		c->resume = p;
		c->resume_state = ST_EVENT;
	}
}

/* Reads the next window after the tail kept from the last, then starts a chunk in it where start_chunk()
 * would, telling the reading thread as soon as the window is read. */
static void read_window(trace_chunker *c)
{
	reader *w = &c->w;
	const unsigned char *guess = NULL;

	memcpy(w->buf, c->tail, c->keep);
	w->index = c->read_index;
	ns_error_clear(&c->read_err); /* as the reader's error is, before its first read */
	c->read_ok = reader_fill(w, c->want, &c->read_err) == SCAN_OK;
	w->index = -1;
	if (c->read_ok) {
		const unsigned char *p = skip_ws(w->buf);
		size_t ahead = (size_t)(w->end - p);
		if (ahead >= 2 * c->chunk_min)
			guess = chunker_guess(w, p + ahead / 64 * c->share);
	}
	pthread_mutex_lock(&c->mu);
	c->guess = guess;
	set_word(&c->window_ready, 1);
	pthread_cond_signal(&c->done);
	pthread_mutex_unlock(&c->mu);
	c->n = 0;
	c->at_end = false;
	if (guess != NULL) {
		c->start = guess;
		parse_chunk(c);
	}
}

static void *worker_main(void *arg)
{
	trace_chunker *c = arg;

	for (;;) {
		(void)spin_until(c, &c->job, JOB_POSTED, true, &c->spin_worker);
		pthread_mutex_lock(&c->mu);
		while (!c->quit && c->job != JOB_POSTED)
			pthread_cond_wait(&c->posted, &c->mu);
		if (c->quit)
			break;
		pthread_mutex_unlock(&c->mu);
		if (c->read_first)
			read_window(c);
		else
			parse_chunk(c);
		pthread_mutex_lock(&c->mu);
		set_word(&c->job, JOB_DONE);
		pthread_cond_signal(&c->done);
		pthread_mutex_unlock(&c->mu);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/* The worker's stack: its deepest path is an event nested NS_TRACE_MAX_DEPTH levels (a few hundred bytes a
 * level) and an error message; the default 8 MiB would only cost address space (glibc keeps a joined thread's
 * stack for the next), which a process under `ulimit -v` may not have to spare. */
#define WORKER_STACK ((size_t)1 << 20)

static bool start_thread(trace_chunker *c)
{
	pthread_attr_t attr;
	bool ok;

	if (pthread_attr_init(&attr) != 0)
		return false;
	ok = pthread_attr_setstacksize(&attr, WORKER_STACK) == 0 &&
	     pthread_create(&c->thread, &attr, worker_main, c) == 0;
	pthread_attr_destroy(&attr);
	return ok;
}

trace_chunker *chunker_new(const reader *r)
{
	trace_chunker *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->sets[0] = malloc(CHUNK_RECORDS * sizeof(*c->records));
	c->sets[1] = malloc(CHUNK_RECORDS * sizeof(*c->records));
	c->records = c->sets[1];
	c->spin_worker = c->spin_reader = SPIN_MAX_NS;
	c->prefetch_w = cpu_prefetches_writes();
	c->w = *r;
	c->w.err = &c->err;
	c->w.meta = &c->meta;
	c->w.fn = NULL;
	c->w.src = NULL;
	c->w.index = -1;
	if (c->sets[0] == NULL || c->sets[1] == NULL || pthread_mutex_init(&c->mu, NULL) != 0) {
		free(c->sets[0]);
		free(c->sets[1]);
		free(c);
		return NULL;
	}
	if (pthread_cond_init(&c->posted, NULL) != 0 || pthread_cond_init(&c->done, NULL) != 0 ||
	    !start_thread(c)) {
		/* a condition variable that was initialised holds nothing to free on Linux; destroying an
		 * uninitialised one is undefined, so neither is destroyed here */
		pthread_mutex_destroy(&c->mu);
		free(c->sets[0]);
		free(c->sets[1]);
		free(c);
		return NULL;
	}
	return c;
}

void chunker_free(trace_chunker *c)
{
	if (c == NULL)
		return;
	chunker_drop(c);
	pthread_mutex_lock(&c->mu);
	set_word(&c->quit, 1);
	pthread_cond_signal(&c->posted);
	pthread_mutex_unlock(&c->mu);
	pthread_join(c->thread, NULL);
	pthread_cond_destroy(&c->posted);
	pthread_cond_destroy(&c->done);
	pthread_mutex_destroy(&c->mu);
	free(c->sets[0]);
	free(c->sets[1]);
	free(c);
}

const unsigned char *chunker_guess(const reader *r, const unsigned char *from)
{
	const unsigned char *p = from;

	while (p < r->end && (p = memchr(p, '}', (size_t)(r->end - p))) != NULL) {
		const unsigned char *q = skip_ws(p + 1);
		p++;
		if (*q != ',')
			continue;
		q = skip_ws(q + 1);
		if (*q == '{')
			return q;
	}
	return NULL;
}

/* Hands the worker the next set of records and wakes it (the chunk's fields are set). */
static void post_job(trace_chunker *c)
{
	c->records = c->records == c->sets[0] ? c->sets[1] : c->sets[0];
	__atomic_store_n(&c->stop, 0, __ATOMIC_RELAXED);
	pthread_mutex_lock(&c->mu);
	set_word(&c->job, JOB_POSTED);
	pthread_cond_signal(&c->posted);
	pthread_mutex_unlock(&c->mu);
}

void chunker_start(trace_chunker *c, const reader *r, const unsigned char *guess)
{
	c->w.buf = r->buf;
	c->w.cap = r->cap;
	c->w.len = r->len;
	c->w.end = r->end;
	c->w.base = r->base;
	c->w.eof = r->eof;
	c->start = guess;
	c->read_first = false;
	post_job(c);
}

/* Waits until the worker is idle again; true when a chunk was in flight. *waited: it was still parsing. */
static bool wait_done(trace_chunker *c, bool *waited)
{
	int job = __atomic_load_n(&c->job, __ATOMIC_ACQUIRE);
	bool had = job != JOB_IDLE;

	*waited = job == JOB_POSTED;
	if (job == JOB_POSTED)
		(void)spin_until(c, &c->job, JOB_POSTED, false, &c->spin_reader);
	pthread_mutex_lock(&c->mu);
	while (c->job == JOB_POSTED)
		pthread_cond_wait(&c->done, &c->mu);
	set_word(&c->job, JOB_IDLE);
	pthread_mutex_unlock(&c->mu);
	return had;
}

bool chunker_wait(trace_chunker *c, chunk_result *out)
{
	if (!wait_done(c, &out->waited))
		return false;
	out->records = c->records;
	out->n = c->n;
	out->resume = c->resume;
	out->state = c->resume_state;
	out->at_end = c->at_end;
	return true;
}

void chunker_drop(trace_chunker *c)
{
	bool waited;

	__atomic_store_n(&c->stop, 1, __ATOMIC_RELAXED);
	wait_done(c, &waited);
}

void chunker_start_ahead(trace_chunker *c, const reader *r, unsigned char *spare, const unsigned char *from,
                         size_t want, long index)
{
	c->keep = (size_t)(r->end - from);
	c->w.buf = spare;
	c->w.cap = r->cap;
	c->w.len = c->keep;
	c->w.end = spare + c->keep;
	c->w.base = r->base + (from - r->buf);
	c->w.eof = false;
	c->w.src = r->src;
	c->tail = from;
	c->want = want;
	c->read_index = index;
	c->share = r->chunk_share;
	c->chunk_min = r->chunk_min;
	c->read_first = true;
	set_word(&c->window_ready, 0);
	post_job(c);
}

bool chunker_window(trace_chunker *c, reader *r, ns_error *err)
{
	bool waited;

	(void)spin_until(c, &c->window_ready, 1, true, &c->spin_reader);
	pthread_mutex_lock(&c->mu);
	while (!c->window_ready)
		pthread_cond_wait(&c->done, &c->mu);
	pthread_mutex_unlock(&c->mu);
	r->spare = r->buf;
	r->buf = c->w.buf;
	r->len = c->w.len;
	r->end = c->w.end;
	r->eof = c->w.eof;
	r->base = c->w.base;
	r->pos = 0;
	r->guess = c->guess;
	if (!c->read_ok) {
		*err = c->read_err;
		wait_done(c, &waited);
		r->guess = NULL;
		return false;
	}
	if (r->guess == NULL) { /* no chunk in this window: the worker is done */
		wait_done(c, &waited);
		r->chunk_tried = true;
	}
	return true;
}
