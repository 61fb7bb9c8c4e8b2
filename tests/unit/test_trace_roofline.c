/* Unit tests for the trace roofline collector: kernels linked to the op that launched them, placements
 * checked against counts made by hand, and ops without enough information counted, not guessed.
 *
 * Hand counts for tests/data/ns_trace_roofline.json (H100 SXM: bf16 989.5 TFLOP/s, fp32 67 TFLOP/s, 3.35
 * TB/s, from data/devices.json): aten::addmm, Input Dims [[4096], [256, 1024], [1024, 4096], [], []], bf16,
 * twice (under aten::linear, whose own row must not appear), one 20 us GEMM kernel each: M=256 K=1024 N=4096;
 * FLOPs per op 2*256*4096*1024 = 2 147 483 648 bytes per op (bias 4096 + A 256*1024 + B 1024*4096 + C
 * 256*4096) * 2 B = 5 509 120 * 2 = 11 018 240 both: 4 294 967 296 FLOP, 22 036 480 B, 40 us; intensity
 * 194.90 FLOP/B < ridge 989.5/3.35 = 295.4: memory-bound; achieved 4.295e9 / 40e-6 = 107.37 TFLOP/s of an
 * attainable 194.90
 * * 3.35e12 = 652.9 TFLOP/s: 16.4% of the roof. aten::mm, [[2048, 2048], [2048, 2048]], float, flops 17 179
 * 869 184 in the trace (= 2*2048^3), 400 us: bytes 3 * 2048^2 * 4 = 50 331 648; intensity 341.33 >= fp32
 * ridge 67/3.35 = 20: compute-bound; achieved 17.18e9 / 400e-6 = 42.95 TFLOP/s of 67: 64.1% of the roof. Not
 * placed: aten::bmm without Input Dims (50 us), aten::matmul of c10::ComplexFloat (3 us). aten::add_ of two
 * bf16 [256, 4096] tensors in place, 5 us: 1 048 576 elements, two read and one written at 2 B: 6 291 456 B,
 * placed by bytes: 6 291 456 / 3.35e12 s = 1878.05 ns at the roof, 37.56% of it in 5 us.
 * Ops with GPU time: 2 addmm + mm + bmm + matmul + add_ = 6, 40 + 400 + 50 + 3 + 5 = 498 us; placed 445 us.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nextstep/gpu_util.h"
#include "nextstep/input.h"
#include "nextstep/trace_roofline.h"

#define FIXTURE   "tests/data/trace_roofline.json"
#define H100_BF16 989.5e12
#define H100_FP32 67e12
#define H100_BW   3.35e12

/* The shipped device table, loaded once (tests run from the source root). */
static const ns_device_table *shipped_devices(void)
{
	static ns_device_table table;
	static bool loaded;
	ns_error err;

	if (!loaded) {
		ns_devices_init(&table);
		ns_error_clear(&err);
		ck_assert_msg(ns_devices_load_file(&table, "data/devices.json", &err) == NS_OK, "%s",
		              err.msg);
		loaded = true;
	}
	return &table;
}

static void read_path(const char *path, const ns_troof_options *o, ns_troof_report *r)
{
	ns_troof_options with_table = *o;
	ns_trace_roofline *c = ns_trace_roofline_new();
	ns_trace_meta meta;
	ns_input in;
	ns_error err;

	ck_assert_ptr_nonnull(c);
	ns_error_clear(&err);
	ck_assert_msg(ns_input_open(&in, path, &err) == NS_OK, "%s: %s", path, err.msg);
	ck_assert_msg(ns_trace_read(&in, ns_trace_roofline_event, c, &meta, &err) == NS_OK, "%s", err.msg);
	ns_input_close(&in);
	with_table.devices = shipped_devices();
	ck_assert_msg(ns_trace_roofline_finish(c, &meta, &with_table, r, &err) == NS_OK, "%s", err.msg);
	ns_trace_roofline_free(c);
}

static void read_text(const char *doc, const ns_troof_options *o, ns_troof_report *r)
{
	char path[] = "/tmp/test_trace_roofline.XXXXXX";
	int fd = mkstemp(path);
	size_t len = strlen(doc);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, doc, len), (ssize_t)len);
	close(fd);
	read_path(path, o, r);
	unlink(path);
}

static void assert_near(double got, double want, const char *what)
{
	ck_assert_msg(fabs(got - want) <= 1e-9 * fabs(want), "%s: got %.12g want %.12g", what, got, want);
}

static const ns_troof_row *find_row(const ns_troof_report *r, const char *name)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (strcmp(r->rows[i].name, name) == 0)
			return &r->rows[i];
	return NULL;
}

/* ---- the fixture, against the hand counts above ---- */

typedef struct {
	const char *name;
	ns_dtype dtype;
	long count;
	int64_t gpu_ns;
	double m, n, k;
	double flops, bytes; /* sums over count ops */
	double peak;
	ns_regime regime;
} fixture_row;

static const fixture_row fixture_rows[] = {
    /* largest GPU time first */
    {"aten::mm", NS_DTYPE_FP32, 1, 400000, 2048, 2048, 2048, 17179869184.0, 3.0 * 2048 * 2048 * 4, H100_FP32,
     NS_REGIME_COMPUTE},
    {"aten::addmm", NS_DTYPE_BF16, 2, 40000, 256, 4096, 1024, 2 * (2.0 * 256 * 4096 * 1024),
     2 * (4096.0 + 256 * 1024 + 1024 * 4096 + 256 * 4096) * 2, H100_BF16, NS_REGIME_MEMORY},
};

START_TEST(fixture_placements_match_hand_counts)
{
	const fixture_row *want = &fixture_rows[_i];
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;
	const ns_troof_row *row;
	double intensity, achieved;

	read_path(FIXTURE, &o, &r);
	ck_assert(r.device_known);
	ck_assert_str_eq(r.device, "H100 SXM");
	ck_assert_int_eq(r.nrows, 3);
	row = find_row(&r, want->name);
	ck_assert_ptr_nonnull(row);
	ck_assert_str_eq(row->name, want->name);
	ck_assert_int_eq(row->dtype, want->dtype);
	ck_assert_int_eq(row->count, want->count);
	ck_assert_int_eq(row->gpu_ns, want->gpu_ns);
	assert_near(row->m, want->m, "M");
	assert_near(row->n, want->n, "N");
	assert_near(row->k, want->k, "K");
	assert_near(row->flops, want->flops, "FLOPs");
	assert_near(row->bytes, want->bytes, "bytes");
	intensity = want->flops / want->bytes;
	achieved = want->flops / ((double)want->gpu_ns * 1e-9);
	assert_near(row->roof.intensity, intensity, "intensity");
	assert_near(row->roof.achieved_flops, achieved, "achieved");
	assert_near(row->roof.fraction_of_roof, achieved / fmin(want->peak, intensity * H100_BW),
	            "share of roof");
	ck_assert_int_eq(row->roof.regime, want->regime);
	ns_troof_report_free(&r);
}
END_TEST

