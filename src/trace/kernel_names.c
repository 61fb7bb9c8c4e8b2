#include "nextstep/kernel_names.h"

#include <stdlib.h>
#include <string.h>

#define CLASS_UNKNOWN 0xff

typedef struct {
	char *name; /* as written in the trace: the key */
	char *text; /* with JSON escapes resolved: what is shown and classified (== name when it has none) */
	size_t len;
	uint64_t hash;
	unsigned char cls; /* kernel_class, or CLASS_UNKNOWN until first asked */
} name_entry;

struct kernel_names {
	name_entry *entry;
	size_t n, cap;
	uint32_t *slot;      /* open addressing: entry index + 1, 0 = empty */
	size_t gave_up;      /* names on which a regex rule reached its cost limit */
	size_t gave_up_rule; /* the first such rule, 1-based */
	size_t nslots;       /* power of two */
};

/* Eight bytes a step: names run to hundreds of bytes and one is hashed per GPU event. */
static uint64_t hash_bytes(const char *p, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)len, w = 0;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	if (len > i)
		memcpy(&w, p + i, len - i);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

kernel_names *kernel_names_new(void)
{
	kernel_names *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->nslots = 256;
	t->slot = calloc(t->nslots, sizeof(*t->slot));
	if (t->slot == NULL) {
		free(t);
		return NULL;
	}
	return t;
}

void kernel_names_free(kernel_names *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->n; i++) {
		if (t->entry[i].text != t->entry[i].name)
			free(t->entry[i].text);
		free(t->entry[i].name);
	}
	free(t->entry);
	free(t->slot);
	free(t);
}

size_t kernel_names_count(const kernel_names *t)
{
	return t->n;
}

const char *kernel_names_get(const kernel_names *t, uint32_t id)
{
	return id < t->n ? t->entry[id].text : NULL;
}

static bool rehash(kernel_names *t)
{
	size_t nslots = t->nslots * 2;
	uint32_t *slot = calloc(nslots, sizeof(*slot));

	if (slot == NULL)
		return false;
	for (size_t i = 0; i < t->n; i++) {
		size_t s = t->entry[i].hash & (nslots - 1);
		while (slot[s] != 0)
			s = (s + 1) & (nslots - 1);
		slot[s] = (uint32_t)(i + 1);
	}
	free(t->slot);
	t->slot = slot;
	t->nslots = nslots;
	return true;
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
	                              : -1;
}

/* A \uXXXX escape at in (after the 'u') as UTF-8 into out; returns the bytes written (at most 3, fewer than
 * the 6 of the escape). Surrogates and NUL, which a C string cannot carry faithfully, become '?'. */
static size_t put_code_point(const char *in, char *out)
{
	unsigned cp = 0;

	for (int k = 0; k < 4; k++)
		cp = cp << 4 | (unsigned)hex_digit(in[k]);
	if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff)) {
		out[0] = '?';
		return 1;
	}
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	out[0] = (char)(0xe0 | cp >> 12);
	out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[2] = (char)(0x80 | (cp & 0x3f));
	return 3;
}

static bool is_hex4(const char *p, size_t avail)
{
	if (avail < 4)
		return false;
	for (int k = 0; k < 4; k++)
		if (hex_digit(p[k]) < 0)
			return false;
	return true;
}

/* The trace reader hands strings over with their JSON escapes as written; out has room for len + 1 bytes. */
static void json_unescape(const char *in, size_t len, char *out)
{
	static const char plain[] = "bfnrt", meant[] = "\b\f\n\r\t";
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		const char *p;
		if (in[i] != '\\' || i + 1 >= len) {
			out[o++] = in[i];
			continue;
		}
		i++;
		if (in[i] == 'u' && is_hex4(in + i + 1, len - i - 1)) {
			o += put_code_point(in + i + 1, out + o);
			i += 4;
		} else if ((p = strchr(plain, in[i])) != NULL && in[i] != '\0') {
			out[o++] = meant[p - plain];
		} else {
			out[o++] = in[i]; /* \" \\ \/ and anything unknown: the character itself */
		}
	}
	out[o] = '\0';
}

static ns_status add_name(kernel_names *t, const char *name, size_t len, uint64_t h, size_t s, uint32_t *id,
                          ns_error *err)
{
	name_entry *e;

	if (t->n >= KERNEL_NAMES_MAX)
		return ns_error_set(err, NS_ERR_LIMIT, "more than %u distinct kernel names",
		                    KERNEL_NAMES_MAX);
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		name_entry *grown = realloc(t->entry, cap * sizeof(*grown));
		if (grown == NULL)
			return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
		t->entry = grown;
		t->cap = cap;
	}
	e = &t->entry[t->n];
	e->name = malloc(len + 1);
	if (e->name == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	memcpy(e->name, name, len);
	e->name[len] = '\0';
	e->text = e->name;
	if (memchr(name, '\\', len) != NULL) {
		if ((e->text = malloc(len + 1)) == NULL) {
			free(e->name);
			return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
		}
		json_unescape(name, len, e->text);
	}
	e->len = len;
	e->hash = h;
	e->cls = CLASS_UNKNOWN;
	t->slot[s] = (uint32_t)(t->n + 1);
	*id = (uint32_t)t->n++;
	if (t->n * 2 > t->nslots && !rehash(t))
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	return NS_OK;
}

ns_status kernel_names_intern(kernel_names *t, const char *name, size_t len, uint32_t *id, ns_error *err)
{
	uint64_t h;
	size_t s;

	if (name == NULL) /* an event without a name */
		name = "";
	h = hash_bytes(name, len);
	s = h & (t->nslots - 1);

	for (; t->slot[s] != 0; s = (s + 1) & (t->nslots - 1)) {
		const name_entry *e = &t->entry[t->slot[s] - 1];
		if (e->hash == h && e->len == len && memcmp(e->name, name, len) == 0) {
			*id = t->slot[s] - 1;
			return NS_OK;
		}
	}
	return add_name(t, name, len, h, s, id, err);
}

kernel_class kernel_names_classify(kernel_names *t, uint32_t id, const kernel_rules *rules)
{
	name_entry *e = &t->entry[id];

	if (e->cls == CLASS_UNKNOWN) {
		size_t rule = 0;
		e->cls = (unsigned char)kernel_rules_classify_ex(rules, e->text, &rule);
		if (rule != 0 && t->gave_up++ == 0)
			t->gave_up_rule = rule;
	}
	return (kernel_class)e->cls;
}

size_t kernel_names_gave_up(const kernel_names *t, size_t *first_rule)
{
	if (first_rule != NULL)
		*first_rule = t->gave_up_rule;
	return t->gave_up;
}
