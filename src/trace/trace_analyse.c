/* One trace analysed in one call (nextstep/analysis.h): the stages `nextstep trace` runs, in the library. */
#include "nextstep/analysis.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/devices.h"
#include "nextstep/input.h"
#include "nextstep/kernel_rules.h"
#include "nextstep/next_step.h"
#include "nextstep/trace_input.h"
#include "nextstep/trace_read.h"
#include "nextstep/trace_roofline.h"
#include "nextstep/trace_split.h"
#include "trace/read/trace_read_private.h"
#include "trace/trace_analyse_private.h"

struct ns_trace_options {
	unsigned threads;
	bool all_steps;
	bool roofline;
	bool shape_bounds;       /* the roofline only for the next steps' bounds (set_shape_bounds) */
	ns_device_table devices; /* read by ns_trace_options_set_roofline() or _set_device_table() */
	bool devices_read;
	bool roofline_read; /* by set_roofline: the roofline stays on when set_devices(NULL) drops the
	                       caller's */
	const ns_device_table *table; /* the one the roofline looks devices up in: devices, or the caller's */
	ns_troof_options roof;        /* --device, --dtype (ns_trace_options_set_roofline_as()) */
	ns_step_marker *own_marker;   /* compiled by ns_trace_options_set_step_marker() */
	const ns_step_marker *marker; /* own_marker, or the caller's */
	const ns_kernel_rules *rules; /* the caller's, or NULL: the built-in table, loaded per analysis */
	const ns_classify_options *classify; /* the caller's, or NULL: the defaults */
	const ns_routes *routes;             /* the caller's, or NULL: the built-in table, per analysis */
	const char *spill_dir;
	bool timeline;
	bool no_reports; /* decide no device reports (ns_trace_options_set_reports()) */
	ns_progress_fn progress;
	void *progress_ctx;
	const char *empty_msg; /* what a trace without events is said to be (trace_options_set_empty()) */
};

struct ns_analysis {
	ns_classify_options classify;
	ns_routes *own_routes;   /* the built-in table, when the options name none */
	const ns_routes *routes; /* own_routes, or the options' */
	ns_split_result res;
	bool roofline;
	bool roofline_unasked; /* placed only for the bounds: the report shows no roofline section */
	ns_troof_report roof;
	bool cut; /* the trace ended early: res is what was read, cut_err why */
	ns_error cut_err;
	ns_device_report *device; /* res.ndevices reports, decided once */
	bool undecided;           /* the options asked for no reports: device is NULL */
	char source[NS_INPUT_DISPLAY_MAX];
	/* With a roofline, the device table its reports quote peaks from: the caller's (it outlives the
	 * analysis), or a copy of the one the options read (they may be freed first); NULL without. */
	const ns_device_table *devices;
	ns_device_table own_devices;
};

ns_trace_options *ns_trace_options_new(void)
{
	ns_trace_options *o = calloc(1, sizeof(*o));

	if (o != NULL)
		ns_devices_init(&o->devices);
	return o;
}

void ns_trace_options_free(ns_trace_options *o)
{
	if (o == NULL)
		return;
	ns_devices_free(&o->devices);
	ns_step_marker_free(o->own_marker);
	free(o);
}

void ns_trace_options_set_threads(ns_trace_options *o, unsigned threads)
{
	o->threads = threads;
}

void ns_trace_options_set_all_steps(ns_trace_options *o, bool all)
{
	o->all_steps = all;
}

static ns_status read_devices(ns_trace_options *o, const char *devices_json, ns_error *err)
{
	ns_device_table t;

	ns_devices_init(&t);
	if (ns_devices_load_file(&t, devices_json, err) != NS_OK) {
		ns_devices_free(&t);
		return err->status;
	}
	ns_devices_free(&o->devices);
	o->devices = t;
	o->table = NULL;
	o->devices_read = true;
	return NS_OK;
}

