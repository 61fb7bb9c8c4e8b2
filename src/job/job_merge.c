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
#include "util/satmath.h"
#include "util/sort.h"
#include "util/vec.h"

struct job_merge {
	job_rank **r;
	size_t n, cap;
};

job_merge *job_merge_new(void)
{
	return calloc(1, sizeof(job_merge));
}

size_t job_merge_count(const job_merge *m)
{
	return m->n;
}

void job_merge_free(job_merge *m)
{
	if (m == NULL)
		return;
	for (size_t i = 0; i < m->n; i++)
		job_rank_free(m->r[i]);
	free(m->r);
	free(m);
}

ns_status job_merge_add(job_merge *m, job_rank *rank, ns_error *err)
{
	if (!rank->has_rank) {
		job_rank_free(rank);
		return ns_error_set(err, NS_ERR_VALUE, "no rank (the trace has no distributedInfo)");
	}
	for (size_t i = 0; i < m->n; i++) {
		if (rank->world_size > 0 && m->r[i]->world_size > 0 &&
		    rank->world_size != m->r[i]->world_size) {
			ns_error_set(err, NS_ERR_VALUE,
			             "rank %" PRId64 " is of a job of %" PRId64
			             " ranks, %s of one of %" PRId64 ": two jobs are mixed",
			             rank->rank, rank->world_size, m->r[i]->file, m->r[i]->world_size);
			job_rank_free(rank);
			return NS_ERR_VALUE;
		}
		if (m->r[i]->rank == rank->rank) {
			ns_error_set(err, NS_ERR_VALUE, "rank %" PRId64 " again (first from %s)", rank->rank,
			             m->r[i]->file);
			job_rank_free(rank);
			return NS_ERR_VALUE;
		}
	}
	job_rank **grown = ns_grow(m->r, &m->cap, m->n + 1, sizeof(job_rank *));
	if (grown == NULL) {
		job_rank_free(rank);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	m->r = grown;
	m->r[m->n++] = rank;
	return NS_OK;
}

/* ---- small helpers ---- */

/* Median of v[0..n) (sorted in place): the mean of the two middle values for an even n. */
static int64_t median_i64(int64_t *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), ns_cmp_i64);
	return n % 2 ? v[n / 2] : ns_sat_add_i64(v[n / 2 - 1], ns_sat_sub_i64(v[n / 2], v[n / 2 - 1]) / 2);
}

