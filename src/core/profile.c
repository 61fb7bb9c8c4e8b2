#include "nextstep/profile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

void ns_profile_init(ns_profile *p)
{
	memset(p, 0, sizeof(*p));
}

double ns_profile_sum(const ns_profile *p)
{
	double sum = 0.0;

	for (int r = 0; r < NS_REGIME_COUNT; r++)
		sum += p->share[r];
	return sum;
}

/* Labels come from other people's files and are printed again, in JSON too: they are kept as well-formed
 * UTF-8 (bad bytes become U+FFFD) and cut between characters. */
void ns_profile_set_label(ns_profile *p, const char *label)
{
	ns_utf8_clean(label, strlen(label), p->label, sizeof(p->label));
}

ns_status ns_profile_validate(ns_profile *p, bool normalize, ns_error *err)
{
	double sum = ns_profile_sum(p);
	bool any = false;

	for (int r = 0; r < NS_REGIME_COUNT; r++)
		any = any || p->present[r];
	if (!any)
		return ns_error_set(err, NS_ERR_VALUE,
		                    "no bucket given (expected at least one of compute, memory, "
		                    "comm, dataloader, overhead, idle)");
	if (sum <= 0.0)
		return ns_error_set(err, NS_ERR_VALUE, "every share is 0: nothing to route");
	if (normalize) {
		if (sum > 1.0)
			for (int r = 0; r < NS_REGIME_COUNT; r++)
				p->share[r] /= sum;
		return NS_OK;
	}
	if (sum > 1.0 + NS_PROFILE_SUM_TOLERANCE) {
		ns_error_set(err, NS_ERR_VALUE,
		             "shares sum to %.4g, above 1: did two buckets count the same time?", sum);
		return ns_error_set_param(err, NS_PROFILE_PARAM_NORMALIZE);
	}
	return NS_OK;
}

/* strtod also takes "inf", "nan" and hex floats; a share is only ever written in decimal. */
static bool looks_decimal(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strchr("0123456789.eE+-", s[i]) == NULL || s[i] == '\0')
			return false;
	return true;
}

/* The share's text is needed only for the message: it is made on the error path (ns_shortest_g costs up to
 * 17 snprintf and strtod pairs, and a stream checks six shares a line). */
ns_status ns_profile_check_share(double v, ns_error *err)
{
	char text[32];

	if (!isfinite(v))
		return ns_error_set(err, NS_ERR_VALUE, "share is not a finite number");
	if (v >= 0 && v <= 1.0)
		return NS_OK;
	ns_shortest_g(v, text, sizeof(text));
	if (v < 0)
		return ns_error_set(err, NS_ERR_VALUE, "share %s is negative", text);
	return ns_error_set(err, NS_ERR_VALUE,
	                    "share %s is above 1 (shares are fractions of step time; for a percentage write "
	                    "%s%%)",
	                    text, text);
}

ns_status ns_profile_parse_share(const char *text, double *out, ns_error *err)
{
	size_t n = strlen(text);
	bool percent = n > 0 && text[n - 1] == '%';
	char buf[64];
	char *end;
	double v;

	if (percent)
		n--;
	if (n >= sizeof(buf) || !looks_decimal(text, n))
		return ns_error_set(
		    err, NS_ERR_VALUE,
		    "'%.40s' is not a number (expected a fraction like 0.72 or a percentage like 72%%)",
		    text);
	memcpy(buf, text, n);
	buf[n] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (*end != '\0')
		return ns_error_set(err, NS_ERR_VALUE, "'%s' is not a number", text);
	/* Too small for a double (1e-400) is a share of 0; too large is no share at all. */
	if (errno == ERANGE && fabs(v) < 1.0)
		v = 0.0;
	else if (!isfinite(v) || errno == ERANGE)
		return ns_error_set(err, NS_ERR_VALUE, "'%s' is out of range (shares are fractions of 1)",
		                    text);
	if (percent) {
		if (v < 0 || v > 100.0)
			return ns_error_set(err, NS_ERR_VALUE, "share %s is outside 0%%..100%%", text);
		v /= 100.0;
	} else if (ns_profile_check_share(v, err) != NS_OK) {
		return err->status;
	}
	*out = v;
	return NS_OK;
}
