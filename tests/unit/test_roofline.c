/* The roofline formulas against hand-computed values: ridge, attainable, regimes, the overhead threshold,
 * the workload shorthands, the decode crossing batch, the batch-doubling test and per-op placement. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/roofline.h"
#include "nextstep/roofline_svg.h"

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-9 * fmax(1.0, fabs(b)))

/* A toy device: peak 1000 FLOP/s, 10 B/s, so the ridge is at 100 FLOP/B. */
static const struct {
	double flops, bytes, seconds, threshold;
	double intensity, attainable;
	ns_regime regime;
	double fraction;
	bool above;
} place_rows[] = {
    /* untimed: at, below and above the ridge */
    {1000, 10, 0, 0.10, 100, 1000, NS_REGIME_COMPUTE, 0, false},
    {100, 10, 0, 0.10, 10, 100, NS_REGIME_MEMORY, 0, false},
    {10000, 10, 0, 0.10, 1000, 1000, NS_REGIME_COMPUTE, 0, false},
    {999, 10, 0, 0.10, 99.9, 999, NS_REGIME_MEMORY, 0, false},
    /* timed: half the memory roof; then 5% of it (overhead); exactly at the threshold is not overhead */
    {100, 10, 2, 0.10, 10, 100, NS_REGIME_MEMORY, 0.5, false},
    {100, 10, 20, 0.10, 10, 100, NS_REGIME_OVERHEAD, 0.05, false},
    {100, 10, 10, 0.10, 10, 100, NS_REGIME_MEMORY, 0.1, false},
    {100, 10, 10, 0.20, 10, 100, NS_REGIME_OVERHEAD, 0.1, false},
    /* compute side: 1% of the compute roof is overhead; 80% is compute */
    {10000, 10, 1000, 0.10, 1000, 1000, NS_REGIME_OVERHEAD, 0.01, false},
    {10000, 10, 12.5, 0.10, 1000, 1000, NS_REGIME_COMPUTE, 0.8, false},
    /* faster than the roof allows */
    {100, 10, 0.5, 0.10, 10, 100, NS_REGIME_MEMORY, 2.0, true},
};

START_TEST(roofline_place_matches_hand_computed_rows)
{
	ns_roofline_input in = {place_rows[_i].flops,   place_rows[_i].bytes,    1000.0, 10.0,
	                        place_rows[_i].seconds, place_rows[_i].threshold};
	ns_roofline_result r;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_roofline_place(&in, &r, &err), NS_OK);
	ck_assert_msg(NEAR(r.ridge, 100.0), "ridge %g", r.ridge);
	ck_assert_msg(NEAR(r.intensity, place_rows[_i].intensity), "intensity %g", r.intensity);
	ck_assert_msg(NEAR(r.attainable, place_rows[_i].attainable), "attainable %g", r.attainable);
	ck_assert_int_eq(r.regime, place_rows[_i].regime);
	ck_assert_int_eq(r.timed, place_rows[_i].seconds > 0);
	ck_assert_msg(NEAR(r.fraction_of_roof, place_rows[_i].fraction), "fraction %g", r.fraction_of_roof);
	ck_assert_int_eq(r.above_roof, place_rows[_i].above);
}
END_TEST

START_TEST(roofline_place_reports_achieved_rates_and_both_fractions)
{
	ns_roofline_input in = {100, 10, 1000.0, 10.0, 20.0, NS_ROOFLINE_OVERHEAD_DEFAULT};
	ns_roofline_result r;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_roofline_place(&in, &r, &err), NS_OK);
	ck_assert(NEAR(r.achieved_flops, 5.0));
	ck_assert(NEAR(r.achieved_bytes_per_s, 0.5));
	ck_assert(NEAR(r.fraction_compute, 0.005));
	ck_assert(NEAR(r.fraction_memory, 0.05));
}
END_TEST

