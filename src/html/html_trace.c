/* The trace page: per device the verdict banner, the split, the steps as stacked bars, exposed and hidden
 * communication and the top kernels of each bucket; then --roofline's placed ops. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html_private.h"
#include "nextstep/gpu_util.h"
#include "nextstep/roofline_svg.h"
#include "nextstep/trace_report.h"
#include "util/memstream.h"
#include "util/sort.h"

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

static void put_startup_banner(ns_html_page *p, const ns_device_report *m)
{
	hp_printf(p, "<div class=\"banner\" style=\"--c:%s\" data-regime=\"startup\">\n<p>",
	          hp_bucket_colour(NS_REGIME_OVERHEAD));
	hp_printf(p,
	          "<span class=\"regime\">start-up, not steady state</span> (set-up calls hold %.0f%% of "
	          "it)</p>\n<p class=\"fix\">Fix: ",
	          pct(m->routed.cause_ns[NS_CAUSE_INIT], m->routed.dur_ns));
	hp_text(p, m->startup_route.fix, HTML_FIX_MAX);
	hp_puts(p, "</p>\n<p>Course module: <span class=\"module\">");
	hp_text(p, m->startup_route.module, 200);
	hp_puts(p, "</span></p>\n</div>\n");
}

static void put_next_step(ns_html_page *p, const ns_next_step *s, const char *per, bool shown)
{
	char key[160];

	hp_printf(p,
	          "<li data-bucket=\"%s\" data-cause=\"%s\" data-known=\"%d\" data-gain-us=\"%.3f\" "
	          "data-held-us=\"%.3f\"%s><b>",
	          ns_regime_name(s->bucket), s->cause >= 0 ? ns_cause_name((ns_cause)s->cause) : "",
	          s->known ? 1 : 0, (double)s->gain_ns / 1e3, (double)s->held_ns / 1e3,
	          shown ? " class=\"shown\"" : "");
	hp_text(p, ns_next_step_title(s, key, sizeof(key)), sizeof(key));
	if (s->known)
		hp_printf(p, "</b>: %s %.3f ms%s (%.1f%%)", ns_next_step_bound_word(s), ms(s->gain_ns), per,
		          100.0 * s->gain_share);
	else
		hp_printf(p, "</b>: bound unknown (%.3f ms%s in these kernels)", ms(s->held_ns), per);
	if (s->route.fix != NULL) {
		hp_puts(p, " &rarr; <span class=\"fix\">");
		hp_text(p, s->route.fix, 1024);
		hp_puts(p, "</span>");
	}
	if (s->route.module != NULL) {
		hp_puts(p, " (");
		hp_text(p, s->route.module, 200);
		hp_puts(p, ")");
	}
	hp_puts(p, "<br><span class=\"basis\">");
	hp_text(p, s->basis, sizeof(s->basis));
	if (s->rule == NS_GAIN_ROOFLINE)
		hp_printf(p, "</span><span class=\"roof\" data-roofline=\"%s\" data-unknown-us=\"%.3f\">",
		          ns_roof_state_name(s->roof), (double)s->unknown_ns / 1e3);
	hp_puts(p, "</span></li>\n");
}

/* What the roofline says of the kernel buckets (issue 22 item 3), under the banner as under the text's
 * verdict line. */
static void put_roof_notes(ns_html_page *p, const ns_device_report *m)
{
	for (size_t i = 0; i < m->nroof_notes; i++) {
		const ns_roof_note *n = &m->roof_note[i];
		char words[NS_ROOF_NOTE_WORDS];
		ns_roof_note_words(n, words, sizeof(words));
		hp_printf(p, "<p class=\"roof-note\" data-bucket=\"%s\" data-lever=\"%s\" data-families=\"",
		          ns_regime_name(n->bucket), ns_roof_lever_name(n->lever));
		for (size_t f = 0; f < n->nfamilies; f++)
			hp_printf(p, "%s%s", f > 0 ? "," : "", ns_op_family_name(n->family[f]));
		hp_puts(p, "\">");
		hp_text(p, words, sizeof(words));
		hp_puts(p, "</p>\n");
	}
}

