/* Shared between the diff module's files; not part of the public API. */
#ifndef NEXTSTEP_DIFF_PRIVATE_H
#define NEXTSTEP_DIFF_PRIVATE_H

#include "nextstep/diff.h"
#include "nextstep/trace_split.h"

/* ns_diff_side_from_report() of a trace's report document printed without its steps (REPORT_JSON_NO_STEPS):
 * the compared device's steps are read from split, whose devices are the document's, in its order. */
ns_status diff_side_from_trace_report(const cJSON *doc, const ns_split_result *split, ns_diff_side *s,
                                      ns_error *err);

/* Sets s->dtype from the names of s's compute kernels (the dtype holding most of their time). */
void diff_guess_dtype(ns_diff_side *s);

#endif
