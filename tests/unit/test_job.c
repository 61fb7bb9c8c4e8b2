#define _POSIX_C_SOURCE 200809L
/* Whole jobs (issue 12): rank summaries and the merger on small hand-made ranks whose answers are derived by
 * hand in each case's comment. Each step of a made rank is D long; its collective starts after the rank's
 * compute c and ends at E into the step on every rank (true time), fully exposed; the rank's clock reads true
 * time + its offset. So a rank waits max(c) - c per step, and its non-comm step time is D - E + c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nextstep/html.h"
#include "nextstep/job.h"
#include "nextstep/job_report.h"

#define MS 1000000LL

typedef struct {
	int64_t rank;
	int64_t offset_ns;  /* clock offset */
	int64_t compute_ns; /* per step, before the collective */
	int64_t jitter_ns;  /* added to the end of every other collective (inconsistent clocks) */
	int nsteps;
	int skip_first; /* collectives missing at the start of the capture */
	bool with_seq;
	const char *name_of_second; /* overrides the second collective's name */
} rank_spec;

static const int64_t D = 20 * MS, E = 15 * MS;

/* A rank whose step i computes compute_of_step[i] (NULL: s->compute_ns in every step) and starts kernels
 * kernels. */
static ns_job_rank *make_rank_steps(const rank_spec *s, const int64_t *compute_of_step, long kernels)
{
	ns_job_rank *k = calloc(1, sizeof(*k));
	ns_job_device *d;

	ck_assert_ptr_nonnull(k);
	k->has_rank = true;
	k->rank = s->rank;
	k->world_size = 0;
	k->file = strdup("made");
	k->dev = calloc(1, sizeof(*k->dev));
	k->ndev = 1;
	d = &k->dev[0];
	d->id = s->rank;
	d->steps = calloc((size_t)s->nsteps, sizeof(*d->steps));
	d->coll = calloc((size_t)s->nsteps, sizeof(*d->coll));
	d->nsteps = (size_t)s->nsteps;
	for (int i = 0; i < s->nsteps; i++) {
		ns_split_window *w = &d->steps[i];
		int64_t t = (int64_t)i * D + s->offset_ns;
		int64_t compute = compute_of_step != NULL ? compute_of_step[i] : s->compute_ns;
		int64_t jitter = i % 2 ? s->jitter_ns : -s->jitter_ns;
		w->step = i;
		w->start_ns = t;
		w->dur_ns = D;
		w->bucket_ns[NS_REGIME_COMPUTE] = compute;
		w->bucket_ns[NS_REGIME_COMM] = E - compute + jitter;
		w->bucket_ns[NS_REGIME_IDLE] = D - E - jitter;
		w->cause_ns[NS_CAUSE_EXPOSED] = w->bucket_ns[NS_REGIME_COMM];
		w->cause_ns[NS_CAUSE_HOST_GAP] = w->bucket_ns[NS_REGIME_IDLE];
		w->kernels = kernels;
		d->overall.kernels += kernels;
		d->overall.dur_ns += D;
		for (int b = 0; b < NS_REGIME_COUNT; b++)
			d->overall.bucket_ns[b] += w->bucket_ns[b];
		for (int c = 0; c < NS_CAUSE_COUNT; c++)
			d->overall.cause_ns[c] += w->cause_ns[c];
		if (i < s->skip_first)
			continue;
		ns_split_collective *c = &d->coll[d->ncoll++];
		c->start_ns = t + compute;
		c->end_ns = t + E + jitter;
		c->step = i;
		c->seq = s->with_seq ? 100 + i : -1;
		c->in_nelems = 4096;
		c->out_nelems = 4096;
		snprintf(c->name, sizeof(c->name), "%s",
		         i == 1 && s->name_of_second != NULL ? s->name_of_second : "allreduce");
		snprintf(c->group, sizeof(c->group), "0");
		c->piece[0] = (ns_split_piece){c->start_ns, c->end_ns, c->end_ns - c->start_ns};
		c->npieces = 1;
		c->exposed_ns = c->end_ns - c->start_ns;
	}
	d->overall.step = -1;
	d->overall.start_ns = s->offset_ns;
	return k;
}

static ns_job_rank *make_rank(const rank_spec *s)
{
	return make_rank_steps(s, NULL, 0);
}

static ns_job_result *merge(const rank_spec *specs, size_t n)
{
	ns_job_merge *m = ns_job_merge_new();
	ns_job_result *res = NULL;
	ns_error err;

	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(ns_job_merge_add(m, make_rank(&specs[i]), &err), NS_OK);
	ck_assert_int_eq(ns_job_merge_finish(m, &res, &err), NS_OK);
	ns_job_merge_free(m);
	return res;
}

static const ns_job_rank_result *rank_of(const ns_job_result *res, int64_t rank)
{
	for (size_t i = 0; i < res->nranks; i++)
		if (res->rank[i].src->rank == rank)
			return &res->rank[i];
	ck_abort_msg("rank %lld missing", (long long)rank);
	return NULL;
}

/* Clock offsets: ends agree in true time, so each offset is exactly the shift given (rank 0 the reference).
 */
START_TEST(offsets_are_the_shift_of_each_rank_clock)
{
	rank_spec s[] = {{0, 0, 10 * MS, 0, 4, 0, false, NULL},
	                 {1, 1000 * 1000, 10 * MS, 0, 4, 0, false, NULL},
	                 {2, -250 * 1000 + 7, 10 * MS, 0, 4, 0, false, NULL}};
	ns_job_result *res = merge(s, 3);

	ck_assert(res->split);
	ck_assert_int_eq(rank_of(res, 1)->offset_ns, 1000 * 1000);
	ck_assert_int_eq(rank_of(res, 2)->offset_ns, -250 * 1000 + 7);
	ck_assert_int_eq(res->matched, 4);
	ns_job_result_free(res);
}
END_TEST

/* Waiting: rank 1 computes 13 ms, the others 10 ms. Ranks 0 and 2 wait 3 ms a step in each collective (4
 * steps: 12 ms); their transfer is the remaining E - 13 ms = 2 ms a step. Rank 1 waits for nobody. */
START_TEST(waiting_is_the_time_before_the_last_rank_starts)
{
	rank_spec s[] = {{0, 0, 10 * MS, 0, 4, 0, false, NULL},
	                 {1, 5 * MS, 13 * MS, 0, 4, 0, false, NULL},
	                 {2, -3 * MS, 10 * MS, 0, 4, 0, false, NULL}};
	ns_job_result *res = merge(s, 3);
	const ns_job_rank_result *r0 = rank_of(res, 0), *r1 = rank_of(res, 1), *r2 = rank_of(res, 2);

	ck_assert(res->split);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(r0->step_wait_ns[i], 3 * MS);
		ck_assert_int_eq(r2->step_wait_ns[i], 3 * MS);
		ck_assert_int_eq(r1->step_wait_ns[i], 0);
	}
	ck_assert_int_eq(r0->overall.cause_ns[NS_CAUSE_WAIT], 12 * MS);
	ck_assert_int_eq(r0->overall.cause_ns[NS_CAUSE_COMM_TRANSFER], 8 * MS);
	ck_assert_int_eq(r0->overall.cause_ns[NS_CAUSE_EXPOSED], 0);
	ck_assert_int_eq(r1->overall.cause_ns[NS_CAUSE_WAIT], 0);
	ck_assert_int_eq(r1->overall.cause_ns[NS_CAUSE_COMM_TRANSFER], 8 * MS);
	ck_assert_int_eq(r0->waited_for, 1);
	ck_assert_int_eq(r1->waited_for, -1);
	ns_job_result_free(res);
}
END_TEST

/* The straggler rule (> 10 % and > 2 ms of non-comm time above the other ranks' median), table-driven: the
 * non-comm time is D - E + c = 5 ms + c. */
typedef struct {
	const char *what;
	int64_t normal_compute, slow_compute;
	bool straggler;
} straggler_case;

static const straggler_case straggler_cases[] = {
    {"3 ms over 15 ms (20 %): a straggler", 10 * MS, 13 * MS, true},
    {"1.5 ms over 15 ms (10 %): under both", 10 * MS, 11 * MS + 500 * 1000, false},
    {"2.1 ms over 15 ms (14 %): a straggler", 10 * MS, 12 * MS + 100 * 1000, true},
    {"equal ranks: none", 10 * MS, 10 * MS, false},
};

