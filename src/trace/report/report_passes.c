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

#include "trace/report/report_private.h"

#define OPTIMIZER_MODERATE 0.10
#define OPTIMIZER_HIGH     0.20

/* What makes an optimizer's step cheaper depends on the implementations it has. torch.optim's (PyTorch's
 * docs, docs/source/optim.md, "Algorithms": the tables of implementations and of fused stability): for-loop
 * (kernels per parameter tensor), foreach (multi-tensor: the same work in a few large kernels, the default
 * where it applies) and fused (each chunk of the update in one kernel; CUDA: Adam and AdamW stable, SGD beta;
 * Adagrad's is CPU only). Other libraries' optimizers whose cost is of another kind have their own row. An
 * optimizer without a fused implementation is advised on its own implementations only: the training
 * algorithm (RMSprop, Adafactor, Muon, ...) is chosen for convergence, and swapping it to save a fraction of
 * the step is not a performance fix (issue 25). */
typedef enum {
	OPT_FUSED,   /* has a fused CUDA implementation: fused=True */
	OPT_FOREACH, /* foreach at best */
	OPT_LOOP,    /* for-loop only */
	OPT_OWN      /* the row's own advice */
} optimizer_impl;

typedef struct {
	const char *name;
	optimizer_impl impl;
	const char *advice; /* OPT_FUSED: the stability note; OPT_OWN: the advice */
} optimizer_row;

static const optimizer_row optimizers[] = {
    {"Adam", OPT_FUSED, ""},
    {"AdamW", OPT_FUSED, ""},
    {"SGD", OPT_FUSED, "fused SGD is beta; "},
    {"Adadelta", OPT_FOREACH, NULL},
    {"Adagrad", OPT_FOREACH, NULL},
    {"Adamax", OPT_FOREACH, NULL},
    {"ASGD", OPT_FOREACH, NULL},
    {"NAdam", OPT_FOREACH, NULL},
    {"RAdam", OPT_FOREACH, NULL},
    {"RMSprop", OPT_FOREACH, NULL},
    {"Rprop", OPT_FOREACH, NULL},
    {"Adafactor", OPT_LOOP, NULL},
    {"SparseAdam", OPT_LOOP, NULL},
    {"LBFGS", OPT_LOOP, NULL},
    {"Muon", OPT_LOOP, NULL},
    /* Distributed Shampoo (facebookresearch/optimizers): the step is dominated by the preconditioners' matrix
     * roots, recomputed every precondition_frequency steps, sized by max_preconditioner_dim, and spread over
     * the ranks by distributed_config. */
    {"Shampoo", OPT_OWN,
     "Shampoo's step is mostly its preconditioners' matrix roots: recompute them less often "
     "(precondition_frequency), cap their size (max_preconditioner_dim), or spread them over the ranks "
     "(distributed_config=DDPShampooConfig(...))"},
    {"DistributedShampoo", OPT_OWN,
     "Shampoo's step is mostly its preconditioners' matrix roots: recompute them less often "
     "(precondition_frequency), cap their size (max_preconditioner_dim), or spread them over the ranks "
     "(distributed_config=DDPShampooConfig(...))"},
};

static const optimizer_row *optimizer_row_of(const char *name)
{
	for (size_t i = 0; i < sizeof(optimizers) / sizeof(optimizers[0]); i++)
		if (strcmp(optimizers[i].name, name) == 0)
			return &optimizers[i];
	return NULL;
}

/* The implementation advice for the trace's optimizer class (name, "" when no marker names one; fused: a
 * fused optimizer op ran). */
