/* Feeds arbitrary bytes to the --kernel-rules parser: a rules file either parses into rules that classify any
 * name without a fault, or is an error that leaves nothing allocated. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "nextstep/kernel_rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const probe_names[] = {"void foo<int>(bar)",
                                          "",
                                          "x)",
                                          "(((",
                                          "ampere_sgemm_128x64_nn",
                                          "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kernel_rules *r = NULL;
	ns_error err;

	ns_error_clear(&err);
	if (kernel_rules_parse((const char *)data, size, &r, &err) == NS_OK) {
		for (size_t i = 0; i < sizeof(probe_names) / sizeof(probe_names[0]); i++)
			(void)kernel_rules_classify(r, probe_names[i]);
		kernel_rules_free(r);
	} else if (r != NULL) {
		abort();
	}
	return 0;
}
