#define _POSIX_C_SOURCE 200809L
#include "nextstep/trace_split.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* What a GPU record is; the first three equal kernel_class so a kernel's class is its kind. */
enum { GK_COMPUTE = KCLASS_COMPUTE, GK_MEMORY = KCLASS_MEMORY, GK_COMM = KCLASS_COMM, GK_TRANSFER, GK_COUNT };
/* Sweep counters: the GPU kinds, then the two host kinds. */
enum { SW_DATALOADER = GK_COUNT, SW_CPU, SW_COUNT };

typedef struct {
	int64_t start, end;
	int64_t corr, ext;
	uint32_t name_id;
	uint16_t dev;
	uint8_t kind;
} gpu_rec;

typedef struct {
	int64_t corr, ts, ext;
	uint32_t thread;
} launch_rec;

typedef struct {
	int64_t start, end;
} span;

typedef struct {
	span *v;
	size_t n, cap;
} span_list;

typedef struct {
	int64_t start, end, number;
	uint32_t thread;
} step_rec;

typedef struct {
	int64_t start, end;
	uint32_t thread;
} thread_span;

typedef enum { SK_NONE, SK_GPU, SK_STEP, SK_DATALOADER, SK_CPU, SK_RUNTIME, SK_SYNC } span_kind;

/* What one event (or B/E pair) means for the split, derived once from its category and name. */
typedef struct {
	span_kind kind;
	bool comm_op;  /* a CPU op that launches collectives */
	bool launches; /* a runtime call that can start GPU work */
	uint8_t gpu_kind;
	uint32_t name_id;
	int64_t device, corr, ext, step;
	int64_t start, end;
} span_info;

typedef struct {
	int64_t pid, tid;
	span_list cpu, dl; /* merged as they arrive; may still overlap when events come out of order */
	span_info *open;   /* B events waiting for their E */
	size_t nopen, capopen;
} host_thread;

struct trace_split {
	const kernel_rules *rules;
	kernel_names *names;
	gpu_rec *gpu;
	size_t ngpu, capgpu;
	launch_rec *launch;
	size_t nlaunch, caplaunch;
	step_rec *steps;
	size_t nsteps, capsteps;
	thread_span *comm_span;
	size_t ncomm_span, capcomm_span;
	int64_t *comm_ext;
	size_t ncomm_ext, capcomm_ext;
	host_thread *thread;
	size_t nthreads, capthreads;
	uint32_t *thread_slot; /* open addressing over (pid, tid): index + 1 */
	size_t nthread_slots;
	uint32_t last_thread; /* index + 1 of the last thread looked up */
	int64_t device_id[TRACE_MAX_DEVICES];
	size_t ndevices;
	long events;
	bool names_taken; /* finish() handed names to the result */
};

static ns_status oom(ns_error *err)
{
	return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
}

/* Grows *v (elements of size elem) so that one more fits. */
static bool reserve_one(void **v, size_t n, size_t *cap, size_t elem)
{
	void *grown;
	size_t want;

	if (n < *cap)
		return true;
	want = *cap ? *cap * 2 : 64;
	grown = realloc(*v, want * elem);
	if (grown == NULL)
		return false;
	*v = grown;
	*cap = want;
	return true;
}

#define PUSH(arr, n, cap, err)                                                                               \
	do {                                                                                                 \
		if (!reserve_one((void **)&(arr), (n), &(cap), sizeof(*(arr))))                              \
			return oom(err);                                                                     \
	} while (0)

trace_split *trace_split_new(const kernel_rules *rules)
{
	trace_split *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->rules = rules;
	s->names = kernel_names_new();
	s->nthread_slots = 64;
	s->thread_slot = calloc(s->nthread_slots, sizeof(*s->thread_slot));
	if (s->names == NULL || s->thread_slot == NULL) {
		trace_split_free(s);
		return NULL;
	}
	return s;
}

void trace_split_free(trace_split *s)
{
	if (s == NULL)
		return;
	if (!s->names_taken)
		kernel_names_free(s->names);
	free(s->gpu);
	free(s->launch);
	free(s->steps);
	free(s->comm_span);
	free(s->comm_ext);
	for (size_t i = 0; i < s->nthreads; i++) {
		free(s->thread[i].cpu.v);
		free(s->thread[i].dl.v);
		free(s->thread[i].open);
	}
	free(s->thread);
	free(s->thread_slot);
	free(s);
}

/* ---- host threads ---- */

static size_t thread_hash(int64_t pid, int64_t tid, size_t nslots)
{
	uint64_t h = (uint64_t)pid * 0x9e3779b97f4a7c15ull ^ (uint64_t)tid * 0xc2b2ae3d27d4eb4full;
	return (size_t)(h ^ (h >> 29)) & (nslots - 1);
}

static bool thread_rehash(trace_split *s)
{
	size_t nslots = s->nthread_slots * 2;
	uint32_t *slot = calloc(nslots, sizeof(*slot));

	if (slot == NULL)
		return false;
	for (size_t i = 0; i < s->nthreads; i++) {
		size_t h = thread_hash(s->thread[i].pid, s->thread[i].tid, nslots);
		while (slot[h] != 0)
			h = (h + 1) & (nslots - 1);
		slot[h] = (uint32_t)(i + 1);
	}
	free(s->thread_slot);
	s->thread_slot = slot;
	s->nthread_slots = nslots;
	return true;
}

