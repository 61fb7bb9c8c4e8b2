/* A decoder-only transformer's resource accounting (docs/transformer.md): its parameter count, and the FLOPs
 * and bytes of one pass over a batch (prefill, decode or a training step), split into attention projections,
 * attention scores/values, MLP, logits and embeddings, and placed on a device's roofline term by term.
 * Pure functions over numbers: nothing here reads files or prints. */
#ifndef NEXTSTEP_TRANSFORMER_H
#define NEXTSTEP_TRANSFORMER_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/transformer.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>

#include "nextstep/api.h"
#include "nextstep/devices.h"
#include "nextstep/error.h"
#include "nextstep/regime.h"

NS_BEGIN_DECLS

/* The MLP block: gated (SwiGLU/GeGLU: gate and up projections, then down; Llama, Mistral, Qwen) or plain
 * (up, activation, down; GPT-2, GPT-3, OPT). */
typedef enum { NS_MLP_GATED, NS_MLP_PLAIN } ns_mlp_kind;

/* The architecture. Whole numbers; 0 in the optional fields means the default ns_transformer_check() fills.
 */
typedef struct {
	double layers, hidden, heads; /* required */
	double kv_heads;              /* grouped-query attention: key/value heads (default: heads) */
	double head_dim;              /* default: hidden / heads */
	double vocab;                 /* required */
	double intermediate;          /* the MLP's inner width (default: 4 * hidden) */
	ns_mlp_kind mlp;
	bool tied_embeddings; /* the output projection is the input embedding (GPT-2) */
	bool biases;          /* linear and LayerNorm biases (GPT-2); false: RMSNorm, no biases (Llama) */
	double positions;     /* learned position embeddings (GPT-2: 1024); 0: rotary or none */
} ns_transformer_arch;

/* ns_error.param of an architecture error: which setting is wrong (the caller names its option). */
typedef enum {
	NS_ARCH_PARAM_NONE,
	NS_ARCH_PARAM_LAYERS,
	NS_ARCH_PARAM_HIDDEN,
	NS_ARCH_PARAM_HEADS,
	NS_ARCH_PARAM_KV_HEADS,
	NS_ARCH_PARAM_HEAD_DIM,
	NS_ARCH_PARAM_VOCAB,
	NS_ARCH_PARAM_INTERMEDIATE,
	NS_ARCH_PARAM_BATCH,
	NS_ARCH_PARAM_SEQ,
	NS_ARCH_PARAM_CONTEXT,
	NS_ARCH_PARAM_COUNT
} ns_arch_param;

/* Fills the defaults and checks the rest: positive whole numbers, kv_heads dividing heads (each key/value
 * head serves heads / kv_heads query heads). NS_ERR_VALUE with err->param naming the setting. */
NS_STATIC_API ns_status ns_transformer_check(ns_transformer_arch *a, ns_error *err);

/* Parameter counts. non_embedding is Kaplan et al.'s N (attention and MLP matrices, plus norms and biases
 * of the layers); total adds the embedding, the position table, the output projection unless tied, and the
 * final norm. */
typedef struct {
	double attention; /* per layer: Q, K, V, O */
	double mlp;       /* per layer */
	double norms;     /* per layer: two norms (and the layer's biases) */
	double embedding; /* vocab * hidden (+ positions * hidden) */
	double output;    /* the output projection: vocab * hidden, 0 when tied */
	double final_norm;
	double non_embedding; /* layers * (attention + mlp + norms) */
	double total;
} ns_transformer_params;

NS_STATIC_API void ns_transformer_param_count(const ns_transformer_arch *a, ns_transformer_params *p);

/* The parts of a pass, in the order reports list them. */
typedef enum {
	NS_TERM_ATTN_PROJ, /* Q, K, V and output projections */
	NS_TERM_ATTN_CORE, /* scores (Q K^T) and values (softmax * V), causal */
	NS_TERM_MLP,
	NS_TERM_LOGITS, /* the output projection to the vocabulary */
	NS_TERM_EMBED,  /* the embedding lookup: bytes, no FLOPs */
	NS_TERM_COUNT
} ns_transformer_term;

/* "attention projections", ...; "attn_proj", ... (the JSON keys). */
NS_STATIC_API const char *ns_transformer_term_words(ns_transformer_term t);
NS_STATIC_API const char *ns_transformer_term_key(ns_transformer_term t);

/* One pass: `seq` new tokens for each of `batch` sequences, each on top of `context` tokens already in its
 * KV cache. A prefill is context 0; a decode step is seq 1. */
typedef struct {
	double batch, seq, context;
	bool train;        /* forward + backward (a training step; the optimizer update is not counted) */
	ns_dtype dtype;    /* weights and activations */
	ns_dtype kv_dtype; /* the KV cache */
} ns_pass_spec;

typedef struct {
	double tokens; /* batch * seq */
	double pairs;  /* query-key pairs per layer and head: batch * (seq * context + seq (seq + 1) / 2) */
	double flops[NS_TERM_COUNT];
	double bytes[NS_TERM_COUNT];
	double total_flops, total_bytes;
	double weight_bytes; /* the weights the pass reads (once per pass; in training, three times) */
	double kv_bytes;     /* the KV cache the pass reads */
} ns_transformer_pass;

/* Counts one pass (docs/transformer.md has the formulas): every matmul with ideal reuse (its two operands
 * read once, its result written once), attention fused (the scores never reach memory), a training step three
 * times the forward (the backward computes the gradients of the inputs and of the weights). Errors:
 * NS_ERR_VALUE for a batch or seq below 1, a negative context, or counts beyond a double. */
NS_STATIC_API ns_status ns_transformer_pass_count(const ns_transformer_arch *a, const ns_pass_spec *s,
                                                  ns_transformer_pass *out, ns_error *err);

/* The pass on a roofline: each term bound by its own intensity (the kernels of a term run one after the
 * other, so a memory-bound term is not paid for by a compute-bound one), time at the roof
 * max(FLOPs / peak, bytes / bandwidth) per term and summed. */
typedef struct {
	double seconds[NS_TERM_COUNT];
	ns_regime bound[NS_TERM_COUNT]; /* NS_REGIME_COMPUTE or NS_REGIME_MEMORY */
	double seconds_total;
	double compute_seconds, memory_seconds; /* the sum over the terms of each bound */
	ns_regime regime;                       /* the bound holding the larger share of the time */
	double intensity, ridge;                /* of the whole pass: total FLOPs / total bytes */
} ns_transformer_roof;

/* peak in FLOP/s, bandwidth in bytes/s; both > 0. */
NS_STATIC_API void ns_transformer_place(const ns_transformer_pass *p, double peak, double bandwidth,
                                        ns_transformer_roof *out);

NS_END_DECLS

#endif
