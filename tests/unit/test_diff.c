/* diff: the noise rule, step statistics, the fate of BEFORE's bottleneck, the gates, the dtype read from
 * kernel names, and the saved-report loader's located errors. Expected values are worked out by hand. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/diff.h"

/* ---- the noise rule ------------------------------------------------------------------------------ */

typedef struct {
	const char *name;
	double before[8];
	size_t nb;
	double after[8];
	size_t na;
	bool known, significant;
	double speedup; /* mean before / mean after, by hand */
} noise_case;

static const noise_case noise_cases[] = {
    {"identical_steps_are_not_a_change", {100, 102, 98, 100}, 4, {100, 102, 98, 100}, 4, true, false, 1.0},
    {"a_clear_speed_up_is_significant", {100, 102, 98, 100}, 4, {60, 61, 59, 60}, 4, true, true, 100.0 / 60},
    {"a_clear_slow_down_is_significant", {60, 61, 59, 60}, 4, {100, 102, 98, 100}, 4, true, true, 0.6},
    {"a_one_percent_shift_inside_ten_percent_jitter_is_not",
     {90, 110, 95, 105, 100, 100},
     6,
     {89, 109, 94, 104, 99, 99},
     6,
     true,
     false,
     600.0 / 594},
    {"one_outlier_step_widens_the_interval_past_one",
     {100, 100, 100, 300},
     4,
     {100, 100, 100, 100},
     4,
     true,
     false,
     1.5},
    {"constant_steps_leave_no_noise_so_any_change_counts",
     {50, 50, 50},
     3,
     {49, 49, 49},
     3,
     true,
     true,
     50.0 / 49},
    {"one_step_on_a_side_cannot_tell_noise_from_change", {100}, 1, {50, 50}, 2, false, false, 2.0},
};

START_TEST(noise_rule_follows_the_table)
{
	const noise_case *c = &noise_cases[_i];
	ns_diff_noise n;

	ns_diff_noise_judge(c->before, c->nb, c->after, c->na, &n);
	ck_assert_msg(n.known == c->known, "%s: known", c->name);
	ck_assert_msg(n.significant == c->significant, "%s: significant %d (interval %g-%g)", c->name,
	              n.significant, n.lo, n.hi);
	ck_assert_msg(fabs(n.speedup - c->speedup) < 1e-12, "%s: speedup %g", c->name, n.speedup);
	ck_assert_msg(n.lo <= n.speedup + 1e-12 || !n.known, "%s: interval below the estimate", c->name);
}
END_TEST

START_TEST(noise_rule_is_repeatable)
{
	const double b[] = {90, 110, 95, 105, 100}, a[] = {80, 99, 85, 96, 90};
	ns_diff_noise x, y;

	ns_diff_noise_judge(b, 5, a, 5, &x);
	ns_diff_noise_judge(b, 5, a, 5, &y);
	ck_assert(x.lo == y.lo && x.hi == y.hi && x.significant == y.significant);
	ck_assert(x.lo < x.speedup && x.speedup < x.hi);
}
END_TEST

START_TEST(step_stats_give_mean_median_and_range_in_ms)
{
	const double odd[] = {3000, 1000, 2000}, even[] = {4000, 1000, 3000, 2000};
	ns_diff_step_stats s;

	ns_diff_step_stats_of(odd, 3, &s);
	ck_assert(s.n == 3 && s.mean == 2.0 && s.median == 2.0 && s.min == 1.0 && s.max == 3.0);
	ns_diff_step_stats_of(even, 4, &s);
	ck_assert(s.mean == 2.5 && s.median == 2.5 && s.min == 1.0 && s.max == 4.0);
	ns_diff_step_stats_of(NULL, 0, &s);
	ck_assert(s.n == 0 && s.mean == 0);
}
END_TEST

/* ---- the comparison on hand-made sides ----------------------------------------------------------- */

/* A side of n equal steps of step_us with whole-run buckets in the given shares. */
static void make_side(ns_diff_side *s, size_t n, double step_us, const double share[NS_REGIME_COUNT])
{
	ns_diff_side_init(s);
	s->has_time = true;
	s->step_markers = true;
	s->nsteps = n;
	s->step_us = calloc(n, sizeof(double));
	ck_assert_ptr_nonnull(s->step_us);
	for (size_t i = 0; i < n; i++)
		s->step_us[i] = step_us * (1 + 0.01 * (double)(i % 3)); /* 0, +1%, +2% jitter */
	for (size_t i = 0; i < n; i++)
		s->dur_us += s->step_us[i];
	for (int r = 0; r < NS_REGIME_COUNT; r++) {
		s->bucket_us[r] = share[r] * s->dur_us;
		s->shares.share[r] = share[r];
		s->shares.present[r] = true;
	}
}

