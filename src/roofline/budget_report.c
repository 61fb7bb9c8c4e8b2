/* Printing the memory budget: the verdict keys and styles are the router's (format.h), routed through the
 * budget findings of the routes table. */
#include "nextstep/budget_report.h"

#include <math.h>
#include <string.h>

#include "nextstep/units.h"
#include "util/text.h"

ns_finding_kind ns_budget_finding(ns_budget_term t)
{
	switch (t) {
	case NS_BUDGET_WEIGHTS:
		return NS_FINDING_BUDGET_WEIGHTS;
	case NS_BUDGET_KV_CACHE:
		return NS_FINDING_BUDGET_KV_CACHE;
	case NS_BUDGET_ACTIVATIONS:
		return NS_FINDING_BUDGET_ACTIVATIONS;
	case NS_BUDGET_GRADIENTS:
	case NS_BUDGET_OPTIMIZER:
	case NS_BUDGET_COUNT:
		break;
	}
	return NS_FINDING_BUDGET_TRAINING_STATE;
}

static const ns_route *route_of(const ns_budget_report *r, const ns_routes *routes)
{
	return &routes->finding[ns_budget_finding(r->budget.dominant)];
}

static double share(const ns_budget *b, double bytes)
{
	return b->total > 0.0 ? bytes / b->total : 0.0;
}

static const char *bytes_text(double v, char *buf, size_t size)
{
	return ns_units_format_si(v, "B", buf, size);
}

/* "7.5B", "350M": how model sizes are spoken of. */
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

static void print_line(FILE *out, const ns_budget_report *r, const ns_routes *routes,
                       const ns_format_options *o)
{
	const ns_budget *b = &r->budget;
	const ns_route *route = route_of(r, routes);
	char t[32];

	if (r->label != NULL && r->label[0] != '\0') {
		ns_fput_text(out, r->label);
		fputs(": ", out);
	}
	fprintf(out, "%s%s%s: %s", ns_format_style(o, NS_FORMAT_STYLE_VERDICT), ns_budget_fit_words(b->fit),
	        ns_format_style(o, NS_FORMAT_STYLE_RESET), bytes_text(b->total, t, sizeof(t)));
	if (b->fit == NS_FIT_UNKNOWN)
		fputs(" counted", out);
	if (b->device_bytes > 0.0) {
		char d[32];
		fprintf(out, " of %s (", bytes_text(b->device_bytes, d, sizeof(d)));
		ns_format_percent(out, b->total / b->device_bytes);
		fputc(')', out);
	}
	fprintf(out, ", %s ", ns_budget_term_words(b->dominant));
	ns_format_percent(out, share(b, b->bytes[b->dominant]));
	fprintf(out, " of it -> %s (%s)\n", route->fix != NULL ? route->fix : "-",
	        route->module != NULL ? route->module : "-");
}

static void describe_term(FILE *out, const ns_budget_report *r, ns_budget_term t)
{
	const ns_budget_spec *s = r->spec;
	const ns_transformer_arch *a = &r->budget.arch;
	char n[32];

	switch (t) {
	case NS_BUDGET_WEIGHTS:
		fprintf(out, "%s parameters x %g B (%s)", count_text(r->budget.params, n, sizeof(n)),
		        ns_dtype_bytes(s->dtype), ns_dtype_name(s->dtype));
		return;
	case NS_BUDGET_KV_CACHE:
		fprintf(out, "%.0f tokens x %.0f sequence%s x %s a token (%s)", s->context, s->batch,
		        s->batch == 1 ? "" : "s",
		        bytes_text(2.0 * a->layers * a->kv_heads * a->head_dim * ns_dtype_bytes(s->kv_dtype),
		                   n, sizeof(n)),
		        ns_dtype_name(s->kv_dtype));
		return;
	case NS_BUDGET_ACTIVATIONS:
		if (s->train)
			fprintf(out, "kept for the backward, %s%s%s",
			        s->checkpointing ? "checkpointed" : "every layer",
			        s->eager_attention ? ", scores materialised" : ", FlashAttention",
			        s->dropout ? ", dropout masks" : "");
		else if (s->decode)
			fputs("one decode step, one layer at a time", out);
		else
			fprintf(out, "the prefill of %.0f x %.0f tokens, one layer at a time", s->batch,
			        s->context);
		return;
	case NS_BUDGET_GRADIENTS:
		fprintf(out, "%s x %g B (%s)", count_text(r->budget.params, n, sizeof(n)),
		        ns_dtype_bytes(s->grad_dtype), ns_dtype_name(s->grad_dtype));
		return;
	case NS_BUDGET_OPTIMIZER:
	case NS_BUDGET_COUNT:
		break;
	}
	fprintf(out, "%s%s", ns_optimizer_name(s->optimizer), s->master_weights ? ", fp32 master copy" : "");
	if (s->optimizer == NS_OPTIMIZER_ADAFACTOR)
		fprintf(out, ", factored second moment (%s)", ns_dtype_name(s->state_dtype));
	else
		fprintf(out, ", %s %s", s->optimizer == NS_OPTIMIZER_ADAMW ? "two moments" : "momentum",
		        ns_dtype_name(s->state_dtype));
}

