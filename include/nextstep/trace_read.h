/* The trace reader: one streaming pass over a Chrome-trace/Kineto JSON document (plain or gzip), handing
 * each element of traceEvents to a callback as a small flat record. No DOM, no per-event allocation:
 * string fields point into the reader's buffer and are valid only during the callback. */
#ifndef NEXTSTEP_TRACE_READ_H
#define NEXTSTEP_TRACE_READ_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/trace_read.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nextstep/api.h"
#include "nextstep/error.h"
#include "nextstep/input.h"

NS_BEGIN_DECLS

/* Named limits on untrusted input. */
#define NS_TRACE_MAX_DEPTH       64          /* nesting of objects/arrays */
#define NS_TRACE_MAX_STRING      (16u << 20) /* one string token, bytes */
#define NS_TRACE_MAX_DEVICES     64
#define NS_TRACE_DEVICE_NAME_MAX 128

typedef struct {
	const char *ptr; /* not NUL-terminated; JSON escapes left as written */
	size_t len;
} ns_str;

/* Categories as written map to one value through the table in trace_categories.h: cpu_op/Operator,
 * cuda_runtime/Runtime (also cuda_driver and other accelerators' runtimes), kernel/Kernel (also
 * mtia_ccp_events), gpu_memcpy/Memcpy, gpu_memset/Memset. */
typedef enum {
	NS_TCAT_OTHER,
	NS_TCAT_CPU_OP,
	NS_TCAT_USER_ANNOTATION,
	NS_TCAT_GPU_USER_ANNOTATION,
	NS_TCAT_RUNTIME,
	NS_TCAT_KERNEL,
	NS_TCAT_MEMCPY,
	NS_TCAT_MEMSET,
	NS_TCAT_FLOW,   /* ac2g and other flow categories */
	NS_TCAT_PYTHON, /* python_function; also an Nsight Systems OS runtime call (cat_raw
	                 * NS_TRACE_CAT_OS_RUNTIME)
	                 */
	NS_TCAT_COUNT
} ns_trace_category;

/* The cat_raw of the frames the Nsight Systems reader makes of OS runtime calls (OSRT_API): frames like
 * python_function's, but recorded by nsys at no cost to the Python thread. */
#define NS_TRACE_CAT_OS_RUNTIME "os_runtime"
/* The category of a CPU sample's frame (its innermost function, for the time to its thread's next sample). */
#define NS_TRACE_CAT_CPU_SAMPLE "cpu_sample"

typedef struct {
	long index;       /* position in traceEvents, 0-based */
	long long offset; /* byte offset of the event's '{' in the decompressed document */
	ns_trace_category cat;
	ns_str cat_raw; /* the category as written */
	char ph;        /* 'X', 'B', 'E', 'i', 's', 'f', 'M', ... ; 0 when absent */
	ns_str name;
	int64_t pid, tid; /* numeric as given; a string id is mapped to a stable hash with bit 62 set */
	bool has_ts, has_dur;
	int64_t ts_ns; /* µs in the file, exact to the nanosecond (three decimals kept) */
	int64_t dur_ns;
	/* args, -1 / <0 / empty when absent */
	int64_t device;
	int64_t stream;
	int64_t correlation;
	int64_t external_id;
	double flops;
	ns_str input_dims;      /* raw JSON text of args."Input Dims" */
	ns_str input_types;     /* raw JSON text of args."Input type" */
	ns_str concrete_inputs; /* raw JSON text of args."Concrete Inputs" (scalars as strings, PyTorch
	                           >= 2.1) */
	int64_t seq_number; /* args."Sequence number": an op and its autograd node share it (-1: absent) */
	/* Collective metadata the PyTorch profiler records on record_param_comms and on NCCL kernels (absent:
	 * empty / -1; a number that is not a plain non-negative integer is left absent, never an error). */
	ns_str coll_name; /* args."Collective name" ("allreduce", ...) */
	ns_str coll_pg;   /* args."Process Group Name" */
	/* args."Process Group Description": "default_pg", DeviceMesh's "mesh_<dim name>" ("mesh_tp"),
	 * Megatron's "TENSOR_MODEL_PARALLEL_GROUP", "DATA_PARALLEL_GROUP", ... (PyTorch >= 2.4) */
	ns_str coll_pg_desc;
	ns_str coll_dtype; /* args."dtype" */
	int64_t coll_seq;  /* args."Seq" */
	int64_t coll_in;   /* args."In msg nelems" */
	int64_t coll_out;  /* args."Out msg nelems" */
	/* Metadata events (ph "M"): the name thread_name and process_name give (args."name"), and the place
	 * thread_sort_index gives (args."sort_index", a whole number; has_sort_index false when absent). */
	ns_str meta_name;
	bool has_sort_index;
	int64_t sort_index;
	/* profile_memory's "[memory]" instant events (absent, or not a plain integer: INT64_MIN, never an
	 * error) */
	int64_t mem_bytes;     /* args."Bytes": the size allocated (> 0) or freed (< 0) */
	int64_t mem_allocated; /* args."Total Allocated": the allocator's total after it (newer profilers) */
	int64_t mem_reserved;  /* args."Total Reserved": what the caching allocator holds from the device */
	int64_t mem_device_type; /* args."Device Type": 0 the CPU, 1 CUDA (c10::DeviceType) */
	int64_t mem_device_id;   /* args."Device Id": the device index, -1 for the CPU */
} ns_trace_event;

