/* The ranks of one job in `nextstep trace`: kept as they come, checked to be one job, merged and reported. */
#define _POSIX_C_SOURCE 200809L
#include "cli_trace_job.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli_common.h"
#include "cli_html.h"
#include "cli_job.h"
#include "cli_spool.h"
#include "util/vec.h"

/* Ranges of missing ranks named before "...". */
#define MISSING_SHOWN 8

typedef struct {
	job_rank *rank; /* a rank's summary (owned until merged), NULL for a file that is no rank */
	FILE *out;      /* the file's own report (a spool), for when there is no job; NULL: none */
	bool is_rank;   /* rank is set, or was until the merger took it */
} job_file;

struct trace_job {
	job_file *file; /* in input order */
	size_t n, cap;
	size_t nranks;
};

trace_job *trace_job_new(void)
{
	return calloc(1, sizeof(trace_job));
}

bool trace_job_holding(const trace_job *j)
{
	return j != NULL && j->nranks > 0;
}

bool trace_job_add(trace_job *j, job_rank *rank, FILE *out)
{
	job_file *grown = ns_grow(j->file, &j->cap, j->n + 1, sizeof(*grown));

	if (grown == NULL) {
		job_rank_free(rank);
		if (out != NULL)
			fclose(out);
		return false;
	}
	j->file = grown;
	j->file[j->n++] = (job_file){rank, out, rank != NULL};
	j->nranks += rank != NULL;
	return true;
}

static void free_files(trace_job *j)
{
	for (size_t i = 0; i < j->n; i++) {
		job_rank_free(j->file[i].rank);
		if (j->file[i].out != NULL)
			fclose(j->file[i].out);
	}
	free(j->file);
	free(j);
}

/* The ranks, sorted by rank number (input order among equals): qsort is not stable, so the pointers' order
 * in the file array breaks ties. */
static int by_rank(const void *a, const void *b)
{
	const job_file *x = *(job_file *const *)a, *y = *(job_file *const *)b;

	if (x->rank->rank != y->rank->rank)
		return x->rank->rank < y->rank->rank ? -1 : 1;
	return x < y ? -1 : x > y;
}

static job_file **ranks_sorted(const trace_job *j)
{
	job_file **r = malloc(j->nranks * sizeof(job_file *));
	size_t n = 0;

	if (r == NULL)
		return NULL;
	for (size_t i = 0; i < j->n; i++)
		if (j->file[i].rank != NULL)
			r[n++] = &j->file[i];
	qsort(r, n, sizeof(job_file *), by_rank);
	return r;
}

/* The world size the ranks agree on (0: none names one); -1 after saying which files disagree. */
static int64_t common_world_size(job_file *const *r, size_t n)
{
	const job_rank *first = NULL;

	for (size_t i = 0; i < n; i++) {
		const job_rank *k = r[i]->rank;
		if (k->world_size <= 0)
			continue;
		if (first != NULL && k->world_size != first->world_size) {
			fprintf(stderr,
			        "nextstep: %s: rank %" PRId64 " of world size %" PRId64
			        ", but %s is rank %" PRId64 " of world size %" PRId64 ": not one job\n",
			        k->file, k->rank, k->world_size, first->file, first->rank, first->world_size);
			return -1;
		}
		if (first == NULL)
			first = k;
	}
	return first != NULL ? first->world_size : 0;
}

/* Whether the sorted ranks can be one job; says why not on stderr. */
static bool one_job(job_file *const *r, size_t n, int64_t world)
{
	for (size_t i = 0; i < n; i++) {
		const job_rank *k = r[i]->rank;
		if (k->rank < 0 || (world > 0 && k->rank >= world)) {
			fprintf(stderr,
			        "nextstep: %s: rank %" PRId64 " is not a rank of a world of %" PRId64 "\n",
			        k->file, k->rank, world);
			return false;
		}
		if (i > 0 && k->rank == r[i - 1]->rank->rank) {
			fprintf(stderr,
			        "nextstep: %s: rank %" PRId64 " again (%s is rank %" PRId64
			        " too): not one job\n",
			        k->file, k->rank, r[i - 1]->rank->file, k->rank);
			return false;
		}
	}
	return true;
}

