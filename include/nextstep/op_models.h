/* FLOP and byte models of the PyTorch ops a profiler trace records with record_shapes=True: what one op had
 * to compute and move, from its "Input Dims", "Input type" and "Concrete Inputs" (the formulas and their
 * assumptions are in docs/roofline.md, "Ops in a trace"). Pure functions over the recorded text: nothing here
 * reads files or prints.
 *
 * Families are placed on different roofs: matrix multiplies, convolutions and attention by FLOPs and bytes
 * (the roofline), every other family by its bytes alone (the memory roof), since their arithmetic is never
 * what limits them. */
#ifndef NEXTSTEP_OP_MODELS_H
#define NEXTSTEP_OP_MODELS_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/op_models.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>

#include "nextstep/api.h"
#include "nextstep/devices.h"

NS_BEGIN_DECLS

/* Named limits on one op's recorded text (untrusted input). */
#define NS_OP_MAX_ARGS 64   /* arguments of one op; more is a malformed record */
#define NS_OP_MAX_RANK 8    /* dimensions of one tensor */
#define NS_OP_MAX_LIST 4096 /* tensors in one TensorList argument */

typedef enum {
	NS_OPF_NONE, /* not an op with a model */
	NS_OPF_GEMM,
	NS_OPF_CONV,
	NS_OPF_ATTENTION,
	NS_OPF_NORM,
	NS_OPF_SOFTMAX,
	NS_OPF_ELEMENTWISE,
	NS_OPF_REDUCTION,
	NS_OPF_EMBEDDING,
	NS_OPF_POOLING,
	NS_OPF_COPY,      /* copy_, to, cat, stack, index, gather, scatter */
	NS_OPF_OPTIMIZER, /* _foreach_* and the fused optimizer steps */
	NS_OPF_COUNT
} ns_op_family;

/* Which pass of the op the work is. */
typedef enum { NS_OPP_FWD, NS_OPP_BWD, NS_OPP_BWD_INPUT, NS_OPP_BWD_WEIGHT, NS_OPP_COUNT } ns_op_pass;

/* Why an op was not modelled. */
typedef enum {
	NS_OPG_NONE,       /* modelled */
	NS_OPG_UNKNOWN_OP, /* no model for this op */
	NS_OPG_NO_SHAPES,  /* no Input Dims: record_shapes was off */
	NS_OPG_BAD_SHAPES, /* Input Dims that do not describe this op */
	NS_OPG_NO_DTYPE,   /* no Input type, or a type whose size or roof is unknown */
	NS_OPG_INCOMPLETE, /* the shapes are there but a size the work depends on is not (stride, output size)
	                    */
	NS_OPG_COUNT
} ns_op_gap;

/* One op as the trace recorded it: raw JSON text, not NUL-terminated, NULL/0 when absent. */
typedef struct {
	const char *name;
	size_t name_len;
	const char *dims, *types, *concrete; /* args."Input Dims", "Input type", "Concrete Inputs" */
	size_t dims_len, types_len, concrete_len;
	/* The Input Dims of the autograd node with this op's Sequence number: the gradients of its outputs,
	 * so their shapes (a convolution's or pooling's output size when stride and padding are not
	 * recorded). */
	const char *grad_dims;
	size_t grad_dims_len;
	const char *grad_types; /* that node's Input type: the output gradients' types, as the outputs' */
	size_t grad_types_len;
	double flops; /* args.flops when recorded (with_flops=True), else < 0; used for matrix multiplies */
	bool force_dtype; /* --dtype: every tensor operand is taken to be of this type, whatever was recorded
	                   */
	ns_dtype dtype;
	/* The element type of the TensorList arguments, which "Input type" records only as "TensorList":
	 * known from the op's multi-tensor kernels (their functor's type), or has_list_dtype false. */
	bool has_list_dtype;
	ns_dtype list_dtype;
	/* The source list's type where the kernel converts (_foreach_copy_ across dtypes: CopyFunctor<dst,
	 * src>): it sizes the second TensorList argument, the first keeping list_dtype. */
	bool has_list_src_dtype;
	ns_dtype list_src_dtype;
} ns_op_record;

