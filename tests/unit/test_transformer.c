/* The transformer's counts against published figures and hand-worked models: parameter counts of Llama-2-7B,
 * Llama-3-8B and GPT-2 small as their releases state them, Kaplan et al.'s per-token forward FLOPs, a toy
 * model worked term by term, GQA, and the placement of each term on a roofline. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "nextstep/transformer.h"

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-12 * fmax(1.0, fabs(b)))

/* Llama-2-7B: Touvron et al. 2023, and the released config.json (hidden 4096, intermediate 11008, 32 layers,
 * 32 heads, 32 KV heads, vocab 32000, untied, RMSNorm, SwiGLU). */
static ns_transformer_arch llama2_7b(void)
{
	return (ns_transformer_arch){.layers = 32,
	                             .hidden = 4096,
	                             .heads = 32,
	                             .vocab = 32000,
	                             .intermediate = 11008,
	                             .mlp = NS_MLP_GATED};
}

/* Llama-3-8B: Meta's release config.json (hidden 4096, intermediate 14336, 32 layers, 32 heads, 8 KV heads,
 * vocab 128256, untied). */
static ns_transformer_arch llama3_8b(void)
{
	return (ns_transformer_arch){.layers = 32,
	                             .hidden = 4096,
	                             .heads = 32,
	                             .kv_heads = 8,
	                             .vocab = 128256,
	                             .intermediate = 14336,
	                             .mlp = NS_MLP_GATED};
}

/* GPT-2 small: Radford et al. 2019 and the released config (n_embd 768, n_layer 12, n_head 12, n_positions
 * 1024, vocab 50257, tied embeddings, biases and LayerNorm, MLP 4 x 768). */
static ns_transformer_arch gpt2_small(void)
{
	return (ns_transformer_arch){.layers = 12,
	                             .hidden = 768,
	                             .heads = 12,
	                             .vocab = 50257,
	                             .mlp = NS_MLP_PLAIN,
	                             .tied_embeddings = true,
	                             .biases = true,
	                             .positions = 1024};
}

/* A toy model worked by hand below: 2 layers, hidden 8, 2 query heads of 4 sharing 1 KV head, MLP 16 gated,
 * vocab 10. */
static ns_transformer_arch toy(void)
{
	return (ns_transformer_arch){.layers = 2,
	                             .hidden = 8,
	                             .heads = 2,
	                             .kv_heads = 1,
	                             .head_dim = 4,
	                             .vocab = 10,
	                             .intermediate = 16,
	                             .mlp = NS_MLP_GATED};
}

START_TEST(published_parameter_counts_come_out_exactly)
{
	/* Llama-2-7B: per layer 4*4096^2 + 3*4096*11008 + 2*4096 = 202,383,360; times 32, plus the embedding
	 * and the output head (2 * 32000 * 4096) and the final norm (4096): 6,738,415,616, the count the
	 * release reports. Llama-3-8B: per layer 2*4096^2 + 2*4096*1024 + 3*4096*14336 + 8192 = 218,112,000;
	 * times 32, plus 2 * 128256 * 4096 + 4096: 8,030,261,248. GPT-2 small: 124,439,808 (Hugging Face's
	 * count of the released checkpoint): 12 * (4*768^2 + 8*768^2 + 13*768 biases and norms) + (50257 +
	 * 1024) * 768 + 2*768. */
	static const struct {
		ns_transformer_arch (*arch)(void);
		double total, non_embedding;
	} rows[] = {
	    {llama2_7b, 6738415616.0, 6476267520.0},
	    {llama3_8b, 8030261248.0, 6979584000.0},
	    {gpt2_small, 124439808.0, 85054464.0},
	};
	ns_error err;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ns_transformer_arch a = rows[i].arch();
		ns_transformer_params p;
		ns_error_clear(&err);
		ck_assert_int_eq(ns_transformer_check(&a, &err), NS_OK);
		ns_transformer_param_count(&a, &p);
		ck_assert_msg(p.total == rows[i].total, "row %zu: total %.0f", i, p.total);
		ck_assert_msg(p.non_embedding == rows[i].non_embedding, "row %zu: non-embedding %.0f", i,
		              p.non_embedding);
	}
}
END_TEST

