/* The progress line for long trace reads: "reading FILE: 512 MB of 1.50 GB (34%), 410 MB/s, ETA 3 s" on
 * stderr, redrawn in place at most four times a second, only once reading has taken a second, and only where
 * a person watches: stderr a terminal and not CI (--progress / --no-progress decide otherwise).
 * Several files make one line for all of them ("reading 8 files (3 done): ..."), fed by every worker thread
 * under one mutex, which the output also takes, so lines never interleave. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_progress.h"
#include "nextstep/units.h"

#define PROGRESS_AFTER_S 1.0
#define PROGRESS_EVERY_S 0.25

struct progress_line {
	ns_input *in;
	const char *name;
	unsigned long long total; /* 0 when unknown (a pipe) */
	double start, last;
	bool shown, tty;
	cli_progress_set *set;        /* a member of this set's line, or NULL for a line of its own */
	unsigned long long set_bytes; /* this input's bytes already counted in the set */
};

struct progress_set {
	pthread_mutex_t mu;
	struct progress_line line; /* the shared line: name "N files", total of the regular files */
	char name[48];
	unsigned long long done;
	size_t files_done;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool in_ci(void)
{
	const char *ci = getenv("CI");

	return ci != NULL && ci[0] != '\0' && strcmp(ci, "false") != 0 && strcmp(ci, "0") != 0;
}

static void draw(struct progress_line *p, unsigned long long done, double t, size_t files_done)
{
	char b1[32], b2[32], b3[32];
	double rate = (double)done / (t - p->start);

	fprintf(stderr, "%snextstep: reading %s", p->tty ? "\r" : "", p->name);
	if (files_done > 0)
		fprintf(stderr, " (%zu done)", files_done);
	fprintf(stderr, ": %s", ns_units_format_si((double)done, "B", b1, sizeof(b1)));
	if (p->total > 0 && done <= p->total)
		fprintf(stderr, " of %s (%.0f%%)", ns_units_format_si((double)p->total, "B", b2, sizeof(b2)),
		        100.0 * (double)done / (double)p->total);
	fprintf(stderr, ", %s", ns_units_format_si(rate, "B/s", b3, sizeof(b3)));
	if (p->total > 0 && done < p->total && rate > 0.0)
		fprintf(stderr, ", ETA %.0f s", (double)(p->total - done) / rate);
	fputs(p->tty ? "\033[K" : "\n", stderr);
	p->shown = true;
	p->last = t;
}

static void on_read(void *ctx, unsigned long long done)
{
	struct progress_line *p = ctx;
	double t = now_s();

	if (t - p->start >= PROGRESS_AFTER_S && t - p->last >= PROGRESS_EVERY_S)
		draw(p, done, t, 0);
}

/* A member's read: its new bytes go to the set, whose line is drawn as a single file's is. */
static void on_set_read(void *ctx, unsigned long long done)
{
	struct progress_line *p = ctx;
	cli_progress_set *s = p->set;
	double t = now_s();

	pthread_mutex_lock(&s->mu);
	s->done += done - p->set_bytes;
	p->set_bytes = done;
	if (t - s->line.start >= PROGRESS_AFTER_S && t - s->line.last >= PROGRESS_EVERY_S)
		draw(&s->line, s->done, t, s->files_done);
	pthread_mutex_unlock(&s->mu);
}

static bool wanted(cli_progress mode, bool tty)
{
	return mode == PROGRESS_ALWAYS || (mode == PROGRESS_AUTO && tty && !in_ci());
}

static unsigned long long file_size(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (unsigned long long)st.st_size : 0;
}

cli_progress_set *cli_progress_set_start(cli_progress mode, char *const *paths, size_t n)
{
	bool tty = isatty(STDERR_FILENO);
	cli_progress_set *s;
	struct stat st;

	if (!wanted(mode, tty) || (s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	pthread_mutex_init(&s->mu, NULL);
	snprintf(s->name, sizeof(s->name), "%zu files", n);
	s->line.name = s->name;
	s->line.tty = tty;
	for (size_t i = 0; i < n; i++)
		if (stat(paths[i], &st) == 0 && S_ISREG(st.st_mode))
			s->line.total += (unsigned long long)st.st_size;
	s->line.start = s->line.last = now_s();
	return s;
}

/* Clears the line if it is shown; under the set's mutex. */
static void clear_line(struct progress_line *p)
{
	if (p->shown && p->tty)
		fputs("\r\033[K", stderr);
	p->shown = false;
}

void cli_progress_set_hold(cli_progress_set *s)
{
	if (s == NULL)
		return;
	pthread_mutex_lock(&s->mu);
	clear_line(&s->line);
}

void cli_progress_set_release(cli_progress_set *s)
{
	if (s != NULL)
		pthread_mutex_unlock(&s->mu);
}

void cli_progress_set_end(cli_progress_set *s)
{
	if (s == NULL)
		return;
	clear_line(&s->line);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

cli_progress_line *cli_progress_start(cli_progress mode, ns_input *in)
{
	bool tty = isatty(STDERR_FILENO);
	struct progress_line *p;

	if (!wanted(mode, tty))
		return NULL;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL; /* no progress line is no reason to fail */
	p->in = in;
	p->name = ns_input_display_name(in);
	p->tty = tty;
	p->total = file_size(in->fd);
	p->start = p->last = now_s();
	in->progress = on_read;
	in->progress_ctx = p;
	return p;
}

cli_progress_line *cli_progress_join(cli_progress_set *s, ns_input *in)
{
	struct progress_line *p;

	if (s == NULL || (p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->in = in;
	p->set = s;
	in->progress = on_set_read;
	in->progress_ctx = p;
	return p;
}

void cli_progress_end(cli_progress_line *p)
{
	if (p == NULL)
		return;
	p->in->progress = NULL;
	p->in->progress_ctx = NULL;
	if (p->set != NULL) {
		pthread_mutex_lock(&p->set->mu);
		p->set->files_done++;
		pthread_mutex_unlock(&p->set->mu);
	}
	clear_line(p);
	free(p);
}
