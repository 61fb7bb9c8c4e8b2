/* The families placed by FLOPs and bytes: matrix multiplies, convolutions, attention. Each count is the
 * textbook one (2 FLOPs per multiply-add) with ideal reuse (each operand read once, each result written
 * once); docs/roofline.md derives each formula. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "trace/ops/op_private.h"

/* ---- matrix multiplies ---- */

/* A (..., M, K) times B (..., K, N) with broadcast batch dimensions, as torch.matmul defines it; a 1-D
 * operand is a row or a column. NULL on success, else why the shapes are not a matmul. */
static const char *matmul_dims(op_arg a, op_arg b, ns_op_work *w)
{
	double batch = 1.0;

	if (a.rank == 0 || b.rank == 0)
		return "an operand has no shape";
	if (a.rank == 1) {
		a.d[1] = a.d[0];
		a.d[0] = 1.0;
		a.rank = 2;
	}
	if (b.rank == 1) {
		b.d[1] = 1.0;
		b.rank = 2;
	}
	if (a.d[a.rank - 1] != b.d[b.rank - 2])
		return "inner dimensions differ";
	for (int i = 3; i <= a.rank || i <= b.rank; i++) {
		double da = i <= a.rank ? a.d[a.rank - i] : 1.0, db = i <= b.rank ? b.d[b.rank - i] : 1.0;
		if (da != db && da != 1.0 && db != 1.0)
			return "batch dimensions do not broadcast";
		batch *= fmax(da, db);
	}
	w->m = a.d[a.rank - 2];
	w->k = a.d[a.rank - 1];
	w->n = b.d[b.rank - 1];
	w->batch = batch;
	return NULL;
}

/* The size of a ScalarType code as "Concrete Inputs" records it (c10/core/ScalarType.h); 0 if unknown. */
static double scalar_type_size(long long code)
{
	switch (code) {
	case 5:  /* Half */
	case 15: /* BFloat16 */
		return 2.0;
	case 6: /* Float */
		return 4.0;
	case 23: /* Float8_e5m2 */
	case 24: /* Float8_e4m3fn */
	case 25: /* Float8_e5m2fnuz */
	case 26: /* Float8_e4m3fnuz */
		return 1.0;
	default:
		return 0.0;
	}
}

static double out_elt(const op_args *a, int i, double fallback)
{
	long long code;
	int n;

	if (op_arg_ints(a, i, &code, 1, &n) && scalar_type_size(code) > 0.0)
		return scalar_type_size(code);
	return fallback;
}

/* _grouped_mm: tokens [T, K] through G experts [G, K, N]; G batches [G, M, K] x [G, K, N]; or the weight
 * gradient [M, K_total] x [K_total, N] cut along K into the groups of offs, giving [G, M, N]. */
static const char *grouped_dims(const op_args *a, const op_arg *x, const op_arg *y, ns_op_work *w,
                                double *out)
{
	const op_arg *offs = op_tensor(a, 2);

	if (x->rank == 2 && y->rank == 3 && x->d[1] == y->d[1]) {
		w->m = x->d[0], w->k = x->d[1], w->n = y->d[2], w->batch = 1.0;
		*out = w->m * w->n;
		return NULL;
	}
	if (x->rank == 3 && y->rank == 3 && x->d[0] == y->d[0] && x->d[2] == y->d[1]) {
		w->batch = x->d[0], w->m = x->d[1], w->k = x->d[2], w->n = y->d[2];
		*out = w->batch * w->m * w->n;
		return NULL;
	}
	if (x->rank == 2 && y->rank == 2 && x->d[1] == y->d[0] && offs != NULL && offs->numel > 0) {
		w->m = x->d[0], w->k = x->d[1], w->n = y->d[1], w->batch = 1.0;
		*out = offs->numel * w->m * w->n;
		return NULL;
	}
	return "grouped matmul shapes not understood";
}

