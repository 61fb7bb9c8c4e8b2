/* A report waiting for its turn in the output. Several inputs read at once (-j) finish in any order, but
 * their reports are written in input order; one finished before an earlier input's waits in an unlinked
 * temporary file, not in memory, so memory does not grow with the size of the output (the JSON report of a
 * million steps is over a gigabyte). */
#ifndef NEXTSTEP_CLI_SPOOL_H
#define NEXTSTEP_CLI_SPOOL_H

#include <stdbool.h>
#include <stdio.h>

/* $TMPDIR, or /tmp when TMPDIR is unset or empty: where spools, and the split's step windows past a few
 * megabytes (ns_trace_split_spill_dir), wait. */
const char *cli_spool_dir(void);

/* A new spool: an empty temporary file in $TMPDIR (or /tmp when TMPDIR is unset or empty), already
 * unlinked, so it goes when closed (fclose) or when the process ends. NULL with why (up to size bytes) set to
 * "cannot create a temporary file in DIR: REASON" when it cannot be made. */
FILE *cli_spool_new(char *why, size_t size);

/* Copies what was written to spool, from its start, to to. False when the spool cannot be read back (a
 * write error on to is to's own: stdio keeps its error flag). */
bool cli_spool_copy(FILE *spool, FILE *to);

#endif
