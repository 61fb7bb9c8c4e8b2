#include "nextstep/trace_kernels.h"

#include <string.h>

#include "nextstep/kernel_identity.h"
#include "nextstep/kernel_rules.h"

static const char *const class_names[NS_KCLASS_COUNT] = {
    [NS_KCLASS_COMPUTE] = "compute",
    [NS_KCLASS_MEMORY] = "memory",
    [NS_KCLASS_COMM] = "comm",
};

const char *ns_kernel_class_name(ns_kernel_class c)
{
	return (unsigned)c < NS_KCLASS_COUNT ? class_names[c] : NULL;
}

bool ns_kernel_class_from_name(const char *name, ns_kernel_class *out)
{
	for (int c = 0; c < NS_KCLASS_COUNT; c++) {
		if (strcmp(name, class_names[c]) == 0) {
			*out = (ns_kernel_class)c;
			return true;
		}
	}
	return false;
}

#define P NS_KMATCH_PREFIX
#define C NS_KMATCH_CONTAINS
#define X NS_KMATCH_EXACT
#define N NS_KON_NAME
#define Q NS_KON_QUALIFIED

/* The built-in table, first match wins. Communication first (its kernels also move bytes), then the
 * memory-class exceptions (kernels whose own names hold a compute word), then GEMM, convolution and
 * attention. Every row names where the spelling comes from; docs/kernels.md has the links. */
