/* The memory budget against published figures and hand arithmetic: ZeRO's 16 bytes a parameter for
 * mixed-precision Adam, Korthikanti et al.'s activations per layer, the KV cache of Llama-2-7B (MHA) and
 * Llama-3-8B (GQA), fp8 KV, the largest batch and longest context, the decode ridge batch, and the edges (a
 * batch of 0, a context that does not fit, a parameter count alone). */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "nextstep/budget.h"

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-12 * fmax(1.0, fabs(b)))
#define GB         1e9

/* Architectures as their releases state them (see test_transformer.c for the sources). */
static const ns_transformer_arch llama2_7b = {
    .layers = 32, .hidden = 4096, .heads = 32, .vocab = 32000, .intermediate = 11008, .mlp = NS_MLP_GATED};
static const ns_transformer_arch llama3_8b = {.layers = 32,
                                              .hidden = 4096,
                                              .heads = 32,
                                              .kv_heads = 8,
                                              .vocab = 128256,
                                              .intermediate = 14336,
                                              .mlp = NS_MLP_GATED};

static ns_budget_spec inference(ns_transformer_arch a, double context, double batch)
{
	return (ns_budget_spec){.arch = a,
	                        .dtype = NS_DTYPE_BF16,
	                        .kv_dtype = NS_DTYPE_BF16,
	                        .context = context,
	                        .batch = batch,
	                        .device_bytes = 80 * GB};
}

static ns_budget_spec training(double params)
{
	return (ns_budget_spec){.params = params,
	                        .dtype = NS_DTYPE_BF16,
	                        .kv_dtype = NS_DTYPE_BF16,
	                        .context = 2048,
	                        .batch = 1,
	                        .train = true,
	                        .optimizer = NS_OPTIMIZER_ADAMW,
	                        .grad_dtype = NS_DTYPE_BF16,
	                        .state_dtype = NS_DTYPE_FP32,
	                        .master_weights = true,
	                        .device_bytes = 80 * GB};
}

START_TEST(mixed_precision_adam_is_sixteen_bytes_a_parameter)
{
	/* Rajbhandari et al. 2020 (ZeRO), section 3.1: fp16 weights and gradients (2 + 2 bytes) and the Adam
	 * state in fp32 (a master copy, momentum and variance: 12 bytes): 16 bytes a parameter, 120 GB for
	 * their 7.5B example. Without the architecture the activations are not counted; 120 GB already does
	 * not fit 80 GB. */
	ns_budget_spec s = training(7.5e9);
	ns_budget b;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_OK);
	ck_assert(b.bytes[NS_BUDGET_WEIGHTS] == 15 * GB && b.bytes[NS_BUDGET_GRADIENTS] == 15 * GB);
	ck_assert(b.bytes[NS_BUDGET_OPTIMIZER] == 90 * GB && b.total == 120 * GB);
	ck_assert(b.applies[NS_BUDGET_ACTIVATIONS] && !b.known[NS_BUDGET_ACTIVATIONS]);
	ck_assert(!b.applies[NS_BUDGET_KV_CACHE]);
	ck_assert_int_eq(b.fit, NS_FIT_NO);
	ck_assert_int_eq(b.dominant, NS_BUDGET_OPTIMIZER);
	ck_assert(b.max_batch < 0 && b.max_context < 0); /* unknown without the activations */
	/* SGD with momentum: 4 master + 4 momentum; pure fp32 training has no master copy */
	s.optimizer = NS_OPTIMIZER_SGD;
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_OK);
	ck_assert(b.bytes[NS_BUDGET_OPTIMIZER] == 60 * GB);
	s.dtype = s.grad_dtype = NS_DTYPE_FP32;
	s.master_weights = false;
	s.optimizer = NS_OPTIMIZER_ADAMW;
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_OK);
	ck_assert(b.bytes[NS_BUDGET_WEIGHTS] == 30 * GB && b.bytes[NS_BUDGET_OPTIMIZER] == 60 * GB);
}
END_TEST

