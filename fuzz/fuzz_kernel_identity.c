/* Feeds arbitrary bytes, as a kernel name from a trace, to what the split and the report do with it: the
 * identity (launchers unwrapped, mangled names read), the built-in table's class and family, and the display
 * span. Each must stay inside the name and its own buffers, whatever the brackets, lengths or bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/kernel_identity.h"
#include "nextstep/trace_kernels.h"
#include "nextstep/trace_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = malloc(size + 1);
	ns_kernel_identity id;
	const char *family;
	char shown[32];
	size_t start, len;

	if (name == NULL)
		return 0;
	memcpy(name, data, size);
	name[size] = '\0';
	ns_kernel_identity_of(name, &id);
	if (strlen(id.qualified) >= NS_KERNEL_IDENTITY_MAX || id.base > strlen(id.qualified))
		abort();
	if (ns_kernel_table_classify(name, &family) >= NS_KCLASS_COUNT)
		abort();
	len = ns_kernel_display_span(name, &start);
	if (start + len > strlen(name))
		abort();
	ns_report_short_name(name, shown, sizeof(shown));
	if (strlen(shown) >= sizeof(shown))
		abort();
	free(name);
	return 0;
}
