#define _POSIX_C_SOURCE 200809L
#include "nextstep/trace_read.h"

#include <stdlib.h>
#include <string.h>

#include "trace/read/trace_chunk.h"
#include "trace/read/trace_kineto.h"
#include "trace/read/trace_read_private.h"
#include "trace/read/trace_scan.h"
#include "util/vec.h"

/* The scanner works on a sliding window of the document. Every token, and every whole event, must be in
 * the window while it is parsed (string slices handed to the callback point into it), so a step that runs
 * off the end of the window returns SCAN_MORE and is restarted from its first byte after a refill. */
#define CHUNK_BYTES ((size_t)1 << 20)

/* A plain trace is parsed on two threads once this much of the window is ahead of the parse: the worker takes
 * the later part of it (trace_chunk.h). Below it a chunk is not worth the handover. */
#define CHUNK_MIN_BYTES ((size_t)64 << 10)

/* The reader's part of what is ahead, in 64ths: it also hands every event to the callback, so it starts with
 * less than half, and moves the boundary by a 64th after each chunk, to the side that waited. */
#define SHARE_START 28u
#define SHARE_MIN   8u
#define SHARE_MAX   56u

/* The window never needs to hold more than one event (or one top-level value other than traceEvents). */
#define UNIT_MAX ((size_t)2 * NS_TRACE_MAX_STRING + CHUNK_BYTES)

static scan_rc close_document(reader *r, const unsigned char *p, const unsigned char **endp)
{
	if (!r->seen_events)
		return scan_fail(r, p, NS_ERR_SYNTAX, "not a trace: no traceEvents");
	r->state = ST_TRAILER;
	*endp = p + 1;
	return SCAN_OK;
}

static scan_rc goto_state(reader *r, read_state next, const unsigned char *p, const unsigned char **endp)
{
	r->state = next;
	*endp = p + 1;
	return SCAN_OK;
}

/* After the events' array: the object's next member, or the document's end in the JSON Array Format. */
static read_state after_events(const reader *r)
{
	return r->bare_array ? ST_TRAILER : ST_AFTER_MEMBER;
}

/* One restartable step of the top-level grammar; p is at a non-blank byte before the window's end. */
static scan_rc step(reader *r, const unsigned char *p, const unsigned char **endp)
{
	scan_rc rc;

	switch (r->state) {
	case ST_START:
		if (*p ==
		    '[') { /* the Trace Event Format's JSON Array Format: events, no object around them */
			r->seen_events = r->bare_array = true;
			return goto_state(r, ST_FIRST_EVENT, p, endp);
		}
		if (*p != '{')
			return scan_fail(
			    r, p, NS_ERR_SYNTAX,
			    "not a trace: the top level is not a JSON object or an array of events");
		return goto_state(r, ST_FIRST_KEY, p, endp);
	case ST_FIRST_KEY:
		if (*p == '}')
			return close_document(r, p, endp);
		return kineto_read_member(r, p, endp);
	case ST_KEY:
		return kineto_read_member(r, p, endp);
	case ST_AFTER_MEMBER:
		if (*p == ',')
			return goto_state(r, ST_KEY, p, endp);
		if (*p == '}')
			return close_document(r, p, endp);
		return scan_fail(r, p, NS_ERR_SYNTAX, "expected ',' or '}' after a top-level member");
	case ST_FIRST_EVENT:
	case ST_EVENT:
		if (r->state == ST_FIRST_EVENT && *p == ']')
			return goto_state(r, after_events(r), p, endp);
		r->index = r->meta->events;
		if ((rc = kineto_read_event(r, p, endp)) != SCAN_OK)
			return rc;
		r->index = -1;
		r->state = ST_AFTER_EVENT;
		return SCAN_OK;
	case ST_AFTER_EVENT:
		if (*p == ',')
			return goto_state(r, ST_EVENT, p, endp);
		if (*p == ']')
			return goto_state(r, after_events(r), p, endp);
		return scan_fail(r, p, NS_ERR_SYNTAX, "expected ',' or ']' after an event");
	default: /* ST_TRAILER */
		return scan_fail(r, p, NS_ERR_SYNTAX, "garbage after the top-level %s",
		                 r->bare_array ? "array" : "object");
	}
}

