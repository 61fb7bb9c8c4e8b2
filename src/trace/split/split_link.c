/* GPU records linked to the runtime calls that launched them (correlation id), and through them to the host
 * ops around the launch: what a communication op launches is communication. */
#include <stdlib.h>

#include "trace/split/split_private.h"
#include "util/satmath.h"

static int cmp_launch(const void *a, const void *b)
{
	uint32_t x = ((const launch_rec *)a)->corr_bits & LAUNCH_CORR_MASK;
	uint32_t y = ((const launch_rec *)b)->corr_bits & LAUNCH_CORR_MASK;
	return (x > y) - (x < y);
}

static int cmp_launch_call(const void *a, const void *b)
{
	const launch_call *x = a, *y = b;
	return (x->corr > y->corr) - (x->corr < y->corr);
}

static int cmp_thread_span(const void *a, const void *b)
{
	const thread_span *x = a, *y = b;
	if (x->thread != y->thread)
		return (x->thread > y->thread) - (x->thread < y->thread);
	return (x->start > y->start) - (x->start < y->start);
}

/* corr's offset in launch_rec.corr_bits, or false when no launch_rec can hold it. */
static bool packed_corr(const ns_trace_split *s, int64_t corr, uint32_t *bits)
{
	if (!s->launch_based || corr < s->launch_corr0 || corr - s->launch_corr0 > (int64_t)LAUNCH_CORR_MASK)
		return false;
	*bits = (uint32_t)(corr - s->launch_corr0);
	return true;
}

static bool find_packed(const ns_trace_split *s, uint32_t bits, size_t *i)
{
	launch_rec key = {.corr_bits = bits};
	const launch_rec *l = ns_bsearch(&key, s->launch, s->nlaunch, sizeof(key), cmp_launch);

	if (l == NULL)
		return false;
	*i = (size_t)(l - s->launch);
	return true;
}

bool split_launch_find(const ns_trace_split *s, int64_t corr, size_t *i)
{
	launch_call key = {.corr = corr};
	const launch_call *w;
	uint32_t bits;

	if (packed_corr(s, corr, &bits) && find_packed(s, bits, i))
		return true;
	w = ns_bsearch(&key, s->wide_launch, s->nwide_launch, sizeof(key), cmp_launch_call);
	if (w == NULL)
		return false;
	*i = s->nlaunch + (size_t)(w - s->wide_launch);
	return true;
}

/* hint: the index after the previous hit; GPU events mostly come in launch order. */
static bool find_launch(ns_trace_split *s, int64_t corr, size_t *i, size_t *hint)
{
	uint32_t bits;

	if (corr < 0)
		return false;
	if (*hint < s->nlaunch && packed_corr(s, corr, &bits) &&
	    (s->launch[*hint].corr_bits & LAUNCH_CORR_MASK) == bits)
		*i = *hint;
	else if (!split_launch_find(s, corr, i))
		return false;
	*hint = *i + 1;
	return true;
}

void split_launches_sort(ns_trace_split *s)
{
	/* a table kept in order needs not even ns_sort's check, a pass over it (keep_launch() notes order) */
	if (s->launch_unsorted)
		ns_sort(s->launch, s->nlaunch, sizeof(*s->launch), cmp_launch);
	if (s->wide_launch_unsorted)
		ns_sort(s->wide_launch, s->nwide_launch, sizeof(*s->wide_launch), cmp_launch_call);
	s->launch_unsorted = s->wide_launch_unsorted = false;
}

bool split_launch_of(const ns_trace_split *s, int64_t corr, launch_call *out)
{
	size_t i;

	if (!split_launch_find(s, corr, &i))
		return false;
	*out = split_launch_get(s, i);
	return true;
}

/* Where the last search of each sorted table ended. The GPU records are linked in time order, and their
 * External ids and launch times mostly grow with it, so the next answer is mostly there or just after: a
 * search looks at those two places before it halves anything. On the 300 MB generated trace the three
 * binary searches a record were 14 % of the split's end (callgrind; issue 27). */
typedef struct {
	size_t comm_ext, memgemm_ext, comm_span;
} link_cursors;

/* Narrows the search for the first index of [0, n] whose entry is not before the key (the entries before it
 * come first) from the cursor at <= n, given whether the entries at, at + 1 and at - 1 are before it (false
 * where there is none). True when that index is *lo; else it is in [*lo, *hi). */
static bool narrow(size_t n, size_t at, bool before_at, bool before_next, bool before_prev, size_t *lo,
                   size_t *hi)
{
	if (before_at) { /* after at */
		*lo = at + 1;
		*hi = n;
		return at + 1 == n || !before_next;
	}
	if (at == 0 || before_prev) { /* at itself */
		*lo = *hi = at;
		return true;
	}
	*lo = 0; /* before at */
	*hi = at;
	return false;
}

/* Whether ext is in the sorted ids v[0..n), searched from *at (moved to the answer). Asked for every GPU
 * record: searched in line, without a comparison callback. */
