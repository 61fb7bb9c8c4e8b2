/* The families placed by their bytes alone: element-wise ops and activations, normalisation, softmax,
 * reductions, embedding lookups, pooling, copies and the optimizer's multi-tensor ops. Each reads its tensor
 * operands once and writes its results once (the ideal a fused kernel reaches); docs/roofline.md gives each
 * rule. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "trace/ops/op_private.h"

/* The first argument that is a tensor (or a list of them) of a known type. */
static int first_typed(const op_args *a)
{
	for (int i = 0; i < a->n; i++)
		if (a->a[i].kind != OPA_NONE && a->a[i].elt > 0.0)
			return i;
	return -1;
}

/* The first argument that is a tensor or list, typed or not. */
static int first_operand(const op_args *a)
{
	for (int i = 0; i < a->n; i++)
		if (a->a[i].kind != OPA_NONE)
			return i;
	return -1;
}

/* Bytes of every tensor operand but those in skip (a bit per argument). An operand of unknown type is read
 * at the size of `elt`. */
static double read_bytes(const op_args *a, unsigned long long skip, double elt)
{
	double b = 0.0;

	for (int i = 0; i < a->n; i++) {
		const op_arg *x = &a->a[i];
		if (x->kind == OPA_NONE || (i < 64 && (skip >> i & 1)))
			continue;
		b += x->numel * (x->elt > 0.0 ? x->elt : elt);
	}
	return b;
}

/* The broadcast shape of the tensor operands (of the first list, for the multi-tensor ops): its elements,
 * or -1 when the shapes do not broadcast. */
static double broadcast_numel(const op_args *a)
{
	double d[NS_OP_MAX_RANK];
	int rank = 0;

	for (int i = 0; i < a->n; i++)
		if (a->a[i].kind == OPA_LIST)
			return a->a[i].numel;
	for (int i = 0; i < a->n; i++) {
		const op_arg *x = &a->a[i];
		if (x->kind != OPA_TENSOR)
			continue;
		for (int j = 1; j <= x->rank; j++) {
			double v = x->d[x->rank - j];
			if (j > rank) {
				d[NS_OP_MAX_RANK - j] = v;
				continue;
			}
			double *cur = &d[NS_OP_MAX_RANK - j];
			if (*cur != v && *cur != 1.0 && v != 1.0)
				return -1.0;
			if (*cur == 1.0)
				*cur = v;
		}
		if (x->rank > rank)
			rank = x->rank;
	}
	double n = 1.0;
	for (int j = 1; j <= rank; j++)
		n *= d[NS_OP_MAX_RANK - j];
	return n;
}

/* The element size of the largest operand: what an element-wise result is written in. */
static double largest_elt(const op_args *a, double fallback)
{
	double best = -1.0, elt = fallback;

	for (int i = 0; i < a->n; i++)
		if (a->a[i].kind != OPA_NONE && a->a[i].elt > 0.0 && a->a[i].numel > best)
			best = a->a[i].numel, elt = a->a[i].elt;
	return elt;
}

static double written_bytes(const op_args *a, unsigned mask, double elt)
{
	double b = 0.0;

	for (int i = 0; i < a->n && i < 32; i++)
		if (mask >> i & 1 && a->a[i].kind != OPA_NONE)
			b += a->a[i].numel * (a->a[i].elt > 0.0 ? a->a[i].elt : elt);
	return b;
}

