/* The option table: every option of every mode as data (name, value, the modes it applies to, help), and the
 * subcommand table, in cli_tables.c. cli_options.c drives getopt_long over it once; cli_config.c stores each
 * value. */
#ifndef NEXTSTEP_CLI_OPTIONS_H
#define NEXTSTEP_CLI_OPTIONS_H

#include <stdio.h>

#include "cli.h"

#define MODE_BIT(m) (1u << (m))
#define M_ROUTER    MODE_BIT(MODE_ROUTER)
#define M_TRACE     MODE_BIT(MODE_TRACE)
#define M_ROOFLINE  MODE_BIT(MODE_ROOFLINE)
#define M_SCALING   MODE_BIT(MODE_SCALING)
#define M_DEVICES   MODE_BIT(MODE_DEVICES)
#define M_DIFF      MODE_BIT(MODE_DIFF)
#define M_JOB       MODE_BIT(MODE_JOB)
#define M_BUDGET    MODE_BIT(MODE_BUDGET)
/* Trace options also apply to the router form, which reads a trace given to it as 'nextstep trace' would. */
#define M_TRACES (M_ROUTER | M_TRACE)

/* Option ids: the short ones are their letter, the long-only ones start above any char. */
typedef enum {
	OPT_EXPLAIN = 'v',
	OPT_QUIET = 'q',
	OPT_HELP = 'h',
	OPT_VERSION = 'V',
	OPT_JOBS = 'j',
	OPT_LONG_FIRST = 256,
	/* the six bucket flags, in ns_regime order */
	OPT_BUCKET = OPT_LONG_FIRST,
	OPT_BUCKET_LAST = OPT_BUCKET + NS_REGIME_COUNT - 1,
	OPT_LABEL,
	OPT_NORMALIZE,
	OPT_STRICT,
	OPT_PRIORITY,
	OPT_TIE,
	OPT_HIGH,
	OPT_MODERATE,
	OPT_PLAYBOOK,
	OPT_FORMAT,
	OPT_COLOR,
	OPT_NO_COLOR,
	OPT_KERNEL_RULES,
	OPT_KERNEL_RULES_ONLY,
	OPT_STEPS,
	OPT_ALL_STEPS,
	OPT_STEP_MARKER,
	OPT_TOP,
	OPT_ROOFLINE,
	OPT_DEVICE,
	OPT_DTYPE,
	OPT_DEVICE_FILE,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	OPT_MIN_QUALITY,
	OPT_PER_RANK,
	OPT_RANK,
	OPT_SUMMARY,
	OPT_FLOPS,
	OPT_BYTES,
	OPT_MATMUL,
	OPT_BATCH,
	OPT_ELEMENTWISE,
	OPT_INPUTS,
	OPT_OUTPUTS,
	OPT_FLOPS_PER_ELEMENT,
	OPT_DECODE,
	OPT_PARAMS,
	OPT_CONTEXT,
	OPT_LAYERS,
	OPT_KV_HEADS,
	OPT_HEAD_DIM,
	OPT_HEADS,
	OPT_TIME,
	OPT_OVERHEAD_THRESHOLD,
	OPT_SVG,
	OPT_TIME_2X,
	OPT_OVERHEAD_BELOW,
	OPT_WORK_ABOVE,
	OPT_FAIL_IF_SLOWER,
	OPT_FAIL_IF_REGIME_CHANGES,
	OPT_HTML,
	OPT_FORCE,
	/* the transformer and its memory budget (cli_model.c) */
	OPT_TRANSFORMER,
	OPT_SEQ,
	OPT_HIDDEN,
	OPT_VOCAB,
	OPT_INTERMEDIATE,
	OPT_MLP,
	OPT_TIED_EMBEDDINGS,
	OPT_BIASES,
	OPT_POSITIONS,
	OPT_KV_DTYPE,
	OPT_TRAIN,
	OPT_OPTIMIZER,
	OPT_GRAD_DTYPE,
	OPT_STATE_DTYPE,
	OPT_NO_MASTER_WEIGHTS,
	OPT_CHECKPOINTING,
	OPT_EAGER_ATTENTION,
	OPT_DROPOUT,
	OPT_DEVICE_MEMORY
} cli_opt;

/* One row of the table. A name may have several rows (other modes, other help); getopt sees it once. */
typedef struct {
	const char *group; /* help heading */
	const char *name;  /* long name */
	int has_arg;       /* no_argument / required_argument */
	int id;            /* cli_opt */
	unsigned modes;    /* MODE_BIT()s it applies to */
	const char *arg;   /* the value's name in help ("X", "FILE"), NULL for a switch */
	const char *help;  /* NULL: an alias, not listed */
} cli_option_row;

/* A subcommand: the first word of argv. The router is the row with a NULL name (the default). Future
 * subcommands (diff, job) are one row each plus their run function. */
typedef struct {
	const char *name;
	cli_mode mode;
	int (*run)(cli_config *cfg);
	const char *usage; /* "usage: ..." lines */
	const char *about; /* what it does, before the options */
	const char *exit_status;
} cli_subcommand;

/* The tables (cli_tables.c). The router's subcommand row is the first. */
extern const cli_option_row cli_option_rows[];
extern const size_t cli_option_count;
extern const cli_subcommand cli_subcommands[];
extern const size_t cli_subcommand_count;

const cli_subcommand *cli_subcommand_of(cli_mode mode);
/* The usage error: "nextstep: msg" and a pointer to "nextstep [MODE] --help". Returns EXIT_USAGE. */
int cli_usage_error(cli_mode mode, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* cli_usage_error() for a setter: prints the same, is CFG_REFUSED. */
#define cli_option_refused(mode, ...) ((void)cli_usage_error((mode), __VA_ARGS__), CFG_REFUSED)
/* The exit status a setter's result ends the run with; -1 for CFG_TAKEN (go on). */
int cli_option_exit_status(cfg_result r);
/* "--NAME" of option id opt, from its row of the table, in buf (room for CLI_FLAG_MAX). */
#define CLI_FLAG_MAX 48
const char *cli_option_flag(int opt, char buf[CLI_FLAG_MAX]);
/* The usage lines and the options of one mode, grouped, as --help prints them. */
void cli_print_help(FILE *out, cli_mode mode);

#endif