static const ns_kernel_pattern table[] = {
    /* ---- communication ---- */
    {"nccl", P, N, NS_KCLASS_COMM, "collective",
     "NVIDIA/nccl: ncclKernel_* (< 2.19), ncclDevKernel_* (src/device/generate.py); RCCL keeps these names"},
    {"rccl", P, N, NS_KCLASS_COMM, "collective", "ROCm/rccl (kept from the first table)"},
    {"msccl", P, N, NS_KCLASS_COMM, "collective", "microsoft/msccl: mscclKernel_*"},
    {"get_dispatch_layout", X, N, NS_KCLASS_MEMORY, "ep_helper",
     "deepseek-ai/DeepEP csrc/kernels/layout.cu: computes the routing layout locally, moves no tokens"},
    {"deep_ep::", P, Q, NS_KCLASS_COMM, "ep",
     "deepseek-ai/DeepEP csrc/kernels: deep_ep::intranode::/internode::/internode_ll:: dispatch, combine, "
     "notify"},
    {"dpsk::ep::", P, Q, NS_KCLASS_COMM, "ep",
     "deepseek-ai/profile-data prefill/decode traces (DeepEP's in-house name, DeepEP issue #348)"},
    {"EpDispatch", P, N, NS_KCLASS_COMM, "ep",
     "ROCm/mori src/ops/dispatch_combine: EpDispatchIntraNodeKernel, ..."},
    {"EpCombine", P, N, NS_KCLASS_COMM, "ep",
     "ROCm/mori src/ops/dispatch_combine: EpCombineIntraNodeKernel, ..."},
    {"dispatchKernel", X, N, NS_KCLASS_COMM, "ep", "ppl-ai/pplx-kernels csrc/all_to_all/*_dispatch.cu"},
    {"combineKernel", X, N, NS_KCLASS_COMM, "ep", "ppl-ai/pplx-kernels csrc/all_to_all/*_combine.cu"},
    {"nvshmem", P, Q, NS_KCLASS_COMM, "nvshmem", "NVIDIA NVSHMEM on-stream collectives (nvshmemi_*_kernel)"},
    {"nvshmem", C, N, NS_KCLASS_COMM, "nvshmem", "kernels built on NVSHMEM that say so in their name"},
    {"cross_device_reduce", P, N, NS_KCLASS_COMM, "allreduce",
     "vLLM csrc/custom_all_reduce.cuh, SGLang sgl-kernel (sglang issue #6067): "
     "cross_device_reduce_1stage/2stage"},
    {"allreduce", C, N, NS_KCLASS_COMM, "allreduce",
     "TensorRT-LLM customAllReduceKernels.cu (oneShotAllReduceKernel, twoShotAllReduceKernel); FlashInfer "
     "trtllm_allreduce_fusion::allreduce_fusion_kernel_oneshot_lamport, trtllm_mnnvl_allreduce::"
     "twoshotAllreduceKernel"},
    {"all_reduce", C, N, NS_KCLASS_COMM, "allreduce",
     "PyTorch torch/csrc/distributed/c10d/symm_mem/CUDASymmetricMemoryOps.cu: multimem_all_reduce_kernel, "
     "one_shot_all_reduce_kernel, two_shot_all_reduce_kernel"},
    {"multimem_", P, N, NS_KCLASS_COMM, "allreduce",
     "PyTorch symmetric memory: multimem_all_gather_kernel, multimem_one_shot_reduce_kernel"},
    {"lamport", C, N, NS_KCLASS_COMM, "allreduce",
     "FlashInfer trtllm_mnnvl_allreduce::rmsNormLamport, TensorRT-LLM Lamport all-reduce buffers"},
    {"all_gather", C, N, NS_KCLASS_COMM, "collective", "collectives outside NCCL (symmetric memory, ctran)"},
    {"allgather", C, N, NS_KCLASS_COMM, "collective", "collectives outside NCCL"},
    {"reduce_scatter", C, N, NS_KCLASS_COMM, "collective", "collectives outside NCCL"},
    {"reducescatter", C, N, NS_KCLASS_COMM, "collective", "collectives outside NCCL"},
    {"all_to_all", C, N, NS_KCLASS_COMM, "collective", "collectives outside NCCL"},
    {"alltoall", C, N, NS_KCLASS_COMM, "collective", "meta-pytorch torchcomms ctran AllToAllvDynamic"},
    /* ---- memory-class kernels whose own names hold a compute word ---- */
    {"triton_poi_", P, N, NS_KCLASS_MEMORY, "inductor",
     "PyTorch Inductor pointwise kernels (torch/_inductor codegen: triton_poi_/red_/per_/tem_)"},
    {"triton_red_", P, N, NS_KCLASS_MEMORY, "inductor", "PyTorch Inductor reduction kernels"},
    {"triton_per_", P, N, NS_KCLASS_MEMORY, "inductor", "PyTorch Inductor persistent-reduction kernels"},
    {"gemv", C, N, NS_KCLASS_MEMORY, "gemm_helper",
     "cuBLAS gemvNSP_kernel, gemv2T_kernel: matrix-vector products"},
    {"gemmk1", P, N, NS_KCLASS_MEMORY, "gemm_helper", "cuBLAS gemmk1_kernel: a K=1 GEMM is an outer product"},
    {"splitkreduce", C, N, NS_KCLASS_MEMORY, "gemm_helper", "cuBLASLt cublasLt::splitKreduce_kernel"},
    {"reducesplitk", C, N, NS_KCLASS_MEMORY, "gemm_helper",
     "CUTLASS reduction::kernel::ReduceSplitK (in cudnn)"},
    {"offsetskernel", C, N, NS_KCLASS_MEMORY, "gemm_helper",
     "cuDNN cask_cudnn::computeOffsetsKernel, computeWgradSplitKOffsetsKernel"},
    {"reduce_wgrad", C, N, NS_KCLASS_MEMORY, "conv_helper", "cuDNN cudnn::cnn::reduce_wgrad_nchw_helper"},
    {"convert", C, N, NS_KCLASS_MEMORY, "conversion",
     "at::native convert_fp32_to_bf16_kernel, FlashAttention flash_bwd_convert_dq_kernel: conversions"},
    {"attnfwdcombine", C, N, NS_KCLASS_MEMORY, "attention_helper",
     "Dao-AILab/flash-attention hopper/: flash::FlashAttnFwdCombine merges split-KV partial results"},
    {"splitkv_combine", C, N, NS_KCLASS_MEMORY, "attention_helper",
     "FlashAttention-2 flash_fwd_splitkv_combine_kernel"},
    {"splitkv_mla_combine", C, N, NS_KCLASS_MEMORY, "attention_helper",
     "deepseek-ai/FlashMLA flash_fwd_splitkv_mla_combine_kernel"},
    {"bwdpreprocess", C, N, NS_KCLASS_MEMORY, "attention_helper",
     "FlashAttention-3 flash::FlashAttnBwdPreprocess"},
    {"bwdpostprocess", C, N, NS_KCLASS_MEMORY, "attention_helper",
     "FlashAttention-3 flash::FlashAttnBwdPostprocess"},
    {"backwardpreprocess", C, N, NS_KCLASS_MEMORY, "attention_helper",
     "FlashAttention-4 (CuTe DSL) FlashAttentionBackwardPreprocess"},
    {"backwardpostprocess", C, N, NS_KCLASS_MEMORY, "attention_helper",
     "FlashAttention-4 (CuTe DSL) FlashAttentionBackwardPostprocess"},
    {"flash_bwd_dot_do_o", C, N, NS_KCLASS_MEMORY, "attention_helper",
     "FlashAttention-2 flash_bwd_dot_do_o_kernel"},
    {"prepare_varlen_num_blocks", C, N, NS_KCLASS_MEMORY, "attention_helper",
     "FlashAttention-3 flash::prepare_varlen_num_blocks_kernel: scheduling metadata"},
    {"attention_v2_reduce", C, N, NS_KCLASS_MEMORY, "attention_helper",
     "vLLM csrc/attention: paged_attention_v2_reduce_kernel"},
    {"mergestate", C, N, NS_KCLASS_MEMORY, "attention_helper",
     "FlashInfer MergeStatesKernel (cascade attention)"},
    /* ---- GEMM ---- */
    {"triton_tem_", P, N, NS_KCLASS_COMPUTE, "gemm",
     "PyTorch Inductor template kernels: mm, addmm, bmm, conv, flex attention"},
    {"nvjet_", P, N, NS_KCLASS_COMPUTE, "gemm",
     "cuBLAS 12.8+ on Hopper/Blackwell: nvjet_tst_*, nvjet_sm90_tss_*, nvjet_sm100_tst_*, nvjet_sm120_tst_* "
     "(NVIDIA forum: 'Switch from sm90_xmma_gemm... to nvjet_tst... kernels with CUDA-12.8')"},
    {"cijk_", P, N, NS_KCLASS_COMPUTE, "gemm", "ROCm Tensile and hipBLASLt GEMM solutions: Cijk_Ailk_Bljk_*"},
    {"gemm", C, N, NS_KCLASS_COMPUTE, "gemm",
     "cuBLAS ampere_sgemm_*, sm90_xmma_gemm_*_cublas (triton PR #3668, TensorRT-LLM issue #1541); CUTLASS "
     "cutlass_80_tensorop_*gemm*, cutlass3x_sm90_*gemm* (cutlass issue #947), gemm::kernel::GemmUniversal; "
     "DeepGEMM fp8_gemm_kernel, sm90_fp8_gemm_1d2d_impl; composable_kernel kernel_gemm_xdl*; MIOpen igemm_*"},
    {"matmul", C, N, NS_KCLASS_COMPUTE, "gemm",
     "Triton matmul kernels: triton_kernels _matmul_ogs_*/_p_matmul_ogs_* (MXFP4 MoE), vLLM "
     "_w8a8_block_fp8_matmul"},
    {"fused_moe_kernel", P, N, NS_KCLASS_COMPUTE, "gemm",
     "vLLM/SGLang Triton MoE grouped GEMM: fused_moe_kernel, fused_moe_kernel_gptq_awq"},
    {"fc-", P, N, NS_KCLASS_COMPUTE, "gemm", "MTIA fully-connected kernels: fc-*"},
    {"bmm_", P, N, NS_KCLASS_COMPUTE, "gemm",
     "TensorRT-LLM gen batched GEMMs (FlashInfer trtllm-gen MoE): bmm_Bfloat16_E2m1E2m1_Fp32_*, bmm_E4m3_*"},
    {"marlin", P, N, NS_KCLASS_COMPUTE, "gemm", "vLLM csrc/quantization/gptq_marlin: marlin::Marlin<...>"},
    {"xmma", C, N, NS_KCLASS_COMPUTE, "gemm", "cuBLAS/cuDNN sm80_xmma_*, sm90_xmma_* tensor-core kernels"},
    {"cutlass", P, N, NS_KCLASS_COMPUTE, "gemm",
     "CUTLASS library operations launched through cutlass::Kernel<Op>"},
    {"hmma", C, N, NS_KCLASS_COMPUTE, "gemm", "tensor-core kernel spellings (kept from the first table)"},
    {"wmma", C, N, NS_KCLASS_COMPUTE, "gemm", "tensor-core kernel spellings (kept from the first table)"},
    {"imma", C, N, NS_KCLASS_COMPUTE, "gemm", "tensor-core kernel spellings (kept from the first table)"},
    {"gmma", C, N, NS_KCLASS_COMPUTE, "gemm", "tensor-core kernel spellings (kept from the first table)"},
    /* ---- convolution ---- */
    {"conv", C, N, NS_KCLASS_COMPUTE, "conv",
     "cuDNN implicit_convolve_sgemm, CUTLASS ImplicitGemmConvolution, MIOpen naive_conv_*, "
     "conv_depthwise2d_* (after 'convert' above)"},
    {"winograd", C, N, NS_KCLASS_COMPUTE, "conv", "cuDNN winograd kernels"},
    {"wgrad", C, N, NS_KCLASS_COMPUTE, "conv", "cuDNN wgrad_alg0_engine, sm80_xmma_wgrad_*"},
    {"dgrad", C, N, NS_KCLASS_COMPUTE, "conv", "cuDNN dgrad_engine, sm80_xmma_dgrad_*"},
    {"fprop", C, N, NS_KCLASS_COMPUTE, "conv", "cuDNN sm80_xmma_fprop_implicit_gemm_*"},
    {"scudnn", C, N, NS_KCLASS_COMPUTE, "conv", "cuDNN volta_scudnn_*, ampere_scudnn_*"},
    {"884cudnn", C, N, NS_KCLASS_COMPUTE, "conv", "cuDNN volta_h884cudnn_*"},
    {"1688cudnn", C, N, NS_KCLASS_COMPUTE, "conv", "cuDNN turing_h1688cudnn_*"},
    {"16816cudnn", C, N, NS_KCLASS_COMPUTE, "conv", "cuDNN ampere_h16816cudnn_*"},
    {"fft2d_", P, N, NS_KCLASS_COMPUTE, "conv", "cuDNN FFT convolution: fft2d_r2c_32x32, fft2d_c2r_*"},
    {"fft3d_", P, N, NS_KCLASS_COMPUTE, "conv", "cuDNN FFT convolution"},
    /* ---- attention ---- */
    {"flash", C, N, NS_KCLASS_COMPUTE, "attention",
     "FlashAttention-2 flash_fwd_kernel, flash_bwd_*; PyTorch pytorch_flash::flash_fwd_kernel; "
     "FlashAttention-3 "
     "flash::FlashAttnFwdSm90/FlashAttnBwdSm90; FlashAttention-4 FlashAttentionForwardSm90; FlashMLA "
     "flash_fwd_splitkv_mla_kernel"},
    {"compute_attn", C, N, NS_KCLASS_COMPUTE, "attention", "FlashAttention-3 beta flash::compute_attn_ws"},
    {"fmha", C, N, NS_KCLASS_COMPUTE, "attention",
     "PyTorch/xformers fmha_cutlassF_*, fmha_cutlassB_*; TensorRT-LLM fmhaSm100fKernel_*, fmha_v2_*; "
     "composable_kernel ck_tile::FmhaFwdKernel"},
    {"attention", C, N, NS_KCLASS_COMPUTE, "attention",
     "vLLM paged_attention_v1_kernel/v2_kernel, kernel_unified_attention_2d; ROCm aiter "
     "paged_attention_ll4mi_*; FlashInfer BatchMLAPagedAttentionKernel"},
    {"attn_fwd", C, N, NS_KCLASS_COMPUTE, "attention",
     "Triton flash-attention kernels (_attn_fwd, attn_fwd)"},
    {"attn_bwd", C, N, NS_KCLASS_COMPUTE, "attention", "Triton flash-attention kernels (_attn_bwd)"},
    {"sdpa", C, N, NS_KCLASS_COMPUTE, "attention",
     "cuDNN cudnn_generated_fort_native_sdpa_sm90_flash_kernel"},
    {"prefillwith", C, N, NS_KCLASS_COMPUTE, "attention",
     "FlashInfer BatchPrefillWithPagedKVCacheKernel, BatchPrefillWithRaggedKVCacheKernel, "
     "SinglePrefillWithKVCacheKernel"},
    {"decodewith", C, N, NS_KCLASS_COMPUTE, "attention",
     "FlashInfer BatchDecodeWithPagedKVCacheKernel, SingleDecodeWithKVCacheKernel"},
};

