/* Spools (cli_spool.h): mkstemp in the chosen directory, unlinked at once. tmpfile() would not do: glibc's
 * ignores TMPDIR, and a user short of room in /tmp must be able to point the spools elsewhere. */
#define _POSIX_C_SOURCE 200809L
#include "cli_spool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPOOL_COPY_CHUNK 65536

const char *cli_spool_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir != NULL && dir[0] != '\0' ? dir : "/tmp";
}

FILE *cli_spool_new(char *why, size_t size)
{
	const char *dir = cli_spool_dir();
	size_t n = strlen(dir) + sizeof("/nextstep-XXXXXX");
	char *path = malloc(n);
	FILE *f = NULL;
	int fd = -1, saved;

	if (path != NULL) {
		snprintf(path, n, "%s/nextstep-XXXXXX", dir);
		fd = mkstemp(path);
	}
	if (fd >= 0) {
		unlink(path);
		f = fdopen(fd, "w+");
	}
	saved = path == NULL ? ENOMEM : errno;
	if (f == NULL && fd >= 0)
		close(fd);
	free(path);
	if (f == NULL)
		snprintf(why, size, "cannot create a temporary file in %.200s: %s", dir, strerror(saved));
	return f;
}

bool cli_spool_copy(FILE *spool, FILE *to)
{
	char *buf;
	size_t n;
	bool ok;

	fflush(spool);
	clearerr(spool); /* a failed write was said when the report was written */
	if (fseek(spool, 0, SEEK_SET) != 0)
		return false;
	if ((buf = malloc(SPOOL_COPY_CHUNK)) == NULL)
		return false;
	while ((n = fread(buf, 1, SPOOL_COPY_CHUNK, spool)) > 0)
		fwrite(buf, 1, n, to);
	ok = !ferror(spool);
	free(buf);
	return ok;
}
