/* The names the split's rules look for, as data. Runtime-API names are CUDA runtime (cuda*), CUDA driver
 * (cu*) and HIP (hip*) spellings as Kineto records them in the cuda_runtime/cuda_driver categories; sources:
 * the CUDA Runtime and Driver API references (modules "Stream Management", "Memory Management", "Module
 * Management"), the HIP runtime API reference, and PyTorch's c10/cuda and ATen sources for the ops that block
 * the host. */
#include <string.h>

#include "split_private.h"

typedef struct {
	const char *name;
	bool prefix; /* matches any name starting with it; otherwise the name must be exactly this */
} name_rule;

static bool str_is(ns_str s, const char *lit)
{
	size_t n = strlen(lit);
	return s.len == n && memcmp(s.ptr, lit, n) == 0;
}

bool split_str_starts(ns_str s, const char *lit)
{
	size_t n = strlen(lit);
	return s.len >= n && memcmp(s.ptr, lit, n) == 0;
}

static bool str_contains(ns_str s, const char *lit)
{
	size_t n = strlen(lit);
	const char *p, *end;

	if (n == 0 || s.len < n) /* also keeps an absent name (NULL, 0) out of the pointer arithmetic */
		return false;
	p = s.ptr;
	end = s.ptr + s.len;
	while ((size_t)(end - p) >= n && (p = memchr(p, lit[0], (size_t)(end - p) - n + 1)) != NULL) {
		if (memcmp(p, lit, n) == 0)
			return true;
		p++;
	}
	return false;
}

static bool matches(ns_str s, const name_rule *rules)
{
	for (const name_rule *r = rules; r->name != NULL; r++)
		if (r->prefix ? split_str_starts(s, r->name) : str_is(s, r->name))
			return true;
	return false;
}

/* Host ops that launch collectives (c10d::*, record_param_comms, nccl:*, vLLM's and symmetric memory's
 * all-reduce ops, ...): what they launch is communication whatever the kernel is called. The table is the
 * kernel table's (trace_kernels.c), so one list serves the split and the kernel report; gloo:* is in it but
 * runs on the host, and is told apart below. */
/* Besides that table: PyTorch's functional collectives (torch.compile, DTensor) and the host entry points of
 * NVSHMEM and DeepEP. */
static const name_rule more_comm_ops[] = {
    {"c10d_functional::", true},
    {"_c10d_functional::", true},
    {"nvshmem", true},
    {"deep_ep::", true},
    {NULL, false},
};

bool split_is_comm_op(ns_str name)
{
	return name.len > 0 &&
	       (comm_host_op_family(name.ptr, name.len) != NULL || matches(name, more_comm_ops));
}

/* Collectives that run on the host (gloo, the CPU backend of torch.distributed): the host is communicating.
 */
bool split_is_host_collective(ns_str name)
{
	return split_str_starts(name, "gloo:");
}

/* Runtime calls that start GPU work: kernel and graph launches, copies and sets (cudaLaunchKernel,
 * cuLaunchKernel, cudaGraphLaunch, hipExtLaunchKernel, cudaMemcpyAsync, hipMemsetAsync, ...). Only these are
 * kept for the correlation lookup, so event queries and attribute calls cost no memory. */
bool split_is_launch(ns_str name)
{
	return str_contains(name, "Launch") || str_contains(name, "Memcpy") || str_contains(name, "Memset");
}

/* Calls that block the host until the device (a stream, an event, the whole device) has drained. */
static const name_rule sync_calls[] = {
    {"cudaDeviceSynchronize", false}, {"cudaStreamSynchronize", false},
    {"cudaEventSynchronize", false},  {"cuCtxSynchronize", false},
    {"cuStreamSynchronize", false},   {"cuEventSynchronize", false},
    {"hipDeviceSynchronize", false},  {"hipStreamSynchronize", false},
    {"hipEventSynchronize", false},   {NULL, false},
};

