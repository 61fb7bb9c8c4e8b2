#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/split/split_private.h"
#include "util/satmath.h"
#include "util/sort.h"
#include "util/vec.h"

ns_status split_nest_flatten(const void *spans, size_t n, size_t size, split_nest_emit_fn emit, void *ctx,
                             ns_error *err)
{
	split_nest_span *stack = NULL;
	size_t sp = 0, cap = 0;
	int64_t cur = 0;
	ns_status st = NS_OK;

	for (size_t i = 0; i < n && st == NS_OK; i++) {
		split_nest_span c;
		memcpy(&c, (const char *)spans + i * size, sizeof(c));
		while (sp > 0 && stack[sp - 1].end <= c.start && st == NS_OK) {
			st = emit(ctx, cur, stack[sp - 1].end, stack[sp - 1].name, err);
			cur = stack[--sp].end;
		}
		if (st == NS_OK && sp > 0) {
			st = emit(ctx, cur, c.start, stack[sp - 1].name, err);
			c.end = c.end < stack[sp - 1].end ? c.end : stack[sp - 1].end;
		}
		if (st != NS_OK)
			break;
		cur = c.start;
		split_nest_span *grown = ns_grow(stack, &cap, sp + 1, sizeof(*stack));
		if (grown == NULL) {
			st = split_oom(err);
			break;
		}
		stack = grown;
		stack[sp++] = c;
	}
	while (sp > 0 && st == NS_OK) {
		st = emit(ctx, cur, stack[sp - 1].end, stack[sp - 1].name, err);
		cur = stack[--sp].end;
	}
	free(stack);
	return st;
}

ns_status split_oom(ns_error *err)
{
	return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
}

/* ---- the thread table ---- */

ns_status split_thread_find(ns_trace_split *s, int64_t pid, int64_t tid, uint32_t *idx, ns_error *err)
{
	host_thread *t;
	uint64_t hash;
	size_t slot;
	uint32_t id;

	if (s->last_thread != 0) {
		t = &s->thread[s->last_thread - 1];
		if (t->pid == pid && t->tid == tid) {
			*idx = s->last_thread - 1;
			return NS_OK;
		}
	}
	hash = ns_hash_i64_pair(pid, tid);
	slot = ns_hindex_home(&s->thread_index, hash);
	while (ns_hindex_probe(&s->thread_index, hash, &slot, &id)) {
		t = &s->thread[id];
		if (t->pid == pid && t->tid == tid) {
			s->last_thread = id + 1;
			*idx = id;
			return NS_OK;
		}
	}
	if (s->nthreads >= NS_SPLIT_MAX_THREADS)
		return ns_error_set(err, NS_ERR_LIMIT, "more than %d host threads", NS_SPLIT_MAX_THREADS);
	void *grown = ns_grow(s->thread, &s->capthreads, s->nthreads + 1, sizeof(*s->thread));
	if (grown == NULL)
		return split_oom(err);
	s->thread = grown;
	t = &s->thread[s->nthreads];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	if (!ns_hindex_add(&s->thread_index, hash, (uint32_t)s->nthreads))
		return split_oom(err);
	*idx = (uint32_t)s->nthreads++;
	s->last_thread = *idx + 1;
	return NS_OK;
}

/* ---- span lists ---- */

#define SPAN_MERGE_MIN 1024 /* spans (16 KiB) before a full list is merged rather than only grown */

ns_status split_span_add(span_list *l, int64_t a, int64_t b, ns_error *err)
{
	if (b <= a)
		return NS_OK;
	if (l->n > 0) {
		span *last = &l->v[l->n - 1];
		if (a <= last->end && b >= last->start) {
			if (a < last->start)
				last->start = a;
			if (b > last->end)
				last->end = b;
			return NS_OK;
		}
	}
	/* Full: spans that came out of order (a runtime call inside an op whose range came first) merge
	 * before the list grows, so a thread's list holds its busy time, not a span per event. It grows only
	 * when merging freed less than half, which keeps the merges O(n log n) in all. */
	bool merged = l->n == l->cap && l->n >= SPAN_MERGE_MIN;
	if (merged)
		(void)split_spans_union(l);
	if (l->n == l->cap || (merged && l->n > l->cap / 2)) {
		void *grown = ns_grow(l->v, &l->cap, l->cap + 1, sizeof(*l->v));
		if (grown == NULL)
			return split_oom(err);
		l->v = grown;
	}
	l->v[l->n].start = a;
	l->v[l->n].end = b;
	l->n++;
	return NS_OK;
}

