/* Slow host ops: the step thread's long CPU op calls, flattened to the innermost one at each instant, and
 * the GPU-idle launch time each op name holds (split_hostops.h). */
#include "trace/split/split_hostops.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

/* A kept call, and after flattening one stretch of the step thread with its innermost kept call. */
typedef struct {
	int64_t start, end;
	uint32_t name;
	uint32_t thread; /* calls: the host thread; segments: the launch calls made in it */
} hop_span;
_Static_assert(offsetof(hop_span, end) == offsetof(split_nest_span, end) &&
                   offsetof(hop_span, name) == offsetof(split_nest_span, name) &&
                   sizeof(hop_span) >= sizeof(split_nest_span),
               "a call begins as split_nest_flatten() reads it");

struct split_hostops {
	ns_kernel_names *names;
	hop_span *call; /* every thread's until prepared, then the step thread's, by start */
	size_t ncall, capcall;
	hop_span *seg; /* the step thread's innermost calls, disjoint, by start */
	size_t nseg, capseg;
	size_t nnames;
	int64_t *acc;  /* per name: [0] launch time held, [1] calls, [2] host time, [3] launches */
	size_t cursor; /* the first segment the sweep can still reach */
	bool all_count;
	bool taken; /* the names went to the result */
};

enum { ACC_IDLE, ACC_CALLS, ACC_HOST, ACC_LAUNCHES, ACC_COUNT };

split_hostops *split_hostops_new(void)
{
	split_hostops *h = calloc(1, sizeof(*h));

	if (h != NULL && (h->names = ns_kernel_names_new()) == NULL) {
		free(h);
		return NULL;
	}
	return h;
}

void split_hostops_free(split_hostops *h)
{
	if (h == NULL)
		return;
	if (!h->taken)
		ns_kernel_names_free(h->names);
	free(h->call);
	free(h->seg);
	free(h->acc);
	free(h);
}

bool split_hostops_name(split_hostops *h, ns_str name, uint32_t *id)
{
	ns_error err;

	return name.len > 0 && ns_kernel_names_intern(h->names, name.ptr, name.len, id, &err) == NS_OK;
}

static ns_status push(hop_span **v, size_t *n, size_t *cap, hop_span x, ns_error *err)
{
	hop_span *grown = ns_grow(*v, cap, *n + 1, sizeof(**v));

	if (grown == NULL)
		return split_oom(err);
	*v = grown;
	(*v)[(*n)++] = x;
	return NS_OK;
}

ns_status split_hostops_add(split_hostops *h, uint32_t thread, int64_t start, int64_t end, uint32_t id,
                            ns_error *err)
{
	if (end - start < SPLIT_HOSTOP_MIN_NS)
		return NS_OK;
	return push(&h->call, &h->ncall, &h->capcall, (hop_span){start, end, id, thread}, err);
}

/* Outer calls first: by start, the longer first among equal starts. */
static int cmp_call(const void *a, const void *b)
{
	const hop_span *x = a, *y = b;

	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->end < y->end) - (x->end > y->end);
}

static ns_status emit(void *ctx, int64_t a, int64_t b, uint32_t name, ns_error *err)
{
	split_hostops *h = ctx;

	return b > a ? push(&h->seg, &h->nseg, &h->capseg, (hop_span){a, b, name, 0}, err) : NS_OK;
}

/* The segments less the host stalls' held time (s->stall_spans: calls that take microseconds held for
 * milliseconds, docs/trace.md "Host stalls"): a stalled launch inside an op is the stall's, not the op's
 * own work. The stalls are the process's, every thread's; a trace has a handful. */
static ns_status cut_stalls(split_hostops *h, const span_list *stalls, ns_error *err)
{
	hop_span *old = h->seg;
	size_t n = h->nseg, j = 0;
	ns_status st = NS_OK;

	if (stalls->n == 0)
		return NS_OK;
	h->seg = NULL;
	h->nseg = h->capseg = 0;
	for (size_t i = 0; i < n && st == NS_OK; i++) {
		int64_t at = old[i].start;
		while (j < stalls->n && stalls->v[j].end <= at)
			j++;
		for (size_t k = j; k < stalls->n && stalls->v[k].start < old[i].end && st == NS_OK; k++) {
			st = emit(h, at, stalls->v[k].start, old[i].name, err);
			at = stalls->v[k].end > at ? stalls->v[k].end : at;
		}
		if (st == NS_OK)
			st = emit(h, at, old[i].end, old[i].name, err);
	}
	free(old);
	return st;
}