static void optimizer_advice(const char *name, bool fused, char *buf, size_t size)
{
	const optimizer_row *r = optimizer_row_of(name);

	if (name[0] == '\0')
		snprintf(
		    buf, size,
		    "use a fused (Adam, AdamW, SGD: fused=True) or foreach implementation, or compile the "
		    "step (torch.compile)");
	else if (r == NULL)
		snprintf(
		    buf, size,
		    "%s is not one of torch.optim's: use its fused or multi-tensor (foreach) variant if it "
		    "has one, or compile the step (torch.compile)",
		    name);
	else if (r->impl == OPT_FUSED && fused)
		snprintf(buf, size,
		         "%s already runs fused (aten::_fused_ ops recorded): what is left is reading and "
		         "writing parameters, gradients and state",
		         name);
	else if (r->impl == OPT_FUSED)
		snprintf(buf, size,
		         "torch.optim.%s(..., fused=True) does the update in a few fused kernels instead of "
		         "several per parameter tensor (%sforeach=True is next best)",
		         name, r->advice);
	else if (r->impl == OPT_FOREACH) /* the algorithm is the team's choice: no other optimizer is named */
		snprintf(buf, size,
		         "%s has no fused CUDA implementation, which is no reason to change the training "
		         "algorithm: keep foreach=True (its default on CUDA tensors) and compile the step "
		         "(torch.compile fuses the update into a few kernels)",
		         name);
	else if (r->impl == OPT_LOOP)
		snprintf(buf, size,
		         "%s has only a for-loop implementation (kernels per parameter tensor), which is no "
		         "reason to change the training algorithm: compile the step (torch.compile), or use "
		         "fewer, larger parameter tensors",
		         name);
	else
		snprintf(buf, size, "%s", r->advice);
}

static const char *const pass_names[NS_PASS_COUNT] = {"forward", "backward", "optimizer"};

static double share(int64_t part, int64_t whole)
{
	return whole > 0 ? (double)part / (double)whole : 0.0;
}

static int64_t other_ns(const ns_split_pass_time *t, int64_t dur)
{
	int64_t rest = dur;

	for (int k = 0; k < NS_PASS_COUNT; k++)
		rest -= t->ns[k];
	return rest > 0 ? rest : 0;
}

ns_grade report_optimizer_grade(const ns_split_device *d, double *s)
{
	*s = share(d->passes.ns[NS_PASS_OPTIMIZER], d->overall.dur_ns);
	return *s >= OPTIMIZER_HIGH       ? NS_GRADE_HIGH
	       : *s >= OPTIMIZER_MODERATE ? NS_GRADE_MODERATE
	                                  : NS_GRADE_NONE;
}

/* The finding's fix: the route's, with the advice for the trace's optimizer in place of "{optimizer}" (a
 * playbook's fix without it is used as written). */
void report_optimizer_fix(const ns_split_result *res, const ns_route *f, char *buf, size_t size)
{
	report_optimizer_fix_of(res->optimizer, res->optimizer_fused, f, buf, size);
}

void report_optimizer_fix_of(const char *optimizer, bool fused, const ns_route *f, char *buf, size_t size)
{
	static const char slot[] = "{optimizer}";
	const char *at = f->fix != NULL ? strstr(f->fix, slot) : NULL;
	char advice[512];

	if (at == NULL) {
		snprintf(buf, size, "%s", f->fix != NULL ? f->fix : "");
		return;
	}
	optimizer_advice(optimizer, fused, advice, sizeof(advice));
	snprintf(buf, size, "%.*s%s%s", (int)(at - f->fix), f->fix, advice, at + sizeof(slot) - 1);
}

static void print_finding(FILE *out, const char *lead, const ns_split_result *res, const ns_split_device *d,
                          const ns_device_report *m)
{
	const ns_route *f = &m->routes.finding[NS_FINDING_OPTIMIZER];

	fprintf(out, "%s: optimizer step %.0f%% of the step (%s", lead, m->optimizer_share * 100.0,
	        ns_grade_name(m->optimizer_grade));
	if (res->optimizer_classes > 1) /* the advice is for one of them: say which and why */
		fprintf(out, "; of %zu optimizer classes, %s holds the most time", res->optimizer_classes,
		        res->optimizer);
	fputc(')', out);
	if (d->overall.cause_ns[NS_CAUSE_OPTIMIZER] > 0) /* the part of it that leaves the device waiting */
		fprintf(out, ", the GPU idle for %.0f%% of the step inside it with no op recorded",
		        100.0 * share(d->overall.cause_ns[NS_CAUSE_OPTIMIZER], d->overall.dur_ns));
	if (d->optimizer_launch_ns > 0) /* and while it launches its kernels one by one */
		fprintf(out, "%s %.0f%% of the step while it launches its kernels",
		        d->overall.cause_ns[NS_CAUSE_OPTIMIZER] > 0 ? ", and for" : ", the GPU idle for",
		        100.0 * share(d->optimizer_launch_ns, d->overall.dur_ns));
	if (f->fix != NULL)
		fprintf(out, " -> %s (%s)", m->optimizer_fix, f->module != NULL ? f->module : "");
	fputc('\n', out);
}