bool hp_next_steps_open(ns_html_page *p, const ns_next_steps *n, bool per_step)
{
	const ns_next_step *top = ns_next_steps_top(n), *second = ns_next_steps_runner_up(n);
	const char *per = per_step ? " a step" : "";

	if (n->n == 0 || !hp_fits(p, (unsigned long long)n->n * 6 * (1024 + NS_BASIS_MAX + 400)))
		return false;
	hp_puts(p, "<div class=\"next-steps\"><h3>Next steps</h3>\n<p class=\"note\">The most each fix can "
	           "win, ranked (docs/next-step.md).</p>\n<ol class=\"next-steps\">\n");
	for (size_t i = 0; i < n->n; i++)
		put_next_step(p, &n->item[i], per, &n->item[i] == top || &n->item[i] == second);
	hp_puts(p, "</ol>\n");
	return true;
}

/* The ranked next steps, first on the page after the verdict: the text report's "next step:" and "then:"
 * lines are the items marked shown; the rest is -v's list. */
static void put_next_steps(ns_html_page *p, const ns_device_report *m, bool per_step)
{
	const ns_next_steps *n = &m->next;

	if (!hp_next_steps_open(p, n, per_step))
		return;
	if (m->first_why[0] != '\0') { /* the text's "why first:" line */
		hp_puts(p, "<p class=\"why-first\">why first: ");
		hp_text(p, m->first_why, sizeof(m->first_why));
		hp_puts(p, "</p>\n");
	}
	if (m->host_op.found) { /* the text's "launch is mostly one host op" line */
		char words[NS_NEXT_OP_MAX + 128];
		ns_report_host_op_words(&m->host_op, words, sizeof(words));
		hp_printf(p, "<p class=\"host-op\" data-finding=\"%s\">launch is mostly one host op, ",
		          m->host_op.finding);
		hp_text(p, words, sizeof(words));
		hp_puts(p, "</p>\n");
	}
	if (m->batch_item >= 0) { /* the text's "a larger batch" line */
		char title[160];
		hp_printf(p, "<p class=\"batch\" data-batch-scale=\"%.3f\">a larger batch (",
		          n->item[m->batch_item].batch_scale);
		hp_text(p, ns_next_step_title(&n->item[m->batch_item], title, sizeof(title)), sizeof(title));
		hp_puts(p, "'s fix): ");
		hp_text(p, m->batch_words, sizeof(m->batch_words));
		hp_puts(p, "</p>\n");
	}
	hp_puts(p, "</div>\n");
}

static int64_t median_ns(const ns_split_device *d)
{
	int64_t *dur = malloc(d->nsteps * sizeof(*dur)), m;

	if (dur == NULL || d->nsteps == 0) {
		free(dur);
		return d->nsteps > 0 ? ns_split_device_step(d, 0).dur_ns : 0;
	}
	for (size_t i = 0; i < d->nsteps; i++)
		dur[i] = ns_split_device_step(d, i).dur_ns;
	qsort(dur, d->nsteps, sizeof(*dur), ns_cmp_i64);
	m = d->nsteps % 2 ? dur[d->nsteps / 2] : dur[d->nsteps / 2 - 1] / 2 + dur[d->nsteps / 2] / 2;
	free(dur);
	return m;
}

