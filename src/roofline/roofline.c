#define _POSIX_C_SOURCE 200809L
#include "nextstep/roofline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

ns_regime ns_roofline_bound(double intensity, double ridge)
{
	return intensity >= ridge ? NS_REGIME_COMPUTE : NS_REGIME_MEMORY;
}

static bool positive_finite(double x)
{
	return isfinite(x) && x > 0.0;
}

/* A quotient of two valid inputs can still leave the doubles (1e-200 / 1e200 is 0, 1e308 / 1e-308 is
 * infinite): such a result is an error naming the inputs, never a number to print or plot. */
/* A value error about the work the caller gave (NS_ROOFLINE_PARAM_WORK), printf-style. */
#define work_error(err, ...)                                                                                 \
	(ns_error_set((err), NS_ERR_VALUE, __VA_ARGS__), ns_error_set_param((err), NS_ROOFLINE_PARAM_WORK))

/* param: NS_ROOFLINE_PARAM_WORK when the numbers are the caller's work, 0 when they are the device's. */
static ns_status check_quotient(double q, const char *what, const char *num_name, double num,
                                const char *den_name, double den, int param, ns_error *err)
{
	if (positive_finite(q))
		return NS_OK;
	ns_error_set(err, NS_ERR_VALUE, "%s (%s %g / %s %g) is %s: out of the range of a double", what,
	             num_name, num, den_name, den, q > 0 ? "infinite" : "0");
	return ns_error_set_param(err, param);
}

static ns_status place_timed(const ns_roofline_input *in, ns_roofline_result *out, ns_error *err)
{
	out->timed = true;
	out->achieved_flops = in->flops / in->seconds;
	out->achieved_bytes_per_s = in->bytes / in->seconds;
	if (check_quotient(out->achieved_flops, "the achieved FLOP/s", "FLOP count", in->flops, "time (s)",
	                   in->seconds, NS_ROOFLINE_PARAM_WORK, err) != NS_OK ||
	    check_quotient(out->achieved_bytes_per_s, "the achieved bytes/s", "byte count", in->bytes,
	                   "time (s)", in->seconds, NS_ROOFLINE_PARAM_WORK, err) != NS_OK)
		return err->status;
	out->fraction_of_roof = out->achieved_flops / out->attainable;
	out->fraction_compute = out->achieved_flops / in->peak;
	out->fraction_memory = out->achieved_bytes_per_s / in->bandwidth;
	if (check_quotient(out->fraction_of_roof, "the fraction of the roof", "achieved FLOP/s",
	                   out->achieved_flops, "attainable FLOP/s", out->attainable, NS_ROOFLINE_PARAM_WORK,
	                   err) != NS_OK ||
	    check_quotient(out->fraction_compute, "the fraction of the compute peak", "achieved FLOP/s",
	                   out->achieved_flops, "peak FLOP/s", in->peak, NS_ROOFLINE_PARAM_WORK,
	                   err) != NS_OK ||
	    check_quotient(out->fraction_memory, "the fraction of the bandwidth", "achieved bytes/s",
	                   out->achieved_bytes_per_s, "bandwidth", in->bandwidth, NS_ROOFLINE_PARAM_WORK,
	                   err) != NS_OK)
		return err->status;
	out->above_roof = out->fraction_of_roof > NS_ROOFLINE_ABOVE_ROOF_SLACK;
	if (out->fraction_compute < in->overhead_threshold && out->fraction_memory < in->overhead_threshold)
		out->regime = NS_REGIME_OVERHEAD;
	return NS_OK;
}

