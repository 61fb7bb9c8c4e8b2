/* The routes the trace's evidence gives a device (report_evidence_routes): set-up that records CUDA graphs,
 * the Python frames behind host time (report_python.c), and the specific fix the kernels support
 * (docs/trace.md, "Which fix: what the kernels say"): a memory bucket whose kernels are largely layout
 * transposes around convolutions is fixed by channels_last, and a compute bucket of fp32 GEMMs and
 * convolutions on a GPU with tensor cores by autocast or TF32, with the peak ratio from the device table. */
#include <stdio.h>
#include <string.h>

#include "trace/report/report_private.h"
#include "util/text.h"

/* Layout transforms hold at least this share of the memory-class kernel time: a tenth is where removing them
 * shows in the memory bucket at the report's precision on a memory-bound verdict, and where an expert reading
 * the kernel table would name them. */
#define LAYOUT_SHARE 0.10
/* fp32 SIMT kernels hold at least this share of the compute-class time: the cause-majority rule. */
#define FP32_SHARE 0.5

/* cuDNN's NCHW<->NHWC conversions (cudnn::ops:: and cudnn::engines_precompiled::nchwToNhwcKernel,
 * nhwcToNchwKernel) and MIOpen's batched_transpose kernels. Substrings of the kernel's name. */
static const char *const layout_marks[] = {"nchwToNhwc", "nhwcToNchw", "batched_transpose", NULL};

/* GEMMs and convolutions that run fp32 on the CUDA cores: cuBLAS's SIMT sgemm (ampere_sgemm_*,
 * volta_sgemm_*), cuDNN's fp32 convolution engines (implicit_convolve_sgemm, *_scudnn_*, dgrad_engine<float,
 * wgrad_alg*_engine <float), and CUTLASS/xmma SIMT fp32 (gemm_f32f32_f32f32). A name that also says a
 * tensor-core type is not. */
static const char *const fp32_marks[] = {"sgemm",
                                         "scudnn",
                                         "dgrad_engine<float",
                                         "wgrad_alg0_engine<float",
                                         "wgrad_alg1_engine<float",
                                         "gemm_f32f32_f32f32",
                                         NULL};
static const char *const tensor_marks[] = {"tf32", "bf16", "fp16",  "f16", "hmma",
                                           "884",  "1688", "16816", NULL};

static bool has_any(const char *name, const char *const *marks)
{
	for (const char *const *m = marks; *m != NULL; m++)
		if (strstr(name, *m) != NULL)
			return true;
	return false;
}

/* The time of d's kernels of class cls whose names carry a mark (and none of the excluded marks). */
static int64_t marked_ns(const ns_split_result *res, const ns_split_device *d, ns_kernel_class cls,
                         const char *const *marks, const char *const *excluded)
{
	int64_t t = 0;

	for (size_t i = 0; i < d->nkernel_time; i++) {
		const ns_split_kernel_time *k = &d->kernel_time[i];
		const char *name = k->cls == cls ? ns_kernel_names_get(res->names, k->name_id) : NULL;
		if (name != NULL && has_any(name, marks) && (excluded == NULL || !has_any(name, excluded)))
			t += k->ns;
	}
	return t;
}

char *report_subst(const char *text, const char *key, const char *value, char *buf, size_t size)
{
	const char *at = strstr(text, key);

	if (at == NULL)
		snprintf(buf, size, "%s", text);
	else
		snprintf(buf, size, "%.*s%s%s", (int)(at - text), text, value, at + strlen(key));
	return buf;
}

/* The best low-precision tensor-core peak of dev above its fp32 peak (NS_DTYPE_COUNT: none). */
static ns_dtype best_low_peak(const ns_device *dev)
{
	static const ns_dtype low[] = {NS_DTYPE_BF16, NS_DTYPE_FP16, NS_DTYPE_TF32};
	ns_dtype best = NS_DTYPE_COUNT;

	for (size_t i = 0; dev->peak[NS_DTYPE_FP32] > 0 && i < sizeof(low) / sizeof(low[0]); i++)
		if (dev->peak[low[i]] > dev->peak[NS_DTYPE_FP32] &&
		    (best == NS_DTYPE_COUNT || dev->peak[low[i]] > dev->peak[best]))
			best = low[i];
	return best;
}

