#include "nextstep/classify.h"

#include <string.h>

void ns_classify_options_default(ns_classify_options *o)
{
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		o->priority[r] = (ns_regime)r;
	o->tie = 0.0;
	o->high = NS_CLASSIFY_HIGH_DEFAULT;
	o->moderate = NS_CLASSIFY_MODERATE_DEFAULT;
}

const char *ns_grade_name(ns_grade g)
{
	switch (g) {
	case NS_GRADE_HIGH:
		return "high";
	case NS_GRADE_MODERATE:
		return "moderate";
	case NS_GRADE_NONE:
		break;
	}
	return "none";
}

ns_status ns_classify_parse_priority(const char *list, ns_regime out[NS_REGIME_COUNT], ns_error *err)
{
	bool seen[NS_REGIME_COUNT] = {false};
	const char *p = list;
	int n = 0;

	while (*p != '\0') {
		const char *comma = strchr(p, ',');
		size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
		char name[32];
		ns_regime r;

		while (len > 0 && *p == ' ') {
			p++;
			len--;
		}
		while (len > 0 && p[len - 1] == ' ')
			len--;
		if (len == 0 || len >= sizeof(name))
			return ns_error_set(err, NS_ERR_VALUE, "empty or overlong name in '%s'", list);
		memcpy(name, p, len);
		name[len] = '\0';
		if (!ns_regime_from_name(name, &r))
			return ns_error_set(err, NS_ERR_VALUE, "unknown regime '%s'", name);
		if (seen[r])
			return ns_error_set(err, NS_ERR_VALUE, "'%s' appears twice", name);
		seen[r] = true;
		out[n++] = r;
		if (comma == NULL)
			break;
		p = comma + 1;
		if (*p == '\0')
			return ns_error_set(err, NS_ERR_VALUE, "trailing comma in '%s'", list);
	}
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		if (!seen[r])
			return ns_error_set(err, NS_ERR_VALUE,
			                    "must name all six regimes once (missing '%s')",
			                    ns_regime_name((ns_regime)r));
	return NS_OK;
}

/* Larger share first; equal shares in priority order. */
static void rank_by_share(const double *share, const int *rank_of, ns_regime ranked[NS_REGIME_COUNT])
{
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		ranked[r] = (ns_regime)r;
	for (int i = 1; i < NS_REGIME_COUNT; i++) {
		ns_regime x = ranked[i];
		int j = i - 1;
		while (j >= 0 && (share[ranked[j]] < share[x] ||
		                  (share[ranked[j]] == share[x] && rank_of[ranked[j]] > rank_of[x]))) {
			ranked[j + 1] = ranked[j];
			j--;
		}
		ranked[j + 1] = x;
	}
}

/* Of every regime within the tie tolerance of the maximum, the earliest in priority wins. */
static ns_regime pick_winner(const double *share, const ns_classify_options *o, double max)
{
	for (int i = 0; i < NS_REGIME_COUNT; i++) {
		ns_regime r = o->priority[i];
		if (share[r] >= max - o->tie)
			return r;
	}
	return o->priority[0];
}

static void grade_findings(ns_verdict *v, const ns_classify_options *o)
{
	v->nfindings = 0;
	for (int i = 0; i < NS_REGIME_COUNT; i++) {
		ns_regime r = v->ranked[i];
		double s = v->split[r];
		ns_grade g = s >= o->high       ? NS_GRADE_HIGH
		             : s >= o->moderate ? NS_GRADE_MODERATE
		                                : NS_GRADE_NONE;
		if (r == v->regime || g == NS_GRADE_NONE || s <= 0.0) /* an empty bucket is never a finding */
			continue;
		v->findings[v->nfindings++] = (ns_finding){.regime = r, .share = s, .grade = g};
	}
}

void ns_classify_profile(const ns_profile *p, const ns_classify_options *o, ns_verdict *v)
{
	int rank_of[NS_REGIME_COUNT];
	ns_regime by_share[NS_REGIME_COUNT];
	double sum = 0.0;
	int k = 1;

	memset(v, 0, sizeof(*v));
	for (int i = 0; i < NS_REGIME_COUNT; i++)
		rank_of[o->priority[i]] = i;
	for (int r = 0; r < NS_REGIME_COUNT; r++) {
		v->split[r] = p->share[r];
		sum += p->share[r];
	}
	v->unattributed = sum < 1.0 ? 1.0 - sum : 0.0;
	rank_by_share(v->split, rank_of, by_share);

	v->regime = pick_winner(v->split, o, v->split[by_share[0]]);
	v->share = v->split[v->regime];
	/* The numbers decided only if the winner is the strict maximum. */
	v->by_priority = v->regime != by_share[0] || v->split[by_share[1]] == v->split[by_share[0]];

	v->ranked[0] = v->regime;
	for (int i = 0; i < NS_REGIME_COUNT; i++)
		if (by_share[i] != v->regime)
			v->ranked[k++] = by_share[i];
	v->runner_up = v->ranked[1];
	v->runner_up_share = v->split[v->runner_up];
	v->margin = v->share - v->runner_up_share;
	grade_findings(v, o);
}

ns_status ns_route_profile(ns_profile *p, const ns_classify_options *options, bool normalize, ns_verdict *v,
                           ns_error *err)
{
	ns_classify_options defaults;
	ns_status st = ns_profile_validate(p, normalize, err);

	if (st != NS_OK)
		return st;
	if (options == NULL) {
		ns_classify_options_default(&defaults);
		options = &defaults;
	}
	ns_classify_profile(p, options, v);
	return NS_OK;
}
