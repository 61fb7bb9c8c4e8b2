#define _GNU_SOURCE /* memmem */
#include "nextstep/trace_roofline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/ops/troof_private.h"
#include "util/satmath.h"
#include "util/sort.h"
#include "util/vec.h"

/* ns_grow with a status: the buffer is stored back only when it moved, so a failed grow keeps it. */
static bool grow(void **arr, size_t *cap, size_t need, size_t size)
{
	void *p;

	if (need <= *cap)
		return true;
	if ((p = ns_grow(*arr, cap, need, size)) == NULL)
		return false;
	*arr = p;
	return true;
}

ns_trace_roofline *ns_trace_roofline_new(void)
{
	ns_trace_roofline *c = calloc(1, sizeof(ns_trace_roofline));

	if (c == NULL)
		return NULL;
	/* id 0: the empty text */
	if (!grow((void **)&c->pool.refs, &c->pool.cap_refs, 1, sizeof(text_ref)) ||
	    !ns_hindex_init(&c->pool.index, 256)) {
		ns_trace_roofline_free(c);
		return NULL;
	}
	c->pool.refs[0] = (text_ref){0, 0};
	c->pool.nrefs = 1;
	return c;
}

/* The records and texts kept, freed: what ns_trace_roofline_free() frees but the collector itself. */
static void drop_records(ns_trace_roofline *c)
{
	free(c->ops);
	free(c->other_ops);
	free(c->nodes);
	free(c->kernels);
	free(c->spans);
	free(c->launches);
	free(c->pool.text);
	free(c->pool.refs);
	free(c->name_family);
	free(c->kernel_facts);
	ns_hindex_free(&c->pool.index);
}

void ns_trace_roofline_free(ns_trace_roofline *c)
{
	if (c == NULL)
		return;
	drop_records(c);
	free(c);
}

void ns_trace_roofline_only_with_shapes(ns_trace_roofline *c, size_t max_records)
{
	c->need_shapes = true;
	c->max_records = max_records;
}

bool ns_trace_roofline_gave_up(const ns_trace_roofline *c)
{
	return c->gave_up;
}

bool ns_trace_roofline_saw_shapes(const ns_trace_roofline *c)
{
	return c->saw_shapes;
}

size_t ns_trace_roofline_records(const ns_trace_roofline *c)
{
	return c->nops + c->nother + c->nnodes + c->nkernels + c->nspans + c->nlaunches;
}

/* Without record_shapes no CPU op has Input Dims; with it every one has them (an op without inputs: "[]").
 * The first CPU ops tell, a few in case a recorder leaves some out. */
#define TROOF_OPS_TO_TELL 64

static void give_up(ns_trace_roofline *c)
{
	bool saw = c->saw_shapes;

	drop_records(c);
	memset(c, 0, sizeof(*c));
	c->need_shapes = true;
	c->saw_shapes = saw;
	c->gave_up = true;
}

/* With need_shapes: whether ev is still collected. A trace whose first CPU ops have no Input Dims, or one
 * too large for the records' budget, is given up: what was kept is freed, and nothing more is. */
static bool collecting(ns_trace_roofline *c, const ns_trace_event *ev)
{
	if (c->gave_up)
		return false;
	if (!c->saw_shapes && ev->ph == 'X' && ev->cat == NS_TCAT_CPU_OP) {
		if (ev->input_dims.len > 0)
			c->saw_shapes = true;
		else if (++c->ops_without_dims >= TROOF_OPS_TO_TELL)
			give_up(c);
	}
	if (c->nkernels + c->nops + c->nspans + c->nlaunches + c->nother > c->max_records)
		give_up(c);
	return !c->gave_up;
}

/* The id of a text, added once: names and shapes repeat every step, so each distinct one is kept once.
 * Empty or longer than NS_TROOF_MAX_TEXT: 0 (absent). On OOM, 0 with c->oom set. */
