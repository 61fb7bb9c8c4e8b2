/* A decoder-only transformer counted matmul by matmul (docs/transformer.md). Every matmul is counted as the
 * roofline's --matmul is: 2*M*N*K FLOPs, and M*K + K*N + M*N elements moved (each operand read once, the
 * result written once), with M the tokens of the pass. */
#define _POSIX_C_SOURCE 200809L
#include "nextstep/transformer.h"

#include <math.h>
#include <string.h>

static bool whole_positive(double x)
{
	return isfinite(x) && x >= 1.0 && x == floor(x);
}

/* A usage error (printf-style message) located at setting p. */
#define located_set(err, p, ...)                                                                             \
	(ns_error_set((err), NS_ERR_VALUE, __VA_ARGS__), ns_error_set_param((err), (int)(p)))

ns_status ns_transformer_check(ns_transformer_arch *a, ns_error *err)
{

	if (a->kv_heads == 0.0)
		a->kv_heads = a->heads;
	if (a->intermediate == 0.0)
		a->intermediate = 4.0 * a->hidden;
	if (a->head_dim == 0.0 && a->heads >= 1.0) {
		if (fmod(a->hidden, a->heads) != 0.0)
			return located_set(
			    err, NS_ARCH_PARAM_HEAD_DIM,
			    "the hidden size is not a multiple of the %g heads: give the head size",
			    a->heads);
		a->head_dim = a->hidden / a->heads;
	}
	const struct {
		double v;
		ns_arch_param param;
		const char *what;
	} fields[] = {
	    {a->layers, NS_ARCH_PARAM_LAYERS, "layers"},
	    {a->hidden, NS_ARCH_PARAM_HIDDEN, "hidden size"},
	    {a->heads, NS_ARCH_PARAM_HEADS, "query heads"},
	    {a->kv_heads, NS_ARCH_PARAM_KV_HEADS, "key/value heads"},
	    {a->head_dim, NS_ARCH_PARAM_HEAD_DIM, "head size"},
	    {a->vocab, NS_ARCH_PARAM_VOCAB, "vocabulary"},
	    {a->intermediate, NS_ARCH_PARAM_INTERMEDIATE, "MLP width"},
	};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		double v = fields[i].v;
		if (!whole_positive(v)) {
			ns_error_set(err, NS_ERR_VALUE, "the %s must be a whole number of at least 1, not %g",
			             fields[i].what, v);
			return ns_error_set_param(err, (int)fields[i].param);
		}
	}
	if (a->kv_heads > a->heads)
		return located_set(
		    err, NS_ARCH_PARAM_KV_HEADS,
		    "more key/value heads than the %g query heads: grouped-query attention shares "
		    "each key/value head among several query heads",
		    a->heads);
	if (fmod(a->heads, a->kv_heads) != 0.0)
		return located_set(
		    err, NS_ARCH_PARAM_KV_HEADS,
		    "the %g query heads do not divide into equal groups over the key/value heads", a->heads);
	if (!(a->positions >= 0.0) || !isfinite(a->positions) || a->positions != floor(a->positions))
		return ns_error_set(err, NS_ERR_VALUE, "the position table must be a whole number, not %g",
		                    a->positions);
	return NS_OK;
}

void ns_transformer_param_count(const ns_transformer_arch *a, ns_transformer_params *p)
{
	double d = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim,
	       ff = a->intermediate;
	double mats = a->mlp == NS_MLP_GATED ? 3.0 : 2.0;

	memset(p, 0, sizeof(*p));
	p->attention = d * q + 2.0 * d * kv + q * d;
	p->mlp = mats * d * ff;
	/* Two norms a layer: RMSNorm has a scale; LayerNorm a scale and a bias. With biases, the projections'
	 * biases (Q, K, V, O) and the MLP's (one per output) belong to the layer too. */
	p->norms = a->biases ? 4.0 * d + (q + 2.0 * kv + d) + ((mats - 1.0) * ff + d) : 2.0 * d;
	p->embedding = (a->vocab + a->positions) * d;
	p->output = a->tied_embeddings ? 0.0 : a->vocab * d;
	p->final_norm = a->biases ? 2.0 * d : d;
	p->non_embedding = a->layers * (p->attention + p->mlp + p->norms);
	p->total = p->non_embedding + p->embedding + p->output + p->final_norm;
}

