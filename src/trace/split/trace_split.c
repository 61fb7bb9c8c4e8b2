/* The split's last stage: windows (steps, or the whole trace), one sweep per device, the result. The stages
 * before it are in split_*.c (split_private.h lists them). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace/split/split_hostops.h"
#include "trace/split/split_memory.h"
#include "trace/split/split_phases.h"
#include "trace/split/split_private.h"
#include "trace/split/split_python.h"

/* A step is warm-up when set-up calls hold at least this share of it... */
#define WARMUP_INIT_SHARE 0.5
/* ...or when it is this many times longer than the median step and holds any set-up call. */
#define WARMUP_SLOW_FACTOR 2
/* The slow-step rule needs this many steps for a median that means something. */
#define WARMUP_MIN_STEPS 3

void ns_trace_split_keep_warmup(ns_trace_split *s, bool keep)
{
	s->keep_warmup = keep;
}

typedef struct {
	int64_t start, end;
} window_range;

/* A device keeps one window per step: its size is the split's memory per step (trace_split.h). */
_Static_assert(sizeof(long) != 8 || sizeof(ns_split_window) <= 224, "split_window grew past 224 bytes");

/* Steps read back between two gives of the steps' memory in make_windows. */
#define WINDOW_CHUNK 4096

/* The steps' table shrunk to its first n records: realloc gives the tail's pages back (glibc unmaps them from
 * a table this large); where it cannot move, the table simply stays. */
static void shrink_steps(ns_trace_split *s, size_t n)
{
	step_rec *v = realloc(s->steps, n * sizeof(*v));

	if (v != NULL) {
		s->steps = v;
		s->capsteps = n;
	}
	s->nsteps = n;
}

bool ns_trace_split_spill_dir(ns_trace_split *s, const char *dir)
{
	char *copy = dir != NULL ? strdup(dir) : NULL;

	if (dir != NULL && copy == NULL)
		return false;
	free(s->spill_dir);
	s->spill_dir = copy;
	return true;
}

/* The windows replace the steps, which nothing reads afterwards: built from the last step down, the steps'
 * table is given back a chunk at a time as it is read, so the two are never whole together (a million steps:
 * 40 MB less at the split's peak). */
static ns_status make_windows(ns_trace_split *s, int64_t last_end, split_view *v, ns_error *err)
{
	size_t n = s->nsteps;
	bool named = s->ns_step_source == NS_STEP_SOURCE_SERVER ||
	             s->ns_step_source == NS_STEP_SOURCE_MARKER || s->ns_step_source == NS_STEP_SOURCE_PERIOD;
	int64_t next_start = last_end;
	ns_status st = split_store_add(v->st, n, &v->first, err);

	if (st != NS_OK)
		return st;
	v->n = n;
	for (size_t i = n; i-- > 0;) {
		ns_split_window *w = split_view_at(v, i);
		w->step = s->steps[i].number;
		w->start_ns = s->steps[i].start;
		w->dur_ns = next_start - s->steps[i].start;
		w->phase = s->steps[i].phase;
		w->marker = named ? s->steps[i].name_id : UINT32_MAX;
		next_start = w->start_ns;
		if (i > 0 && i % WINDOW_CHUNK == 0)
			shrink_steps(s, i);
	}
	free(s->steps);
	s->steps = NULL;
	s->nsteps = s->capsteps = 0;
	return NS_OK;
}

static ns_status single_window(int64_t start, int64_t end, split_view *v, ns_error *err)
{
	ns_split_window *w;
	ns_status st = split_store_add(v->st, 1, &v->first, err);

	if (st != NS_OK)
		return st;
	v->n = 1;
	w = split_view_at(v, 0);
	w->step = -1;
	w->marker = UINT32_MAX;
	w->start_ns = start;
	w->dur_ns = end - start;
	return NS_OK;
}

