/* The trace report's cause, warm-up and finding lines, shared by trace_report.c (not installed). */
#ifndef NEXTSTEP_REPORT_PRIVATE_H
#define NEXTSTEP_REPORT_PRIVATE_H

#include <stdio.h>

#include <cJSON.h>

#include "nextstep/route_evidence.h"
#include "nextstep/trace_report.h"
#include "util/json_out.h"

/* A cause that holds at least this share of its bucket names the bucket's fix. */
#define CAUSE_MAJORITY 0.5

/* The cause holding at least CAUSE_MAJORITY of bucket b in w; false when none does or b is not split. */
bool report_dominant_cause(const ns_split_window *w, ns_regime b, ns_cause *c);
/* in, with each bucket's route replaced by its dominant cause's (where that cause has a route). A shallow
 * copy: out borrows in's strings and must not be freed. */
/* The routes of w: a bucket's dominant cause's route replaces the bucket's; a decode window's memory kernels
 * take the decode finding's route. */
void report_cause_routes(const ns_split_window *w, const ns_routes *in, ns_routes *out);
/* The device's whole-run window for routing: its phase is decode when decode steps hold at least half of its
 * memory-bound time, so the headline's memory route is decode's. */
ns_split_window report_overall_routed(const ns_split_device *d);
/* text with its first "{key}" (if any) replaced by value, into buf; returns buf. */
char *report_subst(const char *text, const char *key, const char *value, char *buf, size_t size);
/* The fixes the trace's evidence words itself, one slot each in ns_device_report.fixes. */
typedef enum {
	REPORT_FIX_HOST_GAP, /* the Python frames behind unrecorded host time */
	REPORT_FIX_LAUNCH,   /* the Python behind the step thread's ops, or a compiled model's dispatch */
	REPORT_FIX_MEMORY,   /* the memory-bound kernels' specific fix */
	REPORT_FIX_COMPUTE,  /* the compute-bound kernels' specific fix */
	REPORT_FIX_HOST_OP,  /* a slow host op's fix, naming it */
	REPORT_FIX_SLOTS
} report_fix_slot;
/* What the compute kernels' names say of their precision when the compute route is the fp32 one (both 0
 * otherwise): the share of the compute class's kernel time in fp32 GEMMs and convolutions on the CUDA cores,
 * and the device's best 16-bit tensor-core peak over its fp32 peak. The next step bounds autocast with it
 * when no placement was made (ns_next_inputs). */
typedef struct {
	double fp32_share;
	double tensor_ratio;
	/* A slow host op routes the launch cause (report_host_op_dominates): its name (escaped), finding and
	 * numbers, and the route the rest of the launch time keeps (the launch route before the op's). */
	bool host_op;
	char host_op_name[NS_NEXT_OP_MAX];
	ns_finding_kind host_op_finding;
	int64_t host_op_idle_ns, host_op_calls, host_op_host_ns, host_op_launches;
	ns_route launch_rest;
} report_precision;
/* in, with the routes the whole trace's evidence gives device d, cause by cause (report_evidence.c): set-up
 * that mostly records CUDA graphs is a capture; a host cause whose Python frames explain it is routed by what
 * those frames are, naming them, and a model already under torch.compile is not told to use it; layout
 * transforms send the memory-bound kernels to channels_last, and fp32 GEMMs on a GPU of devices (may be NULL)
 * with tensor cores send compute to autocast/TF32 with the peak ratio (said in prec). A fix worded here lives
 * in fixes, which must outlive out. report_cause_routes() of the result routes a window's headline; the next
 * steps read it as it is. */
void report_evidence_routes(const ns_split_result *res, const ns_split_device *d,
                            const ns_device_table *devices, const ns_routes *in, ns_routes *out,
                            char fixes[][NS_REPORT_FIX_MAX], report_precision *prec);
/* base's compute route as the placement says it (roof: a device's kernel classes, or NULL; no change when
 * prec has the fp32 route): when placed ops hold at least half of the compute kernels' time and are near
 * their roof, the fp8_gemms finding's (its inference words where the evidence gave them) if at least half of
 * the placed time is 16-bit GEMMs a faster fp8 roof applies to, else compute_at_roof's. The fix is worded
 * into fix (NS_REPORT_FIX_MAX bytes, which must outlive base). */
void report_roof_route(const ns_roof_time *roof, const report_precision *prec, ns_routes *base, char *fix);
/* What a device's routes need of it besides the evidence: its whole-run window, its name (the device table's
 * peaks), its steps and, of the counted ones, those holding set-up time. */