void op_model_gemm(const op_entry *e, const op_args *a, const ns_op_record *op, ns_op_work *w)
{
	int ia = 0, ib = 1, ie = -1;
	const op_arg *x, *y;
	op_arg b;
	const char *why;
	double out_elements, elt_out;

	if (e->kind == MK_ADDMM)
		ie = 0, ia = 1, ib = 2;
	else if (e->kind == MK_LINEAR)
		ie = 2;
	else if (e->kind == MK_SCALED_MM)
		ie = 4;
	x = op_tensor(a, ia);
	y = op_tensor(a, ib);
	if (x == NULL || y == NULL) {
		op_work_fail(w, NS_OPG_BAD_SHAPES, "Input Dims has too few operands");
		return;
	}
	if (!op_work_type(w, a, ia))
		return;
	b = *y;
	if (e->kind == MK_LINEAR) { /* linear(x, W) is x W^T with W stored (out, in) */
		if (b.rank != 2) {
			op_work_fail(w, NS_OPG_BAD_SHAPES, "linear weight is not 2-D");
			return;
		}
		b.d[0] = y->d[1];
		b.d[1] = y->d[0];
	}
	if (e->kind == MK_GROUPED_MM) {
		why = grouped_dims(a, x, y, w, &out_elements);
	} else {
		why = matmul_dims(*x, b, w);
		out_elements = w->batch * w->m * w->n;
	}
	if (why != NULL) {
		op_work_fail(w, NS_OPG_BAD_SHAPES, why);
		return;
	}
	elt_out = e->kind == MK_SCALED_MM    ? out_elt(a, 6, x->elt)
	          : e->kind == MK_GROUPED_MM ? out_elt(a, 4, x->elt)
	                                     : x->elt;
	w->flops =
	    e->kind != MK_GROUPED_MM && op->flops >= 0.0 ? op->flops : 2.0 * w->batch * w->m * w->n * w->k;
	/* An absent bias is recorded as [] and reads nothing. */
	w->bytes = op_arg_bytes(a, ia) + y->numel * (y->elt > 0.0 ? y->elt : x->elt) + op_arg_bytes(a, ie) +
	           out_elements * elt_out;
	if (w->batch > 1.0)
		snprintf(w->shape, sizeof(w->shape), "%.0fx%.0fx%.0fx%.0f", w->batch, w->m, w->n, w->k);
	else
		snprintf(w->shape, sizeof(w->shape), "%.0fx%.0fx%.0f", w->m, w->n, w->k);
}

/* ---- convolutions ---- */

typedef struct {
	op_arg in, w, out; /* out: the output (forward) or the output gradient (backward) */
	bool transposed;
	double groups;
} conv_shapes;

static bool ints_or_default(const op_args *a, int i, long long *v, int rank, long long dflt, bool *given)
{
	int n;

	*given = false;
	for (int j = 0; j < rank; j++)
		v[j] = dflt;
	if (i < 0 || !op_arg_ints(a, i, v, NS_OP_MAX_RANK, &n))
		return true;
	if (n == 1) /* one value for every spatial dimension */
		for (int j = 1; j < rank; j++)
			v[j] = v[0];
	else if (n != rank)
		return false;
	*given = true;
	return true;
}

/* The output size from stride, padding, dilation (and output_padding when transposed), as the convolution
 * defines it; false when stride or padding is not recorded. */
static bool conv_output(const op_args *a, const conv_layout *l, conv_shapes *s)
{
	int sp = s->in.rank - 2;
	long long stride[NS_OP_MAX_RANK], pad[NS_OP_MAX_RANK], dil[NS_OP_MAX_RANK], opad[NS_OP_MAX_RANK];
	bool have_stride, have_pad, have, same = op_arg_is(a, l->padding, "same");

	if (!ints_or_default(a, l->stride, stride, sp, 1, &have_stride) || !have_stride ||
	    !ints_or_default(a, l->dilation, dil, sp, 1, &have) ||
	    !ints_or_default(a, l->output_padding, opad, sp, 0, &have))
		return false;
	if (op_arg_is(a, l->padding, "valid"))
		memset(pad, 0, sizeof(pad)), have_pad = true;
	else if (!ints_or_default(a, l->padding, pad, sp, 0, &have_pad))
		return false;
	if (!have_pad && !same)
		return false;
	s->out = s->in;
	s->out.d[1] = s->transposed ? s->w.d[1] * s->groups : s->w.d[0];
	for (int i = 0; i < sp; i++) {
		double in = s->in.d[i + 2], k = s->w.d[i + 2], o;
		if (stride[i] < 1 || dil[i] < 1 || pad[i] < 0)
			return false;
		if (same)
			o = in;
		else if (s->transposed)
			o = (in - 1) * (double)stride[i] - 2.0 * (double)pad[i] + (double)dil[i] * (k - 1) +
			    (double)opad[i] + 1;
		else
			o = floor((in + 2.0 * (double)pad[i] - (double)dil[i] * (k - 1) - 1) /
			          (double)stride[i]) +
			    1;
		if (!(o >= 1.0))
			return false;
		s->out.d[i + 2] = o;
	}
	s->out.numel = op_shape_product(&s->out, 0);
	return true;
}

/* Whether the channels agree with a regular (or transposed) convolution; sets groups. */
static bool conv_channels(conv_shapes *s, bool transposed, bool out_known)
{
	if (!transposed) {
		if (s->w.d[1] <= 0 || fmod(s->in.d[1], s->w.d[1]) != 0.0 ||
		    (out_known && s->out.d[1] != s->w.d[0]))
			return false;
		s->groups = s->in.d[1] / s->w.d[1];
		return true;
	}
	if (s->in.d[1] != s->w.d[0])
		return false;
	if (out_known) {
		if (s->w.d[1] <= 0 || fmod(s->out.d[1], s->w.d[1]) != 0.0)
			return false;
		s->groups = s->out.d[1] / s->w.d[1];
	}
	return true;
}

static bool same_rank_and_batch(const op_arg *x, const op_arg *y)
{
	return x->rank == y->rank && x->rank >= 3 && x->d[0] == y->d[0];
}

/* A size recorded as a list of ints (cuDNN's backward_input and backward_weight take the size they produce):
 * a tensor of that shape and of the type of `like`. */
