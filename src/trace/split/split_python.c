/* The Python behind host time: frames kept per thread, flattened into the innermost frame's self-time
 * segments, and summed per host cause over the GPU-idle time the sweep reports (split_python.h). */
#include "trace/split/split_python.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

/* One frame as recorded, and, after flattening, one stretch of a thread's time with its innermost frame. */
typedef struct {
	int64_t start, end;
	uint32_t name;
} py_frame;
_Static_assert(offsetof(py_frame, end) == offsetof(split_nest_span, end) &&
                   offsetof(py_frame, name) == offsetof(split_nest_span, name) &&
                   sizeof(py_frame) >= sizeof(split_nest_span),
               "a frame begins as split_nest_flatten() reads it");

typedef struct {
	py_frame *v;
	size_t n, cap;
	size_t i; /* sweep cursor, once flattened */
} py_list;

/* The host causes Python time is looked for behind, in the order of the accumulator's rows. */
static const ns_cause host_causes[] = {NS_CAUSE_LAUNCH, NS_CAUSE_HOST_THREADS, NS_CAUSE_SYNC,
                                       NS_CAUSE_HOST_GAP, NS_CAUSE_OPTIMIZER};
#define NHOST ((int)(sizeof(host_causes) / sizeof(host_causes[0])))

struct split_python {
	ns_kernel_names *names;
	py_list *thread; /* indexed by the split's thread index; frames, then flattened segments */
	size_t nthreads, thread_cap;
	size_t kept, dropped;
	bool flat;            /* thread lists hold segments */
	uint32_t main_thread; /* the step thread: launch, sync and host_gap */
	uint32_t *other;      /* the process's other threads with segments: host_threads */
	size_t nother;
	int64_t *acc;          /* [NHOST][nnames] self time */
	int64_t framed[NHOST]; /* cause time under some frame */
	size_t nnames;
	bool all_count; /* every window counts in overall (all warm-up, or warm-up kept) */
};

split_python *split_python_new(void)
{
	split_python *p = calloc(1, sizeof(*p));

	if (p != NULL && (p->names = ns_kernel_names_new()) == NULL) {
		free(p);
		return NULL;
	}
	return p;
}

void split_python_free(split_python *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->nthreads; i++)
		free(p->thread[i].v);
	free(p->thread);
	free(p->other);
	free(p->acc);
	ns_kernel_names_free(p->names);
	free(p);
}

ns_status split_python_name(split_python *p, ns_str name, uint32_t *id, bool *kept, ns_error *err)
{
	ns_error why;

	*kept = false;
	if (name.len == 0 || name.ptr[0] == '<')
		return NS_OK; /* a built-in: its time is its caller's */
	if (p->kept >= NS_SPLIT_PYTHON_MAX_FRAMES) {
		p->dropped++;
		return NS_OK;
	}
	if (ns_kernel_names_intern(p->names, name.ptr, name.len, id, &why) != NS_OK) {
		if (why.status == NS_ERR_NOMEM)
			return split_oom(err);
		p->dropped++; /* past the table's limits on names */
		return NS_OK;
	}
	*kept = true;
	return NS_OK;
}

ns_status split_python_add(split_python *p, uint32_t thread, int64_t start, int64_t end, uint32_t id,
                           ns_error *err)
{
	py_list *l;

	if (thread >= p->nthreads) {
		size_t want = (size_t)thread + 1;
		py_list *grown = ns_grow(p->thread, &p->thread_cap, want, sizeof(*grown));
		if (grown == NULL)
			return split_oom(err);
		memset(grown + p->nthreads, 0, (want - p->nthreads) * sizeof(*grown));
		p->thread = grown;
		p->nthreads = want;
	}
	if (p->kept >= NS_SPLIT_PYTHON_MAX_FRAMES) { /* a B event interned before the cap was reached */
		p->dropped++;
		return NS_OK;
	}
	l = &p->thread[thread];
	void *grown = ns_grow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	if (grown == NULL)
		return split_oom(err);
	l->v = grown;
	l->v[l->n++] = (py_frame){start, end > start ? end : start, id};
	p->kept++;
	return NS_OK;
}

