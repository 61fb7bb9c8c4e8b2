/* The job report and `nextstep job`: rank summaries merged as they stream in, then the job routed through the
 * classifier, routes and formatter like any other split. */
#define _POSIX_C_SOURCE 200809L
#include "cli_job.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "cli_common.h"
#include "cli_html.h"
#include "cli_options.h"
#include "nextstep/classify.h"
#include "nextstep/format.h"
#include "nextstep/trace_report.h"

/* A cause holding at least this share of its bucket names the bucket's fix (as in the trace report). */
#define JOB_CAUSE_MAJORITY 0.5
/* Width of the per-rank bar. */
#define BAR_WIDTH 20
/* Longest summary line read (a rank of a million steps is a few hundred MB). */
#define JOB_LINE_MAX ((size_t)1 << 30)

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* ---- routing ---- */

/* in, with each bucket's route replaced by its dominant cause's. */
static void cause_routes(const split_window *w, const ns_routes *in, ns_routes *out)
{
	*out = *in;
	for (int k = 0; k < CAUSE_COUNT; k++) {
		ns_regime b = cause_bucket((ns_cause)k);
		if (w->bucket_ns[b] > 0 &&
		    (double)w->cause_ns[k] >= JOB_CAUSE_MAJORITY * (double)w->bucket_ns[b] &&
		    in->cause[k].fix != NULL)
			out->route[b] = in->cause[k];
	}
}

/* The route that fixes a straggler: its bucket's, or that bucket's dominant cause's. */
static ns_route straggler_route(const cli_config *cfg, const job_result *res, const job_straggler *s)
{
	ns_routes r;

	for (size_t i = 0; i < res->nranks; i++) {
		if (res->rank[i].src->rank == s->rank) {
			cause_routes(&res->rank[i].overall, &cfg->routes, &r);
			return r.route[s->bucket];
		}
	}
	return cfg->routes.route[s->bucket];
}

/* A rank's routes: when waiting is most of its exposed comm and a straggler is known, comm routes to the
 * straggler's fix (the collectives are slow because that rank arrives late). fix_buf holds the text. */
static void rank_routes(const cli_config *cfg, const job_result *res, const job_rank_result *r,
                        ns_routes *out, char *fix_buf, size_t size)
{
	const split_window *w = &r->overall;
	int64_t wait = w->cause_ns[CAUSE_WAIT], exposed = wait + w->cause_ns[CAUSE_COMM_TRANSFER];

	cause_routes(w, &cfg->routes, out);
	if (res->nstrag == 0 || r->straggler || exposed == 0 || 2 * wait < exposed)
		return;
	const job_straggler *s = &res->strag[0];
	for (size_t i = 0; i < res->nstrag; i++)
		if (res->strag[i].rank == r->waited_for)
			s = &res->strag[i];
	ns_route fix = straggler_route(cfg, res, s);
	snprintf(fix_buf, size, "waiting for rank %" PRId64 " (%s): %s", s->rank, regime_name(s->bucket),
	         fix.fix != NULL ? fix.fix : "");
	out->route[REGIME_COMM] = fix;
	out->route[REGIME_COMM].fix = fix_buf;
}

static void verdict_of(const cli_config *cfg, const split_window *w, ns_verdict *v)
{
	ns_profile p;

	split_window_profile(w, &p);
	classify_profile(&p, &cfg->classify, v);
}

/* The median split has no causes of its own: its bucket takes the route of the cause that dominates that
 * bucket on most ranks (comm mostly waiting on most ranks routes to comm.wait's fix). */
static void median_cause_route(const cli_config *cfg, const job_result *res, ns_regime b, ns_routes *routes)
{
	size_t votes[CAUSE_COUNT] = {0};

	for (size_t i = 0; i < res->nranks; i++) {
		const split_window *w = &res->rank[i].overall;
		for (int k = 0; k < CAUSE_COUNT; k++)
			if (cause_bucket((ns_cause)k) == b && w->bucket_ns[b] > 0 &&
			    (double)w->cause_ns[k] >= JOB_CAUSE_MAJORITY * (double)w->bucket_ns[b])
				votes[k]++;
	}
	for (int k = 0; k < CAUSE_COUNT; k++)
		if (2 * votes[k] > res->nranks && cfg->routes.cause[k].fix != NULL)
			routes->route[b] = cfg->routes.cause[k];
}