START_TEST(a_straggler_is_well_above_the_other_ranks_median)
{
	const straggler_case *c = &straggler_cases[_i];
	rank_spec s[] = {{0, 0, c->normal_compute, 0, 3, 0, false, NULL},
	                 {1, 0, c->normal_compute, 0, 3, 0, false, NULL},
	                 {2, 0, c->slow_compute, 0, 3, 0, false, NULL},
	                 {3, 0, c->normal_compute, 0, 3, 0, false, NULL}};
	ns_job_result *res = merge(s, 4);

	ck_assert_msg(res->nstrag == (c->straggler ? 1u : 0u), "%s: %zu stragglers", c->what, res->nstrag);
	if (c->straggler) {
		ck_assert_int_eq(res->strag[0].rank, 2);
		ck_assert_int_eq(res->strag[0].bucket, NS_REGIME_COMPUTE);
		ck_assert_int_eq(res->strag[0].excess_ns, c->slow_compute - c->normal_compute);
		ck_assert(rank_of(res, 2)->straggler);
	}
	ns_job_result_free(res);
}
END_TEST

/* Two ranks: each is compared with the other (the median of the others), so the slow one is named. */
START_TEST(two_ranks_name_the_slower_one)
{
	rank_spec s[] = {{0, 0, 13 * MS, 0, 3, 0, false, NULL}, {1, 0, 10 * MS, 0, 3, 0, false, NULL}};
	ns_job_result *res = merge(s, 2);

	ck_assert_int_eq(res->nstrag, 1);
	ck_assert_int_eq(res->strag[0].rank, 0);
	ck_assert_int_eq(rank_of(res, 1)->step_wait_ns[0], 3 * MS);
	ns_job_result_free(res);
}
END_TEST

/* A name that differs at the same position: the match fails and the split is refused, saying why. */
START_TEST(a_mismatched_collective_refuses_the_split)
{
	rank_spec s[] = {{0, 0, 10 * MS, 0, 4, 0, false, NULL}, {1, 0, 10 * MS, 0, 4, 0, false, "allgather"}};
	ns_job_result *res = merge(s, 2);

	ck_assert(!res->split);
	ck_assert_int_eq(res->mismatches, 1);
	ck_assert_ptr_nonnull(strstr(res->why_not, "do not match"));
	ck_assert_ptr_nonnull(strstr(res->mismatch, "allgather"));
	ck_assert_ptr_null(rank_of(res, 0)->step_wait_ns);
	ns_job_result_free(res);
}
END_TEST

/* Ends that disagree by +-1 ms around the offset: the median deviation (1 ms) passes 50 us, refused. */
START_TEST(inconsistent_clocks_refuse_the_split)
{
	rank_spec s[] = {{0, 0, 10 * MS, 0, 6, 0, false, NULL},
	                 {1, 2 * MS, 10 * MS, 1 * MS, 6, 0, false, NULL}};
	ns_job_result *res = merge(s, 2);

	ck_assert(!res->split);
	ck_assert_ptr_nonnull(strstr(res->why_not, "cannot be aligned"));
	ns_job_result_free(res);
}
END_TEST

/* Rank 1's capture misses the first collective. With Seq the k-th collectives still match (offset exact,
 * 3 ms of waiting on rank 0 in steps 1-3, none in step 0 where only rank 0 has one). By order alone, rank 1's
 * first collective would pair with rank 0's first, one step earlier, and the ends would agree on an offset of
 * exactly one step: the step numbers tell the pairing is wrong, and the split is refused. */
START_TEST(seq_numbers_match_captures_that_start_apart)
{
	rank_spec with[] = {{0, 0, 10 * MS, 0, 4, 0, true, NULL}, {1, 0, 13 * MS, 0, 4, 1, true, NULL}};
	rank_spec without[] = {{0, 0, 10 * MS, 0, 4, 0, false, NULL}, {1, 0, 13 * MS, 0, 4, 1, false, NULL}};
	ns_job_result *res = merge(with, 2);

	ck_assert(res->split);
	ck_assert_int_eq(rank_of(res, 1)->offset_ns, 0);
	ck_assert_int_eq(rank_of(res, 0)->step_wait_ns[0], 0);
	ck_assert_int_eq(rank_of(res, 0)->step_wait_ns[1], 3 * MS);
	ck_assert_int_eq(rank_of(res, 0)->step_wait_ns[3], 3 * MS);
	ns_job_result_free(res);
	res = merge(without, 2);
	ck_assert(!res->split);
	ck_assert_ptr_nonnull(strstr(res->why_not, "runs in step 1 on rank 1 but in step 0 on rank 0"));
	ns_job_result_free(res);
}
END_TEST

START_TEST(one_rank_has_no_straggler_and_no_split)
{
	rank_spec s[] = {{0, 0, 10 * MS, 0, 3, 0, false, NULL}};
	ns_job_result *res = merge(s, 1);

	ck_assert_int_eq(res->nstrag, 0);
	ck_assert(!res->split);
	ck_assert_ptr_nonnull(strstr(res->why_not, "one rank"));
	ns_job_result_free(res);
}
END_TEST

START_TEST(a_rank_given_twice_without_a_number_or_of_another_job_is_refused)
{
	rank_spec s = {3, 0, 10 * MS, 0, 2, 0, false, NULL};
	ns_job_merge *m = ns_job_merge_new();
	ns_job_rank *none = make_rank(&s);
	ns_error err;

	ck_assert_int_eq(ns_job_merge_add(m, make_rank(&s), &err), NS_OK);
	ck_assert_int_eq(ns_job_merge_add(m, make_rank(&s), &err), NS_ERR_VALUE);
	ck_assert_ptr_nonnull(strstr(err.msg, "rank 3 again"));
	none->has_rank = false;
	ck_assert_int_eq(ns_job_merge_add(m, none, &err), NS_ERR_VALUE);
	ck_assert_int_eq(ns_job_merge_count(m), 1);
	s.rank = 4;
	none = make_rank(&s);
	none->world_size = 8; /* the first has none: no conflict */
	ck_assert_int_eq(ns_job_merge_add(m, none, &err), NS_OK);
	s.rank = 5;
	none = make_rank(&s);
	none->world_size = 16;
	ck_assert_int_eq(ns_job_merge_add(m, none, &err), NS_ERR_VALUE);
	ck_assert_ptr_nonnull(strstr(err.msg, "two jobs are mixed"));
	ck_assert_int_eq(ns_job_merge_count(m), 2);
	ns_job_merge_free(m);
}
END_TEST

/* The NDJSON form reads back to the same summary: written again, the line is identical. */
START_TEST(a_summary_line_reads_back_to_the_same_summary)
{
	rank_spec s = {5, 123456789012345678LL, 10 * MS, 0, 3, 0, true, NULL};
	ns_job_rank *k = make_rank(&s), *back = NULL;
	char *line = ns_job_rank_to_ndjson(k), *again;
	ns_error err;

	ck_assert_ptr_nonnull(line);
	ck_assert_int_eq(ns_job_rank_from_ndjson(line, strlen(line), &back, &err), NS_OK);
	again = ns_job_rank_to_ndjson(back);
	ck_assert_str_eq(line, again);
	ck_assert_int_eq(back->dev[0].coll[2].start_ns, k->dev[0].coll[2].start_ns); /* past 2^53, exact */
	ck_assert_int_eq(back->dev[0].coll[2].seq, 102);
	free(line);
	free(again);
	ns_job_rank_free(k);
	ns_job_rank_free(back);
}
END_TEST

/* Another tool may write the keys in another order: with "t0" last and "nextstep_summary" after "devices",
 * the times (offsets read before their t0, which is past 2^53) are the same, and the line written again is
 * the one nextstep writes. */