static bool size_arg(const op_args *a, int i, const op_arg *like, op_arg *out)
{
	long long v[NS_OP_MAX_RANK];
	int n;

	if (!op_arg_ints(a, i, v, NS_OP_MAX_RANK, &n) || n < 3)
		return false;
	*out = *like;
	out->rank = n;
	for (int j = 0; j < n; j++) {
		if (v[j] < 0)
			return false;
		out->d[j] = (double)v[j];
	}
	out->numel = op_shape_product(out, 0);
	return true;
}

/* The input or weight tensor of the enclosing full backward op, when this op's own record lacks it. */
static bool outer_arg(const ns_op_record *outer, bool want_input, op_arg *out)
{
	const op_entry *e = outer != NULL ? op_entry_of(outer->name, outer->name_len) : NULL;
	op_args a;
	const op_arg *t;

	if (e == NULL || e->kind != MK_CONV_BWD || op_args_parse(outer, &a) != NS_OPG_NONE)
		return false;
	t = op_tensor(&a, want_input ? e->conv->input : e->conv->weight);
	if (t == NULL)
		return false;
	*out = *t;
	return true;
}

static const char *conv_forward(const conv_layout *l, const op_args *a, const ns_op_record *op,
                                conv_shapes *s)
{
	bool flag, out_known;

	s->transposed = l->transposed == -2 || (op_arg_bool(a, l->transposed, &flag) && flag);
	s->groups = 1.0;
	if (l->groups >= 0) {
		long long g;
		int n;
		if (op_arg_ints(a, l->groups, &g, 1, &n) && g >= 1)
			s->groups = (double)g;
	}
	out_known = conv_output(a, l, s);
	if (!out_known && op->grad_dims != NULL &&
	    op_args_first_shape(op->grad_dims, op->grad_dims_len, &s->out))
		out_known = same_rank_and_batch(&s->in, &s->out);
	if (!out_known)
		return "stride and padding not recorded (Concrete Inputs), and no autograd node gives the "
		       "output size";
	if (!conv_channels(s, s->transposed, true)) {
		/* The transposed flag is only an argument of some spellings: the channels tell. */
		if (l->transposed >= 0 && !op_arg_bool(a, l->transposed, &flag) &&
		    conv_channels(s, true, true))
			s->transposed = true;
		else
			return "channels do not match the weight";
	}
	return NULL;
}

static void conv_shape_text(const conv_shapes *s, ns_op_work *w)
{
	w->fewer_multiplies = s->w.rank > 2;
	for (int i = 2; i < s->w.rank; i++)
		w->fewer_multiplies = w->fewer_multiplies && s->w.d[i] > 1.0;
	char in[48] = "", k[32] = "", out[32] = "";
	size_t n = 0, m = 0, o = 0;

	for (int i = 0; i < s->in.rank && n < sizeof(in); i++)
		n += (size_t)snprintf(in + n, sizeof(in) - n, "%s%.0f", i > 0 ? "x" : "", s->in.d[i]);
	for (int i = 2; i < s->w.rank && m < sizeof(k); i++)
		m += (size_t)snprintf(k + m, sizeof(k) - m, "%s%.0f", i > 2 ? "x" : "", s->w.d[i]);
	for (int i = 1; i < s->out.rank && o < sizeof(out); i++)
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%.0f", i > 1 ? "x" : "", s->out.d[i]);
	snprintf(w->shape, sizeof(w->shape), "%s k%s -> %s%s%s", in, k, out,
	         s->transposed ? " transposed" : "", s->groups > 1.0 ? " grouped" : "");
}

/* 2 FLOPs per multiply-add: every output position of a regular convolution (every input position of a
 * transposed one) meets C/groups x kernel weights for each of its channels: 2 * N * positions * numel(W). */
static double conv_flops(const conv_shapes *s)
{
	const op_arg *positions = s->transposed ? &s->in : &s->out;

	return 2.0 * s->in.d[0] * op_shape_product(positions, 2) * s->w.numel;
}

static bool mask_bools(const op_args *a, int i, bool *m, int max, int *n)
{
	const op_arg *x = i >= 0 && i < a->n ? &a->a[i] : NULL;
	const char *p, *end;

	*n = 0;
	if (x == NULL || x->value == NULL)
		return false;
	for (p = x->value, end = p + x->value_len; p < end && *n < max; p++) {
		if (end - p >= 4 && memcmp(p, "True", 4) == 0)
			m[(*n)++] = true, p += 3;
		else if (end - p >= 5 && memcmp(p, "False", 5) == 0)
			m[(*n)++] = false, p += 4;
	}
	return *n >= 2;
}

