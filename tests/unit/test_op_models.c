/* The op models against counts worked by hand from the formulas in docs/roofline.md ("Ops in a trace"), and
 * against a second source where one exists:
 *   - convolutions: the standard count 2 * N * Hout * Wout * Cout * (Cin / groups) * Kh * Kw (ResNet-50's
 *     first convolution is the widely tabulated 118.01 M multiply-adds per image: 112*112*64*3*7*7);
 *   - attention: the FlashAttention papers' 4 * B * H * N^2 * d for the forward, half of it causal, and 2.5x
 *     the forward for the backward (FlashAttention-2, section 3 and its benchmark formula).
 * Each row's expected FLOPs and bytes are derived in the comment beside it. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "nextstep/op_models.h"

/* Private to the library, tested here. */
double op_causal_pairs(double lq, double lk, bool bottom_right);
double op_window_pairs(double lq, double lk, double left, double right);
const char *op_table_name(size_t i);

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-12 * fmax(1.0, fabs(b)))

typedef struct {
	const char *what;
	const char *name, *dims, *types, *concrete, *grad;
	ns_op_family family;
	ns_op_pass pass;
	ns_op_gap gap;
	double flops, bytes;
} model_row;

#define VLLM_TYPES                                                                                           \
	"[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"int\", \"int\", "    \
	"\"int\", \"\", \"int\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "         \
	"\"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]"
#define VLLM_CONCRETE(max_q, max_k, window)                                                                  \
	"[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"" max_q "\", \"" max_k               \
	"\", \"0.\", \"0.088\", \"False\", \"True\", \"" window "\", \"-1\", \"0.\", \"False\", \"0\"]"

