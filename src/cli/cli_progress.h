/* The progress line on stderr while long inputs are read (cli_progress.c): bytes read of the total, MB/s and
 * the time left, on a terminal only (or as --progress/--no-progress say). */
#ifndef NEXTSTEP_CLI_PROGRESS_H
#define NEXTSTEP_CLI_PROGRESS_H

#include <stddef.h>

#include "cli.h"
#include "nextstep/input.h"

/* The line while in is read: installs in's progress hook. */
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