static const char *conv_backward(const op_entry *e, const op_args *a, const ns_op_record *outer,
                                 conv_shapes *s, bool *dgrad, bool *wgrad)
{
	const conv_layout *l = e->conv;
	const op_arg *grad = op_tensor(a, l->grad), *in = op_tensor(a, l->input),
	             *wt = op_tensor(a, l->weight);
	bool mask[3], flag;
	int n;

	if (grad == NULL)
		return "no output gradient in Input Dims";
	s->out = *grad;
	if (in != NULL)
		s->in = *in;
	else if (!size_arg(a, l->input, grad, &s->in) && !outer_arg(outer, true, &s->in))
		return "the input size is not recorded (here or in the enclosing convolution backward)";
	if (wt != NULL)
		s->w = *wt;
	else if (!size_arg(a, l->weight, grad, &s->w) && !outer_arg(outer, false, &s->w))
		return "the weight size is not recorded (here or in the enclosing convolution backward)";
	if (!same_rank_and_batch(&s->in, &s->out) || s->w.rank != s->in.rank)
		return "input, weight and output gradient do not match";
	s->transposed = l->transposed == -2 || (op_arg_bool(a, l->transposed, &flag) && flag);
	if (!conv_channels(s, s->transposed, true))
		return "channels do not match the weight";
	*dgrad = e->kind != MK_CONV_BWD_WEIGHT;
	*wgrad = e->kind != MK_CONV_BWD_INPUT;
	if (e->kind == MK_CONV_BWD && mask_bools(a, l->mask, mask, 3, &n)) {
		*dgrad = mask[0];
		*wgrad = mask[1];
	}
	return NULL;
}

void op_model_conv(const op_entry *e, const op_args *a, const ns_op_record *op, const ns_op_record *outer,
                   ns_op_work *w)
{
	conv_shapes s;
	const char *why;
	bool dgrad = false, wgrad = false, flag;
	double flops, size;

	memset(&s, 0, sizeof(s));
	w->allow_tf32 = op_arg_bool(a, e->conv->allow_tf32, &flag) ? flag : -1;
	if (e->kind == MK_CONV) {
		const op_arg *in = op_tensor(a, e->conv->input), *wt = op_tensor(a, e->conv->weight);
		if (in == NULL || wt == NULL || in->rank < 3 || wt->rank != in->rank) {
			op_work_fail(w, NS_OPG_BAD_SHAPES,
			             "input and weight are not N-d tensors of one rank");
			return;
		}
		s.in = *in;
		s.w = *wt;
		if (!op_work_type(w, a, e->conv->input))
			return;
		if ((why = conv_forward(e->conv, a, op, &s)) != NULL) {
			op_work_fail(w, why[0] == 's' ? NS_OPG_INCOMPLETE : NS_OPG_BAD_SHAPES, why);
			return;
		}
		s.out.elt = s.in.elt;
		w->flops = conv_flops(&s);
		w->bytes = s.in.numel * s.in.elt + s.w.numel * (s.w.elt > 0 ? s.w.elt : s.in.elt) +
		           s.out.numel * s.out.elt;
		conv_shape_text(&s, w);
		return;
	}
	if (!op_work_type(w, a, e->conv->grad))
		return;
	if ((why = conv_backward(e, a, outer, &s, &dgrad, &wgrad)) != NULL) {
		op_work_fail(w, why[0] == 't' ? NS_OPG_INCOMPLETE : NS_OPG_BAD_SHAPES, why);
		return;
	}
	size = s.out.elt;
	flops = conv_flops(&s);
	/* The data gradient reads dY and W and writes dX; the weight gradient reads dY and X and writes dW.
	 */
	if (dgrad)
		w->flops += flops, w->bytes += (s.out.numel + s.w.numel + s.in.numel) * size;
	if (wgrad)
		w->flops += flops, w->bytes += (s.out.numel + s.in.numel + s.w.numel) * size;
	if (!dgrad && !wgrad) /* only the bias gradient: a sum over dY */
		w->flops = s.out.numel, w->bytes = s.out.numel * size;
	w->pass = dgrad && wgrad ? NS_OPP_BWD
	          : dgrad        ? NS_OPP_BWD_INPUT
	          : wgrad        ? NS_OPP_BWD_WEIGHT
	                         : NS_OPP_BWD;
	conv_shape_text(&s, w);
}

/* ---- attention ---- */

/* Query-key pairs a causal mask keeps: top-left alignment (SDPA's is_causal: row i sees keys 0..i) or
 * bottom-right (FlashAttention's: the last query sees every key). */
double op_causal_pairs(double lq, double lk, bool bottom_right);
double op_causal_pairs(double lq, double lk, bool bottom_right)
{
	double o = lk - lq;

	if (!bottom_right)
		return lq <= lk ? lq * (lq + 1) / 2 : lk * (lk + 1) / 2 + (lq - lk) * lk;
	return o >= 0 ? lq * (lq + 1) / 2 + o * lq : lk * (lk + 1) / 2;
}

/* The sum of clamp(a + i, 0, cap) over i = 0 .. n - 1, in closed form. */
static double clamped_ramp_sum(double a, double n, double cap)
{
	double lo = fmax(a, 1.0), hi = fmin(a + n - 1.0, cap), above = a + n - 1.0 - fmax(a, cap + 1.0) + 1.0;
	double sum = lo <= hi ? (lo + hi) * (hi - lo + 1.0) / 2.0 : 0.0;

	return sum + (above > 0.0 ? above * cap : 0.0);
}

