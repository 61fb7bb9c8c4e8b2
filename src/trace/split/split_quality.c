/* The trace-quality verdict: what the capture lost or got wrong, and how far its split can then be trusted.
 * The facts come from small hooks in the split's other stages (reading, linking, each device's records); the
 * grades are decided here, once, with the thresholds below (their reasons are in docs/trace.md, "Trace
 * quality"). */
#include <stdlib.h>
#include <string.h>

#include "trace/split/split_private.h"
#include "util/satmath.h"
#include "util/vec.h"

/* Missing or doubtful GPU time degrades the verdict from half a point of the device's GPU time: the report
 * prints shares to a tenth of a point, and below half a point no bucket moves enough to show. */
#define Q_DEGRADED_SHARE 0.005
/* A fifth of the device's work unrecorded can move any bucket by twenty points: more than the gap between the
 * two largest buckets of most traces, so the regime would be chosen by what is missing. */
#define Q_UNFIT_SHARE 0.20
/* Problems counted in events rather than time degrade from one event in a hundred of their population. */
#define Q_DEGRADED_COUNT 0.01
/* Concentrated steps: this many steps at least, and this share of the GPU time in a quarter of them or less.
 */
#define Q_CONC_MIN_STEPS 4
#define Q_CONC_SHARE     0.9
/* Profiler overhead: assumed host cost of one recorded Python call (with_stack) and of one op's shapes
 * (record_shapes), and the share of the host (overhead) time that makes the estimate matter. */
#define Q_PYTHON_EVENT_NS 500
#define Q_SHAPED_OP_NS    1000
#define Q_OVERHEAD_SHARE  0.10
/* Unequal steps: a step this many times longer or shorter than the median step is not the same work (the
 * steps of one training or serving loop repeat the same ops on the same shapes, and vary by tens of per cent:
 * a data-loader stall or a collection pause makes a step 2-3x, and slow steps with set-up calls are already
 * warm-up). An order of magnitude is a step of another kind: the first iteration, an evaluation or checkpoint
 * step, a step cut by the capture's start or end. Such steps degrade the verdict when they hold a fifth of
 * the counted time (Q_UNFIT_SHARE's reason: a fifth can move a bucket by twenty points and so decide the
 * regime); below that they are listed. */
#define Q_STEP_FACTOR 10
#define Q_STEP_SHARE  Q_UNFIT_SHARE

const char *ns_quality_grade_name(ns_quality_grade g)
{
	static const char *const names[] = {"good", "degraded", "unfit"};
	return (unsigned)g < 3 ? names[g] : NULL;
}

const char *ns_quality_kind_name(ns_quality_kind k)
{
	static const char *const names[NS_QP_COUNT] = {
	    [NS_QP_TRUNCATED] = "truncated",
	    [NS_QP_NO_DEVICE_ACTIVITY] = "no_device_activity",
	    [NS_QP_LAUNCH_WITHOUT_ACTIVITY] = "launch_without_activity",
	    [NS_QP_ACTIVITY_WITHOUT_LAUNCH] = "activity_without_launch",
	    [NS_QP_MISSING_OPS] = "missing_ops",
	    [NS_QP_GRAPH_REPLAYS_MISSING] = "graph_replays_missing",
	    [NS_QP_GRAPH_REPLAY_MISMATCH] = "graph_replay_mismatch",
	    [NS_QP_CONCENTRATED_STEPS] = "concentrated_steps",
	    [NS_QP_STREAM_OVERLAP] = "stream_overlap",
	    [NS_QP_DUPLICATE_EVENTS] = "duplicate_events",
	    [NS_QP_OUT_OF_ORDER] = "out_of_order",
	    [NS_QP_CUT_SHORT] = "cut_short",
	    [NS_QP_PROFILER_OVERHEAD] = "profiler_overhead",
	    [NS_QP_UNEQUAL_STEPS] = "unequal_steps",
	    [NS_QP_SINGLE_STEP] = "single_step",
	    [NS_QP_LITTLE_DEVICE_WORK] = "little_device_work",
	    [NS_QP_ATYPICAL_WAIT] = "atypical_wait",
	    [NS_QP_QUEUED_BEFORE_CAPTURE] = "queued_before_capture",
	};
	return (unsigned)k < NS_QP_COUNT ? names[k] : NULL;
}

static bool contains(ns_str s, const char *lit)
{
	size_t n = strlen(lit);

	for (size_t i = 0; s.len >= n && i + n <= s.len; i++)
		if (memcmp(s.ptr + i, lit, n) == 0)
			return true;
	return false;
}

/* cudaGraphLaunch, hipGraphLaunch, cuGraphLaunch: one call replays a whole graph of kernels. Host functions
 * run on the host and leave no GPU record. Called once per distinct name (the runtime cache). */
uint8_t split_launch_kind(ns_str name)
{
	if (contains(name, "GraphLaunch"))
		return LK_GRAPH;
	if (contains(name, "HostFunc"))
		return LK_QUIET;
	if (contains(name, "Memcpy") || contains(name, "Memset"))
		return LK_COPY;
	return LK_KERNEL;
}

bool split_is_launch_ex(ns_str name)
{
	return contains(name, "LaunchKernelEx");
}

/* Kineto writes the capture as one span of its own, "PyTorch Profiler (0)" in category Trace. */
void split_quality_event(split_quality_state *q, const ns_trace_event *ev)
{
	if (ev->ph == 'X' && ev->has_dur && split_str_starts(ev->name, "PyTorch Profiler") &&
	    ev->cat_raw.len == 5 && memcmp(ev->cat_raw.ptr, "Trace", 5) == 0) {
		int64_t end = ns_sat_add_i64(ev->ts_ns, ev->dur_ns);
		if (!q->has_capture || end > q->capture_end)
			q->capture_end = end;
		q->has_capture = true;
	}
}

/* ---- ops' ids: events dropped after the capture ---- */

