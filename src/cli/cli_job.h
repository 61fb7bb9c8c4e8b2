/* `nextstep job SUMMARY...`, and the job report (the library's job_report.h) in the CLI's configuration. */
#ifndef NEXTSTEP_CLI_JOB_H
#define NEXTSTEP_CLI_JOB_H

#include "cli.h"
#include "nextstep/html.h"
#include "nextstep/job.h"

/* Prints res in cfg's format (text, quiet or JSON) to stdout. Returns EXIT_ROUTED, or EXIT_BAD_INPUT after a
 * message when memory ran out or stdout failed. */
int cli_job_report(const cli_config *cfg, const ns_job_result *res);
/* --html: the job's section of page, from the report model (its verdict and next steps first). */
ns_status cli_job_html(const cli_config *cfg, ns_html_page *page, const ns_job_result *res, ns_error *err);

/* Names the ranks whose trace is unfit on stderr; EXIT_QUALITY when one is below --min-quality, else
 * EXIT_ROUTED. */
int cli_job_quality(const cli_config *cfg, const ns_job_result *res);

#endif
