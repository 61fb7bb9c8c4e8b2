/* The Python behind host time, as the report prints it: the frames behind each host cause (-v text, and
 * "python" on the overall window's host causes in JSON), or, without python_function events, one hint to
 * record them when host time matters. */
#include <inttypes.h>
#include <string.h>

#include "trace/report/report_private.h"
#include "util/text.h"

static const ns_cause host_causes[] = {NS_CAUSE_LAUNCH, NS_CAUSE_HOST_THREADS, NS_CAUSE_SYNC,
                                       NS_CAUSE_HOST_GAP, NS_CAUSE_OPTIMIZER};
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

void report_print_python(FILE *out, const ns_split_result *res, const ns_split_device *d)
{
	const ns_split_window *w = &d->overall;
	bool any = false;

	if (res->python_frames == 0)
		return;
	for (size_t i = 0; i < NHOST; i++) {
		ns_cause c = host_causes[i];
		const ns_split_python_cause *p = &d->python[c];
		char key[64];
		if (w->cause_ns[c] <= 0)
			continue;
		if (!any) /* an Nsight Systems export's frames are its CPU samples and OS calls (docs/nsys.md)
		           */
			fputs(
			    !res->nsys ? "python behind host time (self time of the innermost frame, device "
			                 "idle):\n"
			    : res->program.samples_read
			        ? "sampled code behind host time (each CPU sample's innermost function, for "
			          "the time to its thread's next sample; OS runtime calls where traced; "
			          "device idle):\n"
			        : "OS runtime calls behind host time (self time of the innermost call, "
			          "device idle):\n",
			    out);
		any = true;
		ns_cause_key(c, key, sizeof(key));
		fprintf(out, "  %s %.3f ms, %.0f%% of it inside %s\n", key, (double)w->cause_ns[c] / 1e6,
		        pct(p->framed_ns, w->cause_ns[c]),
		        !res->nsys                  ? "recorded Python"
		        : res->program.samples_read ? "sampled or traced code"
		                                    : "traced OS runtime calls");
		for (size_t k = 0; k < p->ntop; k++) {
			fprintf(out, "    %5.1f%% %10.3f ms  ", pct(p->top[k].ns, w->cause_ns[c]),
			        (double)p->top[k].ns / 1e6);
			/* names come from the trace: control characters are escaped */
			ns_fput_text(out, ns_kernel_names_get(res->python_names, p->top[k].name_id));
			fputc('\n', out);
		}
	}
	if (res->python_dropped > 0)
		fprintf(out, "  note: %zu python frames not kept (over the limit of %u)\n",
		        res->python_dropped, (unsigned)NS_SPLIT_PYTHON_MAX_FRAMES);
}

double report_host_cause_share(const ns_split_window *w)
{
	int64_t t = 0;

	for (size_t i = 0; i < NHOST; i++)
		t += w->cause_ns[host_causes[i]];
	return w->dur_ns > 0 ? (double)t / (double)w->dur_ns : 0.0;
}

/* Once per trace, when host time is a device's verdict and host causes hold a high share of it (the device
 * report decides where the hint applies: not start-up, not an unfit trace, not where the profiler's own cost
 * already degrades the verdict). */
void report_print_python_hint(FILE *out, double most, const ns_split_result *res, const ns_report_options *o)
{
	const char *detail = ns_report_hint_text(o->hints, NS_REPORT_HINT_PYTHON_DETAIL);

	if (most <= 0.0 || most < o->classify->high)
		return;
	if (res->nsys) { /* what the export shows decides what to record (report_export.c) */
		char words[NS_REPORT_FIX_MAX];
		ns_report_export_hint(res, words, sizeof(words));
		fprintf(out, "hint: host-side causes hold %.0f%% of the time and %s%s%s\n", most * 100.0,
		        words, detail != NULL ? " " : "", detail != NULL ? detail : "");
		return;
	}
	fprintf(
	    out,
	    "hint: host-side causes hold %.0f%% of the time and the trace has no Python frames: record with "
	    "torch.profiler.profile(with_stack=True) to see the Python behind them%s%s\n",
	    most * 100.0, detail != NULL ? " " : "", detail != NULL ? detail : "");
}

static cJSON *frames_json(const ns_split_result *res, const ns_split_python_cause *p)
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
		                             ns_kernel_names_get(res->python_names, p->top[k].name_id)) ||
		    !cJSON_AddNumberToObject(item, "us", (double)p->top[k].ns / 1e3)) {
			cJSON_Delete(arr);
			return NULL;
		}
	}
	return arr;
}

/* The JSON key of a host cause's frames: an export's are its sampled code (OS calls too, where traced) or its
 * OS calls. */
static const char *frames_key(const ns_split_result *res)
{
	return !res->nsys ? "python" : res->program.samples_read ? "cpu_samples" : "os_runtime";
}

bool report_python_add_json(cJSON *window, const ns_split_result *res, const ns_split_device *d)
{
	cJSON *causes = cJSON_GetObjectItemCaseSensitive(window, "causes"), *item;
	int k = 0;

	if (res->python_frames == 0 || causes == NULL)
		return true;
	cJSON_ArrayForEach(item, causes)
	{
		/* report_add_causes_json writes one entry per cause, in cause order */
		if (k < NS_CAUSE_COUNT && is_host_cause((ns_cause)k)) {
			cJSON *arr = frames_json(res, &d->python[k]);
			if (arr == NULL || !cJSON_AddItemToObject(item, frames_key(res), arr)) {
				cJSON_Delete(arr);
				return false;
			}
		}
		k++;
	}
	return true;
}

