#define _POSIX_C_SOURCE 200809L
#include "nextstep/kernel_rules.h"

#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "nextstep/json_file.h"

#define NS_STR_(x) #x
#define NS_STR(x)  NS_STR_(x)

typedef struct {
	char *text; /* lowercased for substring rules, as given for regexes */
	bool regex;
	regex_t re;
	kernel_class cls;
} kernel_rule;

struct kernel_rules {
	kernel_rule *rule;
	size_t n;
	bool builtin; /* when no rule matches, ask the built-in identity table rather than say memory */
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

void kernel_rules_then_builtin(kernel_rules *r)
{
	r->builtin = true;
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

ns_status kernel_rules_from_specs(const kernel_rule_spec *spec, size_t n, kernel_rules **out, ns_error *err)
{
	kernel_rules *r = rules_alloc(n);

	if (r == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		ns_status st = add_rule(r, spec[i].match, spec[i].regex, spec[i].cls, err);
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

/* KCLASS_COUNT when no rule matches. */
static kernel_class first_match(const kernel_rules *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++) {
		const kernel_rule *k = &r->rule[i];
		bool hit = k->regex ? regexec(&k->re, name, 0, NULL, 0) == 0 : contains_icase(name, k->text);
		if (hit)
			return k->cls;
	}
	return KCLASS_COUNT;
}

static kernel_class rules_match(const kernel_rules *r, const char *name)
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

kernel_class kernel_rules_classify(const kernel_rules *r, const char *name)
{
	kernel_class c = r->n > 0 ? rules_match(r, name) : KCLASS_COUNT;

	if (c != KCLASS_COUNT)
		return c;
	return r->builtin ? kernel_table_classify(name, NULL) : KCLASS_MEMORY;
}
