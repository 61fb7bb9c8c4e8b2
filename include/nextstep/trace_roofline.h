/* Ops on the roofline: every op of a trace that a model in op_models.h knows (matrix multiplies,
 * convolutions, attention, normalisation, element-wise, ...), placed against the device's roofs with the GPU
 * time of the kernels it launched, and summed by family.
 *
 * A kernel belongs to the CPU op with its External id; when no op has it (kernels without one, or ids from
 * another id space), to the op named by the External id of the runtime call with the kernel's correlation id,
 * or else to the innermost CPU op enclosing that call in time on the same thread. Kernels linked to no op are
 * counted with why.
 *
 * Feed every traceEvents element to ns_trace_roofline_event() (a ns_trace_event_fn;
 * ns_trace_roofline_tee_event() runs it after another callback, so the split and this share one pass), then
 * ns_trace_roofline_finish(). While reading it keeps 40 bytes per kernel, 48 per CPU op (its External id,
 * thread and times), 16 more per op without a model (its External id and name, interned), 40 per runtime call
 * with a correlation id, and 80 per op with a model; the text of names, Input Dims, Input type and Concrete
 * Inputs is interned, so each distinct text is kept once. */
#ifndef NEXTSTEP_TRACE_ROOFLINE_H
#define NEXTSTEP_TRACE_ROOFLINE_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/trace_roofline.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "nextstep/api.h"
#include "nextstep/devices.h"
#include "nextstep/error.h"
#include "nextstep/op_models.h"
#include "nextstep/roofline.h"
#include "nextstep/trace_read.h"
#include "nextstep/trace_report.h"

NS_BEGIN_DECLS

/* Longest Input Dims or Input type text kept for one op; longer text is kept as absent (not placed). */
#define NS_TROOF_MAX_TEXT 4096

typedef struct ns_trace_roofline ns_trace_roofline;

/* NULL on OOM. */
NS_STATIC_API ns_trace_roofline *ns_trace_roofline_new(void);
/* The ns_trace_event_fn: ctx is the ns_trace_roofline. */
NS_STATIC_API ns_status ns_trace_roofline_event(const ns_trace_event *ev, void *ctx, ns_error *err);
NS_STATIC_API void ns_trace_roofline_free(ns_trace_roofline *c);
/* The records (kernels, ops, spans, launches: 40-130 bytes each) an unasked placement may keep: about 100
 * MB, a trace of about 1 GB; past it the bounds are not worth the memory unasked, --roofline places them. */
#define NS_TROOF_UNASKED_RECORDS (2u << 20)
/* Collect only from a trace that records shapes, and within max_records (NS_TROOF_UNASKED_RECORDS as
 * `nextstep trace` places ops for the next steps' bounds unasked): the collector gives up (frees what it
 * kept, and keeps nothing more) when the trace's first CPU ops have no Input Dims (record_shapes was off) or
 * its records pass max_records. */
NS_STATIC_API void ns_trace_roofline_only_with_shapes(ns_trace_roofline *c, size_t max_records);
/* Whether the collector gave up (above): then there is nothing to finish. */
NS_STATIC_API bool ns_trace_roofline_gave_up(const ns_trace_roofline *c);
/* With only_with_shapes: whether a CPU op had Input Dims (false: the trace records no shapes, nothing can
 * be placed). */
NS_STATIC_API bool ns_trace_roofline_saw_shapes(const ns_trace_roofline *c);
/* The records kept (ops, kernels, their spans and launches): what finishing costs grows with them. */
NS_STATIC_API size_t ns_trace_roofline_records(const ns_trace_roofline *c);

/* Calls first(ev, first_ctx), then ns_trace_roofline_event(ev, roof). */
typedef struct {
	ns_trace_event_fn first;
	void *first_ctx;
	ns_trace_roofline *roof;
} ns_trace_roofline_tee;
NS_STATIC_API ns_status ns_trace_roofline_tee_event(const ns_trace_event *ev, void *ctx, ns_error *err);

