/* nextstep trace [options] FILE...: split each trace per device and route the split. */
#define _POSIX_C_SOURCE 200809L
#include "cli_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_html.h"
#include "cli_options.h"
#include "nextstep/kernel_rules.h"
#include "nextstep/trace_kernels.h"
#include "nextstep/trace_read.h"
#include "nextstep/trace_report.h"
#include "nextstep/trace_roofline.h"
#include "nextstep/trace_split.h"

struct cli_trace_session {
	cli_config *cfg;
	kernel_rules *rules;
	ns_device_table devices; /* for --roofline */
	troof_options roof;
	cli_html *html; /* --html's page (borrowed), NULL without */
};

void cli_trace_session_html(cli_trace_session *s, cli_html *html)
{
	s->html = html;
}

/* --html: the trace's section of the page. */
static ns_status write_html(cli_trace_session *s, const html_source *src, const split_result *res,
                            const troof_report *roof_report, ns_error *err)
{
	html_trace_options ho = {&s->cfg->classify, &s->cfg->routes, s->cfg->roofline ? roof_report : NULL,
	                         NULL};

	if (s->cfg->roofline && roof_report->device_known)
		ho.roof_device = devices_find(&s->devices, roof_report->device);
	return html_trace(cli_html_page(s->html), src, res, &ho, err);
}

void cli_trace_session_free(cli_trace_session *s)
{
	if (s == NULL)
		return;
	kernel_rules_free(s->rules);
	devices_free(&s->devices);
	free(s);
}

static int load_rules(cli_trace_session *s)
{
	const char *path = s->cfg->rules_path;
	const char *flag = s->cfg->rules_only ? "--kernel-rules-only" : "--kernel-rules";
	ns_error err;

	ns_error_clear(&err);
	if ((path != NULL ? kernel_rules_load(path, &s->rules, &err)
	                  : kernel_rules_default(&s->rules, &err)) == NS_OK) {
		if (path != NULL && !s->cfg->rules_only)
			kernel_rules_then_builtin(s->rules);
		return -1;
	}
	if (path == NULL)
		cli_report_error(NULL, &err);
	else if (err.line > 0)
		fprintf(stderr, "nextstep: %s %s:%ld: %s\n", flag, path, err.line, err.msg);
	else
		fprintf(stderr, "nextstep: %s %s: %s\n", flag, path, err.msg);
	return EXIT_BAD_INPUT;
}

/* --roofline: the device table with the --device-file overlays, and --device checked before any reading. */
static int load_roofline(cli_trace_session *s)
{
	cli_config *c = s->cfg;
	int rc;

	if (!c->roofline)
		return -1;
	if ((rc = cli_load_devices(c, &s->devices)) != EXIT_ROUTED)
		return rc;
	s->roof.devices = &s->devices;
	s->roof.device = c->device;
	s->roof.has_dtype = c->dtype != NULL && dtype_from_name(c->dtype, &s->roof.dtype);
	if (c->device != NULL && devices_find(&s->devices, c->device) == NULL)
		return cli_usage_error(c->mode, "unknown device '%.100s' (see 'nextstep devices')",
		                       c->device);
	return -1;
}

int cli_trace_session_open(cli_config *cfg, cli_trace_session **out)
{
	cli_trace_session *s = calloc(1, sizeof(*s));
	int rc;

	*out = NULL;
	if (s == NULL) {
		fputs("nextstep: out of memory\n", stderr);
		return EXIT_BAD_INPUT;
	}
	s->cfg = cfg;
	devices_init(&s->devices);
	if ((rc = load_rules(s)) < 0 && (rc = load_roofline(s)) < 0) {
		*out = s;
		return -1;
	}
	cli_trace_session_free(s);
	return rc;
}

/* "nextstep: FILE: byte N: msg", the position being the byte offset in the decompressed document. */
static void report_trace_error(const char *where, const ns_error *err)
{
	if (err->offset >= 0)
		fprintf(stderr, "nextstep: %s: byte %lld: %s\n", where, err->offset, err->msg);
	else
		fprintf(stderr, "nextstep: %s: %s\n", where, err->msg);
}

/* Reads the whole trace into the split (and the roofline collector). */
static ns_status read_trace(cli_trace_session *s, ns_input *in, trace_split *split, trace_roofline *roof,
                            split_result *res, troof_report *roof_report, ns_error *err)
{
	trace_roofline_tee tee = {trace_split_event, split, roof};
	cli_progress_line *progress = cli_progress_start(s->cfg->progress, in);
	trace_meta meta;
	ns_status st;

	memset(&meta, 0, sizeof(meta));
	st = roof != NULL ? trace_read(in, trace_roofline_tee_event, &tee, &meta, err)
	                  : trace_read(in, trace_split_event, split, &meta, err);
	cli_progress_end(progress);
	if (st == NS_OK && meta.events == 0) {
		err->offset = -1;
		st = ns_error_set(err, NS_ERR_VALUE, "traceEvents is empty: nothing to split");
	}
	if (st == NS_OK) {
		err->offset = -1;
		st = trace_split_finish(split, &meta, res, err);
	}
	if (st == NS_OK && roof != NULL)
		st = trace_roofline_finish(roof, &meta, &s->roof, roof_report, err);
	return st;
}

