/* The collective timeline of each device: one record per collective kernel, with the metadata the profiler
 * wrote for it (on the kernel itself, or on the record_param_comms op that launched it) and the pieces of its
 * time that ran exposed. A job matches ranks on these records (src/job/). */
#include <stdlib.h>
#include <string.h>

#include "trace/split/split_phases.h"
#include "trace/split/split_private.h"

static void copy_text(char *dst, size_t size, ns_str src)
{
	size_t n = src.len < size - 1 ? src.len : size - 1;

	if (n > 0) /* an absent string has no pointer */
		memcpy(dst, src.ptr, n);
	dst[n] = '\0';
}

/* Only events that can be collectives are kept: kernels (by correlation) and host ops (by External id). */
ns_status split_coll_note(ns_trace_split *s, const ns_trace_event *ev, ns_error *err)
{
	bool kernel = ev->cat == NS_TCAT_KERNEL;
	coll_meta *m;

	if (kernel ? ev->correlation < 0 : (ev->cat != NS_TCAT_CPU_OP || ev->external_id < 0))
		return NS_OK;
	void *grown = ns_grow(s->cmeta, &s->capcmeta, s->ncmeta + 1, sizeof(*s->cmeta));
	if (grown == NULL)
		return split_oom(err);
	s->cmeta = grown;
	m = &s->cmeta[s->ncmeta++];
	memset(m, 0, sizeof(*m));
	m->by_corr = kernel;
	m->key = kernel ? ev->correlation : ev->external_id;
	m->seq = ev->coll_seq;
	m->in = ev->coll_in;
	m->out = ev->coll_out;
	copy_text(m->name, sizeof(m->name), ev->coll_name);
	copy_text(m->group, sizeof(m->group), ev->coll_pg);
	copy_text(m->dtype, sizeof(m->dtype), ev->coll_dtype);
	m->role = split_group_role(ev->coll_pg_desc);
	return NS_OK;
}

