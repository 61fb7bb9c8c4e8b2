#define _GNU_SOURCE           /* memmem */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "nextstep/kernel_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <pcre2.h>

#include "nextstep/json_file.h"
#include "util/text.h"

/* Cost bounds of one regex over one name. The match limit counts PCRE2's backtracking steps (a linear scan of
 * a NS_KERNEL_CLASSIFY_MAX-byte name by an ordinary rule needs a few thousand); the depth and heap limits
 * bound the memory of the interpreter, the JIT stack that of compiled code. */
#define RULE_MATCH_LIMIT    100000u
#define RULE_DEPTH_LIMIT    10000u
#define RULE_HEAP_LIMIT_KIB 1024u
#define RULE_JIT_STACK_MAX  (256u << 10)
/* Largest single allocation the regex compiler may make: a compiled pattern bigger than this is refused. */
#define RULE_ALLOC_MAX (1u << 20)

typedef struct {
	char *text; /* lowercased for substring rules, as given for regexes */
	size_t len;
	bool regex;
	pcre2_code *re;
	ns_kernel_class cls;
} kernel_rule;

struct ns_kernel_rules {
	kernel_rule *rule;
	size_t n;
	bool builtin; /* when no rule matches, ask the built-in identity table rather than say memory */
	pcre2_general_context *gctx;
	pcre2_compile_context *cctx;
	pcre2_match_context *mctx;
	pcre2_jit_stack *jit_stack;
};

void ns_kernel_rules_free(ns_kernel_rules *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->n; i++) {
		pcre2_code_free(r->rule[i].re);
		free(r->rule[i].text);
	}
	pcre2_jit_stack_free(r->jit_stack);
	pcre2_match_context_free(r->mctx);
	pcre2_compile_context_free(r->cctx);
	pcre2_general_context_free(r->gctx);
	free(r->rule);
	free(r);
}

size_t ns_kernel_rules_count(const ns_kernel_rules *r)
{
	return r->n;
}

void ns_kernel_rules_then_builtin(ns_kernel_rules *r)
{
	r->builtin = true;
}

static void *bounded_malloc(size_t size, void *unused)
{
	(void)unused;
	return size <= RULE_ALLOC_MAX ? malloc(size) : NULL;
}

static void plain_free(void *p, void *unused)
{
	(void)unused;
	free(p);
}

/* One general, compile and match context for all rules: the limits live there. */
static bool contexts_init(ns_kernel_rules *r)
{
	r->gctx = pcre2_general_context_create(bounded_malloc, plain_free, NULL);
	if (r->gctx == NULL)
		return false;
	r->cctx = pcre2_compile_context_create(r->gctx);
	r->mctx = pcre2_match_context_create(r->gctx);
	if (r->cctx == NULL || r->mctx == NULL)
		return false;
	pcre2_set_max_pattern_length(r->cctx, NS_KERNEL_RULE_PATTERN_MAX);
	pcre2_set_match_limit(r->mctx, RULE_MATCH_LIMIT);
	pcre2_set_depth_limit(r->mctx, RULE_DEPTH_LIMIT);
	pcre2_set_heap_limit(r->mctx, RULE_HEAP_LIMIT_KIB);
	/* A JIT stack of our own, or the JIT's 32 KiB default on the machine stack when it cannot be had. */
	r->jit_stack = pcre2_jit_stack_create(32u << 10, RULE_JIT_STACK_MAX, r->gctx);
	if (r->jit_stack != NULL)
		pcre2_jit_stack_assign(r->mctx, NULL, r->jit_stack);
	return true;
}

/* Skips a character class starting at p ('['), the way PCRE2 reads one: a leading ']' (after an optional
 * '^') is literal, a backslash escapes the next byte, [:name:] is a POSIX class. Returns the byte after its
 * closing ']', or the terminating NUL when there is none (the compiler then reports the error). */
static const char *skip_class(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p != '\0' && *p != ']') {
		if (p[0] == '\\' && p[1] != '\0') {
			p += 2;
		} else if (p[0] == '[' && p[1] == ':') {
			const char *q = p + 2 + (p[2] == '^');
			while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z'))
				q++;
			p = q[0] == ':' && q[1] == ']' ? q + 2 : p + 1;
		} else {
			p++;
		}
	}
	return *p == ']' ? p + 1 : p;
}

/* What is wrong with the escape at p ('\\'), or NULL. Backreferences make matching non-regular; \Q...\E
 * would hide the rest of the pattern from this scan. */
