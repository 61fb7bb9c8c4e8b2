/* The text-safety promises of issue 9, checked on whatever a harness printed: every output is well-formed
 * UTF-8 (bad input bytes were replaced by U+FFFD), text output holds no control character but the newline
 * (the others escaped), and a JSON report parses. A harness aborts when one is broken. */
#ifndef NEXTSTEP_FUZZ_TEXT_SAFE_H
#define NEXTSTEP_FUZZ_TEXT_SAFE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

/* Whether the n bytes at s are well-formed UTF-8 throughout. */
static inline bool fuzz_utf8_valid(const char *s, size_t n)
{
	size_t i = 0, len;

	while (i < n) {
		len = ns_utf8_char(s + i, n - i, NULL);
		if (len == 0)
			return false;
		i += len;
	}
	return true;
}

/* Whether the n bytes at s (well-formed UTF-8) hold a control character other than those in allowed: C0,
 * DEL or C1 (U+0080..U+009F). */
static inline bool fuzz_has_control(const char *s, size_t n, const char *allowed)
{
	size_t i = 0, len;
	uint32_t cp;

	while (i < n && (len = ns_utf8_char(s + i, n - i, &cp)) > 0) {
		bool control = cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
		bool ok = false;
		for (const char *a = allowed; *a != '\0'; a++)
			ok |= cp == (unsigned char)*a;
		if (control && !ok)
			return true;
		i += len;
	}
	return false;
}

/* Text output: UTF-8, and no control character but the newline. */
static inline void fuzz_check_text(const char *s, size_t n)
{
	if (!fuzz_utf8_valid(s, n) || fuzz_has_control(s, n, "\n"))
		abort();
}

/* A message (an error, a warning, a name it quotes): one line of UTF-8 without control characters, as it is
 * printed after "nextstep: FILE: " on the terminal. */
static inline void fuzz_check_message(const char *msg)
{
	size_t n = strlen(msg);

	if (!fuzz_utf8_valid(msg, n) || fuzz_has_control(msg, n, ""))
		abort();
}

/* One JSON document (and its newline): UTF-8 that cJSON parses, nothing after it. */
static inline void fuzz_check_json(const char *s, size_t n)
{
	const char *end = NULL;
	cJSON *doc;

	if (!fuzz_utf8_valid(s, n))
		abort();
	doc = cJSON_ParseWithLengthOpts(s, n, &end, false);
	if (doc == NULL || end == NULL || (size_t)(end - s) + 1 != n || s[n - 1] != '\n')
		abort();
	cJSON_Delete(doc);
}

#endif
