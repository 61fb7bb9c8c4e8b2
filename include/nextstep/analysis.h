/* One call per workflow: a profiler trace in, its report out. ns_trace_analyse() reads a PyTorch-profiler
 * (Kineto) trace, plain or gzip, splits each device's step time into the six regimes, places its ops on the
 * roofline when asked, and decides the report (the verdict, its routes and the next steps) as the
 * `nextstep trace` command does; the accessors below read it and ns_analysis_print() prints it whole.
 * Everything here is opaque: the layouts behind it are the unstable tier's (ns_analysis_split()). */
#ifndef NEXTSTEP_ANALYSIS_H
#define NEXTSTEP_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "nextstep/api.h"
#include "nextstep/classify.h"
#include "nextstep/error.h"
#include "nextstep/format.h"
#include "nextstep/routes.h"
#ifdef NEXTSTEP_STATIC_LINKING_ONLY
#include "nextstep/devices.h"
#include "nextstep/input.h"
#include "nextstep/kernel_rules.h"
#include "nextstep/trace_report.h"
#include "nextstep/trace_roofline.h"
#include "nextstep/trace_split.h"
#endif

NS_BEGIN_DECLS

/* How to analyse: NULL options, or new ones untouched, analyse as `nextstep trace FILE` does. */
typedef struct ns_trace_options ns_trace_options;

/* NULL when out of memory. Free with ns_trace_options_free(). */
NS_API ns_trace_options *ns_trace_options_new(void);
NS_API void ns_trace_options_free(ns_trace_options *o);
/* Threads one analysis may run on: 1 reads the trace in the calling thread alone; 0 (the default) or more
 * also inflates a gzip trace on a second while the first parses (about twice as fast on a large .gz); 2 or
 * more also parses a plain JSON trace on two, and places the ops of a trace that records shapes on a second
 * while the first finishes the split (the result is the same byte for byte). */
NS_API void ns_trace_options_set_threads(ns_trace_options *o, unsigned threads);
/* Count the warm-up steps in the verdict (default: they are summed apart, as without --all-steps). */
NS_API void ns_trace_options_set_all_steps(ns_trace_options *o, bool all);
/* Place the trace's ops on the roofline of its device, as `trace --roofline`: devices_json is a device
 * table (the installed one is share/nextstep/devices.json), read now. NS_ERR_IO, NS_ERR_SYNTAX, ... with err
 * set when it cannot be read. */
NS_API ns_status ns_trace_options_set_roofline(ns_trace_options *o, const char *devices_json, ns_error *err);
/* Read a device table for the advice, as `nextstep trace` always does: with it, fp32 GEMMs and convolutions
 * on a GPU with tensor cores are routed to autocast with the device's peak ratio, and that fix is bounded by
 * it (docs/next-step.md, "Precision"); and when the trace records shapes the ops are placed on the roofline
 * for the kernels' next-step bounds only, as `nextstep trace` places them unasked (docs/next-step.md, "Placed
 * unasked"): the report then prints no roofline section. Errors as ns_trace_options_set_roofline(); a
 * roofline set before stays on and places with this table. */
NS_API ns_status ns_trace_options_set_device_table(ns_trace_options *o, const char *devices_json,
                                                   ns_error *err);
/* Steps are the spans of the user annotations whose names match regex (PCRE2), as `--step-marker`, instead
 * of the profiler's own step spans; NULL goes back to those. NS_ERR_VALUE with err set when regex does not
 * compile. */
NS_API ns_status ns_trace_options_set_step_marker(ns_trace_options *o, const char *regex, ns_error *err);
/* Called from the analysing thread after every read that got bytes, with the count of bytes read from the
 * file so far (compressed, as stored: compare with its size); the callee rate-limits what it shows. NULL:
 * none. */
typedef void (*ns_progress_fn)(void *ctx, unsigned long long bytes_read);
NS_API void ns_trace_options_set_progress(ns_trace_options *o, ns_progress_fn fn, void *ctx);
/* The thresholds and routes the verdicts and next steps are decided with (both borrowed: they must outlive
 * every analysis made with o); NULL: the defaults, as `nextstep trace` without --config. */
NS_API void ns_trace_options_set_classify(ns_trace_options *o, const ns_classify_options *classify);
NS_API void ns_trace_options_set_routes(ns_trace_options *o, const ns_routes *routes);

/* The analysis of one trace. */
typedef struct ns_analysis ns_analysis;

/* Reads the trace at path ("-": stdin) and analyses it. On success *out owns the analysis (free with
 * ns_analysis_free()); otherwise *out is NULL and err says what is wrong and, in err->offset, at which byte
 * of the decompressed document. */
NS_API ns_status ns_trace_analyse(const char *path, const ns_trace_options *options, ns_analysis **out,
                                  ns_error *err);
NS_API void ns_analysis_free(ns_analysis *a);
/* NULL, or when the trace ended early (a file cut off, gzip or JSON unfinished) but held events: the error
 * where reading stopped. The analysis is then of what was read, and its quality says truncated. */
NS_API const ns_error *ns_analysis_cut(const ns_analysis *a);

/* The devices reported (GPUs, or the host alone for a host-only job); 0 when the trace recorded no work to
 * route. */
