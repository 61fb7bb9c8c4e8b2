/* The shared helpers in src/util: growable array, hash index, sorting, saturating arithmetic, line numbers,
 * UTF-8, escaping for display, JSON unescaping, magic bytes. Expected values are worked out by hand from the
 * rules (RFC 3629 for UTF-8, RFC 8259 for JSON escapes, RFC 1952 for gzip). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/hindex.h"
#include "util/magic.h"
#include "util/satmath.h"
#include "util/sort.h"
#include "util/text.h"
#include "util/vec.h"

/* ---- growable array ---- */

START_TEST(grow_refuses_a_size_that_overflows_and_keeps_the_buffer)
{
	size_t cap = 0, had;
	int64_t *data = ns_grow(NULL, &cap, 10, sizeof(int64_t));

	ck_assert_ptr_nonnull(data);
	ck_assert_uint_ge(cap, 10);
	had = cap;
	data[9] = 99;
	ck_assert_ptr_eq(ns_grow(data, &cap, had, sizeof(int64_t)), data);
	ck_assert_ptr_null(ns_grow(data, &cap, SIZE_MAX / 4, 8));
	ck_assert_ptr_null(ns_grow(data, &cap, had + 1, 1 + SIZE_MAX / 2));
	ck_assert_uint_eq(cap, had);
	ck_assert_int_eq(data[9], 99);
	free(data);
}
END_TEST

/* A limited buffer doubles (64, 128, 256) and then takes the limit (300) rather than 512; past it, NULL and
 * the buffer kept. */
START_TEST(grow_capped_doubles_up_to_the_limit_and_refuses_past_it)
{
	static const struct {
		size_t need, cap_after;
	} steps[] = {{1, 16}, {17, 32}, {33, 64}, {65, 128}, {200, 256}, {257, 300}, {300, 300}};
	size_t cap = 0;
	char *data = NULL;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		data = ns_grow_capped(data, &cap, steps[i].need, 1, 300);
		ck_assert_ptr_nonnull(data);
		ck_assert_uint_eq(cap, steps[i].cap_after);
	}
	data[299] = 'x';
	ck_assert_ptr_null(ns_grow_capped(data, &cap, 301, 1, 300));
	ck_assert_uint_eq(cap, 300);
	ck_assert_int_eq(data[299], 'x');
	free(data);
	cap = 0;
	data =
	    ns_grow_capped(NULL, &cap, 3, 1, 10); /* a limit below the first size: exactly what is needed */
	ck_assert_ptr_nonnull(data);
	ck_assert_uint_eq(cap, 3);
	free(data);
}
END_TEST

/* Appended one at a time, 100,000 elements keep their values across every move; the bytes it counts as
 * present never pass the allocation nor lag behind what was written; a size that overflows is refused as by
 * ns_grow. */
START_TEST(grow_prefaulted_keeps_the_elements_and_counts_only_what_it_holds)
{
	size_t cap = 0, done = 0, had;
	int64_t *data = NULL;

	for (size_t i = 0; i < 100000; i++) {
		data = ns_grow_prefaulted(data, &cap, i + 1, sizeof(*data), &done);
		ck_assert_ptr_nonnull(data);
		ck_assert_uint_le(done, cap * sizeof(*data));
		ck_assert_uint_ge(done, i * sizeof(*data));
		data[i] = (int64_t)i * 3;
	}
	for (size_t i = 0; i < 100000; i++)
		ck_assert_int_eq(data[i], (int64_t)i * 3);
	had = cap;
	ck_assert_ptr_null(ns_grow_prefaulted(data, &cap, SIZE_MAX / 4, 8, &done));
	ck_assert_uint_eq(cap, had);
	free(data);
}
END_TEST

/* ---- hash index ---- */

typedef struct {
	int64_t pid, tid;
} pair;

static uint32_t find_pair(const ns_hindex *t, const pair *entries, pair key, uint64_t h)
{
	size_t slot = ns_hindex_home(t, h);
	uint32_t id;

	while (ns_hindex_probe(t, h, &slot, &id))
		if (entries[id].pid == key.pid && entries[id].tid == key.tid)
			return id;
	return UINT32_MAX;
}

