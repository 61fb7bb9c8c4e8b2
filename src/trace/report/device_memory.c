/* The memory line and object of a device's report (device_memory.h). */
#include "nextstep/device_memory.h"

#include <math.h>

#include "nextstep/units.h"

static bool steps_known(const ns_split_memory *m)
{
	return !m->samples_dropped && m->step_floor != INT64_MIN && m->step_peak != INT64_MIN;
}

double ns_memory_batch_scale(const ns_split_memory *m)
{
	double floor_b, step;

	if (m->events == 0 || !m->totals || !steps_known(m) || m->device_bytes <= 0)
		return -1.0;
	floor_b = (double)m->step_floor;
	step = (double)m->step_peak - floor_b;
	if (!(step > 0.0) || floor_b > (double)m->device_bytes)
		return -1.0;
	return ((double)m->device_bytes - floor_b) / step;
}

static const char *gb(double bytes, char *buf, size_t size)
{
	return ns_units_format_si(bytes, "B", buf, size);
}

bool ns_memory_batch_words(const ns_split_memory *m, char *buf, size_t size)
{
	double scale = ns_memory_batch_scale(m), need;
	char a[32], c[32];

	if (scale < 0.0)
		return false;
	need = (double)m->step_floor + 2.0 * (double)(m->step_peak - m->step_floor);
	snprintf(buf, size, "a 2x batch %s: ~%s of %s (up to ~%.1fx)", scale >= 2.0 ? "fits" : "would need",
	         gb(need, a, sizeof(a)), gb((double)m->device_bytes, c, sizeof(c)),
	         floor(scale * 10.0) / 10.0);
	return true;
}

static void print_headroom(FILE *out, const ns_split_memory *m)
{
	char a[32], b[32], words[128];

	if (!steps_known(m))
		return;
	fprintf(out, "; %s stays across steps, a step adds up to %s", gb((double)m->step_floor, a, sizeof(a)),
	        gb((double)(m->step_peak - m->step_floor), b, sizeof(b)));
	if (ns_memory_batch_words(m, words, sizeof(words)))
		fprintf(out, ": %s", words);
}

void ns_memory_print(FILE *out, const ns_split_memory *m)
{
	char a[32], b[32];

	if (m->events == 0)
		return;
	if (!m->totals) {
		fprintf(out,
		        "  memory: allocation sizes only (no totals in the trace): up to %s above what was "
		        "allocated "
		        "when the capture started",
		        gb((double)m->peak_allocated, a, sizeof(a)));
		if (steps_known(m))
			fprintf(out, "; a step allocates and frees up to %s",
			        gb((double)(m->step_peak - m->step_floor), b, sizeof(b)));
		fputs("; the memory held before the capture, and so the headroom, is unknown\n", out);
		return;
	}
	fprintf(out, "  memory: peak %s allocated", gb((double)m->peak_allocated, a, sizeof(a)));
	if (m->peak_reserved >= 0)
		fprintf(out, ", %s reserved", gb((double)m->peak_reserved, b, sizeof(b)));
	if (m->device_bytes > 0) {
		char c[32];
		fprintf(out, ", of %s", gb((double)m->device_bytes, c, sizeof(c)));
	}
	print_headroom(out, m);
	fputc('\n', out);
}

static bool add_bytes(cJSON *o, const char *key, bool known, int64_t v)
{
	return (known ? cJSON_AddNumberToObject(o, key, (double)v) : cJSON_AddNullToObject(o, key)) != NULL;
}

cJSON *ns_memory_json(const ns_split_memory *m)
{
	cJSON *o;
	double scale = ns_memory_batch_scale(m);
	bool ok;

	if (m->events == 0)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	ok = o != NULL;
	ok = ok && add_bytes(o, "peak_allocated_bytes", true, m->peak_allocated);
	ok = ok && add_bytes(o, "peak_reserved_bytes", m->peak_reserved >= 0, m->peak_reserved);
	ok = ok && add_bytes(o, "device_bytes", m->device_bytes > 0, m->device_bytes);
	ok = ok && cJSON_AddBoolToObject(o, "totals", m->totals) != NULL;
	ok = ok && cJSON_AddNumberToObject(o, "events", (double)m->events) != NULL;
	ok = ok && add_bytes(o, "step_floor_bytes", steps_known(m), m->step_floor);
	ok = ok && add_bytes(o, "step_peak_bytes", steps_known(m), m->step_peak);
	ok = ok && (scale >= 0.0 ? cJSON_AddNumberToObject(o, "batch_scale", scale)
	                         : cJSON_AddNullToObject(o, "batch_scale")) != NULL;
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}
