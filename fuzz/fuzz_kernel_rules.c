/* Feeds arbitrary bytes to the --kernel-rules loader the CLI runs (ns_kernel_rules_load on a file): a rules
 * file either loads into rules that classify any name, hostile ones included, within their cost limits and
 * without a fault, or is an error that leaves nothing allocated. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nextstep/kernel_rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const probe_names[] = {"void foo<int>(bar)",
                                          "",
                                          "x)",
                                          "(((",
                                          "ampere_sgemm_128x64_nn",
                                          "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)"};

/* Names that make backtracking regexes work hard: long runs with the literal they end in out of reach. */
static char long_names[3][NS_KERNEL_CLASSIFY_MAX + 64];

static void make_long_names(void)
{
	static const char fill[3] = {'a', 'x', '_'};

	for (int i = 0; i < 3; i++) {
		memset(long_names[i], fill[i], sizeof(long_names[i]) - 1);
		memcpy(long_names[i] + 1000, "-bcxyz", 6);
		long_names[i][sizeof(long_names[i]) - 1] = '\0';
	}
}

static void classify_probes(const ns_kernel_rules *r)
{
	for (size_t i = 0; i < sizeof(probe_names) / sizeof(probe_names[0]); i++)
		(void)ns_kernel_rules_classify(r, probe_names[i]);
	for (size_t i = 0; i < 3; i++)
		(void)ns_kernel_rules_classify(r, long_names[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ns_kernel_rules *r = NULL;
	ns_error err;
	char path[64];
	int fd = memfd_create("rules", 0);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (long_names[0][0] == '\0')
		make_long_names();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ns_error_clear(&err);
	if (ns_kernel_rules_load(path, &r, &err) == NS_OK) {
		classify_probes(r);
		ns_kernel_rules_free(r);
	} else if (r != NULL) {
		abort();
	}
	close(fd);
	return 0;
}