ns_status ns_trace_options_set_roofline(ns_trace_options *o, const char *devices_json, ns_error *err)
{
	if (read_devices(o, devices_json, err) != NS_OK)
		return err->status;
	o->roofline_read = true;
	o->roofline = true;
	o->shape_bounds = false;
	return NS_OK;
}

ns_status ns_trace_options_set_device_table(ns_trace_options *o, const char *devices_json, ns_error *err)
{
	if (read_devices(o, devices_json, err) != NS_OK)
		return err->status;
	if (!o->roofline) { /* placed for the bounds when the trace has shapes, as `nextstep trace` does */
		o->roofline = true;
		o->shape_bounds = true;
	}
	return NS_OK; /* a roofline already set now places with this table */
}

ns_status ns_trace_options_set_step_marker(ns_trace_options *o, const char *regex, ns_error *err)
{
	ns_step_marker *m = NULL;

	if (regex != NULL && (m = ns_step_marker_new(regex, err)) == NULL)
		return err->status;
	ns_step_marker_free(o->own_marker);
	o->own_marker = m;
	o->marker = m;
	return NS_OK;
}

void ns_trace_options_set_progress(ns_trace_options *o, ns_progress_fn fn, void *ctx)
{
	o->progress = fn;
	o->progress_ctx = ctx;
}

void ns_trace_options_set_classify(ns_trace_options *o, const ns_classify_options *classify)
{
	o->classify = classify;
}

void ns_trace_options_set_routes(ns_trace_options *o, const ns_routes *routes)
{
	o->routes = routes;
}

void ns_trace_options_set_devices(ns_trace_options *o, const ns_device_table *devices)
{
	o->table = devices;
	o->roofline = devices != NULL || o->roofline_read;
	o->shape_bounds = false;
}

void ns_trace_options_set_roofline_as(ns_trace_options *o, const ns_troof_options *roof)
{
	if (roof == NULL) {
		memset(&o->roof, 0, sizeof(o->roof));
		ns_trace_options_set_devices(o, NULL);
		return;
	}
	o->roof = *roof;
	ns_trace_options_set_devices(o, roof->devices);
	o->roofline = true; /* a NULL table places nothing: every device unknown, as the report says */
}

void ns_trace_options_set_shape_bounds(ns_trace_options *o, const ns_device_table *devices)
{
	ns_troof_options roof = {.devices = devices};

	ns_trace_options_set_roofline_as(o, devices != NULL ? &roof : NULL);
	o->shape_bounds = devices != NULL;
}

void ns_trace_options_set_rules(ns_trace_options *o, const ns_kernel_rules *rules)
{
	o->rules = rules;
}

void ns_trace_options_set_marker(ns_trace_options *o, const ns_step_marker *marker)
{
	o->marker = marker != NULL ? marker : o->own_marker;
}

void ns_trace_options_set_spill_dir(ns_trace_options *o, const char *dir)
{
	o->spill_dir = dir;
}

void ns_trace_options_set_timeline(ns_trace_options *o, bool want)
{
	o->timeline = want;
}

void ns_trace_options_set_reports(ns_trace_options *o, bool decide)
{
	o->no_reports = !decide;
}

void trace_options_set_empty(ns_trace_options *o, const char *msg)
{
	o->empty_msg = msg;
}

void ns_analysis_free(ns_analysis *a)
{
	if (a == NULL)
		return;
	free(a->device);
	ns_split_result_free(&a->res);
	ns_troof_report_free(&a->roof);
	ns_devices_free(&a->own_devices);
	ns_routes_delete(a->own_routes);
	free(a);
}

/* The events of in, whatever its format (as ns_trace_read_input(), with the options' thread count). */
static ns_status read_events(ns_input *in, ns_trace_event_fn fn, void *ctx, ns_trace_meta *meta,
                             ns_error *err, const trace_read_knobs *knobs)
{
	if (ns_input_sniff(in) == NS_INPUT_SQLITE)
		return ns_trace_read_input(in, fn, ctx, meta, err);
	return trace_read_tuned(in, fn, ctx, meta, err, knobs);
}