/* That peak against fp32, in words: "8.0x its fp32 peak (fp16 125 vs fp32 15.7 TFLOP/s, V100 SXM2)". */
static void peak_words(const ns_device *dev, ns_dtype best, char *buf, size_t size)
{
	snprintf(buf, size, "%.1fx its fp32 peak (%s %.4g vs fp32 %.4g TFLOP/s, %s)",
	         dev->peak[best] / dev->peak[NS_DTYPE_FP32], ns_dtype_name(best), dev->peak[best] / 1e12,
	         dev->peak[NS_DTYPE_FP32] / 1e12, dev->name);
}

/* The kernels' fixes: the memory-bound kernels' (out's kernels cause) when layout transforms hold their share
 * of the memory-class time, the compute bucket's when fp32 SIMT kernels hold most of the compute time on a
 * GPU of devices whose tensor cores beat fp32 (then prec says how much and by what peak ratio). */
static void kernel_routes(const ns_route_evidence *ev, const char *name, const ns_device_table *devices,
                          const ns_routes *in, ns_routes *out, char fixes[][NS_REPORT_FIX_MAX],
                          report_precision *prec)
{
	int64_t mem = ev->memory_ns, comp = ev->compute_ns, layout = ev->layout_ns, fp32 = ev->fp32_ns;
	const ns_device *dev = devices != NULL && name != NULL && name[0] != '\0'
	                           ? ns_devices_match_trace_name(devices, name)
	                           : NULL;
	const ns_route *lt = &in->finding[NS_FINDING_LAYOUT_TRANSFORM],
	               *tc = &in->finding[NS_FINDING_FP32_TENSOR_CORES];
	ns_dtype best = dev != NULL ? best_low_peak(dev) : NS_DTYPE_COUNT;
	char share[32], peak[160], tmp[NS_REPORT_FIX_MAX];

	if (mem > 0 && layout > 0 && (double)layout >= LAYOUT_SHARE * (double)mem && lt->fix != NULL) {
		snprintf(share, sizeof(share), "%.0f%%", 100.0 * (double)layout / (double)mem);
		out->cause[NS_CAUSE_KERNELS] = *lt;
		out->cause[NS_CAUSE_KERNELS].fix =
		    report_subst(lt->fix, "{share}", share, fixes[REPORT_FIX_MEMORY], NS_REPORT_FIX_MAX);
	}
	if (best != NS_DTYPE_COUNT && comp > 0 && fp32 > 0 && (double)fp32 >= FP32_SHARE * (double)comp &&
	    tc->fix != NULL) {
		peak_words(dev, best, peak, sizeof(peak));
		prec->fp32_share = (double)fp32 / (double)comp;
		prec->tensor_ratio = dev->peak[best] / dev->peak[NS_DTYPE_FP32];
		snprintf(share, sizeof(share), "%.0f%%", 100.0 * (double)fp32 / (double)comp);
		out->route[NS_REGIME_COMPUTE] = *tc;
		report_subst(tc->fix, "{share}", share, tmp, sizeof(tmp));
		out->route[NS_REGIME_COMPUTE].fix =
		    report_subst(tmp, "{peak}", peak, fixes[REPORT_FIX_COMPUTE], NS_REPORT_FIX_MAX);
	}
}

/* An inference server (its steps have a prefill/decode phase) runs no backward pass: its collectives move
 * activations between tensor-parallel layers (and tokens between experts), so the training advice "bucket
 * gradients" does not apply (docs/trace.md, "Inference"). */
static bool inference_comm_routes(const ns_route_evidence *ev, const ns_split_window *w, const ns_routes *in,
                                  ns_routes *out)
{
	const ns_route *tp = &in->finding[NS_FINDING_TP_COLLECTIVES];

	if (!ev->inference)
		return false;
	if (tp->fix != NULL && w->cause_ns[NS_CAUSE_EXPOSED] > 0) {
		out->cause[NS_CAUSE_EXPOSED] = *tp;
		out->route[NS_REGIME_COMM] = *tp;
	}
	return true;
}