/* Korthikanti et al. 2022, equation 1: a GPT layer keeps s*b*h*(34 + 5*a*s/h) bytes for its backward (16-bit
 * activations, dropout masks of one byte, the attention scores materialised). A toy GPT: 2 layers, h = 64,
 * a = 4 heads, vocab 100, s = 32, b = 2 (T = 64 tokens): 34*64*64 + 5*4*32^2*2 = 139,264 + 40,960 = 180,224 a
 * layer. Beside the layers (their section 4.3): the final norm's and the output projection's inputs 2*2*T*h,
 * the fp32 logits 4*T*v, and the embedding's dropout mask T*h: 16,384 + 25,600 + 4,096 = 46,080. */
static ns_budget_spec toy_gpt(void)
{
	ns_budget_spec s = training(0);
	s.arch =
	    (ns_transformer_arch){.layers = 2, .hidden = 64, .heads = 4, .vocab = 100, .mlp = NS_MLP_PLAIN};
	s.context = 32;
	s.batch = 2;
	s.eager_attention = s.dropout = true;
	return s;
}

START_TEST(activations_follow_korthikanti_per_layer)
{
	ns_budget_spec s = toy_gpt();
	ns_budget b;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_OK);
	ck_assert_msg(b.bytes[NS_BUDGET_ACTIVATIONS] == 2 * 180224 + 46080, "%.0f",
	              b.bytes[NS_BUDGET_ACTIVATIONS]);
	/* Full checkpointing keeps each layer's input (2*T*h = 8,192 each) and recomputes one layer at a
	 * time. */
	s.checkpointing = true;
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_OK);
	ck_assert_msg(b.bytes[NS_BUDGET_ACTIVATIONS] == 2 * 8192 + 180224 + 46080, "%.0f",
	              b.bytes[NS_BUDGET_ACTIVATIONS]);
	/* FlashAttention and no dropout (how Llama trains): no scores, no masks, a log-sum-exp of 4 bytes per
	 * head and token: 32*T*h + 4*a*T = 131,072 + 1,024 a layer; the output part loses its mask: 41,984.
	 */
	s.checkpointing = s.eager_attention = s.dropout = false;
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_OK);
	ck_assert_msg(b.bytes[NS_BUDGET_ACTIVATIONS] == 2 * (131072 + 1024) + 41984, "%.0f",
	              b.bytes[NS_BUDGET_ACTIVATIONS]);
}
END_TEST

START_TEST(llama2_inference_budget_by_hand)
{
	/* Llama-2-7B in bf16 at 4096 tokens, one sequence: weights 6,738,415,616 * 2 = 13,476,831,232 B; the
	 * KV cache 2 * 32 layers * 32 heads * 128 * 4096 * 2 B = 2 GiB (512 KiB a token); activations of the
	 * prefill, the MLP's moment of one layer: 4096 * (2*4096 + 3*11008) * 2 B = 337,641,472 (wider than
	 * the attention's 4096 * 6 * 4096 * 2 and the last tokens' logits). One more sequence adds
	 * 2,485,125,120 B, so (80e9 - 13,476,831,232) / that = 26.77: 26 sequences fit in 80 GB. */
	ns_budget_spec s = inference(llama2_7b, 4096, 1);
	ns_budget b;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_OK);
	ck_assert(b.params == 6738415616.0);
	ck_assert(b.bytes[NS_BUDGET_WEIGHTS] == 13476831232.0);
	ck_assert(b.bytes[NS_BUDGET_KV_CACHE] == 2147483648.0);
	ck_assert(b.bytes[NS_BUDGET_ACTIVATIONS] == 337641472.0);
	ck_assert(b.total == 15961956352.0);
	ck_assert_int_eq(b.fit, NS_FIT_YES);
	ck_assert_int_eq(b.dominant, NS_BUDGET_WEIGHTS);
	ck_assert(b.per_sequence_bytes == 2485125120.0);
	ck_assert_msg(b.max_batch == 26, "max batch %g", b.max_batch);
	/* fp8 KV halves the cache */
	s.kv_dtype = NS_DTYPE_FP8;
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_OK);
	ck_assert(b.bytes[NS_BUDGET_KV_CACHE] == 1073741824.0);
}
END_TEST