/* Pooling's output size from kernel, stride (empty: the kernel), padding, dilation and ceil_mode. */
static bool pool_output(const op_args *a, bool avg, const op_arg *in, op_arg *out)
{
	long long k[NS_OP_MAX_RANK], s[NS_OP_MAX_RANK], p[NS_OP_MAX_RANK], d[NS_OP_MAX_RANK];
	int sp = in->rank - 2, nk, ns, np, nd = 0;
	bool ceil_mode = false;

	if (sp < 1 || !op_arg_ints(a, 1, k, NS_OP_MAX_RANK, &nk) ||
	    !op_arg_ints(a, 3, p, NS_OP_MAX_RANK, &np))
		return false;
	if (!op_arg_ints(a, 2, s, NS_OP_MAX_RANK, &ns) && !op_arg_is(a, 2, "[]"))
		return false;
	if (op_arg_is(a, 2, "[]"))
		memcpy(s, k, sizeof(s)), ns = nk;
	if (avg || !op_arg_ints(a, 4, d, NS_OP_MAX_RANK, &nd))
		for (int i = 0; i < NS_OP_MAX_RANK; i++)
			d[i] = 1;
	op_arg_bool(a, avg ? 4 : 5, &ceil_mode);
	*out = *in;
	for (int i = 0; i < sp; i++) {
		long long ki = k[nk == 1 ? 0 : i], si = s[ns == 1 ? 0 : i], pi = p[np == 1 ? 0 : i],
		          di = d[nd == 1   ? 0
		                 : nd == 0 ? 0
		                           : i];
		double span, o;
		if ((nk != 1 && nk != sp) || (ns != 1 && ns != sp) || (np != 1 && np != sp) || si < 1 ||
		    di < 1 || ki < 1 || pi < 0)
			return false;
		span = in->d[i + 2] + 2.0 * (double)pi - (double)di * (double)(ki - 1) - 1.0;
		o = (ceil_mode ? ceil(span / (double)si) : floor(span / (double)si)) + 1.0;
		if (ceil_mode && (o - 1.0) * (double)si >= in->d[i + 2] + (double)pi)
			o -= 1.0; /* the last window must start inside the input or its left padding */
		if (!(o >= 1.0))
			return false;
		out->d[i + 2] = o;
	}
	out->numel = op_shape_product(out, 0);
	return true;
}

static const char *pool_forward(const op_entry *e, const op_args *a, const ns_op_record *op, op_arg *out)
{
	const op_arg *in = op_tensor(a, 0);
	long long size[NS_OP_MAX_RANK];
	int n;

	if (in == NULL || in->rank < 3)
		return "input is not an N-d tensor";
	if (e->kind == MK_ADAPTIVE_POOL && op_arg_ints(a, 1, size, NS_OP_MAX_RANK, &n) && n == in->rank - 2) {
		*out = *in;
		for (int i = 0; i < n; i++)
			out->d[i + 2] = (double)size[i];
		out->numel = op_shape_product(out, 0);
		return NULL;
	}
	if (e->kind == MK_POOL && pool_output(a, e->writes == 2, in, out))
		return NULL;
	if (op->grad_dims != NULL && op_args_first_shape(op->grad_dims, op->grad_dims_len, out) &&
	    out->rank == in->rank && out->d[0] == in->d[0] && out->d[1] == in->d[1]) {
		out->elt = in->elt;
		return NULL;
	}
	return "stride and padding not recorded (Concrete Inputs), and no autograd node gives the output "
	       "size";
}

static void shape_of(const op_arg *x, ns_op_work *w)
{
	size_t n = 0;

	w->shape[0] = '\0';
	if (x->kind == OPA_LIST) {
		snprintf(w->shape, sizeof(w->shape), "%d tensors, %.0f elements", x->count, x->numel);
		return;
	}
	for (int i = 0; i < x->rank && n < sizeof(w->shape); i++)
		n +=
		    (size_t)snprintf(w->shape + n, sizeof(w->shape) - n, "%s%.0f", i > 0 ? "x" : "", x->d[i]);
	if (x->rank == 0)
		snprintf(w->shape, sizeof(w->shape), "scalar");
}

/* Elements a gather-like op picks: index_select's whole rows, gather's one per index, index's rows of the
 * leading dimensions its index tensors cover. */
static const char *picked(const op_entry *e, const op_args *a, double *out)
{
	const op_arg *self = op_tensor(a, 0);
	long long dim;
	int n;

	if (self == NULL)
		return "no input tensor";
	if (e->kind == MK_INDEX) {
		const op_arg *idx = a->n > 1 && a->a[1].kind == OPA_LIST ? &a->a[1] : NULL;
		if (idx == NULL || idx->count > self->rank)
			return "index tensors not recorded";
		*out = op_shape_product(idx, 0) * op_shape_product(self, idx->count);
		return NULL;
	}
	const op_arg *index = op_tensor(a, 2);
	if (index == NULL)
		return "no index tensor";
	if (strcmp(e->name, "aten::gather") == 0) {
		*out = index->numel;
		return NULL;
	}
	if (self->rank == 1) /* the only dimension, whatever was passed (0 or -1) */
		dim = 0;
	else if (!op_arg_ints(a, 1, &dim, 1, &n) || dim < -self->rank || dim >= self->rank || self->rank == 0)
		return "the dimension is not recorded (Concrete Inputs)";
	if (dim < 0)
		dim += self->rank;
	*out = self->d[dim] > 0 ? self->numel / self->d[dim] * index->numel : 0.0;
	return NULL;
}

