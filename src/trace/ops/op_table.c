/* The op models' table: every op name with a model, its family and how its arguments are read (the
 * positions follow the ATen schemas, torch/csrc native_functions.yaml, and flash-attn's registered ops). One
 * line per op, sorted by name in byte order (a unit test checks it), so a lookup is a binary search. */
#include <string.h>

#include "trace/ops/op_private.h"

/* input, grad, weight, stride, padding, dilation, transposed (-2: always), output_padding, groups, mask,
 * allow_tf32 */
static const conv_layout L_CONVOLUTION = {0, -1, 1, 3, 4, 5, 6, 7, 8, -1, -1};
static const conv_layout L_CONVND = {0, -1, 1, 3, 4, 5, -1, -1, 6, -1, -1};
static const conv_layout L_CONV_TRANSPOSEND = {0, -1, 1, 3, 4, 7, -2, 5, 6, -1, -1};
static const conv_layout L_CUDNN = {0, -1, 1, 3, 2, 4, -1, -1, 5, -1, 8};
static const conv_layout L_CUDNN_T = {0, -1, 1, 4, 2, 5, -2, 3, 6, -1, 9};
static const conv_layout L_MIOPEN = {0, -1, 1, 4, 3, 5, -1, -1, 6, -1, -1};
static const conv_layout L_MIOPEN_T = {0, -1, 1, 5, 3, 6, -2, 4, 7, -1, -1};
static const conv_layout L_CONV_BWD = {1, 0, 2, 4, 5, 6, 7, 8, 9, 10, -1};
static const conv_layout L_CUDNN_BWD = {0, 1, 2, 4, 3, 5, -1, -1, 6, 10, 9};
static const conv_layout L_CUDNN_T_BWD = {0, 1, 2, 5, 3, 6, -2, 4, 7, 11, 10};
static const conv_layout L_MIOPEN_BWD = {0, 1, 2, 4, 3, 5, -1, -1, 6, 9, -1};
static const conv_layout L_BWD_INPUT = {0, 1, 2, 4, 3, 5, -1, -1, 6, -1, 9};  /* input is its size list */
static const conv_layout L_BWD_WEIGHT = {2, 1, 0, 4, 3, 5, -1, -1, 6, -1, 9}; /* weight is its size list */

/* layout, backward, q, k, v, causal, cum_seq_q, cum_seq_k, custom_mask_type, max_seqlen_q, max_seqlen_k,
 * window_size_left, window_size_right, page table, seqused_q, seqused_k, attention_chunk, fp8 writes 16-bit,
 * q_v, out, q_descale (k_descale and v_descale follow it), o_scale may shift the flags */
static const attn_spec A_SDPA = {ATTN_BHLD, false, 0,  1,  2,  5,  -1,    -1, -1, -1, -1,
                                 -1,        -1,    -1, -1, -1, -1, false, -1, -1, -1, false};
static const attn_spec A_SDPA_FLASH = {ATTN_BHLD, false, 0,  1,  2,  4,  -1,    -1, -1, -1, -1,
                                       -1,        -1,    -1, -1, -1, -1, false, -1, -1, -1, false};
static const attn_spec A_SDPA_EFFICIENT = {ATTN_BHLD, false, 0,  1,  2,  6,  -1,    -1, -1, -1, -1,
                                           -1,        -1,    -1, -1, -1, -1, false, -1, -1, -1, false};
static const attn_spec A_SDPA_FLASH_BWD = {ATTN_BHLD, true, 1,  2,  3,  11, -1,    -1, -1, -1, -1,
                                           -1,        -1,   -1, -1, -1, -1, false, -1, -1, -1, false};
static const attn_spec A_SDPA_CUDNN_BWD = {ATTN_BHLD, true, 1,  2,  3,  14, -1,    -1, -1, -1, -1,
                                           -1,        -1,   -1, -1, -1, -1, false, -1, -1, -1, false};
static const attn_spec A_FLASH = {ATTN_BLHD, false, 0,  1,  2,  8,  3,     4,  -1, 5,  6,
                                  -1,        -1,    -1, -1, -1, -1, false, -1, -1, -1, false};
static const attn_spec A_FLASH_BWD = {ATTN_BLHD, true, 1,  2,  3,  11, 6,     7,  -1, 8,  9,
                                      -1,        -1,   -1, -1, -1, -1, false, -1, -1, -1, false};
static const attn_spec A_EFFICIENT = {ATTN_BLHD, false, 0,  1,  2,  -1, 4,     5,  9,  6,  7,
                                      -1,        -1,    -1, -1, -1, -1, false, -1, -1, -1, false};
static const attn_spec A_EFFICIENT_BWD = {ATTN_BLHD, true, 1,  2,  3,  -1, 6,     7,  14, 8,  9,
                                          -1,        -1,   -1, -1, -1, -1, false, -1, -1, -1, false};
/* flash-attn 2's custom ops: _flash_attn_forward(q, k, v, dropout_p, softmax_scale, causal, window_size_left,
 * window_size_right, ...), _flash_attn_varlen_forward(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
 * max_seqlen_k, dropout_p, softmax_scale, causal, window_size_left, window_size_right, softcap, alibi_slopes,
 * return_softmax, block_table, leftpad_k, seqused_k), the backwards with dq, dk, dv before dropout_p. */
