/* Kernel-name classes: the built-in table over real kernel names.
 * real_names are copied from the traces in ../shared/traces (TensorBoard plugin's ResNet-50 on a V100, HTA's
 * A100 NCCL, AlexNet, MI250 and sampled rank-0 traces), plus spellings the table must know that those traces
 * lack: NCCL 2.19+ device kernels, fused Adam, Inductor kernels, a dtype conversion. modern_names are today's
 * spellings (Hopper/Blackwell GEMMs, MoE GEMMs, attention, expert-parallel and custom all-reduce kernels),
 * each with where it was seen; docs/kernels.md has the links. Some long names are shortened inside their
 * template arguments or parameter lists, which the classes do not depend on. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/kernel_rules.h"
#include "nextstep/trace_kernels.h"

typedef struct {
	const char *name;
	ns_kernel_class want;
} name_case;

static const name_case real_names[] = {
    /* communication */
    {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", NS_KCLASS_COMM},
    {"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", NS_KCLASS_COMM},
    {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", NS_KCLASS_COMM},
    {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", NS_KCLASS_COMM},
    /* GEMM spellings */
    {"ampere_sgemm_32x128_nt", NS_KCLASS_COMPUTE},
    {"volta_sgemm_64x64_nt", NS_KCLASS_COMPUTE},
    {"ampere_gcgemm_64x64_nt", NS_KCLASS_COMPUTE},
    {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align1>"
     "(cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align1::Params)",
     NS_KCLASS_COMPUTE},
    {"void sgemm_largek_lds64<true, true, 6, 3, 4, 5, 2, 66>(float*, float const*, float const*, int, int, "
     "int, "
     "int, int, int, float const*, float const*, float, float, int, int, int*, int*)",
     NS_KCLASS_COMPUTE},
    {"Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_"
     "EPS0_"
     "GRVWA1_GRVWB1_GSUAMB_ISA90a_IU1_K1_LBSPPA0_LBSPPB0_LBSPPM0_LPA0_LPB0_LPM0_LRVW1_LWPMn1_MIAV0_MIWT1_1_"
     "MO40",
     NS_KCLASS_COMPUTE},
    {"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_"
     "EPS0_"
     "GRVWA2_GRVWB2_GSUAMB_ISA90a_IU1_K1_LBSPPA128_LBSPPB128_LBSPPM0_LPA8_LPB8_LPM0_LRVW4_LWPMn1_MIAV0_MIWT1_"
     "1_MO40",
     NS_KCLASS_COMPUTE},
    /* convolution spellings */
    {"cudnn_infer_ampere_scudnn_128x64_relu_xregs_large_nn_v1", NS_KCLASS_COMPUTE},
    {"volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", NS_KCLASS_COMPUTE},
    {"sm80_xmma_dgrad_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_"
     "warpsize2x2x1_g1_"
     "tensor16x8x8_execute_kernel_cudnn_infer",
     NS_KCLASS_COMPUTE},
    {"sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_"
     "warpsize2x2x1_"
     "g1_tensor16x8x8_execute_split_k_kernel_cudnn_train",
     NS_KCLASS_COMPUTE},
    {"void "
     "cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688dgrad_optimized_tf32_128x128_16x4_nhwc_unity_stride_"
     "align4>(cutlass_tensorop_s1688dgrad_optimized_tf32_128x128_16x4_nhwc_unity_stride_align4::Params)",
     NS_KCLASS_COMPUTE},
    /* a mangled name, cut after its kernel type */
    {"_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_"
     "11threadblock22ImplicitGemmMulti",
     NS_KCLASS_COMPUTE},
    {"void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>(int, int, int, float const*, "
     "int, "
     "float*, float const*, kernel_grad_params, unsigned long long, int, float, int, int, int, int)",
     NS_KCLASS_COMPUTE},
    {"void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*, int, "
     "float "
     "const*, int, float*, kernel_grad_params, unsigned long long, int, unsigned long long, int, float, int, "
     "int, int)",
     NS_KCLASS_COMPUTE},
    {"void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, false, true, true>(int, int, int, "
     "float "
     "const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, float, float, int, "
     "float const*, "
     "float const*, bool, int, int)",
     NS_KCLASS_COMPUTE},
    {"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::"
     "WinogradDataParams<float, float>)",
     NS_KCLASS_COMPUTE},
    {"void fft2d_r2c_32x32<float, false, 0u, false>(float2*, float const*, int, int, int, int, int, int, "
     "int, int, "
     "int, cudnn::reduced_divisor, bool, int2, int, int)",
     NS_KCLASS_COMPUTE},
    /* attention and Inductor templates */
    {"fmha_cutlassB_bf16_aligned_64x64_k64_sm80(PyTorchMemEffAttention::AttentionBackwardKernel<cutlass::"
     "arch::Sm80, "
     "cutlass::bfloat16_t, true, false, true, 64, 64, 64, false>::Params)",
     NS_KCLASS_COMPUTE},
    {"triton_tem_fused_addmm_relu_0", NS_KCLASS_COMPUTE},
    /* memory-class kernels whose names contain a compute word or a library prefix */
    {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, true, 1, true>(cudnnTensorStruct, float "
     "const*, "
     "cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*, float*, float*, "
     "float, "
     "float)",
     NS_KCLASS_MEMORY},
    {"void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, "
     "(cudnnKernelDataType_t)2>(cudnn::ops::"
     "nchw2nhwc_params_t<float>, float const*, float*)",
     NS_KCLASS_MEMORY},
    {"void cudnn::cnn::reduce_wgrad_nchw_helper<float, float>(void*, void const*, float, int, int)",
     NS_KCLASS_MEMORY},
    {"cask_cudnn::computeWgradSplitKOffsetsKernel(cask_cudnn::ComputeSplitKOffsetsParams)", NS_KCLASS_MEMORY},
    {"void cask_cudnn_infer::computeOffsetsKernel<false, false>(cask_cudnn_infer::ComputeOffsetsParams)",
     NS_KCLASS_MEMORY},
    {"void "
     "cutlass_cudnn_train::Kernel<cutlass_cudnn_train::reduction::kernel::ReduceSplitK<cutlass_cudnn_train::"
     "MatrixShape<4, 128>, cutlass_cudnn_train::epilogue::thread::LinearCombination<float, 4, float, float> "
     ">",
     NS_KCLASS_MEMORY},
    {"void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, true, false, "
     "false>(cublasLt::"
     "cublasSplitKParams<float>, float const*, float const*, float*, float const*, float const*, float "
     "const*)",
     NS_KCLASS_MEMORY},
    {"void epilogue::impl::globalKernel<float, float, float, true, true>(int, int, long, float*, "
     "cublasLtEpilogue_t, "
     "int, float*, long, void*, long, long, long, float*, long, int*)",
     NS_KCLASS_MEMORY},
    {"void gemvNSP_kernel<float, float, float, float, 1, 32, 4, 1024, "
     "cublasGemvParams<cublasGemvTensorStridedBatched"
     "<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, "
     "float> >",
     NS_KCLASS_MEMORY},
    {"void gemmk1_kernel<float, 256, 5, false, false, false, false, cublasGemvTensorStridedBatched<float "
     "const>, "
     "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float, true, true>",
     NS_KCLASS_MEMORY},
    {"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, long, float "
     "const*, "
     "float const*, float const*, float const*, float*, float*)",
     NS_KCLASS_MEMORY},
    {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
     "TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
     "(at::native::ADAM_MODE)1, false>, float*, double, double, double, double, double, bool, float*, "
     "float*>",
     NS_KCLASS_MEMORY},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
     "at::detail::Array<char*, "
     "3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
     NS_KCLASS_MEMORY},
    {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float "
     "const*, "
     "float const*, float const*, float*, float*, float*)",
     NS_KCLASS_MEMORY},
    {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, false>(float*, float "
     "const*, "
     "int, int, int, bool const*, int, bool)",
     NS_KCLASS_MEMORY},
    {"void cudnn::cnn::im2col4d_kernel<float, long>(cudnn::cnn::im2col4d_params, cudnnConvolutionStruct, "
     "cudnnTensor4dStruct, float const*, float*)",
     NS_KCLASS_MEMORY},
    {"void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::"
     "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const>",
     NS_KCLASS_MEMORY},
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
     NS_KCLASS_MEMORY},
    /* FBGEMM's GPU library is not a GEMM */
    {"void fbgemm_gpu::permute_2D_data_kernel<false, int, int, decltype(nullptr)>(int, int, int, int const*, "
     "decltype(nullptr) const*, int const*, int const*, int const*, int*, decltype(nullptr)*)",
     NS_KCLASS_MEMORY},
    {"void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, int, int>::Policy800, false, "
     "long, "
     "int, int, int>(int*, int*, int*, int const*, long*, long const*, int*, int const*, int, int, int)",
     NS_KCLASS_MEMORY},
    /* Inductor pointwise/reduction kernels stay memory whatever they fused */
    {"triton_poi_fused_convolution_backward_0", NS_KCLASS_MEMORY},
    {"triton_red_fused_native_layer_norm_mm_1", NS_KCLASS_MEMORY},
    {"triton_per_fused__softmax_2", NS_KCLASS_MEMORY},
    /* "conv" in "convert" is a conversion */
    {"void at::native::(anonymous namespace)::convert_fp32_to_bf16_kernel(float const*, c10::BFloat16*, "
     "long)",
     NS_KCLASS_MEMORY},
};

/* Today's spellings, each with where it was seen. The expected class is the kind of work the kernel does
 * (a GEMM, attention, a collective or expert-parallel exchange), decided from its documented role, not from
 * the table. */
typedef struct {
	const char *name;
	ns_kernel_class want;
	const char *family;
	const char *source;
} modern_case;

static const modern_case modern_names[] = {
    /* cuBLAS / cuBLASLt on Ampere, Hopper, Blackwell */
    {"sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
     "kernel__"
     "5x_cublas",
     NS_KCLASS_COMPUTE, "gemm", "NVIDIA/TensorRT-LLM issue #1541; triton-lang/triton PR #3668"},
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
     "kernel__5x_cublas",
     NS_KCLASS_COMPUTE, "gemm", "SGLang DeepSeek prefill trace (category list of a public analysis script)"},
    {"nvjet_tst_64x8_64x16_4x1_v_bz_TNT", NS_KCLASS_COMPUTE, "gemm",
     "vLLM/SGLang decode traces (cuBLAS 12.8+)"},
    {"nvjet_sm100_tst_64x16_64x16_2x4_2cta_h_bz_splitK_TNT", NS_KCLASS_COMPUTE, "gemm", "B200 decode trace"},
    {"nvjet_sm120_tst_mma_64x64x128_3_32x32x128_tmaAB_alignCD4_bz_TNNN", NS_KCLASS_COMPUTE, "gemm",
     "RTX 5090 (sm_120) trace"},
    {"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x3_tn_align8>("
     "cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x3_tn_align8::Params)",
     NS_KCLASS_COMPUTE, "gemm", "SGLang DeepSeek decode trace"},
    {"cutlass3x_sm90_tensorop_h64x128x16gemm_f16_f16_f16_void_f16_128x128x64_1x1x1_0_nnn_align8",
     NS_KCLASS_COMPUTE, "gemm", "NVIDIA/cutlass issue #947 (CUTLASS 3 procedural names)"},
    {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, "
     "cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<4, "
     "cute::tuple<cute::C<2>, cute::C<1>, cute::C<1> >, cutlass::gemm::KernelTmaWarpSpecializedCooperative>, "
     "float>, cutlass::epilogue::collective::DefaultEpilogue<int>, void, void> >(cutlass::gemm::kernel::"
     "GemmUniversal<int>::Params)",
     NS_KCLASS_COMPUTE, "gemm", "CUTLASS 3.x device_kernel<GemmUniversal> (include/cutlass/device_kernel.h)"},
    /* low-precision and batched GEMMs of MoE layers */
    {"void deep_gemm::fp8_gemm_kernel<4096u, 7168u, 128u, 160u, 128u, 0u, 64u, 9u, 4u, 128u, 128u, 1u, true, "
     "(deep_gemm::GemmType)1>(__nv_bfloat16*, float*, int*, unsigned int, CUtensorMap_st, CUtensorMap_st, "
     "CUtensorMap_st, CUtensorMap_st)",
     NS_KCLASS_COMPUTE, "gemm", "SGLang DeepSeek prefill trace (DeepGEMM grouped FP8)"},
    {"void dpsk::gemm::fp8_gemm_kernel<7168u, 16384u, 128u, 128u, 128u, 5u, 128u, 128u, 2u, "
     "(dpsk::gemm::GemmType)0>(__nv_bfloat16*, float*, int*, unsigned int, unsigned int, CUtensorMap_st, "
     "CUtensorMap_st, CUtensorMap_st, CUtensorMap_st)",
     NS_KCLASS_COMPUTE, "gemm", "deepseek-ai/profile-data prefill.json"},
    {"void deep_gemm::sm90_fp8_gemm_1d2d_impl<(cute::UMMA::Major)0, 0u, 5120u, 17408u, 1u>(float*, int*, "
     "unsigned int)",
     NS_KCLASS_COMPUTE, "gemm", "DeepGEMM sm90_fp8_gemm_1d2d_impl, seen in a vLLM trace"},
    {"fused_moe_kernel", NS_KCLASS_COMPUTE, "gemm", "vLLM/SGLang Triton fused MoE (vllm PR #4244)"},
    {"_matmul_ogs_NNT_bf16xbf16xmxfp4_16x256x128x1", NS_KCLASS_COMPUTE, "gemm",
     "triton_kernels matmul_ogs, gpt-oss MXFP4 MoE on vLLM"},
    {"_p_matmul_ogs_NNT_fp8e5xfp8e5xmxfp4_16x256x128x1", NS_KCLASS_COMPUTE, "gemm",
     "triton_kernels persistent matmul_ogs (Blackwell)"},
    {"bmm_Bfloat16_E2m1E2m1_Fp32_bA16_bB16_bC16_t128x8x512u2_s3_et128x8_m128x8x64_cga1x1x1_16dp256b_TN_"
     "transOut",
     NS_KCLASS_COMPUTE, "gemm", "FlashInfer trtllm-gen FP4 MoE down GEMM (B200 trace)"},
    /* attention */
    {"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, "
     "cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t> >, false, true, false, "
     "false, true, true, false>(PyTorch flash params)",
     NS_KCLASS_COMPUTE, "attention", "PyTorch SDPA flash backend"},
    {"void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::"
     "CollectiveMainloopFwdSm90<2, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, cutlass::bfloat16_t, "
     "float, "
     "cutlass::arch::Sm90, true>, flash::CollectiveEpilogueFwd<int>, "
     "flash::VarlenDynamicPersistentTileScheduler"
     "<128, 256, 32, false, false, true> > > >(flash::enable_sm90_or_later<int>::Params)",
     NS_KCLASS_COMPUTE, "attention", "SGLang DeepSeek traces (FlashAttention-3)"},
    {"void cutlass::device_kernel<flash::FlashAttnFwdCombine<cute::tuple<cute::C<8>, cute::C<128> >, 6, 256, "
     "1, "
     "false, true, cutlass::bfloat16_t, float, cutlass::arch::Sm90> "
     ">(flash::FlashAttnFwdCombine<int>::Params)",
     NS_KCLASS_MEMORY, "attention_helper", "SGLang DeepSeek decode trace: merges split-KV partial outputs"},
    {"flash::prepare_varlen_num_blocks_kernel(int, int, int, int const*, int const*, int const*, int const*, "
     "int const*, int const*, int, int, int, int, int, cutlass::FastDivmod, cutlass::FastDivmod, int*, int*, "
     "bool)",
     NS_KCLASS_MEMORY, "attention_helper", "SGLang DeepSeek traces: FA3 scheduling metadata"},
    {"void flash::flash_fwd_splitkv_mla_kernel<Flash_fwd_kernel_traits_mla<576, 64, 64, 8, "
     "cutlass::bfloat16_t, "
     "512, true, 0, cutlass::bfloat16_t, cutlass::bfloat16_t>, true, flash::SharedStorageMLA<int> >("
     "Flash_fwd_mla_params)",
     NS_KCLASS_COMPUTE, "attention", "deepseek-ai/profile-data decode.json (FlashMLA)"},
    {"void flash::flash_fwd_splitkv_mla_combine_kernel<cutlass::bfloat16_t, float, long, 512, 64>("
     "Flash_fwd_mla_params)",
     NS_KCLASS_MEMORY, "attention_helper", "deepseek-ai/profile-data decode.json (FlashMLA combine)"},
    {"void flash::compute_attn_ws<Flash_fwd_kernel_traits<192, 128, 128, 12, 2, false, 1, "
     "cutlass::bfloat16_t, "
     "128>, true, flash::SingleTileScheduler, flash::SeqLenTraits<true> >(flash::CollectiveMainloopFwd<int>::"
     "Params)",
     NS_KCLASS_COMPUTE, "attention", "deepseek-ai/profile-data prefill.json (FlashAttention-3 beta)"},
    {"kernel_cutlass_kernel_flash_attncuteflash_fwd_sm90FlashAttentionForwardSm90_object_at__tensor0000o2",
     NS_KCLASS_COMPUTE, "attention",
     "FlashAttention-4 (CuTe DSL) as emitted by flex attention's FLASH backend"},
    {"kernel_cutlass_kernel_flash_attncuteflash_bwd_preprocessFlashAttentionBackwardPreprocess_object_at_",
     NS_KCLASS_MEMORY, "attention_helper", "FlashAttention-4 backward preprocess (dot(dO, O))"},
    {"fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t, "
     "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
     NS_KCLASS_COMPUTE, "attention", "PyTorch memory-efficient attention (xformers kernels)"},
    {"cudnn_generated_fort_native_sdpa_sm90_flash_kernel", NS_KCLASS_COMPUTE, "attention",
     "cuDNN SDPA backend"},
    {"void flashinfer::BatchPrefillWithPagedKVCacheKernel<flashinfer::KernelTraits<int>, flashinfer::"
     "PagedParams<int> >(flashinfer::PagedParams<int>)",
     NS_KCLASS_COMPUTE, "attention", "FlashInfer prefill (flashinfer issue #323)"},
    {"void flashinfer::BatchDecodeWithPagedKVCacheKernel<false, 128u, 4u, 8u, 16u, 1u, 8u, "
     "(flashinfer::PosEncodingMode)0, flashinfer::paged_kv_t<__nv_bfloat16, int> >(flashinfer::Params)",
     NS_KCLASS_COMPUTE, "attention", "FlashInfer decode (flashinfer issue #600)"},
    {"void vllm::paged_attention_v2_kernel<__nv_bfloat16, __nv_bfloat16, 128, 16, 128, "
     "(vllm::Fp8KVCacheDataType)0, false, 512>(float*, float*, __nv_bfloat16*, int)",
     NS_KCLASS_COMPUTE, "attention", "vLLM csrc/attention/paged_attention_v2.cu"},
    {"void vllm::paged_attention_v2_reduce_kernel<__nv_bfloat16, 128, 128, 512>(__nv_bfloat16*, float "
     "const*, "
     "float const*, __nv_bfloat16 const*, int const*, int)",
     NS_KCLASS_MEMORY, "attention_helper", "vLLM csrc/attention/paged_attention_v2.cu: reduces partitions"},
    {"paged_attention_ll4mi_QKV_mfma16_kernel", NS_KCLASS_COMPUTE, "attention", "ROCm/aiter PR #1479"},
    /* convolution */
    {"sm80_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_"
     "warpsize2x2x1_"
     "g1_tensor16x8x16_kernel",
     NS_KCLASS_COMPUTE, "gemm", "cuDNN v8/v9 convolution engine"},
    {"naive_conv_fwd_nchw_float_double_float", NS_KCLASS_COMPUTE, "conv", "MIOpen naive convolution solver"},
    {"igemm_fwd_gtcx_nchw_fp32_bx0_ex1_bt128x128x16_wt32x32x2_ws1x1_wr2x2_ta1x8x1x1_1x2x4x32_tb1x8x2x1_"
     "1x2x2x64",
     NS_KCLASS_COMPUTE, "gemm", "MIOpen implicit-GEMM convolution (igemm_gtc)"},
    /* ROCm GEMMs */
    {"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x128x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1",
     NS_KCLASS_COMPUTE, "gemm", "hipBLASLt (Tensile-lite naming)"},
    /* collectives and expert-parallel communication */
    {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", NS_KCLASS_COMM, "collective",
     "NCCL 2.19+ (src/device/generate.py)"},
    {"void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*, float*, int*, int4 const*, "
     "float const*, long const*, float const*, bool const*, int const*, int, int, int, int, int, int, int, "
     "void**, int, int, int)",
     NS_KCLASS_COMM, "ep", "deepseek-ai/DeepEP csrc/kernels/intranode.cu"},
    {"void deep_ep::internode::combine<false, 4, __nv_bfloat16, 16, 4, 4, 16, 24>(int4*, float*, bool "
     "const*, "
     "int4 const*, float const*, int const*, int const*, deep_ep::internode::SourceMeta const*, int const*, "
     "int, "
     "int, int, int, void*, int, int, void**, int, int, int, int)",
     NS_KCLASS_COMM, "ep", "SGLang DeepSeek prefill trace"},
    {"void deep_ep::internode_ll::dispatch<true, 3, 10, 7168>(void*, float*, int*, long*, int*, void*, int*, "
     "void*, void const*, long const*, int*, int*, int*, int, int, int, int, int, int, int, int)",
     NS_KCLASS_COMM, "ep", "SGLang DeepSeek decode trace (low-latency mode)"},
    {"void deep_ep::internode::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int, "
     "int, "
     "int, int)",
     NS_KCLASS_MEMORY, "ep_helper", "SGLang DeepSeek prefill trace: routing layout, computed locally"},
    {"void dpsk::ep::internode::dispatch<false, 4, false, 4>(int4*, float*, long*, float*, "
     "dpsk::ep::internode::SourceMeta*, int4 const*, float const*, int)",
     NS_KCLASS_COMM, "ep", "deepseek-ai/profile-data prefill.json"},
    {"void dispatchKernel<10u, true, false>(int*, unsigned long, std::byte*, unsigned long)", NS_KCLASS_COMM,
     "ep", "ppl-ai/pplx-kernels csrc/all_to_all/internode_dispatch.cu"},
    {"void mori::moe::EpDispatchIntraNodeKernel<__hip_bfloat16>(mori::moe::EpDispatchCombineArgs<"
     "__hip_bfloat16>)",
     NS_KCLASS_COMM, "ep", "ROCm/mori src/ops/dispatch_combine (PR #285)"},
    {"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, "
     "vllm::Signal*, "
     "__nv_bfloat16*, int, int)",
     NS_KCLASS_COMM, "allreduce", "vLLM csrc/custom_all_reduce.cuh"},
    {"void cross_device_reduce_2stage<__hip_bfloat16, 4>(RankData*, RankSignals, Signal*, __hip_bfloat16*, "
     "int, "
     "int)",
     NS_KCLASS_COMM, "allreduce", "SGLang custom all-reduce on ROCm (sglang issue #6067)"},
    {"void flashinfer::trtllm_allreduce_fusion::allreduce_fusion_kernel_oneshot_lamport<(flashinfer::"
     "trtllm_allreduce_fusion::AllReduceFusionPattern)1, __nv_bfloat16, 8, false, false>(flashinfer::"
     "trtllm_allreduce_fusion::AllReduceFusionParams<__nv_bfloat16>)",
     NS_KCLASS_COMM, "allreduce", "SGLang traces on H200/B200"},
    {"void flashinfer::trtllm_mnnvl_allreduce::twoshotAllreduceKernel<(unsigned char)2, __nv_bfloat16, true>("
     "flashinfer::trtllm_mnnvl_allreduce::AllReduceFusionParams)",
     NS_KCLASS_COMM, "allreduce", "FlashInfer MNNVL all-reduce"},
    {"void flashinfer::trtllm_mnnvl_allreduce::rmsNormLamport<__nv_bfloat16, 1>(flashinfer::"
     "trtllm_mnnvl_allreduce::RMSNormParams)",
     NS_KCLASS_COMM, "allreduce",
     "FlashInfer MNNVL all-reduce + RMSNorm tail (waits on peers' Lamport buffers)"},
    {"void tensorrt_llm::kernels::twoShotAllReduceKernel<__nv_bfloat16, 8, true, false, false>(tensorrt_llm::"
     "kernels::AllReduceParams)",
     NS_KCLASS_COMM, "allreduce", "TensorRT-LLM cpp/tensorrt_llm/kernels/customAllReduceKernels.cu"},
    {"void c10d::symmetric_memory::multimem_all_reduce_kernel<c10::BFloat16, 16, 8>(c10::BFloat16*, unsigned "
     "long, unsigned long, unsigned int**, unsigned long, unsigned long)",
     NS_KCLASS_COMM, "allreduce", "PyTorch symmetric memory CUDASymmetricMemoryOps.cu"},
    {"two_shot_all_reduce_kernel", NS_KCLASS_COMM, "allreduce",
     "PyTorch torch/distributed/_symmetric_memory Triton kernel"},
    {"void nvshmemi_barrier_all_on_stream_kernel<int>(int)", NS_KCLASS_COMM, "nvshmem",
     "NVSHMEM on-stream barrier"},
    /* memory-class kernels that carry compute words where they must not count */
    {"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at::native::(anonymous "
     "namespace)"
     "::gemm_epilogue_functor<float> >(at::TensorIteratorBase&, "
     "flash::cutlass::matmul_traits)::{lambda(int)#1}>"
     "(int, flash::cutlass::matmul_traits)",
     NS_KCLASS_MEMORY, NULL, "compute words in template arguments and parameter types (issue 10, item 6)"},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
     "at::detail::Array<char*, "
     "1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
     NS_KCLASS_MEMORY, NULL, "SGLang DeepSeek decode trace"},
    {"void flashinfer::activation::act_and_mul_kernel<__nv_bfloat16, &(silu(float const&))>(__nv_bfloat16*, "
     "__nv_bfloat16 const*, int)",
     NS_KCLASS_MEMORY, NULL,
     "SGLang DeepSeek prefill trace: 'flashinfer' is a namespace, the kernel is elementwise"},
    {"void fbgemm_gpu::permute_2D_data_kernel<false, int, int, decltype(nullptr)>(int, int, int, int const*)",
     NS_KCLASS_MEMORY, NULL, "FBGEMM's GPU library: 'fbgemm' is a namespace"},
};