/* fbgemm's rowwise fp8: each row of cols elements becomes ceil4(cols) bytes and a float scale and bias
 * (8 bytes), and back: the output's element size from output_dtype (SparseType: 0 FP32, 1 FP16, 5 BF16),
 * FP32 when the op was called without it. */
static const char *rowwise(const op_entry *e, const op_args *a, double *out)
{
	const op_arg *in = op_tensor(a, 0);
	long long type;
	double rows, cols, elt = 4.0;
	int n;

	if (in == NULL || in->rank < 1)
		return "input is not a tensor";
	cols = in->d[in->rank - 1];
	rows = cols > 0.0 ? in->numel / cols : 0.0;
	if (e->kind == MK_ROWWISE_QUANT) {
		*out = rows * (ceil(cols / 4.0) * 4.0 + 8.0);
		return NULL;
	}
	if (a->n > 2) {
		if (!op_arg_ints(a, 2, &type, 1, &n))
			return "output_dtype not recorded (Concrete Inputs)";
		if (type != 0 && type != 1 && type != 5)
			return "output_dtype is not FP32, FP16 or BF16";
		elt = type == 0 ? 4.0 : 2.0;
	}
	if (cols < 8.0)
		return "rows shorter than their scale and bias";
	*out = rows * (ceil(cols / 4.0) * 4.0 - 8.0) * elt;
	return NULL;
}

/* permute_2D_sparse_data / permute_sparse_features: lengths [T, B] and indices (and weights) permuted into
 * new tensors. A permutation of P entries over T features writes P x B lengths; the indices it writes are
 * the input's when P = T, else permuted_lengths_sum (argument 4) when recorded. */
static const char *permuted(const op_args *a, double *out)
{
	const op_arg *perm = op_tensor(a, 0), *len = op_tensor(a, 1), *idx = op_tensor(a, 2);
	const op_arg *wts = op_tensor(a, 3);
	long long sum;
	double nidx;
	int n;

	if (perm == NULL || len == NULL || idx == NULL || perm->rank != 1 || len->rank != 2 ||
	    !(len->elt > 0.0) || !(idx->elt > 0.0))
		return "permute, lengths [T, B] and indices not recorded as such";
	if (perm->d[0] == len->d[0])
		nidx = idx->numel;
	else if (op_arg_ints(a, 4, &sum, 1, &n) && sum >= 0)
		nidx = (double)sum;
	else
		return "features repeated or dropped, and permuted_lengths_sum not recorded";
	*out = perm->d[0] * len->d[1] * len->elt + nidx * (idx->elt + (wts != NULL ? wts->elt : 0.0));
	return NULL;
}

/* Argument positions of fbgemm's table-batched lookup, split_embedding_codegen_lookup_<optimizer>_function:
 * the V1 schema, the same from 2021 to today for these (the optimizer's own arguments and output_dtype come
 * after them, at positions that depend on the optimizer). */
enum {
	TBE_DEV_WEIGHTS = 1,
	TBE_UVM_WEIGHTS = 2,
	TBE_CACHE_WEIGHTS = 3,
	TBE_PLACEMENTS = 4, /* [T] */
	TBE_WEIGHTS_OFFSETS = 5,
	TBE_D_OFFSETS = 6, /* [T + 1] */
	TBE_TOTAL_D = 7,
	TBE_MAX_D = 8,
	TBE_INDICES = 11,
	TBE_OFFSETS = 12, /* [bags + 1]: T x B + 1, or the sum of the tables' batches (variable batch) */
	TBE_POOLING = 13, /* PoolingMode: 0 SUM, 1 MEAN, 2 NONE (one output row a lookup) */
	TBE_INDICE_WEIGHTS = 14,
	TBE_CACHE_LOCATIONS = 16,
	TBE_ARGS = 17
};

/* The narrowest table width the record allows: total_D - (T - 1) max_D when both are known (every other
 * table at most max_D wide), total_D itself for one table, at least 1; a lookup without pooling has one
 * width, max_D. total: total_D from the autograd node (its output gradient's width), else 0. *exact: every
 * table is that wide. */