START_TEST(a_context_that_does_not_fit_says_the_longest_that_does)
{
	/* Llama-2-7B decoding one sequence at a million tokens: 512 KiB a token is 524 GB of cache: does not
	 * fit. The decode step's activations do not grow with the context (one token: the logits, 4096*2 +
	 * 32000*4 = 136,192 B), so the longest context is (80e9 - 13,476,831,232 - 136,192) / 524,288 =
	 * 126,882.6: 126,882 tokens. */
	ns_budget_spec s = inference(llama2_7b, 1000000, 1);
	ns_budget b;
	ns_error err;

	s.decode = true;
	ns_error_clear(&err);
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_OK);
	ck_assert_int_eq(b.fit, NS_FIT_NO);
	ck_assert_int_eq(b.dominant, NS_BUDGET_KV_CACHE);
	ck_assert(b.bytes[NS_BUDGET_ACTIVATIONS] == 136192.0);
	ck_assert_msg(b.max_context == 126882, "max context %g", b.max_context);
	ck_assert(b.max_batch == 0);
}
END_TEST

START_TEST(decode_ridge_batch_fits_or_not_with_gqa_and_fp8_kv)
{
	/* Llama-3-8B (GQA: 128 KiB of cache a token in bf16) at context 256 with a ridge of 300 FLOP/B: a
	 * step of B sequences does (2P + a) B FLOPs on 2P + k B bytes, a = 4*32*32*128*256 = 134,217,728 and
	 * k = 131,072
	 * * 256 = 33,554,432, so it reaches the ridge at B = 300 * 2P / (2P + a - 300 k) = 786.2: 787. One
	 * sequence takes 33,554,432 + 521,216 (the logits of its token, 4096*2 + 128256*4) B, so
	 * (80e9 - 16,060,522,496) / 34,075,648 = 1876.4: 1876 fit, and the ridge batch with them. An fp8
	 * cache halves k: 300 * 2P / (2P + a - 300 k/2) = 431.7: 432. */
	ns_budget_spec s = inference(llama3_8b, 256, 1);
	ns_budget b;
	ns_error err;

	s.decode = true;
	s.ridge = 300;
	ns_error_clear(&err);
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_OK);
	ck_assert(b.bytes[NS_BUDGET_KV_CACHE] == 33554432.0);
	ck_assert_msg(b.ridge_batch == 787, "ridge batch %g", b.ridge_batch);
	ck_assert_msg(b.max_batch == 1876, "max batch %g", b.max_batch);
	ck_assert(b.ridge_fits);
	s.kv_dtype = NS_DTYPE_FP8;
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_OK);
	ck_assert_msg(b.ridge_batch == 432, "ridge batch %g", b.ridge_batch);
	/* on a 24 GB card the weights (16 GB) leave room for (24e9 - 16,060,522,496) / (16,777,216 + 521,216)
	 * = 458.9 sequences: the fp8 ridge batch of 432 fits, the bf16 one of 787 does not */
	s.device_bytes = 24 * GB;
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_OK);
	ck_assert(b.max_batch == 458 && b.ridge_fits);
	s.kv_dtype = NS_DTYPE_BF16;
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_OK);
	ck_assert(b.ridge_batch == 787 && !b.ridge_fits);
}
END_TEST