/* A splitter as the options set it up; NULL when out of memory. */
static ns_trace_split *split_new(const ns_trace_options *o, const ns_kernel_rules *rules)
{
	ns_trace_split *split = ns_trace_split_new(rules);

	if (split == NULL)
		return NULL;
	if ((o->marker != NULL && !ns_trace_split_step_marker(split, o->marker)) ||
	    (o->spill_dir != NULL && !ns_trace_split_spill_dir(split, o->spill_dir))) {
		ns_trace_split_free(split);
		return NULL;
	}
	ns_trace_split_keep_warmup(split, o->all_steps);
	if (o->timeline)
		ns_trace_split_want_timeline(split, true);
	return split;
}

/* The events of in into the split and, with a roofline, the op collector: one pass, as the command line
 * does; the options' progress hook on in while it reads. */
static ns_status read_into(ns_input *in, const ns_trace_options *o, ns_trace_split *split,
                           ns_trace_roofline *roof, ns_trace_meta *meta, ns_error *err)
{
	trace_read_knobs knobs = {0, 0, o->threads, 0, NULL, NULL};
	ns_trace_roofline_tee tee = {ns_trace_split_event, split, roof};
	ns_progress_fn was = in->progress;
	void *was_ctx = in->progress_ctx;
	ns_status st;

	if (o->progress != NULL) {
		in->progress = o->progress;
		in->progress_ctx = o->progress_ctx;
	}
	st = roof != NULL ? read_events(in, ns_trace_roofline_tee_event, &tee, meta, err, &knobs)
	                  : read_events(in, ns_trace_split_event, split, meta, err, &knobs);
	in->progress = was;
	in->progress_ctx = was_ctx;
	return st;
}

/* a->roof from the collector (NULL: none was run, an export's unasked placement). Unasked (shape_bounds), a
 * trace without shapes keeps a placement that says so, and a placement of nothing else is none. */
static ns_status finish_placement(ns_analysis *a, const ns_trace_options *o, ns_trace_roofline *roof,
                                  const ns_trace_meta *meta, const ns_troof_options *ro, ns_error *err)
{
	ns_status st;

	if (o->shape_bounds && (roof == NULL || !ns_trace_roofline_saw_shapes(roof))) {
		/* nothing to place, and the bounds say why: the one thing that would place them is shapes (an
		 * export has none either, and reports as the Kineto trace it was recorded beside) */
		a->roof.no_shapes = true;
		a->roofline = a->roofline_unasked = true;
		return NS_OK;
	}
	if (ns_trace_roofline_gave_up(roof)) /* past the records budget: no bounds, --roofline's hint */
		return NS_OK;
	if ((st = ns_trace_roofline_finish(roof, meta, ro, &a->roof, err)) != NS_OK)
		return st;
	a->roofline = true;
	a->roofline_unasked = o->shape_bounds;
	if (a->roofline_unasked && a->roof.placed == 0) {
		/* unasked, a placement of nothing with shapes (a device not in the table) is no placement:
		 * the bounds stay unknown, with --roofline's hint (and --device), as without it */
		ns_troof_report_free(&a->roof);
		a->roofline = false;
	}
	return NS_OK;
}

/* The placement's finish, beside the split's: each reads only what it collected, and they write different
 * members of the analysis. */
typedef struct {
	ns_analysis *a;
	const ns_trace_options *o;
	ns_trace_roofline *roof;
	const ns_trace_meta *meta;
	const ns_troof_options *ro;
	ns_error err;
	ns_status st;
} placement_job;

static void *placement_main(void *arg)
{
	placement_job *j = arg;

	j->st = finish_placement(j->a, j->o, j->roof, j->meta, j->ro, &j->err);
	return NULL;
}

/* Fewer records than this are placed in well under a millisecond (about 2,000 instructions a record on the
 * ResNet-50 trace): not worth a thread's start. */
#define PLACE_BESIDE_RECORDS 1024
/* As the parse worker's (trace_chunk.c): glibc keeps a joined thread's stack mapped. */
#define PLACE_STACK ((size_t)1 << 20)

