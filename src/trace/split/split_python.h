/* The Python behind host time (not installed): python_function frames (recorded with with_stack=True) kept
 * compactly per host thread while reading, then, per device, the self time of the innermost frame over each
 * host cause's GPU-idle time (launch, host_threads, sync, host_gap).
 *
 * Which frames count for which cause: launch, sync and host_gap are the step thread's (its ops, its blocking
 * calls, and the Python between its ops); host_threads is the other threads' of the process, each only while
 * that thread itself runs an op. Frames whose name starts with '<' (built-in methods and functions: the op
 * call itself, not the Python that made it) are not kept, so their time goes to the source frame that called
 * them. */
#ifndef NEXTSTEP_SPLIT_PYTHON_H
#define NEXTSTEP_SPLIT_PYTHON_H

#include "trace/split/split_private.h"

typedef struct split_python split_python;

/* NULL on OOM. */
split_python *split_python_new(void);
void split_python_free(split_python *p);
/* The frame id of a python_function event's name into *id; *kept false when the frame is not kept (a
 * built-in, or a name the table cannot take: counted as dropped). NS_ERR_NOMEM when memory ran out: a frame
 * lost for want of memory would change the report, not only its count of dropped frames. */
ns_status split_python_name(split_python *p, ns_str name, uint32_t *id, bool *kept, ns_error *err);
/* A complete frame [start, end) of host thread `thread`. */
ns_status split_python_add(split_python *p, uint32_t thread, int64_t start, int64_t end, uint32_t id,
                           ns_error *err);
/* Whether any frame was kept. */
bool split_python_any(const split_python *p);
/* Fills d->python from one more sweep over the device's records g[0..n) (sorted by start) in observe mode,
 * after d's windows are swept and its warm-up marked: only the windows that count in d->overall count. */
ns_status split_python_attribute(split_python *p, ns_trace_split *s, uint32_t main_thread, const gpu_rec *g,
                                 size_t n, const span_list host[SL_COUNT], ns_split_device *d,
                                 bool keep_warmup, ns_error *err);
/* Hands the frame names and counts to the result (p keeps no names afterwards). */
void split_python_result(split_python *p, ns_split_result *res);

#endif