static bool has_ext(const int64_t *v, size_t n, int64_t ext, size_t *at)
{
	size_t a = *at, lo, hi;
	bool before_at, before_next, before_prev;

	if (ext < 0 || n == 0)
		return false;
	before_at = a < n && v[a] < ext;
	before_next = a + 1 < n && v[a + 1] < ext;
	before_prev = a > 0 && v[a - 1] < ext;
	if (!narrow(n, a, before_at, before_next, before_prev, &lo, &hi)) {
		while (lo < hi) { /* first id >= ext */
			size_t mid = lo + (hi - lo) / 2;
			if (v[mid] < ext)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	*at = lo;
	return lo < n && v[lo] == ext;
}

static bool is_comm_ext(const ns_trace_split *s, int64_t ext, link_cursors *c)
{
	return has_ext(s->comm_ext, s->ncomm_ext, ext, &c->comm_ext);
}

/* A GEMM kernel of an op whose recorded shapes make it memory-bound (ns_op_gemm_memory_bound: too few FLOPs
 * per byte for any device's ridge) is bound by reading its operands, however its kernel is named: it counts
 * as a memory-bound kernel, as a small decode step's do (docs/trace.md, "GEMMs whose shapes make them
 * memory-bound"). The op is the kernel's own External id's, else its launch call's. */
static void shape_memory_gemm(ns_trace_split *s, gpu_rec *g, int64_t launch_ext, link_cursors *c)
{
	uint8_t dev = split_gpu_dev(g);

	if (dev == GPU_DEV_OUTSIDE || split_gpu_kind(g) != GK_COMPUTE ||
	    !(has_ext(s->memgemm_ext, s->nmemgemm_ext, split_gpu_ext(s, g), &c->memgemm_ext) ||
	      has_ext(s->memgemm_ext, s->nmemgemm_ext, launch_ext, &c->memgemm_ext)) ||
	    !split_is_gemm_kernel(s, split_gpu_name(g)))
		return;
	split_gpu_set_kind(g, GK_MEMORY);
	s->shape_gemm[dev]++;
	s->shape_gemm_ns[dev] =
	    ns_sat_add_i64(s->shape_gemm_ns[dev], split_gpu_end(s, g) - split_gpu_start(s, g));
}

static bool span_before(const thread_span *m, uint32_t thread, int64_t ts)
{
	return m->thread < thread || (m->thread == thread && m->start <= ts);
}

/* Whether (thread, ts) lies inside a merged comm-op span, searched from c->comm_span. */
static bool inside_comm_span(const ns_trace_split *s, uint32_t thread, int64_t ts, link_cursors *c)
{
	const thread_span *v = s->comm_span;
	size_t n = s->ncomm_span, a = c->comm_span, lo, hi;

	if (n == 0)
		return false;
	if (!narrow(n, a, a < n && span_before(&v[a], thread, ts),
	            a + 1 < n && span_before(&v[a + 1], thread, ts),
	            a > 0 && span_before(&v[a - 1], thread, ts), &lo, &hi)) {
		while (lo < hi) { /* first span after (thread, ts) */
			size_t mid = lo + (hi - lo) / 2;
			if (span_before(&v[mid], thread, ts))
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	c->comm_span = lo;
	return lo > 0 && v[lo - 1].thread == thread && v[lo - 1].end >= ts;
}

static void prepare_links(ns_trace_split *s)
{
	size_t out = 0;

	split_launches_sort(s);
	ns_sort(s->comm_ext, s->ncomm_ext, sizeof(*s->comm_ext), ns_cmp_i64);
	ns_sort(s->memgemm_ext, s->nmemgemm_ext, sizeof(*s->memgemm_ext), ns_cmp_i64);
	ns_sort(s->comm_span, s->ncomm_span, sizeof(*s->comm_span), cmp_thread_span);
	for (size_t i = 0; i < s->ncomm_span; i++) {
		thread_span *c = &s->comm_span[i];
		if (out > 0 && s->comm_span[out - 1].thread == c->thread &&
		    c->start <= s->comm_span[out - 1].end) {
			if (c->end > s->comm_span[out - 1].end)
				s->comm_span[out - 1].end = c->end;
		} else {
			s->comm_span[out++] = *c;
		}
	}
	s->ncomm_span = out;
}

/* Any GPU work launched by a collective's host op is communication, whatever its name: NCCL, MoE dispatch and
 * combine, custom all-reduce kernels and the copies a collective makes. Returns the launch time of g through
 * *launch_ts (or -1 when its launch is unknown). */
static void link_kernel(ns_trace_split *s, gpu_rec *g, int64_t *launch_ts, int64_t *launch_ext, size_t *hint,
                        link_cursors *c)
{
	launch_call call;
	const launch_call *l = NULL;
	size_t i;

	if (find_launch(s, split_gpu_corr(s, g), &i, hint)) {
		call = split_launch_get(s, i);
		split_launch_set_seen(s, i);
		l = &call;
	}
	split_quality_link(s, g, l);
	*launch_ts = l != NULL ? l->ts : -1;
	*launch_ext = l != NULL ? split_launch_ext(s, l) : -1;
	if (split_gpu_kind(g) == GK_COMM)
		return;
	if (is_comm_ext(s, split_gpu_ext(s, g), c) ||
	    (l != NULL &&
	     (is_comm_ext(s, split_launch_ext(s, l), c) || inside_comm_span(s, l->thread, l->ts, c))))
		split_gpu_set_kind(g, GK_COMM);
}

void split_link_all(ns_trace_split *s, step_hold *h)
{
	size_t hint = 0;
	link_cursors c = {0, 0, 0};

	prepare_links(s);
	split_quality_links_begin(s);
	for (size_t i = 0; i < s->ngpu; i++) {
		gpu_rec *g = &s->gpu[i];
		int64_t lts, lext;
		link_kernel(s, g, &lts, &lext, &hint, &c);
		if (h != NULL)
			split_steps_place(s, h, g, lts);
		if (s->nmemgemm_ext > 0)
			shape_memory_gemm(s, g, lext, &c);
	}
}