/* What one op computed and moved. */
typedef struct {
	ns_op_family family;
	ns_op_pass pass;
	ns_op_gap gap;   /* NS_OPG_NONE when the counts below are set */
	const char *why; /* static words for the gap, or for an assumption the counts rest on; NULL if none */
	bool has_dtype;  /* dtype is the operands' type with a roof (compute families need it) */
	ns_dtype dtype;
	char type_name[24];    /* the main operand's torch type as recorded ("float", "c10::BFloat16") */
	double flops;          /* compute families: the multiply-adds x 2; memory families: 0 */
	double bytes;          /* each operand read once, each result written once */
	double m, n, k, batch; /* matrix multiplies: the product's sizes */
	int allow_tf32; /* cuDNN convolutions: the recorded allow_tf32 (1, 0), or -1 when not recorded */
	bool fewer_multiplies; /* a convolution Winograd or FFT algorithms can do with fewer multiplies than
	                          counted: every kernel dimension larger than 1 */
	/* The counts are the least the recorded sizes allow (a size they depend on is not recorded): the
	 * time at the roof is then a lower bound and the headroom an upper bound; why says which size. */
	bool lower_bound;
	char shape[144]; /* the sizes that matter, for a reader: "32x64x56x56 k3x3 s1 -> 64" */
} ns_op_work;

/* The family of an op name (len bytes, not terminated), NS_OPF_NONE when no model knows it. Cheap: the trace
 * collector asks it for every CPU op. */
NS_STATIC_API ns_op_family ns_op_family_of(const char *name, size_t len);
/* Whether an autograd node of this name (a "...Backward" op) records the output gradient of an op whose model
 * needs its output size (convolution, pooling, fbgemm's table-batched lookup): worth keeping by Sequence
 * number. */
NS_STATIC_API bool ns_op_node_wanted(const char *name, size_t len);
/* Whether an op of this name is recorded without the Sequence number its node gets (fbgemm's table-batched
 * lookup, a C++ autograd function): its node's number is the thread's last one recorded before it. */
NS_STATIC_API bool ns_op_node_by_thread(const char *name, size_t len);
/* Counts one op. Ops that need a size their own record lacks (cuDNN's convolution backward_input and
 * backward_weight, recorded with the sizes as lists) take it from outer, the enclosing op of the same family
 * (the convolution backward that called them), or NULL. Never guesses: out->gap says what is missing. */
NS_STATIC_API void ns_op_model(const ns_op_record *op, const ns_op_record *outer, ns_op_work *out);

/* The most FLOPs per byte a matrix multiply of this operand dtype may do and still be memory-bound on every
 * device of the table (below each one's ridge point for that dtype: docs/trace.md, "GEMMs whose shapes make
 * them memory-bound"); 0 where no such bound is kept (fp64: some devices' fp64 ridge is below 1). */
NS_STATIC_API double ns_op_gemm_memory_intensity(ns_dtype d);
/* Whether op is a matrix multiply whose recorded shapes and types make it memory-bound on every device
 * (its FLOPs over its bytes at most ns_op_gemm_memory_intensity() of its dtype); *intensity gets that ratio
 * when it is. False for any other op and where the record does not say (no shapes, no type). */
NS_STATIC_API bool ns_op_gemm_memory_bound(const ns_op_record *op, double *intensity);
/* "gemm", "conv", "attention", "norm", ...; "?" out of range. */
NS_STATIC_API const char *ns_op_family_name(ns_op_family f);
/* Whether the family is placed by FLOPs and bytes (gemm, conv, attention) rather than by bytes alone. */
NS_STATIC_API bool ns_op_family_computes(ns_op_family f);
/* "fwd", "bwd", "bwd-input", "bwd-weight". */
NS_STATIC_API const char *ns_op_pass_name(ns_op_pass p);

NS_END_DECLS

#endif