/* Some ranks of a larger world: which are missing, and what the report then is (stderr, before it). */
static void note_missing(job_file *const *r, size_t n, int64_t world)
{
	int64_t next = 0, shown = 0;

	if (world <= (int64_t)n)
		return;
	fprintf(stderr, "nextstep: %zu of %" PRId64 " ranks; missing:", n, world);
	for (size_t i = 0; i <= n; i++) { /* the gaps between the sorted ranks, as ranges */
		int64_t upto = i < n ? r[i]->rank->rank : world;
		if (upto > next && shown++ < MISSING_SHOWN)
			fprintf(stderr, upto - 1 > next ? "%s %" PRId64 "-%" PRId64 : "%s %" PRId64,
			        shown > 1 ? "," : "", next, upto - 1);
		next = upto + 1;
	}
	fprintf(stderr,
	        "%s (the job report covers the ranks given: time spent waiting for a missing rank counts "
	        "as transfer, and a missing rank cannot be named a straggler)\n",
	        shown > MISSING_SHOWN ? " ..." : "");
}

/* Merges the sorted ranks (taking them) into *out. Returns an exit status (the error said). */
static int merge_ranks(job_file *const *r, size_t n, job_result **out)
{
	job_merge *m = job_merge_new();
	ns_error err;
	ns_status st = m != NULL ? NS_OK : NS_ERR_NOMEM;

	ns_error_clear(&err);
	if (m == NULL)
		ns_error_set(&err, NS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n && st == NS_OK; i++) {
		st = job_merge_add(m, r[i]->rank, &err);
		r[i]->rank = NULL; /* the merger has it, also on error */
	}
	if (st == NS_OK)
		st = job_merge_finish(m, out, &err);
	job_merge_free(m);
	if (st == NS_OK)
		return EXIT_ROUTED;
	cli_report_error(NULL, &err);
	return EXIT_BAD_INPUT;
}

/* In input order: each file's own report, the job report (when there is one) in the first rank's place. */
static int print_in_order(trace_job *j, const cli_config *cfg, const job_result *res)
{
	bool job_done = false;
	int rc = EXIT_ROUTED;

	for (size_t i = 0; i < j->n && cli_output_ok(); i++) {
		const job_file *f = &j->file[i];
		if (res == NULL || !f->is_rank) {
			if (f->out != NULL && !cli_spool_copy(f->out, stdout)) {
				fputs("nextstep: a report could not be read back from its temporary file\n",
				      stderr);
				rc = EXIT_BAD_INPUT;
			}
		} else if (!job_done) {
			rc = cli_job_report(cfg, res);
			job_done = true;
		}
	}
	return rc;
}

/* --html: the job's section, ahead of the ranks' own sections (held back since the page began: cli_trace.c),
 * as the text report leads with the job. */
static int job_page(const cli_config *cfg, cli_html *html, const job_result *res)
{
	ns_verdict v;
	ns_routes routes;
	ns_error err;
	int rc = EXIT_ROUTED;

	ns_error_clear(&err);
	cli_job_verdict(cfg, res, &v, &routes);
	cli_html_unhold(html);
	if (html_job(cli_html_page(html), res, &v, &routes, &err) != NS_OK) {
		cli_report_error(cfg->html_path, &err);
		rc = EXIT_BAD_INPUT;
	}
	cli_html_release(html);
	return rc;
}

int trace_job_finish(trace_job *j, const cli_config *cfg, cli_html *html)
{
	job_result *res = NULL;
	job_file **r;
	int64_t world;
	int rc = EXIT_ROUTED;

	if (j == NULL)
		return rc;
	if (j->nranks < 2) { /* one rank is no job: its own report */
		rc = print_in_order(j, cfg, NULL);
		free_files(j);
		return rc;
	}
	if ((r = ranks_sorted(j)) == NULL) {
		fputs("nextstep: out of memory\n", stderr);
		rc = EXIT_BAD_INPUT;
	} else if ((world = common_world_size(r, j->nranks)) < 0 || !one_job(r, j->nranks, world)) {
		fputs("nextstep: each file is reported on its own\n", stderr);
		rc = EXIT_BAD_INPUT;
	} else {
		note_missing(r, j->nranks, world);
		rc = merge_ranks(r, j->nranks, &res);
	}
	free(r);
	if (res != NULL && html != NULL)
		rc = cli_worse_exit(rc, job_page(cfg, html, res));
	rc = cli_worse_exit(rc, print_in_order(j, cfg, res));
	job_result_free(res);
	free_files(j);
	return rc;
}
