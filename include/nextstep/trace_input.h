/* A trace in any format nextstep reads, chosen by its content: Kineto/Chrome JSON, plain or gzip
 * (trace_read.h), or an Nsight Systems SQLite export (nsys_read.h). Both give the same event stream. */
#ifndef NEXTSTEP_TRACE_INPUT_H
#define NEXTSTEP_TRACE_INPUT_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/trace_input.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include "nextstep/api.h"
#include "nextstep/error.h"
#include "nextstep/input.h"
#include "nextstep/trace_read.h"

NS_BEGIN_DECLS

/* Sniffs in and reads it with the reader for its kind, calling fn per event as ns_trace_read() does. An
 * SQLite export is opened by its name (SQLite reads a file, not a stream: stdin is refused with a message).
 */
NS_STATIC_API ns_status ns_trace_read_input(ns_input *in, ns_trace_event_fn fn, void *ctx,
                                            ns_trace_meta *meta, ns_error *err);
/* ns_trace_read_input() on up to threads threads: 2 or more parse a plain JSON trace on two (the events
 * reach fn in order on the calling thread, and everything is as on one); 0 or 1 parse it on one. A gzip trace
 * is inflated on a thread of its own either way, as by ns_trace_read(). */
NS_STATIC_API ns_status ns_trace_read_input_threads(ns_input *in, unsigned threads, ns_trace_event_fn fn,
                                                    void *ctx, ns_trace_meta *meta, ns_error *err);

NS_END_DECLS

#endif
