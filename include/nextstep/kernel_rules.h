/* The kernel-rules engine: an ordered list of substring or regex rules over kernel names, first match wins;
 * when nothing matches, the built-in identity table (trace_kernels.c) if the rules extend it, else memory.
 * Rules come from files (--kernel-rules extends the built-in table, --kernel-rules-only replaces it). */
#ifndef NEXTSTEP_KERNEL_RULES_H
#define NEXTSTEP_KERNEL_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "nextstep/error.h"
#include "nextstep/trace_kernels.h"

/* Named limits on a rules file. */
#define KERNEL_RULES_MAX         1024 /* rules in one file */
#define KERNEL_RULE_PATTERN_MAX  4096 /* bytes of one "match" string */
#define KERNEL_RULE_REPEATS_MAX  32   /* repetition operators (* + ? {m,n}) in one regex */
#define KERNEL_RULE_INTERVAL_MAX 100  /* largest bound in a {m,n} interval */

/* One rule as data: a substring (case-insensitive) or a regex, and the class it gives. */
typedef struct {
	const char *match;
	bool regex;
	kernel_class cls;
} kernel_rule_spec;

/* Compiles n specs in order. Caller frees with kernel_rules_free(). */
ns_status kernel_rules_from_specs(const kernel_rule_spec *spec, size_t n, kernel_rules **out, ns_error *err);
/* {"rules": [{"match": "...", "regex": true|false, "class": "compute|memory|comm"}, ...]} from a file, on its
 * own (kernel_rules_then_builtin() puts the built-in table behind it). Matching is case-insensitive. Caller
 * frees with kernel_rules_free(). */
ns_status kernel_rules_load(const char *path, kernel_rules **out, ns_error *err);
/* The same from text already in memory (tests, fuzzing). */
ns_status kernel_rules_parse(const char *text, size_t len, kernel_rules **out, ns_error *err);
size_t kernel_rules_count(const kernel_rules *r);
/* After r's own rules, ask the built-in identity table (trace_kernels.h) instead of defaulting to memory: how
 * a rules file extends the built-in table (--kernel-rules) rather than replacing it (--kernel-rules-only). */
void kernel_rules_then_builtin(kernel_rules *r);
/* The class of a NUL-terminated kernel name. The rules see the name as written, less a trailing parameter
 * list
 * "(int, float*)"; the built-in table, when consulted, sees the kernel's identity (kernel_identity.h). */
kernel_class kernel_rules_classify(const kernel_rules *r, const char *name);
void kernel_rules_free(kernel_rules *r);

#endif