const char *ns_transformer_term_words(ns_transformer_term t)
{
	static const char *const words[NS_TERM_COUNT] = {
	    [NS_TERM_ATTN_PROJ] = "attention projections",
	    [NS_TERM_ATTN_CORE] = "attention scores/values",
	    [NS_TERM_MLP] = "MLP",
	    [NS_TERM_LOGITS] = "logits",
	    [NS_TERM_EMBED] = "embeddings",
	};
	return (unsigned)t < NS_TERM_COUNT ? words[t] : NULL;
}

const char *ns_transformer_term_key(ns_transformer_term t)
{
	static const char *const keys[NS_TERM_COUNT] = {
	    [NS_TERM_ATTN_PROJ] = "attn_proj", [NS_TERM_ATTN_CORE] = "attn_core", [NS_TERM_MLP] = "mlp",
	    [NS_TERM_LOGITS] = "logits",       [NS_TERM_EMBED] = "embed",
	};
	return (unsigned)t < NS_TERM_COUNT ? keys[t] : NULL;
}

/* One matmul of M tokens by a K x N weight: FLOPs and elements moved. */
static void matmul(double m, double k, double n, double *flops, double *elems)
{
	*flops += 2.0 * m * k * n;
	*elems += m * k + k * n + m * n;
}

static ns_status check_pass(const ns_pass_spec *s, ns_error *err)
{
	if (!whole_positive(s->batch))
		return located_set(err, NS_ARCH_PARAM_BATCH,
		                   "the batch must be a whole number of sequences, at least 1, not %g",
		                   s->batch);
	if (!whole_positive(s->seq))
		return located_set(err, NS_ARCH_PARAM_SEQ,
		                   "the tokens per sequence must be at least 1, not %g", s->seq);
	if (!(s->context >= 0.0) || !isfinite(s->context) || s->context != floor(s->context))
		return located_set(err, NS_ARCH_PARAM_CONTEXT,
		                   "the context must be a whole number of tokens, not %g", s->context);
	if ((unsigned)s->dtype >= NS_DTYPE_COUNT || (unsigned)s->kv_dtype >= NS_DTYPE_COUNT)
		return ns_error_set(err, NS_ERR_VALUE, "unknown dtype");
	return NS_OK;
}

