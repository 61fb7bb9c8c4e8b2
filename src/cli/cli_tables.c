/* The option and subcommand tables (cli_options.h): every option with the modes it applies to and its help,
 * every subcommand with its usage, what it does and its exit statuses. Data only: cli_options.c parses and
 * prints help from them. */
#include <getopt.h>
#include <stddef.h>

#include "cli_options.h"

#define M_ALL (M_ROUTER | M_TRACE | M_ROOFLINE | M_SCALING | M_DEVICES | M_DIFF | M_JOB)
#define M_VERDICTS                                                                                           \
	(M_ROUTER | M_TRACE | M_ROOFLINE | M_SCALING | M_DIFF |                                              \
	 M_JOB) /* the modes that print a routed verdict */

const cli_option_row cli_option_rows[] = {
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
     "place the ops (matmul, conv, attention, norm, element-wise, ...) on the device's roofline"},
    {"Trace", "device", required_argument, OPT_DEVICE, M_TRACES, "NAME",
     "the device for --roofline instead of the trace's (implies --roofline)"},
    {"Trace", "dtype", required_argument, OPT_DTYPE, M_TRACES, "T",
     "the dtype for every op instead of its Input type (implies --roofline)"},
    {"Trace", "device-file", required_argument, OPT_DEVICE_FILE, M_TRACES, "FILE",
     "add or override devices for --roofline (JSON, like data/devices.json); repeatable"},
    {"Trace", "min-quality", required_argument, OPT_MIN_QUALITY, M_TRACES | M_JOB, "G",
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
    {"Output", "force", no_argument, OPT_FORCE, M_TRACES | M_DIFF | M_JOB, NULL,
     "let --html replace an existing file that is not a page nextstep wrote\n(never an input of the run)"},
    {"Workload", "force", no_argument, OPT_FORCE, M_ROOFLINE, NULL,
     "let --svg replace an existing file that is not a plot nextstep drew"},
    /* not diff: its text has no colour, so the options would mean nothing there */
    {"Output", "color", required_argument, OPT_COLOR, M_VERDICTS & ~M_DIFF, "WHEN",
     "always, never or auto (default: on a terminal, unless NO_COLOR is set\nand not empty)"},
    {"Output", "no-color", no_argument, OPT_NO_COLOR, M_VERDICTS & ~M_DIFF, NULL, "same as --color=never"},
    {"Output", "help", no_argument, OPT_HELP, M_ALL, NULL, "this help"},
    {"Output", "version", no_argument, OPT_VERSION, M_ROUTER, NULL, "the version"},
};
const size_t cli_option_count = sizeof(cli_option_rows) / sizeof(cli_option_rows[0]);

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

const cli_subcommand cli_subcommands[] = {
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
const size_t cli_subcommand_count = sizeof(cli_subcommands) / sizeof(cli_subcommands[0]);