bool split_python_any(const split_python *p)
{
	return p != NULL && p->kept > 0;
}

/* ---- flattening ---- */

/* Outer frames first: by start, the longer first among equal starts. */
static int cmp_frame(const void *a, const void *b)
{
	const py_frame *x = a, *y = b;
	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->end < y->end) - (x->end > y->end);
}

static ns_status emit(void *ctx, int64_t a, int64_t b, uint32_t name, ns_error *err)
{
	py_list *out = ctx;

	if (b <= a)
		return NS_OK;
	if (out->n > 0 && out->v[out->n - 1].end == a && out->v[out->n - 1].name == name) {
		out->v[out->n - 1].end = b;
		return NS_OK;
	}
	void *grown = ns_grow(out->v, &out->cap, out->n + 1, sizeof(*out->v));
	if (grown == NULL)
		return split_oom(err);
	out->v = grown;
	out->v[out->n++] = (py_frame){a, b, name};
	return NS_OK;
}

/* Segments l cut to the time a thread runs host work (ops: sorted, disjoint spans). */
static ns_status intersect(const py_list *l, const span_list *ops, py_list *out, ns_error *err)
{
	size_t j = 0;

	for (size_t i = 0; i < l->n; i++) {
		while (j < ops->n && ops->v[j].end <= l->v[i].start)
			j++;
		for (size_t k = j; k < ops->n && ops->v[k].start < l->v[i].end; k++) {
			int64_t a = l->v[i].start > ops->v[k].start ? l->v[i].start : ops->v[k].start;
			int64_t b = l->v[i].end < ops->v[k].end ? l->v[i].end : ops->v[k].end;
			ns_status st = emit(out, a, b, l->v[i].name, err);
			if (st != NS_OK)
				return st;
		}
	}
	return NS_OK;
}

/* Replaces thread i's frames by its segments (cut to its own ops unless it is the step thread). */
static ns_status flatten_thread(split_python *p, ns_trace_split *s, uint32_t i, ns_error *err)
{
	py_list *l = &p->thread[i], flat = {0}, cut = {0};
	ns_status st;

	ns_sort(l->v, l->n, sizeof(*l->v), cmp_frame);
	st = split_nest_flatten(l->v, l->n, sizeof(*l->v), emit, &flat, err);
	if (st == NS_OK && i != p->main_thread) {
		(void)split_spans_union(&s->thread[i].list[HK_CPU]);
		st = intersect(&flat, &s->thread[i].list[HK_CPU], &cut, err);
		free(flat.v);
		flat = cut;
	}
	free(l->v);
	*l = flat;
	return st;
}

/* Once per split: every thread of the step thread's process flattened; the others listed. */
static ns_status prepare(split_python *p, ns_trace_split *s, uint32_t main_thread, ns_error *err)
{
	int64_t pid = s->thread[main_thread].pid;

	p->flat = true;
	p->main_thread = main_thread;
	p->nnames = ns_kernel_names_count(p->names);
	p->acc = calloc(p->nnames * NHOST + 1, sizeof(*p->acc));
	p->other = calloc(p->nthreads + 1, sizeof(*p->other));
	if (p->acc == NULL || p->other == NULL)
		return split_oom(err);
	for (uint32_t i = 0; i < p->nthreads; i++) {
		ns_status st;
		if (s->thread[i].pid != pid) {
			free(p->thread[i].v);
			p->thread[i] = (py_list){0};
			continue;
		}
		if ((st = flatten_thread(p, s, i, err)) != NS_OK)
			return st;
		if (i != main_thread && p->thread[i].n > 0)
			p->other[p->nother++] = i;
	}
	return NS_OK;
}

