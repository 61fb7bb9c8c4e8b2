/* What a two-pass reader would cost: a first pass that marks every quote and structural byte outside strings
 * with vector compares and lists their offsets (a structural index), and a second that walks the list and
 * takes the fields the split uses (ph, cat, name, pid, tid, ts, dur; args' device, stream, correlation,
 * External id). It validates nothing it skips, reports no error and assumes events under 64 KiB: a lower
 * bound on that design's time, to set beside scan_bench's time for the real reader
 * (bench/bench-structural.sh, issue 27). Kernels are the events whose cat is "kernel", as make-trace writes
 * them. Usage: structural_probe TRACE sse2|avx2 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WINDOW   (1u << 20)
#define MAX_SPAN (1u << 16) /* an event starting closer than this to the window's end waits for the next */
#define PAD      128
#define TAIL     8 /* index entries after the last, at the zero byte past the data: a cut event ends there */

typedef size_t (*index_fn)(const unsigned char *buf, size_t from, size_t to, uint32_t *out);

/* Quotes preceded by an odd run of backslashes are escaped: the run's start bit carried through the run by an
 * add lands on the byte after it, on an odd or even position by the run's parity. */
static uint64_t escaped_bytes(uint64_t bs, uint64_t *carry)
{
	const uint64_t even = 0x5555555555555555ull;
	uint64_t start, even_end, odd_end, out;

	if ((bs | *carry) == 0)
		return 0;
	start = bs & ~(bs << 1 | *carry);
	even_end = bs + (start & even);
	out = (even_end & ~bs & ~even);
	*carry = __builtin_add_overflow(bs, start & ~even, &odd_end);
	out |= odd_end & ~bs & even;
	return out;
}

static size_t emit(uint64_t bits, size_t at, uint32_t *out, size_t n)
{
	while (bits != 0) {
		out[n++] = (uint32_t)(at + (size_t)__builtin_ctzll(bits));
		bits &= bits - 1;
	}
	return n;
}

static uint64_t eq_sse2(const __m128i v[4], char c)
{
	__m128i x = _mm_set1_epi8(c);
	uint64_t m = 0;

	for (int k = 0; k < 4; k++)
		m |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v[k], x)) << (16 * k);
	return m;
}

/* In-string bytes by a running xor of the quote bits, six shifts (SSE2 has no carry-less multiply). */
static uint64_t prefix_xor(uint64_t x)
{
	for (int s = 1; s < 64; s *= 2)
		x ^= x << s;
	return x;
}

static size_t index_sse2(const unsigned char *buf, size_t from, size_t to, uint32_t *out)
{
	uint64_t in_prev = 0, bs_carry = 0;
	size_t n = 0;

	for (size_t i = from; i < to; i += 64) {
		__m128i v[4];
		uint64_t q, in, s;
		for (int k = 0; k < 4; k++)
			v[k] = _mm_loadu_si128((const __m128i *)(const void *)(buf + i + 16 * (size_t)k));
		q = eq_sse2(v, '"') & ~escaped_bytes(eq_sse2(v, '\\'), &bs_carry);
		in = prefix_xor(q) ^ in_prev;
		in_prev = 0 - (in >> 63); /* all ones when the block ends inside a string */
		s = eq_sse2(v, ':') | eq_sse2(v, ',') | eq_sse2(v, '{') | eq_sse2(v, '}') | eq_sse2(v, '[') |
		    eq_sse2(v, ']');
		s = (s & ~in) | q;
		if (to - i < 64)
			s &= (1ull << (to - i)) - 1;
		n = emit(s, i, out, n);
	}
	return n;
}

#define AVX2 __attribute__((target("avx2,pclmul")))

AVX2 static uint64_t eq_avx2(__m256i lo, __m256i hi, char c)
{
	__m256i x = _mm256_set1_epi8(c);

	return (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, x)) |
	       (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, x)) << 32;
}

/* Two loads a 64-byte block, the running xor as one carry-less multiply by all ones, and the brackets and
 * braces found by setting bit 5 ('[' and ']' become '{' and '}'). */
AVX2 static size_t index_avx2(const unsigned char *buf, size_t from, size_t to, uint32_t *out)
{
	uint64_t in_prev = 0, bs_carry = 0;
	size_t n = 0;

	for (size_t i = from; i < to; i += 64) {
		__m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)(buf + i));
		__m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(buf + i + 32));
		__m256i bit5 = _mm256_set1_epi8(0x20);
		__m256i lo5 = _mm256_or_si256(lo, bit5), hi5 = _mm256_or_si256(hi, bit5);
		uint64_t q = eq_avx2(lo, hi, '"') & ~escaped_bytes(eq_avx2(lo, hi, '\\'), &bs_carry);
		__m128i run =
		    _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)q), _mm_set1_epi8((char)0xFF), 0);
		uint64_t in = (uint64_t)_mm_cvtsi128_si64(run) ^ in_prev;
		uint64_t s = eq_avx2(lo5, hi5, '{') | eq_avx2(lo5, hi5, '}') | eq_avx2(lo, hi, ':') |
		             eq_avx2(lo, hi, ',');
		in_prev = 0 - (in >> 63); /* all ones when the block ends inside a string */
		s = (s & ~in) | q;
		if (to - i < 64)
			s &= (1ull << (to - i)) - 1;
		n = emit(s, i, out, n);
	}
	return n;
}