START_TEST(hindex_finds_every_entry_added_and_nothing_else)
{
	enum { N = 5000 };
	static pair entries[N];
	ns_hindex t;

	ck_assert(ns_hindex_init(&t, 0));
	for (uint32_t i = 0; i < N; i++) {
		entries[i] = (pair){(int64_t)i * 7919, -(int64_t)i};
		ck_assert(ns_hindex_add(&t, ns_hash_i64_pair(entries[i].pid, entries[i].tid), i));
	}
	ck_assert_uint_eq(t.n, N);
	ck_assert_uint_ge(t.nslots, 2 * N);
	for (uint32_t i = 0; i < N; i++)
		ck_assert_uint_eq(
		    find_pair(&t, entries, entries[i], ns_hash_i64_pair(entries[i].pid, entries[i].tid)), i);
	ck_assert_uint_eq(find_pair(&t, entries, (pair){1, 1}, ns_hash_i64_pair(1, 1)), UINT32_MAX);
	ns_hindex_free(&t);
}
END_TEST

START_TEST(hindex_keeps_keys_apart_when_their_hashes_collide)
{
	pair entries[3] = {{1, 2}, {3, 4}, {5, 6}};
	ns_hindex t;

	ck_assert(ns_hindex_init(&t, 3));
	for (uint32_t i = 0; i < 3; i++)
		ck_assert(
		    ns_hindex_add(&t, 42, i)); /* one hash for all: the caller's key check tells them apart */
	for (uint32_t i = 0; i < 3; i++)
		ck_assert_uint_eq(find_pair(&t, entries, entries[i], 42), i);
	ck_assert_uint_eq(find_pair(&t, entries, (pair){7, 8}, 42), UINT32_MAX);
	ns_hindex_free(&t);
}
END_TEST

START_TEST(hash_bytes_depends_on_every_byte_and_the_length)
{
	const char a[] = "void gemm_kernel<float>(int)";
	char b[sizeof(a)];

	memcpy(b, a, sizeof(a));
	ck_assert_uint_eq(ns_hash_bytes(a, sizeof(a) - 1), ns_hash_bytes(b, sizeof(a) - 1));
	for (size_t i = 0; i < sizeof(a) - 1; i++) {
		b[i] ^= 1;
		ck_assert_uint_ne(ns_hash_bytes(a, sizeof(a) - 1), ns_hash_bytes(b, sizeof(a) - 1));
		b[i] ^= 1;
	}
	ck_assert_uint_ne(ns_hash_bytes(a, 8), ns_hash_bytes(a, 9));
}
END_TEST

/* ---- sorting ---- */

typedef enum { ORDER_RANDOM, ORDER_SORTED, ORDER_REVERSED, ORDER_EQUAL, ORDER_ORGAN_PIPE, ORDER_FEW } shape;

static const struct {
	shape how;
	size_t n;
} sort_cases[] = {
    {ORDER_RANDOM, 0},      {ORDER_RANDOM, 1},         {ORDER_RANDOM, 17},
    {ORDER_RANDOM, 100000}, {ORDER_SORTED, 5000},      {ORDER_REVERSED, 5000},
    {ORDER_EQUAL, 5000},    {ORDER_ORGAN_PIPE, 50000}, {ORDER_FEW, 50000},
};

static int64_t value_at(shape how, size_t i, size_t n, uint64_t *seed)
{
	switch (how) {
	case ORDER_SORTED:
		return (int64_t)i;
	case ORDER_REVERSED:
		return (int64_t)(n - i);
	case ORDER_EQUAL:
		return 5;
	case ORDER_ORGAN_PIPE:
		return (int64_t)(i < n / 2 ? i : n - i);
	case ORDER_FEW:
		return (int64_t)(i % 3) - 1;
	case ORDER_RANDOM:
		break;
	}
	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
	return (int64_t)(*seed >> 1) - INT64_MAX / 2; /* large magnitudes: a - b would overflow */
}

