/* The progress line for long trace reads: "reading FILE: 512 MB of 1.50 GB (34%), 410 MB/s, ETA 3 s" on
 * stderr, redrawn in place at most four times a second, only once reading has taken a second, and only where
 * a person watches: stderr a terminal and not CI (--progress / --no-progress decide otherwise). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_trace.h"
#include "nextstep/units.h"

#define PROGRESS_AFTER_S 1.0
#define PROGRESS_EVERY_S 0.25

struct progress_line {
	ns_input *in;
	const char *name;
	unsigned long long total; /* 0 when unknown (a pipe) */
	double start, last;
	bool shown, tty;
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

static void draw(struct progress_line *p, unsigned long long done, double t)
{
	char b1[32], b2[32], b3[32];
	double rate = (double)done / (t - p->start);

	fprintf(stderr, "%snextstep: reading %s: %s", p->tty ? "\r" : "", p->name,
	        units_format_si((double)done, "B", b1, sizeof(b1)));
	if (p->total > 0 && done <= p->total)
		fprintf(stderr, " of %s (%.0f%%)", units_format_si((double)p->total, "B", b2, sizeof(b2)),
		        100.0 * (double)done / (double)p->total);
	fprintf(stderr, ", %s", units_format_si(rate, "B/s", b3, sizeof(b3)));
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
		draw(p, done, t);
}

cli_progress_line *cli_progress_start(cli_progress mode, ns_input *in)
{
	bool tty = isatty(STDERR_FILENO);
	struct progress_line *p;
	struct stat st;

	if (mode == PROGRESS_NEVER || (mode == PROGRESS_AUTO && (!tty || in_ci())))
		return NULL;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL; /* no progress line is no reason to fail */
	p->in = in;
	p->name = input_display_name(in);
	p->tty = tty;
	if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode))
		p->total = (unsigned long long)st.st_size;
	p->start = p->last = now_s();
	in->progress = on_read;
	in->progress_ctx = p;
	return p;
}

void cli_progress_end(cli_progress_line *p)
{
	if (p == NULL)
		return;
	p->in->progress = NULL;
	p->in->progress_ctx = NULL;
	if (p->shown && p->tty)
		fputs("\r\033[K", stderr);
	free(p);
}
