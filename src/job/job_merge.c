/* The streaming merger: summaries in, one job out (the rules are in docs/job.md).
 *
 *  1. each rank is judged on one device: the one with the most collectives (a rank drives one GPU);
 *  2. the k-th collective of a process group is the same operation on every rank (by the profiler's "Seq"
 *     when every collective of the group has one, else by order); names and sizes are checked;
 *  3. clocks: a collective ends at nearly the same moment on every rank, so each rank's offset to the lowest
 *     rank is the median of its end-time differences, consistent when their median deviation is small;
 *  4. waiting: inside a collective before the last rank started it (aligned clocks), counted on the exposed
 *     pieces only; transfer is the rest of exposed comm;
 *  5. stragglers: non-communication step time well above the other ranks' median. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_private.h"
#include "util/hindex.h"
#include "util/satmath.h"
#include "util/sort.h"
#include "util/vec.h"

struct ns_job_merge {
	ns_job_rank **r;
	size_t n, cap;
	ns_hindex by_rank;  /* rank number -> its index in r: a repeated rank is found at once */
	size_t world_from;  /* the index of the first rank that names a world size... */
	int64_t world_size; /* ...and that size (0: none yet); every rank added since agrees with it */
};

ns_job_merge *ns_job_merge_new(void)
{
	ns_job_merge *m = calloc(1, sizeof(ns_job_merge));

	if (m != NULL && !ns_hindex_init(&m->by_rank, 64)) {
		free(m);
		return NULL;
	}
	return m;
}

size_t ns_job_merge_count(const ns_job_merge *m)
{
	return m->n;
}

void ns_job_merge_free(ns_job_merge *m)
{
	if (m == NULL)
		return;
	for (size_t i = 0; i < m->n; i++)
		ns_job_rank_free(m->r[i]);
	free(m->r);
	ns_hindex_free(&m->by_rank);
	free(m);
}

static uint64_t rank_hash(int64_t rank)
{
	return ns_hash_i64_pair(rank, 0);
}

/* The index of the rank numbered rank already added, or -1. */
static ptrdiff_t added_rank(const ns_job_merge *m, int64_t rank)
{
	uint64_t h = rank_hash(rank);
	size_t slot = ns_hindex_home(&m->by_rank, h);
	uint32_t id;

	while (ns_hindex_probe(&m->by_rank, h, &slot, &id))
		if (m->r[id]->rank == rank)
			return (ptrdiff_t)id;
	return -1;
}

static ns_status refuse(ns_job_rank *rank, ns_status st)
{
	ns_job_rank_free(rank);
	return st;
}

ns_status ns_job_merge_add(ns_job_merge *m, ns_job_rank *rank, ns_error *err)
{
	ptrdiff_t again;
	ns_job_rank **grown;

	if (!rank->has_rank)
		return refuse(rank,
		              ns_error_set(err, NS_ERR_VALUE, "no rank (the trace has no distributedInfo)"));
	if (rank->world_size > 0 && rank->rank >= rank->world_size)
		return refuse(rank, ns_error_set(err, NS_ERR_VALUE,
		                                 "rank %" PRId64 " is not a rank of a world of %" PRId64,
		                                 rank->rank, rank->world_size));
	if (rank->world_size > 0 && m->world_size > 0 && rank->world_size != m->world_size)
		return refuse(rank, ns_error_set(err, NS_ERR_VALUE,
		                                 "rank %" PRId64 " is of a job of %" PRId64
		                                 " ranks, %s of one of %" PRId64 ": two jobs are mixed",
		                                 rank->rank, rank->world_size, m->r[m->world_from]->file,
		                                 m->world_size));
	if ((again = added_rank(m, rank->rank)) >= 0)
		return refuse(rank, ns_error_set(err, NS_ERR_VALUE, "rank %" PRId64 " again (first from %s)",
		                                 rank->rank, m->r[again]->file));
	grown = ns_grow(m->r, &m->cap, m->n + 1, sizeof(ns_job_rank *));
	if (grown == NULL || !ns_hindex_add(&m->by_rank, rank_hash(rank->rank), (uint32_t)m->n)) {
		if (grown != NULL)
			m->r = grown;
		return refuse(rank, ns_error_set(err, NS_ERR_NOMEM, "out of memory"));
	}
	m->r = grown;
	if (rank->world_size > 0 && m->world_size == 0) {
		m->world_size = rank->world_size;
		m->world_from = m->n;
	}
	m->r[m->n++] = rank;
	return NS_OK;
}

/* ---- small helpers ---- */

/* Median of v[0..n) (sorted in place): the mean of the two middle values for an even n. */
static int64_t median_i64(int64_t *v, size_t n)
{
	if (n == 0)
		return 0;
	ns_sort(v, n, sizeof(*v), ns_cmp_i64);
	return n % 2 ? v[n / 2] : ns_sat_add_i64(v[n / 2 - 1], ns_sat_sub_i64(v[n / 2], v[n / 2 - 1]) / 2);
}

