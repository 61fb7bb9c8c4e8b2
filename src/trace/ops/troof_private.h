/* The op roofline collector's records, shared by its reading and linking (trace_roofline.c), placing
 * (troof_place.c) and printing (troof_print.c). Private to src/trace. */
#ifndef NEXTSTEP_TROOF_PRIVATE_H
#define NEXTSTEP_TROOF_PRIVATE_H

#include <stdint.h>

#include "nextstep/trace_roofline.h"
#include "util/hindex.h"

/* Interned text: id 0 is the empty text; others index `refs`. */
typedef struct {
	size_t off, len;
} text_ref;

typedef struct {
	char *text;
	size_t ntext, cap_text;
	text_ref *refs; /* refs[0] is the empty text */
	size_t nrefs, cap_refs;
	ns_hindex index;
} text_pool;

/* An op some model knows (or one that carries flops): its texts and where it ran. */
typedef struct {
	int64_t ext, seq; /* seq -1 when absent */
	int64_t pid, tid, start, end;
	double flops;
	uint32_t name, dims, types, concrete; /* pool ids */
} op_rec;

/* Any other op: its External id and name. */
typedef struct {
	int64_t ext;
	uint32_t name;
} other_op;

/* An autograd node whose Input Dims are the output gradients of the forward op with its Sequence number. */
typedef struct {
	int64_t seq;
	uint32_t dims, types; /* the gradients' shapes and types */
	bool lookup;          /* a table-batched lookup's node: only that lookup reads it */
} node_rec;

/* What a kernel's name says of an fp32 matmul's or convolution's math: TF32 on the tensor cores (cuBLAS and
 * cuDNN xmma "..._tf32f32_...", CUTLASS "tensorop_s1688gemm", "...tf32gemm") or fp32 on the CUDA cores
 * (SIMT: "ampere_sgemm_*", "implicit_convolve_sgemm", "*_scudnn_*", cuDNN's "dgrad_engine<float",
 * "wgrad_alg0_engine<float", xmma "gemm_f32f32_f32f32"); most names say neither. */
typedef enum { TROOF_MATH_UNSAID, TROOF_MATH_SIMT, TROOF_MATH_TENSOR } troof_math;

typedef struct {
	int64_t ext, corr, ns, device; /* ext -1 when absent or linked to nothing */
	bool comm;                     /* a collective (NCCL/RCCL): the network bounds it, not a roof */
	signed char list_dtype; /* a multi-tensor kernel's element type (ns_dtype), the one record of the type
	                           of an op's TensorLists; -1 for any other kernel */
	signed char
	    list_src_dtype; /* a converting copy's source list type (CopyFunctor<dst, src>), else -1 */
	signed char math;   /* troof_math: what its name says of the math an fp32 op's kernel does */
} kernel_rec;

/* What a kernel's name says (the kernel_rec fields taken from it), looked up once a distinct name. */
typedef struct {
	bool known; /* looked up */
	bool comm;
	signed char list_dtype, list_src_dtype, math;
} kernel_facts;

/* Where and when a CPU op ran, to find the op that encloses a launch call. */
typedef struct {
	int64_t ext, pid, tid, start, end;
} op_span;

/* A runtime call that carries a correlation id: the call that launched the kernel with that id. */
typedef struct {
	int64_t corr, ext, pid, tid, ts;
} launch_rec;

struct ns_trace_roofline {
	op_rec *ops;
	size_t nops, cap_ops;
	other_op *other_ops;
	size_t nother, cap_other;
	node_rec *nodes;
	size_t nnodes, cap_nodes;
	kernel_rec *kernels;
	size_t nkernels, cap_kernels;
	op_span *spans;
	size_t nspans, cap_spans;
	launch_rec *launches;
	size_t nlaunches, cap_launches;
	text_pool pool;
	unsigned char *name_family; /* by pool id: 1 + the family of an op name seen, 0 not yet looked up */
	size_t cap_family;
	kernel_facts *kernel_facts; /* by pool id: what a kernel name says, once looked up */
	size_t cap_facts;
	bool oom; /* the pool could not grow */
	/* ns_trace_roofline_only_with_shapes(): whether a CPU op had Input Dims, the CPU ops seen before one
	 * without them, and whether the collector gave up (it keeps nothing). */
	bool need_shapes;
	size_t max_records;
	bool saw_shapes;
	bool gave_up;
	uint32_t ops_without_dims;
};

/* The text of a pool id (not terminated) and its length. */
static inline const char *pool_text(const text_pool *p, uint32_t id, size_t *len)
{
	*len = p->refs[id].len;
	return *len > 0 ? p->text + p->refs[id].off : "";
}

/* Places the ops with GPU time (kernels already linked and sorted by External id; ops and other_ops sorted
 * by External id) on dev and fills the report's rows, families and buckets. */
ns_status troof_place(ns_trace_roofline *c, const ns_device *dev, const ns_troof_options *o,
                      ns_troof_report *r, ns_error *err);

#endif
