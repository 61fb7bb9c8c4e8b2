/* JSON written straight into a stream: cJSON trees and single values, byte for byte as the linked cJSON's
 * cJSON_PrintUnformatted writes them, without building the document's text in memory first. Reports of a
 * million steps are printed this way: cJSON_PrintUnformatted's number printing (two sprintf calls and an
 * sscanf per non-integer) and its growing print buffer cost more than the rest of the report.
 * Private to the library. */
#ifndef NEXTSTEP_UTIL_JSON_OUT_H
#define NEXTSTEP_UTIL_JSON_OUT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define JSON_OUT_BUFFER 16384
/* Room for any number json_format_number() writes, with its NUL. */
#define JSON_NUMBER_MAX 32

/* A writer buffering into buf and handing full buffers to out. Lives on the stack; nothing to free. */
typedef struct {
	FILE *out;
	size_t len;
	bool failed; /* a write to out came short: what follows is dropped */
	char buf[JSON_OUT_BUFFER];
} json_out;

void json_out_init(json_out *w, FILE *out);
/* n bytes of text as they are: json_out_bytes() when they need a flush first (or a write failed). */
void json_out_bytes_slow(json_out *w, const char *text, size_t n);
/* Inline: most pieces of a report are a few bytes of known length, copied without a call. */
static inline void json_out_bytes(json_out *w, const char *text, size_t n)
{
	if (n <= sizeof(w->buf) - w->len && !w->failed) {
		memcpy(w->buf + w->len, text, n);
		w->len += n;
		return;
	}
	json_out_bytes_slow(w, text, n);
}
/* Text as it is (punctuation, keys known to need no escape). Inline, so that a literal's length is known
 * where it is written (a JSON report of a million steps writes some 80 million of them). */
static inline void json_out_raw(json_out *w, const char *text)
{
	json_out_bytes(w, text, strlen(text));
}
/* A JSON string: quoted and escaped as cJSON escapes (", \, and the C0 controls; other bytes as they are);
 * NULL is written "" as cJSON writes it. */
void json_out_string(json_out *w, const char *s);
/* The same for n bytes at s (no NUL among them). */
void json_out_string_n(json_out *w, const char *s, size_t n);
/* A number as cJSON_CreateNumber(d) prints (valueint from d as cJSON sets it). */
void json_out_number(json_out *w, double d);
/* item and its children. False for what cJSON cannot print either (a raw item without text, an unknown
 * type); what was written before it stays. */
bool json_out_item(json_out *w, const cJSON *item);
/* Hands what is buffered to out. False when a write to out failed (now or before). */
bool json_out_flush(json_out *w);

/* Room for n <= JSON_OUT_BUFFER bytes at the end of the buffer (flushed first when it has less): the caller
 * writes at most n bytes from the pointer returned, unchecked, and hands where it stopped to
 * json_out_commit(). NULL when the output has failed (nothing is to be written then). */
static inline char *json_out_reserve(json_out *w, size_t n)
{
	if (n > sizeof(w->buf) - w->len)
		json_out_flush(w);
	return w->failed ? NULL : w->buf + w->len;
}
static inline void json_out_commit(json_out *w, const char *end)
{
	w->len = (size_t)(end - w->buf);
}

static inline void json_out_char(json_out *w, char c)
{
	if (w->len == sizeof(w->buf))
		json_out_flush(w);
	if (!w->failed)
		w->buf[w->len++] = c;
}

/* The text cJSON prints for a number item of valuedouble d and valueint i: "null" for NaN and infinities,
 * else "%1.15g" when that reads back as d (within cJSON's tolerance of DBL_EPSILON relative), else "%1.17g";
 * the decimal point '.' whatever the locale. buf has room for JSON_NUMBER_MAX bytes; returns the length. */
size_t json_format_number(double d, int i, char *buf);
/* The same for a number cJSON_CreateNumber(d) made (valueint from d as cJSON sets it). */
size_t json_format_double(double d, char *buf);

#endif