START_TEST(roofline_place_rejects_zero_and_negative_counts)
{
	const double bad[][2] = {{0, 10}, {100, 0}, {-1, 10}, {100, -5}, {NAN, 10}, {100, INFINITY}};
	ns_roofline_result r;
	ns_error err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ns_roofline_input in = {bad[i][0], bad[i][1], 1000.0, 10.0, 0, 0.1};
		ns_error_clear(&err);
		ck_assert_int_eq(ns_roofline_place(&in, &r, &err), NS_ERR_VALUE);
		ck_assert_int_eq(err.param,
		                 NS_ROOFLINE_PARAM_WORK); /* the caller's numbers, not the device's */
	}
}
END_TEST

/* Valid inputs whose quotients leave the doubles: each is an error naming the quantity, never a result
 * (issue 9: "AI inf", "infx time" were printed with exit 0). */
static const struct {
	double flops, bytes, seconds;
	const char *says;
} out_of_range_rows[] = {
    {1e-200, 1e200, 0, "the arithmetic intensity (FLOP count 1e-200 / byte count 1e+200) is 0"},
    {1e308, 1e-308, 0, "the arithmetic intensity (FLOP count 1e+308 / byte count 1e-308) is infinite"},
    {1e12, 1e9, 1e-320, "the achieved FLOP/s"},
    {1e-300, 1e-300, 1e300, "the achieved FLOP/s (FLOP count 1e-300 / time (s) 1e+300) is 0"},
};

START_TEST(roofline_place_refuses_quotients_that_are_not_finite)
{
	ns_roofline_input in = {out_of_range_rows[_i].flops,
	                        out_of_range_rows[_i].bytes,
	                        1000.0,
	                        10.0,
	                        out_of_range_rows[_i].seconds,
	                        0.1};
	ns_roofline_result r;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_roofline_place(&in, &r, &err), NS_ERR_VALUE);
	ck_assert_int_eq(err.param, NS_ROOFLINE_PARAM_WORK);
	ck_assert_msg(strstr(err.msg, out_of_range_rows[_i].says) != NULL, "%s", err.msg);
	ck_assert(r.intensity == 0 && r.attainable == 0 && !r.timed); /* nothing half-filled to print */
}
END_TEST

START_TEST(workloads_whose_counts_overflow_are_errors)
{
	ns_roofline_work w;
	ns_roofline_decode d;
	ns_roofline_decode_spec spec = {1e308, 8, 0, 0, 0, 0, 0};
	ns_scaling_result s;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_roofline_matmul(1e200, 1e200, 1e200, 1, NS_DTYPE_BF16, &w, &err), NS_ERR_VALUE);
	ck_assert_int_eq(ns_roofline_elementwise(1e308, 2, 1, 10, NS_DTYPE_FP32, &w, &err), NS_ERR_VALUE);
	ck_assert_int_eq(ns_roofline_decode_step(&spec, NS_DTYPE_BF16, 295, &d, &err), NS_ERR_VALUE);
	ck_assert_int_eq(ns_roofline_scaling(1e-300, 1e300, 1.25, 1.75, &s, &err), NS_ERR_VALUE);
	ck_assert_ptr_nonnull(strstr(err.msg, "the time ratio"));
}
END_TEST

START_TEST(device_whose_ridge_overflows_is_a_value_error)
{
	ns_roofline_input in = {1e12, 1e9, 1e300, 1e-10, 0, 0.1};
	ns_roofline_result r;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_roofline_place(&in, &r, &err), NS_ERR_VALUE);
	ck_assert_int_eq(err.param, 0); /* the device's numbers: not a setting of the caller's */
	ck_assert_ptr_nonnull(strstr(err.msg, "ridge"));
}
END_TEST

static const struct {
	ns_dtype dt;
	const char *name;
	double bytes;
} dtype_rows[] = {
    {NS_DTYPE_FP64, "fp64", 8}, {NS_DTYPE_FP32, "fp32", 4}, {NS_DTYPE_TF32, "tf32", 4},
    {NS_DTYPE_BF16, "bf16", 2}, {NS_DTYPE_FP16, "fp16", 2}, {NS_DTYPE_FP8, "fp8", 1},
    {NS_DTYPE_INT8, "int8", 1}, {NS_DTYPE_FP4, "fp4", 0.5},
};