typedef struct {
	char ph;
	const unsigned char *cat;
	size_t cat_len, name_len;
	int64_t pid, tid, ts, dur, device, stream, correlation, external_id;
} event;

static const unsigned char *skip_blanks(const unsigned char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
		p++;
	return p;
}

static int is_number(unsigned char c)
{
	return c == '-' || (c >= '0' && c <= '9');
}

/* A decimal as a count of 10^-scale units; digits past the scale are dropped (the reader rounds them). */
static int64_t decimal(const unsigned char *p, int scale)
{
	int neg = *p == '-', frac = 0;
	int64_t v = 0;

	p += neg;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (*p++ - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (frac < scale)
				v = v * 10 + (*p - '0'), frac++;
	for (; frac < scale; frac++)
		v *= 10;
	return neg ? -v : v;
}

/* The key's first eight bytes, zero past its end (the window's padding keeps the load inside). */
static uint64_t key_word(const unsigned char *k, size_t len)
{
	uint64_t w;

	memcpy(&w, k, sizeof(w));
	return len >= 8 ? w : w & ((1ull << (8 * len)) - 1);
}

#define WORD(a, b, c, d, e, f, g, h)                                                                         \
	((uint64_t)(a) | (uint64_t)(b) << 8 | (uint64_t)(c) << 16 | (uint64_t)(d) << 24 |                    \
	 (uint64_t)(e) << 32 | (uint64_t)(f) << 40 | (uint64_t)(g) << 48 | (uint64_t)(h) << 56)

/* ix is at the first structural at or after the value v: past the value's own entries (none for a number or
 * literal, two for a string, all up to the matching close for a container). */
static const uint32_t *skip_value(const unsigned char *buf, const uint32_t *ix, const unsigned char *v)
{
	int depth = 0;

	if (*v == '"')
		return ix + 2;
	if (*v != '{' && *v != '[')
		return ix;
	for (;; ix++) {
		unsigned char c = buf[*ix];
		if (c == 0)
			return ix;
		if (c == '"')
			ix++;
		else if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth == 0)
			return ix + 1;
	}
}

/* A member's key and where its value starts; ix moves past the key's quotes and the colon. */
static const unsigned char *member(const unsigned char *buf, const uint32_t **ix, uint64_t *word, size_t *len)
{
	const uint32_t *at = *ix;

	*len = at[1] - at[0] - 1;
	*word = key_word(buf + at[0] + 1, *len);
	*ix = at + 3;
	return skip_blanks(buf + at[2] + 1);
}

static const uint32_t *walk_args(const unsigned char *buf, const uint32_t *ix, event *ev)
{
	if (buf[*++ix] == '}')
		return ix + 1;
	for (;;) {
		uint64_t w;
		size_t len;
		const unsigned char *v = member(buf, &ix, &w, &len);
		int64_t *slot = NULL;
		if (*v == 0)
			return ix;
		if (len == 6 && w == WORD('d', 'e', 'v', 'i', 'c', 'e', 0, 0))
			slot = &ev->device;
		else if (len == 6 && w == WORD('s', 't', 'r', 'e', 'a', 'm', 0, 0))
			slot = &ev->stream;
		else if (len == 11 && w == WORD('c', 'o', 'r', 'r', 'e', 'l', 'a', 't'))
			slot = &ev->correlation;
		else if (len == 11 && w == WORD('E', 'x', 't', 'e', 'r', 'n', 'a', 'l'))
			slot = &ev->external_id;
		if (slot != NULL && is_number(*v))
			*slot = decimal(v, 0);
		ix = skip_value(buf, ix, v);
		if (buf[*ix++] != ',')
			return ix;
	}
}

static const uint32_t *walk_event(const unsigned char *buf, const uint32_t *ix, event *ev)
{
	memset(ev, 0, sizeof(*ev));
	if (buf[*++ix] == '}')
		return ix + 1;
	for (;;) {
		uint64_t w;
		size_t len;
		const unsigned char *v = member(buf, &ix, &w, &len);
		int num = is_number(*v), str = *v == '"';
		if (*v == 0)
			return ix;
		if (len == 2 && str && w == WORD('p', 'h', 0, 0, 0, 0, 0, 0))
			ev->ph = (char)v[1];
		else if (len == 2 && num && w == WORD('t', 's', 0, 0, 0, 0, 0, 0))
			ev->ts = decimal(v, 3);
		else if (len == 3 && str && w == WORD('c', 'a', 't', 0, 0, 0, 0, 0))
			ev->cat = v + 1, ev->cat_len = (size_t)(buf + ix[1] - v - 1);
		else if (len == 3 && num && w == WORD('p', 'i', 'd', 0, 0, 0, 0, 0))
			ev->pid = decimal(v, 0);
		else if (len == 3 && num && w == WORD('t', 'i', 'd', 0, 0, 0, 0, 0))
			ev->tid = decimal(v, 0);
		else if (len == 3 && num && w == WORD('d', 'u', 'r', 0, 0, 0, 0, 0))
			ev->dur = decimal(v, 3);
		else if (len == 4 && str && w == WORD('n', 'a', 'm', 'e', 0, 0, 0, 0))
			ev->name_len = (size_t)(buf + ix[1] - v - 1);
		if (len == 4 && *v == '{' && w == WORD('a', 'r', 'g', 's', 0, 0, 0, 0))
			ix = walk_args(buf, ix, ev);
		else
			ix = skip_value(buf, ix, v);
		if (buf[*ix++] != ',')
			return ix;
	}
}

