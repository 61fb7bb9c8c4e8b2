/* The roofline, scaling and device-table reports: results of roofline.h and devices.h printed as text
 * (a verdict line routed like the router's, and the -v explanation), quiet, or one JSON object. Writes only
 * to the FILE it is given; knows no command-line flag. */
#ifndef NEXTSTEP_ROOFLINE_REPORT_H
#define NEXTSTEP_ROOFLINE_REPORT_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/roofline_report.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stdio.h>

#include <cJSON.h>

#include "nextstep/api.h"
#include "nextstep/devices.h"
#include "nextstep/format.h"
#include "nextstep/roofline.h"
#include "nextstep/routes.h"

NS_BEGIN_DECLS

/* A workload placed on a device's roofline, with what the text needs to explain it. */
typedef struct {
	const char *label; /* NULL or "": none */
	const ns_device *dev;
	ns_dtype dtype;
	char description[128];  /* the workload in words: "matmul 8192x8192x8192 bf16" */
	const char *assumption; /* what the byte count assumes */
	ns_roofline_work work;
	bool is_decode;
	ns_roofline_decode_spec decode_spec; /* when is_decode */
	ns_roofline_decode decode;
	ns_roofline_result roof;
	double seconds;            /* measured time; 0 when none */
	double overhead_threshold; /* as placed */
} ns_roofline_placement;

/* The verdict line, the decode line for a decode step, and with o->verbose the explanation. */
NS_STATIC_API void ns_roofline_report_text(FILE *out, const ns_roofline_placement *p, const ns_routes *routes,
                                           const ns_format_options *o);
/* The verdict object with the numbers. Caller frees; NULL on OOM. */
NS_STATIC_API cJSON *ns_roofline_report_json(const ns_roofline_placement *p, const ns_routes *routes);
/* In o->kind: text, quiet (the regime name) or JSON. NS_ERR_NOMEM when the JSON could not be built. */
NS_STATIC_API ns_status ns_roofline_report_print(FILE *out, const ns_roofline_placement *p,
                                                 const ns_routes *routes, const ns_format_options *o,
                                                 ns_error *err);

/* The batch-doubling test's result. */
typedef struct {
	const char *label;
	double t1, t2;                     /* seconds: the step, and the step with twice the work */
	double overhead_below, work_above; /* the thresholds used */
	ns_scaling_result res;
	/* How the caller names placing a kernel on the roofline, for the work-bound verdict's next step (the
	 * CLI: its subcommand); NULL: "a roofline placement". */
	const char *roofline_words;
} ns_scaling_report;

NS_STATIC_API ns_status ns_scaling_report_print(FILE *out, const ns_scaling_report *s,
                                                const ns_routes *routes, const ns_format_options *o,
                                                ns_error *err);

/* The device table (or one device when only is non-NULL): text with o->verbose adding aliases, ridges and
 * sources, or JSON {"devices": [...]}. */
NS_STATIC_API ns_status ns_devices_report_print(FILE *out, const ns_device_table *t, const ns_device *only,
                                                const ns_format_options *o, ns_error *err);

NS_END_DECLS

#endif
