/* Roofline arithmetic: where a kernel's arithmetic intensity puts it against a device's compute and memory
 * roofs, what it achieved with a measured time, and the workload shorthands that count FLOPs and bytes.
 * Pure functions over numbers: nothing here reads files or prints. */
#ifndef NEXTSTEP_ROOFLINE_H
#define NEXTSTEP_ROOFLINE_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/roofline.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nextstep/api.h"
#include "nextstep/devices.h"
#include "nextstep/error.h"
#include "nextstep/regime.h"

NS_BEGIN_DECLS

/* Below this fraction of BOTH roofs a timed kernel is overhead-bound (too little work per launch). */
#define NS_ROOFLINE_OVERHEAD_DEFAULT 0.10
/* Achieved above the roof by more than this factor means the counts, the time or the device are wrong. */
#define NS_ROOFLINE_ABOVE_ROOF_SLACK 1.02

typedef struct {
	double flops, bytes;    /* the work; both > 0 */
	double peak, bandwidth; /* the roofs: FLOP/s for the dtype, bytes/s */
	double seconds;         /* measured time; <= 0 when not measured */
	double overhead_threshold;
} ns_roofline_input;

typedef struct {
	double intensity;  /* FLOP/B */
	double ridge;      /* FLOP/B where the roofs meet */
	double attainable; /* FLOP/s: min(peak, intensity * bandwidth) */
	ns_regime
	    regime; /* NS_REGIME_COMPUTE (at or above the ridge), NS_REGIME_MEMORY, or NS_REGIME_OVERHEAD */
	bool timed;
	double achieved_flops; /* FLOP/s, when timed */
	double achieved_bytes_per_s;
	double fraction_of_roof; /* achieved / attainable */
	double fraction_compute; /* achieved FLOP/s / peak */
	double fraction_memory;  /* achieved B/s / bandwidth */
	bool above_roof;         /* achieved exceeds the roof: check the inputs */
} ns_roofline_result;

/* ns_error.param of a value error about the work the caller gave (counts, sizes, times), as opposed to the
 * device's numbers (param 0). */
enum { NS_ROOFLINE_PARAM_WORK = 1 };

NS_STATIC_API ns_status ns_roofline_place(const ns_roofline_input *in, ns_roofline_result *out,
                                          ns_error *err);
/* The regime the roofs alone give (no time): compute at or above the ridge, memory below. */
NS_STATIC_API ns_regime ns_roofline_bound(double intensity, double ridge);

/* A workload's counts and how they were made. */
typedef struct {
	double flops, bytes;
	char formula[192]; /* e.g. "2*M*N*K FLOP; (M*K + K*N + M*N) * 2 B" */
} ns_roofline_work;

/* Batched matmul C[b] = A[b] (MxK) * B[b] (KxN): FLOPs 2*b*M*N*K; ideal reuse: A and B read once, C written
 * once: b*(M*K + K*N + M*N) elements of the dtype. */
NS_STATIC_API ns_status ns_roofline_matmul(double m, double n, double k, double batch, ns_dtype dt,
                                           ns_roofline_work *w, ns_error *err);
/* N elements, each reading `inputs` and writing `outputs` values and doing flops_per_element FLOPs:
 * FLOPs N*f; bytes N*(inputs + outputs)*size. */
NS_STATIC_API ns_status ns_roofline_elementwise(double n, double inputs, double outputs,
                                                double flops_per_element, ns_dtype dt, ns_roofline_work *w,
                                                ns_error *err);

/* One decode step of a transformer (one new token for each of `batch` sequences). */
typedef struct {
	double params;  /* parameter count */
	double batch;   /* sequences decoded together, >= 1 */
	double context; /* tokens already in each sequence's KV cache; 0 = ignore the cache */
	double layers, kv_heads, head_dim; /* needed when context > 0 */
	double heads; /* query heads; 0 = same as kv_heads (no grouped-query attention) */
} ns_roofline_decode_spec;

typedef struct {
	ns_roofline_work work;
	double weight_bytes;    /* params * size: every weight is read once per step, whatever the batch */
	double kv_bytes;        /* 2 (K and V) * layers * kv_heads * head_dim * context * batch * size */
	double matmul_flops;    /* 2 * params * batch */
	double attention_flops; /* 4 * layers * heads * head_dim * context * batch (QK^T and AV) */
	double crossing_batch;  /* smallest batch whose step reaches the ridge; 0 when no batch does */
} ns_roofline_decode;

NS_STATIC_API ns_status ns_roofline_decode_step(const ns_roofline_decode_spec *s, ns_dtype dt, double ridge,
                                                ns_roofline_decode *out, ns_error *err);

/* The batch-doubling test: t1 for the work, t2 for twice the work. */
#define NS_SCALING_OVERHEAD_BELOW 1.25 /* ratio below this: at least 75% of the step is fixed cost */
#define NS_SCALING_WORK_ABOVE     1.75 /* ratio at or above this: at most 25% is fixed cost */

typedef enum { NS_SCALING_OVERHEAD, NS_SCALING_PARTLY_OVERHEAD, NS_SCALING_WORK } ns_scaling_kind;

typedef struct {
	double ratio;       /* t2 / t1 */
	double fixed_share; /* 2 - ratio, clamped to [0,1]: t1 = fixed + work, t2 = fixed + 2*work */
	ns_scaling_kind kind;
	bool faster; /* the doubled run was faster: noise or warm-up, measure again */
} ns_scaling_result;

NS_STATIC_API ns_status ns_roofline_scaling(double t1, double t2, double overhead_below, double work_above,
                                            ns_scaling_result *out, ns_error *err);
NS_STATIC_API const char *ns_scaling_kind_word(ns_scaling_kind k);

NS_END_DECLS

#endif
