#define _POSIX_C_SOURCE 200809L
#include "cli_common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_options.h"
#include "datadir.h"
#include "nextstep/profile.h"
#include "util/text.h"

void cli_report_error_to(FILE *msgs, const char *where, const ns_error *err)
{
	fputs("nextstep: ", msgs);
	if (where != NULL && where[0] != '\0') {
		ns_fput_text(msgs, where); /* idempotent: a display name already escaped stays as it is */
		if (err->line > 0)
			fprintf(msgs, ":%ld", err->line);
		else if (err->index > 0)
			fprintf(msgs, ": item %ld", err->index);
		else if (err->offset >= 0)
			fprintf(msgs, ": byte %lld", err->offset);
		fputs(": ", msgs);
	}
	fprintf(msgs, "%s\n", err->msg);
}

void cli_report_error(const char *where, const ns_error *err)
{
	cli_report_error_to(stderr, where, err);
}

void cli_name_option(ns_error *err)
{
	static const char *const hint[] = {
	    [NS_PROFILE_PARAM_NORMALIZE] = " (--normalize rescales)",
	    [NS_PROFILE_PARAM_STRICT] = " (--strict)",
	};
	size_t len = strlen(err->msg);

	if (err->param > 0 && (size_t)err->param < sizeof(hint) / sizeof(hint[0]) && hint[err->param] != NULL)
		snprintf(err->msg + len, sizeof(err->msg) - len, "%s", hint[err->param]);
	ns_error_set_param(err, 0); /* named */
}

#define CLI_REPORT_HINTS                                                                                     \
	[NS_REPORT_HINT_DEVICE_GIVEN] = "(--device)", [NS_REPORT_HINT_NAME_DEVICE] = "give --device NAME",   \
	[NS_REPORT_HINT_MORE_ROWS] = "(--top)",                                                              \
	[NS_REPORT_HINT_TF32] = "if they ran as TF32, use --dtype tf32",                                     \
	[NS_REPORT_HINT_WARMUP_ONE] = "--all-steps includes it",                                             \
	[NS_REPORT_HINT_WARMUP_SEVERAL] = "--all-steps includes them",                                       \
	[NS_REPORT_HINT_STEP_MARKER] = "--step-marker annotations",                                          \
	[NS_REPORT_HINT_PYTHON_DETAIL] = "(nextstep trace -v)", [NS_REPORT_HINT_ROOFLINE] = "--roofline"

const char *const cli_report_hints[NS_REPORT_HINT_COUNT] = {
    CLI_REPORT_HINTS,
    [NS_REPORT_HINT_EVERY_RANK] = "give every rank's trace (nextstep trace DIR)",
};

/* --rank N read the job to find rank N: the job's own report is the same command without it. */
const char *const cli_report_hints_one_rank[NS_REPORT_HINT_COUNT] = {
    CLI_REPORT_HINTS,
    [NS_REPORT_HINT_EVERY_RANK] = "give every rank's trace without --rank (nextstep trace DIR)",
};

const char *const cli_follow_ups[NS_FOLLOW_UP_COUNT] = {
    [NS_FOLLOW_UP_ROOFLINE_TIMED] = "nextstep roofline --time",
    [NS_FOLLOW_UP_TRACE_VERBOSE] = "nextstep trace -v",
    [NS_FOLLOW_UP_COMM_SPLIT] = "nextstep trace -v shows exposed vs hidden comm",
    [NS_FOLLOW_UP_PHASES] = "nextstep trace -v, phases",
    [NS_FOLLOW_UP_SCALING] = "nextstep scaling",
    [NS_FOLLOW_UP_JOB] = "nextstep job",
    [NS_FOLLOW_UP_STRAGGLER] = "nextstep job names the straggler and its cause",
};

int cli_status_exit(cli_mode mode, const ns_error *err)
{
	if (err->status == NS_ERR_USAGE)
		return cli_usage_error(mode, "%s", err->msg);
	cli_report_error(NULL, err);
	return EXIT_BAD_INPUT;
}

int cli_option_exit(cli_mode mode, const ns_error *err)
{
	if (err->status == NS_ERR_VALUE)
		return cli_usage_error(mode, "%s", err->msg);
	return cli_status_exit(mode, err);
}

int cli_load_devices(const cli_config *c, ns_device_table *t)
{
	ns_error err;

	if (datadir_load_devices(t) != EXIT_ROUTED)
		return EXIT_BAD_INPUT;
	for (size_t i = 0; i < c->ndevice_files; i++) {
		ns_error_clear(&err);
		if (ns_devices_load_file(t, c->device_files[i], &err) != NS_OK) {
			cli_report_error(c->device_files[i], &err);
			return EXIT_BAD_INPUT;
		}
	}
	return EXIT_ROUTED;
}