NS_API size_t ns_analysis_devices(const ns_analysis *a);
/* "rank 0 dev 0", "device 0 (NVIDIA A100-SXM4-40GB)", "host"; NULL when device is out of range. */
NS_API const char *ns_analysis_label(const ns_analysis *a, size_t device);
/* The device's verdict (its steps summed, warm-up left out unless asked for), or NULL out of range. */
NS_API const ns_verdict *ns_analysis_verdict(const ns_analysis *a, size_t device);
/* The routes its verdict line is printed with (a cause that holds most of its bucket gives the fix), for
 * ns_format_verdict_line() and ns_format_verdict_json(); owned by the analysis. NULL out of range. */
NS_API const ns_routes *ns_analysis_routes(const ns_analysis *a, size_t device);
/* Whether the verdict can be trusted: false when the capture is unfit to route (dropped events, ...) or
 * holds only start-up steps, and the report gives no verdict. */
NS_API bool ns_analysis_routed(const ns_analysis *a, size_t device);
/* The next step: the fix with the most step time to win, and in *gain_share (may be NULL) the most it can
 * win as a share of the step. NULL when there is none with a known bound, or when the best known bound is a
 * trifle beside time whose bound is unknown (docs/next-step.md, "A trifle does not lead"). With the roofline
 * option the kernels' fixes are bounded by their ops' placement, as `nextstep trace --roofline` decides them.
 */
NS_API const char *ns_analysis_next_fix(const ns_analysis *a, size_t device, double *gain_share);
/* The report as `nextstep trace` prints it, in format->kind (text, quiet or JSON); routes worded without the
 * command line's options. It prints the reports the analysis decided (those the accessors read), without
 * deciding them again. NS_ERR_IO when a write failed, NS_ERR_NOMEM. */
NS_API ns_status ns_analysis_print(FILE *out, const ns_analysis *a, const ns_format_options *format,
                                   ns_error *err);

#ifdef NEXTSTEP_STATIC_LINKING_ONLY
/* Place the trace's ops on the roofline of its device, looked up in the caller's table (borrowed: it must
 * outlive every analysis made with o), instead of one ns_trace_options_set_roofline() reads. NULL goes back
 * to the table set_roofline read, if any. */
NS_STATIC_API void ns_trace_options_set_devices(ns_trace_options *o, const ns_device_table *devices);
/* Place the trace's ops on the roofline as roof says (--device, --dtype; its table borrowed, as with
 * ns_trace_options_set_devices()). NULL: no roofline, unless set_roofline read a table. */
NS_STATIC_API void ns_trace_options_set_roofline_as(ns_trace_options *o, const ns_troof_options *roof);
/* Place the trace's ops on the roofline of its device (looked up in devices, borrowed) only to bound the
 * kernels' next steps, as `nextstep trace` does unasked: only when the trace records shapes (its first CPU
 * ops have Input Dims) and holds no more than about 2 million kernels, ops and launches; the analysis's
 * report then prints no roofline section. NULL: no roofline. */
NS_STATIC_API void ns_trace_options_set_shape_bounds(ns_trace_options *o, const ns_device_table *devices);
/* The kernel rules to classify kernels with (borrowed; one thread at a time uses a rule set: give each
 * thread's analyses their own); NULL: the built-in table, loaded for each analysis. */
NS_STATIC_API void ns_trace_options_set_rules(ns_trace_options *o, const ns_kernel_rules *rules);
/* A compiled step marker (borrowed; read-only, shared by threads), instead of one set_step_marker compiled;
 * NULL goes back to that one. */
NS_STATIC_API void ns_trace_options_set_marker(ns_trace_options *o, const ns_step_marker *marker);
/* Steps beyond what memory holds wait in an unlinked file in dir (ns_trace_split_spill_dir); NULL: none. */
NS_STATIC_API void ns_trace_options_set_spill_dir(ns_trace_options *o, const char *dir);
/* Also keep the median step's timeline (the HTML page draws it). */
NS_STATIC_API void ns_trace_options_set_timeline(ns_trace_options *o, bool want);
/* false: read, split (and place), but decide no device report, for a caller that prints the split with its
 * own report options (ns_report_print(), ns_html_trace()), which decide each report as they print it: decided
 * here too, it would be decided twice. The accessors that read a report (label, verdict, routes, routed,
 * next_fix, device_report) then answer as for a device out of range, and ns_analysis_print() fails with
 * NS_ERR_VALUE. Default true. */
NS_STATIC_API void ns_trace_options_set_reports(ns_trace_options *o, bool decide);
/* As ns_trace_analyse(), from an input the caller opened (and closes), with whatever hooks it set on it
 * (progress, tap); the options' progress hook, if any, replaces in's while reading. */
NS_STATIC_API ns_status ns_trace_analyse_input(ns_input *in, const ns_trace_options *options,
                                               ns_analysis **out, ns_error *err);
/* The split behind the analysis (owned by it). */
NS_STATIC_API const ns_split_result *ns_analysis_split(const ns_analysis *a);
/* Device i's report as the printers read it (owned by the analysis), or NULL out of range. */
NS_STATIC_API const ns_device_report *ns_analysis_device_report(const ns_analysis *a, size_t device);
/* The ops placed on the roofline (owned by the analysis), or NULL when none was asked for (or, with
 * ns_trace_options_set_shape_bounds(), when the trace records no shapes). */
NS_STATIC_API const ns_troof_report *ns_analysis_roofline(const ns_analysis *a);
#endif

NS_END_DECLS

#endif