static double tbe_min_width(const op_args *a, double tables, bool nobag, double total, bool *exact)
{
	long long rec_total, max;
	int n;

	*exact = false;
	if (total <= 0.0 && op_arg_ints(a, TBE_TOTAL_D, &rec_total, 1, &n) && rec_total >= 1)
		total = (double)rec_total;
	if (!nobag && tables == 1.0 && total >= 1.0) {
		*exact = true;
		return total;
	}
	if (!op_arg_ints(a, TBE_MAX_D, &max, 1, &n) || max < 1)
		return 1.0;
	*exact = nobag || total == tables * (double)max;
	if (nobag)
		return (double)max;
	if (total < 1.0)
		return 1.0;
	return fmax(1.0, total - (tables - 1.0) * (double)max);
}

/* The lookup's pooled output [B, total_D] from its autograd node's output gradient (the same shape and type):
 * B x T must be the bags and each table at least one wide. False when the node is absent or does not fit. */
static bool tbe_node_output(const ns_op_record *op, double tables, double bags, op_arg *out)
{
	return op->grad_dims != NULL &&
	       op_args_first_typed(op->grad_dims, op->grad_dims_len, op->grad_types, op->grad_types_len,
	                           out) &&
	       out->rank == 2 && out->d[0] * tables == bags && out->d[1] >= tables;
}

/* The weights' element size: the narrowest of the device, UVM and cache copies that hold rows (a lookup
 * reads its row from one of them). -1 when none does. */
static int tbe_weights(const op_args *a)
{
	int best = -1;

	for (int i = TBE_DEV_WEIGHTS; i <= TBE_CACHE_WEIGHTS; i++) {
		const op_arg *x = &a->a[i];
		if (x->kind == OPA_TENSOR && x->numel > 0.0 && x->elt > 0.0 &&
		    (best < 0 || x->elt < a->a[best].elt))
			best = i;
	}
	return best;
}

/* A table-batched embedding lookup (forward). Its exact traffic depends on each table's width (D_offsets)
 * and on which table each lookup hits (offsets): tensor values no trace records. What is recorded bounds it
 * from below: the indices, offsets (and per-lookup weights, cache locations, table metadata) read; each of
 * the L lookups reads a row at least as wide as the narrowest table; each of the bags (each lookup, without
 * pooling) writes an output row as wide, at least one byte an element (output_dtype, which may be INT8,
 * sits at a position that depends on the optimizer). */
