/* The files of `nextstep trace`, read by the ordered pool of cli_parallel.c (-j): each task reads one file
 * into its own split, prints its report and frees the split; the reports are written in input order. A report
 * whose turn has come (every earlier input's written: always so with one input or -j 1) goes straight to
 * stdout as it is printed; another waits in a spool (cli_spool.h), so memory never holds a whole report. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_parallel.h"
#include "cli_spool.h"
#include "cli_trace_job.h"
#include "cli_trace_private.h"
#include "nextstep/job.h"
#include "util/memstream.h"

/* One file's result, kept until its turn to be written: its report in a spool (NULL when it went straight
 * out), its messages in memory (a few lines); with --html the split itself (done), reported on the caller's
 * thread into the page; the rank it is. */
typedef struct {
	FILE *out;
	bool out_in_memory; /* out is a memstream (a job rank's report with no room for a spool)... */
	char *mem;          /* ...whose buffer is this, once out is closed */
	size_t mem_len;
	char *msgs;
	size_t msgs_len;
	int rc;
	trace_done *done;
	ns_job_rank *summary; /* the job's summary of a rank, when the output needs one */
	bool has_rank;
	bool ns_job_rank; /* a rank of a job: of a world larger than one (torchrun's lone run is rank 0 of 1)
	                   */
	int64_t rank;
} trace_task;

/* One invocation over many files. */
typedef struct {
	cli_trace_session *s;
	const cli_file_list *files;
	ns_kernel_rules **rules; /* per worker; [0] is the session's */
	unsigned workers;
	unsigned read_threads; /* each file's share of -j: the files at once take it first */
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
	    (!t->ns_job_rank && mode == TRACE_AUTO))
		return EXIT_ROUTED;
	ns_error_clear(&err);
	if (d->cut != NULL) { /* a summary would carry what was read as the rank's whole run */
		trace_one_error(k->msgs, where, d->cut);
		fprintf(k->msgs, "nextstep: %s: the file is cut off: no summary\n", where);
		return EXIT_BAD_INPUT;
	}
	if (!t->has_rank) {
		fprintf(k->msgs,
		        "nextstep: %s: no rank (distributedInfo) in this trace: a summary is one rank's\n",
		        where);
		return EXIT_BAD_INPUT;
	}
	if (ns_job_rank_from_split(d->res, where, &t->summary, &err) != NS_OK) {
		trace_one_error(k->msgs, where, &err);
		return EXIT_BAD_INPUT;
	}
	ns_job_rank_set_roof(t->summary, d->res, d->roof_report);
	if (mode != TRACE_SUMMARY)
		return EXIT_ROUTED;
	line = ns_job_rank_to_ndjson(t->summary);
	ns_job_rank_free(t->summary);
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
	if (c->output == TRACE_AUTO && (t->ns_job_rank || trace_job_holding(r->job)))
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
	/* A rank's own report is printed only when its job cannot be made: with no room for a spool it waits
	 * in memory (a few kilobytes of text), so that a job needs no temporary file with -j 1. */
	if (r->s->cfg->output == TRACE_AUTO && t->ns_job_rank &&
	    (k->out = t->out = open_memstream(&t->mem, &t->mem_len)) != NULL) {
		t->out_in_memory = true;
		return true;
	}
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
	const char *where = ns_input_display_name(in);
	trace_done *d = malloc(sizeof(*d));
	int rc = EXIT_BAD_INPUT;

	if (d == NULL) {
		fprintf(k->msgs, "nextstep: %s: out of memory\n", where);
		return EXIT_BAD_INPUT;
	}
	trace_one_analyse(r->s, k, in, d);
	/* a cut rank is reported on its own (its report says what was lost), never merged into a job */
	t->has_rank = d->st == NS_OK && d->res->has_rank && d->cut == NULL;
	t->ns_job_rank = t->has_rank && d->res->world_size != 1;
	t->rank = d->st == NS_OK ? d->res->rank : 0;
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
				rc = trace_one_text(r->s, k, where, false, d);
			else if ((int)d->res->quality.grade > r->s->cfg->min_quality)
				rc = cli_worse_exit(rc,
				                    EXIT_QUALITY); /* the line is written, with its grade */
		} else {
			rc = cli_worse_exit(rc, trace_one_report(r->s, k, where, r->files->n > 1, d));
		}
		if (k->out == stdout)
			cli_progress_set_release(r->progress);
	}
	trace_done_free(d);
	free(d);
	return rc;
}

/* The task's messages are lost (memory ran out as their stream closed): says so at once, and fails the task. */
static void messages_lost(trace_task *t, const char *where)
{
	fprintf(stderr, "nextstep: %s: out of memory\n", where);
	t->msgs_len = 0;
	t->rc = cli_worse_exit(t->rc, EXIT_BAD_INPUT);
}