static void device_name(const ns_trace_meta *meta, int64_t id, char name[NS_TRACE_DEVICE_NAME_MAX])
{
	name[0] = '\0';
	for (size_t i = 0; meta != NULL && i < meta->ndevices; i++) {
		if (meta->devices[i].id == id) {
			memcpy(name, meta->devices[i].name, NS_TRACE_DEVICE_NAME_MAX);
			name[NS_TRACE_DEVICE_NAME_MAX - 1] = '\0';
		}
	}
}

/* The host-only window (no GPU work, no step): the process's first to last host span. */
static bool host_range(const span_list host[SL_COUNT], window_range *r)
{
	bool any = false;

	for (int k = 0; k < SL_COUNT; k++) {
		for (size_t i = 0; i < host[k].n; i++) {
			if (!any || host[k].v[i].start < r->start)
				r->start = host[k].v[i].start;
			if (!any || host[k].v[i].end > r->end)
				r->end = host[k].v[i].end;
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

static void gpu_range(const ns_trace_split *s, window_range *r)
{
	r->start = split_gpu_start(s, &s->gpu[0]);
	r->end = split_gpu_end(s, &s->gpu[0]);
	for (size_t i = 1; i < s->ngpu; i++) {
		int64_t end = split_gpu_end(s, &s->gpu[i]);
		r->start =
		    split_gpu_start(s, &s->gpu[i]) < r->start ? split_gpu_start(s, &s->gpu[i]) : r->start;
		r->end = end > r->end ? end : r->end;
	}
}

/* (device, start): the low 56 bits of start_bits, but for the starts out of a record's reach. */
static int cmp_gpu(const void *a, const void *b)
{
	uint64_t x = ((const gpu_rec *)a)->start_bits & GPU_SORT_MASK;
	uint64_t y = ((const gpu_rec *)b)->start_bits & GPU_SORT_MASK;
	return (x > y) - (x < y);
}

typedef struct {
	int64_t start;
	gpu_rec g;
} far_gpu;

static int cmp_far_gpu(const void *a, const void *b)
{
	const far_gpu *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* Records of one device whose starts are out of reach share one key (0 or GPU_START_MASK) and sort as a
 * run: each run is ordered by its whole starts. Without memory for a run, it stays as the sort left it. */
static void sort_far_runs(ns_trace_split *s)
{
	for (size_t i = 0; i < s->ngpu;) {
		uint64_t key = s->gpu[i].start_bits & GPU_SORT_MASK, at = key & GPU_START_MASK;
		size_t j = i + 1;
		far_gpu *run;
		while (j < s->ngpu && (s->gpu[j].start_bits & GPU_SORT_MASK) == key)
			j++;
		if ((at != 0 && at != GPU_START_MASK) || j - i < 2 ||
		    (run = malloc((j - i) * sizeof(*run))) == NULL) {
			i = j;
			continue;
		}
		for (size_t k = i; k < j; k++)
			run[k - i] = (far_gpu){split_gpu_start(s, &s->gpu[k]), s->gpu[k]};
		ns_sort(run, j - i, sizeof(*run), cmp_far_gpu);
		for (size_t k = i; k < j; k++)
			s->gpu[k] = run[k - i].g;
		free(run);
		i = j;
	}
}

void split_gpu_sort(ns_trace_split *s)
{
	ns_sort(s->gpu, s->ngpu, sizeof(*s->gpu), cmp_gpu);
	if (s->nfar_gpu > 0)
		sort_far_runs(s);
}

/* Steps make the windows, each holding the GPU work launched in it (split_steps.c); without any marker, a
 * repeating kernel sequence may; without either, one window over the GPU work (or, host-only, the host's
 * spans). The windows go to v (v->st set by the caller; v->n stays 0 without any). */
static ns_status build_windows(ns_trace_split *s, const span_list host[SL_COUNT], ns_split_result *res,
                               split_view *v, ns_error *err)
{
	window_range r = {0, 0};
	ns_status st;

	v->first = v->n = 0;
	if (s->nsteps == 0 && s->ngpu > 0) {
		split_gpu_sort(s);
		if ((st = split_steps_period(s, res, err)) != NS_OK)
			return st;
	}
	if (s->nsteps > 0) {
		step_hold h;
		int64_t last_end;
		if ((st = split_steps_hold_begin(s, &h, err)) != NS_OK)
			return st;
		split_link_all(s, &h);
		last_end = split_steps_hold_end(s, &h);
		if ((st = check_span(s->steps[0].start, last_end, err)) != NS_OK)
			return st;
		return make_windows(s, last_end, v, err);
	}
	split_link_all(s, NULL);
	if (s->ngpu > 0)
		gpu_range(s, &r);
	else if (!host_range(host, &r))
		return NS_OK;
	if ((st = check_span(r.start, r.end, err)) != NS_OK)
		return st;
	return single_window(r.start, r.end, v, err);
}

static int cmp_i64_dur(const void *a, const void *b)
{
	return ns_cmp_i64(a, b);
}

static int64_t device_work(const ns_split_window *w)
{
	return w->bucket_ns[NS_REGIME_COMPUTE] + w->bucket_ns[NS_REGIME_MEMORY] +
	       w->bucket_ns[NS_REGIME_COMM];
}

/* When the warm-up windows hold all of the device's work and the others none (a first iteration with its
 * loads, then a step cut to a sliver), there is no steady state to route: every window is warm-up, so the
 * capture is reported as start-up (docs/trace.md, "Warm-up"), not as a steady state that ran nothing. */
static void warmup_holds_all_work(split_view *v)
{
	bool warm_work = false;

	for (size_t i = 0; i < v->n; i++) {
		const ns_split_window *w = split_view_get(v, i);
		if (!w->warmup && device_work(w) > 0)
			return;
		warm_work = warm_work || (w->warmup && device_work(w) > 0);
	}
	for (size_t i = 0; i < v->n && warm_work; i++)
		if (!split_view_get(v, i)->warmup)
			split_view_at(v, i)->warmup = true;
}

/* Marks the warm-up windows of one device (its causes decide): mostly set-up calls, or far slower than the
 * median step with set-up calls in it. A step-less window is judged by the first rule alone. The median
 * needs only the lengths (8 bytes a step, for the time of the sort). Both rules need set-up time, so without
 * any there is no second pass, and a window is written only when it is warm-up (windows start as not). */
static ns_status mark_warmup(ns_split_device *d, ns_error *err)
{
	split_view v = split_device_view(d);
	int64_t median = 0, *dur = NULL;
	bool any_init = false;

	if (v.n >= WARMUP_MIN_STEPS && (dur = malloc(v.n * sizeof(*dur))) == NULL)
		return split_oom(err);
	for (size_t i = 0; i < v.n; i++) {
		const ns_split_window *w = split_view_get(&v, i);
		any_init = any_init || w->cause_ns[NS_CAUSE_INIT] > 0;
		if (dur != NULL)
			dur[i] = w->dur_ns;
	}
	if (dur != NULL && any_init) {
		ns_sort(dur, v.n, sizeof(*dur), cmp_i64_dur); /* in place: qsort copies n more */
		median = dur[v.n / 2];
	}
	free(dur);
	for (size_t i = 0; i < v.n && any_init; i++) {
		const ns_split_window *w = split_view_get(&v, i);
		int64_t init = w->cause_ns[NS_CAUSE_INIT];
		bool mostly_init = (double)init >= WARMUP_INIT_SHARE * (double)w->dur_ns && init > 0;
		bool slow = median > 0 && init > 0 && w->dur_ns / WARMUP_SLOW_FACTOR > median;
		if (mostly_init || slow)
			split_view_at(&v, i)->warmup = true;
	}
	if (any_init)
		warmup_holds_all_work(&v);
	return NS_OK;
}

/* One device's split: its GPU records g[0..n) (sorted by start) plus the process's host lists. */
static ns_status split_one(ns_trace_split *s, const gpu_rec *g, size_t n, const span_list host[SL_COUNT],
                           ns_split_device *d, ns_error *err)
{
	span_list exposed = {NULL, 0, 0};
	window_set ws = {split_device_view(d), 0, &exposed, false, NULL, NULL, NULL};
	ns_status st;

	/* 8 bytes a step while the device is split, only when the optimizer's step is marked */
	if (host[SL_OPT].n > 0 && ws.v.n > 0 && (ws.opt_launch = calloc(ws.v.n, sizeof(int64_t))) == NULL)
		return split_oom(err);
	split_sweep(s, g, n, host, &ws);
	st = ws.exposed_oom ? split_oom(err) : split_coll_build(s, g, n, &exposed, d, err);
	free(exposed.v);
	if (st == NS_OK)
		st = split_tally_kernels(s, g, n, d, err);
	if (st == NS_OK)
		st = mark_warmup(d, err);
	if (st == NS_OK && s->want_timeline)
		st = split_timeline_build(s, g, n, d, err);
	if (st == NS_OK)
		st = split_quality_device(s, g, n, d, err);
	split_sum_overall(d, s->keep_warmup, ws.opt_launch);
	free(ws.opt_launch);
	if (st == NS_OK && split_python_any(s->py))
		st = split_python_attribute(s->py, s, s->main_thread, g, n, host, d, s->keep_warmup, err);
	if (st == NS_OK && split_hostops_any(s->hostops))
		st = split_hostops_attribute(s->hostops, s, g, n, host, d, s->keep_warmup, err);
	split_steps_sum_phases(d, s->keep_warmup);
	return st;
}

/* Per window of dev, the time of the host stalls (s->stall_spans, sorted and merged) inside it. Windows
 * follow each other in time, so one pass over both lists. */
static ns_status step_stalls(const ns_trace_split *s, ns_split_device *dev, ns_error *err)
{
	const span_list *l = &s->stall_spans;
	size_t k = 0;

	if (l->n == 0 || dev->nsteps == 0)
		return NS_OK;
	if ((dev->step_stall_ns = calloc(dev->nsteps, sizeof(*dev->step_stall_ns))) == NULL)
		return split_oom(err);
	for (size_t i = 0; i < dev->nsteps; i++) {
		ns_split_window w = ns_split_device_step(dev, i);
		int64_t a = w.start_ns, b = ns_sat_add_i64(w.start_ns, w.dur_ns), held = 0;
		while (k < l->n && l->v[k].end <= a)
			k++;
		for (size_t j = k; j < l->n && l->v[j].start < b; j++)
			held += (l->v[j].end < b ? l->v[j].end : b) - (l->v[j].start > a ? l->v[j].start : a);
		dev->step_stall_ns[i] = held;
	}
	return NS_OK;
}

/* Each device gets its own copy of the windows of tmpl, except the last, which takes tmpl's own: one copy
 * fewer of the largest per-step data (200 MB at a million steps). */
static ns_status split_devices(ns_trace_split *s, const ns_trace_meta *meta, const span_list host[SL_COUNT],
                               const split_view *tmpl, ns_split_result *res, ns_error *err)
{
	size_t ndev = s->ngpu > 0 ? s->ndevices : 1, first = 0;

	res->device = calloc(ndev, sizeof(*res->device));
	if (res->device == NULL)
		return split_oom(err);
	split_gpu_sort(s);
	for (size_t d = 0; d < ndev; d++) {
		ns_split_device *dev = &res->device[d];
		size_t last = first;
		ns_status st;
		while (last < s->ngpu && split_gpu_dev(&s->gpu[last]) == d)
			last++;
		res->ndevices++;
		dev->id = s->ngpu > 0 ? s->device_id[d] : -1;
		dev->outside_gpu = s->ngpu > 0 ? s->outside_gpu[d] : 0;
		dev->outside_gpu_ns = s->ngpu > 0 ? s->outside_gpu_ns[d] : 0;
		dev->small_m_gemms = s->ngpu > 0 ? s->small_m_gemm[d] : 0;
		dev->small_m_gemm_ns = s->ngpu > 0 ? s->small_m_gemm_ns[d] : 0;
		dev->shape_memory_gemms = s->ngpu > 0 ? s->shape_gemm[d] : 0;
		dev->shape_memory_gemm_ns = s->ngpu > 0 ? s->shape_gemm_ns[d] : 0;
		dev->shape_memory_intensity = dev->shape_memory_gemms > 0 ? s->memgemm_intensity : 0.0;
		device_name(meta, dev->id, dev->name);
		dev->store = tmpl->st;
		dev->first = tmpl->first;
		if (d + 1 < ndev) {
			if ((st = split_store_add(tmpl->st, tmpl->n, &dev->first, err)) != NS_OK)
				return st;
			split_store_copy(tmpl->st, dev->first, tmpl->first, tmpl->n);
		}
		dev->nsteps = tmpl->n;
		st = split_one(s, s->ngpu > 0 ? s->gpu + first : NULL, last - first, host, dev, err);
		dev->host_stall_idle_ns =
		    split_stall_idle(s, s->ngpu > 0 ? s->gpu + first : NULL, last - first);
		if (dev->host_stall_idle_ns >
		    res->host_stall_ns) /* nested calls that overlap: held is less */
			dev->host_stall_idle_ns = res->host_stall_ns;
		if (st == NS_OK)
			st = step_stalls(s, dev, err);
		split_phases_overall(res, dev, s->keep_warmup);
		split_memory_summarise(s->mem, meta, dev, s->keep_warmup);
		if (st != NS_OK)
			return st;
		first = last;
	}
	return NS_OK;
}

static int cmp_device(const void *a, const void *b)
{
	const ns_split_device *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

/* The thread that records the steps, its steps, and its process's host lists. */
static ns_status host_side(ns_trace_split *s, ns_split_result *res, span_list host[SL_COUNT], ns_error *err)
{
	uint32_t main_index = 0, step_thread;
	bool found;
	ns_status st;

	memset(host, 0, SL_COUNT * sizeof(*host));
	if ((st = split_steps_choose(s, res, err)) != NS_OK ||
	    (st = split_pick_main_thread(s, &main_index, &found, err)) != NS_OK)
		return st;
	if (!found) {
		s->nsteps = 0;
		res->ns_step_source = NS_STEP_SOURCE_NONE;
		return NS_OK;
	}
	s->main_thread = main_index;
	step_thread = main_index;
	if (split_steps_on_device(s)) { /* GPU-side steps: those of the stream that records the most */
		if ((st = split_thread_with_most_steps(s, &step_thread, &found, err)) != NS_OK)
			return st;
		if (!found)
			s->nsteps = 0;
	}
	res->step_markers = split_main_steps(s, step_thread, &res->duplicate_steps);
	for (size_t i = 0; i < s->nsteps; i++)
		res->unnumbered_steps +=
		    s->steps[i].number < 0 && (s->steps[i].source == NS_STEP_SOURCE_PROFILER ||
		                               s->steps[i].source == NS_STEP_SOURCE_GPU_PROFILER);
	res->has_steps = res->step_markers > 0;
	if (!res->has_steps)
		res->ns_step_source = NS_STEP_SOURCE_NONE;
	split_steps_finish_markers(s);
	return split_process_lists(s, main_index, host, &res->host_threads, err);
}

ns_status ns_trace_split_finish(ns_trace_split *s, const ns_trace_meta *meta, ns_split_result *res,
                                ns_error *err)
{
	span_list host[SL_COUNT] = {{NULL, 0, 0}};
	split_view w = {NULL, 0, 0};
	ns_status st;

	memset(res, 0, sizeof(*res));
	if ((res->store = w.st = split_store_new(s->spill_dir)) == NULL)
		return split_oom(err);
	res->events = s->events;
	res->compiled = s->compiled;
	res->unknown_device_events = s->unknown_device_events;
	memcpy(res->unknown_device_cat, s->unknown_device_cat, sizeof(res->unknown_device_cat));
	res->gpu_activity = s->ngpu > 0;
	if (meta != NULL && meta->truncated) {
		s->quality.truncated = true;
		s->quality.truncated_in_events = meta->truncated_in_events;
		s->quality.truncated_at = meta->truncated_at;
	}
	if (meta != NULL && meta->nsys) {
		res->nsys = true;
		memcpy(res->nsys_schema, meta->nsys_schema, sizeof(res->nsys_schema));
		res->nsys_schema[sizeof(res->nsys_schema) - 1] = '\0';
		res->nsys_ops = s->quality.cpu_ops;
		res->program = meta->program;
	}
	if (meta != NULL && meta->has_rank) {
		res->has_rank = true;
		res->rank = meta->rank;
		res->world_size = meta->world_size;
	}
	st = split_copies_block(s, err);
	if (st == NS_OK)
		st = split_first_use(s, res, err);
	if (st == NS_OK)
		st = host_side(s, res, host, err);
	res->host_comm = host[SL_COMM].n > 0;
	if (st == NS_OK) {
		window_range hr = {0, 0};
		if (host_range(host, &hr))
			s->quality.host_span_ns = ns_sat_sub_i64(hr.end, hr.start);
	}
	if (st == NS_OK)
		st = build_windows(s, host, res, &w, err);
	if (st == NS_OK)
		st = split_captures_finish(s, err);
	if (st == NS_OK)
		st = split_quality_links_end(s, err);
	res->graph_captures = s->ncapture;
	for (size_t i = 0; i < s->ncapture; i++)
		if (s->capture[i].end != INT64_MAX)
			res->capture_ns =
			    ns_sat_add_i64(res->capture_ns, s->capture[i].end - s->capture[i].start);
	res->captured_launches = s->quality.captured;
	if (st == NS_OK)
		st = split_phases_windows(s->phases, s, s->main_thread, &w, res, err);
	split_coll_prepare(s);
	if (st == NS_OK)
		st = split_coll_forward(s, err);
	/* after the windows: a marker is no host work, and must not stretch a host-only window */
	if (st == NS_OK)
		st = split_phases_optimizer_spans(s->phases, s, s->main_thread, &host[SL_OPT], err);
	if (st == NS_OK && s->hostops != NULL)
		st = split_hostops_prepare(s->hostops, s, s->main_thread, err);
	free(s->launch); /* the links are made; the biggest table goes before the sweep needs memory */
	free(s->wide_launch);
	s->launch = NULL;
	s->wide_launch = NULL;
	s->nlaunch = s->nwide_launch = 0;
	/* Host work alone is not routed: with no device there is no idle device to explain, unless the host's
	 * time is in collectives (a host-side, gloo, job). */
	if (st == NS_OK && w.n > 0 && (res->gpu_activity || res->host_comm))
		st = split_devices(s, meta, host, &w, res, err);
	split_lists_free(host);
	res->names = s->names;
	res->marker_names = s->marker_names;
	s->names_taken = true;
	split_python_result(s->py, res);
	split_hostops_result(s->hostops, res);
	if (st == NS_OK)
		ns_sort(res->device, res->ndevices, sizeof(*res->device), cmp_device);
	if (st == NS_OK)
		st = split_quality_finish(s, res, err);
	if (st == NS_OK)
		st = ns_split_result_steps_status(res, err);
	return st;
}

void ns_split_result_free(ns_split_result *res)
{
	if (res == NULL)
		return;
	for (size_t i = 0; i < res->ndevices; i++) {
		free(res->device[i].kernel_time);
		free(res->device[i].coll);
		free(res->device[i].timeline);
		free(res->device[i].step_stall_ns);
	}
	free(res->device);
	split_store_free(res->store);
	ns_kernel_names_free(res->names);
	ns_kernel_names_free(res->python_names);
	ns_kernel_names_free(res->host_op_names);
	ns_kernel_names_free(res->marker_names);
	free(res->passes);
	memset(res, 0, sizeof(*res));
}

void ns_split_window_profile(const ns_split_window *w, ns_profile *p)
{
	ns_profile_init(p);
	for (int b = 0; b < NS_REGIME_COUNT; b++) {
		p->share[b] = w->dur_ns > 0 ? (double)w->bucket_ns[b] / (double)w->dur_ns : 0.0;
		p->present[b] = true;
	}
}