START_TEST(a_summary_with_its_keys_in_another_order_reads_the_same)
{
	rank_spec s = {5, 123456789012345678LL, 10 * MS, 0, 3, 0, true, NULL};
	ns_job_rank *k = make_rank(&s), *back = NULL;
	char *line = ns_job_rank_to_ndjson(k), *moved, *again;
	const char *t0 = strstr(line, ",\"t0\":"), *devices = strstr(line, "\"devices\":");
	size_t n = strlen(line), head = (size_t)(strchr(line, ',') - line);
	ns_error err;

	ck_assert_ptr_nonnull(t0);
	ck_assert_ptr_nonnull(devices);
	moved = malloc(n + 8);
	/* {"rank":...,"file":"..." + ,"devices":[...] + ,"t0":"..." + ,"nextstep_summary":1} */
	snprintf(moved, n + 8, "{%.*s,%.*s%.*s,%.*s}", (int)(t0 - line - head - 1), line + head + 1,
	         (int)(line + n - 1 - devices), devices, (int)(devices - t0 - 1), t0, (int)head - 1,
	         line + 1);
	ck_assert_uint_eq(strlen(moved), n);
	ck_assert_int_eq(ns_job_rank_from_ndjson(moved, strlen(moved), &back, &err), NS_OK);
	again = ns_job_rank_to_ndjson(back);
	ck_assert_str_eq(line, again);
	ck_assert_int_eq(back->dev[0].coll[2].start_ns, k->dev[0].coll[2].start_ns);
	free(line);
	free(moved);
	free(again);
	ns_job_rank_free(k);
	ns_job_rank_free(back);
}
END_TEST

/* Another tool may write the summary: its file and device names are kept as UTF-8, each byte that begins no
 * character (0xff, 0xfe) written back as U+FFFD (EF BF BD), so the job's JSON report stays UTF-8. */
START_TEST(names_in_a_summary_that_are_not_utf8_are_kept_with_replacement_characters)
{
	static const char line[] =
	    "{\"nextstep_summary\":1,\"rank\":0,\"file\":\"r\xff.json\",\"t0\":\"0\",\"devices\":[{"
	    "\"device\":0,"
	    "\"name\":\"G\xfePU\",\"overall\":{\"step\":-1,\"start\":0,\"dur\":10,\"b\":[10,0,0,0,0,0],"
	    "\"hidden\":0,\"kernels\":1},\"steps\":[],\"collectives\":[]}]}";
	ns_job_rank *k = NULL;
	char *again;
	ns_error err;

	ck_assert_int_eq(ns_job_rank_from_ndjson(line, strlen(line), &k, &err), NS_OK);
	again = ns_job_rank_to_ndjson(k);
	ck_assert_ptr_nonnull(again);
	ck_assert_msg(strstr(again, "\"file\":\"r\xef\xbf\xbd.json\"") != NULL, "%s", again);
	ck_assert_msg(strstr(again, "\"name\":\"G\xef\xbf\xbdPU\"") != NULL, "%s", again);
	free(again);
	ns_job_rank_free(k);
}
END_TEST

typedef struct {
	const char *line;
	ns_status status;
	const char *msg; /* a part of the message */
} bad_line;

/* A summary of one good device whose evidence is E. */
#define EVIDENCE(E)                                                                                          \
	"{\"nextstep_summary\":1,\"rank\":0,\"t0\":\"0\",\"devices\":[{\"device\":0,\"overall\":{\"step\":-" \
	"1,"                                                                                                 \
	"\"start\":0,\"dur\":1,\"b\":[1,0,0,0,0,0],\"hidden\":0,\"kernels\":0},\"steps\":[],"                \
	"\"collectives\":[],"                                                                                \
	"\"evidence\":" E "}]}"

static const bad_line bad_lines[] = {
    {"{\"rank\":0}", NS_ERR_VALUE, "not a nextstep summary"},
    {"{\"nextstep_summary\":2,\"rank\":0}", NS_ERR_VALUE, "version 2"},
    {"{\"nextstep_summary\":1,\"rank\":0,\"t0\":\"0\",\"devices\":[{\"device\":0,\"overall\":{\"step\":-1,"
     "\"start\":0,\"dur\":10,\"b\":[1,2,3,4,5,6],\"hidden\":0,\"kernels\":0},\"steps\":[],\"collectives\":[]}"
     "]}",
     NS_ERR_VALUE, "do not sum to dur"},
    {"{\"nextstep_summary\":1,\"rank\":-4,\"t0\":\"0\",\"devices\":[]}", NS_ERR_VALUE, "out of range"},
    {"{\"nextstep_summary\":1,\"rank\":0,\"t0\":\"x\",\"devices\":[]}", NS_ERR_VALUE, "\"t0\""},
    {"{\"nextstep_summary\":1,\"rank\":0,\"t0\":\"0\",\"devices\":[{\"device\":0,\"overall\":{\"step\":-1,"
     "\"start\":0,\"dur\":1,\"b\":[1,0,0,0,0,0],\"c\":{\"comm.nope\":1},\"hidden\":0,\"kernels\":0}}]}",
     NS_ERR_VALUE, "unknown cause"},
    {"{\"nextstep_summary\":1, \"rank\": [", NS_ERR_SYNTAX, "malformed"},
    /* a value error before the version key: not a summary; a wrong value then bad JSON: bad JSON */
    {"{\"rank\":\"x\",\"nextstep_summary\":1}", NS_ERR_VALUE, "not a nextstep summary"},
    {"{\"nextstep_summary\":1,\"rank\":\"x\",\"t0\":}", NS_ERR_SYNTAX, "malformed JSON"},
    {"{\"nextstep_summary\":1,\"rank\":0,\"rank\":1,\"t0\":\"0\",\"devices\":[]}", NS_ERR_KEY,
     "\"rank\": repeated key"},
    {"{\"nextstep_summary\":1,\"rank\":01,\"t0\":\"0\",\"devices\":[]}", NS_ERR_SYNTAX, "malformed JSON"},
    {"{\"nextstep_summary\":1,\"rank\":0,\"t0\":\"0\"}", NS_ERR_VALUE, "\"devices\": missing"},
    /* t0 comes last: its times are checked against it when it is known */
    {"{\"nextstep_summary\":1,\"rank\":0,\"devices\":[{\"device\":0,\"overall\":{\"step\":-1,\"start\":10,"
     "\"dur\":1,\"b\":[1,0,0,0,0,0],\"hidden\":0,\"kernels\":0},\"steps\":[],\"collectives\":[]}],"
     "\"t0\":\"9223372036854775800\"}",
     NS_ERR_VALUE, "\"t0\": a time out of range from it"},
    /* the evidence of a device's routes (docs/job.md, "Rank summaries"): wrong types, huge numbers, parts
     * larger than their whole */
    {EVIDENCE("[]"), NS_ERR_VALUE, "\"evidence\": not an object"},
    {EVIDENCE("{\"frames\":1}"), NS_ERR_VALUE, "\"evidence\".\"frames\": not true or false"},
    {EVIDENCE("{\"capture\":1e300}"), NS_ERR_VALUE, "\"evidence\".\"capture\": not a non-negative integer"},
    {EVIDENCE("{\"capture\":-1}"), NS_ERR_VALUE, "\"evidence\".\"capture\": not a non-negative integer"},
    {EVIDENCE("{\"kernels\":{\"compute\":18014398509481984}}"), NS_ERR_VALUE,
     "\"evidence\".\"compute\": not a non-negative integer"},
    {EVIDENCE("{\"kernels\":{\"memory\":1,\"layout\":2}}"), NS_ERR_VALUE,
     "\"evidence\".\"layout\": more than the memory kernels' time"},
    {EVIDENCE("{\"kernels\":{\"compute\":1,\"fp32\":2}}"), NS_ERR_VALUE,
     "\"evidence\".\"fp32\": more than the compute kernels' time"},
    {EVIDENCE("{\"collectives\":{\"exposed\":1,\"tp\":2}}"), NS_ERR_VALUE,
     "\"evidence\".\"tp\": more than the collectives' exposed time"},
    {EVIDENCE("{\"kernels\":[1]}"), NS_ERR_VALUE, "\"evidence\".\"kernels\": not an object"},
    {EVIDENCE("{\"python\":{\"idle.host_gap\":{\"frames\":[[\"a\",1],[\"b\",1],[\"c\",1],[\"d\",1]]}}}"),
     NS_ERR_LIMIT, "more than 3 frames"},
    {EVIDENCE("{\"python\":{\"idle.host_gap\":{\"frames\":[[1,\"a\"]]}}}"), NS_ERR_VALUE,
     "a frame is not [name, ns]"},
    {EVIDENCE("{\"python\":{\"overhead.launch\":{\"frames\":[[\"a\",-5]]}}}"), NS_ERR_VALUE,
     "\"evidence\".\"frames\": not a non-negative integer"},
    {EVIDENCE("{\"python\":{\"idle.host_gap\":{},\"idle.host_gap\":{}}}"), NS_ERR_KEY,
     "\"idle.host_gap\": repeated key"},
    {EVIDENCE("{\"nsys\":{\"program\":\"fortran\"}}"), NS_ERR_VALUE, "not python, native or unknown"},
    {EVIDENCE("{\"frames\":true,\"frames\":false}"), NS_ERR_KEY, "\"frames\": repeated key"},
    {EVIDENCE("{\"optimizer\":{\"class\":5}}"), NS_ERR_VALUE, "\"evidence\".\"class\": not a string"},
    {EVIDENCE("{\"optimizer\":{\"launch\":-5}}"), NS_ERR_VALUE,
     "\"evidence\".\"launch\": not a non-negative integer"},
    {EVIDENCE("{\"roof\":{\"compute\":{\"kernel\":700,\"placed\":700,\"roof\":560}}}"), NS_ERR_VALUE,
     "\"roof\".\"compute\": not every time given"},
    {EVIDENCE("{\"roof\":{\"compute\":{\"kernel\":700,\"placed\":700,\"roof\":800,\"own\":560,\"fp32\":0,"
              "\"fp8_roof\":280,\"fp8\":700}}}"),
     NS_ERR_VALUE, "\"roof\".\"compute\": a part is more than its whole"},
    {EVIDENCE("{\"roof\":{\"memory\":{\"kernel\":7,\"placed\":0,\"roof\":0,\"own\":0,\"fp32\":0,"
              "\"fp8_roof\":0,\"fp8\":0}}}"),
     NS_ERR_VALUE, "\"roof\".\"memory\": placed is not between 1 and the kernel time"},
    {EVIDENCE("{\"roof\":{\"compute\":5}}"), NS_ERR_VALUE, "\"roof\".\"compute\": not an object"},
    {EVIDENCE("{\"roof\":{\"memory\":{\"kernel\":7,\"placed\":7,\"roof\":7,\"own\":7,\"fp32\":0,"
              "\"fp8_roof\":7,\"fp8\":0},\"memory\":{}}}"),
     NS_ERR_KEY, "\"memory\": repeated key"},
};

