/* Printing a transformer pass on the roofline: the verdict keys and styles are the router's (format.h). */
#include "nextstep/transformer_report.h"

#include <math.h>
#include <string.h>

#include "nextstep/units.h"
#include "util/text.h"

static bool is_decode(const ns_transformer_report *r)
{
	return r->pass.seq == 1.0 && r->pass.context > 0.0 && !r->pass.train;
}

const ns_route *ns_transformer_route(const ns_transformer_report *r, const ns_routes *routes)
{
	if (r->roof.regime == NS_REGIME_MEMORY && is_decode(r) &&
	    routes->finding[NS_FINDING_DECODE_MEMORY].fix != NULL)
		return &routes->finding[NS_FINDING_DECODE_MEMORY];
	return &routes->route[r->roof.regime];
}

/* The share of the time at the roof spent in terms of the verdict's bound. */
static double bound_share(const ns_transformer_roof *roof)
{
	double part = roof->regime == NS_REGIME_COMPUTE ? roof->compute_seconds : roof->memory_seconds;
	return roof->seconds_total > 0.0 ? part / roof->seconds_total : 0.0;
}

static const char *count_text(double v, char *buf, size_t size)
{
	if (v >= 1e9)
		snprintf(buf, size, "%.3gB", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, size, "%.3gM", v / 1e6);
	else
		snprintf(buf, size, "%.0f", v);
	return buf;
}

/* ---- text ---- */

static void print_line(FILE *out, const ns_transformer_report *r, const ns_routes *routes,
                       const ns_format_options *o)
{
	const ns_route *route = ns_transformer_route(r, routes);
	char ai[32], ridge[32];

	if (r->label != NULL && r->label[0] != '\0') {
		ns_fput_text(out, r->label);
		fputs(": ", out);
	}
	fprintf(out, "%s%s%s (", ns_format_style(o, NS_FORMAT_STYLE_VERDICT),
	        ns_regime_bound_word(r->roof.regime), ns_format_style(o, NS_FORMAT_STYLE_RESET));
	ns_format_percent(out, bound_share(&r->roof));
	fprintf(out, " of the time at the roof in %s terms; AI %s FLOP/B, ridge %s FLOP/B) -> %s (%s)\n",
	        ns_regime_bound_word(r->roof.regime),
	        ns_units_format_plain(r->roof.intensity, ai, sizeof(ai)),
	        ns_units_format_plain(r->roof.ridge, ridge, sizeof(ridge)), route->fix, route->module);
}

static void print_model(FILE *out, const ns_transformer_report *r)
{
	const ns_transformer_arch *a = &r->arch;
	const ns_pass_spec *s = &r->pass;
	char p[32];

	fprintf(out, "model: %.0f layers, hidden %.0f, %.0f heads", a->layers, a->hidden, a->heads);
	if (a->kv_heads != a->heads)
		fprintf(out, " (%.0f KV)", a->kv_heads);
	fprintf(out, " x %.0f, MLP %.0f %s, vocab %.0f: %s parameters\n", a->head_dim, a->intermediate,
	        a->mlp == NS_MLP_GATED ? "gated" : "plain", a->vocab,
	        count_text(r->params.total, p, sizeof(p)));
	if (s->train)
		fprintf(out, "pass: training step (forward + backward), %.0f x %.0f tokens", s->batch,
		        s->seq);
	else if (is_decode(r))
		fprintf(out, "pass: decode, %.0f sequence%s x 1 token on %.0f cached", s->batch,
		        s->batch == 1 ? "" : "s", s->context);
	else
		fprintf(out, "pass: prefill, %.0f x %.0f tokens%s", s->batch, s->seq,
		        s->context > 0.0 ? " on a cache" : "");
	if (!s->train && !is_decode(r) && s->context > 0.0)
		fprintf(out, " of %.0f", s->context);
	fprintf(out, ", %s, KV cache %s\n", ns_dtype_name(s->dtype), ns_dtype_name(s->kv_dtype));
}

static void print_terms(FILE *out, const ns_transformer_report *r)
{
	const ns_transformer_pass *c = &r->count;
	const ns_transformer_roof *roof = &r->roof;
	char f[32], b[32], ai[32], t[32];

	fprintf(out, "  %-24s %12s %10s %8s  %-7s %10s\n", "term", "FLOPs", "bytes", "FLOP/B", "bound",
	        "at roof");
	for (int i = 0; i < NS_TERM_COUNT; i++) {
		double intensity = c->bytes[i] > 0.0 ? c->flops[i] / c->bytes[i] : 0.0;
		fprintf(out, "  %-24s %12s %10s %8s  %-7s %10s\n",
		        ns_transformer_term_words((ns_transformer_term)i),
		        ns_units_format_si(c->flops[i], "FLOP", f, sizeof(f)),
		        ns_units_format_si(c->bytes[i], "B", b, sizeof(b)),
		        ns_units_format_plain(intensity, ai, sizeof(ai)), ns_regime_name(roof->bound[i]),
		        ns_units_format_time(roof->seconds[i], t, sizeof(t)));
	}
	fprintf(out, "  %-24s %12s %10s %8s  %-7s %10s\n", "step",
	        ns_units_format_si(c->total_flops, "FLOP", f, sizeof(f)),
	        ns_units_format_si(c->total_bytes, "B", b, sizeof(b)),
	        ns_units_format_plain(roof->intensity, ai, sizeof(ai)), ns_regime_name(roof->regime),
	        ns_units_format_time(roof->seconds_total, t, sizeof(t)));
}