START_TEST(fixture_counts_ops_it_cannot_place_by_reason)
{
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;

	read_path(FIXTURE, &o, &r);
	ck_assert_int_eq(r.ops, 6);
	ck_assert_int_eq(r.ops_ns, 498000);
	ck_assert_int_eq(r.unplaced[NS_TROOF_NO_SHAPES], 1);
	ck_assert_int_eq(r.unplaced_ns[NS_TROOF_NO_SHAPES], 50000);
	ck_assert_int_eq(r.unplaced[NS_TROOF_NO_DTYPE], 1);
	ck_assert_int_eq(r.unplaced_ns[NS_TROOF_NO_DTYPE], 3000);
	ck_assert_int_eq(r.unplaced[NS_TROOF_UNKNOWN_OP], 0);
	ck_assert_int_eq(r.unplaced[NS_TROOF_NO_PEAK] + r.unplaced[NS_TROOF_BAD_DIMS] +
	                     r.unplaced[NS_TROOF_INCOMPLETE],
	                 0);
	ck_assert_int_eq(r.placed, 4);
	ck_assert_int_eq(r.placed_ns, 445000);
	assert_near(ns_troof_placed_share(&r), 445.0 / 498.0, "placed share");
	ck_assert_ptr_null(find_row(&r, "aten::linear"));
	ns_troof_report_free(&r);
}
END_TEST

START_TEST(fixture_places_the_elementwise_add_by_its_bytes)
{
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;
	const ns_troof_row *add;

	read_path(FIXTURE, &o, &r);
	add = find_row(&r, "aten::add_");
	ck_assert_ptr_nonnull(add);
	ck_assert_int_eq(add->family, NS_OPF_ELEMENTWISE);
	assert_near(add->bytes, 3.0 * 256 * 4096 * 2, "bytes");
	ck_assert(add->flops == 0.0);
	assert_near(add->roof_ns, 3.0 * 256 * 4096 * 2 / H100_BW * 1e9, "time at the roof");
	assert_near(add->fraction, 3.0 * 256 * 4096 * 2 / H100_BW * 1e9 / 5000.0, "share of the roof");
	ck_assert_int_eq(add->roof.regime, NS_REGIME_MEMORY);
	/* the families: gemm holds addmm and mm (440 us), elementwise the add (5 us) */
	ck_assert_int_eq(r.nfamilies, 2);
	ck_assert_int_eq(r.order[0], NS_OPF_GEMM);
	ck_assert_int_eq(r.families[NS_OPF_GEMM].gpu_ns, 440000);
	ck_assert_int_eq(r.families[NS_OPF_ELEMENTWISE].gpu_ns, 5000);
	ck_assert_int_eq(r.buckets[NS_TROOF_COMPUTE].gpu_ns, 440000);
	ck_assert_int_eq(r.buckets[NS_TROOF_MEMORY].gpu_ns, 5000);
	assert_near(r.buckets[NS_TROOF_MEMORY].headroom_ns, 5000.0 - add->roof_ns, "memory headroom");
	ns_troof_report_free(&r);
}
END_TEST

/* tests/data/trace_roofline_ops.json, by hand: a bf16 cudnn_convolution [8, 3, 32, 32] * [16, 3, 3, 3]
 * recorded without stride or padding, sized by its autograd node (Sequence number 7, output gradient [8, 16,
 * 32, 32]): 2*8*32*32*16*3*3*3 = 7 077 888 FLOPs, (24 576 + 432 + 131 072) * 2 = 312 160 B, 10 us; its
 * backward_input (10 us) takes the input size from the cudnn_convolution_backward around it: the same counts;
 * a causal flash SDPA b2 h16 L1024 d64: 2*32*524 800*128 = 4 299 161 600 FLOPs, 20 us; an NCCL all-reduce
 * (100 us) is a collective, not an op with GPU time. */
START_TEST(convolutions_take_missing_sizes_from_their_node_and_caller)
{
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;
	const ns_troof_row *fwd, *dgrad, *attn;

	read_path("tests/data/trace_roofline_ops.json", &o, &r);
	ck_assert_int_eq(r.ops, 3);
	ck_assert_int_eq(r.ops_ns, 40000);
	ck_assert_int_eq(r.comm_ns, 100000);
	ck_assert_int_eq(r.placed, 3);
	fwd = find_row(&r, "aten::cudnn_convolution");
	dgrad = find_row(&r, "aten::cudnn_convolution_backward_input");
	attn = find_row(&r, "aten::_scaled_dot_product_flash_attention");
	ck_assert_ptr_nonnull(fwd);
	ck_assert_ptr_nonnull(dgrad);
	ck_assert_ptr_nonnull(attn);
	assert_near(fwd->flops, 7077888.0, "conv FLOPs");
	assert_near(fwd->bytes, 312160.0, "conv bytes");
	assert_near(dgrad->flops, 7077888.0, "dgrad FLOPs");
	assert_near(dgrad->bytes, 312160.0, "dgrad bytes");
	ck_assert_int_eq(dgrad->pass, NS_OPP_BWD_INPUT);
	assert_near(attn->flops, 4299161600.0, "attention FLOPs");
	ck_assert_int_eq(r.families[NS_OPF_CONV].ops, 2);
	ck_assert_int_eq(r.families[NS_OPF_ATTENTION].gpu_ns, 20000);
	ns_troof_report_free(&r);
}
END_TEST

/* tests/data/trace_roofline_optim.json, by hand: the profiler types a TensorList as "TensorList"; the element
 * type comes from the op's multi-tensor kernel. _fused_adamw_ over params of 1024x1024 + 1024 = 1 049 600
 * elements, its kernel FusedAdamMathFunctor<c10::BFloat16, ...>: params, grads, exp_avgs, exp_avg_sqs read
 * (4 * 1 049 600 * 2 = 8 396 800) and the two 0-d state steps (2 * 2), params and both moments written
 * (3 * 1 049 600 * 2 = 6 297 600): 14 694 404 B, 14 B a parameter; 40 us. _foreach_mul_ on one list, its
 * kernel BinaryOpScalarFunctor<float, ...>: 1 049 600 * 4 read and written = 8 396 800 B; 10 us.
 * _foreach_add_, whose kernel is not a multi-tensor one, keeps no type: unplaced. */
