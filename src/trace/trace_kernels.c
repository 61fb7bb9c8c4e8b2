#define _POSIX_C_SOURCE 200809L
#include "nextstep/trace_kernels.h"

#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "nextstep/json_file.h"

#define NS_STR_(x) #x
#define NS_STR(x)  NS_STR_(x)

static const char *const class_names[KCLASS_COUNT] = {
    [KCLASS_COMPUTE] = "compute",
    [KCLASS_MEMORY] = "memory",
    [KCLASS_COMM] = "comm",
};

const char *kernel_class_name(kernel_class c)
{
	return (unsigned)c < KCLASS_COUNT ? class_names[c] : NULL;
}

bool kernel_class_from_name(const char *name, kernel_class *out)
{
	for (int c = 0; c < KCLASS_COUNT; c++) {
		if (strcmp(name, class_names[c]) == 0) {
			*out = (kernel_class)c;
			return true;
		}
	}
	return false;
}

/* The built-in table. Order matters: the exceptions (memory-class kernels whose names contain a compute word)
 * come before the compute words. Patterns are matched case-insensitively; regexes are POSIX ERE. */
typedef struct {
	const char *match;
	bool regex;
	kernel_class cls;
} rule_spec;

static const rule_spec default_rules[] = {
    /* Collectives. ROCm's hip* kernels are not communication. */
    {"nccl|rccl|msccl", true, KCLASS_COMM},
    /* Inductor pointwise, reduction and persistent-reduction kernels, whatever ops they fused. */
    {"^triton_(poi|red|per)_", true, KCLASS_MEMORY},
    /* Matrix-vector products and GEMM helpers (split-K reductions, epilogues, offset tables) move data. */
    {"gemv", false, KCLASS_MEMORY},
    {"splitkreduce", false, KCLASS_MEMORY},
    {"reducesplitk", false, KCLASS_MEMORY},
    {"epilogue::impl::", false, KCLASS_MEMORY},
    {"compute[a-z]*offsetskernel", true, KCLASS_MEMORY},
    {"reduce_wgrad", false, KCLASS_MEMORY},
    /* GEMM and convolution, with their library spellings. */
    {"(^|[^b]|[^f]b)gemm", true, KCLASS_COMPUTE}, /* fbgemm_gpu:: names embedding kernels, not GEMMs */
    {"matmul", false, KCLASS_COMPUTE},
    {"conv([^e]|e[^r]|er[^t]|$)", true, KCLASS_COMPUTE},
    {"scudnn", false, KCLASS_COMPUTE},
    {"[hsi][0-9]{3,5}cudnn", true, KCLASS_COMPUTE},
    {"winograd", false, KCLASS_COMPUTE},
    {"xmma", false, KCLASS_COMPUTE},
    {"cutlass", false, KCLASS_COMPUTE},
    {"wgrad", false, KCLASS_COMPUTE},
    {"dgrad", false, KCLASS_COMPUTE},
    {"fprop", false, KCLASS_COMPUTE},
    {"hmma|wmma|imma|gmma", true, KCLASS_COMPUTE},
    {"(^|[^a-z])cijk_", true, KCLASS_COMPUTE},
    {"^nvjet_", true, KCLASS_COMPUTE},
    {"(^|[ :])fft[0-9]d_[rc]2[rc]", true, KCLASS_COMPUTE},
    /* Attention. */
    {"flash", false, KCLASS_COMPUTE},
    {"fmha", false, KCLASS_COMPUTE},
    {"attention", false, KCLASS_COMPUTE},
    {"sdpa", false, KCLASS_COMPUTE},
    /* Inductor/Triton templates are matmul (or convolution) templates. */
    {"^triton_tem_", true, KCLASS_COMPUTE},
};

typedef struct {
	char *text; /* lowercased for substring rules, as given for regexes */
	bool regex;
	regex_t re;
	kernel_class cls;
} kernel_rule;

struct kernel_rules {
	kernel_rule *rule;
	size_t n;
};

void kernel_rules_free(kernel_rules *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->n; i++) {
		if (r->rule[i].regex)
			regfree(&r->rule[i].re);
		free(r->rule[i].text);
	}
	free(r->rule);
	free(r);
}

size_t kernel_rules_count(const kernel_rules *r)
{
	return r->n;
}

/* Skips a bracket expression starting at p ('['); returns the byte after its ']'. */
static const char *skip_bracket(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p != '\0' && *p != ']') {
		if (p[0] == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *close = strchr(p + 2, p[1]);
			p = close != NULL && close[1] == ']' ? close + 2 : p + 1;
		} else {
			p++;
		}
	}
	return *p == ']' ? p + 1 : p;
}

