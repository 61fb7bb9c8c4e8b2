#define _POSIX_C_SOURCE 200809L
#include "nextstep/routes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/json_file.h"

/* A built-in route. "{}" in next_check (or fix) is where the command that takes the next step goes, as the
 * caller words it (ns_routes_init_worded); the library names only which follow-up it is. */
typedef struct {
	const char *module;
	const char *fix;
	const char *next_check;
	ns_routes_follow_up
	    next_follow_up; /* what "{}" in next_check stands for; NS_FOLLOW_UP_NONE: no "{}" */
	ns_routes_follow_up fix_follow_up; /* the same for fix */
	const char *doc;                   /* the section of docs/fixes.md that explains the fix */
} route_text;

/* The sections of docs/fixes.md (a heading's anchor), one per family of fixes. */
#define DOC_COMPUTE   "fixes.md#compute-bound"
#define DOC_MEMORY    "fixes.md#memory-bound"
#define DOC_COPIES    "fixes.md#host-device-copies"
#define DOC_COMM      "fixes.md#communication"
#define DOC_STRAGGLER "fixes.md#stragglers"
#define DOC_LOADER    "fixes.md#data-loader"
#define DOC_LAUNCH    "fixes.md#launch-overhead"
#define DOC_SYNC      "fixes.md#host-sync"
#define DOC_IDLE      "fixes.md#idle-gpu"
#define DOC_STARTUP   "fixes.md#start-up-and-warm-up"
#define DOC_OPTIMIZER "fixes.md#optimizer"
#define DOC_DECODE    "fixes.md#decode-memory"
#define DOC_CPU_JOB   "fixes.md#cpu-only-jobs"
#define DOC_BUDGET    "fixes.md#memory-capacity"
#define DOC_HOST_OP   "fixes.md#slow-host-op"

/* The built-in playbook. The module numbers are the course's; keep them in step with it. */
static const route_text default_routes[NS_REGIME_COUNT] = {
    [NS_REGIME_COMPUTE] =
        {.module = "Module 4/5",
         .fix = "write/use a fused kernel or lower precision",
         .next_check = "re-profile and compare the top GEMM's achieved TFLOP/s with the device peak{}",
         .next_follow_up = NS_FOLLOW_UP_ROOFLINE_TIMED,
         .doc = DOC_COMPUTE},
    [NS_REGIME_MEMORY] =
        {.module = "Module 4/5",
         .fix = "fuse ops, cut activation memory, or shrink dtype",
         .next_check = "re-profile: the memory share should fall, and the top memory-bound kernels' achieved "
                       "GB/s should approach peak bandwidth",
         .doc = DOC_MEMORY},
    [NS_REGIME_COMM] = {.module = "Module 6/8",
                        .fix = "overlap all-reduce, bucket gradients, or check topology",
                        .next_check = "the exposed-communication share after enabling overlap{}",
                        .next_follow_up = NS_FOLLOW_UP_COMM_SPLIT,
                        .doc = DOC_COMM},
    [NS_REGIME_DATALOADER] =
        {.module = "Module 3",
         .fix = "the input pipeline is the bottleneck: more DataLoader workers, pinned memory, "
                "prefetching, persistent workers",
         .next_check = "the dataloader share after raising num_workers: it should drop below 5% of the step "
                       "and the step time with it",
         .doc = DOC_LOADER},
    [NS_REGIME_OVERHEAD] =
        {.module = "Lesson 02.11, launch overhead",
         .fix = "launch/dispatch overhead: CUDA graphs, torch.compile, larger batches, fewer tiny kernels",
         .next_check =
             "the batch-doubling test{}: after the fix, doubling the work should nearly double the step "
             "time",
         .next_follow_up = NS_FOLLOW_UP_SCALING,
         .doc = DOC_LAUNCH},
    [NS_REGIME_IDLE] = {.module = "Module 3",
                        .fix = "data-loader stall or host-device sync gap, check the trace timeline",
                        .next_check =
                            "the idle share on the trace timeline after removing the stall or the sync",
                        .doc = DOC_IDLE},
};