START_TEST(builtin_table_classifies_todays_kernel_names)
{
	const modern_case *c = &modern_names[_i];
	const char *family = "unset";
	ns_kernel_class got = ns_kernel_table_classify(c->name, &family);

	ck_assert_msg(got == c->want, "%s (%s): got %s, want %s", c->name, c->source,
	              ns_kernel_class_name(got), ns_kernel_class_name(c->want));
	if (c->family == NULL)
		ck_assert_msg(family == NULL, "%s: family %s, want none", c->name, family);
	else
		ck_assert_msg(family != NULL && strcmp(family, c->family) == 0, "%s: family %s, want %s",
		              c->name, family != NULL ? family : "(none)", c->family);
}
END_TEST

/* Every row's own pattern, used as a kernel name, gets that row's class: no earlier row of another class
 * swallows it, so no row is dead. */
START_TEST(every_table_row_is_reachable)
{
	size_t n;
	const ns_kernel_pattern *row = &ns_kernel_table(&n)[_i];
	char name[256];

	ck_assert_uint_lt((size_t)_i, n);
	ck_assert(row->pattern[0] != '\0' && row->family != NULL && row->source != NULL &&
	          row->source[0] != '\0');
	snprintf(name, sizeof(name), "%s%s", row->pattern, row->on == NS_KON_QUALIFIED ? "k" : "");
	ck_assert_msg(ns_kernel_table_classify(name, NULL) == row->cls, "row %d (%s) is shadowed", _i,
	              row->pattern);
}
END_TEST