static ns_status thread_find(trace_split *s, int64_t pid, int64_t tid, uint32_t *idx, ns_error *err)
{
	size_t h;
	host_thread *t;

	if (s->last_thread != 0) {
		t = &s->thread[s->last_thread - 1];
		if (t->pid == pid && t->tid == tid) {
			*idx = s->last_thread - 1;
			return NS_OK;
		}
	}
	for (h = thread_hash(pid, tid, s->nthread_slots); s->thread_slot[h] != 0;
	     h = (h + 1) & (s->nthread_slots - 1)) {
		t = &s->thread[s->thread_slot[h] - 1];
		if (t->pid == pid && t->tid == tid) {
			s->last_thread = s->thread_slot[h];
			*idx = s->thread_slot[h] - 1;
			return NS_OK;
		}
	}
	if (s->nthreads >= SPLIT_MAX_THREADS)
		return ns_error_set(err, NS_ERR_LIMIT, "more than %d host threads", SPLIT_MAX_THREADS);
	PUSH(s->thread, s->nthreads, s->capthreads, err);
	t = &s->thread[s->nthreads];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	s->thread_slot[h] = (uint32_t)(s->nthreads + 1);
	*idx = (uint32_t)s->nthreads++;
	s->last_thread = *idx + 1;
	if (s->nthreads * 2 > s->nthread_slots && !thread_rehash(s))
		return oom(err);
	return NS_OK;
}

/* Host spans of one kind are merged with the previous one when they touch: nested ops cost no memory. */
static ns_status span_add(span_list *l, int64_t a, int64_t b, ns_error *err)
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
	PUSH(l->v, l->n, l->cap, err);
	l->v[l->n].start = a;
	l->v[l->n].end = b;
	l->n++;
	return NS_OK;
}

/* ---- reading events ---- */

static bool str_is(ns_str s, const char *lit)
{
	size_t n = strlen(lit);
	return s.len == n && memcmp(s.ptr, lit, n) == 0;
}

static bool str_starts(ns_str s, const char *lit)
{
	size_t n = strlen(lit);
	return s.len >= n && memcmp(s.ptr, lit, n) == 0;
}

static bool str_contains(ns_str s, const char *lit)
{
	size_t n = strlen(lit);
	const char *p, *end;

	if (n == 0 || s.len < n) /* also keeps an absent name (NULL, 0) out of the pointer arithmetic */
		return false;
	p = s.ptr;
	end = s.ptr + s.len;
	while ((size_t)(end - p) >= n && (p = memchr(p, lit[0], (size_t)(end - p) - n + 1)) != NULL) {
		if (memcmp(p, lit, n) == 0)
			return true;
		p++;
	}
	return false;
}

static const char STEP_PREFIX[] = "ProfilerStep#";
static const char DATALOADER_PREFIX[] = "enumerate(DataLoader)#";

static int64_t step_number(ns_str name)
{
	int64_t n = 0;
	size_t i = sizeof(STEP_PREFIX) - 1;

	if (i >= name.len)
		return -1;
	for (; i < name.len && name.ptr[i] >= '0' && name.ptr[i] <= '9'; i++) {
		if (n > (INT64_MAX - 9) / 10)
			return -1;
		n = n * 10 + (name.ptr[i] - '0');
	}
	return n;
}

static bool is_comm_op(ns_str name)
{
	return str_starts(name, "nccl:") || str_starts(name, "c10d::") || str_is(name, "record_param_comms");
}

/* Runtime calls that start GPU work: kernel and graph launches, copies and sets (cudaLaunchKernel,
 * cuLaunchKernel, cudaGraphLaunch, hipExtLaunchKernel, cudaMemcpyAsync, hipMemsetAsync, ...). Only these are
 * kept for the correlation lookup, so event queries and attribute calls cost no memory. */
static bool is_launch(ns_str name)
{
	return str_contains(name, "Launch") || str_contains(name, "Memcpy") || str_contains(name, "Memset");
}

static bool is_host_category(trace_category c)
{
	return c == TCAT_CPU_OP || c == TCAT_USER_ANNOTATION || c == TCAT_RUNTIME || c == TCAT_PYTHON ||
	       c == TCAT_OTHER;
}

static ns_status derive_gpu(trace_split *s, const trace_event *ev, span_info *si, ns_error *err)
{
	ns_status st = kernel_names_intern(s->names, ev->name.ptr, ev->name.len, &si->name_id, err);

	if (st != NS_OK)
		return st;
	si->kind = SK_GPU;
	si->gpu_kind = ev->cat == TCAT_KERNEL
	                   ? (uint8_t)kernel_names_classify(s->names, si->name_id, s->rules)
	                   : (uint8_t)GK_TRANSFER;
	si->device = ev->device >= 0 ? ev->device : ev->pid;
	return NS_OK;
}

