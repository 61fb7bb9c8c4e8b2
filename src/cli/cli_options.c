/* The option and subcommand tables and the one getopt_long loop over them. */
#define _POSIX_C_SOURCE 200809L
#include "cli_options.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_common.h"

#define M_ALL (M_ROUTER | M_TRACE | M_ROOFLINE | M_SCALING | M_DEVICES | M_DIFF | M_JOB)
#define M_VERDICTS                                                                                           \
	(M_ROUTER | M_TRACE | M_ROOFLINE | M_SCALING | M_DIFF |                                              \
	 M_JOB) /* the modes that print a routed verdict */
#define HELP_COLUMN 22

static const cli_option_row rows[] = {
    {"Profile", "compute", required_argument, OPT_BUCKET + REGIME_COMPUTE, M_ROUTER, "X",
     "share of step time in compute (0.72 or 72%)"},
    {"Profile", "memory", required_argument, OPT_BUCKET + REGIME_MEMORY, M_ROUTER, "X",
     "... in memory-bound kernels"},
    {"Profile", "comm", required_argument, OPT_BUCKET + REGIME_COMM, M_ROUTER, "X", "... in communication"},
    {"Profile", "dataloader", required_argument, OPT_BUCKET + REGIME_DATALOADER, M_ROUTER, "X",
     "... waiting for the data loader"},
    {"Profile", "overhead", required_argument, OPT_BUCKET + REGIME_OVERHEAD, M_ROUTER, "X",
     "... in launch and framework overhead"},
    {"Profile", "idle", required_argument, OPT_BUCKET + REGIME_IDLE, M_ROUTER, "X", "... with the GPU idle"},
    {"Profile", "label", required_argument, OPT_LABEL, M_ROUTER, "NAME", "prefix the verdict with NAME"},
    {"Profile", "normalize", no_argument, OPT_NORMALIZE, M_ROUTER, NULL,
     "rescale shares that sum above 1 instead of failing"},
    {"Profile", "strict", no_argument, OPT_STRICT, M_ROUTER, NULL,
     "unknown JSON keys are errors (default: a warning)"},
    {"Trace", "steps", no_argument, OPT_STEPS, M_TRACES, NULL, "one line per step (text output)"},
    {"Trace", "all-steps", no_argument, OPT_ALL_STEPS, M_TRACES, NULL,
     "count warm-up steps in the verdict too (default: reported apart)"},
    {"Trace", "step-marker", required_argument, OPT_STEP_MARKER, M_TRACES, "REGEX",
     "steps from the user annotations matching REGEX (PCRE2), ahead of\n"
     "ProfilerStep# and server markers"},
    {"Trace", "top", required_argument, OPT_TOP, M_TRACES, "N",
     "kernels listed with -v and in JSON, and --roofline's ops (default 5)"},
    {"Trace", "kernel-rules", required_argument, OPT_KERNEL_RULES, M_TRACES | M_DIFF, "FILE",
     "kernel-name classes from a JSON rules file, tried before the built-in table:\n"
     "{\"rules\": [{\"match\": \"gemm\", \"regex\": false, \"class\": \"compute\"}, ...]}"},
    {"Trace", "kernel-rules-only", required_argument, OPT_KERNEL_RULES_ONLY, M_TRACES | M_DIFF, "FILE",
     "the same, instead of the built-in table"},
    {"Trace", "roofline", no_argument, OPT_ROOFLINE, M_TRACES, NULL,
     "place the matmul ops (mm, addmm, linear, bmm, ...) on the device's roofline"},
    {"Trace", "device", required_argument, OPT_DEVICE, M_TRACES, "NAME",
     "the device for --roofline instead of the trace's (implies --roofline)"},
    {"Trace", "dtype", required_argument, OPT_DTYPE, M_TRACES, "T",
     "the dtype for every op instead of its Input type (implies --roofline)"},
    {"Trace", "device-file", required_argument, OPT_DEVICE_FILE, M_TRACES, "FILE",
     "add or override devices for --roofline (JSON, like data/devices.json); repeatable"},
    {"Trace", "min-quality", required_argument, OPT_MIN_QUALITY, M_TRACES, "G",
     "exit 4 when a trace's quality is below G: good or degraded"},
    {"Trace", "jobs", required_argument, OPT_JOBS, M_TRACE, "N",
     "read N files at once (default: one per processor online); the output\nis the same for every N"},
    {"Trace", "per-rank", no_argument, OPT_PER_RANK, M_TRACE, NULL,
     "the ranks of a job reported each on its own, not as one job"},
    {"Trace", "rank", required_argument, OPT_RANK, M_TRACE, "N", "only rank N's report, in full"},
    {"Trace", "summary", no_argument, OPT_SUMMARY, M_TRACE, NULL,
     "one NDJSON summary line per rank instead of a report, for 'nextstep job'"},
    {"Trace", "progress", no_argument, OPT_PROGRESS, M_TRACES, NULL,
     "show reading progress on stderr even when it is not a terminal"},
    {"Trace", "no-progress", no_argument, OPT_NO_PROGRESS, M_TRACES, NULL,
     "never show it (default: on a terminal, outside CI, after a second)"},
    {"Workload", "device", required_argument, OPT_DEVICE, M_ROOFLINE, "NAME",
     "a name or alias from 'nextstep devices' (case, spaces and '-' ignored)"},
    {"Output", "device-file", required_argument, OPT_DEVICE_FILE, M_DEVICES, "FILE",
     "add or override devices (JSON, like data/devices.json); repeatable"},
    {"Workload", "device-file", required_argument, OPT_DEVICE_FILE, M_ROOFLINE, "FILE",
     "add or override devices (JSON, like data/devices.json); repeatable"},
    {"Workload", "dtype", required_argument, OPT_DTYPE, M_ROOFLINE, "T",
     "fp64 fp32 tf32 bf16 fp16 fp8 int8 fp4 (default bf16; on a device\n"
     "without a bf16 peak fp16, else fp32, with a note on stderr)"},
    {"Workload", "flops", required_argument, OPT_FLOPS, M_ROOFLINE, "F",
     "the FLOPs, as measured or computed"},
    {"Workload", "bytes", required_argument, OPT_BYTES, M_ROOFLINE, "B", "the bytes moved (with --flops)"},
    {"Workload", "matmul", required_argument, OPT_MATMUL, M_ROOFLINE, "M,N,K",
     "2*M*N*K FLOPs; bytes with ideal reuse: A and B read once, C written once"},
    {"Workload", "batch", required_argument, OPT_BATCH, M_ROOFLINE, "B",
     "batched matmul (B independent products), or the decode batch"},
    {"Workload", "elementwise", required_argument, OPT_ELEMENTWISE, M_ROOFLINE, "N",
     "N elements, each reading --inputs (1) and writing --outputs (1) values\n"
     "and doing --flops-per-element (1) FLOPs"},
    {"Workload", "inputs", required_argument, OPT_INPUTS, M_ROOFLINE, "K", "values read per element"},
    {"Workload", "outputs", required_argument, OPT_OUTPUTS, M_ROOFLINE, "M", "values written per element"},
    {"Workload", "flops-per-element", required_argument, OPT_FLOPS_PER_ELEMENT, M_ROOFLINE, "F",
     "FLOPs per element"},
    {"Workload", "decode", no_argument, OPT_DECODE, M_ROOFLINE, NULL,
     "one decode step of --params P: every weight read once, 2 FLOPs per\n"
     "parameter per sequence; prints the batch that reaches the ridge"},
    {"Workload", "params", required_argument, OPT_PARAMS, M_ROOFLINE, "P", "parameter count (7B, 350M)"},
    {"Workload", "context", required_argument, OPT_CONTEXT, M_ROOFLINE, "L",
     "tokens in each sequence's KV cache; with --layers, --kv-heads and\n"
     "--head-dim it adds the KV-cache reads"},
    {"Workload", "layers", required_argument, OPT_LAYERS, M_ROOFLINE, "N", "transformer layers"},
    {"Workload", "kv-heads", required_argument, OPT_KV_HEADS, M_ROOFLINE, "H", "key/value heads"},
    {"Workload", "head-dim", required_argument, OPT_HEAD_DIM, M_ROOFLINE, "D", "size of one head"},
    {"Workload", "heads", required_argument, OPT_HEADS, M_ROOFLINE, "Q",
     "query heads, for grouped-query attention (default: --kv-heads)"},
    {"Workload", "time", required_argument, OPT_TIME, M_ROOFLINE, "T", "measured time of the kernel or step"},
    {"Workload", "overhead-threshold", required_argument, OPT_OVERHEAD_THRESHOLD, M_ROOFLINE, "X",
     "fraction of both roofs below which a timed kernel is overhead-bound\n(default 10%)"},
    {"Workload", "svg", required_argument, OPT_SVG, M_ROOFLINE, "FILE",
     "also draw the log-log roofline plot as SVG ('-': only the SVG on stdout)"},
    {"Scaling", "time", required_argument, OPT_TIME, M_SCALING, "T1", "measured step time"},
    {"Scaling", "time-2x", required_argument, OPT_TIME_2X, M_SCALING, "T2",
     "the step time with twice the work"},
    {"Scaling", "overhead-below", required_argument, OPT_OVERHEAD_BELOW, M_SCALING, "R",
     "ratio T2/T1 below which the step is overhead-bound (default 1.25)"},
    {"Scaling", "work-above", required_argument, OPT_WORK_ABOVE, M_SCALING, "R",
     "ratio from which it is work-bound (default 1.75)"},
    {"Diff", "top", required_argument, OPT_TOP, M_DIFF, "N",
     "kernels listed that moved most (-v and JSON; default 10)"},
    {"Diff", "fail-if-slower", required_argument, OPT_FAIL_IF_SLOWER, M_DIFF, "PCT",
     "exit 3 when AFTER's median step is more than PCT percent slower and\nthe change is significant"},
    {"Diff", "fail-if-regime-changes", no_argument, OPT_FAIL_IF_REGIME_CHANGES, M_DIFF, NULL,
     "exit 3 when AFTER's verdict names another regime than BEFORE's"},
    {"Output", "label", required_argument, OPT_LABEL, M_ROOFLINE | M_SCALING, "NAME",
     "prefix the verdict with NAME"},
    {"Classification", "priority", required_argument, OPT_PRIORITY, M_ROUTER | M_TRACE | M_DIFF | M_JOB,
     "LIST", "tie order, all six regimes (default\ncompute,memory,comm,dataloader,overhead,idle)"},
    {"Classification", "tie", required_argument, OPT_TIE, M_ROUTER | M_TRACE | M_DIFF | M_JOB, "T",
     "shares within T of the largest count as tied (default 0)"},
    {"Classification", "high", required_argument, OPT_HIGH, M_ROUTER | M_TRACE | M_DIFF | M_JOB, "X",
     "grade secondary findings high at X or more (default 20%)"},
    {"Classification", "moderate", required_argument, OPT_MODERATE, M_ROUTER | M_TRACE | M_DIFF | M_JOB, "X",
     "grade them moderate at X or more (default 5%; not above --high)"},
    {"Classification", "playbook", required_argument, OPT_PLAYBOOK, M_VERDICTS, "FILE",
     "routes from a JSON playbook, replacing or extending the built-in ones"},
    {"Output", "format", required_argument, OPT_FORMAT, M_ALL, "text|json", "text (default) or JSON"},
    {"Output", "explain", no_argument, OPT_EXPLAIN, M_VERDICTS & ~M_DIFF, NULL,
     "add the ranked split, runner-up, findings and the check that confirms the fix"},
    {"Output", "explain", no_argument, OPT_EXPLAIN, M_DIFF, NULL,
     "add both sides, the buckets (and causes) in ms per step, and the kernels"},
    {"Output", "explain", no_argument, OPT_EXPLAIN, M_DEVICES, NULL,
     "add each device's aliases, ridge points and datasheet source"},
    {"Output", "verbose", no_argument, OPT_EXPLAIN, M_ALL, NULL, NULL},
    {"Output", "quiet", no_argument, OPT_QUIET, M_VERDICTS & ~M_DIFF, NULL, "print only the regime name"},
    {"Output", "quiet", no_argument, OPT_QUIET, M_DIFF, NULL,
     "print only the change: faster, slower, no significant change, no change"},
    {"Output", "html", required_argument, OPT_HTML, M_TRACES | M_DIFF | M_JOB, "FILE",
     "also write the report as one self-contained HTML page ('-': only the\npage, on stdout)"},
    /* not diff: its text has no colour, so the options would mean nothing there */
    {"Output", "color", required_argument, OPT_COLOR, M_VERDICTS & ~M_DIFF, "WHEN",
     "always, never or auto (default: on a terminal, unless NO_COLOR is set\nand not empty)"},
    {"Output", "no-color", no_argument, OPT_NO_COLOR, M_VERDICTS & ~M_DIFF, NULL, "same as --color=never"},
    {"Output", "help", no_argument, OPT_HELP, M_ALL, NULL, "this help"},
    {"Output", "version", no_argument, OPT_VERSION, M_ROUTER, NULL, "the version"},
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static const char router_usage[] =
    "usage: nextstep [--compute X] [--memory X] [--comm X] [--idle X] [--dataloader X] [--overhead X]\n"
    "                [--label NAME] [options]\n"
    "       nextstep [options] [FILE|-]\n"
    "       nextstep trace [options] FILE\n"
    "       nextstep diff [options] BEFORE AFTER\n"
    "       nextstep job [options] SUMMARY...\n"
    "       nextstep roofline --device NAME (--flops F --bytes B | --matmul M,N,K | ...) [options]\n"
    "       nextstep scaling --time T1 --time-2x T2\n"
    "       nextstep devices\n";

static const cli_subcommand subcommands[] = {
    {NULL, MODE_ROUTER, cli_router_run, router_usage,
     "Names the dominant bottleneck of a training or inference step and the one fix for it.\n"
     "Shares are fractions of step time (0.72) or percentages (72%); missing buckets count as 0.\n"
     "FILE holds a JSON object, an array of objects, or NDJSON (one object a line, streamed);\n"
     "a PyTorch-profiler trace (plain or gzip) is read as by 'nextstep trace', with the trace options.\n"
     "A trace option when no FILE is a trace, or a profile option when none is a profile, is a usage error.\n"
     "'-' or no FILE reads stdin. Several FILEs are each reported, labelled with their name.\n"
     "Subcommands: trace, diff, job, roofline, scaling, devices ('nextstep SUBCOMMAND --help'); the\n"
     "subcommand is the first word only: a FILE named like one is given as ./trace or after --.\n",
     "Exit status: 0 every profile routed; 1 some input was bad (the others still reported); 2 usage "
     "error;\n4 a trace's quality below --min-quality.\n"},
    {"trace", MODE_TRACE, cli_trace_run, "usage: nextstep trace [options] FILE|DIR...\n",
     "Splits each step of a PyTorch-profiler (Kineto) trace, per device, into compute, memory, comm,\n"
     "dataloader, overhead and idle time, and routes the split like the router does. FILE is a JSON\n"
     "trace, plain or gzip; DIR stands for the trace files in it (*.json, *.json.gz, by name; -v names\n"
     "the entries left out); '-' (or no FILE with stdin not a terminal) reads stdin. Several files are\n"
     "read at once (-j) and each reported in the order given, labelled with its name; the ranks of one\n"
     "job (distributedInfo) get one job report instead.\n",
     "Exit status: 0 routed; 1 a bad trace or rules file (the other FILEs still reported); 2 usage error;\n"
     "4 a trace's quality below --min-quality (and no bad input).\n"},
    {"roofline", MODE_ROOFLINE, cli_roofline_run,
     "usage: nextstep roofline --device NAME [--dtype T] WORKLOAD [--time T] [--svg FILE] [options]\n"
     "WORKLOAD is one of:\n"
     "  --flops F --bytes B\n"
     "  --matmul M,N,K [--batch B]\n"
     "  --elementwise N [--inputs K] [--outputs M] [--flops-per-element F]\n"
     "  --decode --params P [--batch B] [--context L --layers N --kv-heads H --head-dim D [--heads Q]]\n",
     "Places a kernel on the device's roofline: arithmetic intensity (FLOP/byte) against the ridge point\n"
     "where the memory roof meets the compute roof. At or above the ridge it is compute-bound, below it\n"
     "memory-bound. With --time it is also placed against what it achieved: under --overhead-threshold of\n"
     "BOTH roofs it is overhead-bound (too little work per launch). The verdict is routed like the "
     "router's.\n"
     "Numbers take SI or IEC prefixes (2.1T, 64GiB, 7B parameters); times need a unit (1.3ms, 850us, 2s).\n",
     "Exit status: 0 routed; 1 a bad data file (device table, playbook) or an unwritable --svg; 2 usage "
     "error.\n"},
    {"scaling", MODE_SCALING, cli_scaling_run, "usage: nextstep scaling --time T1 --time-2x T2 [options]\n",
     "The batch-doubling test: run the step with its work doubled (twice the batch) and give both times.\n"
     "Model: t = fixed + work, so the fixed (overhead) share of T1 is 2 - T2/T1. If the time barely rises\n"
     "the step is overhead-bound; from --work-above it is work-bound: use 'nextstep roofline'.\n",
     "Exit status: 0 routed; 1 a bad playbook; 2 usage error.\n"},
    {"devices", MODE_DEVICES, cli_devices_run,
     "usage: nextstep devices [--device-file FILE] [--format json] [-v] [NAME]\n",
     "Lists the device table: dense datasheet peaks (TFLOP/s; TOPS for int8; no 2:4 sparsity), memory\n"
     "bandwidth and size, SM or CU count. NAME shows one device. The table is devices.json in\n"
     "$NEXTSTEP_DATADIR, else in ../share/nextstep beside the binary (installed), else in\n"
     "share/nextstep beside it (a build tree).\n",
     "Exit status: 0 listed; 1 a bad device file; 2 usage error or unknown NAME.\n"},
    {"diff", MODE_DIFF, cli_diff_run, "usage: nextstep diff [options] BEFORE AFTER\n",
     "Compares two runs of one job: did the step get faster, did the bottleneck named for BEFORE shrink,\n"
     "what is it now, and what moved. Each side is a trace (JSON, plain or gzip), a saved\n"
     "'nextstep trace --format json' report, or a profile JSON (shares only); '-' reads stdin (one side).\n"
     "The first line is the verdict of the change; a change the step-to-step noise could explain is\n"
     "reported as 'no significant change' (95% bootstrap interval of the speed-up over the steps).\n",
     "Exit status: 0 compared; 1 bad input; 2 usage error; 3 a gate (--fail-if-slower,\n"
     "--fail-if-regime-changes) tripped.\n"},
    {"job", MODE_JOB, cli_job_run, "usage: nextstep job [options] SUMMARY...\n",
     "Merges rank summaries ('nextstep trace --summary', one NDJSON line per rank) into one job report:\n"
     "the job's verdict, stragglers and their cause, each rank's split, and exposed communication split\n"
     "into waiting for the last rank and transfer (clocks aligned on the collectives). SUMMARY is a file\n"
     "of summary lines; '-' (or none, with stdin not a terminal) reads stdin. See docs/job.md.\n",
     "Exit status: 0 reported; 1 a bad summary line (the good ones are still merged) or none at all;\n"
     "2 usage error.\n"},
};
#define NSUBCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

const cli_subcommand *cli_subcommand_of(cli_mode mode)
{
	for (size_t i = 0; i < NSUBCOMMANDS; i++)
		if (subcommands[i].mode == mode)
			return &subcommands[i];
	return &subcommands[0];
}

static const char *mode_word(cli_mode mode)
{
	return cli_subcommand_of(mode)->name;
}

int cli_usage_error(cli_mode mode, const char *fmt, ...)
{
	const char *word = mode_word(mode);
	va_list ap;

	fputs("nextstep: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'nextstep %s%s--help'.\n", word != NULL ? word : "", word != NULL ? " " : "");
	return EXIT_USAGE;
}

/* "  --name ARG" padded to the help column, then the help with continuation lines indented under it. */
static void print_row(FILE *out, const cli_option_row *r)
{
	char flag[64];
	int n;

	if (r->id < OPT_LONG_FIRST)
		n = snprintf(flag, sizeof(flag), "  -%c, --%s%s%s", r->id, r->name, r->arg ? " " : "",
		             r->arg ? r->arg : "");
	else
		n = snprintf(flag, sizeof(flag), "  --%s%s%s", r->name, r->arg ? " " : "",
		             r->arg ? r->arg : "");
	fputs(flag, out);
	if (n > HELP_COLUMN - 2)
		fprintf(out, "\n%*s", HELP_COLUMN, "");
	else
		fprintf(out, "%*s", HELP_COLUMN - n, "");
	for (const char *h = r->help; *h != '\0'; h++) {
		fputc(*h, out);
		if (*h == '\n')
			fprintf(out, "%*s", HELP_COLUMN, "");
	}
	fputc('\n', out);
}

void cli_print_help(FILE *out, cli_mode mode)
{
	const cli_subcommand *s = cli_subcommand_of(mode);
	static const char *const groups[] = {"Profile", "Workload",       "Scaling", "Trace",
	                                     "Diff",    "Classification", "Output"};

	fputs(s->usage, out);
	fprintf(out, "\n%s", s->about);
	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		bool heading = false;
		for (size_t i = 0; i < NROWS; i++) {
			if (strcmp(rows[i].group, groups[g]) != 0 || !(rows[i].modes & MODE_BIT(mode)) ||
			    rows[i].help == NULL)
				continue;
			if (!heading)
				fprintf(out, "\n%s%s:\n", groups[g],
				        mode == MODE_ROUTER && g == 3 ? " (for FILEs that are traces)" : "");
			heading = true;
			print_row(out, &rows[i]);
		}
	}
	fprintf(out, "\n%s", s->exit_status);
}

