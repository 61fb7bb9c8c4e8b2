/* The diff as text (the headline first) and as the JSON document of docs/diff.md. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "diff_private.h"
#include "nextstep/trace_report.h"
#include "trace/report/report_private.h"
#include "util/json_out.h"
#include "util/text.h"

/* A growing line in a fixed buffer: appends are cut at the end, never overrun. */
typedef struct {
	char *buf;
	size_t size, len;
} line_buf;

static void put(line_buf *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(line_buf *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->len + 1 >= l->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, l->size - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len = l->len + (size_t)n < l->size ? l->len + (size_t)n : l->size - 1;
}

/* About four significant digits: 177.6, 19.98, 1.234. */
static void put_ms(line_buf *l, double ms)
{
	put(l, ms >= 100 ? "%.1f ms" : ms >= 10 ? "%.2f ms" : "%.3f ms", ms);
}

static double pct(double share)
{
	return share * 100.0;
}

static void put_step_change(line_buf *l, const ns_diff_result *r)
{
	if (r->change == NS_DIFF_TIME_UNKNOWN) {
		put(l, "step time unknown (a profile has shares only)");
		return;
	}
	if (r->before.n == 0) { /* two identical profiles */
		put(l, "no change");
		return;
	}
	put(l, "step ");
	put_ms(l, r->before.mean);
	put(l, " -> ");
	put_ms(l, r->after.mean);
	switch (r->change) {
	case NS_DIFF_NO_CHANGE:
		put(l, " (no change)");
		break;
	case NS_DIFF_FASTER:
		put(l, " (%.2fx faster)", r->speedup);
		break;
	case NS_DIFF_SLOWER:
		put(l, " (%.2fx slower)", r->speedup > 0 ? 1 / r->speedup : 0);
		break;
	default:
		put(l, " (no significant change: %.2fx %s", r->speedup >= 1 ? r->speedup : 1 / r->speedup,
		    r->speedup >= 1 ? "faster" : "slower");
		if (r->noise.known)
			put(l, ", speed-up %.0f%% interval %.2fx-%.2fx)", NS_DIFF_BOOTSTRAP_LEVEL * 100,
			    r->noise.lo, r->noise.hi);
		else
			put(l, " by the means, but a side has fewer than 2 steps to tell noise from change)");
		break;
	}
}

static void put_target(line_buf *l, const ns_diff_target *t)
{
	const char *name = ns_regime_name(t->bucket);

	put(l, "; ");
	if (t->was_regime)
		put(l, "%s %s: %s ", ns_regime_bound_word(t->bucket), ns_diff_fate_name(t->fate), name);
	else
		put(l, "%s (high) %s: ", name, ns_diff_fate_name(t->fate));
	put(l, "%.0f%% -> %.0f%% of the step", pct(t->before_share), pct(t->after_share));
}

/* What was fixed or shrank comes first; BEFORE's regime is also named when nothing improved, so the line
 * always says what became of the bottleneck the user was told about. */
static void put_targets(line_buf *l, const ns_diff_result *r)
{
	bool improved = false;

	for (size_t i = 0; i < r->ntargets; i++)
		if (r->targets[i].fate == NS_FATE_FIXED || r->targets[i].fate == NS_FATE_SHRANK) {
			put_target(l, &r->targets[i]);
			improved = true;
		}
	if (!improved && r->ntargets > 0 && r->change != NS_DIFF_NO_CHANGE)
		put_target(l, &r->targets[0]);
}

void ns_diff_headline(const ns_diff_result *r, char *buf, size_t size)
{
	line_buf l = {buf, size, 0};
	const ns_verdict *b = &r->verdict[0], *a = &r->verdict[1];

	if (size == 0)
		return;
	buf[0] = '\0';
	put_step_change(&l, r);
	put_targets(&l, r);
	put(&l, "; %s %s (%.0f%%)", a->regime == b->regime ? "still" : "now", ns_regime_bound_word(a->regime),
	    pct(a->share));
}

bool ns_diff_gate_slower(const ns_diff_result *r, double pct_limit)
{
	return r->change == NS_DIFF_SLOWER && r->after.median > r->before.median * (1 + pct_limit / 100.0);
}

bool ns_diff_gate_regime(const ns_diff_result *r)
{
	return r->verdict[0].regime != r->verdict[1].regime;
}

/* ---- text ---------------------------------------------------------------------------------------- */

/* Names come from other people's files (a saved report, a trace): no control character reaches the terminal.
 */
static const char *safe(const char *in, char *buf, size_t size)
{
	ns_text_escape(in, strlen(in), buf, size);
	return buf;
}

static void print_suspects(FILE *out, const ns_diff_result *r)
{
	char b[NS_DIFF_DEVICE_MAX * 4], a[NS_DIFF_DEVICE_MAX * 4];

	for (size_t i = 0; i < r->nsuspects; i++)
		fprintf(out, "suspect: %s %s -> %s: the runs may not be comparable\n", r->suspects[i].what,
		        safe(r->suspects[i].before, b, sizeof(b)), safe(r->suspects[i].after, a, sizeof(a)));
}

static void print_side(FILE *out, const char *which, const char *name, const ns_diff_side *s,
                       const ns_diff_step_stats *st, const ns_verdict *v)
{
	fprintf(out, "%s %s: ", which, name);
	if (!s->has_time)
		fputs("a profile (shares only)", out);
	else
		fprintf(out, "%zu %s, mean %.3f ms, median %.3f ms (range %.3f-%.3f)", st->n,
		        s->step_markers ? (st->n == 1 ? "step" : "steps") : "whole-trace window", st->mean,
		        st->median, st->min, st->max);
	fprintf(out, "; %s (%.0f%%)", ns_regime_bound_word(v->regime), pct(v->share));
	if (s->device[0] != '\0') {
		char buf[NS_DIFF_DEVICE_MAX * 4];
		fprintf(out, "; %s", safe(s->device, buf, sizeof(buf)));
	}
	if (s->dtype[0] != '\0')
		fprintf(out, "; %s GEMMs", s->dtype);
	fputc('\n', out);
}

static void print_buckets(FILE *out, const ns_diff_side *b, const ns_diff_side *a, const ns_diff_result *r)
{
	if (!b->has_time || !a->has_time) {
		fprintf(out, "%-16s %9s %9s %9s\n", "share of step", "before", "after", "delta");
		for (int k = 0; k < NS_REGIME_COUNT; k++)
			fprintf(out, "  %-14s %8.1f%% %8.1f%% %+8.1f\n", ns_regime_name((ns_regime)k),
			        pct(b->shares.share[k]), pct(a->shares.share[k]),
			        pct(a->shares.share[k] - b->shares.share[k]));
		return;
	}
	fprintf(out, "%-24s %10s %10s %10s\n", "ms per step", "before", "after", "delta");
	for (int k = 0; k < NS_REGIME_COUNT; k++)
		fprintf(out, "  %-22s %10.3f %10.3f %+10.3f\n", ns_regime_name((ns_regime)k),
		        r->bucket_ms[0][k], r->bucket_ms[1][k], r->bucket_ms[1][k] - r->bucket_ms[0][k]);
	fprintf(out, "  %-22s %10.3f %10.3f %+10.3f\n", "step (mean)", r->before.mean, r->after.mean,
	        r->after.mean - r->before.mean);
	if (r->noise.known)
		fprintf(out, "speed-up %.3fx, %.0f%% bootstrap interval %.3fx-%.3fx over the steps: %s\n",
		        r->speedup, NS_DIFF_BOOTSTRAP_LEVEL * 100, r->noise.lo, r->noise.hi,
		        r->noise.significant ? "significant" : "not significant");
}

static void print_causes(FILE *out, const ns_diff_result *r)
{
	char label[NS_DIFF_CAUSE_MAX + 16], shown[4 * (NS_DIFF_CAUSE_MAX + 16)];

	if (r->ncauses == 0)
		return;
	fprintf(out, "%-24s %10s %10s %10s\n", "causes, ms per step", "before", "after", "delta");
	for (size_t i = 0; i < r->ncauses; i++) {
		const ns_diff_cause_delta *c = &r->causes[i];
		if (c->before_ms == 0 && c->after_ms == 0) /* a cause neither run had (JSON still lists it) */
			continue;
		/* the cause's name is the saved report's */
		snprintf(label, sizeof(label), "%s/%s", ns_regime_name(c->bucket), c->cause);
		fprintf(out, "  %-22s %10.3f %10.3f %+10.3f\n", safe(label, shown, sizeof(shown)),
		        c->before_ms, c->after_ms, c->delta_ms);
	}
}

static void print_known_ms(FILE *out, bool known, double ms)
{
	if (known)
		fprintf(out, " %9.3f", ms);
	else
		fprintf(out, " %9s", "?");
}

/* A count, or "?" when the side's list does not say; right-aligned before the arrow, left-aligned after. */
static void print_count(FILE *out, bool known, long count, bool after)
{
	char buf[24] = "?";

	if (known)
		snprintf(buf, sizeof(buf), "%ld", count);
	fprintf(out, after ? " %-6s" : "  %6s", buf);
}

/* ns_report_short_name cuts at the parameter list; "Memcpy HtoD (Pageable -> Device)" leaves a trailing
 * space.
 */
static void trim_right(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && s[n - 1] == ' ')
		s[--n] = '\0';
}

