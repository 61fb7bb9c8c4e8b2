/* The one getopt_long loop over the option table (cli_tables.c), --help, and the usage errors. */
#define _POSIX_C_SOURCE 200809L
#include "cli_options.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_common.h"
#include "util/text.h"

#define HELP_COLUMN 22

const cli_subcommand *cli_subcommand_of(cli_mode mode)
{
	for (size_t i = 0; i < cli_subcommand_count; i++)
		if (cli_subcommands[i].mode == mode)
			return &cli_subcommands[i];
	return &cli_subcommands[0];
}

static const char *mode_word(cli_mode mode)
{
	return cli_subcommand_of(mode)->name;
}

int cli_usage_error(cli_mode mode, const char *fmt, ...)
{
	const char *word = mode_word(mode);
	va_list ap;

	fputs("nextstep: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'nextstep %s%s--help'.\n", word != NULL ? word : "", word != NULL ? " " : "");
	return EXIT_USAGE;
}

int cli_option_exit_status(cfg_result r)
{
	switch (r) {
	case CFG_TAKEN:
		return -1;
	case CFG_DONE:
		return EXIT_ROUTED;
	case CFG_FAILED:
		return EXIT_BAD_INPUT;
	default: /* CFG_REFUSED; CFG_NOT_MINE never leaves cli_config_set() */
		return EXIT_USAGE;
	}
}

const char *cli_option_flag(int opt, char buf[CLI_FLAG_MAX])
{
	buf[0] = '\0';
	for (size_t i = 0; i < cli_option_count; i++)
		if (cli_option_rows[i].id == opt) {
			snprintf(buf, CLI_FLAG_MAX, "--%s", cli_option_rows[i].name);
			break;
		}
	return buf;
}

static void print_row(FILE *out, const cli_option_row *r)
{
	char flag[64];
	int n;

	if (r->id < OPT_LONG_FIRST)
		n = snprintf(flag, sizeof(flag), "  -%c, --%s%s%s", r->id, r->name, r->arg ? " " : "",
		             r->arg ? r->arg : "");
	else
		n = snprintf(flag, sizeof(flag), "  --%s%s%s", r->name, r->arg ? " " : "",
		             r->arg ? r->arg : "");
	fputs(flag, out);
	if (n > HELP_COLUMN - 2)
		fprintf(out, "\n%*s", HELP_COLUMN, "");
	else
		fprintf(out, "%*s", HELP_COLUMN - n, "");
	for (const char *h = r->help; *h != '\0'; h++) {
		fputc(*h, out);
		if (*h == '\n')
			fprintf(out, "%*s", HELP_COLUMN, "");
	}
	fputc('\n', out);
}

void cli_print_help(FILE *out, cli_mode mode)
{
	const cli_subcommand *s = cli_subcommand_of(mode);
	static const char *const groups[] = {"Profile", "Workload", "Model",          "Scaling",
	                                     "Trace",   "Diff",     "Classification", "Output"};

	fputs(s->usage, out);
	fprintf(out, "\n%s", s->about);
	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		bool heading = false;
		for (size_t i = 0; i < cli_option_count; i++) {
			const cli_option_row *r = &cli_option_rows[i];
			if (strcmp(r->group, groups[g]) != 0 || !(r->modes & MODE_BIT(mode)) ||
			    r->help == NULL)
				continue;
			if (!heading)
				fprintf(out, "\n%s%s:\n", groups[g],
				        mode == MODE_ROUTER && strcmp(groups[g], "Trace") == 0
				            ? " (for FILEs that are traces)"
				            : "");
			heading = true;
			print_row(out, r);
		}
	}
	fprintf(out, "\n%s", s->exit_status);
}

/* The getopt table: each name once, in table order. Caller frees. */
static struct option *getopt_table(void)
{
	struct option *all = calloc(cli_option_count + 1, sizeof(*all));
	size_t n = 0;

	if (all == NULL)
		return NULL;
	for (size_t i = 0; i < cli_option_count; i++) {
		const cli_option_row *r = &cli_option_rows[i];
		bool seen = false;
		for (size_t j = 0; j < n && !seen; j++)
			seen = strcmp(all[j].name, r->name) == 0;
		if (!seen)
			all[n++] = (struct option){r->name, r->has_arg, NULL, r->id};
	}
	return all;
}

static bool applies(int id, cli_mode mode)
{
	for (size_t i = 0; i < cli_option_count; i++)
		if (cli_option_rows[i].id == id && (cli_option_rows[i].modes & MODE_BIT(mode)))
			return true;
	return false;
}

