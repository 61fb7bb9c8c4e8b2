/* Kernel-name classes for the trace split: which GPU kernels are compute (GEMM, convolution, attention),
 * which are communication (NCCL/RCCL) and which are memory-class (everything else). The built-in patterns are
 * a data table in trace_kernels.c, compiled by the rules engine (kernel_rules.h); a rules file replaces them.
 */
#ifndef NEXTSTEP_TRACE_KERNELS_H
#define NEXTSTEP_TRACE_KERNELS_H

#include <stdbool.h>

#include "nextstep/error.h"

typedef enum { KCLASS_COMPUTE, KCLASS_MEMORY, KCLASS_COMM, KCLASS_COUNT } kernel_class;

/* "compute", "memory", "comm"; NULL when out of range. */
const char *kernel_class_name(kernel_class c);
bool kernel_class_from_name(const char *name, kernel_class *out);

/* Compiled rules; see kernel_rules.h. */
typedef struct kernel_rules kernel_rules;

/* The built-in table, compiled. Caller frees with kernel_rules_free(). */
ns_status kernel_rules_default(kernel_rules **out, ns_error *err);

#endif