typedef struct {
	const char *name;
	double before[NS_REGIME_COUNT],
	    after[NS_REGIME_COUNT];     /* compute memory comm dataloader overhead idle */
	double before_step, after_step; /* µs */
	ns_diff_fate regime_fate;
	ns_diff_change change;
} fate_case;

static const fate_case fate_cases[] = {
    /* dataloader 45% of 100 ms = 45 ms -> 1% of 60 ms: under the 5% grade */
    {"a_bucket_under_the_moderate_grade_is_fixed",
     {0.35, 0.1, 0, 0.45, 0.05, 0.05},
     {0.60, 0.2, 0, 0.01, 0.09, 0.10},
     100000,
     60000,
     NS_FATE_FIXED,
     NS_DIFF_FASTER},
    /* memory 50% of 100 ms = 50 ms -> 40% of 80 ms = 32 ms: lost more than 10% of its time, still graded */
    {"a_bucket_that_lost_a_tenth_of_its_time_shrank",
     {0.3, 0.5, 0, 0, 0.1, 0.1},
     {0.375, 0.40, 0, 0, 0.125, 0.10},
     100000,
     80000,
     NS_FATE_SHRANK,
     NS_DIFF_FASTER},
    /* compute 60% of 100 ms = 60 ms -> 75% of 80 ms = 60 ms: its share rose only because the step shrank */
    {"a_larger_share_of_a_shorter_step_is_unchanged_time",
     {0.6, 0.2, 0, 0, 0.1, 0.1},
     {0.75, 0.05, 0, 0, 0.1, 0.1},
     100000,
     80000,
     NS_FATE_UNCHANGED,
     NS_DIFF_FASTER},
    /* overhead 50% of 100 ms -> 50% of 130 ms: 65 ms, 30% more */
    {"a_bucket_with_more_time_per_step_grew",
     {0.2, 0.2, 0, 0, 0.5, 0.1},
     {0.2, 0.2, 0, 0, 0.5, 0.1},
     100000,
     130000,
     NS_FATE_GREW,
     NS_DIFF_SLOWER},
};

START_TEST(the_fate_of_befores_regime_follows_the_table)
{
	const fate_case *c = &fate_cases[_i];
	ns_classify_options o;
	ns_diff_side b, a;
	ns_diff_result r;
	ns_error err;

	ns_classify_options_default(&o);
	make_side(&b, 6, c->before_step, c->before);
	make_side(&a, 6, c->after_step, c->after);
	ns_error_clear(&err);
	ck_assert_int_eq(ns_diff_compare(&b, &a, &o, &r, &err), NS_OK);
	ck_assert_msg(r.targets[0].was_regime, "%s", c->name);
	ck_assert_msg(r.targets[0].fate == c->regime_fate, "%s: fate %s", c->name,
	              ns_diff_fate_name(r.targets[0].fate));
	ck_assert_msg(r.change == c->change, "%s: change %s", c->name, ns_diff_change_name(r.change));
	ns_diff_result_free(&r);
	ns_diff_side_free(&b);
	ns_diff_side_free(&a);
}
END_TEST

START_TEST(gates_trip_only_on_a_significant_slowdown_above_the_limit)
{
	const double s[NS_REGIME_COUNT] = {0.6, 0.2, 0, 0, 0.1, 0.1},
	             t[NS_REGIME_COUNT] = {0.2, 0.6, 0, 0, 0.1, 0.1};
	ns_classify_options o;
	ns_diff_side b, a;
	ns_diff_result r;
	ns_error err;

	ns_classify_options_default(&o);
	make_side(&b, 6, 100000, s);
	make_side(&a, 6, 110000, t); /* 10% slower, 1-2% jitter: significant; compute -> memory */
	ck_assert_int_eq(ns_diff_compare(&b, &a, &o, &r, &err), NS_OK);
	ck_assert(r.change == NS_DIFF_SLOWER);
	ck_assert(ns_diff_gate_slower(&r, 5));
	ck_assert(!ns_diff_gate_slower(&r, 15));
	ck_assert(ns_diff_gate_regime(&r));
	ns_diff_result_free(&r);
	ck_assert_int_eq(ns_diff_compare(&b, &b, &o, &r, &err), NS_OK);
	ck_assert(r.change == NS_DIFF_NO_CHANGE && !ns_diff_gate_slower(&r, 0) && !ns_diff_gate_regime(&r));
	ns_diff_result_free(&r);
	ns_diff_side_free(&b);
	ns_diff_side_free(&a);
}
END_TEST

