/* Phases of a training step: which pass the host is in, from the markers PyTorch and the usual wrappers
 * record, summed per window. The host timeline is used (when the host entered and left each pass): it is
 * what the markers measure, and it is where an optimizer that launches one small kernel per parameter spends
 * its time. Precedence where markers overlap: optimizer, then forward, then backward (the autograd engine's
 * spans are per node, so a forward marker is the firmer evidence). */
#include "trace/split/split_phases.h"

#include <stdlib.h>
#include <string.h>

#include "util/text.h"
#include "util/vec.h"

/* Distinct optimizer classes kept per process: a job has one or two (a wrapper such as an EMA around the
 * real one). */
#define OPTIMIZER_CLASSES 4
/* Processes whose optimizer markers and fused ops are kept apart: the step process is known only once the
 * whole trace is read, and a trace holds one process, or a few merged (a rank per process). Past this many,
 * later processes' markers are not counted (docs/trace.md, "The optimizer finding"). */
#define OPTIMIZER_PROCESSES 16

typedef struct {
	char name[NS_SPLIT_OPTIMIZER_NAME_MAX];
	int64_t ns;
} optimizer_class;

/* One process's optimizer classes and fused optimizer ops. */
typedef struct {
	int64_t pid;
	optimizer_class opt[OPTIMIZER_CLASSES];
	size_t nopt;
	long fused_ops;
} optimizer_process;

/* Per pass, each thread's marker spans (indexed like the split's thread table), merged as they arrive where
 * they overlap or touch: 16 bytes a span, nested markers none. */
struct split_phases {
	span_list *thread[NS_PASS_COUNT];
	size_t nthreads[NS_PASS_COUNT], cap[NS_PASS_COUNT];
	bool sorted[NS_PASS_COUNT]; /* the lists sorted and merged (split_phases_in) */
	optimizer_process proc[OPTIMIZER_PROCESSES];
	size_t nproc;
};

split_phases *split_phases_new(void)
{
	return calloc(1, sizeof(split_phases));
}

void split_phases_free(split_phases *p)
{
	if (p == NULL)
		return;
	for (int k = 0; k < NS_PASS_COUNT; k++) {
		for (size_t t = 0; t < p->nthreads[k]; t++)
			free(p->thread[k][t].v);
		free(p->thread[k]);
	}
	free(p);
}

typedef struct {
	const char *prefix;
	uint8_t pass;
} phase_marker;

/* The markers, by prefix. "## forward ##" and its kin are written by Lightning-style loops and the examples
 * of HTA's traces; Optimizer.step#<Class>.step and Optimizer.zero_grad#<Class>.zero_grad by
 * torch.optim.Optimizer's profiling hook; DistributedDataParallel.forward and
 * FullyShardedDataParallel.forward by the wrappers' record_function; the autograd engine runs each backward
 * node under autograd::engine::evaluate_function (on pt_autograd_N, or the calling thread). */
static const phase_marker markers[] = {
    {"## forward ##", 1 + NS_PASS_FORWARD},
    {"## backward ##", 1 + NS_PASS_BACKWARD},
    {"## optimizer ##", 1 + NS_PASS_OPTIMIZER},
    {"Optimizer.step#", 1 + NS_PASS_OPTIMIZER},
    {"Optimizer.zero_grad#", 1 + NS_PASS_OPTIMIZER},
    {"DistributedDataParallel.forward", 1 + NS_PASS_FORWARD},
    {"FullyShardedDataParallel.forward", 1 + NS_PASS_FORWARD},
    {"autograd::engine::evaluate_function", 1 + NS_PASS_BACKWARD},
};

uint8_t split_phase_of(ns_str name)
{
	if (name.len == 0)
		return 0;
	switch (name.ptr[0]) { /* the first bytes of the markers: most op names stop here */
	case '#':
	case 'O':
	case 'D':
	case 'F':
	case 'a':
		break;
	default:
		return 0;
	}
	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
		if (split_str_starts(name, markers[i].prefix))
			return markers[i].pass;
	return 0;
}

/* "Optimizer.step#SGD.step" -> "SGD": the text between '#' and the next '.'; none for other markers. */
static ns_str optimizer_class_of(ns_str name)
{
	size_t i = 0, j;

	if (!split_str_starts(name, "Optimizer."))
		return (ns_str){NULL, 0};
	while (i < name.len && name.ptr[i] != '#')
		i++;
	for (j = ++i; j < name.len && name.ptr[j] != '.'; j++)
		;
	return i < name.len ? (ns_str){name.ptr + i, j - i} : (ns_str){NULL, 0};
}

/* The entry of process pid, added when new; NULL when the table is full. */
static optimizer_process *process_entry(split_phases *p, int64_t pid)
{
	for (size_t i = 0; i < p->nproc; i++)
		if (p->proc[i].pid == pid)
			return &p->proc[i];
	if (p->nproc == OPTIMIZER_PROCESSES)
		return NULL;
	p->proc[p->nproc].pid = pid;
	return &p->proc[p->nproc++];
}