/* On a pool thread: opens, reads and reports file i. */
static void run_task(void *ctx, size_t i, unsigned worker)
{
	trace_run *r = ctx;
	trace_task *t = &r->task[i];
	const char *path = r->files->path[i];
	FILE *msgs = open_memstream(&t->msgs, &t->msgs_len);
	trace_sink k = {r->rules[worker], NULL, msgs, r->progress, r->read_threads};
	ns_input in;
	ns_error err;

	ns_error_clear(&err);
	t->rc = EXIT_BAD_INPUT;
	if (msgs == NULL)
		ns_error_set(&err, NS_ERR_NOMEM, "out of memory");
	else if (ns_input_open(&in, path, &err) == NS_OK) {
		if (!cli_unreadable_input(&in, &err))
			t->rc = run_file(r, i, &k, &in);
		ns_input_close(&in);
	}
	if (err.status != NS_OK)
		cli_report_error_to(msgs != NULL ? msgs : stderr, path, &err);
	if (msgs != NULL && !ns_memstream_close(msgs, &t->msgs))
		messages_lost(t, path);
}

/* --html, on the caller's thread in input order: the page's section now, the text report as a worker would
 * have made it (its turn has come: straight out unless held). */
static void emit_page(trace_run *r, trace_task *t)
{
	trace_done *d = t->done;
	FILE *msgs;
	trace_sink k;
	int rc = trace_one_page(r->s, stderr, d->src.name, d);

	if (t->msgs_len > 0) /* what the worker had to say (its summary) comes first */
		fwrite(t->msgs, 1, t->msgs_len, stderr);
	free(t->msgs);
	t->msgs = NULL;
	t->msgs_len = 0;
	msgs = open_memstream(&t->msgs, &t->msgs_len);
	k = (trace_sink){NULL, NULL, msgs, NULL, 0};
	if (msgs == NULL) {
		fprintf(stderr, "nextstep: %s: out of memory\n", d->src.name);
		rc = EXIT_BAD_INPUT;
	} else {
		trace_one_note_rules(msgs, d->src.name, d);
		if (rc == EXIT_ROUTED)
			rc = open_out(r, t, &k, d->src.name, true)
			         ? trace_one_text(r->s, &k, d->src.name, r->files->n > 1, d)
			         : EXIT_BAD_INPUT;
	}
	if (msgs != NULL && !ns_memstream_close(msgs, &t->msgs))
		messages_lost(t, d->src.name);
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

	if (t->out_in_memory) { /* closed, its buffer holds the report */
		bool kept = ns_memstream_close(t->out, &t->mem);
		t->out = NULL;
		t->out_in_memory = false;
		if (!kept) { /* the rank's own report is lost; its summary still goes to the job */
			fprintf(stderr, "nextstep: %s: out of memory\n", r->files->path[i]);
			t->mem_len = 0;
			t->rc = EXIT_BAD_INPUT;
		}
	}
	if (mode == TRACE_AUTO && (t->summary != NULL || trace_job_holding(r->job))) {
		if (!trace_job_add(r->job, t->summary, t->out, t->mem, t->mem_len)) {
			fputs("nextstep: out of memory\n", stderr);
			t->rc = EXIT_BAD_INPUT;
		}
		t->summary = NULL;
		t->out = NULL; /* the job has them */
		t->mem = NULL;
		return;
	}
	if (mode == TRACE_ONE_RANK && !(t->has_rank && t->rank == r->s->cfg->only_rank))
		return;
	r->rank_shown += t->has_rank;
	if (t->mem != NULL)
		fwrite(t->mem, 1, t->mem_len, stdout);
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
	free(t->mem);
	free(t->msgs);
	t->out = NULL;
	t->mem = NULL;
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

	r->rules = calloc(r->workers, sizeof(ns_kernel_rules *));
	if (r->rules == NULL) {
		fputs("nextstep: out of memory\n", stderr);
		return EXIT_BAD_INPUT;
	}
	r->rules[0] = r->s->rules;
	for (unsigned w = 1; w < r->workers && rc < 0; w++)
		rc = cli_trace_load_rules(r->s->cfg, &r->rules[w]);
	return rc;
}

static void trace_run_free(trace_run *r)
{
	for (unsigned w = 1; r->rules != NULL && w < r->workers; w++)
		ns_kernel_rules_free(r->rules[w]);
	free(r->rules);
	for (size_t i = 0; r->task != NULL && i < r->files->n; i++) {
		if (r->task[i].out != NULL)
			fclose(r->task[i].out);
		free(r->task[i].mem);
		free(r->task[i].msgs);
		if (r->task[i].done != NULL)
			trace_done_free(r->task[i].done);
		free(r->task[i].done);
		ns_job_rank_free(r->task[i].summary);
	}
	free(r->task);
	cli_progress_set_end(r->progress);
}

/* -j, or one per processor. */
static unsigned thread_budget(const cli_config *c)
{
	unsigned w = c->jobs > 0 ? c->jobs : cli_default_workers();

	return w > 0 ? w : 1;
}

/* The budget, but no more than there are files, and at least one. */
static unsigned worker_count(const cli_config *c, size_t nfiles)
{
	unsigned w = thread_budget(c);

	return w > nfiles ? (nfiles > 0 ? (unsigned)nfiles : 1) : w;
}

int cli_trace_files(cli_trace_session *s, const cli_file_list *files)
{
	cli_config *c = s->cfg;
	trace_run r = {.s = s, .files = files, .workers = worker_count(c, files->n), .rc = EXIT_ROUTED};
	int rc;

	/* What the files read at once leave of -j goes to parsing each on more threads (a lone file on two).
	 */
	r.read_threads = thread_budget(c) / r.workers;
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