/* ---- the routes the Python frames and torch.compile decide (report_python_route) ---- */

/* A host cause whose time is at least this share inside recorded Python frames is explained by them; below
 * it, most of the gap is outside every frame (native code, I/O), and the frames are not what to act on. */
#define PY_FRAMED_MAJORITY 0.5
/* Frames named in a fix, at most. */
#define PY_FIX_FRAMES 3

/* Frames of CPU data preparation: image, video, audio and text preprocessing libraries, and the usual names
 * of the functions that decode inputs. Time in them on the step thread is input pipeline work done inline
 * (docs/trace.md, "The Python behind host time"). Substrings of the frame's name ("file.py(line): function").
 */
static const char *const preprocess_marks[] = {
    "torchvision/transforms",
    "torchvision/io",
    "image_transforms",
    "image_processing",
    "video_processing",
    "feature_extraction",
    "tokenization",
    "PIL/",
    "cv2",
    "decord",
    "/av/",
    "torchaudio",
    "librosa",
    "albumentations",
    "collate",
    "__getitem__",
    ": read_video",
    ": read_image",
    ": decode_image",
    ": decode_video",
    ": load_image",
    ": load_video",
    NULL,
};

static bool is_preprocess_frame(const char *name)
{
	for (const char *const *m = preprocess_marks; *m != NULL; m++)
		if (strstr(name, *m) != NULL)
			return true;
	return false;
}

/* "normalize" from "transformers/image_transforms.py(384): normalize": the function, or the whole name. */
static const char *frame_function(const char *name)
{
	const char *at = strstr(name, "): ");

	return at != NULL && at[3] != '\0' ? at + 3 : name;
}

/* "normalize 105 ms, rescale 33 ms, read_video 33 ms" into buf; whether preprocessing frames hold at least
 * half of the named frames' time. */
static bool name_frames(const ns_evidence_python *p, char *buf, size_t size)
{
	int64_t all = 0, prep = 0;
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < p->nframes && k < PY_FIX_FRAMES; k++) {
		const char *name = p->frame[k].name;
		char clean[96];
		int n;
		ns_text_escape(frame_function(name), strlen(frame_function(name)), clean, sizeof(clean));
		double t = (double)p->frame[k].ns / 1e6;
		n = snprintf(buf + used, size - used, "%s%s %.*f ms", k > 0 ? ", " : "", clean,
		             t >= 10.0  ? 0
		             : t >= 1.0 ? 1
		                        : 3,
		             t);
		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
		all += p->frame[k].ns;
		prep += is_preprocess_frame(name) ? p->frame[k].ns : 0;
	}
	return all > 0 && 2 * prep >= all;
}

/* route's fix with "{frames}" replaced by what, into buf. */
static void fill_route(const ns_route *route, const char *what, ns_route *out, char *buf, size_t size)
{
	const char *at = route->fix != NULL ? strstr(route->fix, "{frames}") : NULL;

	*out = *route;
	if (at == NULL)
		return;
	snprintf(buf, size, "%.*s%s%s", (int)(at - route->fix), route->fix, what, at + strlen("{frames}"));
	out->fix = buf;
}

/* The python finding that fits host cause c of window w (a device's whole run), or NS_FINDING_COUNT when
 * the frames do not speak for it. what receives the frames (or the framed share). */
static ns_finding_kind python_finding(const ns_route_evidence *ev, const ns_split_window *w, ns_cause c,
                                      char *what, size_t size)
{
	const ns_evidence_python *p =
	    &ev->python[c == NS_CAUSE_HOST_GAP ? NS_EVIDENCE_HOST_GAP : NS_EVIDENCE_LAUNCH];
	int64_t t = w->cause_ns[c];
	bool prep;

	if (!ev->python_frames || t <= 0)
		return NS_FINDING_COUNT;
	if ((double)p->framed_ns < PY_FRAMED_MAJORITY * (double)t) {
		if (c != NS_CAUSE_HOST_GAP || ev->nsys) /* an export's untraced gap: report_export.c */
			return NS_FINDING_COUNT;        /* an op's own time: the cause's route stands */
		snprintf(what, size, "%.0f%%", pct(p->framed_ns, t));
		return NS_FINDING_PYTHON_NATIVE;
	}
	prep = name_frames(p, what, size);
	if (ev->nsys) /* an export's frames are sampled code or OS calls, whatever the program */
		return c != NS_CAUSE_HOST_GAP     ? NS_FINDING_COUNT
		       : ev->program.samples_read ? NS_FINDING_HOST_SAMPLED
		                                  : NS_FINDING_HOST_OS_CALLS;
	if (prep)
		return NS_FINDING_PYTHON_PREPROCESS;
	if (c != NS_CAUSE_HOST_GAP)
		return NS_FINDING_COUNT; /* the step thread's ops: their own route says what to do */
	return ev->compiled ? NS_FINDING_PYTHON_COMPILED : NS_FINDING_PYTHON_BETWEEN_OPS;
}

bool report_python_route(const ns_route_evidence *ev, const ns_split_window *w, ns_cause c,
                         const ns_routes *in, ns_route *out, char *buf, size_t size)
{
	char what[256];
	ns_finding_kind f = python_finding(ev, w, c, what, sizeof(what));

	if (f == NS_FINDING_COUNT && c == NS_CAUSE_LAUNCH && ev->compiled)
		f = NS_FINDING_LAUNCH_COMPILED;
	if (f == NS_FINDING_COUNT || in->finding[f].fix == NULL)
		return false;
	fill_route(&in->finding[f], what, out, buf, size);
	return true;
}
