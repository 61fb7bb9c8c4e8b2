/* The Nsight Systems reader: an `nsys export --type sqlite` database read with libsqlite3 into the same
 * ns_trace_event stream the Kineto JSON reader gives (trace_read.h), so every consumer of that stream (the
 * split, the roofline collector) reads either format unchanged. docs/nsys.md lists the tables and columns
 * read and what each becomes; schema 2.9.1 (nsys 2022.2) to 3.24.14 (nsys 2026.1) are known. */
#ifndef NEXTSTEP_NSYS_READ_H
#define NEXTSTEP_NSYS_READ_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/nsys_read.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>

#include "nextstep/api.h"
#include "nextstep/error.h"
#include "nextstep/trace_read.h"

NS_BEGIN_DECLS

/* The first 16 bytes of every SQLite 3 database file ("SQLite format 3" and a NUL): an export is recognised
 * by them, never by its name. */
#define NS_SQLITE_MAGIC     "SQLite format 3"
#define NS_SQLITE_MAGIC_LEN 16

/* True when the n bytes at head start with NS_SQLITE_MAGIC (its NUL included). */
NS_STATIC_API bool ns_is_sqlite(const void *head, size_t n);

/* Reads the export at path (opened read-only; the file is never written, and no journal is created beside it)
 * and calls fn for each event, as ns_trace_read() does for a JSON trace: kernels, copies, memsets and
 * synchronisations, CUDA runtime and driver calls, NVTX ranges. meta gets the devices (TARGET_INFO_GPU, named
 * per CUDA device), the rank and world size when the capture's environment names them, and the number of
 * events. Tables are read one after another, each by one streaming query in the order it is stored (names
 * looked up by StringIds' primary key): memory stays at SQLite's page cache and one row, whatever the size.
 * Errors name the file's table and row ("CUPTI_ACTIVITY_KIND_KERNEL row 12: end before start"); an
 * unknown layout names the missing table or column; a string longer than NS_TRACE_MAX_STRING is NS_ERR_LIMIT.
 */
NS_STATIC_API ns_status ns_nsys_read(const char *path, ns_trace_event_fn fn, void *ctx, ns_trace_meta *meta,
                                     ns_error *err);

NS_END_DECLS

#endif
