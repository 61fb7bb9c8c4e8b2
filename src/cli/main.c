/* nextstep: parse the command line once, run the chosen mode, and make sure its output reached the reader. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "cli_common.h"

/* Started with fd 0, 1 or 2 closed, the first file this run opens would become it: the --html page as fd 1,
 * and the text report written into the page. A closed one gets /dev/null, read-only: reading it is an empty
 * input, writing it fails and is reported as a write error. */
static void hold_std_fds(void)
{
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (fcntl(fd, F_GETFD) == -1 && errno == EBADF && open("/dev/null", O_RDONLY) != fd)
			_exit(EXIT_BAD_INPUT); /* nothing to say it on */
}

int main(int argc, char **argv)
{
	cli_config cfg;
	int rc;

	hold_std_fds();
	/* A closed pipe is a write error like any other: reported once, exit 1 (not a silent SIGPIPE); so is
	 * a file past `ulimit -f` (EFBIG, not a silent SIGXFSZ), and a spill file that cannot grow is one
	 * that cannot be made: its windows stay in memory. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	rc = cli_parse(argc, argv, &cfg);
	if (rc < 0)
		rc = cli_run(&cfg);
	cli_config_free(&cfg);
	if (!cli_output_ok() && rc == EXIT_ROUTED)
		rc = EXIT_BAD_INPUT;
	return rc;
}