#undef P
#undef C
#undef X
#undef N
#undef Q

const ns_kernel_pattern *ns_kernel_table(size_t *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

/* ASCII only, inline: kernel names are ASCII identifiers, and tolower() is a locale lookup per byte in the
 * loop that compares every table row with every distinct name. */
static inline unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + ('a' - 'A')) : c;
}

static bool starts_icase(const char *s, const char *prefix)
{
	for (; *prefix != '\0'; s++, prefix++)
		if (lower((unsigned char)*s) != lower((unsigned char)*prefix))
			return false;
	return true;
}

static bool contains_icase(const char *s, const char *needle)
{
	unsigned char first = lower((unsigned char)needle[0]);

	if (first == '\0')
		return true;
	for (; *s != '\0'; s++)
		if (lower((unsigned char)*s) == first && starts_icase(s + 1, needle + 1))
			return true;
	return false;
}

static bool row_matches(const ns_kernel_pattern *row, const ns_kernel_identity *id)
{
	const char *text = row->on == NS_KON_NAME ? ns_kernel_identity_base(id) : id->qualified;

	switch (row->how) {
	case NS_KMATCH_PREFIX:
		return starts_icase(text, row->pattern);
	case NS_KMATCH_EXACT:
		return strlen(text) == strlen(row->pattern) && starts_icase(text, row->pattern);
	case NS_KMATCH_CONTAINS:
		return contains_icase(text, row->pattern);
	}
	return false;
}

