/* Private to the Nsight Systems reader: libsqlite3, opened when the first export is read instead of by the
 * dynamic linker at start-up. Mapping and relocating it at start cost every run of the program about 0.4 MB
 * of resident memory (docs/performance.md, issue 27), and most runs read Kineto JSON, not an export.
 *
 * Each sqlite3_* function the reader calls is a macro for a pointer of nsys_sq, filled by nsys_sqlite_load(),
 * so the reader's code reads as plain SQLite calls. Include this header, after nsys_private.h, only in the
 * reader's own files: a caller that links libsqlite3 itself (the unit tests, the fuzz harness) calls the real
 * functions and calls nsys_sqlite_load() before handing a database to the reader. */
#ifndef NEXTSTEP_NSYS_SQLITE_H
#define NEXTSTEP_NSYS_SQLITE_H

#include <sqlite3.h>
#include <stdbool.h>

#include "nextstep/error.h"

/* The library's functions the reader calls, typed as sqlite3.h declares them. */
/* clang-format off */
#define NSYS_SQLITE_FUNCTIONS(X) \
	X(bind_int) X(bind_int64) X(bind_text) X(close) X(column_bytes) X(column_int) \
	X(column_int64) X(column_text) X(column_type) X(column_value) X(errcode) X(errmsg) \
	X(errstr) X(exec) X(finalize) X(limit) X(open_v2) X(prepare_v2) \
	X(reset) X(step) X(value_int64) X(value_numeric_type) X(value_type)
/* clang-format on */

/* One pointer for each name of NSYS_SQLITE_FUNCTIONS (nsys_sqlite.c fills them by that list). */
typedef struct {
	__typeof__(&sqlite3_bind_int) bind_int;
	__typeof__(&sqlite3_bind_int64) bind_int64;
	__typeof__(&sqlite3_bind_text) bind_text;
	__typeof__(&sqlite3_close) close;
	__typeof__(&sqlite3_column_bytes) column_bytes;
	__typeof__(&sqlite3_column_int) column_int;
	__typeof__(&sqlite3_column_int64) column_int64;
	__typeof__(&sqlite3_column_text) column_text;
	__typeof__(&sqlite3_column_type) column_type;
	__typeof__(&sqlite3_column_value) column_value;
	__typeof__(&sqlite3_errcode) errcode;
	__typeof__(&sqlite3_errmsg) errmsg;
	__typeof__(&sqlite3_errstr) errstr;
	__typeof__(&sqlite3_exec) exec;
	__typeof__(&sqlite3_finalize) finalize;
	__typeof__(&sqlite3_limit) limit;
	__typeof__(&sqlite3_open_v2) open_v2;
	__typeof__(&sqlite3_prepare_v2) prepare_v2;
	__typeof__(&sqlite3_reset) reset;
	__typeof__(&sqlite3_step) step;
	__typeof__(&sqlite3_value_int64) value_int64;
	__typeof__(&sqlite3_value_numeric_type) value_numeric_type;
	__typeof__(&sqlite3_value_type) value_type;
} nsys_sqlite_api;

extern nsys_sqlite_api nsys_sq;

/* Opens libsqlite3 (once per process; later calls only report the first outcome). False with err set (when
 * not NULL) when it or one of its functions cannot be found. */
bool nsys_sqlite_load(ns_error *err);

#define sqlite3_bind_int           nsys_sq.bind_int
#define sqlite3_bind_int64         nsys_sq.bind_int64
#define sqlite3_bind_text          nsys_sq.bind_text
#define sqlite3_close              nsys_sq.close
#define sqlite3_column_bytes       nsys_sq.column_bytes
#define sqlite3_column_int         nsys_sq.column_int
#define sqlite3_column_int64       nsys_sq.column_int64
#define sqlite3_column_text        nsys_sq.column_text
#define sqlite3_column_type        nsys_sq.column_type
#define sqlite3_column_value       nsys_sq.column_value
#define sqlite3_errcode            nsys_sq.errcode
#define sqlite3_errmsg             nsys_sq.errmsg
#define sqlite3_errstr             nsys_sq.errstr
#define sqlite3_exec               nsys_sq.exec
#define sqlite3_finalize           nsys_sq.finalize
#define sqlite3_limit              nsys_sq.limit
#define sqlite3_open_v2            nsys_sq.open_v2
#define sqlite3_prepare_v2         nsys_sq.prepare_v2
#define sqlite3_reset              nsys_sq.reset
#define sqlite3_step               nsys_sq.step
#define sqlite3_value_int64        nsys_sq.value_int64
#define sqlite3_value_numeric_type nsys_sq.value_numeric_type
#define sqlite3_value_type         nsys_sq.value_type

#endif