/* Starts j on a thread of its own when the options give the read two threads and the placement has work
 * worth one; false: the caller finishes it itself. */
static bool start_placement(placement_job *j, pthread_t *t)
{
	pthread_attr_t attr;
	bool ok;

	if (j->o->threads < 2 || j->roof == NULL || ns_trace_roofline_gave_up(j->roof) ||
	    ns_trace_roofline_records(j->roof) < PLACE_BESIDE_RECORDS || pthread_attr_init(&attr) != 0)
		return false;
	ok = pthread_attr_setstacksize(&attr, PLACE_STACK) == 0 &&
	     pthread_create(t, &attr, placement_main, j) == 0;
	pthread_attr_destroy(&attr);
	return ok;
}

/* The split's finish and the placement's: side by side on two threads where start_placement() allows, as
 * the end of a read otherwise leaves the second core idle (issue 27); one after the other on one, as before.
 * The split's error comes first either way. */
static ns_status finish_both(ns_analysis *a, const ns_trace_options *o, ns_trace_split *split,
                             ns_trace_roofline *roof, const ns_trace_meta *meta, const ns_troof_options *ro,
                             ns_error *err)
{
	placement_job j = {a, o, roof, meta, ro, {0}, NS_OK};
	bool placing = roof != NULL || o->shape_bounds;
	pthread_t t;
	bool beside = placing && start_placement(&j, &t);
	ns_status st = ns_trace_split_finish(split, meta, &a->res, err);

	if (beside)
		pthread_join(t, NULL);
	if (st != NS_OK || !placing)
		return st;
	if (!beside)
		return finish_placement(a, o, roof, meta, ro, err);
	if (j.st != NS_OK)
		*err = j.err;
	return j.st;
}

/* Reads in into a->res and, with a roofline, a->roof. A trace cut after some events is split as far as it
 * goes (its quality says truncated); a->cut_err then holds the reader's error. */
static ns_status read_split(ns_analysis *a, ns_input *in, const ns_trace_options *o,
                            const ns_kernel_rules *rules, ns_error *err)
{
	ns_trace_split *split = split_new(o, rules);
	/* an Nsight Systems export records no op shapes: nothing to place unasked, nor to tell to record */
	bool place = o->roofline && !(o->shape_bounds && ns_input_sniff(in) == NS_INPUT_SQLITE);
	ns_trace_roofline *roof = place ? ns_trace_roofline_new() : NULL;
	ns_troof_options ro = o->roof;
	ns_trace_meta meta;
	ns_status st;

	ro.devices = o->table != NULL ? o->table : &o->devices;
	memset(&meta, 0, sizeof(meta)); /* the SQLite reader fills only what an export has */
	if (split == NULL || (place && roof == NULL)) {
		st = ns_error_set(err, NS_ERR_NOMEM, "out of memory");
		goto done;
	}
	if (roof != NULL && o->shape_bounds)
		ns_trace_roofline_only_with_shapes(roof, NS_TROOF_UNASKED_RECORDS);
	st = read_into(in, o, split, roof, &meta, err);
	if (st != NS_OK && meta.truncated && meta.events > 0) { /* cut short: what was read is analysed */
		a->cut = true;
		a->cut_err = *err;
		ns_error_clear(err);
		st = NS_OK;
	}
	if (st == NS_OK && meta.events == 0)
		st = ns_error_set(err, NS_ERR_VALUE, "traceEvents is empty: %s",
		                  o->empty_msg != NULL ? o->empty_msg : "nothing to split");
	if (st == NS_OK)
		st = finish_both(a, o, split, roof, &meta, &ro, err);
done:
	ns_trace_split_free(split);
	ns_trace_roofline_free(roof);
	return st;
}

/* The table the reports quote peaks from, as the command line's report does: a roofline analysis's, or the
 * one ns_trace_options_set_device_table() read. */
