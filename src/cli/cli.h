/* The command line, parsed once: the subcommands, the parsed configuration every mode receives, and the
 * mode entry points. main() parses argv with cli_parse() and calls the chosen mode's run function. */
#ifndef NEXTSTEP_CLI_H
#define NEXTSTEP_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "nextstep/budget.h"
#include "nextstep/classify.h"
#include "nextstep/format.h"
#include "nextstep/input.h"
#include "nextstep/profile.h"
#include "nextstep/roofline.h"
#include "nextstep/routes.h"
#include "nextstep/transformer.h"

typedef enum {
	EXIT_ROUTED = 0,    /* every profile routed */
	EXIT_BAD_INPUT = 1, /* some record or file was bad (the good ones still got their result) */
	EXIT_USAGE = 2,     /* bad command line */
	EXIT_QUALITY = 4    /* trace: a trace's quality grade below --min-quality */
} ns_exit;

/* What storing one option's value did (cli_config_set() and the setters of each group of options). */
typedef enum {
	CFG_TAKEN,    /* stored: on to the next option */
	CFG_NOT_MINE, /* not an option of this group: the next group is asked */
	CFG_REFUSED,  /* a usage error, said on stderr: exit EXIT_USAGE */
	CFG_FAILED,   /* another error, said on stderr: exit EXIT_BAD_INPUT */
	CFG_DONE      /* --help or --version printed: exit EXIT_ROUTED */
} cfg_result;

/* The modes; each option row says with a bit mask (1u << mode) which ones it applies to. */
typedef enum {
	MODE_ROUTER,
	MODE_TRACE,
	MODE_ROOFLINE,
	MODE_SCALING,
	MODE_DEVICES,
	MODE_DIFF,
	MODE_JOB,
	MODE_BUDGET,
	MODE_COUNT
} cli_mode;

typedef enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } cli_color;
typedef enum { PROGRESS_AUTO, PROGRESS_ALWAYS, PROGRESS_NEVER } cli_progress;

/* What `nextstep trace` prints for the files of one job (the ranks named by distributedInfo). */
typedef enum {
	TRACE_AUTO,     /* the job report when the files are ranks of one job, else a report per file */
	TRACE_PER_RANK, /* --per-rank: a report per file, as for unrelated traces */
	TRACE_ONE_RANK, /* --rank N: only rank N's report */
	TRACE_SUMMARY   /* --summary: one NDJSON summary line per rank, for `nextstep job` */
} trace_output;

/* At most this many --device-file overlays, applied in order. */
#define DEVICE_FILES_MAX 16
/* Largest --top accepted. */
#define TOP_MAX 1000

/* What the roofline workload options describe. */
typedef enum {
	WORK_NONE,
	WORK_COUNTS,
	WORK_MATMUL,
	WORK_ELEMENTWISE,
	WORK_DECODE,
	WORK_TRANSFORMER
} work_kind;

typedef struct {
	work_kind kind;
	int nkinds; /* distinct workload kinds given: more than one is a usage error */
	bool have_flops, have_bytes, have_batch, elementwise_opts, decode_opts;
	double flops, bytes, mnk[3], batch;
	double elements, inputs, outputs, flops_per_element;
	ns_roofline_decode_spec
	    decode;        /* also the architecture's layers and heads and the context (cli_model.c) */
	bool decode_given; /* --decode: with --transformer or in budget, a flag of that workload */
	double overhead_threshold;
	const char *svg_path;
} cli_workload;

/* The transformer options of roofline --transformer and budget (cli_model.c); the layers, heads, KV heads,
 * head size, parameter count and context are the decode workload's (cli_workload.decode). */
typedef struct {
	double hidden, vocab, intermediate, seq, positions, device_memory;
	ns_mlp_kind mlp;
	bool tied, biases, train, checkpointing, eager_attention, dropout, no_master_weights;
	bool transformer; /* --transformer */
	bool arch_given;  /* any of --hidden, --vocab, --intermediate, --mlp, --tied-embeddings, --biases,
	                   * --positions */
	bool train_given; /* any option that only training reads */
	const char *kv_dtype, *grad_dtype, *state_dtype; /* NULL: the defaults */
	ns_optimizer optimizer;
} cli_model;

/* Everything the command line said, parsed and checked; one struct for every mode. */
typedef struct {
	cli_mode mode;
	/* shared */
	ns_classify_options classify;
	ns_routes routes; /* owned: built-in routes plus --playbook (loaded after parsing) */
	ns_format_options format;
	cli_color color;
	const char *playbook;
	const char *label;
	bool high_given, moderate_given;
	/* router */
	ns_profile flags;
	bool any_flag, normalize, strict;
	/* trace */
	const char *rules_path;
	bool rules_only; /* --kernel-rules-only: the file replaces the built-in table */
	bool steps, all_steps, roofline;
	const char *ns_step_marker; /* --step-marker REGEX */
	size_t top;
	bool top_given;
	cli_progress progress;
	int min_quality; /* --min-quality: the lowest ns_quality_grade that exits 0 (default: unfit, any) */
	unsigned jobs;   /* -j: files read at once; 0 = one per online processor */
	trace_output output; /* what several ranks of one job get: the job report unless an option says */
	long long only_rank; /* --rank N */
	/* trace --roofline and roofline */
	const char *device, *dtype;
	const char *device_files[DEVICE_FILES_MAX];
	size_t ndevice_files;
	/* roofline and scaling */
	bool have_time, have_time_2x;
	double time, time_2x, overhead_below, work_above;
	cli_workload work;
	cli_model model;
	/* diff: the CI gates */
	bool gate_slower, gate_regime;
	double slower_pct;
	/* router form: the first option given that only traces (or only profiles) take, as its long name; the
	 * router refuses it when no input is one of those (cli_router.c). NULL when none was given. */
	const char *traces_only_option, *profiles_only_option;
	/* router form: inputs that check opened and sniffed and that cannot be opened twice (stdin, pipes),
	 * by operand index (NULL where not kept); cli_each_input() reads these instead of opening. */
	ns_input **opened;
	/* --html FILE ("-": stdout, instead of the text report) */
	const char *html_path;
	bool force; /* --force: --html/--svg may replace an existing file nextstep did not write */
	/* the operands left after the options */
	char **operands;
	int noperands;
} cli_config;

/* Parses argv into cfg (options, subcommand, values). Returns -1 to run cfg->mode, or an exit status (a usage
 * error was printed, or --help/--version were answered). cli_config_free() after either. */
int cli_parse(int argc, char **argv, cli_config *cfg);
void cli_config_free(cli_config *cfg);
/* The run function of a mode. */
int cli_run(cli_config *cfg);

/* The modes. */
int cli_router_run(cli_config *cfg);
int cli_trace_run(cli_config *cfg);
int cli_roofline_run(cli_config *cfg);
int cli_scaling_run(cli_config *cfg);
int cli_devices_run(cli_config *cfg);
int cli_diff_run(cli_config *cfg);
int cli_job_run(cli_config *cfg);
int cli_budget_run(cli_config *cfg);

#endif
