/* The device table: the shipped data/devices.json, name and trace-name matching, overlays, bad files. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nextstep/devices.h"
#include "nextstep/op_models.h"

static ns_device_table table;

/* Tests run from the repository root (CTest sets the working directory). */
static void load_shipped(void)
{
	ns_error err;

	ns_devices_init(&table);
	ns_error_clear(&err);
	ck_assert_msg(ns_devices_load_file(&table, "data/devices.json", &err) == NS_OK, "%s (line %ld)",
	              err.msg, err.line);
}

static void unload(void)
{
	ns_devices_free(&table);
}

static const char *const required[] = {"V100 SXM2",
                                       "A100 SXM 40GB",
                                       "A100 SXM 80GB",
                                       "A100 PCIe 80GB",
                                       "H100 SXM",
                                       "H100 PCIe",
                                       "H200 SXM",
                                       "B200",
                                       "L4",
                                       "L40S",
                                       "RTX 4090",
                                       "MI250X",
                                       "MI300X",
                                       "T4",
                                       "A10",
                                       "L40",
                                       "A40",
                                       "H800 SXM",
                                       "H20",
                                       "GH200",
                                       "MI210",
                                       "MI325X",
                                       "MI250X GCD"};

START_TEST(shipped_table_has_every_required_device_with_a_source)
{
	const ns_device *d = ns_devices_find(&table, required[_i]);

	ck_assert_msg(d != NULL, "%s missing", required[_i]);
	ck_assert_ptr_nonnull(d->source);
	ck_assert_msg(strstr(d->source, "http") != NULL, "%s: source has no address", d->name);
	ck_assert(d->mem_bw > 0.0);
	ck_assert(d->mem_bytes > 0.0);
	ck_assert(d->sms > 0);
	ck_assert(d->peak[NS_DTYPE_FP32] > 0.0 || d->peak[NS_DTYPE_FP16] > 0.0);
}
END_TEST

/* Parts whose vendor leaves a figure out are in the table with that figure missing, never a guess. */
START_TEST(parts_without_published_figures_leave_them_out)
{
	const ns_device *a10g = ns_devices_find(&table, "NVIDIA A10G");
	const ns_device *gb200 = ns_devices_find(&table, "gb200");

	ck_assert_ptr_nonnull(a10g);
	ck_assert_str_eq(a10g->name, "A10G");
	for (int i = 0; i < NS_DTYPE_COUNT; i++)
		ck_assert_double_eq(a10g->peak[i], 0.0);
	ck_assert(fabs(a10g->mem_bw - 600e9) < 1e3);
	ck_assert_ptr_nonnull(a10g->notes);
	ck_assert_ptr_nonnull(gb200);
	ck_assert_int_eq(gb200->sms, 0);
}
END_TEST

