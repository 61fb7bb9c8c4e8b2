/* Ops on the roofline: the matmul ops of a trace, each placed against the device's roofs with the GPU time of
 * the kernels it launched.
 *
 * A kernel belongs to the CPU op with its External id; when no op has it (kernels without one, or ids from
 * another id space), to the op named by the External id of the runtime call with the kernel's correlation id,
 * or else to the innermost CPU op enclosing that call in time on the same thread. Kernels linked to no op are
 * counted with why.
 *
 * Feed every traceEvents element to trace_roofline_event() (a trace_event_fn; trace_roofline_tee_event() runs
 * it after another callback, so the split and this share one pass), then trace_roofline_finish(). While
 * reading it keeps 32 bytes per kernel, 48 per CPU op (its External id, thread and times) and 40 per runtime
 * call with a correlation id; only the matmul ops roofline_place_op() knows and ops that carry flops get a
 * fuller record with their name, Input Dims and Input type text. */
#ifndef NEXTSTEP_TRACE_ROOFLINE_H
#define NEXTSTEP_TRACE_ROOFLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "nextstep/devices.h"
#include "nextstep/error.h"
#include "nextstep/roofline.h"
#include "nextstep/trace_read.h"
#include "nextstep/trace_report.h"

/* Longest Input Dims or Input type text kept for one op; longer text is kept as absent (not placed). */
#define TROOF_MAX_TEXT 4096

typedef struct trace_roofline trace_roofline;

/* NULL on OOM. */
trace_roofline *trace_roofline_new(void);
/* The trace_event_fn: ctx is the trace_roofline. */
ns_status trace_roofline_event(const trace_event *ev, void *ctx, ns_error *err);
void trace_roofline_free(trace_roofline *c);

/* Calls first(ev, first_ctx), then trace_roofline_event(ev, roof). */
typedef struct {
	trace_event_fn first;
	void *first_ctx;
	trace_roofline *roof;
} trace_roofline_tee;
ns_status trace_roofline_tee_event(const trace_event *ev, void *ctx, ns_error *err);

typedef struct {
	const char *device; /* --device NAME, or NULL: the trace's deviceProperties name */
	bool has_dtype;     /* --dtype given: every op uses it */
	ns_dtype dtype;
	const ns_device_table *devices; /* the table to place on, loaded by the caller (overlays included);
	                                   NULL: no table, every device is unknown */
} troof_options;

/* Why an op with GPU time was not placed. */
typedef enum {
	TROOF_NO_SHAPES,  /* a matmul op without Input Dims: record_shapes was off */
	TROOF_NO_DTYPE,   /* Input type absent or not a type with a roof */
	TROOF_UNKNOWN_OP, /* not one of the matmul ops */
	TROOF_NO_PEAK,    /* the device lists no peak for the op's dtype */
	TROOF_BAD_DIMS,   /* Input Dims that do not describe a matmul */
	TROOF_REASON_COUNT
} troof_reason;

/* Why a kernel could not be linked to a CPU op when no op has its External id. */
typedef enum {
	TROOF_NO_LAUNCH,          /* no runtime call carries the kernel's correlation id */
	TROOF_LAUNCH_OUTSIDE_OPS, /* its launch call is inside no CPU op on its thread */
	TROOF_UNLINKED_COUNT
} troof_unlinked;

/* Identical ops (name, Input Dims, dtype) summed: FLOPs, bytes and GPU time over `count` ops. */
typedef struct {
	char *name, *dims; /* owned; dims is the raw Input Dims text */
	ns_dtype dtype;
	long count;
	int64_t gpu_ns;
	double m, n, k, batch; /* of one op */
	double flops, bytes;   /* sums */
	roofline_result roof;  /* placed with the sums */
} troof_row;

/* The result. Owns everything; free with troof_report_free(). */
typedef struct {
	bool device_known;
	char device[TRACE_DEVICE_NAME_MAX];       /* the table's name, when known */
	char trace_device[TRACE_DEVICE_NAME_MAX]; /* deviceProperties name of the busiest GPU ("" if none) */
	bool from_option;                         /* the device came from --device */
	bool has_tf32;                            /* the device has a tf32 roof (fp32 ops may have used it) */
	troof_row *rows;                          /* largest GPU time first */
	size_t nrows;
	long kernels;   /* kernels carrying an External id or a correlation id */
	long ops;       /* ops with GPU time of their own */
	int64_t ops_ns; /* their GPU time */
	long unplaced[TROOF_REASON_COUNT];
	int64_t unplaced_ns[TROOF_REASON_COUNT];
	long linked_by_launch; /* kernels whose op was found through their launch call */
	long unlinked[TROOF_UNLINKED_COUNT];
	int64_t unlinked_ns[TROOF_UNLINKED_COUNT];
} troof_report;

/* Links kernels to ops and places them on the devices of table (loaded by the caller). Fails only on OOM (an
 * unknown device is a report with device_known = false). meta may be NULL. The collector can only be freed
 * afterwards. */
ns_status trace_roofline_finish(trace_roofline *c, const trace_meta *meta, const troof_options *o,
                                troof_report *out, ns_error *err);
void troof_report_free(troof_report *r);

/* Words for a reason: "no shapes (record_shapes=True)", "unknown dtype", "unknown op", ... */
const char *troof_reason_text(troof_reason r);
/* The text section (top rows, then the ops that could not be placed); hints as in report_options. */
void troof_report_print(FILE *out, const troof_report *r, size_t top, const char *const *hints);
/* The "roofline" member for the trace JSON; caller frees with cJSON_Delete(). NULL on OOM. */
cJSON *troof_report_json(const troof_report *r, size_t top);

/* The trace report with this section: text after the device reports, JSON as a "roofline" member of the
 * document; quiet output has no section. Errors as report_print(). */
ns_status troof_print_with_report(FILE *out, const split_result *res, const report_options *o,
                                  const troof_report *r, ns_error *err);

#endif
