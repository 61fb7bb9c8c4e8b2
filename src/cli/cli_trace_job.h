/* `nextstep trace` over the ranks of one job: the files whose distributedInfo names a rank are gathered as
 * they are written out (in input order) and, when they form one job, reported by the job report instead of
 * one report each. From the first rank on, every file's report waits here, so that the output keeps the
 * input order whether or not the files turn out to be a job. */
#ifndef NEXTSTEP_CLI_TRACE_JOB_H
#define NEXTSTEP_CLI_TRACE_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "nextstep/job.h"

typedef struct trace_job trace_job;

/* NULL on OOM. */
trace_job *trace_job_new(void);
/* Whether the next file's report must wait here (a rank was seen). */
bool trace_job_holding(const trace_job *j);
/* Takes the next file's report (out, a spool of cli_spool.h, or text, len: one in memory, malloc'd; either
 * may be NULL), copied into the job's one store and freed, and, for a rank, its summary (rank->file names the
 * file; NULL for a file that is no rank). False on OOM (all are then freed). */
bool trace_job_add(trace_job *j, ns_job_rank *rank, FILE *out, char *text, size_t len);
/* After the last file, in input order: each file's report, where two or more ranks of one job are replaced
 * by the job report (at the first rank's place). One rank alone gets its own report, as without a job.
 * Ranks that cannot be one job (a rank twice, different world sizes, a rank past its world size): why on
 * stderr, each file's own report, and EXIT_BAD_INPUT. Returns an exit status; frees j (NULL is fine). */
typedef struct cli_html cli_html;
/* html: --html's page (NULL: none), which gets the job's section after the ranks' own. */
int trace_job_finish(trace_job *j, const cli_config *cfg, cli_html *html);

#endif