static void print_kernels(FILE *out, const ns_diff_result *r, size_t top)
{
	char name[NS_REPORT_NAME_MAX + 1], shown[4 * NS_REPORT_NAME_MAX + 1];

	if (r->nkernels == 0 || top == 0)
		return;
	fprintf(
	    out,
	    "kernels that moved most, ms per step (calls before -> after; ? = not in that side's list):\n");
	for (size_t i = 0; i < r->nkernels && i < top; i++) {
		const ns_diff_kernel_delta *k = &r->kernels[i];
		ns_report_short_name(k->name, name, sizeof(name));
		trim_right(name);
		if (k->before_known && k->after_known)
			fprintf(out, "  %+9.3f", k->delta_ms);
		else
			fprintf(out, "  %9s", "?");
		print_known_ms(out, k->before_known, k->before_ms);
		fputs(" ->", out);
		print_known_ms(out, k->after_known, k->after_ms);
		print_count(out, k->before_known, k->before_count, false);
		fputs(" ->", out);
		print_count(out, k->after_known, k->after_count, true);
		fprintf(out, " %s\n", safe(name, shown, sizeof(shown)));
	}
}

void ns_diff_check_words(const ns_diff_check *c, char *buf, size_t size)
{
	char title[NS_DIFF_TITLE_MAX * 4];
	double bound = c->p->predicted_us / 1e3;

	const char *up_to = c->p->estimate ? "about" : "up to";

	if (c->p->unbounded && c->applied)
		snprintf(buf, size, "%s: bound unknown, achieved %.3f ms (its time a step %.3f -> %.3f ms)",
		         safe(c->p->title, title, sizeof(title)), c->achieved_ms, c->before_ms, c->after_ms);
	else if (c->p->unbounded)
		snprintf(buf, size, "%s: bound unknown, not applied (its time a step %.3f -> %.3f ms)",
		         safe(c->p->title, title, sizeof(title)), c->before_ms, c->after_ms);
	else if (c->applied)
		snprintf(buf, size, "%s: predicted %s %.3f ms, achieved %.3f ms (%.0f%% of the %s)",
		         safe(c->p->title, title, sizeof(title)), up_to, bound, c->achieved_ms,
		         bound > 0 ? 100.0 * c->achieved_ms / bound : 0.0,
		         c->p->estimate ? "estimate" : "bound");
	else
		snprintf(buf, size, "%s: predicted %s %.3f ms, not applied (its time a step %.3f -> %.3f ms)",
		         safe(c->p->title, title, sizeof(title)), up_to, bound, c->before_ms, c->after_ms);
}

