/* Placeholders for the modes still being built; each file that implements a mode removes its entry. */
#include <stdio.h>

#include "nextstep/cli.h"

int cli_roofline_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "nextstep: roofline is not built yet\n");
	return EXIT_USAGE;
}

int cli_scaling_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "nextstep: scaling is not built yet\n");
	return EXIT_USAGE;
}

int cli_devices_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "nextstep: devices is not built yet\n");
	return EXIT_USAGE;
}
