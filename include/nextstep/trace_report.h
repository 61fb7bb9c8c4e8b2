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

typedef struct {
	const classify_options *classify;
	const ns_routes *routes;
	const format_options *format; /* kind, verbose, color */
	const char *source;           /* the input's display name */
	bool steps;                   /* one line per step (text) */
	size_t top;                   /* kernels listed per device with -v (text) and in JSON */
} report_options;

/* "rank 0 dev 0", "device 0 (NVIDIA A100-SXM4-40GB)", "device 0"; the host-only split is "rank 3 host" or
 * "host". */
void report_device_label(const split_result *res, const split_device *d, char *buf, size_t size);
/* A kernel name cut to at most max bytes for a one-line listing: no "void ", no parameter list. */
void report_short_name(const char *name, char *buf, size_t max);
/* Prints the report in o->format->kind (text, quiet or JSON), streaming: memory does not grow with the number
 * of steps or devices. NS_ERR_NOMEM when memory ran out part-way (the output is then incomplete), NS_ERR_IO
 * when a write failed. */
ns_status report_print(FILE *out, const split_result *res, const report_options *o, ns_error *err);
/* The same, with one more member extra_key: extra (consumed, may be NULL) at the end of the JSON document;
 * ignored in the other forms. */
ns_status report_print_with(FILE *out, const split_result *res, const report_options *o,
                            const char *extra_key, cJSON *extra, ns_error *err);

#endif
