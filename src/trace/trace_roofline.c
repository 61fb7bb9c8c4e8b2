#include "nextstep/trace_roofline.h"

#include <stdlib.h>
#include <string.h>

#include "nextstep/format.h"
#include "nextstep/regime.h"
#include "util/satmath.h"
#include "util/sort.h"
#include "util/vec.h"

static const char *const reason_text[TROOF_REASON_COUNT] = {
    [TROOF_NO_SHAPES] = "no shapes (record_shapes=True)",
    [TROOF_NO_DTYPE] = "unknown dtype",
    [TROOF_UNKNOWN_OP] = "unknown op",
    [TROOF_NO_PEAK] = "no peak for the dtype on this device",
    [TROOF_BAD_DIMS] = "Input Dims not a matmul",
};

static const char *const reason_key[TROOF_REASON_COUNT] = {
    [TROOF_NO_SHAPES] = "no_shapes", [TROOF_NO_DTYPE] = "unknown_dtype", [TROOF_UNKNOWN_OP] = "unknown_op",
    [TROOF_NO_PEAK] = "no_peak",     [TROOF_BAD_DIMS] = "bad_dims",
};

/* Text is kept as (offset, length) into one growing arena, so records stay small and flat. */
typedef struct {
	size_t off, len;
} text_ref;

typedef struct {
	int64_t ext;
	double flops;
	text_ref name, dims, types; /* empty unless the op is a matmul op or carries flops */
	bool matmul;
} op_rec;

typedef struct {
	int64_t ext, corr, ns, device; /* ext -1 when absent or linked to nothing */
} kernel_rec;

/* Where and when a CPU op ran, to find the op that encloses a launch call. */
typedef struct {
	int64_t ext, pid, tid, start, end;
} op_span;

/* A runtime call that carries a correlation id: the call that launched the kernel with that id. */
typedef struct {
	int64_t corr, ext, pid, tid, ts;
} launch_rec;

/* Ops that are neither matmuls nor carry flops can only be "unknown op": their External id is all we keep. */
struct trace_roofline {
	op_rec *ops;
	size_t nops, cap_ops;
	int64_t *other_ops;
	size_t nother, cap_other;
	kernel_rec *kernels;
	size_t nkernels, cap_kernels;
	op_span *spans;
	size_t nspans, cap_spans;
	launch_rec *launches;
	size_t nlaunches, cap_launches;
	char *text;
	size_t ntext, cap_text;
};

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

trace_roofline *trace_roofline_new(void)
{
	return calloc(1, sizeof(trace_roofline));
}

void trace_roofline_free(trace_roofline *c)
{
	if (c == NULL)
		return;
	free(c->ops);
	free(c->other_ops);
	free(c->kernels);
	free(c->spans);
	free(c->launches);
	free(c->text);
	free(c);
}

/* The ops roofline_place_op() counts; other ops are reported as unknown, never estimated. */
static bool is_matmul_op(ns_str name)
{
	return roofline_is_matmul_op(name.ptr, name.len);
}

static bool keep_text(trace_roofline *c, ns_str s, text_ref *out)
{
	out->off = out->len = 0;
	if (s.len == 0 || s.len > TROOF_MAX_TEXT)
		return true;
	if (!grow((void **)&c->text, &c->cap_text, c->ntext + s.len, 1))
		return false;
	memcpy(c->text + c->ntext, s.ptr, s.len);
	out->off = c->ntext;
	out->len = s.len;
	c->ntext += s.len;
	return true;
}

static ns_status add_op(trace_roofline *c, const trace_event *ev, ns_error *err)
{
	bool matmul = is_matmul_op(ev->name);
	op_rec *op;

	if (!matmul && ev->flops < 0.0) {
		if (!grow((void **)&c->other_ops, &c->cap_other, c->nother + 1, sizeof(int64_t)))
			return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
		c->other_ops[c->nother++] = ev->external_id;
		return NS_OK;
	}
	if (!grow((void **)&c->ops, &c->cap_ops, c->nops + 1, sizeof(op_rec)))
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	op = &c->ops[c->nops++];
	memset(op, 0, sizeof(*op));
	op->ext = ev->external_id;
	op->flops = ev->flops;
	op->matmul = matmul;
	if (!keep_text(c, ev->name, &op->name) || !keep_text(c, ev->input_dims, &op->dims) ||
	    !keep_text(c, ev->input_types, &op->types))
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	return NS_OK;
}

