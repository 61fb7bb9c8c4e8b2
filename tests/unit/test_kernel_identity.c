/* Kernel identities: the function a kernel name denotes, and for a generic launcher the kernel it
 * instantiates. Expected identities are read off each name by hand (the text before its template argument
 * list, after unwrapping the launchers named in kernel_identity.h); the sources of the names are in
 * docs/kernels.md. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/kernel_identity.h"
#include "nextstep/trace_report.h"

typedef struct {
	const char *name;
	const char *qualified;
	const char *base;
} identity_case;

static const identity_case identities[] = {
    /* plain names: the name is the identity */
    {"ampere_sgemm_32x128_nt", "ampere_sgemm_32x128_nt", "ampere_sgemm_32x128_nt"},
    {"nvjet_tst_64x8_64x16_4x1_v_bz_TNT", "nvjet_tst_64x8_64x16_4x1_v_bz_TNT",
     "nvjet_tst_64x8_64x16_4x1_v_bz_TNT"},
    /* return type, template arguments and parameters dropped; namespaces kept */
    {"void at::native::elementwise_kernel<128, 4, at::native::gemm_like_functor<float> >(int, "
     "at::native::gemm_like_functor<float>)",
     "at::native::elementwise_kernel", "elementwise_kernel"},
    {"void at::native::(anonymous namespace)::max_pool_backward_nchw<float, float>(float const*, long "
     "const*, "
     "int, long, long, long, int, int, int, int, int, int, int, int, int, int, float*)",
     "at::native::(anonymous namespace)::max_pool_backward_nchw", "max_pool_backward_nchw"},
    {"void deep_ep::internode_ll::dispatch<true, 3, 10, 7168>(void*, float*, int*, long*, int*, void*, int*, "
     "void*, void const*, long const*, int*, int*, int*, int, int, int, int, int, int, int, int)",
     "deep_ep::internode_ll::dispatch", "dispatch"},
    {"flash::prepare_varlen_num_blocks_kernel(int, int, int, int const*, int const*, cutlass::FastDivmod, "
     "int*, "
     "bool)",
     "flash::prepare_varlen_num_blocks_kernel", "prepare_varlen_num_blocks_kernel"},
    /* CUTLASS 2.x launchers: the operation is the identity */
    {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align1>"
     "(cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align1::Params)",
     "cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align1",
     "cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align1"},
    {"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x3_tn_align8>"
     "(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x3_tn_align8::Params)",
     "cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x3_tn_align8",
     "cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x3_tn_align8"},
    {"void "
     "cutlass_cudnn_train::Kernel<cutlass_cudnn_train::reduction::kernel::ReduceSplitK<cutlass_cudnn_train::"
     "MatrixShape<4, 128>, cutlass_cudnn_train::epilogue::thread::LinearCombination<float, 4, float, float> "
     "> >",
     "cutlass_cudnn_train::reduction::kernel::ReduceSplitK", "ReduceSplitK"},
    /* CUTLASS 3.x / FlashAttention-3: device_kernel wrapping enable_sm90_or_later wrapping the kernel */
    {"void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::"
     "CollectiveMainloopFwdSm90<2, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, cutlass::bfloat16_t, "
     "float, "
     "cutlass::arch::Sm90, true>, flash::VarlenDynamicPersistentTileScheduler<128, 256, 32, false> > > >"
     "(flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<int> >::Params)",
     "flash::FlashAttnFwdSm90", "FlashAttnFwdSm90"},
    {"void cutlass::device_kernel<flash::FlashAttnFwdCombine<cute::tuple<cute::C<8>, cute::C<128> >, 6, 256, "
     "1, "
     "false, true, cutlass::bfloat16_t, float, cutlass::arch::Sm90> "
     ">(flash::FlashAttnFwdCombine<int>::Params)",
     "flash::FlashAttnFwdCombine", "FlashAttnFwdCombine"},
    /* composable_kernel: numbers first, the kernel type third */
    {"void ck_tile::kentry<256, 1, ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipelineQRKSVS<int>, "
     "ck_tile::Default2DEpilogue<int> > >(ck_tile::FmhaFwdKernel<int>::Kargs)",
     "ck_tile::FmhaFwdKernel", "FmhaFwdKernel"},
    /* a launcher with no type argument stays itself */
    {"void cutlass::Kernel<4, true>(int)", "cutlass::Kernel", "Kernel"},
    /* a mangled name, cut in the middle: the launched operation's nested name */
    {"_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock22Implicit"
     "GemmMulti",
     "cutlass_cudnn_train::conv::kernel::ImplicitGemmConvolution", "ImplicitGemmConvolution"},
    {"_Z16fused_moe_kernelPKfS0_Pf", "fused_moe_kernel", "fused_moe_kernel"},
    /* unbalanced brackets (a cut name) do not run past the end */
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float", "at::native::reduce_kernel",
     "reduce_kernel"},
    {"", "", ""},
};

START_TEST(identity_is_the_kernel_not_its_arguments)
{
	const identity_case *c = &identities[_i];
	ns_kernel_identity id;

	ns_kernel_identity_of(c->name, &id);
	ck_assert_str_eq(id.qualified, c->qualified);
	ck_assert_str_eq(ns_kernel_identity_base(&id), c->base);
}
END_TEST