/* The segment holding t, or nseg. */
static size_t segment_at(const split_hostops *h, int64_t t)
{
	size_t lo = 0, hi = h->nseg;

	while (lo < hi) { /* the first segment ending after t */
		size_t mid = lo + (hi - lo) / 2;
		if (h->seg[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->nseg && h->seg[lo].start <= t ? lo : h->nseg;
}

ns_status split_hostops_prepare(split_hostops *h, const ns_trace_split *s, uint32_t main_thread,
                                ns_error *err)
{
	size_t kept = 0;
	ns_status st;

	for (size_t i = 0; i < h->ncall; i++)
		if (h->call[i].thread == main_thread)
			h->call[kept++] = h->call[i];
	h->ncall = kept;
	if (kept == 0)
		return NS_OK;
	ns_sort(h->call, h->ncall, sizeof(*h->call), cmp_call);
	if ((st = split_nest_flatten(h->call, h->ncall, sizeof(*h->call), emit, h, err)) != NS_OK ||
	    (st = cut_stalls(h, &s->stall_spans, err)) != NS_OK)
		return st;
	for (size_t i = 0; i < split_launch_count(s); i++) {
		launch_call l = split_launch_get(s, i);
		size_t k = l.thread == main_thread && l.kind != LK_QUIET ? segment_at(h, l.ts) : h->nseg;
		if (k < h->nseg)
			h->seg[k].thread++;
	}
	h->nnames = ns_kernel_names_count(h->names);
	h->acc = calloc(h->nnames * ACC_COUNT + 1, sizeof(*h->acc));
	return h->acc == NULL ? split_oom(err) : NS_OK;
}

bool split_hostops_any(const split_hostops *h)
{
	return h != NULL && h->nseg > 0 && h->acc != NULL;
}

/* The sweep's hook: [a, b) of window w is GPU-idle time of host cause c. */
static void on_host_time(void *ctx, const ns_split_window *w, int64_t a, int64_t b, ns_cause c)
{
	split_hostops *h = ctx;

	if (c != NS_CAUSE_LAUNCH || (w->warmup && !h->all_count))
		return;
	while (h->cursor < h->nseg && h->seg[h->cursor].end <= a)
		h->cursor++;
	for (size_t k = h->cursor; k < h->nseg && h->seg[k].start < b; k++) {
		int64_t lo = a > h->seg[k].start ? a : h->seg[k].start;
		int64_t hi = b < h->seg[k].end ? b : h->seg[k].end;
		if (hi > lo)
			h->acc[(size_t)h->seg[k].name * ACC_COUNT + ACC_IDLE] += hi - lo;
	}
}

/* Whether the window holding t counts in overall. */
static bool counts_at(const split_hostops *h, const split_view *v, int64_t t, size_t *hint)
{
	size_t k = split_window_of(v, t, hint);

	return k < v->n && (h->all_count || !split_view_get(v, k)->warmup);
}

/* Calls, host time and launches of each name in the windows that count. */
static void tally(split_hostops *h, const split_view *v)
{
	size_t hint = 0;

	for (size_t i = 0; i < h->ncall; i++)
		if (counts_at(h, v, h->call[i].start, &hint))
			h->acc[(size_t)h->call[i].name * ACC_COUNT + ACC_CALLS]++;
	hint = 0;
	for (size_t i = 0; i < h->nseg; i++) {
		int64_t *a = h->acc + (size_t)h->seg[i].name * ACC_COUNT;
		if (!counts_at(h, v, h->seg[i].start, &hint))
			continue;
		a[ACC_HOST] += h->seg[i].end - h->seg[i].start;
		a[ACC_LAUNCHES] += h->seg[i].thread;
	}
}

static bool every_window_counts(const split_view *v, bool keep_warmup)
{
	for (size_t i = 0; i < v->n; i++)
		if (!split_view_get(v, i)->warmup)
			return keep_warmup;
	return true;
}

ns_status split_hostops_attribute(split_hostops *h, const ns_trace_split *s, const gpu_rec *g, size_t n,
                                  const span_list host[SL_COUNT], ns_split_device *d, bool keep_warmup,
                                  ns_error *err)
{
	window_set ws = {.v = split_device_view(d), .hook = on_host_time, .hook_ctx = h};
	size_t best = h->nnames;

	(void)err;
	memset(&d->host_op, 0, sizeof(d->host_op));
	memset(h->acc, 0, h->nnames * ACC_COUNT * sizeof(*h->acc));
	h->cursor = 0;
	h->all_count = every_window_counts(&ws.v, keep_warmup);
	split_sweep(s, g, n, host, &ws);
	tally(h, &ws.v);
	for (size_t i = 0; i < h->nnames; i++) /* the most launch time; ties: the first interned */
		if (h->acc[i * ACC_COUNT + ACC_IDLE] > 0 &&
		    (best == h->nnames ||
		     h->acc[i * ACC_COUNT + ACC_IDLE] > h->acc[best * ACC_COUNT + ACC_IDLE]))
			best = i;
	if (best == h->nnames)
		return NS_OK;
	d->host_op.name_id = (uint32_t)best;
	d->host_op.idle_ns = h->acc[best * ACC_COUNT + ACC_IDLE];
	d->host_op.calls = h->acc[best * ACC_COUNT + ACC_CALLS];
	d->host_op.host_ns = h->acc[best * ACC_COUNT + ACC_HOST];
	d->host_op.launches = h->acc[best * ACC_COUNT + ACC_LAUNCHES];
	return NS_OK;
}

void split_hostops_result(split_hostops *h, ns_split_result *res)
{
	bool named = false;

	for (size_t i = 0; h != NULL && i < res->ndevices; i++)
		named = named || res->device[i].host_op.idle_ns > 0;
	if (!named)
		return;
	res->host_op_names = h->names;
	h->taken = true;
}
