/* The stable API as a program using libnextstep.so sees it: nextstep/nextstep.h without the unstable tier. */
#undef NEXTSTEP_STATIC_LINKING_ONLY /* the build defines it for the tree; this test must do without */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>
#include <zlib.h>

#include "nextstep/nextstep.h"

/* Hand-derived split of the fixture (tests/data/trace_buckets.expect.json): 30 of each 100 us step compute,
 * the largest bucket. */
#define BUCKETS_TRACE  "tests/data/trace_buckets.json"
#define ROOFLINE_TRACE "tests/data/trace_roofline.json"

START_TEST(version_macros_agree_with_the_library)
{
	char want[32];

	snprintf(want, sizeof(want), "%d.%d.%d", NS_VERSION_MAJOR, NS_VERSION_MINOR, NS_VERSION_PATCH);
	ck_assert_str_eq(NS_VERSION_STRING, want);
	ck_assert_str_eq(ns_version_string(), want);
	ck_assert_uint_eq(ns_version(),
	                  (unsigned)(NS_VERSION_MAJOR * 10000 + NS_VERSION_MINOR * 100 + NS_VERSION_PATCH));
	ck_assert_uint_eq(ns_version(), NS_VERSION_NUMBER);
}
END_TEST

/* The lesson's first profile, routed with routes made by ns_routes_new() (examples/compute.json's line). */
START_TEST(routes_new_routes_a_profile)
{
	ns_profile p;
	ns_classify_options o;
	ns_verdict v;
	ns_error err;
	ns_format_options text = {NS_FORMAT_TEXT, false, false};
	char *line = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&line, &size);
	ns_routes *r;

	ns_error_clear(&err);
	ns_profile_init(&p);
	ck_assert_int_eq(ns_parse_flag_bucket(&p, NS_REGIME_COMPUTE, "0.72", &err), NS_OK);
	ck_assert_int_eq(ns_parse_flag_bucket(&p, NS_REGIME_MEMORY, "0.15", &err), NS_OK);
	r = ns_routes_new(NULL, &err);
	ck_assert_ptr_nonnull(r);
	ns_classify_options_default(&o);
	ns_classify_profile(&p, &o, &v);
	ns_format_verdict_line(out, "", &v, r, &text);
	fclose(out);
	ck_assert_str_eq(line,
	                 "compute-bound (72%) -> write/use a fused kernel or lower precision (Module 4/5)\n");
	free(line);
	ns_routes_delete(r);
	ns_routes_delete(NULL);
}
END_TEST

/* An error set after another names no position or setting of the earlier one (a stale line, or a "(--strict)"
 * hint for an error strict reading has nothing to do with, used to reach messages). */
START_TEST(error_set_forgets_the_earlier_position_and_param)
{
	ns_error err;

	ns_error_clear(&err);
	ns_error_set(&err, NS_ERR_SYNTAX, "first");
	ck_assert_int_eq(ns_error_at(&err, 7, 99, 3), NS_ERR_SYNTAX);
	ck_assert_int_eq(ns_error_set_param(&err, 2), NS_ERR_SYNTAX);
	ck_assert_int_eq(ns_error_set(&err, NS_ERR_VALUE, "second %d", 2), NS_ERR_VALUE);
	ck_assert_int_eq(err.status, NS_ERR_VALUE);
	ck_assert_str_eq(err.msg, "second 2");
	ck_assert_int_eq(err.line, -1);
	ck_assert_int_eq(err.offset, -1);
	ck_assert_int_eq(err.index, -1);
	ck_assert_int_eq(err.param, 0);
}
END_TEST