START_TEST(sort_orders_int64_tables_of_every_shape_like_qsort_does)
{
	size_t n = sort_cases[_i].n;
	int64_t *mine = malloc((n + 1) * sizeof(*mine)), *ref = malloc((n + 1) * sizeof(*ref));
	uint64_t seed = 12345;

	ck_assert(mine != NULL && ref != NULL);
	for (size_t i = 0; i < n; i++)
		mine[i] = ref[i] = value_at(sort_cases[_i].how, i, n, &seed);
	ns_sort(mine, n, sizeof(*mine), ns_cmp_i64);
	qsort(ref, n, sizeof(*ref), ns_cmp_i64);
	ck_assert(n == 0 || memcmp(mine, ref, n * sizeof(*mine)) == 0);
	free(mine);
	free(ref);
}
END_TEST

/* A record wider than ns_sort's in-place limit, keyed by key alone: pos is where it stood before the sort. */
typedef struct {
	int64_t key;
	size_t pos;
	char pad[NS_SORT_ELEM_MAX];
} wide_rec;

static int cmp_wide_key(const void *a, const void *b)
{
	return ns_cmp_i64(&((const wide_rec *)a)->key, &((const wide_rec *)b)->key);
}

/* Every shape and length of sort_cases, keys folded onto few values (ORDER_RANDOM onto 7) so that most
 * records tie: ordered by key, and records of one key in the order they had. */
START_TEST(sort_stable_keeps_equal_records_in_their_order)
{
	size_t n = sort_cases[_i].n;
	wide_rec *v = malloc((n + 1) * sizeof(*v));
	uint64_t seed = 777;

	ck_assert_ptr_nonnull(v);
	for (size_t i = 0; i < n; i++) {
		int64_t k = value_at(sort_cases[_i].how, i, n, &seed);
		v[i].key = sort_cases[_i].how == ORDER_RANDOM ? (int64_t)((uint64_t)k % 7) : k / 4;
		v[i].pos = i;
		memset(v[i].pad, (int)(i & 0x7f), sizeof(v[i].pad));
	}
	ck_assert(ns_sort_stable(v, n, sizeof(*v), cmp_wide_key));
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(v[i].pad[0], (int)(v[i].pos & 0x7f)); /* moved whole */
		if (i == 0)
			continue;
		ck_assert_int_le(v[i - 1].key, v[i].key);
		if (v[i - 1].key == v[i].key)
			ck_assert_uint_lt(v[i - 1].pos, v[i].pos);
	}
	free(v);
}
END_TEST

/* A table whose scratch room (two pointers an element) would wrap past SIZE_MAX to a few bytes: false, and
 * the table as it was, not a small buffer written past its end. Only its first two elements are read (they
 * are out of order, so the in-order check stops there). */
START_TEST(sort_stable_refuses_a_table_too_large_and_leaves_it)
{
	int64_t v[3] = {3, 1, 2};

	ck_assert(!ns_sort_stable(v, SIZE_MAX / 16 + 1, sizeof(*v), ns_cmp_i64));
	ck_assert(v[0] == 3 && v[1] == 1 && v[2] == 2);
}
END_TEST

START_TEST(sort_comparators_order_extremes_without_overflow)
{
	int64_t lo = INT64_MIN, hi = INT64_MAX;
	double nan = NAN, one = 1.0;

	ck_assert_int_eq(ns_cmp_i64(&lo, &hi), -1);
	ck_assert_int_eq(ns_cmp_i64(&hi, &lo), 1);
	ck_assert_int_eq(ns_cmp_i64(&hi, &hi), 0);
	ck_assert_int_eq(ns_cmp_double(&one, &nan), -1);
	ck_assert_int_eq(ns_cmp_double(&nan, &one), 1);
	ck_assert_ptr_null(ns_bsearch(&lo, NULL, 0, sizeof(lo), ns_cmp_i64));
}
END_TEST

/* ---- saturating arithmetic ---- */

