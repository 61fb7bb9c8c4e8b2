/* The parse worker (trace_chunk.h): one thread, one chunk at a time, handed over under a mutex. */
#define _POSIX_C_SOURCE 200809L
#include "trace/read/trace_chunk.h"

#include <pthread.h>
#include <stdlib.h>

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
	job_state job; /* under mu */
	bool quit;     /* under mu */
	int stop;      /* atomic: the reader no longer wants the chunk in flight */
	reader w;      /* the worker's view of the reader: its own error, no callback, no meta */
	ns_error err;
	ns_trace_meta meta;
	const unsigned char *start, *resume;
	read_state resume_state;
	bool at_end;
	ns_trace_event *records; /* the set being filled: one of sets[] */
	ns_trace_event *sets[2];
	size_t n;
};

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

static void *worker_main(void *arg)
{
	trace_chunker *c = arg;

	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (!c->quit && c->job != JOB_POSTED)
			pthread_cond_wait(&c->posted, &c->mu);
		if (c->quit)
			break;
		pthread_mutex_unlock(&c->mu);
		parse_chunk(c);
		pthread_mutex_lock(&c->mu);
		c->job = JOB_DONE;
		pthread_cond_signal(&c->done);
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
	c->quit = true;
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

void chunker_start(trace_chunker *c, const reader *r, const unsigned char *guess)
{
	c->w.buf = r->buf;
	c->w.cap = r->cap;
	c->w.len = r->len;
	c->w.end = r->end;
	c->w.base = r->base;
	c->w.eof = r->eof;
	c->start = guess;
	c->records = c->records == c->sets[0] ? c->sets[1] : c->sets[0];
	__atomic_store_n(&c->stop, 0, __ATOMIC_RELAXED);
	pthread_mutex_lock(&c->mu);
	c->job = JOB_POSTED;
	pthread_cond_signal(&c->posted);
	pthread_mutex_unlock(&c->mu);
}

/* Waits until the worker is idle again; true when a chunk was in flight. *waited: it was still parsing. */
static bool wait_done(trace_chunker *c, bool *waited)
{
	bool had;

	pthread_mutex_lock(&c->mu);
	had = c->job != JOB_IDLE;
	*waited = c->job == JOB_POSTED;
	while (c->job == JOB_POSTED)
		pthread_cond_wait(&c->done, &c->mu);
	c->job = JOB_IDLE;
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
