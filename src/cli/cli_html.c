/* --html: the page's file and head, and each input's SHA-256.
 *
 * SHA-256 comes from Nettle (Debian nettle-dev), a small, well-kept library that uses the CPU's SHA
 * instructions where there are some; zlib, already linked, has no SHA-256. The time of the analysis is
 * SOURCE_DATE_EPOCH when it is set (reproducible pages: tests and the README's screenshot), else now. */
#define _POSIX_C_SOURCE 200809L
#include "cli_html.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_output.h"
#include "cli_spool.h"
#include "nextstep/version.h"

struct cli_html {
	FILE *out;
	cli_output *file; /* NULL: stdout */
	const char *path;
	ns_html_page *page;
	FILE *held;     /* sections held back (a spool) until what leads the page is written, or NULL */
	bool diverted;  /* the page writes into held */
	bool lost_held; /* held sections could not be written or read back: the page is incomplete */
};

bool cli_html_to_stdout(const cli_config *c)
{
	return c->html_path != NULL && strcmp(c->html_path, "-") == 0;
}

/* Seconds since 1970 as "2026-12-02 21:07:00 UTC" (proleptic Gregorian, as gmtime_r counts), or "unknown"
 * past the years a struct tm holds. Not gmtime_r or strftime: both load the local time zone (tzset reads
 * /etc/localtime and keeps it for the process), which a UTC date does not use. The days are counted in eras
 * of 400 years, which repeat exactly (146,097 days), and each year from March 1, so that its leap day is its
 * last day. */
static void utc_text(long long t, char *buf, size_t size)
{
	long long days = t / 86400, sec = t % 86400, z, era, year;
	long long doe, yoe, doy, mp;
	int month, day;

	if (sec < 0) {
		sec += 86400;
		days--;
	}
	z = days + 719468; /* days from 0000-03-01 to 1970-01-01 */
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;                                      /* day of the era, 0-146096 */
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* year of the era, 0-399 */
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               /* day of the year from March 1 */
	mp = (5 * doy + 2) / 153;                                    /* month from March, 0-11 */
	day = (int)(doy - (153 * mp + 2) / 5 + 1);
	month = (int)(mp < 10 ? mp + 3 : mp - 9);
	year = yoe + era * 400 + (month <= 2);
	if (year - 1900 > INT_MAX || year - 1900 < INT_MIN) {
		snprintf(buf, size, "unknown");
		return;
	}
	snprintf(buf, size, "%04lld-%02d-%02d %02d:%02d:%02d UTC", year, month, day, (int)(sec / 3600),
	         (int)(sec / 60 % 60), (int)(sec % 60));
}

/* SOURCE_DATE_EPOCH (decimal seconds since 1970) or now, as utc_text() writes it. False when the variable is
 * set but not such a number. */
static bool analysis_time(char *buf, size_t size)
{
	const char *env = getenv("SOURCE_DATE_EPOCH");
	long long t = (long long)time(NULL);

	if (env != NULL && env[0] != '\0') {
		char *end;
		errno = 0;
		t = strtoll(env, &end, 10);
		if (errno != 0 || *end != '\0' || t < 0 || env[0] < '0' || env[0] > '9')
			return false;
	}
	utc_text(t, buf, size);
	return true;
}

int cli_html_open(const cli_config *c, const char *title, char *const *inputs, size_t n, cli_html **out)
{
	static const cli_output_kind page_kind = {"--html", "page"};
	char when[64];
	cli_html *h;
	int rc;

	*out = NULL;
	if (c->html_path == NULL)
		return -1;
	if (!analysis_time(when, sizeof(when))) {
		fputs("nextstep: SOURCE_DATE_EPOCH is not a number of seconds\n", stderr);
		return EXIT_USAGE;
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL) {
		fputs("nextstep: out of memory\n", stderr);
		return EXIT_BAD_INPUT;
	}
	h->path = c->html_path;
	h->out = stdout;
	if (!cli_html_to_stdout(c)) {
		if ((rc = cli_output_open(c, &page_kind, h->path, inputs, n, &h->file)) >= 0) {
			free(h);
			return rc;
		}
		h->out = cli_output_stream(h->file);
	}
	ns_html_page_info info = {title, NS_VERSION_STRING, when};
	h->page = ns_html_page_begin(h->out, &info);
	if (h->page == NULL) {
		fputs("nextstep: out of memory\n", stderr);
		cli_html_close(h, EXIT_BAD_INPUT);
		return EXIT_BAD_INPUT;
	}
	*out = h;
	return -1;
}

bool cli_html_hold(cli_html *h)
{
	char why[300];

	if (h == NULL || h->page == NULL || h->held != NULL ||
	    (h->held = cli_spool_new(why, sizeof(why))) == NULL)
		return false;
	ns_html_page_divert(h->page, h->held);
	h->diverted = true;
	return true;
}

void cli_html_unhold(cli_html *h)
{
	if (h != NULL && h->diverted) {
		ns_html_page_divert(h->page, h->out);
		h->diverted = false;
	}
}