static void put_summary(ns_html_page *p, const ns_split_result *res, const ns_split_device *d)
{
	size_t n = hp_counted_steps(d);

	hp_puts(p, "<p class=\"summary\">");
	if (res->has_steps) {
		hp_printf(p, "<span class=\"steps\" data-v=\"%zu\">%zu</span> step%s", n, n,
		          n == 1 ? "" : "s");
		hp_step_source(p, res);
		hp_printf(p, ", <span class=\"step-ms\">%.3f</span> ms per step (median %.3f ms)",
		          ms(d->overall.dur_ns) / (double)n, ms(median_ns(d)));
	} else
		hp_printf(p, "whole trace (no ProfilerStep# markers), %.3f ms", ms(d->overall.dur_ns));
	if (res->gpu_activity)
		hp_printf(p, ", %ld kernel%s", d->overall.kernels, d->overall.kernels == 1 ? "" : "s");
	if (res->gpu_activity && ns_window_gpu_util(&d->overall) >= 0.0)
		hp_printf(
		    p,
		    ", <span class=\"gpu-util\" data-v=\"%.4f\" title=\"the share of the step with a kernel "
		    "running: what nvidia-smi samples, not how close the kernels come to their "
		    "roofs\">GPU-Util "
		    "%.1f%%</span>",
		    ns_window_gpu_util(&d->overall), 100.0 * ns_window_gpu_util(&d->overall));
	if (d->nwarmup > 0 && d->nwarmup < d->nsteps)
		hp_printf(
		    p,
		    "; <span class=\"warmup\" data-steps=\"%zu\">%zu warm-up step%s (%.3f ms) left out of "
		    "the verdict</span>",
		    d->nwarmup, d->nwarmup, d->nwarmup == 1 ? "" : "s", ms(d->warmup.dur_ns));
	if (res->duplicate_steps > 0)
		hp_printf(p, "; %zu duplicate step marker%s", res->duplicate_steps,
		          res->duplicate_steps == 1 ? "" : "s");
	hp_puts(p, ".</p>\n");
	if (d->outside_gpu > 0)
		hp_printf(
		    p,
		    "<p class=\"note\"><span class=\"outside\" data-events=\"%ld\">%ld GPU event%s (%.3f ms) "
		    "launched outside every step</span>, in no window.</p>\n",
		    d->outside_gpu, d->outside_gpu, d->outside_gpu == 1 ? "" : "s", ms(d->outside_gpu_ns));
	hp_graphs(p, d);
}

/* The causes of bucket b in w, "launch 1.234 ms, sync 0.5 ms", into buf. */
static void causes_text(const ns_split_window *w, ns_regime b, double per, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int c = 0; c < NS_CAUSE_COUNT && len < size; c++) {
		if (ns_cause_bucket((ns_cause)c) != b || w->cause_ns[c] <= 0)
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%s %.3f ms", len > 0 ? ", " : "",
		                        ns_cause_name((ns_cause)c), ms(w->cause_ns[c]) / per);
	}
}

/* The overall split as a table: the chart's numbers as text. */
static void put_split_table(ns_html_page *p, const ns_split_device *d)
{
	const ns_split_window *w = &d->overall;
	double per = (double)hp_counted_steps(d);
	char causes[256];

	hp_puts(p, "<table class=\"split\"><caption>Where a step's time goes (mean over the counted "
	           "steps)</caption>\n"
	           "<thead><tr><th>bucket</th><th class=\"n\">ms per step</th><th class=\"n\">share</th>"
	           "<th>causes (ms per step)</th></tr></thead><tbody>\n");
	for (int r = 0; r < NS_REGIME_COUNT; r++) {
		causes_text(w, (ns_regime)r, per, causes, sizeof(causes));
		hp_printf(p,
		          "<tr data-bucket=\"%s\"><td><i class=\"swatch\" style=\"background:%s\"></i>%s</td>"
		          "<td class=\"n ms\" data-v=\"%.6f\">%.3f</td><td class=\"n pct\" "
		          "data-v=\"%.4f\">%.1f%%</td><td>",
		          ns_regime_name((ns_regime)r), hp_bucket_colour((ns_regime)r),
		          ns_regime_name((ns_regime)r), ms(w->bucket_ns[r]) / per, ms(w->bucket_ns[r]) / per,
		          pct(w->bucket_ns[r], w->dur_ns), pct(w->bucket_ns[r], w->dur_ns));
		hp_text(p, causes, sizeof(causes));
		hp_puts(p, "</td></tr>\n");
	}
	hp_printf(p,
	          "</tbody><tfoot><tr><th>step</th><td class=\"n\">%.3f</td><td class=\"n\">100%%</td><td>"
	          "</td></tr></tfoot></table>\n",
	          ms(w->dur_ns) / per);
}