static ns_status derive(trace_split *s, const trace_event *ev, span_info *si, ns_error *err)
{
	memset(si, 0, sizeof(*si));
	si->kind = SK_NONE;
	si->corr = ev->correlation;
	si->ext = ev->external_id;
	switch (ev->cat) {
	case TCAT_KERNEL:
	case TCAT_MEMCPY:
	case TCAT_MEMSET:
		return derive_gpu(s, ev, si, err);
	case TCAT_CPU_OP:
	case TCAT_USER_ANNOTATION:
		if (str_starts(ev->name, STEP_PREFIX)) {
			si->kind = SK_STEP;
			si->step = step_number(ev->name);
			return NS_OK;
		}
		break;
	case TCAT_RUNTIME:
		si->kind = str_contains(ev->name, "Synchronize") ? SK_SYNC : SK_RUNTIME;
		si->launches = si->kind == SK_RUNTIME && ev->correlation >= 0 && is_launch(ev->name);
		return NS_OK;
	default:
		break;
	}
	if (is_host_category(ev->cat) && str_starts(ev->name, DATALOADER_PREFIX))
		si->kind = SK_DATALOADER;
	else if (ev->cat == TCAT_CPU_OP) {
		si->kind = SK_CPU;
		si->comm_op = is_comm_op(ev->name);
	}
	return NS_OK;
}

static ns_status device_index(trace_split *s, int64_t id, uint16_t *idx, ns_error *err)
{
	for (size_t i = 0; i < s->ndevices; i++) {
		if (s->device_id[i] == id) {
			*idx = (uint16_t)i;
			return NS_OK;
		}
	}
	if (s->ndevices >= TRACE_MAX_DEVICES)
		return ns_error_set(err, NS_ERR_LIMIT, "more than %d GPU devices", TRACE_MAX_DEVICES);
	s->device_id[s->ndevices] = id;
	*idx = (uint16_t)s->ndevices++;
	return NS_OK;
}

static ns_status add_gpu(trace_split *s, const span_info *si, ns_error *err)
{
	gpu_rec *g;
	uint16_t dev = 0;
	ns_status st = device_index(s, si->device, &dev, err);

	if (st != NS_OK)
		return st;
	PUSH(s->gpu, s->ngpu, s->capgpu, err);
	g = &s->gpu[s->ngpu++];
	g->start = si->start;
	g->end = si->end;
	g->corr = si->corr;
	g->ext = si->ext;
	g->name_id = si->name_id;
	g->dev = dev;
	g->kind = si->gpu_kind;
	return NS_OK;
}

static ns_status add_comm_op(trace_split *s, const span_info *si, uint32_t thread, ns_error *err)
{
	if (si->ext >= 0) {
		PUSH(s->comm_ext, s->ncomm_ext, s->capcomm_ext, err);
		s->comm_ext[s->ncomm_ext++] = si->ext;
	}
	PUSH(s->comm_span, s->ncomm_span, s->capcomm_span, err);
	s->comm_span[s->ncomm_span++] = (thread_span){si->start, si->end, thread};
	return NS_OK;
}

static ns_status add_launch(trace_split *s, const span_info *si, uint32_t thread, ns_error *err)
{
	PUSH(s->launch, s->nlaunch, s->caplaunch, err);
	s->launch[s->nlaunch++] = (launch_rec){si->corr, si->start, si->ext, thread};
	return NS_OK;
}

/* A complete span (an X event, or a B/E pair) of a host thread or a GPU. */
static ns_status add_span(trace_split *s, const span_info *si, uint32_t thread, ns_error *err)
{
	host_thread *t;
	ns_status st;

	if (si->kind == SK_GPU)
		return add_gpu(s, si, err); /* GPU events have no host thread (and there may be none yet) */
	t = &s->thread[thread];
	switch (si->kind) {
	case SK_STEP:
		PUSH(s->steps, s->nsteps, s->capsteps, err);
		s->steps[s->nsteps++] = (step_rec){si->start, si->end, si->step, thread};
		return NS_OK;
	case SK_DATALOADER:
		return span_add(&t->dl, si->start, si->end, err);
	case SK_CPU:
		st = span_add(&t->cpu, si->start, si->end, err);
		if (st == NS_OK && si->comm_op)
			st = add_comm_op(s, si, thread, err);
		return st;
	case SK_RUNTIME:
		st = span_add(&t->cpu, si->start, si->end, err);
		if (st == NS_OK && si->launches)
			st = add_launch(s, si, thread, err);
		return st;
	case SK_GPU:
	case SK_SYNC:
	case SK_NONE:
		break;
	}
	return NS_OK;
}

