#include "nextstep/kernel_identity.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

/* Generic launchers: the kernel they run is a template argument. CUTLASS 2.x launches every operation through
 * cutlass::Kernel<Op> / Kernel2<Op> (cudnn's copies live in cutlass_cudnn_*::), CUTLASS 3.x and
 * FlashAttention-3 through cutlass::device_kernel<Op>, FlashAttention-3 wraps Op in
 * flash::enable_sm90_or_later<Op> (and enable_sm80_to_sm89, enable_sm90), composable_kernel's ck_tile
 * launches ck_tile::kentry<..., Op, ...>. */
static const char *const launchers[] = {"Kernel", "Kernel2", "device_kernel", "kentry", NULL};

static bool is_launcher(const char *s, size_t n)
{
	for (int i = 0; launchers[i] != NULL; i++)
		if (strlen(launchers[i]) == n && memcmp(s, launchers[i], n) == 0)
			return true;
	return n > 9 && memcmp(s, "enable_sm", 9) == 0;
}

/* +1 for a byte that opens a group, -1 for one that closes it: one load per byte in the scans below, which
 * read up to NS_KERNEL_IDENTITY_MAX bytes of every distinct name. */
static const signed char nesting[256] = {
    ['<'] = 1, ['('] = 1, ['['] = 1, ['{'] = 1, ['>'] = -1, [')'] = -1, [']'] = -1, ['}'] = -1};

static bool opens(char c)
{
	return nesting[(unsigned char)c] > 0;
}

static bool closes(char c)
{
	return nesting[(unsigned char)c] < 0;
}

/* Where the trailing parameter list "(...)" starts, or len when the name has none. Argument types
 * (cudnnConvolutionStruct, kernel_conv_params) say nothing about what the kernel does. */
static size_t parameters_start(const char *s, size_t len)
{
	int depth = 0;

	if (len == 0 || s[len - 1] != ')')
		return len;
	for (size_t i = len; i-- > 0;) {
		depth += s[i] == ')';
		depth -= s[i] == '(';
		if (depth == 0)
			return i > 0 ? i : len;
	}
	return len;
}

/* s is NUL-terminated. */
static size_t skip_return_type(const char *s)
{
	size_t i = 0;

	while (isspace((unsigned char)s[i]))
		i++;
	if (strncmp(s + i, "void ", 5) == 0)
		i += 5;
	return i;
}

static size_t trim_end(const char *s, size_t start, size_t end)
{
	while (end > start && isspace((unsigned char)s[end - 1]))
		end--;
	return end;
}

size_t ns_kernel_display_span(const char *name, size_t *start)
{
	size_t len = strlen(name), b = skip_return_type(name), e = parameters_start(name, len);

	if (e < b)
		e = len;
	e = trim_end(name, b, e);
	*start = b;
	return e - b;
}

/* The last component of s[0..len) at nesting depth 0: where it starts (after the last "::") and where its
 * template argument list starts (len when it has none). "(anonymous namespace)" is a depth-1 group, not a
 * template list, so it never ends a name. */
static void last_component(const char *s, size_t len, size_t *comp, size_t *targs)
{
	int depth = 0;

	*comp = 0;
	*targs = len;
	for (size_t i = 0; i < len; i++) {
		if (opens(s[i])) {
			if (s[i] == '<' && depth == 0 && *targs == len)
				*targs = i;
			depth++;
		} else if (closes(s[i])) {
			depth -= depth > 0;
		} else if (depth == 0 && s[i] == ':' && i + 1 < len && s[i + 1] == ':') {
			*comp = i + 2;
			*targs = len;
			i++;
		}
	}
}

static void set_identity(ns_kernel_identity *out, const char *q, size_t qlen, size_t base)
{
	if (qlen >= NS_KERNEL_IDENTITY_MAX)
		qlen = NS_KERNEL_IDENTITY_MAX - 1;
	memcpy(out->qualified, q, qlen);
	out->qualified[qlen] = '\0';
	out->base = base <= qlen ? base : qlen;
}

/* A template argument that names a type (the launched operation), not a number, a bool or a cast value. */
static bool names_a_type(const char *s, size_t n)
{
	if (n == 0 || (n == 4 && memcmp(s, "true", 4) == 0) || (n == 5 && memcmp(s, "false", 5) == 0))
		return false;
	if (s[0] == '(')
		return n > 21 && memcmp(s, "(anonymous namespace)", 21) == 0;
	return isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == ':';
}

/* The first type among the template arguments s[0..len) (after the '<'), as [*b, *e). */
static bool first_type_argument(const char *s, size_t len, size_t *b, size_t *e)
{
	int depth = 0;
	size_t arg = 0;

	for (size_t i = 0; i <= len; i++) {
		bool end_of_arg = i == len || (depth == 0 && (s[i] == ',' || s[i] == '>'));
		if (end_of_arg) {
			size_t x = arg, y = trim_end(s, arg, i);
			while (x < y && isspace((unsigned char)s[x]))
				x++;
			if (names_a_type(s + x, y - x)) {
				*b = x;
				*e = y;
				return true;
			}
			if (i == len || s[i] == '>')
				return false;
			arg = i + 1;
		} else if (opens(s[i])) {
			depth++;
		} else if (closes(s[i])) {
			depth -= depth > 0;
		}
	}
	return false;
}

