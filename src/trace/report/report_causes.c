/* The causes inside the buckets, as the report prints them: which fix the headline names, the -v breakdown,
 * the high findings under the verdict, and the warm-up notes. */
#include <inttypes.h>
#include <string.h>

#include "trace/report/report_private.h"
#include "util/satmath.h"
#include "util/text.h"

/* What each cause means, in a few words for the text report. */
static const char *const cause_gloss[NS_CAUSE_COUNT] = {
    [NS_CAUSE_LAUNCH] = "ops and launches on the step thread",
    [NS_CAUSE_HOST_THREADS] = "ops on the process's other threads",
    [NS_CAUSE_SYNC] = "host blocked on the device",
    [NS_CAUSE_INIT] = "allocation, context and stream set-up",
    [NS_CAUSE_HOST_GAP] = "nothing recorded on host or device",
    [NS_CAUSE_SYNC_WAIT] = "the host blocked, this device running nothing",
    [NS_CAUSE_OPTIMIZER] = "the optimizer's step on the host, no op recorded",
    [NS_CAUSE_TRANSFER] = "copies and sets",
    [NS_CAUSE_KERNELS] = "bandwidth-bound kernels",
    [NS_CAUSE_EXPOSED] = "collectives on the device, not hidden",
    [NS_CAUSE_HOST_COMM] = "collectives on the host: gloo",
    [NS_CAUSE_WAIT] = "waiting for the last rank to start the collective",
    [NS_CAUSE_COMM_TRANSFER] = "collectives running with every rank in them",
};

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

bool report_dominant_cause(const ns_split_window *w, ns_regime b, ns_cause *c)
{
	int64_t total = w->bucket_ns[b];

	if (total <= 0)
		return false;
	for (int k = 0; k < NS_CAUSE_COUNT; k++) {
		if (ns_cause_bucket((ns_cause)k) == b &&
		    (double)w->cause_ns[k] >= CAUSE_MAJORITY * (double)total) {
			*c = (ns_cause)k;
			return true;
		}
	}
	return false;
}

void report_cause_routes(const ns_split_window *w, const ns_routes *in, ns_routes *out)
{
	*out = *in;
	for (int b = 0; b < NS_REGIME_COUNT; b++) {
		ns_cause c;
		if (report_dominant_cause(w, (ns_regime)b, &c) && in->cause[c].fix != NULL)
			out->route[b] = in->cause[c];
	}
	/* decode's memory kernels are its weight and KV-cache reads (docs/trace.md, "Inference"); copies keep
	 * their own route */
	if (w->phase == NS_STEP_PHASE_DECODE &&
	    w->cause_ns[NS_CAUSE_KERNELS] >= w->cause_ns[NS_CAUSE_TRANSFER] &&
	    in->finding[NS_FINDING_DECODE_MEMORY].fix != NULL)
		out->route[NS_REGIME_MEMORY] = in->finding[NS_FINDING_DECODE_MEMORY];
}

void report_host_only_routes(const ns_routes *in, ns_routes *out)
{
	*out = *in;
	for (int c = 0; c < NS_CAUSE_COUNT; c++)
		if (in->host_only[ns_cause_bucket((ns_cause)c)].fix != NULL)
			memset(&out->cause[c], 0,
			       sizeof(out->cause[c])); /* the bucket's host-only route decides */
	for (int b = 0; b < NS_REGIME_COUNT; b++)
		if (in->host_only[b].fix != NULL)
			out->route[b] = in->host_only[b];
}

const ns_route *report_startup_route_of(int64_t capture_ns, int64_t init_ns, const ns_routes *r)
{
	if (capture_ns > 0 && (double)capture_ns >= CAUSE_MAJORITY * (double)init_ns &&
	    r->finding[NS_FINDING_GRAPH_CAPTURE].fix != NULL)
		return &r->finding[NS_FINDING_GRAPH_CAPTURE];
	return r->cause[NS_CAUSE_INIT].fix != NULL ? &r->cause[NS_CAUSE_INIT] : &r->route[NS_REGIME_OVERHEAD];
}