/* A training job's exposed collectives that are mostly tensor-parallel (their process group's description
 * says so, or, without one, they are all-reduces launched in the forward pass) are activations on every
 * layer's path: bucketing gradients or overlapping them with backward does not touch them (docs/trace.md,
 * "Which collectives"). TP_SHARE of the exposed collective time: the cause-majority rule. */
#define TP_SHARE 0.5
static void training_comm_routes(const ns_route_evidence *ev, const ns_split_window *w, const ns_routes *in,
                                 ns_routes *out)
{
	const ns_route *tp = &in->finding[NS_FINDING_TP_TRAINING];

	if (ev->tp_exposed_ns <= 0 || (double)ev->tp_exposed_ns < TP_SHARE * (double)ev->coll_exposed_ns ||
	    tp->fix == NULL || w->cause_ns[NS_CAUSE_EXPOSED] <= 0)
		return;
	out->cause[NS_CAUSE_EXPOSED] = *tp;
	out->route[NS_REGIME_COMM] = *tp;
}

/* Memory-bound kernels that are mostly GEMMs whose shapes make them memory-bound (a row or two a sequence)
 * in a trace without a backward pass are an inference's weight reads, as a decode step's are: the lever is
 * more rows per read (batching) and fewer bytes per weight (quantisation), not fusion (docs/trace.md,
 * "GEMMs whose shapes make them memory-bound"). A training step's keeps the memory route. */
static void weight_read_routes(const ns_route_evidence *ev, const ns_routes *in, ns_routes *out)
{
	const ns_route *r = &in->finding[NS_FINDING_DECODE_MEMORY];

	if (ev->backward || ev->shape_gemm_ns <= 0 || r->fix == NULL ||
	    (double)ev->shape_gemm_ns < CAUSE_MAJORITY * (double)ev->memory_ns)
		return;
	out->cause[NS_CAUSE_KERNELS] = *r;
	out->route[NS_REGIME_MEMORY] = *r;
}

/* A program that runs no training step (inference phases, or neither a backward pass, an optimizer step nor a
 * named optimizer) captures its forward, not "forward, backward and the optimizer", and serves its GEMMs in
 * fp8 rather than training them so: the step capture's and the fp8 finding's words are the inference ones. A
 * summary that does not say (optimizer_known false) keeps the training words. */
static void inference_routes(const ns_route_evidence *ev, const ns_routes *in, ns_routes *out)
{
	const ns_route *r = &in->finding[NS_FINDING_STEP_CAPTURE_INFERENCE],
	               *fp8 = &in->finding[NS_FINDING_FP8_GEMMS_INFERENCE];
	bool trains = ev->backward || ev->optimizer_pass || !ev->optimizer_known || ev->optimizer[0] != '\0';

	if (!ev->inference && trains)
		return;
	if (r->fix != NULL)
		out->finding[NS_FINDING_STEP_CAPTURE] = *r;
	if (fp8->fix != NULL)
		out->finding[NS_FINDING_FP8_GEMMS] = *fp8;
}

bool report_alloc_recurs(int64_t alloc_ns, int64_t init_ns, size_t counted, size_t with_init)
{
	return init_ns > 0 && (double)alloc_ns >= CAUSE_MAJORITY * (double)init_ns && with_init >= 2 &&
	       2 * with_init >= counted;
}

bool report_stalls_dominate(int64_t stalls, int64_t stall_ns, int64_t idle_ns, int64_t launch_ns,
                            int64_t window_ns)
{
	/* they fit in the window (the trace's stalls include those before it); a stall costs the step only
	 * while the device has nothing to run, so only that part is weighed against the launch time: a launch
	 * blocked by a full queue runs under busy kernels and weighs nothing, however many there are. No cap
	 * on their number a step: a call that stalls with the device idle is the host's however often (docs/
	 * trace.md, "Host stalls"), and one stalled at most launches raises the median, so is no stall. */
	return launch_ns > 0 && stalls >= 2 && stall_ns <= window_ns &&
	       (double)idle_ns >= CAUSE_MAJORITY * (double)launch_ns;
}

/* The host's own routes are PyTorch's (the caching allocator, Python's host jitter): a PyTorch profiler
 * trace, or an export whose program is Python. */