/* ---- dtype from kernel names --------------------------------------------------------------------- */

typedef struct {
	const char *name;
	const char *dtype; /* NULL: the name does not say */
} dtype_case;

static const dtype_case dtype_cases[] = {
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", "bf16"}, /* accumulator f32 after */
    {"volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn", "fp16"},
    {"volta_h884gemm_64x128_ldg8_nn", "fp16"},
    {"volta_scudnn_128x64_relu_interior_nn_v1", "fp32"},
    {"volta_sgemm_128x64_nt", "fp32"},
    {"ampere_tf32_s1688gemm_tf32_128x128_32x3_nn", "tf32"},
    {"sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn", "fp8"},
    {"cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>", NULL},
};

START_TEST(dtype_is_read_from_the_kernel_name)
{
	const dtype_case *c = &dtype_cases[_i];
	const char *got = ns_diff_dtype_of_name(c->name);

	ck_assert_msg(got == c->dtype || (got != NULL && c->dtype != NULL && strcmp(got, c->dtype) == 0),
	              "%s: got '%s'", c->name, got != NULL ? got : "(none)");
}
END_TEST

/* ---- the saved-report loader --------------------------------------------------------------------- */

typedef struct {
	const char *name;
	const char *text;
	ns_status status;
	const char *msg_start; /* the JSON path the message must start with */
} load_case;

#define WIN(dur, c)                                                                                          \
	"{\"dur_us\":" dur ",\"buckets_us\":{\"compute\":" c                                                 \
	",\"memory\":0,\"comm\":0,\"dataloader\":0,\"overhead\":0,\"idle\":0}}"

static const load_case load_cases[] = {
    {"a_minimal_report_loads",
     "{\"devices\":[{\"overall\":" WIN("10", "5") ",\"steps\":[" WIN("10", "5") "]}]}", NS_OK, ""},
    {"a_step_without_its_time_is_located",
     "{\"devices\":[{\"overall\":" WIN("10", "5") ",\"steps\":[" WIN("5", "1") ",{\"buckets_us\":{}}]}]}",
     NS_ERR_KEY, "devices[0].steps[1].dur_us: missing"},
    {"a_negative_time_is_refused", "{\"devices\":[{\"overall\":" WIN("-1", "0") ",\"steps\":[]}]}",
     NS_ERR_VALUE, "devices[0].overall.dur_us: must be"},
    {"buckets_above_the_window_are_refused", "{\"devices\":[{\"overall\":" WIN("10", "11") ",\"steps\":[]}]}",
     NS_ERR_VALUE, "devices[0].overall.buckets_us: buckets add up"},
    {"buckets_above_a_window_of_1_ns_are_refused",
     "{\"devices\":[{\"overall\":" WIN("0.001", "0.004") ",\"steps\":[]}]}", NS_ERR_VALUE,
     "devices[0].overall.buckets_us: buckets add up"},
    {"no_steps_is_no_step_time", "{\"devices\":[{\"overall\":" WIN("10", "5") ",\"steps\":[]}]}",
     NS_ERR_VALUE, "devices[0].steps: is empty"},
    {"an_unknown_cause_bucket_is_located",
     "{\"devices\":[{\"overall\":{\"dur_us\":1,\"buckets_us\":{\"compute\":0,\"memory\":0,\"comm\":0,"
     "\"dataloader\":0,"
     "\"overhead\":0,\"idle\":0},\"causes\":[{\"bucket\":\"gpu\",\"cause\":\"x\",\"us\":1}]},\"steps\":[]}]}",
     NS_ERR_VALUE, "devices[0].overall.causes[0].bucket: unknown bucket"},
    {"a_kernel_of_no_known_class_is_located",
     "{\"devices\":[{\"overall\":" WIN("10", "5") ",\"steps\":[" WIN(
         "10", "5") "],\"top_kernels\":[{\"name\":\"k\","
                    "\"class\":\"gpu\",\"us\":1,\"count\":1}]}]}",
     NS_ERR_VALUE, "devices[0].top_kernels[0].class: must be"},
    {"no_devices_is_nothing_to_compare", "{\"devices\":[]}", NS_ERR_VALUE, "devices: no device"},
    {"trailing_text_is_a_second_value", "{\"devices\":[]} {}", NS_ERR_SYNTAX, "more than one JSON value"},
    {"a_profile_needs_a_bucket", "{\"foo\":1}", NS_ERR_VALUE, "neither a saved report"},
    /* The text is checked before cJSON reads it (so that a NULL from cJSON is memory): what cJSON refuses
     * is refused as malformed, never called out of memory. */
    {"a_lone_low_surrogate_is_malformed", "{\"devices\":[],\"x\":\"\\udc00\"}", NS_ERR_SYNTAX,
     "malformed JSON"},
    {"a_high_surrogate_without_its_pair_is_malformed", "{\"devices\":[],\"x\":\"\\ud800\\u0041\"}",
     NS_ERR_SYNTAX, "malformed JSON"},
    {"a_raw_control_character_in_a_string_is_malformed", "{\"devices\":[],\"x\":\"a\tb\"}", NS_ERR_SYNTAX,
     "malformed JSON"},
    {"a_number_without_digits_after_its_point_is_malformed", "{\"devices\":[],\"x\":1.}", NS_ERR_SYNTAX,
     "malformed JSON"},
    {"a_byte_order_mark_is_allowed",
     "\xef\xbb\xbf{\"devices\":[{\"overall\":" WIN("10", "5") ",\"steps\":[" WIN("10", "5") "]}]}", NS_OK,
     ""},
    {"an_escaped_steps_key_is_read_from_the_tree",
     "{\"devices\":[{\"overall\":" WIN("10", "5") ",\"st\\u0065ps\":[" WIN("10", "5") "]}]}", NS_OK, ""},
};

