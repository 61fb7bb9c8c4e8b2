/* `nextstep job`: rank summaries read line by line and merged as they stream in, then the library's job
 * report (job_report.h); and that report for `nextstep trace`'s ranks. */
#define _POSIX_C_SOURCE 200809L
#include "cli_job.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_html.h"
#include "cli_options.h"
#include "nextstep/job_report.h"
#include "util/vec.h"

/* Longest summary line read (a rank of a million steps is a few hundred MB). */
#define JOB_LINE_MAX ((size_t)1 << 30)

/* ---- the job report ---- */

static job_report_options report_options_of(const cli_config *cfg)
{
	return (job_report_options){&cfg->classify, &cfg->routes, &cfg->format};
}

void cli_job_verdict(const cli_config *cfg, const job_result *res, ns_verdict *v, ns_routes *routes)
{
	job_report_options o = report_options_of(cfg);

	job_report_verdict(res, &o, v, routes);
}

int cli_job_report(const cli_config *cfg, const job_result *res)
{
	job_report_options o = report_options_of(cfg);
	ns_error err;
	ns_status st;

	ns_error_clear(&err);
	st = job_report_print(stdout, res, &o, &err);
	if (st != NS_OK && st != NS_ERR_IO) {
		cli_report_error(NULL, &err);
		return EXIT_BAD_INPUT;
	}
	return cli_output_ok() && st == NS_OK ? EXIT_ROUTED : EXIT_BAD_INPUT; /* a write error said once */
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
			char *grown = ns_grow_capped(buf, &cap, cap + 1, 1, JOB_LINE_MAX);
			if (grown == NULL) {
				ns_error err;
				ns_error_clear(&err);
				ns_error_set(&err, cap >= JOB_LINE_MAX ? NS_ERR_LIMIT : NS_ERR_NOMEM,
				             "a summary line longer than %zu bytes (or out of memory)", cap);
				free(buf);
				line_error(j, where, lineno, &err);
				return EXIT_BAD_INPUT;
			}
			buf = grown;
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
	if (!cli_html_to_stdout(cfg) && cli_job_report(cfg, res) != EXIT_ROUTED)
		rc = EXIT_BAD_INPUT;
	job_result_free(res);
	free(j.dg);
	free(j.src);
	rc = rc != EXIT_ROUTED || j.rc != EXIT_ROUTED ? EXIT_BAD_INPUT : EXIT_ROUTED;
	return cli_html_close(j.html, rc);
}
