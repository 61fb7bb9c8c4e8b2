/* The trace page's step details, so the page says what the text report says: where the steps came from,
 * CUDA/HIP graph replays, one verdict per inference phase (prefill and decode are opposite regimes), the
 * forward / backward / optimizer passes of each training step under the step chart with the optimizer
 * finding, the steps as a table, and the Python frames behind the host causes. Each part is bounded: a row or
 * a bar per bar of the step chart (at most NS_HTML_STEP_BARS_MAX), NS_SPLIT_PYTHON_TOP frames per cause. */
#include <inttypes.h>
#include <string.h>

#include "html_private.h"
#include "nextstep/trace_report.h"

static const char *const pass_names[NS_PASS_COUNT] = {"forward", "backward", "optimizer"};

/* Greys of distinct lightness, apart from the idle bucket's light grey: the passes never read as buckets
 * (which have the hues), stay apart in any form of colour blindness and in grey print, and the optimizer, the
 * pass with a finding, is the darkest. "other" is left white inside the bar's outline. */
static const hp_series pass_series[] = {
    {"forward", "#808080"}, {"backward", "#404040"}, {"optimizer", "#000000"}, {"other", "#FFFFFF"}};

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

size_t hp_counted_steps(const ns_split_device *d)
{
	size_t n = d->nsteps - d->nwarmup;

	return n > 0 ? n : (d->nsteps > 0 ? d->nsteps : 1);
}

void hp_route_window(const ns_split_window *w, const ns_html_trace_options *o, ns_verdict *v)
{
	ns_profile prof;

	ns_split_window_profile(w, &prof);
	ns_classify_profile(&prof, o->classify, v);
}

void hp_step_source(ns_html_page *p, const ns_split_result *res)
{
	const char *words = ns_report_step_source_words(res->ns_step_source, NULL);

	if (words != NULL)
		hp_printf(p, " (steps from <span class=\"step-source\">%s</span>)", words);
}

/* As the text report: replays of the whole capture (warm-up included) against all kernel time. */
void hp_graphs(ns_html_page *p, const ns_split_device *d)
{
	long launches = d->overall.graph_launches + d->warmup.graph_launches;
	long kernels = d->overall.graph_kernels + d->warmup.graph_kernels;
	int64_t ns = d->overall.graph_ns + d->warmup.graph_ns, total = 0;

	if (launches == 0)
		return;
	for (int c = 0; c < NS_KCLASS_COUNT; c++)
		total += d->class_ns[c];
	hp_printf(p,
	          "<p class=\"graphs\" data-launches=\"%ld\" data-kernels=\"%ld\">CUDA/HIP graphs: %.0f%% of "
	          "GPU time in %ld replay%s (%ld kernels, %.3f ms).</p>\n",
	          launches, kernels, pct(ns, total), launches, launches == 1 ? "" : "s", kernels, ms(ns));
}

/* The finding as the device report decided it (grade, share, the fix worded for the optimizer's class). */
static void put_optimizer_finding(ns_html_page *p, const ns_device_report *m, bool banner)
{
	const ns_route *f = &m->routes.finding[NS_FINDING_OPTIMIZER];

	hp_printf(
	    p,
	    "<p class=\"finding\" data-finding=\"optimizer\" data-grade=\"%s\">%s: optimizer step %.0f%% "
	    "of the step",
	    ns_grade_name(m->optimizer_grade), banner ? "Also high" : "Finding", m->optimizer_share * 100.0);
	if (!banner)
		hp_printf(p, " (%s)", ns_grade_name(m->optimizer_grade));
	if (f->fix != NULL) {
		hp_puts(p, " &rarr; ");
		hp_text(p, m->optimizer_fix, sizeof(m->optimizer_fix));
		if (f->module != NULL) {
			hp_puts(p, " (");
			hp_text(p, f->module, 200);
			hp_puts(p, ")");
		}
	}
	hp_puts(p, "</p>\n");
}

/* In the banner when the model repeats it, as the text report's "also:" line; the phases section gives it at
 * any grade.
 */
