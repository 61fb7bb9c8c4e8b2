/* The option and subcommand tables (cli_options.h): every option with the modes it applies to and its help,
 * every subcommand with its usage, what it does and its exit statuses. Data only: cli_options.c parses and
 * prints help from them. */
#include <getopt.h>
#include <stddef.h>

#include "cli_options.h"

#define M_ALL (M_ROUTER | M_TRACE | M_ROOFLINE | M_SCALING | M_DEVICES | M_DIFF | M_JOB | M_BUDGET)
#define M_VERDICTS                                                                                           \
	(M_ROUTER | M_TRACE | M_ROOFLINE | M_SCALING | M_DIFF | M_JOB |                                      \
	 M_BUDGET) /* the modes that print a routed verdict */
/* The modes whose -v and -q mean the router's (the others have rows of their own). */
#define M_SPLIT_VERDICTS (M_VERDICTS & ~(M_DIFF | M_BUDGET))

const cli_option_row cli_option_rows[] = {
    {"Profile", "compute", required_argument, OPT_BUCKET + NS_REGIME_COMPUTE, M_ROUTER, "X",
     "share of step time in compute (0.72 or 72%)"},
    {"Profile", "memory", required_argument, OPT_BUCKET + NS_REGIME_MEMORY, M_ROUTER, "X",
     "... in memory-bound kernels"},
    {"Profile", "comm", required_argument, OPT_BUCKET + NS_REGIME_COMM, M_ROUTER, "X",
     "... in communication"},
    {"Profile", "dataloader", required_argument, OPT_BUCKET + NS_REGIME_DATALOADER, M_ROUTER, "X",
     "... waiting for the data loader"},
    {"Profile", "overhead", required_argument, OPT_BUCKET + NS_REGIME_OVERHEAD, M_ROUTER, "X",
     "... in launch and framework overhead"},
    {"Profile", "idle", required_argument, OPT_BUCKET + NS_REGIME_IDLE, M_ROUTER, "X",
     "... with the GPU idle"},
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
     "add or override devices (JSON, like data/devices.json) for --roofline and the\n"
     "peaks the fp32 advice names; repeatable"},
    {"Trace", "device-file", required_argument, OPT_DEVICE_FILE, M_JOB, "FILE",
     "add or override devices (JSON, like data/devices.json) for the ranks' fp32\n"
     "advice, as 'nextstep trace' does; repeatable"},
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
    {"Workload", "transformer", no_argument, OPT_TRANSFORMER, M_ROOFLINE, NULL,
     "one pass of a decoder-only transformer, term by term: --layers, --hidden,\n"
     "--heads and --vocab at least (with --kv-heads, --head-dim, --intermediate,\n"
     "--mlp, --tied-embeddings, --biases, --positions); --seq tokens for each of\n"
     "--batch sequences on --context cached ones; --decode: one token each;\n"
     "--train: forward + backward"},
    {"Workload", "seq", required_argument, OPT_SEQ, M_ROOFLINE, "S",
     "tokens per sequence in the pass (--transformer)"},
    {"Workload", "hidden", required_argument, OPT_HIDDEN, M_ROOFLINE, "D", "hidden size (--transformer)"},
    {"Workload", "vocab", required_argument, OPT_VOCAB, M_ROOFLINE, "V", "vocabulary size (--transformer)"},
    {"Workload", "intermediate", required_argument, OPT_INTERMEDIATE, M_ROOFLINE, "F",
     "MLP width (default 4 x --hidden)"},
    {"Workload", "mlp", required_argument, OPT_MLP, M_ROOFLINE, "KIND",
     "gated (SwiGLU: gate, up, down; the default) or plain (up, down)"},
    {"Workload", "tied-embeddings", no_argument, OPT_TIED_EMBEDDINGS, M_ROOFLINE, NULL,
     "the output projection is the embedding (parameter count only)"},
    {"Workload", "biases", no_argument, OPT_BIASES, M_ROOFLINE, NULL,
     "linear and LayerNorm biases, as GPT-2 has (parameter count)"},
    {"Workload", "positions", required_argument, OPT_POSITIONS, M_ROOFLINE, "N",
     "a learned position table of N rows, as GPT-2 has (parameter count)"},
    {"Workload", "train", no_argument, OPT_TRAIN, M_ROOFLINE, NULL, "a training step: forward and backward"},
    {"Workload", "kv-dtype", required_argument, OPT_KV_DTYPE, M_ROOFLINE, "T",
     "the KV cache's dtype (default --dtype)"},
    {"Model", "device", required_argument, OPT_DEVICE, M_BUDGET, "NAME",
     "the device whose memory the budget must fit (see 'nextstep devices')"},
    {"Model", "device-memory", required_argument, OPT_DEVICE_MEMORY, M_BUDGET, "B",
     "the memory to fit instead of the device's (80GB, 40GiB: a MIG slice)"},
    {"Model", "device-file", required_argument, OPT_DEVICE_FILE, M_BUDGET, "FILE",
     "add or override devices (JSON, like data/devices.json); repeatable"},
    {"Model", "params", required_argument, OPT_PARAMS, M_BUDGET, "P",
     "parameter count (7B), when the architecture is not given"},
    {"Model", "layers", required_argument, OPT_LAYERS, M_BUDGET, "N", "transformer layers"},
    {"Model", "hidden", required_argument, OPT_HIDDEN, M_BUDGET, "D", "hidden size"},
    {"Model", "heads", required_argument, OPT_HEADS, M_BUDGET, "Q", "query heads"},
    {"Model", "kv-heads", required_argument, OPT_KV_HEADS, M_BUDGET, "H",
     "key/value heads (grouped-query attention; default --heads)"},
    {"Model", "head-dim", required_argument, OPT_HEAD_DIM, M_BUDGET, "D",
     "size of one head (default --hidden / --heads)"},
    {"Model", "vocab", required_argument, OPT_VOCAB, M_BUDGET, "V", "vocabulary size"},
    {"Model", "intermediate", required_argument, OPT_INTERMEDIATE, M_BUDGET, "F",
     "MLP width (default 4 x --hidden)"},
    {"Model", "mlp", required_argument, OPT_MLP, M_BUDGET, "KIND",
     "gated (SwiGLU: gate, up, down; the default) or plain (up, down)"},
    {"Model", "tied-embeddings", no_argument, OPT_TIED_EMBEDDINGS, M_BUDGET, NULL,
     "the output projection is the embedding"},
    {"Model", "biases", no_argument, OPT_BIASES, M_BUDGET, NULL, "linear and LayerNorm biases, as GPT-2 has"},
    {"Model", "positions", required_argument, OPT_POSITIONS, M_BUDGET, "N",
     "a learned position table of N rows, as GPT-2 has"},
    {"Model", "dtype", required_argument, OPT_DTYPE, M_BUDGET, "T",
     "the weights' (and activations') dtype (default bf16)"},
    {"Model", "kv-dtype", required_argument, OPT_KV_DTYPE, M_BUDGET, "T",
     "the KV cache's dtype (default --dtype)"},
    {"Model", "context", required_argument, OPT_CONTEXT, M_BUDGET, "L",
     "tokens per sequence: in the KV cache, or the sequence length (--train)"},
    {"Model", "batch", required_argument, OPT_BATCH, M_BUDGET, "B", "sequences (default 1)"},
    {"Model", "decode", no_argument, OPT_DECODE, M_BUDGET, NULL,
     "activations of one decode step (not the prefill), and whether the batch\n"
     "that reaches the device's ridge fits ('nextstep roofline --decode')"},
    {"Model", "train", no_argument, OPT_TRAIN, M_BUDGET, NULL,
     "a training step: gradients, optimizer state and the activations kept\nfor the backward; no KV cache"},
    {"Model", "optimizer", required_argument, OPT_OPTIMIZER, M_BUDGET, "NAME",
     "adamw (two moments; the default), sgd (momentum) or adafactor (factored)"},
    {"Model", "grad-dtype", required_argument, OPT_GRAD_DTYPE, M_BUDGET, "T",
     "the gradients' dtype (default --dtype)"},
    {"Model", "state-dtype", required_argument, OPT_STATE_DTYPE, M_BUDGET, "T",
     "the optimizer state's dtype (default fp32)"},
    {"Model", "no-master-weights", no_argument, OPT_NO_MASTER_WEIGHTS, M_BUDGET, NULL,
     "no fp32 copy of lower-precision weights (pure bf16 training)"},
    {"Model", "checkpointing", no_argument, OPT_CHECKPOINTING, M_BUDGET, NULL,
     "full activation checkpointing: keep each layer's input, recompute the rest"},
    {"Model", "eager-attention", no_argument, OPT_EAGER_ATTENTION, M_BUDGET, NULL,
     "the attention scores are materialised (no FlashAttention)"},
    {"Model", "dropout", no_argument, OPT_DROPOUT, M_BUDGET, NULL,
     "dropout masks are kept (one byte an element)"},
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
    {"Output", "label", required_argument, OPT_LABEL, M_ROOFLINE | M_SCALING | M_BUDGET, "NAME",
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
    {"Output", "explain", no_argument, OPT_EXPLAIN, M_SPLIT_VERDICTS, NULL,
     "add the ranked split, runner-up, findings and the check that confirms the fix"},
    {"Output", "explain", no_argument, OPT_EXPLAIN, M_BUDGET, NULL,
     "add each term's formula, the assumptions and the check that confirms the fix"},
    {"Output", "explain", no_argument, OPT_EXPLAIN, M_DIFF, NULL,
     "add both sides, the buckets (and causes) in ms per step, and the kernels"},
    {"Output", "explain", no_argument, OPT_EXPLAIN, M_DEVICES, NULL,
     "add each device's aliases, ridge points and datasheet source"},
    {"Output", "verbose", no_argument, OPT_EXPLAIN, M_ALL, NULL, NULL},
    {"Output", "quiet", no_argument, OPT_QUIET, M_SPLIT_VERDICTS, NULL, "print only the regime name"},
    {"Output", "quiet", no_argument, OPT_QUIET, M_BUDGET, NULL,
     "print only the fit: fits, tight, no_fit or unknown"},
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
    "       nextstep budget (--device NAME | --device-memory B) (--params P | --layers N --hidden D ...) "
    "[options]\n"
    "       nextstep devices\n";

const cli_subcommand cli_subcommands[] = {
    {NULL, MODE_ROUTER, cli_router_run, router_usage,
     "Names the dominant bottleneck of a training or inference step and the one fix for it.\n"
     "Shares are fractions of step time (0.72) or percentages (72%); missing buckets count as 0.\n"
     "FILE holds a JSON object, an array of objects, or NDJSON (one object a line, streamed);\n"
     "a PyTorch-profiler trace (plain or gzip) is read as by 'nextstep trace', with the trace options.\n"
     "A trace option when no FILE is a trace, or a profile option when none is a profile, is a usage error.\n"
     "'-' or no FILE reads stdin. Several FILEs are each reported, labelled with their name.\n"
     "Subcommands: trace, diff, job, roofline, scaling, budget, devices ('nextstep SUBCOMMAND --help'); the\n"
     "subcommand is the first word only: a FILE named like one is given as ./trace or after --.\n",
     "Exit status: 0 every profile routed; 1 some input was bad (the others still reported); 2 usage "
     "error;\n4 a trace's quality below --min-quality.\n"},
    {"trace", MODE_TRACE, cli_trace_run, "usage: nextstep trace [options] FILE|DIR...\n",
     "Splits each step of a PyTorch-profiler (Kineto) trace or an Nsight Systems SQLite export, per\n"
     "device, into compute, memory, comm, dataloader, overhead and idle time, and routes the split like\n"
     "the router does. FILE is a JSON trace, plain or gzip, or an Nsight Systems export to SQLite;\n"
     "DIR stands for the trace files in it (*.json, *.json.gz, *.sqlite, by name; -v names the entries\n"
     "left out); '-' (or no FILE with stdin not a terminal) reads stdin (JSON only). Several files are\n"
     "read at once (-j) and each reported in the order given, labelled with its name; the ranks of one\n"
     "job (distributedInfo, or the rank in an export's environment) get one job report instead. Under\n"
     "each verdict, \"next step:\" names the fix with the most step time to win and its bound (ms a\n"
     "step); -v lists every fix ranked, with the basis of its bound.\n",
     "Exit status: 0 routed; 1 a bad trace or rules file (the other FILEs still reported); 2 usage error;\n"
     "4 a trace's quality below --min-quality (and no bad input).\n"},
    {"roofline", MODE_ROOFLINE, cli_roofline_run,
     "usage: nextstep roofline --device NAME [--dtype T] WORKLOAD [--time T] [--svg FILE] [options]\n"
     "WORKLOAD is one of:\n"
     "  --flops F --bytes B\n"
     "  --matmul M,N,K [--batch B]\n"
     "  --elementwise N [--inputs K] [--outputs M] [--flops-per-element F]\n"
     "  --decode --params P [--batch B] [--context L --layers N --kv-heads H --head-dim D [--heads Q]]\n"
     "  --transformer --layers N --hidden D --heads Q --vocab V (--seq S | --decode) [--batch B]\n"
     "                [--context L] [--train]\n",
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
    {"budget", MODE_BUDGET, cli_budget_run,
     "usage: nextstep budget (--device NAME | --device-memory B) (--params P | --layers N --hidden D --heads "
     "Q\n"
     "                       --vocab V [--kv-heads H] [--head-dim D] [--intermediate F]) [--context L]\n"
     "                       [--batch B] [--decode | --train [--optimizer NAME] [--checkpointing]] "
     "[options]\n",
     "Where the memory goes: the weights, KV cache and activations of an inference run, or the weights,\n"
     "gradients, optimizer state and activations of a training step, each in bytes and as a share, the\n"
     "total against the device's memory, the largest batch at this context and the longest context at\n"
     "this batch that fit. The verdict is routed by the largest term (a playbook's \"findings\":\n"
     "budget_weights, budget_kv_cache, budget_activations, budget_training_state). See docs/budget.md.\n",
     "Exit status: 0 budgeted (whether it fits or not); 1 a bad data file (device table, playbook); 2 usage\n"
     "error.\n"},
};
const size_t cli_subcommand_count = sizeof(cli_subcommands) / sizeof(cli_subcommands[0]);
