#include "nextstep/parse_flags.h"

#include <stdio.h>

ns_status parse_flag_bucket(ns_profile *p, ns_regime r, const char *value, ns_error *err)
{
	double share;

	if (p->present[r])
		return ns_error_set(err, NS_ERR_VALUE, "--%s given twice", regime_name(r));
	if (profile_parse_share(value, &share, err) != NS_OK) {
		char why[sizeof(err->msg)];
		snprintf(why, sizeof(why), "%s", err->msg);
		return ns_error_set(err, NS_ERR_VALUE, "--%s: %s", regime_name(r), why);
	}
	p->share[r] = share;
	p->present[r] = true;
	return NS_OK;
}
