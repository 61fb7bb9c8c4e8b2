/* One pass in time order over a device's GPU records and the process's host spans, filling the buckets and
 * causes of every window it crosses. */
#include <string.h>

#include "trace/split/split_private.h"

/* Sweep counters: the GPU kinds, then the process's host lists. */
enum { SW_HOST = GK_COUNT, SW_COUNT = GK_COUNT + SL_COUNT };

/* The bucket and cause of one state; NS_CAUSE_COUNT for buckets that are not split (compute, dataloader) and
 * for host_gap, which is what is left of a window once everything else is placed. */
static void classify_state(const int64_t c[SW_COUNT], int *bucket, int *cause)
{
	const int64_t *h = c + SW_HOST;

	*cause = NS_CAUSE_COUNT;
	if (c[GK_COMPUTE] > 0) {
		*bucket = NS_REGIME_COMPUTE;
	} else if (c[GK_MEMORY] > 0 || c[GK_TRANSFER] > 0) {
		*bucket = NS_REGIME_MEMORY;
		*cause = c[GK_MEMORY] > 0 ? NS_CAUSE_KERNELS : NS_CAUSE_TRANSFER;
	} else if (c[GK_COMM] > 0) {
		*bucket = NS_REGIME_COMM;
		*cause = NS_CAUSE_EXPOSED;
	} else if (h[SL_DL] > 0) {
		*bucket = NS_REGIME_DATALOADER;
	} else if (h[SL_COMM] > 0) {
		*bucket = NS_REGIME_COMM;
		*cause = NS_CAUSE_HOST_COMM;
	} else if (h[SL_LAUNCH] > 0 || h[SL_OTHER] > 0) {
		*bucket = NS_REGIME_OVERHEAD;
		*cause = h[SL_BLOCK] > 0 || h[SL_SYNC] > 0 ? NS_CAUSE_SYNC
		         : h[SL_INIT] > 0                  ? NS_CAUSE_INIT
		         : h[SL_LAUNCH] > 0                ? NS_CAUSE_LAUNCH
		                                           : NS_CAUSE_HOST_THREADS;
	} else {
		*bucket = NS_REGIME_IDLE;
		*cause = h[SL_SYNC] > 0  ? NS_CAUSE_SYNC_WAIT
		         : h[SL_OPT] > 0 ? NS_CAUSE_OPTIMIZER
		                         : NS_CAUSE_COUNT;
	}
}

/* Moves ws->first past the windows that end by a. */
static void skip_ended(window_set *ws, int64_t a)
{
	while (ws->first < ws->v.n && split_view_end(&ws->v, ws->first) <= a)
		ws->first++;
}

/* Observe mode: reports the host causes' part of [a, b) to the hook, window by window. Idle time with no
 * cause is host_gap here (counting mode derives it in close_windows). */
static void observe(window_set *ws, int64_t a, int64_t b, int bucket, int cause)
{
	if (bucket == NS_REGIME_IDLE && cause == NS_CAUSE_COUNT)
		cause = NS_CAUSE_HOST_GAP;
	else if (bucket != NS_REGIME_OVERHEAD && cause != NS_CAUSE_OPTIMIZER)
		return;
	skip_ended(ws, a);
	for (size_t k = ws->first; k < ws->v.n; k++) {
		const ns_split_window *w = split_view_get(&ws->v, k);
		if (w->start_ns >= b)
			break;
		int64_t lo = a > w->start_ns ? a : w->start_ns;
		int64_t hi = b < w->start_ns + w->dur_ns ? b : w->start_ns + w->dur_ns;
		if (hi > lo)
			ws->hook(ws->hook_ctx, w, lo, hi, (ns_cause)cause);
	}
}

/* A synchronize or blocking copy on a device with nothing running returns within tens of microseconds (the
 * driver's round trip, a small copy): that much is the sync's own cost. Blocked longer with no work on any of
 * the device's streams, the host waits on something this device is not running (another device, a peer, an
 * event another stream or process records, GPU work missing from the trace): idle sync_wait, whose fix is
 * not "remove the .item()" (docs/trace.md, "Attribution"). */
#define SYNC_OWN_NS 100000

