/* The phases of a training step (not installed): forward, backward and optimizer spans of the profiled
 * process, on the host timeline, summed per window (docs/trace.md, "Phases"). */
#ifndef NEXTSTEP_SPLIT_PHASES_H
#define NEXTSTEP_SPLIT_PHASES_H

#include "trace/split/split_private.h"

typedef struct split_phases split_phases;

/* NULL on OOM. */
split_phases *split_phases_new(void);
void split_phases_free(split_phases *p);
/* 1 + the pass a host span named name marks (NS_PASS_FORWARD, ...), 0 for none. Cheap: one byte decides for
 * almost every name. */
uint8_t split_phase_of(ns_str name);
/* An optimizer marker (split_phase_of gave NS_PASS_OPTIMIZER) of process pid, of dur_ns (0 when not yet
 * known): its class, "SGD" of "Optimizer.step#SGD.step", gets the time in that process. */
void split_phases_note_optimizer(split_phases *p, int64_t pid, ns_str name, int64_t dur_ns);
/* An aten op of process pid: counts the fused optimizer kernels' ops (aten::_fused_adam_, ...). Cheap: two
 * bytes decide for almost every op. */
void split_phases_note_op(split_phases *p, int64_t pid, ns_str name);
/* A span [start, end) of thread `thread` marking pass (PASS_*). */
ns_status split_phases_add(split_phases *p, int pass, uint32_t thread, int64_t start, int64_t end,
                           ns_error *err);
/* res->passes: each window's time per pass (the windows of w: sorted, disjoint), from the spans of the
 * main thread's process; left NULL when that process marked no pass. */
ns_status split_phases_windows(split_phases *p, const ns_trace_split *s, uint32_t main_thread,
                               const split_view *w, ns_split_result *res, ns_error *err);
/* The optimizer pass's spans on the threads of the main thread's process, into out (empty, sorted, disjoint):
 * the sweep's SL_OPT list, the idle cause "optimizer" (docs/trace.md, "Attribution"). */
ns_status split_phases_optimizer_spans(const split_phases *p, const ns_trace_split *s, uint32_t main_thread,
                                       span_list *out, ns_error *err);
/* Whether thread `thread` is inside a span of pass at t. Sorts that pass's lists on first use. */
bool split_phases_in(split_phases *p, int pass, uint32_t thread, int64_t t);
/* d->passes: the sum over the windows that count in d->overall. */
void split_phases_overall(const ns_split_result *res, ns_split_device *d, bool keep_warmup);

#endif
