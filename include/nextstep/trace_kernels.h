/* Kernel-name classes for the trace split: which GPU kernels are compute (GEMM, convolution, attention),
 * which are communication (collectives, expert-parallel dispatch/combine, custom all-reduce) and which are
 * memory-class (everything else). The built-in table is data (trace_kernels.c, sources in docs/kernels.md)
 * and is matched against a kernel's identity (kernel_identity.h), never against words in its template
 * arguments or parameter types. Rules files go through the rules engine (kernel_rules.h). */
#ifndef NEXTSTEP_TRACE_KERNELS_H
#define NEXTSTEP_TRACE_KERNELS_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/trace_kernels.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>

#include "nextstep/api.h"
#include "nextstep/error.h"

NS_BEGIN_DECLS

typedef enum { NS_KCLASS_COMPUTE, NS_KCLASS_MEMORY, NS_KCLASS_COMM, NS_KCLASS_COUNT } ns_kernel_class;

/* "compute", "memory", "comm"; NULL when out of range. */
NS_STATIC_API const char *ns_kernel_class_name(ns_kernel_class c);
NS_STATIC_API bool ns_kernel_class_from_name(const char *name, ns_kernel_class *out);

/* How a built-in row's pattern meets the identity: case-insensitive, on the function's own name or on the
 * name with its namespaces ("deep_ep::internode::dispatch"). */
typedef enum { NS_KMATCH_PREFIX, NS_KMATCH_CONTAINS, NS_KMATCH_EXACT } ns_kernel_match;
typedef enum { NS_KON_NAME, NS_KON_QUALIFIED } ns_kernel_match_on;

typedef struct {
	const char *pattern;
	ns_kernel_match how;
	ns_kernel_match_on on;
	ns_kernel_class cls;
	const char *family; /* "gemm", "attention", "conv", "collective", "ep", "allreduce", "nvshmem", ... */
	const char *source; /* where the spelling comes from */
} ns_kernel_pattern;

/* The built-in table in match order (first match wins); *n gets its length. */
NS_STATIC_API const ns_kernel_pattern *ns_kernel_table(size_t *n);

/* The class of a kernel name by its identity under the built-in table, memory when no row matches; *family
 * (may be NULL) gets the matching row's family, NULL when none matched. For a comm kernel the family says
 * which kind of communication it is. */
NS_STATIC_API ns_kernel_class ns_kernel_table_classify(const char *name, const char **family);

/* The communication family ("collective", "allreduce", "gloo", ...) of a host op (a cpu_op or user annotation
 * name, name[0..len), not NUL-terminated) that launches communication, NULL when it is not one: c10d::*,
 * record_param_comms, nccl:*, gloo:*, vLLM's and PyTorch symmetric memory's all-reduce ops. A kernel such an
 * op launches is communication whatever its name. The table is in trace_kernels.c, sources in
 * docs/kernels.md. */
NS_STATIC_API const char *ns_comm_host_op_family(const char *name, size_t len);

/* Compiled rules; see kernel_rules.h. */
typedef struct ns_kernel_rules ns_kernel_rules;

/* The built-in table alone (no file rules). Caller frees with ns_kernel_rules_free(). */
NS_STATIC_API ns_status ns_kernel_rules_default(ns_kernel_rules **out, ns_error *err);

NS_END_DECLS

#endif
