/* The Kineto schema (trace_kineto.c) as the read loop sees it. Private to the reader. */
#ifndef NEXTSTEP_TRACE_KINETO_H
#define NEXTSTEP_TRACE_KINETO_H

#include "trace/read/trace_scan.h"

/* The key indexes of r (event keys, args keys, categories), before the first event. */
void kineto_index_build(reader *r);
/* One top-level member; for traceEvents only up to its '[' (the events are read one step each). */
scan_rc kineto_read_member(reader *r, const unsigned char *p, const unsigned char **endp);
/* One event at p ('{'), handed to r->fn; depth 1 is the top-level object, 2 traceEvents, 3 an event. */
scan_rc kineto_read_event(reader *r, const unsigned char *p, const unsigned char **endp);
/* kineto_read_event() in two halves, for the parse worker (trace_chunk.c): the event at p parsed into *ev
 * (no callback, no count; its index is r->index), and a parsed event counted and handed to r->fn. */
scan_rc kineto_parse_event(reader *r, const unsigned char *p, ns_trace_event *ev, const unsigned char **endp);
scan_rc kineto_deliver_event(reader *r, const ns_trace_event *ev);

/* Whether the parsed event may be delivered: an 'X' event without a dur is an error. */
static inline bool kineto_event_whole(const ns_trace_event *ev)
{
	return ev->ph != 'X' || ev->has_dur;
}

#endif
