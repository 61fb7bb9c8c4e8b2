/* Option values into the configuration: each option's value is parsed and checked here, once, whichever mode
 * it is for; what needs every option (colour, the playbook, thresholds against each other) is settled in
 * cli_config_finish(). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_model.h"
#include "cli_options.h"
#include "cli_parallel.h"
#include "datadir.h"
#include "nextstep/devices.h"
#include "nextstep/job.h"
#include "nextstep/parse_flags.h"
#include "nextstep/trace_split.h"
#include "nextstep/units.h"
#include "nextstep/version.h"

void cli_config_init(cli_config *c, cli_mode mode)
{
	memset(c, 0, sizeof(*c));
	c->mode = mode;
	ns_classify_options_default(&c->classify);
	c->format.kind = NS_FORMAT_TEXT;
	ns_profile_init(&c->flags);
	c->min_quality = NS_QUALITY_UNFIT;   /* every grade passes unless --min-quality says otherwise */
	c->top = mode == MODE_DIFF ? 10 : 5; /* diff lists the kernels that moved: more of them are news */
	c->work.batch = 1;
	c->work.inputs = 1;
	c->work.outputs = 1;
	c->work.flops_per_element = 1;
	c->work.overhead_threshold = NS_ROOFLINE_OVERHEAD_DEFAULT;
	c->overhead_below = NS_SCALING_OVERHEAD_BELOW;
	c->work_above = NS_SCALING_WORK_ABOVE;
}

void cli_config_free(cli_config *c)
{
	ns_routes_free(&c->routes);
}

/* A value error: the library's message, as a usage error of this mode. */
static cfg_result value_error(const cli_config *c, const ns_error *err)
{
	return cli_option_refused(c->mode, "%s", err->msg);
}

static cfg_result share_option(cli_config *c, int opt, const char *arg, double *out)
{
	char flag[CLI_FLAG_MAX];
	ns_error err;

	ns_error_clear(&err);
	if (ns_profile_parse_share(arg, out, &err) != NS_OK)
		return cli_option_refused(c->mode, "%s: %s", cli_option_flag(opt, flag), err.msg);
	return CFG_TAKEN;
}

static cfg_result parse_top(cli_config *c, const char *arg)
{
	char flag[CLI_FLAG_MAX];
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || v < 0 || v > TOP_MAX)
		return cli_option_refused(c->mode, "%s must be a whole number from 0 to %d, not '%s'",
		                          cli_option_flag(OPT_TOP, flag), TOP_MAX, arg);
	c->top = (size_t)v;
	c->top_given = true;
	return CFG_TAKEN;
}

static cfg_result parse_jobs(cli_config *c, const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || v < 1 || v > CLI_WORKERS_MAX)
		return cli_option_refused(c->mode, "-j must be a whole number from 1 to %d, not '%.40s'",
		                          CLI_WORKERS_MAX, arg);
	c->jobs = (unsigned)v;
	return CFG_TAKEN;
}

/* --per-rank, --rank N, --summary: one of them at most. */
static cfg_result set_output(cli_config *c, trace_output out, const char *arg)
{
	char flag[CLI_FLAG_MAX];
	char *end;

	if (c->output != TRACE_AUTO)
		return cli_option_refused(c->mode, "give one of --per-rank, --rank and --summary");
	c->output = out;
	if (out != TRACE_ONE_RANK)
		return CFG_TAKEN;
	errno = 0;
	c->only_rank = strtoll(arg, &end, 10);
	/* strtoll skips leading blanks but stops at trailing ones: digits only, so ' 1' and '2 ' agree */
	if (errno != 0 || arg[0] < '0' || arg[0] > '9' || *end != '\0' || c->only_rank < 0 ||
	    c->only_rank >= NS_JOB_MAX_RANKS)
		return cli_option_refused(c->mode, "%s must be a rank number from 0 to %d, not '%.40s'",
		                          cli_option_flag(OPT_RANK, flag), NS_JOB_MAX_RANKS - 1, arg);
	return CFG_TAKEN;
}

