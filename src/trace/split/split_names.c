/* The names the split's rules look for, as data. Runtime-API names are CUDA runtime (cuda*), CUDA driver
 * (cu*) and HIP (hip*) spellings as Kineto records them in the cuda_runtime/cuda_driver categories; sources:
 * the CUDA Runtime and Driver API references (modules "Stream Management", "Memory Management", "Module
 * Management"), the HIP runtime API reference, and PyTorch's c10/cuda and ATen sources for the ops that block
 * the host. */
#include <string.h>
#include <strings.h>

#include "trace/split/split_private.h"

typedef struct {
	const char *name;
	size_t len;  /* strlen(name), computed at compile time: these tables are read for every host event */
	bool prefix; /* matches any name starting with it; otherwise the name must be exactly this */
} name_rule;

#define EXACT(s)                                                                                             \
	{                                                                                                    \
		s, sizeof(s) - 1, false                                                                      \
	}
#define PREFIX(s)                                                                                            \
	{                                                                                                    \
		s, sizeof(s) - 1, true                                                                       \
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
		if ((r->prefix ? s.len >= r->len : s.len == r->len) && memcmp(s.ptr, r->name, r->len) == 0)
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
    PREFIX("c10d_functional::"),
    PREFIX("_c10d_functional::"),
    PREFIX("nvshmem"),
    PREFIX("deep_ep::"),
    {NULL, 0, false},
};

bool split_is_comm_op(ns_str name)
{
	return name.len > 0 &&
	       (ns_comm_host_op_family(name.ptr, name.len) != NULL || matches(name, more_comm_ops));
}

/* MPI's communication calls, as Nsight Systems' MPI trace names their NVTX ranges (the "MPI" domain; the MPI
 * standard's names): point-to-point, completion waits and collectives, blocking or not. MPI_Init and
 * MPI_Finalize are not in it: they are set-up. */
static const name_rule mpi_comm[] = {
    PREFIX("MPI_Send"),       PREFIX("MPI_Recv"),      PREFIX("MPI_Isend"),      PREFIX("MPI_Irecv"),
    PREFIX("MPI_Ssend"),      PREFIX("MPI_Bsend"),     PREFIX("MPI_Rsend"),      PREFIX("MPI_Wait"),
    PREFIX("MPI_Test"),       PREFIX("MPI_Probe"),     PREFIX("MPI_Iprobe"),     PREFIX("MPI_Barrier"),
    PREFIX("MPI_Ibarrier"),   PREFIX("MPI_Bcast"),     PREFIX("MPI_Ibcast"),     PREFIX("MPI_Reduce"),
    PREFIX("MPI_Ireduce"),    PREFIX("MPI_Allreduce"), PREFIX("MPI_Iallreduce"), PREFIX("MPI_Allgather"),
    PREFIX("MPI_Iallgather"), PREFIX("MPI_Gather"),    PREFIX("MPI_Igather"),    PREFIX("MPI_Scatter"),
    PREFIX("MPI_Iscatter"),   PREFIX("MPI_Alltoall"),  PREFIX("MPI_Ialltoall"),  PREFIX("MPI_Scan"),
    PREFIX("MPI_Exscan"),     PREFIX("MPI_Sendrecv"),  {NULL, 0, false},
};

/* Collectives that run on the host (gloo, the CPU backend of torch.distributed, and MPI calls): the host is
 * communicating. */
bool split_is_host_collective(ns_str name)
{
	if (name.len < 5) /* read for every host event: the first byte decides for almost all */
		return false;
	if (name.ptr[0] == 'g')
		return memcmp(name.ptr, "gloo:", 5) == 0;
	return name.ptr[0] == 'M' && memcmp(name.ptr, "MPI_", 4) == 0 && matches(name, mpi_comm);
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
    EXACT("cudaDeviceSynchronize"),
    EXACT("cudaStreamSynchronize"),
    EXACT("cudaEventSynchronize"),
    EXACT("cuCtxSynchronize"),
    EXACT("cuStreamSynchronize"),
    EXACT("cuEventSynchronize"),
    EXACT("hipDeviceSynchronize"),
    EXACT("hipStreamSynchronize"),
    EXACT("hipEventSynchronize"),
    /* Intel XPU through Kineto's XPUPTI: SYCL's queue.wait() and event.wait() are the Unified Runtime's
     * urQueueFinish and urEventWait; Level Zero's host synchronizations */
    EXACT("urQueueFinish"),
    EXACT("urEventWait"),
    PREFIX("zeCommandQueueSynchronize"),
    PREFIX("zeEventHostSynchronize"),
    PREFIX("zeFenceHostSynchronize"),
    {NULL, 0, false},
};

