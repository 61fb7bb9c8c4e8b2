/* The one entry for reading a trace whatever its format: the content decides, never the name. */
#define _POSIX_C_SOURCE 200809L
#include "nextstep/trace_input.h"

#include <string.h>

#include "nextstep/nsys_read.h"
#include "trace/read/trace_read_private.h"

ns_status ns_trace_read_input(ns_input *in, ns_trace_event_fn fn, void *ctx, ns_trace_meta *meta,
                              ns_error *err)
{
	switch (ns_input_sniff(in)) {
	case NS_INPUT_SQLITE:
		if (strcmp(in->name, "-") == 0)
			return ns_error_set(
			    err, NS_ERR_VALUE,
			    "an SQLite export (Nsight Systems) cannot be read from standard input: "
			    "give its file name");
		return ns_nsys_read(in->name, fn, ctx, meta, err);
	default:
		return ns_trace_read(in, fn, ctx, meta, err);
	}
}

ns_status ns_trace_read_input_threads(ns_input *in, unsigned threads, ns_trace_event_fn fn, void *ctx,
                                      ns_trace_meta *meta, ns_error *err)
{
	trace_read_knobs knobs = {0, 0, threads >= 2 ? threads : 0, 0, NULL, NULL};

	if (ns_input_sniff(in) == NS_INPUT_SQLITE)
		return ns_trace_read_input(in, fn, ctx, meta, err);
	return trace_read_tuned(in, fn, ctx, meta, err, &knobs);
}