START_TEST(report_loader_locates_what_is_wrong)
{
	const load_case *c = &load_cases[_i];
	ns_classify_options co;
	ns_routes routes;
	ns_diff_load_options o;
	ns_diff_side s;
	ns_error err;
	ns_status st;

	ns_classify_options_default(&co);
	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	o = (ns_diff_load_options){{NULL, NULL}, &co, &routes, 5, NULL};
	ns_diff_side_init(&s);
	ns_error_clear(&err);
	st = ns_diff_side_parse(c->text, strlen(c->text), &o, &s, &err);
	ck_assert_msg(st == c->status, "%s: status %d (%s)", c->name, st, err.msg);
	ck_assert_msg(strncmp(err.msg, c->msg_start, strlen(c->msg_start)) == 0, "%s: message '%s'", c->name,
	              err.msg);
	if (st == NS_OK)
		ck_assert(s.nsteps == 1 && s.step_us[0] == 10 && s.bucket_us[NS_REGIME_COMPUTE] == 5 &&
		          s.report != NULL);
	ns_diff_side_free(&s);
	ns_routes_free(&routes);
}
END_TEST

/* A saved report is printed again in the diff's JSON: its keys and strings that are not UTF-8 (the device
 * name's byte 0xff, the key's 0xfe: each begins no character) come out with U+FFFD (EF BF BD) in their place.
 */
START_TEST(a_saved_report_that_is_not_utf8_is_kept_with_replacement_characters)
{
	static const char text[] = "{\"devices\":[{\"name\":\"GPU\xff\",\"x\xfe\":1,\"overall\":" WIN(
	    "10", "5") ",\"steps\":[" WIN("10", "5") "]}]}";
	ns_classify_options co;
	ns_routes routes;
	ns_diff_load_options o;
	ns_diff_side s;
	ns_error err;
	const cJSON *dev;

	ns_classify_options_default(&co);
	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	o = (ns_diff_load_options){{NULL, NULL}, &co, &routes, 5, NULL};
	ns_diff_side_init(&s);
	ns_error_clear(&err);
	ck_assert_int_eq(ns_diff_side_parse(text, strlen(text), &o, &s, &err), NS_OK);
	dev = cJSON_GetArrayItem(cJSON_GetObjectItem(s.report, "devices"), 0);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(dev, "name")), "GPU\xef\xbf\xbd");
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(dev, "x\xef\xbf\xbd"));
	ns_diff_side_free(&s);
	ns_routes_free(&routes);
}
END_TEST

/* A cause's name is the saved report's: the verbose text prints it escaped (U+0001 as \x01, ns_text_escape's
 * rule), never the raw byte. */
