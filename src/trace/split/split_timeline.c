/* The median step of a device at a fixed number of pixels: which GPU stream and which host thread was busy
 * with what, pixel by pixel (issue 14's timeline strip). Only that one window is read, and the result has a
 * fixed size: the page that draws it does not grow with the trace.
 *
 * Two passes over the records that can overlap the window: one to rank the streams (and threads) by busy
 * time, one to add each record's time to the pixels it covers. Rows past the limits share one "other" row. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "trace/split/split_private.h"

#define PX        NS_SPLIT_TIMELINE_PX
#define CLASSES   NS_SPLIT_TIMELINE_CLASSES
#define GPU_ROWS  NS_SPLIT_TIMELINE_GPU_ROWS
#define HOST_ROWS NS_SPLIT_TIMELINE_HOST_ROWS
#define NO_ROW    SIZE_MAX

void ns_trace_split_want_timeline(ns_trace_split *s, bool want)
{
	s->want_timeline = want;
}

typedef struct {
	int64_t dur;
	size_t i;
} window_ref;

/* By length, then by position: steps of equal length keep their order. */
static int cmp_dur(const void *a, const void *b)
{
	const window_ref *x = a, *y = b;
	if (x->dur != y->dur)
		return (x->dur > y->dur) - (x->dur < y->dur);
	return (x->i > y->i) - (x->i < y->i);
}

/* The lower median by length of the steps that are not warm-up (of all of them when every one is), copied
 * to *m. False on OOM. */
static bool median_window(const ns_split_device *d, ns_split_window *m)
{
	split_view v = split_device_view(d);
	window_ref *w = malloc(v.n * sizeof(*w));
	size_t n = 0;

	if (w == NULL)
		return false;
	for (size_t i = 0; i < v.n; i++)
		if (!split_view_get(&v, i)->warmup)
			w[n++] = (window_ref){split_view_get(&v, i)->dur_ns, i};
	if (n == 0)
		for (; n < v.n; n++)
			w[n] = (window_ref){split_view_get(&v, n)->dur_ns, n};
	qsort(w, n, sizeof(*w), cmp_dur);
	*m = *split_view_get(&v, w[(n - 1) / 2].i);
	free(w);
	return true;
}

typedef struct {
	int64_t start, dur;
	int64_t ns[PX][CLASSES]; /* one row's time per pixel and class */
} row_acc;

/* Where pixel p starts, in ns from the window's start: floor(dur * p / PX) without overflow. */
static int64_t pixel_start(int64_t dur, size_t p)
{
	return (dur / PX) * (int64_t)p + (dur % PX) * (int64_t)p / PX;
}

static size_t pixel_of(int64_t dur, int64_t t)
{
	size_t p = (size_t)((double)t / (double)dur * PX);

	if (p >= PX)
		p = PX - 1;
	while (p > 0 && pixel_start(dur, p) > t)
		p--;
	while (p + 1 < PX && pixel_start(dur, p + 1) <= t)
		p++;
	return p;
}

/* Adds [a, b), clipped to the window, to class c of the pixels it covers; returns the time added. */
static int64_t add_span(row_acc *acc, int64_t a, int64_t b, int c)
{
	int64_t end = ns_sat_add_i64(acc->start, acc->dur);
	size_t p0, p1;

	a = a < acc->start ? acc->start : a;
	b = b > end ? end : b;
	if (b <= a)
		return 0;
	p0 = pixel_of(acc->dur, a - acc->start);
	p1 = pixel_of(acc->dur, b - 1 - acc->start);
	for (size_t p = p0; p <= p1; p++) {
		int64_t ps = acc->start + pixel_start(acc->dur, p),
		        pe = acc->start + pixel_start(acc->dur, p + 1);
		int64_t from = a > ps ? a : ps, to = b < pe ? b : pe;
		if (to > from)
			acc->ns[p][c] += to - from;
	}
	return b - a;
}

/* The busiest entries get a row each: slot[i] is the row of entry i (NO_ROW for an idle one); the first
 * `limit` by busy time get rows first, first + 1, ...; the rest share the next one. Returns the rows used. */
static size_t assign_rows(const int64_t *busy, size_t n, size_t limit, size_t first, size_t *slot)
{
	size_t used = 0;
	bool other = false;

	for (size_t i = 0; i < n; i++)
		slot[i] = NO_ROW;
	for (size_t r = 0; r < limit; r++) {
		size_t best = NO_ROW;
		for (size_t i = 0; i < n; i++)
			if (busy[i] > 0 && slot[i] == NO_ROW && (best == NO_ROW || busy[i] > busy[best]))
				best = i;
		if (best == NO_ROW)
			break;
		slot[best] = first + used++;
	}
	for (size_t i = 0; i < n; i++) {
		if (busy[i] > 0 && slot[i] == NO_ROW) {
			slot[i] = first + used;
			other = true;
		}
	}
	return used + other;
}