static void print_per_token(FILE *out, const ns_transformer_report *r)
{
	const ns_transformer_pass *c = &r->count;
	char f[32], b[32], rate[32];

	fprintf(out, "per token: %s, %s; at the roof %s tokens/s on %s %s\n",
	        ns_units_format_si(c->total_flops / c->tokens, "FLOP", f, sizeof(f)),
	        ns_units_format_si(c->total_bytes / c->tokens, "B", b, sizeof(b)),
	        ns_units_format_plain(c->tokens / r->roof.seconds_total, rate, sizeof(rate)), r->dev->name,
	        ns_dtype_name(r->pass.dtype));
}

/* A measured time against the roofs: how close the pass came, and its model FLOPs utilisation. */
static void print_measured(FILE *out, const ns_transformer_report *r)
{
	char m[32], t[32];

	if (!(r->seconds > 0.0))
		return;
	fprintf(out, "measured %s: the roofs allow %s (", ns_units_format_time(r->seconds, m, sizeof(m)),
	        ns_units_format_time(r->roof.seconds_total, t, sizeof(t)));
	ns_format_percent(out, r->roof.seconds_total / r->seconds);
	fputs(" of the roof); MFU ", out);
	ns_format_percent(out, r->count.total_flops / (r->seconds * r->dev->peak[r->pass.dtype]));
	fputs(" (FLOPs / time / peak)\n", out);
}

static void print_formulas(FILE *out, const ns_transformer_report *r, const ns_routes *routes)
{
	const ns_route *route = ns_transformer_route(r, routes);

	fputs(
	    "formulas (docs/transformer.md), T = batch x seq tokens, q = heads x head_dim, kv = kv_heads x "
	    "head_dim,\n"
	    "P = batch x (seq x context + seq (seq + 1) / 2) causal query-key pairs:\n"
	    "  projections      2 T hidden (2 q + 2 kv) FLOPs a layer\n"
	    "  scores/values    4 q P FLOPs a layer; bytes: Q read, output written, K and V of context + seq "
	    "tokens read\n"
	    "  MLP              2 T hidden intermediate x 3 (gated) or 2 (plain) FLOPs a layer\n"
	    "  logits           2 T hidden vocab FLOPs\n"
	    "  embeddings       2 T hidden x size bytes, no FLOPs\n"
	    "  matmul bytes     (M K + K N + M N) x size: each operand read once, the result written once\n"
	    "  training step    3 x the forward: the backward computes the inputs' and the weights' "
	    "gradients\n"
	    "assumes: attention fused (the scores stay on chip); norms, softmax and activations left out (a "
	    "few "
	    "FLOPs a hidden element); each term at its own roof, one after the other\n",
	    out);
	if (route->next_check != NULL)
		fprintf(out, "next check: %s\n", route->next_check);
	if (route->doc != NULL)
		fprintf(out, "fix explained: %s\n", route->doc);
}

/* ---- JSON ---- */

static bool add_terms(cJSON *obj, const ns_transformer_report *r)
{
	cJSON *terms = cJSON_AddObjectToObject(obj, "terms");
	bool ok = terms != NULL;

	for (int i = 0; ok && i < NS_TERM_COUNT; i++) {
		cJSON *t = cJSON_AddObjectToObject(terms, ns_transformer_term_key((ns_transformer_term)i));
		ok = t != NULL;
		ok = ok && cJSON_AddNumberToObject(t, "flops", r->count.flops[i]) != NULL;
		ok = ok && cJSON_AddNumberToObject(t, "bytes", r->count.bytes[i]) != NULL;
		ok = ok && cJSON_AddStringToObject(t, "bound", ns_regime_name(r->roof.bound[i])) != NULL;
		ok = ok && cJSON_AddNumberToObject(t, "seconds_at_roof", r->roof.seconds[i]) != NULL;
	}
	return ok;
}