START_TEST(a_control_character_in_a_saved_cause_name_is_escaped_in_the_text)
{
	static const char text[] =
	    "{\"devices\":[{\"overall\":{\"dur_us\":10,\"buckets_us\":{\"compute\":5,\"memory\":0,\"comm\":0,"
	    "\"dataloader\":0,\"overhead\":5,\"idle\":0},\"causes\":[{\"bucket\":\"overhead\",\"cause\":"
	    "\"x\\u0001y\",\"us\":5}]},\"steps\":[" WIN("10", "5") "]}]}";
	ns_classify_options co;
	ns_routes routes;
	ns_diff_load_options o;
	ns_diff_print_options po = {{"before", "after"}, true, 5};
	ns_diff_side s;
	ns_diff_result r;
	ns_error err;
	char *out = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&out, &size);

	ck_assert_ptr_nonnull(f);
	ns_classify_options_default(&co);
	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	o = (ns_diff_load_options){{NULL, NULL}, &co, &routes, 5, NULL};
	ns_diff_side_init(&s);
	ns_error_clear(&err);
	ck_assert_int_eq(ns_diff_side_parse(text, strlen(text), &o, &s, &err), NS_OK);
	ck_assert_int_eq(ns_diff_compare(&s, &s, &co, &r, &err), NS_OK);
	ns_diff_print_text(f, &s, &s, &r, &po);
	fclose(f);
	ck_assert_msg(strstr(out, "  overhead/x\\x01y ") != NULL, "%s", out);
	ck_assert_ptr_null(strchr(out, '\x01'));
	free(out);
	ns_diff_result_free(&r);
	ns_diff_side_free(&s);
	ns_routes_free(&routes);
}
END_TEST

/* A side whose steps last under a nanosecond on average has no step time: its speed-up read "infx slower" (0
 * ns) or hundreds of digits (a denormal). Each case against a side of 10 us steps; the same side twice is
 * still "no change". */
static const struct {
	const char *dur, *want;
} tiny_steps[] = {
    {"0", "AFTER's steps last 0 ns on average, less than 1 ns: no step time to compare"},
    {"1e-300", "AFTER's steps last 1e-297 ns on average, less than 1 ns"},
    {"0.0009", "AFTER's steps last 0.9 ns on average"},
};

START_TEST(a_side_of_steps_under_a_nanosecond_has_no_step_time)
{
	static const char normal[] = "{\"devices\":[{\"overall\":" WIN("10", "5") ",\"steps\":[" WIN(
	    "10", "5") "," WIN("10", "5") "]}]}";
	char tiny[512];
	ns_classify_options co;
	ns_routes routes;
	ns_diff_load_options o;
	ns_diff_side b, a;
	ns_diff_result r;
	ns_error err;

	snprintf(tiny, sizeof(tiny),
	         "{\"devices\":[{\"overall\":" WIN("%s", "0") ",\"steps\":[" WIN("%s", "0") "," WIN(
	             "%s", "0") "]}]}",
	         tiny_steps[_i].dur, tiny_steps[_i].dur, tiny_steps[_i].dur);
	ns_classify_options_default(&co);
	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	o = (ns_diff_load_options){{NULL, NULL}, &co, &routes, 5, NULL};
	ns_diff_side_init(&b);
	ns_diff_side_init(&a);
	ns_error_clear(&err);
	ck_assert_int_eq(ns_diff_side_parse(normal, strlen(normal), &o, &b, &err), NS_OK);
	ck_assert_msg(ns_diff_side_parse(tiny, strlen(tiny), &o, &a, &err) == NS_OK, "%s", err.msg);
	ck_assert_int_eq(ns_diff_compare(&b, &a, &co, &r, &err), NS_ERR_VALUE);
	ck_assert_msg(strstr(err.msg, tiny_steps[_i].want) != NULL, "'%s'", err.msg);
	ck_assert_int_eq(ns_diff_compare(&a, &a, &co, &r, &err), NS_OK);
	ck_assert_int_eq(r.change, NS_DIFF_NO_CHANGE);
	ns_diff_result_free(&r);
	ns_diff_side_free(&b);
	ns_diff_side_free(&a);
	ns_routes_free(&routes);
}
END_TEST

/* Nesting: a saved report is printed again inside the diff's JSON, one level deeper, so one nested 1,000 deep
 * (as cJSON reads) made a diff cJSON could not read back; deeper than that was "malformed JSON". Refused with
 * the limit from 65 levels (the report object and 64 brackets in an unknown key), however deep: the text is
 * checked before cJSON reads it, without recursing past the limit. */
static const struct {
	size_t depth;
	const char *want;
} deep_cases[] = {
    {63, NULL},
    {64, "JSON nested more than 64 levels deep: not a report or profile"},
    {999, "JSON nested more than 64 levels deep"},
    {1000, "JSON nested more than 64 levels deep"},
    {1000000, "JSON nested more than 64 levels deep"},
};

