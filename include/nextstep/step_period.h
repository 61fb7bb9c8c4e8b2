/* Steps from a repeating sequence of kernels: the last resort when a trace has no step marker at all.
 *
 * The sequence is the device's GPU events in start order, each named by its interned name id. An iteration of
 * a training or decode loop launches the same kernels in the same order, so some kernel (the anchor) appears
 * once per iteration and the stretches between its consecutive occurrences are the same sequence. Candidate
 * anchors are the ids seen at least NS_STEP_PERIOD_MIN_ITERATIONS times, fewest occurrences first (a kernel
 * that runs once per iteration beats a per-layer kernel), at most NS_STEP_PERIOD_CANDIDATES of them; the
 * first whose stretches are mostly one sequence (at least 3 in 4, compared by a 64-bit hash and length) is
 * the anchor. Cost: O(n) per candidate, memory O(ids + occurrences). Limits in docs/trace.md. */
#ifndef NEXTSTEP_STEP_PERIOD_H
#define NEXTSTEP_STEP_PERIOD_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/step_period.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nextstep/api.h"

NS_BEGIN_DECLS

#define NS_STEP_PERIOD_MIN_ITERATIONS 3
#define NS_STEP_PERIOD_CANDIDATES     8

typedef struct {
	uint32_t anchor;   /* the id that starts every iteration */
	size_t period;     /* length of the most common iteration, in events */
	size_t first;      /* index of the anchor's first occurrence */
	size_t iterations; /* occurrences of the anchor: each starts a step */
	size_t matching;   /* stretches between occurrences equal to the most common one */
} ns_step_period;

/* seq[0..n) holds ids below nids. False when no period is found (or memory ran out: *nomem). */
NS_STATIC_API bool ns_step_period_find(const uint32_t *seq, size_t n, size_t nids, ns_step_period *out,
                                       bool *nomem);

NS_END_DECLS

#endif