/* glibc compiles some regexes into automata of gigabytes ("a++++...", "(a{255}){255}"). A rules file is
 * input too, so a regex may hold at most KERNEL_RULE_REPEATS_MAX repetitions, none right after another
 * (POSIX leaves adjacent ones undefined anyway), and intervals up to KERNEL_RULE_INTERVAL_MAX. */
static const char *regex_too_costly(const char *p)
{
	int repeats = 0;
	bool after_repeat = false;

	while (*p != '\0') {
		bool repeat = *p == '*' || *p == '+' || *p == '?' || *p == '{';
		if (repeat && after_repeat)
			return "adjacent repetition operators";
		if (repeat && ++repeats > KERNEL_RULE_REPEATS_MAX)
			return "too many repetition operators";
		if (*p == '{') {
			char *end;
			for (p++; *p != '\0' && *p != '}'; p = end) {
				long bound = strtol(p, &end, 10);
				if (bound > KERNEL_RULE_INTERVAL_MAX)
					return "an interval bound above " NS_STR(KERNEL_RULE_INTERVAL_MAX);
				if (end == p)
					end++;
			}
		} else if (*p == '[') {
			p = skip_bracket(p) - 1;
		} else if (*p == '\\' && p[1] != '\0') {
			p++;
		}
		after_repeat = repeat;
		if (*p != '\0')
			p++;
	}
	return NULL;
}