typedef struct {
	const char *device; /* --device NAME, or NULL: the trace's deviceProperties name */
	bool has_dtype;     /* --dtype given: every op uses it */
	ns_dtype dtype;
	const ns_device_table *devices; /* the table to place on, loaded by the caller (overlays included);
	                                   NULL: no table, every device is unknown */
} ns_troof_options;

/* Why an op with GPU time was not placed. */
typedef enum {
	NS_TROOF_NO_SHAPES,  /* no Input Dims: record_shapes was off */
	NS_TROOF_NO_DTYPE,   /* Input type absent, or a type without a known size (or roof, for
	                     gemm/conv/attention) */
	NS_TROOF_UNKNOWN_OP, /* an op no model knows (op_models.h) */
	NS_TROOF_NO_PEAK,    /* the device lists no peak for a gemm/conv/attention op's dtype */
	NS_TROOF_BAD_DIMS,   /* Input Dims that do not describe the op */
	NS_TROOF_INCOMPLETE, /* shapes recorded but not a size the work needs (stride, padding: Concrete
	                      * Inputs)
	                      */
	NS_TROOF_REASON_COUNT
} ns_troof_reason;

/* Why a kernel could not be linked to a CPU op when no op has its External id. */
typedef enum {
	NS_TROOF_NO_LAUNCH,          /* no runtime call carries the kernel's correlation id */
	NS_TROOF_LAUNCH_OUTSIDE_OPS, /* its launch call is inside no CPU op on its thread */
	NS_TROOF_UNLINKED_COUNT
} ns_troof_unlinked;

/* Identical ops (name, Input Dims, Input type, Concrete Inputs) summed: FLOPs, bytes and GPU time over
 * `count` ops, and the time they would take at the roof: max(FLOPs / peak, bytes / bandwidth) for the
 * families that compute (gemm, conv, attention), bytes / bandwidth for the others. */
typedef struct {
	char *name, *dims; /* owned; dims is the raw Input Dims text */
	char *shape; /* owned; the sizes that matter, from the model ("256x4096x1024", "32x64x56x56 k3x3 ...")
	              */
	ns_op_family family;
	ns_op_pass pass;
	bool has_dtype; /* dtype has a roof; else type_name is all there is (bool, int64 copies) */
	ns_dtype dtype;
	char type_name[24]; /* the torch type as recorded */
	const char *note; /* the assumption the placement rests on, when it made one (static text), or NULL */
	bool lower_bound; /* the counts are the least the record allows: roof_ns and fraction are lower bounds
	                   */
	bool fewer_multiplies; /* a convolution Winograd/FFT algorithms may do with fewer multiplies than
	                          counted */
	bool simt; /* fp32 whose kernels' names say the CUDA cores (sgemm, ...): on the fp32 roof by them */
	long count;
	int64_t gpu_ns;
	double m, n, k, batch;   /* gemm: of one op */
	double flops, bytes;     /* sums (flops 0 for the families placed by bytes) */
	double roof_ns;          /* the time at the roof */
	double fraction;         /* roof_ns / gpu_ns: the share of the roof reached */
	ns_roofline_result roof; /* gemm/conv/attention: placed with the sums (intensity, achieved, regime) */
} ns_troof_row;

/* One op family over the whole trace. */
typedef struct {
	ns_op_family family;
	long ops;
	int64_t gpu_ns;
	double flops, bytes;
	double roof_ns;     /* the sum of its rows' time at the roof */
	double headroom_ns; /* the sum over its rows of GPU time - time at the roof, each at least 0 */
	int64_t bound_ns;   /* the GPU time of its rows counted as lower bounds (ns_troof_row.lower_bound) */
	double bound_roof_ns; /* their time at the roof (a lower bound) */
	/* fp32 (and fp64) ops of a computing family on a device with faster roofs: their GPU time, and the
	 * time they would take at the TF32 roof (same bytes) and at the 16-bit roof (bf16, else fp16: half
	 * the bytes); 0 when the device has no such roof. */
	int64_t fp32_ns;
	double fp32_roof_ns, tf32_roof_ns, half_roof_ns;
} ns_troof_family;