static double median_double(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), ns_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int cmp_rank(const void *a, const void *b)
{
	const job_rank *x = *(job_rank *const *)a, *y = *(job_rank *const *)b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static const job_device *judged(const job_rank_result *r)
{
	return r->src->ndev > 0 ? &r->src->dev[r->device] : NULL;
}

/* The device with the most collectives; on a tie the one with the most busy (non-idle) time. */
static size_t pick_device(const job_rank *k)
{
	size_t best = 0;

	for (size_t i = 1; i < k->ndev; i++) {
		const job_device *a = &k->dev[i], *b = &k->dev[best];
		int64_t busy_a = a->overall.dur_ns - a->overall.bucket_ns[REGIME_IDLE];
		int64_t busy_b = b->overall.dur_ns - b->overall.bucket_ns[REGIME_IDLE];
		if (a->ncoll > b->ncoll || (a->ncoll == b->ncoll && busy_a > busy_b))
			best = i;
	}
	return best;
}

/* Whether a step counts in the whole-run window (the split's rule: warm-up steps left out unless all are). */
static bool step_counts(const job_device *d, size_t i, bool all_warmup)
{
	return all_warmup || !d->steps[i].warmup;
}

static bool all_warmup(const job_device *d)
{
	for (size_t i = 0; i < d->nsteps; i++)
		if (!d->steps[i].warmup)
			return false;
	return true;
}

/* ---- per-rank step statistics ---- */

static ns_status rank_stats(job_rank_result *r, ns_error *err)
{
	const job_device *d = judged(r);
	int64_t *v;
	bool all;

	if (d == NULL || d->nsteps == 0)
		return NS_OK;
	v = malloc(d->nsteps * sizeof(*v));
	if (v == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	all = all_warmup(d);
	/* b = -3: the kernels started, -2: the step time, -1: its non-comm part, then each bucket */
	for (int b = -3; b < REGIME_COUNT; b++) {
		size_t n = 0;
		for (size_t i = 0; i < d->nsteps; i++) {
			const split_window *w = &d->steps[i];
			if (!step_counts(d, i, all))
				continue;
			v[n++] = b == -3   ? (int64_t)w->kernels
			         : b == -2 ? w->dur_ns
			         : b == -1 ? w->dur_ns - w->bucket_ns[REGIME_COMM]
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
	char name[SPLIT_COLL_TEXT];
	bool by_seq;
	int64_t min_seq, count; /* ops: count, numbered from min_seq (by seq) or 0 */
	size_t base;            /* first op id */
} group_info;

typedef struct {
	group_info *g;
	size_t n, cap;
	int64_t *op_of;   /* per rank, per collective of its judged device: op id, -1 when none */
	size_t *op_start; /* index of each rank's first entry in op_of */
	size_t nops;
} matching;

static void matching_free(matching *mt)
{
	free(mt->g);
	free(mt->op_of);
	free(mt->op_start);
}

static long find_group(matching *mt, const char *name)
{
	for (size_t i = 0; i < mt->n; i++)
		if (strcmp(mt->g[i].name, name) == 0)
			return (long)i;
	return -1;
}

static ns_status add_group(matching *mt, const char *name, long *gi, ns_error *err)
{
	if ((*gi = find_group(mt, name)) >= 0)
		return NS_OK;
	group_info *grown = ns_grow(mt->g, &mt->cap, mt->n + 1, sizeof(*grown));
	if (grown == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	mt->g = grown;
	memset(&mt->g[mt->n], 0, sizeof(mt->g[0]));
	snprintf(mt->g[mt->n].name, sizeof(mt->g[0].name), "%s", name);
	mt->g[mt->n].by_seq = true;
	mt->g[mt->n].min_seq = INT64_MAX;
	*gi = (long)mt->n++;
	return NS_OK;
}

/* Pass 1: the groups, whether each can be matched by seq, and how many ops each holds. */
static ns_status scan_groups(job_result *res, matching *mt, ns_error *err)
{
	int64_t *count = NULL, *last_seq = NULL;
	ns_status st = NS_OK;

	for (size_t r = 0; r < res->nranks && st == NS_OK; r++) {
		const job_device *d = judged(&res->rank[r]);
		for (size_t i = 0; d != NULL && i < d->ncoll && st == NS_OK; i++) {
			long gi;
			st = add_group(mt, d->coll[i].group, &gi, err);
		}
	}
	if (st != NS_OK)
		return st;
	count = calloc(mt->n + 1, sizeof(*count));
	last_seq = calloc(mt->n + 1, sizeof(*last_seq));
	if (count == NULL || last_seq == NULL) {
		free(count);
		free(last_seq);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	int64_t *max_seq = last_seq; /* reused below as the per-group maximum */
	for (size_t r = 0; r < res->nranks; r++) {
		const job_device *d = judged(&res->rank[r]);
		memset(count, 0, mt->n * sizeof(*count));
		for (size_t i = 0; d != NULL && i < d->ncoll; i++) {
			const split_collective *c = &d->coll[i];
			long found = find_group(mt, c->group); /* every group was added above */
			if (found < 0)
				continue;
			size_t gi = (size_t)found;
			group_info *g = &mt->g[gi];
			count[gi]++;
			if (count[gi] > g->count)
				g->count = count[gi];
			if (c->seq < 0)
				g->by_seq = false;
			else if (c->seq < g->min_seq)
				g->min_seq = c->seq;
		}
	}
	/* Seqs must rise on every rank and span a range not much wider than the ops seen. */
	for (size_t gi = 0; gi < mt->n; gi++)
		max_seq[gi] = INT64_MIN;
	for (size_t r = 0; r < res->nranks; r++) {
		const job_device *d = judged(&res->rank[r]);
		for (size_t gi = 0; gi < mt->n; gi++)
			count[gi] = INT64_MIN; /* the previous seq */
		for (size_t i = 0; d != NULL && i < d->ncoll; i++) {
			const split_collective *c = &d->coll[i];
			long found = find_group(mt, c->group);
			if (found < 0 || !mt->g[found].by_seq)
				continue;
			size_t gi = (size_t)found;
			if (c->seq <= count[gi])
				mt->g[gi].by_seq = false;
			count[gi] = c->seq;
			if (c->seq > max_seq[gi])
				max_seq[gi] = c->seq;
		}
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
	free(count);
	free(last_seq);
	return NS_OK;
}

/* Pass 2: each collective's op id. */
static ns_status assign_ops(job_result *res, matching *mt, ns_error *err)
{
	size_t total = 0, at = 0;
	int64_t *ord = calloc(mt->n + 1, sizeof(*ord));

	for (size_t r = 0; r < res->nranks; r++)
		total += judged(&res->rank[r]) != NULL ? judged(&res->rank[r])->ncoll : 0;
	mt->op_of = malloc((total + 1) * sizeof(*mt->op_of));
	mt->op_start = malloc((res->nranks + 1) * sizeof(*mt->op_start));
	if (ord == NULL || mt->op_of == NULL || mt->op_start == NULL) {
		free(ord);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	for (size_t r = 0; r < res->nranks; r++) {
		const job_device *d = judged(&res->rank[r]);
		mt->op_start[r] = at;
		memset(ord, 0, mt->n * sizeof(*ord));
		for (size_t i = 0; d != NULL && i < d->ncoll; i++) {
			const split_collective *c = &d->coll[i];
			size_t gi = (size_t)find_group(mt, c->group);
			const group_info *g = &mt->g[gi];
			int64_t k = g->by_seq ? c->seq - g->min_seq : ord[gi]++;
			mt->op_of[at++] = (int64_t)g->base + k;
		}
	}
	mt->op_start[res->nranks] = at;
	free(ord);
	return NS_OK;
}

/* ---- per-op tables ---- */

typedef struct {
	const split_collective *first; /* the first rank's record: what the others are checked against */
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

static void check_match(job_result *res, op_info *op, const split_collective *c, int64_t rank, size_t ordinal)
{
	const split_collective *f = op->first;
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
static void fill_ops(job_result *res, const matching *mt, op_info *ops)
{
	for (size_t o = 0; o < mt->nops; o++)
		ops[o] = (op_info){NULL, -1, INT64_MIN, INT64_MIN, -1, 0};
	for (size_t r = 0; r < res->nranks; r++) {
		const job_device *d = judged(&res->rank[r]);
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

static ns_status estimate_offset(job_result *res, const matching *mt, const op_info *ops, size_t r,
                                 ns_error *err)
{
	job_rank_result *rr = &res->rank[r];
	const job_device *d = judged(rr);
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
		if (op->ref_end != INT64_MIN)
			v[n++] = ns_sat_sub_i64(d->coll[i].end_ns, op->ref_end);
	}
	if (n < JOB_CLOCK_MIN_MATCHES) {
		free(v);
		if (res->why_not[0] == '\0')
			snprintf(res->why_not, sizeof(res->why_not),
			         "rank %" PRId64 " shares %zu collective(s) with rank %" PRId64
			         ", fewer than %d: its clock cannot be aligned",
			         rr->src->rank, n, res->rank[0].src->rank, JOB_CLOCK_MIN_MATCHES);
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
	if (mad > JOB_CLOCK_MAD_NS && res->why_not[0] == '\0')
		snprintf(res->why_not, sizeof(res->why_not),
		         "rank %" PRId64 "'s collectives end %.1f us apart from rank %" PRId64
		         "'s after aligning its clock (median deviation; at most %.0f us is consistent): the "
		         "clocks "
		         "cannot be aligned",
		         rr->src->rank, (double)mad / 1e3, res->rank[0].src->rank, JOB_CLOCK_MAD_NS / 1e3);
	return NS_OK;
}

/* ---- waiting ---- */

/* Exposed time of c inside [a, b). */
static int64_t exposed_within(const split_collective *c, int64_t a, int64_t b)
{
	double sum = 0;

	for (unsigned i = 0; i < c->npieces; i++) {
		const split_piece *p = &c->piece[i];
		int64_t lo = p->start_ns > a ? p->start_ns : a, hi = p->end_ns < b ? p->end_ns : b;
		int64_t len = p->end_ns - p->start_ns;
		if (hi <= lo)
			continue;
		sum += len == p->ns ? (double)(hi - lo) : (double)p->ns * ((double)(hi - lo) / (double)len);
	}
	return (int64_t)(sum + 0.5);
}

static void last_starts(job_result *res, const matching *mt, op_info *ops)
{
	for (size_t r = 0; r < res->nranks; r++) {
		const job_device *d = judged(&res->rank[r]);
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

/* Adds the waiting of collective c (inside [c.start, until)) to the steps it crosses. */
static int64_t add_wait(const job_device *d, const split_collective *c, int64_t until, int64_t *step_wait)
{
	int64_t total = 0;

	for (size_t s = 0; s < d->nsteps; s++) {
		const split_window *w = &d->steps[s];
		int64_t a = c->start_ns > w->start_ns ? c->start_ns : w->start_ns;
		int64_t b = until < w->start_ns + w->dur_ns ? until : w->start_ns + w->dur_ns;
		if (w->start_ns >= until)
			break;
		if (b > a) {
			int64_t x = exposed_within(c, a, b);
			step_wait[s] += x;
			total += x;
		}
	}
	return total;
}

static size_t rank_index(const job_result *res, int64_t rank)
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

static ns_status rank_waiting(job_result *res, const matching *mt, const op_info *ops, size_t r, int64_t *per,
                              ns_error *err)
{
	job_rank_result *rr = &res->rank[r];
	const job_device *d = judged(rr);
	int64_t wait = 0, exposed;
	size_t best = 0;
	bool all;

	if (d == NULL || d->nsteps == 0)
		return NS_OK;
	rr->step_wait_ns = calloc(d->nsteps, sizeof(*rr->step_wait_ns));
	if (rr->step_wait_ns == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	memset(per, 0, res->nranks * sizeof(*per));
	for (size_t i = 0; i < d->ncoll; i++) {
		const split_collective *c = &d->coll[i];
		const op_info *op = &ops[mt->op_of[mt->op_start[r] + i]];
		int64_t until;
		if (op->participants < 2 || op->last_rank == rr->src->rank)
			continue;
		until = ns_sat_add_i64(op->last_start, rr->offset_ns);
		until = until < c->end_ns ? until : c->end_ns;
		if (until > c->start_ns)
			per[rank_index(res, op->last_rank)] += add_wait(d, c, until, rr->step_wait_ns);
	}
	for (size_t k = 0; k < res->nranks; k++)
		if (per[k] > per[best])
			best = k;
	rr->waited_for = per[best] > 0 ? res->rank[best].src->rank : -1;
	all = all_warmup(d);
	for (size_t s = 0; s < d->nsteps; s++)
		if (step_counts(d, s, all))
			wait += rr->step_wait_ns[s];
	exposed = rr->overall.cause_ns[CAUSE_EXPOSED];
	wait = wait < exposed ? wait : exposed;
	rr->overall.cause_ns[CAUSE_WAIT] = wait;
	rr->overall.cause_ns[CAUSE_COMM_TRANSFER] = exposed - wait;
	rr->overall.cause_ns[CAUSE_EXPOSED] = 0;
	return NS_OK;
}

static ns_status split_waiting(job_result *res, const matching *mt, op_info *ops, ns_error *err)
{
	int64_t *per = calloc(res->nranks + 1, sizeof(*per));
	ns_status st = NS_OK;

	if (per == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	last_starts(res, mt, ops);
	for (size_t r = 0; r < res->nranks && st == NS_OK; r++)
		st = rank_waiting(res, mt, ops, r, per, err);
	free(per);
	if (st == NS_OK)
		res->split = true;
	return st;
}

/* ---- clocks, matching and waiting together ---- */

static ns_status align_and_split(job_result *res, ns_error *err)
{
	matching mt = {0};
	op_info *ops = NULL;
	ns_status st;

	if (res->nranks < 2) {
		snprintf(res->why_not, sizeof(res->why_not),
		         "one rank only: waiting cannot be told from transfer without the others");
		return NS_OK;
	}
	st = scan_groups(res, &mt, err);
	if (st == NS_OK)
		st = assign_ops(res, &mt, err);
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
	free(ops);
	matching_free(&mt);
	return st;
}

/* ---- stragglers and the median split ---- */

static double share_of(const job_rank_result *r, int b)
{
	return r->overall.dur_ns > 0 ? (double)r->overall.bucket_ns[b] / (double)r->overall.dur_ns : 0;
}

/* The median over the ranks other than skip (all when skip >= nranks) of f. */
static int64_t others_median(const job_result *res, size_t skip, int b, int64_t *tmp)
{
	size_t n = 0;

	for (size_t r = 0; r < res->nranks; r++) {
		if (r == skip || res->rank[r].median_step_ns == 0)
			continue;
		tmp[n++] = b < 0 ? res->rank[r].noncomm_ns : res->rank[r].bucket_ns[b];
	}
	return median_i64(tmp, n);
}

static int64_t others_median_kernels(const job_result *res, size_t skip, int64_t *tmp)
{
	size_t n = 0;

	for (size_t r = 0; r < res->nranks; r++)
		if (r != skip && res->rank[r].median_step_ns > 0)
			tmp[n++] = res->rank[r].kernels;
	return median_i64(tmp, n);
}

static double others_median_share(const job_result *res, size_t skip, int b, double *tmp)
{
	size_t n = 0;

	for (size_t r = 0; r < res->nranks; r++)
		if (r != skip && res->rank[r].median_step_ns > 0)
			tmp[n++] = share_of(&res->rank[r], b);
	return median_double(tmp, n);
}

static const char *const straggler_kind_names[STRAGGLER_KIND_COUNT] = {
    [STRAGGLER_HOST] = "host",
    [STRAGGLER_DEVICE] = "device",
    [STRAGGLER_WORK] = "work",
    [STRAGGLER_INPUTS] = "inputs",
};

const char *job_straggler_kind_name(job_straggler_kind k)
{
	return (unsigned)k < STRAGGLER_KIND_COUNT ? straggler_kind_names[k] : NULL;
}

static int64_t noncomm_of(const split_window *w)
{
	return w->dur_ns - w->bucket_ns[REGIME_COMM];
}

/* The index of the step numbered step in d, or -1: steps are in time order, so their numbers ascend; a
 * device whose numbers do not (no ProfilerStep numbers) has none to match. */
static ptrdiff_t step_index(const job_device *d, int64_t step)
{
	size_t lo = 0, hi = d->nsteps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->steps[mid].step < step)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nsteps && d->steps[lo].step == step ? (ptrdiff_t)lo : -1;
}

/* In how many of rank r's counted steps its non-comm time was the longest of the ranks that had the same
 * step (s->slowest_steps of s->compared_steps). */
static void count_slowest_steps(const job_result *res, size_t r, job_straggler *s)
{
	const job_device *d = judged(&res->rank[r]);
	bool all = all_warmup(d);

	for (size_t i = 0; i < d->nsteps; i++) {
		const split_window *w = &d->steps[i];
		bool compared = false, slowest = true;
		if (!step_counts(d, i, all) || w->step < 0)
			continue;
		for (size_t o = 0; o < res->nranks; o++) {
			const job_device *od = judged(&res->rank[o]);
			ptrdiff_t k = o == r || od == NULL ? -1 : step_index(od, w->step);
			if (k < 0)
				continue;
			compared = true;
			slowest = slowest && noncomm_of(w) > noncomm_of(&od->steps[k]);
		}
		s->compared_steps += compared;
		s->slowest_steps += compared && slowest;
	}
}

/* What makes the straggler slow (docs/job.md): a host-side bucket is that bucket's; on the device, more
 * kernels a step is more work, the same kernels slower in (nearly) every step is the rank's GPU or host, and
 * slower in some steps only is its inputs. Without steps to compare, the same kernels count as the device. */
static void classify_straggler(const job_result *res, size_t r, int64_t others_kernels, job_straggler *s)
{
	const job_rank_result *rr = &res->rank[r];

	s->kernels_ratio = others_kernels > 0 ? (double)rr->kernels / (double)others_kernels : 0;
	count_slowest_steps(res, r, s);
	if (s->bucket != REGIME_COMPUTE && s->bucket != REGIME_MEMORY)
		s->kind = STRAGGLER_HOST;
	else if (others_kernels > 0 && s->kernels_ratio > 1.0 + JOB_SAME_WORK_SHARE)
		s->kind = STRAGGLER_WORK;
	else if (s->compared_steps > 0 &&
	         (double)s->slowest_steps < JOB_PERSISTENT_SHARE * (double)s->compared_steps)
		s->kind = STRAGGLER_INPUTS;
	else
		s->kind = STRAGGLER_DEVICE;
}

static int cmp_straggler(const void *a, const void *b)
{
	const job_straggler *x = a, *y = b;
	return (x->excess_ns < y->excess_ns) - (x->excess_ns > y->excess_ns);
}

static ns_status find_stragglers(job_result *res, ns_error *err)
{
	int64_t *tmp = malloc((res->nranks + 1) * sizeof(*tmp));
	double *dtmp = malloc((res->nranks + 1) * sizeof(*dtmp));
	size_t with_steps = 0;

	if (tmp == NULL || dtmp == NULL) {
		free(tmp);
		free(dtmp);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	res->strag = calloc(res->nranks, sizeof(*res->strag));
	for (size_t r = 0; r < res->nranks; r++)
		with_steps += res->rank[r].median_step_ns > 0;
	for (size_t r = 0; res->strag != NULL && with_steps >= 2 && r < res->nranks; r++) {
		job_rank_result *rr = &res->rank[r];
		int64_t med = others_median(res, r, -1, tmp), excess = ns_sat_sub_i64(rr->noncomm_ns, med),
		        best_x = INT64_MIN;
		int best = REGIME_COMPUTE;
		if (rr->median_step_ns == 0 || excess <= JOB_STRAGGLER_MIN_NS ||
		    (double)excess <= JOB_STRAGGLER_SHARE * (double)med)
			continue;
		for (int b = 0; b < REGIME_COUNT; b++) {
			int64_t x;
			if (b == REGIME_COMM)
				continue;
			x = ns_sat_sub_i64(rr->bucket_ns[b], others_median(res, r, b, tmp));
			if (x > best_x) {
				best_x = x;
				best = b;
			}
		}
		rr->straggler = true;
		res->strag[res->nstrag] =
		    (job_straggler){.rank = rr->src->rank,
		                    .bucket = (ns_regime)best,
		                    .share = share_of(rr, best),
		                    .median_share = others_median_share(res, r, best, dtmp),
		                    .excess_ns = excess};
		classify_straggler(res, r, others_median_kernels(res, r, tmp), &res->strag[res->nstrag++]);
	}
	free(tmp);
	free(dtmp);
	if (res->strag == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	qsort(res->strag, res->nstrag, sizeof(*res->strag), cmp_straggler);
	return NS_OK;
}

static ns_status median_profile(job_result *res, ns_error *err)
{
	double *v = malloc((res->nranks + 1) * sizeof(*v)), sum = 0;
	size_t n = 0;

	if (v == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	profile_init(&res->median);
	for (int b = 0; b < REGIME_COUNT; b++) {
		n = 0;
		for (size_t r = 0; r < res->nranks; r++)
			if (res->rank[r].overall.dur_ns > 0)
				v[n++] = share_of(&res->rank[r], b);
		res->median.share[b] = median_double(v, n);
		res->median.present[b] = true;
		sum += res->median.share[b];
	}
	/* Medians taken bucket by bucket need not sum to 1; scaled down when they pass it. */
	for (int b = 0; sum > 1 && b < REGIME_COUNT; b++)
		res->median.share[b] /= sum;
	n = 0;
	for (size_t r = 0; r < res->nranks; r++)
		if (res->rank[r].overall.dur_ns > 0)
			v[n++] = (double)res->rank[r].overall.cause_ns[CAUSE_WAIT] /
			         (double)res->rank[r].overall.dur_ns;
	res->wait_share = median_double(v, n);
	free(v);
	return NS_OK;
}

/* ---- the job ---- */

static ns_status take_ranks(job_merge *m, job_result *res, ns_error *err)
{
	res->rank = calloc(m->n, sizeof(*res->rank));
	if (res->rank == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	qsort(m->r, m->n, sizeof(job_rank *), cmp_rank);
	for (size_t i = 0; i < m->n; i++) {
		job_rank_result *r = &res->rank[i];
		r->src = m->r[i];
		r->device = pick_device(r->src);
		r->waited_for = -1;
		if (r->src->ndev > 0)
			r->overall = r->src->dev[r->device].overall;
		if (r->src->world_size > res->world_size)
			res->world_size = r->src->world_size;
		res->nranks++;
	}
	m->n = 0;
	return NS_OK;
}

ns_status job_merge_finish(job_merge *m, job_result **out, ns_error *err)
{
	job_result *res;
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
	if (st != NS_OK) {
		job_result_free(res);
		return st;
	}
	*out = res;
	return NS_OK;
}

void job_result_free(job_result *res)
{
	if (res == NULL)
		return;
	for (size_t i = 0; i < res->nranks; i++) {
		job_rank_free(res->rank[i].src);
		free(res->rank[i].step_wait_ns);
	}
	free(res->rank);
	free(res->strag);
	free(res);
}
