/* The next steps as text (the headline's "next step:" lines and -v's ranked list) and as JSON
 * ("next_steps": [...]): a rendering of ns_next_steps, nothing decided here. */
#include <stdio.h>

#include "nextstep/next_step.h"

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

static void print_fix(FILE *out, const ns_next_step *s)
{
	if (s->route.fix != NULL)
		fprintf(out, " -> %s", s->route.fix);
	if (s->route.module != NULL)
		fprintf(out, " (%s)", s->route.module);
	fputc('\n', out);
}

static void print_one(FILE *out, const char *lead, const ns_next_step *s, const char *per)
{
	char key[160];

	fprintf(out, "%s%s", lead, ns_next_step_title(s, key, sizeof(key)));
	if (s->known)
		fprintf(out, ", %s %.3f ms%s (%.1f%%)", ns_next_step_bound_word(s), ms(s->gain_ns), per,
		        100.0 * s->gain_share);
	else
		fprintf(out, ", bound unknown (%.3f ms%s in these kernels)", ms(s->held_ns), per);
	print_fix(out, s);
}

/* The "bound unknown:" line: what the report cannot bound, and why; place_hint names what places ops. */
static void print_unknown(FILE *out, const ns_next_steps *s, const ns_next_step *u, bool has_top,
                          const char *per, const char *place_hint)
{
	char key[160];

	fprintf(out, "  bound unknown: %s hold %.3f ms%s (%.1f%%)%s, more than %s",
	        ns_next_step_title(u, key, sizeof(key)), ms(u->unknown_ns), per,
	        s->step_ns > 0 ? 100.0 * (double)u->unknown_ns / (double)s->step_ns : 0.0,
	        u->roof == NS_ROOF_PLACED ? " in ops not placed on the roofline"
	        : u->known                ? " in kernels other than its fp32 GEMMs and convolutions"
	                                  : "",
	        has_top ? "the next step's bound" : "any fix's bound");
	if (u->roof == NS_ROOF_PLACED)
		fputs(": how much of it a faster kernel wins is unknown", out);
	else if (u->roof == NS_ROOF_NONE)
		fprintf(out,
		        "; none of their ops placed on the roofline%s%s%s%s: how much of it a faster kernel "
		        "wins is unknown",
		        u->roof_why != NULL ? " (" : "", u->roof_why != NULL ? u->roof_why : "",
		        u->no_shapes ? ": record them with record_shapes=True" : "",
		        u->roof_why != NULL ? ")" : "");
	else
		fprintf(out,
		        "; how much of it a faster kernel wins is unknown until their ops are placed on the "
		        "roofline%s%s%s",
		        place_hint != NULL ? " (" : "", place_hint != NULL ? place_hint : "",
		        place_hint != NULL ? ")" : "");
	fputc('\n', out);
}

void ns_next_steps_print(FILE *out, const ns_next_steps *s, bool per_step, const char *place_hint)
{
	const char *per = per_step ? " a step" : "";
	const ns_next_step *top = ns_next_steps_top(s), *second = ns_next_steps_runner_up(s),
	                   *unknown = ns_next_steps_unbounded(s);

	if (top != NULL)
		print_one(out, "next step: ", top, per);
	if (second != NULL)
		print_one(out, "then: ", second, per);
	if (unknown != NULL)
		print_unknown(out, s, unknown, top != NULL, per, place_hint);
}

void ns_next_steps_print_all(FILE *out, const ns_next_steps *s, bool per_step, const char *place_hint)
{
	const char *per = per_step ? " a step" : "";
	char lead[32];

	if (s->n == 0)
		return;
	fprintf(out, "next steps (the most each fix can win%s, ranked):\n", per);
	for (size_t i = 0; i < s->n; i++) {
		snprintf(lead, sizeof(lead), "  %zu. ", i + 1);
		print_one(out, lead, &s->item[i], per);
		fprintf(out, "     basis: %s", s->item[i].basis);
		if (s->item[i].rule == NS_GAIN_ROOFLINE && s->item[i].roof == NS_ROOF_NOT_RUN &&
		    place_hint != NULL)
			fprintf(out, " (%s places them)", place_hint);
		fputc('\n', out);
	}
}

static bool add_string_or_null(cJSON *obj, const char *key, const char *s)
{
	return (s != NULL ? cJSON_AddStringToObject(obj, key, s) : cJSON_AddNullToObject(obj, key)) != NULL;
}

