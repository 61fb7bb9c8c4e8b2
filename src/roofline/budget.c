/* The memory budget (docs/budget.md). Every term is linear in the batch, so the largest batch is one
 * division; the context enters the activations squared when the scores are materialised, so the longest
 * context is searched. */
#define _POSIX_C_SOURCE 200809L
#include "nextstep/budget.h"

#include <math.h>
#include <string.h>

/* What the spec lets us count, resolved once. */
typedef struct {
	const ns_budget_spec *s;
	ns_transformer_arch a; /* defaults filled when whole */
	bool whole;            /* every term can be counted */
	bool kv_shape;         /* layers, kv_heads and head_dim known: the KV cache can be counted */
	double params;
} model;

const char *ns_optimizer_name(ns_optimizer o)
{
	static const char *const names[NS_OPTIMIZER_COUNT] = {"adamw", "sgd", "adafactor"};
	return (unsigned)o < NS_OPTIMIZER_COUNT ? names[o] : NULL;
}

bool ns_optimizer_from_name(const char *name, ns_optimizer *out)
{
	for (int i = 0; i < NS_OPTIMIZER_COUNT; i++)
		if (strcmp(name, ns_optimizer_name((ns_optimizer)i)) == 0) {
			*out = (ns_optimizer)i;
			return true;
		}
	if (strcmp(name, "adam") == 0) { /* the same state: two moments a parameter */
		*out = NS_OPTIMIZER_ADAMW;
		return true;
	}
	return false;
}

const char *ns_budget_term_key(ns_budget_term t)
{
	static const char *const keys[NS_BUDGET_COUNT] = {"weights", "kv_cache", "activations", "gradients",
	                                                  "optimizer"};
	return (unsigned)t < NS_BUDGET_COUNT ? keys[t] : NULL;
}

const char *ns_budget_term_words(ns_budget_term t)
{
	static const char *const words[NS_BUDGET_COUNT] = {"weights", "KV cache", "activations", "gradients",
	                                                   "optimizer state"};
	return (unsigned)t < NS_BUDGET_COUNT ? words[t] : NULL;
}

const char *ns_budget_fit_words(ns_budget_fit f)
{
	static const char *const words[NS_FIT_COUNT] = {"fits", "fits, tight", "does not fit", "may fit"};
	return (unsigned)f < NS_FIT_COUNT ? words[f] : NULL;
}

const char *ns_budget_fit_name(ns_budget_fit f)
{
	static const char *const names[NS_FIT_COUNT] = {"fits", "tight", "no_fit", "unknown"};
	return (unsigned)f < NS_FIT_COUNT ? names[f] : NULL;
}

/* ---- the terms ---- */

static double kv_cache(const model *m, double batch, double context)
{
	const ns_transformer_arch *a = &m->a;
	return 2.0 * a->layers * a->kv_heads * a->head_dim * context * batch * ns_dtype_bytes(m->s->kv_dtype);
}

/* Inference keeps nothing for a backward: the peak is the widest moment of one layer (the residual stream,
 * its normed copy and the block's intermediates), or the logits of the last token of each sequence, in fp32
 * as the sampler reads them. */
static double inference_activations(const model *m, double batch, double context)
{
	const ns_transformer_arch *a = &m->a;
	double size = ns_dtype_bytes(m->s->dtype), tokens = m->s->decode ? batch : batch * context;
	double q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim, d = a->hidden;
	double attention = tokens * (2.0 * d + 2.0 * q + 2.0 * kv);
	double mlp = tokens * (2.0 * d + (a->mlp == NS_MLP_GATED ? 3.0 : 2.0) * a->intermediate);
	double logits = tokens * d * size + batch * a->vocab * 4.0;

	return fmax(fmax(attention, mlp) * size, logits);
}

/* What one layer keeps for its backward (Korthikanti et al. 2022, section 4.1, generalised to grouped-query
 * attention and gated MLPs): the inputs of every matmul and norm, and with eager attention the softmax
 * output; with dropout, a one-byte mask per element and the dropped-out scores. */