START_TEST(a_side_nested_too_deep_is_refused_with_the_limit)
{
	size_t n = deep_cases[_i].depth; /* brackets inside the report object, whose own depth is 1 */
	const char head[] = "{\"x\":",
	           tail[] = ",\"devices\":[{\"overall\":" WIN("10", "5") ",\"steps\":[" WIN("10", "5") "]}]}";
	char *text = malloc(sizeof(head) + 2 * n + sizeof(tail));
	ns_classify_options co;
	ns_routes routes;
	ns_diff_load_options o;
	ns_diff_side s;
	ns_error err;
	ns_status st;

	ck_assert_ptr_nonnull(text);
	memcpy(text, head, sizeof(head)); /* its NUL is overwritten next */
	memset(text + strlen(head), '[', n);
	memset(text + strlen(head) + n, ']', n);
	memcpy(text + strlen(head) + 2 * n, tail, sizeof(tail));
	ns_classify_options_default(&co);
	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	o = (ns_diff_load_options){{NULL, NULL}, &co, &routes, 5, NULL};
	ns_diff_side_init(&s);
	ns_error_clear(&err);
	st = ns_diff_side_parse(text, strlen(text), &o, &s, &err);
	if (deep_cases[_i].want == NULL) {
		ck_assert_msg(st == NS_OK, "%s", err.msg);
	} else {
		ck_assert_int_eq(st, NS_ERR_LIMIT);
		ck_assert_msg(strstr(err.msg, deep_cases[_i].want) != NULL, "'%s'", err.msg);
	}
	ns_diff_side_free(&s);
	ns_routes_free(&routes);
	free(text);
}
END_TEST

/* A saved report's steps stay text (issue 26: a 12,000-step baseline is 17 MB of report, five times that as a
 * tree): the tree holds an empty array in their place, the steps are read one at a time, and printed again
 * in the diff's JSON as they were (here: the device's "steps" of three windows, 10, 20 and 30 us). */
START_TEST(a_saved_reports_steps_are_read_and_printed_from_its_text)
{
	static const char text[] = "{\"devices\":[{\"overall\":" WIN("60", "30") ",\"steps\":[" WIN(
	    "10", "5") "," WIN("20", "10") ",\n " WIN("30", "15") "],\"name\":\"x\"}]}";
	ns_classify_options co;
	ns_routes routes;
	ns_diff_load_options o;
	ns_diff_side s;
	ns_diff_result r;
	ns_error err;
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	cJSON *doc, *want, *steps;

	ns_classify_options_default(&co);
	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	o = (ns_diff_load_options){{NULL, NULL}, &co, &routes, 5, NULL};
	ns_diff_side_init(&s);
	ns_error_clear(&err);
	ck_assert_int_eq(ns_diff_side_parse(text, strlen(text), &o, &s, &err), NS_OK);
	ck_assert_uint_eq(s.nsteps, 3);
	ck_assert(s.step_us[0] == 10 && s.step_us[1] == 20 && s.step_us[2] == 30);
	ck_assert(s.step_bucket_us[2][NS_REGIME_COMPUTE] == 15);
	ck_assert_uint_eq(s.nsteps_text, 1);
	steps = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(s.report, "devices"), 0), "steps");
	ck_assert_int_eq(cJSON_GetArraySize(steps), 0); /* the tree's placeholder */
	ck_assert_int_eq(ns_diff_compare(&s, &s, &co, &r, &err), NS_OK);
	f = open_memstream(&out, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(ns_diff_print_json(f, &s, &s, &r, 5, &err), NS_OK);
	fclose(f);
	doc = cJSON_Parse(out);
	want = cJSON_Parse(text);
	ck_assert_ptr_nonnull(doc);
	ck_assert(cJSON_Compare(cJSON_GetObjectItem(doc, "before"), want, true));
	ck_assert(cJSON_Compare(cJSON_GetObjectItem(doc, "after"), want, true));
	cJSON_Delete(doc);
	cJSON_Delete(want);
	free(out);
	ns_diff_result_free(&r);
	ns_diff_side_free(&s);
	ns_routes_free(&routes);
}
END_TEST

/* One step's text is parsed whole: more than NS_DIFF_STEP_TEXT_MAX bytes of it is a limit, with its line (2:
 * the step's first byte). */
