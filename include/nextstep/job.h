/* Whole jobs (issue 12): one summary per rank, merged into one job.
 *
 * A rank summary (ns_job_rank) is what the job needs of one rank's trace split: each device's per-step and
 * whole-run buckets and causes, and its collective timeline. It has a one-line NDJSON form, so ranks can be
 * read where their traces are and merged elsewhere. The merger (ns_job_merge) takes summaries one by one
 * (memory: the summaries), aligns the ranks' clocks on their collectives, splits each rank's exposed
 * communication into waiting for the last rank and transfer, and names stragglers. The rules are in
 * docs/job.md. Nothing here prints or knows the command line: the CLI routes and formats a ns_job_result. */
#ifndef NEXTSTEP_JOB_H
#define NEXTSTEP_JOB_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/job.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nextstep/analysis.h"
#include "nextstep/api.h"
#include "nextstep/error.h"
#include "nextstep/input.h"
#include "nextstep/next_step.h"
#include "nextstep/profile.h"
#include "nextstep/route_evidence.h"
#include "nextstep/trace_roofline.h"
#include "nextstep/trace_split.h"

NS_BEGIN_DECLS

/* The "nextstep_summary" key of a summary line: the version of its form. */
#define NS_JOB_SUMMARY_VERSION 1
/* Limits on a summary line read back (untrusted input). */
#define NS_JOB_MAX_DEVICES NS_TRACE_MAX_DEVICES
#define NS_JOB_MAX_RANKS   (1 << 20)

/* A straggler is slower than the median of the other ranks by more than this share of it... */
#define NS_JOB_STRAGGLER_SHARE 0.10
/* ...and by more than this many nanoseconds of non-communication time per step. */
#define NS_JOB_STRAGGLER_MIN_NS 2000000
/* ...and, when the clocks are aligned, this share at least of the job's waiting in collectives is for it to
 * arrive: twice the share of one rank among R if the waiting were spread evenly (2/R), but no less than a
 * quarter and no more than half (docs/job.md): a rank whose slowness costs the job is the one they wait for.
 */
#define NS_JOB_LAST_SHARE_MIN 0.25
#define NS_JOB_LAST_SHARE_MAX 0.50
/* Clocks are consistent when the matched collectives' end times, after the offset, agree within this (the
 * median absolute deviation of the per-collective offsets). */
#define NS_JOB_CLOCK_MAD_NS 50000
/* ...estimated from at least this many matched collectives. */
#define NS_JOB_CLOCK_MIN_MATCHES 3

/* Bytes of a frame name a summary keeps, NUL included (longer names are cut between characters). */
#define NS_JOB_FRAME_NAME_MAX 1024

/* One device of a rank: its split, without kernel names, and the evidence its routes are decided from
 * (all zero in a summary written before it was carried: the stock routes). */
typedef struct {
	int64_t id;
	char name[NS_TRACE_DEVICE_NAME_MAX];
	ns_split_window overall;
	ns_split_window *steps;
	size_t nsteps;
	int64_t *step_stall_ns; /* per step, the host stalls' time in it (ns_split_device's); NULL when the
	                           rank has no stall, or its summary was written before they were */
	ns_split_collective *coll;
	size_t ncoll;
	ns_route_evidence evidence; /* its frames' names are frame_names' (the rank's host counts are the
	                               rank's: host_stalls, alloc_ns) */
	char *frame_names[NS_EVIDENCE_HOSTS][NS_EVIDENCE_FRAMES]; /* owned */
	/* The kernel classes its trace placed ops of on the roofline (state NS_ROOF_PLACED, why NULL), for
	 * the job's next-step bounds as the rank's own report has them; the others, and every class of a
	 * summary that does not carry them, NS_ROOF_NOT_RUN (ns_job_rank_set_roof; docs/job.md, "Rank
	 * summaries"). */
	ns_roof_time roof[NS_KCLASS_COUNT];
} ns_job_device;

/* One rank's summary. Owns everything; free with ns_job_rank_free(). */
typedef struct {
	bool has_rank;
	int64_t rank;          /* distributedInfo.rank */
	int64_t world_size;    /* 0 when unknown */
	int quality;           /* the trace's ns_quality_grade; -1 when the summary does not say */
	int64_t host_stalls;   /* ns_split_result.host_stalls: rare multi-ms stalls of trivial host calls */
	int64_t host_stall_ns; /* and their time */
	int64_t alloc_calls;   /* ns_split_result.alloc_calls: the device-memory allocator's runtime calls */
	int64_t alloc_ns;      /* and their time */
	char *file;            /* the trace it was made from */
	ns_job_device *dev;
	size_t ndev;
} ns_job_rank;

/* The summary of one rank's split. file may be NULL. */
NS_STATIC_API ns_status ns_job_rank_from_split(const ns_split_result *r, const char *file, ns_job_rank **out,
                                               ns_error *err);
NS_STATIC_API void ns_job_rank_free(ns_job_rank *rank);
/* Keeps, on each device of rank (made by ns_job_rank_from_split from res), the kernel classes roof placed
 * ops of (ns_troof_roof_times); roof NULL keeps none. */