static const struct {
	char op;
	int64_t a, b, want;
} sat_cases[] = {
    {'+', 1, 2, 3},
    {'+', INT64_MAX, 1, INT64_MAX},
    {'+', INT64_MIN, -1, INT64_MIN},
    {'+', INT64_MAX, INT64_MIN, -1},
    {'-', 5, 7, -2},
    {'-', INT64_MAX, -1, INT64_MAX},
    {'-', INT64_MIN, 1, INT64_MIN},
    {'-', 0, INT64_MIN, INT64_MAX},
    {'*', 3, -4, -12},
    {'*', INT64_MAX / 2 + 1, 2, INT64_MAX},
    {'*', -(INT64_MAX / 2) - 2, 2, INT64_MIN},
    {'*', INT64_MIN, -1, INT64_MAX},
    {'*', 9000000000000000, 9000000000000000, INT64_MAX},
};

START_TEST(saturating_arithmetic_clamps_instead_of_overflowing)
{
	int64_t a = sat_cases[_i].a, b = sat_cases[_i].b, got;

	got = sat_cases[_i].op == '+'   ? ns_sat_add_i64(a, b)
	      : sat_cases[_i].op == '-' ? ns_sat_sub_i64(a, b)
	                                : ns_sat_mul_i64(a, b);
	ck_assert_msg(got == sat_cases[_i].want, "%lld %c %lld -> %lld", (long long)a, sat_cases[_i].op,
	              (long long)b, (long long)got);
}
END_TEST

START_TEST(size_arithmetic_reports_overflow)
{
	size_t out = 0;

	ck_assert(ns_size_mul(1u << 20, 16, &out));
	ck_assert_uint_eq(out, 16u << 20);
	ck_assert(!ns_size_mul(SIZE_MAX / 2 + 1, 2, &out));
	ck_assert(!ns_size_add(SIZE_MAX, 1, &out));
}
END_TEST

/* ---- lines ---- */

static const struct {
	const char *text;
	size_t pos;
	long want;
} line_cases[] = {
    {"", 0, 1}, {"abc", 2, 1}, {"a\nb", 1, 1}, {"a\nb", 2, 2}, {"a\n\n\nb", 4, 4}, {"a\nb\n", 99, 3},
};

START_TEST(line_of_counts_the_newlines_before_the_offset)
{
	const char *t = line_cases[_i].text;

	ck_assert_int_eq(ns_line_of(t, strlen(t), line_cases[_i].pos), line_cases[_i].want);
}
END_TEST

/* ---- UTF-8 ---- */

static const struct {
	const char *bytes;
	size_t n, want_len;
	uint32_t want_cp;
} utf8_cases[] = {
    {"A", 1, 1, 0x41},
    {"\xc3\xa9", 2, 2, 0xe9},             /* é */
    {"\xe2\x82\xac", 3, 3, 0x20ac},       /* € */
    {"\xf0\x9f\x98\x80", 4, 4, 0x1f600},  /* 😀 */
    {"\xf4\x8f\xbf\xbf", 4, 4, 0x10ffff}, /* the last code point */
    {"\x80", 1, 0, 0},                    /* a continuation byte alone */
    {"\xc0\xaf", 2, 0, 0},                /* overlong '/' */
    {"\xe0\x80\xaf", 3, 0, 0},            /* overlong '/' */
    {"\xed\xa0\x80", 3, 0, 0},            /* U+D800, a surrogate */
    {"\xf4\x90\x80\x80", 4, 0, 0},        /* U+110000 */
    {"\xe2\x82", 2, 0, 0},                /* cut short */
    {"\xc3\x41", 2, 0, 0},                /* lead byte then ASCII */
    {"\xff", 1, 0, 0},
};

START_TEST(utf8_char_accepts_well_formed_characters_only)
{
	uint32_t cp = 0;
	size_t got = ns_utf8_char(utf8_cases[_i].bytes, utf8_cases[_i].n, &cp);

	ck_assert_uint_eq(got, utf8_cases[_i].want_len);
	if (got != 0)
		ck_assert_uint_eq(cp, utf8_cases[_i].want_cp);
}
END_TEST