static uint32_t intern(ns_trace_roofline *c, ns_str s)
{
	text_pool *p = &c->pool;
	uint64_t h;
	size_t slot;
	uint32_t id;

	if (s.len == 0 || s.len > NS_TROOF_MAX_TEXT)
		return 0;
	h = ns_hash_bytes(s.ptr, s.len);
	slot = ns_hindex_home(&p->index, h);
	while (ns_hindex_probe(&p->index, h, &slot, &id))
		if (p->refs[id].len == s.len && memcmp(p->text + p->refs[id].off, s.ptr, s.len) == 0)
			return id;
	if (p->nrefs >= NS_HINDEX_MAX || !grow((void **)&p->text, &p->cap_text, p->ntext + s.len, 1) ||
	    !grow((void **)&p->refs, &p->cap_refs, p->nrefs + 1, sizeof(text_ref)) ||
	    !ns_hindex_add(&p->index, h, (uint32_t)p->nrefs)) {
		c->oom = true;
		return 0;
	}
	memcpy(p->text + p->ntext, s.ptr, s.len);
	p->refs[p->nrefs] = (text_ref){p->ntext, s.len};
	p->ntext += s.len;
	return (uint32_t)p->nrefs++;
}

static ns_status nomem(ns_error *err)
{
	return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
}

/* The family of an op name whose pool id is id: the table is searched once a distinct name (a step repeats
 * the same few hundred names), not once an op. */
static ns_op_family name_family(ns_trace_roofline *c, uint32_t id, ns_str name)
{
	size_t old = c->cap_family;

	if (id == 0)
		return ns_op_family_of(name.ptr, name.len);
	if (id >= old) {
		if (!grow((void **)&c->name_family, &c->cap_family, (size_t)id + 1, 1))
			return ns_op_family_of(name.ptr, name.len);
		memset(c->name_family + old, 0, c->cap_family - old);
	}
	if (c->name_family[id] == 0)
		c->name_family[id] = (unsigned char)(ns_op_family_of(name.ptr, name.len) + 1);
	return (ns_op_family)(c->name_family[id] - 1);
}

/* Ops a model knows keep their texts; any other op only its External id and name. */
static ns_status add_op(ns_trace_roofline *c, const ns_trace_event *ev, ns_error *err)
{
	op_rec *op;
	uint32_t name = intern(c, ev->name);

	if (c->oom)
		return nomem(err);
	if (name_family(c, name, ev->name) == NS_OPF_NONE) {
		if (!grow((void **)&c->other_ops, &c->cap_other, c->nother + 1, sizeof(other_op)))
			return nomem(err);
		c->other_ops[c->nother++] = (other_op){ev->external_id, name};
		return NS_OK;
	}
	if (!grow((void **)&c->ops, &c->cap_ops, c->nops + 1, sizeof(op_rec)))
		return nomem(err);
	op = &c->ops[c->nops++];
	op->ext = ev->external_id;
	op->seq = ev->seq_number;
	op->pid = ev->pid;
	op->tid = ev->tid;
	op->start = ev->has_ts ? ev->ts_ns : 0;
	op->end = ev->has_ts && ev->has_dur ? ns_sat_add_i64(ev->ts_ns, ev->dur_ns) : op->start;
	op->flops = ev->flops;
	op->name = name;
	op->dims = intern(c, ev->input_dims);
	op->types = intern(c, ev->input_types);
	op->concrete = intern(c, ev->concrete_inputs);
	return c->oom ? nomem(err) : NS_OK;
}

/* An autograd node that records the output size of a convolution, pooling or table-batched lookup (by
 * Sequence number). */
static ns_status add_node(ns_trace_roofline *c, const ns_trace_event *ev, ns_error *err)
{
	if (ev->seq_number < 0 || ev->input_dims.len == 0 || !ns_op_node_wanted(ev->name.ptr, ev->name.len))
		return NS_OK;
	if (!grow((void **)&c->nodes, &c->cap_nodes, c->nnodes + 1, sizeof(node_rec)))
		return nomem(err);
	c->nodes[c->nnodes++] =
	    (node_rec){ev->seq_number, intern(c, ev->input_dims), intern(c, ev->input_types),
	               ns_op_family_of(ev->name.ptr, ev->name.len) == NS_OPF_EMBEDDING};
	return c->oom ? nomem(err) : NS_OK;
}

static ns_status add_span(ns_trace_roofline *c, const ns_trace_event *ev, ns_error *err)
{
	if (!ev->has_ts || !ev->has_dur)
		return NS_OK;
	if (!grow((void **)&c->spans, &c->cap_spans, c->nspans + 1, sizeof(op_span)))
		return nomem(err);
	c->spans[c->nspans++] =
	    (op_span){ev->external_id, ev->pid, ev->tid, ev->ts_ns, ns_sat_add_i64(ev->ts_ns, ev->dur_ns)};
	return NS_OK;
}

