/* Kernel-name classes for the trace split: which GPU kernels are compute (GEMM, convolution, attention),
 * which are communication (NCCL/RCCL) and which are memory-class (everything else). The built-in patterns are
 * a data table in trace_kernels.c; a rules file replaces them. Names are interned so each distinct one is
 * classified once and time can be summed per name without storing names per event. */
#ifndef NEXTSTEP_TRACE_KERNELS_H
#define NEXTSTEP_TRACE_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nextstep/error.h"

/* Named limits on a rules file and on the name table. */
#define KERNEL_RULES_MAX         1024       /* rules in one file */
#define KERNEL_RULE_PATTERN_MAX  4096       /* bytes of one "match" string */
#define KERNEL_RULE_REPEATS_MAX  32         /* repetition operators (* + ? {m,n}) in one regex */
#define KERNEL_RULE_INTERVAL_MAX 100        /* largest bound in a {m,n} interval */
#define KERNEL_NAMES_MAX         (1u << 22) /* distinct kernel/memcpy names in one trace */

typedef enum { KCLASS_COMPUTE, KCLASS_MEMORY, KCLASS_COMM, KCLASS_COUNT } kernel_class;

/* "compute", "memory", "comm"; NULL when out of range. */
const char *kernel_class_name(kernel_class c);
bool kernel_class_from_name(const char *name, kernel_class *out);

/* An ordered rule list, first match wins, memory when nothing matches. Owns compiled regexes. */
typedef struct kernel_rules kernel_rules;

/* The built-in table. Caller frees with kernel_rules_free(). */
ns_status kernel_rules_default(kernel_rules **out, ns_error *err);
/* {"rules": [{"match": "...", "regex": true|false, "class": "compute|memory|comm"}, ...]} from a file; the
 * file replaces the built-in table. Matching is case-insensitive. Caller frees with kernel_rules_free(). */
ns_status kernel_rules_load(const char *path, kernel_rules **out, ns_error *err);
/* The same from text already in memory (tests, fuzzing). */
ns_status kernel_rules_parse(const char *text, size_t len, kernel_rules **out, ns_error *err);
size_t kernel_rules_count(const kernel_rules *r);
/* The class of a NUL-terminated kernel name; a trailing parameter list "(int, float*)" is not matched. */
kernel_class kernel_rules_classify(const kernel_rules *r, const char *name);
void kernel_rules_free(kernel_rules *r);

/* Interned names: id -> owned NUL-terminated copy, with the class cached after the first lookup. */
typedef struct kernel_names kernel_names;

/* NULL on OOM. Free with kernel_names_free(). */
kernel_names *kernel_names_new(void);
/* The id of name[0..len) (not NUL-terminated), adding it when new. */
ns_status kernel_names_intern(kernel_names *t, const char *name, size_t len, uint32_t *id, ns_error *err);
size_t kernel_names_count(const kernel_names *t);
const char *kernel_names_get(const kernel_names *t, uint32_t id);
/* The class of name id under rules, computed once per name. */
kernel_class kernel_names_classify(kernel_names *t, uint32_t id, const kernel_rules *rules);
void kernel_names_free(kernel_names *t);

#endif