/* The options of reading several files: -j and what the ranks of a job get. */
static cfg_result files_option(cli_config *c, int opt, const char *arg)
{
	switch (opt) {
	case OPT_JOBS:
		return parse_jobs(c, arg);
	case OPT_PER_RANK:
		return set_output(c, TRACE_PER_RANK, arg);
	case OPT_RANK:
		return set_output(c, TRACE_ONE_RANK, arg);
	case OPT_SUMMARY:
		return set_output(c, TRACE_SUMMARY, arg);
	default:
		return CFG_NOT_MINE;
	}
}

static cfg_result enum_option(cli_config *c, int opt, const char *arg, const char *const words[3], int *out)
{
	char flag[CLI_FLAG_MAX];

	for (int i = 0; i < 3; i++)
		if (strcmp(arg, words[i]) == 0) {
			*out = i;
			return CFG_TAKEN;
		}
	return cli_option_refused(c->mode, "%s must be %s, %s or %s, not '%s'", cli_option_flag(opt, flag),
	                          words[0], words[1], words[2], arg);
}

static cfg_result add_device_file(cli_config *c, const char *arg)
{
	if (c->ndevice_files == DEVICE_FILES_MAX)
		return cli_option_refused(c->mode, "at most %d --device-file options", DEVICE_FILES_MAX);
	c->device_files[c->ndevice_files++] = arg;
	return CFG_TAKEN;
}

/* The options every verdict mode shares. */
static cfg_result shared_option(cli_config *c, int opt, const char *arg)
{
	char flag[CLI_FLAG_MAX];
	static const char *const colors[3] = {"auto", "always", "never"};
	ns_error err;
	int v = 0;

	ns_error_clear(&err);
	switch (opt) {
	case OPT_EXPLAIN:
		c->format.verbose = true;
		return CFG_TAKEN;
	case OPT_QUIET:
		c->format.kind = NS_FORMAT_QUIET;
		return CFG_TAKEN;
	case OPT_FORMAT:
		if (strcmp(arg, "json") != 0 && strcmp(arg, "text") != 0)
			return cli_option_refused(c->mode, "%s must be text or json, not '%s'",
			                          cli_option_flag(opt, flag), arg);
		c->format.kind = arg[0] == 'j' ? NS_FORMAT_JSON : NS_FORMAT_TEXT;
		return CFG_TAKEN;
	case OPT_COLOR:
		if (enum_option(c, opt, arg, colors, &v) != CFG_TAKEN)
			return CFG_REFUSED;
		c->color = (cli_color)v;
		return CFG_TAKEN;
	case OPT_NO_COLOR:
		c->color = COLOR_NEVER;
		return CFG_TAKEN;
	case OPT_PRIORITY:
		if (ns_classify_parse_priority(arg, c->classify.priority, &err) != NS_OK)
			return cli_option_refused(c->mode, "%s: %s", cli_option_flag(opt, flag), err.msg);
		return CFG_TAKEN;
	case OPT_TIE:
		return share_option(c, opt, arg, &c->classify.tie);
	case OPT_HIGH:
		c->high_given = true;
		return share_option(c, opt, arg, &c->classify.high);
	case OPT_MODERATE:
		c->moderate_given = true;
		return share_option(c, opt, arg, &c->classify.moderate);
	case OPT_PLAYBOOK:
		c->playbook = arg;
		return CFG_TAKEN;
	case OPT_LABEL:
		c->label = arg;
		return CFG_TAKEN;
	default:
		return CFG_NOT_MINE;
	}
}

