#include "nextstep/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/text.h"

void ns_error_clear(ns_error *err)
{
	err->status = NS_OK;
	err->line = -1;
	err->offset = -1;
	err->index = -1;
	err->param = 0;
	err->msg[0] = '\0';
}

ns_status ns_error_set(ns_error *err, ns_status status, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return status;
	char raw[sizeof(err->msg)]; /* declared past the check: cppcheck reads sizeof as a dereference */
	err->status = status;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* A new error: nothing of the last one's position or setting applies to it. */
	err->line = -1;
	err->offset = -1;
	err->index = -1;
	err->param = 0;
	/* Messages quote what the input held (a key, a value, a name): escaped here once for every caller, so
	 * no message carries a terminal escape, a line break or bytes that are not UTF-8 (idempotent, so a
	 * message that quotes another is not escaped twice). */
	ns_text_escape(raw, strlen(raw), err->msg, sizeof(err->msg));
	return status;
}

ns_status ns_error_at(ns_error *err, long line, long long offset, long index)
{
	if (err == NULL)
		return NS_ERR_INTERNAL;
	err->line = line;
	err->offset = offset;
	err->index = index;
	return err->status;
}

ns_status ns_error_set_param(ns_error *err, int param)
{
	if (err == NULL)
		return NS_ERR_INTERNAL;
	err->param = param;
	return err->status;
}

static const char *const status_text[] = {
    [NS_OK] = "success",
    [NS_ERR_USAGE] = "usage error",
    [NS_ERR_IO] = "input/output error",
    [NS_ERR_SYNTAX] = "syntax error",
    [NS_ERR_VALUE] = "invalid value",
    [NS_ERR_KEY] = "invalid key",
    [NS_ERR_LIMIT] = "limit exceeded",
    [NS_ERR_NOMEM] = "out of memory",
    [NS_ERR_INTERNAL] = "internal error",
};

const char *ns_strerror(ns_status status)
{
	if ((unsigned)status >= sizeof(status_text) / sizeof(status_text[0]))
		return "unknown error";
	return status_text[status];
}