static const char *bad_escape(const char *p)
{
	char c = p[1];

	if ((c >= '1' && c <= '9') || c == 'g' || c == 'k')
		return "a backreference";
	if (c == 'Q' || c == 'E')
		return "\\Q...\\E quoting";
	if (c == 'C')
		return "\\C";
	return NULL;
}

/* What is wrong with the group opening at p ('('), or NULL: only plain (...) and (?:...) groups are
 * regular; lookaround, recursion, conditionals, named groups, callouts and verbs are refused. */
static const char *bad_group(const char *p)
{
	if (p[1] == '*')
		return "a (*VERB)";
	if (p[1] != '?' || p[2] == ':')
		return NULL;
	switch (p[2]) {
	case '=':
	case '!':
		return "a lookahead";
	case '<':
		return p[3] == '=' || p[3] == '!' ? "a lookbehind" : "a named group";
	case '(':
		return "a conditional group";
	case 'C':
		return "a callout";
	default:
		return "a (?...) construct other than (?:...)";
	}
}

/* Refuses what is not a regular expression, with the byte offset where it starts. */
static const char *irregular_construct(const char *pattern, size_t *at)
{
	for (const char *p = pattern; *p != '\0';) {
		const char *why = *p == '\\' ? bad_escape(p) : *p == '(' ? bad_group(p) : NULL;
		if (why != NULL) {
			*at = (size_t)(p - pattern);
			return why;
		}
		if (*p == '[')
			p = skip_class(p);
		else
			p += *p == '\\' && p[1] != '\0' ? 2 : 1;
	}
	return NULL;
}

/* Options that make PCRE2 read a rule the way POSIX ERE did: bytes, case-insensitive, '$' only at the end;
 * groups do not capture (nothing is extracted, and a backreference cannot name one). */
#define RULE_REGEX_OPTIONS                                                                                   \
	(PCRE2_CASELESS | PCRE2_DOLLAR_ENDONLY | PCRE2_NO_AUTO_CAPTURE | PCRE2_NEVER_UTF | PCRE2_NEVER_UCP | \
	 PCRE2_NEVER_BACKSLASH_C)

static ns_status compile_regex(ns_kernel_rules *r, kernel_rule *k, ns_error *err)
{
	size_t no = r->n + 1, at = 0;
	const char *why = irregular_construct(k->text, &at);
	PCRE2_SIZE offset = 0;
	uint32_t backrefs = 0;
	int code = 0;

	if (why != NULL)
		return ns_error_set(err, NS_ERR_VALUE,
		                    "rule %zu: regex \"%s\" at offset %zu: %s is not allowed", no, k->text,
		                    at, why);
	k->re = pcre2_compile((PCRE2_SPTR)k->text, k->len, RULE_REGEX_OPTIONS, &code, &offset, r->cctx);
	if (k->re == NULL) {
		PCRE2_UCHAR why_buf[160];
		if (code == PCRE2_ERROR_NOMEMORY || code == PCRE2_ERROR_HEAP_FAILED)
			return ns_error_set(err, NS_ERR_LIMIT, "rule %zu: regex \"%s\" compiles too large",
			                    no, k->text);
		pcre2_get_error_message(code, why_buf, sizeof(why_buf));
		return ns_error_set(err, NS_ERR_VALUE, "rule %zu: bad regex \"%s\" at offset %zu: %s", no,
		                    k->text, (size_t)offset, (const char *)why_buf);
	}
	/* The scan above should have caught any; the compiler's own count is the last word. */
	if (pcre2_pattern_info(k->re, PCRE2_INFO_BACKREFMAX, &backrefs) != 0 || backrefs != 0)
		return ns_error_set(err, NS_ERR_VALUE,
		                    "rule %zu: regex \"%s\": a backreference is not allowed", no, k->text);
	(void)pcre2_jit_compile(k->re,
	                        PCRE2_JIT_COMPLETE); /* optional: the interpreter obeys the same limits */
	return NS_OK;
}