void cli_html_release(cli_html *h)
{
	if (h == NULL || h->held == NULL)
		return;
	cli_html_unhold(h);
	if (fflush(h->held) != 0 || ferror(h->held) || !cli_spool_copy(h->held, h->out))
		h->lost_held = true;
	fclose(h->held);
	h->held = NULL;
}

ns_html_page *cli_html_page(cli_html *h)
{
	return h != NULL ? h->page : NULL;
}

int cli_html_close(cli_html *h, int rc)
{
	char shown[256];
	ns_error err;
	size_t results;
	bool failed = false;

	if (h == NULL)
		return rc;
	ns_error_clear(&err);
	cli_html_release(h);
	results = h->page != NULL ? ns_html_page_results(h->page) : 0;
	if ((h->page != NULL && ns_html_page_end(h->page, &err) != NS_OK) || h->lost_held)
		failed = true;
	cli_shown(h->path, shown, sizeof(shown));
	if (failed && h->file == NULL && !h->lost_held && err.status == NS_ERR_IO) {
		/* --html -: the page is stdout, whose write error is said once, with its reason */
		cli_output_ok();
	} else if (failed) {
		fprintf(stderr, "nextstep: --html %s: %s%s\n", shown,
		        err.status == NS_ERR_IO ? err.msg : "write error",
		        h->file != NULL ? " (no page written)" : "");
		cli_output_close(h->file, false);
	} else if (h->file != NULL && results == 0) {
		/* A failed run's page would be empty: a script publishing it would show a blank report. */
		if (rc != EXIT_USAGE)
			fprintf(stderr, "nextstep: --html %s: no page written: no input was analysed\n",
			        shown);
		cli_output_close(h->file, false);
	} else {
		failed = !cli_output_close(h->file, true);
	}
	if (failed)
		rc = cli_worse_exit(rc, EXIT_BAD_INPUT);
	free(h);
	return rc;
}

static void tap(void *ctx, const void *buf, size_t n)
{
	sha256_update(ctx, n, buf);
}

#define HASH_BLOCK (64 << 10)

/* The whole file through pread: the reader's file position is not touched. The block is on the thread's
 * stack: an allocation here could fail at any point of the run (the thread races the reader), and a page
 * without its input's digest would be another page, not an error. */
static void *hash_file(void *arg)
{
	cli_html_digest *d = arg;
	unsigned char buf[HASH_BLOCK];
	off_t off = 0;
	ssize_t n;

	for (;;) {
		n = pread(d->fd, buf, HASH_BLOCK, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sha256_update(&d->ctx, (size_t)n, buf);
		off += n;
	}
	if (n < 0)
		d->error = errno;
	d->size = (unsigned long long)off;
	return NULL;
}

void cli_html_digest_start(cli_html_digest *d, ns_input *in)
{
	struct stat st;

	sha256_init(&d->ctx);
	d->threaded = false;
	d->cut = false;
	d->error = 0;
	d->size = 0;
	d->fd = in->fd;
	if (in->owns_fd && fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    pthread_create(&d->thread, NULL, hash_file, d) == 0) {
		d->threaded = true;
		return;
	}
	sha256_update(&d->ctx, in->head_len, in->head);
	in->tap = tap;
	in->tap_ctx = &d->ctx;
}

void cli_html_digest_finish(cli_html_digest *d, ns_input *in, ns_html_source *src)
{
	static const char hexdigits[] = "0123456789abcdef";
	uint8_t digest[SHA256_DIGEST_SIZE];
	char buf[65536];

	if (d->threaded) {
		pthread_join(d->thread, NULL);
	} else {
		/* The page states the digest of the whole input, also when the reader stopped early (a bad
		 * trace), but a pipe is read on for at most HTML_DIGEST_DRAIN bytes: an endless one was read
		 * forever before its error was said. Past that the page gives the bytes read and no digest.
		 */
		unsigned long long stop = in->bytes_read + HTML_DIGEST_DRAIN;
		while (!in->eof && in->read_errno == 0 && in->bytes_read < stop &&
		       ns_input_read(in, buf, sizeof(buf)) > 0)
			;
		in->tap = NULL;
		d->size = in->bytes_read;
		d->error = in->read_errno;
		d->cut = !in->eof && in->read_errno == 0;
	}
	sha256_digest(&d->ctx, SHA256_DIGEST_SIZE, digest);
	for (size_t i = 0; i < SHA256_DIGEST_SIZE; i++) {
		d->hex[2 * i] = hexdigits[digest[i] >> 4];
		d->hex[2 * i + 1] = hexdigits[digest[i] & 15];
	}
	d->hex[2 * SHA256_DIGEST_SIZE] = '\0';
	snprintf(d->name, sizeof(d->name), "%s", ns_input_display_name(in));
	src->name = d->name;
	src->size = d->size;
	src->sha256 = d->error == 0 && !d->cut ? d->hex : NULL;
}
