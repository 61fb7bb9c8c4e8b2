#include "nextstep/parse_flags.h"

#include <stdio.h>

ns_status ns_parse_flag_bucket(ns_profile *p, ns_regime r, const char *value, ns_error *err)
{
	double share;

	if (p->present[r])
		return ns_error_set(err, NS_ERR_VALUE, "--%s given twice", ns_regime_name(r));
	if (ns_profile_parse_share(value, &share, err) != NS_OK) {
		char why[sizeof(err->msg)];
		snprintf(why, sizeof(why), "%s", err->msg);
		return ns_error_set(err, NS_ERR_VALUE, "--%s: %s", ns_regime_name(r), why);
	}
	p->share[r] = share;
	p->present[r] = true;
	return NS_OK;
}
