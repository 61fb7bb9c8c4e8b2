/* One trace: read (with its progress line), split, and reported as text, quiet or JSON, labelled with its
 * file when there are several, and as a section of the --html page. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_parallel.h"
#include "cli_spool.h"
#include "cli_trace_private.h"
#include "nextstep/trace_report.h"
#include "util/memstream.h"

/* "nextstep: FILE: byte N: msg", the position being the byte offset in the decompressed document. */
void trace_one_error(FILE *msgs, const char *where, const ns_error *err)
{
	if (err->offset >= 0)
		fprintf(msgs, "nextstep: %s: byte %lld: %s\n", where, err->offset, err->msg);
	else
		fprintf(msgs, "nextstep: %s: %s\n", where, err->msg);
}

static ns_status print_report(cli_trace_session *s, FILE *out, const ns_split_result *res,
                              const ns_report_options *o, const ns_troof_report *roof_report, ns_error *err)
{
	if (s->cfg->roofline)
		return ns_troof_print_with_report(out, res, o, roof_report, err);
	return ns_report_print(out, res, o, err);
}

/* -q with several inputs: each regime line is prefixed with the input's name. */
static ns_status print_quiet_labelled(cli_trace_session *s, FILE *out, const char *where,
                                      const ns_split_result *res, const ns_report_options *o,
                                      const ns_troof_report *roof_report, ns_error *err)
{
	char *text = NULL, *line, *save = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size);
	ns_status st;

	if (mem == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	st = print_report(s, mem, res, o, roof_report, err);
	if (!ns_memstream_close(mem, &text) && st == NS_OK)
		st = ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	if (st != NS_OK) {
		free(text);
		return st;
	}
	for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		fprintf(out, "%s: %s\n", where, line);
	free(text);
	return NS_OK;
}

static ns_status print_labelled(cli_trace_session *s, FILE *out, const char *where, bool labelled,
                                const ns_split_result *res, const ns_report_options *o,
                                const ns_troof_report *roof_report, ns_error *err)
{
	if (labelled && s->cfg->format.kind == NS_FORMAT_QUIET)
		return print_quiet_labelled(s, out, where, res, o, roof_report, err);
	if (labelled && s->cfg->format.kind == NS_FORMAT_TEXT)
		cli_print_input_header(out, where);
	return print_report(s, out, res, o, roof_report, err);
}

/* --html: the trace's section of the page, from the reports trace_one_page() decided. */
static ns_status write_html(cli_trace_session *s, const trace_done *d, ns_error *err)
{
	ns_troof_roof_ctx roof = {d->roof_report, d->res};
	ns_html_trace_options ho = {.classify = &s->cfg->classify,
	                            .routes = &s->cfg->routes,
	                            .roofline = s->cfg->roofline ? d->roof_report : NULL,
	                            .devices = &s->devices,
	                            .reports = d->reports};

	if (s->cfg->roofline && d->roof_report->device_known)
		ho.roof_device = ns_devices_find(&s->devices, d->roof_report->device);
	if (d->roof_report != NULL) { /* the kernels' next-step bounds (issue 21) */
		ho.roof = ns_troof_roof;
		ho.roof_ctx = &roof;
	}
	return ns_html_trace(cli_html_page(s->html), &d->src, d->res, &ho, err);
}

/* The options the text (and the reports the page shares with it) are printed with; roof is o's roof_ctx. */
static ns_report_options text_options(cli_trace_session *s, const char *where, const trace_done *d,
                                      ns_troof_roof_ctx *roof)
{
	cli_config *c = s->cfg;
	ns_report_options o = {.classify = &c->classify,
	                       .routes = &c->routes,
	                       .format = &c->format,
	                       .source = where,
	                       .steps = c->steps,
	                       .top = c->top,
	                       .hints =
	                           c->output == TRACE_ONE_RANK ? cli_report_hints_one_rank : cli_report_hints,
	                       .devices = &s->devices,
	                       .reports = d->reports};

	*roof = (ns_troof_roof_ctx){d->roof_report, d->res};
	if (d->roof_report != NULL) { /* the kernels' next-step bounds (issue 21) */
		o.roof = ns_troof_roof;
		o.roof_ctx = roof;
	}
	return o;
}