/* The split's compute and memory buckets as the op families fill them: gemm, conv and attention run the
 * device's arithmetic (compute), every other family moves bytes (memory), and so do the GEMM rows whose
 * shapes make them memory-bound on every device (ns_op_gemm_memory_bound), whose kernels the split counts as
 * memory: a family can then be named in both buckets. */
typedef enum { NS_TROOF_COMPUTE, NS_TROOF_MEMORY, NS_TROOF_BUCKET_COUNT } ns_troof_bucket_kind;

/* A bucket sums only the rows counted exactly: what a row counted as a lower bound could win is not known,
 * so its time is in bound_ns, like time not placed, and out of the next step's bound. */
typedef struct {
	int64_t gpu_ns;     /* the placed ops of the bucket's families, counted exactly */
	double roof_ns;     /* their time at the roof */
	double headroom_ns; /* its families' headroom: the most a faster kernel can win on these ops */
	/* The next step's bound (issue 21): each row's time at the roof the bucket's fix can reach, at most
	 * its GPU time: its own dtype's roof, or for fp32 (tf32, fp64) work of the computing families the
	 * device's 16-bit roof when it has one (the compute fix says "lower precision"); and the GPU time of
	 * that fp32 work. */
	double reach_ns;
	int64_t fp32_ns;
	/* The same with the 16-bit GEMMs at the device's fp8 roof (fp8 operands: half their bytes) when it
	 * has one above theirs: what fp8 matmuls reach where a better kernel no longer can (next_step.h,
	 * ns_roof_time.fp8_roof_ns); and the GPU time of those GEMMs (0: no fp8 roof or no such GEMM). */
	double fp8_reach_ns;
	int64_t fp8_ns;
	int64_t unplaced_ns; /* ops of the bucket's families that could not be placed (no shapes, no dtype,
	                        ...) */
	int64_t bound_ns;    /* ops of its families placed by lower bounds: not in the sums above */
	ns_op_family families[NS_OPF_COUNT]; /* the bucket's families, most GPU time first */
	size_t nfamilies;
	/* By family, its exact rows in this bucket: their GPU time and time at the roof (a family in both
	 * buckets has a share of the roof in each: ns_troof_bucket_fraction) */
	int64_t family_gpu_ns[NS_OPF_COUNT];
	double family_roof_ns[NS_OPF_COUNT];
} ns_troof_bucket;

/* The result. Owns everything; free with ns_troof_report_free(). */
typedef struct {
	/* The collector found no op shapes to place (record_shapes was off): nothing is placed, and each
	 * kernel class's bound says so (ns_troof_roof_times). Set by the analysis that placed unasked, not by
	 * ns_trace_roofline_finish(). */
	bool no_shapes;
	bool device_known;
	char device[NS_TRACE_DEVICE_NAME_MAX];          /* the table's name, when known */
	char ns_trace_device[NS_TRACE_DEVICE_NAME_MAX]; /* deviceProperties name of the busiest GPU ("" if
	                                                   none) */
	bool from_option;                               /* the device came from --device */
	bool has_tf32;       /* the device has a tf32 roof (fp32 ops may have used it) */
	double mem_bw;       /* the device's bytes/s */
	ns_dtype half_dtype; /* the device's 16-bit roof: bf16, else fp16 */
	ns_troof_row *rows;  /* largest GPU time first */
	size_t nrows;
	ns_troof_family families[NS_OPF_COUNT]; /* indexed by family; largest GPU time first in `order` */
	ns_op_family order[NS_OPF_COUNT];
	size_t nfamilies; /* families with placed ops */
	ns_troof_bucket buckets[NS_TROOF_BUCKET_COUNT];
	long kernels;    /* kernels carrying an External id or a correlation id */
	int64_t comm_ns; /* of those, the collectives' time (NCCL/RCCL): not placed, not in ops_ns */
	long ops;        /* ops with GPU time of their own (collectives left out) */
	int64_t ops_ns;  /* their GPU time */
	long placed;     /* ops placed */
	int64_t placed_ns;
	int64_t bound_ns; /* of placed_ns, the ops counted as lower bounds (a size their work depends on was
	                     not recorded: their fraction of the roof is a lower bound) */
	long unplaced[NS_TROOF_REASON_COUNT];
	int64_t unplaced_ns[NS_TROOF_REASON_COUNT];
	/* The unplaced op names with the most GPU time (owned), each with its reason, for the report. */
	struct {
		char *name;
		ns_troof_reason reason;
		const char
		    *why; /* static: the model's words for what is missing (NULL: the reason says it) */
		long ops;
		int64_t gpu_ns;
	} unplaced_top[5];
	size_t nunplaced_top;
	long linked_by_launch; /* kernels whose op was found through their launch call */
	long unlinked[NS_TROOF_UNLINKED_COUNT];
	int64_t unlinked_ns[NS_TROOF_UNLINKED_COUNT];
} ns_troof_report;

