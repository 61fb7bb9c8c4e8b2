/* Where the steps come from and how GPU work is tied to them.
 *
 * Sources, tried in order (docs/trace.md, "Steps"): user annotations matching --step-marker (an explicit
 * request wins), ProfilerStep# on the host, ProfilerStep# on the GPU timeline, inference-server iteration
 * markers, and as a last resort a repeating sequence of kernels (step_period.h). Markers are recognised while
 * reading, and only on user annotations: a normal trace pays one first-byte test per annotation.
 *
 * Steps that hold still: each host step owns the GPU work launched inside it, and its window on the device
 * runs until that work has finished (and no earlier than the next host step starts), so a device running
 * behind the host does not push one step's kernels into the next. GPU work launched outside every step
 * belongs to none. */
#define _POSIX_C_SOURCE       200809L
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/step_period.h"
#include "nextstep/trace_kernels.h"
#include "trace/split/split_private.h"
#include "util/satmath.h"
#include "util/vec.h"

/* The kernel rules' cost bounds (kernel_rules.c), for the same reason: a regex from the command line runs on
 * names from the trace. */
#define MARKER_MATCH_LIMIT    100000u
#define MARKER_DEPTH_LIMIT    10000u
#define MARKER_HEAP_LIMIT_KIB 1024u
#define MARKER_NAME_MAX       4096 /* longer annotation names are matched on their first 4 KiB */

const char *ns_step_source_name(ns_step_source s)
{
	static const char *const names[NS_STEP_SOURCE_COUNT] = {[NS_STEP_SOURCE_NONE] = "none",
	                                                        [NS_STEP_SOURCE_PROFILER] = "profiler_step",
	                                                        [NS_STEP_SOURCE_GPU_PROFILER] =
	                                                            "gpu_profiler_step",
	                                                        [NS_STEP_SOURCE_SERVER] = "server",
	                                                        [NS_STEP_SOURCE_MARKER] = "marker",
	                                                        [NS_STEP_SOURCE_PERIOD] = "period"};
	return (unsigned)s < NS_STEP_SOURCE_COUNT ? names[s] : "none";
}

const char *ns_step_phase_name(ns_step_phase p)
{
	static const char *const names[NS_STEP_PHASE_COUNT] = {[NS_STEP_PHASE_PREFILL] = "prefill",
	                                                       [NS_STEP_PHASE_DECODE] = "decode",
	                                                       [NS_STEP_PHASE_MIXED] = "mixed"};
	return (unsigned)p < NS_STEP_PHASE_COUNT ? names[p] : NULL;
}

/* ---- --step-marker ---- */

/* Read-only once made: the match data, which a match writes, belongs to each splitter. */
struct ns_step_marker {
	pcre2_code *re;
	pcre2_match_context *mctx;
};

void ns_step_marker_free(ns_step_marker *m)
{
	if (m == NULL)
		return;
	pcre2_match_context_free(m->mctx);
	pcre2_code_free(m->re);
	free(m);
}

ns_step_marker *ns_step_marker_new(const char *regex, ns_error *err)
{
	ns_step_marker *m = calloc(1, sizeof(*m));
	int code = 0;
	PCRE2_SIZE at = 0;

	if (m == NULL) {
		split_oom(err);
		return NULL;
	}
	m->re = pcre2_compile((PCRE2_SPTR)regex, PCRE2_ZERO_TERMINATED, PCRE2_NEVER_BACKSLASH_C, &code, &at,
	                      NULL);
	if (m->re == NULL) {
		PCRE2_UCHAR why[160];
		pcre2_get_error_message(code, why, sizeof(why));
		ns_error_set(err, NS_ERR_VALUE, "regex at offset %zu: %s", (size_t)at, (char *)why);
		ns_step_marker_free(m);
		return NULL;
	}
	(void)pcre2_jit_compile(m->re,
	                        PCRE2_JIT_COMPLETE); /* optional: the interpreter obeys the same limits */
	m->mctx = pcre2_match_context_create(NULL);
	if (m->mctx == NULL) {
		split_oom(err);
		ns_step_marker_free(m);
		return NULL;
	}
	pcre2_set_match_limit(m->mctx, MARKER_MATCH_LIMIT);
	pcre2_set_depth_limit(m->mctx, MARKER_DEPTH_LIMIT);
	pcre2_set_heap_limit(m->mctx, MARKER_HEAP_LIMIT_KIB);
	return m;
}

/* A regex that reaches a limit counts as not matching that name. */
/* 1 when the marker regex matches name, 0 when not, -1 when it reached its cost limit (whether the annotation
 * is a step cannot be told). */