static const attn_spec A_FA2 = {ATTN_BLHD, false, 0,  1,  2,  5,  -1,    -1, -1, -1, -1,
                                6,         7,     -1, -1, -1, -1, false, -1, -1, -1, false};
static const attn_spec A_FA2_BWD = {ATTN_BLHD, true, 1,  2,  3,  11, -1,    -1, -1, -1, -1,
                                    12,        13,   -1, -1, -1, -1, false, -1, -1, -1, false};
static const attn_spec A_FA2_VARLEN = {ATTN_VARLEN, false, 0,  1,  2,  9,  3,     4,  -1, 5,  6,
                                       10,          11,    15, -1, 17, -1, false, -1, -1, -1, false};
/* vLLM's _C::paged_attention_v1(out, query, key_cache, value_cache, num_kv_heads, scale, block_tables,
 * seq_lens, block_size, max_seq_len, ...) and _v2 (out, exp_sums, max_logits, tmp_out, query, ...) */
static const attn_spec A_PAGED_V1 = {ATTN_PAGED, false, 1,  2,  3,  -1, 6,     -1, -1, -1, 9,
                                     -1,         -1,    -1, -1, -1, -1, false, -1, -1, -1, false};
static const attn_spec A_PAGED_V2 = {ATTN_PAGED, false, 4,  5,  6,  -1, 9,     -1, -1, -1, 12,
                                     -1,         -1,    -1, -1, -1, -1, false, -1, -1, -1, false};
static const attn_spec A_FA2_VARLEN_BWD = {ATTN_VARLEN, true, 1,  2,  3,  15, 9,     10, -1, 11, 12,
                                           16,          17,   -1, -1, -1, -1, false, -1, -1, -1, false};
/* vLLM V1's _vllm_fa2_C::varlen_fwd(q, k, v, out, cu_seqlens_q, cu_seqlens_k, seqused_k, leftpad_k,
 * block_table, alibi_slopes, max_seqlen_q, max_seqlen_k, p_dropout, softmax_scale, zero_tensors, is_causal,
 * window_size_left, window_size_right, softcap, return_softmax, num_splits) */
/* FlashAttention-3 (flash-attention's hopper/ package, the op its torch library registers, checked against
 * the schema its test_flash3_bw_compatibility pins): flash_attn_3::fwd(q, k, v, k_new, v_new, q_v, out,
 * cu_seqlens_q, cu_seqlens_k, cu_seqlens_k_new, seqused_q, seqused_k, max_seqlen_q, max_seqlen_k, page_table,
 * kv_batch_idx, leftpad_k, rotary_cos, rotary_sin, seqlens_rotary, q_descale, k_descale, v_descale,
 * softmax_scale, is_causal, window_size_left, window_size_right, attention_chunk, softcap, ...); the Python
 * custom op flash_attn_3::_flash_attn_forward that wraps it takes the same arguments. vLLM's build
 * (_vllm_fa3_C::fwd) has the same ones up to window_size_right, then softcap (no attention_chunk); its newer
 * registration (vllm-project/flash-attention, hopper/flash_api_torch_lib.cpp) puts o_scale, the fp8 output's
 * scale, after v_descale, so softmax_scale, is_causal and the window sit one argument later. */
static const attn_spec A_FA3 = {ATTN_BLHD, false, 0,  1,  2,  24, 7,    8, -1, 12, 13,
                                25,        26,    14, 10, 11, 27, true, 5, 6,  20, false};
static const attn_spec A_VLLM_FA3 = {ATTN_BLHD, false, 0,  1,  2,  24, 7,    8, -1, 12, 13,
                                     25,        26,    14, 10, 11, -1, true, 5, 6,  20, true};
/* flash_attn_3::bwd(dout, q, k, v, out, softmax_lse, dq, dk, dv, cu_seqlens_q, cu_seqlens_k, seqused_q,
 * seqused_k, max_seqlen_q, max_seqlen_k, softmax_scale, is_causal, window_size_left, window_size_right, ...);
 * its Python wrapper flash_attn_3::_flash_attn_backward moves dq, dk, dv after the lengths: (dout, q, k, v,
 * out, softmax_lse, cu_seqlens_q, cu_seqlens_k, seqused_q, seqused_k, max_seqlen_q, max_seqlen_k, dq, dk, dv,
 * softmax_scale, is_causal, window_size_left, window_size_right, ...). */
static const attn_spec A_FA3_BWD = {ATTN_BLHD, true, 1,  2,  3,  16, 9,     10, -1, 13, 14,
                                    17,        18,   -1, 11, 12, -1, false, -1, -1, -1, false};
static const attn_spec A_FA3_BWD_PY = {ATTN_BLHD, true, 1,  2, 3, 16, 6,     7,  -1, 10, 11,
                                       17,        18,   -1, 8, 9, -1, false, -1, -1, -1, false};
static const attn_spec A_VLLM_FA2 = {
    ATTN_VARLEN_PAGED, false, 0, 1, 2, 15, 4, 5, -1, 10, 11, 16, 17, 8, -1, 6, -1, false, -1, -1, -1, false};

