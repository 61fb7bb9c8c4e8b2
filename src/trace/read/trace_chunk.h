/* The parse worker: a second thread that parses the later part of the reader's window while the reading
 * thread parses the earlier part, so that a plain JSON trace is read on two cores. Private to the reader.
 *
 * The worker starts at a guessed event boundary (after "}," outside strings as far as the bytes tell) and
 * parses whole events into records, stopping at the first event it cannot take (cut by the window's end, an
 * error, a wrong guess, its record limit). It reports nothing: the reading thread adopts its records only
 * when its own parse arrives exactly at the guess with an event to read, hands them to the callback in order
 * as if it had parsed them, and goes on from where the worker stopped, so an error is always found, worded
 * and placed by the reading thread, and the output is the one-thread output. Records point into the window:
 * they are adopted or dropped before the window moves. */
#ifndef NEXTSTEP_TRACE_CHUNK_H
#define NEXTSTEP_TRACE_CHUNK_H

#include "trace/read/trace_scan.h"

typedef struct trace_chunker trace_chunker;

/* A worker for r (its key tables are copied; its window is read at each start), or NULL when no thread or
 * memory can be had: the reader then parses alone. Free with chunker_free(). */
trace_chunker *chunker_new(const reader *r);
/* Stops the worker (dropping a chunk in flight) and frees it; NULL is fine. */
void chunker_free(trace_chunker *c);

/* The first guessed event start in [from, r->end) ('{' after '}' ',' and blanks), or NULL. */
const unsigned char *chunker_guess(const reader *r, const unsigned char *from);
/* Starts parsing r's window at guess; the window must not change until chunker_wait() or chunker_drop(). */
void chunker_start(trace_chunker *c, const reader *r, const unsigned char *guess);
/* What a chunk gave: its records (indexes unset), where the reader goes on and in what state, whether the
 * worker stopped because the window ended there (the event at resume runs past it, or nothing but blanks
 * follows), and whether it was still parsing when asked (the reader then gives it less next time). */
typedef struct {
	ns_trace_event *records;
	size_t n;
	const unsigned char *resume;
	read_state state;
	bool at_end;
	bool waited;
} chunk_result;

/* Waits for the chunk in flight; false when there was none. The records stay valid until the chunk after
 * next is started: two sets alternate, so the worker can parse the next window while these are handed on. */
bool chunker_wait(trace_chunker *c, chunk_result *out);
/* Stops the chunk in flight and throws its records away. */
void chunker_drop(trace_chunker *c);

/* The next window, read by the worker while the reading thread hands on the records of this one: it copies
 * r's bytes [from, r->end) to spare (r->cap bytes and the pad), reads after them as reader_fill() does (want
 * bytes at least; a failed read names event index), and starts a chunk there as start_chunk() would. r's
 * window and source are the worker's until chunker_window(). */
void chunker_start_ahead(trace_chunker *c, const reader *r, unsigned char *spare, const unsigned char *from,
                         size_t want, long index);
/* Waits until that window is read and makes it r's (the old one becomes r->spare), with r->guess the chunk
 * started in it (NULL: none, and r->chunk_tried). False when the read failed: *err says why. */
bool chunker_window(trace_chunker *c, reader *r, ns_error *err);

/* Reads into r's window after its data until want bytes more came or the input ended; a failed read leaves
 * in err the source's message and where the input broke, and records nothing else (trace_read.c). */
scan_rc reader_fill(reader *r, size_t want, ns_error *err);

#endif