static cfg_result trace_option(cli_config *c, int opt, const char *arg)
{
	char flag[CLI_FLAG_MAX];
	ns_dtype dt;

	switch (opt) {
	case OPT_KERNEL_RULES:
	case OPT_KERNEL_RULES_ONLY:
		if (c->rules_path != NULL)
			return cli_option_refused(c->mode,
			                          "one --kernel-rules or --kernel-rules-only file at most");
		c->rules_path = arg;
		c->rules_only = opt == OPT_KERNEL_RULES_ONLY;
		return CFG_TAKEN;
	case OPT_STEPS:
		c->steps = true;
		return CFG_TAKEN;
	case OPT_ALL_STEPS:
		c->all_steps = true;
		return CFG_TAKEN;
	case OPT_MIN_QUALITY:
		if (strcmp(arg, "good") == 0)
			c->min_quality = NS_QUALITY_GOOD;
		else if (strcmp(arg, "degraded") == 0)
			c->min_quality = NS_QUALITY_DEGRADED;
		else
			return cli_option_refused(c->mode, "%s: '%.100s' is not good or degraded",
			                          cli_option_flag(opt, flag), arg);
		return CFG_TAKEN;
	case OPT_STEP_MARKER:
		c->ns_step_marker = arg;
		return CFG_TAKEN;
	case OPT_TOP:
		return parse_top(c, arg);
	case OPT_ROOFLINE:
		c->roofline = true;
		return CFG_TAKEN;
	case OPT_HTML:
		c->html_path = arg;
		return CFG_TAKEN;
	case OPT_FORCE:
		c->force = true;
		return CFG_TAKEN;
	case OPT_DEVICE:
		c->roofline = c->mode != MODE_ROOFLINE;
		c->device = arg;
		return CFG_TAKEN;
	case OPT_DTYPE:
		c->roofline = c->mode != MODE_ROOFLINE;
		c->dtype = arg;
		if (!ns_dtype_from_name(arg, &dt))
			return cli_option_refused(
			    c->mode,
			    "%sunknown dtype '%.100s' (fp64, fp32, tf32, bf16, fp16, fp8, int8, fp4)",
			    c->mode == MODE_ROOFLINE ? "" : "--dtype: ", arg);
		return CFG_TAKEN;
	case OPT_DEVICE_FILE:
		return add_device_file(c, arg);
	case OPT_PROGRESS:
		c->progress = PROGRESS_ALWAYS;
		return CFG_TAKEN;
	case OPT_NO_PROGRESS:
		c->progress = PROGRESS_NEVER;
		return CFG_TAKEN;
	default:
		return CFG_NOT_MINE;
	}
}

static cfg_result scaling_ratio(cli_config *c, int opt, const char *arg, double *out)
{
	char flag[CLI_FLAG_MAX];
	ns_error err;

	ns_error_clear(&err);
	cli_option_flag(opt, flag);
	if (ns_units_parse(arg, NS_UNIT_COUNT, flag, out, &err) != NS_OK)
		return value_error(c, &err);
	if (*out <= 1.0 || *out > 2.0)
		return cli_option_refused(c->mode, "%s: '%s' must be a time ratio above 1 and at most 2",
		                          flag, arg);
	return CFG_TAKEN;
}

static cfg_result time_option(cli_config *c, int opt, const char *arg)
{
	char flag[CLI_FLAG_MAX];
	ns_error err;

	ns_error_clear(&err);
	switch (opt) {
	case OPT_TIME:
		c->have_time = true;
		return ns_units_parse_time(arg, cli_option_flag(opt, flag), &c->time, &err) == NS_OK
		           ? CFG_TAKEN
		           : value_error(c, &err);
	case OPT_TIME_2X:
		c->have_time_2x = true;
		return ns_units_parse_time(arg, cli_option_flag(opt, flag), &c->time_2x, &err) == NS_OK
		           ? CFG_TAKEN
		           : value_error(c, &err);
	case OPT_OVERHEAD_BELOW:
		return scaling_ratio(c, opt, arg, &c->overhead_below);
	case OPT_WORK_ABOVE:
		return scaling_ratio(c, opt, arg, &c->work_above);
	default:
		return CFG_NOT_MINE;
	}
}

/* A percentage, "5" or "5%". */
static cfg_result diff_option(cli_config *c, int opt, const char *arg)
{
	char flag[CLI_FLAG_MAX];
	char *end;

	switch (opt) {
	case OPT_FAIL_IF_SLOWER:
		c->gate_slower = true;
		errno = 0;
		c->slower_pct = strtod(arg, &end);
		if (errno == 0 && end != arg && (*end == '\0' || strcmp(end, "%") == 0) &&
		    c->slower_pct >= 0 && c->slower_pct <= 1000)
			return CFG_TAKEN;
		return cli_option_refused(c->mode,
		                          "%s must be a percentage from 0 to 1000 (5 or 5%%), not '%.40s'",
		                          cli_option_flag(opt, flag), arg);
	case OPT_FAIL_IF_REGIME_CHANGES:
		c->gate_regime = true;
		return CFG_TAKEN;
	default:
		return CFG_NOT_MINE;
	}
}

