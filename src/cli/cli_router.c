#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_common.h"
#include "nextstep/parse_flags.h"
#include "nextstep/parse_json.h"

/* Router-only option ids; the bucket flags are numbered by regime so one case handles them all. */
enum {
	OPT_BUCKET_FIRST = 1200, /* clear of the short options and of the shared ids */
	OPT_BUCKET_LAST = OPT_BUCKET_FIRST + REGIME_COUNT - 1,
	OPT_LABEL,
	OPT_NORMALIZE,
	OPT_STRICT,
};

static const struct option router_options[] = {
    {"comm", required_argument, NULL, OPT_BUCKET_FIRST + REGIME_COMM},
    {"compute", required_argument, NULL, OPT_BUCKET_FIRST + REGIME_COMPUTE},
    {"dataloader", required_argument, NULL, OPT_BUCKET_FIRST + REGIME_DATALOADER},
    {"help", no_argument, NULL, 'h'},
    {"idle", required_argument, NULL, OPT_BUCKET_FIRST + REGIME_IDLE},
    {"label", required_argument, NULL, OPT_LABEL},
    {"memory", required_argument, NULL, OPT_BUCKET_FIRST + REGIME_MEMORY},
    {"normalize", no_argument, NULL, OPT_NORMALIZE},
    {"overhead", required_argument, NULL, OPT_BUCKET_FIRST + REGIME_OVERHEAD},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static const char usage_text[] =
    "usage: nextstep [--compute X] [--memory X] [--comm X] [--idle X] [--dataloader X] [--overhead X]\n"
    "                [--label NAME] [options]\n"
    "       nextstep [options] [FILE|-]\n"
    "       nextstep trace [options] FILE\n"
    "       nextstep roofline --device NAME (--flops F --bytes B | --matmul M,N,K | ...) [options]\n"
    "       nextstep scaling --time T1 --time-2x T2\n"
    "       nextstep devices\n";

static const char help_text[] =
    "\n"
    "Names the dominant bottleneck of a training or inference step and the one fix for it.\n"
    "Shares are fractions of step time (0.72) or percentages (72%); missing buckets count as 0.\n"
    "FILE holds a JSON object, an array of objects, or NDJSON (one object a line, streamed);\n"
    "a PyTorch-profiler trace (plain or gzip) is read as by 'nextstep trace'. '-' or no FILE reads stdin.\n"
    "\n"
    "Profile:\n"
    "  --compute X --memory X --comm X --idle X --dataloader X --overhead X\n"
    "                     the split from flags\n"
    "  --label NAME       prefix the verdict with NAME\n"
    "  --normalize        rescale shares that sum above 1 instead of failing\n"
    "  --strict           unknown JSON keys are errors (default: a warning)\n"
    "Classification:\n"
    "  --priority LIST    tie order, all six regimes (default\n"
    "                     compute,memory,comm,dataloader,overhead,idle)\n"
    "  --tie T            shares within T of the largest count as tied (default 0)\n"
    "  --high X           grade secondary findings high at X or more (default 20%)\n"
    "  --moderate X       grade them moderate at X or more (default 5%)\n"
    "  --playbook FILE    routes from a JSON playbook, replacing or extending the built-in ones\n"
    "Output:\n"
    "  --format text|json one line per profile (default) or one JSON object per profile\n"
    "  -v, --explain      add the ranked split, runner-up, findings and the check that confirms the fix\n"
    "  -q, --quiet        print only the regime name\n"
    "  --no-color         no colour even on a terminal (NO_COLOR is honoured too)\n"
    "  -h, --help         this help;  -V, --version  the version\n"
    "\n"
    "Exit status: 0 every profile routed; 1 some input was bad; 2 usage error.\n";

typedef struct {
	router_config cfg;
	ns_profile flags;
	bool any_flag;
	bool normalize;
	bool strict;
	const char *label;
	ns_input first;         /* the first operand (or stdin), opened and sniffed before option parsing */
	const char *first_path; /* its argv string, NULL when nothing was opened */
} router_run;

static void print_warning(const char *where, const ns_error *pos, const char *warning)
{
	ns_error w = *pos;

	snprintf(w.msg, sizeof(w.msg), "warning: %s", warning);
	cli_report_error(where, &w);
}

static void report_bad_record(router_run *run, const char *where, const ns_error *err)
{
	cli_report_error(where, err);
	if (run->cfg.format.kind == FORMAT_JSON)
		format_error_json(stdout, err);
}

static void route_profile(router_run *run, ns_profile *p)
{
	ns_verdict v;

	if (run->label != NULL)
		profile_set_label(p, run->label);
	classify_profile(p, &run->cfg.classify, &v);
	format_verdict(stdout, p->label, &v, &run->cfg.routes, &run->cfg.format);
}

/* Routes every record of one input; a bad record is reported in its place and the stream goes on. */
static int route_stream(router_run *run, ns_input *in)
{
	const char *where = input_display_name(in);
	profile_reader *reader = profile_reader_new(in, run->strict);
	char warning[PARSE_WARNING_MAX];
	ns_profile p;
	ns_error err;
	profile_read_result res;
	int rc = EXIT_ROUTED;

	if (reader == NULL) {
		fprintf(stderr, "nextstep: out of memory\n");
		return EXIT_BAD_INPUT;
	}
	ns_error_clear(&err);
	while ((res = profile_reader_next(reader, &p, warning, &err)) != PROFILE_READ_END) {
		if (res == PROFILE_READ_OK && warning[0] != '\0')
			print_warning(where, &err, warning);
		if (res == PROFILE_READ_OK && profile_validate(&p, run->normalize, &err) == NS_OK) {
			route_profile(run, &p);
			continue;
		}
		report_bad_record(run, where, &err);
		rc = EXIT_BAD_INPUT;
	}
	if (in->read_errno != 0) {
		ns_error_clear(&err);
		ns_error_set(&err, NS_ERR_IO, "read error: %s", strerror(in->read_errno));
		report_bad_record(run, where, &err);
		rc = EXIT_BAD_INPUT;
	}
	profile_reader_free(reader);
	return rc;
}

static int route_file(router_run *run, const char *path, int argc, char **argv)
{
	ns_input in;
	ns_error err;
	int rc;

	ns_error_clear(&err);
	if (path == run->first_path) {
		in = run->first;
		run->first_path = NULL;
	} else if (input_open(&in, path, &err) != NS_OK) {
		cli_report_error(path, &err);
		return EXIT_BAD_INPUT;
	}
	switch (input_sniff(&in)) {
	case INPUT_TRACE:
	case INPUT_GZIP:
		rc = cli_trace_main(argc, argv, &in);
		break;
	case INPUT_EMPTY:
	case INPUT_PROFILE:
	default:
		rc = route_stream(run, &in);
		break;
	}
	input_close(&in);
	return rc;
}

static int route_flags(router_run *run)
{
	ns_error err;

	ns_error_clear(&err);
	if (profile_validate(&run->flags, run->normalize, &err) != NS_OK) {
		cli_report_error(NULL, &err);
		return EXIT_USAGE;
	}
	route_profile(run, &run->flags);
	return EXIT_ROUTED;
}

/* Returns -1 to go on, or an exit status. */
static int handle_option(router_run *run, int opt, char **argv)
{
	ns_error err;
	ns_status st = NS_OK;

	ns_error_clear(&err);
	if (opt >= OPT_BUCKET_FIRST && opt <= OPT_BUCKET_LAST) {
		run->any_flag = true;
		st = parse_flag_bucket(&run->flags, (ns_regime)(opt - OPT_BUCKET_FIRST), optarg, &err);
	} else if (opt == OPT_LABEL) {
		run->label = optarg;
	} else if (opt == OPT_NORMALIZE) {
		run->normalize = true;
	} else if (opt == OPT_STRICT) {
		run->strict = true;
	} else if (opt == 'h') {
		fputs(usage_text, stdout);
		fputs(help_text, stdout);
		return EXIT_ROUTED;
	} else if (opt == 'V') {
		printf("nextstep %s\n", NS_VERSION);
		return EXIT_ROUTED;
	} else if (opt == '?' || opt == ':') {
		return cli_option_error(NULL, opt, argv);
	} else if (!cli_common_handle(opt, optarg, &run->cfg, &err, &st)) {
		return cli_usage_error(NULL, "option not handled");
	}
	if (st == NS_OK)
		return -1;
	if (st == NS_ERR_USAGE)
		return cli_usage_error(NULL, err.msg);
	cli_report_error(NULL, &err);
	return EXIT_BAD_INPUT;
}

static int run_router(router_run *run, int argc, char **argv)
{
	int rc = EXIT_ROUTED;

	if (run->any_flag && optind < argc)
		return cli_usage_error(NULL, "give either bucket flags or a FILE, not both");
	if (run->any_flag)
		return route_flags(run);
	if (optind == argc) {
		if (isatty(STDIN_FILENO)) {
			fputs(usage_text, stderr);
			fputs("Try 'nextstep --help'.\n", stderr);
			return EXIT_USAGE;
		}
		return route_file(run, run->first_path != NULL ? run->first_path : "-", argc, argv);
	}
	for (int i = optind; i < argc; i++) {
		int one = route_file(run, argv[i], argc, argv);
		if (one > rc)
			rc = one;
	}
	return rc;
}

static const struct option *find_long(const struct option *options, const char *arg)
{
	size_t len = strcspn(arg, "=");

	for (const struct option *o = options; o->name != NULL; o++)
		if (strlen(o->name) == len && strncmp(o->name, arg, len) == 0)
			return o;
	return NULL;
}

/* The first FILE operand, "-" for stdin, or NULL when bucket flags, --help or --version are given (stdin must
 * then stay untouched: the caller may be a shell loop reading it). Options unknown here (a trace option) are
 * taken as switches. */
static const char *first_operand(int argc, char **argv, const struct option *options)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct option *o;
		if (strcmp(a, "--") == 0)
			return i + 1 < argc ? argv[i + 1] : "-";
		if (a[0] != '-' || a[1] == '\0')
			return a;
		if (a[1] != '-') {
			if (strpbrk(a, "hV") != NULL)
				return NULL;
			continue;
		}
		o = find_long(options, a + 2);
		if (o != NULL && ((o->val >= OPT_BUCKET_FIRST && o->val <= OPT_BUCKET_LAST) ||
		                  o->val == 'h' || o->val == 'V'))
			return NULL;
		if (o != NULL && o->has_arg == required_argument && strchr(a, '=') == NULL)
			i++;
	}
	return "-";
}

