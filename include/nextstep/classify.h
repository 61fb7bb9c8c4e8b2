/* The classifier: a profile into a verdict by max-with-priority. Knows nothing of input or output. */
#ifndef NEXTSTEP_CLASSIFY_H
#define NEXTSTEP_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "nextstep/api.h"
#include "nextstep/error.h"
#include "nextstep/profile.h"
#include "nextstep/regime.h"

NS_BEGIN_DECLS

#define NS_CLASSIFY_HIGH_DEFAULT     0.20
#define NS_CLASSIFY_MODERATE_DEFAULT 0.05

typedef struct {
	ns_regime priority[NS_REGIME_COUNT]; /* earlier wins a tie */
	double tie;                          /* shares within this of the maximum count as tied */
	double high;                         /* secondary finding grades */
	double moderate;
} ns_classify_options;

typedef enum { NS_GRADE_NONE, NS_GRADE_MODERATE, NS_GRADE_HIGH } ns_grade;

typedef struct {
	ns_regime regime;
	double share;
	ns_grade grade;
} ns_finding;

typedef struct {
	ns_regime regime; /* dominant */
	double share;
	ns_regime runner_up; /* next in the ranking */
	double runner_up_share;
	double margin;    /* share - runner_up_share (>= 0 unless priority decided within --tie) */
	bool by_priority; /* the tie rule, not the numbers, decided */
	ns_regime ranked[NS_REGIME_COUNT];    /* every regime, dominant first, by share then priority */
	double split[NS_REGIME_COUNT];        /* the profile's shares */
	double unattributed;                  /* 1 - sum, never negative */
	ns_finding findings[NS_REGIME_COUNT]; /* graded non-dominant buckets, in ranked order */
	size_t nfindings;
} ns_verdict;

NS_API void ns_classify_options_default(ns_classify_options *o);
/* "compute,memory,..." must be a permutation of all regimes. */
NS_API ns_status ns_classify_parse_priority(const char *list, ns_regime out[NS_REGIME_COUNT], ns_error *err);
NS_API void ns_classify_profile(const ns_profile *p, const ns_classify_options *o, ns_verdict *v);
/* The router's workflow in one call: checks p's shares (ns_profile_validate(); with normalize a sum above 1
 * is rescaled to 1, in p) and classifies it into *v with options (NULL: the defaults). NS_ERR_VALUE with err
 * set, and *v untouched, when the shares do not add up. */
NS_API ns_status ns_route_profile(ns_profile *p, const ns_classify_options *options, bool normalize,
                                  ns_verdict *v, ns_error *err);
NS_API const char *ns_grade_name(ns_grade g);

NS_END_DECLS

#endif