/* ---- attribution ---- */

static void add_list(split_python *p, py_list *l, int row, int64_t a, int64_t b)
{
	while (l->i < l->n && l->v[l->i].end <= a)
		l->i++;
	for (size_t k = l->i; k < l->n && l->v[k].start < b; k++) {
		int64_t lo = a > l->v[k].start ? a : l->v[k].start;
		int64_t hi = b < l->v[k].end ? b : l->v[k].end;
		if (hi <= lo)
			continue;
		p->acc[(size_t)row * p->nnames + l->v[k].name] += hi - lo;
		p->framed[row] += hi - lo;
	}
}

/* The sweep's hook: [a, b) of window w is GPU-idle time of host cause c. */
static void on_host_time(void *ctx, const ns_split_window *w, int64_t a, int64_t b, ns_cause c)
{
	split_python *p = ctx;
	int row;

	if (w->warmup && !p->all_count)
		return;
	for (row = 0; row < NHOST && host_causes[row] != c; row++)
		;
	if (row == NHOST)
		return;
	if (c != NS_CAUSE_HOST_THREADS) {
		if (p->main_thread < p->nthreads)
			add_list(p, &p->thread[p->main_thread], row, a, b);
		return;
	}
	for (size_t k = 0; k < p->nother; k++)
		add_list(p, &p->thread[p->other[k]], row, a, b);
}

/* The NS_SPLIT_PYTHON_TOP largest frames of one row, largest first (ties: the first interned). */
static void pick_top(const split_python *p, int row, ns_split_python_cause *out)
{
	const int64_t *acc = p->acc + (size_t)row * p->nnames;

	memset(out, 0, sizeof(*out));
	out->framed_ns = p->framed[row];
	for (size_t i = 0; i < p->nnames; i++) {
		size_t k = out->ntop;
		if (acc[i] <= 0)
			continue;
		if (k == NS_SPLIT_PYTHON_TOP && acc[i] <= out->top[k - 1].ns)
			continue;
		if (k == NS_SPLIT_PYTHON_TOP)
			k--;
		else
			out->ntop++;
		while (k > 0 && out->top[k - 1].ns < acc[i]) {
			out->top[k] = out->top[k - 1];
			k--;
		}
		out->top[k] = (ns_split_python_frame){(uint32_t)i, acc[i]};
	}
}

static bool every_window_counts(const ns_split_device *d, bool keep_warmup)
{
	split_view v = split_device_view(d);

	for (size_t i = 0; i < v.n; i++)
		if (!split_view_get(&v, i)->warmup)
			return keep_warmup;
	return true;
}

ns_status split_python_attribute(split_python *p, ns_trace_split *s, uint32_t main_thread, const gpu_rec *g,
                                 size_t n, const span_list host[SL_COUNT], ns_split_device *d,
                                 bool keep_warmup, ns_error *err)
{
	window_set ws = {.v = split_device_view(d), .hook = on_host_time, .hook_ctx = p};
	ns_status st;

	if (!p->flat && (st = prepare(p, s, main_thread, err)) != NS_OK)
		return st;
	memset(p->acc, 0, p->nnames * NHOST * sizeof(*p->acc));
	memset(p->framed, 0, sizeof(p->framed));
	for (size_t i = 0; i < p->nthreads; i++)
		p->thread[i].i = 0;
	p->all_count = every_window_counts(d, keep_warmup);
	split_sweep(s, g, n, host, &ws);
	for (int row = 0; row < NHOST; row++)
		pick_top(p, row, &d->python[host_causes[row]]);
	return NS_OK;
}

void split_python_result(split_python *p, ns_split_result *res)
{
	res->python_frames = p->kept;
	res->python_dropped = p->dropped;
	if (p->kept == 0)
		return; /* no names to show: the table stays with p */
	res->python_names = p->names;
	p->names = NULL;
}