static const struct {
	const char *s;
	size_t max, want;
} cut_cases[] = {
    {"abc", 10, 3},
    {"abc", 2, 2},
    {"a\xc3\xa9", 2, 1}, /* é would be split */
    {"a\xc3\xa9", 3, 3},
    {"\xf0\x9f\x98\x80\xf0\x9f\x98\x80", 7, 4},
    {"\xf0\x9f\x98\x80\xf0\x9f\x98\x80", 5, 4},
    {"\x80\x80\x80\x80x", 2, 2}, /* stray continuation bytes are one character each */
    {"ab\xe2\x82", 3, 3},        /* a cut-short character is bytes, not one character */
};

START_TEST(utf8_cut_never_splits_a_character)
{
	ck_assert_uint_eq(ns_utf8_cut(cut_cases[_i].s, strlen(cut_cases[_i].s), cut_cases[_i].max),
	                  cut_cases[_i].want);
}
END_TEST

static const struct {
	const char *in;
	size_t cap;
	const char *want;
} clean_cases[] = {
    {"plain", 16, "plain"},
    {"caf\xc3\xa9", 16, "caf\xc3\xa9"},
    {"a\xff"
     "b",
     16,
     "a\xef\xbf\xbd"
     "b"},
    {"\xc0\xaf", 16, "\xef\xbf\xbd\xef\xbf\xbd"},
    {"ab\xc3\xa9", 4, "ab"}, /* é does not fit with the NUL */
    {"a\xff", 4, "a"},       /* neither does U+FFFD */
};

START_TEST(utf8_clean_replaces_bad_bytes_and_cuts_between_characters)
{
	char out[32];
	size_t n = ns_utf8_clean(clean_cases[_i].in, strlen(clean_cases[_i].in), out, clean_cases[_i].cap);

	ck_assert_str_eq(out, clean_cases[_i].want);
	ck_assert_uint_eq(n, strlen(clean_cases[_i].want));
}
END_TEST

/* ---- escaping for display ---- */

static const struct {
	const char *in;
	const char *want;
} escape_cases[] = {
    {"resnet50 bs=64", "resnet50 bs=64"},
    {"two\nlines", "two\\nlines"},
    {"tab\tcr\r", "tab\\tcr\\r"},
    {"\x1b[31mred", "\\x1b[31mred"},
    {"del\x7f", "del\\x7f"},
    {"csi\xc2\x9b", "csi\\u009b"}, /* C1 control U+009B in UTF-8 */
    {"bad\xff", "bad\xef\xbf\xbd"},
    {"caf\xc3\xa9 C:\\x", "caf\xc3\xa9 C:\\x"},
};

START_TEST(text_escape_makes_controls_visible_and_keeps_text)
{
	char out[64];
	const char *in = escape_cases[_i].in;

	ck_assert_uint_eq(ns_text_escape(in, strlen(in), out, sizeof(out)), strlen(escape_cases[_i].want));
	ck_assert_str_eq(out, escape_cases[_i].want);
}
END_TEST

START_TEST(text_escape_truncates_between_escapes_and_reports_the_full_length)
{
	char out[6];

	/* "ab\n\ncd" escapes to "ab\\n\\ncd" (8 bytes); 5 fit with the NUL: "ab\\n" then "\\n" would not. */
	ck_assert_uint_eq(ns_text_escape("ab\n\ncd", 6, out, sizeof(out)), 8);
	ck_assert_str_eq(out, "ab\\n");
	ck_assert_uint_eq(ns_text_escape("abc", 3, NULL, 0), 3);
}
END_TEST

START_TEST(fput_text_writes_the_escaped_form)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	ck_assert(ns_fput_text(fp, "a\x1b"
	                           "b\n"));
	fclose(fp);
	ck_assert_str_eq(buf, "a\\x1bb\\n");
	free(buf);
}
END_TEST

/* ---- JSON unescaping ---- */