static void demangled_identity(const char *s, size_t len, ns_kernel_identity *out, int hops)
{
	size_t comp, targs, b, e;

	last_component(s, len, &comp, &targs);
	if (hops < NS_KERNEL_LAUNCHER_HOPS && targs < len && is_launcher(s + comp, targs - comp) &&
	    first_type_argument(s + targs + 1, len - targs - 1, &b, &e)) {
		demangled_identity(s + targs + 1 + b, e - b, out, hops + 1);
		return;
	}
	set_identity(out, s, trim_end(s, 0, targs), comp);
}

/* ---- Itanium-mangled names (some exporters keep them): just enough to read a nested name ---- */

typedef struct {
	const char *p, *end;
	char buf[NS_KERNEL_IDENTITY_MAX];
	size_t len, base;
	char first[128]; /* the outermost component, which "S_" stands for */
} mangled;

static void append_component(mangled *m, const char *s, size_t n)
{
	if (m->len > 0 && m->len + 2 < sizeof(m->buf)) {
		memcpy(m->buf + m->len, "::", 2);
		m->len += 2;
	}
	m->base = m->len;
	if (n > sizeof(m->buf) - 1 - m->len)
		n = sizeof(m->buf) - 1 - m->len;
	memcpy(m->buf + m->len, s, n);
	m->len += n;
	m->buf[m->len] = '\0';
}

/* <length><identifier>; false when p is not at one. */
static bool source_name(mangled *m)
{
	size_t n = 0;

	if (m->p >= m->end || !isdigit((unsigned char)*m->p))
		return false;
	while (m->p < m->end && isdigit((unsigned char)*m->p) && n < NS_KERNEL_IDENTITY_MAX)
		n = n * 10 + (size_t)(*m->p++ - '0');
	if (n > (size_t)(m->end - m->p))
		n = (size_t)(m->end - m->p);
	append_component(m, m->p, n);
	m->p += n;
	return true;
}

static void substitution(mangled *m)
{
	bool first = m->p + 1 < m->end && m->p[1] == '_';

	while (m->p < m->end && *m->p != '_')
		m->p++;
	m->p += m->p < m->end;
	if (first && m->first[0] != '\0')
		append_component(m, m->first, strlen(m->first));
}

/* A name: "N" prefix components "E", or one source name; stops at its template arguments ("I"). */
static void mangled_name(mangled *m)
{
	bool nested = m->p < m->end && *m->p == 'N';

	m->p += nested;
	while (nested && m->p < m->end && (*m->p == 'K' || *m->p == 'V' || *m->p == 'r'))
		m->p++;
	for (;;) {
		if (m->p + 1 < m->end && m->p[0] == 'S' && m->p[1] == 't') {
			append_component(m, "std", 3);
			m->p += 2;
		} else if (m->p < m->end && *m->p == 'S') {
			substitution(m);
		} else if (!source_name(m) || !nested) {
			return;
		}
		if (m->first[0] == '\0' && m->len < sizeof(m->first))
			memcpy(m->first, m->buf, m->len + 1);
	}
}

static void mangled_identity(const char *name, ns_kernel_identity *out)
{
	const char *nul =
	    memchr(name, '\0', NS_KERNEL_IDENTITY_MAX); /* the head only, as for demangled names */
	mangled m = {.p = name + 2, .end = nul != NULL ? nul : name + NS_KERNEL_IDENTITY_MAX};

	m.p += m.p < m.end && *m.p == 'L';
	mangled_name(&m);
	for (int hops = 0; hops < NS_KERNEL_LAUNCHER_HOPS && m.p < m.end && *m.p == 'I' &&
	                   is_launcher(m.buf + m.base, m.len - m.base);
	     hops++) {
		m.p++;
		m.len = m.base = 0;
		m.buf[0] = '\0';
		mangled_name(&m);
	}
	if (m.len == 0) {
		set_identity(out, name, strlen(name), 0);
		return;
	}
	set_identity(out, m.buf, m.len, m.base);
}

void ns_kernel_identity_of(const char *name, ns_kernel_identity *out)
{
	size_t start, len;

	if (name[0] == '_' && name[1] == 'Z') {
		mangled_identity(name, out);
		return;
	}
	len = ns_kernel_display_span(name, &start);
	/* Only the head is read, as the rules read it (NS_KERNEL_CLASSIFY_MAX): the function and the launched
	 * operation come first, and the cost per name stays bounded however long its template arguments run.
	 */
	if (len > NS_KERNEL_IDENTITY_MAX)
		len = NS_KERNEL_IDENTITY_MAX;
	demangled_identity(name + start, len, out, 0);
}