static int marker_matches(const ns_trace_split *s, ns_str name)
{
	size_t len = name.len < MARKER_NAME_MAX ? name.len : MARKER_NAME_MAX;
	pcre2_match_data *md = s->marker_md;
	int rc = pcre2_match(s->marker->re, (PCRE2_SPTR)name.ptr, len, 0, 0, md, s->marker->mctx);

	return rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}

bool ns_trace_split_step_marker(ns_trace_split *s, const ns_step_marker *m)
{
	split_steps_free_marker(s);
	s->marker = m;
	if (m == NULL)
		return true;
	s->marker_md = pcre2_match_data_create(1, NULL);
	if (s->marker_md == NULL)
		s->marker = NULL;
	return s->marker_md != NULL;
}

void split_steps_free_marker(ns_trace_split *s)
{
	pcre2_match_data_free((pcre2_match_data *)s->marker_md);
	s->marker_md = NULL;
}

/* ---- inference-server iteration markers ---- */

/* Reads a decimal number at *i (advancing it); false when there is none. */
static bool read_count(ns_str n, size_t *i, long *v)
{
	size_t start = *i;

	*v = 0;
	while (*i < n.len && n.ptr[*i] >= '0' && n.ptr[*i] <= '9' && *v < 100000000L)
		*v = *v * 10 + (n.ptr[(*i)++] - '0');
	return *i > start;
}

static bool read_lit(ns_str n, size_t *i, const char *lit)
{
	size_t len = strlen(lit);

	if (n.len - *i < len || memcmp(n.ptr + *i, lit, len) != 0)
		return false;
	*i += len;
	return true;
}

static ns_step_phase phase_of(long prefill, long decode)
{
	if (prefill > 0 && decode > 0)
		return NS_STEP_PHASE_MIXED;
	return prefill > 0 ? NS_STEP_PHASE_PREFILL : decode > 0 ? NS_STEP_PHASE_DECODE : NS_STEP_PHASE_NONE;
}

/* "(...)": the token counts after a request count, whatever their spelling ("(512)", "(888_788544)"). */
static bool skip_parens(ns_str n, size_t *i)
{
	if (!read_lit(n, i, "("))
		return false;
	while (*i < n.len && n.ptr[*i] != ')')
		(*i)++;
	return read_lit(n, i, ")");
}

/* vLLM V1's worker, one annotation per iteration around execute_model:
 * "execute_[<tokens>_]context_<reqs>(...)_generation_<reqs>(...)" (current: "execute_context_1(888_788544)
 * _generation_0(0)", "execute_8192_context_9(...)_generation_37(...)"), "execute_new_<n>_cached_<m>"
 * (earlier: new requests are prefills, cached ones mostly decodes), and a plain "execute_model". */
static bool vllm_marker(ns_str n, uint8_t *phase, uint32_t *tokens)
{
	size_t i = 0;
	long ctx = 0, gen = 0, tok = 0;
	bool has_tok;

	if (!read_lit(n, &i, "execute_"))
		return false;
	has_tok = read_count(n, &i, &tok);
	if (has_tok && !read_lit(n, &i, "_"))
		return false; /* the batch's token count, then the requests */
	if (read_lit(n, &i, "context_")) {
		/* a spelling of the family this parser does not know is still an iteration: its phase
		 * unknown, but never left to period detection, which cuts one prefill into per-layer "steps"
		 */
		if (!read_count(n, &i, &ctx) || !skip_parens(n, &i) || !read_lit(n, &i, "_generation_") ||
		    !read_count(n, &i, &gen) || !skip_parens(n, &i))
			ctx = gen = 0;
	} else if (read_lit(n, &i, "new_")) {
		if (!read_count(n, &i, &ctx) || !read_lit(n, &i, "_cached_") || !read_count(n, &i, &gen) ||
		    i != n.len)
			return false;
	} else if (!(read_lit(n, &i, "model") && i == n.len)) {
		return false;
	}
	*phase = (uint8_t)phase_of(ctx, gen);
	/* The rows of the iteration's GEMMs: the token count where the marker gives it; in a decode-only
	 * iteration without it, one token per request (speculative decoding runs a few more). */
	*tokens = has_tok ? (uint32_t)tok : ctx == 0 ? (uint32_t)gen : 0;
	return true;
}

/* SGLang-style "step[<MODE> bs=<n>]": the forward mode names the phase (EXTEND and PREFILL are prefills,
 * MIXED a mixed batch, DECODE a decode; IDLE and the speculative modes say nothing). */
