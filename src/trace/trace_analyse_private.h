/* What the one-call workflows of other modules (src/job, src/diff) share of ns_trace_analyse(). Not
 * installed. */
#ifndef NEXTSTEP_TRACE_ANALYSE_PRIVATE_H
#define NEXTSTEP_TRACE_ANALYSE_PRIVATE_H

#include "nextstep/analysis.h"
#include "nextstep/trace_roofline.h"
#include "nextstep/trace_split.h"

/* The split of the trace at path ("-": stdin; JSON, gzip or an Nsight Systems export) as options say
 * (threads, warm-up steps; NULL: the defaults), read as ns_trace_analyse() reads it: a trace cut short is
 * split as far as it goes, one without events is NS_ERR_VALUE. *res is the caller's to free with
 * ns_split_result_free() on success, untouched (zeroed) otherwise. */
ns_status trace_analyse_split(const char *path, const ns_trace_options *options, ns_split_result *res,
                              ns_error *err);
/* The same, and the placement the options make (ns_trace_options_set_device_table: unasked, when the trace
 * records shapes; or a roofline's) into *roof, *placed saying whether there is one (then the caller's to
 * free with ns_troof_report_free()). */
ns_status trace_analyse_split_placed(const char *path, const ns_trace_options *options, ns_split_result *res,
                                     ns_troof_report *roof, bool *placed, ns_error *err);

/* Moves a's split into *res (the caller's to free): a keeps no split, and no reports, after. */
void trace_analysis_take_split(ns_analysis *a, ns_split_result *res);
/* Moves a's placement into *roof (the caller's to free with ns_troof_report_free()); false, *roof untouched,
 * when a has none. */
bool trace_analysis_take_roofline(ns_analysis *a, ns_troof_report *roof);
/* What a trace without events is said to be, after "traceEvents is empty: " (default "nothing to split");
 * msg is borrowed. */
void trace_options_set_empty(ns_trace_options *o, const char *msg);

#endif
