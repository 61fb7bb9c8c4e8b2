/* `nextstep job`: rank summaries read line by line and merged as they stream in, then the library's job
 * report (job_report.h); and that report for `nextstep trace`'s ranks. */
#define _POSIX_C_SOURCE 200809L
#include "cli_job.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_html.h"
#include "cli_options.h"
#include "datadir.h"
#include "nextstep/job_report.h"

/* ---- the job report ---- */

/* The ranks' fp32 advice names the device table's peaks, as the trace report's does: the installed table
 * when there is one, with the --device-file overlays (which need it, as trace's do). devices: loaded here,
 * freed by the caller, also on failure (said on stderr: EXIT_BAD_INPUT). */
static int load_devices(const cli_config *cfg, ns_device_table *devices)
{
	if (cfg->ndevice_files == 0)
		return datadir_try_devices(devices);
	return cli_load_devices(cfg, devices);
}

static ns_job_report_options report_options_of(const cli_config *cfg, ns_device_table *devices)
{
	return (ns_job_report_options){&cfg->classify, &cfg->routes, &cfg->format, devices};
}

ns_status cli_job_html(const cli_config *cfg, ns_html_page *page, const ns_job_result *res, ns_error *err)
{
	ns_device_table devices;
	ns_job_report_options o = report_options_of(cfg, &devices);
	ns_job_report *m;
	ns_status st;

	if (load_devices(cfg, &devices) != EXIT_ROUTED) {
		ns_devices_free(&devices);
		return ns_error_set(err, NS_ERR_VALUE, "the device table could not be read (above)");
	}
	if ((m = malloc(sizeof(*m))) == NULL) {
		ns_devices_free(&devices);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory while writing the HTML report");
	}
	st = ns_job_report_build(res, &o, m, err);
	if (st == NS_OK)
		st = ns_html_job(page, res, m, err);
	ns_job_report_free(m);
	free(m);
	ns_devices_free(&devices);
	return st;
}

int cli_job_report(const cli_config *cfg, const ns_job_result *res)
{
	ns_device_table devices;
	ns_job_report_options o = report_options_of(cfg, &devices);
	ns_error err;
	ns_status st;

	if (load_devices(cfg, &devices) != EXIT_ROUTED) {
		ns_devices_free(&devices);
		return EXIT_BAD_INPUT;
	}
	ns_error_clear(&err);
	st = ns_job_report_print(stdout, res, &o, &err);
	ns_devices_free(&devices);
	if (st != NS_OK && st != NS_ERR_IO) {
		cli_report_error(NULL, &err);
		return EXIT_BAD_INPUT;
	}
	return cli_output_ok() && st == NS_OK ? EXIT_ROUTED : EXIT_BAD_INPUT; /* a write error said once */
}

/* Ranks whose trace is unfit named on stderr (the job report includes them: their waiting and straggler
 * judgements are as doubtful as their own reports); EXIT_QUALITY when a rank is below --min-quality. */
#define UNFIT_SHOWN 8

int cli_job_quality(const cli_config *cfg, const ns_job_result *res)
{
	size_t unfit = 0, unknown = 0;
	int rc = EXIT_ROUTED;

	for (size_t i = 0; i < res->nranks; i++) {
		int q = res->rank[i].src->quality;
		unknown += q < 0;
		if (q > cfg->min_quality)
			rc = EXIT_QUALITY;
		if (q != NS_QUALITY_UNFIT)
			continue;
		if (unfit++ == 0)
			fputs("nextstep: note: the trace of rank", stderr);
		if (unfit <= UNFIT_SHOWN)
			fprintf(stderr, "%s %" PRId64, unfit > 1 ? "," : "", res->rank[i].src->rank);
	}
	if (unfit > 0)
		fprintf(
		    stderr,
		    "%s %s unfit (its quality grade: see its own report, --rank N): the job report includes "
		    "%s\n",
		    unfit > UNFIT_SHOWN ? " ..." : "", unfit > 1 ? "are" : "is", unfit > 1 ? "them" : "it");
	if (unknown > 0 && cfg->min_quality < NS_QUALITY_UNFIT) {
		fprintf(stderr,
		        "nextstep: %zu rank summar%s no quality grade (written before summaries had one): "
		        "--min-quality cannot pass %s\n",
		        unknown, unknown > 1 ? "ies have" : "y has", unknown > 1 ? "them" : "it");
		rc = EXIT_QUALITY;
	}
	return rc;
}

/* ---- nextstep job ---- */

/* --html: the inputs named on the page (the first JOB_HTML_INPUTS, the rest counted). */
#define JOB_HTML_INPUTS 64

typedef struct {
	ns_job_merge *merge;
	int rc;
	cli_html *html;
	cli_html_digest *dg; /* JOB_HTML_INPUTS of each, with html */
	ns_html_source *src;
	size_t nsrc, more;
} job_ctx;

typedef struct {
	job_ctx *j;
	const char *where;
} line_ctx;