void split_phases_note_optimizer(split_phases *p, int64_t pid, ns_str name, int64_t dur_ns)
{
	ns_str c = optimizer_class_of(name);
	char clean[NS_SPLIT_OPTIMIZER_NAME_MAX];
	optimizer_process *e;
	size_t k;

	if (c.len == 0 || (e = process_entry(p, pid)) == NULL)
		return; /* "## optimizer ##" names no class */
	/* the trace's bytes, shown in the text and JSON reports: escaped once here (UTF-8, no controls) */
	ns_text_escape(c.ptr, c.len, clean, sizeof(clean));
	for (k = 0; k < e->nopt; k++)
		if (strcmp(e->opt[k].name, clean) == 0)
			break;
	if (k == e->nopt) {
		if (e->nopt == OPTIMIZER_CLASSES)
			return;
		memcpy(e->opt[k].name, clean, sizeof(clean));
		e->nopt++;
	}
	e->opt[k].ns += dur_ns > 0 ? dur_ns : 0;
}

/* The fused optimizers' ops (torch._fused_adam_ and its kin, as the profiler names them). */
static const char *const fused_ops[] = {"aten::_fused_adam", "aten::_fused_sgd", "aten::_fused_adagrad"};

void split_phases_note_op(split_phases *p, int64_t pid, ns_str name)
{
	optimizer_process *e;

	if (name.len < 13 || name.ptr[6] != '_' || name.ptr[7] != 'f') /* "aten::_f": rare */
		return;
	for (size_t i = 0; i < sizeof(fused_ops) / sizeof(fused_ops[0]); i++)
		if (split_str_starts(name, fused_ops[i])) {
			if ((e = process_entry(p, pid)) != NULL)
				e->fused_ops++;
			return;
		}
}

/* Into res, from the step process's markers only (another process's optimizer is not the one holding the
 * step thread): the class with the most time (the first seen of equal ones), how many classes it recorded,
 * and whether it ran a fused optimizer op. */
static void optimizer_result(split_phases *p, int64_t pid, ns_split_result *res)
{
	const optimizer_process *e = NULL;
	size_t best = 0;

	for (size_t i = 0; i < p->nproc && e == NULL; i++)
		if (p->proc[i].pid == pid)
			e = &p->proc[i];
	if (e == NULL)
		return;
	for (size_t k = 1; k < e->nopt; k++)
		if (e->opt[k].ns > e->opt[best].ns)
			best = k;
	if (e->nopt > 0)
		memcpy(res->optimizer, e->opt[best].name, sizeof(res->optimizer));
	res->optimizer_classes = e->nopt;
	res->optimizer_fused = e->fused_ops > 0;
}

ns_status split_phases_add(split_phases *p, int pass, uint32_t thread, int64_t start, int64_t end,
                           ns_error *err)
{
	if (end <= start)
		return NS_OK;
	if (thread >= p->nthreads[pass]) { /* threads are numbered from 0 as they appear */
		size_t n = (size_t)thread + 1;
		span_list *v = ns_grow(p->thread[pass], &p->cap[pass], n, sizeof(*v));
		if (v == NULL)
			return split_oom(err);
		memset(v + p->nthreads[pass], 0, (n - p->nthreads[pass]) * sizeof(*v));
		p->thread[pass] = v;
		p->nthreads[pass] = n;
	}
	return split_span_add(&p->thread[pass][thread], start, end, err);
}