/* Every key of a device's evidence reads back and is written again the same (the form is stable), a frame's
 * name with its escapes. */
START_TEST(a_summarys_evidence_reads_back_to_the_same_line)
{
	static const char ev[] =
	    "{\"frames\":true,\"compiled\":true,\"nsys\":{\"program\":\"python\",\"osrt\":true,"
	    "\"cpu_samples\":false,\"samples_read\":false,\"mpi\":true},\"capture\":7,\"python\":{"
	    "\"idle.host_gap\":{\"framed\":40,\"frames\":[[\"train.py(30): "
	    "train_step\",15],[\"a\\\"b\",12]]},"
	    "\"overhead.launch\":{\"framed\":10,\"frames\":[[\"model.py(8): forward\",10]]}},\"kernels\":{"
	    "\"memory\":70,\"layout\":50,\"compute\":60,\"fp32\":60},\"inference\":true,\"collectives\":{"
	    "\"exposed\":9,\"tp\":5},\"optimizer\":{\"class\":\"AdamW\",\"fused\":true,\"launch\":5},"
	    "\"roof\":{\"compute\":{\"kernel\":700,\"placed\":700,\"roof\":560,\"own\":560,\"fp32\":0,"
	    "\"fp8_roof\":280,\"fp8\":700}}}";
	char line[sizeof(ev) + 512], *again, *third;
	ns_job_rank *k = NULL, *back = NULL;
	ns_error err;

	snprintf(line, sizeof(line), EVIDENCE("%s"), ev);
	ck_assert_int_eq(ns_job_rank_from_ndjson(line, strlen(line), &k, &err), NS_OK);
	const ns_route_evidence *e = &k->dev[0].evidence;
	ck_assert(e->python_frames && e->compiled && e->nsys && e->inference && e->program.mpi);
	ck_assert_int_eq(e->program.kind, NS_PROGRAM_PYTHON);
	ck_assert_int_eq(e->python[NS_EVIDENCE_HOST_GAP].nframes, 2);
	ck_assert_str_eq(e->python[NS_EVIDENCE_HOST_GAP].frame[1].name, "a\"b");
	ck_assert_int_eq(e->fp32_ns, 60);
	ck_assert(e->optimizer_known && e->optimizer_fused);
	ck_assert_str_eq(e->optimizer, "AdamW");
	ck_assert_int_eq(k->dev[0].roof[NS_KCLASS_COMPUTE].state, NS_ROOF_PLACED);
	ck_assert_int_eq(k->dev[0].roof[NS_KCLASS_COMPUTE].fp8_roof_ns, 280);
	ck_assert_int_eq(k->dev[0].roof[NS_KCLASS_MEMORY].state, NS_ROOF_NOT_RUN);
	again = ns_job_rank_to_ndjson(k);
	ck_assert_ptr_nonnull(strstr(again, ev)); /* written in the same words, at the device's end */
	ck_assert_int_eq(ns_job_rank_from_ndjson(again, strlen(again), &back, &err), NS_OK);
	third = ns_job_rank_to_ndjson(back);
	ck_assert_str_eq(third, again);
	free(again);
	free(third);
	ns_job_rank_free(k);
	ns_job_rank_free(back);
}
END_TEST

START_TEST(a_bad_summary_line_is_a_located_error)
{
	const bad_line *c = &bad_lines[_i];
	ns_job_rank *k = NULL;
	ns_error err;

	ck_assert_int_eq(ns_job_rank_from_ndjson(c->line, strlen(c->line), &k, &err), c->status);
	ck_assert_ptr_null(k);
	ck_assert_msg(strstr(err.msg, c->msg) != NULL, "'%s' lacks '%s'", err.msg, c->msg);
	if (c->status == NS_ERR_SYNTAX)
		ck_assert_int_ge(err.offset, 0);
}
END_TEST

/* ---- a stream of summary lines ---- */

typedef struct {
	long lines[4];
	size_t n;
} bad_seen;

static void note_bad_line(void *ctx, const ns_error *err)
{
	bad_seen *b = ctx;

	if (b->n < 4)
		b->lines[b->n] = err->line;
	b->n++;
}

/* Lines 1 blank, 2 rank 0, 3 not a summary, 4 rank 0 again (refused by the merger), 5 blank with a CR, 6 rank
 * 1 without a final newline: two ranks merged, lines 3 and 4 told, and the reading goes on to the end. */
START_TEST(a_stream_of_summaries_merges_the_good_lines_and_tells_the_bad_ones)
{
	rank_spec s0 = {0, 0, 10 * MS, 0, 3, 0, false, NULL}, s1 = {1, 0, 10 * MS, 0, 3, 0, false, NULL};
	ns_job_rank *k0 = make_rank(&s0), *k1 = make_rank(&s1);
	char *l0 = ns_job_rank_to_ndjson(k0), *l1 = ns_job_rank_to_ndjson(k1),
	     path[] = "/tmp/nextstep-job-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	ns_job_merge *m = ns_job_merge_new();
	bad_seen bad = {{0}, 0};
	ns_input in;
	ns_error err;

	ck_assert_ptr_nonnull(f);
	fprintf(f, "\n%s\n{\"nextstep_summary\": 1}\n%s\n \r\n%s", l0, l0, l1);
	fclose(f);
	ns_error_clear(&err);
	ck_assert_int_eq(ns_input_open(&in, path, &err), NS_OK);
	ck_assert_int_eq(ns_job_merge_read(m, &in, note_bad_line, &bad, &err), NS_OK);
	ck_assert_uint_eq(ns_job_merge_count(m), 2);
	ck_assert_uint_eq(bad.n, 2);
	ck_assert_int_eq(bad.lines[0], 3);
	ck_assert_int_eq(bad.lines[1], 4);
	ns_input_close(&in);
	unlink(path);
	ns_job_merge_free(m);
	ns_job_rank_free(k0);
	ns_job_rank_free(k1);
	free(l0);
	free(l1);
}
END_TEST