static bool add_model(cJSON *obj, const ns_transformer_report *r)
{
	const ns_transformer_arch *a = &r->arch;
	cJSON *m = cJSON_AddObjectToObject(obj, "model");
	bool ok = m != NULL;

	ok = ok && cJSON_AddNumberToObject(m, "layers", a->layers) != NULL;
	ok = ok && cJSON_AddNumberToObject(m, "hidden", a->hidden) != NULL;
	ok = ok && cJSON_AddNumberToObject(m, "heads", a->heads) != NULL;
	ok = ok && cJSON_AddNumberToObject(m, "kv_heads", a->kv_heads) != NULL;
	ok = ok && cJSON_AddNumberToObject(m, "head_dim", a->head_dim) != NULL;
	ok = ok && cJSON_AddNumberToObject(m, "intermediate", a->intermediate) != NULL;
	ok = ok && cJSON_AddStringToObject(m, "mlp", a->mlp == NS_MLP_GATED ? "gated" : "plain") != NULL;
	ok = ok && cJSON_AddNumberToObject(m, "vocab", a->vocab) != NULL;
	ok = ok && cJSON_AddNumberToObject(m, "params", r->params.total) != NULL;
	ok = ok && cJSON_AddNumberToObject(m, "non_embedding_params", r->params.non_embedding) != NULL;
	return ok;
}

cJSON *ns_transformer_report_json(const ns_transformer_report *r, const ns_routes *routes)
{
	const ns_transformer_pass *c = &r->count;
	cJSON *obj = ns_format_route_json(
	    r->label, ns_regime_name(r->roof.regime), ns_regime_bound_word(r->roof.regime),
	    ns_format_tidy(bound_share(&r->roof)), ns_transformer_route(r, routes));
	bool ok = obj != NULL;

	ok = ok && cJSON_AddStringToObject(obj, "device", r->dev->name) != NULL;
	ok = ok && cJSON_AddStringToObject(obj, "dtype", ns_dtype_name(r->pass.dtype)) != NULL;
	ok = ok && cJSON_AddStringToObject(obj, "kv_dtype", ns_dtype_name(r->pass.kv_dtype)) != NULL;
	ok = ok && cJSON_AddStringToObject(obj, "pass",
	                                   r->pass.train  ? "train"
	                                   : is_decode(r) ? "decode"
	                                                  : "prefill");
	ok = ok && cJSON_AddNumberToObject(obj, "batch", r->pass.batch) != NULL;
	ok = ok && cJSON_AddNumberToObject(obj, "seq", r->pass.seq) != NULL;
	ok = ok && cJSON_AddNumberToObject(obj, "context", r->pass.context) != NULL;
	ok = ok && cJSON_AddNumberToObject(obj, "tokens", c->tokens) != NULL;
	ok = ok && add_model(obj, r);
	ok = ok && add_terms(obj, r);
	ok = ok && cJSON_AddNumberToObject(obj, "flops", c->total_flops) != NULL;
	ok = ok && cJSON_AddNumberToObject(obj, "bytes", c->total_bytes) != NULL;
	ok = ok && cJSON_AddNumberToObject(obj, "flops_per_token", c->total_flops / c->tokens) != NULL;
	ok = ok && cJSON_AddNumberToObject(obj, "bytes_per_token", c->total_bytes / c->tokens) != NULL;
	ok = ok && cJSON_AddNumberToObject(obj, "weight_bytes", c->weight_bytes) != NULL;
	ok = ok && cJSON_AddNumberToObject(obj, "kv_bytes", c->kv_bytes) != NULL;
	ok = ok && cJSON_AddNumberToObject(obj, "intensity", r->roof.intensity) != NULL;
	ok = ok && cJSON_AddNumberToObject(obj, "ridge", r->roof.ridge) != NULL;
	ok = ok && cJSON_AddNumberToObject(obj, "seconds_at_roof", r->roof.seconds_total) != NULL;
	ok = ok && cJSON_AddNumberToObject(obj, "tokens_per_second_at_roof",
	                                   c->tokens / r->roof.seconds_total) != NULL;
	if (ok && r->seconds > 0.0) {
		ok = cJSON_AddNumberToObject(obj, "time_s", r->seconds) != NULL;
		ok = ok && cJSON_AddNumberToObject(obj, "fraction_of_roof",
		                                   r->roof.seconds_total / r->seconds) != NULL;
		ok = ok &&
		     cJSON_AddNumberToObject(
		         obj, "mfu", c->total_flops / (r->seconds * r->dev->peak[r->pass.dtype])) != NULL;
	}
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

ns_status ns_transformer_report_print(FILE *out, const ns_transformer_report *r, const ns_routes *routes,
                                      const ns_format_options *o, ns_error *err)
{
	cJSON *obj;
	ns_status st;

	switch (o->kind) {
	case NS_FORMAT_QUIET:
		fprintf(out, "%s\n", ns_regime_name(r->roof.regime));
		return NS_OK;
	case NS_FORMAT_TEXT:
		print_line(out, r, routes, o);
		print_model(out, r);
		print_terms(out, r);
		print_per_token(out, r);
		print_measured(out, r);
		if (o->verbose)
			print_formulas(out, r, routes);
		return NS_OK;
	case NS_FORMAT_JSON:
		break;
	}
	if ((obj = ns_transformer_report_json(r, routes)) == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	st = ns_format_print_json(out, obj);
	cJSON_Delete(obj);
	return st == NS_ERR_NOMEM ? ns_error_set(err, st, "out of memory") : NS_OK;
}
