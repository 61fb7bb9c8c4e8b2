/* nextstep: parse the command line once, run the chosen mode, and make sure its output reached the reader. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>

#include "cli.h"
#include "cli_common.h"

int main(int argc, char **argv)
{
	cli_config cfg;
	int rc;

	/* A closed pipe is a write error like any other: reported once, exit 1 (not a silent SIGPIPE). */
	signal(SIGPIPE, SIG_IGN);
	rc = cli_parse(argc, argv, &cfg);
	if (rc < 0)
		rc = cli_run(&cfg);
	cli_config_free(&cfg);
	if (!cli_output_ok() && rc == EXIT_ROUTED)
		rc = EXIT_BAD_INPUT;
	return rc;
}