/* What makes a straggler slow (docs/job.md, "Why a rank is slow"), table-driven. Four ranks of n steps; ranks
 * 0, 1 and 3 compute 10 ms and start 100 kernels a step, so their non-comm time is 5 + 10 = 15 ms. Rank 2
 * computes slow[i] ms in step i and starts `kernels` kernels; with host set, its 4 ms above the others are
 * moved from compute to overhead after the rank is made. Its median non-comm time is 5 + 14 = 19 ms in every
 * case: 4 ms (27 %) above the others' 15, a straggler. It is the slowest rank of a step only where it
 * computes more than 10 ms. */
typedef struct {
	const char *what;
	int nsteps;
	int64_t slow[10]; /* ms */
	long kernels;
	bool host;
	ns_job_straggler_kind kind;
	size_t slowest;
	double kernels_ratio;
} slow_rank_case;

static const slow_rank_case slow_rank_cases[] = {
    {"the same kernels, slower in every step: the device",
     5,
     {14, 14, 14, 14, 14},
     100,
     false,
     NS_STRAGGLER_DEVICE,
     5,
     1.0},
    {"130 kernels against 100 (1.30x): more work",
     5,
     {14, 14, 14, 14, 14},
     130,
     false,
     NS_STRAGGLER_WORK,
     5,
     1.3},
    {"104 kernels against 100 (1.04x, within 5 %): still the device",
     5,
     {14, 14, 14, 14, 14},
     104,
     false,
     NS_STRAGGLER_DEVICE,
     5,
     1.04},
    {"slower in 3 of 5 steps (60 % < 90 %): its inputs",
     5,
     {14, 14, 14, 10, 10},
     100,
     false,
     NS_STRAGGLER_INPUTS,
     3,
     1.0},
    {"slower in 9 of 10 steps (90 %): the device",
     10,
     {14, 14, 14, 14, 14, 14, 14, 14, 14, 10},
     100,
     false,
     NS_STRAGGLER_DEVICE,
     9,
     1.0},
    {"slow in overhead, not on the device: the host bucket's route",
     5,
     {14, 14, 14, 14, 14},
     100,
     true,
     NS_STRAGGLER_HOST,
     5,
     1.0},
};

/* Moves 4 ms a step of rank k's compute to overhead (launch). */
static void move_to_overhead(ns_job_rank *k)
{
	ns_job_device *d = &k->dev[0];

	for (size_t i = 0; i < d->nsteps; i++) {
		d->steps[i].bucket_ns[NS_REGIME_COMPUTE] -= 4 * MS;
		d->steps[i].bucket_ns[NS_REGIME_OVERHEAD] += 4 * MS;
		d->steps[i].cause_ns[NS_CAUSE_LAUNCH] += 4 * MS;
		d->overall.bucket_ns[NS_REGIME_COMPUTE] -= 4 * MS;
		d->overall.bucket_ns[NS_REGIME_OVERHEAD] += 4 * MS;
		d->overall.cause_ns[NS_CAUSE_LAUNCH] += 4 * MS;
	}
}

static ns_job_result *slow_rank_job(const slow_rank_case *c)
{
	ns_job_merge *m = ns_job_merge_new();
	ns_job_result *res = NULL;
	int64_t slow_ns[10];
	ns_error err;

	for (int i = 0; i < c->nsteps; i++)
		slow_ns[i] = c->slow[i] * MS;
	for (int64_t r = 0; r < 4; r++) {
		rank_spec s = {r, 0, 10 * MS, 0, c->nsteps, 0, false, NULL};
		ns_job_rank *k =
		    r == 2 ? make_rank_steps(&s, slow_ns, c->kernels) : make_rank_steps(&s, NULL, 100);
		if (r == 2 && c->host)
			move_to_overhead(k);
		ck_assert_int_eq(ns_job_merge_add(m, k, &err), NS_OK);
	}
	ck_assert_int_eq(ns_job_merge_finish(m, &res, &err), NS_OK);
	ns_job_merge_free(m);
	return res;
}

START_TEST(what_makes_a_straggler_slow_is_told_from_its_kernels_and_steps)
{
	const slow_rank_case *c = &slow_rank_cases[_i];
	ns_job_result *res = slow_rank_job(c);

	ck_assert_msg(res->nstrag == 1, "%s: %zu stragglers", c->what, res->nstrag);
	ck_assert_int_eq(res->strag[0].rank, 2);
	ck_assert_int_eq(res->strag[0].excess_ns, 4 * MS);
	ck_assert_msg(res->strag[0].kind == c->kind, "%s: kind %s", c->what,
	              ns_job_straggler_kind_name(res->strag[0].kind));
	ck_assert_msg(
	    res->strag[0].slowest_steps == c->slowest && res->strag[0].compared_steps == (size_t)c->nsteps,
	    "%s: slowest in %zu of %zu", c->what, res->strag[0].slowest_steps, res->strag[0].compared_steps);
	ck_assert_double_eq_tol(res->strag[0].kernels_ratio, c->kernels_ratio, 1e-9);
	ns_job_result_free(res);
}
END_TEST

/* ---- the report ---- */

/* Four ranks, rank 2 computing 13 ms a step and the others 10 ms: rank 2 is the straggler (compute, 13/20 =
 * 65 % of its step against 10/20 = 50 % on the others, 3 ms more a step); each other rank's 5 ms of exposed
 * comm (25 % of 20 ms) is 3 ms (15 %) waiting for rank 2 and 2 ms (10 %) transfer. */
static ns_job_result *straggler_job(void)
{
	rank_spec s[] = {{0, 0, 10 * MS, 0, 3, 0, false, NULL},
	                 {1, 0, 10 * MS, 0, 3, 0, false, NULL},
	                 {2, 0, 13 * MS, 0, 3, 0, false, NULL},
	                 {3, 0, 10 * MS, 0, 3, 0, false, NULL}};
	return merge(s, 4);
}

/* The report of res in kind, as text (caller frees). */
static char *report_of(const ns_job_result *res, ns_format_kind kind)
{
	ns_classify_options co;
	ns_routes routes;
	ns_format_options fo = {kind, false, false};
	ns_job_report_options o = {&co, &routes, &fo, NULL};
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	ns_error err;

	ck_assert_ptr_nonnull(out);
	ns_classify_options_default(&co);
	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	ck_assert_int_eq(ns_job_report_print(out, res, &o, &err), NS_OK);
	fclose(out);
	ns_routes_free(&routes);
	return text;
}

/* Collective names come from the summaries, other people's files: the reason a split is refused quotes them,
 * and the text report prints that reason with a tab as \t (ns_text_escape's rule), never the raw byte; the
 * JSON report carries the name as JSON escapes it. */
START_TEST(a_control_character_in_a_quoted_collective_name_is_escaped_in_the_text_report)
{
	rank_spec s[] = {{0, 0, 10 * MS, 0, 4, 0, false, NULL},
	                 {1, 0, 10 * MS, 0, 4, 0, false, "all\tgather"}};
	ns_job_result *res = merge(s, 2);
	char *text = report_of(res, NS_FORMAT_TEXT);

	ck_assert_msg(strstr(text, "not told apart: the collectives do not match across ranks: ") != NULL,
	              "%s", text);
	ck_assert_msg(strstr(text, " is all\\tgather of 4096 elements on rank 1 ") != NULL, "%s", text);
	ck_assert_ptr_null(strchr(text, '\t'));
	free(text);
	text = report_of(res, NS_FORMAT_JSON);
	ck_assert_msg(strstr(text, " is all\\tgather of 4096 elements on rank 1 ") != NULL, "%s", text);
	free(text);
	ns_job_result_free(res);
}
END_TEST

