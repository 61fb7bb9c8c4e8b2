/* The trace-quality verdict as the report prints it: a line before the regime when the grade is not good
 * (every problem with -v), "quality" in JSON, and how much of the GPU time ran in CUDA/HIP graph replays. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "trace/report/report_private.h"

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

/* 1049 -> "1,049": counts of kernels and replays are read at a glance. */
/* A problem's share as its detail prints it, cut (not rounded) to the digits shown: a share printed as 20% is
 * at least 20%, so the grade the thresholds give it is never below what the text suggests (docs/trace.md). */
static double shown0(double share)
{
	return floor(share * 100.0 + 1e-9);
}

static double shown1(double share)
{
	return floor(share * 1000.0 + 1e-9) / 10.0;
}

static const char *grouped(long v, char buf[32])
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%ld", v < 0 ? -v : v), o = 0;

	if (v < 0)
		buf[o++] = '-';
	for (int i = 0; i < n; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

static void no_device_detail(const ns_quality_problem *p, char *buf, size_t size)
{
	if (p->of > 0)
		snprintf(buf, size,
		         "%ld launch calls but no GPU activity recorded: the device side of the capture is "
		         "missing (CUDA activities off, or all dropped)",
		         p->of);
	else
		snprintf(buf, size, "no GPU activity and no host communication: nothing to judge");
}

static void graph_missing_detail(const ns_quality_problem *p, char *buf, size_t size)
{
	if (p->ns == 0 && p->grade == NS_QUALITY_UNFIT)
		snprintf(buf, size,
		         "none of %ld graph launches has a recorded kernel: the device looks idle while it "
		         "ran them",
		         p->of);
	else
		snprintf(buf, size,
		         "%ld of %ld graph launches have no recorded kernel: ~%.1f%% of GPU time (%.3f ms), "
		         "estimated at "
		         "the mean recorded replay's time",
		         p->count, p->of, shown1(p->share), ms(p->ns));
}

/* Of two steps neither is the typical one: the detail says how far apart they are and what the longer holds.
 * Outlying steps with too little time to move the verdict are only listed. */
/* How to capture steady state with the profiler that made the trace: torch.profiler's schedule, or for an
 * Nsight Systems capture its capture range (the program brackets the steady iterations with
 * cudaProfilerStart/Stop: torch.cuda.profiler.start/stop from Python) or a delay past start-up. */
static const char *steady_capture(const ns_split_quality *q)
{
	return q->nsys ? "nsys profile --capture-range=cudaProfilerApi with cudaProfilerStart/Stop around "
	                 "them, or --delay past start-up"
	               : "torch.profiler.schedule(wait=1, warmup=1, active=3)";
}

static void unequal_detail(const ns_split_quality *q, const ns_quality_problem *p, char *buf, size_t size)
{
	double ratio = q->step_min_ns > 0 ? (double)q->step_max_ns / (double)q->step_min_ns : 0.0;
	char what[192];

	if (p->of == 2)
		snprintf(
		    what, sizeof(what),
		    "the 2 steps differ %.0fx (%.3f and %.3f ms) and the longer holds %.0f%% of the time",
		    ratio, ms(q->step_min_ns), ms(q->step_max_ns), shown0(p->share));
	else
		snprintf(
		    what, sizeof(what),
		    "%ld of %ld steps, 10x or more longer or shorter than the median step, hold%s %.0f%% "
		    "of the time (steps %.3f to %.3f ms)",
		    p->count, p->of, p->count == 1 ? "s" : "", shown0(p->share), ms(q->step_min_ns),
		    ms(q->step_max_ns));
	if (p->grade == NS_QUALITY_GOOD)
		snprintf(buf, size, "%s: too little of the time to move the verdict", what);
	else
		snprintf(
		    buf, size,
		    "%s: a loop's steps repeat the same work, so steps this far apart are of another kind "
		    "(the first, an evaluation or checkpoint step, one cut by the capture) and the verdict "
		    "leans on them; capture several steady-state steps (%s)",
		    what, steady_capture(q));
}

void ns_report_quality_detail(const ns_split_quality *q, ns_quality_kind k, char *buf, size_t size)
{
	const ns_quality_problem *p = &q->problem[k];

	switch (k) {
	case NS_QP_TRUNCATED:
		snprintf(
		    buf, size,
		    "the file ends at byte %lld after %ld events: the capture was cut off (a "
		    "killed job, a full disk)%s",
		    q->truncated_at, p->of,
		    q->truncated_lost_activity
		        ? "; the profiler writes the host's ops before the device's activity, so GPU work "
		          "from some point on is lost and reads as host time: this is what was read, not the "
		          "run; record again and let the profiler finish writing"
		        : " after the device's activity: only closing metadata is lost");
		break;
	case NS_QP_NO_DEVICE_ACTIVITY:
		no_device_detail(p, buf, size);
		break;
	case NS_QP_LAUNCH_WITHOUT_ACTIVITY:
		snprintf(
		    buf, size,
		    "%ld of %ld launches have no GPU activity (dropped device events): ~%.1f%% of GPU time "
		    "(%.3f ms), estimated at the mean time of the kernels recorded with their launch",
		    p->count, p->of, shown1(p->share), ms(p->ns));
		break;
	case NS_QP_ACTIVITY_WITHOUT_LAUNCH:
		snprintf(buf, size,
		         "%ld of %ld GPU records have no launch call (dropped host events): %.1f%% of GPU "
		         "time; the host "
		         "time of their launches is missing from overhead",
		         p->count, p->of, shown1(p->share));
		break;
	case NS_QP_MISSING_OPS:
		snprintf(
		    buf, size,
		    "%ld holes in the External ids of %ld recorded ops and annotations leave out ~%ld ids "
		    "(%.0f%% of the ids in their range): the trace was filtered or sampled after it was "
		    "recorded, so what was dropped (ops, their launches and kernels) reads as idle or host "
		    "gap; analyse the unfiltered trace",
		    p->count, p->of, p->aux, shown0(p->share));
		break;
	case NS_QP_GRAPH_REPLAYS_MISSING:
		graph_missing_detail(p, buf, size);
		break;
	case NS_QP_GRAPH_REPLAY_MISMATCH:
		snprintf(buf, size,
		         "%ld of %ld graph replays run only part of their graph's usual kernel sequence "
		         "(typically %ld kernels): replays recorded in part",
		         p->count, p->of, p->aux);
		break;
	case NS_QP_CONCENTRATED_STEPS:
		snprintf(buf, size,
		         "90%% of the GPU time is in %ld of %ld steps: the steps' windows do not describe "
		         "what the GPU "
		         "did in them",
		         p->count, p->of);
		break;
	case NS_QP_STREAM_OVERLAP:
		snprintf(buf, size,
		         "%ld GPU records overlap the one before them on their stream (%.3f ms, %.1f%% of "
		         "GPU time): "
		         "timestamps from skewed clocks or merged captures%s",
		         p->count, ms(p->ns), shown1(p->share),
		         p->aux > 0
		             ? " (kernels launched with cuLaunchKernelEx/cudaLaunchKernelExC that overlap "
		               "their predecessor's tail are not counted: programmatic dependent launch)"
		             : "");
		break;
	case NS_QP_DUPLICATE_EVENTS:
		snprintf(buf, size,
		         "%ld of %ld GPU records appear twice: kernel counts and times per name are inflated",
		         p->count, p->of);
		break;
	case NS_QP_OUT_OF_ORDER:
		snprintf(buf, size,
		         "%ld events out of order: an E before its B or without one, or GPU work starting "
		         "before its "
		         "launch call",
		         p->count);
		break;
	case NS_QP_CUT_SHORT:
		snprintf(buf, size,
		         "%ld events cut by the capture's end: spans without their end (%ld of them steps), "
		         "launches "
		         "after the last recorded GPU work, GPU work past the profiler's span",
		         p->count, p->aux);
		break;
	case NS_QP_PROFILER_OVERHEAD:
		snprintf(buf, size,
		         "~%.0f%% of the host (overhead) time may be the profiler's own: %ld python_function "
		         "events "
		         "(with_stack) at ~0.5 us and %ld ops with shapes (record_shapes) at ~1 us each, an "
		         "estimate",
		         shown0(p->share), p->aux, p->count - p->aux);
		break;
	case NS_QP_UNEQUAL_STEPS:
		unequal_detail(q, p, buf, size);
		break;
	case NS_QP_SINGLE_STEP:
		snprintf(
		    buf, size,
		    "the verdict rests on one step: its split is exact, but one step cannot show whether "
		    "it is typical; capture 3 or more steady-state steps (%s)",
		    steady_capture(q));
		break;
	case NS_QP_LITTLE_DEVICE_WORK:
		if (q->host_span_ns <= 0) {
			snprintf(buf, size,
			         "the GPU records take no time (the busiest device ran %.3f ms of work) "
			         "and the trace records no host activity: nothing to judge; "
			         "capture steady-state steps (%s)",
			         ms(q->busy_ns), steady_capture(q));
			break;
		}
		snprintf(buf, size,
		         "the busiest device ran %.3f ms of work in the profiled process's %.3f ms of host "
		         "activity "
		         "(%.2f%%): below the floor of 1 ms and 1%% a verdict needs, the split describes a "
		         "fragment "
		         "(one kernel, a warm-up call), not the job; capture steady-state steps (%s)",
		         ms(q->busy_ns), ms(q->host_span_ns), shown1(p->share * 10.0) / 10.0,
		         steady_capture(q));
		break;
	case NS_QP_ATYPICAL_WAIT:
		snprintf(
		    buf, size,
		    "%ld of %ld steps (%.0f%% of the time) are mostly the host blocked in a synchronize or "
		    "copy while the device runs nothing: a wait on something outside this device (another "
		    "device, a peer, an event), one atypical step the verdict leans on; capture several "
		    "steps",
		    p->count, p->of, shown0(p->share));
		break;
	case NS_QP_QUEUED_BEFORE_CAPTURE:
		snprintf(
		    buf, size,
		    "%ld GPU records were launched before the profiler started (correlation ids below the "
		    "first "
		    "recorded launch's): the device ran %.3f ms behind the host when the capture began; they "
		    "are counted where they ran, and the trace is not the worse for them",
		    p->count, ms(q->queued_lag_ns > 0 ? q->queued_lag_ns : 0));
		break;
	case NS_QP_COUNT:
		buf[0] = '\0';
		break;
	}
}

void report_print_quality(FILE *out, const ns_split_result *res, bool verbose)
{
	const ns_split_quality *q = &res->quality;
	char detail[512];

	if (q->grade == NS_QUALITY_GOOD && !verbose)
		return;
	/* a trace with nothing on any device already says so in place of the verdict */
	if (res->ndevices == 0 && q->problem[NS_QP_NO_DEVICE_ACTIVITY].count > 0 &&
	    q->problem[NS_QP_NO_DEVICE_ACTIVITY].of == 0)
		return;
	if (q->grade == NS_QUALITY_GOOD) {
		bool any = false;
		for (int k = 0; k < NS_QP_COUNT; k++)
			any = any || (q->problem[k].count > 0 && k != NS_QP_PROFILER_OVERHEAD);
		if (!any)
			return;
	}
	fprintf(out, "trace quality: %s%s\n", ns_quality_grade_name(q->grade),
	        q->grade == NS_QUALITY_UNFIT      ? ", no verdict"
	        : q->grade == NS_QUALITY_DEGRADED ? ", low confidence in the verdict"
	                                          : "");
	for (int k = 0; k < NS_QP_COUNT; k++) {
		const ns_quality_problem *p = &q->problem[k];
		/* the profiler's own cost matters only where it lands in the verdict's bucket */
		if (p->count == 0 ||
		    (p->grade == NS_QUALITY_GOOD && (!verbose || k == NS_QP_PROFILER_OVERHEAD)))
			continue;
		ns_report_quality_detail(q, (ns_quality_kind)k, detail, sizeof(detail));
		fprintf(out, "  %s: %s\n", ns_quality_kind_name((ns_quality_kind)k), detail);
	}
}

/* "graphs: 97% of GPU time in 40 replays (1,049 kernels)", over every window of the device. */
void report_print_graphs(FILE *out, const ns_split_device *d)
{
	long launches = (long)d->overall.graph_launches + (long)d->warmup.graph_launches;
	long kernels = (long)d->overall.graph_kernels + (long)d->warmup.graph_kernels;
	int64_t ns = d->overall.graph_ns + d->warmup.graph_ns, total = 0;
	char a[32], b[32];

	if (launches == 0)
		return;
	for (int c = 0; c < NS_KCLASS_COUNT; c++)
		total += d->class_ns[c];
	fprintf(out, "  graphs: %.0f%% of GPU time in %s replay%s (%s kernels)\n",
	        pct((double)ns, (double)total), grouped(launches, a), launches == 1 ? "" : "s",
	        grouped(kernels, b));
}

bool report_add_graphs_json(cJSON *obj, const ns_split_window *w)
{
	cJSON *g = cJSON_AddObjectToObject(obj, "graphs");

	return g != NULL && cJSON_AddNumberToObject(g, "launches", (double)w->graph_launches) &&
	       cJSON_AddNumberToObject(g, "kernels", (double)w->graph_kernels) &&
	       cJSON_AddNumberToObject(g, "gpu_us", (double)w->graph_ns / 1e3);
}

static bool add_problem(cJSON *arr, const ns_split_quality *q, ns_quality_kind k)
{
	const ns_quality_problem *p = &q->problem[k];
	cJSON *item = cJSON_CreateObject();
	char detail[512];

	if (item == NULL || !cJSON_AddItemToArray(arr, item)) {
		cJSON_Delete(item);
		return false;
	}
	ns_report_quality_detail(q, k, detail, sizeof(detail));
	return cJSON_AddStringToObject(item, "kind", ns_quality_kind_name(k)) &&
	       cJSON_AddNumberToObject(item, "count", (double)p->count) &&
	       cJSON_AddStringToObject(item, "grade", ns_quality_grade_name(p->grade)) &&
	       cJSON_AddNumberToObject(item, "share", p->share) &&
	       cJSON_AddStringToObject(item, "detail", detail);
}

cJSON *report_quality_json(const ns_split_result *res)
{
	const ns_split_quality *q = &res->quality;
	cJSON *obj = cJSON_CreateObject(), *arr;
	bool ok = obj != NULL && cJSON_AddStringToObject(obj, "grade", ns_quality_grade_name(q->grade));

	arr = ok ? cJSON_AddArrayToObject(obj, "problems") : NULL;
	ok = arr != NULL;
	for (int k = 0; ok && k < NS_QP_COUNT; k++)
		if (q->problem[k].count > 0)
			ok = add_problem(arr, q, (ns_quality_kind)k);
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}