/* Dense datasheet numbers, hand-copied: a sparse figure (twice these) would fail here. */
static const struct {
	const char *device;
	ns_dtype dt;
	double tflops, bw_gbs;
} peak_rows[] = {
    {"H100 SXM", NS_DTYPE_BF16, 989.5, 3350},
    {"H100 SXM", NS_DTYPE_FP8, 1979, 3350},
    {"H100 PCIe", NS_DTYPE_BF16, 756.5, 2000},
    {"H200 SXM", NS_DTYPE_BF16, 989.5, 4800},
    {"A100 SXM 80GB", NS_DTYPE_BF16, 312, 2039},
    {"A100 SXM 40GB", NS_DTYPE_TF32, 156, 1555},
    {"V100 SXM2", NS_DTYPE_FP16, 125, 900},
    {"B200", NS_DTYPE_BF16, 2250, 7700},
    {"B200", NS_DTYPE_FP4, 9000, 7700},
    {"L4", NS_DTYPE_FP8, 242.5, 300},
    {"L40S", NS_DTYPE_BF16, 362.05, 864},
    {"RTX 4090", NS_DTYPE_BF16, 165.2, 1008},
    {"MI300X", NS_DTYPE_BF16, 1307.4, 5300},
    {"MI250X", NS_DTYPE_FP16, 383, 3276.8},
    /* T4 datasheet: no sparsity on Turing, printed as is */
    {"T4", NS_DTYPE_FP16, 65, 320},
    {"T4", NS_DTYPE_INT8, 130, 320},
    /* A10: 125 | 250* bf16 */
    {"A10", NS_DTYPE_BF16, 125, 600},
    {"A10", NS_DTYPE_TF32, 62.5, 600},
    /* L40: 181.05 | 362.1* bf16, 362 | 724* fp8 */
    {"L40", NS_DTYPE_BF16, 181.05, 864},
    {"L40", NS_DTYPE_FP8, 362, 864},
    /* A40: 149.7 | 299.4* bf16, 74.8 | 149.6* tf32 */
    {"A40", NS_DTYPE_BF16, 149.7, 696},
    {"A40", NS_DTYPE_TF32, 74.8, 696},
    /* H800 SXM: 1,979* bf16, 3,958* fp8, 1 fp64 */
    {"H800 SXM", NS_DTYPE_BF16, 989.5, 3350},
    {"H800 SXM", NS_DTYPE_FP64, 1, 3350},
    {"H20", NS_DTYPE_BF16, 148, 4000},
    {"GH200", NS_DTYPE_BF16, 990, 4000},
    {"GH200 144GB", NS_DTYPE_BF16, 990, 4900},
    /* GB200 NVL72 column, per GPU: 5 PF* bf16, 20 PF* fp4, 8 TB/s */
    {"GB200", NS_DTYPE_BF16, 2500, 8000},
    {"GB200", NS_DTYPE_FP4, 10000, 8000},
    {"MI210", NS_DTYPE_FP16, 181, 1638.4},
    {"MI210", NS_DTYPE_FP64, 45.3, 1638.4},
    {"MI325X", NS_DTYPE_BF16, 1307.4, 6000},
    {"MI325X", NS_DTYPE_FP8, 2614.9, 6000},
    /* one GCD: half the module's 383 and 3276.8 */
    {"MI250X GCD", NS_DTYPE_BF16, 191.5, 1638.4},
};

START_TEST(shipped_peaks_are_the_dense_datasheet_numbers)
{
	const ns_device *d = ns_devices_find(&table, peak_rows[_i].device);

	ck_assert_ptr_nonnull(d);
	ck_assert_msg(fabs(d->peak[peak_rows[_i].dt] - peak_rows[_i].tflops * 1e12) < 1e6, "%s %s: %g",
	              peak_rows[_i].device, ns_dtype_name(peak_rows[_i].dt), d->peak[peak_rows[_i].dt]);
	ck_assert(fabs(d->mem_bw - peak_rows[_i].bw_gbs * 1e9) < 1e3);
}
END_TEST

START_TEST(ridge_is_peak_over_bandwidth)
{
	const ns_device *h100 = ns_devices_find(&table, "H100 SXM");

	ck_assert(fabs(ns_device_ridge(h100, NS_DTYPE_BF16) - 989.5 / 3.35) < 1e-9);
	ck_assert_double_eq(ns_device_ridge(ns_devices_find(&table, "V100 SXM2"), NS_DTYPE_BF16),
	                    0.0); /* no bf16 on Volta */
}
END_TEST

/* The FLOPs per byte below which a GEMM counts as memory-bound whatever the device (op_table.c) must stay
 * below the ridge point of every device of the shipped table for that dtype; an fp32 GEMM may also run as
 * tf32 and is held to the fp32 ridge (the lower). A device without a peak for a dtype runs none of it. */
START_TEST(gemm_memory_bound_is_below_every_ridge)
{
	size_t checked = 0;

	for (size_t i = 0; i < table.n; i++)
		for (int d = 0; d < NS_DTYPE_COUNT; d++) {
			double bound = ns_op_gemm_memory_intensity((ns_dtype)d);
			double ridge = ns_device_ridge(&table.dev[i], (ns_dtype)d);
			if (bound <= 0.0 || ridge <= 0.0)
				continue;
			ck_assert_msg(bound < ridge, "%s %s: bound %g >= ridge %g", table.dev[i].name,
			              ns_dtype_name((ns_dtype)d), bound, ridge);
			checked++;
		}
	ck_assert_uint_gt(checked, 100);
	/* the lowest ridges the bounds are set under: A100 SXM 80GB fp32 (19.5 / 2.039) and H20 bf16 */
	ck_assert(ns_op_gemm_memory_intensity(NS_DTYPE_FP32) <
	          ns_device_ridge(ns_devices_find(&table, "A100 SXM 80GB"), NS_DTYPE_FP32));
	ck_assert(ns_op_gemm_memory_intensity(NS_DTYPE_BF16) <
	          ns_device_ridge(ns_devices_find(&table, "H20"), NS_DTYPE_BF16));
	ck_assert_double_eq(ns_op_gemm_memory_intensity(NS_DTYPE_FP64), 0.0);
}
END_TEST

