/* What nvidia-smi's GPU-Util shows, beside what the roofline shows (the course's lesson 02.09): the share of
 * a window in which at least one kernel runs, and how close those kernels come to their roofs. A GPU at 100 %
 * "utilisation" can run memory-bound kernels at a fraction of its bandwidth: the two numbers side by side say
 * so. */
#ifndef NEXTSTEP_GPU_UTIL_H
#define NEXTSTEP_GPU_UTIL_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/gpu_util.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "nextstep/api.h"
#include "nextstep/trace_roofline.h"
#include "nextstep/trace_split.h"

NS_BEGIN_DECLS

/* The share of the window with at least one kernel running on the device (copies and memsets alone do not
 * count: nvidia-smi samples kernels), in [0, 1]; -1 when unknown (a window read from an older summary). */
NS_STATIC_API double ns_window_gpu_util(const ns_split_window *w);

/* The placed ops' fraction of their roof, weighted by their GPU time: sum(gpu_ns * fraction) / sum(gpu_ns)
 * over the rows, which is their time at the roof over their GPU time; rows counted as lower bounds are left
 * out (their share is not known). -1 when none is placed. *placed_ns (may be NULL) gets the time it covers.
 */
NS_STATIC_API double ns_troof_roof_fraction(const ns_troof_report *r, int64_t *placed_ns);

/* The device of res the roofline section describes: the one with the most kernel time in its overall window
 * (the busiest GPU, as ns_trace_roofline picks its device name); NULL without devices. */
NS_STATIC_API const ns_split_device *ns_busiest_device(const ns_split_result *res);

/* "GPU-Util 98% (device 0), kernels at 31% of their roof (the placed ops' time-weighted fraction, over 62%
 * of the ops' GPU time)": the lesson in one line, after the roofline section. Nothing without a device. */
NS_STATIC_API void ns_gpu_util_print(FILE *out, const ns_split_result *res, const ns_troof_report *r);
/* Adds "gpu_util" (of that device's overall window) and "fraction_of_roof" (time-weighted, null when nothing
 * is placed) to the roofline section's JSON object. False on OOM. */
NS_STATIC_API bool ns_gpu_util_add_json(cJSON *section, const ns_split_result *res, const ns_troof_report *r);

NS_END_DECLS

#endif