static int cmp_meta(const void *a, const void *b)
{
	const coll_meta *x = a, *y = b;

	if (x->by_corr != y->by_corr)
		return x->by_corr ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

void split_coll_prepare(ns_trace_split *s)
{
	ns_sort(s->cmeta, s->ncmeta, sizeof(*s->cmeta), cmp_meta);
}

static const coll_meta *find_meta(const ns_trace_split *s, bool by_corr, int64_t key)
{
	coll_meta k;

	if (key < 0)
		return NULL;
	k.by_corr = by_corr;
	k.key = key;
	return ns_bsearch(&k, s->cmeta, s->ncmeta, sizeof(k), cmp_meta);
}

/* The kernel's own args first (they name the collective it runs), then its launching op's. */
static void apply_meta(const ns_trace_split *s, const gpu_rec *g, ns_split_collective *c)
{
	const coll_meta *m = find_meta(s, true, split_gpu_corr(s, g));

	if (m == NULL)
		m = find_meta(s, false, split_gpu_ext(s, g));
	c->seq = c->in_nelems = c->out_nelems = -1;
	if (m == NULL)
		return;
	c->seq = m->seq;
	c->in_nelems = m->in;
	c->out_nelems = m->out;
	memcpy(c->name, m->name, sizeof(c->name));
	memcpy(c->group, m->group, sizeof(c->group));
	memcpy(c->dtype, m->dtype, sizeof(c->dtype));
	c->role = m->role;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* An all-reduce, by the profiler's collective name or the NCCL/RCCL kernel's
 * (ncclDevKernel_AllReduce_Sum_bf16_RING_LL, ncclKernel_AllReduce_RING_LL_Sum_float). */
static bool is_all_reduce(const ns_trace_split *s, const gpu_rec *g)
{
	const coll_meta *m = find_meta(s, true, split_gpu_corr(s, g));
	const char *name;

	if (m == NULL)
		m = find_meta(s, false, split_gpu_ext(s, g));
	if (m != NULL && m->name[0] != '\0')
		return strcmp(m->name, "allreduce") == 0 || strcmp(m->name, "all_reduce") == 0;
	name = ns_kernel_names_get(s->names, split_gpu_name(g));
	return name != NULL && strstr(name, "AllReduce") != NULL;
}

ns_status split_coll_forward(ns_trace_split *s, ns_error *err)
{
	for (size_t i = 0; i < s->ngpu; i++) {
		const gpu_rec *g = &s->gpu[i];
		launch_call l;
		if (split_gpu_kind(g) != GK_COMM || !split_launch_of(s, split_gpu_corr(s, g), &l) ||
		    !split_phases_in(s->phases, NS_PASS_FORWARD, l.thread, l.ts) || !is_all_reduce(s, g))
			continue;
		void *grown = ns_grow(s->fwd_coll, &s->capfwd_coll, s->nfwd_coll + 1, sizeof(*s->fwd_coll));
		if (grown == NULL)
			return split_oom(err);
		s->fwd_coll = grown;
		s->fwd_coll[s->nfwd_coll++] = split_gpu_corr(s, g);
	}
	ns_sort(s->fwd_coll, s->nfwd_coll, sizeof(*s->fwd_coll), cmp_i64);
	return NS_OK;
}

/* Without a description that names its group, an all-reduce launched in the forward pass is tensor-parallel:
 * data parallelism reduces gradients in or after backward (docs/trace.md, "Which collectives"). */
static void place_role(const ns_trace_split *s, const gpu_rec *g, ns_split_collective *c)
{
	int64_t corr = split_gpu_corr(s, g);

	if (c->role != NS_COLL_ROLE_UNKNOWN || corr < 0 ||
	    ns_bsearch(&corr, s->fwd_coll, s->nfwd_coll, sizeof(*s->fwd_coll), cmp_i64) == NULL)
		return;
	c->role = NS_COLL_ROLE_TP;
	c->by_place = true;
}

/* The step of the window that holds t, or -1. */
static int64_t step_at(const ns_split_device *d, int64_t t)
{
	split_view v = split_device_view(d);
	size_t hint = 0, w = split_window_of(&v, t, &hint);

	return w < v.n ? split_view_get(&v, w)->step : -1;
}

/* Adds [a, b) (exposed) to c's pieces; past the limit the last piece grows into a hull. */
static void add_piece(ns_split_collective *c, int64_t a, int64_t b)
{
	ns_split_piece *last;

	c->exposed_ns += b - a;
	if (c->npieces < NS_SPLIT_COLL_PIECES) {
		c->piece[c->npieces++] = (ns_split_piece){a, b, b - a};
		return;
	}
	last = &c->piece[NS_SPLIT_COLL_PIECES - 1];
	last->end_ns = b;
	last->ns += b - a;
}

/* The exposed list is sorted and disjoint: start at the first interval ending after the kernel starts. An
 * exposed instant inside two overlapping collectives belongs to the earlier one only (*claimed: the end of
 * what earlier collectives took), so a device's exposed comm is counted once. */
static void add_exposed(const span_list *exposed, ns_split_collective *c, int64_t *claimed)
{
	size_t lo = 0, hi = exposed->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (exposed->v[mid].end <= c->start_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < exposed->n && exposed->v[i].start < c->end_ns; i++) {
		int64_t a = exposed->v[i].start > c->start_ns ? exposed->v[i].start : c->start_ns;
		int64_t b = exposed->v[i].end < c->end_ns ? exposed->v[i].end : c->end_ns;
		a = a > *claimed ? a : *claimed;
		if (b > a) {
			add_piece(c, a, b);
			*claimed = b;
		}
	}
}

ns_status split_coll_build(const ns_trace_split *s, const gpu_rec *g, size_t n, const span_list *exposed,
                           ns_split_device *d, ns_error *err)
{
	size_t count = 0, k = 0;
	int64_t claimed = INT64_MIN;

	for (size_t i = 0; i < n; i++)
		count += split_gpu_kind(&g[i]) == GK_COMM;
	if (count == 0)
		return NS_OK;
	d->coll = calloc(count, sizeof(*d->coll));
	if (d->coll == NULL)
		return split_oom(err);
	for (size_t i = 0; i < n; i++) {
		ns_split_collective *c;
		if (split_gpu_kind(&g[i]) != GK_COMM)
			continue;
		c = &d->coll[k++];
		c->start_ns = split_gpu_start(s, &g[i]);
		c->end_ns = split_gpu_end(s, &g[i]);
		c->step = step_at(d, split_gpu_start(s, &g[i]));
		apply_meta(s, &g[i], c);
		place_role(s, &g[i], c);
		add_exposed(exposed, c, &claimed);
	}
	d->ncoll = count;
	return NS_OK;
}