static int cmp_span(const void *a, const void *b)
{
	const span *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

int64_t split_spans_union(span_list *l)
{
	size_t out = 0;
	int64_t total = 0;

	if (l->n == 0)
		return 0;
	ns_sort(l->v, l->n, sizeof(*l->v), cmp_span);
	for (size_t i = 1; i < l->n; i++) {
		if (l->v[i].start <= l->v[out].end) {
			if (l->v[i].end > l->v[out].end)
				l->v[out].end = l->v[i].end;
		} else {
			l->v[++out] = l->v[i];
		}
	}
	l->n = out + 1;
	for (size_t i = 0; i < l->n; i++)
		total = ns_sat_add_i64(total, ns_sat_sub_i64(l->v[i].end, l->v[i].start));
	return total;
}

/* Appends src to dst (no merge; the caller unions dst afterwards). */
static ns_status span_append(span_list *dst, const span_list *src, ns_error *err)
{
	for (size_t i = 0; i < src->n; i++) {
		void *grown = ns_grow(dst->v, &dst->cap, dst->n + 1, sizeof(*dst->v));
		if (grown == NULL)
			return split_oom(err);
		dst->v = grown;
		dst->v[dst->n++] = src->v[i];
	}
	return NS_OK;
}

void split_lists_free(span_list l[SL_COUNT])
{
	for (int k = 0; k < SL_COUNT; k++) {
		free(l[k].v);
		memset(&l[k], 0, sizeof(l[k]));
	}
}

/* The sweep's list for a thread's span kind: host work of the step thread is "launch", of any other thread of
 * the process "other"; every other kind is process-wide. */
static int sweep_list(int hk, bool main_thread)
{
	static const int map[HK_COUNT] = {[HK_CPU] = SL_LAUNCH, [HK_DL] = SL_DL,     [HK_BLOCK] = SL_BLOCK,
	                                  [HK_SYNC] = SL_SYNC,  [HK_INIT] = SL_INIT, [HK_COMM] = SL_COMM};
	return hk == HK_CPU && !main_thread ? SL_OTHER : map[hk];
}

ns_status split_process_lists(ns_trace_split *s, uint32_t main_thread, span_list out[SL_COUNT],
                              size_t *nthreads, ns_error *err)
{
	int64_t pid = s->thread[main_thread].pid;

	memset(out, 0, SL_COUNT * sizeof(*out));
	*nthreads = 0;
	for (size_t i = 0; i < s->nthreads; i++) {
		host_thread *t = &s->thread[i];
		bool any = false;
		if (t->pid != pid)
			continue;
		for (int k = 0; k < HK_COUNT; k++) {
			ns_status st = span_append(&out[sweep_list(k, i == main_thread)], &t->list[k], err);
			if (st != NS_OK)
				return st;
			any = any || t->list[k].n > 0;
		}
		*nthreads += any;
	}
	for (int k = 0; k < SL_COUNT; k++)
		(void)split_spans_union(&out[k]);
	return NS_OK;
}

/* ---- the main thread and its steps ---- */

ns_status split_thread_with_most_steps(const ns_trace_split *s, uint32_t *main_thread, bool *found,
                                       ns_error *err)
{
	size_t *count = calloc(s->nthreads + 1, sizeof(*count)), best = 0;

	*found = false;
	if (count == NULL)
		return split_oom(err);
	for (size_t i = 0; i < s->nsteps; i++)
		count[s->steps[i].thread]++;
	for (size_t i = 0; i < s->nthreads; i++) {
		if (count[i] > best) {
			best = count[i];
			*main_thread = (uint32_t)i;
		}
	}
	free(count);
	*found = best > 0;
	return NS_OK;
}

static bool thread_with_most_host_time(ns_trace_split *s, uint32_t *main_thread)
{
	int64_t best = 0;

	for (size_t i = 0; i < s->nthreads; i++) {
		int64_t t = split_spans_union(&s->thread[i].list[HK_CPU]);
		t = ns_sat_add_i64(t, split_spans_union(&s->thread[i].list[HK_COMM]));
		if (t > best) {
			best = t;
			*main_thread = (uint32_t)i;
		}
	}
	return best > 0;
}

ns_status split_pick_main_thread(ns_trace_split *s, uint32_t *main_thread, bool *found, ns_error *err)
{
	*found = false;
	/* steps on the GPU timeline are not a host thread's */
	if (s->nsteps > 0 && !split_steps_on_device(s)) {
		ns_status st = split_thread_with_most_steps(s, main_thread, found, err);
		if (st != NS_OK)
			return st;
	}
	if (!*found)
		*found = thread_with_most_host_time(s, main_thread);
	return NS_OK;
}

static int cmp_step(const void *a, const void *b)
{
	const step_rec *x = a, *y = b;
	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->end < y->end) - (x->end > y->end); /* longest first among equal starts */
}

/* Steps sharing a start time are one step recorded twice (a nested or repeated marker): the longest is kept
 * as the window and the others are counted, so the report can say so instead of merging them silently. */
size_t split_main_steps(ns_trace_split *s, uint32_t main_thread, size_t *dups)
{
	size_t n = 0;

	*dups = 0;
	for (size_t i = 0; i < s->nsteps; i++)
		if (s->steps[i].thread == main_thread)
			s->steps[n++] = s->steps[i];
	ns_sort(s->steps, n, sizeof(*s->steps), cmp_step);
	s->nsteps = 0;
	for (size_t i = 0; i < n; i++) {
		if (s->nsteps == 0 || s->steps[i].start != s->steps[s->nsteps - 1].start)
			s->steps[s->nsteps++] = s->steps[i];
		else
			(*dups)++;
	}
	return s->nsteps;
}