/* Adds [a, b) in state c to the windows it overlaps. */
static void attribute(window_set *ws, int64_t a, int64_t b, const int64_t c[SW_COUNT])
{
	bool memory = c[GK_MEMORY] > 0 || c[GK_TRANSFER] > 0;
	bool overlapped = c[GK_COMM] > 0 && (c[GK_COMPUTE] > 0 || memory);
	bool kernel =
	    c[GK_COMPUTE] > 0 || c[GK_MEMORY] > 0 || c[GK_COMM] > 0; /* copies alone are not kernels */
	int bucket, cause;

	classify_state(c, &bucket, &cause);
	if (cause == NS_CAUSE_SYNC && b - a >= SYNC_OWN_NS) {
		bucket = NS_REGIME_IDLE;
		cause = NS_CAUSE_SYNC_WAIT;
	}
	if (ws->hook != NULL) {
		observe(ws, a, b, bucket, cause);
		return;
	}
	if (bucket == NS_REGIME_IDLE && cause == NS_CAUSE_COUNT)
		return;
	if (cause == NS_CAUSE_EXPOSED && ws->exposed != NULL &&
	    split_span_add(ws->exposed, a, b, NULL) != NS_OK)
		ws->exposed_oom = true;
	skip_ended(ws, a);
	for (size_t k = ws->first; k < ws->v.n; k++) {
		ns_split_window *w = split_view_at(&ws->v, k);
		if (w->start_ns >= b)
			break;
		int64_t lo = a > w->start_ns ? a : w->start_ns;
		int64_t hi = b < w->start_ns + w->dur_ns ? b : w->start_ns + w->dur_ns;
		if (hi <= lo)
			continue;
		if (bucket != NS_REGIME_IDLE)
			w->bucket_ns[bucket] += hi - lo;
		if (cause != NS_CAUSE_COUNT)
			w->cause_ns[cause] += hi - lo;
		if (overlapped)
			w->comm_overlapped_ns += hi - lo;
		if (kernel)
			w->kernel_ns += hi - lo;
		if (cause == NS_CAUSE_LAUNCH && ws->opt_launch != NULL && c[SW_HOST + SL_OPT] > 0)
			ws->opt_launch[k] += hi - lo;
	}
}

/* Cursor over a sorted, disjoint span list. */
typedef struct {
	const span_list *l;
	size_t i;
} span_cursor;

static bool cursor_active(span_cursor *c, int64_t t)
{
	while (c->i < c->l->n && c->l->v[c->i].end <= t)
		c->i++;
	return c->i < c->l->n && c->l->v[c->i].start <= t;
}

/* The next boundary of the list after t, or INT64_MAX. */
static int64_t cursor_next(const span_cursor *c, int64_t t)
{
	if (c->i >= c->l->n)
		return INT64_MAX;
	return c->l->v[c->i].start > t ? c->l->v[c->i].start : c->l->v[c->i].end;
}

/* The idle bucket is what the window holds beyond every other bucket; host_gap is idle less its other causes
 * (sync_wait, optimizer). */
static void close_windows(window_set *ws)
{
	for (size_t k = 0; k < ws->v.n; k++) {
		ns_split_window *w = split_view_at(&ws->v, k);
		int64_t used = 0;
		for (int b = 0; b < NS_REGIME_COUNT; b++)
			used += b == NS_REGIME_IDLE ? 0 : w->bucket_ns[b];
		w->bucket_ns[NS_REGIME_IDLE] = w->dur_ns - used;
		w->cause_ns[NS_CAUSE_HOST_GAP] = w->bucket_ns[NS_REGIME_IDLE] -
		                                 w->cause_ns[NS_CAUSE_SYNC_WAIT] -
		                                 w->cause_ns[NS_CAUSE_OPTIMIZER];
	}
}

/* Without materialising boundary points: a GPU kind is busy at t exactly when the latest end among its
 * records started by t lies beyond t. Every boundary is visited once, so the pass is linear after the sort.
 */
void split_sweep(const ns_trace_split *s, const gpu_rec *g, size_t n, const span_list host[SL_COUNT],
                 window_set *ws)
{
	int64_t busy_until[GK_COUNT], c[SW_COUNT] = {0}, t = INT64_MAX;
	span_cursor hc[SL_COUNT];
	int used[SL_COUNT], nused = 0; /* the non-empty lists: most traces have two or three */
	size_t i = 0;

	for (int k = 0; k < GK_COUNT; k++)
		busy_until[k] = INT64_MIN;
	if (n > 0)
		t = split_gpu_start(s, &g[0]);
	for (int k = 0; k < SL_COUNT; k++) {
		hc[k] = (span_cursor){&host[k], 0};
		if (host[k].n == 0)
			continue;
		used[nused++] = k;
		if (host[k].v[0].start < t)
			t = host[k].v[0].start;
	}
	if (ws->hook != NULL && ws->v.n > 0 && split_view_get(&ws->v, 0)->start_ns < t)
		t = split_view_get(&ws->v, 0)->start_ns; /* host_gap before the first record is seen too */
	while (t != INT64_MAX) {
		int64_t next;
		for (; i < n && split_gpu_start(s, &g[i]) <= t; i++) {
			int64_t end = split_gpu_end(s, &g[i]);
			if (end > busy_until[split_gpu_kind(&g[i])])
				busy_until[split_gpu_kind(&g[i])] = end;
		}
		next = i < n ? split_gpu_start(s, &g[i]) : INT64_MAX;
		for (int k = 0; k < GK_COUNT; k++) {
			c[k] = busy_until[k] > t;
			if (c[k] && busy_until[k] < next)
				next = busy_until[k];
		}
		for (int u = 0; u < nused; u++) {
			int k = used[u];
			int64_t at;
			c[SW_HOST + k] = cursor_active(&hc[k], t);
			at = cursor_next(&hc[k], t);
			if (at < next)
				next = at;
		}
		attribute(ws, t, next, c); /* next may be INT64_MAX itself: a saturated end */
		t = next;
	}
	if (ws->hook == NULL)
		close_windows(ws);
}
