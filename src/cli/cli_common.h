/* Options every routing mode shares (router, trace, roofline): how to classify, which routes, how to print.
 * Each mode appends cli_common_options to its own getopt_long table and passes unknown ids here. */
#ifndef NEXTSTEP_CLI_COMMON_H
#define NEXTSTEP_CLI_COMMON_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "nextstep/classify.h"
#include "nextstep/format.h"
#include "nextstep/routes.h"

/* getopt ids of the shared long options; modes number their own below 1000 or above 1100. */
enum {
	OPT_COMMON_FIRST = 1000,
	OPT_PRIORITY,
	OPT_TIE,
	OPT_HIGH,
	OPT_MODERATE,
	OPT_PLAYBOOK,
	OPT_FORMAT,
	OPT_NO_COLOR,
	OPT_COMMON_LAST
};

/* Shared short options: -v (--explain/--verbose), -q (--quiet). */
#define CLI_COMMON_SHORT "vq"
extern const struct option cli_common_options[];
extern const size_t cli_common_option_count; /* without the terminating zero entry */

typedef struct {
	classify_options classify;
	ns_routes routes; /* owned; router_config_free() */
	format_options format;
} router_config;

/* Defaults, built-in routes, colour only when stdout is a terminal and NO_COLOR is unset. */
ns_status router_config_init(router_config *cfg, ns_error *err);
void router_config_free(router_config *cfg);
/* Handles one shared option. Returns true when opt was one (err set on a bad value), false otherwise. */
bool cli_common_handle(int opt, const char *arg, router_config *cfg, ns_error *err, ns_status *status);
/* Prints "nextstep: WHERE:LINE: msg" (or ": item N:", ": byte N:") to stderr; where may be NULL. */
void cli_report_error(const char *where, const ns_error *err);
/* Prints "nextstep: msg" and a pointer to "nextstep [MODE] --help" to stderr; mode is NULL for the router.
 * Returns EXIT_USAGE. */
int cli_usage_error(const char *mode, const char *msg);
/* The usage error for getopt_long's ':' (missing value) or '?' (unknown option), run with opterr = 0 and an
 * optstring starting with ':', naming argv[optind - 1] or the short option. */
int cli_option_error(const char *mode, int opt, char **argv);
/* Builds a getopt_long table: own entries (zero-terminated) followed by the shared ones. Caller frees. */
struct option *cli_options_merge(const struct option *own);

#endif