static bool pytorch_program(const ns_route_evidence *ev)
{
	return !(ev->nsys && ev->program.kind != NS_PROGRAM_PYTHON);
}

#define OLD_STALLS_PER_STEP 4

/* Launch overhead that is mostly the trace's stalls of trivial calls (report_stalls_dominate) is host jitter,
 * not dispatch: its route says where the CPU went. */
static bool stall_routes(const ns_route_evidence *ev, const report_device_facts *f, const ns_routes *in,
                         ns_routes *out)
{
	const ns_route *r = &in->finding[NS_FINDING_HOST_STALLS];

	/* a summary written before the idle part was: the stalls count whole, as they did, and so does the
	 * rule of at most four a step that stood for the idle part then (a full launch queue stalls more) */
	int64_t idle = ev->host_stall_idle_known ? ev->host_stall_idle_ns : ev->host_stall_ns;
	bool rare = ev->host_stall_idle_known ||
	            ev->host_stalls <= OLD_STALLS_PER_STEP * (int64_t)(f->nsteps > 0 ? f->nsteps : 1);

	if (r->fix != NULL && pytorch_program(ev) && rare &&
	    report_stalls_dominate(ev->host_stalls, ev->host_stall_ns, idle,
	                           f->overall->cause_ns[NS_CAUSE_LAUNCH], f->overall->dur_ns)) {
		out->cause[NS_CAUSE_LAUNCH] = *r;
		return true;
	}
	return false;
}

/* Launch overhead of a window whose kernel time is mostly graph replays: the program already uses CUDA
 * graphs, so their advice would be no advice; what is left is the host between the replays (docs/trace.md,
 * "Capturing the step"). Frames that name preprocessing keep their route: they say more. */
static void graphed_routes(const report_device_facts *f, const ns_routes *in, ns_routes *out)
{
	const ns_route *r = &in->finding[NS_FINDING_LAUNCH_GRAPHED];
	const ns_split_window *w = f->overall;

	if (r->fix == NULL || w->kernel_ns <= 0 || 2 * w->graph_ns < w->kernel_ns)
		return;
	if (out->cause[NS_CAUSE_LAUNCH].fix == in->cause[NS_CAUSE_LAUNCH].fix ||
	    out->cause[NS_CAUSE_LAUNCH].fix == in->finding[NS_FINDING_LAUNCH_COMPILED].fix)
		out->cause[NS_CAUSE_LAUNCH] = *r;
}

bool report_host_op_dominates(int64_t idle_ns, int64_t calls, int64_t host_ns, int64_t launches,
                              int64_t launch_ns)
{
	/* per launch, not per call: an op that spends milliseconds launching hundreds of kernels (a
	 * compiled graph, a fused optimizer over many tensors, an LSTM) is dispatch, which the launch route
	 * fixes; one that spends them before a kernel or two is doing its own CPU work */
	int64_t per_launch = host_ns / (launches > 0 ? launches : 1);

	return launch_ns > 0 && calls > 0 && (double)idle_ns >= CAUSE_MAJORITY * (double)launch_ns &&
	       per_launch >= REPORT_HOST_OP_PER_LAUNCH_NS;
}

/* The fix for a slow host op, by its name: a substring of the op's name and the finding whose route says
 * why that op is slow and what replaces it; the last entry (no mark) is every other op's. Only ops whose
 * host-side cost is documented by their library belong here (docs/trace.md, "A slow host op"). */
static const struct {
	const char *mark;
	ns_finding_kind finding;
} host_op_fixes[] = {
    /* aten::_cudnn_attention_forward/_backward, aten::_scaled_dot_product_cudnn_attention: cuDNN's
     * SDPA builds (and caches) an execution plan per input shape */
    {"cudnn_attention", NS_FINDING_HOST_OP_CUDNN_ATTENTION},
    {NULL, NS_FINDING_SLOW_HOST_OP},
};

static ns_finding_kind host_op_finding(const char *op)
{
	size_t i = 0;

	while (host_op_fixes[i].mark != NULL && strstr(op, host_op_fixes[i].mark) == NULL)
		i++;
	return host_op_fixes[i].finding;
}