typedef struct {
	long events, kernels;
	int64_t kernel_ns;
	uint64_t checksum;
} tally;

static void count(tally *t, const event *ev)
{
	t->events++;
	if (ev->cat_len == 6 && memcmp(ev->cat, "kernel", 6) == 0)
		t->kernels++, t->kernel_ns += ev->dur;
	t->checksum += (uint64_t)(ev->ts ^ ev->pid ^ ev->tid ^ (int64_t)ev->name_len ^ ev->correlation ^
	                          ev->device ^ ev->stream ^ ev->external_id);
}

/* Walks the events whose start lies more than MAX_SPAN before the window's end (all of them at the end of
 * the file); returns the offset to keep for the next window, or 0 when traceEvents ended. */
static size_t walk_window(const unsigned char *buf, const uint32_t *ix, const uint32_t *end, size_t len,
                          int last, tally *t)
{
	while (ix < end) {
		event ev;
		unsigned char c = buf[*ix];
		if (c == ',') {
			ix++;
			continue;
		}
		if (c != '{')
			return 0;
		if (!last && *ix + MAX_SPAN > len)
			return *ix;
		ix = walk_event(buf, ix, &ev);
		count(t, &ev);
	}
	return len;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The offset of the first event's byte in the first window, or 0 when it holds no traceEvents array. */
static size_t events_start(const unsigned char *buf, size_t len)
{
	const unsigned char *key = memmem(buf, len, "\"traceEvents\"", 13);
	const unsigned char *open = key != NULL ? memchr(key, '[', (size_t)(buf + len - key)) : NULL;

	return open != NULL ? (size_t)(open - buf) + 1 : 0;
}

/* Reads fd a window at a time into buf (2 * WINDOW + PAD bytes), indexing each into ix and walking it. */
static int probe_windows(int fd, index_fn index, unsigned char *buf, uint32_t *ix, tally *t)
{
	ssize_t n = read(fd, buf, WINDOW);
	size_t len = n > 0 ? (size_t)n : 0, from = events_start(buf, len);
	int last = 0;

	if (from == 0)
		return -1;
	for (;;) {
		size_t keep;
		memset(buf + len, 0, PAD);
		size_t n_ix = index(buf, from, len, ix);
		for (size_t k = 0; k < TAIL; k++)
			ix[n_ix + k] = (uint32_t)len;
		keep = walk_window(buf, ix, ix + n_ix, len, last, t);
		if (keep == 0 || last)
			return 0;
		memmove(buf, buf + keep, len - keep);
		len -= keep;
		from = 0;
		n = read(fd, buf + len, WINDOW);
		if (n < 0)
			return -1;
		last = n == 0;
		len += (size_t)n;
	}
}

static int probe(int fd, index_fn index, tally *t)
{
	unsigned char *buf = malloc(2 * WINDOW + PAD);
	uint32_t *ix = malloc(sizeof(uint32_t) * (2 * WINDOW + TAIL));
	int rc = buf != NULL && ix != NULL ? probe_windows(fd, index, buf, ix, t) : -1;

	free(buf);
	free(ix);
	return rc;
}

int main(int argc, char **argv)
{
	index_fn index = index_sse2;
	tally t = {0};
	double t0;
	int fd;

	if (argc != 3 || (strcmp(argv[2], "sse2") != 0 && strcmp(argv[2], "avx2") != 0)) {
		fprintf(stderr, "usage: structural_probe TRACE sse2|avx2\n");
		return 2;
	}
	if (strcmp(argv[2], "avx2") == 0) {
		if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("pclmul")) {
			fprintf(stderr, "structural_probe: this CPU has no AVX2 or PCLMUL\n");
			return 3;
		}
		index = index_avx2;
	}
	fd = open(argv[1], O_RDONLY);
	t0 = now_s();
	if (fd < 0 || probe(fd, index, &t) != 0) {
		fprintf(stderr, "structural_probe: cannot read %s\n", argv[1]);
		return 1;
	}
	printf("events=%ld kernels=%ld kernel_ms=%.3f secs=%.4f\n", t.events, t.kernels,
	       (double)t.kernel_ns / 1e6, now_s() - t0);
	return 0;
}
