/* The regimes (buckets of step time) every module speaks about, and their names. */
#ifndef NEXTSTEP_REGIME_H
#define NEXTSTEP_REGIME_H

#include <stdbool.h>
#include <stddef.h>

#include "nextstep/api.h"

NS_BEGIN_DECLS

/* Enum order is the default priority order (earlier wins a tie). */
typedef enum {
	NS_REGIME_COMPUTE,
	NS_REGIME_MEMORY,
	NS_REGIME_COMM,
	NS_REGIME_DATALOADER,
	NS_REGIME_OVERHEAD,
	NS_REGIME_IDLE,
	NS_REGIME_COUNT
} ns_regime;

/* "compute", "memory", ... ; NULL for an out-of-range value. */
NS_API const char *ns_regime_name(ns_regime r);
/* The verdict word: "compute-bound", "idle", "dataloader-bound", ... */
NS_API const char *ns_regime_bound_word(ns_regime r);
/* Exact, case-sensitive match of a bucket name; false when unknown. */
NS_API bool ns_regime_from_name(const char *name, ns_regime *out);
/* The same for the n bytes at text (no NUL needed). */
NS_API bool ns_regime_from_text(const char *text, size_t n, ns_regime *out);

NS_END_DECLS

#endif