/* The getopt table: each name once, in table order. Caller frees. */
static struct option *getopt_table(void)
{
	struct option *all = calloc(NROWS + 1, sizeof(*all));
	size_t n = 0;

	if (all == NULL)
		return NULL;
	for (size_t i = 0; i < NROWS; i++) {
		bool seen = false;
		for (size_t j = 0; j < n && !seen; j++)
			seen = strcmp(all[j].name, rows[i].name) == 0;
		if (!seen)
			all[n++] = (struct option){rows[i].name, rows[i].has_arg, NULL, rows[i].id};
	}
	return all;
}

static bool applies(int id, cli_mode mode)
{
	for (size_t i = 0; i < NROWS; i++)
		if (rows[i].id == id && (rows[i].modes & MODE_BIT(mode)))
			return true;
	return false;
}

/* getopt's own messages would name argv[0]; ours name the option. */
static int option_error(cli_mode mode, int opt, char **argv)
{
	const char *word = optind > 0 ? argv[optind - 1] : "?";

	if (opt == ':')
		return cli_usage_error(mode, "option '%.100s' needs a value", word);
	if (optopt > ' ' && optopt < 127)
		return cli_usage_error(mode, "unknown option '-%c'", optopt);
	return cli_usage_error(mode, "unknown option '%.100s'", word);
}