static const struct {
	const char *asked, *want;
} name_rows[] = {
    {"h100", "H100 SXM"},           {"H100-SXM", "H100 SXM"},
    {"h100 sxm", "H100 SXM"},       {"H100_SXM5", "H100 SXM"},
    {"a100", "A100 SXM 80GB"},      {"A100-PCIe", "A100 PCIe 80GB"},
    {"a100-40gb", "A100 SXM 40GB"}, {"rtx4090", "RTX 4090"},
    {"MI300X", "MI300X"},           {"NVIDIA H100 80GB HBM3", "H100 SXM"},
};

START_TEST(devices_find_ignores_case_spaces_and_dashes)
{
	const ns_device *d = ns_devices_find(&table, name_rows[_i].asked);

	ck_assert_msg(d != NULL, "%s not found", name_rows[_i].asked);
	ck_assert_str_eq(d->name, name_rows[_i].want);
}
END_TEST

static const struct {
	const char *trace_name, *want; /* want NULL: no match, never a guess */
} trace_rows[] = {
    {"NVIDIA H100 80GB HBM3", "H100 SXM"},
    {"NVIDIA H100 PCIe", "H100 PCIe"},
    {"NVIDIA A100-SXM4-80GB", "A100 SXM 80GB"},
    {"NVIDIA A100-SXM4-40GB", "A100 SXM 40GB"},
    {"NVIDIA A100-PG509-200", "A100 SXM 40GB"}, /* HTA's test traces */
    {"Tesla V100-DGXS-32GB", "V100 SXM2"},      /* the kineto tb_plugin sample */
    {"Tesla V100-SXM2-16GB", "V100 SXM2"},
    {"NVIDIA L4", "L4"},
    {"NVIDIA L40S", "L40S"},
    {"NVIDIA GeForce RTX 4090", "RTX 4090"},
    {"NVIDIA H200", "H200 SXM"},
    {"NVIDIA B200", "B200"},
    {"AMD Instinct MI300X", "MI300X"},
    {"AMD Radeon Graphics", NULL},
    /* the names PyTorch reports for the parts added with their datasheets */
    {"Tesla T4", "T4"},
    {"NVIDIA A10", "A10"},
    {"NVIDIA A10G", "A10G"},
    {"NVIDIA L40", "L40"},
    {"NVIDIA A40", "A40"},
    {"NVIDIA H800", "H800 SXM"},
    {"NVIDIA H20", "H20"},
    {"NVIDIA GH200 480GB", "GH200"},
    {"NVIDIA GB200", "GB200"},
    {"NVIDIA PG509-210", "A100 SXM 80GB"},
    {"AMD Instinct MI210", "MI210"},
    {"AMD Instinct MI325X", "MI325X"},
    {"AMD Instinct MI300X VF", "MI300X"},
    {"AMD Instinct MI250X", "MI250X GCD"}, /* ROCm reports one die of the module */
    {"AMD Instinct MI250X / MI250", "MI250X GCD"},
    /* other parts whose names start with a known one: never matched by prefix */
    {"NVIDIA H100 NVL", NULL},
    {"NVIDIA H200 NVL", NULL},
    {"NVIDIA GeForce RTX 4090 D", NULL},
    {"NVIDIA GeForce RTX 4090 Laptop GPU", NULL},
    {"NVIDIA H100 80GB HBM3 MIG 1g.10gb", NULL},
    {"NVIDIA L40S-48Q", NULL},
    {"NVIDIA A100 80GB PCIe MIG", NULL},
    {"NVIDIA H20-3e", NULL},
    {"AMD Instinct MI300A", NULL},
    {"AMD Instinct MI250", NULL},
    {"NVIDIA T4G", NULL},
    {"", NULL},
};

