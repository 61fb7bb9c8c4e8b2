#define _POSIX_C_SOURCE 200809L
#include "nextstep/json_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

static ns_status read_small_file(const char *path, char **out, size_t *len, ns_error *err)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;
	ns_status st = NS_OK;

	if (fp == NULL)
		return ns_error_set(err, NS_ERR_IO, "cannot open: %s", strerror(errno));
	for (;;) {
		if (n + 4096 + 1 > cap) {
			char *grown;
			if (cap >= JSON_FILE_MAX) {
				st = ns_error_set(err, NS_ERR_LIMIT, "file is larger than %u bytes",
				                  JSON_FILE_MAX);
				break;
			}
			cap = cap == 0 ? 8192 : cap * 2;
			grown = realloc(buf, cap + 1);
			if (grown == NULL) {
				st = ns_error_set(err, NS_ERR_NOMEM, "out of memory");
				break;
			}
			buf = grown;
		}
		size_t got = fread(buf + n, 1, cap - n, fp);
		n += got;
		if (got == 0) {
			if (ferror(fp))
				st = ns_error_set(err, NS_ERR_IO, "read error: %s", strerror(errno));
			break;
		}
	}
	fclose(fp);
	if (st != NS_OK) {
		free(buf);
		return st;
	}
	if (buf == NULL && (buf = malloc(1)) == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return NS_OK;
}

ns_status json_parse_file(const char *path, cJSON **out, ns_error *err)
{
	char *text = NULL;
	size_t len = 0;
	const char *end = NULL;
	ns_status st = read_small_file(path, &text, &len, err);

	if (st != NS_OK)
		return st;
	*out = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1); /* the NUL is part of the buffer */
	if (*out == NULL) {
		size_t pos = end != NULL && end >= text ? (size_t)(end - text) : 0;
		err->line = ns_line_of(text, len, pos);
		st = ns_error_set(err, NS_ERR_SYNTAX, "malformed JSON");
	}
	free(text);
	return st;
}

ns_status json_check_keys(const cJSON *obj, const char *const *allowed, const char *what, ns_error *err)
{
	const cJSON *item;

	cJSON_ArrayForEach(item, obj)
	{
		bool known = false;
		for (const char *const *a = allowed; *a != NULL && !known; a++)
			known = strcmp(item->string, *a) == 0;
		if (!known)
			return ns_error_set(err, NS_ERR_KEY, "%s: unknown key \"%s\"", what, item->string);
	}
	return NS_OK;
}