typedef struct {
	int64_t id;
	char name[NS_TRACE_DEVICE_NAME_MAX];
	int64_t total_mem; /* totalGlobalMem, bytes; 0 when absent */
} ns_trace_device;

/* What an Nsight Systems export says of the profiled program, so that the report words host time by what
 * the export shows rather than as Python (docs/nsys.md, "Python or not"). */
typedef enum {
	NS_PROGRAM_UNKNOWN, /* nothing says: no process name, no PyTorch range */
	NS_PROGRAM_PYTHON,  /* PyTorch's NVTX ranges or threads, or a python process */
	NS_PROGRAM_NATIVE   /* a named process that is not Python and no PyTorch range: C, C++, Fortran */
} ns_program_kind;

typedef enum {
	NS_PROGRAM_BY_NONE,
	NS_PROGRAM_BY_NVTX,    /* emit_nvtx's op ranges (a sequence number, aten::) or ProfilerStep# */
	NS_PROGRAM_BY_PROCESS, /* the GPU process's name (PROCESSES.name): python*, pypy*, pt_main_thread */
	NS_PROGRAM_BY_THREAD   /* a thread PyTorch's Python module names (pt_main_thread) */
} ns_program_evidence;

typedef struct {
	char process[64]; /* the name of the process whose GPU work the export holds; "" when not recorded */
	ns_program_kind kind;
	ns_program_evidence by;
	bool osrt;         /* OS runtime calls traced (OSRT_API has rows: nsys profile -t osrt) */
	bool cpu_samples;  /* CPU samples recorded (COMPOSITE_EVENTS has rows) */
	bool samples_read; /* ... and read: their call chains exported (SAMPLING_CALLCHAINS), each sample's
	                      innermost function a frame of its thread (NS_TRACE_CAT_CPU_SAMPLE) */
	bool mpi;          /* MPI calls traced (NVTX ranges MPI_*: nsys profile -t mpi) */
} ns_program_info;

/* Top-level facts outside traceEvents (they may come before or after it in the file). */
typedef struct {
	bool has_rank;
	int64_t rank, world_size;
	ns_trace_device devices[NS_TRACE_MAX_DEVICES];
	size_t ndevices;
	long events; /* elements seen in traceEvents (an export: events handed on) */
	/* An Nsight Systems export (nsys_read.h) rather than Kineto JSON, and its EXPORT_SCHEMA_VERSION (""
	 * when it records none): what the report says the capture lacks depends on it. */
	bool nsys;
	char nsys_schema[32];
	ns_program_info program; /* an export's: what it says of the profiled program */
	long long bytes;         /* decompressed bytes read */
	bool compressed;
	/* The document ended early (plain JSON cut, or a gzip stream that stops): a capture cut off by a
	 * killed job or a full disk. ns_trace_read() still fails, with err saying where; the events before
	 * the cut were handed to the callback, so a caller may report what was read. truncated_at is the
	 * decompressed byte where the input ended; in_events: the cut fell inside traceEvents (events after
	 * it are lost), else after it (only top-level members that follow traceEvents are lost). */
	bool truncated;
	bool truncated_in_events;
	long long truncated_at;
} ns_trace_meta;

/* Return NS_OK to go on; anything else stops the read and is returned (set err yourself; an offset and
 * index left at -1 are filled with the event's). */
typedef ns_status (*ns_trace_event_fn)(const ns_trace_event *ev, void *ctx, ns_error *err);

/* Reads the whole document from in (gzip detected by magic bytes), calling fn for each traceEvents element:
 * of a JSON object (Kineto and Chrome's JSON Object Format) or of a top-level array of events (the JSON
 * Array Format of the legacy autograd profiler and other Chrome-trace writers, whose closing ']' may be
 * missing).
 * Malformed input, a missing traceEvents, truncation and limit breaches are errors with err->offset set
 * (and err->index when inside an event).
 * The reader does not judge meaning: an event without ts (normal for ph "M") has has_ts=false, an X event
 * without dur has has_dur=false, and the consumer decides. ts/dur that are not numbers, and a negative dur,
 * are errors. Absent pid/tid are -1. Unknown keys and values are skipped, but must be valid JSON.
 * Device names are copied as written (escapes kept), truncated to fit; meta->world_size is 0 when absent.
 * One event (or one top-level value other than traceEvents) must fit in 2 * NS_TRACE_MAX_STRING + 1 MiB; the
 * window grows to that only for such an event, otherwise memory stays at a few MiB whatever the file size. */
NS_STATIC_API ns_status ns_trace_read(ns_input *in, ns_trace_event_fn fn, void *ctx, ns_trace_meta *meta,
                                      ns_error *err);

NS_END_DECLS

#endif
