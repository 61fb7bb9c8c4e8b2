#include "nextstep/kernel_names.h"

#include <stdlib.h>
#include <string.h>

#include "util/hindex.h"
#include "util/text.h"
#include "util/vec.h"

#define CLASS_UNKNOWN 0xff

typedef struct {
	char *name; /* as written in the trace: the key */
	char *text; /* with JSON escapes resolved: what is shown and classified (== name when it has none) */
	size_t len;
	unsigned char cls; /* ns_kernel_class, or CLASS_UNKNOWN until first asked */
} name_entry;

struct ns_kernel_names {
	name_entry *entry; /* by id */
	size_t n, cap;
	ns_hindex index;     /* hash of the name as written -> id */
	size_t gave_up;      /* names on which a regex rule reached its cost limit */
	size_t gave_up_rule; /* the first such rule, 1-based */
	size_t no_regex;     /* names classified without the regex rules, after too many gave up */
	size_t bytes;        /* held by names and their display texts */
};

ns_kernel_names *ns_kernel_names_new(void)
{
	ns_kernel_names *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	if (!ns_hindex_init(&t->index, 128)) {
		free(t);
		return NULL;
	}
	return t;
}

void ns_kernel_names_free(ns_kernel_names *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->n; i++) {
		if (t->entry[i].text != t->entry[i].name)
			free(t->entry[i].text);
		free(t->entry[i].name);
	}
	free(t->entry);
	ns_hindex_free(&t->index);
	free(t);
}

size_t ns_kernel_names_count(const ns_kernel_names *t)
{
	return t->n;
}

const char *ns_kernel_names_get(const ns_kernel_names *t, uint32_t id)
{
	return id < t->n ? t->entry[id].text : NULL;
}

static bool is_utf8(const char *p, size_t len)
{
	for (size_t i = 0, n; i < len; i += n) {
		uint64_t w;
		if (i + 8 <= len && (memcpy(&w, p + i, 8), (w & 0x8080808080808080ull) == 0)) {
			n = 8; /* eight ASCII bytes, nearly every name: names run to kilobytes */
			continue;
		}
		if ((unsigned char)p[i] < 0x80) {
			n = 1;
			continue;
		}
		if ((n = ns_utf8_char(p + i, len - i, NULL)) == 0)
			return false;
	}
	return true;
}

/* What is shown and classified: JSON escapes resolved (a surrogate pair is one character), and bytes that are
 * not UTF-8 replaced by U+FFFD, so every output gets well-formed text. name itself when it needs neither. */
static char *display_text(char *name, size_t len)
{
	char *plain = name, *clean;
	size_t n = len;

	if (memchr(name, '\\', len) != NULL) {
		if ((plain = malloc(len + 1)) == NULL)
			return NULL;
		n = ns_json_unescape(name, len, plain);
	}
	if (is_utf8(plain, n))
		return plain;
	clean = malloc(n * NS_UTF8_REPLACEMENT_LEN + 1);
	if (clean != NULL)
		ns_utf8_clean(plain, n, clean, n * NS_UTF8_REPLACEMENT_LEN + 1);
	if (plain != name)
		free(plain);
	return clean;
}

static ns_status add_name(ns_kernel_names *t, const char *name, size_t len, uint64_t h, uint32_t *id,
                          ns_error *err)
{
	name_entry *e, *grown;

	if (t->n >= NS_KERNEL_NAMES_MAX)
		return ns_error_set(err, NS_ERR_LIMIT, "more than %u distinct kernel names",
		                    NS_KERNEL_NAMES_MAX);
	if ((grown = ns_grow(t->entry, &t->cap, t->n + 1, sizeof(*grown))) == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	t->entry = grown;
	e = &t->entry[t->n];
	e->name = malloc(len + 1);
	if (e->name == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	memcpy(e->name, name, len);
	e->name[len] = '\0';
	if ((e->text = display_text(e->name, len)) == NULL || !ns_hindex_add(&t->index, h, (uint32_t)t->n)) {
		if (e->text != NULL && e->text != e->name)
			free(e->text);
		free(e->name);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	t->bytes += len + 1 + (e->text != e->name ? strlen(e->text) + 1 : 0);
	e->len = len;
	e->cls = CLASS_UNKNOWN;
	*id = (uint32_t)t->n++;
	return NS_OK;
}

ns_status ns_kernel_names_intern(ns_kernel_names *t, const char *name, size_t len, uint32_t *id,
                                 ns_error *err)
{
	uint64_t h;
	size_t slot;
	uint32_t cand;

	if (name == NULL) /* an event without a name */
		name = "";
	if (len > NS_KERNEL_NAME_MAX)
		return ns_error_set(err, NS_ERR_LIMIT, "kernel name of %zu bytes, longer than %u", len,
		                    NS_KERNEL_NAME_MAX);
	h = ns_hash_bytes(name, len);
	slot = ns_hindex_home(&t->index, h);
	while (ns_hindex_probe(&t->index, h, &slot, &cand)) {
		const name_entry *e = &t->entry[cand];
		if (e->len == len && memcmp(e->name, name, len) == 0) {
			*id = cand;
			return NS_OK;
		}
	}
	if (t->bytes + len > NS_KERNEL_NAMES_BYTES_MAX)
		return ns_error_set(err, NS_ERR_LIMIT, "distinct kernel names take more than %u MiB",
		                    NS_KERNEL_NAMES_BYTES_MAX >> 20);
	return add_name(t, name, len, h, id, err);
}

ns_kernel_class ns_kernel_names_classify(ns_kernel_names *t, uint32_t id, const ns_kernel_rules *rules)
{
	name_entry *e = &t->entry[id];

	if (e->cls == CLASS_UNKNOWN && t->gave_up >= NS_KERNEL_NAMES_GIVE_UP_MAX) {
		e->cls = (unsigned char)ns_kernel_rules_classify_without_regex(rules, e->text);
		t->no_regex++;
	} else if (e->cls == CLASS_UNKNOWN) {
		size_t rule = 0;
		e->cls = (unsigned char)ns_kernel_rules_classify_ex(rules, e->text, &rule);
		if (rule != 0 && t->gave_up++ == 0)
			t->gave_up_rule = rule;
	}
	return (ns_kernel_class)e->cls;
}

size_t ns_kernel_names_without_regex(const ns_kernel_names *t)
{
	return t->no_regex;
}

size_t ns_kernel_names_gave_up(const ns_kernel_names *t, size_t *first_rule)
{
	if (first_rule != NULL)
		*first_rule = t->gave_up_rule;
	return t->gave_up;
}
