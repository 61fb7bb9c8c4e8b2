#define _POSIX_C_SOURCE 200809L
#include "nextstep/trace_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/device_memory.h"
#include "nextstep/gpu_util.h"
#include "nextstep/kernel_identity.h"
#include "trace/report/report_private.h"
#include "util/json_out.h"
#include "util/sort.h"
#include "util/text.h"

void ns_report_device_label(const ns_split_result *res, const ns_split_device *d, char *buf, size_t size)
{
	if (d->id < 0 && res->has_rank)
		snprintf(buf, size, "rank %" PRId64 " host", res->rank);
	else if (d->id < 0)
		snprintf(buf, size, "host");
	else if (res->has_rank)
		snprintf(buf, size, "rank %" PRId64 " dev %" PRId64, res->rank, d->id);
	else if (d->name[0] != '\0')
		snprintf(buf, size, "device %" PRId64 " (%s)", d->id, d->name);
	else
		snprintf(buf, size, "device %" PRId64, d->id);
}

/* Namespaces, "(anonymous namespace)" included, and template arguments are kept; the return type and the
 * parameter list go (kernel_identity.h). */
void ns_report_short_name(const char *name, char *buf, size_t max)
{
	size_t start, n = ns_kernel_display_span(name, &start);

	name += start;
	if (n + 1 > max) {
		n = ns_utf8_cut(name, n, max > 4 ? max - 4 : 0); /* between characters */
		memcpy(buf, name, n);
		memcpy(buf + n, "...", 4);
		return;
	}
	memcpy(buf, name, n);
	buf[n] = '\0';
}

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

void report_route_window(const ns_split_window *w, const ns_report_options *o, ns_verdict *v)
{
	ns_profile p;

	ns_split_window_profile(w, &p);
	ns_classify_profile(&p, o->classify, v);
}

/* "compute 52.1%, memory 20.3% (transfers 3.1%), comm 10.0% exposed + 5.2% hidden, ..." */
static void print_split(FILE *out, const ns_split_window *w)
{
	int64_t d = w->dur_ns;

	fprintf(out, "compute %.1f%%, memory %.1f%%", pct(w->bucket_ns[NS_REGIME_COMPUTE], d),
	        pct(w->bucket_ns[NS_REGIME_MEMORY], d));
	if (w->cause_ns[NS_CAUSE_TRANSFER] > 0)
		fprintf(out, " (transfers %.1f%%)", pct(w->cause_ns[NS_CAUSE_TRANSFER], d));
	fprintf(out, ", comm %.1f%%", pct(w->bucket_ns[NS_REGIME_COMM], d));
	if (w->comm_overlapped_ns > 0)
		fprintf(out, " exposed + %.1f%% hidden", pct(w->comm_overlapped_ns, d));
	fprintf(out, ", dataloader %.1f%%, overhead %.1f%%, idle %.1f%%",
	        pct(w->bucket_ns[NS_REGIME_DATALOADER], d), pct(w->bucket_ns[NS_REGIME_OVERHEAD], d),
	        pct(w->bucket_ns[NS_REGIME_IDLE], d));
}

static void print_summary(FILE *out, const ns_split_result *res, const ns_split_device *d,
                          const char *const *hints)
{
	const ns_split_window *o = &d->overall;
	size_t counted = d->nsteps - d->nwarmup; /* the steps in overall */

	if (res->has_steps) {
		fprintf(out, "  %zu step%s", counted, counted == 1 ? "" : "s");
		report_print_step_source(out, res, hints);
		fprintf(out, ", %.3f ms per step: ", ms(o->dur_ns) / (double)counted);
	} else
		fprintf(out, "  whole trace (no ProfilerStep# markers), %.3f ms: ", ms(o->dur_ns));
	print_split(out, o);
	if (res->gpu_activity)
		fprintf(out, "; %ld kernel%s", o->kernels, o->kernels == 1 ? "" : "s");
	fputc('\n', out);
}