static int64_t add_sat(int64_t a, int64_t b)
{
	return b > 0 && a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* b - a for b >= a, saturating. */
static int64_t sub_sat(int64_t b, int64_t a)
{
	return a < 0 && b > INT64_MAX + a ? INT64_MAX : b - a;
}

static ns_status begin_span(trace_split *s, const trace_event *ev, ns_error *err)
{
	uint32_t thread = 0;
	host_thread *t;
	span_info si;
	ns_status st = thread_find(s, ev->pid, ev->tid, &thread, err);

	if (st == NS_OK)
		st = derive(s, ev, &si, err);
	if (st != NS_OK)
		return st;
	t = &s->thread[thread];
	if (t->nopen >= SPLIT_MAX_OPEN_SPANS)
		return ns_error_set(err, NS_ERR_LIMIT, "more than %d nested B events on one thread",
		                    SPLIT_MAX_OPEN_SPANS);
	PUSH(t->open, t->nopen, t->capopen, err);
	si.start = ev->ts_ns;
	t->open[t->nopen++] = si;
	return NS_OK;
}

/* An E without a B is ignored, like viewers do. */
static ns_status end_span(trace_split *s, const trace_event *ev, ns_error *err)
{
	uint32_t thread = 0;
	host_thread *t;
	span_info si;
	ns_status st = thread_find(s, ev->pid, ev->tid, &thread, err);

	if (st != NS_OK)
		return st;
	t = &s->thread[thread];
	if (t->nopen == 0)
		return NS_OK;
	si = t->open[--t->nopen];
	si.end = ev->ts_ns > si.start ? ev->ts_ns : si.start;
	return add_span(s, &si, thread, err);
}

static ns_status complete_span(trace_split *s, const trace_event *ev, ns_error *err)
{
	uint32_t thread = 0;
	span_info si;
	ns_status st = derive(s, ev, &si, err);

	if (st != NS_OK || si.kind == SK_NONE || si.kind == SK_SYNC)
		return st;
	si.start = ev->ts_ns;
	si.end = add_sat(ev->ts_ns, ev->has_dur && ev->dur_ns > 0 ? ev->dur_ns : 0);
	if (si.kind != SK_GPU && (st = thread_find(s, ev->pid, ev->tid, &thread, err)) != NS_OK)
		return st;
	return add_span(s, &si, thread, err);
}

ns_status trace_split_event(const trace_event *ev, void *ctx, ns_error *err)
{
	trace_split *s = ctx;

	s->events++;
	if (!ev->has_ts)
		return NS_OK;
	switch (ev->ph) {
	case 'X':
		return complete_span(s, ev, err);
	case 'B':
		return begin_span(s, ev, err);
	case 'E':
		return end_span(s, ev, err);
	default:
		return NS_OK;
	}
}

/* ---- finishing: windows, links, sweep ---- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

typedef int (*cmp_fn)(const void *, const void *);

/* Records sorted here are at most this big (the pivot is copied to the stack). */
#define SORT_ELEM_MAX 64

static void swap_elems(char *a, char *b, size_t size)
{
	char t[SORT_ELEM_MAX];

	memcpy(t, a, size);
	memcpy(a, b, size);
	memcpy(b, t, size);
}

static void sift_down(char *b, size_t root, size_t n, size_t size, cmp_fn cmp)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n && cmp(b + child * size, b + (child + 1) * size) < 0)
			child++;
		if (cmp(b + root * size, b + child * size) >= 0)
			return;
		swap_elems(b + root * size, b + child * size, size);
		root = child;
	}
}

static void heap_sort(char *b, size_t n, size_t size, cmp_fn cmp)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(b, i, n, size, cmp);
	for (size_t end = n; end-- > 1;) {
		swap_elems(b, b + end * size, size);
		sift_down(b, 0, end, size, cmp);
	}
}

static void insertion_sort(char *b, size_t n, size_t size, cmp_fn cmp)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp(b + (j - 1) * size, b + j * size) > 0; j--)
			swap_elems(b + (j - 1) * size, b + j * size, size);
}

/* Hoare partition around the median of the first, middle and last; returns the size of the left part. */
static size_t partition(char *b, size_t n, size_t size, cmp_fn cmp)
{
	char pivot[SORT_ELEM_MAX];
	char *lo = b, *mid = b + n / 2 * size, *hi = b + (n - 1) * size;
	size_t i = 0, j = n - 1;

	if (cmp(mid, lo) < 0)
		swap_elems(mid, lo, size);
	if (cmp(hi, mid) < 0)
		swap_elems(hi, mid, size);
	if (cmp(mid, lo) < 0)
		swap_elems(mid, lo, size);
	memcpy(pivot, mid, size);
	for (;;) {
		while (cmp(b + i * size, pivot) < 0)
			i++;
		while (cmp(pivot, b + j * size) < 0)
			j--;
		if (i >= j)
			return j + 1;
		swap_elems(b + i * size, b + j * size, size);
		i++;
		j--;
	}
}

/* Introsort: quicksort, heapsort past a depth limit, insertion sort for short runs. In place, because
 * glibc's qsort takes a second buffer as large as the table, which would double the peak memory. */
static void intro_sort(char *b, size_t n, size_t size, cmp_fn cmp, int depth)
{
	while (n > 16) {
		size_t left;
		if (depth-- == 0) {
			heap_sort(b, n, size, cmp);
			return;
		}
		left = partition(b, n, size, cmp);
		if (left < n - left) {
			intro_sort(b, left, size, cmp, depth);
			b += left * size;
			n -= left;
		} else {
			intro_sort(b + left * size, n - left, size, cmp, depth);
			n = left;
		}
	}
	insertion_sort(b, n, size, cmp);
}

/* bsearch must not see a NULL base, even for zero elements. Tables usually arrive in order (correlation
 * ids grow, steps follow each other), so a sorted one is only checked. */
static void sort(void *base, size_t n, size_t size, cmp_fn cmp)
{
	const char *b = base;
	size_t i = 1;
	int depth = 0;

	while (i < n && cmp(b + (i - 1) * size, b + i * size) <= 0)
		i++;
	if (i >= n)
		return;
	for (size_t k = n; k > 1; k >>= 1)
		depth += 2;
	if (size > SORT_ELEM_MAX)
		qsort(base, n, size, cmp);
	else
		intro_sort(base, n, size, cmp, depth);
}

static void *search(const void *key, const void *base, size_t n, size_t size,
                    int (*cmp)(const void *, const void *))
{
	return n > 0 ? bsearch(key, base, n, size, cmp) : NULL;
}

static int cmp_launch(const void *a, const void *b)
{
	const launch_rec *x = a, *y = b;
	return (x->corr > y->corr) - (x->corr < y->corr);
}

