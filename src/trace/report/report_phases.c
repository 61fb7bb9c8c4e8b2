/* The report's step sections: where the steps came from, each step's marker and phase, a verdict per
 * inference phase (prefill and decode are opposite regimes: one summed verdict would describe neither), GPU
 * work launched outside every step, and step markers that were ignored. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>

#include "trace/report/report_private.h"
#include "util/text.h"

const char *ns_report_step_source_words(ns_step_source s, const char *const *hints)
{
	const char *marker = ns_report_hint_text(hints, NS_REPORT_HINT_STEP_MARKER);

	switch (s) {
	case NS_STEP_SOURCE_GPU_PROFILER:
		return "ProfilerStep# on the GPU timeline";
	case NS_STEP_SOURCE_SERVER:
		return "inference-server iteration markers";
	case NS_STEP_SOURCE_MARKER:
		return marker != NULL ? marker : "step-marker annotations";
	case NS_STEP_SOURCE_PERIOD:
		return "a repeating kernel sequence";
	default:
		return NULL;
	}
}

void report_print_step_source(FILE *out, const ns_split_result *res, const char *const *hints)
{
	const char *words = ns_report_step_source_words(res->ns_step_source, hints);

	if (words != NULL)
		fprintf(out, " (steps from %s)", words);
}

const char *ns_report_step_marker(const ns_split_result *res, const ns_split_window *w, char *buf,
                                  size_t size)
{
	switch (res->ns_step_source) {
	case NS_STEP_SOURCE_PROFILER:
	case NS_STEP_SOURCE_GPU_PROFILER:
		snprintf(buf, size, "ProfilerStep#%" PRId64, w->step);
		return buf;
	case NS_STEP_SOURCE_SERVER:
	case NS_STEP_SOURCE_MARKER:
		return w->marker != UINT32_MAX ? ns_kernel_names_get(res->marker_names, w->marker) : NULL;
	case NS_STEP_SOURCE_PERIOD:
		return w->marker != UINT32_MAX ? ns_kernel_names_get(res->names, w->marker) : NULL;
	default:
		return NULL;
	}
}

bool report_add_step_json(cJSON *obj, const ns_split_result *res, const ns_split_window *w)
{
	char buf[48];
	const char *marker = ns_report_step_marker(res, w, buf, sizeof(buf));
	const char *phase = ns_step_phase_name((ns_step_phase)w->phase);

	return (marker != NULL ? cJSON_AddStringToObject(obj, "marker", marker)
	                       : cJSON_AddNullToObject(obj, "marker")) != NULL &&
	       (phase != NULL ? cJSON_AddStringToObject(obj, "phase", phase)
	                      : cJSON_AddNullToObject(obj, "phase")) != NULL;
}

void report_print_step_phase(FILE *out, const ns_split_window *w)
{
	const char *phase = ns_step_phase_name((ns_step_phase)w->phase);

	if (phase != NULL)
		fprintf(out, " [%s]", phase);
}

ns_split_window report_overall_routed(const ns_split_device *d)
{
	ns_split_window w = d->overall;

	if (d->phase_steps[NS_STEP_PHASE_DECODE] > 0 &&
	    2 * d->phase_sum[NS_STEP_PHASE_DECODE].bucket_ns[NS_REGIME_MEMORY] >=
	        w.bucket_ns[NS_REGIME_MEMORY])
		w.phase = NS_STEP_PHASE_DECODE;
	return w;
}

/* The lines follow their device's summary, so the label is the phase alone. */
void report_print_phases(FILE *out, const ns_device_report *m, const ns_report_options *o)
{
	for (int p = NS_STEP_PHASE_PREFILL; p < NS_STEP_PHASE_COUNT; p++) {
		const ns_phase_report *ph = &m->phase[p];
		char phase_label[96], words[192];
		if (ph->steps == 0)
			continue;
		snprintf(phase_label, sizeof(phase_label), "  %s (%zu step%s, %.3f ms each)",
		         ns_step_phase_name((ns_step_phase)p), ph->steps, ph->steps == 1 ? "" : "s",
		         (double)ph->window.dur_ns / 1e6 / (double)ph->steps);
		ns_format_verdict_line(out, phase_label, &ph->verdict, &ph->routes, o->format);
		if (ph->small_m_gemms > 0)
			fprintf(out, "    %s\n", ns_report_small_m_words(ph, words, sizeof(words)));
	}
}

const char *ns_report_small_m_words(const ns_phase_report *ph, char *buf, size_t size)
{
	snprintf(buf, size,
	         "%ld GEMM%s of iterations of at most 64 tokens (%.3f ms) counted as memory: with that few "
	         "rows a GEMM reads its weights, not computes",
	         ph->small_m_gemms, ph->small_m_gemms == 1 ? "" : "s", (double)ph->small_m_gemm_ns / 1e6);
	return buf;
}

