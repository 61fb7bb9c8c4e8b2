/* The job report (issue 12): a merged job routed and printed as text, one regime word (quiet) or one JSON
 * document: the job's verdict, its stragglers, a table of the ranks (outliers first), each rank's exposed
 * communication split into waiting and transfer, and the ranks' clock offsets. The rules are in docs/job.md.
 */
#ifndef NEXTSTEP_JOB_REPORT_H
#define NEXTSTEP_JOB_REPORT_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/job_report.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdio.h>

#include "nextstep/api.h"
#include "nextstep/classify.h"
#include "nextstep/devices.h"
#include "nextstep/error.h"
#include "nextstep/format.h"
#include "nextstep/job.h"
#include "nextstep/next_step.h"
#include "nextstep/routes.h"

NS_BEGIN_DECLS

typedef struct {
	const ns_classify_options *classify;
	const ns_routes *routes;
	const ns_format_options *format; /* kind, verbose, color */
	const ns_device_table
	    *devices; /* peaks for the ranks' fp32 advice, as the trace report's; NULL: none */
} ns_job_report_options;
/* The ranks in the order every form of the report lists them: stragglers first, then the ranks furthest
 * from the median rank's non-comm step time, then by rank number. NULL when out of memory; caller frees. */
NS_STATIC_API const ns_job_rank_result **ns_job_ranks_in_order(const ns_job_result *res);
/* A rank's own routes: those its trace report gives its judged device, from the evidence its summary carries
 * (docs/job.md, rule 7); and the words a report's lines borrow from them (the reference rank's routes, the
 * stragglers'). Opaque. */
typedef struct ns_job_rank_routes ns_job_rank_routes;
typedef struct ns_job_routes_store ns_job_routes_store;
/* The job's report, decided once (issue 21): the text, JSON and HTML forms print it. Owns order and store;
 * free with ns_job_report_free(). About 12 kB: allocate it. */
typedef struct {
	char label[96];     /* "job (8 ranks)", "job (3 of 4 ranks)" */
	ns_verdict verdict; /* the straggler's bucket when there is one, else the median split's verdict */
	/* No rank had device activity (its summary has no device with time): no verdict and no fix, as the
	 * trace report of such a trace says `no device activity: nothing to route` */
	bool nothing_to_route;
	ns_routes routes;                 /* shallow: the verdict's routes (their fixes may be own's) */
	const ns_job_rank_result **order; /* the ranks as every form lists them (ns_job_ranks_in_order) */
	/* The job's next steps: each straggler's fix (bounded by the waiting of every other rank), then the
	 * fixes of the rank nearest the median, the job as it would run with its stragglers on time
	 * (docs/next-step.md), routed as that rank's own report routes them. */
	ns_next_steps next;
	ns_job_routes_store *store; /* what verdict's and next's routes borrow */
} ns_job_report;

/* NS_ERR_NOMEM (out untouched but freeable) when memory ran out. */
NS_STATIC_API ns_status ns_job_report_build(const ns_job_result *res, const ns_job_report_options *o,
                                            ns_job_report *out, ns_error *err);
NS_STATIC_API void ns_job_report_free(ns_job_report *r);

/* Prints res in o->format->kind (text, quiet or JSON) to out and flushes it. NS_ERR_NOMEM when memory ran out
 * (nothing, or for text part of the report, is printed then), NS_ERR_IO when a write to out failed. */
NS_STATIC_API ns_status ns_job_report_print(FILE *out, const ns_job_result *res,
                                            const ns_job_report_options *o, ns_error *err);

NS_END_DECLS

#endif
