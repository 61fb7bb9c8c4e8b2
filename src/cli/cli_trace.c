/* nextstep trace [options] FILE|DIR...: the mode's entry and its session, what every trace of one invocation
 * shares (kernel rules, --step-marker, the device table for --roofline), loaded and checked before any
 * reading. One trace is read and reported by cli_trace_one.c, the files by cli_trace_files.c. */
#define _POSIX_C_SOURCE 200809L
#include "cli_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_options.h"
#include "cli_trace_private.h"
#include "datadir.h"

void cli_trace_session_html(cli_trace_session *s, cli_html *html)
{
	s->html = html;
}

void cli_trace_session_free(cli_trace_session *s)
{
	if (s == NULL)
		return;
	ns_kernel_rules_free(s->rules);
	ns_step_marker_free(s->marker);
	ns_devices_free(&s->devices);
	free(s);
}

int cli_trace_load_rules(const cli_config *c, ns_kernel_rules **rules)
{
	const char *path = c->rules_path;
	const char *flag = c->rules_only ? "--kernel-rules-only" : "--kernel-rules";
	ns_error err;

	ns_error_clear(&err);
	if ((path != NULL ? ns_kernel_rules_load(path, rules, &err) : ns_kernel_rules_default(rules, &err)) ==
	    NS_OK) {
		if (path != NULL && !c->rules_only)
			ns_kernel_rules_then_builtin(*rules);
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

/* --step-marker: a regex that does not compile is a usage error, found before any reading. */
static int load_marker(cli_trace_session *s)
{
	ns_error err;

	ns_error_clear(&err);
	if (s->cfg->ns_step_marker == NULL)
		return -1;
	s->marker = ns_step_marker_new(s->cfg->ns_step_marker, &err);
	if (s->marker != NULL)
		return -1;
	if (err.status == NS_ERR_NOMEM) {
		cli_report_error(NULL, &err);
		return EXIT_BAD_INPUT;
	}
	return cli_usage_error(s->cfg->mode, "--step-marker: %s", err.msg);
}

/* --roofline: the device table with the --device-file overlays, and --device checked before any reading. */
static int load_roofline(cli_trace_session *s)
{
	cli_config *c = s->cfg;
	int rc;

	if (!c->roofline && c->ndevice_files == 0) {
		/* the table still names the peaks of the fp32 advice, when it is installed */
		return datadir_try_devices(&s->devices) == EXIT_ROUTED ? -1 : EXIT_BAD_INPUT;
	}
	if (!c->roofline) /* and a device file's, as a job's report of the same ranks does */
		return cli_load_devices(c, &s->devices) == EXIT_ROUTED ? -1 : EXIT_BAD_INPUT;
	if ((rc = cli_load_devices(c, &s->devices)) != EXIT_ROUTED)
		return rc;
	s->roof.devices = &s->devices;
	s->roof.device = c->device;
	s->roof.has_dtype = c->dtype != NULL && ns_dtype_from_name(c->dtype, &s->roof.dtype);
	if (c->device != NULL && ns_devices_find(&s->devices, c->device) == NULL)
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
	ns_devices_init(&s->devices);
	if ((rc = cli_trace_load_rules(cfg, &s->rules)) < 0 && (rc = load_marker(s)) < 0 &&
	    (rc = load_roofline(s)) < 0) {
		*out = s;
		return -1;
	}
	cli_trace_session_free(s);
	return rc;
}

/* '-' twice would have two readers of one stdin. */
static bool stdin_once(const cli_file_list *files)
{
	size_t n = 0;

	for (size_t i = 0; i < files->n; i++)
		n += strcmp(files->path[i], "-") == 0;
	return n <= 1;
}

/* --summary writes one NDJSON line per rank: an option about the report it replaces would be ignored
 * unsaid. */
static int summary_conflicts(const cli_config *c)
{
	const char *other = c->html_path != NULL                ? "--html"
	                    : c->format.kind == NS_FORMAT_JSON  ? "--format json"
	                    : c->format.kind == NS_FORMAT_QUIET ? "-q"
	                    : c->roofline                       ? "--roofline (or --device, --dtype)"
	                    : c->steps || c->all_steps          ? "--steps"
	                    : c->top_given                      ? "--top"
	                                                        : NULL;

	if (other == NULL)
		return -1;
	return cli_usage_error(MODE_TRACE, "--summary writes summaries, not a report: leave out %s", other);
}

int cli_trace_run(cli_config *c)
{
	static char *const stdin_operand[] = {"-"};
	cli_file_list files = {NULL, 0, 0};
	cli_trace_session *s;
	cli_html *html;
	int rc, expanded;

	cli_buffer_stdout();
	if (c->noperands == 0 && isatty(STDIN_FILENO))
		return cli_usage_error(MODE_TRACE, "trace: give a trace FILE or DIR (or - for stdin)");
	if (c->output == TRACE_SUMMARY && (rc = summary_conflicts(c)) >= 0)
		return rc;
	if ((rc = cli_trace_session_open(c, &s)) >= 0)
		return rc;
	/* The files a directory stands for are inputs the page must not replace: listed before it is made. */
	expanded = c->noperands > 0
	               ? cli_files_expand(c->operands, (size_t)c->noperands, c->format.verbose, &files)
	               : cli_files_expand(stdin_operand, 1, false, &files);
	if ((rc = cli_html_open(c, "nextstep trace report", files.path, files.n, &html)) >= 0) {
		cli_file_list_free(&files);
		cli_trace_session_free(s);
		return rc;
	}
	cli_trace_session_html(s, html);
	/* Several files may be the ranks of one job, whose section leads the page: theirs wait until that is
	 * known (trace_job_finish). */
	if (c->output == TRACE_AUTO && files.n > 1 && !cli_html_to_stdout(c))
		cli_html_hold(html);
	if (c->output == TRACE_AUTO && cli_html_to_stdout(c))
		c->output = TRACE_PER_RANK; /* the page is all stdout holds: no job report beside it */
	if (!stdin_once(&files))
		rc = cli_usage_error(MODE_TRACE, "'-' (stdin) can be read once only");
	else
		rc = cli_trace_files(s, &files);
	rc = cli_worse_exit(rc, expanded);
	cli_file_list_free(&files);
	cli_trace_session_free(s);
	return cli_html_close(html, rc);
}
