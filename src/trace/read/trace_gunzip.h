/* Private to the trace reader: the byte source under the JSON scanner. A plain input is read straight
 * through; a gzip input (magic 1f 8b) is inflated by a second thread into a small ring of buffers so that
 * decompression and parsing overlap. */
#ifndef NEXTSTEP_TRACE_GUNZIP_H
#define NEXTSTEP_TRACE_GUNZIP_H

#include <stdbool.h>
#include <stddef.h>

#include "nextstep/error.h"
#include "nextstep/input.h"

typedef struct trace_source trace_source;

/* Sniffs the magic bytes and, for gzip, starts the inflating thread (threaded), or inflates in the reading
 * thread as it reads (not threaded). Close with trace_source_close(). */
ns_status trace_source_open(trace_source **out, ns_input *in, bool threaded, ns_error *err);
/* Copies up to n decompressed bytes into buf. Returns the count, 0 at the clean end, -1 on an error
 * (err set, err->offset = decompressed bytes before the bad data). Blocks only until some bytes exist. */
long trace_source_read(trace_source *src, unsigned char *buf, size_t n, ns_error *err);
bool trace_source_compressed(const trace_source *src);
/* After a read returned -1: whether the gzip stream simply stopped (a cut file), not a corrupt one. */
bool trace_source_truncated(trace_source *src);
/* Stops the thread (if any) and frees everything; safe at any point of the read. */
void trace_source_close(trace_source *src);

#endif