START_TEST(gpt2_forward_flops_per_token_follow_kaplan)
{
	/* Kaplan et al. 2020, table 1: C_forward = 2N + 2 n_layer n_ctx d_attn per token, N = 2 d_model
	 * n_layer (2 d_attn + d_ff) = 84,934,656 for GPT-2 small, and the de-embedding 2 d_model n_vocab
	 * apart. Their attention term takes the causal average as n_ctx / 2 keys; the exact count over a
	 * prefill of S tokens is (S + 1) / 2 keys per token, so the two differ by 2 n_layer d_attn = 18,432
	 * FLOPs per token. */
	ns_transformer_arch a = gpt2_small();
	ns_pass_spec s = {
	    .batch = 1, .seq = 1024, .context = 0, .dtype = NS_DTYPE_BF16, .kv_dtype = NS_DTYPE_BF16};
	ns_transformer_pass p;
	ns_error err;
	double n = 2.0 * 768 * 12 * (2.0 * 768 + 3072), kaplan_attention = 2.0 * 12 * 1024 * 768;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_transformer_check(&a, &err), NS_OK);
	ck_assert_int_eq(ns_transformer_pass_count(&a, &s, &p, &err), NS_OK);
	ck_assert(p.tokens == 1024);
	ck_assert(n == 84934656.0);
	ck_assert_msg(NEAR((p.flops[NS_TERM_ATTN_PROJ] + p.flops[NS_TERM_MLP]) / p.tokens, 2.0 * n),
	              "2N: %.0f", (p.flops[NS_TERM_ATTN_PROJ] + p.flops[NS_TERM_MLP]) / p.tokens);
	ck_assert_msg(NEAR(p.flops[NS_TERM_ATTN_CORE] / p.tokens - kaplan_attention, 2.0 * 12 * 768),
	              "attention per token %.1f", p.flops[NS_TERM_ATTN_CORE] / p.tokens);
	ck_assert(NEAR(p.flops[NS_TERM_LOGITS] / p.tokens, 2.0 * 768 * 50257));
	ck_assert(p.flops[NS_TERM_EMBED] == 0.0);
	/* a training step: three forwards, 6N per token for the matmuls (Kaplan's C = 6N) */
	s.train = true;
	ck_assert_int_eq(ns_transformer_pass_count(&a, &s, &p, &err), NS_OK);
	ck_assert(NEAR((p.flops[NS_TERM_ATTN_PROJ] + p.flops[NS_TERM_MLP]) / p.tokens, 6.0 * n));
}
END_TEST

START_TEST(toy_model_pass_matches_the_hand_count)
{
	/* batch 2, 3 new tokens each on 5 cached: T = 6 tokens; pairs = 2 * (3*5 + 3*4/2) = 42. bf16 (2 B),
	 * KV cache fp8 (1 B). Per layer:
	 *   Q 6x8x8: 768 FLOP, 48+64+48 = 160 elements; K, V 6x8x4: 384, 48+32+24 = 104 each; O 6x8x8: 768,
	 * 160: projections 2304 FLOP, 528 elements -> 2 layers: 4608 FLOP, 528*2*2 = 2112 B. gate, up 6x8x16
	 * and down 6x16x8: 1536 FLOP and 272 elements each -> 2 layers: 9216 FLOP, 3264 B. scores and values
	 * 4 * 8 * 42 = 1344 FLOP -> 2688; bytes Q read and O written 2*6*8*2 = 192 a layer, 384, plus K and V
	 * of 8 tokens for 2 sequences: 2 layers * 2 * 2 * 8 * 4 * 1 B = 256 -> 640 B. logits 6x8x10: 960
	 * FLOP, (48+80+60)*2 = 376 B. Embeddings: 2*6*8*2 = 192 B. Weights read: (2 * (64+64+64+384) + 80) *
	 * 2 = 2464 B. */
	ns_transformer_arch a = toy();
	ns_pass_spec s = {
	    .batch = 2, .seq = 3, .context = 5, .dtype = NS_DTYPE_BF16, .kv_dtype = NS_DTYPE_FP8};
	ns_transformer_pass p;
	ns_error err;
	static const double flops[NS_TERM_COUNT] = {4608, 2688, 9216, 960, 0};
	static const double bytes[NS_TERM_COUNT] = {2112, 640, 3264, 376, 192};

	ns_error_clear(&err);
	ck_assert_int_eq(ns_transformer_check(&a, &err), NS_OK);
	ck_assert_int_eq(ns_transformer_pass_count(&a, &s, &p, &err), NS_OK);
	ck_assert(p.tokens == 6 && p.pairs == 42);
	for (int i = 0; i < NS_TERM_COUNT; i++) {
		ck_assert_msg(p.flops[i] == flops[i], "%s FLOPs %.0f", ns_transformer_term_key(i),
		              p.flops[i]);
		ck_assert_msg(p.bytes[i] == bytes[i], "%s bytes %.0f", ns_transformer_term_key(i),
		              p.bytes[i]);
	}
	ck_assert(p.total_flops == 17472 && p.total_bytes == 6584);
	ck_assert(p.weight_bytes == 2464 && p.kv_bytes == 256);
	s.train = true;
	ck_assert_int_eq(ns_transformer_pass_count(&a, &s, &p, &err), NS_OK);
	ck_assert(p.total_flops == 3 * 17472 && p.total_bytes == 3 * 6584);
}
END_TEST