/* Records overlapping [a, b): sorted by start, so the scan ends at b. */
static void gpu_busy(const ns_trace_split *s, const gpu_rec *g, size_t n, int64_t a, int64_t b,
                     int64_t busy[256])
{
	for (size_t i = 0; i < n && split_gpu_start(s, &g[i]) < b; i++) {
		int64_t end = split_gpu_end(s, &g[i]);
		int64_t from = split_gpu_start(s, &g[i]) > a ? split_gpu_start(s, &g[i]) : a,
		        to = end < b ? end : b;
		if (to > from)
			busy[split_gpu_stream(&g[i])] += to - from;
	}
}

static int64_t clipped(const span_list *l, int64_t a, int64_t b)
{
	int64_t sum = 0;

	for (size_t i = 0; i < l->n; i++) {
		int64_t from = l->v[i].start > a ? l->v[i].start : a, to = l->v[i].end < b ? l->v[i].end : b;
		if (to > from)
			sum += to - from;
	}
	return sum;
}

/* The host lists drawn, and the class each one is drawn as. */
static const struct {
	int list, cls;
} host_lists[] = {
    {HK_CPU, NS_TIMELINE_HOST_CPU},   {HK_DL, NS_TIMELINE_HOST_DATALOADER}, {HK_BLOCK, NS_TIMELINE_HOST_SYNC},
    {HK_SYNC, NS_TIMELINE_HOST_SYNC}, {HK_COMM, NS_TIMELINE_HOST_COMM},
};
#define NHOST_LISTS (sizeof(host_lists) / sizeof(host_lists[0]))

/* A blocking op is CPU time too: it is drawn as sync but not counted twice. */
static int64_t thread_busy(const host_thread *t, int64_t a, int64_t b)
{
	return clipped(&t->list[HK_CPU], a, b) + clipped(&t->list[HK_DL], a, b) +
	       clipped(&t->list[HK_SYNC], a, b) + clipped(&t->list[HK_COMM], a, b);
}

static void fill_gpu_rows(const ns_trace_split *s, const gpu_rec *g, size_t n, const size_t slot[256],
                          ns_split_timeline *tl, row_acc *acc)
{
	int64_t end = ns_sat_add_i64(tl->start_ns, tl->dur_ns);

	for (size_t i = 0; i < 256; i++) {
		stream_key key;
		ns_split_timeline_row *r;
		if (slot[i] == NO_ROW)
			continue;
		r = &tl->row[slot[i]];
		r->pid = -1;
		r->id = !r->merged && i != SPLIT_STREAM_OTHER && split_stream_key(s, (uint8_t)i, &key)
		            ? key.stream
		            : -1;
	}
	for (size_t i = 0; i < n && split_gpu_start(s, &g[i]) < end; i++) {
		size_t row = slot[split_gpu_stream(&g[i])];
		if (row != NO_ROW)
			tl->row[row].busy_ns +=
			    add_span(&acc[row], split_gpu_start(s, &g[i]), split_gpu_end(s, &g[i]),
			             split_gpu_kind(&g[i]) % CLASSES);
	}
}

static void fill_host_rows(const ns_trace_split *s, const size_t *slot, ns_split_timeline *tl, row_acc *acc)
{
	for (size_t t = 0; t < s->nthreads; t++) {
		const host_thread *h = &s->thread[t];
		const thread_label *label;
		ns_split_timeline_row *r;
		if (slot[t] == NO_ROW)
			continue;
		r = &tl->row[slot[t]];
		r->host = true;
		r->pid = r->merged ? -1 : h->pid;
		r->id = r->merged ? -1 : h->tid;
		if (!r->merged && (label = split_label_find(s, h->pid, h->tid)) != NULL)
			memcpy(r->name, label->name, sizeof(r->name));
		for (size_t k = 0; k < NHOST_LISTS; k++) {
			const span_list *l = &h->list[host_lists[k].list];
			for (size_t i = 0; i < l->n; i++) {
				int64_t added =
				    add_span(&acc[slot[t]], l->v[i].start, l->v[i].end, host_lists[k].cls);
				if (host_lists[k].list != HK_BLOCK)
					r->busy_ns += added;
			}
		}
	}
}

/* Whether thread t comes before thread u on the strip: those the trace sorts (thread_sort_index) first, in
 * its order, then the others; ties keep the busy order (their slots). */
static bool drawn_before(const ns_trace_split *s, const size_t *slot, size_t t, size_t u)
{
	const thread_label *a = split_label_find(s, s->thread[t].pid, s->thread[t].tid);
	const thread_label *b = split_label_find(s, s->thread[u].pid, s->thread[u].tid);
	bool ka = a != NULL && a->has_sort_index, kb = b != NULL && b->has_sort_index;

	if (ka != kb)
		return ka;
	if (ka && a->sort_index != b->sort_index)
		return a->sort_index < b->sort_index;
	return slot[t] < slot[u];
}

