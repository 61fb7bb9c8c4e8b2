/* Typed errors shared by every module: the library reports, only the CLI prints or exits. */
#ifndef NEXTSTEP_ERROR_H
#define NEXTSTEP_ERROR_H

#include <stddef.h>

#include "nextstep/api.h"

NS_BEGIN_DECLS

typedef enum {
	NS_OK = 0,
	NS_ERR_USAGE,  /* bad option or option value: exit 2 */
	NS_ERR_IO,     /* cannot open/read/write a file */
	NS_ERR_SYNTAX, /* malformed JSON or trace text */
	NS_ERR_VALUE,  /* well-formed but invalid value (negative share, sum > 1, ...) */
	NS_ERR_KEY,    /* unknown or duplicate key */
	NS_ERR_LIMIT,  /* input exceeds a named limit (nesting, string length, ...) */
	NS_ERR_NOMEM,
	NS_ERR_INTERNAL
} ns_status;

/* Where and what went wrong. line/offset are -1 when unknown. */
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
/* Sets status and a printf-style message; returns status so callers can `return ns_error_set(...)`. The
 * message is made safe to print: control characters escaped and bytes that are not UTF-8 replaced, as
 * ns_text_escape() in src/util/text.h does (input quoted in it cannot reach a terminal raw). */
NS_API ns_status ns_error_set(ns_error *err, ns_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
NS_API const char *ns_strerror(ns_status status);

NS_END_DECLS

#endif