static double layer_activations(const model *m, double tokens, double batch, double seq)
{
	const ns_transformer_arch *a = &m->a;
	const ns_budget_spec *s = m->s;
	double as = ns_dtype_bytes(s->dtype), d = a->hidden, q = a->heads * a->head_dim,
	       kv = a->kv_heads * a->head_dim;
	double mask = s->dropout ? tokens * d : 0.0;
	double scores = a->heads * seq * seq * batch;
	double attention = as * tokens * (d + 2.0 * q + 2.0 * kv) + mask +
	                   (s->eager_attention ? scores * (s->dropout ? 2.0 * as + 1.0 : as)
	                                       : 4.0 * a->heads * tokens); /* fp32 log-sum-exp per row */
	double mlp = as * tokens * (d + (a->mlp == NS_MLP_GATED ? 3.0 : 2.0) * a->intermediate) + mask;
	double norms = 2.0 * as * tokens * d;

	return attention + mlp + norms;
}

static double training_activations(const model *m, double batch, double seq)
{
	const ns_transformer_arch *a = &m->a;
	double as = ns_dtype_bytes(m->s->dtype), tokens = batch * seq;
	double layer = layer_activations(m, tokens, batch, seq);
	/* The final norm's and the output projection's inputs, the logits in fp32 for the loss, and with
	 * dropout the embedding's mask. */
	double output = 2.0 * as * tokens * a->hidden + 4.0 * tokens * a->vocab +
	                (m->s->dropout ? tokens * a->hidden : 0.0);

	if (m->s->checkpointing) /* each layer's input, and one layer recomputed at a time in the backward */
		return a->layers * as * tokens * a->hidden + layer + output;
	return a->layers * layer + output;
}

/* Adafactor keeps a row and a column of second-moment statistics per matrix and a full one per vector
 * (Shazeer & Stern 2018), no first moment by default. */
static double factored_state(const model *m)
{
	const ns_transformer_arch *a = &m->a;
	ns_transformer_params p;
	double d = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim,
	       ff = a->intermediate;
	double mlp = a->mlp == NS_MLP_GATED ? 2.0 * (d + ff) + (ff + d) : 2.0 * (d + ff);
	double layer = (d + q) + 2.0 * (d + kv) + (q + d) + mlp;

	ns_transformer_param_count(a, &p);
	layer += p.norms; /* norms and biases are vectors */
	return a->layers * layer + (a->vocab + d) + (a->positions > 0 ? a->positions + d : 0.0) +
	       (a->tied_embeddings ? 0.0 : a->vocab + d) + p.final_norm;
}

static double optimizer_state(const model *m)
{
	const ns_budget_spec *s = m->s;
	double master = s->master_weights ? 4.0 * m->params : 0.0, state = ns_dtype_bytes(s->state_dtype);

	switch (s->optimizer) {
	case NS_OPTIMIZER_ADAMW: /* first and second moments */
		return master + 2.0 * m->params * state;
	case NS_OPTIMIZER_SGD: /* momentum */
		return master + m->params * state;
	case NS_OPTIMIZER_ADAFACTOR:
	case NS_OPTIMIZER_COUNT:
		break;
	}
	return master + factored_state(m) * state;
}