/* Query-key pairs (i, j) of an lq x lk score matrix with j - i <= c: row i keeps clamp(i + c + 1, 0, lk). */
static double pairs_below_diagonal(double lq, double lk, double c)
{
	return clamped_ramp_sum(c + 1.0, lq, lk);
}

/* Query-key pairs a sliding window keeps, aligned bottom-right as FlashAttention aligns it: query i sits at
 * key position p = i + lk - lq and sees keys p - left .. p + right (a negative side is unbounded; causal is
 * right = 0). */
double op_window_pairs(double lq, double lk, double left, double right);
double op_window_pairs(double lq, double lk, double left, double right)
{
	double o = lk - lq;
	double upto = right < 0.0 ? lq * lk : pairs_below_diagonal(lq, lk, o + right);

	return left < 0.0 ? upto : upto - pairs_below_diagonal(lq, lk, o - left - 1.0);
}

typedef struct {
	double bh, hq, hk, lq, lk, d, dv, seqs;
	bool varlen;
	bool lengths_known; /* varlen: every sequence's length follows from what was recorded */
} attn_dims;

/* Whether the tokens of a variable-length batch are `seqs` sequences of equal length: one sequence, or the
 * recorded max_seqlen times the sequences is every token (no sequence can be shorter then). */
static bool lengths_equal(const op_args *a, int max_pos, double tokens, double seqs)
{
	long long max;
	int n;

	if (seqs == 1.0)
		return true;
	return op_arg_ints(a, max_pos, &max, 1, &n) && max > 0 && (double)max * seqs == tokens;
}

static const char *attn_shapes(const attn_spec *sp, const op_args *a, attn_dims *x)
{
	const op_arg *q = op_tensor(a, sp->q), *k = op_tensor(a, sp->k), *v = op_tensor(a, sp->v);
	const op_arg *cum = op_tensor(a, sp->cum_q);
	int r;

	if (q == NULL || k == NULL || v == NULL)
		return "query, key or value missing from Input Dims";
	r = q->rank;
	if (r < 3 || k->rank != r || v->rank != r)
		return "query, key and value are not tensors of one rank >= 3";
	x->varlen = sp->layout == ATTN_VARLEN || sp->layout == ATTN_VARLEN_PAGED ||
	            (sp->layout == ATTN_BLHD && r == 3 && cum != NULL);
	if (x->varlen) { /* [tokens, heads, dim] with cumulative lengths [seqs + 1] */
		if (r != 3 || cum == NULL || cum->rank != 1 || cum->d[0] < 2)
			return "variable-length attention without its cumulative lengths";
		x->seqs = cum->d[0] - 1;
		x->hq = q->d[1], x->hk = k->d[1];
		x->lq = q->d[0] / x->seqs, x->lk = k->d[0] / x->seqs;
		x->bh = x->seqs * x->hq;
		x->lengths_known = lengths_equal(a, sp->max_q, q->d[0], x->seqs) &&
		                   lengths_equal(a, sp->max_k, k->d[0], x->seqs);
	} else if (sp->layout == ATTN_BLHD) { /* [batch, length, heads, dim] */
		if (r != 4)
			return "query is not [batch, length, heads, dim]";
		x->hq = q->d[2], x->hk = k->d[2];
		x->lq = q->d[1], x->lk = k->d[1];
		x->bh = q->d[0] * x->hq;
	} else { /* [..., heads, length, dim] */
		x->hq = q->d[r - 3], x->hk = k->d[r - 3];
		x->lq = q->d[r - 2], x->lk = k->d[r - 2];
		x->bh = op_shape_product(q, 0) / (x->lq * q->d[r - 1]);
	}
	x->d = q->d[r - 1];
	x->dv = v->d[r - 1];
	if (k->d[r - 1] != x->d || x->hk <= 0 || x->hq <= 0 || fmod(x->hq, x->hk) != 0.0 || x->lq <= 0 ||
	    x->lk <= 0)
		return "query and key do not match (head size, or query heads not a multiple of key heads)";
	return NULL;
}

/* The argument positions of this record: vLLM's newer FlashAttention-3 registration adds o_scale (a tensor)
 * before softmax_scale, so is_causal and the window sit one later; is_causal, the one bool there, tells
 * which registration recorded it. */
static attn_spec attn_positions(const attn_spec *sp, const op_args *a)
{
	attn_spec s = *sp;
	bool flag;

	if (sp->o_scale_shift && !op_arg_bool(a, sp->causal, &flag) && op_arg_bool(a, sp->causal + 1, &flag))
		s.causal++, s.win_l++, s.win_r++;
	return s;
}

/* The bytes of an output element: the passed-in output's recorded type (an fp8 output with o_scale is one
 * byte), else FlashAttention-3's rule (an e4m3 query writes bf16), else the query's type. */
static double attn_out_elt(const attn_spec *sp, const op_args *a)
{
	const op_arg *o = op_tensor(a, sp->out), *q = &a->a[sp->q];

	if (o != NULL && o->elt > 0.0)
		return o->elt;
	return sp->fp8_out_16 && q->dtype == NS_DTYPE_FP8 ? 2.0 : q->elt;
}

