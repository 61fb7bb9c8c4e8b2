#define _POSIX_C_SOURCE 200809L
#include "cli_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const struct option cli_common_options[] = {
    {"explain", no_argument, NULL, 'v'},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"high", required_argument, NULL, OPT_HIGH},
    {"moderate", required_argument, NULL, OPT_MODERATE},
    {"no-color", no_argument, NULL, OPT_NO_COLOR},
    {"playbook", required_argument, NULL, OPT_PLAYBOOK},
    {"priority", required_argument, NULL, OPT_PRIORITY},
    {"quiet", no_argument, NULL, 'q'},
    {"tie", required_argument, NULL, OPT_TIE},
    {"verbose", no_argument, NULL, 'v'},
    {NULL, 0, NULL, 0},
};
const size_t cli_common_option_count = sizeof(cli_common_options) / sizeof(cli_common_options[0]) - 1;

ns_status router_config_init(router_config *cfg, ns_error *err)
{
	memset(cfg, 0, sizeof(*cfg));
	classify_options_default(&cfg->classify);
	cfg->format.kind = FORMAT_TEXT;
	cfg->format.color = isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL;
	return routes_init_default(&cfg->routes, err);
}

void router_config_free(router_config *cfg)
{
	routes_free(&cfg->routes);
}

static ns_status parse_threshold(const char *opt, const char *arg, double *out, ns_error *err)
{
	if (profile_parse_share(arg, out, err) != NS_OK) {
		char why[sizeof(err->msg)];
		snprintf(why, sizeof(why), "%s", err->msg);
		return ns_error_set(err, NS_ERR_USAGE, "--%s: %s", opt, why);
	}
	return NS_OK;
}

static ns_status parse_format(const char *arg, router_config *cfg, ns_error *err)
{
	if (strcmp(arg, "json") == 0)
		cfg->format.kind = FORMAT_JSON;
	else if (strcmp(arg, "text") == 0)
		cfg->format.kind = FORMAT_TEXT;
	else
		return ns_error_set(err, NS_ERR_USAGE, "--format must be text or json, not '%s'", arg);
	return NS_OK;
}

bool cli_common_handle(int opt, const char *arg, router_config *cfg, ns_error *err, ns_status *status)
{
	ns_status st = NS_OK;

	switch (opt) {
	case 'v':
		cfg->format.verbose = true;
		break;
	case 'q':
		cfg->format.kind = FORMAT_QUIET;
		break;
	case OPT_NO_COLOR:
		cfg->format.color = false;
		break;
	case OPT_FORMAT:
		st = parse_format(arg, cfg, err);
		break;
	case OPT_PRIORITY:
		st = classify_parse_priority(arg, cfg->classify.priority, err);
		break;
	case OPT_TIE:
		st = parse_threshold("tie", arg, &cfg->classify.tie, err);
		break;
	case OPT_HIGH:
		st = parse_threshold("high", arg, &cfg->classify.high, err);
		break;
	case OPT_MODERATE:
		st = parse_threshold("moderate", arg, &cfg->classify.moderate, err);
		break;
	case OPT_PLAYBOOK:
		st = routes_load_playbook(&cfg->routes, arg, err);
		if (st != NS_OK) {
			char why[sizeof(err->msg)];
			snprintf(why, sizeof(why), "%s", err->msg);
			if (err->line > 0)
				ns_error_set(err, st, "--playbook %s:%ld: %s", arg, err->line, why);
			else
				ns_error_set(err, st, "--playbook %s: %s", arg, why);
			err->line = -1;
		}
		break;
	default:
		return false;
	}
	*status = st;
	return true;
}

struct option *cli_options_merge(const struct option *own)
{
	size_t n = 0;
	struct option *all;

	while (own[n].name != NULL)
		n++;
	all = calloc(n + cli_common_option_count + 1, sizeof(*all));
	if (all == NULL)
		return NULL;
	memcpy(all, own, n * sizeof(*all));
	memcpy(all + n, cli_common_options, (cli_common_option_count + 1) * sizeof(*all));
	return all;
}

void cli_report_error(const char *where, const ns_error *err)
{
	fputs("nextstep: ", stderr);
	if (where != NULL && where[0] != '\0') {
		fputs(where, stderr);
		if (err->line > 0)
			fprintf(stderr, ":%ld", err->line);
		else if (err->index > 0)
			fprintf(stderr, ": item %ld", err->index);
		else if (err->offset >= 0)
			fprintf(stderr, ": byte %lld", err->offset);
		fputs(": ", stderr);
	}
	fprintf(stderr, "%s\n", err->msg);
}

int cli_usage_error(const char *mode, const char *msg)
{
	fprintf(stderr, "nextstep: %s\nTry 'nextstep %s%s--help'.\n", msg, mode != NULL ? mode : "",
	        mode != NULL ? " " : "");
	return EXIT_USAGE;
}

/* getopt's own messages would name argv[0]; ours name the option. */
int cli_option_error(const char *mode, int opt, char **argv)
{
	char msg[256];
	const char *word = optind > 0 ? argv[optind - 1] : "?";

	if (opt == ':')
		snprintf(msg, sizeof(msg), "option '%.100s' needs a value", word);
	else if (optopt > ' ' && optopt < 127)
		snprintf(msg, sizeof(msg), "unknown option '-%c'", optopt);
	else
		snprintf(msg, sizeof(msg), "unknown option '%.100s'", word);
	return cli_usage_error(mode, msg);
}