START_TEST(error_at_and_set_param_record_where_and_which)
{
	ns_error err;

	ns_error_clear(&err);
	ns_error_set(&err, NS_ERR_KEY, "unknown key");
	ck_assert_int_eq(ns_error_at(&err, 12, -1, -1), NS_ERR_KEY);
	ck_assert_int_eq(ns_error_set_param(&err, 1), NS_ERR_KEY);
	ck_assert_int_eq(err.line, 12);
	ck_assert_int_eq(err.offset, -1);
	ck_assert_int_eq(err.index, -1);
	ck_assert_int_eq(err.param, 1);
	ck_assert_str_eq(err.msg, "unknown key");
	ns_error_at(&err, -1, 4096, 5);
	ck_assert_int_eq(err.line, -1);
	ck_assert_int_eq(err.offset, 4096);
	ck_assert_int_eq(err.index, 5);
}
END_TEST

/* The stable modules' own errors through the new setters: a profile summing above 1 names the setting that
 * would rescale it (param), and a later error does not. */
START_TEST(profile_sum_error_names_normalize_then_forgets_it)
{
	ns_profile p;
	ns_error err;

	ns_error_clear(&err);
	ns_profile_init(&p);
	ck_assert_int_eq(ns_parse_flag_bucket(&p, NS_REGIME_COMPUTE, "0.8", &err), NS_OK);
	ck_assert_int_eq(ns_parse_flag_bucket(&p, NS_REGIME_MEMORY, "0.5", &err), NS_OK);
	ck_assert_int_eq(ns_profile_validate(&p, false, &err), NS_ERR_VALUE);
	ck_assert_int_eq(err.param, NS_PROFILE_PARAM_NORMALIZE);
	ck_assert_int_eq(ns_parse_flag_bucket(&p, NS_REGIME_COMPUTE, "0.1", &err),
	                 NS_ERR_VALUE); /* given twice */
	ck_assert_int_eq(err.param, 0);
}
END_TEST

START_TEST(trace_analyse_gives_each_device_its_verdict_and_next_step)
{
	ns_analysis *a = NULL;
	ns_error err;
	double gain = -1.0;

	ck_assert_int_eq(ns_trace_analyse(BUCKETS_TRACE, NULL, &a, &err), NS_OK);
	ck_assert_uint_eq(ns_analysis_devices(a), 1);
	ck_assert_str_eq(ns_analysis_label(a, 0), "rank 0 dev 0"); /* distributedInfo rank 0, device 0 */
	ck_assert(ns_analysis_routed(a, 0));
	ck_assert_int_eq(ns_analysis_verdict(a, 0)->regime, NS_REGIME_COMPUTE);
	ck_assert_double_eq_tol(ns_analysis_verdict(a, 0)->share, 0.30, 1e-9);
	ck_assert_ptr_nonnull(ns_analysis_routes(a, 0));
	ck_assert_ptr_nonnull(ns_analysis_next_fix(a, 0, &gain));
	ck_assert(gain > 0.0 && gain <= 1.0);
	ck_assert_ptr_null(ns_analysis_verdict(a, 1));
	ck_assert_ptr_null(ns_analysis_label(a, 1));
	ck_assert_ptr_null(ns_analysis_next_fix(a, 1, &gain));
	ns_analysis_free(a);
}
END_TEST

START_TEST(trace_analyse_of_a_missing_file_is_an_io_error)
{
	ns_analysis *a = (ns_analysis *)&a; /* set to NULL on failure */
	ns_error err;

	ck_assert_int_eq(ns_trace_analyse("tests/data/no-such-trace.json", NULL, &a, &err), NS_ERR_IO);
	ck_assert_ptr_null(a);
	ck_assert(err.msg[0] != '\0');
}
END_TEST

/* The fixture gzipped into path, whole or cut after its first 200 compressed bytes (the
 * start of its text, no event complete). */