START_TEST(rules_file_extends_the_table_its_rules_first)
{
	static const char text[] = "{\"rules\": [{\"match\": \"sgemm_tiny\", \"class\": \"memory\"},"
	                           " {\"match\": \"my_allreduce\", \"class\": \"compute\"}]}";
	ns_kernel_rules *r = NULL;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_rules_parse(text, strlen(text), &r, &err), NS_OK);
	/* alone, the file knows only its own two names */
	ck_assert_int_eq(ns_kernel_rules_classify(r, "ampere_sgemm_32x128_nt"), NS_KCLASS_MEMORY);
	ns_kernel_rules_then_builtin(r);
	ck_assert_int_eq(ns_kernel_rules_classify(r, "ampere_sgemm_tiny_kernel"), NS_KCLASS_MEMORY);
	ck_assert_int_eq(ns_kernel_rules_classify(r, "my_allreduce_kernel"), NS_KCLASS_COMPUTE);
	ck_assert_int_eq(ns_kernel_rules_classify(r, "ampere_sgemm_32x128_nt"), NS_KCLASS_COMPUTE);
	ck_assert_int_eq(ns_kernel_rules_classify(r, "ncclDevKernel_AllReduce_Sum_f32_RING_LL"),
	                 NS_KCLASS_COMM);
	ck_assert_int_eq(ns_kernel_rules_classify(r, "triton_poi_fused_add_0"), NS_KCLASS_MEMORY);
	ns_kernel_rules_free(r);
}
END_TEST