static bool sglang_marker(ns_str n, uint8_t *phase, uint32_t *tokens)
{
	static const struct {
		const char *mode;
		ns_step_phase phase;
	} modes[] = {{"EXTEND", NS_STEP_PHASE_PREFILL}, {"PREFILL", NS_STEP_PHASE_PREFILL},
	             {"DECODE", NS_STEP_PHASE_DECODE},  {"MIXED", NS_STEP_PHASE_MIXED},
	             {"extend", NS_STEP_PHASE_PREFILL}, {"prefill", NS_STEP_PHASE_PREFILL},
	             {"decode", NS_STEP_PHASE_DECODE},  {"mixed", NS_STEP_PHASE_MIXED}};
	size_t i = 0, end;
	long bs = 0;

	if (!read_lit(n, &i, "step[") || n.len < 7 || n.ptr[n.len - 1] != ']')
		return false;
	*phase = NS_STEP_PHASE_NONE;
	for (end = i; end < n.len - 1 && n.ptr[end] != ' ' && n.ptr[end] != ']'; end++)
		;
	for (size_t k = 0; k < sizeof(modes) / sizeof(modes[0]); k++)
		if (end - i == strlen(modes[k].mode) && memcmp(n.ptr + i, modes[k].mode, end - i) == 0)
			*phase = (uint8_t)modes[k].phase;
	/* " bs=<n>": the batch's requests, one token each in a decode */
	for (i = end; i + 4 < n.len && !(n.ptr[i] == ' ' && memcmp(n.ptr + i + 1, "bs=", 3) == 0); i++)
		;
	i += 4;
	*tokens = *phase == NS_STEP_PHASE_DECODE && read_count(n, &i, &bs) ? (uint32_t)bs : 0;
	return true;
}

bool split_steps_annotation(ns_trace_split *s, ns_str name, span_info *si, ns_status *st, ns_error *err)
{
	uint8_t phase = NS_STEP_PHASE_NONE;
	uint32_t tokens = 0;
	int marker = s->marker != NULL ? marker_matches(s, name) : 0;

	if (marker < 0) {
		/* Counted as no match, the steps would silently lose this one; each further name could cost
		 * as much again, so the first stops the input. */
		*st = ns_error_set(
		    err, NS_ERR_LIMIT,
		    "--step-marker's regex reached its cost limit on an annotation of %zu bytes: "
		    "whether it is a step cannot be told (use a simpler regex)",
		    name.len);
		return true;
	}
	if (marker > 0) {
		si->ns_step_source = NS_STEP_SOURCE_MARKER;
	} else if (name.len > 0 && ((name.ptr[0] == 'e' && vllm_marker(name, &phase, &tokens)) ||
	                            (name.ptr[0] == 's' && sglang_marker(name, &phase, &tokens)))) {
		si->ns_step_source = NS_STEP_SOURCE_SERVER;
	} else {
		return false;
	}
	si->kind = SK_STEP;
	si->phase = phase;
	si->tokens = tokens;
	si->step = -1; /* numbered in time order once chosen */
	/* interned now: a B event's name is gone by its E */
	*st = ns_kernel_names_intern(s->marker_names, name.ptr, name.len, &si->name_id, err);
	return true;
}

/* ---- choosing the source ---- */

static int cmp_i64_key(const void *a, const void *b)
{
	return ns_cmp_i64(a, b);
}

/* The processes that launched device work (those of the threads a launch call names), sorted, each once;
 * NULL with *n 0 when none. From the threads' flags (note_launch() in split_ingest.c), not a pass over the
 * launches: a trace has millions of launches and a few threads. */
static int64_t *launching_pids(const ns_trace_split *s, size_t *n)
{
	int64_t *pid;
	size_t k = 0;

	*n = 0;
	if (s->nthreads == 0 || (pid = malloc(s->nthreads * sizeof(*pid))) == NULL)
		return NULL; /* out of memory: no marker is ignored, which is what happened before */
	for (size_t i = 0; i < s->nthreads; i++)
		if (s->thread[i].launched)
			pid[k++] = s->thread[i].pid;
	ns_sort(pid, k, sizeof(*pid), cmp_i64_key);
	for (size_t i = 0; i < k; i++)
		if (*n == 0 || pid[*n - 1] != pid[i])
			pid[(*n)++] = pid[i];
	return pid;
}

/* Host markers of a process that launched no device work (a data-loader worker, a second process that only
 * annotates) cannot delimit the device's steps: they are dropped and counted. Only when the trace records
 * launches at all: without runtime events nothing says who launched what. */
