/* The one getopt_long loop over the option table (cli_tables.c), --help, and the usage errors. */
#define _POSIX_C_SOURCE 200809L
#include "cli_options.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_common.h"

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

/* "  --name ARG" padded to the help column, then the help with continuation lines indented under it. */
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
	static const char *const groups[] = {"Profile", "Workload",       "Scaling", "Trace",
	                                     "Diff",    "Classification", "Output"};

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
				        mode == MODE_ROUTER && g == 3 ? " (for FILEs that are traces)" : "");
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

/* getopt's own messages would name argv[0]; ours name the option. */
static int option_error(cli_mode mode, int opt, char **argv)
{
	const char *word = optind > 0 ? argv[optind - 1] : "?";

	if (opt == ':')
		return cli_usage_error(mode, "option '%.100s' needs a value", word);
	if (optopt > ' ' && optopt < 127)
		return cli_usage_error(mode, "unknown option '-%c'", optopt);
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
	fprintf(stderr, "nextstep: unknown subcommand '%.100s' (and no such file)\nSubcommands:", word);
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
			rc = cli_config_set(cfg, opt, optarg);
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