/* The ids' bitmap may cover this many ids past the floor per op read (sparse ids cost at most 16 bytes an
 * op), and never more than the cap (16 MiB); past either the check is off: such ids are no counter. */
#define Q_IDS_FLOOR_BITS ((int64_t)1 << 20)
#define Q_IDS_PER_OP     128
#define Q_IDS_MAX_BITS   ((int64_t)1 << 27)

static int64_t ids_limit_words(const split_quality_state *q)
{
	int64_t bits = Q_IDS_FLOOR_BITS + Q_IDS_PER_OP * (int64_t)q->id_ops;

	return (bits < Q_IDS_MAX_BITS ? bits : Q_IDS_MAX_BITS) / 64;
}

static void ids_off(split_quality_state *q)
{
	free(q->idw);
	q->idw = NULL;
	q->nidw = 0;
	q->ids_off = true;
}

/* Makes the bitmap cover word w (words [id_base, id_base + nidw)), doubling on the side that grows. */
static bool ids_cover(split_quality_state *q, int64_t w)
{
	int64_t lo = q->id_base, hi = q->id_base + (int64_t)q->nidw, limit = ids_limit_words(q);
	uint64_t *v;

	if (q->nidw > 0 && w >= lo && w < hi)
		return true;
	if (q->nidw == 0) {
		lo = w;
		hi = w + 1;
	} else if (w < lo) {
		lo = w < lo - (hi - lo) ? w : lo - (hi - lo);
	} else {
		hi = w >= hi + (hi - lo) ? w + 1 : hi + (hi - lo);
	}
	if (lo < 0)
		lo = 0;
	if (hi - lo > limit) { /* no room for the slack: exactly what is needed, or nothing */
		lo = w < q->id_base || q->nidw == 0 ? w : q->id_base;
		hi = w >= q->id_base + (int64_t)q->nidw ? w + 1 : q->id_base + (int64_t)q->nidw;
		if (hi - lo > limit)
			return false;
	}
	v = calloc((size_t)(hi - lo), sizeof(*v));
	if (v == NULL)
		return false;
	if (q->nidw > 0)
		memcpy(v + (q->id_base - lo), q->idw, q->nidw * sizeof(*v));
	free(q->idw);
	q->idw = v;
	q->id_base = lo;
	q->nidw = (size_t)(hi - lo);
	return true;
}

void split_quality_op_id(split_quality_state *q, int64_t id)
{
	if (id < 0 || q->ids_off)
		return;
	q->id_ops++;
	if (!ids_cover(q, id / 64)) {
		ids_off(q);
		return;
	}
	q->idw[id / 64 - q->id_base] |= (uint64_t)1 << (id % 64);
}

/* ---- links ---- */

void split_quality_links_begin(ns_trace_split *s)
{
	/* the first launch's time and id are noted as launches are kept (split_ingest.c) */
	s->quality.queued_end = INT64_MIN;
	s->quality.records = (long)s->ngpu;
}

static void add_graph_kernel(split_quality_state *q, const gpu_rec *g, int64_t start, int64_t corr)
{
	graph_kernel *v = ns_grow(q->gk, &q->capgk, q->ngk + 1, sizeof(*v));

	if (v == NULL) {
		q->oom = true;
		return;
	}
	q->gk = v;
	q->gk[q->ngk++] = (graph_kernel){start, corr, split_gpu_name(g)};
}

void split_quality_link(ns_trace_split *s, const gpu_rec *g, const launch_call *l)
{
	split_quality_state *q = &s->quality;
	int64_t start = split_gpu_start(s, g), end = split_gpu_end(s, g), corr = split_gpu_corr(s, g);
	int64_t dur = ns_sat_sub_i64(end, start);

	/* every record, also those the windows leave out (GPU work launched outside every step) */
	if (start > q->last_gpu_start)
		q->last_gpu_start = start;
	q->gpu_ns = ns_sat_add_i64(q->gpu_ns, dur);
	q->past_end += q->has_capture && end > q->capture_end;
	if (l == NULL) {
		if (corr < 0)
			return;
		/* ids are handed out in launch order: below the first recorded launch's, it was launched
		 * before the profiler started, and ran late because the device was behind the host */
		if (corr < q->first_launch_corr && q->first_launch_corr != INT64_MAX) {
			q->queued++;
			q->queued_end = end > q->queued_end ? end : q->queued_end;
			return;
		}
		if (start >= q->first_launch_ts || q->first_launch_ts == INT64_MAX) {
			q->unlinked++;
			q->unlinked_ns = ns_sat_add_i64(q->unlinked_ns, dur);
		} else {
			q->unlinked_edge++;
		}
		return;
	}
	q->linked++;
	q->before_launch += start < l->ts;
	switch (l->kind) {
	case LK_GRAPH:
		q->graph_ns = ns_sat_add_i64(q->graph_ns, dur);
		add_graph_kernel(q, g, start, corr);
		break;
	case LK_COPY:
		break;
	default:
		q->kernel_ns = ns_sat_add_i64(q->kernel_ns, dur);
		q->kernel_n++;
		break;
	}
}

static int cmp_graph_kernel(const void *a, const void *b)
{
	const graph_kernel *x = a, *y = b;
	if (x->corr != y->corr)
		return (x->corr > y->corr) - (x->corr < y->corr);
	return (x->start > y->start) - (x->start < y->start);
}

typedef struct {
	uint32_t first; /* the replay's first kernel: replays of one graph start with the same kernel */
	long kernels;
	uint64_t hash; /* of its kernels' names in order: the replays of one graph run the same sequence */
	size_t off;    /* its first kernel in the sorted graph kernels */
} replay;

static int cmp_replay(const void *a, const void *b)
{
	const replay *x = a, *y = b;
	if (x->first != y->first)
		return (x->first > y->first) - (x->first < y->first);
	return (x->hash > y->hash) - (x->hash < y->hash);
}