static ns_status add_launch(ns_trace_roofline *c, const ns_trace_event *ev, ns_error *err)
{
	if (!grow((void **)&c->launches, &c->cap_launches, c->nlaunches + 1, sizeof(launch_rec)))
		return nomem(err);
	c->launches[c->nlaunches++] =
	    (launch_rec){ev->correlation, ev->external_id, ev->pid, ev->tid, ev->ts_ns};
	return NS_OK;
}

/* NCCL and RCCL kernels are named so ("ncclDevKernel_AllReduce...", "ncclKernel_SendRecv_..."). Every
 * kernel's name passes here: memmem finds "ccl" faster than a loop over each byte. */
static bool is_comm_kernel(ns_str name)
{
	const char *p = name.ptr, *end, *hit;

	if (name.len < 4) /* also no pointer arithmetic on an absent name */
		return false;
	end = name.ptr + name.len;
	while (p < end && (hit = memmem(p, (size_t)(end - p), "ccl", 3)) != NULL) {
		if (hit > name.ptr && (hit[-1] == 'n' || hit[-1] == 'r'))
			return true;
		p = hit + 1;
	}
	return false;
}

static bool has_at(ns_str s, size_t i, const char *word, size_t n)
{
	return i + n <= s.len && memcmp(s.ptr + i, word, n) == 0;
}

/* The element type of a multi-tensor kernel, the only place a trace records the type of a TensorList:
 * PyTorch's _foreach_* and fused optimizers launch "multi_tensor_apply_kernel<...,
 * BinaryOpListAlphaFunctor<float, 2, 2, 0>, ...>" or "FusedAdamMathFunctor<c10::BFloat16, 4, ...>": the first
 * type of the first functor. -1 if none. _foreach_copy_ across dtypes launches "CopyFunctor<c10::BFloat16,
 * float, 2, 1, 1>": the destination's type, then the source's, into *src (else -1). */
static const struct {
	const char *type;
	ns_dtype dtype;
} list_types[] = {{"float,", NS_DTYPE_FP32},
                  {"double,", NS_DTYPE_FP64},
                  {"c10::BFloat16,", NS_DTYPE_BF16},
                  {"c10::Half,", NS_DTYPE_FP16},
                  {"c10::Float8_e4m3fn,", NS_DTYPE_FP8},
                  {"c10::Float8_e5m2,", NS_DTYPE_FP8}};

/* The type at i and the index past it (its comma and a space), or -1. */
static signed char list_type_at(ns_str name, size_t *i)
{
	for (size_t t = 0; t < sizeof(list_types) / sizeof(list_types[0]); t++) {
		size_t n = strlen(list_types[t].type);
		if (has_at(name, *i, list_types[t].type, n)) {
			*i += n + 1;
			return (signed char)list_types[t].dtype;
		}
	}
	return -1;
}

static signed char list_dtype_of(ns_str name, signed char *src)
{
	/* every kernel's name passes here: memmem rejects the others faster than a loop over each byte */
	const char *m = name.len > 26 ? memmem(name.ptr, name.len, "multi_tensor_apply_kernel<", 26) : NULL;
	size_t i = m != NULL ? (size_t)(m - name.ptr) : name.len;
	signed char dst;
	bool copy;

	*src = -1;
	while (i < name.len && !(name.ptr[i] == 'F' && has_at(name, i, "Functor<", 8)))
		i++;
	if (i == name.len)
		return -1;
	i += 8;
	copy = i >= 12 && has_at(name, i - 12, "Copy", 4);
	if ((dst = list_type_at(name, &i)) >= 0 && copy)
		*src = list_type_at(name, &i);
	return dst;
}

/* The marks of troof_math, substrings of a kernel's name. A tensor-core mark wins: "tensorop_s1688gemm" also
 * holds "gemm", and a TF32 xmma name holds "f32f32". */
static const char *const tensor_math_marks[] = {"tf32", "tensorop_s"};
static const char *const simt_math_marks[] = {"sgemm", "scudnn", "_engine<float", "gemm_f32f32_f32f32"};

static bool has_mark(ns_str name, const char *const *marks, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (memmem(name.ptr, name.len, marks[i], strlen(marks[i])) != NULL)
			return true;
	return false;
}