/* Launch overhead that is mostly one op's own host time (report_host_op_dominates) is that op's: its route
 * names it, and the rest of the launch time keeps the route it had (prec->launch_rest). */
static void host_op_routes(const ns_route_evidence *ev, const report_device_facts *f, const ns_routes *in,
                           ns_routes *out, char *buf, report_precision *prec)
{
	ns_finding_kind k;
	const ns_route *r;

	if (ev->host_op == NULL || !pytorch_program(ev) ||
	    !report_host_op_dominates(ev->host_op_idle_ns, ev->host_op_calls, ev->host_op_host_ns,
	                              ev->host_op_launches, f->overall->cause_ns[NS_CAUSE_LAUNCH]))
		return;
	k = host_op_finding(ev->host_op);
	r = &in->finding[k];
	if (r->fix == NULL)
		return;
	prec->host_op = true;
	ns_text_escape(ev->host_op, strlen(ev->host_op), prec->host_op_name, sizeof(prec->host_op_name));
	prec->host_op_finding = k;
	prec->host_op_idle_ns = ev->host_op_idle_ns;
	prec->host_op_calls = ev->host_op_calls;
	prec->host_op_host_ns = ev->host_op_host_ns;
	prec->host_op_launches = ev->host_op_launches;
	prec->launch_rest = out->cause[NS_CAUSE_LAUNCH];
	out->cause[NS_CAUSE_LAUNCH] = *r;
	out->cause[NS_CAUSE_LAUNCH].fix =
	    report_subst(r->fix, "{op}", prec->host_op_name, buf, NS_REPORT_FIX_MAX);
}

/* Set-up time that recurs in the steady steps and is the allocator's (report_alloc_recurs) is the caching
 * allocator's, not start-up (docs/trace.md, "Set-up that recurs"). */
static void recurring_alloc_routes(const ns_route_evidence *ev, const report_device_facts *f,
                                   const ns_routes *in, ns_routes *out)
{
	const ns_route *r = &in->finding[NS_FINDING_ALLOC_STEPS];

	if (r->fix != NULL && pytorch_program(ev) &&
	    report_alloc_recurs(ev->alloc_ns, f->overall->cause_ns[NS_CAUSE_INIT], f->counted, f->with_init))
		out->cause[NS_CAUSE_INIT] = *r;
}

void report_routes_of_evidence(const ns_route_evidence *ev, const report_device_facts *f,
                               const ns_device_table *devices, const ns_routes *in, ns_routes *out,
                               char fixes[][NS_REPORT_FIX_MAX], report_precision *prec)
{
	const ns_split_window *w = f->overall;

	*out = *in;
	memset(prec, 0, sizeof(*prec));
	/* set-up that mostly records CUDA graphs is a capture: its advice is to profile the replays */
	if (report_startup_route_of(ev->capture_ns, w->cause_ns[NS_CAUSE_INIT], in) ==
	    &in->finding[NS_FINDING_GRAPH_CAPTURE])
		out->cause[NS_CAUSE_INIT] = in->finding[NS_FINDING_GRAPH_CAPTURE];
	else
		recurring_alloc_routes(ev, f, in, out);
	report_python_route(ev, w, NS_CAUSE_HOST_GAP, in, &out->cause[NS_CAUSE_HOST_GAP],
	                    fixes[REPORT_FIX_HOST_GAP], NS_REPORT_FIX_MAX);
	report_python_route(ev, w, NS_CAUSE_LAUNCH, in, &out->cause[NS_CAUSE_LAUNCH],
	                    fixes[REPORT_FIX_LAUNCH], NS_REPORT_FIX_MAX);
	graphed_routes(f, in, out);
	if (!stall_routes(ev, f, in, out)) /* the stalls, not the Python between the ops */
		host_op_routes(ev, f, in, out, fixes[REPORT_FIX_HOST_OP], prec);
	if (ev->nsys)
		report_export_routes(&ev->program, in, out, fixes);
	kernel_routes(ev, f->name, devices, in, out, fixes, prec);
	weight_read_routes(ev, in, out);
	inference_routes(ev, in, out);
	if (!inference_comm_routes(ev, w, in, out))
		training_comm_routes(ev, w, in, out);
}