/* Whether the n kernels at a are the m kernels at b with some left out, in order (a strict subsequence). */
static bool strict_subsequence(const graph_kernel *a, long n, const graph_kernel *b, long m)
{
	long j = 0;

	if (n >= m)
		return false;
	for (long i = 0; i < n; i++) {
		while (j < m && b[j].name_id != a[i].name_id)
			j++;
		if (j++ == m)
			return false;
	}
	return true;
}

/* One sequence of kernels among the replays of a group: where its first replay's kernels are, how many, and
 * how many replays ran it. */
typedef struct {
	size_t off;
	long kernels;
	size_t runs;
} replay_seq;

/* The most replayed first, then the longest, then the one launched first (correlation ids): an order of
 * the sequences themselves, never of the kernels' name ids, which follow the order of the file. */
static int cmp_replay_seq(const void *a, const void *b)
{
	const replay_seq *x = a, *y = b;
	if (x->runs != y->runs)
		return x->runs > y->runs ? -1 : 1;
	if (x->kernels != y->kernels)
		return x->kernels > y->kernels ? -1 : 1;
	return (x->off > y->off) - (x->off < y->off);
}

#define REPLAY_USUAL_MAX 16 /* sequences of a group a replay is compared with: its most replayed */

/* Replays carry no graph id, so replays of one graph are those with the same first kernel. A replay recorded
 * in part runs a strict subsequence of a sequence of its group that was replayed more than twice as often (a
 * capture drops events at random, not the same ones again and again); one replayed as often is a graph of its
 * own (the pieces of a piecewise-compiled model, graphs captured per batch size, which may start with the
 * same kernel), not a mismatch. Every such sequence is compared, up to the group's REPLAY_USUAL_MAX most
 * replayed, so no tie between equally common sequences decides. *typical: the kernels of the usual sequence
 * replays were recorded in part of (the first in cmp_replay_seq's order, over all groups); 0 without any.
 * False when out of memory. */
static bool count_mismatches(const graph_kernel *gk, replay *r, size_t n, long *mismatched, long *typical)
{
	replay_seq *seq = malloc((n + 1) * sizeof(*seq)), usual = {SIZE_MAX, 0, 0};

	if (seq == NULL)
		return false;
	*mismatched = 0;
	ns_sort(r, n, sizeof(*r), cmp_replay);
	for (size_t i = 0, j; i < n; i = j) {
		size_t m = 0;
		for (j = i; j < n && r[j].first == r[i].first;) {
			size_t k = j;
			while (k < n && r[k].first == r[j].first && r[k].hash == r[j].hash)
				k++;
			seq[m++] = (replay_seq){r[j].off, r[j].kernels, k - j};
			j = k;
		}
		ns_sort(seq, m, sizeof(*seq), cmp_replay_seq);
		for (size_t a = 0; a < m; a++)
			for (size_t b = 0; b < m && b < REPLAY_USUAL_MAX && seq[b].runs > 2 * seq[a].runs;
			     b++)
				if (strict_subsequence(gk + seq[a].off, seq[a].kernels, gk + seq[b].off,
				                       seq[b].kernels)) {
					*mismatched += (long)seq[a].runs;
					if (usual.runs == 0 || cmp_replay_seq(&seq[b], &usual) < 0)
						usual = seq[b];
					break;
				}
	}
	*typical = usual.kernels;
	free(seq);
	return true;
}

/* The replays: one per graph launch with kernels, their correlation ids (for the per-window counts) and the
 * kernel count of each. */
static ns_status count_replays(split_quality_state *q, ns_error *err)
{
	replay *r;
	size_t nr = 0;
	bool ok;

	ns_sort(q->gk, q->ngk, sizeof(*q->gk), cmp_graph_kernel);
	q->graph_corr = malloc((q->ngk + 1) * sizeof(*q->graph_corr));
	r = malloc((q->ngk + 1) * sizeof(*r));
	if (q->graph_corr == NULL || r == NULL) {
		free(r);
		return split_oom(err);
	}
	for (size_t i = 0; i < q->ngk; i++) {
		if (i == 0 || q->gk[i].corr != q->gk[i - 1].corr) {
			q->graph_corr[q->ngraph++] = q->gk[i].corr;
			r[nr++] = (replay){q->gk[i].name_id, 0, 1469598103934665603u, i};
		}
		r[nr - 1].kernels++;
		r[nr - 1].hash = (r[nr - 1].hash ^ q->gk[i].name_id) * 1099511628211u;
	}
	q->graph_kernels = (long)q->ngk;
	ok = count_mismatches(q->gk, r, nr, &q->graph_mismatch, &q->graph_kernels_typical);
	free(r);
	free(q->gk);
	q->gk = NULL;
	q->ngk = q->capgk = 0;
	return ok ? NS_OK : split_oom(err);
}

/* A launch of kind `kind` (not LK_QUIET) whose GPU work never appeared: inside the recorded GPU activity it
 * is a dropped event; after the last recorded GPU work, the capture's end cut it off. */
static void count_unseen(ns_trace_split *s, unsigned kind, uint16_t thread, int64_t ts)
{
	split_quality_state *q = &s->quality;

	/* recorded into a CUDA/HIP graph, not run: no GPU record by design, neither lost nor cut */
	if (s->ncapture > 0 && split_in_capture(s, thread, ts)) {
		q->captured++;
		return;
	}
	q->launches[kind]++;
	if (ts <= q->last_gpu_start)
		q->missing[kind]++;
	else
		q->missing_tail[kind]++;
}

/* Counts the launches whose GPU work never appeared (count_unseen()), and keeps the Ex launches' correlation
 * ids, sorted, before the launch tables are freed: one pass over the launches. The packed ones are read in
 * place: split_launch_get()'s whole record, built on the stack and read back, cost a store-forwarding stall
 * a launch (perf annotate; issue 27). */