static ns_status keep_devices(ns_analysis *a, const ns_trace_options *o, ns_error *err)
{
	if (!a->roofline && !o->devices_read)
		return NS_OK;
	if (a->roofline && o->table != NULL) {
		a->devices = o->table;
		return NS_OK;
	}
	if (!ns_devices_copy(&o->devices, &a->own_devices))
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	a->devices = &a->own_devices;
	return NS_OK;
}

/* The options the analysis's reports are decided and printed with (without a roofline no device table, so the
 * fp32 advice is given without the named device's peak ratio; with one, the kernels' next steps are bounded
 * by the placement); roof is their roof_ctx. */
static ns_report_options report_options(const ns_analysis *a, ns_troof_roof_ctx *roof)
{
	ns_report_options o = {.classify = &a->classify,
	                       .routes = a->routes,
	                       .source = a->source,
	                       .top = NS_REPORT_TOP_DEFAULT,
	                       .devices = a->devices,
	                       .reports = a->device};

	*roof = (ns_troof_roof_ctx){&a->roof, &a->res};
	if (a->roofline) {
		o.roof = ns_troof_roof;
		o.roof_ctx = roof;
	}
	return o;
}

/* Each device's report, decided once for the accessors and ns_analysis_print(), with the roofline's bounds on
 * the kernels' fixes when the ops were placed, as `trace --roofline` decides it. */
static ns_status decide(ns_analysis *a, ns_error *err)
{
	ns_troof_roof_ctx roof;
	ns_report_options o = report_options(a, &roof);
	ns_status st;

	if ((st = ns_report_decide(&a->res, &o, &a->device, err)) != NS_OK)
		return st;
	return ns_split_result_steps_status(&a->res, err);
}