typedef struct {
	const ns_split_window *overall;
	const char *name;
	size_t nsteps, counted, with_init;
} report_device_facts;
/* The same routes decided from evidence alone (a trace's, or a rank summary's: the job routes its ranks so),
 * the one place they are decided. */
void report_routes_of_evidence(const ns_route_evidence *ev, const report_device_facts *f,
                               const ns_device_table *devices, const ns_routes *in, ns_routes *out,
                               char fixes[][NS_REPORT_FIX_MAX], report_precision *prec);
/* Set-up time (init_ns, a device's whole run) recurs in the steady steps as the caching allocator's: the
 * counted steps holding some (with_init of counted) are at least two and at least half of them, and the
 * allocator's calls (alloc_ns, the trace's, warm-up included: an upper bound) hold at least CAUSE_MAJORITY of
 * it. The trace report and a job's ranks route it to the allocator_steps finding. */
bool report_alloc_recurs(int64_t alloc_ns, int64_t init_ns, size_t counted, size_t with_init);
/* The launch overhead (launch_ns, a device's whole run) is host jitter: the trace's stalls of trivial calls
 * (stalls of them, stall_ns; ns_split_result.host_stalls) are at least two, no more than the window
 * (window_ns), and the part of them during which the device ran nothing (idle_ns;
 * ns_split_device.host_stall_idle_ns) is at least CAUSE_MAJORITY of it (docs/trace.md, "Host stalls"). The
 * trace report and a job's ranks route it to the host_stalls finding. */
/* The launch overhead (launch_ns, a device's whole run) waits on one slow host op: the op name that holds
 * the most of it (idle_ns) holds at least CAUSE_MAJORITY of it, and its host time (host_ns) per launch call
 * made in it (launches, at least one counted) is at least REPORT_HOST_OP_PER_LAUNCH_NS: far above a dispatch,
 * so its time is the op's own CPU work, not the kernels it launches (docs/trace.md, "A slow host op"). */
#define REPORT_HOST_OP_PER_LAUNCH_NS 200000
bool report_host_op_dominates(int64_t idle_ns, int64_t calls, int64_t host_ns, int64_t launches,
                              int64_t launch_ns);
bool report_stalls_dominate(int64_t stalls, int64_t stall_ns, int64_t idle_ns, int64_t launch_ns,
                            int64_t window_ns);
/* The route the Python frames behind host cause c of w (a device's whole run) give (report_python.c), worded
 * into buf (size bytes) with the frames named; a compiled model's launch overhead is told
 * mode="reduce-overhead". false, and out untouched, when the frames do not speak for c. */
bool report_python_route(const ns_route_evidence *ev, const ns_split_window *w, ns_cause c,
                         const ns_routes *in, ns_route *out, char *buf, size_t size);
/* in, with the host-only routes (routes.h) in place of the buckets' and their causes' routes: for a split
 * with no device. A shallow copy, as above. */
void report_host_only_routes(const ns_routes *in, ns_routes *out);
/* The route of a start-up window (every step warm-up): the graph-capture finding's when stream capture holds
 * at least half of the device's set-up time, else the init cause's (the overhead bucket's without one). */
const ns_route *report_startup_route(const ns_split_result *res, const ns_split_device *d,
                                     const ns_routes *r);
/* The same from the set-up time recording graphs (capture_ns) and the device's set-up time (init_ns). */
const ns_route *report_startup_route_of(int64_t capture_ns, int64_t init_ns, const ns_routes *r);
/* "  overhead is mostly sync: 72% of it (host blocked on the device)" for the verdict's bucket, when one
 * cause dominates it. */
void report_print_top_cause(FILE *out, const ns_split_result *res, const ns_split_window *w,
                            ns_regime verdict);
/* "  launch is mostly one host op, OP: 97% of it (...)" when the launch cause is routed to a slow host op. */
void report_print_host_op(FILE *out, const ns_device_report *m);
/* overall.host_op: {"op", "finding", "us", "launch_share", "calls", "host_us_per_call", "launches_per_call",
 * "text"}, only when there is one. False on OOM. */
bool report_host_op_add_json(cJSON *overall, const ns_device_report *m);
/* -v: every split bucket with time, and its causes. */
void report_print_causes(FILE *out, const ns_split_window *w);
/* One line per finding the device report lists under its headline: "also: memory 33% (high) -> fix (module)".
 */