static void links_end_pass(ns_trace_split *s)
{
	split_quality_state *q = &s->quality;

	for (size_t i = 0; i < s->nlaunch; i++) {
		const launch_rec *r = &s->launch[i];
		unsigned kind = split_launch_rec_kind(r);
		if ((r->corr_bits & (LAUNCH_EX | LAUNCH_SEEN)) == (LAUNCH_EX | LAUNCH_SEEN))
			q->ex_corr[q->nex++] = s->launch_corr0 + (int64_t)(r->corr_bits & LAUNCH_CORR_MASK);
		if (kind == LK_QUIET)
			continue;
		if (r->corr_bits & LAUNCH_SEEN)
			q->launches[kind]++;
		else
			count_unseen(s, kind, split_launch_rec_thread(r), split_launch_rec_ts(s, r));
	}
	for (size_t i = 0; i < s->nwide_launch; i++) {
		const launch_call *l = &s->wide_launch[i];
		if (l->ex && l->seen)
			q->ex_corr[q->nex++] = l->corr;
		if (l->kind == LK_QUIET)
			continue;
		if (l->seen)
			q->launches[l->kind]++;
		else
			count_unseen(s, l->kind, l->thread, l->ts);
	}
	/* each table is in id order; the wide one's ids may fall anywhere among the first's */
	if (s->nwide_launch > 0)
		ns_sort(q->ex_corr, q->nex, sizeof(*q->ex_corr), ns_cmp_i64);
}

ns_status split_quality_links_end(ns_trace_split *s, ns_error *err)
{
	split_quality_state *q = &s->quality;

	if (q->oom)
		return split_oom(err);
	if (s->ngpu > 0) { /* no GPU record at all: no_device_activity, and no launch seen */
		/* room for every Ex launch; most traces have none */
		if (s->nex_launch > 0 && (q->ex_corr = malloc(s->nex_launch * sizeof(*q->ex_corr))) == NULL)
			return split_oom(err);
		links_end_pass(s);
	}
	return q->ngk > 0 ? count_replays(q, err) : NS_OK;
}

/* ---- devices ---- */

static bool in_graph(const split_quality_state *q, int64_t corr)
{
	return q->ngraph > 0 && corr >= 0 &&
	       ns_bsearch(&corr, q->graph_corr, q->ngraph, sizeof(corr), ns_cmp_i64) != NULL;
}

/* A programmatic dependent launch (CUDA programming guide, "Programmatic Dependent Launch and
 * Synchronization"; sm_90+) lets a kernel launched with cuLaunchKernelEx/cudaLaunchKernelExC and the
 * programmatic stream serialization attribute start before the kernel before it on its stream has ended:
 * its preamble overlaps the other's tail, and it ends after it (its griddepcontrol.wait holds it until the
 * first completes or triggers). Such an overlap is by design, not a skewed clock. The trace does not record
 * the attribute: an Ex launch whose kernel overlaps its predecessor's tail is taken for one. */
static bool pdl_overlap(const ns_trace_split *s, const gpu_rec *r, int64_t prev_end)
{
	const split_quality_state *q = &s->quality;
	int64_t corr;

	if (split_gpu_kind(r) == GK_TRANSFER || q->nex == 0 || split_gpu_end(s, r) < prev_end)
		return false;
	corr = split_gpu_corr(s, r);
	return ns_bsearch(&corr, q->ex_corr, q->nex, sizeof(corr), ns_cmp_i64) != NULL;
}

/* Work on one stream runs in order: a record starting before the previous one on its stream ended is a
 * clock or merge error (graph kernels excepted: CUPTI files a graph's parallel branches under the stream it
 * was launched on). The same record twice is a duplicate. */
static void check_streams(ns_trace_split *s, const gpu_rec *g, size_t n)
{
	split_quality_state *q = &s->quality;
	const gpu_rec *last[SPLIT_STREAM_OTHER] = {0};
	int64_t last_end[SPLIT_STREAM_OTHER];

	for (size_t i = 0; i < n; i++) {
		const gpu_rec *r = &g[i], *p;
		int64_t start = split_gpu_start(s, r), end = split_gpu_end(s, r), corr = split_gpu_corr(s, r);
		uint8_t sx = split_gpu_stream(r);
		stream_key key;
		if (sx == SPLIT_STREAM_OTHER || !split_stream_key(s, sx, &key) || key.stream < 0 ||
		    in_graph(q, corr))
			continue;
		p = last[sx];
		if (p != NULL && start == split_gpu_start(s, p) && end == split_gpu_end(s, p) &&
		    split_gpu_name(r) == split_gpu_name(p) && corr == split_gpu_corr(s, p)) {
			q->duplicates++;
			continue;
		}
		if (p != NULL && start < last_end[sx] && pdl_overlap(s, r, last_end[sx])) {
			q->pdl_overlaps++;
		} else if (p != NULL && start < last_end[sx]) {
			int64_t hi = end < last_end[sx] ? end : last_end[sx];
			q->overlaps++;
			q->overlap_ns = ns_sat_add_i64(q->overlap_ns, hi - start);
		}
		if (p == NULL || end > last_end[sx])
			last_end[sx] = end;
		last[sx] = r;
	}
}

/* Graph replays per window: a replay counts in the window where its first kernel on this device starts; its
 * kernels where each starts, with their time clipped to that window. */
static ns_status graph_windows(const ns_trace_split *s, const gpu_rec *g, size_t n, ns_split_device *d,
                               ns_error *err)
{
	const split_quality_state *q = &s->quality;
	bool *counted = calloc(q->ngraph, sizeof(*counted));
	split_view v = split_device_view(d);
	size_t hint = 0;

	if (counted == NULL)
		return split_oom(err);
	for (size_t i = 0; i < n; i++) {
		int64_t corr = split_gpu_corr(s, &g[i]), end;
		const int64_t *c = ns_bsearch(&corr, q->graph_corr, q->ngraph, sizeof(corr), ns_cmp_i64);
		size_t w = split_window_of(&v, split_gpu_start(s, &g[i]), &hint);
		if (c == NULL || corr < 0 || w == v.n)
			continue;
		end = split_gpu_end(s, &g[i]);
		ns_split_window *win = split_view_at(&v, w);
		int64_t hi = win->start_ns + win->dur_ns;
		win->graph_kernels = ns_sat_add_u32(win->graph_kernels, 1);
		win->graph_ns = ns_sat_add_i64(
		    win->graph_ns, ns_sat_sub_i64(end < hi ? end : hi, split_gpu_start(s, &g[i])));
		if (!counted[c - q->graph_corr]) {
			counted[c - q->graph_corr] = true;
			win->graph_launches = ns_sat_add_u32(win->graph_launches, 1);
		}
	}
	free(counted);
	return NS_OK;
}