START_TEST(adafactor_keeps_a_row_and_a_column_per_matrix)
{
	/* A toy: 2 layers, hidden 8, 2 heads of 4 and 1 KV head, MLP 16 gated, vocab 10, untied. Row + column
	 * per matrix: Q 8+8, K and V 8+4 each, O 8+8, gate and up 8+16 each, down 16+8: 128, and the two
	 * norms (8 each) in full: 144 a layer, 288; embedding and output head 10+8 each, the final norm 8:
	 * 332 values in fp32 = 1328 B. Parameters: (192 + 384 + 16) * 2 + 80 + 80 + 8 = 1352; the master copy
	 * 4 B each. */
	ns_budget_spec s = training(0);
	ns_budget b;
	ns_error err;

	s.arch = (ns_transformer_arch){.layers = 2,
	                               .hidden = 8,
	                               .heads = 2,
	                               .kv_heads = 1,
	                               .head_dim = 4,
	                               .vocab = 10,
	                               .intermediate = 16,
	                               .mlp = NS_MLP_GATED};
	s.optimizer = NS_OPTIMIZER_ADAFACTOR;
	ns_error_clear(&err);
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_OK);
	ck_assert(b.params == 1352);
	ck_assert_msg(b.bytes[NS_BUDGET_OPTIMIZER] == 4 * 1352 + 1328, "%.0f", b.bytes[NS_BUDGET_OPTIMIZER]);
	/* without the shapes it cannot be counted */
	s = training(7e9);
	s.optimizer = NS_OPTIMIZER_ADAFACTOR;
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_ERR_VALUE);
}
END_TEST

START_TEST(edges_give_located_errors_or_verdicts)
{
	ns_budget_spec s = inference(llama2_7b, 4096, 0);
	ns_budget b;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_ERR_VALUE); /* a batch of 0 */
	ck_assert_int_eq(err.param, NS_ARCH_PARAM_BATCH);
	s.batch = 1;
	s.arch.kv_heads = 5; /* 32 heads in groups of 5 */
	ns_error_clear(&err);
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_ERR_VALUE);
	ck_assert_int_eq(err.param, NS_ARCH_PARAM_KV_HEADS);
	/* the parameter count and the KV shape alone (roofline --decode's options): weights and cache
	 * counted, activations unknown, so a fit is "may fit" and no maximum is claimed */
	s = inference((ns_transformer_arch){.layers = 32, .kv_heads = 32, .head_dim = 128}, 4096, 1);
	s.params = 6738415616.0;
	ns_error_clear(&err);
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_OK);
	ck_assert(b.bytes[NS_BUDGET_KV_CACHE] == 2147483648.0 && !b.known[NS_BUDGET_ACTIVATIONS]);
	ck_assert_int_eq(b.fit, NS_FIT_UNKNOWN);
	ck_assert(b.max_batch < 0);
	/* weights alone larger than the device: nothing fits, not even one sequence */
	s = inference(llama2_7b, 4096, 1);
	s.device_bytes = 12 * GB;
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_OK);
	ck_assert(b.fit == NS_FIT_NO && b.max_batch == 0 && b.max_context == 0);
	/* within 10% of the device: tight (15.96 GB of 17 GB) */
	s.device_bytes = 17 * GB;
	ck_assert_int_eq(ns_budget_compute(&s, &b, &err), NS_OK);
	ck_assert_int_eq(b.fit, NS_FIT_TIGHT);
}
END_TEST

static Suite *budget_suite(void)
{
	Suite *s = suite_create("budget");
	TCase *tc = tcase_create("budget");

	tcase_add_test(tc, mixed_precision_adam_is_sixteen_bytes_a_parameter);
	tcase_add_test(tc, activations_follow_korthikanti_per_layer);
	tcase_add_test(tc, llama2_inference_budget_by_hand);
	tcase_add_test(tc, a_context_that_does_not_fit_says_the_longest_that_does);
	tcase_add_test(tc, decode_ridge_batch_fits_or_not_with_gqa_and_fp8_kv);
	tcase_add_test(tc, adafactor_keeps_a_row_and_a_column_per_matrix);
	tcase_add_test(tc, edges_give_located_errors_or_verdicts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(budget_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