START_TEST(a_step_larger_than_the_limit_is_refused_with_its_line)
{
	const char head[] = "{\"devices\":[{\"overall\":" WIN("10", "5") ",\"steps\":[\n{\"pad\":\"",
	           tail[] = "\",\"dur_us\":10,\"buckets_us\":{\"compute\":5,\"memory\":0,\"comm\":0,"
	                    "\"dataloader\":0,\"overhead\":0,\"idle\":0}}]}]}";
	size_t pad = NS_DIFF_STEP_TEXT_MAX;
	char *text = malloc(sizeof(head) + pad + sizeof(tail));
	ns_classify_options co;
	ns_routes routes;
	ns_diff_load_options o;
	ns_diff_side s;
	ns_error err;

	ck_assert_ptr_nonnull(text);
	memcpy(text, head, sizeof(head));
	memset(text + strlen(head), 'a', pad);
	memcpy(text + strlen(head) + pad, tail, sizeof(tail));
	ns_classify_options_default(&co);
	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	o = (ns_diff_load_options){{NULL, NULL}, &co, &routes, 5, NULL};
	ns_diff_side_init(&s);
	ns_error_clear(&err);
	ck_assert_int_eq(ns_diff_side_parse(text, strlen(text), &o, &s, &err), NS_ERR_LIMIT);
	ck_assert_msg(strstr(err.msg, "a step of more than 65536 bytes") != NULL, "'%s'", err.msg);
	ck_assert_int_eq(err.line, 2);
	ns_diff_side_free(&s);
	ns_routes_free(&routes);
	free(text);
}
END_TEST

static void open_pair(const char *before, const char *after, ns_input in[2])
{
	ns_error err;

	ck_assert_int_eq(ns_input_open(&in[0], before, &err), NS_OK);
	ck_assert_int_eq(ns_input_open(&in[1], after, &err), NS_OK);
}

/* One call per workflow (issue 20): ns_diff_analyse() is the stages by hand (ns_diff_load_pair, then
 * ns_diff_compare), and the words every form prints are decided in its result. */
START_TEST(diff_analyse_is_the_stages_in_one_call)
{
	ns_classify_options co;
	ns_routes routes;
	ns_diff_load_options o;
	ns_input in[2];
	ns_diff d;
	ns_diff_side sides[2];
	ns_error errs[2], err;
	ns_diff_result r;

	ns_classify_options_default(&co);
	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	o = (ns_diff_load_options){{NULL, NULL}, &co, &routes, 5, NULL};
	open_pair("tests/data/diff/before.json", "tests/data/diff/after.json", in);
	ns_error_clear(&err);
	ck_assert_msg(ns_diff_analyse(&in[0], &in[1], &o, &d, &err) == NS_OK, "%s", err.msg);
	ns_input_close(&in[0]);
	ns_input_close(&in[1]);
	open_pair("tests/data/diff/before.json", "tests/data/diff/after.json", in);
	ck_assert_int_eq(ns_diff_load_pair(&in[0], &in[1], &o, sides, errs), NS_OK);
	ck_assert_int_eq(ns_diff_compare(&sides[0], &sides[1], &co, &r, &err), NS_OK);
	ck_assert(d.compared && d.side_err[0].status == NS_OK && d.side_err[1].status == NS_OK);
	ck_assert_int_eq(d.result.change, r.change);
	ck_assert(d.result.speedup == r.speedup);
	ck_assert_str_ne(d.result.headline, "");
	ck_assert_str_eq(d.result.headline, r.headline);
	ck_assert_uint_eq(d.result.nchecks, r.nchecks);
	for (size_t i = 0; i < r.nchecks; i++)
		ck_assert_str_eq(d.result.checks[i].words, r.checks[i].words);
	ns_diff_result_free(&r);
	ns_diff_side_free(&sides[0]);
	ns_diff_side_free(&sides[1]);
	ns_input_close(&in[0]);
	ns_input_close(&in[1]);
	ns_diff_free(&d);
	ns_routes_free(&routes);
}
END_TEST

/* A side that does not load: its error, located (malformed.json's ",," is on its line 3), in side_err; the
 * other side's error is still its own (none); nothing was compared. */
START_TEST(diff_analyse_keeps_each_sides_error)
{
	ns_classify_options co;
	ns_routes routes;
	ns_diff_load_options o;
	ns_input in[2];
	ns_diff d;
	ns_error err;

	ns_classify_options_default(&co);
	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	o = (ns_diff_load_options){{NULL, NULL}, &co, &routes, 5, NULL};
	open_pair("tests/data/diff/malformed.json", "tests/data/diff/before.json", in);
	ns_error_clear(&err);
	ck_assert_int_eq(ns_diff_analyse(&in[0], &in[1], &o, &d, &err), NS_ERR_SYNTAX);
	ck_assert_int_eq(d.side_err[0].status, NS_ERR_SYNTAX);
	ck_assert_int_eq(d.side_err[0].line, 3);
	ck_assert_int_eq(d.side_err[1].status, NS_OK);
	ck_assert(!d.compared);
	ns_diff_free(&d);
	ns_input_close(&in[0]);
	ns_input_close(&in[1]);
	ns_routes_free(&routes);
}
END_TEST