/* Causes of a bar: each cause with time, in ms (mean over the bar's steps). */
static void bar_causes(const ns_split_window *sum, double per, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int c = 0; c < NS_CAUSE_COUNT && len < size; c++)
		if (sum->cause_ns[c] > 0)
			len += (size_t)snprintf(
			    buf + len, size - len, "%s%s.%s %.3f",
			    len > 0 ? ", " : "causes (ms): ", ns_regime_name(ns_cause_bucket((ns_cause)c)),
			    ns_cause_name((ns_cause)c), ms(sum->cause_ns[c]) / per);
}

static void fill_bar(hp_bar *b, const ns_split_device *d, size_t first, size_t count)
{
	ns_split_window sum;

	memset(&sum, 0, sizeof(sum));
	memset(b, 0, sizeof(*b));
	for (size_t i = first; i < first + count; i++) {
		const ns_split_window w_copy = ns_split_device_step(d, i), *w = &w_copy;
		for (int r = 0; r < NS_REGIME_COUNT; r++)
			sum.bucket_ns[r] += w->bucket_ns[r];
		for (int c = 0; c < NS_CAUSE_COUNT; c++)
			sum.cause_ns[c] += w->cause_ns[c];
		b->marked = b->marked || w->warmup;
	}
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		b->v[r] = ms(sum.bucket_ns[r]) / (double)count;
	bar_causes(&sum, (double)count, b->extra, sizeof(b->extra));
	if (ns_split_device_step(d, first).step < 0) {
		snprintf(b->label, sizeof(b->label), "trace");
		snprintf(b->tip, sizeof(b->tip), "whole trace");
	} else if (count == 1) {
		snprintf(b->label, sizeof(b->label), "%" PRId64, ns_split_device_step(d, first).step);
		const char *phase = ns_step_phase_name((ns_step_phase)ns_split_device_step(d, first).phase);
		snprintf(b->tip, sizeof(b->tip), "step %" PRId64 "%s%s%s",
		         ns_split_device_step(d, first).step, phase != NULL ? " [" : "",
		         phase != NULL ? phase : "", phase != NULL ? "]" : "");
	} else {
		snprintf(b->label, sizeof(b->label), "%" PRId64, ns_split_device_step(d, first).step);
		snprintf(b->tip, sizeof(b->tip), "steps %" PRId64 "-%" PRId64 " (mean of %zu)",
		         ns_split_device_step(d, first).step, ns_split_device_step(d, first + count - 1).step,
		         count);
	}
}