void ns_diff_exceeded_words(const ns_diff_result *r, char *buf, size_t size)
{
	snprintf(
	    buf, size,
	    "the step saved %.3f ms, more than the %.3f ms the applied fixes could win: a bound was wrong, "
	    "or something else changed",
	    r->saved_ms, r->applied_ms);
}

/* BEFORE's next steps against what AFTER achieved: each fix that was applied (its cause's time fell), and the
 * top prediction even when it was not; then whether the step saved more than the applied fixes' bounds. */
static void print_checks(FILE *out, const ns_diff_result *r)
{
	for (size_t i = 0; i < r->nchecks; i++)
		if (r->checks[i].shown)
			fprintf(out, "prediction: %s\n", r->checks[i].words);
	if (r->over_bound)
		fprintf(out, "prediction: %s\n", r->exceeded);
}

void ns_diff_print_text(FILE *out, const ns_diff_side *before, const ns_diff_side *after,
                        const ns_diff_result *r, const ns_diff_print_options *o)
{
	fprintf(out, "%s\n", r->headline);
	print_suspects(out, r);
	print_checks(out, r);
	if (!o->verbose)
		return;
	print_side(out, "before", o->names[0], before, &r->before, &r->verdict[0]);
	print_side(out, "after ", o->names[1], after, &r->after, &r->verdict[1]);
	print_buckets(out, before, after, r);
	print_causes(out, r);
	print_kernels(out, r, o->top);
}