bool split_is_sync_call(ns_str name)
{
	return matches(name, sync_calls);
}

/* Copies that return only when done: the synchronous (non-Async) memcpy family. HIP's hipMemcpyWithStream is
 * synchronous too (PyTorch on ROCm uses it for blocking copies). */
static const name_rule blocking_calls[] = {
    EXACT("cudaMemcpy"),     EXACT("cudaMemcpy2D"),        EXACT("cudaMemcpy3D"),
    EXACT("cudaMemcpyPeer"), EXACT("cudaMemcpyToSymbol"),  EXACT("cudaMemcpyFromSymbol"),
    EXACT("cuMemcpy"),       PREFIX("cuMemcpyDtoH"),       PREFIX("cuMemcpyHtoD"),
    PREFIX("cuMemcpyDtoD"),  EXACT("cuMemcpyPeer"),        EXACT("hipMemcpy"),
    EXACT("hipMemcpyDtoH"),  EXACT("hipMemcpyHtoD"),       EXACT("hipMemcpyDtoD"),
    EXACT("hipMemcpy2D"),    EXACT("hipMemcpyWithStream"), {NULL, 0, false},
};

bool split_is_blocking_call(ns_str name)
{
	return matches(name, blocking_calls) && !str_contains(name, "Async");
}

/* ATen ops that read a device value on the host (.item(), .cpu() of a scalar, printing a CUDA tensor, a
 * Python `if` on a GPU value) or need a device-computed size: they wait for the device to drain. */
static const name_rule blocking_ops[] = {
    EXACT("aten::item"),       EXACT("aten::_local_scalar_dense"),
    EXACT("aten::is_nonzero"), EXACT("aten::nonzero"),
    EXACT("aten::equal"),      EXACT("aten::masked_select"),
    {NULL, 0, false},
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
    PREFIX("cudaMalloc"),
    PREFIX("cudaFree"),
    EXACT("cudaHostAlloc"),
    EXACT("cudaHostRegister"),
    EXACT("cudaHostUnregister"),
    PREFIX("cudaStreamCreate"),
    PREFIX("cudaEventCreate"),
    EXACT("cudaDeviceGetStreamPriorityRange"),
    PREFIX("cudaGetDeviceProperties"),
    EXACT("cudaDeviceEnablePeerAccess"),
    EXACT("cudaIpcOpenMemHandle"),
    PREFIX("cuMemAlloc"),
    PREFIX("cuMemFree"),
    EXACT("cuMemHostAlloc"),
    PREFIX("cuMemHostRegister"),
    EXACT("cuMemCreate"),
    EXACT("cuMemMap"),
    EXACT("cuMemAddressReserve"),
    EXACT("cuMemSetAccess"),
    PREFIX("cuModuleLoad"),
    PREFIX("cuLibraryLoad"),
    EXACT("cuModuleGetFunction"),
    PREFIX("cuStreamCreate"),
    EXACT("cuEventCreate"),
    PREFIX("cuCtxCreate"),
    EXACT("cuDevicePrimaryCtxRetain"),
    EXACT("cuInit"),
    PREFIX("hipMalloc"),
    PREFIX("hipFree"),
    EXACT("hipHostMalloc"),
    EXACT("hipHostFree"),
    EXACT("hipHostRegister"),
    EXACT("hipExtMallocWithFlags"),
    PREFIX("hipStreamCreate"),
    PREFIX("hipEventCreate"),
    PREFIX("hipModuleLoad"),
    EXACT("hipDeviceGetStreamPriorityRange"),
    PREFIX("hipGetDeviceProperties"),
    /* turning a captured graph into one that can be launched, and its first upload: set-up, once per graph */
    PREFIX("cudaGraphInstantiate"),
    PREFIX("cuGraphInstantiate"),
    PREFIX("hipGraphInstantiate"),
    EXACT("cudaGraphUpload"),
    EXACT("cuGraphUpload"),
    EXACT("hipGraphUpload"),
    EXACT("hipInit"),
    /* Intel XPU (Unified Runtime): device and host allocations, program build (the JIT of a kernel
     * module), context and queue creation */
    PREFIX("urUSMDeviceAlloc"),
    PREFIX("urUSMHostAlloc"),
    PREFIX("urUSMSharedAlloc"),
    EXACT("urUSMFree"),
    PREFIX("urProgramBuild"),
    PREFIX("urProgramCreate"),
    EXACT("urContextCreate"),
    EXACT("urQueueCreate"),
    {NULL, 0, false},
};

