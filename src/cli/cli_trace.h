/* The trace mode's reader, shared with the router form (which hands it the inputs that are traces). */
#ifndef NEXTSTEP_CLI_TRACE_H
#define NEXTSTEP_CLI_TRACE_H

#include <stdbool.h>

#include "cli.h"
#include "nextstep/input.h"

/* What every trace of one invocation shares: the kernel rules and, for --roofline, the device table. */
typedef struct cli_trace_session cli_trace_session;

/* Loads the rules (and devices); reports a bad file. Returns -1 with *out set, or an exit status. */
int cli_trace_session_open(cli_config *cfg, cli_trace_session **out);
void cli_trace_session_free(cli_trace_session *s);
/* --html: each trace adds its section to this page (borrowed; NULL: none). */
typedef struct cli_html cli_html;
void cli_trace_session_html(cli_trace_session *s, cli_html *html);
/* Reads, splits and reports one trace (already opened and sniffed); labelled: name it in the report. */
int cli_trace_input(cli_trace_session *s, ns_input *in, bool labelled);

#endif