START_TEST(the_text_report_names_the_straggler_and_lists_it_first)
{
	ns_job_result *res = straggler_job();
	char *text = report_of(res, NS_FORMAT_TEXT), *row;
	static const char *const rows[] = {"     2 ", "     0 ", "     1 ", "     3 "}; /* outliers first */

	ck_assert_msg(
	    strncmp(text, "job (4 ranks): straggler-bound: rank 2, compute 65% vs median 50%", 65) == 0, "%s",
	    text);
	ck_assert_ptr_nonnull(row = strstr(text, "\n  rank "));
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ck_assert_ptr_nonnull(row = strchr(row + 1, '\n'));
		ck_assert_msg(strncmp(row + 1, rows[i], strlen(rows[i])) == 0, "row %zu: %.40s", i, row + 1);
	}
	ck_assert_ptr_nonnull(strstr(text,
	                             "\nrank 0 comm: 25% exposed = 15% waiting for rank 2 + 10% transfer -> "
	                             "waiting for rank 2 (compute): "));
	free(text);
	ns_job_result_free(res);
}
END_TEST

/* Issue 25: a straggler is the rank the others wait for. Rank 2 has 4 ms more non-comm time a step than the
 * others' median (19 against 15 ms: the old rule's straggler), but that time is host work after its
 * collective (moved from comm to overhead), so it starts each collective with ranks 0 and 3; rank 1 computes
 * 11 ms and starts every collective 1 ms after them, so all the waiting (1 ms a step on ranks 0, 2 and 3) is
 * for rank 1, none for rank 2: no straggler (rank 1's 1 ms is under the 2 ms floor). */
START_TEST(a_rank_nobody_waits_for_is_no_straggler)
{
	ns_job_merge *m = ns_job_merge_new();
	ns_job_result *res = NULL;
	ns_error err;

	for (int64_t r = 0; r < 4; r++) {
		rank_spec s = {r, 0, r == 1 ? 11 * MS : 10 * MS, 0, 5, 0, false, NULL};
		ns_job_rank *k = make_rank_steps(&s, NULL, 100);
		ns_job_device *d = &k->dev[0];
		for (size_t i = 0; r == 2 && i < d->nsteps; i++) {
			d->steps[i].bucket_ns[NS_REGIME_COMM] -= 4 * MS;
			d->steps[i].cause_ns[NS_CAUSE_EXPOSED] -= 4 * MS;
			d->steps[i].bucket_ns[NS_REGIME_OVERHEAD] += 4 * MS;
			d->steps[i].cause_ns[NS_CAUSE_LAUNCH] += 4 * MS;
			d->overall.bucket_ns[NS_REGIME_COMM] -= 4 * MS;
			d->overall.cause_ns[NS_CAUSE_EXPOSED] -= 4 * MS;
			d->overall.bucket_ns[NS_REGIME_OVERHEAD] += 4 * MS;
			d->overall.cause_ns[NS_CAUSE_LAUNCH] += 4 * MS;
		}
		ck_assert_int_eq(ns_job_merge_add(m, k, &err), NS_OK);
	}
	ck_assert_int_eq(ns_job_merge_finish(m, &res, &err), NS_OK);
	ns_job_merge_free(m);
	ck_assert(res->split);
	ck_assert_int_eq(rank_of(res, 2)->waited_on_ns, 0);
	ck_assert_int_eq(rank_of(res, 1)->waited_on_ns, 3 * 5 * MS);
	ck_assert_msg(res->nstrag == 0, "%zu stragglers, the first rank %ld", res->nstrag,
	              res->nstrag > 0 ? (long)res->strag[0].rank : -1L);
	ns_job_result_free(res);
}
END_TEST

/* A finding at exactly 20 % is graded high in a job as in the rank's own trace report: one grading
 * (ns_classify_profile) and the shares it is given the same. trace_old_style's buckets, 20, 40, 0, 110, 8 and
 * 22 us of a 200 us step: memory is 40/200 = 0.2, the high grade's threshold (NS_CLASSIFY_HIGH_DEFAULT). The
 * six quotients sum to 1 + 2^-52 in doubles (0.1 + 0.2 + 0 + 0.55 + 0.04 + 0.11); the job's median split used
 * to be scaled down by that sum, moving memory to 0.19999999999999998: moderate. Two equal ranks: the median
 * of each bucket is the rank's share. */
START_TEST(a_finding_at_exactly_20_percent_is_graded_high_in_the_job_as_in_the_trace)
{
	static const int64_t us[NS_REGIME_COUNT] = {20, 40, 0, 110, 8, 22};
	ns_job_merge *m = ns_job_merge_new();
	ns_job_result *res = NULL;
	ns_classify_options co;
	ns_verdict job, own;
	ns_profile p;
	ns_error err;
	char *json;

	ns_classify_options_default(&co);
	for (int64_t r = 0; r < 2; r++) {
		rank_spec spec = {r, 0, 10 * MS, 0, 1, 1, false, NULL}; /* one step, no collective */
		ns_job_rank *k = make_rank_steps(&spec, NULL, 2);
		ns_job_device *d = &k->dev[0];
		memset(d->steps[0].bucket_ns, 0, sizeof(d->steps[0].bucket_ns));
		memset(d->steps[0].cause_ns, 0, sizeof(d->steps[0].cause_ns));
		for (int b = 0; b < NS_REGIME_COUNT; b++)
			d->steps[0].bucket_ns[b] = us[b] * 1000;
		d->steps[0].dur_ns = 200 * 1000;
		d->overall = d->steps[0];
		d->overall.step = -1;
		ck_assert_int_eq(ns_job_merge_add(m, k, &err), NS_OK);
	}
	ck_assert_int_eq(ns_job_merge_finish(m, &res, &err), NS_OK);
	ns_job_merge_free(m);
	ck_assert(res->median.share[NS_REGIME_MEMORY] == 0.2);
	ns_classify_profile(&res->median, &co, &job);
	ns_split_window_profile(&res->rank[0].overall, &p);
	ns_classify_profile(&p, &co, &own);
	ck_assert_int_eq(job.regime, NS_REGIME_DATALOADER);
	ck_assert_int_eq(job.nfindings, own.nfindings);
	for (size_t i = 0; i < own.nfindings; i++) {
		ck_assert_int_eq(job.findings[i].regime, own.findings[i].regime);
		ck_assert_int_eq(job.findings[i].grade, own.findings[i].grade);
	}
	ck_assert_int_eq(job.findings[0].regime, NS_REGIME_MEMORY);
	ck_assert_int_eq(job.findings[0].grade, NS_GRADE_HIGH);
	json = report_of(res, NS_FORMAT_JSON);
	ck_assert_msg(strstr(json, "{\"regime\":\"memory\",\"share\":0.2,\"grade\":\"high\"}") != NULL, "%s",
	              json);
	free(json);
	ns_job_result_free(res);
}
END_TEST

/* A straggler that runs the same kernels slower in every step is routed to its device, with the evidence on
 * its line (the first case of slow_rank_cases: 1.00x the kernels, the slowest rank in 5 of 5 steps), and the
 * job's headline carries the same fix: fusing kernels would not make the other ranks wait less. */
START_TEST(a_straggler_on_a_slow_device_is_routed_to_the_device_not_to_its_kernels)
{
	ns_job_result *res = slow_rank_job(&slow_rank_cases[0]);
	char *text = report_of(res, NS_FORMAT_TEXT);

	ck_assert_msg(
	    strstr(text, "straggler: rank 2 - compute 70% vs median 50% (+4.000 ms of non-comm time a "
	                 "step; 1.00x the median rank's kernels a step; the slowest rank in 5 of 5 "
	                 "steps; 100% of the job's waiting is for it, the last to start 5 of 5 "
	                 "collectives) -> the same kernels run slower on this rank in every step") != NULL,
	    "%s", text);
	ck_assert_msg(strstr(text,
	                     "job (4 ranks): straggler-bound: rank 2, compute 70% vs median 50% -> the same "
	                     "kernels run slower") != NULL,
	              "%s", text);
	ck_assert_ptr_null(strstr(text, "fused kernel"));
	free(text);
	text = report_of(res, NS_FORMAT_JSON);
	ck_assert_msg(strstr(text, "\"kind\":\t\"device\"") != NULL ||
	                  strstr(text, "\"kind\":\"device\"") != NULL,
	              "%s", text);
	free(text);
	ns_job_result_free(res);
}
END_TEST