static int cmp_i64_desc(const void *a, const void *b)
{
	return ns_cmp_i64(b, a);
}

/* The GPU work of steady state is spread over its steps; when a quarter of the steps or fewer hold 90% of it,
 * the steps' windows do not describe what the GPU did in them (work queued far ahead, a capture that caught
 * the device's work in a few steps). Warm-up steps are left out. */
static ns_status concentration(split_quality_state *q, const ns_split_device *d, ns_error *err)
{
	int64_t *busy = malloc((d->nsteps + 1) * sizeof(*busy)), total = 0, acc = 0;
	size_t n = 0, k = 0;

	if (busy == NULL)
		return split_oom(err);
	split_view v = split_device_view(d);
	for (size_t i = 0; i < v.n; i++) {
		const ns_split_window *w = split_view_get(&v, i);
		if (w->warmup)
			continue;
		busy[n] = w->bucket_ns[NS_REGIME_COMPUTE] + w->bucket_ns[NS_REGIME_MEMORY] +
		          w->cause_ns[NS_CAUSE_EXPOSED];
		total += busy[n++];
	}
	if (n >= Q_CONC_MIN_STEPS && total > 0) {
		ns_sort(busy, n, sizeof(*busy), cmp_i64_desc);
		while (k < n && (double)acc < Q_CONC_SHARE * (double)total)
			acc += busy[k++];
		/* the worst device is kept: fewest steps for its share of them */
		if (4 * k <= n &&
		    (q->conc_of == 0 || (double)k / (double)n < (double)q->conc_steps / (double)q->conc_of)) {
			q->conc_steps = (long)k;
			q->conc_of = (long)n;
			q->conc_ns = total;
		}
	}
	free(busy);
	return NS_OK;
}

ns_status split_quality_device(ns_trace_split *s, const gpu_rec *g, size_t n, ns_split_device *d,
                               ns_error *err)
{
	split_quality_state *q = &s->quality;
	ns_status st = NS_OK;

	check_streams(s, g, n);
	if (q->ngraph > 0 && n > 0)
		st = graph_windows(s, g, n, d, err);
	if (st == NS_OK)
		st = concentration(q, d, err);
	return st;
}

/* ---- the verdict ---- */

static ns_quality_grade by_share(double share)
{
	return share >= Q_UNFIT_SHARE      ? NS_QUALITY_UNFIT
	       : share >= Q_DEGRADED_SHARE ? NS_QUALITY_DEGRADED
	                                   : NS_QUALITY_GOOD;
}

static ns_quality_grade by_count(long count, long of)
{
	return of > 0 && (double)count >= Q_DEGRADED_COUNT * (double)of ? NS_QUALITY_DEGRADED
	                                                                : NS_QUALITY_GOOD;
}

static int64_t mean(int64_t ns, long n)
{
	return n > 0 ? ns / n : 0;
}

/* The GPU time that kernel launches without activity imply: each at the mean time of the recorded kernels
 * that have their launch (the mean record when there are none). */
static int64_t implied_ns(const split_quality_state *q, const long missing[4])
{
	int64_t k = q->kernel_n > 0 ? mean(q->kernel_ns, q->kernel_n) : mean(q->gpu_ns, q->records);

	return ns_sat_mul_i64(missing[LK_KERNEL], k);
}

static double share_of(int64_t part, int64_t whole)
{
	return whole > 0 ? (double)part / (double)whole : 0.0;
}

static void set(ns_quality_problem *p, long count, long of, int64_t ns, double share, ns_quality_grade g)
{
	p->count = count;
	p->of = of;
	p->ns = ns;
	p->share = share;
	p->grade = count > 0 ? g : NS_QUALITY_GOOD;
}

/* Kernel launches only: a copy or set of zero bytes leaves no GPU record (hta/alexnet has two such
 * cudaMemsetAsync calls), so a copy call without activity is no sign of loss. */
static void judge_dropped(const split_quality_state *q, ns_split_quality *out)
{
	long launches = q->launches[LK_KERNEL];
	long missing = q->missing[LK_KERNEL];
	int64_t ns = implied_ns(q, q->missing);
	double share = share_of(ns, ns_sat_add_i64(q->gpu_ns, ns));
	ns_quality_grade g = by_share(share);

	if (by_count(missing, launches) > g)
		g = NS_QUALITY_DEGRADED;
	set(&out->problem[NS_QP_LAUNCH_WITHOUT_ACTIVITY], missing, launches, ns, share, g);
	/* without any launch recorded every correlated record is unlinked: the runtime side was not captured
	 */
	set(&out->problem[NS_QP_ACTIVITY_WITHOUT_LAUNCH], q->unlinked, q->unlinked + q->linked,
	    q->unlinked_ns, share_of(q->unlinked_ns, q->gpu_ns),
	    by_count(q->unlinked, q->unlinked + q->linked));
}

/* Holes in the ops' ids: a run of absent ids between two recorded ones, shorter than Q_IDS_JUMP (a longer
 * jump is another range of ids, not lost ops: PyTorch can hand a thread its own range). A few holes are a
 * capture's edges; from Q_IDS_MIN_HOLES, and one hole per hundred recorded ops, ops were dropped from the
 * file. */
