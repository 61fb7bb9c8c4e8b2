/* The op-level roofline as the next step's input (issue 21): each kernel class of a device, how much of its
 * time is in placed ops, and the time those ops would take at the roof the class's fix can reach. The
 * placement sums the ops of the whole trace; the split's windows are its steps, so the next step uses the
 * ratios (docs/next-step.md, "Roofline"). */
#include <string.h>

#include "nextstep/trace_roofline.h"
#include "util/satmath.h"

/* A family is named when it holds at least this share of its bucket's placed time. */
#define NAMED_FAMILY_SHARE 0.05

static void none(ns_roof_time *t, const char *why, bool no_shapes)
{
	memset(t, 0, sizeof(*t));
	t->state = NS_ROOF_NONE;
	t->why = why;
	t->no_shapes = no_shapes;
}

static int gpu_devices(const ns_split_result *res)
{
	return res->gpu_activity ? (int)res->ndevices : 0;
}

static void families_of(const ns_troof_bucket *b, ns_roof_time *t)
{
	for (size_t i = 0; i < b->nfamilies && t->nfamilies < NS_ROOF_FAMILIES; i++) {
		ns_op_family f = b->families[i];
		int64_t exact = b->family_gpu_ns[f];
		if (exact <= 0 || (double)exact < NAMED_FAMILY_SHARE * (double)b->gpu_ns)
			continue;
		t->family[t->nfamilies] = f;
		t->family_fraction[t->nfamilies] = ns_troof_bucket_fraction(b, f);
		t->nfamilies++;
	}
}

static int64_t round_ns(double ns)
{
	return ns > 0.0 ? (int64_t)(ns + 0.5) : 0;
}

static void class_time(const ns_troof_report *r, const ns_troof_bucket *b, int64_t kernel_ns, ns_roof_time *t)
{
	/* the split's class time is clipped to the steps; the placement's ops of the bucket, placed or not,
	 * are not: the larger is the class's time the placement had to cover */
	int64_t covered = ns_sat_add_i64(ns_sat_add_i64(b->gpu_ns, b->unplaced_ns), b->bound_ns);

	if (b->gpu_ns <= 0) {
		none(t, r->placed > 0 ? "no op of these kernels placed" : "no op placed", false);
		return;
	}
	memset(t, 0, sizeof(*t));
	t->state = NS_ROOF_PLACED;
	t->kernel_ns = kernel_ns > covered ? kernel_ns : covered;
	t->placed_ns = b->gpu_ns;
	t->roof_ns = round_ns(b->reach_ns);
	t->own_roof_ns = round_ns((double)b->gpu_ns - b->headroom_ns);
	t->fp32_ns = b->fp32_ns;
	t->half = r->half_dtype;
	t->fp8_ns = b->fp8_ns;
	t->fp8_roof_ns = b->fp8_ns > 0 ? round_ns(b->fp8_reach_ns) : t->roof_ns;
	families_of(b, t);
}

void ns_troof_roof_times(const ns_troof_report *r, const ns_split_result *res, const ns_split_device *d,
                         ns_roof_time out[NS_KCLASS_COUNT])
{
	const char *why = NULL;

	if (r->no_shapes)
		why = "the trace records no op shapes";
	else if (!r->device_known)
		why = "the device has no roofs in the device table";
	else if (gpu_devices(res) != 1)
		why = "the placement sums the ops of every device, not of one";
	else if (r->placed == 0)
		why = r->ops == 0 ? "no op with GPU time" : "no op placed";
	for (int k = 0; k < NS_KCLASS_COUNT; k++)
		none(&out[k], why != NULL ? why : "collectives are bound by the network, not a roof",
		     r->no_shapes && !res->nsys); /* an export's shapes are no profiler option away */
	if (why != NULL)
		return;
	class_time(r, &r->buckets[NS_TROOF_COMPUTE], d->class_ns[NS_KCLASS_COMPUTE], &out[NS_KCLASS_COMPUTE]);
	class_time(r, &r->buckets[NS_TROOF_MEMORY], d->class_ns[NS_KCLASS_MEMORY] - d->transfer_ns,
	           &out[NS_KCLASS_MEMORY]);
}

bool ns_troof_roof(void *ctx, const ns_split_device *d, ns_roof_time *out)
{
	const ns_troof_roof_ctx *c = ctx;

	ns_troof_roof_times(c->report, c->res, d, out);
	return true;
}
