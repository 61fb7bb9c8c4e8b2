/* The command-line modes. main() only picks one; each returns an exit status (see ns_exit). */
#ifndef NEXTSTEP_CLI_H
#define NEXTSTEP_CLI_H

#include "nextstep/input.h"

typedef enum {
	EXIT_ROUTED = 0,    /* every profile routed */
	EXIT_BAD_INPUT = 1, /* some record or file was bad (the good ones still got their result) */
	EXIT_USAGE = 2      /* bad command line */
} ns_exit;

/* nextstep [options] [FILE|-] : the router over flags or profile JSON/NDJSON. */
int cli_router_main(int argc, char **argv);
/* nextstep trace [options] FILE. When in is non-NULL the input is already open (main sniffed a trace given
 * to the router form); the FILE operand in argv is then ignored. */
int cli_trace_main(int argc, char **argv, ns_input *in);
/* nextstep roofline ... / nextstep scaling ... / nextstep devices */
int cli_roofline_main(int argc, char **argv);
int cli_scaling_main(int argc, char **argv);
int cli_devices_main(int argc, char **argv);

#endif