START_TEST(rules_file_rules_see_the_whole_name_the_table_only_the_identity)
{
	static const char text[] = "{\"rules\": [{\"match\": \"FillFunctor\", \"class\": \"comm\"}]}";
	static const char name[] =
	    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
	    "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>)";
	ns_kernel_rules *r = NULL;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_rules_parse(text, strlen(text), &r, &err), NS_OK);
	ns_kernel_rules_then_builtin(r);
	ck_assert_int_eq(ns_kernel_rules_classify(r, name), NS_KCLASS_COMM);
	ck_assert_int_eq(ns_kernel_table_classify(name, NULL), NS_KCLASS_MEMORY);
	ns_kernel_rules_free(r);
}
END_TEST

START_TEST(builtin_table_classifies_real_kernel_names)
{
	const name_case *c = &real_names[_i];
	ns_kernel_rules *r = NULL;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_kernel_rules_default(&r, &err), NS_OK);
	ck_assert_msg(ns_kernel_rules_classify(r, c->name) == c->want, "%s: got %s, want %s", c->name,
	              ns_kernel_class_name(ns_kernel_rules_classify(r, c->name)),
	              ns_kernel_class_name(c->want));
	ns_kernel_rules_free(r);
}
END_TEST

START_TEST(class_names_round_trip)
{
	for (int c = 0; c < NS_KCLASS_COUNT; c++) {
		ns_kernel_class back;
		ck_assert(ns_kernel_class_from_name(ns_kernel_class_name((ns_kernel_class)c), &back));
		ck_assert_int_eq(back, c);
	}
	ck_assert_ptr_null(ns_kernel_class_name(NS_KCLASS_COUNT));
}
END_TEST