/* A change of GEMM dtype makes a comparison suspect, except the narrowing BEFORE's compute fix named: fp32 to
 * a 16-bit type (autocast) or a 16-bit type to fp8 (fp8 matmuls for GEMMs near their roof). Each side a
 * profile-like side (no step time) with one dtype and BEFORE's first next step in the given bucket. */
typedef struct {
	const char *before, *after;
	ns_regime predicted;
	bool suspect;
} dtype_change_case;

static const dtype_change_case dtype_changes[] = {
    {"fp32", "bf16", NS_REGIME_COMPUTE, false}, {"bf16", "fp8", NS_REGIME_COMPUTE, false},
    {"fp16", "fp8", NS_REGIME_COMPUTE, false},  {"bf16", "fp8", NS_REGIME_DATALOADER, true},
    {"fp8", "bf16", NS_REGIME_COMPUTE, true},   {"bf16", "fp16", NS_REGIME_COMPUTE, true},
    {"fp8", "fp4", NS_REGIME_COMPUTE, true},    {"fp32", "fp32", NS_REGIME_COMPUTE, false},
};

START_TEST(a_narrower_gemm_dtype_is_the_compute_fix_not_a_suspect)
{
	const dtype_change_case *c = &dtype_changes[_i];
	ns_diff_prediction p;
	ns_diff_side sides[2];
	ns_classify_options co;
	ns_diff_result r;
	ns_error err;
	bool suspect = false;

	memset(sides, 0, sizeof(sides));
	memset(&p, 0, sizeof(p));
	p.bucket = c->predicted;
	p.predicted_us = 1.0;
	snprintf(sides[0].dtype, sizeof(sides[0].dtype), "%s", c->before);
	snprintf(sides[1].dtype, sizeof(sides[1].dtype), "%s", c->after);
	sides[0].predicted = &p;
	sides[0].npredicted = 1;
	ns_classify_options_default(&co);
	ns_error_clear(&err);
	ck_assert_int_eq(ns_diff_compare(&sides[0], &sides[1], &co, &r, &err), NS_OK);
	for (size_t i = 0; i < r.nsuspects; i++)
		suspect = suspect || strcmp(r.suspects[i].what, "GEMM dtype") == 0;
	ck_assert_msg(suspect == c->suspect, "%s -> %s: suspect %d, want %d", c->before, c->after, suspect,
	              c->suspect);
	ns_diff_result_free(&r);
}
END_TEST

static Suite *diff_suite(void)
{
	Suite *s = suite_create("diff");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, noise_rule_follows_the_table, 0,
	                    sizeof(noise_cases) / sizeof(noise_cases[0]));
	tcase_add_test(tc, noise_rule_is_repeatable);
	tcase_add_loop_test(tc, a_side_nested_too_deep_is_refused_with_the_limit, 0,
	                    sizeof(deep_cases) / sizeof(deep_cases[0]));
	tcase_add_loop_test(tc, a_side_of_steps_under_a_nanosecond_has_no_step_time, 0,
	                    sizeof(tiny_steps) / sizeof(tiny_steps[0]));
	tcase_add_test(tc, step_stats_give_mean_median_and_range_in_ms);
	tcase_add_loop_test(tc, the_fate_of_befores_regime_follows_the_table, 0,
	                    sizeof(fate_cases) / sizeof(fate_cases[0]));
	tcase_add_test(tc, gates_trip_only_on_a_significant_slowdown_above_the_limit);
	tcase_add_loop_test(tc, dtype_is_read_from_the_kernel_name, 0,
	                    sizeof(dtype_cases) / sizeof(dtype_cases[0]));
	tcase_add_loop_test(tc, a_narrower_gemm_dtype_is_the_compute_fix_not_a_suspect, 0,
	                    sizeof(dtype_changes) / sizeof(dtype_changes[0]));
	tcase_add_loop_test(tc, report_loader_locates_what_is_wrong, 0,
	                    sizeof(load_cases) / sizeof(load_cases[0]));
	tcase_add_test(tc, a_saved_report_that_is_not_utf8_is_kept_with_replacement_characters);
	tcase_add_test(tc, a_saved_reports_steps_are_read_and_printed_from_its_text);
	tcase_add_test(tc, diff_analyse_is_the_stages_in_one_call);
	tcase_add_test(tc, diff_analyse_keeps_each_sides_error);
	tcase_add_test(tc, a_step_larger_than_the_limit_is_refused_with_its_line);
	tcase_add_test(tc, a_control_character_in_a_saved_cause_name_is_escaped_in_the_text);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(diff_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