ns_status ns_roofline_place(const ns_roofline_input *in, ns_roofline_result *out, ns_error *err)
{
	ns_status st;

	memset(out, 0, sizeof(*out));
	if (!positive_finite(in->flops))
		return work_error(err, "the FLOP count must be a positive number");
	if (!positive_finite(in->bytes))
		return work_error(err, "the byte count must be a positive number");
	if (!positive_finite(in->peak) || !positive_finite(in->bandwidth))
		return ns_error_set(err, NS_ERR_VALUE,
		                    "the device needs a positive peak and memory bandwidth");
	out->intensity = in->flops / in->bytes;
	out->ridge = in->peak / in->bandwidth;
	out->attainable = fmin(in->peak, out->intensity * in->bandwidth);
	if ((st = check_quotient(out->intensity, "the arithmetic intensity", "FLOP count", in->flops,
	                         "byte count", in->bytes, NS_ROOFLINE_PARAM_WORK, err)) != NS_OK ||
	    (st = check_quotient(out->ridge, "the device's ridge point", "peak FLOP/s", in->peak, "bandwidth",
	                         in->bandwidth, 0, err)) != NS_OK ||
	    (st = check_quotient(out->attainable, "the attainable FLOP/s", "intensity", out->intensity,
	                         "1 / bandwidth", 1.0 / in->bandwidth, NS_ROOFLINE_PARAM_WORK, err)) !=
	        NS_OK) {
		memset(out, 0, sizeof(*out));
		return st;
	}
	out->regime = ns_roofline_bound(out->intensity, out->ridge);
	if (in->seconds <= 0.0)
		return NS_OK;
	if ((st = place_timed(in, out, err)) != NS_OK)
		memset(out, 0, sizeof(*out));
	return st;
}

static ns_status check_dtype(ns_dtype dt, ns_error *err)
{
	if (ns_dtype_bytes(dt) <= 0.0)
		return ns_error_set(err, NS_ERR_INTERNAL, "unknown dtype %d", (int)dt);
	return NS_OK;
}

ns_status ns_roofline_matmul(double m, double n, double k, double batch, ns_dtype dt, ns_roofline_work *w,
                             ns_error *err)
{
	double size = ns_dtype_bytes(dt);

	memset(w, 0, sizeof(*w));
	if (check_dtype(dt, err) != NS_OK)
		return err->status;
	if (!positive_finite(m) || !positive_finite(n) || !positive_finite(k) || !positive_finite(batch))
		return work_error(err, "matmul sizes and batch must be positive");
	w->flops = 2.0 * batch * m * n * k;
	w->bytes = batch * (m * k + k * n + m * n) * size;
	if (!positive_finite(w->flops) || !positive_finite(w->bytes))
		return work_error(
		    err, "matmul %gx%gx%g, batch %g: its FLOP or byte count is beyond the range of a double",
		    m, n, k, batch);
	snprintf(w->formula, sizeof(w->formula), "%s2*M*N*K FLOP; %s(M*K + K*N + M*N) * %g B",
	         batch > 1.0 ? "batch*" : "", batch > 1.0 ? "batch*" : "", size);
	return NS_OK;
}

ns_status ns_roofline_elementwise(double n, double inputs, double outputs, double flops_per_element,
                                  ns_dtype dt, ns_roofline_work *w, ns_error *err)
{
	double size = ns_dtype_bytes(dt);

	memset(w, 0, sizeof(*w));
	if (check_dtype(dt, err) != NS_OK)
		return err->status;
	if (!positive_finite(n) || !positive_finite(inputs) || !positive_finite(outputs) ||
	    !positive_finite(flops_per_element))
		return work_error(err, "elementwise sizes and counts must be positive");
	w->flops = n * flops_per_element;
	w->bytes = n * (inputs + outputs) * size;
	if (!positive_finite(w->flops) || !positive_finite(w->bytes))
		return work_error(
		    err, "elementwise %g elements: the FLOP or byte count is beyond the range of a double",
		    n);
	snprintf(w->formula, sizeof(w->formula), "N*%g FLOP; N*(%g in + %g out) * %g B", flops_per_element,
	         inputs, outputs, size);
	return NS_OK;
}

/* Per-sequence costs that grow with the batch, and the shared weight read that does not. The step reaches
 * the ridge when (2P + a) B / (W + k B) >= ridge, i.e. B >= ridge W / (2P + a - ridge k). */
