/* A file written whole or not at all: the bytes go to a new file beside the final name, which takes its place
 * (rename(2), atomic within a directory) only once everything is written and on disk. A reader of the final
 * name sees the old file or the new one, never a part; a failed write leaves the old file as it was.
 * Private to the library. */
#ifndef NEXTSTEP_UTIL_OUTFILE_H
#define NEXTSTEP_UTIL_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "nextstep/error.h"

typedef struct {
	FILE *fp;   /* write here */
	char *path; /* the final name (owned) */
	char
	    *tmp; /* the new file beside it (owned); NULL when path is a device or a FIFO, written in place */
} outfile;

/* Creates the new file for path: in path's directory (a symbolic link followed to its target's), readable
 * as a new file of the process's umask would be, or as the file it replaces is. A directory is an error.
 * NS_ERR_IO with the reason, o untouched, when it cannot. */
ns_status outfile_open(outfile *o, const char *path, ns_error *err);
/* Flushes, syncs and renames the new file into place; on any failure it is removed and the old file is
 * left as it was. Frees o's members either way. */
ns_status outfile_commit(outfile *o, ns_error *err);
/* Removes the new file (the old one is untouched) and frees o's members. */
void outfile_discard(outfile *o);

#endif