static void drop_idle_process_markers(ns_trace_split *s, ns_split_result *res)
{
	size_t npid, out = 0;
	int64_t *pid;

	if (split_launch_count(s) == 0 || s->ngpu == 0)
		return;
	pid = launching_pids(s, &npid);
	if (pid == NULL)
		return;
	for (size_t i = 0; i < s->nsteps; i++) {
		step_rec *r = &s->steps[i];
		int64_t p = s->thread[r->thread].pid;
		if (r->source != NS_STEP_SOURCE_GPU_PROFILER &&
		    ns_bsearch(&p, pid, npid, sizeof(p), cmp_i64_key) == NULL) {
			if (res->ignored_step_markers++ == 0)
				res->ignored_step_pid = p;
			continue;
		}
		s->steps[out++] = *r;
	}
	s->nsteps = out;
	free(pid);
}

/* Moves the records of source src out of s->steps into a side list (kept for phases or GPU ends). */
static ns_status keep_aside(ns_trace_split *s, uint8_t src, step_list *side, ns_error *err)
{
	for (size_t i = 0; i < s->nsteps; i++) {
		if (s->steps[i].source != src)
			continue;
		void *grown = ns_grow(side->v, &side->cap, side->n + 1, sizeof(*side->v));
		if (grown == NULL)
			return split_oom(err);
		side->v = grown;
		side->v[side->n++] = s->steps[i];
	}
	return NS_OK;
}

ns_status split_steps_choose(ns_trace_split *s, ns_split_result *res, ns_error *err)
{
	static const uint8_t order[] = {NS_STEP_SOURCE_MARKER, NS_STEP_SOURCE_PROFILER,
	                                NS_STEP_SOURCE_GPU_PROFILER, NS_STEP_SOURCE_SERVER};
	size_t count[NS_STEP_SOURCE_COUNT] = {0}, out = 0;
	uint8_t src = NS_STEP_SOURCE_NONE;
	ns_status st = NS_OK;

	drop_idle_process_markers(s, res);
	for (size_t i = 0; i < s->nsteps; i++)
		count[s->steps[i].source]++;
	for (size_t k = 0; k < sizeof(order) && src == NS_STEP_SOURCE_NONE; k++)
		if (count[order[k]] > 0)
			src = order[k];
	/* Server markers inside ProfilerStep# spans still say each step's phase; GPU-side ProfilerStep# spans
	 * say where each host step's work ended on the device. */
	if (src != NS_STEP_SOURCE_SERVER && count[NS_STEP_SOURCE_SERVER] > 0)
		st = keep_aside(s, NS_STEP_SOURCE_SERVER, &s->phase_marks, err);
	if (st == NS_OK && src == NS_STEP_SOURCE_PROFILER && count[NS_STEP_SOURCE_GPU_PROFILER] > 0)
		st = keep_aside(s, NS_STEP_SOURCE_GPU_PROFILER, &s->gpu_marks, err);
	for (size_t i = 0; i < s->nsteps; i++)
		if (s->steps[i].source == src)
			s->steps[out++] = s->steps[i];
	s->nsteps = out;
	s->ns_step_source = src;
	res->ns_step_source = (ns_step_source)src;
	return st;
}

bool split_steps_on_device(const ns_trace_split *s)
{
	return s->ns_step_source == NS_STEP_SOURCE_GPU_PROFILER || s->ns_step_source == NS_STEP_SOURCE_PERIOD;
}