const ns_route *report_startup_route(const ns_split_result *res, const ns_split_device *d, const ns_routes *r)
{
	return report_startup_route_of(res->capture_ns, d->overall.cause_ns[NS_CAUSE_INIT], r);
}

/* An Nsight Systems export records only the calls it traced: host time outside them is untraced, not
 * "nothing", and its host collectives are MPI's, not gloo's (docs/nsys.md). */
static const char *gloss_of(ns_cause c, const ns_split_result *res)
{
	if (res->nsys && c == NS_CAUSE_HOST_GAP)
		return res->program.samples_read
		           ? "no call traced on host or device; -v names the sampled code"
		       : res->program.cpu_samples
		           ? "no call traced on host or device; the export's CPU samples are not read"
		           : "no call traced on host or device";
	if (res->nsys && c == NS_CAUSE_HOST_COMM && res->program.mpi)
		return "MPI calls on the host";
	return cause_gloss[c];
}

void report_print_top_cause(FILE *out, const ns_split_result *res, const ns_split_window *w,
                            ns_regime verdict)
{
	ns_cause c;

	if (report_dominant_cause(w, verdict, &c))
		fprintf(out, "  %s is mostly %s: %.0f%% of it (%s)\n", ns_regime_name(verdict),
		        ns_cause_name(c), pct(w->cause_ns[c], w->bucket_ns[verdict]), gloss_of(c, res));
}

void ns_report_host_op_words(const ns_report_host_op *h, char *buf, size_t size)
{
	snprintf(buf, size,
	         "%s: %.0f%% of it (%.1f calls a step of %.3f ms host time each, %.1f launch calls a call)",
	         h->op, 100.0 * h->launch_share, h->calls, (double)h->host_ns / 1e6, h->launches);
}

void report_print_host_op(FILE *out, const ns_device_report *m)
{
	char words[NS_NEXT_OP_MAX + 128];

	if (!m->host_op.found)
		return;
	ns_report_host_op_words(&m->host_op, words, sizeof(words));
	fprintf(out, "  launch is mostly one host op, %s\n", words);
}

bool report_host_op_add_json(cJSON *overall, const ns_device_report *m)
{
	const ns_report_host_op *h = &m->host_op;
	cJSON *o;
	char words[NS_NEXT_OP_MAX + 128];

	if (!h->found)
		return true;
	ns_report_host_op_words(h, words, sizeof(words));
	o = cJSON_AddObjectToObject(overall, "host_op");
	return o != NULL && cJSON_AddStringToObject(o, "op", h->op) != NULL &&
	       cJSON_AddStringToObject(o, "finding", h->finding) != NULL &&
	       cJSON_AddNumberToObject(o, "us", (double)h->idle_ns / 1e3) != NULL &&
	       cJSON_AddNumberToObject(o, "launch_share", h->launch_share) != NULL &&
	       cJSON_AddNumberToObject(o, "calls", h->calls) != NULL &&
	       cJSON_AddNumberToObject(o, "host_us_per_call", (double)h->host_ns / 1e3) != NULL &&
	       cJSON_AddNumberToObject(o, "launches_per_call", h->launches) != NULL &&
	       cJSON_AddStringToObject(o, "text", words) != NULL;
}

void report_print_causes(FILE *out, const ns_split_window *w)
{
	bool any = false;

	for (int b = 0; b < NS_REGIME_COUNT; b++) {
		const char *sep = NULL;
		if (w->bucket_ns[b] <= 0)
			continue;
		for (int k = 0; k < NS_CAUSE_COUNT; k++) {
			if ((int)ns_cause_bucket((ns_cause)k) != b || w->cause_ns[k] <= 0)
				continue;
			if (!any)
				fputs("causes (share of the window):\n", out);
			any = true;
			if (sep == NULL)
				fprintf(out, "  %-10s ", ns_regime_name((ns_regime)b));
			fprintf(out, "%s%s %.1f%%", sep != NULL ? sep : "", ns_cause_name((ns_cause)k),
			        pct(w->cause_ns[k], w->dur_ns));
			sep = ", ";
		}
		if (sep != NULL)
			fputc('\n', out);
	}
}