START_TEST(trace_device_names_match_exactly_or_not_at_all)
{
	const ns_device *d = ns_devices_match_trace_name(&table, trace_rows[_i].trace_name);

	if (trace_rows[_i].want == NULL) {
		ck_assert_msg(d == NULL, "'%s' matched %s", trace_rows[_i].trace_name, d ? d->name : "");
		return;
	}
	ck_assert_msg(d != NULL, "'%s' not matched", trace_rows[_i].trace_name);
	ck_assert_str_eq(d->name, trace_rows[_i].want);
}
END_TEST

static char *write_temp(const char *text)
{
	static char path[64];
	FILE *fp;
	int fd;

	snprintf(path, sizeof(path), "/tmp/ns-devices-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	fp = fdopen(fd, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	fclose(fp);
	return path;
}

START_TEST(device_file_overrides_by_name_and_adds_new_devices)
{
	size_t before = table.n;
	char *path = write_temp(
	    "{\"devices\": [\n"
	    " {\"name\": \"h100-sxm\", \"peak_tflops\": {\"bf16\": 500}, \"memory_bandwidth_gbs\": 1000},\n"
	    " {\"name\": \"Lab GPU\", \"aliases\": [\"lab\"], \"peak_tflops\": {\"fp32\": 10}, "
	    "\"memory_bandwidth_gbs\": 100, \"sms\": 4}\n]}\n");
	ns_error err;
	const ns_device *d;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_devices_load_file(&table, path, &err), NS_OK);
	unlink(path);
	ck_assert_uint_eq(table.n, before + 1);
	d = ns_devices_find(&table, "h100");
	ck_assert_ptr_nonnull(d); /* the old aliases went with the old entry; the new name still matches */
	d = ns_devices_find(&table, "H100 SXM");
	ck_assert_ptr_nonnull(d);
	ck_assert_double_eq(d->peak[NS_DTYPE_BF16], 500e12);
	ck_assert_double_eq(d->peak[NS_DTYPE_FP8], 0.0);
	d = ns_devices_find(&table, "LAB");
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(d->name, "Lab GPU");
	ck_assert_double_eq(ns_device_ridge(d, NS_DTYPE_FP32), 100.0);
}
END_TEST

static const struct {
	const char *text;
	ns_status want;
	long line;
	const char *msg_part;
} bad_files[] = {
    {"{\"devices\": [\n  {\"name\": \"x\",,}\n]}", NS_ERR_SYNTAX, 2, "malformed JSON"},
    {"[]", NS_ERR_VALUE, -1, "\"devices\" array"},
    {"{\"devices\": {}}", NS_ERR_VALUE, -1, "must be an array"},
    {"{\"devices\": [], \"extra\": 1}", NS_ERR_KEY, -1, "unknown key \"extra\""},
    {"{\"devices\": [{\"peak_tflops\": {\"bf16\": 1}, \"memory_bandwidth_gbs\": 1}]}", NS_ERR_VALUE, -1,
     "device 1: \"name\""},
    {"{\"devices\": [{\"name\": \"x\", \"peak_tflops\": {\"bf16\": 1}}]}", NS_ERR_VALUE, -1,
     "memory_bandwidth_gbs is missing"},
    {"{\"devices\": [{\"name\": \"x\", \"peak_tflops\": {\"bf17\": 1}, \"memory_bandwidth_gbs\": 1}]}",
     NS_ERR_KEY, -1, "unknown dtype \"bf17\""},
    {"{\"devices\": [{\"name\": \"x\", \"peak_tflops\": {\"bf16\": -1}, \"memory_bandwidth_gbs\": 1}]}",
     NS_ERR_VALUE, -1, "peak_tflops.bf16 must be a positive number"},
    {"{\"devices\": [{\"name\": \"x\", \"peak_tflops\": {}, \"memory_bandwidth_gbs\": 1}]}", NS_ERR_VALUE, -1,
     "lists no dtype"},
    {"{\"devices\": [{\"name\": \"x\", \"peak_tflops\": {\"bf16\": 1}, \"memory_bandwidth_gbs\": 1, \"tdp\": "
     "1}]}",
     NS_ERR_KEY, -1, "unknown key \"tdp\""},
    {"{\"devices\": [{\"name\": \"x\", \"peak_tflops\": {\"bf16\": 1}, \"memory_bandwidth_gbs\": 1},"
     " {\"name\": \"X\", \"peak_tflops\": {\"bf16\": 1}, \"memory_bandwidth_gbs\": 1}]}",
     NS_ERR_KEY, -1, "listed twice"},
    {"{\"devices\": [{\"name\": \"x\", \"peak_tflops\": {\"bf16\": 1}, \"memory_bandwidth_gbs\": 1, \"sms\": "
     "1.5}]}",
     NS_ERR_VALUE, -1, "sms must be"},
};