void report_print_also(FILE *out, const ns_device_report *m);
/* "  a larger batch (launch overhead's fix): a 2x batch fits: ..." (m->batch_item >= 0). */
void report_print_batch(FILE *out, const ns_device_report *m);
/* overall.batch_headroom: {"title", "batch_scale", "text"} (m->batch_item >= 0). False on OOM. */
bool report_batch_add_json(cJSON *overall, const ns_device_report *m);
/* Warm-up steps left out, duplicate step markers, GPU work outside the windows. */
void report_print_notes(FILE *out, const ns_split_result *res, const ns_split_device *d,
                        const char *const *hints);
/* "  set-up: 1 CUDA/HIP graph capture (...) recording N launches, ...; N first-use loads ..." (when any). */
void report_print_setup(FILE *out, const ns_split_result *res);
/* {"graph_captures", "capture_us", "captured_launches", "first_use_loads", "first_use_us"}; NULL on OOM. */
cJSON *report_setup_json(const ns_split_result *res);
/* "causes": [{"bucket", "cause", "us", "share"}, ...] on a verdict object. */
bool report_add_causes_json(cJSON *obj, const ns_split_window *w);

/* The share of w held by the host causes whose Python frames the report lists (launch, host_threads, sync,
 * host_gap, idle optimizer). */
double report_host_cause_share(const ns_split_window *w);
/* Exposed communication's share of w (kernels alone, host collectives) when it is at least high, else 0. */
double report_rank_alone_comm(const ns_split_window *w, double high);
/* Once per trace, the hint of the device with the most rank_alone_comm: its share (0: none) and
 * rank_alone_host. */
void report_print_rank_alone_hint(FILE *out, double share, bool host, const ns_split_result *res,
                                  const char *every_rank);
/* -v: the Python frames behind each host cause of d's overall window (nothing without frames). */
void report_print_python(FILE *out, const ns_split_result *res, const ns_split_device *d);
/* Once per report: how to record Python frames, when host causes hold at least the high share on a device
 * where they would explain the verdict (most: the largest ns_device_report.python_hint); nsys: the capture is
 * an Nsight Systems export, whose user records Python another way. */
void report_print_python_hint(FILE *out, double most, const ns_split_result *res, const ns_report_options *o);
/* An Nsight Systems export (report_export.c): what it lacks and what it says of the program (-v), and the
 * JSON "export" member. */
void report_print_export(FILE *out, const ns_split_result *res);
cJSON *report_export_json(const ns_split_result *res);
/* out's host routes for an export, worded by what it shows (docs/nsys.md): OS calls, untraced host code
 * (how to see it), MPI on the host, start-up, and for a program that is not Python its syncs and launches
 * without Python advice. Runs after report_python_route(), whose OS-call route it keeps. */
void report_export_routes(const ns_program_info *program, const ns_routes *in, ns_routes *out,
                          char fixes[][NS_REPORT_FIX_MAX]);
/* "python": [{"frame", "us"}, ...] on each host cause of window (d's overall), when the trace has frames
 * ("os_runtime" for an Nsight Systems export, whose frames are its OS runtime calls). */
bool report_python_add_json(cJSON *window, const ns_split_result *res, const ns_split_device *d);
/* ---- quality (report_quality.c) ---- */
/* "trace quality: degraded, low confidence in the verdict" and a line per problem that set the grade (every
 * problem found, with verbose); nothing for a good trace unless verbose. */
void report_print_quality(FILE *out, const ns_split_result *res, bool verbose);
/* "  graphs: 97% of GPU time in 40 replays (1,049 kernels)" when the device ran graph replays. */
void report_print_graphs(FILE *out, const ns_split_device *d);
/* "graphs": {"launches", "kernels", "gpu_us"} on a verdict object. */
bool report_add_graphs_json(cJSON *obj, const ns_split_window *w);
/* {"grade": G, "problems": [{"kind", "count", "grade", "share", "detail"}, ...]}; NULL on OOM. */
cJSON *report_quality_json(const ns_split_result *res);
/* Routes a window with the report's classifier. */
void report_route_window(const ns_split_window *w, const ns_report_options *o, ns_verdict *v);
/* A verdict object plus the window's numbers (trace_report.c), routed by routes (the model's, for a window
 * the model routed); with_step adds "step" and "warmup". ns_report_window_json() routes it by its causes. */
cJSON *report_window_json_routed(const char *label, const ns_split_window *w, bool with_step,
                                 const ns_report_options *o, const ns_routes *routes);