bool split_is_sync_call(ns_str name)
{
	return matches(name, sync_calls);
}

/* Copies that return only when done: the synchronous (non-Async) memcpy family. HIP's hipMemcpyWithStream is
 * synchronous too (PyTorch on ROCm uses it for blocking copies). */
static const name_rule blocking_calls[] = {
    {"cudaMemcpy", false},     {"cudaMemcpy2D", false},        {"cudaMemcpy3D", false},
    {"cudaMemcpyPeer", false}, {"cudaMemcpyToSymbol", false},  {"cudaMemcpyFromSymbol", false},
    {"cuMemcpy", false},       {"cuMemcpyDtoH", true},         {"cuMemcpyHtoD", true},
    {"cuMemcpyDtoD", true},    {"cuMemcpyPeer", false},        {"hipMemcpy", false},
    {"hipMemcpyDtoH", false},  {"hipMemcpyHtoD", false},       {"hipMemcpyDtoD", false},
    {"hipMemcpy2D", false},    {"hipMemcpyWithStream", false}, {NULL, false},
};

bool split_is_blocking_call(ns_str name)
{
	return matches(name, blocking_calls) && !str_contains(name, "Async");
}

/* ATen ops that read a device value on the host (.item(), .cpu() of a scalar, printing a CUDA tensor, a
 * Python `if` on a GPU value) or need a device-computed size: they wait for the device to drain. */
static const name_rule blocking_ops[] = {
    {"aten::item", false},
    {"aten::_local_scalar_dense", false},
    {"aten::is_nonzero", false},
    {"aten::nonzero", false},
    {"aten::equal", false},
    {"aten::masked_select", false},
    {NULL, false},
};

bool split_is_blocking_op(ns_str name)
{
	return matches(name, blocking_ops);
}

/* Set-up calls: device memory and pinned host memory allocation and release, module loading, stream and event
 * creation, context creation. cudaDeviceGetStreamPriorityRange is PyTorch's first CUDA call (its stream
 * pool), so the lazy context creation lands in it; cudaGetDeviceProperties is called once per device at
 * start-up. */
static const name_rule init_calls[] = {
    {"cudaMalloc", true},
    {"cudaFree", true},
    {"cudaHostAlloc", false},
    {"cudaHostRegister", false},
    {"cudaHostUnregister", false},
    {"cudaStreamCreate", true},
    {"cudaEventCreate", true},
    {"cudaDeviceGetStreamPriorityRange", false},
    {"cudaGetDeviceProperties", true},
    {"cudaDeviceEnablePeerAccess", false},
    {"cudaIpcOpenMemHandle", false},
    {"cuMemAlloc", true},
    {"cuMemFree", true},
    {"cuMemHostAlloc", false},
    {"cuMemHostRegister", true},
    {"cuMemCreate", false},
    {"cuMemMap", false},
    {"cuMemAddressReserve", false},
    {"cuMemSetAccess", false},
    {"cuModuleLoad", true},
    {"cuLibraryLoad", true},
    {"cuModuleGetFunction", false},
    {"cuStreamCreate", true},
    {"cuEventCreate", false},
    {"cuCtxCreate", true},
    {"cuDevicePrimaryCtxRetain", false},
    {"cuInit", false},
    {"hipMalloc", true},
    {"hipFree", true},
    {"hipHostMalloc", false},
    {"hipHostFree", false},
    {"hipHostRegister", false},
    {"hipExtMallocWithFlags", false},
    {"hipStreamCreate", true},
    {"hipEventCreate", true},
    {"hipModuleLoad", true},
    {"hipDeviceGetStreamPriorityRange", false},
    {"hipGetDeviceProperties", true},
    {NULL, false},
};

/* Stream-ordered allocation (cudaMallocAsync, cudaFreeAsync) is steady-state work, not set-up. */
bool split_is_init_call(ns_str name)
{
	return matches(name, init_calls) && !str_contains(name, "Async");
}
