/* Placing a trace's ops: each op with GPU time counted by its family's model (op_models.h), identical ops
 * summed into rows, each row timed at the roof, and the rows summed by family and by the split's bucket. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/ops/troof_private.h"
#include "util/satmath.h"
#include "util/sort.h"
#include "util/text.h"
#include "util/vec.h"

/* An op the enclosing-op search looks at most this far back for (its own siblings and children lie between).
 */
#define OUTER_SCAN_MAX 256

/* One op with GPU time and a model, before grouping: its texts copied in, so sorting needs no context. */
typedef struct {
	uint32_t name, dims, types, concrete, grad, grad_types;
	uint32_t op; /* index into c->ops */
	int64_t ns;
	signed char list_dtype;     /* the type of its TensorLists, from its kernels; -1 unknown */
	signed char list_src_dtype; /* a converting copy's source list type; -1 none */
	signed char math;           /* troof_math of its kernels: tensor cores if any says so */
} cand;

/* A kept op by thread and time, to find the op enclosing another. */
typedef struct {
	int64_t pid, tid, start, end;
	uint32_t op;
} timed_op;

typedef struct {
	ns_trace_roofline *c;
	const ns_device *dev;
	const ns_troof_options *o;
	ns_troof_report *r;
	timed_op *by_time;  /* built on first need */
	uint32_t *position; /* of each op in by_time */
	bool by_time_failed;
	/* unplaced GPU time by op name (pool id) */
	int64_t *name_ns;
	long *name_ops;
	unsigned char *name_reason;
	const char **name_why;
} place_state;

static const ns_troof_reason reason_of_gap[NS_OPG_COUNT] = {
    [NS_OPG_NONE] = NS_TROOF_REASON_COUNT,   [NS_OPG_UNKNOWN_OP] = NS_TROOF_UNKNOWN_OP,
    [NS_OPG_NO_SHAPES] = NS_TROOF_NO_SHAPES, [NS_OPG_BAD_SHAPES] = NS_TROOF_BAD_DIMS,
    [NS_OPG_NO_DTYPE] = NS_TROOF_NO_DTYPE,   [NS_OPG_INCOMPLETE] = NS_TROOF_INCOMPLETE,
};

/* family: the op's, when a model knows it (the time then counts in its bucket's unplaced_ns). */
static void unplaced(place_state *s, uint32_t name, ns_op_family family, ns_troof_reason why,
                     const char *words, long ops, int64_t ns)
{
	ns_troof_report *r = s->r;

	if (family != NS_OPF_NONE) {
		ns_troof_bucket *b =
		    &r->buckets[ns_op_family_computes(family) ? NS_TROOF_COMPUTE : NS_TROOF_MEMORY];
		b->unplaced_ns = ns_sat_add_i64(b->unplaced_ns, ns);
	}
	r->unplaced[why] += ops;
	r->unplaced_ns[why] = ns_sat_add_i64(r->unplaced_ns[why], ns);
	s->name_ops[name] += ops;
	s->name_ns[name] = ns_sat_add_i64(s->name_ns[name], ns);
	s->name_reason[name] = (unsigned char)why;
	s->name_why[name] = words;
}

/* ---- autograd nodes: output sizes by Sequence number ---- */

static int cmp_node(const void *a, const void *b)
{
	const node_rec *x = a, *y = b;
	int d = ns_order_i64(x->seq, y->seq);

	if (d == 0)
		d = ns_order_i64(x->dims, y->dims);
	return d != 0 ? d : ns_order_i64(x->types, y->types);
}

/* Sorted by seq, one record a seq; a seq whose nodes disagree (ids from two threads) keeps no dims. False
 * when out of memory. */
static bool prepare_nodes(ns_trace_roofline *c)
{
	size_t n = 0;

	if (!ns_sort_stable(c->nodes, c->nnodes, sizeof(node_rec), cmp_node))
		return false;
	for (size_t i = 0; i < c->nnodes; i++) {
		if (n > 0 && c->nodes[n - 1].seq == c->nodes[i].seq) {
			if (c->nodes[n - 1].dims != c->nodes[i].dims ||
			    c->nodes[n - 1].types != c->nodes[i].types)
				c->nodes[n - 1].dims = c->nodes[n - 1].types = 0;
			continue;
		}
		c->nodes[n++] = c->nodes[i];
	}
	c->nnodes = n;
	return true;
}