static ns_status add_span(trace_roofline *c, const trace_event *ev, ns_error *err)
{
	if (!ev->has_ts || !ev->has_dur)
		return NS_OK;
	if (!grow((void **)&c->spans, &c->cap_spans, c->nspans + 1, sizeof(op_span)))
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	c->spans[c->nspans++] =
	    (op_span){ev->external_id, ev->pid, ev->tid, ev->ts_ns, ns_sat_add_i64(ev->ts_ns, ev->dur_ns)};
	return NS_OK;
}

static ns_status add_launch(trace_roofline *c, const trace_event *ev, ns_error *err)
{
	if (!grow((void **)&c->launches, &c->cap_launches, c->nlaunches + 1, sizeof(launch_rec)))
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	c->launches[c->nlaunches++] =
	    (launch_rec){ev->correlation, ev->external_id, ev->pid, ev->tid, ev->ts_ns};
	return NS_OK;
}

ns_status trace_roofline_event(const trace_event *ev, void *ctx, ns_error *err)
{
	trace_roofline *c = ctx;
	kernel_rec *k;

	if (ev->ph != 'X')
		return NS_OK;
	if (ev->cat == TCAT_CPU_OP && ev->external_id >= 0) {
		ns_status st = add_op(c, ev, err);
		return st != NS_OK ? st : add_span(c, ev, err);
	}
	if (ev->cat == TCAT_RUNTIME && ev->correlation >= 0 && ev->has_ts)
		return add_launch(c, ev, err);
	if (ev->cat != TCAT_KERNEL || !ev->has_dur || (ev->external_id < 0 && ev->correlation < 0))
		return NS_OK;
	if (!grow((void **)&c->kernels, &c->cap_kernels, c->nkernels + 1, sizeof(kernel_rec)))
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	k = &c->kernels[c->nkernels++];
	k->ext = ev->external_id;
	k->corr = ev->correlation;
	k->ns = ev->dur_ns;
	k->device = ev->device;
	return NS_OK;
}

ns_status trace_roofline_tee_event(const trace_event *ev, void *ctx, ns_error *err)
{
	trace_roofline_tee *t = ctx;
	ns_status st = t->first(ev, t->first_ctx, err);

	return st != NS_OK ? st : trace_roofline_event(ev, t->roof, err);
}

/* ---- finish: link kernels to ops, place, group ---- */

static int cmp_kernel(const void *a, const void *b)
{
	return ns_order_i64(((const kernel_rec *)a)->ext, ((const kernel_rec *)b)->ext);
}

/* An empty array may have a NULL base, which qsort must not be given. */
static void sort_array(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static int cmp_op(const void *a, const void *b)
{
	return ns_order_i64(((const op_rec *)a)->ext, ((const op_rec *)b)->ext);
}

/* The deviceProperties name of the GPU that ran the most kernel time. */
static void busiest_device(const trace_roofline *c, const trace_meta *meta, char *buf, size_t size)
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

/* The first non-empty string of the Input type list, as a dtype with a roof. */
static bool dtype_of_types(const char *text, size_t len, ns_dtype *out)
{
	cJSON *types = len > 0 ? cJSON_ParseWithLength(text, len) : NULL;
	const cJSON *t;
	bool ok = false;

	cJSON_ArrayForEach(t, types)
	{
		if (cJSON_IsString(t) && t->valuestring[0] != '\0') {
			ok = dtype_from_torch_type(t->valuestring, out);
			break;
		}
	}
	cJSON_Delete(types);
	return ok;
}

/* One op placed on its own, before grouping. */
typedef struct {
	const op_rec *op;
	ns_dtype dtype;
	int64_t ns;
	roofline_op placed;
} placed_op;

typedef struct {
	const trace_roofline *c;
	const ns_device *dev;
	const troof_options *o;
	troof_report *r;
	placed_op *placed;
	size_t nplaced;
} finish_state;

static troof_reason place_one(finish_state *s, const op_rec *op, int64_t ns)
{
	const char *text = s->c->text;
	char name[64];
	placed_op *p = &s->placed[s->nplaced];

	if (!op->matmul || op->name.len >= sizeof(name))
		return TROOF_UNKNOWN_OP;
	if (op->dims.len == 0)
		return TROOF_NO_SHAPES;
	p->dtype = s->o->dtype;
	if (!s->o->has_dtype && !dtype_of_types(text + op->types.off, op->types.len, &p->dtype))
		return TROOF_NO_DTYPE;
	if (s->dev->peak[p->dtype] <= 0.0)
		return TROOF_NO_PEAK;
	memcpy(name, text + op->name.off, op->name.len);
	name[op->name.len] = '\0';
	roofline_place_op(name, text + op->dims.off, op->dims.len, op->flops, ns, p->dtype, s->dev,
	                  ROOFLINE_OVERHEAD_DEFAULT, &p->placed);
	if (!p->placed.placed)
		return TROOF_BAD_DIMS;
	p->op = op;
	p->ns = ns;
	s->nplaced++;
	return TROOF_REASON_COUNT;
}

/* ---- kernels whose External id names no op: linked through their launch call ---- */

static bool has_ext(const int64_t *ids, size_t n, int64_t ext)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ids[mid] < ext)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo] == ext;
}