/* The job verdict: the straggler's bucket with its share, else the median split's verdict. */
static void job_verdict(const cli_config *cfg, const job_result *res, ns_verdict *v, ns_routes *routes)
{
	*routes = cfg->routes;
	if (res->nstrag == 0) {
		classify_profile(&res->median, &cfg->classify, v);
		median_cause_route(cfg, res, v->regime, routes);
		return;
	}
	/* The straggler's own split, its slow bucket as the regime: the job's step time is that rank's. */
	const job_straggler *s = &res->strag[0];
	const job_rank_result *r = &res->rank[0];
	for (size_t i = 0; i < res->nranks; i++)
		if (res->rank[i].src->rank == s->rank)
			r = &res->rank[i];
	verdict_of(cfg, &r->overall, v);
	if (v->regime != s->bucket) {
		v->runner_up = v->regime;
		v->runner_up_share = v->share;
		v->regime = s->bucket;
		v->share = v->split[s->bucket];
		v->margin = v->share - v->runner_up_share;
		v->by_priority = false;
	}
	routes->route[s->bucket] = straggler_route(cfg, res, s);
}

void cli_job_verdict(const cli_config *cfg, const job_result *res, ns_verdict *v, ns_routes *routes)
{
	job_verdict(cfg, res, v, routes);
}

/* ---- order of the rank table ---- */

typedef struct {
	const job_result *res;
	int64_t median_noncomm;
} order_ctx;

static order_ctx g_order; /* qsort has no context argument in C11 */

static int64_t distance(const job_rank_result *r)
{
	int64_t d = r->noncomm_ns - g_order.median_noncomm;
	return d < 0 ? -d : d;
}