/* How the steps vary: min / median / max time, and whether the verdict holds for every step. */
static ns_status print_variation(FILE *out, const ns_split_device *d, const ns_report_options *o,
                                 ns_error *err)
{
	int64_t *dur = malloc(d->nsteps * sizeof(*dur));
	size_t count[NS_REGIME_COUNT] = {0};
	size_t kinds = 0;
	ns_verdict v;

	if (dur == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory while writing the report");
	for (size_t i = 0; i < d->nsteps; i++) {
		ns_split_window w = ns_split_device_step(d, i);
		dur[i] = w.dur_ns;
		report_route_window(&w, o, &v);
		kinds += count[v.regime]++ == 0;
	}
	qsort(dur, d->nsteps, sizeof(*dur), ns_cmp_i64);
	fprintf(out, "  step time min %.3f / median %.3f / max %.3f ms; ", ms(dur[0]),
	        d->nsteps % 2 ? ms(dur[d->nsteps / 2])
	                      : (ms(dur[d->nsteps / 2 - 1]) + ms(dur[d->nsteps / 2])) / 2,
	        ms(dur[d->nsteps - 1]));
	free(dur);
	if (kinds == 1) {
		fprintf(out, "every step %s\n", ns_regime_bound_word(v.regime));
		return NS_OK;
	}
	fputs("verdicts vary:", out);
	for (int r = 0, first = 1; r < NS_REGIME_COUNT; r++) {
		if (count[r] == 0)
			continue;
		fprintf(out, "%s %zu %s", first ? "" : ",", count[r], ns_regime_bound_word((ns_regime)r));
		first = 0;
	}
	fputc('\n', out);
	return NS_OK;
}

static void print_step(FILE *out, const ns_split_result *res, const ns_split_window *w,
                       const ns_report_options *o)
{
	ns_verdict v;

	report_route_window(w, o, &v);
	if (w->step >= 0) {
		fprintf(out, "  step %" PRId64, w->step);
		report_print_step_phase(out, w);
		fputs(": ", out);
	} else
		fputs("  window: ", out);
	fprintf(out, "%.3f ms, %s (%.0f%%): ", ms(w->dur_ns), ns_regime_bound_word(v.regime),
	        v.share * 100.0);
	print_split(out, w);
	if (res->gpu_activity)
		fprintf(out, "; %ld kernel%s", w->kernels, w->kernels == 1 ? "" : "s");
	fputc('\n', out);
}

/* nvidia-smi's number for the window, and what it does not say (lesson 02.09). */
static void print_gpu_util(FILE *out, const ns_split_window *w)
{
	double util = ns_window_gpu_util(w);

	if (util < 0.0)
		return;
	fputs("GPU-Util ", out);
	ns_format_percent(out, util);
	fputs(": the share of the step with a kernel running, what nvidia-smi samples; not how close the "
	      "kernels "
	      "come to their roofs (the roofline placement says)\n",
	      out);
}

/* Device collectives only: host-side (gloo) comm is a cause line of its own. */
static void print_comm(FILE *out, const ns_split_window *w)
{
	if (w->cause_ns[NS_CAUSE_EXPOSED] == 0 && w->comm_overlapped_ns == 0)
		return;
	fprintf(out, "comm: %.1f%% exposed (%.3f ms), %.1f%% hidden under compute/memory (%.3f ms)\n",
	        pct(w->cause_ns[NS_CAUSE_EXPOSED], w->dur_ns), ms(w->cause_ns[NS_CAUSE_EXPOSED]),
	        pct(w->comm_overlapped_ns, w->dur_ns), ms(w->comm_overlapped_ns));
}

static bool class_of_regime(ns_regime r, ns_kernel_class *c)
{
	switch (r) {
	case NS_REGIME_COMPUTE:
		*c = NS_KCLASS_COMPUTE;
		return true;
	case NS_REGIME_MEMORY:
		*c = NS_KCLASS_MEMORY;
		return true;
	case NS_REGIME_COMM:
		*c = NS_KCLASS_COMM;
		return true;
	default:
		return false;
	}
}

static void print_top_kernels(FILE *out, const ns_split_result *res, const ns_split_device *d, ns_regime r,
                              const ns_report_options *o)
{
	ns_kernel_class c;
	size_t shown = 0;
	char name[NS_REPORT_NAME_MAX + 1];

	if (!class_of_regime(r, &c) || d->class_ns[c] == 0 || o->top == 0)
		return;
	fprintf(out, "top %s kernels (of %.3f ms of %s-class kernel time):\n", ns_kernel_class_name(c),
	        ms(d->class_ns[c]), ns_kernel_class_name(c));
	for (size_t i = 0; i < d->nkernel_time && shown < o->top; i++) {
		const ns_split_kernel_time *k = &d->kernel_time[i];
		if (k->cls != c)
			continue;
		ns_report_short_name(ns_kernel_names_get(res->names, k->name_id), name, sizeof(name));
		/* names come from the trace: control characters are escaped, never sent to the terminal */
		fprintf(out, "  %5.1f%% %10.3f ms %7ldx  ", pct(k->ns, d->class_ns[c]), ms(k->ns), k->count);
		ns_fput_text(out, name);
		fputc('\n', out);
		shown++;
	}
}

static void print_startup(FILE *out, const ns_device_report *m)
{
	const ns_split_window *w = &m->routed;

	fprintf(out, "%s: start-up, not steady state (set-up calls hold %.0f%% of it) -> %s (%s)\n", m->label,
	        pct(w->cause_ns[NS_CAUSE_INIT], w->dur_ns), m->startup_route.fix, m->startup_route.module);
}

static ns_status print_device_text(FILE *out, const ns_split_result *res, const ns_split_device *d,
                                   const ns_device_report *m, const ns_report_options *o, ns_error *err)
{
	const ns_split_window *w = &m->routed;
	bool headline = !m->unfit && !m->startup;

	if (m->unfit)
		fprintf(out, "%s: no verdict (the trace is unfit, above)\n", m->label);
	else if (m->startup)
		print_startup(out, m);
	else
		ns_format_verdict_line(out, m->label, &m->verdict, &m->routes, o->format);
	for (size_t i = 0; i < m->nroof_notes; i++) {
		char words[NS_ROOF_NOTE_WORDS];
		ns_roof_note_words(&m->roof_note[i], words, sizeof(words));
		fprintf(out, "  %s\n", words);
	}
	if (headline)
		ns_next_steps_print(out, &m->next, res->has_steps, /* --roofline places no export's op */
		                    res->nsys ? NULL
		                              : ns_report_hint_text(o->hints, NS_REPORT_HINT_ROOFLINE));
	if (headline && m->first_why[0] != '\0')
		fprintf(out, "  why first: %s\n", m->first_why);
	if (headline && m->batch_item >= 0)
		report_print_batch(out, m);
	/* a start-up capture's findings are start-up's: its one advice is a steady-state capture */
	if (!o->format->verbose && headline) {
		report_print_also(out, m);
		report_print_passes_also(out, res, d, m);
	}
	print_summary(out, res, d, o->hints);
	ns_memory_print(out, &d->memory);
	report_print_graphs(out, d);
	report_print_top_cause(out, res, w, m->verdict.regime);
	report_print_shape_gemms(out, m);
	report_print_host_op(out, m);
	report_print_notes(out, res, d, o->hints);
	report_print_outside(out, d, o->format->verbose);
	report_print_phases(out, m, o);
	if (d->nsteps > 1 && print_variation(out, d, o, err) != NS_OK)
		return err->status;
	for (size_t i = 0; o->steps && i < d->nsteps; i++) {
		ns_split_window step = ns_split_device_step(d, i);
		print_step(out, res, &step, o);
	}
	if (o->format->verbose) {
		ns_format_verdict_explain(out, &m->verdict, &m->routes, o->format);
		ns_next_steps_print_all(out, &m->next, res->has_steps,
		                        res->nsys ? NULL
		                                  : ns_report_hint_text(o->hints, NS_REPORT_HINT_ROOFLINE));
		report_print_causes(out, w);
		report_print_python(out, res, d);
		report_print_passes(out, res, d, m);
		print_comm(out, w);
		if (res->gpu_activity)
			print_gpu_util(out, w);
		print_top_kernels(out, res, d, m->verdict.regime, o);
	}
	return NS_OK;
}

/* Device d's report, decided with o's classify, routes, roof and devices. */
static void decide_one(const ns_split_result *res, const ns_split_device *d, const ns_report_options *o,
                       ns_device_report *m)
{
	ns_roof_time roof[NS_KCLASS_COUNT];

	ns_device_report_build(res, d, o->classify, o->routes, ns_report_roof(o, d, roof), o->devices, m);
}

/* The model of device d: the one the options carry when it was decided already, else decided here into
 * *owned (malloc'd: the caller frees it; NULL when it was not). NULL on OOM with err set. */
static const ns_device_report *device_model(const ns_split_result *res, const ns_split_device *d,
                                            const ns_report_options *o, ns_device_report **owned,
                                            ns_error *err)
{
	*owned = NULL;
	if (o->reports != NULL)
		return &o->reports[d - res->device];
	if ((*owned = malloc(sizeof(**owned))) == NULL) {
		ns_error_set(err, NS_ERR_NOMEM, "out of memory while writing the report");
		return NULL;
	}
	decide_one(res, d, o, *owned);
	return *owned;
}

ns_status ns_report_decide(const ns_split_result *res, const ns_report_options *o, ns_device_report **out,
                           ns_error *err)
{
	*out = NULL;
	if (res->ndevices == 0)
		return NS_OK;
	if ((*out = calloc(res->ndevices, sizeof(**out))) == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < res->ndevices; i++)
		decide_one(res, &res->device[i], o, &(*out)[i]);
	return NS_OK;
}

static ns_status print_text(FILE *out, const ns_split_result *res, const ns_report_options *o, ns_error *err)
{
	double hint = 0.0, rank_hint = 0.0;
	bool rank_host = false;

	report_print_quality(out, res, o->format->verbose);
	if (res->nsys && o->format->verbose)
		report_print_export(out, res);
	if (res->ndevices == 0 && res->unknown_device_events > 0)
		report_print_unknown_device(out, res);
	else if (res->ndevices == 0)
		fputs("no device activity: nothing to route\n", out);
	else if (!res->gpu_activity)
		fputs("no device activity; the host's time is in collectives, split on the host\n", out);
	report_print_ignored_markers(out, res);
	for (size_t i = 0; i < res->ndevices; i++) {
		ns_device_report *owned;
		const ns_device_report *m = device_model(res, &res->device[i], o, &owned, err);
		ns_status st =
		    m != NULL ? print_device_text(out, res, &res->device[i], m, o, err) : err->status;
		if (m != NULL && m->python_hint > hint)
			hint = m->python_hint;
		if (m != NULL && m->rank_alone_comm > rank_hint) {
			rank_hint = m->rank_alone_comm;
			rank_host = m->rank_alone_host;
		}
		free(owned);
		if (st != NS_OK)
			return st;
	}
	report_print_python_hint(out, hint, res, o);
	report_print_rank_alone_hint(out, rank_hint, rank_host, res,
	                             ns_report_hint_text(o->hints, NS_REPORT_HINT_EVERY_RANK));
	return NS_OK;
}

static void print_quiet(FILE *out, const ns_split_result *res, const ns_report_options *o)
{
	for (size_t i = 0; i < res->ndevices; i++) {
		ns_verdict v;
		report_route_window(&res->device[i].overall, o, &v);
		fprintf(out, "%s\n",
		        res->quality.grade == NS_QUALITY_UNFIT ? "unfit" : ns_regime_name(v.regime));
	}
}

static double us(int64_t ns)
{
	return (double)ns / 1e3;
}

static bool add_buckets(cJSON *obj, const ns_split_window *w)
{
	cJSON *b = cJSON_AddObjectToObject(obj, "buckets_us");

	if (b == NULL)
		return false;
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		if (cJSON_AddNumberToObject(b, ns_regime_name((ns_regime)r), us(w->bucket_ns[r])) == NULL)
			return false;
	return true;
}

cJSON *report_window_json_routed(const char *label, const ns_split_window *w, bool with_step,
                                 const ns_report_options *o, const ns_routes *routes)
{
	ns_verdict v;
	cJSON *obj;
	bool ok;

	report_route_window(w, o, &v);
	obj = ns_format_verdict_json(label, &v, routes);
	ok = obj != NULL;
	if (ok && with_step)
		ok = (w->step >= 0 ? cJSON_AddNumberToObject(obj, "step", (double)w->step)
		                   : cJSON_AddNullToObject(obj, "step")) != NULL;
	ok = ok && cJSON_AddNumberToObject(obj, "start_us", us(w->start_ns));
	ok = ok && cJSON_AddNumberToObject(obj, "dur_us", us(w->dur_ns));
	ok = ok && add_buckets(obj, w);
	ok = ok && cJSON_AddNumberToObject(obj, "memory_kernels_us", us(w->cause_ns[NS_CAUSE_KERNELS]));
	ok = ok && cJSON_AddNumberToObject(obj, "memory_transfer_us", us(w->cause_ns[NS_CAUSE_TRANSFER]));
	ok = ok && cJSON_AddNumberToObject(obj, "comm_overlapped_us", us(w->comm_overlapped_ns));
	ok = ok && cJSON_AddNumberToObject(obj, "kernels", (double)w->kernels);
	ok = ok &&
	     (ns_window_gpu_util(w) >= 0.0 ? cJSON_AddNumberToObject(obj, "gpu_util", ns_window_gpu_util(w))
	                                   : cJSON_AddNullToObject(obj, "gpu_util")) != NULL;
	ok = ok && report_add_causes_json(obj, w);
	ok = ok && report_add_graphs_json(obj, w);
	if (ok && with_step)
		ok = cJSON_AddBoolToObject(obj, "warmup", w->warmup) != NULL;
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

cJSON *ns_report_window_json(const char *label, const ns_split_window *w, bool with_step,
                             const ns_report_options *o)
{
	ns_routes routes;

	report_cause_routes(w, o->routes, &routes);
	return report_window_json_routed(label, w, with_step, o, &routes);
}

static bool add_kernel(cJSON *arr, const ns_split_result *res, const ns_split_kernel_time *k)
{
	cJSON *item = cJSON_CreateObject();

	if (item == NULL || !cJSON_AddItemToArray(arr, item)) {
		cJSON_Delete(item);
		return false;
	}
	return cJSON_AddStringToObject(item, "name", ns_kernel_names_get(res->names, k->name_id)) &&
	       cJSON_AddStringToObject(item, "class", ns_kernel_class_name(k->cls)) &&
	       cJSON_AddNumberToObject(item, "us", us(k->ns)) &&
	       cJSON_AddNumberToObject(item, "count", (double)k->count);
}

static cJSON *top_kernels_json(const ns_split_result *res, const ns_split_device *d, size_t top)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; arr != NULL && i < d->nkernel_time && i < top; i++) {
		if (!add_kernel(arr, res, &d->kernel_time[i])) {
			cJSON_Delete(arr);
			return NULL;
		}
	}
	return arr;
}

