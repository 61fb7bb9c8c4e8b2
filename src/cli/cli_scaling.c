/* nextstep scaling: the batch-doubling test from two measured times. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "cli_options.h"
#include "nextstep/roofline_report.h"

int cli_scaling_run(cli_config *c)
{
	ns_scaling_report s;
	ns_error err;

	if (c->noperands > 0)
		return cli_usage_error(c->mode, "scaling takes no operands");
	memset(&s, 0, sizeof(s));
	s.label = c->label;
	s.t1 = c->time;
	s.t2 = c->time_2x;
	s.overhead_below = c->overhead_below;
	s.work_above = c->work_above;
	s.roofline_words = "'nextstep roofline'";
	if (!(c->have_time && c->have_time_2x))
		return cli_usage_error(
		    c->mode, "scaling needs --time T1 and --time-2x T2 (the step with twice the work)");
	if (c->overhead_below > c->work_above)
		return cli_usage_error(c->mode, "--overhead-below must not be above --work-above");
	ns_error_clear(&err);
	if (ns_roofline_scaling(s.t1, s.t2, s.overhead_below, s.work_above, &s.res, &err) != NS_OK)
		return cli_option_exit(c->mode, &err);
	if (s.res.faster)
		fprintf(
		    stderr,
		    "nextstep: warning: the doubled run was faster (%.2fx): measure again after warm-up\n",
		    s.res.ratio);
	if (ns_scaling_report_print(stdout, &s, &c->routes, &c->format, &err) != NS_OK)
		return cli_status_exit(c->mode, &err);
	return EXIT_ROUTED;
}
