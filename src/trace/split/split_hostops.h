/* Slow host ops (not installed): the CPU ops of the step thread that each hold the host far longer than a
 * dispatch, and the GPU-idle launch time spent inside them (docs/trace.md, "A slow host op").
 *
 * Only calls of at least SPLIT_HOSTOP_MIN_NS are kept (a trace has few: an eager dispatch takes
 * microseconds), so reading costs one comparison per op. On the step thread they are flattened into the
 * innermost kept call open at each instant: a wrapper (aten::scaled_dot_product_attention) passes its time
 * to the slow op inside it (aten::_cudnn_attention_forward), and a fast child (aten::empty, a launch call)
 * leaves its time to the slow op around it. Per device, the launch time (GPU idle, the step thread in an op)
 * of the windows that count is summed per op name, with each name's calls, host time and launches. */
#ifndef NEXTSTEP_SPLIT_HOSTOPS_H
#define NEXTSTEP_SPLIT_HOSTOPS_H

#include "trace/split/split_private.h"

/* A call this long is kept: ten times the longest eager dispatch an op takes under the profiler (about 20
 * us; 60 us for a wrapper such as aten::linear), so dispatch itself never reaches it. */
#define SPLIT_HOSTOP_MIN_NS 200000

typedef struct split_hostops split_hostops;

/* NULL on OOM. */
split_hostops *split_hostops_new(void);
void split_hostops_free(split_hostops *h);
/* The name id of a cpu_op; false when the name table cannot take it (the call is not kept). */
bool split_hostops_name(split_hostops *h, ns_str name, uint32_t *id);
/* A call [start, end) of host thread `thread` (kept only when at least SPLIT_HOSTOP_MIN_NS long). */
ns_status split_hostops_add(split_hostops *h, uint32_t thread, int64_t start, int64_t end, uint32_t id,
                            ns_error *err);
/* Once the step thread is known and while the launches are still there: its calls flattened, the other
 * threads' dropped, and each launch call of the step thread counted in the innermost kept call around it. */
ns_status split_hostops_prepare(split_hostops *h, const ns_trace_split *s, uint32_t main_thread,
                                ns_error *err);
/* Fills d->host_op from one more sweep over the device's records g[0..n) (sorted by start) in observe mode,
 * after d's windows are swept and its warm-up marked: only the windows that count in d->overall count. */
ns_status split_hostops_attribute(split_hostops *h, const ns_trace_split *s, const gpu_rec *g, size_t n,
                                  const span_list host[SL_COUNT], ns_split_device *d, bool keep_warmup,
                                  ns_error *err);
/* Whether the step thread has a kept call (after prepare). */
bool split_hostops_any(const split_hostops *h);
/* Hands the op names to the result when some device names one. */
void split_hostops_result(split_hostops *h, ns_split_result *res);

#endif
