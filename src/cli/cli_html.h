/* --html FILE: the page's file, its head (version, time of the analysis) and the SHA-256 of each input, for
 * the modes that write one (trace, diff, the router). The page's content is the library's (nextstep/html.h).
 */
#ifndef NEXTSTEP_CLI_HTML_H
#define NEXTSTEP_CLI_HTML_H

#include <pthread.h>
#include <stdbool.h>

#include <nettle/sha2.h>

#include "cli.h"
#include "nextstep/html.h"
#include "nextstep/input.h"

typedef struct cli_html cli_html;

/* Opens c->html_path ("-": stdout) and writes the head. A file is checked against the n inputs (cli_output.h)
 * and written beside its name until cli_html_close(). Returns -1 with *out set (NULL when there is no
 * --html), or an exit status after reporting why it could not. */
int cli_html_open(const cli_config *c, const char *title, char *const *inputs, size_t n, cli_html **out);
ns_html_page *cli_html_page(cli_html *h);
/* The sections written from now on wait in a spool ($TMPDIR) until cli_html_release(): what turns out to
 * lead the page (a job's section) is written first. False, and nothing held, without a page or a spool. */
bool cli_html_hold(cli_html *h);
/* What is written from now on goes to the page again, before the held sections. */
void cli_html_unhold(cli_html *h);
/* The held sections after what was written since cli_html_unhold() (cli_html_close() releases them too). */
void cli_html_release(cli_html *h);
/* --html -: the page is the only thing on stdout. */
bool cli_html_to_stdout(const cli_config *c);
/* Ends the page and puts its file in place, unless writing failed (reported; rc becomes at least
 * EXIT_BAD_INPUT) or the page holds no result (a failed run: no file, said unless rc is a usage error). An
 * existing file is left as it was when no page replaces it. Returns rc; NULL is fine. */
int cli_html_close(cli_html *h, int rc);

/* The SHA-256 of an input's bytes as stored (compressed or not). A regular file is hashed on a thread of its
 * own with pread(2) on the same descriptor while the analysis reads it (hashing costs about half of what
 * parsing does: on two cores the page's digest then costs no wall time); a pipe is hashed as it is read. */
typedef struct {
	struct sha256_ctx ctx;
	char hex[2 * SHA256_DIGEST_SIZE + 1];
	char name[NS_INPUT_DISPLAY_MAX]; /* the input's display name, kept past the input's close */
	bool threaded;
	pthread_t thread;
	int fd;
	unsigned long long size; /* bytes hashed by the thread */
	int error;               /* errno of a failed pread, 0 */
	bool cut;                /* a pipe left unread past HTML_DIGEST_DRAIN bytes: no digest */
} cli_html_digest;

/* After its reader stopped early (a bad input), a pipe is read on this far for its digest, no further. */
#define HTML_DIGEST_DRAIN ((unsigned long long)1 << 20)

/* Starts the digest: a thread for a regular file, else what in has read ahead and a tap on the rest. */
void cli_html_digest_start(cli_html_digest *d, ns_input *in);
/* Reads what the analysis left unread, removes the tap and fills src (name, size, digest). */
void cli_html_digest_finish(cli_html_digest *d, ns_input *in, ns_html_source *src);

#endif