ns_kernel_class ns_kernel_table_classify(const char *name, const char **family)
{
	ns_kernel_identity id;

	ns_kernel_identity_of(name, &id);
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (row_matches(&table[i], &id)) {
			if (family != NULL)
				*family = table[i].family;
			return table[i].cls;
		}
	}
	if (family != NULL)
		*family = NULL;
	return NS_KCLASS_MEMORY;
}

/* Host ops that launch communication, matched case-sensitively on the op name as written. */
typedef struct {
	const char *name;
	bool prefix;
	const char *family;
} comm_host_op;

static const comm_host_op comm_host_ops[] = {
    /* PyTorch c10d ops, the profiler's record_param_comms wrapper and the NCCL process group's spans */
    {"c10d::", true, "collective"},
    {"record_param_comms", false, "collective"},
    {"nccl:", true, "collective"},
    /* the gloo process group's host-side collectives (HTA's cpu_only_gloo trace: gloo:all_reduce spans) */
    {"gloo:", true, "gloo"},
    /* vLLM: its collective ops and the custom all-reduce extension (traces with vllm::all_reduce over
     * cross_device_reduce_1stage kernels) */
    {"vllm::all_reduce", false, "allreduce"},
    {"vllm::reduce_scatter", false, "collective"},
    {"vllm::all_gather", false, "collective"},
    {"vllm::flashinfer_trtllm_fused_allreduce_norm", false, "allreduce"},
    {"_C_custom_ar::", true, "allreduce"},
    /* PyTorch symmetric memory (symm_mem::one_shot_all_reduce, two_shot_all_reduce_, multimem_all_reduce_) */
    {"symm_mem::", true, "allreduce"},
};

const char *ns_comm_host_op_family(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(comm_host_ops) / sizeof(comm_host_ops[0]); i++) {
		size_t n = strlen(comm_host_ops[i].name);
		if ((comm_host_ops[i].prefix ? len >= n : len == n) &&
		    memcmp(name, comm_host_ops[i].name, n) == 0)
			return comm_host_ops[i].family;
	}
	return NULL;
}

ns_status ns_kernel_rules_default(ns_kernel_rules **out, ns_error *err)
{
	ns_status st = ns_kernel_rules_from_specs(NULL, 0, out, err);

	if (st == NS_OK)
		ns_kernel_rules_then_builtin(*out);
	return st;
}
