/* One side of a diff from a report document (`nextstep trace --format json`): an untrusted-input loader.
 * Every value is checked for type and range before use, every array against a named limit, and an error
 * names the JSON path of the offending value. Unknown keys are ignored, because newer reports add fields. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "diff_private.h"
#include "util/text.h"

/* A JSON path being walked: "devices[2].steps[14].buckets_us". */
typedef struct {
	char text[160];
} json_path;

/* Appends to a path; one too deep for the buffer is cut, and still locates the value's start. */
static void path_append(json_path *p, const char *text)
{
	size_t used = strlen(p->text);
	size_t room = sizeof(p->text) - used; /* at least 1: the text ends with its NUL inside the buffer */
	size_t n = strnlen(text, room - 1);

	memcpy(p->text + used, text, n);
	p->text[used + n] = '\0';
}

static void path_child(json_path *out, const json_path *parent, const char *key)
{
	*out = *parent;
	if (out->text[0] != '\0')
		path_append(out, ".");
	path_append(out, key);
}

static void path_index(json_path *out, const json_path *parent, const char *key, size_t i)
{
	char index[32];

	path_child(out, parent, key);
	snprintf(index, sizeof(index), "[%zu]", i);
	path_append(out, index);
}

static ns_status path_error(ns_error *err, ns_status st, const json_path *p, const char *key, const char *fmt,
                            ...) __attribute__((format(printf, 5, 6)));

static ns_status path_error(ns_error *err, ns_status st, const json_path *p, const char *key, const char *fmt,
                            ...)
{
	char why[256];
	json_path at;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (key != NULL)
		path_child(&at, p, key);
	else
		at = *p;
	return ns_error_set(err, st, "%s: %s", at.text[0] != '\0' ? at.text : "the document", why);
}

/* A required time in µs: a finite number in [0, NS_DIFF_US_MAX]. */
static ns_status get_us(const cJSON *obj, const char *key, const json_path *p, double *out, ns_error *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (v == NULL)
		return path_error(err, NS_ERR_KEY, p, key, "missing");
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
	    v->valuedouble > NS_DIFF_US_MAX)
		return path_error(err, NS_ERR_VALUE, p, key, "must be a number of microseconds from 0 to %g",
		                  NS_DIFF_US_MAX);
	*out = v->valuedouble;
	return NS_OK;
}

static const cJSON *get_typed(const cJSON *obj, const char *key, int (*is)(const cJSON *), const char *what,
                              const json_path *p, ns_error *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (v == NULL)
		path_error(err, NS_ERR_KEY, p, key, "missing");
	else if (!is(v))
		path_error(err, NS_ERR_VALUE, p, key, "must be %s", what);
	else
		return v;
	return NULL;
}

static int is_object(const cJSON *v)
{
	return cJSON_IsObject(v);
}

static int is_array(const cJSON *v)
{
	return cJSON_IsArray(v);
}

/* The six buckets, all required; they may not add up to more than the window. */
static ns_status get_buckets(const cJSON *win, const json_path *p, double dur_us, double out[NS_REGIME_COUNT],
                             ns_error *err)
{
	const cJSON *b = get_typed(win, "buckets_us", is_object, "an object", p, err);
	json_path bp;
	double sum = 0;

	if (b == NULL)
		return err->status;
	path_child(&bp, p, "buckets_us");
	for (int r = 0; r < NS_REGIME_COUNT; r++) {
		ns_status st = get_us(b, ns_regime_name((ns_regime)r), &bp, &out[r], err);
		if (st != NS_OK)
			return st;
		sum += out[r];
	}
	/* The report prints each time exactly (whole ns, µs with three decimals): only the doubles' sum may
	 * round above the window. An absolute slack let buckets of a window of a few ns add up to 300 %. */
	if (sum > dur_us * (1 + 1e-9) + 1e-9)
		return path_error(err, NS_ERR_VALUE, &bp, NULL,
		                  "buckets add up to %.3f us, more than dur_us %.3f", sum, dur_us);
	return NS_OK;
}

