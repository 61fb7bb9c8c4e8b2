/* Recognising file formats by their first bytes. Private to the library. */
#ifndef NEXTSTEP_UTIL_MAGIC_H
#define NEXTSTEP_UTIL_MAGIC_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

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

/* The marks nextstep puts near the top of what it writes, so that a later run knows the file is its own and
 * may be replaced (an HTML page's generator meta element, an SVG plot's generator comment), and the bytes of
 * a file's start searched for them. */
#define NS_GENERATOR_HTML "<meta name=\"generator\" content=\"nextstep "
#define NS_GENERATOR_SVG  "<!-- Generator: nextstep "
#define NS_GENERATOR_SPAN 512

static inline bool ns_has_within(const char *p, size_t n, const char *needle)
{
	size_t len = strlen(needle);

	for (size_t i = 0; i + len <= n; i++)
		if (memcmp(p + i, needle, len) == 0)
			return true;
	return false;
}

/* True when the n first bytes of a file are those of a page or a plot nextstep wrote: "<!DOCTYPE html>" or
 * "<?xml" first, then the generator mark within NS_GENERATOR_SPAN bytes. */
static inline bool ns_is_own_output(const void *head, size_t n)
{
	const char *h = head;

	if (n > NS_GENERATOR_SPAN)
		n = NS_GENERATOR_SPAN;
	if (n >= 15 && memcmp(h, "<!DOCTYPE html>", 15) == 0)
		return ns_has_within(h, n, NS_GENERATOR_HTML);
	return n >= 5 && memcmp(h, "<?xml", 5) == 0 && ns_has_within(h, n, NS_GENERATOR_SVG);
}

#endif