START_TEST(tensor_lists_take_their_type_from_the_multi_tensor_kernel)
{
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;
	const ns_troof_row *adam, *mul;

	read_path("tests/data/trace_roofline_optim.json", &o, &r);
	ck_assert_int_eq(r.ops, 3);
	ck_assert_int_eq(r.placed, 2);
	ck_assert_int_eq(r.unplaced[NS_TROOF_NO_DTYPE], 1);
	adam = find_row(&r, "aten::_fused_adamw_");
	mul = find_row(&r, "aten::_foreach_mul_");
	ck_assert_ptr_nonnull(adam);
	ck_assert_ptr_nonnull(mul);
	ck_assert_int_eq(adam->family, NS_OPF_OPTIMIZER);
	ck_assert_int_eq(adam->dtype, NS_DTYPE_BF16);
	assert_near(adam->bytes, 14694404.0, "adamw bytes");
	assert_near(adam->roof_ns, 14694404.0 / H100_BW * 1e9, "adamw at the roof");
	ck_assert_int_eq(mul->dtype, NS_DTYPE_FP32);
	assert_near(mul->bytes, 8396800.0, "foreach_mul bytes");
	ck_assert_int_eq(r.families[NS_OPF_OPTIMIZER].gpu_ns, 50000);
	ns_troof_report_free(&r);
}
END_TEST

/* tests/data/trace_roofline_foreach_copy.json, by hand: two _foreach_copy_ over lists of 1024x1024 + 1024 =
 * 1 049 600 elements, 10 us each. The first launches CopyFunctor<c10::BFloat16, float, ...> (PyTorch's
 * converting copy: destination type first, source second): the fp32 source read, 1 049 600 * 4, and the bf16
 * destination written, 1 049 600 * 2: 6 297 600 B. The second launches UnaryOpFunctor<float, ...>, both
 * lists fp32: 8 396 800 B. */
START_TEST(a_converting_list_copy_reads_its_source_in_the_source_type)
{
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;
	const ns_troof_row *bf16 = NULL, *fp32 = NULL;

	read_path("tests/data/trace_roofline_foreach_copy.json", &o, &r);
	ck_assert_int_eq(r.ops, 2);
	ck_assert_int_eq(r.placed, 2);
	for (size_t i = 0; i < r.nrows; i++) {
		if (r.rows[i].dtype == NS_DTYPE_BF16)
			bf16 = &r.rows[i];
		else if (r.rows[i].dtype == NS_DTYPE_FP32)
			fp32 = &r.rows[i];
	}
	ck_assert_ptr_nonnull(bf16);
	ck_assert_ptr_nonnull(fp32);
	assert_near(bf16->bytes, 6297600.0, "bf16 <- fp32 copy bytes");
	assert_near(fp32->bytes, 8396800.0, "fp32 copy bytes");
	ns_troof_report_free(&r);
}
END_TEST

/* tests/data/trace_roofline_tf32.json, by hand: three fp32 aten::mm 1024x1024x1024 on an A100 SXM 80GB
 * (fp32 19.5, TF32 156 TFLOP/s, 2039 GB/s): 2 * 1024^3 = 2 147 483 648 FLOPs and 3 * 1024^2 * 4 =
 * 12 582 912 B each. The first launches CUTLASS's cutlass_80_tensorop_s1688gemm (TF32 tensor cores) and took
 * 200 us: on the TF32 roof though slower than the fp32 roof, max(2 147 483 648 / 156e12, 12 582 912 /
 * 2039e9) = 13.766 us, 6.9%. The second launches ampere_sgemm_128x64_nn (SIMT) and took 120 us: on the fp32
 * roof, 2 147 483 648 / 19.5e12 = 110.127 us, 91.8%. The third's kernel says neither and took 50 us, less
 * than the fp32 roof allows: on the TF32 roof by its speed, as before. Same op, same shapes: three rows. */
START_TEST(an_fp32_matmul_takes_its_roof_from_its_kernels_names)
{
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;
	const double flops = 2147483648.0, tf32_ns = flops / 156e12 * 1e9, fp32_ns = flops / 19.5e12 * 1e9;
	const ns_troof_row *tensor = NULL, *simt = NULL, *fast = NULL;

	read_path("tests/data/trace_roofline_tf32.json", &o, &r);
	ck_assert_int_eq(r.placed, 3);
	ck_assert_int_eq(r.nrows, 3);
	for (size_t i = 0; i < r.nrows; i++) {
		const ns_troof_row *row = &r.rows[i];
		assert_near(row->flops, flops, "mm flops");
		assert_near(row->bytes, 12582912.0, "mm bytes");
		if (row->gpu_ns == 200000)
			tensor = row;
		else if (row->gpu_ns == 120000)
			simt = row;
		else if (row->gpu_ns == 50000)
			fast = row;
	}
	ck_assert_ptr_nonnull(tensor);
	ck_assert_ptr_nonnull(simt);
	ck_assert_ptr_nonnull(fast);
	ck_assert_int_eq(tensor->dtype, NS_DTYPE_TF32);
	assert_near(tensor->roof_ns, tf32_ns, "TF32 kernel at the roof");
	ck_assert_int_eq(simt->dtype, NS_DTYPE_FP32);
	ck_assert(simt->simt && !tensor->simt && !fast->simt);
	assert_near(simt->roof_ns, fp32_ns, "SIMT kernel at the roof");
	assert_near(simt->fraction, fp32_ns / 120000.0, "SIMT kernel's share of its roof");
	ck_assert_int_eq(fast->dtype, NS_DTYPE_TF32);
	assert_near(fast->roof_ns, tf32_ns, "faster than fp32 at the roof");
	ns_troof_report_free(&r);
}
END_TEST

START_TEST(dtype_option_replaces_every_input_type)
{
	ns_troof_options o = {NULL, true, NS_DTYPE_BF16, NULL};
	ns_troof_report r;
	const ns_troof_row *mm, *matmul;

	read_path(FIXTURE, &o, &r);
	ck_assert_int_eq(r.nrows, 4); /* the complex matmul now has a dtype */
	ck_assert_int_eq(r.unplaced[NS_TROOF_NO_DTYPE], 0);
	mm = find_row(&r, "aten::mm");
	ck_assert_ptr_nonnull(mm);
	ck_assert_int_eq(mm->dtype, NS_DTYPE_BF16);
	assert_near(mm->bytes, 3.0 * 2048 * 2048 * 2, "bf16 mm bytes");
	matmul = find_row(&r, "aten::matmul");
	ck_assert_ptr_nonnull(matmul);
	assert_near(matmul->flops, 2.0 * 8 * 8 * 64, "matmul FLOPs");
	ns_troof_report_free(&r);
}
END_TEST

