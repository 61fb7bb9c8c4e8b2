/* The routing table: regime -> course module, fix, and the measurement that confirms the fix.
 * Built-in routes are data in routes.c; a playbook (JSON) replaces or extends them. */
#ifndef NEXTSTEP_ROUTES_H
#define NEXTSTEP_ROUTES_H

#include "nextstep/cause.h"
#include "nextstep/error.h"
#include "nextstep/regime.h"

typedef struct {
	char *module;
	char *fix;
	char *next_check;
} ns_route;

/* Findings that are not a bucket: a part of the step the trace can name (docs/trace.md). */
typedef enum {
	FINDING_OPTIMIZER, /* the optimizer step takes a large share of the step */
	FINDING_COUNT
} ns_finding_kind;

/* Owns its strings; release with routes_free(). A cause's route replaces its bucket's in the headline when
 * the cause holds at least half of the bucket. */
typedef struct {
	ns_route route[REGIME_COUNT];
	ns_route cause[CAUSE_COUNT];
	/* A host-only split's routes (a CPU job whose host time is in gloo collectives: no device to keep
	 * busy): overhead, idle and comm without GPU advice; a NULL fix means the ordinary route. A playbook
	 * does not set them; "replace": true clears them. */
	ns_route host_only[REGIME_COUNT];
	/* The findings' routes; a playbook overrides them under "findings": {"optimizer": {...}}. */
	ns_route finding[FINDING_COUNT];
} ns_routes;

/* "optimizer"; NULL for an out-of-range value. */
const char *finding_name(ns_finding_kind f);

ns_status routes_init_default(ns_routes *r, ns_error *err);
/* Overlays a playbook file on r: {"routes": {"compute": {"module":..., "fix":..., "next_check":...}, ...},
 * "causes": {"overhead.sync": {...}, ...}, "replace": false}. On error r is unchanged. */
ns_status routes_load_playbook(ns_routes *r, const char *path, ns_error *err);
void routes_free(ns_routes *r);

#endif