START_TEST(dtype_sizes_and_names_round_trip)
{
	ns_dtype got;

	ck_assert_str_eq(ns_dtype_name(dtype_rows[_i].dt), dtype_rows[_i].name);
	ck_assert_double_eq(ns_dtype_bytes(dtype_rows[_i].dt), dtype_rows[_i].bytes);
	ck_assert(ns_dtype_from_name(dtype_rows[_i].name, &got));
	ck_assert_int_eq(got, dtype_rows[_i].dt);
}
END_TEST

START_TEST(dtype_from_name_takes_common_spellings_and_refuses_others)
{
	const struct {
		const char *name;
		ns_dtype dt;
	} rows[] = {{"BF16", NS_DTYPE_BF16},    {"bfloat16", NS_DTYPE_BF16}, {"half", NS_DTYPE_FP16},
	            {"float16", NS_DTYPE_FP16}, {"float32", NS_DTYPE_FP32},  {"double", NS_DTYPE_FP64},
	            {"e4m3", NS_DTYPE_FP8},     {"NVFP4", NS_DTYPE_FP4}};
	ns_dtype got;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ck_assert_msg(ns_dtype_from_name(rows[i].name, &got), "%s", rows[i].name);
		ck_assert_int_eq(got, rows[i].dt);
	}
	ck_assert(!ns_dtype_from_name("fp12", &got));
	ck_assert(!ns_dtype_from_name("", &got));
}
END_TEST

START_TEST(dtype_from_torch_type_reads_trace_input_types_only)
{
	const struct {
		const char *name;
		ns_dtype dt;
	} rows[] = {{"c10::BFloat16", NS_DTYPE_BF16},     {"float", NS_DTYPE_FP32},
	            {"c10::Half", NS_DTYPE_FP16},         {"double", NS_DTYPE_FP64},
	            {"c10::Float8_e4m3fn", NS_DTYPE_FP8}, {"signed char", NS_DTYPE_INT8}};
	ns_dtype got;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ck_assert_msg(ns_dtype_from_torch_type(rows[i].name, &got), "%s", rows[i].name);
		ck_assert_int_eq(got, rows[i].dt);
	}
	ck_assert(!ns_dtype_from_torch_type("long int", &got));
	ck_assert(!ns_dtype_from_torch_type("Scalar", &got));
	ck_assert(!ns_dtype_from_torch_type("", &got));
	ck_assert(!ns_dtype_from_torch_type("bf16", &got)); /* a user's spelling, not a trace's */
}
END_TEST

START_TEST(matmul_counts_two_mnk_flops_and_ideal_reuse_bytes)
{
	ns_roofline_work w;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_roofline_matmul(8192, 8192, 8192, 1, NS_DTYPE_BF16, &w, &err), NS_OK);
	ck_assert_double_eq(w.flops, 1099511627776.0);    /* 2 * 8192^3 */
	ck_assert_double_eq(w.bytes, 402653184.0);        /* 3 * 8192^2 * 2 */
	ck_assert(NEAR(w.flops / w.bytes, 8192.0 / 3.0)); /* 2730.67 FLOP/B */
	ck_assert_int_eq(ns_roofline_matmul(64, 128, 256, 4, NS_DTYPE_FP32, &w, &err), NS_OK);
	ck_assert_double_eq(w.flops, 16777216.0); /* 2*4*64*128*256 */
	ck_assert_double_eq(w.bytes, 917504.0);   /* 4*(64*256 + 256*128 + 64*128)*4 */
	ck_assert_int_eq(ns_roofline_matmul(0, 1, 1, 1, NS_DTYPE_FP32, &w, &err), NS_ERR_VALUE);
}
END_TEST

