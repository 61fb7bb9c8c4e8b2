#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct {
	const char *name;
	int (*run)(int argc, char **argv);
} subcommand;

static int trace_mode(int argc, char **argv)
{
	return cli_trace_main(argc, argv, NULL);
}

static const subcommand subcommands[] = {
    {"devices", cli_devices_main},
    {"roofline", cli_roofline_main},
    {"scaling", cli_scaling_main},
    {"trace", trace_mode},
};

/* A write error (a full disk, a closed pipe) must not pass as success. */
static int check_stdout(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "nextstep: error writing output: %s\n", strerror(errno));
		return rc == EXIT_ROUTED ? EXIT_BAD_INPUT : rc;
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
			if (strcmp(argv[1], subcommands[i].name) == 0)
				return check_stdout(subcommands[i].run(argc - 1, argv + 1));
	return check_stdout(cli_router_main(argc, argv));
}