/* Computes of 5, 6, 7 and 3 ms: non-comm times of D - E + c = 10, 11, 12 and 8 ms, the median (the upper of
 * the two middle ones) 11 ms; no straggler (rank 2's 12 ms is 2 ms above the others' median of 10, not more).
 * Outliers first: rank 3 (3 ms away), ranks 0 and 2 (1 ms, by number), rank 1 (0). Every step is D long, so
 * "slowest first" (the page's old order) would have given 0, 1, 2, 3. The text's table, the JSON's ranks and
 * the HTML heat map list them in the one order. */
START_TEST(every_form_of_the_job_report_lists_the_ranks_in_one_order)
{
	rank_spec s[] = {{0, 0, 5 * MS, 0, 3, 0, false, NULL},
	                 {1, 0, 6 * MS, 0, 3, 0, false, NULL},
	                 {2, 0, 7 * MS, 0, 3, 0, false, NULL},
	                 {3, 0, 3 * MS, 0, 3, 0, false, NULL}};
	static const int64_t want[] = {3, 0, 2, 1};
	ns_job_result *res = merge(s, 4);
	const ns_job_rank_result **order = ns_job_ranks_in_order(res);
	char *text = report_of(res, NS_FORMAT_TEXT), *page = NULL, *at;
	size_t size = 0;
	FILE *f = open_memstream(&page, &size);
	ns_html_page_info info = {"job", "test", "now"};
	ns_html_page *p;
	ns_classify_options co;
	ns_routes routes;
	ns_format_options fo = {NS_FORMAT_TEXT, false, false};
	ns_job_report_options o = {&co, &routes, &fo, NULL};
	ns_job_report *m = malloc(sizeof(*m));
	ns_error err;

	ck_assert_uint_eq(res->nstrag, 0);
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(order[i]->src->rank, want[i]);
	free((void *)order);
	at = strstr(text, "\n  rank ");
	for (size_t i = 0; i < 4; i++) {
		char row[16];
		snprintf(row, sizeof(row), "\n     %d ", (int)want[i]);
		ck_assert_msg(at != NULL && (at = strstr(at + 1, row)) != NULL, "rank %d out of order:\n%s",
		              (int)want[i], text);
	}
	free(text);
	ns_error_clear(&err);
	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	ns_classify_options_default(&co);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(ns_job_report_build(res, &o, m, &err), NS_OK);
	ck_assert_ptr_nonnull(f);
	p = ns_html_page_begin(f, &info);
	ck_assert_int_eq(ns_html_job(p, res, m, &err), NS_OK);
	ns_job_report_free(m);
	free(m);
	ck_assert_int_eq(ns_html_page_end(p, &err), NS_OK);
	fclose(f);
	at = page;
	for (size_t i = 0; i < 4; i++) {
		char row[32];
		snprintf(row, sizeof(row), "data-rank=\"%d\"", (int)want[i]);
		ck_assert_msg((at = strstr(at, row)) != NULL, "page: rank %d out of order", (int)want[i]);
	}
	free(page);
	ns_routes_free(&routes);
	ns_job_result_free(res);
}
END_TEST

START_TEST(the_quiet_report_is_the_stragglers_bucket)
{
	ns_job_result *res = straggler_job();
	char *text = report_of(res, NS_FORMAT_QUIET);

	ck_assert_str_eq(text, "compute\n");
	free(text);
	ns_job_result_free(res);
}
END_TEST

START_TEST(the_json_report_puts_the_straggler_first)
{
	ns_job_result *res = straggler_job();
	char *text = report_of(res, NS_FORMAT_JSON);
	cJSON *doc = cJSON_Parse(text);
	const cJSON *job = cJSON_GetObjectItemCaseSensitive(doc, "job");
	const cJSON *strag = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(job, "stragglers"), 0);
	const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "ranks"), 0);

	ck_assert_ptr_nonnull(doc);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(job, "verdict")->valuestring, "straggler-bound");
	ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(job, "ranks")->valuedouble, 4);
	ck_assert_double_eq(cJSON_GetObjectItemCaseSensitive(strag, "excess_us")->valuedouble, 3000);
	ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(first, "rank")->valuedouble, 2);
	cJSON_Delete(doc);
	free(text);
	ns_job_result_free(res);
}
END_TEST

/* A rank whose trace had no device activity (its summary has no device) has nothing to route: its row says
 * so, as the trace report does, and its JSON verdict is null. It was "compute-bound (0%)", the classifier's
 * tie-break on six zero shares. */
START_TEST(a_rank_without_device_activity_has_nothing_to_route)
{
	rank_spec s[] = {{0, 0, 10 * MS, 0, 3, 0, false, NULL}, {2, 0, 10 * MS, 0, 3, 0, false, NULL}};
	ns_job_merge *m = ns_job_merge_new();
	ns_job_rank *idle = calloc(1, sizeof(*idle));
	ns_job_result *res = NULL;
	char *text, *json;
	cJSON *doc;
	const cJSON *ranks;
	ns_error err;

	ck_assert_ptr_nonnull(idle);
	idle->has_rank = true;
	idle->rank = 1;
	idle->quality = -1;
	idle->file = strdup("rank-1");
	for (size_t i = 0; i < 2; i++)
		ck_assert_int_eq(ns_job_merge_add(m, make_rank(&s[i]), &err), NS_OK);
	ck_assert_int_eq(ns_job_merge_add(m, idle, &err), NS_OK);
	ck_assert_int_eq(ns_job_merge_finish(m, &res, &err), NS_OK);
	ck_assert(!rank_of(res, 1)->routable);
	ck_assert(rank_of(res, 0)->routable);
	text = report_of(res, NS_FORMAT_TEXT);
	ck_assert_msg(strstr(text, "|                    | no device activity: nothing to route\n") != NULL,
	              "%s", text);
	ck_assert_ptr_null(strstr(text, "compute-bound (0%)"));
	json = report_of(res, NS_FORMAT_JSON);
	doc = cJSON_Parse(json);
	ranks = cJSON_GetObjectItemCaseSensitive(doc, "ranks");
	for (const cJSON *r = ranks != NULL ? ranks->child : NULL; r != NULL; r = r->next) {
		bool one = cJSON_GetObjectItemCaseSensitive(r, "rank")->valuedouble == 1;
		ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(r, "verdict")) == one);
	}
	cJSON_Delete(doc);
	free(json);
	free(text);
	ns_job_merge_free(m);
	ns_job_result_free(res);
}
END_TEST

START_TEST(a_failed_write_is_an_io_error)
{
	ns_job_result *res = straggler_job();
	ns_classify_options co;
	ns_routes routes;
	ns_format_options fo = {NS_FORMAT_TEXT, false, false};
	ns_job_report_options o = {&co, &routes, &fo, NULL};
	FILE *full = fopen("/dev/full", "w");
	ns_error err;

	ns_classify_options_default(&co);
	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	if (full != NULL) { /* else no /dev/full on this system */
		ns_error_clear(&err);
		ck_assert_int_eq(ns_job_report_print(full, res, &o, &err), NS_ERR_IO);
		fclose(full);
	}
	ns_routes_free(&routes);
	ns_job_result_free(res);
}
END_TEST

/* ---- one call per workflow ---- */

static const char *const job_dir[] = {"tests/data/job-dir/rank-0.json", "tests/data/job-dir/rank-1.json"};

/* A rank whose trace records shapes on a device of the table keeps its placed kernel classes, as `nextstep
 * trace` keeps them for the job: trace_fp8_gemms_train (its .expect.json works the numbers by hand) has 360
 * us of bf16 GEMMs, 277.795 us at the bf16 roof and 138.897 at the fp8 roof; without the table, none. */