/* A stream of profiles, or the JSON report of a million steps, writes hundreds of megabytes: in stdio's
 * default block (st_blksize: 4 KiB for a pipe, a file or /dev/null) that is a write(2) every few results, and
 * the system calls cost more CPU than making what they write (a third of a million-step JSON report's CPU
 * time). A file or /dev/null takes 256 KiB blocks; a pipe 64 KiB, its capacity: a larger block saves few
 * calls more and leaves the reader idle while it fills (docs/performance.md, "stdout in blocks"). Every
 * command flushes stdout whenever its input may wait and before every message, so the block delays nothing
 * a reader waits for and changes no order. A terminal keeps its line buffering. Called before anything is
 * written to stdout (setvbuf must be). */
void cli_buffer_stdout(void)
{
	static char block[256 * 1024];
	struct stat st;
	size_t size = sizeof(block);

	if (isatty(STDOUT_FILENO))
		return;
	if (fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode))
		size = 64 * 1024;
	setvbuf(stdout, block, _IOFBF, size);
}

bool cli_output_ok(void)
{
	static bool reported;

	if (fflush(stdout) == 0 && !ferror(stdout))
		return true;
	if (!reported)
		fprintf(stderr, "nextstep: error writing output: %s\n", strerror(errno != 0 ? errno : EIO));
	reported = true;
	return false;
}

const char *cli_shown(const char *path, char *buf, size_t size)
{
	ns_text_escape(path, strlen(path), buf, size);
	return buf;
}

void cli_print_input_header(FILE *out, const char *name)
{
	fputs("==> ", out);
	ns_fput_text(out, name);
	fputs(" <==\n", out);
}

/* Which of two inputs' statuses the run exits with: a usage error, then bad input, then the quality gate. */
static int exit_rank(int status)
{
	return status == EXIT_QUALITY ? 1 : status == EXIT_ROUTED ? 0 : status + 1;
}

int cli_worse_exit(int a, int b)
{
	return exit_rank(b) > exit_rank(a) ? b : a;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

bool cli_unreadable_input(ns_input *in, ns_error *err)
{
	static const char *const nsys_suffixes[] = {".nsys-rep", ".qdrep"}; /* .qdrep: before 2021.4 */
	char shown[256], base[256];

	for (size_t i = 0; i < sizeof(nsys_suffixes) / sizeof(nsys_suffixes[0]); i++) {
		size_t len;
		if (!has_suffix(in->name, nsys_suffixes[i]))
			continue;
		cli_shown(in->name, shown, sizeof(shown));
		len = strlen(shown) > strlen(nsys_suffixes[i]) ? strlen(shown) - strlen(nsys_suffixes[i]) : 0;
		snprintf(base, sizeof(base), "%.*s", (int)len, shown);
		ns_error_set(
		    err, NS_ERR_VALUE,
		    "an Nsight Systems report, which nextstep reads through its SQLite export: nsys export "
		    "--type sqlite -o %s.sqlite %s, then give %s.sqlite",
		    base, shown, base);
		return true;
	}
	return false;
}

void cli_report_open_error(cli_mode mode, const char *path, const ns_error *err)
{
	char shown[256];
	struct stat st;

	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		cli_report_error(path, err);
		return;
	}
	cli_shown(path, shown, sizeof(shown));
	if (mode == MODE_DIFF)
		fprintf(
		    stderr,
		    "nextstep: %s: is a directory; diff compares two files, one of each run (a trace, a "
		    "saved "
		    "'nextstep trace --format json' report or a profile): nextstep diff %s/FILE OTHER/FILE\n",
		    shown, shown);
	else if (mode == MODE_JOB)
		fprintf(
		    stderr,
		    "nextstep: %s: is a directory; for the job report of the rank traces in it: nextstep "
		    "trace "
		    "%s (or nextstep trace --summary %s > ranks.ndjson, then nextstep job ranks.ndjson)\n",
		    shown, shown, shown);
	else
		fprintf(stderr,
		        "nextstep: %s: is a directory; for the trace files in it: nextstep trace %s\n", shown,
		        shown);
}

char *const *cli_operands(const cli_config *c)
{
	static char *const stdin_operand[] = {"-"};

	return c->noperands > 0 ? c->operands : stdin_operand;
}

size_t cli_noperands(const cli_config *c)
{
	return c->noperands > 0 ? (size_t)c->noperands : 1;
}

int cli_each_input(const cli_config *c, cli_input_fn fn, void *ctx)
{
	char *const *operands = cli_operands(c);
	int n = (int)cli_noperands(c);
	int rc = EXIT_ROUTED;

	for (int i = 0; i < n && cli_output_ok(); i++) {
		ns_input own, *in = &own;
		ns_error err;
		int one;
		ns_error_clear(&err);
		if (c->opened != NULL && c->opened[i] != NULL)
			in = c->opened[i]; /* already opened and sniffed (stdin, a pipe) */
		else if (ns_input_open(&own, operands[i], &err) != NS_OK) {
			cli_report_open_error(c->mode, operands[i], &err);
			rc = EXIT_BAD_INPUT;
			continue;
		}
		one = fn(ctx, in, n > 1);
		ns_input_close(in);
		rc = cli_worse_exit(rc, one);
	}
	return rc;
}