void hp_optimizer_also(ns_html_page *p, const ns_device_report *m)
{
	if (m->optimizer_also)
		put_optimizer_finding(p, m, true);
}

static bool has_inference_phases(const ns_device_report *m)
{
	for (int k = NS_STEP_PHASE_PREFILL; k < NS_STEP_PHASE_COUNT; k++)
		if (m->phase[k].steps > 0)
			return true;
	return false;
}

/* Each phase as the device report routed it (its phase set: decode's memory time takes decode's route). */
void hp_inference_phases(ns_html_page *p, const ns_device_report *m)
{
	if (!has_inference_phases(m))
		return;
	hp_puts(p,
	        "<table class=\"inference-phases\"><caption>Each inference phase routed on its own (prefill "
	        "and decode are opposite regimes)</caption>\n<thead><tr><th>phase</th><th "
	        "class=\"n\">steps</th><th class=\"n\">ms per step</th><th>verdict</th><th "
	        "class=\"n\">share</th><th>fix</th></tr></thead><tbody>\n");
	for (int k = NS_STEP_PHASE_PREFILL; k < NS_STEP_PHASE_COUNT; k++) {
		const ns_phase_report *ph = &m->phase[k];
		const ns_verdict *v = &ph->verdict;
		if (ph->steps == 0)
			continue;
		hp_printf(
		    p,
		    "<tr data-phase=\"%s\" data-regime=\"%s\"><td>%s</td><td class=\"n\">%zu</td><td "
		    "class=\"n\">%.3f</td><td><i class=\"swatch\" style=\"background:%s\"></i>%s</td><td "
		    "class=\"n\">%.0f%%</td><td class=\"fix\">",
		    ns_step_phase_name((ns_step_phase)k), ns_regime_name(v->regime),
		    ns_step_phase_name((ns_step_phase)k), ph->steps,
		    ms(ph->window.dur_ns) / (double)ph->steps, hp_bucket_colour(v->regime),
		    ns_regime_bound_word(v->regime), v->share * 100.0);
		hp_text(p, ph->routes.route[v->regime].fix, HTML_FIX_MAX);
		hp_puts(p, "</td></tr>\n");
	}
	hp_puts(p, "</tbody></table>\n");
	if (m->phase[NS_STEP_PHASE_DECODE].small_m_gemms > 0) { /* the text's line under the decode phase */
		char words[192];
		hp_printf(p, "<p class=\"note small-m\" data-kernels=\"%ld\">",
		          m->phase[NS_STEP_PHASE_DECODE].small_m_gemms);
		hp_text(p, ns_report_small_m_words(&m->phase[NS_STEP_PHASE_DECODE], words, sizeof(words)),
		        sizeof(words));
		hp_puts(p, "</p>\n");
	}
}

static int64_t other_ns(const ns_split_pass_time *t, int64_t dur)
{
	int64_t rest = dur;

	for (int k = 0; k < NS_PASS_COUNT; k++)
		rest -= t->ns[k];
	return rest > 0 ? rest : 0;
}

/* The strip's bar i: the mean pass times (ms) of the steps it stands for, as the step chart groups them. */
static void fill_strip_bar(hp_strip_bar *b, const ns_split_result *res, const ns_split_device *d,
                           size_t first, size_t count)
{
	ns_split_pass_time sum;
	int64_t dur = 0;

	memset(&sum, 0, sizeof(sum));
	memset(b, 0, sizeof(*b));
	for (size_t i = first; i < first + count; i++) {
		for (int k = 0; k < NS_PASS_COUNT; k++)
			sum.ns[k] += res->passes[i].ns[k];
		dur += ns_split_device_step(d, i).dur_ns;
	}
	for (int k = 0; k < NS_PASS_COUNT; k++)
		b->v[k] = ms(sum.ns[k]) / (double)count;
	b->v[NS_PASS_COUNT] = ms(other_ns(&sum, dur)) / (double)count;
	if (count == 1)
		snprintf(b->tip, sizeof(b->tip), "step %" PRId64 " host phases",
		         ns_split_device_step(d, first).step);
	else
		snprintf(b->tip, sizeof(b->tip), "steps %" PRId64 "-%" PRId64 " host phases (mean of %zu)",
		         ns_split_device_step(d, first).step, ns_split_device_step(d, first + count - 1).step,
		         count);
}