/* ---- JSON ---------------------------------------------------------------------------------------- */

/* ms to the nanosecond, so scripts do not see 0.30000000000000004. */
static double tidy(double ms)
{
	return round(ms * 1e6) / 1e6;
}

static cJSON *stats_json(const ns_diff_step_stats *s)
{
	cJSON *o = cJSON_CreateObject();
	bool ok = o != NULL;

	ok = ok && cJSON_AddNumberToObject(o, "median", tidy(s->median));
	ok = ok && cJSON_AddNumberToObject(o, "mean", tidy(s->mean));
	ok = ok && cJSON_AddNumberToObject(o, "min", tidy(s->min));
	ok = ok && cJSON_AddNumberToObject(o, "max", tidy(s->max));
	ok = ok && cJSON_AddNumberToObject(o, "steps", (double)s->n);
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static bool add_item(cJSON *obj, const char *key, cJSON *item)
{
	if (item == NULL || !cJSON_AddItemToObject(obj, key, item)) {
		cJSON_Delete(item);
		return false;
	}
	return true;
}

static bool add_step_ms(cJSON *doc, const ns_diff_result *r)
{
	cJSON *o, *interval;
	bool ok;

	if (r->before.n == 0 || r->after.n == 0)
		return cJSON_AddNullToObject(doc, "step_ms") != NULL;
	o = cJSON_AddObjectToObject(doc, "step_ms");
	ok = o != NULL && add_item(o, "before", stats_json(&r->before)) &&
	     add_item(o, "after", stats_json(&r->after));
	ok = ok && cJSON_AddNumberToObject(o, "speedup", round(r->speedup * 1e9) / 1e9);
	if (ok && r->noise.known) {
		interval = cJSON_AddArrayToObject(o, "interval");
		ok = interval != NULL &&
		     cJSON_AddItemToArray(interval, cJSON_CreateNumber(round(r->noise.lo * 1e9) / 1e9)) &&
		     cJSON_AddItemToArray(interval, cJSON_CreateNumber(round(r->noise.hi * 1e9) / 1e9));
	} else if (ok) {
		ok = cJSON_AddNullToObject(o, "interval") != NULL;
	}
	return ok && cJSON_AddBoolToObject(o, "significant", r->noise.significant);
}

static bool add_triple(cJSON *obj, double before, double after)
{
	return cJSON_AddNumberToObject(obj, "before", tidy(before)) &&
	       cJSON_AddNumberToObject(obj, "after", tidy(after)) &&
	       cJSON_AddNumberToObject(obj, "delta", tidy(after) - tidy(before));
}

static bool add_buckets_ms(cJSON *doc, const ns_diff_result *r)
{
	cJSON *o;

	if (r->before.n == 0 || r->after.n == 0)
		return cJSON_AddNullToObject(doc, "buckets_ms") != NULL;
	o = cJSON_AddObjectToObject(doc, "buckets_ms");
	for (int k = 0; o != NULL && k < NS_REGIME_COUNT; k++) {
		cJSON *b = cJSON_AddObjectToObject(o, ns_regime_name((ns_regime)k));
		if (b == NULL || !add_triple(b, r->bucket_ms[0][k], r->bucket_ms[1][k]))
			return false;
	}
	return o != NULL;
}

static bool add_causes_ms(cJSON *doc, const ns_diff_result *r)
{
	cJSON *arr = cJSON_AddArrayToObject(doc, "causes_ms");

	for (size_t i = 0; arr != NULL && i < r->ncauses; i++) {
		cJSON *c = cJSON_CreateObject();
		if (c == NULL || !cJSON_AddItemToArray(arr, c))
			return false;
		if (!cJSON_AddStringToObject(c, "bucket", ns_regime_name(r->causes[i].bucket)) ||
		    !cJSON_AddStringToObject(c, "cause", r->causes[i].cause) ||
		    !add_triple(c, r->causes[i].before_ms, r->causes[i].after_ms))
			return false;
	}
	return arr != NULL;
}

static bool add_known(cJSON *obj, const char *key, bool known, double ms)
{
	return (known ? cJSON_AddNumberToObject(obj, key, tidy(ms)) : cJSON_AddNullToObject(obj, key)) !=
	       NULL;
}

static bool add_count(cJSON *obj, const char *key, bool known, long count)
{
	return (known ? cJSON_AddNumberToObject(obj, key, (double)count) : cJSON_AddNullToObject(obj, key)) !=
	       NULL;
}

static bool add_kernel(cJSON *arr, const ns_diff_kernel_delta *k)
{
	cJSON *o = cJSON_CreateObject();

	if (o == NULL || !cJSON_AddItemToArray(arr, o))
		return false;
	return cJSON_AddStringToObject(o, "name", k->name) &&
	       cJSON_AddStringToObject(o, "class", ns_kernel_class_name(k->cls)) &&
	       add_known(o, "before_ms", k->before_known, k->before_ms) &&
	       add_known(o, "after_ms", k->after_known, k->after_ms) &&
	       add_known(o, "delta_ms", k->before_known && k->after_known, k->after_ms - k->before_ms) &&
	       add_count(o, "before_count", k->before_known, k->before_count) &&
	       add_count(o, "after_count", k->after_known, k->after_count);
}

static bool add_kernels(cJSON *doc, const ns_diff_result *r, size_t top)
{
	cJSON *arr = cJSON_AddArrayToObject(doc, "kernels");

	for (size_t i = 0; arr != NULL && i < r->nkernels && i < top; i++)
		if (!add_kernel(arr, &r->kernels[i]))
			return false;
	return arr != NULL;
}

static bool add_suspects(cJSON *doc, const ns_diff_result *r)
{
	cJSON *arr = cJSON_AddArrayToObject(doc, "suspect");

	for (size_t i = 0; arr != NULL && i < r->nsuspects; i++) {
		cJSON *o = cJSON_CreateObject();
		if (o == NULL || !cJSON_AddItemToArray(arr, o) ||
		    !cJSON_AddStringToObject(o, "what", r->suspects[i].what) ||
		    !cJSON_AddStringToObject(o, "before", r->suspects[i].before) ||
		    !cJSON_AddStringToObject(o, "after", r->suspects[i].after))
			return false;
	}
	return arr != NULL;
}

static bool add_target(cJSON *arr, const ns_diff_target *t, bool by_time)
{
	cJSON *o = cJSON_CreateObject();

	if (o == NULL || !cJSON_AddItemToArray(arr, o))
		return false;
	return cJSON_AddStringToObject(o, "bucket", ns_regime_name(t->bucket)) &&
	       cJSON_AddStringToObject(o, "was", t->was_regime ? "regime" : "high finding") &&
	       cJSON_AddStringToObject(o, "fate", ns_diff_fate_name(t->fate)) &&
	       cJSON_AddNumberToObject(o, "before_share", t->before_share) &&
	       cJSON_AddNumberToObject(o, "after_share", t->after_share) &&
	       add_known(o, "before_ms", by_time, t->before_ms) &&
	       add_known(o, "after_ms", by_time, t->after_ms);
}

static bool add_verdict(cJSON *doc, const ns_diff_result *r)
{
	cJSON *v = cJSON_AddObjectToObject(doc, "verdict"), *targets;
	bool ok = v != NULL, by_time = r->before.n > 0 && r->after.n > 0;

	ok = ok && cJSON_AddStringToObject(v, "text", r->headline);
	ok = ok && cJSON_AddStringToObject(v, "change", ns_diff_change_name(r->change));
	ok = ok && cJSON_AddStringToObject(v, "before", ns_regime_name(r->verdict[0].regime));
	ok = ok && cJSON_AddStringToObject(v, "after", ns_regime_name(r->verdict[1].regime));
	ok = ok && cJSON_AddNumberToObject(v, "after_share", r->verdict[1].share);
	ok = ok && cJSON_AddBoolToObject(v, "regime_changed", ns_diff_gate_regime(r));
	targets = ok ? cJSON_AddArrayToObject(v, "targets") : NULL;
	ok = targets != NULL;
	for (size_t i = 0; ok && i < r->ntargets; i++)
		ok = add_target(targets, &r->targets[i], by_time);
	return ok;
}

/* "next_steps_checked": [{"bucket", "cause", "title", "predicted_us", "achieved_us", "before_us", "after_us",
 * "applied"}] (µs a step; predicted_us null: no bound), and "prediction_exceeded": the step saved more than
 * the applied fixes' bounds. */
static bool add_checks(cJSON *doc, const ns_diff_result *r)
{
	cJSON *arr = cJSON_AddArrayToObject(doc, "next_steps_checked");
	bool ok = arr != NULL;

	for (size_t i = 0; ok && i < r->nchecks; i++) {
		const ns_diff_check *c = &r->checks[i];
		cJSON *o = cJSON_CreateObject();
		ok = o != NULL && cJSON_AddItemToArray(arr, o);
		if (!ok) {
			cJSON_Delete(o);
			break;
		}
		ok = cJSON_AddStringToObject(o, "bucket", ns_regime_name(c->p->bucket)) &&
		     (c->p->cause[0] != '\0' ? cJSON_AddStringToObject(o, "cause", c->p->cause)
		                             : cJSON_AddNullToObject(o, "cause")) &&
		     cJSON_AddStringToObject(o, "title", c->p->title) &&
		     (c->p->unbounded ? cJSON_AddNullToObject(o, "predicted_us")
		                      : cJSON_AddNumberToObject(o, "predicted_us",
		                                                tidy(c->p->predicted_us / 1e3) * 1e3)) &&
		     cJSON_AddNumberToObject(o, "achieved_us", tidy(c->achieved_ms) * 1e3) &&
		     cJSON_AddNumberToObject(o, "before_us", tidy(c->before_ms) * 1e3) &&
		     cJSON_AddNumberToObject(o, "after_us", tidy(c->after_ms) * 1e3) &&
		     cJSON_AddBoolToObject(o, "applied", c->applied);
	}
	return ok && cJSON_AddBoolToObject(doc, "prediction_exceeded", r->over_bound);
}

/* The members after "before" and "after". */
static cJSON *comparison_json(const ns_diff_result *r, size_t top)
{
	cJSON *doc = cJSON_CreateObject();
	bool ok = doc != NULL;

	ok = ok && add_step_ms(doc, r) && add_buckets_ms(doc, r) && add_causes_ms(doc, r);
	ok = ok && add_kernels(doc, r, top) && add_suspects(doc, r) && add_verdict(doc, r);
	ok = ok && add_checks(doc, r);
	if (!ok) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

/* A side's report object R: a trace's printed from its split (the writer handed what it holds to out first),
 * a saved report's or profile's from its tree. */
static ns_status put_side(json_out *w, FILE *out, const ns_diff_side *s, ns_error *err)
{
	ns_format_options f = {.kind = NS_FORMAT_JSON};
	ns_report_options ro = {.classify = s->trace_classify,
	                        .routes = s->trace_routes,
	                        .format = &f,
	                        .source = s->trace_source,
	                        .top = s->trace_top,
	                        .devices = s->trace_devices,
	                        .reports = s->trace_reports};
	ns_troof_roof_ctx rc = {s->trace_roof, s->trace};

	if (s->trace == NULL)
		return diff_put_report(w, s, err);
	if (s->trace_roof != NULL) { /* the bounds the side's next steps were ranked by */
		ro.roof = ns_troof_roof;
		ro.roof_ctx = &rc;
	}
	if (!json_out_flush(w))
		return ns_error_set(err, NS_ERR_IO, "write error");
	return report_print_json_as(out, s->trace, &ro, REPORT_JSON_OBJECT, err);
}

ns_status ns_diff_print_json(FILE *out, const ns_diff_side *before, const ns_diff_side *after,
                             const ns_diff_result *r, size_t top, ns_error *err)
{
	cJSON *rest = comparison_json(r, top);
	ns_status st = rest != NULL ? NS_OK : ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	json_out w;

	json_out_init(&w, out);
	if (st == NS_OK) {
		json_out_raw(&w, "{\"before\":");
		st = put_side(&w, out, before, err);
	}
	if (st == NS_OK) {
		json_out_raw(&w, ",\"after\":");
		st = put_side(&w, out, after, err);
	}
	for (const cJSON *c = st == NS_OK ? rest->child : NULL; c != NULL; c = c->next) {
		json_out_char(&w, ',');
		json_out_string(&w, c->string);
		json_out_char(&w, ':');
		if (!json_out_item(&w, c)) {
			st = ns_error_set(err, NS_ERR_NOMEM, "out of memory");
			break;
		}
	}
	cJSON_Delete(rest);
	json_out_raw(&w, st == NS_OK ? "}\n" : "\n"); /* a document cut short still ends its line */
	if (!json_out_flush(&w) && st == NS_OK)
		st = ns_error_set(err, NS_ERR_IO, "write error");
	return st;
}