static int cmp_outliers(const void *a, const void *b)
{
	const job_rank_result *x = *(job_rank_result *const *)a, *y = *(job_rank_result *const *)b;
	int64_t dx = distance(x), dy = distance(y);

	if (x->straggler != y->straggler)
		return x->straggler ? -1 : 1;
	if (dx != dy)
		return (dx < dy) - (dx > dy);
	return (x->src->rank > y->src->rank) - (x->src->rank < y->src->rank);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Ranks, outliers first (stragglers, then by distance from the median non-comm step time). NULL on OOM. */
static const job_rank_result **ranks_in_order(const job_result *res)
{
	const job_rank_result **v = malloc((res->nranks + 1) * sizeof(const job_rank_result *));
	int64_t *nc = malloc((res->nranks + 1) * sizeof(*nc));

	if (v == NULL || nc == NULL) {
		free(v);
		free(nc);
		return NULL;
	}
	for (size_t i = 0; i < res->nranks; i++) {
		v[i] = &res->rank[i];
		nc[i] = res->rank[i].noncomm_ns;
	}
	qsort(nc, res->nranks, sizeof(*nc), cmp_i64);
	g_order = (order_ctx){res, res->nranks > 0 ? nc[res->nranks / 2] : 0};
	free(nc);
	qsort(v, res->nranks, sizeof(const job_rank_result *), cmp_outliers);
	return v;
}

/* ---- text ---- */

static const char bar_glyph[REGIME_COUNT] = {'#', '=', '~', 'D', 'o', '.'};

static void print_bar(FILE *out, const split_window *w)
{
	int filled = 0;
	double acc = 0;

	fputc('|', out);
	for (int b = 0; b < REGIME_COUNT; b++) {
		acc += w->dur_ns > 0 ? (double)w->bucket_ns[b] / (double)w->dur_ns : 0;
		int upto = (int)(acc * BAR_WIDTH + 0.5);
		for (; filled < upto && filled < BAR_WIDTH; filled++)
			fputc(bar_glyph[b], out);
	}
	for (; filled < BAR_WIDTH; filled++)
		fputc(' ', out);
	fputc('|', out);
}

static void print_rank_row(FILE *out, const cli_config *cfg, const job_rank_result *r)
{
	const split_window *w = &r->overall;
	ns_verdict v;

	verdict_of(cfg, w, &v);
	fprintf(out, "%6" PRId64 " %9.3f", r->src->rank, (double)r->median_step_ns / 1e6);
	for (int b = 0; b < REGIME_COUNT; b++)
		fprintf(out, " %5.1f%%", pct(w->bucket_ns[b], w->dur_ns));
	fputs("  ", out);
	print_bar(out, w);
	fprintf(out, " %s (%.0f%%)%s\n", regime_bound_word(v.regime), v.share * 100.0,
	        r->straggler ? "  straggler" : "");
}

static void print_table(FILE *out, const cli_config *cfg, const job_rank_result **order, size_t n)
{
	fputs("  rank   step ms compute  memory    comm    data overhead   idle  "
	      "#compute =memory ~comm Ddata o.head .idle\n",
	      out);
	for (size_t i = 0; i < n; i++)
		print_rank_row(out, cfg, order[i]);
}

/* "rank 0 comm: 28% exposed = 19% waiting for rank 5 + 9% transfer", and where waiting is most of it, the fix
 * it routes to. */
static void print_comm_lines(FILE *out, const cli_config *cfg, const job_result *res,
                             const job_rank_result **order)
{
	if (!res->split) {
		fprintf(out, "comm: waiting and transfer not told apart: %s\n", res->why_not);
		return;
	}
	for (size_t i = 0; i < res->nranks; i++) {
		const split_window *w = &order[i]->overall;
		int64_t wait = w->cause_ns[CAUSE_WAIT], xfer = w->cause_ns[CAUSE_COMM_TRANSFER];
		if (wait + xfer == 0)
			continue;
		fprintf(out, "rank %" PRId64 " comm: %.0f%% exposed = %.0f%% waiting", order[i]->src->rank,
		        pct(wait + xfer, w->dur_ns), pct(wait, w->dur_ns));
		if (order[i]->waited_for >= 0)
			fprintf(out, " for rank %" PRId64, order[i]->waited_for);
		fprintf(out, " + %.0f%% transfer", pct(xfer, w->dur_ns));
		if (2 * wait >= wait + xfer) {
			ns_routes routes;
			char fix[1024];
			rank_routes(cfg, res, order[i], &routes, fix, sizeof(fix));
			fprintf(out, " -> %s", routes.route[REGIME_COMM].fix);
		}
		fputc('\n', out);
	}
}

static void print_stragglers(FILE *out, const cli_config *cfg, const job_result *res)
{
	for (size_t i = 0; i < res->nstrag; i++) {
		const job_straggler *s = &res->strag[i];
		ns_route r = straggler_route(cfg, res, s);
		fprintf(out,
		        "straggler: rank %" PRId64
		        " - %s %.0f%% vs median %.0f%% (+%.3f ms of non-comm time a step) "
		        "-> %s (%s)\n",
		        s->rank, regime_name(s->bucket), s->share * 100.0, s->median_share * 100.0,
		        (double)s->excess_ns / 1e6, r.fix != NULL ? r.fix : "",
		        r.module != NULL ? r.module : "");
	}
}

static void print_clocks(FILE *out, const job_result *res)
{
	bool any = false;

	for (size_t i = 1; i < res->nranks; i++)
		any = any || (res->rank[i].has_offset && res->rank[i].offset_ns != 0);
	if (!res->split || !any)
		return;
	fprintf(out, "clocks: aligned on %zu collectives; offset to rank %" PRId64 ":", res->matched,
	        res->rank[0].src->rank);
	for (size_t i = 1; i < res->nranks; i++)
		fprintf(out, "%s rank %" PRId64 " %+.3f ms", i > 1 ? "," : "", res->rank[i].src->rank,
		        (double)res->rank[i].offset_ns / 1e6);
	fputc('\n', out);
}

static void print_text(FILE *out, const cli_config *cfg, const job_result *res, const job_rank_result **order)
{
	ns_verdict v;
	ns_routes routes;
	char label[96];

	job_verdict(cfg, res, &v, &routes);
	if (res->world_size > 0 && (size_t)res->world_size != res->nranks)
		snprintf(label, sizeof(label), "job (%zu of %" PRId64 " ranks)", res->nranks,
		         res->world_size);
	else
		snprintf(label, sizeof(label), "job (%zu rank%s)", res->nranks, res->nranks == 1 ? "" : "s");
	if (res->nstrag > 0) {
		const job_straggler *s = &res->strag[0];
		fprintf(
		    out, "%s: %sstraggler-bound: rank %" PRId64 ", %s %.0f%% vs median %.0f%%%s -> %s (%s)\n",
		    label, format_style(&cfg->format, FORMAT_STYLE_VERDICT), s->rank, regime_name(s->bucket),
		    s->share * 100.0, s->median_share * 100.0, format_style(&cfg->format, FORMAT_STYLE_RESET),
		    routes.route[s->bucket].fix, routes.route[s->bucket].module);
	} else {
		format_verdict_line(out, label, &v, &routes, &cfg->format);
	}
	if (cfg->format.verbose)
		format_verdict_explain(out, &v, &routes, &cfg->format);
	print_stragglers(out, cfg, res);
	print_table(out, cfg, order, res->nranks);
	print_comm_lines(out, cfg, res, order);
	print_clocks(out, res);
	if (res->nranks == 1)
		fputs("note: one rank only: no straggler can be named and waiting is not told from transfer "
		      "(give every rank of the job)\n",
		      out);
}

/* ---- JSON ---- */

static cJSON *us_number(int64_t ns)
{
	return cJSON_CreateNumber((double)ns / 1e3);
}

/* A copy of step window i of r's judged device with its exposed comm split into wait and transfer. */
static split_window split_step(const job_rank_result *r, size_t i)
{
	split_window w = r->src->dev[r->device].steps[i];
	int64_t exposed = w.cause_ns[CAUSE_EXPOSED], wait;

	if (r->step_wait_ns == NULL)
		return w;
	wait = r->step_wait_ns[i] < exposed ? r->step_wait_ns[i] : exposed;
	w.cause_ns[CAUSE_WAIT] = wait;
	w.cause_ns[CAUSE_COMM_TRANSFER] = exposed - wait;
	w.cause_ns[CAUSE_EXPOSED] = 0;
	return w;
}

static cJSON *device_json(const cli_config *cfg, const job_rank_result *r, size_t d)
{
	const job_device *dev = &r->src->dev[d];
	report_options o = {&cfg->classify, &cfg->routes, &cfg->format, r->src->file, false, 0, NULL};
	cJSON *obj = cJSON_CreateObject(), *steps;
	char label[TRACE_DEVICE_NAME_MAX + 64];
	bool ok = obj != NULL, judged = d == r->device;

	snprintf(label, sizeof(label), "rank %" PRId64 " dev %" PRId64, r->src->rank, dev->id);
	ok = ok &&
	     cJSON_AddItemToObject(obj, "device",
	                           dev->id >= 0 ? cJSON_CreateNumber((double)dev->id) : cJSON_CreateNull());
	ok = ok &&
	     cJSON_AddItemToObject(obj, "name",
	                           dev->name[0] != '\0' ? cJSON_CreateString(dev->name) : cJSON_CreateNull());
	ok = ok && cJSON_AddNumberToObject(obj, "rank", (double)r->src->rank);
	ok = ok &&
	     cJSON_AddItemToObject(
	         obj, "overall", report_window_json(label, judged ? &r->overall : &dev->overall, false, &o));
	ok = ok && (steps = cJSON_AddArrayToObject(obj, "steps")) != NULL;
	for (size_t i = 0; ok && i < dev->nsteps; i++) {
		split_window w = judged ? split_step(r, i) : dev->steps[i];
		char step_label[TRACE_DEVICE_NAME_MAX + 96];
		snprintf(step_label, sizeof(step_label), "%s step %" PRId64, label, w.step);
		ok = cJSON_AddItemToArray(steps, report_window_json(step_label, &w, true, &o));
	}
	ok = ok && cJSON_AddNumberToObject(obj, "collectives", (double)dev->ncoll);
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

static cJSON *rank_json(const cli_config *cfg, const job_result *res, const job_rank_result *r)
{
	cJSON *obj = cJSON_CreateObject(), *devs;
	ns_verdict v;
	ns_routes routes;
	char fix[1024], label[64];
	bool ok = obj != NULL;

	snprintf(label, sizeof(label), "rank %" PRId64, r->src->rank);
	rank_routes(cfg, res, r, &routes, fix, sizeof(fix));
	verdict_of(cfg, &r->overall, &v);
	ok = ok && cJSON_AddNumberToObject(obj, "rank", (double)r->src->rank);
	ok = ok && cJSON_AddStringToObject(obj, "file", r->src->file);
	ok = ok && cJSON_AddItemToObject(obj, "verdict", format_verdict_json(label, &v, &routes));
	ok = ok && cJSON_AddItemToObject(obj, "median_step_us", us_number(r->median_step_ns));
	ok = ok && cJSON_AddItemToObject(obj, "noncomm_us", us_number(r->noncomm_ns));
	ok = ok && cJSON_AddBoolToObject(obj, "straggler", r->straggler);
	ok = ok && cJSON_AddItemToObject(obj, "clock_offset_us",
	                                 r->has_offset && res->split ? us_number(r->offset_ns)
	                                                             : cJSON_CreateNull());
	ok = ok && cJSON_AddItemToObject(obj, "waited_for",
	                                 r->waited_for >= 0 ? cJSON_CreateNumber((double)r->waited_for)
	                                                    : cJSON_CreateNull());
	ok = ok && cJSON_AddItemToObject(obj, "comm_wait_us",
	                                 res->split ? us_number(r->overall.cause_ns[CAUSE_WAIT])
	                                            : cJSON_CreateNull());
	if (ok && res->split && r->step_wait_ns != NULL) {
		cJSON *waits = cJSON_AddArrayToObject(obj, "steps_comm_wait_us");
		ok = waits != NULL;
		for (size_t i = 0; ok && i < r->src->dev[r->device].nsteps; i++)
			ok = cJSON_AddItemToArray(waits, us_number(r->step_wait_ns[i]));
	}
	ok = ok && (devs = cJSON_AddArrayToObject(obj, "devices")) != NULL;
	for (size_t d = 0; ok && d < r->src->ndev; d++)
		ok = cJSON_AddItemToArray(devs, device_json(cfg, r, d));
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

static bool add_job_fields(const cli_config *cfg, const job_result *res, cJSON *j)
{
	cJSON *st = cJSON_AddArrayToObject(j, "stragglers"), *off;
	bool ok = st != NULL;

	if (ok && res->nstrag > 0)
		ok = cJSON_ReplaceItemInObject(j, "verdict", cJSON_CreateString("straggler-bound"));
	ok = ok &&
	     cJSON_AddNumberToObject(j, "world_size",
	                             (double)(res->world_size > 0 ? res->world_size : (int64_t)res->nranks));
	ok = ok && cJSON_AddNumberToObject(j, "ranks", (double)res->nranks);
	for (size_t i = 0; ok && i < res->nstrag; i++) {
		const job_straggler *s = &res->strag[i];
		cJSON *o = cJSON_CreateObject();
		ok = o != NULL && cJSON_AddItemToArray(st, o);
		ok = ok && cJSON_AddNumberToObject(o, "rank", (double)s->rank);
		ok = ok && cJSON_AddStringToObject(o, "bucket", regime_name(s->bucket));
		ok = ok && cJSON_AddNumberToObject(o, "share", format_tidy(s->share));
		ok = ok && cJSON_AddNumberToObject(o, "median_share", format_tidy(s->median_share));
		ok = ok && cJSON_AddItemToObject(o, "excess_us", us_number(s->excess_ns));
		ok = ok && cJSON_AddStringToObject(o, "fix", straggler_route(cfg, res, s).fix);
	}
	ok = ok && (off = cJSON_AddObjectToObject(j, "clock_offset_us")) != NULL;
	for (size_t i = 0; ok && res->split && i < res->nranks; i++) {
		char key[32];
		snprintf(key, sizeof(key), "%" PRId64, res->rank[i].src->rank);
		ok = cJSON_AddItemToObject(off, key, us_number(res->rank[i].offset_ns));
	}
	ok = ok && cJSON_AddBoolToObject(j, "comm_split", res->split);
	ok = ok && cJSON_AddItemToObject(j, "comm_split_refused",
	                                 res->split ? cJSON_CreateNull() : cJSON_CreateString(res->why_not));
	ok = ok && cJSON_AddNumberToObject(j, "matched_collectives", (double)res->matched);
	return ok;
}

static cJSON *job_json(const cli_config *cfg, const job_result *res, const job_rank_result **order)
{
	cJSON *root = cJSON_CreateObject(), *j, *ranks;
	ns_verdict v;
	ns_routes routes;
	bool ok;

	job_verdict(cfg, res, &v, &routes);
	j = format_verdict_json("job", &v, &routes);
	ok = root != NULL && j != NULL && cJSON_AddItemToObject(root, "job", j);
	if (!ok)
		cJSON_Delete(j);
	ok = ok && add_job_fields(cfg, res, j);
	ok = ok && (ranks = cJSON_AddArrayToObject(root, "ranks")) != NULL;
	for (size_t i = 0; ok && i < res->nranks; i++)
		ok = cJSON_AddItemToArray(ranks, rank_json(cfg, res, order[i]));
	if (!ok) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

int cli_job_report(const cli_config *cfg, const job_result *res, FILE *out)
{
	const job_rank_result **order = ranks_in_order(res);
	ns_verdict v;
	ns_routes routes;
	int rc = EXIT_ROUTED;

	if (order == NULL) {
		fputs("nextstep: out of memory\n", stderr);
		return EXIT_BAD_INPUT;
	}
	if (cfg->format.kind == FORMAT_JSON) {
		cJSON *root = job_json(cfg, res, order);
		if (root == NULL || format_print_json(out, root) != NS_OK) {
			fputs("nextstep: out of memory while writing the job report\n", stderr);
			rc = EXIT_BAD_INPUT;
		}
		cJSON_Delete(root);
	} else if (cfg->format.kind == FORMAT_QUIET) {
		job_verdict(cfg, res, &v, &routes);
		fprintf(out, "%s\n", regime_name(v.regime));
	} else {
		print_text(out, cfg, res, order);
	}
	free((void *)order);
	fflush(out);
	if (rc == EXIT_ROUTED && !cli_output_ok())
		rc = EXIT_BAD_INPUT;
	return rc;
}

/* ---- nextstep job ---- */

/* --html: the inputs named on the page (the first JOB_HTML_INPUTS, the rest counted). */
#define JOB_HTML_INPUTS 64

typedef struct {
	job_merge *merge;
	int rc;
	cli_html *html;
	cli_html_digest *dg; /* JOB_HTML_INPUTS of each, with html */
	html_source *src;
	size_t nsrc, more;
} job_ctx;

static void line_error(job_ctx *j, const char *where, long line, ns_error *err)
{
	err->line = line;
	err->index = -1;
	err->offset = -1;
	cli_report_error(where, err);
	j->rc = EXIT_BAD_INPUT;
}

static void take_line(job_ctx *j, const char *where, long lineno, const char *line, size_t len)
{
	job_rank *k = NULL;
	ns_error err;
	size_t i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	if (i == len)
		return; /* blank lines are allowed between records */
	ns_error_clear(&err);
	if (job_rank_from_ndjson(line, len, &k, &err) != NS_OK || job_merge_add(j->merge, k, &err) != NS_OK)
		line_error(j, where, lineno, &err);
}

/* Splits the input into lines as it arrives; memory: the longest line. */
static int read_summaries(void *ctx, ns_input *in, bool labelled)
{
	job_ctx *j = ctx;
	const char *where = input_display_name(in);
	size_t cap = 1 << 16, n = 0, start = 0;
	char *buf = malloc(cap);
	long lineno = 1;

	(void)labelled;
	if (j->html != NULL && j->nsrc < JOB_HTML_INPUTS)
		cli_html_digest_start(&j->dg[j->nsrc], in);
	if (buf == NULL) {
		fputs("nextstep: out of memory\n", stderr);
		return EXIT_BAD_INPUT;
	}
	for (;;) {
		if (n == cap && start > 0) { /* slide the unfinished line to the front */
			memmove(buf, buf + start, n - start);
			n -= start;
			start = 0;
		}
		if (n == cap) {
			char *grown = cap * 2 <= JOB_LINE_MAX ? realloc(buf, cap * 2) : NULL;
			if (grown == NULL) {
				ns_error err;
				ns_error_clear(&err);
				ns_error_set(&err, cap * 2 > JOB_LINE_MAX ? NS_ERR_LIMIT : NS_ERR_NOMEM,
				             "a summary line longer than %zu bytes (or out of memory)", cap);
				free(buf);
				line_error(j, where, lineno, &err);
				return EXIT_BAD_INPUT;
			}
			buf = grown;
			cap *= 2;
		}
		ssize_t got = input_read(in, buf + n, cap - n);
		if (got < 0) {
			fprintf(stderr, "nextstep: %s: read error\n", where);
			free(buf);
			return EXIT_BAD_INPUT;
		}
		if (got == 0)
			break;
		for (size_t i = n; i < n + (size_t)got; i++) {
			if (buf[i] != '\n')
				continue;
			take_line(j, where, lineno++, buf + start, i - start);
			start = i + 1;
		}
		n += (size_t)got;
		if (start == n)
			start = n = 0;
	}
	if (n > start)
		take_line(j, where, lineno, buf + start, n - start);
	free(buf);
	if (j->html != NULL && j->nsrc < JOB_HTML_INPUTS) {
		cli_html_digest_finish(&j->dg[j->nsrc], in, &j->src[j->nsrc]);
		j->nsrc++;
	} else if (j->html != NULL) {
		j->more++;
	}
	return j->rc;
}

/* --html: the inputs, then the job. */
static int job_html(const cli_config *cfg, job_ctx *j, const job_result *res)
{
	ns_verdict v;
	ns_routes routes;
	ns_error err;

	ns_error_clear(&err);
	cli_job_verdict(cfg, res, &v, &routes);
	html_inputs(cli_html_page(j->html), j->src, j->nsrc, j->more);
	if (html_job(cli_html_page(j->html), res, &v, &routes, &err) != NS_OK) {
		cli_report_error(cfg->html_path, &err);
		return EXIT_BAD_INPUT;
	}
	return EXIT_ROUTED;
}

int cli_job_run(cli_config *cfg)
{
	job_ctx j = {job_merge_new(), EXIT_ROUTED, NULL, NULL, NULL, 0, 0};
	job_result *res = NULL;
	ns_error err;
	int rc;

	if (cfg->noperands == 0 && isatty(STDIN_FILENO))
		return cli_usage_error(MODE_JOB, "job: give SUMMARY files (or - for stdin)");
	if (j.merge == NULL) {
		fputs("nextstep: out of memory\n", stderr);
		return EXIT_BAD_INPUT;
	}
	if ((rc = cli_html_open(cfg, "nextstep job report", &j.html)) >= 0) {
		job_merge_free(j.merge);
		return rc;
	}
	if (j.html != NULL) {
		j.dg = calloc(JOB_HTML_INPUTS, sizeof(*j.dg));
		j.src = calloc(JOB_HTML_INPUTS, sizeof(*j.src));
		if (j.dg == NULL || j.src == NULL) {
			fputs("nextstep: out of memory\n", stderr);
			j.rc = EXIT_BAD_INPUT;
		}
	}
	rc = j.rc == EXIT_ROUTED ? cli_each_input(cfg, read_summaries, &j) : EXIT_BAD_INPUT;
	ns_error_clear(&err);
	if (job_merge_finish(j.merge, &res, &err) != NS_OK) {
		cli_report_error(NULL, &err);
		job_merge_free(j.merge);
		free(j.dg);
		free(j.src);
		return cli_html_close(j.html, EXIT_BAD_INPUT);
	}
	job_merge_free(j.merge);
	if (j.html != NULL && job_html(cfg, &j, res) != EXIT_ROUTED)
		rc = EXIT_BAD_INPUT;
	if (!cli_html_to_stdout(cfg) && cli_job_report(cfg, res, stdout) != EXIT_ROUTED)
		rc = EXIT_BAD_INPUT;
	job_result_free(res);
	free(j.dg);
	free(j.src);
	rc = rc != EXIT_ROUTED || j.rc != EXIT_ROUTED ? EXIT_BAD_INPUT : EXIT_ROUTED;
	return cli_html_close(j.html, rc);
}