/* FlashAttention-3's small inputs: the fp8 descale tensors q/k/v_descale [B, Hkv] (fp32) and, where the
 * registration has it, o_scale; 0 when none is recorded. */
static double attn_scale_bytes(const attn_spec *sp, const attn_spec *at, const op_args *a)
{
	double b = 0.0;

	if (sp->descale < 0)
		return 0.0;
	for (int i = 0; i < 3; i++)
		b += op_arg_bytes(a, sp->descale + i);
	if (at->causal != sp->causal) /* o_scale follows v_descale in the registration that has it */
		b += op_arg_bytes(a, sp->descale + 3);
	return b;
}

/* q_v (MLA): a second query [.., H, dv], same rows and type as the query, scored against V, so the scores
 * take d + dv multiply-adds a pair. False (w failed) when it is recorded with another shape. */
static bool attn_qv(const attn_spec *sp, const op_args *a, double dv, const op_arg **qv, ns_op_work *w)
{
	const op_arg *q = op_tensor(a, sp->q), *t = op_tensor(a, sp->qv);

	*qv = NULL;
	if (t == NULL || q == NULL)
		return true;
	if (t->rank != q->rank || t->d[t->rank - 1] != dv || t->numel / dv != q->numel / q->d[q->rank - 1]) {
		op_work_fail(w, NS_OPG_BAD_SHAPES,
		             "q_v is not the query's rows and heads with the value's size");
		return false;
	}
	*qv = t;
	return true;
}

/* A decode step of paged attention: each of S sequences has one query row [S, H, d] that reads its context of
 * L tokens from the caches (key [blocks, Hkv, d/x, block, x], value [blocks, Hkv, d, block]). The lengths are
 * a tensor (seq_lens) a trace does not record; with one sequence its length is the recorded max_seq_len. */
static void paged_attention(const attn_spec *sp, const op_args *a, ns_op_work *w)
{
	const op_arg *q = op_tensor(a, sp->q), *kc = op_tensor(a, sp->k), *vc = op_tensor(a, sp->v);
	long long len;
	int n;
	double seqs, heads, d, kv_heads, ctx;

	if (q == NULL || kc == NULL || vc == NULL || q->rank != 3 || vc->rank != 4 || vc->d[2] != q->d[2] ||
	    !(kc->elt > 0.0) || !(vc->elt > 0.0)) {
		op_work_fail(w, NS_OPG_BAD_SHAPES,
		             "query [seqs, heads, d] and value cache [blocks, kv heads, d, "
		             "block] not recorded as such");
		return;
	}
	seqs = q->d[0], heads = q->d[1], d = q->d[2], kv_heads = vc->d[1];
	if (!op_arg_ints(a, sp->max_k, &len, 1, &n) || len < 1) {
		op_work_fail(w, NS_OPG_INCOMPLETE, "max_seq_len not recorded (Concrete Inputs)");
		return;
	}
	/* The context tokens over the batch: one sequence's max_seq_len exactly; over several, their lengths
	 * (seq_lens) are a tensor the trace does not keep, and only the longest one's is known: a lower bound
	 * (the others may hold any number of tokens). */
	ctx = (double)len;
	if (seqs > 1.0) {
		w->lower_bound = true;
		w->why = "paged attention over several sequences: their lengths (seq_lens) are not recorded, "
		         "only the longest's KV read is counted (max_seq_len): a lower bound";
	}
	/* QK^T and PV for one query row a head over the context: 2 * H * L * (d + d) */
	w->flops = 4.0 * heads * ctx * d;
	/* the queries read and the outputs written, the context's keys and values read from the cache, and
	 * the block tables */
	w->bytes =
	    2.0 * q->numel * q->elt + ctx * kv_heads * d * (kc->elt + vc->elt) + op_arg_bytes(a, sp->cum_q);
	snprintf(w->shape, sizeof(w->shape), "decode seqs %.0f h%.0f/%.0f L%.0f d%.0f", seqs, heads, kv_heads,
	         ctx, d);
}

/* vLLM V1's varlen_fwd over its paged cache: S sequences (cu_seqlens_q [S + 1]) of query tokens [T, H, d]
 * against keys and values [blocks, page, Hkv, d] through the block table. The lengths are tensors; recorded
 * are the longest query run and context (max_seqlen_q, max_seqlen_k) and the sliding window. T may hold
 * padding (a batch padded to a captured size), so the queries are counted from the sequences: the longest
 * run has max_seqlen_q tokens and every other sequence at least one; each sequence's queries see at least one
 * key and the longest context's last query sees all of it (or its window): at least S - 1 + L pairs and that
 * one context's keys and values. Exact with one sequence, no window and the causal flag recorded
 * (bottom-right: its last query sees every key). */