/* Stream-ordered allocation (cudaMallocAsync, cudaFreeAsync) is steady-state work, not set-up. */
bool split_is_init_call(ns_str name)
{
	return matches(name, init_calls) && !str_contains(name, "Async");
}

/* The device-memory allocator's calls: PyTorch's caching allocator calls cudaMalloc only when its cache has
 * no block that fits (and cudaFree, which waits for the device, when it releases its cache to retry a failed
 * cudaMalloc or on empty_cache()); expandable segments map memory with cuMemCreate/cuMemMap. Real traces
 * show them nested in the op that allocated (aten::empty_strided, aten::empty: HTA's AlexNet capture has
 * cudaMalloc calls of 1.2-8.8 ms inside them). In a step they are the allocator, not host jitter. */
static const name_rule alloc_calls[] = {
    PREFIX("cudaMalloc"), PREFIX("cudaFree"), PREFIX("cuMemAlloc"), PREFIX("cuMemFree"),
    EXACT("cuMemCreate"), EXACT("cuMemMap"),  EXACT("cuMemUnmap"),  EXACT("cuMemRelease"),
    PREFIX("hipMalloc"),  PREFIX("hipFree"),  {NULL, 0, false},
};

bool split_is_alloc_call(ns_str name)
{
	return matches(name, alloc_calls) && !str_contains(name, "Async") && !str_contains(name, "Host");
}

/* Runtime calls that take microseconds and never wait for the device: an event record, a stream waiting on an
 * event (the device waits, not the host), the current device, the last error, capture state. A millisecond in
 * one is the host taken from the process (docs/job.md, host jitter), like a stalled kernel launch. */
static const name_rule trivial_calls[] = {
    PREFIX("cudaEventRecord"),
    EXACT("cudaStreamWaitEvent"),
    EXACT("cudaGetDevice"),
    EXACT("cudaSetDevice"),
    EXACT("cudaGetLastError"),
    EXACT("cudaPeekAtLastError"),
    EXACT("cudaStreamIsCapturing"),
    PREFIX("cudaStreamGetCaptureInfo"),
    EXACT("cudaEventQuery"),
    EXACT("cudaPointerGetAttributes"),
    EXACT("cuEventRecord"),
    EXACT("cuStreamWaitEvent"),
    EXACT("cuCtxGetCurrent"),
    EXACT("cuCtxSetCurrent"),
    PREFIX("hipEventRecord"),
    EXACT("hipStreamWaitEvent"),
    EXACT("hipGetDevice"),
    EXACT("hipSetDevice"),
    EXACT("hipGetLastError"),
    EXACT("hipPeekAtLastError"),
    {NULL, 0, false},
};

bool split_is_trivial_call(ns_str name)
{
	return matches(name, trivial_calls);
}

/* ATen ops that only make a tensor's metadata or take a block from the allocator's cache: microseconds unless
 * the allocator calls the runtime (a nested cudaMalloc) or the host stalls. */
static const name_rule trivial_ops[] = {
    EXACT("aten::empty"),
    EXACT("aten::empty_strided"),
    EXACT("aten::empty_like"),
    EXACT("aten::view"),
    EXACT("aten::as_strided"),
    EXACT("aten::detach"),
    EXACT("aten::detach_"),
    EXACT("aten::t"),
    EXACT("aten::transpose"),
    EXACT("aten::permute"),
    EXACT("aten::expand"),
    EXACT("aten::reshape"),
    EXACT("aten::_reshape_alias"),
    EXACT("aten::unsqueeze"),
    EXACT("aten::squeeze"),
    EXACT("aten::slice"),
    EXACT("aten::select"),
    EXACT("aten::alias"),
    EXACT("aten::resize_"),
    EXACT("aten::record_stream"),
    {NULL, 0, false},
};

bool split_is_trivial_op(ns_str name)
{
	return matches(name, trivial_ops);
}