/* Host ops as they appear in traces (sources in docs/kernels.md), and ops that are not communication. */
typedef struct {
	const char *op;
	const char *family; /* NULL: not a communication op */
} host_op_case;

static const host_op_case host_ops[] = {
    {"c10d::allreduce_", "collective"},
    {"record_param_comms", "collective"},
    {"nccl:all_reduce", "collective"},
    {"gloo:all_reduce", "gloo"},
    {"vllm::all_reduce", "allreduce"},
    {"_C_custom_ar::all_reduce", "allreduce"},
    {"symm_mem::two_shot_all_reduce_", "allreduce"},
    {"vllm::flashinfer_trtllm_fused_allreduce_norm", "allreduce"},
    {"aten::mm", NULL},
    {"vllm::all_reduce_extra", NULL},
    {"record_param_comm", NULL},
    {"c10d", NULL},
    {"", NULL},
};

START_TEST(host_ops_that_launch_communication_have_a_family)
{
	const host_op_case *c = &host_ops[_i];
	const char *got = ns_comm_host_op_family(c->op, strlen(c->op));

	if (c->family == NULL)
		ck_assert_msg(got == NULL, "%s: family %s, want none", c->op, got);
	else
		ck_assert_msg(got != NULL && strcmp(got, c->family) == 0, "%s: family %s, want %s", c->op,
		              got != NULL ? got : "(none)", c->family);
}
END_TEST

static size_t table_rows(void)
{
	size_t n;

	ns_kernel_table(&n);
	return n;
}

static Suite *kernels_suite(void)
{
	Suite *s = suite_create("trace_kernels");
	TCase *tc = tcase_create("classes");

	tcase_add_loop_test(tc, builtin_table_classifies_real_kernel_names, 0,
	                    (int)(sizeof(real_names) / sizeof(real_names[0])));
	tcase_add_loop_test(tc, builtin_table_classifies_todays_kernel_names, 0,
	                    (int)(sizeof(modern_names) / sizeof(modern_names[0])));
	tcase_add_loop_test(tc, every_table_row_is_reachable, 0, (int)table_rows());
	tcase_add_loop_test(tc, host_ops_that_launch_communication_have_a_family, 0,
	                    (int)(sizeof(host_ops) / sizeof(host_ops[0])));
	tcase_add_test(tc, rules_file_extends_the_table_its_rules_first);
	tcase_add_test(tc, rules_file_rules_see_the_whole_name_the_table_only_the_identity);
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
