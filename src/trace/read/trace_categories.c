#include "nextstep/trace_categories.h"

#include <string.h>

/* Most frequent first: the reader looks one up per event. The names are libkineto's ActivityType strings
 * (pytorch/kineto libkineto/src/ActivityType.cpp, libkineto/include/ActivityType.h, where MTIA_CCP_EVENTS is
 * an alias of CONCURRENT_KERNEL and the *_RUNTIME kinds of RUNTIME), the older profiler's capitalised
 * spellings, and the categories of Kineto forks for Cambricon MLU (torch_mlu) and Enflame GCU. */
static const ns_trace_category_row table[] = {
    {"kernel", NS_TCAT_KERNEL, NULL},
    {"cpu_op", NS_TCAT_CPU_OP, NULL},
    {"cuda_runtime", NS_TCAT_RUNTIME, "CUDA"},
    {"ac2g", NS_TCAT_FLOW, NULL},
    {"user_annotation", NS_TCAT_USER_ANNOTATION, NULL},
    {"gpu_user_annotation", NS_TCAT_GPU_USER_ANNOTATION, NULL},
    {"gpu_memcpy", NS_TCAT_MEMCPY, NULL},
    {"gpu_memset", NS_TCAT_MEMSET, NULL},
    {"cuda_driver", NS_TCAT_RUNTIME, "CUDA"},
    {"python_function", NS_TCAT_PYTHON, NULL},
    {"fwdbwd", NS_TCAT_FLOW, NULL},
    /* the accelerator-agnostic host kinds of newer libkineto */
    {"runtime", NS_TCAT_RUNTIME, NULL},
    {"driver", NS_TCAT_RUNTIME, NULL},
    /* other accelerators */
    {"xpu_runtime", NS_TCAT_RUNTIME, "XPU"},
    {"xpu_driver", NS_TCAT_RUNTIME, "XPU"},
    {"mtia_runtime", NS_TCAT_RUNTIME, "MTIA"},
    {"mtia_ccp_events", NS_TCAT_KERNEL, "MTIA"},
    {"privateuse1_runtime", NS_TCAT_RUNTIME, "PrivateUse1"},
    {"privateuse1_driver", NS_TCAT_RUNTIME, "PrivateUse1"},
    {"hpu_op", NS_TCAT_RUNTIME, "HPU"},
    {"mlu_runtime", NS_TCAT_RUNTIME, "MLU"},
    {"mlu_memcpy", NS_TCAT_MEMCPY, "MLU"},
    {"mlu_memset", NS_TCAT_MEMSET, "MLU"},
    {"gcu_runtime", NS_TCAT_RUNTIME, "GCU"},
    {"gcu_driver", NS_TCAT_RUNTIME, "GCU"},
    {"GCU_MEMCPY", NS_TCAT_MEMCPY, "GCU"},
    {"GCU_MEMSET", NS_TCAT_MEMSET, "GCU"},
    /* the older profiler's spellings */
    {"Kernel", NS_TCAT_KERNEL, NULL},
    {"Operator", NS_TCAT_CPU_OP, NULL},
    {"Runtime", NS_TCAT_RUNTIME, NULL},
    {"Memcpy", NS_TCAT_MEMCPY, NULL},
    {"Memset", NS_TCAT_MEMSET, NULL},
    {"async", NS_TCAT_FLOW, NULL}, /* its launch flows (ph s/f) */
};

const ns_trace_category_row *ns_trace_category_table(size_t *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

const ns_trace_category_row *ns_trace_category_find(const char *s, size_t len)
{
	/* Categories are a few bytes long: an inline byte loop beats a call to memcmp for each row. */
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const char *name = table[i].name;
		size_t j = 0;
		while (j < len && name[j] == s[j])
			j++;
		if (j == len && name[j] == '\0')
			return &table[i];
	}
	return NULL;
}