/* The names that carry a mark hold one of these too (CUTLASS's tensorop_s convolutions in cuDNN are named
 * cutlass_cudnn*::...tf32), so most kernels (element-wise, reductions) are turned away with three searches
 * instead of six, on the path every kernel of the trace takes. */
static const char *const math_names[] = {"gemm", "cudnn", "tf32"};

static signed char kernel_math(ns_str name)
{
	if (name.len < 4 || /* no mark is shorter; also no memmem on an absent name */
	    !has_mark(name, math_names, sizeof(math_names) / sizeof(math_names[0])))
		return TROOF_MATH_UNSAID;
	if (has_mark(name, tensor_math_marks, sizeof(tensor_math_marks) / sizeof(tensor_math_marks[0])))
		return TROOF_MATH_TENSOR;
	if (has_mark(name, simt_math_marks, sizeof(simt_math_marks) / sizeof(simt_math_marks[0])))
		return TROOF_MATH_SIMT;
	return TROOF_MATH_UNSAID;
}

static kernel_facts facts_of(ns_str name)
{
	kernel_facts f = {true, is_comm_kernel(name), -1, -1, TROOF_MATH_UNSAID};

	if (!f.comm) {
		f.list_dtype = list_dtype_of(name, &f.list_src_dtype);
		f.math = kernel_math(name);
	}
	return f;
}

/* What the kernel name says, read once a distinct name: a trace launches a few hundred kernels hundreds of
 * thousands of times, and hashing a name costs less than the substring searches. */
static kernel_facts kernel_facts_of(ns_trace_roofline *c, ns_str name)
{
	uint32_t id = intern(c, name);
	size_t old = c->cap_facts;

	if (id == 0)
		return facts_of(name);
	if (id >= old) {
		if (!grow((void **)&c->kernel_facts, &c->cap_facts, (size_t)id + 1, sizeof(kernel_facts)))
			return facts_of(name);
		memset(c->kernel_facts + old, 0, (c->cap_facts - old) * sizeof(kernel_facts));
	}
	if (!c->kernel_facts[id].known)
		c->kernel_facts[id] = facts_of(name);
	return c->kernel_facts[id];
}

ns_status ns_trace_roofline_event(const ns_trace_event *ev, void *ctx, ns_error *err)
{
	ns_trace_roofline *c = ctx;
	kernel_rec *k;
	kernel_facts f;

	if (ev->ph != 'X' || (c->need_shapes && !collecting(c, ev)))
		return NS_OK;
	if (ev->cat == NS_TCAT_CPU_OP) {
		ns_status st = add_node(c, ev, err);
		if (st != NS_OK || ev->external_id < 0)
			return st;
		st = add_op(c, ev, err);
		return st != NS_OK ? st : add_span(c, ev, err);
	}
	if (ev->cat == NS_TCAT_RUNTIME && ev->correlation >= 0 && ev->has_ts)
		return add_launch(c, ev, err);
	if (ev->cat != NS_TCAT_KERNEL || !ev->has_dur || (ev->external_id < 0 && ev->correlation < 0))
		return NS_OK;
	if (!grow((void **)&c->kernels, &c->cap_kernels, c->nkernels + 1, sizeof(kernel_rec)))
		return nomem(err);
	k = &c->kernels[c->nkernels++];
	k->ext = ev->external_id;
	k->corr = ev->correlation;
	k->ns = ev->dur_ns;
	k->device = ev->device;
	f = kernel_facts_of(c, ev->name);
	k->comm = f.comm;
	k->list_dtype = f.list_dtype;
	k->list_src_dtype = f.list_src_dtype;
	k->math = f.math;
	return c->oom ? nomem(err) : NS_OK;
}

ns_status ns_trace_roofline_tee_event(const ns_trace_event *ev, void *ctx, ns_error *err)
{
	ns_trace_roofline_tee *t = ctx;
	ns_status st = t->first(ev, t->first_ctx, err);

	return st != NS_OK ? st : ns_trace_roofline_event(ev, t->roof, err);
}

/* ---- finish: link kernels to ops, then place them (troof_place.c) ---- */

static int cmp_kernel(const void *a, const void *b)
{
	return ns_order_i64(((const kernel_rec *)a)->ext, ((const kernel_rec *)b)->ext);
}