NS_STATIC_API void ns_job_rank_set_roof(ns_job_rank *rank, const ns_split_result *res,
                                        const ns_troof_report *roof);
/* The one-line NDJSON form (no newline), malloc'd; NULL on OOM. */
NS_STATIC_API char *ns_job_rank_to_ndjson(const ns_job_rank *rank);
/* Reads one summary line back. Errors are located: err->offset is the byte offset in the line (or -1). */
NS_STATIC_API ns_status ns_job_rank_from_ndjson(const char *line, size_t len, ns_job_rank **out,
                                                ns_error *err);

/* What makes a straggler slow, told from its kernels (docs/job.md, "Why a rank is slow"). */
typedef enum {
	NS_STRAGGLER_HOST,   /* its slow bucket is host-side (overhead, data loader, idle): that bucket's own
	                      * route
	                      */
	NS_STRAGGLER_DEVICE, /* the same kernels a step, slower, in (nearly) every step: its GPU or host, not
	                     the model */
	NS_STRAGGLER_WORK,   /* more kernels a step than the others: it is given more work */
	NS_STRAGGLER_INPUTS, /* the same kernels, slower, but only in some steps: inputs that vary from step
	                     to step */
	NS_STRAGGLER_JITTER, /* a host-side bucket whose extra time is rare multi-ms stalls of trivial host
	                        calls the others do not have: CPU contention, GC, affinity, the node
	                        (docs/job.md) */
	NS_STRAGGLER_ALLOC,  /* a host-side bucket whose extra time is the device-memory allocator's calls
	                        (cudaMalloc/cudaFree) the others do not make: its caching allocator misses or
	                        flushes its cache (docs/job.md) */
	NS_STRAGGLER_KIND_COUNT
} ns_job_straggler_kind;

/* "host", "device", "work", "inputs", "host_jitter", "allocator" (the JSON words). */
NS_STATIC_API const char *ns_job_straggler_kind_name(ns_job_straggler_kind k);

/* A host-side straggler is host jitter when its stalls (ns_split_result.host_stalls) hold at least this
 * share of its excess time a step, and the allocator's when its allocator calls (alloc_ns) do... */
#define NS_JOB_JITTER_SHARE 0.5
/* ...and the other ranks' median of that time a step is at most this share of its own. */
#define NS_JOB_JITTER_OTHERS 0.25
/* Kernels a step within this share of the others' median are the same work... */
#define NS_JOB_SAME_WORK_SHARE 0.05
/* ...and a rank slowest in at least this share of the steps compared is slow in every step. */
#define NS_JOB_PERSISTENT_SHARE 0.9

/* A straggler: the rank, the bucket that makes it slow, its share of the rank's step and the median share of
 * the other ranks, and what makes it slow. */
typedef struct {
	int64_t rank;
	ns_regime bucket;
	double share, median_share;
	int64_t excess_ns; /* non-communication time per step above the others' median */
	ns_job_straggler_kind kind;
	double kernels_ratio; /* its kernels a step / the others' median (0 when they launch none) */
	size_t
	    slowest_steps; /* steps in which its non-comm time was the longest of the ranks that had them */
	size_t compared_steps; /* its steps that another rank had too (by ProfilerStep number) */
	size_t last_ops;       /* collectives it started last, of */
	size_t shared_ops;     /* the collectives it shared with another rank (0: clocks not aligned) */
	double waited_share;   /* the share of the job's waiting in collectives that was for it */
	int64_t stall_ns;      /* its stalls a step (ns_job_rank.host_stall_ns over its steps) */
	int64_t alloc_ns;      /* its allocator calls' time a step (ns_job_rank.alloc_ns over its steps) */
	size_t stall_steps;    /* host-side: its steps whose excess is mostly its stalls (docs/job.md), of */
	size_t stall_compared; /* its steps set against the others' (0: judged on the whole run) */
} ns_job_straggler;

/* One rank in the job. */
typedef struct {
	ns_job_rank *src; /* owned */
	size_t device;    /* index in src->dev of the device the job judges (the one with most collectives) */
	ns_split_window overall; /* that device's whole-run window; comm's exposed cause split into
	                          * wait/transfer when the job could split it */
	int64_t median_step_ns;
	int64_t noncomm_ns;                 /* median over steps of the step time outside comm */
	int64_t bucket_ns[NS_REGIME_COUNT]; /* median over steps of each bucket */
	int64_t kernels;                    /* median over steps of the kernels started */
	int64_t *step_wait_ns;              /* per step of the device (NULL when not split) */
	bool has_offset;
	int64_t offset_ns;    /* this rank's clock minus the reference rank's */
	int64_t waited_for;   /* the rank most of its waiting was for, -1 when none */
	size_t last_ops;      /* collectives it started last (aligned clocks), of */
	size_t shared_ops;    /* those it shared with another rank (0 when the clocks are not aligned) */
	int64_t waited_on_ns; /* the other ranks' waiting in collectives for this one to start them */
	bool straggler;
	bool routable; /* its judged device has time: a rank without device activity has nothing to route */
} ns_job_rank_result;