static double crossing_batch(double params, double attn_per_seq, double weight_bytes, double kv_per_seq,
                             double ridge)
{
	double denom = 2.0 * params + attn_per_seq - ridge * kv_per_seq;

	if (!(ridge > 0.0) || denom <= 0.0)
		return 0.0;
	return fmax(1.0, ceil(ridge * weight_bytes / denom * (1.0 - 1e-12)));
}

ns_status ns_roofline_decode_step(const ns_roofline_decode_spec *s, ns_dtype dt, double ridge,
                                  ns_roofline_decode *out, ns_error *err)
{
	double size = ns_dtype_bytes(dt);
	double heads = s->heads > 0.0 ? s->heads : s->kv_heads;
	double kv_per_seq = 0.0, attn_per_seq = 0.0;

	memset(out, 0, sizeof(*out));
	if (check_dtype(dt, err) != NS_OK)
		return err->status;
	if (!positive_finite(s->params))
		return work_error(err, "a decode step needs a positive parameter count");
	if (!positive_finite(s->batch))
		return work_error(err, "the batch must be positive");
	if (s->context > 0.0) {
		if (!positive_finite(s->layers) || !positive_finite(s->kv_heads) ||
		    !positive_finite(s->head_dim))
			return work_error(err, "a KV-cache context needs the layers, KV heads and head size");
		kv_per_seq = 2.0 * s->layers * s->kv_heads * s->head_dim * s->context * size;
		attn_per_seq = 4.0 * s->layers * heads * s->head_dim * s->context;
	}
	out->weight_bytes = s->params * size;
	out->kv_bytes = kv_per_seq * s->batch;
	out->matmul_flops = 2.0 * s->params * s->batch;
	out->attention_flops = attn_per_seq * s->batch;
	out->work.flops = out->matmul_flops + out->attention_flops;
	out->work.bytes = out->weight_bytes + out->kv_bytes;
	if (!positive_finite(out->work.flops) || !positive_finite(out->work.bytes))
		return work_error(
		    err,
		    "decode step with %g parameters, batch %g, context %g: the FLOP or byte count "
		    "is beyond the range of a double",
		    s->params, s->batch, s->context);
	snprintf(out->work.formula, sizeof(out->work.formula), "%s; %s",
	         s->context > 0.0 ? "2*P*batch + 4*layers*heads*head_dim*context*batch FLOP"
	                          : "2*P*batch FLOP",
	         s->context > 0.0 ? "P*size + 2*layers*kv_heads*head_dim*context*batch*size B" : "P*size B");
	out->crossing_batch = crossing_batch(s->params, attn_per_seq, out->weight_bytes, kv_per_seq, ridge);
	return NS_OK;
}

ns_status ns_roofline_scaling(double t1, double t2, double overhead_below, double work_above,
                              ns_scaling_result *out, ns_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!positive_finite(t1) || !positive_finite(t2))
		return work_error(err, "both times must be positive");
	if (!(overhead_below > 0.0) || !(work_above >= overhead_below))
		return work_error(err, "the scaling thresholds must satisfy 0 < overhead <= work");
	out->ratio = t2 / t1;
	if (check_quotient(out->ratio, "the time ratio", "doubled time", t2, "time", t1,
	                   NS_ROOFLINE_PARAM_WORK, err) != NS_OK)
		return err->status;
	out->fixed_share = fmin(1.0, fmax(0.0, 2.0 - out->ratio));
	out->faster = out->ratio < 1.0;
	if (out->ratio < overhead_below)
		out->kind = NS_SCALING_OVERHEAD;
	else if (out->ratio < work_above)
		out->kind = NS_SCALING_PARTLY_OVERHEAD;
	else
		out->kind = NS_SCALING_WORK;
	return NS_OK;
}

const char *ns_scaling_kind_word(ns_scaling_kind k)
{
	switch (k) {
	case NS_SCALING_OVERHEAD:
		return "overhead-bound";
	case NS_SCALING_PARTLY_OVERHEAD:
		return "partly overhead-bound";
	case NS_SCALING_WORK:
		return "work-bound";
	}
	return "unknown";
}