static const model_row rows[] = {
    /* ---- matrix multiplies ---- */
    /* 2*64*256*128 = 4 194 304; (64*128 + 128*256 + 64*256) * 4 = 229 376 */
    {"mm", "aten::mm", "[[64, 128], [128, 256]]", "[\"float\", \"float\"]", NULL, NULL, NS_OPF_GEMM,
     NS_OPP_FWD, NS_OPG_NONE, 4194304, 229376},
    /* decode-shaped linear: x [8, 1024], W [4096, 1024], bias [4096]: 2*8*4096*1024 = 67 108 864;
     * (8*1024 + 4096*1024 + 4096 + 8*4096) * 2 = 8 478 720: the weight read is 99% of it */
    {"linear", "aten::linear", "[[8, 1024], [4096, 1024], [4096]]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]", NULL, NULL, NS_OPF_GEMM, NS_OPP_FWD,
     NS_OPG_NONE, 67108864, 8478720},
    /* fp8 operands, bf16 result (out_dtype 15): 2*128*512*256 = 33 554 432; 128*256 + 256*512 + 128*512*2 */
    {"_scaled_mm fp8", "aten::_scaled_mm", "[[128, 256], [256, 512], [], [], [], [], [], []]",
     "[\"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"float\", \"float\", \"\", \"\", \"Scalar\", "
     "\"Scalar\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"15\", \"False\"]", NULL, NS_OPF_GEMM, NS_OPP_FWD, NS_OPG_NONE,
     33554432, 32768 + 131072 + 131072},
    /* MoE: 1024 tokens through 8 experts of [512, 256]: 2*1024*512*256 = 268 435 456;
     * 1024*512*2 + 8*512*256*2 + 1024*256*2 = 3 670 016 (the offsets are not counted) */
    {"_grouped_mm", "aten::_grouped_mm", "[[1024, 512], [8, 512, 256], [8], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"int\", \"\", \"\"]", NULL, NULL, NS_OPF_GEMM, NS_OPP_FWD,
     NS_OPG_NONE, 268435456, 3670016},
    /* the cases the roofline module's own matmul parser had, now counted here (issue 20): bf16, so 2 B */
    /* addmm(bias [256], A [64, 128], B [128, 256]): 4 194 304; (256 + 8192 + 32 768 + 16 384) * 2 */
    {"addmm", "aten::addmm", "[[256], [64, 128], [128, 256], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]", NULL, NULL,
     NS_OPF_GEMM, NS_OPP_FWD, NS_OPG_NONE, 4194304, 115200},
    /* linear on [8, 64, 128] x W [256, 128]: batch 8 of 64x256x128 = 33 554 432 */
    {"linear 3-D", "aten::linear", "[[8, 64, 128], [256, 128], [256]]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]", NULL, NULL, NS_OPF_GEMM, NS_OPP_FWD,
     NS_OPG_NONE, 33554432, (8 * 64 * 128 + 256 * 128 + 256 + 512 * 256) * 2.0},
    /* bmm, 4 of 64x256x128: 16 777 216; 4 * (8192 + 32 768 + 16 384) * 2 */
    {"bmm", "aten::bmm", "[[4, 64, 128], [4, 128, 256]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]", NULL,
     NULL, NS_OPF_GEMM, NS_OPP_FWD, NS_OPG_NONE, 16777216, 4 * 57344 * 2.0},
    {"baddbmm", "aten::baddbmm", "[[4, 64, 256], [4, 64, 128], [4, 128, 256], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]", NULL, NULL,
     NS_OPF_GEMM, NS_OPP_FWD, NS_OPG_NONE, 16777216, (4 * 64 * 256 + 4 * 57344) * 2.0},
    /* torch.matmul broadcasting [2, 3, 64, 128] over [128, 256]: batch 6 */
    {"matmul broadcast", "aten::matmul", "[[2, 3, 64, 128], [128, 256]]",
     "[\"c10::BFloat16\", \"c10::BFloat16\"]", NULL, NULL, NS_OPF_GEMM, NS_OPP_FWD, NS_OPG_NONE,
     6 * 4194304.0, (6 * 64 * 128 + 128 * 256 + 6 * 64 * 256) * 2.0},
    /* a 1-D left operand is a row: 1x256x128 */
    {"matmul vector", "aten::matmul", "[[128], [128, 256]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]", NULL,
     NULL, NS_OPF_GEMM, NS_OPP_FWD, NS_OPG_NONE, 65536, (128 + 128 * 256 + 256) * 2.0},
    {"bmm with mismatched batches", "aten::bmm", "[[4, 64, 128], [3, 128, 256]]",
     "[\"c10::BFloat16\", \"c10::BFloat16\"]", NULL, NULL, NS_OPF_GEMM, NS_OPP_FWD, NS_OPG_BAD_SHAPES, 0, 0},
    {"mm with one operand", "aten::mm", "[[64, 128]]", "[\"c10::BFloat16\"]", NULL, NULL, NS_OPF_GEMM,
     NS_OPP_FWD, NS_OPG_BAD_SHAPES, 0, 0},
    {"linear with a 1-D weight", "aten::linear", "[[8, 128], [128]]",
     "[\"c10::BFloat16\", \"c10::BFloat16\"]", NULL, NULL, NS_OPF_GEMM, NS_OPP_FWD, NS_OPG_BAD_SHAPES, 0, 0},
    {"mm with a text dim", "aten::mm", "[[64, \"a\"], [128, 256]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]",
     NULL, NULL, NS_OPF_GEMM, NS_OPP_FWD, NS_OPG_BAD_SHAPES, 0, 0},
    {"mm with mismatched inner sizes", "aten::mm", "[[64, 128], [64, 256]]", "[\"float\", \"float\"]", NULL,
     NULL, NS_OPF_GEMM, NS_OPP_FWD, NS_OPG_BAD_SHAPES, 0, 0},

    /* ---- convolutions ---- */
    /* ResNet-50 conv1, batch 32, stride 2, padding 3: out floor((224 + 6 - 6 - 1) / 2) + 1 = 112;
     * 2 * 32 * 112*112*64*3*7*7 = 7 552 892 928 (= 2 * 32 * 118 013 952 multiply-adds);
     * (32*3*224*224 + 64*3*7*7 + 32*64*112*112) * 4 = 122 065 664 */
    {"conv with Concrete Inputs", "aten::convolution",
     "[[32, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]",
     "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
     "\"ScalarList\", "
     "\"Scalar\"]",
     "[\"\", \"\", \"\", \"[2, 2]\", \"[3, 3]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]", NULL,
     NS_OPF_CONV, NS_OPP_FWD, NS_OPG_NONE, 7552892928.0, 122065664},
    /* the same as an old cuDNN record: no Concrete Inputs, the output size from the autograd node */
    {"conv sized by its autograd node", "aten::cudnn_convolution",
     "[[32, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]",
     "[\"float\", \"float\", \"GenericList\", \"GenericList\", \"GenericList\", \"Int\", \"Bool\", \"Bool\", "
     "\"Bool\"]",
     NULL, "[[32, 64, 112, 112]]", NS_OPF_CONV, NS_OPP_FWD, NS_OPG_NONE, 7552892928.0, 122065664},
    {"conv with neither", "aten::cudnn_convolution",
     "[[32, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]",
     "[\"float\", \"float\", \"GenericList\", \"GenericList\", \"GenericList\", \"Int\", \"Bool\", \"Bool\", "
     "\"Bool\"]",
     NULL, NULL, NS_OPF_CONV, NS_OPP_FWD, NS_OPG_INCOMPLETE, 0, 0},
    /* depthwise 3x3, groups 32: 2*8*56*56*32*(32/32)*9 = 14 450 688 (the standard 2*N*H*W*C*k^2);
     * (8*32*56*56 * 2 + 32*9) * 2 = 3 211 840 */
    {"depthwise conv", "aten::convolution", "[[8, 32, 56, 56], [32, 1, 3, 3], [], [], [], [], [], [], []]",
     "[\"c10::Half\", \"c10::Half\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
     "\"ScalarList\", \"Scalar\"]",
     "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"32\"]", NULL,
     NS_OPF_CONV, NS_OPP_FWD, NS_OPG_NONE, 14450688, (8.0 * 32 * 56 * 56 * 2 + 32 * 9) * 2},
    /* dilation 2, no padding: out 64 - 2*(3-1) = 60; 2*60*60*16*16*9 = 16 588 800;
     * (16*64*64 + 16*16*9 + 16*60*60) * 4 = 508 160 */
    {"dilated conv", "aten::convolution", "[[1, 16, 64, 64], [16, 16, 3, 3], [], [], [], [], [], [], []]",
     "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
     "\"ScalarList\", "
     "\"Scalar\"]",
     "[\"\", \"\", \"\", \"[1, 1]\", \"[0, 0]\", \"[2, 2]\", \"False\", \"[0, 0]\", \"1\"]", NULL,
     NS_OPF_CONV, NS_OPP_FWD, NS_OPG_NONE, 16588800, (16.0 * 4096 + 2304 + 16 * 3600) * 4},
    /* transposed, stride 2, padding 1, kernel 4: out (16-1)*2 - 2 + 3 + 1 = 32; every input position meets
     * the whole weight: 2*4*16*16*(64*32*16) = 67 108 864; (4*64*256 + 64*32*16 + 4*32*32*32) * 4 = 917 504
     */
    {"transposed conv", "aten::convolution", "[[4, 64, 16, 16], [64, 32, 4, 4], [], [], [], [], [], [], []]",
     "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
     "\"ScalarList\", "
     "\"Scalar\"]",
     "[\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"True\", \"[0, 0]\", \"1\"]", NULL, NS_OPF_CONV,
     NS_OPP_FWD, NS_OPG_NONE, 67108864, 917504},
    /* both gradients (output_mask [True, True, False]): each 2*32*56*56*64*64*9 = 7 398 752 256;
     * each reads two of dY, X, W and writes the third: (6 422 528 * 2 + 36 864) * 4 = 51 527 680 */
    {"conv backward, both passes", "aten::convolution_backward",
     "[[32, 64, 56, 56], [32, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], [], []]",
     "[\"float\", \"float\", \"float\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
     "\"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
     "[\"\", \"\", \"\", \"[64]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", "
     "\"[True, True, False]\"]",
     NULL, NS_OPF_CONV, NS_OPP_BWD, NS_OPG_NONE, 2 * 7398752256.0, 2 * 51527680.0},
    /* the first layer's: no input gradient (output_mask [False, True, True]) */
    {"conv backward, weight only", "aten::convolution_backward",
     "[[32, 64, 56, 56], [32, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], [], []]",
     "[\"float\", \"float\", \"float\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
     "\"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
     "[\"\", \"\", \"\", \"[64]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", "
     "\"[False, True, True]\"]",
     NULL, NS_OPF_CONV, NS_OPP_BWD_WEIGHT, NS_OPG_NONE, 7398752256.0, 51527680.0},
    /* cuDNN's backward_input records the input size as a list it does not print: not placeable alone */
    {"cudnn backward_input without its caller", "aten::cudnn_convolution_backward_input",
     "[[], [32, 2048, 7, 7], [2048, 512, 1, 1], [], [], [], [], [], [], []]",
     "[\"GenericList\", \"float\", \"float\", \"GenericList\", \"GenericList\", \"GenericList\", \"Int\", "
     "\"Bool\", \"Bool\", \"Bool\"]",
     NULL, NULL, NS_OPF_CONV, NS_OPP_BWD_INPUT, NS_OPG_INCOMPLETE, 0, 0},

    /* ---- attention ---- */
    /* SDPA, b2 h16 L1024 d64, not causal: 4*2*16*1024^2*64 = 8 589 934 592 (FlashAttention's 4 B H N^2 d);
     * Q, K, V, O each 2*16*1024*64*2 = 4 194 304, the fp32 log-sum-exp 2*16*1024*4 = 131 072 */
    {"sdpa", "aten::scaled_dot_product_attention",
     "[[2, 16, 1024, 64], [2, 16, 1024, 64], [2, 16, 1024, 64], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"Scalar\", \"Scalar\", \"\", "
     "\"Scalar\"]",
     "[\"\", \"\", \"\", \"\", \"0.\", \"False\", \"\", \"False\"]", NULL, NS_OPF_ATTENTION, NS_OPP_FWD,
     NS_OPG_NONE, 8589934592.0, 4 * 4194304.0 + 131072},
    /* causal: the pairs i >= j, 1024*1025/2 = 524 800 per head: 2*32*524 800*128 = 4 299 161 600 (the paper's
     * half, 4 294 967 296, plus the diagonal) */
    {"sdpa causal", "aten::_scaled_dot_product_flash_attention",
     "[[2, 16, 1024, 64], [2, 16, 1024, 64], [2, 16, 1024, 64], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\", \"Scalar\", \"\"]",
     "[\"\", \"\", \"\", \"0.\", \"True\", \"False\", \"\"]", NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE,
     4299161600.0, 4 * 4194304.0 + 131072},
    /* GQA: 32 query heads over 8 KV heads; FLOPs follow the query heads, 4*32*512^2*128 = 4 294 967 296;
     * bytes Q 4 194 304, K and V 1 048 576 each, O 4 194 304, lse 32*512*4 = 65 536 */
    {"sdpa gqa", "aten::_scaled_dot_product_efficient_attention",
     "[[1, 32, 512, 128], [1, 8, 512, 128], [1, 8, 512, 128], [], [], [], [], []]",
     "[\"c10::Half\", \"c10::Half\", \"c10::Half\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"\"]",
     "[\"\", \"\", \"\", \"\", \"False\", \"0.\", \"False\", \"\"]", NULL, NS_OPF_ATTENTION, NS_OPP_FWD,
     NS_OPG_NONE, 4294967296.0, 4194304.0 * 2 + 1048576.0 * 2 + 65536},
    /* backward, not causal: 2*32*1024^2*(3*64 + 2*64) = 21 474 836 480 = 2.5 x the forward; bytes: Q, K, V
     * read and their gradients written (2 * 12 582 912), O and dO read (8 388 608), the log-sum-exp (131 072)
     */
    {"sdpa flash backward", "aten::_scaled_dot_product_flash_attention_backward",
     "[[2, 16, 1024, 64], [2, 16, 1024, 64], [2, 16, 1024, 64], [2, 16, 1024, 64], [2, 16, 1024, 64], [2, "
     "16, "
     "1024], [], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", "
     "\"float\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"\", \"\", \"\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"1024\", \"1024\", \"0.\", \"False\", \"\", \"\", "
     "\"\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_BWD, NS_OPG_NONE, 21474836480.0, 2 * 12582912.0 + 8388608 + 131072},
    /* varlen, 4 sequences over 4096 tokens (max_seqlen 1024 x 4 = 4096: every length is 1024), 16 heads, d64,
     * causal (bottom-right, here the same as top-left): 2 * (4*16) * 524 800 * 128 = 8 598 323 200; Q, K, V,
     * O 8 388 608 each, the log-sum-exp 64*1024*4 (the cumulative lengths are not counted) */
    {"flash varlen causal", "flash_attn::_flash_attn_varlen_forward",
     "[[4096, 16, 64], [4096, 16, 64], [4096, 16, 64], [5], [5], [], [], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"int\", \"int\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"\", \"Scalar\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"1024\", \"1024\", \"0.\", \"0.125\", \"True\", \"-1\", \"-1\", "
     "\"0.\", "
     "\"\", \"False\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 8598323200.0, 4 * 4096 * 16 * 64 * 2.0 + 64 * 1024 * 4},

    /* flash-attn 2, causal with a 1023-token window (window_size_left 1023, right 0): the FlashAttention-3
     * window row's counts */
    {"flash sliding window", "flash_attn::_flash_attn_forward",
     "[[1, 4096, 16, 64], [1, 4096, 16, 64], [1, 4096, 16, 64], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"Scalar\", \"Scalar\", \"\", \"Scalar\"]",
     "[\"\", \"\", \"\", \"0.\", \"0.125\", \"True\", \"1023\", \"0\", \"0.\", \"\", \"False\"]", NULL,
     NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 15034482688.0, 4 * 8388608.0 + 262144},
    /* the same op under the namespace an earlier flash-attn registration used: the same counts */
    {"flash sliding window, flashattn::", "flashattn::_flash_attn_forward",
     "[[1, 4096, 16, 64], [1, 4096, 16, 64], [1, 4096, 16, 64], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"Scalar\", \"Scalar\", \"\", \"Scalar\"]",
     "[\"\", \"\", \"\", \"0.\", \"0.125\", \"True\", \"1023\", \"0\", \"0.\", \"\", \"False\"]", NULL,
     NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 15034482688.0, 4 * 8388608.0 + 262144},

    /* vLLM decode, one sequence of 4000 tokens (max_seq_len), 32 query heads over 8 KV heads, d128, bf16:
     * 2 * 32 * 4000 * (128 + 128) = 65 536 000; query read and output written 2 * 32*128*2 = 16 384, keys
     * and values 4000 * 8 * 128 * (2 + 2) = 16 384 000, the block table 256 * 4 = 1 024 */
    {"paged attention v1", "_C::paged_attention_v1",
     "[[1, 32, 128], [1, 32, 128], [1000, 8, 16, 16, 8], [1000, 8, 128, 16], [], [], [1, 256], [1], [], [], "
     "[], "
     "[], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\", "
     "\"int\", \"int\", \"Scalar\", \"Scalar\", \"\", \"String\", \"float\", \"float\"]",
     "[\"\", \"\", \"\", \"\", \"8\", \"0.088\", \"\", \"\", \"16\", \"4000\", \"\", \"auto\", \"\", \"\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 65536000, 16401408},
    /* v2 with an fp8 cache (one byte an element), 512 tokens: 4 * 32 * 512 * 128 = 8 388 608;
     * 16 384 + 512 * 8 * 128 * 2 + 32 * 4 */
    {"paged attention v2 fp8 cache", "_C::paged_attention_v2",
     "[[1, 32, 128], [1, 32, 8], [1, 32, 8], [1, 32, 8, 128], [1, 32, 128], [1000, 8, 8, 16, 16], "
     "[1000, 8, 128, 16], [], [], [1, 32], [1], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"float\", \"float\", \"c10::BFloat16\", \"c10::BFloat16\", \"unsigned char\", "
     "\"unsigned char\", \"Scalar\", \"Scalar\", \"int\", \"int\", \"Scalar\", \"Scalar\", \"\", \"String\", "
     "\"float\", \"float\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"8\", \"0.088\", \"\", \"\", \"16\", \"512\", \"\", "
     "\"fp8\", "
     "\"\", \"\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 8388608, 1065088},
    /* four sequences: their lengths are a tensor; only the longest's 4000 tokens are known (a lower bound):
     * 2 * 32 * 4000 * 256 = 65 536 000; the 4 queries and outputs 2 * 4*32*128*2 = 65 536, that one
     * context's keys and values 16 384 000, the block tables 4 * 256 * 4 = 4 096 */
    {"paged attention, a batch (bound)", "_C::paged_attention_v1",
     "[[4, 32, 128], [4, 32, 128], [1000, 8, 16, 16, 8], [1000, 8, 128, 16], [], [], [4, 256], [4], [], [], "
     "[], "
     "[], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\", "
     "\"int\", \"int\", \"Scalar\", \"Scalar\", \"\", \"String\", \"float\", \"float\"]",
     "[\"\", \"\", \"\", \"\", \"8\", \"0.088\", \"\", \"\", \"16\", \"4000\", \"\", \"auto\", \"\", \"\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 65536000, 16453632},

    /* vLLM V1's varlen_fwd over the paged cache [1000 blocks, 16, 8 kv heads, 128], bf16. Decode of 4
     * sequences (4 query tokens), longest context 4000, causal: at least 3 + 4000 pairs: 2 * 32 * 4003 *
     * 256 = 65 585 152; queries and outputs 2 * 4*32*128*2 = 65 536, that context's keys and values
     * 4000 * 8 * (128*2 + 128*2) = 16 384 000, block tables 4*256*4 = 4 096, cu_seqlens_q 5*4, seqused_k 4*4
     */
    {"vllm varlen, decode batch (bound)", "_vllm_fa2_C::varlen_fwd",
     "[[4, 32, 128], [1000, 16, 8, 128], [1000, 16, 8, 128], [4, 32, 128], [5], [5], [4], [], [4, 256], [], "
     "[], [], [], [], [], [], [], [], [], [], []]",
     VLLM_TYPES, VLLM_CONCRETE("1", "4000", "-1"), NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 65585152,
     16453668},
    /* the same batch padded to 8 query rows: the queries are counted from the sequences (max_seqlen_q 1 +
     * 3 others), not the padded rows: the same counts */
    {"vllm varlen, padded batch (bound)", "_vllm_fa2_C::varlen_fwd",
     "[[8, 32, 128], [1000, 16, 8, 128], [1000, 16, 8, 128], [8, 32, 128], [5], [5], [4], [], [4, 256], [], "
     "[], [], [], [], [], [], [], [], [], [], []]",
     VLLM_TYPES, VLLM_CONCRETE("1", "4000", "-1"), NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 65585152,
     16453668},
    /* one sequence: 512 new tokens over a 4096-token context, causal bottom-right: pairs 512 * 3585 +
     * 511*512/2 = 1 966 336, 2 * 32 * 1 966 336 * 256 = 32 216 449 024; 2 * 512*32*128*2 = 8 388 608 + 4096
     * * 8 * 512 = 16 777 216 + 1 024 + 8 + 4 = 25 166 860, exact */
    {"vllm varlen, one prefill", "_vllm_fa2_C::varlen_fwd",
     "[[512, 32, 128], [1000, 16, 8, 128], [1000, 16, 8, 128], [512, 32, 128], [2], [2], [1], [], [1, 256], "
     "[], [], [], [], [], [], [], [], [], [], [], []]",
     VLLM_TYPES, VLLM_CONCRETE("512", "4096", "-1"), NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE,
     32216449024.0, 25166860},
    /* the decode batch with a 255-token sliding window: 256 keys at most: 3 + 256 pairs, 2 * 32 * 259 * 256
     * = 4 243 456; 65 536 + 256 * 8 * 512 + 4 096 + 20 + 16 = 1 118 244 */
    {"vllm varlen, windowed (bound)", "_vllm_fa2_C::varlen_fwd",
     "[[4, 32, 128], [1000, 16, 8, 128], [1000, 16, 8, 128], [4, 32, 128], [5], [5], [4], [], [4, 256], [], "
     "[], [], [], [], [], [], [], [], [], [], []]",
     VLLM_TYPES, VLLM_CONCRETE("1", "4000", "255"), NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 4243456,
     1118244},
    /* without a block table the keys and values are packed: the flash varlen count above (4 sequences of
     * 1024, causal), the same FLOPs and bytes */
    {"vllm varlen, packed", "_vllm_fa2_C::varlen_fwd",
     "[[4096, 16, 64], [4096, 16, 64], [4096, 16, 64], [4096, 16, 64], [5], [5], [], [], [], [], [], [], [], "
     "[], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"int\", \"int\", \"\", "
     "\"\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
     VLLM_CONCRETE("1024", "1024", "-1"), NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 8598323200.0,
     4 * 4096 * 16 * 64 * 2.0 + 64 * 1024 * 4},
    {"vllm varlen, max_seqlen_k unrecorded", "_vllm_fa2_C::varlen_fwd",
     "[[4, 32, 128], [1000, 16, 8, 128], [1000, 16, 8, 128], [4, 32, 128], [5], [5], [4], [], [4, 256], [], "
     "[], [], [], [], [], [], [], [], [], [], []]",
     VLLM_TYPES, NULL, NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_INCOMPLETE, 0, 0},

    /* FlashAttention-3, batch 2 x 1024 tokens, 32 query heads over 8 KV heads (GQA), d128, causal
     * (bottom-right, here top-left too): pairs 1024*1025/2 = 524 800 a head, 2 * 64 * 524 800 * 256 =
     * 17 196 646 400 (the papers' 4*b*h*N^2*d/2 = 17 179 869 184 rounds the diagonal away); Q 16 777 216,
     * K and V 4 194 304 each (their 8 heads), O 16 777 216, the log-sum-exp 64*1024*4 = 262 144 */
    {"fa3 causal gqa", "flash_attn_3::fwd",
     "[[2, 1024, 32, 128], [2, 1024, 8, 128], [2, 1024, 8, 128], [], [], [], [], [], [], [], [], "
     "[], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.088\", \"True\", \"-1\", \"-1\", \"0\", "
     "\"0.\", \"True\", \"\", \"1\", \"\", \"0\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 17196646400.0, 42205184},
    /* its Python custom op, causal with a 1023-token window (window_size_left 1023): row i sees
     * min(i + 1, 1024) keys, 524 800 + 3072 * 1024 = 3 670 528 pairs a head, 2 * 16 * 3 670 528 * 128 =
     * 15 034 482 688; Q, K, V, O 8 388 608 each + the log-sum-exp 16*4096*4 */
    {"fa3 sliding window", "flash_attn_3::_flash_attn_forward",
     "[[1, 4096, 16, 64], [1, 4096, 16, 64], [1, 4096, 16, 64], [], [], [], [], [], [], [], [], "
     "[], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.088\", \"True\", \"1023\", \"-1\", "
     "\"0\", \"0.\", \"True\", \"\", \"1\", \"\", \"0\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 15034482688.0, 4 * 8388608.0 + 262144},
    /* e4m3 inputs, not causal: 2 * 8 * 512^2 * 256 = 1 073 741 824; Q, K, V one byte an element
     * (3 * 524 288), the output in bf16 (8*512*128*2 = 1 048 576), the log-sum-exp 16 384 */
    {"fa3 fp8", "flash_attn_3::fwd",
     "[[1, 512, 8, 128], [1, 512, 8, 128], [1, 512, 8, 128], [], [], [], [], [], [], [], [], [], "
     "[], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], []]",
     "[\"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"Scalar\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.088\", \"False\", \"-1\", \"-1\", "
     "\"0\", \"0.\", \"True\", \"\", \"1\", \"\", \"0\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 1073741824.0, 1572864.0 + 1048576 + 16384},
    /* varlen (cu_seqlens_q/k), 4 sequences of 1024 (max_seqlen 1024 x 4 = every token): the flash
     * varlen row's counts */
    {"fa3 varlen causal", "flash_attn_3::fwd",
     "[[4096, 16, 64], [4096, 16, 64], [4096, 16, 64], [], [], [], [], [5], [5], [], [], [], [], "
     "[], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"\", \"\", \"\", \"int\", "
     "\"int\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"1024\", "
     "\"1024\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.088\", \"True\", "
     "\"-1\", \"-1\", \"0\", \"0.\", \"True\", \"\", \"1\", \"\", \"0\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 8598323200.0, 4 * 4096 * 16 * 64 * 2.0 + 64 * 1024 * 4},
    /* a KV cache with seqused_k (flash_attn_with_kvcache's cache_seqlens): the lengths used are a
     * tensor, so no count */
    {"fa3 kv cache lengths", "flash_attn_3::fwd",
     "[[4, 1, 32, 128], [4, 4096, 8, 128], [4, 4096, 8, 128], [], [], [], [], [], [], [], [], "
     "[4], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"int\", \"Scalar\", \"Scalar\", \"\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.088\", \"True\", \"-1\", \"-1\", \"0\", "
     "\"0.\", \"True\", \"\", \"1\", \"\", \"0\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_INCOMPLETE, 0, 0},
    /* attention_chunk > 0: chunked attention has no model */
    {"fa3 chunked", "flash_attn_3::fwd",
     "[[2, 1024, 32, 128], [2, 1024, 8, 128], [2, 1024, 8, 128], [], [], [], [], [], [], [], [], "
     "[], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.088\", \"True\", \"-1\", \"-1\", "
     "\"8192\", \"0.\", \"True\", \"\", \"1\", \"\", \"0\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_UNKNOWN_OP, 0, 0},
    /* FlashAttention-3 backward, 2 x 1024, 16 heads, d64, causal: 2 * 32 * 524 800 * (3*64 + 2*64) =
     * 10 747 904 000 = 2.5x the forward; Q, K, V read and written as gradients (2 * 12 582 912), O and dO
     * read (2 * 4 194 304), the log-sum-exp 32*1024*4 */
    {"fa3 bwd causal", "flash_attn_3::bwd",
     "[[2, 1024, 16, 64], [2, 1024, 16, 64], [2, 1024, 16, 64], [2, 1024, 16, 64], [2, 1024, 16, "
     "64], [2, 16, 1024], [2, 1024, 16, 64], [2, 1024, 16, 64], [2, 1024, 16, 64], [], [], [], "
     "[], [], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", "
     "\"c10::BFloat16\", \"float\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", "
     "\"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", "
     "\"0.125\", \"True\", \"-1\", \"-1\", \"0.\", \"False\", \"0\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_BWD, NS_OPG_NONE, 10747904000.0, 2 * 12582912.0 + 2 * 4194304 + 131072},
    /* its Python custom op (dq, dk, dv after the lengths): the same counts */
    {"fa3 python bwd causal", "flash_attn_3::_flash_attn_backward",
     "[[2, 1024, 16, 64], [2, 1024, 16, 64], [2, 1024, 16, 64], [2, 1024, 16, 64], [2, 1024, 16, "
     "64], [2, 16, 1024], [], [], [], [], [], [], [2, 1024, 16, 64], [2, 1024, 16, 64], [2, 1024, "
     "16, 64], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", "
     "\"c10::BFloat16\", \"float\", \"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", "
     "\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", "
     "\"0.125\", \"True\", \"-1\", \"-1\", \"0.\", \"False\", \"0\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_BWD, NS_OPG_NONE, 10747904000.0, 2 * 12582912.0 + 2 * 4194304 + 131072},
    /* vLLM's FA3 build over its paged cache: the vLLM varlen decode batch above (4 sequences, longest
     * context 4000, block tables [4, 256], seqused_k [4]): the same counts */
    {"vllm fa3, decode batch (bound)", "_vllm_fa3_C::fwd",
     "[[4, 32, 128], [1000, 16, 8, 128], [1000, 16, 8, 128], [], [], [], [4, 32, 128], [5], [], "
     "[], [], [4], [], [], [4, 256], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], "
     "[], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"\", \"\", "
     "\"c10::BFloat16\", \"int\", \"\", \"\", \"\", \"int\", \"Scalar\", \"Scalar\", \"int\", "
     "\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"1\", \"4000\", "
     "\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.088\", \"True\", \"-1\", \"-1\", "
     "\"0.\", \"True\", \"\", \"\", \"0\", \"\", \"0\", \"\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 65585152, 16453668},
    /* pages read by [batch, length, heads, d] queries: the cache lengths are not recorded */
    {"vllm fa3, batch-major queries on pages", "_vllm_fa3_C::fwd",
     "[[4, 1, 32, 128], [1000, 16, 8, 128], [1000, 16, 8, 128], [], [], [], [], [], [], [], [], "
     "[4], [], [], [4, 256], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], "
     "[], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"int\", \"Scalar\", \"Scalar\", \"int\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"1\", \"4000\", "
     "\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.088\", \"True\", \"-1\", \"-1\", "
     "\"0.\", \"True\", \"\", \"\", \"0\", \"\", \"0\", \"\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_INCOMPLETE, 0, 0},
    /* MLA-shaped FlashAttention-3 with q_v: 16 query heads [1, 512, 16, 64] over one KV head, K [.., 64],
     * V [.., 512], q_v [1, 512, 16, 512], not causal. The scores are QK^T + q_v V^T, then PV: 2 * 16 *
     * 512^2 * (64 + 2*512) = 9 126 805 504, the count of FlashAttention-3's own benchmark_mla_decode.py
     * (seqlen_q * total_seqlen * nheads_q * (headdim + 2 * headdim_v) * 2). Bytes: Q 1 048 576, K 65 536,
     * V 524 288, q_v 8 388 608, O 16*512*512*2 = 8 388 608 (its mem_io's four terms), the log-sum-exp
     * 16*512*4 = 32 768 */
    {"fa3 mla q_v", "flash_attn_3::fwd",
     "[[1, 512, 16, 64], [1, 512, 1, 64], [1, 512, 1, 512], [], [], [1, 512, 16, 512], [], [], "
     "[], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], "
     "[], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"\", \"c10::BFloat16\", "
     "\"\", \"\", \"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"Scalar\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.088\", \"False\", \"-1\", \"-1\", "
     "\"0\", \"0.\", \"True\", \"\", \"1\", \"\", \"0\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 9126805504.0, 18448384},
    /* a q_v that is not [.., heads, dv] is refused, not counted */
    {"fa3 q_v of the key's size", "flash_attn_3::fwd",
     "[[1, 512, 16, 64], [1, 512, 1, 64], [1, 512, 1, 512], [], [], [1, 512, 16, 64], [], [], "
     "[], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], "
     "[], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"\", \"c10::BFloat16\", "
     "\"\", \"\", \"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"Scalar\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.088\", \"False\", \"-1\", \"-1\", "
     "\"0\", \"0.\", \"True\", \"\", \"1\", \"\", \"0\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_BAD_SHAPES, 0, 0},
    /* the fp8 row above with its q/k/v_descale recorded, [1, 8] fp32 each: 3 * 32 bytes more */
    {"fa3 fp8 descaled", "flash_attn_3::fwd",
     "[[1, 512, 8, 128], [1, 512, 8, 128], [1, 512, 8, 128], [], [], [], [], [], [], [], [], [], "
     "[], [], [], [], [], [], [], [], [1, 8], [1, 8], [1, 8], [], [], [], [], [], [], [], [], "
     "[], [], []]",
     "[\"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"Scalar\", \"Scalar\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", "
     "\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.088\", \"False\", \"-1\", \"-1\", "
     "\"0\", \"0.\", \"True\", \"\", \"1\", \"\", \"0\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 1073741824.0, 1572864.0 + 1048576 + 16384 + 96},
    /* vLLM's newer FA3 registration (o_scale before softmax_scale: is_causal at 25, the window at 26/27):
     * the one prefill of the vLLM varlen row above (512 new tokens over a 4096-token context, causal
     * bottom-right), exact: the same FLOPs and bytes. Read at the older positions, is_causal would be the
     * softmax scale and the op a lower bound. */
    {"vllm fa3 o_scale registration, one prefill", "_vllm_fa3_C::fwd",
     "[[512, 32, 128], [1000, 16, 8, 128], [1000, 16, 8, 128], [], [], [], [512, 32, 128], [2], "
     "[], [], [], [1], [], [], [1, 256], [], [], [], [], [], [], [], [], [], [], [], [], [], [], "
     "[], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"\", \"\", "
     "\"c10::BFloat16\", \"int\", \"\", \"\", \"\", \"int\", \"Scalar\", \"Scalar\", \"int\", "
     "\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"Scalar\", \"Scalar\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"\", "
     "\"Scalar\", \"Scalar\", \"\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"512\", "
     "\"4096\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.088\", \"True\", "
     "\"-1\", \"-1\", \"0.\", \"True\", \"\", \"0\", \"\", \"0\", \"\", \"1\", \"0\", \"\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 32216449024.0, 25166860},
    /* the same with an fp8 output (its recorded type) and o_scale [1] fp32: O at one byte an element,
     * 512*32*128 = 2 097 152 bytes fewer, and 4 for the scale */
    {"vllm fa3 o_scale, fp8 output", "_vllm_fa3_C::fwd",
     "[[512, 32, 128], [1000, 16, 8, 128], [1000, 16, 8, 128], [], [], [], [512, 32, 128], [2], "
     "[], [], [], [1], [], [], [1, 256], [], [], [], [], [], [], [], [], [1], [], [], [], [], "
     "[], [], [], [], [], [], [], [], [], []]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"\", \"\", "
     "\"c10::Float8_e4m3fn\", \"int\", \"\", \"\", \"\", \"int\", \"Scalar\", \"Scalar\", "
     "\"int\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"float\", \"Scalar\", "
     "\"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"\", \"Scalar\", \"Scalar\", \"\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"512\", "
     "\"4096\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.088\", \"True\", "
     "\"-1\", \"-1\", \"0.\", \"True\", \"\", \"0\", \"\", \"0\", \"\", \"1\", \"0\", \"\"]",
     NULL, NS_OPF_ATTENTION, NS_OPP_FWD, NS_OPG_NONE, 32216449024.0, 25166860 - 2097152 + 4},

    /* ---- memory-bound families ---- */
    /* 32*256*56*56 = 25 690 112 elements; two read, one written, fp32: 308 281 344 */
    {"add", "aten::add", "[[32, 256, 56, 56], [32, 256, 56, 56], []]", "[\"float\", \"float\", \"Scalar\"]",
     NULL, NULL, NS_OPF_ELEMENTWISE, NS_OPP_FWD, NS_OPG_NONE, 0, 308281344},
    {"add_ in place", "aten::add_", "[[32, 256, 56, 56], [32, 256, 56, 56], []]",
     "[\"float\", \"float\", \"Scalar\"]", NULL, NULL, NS_OPF_ELEMENTWISE, NS_OPP_FWD, NS_OPG_NONE, 0,
     308281344},
    /* broadcast: [8, 1024, 768] x [768] bf16: 12 582 912 + 1 536 read, 12 582 912 written */
    {"mul broadcast", "aten::mul", "[[8, 1024, 768], [768]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]", NULL,
     NULL, NS_OPF_ELEMENTWISE, NS_OPP_FWD, NS_OPG_NONE, 0, 25167360},
    /* comparisons write bool: 1000*8 * 2 + 1000 */
    {"eq", "aten::eq", "[[1000], [1000]]", "[\"long\", \"long\"]", NULL, NULL, NS_OPF_ELEMENTWISE, NS_OPP_FWD,
     NS_OPG_NONE, 0, 17000},
    {"fill_", "aten::fill_", "[[64, 3, 7, 7], []]", "[\"float\", \"Scalar\"]", NULL, NULL, NS_OPF_ELEMENTWISE,
     NS_OPP_FWD, NS_OPG_NONE, 0, 9408 * 4},
    /* copy_(dst float, src bool): 524 288 read at 1 byte, written at 4 */
    {"copy_ converting", "aten::copy_", "[[2048, 256], [2048, 256], []]", "[\"float\", \"bool\", \"Scalar\"]",
     NULL, NULL, NS_OPF_COPY, NS_OPP_FWD, NS_OPG_NONE, 0, 2621440},
    /* layer norm over 125: x read and y written (256 000 * 4 each), weight and bias read (125 * 4 each) */
    {"layer norm", "aten::native_layer_norm", "[[2048, 125], [], [125], [125], []]",
     "[\"float\", \"\", \"float\", \"float\", \"Scalar\"]", NULL, NULL, NS_OPF_NORM, NS_OPP_FWD, NS_OPG_NONE,
     0, 2049000},
    /* cuDNN batch norm backward: X and dY read (2 * 3 211 264 * 4), five [2048] vectors (40 960) and the
     * empty reserve, dX written (12 845 056) */
    {"batch norm backward", "aten::cudnn_batch_norm_backward",
     "[[32, 2048, 7, 7], [32, 2048, 7, 7], [2048], [2048], [2048], [2048], [2048], [], [0]]",
     "[\"float\", \"float\", \"float\", \"float\", \"float\", \"float\", \"float\", \"Double\", \"unsigned "
     "char\"]",
     NULL, NULL, NS_OPF_NORM, NS_OPP_BWD, NS_OPG_NONE, 0, 38576128},
    {"softmax", "aten::_softmax", "[[8, 12, 512, 512], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", NULL,
     NULL, NS_OPF_SOFTMAX, NS_OPP_FWD, NS_OPG_NONE, 0, 201326592},
    /* 8192 int64 indices (65 536) and 8192 rows of 768 bf16 read and written (2 * 12 582 912) */
    {"embedding", "aten::embedding", "[[50257, 768], [8, 1024], [], [], []]",
     "[\"c10::BFloat16\", \"long\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL, NULL, NS_OPF_EMBEDDING,
     NS_OPP_FWD, NS_OPG_NONE, 0, 25231360},
    /* 3x3 stride 2 padding 1 on 112: floor((112 + 2 - 2 - 1) / 2) + 1 = 56; input read (102 760 448), output
     * written (25 690 112) with its int64 indices (51 380 224) */
    {"max pool", "aten::max_pool2d_with_indices", "[[32, 64, 112, 112], [], [], [], [], []]",
     "[\"float\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\"]",
     "[\"\", \"[3, 3]\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"False\"]", NULL, NS_OPF_POOLING, NS_OPP_FWD,
     NS_OPG_NONE, 0, 179830784},
    /* its backward: dY and the indices read, dX (the input's size) written: the same bytes */
    {"max pool backward", "aten::max_pool2d_with_indices_backward",
     "[[32, 64, 56, 56], [32, 64, 112, 112], [], [], [], [], [], [32, 64, 56, 56]]",
     "[\"float\", \"float\", \"GenericList\", \"GenericList\", \"GenericList\", \"GenericList\", \"Bool\", "
     "\"long int\"]",
     NULL, NULL, NS_OPF_POOLING, NS_OPP_BWD, NS_OPG_NONE, 0, 179830784},
    /* a TensorList has no element type: not placed without --dtype */
    {"cat of a list", "aten::cat", "[[[4, 8], [4, 8]], []]", "[\"TensorList\", \"Scalar\"]", NULL, NULL,
     NS_OPF_COPY, NS_OPP_FWD, NS_OPG_NO_DTYPE, 0, 0},
    {"cat without sizes", "aten::cat", "[[], []]", "[\"TensorList\", \"Scalar\"]", NULL, NULL, NS_OPF_COPY,
     NS_OPP_FWD, NS_OPG_INCOMPLETE, 0, 0},

    /* logit: 2048 fp32 read and written */
    {"logit", "aten::logit", "[[2048, 1], []]", "[\"float\", \"Scalar\"]", NULL, NULL, NS_OPF_ELEMENTWISE,
     NS_OPP_FWD, NS_OPG_NONE, 0, 2 * 2048 * 4.0},
    /* index_select on a 1-D tensor needs no recorded dim: 6825 int64 indices read, as many picked and
     * written: 6825 * 8 * 3 = 163 800 */
    {"index_select 1-D", "aten::index_select", "[[2048], [], [6825]]", "[\"long\", \"Scalar\", \"long\"]",
     NULL, NULL, NS_OPF_COPY, NS_OPP_FWD, NS_OPG_NONE, 0, 163800},

    /* ---- fbgemm (DLRM-style jobs) ---- */
    /* fp32 [1000, 30] to rowwise fp8: read 1000*30*4 = 120 000; each row written as ceil4(30) = 32 bytes
     * and a float scale and bias (8): 1000 * 40 = 40 000 */
    {"to rowwise fp8", "fbgemm::FloatToFP8RowwiseQuantized", "[[1000, 30], []]", "[\"float\", \"Scalar\"]",
     NULL, NULL, NS_OPF_COPY, NS_OPP_FWD, NS_OPG_NONE, 0, 160000},
    /* and back, output_dtype absent (FP32): read 1000*40 = 40 000, write 1000 * (40 - 8) * 4 = 128 000 */
    {"from rowwise fp8", "fbgemm::FP8RowwiseQuantizedToFloat", "[[1000, 40], []]",
     "[\"unsigned char\", \"Scalar\"]", NULL, NULL, NS_OPF_COPY, NS_OPP_FWD, NS_OPG_NONE, 0, 168000},
    /* output_dtype 5 (SparseType BF16): 1000 * 32 * 2 = 64 000 written */
    {"from rowwise fp8 to bf16", "fbgemm::FP8RowwiseQuantizedToFloat", "[[1000, 40], [], []]",
     "[\"unsigned char\", \"Scalar\", \"Scalar\"]", "[\"\", \"True\", \"5\"]", NULL, NS_OPF_COPY, NS_OPP_FWD,
     NS_OPG_NONE, 0, 104000},
    {"from rowwise fp8, output_dtype unrecorded", "fbgemm::FP8RowwiseQuantizedToFloat",
     "[[1000, 40], [], []]", "[\"unsigned char\", \"Scalar\", \"Scalar\"]", NULL, NULL, NS_OPF_COPY,
     NS_OPP_FWD, NS_OPG_INCOMPLETE, 0, 0},
    /* hfp8: one byte an element: 1024*4 read + 1024 written, and the reverse */
    {"to hfp8", "fbgemm::FloatToHFP8Quantized", "[[1024], [], [], []]",
     "[\"float\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL, NULL, NS_OPF_COPY, NS_OPP_FWD, NS_OPG_NONE, 0,
     5120},
    {"from hfp8", "fbgemm::HFP8QuantizedToFloat", "[[1024], [], []]",
     "[\"unsigned char\", \"Scalar\", \"Scalar\"]", NULL, NULL, NS_OPF_COPY, NS_OPP_FWD, NS_OPG_NONE, 0,
     5120},
    /* permute 3 features of batch 4 with 50 int32 indices: read 3*4 + 12*4 + 50*4 = 260; write the
     * permuted lengths 12*4 = 48 and indices 50*4 = 200 */
    {"permute sparse features", "fbgemm::permute_sparse_features", "[[3], [3, 4], [50], []]",
     "[\"int\", \"int\", \"int\", \"\"]", NULL, NULL, NS_OPF_COPY, NS_OPP_FWD, NS_OPG_NONE, 0, 508},
    /* with fp32 weights: 200 more read, 200 more written */
    {"permute sparse features, weighted", "fbgemm::permute_sparse_features", "[[3], [3, 4], [50], [50]]",
     "[\"int\", \"int\", \"int\", \"float\"]", NULL, NULL, NS_OPF_COPY, NS_OPP_FWD, NS_OPG_NONE, 0, 908},
    /* 5 entries over 3 features (repeats): P x B = 20 lengths written, and the 70 indices
     * permuted_lengths_sum says: read 5*4 + 12*4 + 50*4 = 268, write 80 + 280 */
    {"permute 2D, features repeated", "fbgemm::permute_2D_sparse_data", "[[5], [3, 4], [50], [], []]",
     "[\"int\", \"int\", \"int\", \"\", \"Scalar\"]", "[\"\", \"\", \"\", \"\", \"70\"]", NULL, NS_OPF_COPY,
     NS_OPP_FWD, NS_OPG_NONE, 0, 628},
    {"permute 2D, repeated, sum unrecorded", "fbgemm::permute_2D_sparse_data", "[[5], [3, 4], [50], [], []]",
     "[\"int\", \"int\", \"int\", \"\", \"Scalar\"]", NULL, NULL, NS_OPF_COPY, NS_OPP_FWD, NS_OPG_INCOMPLETE,
     0, 0},
    /* pooled embeddings [2048, 16] fp32 read and written (131 072 each), four int64 offset lists (10 * 8) */
    {"permute pooled embeddings", "fbgemm::permute_pooled_embs_auto_grad", "[[2048, 16], [3], [2], [3], [2]]",
     "[\"float\", \"long\", \"long\", \"long\", \"long\"]", NULL, NULL, NS_OPF_COPY, NS_OPP_FWD, NS_OPG_NONE,
     0, 262224},
    /* complete cumsum: 100 int32 read, 101 written (counted as 100, like cumsum: the input's size) */
    {"complete cumsum", "fbgemm::asynchronous_complete_cumsum", "[[100]]", "[\"int\"]", NULL, NULL,
     NS_OPF_REDUCTION, NS_OPP_FWD, NS_OPG_NONE, 0, 800},
    /* bounds check: reads rows_per_table, indices, offsets and the warning counter: (2 + 100 + 9 + 1) * 8 */
    {"bounds check", "fbgemm::bounds_check_indices", "[[2], [100], [9], [], [1], [], [], []]",
     "[\"long\", \"long\", \"long\", \"Scalar\", \"long\", \"\", \"\", \"Scalar\"]", NULL, NULL,
     NS_OPF_EMBEDDING, NS_OPP_FWD, NS_OPG_NONE, 0, 896},
    /* the table-batched lookups: the forward is bounded (the TBE test below); the backward's node records
     * only the output gradient, and a bag without lookups reads none of it: nothing bounds it */
    {"TBE forward, too few arguments", "fbgemm::split_embedding_codegen_lookup_sgd_function",
     "[[0], [1000], [9], [10]]", "[\"float\", \"c10::Half\", \"long\", \"int\"]", NULL, NULL,
     NS_OPF_EMBEDDING, NS_OPP_FWD, NS_OPG_INCOMPLETE, 0, 0},
    {"TBE backward", "torch::autograd::CppNode<SplitLookupFunction_rowwise_adagrad_Op>", "[[262144, 160]]",
     "[\"float\"]", NULL, NULL, NS_OPF_EMBEDDING, NS_OPP_BWD, NS_OPG_INCOMPLETE, 0, 0},

    /* ---- what is not placed ---- */
    {"unknown op", "aten::nll_loss_forward", "[[32, 1000], [32]]", "[\"float\", \"long\"]", NULL, NULL,
     NS_OPF_NONE, NS_OPP_FWD, NS_OPG_UNKNOWN_OP, 0, 0},
    {"no shapes", "aten::mm", NULL, NULL, NULL, NULL, NS_OPF_GEMM, NS_OPP_FWD, NS_OPG_NO_SHAPES, 0, 0},
    {"no types", "aten::add", "[[4], [4]]", NULL, NULL, NULL, NS_OPF_ELEMENTWISE, NS_OPP_FWD, NS_OPG_NO_DTYPE,
     0, 0},
    {"malformed dims", "aten::mm", "[[64, 128], [128", "[\"float\", \"float\"]", NULL, NULL, NS_OPF_GEMM,
     NS_OPP_FWD, NS_OPG_BAD_SHAPES, 0, 0},
    {"negative dim", "aten::mm", "[[64, -1], [128, 2]]", "[\"float\", \"float\"]", NULL, NULL, NS_OPF_GEMM,
     NS_OPP_FWD, NS_OPG_BAD_SHAPES, 0, 0},
};

static ns_op_record record(const char *name, const char *dims, const char *types, const char *concrete,
                           const char *grad)
{
	ns_op_record r;

	memset(&r, 0, sizeof(r));
	r.name = name;
	r.name_len = strlen(name);
	r.dims = dims;
	r.dims_len = dims != NULL ? strlen(dims) : 0;
	r.types = types;
	r.types_len = types != NULL ? strlen(types) : 0;
	r.concrete = concrete;
	r.concrete_len = concrete != NULL ? strlen(concrete) : 0;
	r.grad_dims = grad;
	r.grad_dims_len = grad != NULL ? strlen(grad) : 0;
	r.flops = -1;
	return r;
}

START_TEST(each_family_counts_its_work_as_derived_by_hand)
{
	const model_row *want = &rows[_i];
	ns_op_record op = record(want->name, want->dims, want->types, want->concrete, want->grad);
	ns_op_work w;

	ns_op_model(&op, NULL, &w);
	ck_assert_msg(w.gap == want->gap, "%s: gap %d want %d (%s)", want->what, w.gap, want->gap,
	              w.why != NULL ? w.why : "");
	if (want->gap != NS_OPG_UNKNOWN_OP) {
		ck_assert_msg(w.family == want->family, "%s: family %s", want->what,
		              ns_op_family_name(w.family));
		ck_assert_msg(w.pass == want->pass, "%s: pass %s", want->what, ns_op_pass_name(w.pass));
	}
	if (want->gap != NS_OPG_NONE)
		return;
	ck_assert_msg(NEAR(w.flops, want->flops), "%s: flops %.17g want %.17g", want->what, w.flops,
	              want->flops);
	ck_assert_msg(NEAR(w.bytes, want->bytes), "%s: bytes %.17g want %.17g", want->what, w.bytes,
	              want->bytes);
	/* the rows named "(bound)" are lower bounds, the others exact */
	ck_assert_msg(w.lower_bound == (strstr(want->what, "(bound)") != NULL), "%s: lower bound %d",
	              want->what, w.lower_bound);
}
END_TEST

START_TEST(cudnn_backward_input_takes_the_input_size_from_its_caller)
{
	/* dgrad of a 1x1 conv 512 -> 2048 on 7x7: 2*32*7*7*2048*512 = 3 288 334 336;
	 * dY (32*2048*49), W (2048*512) read and dX (32*512*49) written: 5 062 656 * 4 = 20 250 624 */
	ns_op_record op = record("aten::cudnn_convolution_backward_input",
	                         "[[], [32, 2048, 7, 7], [2048, 512, 1, 1], [], [], [], [], [], [], []]",
	                         "[\"GenericList\", \"float\", \"float\", \"GenericList\", \"GenericList\", "
	                         "\"GenericList\", \"Int\", \"Bool\", \"Bool\", \"Bool\"]",
	                         NULL, NULL);
	ns_op_record outer =
	    record("aten::cudnn_convolution_backward",
	           "[[32, 512, 7, 7], [32, 2048, 7, 7], [2048, 512, 1, 1], [], [], [], [], [], [], "
	           "[], []]",
	           NULL, NULL, NULL);
	ns_op_work w;

	ns_op_model(&op, &outer, &w);
	ck_assert_msg(w.gap == NS_OPG_NONE, "%s", w.why != NULL ? w.why : "");
	ck_assert_int_eq(w.pass, NS_OPP_BWD_INPUT);
	ck_assert_msg(NEAR(w.flops, 3288334336.0), "flops %.17g", w.flops);
	ck_assert_msg(NEAR(w.bytes, 20250624.0), "bytes %.17g", w.bytes);
}
END_TEST

/* Variable lengths: exact when max_seqlen times the sequences is every token, else the fewest FLOPs the
 * totals allow (equal lengths, 1024 here), said on the row. */
START_TEST(varlen_lengths_are_known_only_when_the_longest_fills_every_sequence)
{
	static const char *const concrete[] = {
	    "[\"\", \"\", \"\", \"\", \"\", \"1024\", \"1024\", \"0.\", \"0.125\", \"True\", \"-1\", \"-1\", "
	    "\"0.\", \"\", "
	    "\"False\"]",
	    "[\"\", \"\", \"\", \"\", \"\", \"2048\", \"2048\", \"0.\", \"0.125\", \"True\", \"-1\", \"-1\", "
	    "\"0.\", \"\", "
	    "\"False\"]",
	};

	for (int i = 0; i < 2; i++) {
		ns_op_record op = record("flash_attn::_flash_attn_varlen_forward",
		                         "[[4096, 16, 64], [4096, 16, 64], [4096, 16, 64], [5], [5], [], [], "
		                         "[], [], [], [], [], [], [], []]",
		                         "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"int\", "
		                         "\"int\", \"Scalar\", \"Scalar\", "
		                         "\"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
		                         "\"Scalar\", \"\", \"Scalar\"]",
		                         concrete[i], NULL);
		ns_op_work w;
		ns_op_model(&op, NULL, &w);
		ck_assert_int_eq(w.gap, NS_OPG_NONE);
		ck_assert(NEAR(w.flops, 8598323200.0)); /* 2 * 64 * 1024*1025/2 * 128, as in the table */
		if (i == 0)
			ck_assert_msg(w.why == NULL && !w.lower_bound, "%s", w.why);
		else
			ck_assert(w.lower_bound && w.why != NULL &&
			          strstr(w.why, "equal lengths assumed") != NULL);
	}
}
END_TEST

/* The fused Adam(W) step, bytes per parameter by the lists' type (PyTorch keeps the moments in the
 * parameters' type): 40 parameters ([4, 8] and [8]), fp32. Without amsgrad: params, grads, exp_avg,
 * exp_avg_sq read (4 * 40 * 4 = 640) with the two 0-d state steps (8), params and both moments written (3 *
 * 40 * 4 = 480): 1128 B, 7 x 4 B a parameter. With amsgrad, max_exp_avg_sq is read and written too: 9 x 4 x
 * 40 + 8 = 1448. */
START_TEST(fused_adam_moves_seven_or_nine_elements_a_parameter)
{
	static const struct {
		const char *dims;
		double bytes;
	} cases[] = {
	    {"[[[4, 8], [8]], [[4, 8], [8]], [[4, 8], [8]], [[4, 8], [8]], [], [[], []], [], [], [], [], [], "
	     "[], [], "
	     "[], []]",
	     1128},
	    {"[[[4, 8], [8]], [[4, 8], [8]], [[4, 8], [8]], [[4, 8], [8]], [[4, 8], [8]], [[], []], [], [], "
	     "[], [], [], "
	     "[], [], [], []]",
	     1448},
	};
	const char *types =
	    "[\"TensorList\", \"TensorList\", \"TensorList\", \"TensorList\", \"TensorList\", "
	    "\"TensorList\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
	    "\"Scalar\", \"\", \"\"]";

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ns_op_record op = record("aten::_fused_adamw_", cases[i].dims, types, NULL, NULL);
		ns_op_work w;
		ns_op_model(&op, NULL, &w);
		ck_assert_int_eq(w.gap, NS_OPG_NO_DTYPE); /* a TensorList alone says no type */
		op.has_list_dtype = true;
		op.list_dtype = NS_DTYPE_FP32;
		ns_op_model(&op, NULL, &w);
		ck_assert_int_eq(w.gap, NS_OPG_NONE);
		ck_assert_msg(NEAR(w.bytes, cases[i].bytes), "case %zu: %.17g", i, w.bytes);
	}
}
END_TEST

/* _foreach_copy_(self, src) over [1024, 1024] + [4096] = 1 052 672 elements a list: a copy in one type
 * reads and writes 2 B an element (4 210 688 B in bf16); from an fp32 source into bf16 (the kernel's
 * CopyFunctor<c10::BFloat16, float>) it reads 4 and writes 2 (6 316 032 B). */
START_TEST(a_list_copy_reads_its_second_list_in_the_source_type)
{
	ns_op_record op =
	    record("aten::_foreach_copy_", "[[[1024, 1024], [4096]], [[1024, 1024], [4096]], []]",
	           "[\"TensorList\", \"TensorList\", \"Scalar\"]", NULL, NULL);
	ns_op_work w;

	op.has_list_dtype = true;
	op.list_dtype = NS_DTYPE_BF16;
	ns_op_model(&op, NULL, &w);
	ck_assert_int_eq(w.gap, NS_OPG_NONE);
	ck_assert(NEAR(w.bytes, 4210688.0));
	op.has_list_src_dtype = true;
	op.list_src_dtype = NS_DTYPE_FP32;
	ns_op_model(&op, NULL, &w);
	ck_assert_int_eq(w.gap, NS_OPG_NONE);
	ck_assert_int_eq(w.dtype, NS_DTYPE_BF16);
	ck_assert(NEAR(w.bytes, 6316032.0));
	op.force_dtype = true; /* --dtype sizes both lists */
	op.dtype = NS_DTYPE_FP32;
	ns_op_model(&op, NULL, &w);
	ck_assert(NEAR(w.bytes, 8421376.0));
}
END_TEST

/* fbgemm's table-batched lookup (V1 schema: placeholder, dev/uvm/cache weights, placements, weights offsets,
 * D_offsets, total_D, max_D, hash_size_cumsum, total_hash_size_bits, indices, offsets, pooling_mode,
 * indice_weights, feature_requires_grad, cache locations, then the optimizer's). Two tables, batch 4 (9
 * offsets: 8 bags), 100 int64 indices. Always read: placements 2*4 + weights offsets 2*8 + D_offsets 3*4 +
 * indices 100*8 + offsets 9*8 = 908 bytes. The rest is a lower bound from the widths the record allows. */
#define TBE_DIMS(dev, uvm, cache, iw, loc)                                                                   \
	"[[0], [" dev "], [" uvm "], [" cache "], [2], [2], [3], [], [], [3], [], [100], [9], [], [" iw      \
	"], [], [" loc "], [], [], [], []]"
#define TBE_TYPES(w, cw, iwt)                                                                                \
	"[\"float\", \"" w "\", \"" w "\", \"" cw "\", \"int\", \"long\", \"int\", \"Scalar\", \"Scalar\", " \
	"\"long\", \"Scalar\", \"long\", \"long\", \"Scalar\", \"" iwt "\", \"\", \"int\", \"Scalar\", "     \
	"\"Scalar\", \"Scalar\", \"Scalar\"]"
#define TBE_CONCRETE(total, max, mode)                                                                       \
	"[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"" total "\", \"" max                                   \
	"\", \"\", \"\", \"\", \"\", \"" mode "\", \"\", \"\", \"\", \"\", \"\", \"\", \"\"]"
static const struct {
	const char *what, *name, *dims, *types, *concrete;
	ns_op_gap gap;
	double bytes;
} tbe_rows[] = {
    /* nothing but shapes: each lookup one fp16 element (200), the mode unknown so min(8 bags, 100) output
     * rows of one byte (8): 908 + 208 */
    {"widths unrecorded", "fbgemm::split_embedding_codegen_lookup_sgd_function",
     TBE_DIMS("1000", "0", "0, 0", "", "0"), TBE_TYPES("c10::Half", "c10::Half", ""), NULL, NS_OPG_NONE,
     1116},
    /* total_D 64, max_D 32 over 2 tables: the narrower is at least 64 - 32 = 32 wide; SUM pooling: 100 *
     * 32 * 2 = 6400 read, 8 bags * 32 = 256 written: 908 + 6656 */
    {"widths from total_D and max_D", "fbgemm::split_embedding_codegen_lookup_sgd_function",
     TBE_DIMS("1000", "0", "0, 0", "", "0"), TBE_TYPES("c10::Half", "c10::Half", ""),
     TBE_CONCRETE("64", "32", "0"), NS_OPG_NONE, 7564},
    /* total_D 64, max_D 48: the narrower table is at least 16 wide: 100 * 16 * 2 + 8 * 16 = 3328 */
    {"mixed widths", "fbgemm::split_embedding_codegen_lookup_sgd_function",
     TBE_DIMS("1000", "0", "0, 0", "", "0"), TBE_TYPES("c10::Half", "c10::Half", ""),
     TBE_CONCRETE("64", "48", "0"), NS_OPG_NONE, 4236},
    /* no pooling (mode 2): one width, max_D 16, and an output row a lookup: 100 * 16 * 2 + 100 * 16 */
    {"no pooling", "fbgemm::split_embedding_codegen_lookup_sgd_function",
     TBE_DIMS("1000", "0", "0, 0", "", "0"), TBE_TYPES("c10::Half", "c10::Half", ""),
     TBE_CONCRETE("64", "16", "2"), NS_OPG_NONE, 5708},
    /* weighted, rows in UVM (fp32) and an fp32 cache [10, 32], dev empty: per-lookup weights 100 * 4 and
     * cache locations 100 * 4 read; rows at the narrower of the copies holding rows (4 B): 100 * 32 * 4 +
     * 8 * 32 = 13056; 908 + 800 + 13056 */
    {"weighted, UVM and cache", "fbgemm::split_embedding_codegen_lookup_rowwise_adagrad_function",
     TBE_DIMS("0", "5000", "10, 32", "100", "100"), TBE_TYPES("float", "float", "float"),
     TBE_CONCRETE("64", "32", "1"), NS_OPG_NONE, 14764},
    /* the pt2 lookup passes its tensors otherwise: not read with these positions */
    {"pt2", "fbgemm::split_embedding_codegen_lookup_sgd_function_pt2", TBE_DIMS("1000", "0", "0, 0", "", "0"),
     TBE_TYPES("c10::Half", "c10::Half", ""), NULL, NS_OPG_INCOMPLETE, 0},
    /* D_offsets must be T + 1 long: [2] with 2 placements is not this signature */
    {"D_offsets of the wrong length", "fbgemm::split_embedding_codegen_lookup_sgd_function",
     "[[0], [1000], [0], [0, 0], [2], [2], [2], [], [], [3], [], [100], [9], [], [], [], [0], [], [], [], "
     "[]]",
     TBE_TYPES("c10::Half", "c10::Half", ""), NULL, NS_OPG_INCOMPLETE, 0},
    /* every copy of the weights empty: no row type to count */
    {"no weights", "fbgemm::split_embedding_codegen_lookup_sgd_function", TBE_DIMS("0", "0", "0, 0", "", "0"),
     TBE_TYPES("c10::Half", "c10::Half", ""), NULL, NS_OPG_INCOMPLETE, 0},
};

START_TEST(table_batched_lookups_are_bounded_from_below)
{
	ns_op_record op =
	    record(tbe_rows[_i].name, tbe_rows[_i].dims, tbe_rows[_i].types, tbe_rows[_i].concrete, NULL);
	ns_op_work w;

	ns_op_model(&op, NULL, &w);
	ck_assert_msg(w.gap == tbe_rows[_i].gap, "%s: gap %d (%s)", tbe_rows[_i].what, w.gap,
	              w.why != NULL ? w.why : "");
	ck_assert_int_eq(w.family, NS_OPF_EMBEDDING);
	if (tbe_rows[_i].gap != NS_OPG_NONE)
		return;
	ck_assert_msg(NEAR(w.bytes, tbe_rows[_i].bytes), "%s: bytes %.17g want %.17g", tbe_rows[_i].what,
	              w.bytes, tbe_rows[_i].bytes);
	ck_assert_msg(w.lower_bound && w.why != NULL && strstr(w.why, "lower bound") != NULL, "%s",
	              tbe_rows[_i].what);
	ck_assert(w.flops == 0.0);
}
END_TEST

/* The lookup's autograd node (CppNode<SplitLookupFunction_*_Op>) records its output gradient, which has the
 * output's shape and type: [B, total_D]. With it the output write is exact, and one table's width is
 * total_D. One table, batch 4 (5 offsets: 4 bags), 100 int64 indices; always read: placements 1*4 + weights
 * offsets 1*8 + D_offsets 2*4 + indices 100*8 + offsets 5*8 = 860 bytes. */
#define TBE_ONE_TABLE                                                                                        \
	"[[0], [1000], [0], [0, 0], [1], [1], [2], [], [], [2], [], [100], [5], [], [], [], [0], [], [], "   \
	"[], []]"
static const struct {
	const char *what, *dims, *grad, *grad_types;
	double bytes;
	bool lower_bound;
} tbe_node_rows[] = {
    /* one table 16 wide: 100 lookups * 16 * 2 B = 3200 read, 4 * 16 fp32 = 256 written: 860 + 3456, exact */
    {"one table, its width from the node", TBE_ONE_TABLE, "[[4, 16]]", "[\"float\"]", 4316, false},
    /* the node's type not recorded: the output at a byte an element (64): 860 + 3200 + 64, a lower bound */
    {"one table, the output's type unknown", TBE_ONE_TABLE, "[[4, 16]]", NULL, 4124, true},
    /* two tables (batch 4, 8 bags): the output 4 * 96 fp32 = 1536 exact, each lookup at one fp16 element
     * (the narrower table's width unknown): 908 + 200 + 1536, a lower bound */
    {"two tables, widths unknown", TBE_DIMS("1000", "0", "0, 0", "", "0"), "[[4, 96]]", "[\"float\"]", 2644,
     true},
    /* a node that is not this lookup's output (3 x 2 tables is not 8 bags): ignored, as without a node
     * (the "widths unrecorded" row above: 1116) */
    {"a node of another shape", TBE_DIMS("1000", "0", "0, 0", "", "0"), "[[3, 96]]", "[\"float\"]", 1116,
     true},
};

START_TEST(table_batched_lookup_output_comes_from_its_node)
{
	ns_op_record op =
	    record("fbgemm::split_embedding_codegen_lookup_sgd_function", tbe_node_rows[_i].dims,
	           TBE_TYPES("c10::Half", "c10::Half", ""), NULL, tbe_node_rows[_i].grad);
	ns_op_work w;

	op.grad_types = tbe_node_rows[_i].grad_types;
	op.grad_types_len = op.grad_types != NULL ? strlen(op.grad_types) : 0;
	ns_op_model(&op, NULL, &w);
	ck_assert_msg(w.gap == NS_OPG_NONE, "%s: %s", tbe_node_rows[_i].what, w.why != NULL ? w.why : "");
	ck_assert_msg(NEAR(w.bytes, tbe_node_rows[_i].bytes), "%s: bytes %.17g want %.17g",
	              tbe_node_rows[_i].what, w.bytes, tbe_node_rows[_i].bytes);
	ck_assert_msg(w.lower_bound == tbe_node_rows[_i].lower_bound, "%s", tbe_node_rows[_i].what);
}
END_TEST

START_TEST(the_trace_flops_replace_the_matmul_count)
{
	ns_op_record op = record("aten::mm", "[[64, 128], [128, 256]]", "[\"float\", \"float\"]", NULL, NULL);
	ns_op_work w;

	op.flops = 1234.0;
	ns_op_model(&op, NULL, &w);
	ck_assert(NEAR(w.flops, 1234.0));
}
END_TEST

START_TEST(a_forced_dtype_sizes_every_tensor)
{
	/* --dtype fp32 on a list the profiler typed only as TensorList: 2 * 64 elements read and written */
	ns_op_record op =
	    record("aten::cat", "[[[4, 8], [4, 8]], []]", "[\"TensorList\", \"Scalar\"]", NULL, NULL);
	ns_op_work w;

	op.force_dtype = true;
	op.dtype = NS_DTYPE_FP32;
	ns_op_model(&op, NULL, &w);
	ck_assert_int_eq(w.gap, NS_OPG_NONE);
	ck_assert(NEAR(w.bytes, 2 * 64 * 4.0));
}
END_TEST

static const struct {
	double lq, lk;
	bool bottom_right;
	double pairs; /* counted row by row */
} causal_rows[] = {
    {4, 4, false, 10},     /* 1+2+3+4 */
    {4, 6, false, 10},     /* top-left: 1+2+3+4 */
    {4, 6, true, 18},      /* bottom-right: 3+4+5+6 */
    {6, 4, false, 18},     /* 1+2+3+4+4+4 */
    {6, 4, true, 10},      /* 0+0+1+2+3+4 */
    {1, 4096, true, 4096}, /* a decode step sees the whole cache */
    {1, 4096, false, 1},
};

START_TEST(causal_masks_keep_the_pairs_counted_row_by_row)
{
	double got = op_causal_pairs(causal_rows[_i].lq, causal_rows[_i].lk, causal_rows[_i].bottom_right);

	ck_assert_msg(NEAR(got, causal_rows[_i].pairs), "row %d: %g", _i, got);
}
END_TEST

static const struct {
	double lq, lk, left, right;
	double pairs; /* counted row by row, bottom-right: query i sits at key i + lk - lq */
} window_rows[] = {
    {5, 5, 1, 0, 9},     /* a two-key causal window: 1+2+2+2+2 */
    {4, 4, 1, 1, 10},    /* a key either side: 2+3+3+2 */
    {4, 4, -1, 1, 13},   /* right-bounded only: keys 0..i+1: 2+3+4+4 */
    {4, 6, -1, 0, 18},   /* causal, bottom-right: 3+4+5+6 */
    {6, 4, -1, 0, 10},   /* 0+0+1+2+3+4 */
    {2, 8, 2, 0, 6},     /* two queries at keys 6 and 7, three keys each: 4..6, 5..7 */
    {3, 3, 0, 0, 3},     /* the diagonal alone */
    {3, 3, -1, -1, 9},   /* no window */
    {3, 3, 100, 100, 9}, /* a window wider than the matrix */
};

START_TEST(sliding_windows_keep_the_pairs_counted_row_by_row)
{
	double got = op_window_pairs(window_rows[_i].lq, window_rows[_i].lk, window_rows[_i].left,
	                             window_rows[_i].right);

	ck_assert_msg(NEAR(got, window_rows[_i].pairs), "row %d: %g", _i, got);
}
END_TEST

START_TEST(family_lookup_knows_inplace_spellings_and_nothing_else)
{
	ck_assert_int_eq(ns_op_family_of("aten::relu_", 11), NS_OPF_ELEMENTWISE);
	ck_assert_int_eq(ns_op_family_of("aten::_foreach_mul_", 19), NS_OPF_OPTIMIZER);
	ck_assert_int_eq(ns_op_family_of("aten::cudnn_convolution", 23), NS_OPF_CONV);
	ck_assert_int_eq(ns_op_family_of("aten::mm_", 9), NS_OPF_NONE); /* not element-wise */
	ck_assert_int_eq(ns_op_family_of("aten::m", 7), NS_OPF_NONE);
	ck_assert_int_eq(ns_op_family_of("", 0), NS_OPF_NONE);
	/* fbgemm's lookups are named for the optimizer fused into them: known by prefix, not the prefix alone
	 */
	ck_assert_int_eq(ns_op_family_of("fbgemm::split_embedding_codegen_lookup_adam_function", 52),
	                 NS_OPF_EMBEDDING);
	ck_assert_int_eq(ns_op_family_of("fbgemm::split_embedding_codegen_lookup_", 39), NS_OPF_NONE);
	ck_assert(ns_op_node_wanted("CudnnConvolutionBackward0", 25));
	ck_assert(ns_op_node_wanted("MaxPool2DWithIndicesBackward0", 29));
	ck_assert(!ns_op_node_wanted("AddmmBackward0", 14));
	ck_assert(ns_op_node_wanted("torch::autograd::CppNode<SplitLookupFunction_sgd_Op>", 52));
	ck_assert(ns_op_node_by_thread("fbgemm::split_embedding_codegen_lookup_sgd_function", 51));
	ck_assert(!ns_op_node_by_thread("aten::mm", 8));
	ck_assert(!ns_op_node_wanted("aten::convolution_backward", 26));
}
END_TEST

/* The table is searched by bisection: it must stay sorted by name in byte order, each name once. */
START_TEST(the_op_table_is_sorted_for_its_binary_search)
{
	const char *prev = NULL, *name;
	size_t i;

	for (i = 0; (name = op_table_name(i)) != NULL; i++) {
		if (prev != NULL)
			ck_assert_msg(strcmp(prev, name) < 0, "%s before %s", prev, name);
		ck_assert_int_eq(ns_op_family_of(name, strlen(name)) != NS_OPF_NONE, 1);
		prev = name;
	}
	ck_assert_uint_gt(i, 100);
}
END_TEST

/* A GEMM counts as memory-bound on every device when its FLOPs over its bytes are at most the bound of its
 * dtype (fp32 8, 16-bit 32). The counts by hand: [1,4096]x[4096,4096] bf16: 2*4096^2 = 33554432 FLOPs over
 * 2*(4096 + 4096^2 + 4096) = 33570816 bytes; [8,1024]x[1024,1024] fp32: 16777216 over 4*(8192 + 1048576 +
 * 8192) = 4259840; [64,4096]x[4096,4096] bf16: 64*4096/4224 = 62.1 > 32; fp64 keeps no bound. */
static const struct {
	const char *name, *dims, *types;
	bool memory;
	double intensity;
} gemm_bound_rows[] = {
    {"aten::mm", "[[1, 4096], [4096, 4096]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]", true,
     33554432.0 / 33570816.0},
    {"aten::mm", "[[8, 1024], [1024, 1024]]", "[\"float\", \"float\"]", true, 16777216.0 / 4259840.0},
    {"aten::mm", "[[64, 4096], [4096, 4096]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]", false, 0.0},
    {"aten::mm", "[[1, 4096], [4096, 4096]]", "[\"double\", \"double\"]", false, 0.0},
    {"aten::mm", "[[1, 4096], [4096, 4096]]", NULL, false, 0.0},
    {"aten::add", "[[1, 4096], [1, 4096]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]", false, 0.0},
};

START_TEST(a_gemm_of_few_rows_is_memory_bound_by_its_shapes)
{
	ns_op_record op = {0};
	double intensity = -1.0;
	bool memory;

	op.name = gemm_bound_rows[_i].name;
	op.name_len = strlen(op.name);
	op.dims = gemm_bound_rows[_i].dims;
	op.dims_len = strlen(op.dims);
	op.types = gemm_bound_rows[_i].types;
	op.types_len = op.types != NULL ? strlen(op.types) : 0;
	op.flops = -1.0;
	memory = ns_op_gemm_memory_bound(&op, &intensity);
	ck_assert_msg(memory == gemm_bound_rows[_i].memory, "row %d", _i);
	if (memory)
		ck_assert_msg(NEAR(intensity, gemm_bound_rows[_i].intensity), "row %d: %.17g", _i, intensity);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("op_models");
	TCase *count = tcase_create("count"), *lookup = tcase_create("lookup");

	tcase_add_loop_test(count, each_family_counts_its_work_as_derived_by_hand, 0,
	                    (int)(sizeof(rows) / sizeof(rows[0])));
	tcase_add_test(count, cudnn_backward_input_takes_the_input_size_from_its_caller);
	tcase_add_test(count, varlen_lengths_are_known_only_when_the_longest_fills_every_sequence);
	tcase_add_test(count, fused_adam_moves_seven_or_nine_elements_a_parameter);
	tcase_add_test(count, a_list_copy_reads_its_second_list_in_the_source_type);
	tcase_add_loop_test(count, table_batched_lookups_are_bounded_from_below, 0,
	                    (int)(sizeof(tbe_rows) / sizeof(tbe_rows[0])));
	tcase_add_loop_test(count, table_batched_lookup_output_comes_from_its_node, 0,
	                    (int)(sizeof(tbe_node_rows) / sizeof(tbe_node_rows[0])));
	tcase_add_test(count, the_trace_flops_replace_the_matmul_count);
	tcase_add_test(count, a_forced_dtype_sizes_every_tensor);
	tcase_add_loop_test(count, a_gemm_of_few_rows_is_memory_bound_by_its_shapes, 0,
	                    (int)(sizeof(gemm_bound_rows) / sizeof(gemm_bound_rows[0])));
	tcase_add_loop_test(count, causal_masks_keep_the_pairs_counted_row_by_row, 0,
	                    (int)(sizeof(causal_rows) / sizeof(causal_rows[0])));
	tcase_add_loop_test(count, sliding_windows_keep_the_pairs_counted_row_by_row, 0,
	                    (int)(sizeof(window_rows) / sizeof(window_rows[0])));
	tcase_add_test(lookup, family_lookup_knows_inplace_spellings_and_nothing_else);
	tcase_add_test(lookup, the_op_table_is_sorted_for_its_binary_search);
	suite_add_tcase(s, count);
	suite_add_tcase(s, lookup);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed == 0 ? 0 : 1;
}