START_TEST(elementwise_counts_reads_and_writes_per_element)
{
	ns_roofline_work w;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_roofline_elementwise(1e6, 2, 1, 1, NS_DTYPE_FP32, &w, &err), NS_OK);
	ck_assert_double_eq(w.flops, 1e6);
	ck_assert_double_eq(w.bytes, 12e6);
	ck_assert_int_eq(ns_roofline_elementwise(1000, 1, 1, 3, NS_DTYPE_BF16, &w, &err), NS_OK);
	ck_assert_double_eq(w.flops, 3000.0);
	ck_assert_double_eq(w.bytes, 4000.0);
	ck_assert_int_eq(ns_roofline_elementwise(1000, 0, 1, 1, NS_DTYPE_BF16, &w, &err), NS_ERR_VALUE);
}
END_TEST

START_TEST(decode_of_seven_b_in_bf16_reads_every_weight_once)
{
	ns_roofline_decode_spec s = {.params = 7e9, .batch = 1};
	ns_roofline_decode d;
	ns_error err;
	double ridge = 989.5e12 / 3.35e12; /* H100 SXM bf16: 295.37 FLOP/B */

	ns_error_clear(&err);
	ck_assert_int_eq(ns_roofline_decode_step(&s, NS_DTYPE_BF16, ridge, &d, &err), NS_OK);
	ck_assert_double_eq(d.weight_bytes, 14e9);
	ck_assert_double_eq(d.work.flops, 14e9);
	ck_assert_double_eq(d.work.bytes, 14e9);
	ck_assert_double_eq(d.kv_bytes, 0.0);
	ck_assert_double_eq(d.crossing_batch, 296.0); /* ceil(295.37 * 14e9 / (2 * 7e9)) */
}
END_TEST

/* Toy numbers, ridge 100: P = 1000 bf16 -> W = 2000 B; one layer, one head, head_dim 1. */
START_TEST(decode_crossing_batch_accounts_for_the_kv_cache)
{
	ns_roofline_decode_spec s = {
	    .params = 1000, .batch = 1, .context = 2, .layers = 1, .kv_heads = 1, .head_dim = 1};
	ns_roofline_decode d;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_roofline_decode_step(&s, NS_DTYPE_BF16, 100.0, &d, &err), NS_OK);
	ck_assert_double_eq(d.kv_bytes, 8.0);        /* 2 * 1 * 1 * 1 * 2 * 2 */
	ck_assert_double_eq(d.attention_flops, 8.0); /* 4 * 1 * 1 * 1 * 2 */
	ck_assert_double_eq(d.work.flops, 2008.0);
	ck_assert_double_eq(d.work.bytes, 2008.0);
	/* B >= 100 * 2000 / (2000 + 8 - 100 * 8) = 165.56 */
	ck_assert_double_eq(d.crossing_batch, 166.0);
	s.batch = 166;
	ck_assert_int_eq(ns_roofline_decode_step(&s, NS_DTYPE_BF16, 100.0, &d, &err), NS_OK);
	ck_assert(d.work.flops / d.work.bytes >= 100.0);
	s.batch = 165;
	ck_assert_int_eq(ns_roofline_decode_step(&s, NS_DTYPE_BF16, 100.0, &d, &err), NS_OK);
	ck_assert(d.work.flops / d.work.bytes < 100.0);
}
END_TEST

START_TEST(decode_with_a_long_context_never_crosses)
{
	ns_roofline_decode_spec s = {
	    .params = 1000, .batch = 1, .context = 10, .layers = 1, .kv_heads = 1, .head_dim = 1};
	ns_roofline_decode d;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_roofline_decode_step(&s, NS_DTYPE_BF16, 100.0, &d, &err), NS_OK);
	ck_assert_double_eq(d.crossing_batch, 0.0); /* 2000 + 40 - 100 * 40 < 0 */
}
END_TEST

START_TEST(decode_grouped_query_heads_scale_attention_flops_not_cache)
{
	ns_roofline_decode_spec s = {
	    .params = 1000, .batch = 2, .context = 4, .layers = 2, .kv_heads = 2, .head_dim = 8, .heads = 8};
	ns_roofline_decode d;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_roofline_decode_step(&s, NS_DTYPE_FP16, 100.0, &d, &err), NS_OK);
	ck_assert_double_eq(d.kv_bytes, 2.0 * 2 * 2 * 8 * 4 * 2 * 2);    /* 1024 */
	ck_assert_double_eq(d.attention_flops, 4.0 * 2 * 8 * 8 * 4 * 2); /* 4096 */
	s.layers = 0;
	ck_assert_int_eq(ns_roofline_decode_step(&s, NS_DTYPE_FP16, 100.0, &d, &err), NS_ERR_VALUE);
}
END_TEST

