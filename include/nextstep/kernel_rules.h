/* The kernel-rules engine: an ordered list of substring or regex rules over kernel names, first match wins;
 * when nothing matches, the built-in identity table (trace_kernels.c) if the rules extend it, else memory.
 * Rules come from files (--kernel-rules extends the built-in table, --kernel-rules-only replaces it). */
#ifndef NEXTSTEP_KERNEL_RULES_H
#define NEXTSTEP_KERNEL_RULES_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/kernel_rules.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>

#include "nextstep/api.h"
#include "nextstep/error.h"
#include "nextstep/trace_kernels.h"

NS_BEGIN_DECLS

/* Named limits on a rules file. */
#define NS_KERNEL_RULES_MAX        1024 /* rules in one file */
#define NS_KERNEL_RULE_PATTERN_MAX 4096 /* bytes of one "match" string */
/* Rules see at most the first NS_KERNEL_CLASSIFY_MAX bytes of a name (after its parameter list is cut): what
 * a kernel is shows in its head, and the bound makes classifying a name cost at most rules x this many bytes.
 */
#define NS_KERNEL_CLASSIFY_MAX 1024

/* One rule as data: a substring (case-insensitive) or a regex, and the class it gives. */
typedef struct {
	const char *match;
	bool regex;
	ns_kernel_class cls;
} ns_kernel_rule_spec;

/* Compiles n specs in order. Caller frees with ns_kernel_rules_free(). */
NS_STATIC_API ns_status ns_kernel_rules_from_specs(const ns_kernel_rule_spec *spec, size_t n,
                                                   ns_kernel_rules **out, ns_error *err);
/* {"rules": [{"match": "...", "regex": true|false, "class": "compute|memory|comm"}, ...]} from a file, on its
 * own (ns_kernel_rules_then_builtin() puts the built-in table behind it). Matching is case-insensitive. A
 * regex is PCRE2 syntax limited to regular constructs: backreferences, lookaround, recursion, conditionals,
 * named groups, callouts and (*VERBS) are errors naming the rule and the byte offset. Each regex runs under
 * PCRE2's match, depth and heap limits, so its cost on any name is bounded. Caller frees with
 * ns_kernel_rules_free(). */
NS_STATIC_API ns_status ns_kernel_rules_load(const char *path, ns_kernel_rules **out, ns_error *err);
/* The same from text already in memory (tests, fuzzing). */
NS_STATIC_API ns_status ns_kernel_rules_parse(const char *text, size_t len, ns_kernel_rules **out,
                                              ns_error *err);
NS_STATIC_API size_t ns_kernel_rules_count(const ns_kernel_rules *r);
/* After r's own rules, ask the built-in identity table (trace_kernels.h) instead of defaulting to memory: how
 * a rules file extends the built-in table (--kernel-rules) rather than replacing it (--kernel-rules-only). */
NS_STATIC_API void ns_kernel_rules_then_builtin(ns_kernel_rules *r);
/* The class of a NUL-terminated kernel name. The rules see the first NS_KERNEL_CLASSIFY_MAX bytes of the name
 * as written, less a trailing parameter list "(int, float*)"; the built-in table, when consulted, sees the
 * kernel's identity (kernel_identity.h). A regex that reaches its cost limit counts as not matching, and
 * *gave_up_rule (when not NULL) is set to that rule's 1-based number, else 0. One thread at a time per
 * ns_kernel_rules (the regexes share one JIT stack). */
NS_STATIC_API ns_kernel_class ns_kernel_rules_classify_ex(const ns_kernel_rules *r, const char *name,
                                                          size_t *gave_up_rule);
/* The same, without the report of a rule giving up. */
NS_STATIC_API ns_kernel_class ns_kernel_rules_classify(const ns_kernel_rules *r, const char *name);
/* ns_kernel_rules_classify() with the regex rules left out (substring rules, then the default): what a name
 * table uses once regexes have given up on too many of its names (kernel_names.h). */
NS_STATIC_API ns_kernel_class ns_kernel_rules_classify_without_regex(const ns_kernel_rules *r,
                                                                     const char *name);
NS_STATIC_API void ns_kernel_rules_free(ns_kernel_rules *r);

NS_END_DECLS

#endif