static void varlen_paged(const attn_spec *sp, const op_args *a, ns_op_work *w)
{
	const op_arg *q = op_tensor(a, sp->q), *k = op_tensor(a, sp->k), *v = op_tensor(a, sp->v);
	const op_arg *cu = op_tensor(a, sp->cum_q), *qv;
	const attn_spec at = attn_positions(sp, a);
	long long max_k, max_q, longest, window = -1;
	double seqs, queries, heads, kv_heads, d, dv, ctx, pairs, qv_dv;
	bool causal = true, known, exact, windowed, have_q;
	int n;

	if (q == NULL || k == NULL || v == NULL || cu == NULL || q->rank != 3 || k->rank != 4 ||
	    v->rank != 4 || cu->rank != 1 || cu->d[0] < 2.0 || q->d[0] < cu->d[0] - 1.0 ||
	    k->d[3] != q->d[2] || k->d[2] != v->d[2] || k->d[2] < 1.0 || fmod(q->d[1], k->d[2]) != 0.0 ||
	    !(k->elt > 0.0) || !(v->elt > 0.0)) {
		op_work_fail(w, NS_OPG_BAD_SHAPES,
		             "query [tokens, heads, d] (a token a sequence at least), paged key and value "
		             "[blocks, page, kv heads, d] and cu_seqlens_q not recorded as such");
		return;
	}
	if (!op_arg_ints(a, sp->max_k, &max_k, 1, &n) || max_k < 1) {
		/* flash_attn_with_kvcache passes none: its cache lengths are only seqused_k's values */
		op_work_fail(
		    w, NS_OPG_INCOMPLETE,
		    "max_seqlen_k not recorded (Concrete Inputs) or not passed (flash_attn_with_kvcache): "
		    "the longest context is not known");
		return;
	}
	if (!attn_qv(sp, a, v->d[3], &qv, w))
		return;
	windowed = op_arg_ints(a, at.win_l, &window, 1, &n) && window >= 0 && window + 1 < max_k;
	if (windowed)
		max_k = window + 1; /* a query sees at most window_size_left + 1 keys */
	have_q = op_arg_ints(a, sp->max_q, &longest, 1, &n) && longest >= 1 && (double)longest <= q->d[0];
	max_q = have_q ? longest : 1;
	known = op_arg_bool(a, at.causal, &causal);
	seqs = cu->d[0] - 1.0, heads = q->d[1], d = q->d[2];
	kv_heads = k->d[2], dv = v->d[3], ctx = (double)max_k, qv_dv = qv != NULL ? dv : 0.0;
	queries = (double)max_q + seqs - 1.0;
	exact = seqs == 1.0 && !windowed && known && have_q && (double)max_q <= ctx;
	if (exact)
		pairs = causal ? op_causal_pairs((double)max_q, ctx, true) : (double)max_q * ctx;
	else
		pairs = seqs - 1.0 + ctx;
	/* QK^T (and q_v V^T) and PV over the pairs */
	w->flops = 2.0 * heads * pairs * (d + qv_dv + dv);
	/* the queries (and q_v) read and the outputs written, the context's keys and values, the block
	 * tables, the per-sequence lengths and the fp8 scales */
	w->bytes = queries * heads * ((d + qv_dv) * q->elt + dv * attn_out_elt(sp, a)) +
	           ctx * kv_heads * (d * k->elt + dv * v->elt) + op_arg_bytes(a, sp->table) +
	           op_arg_bytes(a, sp->cum_q) + op_arg_bytes(a, sp->used_k) + attn_scale_bytes(sp, &at, a);
	if (!exact) {
		w->lower_bound = true;
		w->why = "paged varlen attention: the sequences' lengths are not recorded, only the longest "
		         "context's keys and values and a key and a query token for every other sequence are "
		         "counted: a lower bound";
	}
	snprintf(w->shape, sizeof(w->shape), "seqs %.0f h%.0f/%.0f q%.0f L%.0f d%.0f paged%s", seqs, heads,
	         kv_heads, q->d[0], ctx, d, qv != NULL ? " qv" : "");
}

/* What the model cannot count from the recorded sizes: NULL, or why (w failed). seqused_q/k make each
 * sequence use fewer tokens than its tensor holds, by lengths the trace does not keep; attention_chunk
 * splits the keys into chunks no count here follows. */
static const char *attn_unmodelled(const attn_spec *sp, const op_args *a, ns_op_work *w)
{
	long long chunk;
	int n;
	const char *why = NULL;

	if (op_tensor(a, sp->used_q) != NULL || op_tensor(a, sp->used_k) != NULL) {
		why = "seqused_q/seqused_k: the lengths each sequence uses are a tensor the trace does not "
		      "record";
		op_work_fail(w, NS_OPG_INCOMPLETE, why);
	} else if (op_arg_ints(a, sp->chunk, &chunk, 1, &n) && chunk > 0) {
		why = "chunked attention (attention_chunk > 0) has no model";
		op_work_fail(w, NS_OPG_UNKNOWN_OP, why);
	}
	return why;
}

/* A sliding window from window_size_left/right (FlashAttention's convention: -1 unbounded; causal makes the
 * right side 0). False when the spelling has none, it is not recorded, or it bounds neither side. */