static int cmp_rec_start(const void *a, const void *b)
{
	const step_rec *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* Steps without a number of their own (markers) are numbered in time order; server markers nested in the
 * chosen steps give them their phase (the first one starting inside a step). */
void split_steps_finish_markers(ns_trace_split *s)
{
	step_list *pm = &s->phase_marks;
	size_t k = 0;

	if (s->ns_step_source == NS_STEP_SOURCE_SERVER || s->ns_step_source == NS_STEP_SOURCE_MARKER)
		for (size_t i = 0; i < s->nsteps; i++)
			s->steps[i].number = (int64_t)i;
	ns_sort(pm->v, pm->n, sizeof(*pm->v), cmp_rec_start);
	for (size_t i = 0; i < s->nsteps; i++) {
		step_rec *r = &s->steps[i];
		while (k < pm->n && pm->v[k].start < r->start)
			k++;
		if (k < pm->n && pm->v[k].start <= r->end && r->phase == NS_STEP_PHASE_NONE) {
			r->phase = pm->v[k].phase;
			r->tokens = pm->v[k].tokens;
		}
	}
}

/* ---- period detection ---- */

typedef struct {
	uint64_t hash;
	size_t len;
} stretch;

static int cmp_stretch(const void *a, const void *b)
{
	const stretch *x = a, *y = b;
	if (x->hash != y->hash)
		return (x->hash > y->hash) - (x->hash < y->hash);
	return (x->len > y->len) - (x->len < y->len);
}

/* How many of the k-1 stretches between the occurrences pos[0..k) equal the most common one, and its length.
 */
static size_t most_common_stretch(const uint32_t *seq, const size_t *pos, size_t k, stretch *st, size_t *len)
{
	size_t best = 0, run = 0;

	for (size_t j = 0; j + 1 < k; j++) {
		uint64_t h = 1469598103934665603u;
		for (size_t i = pos[j]; i < pos[j + 1]; i++)
			h = (h ^ seq[i]) * 1099511628211u;
		st[j] = (stretch){h, pos[j + 1] - pos[j]};
	}
	ns_sort(st, k - 1, sizeof(*st), cmp_stretch);
	for (size_t j = 0; j + 1 < k; j++) {
		run = j > 0 && cmp_stretch(&st[j], &st[j - 1]) == 0 ? run + 1 : 1;
		if (run > best) {
			best = run;
			*len = st[j].len;
		}
	}
	return best;
}

/* Whether id anchors a period: its stretches are mostly one sequence of at least two events, and the
 * iterations cover at least half of the sequence. */
static bool try_anchor(const uint32_t *seq, size_t n, uint32_t id, size_t k, size_t *pos, stretch *st,
                       ns_step_period *out)
{
	size_t m = 0, len = 0;

	for (size_t i = 0; i < n && m < k; i++)
		if (seq[i] == id)
			pos[m++] = i;
	k = m;
	m = most_common_stretch(seq, pos, k, st, &len);
	if (m < 2 || 4 * m < 3 * (k - 1) || len < 2 || 2 * (pos[k - 1] - pos[0] + len) < n)
		return false;
	*out = (ns_step_period){id, len, pos[0], k, m};
	return true;
}

/* Up to NS_STEP_PERIOD_CANDIDATES ids seen at least NS_STEP_PERIOD_MIN_ITERATIONS times, fewest first, then
 * by first appearance. */
static size_t pick_candidates(const uint32_t *seq, size_t n, size_t nids, uint32_t *count, uint32_t *cand)
{
	size_t nc = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t id = seq[i], c;
		size_t at;
		if (id >= nids || (count[id] & 0x80000000u) || count[id] < NS_STEP_PERIOD_MIN_ITERATIONS)
			continue;
		c = count[id];
		count[id] |= 0x80000000u; /* considered */
		for (at = nc; at > 0 && (count[cand[at - 1]] & 0x7fffffffu) > c; at--)
			;
		if (at >= NS_STEP_PERIOD_CANDIDATES)
			continue;
		if (nc < NS_STEP_PERIOD_CANDIDATES)
			nc++;
		memmove(cand + at + 1, cand + at, (nc - 1 - at) * sizeof(*cand));
		cand[at] = id;
	}
	return nc;
}

bool ns_step_period_find(const uint32_t *seq, size_t n, size_t nids, ns_step_period *out, bool *nomem)
{
	uint32_t *count, cand[NS_STEP_PERIOD_CANDIDATES];
	size_t nc, *pos = NULL;
	stretch *st = NULL;
	bool found = false;

	*nomem = false;
	if (n < 2 * NS_STEP_PERIOD_MIN_ITERATIONS || nids == 0)
		return false;
	count = calloc(nids, sizeof(*count));
	if (count == NULL) {
		*nomem = true;
		return false;
	}
	for (size_t i = 0; i < n; i++)
		if (seq[i] < nids && count[seq[i]] < 0x7fffffffu)
			count[seq[i]]++;
	nc = pick_candidates(seq, n, nids, count, cand);
	for (size_t c = 0; c < nc && !found; c++) {
		size_t k = count[cand[c]] & 0x7fffffffu;
		size_t *p = realloc(pos, k * sizeof(*pos));
		stretch *s2 = realloc(st, k * sizeof(*st));
		if (p != NULL)
			pos = p;
		if (s2 != NULL)
			st = s2;
		if (p == NULL || s2 == NULL) {
			*nomem = true;
			break;
		}
		found = try_anchor(seq, n, cand[c], k, pos, st, out);
	}
	free(pos);
	free(st);
	free(count);
	return found;
}

/* The device with the most GPU records: g sorted by (device, start), its range returned. */
static size_t busiest_device(const ns_trace_split *s, size_t *first)
{
	size_t best = 0;

	*first = 0;
	for (size_t i = 0; i < s->ngpu;) {
		size_t j = i;
		while (j < s->ngpu && split_gpu_dev(&s->gpu[j]) == split_gpu_dev(&s->gpu[i]))
			j++;
		if (j - i > best) {
			best = j - i;
			*first = i;
		}
		i = j;
	}
	return best;
}

