/* Printing the roofline, scaling and device-table results; the verdict keys and styles are the router's
 * (format.h), so one script and one eye read every mode the same way. */
#include "nextstep/roofline_report.h"

#include <math.h>
#include <string.h>

#include "nextstep/units.h"
#include "util/text.h"

#define POSITION_BAR     41 /* characters in the -v position bar; the ridge is the middle one */
#define POSITION_DECADES 3. /* the bar spans this many decades each side of the ridge */

static void print_label(FILE *out, const char *label)
{
	if (label != NULL && label[0] != '\0') {
		ns_fput_text(out, label); /* control characters escaped, as in every text line */
		fputs(": ", out);
	}
}

static bool add_number(cJSON *obj, const char *key, double v)
{
	return cJSON_AddNumberToObject(obj, key, v) != NULL;
}

static bool add_text(cJSON *obj, const char *key, const char *v)
{
	return (v != NULL ? cJSON_AddStringToObject(obj, key, v) : cJSON_AddNullToObject(obj, key)) != NULL;
}

static ns_status print_json(FILE *out, cJSON *obj, ns_error *err)
{
	ns_status st;

	if (obj == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	st = ns_format_print_json(out, obj);
	cJSON_Delete(obj);
	return st == NS_ERR_NOMEM ? ns_error_set(err, st, "out of memory") : NS_OK;
}

/* ---- roofline ---- */

static void print_roofline_line(FILE *out, const ns_roofline_placement *p, const ns_routes *routes,
                                const ns_format_options *o)
{
	const ns_route *route = &routes->route[p->roof.regime];
	char ai[32], ridge[32];

	print_label(out, p->label);
	fprintf(out, "%s%s%s (AI %s FLOP/B, ridge %s FLOP/B", ns_format_style(o, NS_FORMAT_STYLE_VERDICT),
	        ns_regime_bound_word(p->roof.regime), ns_format_style(o, NS_FORMAT_STYLE_RESET),
	        ns_units_format_plain(p->roof.intensity, ai, sizeof(ai)),
	        ns_units_format_plain(p->roof.ridge, ridge, sizeof(ridge)));
	if (p->roof.timed) {
		fputs(", ", out);
		ns_format_percent(out, p->roof.fraction_of_roof);
		fputs(" of roof", out);
	}
	fprintf(out, ") -> %s (%s)\n", route->fix, route->module);
}

/* Below the ridge a decode step is its weight (and KV-cache) reads: of the memory-bound fixes only fewer
 * bytes per step help, not fusion (each weight is already read once); a larger batch raises the intensity. */
static void print_decode_line(FILE *out, const ns_roofline_placement *p)
{
	double b = p->decode.crossing_batch, now = p->decode_spec.batch;

	if (b <= 0.0)
		fprintf(
		    out,
		    "decode: no batch reaches the ridge: the KV-cache reads grow with the batch as fast "
		    "as the FLOPs; a shorter context, fewer KV heads or a smaller KV-cache dtype cut them\n");
	else if (now >= b)
		fprintf(out, "decode: batch %.0f is past the ridge (it is crossed at batch %.0f)\n", now, b);
	else
		fprintf(
		    out,
		    "decode: batch %.0f would cross the ridge (now batch %.0f); until then the step is its "
		    "weight reads: a larger batch or a smaller weight dtype helps, fusion does not\n",
		    b, now);
}

/* A log-scale bar: the ridge in the middle, POSITION_DECADES decades each side. */
static void print_position_bar(FILE *out, const ns_roofline_placement *p)
{
	double ratio = p->roof.intensity / p->roof.ridge;
	int half = POSITION_BAR / 2;
	int at = half + (int)lround(log10(ratio) / POSITION_DECADES * half);
	char bar[POSITION_BAR + 1];
	char times[32];

	memset(bar, '-', POSITION_BAR);
	bar[POSITION_BAR] = '\0';
	bar[half] = '|';
	if (at < 0)
		bar[0] = '<';
	else if (at >= POSITION_BAR)
		bar[POSITION_BAR - 1] = '>';
	else
		bar[at] = '*';
	fprintf(out, "position: memory [%s] compute\n", bar);
	if (ratio >= 1.0)
		fprintf(out, "          AI is %sx the ridge ('|'; log scale, %g decades each side)\n",
		        ns_units_format_plain(ratio, times, sizeof(times)), POSITION_DECADES);
	else
		fprintf(out, "          AI is %sx below the ridge ('|'; log scale, %g decades each side)\n",
		        ns_units_format_plain(1.0 / ratio, times, sizeof(times)), POSITION_DECADES);
}

static void print_achieved(FILE *out, const ns_roofline_placement *p)
{
	char b1[48], b2[48], b3[48];

	fprintf(out, "achieved: %s and %s in %s: ",
	        ns_units_format_si(p->roof.achieved_flops, "FLOP/s", b1, sizeof(b1)),
	        ns_units_format_si(p->roof.achieved_bytes_per_s, "B/s", b2, sizeof(b2)),
	        ns_units_format_time(p->seconds, b3, sizeof(b3)));
	ns_format_percent(out, p->roof.fraction_of_roof);
	fputs(" of the roof (compute ", out);
	ns_format_percent(out, p->roof.fraction_compute);
	fputs(", memory ", out);
	ns_format_percent(out, p->roof.fraction_memory);
	fputs("); overhead-bound below ", out);
	ns_format_percent(out, p->overhead_threshold);
	fputs(" of both\n", out);
}

static void print_roofline_explain(FILE *out, const ns_roofline_placement *p, const ns_routes *routes)
{
	char b1[48], b2[48], b3[48];
	const ns_device *d = p->dev;

	fprintf(out, "workload: %s\n", p->description);
	fprintf(out, "  FLOPs  %s\n  bytes  %s\n  counts %s\n  assumes %s\n",
	        ns_units_format_si(p->work.flops, "FLOP", b1, sizeof(b1)),
	        ns_units_format_si(p->work.bytes, "B", b2, sizeof(b2)), p->work.formula, p->assumption);
	if (p->is_decode)
		fprintf(out, "  weights %s, KV cache %s\n",
		        ns_units_format_si(p->decode.weight_bytes, "B", b1, sizeof(b1)),
		        ns_units_format_si(p->decode.kv_bytes, "B", b2, sizeof(b2)));
	fprintf(out, "device: %s %s: peak %s (dense), memory %s, ridge %s FLOP/B\n", d->name,
	        ns_dtype_name(p->dtype), ns_units_format_si(d->peak[p->dtype], "FLOP/s", b1, sizeof(b1)),
	        ns_units_format_si(d->mem_bw, "B/s", b2, sizeof(b2)),
	        ns_units_format_plain(p->roof.ridge, b3, sizeof(b3)));
	fprintf(out, "roof: attainable %s at AI %s FLOP/B (the %s roof)\n",
	        ns_units_format_si(p->roof.attainable, "FLOP/s", b1, sizeof(b1)),
	        ns_units_format_plain(p->roof.intensity, b2, sizeof(b2)),
	        p->roof.intensity >= p->roof.ridge ? "compute" : "memory");
	if (p->roof.timed)
		print_achieved(out, p);
	print_position_bar(out, p);
	if (routes->route[p->roof.regime].next_check != NULL)
		fprintf(out, "next check: %s\n", routes->route[p->roof.regime].next_check);
	if (routes->route[p->roof.regime].doc != NULL)
		fprintf(out, "fix explained: %s\n", routes->route[p->roof.regime].doc);
}

void ns_roofline_report_text(FILE *out, const ns_roofline_placement *p, const ns_routes *routes,
                             const ns_format_options *o)
{
	print_roofline_line(out, p, routes, o);
	if (p->is_decode)
		print_decode_line(out, p);
	if (o->verbose)
		print_roofline_explain(out, p, routes);
}

static bool add_decode_json(cJSON *obj, const ns_roofline_placement *p)
{
	cJSON *dec = cJSON_AddObjectToObject(obj, "decode");
	bool ok = dec != NULL;

	ok = ok && add_number(dec, "params", p->decode_spec.params);
	ok = ok && add_number(dec, "batch", p->decode_spec.batch);
	ok = ok && add_number(dec, "weight_bytes", p->decode.weight_bytes);
	ok = ok && add_number(dec, "kv_bytes", p->decode.kv_bytes);
	ok = ok &&
	     (p->decode.crossing_batch > 0.0 ? add_number(dec, "crossing_batch", p->decode.crossing_batch)
	                                     : cJSON_AddNullToObject(dec, "crossing_batch") != NULL);
	return ok;
}

static bool add_timed_json(cJSON *obj, const ns_roofline_placement *p)
{
	bool ok = add_number(obj, "time_s", p->seconds);

	ok = ok && add_number(obj, "achieved_flops", p->roof.achieved_flops);
	ok = ok && add_number(obj, "achieved_bytes_per_s", p->roof.achieved_bytes_per_s);
	ok = ok && add_number(obj, "fraction_of_roof", p->roof.fraction_of_roof);
	ok = ok && add_number(obj, "fraction_of_compute_roof", p->roof.fraction_compute);
	ok = ok && add_number(obj, "fraction_of_memory_roof", p->roof.fraction_memory);
	ok = ok && add_number(obj, "overhead_threshold", p->overhead_threshold);
	ok = ok && cJSON_AddBoolToObject(obj, "above_roof", p->roof.above_roof) != NULL;
	return ok;
}

cJSON *ns_roofline_report_json(const ns_roofline_placement *p, const ns_routes *routes)
{
	ns_regime g = p->roof.regime;
	cJSON *obj = ns_format_route_json(p->label, ns_regime_name(g), ns_regime_bound_word(g), -1.0,
	                                  &routes->route[g]);
	bool ok = obj != NULL;

	ok = ok && add_text(obj, "device", p->dev->name);
	ok = ok && add_text(obj, "dtype", ns_dtype_name(p->dtype));
	ok = ok && add_text(obj, "workload", p->description);
	ok = ok && add_text(obj, "formula", p->work.formula);
	ok = ok && add_number(obj, "flops", p->work.flops);
	ok = ok && add_number(obj, "bytes", p->work.bytes);
	ok = ok && add_number(obj, "intensity", p->roof.intensity);
	ok = ok && add_number(obj, "ridge", p->roof.ridge);
	ok = ok && add_number(obj, "peak_flops", p->dev->peak[p->dtype]);
	ok = ok && add_number(obj, "peak_bytes_per_s", p->dev->mem_bw);
	ok = ok && add_number(obj, "attainable_flops", p->roof.attainable);
	ok = ok && add_text(obj, "roof", p->roof.intensity >= p->roof.ridge ? "compute" : "memory");
	if (p->roof.timed)
		ok = ok && add_timed_json(obj, p);
	if (p->is_decode)
		ok = ok && add_decode_json(obj, p);
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

ns_status ns_roofline_report_print(FILE *out, const ns_roofline_placement *p, const ns_routes *routes,
                                   const ns_format_options *o, ns_error *err)
{
	switch (o->kind) {
	case NS_FORMAT_QUIET:
		fprintf(out, "%s\n", ns_regime_name(p->roof.regime));
		return NS_OK;
	case NS_FORMAT_JSON:
		return print_json(out, ns_roofline_report_json(p, routes), err);
	case NS_FORMAT_TEXT:
		ns_roofline_report_text(out, p, routes, o);
		return NS_OK;
	}
	return NS_OK;
}

/* ---- scaling ---- */

static void print_scaling_line(FILE *out, const ns_scaling_report *s, const ns_routes *routes,
                               const ns_format_options *o)
{
	const ns_route *route = &routes->route[NS_REGIME_OVERHEAD];

	print_label(out, s->label);
	fprintf(out, "%s%s%s (2x work -> %.2fx time, ~", ns_format_style(o, NS_FORMAT_STYLE_VERDICT),
	        ns_scaling_kind_word(s->res.kind), ns_format_style(o, NS_FORMAT_STYLE_RESET), s->res.ratio);
	ns_format_percent(out, s->res.fixed_share);
	if (s->res.kind == NS_SCALING_WORK)
		fprintf(out, " fixed cost): not overhead; %s tells compute-bound from memory-bound\n",
		        s->roofline_words != NULL ? s->roofline_words : "a roofline placement");
	else
		fprintf(out, " fixed cost) -> %s (%s)\n", route->fix, route->module);
}

static void print_scaling_explain(FILE *out, const ns_scaling_report *s, const ns_routes *routes)
{
	char b1[32], b2[32], b3[32], b4[32];
	double fixed = fmax(0.0, 2.0 * s->t1 - s->t2), work = fmax(0.0, s->t2 - s->t1);

	fprintf(out, "model: time = fixed + work; T1 = %s, T2 (2x work) = %s\n",
	        ns_units_format_time(s->t1, b1, sizeof(b1)), ns_units_format_time(s->t2, b2, sizeof(b2)));
	if (fixed > 0.0 && work > 0.0)
		fprintf(out, "  fixed = 2*T1 - T2 = %s, work = T2 - T1 = %s\n",
		        ns_units_format_time(fixed, b3, sizeof(b3)),
		        ns_units_format_time(work, b4, sizeof(b4)));
	fprintf(out, "thresholds: overhead-bound below %.2fx, work-bound from %.2fx\n", s->overhead_below,
	        s->work_above);
	if (s->res.kind != NS_SCALING_WORK && routes->route[NS_REGIME_OVERHEAD].next_check != NULL)
		fprintf(out, "next check: %s\n", routes->route[NS_REGIME_OVERHEAD].next_check);
	if (s->res.kind != NS_SCALING_WORK && routes->route[NS_REGIME_OVERHEAD].doc != NULL)
		fprintf(out, "fix explained: %s\n", routes->route[NS_REGIME_OVERHEAD].doc);
}

static cJSON *scaling_json(const ns_scaling_report *s, const ns_routes *routes)
{
	bool overhead = s->res.kind != NS_SCALING_WORK;
	cJSON *obj = ns_format_route_json(s->label, overhead ? ns_regime_name(NS_REGIME_OVERHEAD) : NULL,
	                                  ns_scaling_kind_word(s->res.kind), -1.0,
	                                  overhead ? &routes->route[NS_REGIME_OVERHEAD] : NULL);
	bool ok = obj != NULL;

	ok = ok && add_number(obj, "time_s", s->t1);
	ok = ok && add_number(obj, "time_2x_s", s->t2);
	ok = ok && add_number(obj, "ratio", ns_format_tidy(s->res.ratio));
	ok = ok && add_number(obj, "fixed_share", ns_format_tidy(s->res.fixed_share));
	ok = ok && add_number(obj, "overhead_below", s->overhead_below);
	ok = ok && add_number(obj, "work_above", s->work_above);
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

ns_status ns_scaling_report_print(FILE *out, const ns_scaling_report *s, const ns_routes *routes,
                                  const ns_format_options *o, ns_error *err)
{
	switch (o->kind) {
	case NS_FORMAT_QUIET:
		fprintf(out, "%s\n",
		        s->res.kind == NS_SCALING_WORK ? "work" : ns_regime_name(NS_REGIME_OVERHEAD));
		return NS_OK;
	case NS_FORMAT_JSON:
		return print_json(out, scaling_json(s, routes), err);
	case NS_FORMAT_TEXT:
		print_scaling_line(out, s, routes, o);
		if (o->verbose)
			print_scaling_explain(out, s, routes);
		return NS_OK;
	}
	return NS_OK;
}

/* ---- devices ---- */

/* Datasheet figures as printed there: 989.5 stays 989.5, 312 stays 312. */
static void print_peak_cell(FILE *out, double peak)
{
	double t = peak / 1e12;

	if (peak <= 0.0)
		fprintf(out, " %7s", "-");
	else if (fabs(t - round(t)) < 1e-9)
		fprintf(out, " %7.0f", t);
	else
		fprintf(out, " %7.1f", t);
}

static void print_device_row(FILE *out, const ns_device *d)
{
	fprintf(out, "%-15s %-6s %6.0f %7.0f", d->name, d->vendor ? d->vendor : "-", d->mem_bytes / 1e9,
	        d->mem_bw / 1e9);
	if (d->sms > 0) /* 0: not published */
		fprintf(out, " %5d", d->sms);
	else
		fprintf(out, " %5s", "-");
	for (int i = 0; i < NS_DTYPE_COUNT; i++)
		print_peak_cell(out, d->peak[i]);
	fputc('\n', out);
}

static void print_device_details(FILE *out, const ns_device *d)
{
	char ridge[32];

	fputs("  aliases:", out);
	for (size_t i = 0; i < d->naliases; i++)
		fprintf(out, "%s %s", i ? "," : "", d->aliases[i]);
	fputs("\n  ridge (FLOP/B):", out);
	for (int i = 0; i < NS_DTYPE_COUNT; i++)
		if (d->peak[i] > 0.0)
			fprintf(out, " %s %s", ns_dtype_name((ns_dtype)i),
			        ns_units_format_plain(ns_device_ridge(d, (ns_dtype)i), ridge, sizeof(ridge)));
	fprintf(out, "\n  source: %s\n", d->source ? d->source : "-");
	if (d->notes != NULL)
		fprintf(out, "  notes: %s\n", d->notes);
}

static void print_devices_text(FILE *out, const ns_device_table *t, const ns_device *only, bool verbose)
{
	fprintf(out, "%-15s %-6s %6s %7s %5s", "DEVICE", "VENDOR", "MEM GB", "BW GB/s", "SMs");
	for (int i = 0; i < NS_DTYPE_COUNT; i++) {
		char head[16];
		snprintf(head, sizeof(head), "%s", ns_dtype_name((ns_dtype)i));
		for (char *c = head; *c; c++)
			*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
		fprintf(out, " %7s", head);
	}
	fputc('\n', out);
	for (size_t i = 0; i < t->n; i++) {
		if (only != NULL && &t->dev[i] != only)
			continue;
		print_device_row(out, &t->dev[i]);
		if (verbose || only != NULL)
			print_device_details(out, &t->dev[i]);
	}
	fputs("peaks: dense TFLOP/s (INT8: TOPS), no 2:4 sparsity; '-': not on the datasheet. SMs: CUs on "
	      "AMD.\n",
	      out);
}

static bool add_device_lists(cJSON *obj, const ns_device *d)
{
	cJSON *peaks, *ridges, *aliases;
	bool ok = (aliases = cJSON_AddArrayToObject(obj, "aliases")) != NULL;

	for (size_t i = 0; ok && i < d->naliases; i++)
		ok = cJSON_AddItemToArray(aliases, cJSON_CreateString(d->aliases[i]));
	ok = ok && (peaks = cJSON_AddObjectToObject(obj, "peak_tflops")) != NULL;
	ok = ok && (ridges = cJSON_AddObjectToObject(obj, "ridge")) != NULL;
	for (int i = 0; ok && i < NS_DTYPE_COUNT; i++)
		if (d->peak[i] > 0.0)
			ok = add_number(peaks, ns_dtype_name((ns_dtype)i), d->peak[i] / 1e12) &&
			     add_number(ridges, ns_dtype_name((ns_dtype)i), ns_device_ridge(d, (ns_dtype)i));
	return ok;
}

static cJSON *device_json(const ns_device *d)
{
	cJSON *obj = cJSON_CreateObject();
	bool ok = obj != NULL;

	ok = ok && add_text(obj, "name", d->name);
	ok = ok && add_text(obj, "vendor", d->vendor);
	ok = ok && add_device_lists(obj, d);
	ok = ok && add_number(obj, "memory_bandwidth_gbs", d->mem_bw / 1e9);
	ok = ok && (d->mem_bytes > 0.0 ? add_number(obj, "memory_gb", d->mem_bytes / 1e9)
	                               : cJSON_AddNullToObject(obj, "memory_gb") != NULL);
	ok = ok && (d->sms > 0 ? add_number(obj, "sms", d->sms) : cJSON_AddNullToObject(obj, "sms") != NULL);
	ok = ok && add_text(obj, "source", d->source);
	ok = ok && add_text(obj, "notes", d->notes);
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

static cJSON *devices_json(const ns_device_table *t, const ns_device *only)
{
	cJSON *obj = cJSON_CreateObject(), *list = NULL;
	bool ok = obj != NULL && (list = cJSON_AddArrayToObject(obj, "devices")) != NULL;

	for (size_t i = 0; ok && i < t->n; i++) {
		cJSON *one;
		if (only != NULL && &t->dev[i] != only)
			continue;
		ok = (one = device_json(&t->dev[i])) != NULL && cJSON_AddItemToArray(list, one);
	}
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

ns_status ns_devices_report_print(FILE *out, const ns_device_table *t, const ns_device *only,
                                  const ns_format_options *o, ns_error *err)
{
	if (o->kind == NS_FORMAT_JSON)
		return print_json(out, devices_json(t, only), err);
	print_devices_text(out, t, only, o->verbose);
	return NS_OK;
}