static ns_status put_step_chart(ns_html_page *p, const ns_split_device *d, ns_error *err)
{
	size_t per, nbars = ns_html_step_groups(d->nsteps, NS_HTML_STEP_BARS_MAX, &per);
	hp_bar *bars = calloc(nbars > 0 ? nbars : 1, sizeof(*bars));
	char caption[200];

	if (bars == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory while writing the HTML report");
	for (size_t i = 0; i < nbars; i++) {
		size_t first = i * per, count = first + per <= d->nsteps ? per : d->nsteps - first;
		fill_bar(&bars[i], d, first, count);
	}
	if (per > 1)
		snprintf(caption, sizeof(caption),
		         "Time per step by bucket: %zu steps drawn as %zu bars, each the mean of %zu "
		         "consecutive steps.",
		         d->nsteps, nbars, per);
	else
		snprintf(caption, sizeof(caption), "Time per step by bucket (%zu step%s).", d->nsteps,
		         d->nsteps == 1 ? "" : "s");
	hp_puts(p, "<h3>Steps</h3>\n");
	hp_legend(p);
	hp_bar_chart(p, "steps", caption, bars, nbars, "ms");
	free(bars);
	return NS_OK;
}

static void put_comm(ns_html_page *p, const ns_split_device *d)
{
	const ns_split_window *w = &d->overall;
	double per = (double)hp_counted_steps(d);
	int64_t exposed = w->cause_ns[NS_CAUSE_EXPOSED], hidden = w->comm_overlapped_ns,
	        total = exposed + hidden;

	if (total <= 0 && w->cause_ns[NS_CAUSE_HOST_COMM] <= 0)
		return;
	hp_puts(p, "<h3>Communication</h3>\n");
	hp_printf(
	    p,
	    "<table class=\"comm\"><thead><tr><th>collectives on the device</th><th class=\"n\">ms per "
	    "step</th>"
	    "<th class=\"n\">share of the step</th><th class=\"n\">share of comm "
	    "time</th></tr></thead><tbody>\n"
	    "<tr data-comm=\"exposed\"><td>exposed (nothing else running: in the comm bucket)</td><td "
	    "class=\"n\">%.3f</td><td class=\"n\">%.1f%%</td><td class=\"n\">%.1f%%</td></tr>\n"
	    "<tr data-comm=\"hidden\"><td>hidden under compute or memory</td><td class=\"n\">%.3f</td><td "
	    "class=\"n\">%.1f%%</td><td class=\"n\">%.1f%%</td></tr>\n",
	    ms(exposed) / per, pct(exposed, w->dur_ns), pct(exposed, total), ms(hidden) / per,
	    pct(hidden, w->dur_ns), pct(hidden, total));
	if (w->cause_ns[NS_CAUSE_HOST_COMM] > 0)
		hp_printf(p,
		          "<tr data-comm=\"host\"><td>host collectives (gloo), device idle</td><td "
		          "class=\"n\">%.3f</td>"
		          "<td class=\"n\">%.1f%%</td><td></td></tr>\n",
		          ms(w->cause_ns[NS_CAUSE_HOST_COMM]) / per,
		          pct(w->cause_ns[NS_CAUSE_HOST_COMM], w->dur_ns));
	hp_puts(p, "</tbody></table>\n");
	if (total > 0) { /* one bar: exposed against hidden */
		double x = 200.0 * (double)exposed / (double)total;
		hp_printf(
		    p,
		    "<svg role=\"img\" viewBox=\"0 0 200 14\" width=\"400\" height=\"28\"><title>exposed "
		    "%.1f%%, "
		    "hidden %.1f%% of collective time</title><rect width=\"%.1f\" height=\"14\" fill=\"%s\"/>"
		    "<rect x=\"%.1f\" width=\"%.1f\" height=\"14\" fill=\"%s\" "
		    "fill-opacity=\"0.35\"/></svg>\n",
		    pct(exposed, total), pct(hidden, total), x, hp_bucket_colour(NS_REGIME_COMM), x,
		    200.0 - x, hp_bucket_colour(NS_REGIME_COMM));
	}
}

static void put_kernel_row(ns_html_page *p, const ns_split_result *res, const ns_split_kernel_time *k,
                           int64_t class_ns, double per)
{
	const char *name = ns_kernel_names_get(res->names, k->name_id);
	char shown[NS_HTML_NAME_MAX + 1];

	ns_report_short_name(name, shown, sizeof(shown));
	hp_puts(p, "<tr><td class=\"kname\" title=\"");
	hp_text(p, name, NS_HTML_TITLE_MAX);
	hp_puts(p, "\">");
	hp_text(p, shown, sizeof(shown));
	hp_printf(p,
	          "</td><td class=\"n\" data-v=\"%.6f\">%.3f</td><td class=\"n\" data-v=\"%.6f\">%.3f</td>"
	          "<td class=\"n\" data-v=\"%ld\">%ld</td><td class=\"n\" data-v=\"%.4f\">%.1f%%</td></tr>\n",
	          ms(k->ns), ms(k->ns), ms(k->ns) / per, ms(k->ns) / per, k->count, k->count,
	          pct(k->ns, class_ns), pct(k->ns, class_ns));
}

static void put_kernels(ns_html_page *p, const ns_split_result *res, const ns_split_device *d)
{
	static const ns_kernel_class classes[] = {NS_KCLASS_COMPUTE, NS_KCLASS_MEMORY, NS_KCLASS_COMM};
	static const ns_regime buckets[] = {NS_REGIME_COMPUTE, NS_REGIME_MEMORY, NS_REGIME_COMM};
	double per = (double)hp_counted_steps(d);

	if (!res->gpu_activity || d->nkernel_time == 0)
		return;
	hp_puts(p,
	        "<h3>Top kernels of each bucket</h3>\n<p class=\"note\">Kernel time inside the step windows; "
	        "<span class=\"screen\">click a column to sort. The full name is in each name's "
	        "tooltip.</span></p>\n");
	for (size_t c = 0; c < sizeof(classes) / sizeof(classes[0]); c++) {
		size_t shown = 0;
		if (d->class_ns[classes[c]] <= 0)
			continue;
		hp_printf(
		    p,
		    "<table class=\"kernels sortable\" data-class=\"%s\"><caption><i class=\"swatch\" "
		    "style=\"background:%s\"></i>%s kernels (%.3f ms in "
		    "all)</caption>\n<thead><tr><th>kernel</th>"
		    "<th class=\"n\">ms</th><th class=\"n\">ms per step</th><th class=\"n\">calls</th><th "
		    "class=\"n\">share of class</th></tr></thead><tbody>\n",
		    ns_kernel_class_name(classes[c]), hp_bucket_colour(buckets[c]),
		    ns_kernel_class_name(classes[c]), ms(d->class_ns[classes[c]]));
		for (size_t i = 0; i < d->nkernel_time && shown < NS_HTML_KERNELS_MAX; i++) {
			if (d->kernel_time[i].cls != classes[c])
				continue;
			put_kernel_row(p, res, &d->kernel_time[i], d->class_ns[classes[c]], per);
			shown++;
		}
		hp_puts(p, "</tbody></table>\n");
	}
}

/* timeline: draw the median step's strip (the first devices only: each costs up to a few hundred kB) */
static ns_status put_device_model(ns_html_page *p, const ns_split_result *res, const ns_split_device *d,
                                  const ns_device_report *m, const ns_html_trace_options *o, bool full,
                                  bool timeline, ns_error *err)
{
	hp_printf(p, "<section class=\"device\" id=\"s%u\">\n<h2>", p->sections++);
	hp_text(p, m->label, 200);
	hp_puts(p, "</h2>\n");
	if (m->unfit)
		hp_puts(p, "<div class=\"banner\" data-regime=\"unfit\"><p>No verdict: the trace is unfit "
		           "(above).</p></div>\n");
	else if (m->startup)
		put_startup_banner(p, m);
	else { /* the heading names the device; its findings are those the next steps do not give */
		ns_verdict shown = m->verdict;
		memcpy(shown.findings, m->also, sizeof(m->also));
		shown.nfindings = m->nalso;
		hp_banner_open(p, NULL, &shown, &m->routes);
		hp_optimizer_also(p, m);
		hp_puts(p, "</div>\n");
	}
	put_roof_notes(p, m);
	put_next_steps(p, m, res->has_steps);
	put_summary(p, res, d);
	if (m->shape_gemms > 0) { /* the text's line under the summary */
		char words[256];
		hp_printf(p, "<p class=\"note shape-gemm\" data-kernels=\"%ld\">", m->shape_gemms);
		hp_text(p, ns_report_shape_gemm_words(m, words, sizeof(words)), sizeof(words));
		hp_puts(p, "</p>\n");
	}
	hp_inference_phases(p, m);
	if (full) {
		bool chart = false;
		put_split_table(p, d);
		/* each large part only when its worst case still fits: the page's bound holds for any input
		 */
		if (d->nsteps > 0 && hp_fits(p, NS_HTML_STEP_BARS_MAX * BAR_WORST)) {
			if (put_step_chart(p, d, err) != NS_OK)
				return err->status;
			chart = true;
		}
		hp_passes(p, res, d, m, chart);
		if (hp_fits(p, NS_HTML_STEP_BARS_MAX * STEP_ROW_WORST))
			hp_steps_table(p, res, d, o);
		if (d->timeline != NULL && timeline &&
		    hp_fits(p, (unsigned long long)d->timeline->nrows * NS_SPLIT_TIMELINE_PX * RECT_WORST))
			hp_timeline(p, d->timeline);
		put_comm(p, d);
		if (hp_fits(p, NS_CAUSE_COUNT * NS_SPLIT_PYTHON_TOP * PY_ROW_WORST))
			hp_python(p, res, d, m, o->classify->high);
		if (hp_fits(p, 3 * NS_HTML_KERNELS_MAX * ROW_WORST))
			put_kernels(p, res, d);
		else
			hp_puts(p, "<p class=\"note\">Charts and tables left out: the page is full.</p>\n");
	}
	hp_puts(p, "</section>\n");
	return NS_OK;
}

static ns_status put_device(ns_html_page *p, const ns_split_result *res, const ns_split_device *d,
                            const ns_html_trace_options *o, bool full, bool timeline, ns_error *err)
{
	ns_device_report *m;
	ns_roof_time roof[NS_KCLASS_COUNT];
	ns_status st;

	if (o->reports != NULL)
		return put_device_model(p, res, d, &o->reports[d - res->device], o, full, timeline, err);
	if ((m = malloc(sizeof(*m))) == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory while writing the HTML report");
	ns_device_report_build(res, d, o->classify, o->routes,
	                       o->roof != NULL && o->roof(o->roof_ctx, d, roof) ? roof : NULL, o->devices, m);
	st = put_device_model(p, res, d, m, o, full, timeline, err);
	free(m);
	return st;
}

/* The roofline of the op with the most GPU time, on the device it was placed on; every placed op in a table.
 */
static void put_roofline(ns_html_page *p, const ns_html_trace_options *o)
{
	const ns_troof_report *r = o->roofline;
	size_t shown = 0;

	hp_puts(p, "<section class=\"roofline\"><h2>Roofline of the matmul ops</h2>\n");
	if (!r->device_known) {
		hp_puts(p,
		        "<p>The device is not in the device table: no op could be placed.</p></section>\n");
		return;
	}
	if (r->nrows > 0 && o->roof_device != NULL && r->rows[0].roof.attainable > 0.0) {
		const ns_troof_row *t = &r->rows[0];
		char label[200];
		snprintf(label, sizeof(label), "%.120s %s", t->name, ns_dtype_name(t->dtype));
		ns_roofline_plot plot = {o->roof_device,
		                         t->dtype,
		                         label,
		                         t->roof.intensity,
		                         t->roof.attainable,
		                         t->roof.timed,
		                         t->roof.achieved_flops,
		                         t->roof.fraction_of_roof};
		/* drawn into memory first, so the page counts its bytes */
		char *svg = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&svg, &len);
		bool drawn = false;
		if (mem != NULL) {
			ns_roofline_svg_write_inline(mem, &plot);
			drawn = ns_memstream_close(mem, &svg);
		}
		if (drawn)
			hp_puts(p, svg);
		else if (p->write_errno ==
		         0) /* a page without its plot is a failed page, not a shorter one */
			p->write_errno = ENOMEM;
		free(svg);
		hp_puts(p, "<p class=\"note\">The op with the most GPU time, placed with the sum of its "
		           "calls. Every "
		           "placed op:</p>\n");
	}
	hp_puts(p, "<table class=\"roofline-ops sortable\"><thead><tr><th>op</th><th>dims</th><th>dtype</th>"
	           "<th class=\"n\">calls</th><th class=\"n\">GPU ms</th><th class=\"n\">FLOP/B</th>"
	           "<th class=\"n\">of roof</th><th>bound</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < r->nrows && shown < 2 * NS_HTML_KERNELS_MAX; i++, shown++) {
		const ns_troof_row *t = &r->rows[i];
		hp_puts(p, "<tr><td>");
		hp_text(p, t->name, NS_HTML_NAME_MAX);
		hp_puts(p, "</td><td>");
		hp_text(p, t->dims, NS_HTML_NAME_MAX);
		hp_printf(p,
		          "</td><td>%s</td><td class=\"n\" data-v=\"%ld\">%ld</td><td class=\"n\" "
		          "data-v=\"%.6f\">%.3f</td>"
		          "<td class=\"n\" data-v=\"%.3f\">%.1f</td><td class=\"n\" "
		          "data-v=\"%.4f\">%.1f%%</td><td>%s</td></tr>\n",
		          ns_dtype_name(t->dtype), t->count, t->count, ms(t->gpu_ns), ms(t->gpu_ns),
		          t->roof.intensity, t->roof.intensity, t->roof.fraction_of_roof * 100.0,
		          t->roof.fraction_of_roof * 100.0, ns_regime_bound_word(t->roof.regime));
	}
	hp_puts(p, "</tbody></table>\n</section>\n");
}

/* How far the split can be trusted (the quality verdict, docs/trace.md): the grade and each problem that
 * lowers it, in the text report's words. Nothing for a good trace. */
static void put_quality(ns_html_page *p, const ns_split_result *res)
{
	const ns_split_quality *q = &res->quality;
	char detail[512];

	if (q->grade == NS_QUALITY_GOOD)
		return;
	hp_printf(p, "<div class=\"quality\" data-grade=\"%s\"><p><b>Trace quality: %s</b>%s</p>\n<ul>\n",
	          ns_quality_grade_name(q->grade), ns_quality_grade_name(q->grade),
	          q->grade == NS_QUALITY_UNFIT
	              ? ": the capture cannot support a verdict; read the split below with care"
	              : ": low confidence in the verdict");
	for (int k = 0; k < NS_QP_COUNT; k++) {
		if (q->problem[k].count == 0 || q->problem[k].grade == NS_QUALITY_GOOD)
			continue;
		ns_report_quality_detail(q, (ns_quality_kind)k, detail, sizeof(detail));
		hp_printf(p, "<li>%s: ", ns_quality_kind_name((ns_quality_kind)k));
		hp_text(p, detail, sizeof(detail));
		hp_puts(p, "</li>\n");
	}
	hp_puts(p, "</ul></div>\n");
}

ns_status ns_html_trace(ns_html_page *p, const ns_html_source *src, const ns_split_result *res,
                        const ns_html_trace_options *o, ns_error *err)
{
	bool full = hp_room_full(p);

	p->results++;
	if (!hp_room_line(p)) {
		p->dropped_sections++;
		return NS_OK;
	}
	hp_puts(p, "<article class=\"trace\">\n");
	hp_source(p, src);
	put_quality(p, res);
	if (res->ignored_step_markers > 0)
		hp_printf(p,
		          "<p class=\"note ignored-markers\" data-markers=\"%zu\">%zu step marker%s of "
		          "process %" PRId64 " ignored: it launched no device work.</p>\n",
		          res->ignored_step_markers, res->ignored_step_markers,
		          res->ignored_step_markers == 1 ? "" : "s", res->ignored_step_pid);
	if (res->ndevices == 0)
		hp_puts(p, "<p class=\"banner\">No device activity: nothing to route.</p>\n");
	else if (!res->gpu_activity)
		hp_puts(
		    p,
		    "<p class=\"note\">No device activity; the host's time is in collectives, split on the "
		    "host.</p>\n");
	for (size_t i = 0; i < res->ndevices; i++) {
		bool this_full = full && i < NS_HTML_DEVICES_FULL && hp_room_full(p);
		if (!hp_room_line(p)) {
			hp_printf(p, "<p class=\"note\">%zu more devices left out (page size).</p>\n",
			          res->ndevices - i);
			break;
		}
		if (put_device(p, res, &res->device[i], o, this_full, i < NS_HTML_TIMELINES_MAX, err) !=
		    NS_OK)
			return err->status;
	}
	if (o->roofline != NULL && hp_room_full(p) &&
	    hp_fits(p, 40 * 1024 + 2 * NS_HTML_KERNELS_MAX * ROW_WORST))
		put_roofline(p, o);
	hp_puts(p, "</article>\n");
	return NS_OK;
}