/* "did you mean": the names nearest to word, when they are near enough to be a slip of the fingers (two
 * edits at most, and at most one per three letters of the name), as "'--steps'" or "'A' or 'B'" (each name
 * after prefix) into buf. Returns how many; buf is "" for none. */
static size_t nearest_names(char *buf, size_t size, const char *word, const char *const *names, size_t n,
                            const char *prefix)
{
	size_t best = 3, len = 0, shown = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t d = names[i] != NULL ? ns_edit_distance(word, names[i]) : NS_EDIT_FAR;
		if (d < best && 3 * d <= strlen(names[i]))
			best = d;
	}
	for (size_t i = 0; i < n && best < 3 && len < size; i++) {
		if (names[i] == NULL || ns_edit_distance(word, names[i]) != best ||
		    3 * best > strlen(names[i]))
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s'%s%s'", shown++ == 0 ? "" : " or ", prefix,
		                        names[i]);
	}
	return shown;
}

/* The long options of mode, each once, into names (room for cli_option_count). */
static size_t mode_option_names(cli_mode mode, const char **names)
{
	size_t n = 0;

	for (size_t i = 0; i < cli_option_count; i++) {
		const cli_option_row *r = &cli_option_rows[i];
		bool seen = false;
		if (!(r->modes & MODE_BIT(mode)))
			continue;
		for (size_t j = 0; j < n && !seen; j++)
			seen = strcmp(names[j], r->name) == 0;
		if (!seen)
			names[n++] = r->name;
	}
	return n;
}

/* An unknown long option: a prefix of several (getopt_long takes an unambiguous prefix of any mode's
 * option), or a near miss of one of this mode's. */
static int unknown_long_option(cli_mode mode, const char *word)
{
	const char **names = malloc(cli_option_count * sizeof(*names));
	char name[64], msg[400], near[200];
	size_t n, len = strcspn(word + 2, "="), prefixed = 0;

	if (names == NULL || len >= sizeof(name)) {
		free(names);
		return cli_usage_error(mode, "unknown option '%.100s'", word);
	}
	memcpy(name, word + 2, len);
	name[len] = '\0';
	n = mode_option_names(mode, names);
	snprintf(msg, sizeof(msg), "unknown option '--%s'", name);
	for (size_t i = 0; i < n; i++)
		prefixed += len > 0 && strncmp(names[i], name, len) == 0;
	if (prefixed > 1) {
		size_t used = (size_t)snprintf(msg, sizeof(msg), "option '--%s' is ambiguous (", name), k = 0;
		for (size_t i = 0; i < n && used < sizeof(msg); i++)
			if (strncmp(names[i], name, len) == 0)
				used += (size_t)snprintf(msg + used, sizeof(msg) - used, "%s--%s",
				                         k++ ? ", " : "", names[i]);
		if (used < sizeof(msg))
			snprintf(msg + used, sizeof(msg) - used, ")");
	} else if (prefixed == 1) { /* a prefix of this mode's option, and of another mode's too */
		for (size_t i = 0; i < n; i++)
			if (strncmp(names[i], name, len) == 0)
				snprintf(msg, sizeof(msg), "unknown option '--%s' (did you mean '--%s'?)",
				         name, names[i]);
	} else if (nearest_names(near, sizeof(near), name, names, n, "--") > 0) {
		snprintf(msg, sizeof(msg), "unknown option '--%s' (did you mean %s?)", name, near);
	}
	free(names);
	return cli_usage_error(mode, "%s", msg);
}

/* getopt's own messages would name argv[0]; ours name the option. */
static int option_error(cli_mode mode, int opt, char **argv)
{
	const char *word = optind > 0 ? argv[optind - 1] : "?";

	if (opt == ':')
		return cli_usage_error(mode, "option '%.100s' needs a value", word);
	if (optopt > ' ' && optopt < 127)
		return cli_usage_error(mode, "unknown option '-%c'", optopt);
	if (strncmp(word, "--", 2) == 0)
		return unknown_long_option(mode, word);
	return cli_usage_error(mode, "unknown option '%.100s'", word);
}

static int not_for_mode(cli_mode mode, const struct option *table, int longindex, int opt)
{
	const char *word = mode_word(mode);
	char name[64];

	if (longindex >= 0)
		snprintf(name, sizeof(name), "--%s", table[longindex].name);
	else
		snprintf(name, sizeof(name), "-%c", opt);
	if (mode == MODE_ROUTER && applies(opt, MODE_TRACE))
		return cli_usage_error(
		    mode, "option '%s' does not apply to 'nextstep' (an option of 'nextstep trace')", name);
	return cli_usage_error(mode, "option '%s' does not apply to 'nextstep%s%s'", name, word ? " " : "",
	                       word ? word : "");
}

