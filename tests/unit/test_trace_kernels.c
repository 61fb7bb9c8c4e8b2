/* Kernel-name classes: the built-in table over real kernel names.
 * The names are copied from the traces in ../shared/traces (TensorBoard plugin's ResNet-50 on a V100, HTA's
 * A100 NCCL, AlexNet, MI250 and sampled rank-0 traces), plus spellings the table must know that those traces
 * lack: NCCL 2.19+ device kernels, fused Adam, Inductor kernels, a dtype conversion. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/kernel_rules.h"
#include "nextstep/trace_kernels.h"

typedef struct {
	const char *name;
	kernel_class want;
} name_case;

static const name_case real_names[] = {
    /* communication */
    {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", KCLASS_COMM},
    {"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", KCLASS_COMM},
    {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", KCLASS_COMM},
    {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", KCLASS_COMM},
    /* GEMM spellings */
    {"ampere_sgemm_32x128_nt", KCLASS_COMPUTE},
    {"volta_sgemm_64x64_nt", KCLASS_COMPUTE},
    {"ampere_gcgemm_64x64_nt", KCLASS_COMPUTE},
    {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align1>"
     "(cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align1::Params)",
     KCLASS_COMPUTE},
    {"void sgemm_largek_lds64<true, true, 6, 3, 4, 5, 2, 66>(float*, float const*, float const*, int, int, "
     "int, "
     "int, int, int, float const*, float const*, float, float, int, int, int*, int*)",
     KCLASS_COMPUTE},
    {"Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_"
     "EPS0_"
     "GRVWA1_GRVWB1_GSUAMB_ISA90a_IU1_K1_LBSPPA0_LBSPPB0_LBSPPM0_LPA0_LPB0_LPM0_LRVW1_LWPMn1_MIAV0_MIWT1_1_"
     "MO40",
     KCLASS_COMPUTE},
    {"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_"
     "EPS0_"
     "GRVWA2_GRVWB2_GSUAMB_ISA90a_IU1_K1_LBSPPA128_LBSPPB128_LBSPPM0_LPA8_LPB8_LPM0_LRVW4_LWPMn1_MIAV0_MIWT1_"
     "1_MO40",
     KCLASS_COMPUTE},
    /* convolution spellings */
    {"cudnn_infer_ampere_scudnn_128x64_relu_xregs_large_nn_v1", KCLASS_COMPUTE},
    {"volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", KCLASS_COMPUTE},
    {"sm80_xmma_dgrad_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_"
     "warpsize2x2x1_g1_"
     "tensor16x8x8_execute_kernel_cudnn_infer",
     KCLASS_COMPUTE},
    {"sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_"
     "warpsize2x2x1_"
     "g1_tensor16x8x8_execute_split_k_kernel_cudnn_train",
     KCLASS_COMPUTE},
    {"void "
     "cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688dgrad_optimized_tf32_128x128_16x4_nhwc_unity_stride_"
     "align4>(cutlass_tensorop_s1688dgrad_optimized_tf32_128x128_16x4_nhwc_unity_stride_align4::Params)",
     KCLASS_COMPUTE},
    /* a mangled name, cut after its kernel type */
    {"_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_"
     "11threadblock22ImplicitGemmMulti",
     KCLASS_COMPUTE},
    {"void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>(int, int, int, float const*, "
     "int, "
     "float*, float const*, kernel_grad_params, unsigned long long, int, float, int, int, int, int)",
     KCLASS_COMPUTE},
    {"void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*, int, "
     "float "
     "const*, int, float*, kernel_grad_params, unsigned long long, int, unsigned long long, int, float, int, "
     "int, int)",
     KCLASS_COMPUTE},
    {"void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, false, true, true>(int, int, int, "
     "float "
     "const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, float, float, int, "
     "float const*, "
     "float const*, bool, int, int)",
     KCLASS_COMPUTE},
    {"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::"
     "WinogradDataParams<float, float>)",
     KCLASS_COMPUTE},
    {"void fft2d_r2c_32x32<float, false, 0u, false>(float2*, float const*, int, int, int, int, int, int, "
     "int, int, "
     "int, cudnn::reduced_divisor, bool, int2, int, int)",
     KCLASS_COMPUTE},
    /* attention and Inductor templates */
    {"fmha_cutlassB_bf16_aligned_64x64_k64_sm80(PyTorchMemEffAttention::AttentionBackwardKernel<cutlass::"
     "arch::Sm80, "
     "cutlass::bfloat16_t, true, false, true, 64, 64, 64, false>::Params)",
     KCLASS_COMPUTE},
    {"triton_tem_fused_addmm_relu_0", KCLASS_COMPUTE},
    /* memory-class kernels whose names contain a compute word or a library prefix */
    {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, true, 1, true>(cudnnTensorStruct, float "
     "const*, "
     "cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*, float*, float*, "
     "float, "
     "float)",
     KCLASS_MEMORY},
    {"void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, "
     "(cudnnKernelDataType_t)2>(cudnn::ops::"
     "nchw2nhwc_params_t<float>, float const*, float*)",
     KCLASS_MEMORY},
    {"void cudnn::cnn::reduce_wgrad_nchw_helper<float, float>(void*, void const*, float, int, int)",
     KCLASS_MEMORY},
    {"cask_cudnn::computeWgradSplitKOffsetsKernel(cask_cudnn::ComputeSplitKOffsetsParams)", KCLASS_MEMORY},
    {"void cask_cudnn_infer::computeOffsetsKernel<false, false>(cask_cudnn_infer::ComputeOffsetsParams)",
     KCLASS_MEMORY},
    {"void "
     "cutlass_cudnn_train::Kernel<cutlass_cudnn_train::reduction::kernel::ReduceSplitK<cutlass_cudnn_train::"
     "MatrixShape<4, 128>, cutlass_cudnn_train::epilogue::thread::LinearCombination<float, 4, float, float> "
     ">",
     KCLASS_MEMORY},
    {"void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, true, false, "
     "false>(cublasLt::"
     "cublasSplitKParams<float>, float const*, float const*, float*, float const*, float const*, float "
     "const*)",
     KCLASS_MEMORY},
    {"void epilogue::impl::globalKernel<float, float, float, true, true>(int, int, long, float*, "
     "cublasLtEpilogue_t, "
     "int, float*, long, void*, long, long, long, float*, long, int*)",
     KCLASS_MEMORY},
    {"void gemvNSP_kernel<float, float, float, float, 1, 32, 4, 1024, "
     "cublasGemvParams<cublasGemvTensorStridedBatched"
     "<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, "
     "float> >",
     KCLASS_MEMORY},
    {"void gemmk1_kernel<float, 256, 5, false, false, false, false, cublasGemvTensorStridedBatched<float "
     "const>, "
     "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float, true, true>",
     KCLASS_MEMORY},
    {"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, long, float "
     "const*, "
     "float const*, float const*, float const*, float*, float*)",
     KCLASS_MEMORY},
    {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
     "TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
     "(at::native::ADAM_MODE)1, false>, float*, double, double, double, double, double, bool, float*, "
     "float*>",
     KCLASS_MEMORY},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
     "at::detail::Array<char*, "
     "3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
     KCLASS_MEMORY},
    {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float "
     "const*, "
     "float const*, float const*, float*, float*, float*)",
     KCLASS_MEMORY},
    {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, false>(float*, float "
     "const*, "
     "int, int, int, bool const*, int, bool)",
     KCLASS_MEMORY},
    {"void cudnn::cnn::im2col4d_kernel<float, long>(cudnn::cnn::im2col4d_params, cudnnConvolutionStruct, "
     "cudnnTensor4dStruct, float const*, float*)",
     KCLASS_MEMORY},
    {"void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::"
     "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const>",
     KCLASS_MEMORY},
    /* the parameter list names fbgemm_gpu::FixedDivisor: argument types are not matched */
    {"void split_embedding_codegen_forward_unweighted_kernel<c10::Half, c10::Half, float, false, long, 2ul, "
     "32ul>("
     "at::GenericPackedTensorAccessor<c10::Half, 1ul, at::RestrictPtrTraits, long>, "
     "at::GenericPackedTensorAccessor"
     "<c10::Half, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<c10::Half, 2ul, at::"
     "RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::"
     "GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, "
     "at::GenericPackedTensorAccessor<int, 1ul, "
     "at::RestrictPtrTraits, int>, fbgemm_gpu::FixedDivisor, at::GenericPackedTensorAccessor<long, 1ul, at::"
     "RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, long, "
     "at::"
     "GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, "
     "at::GenericPackedTensorAccessor<float, 2ul, "
     "at::RestrictPtrTraits, long>)",
     KCLASS_MEMORY},
    /* FBGEMM's GPU library is not a GEMM */
    {"void fbgemm_gpu::permute_2D_data_kernel<false, int, int, decltype(nullptr)>(int, int, int, int const*, "
     "decltype(nullptr) const*, int const*, int const*, int const*, int*, decltype(nullptr)*)",
     KCLASS_MEMORY},
    {"void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, int, int>::Policy800, false, "
     "long, "
     "int, int, int>(int*, int*, int*, int const*, long*, long const*, int*, int const*, int, int, int)",
     KCLASS_MEMORY},
    /* Inductor pointwise/reduction kernels stay memory whatever they fused */
    {"triton_poi_fused_convolution_backward_0", KCLASS_MEMORY},
    {"triton_red_fused_native_layer_norm_mm_1", KCLASS_MEMORY},
    {"triton_per_fused__softmax_2", KCLASS_MEMORY},
    /* "conv" in "convert" is a conversion */
    {"void at::native::(anonymous namespace)::convert_fp32_to_bf16_kernel(float const*, c10::BFloat16*, "
     "long)",
     KCLASS_MEMORY},
};

START_TEST(builtin_table_classifies_real_kernel_names)
{
	const name_case *c = &real_names[_i];
	kernel_rules *r = NULL;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(kernel_rules_default(&r, &err), NS_OK);
	ck_assert_msg(kernel_rules_classify(r, c->name) == c->want, "%s: got %s, want %s", c->name,
	              kernel_class_name(kernel_rules_classify(r, c->name)), kernel_class_name(c->want));
	kernel_rules_free(r);
}
END_TEST

START_TEST(class_names_round_trip)
{
	for (int c = 0; c < KCLASS_COUNT; c++) {
		kernel_class back;
		ck_assert(kernel_class_from_name(kernel_class_name((kernel_class)c), &back));
		ck_assert_int_eq(back, c);
	}
	ck_assert_ptr_null(kernel_class_name(KCLASS_COUNT));
}
END_TEST

static Suite *kernels_suite(void)
{
	Suite *s = suite_create("trace_kernels");
	TCase *tc = tcase_create("classes");

	tcase_add_loop_test(tc, builtin_table_classifies_real_kernel_names, 0,
	                    (int)(sizeof(real_names) / sizeof(real_names[0])));
	tcase_add_test(tc, class_names_round_trip);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kernels_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