/* A process group's description, word by word ("mesh_tp", "TENSOR_MODEL_PARALLEL_GROUP", "mesh_dp_shard"):
 * DeviceMesh names its groups "mesh_<dim name>" (torchtitan's dims: dp_replicate, dp_shard, cp, tp, pp, ep),
 * Megatron-LM "<KIND>_PARALLEL_GROUP". A description with words of two kinds (Megatron's
 * TENSOR_AND_DATA_PARALLEL_GROUP, a flattened "mesh_dp_tp") or none ("default_pg", "mesh_dim_0") says
 * nothing. */
static const struct {
	const char *word;
	uint8_t role;
} group_words[] = {
    {"tp", NS_COLL_ROLE_TP},         {"tensor", NS_COLL_ROLE_TP},      {"dp", NS_COLL_ROLE_DP},
    {"data", NS_COLL_ROLE_DP},       {"replicate", NS_COLL_ROLE_DP},   {"shard", NS_COLL_ROLE_DP},
    {"fsdp", NS_COLL_ROLE_DP},       {"hsdp", NS_COLL_ROLE_DP},        {"ddp", NS_COLL_ROLE_DP},
    {"pp", NS_COLL_ROLE_OTHER},      {"pipeline", NS_COLL_ROLE_OTHER}, {"cp", NS_COLL_ROLE_OTHER},
    {"context", NS_COLL_ROLE_OTHER}, {"ep", NS_COLL_ROLE_OTHER},       {"expert", NS_COLL_ROLE_OTHER},
};

static uint8_t word_role(const char *w, size_t n)
{
	for (size_t i = 0; i < sizeof(group_words) / sizeof(group_words[0]); i++)
		if (strlen(group_words[i].word) == n && strncasecmp(w, group_words[i].word, n) == 0)
			return group_words[i].role;
	return NS_COLL_ROLE_UNKNOWN;
}

uint8_t split_group_role(ns_str desc)
{
	unsigned seen = 0; /* bit per role */
	size_t i = 0;

	while (i < desc.len) {
		size_t j = i;
		while (j < desc.len && ((desc.ptr[j] >= 'a' && desc.ptr[j] <= 'z') ||
		                        (desc.ptr[j] >= 'A' && desc.ptr[j] <= 'Z') ||
		                        (desc.ptr[j] >= '0' && desc.ptr[j] <= '9')))
			j++;
		if (j > i)
			seen |= 1u << word_role(desc.ptr + i, j - i);
		i = j + 1;
	}
	seen &= ~(1u << NS_COLL_ROLE_UNKNOWN);
	/* an expert group with tensor in its name (EXPERT_TENSOR_PARALLEL_GROUP) is tensor parallelism */
	if (seen == ((1u << NS_COLL_ROLE_TP) | (1u << NS_COLL_ROLE_OTHER)))
		return NS_COLL_ROLE_TP;
	for (int r = NS_COLL_ROLE_TP; r < NS_COLL_ROLE_COUNT; r++)
		if (seen == 1u << r)
			return (uint8_t)r;
	return NS_COLL_ROLE_UNKNOWN;
}

/* Code compiled by torch.compile: Dynamo wraps each compiled frame in a "Torch-Compiled Region: N/M"
 * record_function (torch/_dynamo/eval_frame.py), and AOTAutograd runs the compiled forward and backward as
 * the autograd Function "CompiledFunction" ("CompiledFunctionBackward"). */
static const name_rule compiled_markers[] = {
    PREFIX("Torch-Compiled Region"),
    PREFIX("CompiledFunction"),
    {NULL, 0, false},
};

bool split_is_compiled_marker(ns_str name)
{
	return matches(name, compiled_markers);
}

/* Stream capture (CUDA graphs: torch.cuda.graph, vLLM's and SGLang's start-up, mode="reduce-overhead"): work
 * launched on a capturing stream is recorded into a graph and runs only when the graph is replayed, so those
 * launches leave no GPU record by design. The runtime calls that open and close a capture. */
static const name_rule capture_begins[] = {
    PREFIX("cudaStreamBeginCapture"),
    PREFIX("cuStreamBeginCapture"),
    PREFIX("hipStreamBeginCapture"),
    {NULL, 0, false},
};
static const name_rule capture_ends[] = {
    PREFIX("cudaStreamEndCapture"),
    PREFIX("cuStreamEndCapture"),
    PREFIX("hipStreamEndCapture"),
    {NULL, 0, false},
};

uint8_t split_capture_edge(ns_str name)
{
	return matches(name, capture_begins) ? CAPTURE_BEGIN : matches(name, capture_ends) ? CAPTURE_END : 0;
}