static ns_status add_rule(kernel_rules *r, const char *match, bool regex, kernel_class cls, ns_error *err)
{
	kernel_rule *k = &r->rule[r->n];
	const char *costly;
	int rc;

	k->text = strdup(match);
	if (k->text == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	k->regex = regex;
	k->cls = cls;
	if (!regex) {
		for (char *c = k->text; *c != '\0'; c++)
			*c = (char)tolower((unsigned char)*c);
		r->n++;
		return NS_OK;
	}
	if ((costly = regex_too_costly(match)) != NULL) {
		free(k->text);
		return ns_error_set(err, NS_ERR_LIMIT, "rule %zu: regex \"%s\" has %s", r->n + 1, match,
		                    costly);
	}
	rc = regcomp(&k->re, match, REG_EXTENDED | REG_ICASE | REG_NOSUB);
	if (rc != 0) {
		char why[256];
		regerror(rc, &k->re, why, sizeof(why));
		free(k->text);
		return ns_error_set(err, NS_ERR_VALUE, "rule %zu: bad regex \"%s\": %s", r->n + 1, match,
		                    why);
	}
	r->n++;
	return NS_OK;
}

static kernel_rules *rules_alloc(size_t n)
{
	kernel_rules *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->rule = calloc(n > 0 ? n : 1, sizeof(*r->rule));
	if (r->rule == NULL) {
		free(r);
		return NULL;
	}
	return r;
}

ns_status kernel_rules_default(kernel_rules **out, ns_error *err)
{
	size_t n = sizeof(default_rules) / sizeof(default_rules[0]);
	kernel_rules *r = rules_alloc(n);

	if (r == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		ns_status st =
		    add_rule(r, default_rules[i].match, default_rules[i].regex, default_rules[i].cls, err);
		if (st != NS_OK) {
			kernel_rules_free(r);
			return st;
		}
	}
	*out = r;
	return NS_OK;
}

static ns_status rule_from_json(kernel_rules *r, const cJSON *item, ns_error *err)
{
	static const char *const keys[] = {"match", "regex", "class", NULL};
	const cJSON *match = cJSON_GetObjectItemCaseSensitive(item, "match");
	const cJSON *regex = cJSON_GetObjectItemCaseSensitive(item, "regex");
	const cJSON *cls = cJSON_GetObjectItemCaseSensitive(item, "class");
	size_t no = r->n + 1;
	kernel_class k;
	char what[64];
	ns_status st;

	if (!cJSON_IsObject(item))
		return ns_error_set(err, NS_ERR_VALUE, "rule %zu: not an object", no);
	snprintf(what, sizeof(what), "rule %zu", no);
	st = json_check_keys(item, keys, what, err);
	if (st != NS_OK)
		return st;
	if (!cJSON_IsString(match) || match->valuestring[0] == '\0')
		return ns_error_set(err, NS_ERR_VALUE, "rule %zu: \"match\" must be a non-empty string", no);
	if (strlen(match->valuestring) > KERNEL_RULE_PATTERN_MAX)
		return ns_error_set(err, NS_ERR_LIMIT, "rule %zu: \"match\" is longer than %d bytes", no,
		                    KERNEL_RULE_PATTERN_MAX);
	if (regex != NULL && !cJSON_IsBool(regex))
		return ns_error_set(err, NS_ERR_VALUE, "rule %zu: \"regex\" must be true or false", no);
	if (!cJSON_IsString(cls) || !kernel_class_from_name(cls->valuestring, &k))
		return ns_error_set(err, NS_ERR_VALUE,
		                    "rule %zu: \"class\" must be \"compute\", \"memory\" or \"comm\"", no);
	return add_rule(r, match->valuestring, cJSON_IsTrue(regex), k, err);
}

static ns_status rules_from_json(const cJSON *doc, kernel_rules **out, ns_error *err)
{
	static const char *const keys[] = {"rules", NULL};
	const cJSON *list, *item;
	kernel_rules *r;
	int n;
	ns_status st;

	if (!cJSON_IsObject(doc))
		return ns_error_set(err, NS_ERR_VALUE, "expected an object {\"rules\": [...]}");
	st = json_check_keys(doc, keys, "kernel rules", err);
	if (st != NS_OK)
		return st;
	list = cJSON_GetObjectItemCaseSensitive(doc, "rules");
	if (!cJSON_IsArray(list))
		return ns_error_set(err, NS_ERR_VALUE, "\"rules\" must be an array");
	n = cJSON_GetArraySize(list);
	if (n > KERNEL_RULES_MAX)
		return ns_error_set(err, NS_ERR_LIMIT, "more than %d rules", KERNEL_RULES_MAX);
	r = rules_alloc((size_t)n);
	if (r == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(item, list)
	{
		st = rule_from_json(r, item, err);
		if (st != NS_OK) {
			kernel_rules_free(r);
			return st;
		}
	}
	*out = r;
	return NS_OK;
}

static long line_of(const char *text, size_t len, const char *at)
{
	long line = 1;

	for (const char *c = text; c < at && c < text + len; c++)
		line += *c == '\n';
	return line;
}

ns_status kernel_rules_parse(const char *text, size_t len, kernel_rules **out, ns_error *err)
{
	const char *end = NULL;
	cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	ns_status st;

	if (doc == NULL) {
		err->line = line_of(text, len, end != NULL && end >= text ? end : text);
		return ns_error_set(err, NS_ERR_SYNTAX, "malformed JSON");
	}
	while (end < text + len && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
		end++;
	if (end < text + len) {
		cJSON_Delete(doc);
		err->line = line_of(text, len, end);
		return ns_error_set(err, NS_ERR_SYNTAX, "malformed JSON: text after the document");
	}
	st = rules_from_json(doc, out, err);
	cJSON_Delete(doc);
	return st;
}

ns_status kernel_rules_load(const char *path, kernel_rules **out, ns_error *err)
{
	cJSON *doc;
	ns_status st = json_parse_file(path, &doc, err);

	if (st != NS_OK)
		return st;
	st = rules_from_json(doc, out, err);
	cJSON_Delete(doc);
	return st;
}

/* needle is already lowercase. */
static bool contains_icase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay != '\0'; hay++) {
		size_t i = 0;
		while (i < n && hay[i] != '\0' && tolower((unsigned char)hay[i]) == needle[i])
			i++;
		if (i == n)
			return true;
		if (hay[i] == '\0')
			return false;
	}
	return n == 0;
}

/* Where the trailing parameter list "(...)" of a demangled name starts, or len when there is none. Argument
 * types (cudnnConvolutionStruct, kernel_conv_params) say nothing about what the kernel does. */
static size_t parameters_start(const char *name, size_t len)
{
	int depth = 0;

	if (len == 0 || name[len - 1] != ')')
		return len;
	for (size_t i = len; i-- > 0;) {
		depth += name[i] == ')';
		depth -= name[i] == '(';
		if (depth == 0)
			return i > 0 ? i : len;
	}
	return len;
}

static kernel_class first_match(const kernel_rules *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++) {
		const kernel_rule *k = &r->rule[i];
		bool hit = k->regex ? regexec(&k->re, name, 0, NULL, 0) == 0 : contains_icase(name, k->text);
		if (hit)
			return k->cls;
	}
	return KCLASS_MEMORY;
}

kernel_class kernel_rules_classify(const kernel_rules *r, const char *name)
{
	size_t len = strlen(name), cut = parameters_start(name, len);
	char *head;
	kernel_class c;

	if (cut == len || (head = strndup(name, cut)) == NULL)
		return first_match(r, name);
	c = first_match(r, head);
	free(head);
	return c;
}

/* ---- interned names ---- */

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
	uint32_t *slot; /* open addressing: entry index + 1, 0 = empty */
	size_t nslots;  /* power of two */
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

	if (e->cls == CLASS_UNKNOWN)
		e->cls = (unsigned char)kernel_rules_classify(rules, e->text);
	return (kernel_class)e->cls;
}