/* The merged job. Owns everything; free with ns_job_result_free(). */
typedef struct {
	ns_job_rank_result *rank; /* sorted by rank */
	size_t nranks;
	int64_t world_size;      /* the largest world_size the summaries name (0 when none does) */
	bool split;              /* waiting and transfer were told apart */
	char why_not[256];       /* when not split: why ("" otherwise) */
	size_t groups;           /* process groups seen */
	size_t matched;          /* collectives matched on at least two ranks */
	size_t mismatches;       /* matched collectives whose name or size differ */
	char mismatch[256];      /* the first mismatch, "" when none */
	ns_job_straggler *strag; /* worst first */
	size_t nstrag;
	ns_profile median; /* per-bucket median of the ranks' whole-run shares */
	double wait_share; /* median over ranks of waiting / step time */
	int64_t wait_ns;   /* every rank's waiting in collectives, summed (the share's whole) */
	/* With aligned clocks: the most the ranks' starts of one step differ (steps matched by number,
	 * warm-up left out) and the rank that starts last in that step (-1 when no step was compared). Where
	 * the others wait but no rank is a straggler, this says the lateness came from before the step. */
	int64_t start_spread_ns;
	int64_t late_rank;
	size_t spread_steps; /* steps compared on two ranks or more */
	/* Decided once for every form (docs/job.md, rule 9): a rank waits in collectives (at least half of
	 * its exposed comm and JOB_WAIT_SHOWN of its step), no rank is a straggler and the job has a verdict:
	 * the lateness was made before the captured steps, and the report says so instead of naming a
	 * straggler. */
	bool wait_without_straggler;
	/* The job's quality is its worst rank's (ns_quality_grade; -1 when no summary says): a job is judged
	 * from every rank's split, so one unfit rank leaves the waiting, the stragglers and the verdict
	 * without ground, and the job gets no verdict (docs/job.md). */
	int quality;
	int64_t quality_rank; /* the first rank of that grade (-1 when quality is -1) */
	size_t unfit_ranks;
} ns_job_result;

typedef struct ns_job_merge ns_job_merge;

NS_STATIC_API ns_job_merge *ns_job_merge_new(void);
/* Takes rank (freed here on error too). A rank without a rank number, a rank number already added, or a world
 * size other than the one of the ranks already added is an error; the merger keeps what it had. */
NS_STATIC_API ns_status ns_job_merge_add(ns_job_merge *m, ns_job_rank *rank, ns_error *err);
/* Longest summary line read (a rank of a million steps is a few hundred MB). */
#define NS_JOB_LINE_MAX ((size_t)1 << 30)
/* Told of each bad summary line (err->line is its number); reading goes on after it. */
typedef void (*ns_job_line_error_fn)(void *ctx, const ns_error *err);
/* Adds the summary lines of in to m as they arrive (memory: the summaries, not their text); blank lines are
 * allowed between them. A line that is no summary, or that ns_job_merge_add() refuses, goes to on_error.
 * Returns NS_OK at the end of in, or what stopped the reading: NS_ERR_IO (a read error), NS_ERR_LIMIT (a line
 * longer than NS_JOB_LINE_MAX, with err->line) or NS_ERR_NOMEM. */
NS_STATIC_API ns_status ns_job_merge_read(ns_job_merge *m, ns_input *in, ns_job_line_error_fn on_error,
                                          void *ctx, ns_error *err);
NS_STATIC_API size_t ns_job_merge_count(const ns_job_merge *m);
/* The job of every rank added; the merger is then empty. At least one rank is needed. */
NS_STATIC_API ns_status ns_job_merge_finish(ns_job_merge *m, ns_job_result **out, ns_error *err);
NS_STATIC_API void ns_job_merge_free(ns_job_merge *m);
NS_STATIC_API void ns_job_result_free(ns_job_result *res);

/* ---- one call per workflow ----
 * options are ns_trace_analyse()'s (nextstep/analysis.h; NULL: the defaults): the thread count and the
 * warm-up steps; a trace is split as ns_trace_analyse() splits it (JSON, gzip or an Nsight Systems export,
 * "-" for stdin; a trace cut short counts as far as it goes). */
/* The rank summary of the trace at path; *out is the caller's (ns_job_rank_free()), NULL on error. */
NS_STATIC_API ns_status ns_job_rank_from_trace(const char *path, const ns_trace_options *options,
                                               ns_job_rank **out, ns_error *err);
/* The job of the rank traces paths[0, n): each split and summarised, then merged, as `nextstep trace FILE...`
 * does. The first trace that cannot be read or merged stops it, err's message led by its path. *out is the
 * caller's (ns_job_result_free()), NULL on error. */
NS_STATIC_API ns_status ns_job_analyse(const char *const *paths, size_t n, const ns_trace_options *options,
                                       ns_job_result **out, ns_error *err);
/* The job of the rank summary lines in the files paths[0, n) ("-": stdin), as `nextstep job` reads them;
 * the first bad line stops it (err->line its number, the message led by its file). */
NS_STATIC_API ns_status ns_job_read_summaries(const char *const *paths, size_t n, ns_job_result **out,
                                              ns_error *err);

NS_END_DECLS

#endif