ns_status ns_transformer_pass_count(const ns_transformer_arch *a, const ns_pass_spec *s,
                                    ns_transformer_pass *out, ns_error *err)
{
	double size = ns_dtype_bytes(s->dtype), kv_size = ns_dtype_bytes(s->kv_dtype);
	double t, d = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim,
	          ff = a->intermediate;
	double el[NS_TERM_COUNT] = {0}, fl[NS_TERM_COUNT] = {0};
	double scale = s->train ? 3.0 : 1.0;

	memset(out, 0, sizeof(*out));
	if (check_pass(s, err) != NS_OK)
		return err->status;
	t = out->tokens = s->batch * s->seq;
	/* Token i of the pass (1-based) sits at position context + i and attends to that many keys. */
	out->pairs = s->batch * (s->seq * s->context + s->seq * (s->seq + 1.0) / 2.0);

	matmul(t, d, q, &fl[NS_TERM_ATTN_PROJ], &el[NS_TERM_ATTN_PROJ]);  /* Q */
	matmul(t, d, kv, &fl[NS_TERM_ATTN_PROJ], &el[NS_TERM_ATTN_PROJ]); /* K */
	matmul(t, d, kv, &fl[NS_TERM_ATTN_PROJ], &el[NS_TERM_ATTN_PROJ]); /* V */
	matmul(t, q, d, &fl[NS_TERM_ATTN_PROJ], &el[NS_TERM_ATTN_PROJ]);  /* O */
	if (a->mlp == NS_MLP_GATED) {
		matmul(t, d, ff, &fl[NS_TERM_MLP], &el[NS_TERM_MLP]); /* gate */
		matmul(t, d, ff, &fl[NS_TERM_MLP], &el[NS_TERM_MLP]); /* up */
	} else {
		matmul(t, d, ff, &fl[NS_TERM_MLP], &el[NS_TERM_MLP]);
	}
	matmul(t, ff, d, &fl[NS_TERM_MLP], &el[NS_TERM_MLP]); /* down */
	/* Scores Q K^T and values P V: 2 FLOPs per multiply-add, head_dim of them per pair and head, twice.
	 * The fused kernel reads Q and the cached K and V once and writes the output; the scores stay on
	 * chip. */
	fl[NS_TERM_ATTN_CORE] = 4.0 * q * out->pairs;
	out->kv_bytes = a->layers * 2.0 * s->batch * (s->context + s->seq) * kv * kv_size;

	for (int i = NS_TERM_ATTN_PROJ; i <= NS_TERM_MLP; i++) {
		out->flops[i] = a->layers * fl[i];
		out->bytes[i] = a->layers * el[i] * size;
	}
	out->bytes[NS_TERM_ATTN_CORE] = a->layers * 2.0 * t * q * size + out->kv_bytes;
	matmul(t, d, a->vocab, &out->flops[NS_TERM_LOGITS], &el[NS_TERM_LOGITS]);
	out->bytes[NS_TERM_LOGITS] = el[NS_TERM_LOGITS] * size;
	out->bytes[NS_TERM_EMBED] = 2.0 * t * d * size; /* a row gathered per token, written to the stream */
	out->weight_bytes =
	    (a->layers * (d * q + 2.0 * d * kv + q * d + (a->mlp == NS_MLP_GATED ? 3.0 : 2.0) * d * ff) +
	     d * a->vocab) *
	    size;
	for (int i = 0; i < NS_TERM_COUNT; i++) {
		out->flops[i] *= scale;
		out->bytes[i] *= scale;
		out->total_flops += out->flops[i];
		out->total_bytes += out->bytes[i];
	}
	out->weight_bytes *= scale;
	out->kv_bytes *= scale;
	if (!isfinite(out->total_flops) || !isfinite(out->total_bytes))
		return ns_error_set(
		    err, NS_ERR_VALUE,
		    "a pass of batch %g, %g tokens on a context of %g: the FLOP or byte count is "
		    "beyond the range of a double",
		    s->batch, s->seq, s->context);
	return NS_OK;
}

void ns_transformer_place(const ns_transformer_pass *p, double peak, double bandwidth,
                          ns_transformer_roof *out)
{
	memset(out, 0, sizeof(*out));
	out->ridge = peak / bandwidth;
	out->intensity = p->total_bytes > 0.0 ? p->total_flops / p->total_bytes : 0.0;
	for (int i = 0; i < NS_TERM_COUNT; i++) {
		double compute = p->flops[i] / peak, memory = p->bytes[i] / bandwidth;
		out->bound[i] = compute >= memory && p->flops[i] > 0.0 ? NS_REGIME_COMPUTE : NS_REGIME_MEMORY;
		out->seconds[i] = fmax(compute, memory);
		out->seconds_total += out->seconds[i];
		*(out->bound[i] == NS_REGIME_COMPUTE ? &out->compute_seconds : &out->memory_seconds) +=
		    out->seconds[i];
	}
	out->regime = out->compute_seconds >= out->memory_seconds ? NS_REGIME_COMPUTE : NS_REGIME_MEMORY;
}
