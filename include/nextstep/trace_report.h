/* The trace report: a split_result routed and printed, per device, as text or as one JSON document written
 * step by step. */
#ifndef NEXTSTEP_TRACE_REPORT_H
#define NEXTSTEP_TRACE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cJSON.h>

#include "nextstep/classify.h"
#include "nextstep/format.h"
#include "nextstep/routes.h"
#include "nextstep/trace_split.h"

/* Longest kernel name shown in the text report (the JSON keeps whole names). */
#define REPORT_NAME_MAX    72
#define REPORT_TOP_DEFAULT 5

/* Settings a report may suggest the user change. The library decides when a suggestion applies; the caller
 * words it (the CLI names its flag) in report_options.hints, indexed by this enum. A NULL array or entry
 * leaves that suggestion out. */
typedef enum {
	REPORT_HINT_DEVICE_GIVEN, /* after a device the caller chose rather than the trace's, e.g.
	                             "(--device)" */
	REPORT_HINT_NAME_DEVICE,  /* the trace's device is unknown or missing: how to name one */
	REPORT_HINT_MORE_ROWS,    /* after "... N more" rows than were shown: how to show more */
	REPORT_HINT_TF32, /* fp32 ops placed on the fp32 roof on a device with TF32: how to use that roof */
	REPORT_HINT_WARMUP_ONE,     /* one warm-up step was left out of the verdict: how to include it */
	REPORT_HINT_WARMUP_SEVERAL, /* several warm-up steps were: how to include them */
	REPORT_HINT_STEP_MARKER, /* the steps came from the caller's step-marker pattern: what it is called */
	REPORT_HINT_PYTHON_DETAIL /* after the with_stack hint: where the Python behind the causes is shown */
} report_hint;
#define REPORT_HINT_COUNT 8

typedef struct {
	const classify_options *classify;
	const ns_routes *routes;
	const format_options *format; /* kind, verbose, color */
	const char *source;           /* the input's display name */
	bool steps;                   /* one line per step (text) */
	size_t top;                   /* kernels listed per device with -v (text) and in JSON */
	const char *const *hints; /* REPORT_HINT_COUNT suggestions in the caller's words, or NULL (text) */
} report_options;

/* hints[h], or NULL when there are no hints or none for h. */
const char *report_hint_text(const char *const *hints, report_hint h);

/* "rank 0 dev 0", "device 0 (NVIDIA A100-SXM4-40GB)", "device 0"; the host-only split is "rank 3 host" or
 * "host". */
void report_device_label(const split_result *res, const split_device *d, char *buf, size_t size);
/* A kernel name cut to at most max bytes for a one-line listing: no "void ", no parameter list. */
void report_short_name(const char *name, char *buf, size_t max);
/* One window's JSON object as the report writes it (a routed verdict plus the window's numbers; with_step
 * adds "step" and "warmup"). Caller owns it; NULL on OOM. The job report (issue 12) writes its ranks' devices
 * with it. */
cJSON *report_window_json(const char *label, const split_window *w, bool with_step, const report_options *o);
/* Prints the report in o->format->kind (text, quiet or JSON), streaming: memory does not grow with the number
 * of steps or devices. NS_ERR_NOMEM when memory ran out part-way (the output is then incomplete), NS_ERR_IO
 * when a write failed. */
ns_status report_print(FILE *out, const split_result *res, const report_options *o, ns_error *err);
/* The same, with one more member extra_key: extra (consumed, may be NULL) at the end of the JSON document;
 * ignored in the other forms. */
ns_status report_print_with(FILE *out, const split_result *res, const report_options *o,
                            const char *extra_key, cJSON *extra, ns_error *err);

#endif
