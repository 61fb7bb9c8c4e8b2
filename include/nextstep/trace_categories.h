/* Trace event categories as data: what each Kineto (and older profiler) category means for the split, and
 * which accelerator kind it belongs to. Kineto writes device work as "kernel", "gpu_memcpy" and "gpu_memset"
 * for every backend (CUDA, ROCm, Intel XPU, PrivateUse1) and names the host side per backend ("cuda_runtime",
 * "xpu_runtime", "mtia_runtime", "privateuse1_runtime", or the accelerator-agnostic "runtime"/"driver");
 * MTIA's device events are "mtia_ccp_events". Sources in docs/kernels.md. */
#ifndef NEXTSTEP_TRACE_CATEGORIES_H
#define NEXTSTEP_TRACE_CATEGORIES_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/trace_categories.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stddef.h>

#include "nextstep/api.h"
#include "nextstep/trace_read.h"

NS_BEGIN_DECLS

typedef struct {
	const char *name; /* as written in "cat" */
	ns_trace_category cat;
	const char
	    *device; /* the accelerator kind the category names ("CUDA", "MTIA", ...), NULL when shared */
} ns_trace_category_row;

/* The table and its length. */
NS_STATIC_API const ns_trace_category_row *ns_trace_category_table(size_t *n);

/* The row for category s[0..len) (not NUL-terminated), NULL when the category is not known (NS_TCAT_OTHER).
 */
NS_STATIC_API const ns_trace_category_row *ns_trace_category_find(const char *s, size_t len);

NS_END_DECLS

#endif