static void put_pass_strip(ns_html_page *p, const ns_split_result *res, const ns_split_device *d)
{
	size_t per, nbars = ns_html_step_groups(d->nsteps, NS_HTML_STEP_BARS_MAX, &per);
	hp_strip_bar bars[NS_HTML_STEP_BARS_MAX];

	if (nbars == 0 || nbars > NS_HTML_STEP_BARS_MAX || ns_split_device_step(d, 0).step < 0)
		return;
	for (size_t i = 0; i < nbars; i++) {
		size_t first = i * per, count = first + per <= d->nsteps ? per : d->nsteps - first;
		fill_strip_bar(&bars[i], res, d, first, count);
	}
	hp_strip(
	    p, "passes",
	    "Under each bar of the step chart: its host time in forward, backward, optimizer and other, as "
	    "shares of the step (a pass the trace does not mark is in other).",
	    pass_series, NS_PASS_COUNT + 1, bars, nbars, "ms");
}

void hp_passes(ns_html_page *p, const ns_split_result *res, const ns_split_device *d,
               const ns_device_report *m, bool strip)
{
	const ns_split_pass_time *t = &d->passes;
	int64_t dur = d->overall.dur_ns;
	double per = (double)hp_counted_steps(d);

	if (res->passes == NULL)
		return;
	hp_puts(p, "<h3>Phases of the step</h3>\n");
	if (strip && hp_fits(p, NS_HTML_STEP_BARS_MAX * STRIP_BAR_WORST))
		put_pass_strip(p, res, d);
	hp_puts(p,
	        "<table class=\"passes\"><caption>Host time in each pass (mean over the counted "
	        "steps)</caption>\n<thead><tr><th>pass</th><th "
	        "class=\"n\">ms per step</th><th class=\"n\">share of the step</th></tr></thead><tbody>\n");
	for (int k = 0; k <= NS_PASS_COUNT; k++) {
		int64_t ns = k < NS_PASS_COUNT ? t->ns[k] : other_ns(t, dur);
		if (k < NS_PASS_COUNT && !res->pass_marked[k]) { /* its time is in "other", not zero */
			hp_printf(
			    p,
			    "<tr data-pass=\"%s\" class=\"not-marked\"><td><i class=\"swatch\" "
			    "style=\"background:%s\"></i>%s</td><td colspan=\"2\">not marked</td></tr>\n",
			    pass_series[k].name, pass_series[k].colour, pass_series[k].name);
			continue;
		}
		hp_printf(
		    p,
		    "<tr data-pass=\"%s\"><td><i class=\"swatch\" style=\"background:%s\"></i>%s</td><td "
		    "class=\"n ms\" data-v=\"%.6f\">%.3f</td><td class=\"n pct\" data-v=\"%.4f\">%.1f%%</td>"
		    "</tr>\n",
		    pass_series[k].name, pass_series[k].colour, pass_series[k].name, ms(ns) / per,
		    ms(ns) / per, pct(ns, dur), pct(ns, dur));
	}
	hp_puts(p, "</tbody></table>\n");
	if (m->optimizer_grade != NS_GRADE_NONE)
		put_optimizer_finding(p, m, false);
}