/* The drawn host rows (slots first .. first + n - 1, the busiest threads) in the order the trace's own
 * viewer shows them. */
static void order_by_sort_index(const ns_trace_split *s, size_t *slot, size_t first, size_t n)
{
	size_t pick[HOST_ROWS], np = 0;

	for (size_t t = 0; t < s->nthreads && np < HOST_ROWS; t++)
		if (slot[t] != NO_ROW && slot[t] >= first && slot[t] < first + n)
			pick[np++] = t;
	for (size_t i = 1; i < np; i++) /* insertion sort of at most HOST_ROWS threads */
		for (size_t j = i; j > 0 && drawn_before(s, slot, pick[j], pick[j - 1]); j--) {
			size_t tmp = pick[j];
			pick[j] = pick[j - 1];
			pick[j - 1] = tmp;
		}
	for (size_t i = 0; i < np; i++)
		slot[pick[i]] = first + i;
}

/* Time per pixel into shares of the pixel. */
static void to_fractions(ns_split_timeline *tl, const row_acc *acc)
{
	for (size_t r = 0; r < tl->nrows; r++)
		for (size_t p = 0; p < PX; p++) {
			int64_t len = pixel_start(tl->dur_ns, p + 1) - pixel_start(tl->dur_ns, p);
			for (int c = 0; c < CLASSES; c++) {
				double f = len > 0 ? (double)acc[r].ns[p][c] / (double)len : 0.0;
				tl->row[r].frac[p][c] =
				    (uint16_t)(f >= 1.0 ? NS_SPLIT_TIMELINE_FULL
				                        : f * NS_SPLIT_TIMELINE_FULL + 0.5);
			}
		}
}

static ns_status build(const ns_trace_split *s, const gpu_rec *g, size_t n, const ns_split_window *w,
                       ns_split_timeline *tl, ns_error *err)
{
	int64_t a = w->start_ns, b = ns_sat_add_i64(w->start_ns, w->dur_ns), sbusy[256] = {0};
	size_t nt = s->nthreads > 0 ? s->nthreads : 1, sslot[256], ngpu;
	int64_t *tbusy = calloc(nt, sizeof(*tbusy));
	size_t *tslot = calloc(nt, sizeof(*tslot));
	row_acc *acc = NULL;
	bool ok;

	if (tbusy != NULL && tslot != NULL) {
		tl->step = w->step;
		tl->start_ns = a;
		tl->dur_ns = w->dur_ns;
		gpu_busy(s, g, n, a, b, sbusy);
		ngpu = assign_rows(sbusy, 256, GPU_ROWS, 0, sslot);
		for (size_t t = 0; t < s->nthreads; t++)
			tbusy[t] = thread_busy(&s->thread[t], a, b);
		tl->nrows = ngpu + assign_rows(tbusy, s->nthreads, HOST_ROWS, ngpu, tslot);
		order_by_sort_index(s, tslot, ngpu,
		                    tl->nrows - ngpu < HOST_ROWS ? tl->nrows - ngpu : HOST_ROWS);
		for (size_t r = 0; r < tl->nrows; r++)
			tl->row[r].merged = (r == GPU_ROWS && r < ngpu) || r == ngpu + HOST_ROWS;
		acc = calloc(tl->nrows > 0 ? tl->nrows : 1, sizeof(*acc));
	}
	ok = acc != NULL;
	if (ok) {
		for (size_t r = 0; r < tl->nrows; r++) {
			acc[r].start = a;
			acc[r].dur = w->dur_ns;
		}
		fill_gpu_rows(s, g, n, sslot, tl, acc);
		fill_host_rows(s, tslot, tl, acc);
		to_fractions(tl, acc);
	}
	free(tbusy);
	free(tslot);
	free(acc);
	return ok ? NS_OK : split_oom(err);
}

ns_status split_timeline_build(const ns_trace_split *s, const gpu_rec *g, size_t n, ns_split_device *d,
                               ns_error *err)
{
	ns_split_window median;
	const ns_split_window *w = &median;
	ns_status st;

	if (d->nsteps == 0 || d->timeline != NULL)
		return NS_OK;
	if (!median_window(d, &median))
		return split_oom(err);
	if (w->dur_ns <= 0)
		return NS_OK;
	d->timeline = calloc(1, sizeof(*d->timeline));
	if (d->timeline == NULL)
		return split_oom(err);
	st = build(s, g, n, w, d->timeline, err);
	if (st != NS_OK) {
		free(d->timeline);
		d->timeline = NULL;
	}
	return st;
}
