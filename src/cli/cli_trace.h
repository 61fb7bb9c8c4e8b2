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

/* The progress line on stderr while in is read (cli_progress.c): installs in's progress hook. */
typedef struct progress_line cli_progress_line;
cli_progress_line *cli_progress_start(cli_progress mode, ns_input *in);
/* Clears the line (if one was shown) and frees; a member of a set counts as a file done. NULL is fine. */
void cli_progress_end(cli_progress_line *p);
/* One line for several files read at once, by any thread: paths give the total size. NULL when no line is
 * wanted (mode, not a terminal, CI) or memory is short. */
typedef struct progress_set cli_progress_set;
cli_progress_set *cli_progress_set_start(cli_progress mode, char *const *paths, size_t n);
/* Counts in's reads in the set's line (cli_progress_end() when in is read). NULL when s is NULL. */
cli_progress_line *cli_progress_join(cli_progress_set *s, ns_input *in);
/* Around output to the terminal while the set's line may be drawn: hold clears the line and keeps it from
 * being drawn until release, so a report or message never lands inside it. NULL is fine. */
void cli_progress_set_hold(cli_progress_set *s);
void cli_progress_set_release(cli_progress_set *s);
/* Clears the line and frees; after every member ended. NULL is fine. */
void cli_progress_set_end(cli_progress_set *s);

#endif
