/* What a trace's allocator events say about memory (ns_split_memory, docs/trace.md "Memory"): the peaks
 * against the device's memory, and how much larger a batch would fit. The memory held across steps (weights,
 * gradients, optimizer state: the least allocated inside the steps) does not grow with the batch; what a step
 * allocates and frees on top of it (activations, temporaries) grows about linearly with it. */
#ifndef NEXTSTEP_DEVICE_MEMORY_H
#define NEXTSTEP_DEVICE_MEMORY_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/device_memory.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cJSON.h>

#include "nextstep/api.h"
#include "nextstep/trace_split.h"

NS_BEGIN_DECLS

/* The largest multiple of the batch whose peak fits: (device - floor) / (step peak - floor). -1 when it
 * cannot be known: no totals (only sizes), no event inside a counted step, the device's memory unknown, or a
 * step that allocates nothing on top of its floor. */
NS_STATIC_API double ns_memory_batch_scale(const ns_split_memory *m);
/* "a 2x batch fits: ~50.3 GB of 85.9 GB (up to ~3.5x)" ("would need" when it does not) into buf (128 bytes
 * are enough); false, buf untouched, when the scale is unknown. */
NS_STATIC_API bool ns_memory_batch_words(const ns_split_memory *m, char *buf, size_t size);
/* "  memory: peak 31.2 GB allocated, 33.0 GB reserved, of 85.9 GB; ... a 2x batch fits: ~50.3 of 85.9 GB
 * (up to ~3.5x)", or what a trace with sizes only can say. Nothing without events. */
NS_STATIC_API void ns_memory_print(FILE *out, const ns_split_memory *m);
/* {"peak_allocated_bytes", "peak_reserved_bytes", "device_bytes", "totals", "events", "step_floor_bytes",
 * "step_peak_bytes", "batch_scale"} (null where unknown), or null without events. NULL on OOM. */
NS_STATIC_API cJSON *ns_memory_json(const ns_split_memory *m);

NS_END_DECLS

#endif