#define Q_IDS_JUMP      512
#define Q_IDS_MIN_HOLES 10

typedef struct {
	long recorded, holes, missing;
	int64_t run; /* absent ids since the last recorded one; -1 before the first */
} id_count;

static void count_bit(id_count *c, bool set)
{
	if (!set) {
		c->run += c->run >= 0;
		return;
	}
	if (c->run > 0 && c->run < Q_IDS_JUMP) {
		c->holes++;
		c->missing += (long)c->run;
	}
	c->run = 0;
	c->recorded++;
}

static void judge_missing_ops(const split_quality_state *q, ns_split_quality *out)
{
	id_count c = {0, 0, 0, -1};
	double share;

	for (size_t i = 0; i < q->nidw; i++) {
		uint64_t x = q->idw[i];
		if (x == 0 && c.run >= 0) { /* most words of a sparse map: skip them whole */
			c.run += 64;
			continue;
		}
		for (int b = 0; b < 64; b++)
			count_bit(&c, (x >> b) & 1u);
	}
	if (c.holes < Q_IDS_MIN_HOLES || by_count(c.holes, c.recorded) == NS_QUALITY_GOOD)
		return;
	share = share_of(c.missing, c.recorded + c.missing);
	set(&out->problem[NS_QP_MISSING_OPS], c.holes, c.recorded, 0, share,
	    by_share(share) == NS_QUALITY_UNFIT ? NS_QUALITY_UNFIT : NS_QUALITY_DEGRADED);
	out->problem[NS_QP_MISSING_OPS].aux = c.missing;
}

static void judge_graphs(const split_quality_state *q, ns_split_quality *out)
{
	long calls = q->launches[LK_GRAPH], missing = q->missing[LK_GRAPH];
	int64_t per_replay = mean(q->graph_ns, (long)q->ngraph);
	int64_t ns = ns_sat_mul_i64(missing, per_replay);
	double share = share_of(ns, ns_sat_add_i64(q->gpu_ns, ns));
	ns_quality_grade g = by_share(share);
	ns_quality_problem *p = &out->problem[NS_QP_GRAPH_REPLAYS_MISSING];

	/* no replay recorded at all: the time they took is unknown, and the device would look idle in it */
	if (missing > 0 && q->ngraph == 0)
		g = NS_QUALITY_UNFIT;
	else if (by_count(missing, calls) > g)
		g = NS_QUALITY_DEGRADED;
	set(p, missing, calls, ns, share, g);
	set(&out->problem[NS_QP_GRAPH_REPLAY_MISMATCH], q->graph_mismatch, (long)q->ngraph, 0, 0.0,
	    NS_QUALITY_DEGRADED);
	out->problem[NS_QP_GRAPH_REPLAY_MISMATCH].aux = q->graph_kernels_typical;
	out->graph_launches = (long)q->ngraph;
	out->graph_kernels = q->graph_kernels;
	out->graph_ns = q->graph_ns;
}

static void judge_order(const split_quality_state *q, ns_split_quality *out)
{
	long ends = q->ends + q->orphan_ends;
	long bad_ends = q->orphan_ends + q->backward_ends;
	ns_quality_grade g = by_count(bad_ends, ends);

	if (by_count(q->before_launch, q->linked) > g)
		g = NS_QUALITY_DEGRADED;
	set(&out->problem[NS_QP_OUT_OF_ORDER], bad_ends + q->before_launch, ends + q->linked, 0, 0.0, g);
	set(&out->problem[NS_QP_DUPLICATE_EVENTS], q->duplicates, q->records, 0, 0.0,
	    by_count(q->duplicates, q->records));
	set(&out->problem[NS_QP_STREAM_OVERLAP], q->overlaps, q->records, q->overlap_ns,
	    share_of(q->overlap_ns, q->gpu_ns),
	    by_share(share_of(q->overlap_ns, q->gpu_ns)) > NS_QUALITY_GOOD ||
	            by_count(q->overlaps, q->records)
	        ? NS_QUALITY_DEGRADED
	        : NS_QUALITY_GOOD);
	out->problem[NS_QP_STREAM_OVERLAP].aux = q->pdl_overlaps;
}

/* A step without its end loses its window; launches after the last recorded GPU work lost theirs to the end
 * of the capture, as did GPU work running past the profiler's own span. */
static void judge_cut_short(ns_trace_split *s, ns_split_quality *out)
{
	split_quality_state *q = &s->quality;
	long tail = q->missing_tail[LK_KERNEL] + q->missing_tail[LK_GRAPH];
	int64_t ns = implied_ns(q, q->missing_tail);
	double share = share_of(ns, ns_sat_add_i64(q->gpu_ns, ns));
	ns_quality_grade g = q->open_steps > 0                   ? NS_QUALITY_DEGRADED
	                     : by_share(share) > NS_QUALITY_GOOD ? NS_QUALITY_DEGRADED
	                                                         : NS_QUALITY_GOOD;

	for (size_t i = 0; i < s->nthreads; i++) {
		const host_thread *t = &s->thread[i];
		q->open_spans += (long)t->nopen;
		for (size_t k = 0; k < t->nopen; k++)
			q->open_steps += t->open[k].kind == SK_STEP;
	}
	if (q->open_steps > 0)
		g = NS_QUALITY_DEGRADED;
	set(&out->problem[NS_QP_CUT_SHORT], q->open_spans + tail + q->past_end, 0, ns, share, g);
	out->problem[NS_QP_CUT_SHORT].aux = q->open_steps;
}

/* with_stack and record_shapes make every recorded op cost more host time; on a dispatch-bound trace that
 * cost is in the very bucket the verdict names. Estimated at an assumed cost per recorded event. */