static bool attn_window(const attn_spec *sp, const op_args *a, bool causal, long long *left, long long *right)
{
	int n;

	if (sp->win_l < 0 || !op_arg_ints(a, sp->win_l, left, 1, &n) ||
	    !op_arg_ints(a, sp->win_r, right, 1, &n))
		return false;
	if (*left < 0)
		*left = -1;
	if (causal || *right < -1)
		*right = causal ? 0 : -1;
	return *left >= 0 || *right >= 0;
}

void op_model_attention(const op_entry *e, const op_args *a, ns_op_work *w)
{
	const attn_spec *sp = e->attn, at = attn_positions(sp, a);
	const op_arg *qv;
	attn_dims x;
	const char *why;
	bool causal = false, known = false, bottom_right = sp->layout != ATTN_BHLD, windowed;
	long long type, left = -1, right = -1;
	int n;
	double pairs, fwd, qkv, out, lse;
	char heads[48], window[48];

	memset(&x, 0, sizeof(x));
	if (!op_work_type(w, a, sp->q))
		return;
	if (sp->layout == ATTN_PAGED) {
		paged_attention(sp, a, w);
		return;
	}
	if (op_tensor(a, sp->table) != NULL) {
		if (op_tensor(a, sp->q) != NULL && op_tensor(a, sp->q)->rank == 4)
			op_work_fail(w, NS_OPG_INCOMPLETE,
			             "a paged KV cache read by [batch, length, heads, d] queries: the cache "
			             "lengths (seqused_k) are a tensor the trace does not record");
		else
			varlen_paged(sp, a, w);
		return;
	}
	if (attn_unmodelled(sp, a, w) != NULL)
		return;
	if ((why = attn_shapes(sp, a, &x)) != NULL) {
		op_work_fail(w, NS_OPG_BAD_SHAPES, why);
		return;
	}
	if (!attn_qv(sp, a, x.dv, &qv, w))
		return;
	if (sp->mask_type >= 0 && op_arg_ints(a, sp->mask_type, &type, 1, &n)) {
		known = true, causal = type == 1 || type == 2, bottom_right = type == 2;
	} else if (at.causal >= 0) {
		known = op_arg_bool(a, at.causal, &causal);
	}
	windowed = attn_window(&at, a, causal, &left, &right);
	if (windowed)
		pairs = op_window_pairs(x.lq, x.lk, (double)left, (double)right);
	else
		pairs = causal ? op_causal_pairs(x.lq, x.lk, bottom_right) : x.lq * x.lk;
	/* QK^T (with q_v, also q_v V^T) and PV: 2 FLOPs per multiply-add over the kept pairs. The backward
	 * recomputes QK^T and forms dV, dP, dQ and dK: 2 * pairs * (3 d + 2 dv), 2.5x the forward when d = dv
	 * (FlashAttention-2, sec. 3). */
	fwd = 2.0 * x.bh * pairs * (x.d + x.dv + (qv != NULL ? x.dv : 0.0));
	w->flops = sp->backward ? 2.0 * x.bh * pairs * (3.0 * x.d + 2.0 * x.dv) : fwd;
	qkv = op_arg_bytes(a, sp->q) + op_arg_bytes(a, sp->k) + op_arg_bytes(a, sp->v);
	out = x.bh * x.lq * x.dv * attn_out_elt(sp, a);
	lse = x.bh * x.lq * 4.0; /* the fp32 log-sum-exp per query row */
	/* Forward: Q, K, V (and a mask) read, O and the log-sum-exp written. Backward: Q, K, V, O, dO and the
	 * log-sum-exp read, dQ, dK, dV written. */
	w->bytes = sp->backward ? 2.0 * qkv + 2.0 * out + lse : qkv + out + lse;
	/* the forward's q_v and fp8 scales, read once */
	w->bytes += op_arg_bytes(a, sp->qv) + attn_scale_bytes(sp, &at, a);
	if (!sp->backward && sp->layout == ATTN_BHLD) /* argument 3: the mask or bias when a tensor */
		w->bytes += op_arg_bytes(a, 3);
	if (x.varlen && !x.lengths_known) {
		w->lower_bound = true;
		w->why = "variable lengths not recorded: equal lengths assumed (the fewest FLOPs those "
		         "totals allow)";
	} else if (!known)
		w->why = "causal flag not recorded: counted as full attention";
	if (x.hk != x.hq)
		snprintf(heads, sizeof(heads), "h%.0f/%.0f", x.hq, x.hk);
	else
		snprintf(heads, sizeof(heads), "h%.0f", x.hq);
	if (windowed && !(causal && left < 0))
		snprintf(window, sizeof(window), " window %lld/%lld", left, right);
	else
		snprintf(window, sizeof(window), "%s", causal ? " causal" : "");
	snprintf(w->shape, sizeof(w->shape), "%s%.0f %s L%.0fx%.0f d%.0f%s%s", x.varlen ? "seqs " : "b",
	         x.varlen ? x.seqs : x.bh / x.hq, heads, x.lq, x.lk, x.d, window, qv != NULL ? " qv" : "");
}
