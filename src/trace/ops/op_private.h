/* The op models' table and the model functions it names. Private to src/trace/op_*.c. */
#ifndef NEXTSTEP_OP_PRIVATE_H
#define NEXTSTEP_OP_PRIVATE_H

#include "nextstep/op_models.h"
#include "trace/ops/op_args.h"

/* How a model reads one op's arguments. */
typedef enum {
	/* matrix multiplies */
	MK_MM,         /* a, b */
	MK_ADDMM,      /* c, a, b (c read) */
	MK_LINEAR,     /* x, W (out, in), bias */
	MK_SCALED_MM,  /* a, b, scale_a, scale_b, bias, scale_result, out_dtype */
	MK_GROUPED_MM, /* a, b, offs, bias, out_dtype */
	/* convolutions: the positions of their arguments are in the entry */
	MK_CONV,
	MK_CONV_BWD,        /* input, grad_output and weight all recorded: both passes */
	MK_CONV_BWD_INPUT,  /* input_size, grad_output, weight */
	MK_CONV_BWD_WEIGHT, /* weight_size, grad_output, input */
	/* attention */
	MK_ATTN,
	/* memory-bound ops */
	MK_EW,         /* reads its tensors, writes one of their broadcast shape */
	MK_EW_BOOL,    /* the same, writing bool (comparisons) */
	MK_INPLACE,    /* reads its tensors, writes the ones in `writes` */
	MK_FILL,       /* writes its first tensor, reads nothing */
	MK_COPY,       /* copy_(dst, src): reads src, writes dst */
	MK_LIKE_FIRST, /* reads its tensors, writes one the size of the first (its type: the first's) */
	MK_CAT,        /* reads a list, writes as much */
	MK_REDUCE, /* reads its first tensor; the result is small (not counted unless its dims are recorded)
	            */
	MK_NORM,   /* reads its tensors, writes the first's size (+ gradients of the weight, bias) */
	MK_EMBEDDING,     /* weight, indices */
	MK_EMBEDDING_BWD, /* grad_output, indices, num_weights */
	MK_GATHER,        /* self, dim, index: reads index and as many elements of self, writes them */
	MK_INDEX,         /* self, [indices]: rows of self picked by one index tensor */
	MK_SCATTER,       /* self, dim, index, src (in place): reads index and src, writes as many of self */
	MK_POOL,          /* input; output from stride/padding or the autograd node */
	MK_ADAPTIVE_POOL, /* input, output_size */
	MK_POOL_BWD,      /* grad_output, input, ... : reads its tensors, writes the input's size */
	/* fbgemm (DLRM-style jobs) */
	MK_CONVERT,         /* reads its first tensor, writes as many elements of `writes` bytes each */
	MK_ROWWISE_QUANT,   /* [.., cols] -> uint8 [.., ceil4(cols) + 8]: a float scale and bias a row */
	MK_ROWWISE_DEQUANT, /* uint8 [.., cols] -> [.., cols - 8] in output_dtype (argument 2) */
	MK_PERMUTE_SPARSE,  /* permute, lengths [T, B], indices, weights?, permuted_lengths_sum? */
	MK_TBE,             /* a table-batched embedding lookup: the rows it reads are not recorded */
} op_model_kind;

/* Argument positions of a convolution spelling (-1: not an argument of it). */
typedef struct {
	signed char input, grad, weight, stride, padding, dilation, transposed, output_padding, groups, mask;
	signed char allow_tf32;
} conv_layout;

/* Argument positions of an attention spelling. */
/* ATTN_PAGED: vLLM's decode kernels, a query row a sequence against a paged KV cache (q: the query, k/v: the
 * caches, cum_q: the block tables, max_k: max_seq_len). */
/* ATTN_VARLEN_PAGED: vLLM's FlashAttention varlen_fwd, whose key and value are the paged cache [blocks, page,
 * Hkv, d] when its block table (`table`) is a tensor, else packed as ATTN_VARLEN's. */
typedef enum { ATTN_BHLD, ATTN_BLHD, ATTN_VARLEN, ATTN_PAGED, ATTN_VARLEN_PAGED } attn_layout;
typedef struct {
	attn_layout layout;
	bool backward;
	signed char q, k, v, causal, cum_q, cum_k, mask_type;
	signed char max_q, max_k;   /* the longest sequence's length (max_seqlen_q/k), an int argument */
	signed char win_l, win_r;   /* window_size_left/right, ints (-1 in the op: no bound on that side) */
	signed char table;          /* the page table: when a tensor, key and value are a paged cache */
	signed char used_q, used_k; /* seqused_q/k: tensors of the lengths used, which a trace never keeps */
	signed char chunk;          /* attention_chunk (FlashAttention-3), an int */
	bool fp8_out_16;            /* an fp8 query writes a 16-bit output (FlashAttention-3's e4m3 path) */
	signed char qv;      /* q_v, MLA's second query [.., H, dv] scored against V (FlashAttention-3) */
	signed char out;     /* the output when passed in: its recorded type is the one written */
	signed char descale; /* the first of q/k/v_descale, three fp8 scale tensors [B, Hkv] */
	bool o_scale_shift;  /* a newer build adds o_scale before softmax_scale: the flags sit one later */
} attn_spec;

typedef struct {
	const char *name;
	ns_op_family family;
	op_model_kind kind;
	ns_op_pass pass;
	unsigned writes; /* MK_INPLACE: a bit per argument written */
	const conv_layout *conv;
	const attn_spec *attn;
} op_entry;

/* The entry of a name, NULL when none. */
const op_entry *op_entry_of(const char *name, size_t len);

void op_model_gemm(const op_entry *e, const op_args *a, const ns_op_record *op, ns_op_work *w);
void op_model_conv(const op_entry *e, const op_args *a, const ns_op_record *op, const ns_op_record *outer,
                   ns_op_work *w);
void op_model_attention(const op_entry *e, const op_args *a, ns_op_work *w);
void op_model_memory(const op_entry *e, const op_args *a, const ns_op_record *op, ns_op_work *w);

/* Shared helpers. */
void op_work_fail(ns_op_work *w, ns_op_gap gap, const char *why);
/* The dtype with a roof and the type name of argument i into w; false (and w->gap NO_DTYPE) when its type
 * has no size. */
bool op_work_type(ns_op_work *w, const op_args *a, int i);
/* A product of a shape's dimensions from index `from`. */
double op_shape_product(const op_arg *t, int from);

#endif