void report_print_also(FILE *out, const ns_device_report *m)
{
	const ns_routes *r = &m->routes;

	for (size_t i = 0; i < m->nalso; i++) {
		const ns_finding *f = &m->also[i];
		fprintf(out, "also: %s %.0f%% (high) -> %s (%s)\n", ns_regime_name(f->regime),
		        f->share * 100.0, r->route[f->regime].fix, r->route[f->regime].module);
	}
}

void report_print_batch(FILE *out, const ns_device_report *m)
{
	char title[160];

	fprintf(out, "  a larger batch (%s's fix): %s\n", /* report_batch_add_json: the same words */
	        ns_next_step_title(&m->next.item[m->batch_item], title, sizeof(title)), m->batch_words);
}

bool report_batch_add_json(cJSON *overall, const ns_device_report *m)
{
	const ns_next_step *s = &m->next.item[m->batch_item];
	cJSON *b = cJSON_AddObjectToObject(overall, "batch_headroom");
	char title[160], line[320];

	snprintf(line, sizeof(line), "a larger batch (%s's fix): %s",
	         ns_next_step_title(s, title, sizeof(title)), m->batch_words);
	return b != NULL && cJSON_AddStringToObject(b, "title", title) != NULL &&
	       cJSON_AddNumberToObject(b, "batch_scale", s->batch_scale) != NULL &&
	       cJSON_AddStringToObject(b, "text", line) != NULL;
}

const char *ns_report_hint_text(const char *const *hints, ns_report_hint h)
{
	return hints != NULL && (int)h >= 0 && h < NS_REPORT_HINT_COUNT ? hints[h] : NULL;
}

void report_print_notes(FILE *out, const ns_split_result *res, const ns_split_device *d,
                        const char *const *hints)
{
	const char *include = ns_report_hint_text(hints, d->nwarmup == 1 ? NS_REPORT_HINT_WARMUP_ONE
	                                                                 : NS_REPORT_HINT_WARMUP_SEVERAL);

	if (res->duplicate_steps > 0)
		fprintf(
		    out,
		    "  note: %zu ProfilerStep# marker%s share a start time with another; the longest of each "
		    "is the step\n",
		    res->duplicate_steps, res->duplicate_steps == 1 ? "" : "s");
	if (res->unnumbered_steps > 0)
		fprintf(out,
		        "  note: %zu ProfilerStep# marker%s no step number after the '#' (digits only): %s "
		        "step number%s unknown (null in JSON)\n",
		        res->unnumbered_steps, res->unnumbered_steps == 1 ? " has" : "s have",
		        res->unnumbered_steps == 1 ? "its" : "their",
		        res->unnumbered_steps == 1 ? " is" : "s are");
	if (d == &res->device[0] && (res->graph_captures > 0 || res->first_use_loads > 0))
		report_print_setup(out, res);
	if (d->nwarmup > 0)
		fprintf(out, "  warm-up: %zu step%s (%.3f ms, %.0f%% set-up) left out of the verdict%s%s\n",
		        d->nwarmup, d->nwarmup == 1 ? "" : "s", (double)d->warmup.dur_ns / 1e6,
		        pct(d->warmup.cause_ns[NS_CAUSE_INIT], d->warmup.dur_ns), include != NULL ? "; " : "",
		        include != NULL ? include : "");
}

double report_rank_alone_comm(const ns_split_window *w, double high)
{
	int64_t t = ns_sat_add_i64(w->cause_ns[NS_CAUSE_EXPOSED], w->cause_ns[NS_CAUSE_HOST_COMM]);
	double share = w->dur_ns > 0 ? (double)t / (double)w->dur_ns : 0.0;

	return share >= high && share > 0.0 ? share : 0.0;
}