void trace_done_free(trace_done *d)
{
	free(d->reports);
	d->reports = NULL;
	ns_analysis_free(d->a);
	d->a = NULL;
}

/* The library's options for one trace of the session, read with the worker's rules. NULL when out of
 * memory. */
static ns_trace_options *trace_options(const cli_trace_session *s, const trace_sink *k)
{
	const cli_config *c = s->cfg;
	ns_trace_options *o = ns_trace_options_new();

	if (o == NULL)
		return NULL;
	ns_trace_options_set_rules(o, k->rules);
	/* -j's share: 2 or more parse on two; below, the reader's default (gzip inflated on a thread) */
	ns_trace_options_set_threads(o, k->threads >= 2 ? k->threads : 0);
	ns_trace_options_set_marker(o, s->marker);
	ns_trace_options_set_spill_dir(o, cli_spool_dir());
	ns_trace_options_set_all_steps(o, c->all_steps);
	ns_trace_options_set_timeline(o, s->html != NULL); /* the page draws the median step */
	/* the text, JSON and the page decide each device's report with the session's options as they print */
	ns_trace_options_set_reports(o, false);
	ns_trace_options_set_classify(o, &c->classify);
	ns_trace_options_set_routes(o, &c->routes);
	if (c->roofline)
		ns_trace_options_set_roofline_as(o, &s->roof);
	else if (s->devices.n > 0) /* placed for the next steps' bounds when the trace has shapes */
		ns_trace_options_set_shape_bounds(o, &s->devices);
	return o;
}

/* Reads and splits one opened trace into d (d->st says whether it worked; d->err why not), with its
 * progress line, and its digest for --html. */
void trace_one_analyse(cli_trace_session *s, const trace_sink *k, ns_input *in, trace_done *d)
{
	ns_trace_options *o = trace_options(s, k);
	cli_progress_line *progress;

	memset(d, 0, sizeof(*d));
	ns_error_clear(&d->err);
	if (s->html != NULL)
		cli_html_digest_start(&d->digest, in);
	if (o == NULL) {
		d->st = ns_error_set(&d->err, NS_ERR_NOMEM, "out of memory");
	} else {
		progress = k->progress != NULL ? cli_progress_join(k->progress, in)
		                               : cli_progress_start(s->cfg->progress, in);
		d->st = ns_trace_analyse_input(in, o, &d->a, &d->err);
		cli_progress_end(progress);
	}
	ns_trace_options_free(o);
	if (d->st == NS_OK) {
		d->res = ns_analysis_split(d->a);
		d->roof_report = ns_analysis_roofline(d->a);
		d->cut = ns_analysis_cut(d->a);
	}
	if (s->html != NULL)
		cli_html_digest_finish(&d->digest, in, &d->src);
}

/* --html: what trace_one_analyse() made, as the page's next section. Returns an exit status (EXIT_ROUTED when
 * the trace was bad: trace_one_text() says so). */
int trace_one_page(cli_trace_session *s, FILE *msgs, const char *where, trace_done *d)
{
	ns_troof_roof_ctx roof;
	ns_report_options o;

	if (s->html == NULL || d->st != NS_OK)
		return EXIT_ROUTED;
	o = text_options(s, where, d, &roof);
	/* each device's report decided once, for the page and the text (trace_one_text()) */
	if ((d->st = ns_report_decide(d->res, &o, &d->reports, &d->err)) == NS_OK &&
	    (d->st = write_html(s, d, &d->err)) == NS_OK)
		return EXIT_ROUTED;
	trace_one_error(msgs, where, &d->err);
	d->st = NS_OK; /* said: trace_one_text() leaves the text out, as the page is incomplete */
	return EXIT_BAD_INPUT;
}