typedef struct {
	const char *name;
	const char *shown;
} display_case;

static const display_case displays[] = {
    {"void at::native::(anonymous namespace)::max_pool_backward_nchw<float, float>(float const*, int)",
     "at::native::(anonymous namespace)::max_pool_backward_nchw<float, float>"},
    {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, false>(float*, int)",
     "(anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, false>"},
    {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
     "ncclDevKernel_AllReduce_Sum_f32_RING_LL"},
    {"triton_poi_fused_add_0", "triton_poi_fused_add_0"},
    {"void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>(int)",
     "cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>"},
};

START_TEST(display_keeps_namespaces_and_drops_parameters)
{
	const display_case *c = &displays[_i];
	size_t start, len = ns_kernel_display_span(c->name, &start);

	ck_assert_uint_eq(len, strlen(c->shown));
	ck_assert_int_eq(memcmp(c->name + start, c->shown, len), 0);
}
END_TEST

START_TEST(report_shows_the_namespace_of_a_kernel_in_an_anonymous_namespace)
{
	char buf[128], small[16];

	ns_report_short_name(
	    "void at::native::(anonymous namespace)::max_pool_backward_nchw<float, float>(float const*, "
	    "long const*, int, float*)",
	    buf, sizeof(buf));
	ck_assert_str_eq(buf, "at::native::(anonymous namespace)::max_pool_backward_nchw<float, float>");
	ns_report_short_name(
	    "void at::native::(anonymous namespace)::max_pool_backward_nchw<float, float>(int)", small,
	    sizeof(small));
	ck_assert_str_eq(small, "at::native::...");
}
END_TEST

START_TEST(long_identities_are_cut_not_overrun)
{
	char name[3 * NS_KERNEL_IDENTITY_MAX];
	ns_kernel_identity id;

	memset(name, 'g', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	ns_kernel_identity_of(name, &id);
	ck_assert_uint_eq(strlen(id.qualified), NS_KERNEL_IDENTITY_MAX - 1);
}
END_TEST

/* prefix, then fill bytes of filler, then suffix, into buf (which must hold them). */
static void long_name(char *buf, const char *prefix, size_t fill, const char *filler, const char *suffix)
{
	size_t n = strlen(prefix), f = strlen(filler);

	memcpy(buf, prefix, n);
	for (size_t i = 0; i < fill; i++)
		buf[n + i] = filler[i % f];
	strcpy(buf + n + fill, suffix);
}

/* Only the first NS_KERNEL_IDENTITY_MAX bytes after the return type are read (the bound of kernel_rules.h),
 * and the function and the operation a launcher runs come first, so template arguments of any length cost
 * nothing past it and change nothing. */
START_TEST(a_long_name_keeps_the_identity_its_head_gives)
{
	static char name[8 * NS_KERNEL_IDENTITY_MAX];
	ns_kernel_identity id;

	long_name(name, "void at::native::kernel_7<", 6 * NS_KERNEL_IDENTITY_MAX, "float, c10::BFloat16, ",
	          "int>");
	ns_kernel_identity_of(name, &id);
	ck_assert_str_eq(id.qualified, "at::native::kernel_7");
	ck_assert_str_eq(ns_kernel_identity_base(&id), "kernel_7");

	long_name(name, "void cutlass::Kernel<ns::GemmOp<", 6 * NS_KERNEL_IDENTITY_MAX, "cutlass::half_t, ",
	          "int> >(ns::GemmOp::Params)");
	ns_kernel_identity_of(name, &id);
	ck_assert_str_eq(id.qualified, "ns::GemmOp");

	/* a "::" past the head is not seen: the name is cut to its first NS_KERNEL_IDENTITY_MAX bytes, whose
	 * last component at depth 0 starts after the head's last "::" */
	long_name(name, "void ", 2 * NS_KERNEL_IDENTITY_MAX, "ab::", "tail_kernel");
	ns_kernel_identity_of(name, &id);
	ck_assert_uint_eq(strlen(id.qualified), NS_KERNEL_IDENTITY_MAX - 1);
	ck_assert_ptr_null(strstr(id.qualified, "tail_kernel"));
	ck_assert_str_eq(ns_kernel_identity_base(&id), "");
}
END_TEST

static Suite *identity_suite(void)
{
	Suite *s = suite_create("kernel_identity");
	TCase *tc = tcase_create("identity");

	tcase_add_loop_test(tc, identity_is_the_kernel_not_its_arguments, 0,
	                    (int)(sizeof(identities) / sizeof(identities[0])));
	tcase_add_loop_test(tc, display_keeps_namespaces_and_drops_parameters, 0,
	                    (int)(sizeof(displays) / sizeof(displays[0])));
	tcase_add_test(tc, report_shows_the_namespace_of_a_kernel_in_an_anonymous_namespace);
	tcase_add_test(tc, long_identities_are_cut_not_overrun);
	tcase_add_test(tc, a_long_name_keeps_the_identity_its_head_gives);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(identity_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