/* The subcommand named by argv[1], or the router. */
static const cli_subcommand *pick_subcommand(int argc, char **argv)
{
	if (argc > 1)
		for (size_t i = 1; i < cli_subcommand_count; i++)
			if (strcmp(argv[1], cli_subcommands[i].name) == 0)
				return &cli_subcommands[i];
	return &cli_subcommands[0];
}

/* A first word that looks like a subcommand and is no file is a mistyped subcommand, not a missing input. */
static bool looks_like_subcommand(const char *word)
{
	struct stat st;

	if (word[0] < 'a' || word[0] > 'z' ||
	    strspn(word, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(word))
		return false;
	return stat(word, &st) != 0;
}

static int unknown_subcommand(const char *word)
{
	const char *names[MODE_COUNT] = {NULL};
	char near[160];
	size_t n = 0;

	for (size_t i = 1; i < cli_subcommand_count && n < MODE_COUNT; i++)
		names[n++] = cli_subcommands[i].name;
	fprintf(stderr, "nextstep: unknown subcommand '%.100s' (and no such file)", word);
	if (nearest_names(near, sizeof(near), word, names, n, "") > 0)
		fprintf(stderr, ": did you mean %s?", near);
	fputs("\nSubcommands:", stderr);
	for (size_t i = 1; i < cli_subcommand_count; i++)
		fprintf(stderr, " %s", cli_subcommands[i].name);
	fputs("\nTry 'nextstep --help'.\n", stderr);
	return EXIT_USAGE;
}

/* The router form takes the trace options for its inputs that are traces and the profile options for those
 * that are profiles (the rows' groups say which); the first of each given is kept so the router can refuse it
 * when no input is of that kind. */
static void note_router_scope(cli_config *cfg, int id)
{
	for (size_t i = 0; i < cli_option_count && cfg->mode == MODE_ROUTER; i++) {
		const cli_option_row *r = &cli_option_rows[i];
		if (r->id != id || !(r->modes & M_ROUTER))
			continue;
		if (strcmp(r->group, "Trace") == 0 && cfg->traces_only_option == NULL)
			cfg->traces_only_option = r->name;
		else if (strcmp(r->group, "Profile") == 0 && cfg->profiles_only_option == NULL)
			cfg->profiles_only_option = r->name;
		return;
	}
}

static int getopt_loop(int argc, char **argv, cli_config *cfg, const struct option *table)
{
	int opt, longindex, rc = -1;

	opterr = 0;
	while (rc < 0) {
		longindex = -1;
		opt = getopt_long(argc, argv, ":hVvqj:", table, &longindex);
		if (opt == -1)
			break;
		if (opt == '?' || opt == ':')
			rc = option_error(cfg->mode, opt, argv);
		else if (!applies(opt, cfg->mode))
			rc = not_for_mode(cfg->mode, table, longindex, opt);
		else
			rc = cli_option_exit_status(cli_config_set(cfg, opt, optarg));
		if (rc < 0)
			note_router_scope(cfg, opt);
	}
	return rc;
}

int cli_parse(int argc, char **argv, cli_config *cfg)
{
	const cli_subcommand *sub = pick_subcommand(argc, argv);
	struct option *table = getopt_table();
	int skip = sub->name != NULL ? 1 : 0;
	int rc;

	cli_config_init(cfg, sub->mode);
	if (table == NULL) {
		fputs("nextstep: out of memory\n", stderr);
		return EXIT_BAD_INPUT;
	}
	if (sub->name == NULL && argc > 1 && looks_like_subcommand(argv[1])) {
		free(table);
		return unknown_subcommand(argv[1]);
	}
	/* getopt sees the subcommand's words only: argv[skip] plays argv[0]. It runs once per process, so
	 * optind starts at 1 as POSIX sets it. */
	rc = getopt_loop(argc - skip, argv + skip, cfg, table);
	free(table);
	if (rc >= 0)
		return rc;
	cfg->operands = argv + skip + optind;
	cfg->noperands = argc - skip - optind;
	return cli_config_finish(cfg);
}

int cli_run(cli_config *cfg)
{
	return cli_subcommand_of(cfg->mode)->run(cfg);
}
