/* A profile: the split of step time into regimes plus an optional label.
 * Where it came from (flags, JSON, a trace) is not recorded: classify and format must not care. */
#ifndef NEXTSTEP_PROFILE_H
#define NEXTSTEP_PROFILE_H

#include <stdbool.h>

#include "nextstep/api.h"
#include "nextstep/error.h"
#include "nextstep/regime.h"

NS_BEGIN_DECLS

#define NS_PROFILE_LABEL_MAX 256
/* Shares may sum to at most 1 + this before they are rejected (or rescaled with --normalize). */
#define NS_PROFILE_SUM_TOLERANCE 0.01

typedef struct {
	double share[NS_REGIME_COUNT];    /* fractions of step time, each in [0,1] */
	bool present[NS_REGIME_COUNT];    /* the input named this bucket */
	char label[NS_PROFILE_LABEL_MAX]; /* "" when none */
} ns_profile;

/* ns_error.param of the profile errors a caller setting decides. */
enum {
	NS_PROFILE_PARAM_NORMALIZE = 1, /* shares sum above 1: normalizing would rescale them instead */
	NS_PROFILE_PARAM_STRICT /* an unknown key, an error only because strict reading was asked for */
};

NS_API void ns_profile_init(ns_profile *p);
NS_API double ns_profile_sum(const ns_profile *p);
/* Checks the sum rule; with normalize, rescales a sum above 1 to exactly 1 instead of failing. */
NS_API ns_status ns_profile_validate(ns_profile *p, bool normalize, ns_error *err);
/* A numeric share must be finite and in [0,1]. */
NS_API ns_status ns_profile_check_share(double v, ns_error *err);
/* Parses "0.72" or "72%" into a fraction in [0,1]; rejects NaN, Inf, negatives, bare numbers above 1. */
NS_API ns_status ns_profile_parse_share(const char *text, double *out, ns_error *err);
NS_API void ns_profile_set_label(ns_profile *p, const char *label);

NS_END_DECLS

#endif