START_TEST(decode_step_reads_the_weights_and_the_grouped_cache)
{
	/* Llama-3-8B, one token for each of 4 sequences on 1000 cached, bf16: the weights read are the
	 * layers' matrices and the output head, (32 * 218,103,808 + 4096 * 128256) * 2 B; the cache 2 (K and
	 * V) * 32 layers * 8 KV heads * 128 * 1001 tokens * 4 sequences * 2 B. With 32 KV heads (no GQA) the
	 * cache reads are 4x, the attention FLOPs the same: 4 * 4096 * 4 * 1001 per layer. */
	ns_transformer_arch a = llama3_8b(), mha = llama3_8b();
	ns_pass_spec s = {
	    .batch = 4, .seq = 1, .context = 1000, .dtype = NS_DTYPE_BF16, .kv_dtype = NS_DTYPE_BF16};
	ns_transformer_pass p, q;
	ns_error err;

	ns_error_clear(&err);
	mha.kv_heads = 32;
	ck_assert_int_eq(ns_transformer_check(&a, &err), NS_OK);
	ck_assert_int_eq(ns_transformer_check(&mha, &err), NS_OK);
	ck_assert_int_eq(ns_transformer_pass_count(&a, &s, &p, &err), NS_OK);
	ck_assert_int_eq(ns_transformer_pass_count(&mha, &s, &q, &err), NS_OK);
	ck_assert(p.weight_bytes == (32.0 * 218103808.0 + 4096.0 * 128256.0) * 2.0);
	ck_assert(p.kv_bytes == 2.0 * 32 * 8 * 128 * 1001 * 4 * 2);
	ck_assert(q.kv_bytes == 4.0 * p.kv_bytes);
	ck_assert(p.flops[NS_TERM_ATTN_CORE] == 32.0 * 4 * 4096 * 4 * 1001);
	ck_assert(q.flops[NS_TERM_ATTN_CORE] == p.flops[NS_TERM_ATTN_CORE]);
}
END_TEST

START_TEST(each_term_is_placed_on_its_own_roof)
{
	/* The toy prefill above with peak 1000 FLOP/s and 1000 B/s (ridge 1): every matmul term is
	 * compute-bound at FLOPs / 1000 s; the embedding lookup has no FLOPs and takes 192 / 1000 s on the
	 * memory roof. At 100 B/s (ridge 10) every term is memory-bound: bytes / 100 s. */
	ns_transformer_arch a = toy();
	ns_pass_spec s = {
	    .batch = 2, .seq = 3, .context = 5, .dtype = NS_DTYPE_BF16, .kv_dtype = NS_DTYPE_FP8};
	ns_transformer_pass p;
	ns_transformer_roof r;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_transformer_check(&a, &err), NS_OK);
	ck_assert_int_eq(ns_transformer_pass_count(&a, &s, &p, &err), NS_OK);
	ns_transformer_place(&p, 1000, 1000, &r);
	ck_assert(r.bound[NS_TERM_MLP] == NS_REGIME_COMPUTE && r.bound[NS_TERM_EMBED] == NS_REGIME_MEMORY);
	ck_assert(NEAR(r.seconds[NS_TERM_MLP], 9.216) && NEAR(r.seconds[NS_TERM_EMBED], 0.192));
	ck_assert(NEAR(r.compute_seconds, 17.472) && NEAR(r.memory_seconds, 0.192));
	ck_assert(NEAR(r.seconds_total, 17.664) && r.regime == NS_REGIME_COMPUTE);
	ck_assert(NEAR(r.intensity, 17472.0 / 6584.0) && NEAR(r.ridge, 1.0));
	ns_transformer_place(&p, 1000, 100, &r);
	ck_assert(r.regime == NS_REGIME_MEMORY && r.compute_seconds == 0.0);
	ck_assert(NEAR(r.seconds_total, 65.84));
}
END_TEST

