/* What a device's routes are decided from besides its windows: the trace's evidence for a more specific fix
 * than a bucket's or a cause's (docs/next-step.md, "The candidates"; docs/trace.md, "Which fix"). The trace
 * report gathers it from a split; a rank summary carries it (docs/job.md, "Rank summaries"), so that a job
 * routes a rank's lines with the same rules as the rank's own report. Decided once, in the library:
 * ns_route_evidence_of() gathers, the report's routing reads only this. */
#ifndef NEXTSTEP_ROUTE_EVIDENCE_H
#define NEXTSTEP_ROUTE_EVIDENCE_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/route_evidence.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nextstep/api.h"
#include "nextstep/trace_read.h"
#include "nextstep/trace_split.h"

NS_BEGIN_DECLS

/* Frames a host cause's evidence keeps: the fix names at most this many (the largest). */
#define NS_EVIDENCE_FRAMES 3

/* One frame behind a host cause: its name as the trace wrote it ("file.py(12): fn"), borrowed, and its self
 * time. */
typedef struct {
	const char *name;
	int64_t ns;
} ns_evidence_frame;

/* The frames behind one host cause of the device's overall window. */
typedef struct {
	int64_t framed_ns; /* the cause's time with some frame open */
	size_t nframes;
	ns_evidence_frame frame[NS_EVIDENCE_FRAMES]; /* largest first */
} ns_evidence_python;

/* The host causes whose frames route them (the others' frames are only shown). */
typedef enum { NS_EVIDENCE_HOST_GAP, NS_EVIDENCE_LAUNCH, NS_EVIDENCE_HOSTS } ns_evidence_host;

/* All zero: nothing is known beyond the windows (a rank summary written before the evidence was): the stock
 * routes. */
typedef struct {
	/* The trace. */
	bool python_frames; /* it recorded frames (ns_split_result.python_frames > 0) */
	bool compiled;      /* ns_split_result.compiled */
	bool nsys;          /* an Nsight Systems export: its program decides its host routes */
	ns_program_info program;
	int64_t capture_ns;  /* set-up time recording CUDA/HIP graphs (ns_split_result.capture_ns) */
	int64_t host_stalls; /* ns_split_result.host_stalls and their time */
	int64_t host_stall_ns;
	int64_t alloc_ns; /* ns_split_result.alloc_ns */
	/* The device. */
	ns_evidence_python python[NS_EVIDENCE_HOSTS];
	int64_t memory_ns; /* the memory class's kernel time (ns_split_device.class_ns) */
	int64_t layout_ns; /* of it, layout transforms (nchwToNhwc, ...) */
	int64_t compute_ns;
	int64_t fp32_ns; /* of the compute class's, fp32 GEMMs and convolutions on the CUDA cores */
	bool inference;  /* some steps have an inference phase (prefill, decode, mixed) */
	/* Of memory_ns, GEMMs whose recorded shapes make them memory-bound (ns_split_device's
	 * shape_memory_gemm_ns), and whether the trace runs a backward pass (autograd's nodes or a backward
	 * marker in the windows): without one, such GEMMs are an inference's weight reads. */
	int64_t shape_gemm_ns;
	bool backward;
	bool optimizer_pass;     /* the windows hold an optimizer step (its marker): the program trains */
	int64_t coll_exposed_ns; /* its collectives' exposed time */
	int64_t tp_exposed_ns;   /* of it, tensor-parallel collectives' */
	/* Of the trace's host stalls, the time this device ran nothing (ns_split_device.host_stall_idle_ns);
	 * known: from a split with stalls, from a summary that carries it (one written before it was: the
	 * stalls count whole, as they did). */
	bool host_stall_idle_known;
	int64_t host_stall_idle_ns;
	/* The optimizer (its candidate's fix and the launch time it claims, docs/next-step.md); known: from a
	 * split always, from a summary where it had an optimizer step (else the stock route, no launch time).
	 */
	bool optimizer_known;
	char optimizer[NS_SPLIT_OPTIMIZER_NAME_MAX]; /* ns_split_result.optimizer: its class, "" when unnamed
	                                              */
	bool optimizer_fused;                        /* ns_split_result.optimizer_fused */
	int64_t optimizer_launch_ns;                 /* ns_split_device.optimizer_launch_ns */
	/* The slow host op behind most of the launch time (ns_split_device.host_op; docs/trace.md, "A slow
	 * host op"): its name (borrowed; NULL: none, or a summary that does not carry it) and numbers. */
	const char *host_op;
	int64_t host_op_idle_ns, host_op_calls, host_op_host_ns, host_op_launches;
} ns_route_evidence;

/* The evidence of device d of res. Names are borrowed from res. */
NS_STATIC_API void ns_route_evidence_of(const ns_split_result *res, const ns_split_device *d,
                                        ns_route_evidence *out);

NS_END_DECLS

#endif