/* A family's share of its roof over its rows counted exactly (lower bounds left out), 0 when it has none. */
NS_STATIC_API double ns_troof_family_exact_fraction(const ns_troof_family *f);
/* Family f's time at the roof over its GPU time among bucket b's exact rows; 0 when it has none there. */
NS_STATIC_API double ns_troof_bucket_fraction(const ns_troof_bucket *b, ns_op_family f);

/* The share of the ops' GPU time that was placed, 0..1 (0 without ops). */
NS_STATIC_API double ns_troof_placed_share(const ns_troof_report *r);

/* The next step's input from a placement (issue 21, docs/next-step.md "Roofline"): for device d of res,
 * out[NS_KCLASS_COMPUTE] from the compute bucket and out[NS_KCLASS_MEMORY] from the memory bucket, their
 * kernel time the split's (transfers left out of memory), their families and headroom; out[NS_KCLASS_COMM] is
 * never placed. The placement sums every device's kernels, so with several devices, an unknown device or no
 * op placed, a class is NS_ROOF_NONE with the reason. */
NS_STATIC_API void ns_troof_roof_times(const ns_troof_report *r, const ns_split_result *res,
                                       const ns_split_device *d, ns_roof_time out[NS_KCLASS_COUNT]);
/* ns_report_options.roof for a placement: ctx is an ns_troof_roof_ctx. Always true. */
typedef struct {
	const ns_troof_report *report;
	const ns_split_result *res;
} ns_troof_roof_ctx;
NS_STATIC_API bool ns_troof_roof(void *ctx, const ns_split_device *d, ns_roof_time *out);

/* Links kernels to ops and places them on the devices of table (loaded by the caller). Fails only on OOM (an
 * unknown device is a report with device_known = false). meta may be NULL. The collector can only be freed
 * afterwards. */
NS_STATIC_API ns_status ns_trace_roofline_finish(ns_trace_roofline *c, const ns_trace_meta *meta,
                                                 const ns_troof_options *o, ns_troof_report *out,
                                                 ns_error *err);
NS_STATIC_API void ns_troof_report_free(ns_troof_report *r);

/* Words for a reason: "no shapes (record_shapes=True)", "unknown dtype", "unknown op", ... */
NS_STATIC_API const char *ns_troof_reason_text(ns_troof_reason r);
/* The text section (top rows, then the ops that could not be placed); hints as in ns_report_options. */
NS_STATIC_API void ns_troof_report_print(FILE *out, const ns_troof_report *r, size_t top,
                                         const char *const *hints);
/* The "roofline" member for the trace JSON; caller frees with cJSON_Delete(). NULL on OOM. */
NS_STATIC_API cJSON *ns_troof_report_json(const ns_troof_report *r, size_t top);

/* The trace report with this section: text after the device reports, JSON as a "roofline" member of the
 * document; quiet output has no section. Errors as ns_report_print(). */
NS_STATIC_API ns_status ns_troof_print_with_report(FILE *out, const ns_split_result *res,
                                                   const ns_report_options *o, const ns_troof_report *r,
                                                   ns_error *err);

NS_END_DECLS

#endif