/* The terms at a batch and context; known[] says which could be counted. Returns the known total. */
static double terms_at(const model *m, double batch, double context, double bytes[NS_BUDGET_COUNT],
                       bool known[NS_BUDGET_COUNT], bool applies[NS_BUDGET_COUNT])
{
	const ns_budget_spec *s = m->s;
	double total = 0.0;

	memset(bytes, 0, NS_BUDGET_COUNT * sizeof(*bytes));
	applies[NS_BUDGET_WEIGHTS] = applies[NS_BUDGET_ACTIVATIONS] = true;
	applies[NS_BUDGET_KV_CACHE] = !s->train;
	applies[NS_BUDGET_GRADIENTS] = applies[NS_BUDGET_OPTIMIZER] = s->train;
	known[NS_BUDGET_WEIGHTS] = known[NS_BUDGET_GRADIENTS] = true;
	known[NS_BUDGET_KV_CACHE] = m->kv_shape;
	known[NS_BUDGET_ACTIVATIONS] = m->whole;
	known[NS_BUDGET_OPTIMIZER] = s->optimizer != NS_OPTIMIZER_ADAFACTOR || m->whole;

	bytes[NS_BUDGET_WEIGHTS] = m->params * ns_dtype_bytes(s->dtype);
	if (s->train) {
		bytes[NS_BUDGET_GRADIENTS] = m->params * ns_dtype_bytes(s->grad_dtype);
		if (known[NS_BUDGET_OPTIMIZER])
			bytes[NS_BUDGET_OPTIMIZER] = optimizer_state(m);
		if (m->whole)
			bytes[NS_BUDGET_ACTIVATIONS] = training_activations(m, batch, context);
	} else {
		if (m->kv_shape)
			bytes[NS_BUDGET_KV_CACHE] = kv_cache(m, batch, context);
		if (m->whole)
			bytes[NS_BUDGET_ACTIVATIONS] = inference_activations(m, batch, context);
	}
	for (int t = 0; t < NS_BUDGET_COUNT; t++)
		total += applies[t] && known[t] ? bytes[t] : 0.0;
	return total;
}

static double total_at(const model *m, double batch, double context)
{
	double bytes[NS_BUDGET_COUNT];
	bool known[NS_BUDGET_COUNT], applies[NS_BUDGET_COUNT];
	return terms_at(m, batch, context, bytes, known, applies);
}

/* ---- fitting ---- */

static bool all_known(const ns_budget *b)
{
	for (int t = 0; t < NS_BUDGET_COUNT; t++)
		if (b->applies[t] && !b->known[t])
			return false;
	return true;
}

/* Every term is a fixed part plus a part proportional to the batch. */
static double largest_batch(const model *m, const ns_budget *b, double memory)
{
	double per = b->per_sequence_bytes, n;

	if (b->fixed_bytes + per > memory)
		return 0.0;
	if (per <= 0.0)
		return INFINITY;
	n = floor((memory - b->fixed_bytes) / per);
	if (n >= 0x1p52) /* past the integers a double counts one by one */
		return n;
	while (n > 1.0 && total_at(m, n, m->s->context) > memory) /* rounding at the edge */
		n--;
	while (total_at(m, n + 1.0, m->s->context) <= memory)
		n++;
	return n;
}

static double longest_context(const model *m, double memory)
{
	double lo = 0.0, hi = 1.0;

	if (total_at(m, m->s->batch, 0.0) > memory)
		return 0.0;
	while (total_at(m, m->s->batch, hi) <= memory) {
		lo = hi;
		hi *= 2.0;
		if (hi > NS_BUDGET_CONTEXT_MAX)
			return INFINITY;
	}
	while (hi - lo > 1.0) { /* total(lo) fits, total(hi) does not */
		double mid = floor((lo + hi) / 2.0);
		*(total_at(m, m->s->batch, mid) <= memory ? &lo : &hi) = mid;
	}
	return lo;
}

static void fit(const model *m, ns_budget *b)
{
	double memory = b->device_bytes;
	bool known = all_known(b);

	b->max_batch = b->max_context = -1.0;
	if (!(memory > 0.0)) {
		b->fit = NS_FIT_UNKNOWN;
		return;
	}
	if (b->total > memory)
		b->fit = NS_FIT_NO;
	else if (!known)
		b->fit = NS_FIT_UNKNOWN;
	else
		b->fit = memory - b->total < NS_BUDGET_TIGHT_SHARE * memory ? NS_FIT_TIGHT : NS_FIT_YES;
	if (!known)
		return;
	b->max_batch = largest_batch(m, b, memory);
	b->max_context = longest_context(m, memory);
}

/* ---- the spec ---- */

