#include "nextstep/trace_kernels.h"

#include <string.h>

#include "nextstep/kernel_rules.h"

static const char *const class_names[KCLASS_COUNT] = {
    [KCLASS_COMPUTE] = "compute",
    [KCLASS_MEMORY] = "memory",
    [KCLASS_COMM] = "comm",
};

const char *kernel_class_name(kernel_class c)
{
	return (unsigned)c < KCLASS_COUNT ? class_names[c] : NULL;
}

bool kernel_class_from_name(const char *name, kernel_class *out)
{
	for (int c = 0; c < KCLASS_COUNT; c++) {
		if (strcmp(name, class_names[c]) == 0) {
			*out = (kernel_class)c;
			return true;
		}
	}
	return false;
}

/* The built-in table. Order matters: the exceptions (memory-class kernels whose names contain a compute word)
 * come before the compute words. Patterns are matched case-insensitively; regexes are POSIX ERE. */
static const kernel_rule_spec default_rules[] = {
    /* Collectives. ROCm's hip* kernels are not communication. */
    {"nccl|rccl|msccl", true, KCLASS_COMM},
    /* Inductor pointwise, reduction and persistent-reduction kernels, whatever ops they fused. */
    {"^triton_(poi|red|per)_", true, KCLASS_MEMORY},
    /* Matrix-vector products and GEMM helpers (split-K reductions, epilogues, offset tables) move data. */
    {"gemv", false, KCLASS_MEMORY},
    {"splitkreduce", false, KCLASS_MEMORY},
    {"reducesplitk", false, KCLASS_MEMORY},
    {"epilogue::impl::", false, KCLASS_MEMORY},
    {"compute[a-z]*offsetskernel", true, KCLASS_MEMORY},
    {"reduce_wgrad", false, KCLASS_MEMORY},
    /* GEMM and convolution, with their library spellings. */
    {"(^|[^b]|[^f]b)gemm", true, KCLASS_COMPUTE}, /* fbgemm_gpu:: names embedding kernels, not GEMMs */
    {"matmul", false, KCLASS_COMPUTE},
    {"conv([^e]|e[^r]|er[^t]|$)", true, KCLASS_COMPUTE},
    {"scudnn", false, KCLASS_COMPUTE},
    {"[hsi][0-9]{3,5}cudnn", true, KCLASS_COMPUTE},
    {"winograd", false, KCLASS_COMPUTE},
    {"xmma", false, KCLASS_COMPUTE},
    {"cutlass", false, KCLASS_COMPUTE},
    {"wgrad", false, KCLASS_COMPUTE},
    {"dgrad", false, KCLASS_COMPUTE},
    {"fprop", false, KCLASS_COMPUTE},
    {"hmma|wmma|imma|gmma", true, KCLASS_COMPUTE},
    {"(^|[^a-z])cijk_", true, KCLASS_COMPUTE},
    {"^nvjet_", true, KCLASS_COMPUTE},
    {"(^|[ :])fft[0-9]d_[rc]2[rc]", true, KCLASS_COMPUTE},
    /* Attention. */
    {"flash", false, KCLASS_COMPUTE},
    {"fmha", false, KCLASS_COMPUTE},
    {"attention", false, KCLASS_COMPUTE},
    {"sdpa", false, KCLASS_COMPUTE},
    /* Inductor/Triton templates are matmul (or convolution) templates. */
    {"^triton_tem_", true, KCLASS_COMPUTE},
};

ns_status kernel_rules_default(kernel_rules **out, ns_error *err)
{
	return kernel_rules_from_specs(default_rules, sizeof(default_rules) / sizeof(default_rules[0]), out,
	                               err);
}