static void print_terms(FILE *out, const ns_budget_report *r)
{
	const ns_budget *b = &r->budget;
	char v[32];

	for (int t = 0; t < NS_BUDGET_COUNT; t++) {
		if (!b->applies[t])
			continue;
		fprintf(out, "  %-16s", ns_budget_term_words((ns_budget_term)t));
		if (!b->known[t]) {
			fprintf(out, " %9s  %6s  needs the %s\n", "?", "",
			        t == NS_BUDGET_KV_CACHE ? "layers, KV heads and head size"
			                                : "whole architecture");
			continue;
		}
		fprintf(out, " %9s  ", bytes_text(b->bytes[t], v, sizeof(v)));
		fprintf(out, "%5.1f%%  ", 100.0 * share(b, b->bytes[t]));
		describe_term(out, r, (ns_budget_term)t);
		fputc('\n', out);
	}
	fprintf(out, "  %-16s %9s", "total", bytes_text(b->total, v, sizeof(v)));
	if (b->device_bytes > 0.0)
		fprintf(out, "  of %s%s%s", bytes_text(b->device_bytes, v, sizeof(v)),
		        r->dev != NULL ? " on " : "", r->dev != NULL ? r->dev->name : "");
	fputc('\n', out);
}

static void print_limits(FILE *out, const ns_budget_report *r)
{
	const ns_budget *b = &r->budget;
	const ns_budget_spec *s = r->spec;
	char v[32];

	if (b->max_batch < 0.0)
		return;
	if (b->fixed_bytes > b->device_bytes) {
		fprintf(out, "nothing fits: the %s alone take %s\n",
		        s->train ? "weights, gradients and optimizer state" : "weights",
		        bytes_text(b->fixed_bytes, v, sizeof(v)));
		return;
	}
	if (isinf(b->max_batch))
		fprintf(out, "largest batch at %.0f tokens: unbounded", s->context);
	else if (b->max_batch == 0.0)
		fprintf(out, "no batch fits at %.0f tokens", s->context);
	else
		fprintf(out, "largest batch at %.0f tokens: %.0f (%s a sequence)", s->context, b->max_batch,
		        bytes_text(b->per_sequence_bytes, v, sizeof(v)));
	if (isinf(b->max_context))
		fprintf(out, "; longest context at batch %.0f: unbounded\n", s->batch);
	else if (b->max_context == 0.0)
		fprintf(out, "; no context fits at batch %.0f\n", s->batch);
	else
		fprintf(out, "; longest context at batch %.0f: %.0f tokens\n", s->batch, b->max_context);
}

/* Decode is memory-bound below the ridge batch (roofline --decode): whether that batch fits beside its cache
 * is what decides between raising the batch and making room for it. */
static void print_ridge(FILE *out, const ns_budget_report *r)
{
	const ns_budget *b = &r->budget;
	const ns_budget_spec *s = r->spec;

	if (!s->decode || s->train || !(s->ridge > 0.0))
		return;
	if (b->ridge_batch <= 0.0)
		fprintf(out,
		        "decode: no batch reaches the ridge at %.0f tokens: the KV-cache reads grow with the "
		        "batch as fast as the FLOPs\n",
		        s->context);
	else if (b->max_batch < 0.0)
		fprintf(out,
		        "decode: the ridge is reached at batch %.0f; whether it fits needs the whole "
		        "architecture\n",
		        b->ridge_batch);
	else if (b->ridge_fits)
		fprintf(out, "decode: the ridge batch (%.0f) fits: up to %.0f sequences of %.0f tokens\n",
		        b->ridge_batch, b->max_batch, s->context);
	else
		fprintf(out,
		        "decode: the ridge batch (%.0f) does not fit: %.0f sequence%s of %.0f tokens do; an "
		        "FP8 KV cache, paged attention or tensor parallelism make room for more\n",
		        b->ridge_batch, b->max_batch, b->max_batch == 1 ? "" : "s", s->context);
}

