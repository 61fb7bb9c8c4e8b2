/* The phases of a training step, as the report prints them: the forward / backward / optimizer share of the
 * step (-v text, "phases" in JSON), and the optimizer finding when its step takes a large share.
 *
 * Why 10 % and 20 %: a fused optimizer streams each parameter's weight, gradient and state a few times (about
 * 16-28 bytes a parameter for Adam in fp32), while forward and backward do about 6 FLOPs per parameter per
 * token. At today's devices' ratio of peak FLOP/s to bandwidth (about 150-300 FLOP per byte) and a few
 * thousand tokens per device per step, that puts a bandwidth-bound optimizer step at a few percent of the
 * step. At 10 % it is worth a look (moderate); at 20 %, the share the router grades high, the optimizer is
 * almost surely launching kernels per parameter (a for-loop implementation) or updating state it could shard.
 */
#include <string.h>

#include "report_private.h"

#define OPTIMIZER_MODERATE 0.10
#define OPTIMIZER_HIGH     0.20

static const char *const pass_names[PASS_COUNT] = {"forward", "backward", "optimizer"};

static double share(int64_t part, int64_t whole)
{
	return whole > 0 ? (double)part / (double)whole : 0.0;
}

static int64_t other_ns(const split_pass_time *t, int64_t dur)
{
	int64_t rest = dur;

	for (int k = 0; k < PASS_COUNT; k++)
		rest -= t->ns[k];
	return rest > 0 ? rest : 0;
}

ns_grade report_optimizer_grade(const split_device *d, double *s)
{
	*s = share(d->passes.ns[PASS_OPTIMIZER], d->overall.dur_ns);
	return *s >= OPTIMIZER_HIGH ? GRADE_HIGH : *s >= OPTIMIZER_MODERATE ? GRADE_MODERATE : GRADE_NONE;
}

static void print_finding(FILE *out, const char *lead, double s, ns_grade g, const ns_routes *r)
{
	const ns_route *f = &r->finding[FINDING_OPTIMIZER];

	fprintf(out, "%s: optimizer step %.0f%% of the step (%s)", lead, s * 100.0, grade_name(g));
	if (f->fix != NULL)
		fprintf(out, " -> %s (%s)", f->fix, f->module != NULL ? f->module : "");
	fputc('\n', out);
}

void report_print_passes_also(FILE *out, const split_result *res, const split_device *d, const ns_routes *r)
{
	double s;

	if (res->passes != NULL && report_optimizer_grade(d, &s) == GRADE_HIGH)
		print_finding(out, "also", s, GRADE_HIGH, r);
}

void report_print_passes(FILE *out, const split_result *res, const split_device *d, const ns_routes *r)
{
	const split_pass_time *t = &d->passes;
	int64_t dur = d->overall.dur_ns;
	ns_grade g;
	double s;

	if (res->passes == NULL)
		return;
	fputs("phases (host timeline, share of the step):", out);
	for (int k = 0; k < PASS_COUNT; k++)
		fprintf(out, " %s %.1f%%,", pass_names[k], 100.0 * share(t->ns[k], dur));
	fprintf(out, " other %.1f%%\n", 100.0 * share(other_ns(t, dur), dur));
	g = report_optimizer_grade(d, &s);
	if (g != GRADE_NONE)
		print_finding(out, "finding", s, g, r);
}

static cJSON *finding_json(const split_device *d, const ns_routes *r)
{
	const ns_route *f = &r->finding[FINDING_OPTIMIZER];
	ns_grade g;
	double s;
	cJSON *obj;

	if ((g = report_optimizer_grade(d, &s)) == GRADE_NONE)
		return cJSON_CreateNull();
	obj = cJSON_CreateObject();
	if (obj == NULL || !cJSON_AddStringToObject(obj, "finding", finding_name(FINDING_OPTIMIZER)) ||
	    !cJSON_AddNumberToObject(obj, "share", s) ||
	    !cJSON_AddStringToObject(obj, "grade", grade_name(g)) ||
	    !(f->module != NULL ? cJSON_AddStringToObject(obj, "module", f->module)
	                        : cJSON_AddNullToObject(obj, "module")) ||
	    !(f->fix != NULL ? cJSON_AddStringToObject(obj, "fix", f->fix)
	                     : cJSON_AddNullToObject(obj, "fix")) ||
	    !(f->next_check != NULL ? cJSON_AddStringToObject(obj, "next_check", f->next_check)
	                            : cJSON_AddNullToObject(obj, "next_check"))) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

bool report_passes_add_json(cJSON *window, const split_result *res, const split_pass_time *t, int64_t dur,
                            const split_device *d, const ns_routes *r)
{
	cJSON *obj;

	if (res->passes == NULL)
		return true;
	obj = cJSON_AddObjectToObject(window, "phases");
	if (obj == NULL)
		return false;
	for (int k = 0; k < PASS_COUNT; k++) {
		char key[32];
		snprintf(key, sizeof(key), "%s_us", pass_names[k]);
		if (!cJSON_AddNumberToObject(obj, key, (double)t->ns[k] / 1e3))
			return false;
	}
	if (!cJSON_AddNumberToObject(obj, "other_us", (double)other_ns(t, dur) / 1e3))
		return false;
	if (d != NULL) {
		cJSON *f = finding_json(d, r);
		if (f == NULL || !cJSON_AddItemToObject(obj, "finding", f)) {
			cJSON_Delete(f);
			return false;
		}
	}
	return true;
}
