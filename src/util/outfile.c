/* Writing a file whole or not at all (outfile.h).
 *
 * The new file is made with open(O_CREAT | O_EXCL, 0666) under a random name rather than with mkstemp(3):
 * mkstemp creates it 0600, and setting what a plain create would have given means reading the process's
 * umask, which umask(2) can only do by changing it, for every thread. The kernel applies the umask (and a
 * default ACL) to the 0666 itself. O_EXCL makes the name ours alone, as mkstemp does. */
#define _GNU_SOURCE /* getrandom */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Tries at a free temporary name before giving up (each a 62^8 draw: only a full directory of our names
 * would exhaust them). */
#define TMP_TRIES 100
/* Bytes of the final name kept in the temporary one: ".NAME.XXXXXXXX" stays under NAME_MAX. */
#define TMP_BASE_MAX 200

/* Eight random letters and digits; without getrandom(2) (an old kernel), from the time, the process and a
 * counter: O_EXCL keeps even a guessable name safe, it only costs a retry. */
static void random_suffix(char out[9])
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static unsigned counter;
	unsigned char bytes[8];
	struct timespec ts;

	if (getrandom(bytes, sizeof(bytes), GRND_NONBLOCK) != (ssize_t)sizeof(bytes)) {
		uint64_t x;
		clock_gettime(CLOCK_REALTIME, &ts);
		x = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15u ^ (uint64_t)getpid() << 32 ^ ++counter;
		memcpy(bytes, &x, sizeof(bytes));
	}
	for (int i = 0; i < 8; i++)
		out[i] = alphabet[bytes[i] % (sizeof(alphabet) - 1)];
	out[8] = '\0';
}

/* The name the file really gets: an existing path with its symbolic links resolved (the link stays a link to
 * the new file), else path itself. Caller frees. */
static char *final_name(const char *path)
{
	char *real = realpath(path, NULL);

	return real != NULL ? real : strdup(path);
}

/* Creates DIR/.BASE.XXXXXXXX with mode 0666 (less the umask) and returns its descriptor, -1 with errno. */
static int create_beside(const char *final, char **tmp_out)
{
	const char *slash = strrchr(final, '/');
	size_t dirlen = slash != NULL ? (size_t)(slash - final) + 1 : 0;
	const char *base = final + dirlen;
	size_t baselen = strlen(base) > TMP_BASE_MAX ? TMP_BASE_MAX : strlen(base);
	size_t size = dirlen + 1 + baselen + 1 + 8 + 1;
	char *tmp = malloc(size);
	char suffix[9];
	int fd = -1;

	if (tmp == NULL)
		return -1;
	for (int i = 0; i < TMP_TRIES && fd < 0; i++) {
		random_suffix(suffix);
		snprintf(tmp, size, "%.*s.%.*s.%s", (int)dirlen, final, (int)baselen, base, suffix);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int e = errno;
		free(tmp);
		errno = e;
		return -1;
	}
	*tmp_out = tmp;
	return fd;
}

/* A device or a FIFO (/dev/null, /dev/stdout, a named pipe) cannot be replaced: it is written in place. */
static ns_status open_in_place(outfile *o, char *final, ns_error *err)
{
	o->fp = fopen(final, "w");
	if (o->fp == NULL) {
		free(final);
		return ns_error_set(err, NS_ERR_IO, "cannot write: %s", strerror(errno));
	}
	o->path = final;
	o->tmp = NULL;
	return NS_OK;
}

ns_status outfile_open(outfile *o, const char *path, ns_error *err)
{
	char *final = final_name(path), *tmp = NULL;
	struct stat st;
	bool exists;
	int fd;

	if (final == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	exists = stat(final, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		free(final);
		return ns_error_set(err, NS_ERR_IO, "cannot write: %s", strerror(EISDIR));
	}
	if (exists && !S_ISREG(st.st_mode))
		return open_in_place(o, final, err);
	fd = create_beside(final, &tmp);
	if (fd < 0) {
		int e = errno;
		free(final);
		return ns_error_set(err, NS_ERR_IO, "cannot create a file beside it: %s", strerror(e));
	}
	/* The file it replaces keeps its permission bits (a private file stays private). */
	if (exists && fchmod(fd, st.st_mode & 0777) != 0) {
		int e = errno;
		close(fd);
		unlink(tmp);
		free(tmp);
		free(final);
		return ns_error_set(err, NS_ERR_IO, "cannot set the new file's mode: %s", strerror(e));
	}
	o->fp = fdopen(fd, "w");
	if (o->fp == NULL) {
		close(fd);
		unlink(tmp);
		free(tmp);
		free(final);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	o->path = final;
	o->tmp = tmp;
	return NS_OK;
}

static void outfile_release(outfile *o)
{
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	o->fp = NULL;
}

ns_status outfile_commit(outfile *o, ns_error *err)
{
	int e = 0;

	errno = 0;
	if (fflush(o->fp) != 0 || ferror(o->fp))
		e = errno != 0 ? errno : EIO;
	/* On disk before the name points at it: after a crash the name holds the old file or the whole new
	 * one. A file system that cannot sync (EINVAL) has nothing to wait for. */
	if (e == 0 && o->tmp != NULL && fsync(fileno(o->fp)) != 0 && errno != EINVAL)
		e = errno;
	if (fclose(o->fp) != 0 && e == 0)
		e = errno;
	if (e == 0 && o->tmp != NULL && rename(o->tmp, o->path) != 0)
		e = errno;
	if (e != 0 && o->tmp != NULL)
		unlink(o->tmp);
	outfile_release(o);
	if (e != 0)
		return ns_error_set(err, NS_ERR_IO, "write error: %s", strerror(e));
	return NS_OK;
}

void outfile_discard(outfile *o)
{
	fclose(o->fp);
	if (o->tmp != NULL)
		unlink(o->tmp);
	outfile_release(o);
}
