#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_common.h"
#include "nextstep/kernel_rules.h"
#include "nextstep/trace_kernels.h"
#include "nextstep/trace_read.h"
#include "nextstep/trace_report.h"
#include "nextstep/trace_roofline.h"
#include "nextstep/trace_split.h"

/* Largest --top accepted. */
#define TOP_MAX 1000

enum {
	OPT_KERNEL_RULES = 200,
	OPT_STEPS,
	OPT_TOP,
};

/* --roofline and its options (trace_roofline.c). */
enum {
	OPT_ROOFLINE = 300,
	OPT_DEVICE,
	OPT_DTYPE,
};

static const struct option trace_options[] = {
    {"device", required_argument, NULL, OPT_DEVICE},
    {"dtype", required_argument, NULL, OPT_DTYPE},
    {"help", no_argument, NULL, 'h'},
    {"kernel-rules", required_argument, NULL, OPT_KERNEL_RULES},
    {"roofline", no_argument, NULL, OPT_ROOFLINE},
    {"steps", no_argument, NULL, OPT_STEPS},
    {"top", required_argument, NULL, OPT_TOP},
    {NULL, 0, NULL, 0},
};

static const char usage_text[] = "usage: nextstep trace [options] FILE\n";

static const char help_text[] =
    "\n"
    "Splits each step of a PyTorch-profiler (Kineto) trace, per device, into compute, memory, comm,\n"
    "dataloader, overhead and idle time, and routes the split like the router does. FILE is a JSON\n"
    "trace, plain or gzip; '-' reads stdin; several FILEs are reported one after the other.\n"
    "\n"
    "Trace:\n"
    "  --steps            one line per step (text output)\n"
    "  --top N            kernels listed with -v and in JSON, and --roofline's ops (default 5)\n"
    "  --kernel-rules FILE\n"
    "                     kernel-name classes from a JSON rules file instead of the built-in table:\n"
    "                     {\"rules\": [{\"match\": \"gemm\", \"regex\": false, \"class\": \"compute\"}, "
    "...]}\n"
    "  --roofline         place the matmul ops (mm, addmm, linear, bmm, ...) on the device's roofline\n"
    "  --device NAME      the device for --roofline instead of the trace's (implies --roofline)\n"
    "  --dtype T          the dtype for every op instead of its Input type (implies --roofline)\n"
    "Classification:\n"
    "  --priority LIST  --tie T  --high X  --moderate X  --playbook FILE   as for the router\n"
    "Output:\n"
    "  --format text|json one report per device (default) or one JSON document per trace\n"
    "  -v, --explain      add the router's explanation, exposed vs hidden comm and the top kernels\n"
    "  -q, --quiet        print only the regime name of each device\n"
    "  --no-color         no colour even on a terminal\n"
    "  -h, --help         this help\n"
    "\n"
    "Exit status: 0 routed; 1 bad trace or rules file; 2 usage error.\n";

typedef struct {
	router_config cfg;
	const char *rules_path;
	kernel_rules *rules;
	bool steps;
	size_t top;
	bool roofline;
	troof_options roof;
} trace_run;

/* "nextstep: FILE: byte N: msg", the position being the byte offset in the decompressed document. */
static void report_trace_error(const char *where, const ns_error *err)
{
	if (err->offset >= 0)
		fprintf(stderr, "nextstep: %s: byte %lld: %s\n", where, err->offset, err->msg);
	else
		fprintf(stderr, "nextstep: %s: %s\n", where, err->msg);
}

static int parse_top(const char *arg, size_t *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || v < 0 || v > TOP_MAX)
		return -1;
	*out = (size_t)v;
	return 0;
}

static int usage_error(const char *msg)
{
	return cli_usage_error("trace", msg);
}

static int top_error(const char *arg)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "--top must be a whole number from 0 to %d, not '%s'", TOP_MAX, arg);
	return usage_error(msg);
}

static int handle_roofline_option(trace_run *run, int opt)
{
	ns_error err;
	char msg[160];

	ns_error_clear(&err);
	run->roofline = true;
	if (opt == OPT_DEVICE) {
		run->roof.device = optarg;
		return trace_roofline_check_device(optarg, &err) == NS_OK ? -1 : usage_error(err.msg);
	}
	if (opt == OPT_DTYPE && !dtype_from_name(optarg, &run->roof.dtype)) {
		snprintf(msg, sizeof(msg), "--dtype: unknown dtype '%.100s'", optarg);
		return usage_error(msg);
	}
	run->roof.has_dtype = run->roof.has_dtype || opt == OPT_DTYPE;
	return -1;
}

/* Returns -1 to go on, or an exit status. */
static int handle_option(trace_run *run, int opt, char **argv)
{
	ns_error err;
	ns_status st = NS_OK;

	ns_error_clear(&err);
	switch (opt) {
	case 'h':
		fputs(usage_text, stdout);
		fputs(help_text, stdout);
		return EXIT_ROUTED;
	case OPT_KERNEL_RULES:
		run->rules_path = optarg;
		return -1;
	case OPT_STEPS:
		run->steps = true;
		return -1;
	case OPT_TOP:
		return parse_top(optarg, &run->top) == 0 ? -1 : top_error(optarg);
	case OPT_ROOFLINE:
	case OPT_DEVICE:
	case OPT_DTYPE:
		return handle_roofline_option(run, opt);
	default:
		break;
	}
	if (!cli_common_handle(opt, optarg, &run->cfg, &err, &st))
		return cli_option_error("trace", opt, argv);
	if (st == NS_OK)
		return -1;
	if (st == NS_ERR_USAGE)
		return usage_error(err.msg);
	cli_report_error(NULL, &err);
	return EXIT_BAD_INPUT;
}