void report_print_passes_also(FILE *out, const ns_split_result *res, const ns_split_device *d,
                              const ns_device_report *m)
{
	if (m->optimizer_also)
		print_finding(out, "also", res, d, m);
}

void report_print_passes(FILE *out, const ns_split_result *res, const ns_split_device *d,
                         const ns_device_report *m)
{
	const ns_split_pass_time *t = &d->passes;
	int64_t dur = d->overall.dur_ns;

	if (res->passes == NULL)
		return;
	fputs("phases (host timeline, share of the step):", out);
	for (int k = 0; k < NS_PASS_COUNT; k++)
		if (res->pass_marked[k])
			fprintf(out, " %s %.1f%%,", pass_names[k], 100.0 * share(t->ns[k], dur));
		else
			fprintf(out, " %s not marked,", pass_names[k]);
	fprintf(out, " other %.1f%%\n", 100.0 * share(other_ns(t, dur), dur));
	if (m->optimizer_grade != NS_GRADE_NONE)
		print_finding(out, "finding", res, d, m);
}

static cJSON *finding_json(const ns_split_result *res, const ns_device_report *m)
{
	const ns_route *f = &m->routes.finding[NS_FINDING_OPTIMIZER];
	cJSON *obj;

	if (m->optimizer_grade == NS_GRADE_NONE)
		return cJSON_CreateNull();
	obj = cJSON_CreateObject();
	if (obj == NULL || !cJSON_AddStringToObject(obj, "finding", ns_finding_name(NS_FINDING_OPTIMIZER)) ||
	    !cJSON_AddNumberToObject(obj, "share", m->optimizer_share) ||
	    !cJSON_AddStringToObject(obj, "grade", ns_grade_name(m->optimizer_grade)) ||
	    !(res->optimizer[0] != '\0' ? cJSON_AddStringToObject(obj, "optimizer", res->optimizer)
	                                : cJSON_AddNullToObject(obj, "optimizer")) ||
	    !cJSON_AddNumberToObject(obj, "optimizer_classes", (double)res->optimizer_classes) ||
	    !cJSON_AddBoolToObject(obj, "fused", res->optimizer_fused) ||
	    !(f->module != NULL ? cJSON_AddStringToObject(obj, "module", f->module)
	                        : cJSON_AddNullToObject(obj, "module")) ||
	    !(f->fix != NULL ? cJSON_AddStringToObject(obj, "fix", m->optimizer_fix)
	                     : cJSON_AddNullToObject(obj, "fix")) ||
	    !(f->next_check != NULL ? cJSON_AddStringToObject(obj, "next_check", f->next_check)
	                            : cJSON_AddNullToObject(obj, "next_check"))) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

bool report_passes_add_json(cJSON *window, const ns_split_result *res, const ns_split_pass_time *t,
                            int64_t dur, const ns_device_report *m)
{
	cJSON *obj;

	if (res->passes == NULL)
		return true;
	obj = cJSON_AddObjectToObject(window, "phases");
	if (obj == NULL)
		return false;
	for (int k = 0; k < NS_PASS_COUNT; k++) {
		char key[32];
		snprintf(key, sizeof(key), "%s_us", pass_names[k]);
		if (!cJSON_AddNumberToObject(obj, key, (double)t->ns[k] / 1e3))
			return false;
	}
	if (!cJSON_AddNumberToObject(obj, "other_us", (double)other_ns(t, dur) / 1e3))
		return false;
	if (m != NULL) { /* once per device, not per step: which of the zeros above mean "not marked" */
		cJSON *unmarked = cJSON_AddArrayToObject(obj, "not_marked");
		for (int k = 0; unmarked != NULL && k < NS_PASS_COUNT; k++)
			if (!res->pass_marked[k] &&
			    !cJSON_AddItemToArray(unmarked, cJSON_CreateString(pass_names[k])))
				return false;
		if (unmarked == NULL)
			return false;
	}
	if (m != NULL) {
		cJSON *f = finding_json(res, m);
		if (f == NULL || !cJSON_AddItemToObject(obj, "finding", f)) {
			cJSON_Delete(f);
			return false;
		}
	}
	return true;
}