static bool op_has_ext(const trace_roofline *c, int64_t ext)
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

static const launch_rec *find_launch(const trace_roofline *c, int64_t corr)
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
static ns_status link_by_enclosing_op(trace_roofline *c, pending_link *p, size_t np, troof_report *r,
                                      ns_error *err)
{
	size_t *stack = calloc(c->nspans + 1, sizeof(size_t)); /* indices into c->spans */
	size_t depth = 0, s = 0;

	if (stack == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	sort_array(c->spans, c->nspans, sizeof(op_span), cmp_span);
	sort_array(p, np, sizeof(pending_link), cmp_pending);
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
			r->unlinked[TROOF_LAUNCH_OUTSIDE_OPS]++;
			r->unlinked_ns[TROOF_LAUNCH_OUTSIDE_OPS] += k->ns;
		}
	}
	free(stack);
	return NS_OK;
}

static void unlinked(troof_report *r, kernel_rec *k, troof_unlinked why)
{
	k->ext = -1;
	r->unlinked[why]++;
	r->unlinked_ns[why] += k->ns;
}

/* Kernels whose External id names no CPU op: the runtime call with their correlation id names the op by its
 * own External id, or else is enclosed in time by the op on its thread. Needs ops and other_ops sorted. */
static ns_status link_through_launches(trace_roofline *c, troof_report *r, ns_error *err)
{
	pending_link *p = calloc(c->nkernels + 1, sizeof(*p));
	size_t np = 0;
	ns_status st;

	if (p == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	sort_array(c->launches, c->nlaunches, sizeof(launch_rec), cmp_launch_corr);
	for (size_t i = 0; i < c->nkernels; i++) {
		kernel_rec *k = &c->kernels[i];
		const launch_rec *l;
		if (op_has_ext(c, k->ext))
			continue;
		if (k->corr < 0 || (l = find_launch(c, k->corr)) == NULL) {
			unlinked(r, k, TROOF_NO_LAUNCH);
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

static int64_t kernel_ns(const trace_roofline *c, size_t *k, int64_t ext)
{
	int64_t ns = 0;

	while (*k < c->nkernels && c->kernels[*k].ext < ext)
		(*k)++;
	for (; *k < c->nkernels && c->kernels[*k].ext == ext; (*k)++)
		ns = ns_sat_add_i64(ns, c->kernels[*k].ns);
	return ns;
}

/* Each op with kernels of its own: a merge of the two op lists and the kernels, all sorted by External id. An
 * id seen twice counts once (the kept record first), so no kernel time is counted twice. */
static void place_ops(finish_state *s)
{
	const trace_roofline *c = s->c;
	size_t i = 0, j = 0, k = 0;
	int64_t last = -1; /* ids are >= 0 */

	while (i < c->nops || j < c->nother) {
		bool kept = j == c->nother || (i < c->nops && c->ops[i].ext <= c->other_ops[j]);
		const op_rec *op = kept ? &c->ops[i++] : NULL;
		int64_t ext = kept ? op->ext : c->other_ops[j++], ns;
		troof_reason why;

		if (ext == last)
			continue;
		last = ext;
		if ((ns = kernel_ns(c, &k, ext)) <= 0)
			continue;
		s->r->ops++;
		s->r->ops_ns = ns_sat_add_i64(s->r->ops_ns, ns);
		why = op != NULL ? place_one(s, op, ns) : TROOF_UNKNOWN_OP;
		if (why != TROOF_REASON_COUNT) {
			s->r->unplaced[why]++;
			s->r->unplaced_ns[why] = ns_sat_add_i64(s->r->unplaced_ns[why], ns);
		}
	}
}

static const char *sort_text; /* qsort has no context argument */

static int cmp_text(text_ref a, text_ref b)
{
	size_t n = a.len < b.len ? a.len : b.len;
	int d = memcmp(sort_text + a.off, sort_text + b.off, n);

	return d != 0 ? d : ns_order_i64((int64_t)a.len, (int64_t)b.len);
}

static int cmp_group(const void *a, const void *b)
{
	const placed_op *x = a, *y = b;
	int d = cmp_text(x->op->name, y->op->name);

	if (d == 0)
		d = cmp_text(x->op->dims, y->op->dims);
	return d != 0 ? d : (int)x->dtype - (int)y->dtype;
}

static int cmp_row_time(const void *a, const void *b)
{
	const troof_row *x = a, *y = b;

	if (x->gpu_ns != y->gpu_ns)
		return x->gpu_ns > y->gpu_ns ? -1 : 1;
	return x->flops > y->flops ? -1 : x->flops < y->flops;
}

static char *text_dup(const char *text, text_ref t)
{
	char *s = malloc(t.len + 1);

	if (s != NULL) {
		memcpy(s, text + t.off, t.len);
		s[t.len] = '\0';
	}
	return s;
}

static ns_status add_row(finish_state *s, const placed_op *first, size_t n, ns_error *err)
{
	troof_row *row = &s->r->rows[s->r->nrows];
	roofline_input in;

	memset(row, 0, sizeof(*row));
	row->name = text_dup(s->c->text, first->op->name);
	row->dims = text_dup(s->c->text, first->op->dims);
	s->r->nrows++;
	if (row->name == NULL || row->dims == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	row->dtype = first->dtype;
	row->m = first->placed.m;
	row->n = first->placed.n;
	row->k = first->placed.k;
	row->batch = first->placed.batch;
	for (size_t i = 0; i < n; i++) {
		row->count++;
		row->gpu_ns = ns_sat_add_i64(row->gpu_ns, first[i].ns);
		row->flops += first[i].placed.flops;
		row->bytes += first[i].placed.bytes;
	}
	in = (roofline_input){row->flops,     row->bytes,         s->dev->peak[row->dtype],
	                      s->dev->mem_bw, row->gpu_ns * 1e-9, ROOFLINE_OVERHEAD_DEFAULT};
	return roofline_place(&in, &row->roof, err);
}

static ns_status group_rows(finish_state *s, ns_error *err)
{
	ns_status st = NS_OK;

	if (s->nplaced == 0)
		return NS_OK;
	sort_text = s->c->text;
	qsort(s->placed, s->nplaced, sizeof(placed_op), cmp_group);
	if ((s->r->rows = calloc(s->nplaced, sizeof(troof_row))) == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	for (size_t i = 0, j; st == NS_OK && i < s->nplaced; i = j) {
		for (j = i + 1; j < s->nplaced && cmp_group(&s->placed[i], &s->placed[j]) == 0; j++)
			;
		st = add_row(s, &s->placed[i], j - i, err);
	}
	qsort(s->r->rows, s->r->nrows, sizeof(troof_row), cmp_row_time);
	return st;
}

static const ns_device *find_device(const ns_device_table *t, const troof_options *o, troof_report *r)
{
	const ns_device *dev;

	r->from_option = o->device != NULL;
	dev = o->device != NULL
	          ? devices_find(t, o->device)
	          : (r->trace_device[0] != '\0' ? devices_match_trace_name(t, r->trace_device) : NULL);
	if (dev != NULL) {
		r->device_known = true;
		snprintf(r->device, sizeof(r->device), "%s", dev->name);
		r->has_tf32 = dev->peak[DTYPE_TF32] > 0.0;
	}
	return dev;
}

ns_status trace_roofline_finish(trace_roofline *c, const trace_meta *meta, const troof_options *o,
                                troof_report *out, ns_error *err)
{
	finish_state s = {c, NULL, o, out, NULL, 0};
	ns_status st = NS_OK;

	memset(out, 0, sizeof(*out));
	out->kernels = (long)c->nkernels;
	busiest_device(c, meta, out->trace_device, sizeof(out->trace_device));
	/* No table: every device is unknown, and the report says so. */
	s.dev = o->devices != NULL ? find_device(o->devices, o, out) : NULL;
	sort_array(c->ops, c->nops, sizeof(op_rec), cmp_op);
	sort_array(c->other_ops, c->nother, sizeof(int64_t), ns_cmp_i64);
	if ((st = link_through_launches(c, out, err)) != NS_OK)
		return st;
	sort_array(c->kernels, c->nkernels, sizeof(kernel_rec), cmp_kernel);
	if (s.dev != NULL && c->nops + c->nother > 0) {
		if ((s.placed = calloc(c->nops + 1, sizeof(placed_op))) == NULL) {
			st = ns_error_set(err, NS_ERR_NOMEM, "out of memory");
		} else {
			place_ops(&s);
			st = group_rows(&s, err);
		}
	}
	free(s.placed);
	return st;
}

void troof_report_free(troof_report *r)
{
	for (size_t i = 0; i < r->nrows; i++) {
		free(r->rows[i].name);
		free(r->rows[i].dims);
	}
	free(r->rows);
	memset(r, 0, sizeof(*r));
}

const char *troof_reason_text(troof_reason r)
{
	return (unsigned)r < TROOF_REASON_COUNT ? reason_text[r] : "?";
}

/* ---- output ---- */

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

static void shape_text(const troof_row *row, char *buf, size_t size)
{
	if (row->batch > 1.0)
		snprintf(buf, size, "%.0fx%.0fx%.0fx%.0f", row->batch, row->m, row->n, row->k);
	else
		snprintf(buf, size, "%.0fx%.0fx%.0f", row->m, row->n, row->k);
}

static void print_unplaced(FILE *out, const troof_report *r)
{
	long n = 0;
	int64_t ns = 0;
	const char *sep = "";

	for (int i = 0; i < TROOF_REASON_COUNT; i++) {
		n += r->unplaced[i];
		ns = ns_sat_add_i64(ns, r->unplaced_ns[i]);
	}
	if (n == 0)
		return;
	fprintf(out, "  %ld op%s (%.3f ms of GPU time) could not be placed: ", n, n == 1 ? "" : "s", ms(ns));
	for (int i = 0; i < TROOF_REASON_COUNT; i++) {
		if (r->unplaced[i] == 0)
			continue;
		fprintf(out, "%s%ld %s", sep, r->unplaced[i], reason_text[i]);
		sep = ", ";
	}
	fputc('\n', out);
}

static const char *const unlinked_text[TROOF_UNLINKED_COUNT] = {
    [TROOF_NO_LAUNCH] = "no launch call with its correlation id",
    [TROOF_LAUNCH_OUTSIDE_OPS] = "launched outside every CPU op",
};

static const char *const unlinked_key[TROOF_UNLINKED_COUNT] = {
    [TROOF_NO_LAUNCH] = "no_launch",
    [TROOF_LAUNCH_OUTSIDE_OPS] = "outside_ops",
};

/* Kernels linked through their launch call, and those no op could be found for, with why. */
static void print_links(FILE *out, const troof_report *r)
{
	long n = 0;
	int64_t ns = 0;
	const char *sep = "";

	if (r->linked_by_launch > 0)
		fprintf(
		    out, "  %ld kernel%s linked to the op around %s launch call (no op had %s External id)\n",
		    r->linked_by_launch, r->linked_by_launch == 1 ? "" : "s",
		    r->linked_by_launch == 1 ? "its" : "their", r->linked_by_launch == 1 ? "its" : "their");
	for (int i = 0; i < TROOF_UNLINKED_COUNT; i++) {
		n += r->unlinked[i];
		ns += r->unlinked_ns[i];
	}
	if (n == 0)
		return;
	fprintf(out, "  %ld kernel%s (%.3f ms of GPU time) linked to no op: ", n, n == 1 ? "" : "s", ms(ns));
	for (int i = 0; i < TROOF_UNLINKED_COUNT; i++) {
		if (r->unlinked[i] == 0)
			continue;
		fprintf(out, "%s%ld %s", sep, r->unlinked[i], unlinked_text[i]);
		sep = ", ";
	}
	fputc('\n', out);
}

static void print_device_line(FILE *out, const troof_report *r, const char *const *hints)
{
	const char *given = report_hint_text(hints, REPORT_HINT_DEVICE_GIVEN);

	if (r->from_option)
		fprintf(out, "roofline: %s%s%s", r->device, given != NULL ? " " : "",
		        given != NULL ? given : "");
	else
		fprintf(out, "roofline: %s (trace: %s)", r->device, r->trace_device);
	fprintf(out, ", %ld op%s with GPU time (%.3f ms), %zu shape%s placed\n", r->ops,
	        r->ops == 1 ? "" : "s", ms(r->ops_ns), r->nrows, r->nrows == 1 ? "" : "s");
}

/* "roofline: device ... is not in the device table", with how to name one when the caller says. */
static void print_no_device(FILE *out, const troof_report *r, const char *const *hints)
{
	const char *name_it = report_hint_text(hints, REPORT_HINT_NAME_DEVICE);

	if (r->trace_device[0] != '\0')
		fprintf(out, "roofline: device \"%s\" is not in the device table", r->trace_device);
	else
		fputs("roofline: the trace names no device", out);
	if (name_it != NULL)
		fprintf(out, ": %s", name_it);
	fputc('\n', out);
}

void troof_report_print(FILE *out, const troof_report *r, size_t top, const char *const *hints)
{
	const char *more = report_hint_text(hints, REPORT_HINT_MORE_ROWS);
	const char *tf32 = report_hint_text(hints, REPORT_HINT_TF32);
	bool fp32 = false, above = false;

	if (r->kernels == 0) {
		fputs("roofline: no GPU kernels in this trace\n", out);
		return;
	}
	if (!r->device_known) {
		print_no_device(out, r, hints);
		return;
	}
	print_device_line(out, r, hints);
	if (r->nrows > 0 && top > 0)
		fprintf(out, "  %-14s %-18s %-5s %6s %9s %7s %8s %5s  %s\n", "op", "MxNxK", "dtype", "count",
		        "GPU ms", "FLOP/B", "TFLOP/s", "roof", "regime");
	for (size_t i = 0; i < r->nrows && i < top; i++) {
		const troof_row *row = &r->rows[i];
		char shape[96];
		shape_text(row, shape, sizeof(shape));
		fprintf(out, "  %-14s %-18s %-5s %6ld %9.3f %7.1f %8.2f %4.0f%%  %s%s\n", row->name, shape,
		        dtype_name(row->dtype), row->count, ms(row->gpu_ns), row->roof.intensity,
		        row->roof.achieved_flops / 1e12, 100.0 * row->roof.fraction_of_roof,
		        regime_name(row->roof.regime), row->roof.above_roof ? " (above the roof!)" : "");
		fp32 = fp32 || row->dtype == DTYPE_FP32;
		above = above || row->roof.above_roof;
	}
	if (r->nrows > top)
		fprintf(out, "  ... %zu more%s%s\n", r->nrows - top, more != NULL ? " " : "",
		        more != NULL ? more : "");
	print_unplaced(out, r);
	print_links(out, r);
	if (above)
		fputs("  above the roof means the dtype, the time or the device is wrong\n", out);
	if (fp32 && r->has_tf32)
		fprintf(out, "  fp32 ops are on the fp32 roof%s%s\n", tf32 != NULL ? "; " : "",
		        tf32 != NULL ? tf32 : "");
}

static cJSON *row_json(const troof_row *row)
{
	cJSON *o = cJSON_CreateObject();
	bool ok = o != NULL;

	ok = ok && cJSON_AddStringToObject(o, "name", row->name);
	ok = ok && cJSON_AddStringToObject(o, "input_dims", row->dims);
	ok = ok && cJSON_AddStringToObject(o, "dtype", dtype_name(row->dtype));
	ok = ok && cJSON_AddNumberToObject(o, "m", row->m) && cJSON_AddNumberToObject(o, "n", row->n);
	ok = ok && cJSON_AddNumberToObject(o, "k", row->k) && cJSON_AddNumberToObject(o, "batch", row->batch);
	ok = ok && cJSON_AddNumberToObject(o, "count", (double)row->count);
	ok = ok && cJSON_AddNumberToObject(o, "gpu_us", (double)row->gpu_ns / 1e3);
	ok = ok && cJSON_AddNumberToObject(o, "flops", row->flops);
	ok = ok && cJSON_AddNumberToObject(o, "bytes", row->bytes);
	ok = ok && cJSON_AddNumberToObject(o, "intensity", row->roof.intensity);
	ok = ok && cJSON_AddNumberToObject(o, "achieved_tflops", row->roof.achieved_flops / 1e12);
	ok = ok && cJSON_AddNumberToObject(o, "fraction_of_roof", row->roof.fraction_of_roof);
	ok = ok && cJSON_AddStringToObject(o, "regime", regime_name(row->roof.regime));
	ok = ok && cJSON_AddBoolToObject(o, "above_roof", row->roof.above_roof);
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static bool add_links(cJSON *obj, const troof_report *r)
{
	cJSON *u;
	bool ok = cJSON_AddNumberToObject(obj, "linked_by_launch", (double)r->linked_by_launch) != NULL;

	u = ok ? cJSON_AddObjectToObject(obj, "unlinked_kernels") : NULL;
	ok = u != NULL;
	for (int i = 0; ok && i < TROOF_UNLINKED_COUNT; i++) {
		cJSON *one = cJSON_AddObjectToObject(u, unlinked_key[i]);
		ok = one != NULL && cJSON_AddNumberToObject(one, "kernels", (double)r->unlinked[i]) &&
		     cJSON_AddNumberToObject(one, "gpu_us", (double)r->unlinked_ns[i] / 1e3);
	}
	return ok;
}

static bool add_unplaced(cJSON *obj, const troof_report *r)
{
	cJSON *u = cJSON_AddObjectToObject(obj, "unplaced");
	bool ok = u != NULL;

	for (int i = 0; ok && i < TROOF_REASON_COUNT; i++) {
		cJSON *one = cJSON_AddObjectToObject(u, reason_key[i]);
		ok = one != NULL && cJSON_AddNumberToObject(one, "ops", (double)r->unplaced[i]) &&
		     cJSON_AddNumberToObject(one, "gpu_us", (double)r->unplaced_ns[i] / 1e3);
	}
	return ok;
}

cJSON *troof_report_json(const troof_report *r, size_t top)
{
	cJSON *o = cJSON_CreateObject(), *rows;
	bool ok = o != NULL;

	ok = ok && (r->device_known ? cJSON_AddStringToObject(o, "device", r->device)
	                            : cJSON_AddNullToObject(o, "device")) != NULL;
	ok = ok && (r->trace_device[0] != '\0' ? cJSON_AddStringToObject(o, "trace_device", r->trace_device)
	                                       : cJSON_AddNullToObject(o, "trace_device")) != NULL;
	ok = ok && cJSON_AddBoolToObject(o, "device_from_option", r->from_option);
	ok = ok && cJSON_AddNumberToObject(o, "kernels", (double)r->kernels);
	ok = ok && cJSON_AddNumberToObject(o, "ops", (double)r->ops);
	ok = ok && cJSON_AddNumberToObject(o, "ops_gpu_us", (double)r->ops_ns / 1e3);
	ok = ok && cJSON_AddNumberToObject(o, "shapes", (double)r->nrows);
	rows = ok ? cJSON_AddArrayToObject(o, "top") : NULL;
	ok = rows != NULL;
	for (size_t i = 0; ok && i < r->nrows && i < top; i++) {
		cJSON *row = row_json(&r->rows[i]);
		ok = row != NULL && cJSON_AddItemToArray(rows, row);
		if (!ok)
			cJSON_Delete(row);
	}
	ok = ok && add_unplaced(o, r) && add_links(o, r);
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

ns_status troof_print_with_report(FILE *out, const split_result *res, const report_options *o,
                                  const troof_report *r, ns_error *err)
{
	cJSON *section;
	ns_status st;

	if (o->format->kind != FORMAT_JSON) {
		st = report_print(out, res, o, err);
		if (st == NS_OK && o->format->kind == FORMAT_TEXT) {
			troof_report_print(out, r, o->top, o->hints);
			if (fflush(out) != 0 || ferror(out))
				st = ns_error_set(err, NS_ERR_IO, "write error");
		}
		return st;
	}
	section = troof_report_json(r, o->top);
	if (section == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory while writing the JSON report");
	return report_print_with(out, res, o, "roofline", section, err);
}