static double median_double(double *v, size_t n)
{
	if (n == 0)
		return 0;
	ns_sort(v, n, sizeof(*v), ns_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int cmp_rank(const void *a, const void *b)
{
	const ns_job_rank *x = *(ns_job_rank *const *)a, *y = *(ns_job_rank *const *)b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static const ns_job_device *judged(const ns_job_rank_result *r)
{
	return r->src->ndev > 0 ? &r->src->dev[r->device] : NULL;
}

/* The device with the most collectives; on a tie the one with the most busy (non-idle) time. */
static size_t pick_device(const ns_job_rank *k)
{
	size_t best = 0;

	for (size_t i = 1; i < k->ndev; i++) {
		const ns_job_device *a = &k->dev[i], *b = &k->dev[best];
		int64_t busy_a = a->overall.dur_ns - a->overall.bucket_ns[NS_REGIME_IDLE];
		int64_t busy_b = b->overall.dur_ns - b->overall.bucket_ns[NS_REGIME_IDLE];
		if (a->ncoll > b->ncoll || (a->ncoll == b->ncoll && busy_a > busy_b))
			best = i;
	}
	return best;
}

/* Whether a step counts in the whole-run window (the split's rule: warm-up steps left out unless all are). */
static bool step_counts(const ns_job_device *d, size_t i, bool all_warmup)
{
	return all_warmup || !d->steps[i].warmup;
}

static bool all_warmup(const ns_job_device *d)
{
	for (size_t i = 0; i < d->nsteps; i++)
		if (!d->steps[i].warmup)
			return false;
	return true;
}

/* ---- per-rank step statistics ---- */

static ns_status rank_stats(ns_job_rank_result *r, ns_error *err)
{
	const ns_job_device *d = judged(r);
	int64_t *v;
	bool all;

	if (d == NULL || d->nsteps == 0)
		return NS_OK;
	v = malloc(d->nsteps * sizeof(*v));
	if (v == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	all = all_warmup(d);
	/* b = -3: the kernels started, -2: the step time, -1: its non-comm part, then each bucket */
	for (int b = -3; b < NS_REGIME_COUNT; b++) {
		size_t n = 0;
		for (size_t i = 0; i < d->nsteps; i++) {
			const ns_split_window *w = &d->steps[i];
			if (!step_counts(d, i, all))
				continue;
			v[n++] = b == -3   ? (int64_t)w->kernels
			         : b == -2 ? w->dur_ns
			         : b == -1 ? w->dur_ns - w->bucket_ns[NS_REGIME_COMM]
			                   : w->bucket_ns[b];
		}
		int64_t med = median_i64(v, n);
		if (b == -3)
			r->kernels = med;
		else if (b == -2)
			r->median_step_ns = med;
		else if (b == -1)
			r->noncomm_ns = med;
		else
			r->bucket_ns[b] = med;
	}
	free(v);
	return NS_OK;
}

/* ---- matching ---- */

typedef struct {
	char name[NS_SPLIT_COLL_TEXT];
	bool by_seq;
	int64_t min_seq, count; /* ops: count, numbered from min_seq (by seq) or 0 */
	size_t base;            /* first op id */
} group_info;

/* Per collective of every rank's judged device (rank r's from op_start[r]): its group, then its op id. A
 * rank's pass over per-group counters resets only the groups its collectives named, so the passes cost the
 * collectives, not ranks x groups. */
typedef struct {
	group_info *g;
	size_t n, cap;
	ns_hindex index;  /* group name -> its index in g */
	uint32_t *gid;    /* per collective: its group */
	int64_t *op_of;   /* per collective: op id */
	size_t *op_start; /* index of each rank's first collective in gid and op_of */
	size_t nops;
} matching;

static void matching_free(matching *mt)
{
	free(mt->g);
	ns_hindex_free(&mt->index);
	free(mt->gid);
	free(mt->op_of);
	free(mt->op_start);
}

/* The index of group name, added when new. */
static ns_status group_id(matching *mt, const char *name, uint32_t *gi, ns_error *err)
{
	uint64_t h = ns_hash_bytes(name, strlen(name));
	size_t slot = ns_hindex_home(&mt->index, h);
	uint32_t id;
	group_info *grown;

	while (ns_hindex_probe(&mt->index, h, &slot, &id))
		if (strcmp(mt->g[id].name, name) == 0) {
			*gi = id;
			return NS_OK;
		}
	grown = ns_grow(mt->g, &mt->cap, mt->n + 1, sizeof(*grown));
	if (grown == NULL || !ns_hindex_add(&mt->index, h, (uint32_t)mt->n)) {
		if (grown != NULL)
			mt->g = grown;
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	mt->g = grown;
	memset(&mt->g[mt->n], 0, sizeof(mt->g[0]));
	snprintf(mt->g[mt->n].name, sizeof(mt->g[0].name), "%s", name);
	mt->g[mt->n].by_seq = true;
	mt->g[mt->n].min_seq = INT64_MAX;
	*gi = (uint32_t)mt->n++;
	return NS_OK;
}

/* Pass 1: where each rank's collectives start in the tables, and each collective's group. */
static ns_status name_groups(ns_job_result *res, matching *mt, ns_error *err)
{
	size_t total = 0, at = 0;
	ns_status st = NS_OK;

	for (size_t r = 0; r < res->nranks; r++)
		total += judged(&res->rank[r]) != NULL ? judged(&res->rank[r])->ncoll : 0;
	/* gid and op_start zeroed: the passes after this one walk the same collectives, which clang's
	 * analyzer cannot see (it takes their entries for garbage) */
	mt->gid = calloc(total + 1, sizeof(*mt->gid));
	mt->op_start = calloc(res->nranks + 1, sizeof(*mt->op_start));
	mt->op_of = malloc((total + 1) * sizeof(*mt->op_of));
	if (mt->gid == NULL || mt->op_of == NULL || mt->op_start == NULL || !ns_hindex_init(&mt->index, 16))
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	for (size_t r = 0; r < res->nranks && st == NS_OK; r++) {
		const ns_job_device *d = judged(&res->rank[r]);
		mt->op_start[r] = at;
		for (size_t i = 0; d != NULL && i < d->ncoll && st == NS_OK; i++)
			st = group_id(mt, d->coll[i].group, &mt->gid[at++], err);
	}
	mt->op_start[res->nranks] = at;
	return st;
}

/* Sets every counter of the groups that rank r's collectives name to v. */
static void reset_named(const matching *mt, size_t r, int64_t *counter, int64_t v)
{
	for (size_t k = mt->op_start[r]; k < mt->op_start[r + 1]; k++)
		counter[mt->gid[k]] = v;
}

/* Pass 2: whether each group can be matched by seq, and how many ops each holds. */
static void count_ops(const ns_job_result *res, matching *mt, int64_t *count)
{
	for (size_t r = 0; r < res->nranks; r++) {
		const ns_job_device *d = judged(&res->rank[r]);
		for (size_t i = 0; d != NULL && i < d->ncoll; i++) {
			const ns_split_collective *c = &d->coll[i];
			size_t gi = mt->gid[mt->op_start[r] + i];
			group_info *g = &mt->g[gi];
			count[gi]++;
			if (count[gi] > g->count)
				g->count = count[gi];
			if (c->seq < 0)
				g->by_seq = false;
			else if (c->seq < g->min_seq)
				g->min_seq = c->seq;
		}
		reset_named(mt, r, count, 0);
	}
}

/* Pass 3: seqs must rise on every rank and span a range not much wider than the ops seen. */
static void check_seqs(const ns_job_result *res, matching *mt, int64_t *prev, int64_t *max_seq)
{
	for (size_t gi = 0; gi < mt->n; gi++)
		prev[gi] = max_seq[gi] = INT64_MIN;
	for (size_t r = 0; r < res->nranks; r++) {
		const ns_job_device *d = judged(&res->rank[r]);
		for (size_t i = 0; d != NULL && i < d->ncoll; i++) {
			const ns_split_collective *c = &d->coll[i];
			size_t gi = mt->gid[mt->op_start[r] + i];
			if (!mt->g[gi].by_seq)
				continue;
			if (c->seq <= prev[gi])
				mt->g[gi].by_seq = false;
			prev[gi] = c->seq;
			if (c->seq > max_seq[gi])
				max_seq[gi] = c->seq;
		}
		reset_named(mt, r, prev, INT64_MIN);
	}
	for (size_t gi = 0; gi < mt->n; gi++) {
		group_info *g = &mt->g[gi];
		if (g->by_seq && max_seq[gi] - g->min_seq < 4 * g->count + 1024)
			g->count = max_seq[gi] - g->min_seq + 1;
		else
			g->by_seq = false;
		g->base = mt->nops;
		mt->nops += (size_t)g->count;
	}
}

/* Pass 4: each collective's op id. */
static void assign_ops(const ns_job_result *res, matching *mt, int64_t *ord)
{
	memset(ord, 0, mt->n * sizeof(*ord));
	for (size_t r = 0; r < res->nranks; r++) {
		const ns_job_device *d = judged(&res->rank[r]);
		for (size_t i = 0; d != NULL && i < d->ncoll; i++) {
			const ns_split_collective *c = &d->coll[i];
			size_t at = mt->op_start[r] + i, gi = mt->gid[at];
			const group_info *g = &mt->g[gi];
			int64_t k = g->by_seq ? c->seq - g->min_seq : ord[gi]++;
			mt->op_of[at] = (int64_t)g->base + k;
		}
		reset_named(mt, r, ord, 0);
	}
}

static ns_status match_ops(ns_job_result *res, matching *mt, ns_error *err)
{
	int64_t *a, *b;
	ns_status st = name_groups(res, mt, err);

	if (st != NS_OK)
		return st;
	a = calloc(mt->n + 1, sizeof(*a));
	b = calloc(mt->n + 1, sizeof(*b));
	if (a == NULL || b == NULL) {
		free(a);
		free(b);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	count_ops(res, mt, a);
	check_seqs(res, mt, a, b);
	assign_ops(res, mt, a);
	free(a);
	free(b);
	return NS_OK;
}

/* ---- per-op tables ---- */

typedef struct {
	const ns_split_collective *first; /* the first rank's record: what the others are checked against */
	int64_t first_rank;
	int64_t ref_end;    /* end on the reference rank's clock (INT64_MIN: the reference lacks it) */
	int64_t last_start; /* latest aligned start */
	int64_t last_rank;
	int participants;
} op_info;

static bool sizes_must_agree(const char *name)
{
	static const char *const same[] = {"allreduce",     "all_reduce",     "allgather", "all_gather",
	                                   "reducescatter", "reduce_scatter", "broadcast"};
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		if (strstr(name, same[i]) != NULL)
			return true;
	return false;
}

static void check_match(ns_job_result *res, op_info *op, const ns_split_collective *c, int64_t rank,
                        size_t ordinal)
{
	const ns_split_collective *f = op->first;
	bool name_ok = f->name[0] == '\0' || c->name[0] == '\0' || strcmp(f->name, c->name) == 0;
	bool size_ok = f->in_nelems < 0 || c->in_nelems < 0 || f->in_nelems == c->in_nelems ||
	               !sizes_must_agree(f->name);

	/* Step numbers are the profiler's own count, the same on every rank: the same operation runs in the
	 * same step (a capture that starts a step later would otherwise look like a clock one step off). */
	bool step_ok = f->step < 0 || c->step < 0 || f->step == c->step;

	if (name_ok && size_ok && step_ok)
		return;
	if (res->mismatches++ == 0 && name_ok && size_ok)
		snprintf(res->mismatch, sizeof(res->mismatch),
		         "collective %zu of group \"%s\" runs in step %" PRId64 " on rank %" PRId64
		         " but in step %" PRId64 " on rank %" PRId64,
		         ordinal, f->group, c->step, rank, f->step, op->first_rank);
	else if (res->mismatches == 1)
		snprintf(res->mismatch, sizeof(res->mismatch),
		         "collective %zu of group \"%s\" is %s of %" PRId64 " elements on rank %" PRId64
		         " but %s of %" PRId64 " on rank %" PRId64,
		         ordinal, f->group, c->name[0] ? c->name : "unnamed", c->in_nelems, rank,
		         f->name[0] ? f->name : "unnamed", f->in_nelems, op->first_rank);
}

/* Participants, the reference rank's end times and the name/size check. */
static void fill_ops(ns_job_result *res, const matching *mt, op_info *ops)
{
	for (size_t o = 0; o < mt->nops; o++)
		ops[o] = (op_info){NULL, -1, INT64_MIN, INT64_MIN, -1, 0};
	for (size_t r = 0; r < res->nranks; r++) {
		const ns_job_device *d = judged(&res->rank[r]);
		for (size_t i = 0; d != NULL && i < d->ncoll; i++) {
			op_info *op = &ops[mt->op_of[mt->op_start[r] + i]];
			op->participants++;
			if (op->first == NULL) {
				op->first = &d->coll[i];
				op->first_rank = res->rank[r].src->rank;
				if (r == 0)
					op->ref_end = d->coll[i].end_ns;
			} else {
				check_match(res, op, &d->coll[i], res->rank[r].src->rank, i);
			}
		}
	}
	for (size_t o = 0; o < mt->nops; o++)
		res->matched += ops[o].participants >= 2;
}

/* ---- clocks ---- */

static ns_status estimate_offset(ns_job_result *res, const matching *mt, const op_info *ops, size_t r,
                                 ns_error *err)
{
	ns_job_rank_result *rr = &res->rank[r];
	const ns_job_device *d = judged(rr);
	size_t n = 0, nc = d != NULL ? d->ncoll : 0;
	int64_t *v, mad;

	if (r == 0) {
		rr->has_offset = true;
		rr->offset_ns = 0;
		return NS_OK;
	}
	v = malloc((nc + 1) * sizeof(*v));
	if (v == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < nc; i++) {
		const op_info *op = &ops[mt->op_of[mt->op_start[r] + i]];
		if (op->ref_end == INT64_MIN)
			continue;
		v[n] = ns_sat_sub_i64(d->coll[i].end_ns, op->ref_end);
		if (v[n] == INT64_MAX || v[n] == INT64_MIN) { /* saturated: no offset, however consistent */
			free(v);
			if (res->why_not[0] == '\0')
				snprintf(res->why_not, sizeof(res->why_not),
				         "rank %" PRId64 "'s clock is more than 2^63 ns from rank %" PRId64
				         "'s: it cannot be aligned",
				         rr->src->rank, res->rank[0].src->rank);
			return NS_OK;
		}
		n++;
	}
	if (n < NS_JOB_CLOCK_MIN_MATCHES) {
		free(v);
		if (res->why_not[0] == '\0')
			snprintf(res->why_not, sizeof(res->why_not),
			         "rank %" PRId64 " shares %zu collective(s) with rank %" PRId64
			         ", fewer than %d: its clock cannot be aligned",
			         rr->src->rank, n, res->rank[0].src->rank, NS_JOB_CLOCK_MIN_MATCHES);
		return NS_OK;
	}
	rr->offset_ns = median_i64(v, n);
	for (size_t i = 0; i < n; i++) {
		int64_t dev = ns_sat_sub_i64(v[i], rr->offset_ns);
		v[i] = dev >= 0 ? dev : dev == INT64_MIN ? INT64_MAX : -dev;
	}
	mad = median_i64(v, n);
	free(v);
	rr->has_offset = true;
	if (mad > NS_JOB_CLOCK_MAD_NS && res->why_not[0] == '\0')
		snprintf(res->why_not, sizeof(res->why_not),
		         "rank %" PRId64 "'s collectives end %.1f us apart from rank %" PRId64
		         "'s after aligning its clock (median deviation; at most %.0f us is consistent): the "
		         "clocks "
		         "cannot be aligned",
		         rr->src->rank, (double)mad / 1e3, res->rank[0].src->rank, NS_JOB_CLOCK_MAD_NS / 1e3);
	return NS_OK;
}

/* ---- waiting ---- */

/* Exposed time of c inside [a, b). */
static int64_t exposed_within(const ns_split_collective *c, int64_t a, int64_t b)
{
	double sum = 0;

	for (unsigned i = 0; i < c->npieces; i++) {
		const ns_split_piece *p = &c->piece[i];
		int64_t lo = p->start_ns > a ? p->start_ns : a, hi = p->end_ns < b ? p->end_ns : b;
		int64_t len = p->end_ns - p->start_ns;
		if (hi <= lo)
			continue;
		sum += len == p->ns ? (double)(hi - lo) : (double)p->ns * ((double)(hi - lo) / (double)len);
	}
	return (int64_t)(sum + 0.5);
}

static void last_starts(ns_job_result *res, const matching *mt, op_info *ops)
{
	for (size_t r = 0; r < res->nranks; r++) {
		const ns_job_device *d = judged(&res->rank[r]);
		for (size_t i = 0; d != NULL && i < d->ncoll; i++) {
			op_info *op = &ops[mt->op_of[mt->op_start[r] + i]];
			int64_t s = ns_sat_sub_i64(d->coll[i].start_ns, res->rank[r].offset_ns);
			if (s > op->last_start) {
				op->last_start = s;
				op->last_rank = res->rank[r].src->rank;
			}
		}
	}
}

/* The first step of d that ends after t, or d->nsteps: the steps are in time order and disjoint (the summary
 * reader checks it; a split makes them so), so their ends ascend. */
static size_t first_step_ending_after(const ns_job_device *d, int64_t t)
{
	size_t lo = 0, hi = d->nsteps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->steps[mid].start_ns + d->steps[mid].dur_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Adds the waiting of collective c (inside [c.start, until)) to the steps it crosses. Only the steps under
 * its exposed pieces can get any: the pieces of a device's collectives follow each other in time (each
 * exposed instant is one collective's), so over all collectives these are each step about once. */
static int64_t add_wait(const ns_job_device *d, const ns_split_collective *c, int64_t until,
                        int64_t *step_wait)
{
	int64_t total = 0, from, to;

	if (c->npieces == 0)
		return 0;
	from = c->piece[0].start_ns > c->start_ns ? c->piece[0].start_ns : c->start_ns;
	to = c->piece[c->npieces - 1].end_ns < until ? c->piece[c->npieces - 1].end_ns : until;
	for (size_t s = first_step_ending_after(d, from); s < d->nsteps; s++) {
		const ns_split_window *w = &d->steps[s];
		int64_t a = c->start_ns > w->start_ns ? c->start_ns : w->start_ns;
		int64_t b = until < w->start_ns + w->dur_ns ? until : w->start_ns + w->dur_ns;
		if (w->start_ns >= to)
			break;
		if (b > a) {
			int64_t x = exposed_within(c, a, b);
			step_wait[s] += x;
			total += x;
		}
	}
	return total;
}

size_t job_rank_index(const ns_job_result *res, int64_t rank)
{
	size_t lo = 0, hi = res->nranks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (res->rank[mid].src->rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Per rank waited for, the waiting of one rank: only the ranks it waited for are touched and reset, so the
 * job costs its collectives, not ranks x ranks. */
typedef struct {
	int64_t *ns;     /* per rank index */
	size_t *touched; /* the indices with ns set, each once */
	size_t ntouched;
} wait_tally;

static void tally_add(wait_tally *t, size_t k, int64_t ns)
{
	if (ns == 0)
		return;
	if (t->ns[k] == 0)
		t->touched[t->ntouched++] = k;
	t->ns[k] += ns;
}

/* The rank index waited for longest (the lowest on a tie), or -1; the tally is then empty. */
static ptrdiff_t tally_take_most(wait_tally *t)
{
	ptrdiff_t best = -1;

	for (size_t i = 0; i < t->ntouched; i++) {
		ptrdiff_t k = (ptrdiff_t)t->touched[i];
		if (t->ns[k] == 0)
			continue;
		/* Ties go to the lower rank index, so the answer does not depend on arrival order. */
		bool lower_on_tie = best > k;
		if (best < 0 || t->ns[k] > t->ns[best] || (t->ns[k] == t->ns[best] && lower_on_tie))
			best = k;
	}
	for (size_t i = 0; i < t->ntouched; i++)
		t->ns[t->touched[i]] = 0;
	t->ntouched = 0;
	return best;
}

static ns_status rank_waiting(ns_job_result *res, const matching *mt, const op_info *ops, size_t r,
                              wait_tally *per, ns_error *err)
{
	ns_job_rank_result *rr = &res->rank[r];
	const ns_job_device *d = judged(rr);
	int64_t wait = 0, exposed;
	ptrdiff_t best;
	bool all;

	if (d == NULL || d->nsteps == 0)
		return NS_OK;
	rr->step_wait_ns = calloc(d->nsteps, sizeof(*rr->step_wait_ns));
	if (rr->step_wait_ns == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < d->ncoll; i++) {
		const ns_split_collective *c = &d->coll[i];
		const op_info *op = &ops[mt->op_of[mt->op_start[r] + i]];
		int64_t until;
		if (op->participants < 2 || op->last_rank == rr->src->rank)
			continue;
		until = ns_sat_add_i64(op->last_start, rr->offset_ns);
		until = until < c->end_ns ? until : c->end_ns;
		if (until > c->start_ns) { /* rr's waiting for the last rank: its, and the job's */
			size_t k = job_rank_index(res, op->last_rank);
			int64_t x = add_wait(d, c, until, rr->step_wait_ns);
			tally_add(per, k, x);
			res->rank[k].waited_on_ns = ns_sat_add_i64(res->rank[k].waited_on_ns, x);
			res->wait_ns = ns_sat_add_i64(res->wait_ns, x);
		}
	}
	best = tally_take_most(per);
	rr->waited_for = best >= 0 ? res->rank[best].src->rank : -1;
	all = all_warmup(d);
	for (size_t s = 0; s < d->nsteps; s++)
		if (step_counts(d, s, all))
			wait += rr->step_wait_ns[s];
	exposed = rr->overall.cause_ns[NS_CAUSE_EXPOSED];
	wait = wait < exposed ? wait : exposed;
	rr->overall.cause_ns[NS_CAUSE_WAIT] = wait;
	rr->overall.cause_ns[NS_CAUSE_COMM_TRANSFER] = exposed - wait;
	rr->overall.cause_ns[NS_CAUSE_EXPOSED] = 0;
	return NS_OK;
}

/* How many of the collectives rank r shares with another rank it started last (on the aligned clocks). */
static void count_last(ns_job_result *res, const matching *mt, const op_info *ops, size_t r)
{
	ns_job_rank_result *rr = &res->rank[r];
	const ns_job_device *d = judged(rr);

	for (size_t i = 0; d != NULL && i < d->ncoll; i++) {
		const op_info *op = &ops[mt->op_of[mt->op_start[r] + i]];
		if (op->participants < 2)
			continue;
		rr->shared_ops++;
		rr->last_ops += op->last_rank == rr->src->rank;
	}
}

static ns_status split_waiting(ns_job_result *res, const matching *mt, op_info *ops, ns_error *err)
{
	wait_tally per = {calloc(res->nranks + 1, sizeof(int64_t)), calloc(res->nranks + 1, sizeof(size_t)),
	                  0};
	ns_status st = NS_OK;

	if (per.ns == NULL || per.touched == NULL) {
		free(per.ns);
		free(per.touched);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	last_starts(res, mt, ops);
	for (size_t r = 0; r < res->nranks && st == NS_OK; r++) {
		count_last(res, mt, ops, r);
		st = rank_waiting(res, mt, ops, r, &per, err);
	}
	free(per.ns);
	free(per.touched);
	if (st == NS_OK)
		res->split = true;
	return st;
}

/* ---- where the ranks start each step ---- */

typedef struct {
	int64_t step, start, rank;
} step_start;

static int cmp_step_start(const void *a, const void *b)
{
	const step_start *x = a, *y = b;

	if (x->step != y->step)
		return (x->step > y->step) - (x->step < y->step);
	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The counted steps of every rank by number, on the aligned clocks: the largest spread of one step's starts
 * and the rank that starts it last. */
static ns_status start_spread(ns_job_result *res, ns_error *err)
{
	size_t n = 0, k = 0;
	step_start *v;

	res->late_rank = -1;
	for (size_t r = 0; r < res->nranks; r++)
		n += judged(&res->rank[r]) != NULL ? judged(&res->rank[r])->nsteps : 0;
	if (n < 2)
		return NS_OK;
	if ((v = malloc(n * sizeof(*v))) == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	for (size_t r = 0; r < res->nranks; r++) {
		const ns_job_rank_result *rr = &res->rank[r];
		const ns_job_device *d = judged(rr);
		bool all = d != NULL && all_warmup(d);
		for (size_t i = 0; d != NULL && rr->has_offset && i < d->nsteps; i++)
			if (d->steps[i].step >= 0 && step_counts(d, i, all))
				v[k++] = (step_start){d->steps[i].step,
				                      ns_sat_sub_i64(d->steps[i].start_ns, rr->offset_ns),
				                      rr->src->rank};
	}
	ns_sort(v, k, sizeof(*v), cmp_step_start);
	for (size_t i = 0, j; i < k; i = j) {
		for (j = i + 1; j < k && v[j].step == v[i].step; j++)
			;
		if (j - i < 2)
			continue;
		res->spread_steps++;
		if (ns_sat_sub_i64(v[j - 1].start, v[i].start) > res->start_spread_ns) {
			res->start_spread_ns = ns_sat_sub_i64(v[j - 1].start, v[i].start);
			res->late_rank = v[j - 1].rank;
		}
	}
	free(v);
	return NS_OK;
}

/* ---- clocks, matching and waiting together ---- */

static ns_status align_and_split(ns_job_result *res, ns_error *err)
{
	matching mt = {0};
	op_info *ops = NULL;
	ns_status st;

	if (res->nranks < 2) {
		snprintf(res->why_not, sizeof(res->why_not),
		         "one rank only: waiting cannot be told from transfer without the others");
		return NS_OK;
	}
	st = match_ops(res, &mt, err);
	if (st == NS_OK && mt.nops > 0 && (ops = malloc(mt.nops * sizeof(*ops))) == NULL)
		st = ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	res->groups = mt.n;
	if (st == NS_OK && mt.nops > 0)
		fill_ops(res, &mt, ops);
	if (st == NS_OK && res->mismatches > 0)
		snprintf(res->why_not, sizeof(res->why_not),
		         "the collectives do not match across ranks: %.200s", res->mismatch);
	else if (st == NS_OK && res->matched == 0)
		snprintf(res->why_not, sizeof(res->why_not), "no collective was found on two ranks");
	for (size_t r = 0; st == NS_OK && res->why_not[0] == '\0' && r < res->nranks; r++)
		st = estimate_offset(res, &mt, ops, r, err);
	if (st == NS_OK && res->why_not[0] == '\0')
		st = split_waiting(res, &mt, ops, err);
	if (st == NS_OK && res->split)
		st = start_spread(res, err);
	free(ops);
	matching_free(&mt);
	return st;
}

/* ---- stragglers and the median split ---- */

static double share_of(const ns_job_rank_result *r, int b)
{
	return r->overall.dur_ns > 0 ? (double)r->overall.bucket_ns[b] / (double)r->overall.dur_ns : 0;
}

/* A value of each rank with steps, sorted, so that the median of all but one rank is read in O(1): the
 * straggler search asks it of every rank, which sorting the others each time made ranks^2 log ranks. */
typedef struct {
	int64_t *v;  /* sorted */
	double *d;   /* or these, sorted (a share) */
	size_t *pos; /* per rank index: its value's place in v or d */
	size_t n;
} loo_median;

typedef struct {
	int64_t v;
	double d;
	size_t rank;
} loo_item;

static int cmp_loo_i64(const void *a, const void *b)
{
	return ns_cmp_i64(&((const loo_item *)a)->v, &((const loo_item *)b)->v);
}

static int cmp_loo_double(const void *a, const void *b)
{
	return ns_cmp_double(&((const loo_item *)a)->d, &((const loo_item *)b)->d);
}

/* Leaves the pointers NULL, so that freeing a set whose build failed part way frees nothing twice. */
static void loo_free(loo_median *m)
{
	free(m->v);
	free(m->d);
	free(m->pos);
	m->v = NULL;
	m->d = NULL;
	m->pos = NULL;
}

/* The ranks' values (with steps) of what: -3 kernels, -2 non-comm time, 0..NS_REGIME_COUNT-1 that bucket, and
 * NS_REGIME_COUNT + b the share of bucket b (as doubles). */
static bool loo_build(loo_median *m, const ns_job_result *res, int what)
{
	loo_item *it = malloc((res->nranks + 1) * sizeof(*it));
	bool shares = what >= NS_REGIME_COUNT;

	*m = (loo_median){NULL, NULL, calloc(res->nranks + 1, sizeof(size_t)), 0};
	if (shares)
		m->d = malloc((res->nranks + 1) * sizeof(double));
	else
		m->v = malloc((res->nranks + 1) * sizeof(int64_t));
	if (it == NULL || m->pos == NULL || (m->d == NULL && m->v == NULL)) {
		free(it);
		loo_free(m);
		return false;
	}
	for (size_t r = 0; r < res->nranks; r++) {
		const ns_job_rank_result *rr = &res->rank[r];
		if (rr->median_step_ns == 0)
			continue;
		it[m->n++] = (loo_item){what == -3   ? rr->kernels
		                        : what == -2 ? rr->noncomm_ns
		                        : shares     ? 0
		                                     : rr->bucket_ns[what],
		                        shares ? share_of(rr, what - NS_REGIME_COUNT) : 0, r};
	}
	/* stable: equal values of two ranks keep the ranks' order in pos */
	if (!ns_sort_stable(it, m->n, sizeof(*it), shares ? cmp_loo_double : cmp_loo_i64)) {
		free(it);
		loo_free(m);
		return false;
	}
	for (size_t k = 0; k < m->n; k++) {
		if (shares)
			m->d[k] = it[k].d;
		else
			m->v[k] = it[k].v;
		m->pos[it[k].rank] = k;
	}
	free(it);
	return true;
}

/* The k-th of the sorted values without the one at p. */
static size_t loo_at(size_t k, size_t p)
{
	return k < p ? k : k + 1;
}

/* The median of the values of every rank with steps but rank index skip (which has steps). */
static int64_t loo_i64(const loo_median *m, size_t skip)
{
	size_t p = m->pos[skip], n = m->n - 1;
	int64_t lo, hi;

	if (n == 0)
		return 0;
	hi = m->v[loo_at(n / 2, p)];
	if (n % 2)
		return hi;
	lo = m->v[loo_at(n / 2 - 1, p)];
	return ns_sat_add_i64(lo, ns_sat_sub_i64(hi, lo) / 2);
}

static double loo_double(const loo_median *m, size_t skip)
{
	size_t p = m->pos[skip], n = m->n - 1;

	if (n == 0)
		return 0;
	return n % 2 ? m->d[loo_at(n / 2, p)] : (m->d[loo_at(n / 2 - 1, p)] + m->d[loo_at(n / 2, p)]) / 2;
}

/* Every leave-one-out median the straggler search reads. */
enum {
	LOO_KERNELS,
	LOO_NONCOMM,
	LOO_BUCKET,
	LOO_SHARE = LOO_BUCKET + NS_REGIME_COUNT,
	LOO_COUNT = LOO_SHARE + NS_REGIME_COUNT
};

static void loo_free_all(loo_median *m)
{
	for (int i = 0; i < LOO_COUNT; i++)
		loo_free(&m[i]);
}

static bool loo_build_all(loo_median *m, const ns_job_result *res)
{
	bool ok = true;

	memset(m, 0, LOO_COUNT * sizeof(*m));
	for (int i = 0; i < LOO_COUNT && ok; i++)
		ok = loo_build(&m[i], res, i == LOO_KERNELS ? -3 : i == LOO_NONCOMM ? -2 : i - LOO_BUCKET);
	if (!ok)
		loo_free_all(m);
	return ok;
}

static const char *const straggler_kind_names[NS_STRAGGLER_KIND_COUNT] = {
    [NS_STRAGGLER_HOST] = "host",          [NS_STRAGGLER_DEVICE] = "device",
    [NS_STRAGGLER_WORK] = "work",          [NS_STRAGGLER_INPUTS] = "inputs",
    [NS_STRAGGLER_JITTER] = "host_jitter", [NS_STRAGGLER_ALLOC] = "allocator",
};

const char *ns_job_straggler_kind_name(ns_job_straggler_kind k)
{
	return (unsigned)k < NS_STRAGGLER_KIND_COUNT ? straggler_kind_names[k] : NULL;
}

static int64_t noncomm_of(const ns_split_window *w)
{
	return w->dur_ns - w->bucket_ns[NS_REGIME_COMM];
}

/* Per step number, the longest non-comm time of the ranks that are not stragglers: a straggler is slowest in
 * a step when it is slower than every one of them (another straggler, on the same slow node, may well be as
 * slow: it is not compared with). Built once for all stragglers. */
typedef struct {
	int64_t step, max_noncomm;
} step_max;

typedef struct {
	step_max *e;
	size_t n, cap;
	ns_hindex index; /* step number -> its entry */
} step_table;

static step_max *step_entry(const step_table *t, int64_t step)
{
	uint64_t h = ns_hash_i64_pair(step, 1);
	size_t slot = ns_hindex_home(&t->index, h);
	uint32_t id;

	while (ns_hindex_probe(&t->index, h, &slot, &id))
		if (t->e[id].step == step)
			return &t->e[id];
	return NULL;
}

/* Whether d's step numbers ascend: numbered by ProfilerStep (a device without them has none to match). Of
 * equal numbers, the first step counts. */
static bool numbers_ascend(const ns_job_device *d)
{
	for (size_t i = 1; i < d->nsteps; i++)
		if (d->steps[i].step < d->steps[i - 1].step)
			return false;
	return true;
}

static ns_status step_table_add(step_table *t, const ns_split_window *w)
{
	step_max *e = step_entry(t, w->step), *grown;

	if (e != NULL) {
		e->max_noncomm = noncomm_of(w) > e->max_noncomm ? noncomm_of(w) : e->max_noncomm;
		return NS_OK;
	}
	grown = ns_grow(t->e, &t->cap, t->n + 1, sizeof(*grown));
	if (grown == NULL)
		return NS_ERR_NOMEM;
	t->e = grown;
	if (!ns_hindex_add(&t->index, ns_hash_i64_pair(w->step, 1), (uint32_t)t->n))
		return NS_ERR_NOMEM;
	t->e[t->n++] = (step_max){w->step, noncomm_of(w)};
	return NS_OK;
}

static ns_status step_table_build(step_table *t, const ns_job_result *res)
{
	ns_status st = NS_OK;

	memset(t, 0, sizeof(*t));
	if (!ns_hindex_init(&t->index, 64))
		return NS_ERR_NOMEM;
	for (size_t r = 0; r < res->nranks && st == NS_OK; r++) {
		const ns_job_device *d = judged(&res->rank[r]);
		if (d == NULL || res->rank[r].straggler || !numbers_ascend(d))
			continue;
		for (size_t i = 0; i < d->nsteps && st == NS_OK; i++)
			if (d->steps[i].step >= 0 && (i == 0 || d->steps[i].step != d->steps[i - 1].step))
				st = step_table_add(t, &d->steps[i]);
	}
	return st;
}

static void step_table_free(step_table *t)
{
	free(t->e);
	ns_hindex_free(&t->index);
}

/* In how many of rank r's counted steps its non-comm time was longer than that of every rank that is no
 * straggler and had the same step (s->slowest_steps of s->compared_steps). */
static void count_slowest_steps(const ns_job_result *res, const step_table *t, size_t r, ns_job_straggler *s)
{
	const ns_job_device *d = judged(&res->rank[r]);
	bool all = all_warmup(d);

	for (size_t i = 0; i < d->nsteps; i++) {
		const ns_split_window *w = &d->steps[i];
		const step_max *e;
		if (!step_counts(d, i, all) || w->step < 0 || (e = step_entry(t, w->step)) == NULL)
			continue;
		s->compared_steps++;
		s->slowest_steps += noncomm_of(w) > e->max_noncomm;
	}
}

/* A rank's host stalls (alloc: its allocator calls' time) a step, over its judged device's steps. */
static int64_t per_step(const ns_job_rank_result *rr, bool alloc)
{
	const ns_job_device *d = judged(rr);
	size_t n = d != NULL && d->nsteps > 0 ? d->nsteps : 1;

	return (alloc ? rr->src->alloc_ns : rr->src->host_stall_ns) / (int64_t)n;
}

/* Whether the straggler's host-side excess is mostly `mine` a step (its stalls, or its allocator calls) and
 * the other ranks have (nearly) none of it: 1 or 0, -1 without memory for the others' median. */
static int excess_is(const ns_job_result *res, size_t r, const ns_job_straggler *s, int64_t mine, bool alloc)
{
	int64_t *others, median;
	size_t n = 0;

	if (mine <= 0 || (double)mine < NS_JOB_JITTER_SHARE * (double)s->excess_ns || res->nranks < 2)
		return 0;
	others = malloc((res->nranks - 1) * sizeof(*others));
	if (others == NULL)
		return -1;
	for (size_t i = 0; i < res->nranks; i++)
		if (i != r)
			others[n++] = per_step(&res->rank[i], alloc);
	ns_sort(others, n, sizeof(*others), ns_cmp_i64);
	median = others[n / 2];
	free(others);
	return (double)median <= NS_JOB_JITTER_OTHERS * (double)mine;
}

/* The index of d's first step numbered `step` (d's numbers ascend), or SIZE_MAX when it has none. */
static size_t find_step(const ns_job_device *d, int64_t step)
{
	size_t lo = 0, hi = d->nsteps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->steps[mid].step < step)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nsteps && d->steps[lo].step == step ? lo : SIZE_MAX;
}

/* A rank's host stalls in its judged device's step i: 0 for a rank without stalls, -1 when its summary
 * has stalls but was written before their steps were. */
static int64_t stall_in_step(const ns_job_rank_result *rr, const ns_job_device *d, size_t i)
{
	if (d->step_stall_ns != NULL)
		return d->step_stall_ns[i];
	return rr->src->host_stalls > 0 ? -1 : 0;
}

/* Rank r's step i against the other ranks' step of the same number: their median non-comm time and stall
 * time. false when no other rank had that step (or one of them cannot say its stalls: *unknown). */
static bool others_in_step(const ns_job_result *res, size_t r, const bool *ascend, int64_t step, int64_t *nc,
                           int64_t *st, int64_t *noncomm, int64_t *stall, bool *unknown)
{
	size_t n = 0;

	for (size_t k = 0; k < res->nranks; k++) {
		const ns_job_device *o = judged(&res->rank[k]);
		size_t i;
		if (k == r || !ascend[k] || (i = find_step(o, step)) == SIZE_MAX)
			continue;
		nc[n] = noncomm_of(&o->steps[i]);
		if ((st[n] = stall_in_step(&res->rank[k], o, i)) < 0)
			*unknown = true;
		n++;
	}
	*noncomm = median_i64(nc, n);
	*stall = median_i64(st, n);
	return n > 0 && !*unknown;
}

/* Host jitter step by step (docs/job.md, "Why a rank is slow"): each counted step of the straggler is set
 * against the other ranks' step of the same number, on each rank's own clock (skew does not matter). A step
 * is the stalls' when they hold at least NS_JOB_JITTER_SHARE of its excess over the others' median and the
 * others' median stall time in that step is at most NS_JOB_JITTER_OTHERS of its. The straggler is jitter
 * when most compared steps are: a rank slow every step with one long stall is not; its stalls averaged over
 * the run would have said it was. 1: jitter, 0: not, -1: no step compared or a rank's summary without its
 * steps' stalls (the whole-run rule then), STALLS_OOM: no memory to compare them (an error, not the
 * whole-run rule: that would word another straggler in silence). */
#define STALLS_OOM (-2)

static int stalls_by_step(const ns_job_result *res, size_t r, ns_job_straggler *s)
{
	const ns_job_rank_result *rr = &res->rank[r];
	const ns_job_device *d = judged(rr);
	int64_t *nc, *st;
	bool all, unknown = false, *ascend;

	if (d == NULL || d->nsteps == 0 || !numbers_ascend(d) || stall_in_step(rr, d, 0) < 0 ||
	    res->nranks < 2)
		return -1;
	nc = malloc(2 * res->nranks * sizeof(*nc));
	ascend = malloc(res->nranks * sizeof(*ascend));
	if (nc == NULL || ascend == NULL) {
		free(nc);
		free(ascend);
		return STALLS_OOM;
	}
	st = nc + res->nranks;
	for (size_t k = 0; k < res->nranks; k++) /* once: a rank's steps are searched by number */
		ascend[k] = judged(&res->rank[k]) != NULL && numbers_ascend(judged(&res->rank[k]));
	all = all_warmup(d);
	for (size_t i = 0; i < d->nsteps && !unknown; i++) {
		int64_t mine = stall_in_step(rr, d, i), noncomm, stall, excess;
		if (!step_counts(d, i, all) || d->steps[i].step < 0 ||
		    !others_in_step(res, r, ascend, d->steps[i].step, nc, st, &noncomm, &stall, &unknown))
			continue;
		excess = noncomm_of(&d->steps[i]) - noncomm;
		s->stall_compared++;
		s->stall_steps += mine > 0 && excess > 0 &&
		                  (double)mine >= NS_JOB_JITTER_SHARE * (double)excess &&
		                  (double)stall <= NS_JOB_JITTER_OTHERS * (double)mine;
	}
	free(nc);
	free(ascend);
	if (unknown || s->stall_compared == 0) {
		s->stall_steps = s->stall_compared = 0;
		return -1;
	}
	return 2 * s->stall_steps > s->stall_compared;
}

/* Host jitter (docs/job.md, "Why a rank is slow"): the excess is rare multi-millisecond stalls of calls that
 * take microseconds everywhere else (a launch, an event record, an aten::empty that did not call the
 * allocator). Its dispatch is as fast as the others'; the host was taken from it (CPU contention, the garbage
 * collector, a co-located process, affinity), so CUDA graphs would not help. The allocator: the excess is
 * cudaMalloc/cudaFree the others do not call, the caching allocator missing or flushing its cache on this
 * rank (its memory is fuller, or its shapes vary); pinning cores would not help. Stalls are judged first:
 * their time already leaves out the allocator calls nested in them. */
static ns_status host_kind(const ns_job_result *res, size_t r, ns_job_straggler *s)
{
	int by_step = stalls_by_step(res, r, s), stalls = 0, allocs;

	if (by_step == STALLS_OOM)
		return NS_ERR_NOMEM;
	if (by_step < 0 && (stalls = excess_is(res, r, s, s->stall_ns, false)) < 0)
		return NS_ERR_NOMEM;
	if (by_step == 1 || stalls == 1) {
		s->kind = NS_STRAGGLER_JITTER;
		return NS_OK;
	}
	if ((allocs = excess_is(res, r, s, s->alloc_ns, true)) < 0)
		return NS_ERR_NOMEM;
	s->kind = allocs == 1 ? NS_STRAGGLER_ALLOC : NS_STRAGGLER_HOST;
	return NS_OK;
}

/* What makes the straggler slow (docs/job.md): a host-side bucket is that bucket's; on the device, more
 * kernels a step is more work, the same kernels slower in (nearly) every step is the rank's GPU or host, and
 * slower in some steps only is its inputs. Without steps to compare, the same kernels count as the device. */
static ns_status classify_straggler(const ns_job_result *res, const step_table *t, size_t r,
                                    int64_t others_kernels, ns_job_straggler *s)
{
	const ns_job_rank_result *rr = &res->rank[r];

	s->kernels_ratio = others_kernels > 0 ? (double)rr->kernels / (double)others_kernels : 0;
	s->stall_ns = per_step(rr, false);
	s->alloc_ns = per_step(rr, true);
	count_slowest_steps(res, t, r, s);
	if (s->bucket != NS_REGIME_COMPUTE && s->bucket != NS_REGIME_MEMORY)
		return host_kind(res, r, s);
	if (others_kernels > 0 && s->kernels_ratio > 1.0 + NS_JOB_SAME_WORK_SHARE)
		s->kind = NS_STRAGGLER_WORK;
	else if (s->compared_steps > 0 &&
	         (double)s->slowest_steps < NS_JOB_PERSISTENT_SHARE * (double)s->compared_steps)
		s->kind = NS_STRAGGLER_INPUTS;
	else
		s->kind = NS_STRAGGLER_DEVICE;
	return NS_OK;
}

/* With aligned clocks, a straggler is the rank the others wait for: a meaningful share (JOB_LAST_SHARE_*) of
 * the job's waiting in collectives is for it to arrive. A rank with more non-comm time whose collectives
 * still start with the others' (its extra time overlaps their waiting, or lies before the captured steps)
 * holds nobody up. Without aligned clocks, or without waiting, nothing says who was last. */
static bool arrives_last(const ns_job_result *res, const ns_job_rank_result *rr)
{
	double need = res->nranks > 0 ? 2.0 / (double)res->nranks : 1.0;

	if (!res->split || res->wait_ns <= 0)
		return true;
	need = need < NS_JOB_LAST_SHARE_MIN   ? NS_JOB_LAST_SHARE_MIN
	       : need > NS_JOB_LAST_SHARE_MAX ? NS_JOB_LAST_SHARE_MAX
	                                      : need;
	return (double)rr->waited_on_ns >= need * (double)res->wait_ns;
}

static int cmp_straggler(const void *a, const void *b)
{
	const ns_job_straggler *x = a, *y = b;
	return (x->excess_ns < y->excess_ns) - (x->excess_ns > y->excess_ns);
}

/* Whether rank r is a straggler; if so, its entry (unclassified) in res->strag. */
static void judge_rank(ns_job_result *res, const loo_median *loo, size_t r)
{
	ns_job_rank_result *rr = &res->rank[r];
	int64_t med, excess, best_x = INT64_MIN;
	int best = NS_REGIME_COMPUTE;

	if (rr->median_step_ns == 0)
		return;
	med = loo_i64(&loo[LOO_NONCOMM], r);
	excess = ns_sat_sub_i64(rr->noncomm_ns, med);
	if (excess <= NS_JOB_STRAGGLER_MIN_NS || (double)excess <= NS_JOB_STRAGGLER_SHARE * (double)med ||
	    !arrives_last(res, rr))
		return;
	for (int b = 0; b < NS_REGIME_COUNT; b++) {
		int64_t x;
		if (b == NS_REGIME_COMM)
			continue;
		x = ns_sat_sub_i64(rr->bucket_ns[b], loo_i64(&loo[LOO_BUCKET + b], r));
		if (x > best_x) {
			best_x = x;
			best = b;
		}
	}
	rr->straggler = true;
	res->strag[res->nstrag++] = (ns_job_straggler){
	    .rank = rr->src->rank,
	    .bucket = (ns_regime)best,
	    .share = share_of(rr, best),
	    .median_share = loo_double(&loo[LOO_SHARE + best], r),
	    .excess_ns = excess,
	    .last_ops = rr->last_ops,
	    .shared_ops = rr->shared_ops,
	    .waited_share = res->wait_ns > 0 ? (double)rr->waited_on_ns / (double)res->wait_ns : 0.0};
}

static ns_status find_stragglers(ns_job_result *res, ns_error *err)
{
	loo_median loo[LOO_COUNT];
	step_table t;
	size_t with_steps = 0;
	ns_status st = NS_OK;

	for (size_t r = 0; r < res->nranks; r++)
		with_steps += res->rank[r].median_step_ns > 0;
	res->strag = calloc(res->nranks + 1, sizeof(*res->strag));
	if (res->strag == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	/* an unfit rank's split is no ground to name a straggler on: the job gets no verdict (docs/job.md) */
	if (with_steps < 2 || res->quality == NS_QUALITY_UNFIT)
		return NS_OK;
	if (!loo_build_all(loo, res))
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	for (size_t r = 0; r < res->nranks; r++)
		judge_rank(res, loo, r);
	if (res->nstrag > 0)
		st = step_table_build(&t, res);
	for (size_t i = 0; i < res->nstrag && st == NS_OK; i++) {
		size_t r = job_rank_index(res, res->strag[i].rank);
		st = classify_straggler(res, &t, r, loo_i64(&loo[LOO_KERNELS], r), &res->strag[i]);
	}
	if (res->nstrag > 0)
		step_table_free(&t);
	loo_free_all(loo);
	if (st != NS_OK)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	/* stable: stragglers of equal excess stay in rank order, whatever the C library's qsort does */
	if (!ns_sort_stable(res->strag, res->nstrag, sizeof(*res->strag), cmp_straggler))
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	return NS_OK;
}

/* Far above the rounding of six shares' sum (a few 2^-53), far below any share a report prints. */
#define SHARE_ROUNDING 1e-9

static ns_status median_profile(ns_job_result *res, ns_error *err)
{
	double *v = malloc((res->nranks + 1) * sizeof(*v)), sum = 0;
	size_t n = 0;

	if (v == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	ns_profile_init(&res->median);
	for (int b = 0; b < NS_REGIME_COUNT; b++) {
		n = 0;
		for (size_t r = 0; r < res->nranks; r++)
			if (res->rank[r].overall.dur_ns > 0)
				v[n++] = share_of(&res->rank[r], b);
		res->median.share[b] = median_double(v, n);
		res->median.present[b] = true;
		sum += res->median.share[b];
	}
	/* Medians taken bucket by bucket need not sum to 1; scaled down when they pass it. Not when they pass
	 * it by rounding only: one rank's six quotients of its buckets over its step can sum to 1 + 2^-52,
	 * and scaling by that moved a share of exactly 20 % below the 20 % of a finding graded high, so the
	 * job graded the bucket moderate where the rank's own trace report graded it high. */
	for (int b = 0; sum > 1.0 + SHARE_ROUNDING && b < NS_REGIME_COUNT; b++)
		res->median.share[b] /= sum;
	n = 0;
	for (size_t r = 0; r < res->nranks; r++)
		if (res->rank[r].overall.dur_ns > 0)
			v[n++] = (double)res->rank[r].overall.cause_ns[NS_CAUSE_WAIT] /
			         (double)res->rank[r].overall.dur_ns;
	res->wait_share = median_double(v, n);
	free(v);
	return NS_OK;
}

/* ---- the job ---- */

/* The worst grade so far, and the first rank (in rank order) that has it. */
static void note_quality(ns_job_result *res, const ns_job_rank *k)
{
	res->unfit_ranks += k->quality == NS_QUALITY_UNFIT;
	if (k->quality > res->quality) {
		res->quality = k->quality;
		res->quality_rank = k->rank;
	}
}

static ns_status take_ranks(ns_job_merge *m, ns_job_result *res, ns_error *err)
{
	res->rank = calloc(m->n, sizeof(*res->rank));
	if (res->rank == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	res->quality = -1;
	res->quality_rank = -1;
	res->late_rank = -1; /* no step compared (start_spread() runs only when waiting is split) */
	qsort(m->r, m->n, sizeof(ns_job_rank *), cmp_rank);
	for (size_t i = 0; i < m->n; i++) {
		ns_job_rank_result *r = &res->rank[i];
		r->src = m->r[i];
		r->device = pick_device(r->src);
		r->waited_for = -1;
		if (r->src->ndev > 0)
			r->overall = r->src->dev[r->device].overall;
		r->routable = r->overall.dur_ns > 0;
		if (r->src->world_size > res->world_size)
			res->world_size = r->src->world_size;
		note_quality(res, r->src);
		res->nranks++;
	}
	m->n = 0;
	m->world_size = 0;
	memset(m->by_rank.slot, 0, m->by_rank.nslots * sizeof(*m->by_rank.slot));
	m->by_rank.n = 0;
	return NS_OK;
}

/* A rank's waiting this share of its step or more is worth saying where it comes from. */
#define JOB_WAIT_SHOWN 0.05

/* Rule 9 of docs/job.md: the others wait, and no rank is late often enough to be named. */
static bool waits_without_straggler(const ns_job_result *res)
{
	if (!res->split || res->nstrag > 0 || res->quality == NS_QUALITY_UNFIT)
		return false;
	for (size_t i = 0; i < res->nranks; i++) {
		const ns_split_window *w = &res->rank[i].overall;
		int64_t wait = w->cause_ns[NS_CAUSE_WAIT],
		        exposed = wait + w->cause_ns[NS_CAUSE_COMM_TRANSFER];
		if (exposed > 0 && 2 * wait >= exposed && w->dur_ns > 0 &&
		    (double)wait >= JOB_WAIT_SHOWN * (double)w->dur_ns)
			return true;
	}
	return false;
}

ns_status ns_job_merge_finish(ns_job_merge *m, ns_job_result **out, ns_error *err)
{
	ns_job_result *res;
	ns_status st;

	*out = NULL;
	if (m->n == 0)
		return ns_error_set(err, NS_ERR_VALUE, "no rank summary to merge");
	res = calloc(1, sizeof(*res));
	if (res == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	st = take_ranks(m, res, err);
	for (size_t r = 0; st == NS_OK && r < res->nranks; r++)
		st = rank_stats(&res->rank[r], err);
	if (st == NS_OK)
		st = align_and_split(res, err);
	if (st == NS_OK)
		st = find_stragglers(res, err);
	if (st == NS_OK)
		st = median_profile(res, err);
	if (st == NS_OK)
		res->wait_without_straggler = waits_without_straggler(res);
	if (st != NS_OK) {
		ns_job_result_free(res);
		return st;
	}
	*out = res;
	return NS_OK;
}

void ns_job_result_free(ns_job_result *res)
{
	if (res == NULL)
		return;
	for (size_t i = 0; i < res->nranks; i++) {
		ns_job_rank_free(res->rank[i].src);
		free(res->rank[i].step_wait_ns);
	}
	free(res->rank);
	free(res->strag);
	free(res);
}