/* The input stopped before the document's end (err says where): meta says it was a cut, so the caller may
 * report the events handed out before it. */
static void note_cut(reader *r)
{
	r->meta->truncated = true;
	r->meta->truncated_at = r->err->offset;
	r->meta->truncated_in_events =
	    r->state == ST_FIRST_EVENT || r->state == ST_EVENT || r->state == ST_AFTER_EVENT;
}

/* reader_fill() (trace_chunk.h): a failed read is recorded by read_failed(). */
scan_rc reader_fill(reader *r, size_t want, ns_error *err)
{
	size_t got_total = 0;

	while (got_total < want) {
		size_t room = r->cap - r->len;
		long got = trace_source_read(r->src, r->buf + r->len,
		                             r->max_read > 0 && room > r->max_read ? r->max_read : room, err);
		if (got < 0) {
			/* a read error is where the reader was; the gunzip thread says where its stream broke
			 */
			ns_error_at(err, -1, err->offset >= 0 ? err->offset : r->base + (long long)r->len,
			            r->index);
			return SCAN_FAIL;
		}
		if (got == 0) {
			r->eof = true;
			break;
		}
		r->len += (size_t)got;
		got_total += (size_t)got;
	}
	r->end = r->buf + r->len;
	memset(r->buf + r->len, 0, BUF_PAD); /* the sentinel, and defined bytes for key_word's loads */
	return SCAN_OK;
}

/* What refill() reads after keeping keep bytes (as the window's start): at least as much again, so a long
 * unit through a slow pipe is restarted only a few times. */
static size_t fill_want(const reader *r, size_t keep)
{
	size_t want = keep < r->cap - keep ? keep : r->cap - keep;

	return want > 0 ? want : 1;
}

/* r->err holds a failed read: the status, and whether the input was cut. */
static scan_rc read_failed(reader *r)
{
	r->status = r->err->status;
	if (trace_source_truncated(r->src) && r->state != ST_START)
		note_cut(r);
	return SCAN_FAIL;
}

/* Drops the committed bytes, grows the window when one unit fills half of it, and reads more. */
static scan_rc refill(reader *r)
{
	size_t keep = r->len - r->pos;

	if (r->guess != NULL) { /* never adopted: the parse failed or stopped before it */
		chunker_drop(r->chunker);
		r->guess = NULL;
	}
	r->chunk_tried = false;

	if (r->pos > 0) {
		memmove(r->buf, r->buf + r->pos, keep);
		r->base += (long long)r->pos;
		r->len = keep;
		r->pos = 0;
	}
	if (keep > r->cap / 2) {
		size_t alloc =
		    r->cap + BUF_PAD; /* the pad is allocated past the window, so it grows with it */
		unsigned char *bigger = ns_grow(r->buf, &alloc, 2 * r->cap + BUF_PAD, 1);
		if (bigger == NULL)
			return scan_fail(r, r->buf, NS_ERR_NOMEM, "out of memory");
		r->buf = bigger;
		r->cap = alloc - BUF_PAD;
	}
	if (reader_fill(r, fill_want(r, keep), r->err) != SCAN_OK)
		return read_failed(r);
	return SCAN_OK;
}

static void cut_off(reader *r, const char *what)
{
	scan_fail(r, r->end, NS_ERR_SYNTAX, "%s", what);
	note_cut(r);
}

static void finish_at_eof(reader *r)
{
	if (r->state == ST_TRAILER)
		return;
	/* The JSON Array Format lets a writer stop after any event (a process killed while tracing): the ']'
	 * and a last ',' may be missing. */
	if (r->bare_array &&
	    (r->state == ST_FIRST_EVENT || r->state == ST_EVENT || r->state == ST_AFTER_EVENT))
		return;
	if (r->state == ST_START)
		scan_fail(r, r->end, NS_ERR_SYNTAX, "not a trace: empty input");
	else
		cut_off(r, "unexpected end of input");
}

/* Hands the later part of the window to the parse worker, when the parse is among the events and enough of
 * the window is ahead of it. */
