/* nextstep devices [NAME]: the device table, or one device. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#include "cli_common.h"
#include "cli_options.h"
#include "nextstep/roofline_report.h"

int cli_devices_run(cli_config *c)
{
	ns_device_table table;
	const ns_device *only = NULL;
	ns_error err;
	int rc;

	if (c->noperands > 1)
		return cli_usage_error(c->mode, "devices takes at most one NAME");
	ns_devices_init(&table);
	rc = cli_load_devices(c, &table);
	if (rc == EXIT_ROUTED && c->noperands == 1 &&
	    (only = ns_devices_find(&table, c->operands[0])) == NULL)
		rc = cli_usage_error(c->mode, "unknown device '%.100s'", c->operands[0]);
	ns_error_clear(&err);
	if (rc == EXIT_ROUTED && ns_devices_report_print(stdout, &table, only, &c->format, &err) != NS_OK)
		rc = cli_status_exit(c->mode, &err);
	if (rc == EXIT_ROUTED && c->format.kind == NS_FORMAT_TEXT && !c->format.verbose && only == NULL)
		puts("-v shows aliases, ridge points and the datasheet each number comes from.");
	ns_devices_free(&table);
	return rc;
}
