/* Closing an open_memstream() stream without losing what was written to it. Private to the library and the
 * command line. */
#ifndef NEXTSTEP_UTIL_MEMSTREAM_H
#define NEXTSTEP_UTIL_MEMSTREAM_H

#include <stdbool.h>
#include <stdio.h>

/* Closes f, a stream of open_memstream(buf, ...), and says whether *buf holds all that was written. glibc's
 * fclose() of such a stream returns 0 even when its last realloc() fails: the buffer is then freed and *buf
 * set to NULL (the size is not updated), so the text is gone while the close looked fine. */
static inline bool ns_memstream_close(FILE *f, char *const *buf)
{
	return fclose(f) == 0 && *buf != NULL;
}

#endif