static ns_status resolve(const ns_budget_spec *s, model *m, ns_error *err)
{
	const ns_transformer_arch *a = &s->arch;

	memset(m, 0, sizeof(*m));
	m->s = s;
	m->a = s->arch;
	m->whole = a->hidden > 0.0 || a->vocab > 0.0;
	if (m->whole) {
		ns_transformer_params p;
		if (ns_transformer_check(&m->a, err) != NS_OK)
			return err->status;
		ns_transformer_param_count(&m->a, &p);
		m->params = s->params > 0.0 ? s->params : p.total;
	} else {
		if (!(s->params > 0.0) || !isfinite(s->params))
			return ns_error_set(err, NS_ERR_VALUE,
			                    "a budget needs the parameter count or the architecture");
		m->params = s->params;
		if (a->head_dim == 0.0 && a->hidden > 0.0 && a->heads > 0.0)
			m->a.head_dim = a->hidden / a->heads;
	}
	m->kv_shape = m->a.layers > 0.0 && m->a.kv_heads > 0.0 && m->a.head_dim > 0.0;
	if (!(s->batch >= 1.0) || s->batch != floor(s->batch) || !isfinite(s->batch)) {
		ns_error_set(err, NS_ERR_VALUE,
		             "the batch must be a whole number of sequences, at least 1, not %g", s->batch);
		return ns_error_set_param(err, NS_ARCH_PARAM_BATCH);
	}
	if (!(s->context >= 0.0) || s->context != floor(s->context) || !isfinite(s->context)) {
		ns_error_set(err, NS_ERR_VALUE, "the context must be a whole number of tokens, not %g",
		             s->context);
		return ns_error_set_param(err, NS_ARCH_PARAM_CONTEXT);
	}
	if (s->train && s->optimizer == NS_OPTIMIZER_ADAFACTOR && !m->whole)
		return ns_error_set(
		    err, NS_ERR_VALUE,
		    "adafactor's factored state is counted per matrix: it needs the architecture, "
		    "not only the parameter count");
	return NS_OK;
}

/* roofline --decode's step with the cache in its own dtype: (2P + a) B FLOPs over W + k B bytes reaches the
 * ridge at B = ridge W / (2P + a - ridge k), a the attention FLOPs and k the cache bytes of one sequence. */
static void ridge_batch(const model *m, ns_budget *b)
{
	const ns_transformer_arch *a = &m->a;
	double heads = a->heads > 0.0 ? a->heads : a->kv_heads, context = m->kv_shape ? m->s->context : 0.0;
	double attn = 4.0 * a->layers * heads * a->head_dim * context;
	double kv = m->kv_shape ? kv_cache(m, 1.0, context) : 0.0;
	double denom = 2.0 * m->params + attn - m->s->ridge * kv;

	if (denom <= 0.0)
		return;
	b->ridge_batch =
	    fmax(1.0, ceil(m->s->ridge * m->params * ns_dtype_bytes(m->s->dtype) / denom * (1.0 - 1e-12)));
	b->ridge_fits = b->max_batch >= b->ridge_batch;
}

ns_status ns_budget_compute(const ns_budget_spec *s, ns_budget *out, ns_error *err)
{
	model m;

	memset(out, 0, sizeof(*out));
	if (resolve(s, &m, err) != NS_OK)
		return err->status;
	out->params = m.params;
	out->arch = m.a;
	out->device_bytes = s->device_bytes;
	out->total = terms_at(&m, s->batch, s->context, out->bytes, out->known, out->applies);
	if (!isfinite(out->total))
		return ns_error_set(err, NS_ERR_VALUE, "the budget is beyond the range of a double");
	out->fixed_bytes =
	    out->bytes[NS_BUDGET_WEIGHTS] + out->bytes[NS_BUDGET_GRADIENTS] + out->bytes[NS_BUDGET_OPTIMIZER];
	out->per_sequence_bytes = all_known(out) ? total_at(&m, 1.0, s->context) - out->fixed_bytes : -1.0;
	out->dominant = NS_BUDGET_WEIGHTS;
	for (int t = 0; t < NS_BUDGET_COUNT; t++)
		if (out->applies[t] && out->known[t] && out->bytes[t] > out->bytes[out->dominant])
			out->dominant = (ns_budget_term)t;
	fit(&m, out);
	if (s->decode && !s->train && s->ridge > 0.0)
		ridge_batch(&m, out);
	return NS_OK;
}