/* The iterations must hold at least half of the device's busy span in time too: a short loop after seconds of
 * start-up (a benchmark's few iterations behind context creation and allocation) is not what the trace is,
 * and the whole-trace window says so (start-up) rather than a verdict on the loop alone. */
static bool covers_half(const ns_trace_split *s, const gpu_rec *g, size_t n, const ns_step_period *p)
{
	int64_t lo = split_gpu_start(s, &g[0]), hi = split_gpu_end(s, &g[0]), a = 0, b = 0;
	size_t last = p->first;

	for (size_t i = 0; i < n; i++) {
		int64_t end = split_gpu_end(s, &g[i]);
		hi = end > hi ? end : hi;
		if (split_gpu_name(&g[i]) == p->anchor)
			last = i;
	}
	a = split_gpu_start(s, &g[p->first]);
	for (size_t i = last; i < n && i < last + p->period; i++) {
		int64_t end = split_gpu_end(s, &g[i]);
		b = end > b ? end : b;
	}
	return (double)(b - a) >= 0.5 * (double)(hi - lo);
}

static ns_status period_steps(ns_trace_split *s, const gpu_rec *g, size_t n, const ns_step_period *p,
                              ns_error *err)
{
	size_t last = 0;

	for (size_t i = p->first; i < n; i++) {
		if (split_gpu_name(&g[i]) != p->anchor)
			continue;
		int64_t number = (int64_t)s->nsteps;
		void *grown = ns_grow(s->steps, &s->capsteps, s->nsteps + 1, sizeof(*s->steps));
		if (grown == NULL)
			return split_oom(err);
		s->steps = grown;
		step_rec r = {.start = split_gpu_start(s, &g[i]),
		              .end = split_gpu_end(s, &g[i]),
		              .number = number,
		              .name_id = p->anchor,
		              .source = NS_STEP_SOURCE_PERIOD,
		              .phase = NS_STEP_PHASE_NONE};
		s->steps[s->nsteps++] = r;
		last = i;
	}
	/* The last iteration ends with the end of its period's events (what follows is not a whole
	 * iteration). */
	for (size_t i = last; i < n && i < last + p->period; i++) {
		int64_t end = split_gpu_end(s, &g[i]);
		if (end > s->steps[s->nsteps - 1].end)
			s->steps[s->nsteps - 1].end = end;
	}
	return NS_OK;
}

ns_status split_steps_period(ns_trace_split *s, ns_split_result *res, ns_error *err)
{
	size_t first, n = busiest_device(s, &first);
	uint32_t *seq;
	ns_step_period p;
	bool nomem, found;
	ns_status st = NS_OK;

	if (n == 0)
		return NS_OK;
	seq = malloc(n * sizeof(*seq));
	if (seq == NULL)
		return split_oom(err);
	for (size_t i = 0; i < n; i++)
		seq[i] = split_gpu_name(&s->gpu[first + i]);
	found = ns_step_period_find(seq, n, ns_kernel_names_count(s->names), &p, &nomem);
	free(seq);
	if (nomem)
		return split_oom(err);
	if (found && !covers_half(s, s->gpu + first, n, &p))
		found = false;
	if (found) {
		s->nsteps = 0;
		st = period_steps(s, s->gpu + first, n, &p, err);
		s->ns_step_source = NS_STEP_SOURCE_PERIOD;
		res->ns_step_source = NS_STEP_SOURCE_PERIOD;
		res->has_steps = true;
	}
	return st;
}

/* ---- steps that hold still ---- */

static int cmp_rec_number(const void *a, const void *b)
{
	const step_rec *x = a, *y = b;
	return (x->number > y->number) - (x->number < y->number);
}

/* GPU-side ProfilerStep#N spans end where step N's work ended on the device. Used when the host steps are
 * numbered in increasing order (the profiler's own numbering), matched by number. */
static void gpu_marks_ends(const ns_trace_split *s, int64_t *end)
{
	const step_list *gm = &s->gpu_marks;

	for (size_t i = 1; i < s->nsteps; i++)
		if (s->steps[i].number <= s->steps[i - 1].number)
			return;
	for (size_t i = 0; i < gm->n; i++) {
		const step_rec *hit =
		    ns_bsearch(&gm->v[i], s->steps, s->nsteps, sizeof(*s->steps), cmp_rec_number);
		size_t k;
		if (hit == NULL)
			continue;
		k = (size_t)(hit - s->steps);
		if (gm->v[i].end > end[k])
			end[k] = gm->v[i].end;
	}
}

