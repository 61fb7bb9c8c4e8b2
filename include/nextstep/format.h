/* The formatter: a verdict into the one-line text form, the -v explanation, or a JSON object. */
#ifndef NEXTSTEP_FORMAT_H
#define NEXTSTEP_FORMAT_H

#include <stdbool.h>
#include <stdio.h>

#include <cJSON.h>

#include "nextstep/api.h"
#include "nextstep/classify.h"
#include "nextstep/routes.h"

NS_BEGIN_DECLS

typedef enum { NS_FORMAT_TEXT, NS_FORMAT_JSON, NS_FORMAT_QUIET } ns_format_kind;

typedef struct {
	ns_format_kind kind;
	bool verbose;
	bool color;
} ns_format_options;

/* ANSI styles, used only when ns_format_options.color is set (see ns_format_style). */
#define NS_FORMAT_STYLE_VERDICT "\033[1;33m"
#define NS_FORMAT_STYLE_DIM     "\033[2m"
#define NS_FORMAT_STYLE_RESET   "\033[0m"

/* code when o->color, else "". */
NS_API const char *ns_format_style(const ns_format_options *o, const char *code);
/* A share as a percentage: whole from 10% up, two significant digits below ("0.2%", not "0%"). */
NS_API void ns_format_percent(FILE *out, double share);
/* Room for any text ns_format_percent_text() writes, with its NUL. */
#define NS_FORMAT_PERCENT_MAX 320 /* "%.0f" of the largest double is 309 digits */
/* The same text into buf (NS_FORMAT_PERCENT_MAX bytes); returns its length. */
NS_API size_t ns_format_percent_text(double share, char *buf);
/* Derived numbers rounded to 9 decimals, so scripts do not see 0.5700000000000001. */
NS_API double ns_format_tidy(double x);

/* "compute-bound (72%) -> fix (Module)", prefixed by "label: " when label is non-empty (control characters
 * in it escaped, see ns_text_escape in src/util/text.h). */
NS_API void ns_format_verdict_line(FILE *out, const char *label, const ns_verdict *v, const ns_routes *r,
                                   const ns_format_options *o);
/* The -v block that follows the line: ranked bars, runner-up, tie note, findings, next check. */
NS_API void ns_format_verdict_explain(FILE *out, const ns_verdict *v, const ns_routes *r,
                                      const ns_format_options *o);
/* The JSON verdict object (the script contract). Caller owns the result: cJSON_Delete(). NULL on OOM.
 * label may be NULL or "" (then "label" is null). Other modules add their own fields to it. */
NS_API cJSON *ns_format_verdict_json(const char *label, const ns_verdict *v, const ns_routes *r);
/* The keys every routed verdict starts with, in the contract's order: regime and verdict (null when NULL),
 * share (left out when negative), label (null when NULL or ""), module, fix, next_check (null without a
 * route). Caller owns the result; NULL on OOM. */
NS_API cJSON *ns_format_route_json(const char *label, const char *regime, const char *verdict, double share,
                                   const ns_route *route);
/* Prints one verdict in the chosen kind (line [+ explain], JSON line, or quiet name) and flushes.
 * NS_ERR_NOMEM when the JSON could not be built (nothing is printed then), NS_ERR_IO when out has failed. */
NS_API ns_status ns_format_verdict(FILE *out, const char *label, const ns_verdict *v, const ns_routes *r,
                                   const ns_format_options *o);
/* The same without the flush, for a stream of verdicts that flushes when its input waits. The JSON line is
 * ns_format_verdict_json()'s members, then the router's "next_steps": [{"bucket", "gain_share"}] (each bucket
 * with time, largest share first: a profile split bounds a fix by its bucket's share, docs/next-step.md),
 * and ends with "source": source when source is not NULL (a result among several inputs'). */
NS_API ns_status ns_format_verdict_write(FILE *out, const char *label, const ns_verdict *v,
                                         const ns_routes *r, const ns_format_options *o, const char *source);
/* {"error": msg, "line": N} for a bad record in a JSON stream, flushed. Statuses as ns_format_verdict. */
NS_API ns_status ns_format_error_json(FILE *out, const ns_error *err);
/* Prints compact JSON followed by a newline; frees nothing. NS_ERR_NOMEM (nothing printed) when the text
 * could not be built, NS_ERR_IO when out has failed. */
NS_API ns_status ns_format_print_json(FILE *out, const cJSON *obj);

NS_END_DECLS

#endif