/* "causes": the keys of the causes a step capture claims ("overhead.launch", ...), which diff sums. */
static bool add_spans(cJSON *obj, uint32_t spans)
{
	cJSON *arr = cJSON_AddArrayToObject(obj, "causes");
	char key[64];

	for (int c = 0; arr != NULL && c < NS_CAUSE_COUNT; c++) {
		if (!(spans & (1u << c)))
			continue;
		ns_cause_key((ns_cause)c, key, sizeof(key));
		if (!cJSON_AddItemToArray(arr, cJSON_CreateString(key)))
			return false;
	}
	return arr != NULL;
}

/* shown: the text prints it as "next step:" or "then:" (the page marks it so too). */
static cJSON *step_json(const ns_next_step *s, bool shown)
{
	cJSON *obj = cJSON_CreateObject();
	char key[160];
	bool ok = obj != NULL;

	ok = ok && cJSON_AddStringToObject(obj, "bucket", ns_regime_name(s->bucket));
	ok = ok && add_string_or_null(obj, "cause", s->cause >= 0 ? ns_cause_name((ns_cause)s->cause) : NULL);
	ok = ok && cJSON_AddStringToObject(obj, "title", ns_next_step_title(s, key, sizeof(key)));
	if (ok && s->finding != NULL)
		ok = cJSON_AddStringToObject(obj, "finding", s->finding) != NULL;
	if (ok && s->op[0] != '\0')
		ok = cJSON_AddStringToObject(obj, "op", s->op) != NULL;
	ok = ok && add_string_or_null(obj, "fix", s->route.fix);
	ok = ok && add_string_or_null(obj, "module", s->route.module);
	ok = ok && (s->known ? cJSON_AddNumberToObject(obj, "gain_us", (double)s->gain_ns / 1e3)
	                     : cJSON_AddNullToObject(obj, "gain_us")) != NULL;
	ok = ok && (s->known ? cJSON_AddNumberToObject(obj, "gain_share", s->gain_share)
	                     : cJSON_AddNullToObject(obj, "gain_share")) != NULL;
	if (ok && s->estimate) /* gain_us is a floor of the headroom, printed "about" (docs/next-step.md) */
		ok = cJSON_AddBoolToObject(obj, "estimate", true) != NULL;
	if (ok && shown)
		ok = cJSON_AddBoolToObject(obj, "shown", true) != NULL;
	ok = ok && cJSON_AddNumberToObject(obj, "held_us", (double)s->held_ns / 1e3);
	ok = ok && cJSON_AddStringToObject(obj, "rule", ns_gain_rule_name(s->rule));
	if (ok && s->rank >= 0)
		ok = cJSON_AddNumberToObject(obj, "rank", (double)s->rank) != NULL;
	if (ok && s->rule == NS_GAIN_ROOFLINE) {
		ok = cJSON_AddStringToObject(obj, "roofline", ns_roof_state_name(s->roof)) != NULL;
		ok = ok && (s->roof == NS_ROOF_PLACED
		                ? cJSON_AddNumberToObject(obj, "placed_share", s->placed_share)
		                : cJSON_AddNullToObject(obj, "placed_share")) != NULL;
		ok = ok && cJSON_AddNumberToObject(obj, "unknown_us", (double)s->unknown_ns / 1e3) != NULL;
	}
	if (ok && s->spans != 0)
		ok = add_spans(obj, s->spans);
	if (ok && s->launch_ns > 0)
		ok = cJSON_AddNumberToObject(obj, "launch_us", (double)s->launch_ns / 1e3) != NULL;
	if (ok && s->has_batch)
		ok = cJSON_AddNumberToObject(obj, "batch_scale", s->batch_scale) != NULL;
	ok = ok && cJSON_AddStringToObject(obj, "basis", s->basis);
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

cJSON *ns_next_steps_json(const ns_next_steps *s, bool shown)
{
	cJSON *arr = cJSON_CreateArray();
	const ns_next_step *top = shown ? ns_next_steps_top(s) : NULL;
	const ns_next_step *second = shown ? ns_next_steps_runner_up(s) : NULL;

	for (size_t i = 0; arr != NULL && i < s->n; i++) {
		cJSON *item =
		    step_json(&s->item[i], top != NULL && (&s->item[i] == top || &s->item[i] == second));
		if (item == NULL || !cJSON_AddItemToArray(arr, item)) {
			cJSON_Delete(item);
			cJSON_Delete(arr);
			return NULL;
		}
	}
	return arr;
}