static const struct {
	const char *in;
	const char *want;
} unescape_cases[] = {
    {"plain", "plain"},
    {"a\\nb\\tc", "a\nb\tc"},
    {"q\\\"s\\\\l\\/", "q\"s\\l/"},
    {"\\u00e9", "\xc3\xa9"},
    {"\\u20AC", "\xe2\x82\xac"},
    {"\\ud83d\\ude00", "\xf0\x9f\x98\x80"}, /* a surrogate pair is one character */
    {"\\ud83d", "\xef\xbf\xbd"},            /* a lone high surrogate */
    {"\\ude00x", "\xef\xbf\xbdx"},          /* a lone low surrogate */
    {"\\ud83d\\u0041", "\xef\xbf\xbd"
                       "A"},     /* high surrogate then no low one */
    {"\\u0000", "\xef\xbf\xbd"}, /* NUL cannot live in a C string */
    {"\\u12", "u12"},            /* cut short */
    {"\\q", "q"},
    {"end\\", "end\\"},
};

START_TEST(json_unescape_resolves_escapes_and_surrogate_pairs)
{
	const char *in = unescape_cases[_i].in;
	char *out = malloc(strlen(in) + 1);

	ck_assert_ptr_nonnull(out);
	ck_assert_uint_eq(ns_json_unescape(in, strlen(in), out), strlen(unescape_cases[_i].want));
	ck_assert_str_eq(out, unescape_cases[_i].want);
	free(out);
}
END_TEST

/* ---- magic bytes ---- */

START_TEST(magic_recognises_gzip_and_the_utf8_bom)
{
	ck_assert(ns_is_gzip("\x1f\x8b\x08", 3));
	ck_assert(!ns_is_gzip("\x1f", 1));
	ck_assert(!ns_is_gzip("{\"", 2));
	ck_assert_uint_eq(ns_utf8_bom_len("\xef\xbb\xbf{", 4), 3);
	ck_assert_uint_eq(ns_utf8_bom_len("\xef\xbb", 2), 0);
	ck_assert_uint_eq(ns_utf8_bom_len("{}", 2), 0);
}
END_TEST

/* The generator marks ns_html_page_begin and ns_roofline_svg_write put near the top, and nothing else. */
START_TEST(own_output_is_a_page_or_plot_with_the_generator_mark_near_the_top)
{
	static const char page[] = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	                           "<meta name=\"generator\" content=\"nextstep 1.0.0\">\n";
	static const char plot[] =
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- Generator: nextstep 1.0.0 -->\n<svg";
	char late[NS_GENERATOR_SPAN + 200];

	ck_assert(ns_is_own_output(page, strlen(page)));
	ck_assert(ns_is_own_output(plot, strlen(plot)));
	ck_assert(!ns_is_own_output(page, 60)); /* cut before the mark */
	ck_assert(!ns_is_own_output("<!DOCTYPE html>\n<html><head><title>x</title>", 44));
	ck_assert(
	    !ns_is_own_output("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\">", 60));
	ck_assert(!ns_is_own_output("{\"traceEvents\": []}", 19));
	ck_assert(!ns_is_own_output(plot + 1, strlen(plot) - 1)); /* the mark, but not at an SVG's start */
	/* The mark past the first NS_GENERATOR_SPAN bytes does not count. */
	/* late is bytes, not a string: no NUL. NOLINTBEGIN(bugprone-not-null-terminated-result) */
	memset(late, ' ', sizeof(late));
	memcpy(late, "<!DOCTYPE html>", 15);
	memcpy(late + NS_GENERATOR_SPAN, NS_GENERATOR_HTML, strlen(NS_GENERATOR_HTML));
	ck_assert(!ns_is_own_output(late, sizeof(late)));
	memcpy(late + 100, NS_GENERATOR_HTML, strlen(NS_GENERATOR_HTML));
	/* NOLINTEND(bugprone-not-null-terminated-result) */
	ck_assert(ns_is_own_output(late, sizeof(late)));
}
END_TEST

/* ---- edit distance ("did you mean") ---- */

/* Worked by hand: kitten -> sitting is the textbook 3 (two substitutions, one insertion); a swap of two
 * neighbours is 1; "ca" -> "abc" is 3 under optimal string alignment (a swapped pair is not edited again). */
