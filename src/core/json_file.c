#define _POSIX_C_SOURCE 200809L
#include "nextstep/json_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hindex.h"
#include "util/text.h"
#include "util/vec.h"

static ns_status read_small_file(const char *path, char **out, size_t *len, ns_error *err)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;
	ns_status st = NS_OK;

	if (fp == NULL && errno == ENOMEM) /* the stream's buffer: a caller may go on without the file, not so */
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	if (fp == NULL)
		return ns_error_set(err, NS_ERR_IO, "cannot open: %s", strerror(errno));
	for (;;) {
		if (n + 1 >= cap) { /* full: one byte is kept for the NUL */
			char *grown;
			if (n > NS_JSON_FILE_MAX) {
				st = ns_error_set(err, NS_ERR_LIMIT, "file is larger than %u bytes",
				                  NS_JSON_FILE_MAX);
				break;
			}
			/* up to one byte past the limit, to tell a file of NS_JSON_FILE_MAX bytes from a
			 * larger one */
			grown = ns_grow_capped(buf, &cap, cap == 0 ? 8192 : cap + 1, 1, NS_JSON_FILE_MAX + 2);
			if (grown == NULL) {
				st = ns_error_set(err, NS_ERR_NOMEM, "out of memory");
				break;
			}
			buf = grown;
		}
		size_t got = fread(buf + n, 1, cap - 1 - n, fp);
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

/* ---- duplicate keys ---- */

/* Objects with more members than this are checked through a hash index instead of pairwise. */
#define PAIRWISE_MAX 16

static bool same_key(const cJSON *a, const cJSON *b)
{
	return strcmp(a->string, b->string) == 0;
}

static const cJSON *duplicate_pairwise(const cJSON *obj)
{
	for (const cJSON *a = obj->child; a != NULL; a = a->next)
		for (const cJSON *b = obj->child; b != a; b = b->next)
			if (same_key(a, b))
				return a;
	return NULL;
}

/* The members are numbered in order; the index maps a key's hash to the number of its first member. */
static ns_status duplicate_hashed(const cJSON *obj, size_t n, const cJSON **dup, ns_error *err)
{
	const cJSON **member = malloc(n * sizeof(*member));
	ns_hindex t;
	uint32_t i = 0;

	*dup = NULL;
	if (member == NULL || !ns_hindex_init(&t, n)) {
		free(member);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	for (const cJSON *m = obj->child; m != NULL && *dup == NULL; m = m->next, i++) {
		uint64_t h = ns_hash_bytes(m->string, strlen(m->string));
		size_t slot = ns_hindex_home(&t, h);
		uint32_t id;
		while (*dup == NULL && ns_hindex_probe(&t, h, &slot, &id))
			if (same_key(member[id], m))
				*dup = m;
		member[i] = m;
		if (*dup == NULL && !ns_hindex_add(&t, h, i))
			break;
	}
	ns_hindex_free(&t);
	free(member);
	return *dup == NULL && i < n ? ns_error_set(err, NS_ERR_NOMEM, "out of memory") : NS_OK;
}

/* Appends ".key" or "[i]" to the path in buf (cut when it does not fit). */
static void path_push(char *buf, size_t size, size_t used, const cJSON *parent, const cJSON *item, long i)
{
	if (used >= size)
		return;
	if (cJSON_IsObject(parent))
		snprintf(buf + used, size - used, "%s%s", used > 0 ? "." : "", item->string);
	else
		snprintf(buf + used, size - used, "[%ld]", i);
}

/* Where check_unique() is: the member it went into from each object or array on the way down. The path is
 * written only for an error: formatting it for every member cost more than the rest of the check. */
typedef struct json_step {
	const struct json_step *up;
	const cJSON *parent, *member;
	long index;
} json_step;

static void path_of(const json_step *at, char *buf, size_t size)
{
	if (at == NULL) {
		buf[0] = '\0';
		return;
	}
	path_of(at->up, buf, size);
	path_push(buf, size, strlen(buf), at->parent, at->member, at->index);
}

static ns_status check_unique(const cJSON *node, const json_step *at, ns_error *err)
{
	size_t n = 0;
	const cJSON *dup = NULL;
	long i = 0;
	ns_status st = NS_OK;

	if (!cJSON_IsObject(node) && !cJSON_IsArray(node))
		return NS_OK;
	for (const cJSON *m = node->child; m != NULL; m = m->next)
		n++;
	if (cJSON_IsObject(node)) {
		if (n <= PAIRWISE_MAX)
			dup = duplicate_pairwise(node);
		else if ((st = duplicate_hashed(node, n, &dup, err)) != NS_OK)
			return st;
		if (dup != NULL) {
			char path[256];
			path_of(at, path, sizeof(path));
			return ns_error_set(err, NS_ERR_KEY, "duplicate key \"%s\" in %s", dup->string,
			                    path[0] != '\0' ? path : "the top-level object");
		}
	}
	for (const cJSON *m = node->child; m != NULL && st == NS_OK; m = m->next, i++) {
		const json_step step = {at, node, m, i};
		st = check_unique(m, &step, err);
	}
	return st;
}

ns_status ns_json_check_unique_keys(const cJSON *root, ns_error *err)
{
	return check_unique(root, NULL, err);
}

ns_status ns_json_parse_file(const char *path, cJSON **out, ns_error *err)
{
	char *text = NULL;
	size_t len = 0;
	const char *end = NULL;
	ns_status st = read_small_file(path, &text, &len, err);

	if (st != NS_OK)
		return st;
	errno = 0;
	*out = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1); /* the NUL is part of the buffer */
	if (*out == NULL && errno == ENOMEM) { /* cJSON says NULL for both; malloc sets errno */
		st = ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	} else if (*out == NULL) {
		size_t pos = end != NULL && end >= text ? (size_t)(end - text) : 0;
		ns_error_set(err, NS_ERR_SYNTAX, "malformed JSON");
		st = ns_error_at(err, ns_line_of(text, len, pos), -1, -1);
	} else if ((st = ns_json_check_unique_keys(*out, err)) != NS_OK) {
		cJSON_Delete(*out);
		*out = NULL;
	}
	free(text);
	return st;
}

ns_status ns_json_check_keys(const cJSON *obj, const char *const *allowed, const char *what, ns_error *err)
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