/* in read, split and (decide, unless the options ask for no reports) decided into *out. */
static ns_status analyse(ns_input *in, const ns_trace_options *options, bool decided, ns_analysis **out,
                         ns_error *err)
{
	static const ns_trace_options defaults;
	const ns_trace_options *o = options != NULL ? options : &defaults;
	ns_analysis *a = calloc(1, sizeof(*a));
	ns_kernel_rules *own_rules = NULL;
	ns_status st;

	*out = NULL;
	if (a == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	a->undecided = !decided || o->no_reports;
	if (o->classify != NULL)
		a->classify = *o->classify;
	else
		ns_classify_options_default(&a->classify);
	a->routes = o->routes;
	if (!a->undecided && a->routes == NULL) {
		if ((a->own_routes = ns_routes_new(NULL, err)) == NULL) {
			st = err->status;
			goto done;
		}
		a->routes = a->own_routes;
	}
	if (o->rules == NULL && (st = ns_kernel_rules_default(&own_rules, err)) != NS_OK)
		goto done;
	snprintf(a->source, sizeof(a->source), "%s", ns_input_display_name(in));
	st = read_split(a, in, o, o->rules != NULL ? o->rules : own_rules, err);
	if (st == NS_OK && !a->undecided && (st = keep_devices(a, o, err)) == NS_OK)
		st = decide(a, err);
done:
	ns_kernel_rules_free(own_rules);
	if (st != NS_OK) {
		ns_analysis_free(a);
		return st;
	}
	*out = a;
	return NS_OK;
}

ns_status ns_trace_analyse_input(ns_input *in, const ns_trace_options *options, ns_analysis **out,
                                 ns_error *err)
{
	ns_error_clear(err);
	return analyse(in, options, true, out, err);
}

ns_status ns_trace_analyse(const char *path, const ns_trace_options *options, ns_analysis **out,
                           ns_error *err)
{
	ns_input in;
	ns_status st;

	*out = NULL;
	ns_error_clear(err);
	if ((st = ns_input_open(&in, path, err)) != NS_OK)
		return st;
	st = analyse(&in, options, true, out, err);
	ns_input_close(&in);
	return st;
}

ns_status trace_analyse_split_placed(const char *path, const ns_trace_options *options, ns_split_result *res,
                                     ns_troof_report *roof, bool *placed, ns_error *err)
{
	static const ns_trace_options defaults;
	ns_trace_options o = options != NULL ? *options : defaults;
	ns_analysis *a = NULL;
	ns_input in;
	ns_status st;

	memset(res, 0, sizeof(*res));
	if (placed != NULL)
		*placed = false;
	else /* the split alone (the analysis copies the device table it places with: o is a shallow copy) */
		o.roofline = false;
	if ((st = ns_input_open(&in, path, err)) != NS_OK)
		return st;
	st = analyse(&in, &o, false, &a, err);
	ns_input_close(&in);
	if (st == NS_OK && a != NULL) {
		trace_analysis_take_split(a, res);
		if (placed != NULL)
			*placed = trace_analysis_take_roofline(a, roof);
	}
	ns_analysis_free(a);
	return st;
}

ns_status trace_analyse_split(const char *path, const ns_trace_options *options, ns_split_result *res,
                              ns_error *err)
{
	return trace_analyse_split_placed(path, options, res, NULL, NULL, err);
}

bool trace_analysis_take_roofline(ns_analysis *a, ns_troof_report *roof)
{
	if (!a->roofline)
		return false;
	*roof = a->roof;
	memset(&a->roof, 0, sizeof(a->roof));
	a->roofline = false;
	return true;
}

void trace_analysis_take_split(ns_analysis *a, ns_split_result *res)
{
	*res = a->res;
	memset(&a->res, 0, sizeof(a->res));
	free(a->device); /* the reports point into the split */
	a->device = NULL;
}

static const ns_device_report *report_of(const ns_analysis *a, size_t device)
{
	return a != NULL && !a->undecided && device < a->res.ndevices ? &a->device[device] : NULL;
}

size_t ns_analysis_devices(const ns_analysis *a)
{
	return a->res.ndevices;
}

const char *ns_analysis_label(const ns_analysis *a, size_t device)
{
	const ns_device_report *r = report_of(a, device);

	return r != NULL ? r->label : NULL;
}

const ns_verdict *ns_analysis_verdict(const ns_analysis *a, size_t device)
{
	const ns_device_report *r = report_of(a, device);

	return r != NULL ? &r->verdict : NULL;
}

const ns_routes *ns_analysis_routes(const ns_analysis *a, size_t device)
{
	const ns_device_report *r = report_of(a, device);

	return r != NULL ? &r->routes : NULL;
}

bool ns_analysis_routed(const ns_analysis *a, size_t device)
{
	const ns_device_report *r = report_of(a, device);

	return r != NULL && !r->unfit && !r->startup;
}

const char *ns_analysis_next_fix(const ns_analysis *a, size_t device, double *gain_share)
{
	const ns_device_report *r = report_of(a, device);
	const ns_next_step *top = r != NULL ? ns_next_steps_top(&r->next) : NULL;

	if (top == NULL || top->route.fix == NULL)
		return NULL;
	if (gain_share != NULL)
		*gain_share = top->gain_share;
	return top->route.fix;
}

ns_status ns_analysis_print(FILE *out, const ns_analysis *a, const ns_format_options *format, ns_error *err)
{
	/* the reports decide() made, printed as they are with the options it decided them with */
	ns_troof_roof_ctx roof;
	ns_report_options o;

	if (a->undecided)
		return ns_error_set(
		    err, NS_ERR_VALUE,
		    "the analysis decided no reports to print (ns_trace_options_set_reports)");
	o = report_options(a, &roof);
	o.format = format;
	if (!a->roofline || a->roofline_unasked)
		return ns_report_print(out, &a->res, &o, err);
	return ns_troof_print_with_report(out, &a->res, &o, &a->roof, err);
}

const ns_error *ns_analysis_cut(const ns_analysis *a)
{
	return a->cut ? &a->cut_err : NULL;
}

const ns_split_result *ns_analysis_split(const ns_analysis *a)
{
	return &a->res;
}

const ns_troof_report *ns_analysis_roofline(const ns_analysis *a)
{
	return a->roofline ? &a->roof : NULL;
}

const ns_device_report *ns_analysis_device_report(const ns_analysis *a, size_t device)
{
	return report_of(a, device);
}