const char *ns_report_shape_gemm_words(const ns_device_report *m, char *buf, size_t size)
{
	snprintf(
	    buf, size,
	    "%ld GEMM%s (%.3f ms) counted as memory: their recorded shapes do at most %.1f FLOP per byte "
	    "moved, too few for any GPU's compute roof (a few rows, a few tokens): they read their "
	    "operands, not compute",
	    m->shape_gemms, m->shape_gemms == 1 ? "" : "s", (double)m->shape_gemm_ns / 1e6,
	    m->shape_gemm_intensity);
	return buf;
}

void report_print_shape_gemms(FILE *out, const ns_device_report *m)
{
	char words[256];

	if (m->shape_gemms > 0)
		fprintf(out, "  %s\n", ns_report_shape_gemm_words(m, words, sizeof(words)));
}

/* "shape_memory_gemms": {"kernels": N, "us": T, "intensity": I, "text": "..."}, or null when none. */
cJSON *report_shape_gemms_json(const ns_device_report *m)
{
	cJSON *o;
	char words[256];

	if (m->shape_gemms <= 0)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	if (o != NULL &&
	    (!cJSON_AddNumberToObject(o, "kernels", (double)m->shape_gemms) ||
	     !cJSON_AddNumberToObject(o, "us", (double)m->shape_gemm_ns / 1e3) ||
	     !cJSON_AddNumberToObject(o, "intensity", m->shape_gemm_intensity) ||
	     !cJSON_AddStringToObject(o, "text", ns_report_shape_gemm_words(m, words, sizeof(words))))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* "small_m_gemms": {"kernels": N, "us": T, "text": "..."} on the decode phase. */
static bool add_small_m_json(cJSON *w, const ns_phase_report *ph)
{
	cJSON *o = cJSON_CreateObject();
	char words[192];

	if (o == NULL || !cJSON_AddItemToObject(w, "small_m_gemms", o)) {
		cJSON_Delete(o);
		return false;
	}
	return cJSON_AddNumberToObject(o, "kernels", (double)ph->small_m_gemms) != NULL &&
	       cJSON_AddNumberToObject(o, "us", (double)ph->small_m_gemm_ns / 1e3) != NULL &&
	       cJSON_AddStringToObject(o, "text", ns_report_small_m_words(ph, words, sizeof(words))) != NULL;
}

static bool has_phases(const ns_device_report *m)
{
	for (int p = NS_STEP_PHASE_PREFILL; p < NS_STEP_PHASE_COUNT; p++)
		if (m->phase[p].steps > 0)
			return true;
	return false;
}

cJSON *report_phases_json(const ns_device_report *m, const ns_report_options *o)
{
	cJSON *obj;
	char phase_label[NS_TRACE_DEVICE_NAME_MAX + 96];

	if (!has_phases(m))
		return cJSON_CreateNull();
	obj = cJSON_CreateObject();
	for (int p = NS_STEP_PHASE_PREFILL; obj != NULL && p < NS_STEP_PHASE_COUNT; p++) {
		const ns_phase_report *ph = &m->phase[p];
		cJSON *w, *next = NULL;
		if (ph->steps == 0)
			continue;
		snprintf(phase_label, sizeof(phase_label), "%s %s", m->label,
		         ns_step_phase_name((ns_step_phase)p));
		w = report_window_json_routed(phase_label, &ph->window, false, o, &ph->routes);
		if (w != NULL && ph->small_m_gemms > 0 && !add_small_m_json(w, ph)) {
			cJSON_Delete(w);
			w = NULL;
		}
		if (w == NULL || !cJSON_AddNumberToObject(w, "steps", (double)ph->steps) ||
		    (next = ns_next_steps_json(&ph->next, false)) == NULL ||
		    !cJSON_AddItemToObject(w, "next_steps", next) ||
		    !cJSON_AddItemToObject(obj, ns_step_phase_name((ns_step_phase)p), w)) {
			cJSON_Delete(w);
			cJSON_Delete(obj);
			return NULL;
		}
	}
	return obj;
}

cJSON *report_outside_json(const ns_split_device *d)
{
	cJSON *obj = cJSON_CreateObject();

	if (obj != NULL && (!cJSON_AddNumberToObject(obj, "gpu_events", (double)d->outside_gpu) ||
	                    !cJSON_AddNumberToObject(obj, "us", (double)d->outside_gpu_ns / 1e3))) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

void report_print_ignored_markers(FILE *out, const ns_split_result *res)
{
	if (res->ignored_step_markers > 0)
		fprintf(out,
		        "note: %zu step marker%s of process %" PRId64
		        " ignored: it launched no device work\n",
		        res->ignored_step_markers, res->ignored_step_markers == 1 ? "" : "s",
		        res->ignored_step_pid);
}

void report_print_outside(FILE *out, const ns_split_device *d, bool verbose)
{
	if (verbose && d->outside_gpu > 0)
		fprintf(out,
		        "  outside the steps: %ld GPU event%s (%.3f ms) launched before the first or after "
		        "the last "
		        "step, in no window\n",
		        d->outside_gpu, d->outside_gpu == 1 ? "" : "s", (double)d->outside_gpu_ns / 1e6);
}