/* every_rank: the caller's words for giving the whole job (NS_REPORT_HINT_EVERY_RANK), or NULL. */
void report_print_rank_alone_hint(FILE *out, double share, bool host, const ns_split_result *res,
                                  const char *every_rank)
{
	if (share <= 0.0)
		return;
	fprintf(out,
	        "hint: exposed communication holds %.0f%% of the time and this is rank %" PRId64
	        " of %" PRId64 " alone: a collective's time on one rank holds its wait for the last rank to "
	        "join, which one rank's trace cannot tell from transfer",
	        share * 100.0, res->rank, res->world_size);
	if (every_rank != NULL)
		fprintf(out, ": %s to %s", every_rank,
		        host ? "compare the ranks' step times and name a straggler"
		             : "split the two and name a straggler");
	fputc('\n', out);
}

void report_print_setup(FILE *out, const ns_split_result *res)
{
	const char *sep = "";

	fputs("  set-up:", out);
	if (res->graph_captures > 0) {
		fprintf(
		    out, " %zu CUDA/HIP graph capture%s (%.3f ms) recording %ld launch%s, run only at replay",
		    res->graph_captures, res->graph_captures == 1 ? "" : "s", (double)res->capture_ns / 1e6,
		    res->captured_launches, res->captured_launches == 1 ? "" : "es");
		sep = ";";
	}
	if (res->first_use_loads > 0)
		fprintf(out,
		        "%s %zu first-use load%s inside a kernel launch call (%.3f ms: module loading, JIT, "
		        "library set-up)",
		        sep, res->first_use_loads, res->first_use_loads == 1 ? "" : "s",
		        (double)res->first_use_ns / 1e6);
	fputc('\n', out);
}

cJSON *report_setup_json(const ns_split_result *res)
{
	cJSON *obj = cJSON_CreateObject();

	if (obj == NULL || !cJSON_AddNumberToObject(obj, "graph_captures", (double)res->graph_captures) ||
	    !cJSON_AddNumberToObject(obj, "capture_us", (double)res->capture_ns / 1e3) ||
	    !cJSON_AddNumberToObject(obj, "captured_launches", (double)res->captured_launches) ||
	    !cJSON_AddNumberToObject(obj, "first_use_loads", (double)res->first_use_loads) ||
	    !cJSON_AddNumberToObject(obj, "first_use_us", (double)res->first_use_ns / 1e3)) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

bool report_add_causes_json(cJSON *obj, const ns_split_window *w)
{
	cJSON *arr = cJSON_AddArrayToObject(obj, "causes");

	if (arr == NULL)
		return false;
	for (int k = 0; k < NS_CAUSE_COUNT; k++) {
		cJSON *item;
		if (ns_cause_job_only((ns_cause)k) && w->cause_ns[k] == 0)
			continue;
		item = cJSON_CreateObject();
		if (item == NULL || !cJSON_AddItemToArray(arr, item)) {
			cJSON_Delete(item);
			return false;
		}
		if (!cJSON_AddStringToObject(item, "bucket", ns_regime_name(ns_cause_bucket((ns_cause)k))) ||
		    !cJSON_AddStringToObject(item, "cause", ns_cause_name((ns_cause)k)) ||
		    !cJSON_AddNumberToObject(item, "us", (double)w->cause_ns[k] / 1e3) ||
		    !cJSON_AddNumberToObject(
		        item, "share", w->dur_ns > 0 ? (double)w->cause_ns[k] / (double)w->dur_ns : 0.0))
			return false;
	}
	return true;
}

void report_print_unknown_device(FILE *out, const ns_split_result *res)
{
	fputs("device events of a kind nextstep cannot analyse (category \"", out);
	ns_fput_text(out, res->unknown_device_cat); /* from the trace: control characters escaped */
	fprintf(out, "\", %ld event%s): no verdict\n", res->unknown_device_events,
	        res->unknown_device_events == 1 ? "" : "s");
}

cJSON *report_unknown_device_json(const ns_split_result *res)
{
	cJSON *obj = cJSON_CreateObject();

	if (obj == NULL || !cJSON_AddStringToObject(obj, "category", res->unknown_device_cat) ||
	    !cJSON_AddNumberToObject(obj, "events", (double)res->unknown_device_events)) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}