static cfg_result router_option(cli_config *c, int opt, const char *arg)
{
	ns_error err;

	ns_error_clear(&err);
	if (opt >= OPT_BUCKET && opt <= OPT_BUCKET_LAST) {
		c->any_flag = true;
		if (ns_parse_flag_bucket(&c->flags, (ns_regime)(opt - OPT_BUCKET), arg, &err) != NS_OK)
			return value_error(c, &err);
		return CFG_TAKEN;
	}
	switch (opt) {
	case OPT_NORMALIZE:
		c->normalize = true;
		return CFG_TAKEN;
	case OPT_STRICT:
		c->strict = true;
		return CFG_TAKEN;
	case OPT_HELP:
		cli_print_help(stdout, c->mode);
		return CFG_DONE;
	case OPT_VERSION:
		printf("nextstep %s\n", NS_VERSION_STRING);
		return CFG_DONE;
	default:
		return CFG_NOT_MINE;
	}
}

cfg_result cli_config_set(cli_config *c, int opt, const char *arg)
{
	cfg_result rc = shared_option(c, opt, arg);

	if (rc == CFG_NOT_MINE)
		rc = router_option(c, opt, arg);
	if (rc == CFG_NOT_MINE)
		rc = trace_option(c, opt, arg);
	if (rc == CFG_NOT_MINE)
		rc = files_option(c, opt, arg);
	if (rc == CFG_NOT_MINE)
		rc = time_option(c, opt, arg);
	if (rc == CFG_NOT_MINE)
		rc = cli_workload_option(c, opt, arg);
	if (rc == CFG_NOT_MINE)
		rc = diff_option(c, opt, arg);
	if (rc == CFG_NOT_MINE)
		rc = cli_model_option(c, opt, arg);
	if (rc == CFG_NOT_MINE)
		rc = cli_option_refused(c->mode, "option %d not handled", opt);
	return rc;
}

/* NO_COLOR counts only when set and not empty (no-color.org). */
static bool want_color(cli_color c)
{
	const char *no_color = getenv("NO_COLOR");

	if (c != COLOR_AUTO)
		return c == COLOR_ALWAYS;
	return isatty(STDOUT_FILENO) && (no_color == NULL || no_color[0] == '\0');
}

static int load_routes(cli_config *c)
{
	ns_error err;
	char docs[4096];
	int found;

	ns_error_clear(&err);
	if (ns_routes_init_worded(&c->routes, cli_follow_ups, &err) == NS_OK &&
	    (found = datadir_find_docs(docs, sizeof(docs))) != 0) {
		if (found < 0)
			ns_error_set(&err, NS_ERR_NOMEM, "out of memory");
		else
			(void)ns_routes_set_doc_dir(&c->routes, docs, &err);
	}
	if (err.status != NS_OK) {
		cli_report_error(NULL, &err);
		return EXIT_BAD_INPUT;
	}
	if (c->playbook == NULL || ns_routes_load_playbook(&c->routes, c->playbook, &err) == NS_OK)
		return -1;
	if (err.line > 0)
		fprintf(stderr, "nextstep: --playbook %s:%ld: %s\n", c->playbook, err.line, err.msg);
	else
		fprintf(stderr, "nextstep: --playbook %s: %s\n", c->playbook, err.msg);
	return EXIT_BAD_INPUT;
}

int cli_config_finish(cli_config *c)
{
	c->format.color = want_color(c->color);
	if (c->force && c->html_path == NULL && c->work.svg_path == NULL)
		return cli_usage_error(c->mode, "--force applies to the file %s writes: give it too",
		                       c->mode == MODE_ROOFLINE ? "--svg" : "--html");
	if (c->moderate_given || c->high_given) {
		if (c->classify.moderate > c->classify.high)
			return cli_usage_error(c->mode, "--moderate (%g) must not be above --high (%g)",
			                       c->classify.moderate, c->classify.high);
	}
	return load_routes(c);
}