static int cmp_op(const void *a, const void *b)
{
	return ns_order_i64(((const op_rec *)a)->ext, ((const op_rec *)b)->ext);
}

static int cmp_other(const void *a, const void *b)
{
	return ns_order_i64(((const other_op *)a)->ext, ((const other_op *)b)->ext);
}

/* The deviceProperties name of the GPU that ran the most kernel time. */
static void busiest_device(const ns_trace_roofline *c, const ns_trace_meta *meta, char *buf, size_t size)
{
	int64_t best_ns = -1;

	buf[0] = '\0';
	for (size_t d = 0; meta != NULL && d < meta->ndevices; d++) {
		int64_t ns = 0;
		for (size_t i = 0; i < c->nkernels; i++)
			if (c->kernels[i].device == meta->devices[d].id)
				ns = ns_sat_add_i64(ns, c->kernels[i].ns);
		if (ns > best_ns && meta->devices[d].name[0] != '\0') {
			best_ns = ns;
			snprintf(buf, size, "%s", meta->devices[d].name);
		}
	}
}

/* ---- kernels whose External id names no op: linked through their launch call ---- */

static bool has_ext(const other_op *ids, size_t n, int64_t ext)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ids[mid].ext < ext)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo].ext == ext;
}

static bool op_has_ext(const ns_trace_roofline *c, int64_t ext)
{
	size_t lo = 0, hi = c->nops;

	if (ext < 0)
		return false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->ops[mid].ext < ext)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo < c->nops && c->ops[lo].ext == ext) || has_ext(c->other_ops, c->nother, ext);
}

static int cmp_launch_corr(const void *a, const void *b)
{
	return ns_order_i64(((const launch_rec *)a)->corr, ((const launch_rec *)b)->corr);
}

static const launch_rec *find_launch(const ns_trace_roofline *c, int64_t corr)
{
	size_t lo = 0, hi = c->nlaunches;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->launches[mid].corr < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nlaunches && c->launches[lo].corr == corr ? &c->launches[lo] : NULL;
}

/* A kernel waiting for the op that encloses its launch call: the launch's thread and time. */
typedef struct {
	size_t kernel;
	int64_t pid, tid, ts;
} pending_link;

static int cmp_thread_time(int64_t pa, int64_t ta, int64_t sa, int64_t pb, int64_t tb, int64_t sb)
{
	int d = ns_order_i64(pa, pb);

	if (d == 0)
		d = ns_order_i64(ta, tb);
	return d != 0 ? d : ns_order_i64(sa, sb);
}

/* By thread, then start; an enclosing op (same start, later end) before the ops it encloses. */
static int cmp_span(const void *a, const void *b)
{
	const op_span *x = a, *y = b;
	int d = cmp_thread_time(x->pid, x->tid, x->start, y->pid, y->tid, y->start);

	return d != 0 ? d : ns_order_i64(y->end, x->end);
}

static int cmp_pending(const void *a, const void *b)
{
	const pending_link *x = a, *y = b;

	return cmp_thread_time(x->pid, x->tid, x->ts, y->pid, y->tid, y->ts);
}

static bool same_thread(const op_span *s, const pending_link *p)
{
	return s->pid == p->pid && s->tid == p->tid;
}

/* One sweep over each thread's ops in start order with the stack of ops still open: at a launch, the top of
 * the stack is the innermost op enclosing it. Kernels of launches outside every op keep ext -1. */
static ns_status link_by_enclosing_op(ns_trace_roofline *c, pending_link *p, size_t np, ns_troof_report *r,
                                      ns_error *err)
{
	size_t *stack = calloc(c->nspans + 1, sizeof(size_t)); /* indices into c->spans */
	size_t depth = 0, s = 0;

	if (stack == NULL || !ns_sort_stable(c->spans, c->nspans, sizeof(op_span), cmp_span) ||
	    !ns_sort_stable(p, np, sizeof(pending_link), cmp_pending)) {
		free(stack);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < np; i++) {
		kernel_rec *k = &c->kernels[p[i].kernel];
		if (i == 0 || p[i].pid != p[i - 1].pid || p[i].tid != p[i - 1].tid)
			depth = 0;
		while (s < c->nspans && cmp_thread_time(c->spans[s].pid, c->spans[s].tid, c->spans[s].start,
		                                        p[i].pid, p[i].tid, p[i].ts) <= 0) {
			if (same_thread(&c->spans[s], &p[i])) {
				while (depth > 0 && c->spans[stack[depth - 1]].end <= c->spans[s].start)
					depth--;
				stack[depth++] = s;
			}
			s++;
		}
		while (depth > 0 && c->spans[stack[depth - 1]].end <= p[i].ts)
			depth--;
		if (depth > 0) {
			k->ext = c->spans[stack[depth - 1]].ext;
			r->linked_by_launch++;
		} else {
			r->unlinked[NS_TROOF_LAUNCH_OUTSIDE_OPS]++;
			r->unlinked_ns[NS_TROOF_LAUNCH_OUTSIDE_OPS] += k->ns;
		}
	}
	free(stack);
	return NS_OK;
}

