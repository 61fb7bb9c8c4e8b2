/* The ranks of one job in `nextstep trace`: kept as they come, checked to be one job, merged and reported. */
#define _POSIX_C_SOURCE 200809L
#include "cli_trace_job.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_html.h"
#include "cli_job.h"
#include "cli_spool.h"
#include "util/vec.h"

/* Ranges of missing ranks named before "...". */
#define MISSING_SHOWN 8

typedef struct {
	ns_job_rank *rank; /* a rank's summary (owned until merged), NULL for a file that is no rank */
	size_t off, len;   /* the file's own report, for when there is no job: in the store */
	bool kept;         /* the report is in the store whole */
	bool is_rank;      /* rank is set, or was until the merger took it */
} job_file;

/* The files' own reports wait one after another in one store: one spool (one descriptor, however many ranks:
 * a spool each ran out of descriptors past about a thousand ranks), or memory when no spool can be made. */
struct trace_job {
	job_file *file; /* in input order */
	size_t n, cap;
	size_t nranks;
	FILE *store;
	bool in_memory;
	char *mem;
	size_t stored, mem_cap;
};

trace_job *trace_job_new(void)
{
	return calloc(1, sizeof(trace_job));
}

bool trace_job_holding(const trace_job *j)
{
	return j != NULL && j->nranks > 0;
}

/* Appends n bytes to the store. */
static bool store_put(trace_job *j, const char *p, size_t n)
{
	char why[320];

	if (n == 0)
		return true;
	if (!j->in_memory && j->store == NULL && (j->store = cli_spool_new(why, sizeof(why))) == NULL)
		j->in_memory = true;
	if (j->in_memory) {
		char *grown = ns_grow(j->mem, &j->mem_cap, j->stored + n, 1);
		if (grown == NULL)
			return false;
		j->mem = grown;
		memcpy(j->mem + j->stored, p, n);
	} else if (fwrite(p, 1, n, j->store) != n) {
		return false;
	}
	j->stored += n;
	return true;
}

/* Copies a spool's report into the store. */
static bool store_spool(trace_job *j, FILE *out)
{
	char buf[16384];
	size_t n;
	bool ok = true;

	fflush(out);
	clearerr(out);
	if (fseek(out, 0, SEEK_SET) != 0)
		return false;
	while (ok && (n = fread(buf, 1, sizeof(buf), out)) > 0)
		ok = store_put(j, buf, n);
	return ok && !ferror(out);
}

bool trace_job_add(trace_job *j, ns_job_rank *rank, FILE *out, char *text, size_t len)
{
	job_file *grown = ns_grow(j->file, &j->cap, j->n + 1, sizeof(*grown));
	job_file f = {rank, j->stored, 0, true, rank != NULL};

	if (out != NULL)
		f.kept = store_spool(j, out);
	if (text != NULL)
		f.kept = store_put(j, text, len);
	f.len = j->stored - f.off;
	if (out != NULL)
		fclose(out);
	free(text);
	if (grown == NULL) {
		ns_job_rank_free(rank);
		return false;
	}
	j->file = grown;
	j->file[j->n++] = f;
	j->nranks += rank != NULL;
	return true;
}

/* Writes file f's own report from the store to stdout. */
static bool store_copy(trace_job *j, const job_file *f)
{
	char buf[16384];
	size_t left = f->len;

	if (!f->kept)
		return false;
	if (left == 0)
		return true;
	if (j->in_memory) {
		fwrite(j->mem + f->off, 1, left, stdout);
		return true;
	}
	fflush(j->store);
	if (fseeko(j->store, (off_t)f->off, SEEK_SET) != 0)
		return false;
	while (left > 0) {
		size_t got = fread(buf, 1, left < sizeof(buf) ? left : sizeof(buf), j->store);
		if (got == 0)
			return false;
		fwrite(buf, 1, got, stdout);
		left -= got;
	}
	return true;
}

static void free_files(trace_job *j)
{
	for (size_t i = 0; i < j->n; i++)
		ns_job_rank_free(j->file[i].rank);
	if (j->store != NULL)
		fclose(j->store);
	free(j->mem);
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
	const ns_job_rank *first = NULL;

	for (size_t i = 0; i < n; i++) {
		const ns_job_rank *k = r[i]->rank;
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
		const ns_job_rank *k = r[i]->rank;
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
static int merge_ranks(job_file *const *r, size_t n, ns_job_result **out)
{
	ns_job_merge *m = ns_job_merge_new();
	ns_error err;
	ns_status st = m != NULL ? NS_OK : NS_ERR_NOMEM;

	ns_error_clear(&err);
	if (m == NULL)
		ns_error_set(&err, NS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n && st == NS_OK; i++) {
		st = ns_job_merge_add(m, r[i]->rank, &err);
		r[i]->rank = NULL; /* the merger has it, also on error */
	}
	if (st == NS_OK)
		st = ns_job_merge_finish(m, out, &err);
	ns_job_merge_free(m);
	if (st == NS_OK)
		return EXIT_ROUTED;
	cli_report_error(NULL, &err);
	return EXIT_BAD_INPUT;
}

/* In input order: each file's own report, the job report (when there is one) in the first rank's place. */
static int print_in_order(trace_job *j, const cli_config *cfg, const ns_job_result *res)
{
	bool job_done = false;
	int rc = EXIT_ROUTED;

	for (size_t i = 0; i < j->n && cli_output_ok(); i++) {
		const job_file *f = &j->file[i];
		if (res == NULL || !f->is_rank) {
			if (!store_copy(j, f)) {
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
static int job_page(const cli_config *cfg, cli_html *html, const ns_job_result *res)
{
	ns_error err;
	int rc = EXIT_ROUTED;

	ns_error_clear(&err);
	cli_html_unhold(html);
	if (cli_job_html(cfg, cli_html_page(html), res, &err) != NS_OK) {
		cli_report_error(cfg->html_path, &err);
		rc = EXIT_BAD_INPUT;
	}
	cli_html_release(html);
	return rc;
}

int trace_job_finish(trace_job *j, const cli_config *cfg, cli_html *html)
{
	ns_job_result *res = NULL;
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
	if (res != NULL)
		rc = cli_worse_exit(rc, cli_job_quality(cfg, res));
	rc = cli_worse_exit(rc, print_in_order(j, cfg, res));
	ns_job_result_free(res);
	free_files(j);
	return rc;
}
