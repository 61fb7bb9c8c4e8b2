#include "nextstep/trace_categories.h"

#include <string.h>

/* Most frequent first: the reader looks one up per event. The names are libkineto's ActivityType strings
 * (pytorch/kineto libkineto/src/ActivityType.cpp, libkineto/include/ActivityType.h, where MTIA_CCP_EVENTS is
 * an alias of CONCURRENT_KERNEL and the *_RUNTIME kinds of RUNTIME), the older profiler's capitalised
 * spellings, and the categories of Kineto forks for Cambricon MLU (torch_mlu) and Enflame GCU. */
static const trace_category_row table[] = {
    {"kernel", TCAT_KERNEL, NULL},
    {"cpu_op", TCAT_CPU_OP, NULL},
    {"cuda_runtime", TCAT_RUNTIME, "CUDA"},
    {"ac2g", TCAT_FLOW, NULL},
    {"user_annotation", TCAT_USER_ANNOTATION, NULL},
    {"gpu_user_annotation", TCAT_GPU_USER_ANNOTATION, NULL},
    {"gpu_memcpy", TCAT_MEMCPY, NULL},
    {"gpu_memset", TCAT_MEMSET, NULL},
    {"cuda_driver", TCAT_RUNTIME, "CUDA"},
    {"python_function", TCAT_PYTHON, NULL},
    {"fwdbwd", TCAT_FLOW, NULL},
    /* the accelerator-agnostic host kinds of newer libkineto */
    {"runtime", TCAT_RUNTIME, NULL},
    {"driver", TCAT_RUNTIME, NULL},
    /* other accelerators */
    {"xpu_runtime", TCAT_RUNTIME, "XPU"},
    {"xpu_driver", TCAT_RUNTIME, "XPU"},
    {"mtia_runtime", TCAT_RUNTIME, "MTIA"},
    {"mtia_ccp_events", TCAT_KERNEL, "MTIA"},
    {"privateuse1_runtime", TCAT_RUNTIME, "PrivateUse1"},
    {"privateuse1_driver", TCAT_RUNTIME, "PrivateUse1"},
    {"hpu_op", TCAT_RUNTIME, "HPU"},
    {"mlu_runtime", TCAT_RUNTIME, "MLU"},
    {"mlu_memcpy", TCAT_MEMCPY, "MLU"},
    {"mlu_memset", TCAT_MEMSET, "MLU"},
    {"gcu_runtime", TCAT_RUNTIME, "GCU"},
    {"gcu_driver", TCAT_RUNTIME, "GCU"},
    {"GCU_MEMCPY", TCAT_MEMCPY, "GCU"},
    {"GCU_MEMSET", TCAT_MEMSET, "GCU"},
    /* the older profiler's spellings */
    {"Kernel", TCAT_KERNEL, NULL},
    {"Operator", TCAT_CPU_OP, NULL},
    {"Runtime", TCAT_RUNTIME, NULL},
    {"Memcpy", TCAT_MEMCPY, NULL},
    {"Memset", TCAT_MEMSET, NULL},
    {"async", TCAT_FLOW, NULL}, /* its launch flows (ph s/f) */
};

const trace_category_row *trace_category_table(size_t *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

const trace_category_row *trace_category_find(const char *s, size_t len)
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
