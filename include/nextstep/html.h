/* The HTML report: one self-contained page (inline CSS and SVG, a few lines of inline JavaScript for sorting
 * tables, no external URL) for a trace report, a diff, or the router's verdicts (one card per record).
 *
 * The page is written as it goes: ns_html_page_begin() writes the head, each section is written when its data
 * is ready, ns_html_page_end() closes it. Its size is bounded whatever the input (NS_HTML_PAGE_MAX): charts
 * are aggregated to a bounded number of marks, lists are cut to their top entries, and once the page is near
 * the bound further sections shrink to one line and then to a count. The module knows nothing of the command
 * line: the caller hands in the input's name, size and digest and the time of the analysis. */
#ifndef NEXTSTEP_HTML_H
#define NEXTSTEP_HTML_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/html.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nextstep/api.h"
#include "nextstep/classify.h"
#include "nextstep/diff.h"
#include "nextstep/error.h"
#include "nextstep/job.h"
#include "nextstep/job_report.h"
#include "nextstep/next_step.h"
#include "nextstep/routes.h"
#include "nextstep/trace_roofline.h"
#include "nextstep/trace_split.h"

NS_BEGIN_DECLS

/* The page never grows past this many bytes (sections that would not fit are counted, not drawn). */
#define NS_HTML_PAGE_MAX (1024 * 1024)
/* Past this, sections are written compact (verdict line only). */
#define NS_HTML_PAGE_SOFT (NS_HTML_PAGE_MAX * 3 / 4)
/* Bars of the per-step chart of one device; more steps are grouped (mean of consecutive steps). */
#define NS_HTML_STEP_BARS_MAX 120
/* Devices of one trace drawn in full (the others get their verdict line). */
#define NS_HTML_DEVICES_FULL 8
/* Devices of one trace whose median step is drawn as a timeline strip. */
#define NS_HTML_TIMELINES_MAX 2
/* Kernels listed per bucket. */
#define NS_HTML_KERNELS_MAX 10
/* Bytes of a name shown (kernel names can be 1 MiB); the whole name is cut to NS_HTML_TITLE_MAX in its
 * tooltip.
 */
#define NS_HTML_NAME_MAX  120
#define NS_HTML_TITLE_MAX 400
/* Ranks of a job's heat map (the slowest, stragglers first). */
#define NS_HTML_JOB_RANKS_MAX 256
/* Router cards on one page; later records are counted by verdict. */
#define NS_HTML_CARDS_MAX 500

/* What the page says about an input. */
typedef struct {
	const char *name;        /* as the user named it ("<stdin>" for -) */
	unsigned long long size; /* bytes read */
	const char *sha256;      /* 64 hex digits of the bytes read, or NULL when not computed */
} ns_html_source;

typedef struct {
	const char *title;       /* "nextstep trace report" */
	const char *version;     /* nextstep's version */
	const char *analysed_at; /* "2026-12-02 22:10:00 UTC", as the caller formats it */
} ns_html_page_info;

typedef struct ns_html_page ns_html_page;

/* Writes the head and opens the body. NULL on OOM. out is borrowed until ns_html_page_end(). */
NS_STATIC_API ns_html_page *ns_html_page_begin(FILE *out, const ns_html_page_info *info);
/* Writes what was left out, the script and the end of the document, and frees p. NS_ERR_IO when a write
 * failed (at any point of the page). */
NS_STATIC_API ns_status ns_html_page_end(ns_html_page *p, ns_error *err);
/* Sends what is written from now on to out (borrowed) instead, and returns the stream it replaces: a caller
 * that learns only later what leads the page (the job of the traces whose sections it is writing) holds
 * those sections back and writes them after it. The page's bound counts them wherever they went. */
NS_STATIC_API FILE *ns_html_page_divert(ns_html_page *p, FILE *out);
/* Bytes written so far. */
NS_STATIC_API unsigned long long ns_html_page_bytes(const ns_html_page *p);
/* Reports and verdicts given to the page so far (traces, diffs, jobs, router cards), drawn or only counted;
 * inputs that could not be analysed are not results. A page without any is a failed run's. */
NS_STATIC_API size_t ns_html_page_results(const ns_html_page *p);

/* A trace report. */
typedef struct {
	const ns_classify_options *classify;
	const ns_routes *routes;
	const ns_troof_report *roofline; /* --roofline's placed ops, or NULL */
	const ns_device *roof_device;    /* the device they were placed on (NULL: no chart, the table only) */
	/* Each device's kernel classes on the roofline, as ns_report_options.roof (NULL: none placed). */
	bool (*roof)(void *ctx, const ns_split_device *d, ns_roof_time *out);
	void *roof_ctx;
	const ns_device_table
	    *devices; /* peaks for the fp32 advice, as ns_report_options.devices; NULL: none */
	/* Each device's report decided already with these options, as ns_report_options.reports (a caller
	 * that prints the text or JSON too decides once for both); NULL: each is decided as it is drawn. */
	const ns_device_report *reports;
} ns_html_trace_options;

NS_STATIC_API ns_status ns_html_trace(ns_html_page *p, const ns_html_source *src, const ns_split_result *res,
                                      const ns_html_trace_options *o, ns_error *err);

/* An input that could not be analysed: its name, size, digest and what was wrong (msg), in its place. */
NS_STATIC_API void ns_html_input_error(ns_html_page *p, const ns_html_source *src, const char *msg);

/* A diff: names[0..1] are BEFORE and AFTER as given. */
NS_STATIC_API ns_status ns_html_diff(ns_html_page *p, const ns_html_source src[2], const ns_diff_side *before,
                                     const ns_diff_side *after, const ns_diff_result *r,
                                     const ns_routes *routes, ns_error *err);

/* A job (nextstep job): its report m (ns_job_report_build: the verdict, the straggler's bucket when
 * res->nstrag > 0, and the next steps, shown first), then the ranks as a heat map with the straggler marked
 * and comm split into waiting and transfer. */
NS_STATIC_API ns_status ns_html_job(ns_html_page *p, const ns_job_result *res, const ns_job_report *m,
                                    ns_error *err);
/* The inputs of a page that merges many (a job): n named, `more` counted. */
NS_STATIC_API void ns_html_inputs(ns_html_page *p, const ns_html_source *src, size_t n, size_t more);

/* The router: a section per input, a card per record. */
NS_STATIC_API void ns_html_router_begin(ns_html_page *p, const char *input_name);
NS_STATIC_API void ns_html_router_card(ns_html_page *p, const char *label, const ns_verdict *v,
                                       const ns_routes *r);
NS_STATIC_API void ns_html_router_error(ns_html_page *p, long line, const char *msg);
NS_STATIC_API void ns_html_router_end(ns_html_page *p,
                                      const ns_html_source *src); /* src NULL: no input (bucket flags) */

/* Writes s (len bytes, cut between characters to at most max bytes with "..." when longer) as HTML text or
 * attribute value: & < > " ' escaped, control characters and bytes that are not UTF-8 as U+FFFD. Returns
 * the bytes written. */
NS_STATIC_API size_t ns_html_escape(FILE *out, const char *s, size_t len, size_t max);

/* The per-step chart's grouping: n steps into at most max bars of `per` consecutive steps each (the last
 * bar may hold fewer). Returns the number of bars. */
NS_STATIC_API size_t ns_html_step_groups(size_t n, size_t max, size_t *per);

NS_END_DECLS

#endif
