/* Text helpers for everything that reads other people's bytes and shows them again: line numbers of byte
 * offsets, UTF-8 checking and cutting, escaping for terminals and line-oriented output, and resolving JSON
 * string escapes. Private to the library. */
#ifndef NEXTSTEP_UTIL_TEXT_H
#define NEXTSTEP_UTIL_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* 1-based line of byte offset pos in the len bytes at text (an offset past len counts all len bytes). */
long ns_line_of(const char *text, size_t len, size_t pos);
/* Longest word ns_edit_distance() compares; a longer one is NS_EDIT_FAR from everything. */
#define NS_EDIT_WORD_MAX 64
#define NS_EDIT_FAR      ((size_t)-1)
/* The edit distance of two words (optimal string alignment: an insertion, a deletion, a substitution or a
 * swap of two neighbouring bytes costs 1), for "did you mean" over a table of names. */
size_t ns_edit_distance(const char *a, const char *b);
/* Newline bytes in the n bytes at p. */
size_t ns_count_newlines(const char *p, size_t n);

/* U+FFFD REPLACEMENT CHARACTER, written where bytes are not UTF-8. */
#define NS_UTF8_REPLACEMENT     "\xef\xbf\xbd"
#define NS_UTF8_REPLACEMENT_LEN 3

/* Length (1 to 4) of the well-formed UTF-8 character at s, of which n bytes are available; 0 when the
 * bytes there are not one (a stray continuation byte, an overlong form, a surrogate, above U+10FFFF, or cut
 * short). *cp receives the code point when cp is not NULL and the length is not 0. */
size_t ns_utf8_char(const char *s, size_t n, uint32_t *cp);
/* Writes code point cp (at most U+10FFFF, not a surrogate) as UTF-8 to out (room for 4); returns the bytes
 * written. Anything else is written as U+FFFD. */
size_t ns_utf8_put(uint32_t cp, char *out);
/* The largest length <= max at which the len bytes at s can be cut without splitting a character. */
size_t ns_utf8_cut(const char *s, size_t len, size_t max);
/* Copies the len bytes at in to out (cap > 0 bytes) as well-formed UTF-8, each byte that does not begin a
 * character replaced by U+FFFD, stopping before the first character that would not fit with the NUL.
 * Returns the bytes written, without the NUL. */
size_t ns_utf8_clean(const char *in, size_t len, char *out, size_t cap);

/* Text safe to print on a terminal or in a line-oriented stream: well-formed UTF-8 (U+FFFD for bad bytes)
 * and no control character (C0, DEL, C1): newline, carriage return and tab become \n \r \t, the rest \xHH
 * (C1 ones, which are two bytes in UTF-8, \u0080 to \u009f). Backslashes are kept as they are.
 * Like snprintf: writes at most cap bytes with the NUL (cutting between characters or escapes) and returns
 * the length of the whole escaped text. out may be NULL when cap is 0. */
size_t ns_text_escape(const char *in, size_t len, char *out, size_t cap);
/* Writes the NUL-terminated s to out escaped as ns_text_escape does. False when a write failed. */
bool ns_fput_text(FILE *out, const char *s);

/* The decimal digits of v at out (at most 20, no NUL); returns how many. */
size_t ns_put_u64(uint64_t v, char *out);

/* v in the fewest significant digits (%g style) that read back as exactly v, so a message about 1.0000001
 * never says "1". Writes at most cap bytes with the NUL; returns out. */
char *ns_shortest_g(double v, char *out, size_t cap);

/* Resolves the JSON escapes of a string as written between its quotes (len bytes at in) into out, which has
 * room for len + 1 bytes. A \uXXXX surrogate pair becomes one character; a lone surrogate or \u0000 (which
 * a C string cannot hold) becomes U+FFFD; an unknown or cut-short escape leaves its character. Raw bytes
 * are copied as they are. Returns the bytes written, without the NUL. */
size_t ns_json_unescape(const char *in, size_t len, char *out);

#endif