/* The node with this Sequence number, or NULL. */
static const node_rec *node_of(const ns_trace_roofline *c, int64_t seq)
{
	size_t lo = 0, hi = c->nnodes;

	if (seq < 0)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->nodes[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nnodes && c->nodes[lo].seq == seq ? &c->nodes[lo] : NULL;
}

/* ---- the op enclosing another (cuDNN's backward_input under its convolution backward) ---- */

static int cmp_timed(const void *a, const void *b)
{
	const timed_op *x = a, *y = b;
	int d = ns_order_i64(x->pid, y->pid);

	if (d == 0)
		d = ns_order_i64(x->tid, y->tid);
	if (d == 0)
		d = ns_order_i64(x->start, y->start);
	return d != 0 ? d : ns_order_i64(y->end, x->end); /* the enclosing op first */
}

/* The table by time could not be had (out of memory): none, never a part-built one, and no second try. */
static bool drop_by_time(place_state *s)
{
	free(s->by_time);
	free(s->position);
	s->by_time = NULL;
	s->position = NULL;
	s->by_time_failed = true;
	return false;
}

static bool build_by_time(place_state *s)
{
	const ns_trace_roofline *c = s->c;

	if (s->by_time != NULL || s->by_time_failed)
		return s->by_time != NULL;
	s->by_time = calloc(c->nops + 1, sizeof(timed_op));
	s->position = calloc(c->nops + 1, sizeof(uint32_t));
	if (s->by_time == NULL || s->position == NULL)
		return drop_by_time(s);
	for (size_t i = 0; i < c->nops; i++)
		s->by_time[i] =
		    (timed_op){c->ops[i].pid, c->ops[i].tid, c->ops[i].start, c->ops[i].end, (uint32_t)i};
	if (!ns_sort_stable(s->by_time, c->nops, sizeof(timed_op), cmp_timed))
		return drop_by_time(s);
	for (size_t i = 0; i < c->nops; i++)
		s->position[s->by_time[i].op] = (uint32_t)i;
	return true;
}

/* The innermost op of the same family on the same thread whose span holds this op's, or NULL. */
static const op_rec *enclosing_op(place_state *s, uint32_t index, ns_op_family family)
{
	const ns_trace_roofline *c = s->c;
	const op_rec *op = &c->ops[index];
	size_t pos, scanned = 0;

	if (!build_by_time(s))
		return NULL;
	for (pos = s->position[index]; pos-- > 0 && scanned++ < OUTER_SCAN_MAX;) {
		const timed_op *t = &s->by_time[pos];
		const op_rec *o = &c->ops[t->op];
		size_t len;
		const char *name;
		if (t->pid != op->pid || t->tid != op->tid)
			break;
		if (t->end < op->end)
			continue;
		name = pool_text(&c->pool, o->name, &len);
		if (ns_op_family_of(name, len) == family)
			return o;
	}
	return NULL;
}

/* The Sequence number in effect when this op ran: PyTorch's counter is per thread and moves only when an
 * autograd node is made, taking the number in effect; an op recorded without one (fbgemm's table-batched
 * lookup, a C++ autograd function) made its node with the number of the last op of its thread recorded
 * before it. -1 when none is found within OUTER_SCAN_MAX ops. */
static int64_t thread_seq(place_state *s, uint32_t index)
{
	const ns_trace_roofline *c = s->c;
	const op_rec *op = &c->ops[index];
	size_t pos, scanned = 0;

	if (!build_by_time(s))
		return -1;
	for (pos = s->position[index]; pos-- > 0 && scanned++ < OUTER_SCAN_MAX;) {
		const timed_op *t = &s->by_time[pos];
		if (t->pid != op->pid || t->tid != op->tid)
			break;
		if (c->ops[t->op].seq >= 0)
			return c->ops[t->op].seq;
	}
	return -1;
}

/* The autograd node holding op's output gradients, or NULL. A lookup's node is its lookup's alone: the ops
 * recorded before it with its number (a zero_, a to) made no node. */
static const node_rec *node_for(place_state *s, const op_rec *op)
{
	const ns_trace_roofline *c = s->c;
	const node_rec *node;
	size_t len;
	const char *name;
	bool lookup;

	if (c->nnodes == 0)
		return NULL;
	name = pool_text(&c->pool, op->name, &len);
	lookup = ns_op_node_by_thread(name, len);
	node = node_of(c, op->seq >= 0 || !lookup ? op->seq : thread_seq(s, (uint32_t)(op - c->ops)));
	return node != NULL && node->lookup == lookup ? node : NULL;
}

/* ---- modelling ---- */

static ns_op_record record_of(const place_state *s, const op_rec *op, const cand *k)
{
	uint32_t grad = k->grad;
	signed char list_dtype = k->list_dtype;
	const text_pool *p = &s->c->pool;
	ns_op_record r;

	memset(&r, 0, sizeof(r));
	r.name = pool_text(p, op->name, &r.name_len);
	r.dims = pool_text(p, op->dims, &r.dims_len);
	r.types = pool_text(p, op->types, &r.types_len);
	r.concrete = pool_text(p, op->concrete, &r.concrete_len);
	if (grad != 0)
		r.grad_dims = pool_text(p, grad, &r.grad_dims_len);
	if (grad != 0 && k->grad_types != 0)
		r.grad_types = pool_text(p, k->grad_types, &r.grad_types_len);
	r.flops = op->flops;
	r.has_list_dtype = list_dtype >= 0;
	r.list_dtype = list_dtype >= 0 ? (ns_dtype)list_dtype : NS_DTYPE_FP32;
	r.has_list_src_dtype = list_dtype >= 0 && k->list_src_dtype >= 0;
	r.list_src_dtype = r.has_list_src_dtype ? (ns_dtype)k->list_src_dtype : NS_DTYPE_FP32;
	r.force_dtype = s->o->has_dtype;
	r.dtype = s->o->dtype;
	if (r.dims_len == 0)
		r.dims = NULL;
	return r;
}

static int cmp_cand(const void *a, const void *b)
{
	const cand *x = a, *y = b;
	int d = ns_order_i64(x->name, y->name);

	if (d == 0)
		d = ns_order_i64(x->dims, y->dims);
	if (d == 0)
		d = ns_order_i64(x->types, y->types);
	if (d == 0)
		d = ns_order_i64(x->concrete, y->concrete);
	if (d == 0)
		d = ns_order_i64(x->grad, y->grad);
	if (d == 0)
		d = ns_order_i64(x->grad_types, y->grad_types);
	if (d == 0)
		d = ns_order_i64(x->list_dtype, y->list_dtype);
	if (d == 0)
		d = ns_order_i64(x->math, y->math);
	return d != 0 ? d : ns_order_i64(x->list_src_dtype, y->list_src_dtype);
}

static bool same_key(const cand *x, const cand *y)
{
	return x->name == y->name && x->dims == y->dims && x->types == y->types &&
	       x->concrete == y->concrete && x->grad == y->grad && x->grad_types == y->grad_types &&
	       x->list_dtype == y->list_dtype && x->list_src_dtype == y->list_src_dtype && x->math == y->math;
}

/* Whether the work can go on this device: the computing families need a roof for their dtype. */
static ns_troof_reason roof_for(const place_state *s, const ns_op_work *w)
{
	if (!ns_op_family_computes(w->family))
		return NS_TROOF_REASON_COUNT;
	if (!w->has_dtype)
		return NS_TROOF_NO_DTYPE;
	return s->dev->peak[w->dtype] > 0.0 ? NS_TROOF_REASON_COUNT : NS_TROOF_NO_PEAK;
}

static double roof_seconds(const ns_device *dev, const ns_troof_row *row)
{
	double t = row->bytes / dev->mem_bw;

	if (ns_op_family_computes(row->family) && row->flops > 0.0)
		t = fmax(t, row->flops / dev->peak[row->dtype]);
	return t;
}

static char *dup_text(const text_pool *p, uint32_t id)
{
	size_t len;
	const char *t = pool_text(p, id, &len);
	char *out = malloc(len + 1);

	if (out != NULL) {
		memcpy(out, t, len);
		out[len] = '\0';
	}
	return out;
}

/* A name from the trace as well-formed UTF-8, its JSON escapes resolved: safe for cJSON and, escaped, for a
 * terminal. */
static char *dup_clean(const text_pool *p, uint32_t id)
{
	size_t len, cap;
	const char *t = pool_text(p, id, &len);
	char *raw = malloc(len + 1), *out;

	if (raw == NULL)
		return NULL;
	len = ns_json_unescape(t, len, raw);
	cap = 3 * len + 1; /* each byte may become U+FFFD */
	if ((out = malloc(cap)) != NULL)
		ns_utf8_clean(raw, len, out, cap);
	free(raw);
	return out;
}

static char *dup_string(const char *s)
{
	size_t len = strlen(s);
	char *out = malloc(len + 1);

	if (out != NULL)
		memcpy(out, s, len + 1);
	return out;
}

/* fp32 work on a device with a TF32 roof. The kernels' names decide where they say: a TF32 tensor-core
 * kernel puts the op on the TF32 roof, a SIMT fp32 one keeps it on fp32 (cuBLAS picks SIMT kernels for some
 * shapes even with TF32 allowed, and cuDNN some algorithms). Otherwise cuDNN convolutions use TF32 unless
 * the trace records allow_tf32=False (PyTorch's default, torch.backends.cudnn.allow_tf32), and a matmul or
 * attention that ran faster than the fp32 roof allows did too (torch.backends.cuda.matmul.allow_tf32). */
static void choose_tf32(const place_state *s, ns_troof_row *row, int allow_tf32, signed char math)
{
	if (s->o->has_dtype || !row->has_dtype || row->dtype != NS_DTYPE_FP32 ||
	    !ns_op_family_computes(row->family) || s->dev->peak[NS_DTYPE_TF32] <= 0.0)
		return;
	if (math == TROOF_MATH_TENSOR) {
		row->dtype = NS_DTYPE_TF32;
		row->note = "its kernels are TF32 tensor-core kernels (tf32/tensorop in their names): on the "
		            "TF32 roof";
	} else if (math == TROOF_MATH_SIMT) {
		row->simt = true;
	} else if (row->family == NS_OPF_CONV && allow_tf32 != 0) {
		row->dtype = NS_DTYPE_TF32;
		row->note = allow_tf32 == 1
		                ? "fp32 convolution with allow_tf32 recorded: on the TF32 roof"
		                : "fp32 convolution on the TF32 roof: PyTorch lets cuDNN use TF32 by "
		                  "default (torch.backends.cudnn.allow_tf32)";
	} else if (roof_seconds(s->dev, row) * 1e9 > (double)row->gpu_ns * NS_ROOFLINE_ABOVE_ROOF_SLACK) {
		row->dtype = NS_DTYPE_TF32;
		row->note = "faster than the fp32 roof allows: placed on the TF32 roof "
		            "(torch.backends.cuda.matmul.allow_tf32)";
	}
}

/* A placed row's share of the roof, achieved rates and regime. */
static ns_status time_row(const place_state *s, ns_troof_row *row, int allow_tf32, signed char math,
                          ns_error *err)
{
	double seconds = (double)row->gpu_ns * 1e-9;

	choose_tf32(s, row, allow_tf32, math);
	row->roof_ns = roof_seconds(s->dev, row) * 1e9;
	row->fraction = row->gpu_ns > 0 ? row->roof_ns / (double)row->gpu_ns : 0.0;
	if (row->fewer_multiplies && row->fraction > NS_ROOFLINE_ABOVE_ROOF_SLACK)
		row->note =
		    "above the roof of the direct count: Winograd or FFT convolution algorithms do fewer "
		    "multiplies (cuDNN picks them for kernels of 3x3 and up)";
	if (ns_op_family_computes(row->family) && row->flops > 0.0) {
		ns_roofline_input in = {row->flops,     row->bytes, s->dev->peak[row->dtype],
		                        s->dev->mem_bw, seconds,    NS_ROOFLINE_OVERHEAD_DEFAULT};
		return ns_roofline_place(&in, &row->roof, err);
	}
	/* Placed by bytes: the memory roof is the only one. */
	memset(&row->roof, 0, sizeof(row->roof));
	row->roof.timed = seconds > 0.0;
	row->roof.achieved_bytes_per_s = seconds > 0.0 ? row->bytes / seconds : 0.0;
	row->roof.fraction_memory = row->roof.achieved_bytes_per_s / s->dev->mem_bw;
	row->roof.fraction_of_roof = row->fraction;
	/* a lower bound on the bytes says nothing of launch overhead: a low share may be bytes not counted */
	row->roof.regime = row->roof.fraction_memory < NS_ROOFLINE_OVERHEAD_DEFAULT && !row->lower_bound
	                       ? NS_REGIME_OVERHEAD
	                       : NS_REGIME_MEMORY;
	row->roof.above_roof = row->fraction > NS_ROOFLINE_ABOVE_ROOF_SLACK;
	return NS_OK;
}

/* Models one run of identical ops (the cands [first, last)) into a row, or counts them unplaced. */
static ns_status place_run(place_state *s, const cand *first, const cand *last, ns_error *err)
{
	ns_trace_roofline *c = s->c;
	ns_troof_report *r = s->r;
	const op_rec *op = &c->ops[first->op];
	ns_op_record rec = record_of(s, op, first);
	ns_op_work w, one;
	ns_troof_row *row;
	ns_troof_reason why;
	long n = 0;
	int64_t ns = 0;
	double flops = 0.0, bytes = 0.0;

	ns_op_model(&rec, NULL, &w);
	for (const cand *x = first; x < last; x++, n++)
		ns = ns_sat_add_i64(ns, x->ns);
	if (w.gap == NS_OPG_INCOMPLETE && w.family == NS_OPF_CONV) {
		/* cuDNN's backward_input/_weight: the sizes they lack are on the backward op above them */
		const cand no_node = {.list_dtype = -1, .list_src_dtype = -1};
		one = w;
		for (const cand *x = first; x < last; x++) {
			const op_rec *outer = enclosing_op(s, x->op, NS_OPF_CONV);
			ns_op_record orec;
			if (outer == NULL)
				break;
			orec = record_of(s, outer, &no_node);
			ns_op_model(&rec, &orec, &one);
			if (one.gap != NS_OPG_NONE)
				break;
			if (x == first)
				w = one;
			flops += one.flops;
			bytes += one.bytes;
		}
		if (one.gap != NS_OPG_NONE)
			w = one;
	} else if (w.gap == NS_OPG_NONE) {
		flops = w.flops * (double)n;
		bytes = w.bytes * (double)n;
	}
	why = w.gap != NS_OPG_NONE ? reason_of_gap[w.gap] : roof_for(s, &w);
	if (why != NS_TROOF_REASON_COUNT) {
		/* the model's words where they say more than the reason: which size is missing, and why */
		unplaced(s, first->name, w.family, why,
		         w.gap == NS_OPG_INCOMPLETE || w.gap == NS_OPG_BAD_SHAPES ? w.why : NULL, n, ns);
		return NS_OK;
	}
	row = &r->rows[r->nrows++];
	memset(row, 0, sizeof(*row));
	row->name = dup_text(&c->pool, first->name);
	row->dims = dup_text(&c->pool, first->dims);
	row->shape = dup_string(w.shape);
	if (row->name == NULL || row->dims == NULL || row->shape == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	row->family = w.family;
	row->pass = w.pass;
	row->has_dtype = w.has_dtype;
	row->dtype = w.dtype;
	memcpy(row->type_name, w.type_name, sizeof(row->type_name));
	row->note = w.why;
	row->lower_bound = w.lower_bound;
	row->count = n;
	row->gpu_ns = ns;
	row->m = w.m, row->n = w.n, row->k = w.k, row->batch = w.batch;
	row->fewer_multiplies = w.fewer_multiplies;
	row->flops = flops;
	row->bytes = bytes;
	r->placed += n;
	r->placed_ns = ns_sat_add_i64(r->placed_ns, ns);
	if (w.lower_bound)
		r->bound_ns = ns_sat_add_i64(r->bound_ns, ns);
	return time_row(s, row, w.allow_tf32, first->math, err);
}

/* The GPU time of an op's kernels; its collectives' time goes to *comm. *list_dtype: the element type its
 * multi-tensor kernels agree on, -1 when none says or they disagree; *src the same for a converting copy's
 * source list. */
static int64_t kernel_ns(const ns_trace_roofline *c, size_t *k, int64_t ext, int64_t *comm,
                         signed char *list_dtype, signed char *src, signed char *math)
{
	int64_t ns = 0;
	bool seen = false;

	*list_dtype = *src = -1;
	*math = TROOF_MATH_UNSAID;
	while (*k < c->nkernels && c->kernels[*k].ext < ext)
		(*k)++;
	for (; *k < c->nkernels && c->kernels[*k].ext == ext; (*k)++) {
		const kernel_rec *kr = &c->kernels[*k];
		if (kr->comm) {
			*comm = ns_sat_add_i64(*comm, kr->ns);
			continue;
		}
		ns = ns_sat_add_i64(ns, kr->ns);
		if (kr->math > *math)
			*math = kr->math;
		if (kr->list_dtype >= 0 && !seen)
			*list_dtype = kr->list_dtype, *src = kr->list_src_dtype, seen = true;
		else if (kr->list_dtype >= 0 && (kr->list_dtype != *list_dtype || kr->list_src_dtype != *src))
			*list_dtype = *src = -1;
	}
	return ns;
}

/* Each op with kernels of its own: a merge of the two op lists and the kernels, all sorted by External id. An
 * id seen twice counts once (the kept record first), so no kernel time is counted twice. Ops with a model
 * become cands; the others are unknown. */
static size_t collect(place_state *s, cand *out)
{
	const ns_trace_roofline *c = s->c;
	size_t i = 0, j = 0, k = 0, n = 0;
	int64_t last = -1; /* ids are >= 0 */

	while (i < c->nops || j < c->nother) {
		bool kept = j == c->nother || (i < c->nops && c->ops[i].ext <= c->other_ops[j].ext);
		const op_rec *op = kept ? &c->ops[i++] : NULL;
		const other_op *other = kept ? NULL : &c->other_ops[j++];
		int64_t ext = kept ? op->ext : other->ext, ns;
		signed char list_dtype, list_src, math;
		const node_rec *node;

		if (ext == last)
			continue;
		last = ext;
		if ((ns = kernel_ns(c, &k, ext, &s->r->comm_ns, &list_dtype, &list_src, &math)) <= 0)
			continue;
		s->r->ops++;
		s->r->ops_ns = ns_sat_add_i64(s->r->ops_ns, ns);
		if (!kept) {
			unplaced(s, other->name, NS_OPF_NONE, NS_TROOF_UNKNOWN_OP, NULL, 1, ns);
			continue;
		}
		node = node_for(s, op);
		out[n++] = (cand){op->name,
		                  op->dims,
		                  op->types,
		                  op->concrete,
		                  node != NULL ? node->dims : 0,
		                  node != NULL ? node->types : 0,
		                  (uint32_t)(op - c->ops),
		                  ns,
		                  list_dtype,
		                  list_src,
		                  math};
	}
	return n;
}

/* ---- summing: families, buckets, the unplaced names ---- */

static int cmp_row_time(const void *a, const void *b)
{
	const ns_troof_row *x = a, *y = b;

	if (x->gpu_ns != y->gpu_ns)
		return x->gpu_ns > y->gpu_ns ? -1 : 1;
	return x->flops > y->flops ? -1 : x->flops < y->flops;
}

/* What an fp32 (or fp64) row of a computing family would take at the device's faster roofs. */
static void low_precision(const place_state *s, const ns_troof_row *row, ns_troof_family *f)
{
	const ns_device *d = s->dev;
	ns_dtype half = s->r->half_dtype;

	if (!ns_op_family_computes(row->family) ||
	    (row->dtype != NS_DTYPE_FP32 && row->dtype != NS_DTYPE_TF32 && row->dtype != NS_DTYPE_FP64))
		return;
	if (d->peak[NS_DTYPE_TF32] <= 0.0 && d->peak[half] <= 0.0)
		return;
	f->fp32_ns = ns_sat_add_i64(f->fp32_ns, row->gpu_ns);
	f->fp32_roof_ns += row->roof_ns;
	if (d->peak[NS_DTYPE_TF32] > 0.0)
		f->tf32_roof_ns += fmax(row->flops / d->peak[NS_DTYPE_TF32], row->bytes / d->mem_bw) * 1e9;
	if (d->peak[half] > 0.0) /* 16-bit operands: half the bytes of fp32 */
		f->half_roof_ns += fmax(row->flops / d->peak[half],
		                        row->bytes * (2.0 / ns_dtype_bytes(row->dtype)) / d->mem_bw) *
		                   1e9;
}

/* The split's bucket of a row: a computing family's, except a GEMM whose shapes make it memory-bound on every
 * device (ns_op_gemm_memory_bound's bound on its FLOPs per byte), whose kernels the split counts as memory:
 * the buckets here sum what the split's do (docs/trace.md, "GEMMs whose shapes make them memory-bound"). */
static ns_troof_bucket_kind row_bucket(const ns_troof_row *row)
{
	if (!ns_op_family_computes(row->family))
		return NS_TROOF_MEMORY;
	if (row->family == NS_OPF_GEMM && row->bytes > 0.0 && row->flops > 0.0 &&
	    row->flops <= ns_op_gemm_memory_intensity(row->dtype) * row->bytes)
		return NS_TROOF_MEMORY;
	return NS_TROOF_COMPUTE;
}

/* A row's time at a lower precision's roof: its FLOPs at that dtype's peak, or its bytes in that dtype's
 * size (the operands converted), whichever takes longer. */
static double at_dtype_roof(const ns_device *d, const ns_troof_row *row, ns_dtype to)
{
	return fmax(row->flops / d->peak[to],
	            row->bytes * (ns_dtype_bytes(to) / ns_dtype_bytes(row->dtype)) / d->mem_bw) *
	       1e9;
}

/* A 16-bit GEMM on a device with a faster fp8 roof: fp8 matmuls (Transformer Engine, torchao's float8) are
 * the lower precision left to it. Convolutions and attention are left out: fp8 for them is not what
 * PyTorch programs reach for. */
static bool fp8_applies(const ns_device *d, const ns_troof_row *row)
{
	return row->family == NS_OPF_GEMM && (row->dtype == NS_DTYPE_BF16 || row->dtype == NS_DTYPE_FP16) &&
	       d->peak[NS_DTYPE_FP8] > d->peak[row->dtype];
}

/* A row's time at the roof its bucket's fix can reach (trace_roofline.h, ns_troof_bucket.reach_ns) into
 * its bucket, and at the fp8 reach (fp8_reach_ns). */
static void reach_of_row(const place_state *s, const ns_troof_row *row)
{
	const ns_device *d = s->dev;
	ns_dtype half = s->r->half_dtype;
	bool computes = row_bucket(row) == NS_TROOF_COMPUTE;
	ns_troof_bucket *b = &s->r->buckets[computes ? NS_TROOF_COMPUTE : NS_TROOF_MEMORY];
	double roof = row->roof_ns, fp8 = row->roof_ns;

	if (computes &&
	    (row->dtype == NS_DTYPE_FP32 || row->dtype == NS_DTYPE_TF32 || row->dtype == NS_DTYPE_FP64) &&
	    d->peak[half] > 0.0) {
		b->fp32_ns = ns_sat_add_i64(b->fp32_ns, row->gpu_ns);
		roof = fmin(roof, at_dtype_roof(d, row, half));
		fp8 = roof;
	} else if (computes && fp8_applies(d, row)) {
		b->fp8_ns = ns_sat_add_i64(b->fp8_ns, row->gpu_ns);
		fp8 = fmin(roof, at_dtype_roof(d, row, NS_DTYPE_FP8));
	}
	b->reach_ns += fmin((double)row->gpu_ns, roof);
	b->fp8_reach_ns += fmin((double)row->gpu_ns, fp8);
}

static void sum_families(place_state *s)
{
	ns_troof_report *r = s->r;

	for (int f = 0; f < NS_OPF_COUNT; f++)
		r->families[f].family = (ns_op_family)f;
	for (size_t i = 0; i < r->nrows; i++) {
		const ns_troof_row *row = &r->rows[i];
		ns_troof_family *f = &r->families[row->family];
		f->ops += row->count;
		f->gpu_ns = ns_sat_add_i64(f->gpu_ns, row->gpu_ns);
		f->flops += row->flops;
		f->bytes += row->bytes;
		f->roof_ns += row->roof_ns;
		f->headroom_ns += fmax(0.0, (double)row->gpu_ns - row->roof_ns);
		if (row->lower_bound) {
			f->bound_ns = ns_sat_add_i64(f->bound_ns, row->gpu_ns);
			f->bound_roof_ns += row->roof_ns;
		}
		low_precision(s, row, f);
		if (!row->lower_bound)
			reach_of_row(s, row);
	}
	r->nfamilies = 0;
	for (int f = 0; f < NS_OPF_COUNT; f++)
		if (r->families[f].ops > 0)
			r->order[r->nfamilies++] = (ns_op_family)f;
	for (size_t i = 1; i < r->nfamilies; i++) /* by GPU time, a handful of entries */
		for (size_t j = i;
		     j > 0 && r->families[r->order[j]].gpu_ns > r->families[r->order[j - 1]].gpu_ns; j--) {
			ns_op_family t = r->order[j];
			r->order[j] = r->order[j - 1];
			r->order[j - 1] = t;
		}
	/* a family is named in each bucket its exact rows are in (the GEMMs of a step can be both), in the
	 * order of the families' time */
	bool in_bucket[NS_TROOF_BUCKET_COUNT][NS_OPF_COUNT] = {{false}};
	for (size_t i = 0; i < r->nrows; i++) {
		const ns_troof_row *row = &r->rows[i];
		ns_troof_bucket_kind k = row_bucket(row);
		ns_troof_bucket *b = &r->buckets[k];
		if (row->lower_bound) {
			b->bound_ns = ns_sat_add_i64(b->bound_ns, row->gpu_ns);
			continue;
		}
		in_bucket[k][row->family] = in_bucket[k][row->family] || row->gpu_ns > 0;
		b->family_gpu_ns[row->family] = ns_sat_add_i64(b->family_gpu_ns[row->family], row->gpu_ns);
		b->family_roof_ns[row->family] += row->roof_ns;
		b->gpu_ns =
		    ns_sat_add_i64(b->gpu_ns, row->gpu_ns); /* the exact rows only: see ns_troof_bucket */
		b->roof_ns += row->roof_ns;
		b->headroom_ns += fmax(0.0, (double)row->gpu_ns - row->roof_ns);
	}
	for (int k = 0; k < NS_TROOF_BUCKET_COUNT; k++)
		for (size_t i = 0; i < r->nfamilies; i++)
			if (in_bucket[k][r->order[i]])
				r->buckets[k].families[r->buckets[k].nfamilies++] = r->order[i];
}

static ns_status top_unplaced(place_state *s, ns_error *err)
{
	ns_troof_report *r = s->r;
	const size_t max = sizeof(r->unplaced_top) / sizeof(r->unplaced_top[0]);

	for (size_t id = 1; id < s->c->pool.nrefs; id++) {
		size_t at;
		if (s->name_ops[id] == 0)
			continue;
		for (at = r->nunplaced_top; at > 0 && r->unplaced_top[at - 1].gpu_ns < s->name_ns[id]; at--)
			;
		if (at >= max)
			continue;
		if (r->nunplaced_top == max)
			free(r->unplaced_top[max - 1].name);
		else
			r->nunplaced_top++;
		memmove(&r->unplaced_top[at + 1], &r->unplaced_top[at],
		        (r->nunplaced_top - 1 - at) * sizeof(r->unplaced_top[0]));
		r->unplaced_top[at].name = dup_clean(&s->c->pool, (uint32_t)id);
		r->unplaced_top[at].reason = (ns_troof_reason)s->name_reason[id];
		r->unplaced_top[at].why = s->name_why[id];
		r->unplaced_top[at].ops = s->name_ops[id];
		r->unplaced_top[at].gpu_ns = s->name_ns[id];
		if (r->unplaced_top[at].name == NULL)
			return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	return NS_OK;
}

ns_status troof_place(ns_trace_roofline *c, const ns_device *dev, const ns_troof_options *o,
                      ns_troof_report *r, ns_error *err)
{
	place_state s = {c, dev, o, r, NULL, NULL, false, NULL, NULL, NULL, NULL};
	size_t n = c->pool.nrefs;
	cand *cands = calloc(c->nops + 1, sizeof(cand));
	ns_status st = NS_OK;
	size_t ncand;

	s.name_ns = calloc(n, sizeof(int64_t));
	s.name_ops = calloc(n, sizeof(long));
	s.name_reason = calloc(n, 1);
	s.name_why = calloc(n, sizeof(const char *));
	r->rows = calloc(c->nops + 1, sizeof(ns_troof_row));
	if (cands == NULL || s.name_ns == NULL || s.name_ops == NULL || s.name_reason == NULL ||
	    s.name_why == NULL || r->rows == NULL || !prepare_nodes(c)) {
		st = ns_error_set(err, NS_ERR_NOMEM, "out of memory");
		goto done;
	}
	ncand = collect(&s, cands);
	/* stable sorts: a run of equal keys stays in the ops' order, and its first op names the row; rows of
	 * equal time stay in the order of their keys */
	if (!ns_sort_stable(cands, ncand, sizeof(cand), cmp_cand)) {
		st = ns_error_set(err, NS_ERR_NOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0, j; st == NS_OK && i < ncand; i = j) {
		for (j = i + 1; j < ncand && same_key(&cands[i], &cands[j]); j++)
			;
		st = place_run(&s, &cands[i], &cands[j], err);
	}
	/* without the table by time some ops went unplaced: a report that differs for want of memory is an
	 * error, not a smaller placement */
	if (st == NS_OK &&
	    (s.by_time_failed || !ns_sort_stable(r->rows, r->nrows, sizeof(ns_troof_row), cmp_row_time)))
		st = ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	if (st == NS_OK) {
		sum_families(&s);
		st = top_unplaced(&s, err);
	}
done:
	free(cands);
	free(s.by_time);
	free(s.position);
	free(s.name_ns);
	free(s.name_ops);
	free(s.name_reason);
	free(s.name_why);
	return st;
}

double ns_troof_placed_share(const ns_troof_report *r)
{
	return r->ops_ns > 0 ? (double)r->placed_ns / (double)r->ops_ns : 0.0;
}

double ns_troof_family_exact_fraction(const ns_troof_family *f)
{
	int64_t ns = f->gpu_ns - f->bound_ns;

	return ns > 0 ? (f->roof_ns - f->bound_roof_ns) / (double)ns : 0.0;
}

double ns_troof_bucket_fraction(const ns_troof_bucket *b, ns_op_family f)
{
	if ((unsigned)f >= NS_OPF_COUNT || b->family_gpu_ns[f] <= 0)
		return 0.0;
	return b->family_roof_ns[f] / (double)b->family_gpu_ns[f];
}
