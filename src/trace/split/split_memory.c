/* The allocator's view of a trace (docs/trace.md, "Memory"). PyTorch's profile_memory=True writes an instant
 * event "[memory]" at every allocation and free, with the signed size ("Bytes"), the device ("Device Type",
 * "Device Id") and, in newer versions, the allocator's totals after it ("Total Allocated", "Total Reserved").
 * Totals give absolute peaks; a trace with only the deltas gives amounts relative to what was allocated when
 * the capture started, which is all it can say. */
#include "trace/split/split_memory.h"

#include <stdlib.h>
#include <string.h>

#include "trace/split/split_private.h"
#include "util/satmath.h"
#include "util/sort.h"

typedef struct {
	int64_t ts_ns;
	int64_t value; /* the total allocated after the event, or the signed size (deltas) */
} mem_sample;

typedef struct {
	int64_t id;
	long events, with_totals;
	int64_t running, running_peak; /* the deltas summed in file order */
	int64_t peak_allocated, peak_reserved;
	mem_sample *v;
	size_t n, cap;
	bool dropped;
} mem_device;

struct split_memtrack {
	mem_device dev[NS_TRACE_MAX_DEVICES];
	size_t ndev;
	size_t samples; /* over every device, against NS_SPLIT_MEMORY_SAMPLES_MAX */
};

bool split_memory_is_event(const ns_trace_event *ev)
{
	return ev->name.len == 8 && memcmp(ev->name.ptr, "[memory]", 8) == 0;
}

static mem_device *device_of(split_memtrack *t, int64_t id)
{
	for (size_t i = 0; i < t->ndev; i++)
		if (t->dev[i].id == id)
			return &t->dev[i];
	if (t->ndev == NS_TRACE_MAX_DEVICES)
		return NULL;
	t->dev[t->ndev] = (mem_device){.id = id, .peak_reserved = -1};
	return &t->dev[t->ndev++];
}

static bool keep_sample(split_memtrack *t, mem_device *d, const ns_trace_event *ev, int64_t value)
{
	if (d->dropped || t->samples >= NS_SPLIT_MEMORY_SAMPLES_MAX) {
		d->dropped = true;
		return true;
	}
	mem_sample *v = ns_grow(d->v, &d->cap, d->n + 1, sizeof(*v));
	if (v == NULL)
		return false;
	d->v = v;
	d->v[d->n++] = (mem_sample){ev->ts_ns, value};
	t->samples++;
	return true;
}

ns_status split_memory_note(split_memtrack **tp, const ns_trace_event *ev, ns_error *err)
{
	bool totals = ev->mem_allocated != INT64_MIN;
	mem_device *d;

	if (ev->mem_device_type == 0 || ev->mem_device_id == INT64_MIN || ev->mem_device_id < 0 ||
	    (!totals && ev->mem_bytes == INT64_MIN))
		return NS_OK; /* the host's allocations, or nothing to count */
	if (*tp == NULL && (*tp = calloc(1, sizeof(**tp))) == NULL)
		return split_oom(err);
	if ((d = device_of(*tp, ev->mem_device_id)) == NULL)
		return NS_OK;
	d->events++;
	if (totals) {
		d->with_totals++;
		if (ev->mem_allocated > d->peak_allocated)
			d->peak_allocated = ev->mem_allocated;
		if (ev->mem_reserved != INT64_MIN && ev->mem_reserved > d->peak_reserved)
			d->peak_reserved = ev->mem_reserved;
	}
	if (ev->mem_bytes != INT64_MIN) {
		d->running = ns_sat_add_i64(d->running, ev->mem_bytes);
		if (d->running > d->running_peak)
			d->running_peak = d->running;
	}
	if (!keep_sample(*tp, d, ev,
	                 totals ? ev->mem_allocated : (ev->mem_bytes != INT64_MIN ? ev->mem_bytes : 0)))
		return split_oom(err);
	return NS_OK;
}

static int cmp_sample(const void *a, const void *b)
{
	return ns_order_i64(((const mem_sample *)a)->ts_ns, ((const mem_sample *)b)->ts_ns);
}

/* The least and the most allocated at the samples inside the counted windows of d. */
static void step_range(const mem_device *m, bool totals, const ns_split_device *d, bool keep_warmup,
                       ns_split_memory *out)
{
	bool all_warmup = true;
	int64_t running = 0;
	size_t k = 0;

	for (size_t i = 0; i < d->nsteps && all_warmup; i++)
		all_warmup = ns_split_device_step(d, i).warmup;
	out->step_floor = INT64_MAX;
	out->step_peak = INT64_MIN;
	for (size_t i = 0; i < m->n; i++) {
		int64_t value = totals ? m->v[i].value : (running = ns_sat_add_i64(running, m->v[i].value));
		ns_split_window w;
		memset(&w, 0, sizeof(w));
		while (k < d->nsteps) {
			w = ns_split_device_step(d, k);
			if (m->v[i].ts_ns < w.start_ns + w.dur_ns)
				break;
			k++;
		}
		if (k == d->nsteps)
			break;
		if (m->v[i].ts_ns < w.start_ns || (w.warmup && !keep_warmup && !all_warmup))
			continue;
		if (value < out->step_floor)
			out->step_floor = value;
		if (value > out->step_peak)
			out->step_peak = value;
	}
	if (out->step_peak == INT64_MIN)
		out->step_floor = out->step_peak = INT64_MIN;
}

void split_memory_summarise(const split_memtrack *t, const ns_trace_meta *meta, ns_split_device *d,
                            bool keep_warmup)
{
	const mem_device *m = NULL;
	ns_split_memory *out = &d->memory;

	memset(out, 0, sizeof(*out));
	out->peak_reserved = -1;
	out->step_floor = out->step_peak = INT64_MIN;
	for (size_t i = 0; meta != NULL && i < meta->ndevices; i++)
		if (meta->devices[i].id == d->id)
			out->device_bytes = meta->devices[i].total_mem;
	for (size_t i = 0; t != NULL && i < t->ndev && d->id >= 0; i++)
		if (t->dev[i].id == d->id)
			m = &t->dev[i];
	if (m == NULL || m->events == 0)
		return;
	out->events = m->events;
	out->totals = m->with_totals == m->events;
	out->peak_allocated = out->totals ? m->peak_allocated : m->running_peak;
	out->peak_reserved = out->totals ? m->peak_reserved : -1;
	out->samples_dropped = m->dropped;
	if (m->dropped)
		return;
	/* file order is the profiler's, which is time order in the traces seen; sort only when it is not (the
	 * deltas' running sum at equal times then follows the sort's order) */
	for (size_t i = 1; i < m->n; i++)
		if (m->v[i].ts_ns < m->v[i - 1].ts_ns) {
			ns_sort(m->v, m->n, sizeof(*m->v), cmp_sample);
			break;
		}
	if (!out->totals) { /* the running sum, in time order */
		int64_t running = 0, peak = 0;
		for (size_t i = 0; i < m->n; i++)
			if ((running = ns_sat_add_i64(running, m->v[i].value)) > peak)
				peak = running;
		out->peak_allocated = peak;
	}
	step_range(m, out->totals, d, keep_warmup, out);
}

void split_memory_free(split_memtrack *t)
{
	for (size_t i = 0; t != NULL && i < t->ndev; i++)
		free(t->dev[i].v);
	free(t);
}