ns_status split_steps_hold_begin(ns_trace_split *s, step_hold *h, ns_error *err)
{
	memset(h, 0, sizeof(*h));
	h->steps = s->steps;
	h->n = s->nsteps;
	h->active = !split_steps_on_device(s);
	if (!h->active)
		return NS_OK;
	h->gpu_end = malloc(s->nsteps * sizeof(*h->gpu_end));
	h->gpu_first = malloc(s->nsteps * sizeof(*h->gpu_first));
	if (h->gpu_end == NULL || h->gpu_first == NULL) {
		free(h->gpu_end);
		free(h->gpu_first);
		return split_oom(err);
	}
	for (size_t i = 0; i < s->nsteps; i++) {
		h->gpu_end[i] = INT64_MIN;
		h->gpu_first[i] = INT64_MAX;
	}
	gpu_marks_ends(s, h->gpu_end);
	return NS_OK;
}

/* The step whose host window [start, next start) holds t (the last: [start, end]); h->n when none. GPU work
 * comes mostly in launch order, so the previous answer is tried first. */
static size_t host_step_of(step_hold *h, int64_t t)
{
	size_t lo = 0, hi = h->n, k = h->last;

	if (k + 1 < h->n && h->steps[k].start <= t && t < h->steps[k + 1].start)
		return k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->steps[mid].start <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || (lo == h->n && t > h->steps[h->n - 1].end))
		return h->n;
	h->last = lo - 1;
	return lo - 1;
}

bool split_is_gemm_kernel(ns_trace_split *s, uint32_t id)
{
	if (id >= s->ngemm_name) {
		size_t need = (size_t)id + 1;
		uint8_t *v = ns_grow(s->gemm_name, &s->capgemm_name, need, 1);
		if (v == NULL)
			return false; /* out of memory: the kernel keeps its class */
		memset(v + s->ngemm_name, 0, need - s->ngemm_name);
		s->gemm_name = v;
		s->ngemm_name = need;
	}
	if (s->gemm_name[id] == 0) {
		const char *family = NULL, *name = ns_kernel_names_get(s->names, id);
		if (name != NULL)
			(void)ns_kernel_table_classify(name, &family);
		s->gemm_name[id] = family != NULL && strcmp(family, "gemm") == 0 ? 1 : 2;
	}
	return s->gemm_name[id] == 1;
}

/* A decode iteration's GEMMs have as many rows (M) as the iteration has tokens. With M at most
 * SMALL_M_ROWS a GEMM does about M FLOPs per byte of weight it reads (2MNK FLOPs over 2NK bytes in 16 bits),
 * below the ridge point of every device in the table (V100 fp16: 139 FLOP/B; H100 bf16: 295; MI300X: 247):
 * it is bound by reading its weights, so its time counts toward decode's memory route (batch more sequences,
 * quantise the weights), not toward compute's (docs/trace.md, "Inference"). */
#define SMALL_M_ROWS 64

static void small_m_decode_gemm(ns_trace_split *s, const step_rec *step, gpu_rec *g)
{
	if (step->phase != NS_STEP_PHASE_DECODE || step->tokens == 0 || step->tokens > SMALL_M_ROWS ||
	    split_gpu_kind(g) != GK_COMPUTE || !split_is_gemm_kernel(s, split_gpu_name(g)))
		return;
	uint8_t dev = split_gpu_dev(g);
	split_gpu_set_kind(g, GK_MEMORY);
	s->small_m_gemm[dev]++;
	s->small_m_gemm_ns[dev] =
	    ns_sat_add_i64(s->small_m_gemm_ns[dev], split_gpu_end(s, g) - split_gpu_start(s, g));
}

void split_steps_place(ns_trace_split *s, step_hold *h, gpu_rec *g, int64_t launch_ts)
{
	size_t k;

	if (!h->active)
		return;
	k = host_step_of(h, launch_ts >= 0 ? launch_ts : split_gpu_start(s, g));
	if (k == h->n) {
		s->outside_gpu[split_gpu_dev(g)]++;
		s->outside_gpu_ns[split_gpu_dev(g)] = ns_sat_add_i64(
		    s->outside_gpu_ns[split_gpu_dev(g)], split_gpu_end(s, g) - split_gpu_start(s, g));
		split_gpu_set_dev(g, GPU_DEV_OUTSIDE);
		return;
	}
	small_m_decode_gemm(s, &h->steps[k], g);
	/* Without a known launch, work belongs to the window it starts in; only the last window grows for it.
	 */
	if (launch_ts < 0 && k + 1 < h->n)
		return;
	if (split_gpu_end(s, g) > h->gpu_end[k])
		h->gpu_end[k] = split_gpu_end(s, g);
	if (launch_ts >= 0 && split_gpu_start(s, g) < h->gpu_first[k])
		h->gpu_first[k] = split_gpu_start(s, g);
}