START_TEST(malformed_device_files_fail_and_leave_the_table_alone)
{
	size_t before = table.n;
	char *path = write_temp(bad_files[_i].text);
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_devices_load_file(&table, path, &err), bad_files[_i].want);
	unlink(path);
	ck_assert_msg(strstr(err.msg, bad_files[_i].msg_part) != NULL, "message: %s", err.msg);
	if (bad_files[_i].line > 0)
		ck_assert_int_eq(err.line, bad_files[_i].line);
	ck_assert_uint_eq(table.n, before);
	ck_assert(fabs(ns_devices_find(&table, "H100 SXM")->peak[NS_DTYPE_BF16] - 989.5e12) < 1e6);
}
END_TEST

START_TEST(missing_device_file_is_an_io_error)
{
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_devices_load_file(&table, "/nonexistent/devices.json", &err), NS_ERR_IO);
}
END_TEST

START_TEST(load_dir_reads_devices_json_of_the_folder_and_names_the_path)
{
	char path[64];
	ns_device_table t2;
	ns_error err;

	ns_devices_init(&t2);
	ns_error_clear(&err);
	ck_assert_int_eq(ns_devices_load_dir(&t2, "data", path, sizeof(path), &err), NS_OK);
	ck_assert_str_eq(path, "data/devices.json");
	ck_assert_uint_eq(t2.n, table.n);
	ns_devices_free(&t2);
	ck_assert_int_eq(ns_devices_load_dir(&t2, "/nonexistent", path, sizeof(path), &err), NS_ERR_IO);
	ck_assert_str_eq(path, "/nonexistent/devices.json");
	ck_assert_uint_eq(t2.n, 0);
	ck_assert_int_eq(ns_devices_load_dir(&t2,
	                                     "/a/folder/name/longer/than/the/buffer/given/for/the/path/x",
	                                     path, sizeof(path), &err),
	                 NS_ERR_LIMIT);
}
END_TEST

static Suite *devices_suite(void)
{
	Suite *s = suite_create("devices");
	TCase *shipped = tcase_create("shipped");
	TCase *files = tcase_create("files");

	tcase_add_checked_fixture(shipped, load_shipped, unload);
	tcase_add_checked_fixture(files, load_shipped, unload);
	tcase_add_loop_test(shipped, shipped_table_has_every_required_device_with_a_source, 0,
	                    sizeof(required) / sizeof(required[0]));
	tcase_add_test(shipped, parts_without_published_figures_leave_them_out);
	tcase_add_loop_test(shipped, shipped_peaks_are_the_dense_datasheet_numbers, 0,
	                    sizeof(peak_rows) / sizeof(peak_rows[0]));
	tcase_add_test(shipped, ridge_is_peak_over_bandwidth);
	tcase_add_test(shipped, gemm_memory_bound_is_below_every_ridge);
	tcase_add_loop_test(shipped, devices_find_ignores_case_spaces_and_dashes, 0,
	                    sizeof(name_rows) / sizeof(name_rows[0]));
	tcase_add_loop_test(shipped, trace_device_names_match_exactly_or_not_at_all, 0,
	                    sizeof(trace_rows) / sizeof(trace_rows[0]));
	tcase_add_test(files, device_file_overrides_by_name_and_adds_new_devices);
	tcase_add_loop_test(files, malformed_device_files_fail_and_leave_the_table_alone, 0,
	                    sizeof(bad_files) / sizeof(bad_files[0]));
	tcase_add_test(files, missing_device_file_is_an_io_error);
	tcase_add_test(files, load_dir_reads_devices_json_of_the_folder_and_names_the_path);
	suite_add_tcase(s, shipped);
	suite_add_tcase(s, files);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(devices_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