static void print_formulas(FILE *out, const ns_budget_report *r, const ns_routes *routes)
{
	const ns_budget_spec *s = r->spec;
	const ns_route *route = route_of(r, routes);

	fputs("formulas (docs/budget.md):\n  weights      P x size(dtype)\n", out);
	if (!s->train) {
		fputs("  KV cache     2 x layers x kv_heads x head_dim x context x batch x size(kv dtype)\n",
		      out);
		fputs(
		    "  activations  max(tokens x (2 hidden + 2 q + 2 kv), tokens x (2 hidden + k "
		    "intermediate)) x "
		    "size, or the logits of the last tokens, batch x vocab x 4 B, if larger; tokens = batch "
		    "(decode) or batch x context (prefill); q, kv = heads, kv_heads x head_dim; k = 3 gated, "
		    "2 "
		    "plain\n",
		    out);
	} else {
		fputs("  activations  per layer, T = batch x context tokens (Korthikanti et al. 2022, "
		      "section 4.1, "
		      "for GQA and gated MLPs):\n"
		      "               size x T x (2 hidden + 2 q + 2 kv)  attention inputs, Q, K, V, output "
		      "projection input\n"
		      "             + size x T x (hidden + k intermediate)  MLP inputs\n"
		      "             + 2 x size x T x hidden  the two norms' inputs\n"
		      "             + 4 x heads x T (FlashAttention's log-sum-exp) or size x heads x "
		      "context^2 x "
		      "batch (scores)\n"
		      "             x layers (checkpointing: size x T x hidden x layers + one layer), + 2 x "
		      "size x T x "
		      "hidden + 4 x T x vocab (the logits in fp32)\n",
		      out);
		fputs("  gradients    P x size(grad dtype)\n", out);
		fputs("  optimizer    4 x P (fp32 master copy, when the weights are not fp32) + AdamW 2 x P, "
		      "SGD P, "
		      "Adafactor (rows + cols) per matrix, x size(state dtype); bf16 weights and gradients "
		      "with "
		      "AdamW in fp32: 16 B a parameter (Rajbhandari et al. 2020, ZeRO)\n",
		      out);
	}
	fputs("assumes: nothing sharded or offloaded; the CUDA context, the allocator's fragmentation and "
	      "workspaces (cuBLAS, NCCL) take a few GB more, hence 'tight' under 10% free\n",
	      out);
	if (route->next_check != NULL)
		fprintf(out, "next check: %s\n", route->next_check);
	if (route->doc != NULL)
		fprintf(out, "fix explained: %s\n", route->doc);
}

static void print_text(FILE *out, const ns_budget_report *r, const ns_routes *routes,
                       const ns_format_options *o)
{
	print_line(out, r, routes, o);
	print_terms(out, r);
	print_limits(out, r);
	print_ridge(out, r);
	if (o->verbose)
		print_formulas(out, r, routes);
}

/* ---- JSON ---- */

static bool add_bytes(cJSON *obj, const char *key, const ns_budget *b, ns_budget_term t)
{
	if (b->applies[t] && !b->known[t])
		return cJSON_AddNullToObject(obj, key) != NULL;
	return cJSON_AddNumberToObject(obj, key, b->bytes[t]) != NULL;
}

static bool add_limit(cJSON *obj, const char *key, double v)
{
	return (v >= 0.0 && isfinite(v) ? cJSON_AddNumberToObject(obj, key, v)
	                                : cJSON_AddNullToObject(obj, key)) != NULL;
}

