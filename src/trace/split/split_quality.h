/* What the trace-quality checks gather while the split reads and links (not installed; split_quality.c). */
#ifndef NEXTSTEP_SPLIT_QUALITY_H
#define NEXTSTEP_SPLIT_QUALITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	int64_t start;
	int64_t corr;
	uint32_t name_id;
} graph_kernel;

typedef struct {
	/* reading */
	long python_events; /* python_function events: with_stack=True */
	long shaped_ops;    /* CPU ops with "Input Dims": record_shapes=True */
	long cpu_ops;
	long ends;          /* E events closing a B */
	long orphan_ends;   /* E events without a B */
	long backward_ends; /* E events earlier than their B */
	long open_spans;    /* B events still open at the end (steps among them in open_steps) */
	long open_steps;
	bool has_capture; /* the profiler's own span ("PyTorch Profiler (0)", category Trace) was seen */
	int64_t capture_end;
	long graph_launch_calls; /* graph launch calls read (0: the graph checks cost nothing) */
	long captured;           /* launches inside a stream capture: recorded into a graph, not run */
	int64_t host_span_ns; /* the profiled process's host activity, first span's start to last one's end */
	/* The file was cut (ns_trace_meta.truncated); device_done: metadata events (ph M) followed the last
	 * device record or launch read, i.e. the cut fell in the closing section Kineto writes after the
	 * activity. */
	bool truncated, truncated_in_events, device_done;
	long long truncated_at;
	/* links */
	int64_t first_launch_ts;   /* INT64_MAX without launches */
	int64_t first_launch_corr; /* the lowest correlation id of a launch; INT64_MAX without */
	long queued;        /* GPU records with no launch and an id below it: launched before the capture */
	int64_t queued_end; /* ... the last one's end */
	int64_t last_gpu_start; /* INT64_MIN without GPU records */
	long unlinked;          /* GPU records with a correlation id and no launch, after the first launch */
	int64_t unlinked_ns;
	long unlinked_edge; /* ... before it: launched before the capture began (expected, not a problem) */
	long before_launch; /* GPU records starting before their launch call */
	long linked;
	int64_t kernel_ns; /* records linked to kernel launches: the typical kernel's time */
	long kernel_n;
	graph_kernel *gk; /* records linked to graph launches (freed once the replays are counted) */
	size_t ngk, capgk;
	bool oom;            /* gk could not grow: reported after the links */
	int64_t *graph_corr; /* correlation ids of the replays, sorted */
	size_t ngraph;
	/* correlation ids of the kernels launched with cuLaunchKernelEx/cudaLaunchKernelExC, sorted: kept
	 * past the launch table for the same-stream check (programmatic dependent launch) */
	int64_t *ex_corr;
	size_t nex;
	long graph_missing, graph_missing_tail, graph_mismatch, graph_kernels_typical;
	int64_t graph_ns;
	long graph_kernels;
	long missing[4],
	    missing_tail[4]; /* launches without activity per LK_* kind, interior and at the end */
	long launches[4];
	/* devices */
	long overlaps, duplicates, records, past_end;
	long pdl_overlaps; /* overlaps of a kernel launched with the Ex API over its predecessor's tail */
	int64_t overlap_ns, gpu_ns;
	long conc_steps, conc_of; /* the worst device: steps holding 90% of its GPU time, of its steps */
	int64_t conc_ns;
	/* ops' External ids (reading): a bitmap of the ids seen, words [id_base, id_base + nidw) */
	uint64_t *idw;
	size_t nidw;
	int64_t id_base;
	long id_ops;  /* ids noted */
	bool ids_off; /* the ids are too sparse (or the bitmap could not grow): not judged */
} split_quality_state;

#endif