/* One row per bar of the step chart: the chart's numbers as text, with each step's marker and phase. */
static void put_step_row(ns_html_page *p, const ns_split_result *res, const ns_split_device *d, size_t first,
                         size_t count, const ns_html_trace_options *o)
{
	const ns_split_window w0_copy = ns_split_device_step(d, first), *w0 = &w0_copy;
	ns_split_window sum;
	ns_split_pass_time passes;
	char buf[48];
	const char *marker = ns_report_step_marker(res, w0, buf, sizeof(buf));
	const char *phase = ns_step_phase_name((ns_step_phase)w0->phase);
	ns_verdict v;

	memset(&sum, 0, sizeof(sum));
	memset(&passes, 0, sizeof(passes));
	for (size_t i = first; i < first + count; i++) {
		const ns_split_window w_copy = ns_split_device_step(d, i), *w = &w_copy;
		sum.dur_ns += w->dur_ns;
		for (int r = 0; r < NS_REGIME_COUNT; r++)
			sum.bucket_ns[r] += w->bucket_ns[r];
		for (int c = 0; c < NS_CAUSE_COUNT; c++)
			sum.cause_ns[c] += w->cause_ns[c];
		sum.comm_overlapped_ns += w->comm_overlapped_ns;
		sum.kernel_ns = sum.kernel_ns < 0 || w->kernel_ns < 0 ? -1 : sum.kernel_ns + w->kernel_ns;
		sum.warmup = sum.warmup || w->warmup;
		for (int k = 0; res->passes != NULL && k < NS_PASS_COUNT; k++)
			passes.ns[k] += res->passes[i].ns[k];
	}
	hp_route_window(&sum, o, &v);
	if (count == 1)
		hp_printf(p, "<tr%s><td class=\"n\">%" PRId64 "</td><td>",
		          sum.warmup ? " class=\"warmup\"" : "", w0->step);
	else
		hp_printf(p, "<tr%s><td class=\"n\">%" PRId64 "-%" PRId64 "</td><td>",
		          sum.warmup ? " class=\"warmup\"" : "", w0->step,
		          ns_split_device_step(d, first + count - 1).step);
	hp_text(p, marker != NULL ? marker : "", NS_HTML_NAME_MAX);
	hp_printf(p, "</td><td>%s%s</td><td class=\"n\" data-v=\"%.6f\">%.3f</td><td>%s %.0f%%</td>",
	          phase != NULL ? phase : "", sum.warmup ? (phase != NULL ? ", warm-up" : "warm-up") : "",
	          ms(sum.dur_ns) / (double)count, ms(sum.dur_ns) / (double)count, ns_regime_name(v.regime),
	          v.share * 100.0);
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		hp_printf(p, "<td class=\"n\" data-v=\"%.6f\">%.3f</td>",
		          ms(sum.bucket_ns[r]) / (double)count, ms(sum.bucket_ns[r]) / (double)count);
	for (int k = 0; res->passes != NULL && k < NS_PASS_COUNT; k++)
		if (res->pass_marked[k])
			hp_printf(p, "<td class=\"n\" data-v=\"%.6f\">%.3f</td>",
			          ms(passes.ns[k]) / (double)count, ms(passes.ns[k]) / (double)count);
	hp_puts(p, "</tr>\n");
}

void hp_steps_table(ns_html_page *p, const ns_split_result *res, const ns_split_device *d,
                    const ns_html_trace_options *o)
{
	size_t per, nbars = ns_html_step_groups(d->nsteps, NS_HTML_STEP_BARS_MAX, &per);

	if (nbars == 0 || ns_split_device_step(d, 0).step < 0)
		return;
	hp_puts(p,
	        "<details class=\"steps-table\"><summary>The steps as a table</summary>\n<table "
	        "class=\"steps sortable\"><thead><tr><th class=\"n\">step</th><th>marker</th><th>phase</th>"
	        "<th class=\"n\">ms</th><th>verdict</th>");
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		hp_printf(p, "<th class=\"n\">%s ms</th>", ns_regime_name((ns_regime)r));
	for (int k = 0; res->passes != NULL && k < NS_PASS_COUNT; k++)
		if (res->pass_marked[k]) /* an unmarked pass is no column of zeros */
			hp_printf(p, "<th class=\"n\">%s ms</th>", pass_names[k]);
	hp_puts(p, "</tr></thead><tbody>\n");
	for (size_t i = 0; i < nbars; i++) {
		size_t first = i * per, count = first + per <= d->nsteps ? per : d->nsteps - first;
		put_step_row(p, res, d, first, count, o);
	}
	hp_puts(p, "</tbody></table>\n");
	if (per > 1)
		hp_printf(p,
		          "<p class=\"note\">Each row is the mean of %zu consecutive steps, as the chart's "
		          "bars.</p>\n",
		          per);
	hp_puts(p, "</details>\n");
}

