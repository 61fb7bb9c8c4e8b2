/* The files the command line writes beside stdout (--html FILE, --svg FILE). Each is written to a new file
 * beside its name and put in place only when complete (util/outfile.h); a run that fails, or a signal that
 * ends it, leaves no new file and the old one as it was. Before anything is read the name is checked: an
 * input of the same run is never overwritten, and an existing file that is not a page or a plot nextstep
 * wrote only with --force (it is most often an input named where the output's name was forgotten). */
#ifndef NEXTSTEP_CLI_OUTPUT_H
#define NEXTSTEP_CLI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli.h"

typedef struct cli_output cli_output;

/* What is written, for the messages: the option that names it and what it holds. */
typedef struct {
	const char *option; /* "--html" */
	const char *thing;  /* "page", "plot" */
} cli_output_kind;

/* Checks path against the inputs (the n paths the run reads, "-" for stdin, and the option files in c:
 * --playbook, --kernel-rules, --device-file) and opens its new file. Returns -1 with *out set, or an exit
 * status after saying why: EXIT_USAGE when path is an input or an existing file nextstep did not write (no
 * --force), EXIT_BAD_INPUT when it cannot be created. */
int cli_output_open(const cli_config *c, const cli_output_kind *kind, const char *path, char *const *inputs,
                    size_t n, cli_output **out);
FILE *cli_output_stream(const cli_output *o);
/* keep: the file takes its name (else it is removed, the old one untouched). False after reporting a write
 * error (nothing was put in place then either). Frees o; NULL is fine (true). */
bool cli_output_close(cli_output *o, bool keep);

#endif
