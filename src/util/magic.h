/* Recognising file formats by their first bytes. Private to the library. */
#ifndef NEXTSTEP_UTIL_MAGIC_H
#define NEXTSTEP_UTIL_MAGIC_H

#include <stdbool.h>
#include <stddef.h>

/* True when the n bytes at p start with the gzip magic 1f 8b (RFC 1952, section 2.3.1). */
static inline bool ns_is_gzip(const void *p, size_t n)
{
	const unsigned char *b = p;

	return n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

/* Bytes of a UTF-8 byte order mark (EF BB BF) at the start of the n bytes at p: 3 or 0. */
static inline size_t ns_utf8_bom_len(const void *p, size_t n)
{
	const unsigned char *b = p;

	return n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf ? 3 : 0;
}

#endif