static void line_error(void *ctx, const ns_error *err)
{
	line_ctx *l = ctx;

	cli_report_error(l->where, err);
	l->j->rc = EXIT_BAD_INPUT;
}

/* Not summary lines but what users give job by mistake: traces (the job report is `nextstep trace`'s), an
 * Nsight Systems report. Said, with what to run instead. */
static bool is_summaries(ns_input *in)
{
	const char *where = ns_input_display_name(in);
	ns_input_kind kind = ns_input_sniff(in);
	ns_error err;

	ns_error_clear(&err);
	if (cli_unreadable_input(in, &err)) {
		cli_report_error(where, &err);
		return false;
	}
	if (!ns_input_is_trace(kind))
		return true;
	fprintf(stderr,
	        "nextstep: %s: %s, not rank summaries: for the job report of rank traces run 'nextstep trace "
	        "FILE...' or 'nextstep trace DIR'; 'nextstep trace --summary' writes the summary lines job "
	        "merges\n",
	        where,
	        kind == NS_INPUT_TRACE    ? "a profiler trace"
	        : kind == NS_INPUT_SQLITE ? "an SQLite database (an Nsight Systems export?)"
	                                  : "gzip-compressed (a profiler trace?)");
	return false;
}

/* One input's summary lines into the merger; a bad line is said and the rest still read. */
static int read_summaries(void *ctx, ns_input *in, bool labelled)
{
	job_ctx *j = ctx;
	line_ctx l = {j, ns_input_display_name(in)};
	ns_error err;

	(void)labelled;
	if (!is_summaries(in))
		return EXIT_BAD_INPUT;
	if (j->html != NULL && j->nsrc < JOB_HTML_INPUTS)
		cli_html_digest_start(&j->dg[j->nsrc], in);
	ns_error_clear(&err);
	if (ns_job_merge_read(j->merge, in, line_error, &l, &err) != NS_OK) {
		cli_report_error(l.where, &err);
		return EXIT_BAD_INPUT;
	}
	if (j->html != NULL && j->nsrc < JOB_HTML_INPUTS) {
		cli_html_digest_finish(&j->dg[j->nsrc], in, &j->src[j->nsrc]);
		j->nsrc++;
	} else if (j->html != NULL) {
		j->more++;
	}
	return j->rc;
}

/* --html: the job, then its inputs. */
static int job_html(const cli_config *cfg, job_ctx *j, const ns_job_result *res)
{
	ns_error err;
	ns_status st;

	ns_error_clear(&err);
	st = cli_job_html(cfg, cli_html_page(j->html), res, &err);
	if (st != NS_OK) {
		cli_report_error(cfg->html_path, &err);
		return EXIT_BAD_INPUT;
	}
	ns_html_inputs(cli_html_page(j->html), j->src, j->nsrc, j->more);
	return EXIT_ROUTED;
}

int cli_job_run(cli_config *cfg)
{
	job_ctx j = {ns_job_merge_new(), EXIT_ROUTED, NULL, NULL, NULL, 0, 0};
	ns_job_result *res = NULL;
	ns_error err;
	int rc, quality;

	if (cfg->noperands == 0 && isatty(STDIN_FILENO))
		return cli_usage_error(MODE_JOB, "job: give SUMMARY files (or - for stdin)");
	if (cfg->ndevice_files > 0) { /* a bad device file said before any summary is read */
		ns_device_table devices;
		rc = load_devices(cfg, &devices);
		ns_devices_free(&devices);
		if (rc != EXIT_ROUTED) {
			ns_job_merge_free(j.merge);
			return rc;
		}
	}
	if (j.merge == NULL) {
		fputs("nextstep: out of memory\n", stderr);
		return EXIT_BAD_INPUT;
	}
	if ((rc = cli_html_open(cfg, "nextstep job report", cli_operands(cfg), cli_noperands(cfg),
	                        &j.html)) >= 0) {
		ns_job_merge_free(j.merge);
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
	if (ns_job_merge_finish(j.merge, &res, &err) != NS_OK) {
		cli_report_error(NULL, &err);
		ns_job_merge_free(j.merge);
		free(j.dg);
		free(j.src);
		return cli_html_close(j.html, EXIT_BAD_INPUT);
	}
	ns_job_merge_free(j.merge);
	if (j.html != NULL && job_html(cfg, &j, res) != EXIT_ROUTED)
		rc = EXIT_BAD_INPUT;
	if (!cli_html_to_stdout(cfg) && cli_job_report(cfg, res) != EXIT_ROUTED)
		rc = EXIT_BAD_INPUT;
	quality = cli_job_quality(cfg, res);
	ns_job_result_free(res);
	free(j.dg);
	free(j.src);
	rc = rc != EXIT_ROUTED || j.rc != EXIT_ROUTED ? EXIT_BAD_INPUT : quality;
	return cli_html_close(j.html, rc);
}
