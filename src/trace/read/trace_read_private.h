/* Private to the trace reader, its fuzz harness, the one-call workflow and the input sniffer (core/input.c).
 */
#ifndef NEXTSTEP_TRACE_READ_PRIVATE_H
#define NEXTSTEP_TRACE_READ_PRIVATE_H

#include "nextstep/trace_read.h"

/* Knobs for the analysis (threads) and the fuzz harness: with a small document in one file it can still drive
 * every token across chunk boundaries (max_read) and the window through its growth path (window), without
 * large allocations that make each run slow under the sanitizers. Zero means the default. */
typedef struct {
	size_t max_read;  /* cap on each read from the source */
	size_t window;    /* initial window capacity */
	unsigned threads; /* 1: one thread for everything; 0: a gzip trace is inflated on a second thread; 2
	                   * or more: also a plain one parsed on two (a gzip one too from 3) */
	size_t chunk_min; /* 0, or the bytes ahead of the parse worth handing to the parse worker (tests) */
	long *chunked;    /* NULL, or where to count the events the parse worker parsed (tests) */
	long *ahead;      /* NULL, or where to count the windows read while the worker parsed on (tests) */
} trace_read_knobs;

ns_status trace_read_tuned(ns_input *in, ns_trace_event_fn fn, void *ctx, ns_trace_meta *meta, ns_error *err,
                           const trace_read_knobs *knobs);

/* Whether a top-level JSON object whose first key is key[0, len) (as written between its quotes) is a
 * Chrome/Kineto trace: the keys only such a trace starts with (trace_kineto.c). */
bool trace_looks_like_object(const char *key, size_t len);
/* Whether a top-level array whose read-ahead is head[from, len) holds trace events: "ph", the one key every
 * event has and no profile, is a key in it. */
bool trace_looks_like_array(const unsigned char *head, size_t from, size_t len);

#endif