static void start_chunk(reader *r, const unsigned char *p)
{
	const unsigned char *guess;
	size_t ahead = (size_t)(r->end - p);

	if (r->chunk_min == 0 || r->guess != NULL || r->chunk_tried || ahead < 2 * r->chunk_min ||
	    (r->state != ST_EVENT && r->state != ST_AFTER_EVENT))
		return;
	if (r->chunker == NULL && (r->chunker = chunker_new(r)) == NULL) {
		r->chunk_min = 0; /* no thread to be had: parse alone */
		return;
	}
	guess = chunker_guess(r, p + ahead / 64 * r->chunk_share);
	if (guess == NULL) {
		r->chunk_tried = true;
		return;
	}
	chunker_start(r->chunker, r, guess);
	r->guess = guess;
}

/* The worker stopped where the window ends, so this thread would refill there next: the worker reads the
 * next window now instead, into the spare buffer, and starts its chunk there, while this thread hands on the
 * records (they point into the old window, which stays as it is). The bytes kept and the reads are
 * refill()'s when the parse gets there, so the windows, and any read error, are the one-thread ones; a
 * failed read is reported after the records. False (nothing done) when the tail is too long to keep cheaply,
 * the window has grown past CHUNK_BYTES for a long event (a spare as large would double its memory), or no
 * spare window can be had. */
static bool refill_ahead(reader *r, const chunk_result *ch)
{
	const unsigned char *from = skip_ws(ch->resume); /* where the parse would stand */
	size_t keep = (size_t)(r->end - from);
	long index;

	if (!ch->at_end || r->eof || keep > r->cap / 4 || r->cap > CHUNK_BYTES)
		return false;
	if (r->spare_cap != r->cap) {
		unsigned char *b = realloc(r->spare, r->cap + BUF_PAD);
		if (b == NULL)
			return false;
		r->spare = b;
		r->spare_cap = r->cap;
	}
	r->ahead++;
	/* the event that ran off the window is the one after the records */
	index = ch->state == ST_EVENT && keep > 0 ? r->meta->events + (long)ch->n : -1;
	chunker_start_ahead(r->chunker, r, r->spare, from, fill_want(r, keep), index);
	return true;
}

/* As each of the worker's records is handed on, the name of the one NAME_AHEAD later is asked for: the split
 * reads a name's first and last bytes before anything else of it (its caches' hash), and they lie in the
 * window, last read on the worker's core, so each was a wait for a line from the other core (issue 27,
 * docs/performance.md). */
#define NAME_AHEAD 2

static void prefetch_name(const ns_trace_event *ev)
{
	if (ev->name.len > 0) {
		__builtin_prefetch(ev->name.ptr);
		__builtin_prefetch(ev->name.ptr + ev->name.len - 1);
	}
}

/* The parse has reached or passed the chunk's start p. Reached with an event to read: the guess was an
 * event's start, and the worker's events are handed on here as if this thread had parsed them (it goes on
 * where the worker stopped). Passed, or reached inside a value: the guess was wrong, the chunk is dropped. */
static scan_rc join_chunk(reader *r, const unsigned char *p)
{
	chunk_result ch = {NULL, 0, p, r->state, false, false};
	ns_error pend = {0}; /* a read that failed ahead of the records */
	bool ahead = false;

	if (p != r->guess || r->state != ST_EVENT) {
		chunker_drop(r->chunker);
		r->guess = NULL;
		r->chunk_tried = true;
		return SCAN_OK;
	}
	(void)chunker_wait(r->chunker, &ch);
	r->guess = NULL;
	if (ch.waited && r->chunk_share < SHARE_MAX)
		r->chunk_share++;
	else if (!ch.waited && r->chunk_share > SHARE_MIN)
		r->chunk_share--;
	if (ch.n > 0)
		ahead = refill_ahead(r, &ch);
	for (size_t i = 0; i < ch.n; i++) {
		if (i + NAME_AHEAD < ch.n)
			prefetch_name(&ch.records[i + NAME_AHEAD]);
		ch.records[i].index = r->index = r->meta->events;
		if (kineto_deliver_event(r, &ch.records[i]) != SCAN_OK)
			return SCAN_FAIL; /* the next window is not r's: the bytes read are as at this event
			                   */
	}
	r->index = -1;
	r->chunked += (long)ch.n;
	if (ch.n == 0)
		r->chunk_tried = true;
	r->state = ch.state;
	if (!ahead) {
		r->pos = (size_t)(ch.resume - r->buf);
		return SCAN_OK;
	}
	r->chunk_tried = false;
	if (!chunker_window(r->chunker, r, &pend)) {
		*r->err = pend;
		return read_failed(r);
	}
	return SCAN_OK;
}