static ns_status get_cause(const cJSON *c, const json_path *p, ns_diff_cause *out, ns_error *err)
{
	const cJSON *bucket = get_typed(c, "bucket", cJSON_IsString, "a bucket name", p, err);
	const cJSON *cause =
	    bucket != NULL ? get_typed(c, "cause", cJSON_IsString, "a string", p, err) : NULL;

	if (cause == NULL)
		return err->status;
	if (!ns_regime_from_name(bucket->valuestring, &out->bucket))
		return path_error(err, NS_ERR_VALUE, p, "bucket", "unknown bucket \"%.40s\"",
		                  bucket->valuestring);
	if (cause->valuestring[0] == '\0' || strlen(cause->valuestring) >= NS_DIFF_CAUSE_MAX)
		return path_error(err, NS_ERR_LIMIT, p, "cause", "must be 1 to %d bytes",
		                  NS_DIFF_CAUSE_MAX - 1);
	memcpy(out->cause, cause->valuestring, strlen(cause->valuestring) + 1);
	return get_us(c, "us", p, &out->us, err);
}

/* causes[] of the whole-run window, when the report has them (issue 10's cause split). */
static ns_status get_causes(const cJSON *win, const json_path *p, ns_diff_side *s, ns_error *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(win, "causes"), *c;
	json_path cp;
	size_t n, i = 0;

	if (arr == NULL || cJSON_IsNull(arr))
		return NS_OK;
	if (!cJSON_IsArray(arr))
		return path_error(err, NS_ERR_VALUE, p, "causes", "must be an array");
	n = (size_t)cJSON_GetArraySize(arr);
	if (n > NS_DIFF_MAX_CAUSES)
		return path_error(err, NS_ERR_LIMIT, p, "causes", "more than %d causes", NS_DIFF_MAX_CAUSES);
	if (n == 0)
		return NS_OK;
	s->causes = calloc(n, sizeof(*s->causes));
	if (s->causes == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(c, arr)
	{
		path_index(&cp, p, "causes", i);
		if (!cJSON_IsObject(c))
			return path_error(err, NS_ERR_VALUE, &cp, NULL, "must be an object");
		if (get_cause(c, &cp, &s->causes[i], err) != NS_OK)
			return err->status;
		s->ncauses = ++i;
	}
	return NS_OK;
}

/* One next step: its bucket, cause and title, and gain_us (null: an unknown bound, kept as unbounded: what
 * the fix achieved is still worth saying, and it explains a saving past the known bounds). */
/* A candidate whose bound is an estimate ("estimate": true: the tensor-core peak ratio's, a floor of the
 * headroom, docs/next-step.md "Precision"): what the fix can win at all is its kernels' time, held_us.
 * Reports saved before the key existed say it by a roofline rule with a bound but no placement. */
static bool bound_is_a_floor(const cJSON *c)
{
	const cJSON *rule = cJSON_GetObjectItemCaseSensitive(c, "rule"),
	            *roof = cJSON_GetObjectItemCaseSensitive(c, "roofline"),
	            *estimate = cJSON_GetObjectItemCaseSensitive(c, "estimate");

	if (!cJSON_HasObjectItem(c, "held_us"))
		return false;
	if (estimate != NULL)
		return cJSON_IsTrue(estimate);
	return cJSON_IsString(rule) && strcmp(rule->valuestring, "roofline") == 0 && cJSON_IsString(roof) &&
	       strcmp(roof->valuestring, "placed") != 0;
}

/* "causes": the step capture's cause keys ("overhead.launch", ...), into a bit per cause. */
static ns_status get_spans(const cJSON *c, const json_path *p, ns_diff_prediction *out, ns_error *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(c, "causes"), *k;
	ns_cause cause;

	if (arr == NULL || cJSON_IsNull(arr))
		return NS_OK;
	if (!cJSON_IsArray(arr))
		return path_error(err, NS_ERR_VALUE, p, "causes", "must be an array of cause keys");
	cJSON_ArrayForEach(k, arr)
	{
		if (!cJSON_IsString(k) || !ns_cause_from_key(k->valuestring, &cause))
			return path_error(err, NS_ERR_VALUE, p, "causes",
			                  "must be an array of cause keys (\"overhead.launch\")");
		out->spans |= 1u << cause;
	}
	return NS_OK;
}

static ns_status get_prediction(const cJSON *c, const json_path *p, ns_diff_side *s, ns_error *err)
{
	const cJSON *bucket = get_typed(c, "bucket", cJSON_IsString, "a bucket name", p, err);
	const cJSON *cause = cJSON_GetObjectItemCaseSensitive(c, "cause");
	const cJSON *title = cJSON_GetObjectItemCaseSensitive(c, "title");
	const cJSON *gain = cJSON_GetObjectItemCaseSensitive(c, "gain_us");
	ns_diff_prediction *out = &s->predicted[s->npredicted];

	if (bucket == NULL)
		return err->status;
	memset(out, 0, sizeof(*out));
	if (!ns_regime_from_name(bucket->valuestring, &out->bucket))
		return path_error(err, NS_ERR_VALUE, p, "bucket", "unknown bucket \"%.40s\"",
		                  bucket->valuestring);
	if (cause != NULL && !cJSON_IsNull(cause) &&
	    (!cJSON_IsString(cause) || strlen(cause->valuestring) >= NS_DIFF_CAUSE_MAX))
		return path_error(err, NS_ERR_VALUE, p, "cause",
		                  "must be null or a string of at most %d bytes", NS_DIFF_CAUSE_MAX - 1);
	if (cause != NULL && cJSON_IsString(cause))
		memcpy(out->cause, cause->valuestring, strlen(cause->valuestring) + 1);
	if (title != NULL && !cJSON_IsNull(title) && !cJSON_IsString(title))
		return path_error(err, NS_ERR_VALUE, p, "title", "must be null or a string");
	const char *name = title != NULL && cJSON_IsString(title) ? title->valuestring : bucket->valuestring;
	ns_utf8_clean(name, strlen(name), out->title, sizeof(out->title)); /* cut between characters */
	out->unbounded = gain == NULL || cJSON_IsNull(gain);
	if (out->unbounded) {
		s->npredicted++;
		return NS_OK;
	}
	if (get_us(c, "gain_us", p, &out->predicted_us, err) != NS_OK)
		return err->status;
	out->ceiling_us = out->predicted_us;
	out->estimate = bound_is_a_floor(c);
	if (out->estimate && get_us(c, "held_us", p, &out->ceiling_us, err) != NS_OK)
		return err->status;
	if (cJSON_GetObjectItemCaseSensitive(c, "launch_us") != NULL &&
	    get_us(c, "launch_us", p, &out->launch_us, err) != NS_OK)
		return err->status;
	if (get_spans(c, p, out, err) != NS_OK)
		return err->status;
	const cJSON *op = cJSON_GetObjectItemCaseSensitive(c, "op");
	if (op != NULL && !cJSON_IsNull(op) && !cJSON_IsString(op))
		return path_error(err, NS_ERR_VALUE, p, "op", "must be null or a string");
	if (op != NULL && cJSON_IsString(op))
		ns_utf8_clean(op->valuestring, strlen(op->valuestring), out->op, sizeof(out->op));
	s->npredicted++;
	return NS_OK;
}

/* next_steps[] of the whole-run window, when the report has them (issue 21). */
static ns_status get_predictions(const cJSON *win, const json_path *p, ns_diff_side *s, ns_error *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(win, "next_steps"), *c;
	json_path cp;
	size_t n, i = 0;

	if (arr == NULL || cJSON_IsNull(arr))
		return NS_OK;
	if (!cJSON_IsArray(arr))
		return path_error(err, NS_ERR_VALUE, p, "next_steps", "must be an array");
	n = (size_t)cJSON_GetArraySize(arr);
	if (n > NS_DIFF_MAX_NEXT)
		return path_error(err, NS_ERR_LIMIT, p, "next_steps", "more than %d next steps",
		                  NS_DIFF_MAX_NEXT);
	if (n == 0)
		return NS_OK;
	s->predicted = calloc(n, sizeof(*s->predicted));
	if (s->predicted == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(c, arr)
	{
		path_index(&cp, p, "next_steps", i++);
		if (!cJSON_IsObject(c))
			return path_error(err, NS_ERR_VALUE, &cp, NULL, "must be an object");
		if (get_prediction(c, &cp, s, err) != NS_OK)
			return err->status;
	}
	return NS_OK;
}

static ns_status get_step(const cJSON *w, const json_path *p, ns_diff_side *s, size_t i, ns_error *err)
{
	const cJSON *step = cJSON_GetObjectItemCaseSensitive(w, "step");

	if (!cJSON_IsObject(w))
		return path_error(err, NS_ERR_VALUE, p, NULL, "must be an object");
	if (get_us(w, "dur_us", p, &s->step_us[i], err) != NS_OK)
		return err->status;
	if (step != NULL && !cJSON_IsNull(step) && !cJSON_IsNumber(step))
		return path_error(err, NS_ERR_VALUE, p, "step", "must be a step number or null");
	/* Windows are ProfilerStep# steps when they carry their number. */
	s->step_markers = s->step_markers || cJSON_IsNumber(step);
	return get_buckets(w, p, s->step_us[i], s->step_bucket_us[i], err);
}

/* Steps held as text (a saved report's): parsed one at a time, each freed before the next. */
static ns_status get_text_steps(const ns_diff_steps_text *st, const json_path *p, ns_diff_side *s,
                                ns_error *err)
{
	diff_steps_cursor c;
	cJSON *w;
	json_path wp;
	ns_status got;

	diff_steps_begin(s->report_text, st, &c);
	while ((got = diff_steps_next(&c, &w, err)) == NS_OK && w != NULL) {
		path_index(&wp, p, "steps", s->nsteps);
		got = get_step(w, &wp, s, s->nsteps, err);
		cJSON_Delete(w);
		if (got != NS_OK)
			return got;
		s->nsteps++;
	}
	return got;
}

static ns_status get_steps(const cJSON *dev, const json_path *p, ns_diff_side *s, ns_error *err)
{
	const cJSON *arr = get_typed(dev, "steps", is_array, "an array", p, err), *w;
	const ns_diff_steps_text *text = arr != NULL ? diff_steps_of(s, arr) : NULL;
	json_path wp;
	size_t n, i = 0;

	if (arr == NULL)
		return err->status;
	n = text != NULL ? diff_steps_count(s->report_text, text) : (size_t)cJSON_GetArraySize(arr);
	if (n > NS_DIFF_MAX_STEPS)
		return path_error(err, NS_ERR_LIMIT, p, "steps", "more than %d steps", NS_DIFF_MAX_STEPS);
	if (n == 0)
		return path_error(err, NS_ERR_VALUE, p, "steps", "is empty: no step time to compare");
	s->step_us = calloc(n, sizeof(*s->step_us));
	s->step_bucket_us = calloc(n, sizeof(*s->step_bucket_us));
	if (s->step_us == NULL || s->step_bucket_us == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	if (text != NULL)
		return get_text_steps(text, p, s, err);
	cJSON_ArrayForEach(w, arr)
	{
		path_index(&wp, p, "steps", i);
		if (get_step(w, &wp, s, i, err) != NS_OK)
			return err->status;
		s->nsteps = ++i;
	}
	return NS_OK;
}

static ns_status get_kernel(const cJSON *k, const json_path *p, ns_diff_kernel *out, ns_error *err)
{
	const cJSON *name = get_typed(k, "name", cJSON_IsString, "a string", p, err);
	const cJSON *cls =
	    name != NULL ? get_typed(k, "class", cJSON_IsString, "a kernel class", p, err) : NULL;
	const cJSON *count = cls != NULL ? get_typed(k, "count", cJSON_IsNumber, "a number", p, err) : NULL;
	size_t len;

	if (count == NULL)
		return err->status;
	len = strlen(name->valuestring);
	if (len == 0 || len >= NS_DIFF_NAME_MAX)
		return path_error(err, NS_ERR_LIMIT, p, "name", "must be 1 to %d bytes",
		                  NS_DIFF_NAME_MAX - 1);
	if (!ns_kernel_class_from_name(cls->valuestring, &out->cls))
		return path_error(err, NS_ERR_VALUE, p, "class", "must be compute, memory or comm");
	if (!(count->valuedouble >= 0 && count->valuedouble <= 1e15) ||
	    count->valuedouble != floor(count->valuedouble))
		return path_error(err, NS_ERR_VALUE, p, "count", "must be a whole number >= 0");
	out->count = (long)count->valuedouble;
	if (get_us(k, "us", p, &out->us, err) != NS_OK)
		return err->status;
	out->name = strdup(name->valuestring);
	return out->name != NULL ? NS_OK : ns_error_set(err, NS_ERR_NOMEM, "out of memory");
}

static ns_status get_kernels(const cJSON *dev, const json_path *p, ns_diff_side *s, ns_error *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(dev, "top_kernels"), *k;
	json_path kp;
	size_t n, i = 0;

	if (arr == NULL || cJSON_IsNull(arr))
		return NS_OK;
	if (!cJSON_IsArray(arr))
		return path_error(err, NS_ERR_VALUE, p, "top_kernels", "must be an array");
	n = (size_t)cJSON_GetArraySize(arr);
	if (n > NS_DIFF_MAX_KERNELS)
		return path_error(err, NS_ERR_LIMIT, p, "top_kernels", "more than %d kernels",
		                  NS_DIFF_MAX_KERNELS);
	if (n == 0)
		return NS_OK;
	s->kernels = calloc(n, sizeof(*s->kernels));
	if (s->kernels == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(k, arr)
	{
		path_index(&kp, p, "top_kernels", i);
		if (!cJSON_IsObject(k))
			return path_error(err, NS_ERR_VALUE, &kp, NULL, "must be an object");
		if (get_kernel(k, &kp, &s->kernels[i], err) != NS_OK)
			return err->status;
		s->nkernels = ++i;
	}
	return NS_OK;
}

static ns_status get_device_name(const cJSON *dev, const json_path *p, ns_diff_side *s, ns_error *err)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(dev, "name");

	if (name == NULL || cJSON_IsNull(name))
		return NS_OK;
	if (!cJSON_IsString(name))
		return path_error(err, NS_ERR_VALUE, p, "name", "must be a string or null");
	snprintf(s->device, sizeof(s->device), "%s", name->valuestring);
	return NS_OK;
}

/* The whole device: its overall window (buckets and causes), its steps and kernels. */
/* The steps of a trace side, from its split: the numbers its report's "steps" hold (µs as ns / 1e3, the
 * double the report's text reads back as), without printing them (a trace of 60,000 steps printed 1.5 GB of
 * report to read them back). A split has no cap on its steps. */
static ns_status get_split_steps(const ns_split_device *d, const json_path *p, ns_diff_side *s, ns_error *err)
{
	if (d->nsteps == 0)
		return path_error(err, NS_ERR_VALUE, p, "steps", "is empty: no step time to compare");
	s->step_us = calloc(d->nsteps, sizeof(*s->step_us));
	s->step_bucket_us = calloc(d->nsteps, sizeof(*s->step_bucket_us));
	if (s->step_us == NULL || s->step_bucket_us == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < d->nsteps; i++) {
		const ns_split_window w = ns_split_device_step(d, i);
		s->step_us[i] = (double)w.dur_ns / 1e3;
		for (int r = 0; r < NS_REGIME_COUNT; r++)
			s->step_bucket_us[i][r] = (double)w.bucket_ns[r] / 1e3;
		s->step_markers = s->step_markers || w.step >= 0;
	}
	s->nsteps = d->nsteps;
	return NS_OK;
}

/* The whole device: its overall window (buckets and causes), its steps (from the report, or from the split of
 * a trace when split is not NULL) and kernels. */
static ns_status get_device(const cJSON *dev, const ns_split_device *split, const json_path *p,
                            ns_diff_side *s, ns_error *err)
{
	const cJSON *overall = get_typed(dev, "overall", is_object, "an object", p, err);
	json_path op;

	if (overall == NULL)
		return err->status;
	path_child(&op, p, "overall");
	if (get_us(overall, "dur_us", &op, &s->dur_us, err) != NS_OK ||
	    get_buckets(overall, &op, s->dur_us, s->bucket_us, err) != NS_OK ||
	    get_causes(overall, &op, s, err) != NS_OK || get_predictions(overall, &op, s, err) != NS_OK ||
	    (split != NULL ? get_split_steps(split, p, s, err) : get_steps(dev, p, s, err)) != NS_OK ||
	    get_kernels(dev, p, s, err) != NS_OK || get_device_name(dev, p, s, err) != NS_OK)
		return err->status;
	return NS_OK;
}

/* Busy time of a device entry, to pick the one to compare; -1 when it cannot be read (then the full check in
 * get_device reports why, if it is picked). */
static double busy_us(const cJSON *dev)
{
	const cJSON *b =
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(dev, "overall"), "buckets_us");
	double sum = 0;

	for (int r = NS_REGIME_COMPUTE; r <= NS_REGIME_COMM; r++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(b, ns_regime_name((ns_regime)r));
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
			return -1;
		sum += v->valuedouble;
	}
	return sum;
}

/* Distinct rank values among the device entries. */
static ns_status count_ranks(const cJSON *devices, ns_diff_side *s, ns_error *err)
{
	double seen[NS_DIFF_MAX_DEVICES];
	const cJSON *dev;
	json_path root = {""}, p;
	size_t n = 0, i = 0;

	cJSON_ArrayForEach(dev, devices)
	{
		const cJSON *rank = cJSON_GetObjectItemCaseSensitive(dev, "rank");
		bool known = false;
		path_index(&p, &root, "devices", i++);
		if (rank == NULL || cJSON_IsNull(rank))
			continue;
		if (!cJSON_IsNumber(rank) || !(rank->valuedouble >= 0 && rank->valuedouble < 1e9))
			return path_error(err, NS_ERR_VALUE, &p, "rank", "must be a rank number");
		for (size_t j = 0; j < n && !known; j++)
			known = seen[j] == rank->valuedouble;
		if (!known)
			seen[n++] = rank->valuedouble;
	}
	s->nranks = n;
	return NS_OK;
}

static void fill_shares(ns_diff_side *s)
{
	ns_profile_init(&s->shares);
	for (int r = 0; r < NS_REGIME_COUNT; r++) {
		s->shares.share[r] = s->dur_us > 0 ? s->bucket_us[r] / s->dur_us : 0;
		s->shares.present[r] = true;
	}
}

ns_status ns_diff_side_from_report(const cJSON *doc, ns_diff_side *s, ns_error *err)
{
	return diff_side_from_trace_report(doc, NULL, s, err);
}

ns_status diff_side_from_trace_report(const cJSON *doc, const ns_split_result *split, ns_diff_side *s,
                                      ns_error *err)
{
	json_path root = {""}, dp;
	const cJSON *devices, *dev;
	const cJSON *pick = NULL;
	double best = -2;
	size_t n, i = 0, picked = 0;

	if (!cJSON_IsObject(doc))
		return ns_error_set(err, NS_ERR_VALUE, "a report must be a JSON object");
	devices = get_typed(doc, "devices", is_array, "an array", &root, err);
	if (devices == NULL)
		return err->status;
	n = (size_t)cJSON_GetArraySize(devices);
	if (n > NS_DIFF_MAX_DEVICES)
		return path_error(err, NS_ERR_LIMIT, &root, "devices", "more than %d devices",
		                  NS_DIFF_MAX_DEVICES);
	if (n == 0)
		return ns_error_set(err, NS_ERR_VALUE, "devices: no device or host activity to compare");
	cJSON_ArrayForEach(dev, devices)
	{
		double busy = cJSON_IsObject(dev) ? busy_us(dev) : -1;
		if (busy > best) {
			best = busy;
			pick = dev;
			picked = i;
		}
		i++;
	}
	path_index(&dp, &root, "devices", picked);
	if (!cJSON_IsObject(pick))
		return path_error(err, NS_ERR_VALUE, &dp, NULL, "must be an object");
	s->origin = NS_DIFF_FROM_REPORT;
	s->has_time = true;
	s->ndevices = n;
	s->kernels_partial = true;
	if (split != NULL && picked >= split->ndevices)
		return ns_error_set(err, NS_ERR_INTERNAL,
		                    "the trace's report has more devices than its split");
	if (get_device(pick, split != NULL ? &split->device[picked] : NULL, &dp, s, err) != NS_OK ||
	    count_ranks(devices, s, err) != NS_OK)
		return err->status;
	fill_shares(s);
	diff_guess_dtype(s);
	return NS_OK;
}

void ns_diff_side_init(ns_diff_side *s)
{
	memset(s, 0, sizeof(*s));
	ns_profile_init(&s->shares);
}

void ns_diff_side_free(ns_diff_side *s)
{
	for (size_t i = 0; i < s->nkernels; i++)
		free(s->kernels[i].name);
	free(s->kernels);
	free(s->causes);
	free(s->predicted);
	free(s->step_us);
	free(s->step_bucket_us);
	cJSON_Delete(s->report);
	if (s->trace != NULL)
		ns_split_result_free(s->trace);
	free(s->trace);
	if (s->trace_roof != NULL)
		ns_troof_report_free(s->trace_roof);
	free(s->trace_roof);
	free(s->trace_reports);
	free(s->trace_source);
	free(s->report_text);
	free(s->steps_text);
	memset(s, 0, sizeof(*s));
}
