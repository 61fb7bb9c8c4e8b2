/* The memory budget's report (budget.h): a verdict line routed by the largest term (the budget findings of
 * routes.h, so a playbook can change the advice), each term with its share, and the largest batch and longest
 * context; -v adds each term's formula. Text, quiet (the fit's name) or one JSON object. Writes only to the
 * FILE it is given; knows no command-line flag. */
#ifndef NEXTSTEP_BUDGET_REPORT_H
#define NEXTSTEP_BUDGET_REPORT_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/budget_report.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdio.h>

#include <cJSON.h>

#include "nextstep/api.h"
#include "nextstep/budget.h"
#include "nextstep/devices.h"
#include "nextstep/format.h"
#include "nextstep/routes.h"

NS_BEGIN_DECLS

typedef struct {
	const char *label;          /* NULL or "": none */
	const ns_device *dev;       /* the device named, NULL when only its memory was given */
	const ns_budget_spec *spec; /* as computed */
	ns_budget budget;
} ns_budget_report;

/* The finding that routes a budget whose largest term is t. */
NS_STATIC_API ns_finding_kind ns_budget_finding(ns_budget_term t);
/* The verdict object with a "budget" member. Caller frees; NULL on OOM. */
NS_STATIC_API cJSON *ns_budget_report_json(const ns_budget_report *r, const ns_routes *routes);
/* In o->kind: text (with o->verbose the formulas), quiet ("fits", "tight", "no_fit", "unknown") or JSON. */
NS_STATIC_API ns_status ns_budget_report_print(FILE *out, const ns_budget_report *r, const ns_routes *routes,
                                               const ns_format_options *o, ns_error *err);

NS_END_DECLS

#endif
