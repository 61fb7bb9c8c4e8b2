/* nextstep trace [options] FILE|DIR...: split each trace per device and route the split. The files are read
 * by the ordered pool of cli_parallel.c (-j): each task reads one file into its own split, prints its report
 * and frees the split; the reports are written in input order. A report whose turn has come (every earlier
 * input's written: always so with one input or -j 1) goes straight to stdout as it is printed; another waits
 * in a spool (cli_spool.h), so memory never holds a whole report. */
#define _POSIX_C_SOURCE 200809L
#include "cli_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_files.h"
#include "cli_html.h"
#include "cli_options.h"
#include "cli_parallel.h"
#include "cli_spool.h"
#include "cli_trace_job.h"
#include "nextstep/job.h"
#include "nextstep/kernel_rules.h"
#include "nextstep/trace_kernels.h"
#include "nextstep/trace_read.h"
#include "nextstep/trace_report.h"
#include "nextstep/trace_roofline.h"
#include "nextstep/trace_split.h"

struct cli_trace_session {
	cli_config *cfg;
	kernel_rules
	    *rules; /* one thread at a time (its regexes share a JIT stack): each worker has its own */
	step_marker
	    *marker; /* --step-marker: read-only once compiled; each splitter has its own match data */
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
	step_marker_free(s->marker);
	devices_free(&s->devices);
	free(s);
}

