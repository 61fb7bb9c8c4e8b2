/* Typed errors shared by every module: the library reports, only the CLI prints or exits. */
#ifndef NEXTSTEP_ERROR_H
#define NEXTSTEP_ERROR_H

#include <stddef.h>

#include "nextstep/api.h"

NS_BEGIN_DECLS

typedef enum {
	NS_OK = 0,
	NS_ERR_USAGE, /* never returned by libnextstep: a caller's own code for a bad option (its value errors
	                 are NS_ERR_VALUE, err->param naming the setting where the module has several) */
	NS_ERR_IO,    /* cannot open/read/write a file */
	NS_ERR_SYNTAX, /* malformed JSON or trace text */
	NS_ERR_VALUE,  /* well-formed but invalid value (negative share, sum > 1, ...) */
	NS_ERR_KEY,    /* unknown or duplicate key */
	NS_ERR_LIMIT,  /* input exceeds a named limit (nesting, string length, ...) */
	NS_ERR_NOMEM,
	NS_ERR_INTERNAL
} ns_status;

/* Where and what went wrong. line, offset and index are -1 when unknown. */
typedef struct {
	ns_status status;
	long line;        /* 1-based line in the input, or -1 */
	long long offset; /* byte offset in the (decompressed) input, or -1 */
	long index;       /* event or record index, or -1 */
	int param;        /* which caller setting decides this error (the module's own enum), 0 when none: the
	                     caller names its option, the library never does */
	char msg[512];
} ns_error;

NS_API void ns_error_clear(ns_error *err);
/* Sets status and a printf-style message, and forgets the position and param an earlier error left (line,
 * offset and index -1, param 0): ns_error_at() and ns_error_set_param() after it say where and which
 * setting. Returns status so callers can `return ns_error_set(...)`. The message is made safe to print:
 * control characters escaped and bytes that are not UTF-8 replaced, as ns_text_escape() in src/util/text.h
 * does (input quoted in it cannot reach a terminal raw). err may be NULL (nothing is recorded). */
NS_API ns_status ns_error_set(ns_error *err, ns_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Where the error just set is: a 1-based line, a byte offset, an event or record index, each -1 when
 * unknown. Returns err->status, so that `return ns_error_at(err, line, -1, -1);` follows ns_error_set(). */
NS_API ns_status ns_error_at(ns_error *err, long line, long long offset, long index);
/* Which caller setting decides the error just set (the module's own enum, 0 for none). Returns err->status.
 */
NS_API ns_status ns_error_set_param(ns_error *err, int param);
NS_API const char *ns_strerror(ns_status status);

NS_END_DECLS

#endif
