/* The memory budget of a transformer run (docs/budget.md): weights, KV cache and activations for inference;
 * weights, gradients, optimizer state and the activations kept for the backward for training. Each term in
 * bytes, the total against the device's memory, the term that dominates, and the largest batch and longest
 * context that fit. Pure functions over numbers: nothing here reads files or prints. */
#ifndef NEXTSTEP_BUDGET_H
#define NEXTSTEP_BUDGET_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/budget.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>

#include "nextstep/api.h"
#include "nextstep/devices.h"
#include "nextstep/error.h"
#include "nextstep/transformer.h"

NS_BEGIN_DECLS

typedef enum {
	NS_OPTIMIZER_ADAMW,
	NS_OPTIMIZER_SGD,
	NS_OPTIMIZER_ADAFACTOR,
	NS_OPTIMIZER_COUNT
} ns_optimizer;

/* "adamw", "sgd", "adafactor"; NULL out of range. */
NS_STATIC_API const char *ns_optimizer_name(ns_optimizer o);
/* Exact lower-case names, also "adam"; false when unknown. */
NS_STATIC_API bool ns_optimizer_from_name(const char *name, ns_optimizer *out);

typedef enum {
	NS_BUDGET_WEIGHTS,
	NS_BUDGET_KV_CACHE,
	NS_BUDGET_ACTIVATIONS,
	NS_BUDGET_GRADIENTS,
	NS_BUDGET_OPTIMIZER,
	NS_BUDGET_COUNT
} ns_budget_term;

/* "weights", "kv_cache", "activations", "gradients", "optimizer" (the JSON keys, without _bytes) and
 * "weights", "KV cache", ... (words). NULL out of range. */
NS_STATIC_API const char *ns_budget_term_key(ns_budget_term t);
NS_STATIC_API const char *ns_budget_term_words(ns_budget_term t);

/* What the run is. The architecture may be whole (layers, hidden, heads, vocab at least: every term can be
 * counted), partial (layers, kv_heads and head_dim with `params`: weights and the KV cache), or absent (only
 * `params`: weights, and for training gradients and optimizer state). */
typedef struct {
	ns_transformer_arch arch;
	double params;     /* parameter count; 0: counted from a whole architecture */
	ns_dtype dtype;    /* weights (and activations) */
	ns_dtype kv_dtype; /* the KV cache */
	double
	    context;  /* tokens per sequence: in the KV cache (inference) or the sequence length (training) */
	double batch; /* sequences, >= 1 */
	bool train;   /* training: gradients, optimizer state, activations kept for the backward; no cache */
	bool decode;  /* inference: the activations of one decode step, not of the whole prefill */
	ns_optimizer optimizer;
	ns_dtype grad_dtype;  /* gradients */
	ns_dtype state_dtype; /* optimizer state */
	bool master_weights;  /* an fp32 copy of the weights beside lower-precision ones (mixed precision) */
	bool checkpointing; /* full activation checkpointing: each layer's input kept, the rest recomputed */
	bool eager_attention; /* the attention scores materialised (no FlashAttention): batch*heads*S^2 per
	                         layer */
	bool dropout;         /* dropout masks kept (one byte per element; Korthikanti et al.'s setting) */
	double device_bytes;  /* the device's memory; 0: unknown */
	double ridge;         /* FLOP/B of the device for dtype, for the decode ridge batch; 0: not asked */
} ns_budget_spec;

typedef enum {
	NS_FIT_YES,     /* fits with at least NS_BUDGET_TIGHT_SHARE of the memory left */
	NS_FIT_TIGHT,   /* fits, with less left than that */
	NS_FIT_NO,      /* does not fit */
	NS_FIT_UNKNOWN, /* the terms counted fit, but some need the architecture */
	NS_FIT_COUNT
} ns_budget_fit;

/* Below this share of the device's memory left over, a fit is tight: the CUDA context, the allocator's
 * fragmentation and the framework's workspaces take a few GB the budget does not count. */
#define NS_BUDGET_TIGHT_SHARE 0.10
/* max_context is searched up to this many tokens; above, it is reported as unbounded. */
#define NS_BUDGET_CONTEXT_MAX 1e12

/* "fits", "tight", "does not fit", "unknown" and the quiet/JSON words "fits", "tight", "no_fit", "unknown".
 */
NS_STATIC_API const char *ns_budget_fit_words(ns_budget_fit f);
NS_STATIC_API const char *ns_budget_fit_name(ns_budget_fit f);

typedef struct {
	ns_transformer_arch arch;      /* as counted: a whole architecture's defaults filled */
	double params;                 /* the count the weights are sized with */
	double bytes[NS_BUDGET_COUNT]; /* 0 for a term that does not apply or is not known */
	bool applies[NS_BUDGET_COUNT]; /* KV cache: inference; gradients and optimizer: training */
	bool known[NS_BUDGET_COUNT];   /* false: it applies but needs (more of) the architecture */
	double total;                  /* the known terms */
	double device_bytes;           /* as given; 0 unknown */
	ns_budget_term dominant;       /* the largest known term */
	ns_budget_fit fit;
	double fixed_bytes; /* what does not grow with batch or context: weights, gradients, optimizer */
	double per_sequence_bytes; /* what one more sequence adds at this context; < 0 unknown */
	double max_batch;   /* the largest batch that fits at this context; 0 none; < 0 unknown; INFINITY */
	double max_context; /* the longest context that fits at this batch; 0 none; < 0 unknown; INFINITY */
	double ridge_batch; /* --decode: the smallest batch at the ridge (ns_roofline_decode_step); 0 none/not
	                       asked */
	bool ridge_fits;    /* the ridge batch fits at this context */
} ns_budget;

/* Counts the budget (docs/budget.md has every formula and its source). NS_ERR_VALUE for a batch below 1, a
 * negative context, an architecture ns_transformer_check() refuses (err->param names the setting), or an
 * optimizer whose state needs the matrix shapes (adafactor) without them. */
NS_STATIC_API ns_status ns_budget_compute(const ns_budget_spec *s, ns_budget *out, ns_error *err);

NS_END_DECLS

#endif