static void write_gzip(const char *path, bool cut)
{
	FILE *in = fopen(BUCKETS_TRACE, "rb");
	char text[1 << 16];
	size_t n;
	unsigned char *z;
	uLongf zn;
	z_stream zs;
	FILE *out;

	ck_assert_ptr_nonnull(in);
	n = fread(text, 1, sizeof(text), in);
	fclose(in);
	ck_assert(n > 0 && n < sizeof(text));
	zn = compressBound(n) + 64;
	z = malloc(zn);
	memset(&zs, 0, sizeof(zs));
	ck_assert_int_eq(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (unsigned char *)text;
	zs.avail_in = (uInt)n;
	zs.next_out = z;
	zs.avail_out = (uInt)zn;
	ck_assert_int_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	out = fopen(path, "wb");
	ck_assert_ptr_nonnull(out);
	fwrite(z, 1, cut ? 200 : zs.total_out, out);
	fclose(out);
	deflateEnd(&zs);
	free(z);
}

/* One thread (gzip inflated by the caller's thread) or two: the same analysis. */
START_TEST(trace_analyse_reads_gzip_with_or_without_a_thread)
{
	char path[] = "/tmp/ns-test-api-XXXXXX";
	int fd = mkstemp(path);
	ns_trace_options *o = ns_trace_options_new();
	ns_analysis *one = NULL, *two = NULL;
	ns_error err;

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_gzip(path, false);
	ns_trace_options_set_threads(o, 1);
	ck_assert_int_eq(ns_trace_analyse(path, o, &one, &err), NS_OK);
	ns_trace_options_set_threads(o, 0);
	ck_assert_int_eq(ns_trace_analyse(path, o, &two, &err), NS_OK);
	ck_assert_int_eq(ns_analysis_verdict(one, 0)->regime, NS_REGIME_COMPUTE);
	ck_assert_double_eq_tol(ns_analysis_verdict(one, 0)->share, 0.30, 1e-9);
	ck_assert_mem_eq(ns_analysis_verdict(one, 0)->split, ns_analysis_verdict(two, 0)->split,
	                 sizeof(ns_analysis_verdict(one, 0)->split));
	ns_analysis_free(one);
	ns_analysis_free(two);
	ns_trace_options_free(o);
	unlink(path);
}
END_TEST

/* Inflated without a thread, a gzip stream cut short is the same error, at the same byte, as with one. */
START_TEST(trace_analyse_without_a_thread_says_where_gzip_stops)
{
	char path[] = "/tmp/ns-test-api-XXXXXX";
	int fd = mkstemp(path);
	ns_trace_options *o = ns_trace_options_new();
	ns_analysis *a = NULL;
	ns_error one, two;

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_gzip(path, true);
	ns_trace_options_set_threads(o, 1);
	ck_assert_int_eq(ns_trace_analyse(path, o, &a, &one), NS_ERR_SYNTAX);
	ck_assert_ptr_null(a);
	ns_trace_options_set_threads(o, 2);
	ck_assert_int_eq(ns_trace_analyse(path, o, &a, &two), NS_ERR_SYNTAX);
	ck_assert_str_eq(one.msg, "truncated gzip data");
	ck_assert_str_eq(one.msg, two.msg);
	ck_assert(one.offset > 0);
	ck_assert_int_eq(one.offset, two.offset);
	ns_trace_options_free(o);
	unlink(path);
}
END_TEST

/* The fixture's first n bytes in a temporary file at path. */
static void write_head(char *path, size_t n)
{
	FILE *in = fopen(BUCKETS_TRACE, "rb");
	char text[1 << 16];
	size_t got;
	int fd = mkstemp(path);
	FILE *out;

	ck_assert_ptr_nonnull(in);
	ck_assert_int_ge(fd, 0);
	got = fread(text, 1, sizeof(text), in);
	fclose(in);
	ck_assert(got >= n);
	out = fdopen(fd, "wb");
	ck_assert_ptr_nonnull(out);
	ck_assert_uint_eq(fwrite(text, 1, n, out), n);
	fclose(out);
}

static void count_bytes(void *ctx, unsigned long long bytes_read)
{
	unsigned long long *last = ctx;

	ck_assert(bytes_read >= *last); /* a running count */
	*last = bytes_read;
}

/* The hook sees the running count of bytes read, ending at the file's size (4403 bytes, plain JSON). */
START_TEST(trace_analyse_reports_its_progress_in_bytes_read)
{
	ns_trace_options *o = ns_trace_options_new();
	ns_analysis *a = NULL;
	unsigned long long last = 0;
	ns_error err;

	ns_trace_options_set_progress(o, count_bytes, &last);
	ck_assert_int_eq(ns_trace_analyse(BUCKETS_TRACE, o, &a, &err), NS_OK);
	ck_assert_uint_eq(last, 4403);
	ns_analysis_free(a);
	ns_trace_options_free(o);
}
END_TEST

/* A file cut inside its events (3000 of 4403 bytes: the first step's events whole) is analysed as far as it
 * goes, and says where reading stopped; a whole file was not cut. */
START_TEST(trace_analyse_of_a_cut_file_says_where_it_stopped)
{
	char path[] = "/tmp/ns-test-api-XXXXXX";
	ns_analysis *a = NULL;
	ns_error err;

	write_head(path, 3000);
	ck_assert_int_eq(ns_trace_analyse(path, NULL, &a, &err), NS_OK);
	ck_assert_ptr_nonnull(ns_analysis_cut(a));
	ck_assert(ns_analysis_cut(a)->status != NS_OK);
	ck_assert(ns_analysis_cut(a)->msg[0] != '\0');
	ck_assert_uint_eq(ns_analysis_devices(a), 1);
	ns_analysis_free(a);
	unlink(path);
	ck_assert_int_eq(ns_trace_analyse(BUCKETS_TRACE, NULL, &a, &err), NS_OK);
	ck_assert_ptr_null(ns_analysis_cut(a));
	ns_analysis_free(a);
}
END_TEST

/* A step marker that does not compile is a value error, found when it is set; NULL takes it back. */
START_TEST(trace_options_refuse_a_step_marker_that_does_not_compile)
{
	ns_trace_options *o = ns_trace_options_new();
	ns_analysis *a = NULL;
	ns_error err;

	ck_assert_int_eq(ns_trace_options_set_step_marker(o, "(unclosed", &err), NS_ERR_VALUE);
	ck_assert(err.msg[0] != '\0');
	ck_assert_int_eq(ns_trace_options_set_step_marker(o, "^ProfilerStep#", &err), NS_OK);
	ck_assert_int_eq(ns_trace_options_set_step_marker(o, NULL, &err), NS_OK);
	ck_assert_int_eq(ns_trace_analyse(BUCKETS_TRACE, o, &a, &err), NS_OK);
	ck_assert_int_eq(ns_analysis_verdict(a, 0)->regime, NS_REGIME_COMPUTE);
	ns_analysis_free(a);
	ns_trace_options_free(o);
}
END_TEST

/* The line of the CLI's golden output for `trace --roofline` on ROOFLINE_TRACE that starts with prefix, into
 * buf (its newline cut). */
static void golden_line(const char *prefix, char *buf, size_t size)
{
	FILE *in = fopen("tests/cli/cases/trace_roofline_text.out", "r");
	bool found = false;

	ck_assert_ptr_nonnull(in);
	while (!found && fgets(buf, (int)size, in) != NULL)
		found = strncmp(buf, prefix, strlen(prefix)) == 0;
	fclose(in);
	ck_assert(found);
	buf[strcspn(buf, "\n")] = '\0';
}

/* With the roofline option the library decides the next step `trace --roofline` prints (issue 20): on the
 * fixture of docs/next-step.md's worked example (H100 SXM) the compute kernels hold 182.5 us a step, 440 of
 * their 493 us are in placed ops, and 94.6 % of those are above the bf16 roof: 182.5 x 0.892 x 0.946 =
 * 154.0 us of the 200 us step, 77.0 %. Without the option the analysis has no device table either, so
 * nothing bounds the compute kernels and the launch overhead's 10 us (5.0 %: the 20 us of overhead of the two
 * steps) is the largest bound. The fix named is the compute headline's, worded with the H100's peaks from the
 * device table (as the command line words it). */
START_TEST(trace_analyse_with_roofline_decides_the_next_step_the_cli_prints)
{
	ns_trace_options *o = ns_trace_options_new();
	ns_format_options text = {NS_FORMAT_TEXT, false, false};
	ns_analysis *plain = NULL, *roof = NULL;
	char want[4096], *printed = NULL, *line;
	size_t size = 0;
	const char *fix;
	double gain = -1.0;
	ns_error err;
	FILE *mem;

	ck_assert_int_eq(ns_trace_analyse(ROOFLINE_TRACE, NULL, &plain, &err), NS_OK);
	ck_assert_ptr_nonnull(ns_analysis_next_fix(plain, 0, &gain));
	ck_assert_double_eq_tol(gain, 0.050, 5e-4);
	ck_assert_int_eq(ns_trace_options_set_roofline(o, "data/devices.json", &err), NS_OK);
	ck_assert_int_eq(ns_trace_analyse(ROOFLINE_TRACE, o, &roof, &err), NS_OK);
	ns_trace_options_free(o); /* the analysis keeps what it needs of the options' device table */
	fix = ns_analysis_next_fix(roof, 0, &gain);
	ck_assert_ptr_nonnull(fix);
	ck_assert_double_eq_tol(gain, 0.770, 5e-4);
	ck_assert_ptr_nonnull(strstr(fix, "(bf16 989.5 vs fp32 67 TFLOP/s, H100 SXM)"));
	golden_line("next step: ", want, sizeof(want));
	ck_assert_ptr_nonnull(strstr(want, fix));
	mem = open_memstream(&printed, &size);
	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(ns_analysis_print(mem, roof, &text, &err), NS_OK);
	fclose(mem);
	line = strstr(printed, "\nnext step: ");
	ck_assert_ptr_nonnull(line);
	line++;
	line[strcspn(line, "\n")] = '\0';
	ck_assert_str_eq(line, want);
	free(printed);
	ns_analysis_free(plain);
	ns_analysis_free(roof);
}
END_TEST

/* The device table alone (no roofline) gives the library the advice and the next step `nextstep trace`
 * prints: on tests/data/trace_buckets.json (two 100 us steps on an A100 SXM 80GB) the compute kernels hold 30
 * us a step, half of it (15 us) in an fp32 SIMT sgemm; the A100's bf16 tensor cores peak 312 against
 * fp32's 19.5 TFLOP/s, 16x, so those FLOPs need at most 15 / 16 us there and at least 15 x 15/16 = 14.06 us a
 * step is above that roof: 14.1 % of the step, more than the 11.5 % of unrecorded host time that is the next
 * step without the table. */
START_TEST(trace_analyse_with_a_device_table_decides_the_next_step_the_cli_prints)
{
	ns_trace_options *o = ns_trace_options_new();
	ns_analysis *plain = NULL, *advised = NULL;
	const char *fix;
	double gain = -1.0;
	ns_error err;

	ck_assert_int_eq(ns_trace_analyse(BUCKETS_TRACE, NULL, &plain, &err), NS_OK);
	ck_assert_ptr_nonnull(ns_analysis_next_fix(plain, 0, &gain));
	ck_assert_double_eq_tol(gain, 0.115, 5e-4);
	ck_assert_int_eq(ns_trace_options_set_device_table(o, "data/devices.json", &err), NS_OK);
	ck_assert_int_eq(ns_trace_analyse(BUCKETS_TRACE, o, &advised, &err), NS_OK);
	ns_trace_options_free(o); /* the analysis keeps what it needs of the options' device table */
	fix = ns_analysis_next_fix(advised, 0, &gain);
	ck_assert_ptr_nonnull(fix);
	ck_assert_double_eq_tol(gain, 0.140625, 5e-4);
	ck_assert_ptr_nonnull(strstr(fix, "(bf16 312 vs fp32 19.5 TFLOP/s, A100 SXM 80GB)"));
	ns_analysis_free(plain);
	ns_analysis_free(advised);
}
END_TEST

/* The analysis of path with the shipped device table (as `nextstep trace` reads it), printed as text
 * (the caller frees it). */
static char *analysed_with_device_table(const char *path, double *gain)
{
	ns_trace_options *o = ns_trace_options_new();
	ns_format_options text = {NS_FORMAT_TEXT, false, false};
	ns_analysis *a = NULL;
	char *printed = NULL;
	size_t size = 0;
	ns_error err;
	FILE *mem;

	ck_assert_int_eq(ns_trace_options_set_device_table(o, "data/devices.json", &err), NS_OK);
	ck_assert_int_eq(ns_trace_analyse(path, o, &a, &err), NS_OK);
	ns_trace_options_free(o);
	ck_assert_ptr_nonnull(ns_analysis_next_fix(a, 0, gain));
	mem = open_memstream(&printed, &size);
	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(ns_analysis_print(mem, a, &text, &err), NS_OK);
	fclose(mem);
	ns_analysis_free(a);
	return printed;
}

/* A trace that records shapes gets, from the device table alone, the bound the roofline option gives (the
 * placement of the test above: 154.0 us of the 200 us step, 77.0 %), as `nextstep trace` places its ops
 * unasked; but the report prints no roofline section ("roofline: H100 SXM ..." and its table of families),
 * which only the option asks for. */
START_TEST(trace_analyse_with_a_device_table_places_a_trace_with_shapes_unprinted)
{
	double gain = -1.0;
	char *printed = analysed_with_device_table(ROOFLINE_TRACE, &gain);

	ck_assert_double_eq_tol(gain, 0.770, 5e-4);
	ck_assert_ptr_nonnull(
	    strstr(printed, "\nnext step: compute-bound kernels, up to 0.154 ms a step (77.0%)"));
	ck_assert_ptr_null(strstr(printed, "\nroofline: "));
	ck_assert_ptr_null(strstr(printed, "  family "));
	free(printed);
}
END_TEST

/* tests/data/trace_buckets.json records no shapes (no Input Dims): with the device table, nothing can be
 * placed, and the compute kernels' bound says why and what to do, not "--roofline" (which could not place
 * them either). */
START_TEST(trace_analyse_of_a_trace_without_shapes_says_to_record_them)
{
	double gain = -1.0;
	char *printed = analysed_with_device_table(BUCKETS_TRACE, &gain);

	ck_assert_ptr_nonnull(strstr(printed, "  bound unknown: compute-bound kernels hold 0.015 ms a step"));
	ck_assert_ptr_nonnull(
	    strstr(printed, "(the trace records no op shapes: record them with record_shapes=True)"));
	ck_assert_ptr_null(strstr(printed, "--roofline"));
	free(printed);
}
END_TEST

static Suite *api_suite(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("stable");

	tcase_add_test(tc, version_macros_agree_with_the_library);
	tcase_add_test(tc, routes_new_routes_a_profile);
	tcase_add_test(tc, error_set_forgets_the_earlier_position_and_param);
	tcase_add_test(tc, error_at_and_set_param_record_where_and_which);
	tcase_add_test(tc, profile_sum_error_names_normalize_then_forgets_it);
	tcase_add_test(tc, trace_analyse_gives_each_device_its_verdict_and_next_step);
	tcase_add_test(tc, trace_analyse_of_a_missing_file_is_an_io_error);
	tcase_add_test(tc, trace_analyse_reads_gzip_with_or_without_a_thread);
	tcase_add_test(tc, trace_analyse_without_a_thread_says_where_gzip_stops);
	tcase_add_test(tc, trace_analyse_reports_its_progress_in_bytes_read);
	tcase_add_test(tc, trace_analyse_of_a_cut_file_says_where_it_stopped);
	tcase_add_test(tc, trace_options_refuse_a_step_marker_that_does_not_compile);
	tcase_add_test(tc, trace_analyse_with_roofline_decides_the_next_step_the_cli_prints);
	tcase_add_test(tc, trace_analyse_with_a_device_table_decides_the_next_step_the_cli_prints);
	tcase_add_test(tc, trace_analyse_with_a_device_table_places_a_trace_with_shapes_unprinted);
	tcase_add_test(tc, trace_analyse_of_a_trace_without_shapes_says_to_record_them);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(api_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
