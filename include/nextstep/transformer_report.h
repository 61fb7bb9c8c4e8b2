/* The report of a transformer pass on a device's roofline (transformer.h): a verdict line routed like the
 * roofline's (a decode step's memory-bound verdict through the decode_memory finding), each term's FLOPs,
 * bytes, intensity, bound and time at the roof, per step and per token; -v adds the formulas. Text, quiet
 * (the regime's name) or one JSON object. Writes only to the FILE it is given; knows no command-line flag. */
#ifndef NEXTSTEP_TRANSFORMER_REPORT_H
#define NEXTSTEP_TRANSFORMER_REPORT_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/transformer_report.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdio.h>

#include <cJSON.h>

#include "nextstep/api.h"
#include "nextstep/devices.h"
#include "nextstep/format.h"
#include "nextstep/routes.h"
#include "nextstep/transformer.h"

NS_BEGIN_DECLS

typedef struct {
	const char *label; /* NULL or "": none */
	const ns_device *dev;
	ns_transformer_arch arch; /* checked */
	ns_pass_spec pass;
	ns_transformer_params params;
	ns_transformer_pass count;
	ns_transformer_roof roof;
	double seconds; /* the measured time of the pass; 0 when none */
} ns_transformer_report;

/* The route of the verdict: the decode_memory finding for a memory-bound decode step, else the regime's. */
NS_STATIC_API const ns_route *ns_transformer_route(const ns_transformer_report *r, const ns_routes *routes);
/* The verdict object. Caller frees; NULL on OOM. */
NS_STATIC_API cJSON *ns_transformer_report_json(const ns_transformer_report *r, const ns_routes *routes);
NS_STATIC_API ns_status ns_transformer_report_print(FILE *out, const ns_transformer_report *r,
                                                    const ns_routes *routes, const ns_format_options *o,
                                                    ns_error *err);

NS_END_DECLS

#endif