static int load_rules(trace_run *run)
{
	ns_error err;
	ns_status st;

	ns_error_clear(&err);
	st = run->rules_path != NULL ? kernel_rules_load(run->rules_path, &run->rules, &err)
	                             : kernel_rules_default(&run->rules, &err);
	if (st == NS_OK)
		return -1;
	if (run->rules_path == NULL) {
		cli_report_error(NULL, &err);
		return EXIT_BAD_INPUT;
	}
	if (err.line > 0)
		fprintf(stderr, "nextstep: --kernel-rules %s:%ld: %s\n", run->rules_path, err.line, err.msg);
	else
		fprintf(stderr, "nextstep: --kernel-rules %s: %s\n", run->rules_path, err.msg);
	return EXIT_BAD_INPUT;
}

static int split_input(trace_run *run, ns_input *in)
{
	const char *where = input_display_name(in);
	trace_split *split = trace_split_new(run->rules);
	trace_roofline *roof = run->roofline ? trace_roofline_new() : NULL;
	trace_roofline_tee tee = {trace_split_event, split, roof};
	troof_report roof_report;
	trace_meta meta;
	split_result res;
	ns_error err;
	ns_status st;
	report_options o = {&run->cfg.classify, &run->cfg.routes, &run->cfg.format, where,
	                    run->steps,         run->top};

	memset(&roof_report, 0, sizeof(roof_report));
	if (split == NULL || (run->roofline && roof == NULL)) {
		trace_split_free(split);
		trace_roofline_free(roof);
		fprintf(stderr, "nextstep: out of memory\n");
		return EXIT_BAD_INPUT;
	}
	ns_error_clear(&err);
	memset(&meta, 0, sizeof(meta));
	memset(&res, 0, sizeof(res));
	st = roof != NULL ? trace_read(in, trace_roofline_tee_event, &tee, &meta, &err)
	                  : trace_read(in, trace_split_event, split, &meta, &err);
	if (st == NS_OK && meta.events == 0) {
		err.offset = -1;
		st = ns_error_set(&err, NS_ERR_VALUE, "traceEvents is empty: nothing to split");
	}
	if (st == NS_OK) {
		err.offset = -1;
		st = trace_split_finish(split, &meta, &res, &err);
	}
	if (st == NS_OK && roof != NULL)
		st = trace_roofline_finish(roof, &meta, &run->roof, &roof_report, &err);
	trace_split_free(split);
	trace_roofline_free(roof);
	if (st != NS_OK) {
		report_trace_error(where, &err);
		split_result_free(&res);
		troof_report_free(&roof_report);
		return EXIT_BAD_INPUT;
	}
	if (roof != NULL)
		troof_print_with_report(stdout, &res, &o, &roof_report);
	else
		report_print(stdout, &res, &o);
	split_result_free(&res);
	troof_report_free(&roof_report);
	return EXIT_ROUTED;
}

static int split_file(trace_run *run, const char *path)
{
	ns_input in;
	ns_error err;
	int rc;

	ns_error_clear(&err);
	if (input_open(&in, path, &err) != NS_OK) {
		cli_report_error(path, &err);
		return EXIT_BAD_INPUT;
	}
	rc = split_input(run, &in);
	input_close(&in);
	return rc;
}

static int run_trace(trace_run *run, int argc, char **argv, ns_input *in)
{
	int rc = load_rules(run);

	if (rc >= 0)
		return rc;
	if (in != NULL)
		return split_input(run, in);
	if (optind == argc)
		return usage_error("trace: give a trace FILE (or - for stdin)");
	rc = EXIT_ROUTED;
	for (int i = optind; i < argc; i++) {
		int one = split_file(run, argv[i]);
		if (one > rc)
			rc = one;
	}
	return rc;
}

int cli_trace_main(int argc, char **argv, ns_input *in)
{
	trace_run run;
	ns_error err;
	struct option *options;
	int opt, rc = -1;

	memset(&run, 0, sizeof(run));
	run.top = REPORT_TOP_DEFAULT;
	ns_error_clear(&err);
	if (router_config_init(&run.cfg, &err) != NS_OK) {
		cli_report_error(NULL, &err);
		return EXIT_BAD_INPUT;
	}
	options = cli_options_merge(trace_options);
	if (options == NULL) {
		router_config_free(&run.cfg);
		fprintf(stderr, "nextstep: out of memory\n");
		return EXIT_BAD_INPUT;
	}
	optind = 0; /* the router may have scanned this argv already */
	opterr = 0;
	while (rc < 0 && (opt = getopt_long(argc, argv, ":h" CLI_COMMON_SHORT, options, NULL)) != -1)
		rc = handle_option(&run, opt, argv);
	opterr = 1;
	if (rc < 0)
		rc = run_trace(&run, argc, argv, in);
	kernel_rules_free(run.rules);
	free(options);
	router_config_free(&run.cfg);
	return rc;
}