static cJSON *budget_json(const ns_budget_report *r)
{
	const ns_budget *b = &r->budget;
	cJSON *obj = cJSON_CreateObject();
	char key[48];
	bool ok = obj != NULL;

	for (int t = 0; ok && t < NS_BUDGET_COUNT; t++) {
		snprintf(key, sizeof(key), "%s_bytes", ns_budget_term_key((ns_budget_term)t));
		ok = add_bytes(obj, key, b, (ns_budget_term)t);
	}
	ok = ok && cJSON_AddNumberToObject(obj, "total_bytes", b->total) != NULL;
	ok = ok && add_limit(obj, "device_bytes", b->device_bytes > 0.0 ? b->device_bytes : -1.0);
	ok = ok && cJSON_AddStringToObject(obj, "dominant", ns_budget_term_key(b->dominant)) != NULL;
	ok = ok && add_limit(obj, "max_batch", b->max_batch);
	ok = ok && add_limit(obj, "max_context", b->max_context);
	ok = ok && cJSON_AddBoolToObject(obj, "max_batch_unbounded", isinf(b->max_batch)) != NULL;
	ok = ok && cJSON_AddBoolToObject(obj, "max_context_unbounded", isinf(b->max_context)) != NULL;
	ok = ok && cJSON_AddStringToObject(obj, "fit", ns_budget_fit_name(b->fit)) != NULL;
	ok = ok && cJSON_AddNumberToObject(obj, "params", b->params) != NULL;
	ok = ok && add_limit(obj, "per_sequence_bytes", b->per_sequence_bytes);
	if (ok && r->spec->decode && !r->spec->train && r->spec->ridge > 0.0) {
		ok = add_limit(obj, "ridge_batch", b->ridge_batch > 0.0 ? b->ridge_batch : -1.0);
		ok = ok && (b->max_batch >= 0.0 && b->ridge_batch > 0.0
		                ? cJSON_AddBoolToObject(obj, "ridge_fits", b->ridge_fits)
		                : cJSON_AddNullToObject(obj, "ridge_fits")) != NULL;
	}
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

cJSON *ns_budget_report_json(const ns_budget_report *r, const ns_routes *routes)
{
	const ns_budget_spec *s = r->spec;
	cJSON *obj = ns_format_route_json(r->label, NULL, ns_budget_fit_words(r->budget.fit), -1.0,
	                                  route_of(r, routes));
	cJSON *budget = NULL;
	bool ok = obj != NULL;

	ok = ok &&
	     cJSON_AddStringToObject(obj, "finding", ns_finding_name(ns_budget_finding(r->budget.dominant)));
	ok = ok && (r->dev != NULL ? cJSON_AddStringToObject(obj, "device", r->dev->name)
	                           : cJSON_AddNullToObject(obj, "device")) != NULL;
	ok = ok && cJSON_AddStringToObject(obj, "mode",
	                                   s->train    ? "train"
	                                   : s->decode ? "decode"
	                                               : "prefill");
	ok = ok && cJSON_AddStringToObject(obj, "dtype", ns_dtype_name(s->dtype)) != NULL;
	ok = ok && cJSON_AddStringToObject(obj, "kv_dtype", ns_dtype_name(s->kv_dtype)) != NULL;
	ok = ok && cJSON_AddNumberToObject(obj, "context", s->context) != NULL;
	ok = ok && cJSON_AddNumberToObject(obj, "batch", s->batch) != NULL;
	ok = ok && (budget = budget_json(r)) != NULL && cJSON_AddItemToObject(obj, "budget", budget);
	if (!ok) {
		if (budget != NULL && obj != NULL && cJSON_GetObjectItem(obj, "budget") != budget)
			cJSON_Delete(budget);
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

ns_status ns_budget_report_print(FILE *out, const ns_budget_report *r, const ns_routes *routes,
                                 const ns_format_options *o, ns_error *err)
{
	cJSON *obj;
	ns_status st;

	switch (o->kind) {
	case NS_FORMAT_QUIET:
		fprintf(out, "%s\n", ns_budget_fit_name(r->budget.fit));
		return NS_OK;
	case NS_FORMAT_TEXT:
		print_text(out, r, routes, o);
		return NS_OK;
	case NS_FORMAT_JSON:
		break;
	}
	if ((obj = ns_budget_report_json(r, routes)) == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	st = ns_format_print_json(out, obj);
	cJSON_Delete(obj);
	return st == NS_ERR_NOMEM ? ns_error_set(err, st, "out of memory") : NS_OK;
}
