/* Interned kernel and memcpy names: each distinct name gets an id, is stored once, and is classified once,
 * so time can be summed per name without storing names per event. */
#ifndef NEXTSTEP_KERNEL_NAMES_H
#define NEXTSTEP_KERNEL_NAMES_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/kernel_names.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stddef.h>
#include <stdint.h>

#include "nextstep/api.h"
#include "nextstep/error.h"
#include "nextstep/kernel_rules.h"

NS_BEGIN_DECLS

#define NS_KERNEL_NAMES_MAX       (1u << 22)  /* distinct kernel/memcpy names in one trace */
#define NS_KERNEL_NAME_MAX        (1u << 20)  /* bytes of one name (real ones run to a few KiB) */
#define NS_KERNEL_NAMES_BYTES_MAX (64u << 20) /* bytes of all distinct names together */

/* id -> owned NUL-terminated copy, with the class cached after the first lookup. */
typedef struct ns_kernel_names ns_kernel_names;

/* NULL on OOM. Free with ns_kernel_names_free(). */
NS_STATIC_API ns_kernel_names *ns_kernel_names_new(void);
/* The id of name[0..len) (not NUL-terminated, JSON escapes as written), adding it when new. A name longer
 * than NS_KERNEL_NAME_MAX, or one that would take the distinct names past NS_KERNEL_NAMES_BYTES_MAX, is an
 * NS_ERR_LIMIT error. */
NS_STATIC_API ns_status ns_kernel_names_intern(ns_kernel_names *t, const char *name, size_t len, uint32_t *id,
                                               ns_error *err);
NS_STATIC_API size_t ns_kernel_names_count(const ns_kernel_names *t);
/* The name for display and classification: escapes resolved, well-formed UTF-8 (U+FFFD for bad bytes). */
NS_STATIC_API const char *ns_kernel_names_get(const ns_kernel_names *t, uint32_t id);
/* The class of name id under rules, computed once per name. Once the regex rules have given up on
 * NS_KERNEL_NAMES_GIVE_UP_MAX names of the table, they are left out for its other names: the cost of regexes
 * is bounded per input (names x rules x the match limit was half a minute for 100,000 names). */
#define NS_KERNEL_NAMES_GIVE_UP_MAX 64
NS_STATIC_API ns_kernel_class ns_kernel_names_classify(ns_kernel_names *t, uint32_t id,
                                                       const ns_kernel_rules *rules);
/* How many names a regex rule gave up on (reached its cost limit; see ns_kernel_rules_classify_ex), and the
 * first such rule's 1-based number in *first_rule (when not NULL). */
NS_STATIC_API size_t ns_kernel_names_gave_up(const ns_kernel_names *t, size_t *first_rule);
/* How many names were classified without the regex rules, after NS_KERNEL_NAMES_GIVE_UP_MAX gave up. */
NS_STATIC_API size_t ns_kernel_names_without_regex(const ns_kernel_names *t);
NS_STATIC_API void ns_kernel_names_free(ns_kernel_names *t);

NS_END_DECLS

#endif