static void judge_profiler(const split_quality_state *q, const ns_split_result *res, ns_split_quality *out)
{
	int64_t est = ns_sat_add_i64(ns_sat_mul_i64(q->python_events, Q_PYTHON_EVENT_NS),
	                             ns_sat_mul_i64(q->shaped_ops, Q_SHAPED_OP_NS));
	ns_quality_problem *p = &out->problem[NS_QP_PROFILER_OVERHEAD];
	const ns_split_window *w;
	bool dispatch_bound = true;
	int64_t host;

	if (est == 0 || res->ndevices == 0)
		return;
	w = &res->device[0].overall;
	host = w->bucket_ns[NS_REGIME_OVERHEAD];
	for (int b = 0; b < NS_REGIME_COUNT; b++)
		dispatch_bound = dispatch_bound && w->bucket_ns[b] <= host;
	/* a share of the host time: the estimate can exceed it (the assumed costs are generous), the share
	 * cannot */
	est = est < host ? est : host;
	set(p, q->python_events + q->shaped_ops, q->cpu_ops, est, share_of(est, host),
	    dispatch_bound && host > 0 && share_of(est, host) >= Q_OVERHEAD_SHARE ? NS_QUALITY_DEGRADED
	                                                                          : NS_QUALITY_GOOD);
	p->aux = q->python_events;
}

/* Whether warm-up steps count in a device's overall window: when kept, or when they are all there is. */
static bool warmup_counts(const ns_split_device *d, bool keep_warmup)
{
	split_view v = split_device_view(d);
	for (size_t k = 0; k < v.n && !keep_warmup; k++)
		if (!split_view_get(&v, k)->warmup)
			return false;
	return true;
}

typedef struct {
	long n, outliers;
	int64_t min, max, total, outlier_ns;
} step_spread;

/* The steps Q_STEP_FACTOR times or more longer or shorter than the median step, and their time. The lower
 * median: of two steps, the shorter is the reference, so one long step beside a short one is the outlier (of
 * two steps, neither can be called typical; what matters is that one holds nearly all the time). Sorts a
 * copy of the durations only when the longest and shortest steps are that far apart (rare). */
static ns_status spread_of(const ns_split_device *d, bool keep_warmup, step_spread *sp, ns_error *err)
{
	bool all = warmup_counts(d, keep_warmup);
	int64_t *dur, median;
	long n = 0;

	split_view v = split_device_view(d);

	memset(sp, 0, sizeof(*sp));
	for (size_t i = 0; i < v.n; i++) {
		const ns_split_window *w = split_view_get(&v, i);
		int64_t t = w->dur_ns;
		if (w->warmup && !all)
			continue;
		sp->min = sp->n == 0 || t < sp->min ? t : sp->min;
		sp->max = sp->n == 0 || t > sp->max ? t : sp->max;
		sp->total = ns_sat_add_i64(sp->total, t);
		sp->n++;
	}
	if (sp->n < 2 || sp->max / Q_STEP_FACTOR < sp->min)
		return NS_OK;
	if ((dur = malloc((size_t)sp->n * sizeof(*dur))) == NULL)
		return split_oom(err);
	for (size_t i = 0; i < v.n; i++)
		if (!split_view_get(&v, i)->warmup || all)
			dur[n++] = split_view_get(&v, i)->dur_ns;
	ns_sort(dur, (size_t)n, sizeof(*dur), ns_cmp_i64);
	median = dur[(n - 1) / 2];
	for (long i = 0; i < n; i++) {
		if (dur[i] / Q_STEP_FACTOR >= median || dur[i] <= median / Q_STEP_FACTOR) {
			sp->outliers++;
			sp->outlier_ns = ns_sat_add_i64(sp->outlier_ns, dur[i]);
		}
	}
	free(dur);
	return NS_OK;
}

/* Steps that are mostly sync_wait (the host blocked, nothing on the device): waiting on something outside the
 * trace. When they are the exception — the one step the verdict rests on, or at most half of the steps — and
 * hold a fifth of the counted time (Q_STEP_SHARE's reason), the verdict leans on an atypical wait. Every step
 * waiting alike is a pattern, and the verdict says it. */
static void judge_waits(const ns_trace_split *s, const ns_split_result *res, ns_split_quality *out)
{
	long worst_n = 0, worst_of = 0;
	int64_t worst_ns = 0, worst_total = 0;

	if (!res->has_steps)
		return;
	for (size_t i = 0; i < res->ndevices; i++) {
		const ns_split_device *d = &res->device[i];
		bool all = warmup_counts(d, s->keep_warmup);
		split_view v = split_device_view(d);
		long n = 0, of = 0;
		int64_t ns = 0, total = 0;
		for (size_t k = 0; k < v.n; k++) {
			const ns_split_window *w = split_view_get(&v, k);
			if (w->warmup && !all)
				continue;
			of++;
			total = ns_sat_add_i64(total, w->dur_ns);
			if (2 * w->cause_ns[NS_CAUSE_SYNC_WAIT] >= w->dur_ns &&
			    w->cause_ns[NS_CAUSE_SYNC_WAIT] > 0) {
				n++;
				ns = ns_sat_add_i64(ns, w->dur_ns);
			}
		}
		if (n > 0 && (of == 1 || 2 * n <= of) && share_of(ns, total) >= Q_STEP_SHARE &&
		    share_of(ns, total) > share_of(worst_ns, worst_total)) {
			worst_n = n;
			worst_of = of;
			worst_ns = ns;
			worst_total = total;
		}
	}
	if (worst_n > 0)
		set(&out->problem[NS_QP_ATYPICAL_WAIT], worst_n, worst_of, worst_ns,
		    share_of(worst_ns, worst_total), NS_QUALITY_DEGRADED);
}

/* Few or unequal steps: the worst device's spread (the largest share of time in outlying steps), and a note
 * when a device's verdict rests on one step. Traces without steps are one window and say so already. */