/* What trace_one_analyse() made, as the text report (or the error). Returns an exit status. */
int trace_one_text(cli_trace_session *s, const trace_sink *k, const char *where, bool labelled, trace_done *d)
{
	cli_config *c = s->cfg;
	ns_troof_roof_ctx roof;
	ns_report_options o = text_options(s, where, d, &roof);
	ns_status st = d->st;

	if (st != NS_OK) {
		trace_one_error(k->msgs, where, &d->err);
		if (s->html != NULL) /* the input keeps its place on the page, with what was wrong */
			ns_html_input_error(cli_html_page(s->html), &d->src, d->err.msg);
		return EXIT_BAD_INPUT;
	}
	if (!cli_html_to_stdout(c)) /* with --html - the page is all stdout holds */
		st = print_labelled(s, k->out, where, labelled, d->res, &o, d->roof_report, &d->err);
	if (st == NS_ERR_IO && k->out == stdout) {
		cli_output_ok(); /* says it once for every input, now while errno is this thread's */
		return EXIT_BAD_INPUT;
	}
	if (st != NS_OK) { /* out of memory or a write error while printing: the output is incomplete */
		trace_one_error(k->msgs, where, &d->err);
		return EXIT_BAD_INPUT;
	}
	if (d->cut != NULL) { /* reported as far as it was read (quality: truncated), and still a bad input */
		trace_one_error(k->msgs, where, d->cut);
		fprintf(k->msgs, "nextstep: %s: the file is cut off; the report above is of what was read\n",
		        where);
		return EXIT_BAD_INPUT;
	}
	/* a trace below --min-quality is still reported in full; only the exit status says so */
	return (int)d->res->quality.grade > c->min_quality ? EXIT_QUALITY : EXIT_ROUTED;
}

/* A --kernel-rules regex that reached its cost limit on some names (they fell to the rules after it): the
 * library counts them in the result's name table, the command line says so. */
void trace_one_note_rules(FILE *msgs, const char *where, const trace_done *d)
{
	size_t rule = 0, names = d->st == NS_OK && d->res->names != NULL
	                             ? ns_kernel_names_gave_up(d->res->names, &rule)
	                             : 0;

	size_t skipped = names > 0 ? ns_kernel_names_without_regex(d->res->names) : 0;

	if (names > 0)
		fprintf(msgs,
		        "nextstep: %s: note: kernel rule %zu's regex reached its cost limit on %zu name%s "
		        "(counted "
		        "as not matching; a later rule or the default classified %s)\n",
		        where, rule, names, names == 1 ? "" : "s", names == 1 ? "it" : "them");
	if (skipped > 0)
		fprintf(msgs,
		        "nextstep: %s: note: after %d names the regex rules were left out for the other %zu "
		        "(their cost is bounded per input; the substring rules and the default classified "
		        "them)\n",
		        where, NS_KERNEL_NAMES_GIVE_UP_MAX, skipped);
}

/* The page's section, then the text report unless writing the page failed. */
int trace_one_report(cli_trace_session *s, const trace_sink *k, const char *where, bool labelled,
                     trace_done *d)
{
	int rc = trace_one_page(s, k->msgs, where, d);

	trace_one_note_rules(k->msgs, where, d);
	return rc != EXIT_ROUTED ? rc : trace_one_text(s, k, where, labelled, d);
}

int cli_trace_input(cli_trace_session *s, ns_input *in, bool labelled)
{
	trace_sink k = {s->rules, stdout, stderr, NULL,
	                s->cfg->jobs > 0 ? s->cfg->jobs : cli_default_workers()};
	trace_done d;
	int rc;

	trace_one_analyse(s, &k, in, &d);
	rc = trace_one_report(s, &k, ns_input_display_name(in), labelled, &d);
	trace_done_free(&d);
	return rc;
}