/* Moves the records set to GPU_DEV_OUTSIDE behind the others, each part keeping its order. The devices' pass
 * sorts the records by (device, start); GPU_DEV_OUTSIDE is the largest device, so records that arrived in
 * order stay in order and that sort is only a check, where one record outside the steps would otherwise make
 * it sort millions. Without memory for the few outside records, the sort does the work. */
static void outside_records_last(ns_trace_split *s)
{
	size_t nout = 0, j = 0, k = 0;
	gpu_rec *out;

	for (size_t d = 0; d < NS_TRACE_MAX_DEVICES; d++)
		nout += (size_t)s->outside_gpu[d];
	if (nout == 0 || (out = malloc(nout * sizeof(*out))) == NULL)
		return;
	for (size_t i = 0; i < s->ngpu; i++) {
		if (split_gpu_dev(&s->gpu[i]) == GPU_DEV_OUTSIDE && k < nout)
			out[k++] = s->gpu[i];
		else
			s->gpu[j++] = s->gpu[i];
	}
	memcpy(s->gpu + j, out, k * sizeof(*out));
	free(out);
}

/* Steps found on the device (a repeating kernel sequence, GPU-side ProfilerStep# spans) cover
 * [first, last) without a gap; GPU work that starts before the first or from the last one's end on (the
 * set-up before a detected loop, a prefill before the decode iterations, a tail) is in no window. It is
 * counted as outside, as work launched outside host steps is, instead of vanishing from the report. */
static void outside_device_steps(ns_trace_split *s, int64_t first, int64_t last)
{
	for (size_t i = 0; i < s->ngpu; i++) {
		gpu_rec *g = &s->gpu[i];
		if (split_gpu_dev(g) == GPU_DEV_OUTSIDE ||
		    (split_gpu_start(s, g) >= first && split_gpu_start(s, g) < last))
			continue;
		s->outside_gpu[split_gpu_dev(g)]++;
		s->outside_gpu_ns[split_gpu_dev(g)] = ns_sat_add_i64(
		    s->outside_gpu_ns[split_gpu_dev(g)], split_gpu_end(s, g) - split_gpu_start(s, g));
		split_gpu_set_dev(g, GPU_DEV_OUTSIDE);
	}
}

/* Window k+1 starts at host step k+1's start, or later while the device still runs step k's work, but no
 * later than the first GPU work of step k+1 (on another stream it may overlap step k's tail). Rewrites the
 * steps' starts; returns the end of the last window. */
int64_t split_steps_hold_end(ns_trace_split *s, step_hold *h)
{
	int64_t at = s->steps[0].start, last = s->steps[s->nsteps - 1].end;

	for (size_t k = 0; k < s->nsteps; k++) {
		int64_t next = k + 1 < s->nsteps ? s->steps[k + 1].start : last;
		s->steps[k].start = at;
		if (h->active) {
			int64_t tail = h->gpu_end[k];
			if (k + 1 < s->nsteps && h->gpu_first[k + 1] < tail)
				tail = h->gpu_first[k + 1];
			next = tail > next ? tail : next;
		}
		at = next > at ? next : at;
	}
	free(h->gpu_end);
	free(h->gpu_first);
	h->gpu_end = h->gpu_first = NULL;
	if (!h->active)
		outside_device_steps(s, s->steps[0].start, at);
	outside_records_last(s);
	return at;
}

/* ---- phases ---- */

void split_steps_sum_phases(ns_split_device *d, bool keep_warmup)
{
	split_view v = split_device_view(d);
	bool every = v.n > 0, all; /* as in split_sum_overall: the steps that count in overall */

	memset(d->phase_sum, 0, sizeof(d->phase_sum));
	memset(d->phase_steps, 0, sizeof(d->phase_steps));
	for (size_t i = 0; i < v.n && every; i++)
		every = split_view_get(&v, i)->warmup;
	all = every || keep_warmup;
	for (size_t i = 0; i < v.n; i++) {
		const ns_split_window *w = split_view_get(&v, i);
		ns_split_window *p =
		    &d->phase_sum[w->phase < NS_STEP_PHASE_COUNT ? w->phase : NS_STEP_PHASE_NONE];
		if (w->warmup && !all)
			continue;
		if (d->phase_steps[w->phase]++ == 0) {
			p->start_ns = w->start_ns;
			p->step = -1;
			p->marker = UINT32_MAX;
		}
		split_add_window(p, w);
	}
}
