/* The JSON writer every JSON report goes through (src/util/json_out.c) against the linked cJSON, whose
 * cJSON_PrintUnformatted it promises to match byte for byte. The first byte picks what the rest is:
 *   0: doubles, 8 bytes each, printed as numbers (the exact 15/17-digit rounding and its fallbacks);
 *   1: a string, up to its first NUL (escapes; strings longer than the buffer);
 *   2: JSON text, which cJSON parses into a tree, printed as a whole.
 * The second byte fills the writer's buffer with that many times 64 bytes first, so values straddle its
 * flushes. Any difference aborts. */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_out.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* cJSON's text for item after fill bytes of 'x', or NULL when cJSON cannot print it. */
static char *expected(const cJSON *item, size_t fill, size_t *len)
{
	char *text = cJSON_PrintUnformatted(item), *out;
	size_t n;

	if (text == NULL)
		return NULL;
	n = strlen(text);
	out = malloc(fill + n + 1);
	if (out == NULL)
		abort();
	memset(out, 'x', fill);
	memcpy(out + fill, text, n + 1);
	cJSON_free(text);
	*len = fill + n;
	return out;
}

/* json_out's text for item after fill bytes of 'x', written through json_out_raw. */
static char *written(const cJSON *item, size_t fill, size_t *len, bool *ok)
{
	char *text = NULL, chunk[65];
	FILE *mem = open_memstream(&text, len);
	json_out w;

	if (mem == NULL)
		abort();
	memset(chunk, 'x', 64);
	chunk[64] = '\0';
	json_out_init(&w, mem);
	for (size_t i = 0; i < fill / 64; i++)
		json_out_raw(&w, chunk);
	switch (item->type & 0xff) { /* a lone value through the writer's own entry points */
	case cJSON_Number:
		json_out_number(&w, item->valuedouble);
		*ok = true;
		break;
	case cJSON_String:
		json_out_string(&w, item->valuestring);
		*ok = true;
		break;
	default:
		*ok = json_out_item(&w, item);
	}
	if (!json_out_flush(&w) || fclose(mem) != 0)
		abort();
	return text;
}

static void compare(const cJSON *item, size_t fill)
{
	size_t want_len = 0, got_len = 0;
	bool ok;
	char *want = expected(item, fill, &want_len);
	char *got = written(item, fill, &got_len, &ok);

	if (want != NULL && (!ok || want_len != got_len || memcmp(want, got, got_len) != 0))
		abort();
	free(want);
	free(got);
}

static void compare_numbers(const uint8_t *p, size_t n, size_t fill)
{
	for (; n >= sizeof(double); p += sizeof(double), n -= sizeof(double)) {
		double d;
		cJSON *item;
		memcpy(&d, p, sizeof(d));
		item = cJSON_CreateNumber(d);
		if (item == NULL)
			abort();
		compare(item, fill);
		cJSON_Delete(item);
	}
}

static void compare_string(const uint8_t *p, size_t n, size_t fill)
{
	char *s = malloc(n + 1);
	cJSON *item;

	if (s == NULL)
		abort();
	memcpy(s, p, n);
	s[n] = '\0';
	item = cJSON_CreateString(s);
	free(s);
	if (item == NULL)
		abort();
	compare(item, fill);
	cJSON_Delete(item);
}

static void compare_tree(const uint8_t *p, size_t n, size_t fill)
{
	cJSON *item = cJSON_ParseWithLength((const char *)p, n);

	if (item == NULL)
		return;
	compare(item, fill);
	cJSON_Delete(item);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t fill;

	if (size < 2)
		return 0;
	fill = (size_t)data[1] * 64;
	switch (data[0] % 3) {
	case 0:
		compare_numbers(data + 2, size - 2, fill);
		break;
	case 1:
		compare_string(data + 2, size - 2, fill);
		break;
	default:
		compare_tree(data + 2, size - 2, fill);
	}
	return 0;
}