static void unlinked(ns_troof_report *r, kernel_rec *k, ns_troof_unlinked why)
{
	k->ext = -1;
	r->unlinked[why]++;
	r->unlinked_ns[why] += k->ns;
}

/* Kernels whose External id names no CPU op: the runtime call with their correlation id names the op by its
 * own External id, or else is enclosed in time by the op on its thread. Needs ops and other_ops sorted. */
static ns_status link_through_launches(ns_trace_roofline *c, ns_troof_report *r, ns_error *err)
{
	pending_link *p = calloc(c->nkernels + 1, sizeof(*p));
	size_t np = 0;
	ns_status st;

	if (p == NULL || !ns_sort_stable(c->launches, c->nlaunches, sizeof(launch_rec), cmp_launch_corr)) {
		free(p);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < c->nkernels; i++) {
		kernel_rec *k = &c->kernels[i];
		const launch_rec *l;
		if (op_has_ext(c, k->ext))
			continue;
		if (k->corr < 0 || (l = find_launch(c, k->corr)) == NULL) {
			unlinked(r, k, NS_TROOF_NO_LAUNCH);
		} else if (op_has_ext(c, l->ext)) {
			k->ext = l->ext;
			r->linked_by_launch++;
		} else {
			k->ext = -1;
			p[np++] = (pending_link){i, l->pid, l->tid, l->ts};
		}
	}
	st = link_by_enclosing_op(c, p, np, r, err);
	free(p);
	return st;
}

static const ns_device *find_device(const ns_device_table *t, const ns_troof_options *o, ns_troof_report *r)
{
	const ns_device *dev;

	r->from_option = o->device != NULL;
	dev =
	    o->device != NULL
	        ? ns_devices_find(t, o->device)
	        : (r->ns_trace_device[0] != '\0' ? ns_devices_match_trace_name(t, r->ns_trace_device) : NULL);
	if (dev != NULL) {
		r->device_known = true;
		snprintf(r->device, sizeof(r->device), "%s", dev->name);
		r->has_tf32 = dev->peak[NS_DTYPE_TF32] > 0.0;
		r->mem_bw = dev->mem_bw;
		r->half_dtype = dev->peak[NS_DTYPE_BF16] > 0.0 ? NS_DTYPE_BF16 : NS_DTYPE_FP16;
	}
	return dev;
}

ns_status ns_trace_roofline_finish(ns_trace_roofline *c, const ns_trace_meta *meta, const ns_troof_options *o,
                                   ns_troof_report *out, ns_error *err)
{
	const ns_device *dev;
	ns_status st;

	memset(out, 0, sizeof(*out));
	out->kernels = (long)c->nkernels;
	busiest_device(c, meta, out->ns_trace_device, sizeof(out->ns_trace_device));
	/* No table: every device is unknown, and the report says so. */
	dev = o->devices != NULL ? find_device(o->devices, o, out) : NULL;
	/* Every sort here is stable, so that records with equal keys stay in the order they came in (the
	 * first of an op's kernels, the outer of two ops with one External id) whatever the C library. */
	if (!ns_sort_stable(c->ops, c->nops, sizeof(op_rec), cmp_op) ||
	    !ns_sort_stable(c->other_ops, c->nother, sizeof(other_op), cmp_other))
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	if ((st = link_through_launches(c, out, err)) != NS_OK)
		return st;
	if (!ns_sort_stable(c->kernels, c->nkernels, sizeof(kernel_rec), cmp_kernel))
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	if (dev == NULL || c->nops + c->nother == 0)
		return NS_OK;
	return troof_place(c, dev, o, out, err);
}