/* ---- linking kernels to ops ---- */

#define OP(name, ext, args)                                                                                  \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name                                                  \
	"\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":9,\"args\":{"                                               \
	"\"External id\":" #ext args "}}"
#define KERNEL(ext, dur)                                                                                     \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":2,\"dur\":" #dur      \
	",\"args\":{\"device\":0,\"External id\":" #ext "}}"
#define BF16_64 ",\"Input Dims\":[[64,64],[64,64]],\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\"]"
/* 256^3 in bf16: 85 FLOPs a byte, above the bound below which a GEMM counts as memory (op_table.c) */
#define BF16_256 ",\"Input Dims\":[[256,256],[256,256]],\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\"]"
#define H100_DOC(events)                                                                                     \
	"{\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H100 80GB HBM3\"}],\"traceEvents\":[" events "]" \
	"}"

/* tests/data/trace_roofline_launch.json, counted by hand: correlation 100's kernel (100 us) and launch carry
 * no External id, the launch at 5 us is inside aten::mm [0, 50) on its thread: mm. 101's kernel says External
 * id 999, which no op has; its launch says 20: the addmm [[256, 512], [512, 512]] (40 us). 104's launch at
 * 320 us is inside aten::linear [300, 400) and aten::addmm [310, 390) (aten::t [312, 316) has ended): the
 * innermost, the addmm [[128, 1024], [1024, 1024]] (20 us). Not linked: 102 has no launch call (10 us); 103's
 * launch at 200 us is inside no op (5 us); 105's launch at 318 us is on another thread, which has no ops (2
 * us). */
START_TEST(kernels_without_a_matching_external_id_link_through_their_launch_call)
{
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;
	int64_t mm = -1, addmm_256 = -1, addmm_128 = -1;

	read_path("tests/data/trace_roofline_launch.json", &o, &r);
	ck_assert_int_eq(r.linked_by_launch, 3);
	ck_assert_int_eq(r.unlinked[NS_TROOF_NO_LAUNCH], 1);
	ck_assert_int_eq(r.unlinked_ns[NS_TROOF_NO_LAUNCH], 10000);
	ck_assert_int_eq(r.unlinked[NS_TROOF_LAUNCH_OUTSIDE_OPS], 2);
	ck_assert_int_eq(r.unlinked_ns[NS_TROOF_LAUNCH_OUTSIDE_OPS], 7000);
	ck_assert_int_eq(r.ops, 3);
	ck_assert_int_eq(r.ops_ns, 160000);
	ck_assert_uint_eq(r.nrows, 3);
	for (size_t i = 0; i < r.nrows; i++) {
		if (strcmp(r.rows[i].name, "aten::mm") == 0)
			mm = r.rows[i].gpu_ns;
		else if (r.rows[i].m == 256)
			addmm_256 = r.rows[i].gpu_ns;
		else if (r.rows[i].m == 128)
			addmm_128 = r.rows[i].gpu_ns;
	}
	ck_assert_int_eq(mm, 100000);
	ck_assert_int_eq(addmm_256, 40000);
	ck_assert_int_eq(addmm_128, 20000);
	ns_troof_report_free(&r);
}
END_TEST

START_TEST(the_report_says_how_many_kernels_it_linked_through_launches_and_which_it_could_not)
{
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;
	char *text = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(mem);
	read_path("tests/data/trace_roofline_launch.json", &o, &r);
	ns_troof_report_print(mem, &r, 5, NULL);
	fclose(mem);
	ck_assert_msg(
	    strstr(text, "  3 kernels linked to the op around their launch call (no op had their External "
	                 "id)\n") != NULL,
	    "%s", text);
	ck_assert_msg(strstr(text,
	                     "  3 kernels (0.017 ms of GPU time) linked to no op: 1 no launch call with its "
	                     "correlation id, 2 launched outside every CPU op\n") != NULL,
	              "%s", text);
	free(text);
	ns_troof_report_free(&r);
}
END_TEST

START_TEST(kernels_count_once_for_the_op_that_launched_them)
{
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;

	read_text(H100_DOC(OP("aten::matmul", 1, BF16_64) "," OP("aten::mm", 2,
	                                                         BF16_64) "," KERNEL(2, 3) "," KERNEL(2, 4)),
	          &o, &r);
	ck_assert_int_eq(r.ops, 1);
	ck_assert_int_eq(r.nrows, 1);
	ck_assert_str_eq(r.rows[0].name, "aten::mm");
	ck_assert_int_eq(r.rows[0].gpu_ns, 7000);
	assert_near(r.rows[0].flops, 2.0 * 64 * 64 * 64, "FLOPs");
	ns_troof_report_free(&r);
}
END_TEST

START_TEST(a_trace_of_other_ops_only_counts_them_as_unknown)
{
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;

	read_text(H100_DOC(OP("aten::nll_loss_forward", 3, "") "," KERNEL(3, 5) "," OP("aten::bogus", 4, "")),
	          &o, &r);
	ck_assert_int_eq(r.ops, 1);
	ck_assert_int_eq(r.nrows, 0);
	ck_assert_int_eq(r.unplaced[NS_TROOF_UNKNOWN_OP], 1);
	ck_assert_int_eq(r.unplaced_ns[NS_TROOF_UNKNOWN_OP], 5000);
	ns_troof_report_free(&r);
}
END_TEST

START_TEST(the_older_external_id_spelling_links_too)
{
	const char *doc = H100_DOC(
	    "{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"aten::mm\",\"ts\":1,\"dur\":9,\"args\":{"
	    "\"external id\":5" BF16_64
	    "}},{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"gemm\",\"ts\":2,\"dur\":2,\"args\":{\"device\":0,"
	    "\"external id\":5}}");
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;

	read_text(doc, &o, &r);
	ck_assert_int_eq(r.nrows, 1);
	ck_assert_int_eq(r.rows[0].gpu_ns, 2000);
	ns_troof_report_free(&r);
}
END_TEST

START_TEST(an_unknown_trace_device_places_nothing)
{
	const char *doc =
	    "{\"deviceProperties\":[{\"id\":0,\"name\":\"AMD Radeon Graphics\"}],\"traceEvents\":[" OP(
	        "aten::mm", 1, BF16_64) "," KERNEL(1, 2) "]}";
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;

	read_text(doc, &o, &r);
	ck_assert(!r.device_known);
	ck_assert_str_eq(r.ns_trace_device, "AMD Radeon Graphics");
	ck_assert_int_eq(r.nrows, 0);
	ns_troof_report_free(&r);
}
END_TEST