static int load_rules(const cli_config *c, kernel_rules **rules)
{
	const char *path = c->rules_path;
	const char *flag = c->rules_only ? "--kernel-rules-only" : "--kernel-rules";
	ns_error err;

	ns_error_clear(&err);
	if ((path != NULL ? kernel_rules_load(path, rules, &err) : kernel_rules_default(rules, &err)) ==
	    NS_OK) {
		if (path != NULL && !c->rules_only)
			kernel_rules_then_builtin(*rules);
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
	if (s->cfg->step_marker == NULL)
		return -1;
	s->marker = step_marker_new(s->cfg->step_marker, &err);
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
	if ((rc = load_rules(cfg, &s->rules)) < 0 && (rc = load_marker(s)) < 0 &&
	    (rc = load_roofline(s)) < 0) {
		*out = s;
		return -1;
	}
	cli_trace_session_free(s);
	return rc;
}

/* "nextstep: FILE: byte N: msg", the position being the byte offset in the decompressed document. */
static void report_trace_error(FILE *msgs, const char *where, const ns_error *err)
{
	if (err->offset >= 0)
		fprintf(msgs, "nextstep: %s: byte %lld: %s\n", where, err->offset, err->msg);
	else
		fprintf(msgs, "nextstep: %s: %s\n", where, err->msg);
}

/* Where one trace's reading goes: its kernel rules (the worker's), its output and messages, its progress. */
typedef struct {
	kernel_rules *rules;
	FILE *out, *msgs;
	cli_progress_set *progress; /* several files: the shared line; NULL: a line of this file's own */
} trace_sink;

/* Reads the whole trace into the split (and the roofline collector). */
static ns_status read_trace(cli_trace_session *s, const trace_sink *k, ns_input *in, trace_split *split,
                            trace_roofline *roof, split_result *res, troof_report *roof_report, ns_error *err)
{
	trace_roofline_tee tee = {trace_split_event, split, roof};
	cli_progress_line *progress = k->progress != NULL ? cli_progress_join(k->progress, in)
	                                                  : cli_progress_start(s->cfg->progress, in);
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
static ns_status print_quiet_labelled(cli_trace_session *s, FILE *out, const char *where,
                                      const split_result *res, const report_options *o,
                                      const troof_report *roof_report, ns_error *err)
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
		fprintf(out, "%s: %s\n", where, line);
	free(text);
	return NS_OK;
}

static ns_status print_labelled(cli_trace_session *s, FILE *out, const char *where, bool labelled,
                                const split_result *res, const report_options *o,
                                const troof_report *roof_report, ns_error *err)
{
	if (labelled && s->cfg->format.kind == FORMAT_QUIET)
		return print_quiet_labelled(s, out, where, res, o, roof_report, err);
	if (labelled && s->cfg->format.kind == FORMAT_TEXT)
		cli_print_input_header(out, where);
	return print_report(s, out, res, o, roof_report, err);
}

/* One trace read and split, waiting to be reported: with --html the page takes the reports in input order,
 * so a task keeps this until its turn. */
typedef struct {
	ns_status st;
	ns_error err;
	split_result res;
	troof_report roof_report;
	cli_html_digest digest;
	html_source src;
} trace_done;

static void trace_done_free(trace_done *d)
{
	split_result_free(&d->res);
	troof_report_free(&d->roof_report);
}

/* Reads and splits one opened trace into d (d->st says whether it worked; d->err why not). */
static void analyse(cli_trace_session *s, const trace_sink *k, ns_input *in, trace_done *d)
{
	cli_config *c = s->cfg;
	trace_split *split = trace_split_new(k->rules);
	trace_roofline *roof = c->roofline ? trace_roofline_new() : NULL;

	memset(d, 0, sizeof(*d));
	ns_error_clear(&d->err);
	d->st = NS_ERR_NOMEM;
	if (split != NULL && !trace_split_step_marker(split, s->marker)) {
		trace_split_free(split);
		split = NULL;
	}
	if (split != NULL)
		trace_split_keep_warmup(split, c->all_steps);
	if (split != NULL && s->html != NULL)
		trace_split_want_timeline(split, true); /* the page draws the median step */
	if (s->html != NULL)
		cli_html_digest_start(&d->digest, in);
	if (split != NULL && (!c->roofline || roof != NULL))
		d->st = read_trace(s, k, in, split, roof, &d->res, &d->roof_report, &d->err);
	else
		ns_error_set(&d->err, NS_ERR_NOMEM, "out of memory");
	trace_split_free(split);
	trace_roofline_free(roof);
	if (s->html != NULL)
		cli_html_digest_finish(&d->digest, in, &d->src);
}

/* --html: what analyse() made, as the page's next section. Returns an exit status (EXIT_ROUTED when the trace
 * was bad: report_text() says so). */
static int report_page(cli_trace_session *s, FILE *msgs, const char *where, trace_done *d)
{
	if (s->html == NULL || d->st != NS_OK)
		return EXIT_ROUTED;
	d->err.offset = -1;
	if ((d->st = write_html(s, &d->src, &d->res, &d->roof_report, &d->err)) == NS_OK)
		return EXIT_ROUTED;
	report_trace_error(msgs, where, &d->err);
	d->st = NS_OK; /* said: report_text() leaves the text out, as the page is incomplete */
	return EXIT_BAD_INPUT;
}

/* What analyse() made, as the text report (or the error). Returns an exit status. */
static int report_text(cli_trace_session *s, const trace_sink *k, const char *where, bool labelled,
                       trace_done *d)
{
	cli_config *c = s->cfg;
	report_options o = {&c->classify, &c->routes, &c->format, where, c->steps, c->top, cli_report_hints};
	ns_status st = d->st;

	if (st != NS_OK) {
		report_trace_error(k->msgs, where, &d->err);
		if (s->html != NULL) /* the input keeps its place on the page, with what was wrong */
			html_input_error(cli_html_page(s->html), &d->src, d->err.msg);
		return EXIT_BAD_INPUT;
	}
	d->err.offset = -1;
	if (!cli_html_to_stdout(c)) /* with --html - the page is all stdout holds */
		st = print_labelled(s, k->out, where, labelled, &d->res, &o, &d->roof_report, &d->err);
	if (st == NS_ERR_IO && k->out == stdout) {
		cli_output_ok(); /* says it once for every input, now while errno is this thread's */
		return EXIT_BAD_INPUT;
	}
	if (st != NS_OK) { /* out of memory or a write error while printing: the output is incomplete */
		report_trace_error(k->msgs, where, &d->err);
		return EXIT_BAD_INPUT;
	}
	/* a trace below --min-quality is still reported in full; only the exit status says so */
	return (int)d->res.quality.grade > c->min_quality ? EXIT_QUALITY : EXIT_ROUTED;
}

/* A --kernel-rules regex that reached its cost limit on some names (they fell to the rules after it): the
 * library counts them in the result's name table, the command line says so. */
static void note_rules_gave_up(FILE *msgs, const char *where, const trace_done *d)
{
	size_t rule = 0,
	       names = d->st == NS_OK && d->res.names != NULL ? kernel_names_gave_up(d->res.names, &rule) : 0;

	if (names > 0)
		fprintf(msgs,
		        "nextstep: %s: note: kernel rule %zu's regex reached its cost limit on %zu name%s "
		        "(counted "
		        "as not matching; a later rule or the default classified %s)\n",
		        where, rule, names, names == 1 ? "" : "s", names == 1 ? "it" : "them");
}

/* The page's section, then the text report unless writing the page failed. */
static int report(cli_trace_session *s, const trace_sink *k, const char *where, bool labelled, trace_done *d)
{
	int rc = report_page(s, k->msgs, where, d);

	note_rules_gave_up(k->msgs, where, d);
	return rc != EXIT_ROUTED ? rc : report_text(s, k, where, labelled, d);
}

int cli_trace_input(cli_trace_session *s, ns_input *in, bool labelled)
{
	trace_sink k = {s->rules, stdout, stderr, NULL};
	trace_done d;
	int rc;

	analyse(s, &k, in, &d);
	rc = report(s, &k, input_display_name(in), labelled, &d);
	trace_done_free(&d);
	return rc;
}

/* One file's result, kept until its turn to be written: its report in a spool (NULL when it went straight
 * out), its messages in memory (a few lines); with --html the split itself (done), reported on the caller's
 * thread into the page; the rank it is. */
typedef struct {
	FILE *out;
	char *msgs;
	size_t msgs_len;
	int rc;
	trace_done *done;
	job_rank *summary; /* the job's summary of a rank, when the output needs one */
	bool has_rank;
	int64_t rank;
} trace_task;

/* One invocation over many files. */
typedef struct {
	cli_trace_session *s;
	const cli_file_list *files;
	kernel_rules **rules; /* per worker; [0] is the session's */
	unsigned workers;
	trace_task *task;
	cli_progress_set *progress;
	trace_job *job;    /* TRACE_AUTO: the ranks seen so far */
	size_t rank_shown; /* TRACE_ONE_RANK: files that were the rank asked for */
	int rc;
} trace_run;

/* The summary of a rank: for the job (TRACE_AUTO, ranks only) or as the output (--summary, where a file
 * that names no rank is an error). Returns an exit status. */
static int make_summary(trace_run *r, trace_task *t, const trace_sink *k, const char *where, trace_done *d)
{
	trace_output mode = r->s->cfg->output;
	char *line;
	ns_error err;

	if (d->st != NS_OK || (mode != TRACE_AUTO && mode != TRACE_SUMMARY) ||
	    (!t->has_rank && mode == TRACE_AUTO))
		return EXIT_ROUTED;
	ns_error_clear(&err);
	if (!t->has_rank) {
		fprintf(k->msgs,
		        "nextstep: %s: no rank (distributedInfo) in this trace: a summary is one rank's\n",
		        where);
		return EXIT_BAD_INPUT;
	}
	if (job_rank_from_split(&d->res, where, &t->summary, &err) != NS_OK) {
		report_trace_error(k->msgs, where, &err);
		return EXIT_BAD_INPUT;
	}
	if (mode != TRACE_SUMMARY)
		return EXIT_ROUTED;
	line = job_rank_to_ndjson(t->summary);
	job_rank_free(t->summary);
	t->summary = NULL;
	if (line == NULL) {
		fprintf(k->msgs, "nextstep: %s: out of memory\n", where);
		return EXIT_BAD_INPUT;
	}
	fprintf(k->out, "%s\n", line);
	free(line);
	return EXIT_ROUTED;
}

/* Whether the task's report can go straight to stdout: its turn has come (in_turn: nothing before it is left
 * to write) and it is written as it is, neither held for a job (emit_text()) nor another rank's. */
static bool writes_through(const trace_run *r, const trace_task *t, bool in_turn)
{
	const cli_config *c = r->s->cfg;

	if (!in_turn)
		return false;
	if (c->output == TRACE_AUTO && (t->has_rank || trace_job_holding(r->job)))
		return false;
	return c->output != TRACE_ONE_RANK || (t->has_rank && t->rank == c->only_rank);
}

/* Sets k->out: stdout when the report writes through, else a new spool (the task's out). False, said in
 * the task's messages, when no spool can be made. */
static bool open_out(const trace_run *r, trace_task *t, trace_sink *k, const char *where, bool in_turn)
{
	char why[320];

	k->out = stdout;
	if (writes_through(r, t, in_turn))
		return true;
	if ((k->out = t->out = cli_spool_new(why, sizeof(why))) != NULL)
		return true;
	fprintf(k->msgs,
	        "nextstep: %s: %s, where its report would wait for the inputs before it (-j 1 needs "
	        "none)\n",
	        where, why);
	return false;
}

/* On a worker: whether task i's turn has come. With one worker every task runs in its turn; with several,
 * the first does, unless other workers draw a progress line that its output would cut into. */
static bool worker_in_turn(const trace_run *r, size_t i)
{
	return r->workers == 1 || (i == 0 && r->progress == NULL);
}

/* Reads file i and reports it (straight out or into a spool), or keeps it for the page (--html). */
static int run_file(trace_run *r, size_t i, trace_sink *k, ns_input *in)
{
	trace_task *t = &r->task[i];
	const char *where = input_display_name(in);
	trace_done *d = malloc(sizeof(*d));
	int rc = EXIT_BAD_INPUT;

	if (d == NULL) {
		fprintf(k->msgs, "nextstep: %s: out of memory\n", where);
		return EXIT_BAD_INPUT;
	}
	analyse(r->s, k, in, d);
	t->has_rank = d->st == NS_OK && d->res.has_rank;
	t->rank = d->res.rank;
	if (r->s->html != NULL) {
		t->done = d; /* reported by emit_page() */
		return make_summary(r, t, k, where, d);
	}
	if (open_out(r, t, k, where, worker_in_turn(r, i))) {
		if (k->out == stdout) /* one worker: the progress line of the files is cleared first */
			cli_progress_set_hold(r->progress);
		rc = make_summary(r, t, k, where, d);
		if (r->s->cfg->output == TRACE_SUMMARY) {
			if (d->st != NS_OK) /* the summary is the output; a bad trace gets its error */
				rc = report_text(r->s, k, where, false, d);
		} else {
			rc = cli_worse_exit(rc, report(r->s, k, where, r->files->n > 1, d));
		}
		if (k->out == stdout)
			cli_progress_set_release(r->progress);
	}
	trace_done_free(d);
	free(d);
	return rc;
}

/* On a pool thread: opens, reads and reports file i. */
static void run_task(void *ctx, size_t i, unsigned worker)
{
	trace_run *r = ctx;
	trace_task *t = &r->task[i];
	const char *path = r->files->path[i];
	FILE *msgs = open_memstream(&t->msgs, &t->msgs_len);
	trace_sink k = {r->rules[worker], NULL, msgs, r->progress};
	ns_input in;
	ns_error err;

	ns_error_clear(&err);
	t->rc = EXIT_BAD_INPUT;
	if (msgs == NULL)
		ns_error_set(&err, NS_ERR_NOMEM, "out of memory");
	else if (input_open(&in, path, &err) == NS_OK) {
		t->rc = run_file(r, i, &k, &in);
		input_close(&in);
	}
	if (err.status != NS_OK)
		cli_report_error_to(msgs != NULL ? msgs : stderr, path, &err);
	if (msgs != NULL)
		fclose(msgs);
}

/* --html, on the caller's thread in input order: the page's section now, the text report as a worker would
 * have made it (its turn has come: straight out unless held). */
static void emit_page(trace_run *r, trace_task *t)
{
	trace_done *d = t->done;
	FILE *msgs;
	trace_sink k;
	int rc = report_page(r->s, stderr, d->src.name, d);

	if (t->msgs_len > 0) /* what the worker had to say (its summary) comes first */
		fwrite(t->msgs, 1, t->msgs_len, stderr);
	free(t->msgs);
	t->msgs = NULL;
	t->msgs_len = 0;
	msgs = open_memstream(&t->msgs, &t->msgs_len);
	k = (trace_sink){NULL, NULL, msgs, NULL};
	if (msgs == NULL) {
		fprintf(stderr, "nextstep: %s: out of memory\n", d->src.name);
		rc = EXIT_BAD_INPUT;
	} else {
		note_rules_gave_up(msgs, d->src.name, d);
		if (rc == EXIT_ROUTED)
			rc = open_out(r, t, &k, d->src.name, true)
			         ? report_text(r->s, &k, d->src.name, r->files->n > 1, d)
			         : EXIT_BAD_INPUT;
	}
	if (msgs != NULL)
		fclose(msgs);
	t->rc = cli_worse_exit(t->rc, rc);
	trace_done_free(d);
	free(d);
	t->done = NULL;
}

/* The task's text, by what the output is: now, kept until the job is known (from the first rank on), or not
 * at all (another rank's, with --rank). */
static void emit_text(trace_run *r, size_t i)
{
	trace_task *t = &r->task[i];
	trace_output mode = r->s->cfg->output;

	if (mode == TRACE_AUTO && (t->summary != NULL || trace_job_holding(r->job))) {
		if (!trace_job_add(r->job, t->summary, t->out)) {
			fputs("nextstep: out of memory\n", stderr);
			t->rc = EXIT_BAD_INPUT;
		}
		t->summary = NULL;
		t->out = NULL; /* the job has them */
		return;
	}
	if (mode == TRACE_ONE_RANK && !(t->has_rank && t->rank == r->s->cfg->only_rank))
		return;
	r->rank_shown += t->has_rank;
	if (t->out != NULL && !cli_spool_copy(t->out, stdout)) {
		fflush(stdout);
		fprintf(stderr, "nextstep: %s: its report could not be read back from its temporary file\n",
		        r->files->path[i]);
		t->rc = EXIT_BAD_INPUT;
	}
}

/* On the caller's thread, in input order: writes file i's report and messages (and its page section). */
static bool emit_task(void *ctx, size_t i)
{
	trace_run *r = ctx;
	trace_task *t = &r->task[i];
	bool ok;

	cli_progress_set_hold(r->progress);
	if (t->done != NULL)
		emit_page(r, t);
	emit_text(r, i);
	if (t->msgs_len > 0) {
		fflush(stdout);
		fwrite(t->msgs, 1, t->msgs_len, stderr);
	}
	if (t->out != NULL)
		fclose(t->out);
	free(t->msgs);
	t->out = NULL;
	t->msgs = NULL;
	r->rc = cli_worse_exit(r->rc, t->rc);
	ok = cli_output_ok();
	cli_progress_set_release(r->progress);
	return ok;
}

/* Worker w > 0 gets rules of its own, loaded as the session's were. Returns -1 or an exit status. */
static int worker_rules(trace_run *r)
{
	int rc = -1;

	r->rules = calloc(r->workers, sizeof(kernel_rules *));
	if (r->rules == NULL) {
		fputs("nextstep: out of memory\n", stderr);
		return EXIT_BAD_INPUT;
	}
	r->rules[0] = r->s->rules;
	for (unsigned w = 1; w < r->workers && rc < 0; w++)
		rc = load_rules(r->s->cfg, &r->rules[w]);
	return rc;
}

static void trace_run_free(trace_run *r)
{
	for (unsigned w = 1; r->rules != NULL && w < r->workers; w++)
		kernel_rules_free(r->rules[w]);
	free(r->rules);
	for (size_t i = 0; r->task != NULL && i < r->files->n; i++) {
		if (r->task[i].out != NULL)
			fclose(r->task[i].out);
		free(r->task[i].msgs);
		if (r->task[i].done != NULL)
			trace_done_free(r->task[i].done);
		free(r->task[i].done);
		job_rank_free(r->task[i].summary);
	}
	free(r->task);
	cli_progress_set_end(r->progress);
}

/* -j, or one per processor; no more than there are files, and at least one. */
static unsigned worker_count(const cli_config *c, size_t nfiles)
{
	unsigned w = c->jobs > 0 ? c->jobs : cli_default_workers();

	if (w > nfiles)
		w = (unsigned)nfiles;
	return w > 0 ? w : 1;
}

static int trace_files(cli_trace_session *s, const cli_file_list *files)
{
	cli_config *c = s->cfg;
	trace_run r = {.s = s, .files = files, .workers = worker_count(c, files->n), .rc = EXIT_ROUTED};
	int rc;

	r.task = calloc(files->n > 0 ? files->n : 1, sizeof(*r.task));
	if (r.task == NULL) {
		fputs("nextstep: out of memory\n", stderr);
		return EXIT_BAD_INPUT;
	}
	if ((rc = worker_rules(&r)) < 0) {
		if (files->n > 1)
			r.progress = cli_progress_set_start(c->progress, files->path, files->n);
		if (c->output == TRACE_AUTO && (r.job = trace_job_new()) == NULL) {
			fputs("nextstep: out of memory\n", stderr);
			trace_run_free(&r);
			return EXIT_BAD_INPUT;
		}
		cli_pool_run(files->n, r.workers, run_task, emit_task, &r);
		rc = cli_worse_exit(r.rc, trace_job_finish(r.job, c, s->html));
		r.job = NULL;
		if (c->output == TRACE_ONE_RANK && r.rank_shown == 0) {
			fprintf(stderr, "nextstep: no trace is rank %lld\n", c->only_rank);
			rc = cli_worse_exit(rc, EXIT_BAD_INPUT);
		}
	}
	trace_run_free(&r);
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

int cli_trace_run(cli_config *c)
{
	static char *const stdin_operand[] = {"-"};
	cli_file_list files = {NULL, 0, 0};
	cli_trace_session *s;
	cli_html *html;
	int rc, expanded;

	if (c->noperands == 0 && isatty(STDIN_FILENO))
		return cli_usage_error(MODE_TRACE, "trace: give a trace FILE or DIR (or - for stdin)");
	if (c->output == TRACE_SUMMARY && c->html_path != NULL)
		return cli_usage_error(MODE_TRACE,
		                       "--summary writes summaries, not a page: leave out --html");
	if ((rc = cli_trace_session_open(c, &s)) >= 0)
		return rc;
	if ((rc = cli_html_open(c, "nextstep trace report", &html)) >= 0) {
		cli_trace_session_free(s);
		return rc;
	}
	cli_trace_session_html(s, html);
	expanded = c->noperands > 0
	               ? cli_files_expand(c->operands, (size_t)c->noperands, c->format.verbose, &files)
	               : cli_files_expand(stdin_operand, 1, false, &files);
	if (c->output == TRACE_AUTO && cli_html_to_stdout(c))
		c->output = TRACE_PER_RANK; /* the page is all stdout holds: no job report beside it */
	if (!stdin_once(&files))
		rc = cli_usage_error(MODE_TRACE, "'-' (stdin) can be read once only");
	else
		rc = trace_files(s, &files);
	rc = cli_worse_exit(rc, expanded);
	cli_file_list_free(&files);
	cli_trace_session_free(s);
	return cli_html_close(html, rc);
}