START_TEST(bad_architectures_name_the_setting)
{
	static const struct {
		double heads, kv_heads, hidden, head_dim;
		ns_arch_param param;
	} rows[] = {
	    {32, 6, 4096, 0, NS_ARCH_PARAM_KV_HEADS}, /* 32 heads do not split into 6 groups */
	    {8, 16, 4096, 0, NS_ARCH_PARAM_KV_HEADS}, /* more KV heads than query heads */
	    {48, 0, 4096, 0,
	     NS_ARCH_PARAM_HEAD_DIM}, /* 4096 / 48 is not whole: the head size must be given */
	    {32, 8, 4096, 0.5, NS_ARCH_PARAM_HEAD_DIM}, /* not a whole number */
	    {0, 0, 4096, 0, NS_ARCH_PARAM_HEADS},
	};
	ns_error err;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ns_transformer_arch a = llama2_7b();
		a.heads = rows[i].heads;
		a.kv_heads = rows[i].kv_heads;
		a.hidden = rows[i].hidden;
		a.head_dim = rows[i].head_dim;
		ns_error_clear(&err);
		ck_assert_int_eq(ns_transformer_check(&a, &err), NS_ERR_VALUE);
		ck_assert_msg(err.param == (int)rows[i].param, "row %zu: param %d (%s)", i, err.param,
		              err.msg);
	}
}
END_TEST

START_TEST(a_batch_of_zero_or_an_empty_pass_is_refused)
{
	ns_transformer_arch a = toy();
	ns_pass_spec s = {.batch = 0, .seq = 3, .dtype = NS_DTYPE_BF16, .kv_dtype = NS_DTYPE_BF16};
	ns_transformer_pass p;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_transformer_check(&a, &err), NS_OK);
	ck_assert_int_eq(ns_transformer_pass_count(&a, &s, &p, &err), NS_ERR_VALUE);
	ck_assert_int_eq(err.param, NS_ARCH_PARAM_BATCH);
	s.batch = 1;
	s.seq = 0;
	ns_error_clear(&err);
	ck_assert_int_eq(ns_transformer_pass_count(&a, &s, &p, &err), NS_ERR_VALUE);
	ck_assert_int_eq(err.param, NS_ARCH_PARAM_SEQ);
	s.seq = 1;
	s.context = -1;
	ns_error_clear(&err);
	ck_assert_int_eq(ns_transformer_pass_count(&a, &s, &p, &err), NS_ERR_VALUE);
	ck_assert_int_eq(err.param, NS_ARCH_PARAM_CONTEXT);
	s.context = 1e300;
	s.batch = 1e300;
	ns_error_clear(&err);
	ck_assert_int_eq(ns_transformer_pass_count(&a, &s, &p, &err), NS_ERR_VALUE); /* beyond a double */
}
END_TEST

static Suite *transformer_suite(void)
{
	Suite *s = suite_create("transformer");
	TCase *counts = tcase_create("counts");

	tcase_add_test(counts, published_parameter_counts_come_out_exactly);
	tcase_add_test(counts, gpt2_forward_flops_per_token_follow_kaplan);
	tcase_add_test(counts, toy_model_pass_matches_the_hand_count);
	tcase_add_test(counts, decode_step_reads_the_weights_and_the_grouped_cache);
	tcase_add_test(counts, each_term_is_placed_on_its_own_roof);
	tcase_add_test(counts, bad_architectures_name_the_setting);
	tcase_add_test(counts, a_batch_of_zero_or_an_empty_pass_is_refused);
	suite_add_tcase(s, counts);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(transformer_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