/* ---- steps: sources, markers, phases (report_phases.c) ---- */
/* " (steps from inference-server iteration markers)" after the step count, for sources other than the host's
 * ProfilerStep#. */
void report_print_step_source(FILE *out, const ns_split_result *res, const char *const *hints);
/* " [decode]" after a step's number when its marker gave a phase. */
void report_print_step_phase(FILE *out, const ns_split_window *w);
/* One verdict line per inference phase (prefill, decode, mixed) when the steps have phases. */
void report_print_phases(FILE *out, const ns_device_report *m, const ns_report_options *o);
/* "note: N step markers of process P ignored: it launched no device work" (once per report). */
void report_print_ignored_markers(FILE *out, const ns_split_result *res);
/* -v: the GPU events launched outside every step. */
void report_print_outside(FILE *out, const ns_split_device *d, bool verbose);
/* The line of the GEMMs counted as memory by their shapes, when there are any. */
void report_print_shape_gemms(FILE *out, const ns_device_report *m);
/* "marker" and "phase" on a step's JSON object. */
bool report_add_step_json(cJSON *obj, const ns_split_result *res, const ns_split_window *w);
/* "step_phases": {"prefill": R, "decode": R, "mixed": R} (phases with steps only, each with its
 * "next_steps"), or JSON null. */
cJSON *report_phases_json(const ns_device_report *m, const ns_report_options *o);
/* "outside_steps": {"gpu_events": N, "us": T}. */
cJSON *report_outside_json(const ns_split_device *d);
/* Device JSON "shape_memory_gemms" (null when none); NULL on OOM. */
cJSON *report_shape_gemms_json(const ns_device_report *m);

/* The phases of the step: -v line (and the optimizer finding when graded), the default output's "also:"
 * line when the optimizer finding is high, and "phases" on a window's JSON object (m: the overall window's
 * device report, which adds the finding; NULL for a step). Nothing when the trace marks no pass. */
void report_print_passes(FILE *out, const ns_split_result *res, const ns_split_device *d,
                         const ns_device_report *m);
void report_print_passes_also(FILE *out, const ns_split_result *res, const ns_split_device *d,
                              const ns_device_report *m);
/* The optimizer finding of a device's overall window: its grade (NS_GRADE_NONE below the moderate share) and
 * the optimizer's share of the step in *share. */
ns_grade report_optimizer_grade(const ns_split_device *d, double *share);
/* The optimizer finding's fix: the advice for the trace's optimizer class and implementation, then the
 * finding route's fix (when set). */
void report_optimizer_fix(const ns_split_result *res, const ns_route *f, char *buf, size_t size);
/* The same for an optimizer class (optimizer, "" when unnamed) and whether a fused op of it ran. */
void report_optimizer_fix_of(const char *optimizer, bool fused, const ns_route *f, char *buf, size_t size);
bool report_passes_add_json(cJSON *window, const ns_split_result *res, const ns_split_pass_time *t,
                            int64_t dur, const ns_device_report *m);

/* No device split, but device events of an unknown category: "device events of a kind nextstep cannot
 * analyse (category "C", N events): no verdict", and {"category", "events"} for JSON's "unknown_device". */
void report_print_unknown_device(FILE *out, const ns_split_result *res);
cJSON *report_unknown_device_json(const ns_split_result *res);

/* Step i of device d as the JSON report's "steps" hold it (label: its verdict's), as a tree (NULL on OOM)
 * and written straight into w (false on OOM): the same bytes (trace_report.c). */
cJSON *report_step_json(const ns_split_result *res, const ns_split_device *d, size_t i, const char *label,
                        const ns_report_options *o);
bool report_put_step(json_out *w, const ns_split_result *res, const ns_split_device *d, size_t i,
                     const char *label, const ns_report_options *o);
/* The JSON report of ns_report_print() with flags: REPORT_JSON_NO_STEPS writes every device's "steps" as []
 * (the diff reads a trace's steps from its split), REPORT_JSON_OBJECT ends the object without a newline
 * (printed inside another document: flush that document's writer first). */
#define REPORT_JSON_NO_STEPS 1u
#define REPORT_JSON_OBJECT   2u
ns_status report_print_json_as(FILE *out, const ns_split_result *res, const ns_report_options *o,
                               unsigned flags, ns_error *err);
/* ns_report_window_json(label, win, true, o) written straight into w, the same bytes (the job report's
 * steps).
 */
void report_put_window(json_out *w, const char *label, const ns_split_window *win,
                       const ns_report_options *o);

#endif