static const char *tbe_forward(const op_args *a, const ns_op_record *op, ns_op_work *w)
{
	const op_arg *place = op_tensor(a, TBE_PLACEMENTS), *doff = op_tensor(a, TBE_D_OFFSETS);
	const op_arg *idx = op_tensor(a, TBE_INDICES), *off = op_tensor(a, TBE_OFFSETS);
	double tables, bags, lookups, width, rows, out_bytes;
	long long mode = -1;
	int wt, n;
	bool exact, node;
	op_arg g;

	if (op->name_len > 4 && memcmp(op->name + op->name_len - 4, "_pt2", 4) == 0)
		return "table-batched embedding: the pt2 lookup's arguments are not modelled";
	if (a->n < TBE_ARGS || place == NULL || doff == NULL || idx == NULL || off == NULL ||
	    place->rank != 1 || doff->rank != 1 || idx->rank != 1 || off->rank != 1 || place->d[0] < 1.0 ||
	    doff->d[0] != place->d[0] + 1.0 || off->d[0] < 1.0 || !(idx->elt > 0.0) || !(off->elt > 0.0))
		return "table-batched embedding: the arguments are not fbgemm's lookup signature";
	if ((wt = tbe_weights(a)) < 0)
		return "table-batched embedding: no weights of a known type recorded";
	if (!op_work_type(w, a, wt))
		return NULL;
	tables = place->d[0];
	bags = off->d[0] - 1.0;
	lookups = idx->numel;
	if (op_arg_ints(a, TBE_POOLING, &mode, 1, &n) && (mode < 0 || mode > 2))
		mode = -1;
	/* a pooled lookup's node gives its output, [B, total_D] in the output's type, exactly */
	node = mode != 2 && tbe_node_output(op, tables, bags, &g);
	width = tbe_min_width(a, tables, mode == 2, node ? g.d[1] : 0.0, &exact);
	rows = mode == 2 ? lookups : mode >= 0 ? bags : fmin(bags, lookups);
	out_bytes = node ? g.numel * (g.elt > 0.0 ? g.elt : 1.0) : rows * width;
	w->bytes = op_arg_bytes(a, TBE_PLACEMENTS) + op_arg_bytes(a, TBE_WEIGHTS_OFFSETS) +
	           op_arg_bytes(a, TBE_D_OFFSETS) + op_arg_bytes(a, TBE_INDICES) +
	           op_arg_bytes(a, TBE_OFFSETS) + op_arg_bytes(a, TBE_INDICE_WEIGHTS) +
	           op_arg_bytes(a, TBE_CACHE_LOCATIONS) + lookups * width * a->a[wt].elt + out_bytes;
	w->lower_bound = !(exact && node && g.elt > 0.0);
	if (!w->lower_bound)
		w->why = NULL;
	else if (node)
		w->why = width > 1.0
		             ? "table-batched embedding: the output from its autograd node, each lookup "
		               "counted at the narrowest table width total_D and max_D allow: a lower bound"
		             : "table-batched embedding: the output from its autograd node, each lookup "
		               "counted at one element (table widths not recorded): a lower bound";
	else
		w->why =
		    width > 1.0
		        ? "table-batched embedding: each lookup counted at the narrowest width total_D and "
		          "max_D allow, the output at a byte an element: a lower bound"
		        : "table-batched embedding: table widths not recorded (total_D, max_D): each lookup "
		          "counted at one element, the output at a byte an element: a lower bound";
	snprintf(w->shape, sizeof(w->shape), "%.0f tables, %.0f ids in %.0f bags", tables, lookups, bags);
	return NULL;
}

