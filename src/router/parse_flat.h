/* The NDJSON record most streams are made of, read without a cJSON tree (parse_flat.c). Private to the
 * library: the profile reader and the tests and fuzzers that check it against the general path. */
#ifndef NEXTSTEP_ROUTER_PARSE_FLAT_H
#define NEXTSTEP_ROUTER_PARSE_FLAT_H

#include <stdbool.h>
#include <stddef.h>

#include "nextstep/parse_json.h"

/* Reads the record s[0..n) into p and unknown when it is a flat object the general path (cJSON, then
 * ns_parse_profile_json) would read without error, exactly as that path would. False for anything else, which
 * the caller hands to the general path: that one says what is wrong. */
bool profile_parse_flat(const char *s, size_t n, bool strict, ns_profile *p,
                        ns_profile_unknown_keys *unknown);

/* "compute" or "compute_pct" (n bytes, no NUL needed) -> NS_REGIME_COMPUTE. */
bool profile_bucket_from_key(const char *key, size_t n, ns_regime *r);
/* Counts an unknown key of n bytes and keeps its name, escaped for a warning, while there is room. */
void profile_note_unknown(ns_profile_unknown_keys *unknown, const char *key, size_t n);

#endif
