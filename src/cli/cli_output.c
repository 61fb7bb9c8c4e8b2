/* --html FILE, --svg FILE: the checks before anything is read, and the new file removed when a signal ends
 * the run (cli_output.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli_output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_options.h"
#include "nextstep/input.h"
#include "util/magic.h"
#include "util/outfile.h"

struct cli_output {
	outfile file;
	cli_output_kind kind;
	const char *name; /* as given */
};

/* ---- a signal that ends the run removes the new file ---- */

/* The signals whose default action ends the process and that a user or the system sends to a running
 * command (^C, kill, a closed terminal, ulimit -t and -f). */
static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXCPU, SIGXFSZ};
#define NSIGNALS (sizeof(fatal_signals) / sizeof(fatal_signals[0]))

/* The new file's name while it exists; written with the signals blocked, read by the handler. */
static char pending[PATH_MAX + 64];
static volatile sig_atomic_t pending_set;

static void remove_pending(int sig)
{
	if (pending_set)
		unlink(pending);
	/* SA_RESETHAND restored the default action: the signal ends the process as it would have. */
	raise(sig);
}

static void block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < NSIGNALS; i++)
		sigaddset(&set, fatal_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

/* A signal the run was started with ignored (nohup, a background job) stays ignored. */
static void install_handlers(void)
{
	static bool installed;
	struct sigaction sa, old;

	if (installed)
		return;
	installed = true;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = remove_pending;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSIGNALS; i++)
		if (sigaction(fatal_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(fatal_signals[i], &sa, NULL);
}

/* ---- the checks ---- */

/* path names the same file as the input (by device and inode: a hard link, a symbolic link, a path spelled
 * otherwise, or stdin redirected from it). */
static bool same_file(const struct stat *target, const char *input)
{
	struct stat st;
	int rc = strcmp(input, "-") == 0 ? fstat(STDIN_FILENO, &st) : stat(input, &st);

	return rc == 0 && st.st_dev == target->st_dev && st.st_ino == target->st_ino;
}

/* The input path names, or NULL. */
static const char *input_named(const cli_config *c, const struct stat *target, char *const *inputs, size_t n)
{
	const char *opts[3 + DEVICE_FILES_MAX] = {c->playbook, c->rules_path};
	size_t nopts = 2;

	for (size_t i = 0; i < n; i++)
		if (same_file(target, inputs[i]))
			return inputs[i];
	for (size_t i = 0; i < c->ndevice_files; i++)
		opts[nopts++] = c->device_files[i];
	for (size_t i = 0; i < nopts; i++)
		if (opts[i] != NULL && same_file(target, opts[i]))
			return opts[i];
	return NULL;
}

/* An existing regular file with bytes in it, whose first bytes are not a page or plot of ours. An empty file
 * holds nothing to lose (`out=$(mktemp)` makes one). */
static bool foreign_file(const char *path, const struct stat *st)
{
	char head[NS_GENERATOR_SPAN];
	ssize_t n;
	int fd;

	if (!S_ISREG(st->st_mode) || st->st_size == 0)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return true; /* unreadable: not known to be ours */
	n = read(fd, head, sizeof(head));
	close(fd);
	return n <= 0 || !ns_is_own_output(head, (size_t)n);
}

static bool is_trace(const char *path)
{
	ns_input in;
	ns_error err;
	ns_input_kind kind;

	ns_error_clear(&err);
	if (ns_input_open(&in, path, &err) != NS_OK)
		return false;
	kind = ns_input_sniff(&in);
	ns_input_close(&in);
	return ns_input_is_trace(kind);
}

static int refuse_input(const cli_config *c, const cli_output_kind *k, const char *path, const char *input)
{
	char shown[256], in_shown[256];

	cli_shown(path, shown, sizeof(shown));
	if (strcmp(input, "-") == 0)
		snprintf(in_shown, sizeof(in_shown), "stdin");
	else
		cli_shown(input, in_shown, sizeof(in_shown));
	return cli_usage_error(c->mode,
	                       "%s %s: that file is an input of this run (%s), left as it is; the %s needs a "
	                       "name of its own",
	                       k->option, shown, in_shown, k->thing);
}

/* The natural mistake behind a foreign file: the output's name forgotten, so the option took the input's. */
static int refuse_foreign(const cli_config *c, const cli_output_kind *k, const char *path)
{
	const char *word = cli_subcommand_of(c->mode)->name;
	char shown[256];

	cli_shown(path, shown, sizeof(shown));
	if (c->mode != MODE_ROOFLINE && is_trace(path))
		return cli_usage_error(
		    c->mode,
		    "%s %s: that is a trace, not a %s nextstep wrote: left as it is, nothing "
		    "read\n%s takes the %s's name: nextstep%s%s %s %s.html %s (--force "
		    "replaces the file)",
		    k->option, shown, k->thing, k->option, k->thing, word != NULL ? " " : "",
		    word != NULL ? word : "", k->option, k->thing, shown);
	return cli_usage_error(c->mode,
	                       "%s %s: the file exists and is not a %s nextstep wrote: left as it is "
	                       "(--force replaces it)",
	                       k->option, shown, k->thing);
}

static int check_target(const cli_config *c, const cli_output_kind *k, const char *path, char *const *inputs,
                        size_t n)
{
	struct stat st;
	const char *input;

	if (stat(path, &st) != 0)
		return -1; /* a new file; one that cannot be made is said when it is created */
	if ((input = input_named(c, &st, inputs, n)) != NULL)
		return refuse_input(c, k, path, input);
	if (!c->force && foreign_file(path, &st))
		return refuse_foreign(c, k, path);
	return -1;
}

/* ---- open and close ---- */

int cli_output_open(const cli_config *c, const cli_output_kind *kind, const char *path, char *const *inputs,
                    size_t n, cli_output **out)
{
	cli_output *o;
	sigset_t old;
	ns_error err;
	ns_status st;
	int rc;

	*out = NULL;
	if ((rc = check_target(c, kind, path, inputs, n)) >= 0)
		return rc;
	o = calloc(1, sizeof(*o));
	if (o == NULL) {
		fputs("nextstep: out of memory\n", stderr);
		return EXIT_BAD_INPUT;
	}
	o->kind = *kind;
	o->name = path;
	ns_error_clear(&err);
	install_handlers();
	block_signals(&old);
	st = outfile_open(&o->file, path, &err);
	if (st == NS_OK && o->file.tmp != NULL && strlen(o->file.tmp) < sizeof(pending)) {
		memcpy(pending, o->file.tmp, strlen(o->file.tmp) + 1);
		pending_set = 1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (st != NS_OK) {
		char shown[256];
		fprintf(stderr, "nextstep: %s %s: %s\n", kind->option, cli_shown(path, shown, sizeof(shown)),
		        err.msg);
		free(o);
		return EXIT_BAD_INPUT;
	}
	*out = o;
	return -1;
}

FILE *cli_output_stream(const cli_output *o)
{
	return o->file.fp;
}

bool cli_output_close(cli_output *o, bool keep)
{
	char shown[256];
	sigset_t old;
	ns_error err;
	ns_status st = NS_OK;

	if (o == NULL)
		return true;
	ns_error_clear(&err);
	block_signals(&old);
	if (keep)
		st = outfile_commit(&o->file, &err);
	else
		outfile_discard(&o->file);
	pending_set = 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (st != NS_OK)
		fprintf(stderr, "nextstep: %s %s: %s (nothing written)\n", o->kind.option,
		        cli_shown(o->name, shown, sizeof(shown)), err.msg);
	free(o);
	return st == NS_OK;
}