static ns_status add_rule(ns_kernel_rules *r, const char *match, bool regex, ns_kernel_class cls,
                          ns_error *err)
{
	kernel_rule *k = &r->rule[r->n];
	ns_status st;

	k->len = strlen(match);
	k->text = strdup(match);
	if (k->text == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	k->regex = regex;
	k->cls = cls;
	if (!regex) {
		for (char *c = k->text; *c != '\0'; c++)
			*c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
		r->n++;
		return NS_OK;
	}
	st = compile_regex(r, k, err);
	if (st != NS_OK) {
		pcre2_code_free(k->re);
		k->re = NULL;
		free(k->text);
		return st;
	}
	r->n++;
	return NS_OK;
}

static ns_kernel_rules *rules_alloc(size_t n)
{
	ns_kernel_rules *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->rule = calloc(n > 0 ? n : 1, sizeof(*r->rule));
	if (r->rule == NULL || !contexts_init(r)) {
		ns_kernel_rules_free(r);
		return NULL;
	}
	return r;
}

ns_status ns_kernel_rules_from_specs(const ns_kernel_rule_spec *spec, size_t n, ns_kernel_rules **out,
                                     ns_error *err)
{
	ns_kernel_rules *r = rules_alloc(n);

	if (r == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		ns_status st = add_rule(r, spec[i].match, spec[i].regex, spec[i].cls, err);
		if (st != NS_OK) {
			ns_kernel_rules_free(r);
			return st;
		}
	}
	*out = r;
	return NS_OK;
}

static ns_status rule_from_json(ns_kernel_rules *r, const cJSON *item, ns_error *err)
{
	static const char *const keys[] = {"match", "regex", "class", NULL};
	const cJSON *match = cJSON_GetObjectItemCaseSensitive(item, "match");
	const cJSON *regex = cJSON_GetObjectItemCaseSensitive(item, "regex");
	const cJSON *cls = cJSON_GetObjectItemCaseSensitive(item, "class");
	size_t no = r->n + 1;
	ns_kernel_class k;
	char what[64];
	ns_status st;

	if (!cJSON_IsObject(item))
		return ns_error_set(err, NS_ERR_VALUE, "rule %zu: not an object", no);
	snprintf(what, sizeof(what), "rule %zu", no);
	st = ns_json_check_keys(item, keys, what, err);
	if (st != NS_OK)
		return st;
	if (!cJSON_IsString(match) || match->valuestring[0] == '\0')
		return ns_error_set(err, NS_ERR_VALUE, "rule %zu: \"match\" must be a non-empty string", no);
	if (strlen(match->valuestring) > NS_KERNEL_RULE_PATTERN_MAX)
		return ns_error_set(err, NS_ERR_LIMIT, "rule %zu: \"match\" is longer than %d bytes", no,
		                    NS_KERNEL_RULE_PATTERN_MAX);
	if (regex != NULL && !cJSON_IsBool(regex))
		return ns_error_set(err, NS_ERR_VALUE, "rule %zu: \"regex\" must be true or false", no);
	if (!cJSON_IsString(cls) || !ns_kernel_class_from_name(cls->valuestring, &k))
		return ns_error_set(err, NS_ERR_VALUE,
		                    "rule %zu: \"class\" must be \"compute\", \"memory\" or \"comm\"", no);
	return add_rule(r, match->valuestring, cJSON_IsTrue(regex), k, err);
}

static ns_status rules_from_json(const cJSON *doc, ns_kernel_rules **out, ns_error *err)
{
	static const char *const keys[] = {"rules", NULL};
	const cJSON *list, *item;
	ns_kernel_rules *r;
	int n;
	ns_status st;

	if (!cJSON_IsObject(doc))
		return ns_error_set(err, NS_ERR_VALUE, "expected an object {\"rules\": [...]}");
	st = ns_json_check_keys(doc, keys, "kernel rules", err);
	if (st != NS_OK)
		return st;
	list = cJSON_GetObjectItemCaseSensitive(doc, "rules");
	if (!cJSON_IsArray(list))
		return ns_error_set(err, NS_ERR_VALUE, "\"rules\" must be an array");
	n = cJSON_GetArraySize(list);
	if (n > NS_KERNEL_RULES_MAX)
		return ns_error_set(err, NS_ERR_LIMIT, "more than %d rules", NS_KERNEL_RULES_MAX);
	r = rules_alloc((size_t)n);
	if (r == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(item, list)
	{
		st = rule_from_json(r, item, err);
		if (st != NS_OK) {
			ns_kernel_rules_free(r);
			return st;
		}
	}
	*out = r;
	return NS_OK;
}

/* The line of at, a pointer into text (cJSON's parse end) */
static long line_of(const char *text, size_t len, const char *at)
{
	return ns_line_of(text, len, at > text ? (size_t)(at - text) : 0);
}

ns_status ns_kernel_rules_parse(const char *text, size_t len, ns_kernel_rules **out, ns_error *err)
{
	const char *end = NULL;
	cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	ns_status st;

	if (doc == NULL) {
		ns_error_set(err, NS_ERR_SYNTAX, "malformed JSON");
		return ns_error_at(err, line_of(text, len, end != NULL && end >= text ? end : text), -1, -1);
	}
	while (end < text + len && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
		end++;
	if (end < text + len) {
		cJSON_Delete(doc);
		ns_error_set(err, NS_ERR_SYNTAX, "malformed JSON: text after the document");
		return ns_error_at(err, line_of(text, len, end), -1, -1);
	}
	st = rules_from_json(doc, out, err);
	cJSON_Delete(doc);
	return st;
}

ns_status ns_kernel_rules_load(const char *path, ns_kernel_rules **out, ns_error *err)
{
	cJSON *doc;
	ns_status st = ns_json_parse_file(path, &doc, err);

	if (st != NS_OK)
		return st;
	st = rules_from_json(doc, out, err);
	cJSON_Delete(doc);
	return st;
}

/* Where the trailing parameter list "(...)" of a demangled name starts, or len when there is none. Argument
 * types (cudnnConvolutionStruct, kernel_conv_params) say nothing about what the kernel does. */
static size_t parameters_start(const char *name, size_t len)
{
	size_t depth = 0;

	if (len == 0 || name[len - 1] != ')')
		return len;
	for (size_t i = len; i-- > 0;) {
		if (name[i] == ')')
			depth++;
		else if (name[i] == '(' && --depth == 0)
			return i > 0 ? i : len;
	}
	return len;
}

/* Whether rule k matches the lowercased head[0..len); *gave_up when its regex hit a cost limit (the rule
 * then counts as not matching). */
static bool rule_matches(const ns_kernel_rules *r, const kernel_rule *k, const char *head, size_t len,
                         pcre2_match_data *md, bool *gave_up)
{
	int rc;

	if (!k->regex)
		return memmem(head, len, k->text, k->len) != NULL;
	rc = pcre2_match(k->re, (PCRE2_SPTR)head, len, 0, 0, md, r->mctx);
	if (rc >= 0)
		return true;
	if (rc != PCRE2_ERROR_NOMATCH)
		*gave_up = true;
	return false;
}

/* The first of r's rules to match name[0..len), NS_KCLASS_COUNT when none does. */
static ns_kernel_class first_match(const ns_kernel_rules *r, const char *name, size_t len, bool regex,
                                   size_t *gave_up_rule)
{
	char head[NS_KERNEL_CLASSIFY_MAX];
	size_t n = parameters_start(name, len);
	pcre2_match_data *md = pcre2_match_data_create(1, r->gctx);
	ns_kernel_class c = NS_KCLASS_COUNT;

	if (n > NS_KERNEL_CLASSIFY_MAX)
		n = NS_KERNEL_CLASSIFY_MAX;
	/* Lowercased once here, so substring rules are plain byte searches. */
	for (size_t i = 0; i < n; i++)
		head[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
	for (size_t i = 0; i < r->n; i++) {
		bool gave_up = false;
		if (r->rule[i].regex && !regex)
			continue;
		if (md == NULL && r->rule[i].regex) {
			gave_up = true;
		} else if (rule_matches(r, &r->rule[i], head, n, md, &gave_up)) {
			c = r->rule[i].cls;
			break;
		}
		if (gave_up && *gave_up_rule == 0)
			*gave_up_rule = i + 1;
	}
	pcre2_match_data_free(md);
	return c;
}

static ns_kernel_class classify(const ns_kernel_rules *r, const char *name, bool regex, size_t *gave_up_rule)
{
	size_t unused = 0;
	ns_kernel_class c;

	if (gave_up_rule == NULL)
		gave_up_rule = &unused;
	*gave_up_rule = 0;
	c = r->n > 0 ? first_match(r, name, strlen(name), regex, gave_up_rule) : NS_KCLASS_COUNT;
	if (c != NS_KCLASS_COUNT)
		return c;
	return r->builtin ? ns_kernel_table_classify(name, NULL) : NS_KCLASS_MEMORY;
}

ns_kernel_class ns_kernel_rules_classify_ex(const ns_kernel_rules *r, const char *name, size_t *gave_up_rule)
{
	return classify(r, name, true, gave_up_rule);
}

ns_kernel_class ns_kernel_rules_classify_without_regex(const ns_kernel_rules *r, const char *name)
{
	return classify(r, name, false, NULL);
}

ns_kernel_class ns_kernel_rules_classify(const ns_kernel_rules *r, const char *name)
{
	return ns_kernel_rules_classify_ex(r, name, NULL);
}