static const struct {
	double t1, t2;
	ns_scaling_kind kind;
	double fixed;
	bool faster;
} scaling_rows[] = {
    {10, 10.5, NS_SCALING_OVERHEAD, 0.95, false},
    {10, 12.4, NS_SCALING_OVERHEAD, 0.76, false},
    {10, 12.5, NS_SCALING_PARTLY_OVERHEAD, 0.75, false},
    {10, 15, NS_SCALING_PARTLY_OVERHEAD, 0.5, false},
    {10, 17.5, NS_SCALING_WORK, 0.25, false},
    {10, 19.6, NS_SCALING_WORK, 0.04, false},
    {10, 25, NS_SCALING_WORK, 0.0, false},
    {10, 9, NS_SCALING_OVERHEAD, 1.0, true},
};

START_TEST(scaling_ratio_and_fixed_share_follow_the_doubling_model)
{
	ns_scaling_result r;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_roofline_scaling(scaling_rows[_i].t1, scaling_rows[_i].t2,
	                                     NS_SCALING_OVERHEAD_BELOW, NS_SCALING_WORK_ABOVE, &r, &err),
	                 NS_OK);
	ck_assert(NEAR(r.ratio, scaling_rows[_i].t2 / scaling_rows[_i].t1));
	ck_assert_int_eq(r.kind, scaling_rows[_i].kind);
	ck_assert_msg(NEAR(r.fixed_share, scaling_rows[_i].fixed), "fixed %g", r.fixed_share);
	ck_assert_int_eq(r.faster, scaling_rows[_i].faster);
}
END_TEST

START_TEST(scaling_rejects_nonpositive_times_and_crossed_thresholds)
{
	ns_scaling_result r;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_roofline_scaling(0, 1, 1.25, 1.75, &r, &err), NS_ERR_VALUE);
	ck_assert_int_eq(ns_roofline_scaling(1, -1, 1.25, 1.75, &r, &err), NS_ERR_VALUE);
	ck_assert_int_eq(ns_roofline_scaling(1, 2, 1.8, 1.5, &r, &err), NS_ERR_VALUE);
	ck_assert_str_eq(ns_scaling_kind_word(NS_SCALING_OVERHEAD), "overhead-bound");
}
END_TEST

/* A device with round numbers: bf16 peak 1e12 FLOP/s, 1e10 B/s (ridge 100). */
static ns_device toy_device(void)
{
	ns_device d;

	memset(&d, 0, sizeof(d));
	d.name = "toy";
	d.peak[NS_DTYPE_BF16] = 1e12;
	d.mem_bw = 1e10;
	return d;
}

/* ---- the SVG writer on any input ---- */

static const struct {
	double intensity, attainable, achieved, fraction;
	bool timed;
	const char *label;
} svg_rows[] = {
    {1e-200 / 1e200, 0, 0, 0, false, "intensity underflowed to 0"},
    {INFINITY, INFINITY, INFINITY, INFINITY, true, "all infinite"},
    {NAN, NAN, NAN, NAN, true, "all NaN"},
    {1e-300, 1e-290, 1e-300, 1e-10, true, "far left"},
    {1e300, 1e12, 1e300, 1e288, true, "far right"},
    {100, 1e12, 5e11, 0.5, true, "normal \x1b[2J\n with controls and a bad byte \xff"},
};