/* The JSON report is written as it is built, one step object at a time, so its memory does not grow with the
 * number of steps or devices (a document of a million steps held as a cJSON tree took gigabytes). Each piece
 * is written by json_out.h, whose bytes are those cJSON_PrintUnformatted gives for the whole document. */
typedef struct {
	json_out w;
	bool nomem;
	unsigned flags; /* REPORT_JSON_* */
} json_stream;

/* Writes item (consumed; NULL means it could not be built) as unformatted JSON, after prefix. False also
 * when a write failed: the report stops there (finish_output() says so). */
static bool put_json(json_stream *js, const char *prefix, cJSON *item)
{
	bool ok;

	if (item == NULL) {
		js->nomem = true;
		return false;
	}
	json_out_raw(&js->w, prefix);
	ok = json_out_item(&js->w, item);
	cJSON_Delete(item);
	js->nomem |= !ok; /* only an item cJSON could not print either: it was not made whole */
	return ok && !js->w.failed;
}

/* The tree of step i of device d, as the report's "steps" hold it: the reference report_put_step() matches.
 */
cJSON *report_step_json(const ns_split_result *res, const ns_split_device *d, size_t i, const char *label,
                        const ns_report_options *o)
{
	const ns_split_window w_copy = ns_split_device_step(d, i), *w = &w_copy;
	cJSON *obj = ns_report_window_json(label, w, true, o);

	if (obj != NULL &&
	    (!report_add_step_json(obj, res, w) ||
	     (res->passes != NULL && !report_passes_add_json(obj, res, &res->passes[i], w->dur_ns, NULL)))) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

/* Step objects are written without a tree: a report of a million steps built some 10^8 cJSON nodes, and
 * their allocation and freeing cost more than everything else in it. What follows writes the members
 * report_step_json()'s tree has, in its order, through the same helpers; tests/unit/test_trace_report.c
 * compares the two on every step of the fixture traces. The few members built elsewhere without a public
 * value (the step's marker and phase, the host passes) still go through a small tree. */
/* ,"key": for a key of this file, as the two arguments (text, length) of the put_ functions below: a literal,
 * nothing to escape, its length known at compile time. */
#define KEY(k) ",\"" k "\":", sizeof(",\"" k "\":") - 1

static void put_key(json_out *w, const char *key, size_t len)
{
	json_out_bytes(w, key, len);
}

/* A word of nextstep's own (a regime, cause or grade name: ASCII, nothing to escape), quoted; NULL as "",
 * as json_out_string() writes it. */
static void put_word(json_out *w, const char *word)
{
	json_out_char(w, '"');
	if (word != NULL)
		json_out_raw(w, word);
	json_out_char(w, '"');
}

static void put_word_or_null(json_out *w, const char *key, size_t len, const char *word)
{
	put_key(w, key, len);
	if (word != NULL)
		put_word(w, word);
	else
		json_out_bytes(w, "null", 4);
}

static void put_string_or_null(json_out *w, const char *key, size_t len, const char *value)
{
	put_key(w, key, len);
	if (value != NULL)
		json_out_string(w, value);
	else
		json_out_raw(w, "null");
}

static void put_number(json_out *w, const char *key, size_t len, double x)
{
	put_key(w, key, len);
	json_out_number(w, x);
}

/* ns_format_verdict_json()'s members. */
static void put_verdict(json_out *w, const char *label, const ns_verdict *v, const ns_routes *r)
{
	const ns_route *route = &r->route[v->regime];
	size_t n = strlen(label);
	char clean[(NS_TRACE_DEVICE_NAME_MAX + 96) * NS_UTF8_REPLACEMENT_LEN + 1];

	json_out_raw(w, "{\"regime\":");
	put_word(w, ns_regime_name(v->regime));
	put_word_or_null(w, KEY("verdict"), ns_regime_bound_word(v->regime));
	if (v->share >= 0.0)
		put_number(w, KEY("share"), v->share);
	ns_utf8_clean(label, n, clean, sizeof(clean));
	put_string_or_null(w, KEY("label"), n > 0 ? clean : NULL);
	put_string_or_null(w, KEY("module"), route->module);
	put_string_or_null(w, KEY("fix"), route->fix);
	put_string_or_null(w, KEY("next_check"), route->next_check);
	put_word_or_null(w, KEY("runner_up"), ns_regime_name(v->runner_up));
	put_number(w, KEY("runner_up_share"), v->runner_up_share);
	put_number(w, KEY("margin"), ns_format_tidy(v->margin));
	put_word_or_null(w, KEY("decided_by"), v->by_priority ? "priority" : "share");
	json_out_raw(w, ",\"findings\":[");
	for (size_t i = 0; i < v->nfindings; i++) {
		json_out_raw(w, i > 0 ? ",{\"regime\":" : "{\"regime\":");
		put_word(w, ns_regime_name(v->findings[i].regime));
		put_number(w, KEY("share"), v->findings[i].share);
		put_word_or_null(w, KEY("grade"), ns_grade_name(v->findings[i].grade));
		json_out_char(w, '}');
	}
	json_out_raw(w, "],\"split\":{");
	for (int k = 0; k < NS_REGIME_COUNT; k++) {
		if (k > 0)
			json_out_char(w, ',');
		put_word(w, ns_regime_name((ns_regime)k));
		json_out_char(w, ':');
		json_out_number(w, v->split[k]);
	}
	json_out_char(w, '}');
	put_number(w, KEY("unattributed"), ns_format_tidy(v->unattributed));
}

/* ns_report_window_json()'s own members after the verdict's, for a step, up to "warmup". */
static void put_window_numbers(json_out *w, const ns_split_window *win)
{
	put_key(w, KEY("step"));
	if (win->step >= 0)
		json_out_number(w, (double)win->step);
	else
		json_out_raw(w, "null");
	put_number(w, KEY("start_us"), us(win->start_ns));
	put_number(w, KEY("dur_us"), us(win->dur_ns));
	json_out_raw(w, ",\"buckets_us\":{");
	for (int r = 0; r < NS_REGIME_COUNT; r++) {
		if (r > 0)
			json_out_char(w, ',');
		put_word(w, ns_regime_name((ns_regime)r));
		json_out_char(w, ':');
		json_out_number(w, us(win->bucket_ns[r]));
	}
	json_out_char(w, '}');
	put_number(w, KEY("memory_kernels_us"), us(win->cause_ns[NS_CAUSE_KERNELS]));
	put_number(w, KEY("memory_transfer_us"), us(win->cause_ns[NS_CAUSE_TRANSFER]));
	put_number(w, KEY("comm_overlapped_us"), us(win->comm_overlapped_ns));
	put_number(w, KEY("kernels"), (double)win->kernels);
	if (ns_window_gpu_util(win) >= 0.0)
		put_number(w, KEY("gpu_util"), ns_window_gpu_util(win));
	else
		put_word_or_null(w, KEY("gpu_util"), NULL);
}

/* report_add_causes_json() and report_add_graphs_json(). */
static void put_causes_and_graphs(json_out *w, const ns_split_window *win)
{
	bool first = true;

	json_out_raw(w, ",\"causes\":[");
	for (int k = 0; k < NS_CAUSE_COUNT; k++) {
		if (ns_cause_job_only((ns_cause)k) && win->cause_ns[k] == 0)
			continue;
		json_out_raw(w, first ? "{\"bucket\":" : ",{\"bucket\":");
		first = false;
		put_word(w, ns_regime_name(ns_cause_bucket((ns_cause)k)));
		put_word_or_null(w, KEY("cause"), ns_cause_name((ns_cause)k));
		put_number(w, KEY("us"), (double)win->cause_ns[k] / 1e3);
		put_number(w, KEY("share"),
		           win->dur_ns > 0 ? (double)win->cause_ns[k] / (double)win->dur_ns : 0.0);
		json_out_char(w, '}');
	}
	json_out_raw(w, "],\"graphs\":{\"launches\":");
	json_out_number(w, (double)win->graph_launches);
	put_number(w, KEY("kernels"), (double)win->graph_kernels);
	put_number(w, KEY("gpu_us"), (double)win->graph_ns / 1e3);
	json_out_char(w, '}');
}

/* The members report_add_step_json() and report_passes_add_json() add: without passes written directly
 * (the step's marker and phase), with them through a small tree of their own. */
static bool put_step_extras(json_out *w, const ns_split_result *res, const ns_split_window *win,
                            const ns_split_pass_time *passes)
{
	if (passes == NULL) {
		char buf[48];
		put_string_or_null(w, KEY("marker"), ns_report_step_marker(res, win, buf, sizeof(buf)));
		put_word_or_null(w, KEY("phase"), ns_step_phase_name((ns_step_phase)win->phase));
		return true;
	}
	cJSON *tmp = cJSON_CreateObject();
	bool ok = tmp != NULL && report_add_step_json(tmp, res, win) &&
	          (passes == NULL || report_passes_add_json(tmp, res, passes, win->dur_ns, NULL));

	for (const cJSON *c = ok ? tmp->child : NULL; c != NULL && ok; c = c->next) {
		json_out_char(w, ',');
		json_out_string(w, c->string);
		json_out_char(w, ':');
		ok = json_out_item(w, c);
	}
	cJSON_Delete(tmp);
	return ok;
}

/* ns_report_window_json(label, win, true, o)'s members, without the closing brace. */
static void put_step_window(json_out *w, const char *label, const ns_split_window *win,
                            const ns_report_options *o)
{
	ns_verdict v;
	ns_routes routes;

	report_route_window(win, o, &v);
	report_cause_routes(win, o->routes, &routes);
	put_verdict(w, label, &v, &routes);
	put_window_numbers(w, win);
	put_causes_and_graphs(w, win);
	json_out_raw(w, win->warmup ? ",\"warmup\":true" : ",\"warmup\":false");
}

void report_put_window(json_out *w, const char *label, const ns_split_window *win, const ns_report_options *o)
{
	put_step_window(w, label, win, o);
	json_out_char(w, '}');
}

bool report_put_step(json_out *w, const ns_split_result *res, const ns_split_device *d, size_t i,
                     const char *label, const ns_report_options *o)
{
	const ns_split_window win_copy = ns_split_device_step(d, i), *win = &win_copy;

	put_step_window(w, label, win, o);
	if (!put_step_extras(w, res, win, res->passes != NULL ? &res->passes[i] : NULL))
		return false;
	json_out_char(w, '}');
	return true;
}

static bool put_steps(json_stream *js, const ns_split_result *res, const char *label,
                      const ns_split_device *d, const ns_report_options *o)
{
	char step_label[NS_TRACE_DEVICE_NAME_MAX + 96];

	json_out_raw(&js->w, ",\"steps\":[");
	for (size_t i = 0; i < d->nsteps; i++) {
		const ns_split_window w_copy = ns_split_device_step(d, i), *w = &w_copy;
		if (w->step >= 0)
			snprintf(step_label, sizeof(step_label), "%s step %" PRId64, label, w->step);
		else
			snprintf(step_label, sizeof(step_label), "%s", label);
		if (i > 0)
			json_out_char(&js->w, ',');
		if (!report_put_step(&js->w, res, d, i, step_label, o)) {
			js->nomem = true;
			return false;
		}
		if (js->w.failed)
			return false;
	}
	json_out_char(&js->w, ']');
	return true;
}

/* "startup": every window is warm-up; "warmup": the steps left out of overall (null when none). */
static bool put_warmup(json_stream *js, const char *label, const ns_split_device *d,
                       const ns_device_report *m, const ns_report_options *o)
{
	cJSON *wu;

	if (!put_json(js, ",\"startup\":", cJSON_CreateBool(m->startup)))
		return false;
	if (d->nwarmup == 0)
		return put_json(js, ",\"warmup\":", cJSON_CreateNull());
	wu = ns_report_window_json(label, &d->warmup, false, o);
	if (wu != NULL && !cJSON_AddNumberToObject(wu, "steps", (double)d->nwarmup)) {
		cJSON_Delete(wu);
		wu = NULL;
	}
	return put_json(js, ",\"warmup\":", wu);
}

/* The overall window, with the extras only it carries (the Python behind its host causes, the phases, the
 * next steps). */
static cJSON *overall_json(const ns_split_result *res, const ns_split_device *d, const ns_device_report *m,
                           const ns_report_options *o)
{
	cJSON *obj = report_window_json_routed(m->label, &m->routed, false, o, &m->routes), *next, *roofs;

	if (obj != NULL && (!report_python_add_json(obj, res, d) ||
	                    !report_passes_add_json(obj, res, &d->passes, d->overall.dur_ns, m) ||
	                    (next = ns_next_steps_json(&m->next, true)) == NULL ||
	                    !cJSON_AddItemToObject(obj, "next_steps", next))) {
		cJSON_Delete(obj);
		return NULL;
	}
	if (obj != NULL && !cJSON_AddItemToObject(obj, "next_step_why",
	                                          m->first_why[0] != '\0' ? cJSON_CreateString(m->first_why)
	                                                                  : cJSON_CreateNull())) {
		cJSON_Delete(obj);
		return NULL;
	}
	if (obj != NULL && !report_host_op_add_json(obj, m)) {
		cJSON_Delete(obj);
		return NULL;
	}
	if (obj != NULL && m->batch_item >= 0 && !report_batch_add_json(obj, m)) {
		cJSON_Delete(obj);
		return NULL;
	}
	/* with a placement (--roofline): what it says of the kernel buckets (issue 22 item 3) */
	if (obj != NULL && m->placed &&
	    ((roofs = ns_roof_notes_json(m)) == NULL || !cJSON_AddItemToObject(obj, "kernel_roofs", roofs))) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

static bool put_device(json_stream *js, const ns_split_result *res, const ns_split_device *d,
                       const ns_report_options *o)
{
	ns_error err;
	ns_device_report *owned;
	const ns_device_report *m = device_model(res, d, o, &owned, &err);
	ns_report_options wo;
	const char *label;
	bool ok;

	if (m == NULL) {
		js->nomem = true;
		return false;
	}
	/* the steps and warm-up are routed as the headline is: a step's host gap names the Python frames the
	 * trace recorded instead of asking to record them */
	wo = *o;
	wo.routes = &m->window_routes;
	label = m->label;
	json_out_raw(&js->w, "{\"device\":");
	ok = put_json(js, "", d->id >= 0 ? cJSON_CreateNumber((double)d->id) : cJSON_CreateNull());
	ok =
	    ok &&
	    put_json(js, ",\"name\":", d->name[0] != '\0' ? cJSON_CreateString(d->name) : cJSON_CreateNull());
	if (ok && res->has_rank)
		ok = put_json(js, ",\"rank\":", cJSON_CreateNumber((double)res->rank));
	ok = ok && put_json(js, ",\"overall\":", overall_json(res, d, m, o));
	if (js->flags & REPORT_JSON_NO_STEPS)
		json_out_raw(&js->w, ",\"steps\":[]");
	else
		ok = ok && put_steps(js, res, label, d, &wo);
	ok = ok && put_warmup(js, label, d, m, &wo);
	ok = ok && put_json(js, ",\"top_kernels\":", top_kernels_json(res, d, o->top));
	ok = ok && put_json(js, ",\"step_phases\":", report_phases_json(m, o));
	ok = ok && put_json(js, ",\"outside_steps\":", report_outside_json(d));
	ok = ok && put_json(js, ",\"shape_memory_gemms\":", report_shape_gemms_json(m));
	ok = ok && put_json(js, ",\"memory\":", ns_memory_json(&d->memory));
	if (ok)
		json_out_char(&js->w, '}');
	free(owned);
	return ok;
}

/* The input's name as the report holds it: a file name need not be UTF-8 and JSON text must be, so bytes
 * that are not become U+FFFD (the writer escapes control characters). NULL on OOM. */
static cJSON *source_json(const char *source)
{
	const char *s = source != NULL ? source : "";
	size_t n = strlen(s), cap = n * NS_UTF8_REPLACEMENT_LEN + 1;
	char *clean = malloc(cap);
	cJSON *item = NULL;

	if (clean != NULL) {
		ns_utf8_clean(s, n, clean, cap);
		item = cJSON_CreateString(clean);
	}
	free(clean);
	return item;
}

static ns_status print_json(FILE *out, const ns_split_result *res, const ns_report_options *o,
                            const char *extra_key, cJSON *extra, unsigned flags, ns_error *err)
{
	json_stream js;
	bool ok;

	json_out_init(&js.w, out);
	js.nomem = false;
	js.flags = flags;
	ok = put_json(&js, "{\"source\":", source_json(o->source));
	if (ok && res->nsys)
		ok = put_json(&js, ",\"export\":", report_export_json(res));
	ok = ok && put_json(&js, ",\"gpu_activity\":", cJSON_CreateBool(res->gpu_activity));
	ok = ok && put_json(&js, ",\"step_markers\":", cJSON_CreateNumber((double)res->step_markers));
	ok = ok && put_json(&js, ",\"duplicate_steps\":", cJSON_CreateNumber((double)res->duplicate_steps));
	ok = ok && put_json(&js, ",\"host_threads\":", cJSON_CreateNumber((double)res->host_threads));
	ok = ok && put_json(&js, ",\"host_comm\":", cJSON_CreateBool(res->host_comm));
	ok = ok &&
	     put_json(&js, ",\"step_source\":", cJSON_CreateString(ns_step_source_name(res->ns_step_source)));
	ok = ok &&
	     put_json(&js,
	              ",\"ignored_step_markers\":", cJSON_CreateNumber((double)res->ignored_step_markers));
	if (ok && (res->graph_captures > 0 || res->first_use_loads > 0))
		ok = put_json(&js, ",\"setup\":", report_setup_json(res));
	if (ok && res->ndevices == 0 && res->unknown_device_events > 0)
		ok = put_json(&js, ",\"unknown_device\":", report_unknown_device_json(res));
	if (ok)
		json_out_raw(&js.w, ",\"devices\":[");
	for (size_t i = 0; ok && i < res->ndevices; i++) {
		if (i > 0)
			json_out_char(&js.w, ',');
		ok = put_device(&js, res, &res->device[i], o);
	}
	if (ok)
		json_out_char(&js.w, ']');
	ok = ok && put_json(&js, ",\"quality\":", report_quality_json(res));
	if (ok && extra_key != NULL) {
		json_out_raw(&js.w, ",\"");
		json_out_raw(&js.w, extra_key);
		ok = put_json(&js, "\":", extra);
		extra = NULL;
	}
	cJSON_Delete(extra);
	if (flags & REPORT_JSON_OBJECT) /* inside another document: its writer ends it */
		json_out_raw(&js.w, ok ? "}" : "");
	else /* a partial line still ends; the error says it is incomplete */
		json_out_raw(&js.w, ok ? "}\n" : "\n");
	json_out_flush(&js.w);
	if (js.nomem)
		return ns_error_set(err, NS_ERR_NOMEM,
		                    "out of memory while writing the JSON report (incomplete)");
	return NS_OK;
}

/* Text and quiet output are printed step by step too; a failed write is found at the end (stdio keeps the
 * error flag). */
static ns_status finish_output(FILE *out, ns_status st, ns_error *err)
{
	if (fflush(out) != 0 || ferror(out)) {
		if (st == NS_OK)
			st = ns_error_set(err, NS_ERR_IO, "write error");
	}
	return st;
}

ns_status report_print_json_as(FILE *out, const ns_split_result *res, const ns_report_options *o,
                               unsigned flags, ns_error *err)
{
	ns_status st = print_json(out, res, o, NULL, NULL, flags, err);

	if (st == NS_OK)
		st = ns_split_result_steps_status(res, err);
	return finish_output(out, st, err);
}

ns_status ns_report_print_with(FILE *out, const ns_split_result *res, const ns_report_options *o,
                               const char *extra_key, cJSON *extra, ns_error *err)
{
	ns_status st = NS_OK;

	/* a host-only split's routes and an export's are each device's model's (ns_device_report_build) */
	switch (o->format->kind) {
	case NS_FORMAT_JSON:
		st = print_json(out, res, o, extra_key, extra, 0, err);
		extra = NULL;
		break;
	case NS_FORMAT_QUIET:
		print_quiet(out, res, o);
		break;
	case NS_FORMAT_TEXT:
		st = print_text(out, res, o, err);
		break;
	}
	cJSON_Delete(extra);
	/* a step window that could not be read back was printed zeroed: the report is wrong, not just short
	 */
	if (st == NS_OK)
		st = ns_split_result_steps_status(res, err);
	return finish_output(out, st, err);
}

ns_status ns_report_print(FILE *out, const ns_split_result *res, const ns_report_options *o, ns_error *err)
{
	return ns_report_print_with(out, res, o, NULL, NULL, err);
}
