/* Where the data files (the device table) are. The library never looks: the command line resolves the folder
 * here and passes paths down. No path is compiled in except one relative to the binary, so an installed tree
 * can move and two builds from different folders are identical. */
#ifndef NEXTSTEP_CLI_DATADIR_H
#define NEXTSTEP_CLI_DATADIR_H

#include <stdbool.h>
#include <stddef.h>

#include "nextstep/devices.h"
#include "nextstep/error.h"

/* The variable that overrides the search. */
#define DATADIR_ENV "NEXTSTEP_DATADIR"

/* The data directory: $NEXTSTEP_DATADIR when it is set and not empty (then it is the only candidate: an
 * override that silently fell back would hide a typo), else the first of EXE_DIR/../share/nextstep (the
 * installed layout) and EXE_DIR/share/nextstep (the build tree) that holds devices.json. On failure err says
 * which paths were tried. */
ns_status datadir_find(char *dir, size_t size, ns_error *err);

/* The variable that names the documentation folder instead. */
#define DOCDIR_ENV "NEXTSTEP_DOCDIR"

/* The folder of nextstep's documentation (fixes.md, which the routes point into): $NEXTSTEP_DOCDIR when it is
 * set and not empty, as given; else the first of EXE_DIR/../share/doc/nextstep (installed) and
 * EXE_DIR/share/doc/nextstep (the build tree) that holds fixes.md, as an absolute path without "..": 1, or 0
 * when none does, or -1 when memory ran out resolving the path. */
int datadir_find_docs(char *dir, size_t size);

/* ns_devices_init() + the table from datadir_find()'s folder. Errors are printed as "nextstep: FILE:LINE:
 * what" (or "nextstep: what" when no folder was found); returns an ns_exit status. */
int datadir_load_devices(ns_device_table *t);
/* The same for advice that is better with the table than without, never required: an empty table when no
 * data directory is found; a table there that cannot be read is left out with a warning on stderr. Out of
 * memory is said on stderr and gives EXIT_BAD_INPUT (t empty), so that no report silently lacks the table;
 * else EXIT_ROUTED. */
int datadir_try_devices(ns_device_table *t);

#endif