START_TEST(device_option_overrides_the_trace)
{
	ns_troof_options o = {"a100", false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;

	read_text(H100_DOC(OP("aten::mm", 1, BF16_64) "," KERNEL(1, 2)), &o, &r);
	ck_assert(r.device_known);
	ck_assert(r.from_option);
	ck_assert_str_eq(r.device, "A100 SXM 80GB");
	ck_assert_int_eq(r.nrows, 1);
	ns_troof_report_free(&r);
}
END_TEST

/* Two kernels of 9e15 us each under one aten::mm: 9e18 ns apiece, 1.8e19 ns together, past INT64_MAX
 * (9.22e18). The sum must stop at INT64_MAX, not wrap negative and make the op (and the device) vanish. */
START_TEST(gpu_time_past_int64_saturates_instead_of_wrapping)
{
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;

	read_text(H100_DOC(OP("aten::mm", 1,
	                      BF16_64) "," KERNEL(1, 9000000000000000) "," KERNEL(1, 9000000000000000)),
	          &o, &r);
	ck_assert(r.device_known);
	ck_assert_int_eq(r.kernels, 2);
	ck_assert_int_eq(r.ops, 1);
	ck_assert_int_eq(r.nrows, 1);
	ck_assert_int_eq(r.rows[0].gpu_ns, INT64_MAX);
	ck_assert_int_eq(r.ops_ns, INT64_MAX);
	ck_assert(r.rows[0].roof.achieved_flops >= 0.0);
	ns_troof_report_free(&r);
}
END_TEST

/* Prints r's text section with hints into a string the caller frees. */
static char *print_to_string(const ns_troof_report *r, const char *const *hints)
{
	char *text = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(mem);
	ns_troof_report_print(mem, r, 5, hints);
	fclose(mem);
	return text;
}

/* The library decides that a suggestion applies; the caller's words (here not flags) say how. */
static const char *const test_hints[NS_REPORT_HINT_COUNT] = {
    [NS_REPORT_HINT_DEVICE_GIVEN] = "[chosen]",
    [NS_REPORT_HINT_NAME_DEVICE] = "name one",
};

START_TEST(an_unknown_device_is_said_in_the_callers_words_or_plainly)
{
	const char *doc =
	    "{\"deviceProperties\":[{\"id\":0,\"name\":\"AMD Radeon Graphics\"}],\"traceEvents\":[" OP(
	        "aten::mm", 1, BF16_64) "," KERNEL(1, 2) "]}";
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;
	char *plain, *worded;

	read_text(doc, &o, &r);
	plain = print_to_string(&r, NULL);
	worded = print_to_string(&r, test_hints);
	ck_assert_str_eq(plain, "roofline: device \"AMD Radeon Graphics\" is not in the device table\n");
	ck_assert_str_eq(worded,
	                 "roofline: device \"AMD Radeon Graphics\" is not in the device table: name one\n");
	free(plain);
	free(worded);
	ns_troof_report_free(&r);
}
END_TEST

START_TEST(a_device_the_caller_chose_is_marked_in_the_callers_words_only)
{
	ns_troof_options o = {"a100", false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;
	char *plain, *worded;

	read_text(H100_DOC(OP("aten::mm", 1, BF16_64) "," KERNEL(1, 2)), &o, &r);
	plain = print_to_string(&r, NULL);
	worded = print_to_string(&r, test_hints);
	ck_assert_msg(strncmp(plain, "roofline: A100 SXM 80GB, 1 op", 29) == 0, "%s", plain);
	ck_assert_msg(strncmp(worded, "roofline: A100 SXM 80GB [chosen], 1 op", 38) == 0, "%s", worded);
	ck_assert_msg(strstr(plain, "--") == NULL, "a flag in the library's own words: %s", plain);
	free(plain);
	free(worded);
	ns_troof_report_free(&r);
}
END_TEST

/* A TBE lookup whose table widths are not recorded is placed by the least the record allows (1116 B: the
 * hand count of test_op_models.c's "widths unrecorded" row) and marked so: its row, its family and the
 * report carry its GPU time as a lower bound, the text says ">=", and the time-weighted share of the roof
 * and the buckets (what the verdict and the next step read) leave it out (only the mm's 2 us count). */
#define TBE_ARGS                                                                                             \
	",\"Input "                                                                                          \
	"Dims\":[[0],[1000],[0],[0,0],[2],[2],[3],[],[],[3],[],[100],[9],[],[],[],[0],[],[],[],[]],"         \
	"\"Input type\":[\"float\",\"c10::Half\",\"c10::Half\",\"c10::Half\",\"int\",\"long\",\"int\","      \
	"\"Scalar\",\"Scalar\",\"long\",\"Scalar\",\"long\",\"long\",\"Scalar\",\"\",\"\",\"int\","          \
	"\"Scalar\","                                                                                        \
	"\"Scalar\",\"Scalar\",\"Scalar\"]"
/* A launch-sized fp32 mm, [64, 64] x [64, 64] in 2 us on an H100 (fp32 67 TFLOP/s, bf16 989.5, 3.35 TB/s):
 * 2 * 64^3 = 524 288 FLOPs and 3 * 64^2 * 4 = 49 152 B, so max(7.8 ns, 14.7 ns) = 14.7 ns at the fp32 roof,
 * 0.7% of its 2 us, and max(0.5 ns, 7.3 ns) at the bf16 roof (half the bytes). Its time over the bf16
 * roof's, 272x, is no speed-up a lower precision gives: the line says it is launch-bound instead. */
START_TEST(a_launch_bound_fp32_op_gets_no_lower_precision_speedup)
{
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;
	const double roof_ns = 49152.0 / H100_BW * 1e9;
	char *text;

	read_text(
	    H100_DOC(OP(
	        "aten::mm", 1,
	        ",\"Input Dims\":[[64,64],[64,64]],\"Input type\":[\"float\",\"float\"]") "," KERNEL(1, 2)),
	    &o, &r);
	ck_assert_int_eq(r.nrows, 1);
	ck_assert_int_eq(r.rows[0].dtype, NS_DTYPE_FP32);
	assert_near(r.rows[0].roof_ns, roof_ns, "mm at the fp32 roof");
	text = print_to_string(&r, test_hints);
	ck_assert_ptr_null(strstr(text, "faster)"));
	ck_assert_msg(strstr(text,
	                     "(they reach 0.7% of the roof they are on: launch-bound, a lower precision will "
	                     "not shorten them)") != NULL,
	              "%s", text);
	free(text);
	ns_troof_report_free(&r);
}
END_TEST

/* A bf16 mm [4096, 4096] x [4096, 4096] in 180 us on an H100 (bf16 989.5 TFLOP/s, fp8 1979, 3.35 TB/s):
 * 2 * 4096^3 = 137 438 953 472 FLOPs, 138.897 us at the bf16 roof (its 100 663 296 bytes take 30.05 us);
 * at the fp8 roof 69.449 us (the bytes, halved, 15.02 us). The compute bucket's reach stays the bf16 roof,
 * its fp8 reach is the fp8 roof, and its 180 us are GEMMs fp8 applies to. On an A100 (no fp8 roof; bf16 312
 * TFLOP/s: 440.509 us, so the kernel takes 600 us there) the two reaches are the same and no time is
 * counted. */
#define BF16_4096                                                                                            \
	",\"Input Dims\":[[4096,4096],[4096,4096]],\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\"]"
START_TEST(a_16bit_gemm_reaches_the_fp8_roof_where_the_device_has_one)
{
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;
	const ns_troof_bucket *b;
	const double flops = 2.0 * 4096 * 4096 * 4096;

	read_text(H100_DOC(OP("aten::mm", 1, BF16_4096) "," KERNEL(1, 180)), &o, &r);
	b = &r.buckets[NS_TROOF_COMPUTE];
	ck_assert_int_eq(b->gpu_ns, 180000);
	assert_near(b->reach_ns, flops / H100_BF16 * 1e9, "reach at the bf16 roof");
	assert_near(b->fp8_reach_ns, flops / 1979e12 * 1e9, "reach at the fp8 roof");
	ck_assert_int_eq(b->fp8_ns, 180000);
	ns_troof_report_free(&r);

	o.device = "a100";
	read_text(H100_DOC(OP("aten::mm", 1, BF16_4096) "," KERNEL(1, 600)), &o, &r);
	b = &r.buckets[NS_TROOF_COMPUTE];
	assert_near(b->reach_ns, flops / 312e12 * 1e9, "A100: reach at the bf16 roof");
	assert_near(b->fp8_reach_ns, b->reach_ns, "A100: no fp8 roof");
	ck_assert_int_eq(b->fp8_ns, 0);
	ns_troof_report_free(&r);
}
END_TEST

/* tests/data/trace_roofline.json on an A100 (--device): its fp32 mm 2048^3 launches a SIMT kernel
 * (sm90_xmma_gemm_f32f32_f32f32) and took 0.400 ms, less than the 2 * 2048^3 / 19.5e12 = 0.881 ms the fp32
 * roof allows: above its roof, it adds no headroom. The two bf16 addmm 256x4096x1024 took 0.040 ms and
 * would take 2 * 2 * 256 * 4096 * 1024 / 312e12 = 0.0138 ms at the bf16 roof (their bytes, ~11 MB, take
 * less): 0.026 ms of headroom, the compute bucket's whole, more than its time less its time at the roof
 * (negative here), and the line says why. The memory bucket (one add_ below its roof) does not. */
START_TEST(headroom_says_ops_above_their_roof_add_none)
{
	ns_troof_options o = {"a100", false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;
	const ns_troof_bucket *b;
	double sum = 0.0;
	char *text;

	read_path(FIXTURE, &o, &r);
	for (size_t i = 0; i < r.nrows; i++)
		if (ns_op_family_computes(r.rows[i].family) && !r.rows[i].lower_bound)
			sum += fmax(0.0, (double)r.rows[i].gpu_ns - r.rows[i].roof_ns);
	b = &r.buckets[NS_TROOF_COMPUTE];
	assert_near(b->headroom_ns, sum, "compute headroom, each row's at least 0");
	ck_assert_msg(fabs(b->headroom_ns - (40000.0 - 4.0 * 256 * 4096 * 1024 / 312e12 * 1e9)) < 1.0,
	              "headroom %.1f ns", b->headroom_ns);
	ck_assert(b->headroom_ns > (double)b->gpu_ns - b->roof_ns + 1e3);
	text = print_to_string(&r, test_hints);
	ck_assert_ptr_nonnull(strstr(text, "0.026 ms of headroom (ops above their roof add none); a faster"));
	ck_assert_ptr_nonnull(strstr(text, "memory-bound ops:"));
	ck_assert_ptr_null(strstr(strstr(text, "memory-bound ops:"), "add none"));
	free(text);
	ns_troof_report_free(&r);
}
END_TEST

START_TEST(a_lower_bound_is_carried_to_its_family_and_left_out_of_the_weighted_share)
{
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;
	const ns_troof_row *tbe;
	int64_t covered = 0;
	char *text;

	read_text(H100_DOC(OP("fbgemm::split_embedding_codegen_lookup_sgd_function", 1,
	                      TBE_ARGS) "," KERNEL(1, 1) "," OP("aten::mm", 2, BF16_256) "," KERNEL(2, 2)),
	          &o, &r);
	ck_assert_int_eq(r.placed, 2);
	tbe = find_row(&r, "fbgemm::split_embedding_codegen_lookup_sgd_function");
	ck_assert_ptr_nonnull(tbe);
	ck_assert(tbe->lower_bound);
	assert_near(tbe->bytes, 1116.0, "bytes");
	assert_near(tbe->fraction, 1116.0 / H100_BW * 1e9 / 1000.0, "share of the roof");
	ck_assert_int_eq(tbe->roof.regime, NS_REGIME_MEMORY); /* not "overhead": bytes may be uncounted */
	ck_assert(!find_row(&r, "aten::mm")->lower_bound);
	ck_assert_int_eq(r.families[NS_OPF_EMBEDDING].bound_ns, 1000);
	ck_assert_int_eq(r.families[NS_OPF_GEMM].bound_ns, 0);
	ck_assert_int_eq(r.bound_ns, 1000);
	/* the buckets (the verdict's and the next step's input) sum the exact rows only */
	ck_assert_int_eq(r.buckets[NS_TROOF_MEMORY].gpu_ns, 0);
	ck_assert_int_eq(r.buckets[NS_TROOF_MEMORY].bound_ns, 1000);
	ck_assert(r.buckets[NS_TROOF_MEMORY].headroom_ns == 0.0);
	ck_assert_int_eq(r.buckets[NS_TROOF_COMPUTE].gpu_ns, 2000);
	ck_assert_int_eq(r.placed_ns, 3000);
	ck_assert(ns_troof_roof_fraction(&r, &covered) >= 0.0);
	ck_assert_int_eq(covered, 2000);
	text = print_to_string(&r, NULL);
	ck_assert_msg(strstr(text, "100.0% of it placed (2 ops), 33.3% as lower bounds") != NULL, "%s", text);
	ck_assert_msg(strstr(text, ">=0%  ") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "(counts are lower bounds)") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "memory-bound ops: 0.001 ms, all counted as lower bounds") != NULL, "%s",
	              text);
	free(text);
	ns_troof_report_free(&r);
}
END_TEST

/* fbgemm's lookup is recorded without a Sequence number; its autograd node has the one in effect on its
 * thread when it ran, the last recorded before it there (7, on the zero_ just before; 6 is an older op's).
 * Node 7's output gradient [4, 96] fp32 is the lookup's output (4 x 2 tables = its 8 bags): 4 * 96 * 4 =
 * 1536 B written, beside the 908 B of indices, offsets and table metadata and 100 lookups at one fp16
 * element (200): 2644 B. Linked to node 6 it would be 908 + 200 + 4 * 50 * 4 = 1908; unlinked 1116. */
#define CPU_OP(name, tid, ts, ext, args)                                                                     \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts      \
	",\"dur\":1,\"args\":{\"External id\":" #ext args "}}"
#define SEQ(n) ",\"Sequence number\":" #n
#define TBE_NODE(seq, width)                                                                                 \
	",\"Input Dims\":[[4," #width "]],\"Input type\":[\"float\"],\"Sequence number\":" #seq
#define ZERO_F32_8    ",\"Input Dims\":[[8]],\"Input type\":[\"float\"]"
#define TBE_NODE_NAME "torch::autograd::CppNode<SplitLookupFunction_sgd_Op>"
#define EV_ZERO6      CPU_OP("aten::zero_", 1, 1, 9, SEQ(6) ZERO_F32_8)
#define EV_ZERO7      CPU_OP("aten::zero_", 1, 2, 10, SEQ(7) ZERO_F32_8)
#define EV_TBE        CPU_OP("fbgemm::split_embedding_codegen_lookup_sgd_function", 1, 3, 11, TBE_ARGS)
#define EV_NODE7      CPU_OP(TBE_NODE_NAME, 2, 20, 12, TBE_NODE(7, 96))
#define EV_NODE6      CPU_OP(TBE_NODE_NAME, 2, 30, 13, TBE_NODE(6, 50))
START_TEST(a_lookup_takes_its_output_from_the_node_of_its_threads_sequence_number)
{
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;
	const ns_troof_row *tbe;

	read_text(H100_DOC(EV_ZERO6 "," EV_ZERO7 "," EV_TBE "," KERNEL(11, 1) "," EV_NODE7 "," EV_NODE6), &o,
	          &r);
	tbe = find_row(&r, "fbgemm::split_embedding_codegen_lookup_sgd_function");
	ck_assert_ptr_nonnull(tbe);
	assert_near(tbe->bytes, 2644.0, "bytes");
	ck_assert(tbe->lower_bound); /* two tables, their widths unknown */
	ns_troof_report_free(&r);
}
END_TEST

/* A shape longer than its column (40) is cut like a long op name, so the pass column stays where it is:
 * "2 tables, 123456789012 ids in 987654321000 bags" (47 characters) keeps its first 37 and "...". */
START_TEST(a_shape_longer_than_its_column_is_cut)
{
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_troof_report r;
	char *text;

	read_text(
	    H100_DOC(OP("fbgemm::split_embedding_codegen_lookup_sgd_function", 1,
	                ",\"Input Dims\":[[0],[1000],[0],[0,0],[2],[2],[3],[],[],[3],[],[123456789012],"
	                "[987654321001],[],[],[],[0],[],[],[],[]],\"Input type\":[\"float\",\"c10::Half\","
	                "\"c10::Half\",\"c10::Half\",\"int\",\"long\",\"int\",\"Scalar\",\"Scalar\",\"long\","
	                "\"Scalar\",\"long\",\"long\",\"Scalar\",\"\",\"\",\"int\",\"Scalar\",\"Scalar\","
	                "\"Scalar\",\"Scalar\"]") "," KERNEL(1, 1)),
	    &o, &r);
	ck_assert_int_eq(r.nrows, 1);
	ck_assert_str_eq(r.rows[0].shape, "2 tables, 123456789012 ids in 987654321000 bags");
	text = print_to_string(&r, NULL);
	ck_assert_msg(strstr(text, " 2 tables, 123456789012 ids in 9876543... fwd ") != NULL, "%s", text);
	free(text);
	ns_troof_report_free(&r);
}
END_TEST

/* ---- collecting only from a trace with shapes (ns_trace_roofline_only_with_shapes) ---- */

static ns_trace_event cpu_op(int64_t ext, const char *dims)
{
	ns_trace_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.ph = 'X';
	ev.cat = NS_TCAT_CPU_OP;
	ev.name = (ns_str){"aten::mm", 8};
	ev.has_ts = ev.has_dur = true;
	ev.ts_ns = ext * 1000;
	ev.dur_ns = 500;
	ev.device = ev.stream = ev.correlation = ev.seq_number = -1;
	ev.external_id = ext;
	ev.input_dims = dims != NULL ? (ns_str){dims, strlen(dims)} : (ns_str){NULL, 0};
	return ev;
}

static ns_trace_event kernel(int64_t ext)
{
	ns_trace_event ev = cpu_op(ext, NULL);

	ev.cat = NS_TCAT_KERNEL;
	ev.name = (ns_str){"gemm", 4};
	ev.device = 0;
	return ev;
}

static void feed(ns_trace_roofline *c, const ns_trace_event *ev)
{
	ns_error err;

	ns_error_clear(&err);
	ck_assert_msg(ns_trace_roofline_event(ev, c, &err) == NS_OK, "%s", err.msg);
}

/* Without record_shapes no op has Input Dims: the collector gives up at the 64th such CPU op, not before. */
START_TEST(a_trace_without_shapes_is_given_up_at_its_64th_cpu_op)
{
	ns_trace_roofline *c = ns_trace_roofline_new();

	ck_assert_ptr_nonnull(c);
	ns_trace_roofline_only_with_shapes(c, NS_TROOF_UNASKED_RECORDS);
	for (int64_t i = 1; i <= 63; i++) {
		ns_trace_event op = cpu_op(i, NULL), k = kernel(i);
		feed(c, &op);
		feed(c, &k);
	}
	ck_assert(!ns_trace_roofline_gave_up(c));
	ns_trace_event last = cpu_op(64, NULL);
	feed(c, &last);
	ck_assert(ns_trace_roofline_gave_up(c));
	feed(c, &last); /* and stays given up, keeping nothing */
	ck_assert(ns_trace_roofline_gave_up(c));
	ck_assert(!ns_trace_roofline_saw_shapes(c));
	ns_trace_roofline_free(c);
}
END_TEST

/* One op with Input Dims among the first says the trace records shapes: ops without them after it (those
 * that had no inputs to record, or another recorder's) do not make the collector give up, and what it kept
 * is placed. */
START_TEST(an_op_with_shapes_keeps_the_collection)
{
	ns_trace_roofline *c = ns_trace_roofline_new();
	ns_troof_options o = {NULL, false, NS_DTYPE_FP32, NULL};
	ns_trace_event shaped = cpu_op(1, "[[64, 64], [64, 64]]"), k = kernel(1);
	ns_troof_report r;
	ns_error err;

	ck_assert_ptr_nonnull(c);
	ns_trace_roofline_only_with_shapes(c, NS_TROOF_UNASKED_RECORDS);
	shaped.input_types = (ns_str){"[\"float\", \"float\"]", 18};
	feed(c, &shaped);
	feed(c, &k);
	for (int64_t i = 2; i < 200; i++) {
		ns_trace_event op = cpu_op(i, NULL);
		feed(c, &op);
	}
	ck_assert(!ns_trace_roofline_gave_up(c));
	ck_assert(ns_trace_roofline_saw_shapes(c));
	o.devices = shipped_devices();
	o.device = "H100 SXM";
	ns_error_clear(&err);
	ck_assert_msg(ns_trace_roofline_finish(c, NULL, &o, &r, &err) == NS_OK, "%s", err.msg);
	ck_assert_int_eq(r.placed, 1);
	ns_troof_report_free(&r);
	ns_trace_roofline_free(c);
}
END_TEST

/* Past its records budget (NS_TROOF_UNASKED_RECORDS, 2^21, unasked; 1,000 here, which tests the same rule
 * without two million records) the collector gives up, so a report's bounds unasked never cost the memory of
 * a huge trace's placement; asked for (without only_with_shapes) it keeps collecting. */
START_TEST(the_collection_unasked_is_given_up_past_its_records_budget)
{
	ns_trace_roofline *unasked = ns_trace_roofline_new(), *asked = ns_trace_roofline_new();
	ns_trace_event shaped = cpu_op(1, "[[64, 64], [64, 64]]");
	const int64_t budget = 1000;

	ck_assert_ptr_nonnull(unasked);
	ck_assert_ptr_nonnull(asked);
	ck_assert_uint_eq(NS_TROOF_UNASKED_RECORDS, 2097152);
	ns_trace_roofline_only_with_shapes(unasked, (size_t)budget);
	feed(unasked, &shaped);
	for (int64_t i = 1; i <= budget - 8; i++) { /* the op keeps a record or two of its own */
		ns_trace_event k = kernel(i);
		feed(unasked, &k);
		feed(asked, &k);
	}
	ck_assert(!ns_trace_roofline_gave_up(unasked));
	for (int64_t i = budget - 7; i <= budget + 8; i++) {
		ns_trace_event k = kernel(i);
		feed(unasked, &k);
		feed(asked, &k);
	}
	ck_assert(ns_trace_roofline_gave_up(unasked));
	ck_assert(ns_trace_roofline_saw_shapes(unasked)); /* given up for its size, not for want of shapes */
	ck_assert(!ns_trace_roofline_gave_up(asked));
	ns_trace_roofline_free(unasked);
	ns_trace_roofline_free(asked);
}
END_TEST

static Suite *trace_roofline_suite(void)
{
	Suite *s = suite_create("trace_roofline");
	TCase *place = tcase_create("place"), *link = tcase_create("link"),
	      *unasked = tcase_create("unasked");

	tcase_add_loop_test(place, fixture_placements_match_hand_counts, 0,
	                    (int)(sizeof(fixture_rows) / sizeof(fixture_rows[0])));
	tcase_add_test(place, fixture_counts_ops_it_cannot_place_by_reason);
	tcase_add_test(place, fixture_places_the_elementwise_add_by_its_bytes);
	tcase_add_test(place, convolutions_take_missing_sizes_from_their_node_and_caller);
	tcase_add_test(place, tensor_lists_take_their_type_from_the_multi_tensor_kernel);
	tcase_add_test(place, a_converting_list_copy_reads_its_source_in_the_source_type);
	tcase_add_test(place, an_fp32_matmul_takes_its_roof_from_its_kernels_names);
	tcase_add_test(place, dtype_option_replaces_every_input_type);
	tcase_add_test(place, a_lower_bound_is_carried_to_its_family_and_left_out_of_the_weighted_share);
	tcase_add_test(place, headroom_says_ops_above_their_roof_add_none);
	tcase_add_test(place, a_launch_bound_fp32_op_gets_no_lower_precision_speedup);
	tcase_add_test(place, a_16bit_gemm_reaches_the_fp8_roof_where_the_device_has_one);
	tcase_add_test(place, a_lookup_takes_its_output_from_the_node_of_its_threads_sequence_number);
	tcase_add_test(place, a_shape_longer_than_its_column_is_cut);
	tcase_add_test(link, kernels_count_once_for_the_op_that_launched_them);
	tcase_add_test(link, kernels_without_a_matching_external_id_link_through_their_launch_call);
	tcase_add_test(link,
	               the_report_says_how_many_kernels_it_linked_through_launches_and_which_it_could_not);
	tcase_add_test(link, a_trace_of_other_ops_only_counts_them_as_unknown);
	tcase_add_test(link, the_older_external_id_spelling_links_too);
	tcase_add_test(link, an_unknown_trace_device_places_nothing);
	tcase_add_test(link, device_option_overrides_the_trace);
	tcase_add_test(link, gpu_time_past_int64_saturates_instead_of_wrapping);
	tcase_add_test(link, an_unknown_device_is_said_in_the_callers_words_or_plainly);
	tcase_add_test(link, a_device_the_caller_chose_is_marked_in_the_callers_words_only);
	tcase_add_test(unasked, a_trace_without_shapes_is_given_up_at_its_64th_cpu_op);
	tcase_add_test(unasked, an_op_with_shapes_keeps_the_collection);
	tcase_add_test(unasked, the_collection_unasked_is_given_up_past_its_records_budget);
	suite_add_tcase(s, place);
	suite_add_tcase(s, link);
	suite_add_tcase(s, unasked);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(trace_roofline_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