static void run(reader *r)
{
	for (;;) {
		/* Every SCAN_OK of step() sets next past p; the other returns leave it alone. The analyzer
		 * loses that where its inlining budget runs out (it saw scan_more_or_fail() "return"
		 * SCAN_OK), so next starts defined. */
		const unsigned char *p = skip_ws(r->buf + r->pos), *next = p;
		scan_rc rc;

		r->pos = (size_t)(p - r->buf);
		if (r->guess != NULL && p >= r->guess) {
			if (join_chunk(r, p) != SCAN_OK)
				return;
			continue;
		}
		if (p >= r->end) {
			if (r->eof) {
				finish_at_eof(r);
				return;
			}
			if (refill(r) != SCAN_OK)
				return;
			continue;
		}
		start_chunk(r, p);
		rc = step(r, p, &next);
		if (rc == SCAN_OK) {
			r->pos = (size_t)(next - r->buf);
			continue;
		}
		if (rc == SCAN_FAIL)
			return;
		if (r->eof) {
			cut_off(r, "unexpected end of input");
			return;
		}
		if (r->len - r->pos >= UNIT_MAX) {
			scan_fail(r, p, NS_ERR_LIMIT, "one event or top-level value is larger than %zu bytes",
			          UNIT_MAX);
			return;
		}
		if (refill(r) != SCAN_OK)
			return;
	}
}

ns_status ns_trace_read(ns_input *in, ns_trace_event_fn fn, void *ctx, ns_trace_meta *meta, ns_error *err)
{
	static const trace_read_knobs defaults = {0, 0, 0, 0, NULL, NULL};

	return trace_read_tuned(in, fn, ctx, meta, err, &defaults);
}

ns_status trace_read_tuned(ns_input *in, ns_trace_event_fn fn, void *ctx, ns_trace_meta *meta, ns_error *err,
                           const trace_read_knobs *knobs)
{
	reader r;

	ns_error_clear(err);
	memset(meta, 0, sizeof(*meta));
	meta->rank = -1;
	memset(&r, 0, sizeof(r));
	r.meta = meta;
	r.fn = fn;
	r.ctx = ctx;
	r.err = err;
	r.index = -1;
	r.max_read = knobs->max_read;
	r.state = ST_START;
	r.chunk_share = SHARE_START;
	kineto_index_build(&r);
	r.status = trace_source_open(&r.src, in, knobs->threads != 1, err);
	if (r.status != NS_OK)
		return r.status;
	meta->compressed = trace_source_compressed(r.src);
	if (knobs->threads >= 2)
		r.chunk_min = knobs->chunk_min > 0                       ? knobs->chunk_min
		              : !meta->compressed || knobs->threads >= 3 ? CHUNK_MIN_BYTES
		                                                         : 0;
	/* With the parse worker there are two windows (refill_ahead()), each half the size: as much memory */
	r.cap = knobs->window > 0 ? knobs->window : r.chunk_min > 0 ? CHUNK_BYTES / 2 : CHUNK_BYTES;
	r.buf = malloc(r.cap + BUF_PAD);
	if (r.buf == NULL) {
		trace_source_close(r.src);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	memset(r.buf, 0, BUF_PAD);
	r.end = r.buf;
	run(&r);
	chunker_free(r.chunker);
	if (knobs->chunked != NULL)
		*knobs->chunked += r.chunked;
	if (knobs->ahead != NULL)
		*knobs->ahead += r.ahead;
	meta->bytes = r.base + (long long)r.len;
	free(r.buf);
	free(r.spare);
	trace_source_close(r.src);
	return r.status;
}
