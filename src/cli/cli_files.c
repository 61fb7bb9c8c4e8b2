/* Operands to files: 'nextstep trace DIR' reads every trace file in DIR, in a stable, human order. */
#define _POSIX_C_SOURCE 200809L
#include "cli_files.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_common.h"
#include "nextstep/input.h"
#include "util/vec.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && strcmp(s + n - k, suffix) == 0;
}

bool cli_is_trace_name(const char *name)
{
	return name[0] != '.' &&
	       (ends_with(name, ".json") || ends_with(name, ".json.gz") || ends_with(name, ".sqlite"));
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Compares the digit runs at *a and *b by value (leading zeros ignored) and moves both past them. */
static int number_cmp(const char **a, const char **b)
{
	const char *p = *a, *q = *b;
	size_t np, nq;
	int c;

	while (*p == '0' && is_digit(p[1]))
		p++;
	while (*q == '0' && is_digit(q[1]))
		q++;
	for (np = 0; is_digit(p[np]); np++)
		;
	for (nq = 0; is_digit(q[nq]); nq++)
		;
	*a = p + np;
	*b = q + nq;
	if (np != nq)
		return np < nq ? -1 : 1;
	c = memcmp(p, q, np);
	return c < 0 ? -1 : c > 0;
}

int cli_name_cmp(const char *a, const char *b)
{
	const char *a0 = a, *b0 = b;

	while (*a != '\0' && *b != '\0') {
		if (is_digit(*a) && is_digit(*b)) {
			int c = number_cmp(&a, &b);
			if (c != 0)
				return c;
		} else if (*a != *b) {
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		} else {
			a++;
			b++;
		}
	}
	if (*a != *b)
		return *a == '\0' ? -1 : 1;
	return strcmp(a0, b0); /* equal by value ("r01", "r1"): still one fixed order */
}

static int cmp_paths(const void *x, const void *y)
{
	return cli_name_cmp(*(char *const *)x, *(char *const *)y);
}

/* Appends path (taking it); false, with the message, when memory runs out. */
static bool push(cli_file_list *l, char *path)
{
	char **grown = path != NULL ? ns_grow(l->path, &l->cap, l->n + 1, sizeof(*grown)) : NULL;

	if (grown == NULL) {
		free(path);
		fputs("nextstep: out of memory\n", stderr);
		return false;
	}
	l->path = grown;
	l->path[l->n++] = path;
	return true;
}

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	bool slash = n > 0 && dir[n - 1] == '/';
	char *p = malloc(n + strlen(name) + 2);

	if (p != NULL)
		sprintf(p, "%s%s%s", dir, slash ? "" : "/", name);
	return p;
}

/* What to do with an entry of a directory. */
typedef enum { ENTRY_READ, ENTRY_SKIP, ENTRY_BAD } entry_use;

/* Whether DIR/name is a trace file to read; names the ones left out when verbose. An entry named like a trace
 * that cannot be read as one (stat fails: a dangling link, a loop, no permission; or not a regular file: a
 * FIFO would block the run for good) is an error, always said: it may be a rank, and a job of the others
 * would be reported as if whole. */
static entry_use wanted(const char *path, const char *name, bool verbose)
{
	struct stat st;
	const char *why = NULL;
	char shown[NS_INPUT_DISPLAY_MAX];
	int saved;

	if (stat(path, &st) != 0) {
		saved = errno;
		if (cli_is_trace_name(name)) {
			fprintf(stderr, "nextstep: %s: %s\n", cli_shown(path, shown, sizeof(shown)),
			        strerror(saved));
			return ENTRY_BAD;
		}
		why = "cannot be read";
	} else if (S_ISDIR(st.st_mode)) {
		why = "a directory (directories are not read recursively)";
	} else if (!cli_is_trace_name(name)) {
		why = "not named like a trace (*.json, *.json.gz, *.sqlite)";
	} else if (!S_ISREG(st.st_mode)) {
		fprintf(
		    stderr,
		    "nextstep: %s: not a regular file (a FIFO, socket or device in a directory is not read; "
		    "name it on its own to read it)\n",
		    cli_shown(path, shown, sizeof(shown)));
		return ENTRY_BAD;
	}
	if (why != NULL && verbose)
		fprintf(stderr, "nextstep: %s: skipped: %s\n", cli_shown(path, shown, sizeof(shown)), why);
	return why == NULL ? ENTRY_READ : ENTRY_SKIP;
}

/* Every entry of dir but . and .., as paths, sorted (so what -v says is in a fixed order too). */
static int list_dir(const char *dir, cli_file_list *all)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int rc = EXIT_ROUTED;
	char shown[NS_INPUT_DISPLAY_MAX];

	if (d == NULL) {
		fprintf(stderr, "nextstep: %s: %s\n", cli_shown(dir, shown, sizeof(shown)), strerror(errno));
		return EXIT_BAD_INPUT;
	}
	while (rc == EXIT_ROUTED && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (all->n == CLI_DIR_FILES_MAX) {
			fprintf(stderr, "nextstep: %s: more than %d entries\n",
			        cli_shown(dir, shown, sizeof(shown)), CLI_DIR_FILES_MAX);
			rc = EXIT_BAD_INPUT;
		} else if (!push(all, join(dir, e->d_name))) {
			rc = EXIT_BAD_INPUT;
		}
	}
	closedir(d);
	if (rc == EXIT_ROUTED && all->n > 1)
		qsort(all->path, all->n, sizeof(*all->path), cmp_paths);
	return rc;
}

/* The sorted trace files of one directory appended to out. */
static int expand_dir(const char *dir, bool verbose, cli_file_list *out)
{
	cli_file_list all = {NULL, 0, 0};
	size_t found = 0;
	int rc = list_dir(dir, &all);
	bool bad = false;
	char shown[NS_INPUT_DISPLAY_MAX];

	for (size_t i = 0; i < all.n; i++) {
		char *path = all.path[i];
		entry_use use =
		    rc == EXIT_ROUTED ? wanted(path, strrchr(path, '/') + 1, verbose) : ENTRY_SKIP;
		all.path[i] = NULL;
		if (use == ENTRY_BAD)
			bad = true;
		if (use != ENTRY_READ)
			free(path);
		else if (push(out, path))
			found++;
		else
			rc = EXIT_BAD_INPUT;
	}
	cli_file_list_free(&all);
	if (found == 0 && rc == EXIT_ROUTED && !bad) {
		fprintf(stderr,
		        "nextstep: %s: no trace files in this directory (*.json, *.json.gz, *.sqlite)\n",
		        cli_shown(dir, shown, sizeof(shown)));
		rc = EXIT_BAD_INPUT;
	}
	return bad ? EXIT_BAD_INPUT : rc;
}

int cli_files_expand(char *const *operands, size_t n, bool verbose, cli_file_list *out)
{
	int rc = EXIT_ROUTED;

	for (size_t i = 0; i < n; i++) {
		struct stat st;
		int one = EXIT_ROUTED;
		if (strcmp(operands[i], "-") != 0 && stat(operands[i], &st) == 0 && S_ISDIR(st.st_mode))
			one = expand_dir(operands[i], verbose, out);
		else if (!push(out, strdup(operands[i])))
			one = EXIT_BAD_INPUT;
		if (one != EXIT_ROUTED)
			rc = one;
	}
	return rc;
}

void cli_file_list_free(cli_file_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->path[i]);
	free(l->path);
	l->path = NULL;
	l->n = l->cap = 0;
}
