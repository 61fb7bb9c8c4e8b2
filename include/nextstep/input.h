/* An input source: a file or stdin ("-"), read with read(2) so a pipe hands over data as soon as it arrives
 * (NDJSON behind `tail -f`). The first bytes are kept in a read-ahead buffer so the content can be sniffed
 * (profile JSON, a plain trace, gzip) before a reader is chosen; readers then consume them first. */
#ifndef NEXTSTEP_INPUT_H
#define NEXTSTEP_INPUT_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/input.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "nextstep/api.h"
#include "nextstep/error.h"

NS_BEGIN_DECLS

#define NS_INPUT_HEAD_MAX 4096

typedef enum {
	NS_INPUT_EMPTY,   /* no bytes at all (or only a byte order mark) */
	NS_INPUT_GZIP,    /* gzip magic 1f 8b: a compressed trace */
	NS_INPUT_TRACE,   /* a JSON object whose first key is a Chrome/Kineto trace key (traceEvents,
	                  schemaVersion, ...), or an array of trace events (the first holds a "ph" key) */
	NS_INPUT_PROFILE, /* anything else: profile JSON / NDJSON (the profile parser reports what is wrong
	                  with it) */
	NS_INPUT_SQLITE   /* an SQLite database ("SQLite format 3"): an Nsight Systems export, most likely */
} ns_input_kind;

/* Longest name shown for an input (ns_input_display_name), escaped, with its NUL; longer names are cut. */
#define NS_INPUT_DISPLAY_MAX 1024

typedef struct {
	int fd;
	bool owns_fd;
	const char *name;                   /* as given; "-" for stdin */
	char display[NS_INPUT_DISPLAY_MAX]; /* the name safe to print (see ns_input_display_name) */
	unsigned char head[NS_INPUT_HEAD_MAX];
	size_t head_len; /* bytes read ahead */
	size_t head_pos; /* bytes of head already handed out */
	bool eof;
	int read_errno; /* 0 unless a read failed */
	/* Progress hook for long reads: bytes_read counts what read(2) returned so far; when progress is set
	 * it is called after every read that got bytes (the caller rate-limits what it shows). */
	unsigned long long bytes_read;
	void (*progress)(void *ctx, unsigned long long bytes_read);
	void *progress_ctx;
	/* Tap on the raw bytes: when set, called with every block read(2) returned, in order (a digest of the
	 * input as stored, e.g. for the HTML report). Bytes already in head when it is set are the caller's
	 * to take from there. */
	void (*tap)(void *ctx, const void *buf, size_t n);
	void *tap_ctx;
	/* Called before every read(2) that may wait for more input, once the read-ahead is used up: a stream
	 * of results flushes its output there, so each result is out before nextstep waits (NDJSON behind
	 * `tail -f`) while a file's records are written in large blocks. */
	void (*before_read)(void *ctx);
	void *before_read_ctx;
} ns_input;

/* Opens path ("-" = stdin). Reads nothing yet; a directory is NS_ERR_IO "is a directory". Close with
 * ns_input_close(). */
NS_STATIC_API ns_status ns_input_open(ns_input *in, const char *path, ns_error *err);
/* Reads ahead (blocking only until the bytes that decide arrive; a top-level array, which every parser
 * reads whole, up to NS_INPUT_HEAD_MAX bytes) and tells what the input holds. A UTF-8 byte order mark at the
 * start is dropped: ns_input_read() hands out the bytes after it. */
NS_STATIC_API ns_input_kind ns_input_sniff(ns_input *in);
/* True for the kinds a trace reader reads (ns_trace_read_input, trace_input.h): JSON traces, gzip, SQLite
 * exports. */
NS_STATIC_API bool ns_input_is_trace(ns_input_kind kind);
/* Like read(2), but hands out the read-ahead bytes first. Returns 0 at EOF, -1 on error (see read_errno).
 * May return fewer than n bytes whenever that is what a pipe has. */
NS_STATIC_API ssize_t ns_input_read(ns_input *in, void *buf, size_t n);
/* The name to show in messages and reports: the path, or "<stdin>", escaped as ns_text_escape does (a file
 * name may hold any byte but '/' and NUL: a newline or an escape sequence in it must not reach a terminal or
 * split a line of output, and bytes that are not UTF-8 must not reach JSON). */
NS_STATIC_API const char *ns_input_display_name(const ns_input *in);
NS_STATIC_API void ns_input_close(ns_input *in);

NS_END_DECLS

#endif