static const ns_cause host_causes[] = {NS_CAUSE_LAUNCH, NS_CAUSE_HOST_THREADS, NS_CAUSE_SYNC,
                                       NS_CAUSE_HOST_GAP, NS_CAUSE_OPTIMIZER};

/* Without frames, where the device report says the hint applies and the host causes hold a high share: how
 * to record them (the text report's hint). */
static void put_python_hint(ns_html_page *p, double share, double high, const ns_split_result *res)
{
	char words[NS_REPORT_FIX_MAX];

	if (share <= 0.0 || share < high)
		return;
	if (res->nsys) { /* the text report's words (ns_report_export_hint) */
		ns_report_export_hint(res, words, sizeof(words));
		hp_printf(p, "<p class=\"note python-hint\">Host-side causes hold %.0f%% of the time and ",
		          share * 100.0);
		hp_text(p, words, sizeof(words));
		hp_printf(p, ".</p>\n");
		return;
	}
	hp_printf(p,
	          "<p class=\"note python-hint\">Host-side causes hold %.0f%% of the time and the trace has "
	          "no Python frames: record with torch.profiler.profile(with_stack=True) to see the Python "
	          "behind them.</p>\n",
	          share * 100.0);
}

void hp_python(ns_html_page *p, const ns_split_result *res, const ns_split_device *d,
               const ns_device_report *m, double high)
{
	const ns_split_window *w = &d->overall;
	bool any = false;

	if (res->python_frames == 0) {
		put_python_hint(p, m->python_hint, high, res);
		return;
	}
	for (size_t i = 0; i < sizeof(host_causes) / sizeof(host_causes[0]); i++) {
		ns_cause c = host_causes[i];
		const ns_split_python_cause *py = &d->python[c];
		char key[64];
		if (w->cause_ns[c] <= 0)
			continue;
		if (!any) /* an Nsight Systems export's frames are its OS runtime calls (docs/nsys.md) */
			hp_printf(p,
			          "<h3>%s behind the host time</h3>\n<table class=\"python\"><caption>Self "
			          "time of the innermost %s while the device was idle, per host "
			          "cause</caption>\n<thead><tr><th>frame</th><th class=\"n\">ms</th><th "
			          "class=\"n\">share of the cause</th></tr></thead>\n",
			          res->nsys ? "OS runtime calls" : "Python",
			          res->nsys ? "traced OS runtime call" : "recorded Python frame");
		any = true;
		ns_cause_key(c, key, sizeof(key));
		hp_printf(p,
		          "<tbody data-cause=\"%s\"><tr><th>%s %.3f ms</th><th class=\"n\"></th><th "
		          "class=\"n\">%.0f%% "
		          "inside %s</th></tr>\n",
		          key, key, ms(w->cause_ns[c]), pct(py->framed_ns, w->cause_ns[c]),
		          res->nsys ? "traced OS runtime calls" : "recorded Python");
		for (size_t k = 0; k < py->ntop; k++) {
			hp_puts(p, "<tr><td class=\"kname\">");
			hp_text(p, ns_kernel_names_get(res->python_names, py->top[k].name_id),
			        NS_HTML_NAME_MAX);
			hp_printf(p,
			          "</td><td class=\"n\" data-v=\"%.6f\">%.3f</td><td "
			          "class=\"n\">%.1f%%</td></tr>\n",
			          ms(py->top[k].ns), ms(py->top[k].ns), pct(py->top[k].ns, w->cause_ns[c]));
		}
		hp_puts(p, "</tbody>\n");
	}
	if (any)
		hp_puts(p, "</table>\n");
	if (res->python_dropped > 0)
		hp_printf(p, "<p class=\"note\">%zu Python frames not kept (over the limit of %u).</p>\n",
		          res->python_dropped, (unsigned)NS_SPLIT_PYTHON_MAX_FRAMES);
}