void op_model_memory(const op_entry *e, const op_args *a, const ns_op_record *op, ns_op_work *w)
{
	int t = first_typed(a), first = first_operand(a);
	double elt, out = 0.0, n;
	const char *why = NULL;
	op_arg o;

	if (e->kind == MK_TBE && e->pass == NS_OPP_FWD) {
		if ((why = tbe_forward(a, op, w)) != NULL)
			op_work_fail(w, NS_OPG_INCOMPLETE, why);
		return;
	}
	if (e->kind == MK_TBE) {
		/* The autograd node records only the output gradient [B, total_D]: which rows the lookups
		 * update, and how many lookups there were, is not recorded, and a bag without lookups reads
		 * none of its gradient, so nothing bounds the traffic from below. */
		op_work_fail(
		    w, NS_OPG_INCOMPLETE,
		    "table-batched embedding backward: its node records only the output gradient, not "
		    "the lookups whose rows it updates");
		return;
	}
	if (first < 0) {
		op_work_fail(w, NS_OPG_INCOMPLETE, "no tensor sizes in Input Dims");
		return;
	}
	if (!op_work_type(w, a, t))
		return;
	elt = a->a[t].elt;
	shape_of(&a->a[first], w);
	switch (e->kind) {
	case MK_EW:
	case MK_EW_BOOL:
		if ((n = broadcast_numel(a)) < 0.0) {
			op_work_fail(w, NS_OPG_BAD_SHAPES, "operand shapes do not broadcast");
			return;
		}
		w->bytes = read_bytes(a, 0, elt) + n * (e->kind == MK_EW_BOOL ? 1.0 : largest_elt(a, elt));
		return;
	case MK_INPLACE:
		w->bytes = read_bytes(a, 0, elt) + written_bytes(a, e->writes, elt);
		return;
	case MK_FILL:
		w->bytes = written_bytes(a, 1u << first, elt);
		return;
	case MK_COPY: /* copy_(dst, src) */
		w->bytes = read_bytes(a, 1ull << first, elt) + written_bytes(a, 1u << first, elt);
		return;
	case MK_LIKE_FIRST:
	case MK_NORM:
		w->bytes =
		    read_bytes(a, 0, elt) + a->a[first].numel * (a->a[first].elt > 0 ? a->a[first].elt : elt);
		return;
	case MK_CAT:
		if (a->a[first].kind != OPA_LIST) {
			op_work_fail(w, NS_OPG_INCOMPLETE, "the list's tensor sizes are not recorded");
			return;
		}
		w->bytes = 2.0 * a->a[first].numel * elt;
		return;
	case MK_REDUCE: /* the result is not counted: a reduction's output is its input over the reduced size
	                 */
		w->bytes = read_bytes(a, 0, elt);
		return;
	case MK_EMBEDDING: {
		const op_arg *table = op_tensor(a, 0), *idx = op_tensor(a, 1);
		if (table == NULL || idx == NULL || table->rank != 2) {
			op_work_fail(w, NS_OPG_BAD_SHAPES,
			             "embedding weight is not [rows, dim] with indices");
			return;
		}
		/* the indices, the rows they pick, and the result: as many elements again */
		w->bytes = op_arg_bytes(a, 1) + 2.0 * idx->numel * table->d[1] * table->elt;
		shape_of(idx, w);
		return;
	}
	case MK_EMBEDDING_BWD: {
		const op_arg *grad = op_tensor(a, 0);
		long long rows;
		int k;
		if (grad == NULL || grad->rank < 1) {
			op_work_fail(w, NS_OPG_BAD_SHAPES, "no output gradient");
			return;
		}
		/* dY and the indices read; the weight gradient written whole (rows x dim) when its row count
		 * is recorded, else as many rows as dY has (the rows the lookup touched, at most) */
		out = op_arg_ints(a, 2, &rows, 1, &k) && rows > 0 ? (double)rows * grad->d[grad->rank - 1]
		                                                  : grad->numel;
		w->bytes = op_arg_bytes(a, 0) + op_arg_bytes(a, 1) + out * grad->elt;
		return;
	}
	case MK_GATHER:
	case MK_INDEX:
		if ((why = picked(e, a, &out)) != NULL) {
			op_work_fail(w, NS_OPG_INCOMPLETE, why);
			return;
		}
		/* the indices, the elements picked, and the result */
		w->bytes = read_bytes(a, 1ull << first, elt) + 2.0 * out * elt;
		return;
	case MK_SCATTER: /* the index and the source read, as many elements of self written */
		w->bytes = read_bytes(a, 1ull << first, elt);
		for (int i = first + 1; i < a->n; i++)
			if (a->a[i].kind != OPA_NONE && a->a[i].numel > out && a->a[i].elt == a->a[first].elt)
				out = a->a[i].numel;
		if (out == 0.0 && a->n > 2 && a->a[2].kind != OPA_NONE) /* a scalar source: one per index */
			out = a->a[2].numel;
		w->bytes += out * elt;
		return;
	case MK_POOL:
	case MK_ADAPTIVE_POOL:
		if ((why = pool_forward(e, a, op, &o)) != NULL) {
			op_work_fail(w, NS_OPG_INCOMPLETE, why);
			return;
		}
		/* input read, output written (and its int64 argmax indices for max pooling) */
		w->bytes = op_arg_bytes(a, 0) + o.numel * elt + (e->writes == 1 ? o.numel * 8.0 : 0.0);
		return;
	case MK_POOL_BWD: { /* dY (and indices) read, dX the input's size written; the input itself unread */
		const op_arg *in = op_tensor(a, 1);
		if (in == NULL) {
			op_work_fail(w, NS_OPG_BAD_SHAPES, "no input tensor");
			return;
		}
		w->bytes = read_bytes(a, 1ull << 1, elt) + in->numel * elt;
		return;
	}
	case MK_CONVERT:
		w->bytes = op_arg_bytes(a, first) + a->a[first].numel * (double)e->writes;
		return;
	case MK_ROWWISE_QUANT:
	case MK_ROWWISE_DEQUANT:
		if ((why = rowwise(e, a, &out)) != NULL) {
			op_work_fail(w, NS_OPG_INCOMPLETE, why);
			return;
		}
		w->bytes = op_arg_bytes(a, 0) + out;
		return;
	case MK_PERMUTE_SPARSE:
		if ((why = permuted(a, &out)) != NULL) {
			op_work_fail(w, NS_OPG_INCOMPLETE, why);
			return;
		}
		w->bytes = read_bytes(a, 0, elt) + out;
		shape_of(&a->a[1], w);
		return;
	default:
		op_work_fail(w, NS_OPG_UNKNOWN_OP, "no memory model for this op");
		return;
	}
}
