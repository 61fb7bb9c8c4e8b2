/* Profiles from JSON: one object, an array of objects, concatenated objects, or NDJSON streamed line by line.
 * Keys: the bucket names with or without "_pct" (values are fractions or "72%" strings either way), plus
 * "label" or "name". A verdict object printed by nextstep (it has a "split" object) is read back as its
 * split. */
#ifndef NEXTSTEP_PARSE_JSON_H
#define NEXTSTEP_PARSE_JSON_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/parse_json.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>

#include <cJSON.h>

#include "nextstep/api.h"
#include "nextstep/error.h"
#include "nextstep/input.h"
#include "nextstep/profile.h"

NS_BEGIN_DECLS

#define NS_PROFILE_LINE_MAX  (1u << 20)  /* one NDJSON line or one multi-line object, bytes */
#define NS_PROFILE_ARRAY_MAX (16u << 20) /* a whole top-level array, bytes */

/* The unknown keys of one record, for the caller to warn about: all are counted, the first few named. */
#define NS_PROFILE_UNKNOWN_KEPT     8
#define NS_PROFILE_UNKNOWN_NAME_MAX 64 /* bytes kept of each name, NUL included, escaped for printing */
typedef struct {
	size_t count;
	char name[NS_PROFILE_UNKNOWN_KEPT][NS_PROFILE_UNKNOWN_NAME_MAX];
} ns_profile_unknown_keys;

/* Fills p from obj. Unknown keys are an error when strict (err->param NS_PROFILE_PARAM_STRICT), else listed
 * in unknown. */
NS_STATIC_API ns_status ns_parse_profile_json(const cJSON *obj, ns_profile *p, bool strict,
                                              ns_profile_unknown_keys *unknown, ns_error *err);

typedef enum {
	NS_PROFILE_READ_OK,  /* *p holds the next profile (unknown may list keys; err->line/index say where it
	                      * was)
	                      */
	NS_PROFILE_READ_BAD, /* this record was bad: err says why and where; call again for the next one */
	NS_PROFILE_READ_END  /* no more records */
} ns_profile_read_result;

typedef struct ns_profile_reader ns_profile_reader;

/* Reads records from in, which the caller keeps open until ns_profile_reader_free(). NULL on OOM. */
NS_STATIC_API ns_profile_reader *ns_profile_reader_new(ns_input *in, bool strict);
NS_STATIC_API ns_profile_read_result ns_profile_reader_next(ns_profile_reader *r, ns_profile *p,
                                                            ns_profile_unknown_keys *unknown, ns_error *err);
NS_STATIC_API void ns_profile_reader_free(ns_profile_reader *r);

NS_END_DECLS

#endif