static const struct {
	const char *a, *b;
	size_t d;
} edit_cases[] = {
    {"trace", "trace", 0},   {"trcae", "trace", 1},      {"stpes", "steps", 1},
    {"trac", "trace", 1},    {"jbo", "job", 1},          {"", "abc", 3},
    {"abc", "", 3},          {"kitten", "sitting", 3},   {"ca", "abc", 3},
    {"fromat", "format", 1}, {"idel", "idle", 1},        {"comptue", "compute", 1},
    {"zzzzz", "steps", 5},   {"roofline", "rooflin", 1}, {"diff", "job", 4},
};

START_TEST(edit_distance_counts_insertions_deletions_substitutions_and_swaps)
{
	ck_assert_uint_eq(ns_edit_distance(edit_cases[_i].a, edit_cases[_i].b), edit_cases[_i].d);
	ck_assert_uint_eq(ns_edit_distance(edit_cases[_i].b, edit_cases[_i].a), edit_cases[_i].d);
}
END_TEST

START_TEST(edit_distance_of_a_word_longer_than_the_bound_is_far)
{
	char longer[NS_EDIT_WORD_MAX + 2];

	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	ck_assert_uint_eq(ns_edit_distance(longer, "a"), NS_EDIT_FAR);
	longer[NS_EDIT_WORD_MAX] = '\0';
	ck_assert_uint_eq(ns_edit_distance(longer, longer), 0);
}
END_TEST

#define NROWS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *mem = tcase_create("memory");
	TCase *ordering = tcase_create("order");
	TCase *text = tcase_create("text");

	tcase_add_test(mem, grow_refuses_a_size_that_overflows_and_keeps_the_buffer);
	tcase_add_test(mem, grow_capped_doubles_up_to_the_limit_and_refuses_past_it);
	tcase_add_test(mem, grow_prefaulted_keeps_the_elements_and_counts_only_what_it_holds);
	tcase_add_test(mem, hindex_finds_every_entry_added_and_nothing_else);
	tcase_add_test(mem, hindex_keeps_keys_apart_when_their_hashes_collide);
	tcase_add_test(mem, hash_bytes_depends_on_every_byte_and_the_length);
	tcase_add_loop_test(ordering, sort_orders_int64_tables_of_every_shape_like_qsort_does, 0,
	                    NROWS(sort_cases));
	tcase_add_loop_test(ordering, sort_stable_keeps_equal_records_in_their_order, 0, NROWS(sort_cases));
	tcase_add_test(ordering, sort_stable_refuses_a_table_too_large_and_leaves_it);
	tcase_add_test(ordering, sort_comparators_order_extremes_without_overflow);
	tcase_add_loop_test(ordering, saturating_arithmetic_clamps_instead_of_overflowing, 0,
	                    NROWS(sat_cases));
	tcase_add_test(ordering, size_arithmetic_reports_overflow);
	tcase_add_loop_test(text, line_of_counts_the_newlines_before_the_offset, 0, NROWS(line_cases));
	tcase_add_loop_test(text, utf8_char_accepts_well_formed_characters_only, 0, NROWS(utf8_cases));
	tcase_add_loop_test(text, utf8_cut_never_splits_a_character, 0, NROWS(cut_cases));
	tcase_add_loop_test(text, utf8_clean_replaces_bad_bytes_and_cuts_between_characters, 0,
	                    NROWS(clean_cases));
	tcase_add_loop_test(text, text_escape_makes_controls_visible_and_keeps_text, 0, NROWS(escape_cases));
	tcase_add_test(text, text_escape_truncates_between_escapes_and_reports_the_full_length);
	tcase_add_test(text, fput_text_writes_the_escaped_form);
	tcase_add_loop_test(text, json_unescape_resolves_escapes_and_surrogate_pairs, 0,
	                    NROWS(unescape_cases));
	tcase_add_test(text, magic_recognises_gzip_and_the_utf8_bom);
	tcase_add_test(text, own_output_is_a_page_or_plot_with_the_generator_mark_near_the_top);
	tcase_add_loop_test(text, edit_distance_counts_insertions_deletions_substitutions_and_swaps, 0,
	                    NROWS(edit_cases));
	tcase_add_test(text, edit_distance_of_a_word_longer_than_the_bound_is_far);
	suite_add_tcase(s, mem);
	suite_add_tcase(s, ordering);
	suite_add_tcase(s, text);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(util_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
