/* The Python behind host time, as the report prints it: the frames behind each host cause (-v text, and
 * "python" on the overall window's host causes in JSON), or, without python_function events, one hint to
 * record them when host time matters. */
#include <inttypes.h>
#include <string.h>

#include "report_private.h"
#include "util/text.h"

static const ns_cause host_causes[] = {CAUSE_LAUNCH, CAUSE_HOST_THREADS, CAUSE_SYNC, CAUSE_HOST_GAP,
                                       CAUSE_OPTIMIZER};
#define NHOST (sizeof(host_causes) / sizeof(host_causes[0]))

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

static bool is_host_cause(ns_cause c)
{
	for (size_t i = 0; i < NHOST; i++)
		if (host_causes[i] == c)
			return true;
	return false;
}

void report_print_python(FILE *out, const split_result *res, const split_device *d)
{
	const split_window *w = &d->overall;
	bool any = false;

	if (res->python_frames == 0)
		return;
	for (size_t i = 0; i < NHOST; i++) {
		ns_cause c = host_causes[i];
		const split_python_cause *p = &d->python[c];
		char key[64];
		if (w->cause_ns[c] <= 0)
			continue;
		if (!any)
			fputs("python behind host time (self time of the innermost frame, device idle):\n",
			      out);
		any = true;
		cause_key(c, key, sizeof(key));
		fprintf(out, "  %s %.3f ms, %.0f%% of it inside recorded Python\n", key,
		        (double)w->cause_ns[c] / 1e6, pct(p->framed_ns, w->cause_ns[c]));
		for (size_t k = 0; k < p->ntop; k++) {
			fprintf(out, "    %5.1f%% %10.3f ms  ", pct(p->top[k].ns, w->cause_ns[c]),
			        (double)p->top[k].ns / 1e6);
			/* names come from the trace: control characters are escaped */
			ns_fput_text(out, kernel_names_get(res->python_names, p->top[k].name_id));
			fputc('\n', out);
		}
	}
	if (res->python_dropped > 0)
		fprintf(out, "  note: %zu python frames not kept (over the limit of %u)\n",
		        res->python_dropped, (unsigned)SPLIT_PYTHON_MAX_FRAMES);
}

double report_host_cause_share(const split_window *w)
{
	int64_t t = 0;

	for (size_t i = 0; i < NHOST; i++)
		t += w->cause_ns[host_causes[i]];
	return w->dur_ns > 0 ? (double)t / (double)w->dur_ns : 0.0;
}

/* Once per trace, when host time is a device's verdict and host causes hold a high share of it (the device
 * report decides where the hint applies: not start-up, not an unfit trace, not where the profiler's own cost
 * already degrades the verdict). */
void report_print_python_hint(FILE *out, double most, bool nsys, const report_options *o)
{
	const char *detail = report_hint_text(o->hints, REPORT_HINT_PYTHON_DETAIL);

	if (most <= 0.0 || most < o->classify->high)
		return;
	if (nsys) { /* nsys samples Python only on request, and nextstep does not read those samples */
		fprintf(
		    out,
		    "hint: host-side causes hold %.0f%% of the time and an Nsight Systems export holds no "
		    "Python "
		    "frames nextstep reads: sample the step thread with py-spy (py-spy record --native), or "
		    "capture the same steps with torch.profiler.profile(with_stack=True)%s%s\n",
		    most * 100.0, detail != NULL ? " " : "", detail != NULL ? detail : "");
		return;
	}
	fprintf(
	    out,
	    "hint: host-side causes hold %.0f%% of the time and the trace has no Python frames: record with "
	    "torch.profiler.profile(with_stack=True) to see the Python behind them%s%s\n",
	    most * 100.0, detail != NULL ? " " : "", detail != NULL ? detail : "");
}

static cJSON *frames_json(const split_result *res, const split_python_cause *p)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t k = 0; arr != NULL && k < p->ntop; k++) {
		cJSON *item = cJSON_CreateObject();
		if (item == NULL || !cJSON_AddItemToArray(arr, item)) {
			cJSON_Delete(item);
			cJSON_Delete(arr);
			return NULL;
		}
		if (!cJSON_AddStringToObject(item, "frame",
		                             kernel_names_get(res->python_names, p->top[k].name_id)) ||
		    !cJSON_AddNumberToObject(item, "us", (double)p->top[k].ns / 1e3)) {
			cJSON_Delete(arr);
			return NULL;
		}
	}
	return arr;
}

bool report_python_add_json(cJSON *window, const split_result *res, const split_device *d)
{
	cJSON *causes = cJSON_GetObjectItemCaseSensitive(window, "causes"), *item;
	int k = 0;

	if (res->python_frames == 0 || causes == NULL)
		return true;
	cJSON_ArrayForEach(item, causes)
	{
		/* report_add_causes_json writes one entry per cause, in cause order */
		if (k < CAUSE_COUNT && is_host_cause((ns_cause)k)) {
			cJSON *arr = frames_json(res, &d->python[k]);
			if (arr == NULL || !cJSON_AddItemToObject(item, "python", arr)) {
				cJSON_Delete(arr);
				return false;
			}
		}
		k++;
	}
	return true;
}

/* What an Nsight Systems export does not hold that a Kineto trace may: said, so nothing is guessed. */
void report_print_export(FILE *out, const split_result *res)
{
	fprintf(out, "export: Nsight Systems%s%s%s: no Python frames, collectives without names or sizes; ",
	        res->nsys_schema[0] != '\0' ? " (schema " : "", res->nsys_schema,
	        res->nsys_schema[0] != '\0' ? ")" : "");
	if (res->nsys_ops > 0)
		fprintf(out,
		        "ops from %ld NVTX ranges named like code (aten::..., Class::method: docs/nsys.md)\n",
		        res->nsys_ops);
	else
		fputs("no ops (PyTorch writes them as NVTX ranges under torch.autograd.profiler.emit_nvtx)\n",
		      out);
}

cJSON *report_export_json(const split_result *res)
{
	cJSON *o = cJSON_CreateObject();

	if (o == NULL)
		return NULL;
	cJSON_AddStringToObject(o, "format", "nsys");
	if (res->nsys_schema[0] != '\0')
		cJSON_AddStringToObject(o, "schema", res->nsys_schema);
	else
		cJSON_AddNullToObject(o, "schema");
	cJSON_AddNumberToObject(o, "ops", (double)res->nsys_ops);
	cJSON_AddBoolToObject(o, "python_frames", false);
	cJSON_AddBoolToObject(o, "collective_metadata", false);
	return o;
}