static ns_status judge_steps(const ns_trace_split *s, const ns_split_result *res, ns_split_quality *out,
                             ns_error *err)
{
	step_spread worst = {0}, sp;
	bool single = false;

	if (!res->has_steps)
		return NS_OK;
	for (size_t i = 0; i < res->ndevices; i++) {
		ns_status st = spread_of(&res->device[i], s->keep_warmup, &sp, err);
		if (st != NS_OK)
			return st;
		single = single || sp.n == 1;
		if (sp.outliers > 0 && (worst.outliers == 0 || share_of(sp.outlier_ns, sp.total) >
		                                                   share_of(worst.outlier_ns, worst.total)))
			worst = sp;
	}
	if (worst.outliers > 0) {
		double share = share_of(worst.outlier_ns, worst.total);
		set(&out->problem[NS_QP_UNEQUAL_STEPS], worst.outliers, worst.n, worst.outlier_ns, share,
		    share >= Q_STEP_SHARE ? NS_QUALITY_DEGRADED : NS_QUALITY_GOOD);
		out->step_min_ns = worst.min;
		out->step_max_ns = worst.max;
	}
	if (single)
		set(&out->problem[NS_QP_SINGLE_STEP], 1, 1, 0, 0.0, NS_QUALITY_GOOD);
	return NS_OK;
}

/* A verdict needs device work to describe. Below a millisecond of it (less than one step of any real model on
 * a GPU: a fragment, one kernel, a warm-up call) and under a hundredth of the profiled process's host
 * activity, the window (first to last GPU record) shows the fragment's own class at 100%: a verdict about
 * nothing (docs/trace.md, "little_device_work"). A short but dense capture (a kernel benchmark) keeps its
 * verdict. */
#define Q_WORK_FLOOR_NS    1000000
#define Q_WORK_FLOOR_SHARE 0.01

static void judge_device_work(const split_quality_state *q, const ns_split_result *res, ns_split_quality *out)
{
	int64_t busy = 0;

	if (!res->gpu_activity || res->ndevices == 0)
		return;
	for (size_t i = 0; i < res->ndevices; i++) {
		const ns_split_device *d = &res->device[i];
		int64_t b = 0;
		for (int r = NS_REGIME_COMPUTE; r <= NS_REGIME_COMM; r++)
			b = ns_sat_add_i64(b,
			                   ns_sat_add_i64(d->overall.bucket_ns[r], d->warmup.bucket_ns[r]));
		busy = b > busy ? b : busy;
	}
	if (busy >= Q_WORK_FLOOR_NS)
		return;
	/* Without host activity there is nothing to set the work against: only none at all (GPU records of
	 * zero length) leaves nothing to judge, where the window would give its class at 0% */
	if (q->host_span_ns > 0 ? (double)busy >= Q_WORK_FLOOR_SHARE * (double)q->host_span_ns : busy > 0)
		return;
	set(&out->problem[NS_QP_LITTLE_DEVICE_WORK], 1, 1, busy, share_of(busy, q->host_span_ns),
	    NS_QUALITY_UNFIT);
	out->busy_ns = busy;
	out->host_span_ns = q->host_span_ns;
}

/* A file cut inside traceEvents lost what came after the cut. Kineto writes the host's ops first and the
 * device's activity (runtime calls, kernels, copies) after them, in time order, then closing metadata: a cut
 * before that metadata dropped the device's work from some point on while the host's ops stay, so the lost
 * work reads as host time and how much is lost the file cannot say: unfit. A cut in the closing metadata, or
 * after traceEvents, lost names and the profiler's own span, not activity: degraded. */
static void judge_truncated(const split_quality_state *q, long events, ns_split_quality *out)
{
	bool lost_activity = q->truncated_in_events && !q->device_done;

	if (!q->truncated)
		return;
	set(&out->problem[NS_QP_TRUNCATED], 1, events, 0, 0.0,
	    lost_activity ? NS_QUALITY_UNFIT : NS_QUALITY_DEGRADED);
	out->truncated_at = q->truncated_at;
	out->truncated_lost_activity = lost_activity;
}

ns_status split_quality_finish(ns_trace_split *s, ns_split_result *res, ns_error *err)
{
	split_quality_state *q = &s->quality;
	ns_split_quality *out = &res->quality;
	long launches = q->launches[LK_KERNEL] + q->launches[LK_COPY] + q->launches[LK_GRAPH];
	ns_status st;

	memset(out, 0, sizeof(*out));
	out->nsys = res->nsys;
	out->gpu_ns = q->gpu_ns;
	judge_truncated(q, res->events, out);
	if (s->ngpu == 0 && (launches > 0 || !res->host_comm))
		set(&out->problem[NS_QP_NO_DEVICE_ACTIVITY], 1, launches, 0, 0.0, NS_QUALITY_UNFIT);
	judge_dropped(q, out);
	judge_missing_ops(q, out);
	judge_graphs(q, out);
	if (q->conc_of > 0) {
		set(&out->problem[NS_QP_CONCENTRATED_STEPS], q->conc_steps, q->conc_of, q->conc_ns, 0.0,
		    NS_QUALITY_DEGRADED);
	}
	judge_order(q, out);
	judge_cut_short(s, out);
	judge_profiler(q, res, out);
	judge_device_work(q, res, out);
	judge_waits(s, res, out);
	if (q->queued > 0) { /* a note: the work is real and counted where it ran */
		set(&out->problem[NS_QP_QUEUED_BEFORE_CAPTURE], q->queued, q->records, 0, 0.0,
		    NS_QUALITY_GOOD);
		out->queued_lag_ns = ns_sat_sub_i64(q->queued_end, q->first_launch_ts);
	}
	st = judge_steps(s, res, out, err);
	for (int k = 0; k < NS_QP_COUNT; k++)
		if (out->problem[k].grade > out->grade)
			out->grade = out->problem[k].grade;
	return st;
}

void split_quality_free(split_quality_state *q)
{
	free(q->idw);
	q->idw = NULL;
	q->nidw = 0;
	free(q->gk);
	free(q->graph_corr);
	free(q->ex_corr);
	q->gk = NULL;
	q->graph_corr = NULL;
	q->ex_corr = NULL;
	q->nex = 0;
}