bool split_phases_in(split_phases *p, int pass, uint32_t thread, int64_t t)
{
	span_list *l;
	size_t lo = 0, hi;

	if (thread >= p->nthreads[pass])
		return false;
	if (!p->sorted[pass]) {
		for (size_t i = 0; i < p->nthreads[pass]; i++)
			(void)split_spans_union(&p->thread[pass][i]);
		p->sorted[pass] = true;
	}
	l = &p->thread[pass][thread];
	hi = l->n;
	while (lo < hi) { /* the first span that ends after t */
		size_t mid = lo + (hi - lo) / 2;
		if (l->v[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->n && l->v[lo].start <= t;
}

/* The spans of one pass on the threads of process pid, as a sorted disjoint list. */
static ns_status process_union(const split_phases *p, int pass, const ns_trace_split *s, int64_t pid,
                               span_list *out, ns_error *err)
{
	for (size_t t = 0; t < p->nthreads[pass] && t < s->nthreads;
	     t++) { /* past s->nthreads: grown, empty */
		const span_list *l = &p->thread[pass][t];
		if (s->thread[t].pid != pid)
			continue;
		for (size_t i = 0; i < l->n; i++) {
			void *grown = ns_grow(out->v, &out->cap, out->n + 1, sizeof(*out->v));
			if (grown == NULL)
				return split_oom(err);
			out->v = grown;
			out->v[out->n++] = l->v[i];
		}
	}
	(void)split_spans_union(out);
	return NS_OK;
}

ns_status split_phases_optimizer_spans(const split_phases *p, const ns_trace_split *s, uint32_t main_thread,
                                       span_list *out, ns_error *err)
{
	if (main_thread >= s->nthreads)
		return NS_OK;
	return process_union(p, NS_PASS_OPTIMIZER, s, s->thread[main_thread].pid, out, err);
}

typedef struct {
	const span_list *l;
	size_t i;
} cursor;

static bool active(cursor *c, int64_t t)
{
	while (c->i < c->l->n && c->l->v[c->i].end <= t)
		c->i++;
	return c->i < c->l->n && c->l->v[c->i].start <= t;
}

static int64_t next_edge(const cursor *c, int64_t t)
{
	if (c->i >= c->l->n)
		return INT64_MAX;
	return c->l->v[c->i].start > t ? c->l->v[c->i].start : c->l->v[c->i].end;
}

/* Adds [a, b) of pass to the windows it overlaps; *first is the first window that can still overlap. */
static void add_piece(ns_split_pass_time *out, const split_view *w, size_t *first, int pass, int64_t a,
                      int64_t b)
{
	const ns_split_window *x;

	while (*first < w->n && split_view_end(w, *first) <= a)
		(*first)++;
	for (size_t k = *first; k < w->n && (x = split_view_get(w, k))->start_ns < b; k++) {
		int64_t lo = a > x->start_ns ? a : x->start_ns;
		int64_t hi = b < x->start_ns + x->dur_ns ? b : x->start_ns + x->dur_ns;
		if (hi > lo)
			out[k].ns[pass] += hi - lo;
	}
}

/* One pass in time order over the three lists, each piece going to the pass that takes precedence. */
static void sweep_passes(const span_list l[NS_PASS_COUNT], const split_view *w, ns_split_pass_time *out)
{
	static const int order[NS_PASS_COUNT] = {NS_PASS_OPTIMIZER, NS_PASS_FORWARD, NS_PASS_BACKWARD};
	cursor c[NS_PASS_COUNT];
	int64_t t = INT64_MAX;
	size_t first = 0;

	for (int k = 0; k < NS_PASS_COUNT; k++) {
		c[k] = (cursor){&l[k], 0};
		if (l[k].n > 0 && l[k].v[0].start < t)
			t = l[k].v[0].start;
	}
	while (t != INT64_MAX) {
		int64_t next = INT64_MAX;
		int pass = -1;
		for (int j = 0; j < NS_PASS_COUNT; j++) {
			int k = order[j];
			bool on = active(&c[k], t);
			int64_t e = next_edge(&c[k], t);
			if (on && pass < 0)
				pass = k;
			if (e < next)
				next = e;
		}
		if (pass >= 0 && next != INT64_MAX)
			add_piece(out, w, &first, pass, t, next);
		t = next;
	}
}

ns_status split_phases_windows(split_phases *p, const ns_trace_split *s, uint32_t main_thread,
                               const split_view *w, ns_split_result *res, ns_error *err)
{
	span_list l[NS_PASS_COUNT];
	bool any = false;
	ns_status st = NS_OK;

	if (main_thread >= s->nthreads)
		return NS_OK;
	optimizer_result(p, s->thread[main_thread].pid, res);
	if (w->n == 0)
		return NS_OK;
	memset(l, 0, sizeof(l));
	for (int k = 0; k < NS_PASS_COUNT && st == NS_OK; k++) {
		st = process_union(p, k, s, s->thread[main_thread].pid, &l[k], err);
		res->pass_marked[k] = l[k].n > 0;
		any = any || l[k].n > 0;
	}
	if (st == NS_OK && any) {
		res->passes = calloc(w->n, sizeof(*res->passes));
		if (res->passes == NULL)
			st = split_oom(err);
		else
			sweep_passes(l, w, res->passes);
	}
	for (int k = 0; k < NS_PASS_COUNT; k++)
		free(l[k].v);
	return st;
}

void split_phases_overall(const ns_split_result *res, ns_split_device *d, bool keep_warmup)
{
	bool all = true;

	memset(&d->passes, 0, sizeof(d->passes));
	if (res->passes == NULL)
		return;
	split_view v = split_device_view(d);
	for (size_t i = 0; i < v.n; i++)
		all = all && split_view_get(&v, i)->warmup;
	all = all || keep_warmup;
	for (size_t i = 0; i < v.n; i++)
		if (all || !split_view_get(&v, i)->warmup)
			for (int k = 0; k < NS_PASS_COUNT; k++)
				d->passes.ns[k] += res->passes[i].ns[k];
}