static int cmp_step(const void *a, const void *b)
{
	const step_rec *x = a, *y = b;
	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->end < y->end) - (x->end > y->end); /* longest first among equal starts */
}

static int cmp_thread_span(const void *a, const void *b)
{
	const thread_span *x = a, *y = b;
	if (x->thread != y->thread)
		return (x->thread > y->thread) - (x->thread < y->thread);
	return (x->start > y->start) - (x->start < y->start);
}

static int cmp_gpu(const void *a, const void *b)
{
	const gpu_rec *x = a, *y = b;
	if (x->dev != y->dev)
		return (x->dev > y->dev) - (x->dev < y->dev);
	return (x->start > y->start) - (x->start < y->start);
}

static int64_t spans_union_length(span_list *l);

static bool thread_with_most_steps(const trace_split *s, uint32_t *main_thread)
{
	size_t *count = calloc(s->nthreads, sizeof(*count)), best = 0;

	if (count == NULL)
		return false;
	for (size_t i = 0; i < s->nsteps; i++)
		count[s->steps[i].thread]++;
	for (size_t i = 0; i < s->nthreads; i++) {
		if (count[i] > best) {
			best = count[i];
			*main_thread = (uint32_t)i;
		}
	}
	free(count);
	return best > 0;
}

static bool thread_with_most_host_time(trace_split *s, uint32_t *main_thread)
{
	int64_t best = 0;

	for (size_t i = 0; i < s->nthreads; i++) {
		int64_t t = spans_union_length(&s->thread[i].cpu);
		if (t > best) {
			best = t;
			*main_thread = (uint32_t)i;
		}
	}
	return best > 0;
}

/* The thread that records the most ProfilerStep# spans; without any, the one with the most host-op time. */
static bool pick_main_thread(trace_split *s, uint32_t *main_thread)
{
	return (s->nsteps > 0 && thread_with_most_steps(s, main_thread)) ||
	       thread_with_most_host_time(s, main_thread);
}

static int cmp_span(const void *a, const void *b)
{
	const span *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* Sorts and merges in place; returns the covered length. */
static int64_t spans_union_length(span_list *l)
{
	size_t out = 0;
	int64_t total = 0;

	if (l->n == 0)
		return 0;
	sort(l->v, l->n, sizeof(*l->v), cmp_span);
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
		total = add_sat(total, sub_sat(l->v[i].end, l->v[i].start));
	return total;
}

/* Keeps the main thread's steps, in time order, one per start time. */
static size_t main_steps(trace_split *s, uint32_t main_thread)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nsteps; i++)
		if (s->steps[i].thread == main_thread)
			s->steps[n++] = s->steps[i];
	sort(s->steps, n, sizeof(*s->steps), cmp_step);
	s->nsteps = 0;
	for (size_t i = 0; i < n; i++)
		if (s->nsteps == 0 || s->steps[i].start != s->steps[s->nsteps - 1].start)
			s->steps[s->nsteps++] = s->steps[i];
	return s->nsteps;
}

/* hint: the index after the previous hit; GPU events mostly come in launch order. */
static const launch_rec *find_launch(const trace_split *s, int64_t corr, size_t *hint)
{
	launch_rec key = {.corr = corr};
	const launch_rec *l;

	if (corr < 0)
		return NULL;
	if (*hint < s->nlaunch && s->launch[*hint].corr == corr)
		l = &s->launch[*hint];
	else
		l = search(&key, s->launch, s->nlaunch, sizeof(key), cmp_launch);
	if (l != NULL)
		*hint = (size_t)(l - s->launch) + 1;
	return l;
}

static bool is_comm_ext(const trace_split *s, int64_t ext)
{
	return ext >= 0 && search(&ext, s->comm_ext, s->ncomm_ext, sizeof(ext), cmp_i64) != NULL;
}