/* In-place spellings (a trailing '_') of the element-wise ops are derived, not listed: see op_entry_of(). */
static const op_entry entries[] = {
    {"_C::paged_attention_v1", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_FWD, 0, NULL, &A_PAGED_V1},
    {"_C::paged_attention_v2", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_FWD, 0, NULL, &A_PAGED_V2},
    {"_vllm_fa2_C::varlen_fwd", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_FWD, 0, NULL, &A_VLLM_FA2},
    {"_vllm_fa3_C::fwd", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_FWD, 0, NULL, &A_VLLM_FA3},
    {"aten::_adaptive_avg_pool2d", NS_OPF_POOLING, MK_ADAPTIVE_POOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_adaptive_avg_pool2d_backward", NS_OPF_POOLING, MK_POOL_BWD, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::_adaptive_avg_pool3d", NS_OPF_POOLING, MK_ADAPTIVE_POOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_adaptive_avg_pool3d_backward", NS_OPF_POOLING, MK_POOL_BWD, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::_addmm_activation", NS_OPF_GEMM, MK_ADDMM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_amp_foreach_non_finite_check_and_unscale_", NS_OPF_OPTIMIZER, MK_INPLACE, NS_OPP_FWD, 1, NULL,
     NULL},
    {"aten::_batch_norm_impl_index", NS_OPF_NORM, MK_NORM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_batch_norm_impl_index_backward", NS_OPF_NORM, MK_NORM, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::_cat", NS_OPF_COPY, MK_CAT, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_convolution", NS_OPF_CONV, MK_CONV, NS_OPP_FWD, 0, &L_CONVOLUTION, NULL},
    {"aten::_copy_from", NS_OPF_COPY, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_copy_from_and_resize", NS_OPF_COPY, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_efficient_attention_backward", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_BWD, 0, NULL, &A_EFFICIENT_BWD},
    {"aten::_efficient_attention_forward", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_FWD, 0, NULL, &A_EFFICIENT},
    {"aten::_flash_attention_backward", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_BWD, 0, NULL, &A_FLASH_BWD},
    {"aten::_flash_attention_forward", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_FWD, 0, NULL, &A_FLASH},
    {"aten::_foreach_add", NS_OPF_OPTIMIZER, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_foreach_addcdiv", NS_OPF_OPTIMIZER, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_foreach_addcmul", NS_OPF_OPTIMIZER, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_foreach_clamp_max", NS_OPF_OPTIMIZER, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_foreach_clamp_min", NS_OPF_OPTIMIZER, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_foreach_copy_", NS_OPF_OPTIMIZER, MK_COPY, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_foreach_div", NS_OPF_OPTIMIZER, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_foreach_lerp", NS_OPF_OPTIMIZER, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_foreach_maximum", NS_OPF_OPTIMIZER, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_foreach_mul", NS_OPF_OPTIMIZER, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_foreach_neg", NS_OPF_OPTIMIZER, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_foreach_norm", NS_OPF_OPTIMIZER, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_foreach_pow", NS_OPF_OPTIMIZER, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_foreach_reciprocal", NS_OPF_OPTIMIZER, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_foreach_sqrt", NS_OPF_OPTIMIZER, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_foreach_sub", NS_OPF_OPTIMIZER, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_foreach_zero_", NS_OPF_OPTIMIZER, MK_FILL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_fused_adagrad_", NS_OPF_OPTIMIZER, MK_INPLACE, NS_OPP_FWD, 5, NULL, NULL},
    {"aten::_fused_adam_", NS_OPF_OPTIMIZER, MK_INPLACE, NS_OPP_FWD, 29, NULL, NULL},
    {"aten::_fused_adamw_", NS_OPF_OPTIMIZER, MK_INPLACE, NS_OPP_FWD, 29, NULL, NULL},
    {"aten::_fused_rms_norm", NS_OPF_NORM, MK_NORM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_fused_rms_norm_backward", NS_OPF_NORM, MK_NORM, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::_fused_sgd_", NS_OPF_OPTIMIZER, MK_INPLACE, NS_OPP_FWD, 5, NULL, NULL},
    {"aten::_grouped_mm", NS_OPF_GEMM, MK_GROUPED_MM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_index_put_impl_", NS_OPF_COPY, MK_SCATTER, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_int_mm", NS_OPF_GEMM, MK_MM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_log_softmax", NS_OPF_SOFTMAX, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_log_softmax_backward_data", NS_OPF_SOFTMAX, MK_EW, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::_native_batch_norm_legit", NS_OPF_NORM, MK_NORM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_native_batch_norm_legit_no_training", NS_OPF_NORM, MK_NORM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_scaled_dot_product_cudnn_attention", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_FWD, 0, NULL,
     &A_SDPA_EFFICIENT},
    {"aten::_scaled_dot_product_cudnn_attention_backward", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_BWD, 0, NULL,
     &A_SDPA_CUDNN_BWD},
    {"aten::_scaled_dot_product_efficient_attention", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_FWD, 0, NULL,
     &A_SDPA_EFFICIENT},
    {"aten::_scaled_dot_product_efficient_attention_backward", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_BWD, 0, NULL,
     &A_SDPA_FLASH_BWD},
    {"aten::_scaled_dot_product_flash_attention", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_FWD, 0, NULL,
     &A_SDPA_FLASH},
    {"aten::_scaled_dot_product_flash_attention_backward", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_BWD, 0, NULL,
     &A_SDPA_FLASH_BWD},
    {"aten::_scaled_grouped_mm", NS_OPF_GEMM, MK_GROUPED_MM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_scaled_mm", NS_OPF_GEMM, MK_SCALED_MM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_softmax", NS_OPF_SOFTMAX, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::_softmax_backward_data", NS_OPF_SOFTMAX, MK_EW, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::_to_copy", NS_OPF_COPY, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::abs", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::adaptive_avg_pool2d", NS_OPF_POOLING, MK_ADAPTIVE_POOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::adaptive_avg_pool3d", NS_OPF_POOLING, MK_ADAPTIVE_POOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::adaptive_max_pool2d", NS_OPF_POOLING, MK_ADAPTIVE_POOL, NS_OPP_FWD, 1, NULL, NULL},
    {"aten::adaptive_max_pool2d_backward", NS_OPF_POOLING, MK_POOL_BWD, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::add", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::addcdiv", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::addcmul", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::addmm", NS_OPF_GEMM, MK_ADDMM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::all", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::amax", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::amin", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::any", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::argmax", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::argmin", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::atan2", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::avg_pool2d", NS_OPF_POOLING, MK_POOL, NS_OPP_FWD, 2, NULL, NULL},
    {"aten::avg_pool2d_backward", NS_OPF_POOLING, MK_POOL_BWD, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::avg_pool3d", NS_OPF_POOLING, MK_POOL, NS_OPP_FWD, 2, NULL, NULL},
    {"aten::avg_pool3d_backward", NS_OPF_POOLING, MK_POOL_BWD, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::baddbmm", NS_OPF_GEMM, MK_ADDMM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::batch_norm", NS_OPF_NORM, MK_NORM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::batch_norm_backward", NS_OPF_NORM, MK_NORM, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::batch_norm_backward_elemt", NS_OPF_NORM, MK_NORM, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::batch_norm_backward_reduce", NS_OPF_NORM, MK_REDUCE, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::batch_norm_elemt", NS_OPF_NORM, MK_NORM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::batch_norm_stats", NS_OPF_NORM, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::bernoulli_", NS_OPF_ELEMENTWISE, MK_FILL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::binary_cross_entropy", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::binary_cross_entropy_with_logits", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::bitwise_and", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::bitwise_not", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::bitwise_or", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::bitwise_xor", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::bmm", NS_OPF_GEMM, MK_MM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::cat", NS_OPF_COPY, MK_CAT, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::ceil", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::clamp", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::clamp_max", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::clamp_min", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::clone", NS_OPF_COPY, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::contiguous", NS_OPF_COPY, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::conv1d", NS_OPF_CONV, MK_CONV, NS_OPP_FWD, 0, &L_CONVND, NULL},
    {"aten::conv2d", NS_OPF_CONV, MK_CONV, NS_OPP_FWD, 0, &L_CONVND, NULL},
    {"aten::conv3d", NS_OPF_CONV, MK_CONV, NS_OPP_FWD, 0, &L_CONVND, NULL},
    {"aten::conv_transpose1d", NS_OPF_CONV, MK_CONV, NS_OPP_FWD, 0, &L_CONV_TRANSPOSEND, NULL},
    {"aten::conv_transpose2d", NS_OPF_CONV, MK_CONV, NS_OPP_FWD, 0, &L_CONV_TRANSPOSEND, NULL},
    {"aten::conv_transpose3d", NS_OPF_CONV, MK_CONV, NS_OPP_FWD, 0, &L_CONV_TRANSPOSEND, NULL},
    {"aten::convolution", NS_OPF_CONV, MK_CONV, NS_OPP_FWD, 0, &L_CONVOLUTION, NULL},
    {"aten::convolution_backward", NS_OPF_CONV, MK_CONV_BWD, NS_OPP_BWD, 0, &L_CONV_BWD, NULL},
    {"aten::copy_", NS_OPF_COPY, MK_COPY, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::cos", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::count_nonzero", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::cudnn_batch_norm", NS_OPF_NORM, MK_NORM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::cudnn_batch_norm_backward", NS_OPF_NORM, MK_NORM, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::cudnn_convolution", NS_OPF_CONV, MK_CONV, NS_OPP_FWD, 0, &L_CUDNN, NULL},
    {"aten::cudnn_convolution_backward", NS_OPF_CONV, MK_CONV_BWD, NS_OPP_BWD, 0, &L_CUDNN_BWD, NULL},
    {"aten::cudnn_convolution_backward_input", NS_OPF_CONV, MK_CONV_BWD_INPUT, NS_OPP_BWD_INPUT, 0,
     &L_BWD_INPUT, NULL},
    {"aten::cudnn_convolution_backward_weight", NS_OPF_CONV, MK_CONV_BWD_WEIGHT, NS_OPP_BWD_WEIGHT, 0,
     &L_BWD_WEIGHT, NULL},
    {"aten::cudnn_convolution_transpose", NS_OPF_CONV, MK_CONV, NS_OPP_FWD, 0, &L_CUDNN_T, NULL},
    {"aten::cudnn_convolution_transpose_backward", NS_OPF_CONV, MK_CONV_BWD, NS_OPP_BWD, 0, &L_CUDNN_T_BWD,
     NULL},
    {"aten::cumprod", NS_OPF_REDUCTION, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::cumsum", NS_OPF_REDUCTION, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::div", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::elu", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::elu_backward", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::embedding", NS_OPF_EMBEDDING, MK_EMBEDDING, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::embedding_backward", NS_OPF_EMBEDDING, MK_EMBEDDING_BWD, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::embedding_dense_backward", NS_OPF_EMBEDDING, MK_EMBEDDING_BWD, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::eq", NS_OPF_ELEMENTWISE, MK_EW_BOOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::erf", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::exp", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::exp2", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::exponential_", NS_OPF_ELEMENTWISE, MK_FILL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::fill_", NS_OPF_ELEMENTWISE, MK_FILL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::flip", NS_OPF_COPY, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::floor", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::fmod", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::gather", NS_OPF_COPY, MK_GATHER, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::ge", NS_OPF_ELEMENTWISE, MK_EW_BOOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::gelu", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::gelu_backward", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::group_norm", NS_OPF_NORM, MK_NORM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::gt", NS_OPF_ELEMENTWISE, MK_EW_BOOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::hardsigmoid", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::hardswish", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::hardswish_backward", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::hardtanh", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::hardtanh_backward", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::index", NS_OPF_COPY, MK_INDEX, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::index_add_", NS_OPF_COPY, MK_SCATTER, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::index_put_", NS_OPF_COPY, MK_SCATTER, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::index_select", NS_OPF_COPY, MK_GATHER, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::isfinite", NS_OPF_ELEMENTWISE, MK_EW_BOOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::isinf", NS_OPF_ELEMENTWISE, MK_EW_BOOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::isnan", NS_OPF_ELEMENTWISE, MK_EW_BOOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::layer_norm", NS_OPF_NORM, MK_NORM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::le", NS_OPF_ELEMENTWISE, MK_EW_BOOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::leaky_relu", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::leaky_relu_backward", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::lerp", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::linalg_vector_norm", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::linear", NS_OPF_GEMM, MK_LINEAR, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::log", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::log1p", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::log2", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::log_softmax", NS_OPF_SOFTMAX, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::logical_and", NS_OPF_ELEMENTWISE, MK_EW_BOOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::logical_not", NS_OPF_ELEMENTWISE, MK_EW_BOOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::logical_or", NS_OPF_ELEMENTWISE, MK_EW_BOOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::logit", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::logit_backward", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::logsumexp", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::lt", NS_OPF_ELEMENTWISE, MK_EW_BOOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::masked_fill", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::matmul", NS_OPF_GEMM, MK_MM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::max", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::max_pool1d_with_indices", NS_OPF_POOLING, MK_POOL, NS_OPP_FWD, 1, NULL, NULL},
    {"aten::max_pool2d", NS_OPF_POOLING, MK_POOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::max_pool2d_with_indices", NS_OPF_POOLING, MK_POOL, NS_OPP_FWD, 1, NULL, NULL},
    {"aten::max_pool2d_with_indices_backward", NS_OPF_POOLING, MK_POOL_BWD, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::max_pool3d", NS_OPF_POOLING, MK_POOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::max_pool3d_with_indices", NS_OPF_POOLING, MK_POOL, NS_OPP_FWD, 1, NULL, NULL},
    {"aten::max_pool3d_with_indices_backward", NS_OPF_POOLING, MK_POOL_BWD, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::maximum", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::mean", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::min", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::minimum", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::miopen_batch_norm", NS_OPF_NORM, MK_NORM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::miopen_batch_norm_backward", NS_OPF_NORM, MK_NORM, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::miopen_convolution", NS_OPF_CONV, MK_CONV, NS_OPP_FWD, 0, &L_MIOPEN, NULL},
    {"aten::miopen_convolution_backward", NS_OPF_CONV, MK_CONV_BWD, NS_OPP_BWD, 0, &L_MIOPEN_BWD, NULL},
    {"aten::miopen_convolution_backward_input", NS_OPF_CONV, MK_CONV_BWD_INPUT, NS_OPP_BWD_INPUT, 0,
     &L_BWD_INPUT, NULL},
    {"aten::miopen_convolution_backward_weight", NS_OPF_CONV, MK_CONV_BWD_WEIGHT, NS_OPP_BWD_WEIGHT, 0,
     &L_BWD_WEIGHT, NULL},
    {"aten::miopen_convolution_transpose", NS_OPF_CONV, MK_CONV, NS_OPP_FWD, 0, &L_MIOPEN_T, NULL},
    {"aten::miopen_depthwise_convolution", NS_OPF_CONV, MK_CONV, NS_OPP_FWD, 0, &L_MIOPEN, NULL},
    {"aten::miopen_depthwise_convolution_backward", NS_OPF_CONV, MK_CONV_BWD, NS_OPP_BWD, 0, &L_MIOPEN_BWD,
     NULL},
    {"aten::miopen_depthwise_convolution_backward_input", NS_OPF_CONV, MK_CONV_BWD_INPUT, NS_OPP_BWD_INPUT, 0,
     &L_BWD_INPUT, NULL},
    {"aten::miopen_depthwise_convolution_backward_weight", NS_OPF_CONV, MK_CONV_BWD_WEIGHT, NS_OPP_BWD_WEIGHT,
     0, &L_BWD_WEIGHT, NULL},
    {"aten::mish", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::mish_backward", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::mkldnn_convolution", NS_OPF_CONV, MK_CONV, NS_OPP_FWD, 0, &L_MIOPEN, NULL},
    {"aten::mm", NS_OPF_GEMM, MK_MM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::mse_loss", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::mse_loss_backward", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::mul", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::nan_to_num", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::nansum", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::native_batch_norm", NS_OPF_NORM, MK_NORM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::native_batch_norm_backward", NS_OPF_NORM, MK_NORM, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::native_dropout", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::native_dropout_backward", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::native_group_norm", NS_OPF_NORM, MK_NORM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::native_group_norm_backward", NS_OPF_NORM, MK_NORM, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::native_layer_norm", NS_OPF_NORM, MK_NORM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::native_layer_norm_backward", NS_OPF_NORM, MK_NORM, NS_OPP_BWD, 0, NULL, NULL},
    {"aten::ne", NS_OPF_ELEMENTWISE, MK_EW_BOOL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::neg", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::norm", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::normal_", NS_OPF_ELEMENTWISE, MK_FILL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::pow", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::prod", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::random_", NS_OPF_ELEMENTWISE, MK_FILL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::reciprocal", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::relu", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::remainder", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::rms_norm", NS_OPF_NORM, MK_NORM, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::roll", NS_OPF_COPY, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::round", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::rsqrt", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::rsub", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::scaled_dot_product_attention", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_FWD, 0, NULL, &A_SDPA},
    {"aten::scatter", NS_OPF_COPY, MK_SCATTER, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::scatter_", NS_OPF_COPY, MK_SCATTER, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::scatter_add", NS_OPF_COPY, MK_SCATTER, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::scatter_add_", NS_OPF_COPY, MK_SCATTER, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::sigmoid", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::sigmoid_backward", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::sign", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::silu", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::silu_backward", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::sin", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::softmax", NS_OPF_SOFTMAX, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::softplus", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::softplus_backward", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::sqrt", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::square", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::stack", NS_OPF_COPY, MK_CAT, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::std", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::std_mean", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::sub", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::sum", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::tanh", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::tanh_backward", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::threshold", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::threshold_backward", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::to", NS_OPF_COPY, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::tril", NS_OPF_COPY, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::triu", NS_OPF_COPY, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::trunc", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::uniform_", NS_OPF_ELEMENTWISE, MK_FILL, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::var", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::var_mean", NS_OPF_REDUCTION, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::where", NS_OPF_ELEMENTWISE, MK_EW, NS_OPP_FWD, 0, NULL, NULL},
    {"aten::zero_", NS_OPF_ELEMENTWISE, MK_FILL, NS_OPP_FWD, 0, NULL, NULL},
    {"fbgemm::FP8RowwiseQuantizedToFloat", NS_OPF_COPY, MK_ROWWISE_DEQUANT, NS_OPP_FWD, 0, NULL, NULL},
    {"fbgemm::FloatToFP8RowwiseQuantized", NS_OPF_COPY, MK_ROWWISE_QUANT, NS_OPP_FWD, 0, NULL, NULL},
    {"fbgemm::FloatToHFP8Quantized", NS_OPF_COPY, MK_CONVERT, NS_OPP_FWD, 1, NULL, NULL},
    {"fbgemm::HFP8QuantizedToFloat", NS_OPF_COPY, MK_CONVERT, NS_OPP_FWD, 4, NULL, NULL},
    {"fbgemm::asynchronous_complete_cumsum", NS_OPF_REDUCTION, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"fbgemm::bounds_check_indices", NS_OPF_EMBEDDING, MK_REDUCE, NS_OPP_FWD, 0, NULL, NULL},
    {"fbgemm::permute_2D_sparse_data", NS_OPF_COPY, MK_PERMUTE_SPARSE, NS_OPP_FWD, 0, NULL, NULL},
    {"fbgemm::permute_pooled_embs_auto_grad", NS_OPF_COPY, MK_LIKE_FIRST, NS_OPP_FWD, 0, NULL, NULL},
    {"fbgemm::permute_sparse_features", NS_OPF_COPY, MK_PERMUTE_SPARSE, NS_OPP_FWD, 0, NULL, NULL},
    {"flash_attn::_flash_attn_backward", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_BWD, 0, NULL, &A_FA2_BWD},
    {"flash_attn::_flash_attn_forward", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_FWD, 0, NULL, &A_FA2},
    {"flash_attn::_flash_attn_varlen_backward", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_BWD, 0, NULL,
     &A_FA2_VARLEN_BWD},
    {"flash_attn::_flash_attn_varlen_forward", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_FWD, 0, NULL, &A_FA2_VARLEN},
    {"flash_attn_3::_flash_attn_backward", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_BWD, 0, NULL, &A_FA3_BWD_PY},
    {"flash_attn_3::_flash_attn_forward", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_FWD, 0, NULL, &A_FA3},
    {"flash_attn_3::bwd", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_BWD, 0, NULL, &A_FA3_BWD},
    {"flash_attn_3::fwd", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_FWD, 0, NULL, &A_FA3},
    /* flash-attn 2's custom ops under the namespace an earlier registration used (flashattn::, in
     * Dao-AILab/flash-attention's flash_attn_interface.py at 0053002), the same arguments */
    {"flashattn::_flash_attn_backward", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_BWD, 0, NULL, &A_FA2_BWD},
    {"flashattn::_flash_attn_forward", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_FWD, 0, NULL, &A_FA2},
    {"flashattn::_flash_attn_varlen_backward", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_BWD, 0, NULL,
     &A_FA2_VARLEN_BWD},
    {"flashattn::_flash_attn_varlen_forward", NS_OPF_ATTENTION, MK_ATTN, NS_OPP_FWD, 0, NULL, &A_FA2_VARLEN},
    {"torch::autograd::CppNode<fbgemm_gpu::PermutePooledEmbsFunction<&fbgemm_gpu::permute_pooled_embs_gpu> >",
     NS_OPF_COPY, MK_LIKE_FIRST, NS_OPP_BWD, 0, NULL, NULL},
};

/* fbgemm's table-batched embedding (TBE) lookups: one op name per optimizer fused into the backward
 * ("fbgemm::split_embedding_codegen_lookup_rowwise_adagrad_function", its autograd node
 * "torch::autograd::CppNode<SplitLookupFunction_rowwise_adagrad_Op>"), so they are known by prefix. */
static const op_entry tbe_forward = {"", NS_OPF_EMBEDDING, MK_TBE, NS_OPP_FWD, 0, NULL, NULL};
static const op_entry tbe_backward = {"", NS_OPF_EMBEDDING, MK_TBE, NS_OPP_BWD, 0, NULL, NULL};

static bool has_prefix(const char *name, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len > n && memcmp(name, prefix, n) == 0;
}

static const op_entry *by_prefix(const char *name, size_t len)
{
	if (has_prefix(name, len, "fbgemm::split_embedding_codegen_lookup_"))
		return &tbe_forward;
	if (has_prefix(name, len, "torch::autograd::CppNode<SplitLookupFunction_"))
		return &tbe_backward;
	return NULL;
}

bool ns_op_node_by_thread(const char *name, size_t len)
{
	return name != NULL && by_prefix(name, len) == &tbe_forward;
}

static int compare_name(const char *name, size_t len, const char *entry)
{
	size_t n = strlen(entry);
	int d = memcmp(name, entry, len < n ? len : n);

	return d != 0 ? d : (len > n) - (len < n);
}

static const op_entry *find(const char *name, size_t len)
{
	size_t lo = 0, hi = sizeof(entries) / sizeof(entries[0]);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = compare_name(name, len, entries[mid].name);
		if (d == 0)
			return &entries[mid];
		if (d < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* An in-place element-wise op ("aten::add_", "aten::_foreach_mul_") reads what its out-of-place form reads
 * and writes its first argument. */
static const op_entry inplace_elementwise = {"", NS_OPF_ELEMENTWISE, MK_INPLACE, NS_OPP_FWD, 1, NULL, NULL};
static const op_entry inplace_optimizer = {"", NS_OPF_OPTIMIZER, MK_INPLACE, NS_OPP_FWD, 1, NULL, NULL};
static const op_entry inplace_softmax = {"", NS_OPF_SOFTMAX, MK_INPLACE, NS_OPP_FWD, 1, NULL, NULL};

const op_entry *op_entry_of(const char *name, size_t len)
{
	const op_entry *e;

	if (name == NULL || len == 0)
		return NULL;
	if ((e = find(name, len)) != NULL)
		return e;
	if (len < 2 || name[len - 1] != '_' || (e = find(name, len - 1)) == NULL)
		return by_prefix(name, len);
	if (e->kind != MK_EW && e->kind != MK_EW_BOOL)
		return NULL;
	return e->family == NS_OPF_OPTIMIZER ? &inplace_optimizer
	       : e->family == NS_OPF_SOFTMAX ? &inplace_softmax
	                                     : &inplace_elementwise;
}

ns_op_family ns_op_family_of(const char *name, size_t len)
{
	const op_entry *e = op_entry_of(name, len);

	return e != NULL ? e->family : NS_OPF_NONE;
}

static bool contains(const char *s, size_t len, const char *word)
{
	size_t n = strlen(word);

	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(s + i, word, n) == 0)
			return true;
	return false;
}

bool ns_op_node_wanted(const char *name, size_t len)
{
	/* Autograd nodes are named for their function: CudnnConvolutionBackward0,
	 * MaxPool2DWithIndicesBackward0; a TBE lookup's is a C++ function's node. */
	if (name != NULL && by_prefix(name, len) == &tbe_backward)
		return true;
	if (name == NULL || len < 8 || contains(name, len, "::") || !contains(name, len, "Backward"))
		return false;
	return contains(name, len, "Conv") || contains(name, len, "Pool");
}

void op_work_fail(ns_op_work *w, ns_op_gap gap, const char *why)
{
	w->gap = gap;
	w->why = why;
	w->flops = w->bytes = 0.0;
}

bool op_work_type(ns_op_work *w, const op_args *a, int i)
{
	const op_arg *x = i >= 0 && i < a->n ? &a->a[i] : NULL;
	size_t n;

	if (x == NULL || !(x->elt > 0.0)) {
		op_work_fail(w, NS_OPG_NO_DTYPE, "the operands' type is not recorded or has no known size");
		return false;
	}
	w->has_dtype = x->has_dtype;
	w->dtype = x->dtype;
	n = x->type_len < sizeof(w->type_name) - 1 ? x->type_len : sizeof(w->type_name) - 1;
	if (x->type != NULL)
		memcpy(w->type_name, x->type, n);
	else
		n = 0;
	w->type_name[n] = '\0';
	return true;
}

double op_shape_product(const op_arg *t, int from)
{
	double p = 1.0;

	for (int i = from; i < t->rank; i++)
		p *= t->d[i];
	return p;
}

void ns_op_model(const ns_op_record *op, const ns_op_record *outer, ns_op_work *out)
{
	const op_entry *e = op_entry_of(op->name, op->name_len);
	op_args args_buf, *args = &args_buf;
	ns_op_gap gap;

	memset(out, 0, sizeof(*out));
	out->allow_tf32 = -1;
	if (e == NULL) {
		op_work_fail(out, NS_OPG_UNKNOWN_OP, "no model for this op");
		return;
	}
	out->family = e->family;
	out->pass = e->pass;
	if ((gap = op_args_parse(op, args)) != NS_OPG_NONE) {
		op_work_fail(out, gap,
		             gap == NS_OPG_NO_SHAPES ? "no Input Dims (record_shapes=True)"
		                                     : "malformed Input Dims");
		return;
	}
	switch (e->family) {
	case NS_OPF_GEMM:
		op_model_gemm(e, args, op, out);
		break;
	case NS_OPF_CONV:
		op_model_conv(e, args, op, outer, out);
		break;
	case NS_OPF_ATTENTION:
		op_model_attention(e, args, out);
		break;
	default:
		op_model_memory(e, args, op, out);
		break;
	}
	if (out->gap == NS_OPG_NONE && !(out->bytes > 0.0))
		op_work_fail(out, NS_OPG_BAD_SHAPES, "the shapes describe no work");
}

/* Per operand dtype, below the lowest ridge point (peak FLOP/s over bandwidth) of data/devices.json for it,
 * so that no device of the table could run such a GEMM compute-bound (tests/unit/test_op_models.c checks
 * it against the table): fp32 8 (A100 SXM 80GB 9.6, B200 9.7); 16 bits and narrower 32 (H20 bf16 37, fp8
 * 74; MI210 110; every other device above 100). A 16-bit M x K x N GEMM does MNK / (MK + KN + MN) FLOPs
 * per byte, less than its smallest size: decode's one token a sequence, a weight gradient of few tokens. */
static const double gemm_memory_intensity[NS_DTYPE_COUNT] = {
    [NS_DTYPE_FP32] = 8.0, [NS_DTYPE_TF32] = 8.0,  [NS_DTYPE_BF16] = 32.0, [NS_DTYPE_FP16] = 32.0,
    [NS_DTYPE_FP8] = 32.0, [NS_DTYPE_INT8] = 32.0, [NS_DTYPE_FP4] = 32.0,
};

double ns_op_gemm_memory_intensity(ns_dtype d)
{
	return (unsigned)d < NS_DTYPE_COUNT ? gemm_memory_intensity[d] : 0.0;
}

bool ns_op_gemm_memory_bound(const ns_op_record *op, double *intensity)
{
	ns_op_work w;
	double limit;

	if (ns_op_family_of(op->name, op->name_len) != NS_OPF_GEMM)
		return false;
	ns_op_model(op, NULL, &w);
	if (w.gap != NS_OPG_NONE || !w.has_dtype || !(w.bytes > 0.0) || !(w.flops > 0.0))
		return false;
	limit = ns_op_gemm_memory_intensity(w.dtype);
	if (!(w.flops <= limit * w.bytes))
		return false;
	*intensity = w.flops / w.bytes;
	return true;
}

const char *ns_op_family_name(ns_op_family f)
{
	static const char *const names[NS_OPF_COUNT] = {
	    [NS_OPF_NONE] = "none",
	    [NS_OPF_GEMM] = "gemm",
	    [NS_OPF_CONV] = "conv",
	    [NS_OPF_ATTENTION] = "attention",
	    [NS_OPF_NORM] = "norm",
	    [NS_OPF_SOFTMAX] = "softmax",
	    [NS_OPF_ELEMENTWISE] = "elementwise",
	    [NS_OPF_REDUCTION] = "reduction",
	    [NS_OPF_EMBEDDING] = "embedding",
	    [NS_OPF_POOLING] = "pooling",
	    [NS_OPF_COPY] = "copy",
	    [NS_OPF_OPTIMIZER] = "optimizer",
	};

	return (unsigned)f < NS_OPF_COUNT ? names[f] : "?";
}

bool ns_op_family_computes(ns_op_family f)
{
	return f == NS_OPF_GEMM || f == NS_OPF_CONV || f == NS_OPF_ATTENTION;
}

const char *ns_op_pass_name(ns_op_pass p)
{
	static const char *const names[NS_OPP_COUNT] = {[NS_OPP_FWD] = "fwd",
	                                                [NS_OPP_BWD] = "bwd",
	                                                [NS_OPP_BWD_INPUT] = "bwd-input",
	                                                [NS_OPP_BWD_WEIGHT] = "bwd-weight"};

	return (unsigned)p < NS_OPP_COUNT ? names[p] : "?";
}

/* For the unit test, which checks the order: the name of entry i, NULL past the end. */
const char *op_table_name(size_t i);
const char *op_table_name(size_t i)
{
	return i < sizeof(entries) / sizeof(entries[0]) ? entries[i].name : NULL;
}