static int not_for_mode(cli_mode mode, const struct option *table, int longindex, int opt)
{
	const char *word = mode_word(mode);
	char name[64];

	if (longindex >= 0)
		snprintf(name, sizeof(name), "--%s", table[longindex].name);
	else
		snprintf(name, sizeof(name), "-%c", opt);
	if (mode == MODE_ROUTER && applies(opt, MODE_TRACE))
		return cli_usage_error(
		    mode, "option '%s' does not apply to 'nextstep' (an option of 'nextstep trace')", name);
	return cli_usage_error(mode, "option '%s' does not apply to 'nextstep%s%s'", name, word ? " " : "",
	                       word ? word : "");
}

/* The subcommand named by argv[1], or the router. */
static const cli_subcommand *pick_subcommand(int argc, char **argv)
{
	if (argc > 1)
		for (size_t i = 1; i < NSUBCOMMANDS; i++)
			if (strcmp(argv[1], subcommands[i].name) == 0)
				return &subcommands[i];
	return &subcommands[0];
}

/* A first word that looks like a subcommand and is no file is a mistyped subcommand, not a missing input. */
static bool looks_like_subcommand(const char *word)
{
	struct stat st;

	if (word[0] < 'a' || word[0] > 'z' ||
	    strspn(word, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(word))
		return false;
	return stat(word, &st) != 0;
}

static int unknown_subcommand(const char *word)
{
	fprintf(stderr, "nextstep: unknown subcommand '%.100s' (and no such file)\nSubcommands:", word);
	for (size_t i = 1; i < NSUBCOMMANDS; i++)
		fprintf(stderr, " %s", subcommands[i].name);
	fputs("\nTry 'nextstep --help'.\n", stderr);
	return EXIT_USAGE;
}

/* The router form takes the trace options for its inputs that are traces and the profile options for those
 * that are profiles (the rows' groups say which); the first of each given is kept so the router can refuse it
 * when no input is of that kind. */
static void note_router_scope(cli_config *cfg, int id)
{
	for (size_t i = 0; i < NROWS && cfg->mode == MODE_ROUTER; i++) {
		if (rows[i].id != id || !(rows[i].modes & M_ROUTER))
			continue;
		if (strcmp(rows[i].group, "Trace") == 0 && cfg->traces_only_option == NULL)
			cfg->traces_only_option = rows[i].name;
		else if (strcmp(rows[i].group, "Profile") == 0 && cfg->profiles_only_option == NULL)
			cfg->profiles_only_option = rows[i].name;
		return;
	}
}

static int getopt_loop(int argc, char **argv, cli_config *cfg, const struct option *table)
{
	int opt, longindex, rc = -1;

	opterr = 0;
	while (rc < 0) {
		longindex = -1;
		opt = getopt_long(argc, argv, ":hVvqj:", table, &longindex);
		if (opt == -1)
			break;
		if (opt == '?' || opt == ':')
			rc = option_error(cfg->mode, opt, argv);
		else if (!applies(opt, cfg->mode))
			rc = not_for_mode(cfg->mode, table, longindex, opt);
		else
			rc = cli_config_set(cfg, opt, optarg);
		if (rc < 0)
			note_router_scope(cfg, opt);
	}
	return rc;
}

int cli_parse(int argc, char **argv, cli_config *cfg)
{
	const cli_subcommand *sub = pick_subcommand(argc, argv);
	struct option *table = getopt_table();
	int skip = sub->name != NULL ? 1 : 0;
	int rc;

	cli_config_init(cfg, sub->mode);
	if (table == NULL) {
		fputs("nextstep: out of memory\n", stderr);
		return EXIT_BAD_INPUT;
	}
	if (sub->name == NULL && argc > 1 && looks_like_subcommand(argv[1])) {
		free(table);
		return unknown_subcommand(argv[1]);
	}
	/* getopt sees the subcommand's words only: argv[skip] plays argv[0]. It runs once per process, so
	 * optind starts at 1 as POSIX sets it. */
	rc = getopt_loop(argc - skip, argv + skip, cfg, table);
	free(table);
	if (rc >= 0)
		return rc;
	cfg->operands = argv + skip + optind;
	cfg->noperands = argc - skip - optind;
	return cli_config_finish(cfg);
}

int cli_run(cli_config *cfg)
{
	return cli_subcommand_of(cfg->mode)->run(cfg);
}
