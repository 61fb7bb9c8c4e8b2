/* Small JSON documents read whole with cJSON: playbooks, kernel rules, device files.
 * (Traces are never read this way: see trace_read.h.) */
#ifndef NEXTSTEP_JSON_FILE_H
#define NEXTSTEP_JSON_FILE_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/json_file.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stddef.h>

#include <cJSON.h>

#include "nextstep/api.h"
#include "nextstep/error.h"

NS_BEGIN_DECLS

/* Largest small document accepted; a larger one is an NS_ERR_LIMIT error, not an OOM. */
#define NS_JSON_FILE_MAX (16u << 20)

/* Reads and parses path. On success *out is owned by the caller (cJSON_Delete). A syntax error sets
 * err->line to the line of the offending byte. A key given twice in one object is an NS_ERR_KEY error
 * (ns_json_check_unique_keys), as in profiles: JSON leaves it undefined which value wins. Memory that runs
 * out, also inside cJSON's parse (malloc's ENOMEM), is NS_ERR_NOMEM, never a syntax error. */
NS_STATIC_API ns_status ns_json_parse_file(const char *path, cJSON **out, ns_error *err);
/* Fails with NS_ERR_KEY, naming the key and where it is ("routes.compute", "devices[2]"), when an object
 * anywhere under root has two members with the same key. */
NS_STATIC_API ns_status ns_json_check_unique_keys(const cJSON *root, ns_error *err);
/* Names an object key unknown to the caller: fails when key is not in allowed (NULL-terminated). */
NS_STATIC_API ns_status ns_json_check_keys(const cJSON *obj, const char *const *allowed, const char *what,
                                           ns_error *err);

NS_END_DECLS

#endif