/* Whether (thread, ts) lies inside a merged comm-op span. */
static bool inside_comm_span(const trace_split *s, uint32_t thread, int64_t ts)
{
	size_t lo = 0, hi = s->ncomm_span;

	while (lo < hi) { /* first span after (thread, ts) */
		size_t mid = lo + (hi - lo) / 2;
		const thread_span *m = &s->comm_span[mid];
		if (m->thread < thread || (m->thread == thread && m->start <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && s->comm_span[lo - 1].thread == thread && s->comm_span[lo - 1].end >= ts;
}

static void prepare_links(trace_split *s)
{
	size_t out = 0;

	sort(s->launch, s->nlaunch, sizeof(*s->launch), cmp_launch);
	sort(s->comm_ext, s->ncomm_ext, sizeof(*s->comm_ext), cmp_i64);
	sort(s->comm_span, s->ncomm_span, sizeof(*s->comm_span), cmp_thread_span);
	for (size_t i = 0; i < s->ncomm_span; i++) {
		thread_span *c = &s->comm_span[i];
		if (out > 0 && s->comm_span[out - 1].thread == c->thread &&
		    c->start <= s->comm_span[out - 1].end) {
			if (c->end > s->comm_span[out - 1].end)
				s->comm_span[out - 1].end = c->end;
		} else {
			s->comm_span[out++] = *c;
		}
	}
	s->ncomm_span = out;
}

/* A memory-class kernel launched by a collective's CPU op is communication. Returns the launch time of g
 * through *launch_ts (or -1 when its launch is unknown). */
static void link_kernel(const trace_split *s, gpu_rec *g, int64_t *launch_ts, size_t *hint)
{
	const launch_rec *l = find_launch(s, g->corr, hint);

	*launch_ts = l != NULL ? l->ts : -1;
	if (g->kind != GK_MEMORY)
		return;
	if (is_comm_ext(s, g->ext) ||
	    (l != NULL && (is_comm_ext(s, l->ext) || inside_comm_span(s, l->thread, l->ts))))
		g->kind = GK_COMM;
}

typedef struct {
	int64_t start, end;
} window_range;

/* Links every GPU record to its launch, and returns the end of the last step's window: the later of its own
 * end and the end of the GPU work launched inside it (or, with no known launch, starting inside it). */
static int64_t link_all(trace_split *s, const step_rec *last)
{
	int64_t end = last != NULL ? last->end : 0;
	size_t hint = 0;

	prepare_links(s);
	for (size_t i = 0; i < s->ngpu; i++) {
		gpu_rec *g = &s->gpu[i];
		int64_t lts;
		link_kernel(s, g, &lts, &hint);
		if (last == NULL)
			continue;
		int64_t at = lts >= 0 ? lts : g->start;
		if (at >= last->start && at <= last->end && g->end > end)
			end = g->end;
	}
	return end;
}

static split_window *make_windows(const trace_split *s, int64_t last_end, size_t *nwin)
{
	split_window *w = calloc(s->nsteps, sizeof(*w));

	if (w == NULL)
		return NULL;
	for (size_t i = 0; i < s->nsteps; i++) {
		int64_t end = i + 1 < s->nsteps ? s->steps[i + 1].start : last_end;
		w[i].step = s->steps[i].number;
		w[i].start_ns = s->steps[i].start;
		w[i].dur_ns = end - s->steps[i].start;
	}
	*nwin = s->nsteps;
	return w;
}

static split_window *single_window(int64_t start, int64_t end, size_t *nwin)
{
	split_window *w = calloc(1, sizeof(*w));

	if (w == NULL)
		return NULL;
	w->step = -1;
	w->start_ns = start;
	w->dur_ns = end - start;
	*nwin = 1;
	return w;
}

typedef struct {
	split_window *w;
	size_t n;
	size_t first; /* the first window that can still overlap the sweep position */
} window_set;

/* Adds [a, b) in state c to the windows it overlaps. */
static void attribute(window_set *ws, int64_t a, int64_t b, const int64_t c[SW_COUNT])
{
	bool memory = c[GK_MEMORY] > 0 || c[GK_TRANSFER] > 0;
	bool overlapped = c[GK_COMM] > 0 && (c[GK_COMPUTE] > 0 || memory);
	int bucket = c[GK_COMPUTE] > 0      ? REGIME_COMPUTE
	             : memory               ? REGIME_MEMORY
	             : c[GK_COMM] > 0       ? REGIME_COMM
	             : c[SW_DATALOADER] > 0 ? REGIME_DATALOADER
	             : c[SW_CPU] > 0        ? REGIME_OVERHEAD
	                                    : REGIME_IDLE;

	if (bucket == REGIME_IDLE)
		return;
	while (ws->first < ws->n && ws->w[ws->first].start_ns + ws->w[ws->first].dur_ns <= a)
		ws->first++;
	for (size_t k = ws->first; k < ws->n && ws->w[k].start_ns < b; k++) {
		split_window *w = &ws->w[k];
		int64_t lo = a > w->start_ns ? a : w->start_ns;
		int64_t hi = b < w->start_ns + w->dur_ns ? b : w->start_ns + w->dur_ns;
		if (hi <= lo)
			continue;
		w->bucket_ns[bucket] += hi - lo;
		if (bucket == REGIME_MEMORY) {
			if (c[GK_MEMORY] > 0)
				w->memory_kernels_ns += hi - lo;
			else
				w->memory_transfer_ns += hi - lo;
		}
		if (overlapped)
			w->comm_overlapped_ns += hi - lo;
	}
}

/* The host spans of one kind as a sorted, disjoint list (idempotent). */
static void host_union(span_list *l)
{
	(void)spans_union_length(l);
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

/* One pass in time order over the GPU records (sorted by start) and the host spans, without materialising
 * boundary points: a GPU kind is busy at t exactly when the latest end among its records started by t lies
 * beyond t. Every boundary is visited once, so the pass is linear after the sort. */
static void sweep(const gpu_rec *g, size_t n, const span_list *cpu, const span_list *dl, window_set *ws)
{
	int64_t busy_until[GK_COUNT], c[SW_COUNT], t = INT64_MAX;
	span_cursor hc = {cpu, 0}, hd = {dl, 0};
	size_t i = 0;

	for (int k = 0; k < GK_COUNT; k++)
		busy_until[k] = INT64_MIN;
	if (n > 0)
		t = g[0].start;
	if (cpu->n > 0 && cpu->v[0].start < t)
		t = cpu->v[0].start;
	if (dl->n > 0 && dl->v[0].start < t)
		t = dl->v[0].start;
	while (t != INT64_MAX) {
		int64_t next;
		for (; i < n && g[i].start <= t; i++)
			if (g[i].end > busy_until[g[i].kind])
				busy_until[g[i].kind] = g[i].end;
		c[SW_CPU] = cursor_active(&hc, t);
		c[SW_DATALOADER] = cursor_active(&hd, t);
		next = i < n ? g[i].start : INT64_MAX;
		for (int k = 0; k < GK_COUNT; k++) {
			c[k] = busy_until[k] > t;
			if (c[k] && busy_until[k] < next)
				next = busy_until[k];
		}
		if (cursor_next(&hc, t) < next)
			next = cursor_next(&hc, t);
		if (cursor_next(&hd, t) < next)
			next = cursor_next(&hd, t);
		if (next != INT64_MAX)
			attribute(ws, t, next, c);
		t = next;
	}
	for (size_t k = 0; k < ws->n; k++) {
		int64_t used = 0;
		for (int b = 0; b < REGIME_COUNT; b++)
			used += b == REGIME_IDLE ? 0 : ws->w[k].bucket_ns[b];
		ws->w[k].bucket_ns[REGIME_IDLE] = ws->w[k].dur_ns - used;
	}
}

/* Index of the window containing t, or n. */
static size_t window_of(const split_window *w, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w[mid].start_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || t >= w[lo - 1].start_ns + w[lo - 1].dur_ns)
		return n;
	return lo - 1;
}

typedef struct {
	int64_t ns;
	long count;
} name_time;

static int cmp_kernel_time(const void *a, const void *b)
{
	const split_kernel_time *x = a, *y = b;
	if (x->ns != y->ns)
		return (x->ns < y->ns) - (x->ns > y->ns);
	return (x->name_id > y->name_id) - (x->name_id < y->name_id);
}

/* Kernel counts per window and time per (name, class), clipped to the windows. */
static ns_status tally_kernels(const trace_split *s, const gpu_rec *g, size_t n, split_device *d,
                               ns_error *err)
{
	size_t nnames = kernel_names_count(s->names), used = 0;
	int64_t lo = d->steps[0].start_ns;
	int64_t hi = d->steps[d->nsteps - 1].start_ns + d->steps[d->nsteps - 1].dur_ns;
	name_time *t = calloc(nnames * KCLASS_COUNT + 1, sizeof(*t));

	if (t == NULL)
		return oom(err);
	for (size_t i = 0; i < n; i++) {
		int cls = g[i].kind == GK_TRANSFER ? KCLASS_MEMORY : g[i].kind;
		int64_t a = g[i].start > lo ? g[i].start : lo, b = g[i].end < hi ? g[i].end : hi;
		size_t w = window_of(d->steps, d->nsteps, g[i].start);
		if (g[i].kind != GK_TRANSFER && w < d->nsteps)
			d->steps[w].kernels++;
		if (b <= a && !(g[i].start >= lo && g[i].start < hi))
			continue;
		name_time *e = &t[(size_t)g[i].name_id * KCLASS_COUNT + (size_t)cls];
		used += e->count == 0;
		e->count++;
		e->ns = add_sat(e->ns, b > a ? b - a : 0);
		d->class_ns[cls] = add_sat(d->class_ns[cls], b > a ? b - a : 0);
	}
	d->kernel_time = calloc(used + 1, sizeof(*d->kernel_time));
	if (d->kernel_time == NULL) {
		free(t);
		return oom(err);
	}
	for (size_t i = 0; i < nnames * KCLASS_COUNT; i++) {
		if (t[i].count > 0)
			d->kernel_time[d->nkernel_time++] =
			    (split_kernel_time){(uint32_t)(i / KCLASS_COUNT),
			                        (kernel_class)(i % KCLASS_COUNT), t[i].ns, t[i].count};
	}
	sort(d->kernel_time, d->nkernel_time, sizeof(*d->kernel_time), cmp_kernel_time);
	free(t);
	return NS_OK;
}

static void sum_overall(split_device *d)
{
	split_window *o = &d->overall;

	memset(o, 0, sizeof(*o));
	o->step = -1;
	o->start_ns = d->nsteps > 0 ? d->steps[0].start_ns : 0;
	for (size_t i = 0; i < d->nsteps; i++) {
		const split_window *w = &d->steps[i];
		o->dur_ns += w->dur_ns;
		for (int b = 0; b < REGIME_COUNT; b++)
			o->bucket_ns[b] += w->bucket_ns[b];
		o->memory_kernels_ns += w->memory_kernels_ns;
		o->memory_transfer_ns += w->memory_transfer_ns;
		o->comm_overlapped_ns += w->comm_overlapped_ns;
		o->kernels += w->kernels;
	}
}

/* One device's split: its GPU records g[0..n) (sorted by start) plus the main thread's host spans. */
static ns_status split_one(const trace_split *s, const gpu_rec *g, size_t n, const host_thread *main_thread,
                           split_device *d, ns_error *err)
{
	static const span_list none = {NULL, 0, 0};
	window_set ws = {d->steps, d->nsteps, 0};
	ns_status st;

	sweep(g, n, main_thread != NULL ? &main_thread->cpu : &none,
	      main_thread != NULL ? &main_thread->dl : &none, &ws);
	st = tally_kernels(s, g, n, d, err);
	sum_overall(d);
	return st;
}

static void device_name(const trace_meta *meta, int64_t id, char name[TRACE_DEVICE_NAME_MAX])
{
	name[0] = '\0';
	for (size_t i = 0; meta != NULL && i < meta->ndevices; i++) {
		if (meta->devices[i].id == id) {
			memcpy(name, meta->devices[i].name, TRACE_DEVICE_NAME_MAX);
			name[TRACE_DEVICE_NAME_MAX - 1] = '\0';
		}
	}
}

/* The host-only window when there is no GPU work and no step: the main thread's first to last span. */
static bool host_range(const host_thread *t, window_range *r)
{
	bool any = false;
	const span_list *lists[2] = {&t->cpu, &t->dl};

	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < lists[k]->n; i++) {
			if (!any || lists[k]->v[i].start < r->start)
				r->start = lists[k]->v[i].start;
			if (!any || lists[k]->v[i].end > r->end)
				r->end = lists[k]->v[i].end;
			any = true;
		}
	}
	return any;
}

/* Window lengths, and every sum of times within them, must fit in int64 nanoseconds (292 years). */
static ns_status check_span(int64_t start, int64_t end, ns_error *err)
{
	if (start < 0 && end > INT64_MAX + start)
		return ns_error_set(err, NS_ERR_LIMIT, "the trace spans more than %" PRId64 " ns", INT64_MAX);
	return NS_OK;
}

static ns_status build_windows(trace_split *s, const host_thread *main_thread, split_window **w, size_t *nw,
                               ns_error *err)
{
	window_range r = {0, 0};
	ns_status st;

	if (s->nsteps > 0) {
		int64_t last_end = link_all(s, &s->steps[s->nsteps - 1]);
		if ((st = check_span(s->steps[0].start, last_end, err)) != NS_OK)
			return st;
		*w = make_windows(s, last_end, nw);
	} else {
		link_all(s, NULL);
		if (s->ngpu > 0) {
			r.start = s->gpu[0].start;
			r.end = s->gpu[0].end;
			for (size_t i = 1; i < s->ngpu; i++) {
				r.start = s->gpu[i].start < r.start ? s->gpu[i].start : r.start;
				r.end = s->gpu[i].end > r.end ? s->gpu[i].end : r.end;
			}
		} else if (main_thread == NULL || !host_range(main_thread, &r)) {
			*w = NULL;
			*nw = 0;
			return NS_OK;
		}
		if ((st = check_span(r.start, r.end, err)) != NS_OK)
			return st;
		*w = single_window(r.start, r.end, nw);
	}
	return *w == NULL ? oom(err) : NS_OK;
}

static ns_status split_devices(trace_split *s, const trace_meta *meta, host_thread *main_thread,
                               const split_window *w, size_t nw, split_result *res, ns_error *err)
{
	size_t ndev = s->ngpu > 0 ? s->ndevices : 1, first = 0;

	res->device = calloc(ndev, sizeof(*res->device));
	if (res->device == NULL)
		return oom(err);
	if (main_thread != NULL) {
		host_union(&main_thread->cpu);
		host_union(&main_thread->dl);
	}
	sort(s->gpu, s->ngpu, sizeof(*s->gpu), cmp_gpu);
	for (size_t d = 0; d < ndev; d++) {
		split_device *dev = &res->device[d];
		size_t last = first;
		ns_status st;
		while (last < s->ngpu && s->gpu[last].dev == d)
			last++;
		res->ndevices++;
		dev->id = s->ngpu > 0 ? s->device_id[d] : -1;
		device_name(meta, dev->id, dev->name);
		dev->steps = malloc(nw * sizeof(*dev->steps));
		if (dev->steps == NULL)
			return oom(err);
		memcpy(dev->steps, w, nw * sizeof(*w));
		dev->nsteps = nw;
		st = split_one(s, s->ngpu > 0 ? s->gpu + first : NULL, last - first, main_thread, dev, err);
		if (st != NS_OK)
			return st;
		first = last;
	}
	return NS_OK;
}

static int cmp_device(const void *a, const void *b)
{
	const split_device *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

ns_status trace_split_finish(trace_split *s, const trace_meta *meta, split_result *res, ns_error *err)
{
	uint32_t main_index = 0;
	host_thread *main_thread = NULL;
	split_window *w = NULL;
	size_t nw = 0;
	ns_status st;

	memset(res, 0, sizeof(*res));
	res->events = s->events;
	res->gpu_activity = s->ngpu > 0;
	if (meta != NULL && meta->has_rank) {
		res->has_rank = true;
		res->rank = meta->rank;
	}
	if (pick_main_thread(s, &main_index))
		main_thread = &s->thread[main_index];
	res->step_markers = main_thread != NULL ? main_steps(s, main_index) : 0;
	res->has_steps = res->step_markers > 0;
	st = build_windows(s, main_thread, &w, &nw, err);
	free(s->launch); /* the links are made; the biggest table goes before the sweep needs memory */
	s->launch = NULL;
	s->nlaunch = 0;
	if (st == NS_OK && nw > 0)
		st = split_devices(s, meta, main_thread, w, nw, res, err);
	free(w);
	res->names = s->names;
	s->names_taken = true;
	if (st == NS_OK)
		sort(res->device, res->ndevices, sizeof(*res->device), cmp_device);
	return st;
}

void split_result_free(split_result *res)
{
	if (res == NULL)
		return;
	for (size_t i = 0; i < res->ndevices; i++) {
		free(res->device[i].steps);
		free(res->device[i].kernel_time);
	}
	free(res->device);
	kernel_names_free(res->names);
	memset(res, 0, sizeof(*res));
}

void split_window_profile(const split_window *w, ns_profile *p)
{
	profile_init(p);
	for (int b = 0; b < REGIME_COUNT; b++) {
		p->share[b] = w->dur_ns > 0 ? (double)w->bucket_ns[b] / (double)w->dur_ns : 0.0;
		p->present[b] = true;
	}
}