static ns_status print_report(cli_trace_session *s, FILE *out, const split_result *res,
                              const report_options *o, const troof_report *roof_report, ns_error *err)
{
	if (s->cfg->roofline)
		return troof_print_with_report(out, res, o, roof_report, err);
	return report_print(out, res, o, err);
}

/* -q with several inputs: each regime line is prefixed with the input's name. */
static ns_status print_quiet_labelled(cli_trace_session *s, const char *where, const split_result *res,
                                      const report_options *o, const troof_report *roof_report, ns_error *err)
{
	char *text = NULL, *line, *save = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size);
	ns_status st;

	if (mem == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	st = print_report(s, mem, res, o, roof_report, err);
	fclose(mem);
	if (st != NS_OK) {
		free(text);
		return st;
	}
	for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		printf("%s: %s\n", where, line);
	free(text);
	return NS_OK;
}

int cli_trace_input(cli_trace_session *s, ns_input *in, bool labelled)
{
	cli_config *c = s->cfg;
	const char *where = input_display_name(in);
	trace_split *split = trace_split_new(s->rules);
	trace_roofline *roof = c->roofline ? trace_roofline_new() : NULL;
	troof_report roof_report;
	split_result res;
	cli_html_digest digest;
	html_source src;
	ns_error err;
	ns_status st = NS_ERR_NOMEM;
	bool below;
	report_options o = {&c->classify, &c->routes, &c->format, where, c->steps, c->top, cli_report_hints};

	memset(&roof_report, 0, sizeof(roof_report));
	memset(&res, 0, sizeof(res));
	ns_error_clear(&err);
	if (split != NULL)
		trace_split_keep_warmup(split, c->all_steps);
	if (split != NULL && s->html != NULL)
		trace_split_want_timeline(split, true); /* the page draws the median step */
	if (s->html != NULL)
		cli_html_digest_start(&digest, in);
	if (split != NULL && (!c->roofline || roof != NULL))
		st = read_trace(s, in, split, roof, &res, &roof_report, &err);
	else
		ns_error_set(&err, NS_ERR_NOMEM, "out of memory");
	trace_split_free(split);
	trace_roofline_free(roof);
	if (s->html != NULL)
		cli_html_digest_finish(&digest, in, &src);
	if (st != NS_OK) {
		report_trace_error(where, &err);
	} else {
		err.offset = -1;
		if (s->html != NULL)
			st = write_html(s, &src, &res, &roof_report, &err);
		if (st != NS_OK || cli_html_to_stdout(c)) {
			/* the page is all stdout holds */
		} else if (labelled && c->format.kind == FORMAT_QUIET) {
			st = print_quiet_labelled(s, where, &res, &o, &roof_report, &err);
		} else {
			if (labelled && c->format.kind == FORMAT_TEXT)
				cli_print_input_header(stdout, where);
			st = print_report(s, stdout, &res, &o, &roof_report, &err);
		}
		if (st != NS_OK) /* out of memory or a write error while printing: stdout is incomplete */
			report_trace_error(where, &err);
	}
	/* a trace below --min-quality is still reported in full; only the exit status says so */
	below = st == NS_OK && (int)res.quality.grade > c->min_quality;
	split_result_free(&res);
	troof_report_free(&roof_report);
	if (st != NS_OK)
		return EXIT_BAD_INPUT;
	return below ? EXIT_QUALITY : EXIT_ROUTED;
}

static int trace_one(void *ctx, ns_input *in, bool labelled)
{
	return cli_trace_input(ctx, in, labelled);
}

int cli_trace_run(cli_config *c)
{
	cli_html *html;
	cli_trace_session *s;
	int rc;

	if (c->noperands == 0 && isatty(STDIN_FILENO))
		return cli_usage_error(MODE_TRACE, "trace: give a trace FILE (or - for stdin)");
	if ((rc = cli_trace_session_open(c, &s)) >= 0)
		return rc;
	if ((rc = cli_html_open(c, "nextstep trace report", &html)) >= 0) {
		cli_trace_session_free(s);
		return rc;
	}
	cli_trace_session_html(s, html);
	rc = cli_each_input(c, trace_one, s);
	cli_trace_session_free(s);
	return cli_html_close(html, rc);
}