START_TEST(a_rank_from_a_trace_with_shapes_keeps_its_placement)
{
	ns_trace_options *o = ns_trace_options_new();
	ns_job_rank *k = NULL;
	const ns_roof_time *t;
	ns_error err;

	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(ns_job_rank_from_trace("tests/data/trace_fp8_gemms_train.json", o, &k, &err), NS_OK);
	ck_assert_int_eq(k->dev[0].roof[NS_KCLASS_COMPUTE].state, NS_ROOF_NOT_RUN);
	ns_job_rank_free(k);
	ck_assert_int_eq(ns_trace_options_set_device_table(o, "data/devices.json", &err), NS_OK);
	ck_assert_int_eq(ns_job_rank_from_trace("tests/data/trace_fp8_gemms_train.json", o, &k, &err), NS_OK);
	t = &k->dev[0].roof[NS_KCLASS_COMPUTE];
	ck_assert_int_eq(t->state, NS_ROOF_PLACED);
	ck_assert_int_eq(t->placed_ns, 360000);
	ck_assert_int_eq(t->roof_ns, 277795);
	ck_assert_int_eq(t->fp8_roof_ns, 138897);
	ck_assert_int_eq(t->fp8_ns, 360000);
	ns_job_rank_free(k);
	ns_trace_options_free(o);
}
END_TEST

START_TEST(job_analyse_merges_the_rank_traces_of_a_job)
{
	ns_job_result *res = NULL;
	ns_error err;

	/* The fixture's distributedInfo: ranks 0 and 1 of a world of 2. */
	ck_assert_int_eq(ns_job_analyse(job_dir, 2, NULL, &res, &err), NS_OK);
	ck_assert_uint_eq(res->nranks, 2);
	ck_assert_int_eq(res->world_size, 2);
	ck_assert_int_eq(res->rank[0].src->rank, 0);
	ck_assert_int_eq(res->rank[1].src->rank, 1);
	ck_assert_str_eq(res->rank[1].src->file, job_dir[1]);
	ns_job_result_free(res);
}
END_TEST

START_TEST(job_summaries_of_the_traces_merge_to_the_same_job)
{
	char path[] = "/tmp/nextstep-job-XXXXXX";
	const char *paths[1] = {path};
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	ns_job_result *direct = NULL, *fromlines = NULL;
	ns_error err;

	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < 2; i++) {
		ns_job_rank *k = NULL;
		char *line;
		ck_assert_int_eq(ns_job_rank_from_trace(job_dir[i], NULL, &k, &err), NS_OK);
		line = ns_job_rank_to_ndjson(k);
		ck_assert_ptr_nonnull(line);
		fprintf(f, "%s\n", line);
		free(line);
		ns_job_rank_free(k);
	}
	fclose(f);
	ck_assert_int_eq(ns_job_analyse(job_dir, 2, NULL, &direct, &err), NS_OK);
	ck_assert_int_eq(ns_job_read_summaries(paths, 1, &fromlines, &err), NS_OK);
	ck_assert_uint_eq(fromlines->nranks, direct->nranks);
	ck_assert_int_eq(fromlines->wait_ns, direct->wait_ns);
	ck_assert_int_eq(fromlines->split, direct->split);
	ck_assert_uint_eq(fromlines->nstrag, direct->nstrag);
	for (size_t i = 0; i < fromlines->nranks; i++)
		ck_assert_int_eq(fromlines->rank[i].median_step_ns, direct->rank[i].median_step_ns);
	ns_job_result_free(direct);
	ns_job_result_free(fromlines);
	unlink(path);
}
END_TEST

START_TEST(job_analyse_names_the_trace_it_could_not_read)
{
	const char *paths[] = {"tests/data/job-dir/rank-0.json", "tests/data/no-such-rank.json"};
	ns_job_result *res = (ns_job_result *)1;
	ns_error err;

	ck_assert_int_eq(ns_job_analyse(paths, 2, NULL, &res, &err), NS_ERR_IO);
	ck_assert_ptr_null(res);
	ck_assert_msg(strncmp(err.msg, "tests/data/no-such-rank.json: cannot open", 41) == 0, "%s", err.msg);
}
END_TEST

START_TEST(job_summaries_stop_at_the_first_bad_line_and_say_where)
{
	char path[] = "/tmp/nextstep-job-XXXXXX";
	const char *paths[1] = {path};
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	ns_job_rank *k = NULL;
	ns_job_result *res = (ns_job_result *)1;
	char *line;
	ns_error err;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(ns_job_rank_from_trace(job_dir[0], NULL, &k, &err), NS_OK);
	line = ns_job_rank_to_ndjson(k);
	ck_assert_ptr_nonnull(line);
	fprintf(f, "%s\nnot a summary\n", line);
	fclose(f);
	ck_assert_int_ne(ns_job_read_summaries(paths, 1, &res, &err), NS_OK);
	ck_assert_ptr_null(res);
	ck_assert_int_eq(err.line, 2);
	ck_assert_msg(strncmp(err.msg, path, strlen(path)) == 0, "%s", err.msg);
	free(line);
	ns_job_rank_free(k);
	unlink(path);
}
END_TEST

static Suite *job_suite(void)
{
	Suite *s = suite_create("job");
	TCase *t = tcase_create("merge");

	tcase_add_test(t, offsets_are_the_shift_of_each_rank_clock);
	tcase_add_test(t, waiting_is_the_time_before_the_last_rank_starts);
	tcase_add_loop_test(t, a_straggler_is_well_above_the_other_ranks_median, 0,
	                    sizeof(straggler_cases) / sizeof(straggler_cases[0]));
	tcase_add_test(t, two_ranks_name_the_slower_one);
	tcase_add_loop_test(t, what_makes_a_straggler_slow_is_told_from_its_kernels_and_steps, 0,
	                    (int)(sizeof(slow_rank_cases) / sizeof(slow_rank_cases[0])));
	tcase_add_test(t, a_mismatched_collective_refuses_the_split);
	tcase_add_test(t, inconsistent_clocks_refuse_the_split);
	tcase_add_test(t, seq_numbers_match_captures_that_start_apart);
	tcase_add_test(t, one_rank_has_no_straggler_and_no_split);
	tcase_add_test(t, a_rank_nobody_waits_for_is_no_straggler);
	tcase_add_test(t, a_finding_at_exactly_20_percent_is_graded_high_in_the_job_as_in_the_trace);
	tcase_add_test(t, a_rank_given_twice_without_a_number_or_of_another_job_is_refused);
	suite_add_tcase(s, t);
	t = tcase_create("summary");
	tcase_add_test(t, a_summary_line_reads_back_to_the_same_summary);
	tcase_add_test(t, a_summarys_evidence_reads_back_to_the_same_line);
	tcase_add_test(t, a_summary_with_its_keys_in_another_order_reads_the_same);
	tcase_add_test(t, names_in_a_summary_that_are_not_utf8_are_kept_with_replacement_characters);
	tcase_add_loop_test(t, a_bad_summary_line_is_a_located_error, 0,
	                    sizeof(bad_lines) / sizeof(bad_lines[0]));
	tcase_add_test(t, a_stream_of_summaries_merges_the_good_lines_and_tells_the_bad_ones);
	suite_add_tcase(s, t);
	t = tcase_create("report");
	tcase_add_test(t, the_text_report_names_the_straggler_and_lists_it_first);
	tcase_add_test(t, a_control_character_in_a_quoted_collective_name_is_escaped_in_the_text_report);
	tcase_add_test(t, a_straggler_on_a_slow_device_is_routed_to_the_device_not_to_its_kernels);
	tcase_add_test(t, the_quiet_report_is_the_stragglers_bucket);
	tcase_add_test(t, every_form_of_the_job_report_lists_the_ranks_in_one_order);
	tcase_add_test(t, the_json_report_puts_the_straggler_first);
	tcase_add_test(t, a_rank_without_device_activity_has_nothing_to_route);
	tcase_add_test(t, a_failed_write_is_an_io_error);
	suite_add_tcase(s, t);
	t = tcase_create("workflow");
	tcase_add_test(t, job_analyse_merges_the_rank_traces_of_a_job);
	tcase_add_test(t, a_rank_from_a_trace_with_shapes_keeps_its_placement);
	tcase_add_test(t, job_summaries_of_the_traces_merge_to_the_same_job);
	tcase_add_test(t, job_analyse_names_the_trace_it_could_not_read);
	tcase_add_test(t, job_summaries_stop_at_the_first_bad_line_and_say_where);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(job_suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