/* Every number in an attribute of the document, checked against the canvas. */
static void assert_coordinates_on_canvas(const char *svg)
{
	static const char *const attrs[] = {" x=\"",  " y=\"",  " x1=\"", " y1=\"",
	                                    " x2=\"", " y2=\"", " cx=\"", " cy=\""};

	for (size_t a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++)
		for (const char *s = strstr(svg, attrs[a]); s != NULL; s = strstr(s + 1, attrs[a])) {
			double v = strtod(s + strlen(attrs[a]), NULL);
			ck_assert_msg(v >= 0 && v <= 760, "%s%g", attrs[a], v);
		}
	for (const char *s = strstr(svg, "points=\""); s != NULL; s = strstr(s + 1, "points=\"")) {
		char *end;
		double v;
		for (const char *q = s + 8; *q != '"'; q = end + (*end == ',' || *end == ' ')) {
			v = strtod(q, &end);
			ck_assert_msg(end != q && v >= 0 && v <= 760, "points %.40s", q);
		}
	}
}

START_TEST(svg_clamps_every_coordinate_and_stays_small_on_any_input)
{
	ns_device dev = toy_device();
	ns_roofline_plot plot = {&dev,
	                         NS_DTYPE_BF16,
	                         svg_rows[_i].label,
	                         svg_rows[_i].intensity,
	                         svg_rows[_i].attainable,
	                         svg_rows[_i].timed,
	                         svg_rows[_i].achieved,
	                         svg_rows[_i].fraction};
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(out);
	ns_roofline_svg_write(out, &plot);
	fclose(out);
	ck_assert_uint_lt(len, 16384); /* a normal plot is about 5 KB; nothing grows with the values */
	ck_assert_ptr_null(strstr(buf, "nan"));
	ck_assert_ptr_null(strstr(buf, "inf\""));
	ck_assert_ptr_null(strchr(buf, '\x1b')); /* XML 1.0 forbids control characters */
	ck_assert_ptr_null(strstr(buf, "\xff"));
	assert_coordinates_on_canvas(buf);
	free(buf);
}
END_TEST

static Suite *roofline_suite(void)
{
	Suite *s = suite_create("roofline");
	TCase *math = tcase_create("math");
	TCase *work = tcase_create("workloads");
	TCase *ops = tcase_create("ops");

	tcase_add_loop_test(math, roofline_place_matches_hand_computed_rows, 0,
	                    sizeof(place_rows) / sizeof(place_rows[0]));
	tcase_add_test(math, roofline_place_reports_achieved_rates_and_both_fractions);
	tcase_add_test(math, roofline_place_rejects_zero_and_negative_counts);
	tcase_add_loop_test(math, roofline_place_refuses_quotients_that_are_not_finite, 0,
	                    sizeof(out_of_range_rows) / sizeof(out_of_range_rows[0]));
	tcase_add_test(math, workloads_whose_counts_overflow_are_errors);
	tcase_add_test(math, device_whose_ridge_overflows_is_a_value_error);
	tcase_add_loop_test(ops, svg_clamps_every_coordinate_and_stays_small_on_any_input, 0,
	                    sizeof(svg_rows) / sizeof(svg_rows[0]));
	tcase_add_loop_test(math, dtype_sizes_and_names_round_trip, 0,
	                    sizeof(dtype_rows) / sizeof(dtype_rows[0]));
	tcase_add_test(math, dtype_from_name_takes_common_spellings_and_refuses_others);
	tcase_add_test(math, dtype_from_torch_type_reads_trace_input_types_only);
	tcase_add_loop_test(math, scaling_ratio_and_fixed_share_follow_the_doubling_model, 0,
	                    sizeof(scaling_rows) / sizeof(scaling_rows[0]));
	tcase_add_test(math, scaling_rejects_nonpositive_times_and_crossed_thresholds);
	tcase_add_test(work, matmul_counts_two_mnk_flops_and_ideal_reuse_bytes);
	tcase_add_test(work, elementwise_counts_reads_and_writes_per_element);
	tcase_add_test(work, decode_of_seven_b_in_bf16_reads_every_weight_once);
	tcase_add_test(work, decode_crossing_batch_accounts_for_the_kv_cache);
	tcase_add_test(work, decode_with_a_long_context_never_crosses);
	tcase_add_test(work, decode_grouped_query_heads_scale_attention_flops_not_cache);
	suite_add_tcase(s, math);
	suite_add_tcase(s, work);
	suite_add_tcase(s, ops);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(roofline_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