/* ---- the evidence of a split's device ---- */

static void python_evidence(const ns_split_result *res, const ns_split_python_cause *p,
                            ns_evidence_python *out)
{
	out->framed_ns = p->framed_ns;
	for (size_t k = 0; k < p->ntop && out->nframes < NS_EVIDENCE_FRAMES; k++) {
		out->frame[out->nframes].name = ns_kernel_names_get(res->python_names, p->top[k].name_id);
		out->frame[out->nframes++].ns = p->top[k].ns;
	}
}

void ns_route_evidence_of(const ns_split_result *res, const ns_split_device *d, ns_route_evidence *out)
{
	memset(out, 0, sizeof(*out));
	out->python_frames = res->python_frames > 0;
	out->compiled = res->compiled;
	out->nsys = res->nsys;
	out->program = res->program;
	out->capture_ns = res->capture_ns;
	out->host_stalls = res->host_stalls;
	out->host_stall_ns = res->host_stall_ns;
	out->alloc_ns = res->alloc_ns;
	out->host_stall_idle_known = res->host_stalls > 0;
	out->host_stall_idle_ns = d->host_stall_idle_ns;
	if (out->python_frames) {
		python_evidence(res, &d->python[NS_CAUSE_HOST_GAP], &out->python[NS_EVIDENCE_HOST_GAP]);
		python_evidence(res, &d->python[NS_CAUSE_LAUNCH], &out->python[NS_EVIDENCE_LAUNCH]);
	}
	out->memory_ns = d->class_ns[NS_KCLASS_MEMORY];
	out->compute_ns = d->class_ns[NS_KCLASS_COMPUTE];
	out->layout_ns = out->memory_ns > 0 ? marked_ns(res, d, NS_KCLASS_MEMORY, layout_marks, NULL) : 0;
	out->fp32_ns =
	    out->compute_ns > 0 ? marked_ns(res, d, NS_KCLASS_COMPUTE, fp32_marks, tensor_marks) : 0;
	for (int p = NS_STEP_PHASE_PREFILL; p < NS_STEP_PHASE_COUNT; p++)
		out->inference = out->inference || d->phase_steps[p] > 0;
	out->shape_gemm_ns = d->shape_memory_gemm_ns;
	out->backward = d->passes.ns[NS_PASS_BACKWARD] > 0;
	out->optimizer_pass = d->passes.ns[NS_PASS_OPTIMIZER] > 0;
	out->optimizer_known = true;
	snprintf(out->optimizer, sizeof(out->optimizer), "%s", res->optimizer);
	out->optimizer_fused = res->optimizer_fused;
	out->optimizer_launch_ns = d->optimizer_launch_ns;
	if (d->host_op.idle_ns > 0 && res->host_op_names != NULL) {
		out->host_op = ns_kernel_names_get(res->host_op_names, d->host_op.name_id);
		out->host_op_idle_ns = d->host_op.idle_ns;
		out->host_op_calls = d->host_op.calls;
		out->host_op_host_ns = d->host_op.host_ns;
		out->host_op_launches = d->host_op.launches;
	}
	for (size_t i = 0; i < d->ncoll; i++) {
		out->coll_exposed_ns += d->coll[i].exposed_ns;
		out->tp_exposed_ns += d->coll[i].role == NS_COLL_ROLE_TP ? d->coll[i].exposed_ns : 0;
	}
}

void report_evidence_routes(const ns_split_result *res, const ns_split_device *d,
                            const ns_device_table *devices, const ns_routes *in, ns_routes *out,
                            char fixes[][NS_REPORT_FIX_MAX], report_precision *prec)
{
	ns_route_evidence ev;
	report_device_facts f = {&d->overall, d->name, d->nsteps, 0, 0};

	ns_route_evidence_of(res, d, &ev);
	for (size_t i = 0; i < d->nsteps; i++) {
		ns_split_window w = ns_split_device_step(d, i);
		if (w.warmup)
			continue;
		f.counted++;
		f.with_init += w.cause_ns[NS_CAUSE_INIT] > 0;
	}
	report_routes_of_evidence(&ev, &f, devices, in, out, fixes, prec);
}