/* A trace given to the router form is handed whole to the trace mode, which parses its own options. */
static bool open_first_operand(router_run *run, int argc, char **argv, const struct option *options)
{
	const char *path = first_operand(argc, argv, options);
	ns_error err;

	if (path == NULL || (strcmp(path, "-") == 0 && isatty(STDIN_FILENO)))
		return false;
	ns_error_clear(&err);
	if (input_open(&run->first, path, &err) != NS_OK)
		return false; /* reported when the operand is routed */
	run->first_path = path;
	return true;
}

static bool first_is_trace(router_run *run)
{
	input_kind kind = input_sniff(&run->first);

	return kind == INPUT_TRACE || kind == INPUT_GZIP;
}

int cli_router_main(int argc, char **argv)
{
	router_run run;
	ns_error err;
	struct option *options;
	int opt, rc = -1;

	memset(&run, 0, sizeof(run));
	profile_init(&run.flags);
	ns_error_clear(&err);
	if (router_config_init(&run.cfg, &err) != NS_OK) {
		cli_report_error(NULL, &err);
		return EXIT_BAD_INPUT;
	}
	options = cli_options_merge(router_options);
	if (options == NULL) {
		router_config_free(&run.cfg);
		fprintf(stderr, "nextstep: out of memory\n");
		return EXIT_BAD_INPUT;
	}
	if (open_first_operand(&run, argc, argv, options) && first_is_trace(&run)) {
		rc = cli_trace_main(argc, argv, &run.first);
		input_close(&run.first);
		free(options);
		router_config_free(&run.cfg);
		return rc;
	}
	opterr = 0;
	while (rc < 0 && (opt = getopt_long(argc, argv, ":hV" CLI_COMMON_SHORT, options, NULL)) != -1)
		rc = handle_option(&run, opt, argv);
	if (rc < 0)
		rc = run_router(&run, argc, argv);
	if (run.first_path != NULL)
		input_close(&run.first);
	free(options);
	router_config_free(&run.cfg);
	return rc;
}