/* One route per cause (cause.h): the fix for the part of a bucket the trace could name. */
static const route_text default_cause_routes[NS_CAUSE_COUNT] = {
    [NS_CAUSE_LAUNCH] =
        {.module = "Lesson 02.11, launch overhead",
         .fix = "the GPU runs the ops faster than the step thread dispatches them: CUDA graphs, "
                "torch.compile, larger batches, fewer tiny kernels",
         .next_check =
             "the batch-doubling test{}: after the fix, doubling the work should nearly double the step "
             "time",
         .next_follow_up = NS_FOLLOW_UP_SCALING,
         .doc = DOC_LAUNCH},
    [NS_CAUSE_HOST_THREADS] =
        {.module = "Lesson 02.11, launch overhead",
         .fix = "host work on other threads (autograd engine, DDP/FSDP hooks, optimizer) keeps the GPU "
                "waiting: torch.compile with compiled autograd, CUDA graphs, fused/foreach optimizers",
         .next_check = "the host_threads share of overhead after the change{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_LAUNCH},
    [NS_CAUSE_SYNC] =
        {.module = "Module 3",
         .fix = "the host blocks on the device (.item(), .cpu(), print of a CUDA tensor, an if on a GPU "
                "value, a blocking copy): keep values on the device, pinned memory + non_blocking=True, "
                "find the syncs with torch.cuda.set_sync_debug_mode(\"warn\")",
         .next_check = "the sync share after the change{}; set_sync_debug_mode(\"error\") should pass a "
                       "whole step",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_SYNC},
    [NS_CAUSE_INIT] =
        {.module = "Module 3",
         .fix = "this is start-up (allocation, context, modules, streams), not the job: profile steady state "
                "with torch.profiler.schedule(wait=1, warmup=2, active=3); if it recurs every step, reuse "
                "buffers so the caching allocator stops calling cudaMalloc/cudaFree",
         .next_check = "a steady-state capture: the init share should vanish from the active steps",
         .doc = DOC_STARTUP},
    [NS_CAUSE_HOST_GAP] =
        {.module = "Module 3",
         .fix = "the GPU waits on Python the profiler did not record: capture with with_stack=True (or "
                "py-spy) to see it, then move it out of the step or remove it with torch.compile/CUDA "
                "graphs",
         .next_check = "the host_gap share after the change{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_IDLE},
    [NS_CAUSE_SYNC_WAIT] =
        {.module = "Module 3",
         .fix = "the host is blocked (a synchronize, a blocking copy, .item()) while this device runs "
                "nothing: it waits on something outside this device's queue (another device or a peer, an "
                "event another stream or process records: cudaStreamWaitEvent/hipStreamWaitEvent, GPU "
                "work the trace did not record): find what it waits for at that time (the other ranks' and "
                "streams' traces) and overlap it, rather than removing the call",
         .next_check = "the sync_wait share after the change{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_SYNC},
    [NS_CAUSE_OPTIMIZER] =
        {.module = "Lesson 02.11, launch overhead",
         .fix = "the GPU waits while the optimizer's step runs on the host with no op recorded (its Python "
                "loop over parameters or blocks, CPU-side math, host syncs): make the step cheaper "
                "(a fused or foreach implementation, or the optimizer's own settings: see the optimizer "
                "finding), step it less often (gradient accumulation), or shard its work across ranks",
         .next_check = "the idle optimizer share after the change{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_OPTIMIZER},
    [NS_CAUSE_TRANSFER] =
        {.module = "Module 4/5",
         .fix = "host-device copies: pinned memory, non_blocking copies, fewer host syncs",
         .next_check = "the transfer share after the change; copies should overlap compute on the timeline",
         .doc = DOC_COPIES},
    [NS_CAUSE_KERNELS] =
        {.module = "Module 4/5",
         .fix = "fuse ops, cut activation memory, or shrink dtype",
         .next_check = "re-profile: the memory share should fall, and the top memory-bound kernels' achieved "
                       "GB/s should approach peak bandwidth",
         .doc = DOC_MEMORY},
    [NS_CAUSE_EXPOSED] = {.module = "Module 6/8",
                          .fix = "overlap all-reduce, bucket gradients, or check topology",
                          .next_check = "the exposed-communication share after enabling overlap{}",
                          .next_follow_up = NS_FOLLOW_UP_COMM_SPLIT,
                          .doc = DOC_COMM},
    [NS_CAUSE_HOST_COMM] =
        {.module = "Module 6/8",
         .fix = "collectives run on the host (gloo): use the device backend (NCCL/RCCL) for tensors on "
                "the GPU, or overlap them with compute and bucket small messages",
         .next_check = "the comm share after switching backend or enabling overlap",
         .doc = DOC_COMM},
    [NS_CAUSE_WAIT] =
        {.module = "Module 6/8",
         .fix = "collectives wait for the last rank to arrive: fix what makes that rank slow{}, not the "
                "communication",
         .next_check = "the waiting share after the straggler's fix{}",
         .next_follow_up = NS_FOLLOW_UP_JOB,
         .fix_follow_up = NS_FOLLOW_UP_STRAGGLER,
         .doc = DOC_STRAGGLER},
    [NS_CAUSE_COMM_TRANSFER] =
        {.module = "Module 6/8",
         .fix = "overlap all-reduce, bucket gradients, or check topology and message sizes",
         .next_check = "the transfer share after enabling overlap{}",
         .next_follow_up = NS_FOLLOW_UP_JOB,
         .doc = DOC_COMM},
};

/* A host-only split (no device activity; its host time is in gloo collectives: a CPU job) is still split into
 * the six buckets, but the GPU advice of the overhead, idle and comm routes does not apply to it: these say
 * what the same buckets mean on the host. NULL fix: the ordinary route. */
static const route_text default_host_only_routes[NS_REGIME_COUNT] = {
    [NS_REGIME_COMM] =
        {.module = "Module 6/8",
         .fix = "collectives run on the host (gloo) with nothing overlapping them: start them "
                "asynchronously (async_op=True, DDP's bucketed all-reduce) so compute overlaps them, bucket "
                "small messages, check the network between hosts",
         .next_check = "the comm share after enabling overlap or bucketing",
         .doc = DOC_COMM},
    [NS_REGIME_OVERHEAD] =
        {.module = "Module 4/5",
         .fix = "host ops outside the collectives: on a CPU job this is the model's own compute: find "
                "the top ops (prof.key_averages()), match torch.set_num_threads to the cores, use a "
                "larger batch per collective",
         .next_check = "the overhead share, and the top ops' time, after the change",
         .doc = DOC_CPU_JOB},
    [NS_REGIME_DATALOADER] =
        {.module = "Module 3",
         .fix = "the input pipeline is the bottleneck: more DataLoader workers, prefetching, "
                "persistent workers",
         .next_check = "the dataloader share after raising num_workers: it should drop below 5% of the "
                       "step and the step time with it",
         .doc = DOC_LOADER},
    [NS_REGIME_IDLE] =
        {.module = "Module 3",
         .fix = "nothing recorded on the host (Python the profiler did not record, I/O, logging): capture "
                "with with_stack=True (or py-spy) to see it, then move it out of the step",
         .next_check = "the idle share after the change{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_IDLE},
};

/* The findings that are not buckets. The optimizer's: "{optimizer}" is where the trace report puts the advice
 * for the recorded optimizer's class and implementation (report_passes.c: fused=True, foreach, ...); what
 * holds for any optimizer follows: stepping less often divides its cost, sharding the state divides its work
 * by the ranks. A playbook's fix without "{optimizer}" replaces all of it. */
static const route_text default_finding_routes[NS_FINDING_COUNT] = {
    [NS_FINDING_OPTIMIZER] =
        {.module = "Lesson 02.11, launch overhead",
         .fix = "{optimizer}; or step it less often (gradient accumulation), or shard its state "
                "across ranks "
                "(ZeRO: FSDP, DeepSpeed ZeRO-1/2, ZeroRedundancyOptimizer)",
         .next_check = "the optimizer share of the step after the change{}",
         .next_follow_up = NS_FOLLOW_UP_PHASES,
         .doc = DOC_OPTIMIZER},
    /* A job's straggler, by what its kernels say (docs/job.md): kernel fusion would not help any of these,
     * the other ranks wait for this one whatever the model's kernels are. */
    [NS_FINDING_STRAGGLER_DEVICE] =
        {.module = "Module 6/8",
         .fix = "the same kernels run slower on this rank in every step: suspect its GPU or host, not the "
                "model: clocks and throttle reasons (nvidia-smi -q -d PERFORMANCE,CLOCK), other processes "
                "on that GPU, CPU/NUMA affinity, its links; if its tensors are larger than its peers', even "
                "out the sharding",
         .next_check = "the rank's non-comm step time against the median after moving the job off that GPU "
                       "or node{}",
         .next_follow_up = NS_FOLLOW_UP_JOB,
         .doc = DOC_STRAGGLER},
    [NS_FINDING_STRAGGLER_WORK] =
        {.module = "Module 6/8",
         .fix = "this rank launches more kernels a step than the others: it is given more work (uneven "
                "sharding or pipeline stages, the MoE experts it hosts, logging, evaluation or "
                "checkpointing on one rank): even out the split",
         .next_check = "the rank's kernels and non-comm time a step against the median after "
                       "rebalancing{}",
         .next_follow_up = NS_FOLLOW_UP_JOB,
         .doc = DOC_STRAGGLER},
    [NS_FINDING_STRAGGLER_INPUTS] =
        {.module = "Module 6/8",
         .fix = "the same kernels take longer on this rank in some steps only: its inputs vary (sequence "
                "lengths, MoE routing): balance the tokens per rank (length-bucketed or packed batches, "
                "fixed shapes, expert capacity)",
         .next_check = "the spread of the ranks' non-comm time a step after balancing{}",
         .next_follow_up = NS_FOLLOW_UP_JOB,
         .doc = DOC_STRAGGLER},
    /* A decode step reads every weight and the KV cache for each token it makes: its arithmetic intensity is
     * about the batch, so bandwidth bounds it by nature (the course's hardware module). Training's memory fix
     * (fuse ops, cut activation memory) does not apply; more tokens per read and fewer bytes per read do. */
    [NS_FINDING_DECODE_MEMORY] =
        {.module = "Module 2, why decode is memory-bound",
         .fix = "decode reads every weight and the KV cache for each token: batch more sequences per "
                "iteration (continuous batching, a larger max_num_seqs), quantise weights and KV cache "
                "(FP8/INT8/INT4), paged or flash-decoding attention",
         .next_check = "decode tokens per second and the decode steps' memory share after the change",
         .doc = DOC_DECODE},
    /* A memory budget names its largest term; each lever below shrinks that term, not the others. */
    [NS_FINDING_BUDGET_WEIGHTS] =
        {.module = "Lesson 02.07, where the memory went",
         .fix = "the weights take the memory: quantise them (FP8, INT8 or INT4 weight-only) or shard them "
                "across GPUs (tensor or pipeline parallelism)",
         .next_check = "the budget with the new dtype or the shard's parameters, then "
                       "torch.cuda.max_memory_allocated() on a real step",
         .doc = DOC_BUDGET},
    [NS_FINDING_BUDGET_KV_CACHE] =
        {.module = "Lesson 02.07, where the memory went",
         .fix = "the KV cache grows with batch x context: an FP8 KV cache, paged attention (no sequence "
                "reserves its maximum length), fewer KV heads (grouped-query attention), or tensor "
                "parallelism to split the heads",
         .next_check = "the largest batch at your context after the change, then the server's KV-cache "
                       "usage and preemptions under load",
         .doc = DOC_BUDGET},
    [NS_FINDING_BUDGET_ACTIVATIONS] =
        {.module = "Lesson 02.07, where the memory went",
         .fix = "activations grow with batch x sequence: activation checkpointing, a smaller micro-batch "
                "with gradient accumulation, FlashAttention (no materialised scores); when serving, chunked "
                "prefill",
         .next_check = "the budget with --checkpointing or the smaller micro-batch, then "
                       "torch.cuda.max_memory_allocated() on a real step",
         .doc = DOC_BUDGET},
    [NS_FINDING_BUDGET_TRAINING_STATE] =
        {.module = "Module 6/8",
         .fix = "gradients and optimizer state take the memory (16 bytes a parameter with mixed-precision "
                "Adam): shard them across the data-parallel ranks (ZeRO-1/2/3, FSDP), or keep 8-bit or "
                "factored optimizer state",
         .next_check = "the budget per rank after sharding, then torch.cuda.max_memory_allocated() on a real "
                       "step",
         .doc = DOC_BUDGET},
    /* Host time whose Python the trace recorded (with_stack=True): asking for with_stack again would be no
     * advice. What to do depends on what the frames are (report_python.c decides; docs/trace.md). */
    [NS_FINDING_PYTHON_PREPROCESS] =
        {.module = "Module 3",
         .fix =
             "the GPU waits on CPU data preprocessing in the training step ({frames}): do it in DataLoader "
             "workers (in the Dataset or a collate_fn, num_workers > 0, persistent_workers=True) or on the "
             "GPU, so the step only takes ready batches",
         .next_check = "the host share of the step after the move; those frames should leave the step "
                       "thread{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_LOADER},
    [NS_FINDING_PYTHON_BETWEEN_OPS] =
        {.module = "Lesson 02.11, launch overhead",
         .fix = "the GPU waits on Python between ops ({frames}): move that work out of the step if it is "
                "not the model's, else take the Python off the step path with torch.compile or CUDA graphs",
         .next_check = "the host share of the step after the change{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_LAUNCH},
    [NS_FINDING_PYTHON_COMPILED] =
        {.module = "Lesson 02.11, launch overhead",
         .fix = "the model is already under torch.compile and the GPU waits on the Python around its graphs "
                "({frames}): remove graph breaks (TORCH_LOGS=graph_breaks) so one graph covers the step, "
                "and compile with mode=\"reduce-overhead\" to replay it as CUDA graphs",
         .next_check = "the host share of the step after the change{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_LAUNCH},
    [NS_FINDING_PYTHON_NATIVE] =
        {.module = "Module 3",
         .fix =
             "the GPU waits on host time that no recorded op or Python frame covers (only {frames} of it is "
             "inside a frame): native code, I/O or another process: sample it with py-spy --native or perf",
         .next_check = "the host_gap share after the change{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_IDLE},
    [NS_FINDING_LAUNCH_COMPILED] =
        {.module = "Lesson 02.11, launch overhead",
         .fix = "the model is already under torch.compile and the GPU still runs its kernels faster than "
                "the step thread launches them: compile with mode=\"reduce-overhead\" (CUDA graphs: one "
                "launch per graph), remove graph breaks, or give each launch more work (larger batches)",
         .next_check =
             "the batch-doubling test{}: after the fix, doubling the work should nearly double the step "
             "time",
         .next_follow_up = NS_FOLLOW_UP_SCALING,
         .doc = DOC_LAUNCH},
    /* comm.wait's own route says to fix the rank the others wait for; without a straggler there is no such
     * rank to name: the lateness was made before the captured steps (docs/job.md, rule 9). */
    [NS_FINDING_WAIT_NO_STRAGGLER] =
        {.module = "Module 6/8",
         .fix = "the ranks wait for each other in collectives, but no rank is late often enough to be a "
                "straggler: the lateness comes from before the captured steps (ranks that enter a step "
                "apart after the previous step's tail, data loading, a checkpoint or evaluation, a host "
                "stall): capture more steps on every rank, then see which rank is late again and again",
         .next_check = "the waiting share and the ranks' step-start spread over a longer capture{}",
         .next_follow_up = NS_FOLLOW_UP_JOB,
         .doc = DOC_STRAGGLER},
    /* An Nsight Systems export's host time (report_export.c, docs/nsys.md): what the export shows, never
     * Python advice to a program that is not Python. */
    [NS_FINDING_HOST_OS_CALLS] =
        {.module = "Module 3",
         .fix = "the GPU waits while the step thread is inside OS calls ({frames}): blocking reads, waits "
                "and locks on the step path: move the I/O to another thread and read ahead, hold locks "
                "for less time, or queue the next GPU work before the call so the device is busy while "
                "the host blocks",
         .next_check = "the host_gap share after the change{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_IDLE},
    [NS_FINDING_HOST_UNTRACED] =
        {.module = "Module 3",
         .fix = "the GPU waits on host code between CUDA calls that nsys does not trace ({see}): move that "
                "work to the GPU, or overlap it with GPU work (launch the next kernels and asynchronous "
                "copies from pinned memory before it, on streams)",
         .next_check = "the host_gap share after the change{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_IDLE},
    [NS_FINDING_HOST_SAMPLED] =
        {.module = "Module 3",
         .fix = "the GPU waits on host code between CUDA calls that nsys does not trace; its CPU samples "
                "put it in {frames}: move that work to the GPU, or overlap it with GPU work (launch the "
                "next kernels and asynchronous copies from pinned memory before it, on streams)",
         .next_check = "the host_gap share after the change{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_IDLE},
    [NS_FINDING_HOST_UNTRACED_PYTHON] =
        {.module = "Module 3",
         .fix = "the GPU waits on host time between CUDA calls that the export holds no call for (Python "
                "or native code; {see}): move it out of the step, or take the Python off the step path "
                "with torch.compile or CUDA graphs",
         .next_check = "the host_gap share after the change{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_IDLE},
    [NS_FINDING_MPI_HOST] =
        {.module = "Module 6/8",
         .fix = "MPI calls hold the host while the GPU has no work: post them non-blocking "
                "(MPI_Isend/MPI_Irecv, MPI_Iallreduce) and launch GPU work before waiting on them, pass "
                "device buffers to a CUDA-aware MPI so no host copies stage the messages, or move the "
                "exchange onto the GPU with NCCL",
         .next_check = "the comm share after the change",
         .doc = DOC_COMM},
    [NS_FINDING_STARTUP_NSYS] =
        {.module = "Module 3",
         .fix = "this is start-up (context, module loads, allocation), not the job: profile steady state "
                "(nsys profile --capture-range=cudaProfilerApi with cudaProfilerStart/Stop around the "
                "steady iterations, or --delay past start-up); if it recurs every iteration, allocate once "
                "and reuse the buffers",
         .next_check = "a steady-state capture: the init share should vanish from the iterations",
         .doc = DOC_STARTUP},
    [NS_FINDING_SYNC_NATIVE] =
        {.module = "Module 3",
         .fix = "the host blocks on the device (cudaDeviceSynchronize, cudaStreamSynchronize, a cudaMemcpy "
                "to or from pageable memory): synchronize at most once an iteration, copy with "
                "cudaMemcpyAsync from pinned memory (cudaMallocHost), and wait on events only where the "
                "result is needed",
         .next_check = "the sync share after the change{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_SYNC},
    [NS_FINDING_SYNC_WAIT_NATIVE] =
        {.module = "Module 3",
         .fix = "the host is blocked (cudaDeviceSynchronize, cudaStreamSynchronize, a blocking cudaMemcpy) "
                "while this device runs nothing: it waits on something outside this device's queue (another "
                "device or a peer rank, an event another stream or process records: cudaStreamWaitEvent, GPU "
                "work the export did not record): find what it waits for at that time (the other ranks' "
                "exports and the other streams) and overlap it, rather than removing the call",
         .next_check = "the sync_wait share after the change{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_SYNC},
    [NS_FINDING_LAUNCH_NATIVE] =
        {.module = "Lesson 02.11, launch overhead",
         .fix = "the GPU runs the kernels faster than the host launches them: capture the launch sequence "
                "once as a CUDA graph and replay it (cudaStreamBeginCapture, cudaGraphLaunch), fuse small "
                "kernels, or give each kernel more work",
         .next_check = "the batch-doubling test{}: after the fix, doubling the work should nearly double "
                       "the step time",
         .next_follow_up = NS_FOLLOW_UP_SCALING,
         .doc = DOC_LAUNCH},
    [NS_FINDING_TRANSFER_NATIVE] =
        {.module = "Module 4/5",
         .fix = "host-device copies: allocate the host buffers pinned (cudaMallocHost, cudaHostRegister) "
                "so they copy at the link's speed, copy with cudaMemcpyAsync on a stream of their own to "
                "overlap the copies with kernels, and keep data on the device between iterations",
         .next_check = "the transfer share after the change; copies should overlap kernels on the "
                       "timeline",
         .doc = DOC_COPIES},
    /* An inference server has no backward pass and no gradients: its all-reduces are the tensor-parallel
     * layers' activations (its all-to-alls the experts' tokens), one or two per layer on every token's path.
     * No bucketing hides them and there is no compute to overlap them with but the next layer's. */
    [NS_FINDING_TP_COLLECTIVES] =
        {.module = "Module 6/8",
         .fix = "these collectives are tensor-parallel activations between layers, not gradients (an "
                "inference step has none to bucket): use the small-message all-reduce (vLLM/SGLang custom "
                "all-reduce, NCCL NVLS or one-shot), keep the tensor-parallel group inside one NVLink "
                "domain, fuse the all-reduce with the next norm, or lower the tensor-parallel degree (more "
                "replicas, or pipeline/expert parallelism, instead)",
         .next_check = "the exposed-communication share and the all-reduce time per layer after the change{}",
         .next_follow_up = NS_FOLLOW_UP_COMM_SPLIT,
         .doc = DOC_COMM},
    /* Host jitter: the rank's calls cost what its peers' do, except for rare stalls of milliseconds in calls
     * that take microseconds (a launch, an event record): the host was taken from the process. Faster
     * dispatch (CUDA graphs) would not remove a descheduled thread. */
    [NS_FINDING_STRAGGLER_JITTER] =
        {.module = "Module 6/8",
         .fix = "host jitter: this rank's host calls cost what the others' do except for rare stalls of "
                "milliseconds in calls that take microseconds (kernel launches, event records, aten::empty), "
                "while its GPU idles: the CPU was taken from it, not slow dispatch: pin each rank to its own "
                "cores near its GPU (numactl/taskset, isolcpus), freeze the garbage collector in the step "
                "(gc.freeze() after start-up, gc.disable() around the loop), check that node for co-located "
                "processes, CPU throttling and interrupts",
         .next_check = "the rank's host stalls and non-comm step time against the median after pinning{}",
         .next_follow_up = NS_FOLLOW_UP_JOB,
         .doc = DOC_STRAGGLER},
    /* The allocator: the rank calls cudaMalloc/cudaFree in its steps and its peers do not. PyTorch's caching
     * allocator calls the runtime only when its cache has no block that fits, and frees the cache (cudaFree
     * waits for the device) to retry a failed allocation: this rank's memory is fuller, or its shapes vary.
     * Pinning cores would not help; fewer misses would. */
    [NS_FINDING_STRAGGLER_ALLOC] =
        {.module = "Lesson 02.07, where the memory went",
         .fix =
             "the allocator: this rank calls cudaMalloc/cudaFree in its steps and the others do not: "
             "PyTorch's caching allocator misses its cache (shapes that vary by step) or frees it to retry "
             "a failed allocation (memory near full; cudaFree waits for the GPU): read "
             "torch.cuda.memory_stats() on that rank (num_alloc_retries, num_device_alloc), set "
             "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, lower its peak memory (smaller "
             "micro-batch, activation checkpointing) or pad its shapes to a few sizes, and call no "
             "torch.cuda.empty_cache() in the loop",
         .next_check = "the rank's cudaMalloc/cudaFree time and non-comm step time against the median after "
                       "the change{}",
         .next_follow_up = NS_FOLLOW_UP_JOB,
         .doc = DOC_STRAGGLER},
    /* Tensor-parallel collectives in training: each TP layer all-reduces (or all-gathers and reduce-scatters,
     * with sequence parallelism) its activations in forward and their gradients in backward, on the critical
     * path of the next layer. DDP/FSDP bucketing and gradient overlap do not apply to them. Their volume
     * per step grows with tokens x hidden size and the TP degree, their compute falls with the TP degree: the
     * levers are the link (one NVLink domain), overlapping them with the GEMMs next to them, and the degree.
     */
    [NS_FINDING_TP_TRAINING] =
        {.module = "Module 6/8",
         .fix = "these collectives are tensor-parallel activations (their process group is the "
                "tensor-parallel one, or they are all-reduces inside the forward pass), not gradient "
                "all-reduces: bucketing or overlapping gradients does not touch them: keep the "
                "tensor-parallel group inside one NVLink domain, overlap them with the GEMMs beside them "
                "(sequence parallelism with Megatron's --tp-comm-overlap, or PyTorch's async tensor "
                "parallelism under torch.compile), or lower the tensor-parallel degree (FSDP or pipeline "
                "stages for the rest)",
         .next_check = "the exposed-communication share and the tensor-parallel collectives' time per layer "
                       "after the change{}",
         .next_follow_up = NS_FOLLOW_UP_COMM_SPLIT,
         .doc = DOC_COMM},
    /* Set-up time in the steady steps that is the allocator's: PyTorch's caching allocator calls cudaMalloc
     * only when no cached block fits, and cudaFree (which waits for the device) when it frees its cache to
     * retry. Recurring in the counted steps, it is not start-up, and a steady-state capture would show it
     * again. */
    [NS_FINDING_ALLOC_STEPS] =
        {.module = "Lesson 02.07, where the memory went",
         .fix =
             "the caching allocator calls cudaMalloc/cudaFree inside the steady steps, not at start-up: it "
             "misses its cache when shapes vary from step to step, or frees it to retry an allocation that "
             "failed (memory near full; cudaFree waits for the GPU): read torch.cuda.memory_stats() "
             "(num_alloc_retries, num_device_alloc), set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, "
             "pad shapes to a few sizes or lower the peak, and call no torch.cuda.empty_cache() in the loop",
         .next_check =
             "the steps' set-up share after the change: cudaMalloc/cudaFree should leave the steady "
             "steps",
         .doc = DOC_BUDGET},
    /* One trace's host jitter: the launch overhead is mostly calls that take microseconds stalled for
     * milliseconds while the GPU idles. Dispatch is not slow (CUDA graphs would leave the
     * stalls where they are): the step thread lost its CPU, or waited on a lock another thread held. */
    /* The step as one captured graph: what a senior engineer says first of a step whose every op is
     * dispatched slower than the GPU runs it, on every host thread (docs/trace.md, "Capturing the step"). */
    [NS_FINDING_STEP_CAPTURE] =
        {.module = "Lesson 02.11, launch overhead",
         .fix = "the whole step is dispatch-bound: short kernels, each launched slower than the GPU runs it, "
                "on the step thread, the autograd thread and in the optimizer alike: capture the step once "
                "and replay it, torch.compile(mode=\"reduce-overhead\") or torch.cuda.CUDAGraph around "
                "forward, backward and the optimizer step (capturable=True), which needs static shapes and "
                "no host sync in the step (.item(), printing a tensor, data-dependent Python); where it "
                "cannot be captured, a fused optimizer and fewer, larger ops are the partial fixes below",
         .next_check = "the host overhead and idle shares after the capture: one graph launch a step{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_LAUNCH},
    /* The same for a program that runs no backward pass and no optimizer (inference, generation): what
     * is captured is the forward, and what stands in the way is a cache whose shape grows every token. */
    [NS_FINDING_STEP_CAPTURE_INFERENCE] =
        {.module = "Lesson 02.11, launch overhead",
         .fix = "the whole step is dispatch-bound: short kernels, each launched slower than the GPU runs it, "
                "with the host's Python between them: capture the forward once and replay it, "
                "torch.compile(mode=\"reduce-overhead\") or torch.cuda.CUDAGraph, which needs static shapes "
                "(a static KV cache: generate(cache_implementation=\"static\") in Hugging Face "
                "Transformers; a server such as vLLM or SGLang captures its decode steps per batch size) "
                "and no host sync in the step (.item(), a stopping check on a GPU value); where it cannot "
                "be captured, fewer, larger ops (fused kernels, more sequences a step) are the partial "
                "fixes below",
         .next_check = "the host overhead and idle shares after the capture: one graph launch a step{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_LAUNCH},
    /* Launch overhead left when graph replays already hold most of the GPU time: CUDA graphs are in use, the
     * host time between the replays is what is left (docs/trace.md, "Capturing the step"). */
    [NS_FINDING_LAUNCH_GRAPHED] =
        {.module = "Lesson 02.11, launch overhead",
         .fix = "the GPU already runs CUDA graph replays and waits on the host between them: put more of "
                "the step in each graph (forward, backward and optimizer in one: fewer, larger replays), "
                "move the host work left between replays out of the step, or give each replay more work "
                "(larger batches)",
         .next_check = "the launch overhead share after the change: fewer graph launches a step{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_LAUNCH},
    [NS_FINDING_HOST_STALLS] =
        {.module = "Module 3",
         .fix =
             "host stalls: calls that take microseconds (kernel launches, event records, aten::empty) "
             "stalled for milliseconds while the GPU idled, and hold most of the launch "
             "overhead: the step thread lost its CPU (another process or thread on its cores, a garbage "
             "collector pause, interrupts) or waited on the CUDA driver's lock held by another thread (a "
             "pin-memory or logging thread), not slow dispatch: pin the process to its own cores near its "
             "GPU (numactl/taskset), freeze the garbage collector in the step (gc.freeze() after start-up, "
             "gc.disable() around the loop), and check the node for co-located processes and CPU throttling",
         .next_check = "the launch overhead share after pinning; the stalls should be gone{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_LAUNCH},
    /* One op's own host time holds most of the launch overhead: the GPU waits on that op's CPU-side work
     * (calls of milliseconds that launch a kernel or two), not on dispatching many small kernels, so CUDA
     * graphs and larger batches are not the first fix (docs/trace.md, "A slow host op"). {op} is the op. */
    [NS_FINDING_SLOW_HOST_OP] =
        {.module = "Module 3",
         .fix = "the GPU waits on one host op, {op}, whose calls spend their time on the CPU, not in "
                "kernels: see what it does there (py-spy dump --native during the step shows its Python "
                "and native stack): a plan or cache rebuilt for every new shape, a recompile, "
                "CPU-side math or a copy through host memory; keep its shapes static (pad to a few sizes) "
                "or move that work out of the step",
         .next_check = "the op's host time per call after the change; the launch overhead should fall "
                       "with it{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_HOST_OP},
    /* cuDNN's scaled-dot-product attention builds an execution plan per input shape and caches it; a
     * decoder whose KV length grows by one every token misses that cache at every new length. */
    [NS_FINDING_HOST_OP_CUDNN_ATTENTION] =
        {.module = "Module 3",
         .fix = "the GPU waits on one host op, {op}: cuDNN attention builds an execution plan for every new "
                "input shape, and a sequence length that changes from call to call (a KV cache growing by "
                "a token each step) misses its plan cache every time: pick the flash or memory-efficient "
                "SDPA backend (with torch.nn.attention.sdpa_kernel([SDPBackend.FLASH_ATTENTION, "
                "SDPBackend.EFFICIENT_ATTENTION])), or pad the sequence length to a few fixed sizes",
         .next_check = "the op's host time per call after the change; the launch overhead should fall "
                       "with it{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_HOST_OP},
    /* Stream capture records kernels into a graph without running them: a window of it shows the host
     * recording, not the job, and "use CUDA graphs" would be advice to do what it is doing. */
    [NS_FINDING_GRAPH_CAPTURE] =
        {.module = "Lesson 02.11, launch overhead",
         .fix = "this records CUDA graphs (stream capture: the kernels run when the graphs are replayed, not "
                "here): profile the replays, in steady state after the capture (torch.profiler.schedule("
                "wait=, warmup=, active=) past start-up, or a server's iterations after its warm-up)",
         .next_check = "a capture of the replays: cudaGraphLaunch calls with their kernels in every step",
         .doc = DOC_STARTUP},
    /* cuDNN and MIOpen run convolutions in NHWC; an NCHW model pays a transpose of the activations (and
     * weights) around each call, which channels_last removes (report_python.c decides; docs/trace.md). */
    [NS_FINDING_LAYOUT_TRANSFORM] =
        {.module = "Module 4/5",
         .fix = "layout-transform kernels (nchwToNhwc/nhwcToNchw, batched_transpose) hold {share} of the "
                "memory-bound kernel time: the convolutions run in NHWC and the model is NCHW, so convert "
                "the model and its inputs to channels_last (model.to(memory_format=torch.channels_last), "
                "x.to(memory_format=torch.channels_last))",
         .next_check = "the layout-transform kernels should be gone from the top memory kernels{}",
         .next_follow_up = NS_FOLLOW_UP_TRACE_VERBOSE,
         .doc = DOC_MEMORY},
    /* fp32 GEMMs and convolutions run on the CUDA cores; the tensor cores' peak is several times higher. */
    [NS_FINDING_FP32_TENSOR_CORES] =
        {.module = "Module 4/5",
         .fix = "fp32 matmuls and convolutions (SIMT sgemm, fp32 cuDNN engines) hold {share} of the compute "
                "time on a GPU whose tensor cores peak {peak}: train under torch.autocast (bfloat16 where "
                "the GPU has it, else float16 with torch.amp.GradScaler), and let the fp32 that is left use "
                "TF32 where the GPU has it (torch.backends.cuda.matmul.allow_tf32 = True, "
                "torch.backends.cudnn.allow_tf32 = True)",
         .next_check = "re-profile and compare the top GEMM's achieved TFLOP/s with the low-precision peak{}",
         .next_follow_up = NS_FOLLOW_UP_ROOFLINE_TIMED,
         .doc = DOC_COMPUTE},
    /* 16-bit GEMMs that already run near their roof (the placement says so): no better kernel wins much,
     * and the lower precision the compute fix names is fp8, on the GPUs whose fp8 peak is above theirs. */
    [NS_FINDING_FP8_GEMMS] =
        {.module = "Module 4/5",
         .fix =
             "16-bit GEMMs near their roof hold {share} of the placed compute time, on a GPU with a faster "
             "fp8 roof: a better kernel has little left to win, so run the large matmuls in fp8 "
             "(Transformer Engine's te.Linear under te.fp8_autocast, or torchao's "
             "convert_to_float8_training), keep the first and last layers in bf16, and compare the loss "
             "curve with a bf16 run",
         .next_check = "re-profile: the top GEMMs should be fp8 kernels (e4m3 in their names) at a higher "
                       "achieved TFLOP/s{}",
         .next_follow_up = NS_FOLLOW_UP_ROOFLINE_TIMED,
         .doc = DOC_COMPUTE},
    /* The same for a program that runs no training step: fp8 is a serving choice there (weights and
     * activations quantised), checked against the model's outputs rather than a loss curve. */
    [NS_FINDING_FP8_GEMMS_INFERENCE] =
        {.module = "Module 4/5",
         .fix =
             "16-bit GEMMs near their roof hold {share} of the placed compute time, on a GPU with a faster "
             "fp8 roof: a better kernel has little left to win, so serve the large matmuls in fp8 (the "
             "server's fp8 quantization, such as vLLM's --quantization fp8, or torchao's float8 dynamic "
             "quantization of the linear layers) and check the outputs' accuracy against bf16",
         .next_check = "re-profile: the top GEMMs should be fp8 kernels (e4m3 in their names) at a higher "
                       "achieved TFLOP/s{}",
         .next_follow_up = NS_FOLLOW_UP_ROOFLINE_TIMED,
         .doc = DOC_COMPUTE},
    /* Compute ops that already run near their roof with no faster precision the placement can name (no fp8
     * roof, or not GEMMs): writing or fusing kernels chases time the datasheet peak does not leave. */
    [NS_FINDING_COMPUTE_AT_ROOF] =
        {.module = "Module 4/5",
         .fix = "the compute kernels already run near the GPU's peak ({share} of their time is above its "
                "datasheet roof, about what the best kernels leave): a better or fused kernel wins little; "
                "the step gets shorter with fewer FLOPs (activation recomputation off where memory allows, "
                "no redundant work) or on a GPU with a faster roof",
         .next_check = "re-profile: the step should shrink with the FLOPs removed{}",
         .next_follow_up = NS_FOLLOW_UP_ROOFLINE_TIMED,
         .doc = DOC_COMPUTE},
};

static const char *const finding_names[NS_FINDING_COUNT] = {
    [NS_FINDING_OPTIMIZER] = "optimizer",
    [NS_FINDING_STRAGGLER_DEVICE] = "straggler_device",
    [NS_FINDING_STRAGGLER_WORK] = "straggler_work",
    [NS_FINDING_STRAGGLER_INPUTS] = "straggler_inputs",
    [NS_FINDING_DECODE_MEMORY] = "decode_memory",
    [NS_FINDING_BUDGET_WEIGHTS] = "budget_weights",
    [NS_FINDING_BUDGET_KV_CACHE] = "budget_kv_cache",
    [NS_FINDING_BUDGET_ACTIVATIONS] = "budget_activations",
    [NS_FINDING_BUDGET_TRAINING_STATE] = "budget_training_state",
    [NS_FINDING_PYTHON_PREPROCESS] = "python_preprocess",
    [NS_FINDING_PYTHON_BETWEEN_OPS] = "python_between_ops",
    [NS_FINDING_PYTHON_COMPILED] = "python_compiled",
    [NS_FINDING_PYTHON_NATIVE] = "python_native",
    [NS_FINDING_LAUNCH_COMPILED] = "launch_compiled",
    [NS_FINDING_WAIT_NO_STRAGGLER] = "wait_without_straggler",
    [NS_FINDING_GRAPH_CAPTURE] = "graph_capture",
    [NS_FINDING_LAYOUT_TRANSFORM] = "layout_transform",
    [NS_FINDING_FP32_TENSOR_CORES] = "fp32_tensor_cores",
    [NS_FINDING_HOST_OS_CALLS] = "host_os_calls",
    [NS_FINDING_HOST_UNTRACED] = "host_untraced",
    [NS_FINDING_HOST_UNTRACED_PYTHON] = "host_untraced_python",
    [NS_FINDING_MPI_HOST] = "mpi_host",
    [NS_FINDING_STARTUP_NSYS] = "startup_nsys",
    [NS_FINDING_SYNC_NATIVE] = "sync_native",
    [NS_FINDING_LAUNCH_NATIVE] = "launch_native",
    [NS_FINDING_TRANSFER_NATIVE] = "transfer_native",
    [NS_FINDING_SYNC_WAIT_NATIVE] = "sync_wait_native",
    [NS_FINDING_HOST_SAMPLED] = "host_sampled",
    [NS_FINDING_TP_COLLECTIVES] = "tp_collectives",
    [NS_FINDING_STRAGGLER_JITTER] = "straggler_jitter",
    [NS_FINDING_STRAGGLER_ALLOC] = "straggler_allocator",
    [NS_FINDING_TP_TRAINING] = "tp_training",
    [NS_FINDING_ALLOC_STEPS] = "allocator_steps",
    [NS_FINDING_HOST_STALLS] = "host_stalls",
    [NS_FINDING_STEP_CAPTURE] = "step_capture",
    [NS_FINDING_LAUNCH_GRAPHED] = "launch_graphed",
    [NS_FINDING_SLOW_HOST_OP] = "slow_host_op",
    [NS_FINDING_HOST_OP_CUDNN_ATTENTION] = "host_op_cudnn_attention",
    [NS_FINDING_STEP_CAPTURE_INFERENCE] = "step_capture_inference",
    [NS_FINDING_FP8_GEMMS] = "fp8_gemms",
    [NS_FINDING_FP8_GEMMS_INFERENCE] = "fp8_gemms_inference",
    [NS_FINDING_COMPUTE_AT_ROOF] = "compute_at_roof",
};

const char *ns_finding_name(ns_finding_kind f)
{
	return (unsigned)f < NS_FINDING_COUNT ? finding_names[f] : NULL;
}

#define NROUTES         (NS_REGIME_COUNT + NS_CAUSE_COUNT + NS_REGIME_COUNT + NS_FINDING_COUNT)
#define FIRST_HOST_ONLY (NS_REGIME_COUNT + NS_CAUSE_COUNT)
#define FIRST_FINDING   (FIRST_HOST_ONLY + NS_REGIME_COUNT)

/* The i-th route of r: the buckets', the causes', then the host-only buckets'. */
static ns_route *route_at(ns_routes *r, int i)
{
	if (i < NS_REGIME_COUNT)
		return &r->route[i];
	if (i < FIRST_HOST_ONLY)
		return &r->cause[i - NS_REGIME_COUNT];
	if (i < FIRST_FINDING)
		return &r->host_only[i - FIRST_HOST_ONLY];
	return &r->finding[i - FIRST_FINDING];
}

static const route_text *default_at(int i)
{
	if (i < NS_REGIME_COUNT)
		return &default_routes[i];
	if (i < FIRST_HOST_ONLY)
		return &default_cause_routes[i - NS_REGIME_COUNT];
	if (i < FIRST_FINDING)
		return &default_host_only_routes[i - FIRST_HOST_ONLY];
	return &default_finding_routes[i - FIRST_FINDING];
}

static const char *const playbook_keys[] = {"routes", "causes",      "findings", "replace",
                                            "name",   "description", NULL};
static const char *const route_keys[] = {"module", "fix", "next_check", NULL};

void ns_routes_free(ns_routes *r)
{
	for (int i = 0; i < NROUTES; i++) {
		ns_route *x = route_at(r, i);
		free(x->module);
		free(x->fix);
		free(x->next_check);
		free(x->doc);
		memset(x, 0, sizeof(*x));
	}
}

static ns_status set_string(char **slot, const char *value, ns_error *err)
{
	char *copy = strdup(value);

	if (copy == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	free(*slot);
	*slot = copy;
	return NS_OK;
}

/* text with its "{}" replaced by " (WORDS)", or by nothing when the caller gave no words for fu. */
static ns_status set_worded(char **slot, const char *text, ns_routes_follow_up fu, const char *const *words,
                            ns_error *err)
{
	const char *at = fu != NS_FOLLOW_UP_NONE ? strstr(text, "{}") : NULL;
	const char *w = words != NULL && fu > NS_FOLLOW_UP_NONE && fu < NS_FOLLOW_UP_COUNT ? words[fu] : NULL;
	size_t n;
	char *out;

	if (at == NULL)
		return set_string(slot, text, err);
	n = strlen(text) + (w != NULL ? strlen(w) + 3 : 0);
	out = malloc(n);
	if (out == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	snprintf(out, n, "%.*s%s%s%s%s", (int)(at - text), text, w != NULL ? " (" : "", w != NULL ? w : "",
	         w != NULL ? ")" : "", at + 2);
	free(*slot);
	*slot = out;
	return NS_OK;
}

static ns_status set_route(ns_route *dst, const route_text *src, const char *const *words, ns_error *err)
{
	if (set_string(&dst->module, src->module, err) != NS_OK ||
	    set_worded(&dst->fix, src->fix, src->fix_follow_up, words, err) != NS_OK ||
	    set_worded(&dst->next_check, src->next_check, src->next_follow_up, words, err) != NS_OK ||
	    (src->doc != NULL && set_string(&dst->doc, src->doc, err) != NS_OK))
		return err->status;
	return NS_OK;
}

ns_status ns_routes_init_default(ns_routes *r, ns_error *err)
{
	return ns_routes_init_worded(r, NULL, err);
}

ns_status ns_routes_init_worded(ns_routes *r, const char *const *follow_ups, ns_error *err)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < NROUTES; i++) {
		ns_status st = default_at(i)->fix != NULL
		                   ? set_route(route_at(r, i), default_at(i), follow_ups, err)
		                   : NS_OK;
		if (st != NS_OK) {
			ns_routes_free(r);
			return st;
		}
	}
	return NS_OK;
}

ns_routes *ns_routes_new(const char *const *follow_ups, ns_error *err)
{
	ns_routes *r = malloc(sizeof(*r));

	if (r == NULL) {
		ns_error_set(err, NS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (ns_routes_init_worded(r, follow_ups, err) != NS_OK) {
		free(r);
		return NULL;
	}
	return r;
}

void ns_routes_delete(ns_routes *r)
{
	if (r == NULL)
		return;
	ns_routes_free(r);
	free(r);
}

ns_status ns_routes_set_doc_dir(ns_routes *r, const char *dir, ns_error *err)
{
	for (int i = 0; i < NROUTES; i++) {
		ns_route *x = route_at(r, i);
		size_t n;
		char *path;

		if (x->doc == NULL)
			continue;
		n = strlen(dir) + strlen(x->doc) + 2;
		if ((path = malloc(n)) == NULL)
			return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
		snprintf(path, n, "%s/%s", dir, x->doc);
		free(x->doc);
		x->doc = path;
	}
	return NS_OK;
}

static ns_status apply_route(ns_route *dst, const char *section, const char *key, const cJSON *spec,
                             ns_error *err)
{
	const char *field[] = {"module", "fix", "next_check"};
	char **slot[] = {&dst->module, &dst->fix, &dst->next_check};
	char what[96];

	snprintf(what, sizeof(what), "%s.%s", section, key);
	if (!cJSON_IsObject(spec))
		return ns_error_set(err, NS_ERR_VALUE, "%s must be an object with module, fix, next_check",
		                    what);
	if (ns_json_check_keys(spec, route_keys, what, err) != NS_OK)
		return err->status;
	for (size_t i = 0; i < sizeof(field) / sizeof(field[0]); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(spec, field[i]);
		if (v == NULL)
			continue;
		if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
			return ns_error_set(err, NS_ERR_VALUE, "%s.%s must be a non-empty string", what,
			                    field[i]);
		if (set_string(slot[i], v->valuestring, err) != NS_OK)
			return err->status;
	}
	/* the page explains the built-in fix, not the team's */
	if (cJSON_GetObjectItemCaseSensitive(spec, "fix") != NULL) {
		free(dst->doc);
		dst->doc = NULL;
	}
	if (dst->fix == NULL || dst->module == NULL)
		return ns_error_set(err, NS_ERR_VALUE, "%s needs at least \"fix\" and \"module\"", what);
	return NS_OK;
}

/* "causes": {"overhead.sync": {...}}: each overrides one cause's route. With "replace": true the built-in
 * cause routes go too, and a cause without a route falls back to its bucket's. */
static ns_status apply_causes(ns_routes *r, const cJSON *causes, ns_error *err)
{
	const cJSON *item;
	bool given[NS_CAUSE_COUNT] = {false};

	if (causes == NULL)
		return NS_OK;
	if (!cJSON_IsObject(causes))
		return ns_error_set(err, NS_ERR_VALUE,
		                    "playbook: \"causes\" must be an object keyed by bucket.cause");
	cJSON_ArrayForEach(item, causes)
	{
		ns_cause c;
		if (!ns_cause_from_key(item->string, &c))
			return ns_error_set(err, NS_ERR_KEY, "playbook: unknown cause \"%s\"", item->string);
		if (given[c])
			return ns_error_set(err, NS_ERR_KEY, "playbook: cause \"%s\" given twice",
			                    item->string);
		given[c] = true;
		if (apply_route(&r->cause[c], "causes", item->string, item, err) != NS_OK)
			return err->status;
	}
	return NS_OK;
}

/* "findings": {"optimizer": {...}}: each overrides one finding's route. */
static ns_status apply_findings(ns_routes *r, const cJSON *findings, ns_error *err)
{
	const cJSON *item;

	if (findings == NULL)
		return NS_OK;
	if (!cJSON_IsObject(findings))
		return ns_error_set(err, NS_ERR_VALUE,
		                    "playbook: \"findings\" must be an object keyed by finding");
	cJSON_ArrayForEach(item, findings)
	{
		int f = 0;
		while (f < NS_FINDING_COUNT && strcmp(item->string, finding_names[f]) != 0)
			f++;
		if (f == NS_FINDING_COUNT)
			return ns_error_set(err, NS_ERR_KEY, "playbook: unknown finding \"%s\"",
			                    item->string);
		if (apply_route(&r->finding[f], "findings", item->string, item, err) != NS_OK)
			return err->status;
	}
	return NS_OK;
}

static ns_status apply_playbook(ns_routes *r, const cJSON *doc, ns_error *err)
{
	const cJSON *routes, *replace, *item;
	bool given[NS_REGIME_COUNT] = {false};

	if (!cJSON_IsObject(doc))
		return ns_error_set(err, NS_ERR_VALUE,
		                    "a playbook is a JSON object with a \"routes\" object");
	if (ns_json_check_keys(doc, playbook_keys, "playbook", err) != NS_OK)
		return err->status;
	routes = cJSON_GetObjectItemCaseSensitive(doc, "routes");
	replace = cJSON_GetObjectItemCaseSensitive(doc, "replace");
	/* "routes" may be left out when the playbook only overrides causes or findings */
	if (!cJSON_IsObject(routes) &&
	    (routes != NULL || (cJSON_GetObjectItemCaseSensitive(doc, "causes") == NULL &&
	                        cJSON_GetObjectItemCaseSensitive(doc, "findings") == NULL)))
		return ns_error_set(err, NS_ERR_VALUE,
		                    "playbook: \"routes\" must be an object keyed by regime");
	if (replace != NULL && !cJSON_IsBool(replace))
		return ns_error_set(err, NS_ERR_VALUE, "playbook: \"replace\" must be true or false");
	if (cJSON_IsTrue(replace))
		ns_routes_free(r);
	cJSON_ArrayForEach(item, routes)
	{
		ns_regime regime;
		if (!ns_regime_from_name(item->string, &regime))
			return ns_error_set(err, NS_ERR_KEY, "playbook: unknown regime \"%s\"", item->string);
		if (given[regime])
			return ns_error_set(err, NS_ERR_KEY, "playbook: regime \"%s\" given twice",
			                    item->string);
		given[regime] = true;
		if (apply_route(&r->route[regime], "routes", item->string, item, err) != NS_OK)
			return err->status;
	}
	for (int i = 0; i < NS_REGIME_COUNT; i++)
		if (r->route[i].fix == NULL)
			return ns_error_set(err, NS_ERR_VALUE,
			                    "playbook: \"replace\": true but no route for \"%s\"",
			                    ns_regime_name((ns_regime)i));
	if (apply_causes(r, cJSON_GetObjectItemCaseSensitive(doc, "causes"), err) != NS_OK)
		return err->status;
	return apply_findings(r, cJSON_GetObjectItemCaseSensitive(doc, "findings"), err);
}

static ns_status copy_routes(ns_routes *dst, ns_routes *src, ns_error *err)
{
	for (int i = 0; i < NROUTES; i++) {
		const ns_route *from = route_at(src, i);
		ns_route *to = route_at(dst, i);
		if ((from->module && set_string(&to->module, from->module, err) != NS_OK) ||
		    (from->fix && set_string(&to->fix, from->fix, err) != NS_OK) ||
		    (from->next_check && set_string(&to->next_check, from->next_check, err) != NS_OK) ||
		    (from->doc && set_string(&to->doc, from->doc, err) != NS_OK))
			return NS_ERR_NOMEM;
	}
	return NS_OK;
}

/* Works on a copy so a bad playbook leaves the caller's routes untouched. */
ns_status ns_routes_load_playbook(ns_routes *r, const char *path, ns_error *err)
{
	cJSON *doc = NULL;
	ns_routes work;
	ns_status st;

	if (ns_json_parse_file(path, &doc, err) != NS_OK)
		return err->status;
	memset(&work, 0, sizeof(work));
	st = copy_routes(&work, r, err);
	if (st == NS_OK)
		st = apply_playbook(&work, doc, err);
	cJSON_Delete(doc);
	if (st != NS_OK) {
		ns_routes_free(&work);
		return st;
	}
	ns_routes_free(r);
	*r = work;
	return NS_OK;
}
