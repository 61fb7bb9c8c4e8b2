/* Kernel counts per window, kernel time per (name, class) clipped to the windows, and the overall sums. */
#include <stdlib.h>
#include <string.h>

#include "trace/split/split_private.h"

size_t split_window_of(const split_view *v, int64_t t, size_t *hint)
{
	size_t lo = 0, hi = v->n, k = *hint;

	/* In time order the answer is the hint or a window or two after it. */
	if (k < v->n && split_view_get(v, k)->start_ns <= t) {
		for (size_t j = 0; j < 4 && k + 1 < v->n && split_view_get(v, k + 1)->start_ns <= t; j++)
			k++;
		if (k + 1 == v->n || split_view_get(v, k + 1)->start_ns > t)
			lo = k + 1;
	}
	if (lo == 0) {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (split_view_get(v, mid)->start_ns <= t)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	if (lo == 0 || t >= split_view_end(v, lo - 1))
		return v->n;
	*hint = lo - 1;
	return lo - 1;
}

typedef struct {
	int64_t ns;
	long count;
} name_time;

static int cmp_kernel_time(const void *a, const void *b)
{
	const ns_split_kernel_time *x = a, *y = b;
	if (x->ns != y->ns)
		return (x->ns < y->ns) - (x->ns > y->ns);
	return (x->name_id > y->name_id) - (x->name_id < y->name_id);
}

ns_status split_tally_kernels(const ns_trace_split *s, const gpu_rec *g, size_t n, ns_split_device *d,
                              ns_error *err)
{
	split_view v = split_device_view(d);
	size_t nnames = ns_kernel_names_count(s->names), used = 0, hint = 0;
	const ns_split_window *end = split_view_get(&v, v.n - 1);
	int64_t hi = end->start_ns + end->dur_ns, lo = split_view_get(&v, 0)->start_ns;
	name_time *t = calloc(nnames * NS_KCLASS_COUNT + 1, sizeof(*t));

	if (t == NULL)
		return split_oom(err);
	for (size_t i = 0; i < n; i++) {
		int kind = split_gpu_kind(&g[i]), cls = kind == GK_TRANSFER ? NS_KCLASS_MEMORY : kind;
		int64_t start = split_gpu_start(s, &g[i]);
		int64_t g_end = split_gpu_end(s, &g[i]);
		int64_t a = start > lo ? start : lo, b = g_end < hi ? g_end : hi;
		/* a record of no length where the last window ends is that window's: the windows are half-open,
		 * and without steps the one window ends where the last record does (it counted "1 kernel" for
		 * two) */
		bool at_end = start == hi && g_end == start;
		size_t w = at_end ? v.n - 1 : split_window_of(&v, start, &hint);
		if (kind != GK_TRANSFER && w < v.n)
			split_view_at(&v, w)->kernels++;
		if (b <= a && !(start >= lo && start < hi) && !at_end)
			continue;
		name_time *e = &t[(size_t)split_gpu_name(&g[i]) * NS_KCLASS_COUNT + (size_t)cls];
		used += e->count == 0;
		e->count++;
		e->ns = ns_sat_add_i64(e->ns, b > a ? b - a : 0);
		d->class_ns[cls] = ns_sat_add_i64(d->class_ns[cls], b > a ? b - a : 0);
		if (split_gpu_kind(&g[i]) == GK_TRANSFER)
			d->transfer_ns = ns_sat_add_i64(d->transfer_ns, b > a ? b - a : 0);
	}
	d->kernel_time = calloc(used + 1, sizeof(*d->kernel_time));
	if (d->kernel_time == NULL) {
		free(t);
		return split_oom(err);
	}
	for (size_t i = 0; i < nnames * NS_KCLASS_COUNT; i++) {
		if (t[i].count > 0)
			d->kernel_time[d->nkernel_time++] = (ns_split_kernel_time){
			    (uint32_t)(i / NS_KCLASS_COUNT), (ns_kernel_class)(i % NS_KCLASS_COUNT), t[i].ns,
			    t[i].count};
	}
	ns_sort(d->kernel_time, d->nkernel_time, sizeof(*d->kernel_time), cmp_kernel_time);
	free(t);
	return NS_OK;
}

void split_add_window(ns_split_window *o, const ns_split_window *w)
{
	o->dur_ns += w->dur_ns;
	for (int b = 0; b < NS_REGIME_COUNT; b++)
		o->bucket_ns[b] += w->bucket_ns[b];
	for (int c = 0; c < NS_CAUSE_COUNT; c++)
		o->cause_ns[c] += w->cause_ns[c];
	o->comm_overlapped_ns += w->comm_overlapped_ns;
	o->kernel_ns = o->kernel_ns < 0 || w->kernel_ns < 0 ? -1 : o->kernel_ns + w->kernel_ns;
	o->kernels += w->kernels;
	o->graph_launches = ns_sat_add_u32(o->graph_launches, w->graph_launches);
	o->graph_kernels = ns_sat_add_u32(o->graph_kernels, w->graph_kernels);
	o->graph_ns += w->graph_ns;
}

/* The overall window sums the steps that count (warm-up steps are left out unless every step is), and the
 * warm-up steps have their own sum. */
void split_sum_overall(ns_split_device *d, bool keep_warmup, const int64_t *opt_launch)
{
	ns_split_window *o = &d->overall, *wu = &d->warmup;
	split_view v = split_device_view(d);
	bool all = true; /* every step is warm-up: then they all count, there is nothing else */

	for (size_t i = 0; i < v.n && all; i++) /* stops at the first counted step: each pass costs a read */
		all = split_view_get(&v, i)->warmup;
	all = all || keep_warmup;
	d->nwarmup = 0;
	d->optimizer_launch_ns = 0;
	memset(o, 0, sizeof(*o));
	memset(wu, 0, sizeof(*wu));
	o->step = wu->step = -1;
	o->start_ns = v.n > 0 ? split_view_get(&v, 0)->start_ns : 0;
	for (size_t i = 0; i < v.n; i++) {
		const ns_split_window *w = split_view_get(&v, i);
		if (w->warmup && !all) {
			if (wu->dur_ns == 0)
				wu->start_ns = w->start_ns;
			split_add_window(wu, w);
			d->nwarmup++;
			continue;
		}
		if (o->dur_ns == 0)
			o->start_ns = w->start_ns;
		split_add_window(o, w);
		if (opt_launch != NULL)
			d->optimizer_launch_ns += opt_launch[i];
	}
}
