/* The job report (issue 12): a merged job routed and printed, and `nextstep job SUMMARY...`. */
#ifndef NEXTSTEP_CLI_JOB_H
#define NEXTSTEP_CLI_JOB_H

#include <stdio.h>

#include "cli.h"
#include "nextstep/job.h"

/* Prints res in cfg's format (text, quiet or JSON) to out. Returns EXIT_ROUTED, or EXIT_BAD_INPUT after a
 * message when memory ran out or out failed. */
int cli_job_report(const cli_config *cfg, const job_result *res, FILE *out);
/* The job's verdict and routes, as the report states them (the straggler's bucket when there is one). */
void cli_job_verdict(const cli_config *cfg, const job_result *res, ns_verdict *v, ns_routes *routes);

#endif
