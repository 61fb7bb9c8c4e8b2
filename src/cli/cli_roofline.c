/* nextstep roofline / scaling / devices: the roofline arithmetic on the command line, routed through the same
 * routes and the same text/JSON contract as the router. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_common.h"
#include "nextstep/devices.h"
#include "nextstep/roofline.h"
#include "nextstep/roofline_svg.h"
#include "nextstep/units.h"

/* At most this many --device-file overlays, applied in order. */
#define DEVICE_FILES_MAX 16
#define POSITION_BAR     41 /* characters in the -v position bar; the ridge is the middle one */
#define POSITION_DECADES 3. /* the bar spans this many decades each side of the ridge */

#define STYLE_VERDICT "\033[1;33m"
#define STYLE_RESET   "\033[0m"

enum {
	OPT_FLOPS = 1,
	OPT_BYTES,
	OPT_DEVICE,
	OPT_DEVICE_FILE,
	OPT_DTYPE,
	OPT_TIME,
	OPT_TIME_2X,
	OPT_OVERHEAD_THRESHOLD,
	OPT_OVERHEAD_BELOW,
	OPT_WORK_ABOVE,
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
	OPT_SVG,
	OPT_LABEL,
};

static const struct option roofline_options[] = {
    {"batch", required_argument, NULL, OPT_BATCH},
    {"bytes", required_argument, NULL, OPT_BYTES},
    {"context", required_argument, NULL, OPT_CONTEXT},
    {"decode", no_argument, NULL, OPT_DECODE},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"device-file", required_argument, NULL, OPT_DEVICE_FILE},
    {"dtype", required_argument, NULL, OPT_DTYPE},
    {"elementwise", required_argument, NULL, OPT_ELEMENTWISE},
    {"flops", required_argument, NULL, OPT_FLOPS},
    {"flops-per-element", required_argument, NULL, OPT_FLOPS_PER_ELEMENT},
    {"head-dim", required_argument, NULL, OPT_HEAD_DIM},
    {"heads", required_argument, NULL, OPT_HEADS},
    {"help", no_argument, NULL, 'h'},
    {"inputs", required_argument, NULL, OPT_INPUTS},
    {"kv-heads", required_argument, NULL, OPT_KV_HEADS},
    {"label", required_argument, NULL, OPT_LABEL},
    {"layers", required_argument, NULL, OPT_LAYERS},
    {"matmul", required_argument, NULL, OPT_MATMUL},
    {"outputs", required_argument, NULL, OPT_OUTPUTS},
    {"overhead-threshold", required_argument, NULL, OPT_OVERHEAD_THRESHOLD},
    {"params", required_argument, NULL, OPT_PARAMS},
    {"svg", required_argument, NULL, OPT_SVG},
    {"time", required_argument, NULL, OPT_TIME},
    {NULL, 0, NULL, 0},
};

static const struct option scaling_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"label", required_argument, NULL, OPT_LABEL},
    {"overhead-below", required_argument, NULL, OPT_OVERHEAD_BELOW},
    {"time", required_argument, NULL, OPT_TIME},
    {"time-2x", required_argument, NULL, OPT_TIME_2X},
    {"work-above", required_argument, NULL, OPT_WORK_ABOVE},
    {NULL, 0, NULL, 0},
};

static const struct option devices_options[] = {
    {"device-file", required_argument, NULL, OPT_DEVICE_FILE},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static const char roofline_usage[] =
    "usage: nextstep roofline --device NAME [--dtype T] WORKLOAD [--time T] [--svg FILE] [options]\n"
    "WORKLOAD is one of:\n"
    "  --flops F --bytes B\n"
    "  --matmul M,N,K [--batch B]\n"
    "  --elementwise N [--inputs K] [--outputs M] [--flops-per-element F]\n"
    "  --decode --params P [--batch B] [--context L --layers N --kv-heads H --head-dim D [--heads Q]]\n";

static const char roofline_help[] =
    "\n"
    "Places a kernel on the device's roofline: arithmetic intensity (FLOP/byte) against the ridge point "
    "where\n"
    "the memory roof meets the compute roof. At or above the ridge it is compute-bound, below it "
    "memory-bound.\n"
    "With --time it is also placed against what it achieved: under --overhead-threshold of BOTH roofs it is\n"
    "overhead-bound (too little work per launch). The verdict is routed like the router's.\n"
    "\n"
    "Numbers take SI or IEC prefixes (2.1T, 64GiB, 7B parameters); times need a unit (1.3ms, 850us, 2s).\n"
    "  --device NAME        a name or alias from 'nextstep devices' (case, spaces and '-' ignored)\n"
    "  --device-file FILE   add or override devices (JSON, like data/devices.json); repeatable\n"
    "  --dtype T            fp64 fp32 tf32 bf16 fp16 fp8 int8 fp4 (default bf16)\n"
    "  --flops F --bytes B  the counts, as measured or computed\n"
    "  --matmul M,N,K       2*M*N*K FLOPs; bytes with ideal reuse: A and B read once, C written once\n"
    "  --batch B            batched matmul (B independent products), or the decode batch\n"
    "  --elementwise N      N elements, each reading --inputs (1) and writing --outputs (1) values and\n"
    "                       doing --flops-per-element (1) FLOPs\n"
    "  --decode --params P  one decode step: every weight read once, 2 FLOPs per parameter per sequence;\n"
    "                       --context with --layers, --kv-heads, --head-dim (and --heads for grouped-query\n"
    "                       attention) adds the KV-cache reads; prints the batch that reaches the ridge\n"
    "  --time T             measured time of the kernel or step\n"
    "  --overhead-threshold X  fraction of both roofs below which a timed kernel is overhead-bound\n"
    "                       (default 10%)\n"
    "  --svg FILE           also draw the log-log roofline plot as SVG ('-' for stdout)\n"
    "  --label NAME         prefix the verdict with NAME\n"
    "  --format text|json   --playbook FILE   -v (explain, with a position bar)   -q   --no-color\n"
    "\n"
    "Exit status: 0 routed; 1 a bad data file (device table, playbook) or an unwritable --svg; 2 usage "
    "error.\n";

static const char scaling_usage[] = "usage: nextstep scaling --time T1 --time-2x T2 [options]\n";

static const char scaling_help[] =
    "\n"
    "The batch-doubling test: run the step with its work doubled (twice the batch) and give both times.\n"
    "Model: t = fixed + work, so the fixed (overhead) share of T1 is 2 - T2/T1. If the time barely rises\n"
    "the step is overhead-bound.\n"
    "  ratio T2/T1 below --overhead-below (1.25)       overhead-bound (at least 75% fixed cost)\n"
    "  ratio below --work-above (1.75)                 partly overhead-bound\n"
    "  ratio at or above --work-above                  work-bound: not overhead; use 'nextstep roofline'\n"
    "  --label NAME   --format text|json   --playbook FILE   -v   -q   --no-color\n"
    "\n"
    "Exit status: 0 routed; 1 a bad playbook; 2 usage error.\n";

static const char devices_usage[] =
    "usage: nextstep devices [--device-file FILE] [--format json] [-v] [NAME]\n";

static const char devices_help[] =
    "\n"
    "Lists the device table: dense datasheet peaks (TFLOP/s; TOPS for int8; no 2:4 sparsity), memory\n"
    "bandwidth and size, SM or CU count. -v adds each device's aliases, notes and datasheet source; NAME\n"
    "shows one device. The table is devices.json from $NEXTSTEP_DATADIR, the install, or the source tree.\n"
    "\n"
    "Exit status: 0 listed; 1 a bad device file; 2 usage error or unknown NAME.\n";

/* ---- shared plumbing ---- */

typedef struct {
	const char *mode;
	const char *usage;
	const char *help;
} mode_text;

static int usage_error(const mode_text *m, const char *msg)
{
	return cli_usage_error(m->mode, msg);
}

static int status_exit(const mode_text *m, const ns_error *err)
{
	if (err->status == NS_ERR_USAGE)
		return usage_error(m, err->msg);
	cli_report_error(NULL, err);
	return EXIT_BAD_INPUT;
}

static void print_help(const mode_text *m)
{
	fputs(m->usage, stdout);
	fputs(m->help, stdout);
}

static const char *color_on(const router_config *cfg)
{
	return cfg->format.color ? STYLE_VERDICT : "";
}

static const char *color_off(const router_config *cfg)
{
	return cfg->format.color ? STYLE_RESET : "";
}

static void print_label(FILE *out, const char *label)
{
	if (label != NULL && label[0] != '\0')
		fprintf(out, "%s: ", label);
}

/* Percentages of a roof: whole numbers from 10% up, two significant digits below, so 0.2% is not "0%". */
static void print_percent(FILE *out, double fraction)
{
	double pct = fraction * 100.0;

	if (pct >= 9.95)
		fprintf(out, "%.0f%%", pct);
	else
		fprintf(out, "%.2g%%", pct);
}

/* Derived ratios are rounded so scripts do not see 0.10000000000000009. */
static double tidy(double x)
{
	return round(x * 1e9) / 1e9;
}

static bool add_number(cJSON *obj, const char *key, double v)
{
	return cJSON_AddNumberToObject(obj, key, v) != NULL;
}

static bool add_text(cJSON *obj, const char *key, const char *v)
{
	return (v != NULL ? cJSON_AddStringToObject(obj, key, v) : cJSON_AddNullToObject(obj, key)) != NULL;
}

/* The router's verdict keys, so one script reads both. */
static cJSON *verdict_json(const char *label, const char *regime, const char *verdict, const ns_route *route)
{
	cJSON *obj = cJSON_CreateObject();
	bool ok = obj != NULL;

	ok = ok && add_text(obj, "regime", regime);
	ok = ok && add_text(obj, "verdict", verdict);
	ok = ok && add_text(obj, "label", label != NULL && label[0] != '\0' ? label : NULL);
	ok = ok && add_text(obj, "module", route ? route->module : NULL);
	ok = ok && add_text(obj, "fix", route ? route->fix : NULL);
	ok = ok && add_text(obj, "next_check", route ? route->next_check : NULL);
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

static int print_json_or_fail(cJSON *obj, bool ok)
{
	if (obj == NULL || !ok) {
		cJSON_Delete(obj);
		fprintf(stderr, "nextstep: out of memory\n");
		return EXIT_BAD_INPUT;
	}
	format_print_json(stdout, obj);
	cJSON_Delete(obj);
	return EXIT_ROUTED;
}

/* Loads the built-in table and the overlays; reports a bad file as "nextstep: FILE:LINE: what". */
static int load_devices(ns_device_table *t, const char *const *files, size_t nfiles)
{
	char path[4096];
	ns_error err;

	ns_error_clear(&err);
	if (devices_load_default(t, path, sizeof(path), &err) != NS_OK) {
		cli_report_error(path, &err);
		return EXIT_BAD_INPUT;
	}
	for (size_t i = 0; i < nfiles; i++) {
		ns_error_clear(&err);
		if (devices_load_file(t, files[i], &err) != NS_OK) {
			cli_report_error(files[i], &err);
			return EXIT_BAD_INPUT;
		}
	}
	return EXIT_ROUTED;
}

static void list_dtypes(const ns_device *d, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < DTYPE_COUNT && n < size; i++)
		if (d->peak[i] > 0.0)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
			                      dtype_name((ns_dtype)i));
}

/* Shared options: returns -1 to go on, or an exit status. */
static int common_option(const mode_text *m, int opt, router_config *cfg, char **argv)
{
	ns_error err;
	ns_status st = NS_OK;

	if (opt == 'h') {
		print_help(m);
		return EXIT_ROUTED;
	}
	ns_error_clear(&err);
	if (!cli_common_handle(opt, optarg, cfg, &err, &st))
		return cli_option_error(m->mode, opt, argv);
	return st == NS_OK ? -1 : status_exit(m, &err);
}

/* ---- roofline ---- */

typedef enum { WORK_NONE, WORK_COUNTS, WORK_MATMUL, WORK_ELEMENTWISE, WORK_DECODE } work_kind;

typedef struct {
	router_config cfg;
	ns_device_table table;
	const char *device_name, *dtype_text, *svg_path, *label;
	const char *device_files[DEVICE_FILES_MAX];
	size_t ndevice_files;
	work_kind kind;
	int nkinds;
	bool have_flops, have_bytes, have_batch, elementwise_opts, decode_opts;
	double flops, bytes, mnk[3], batch;
	double elements, inputs, outputs, flops_per_element;
	roofline_decode_spec decode;
	double seconds, overhead_threshold;
} roofline_run;

/* What the command computed, for printing. */
typedef struct {
	const ns_device *dev;
	ns_dtype dtype;
	roofline_work work;
	roofline_decode decode;
	roofline_result roof;
	char description[128];
	const char *assumption;
} roofline_answer;

static void choose_work(roofline_run *r, work_kind k)
{
	if (r->kind != k)
		r->nkinds++;
	r->kind = k;
}

static ns_status parse_matmul(const char *arg, double mnk[3], ns_error *err)
{
	char buf[128], *save = NULL, *tok;
	int n = 0;

	if (strlen(arg) >= sizeof(buf))
		return ns_error_set(err, NS_ERR_USAGE, "--matmul: '%.40s...' is too long", arg);
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (n == 3)
			break;
		if (units_parse_whole(tok, UNIT_COUNT, "--matmul", &mnk[n++], err) != NS_OK)
			return err->status;
	}
	if (n != 3 || tok != NULL)
		return ns_error_set(err, NS_ERR_USAGE, "--matmul wants M,N,K (three sizes), not '%s'", arg);
	return NS_OK;
}

static ns_status parse_positive(const char *arg, units_kind kind, const char *what, double *out,
                                ns_error *err)
{
	if (units_parse(arg, kind, what, out, err) != NS_OK)
		return err->status;
	if (*out <= 0.0)
		return ns_error_set(err, NS_ERR_USAGE, "%s: '%s' must be more than zero", what, arg);
	return NS_OK;
}

static ns_status parse_threshold(const char *arg, double *out, ns_error *err)
{
	if (profile_parse_share(arg, out, err) != NS_OK || *out <= 0.0)
		return ns_error_set(err, NS_ERR_USAGE,
		                    "--overhead-threshold wants a fraction in (0, 1] or a percentage, "
		                    "not '%s'",
		                    arg);
	return NS_OK;
}

static ns_status roofline_option(roofline_run *r, int opt, const char *arg, ns_error *err)
{
	switch (opt) {
	case OPT_FLOPS:
		r->have_flops = true;
		choose_work(r, WORK_COUNTS);
		return parse_positive(arg, UNIT_FLOP, "--flops", &r->flops, err);
	case OPT_BYTES:
		r->have_bytes = true;
		choose_work(r, WORK_COUNTS);
		return parse_positive(arg, UNIT_BYTE, "--bytes", &r->bytes, err);
	case OPT_MATMUL:
		choose_work(r, WORK_MATMUL);
		return parse_matmul(arg, r->mnk, err);
	case OPT_ELEMENTWISE:
		choose_work(r, WORK_ELEMENTWISE);
		return units_parse_whole(arg, UNIT_COUNT, "--elementwise", &r->elements, err);
	case OPT_INPUTS:
		r->elementwise_opts = true;
		return units_parse_whole(arg, UNIT_COUNT, "--inputs", &r->inputs, err);
	case OPT_OUTPUTS:
		r->elementwise_opts = true;
		return units_parse_whole(arg, UNIT_COUNT, "--outputs", &r->outputs, err);
	case OPT_FLOPS_PER_ELEMENT:
		r->elementwise_opts = true;
		return parse_positive(arg, UNIT_FLOP, "--flops-per-element", &r->flops_per_element, err);
	case OPT_DECODE:
		choose_work(r, WORK_DECODE);
		return NS_OK;
	case OPT_PARAMS:
		r->decode_opts = true;
		return parse_positive(arg, UNIT_COUNT, "--params", &r->decode.params, err);
	case OPT_BATCH:
		r->have_batch = true;
		return units_parse_whole(arg, UNIT_COUNT, "--batch", &r->batch, err);
	case OPT_CONTEXT:
		r->decode_opts = true;
		return units_parse_whole(arg, UNIT_COUNT, "--context", &r->decode.context, err);
	case OPT_LAYERS:
		r->decode_opts = true;
		return units_parse_whole(arg, UNIT_COUNT, "--layers", &r->decode.layers, err);
	case OPT_KV_HEADS:
		r->decode_opts = true;
		return units_parse_whole(arg, UNIT_COUNT, "--kv-heads", &r->decode.kv_heads, err);
	case OPT_HEAD_DIM:
		r->decode_opts = true;
		return units_parse_whole(arg, UNIT_COUNT, "--head-dim", &r->decode.head_dim, err);
	case OPT_HEADS:
		r->decode_opts = true;
		return units_parse_whole(arg, UNIT_COUNT, "--heads", &r->decode.heads, err);
	case OPT_DEVICE:
		r->device_name = arg;
		return NS_OK;
	case OPT_DEVICE_FILE:
		if (r->ndevice_files == DEVICE_FILES_MAX)
			return ns_error_set(err, NS_ERR_USAGE, "at most %d --device-file options",
			                    DEVICE_FILES_MAX);
		r->device_files[r->ndevice_files++] = arg;
		return NS_OK;
	case OPT_DTYPE:
		r->dtype_text = arg;
		return NS_OK;
	case OPT_TIME:
		return units_parse_time(arg, "--time", &r->seconds, err);
	case OPT_OVERHEAD_THRESHOLD:
		return parse_threshold(arg, &r->overhead_threshold, err);
	case OPT_SVG:
		r->svg_path = arg;
		return NS_OK;
	case OPT_LABEL:
		r->label = arg;
		return NS_OK;
	default:
		return ns_error_set(err, NS_ERR_INTERNAL, "unhandled option %d", opt);
	}
}

/* Combinations getopt cannot see; returns a message or NULL. */
static const char *roofline_conflict(const roofline_run *r)
{
	if (r->device_name == NULL)
		return "roofline needs --device NAME (see 'nextstep devices')";
	if (r->nkinds == 0)
		return "roofline needs a workload: --flops/--bytes, --matmul, --elementwise or --decode";
	if (r->nkinds > 1)
		return "give one workload: --flops/--bytes, --matmul, --elementwise or --decode";
	if (r->kind == WORK_COUNTS && !(r->have_flops && r->have_bytes))
		return r->have_flops ? "--flops needs --bytes" : "--bytes needs --flops";
	if (r->elementwise_opts && r->kind != WORK_ELEMENTWISE)
		return "--inputs, --outputs and --flops-per-element go with --elementwise";
	if (r->decode_opts && r->kind != WORK_DECODE)
		return "--params, --context, --layers, --kv-heads, --head-dim and --heads go with --decode";
	if (r->have_batch && r->kind != WORK_MATMUL && r->kind != WORK_DECODE)
		return "--batch goes with --matmul or --decode";
	return NULL;
}

static ns_status resolve_device(roofline_run *r, roofline_answer *a, ns_error *err)
{
	char have[128];

	a->dev = devices_find(&r->table, r->device_name);
	if (a->dev == NULL)
		return ns_error_set(err, NS_ERR_USAGE, "unknown device '%s' (see 'nextstep devices')",
		                    r->device_name);
	if (!dtype_from_name(r->dtype_text, &a->dtype))
		return ns_error_set(err, NS_ERR_USAGE,
		                    "unknown dtype '%s' (fp64, fp32, tf32, bf16, fp16, fp8, int8, fp4)",
		                    r->dtype_text);
	if (a->dev->peak[a->dtype] <= 0.0) {
		list_dtypes(a->dev, have, sizeof(have));
		return ns_error_set(err, NS_ERR_USAGE, "%s has no %s peak in the device table (it lists %s)",
		                    a->dev->name, dtype_name(a->dtype), have);
	}
	return NS_OK;
}

/* "7B", "350M", "1.3B": how model sizes are spoken of. Not reentrant: one use per message. */
static const char *params_text(double p)
{
	static char buf[32];

	if (p >= 1e9)
		snprintf(buf, sizeof(buf), "%.3gB", p / 1e9);
	else if (p >= 1e6)
		snprintf(buf, sizeof(buf), "%.3gM", p / 1e6);
	else
		snprintf(buf, sizeof(buf), "%.0f", p);
	return buf;
}

static ns_status compute_work(roofline_run *r, roofline_answer *a, ns_error *err)
{
	double ridge = device_ridge(a->dev, a->dtype);
	const char *dt = dtype_name(a->dtype);

	switch (r->kind) {
	case WORK_COUNTS:
		a->work.flops = r->flops;
		a->work.bytes = r->bytes;
		snprintf(a->work.formula, sizeof(a->work.formula), "as given");
		snprintf(a->description, sizeof(a->description), "given counts");
		a->assumption = "the bytes that actually cross the memory bus";
		return NS_OK;
	case WORK_MATMUL:
		snprintf(a->description, sizeof(a->description), "%smatmul %.0fx%.0fx%.0f %s",
		         r->batch > 1 ? "batched " : "", r->mnk[0], r->mnk[1], r->mnk[2], dt);
		if (r->batch > 1)
			snprintf(a->description + strlen(a->description),
			         sizeof(a->description) - strlen(a->description), ", batch %.0f", r->batch);
		a->assumption = "ideal reuse: each operand read once, the result written once";
		return roofline_matmul(r->mnk[0], r->mnk[1], r->mnk[2], r->batch, a->dtype, &a->work, err);
	case WORK_ELEMENTWISE:
		snprintf(a->description, sizeof(a->description), "elementwise %.0f x (%.0f in, %.0f out) %s",
		         r->elements, r->inputs, r->outputs, dt);
		a->assumption = "every input read once and every output written once, nothing cached";
		return roofline_elementwise(r->elements, r->inputs, r->outputs, r->flops_per_element,
		                            a->dtype, &a->work, err);
	case WORK_DECODE:
		r->decode.batch = r->batch;
		if (roofline_decode_step(&r->decode, a->dtype, ridge, &a->decode, err) != NS_OK)
			return err->status;
		a->work = a->decode.work;
		snprintf(a->description, sizeof(a->description), "decode step, %s params, batch %.0f %s",
		         params_text(r->decode.params), r->batch, dt);
		a->assumption =
		    "weights read once per step for the whole batch; activations ignored; KV cache in the "
		    "same dtype";
		return NS_OK;
	case WORK_NONE:
		break;
	}
	return ns_error_set(err, NS_ERR_INTERNAL, "no workload");
}

static void print_roofline_line(const roofline_run *r, const roofline_answer *a)
{
	const ns_route *route = &r->cfg.routes.route[a->roof.regime];
	char ai[32], ridge[32];

	print_label(stdout, r->label);
	printf("%s%s%s (AI %s FLOP/B, ridge %s FLOP/B", color_on(&r->cfg), regime_bound_word(a->roof.regime),
	       color_off(&r->cfg), units_format_plain(a->roof.intensity, ai, sizeof(ai)),
	       units_format_plain(a->roof.ridge, ridge, sizeof(ridge)));
	if (a->roof.timed) {
		fputs(", ", stdout);
		print_percent(stdout, a->roof.fraction_of_roof);
		fputs(" of roof", stdout);
	}
	printf(") -> %s (%s)\n", route->fix, route->module);
}

static void print_decode_line(const roofline_run *r, const roofline_answer *a)
{
	double b = a->decode.crossing_batch;

	if (b <= 0.0)
		printf("decode: no batch reaches the ridge: the KV-cache reads grow with the batch as fast "
		       "as the "
		       "FLOPs (shorter context or fewer KV heads would)\n");
	else if (r->batch >= b)
		printf("decode: batch %.0f is past the ridge (it is crossed at batch %.0f)\n", r->batch, b);
	else
		printf("decode: batch %.0f would cross the ridge (now batch %.0f); larger batches are the "
		       "only lever "
		       "that helps\n",
		       b, r->batch);
}

/* A log-scale bar: the ridge in the middle, POSITION_DECADES decades each side. */
static void print_position_bar(const roofline_answer *a)
{
	double ratio = a->roof.intensity / a->roof.ridge;
	int half = POSITION_BAR / 2;
	int at = half + (int)lround(log10(ratio) / POSITION_DECADES * half);
	char bar[POSITION_BAR + 1];
	char times[32];

	memset(bar, '-', POSITION_BAR);
	bar[POSITION_BAR] = '\0';
	bar[half] = '|';
	if (at < 0)
		bar[0] = '<';
	else if (at >= POSITION_BAR)
		bar[POSITION_BAR - 1] = '>';
	else
		bar[at] = '*';
	printf("position: memory [%s] compute\n", bar);
	if (ratio >= 1.0)
		printf("          AI is %sx the ridge ('|'; log scale, %g decades each side)\n",
		       units_format_plain(ratio, times, sizeof(times)), POSITION_DECADES);
	else
		printf("          AI is %sx below the ridge ('|'; log scale, %g decades each side)\n",
		       units_format_plain(1.0 / ratio, times, sizeof(times)), POSITION_DECADES);
}

static void print_roofline_explain(const roofline_run *r, const roofline_answer *a)
{
	char b1[48], b2[48], b3[48];
	const ns_device *d = a->dev;

	printf("workload: %s\n", a->description);
	printf("  FLOPs  %s\n  bytes  %s\n  counts %s\n  assumes %s\n",
	       units_format_si(a->work.flops, "FLOP", b1, sizeof(b1)),
	       units_format_si(a->work.bytes, "B", b2, sizeof(b2)), a->work.formula, a->assumption);
	if (r->kind == WORK_DECODE)
		printf("  weights %s, KV cache %s\n",
		       units_format_si(a->decode.weight_bytes, "B", b1, sizeof(b1)),
		       units_format_si(a->decode.kv_bytes, "B", b2, sizeof(b2)));
	printf("device: %s %s: peak %s (dense), memory %s, ridge %s FLOP/B\n", d->name, dtype_name(a->dtype),
	       units_format_si(d->peak[a->dtype], "FLOP/s", b1, sizeof(b1)),
	       units_format_si(d->mem_bw, "B/s", b2, sizeof(b2)),
	       units_format_plain(a->roof.ridge, b3, sizeof(b3)));
	printf("roof: attainable %s at AI %s FLOP/B (the %s roof)\n",
	       units_format_si(a->roof.attainable, "FLOP/s", b1, sizeof(b1)),
	       units_format_plain(a->roof.intensity, b2, sizeof(b2)),
	       a->roof.intensity >= a->roof.ridge ? "compute" : "memory");
	if (a->roof.timed) {
		printf("achieved: %s and %s in %s: ",
		       units_format_si(a->roof.achieved_flops, "FLOP/s", b1, sizeof(b1)),
		       units_format_si(a->roof.achieved_bytes_per_s, "B/s", b2, sizeof(b2)),
		       units_format_time(r->seconds, b3, sizeof(b3)));
		print_percent(stdout, a->roof.fraction_of_roof);
		fputs(" of the roof (compute ", stdout);
		print_percent(stdout, a->roof.fraction_compute);
		fputs(", memory ", stdout);
		print_percent(stdout, a->roof.fraction_memory);
		fputs("); overhead-bound below ", stdout);
		print_percent(stdout, r->overhead_threshold);
		fputs(" of both\n", stdout);
	}
	print_position_bar(a);
	if (r->cfg.routes.route[a->roof.regime].next_check != NULL)
		printf("next check: %s\n", r->cfg.routes.route[a->roof.regime].next_check);
}

static bool add_decode_json(cJSON *obj, const roofline_run *r, const roofline_answer *a)
{
	cJSON *dec = cJSON_AddObjectToObject(obj, "decode");
	bool ok = dec != NULL;

	ok = ok && add_number(dec, "params", r->decode.params);
	ok = ok && add_number(dec, "batch", r->batch);
	ok = ok && add_number(dec, "weight_bytes", a->decode.weight_bytes);
	ok = ok && add_number(dec, "kv_bytes", a->decode.kv_bytes);
	ok = ok &&
	     (a->decode.crossing_batch > 0.0 ? add_number(dec, "crossing_batch", a->decode.crossing_batch)
	                                     : cJSON_AddNullToObject(dec, "crossing_batch") != NULL);
	return ok;
}

static int print_roofline_json(const roofline_run *r, const roofline_answer *a)
{
	ns_regime g = a->roof.regime;
	cJSON *obj = verdict_json(r->label, regime_name(g), regime_bound_word(g), &r->cfg.routes.route[g]);
	bool ok = obj != NULL;

	ok = ok && add_text(obj, "device", a->dev->name);
	ok = ok && add_text(obj, "dtype", dtype_name(a->dtype));
	ok = ok && add_text(obj, "workload", a->description);
	ok = ok && add_text(obj, "formula", a->work.formula);
	ok = ok && add_number(obj, "flops", a->work.flops);
	ok = ok && add_number(obj, "bytes", a->work.bytes);
	ok = ok && add_number(obj, "intensity", a->roof.intensity);
	ok = ok && add_number(obj, "ridge", a->roof.ridge);
	ok = ok && add_number(obj, "peak_flops", a->dev->peak[a->dtype]);
	ok = ok && add_number(obj, "peak_bytes_per_s", a->dev->mem_bw);
	ok = ok && add_number(obj, "attainable_flops", a->roof.attainable);
	ok = ok && add_text(obj, "roof", a->roof.intensity >= a->roof.ridge ? "compute" : "memory");
	if (a->roof.timed) {
		ok = ok && add_number(obj, "time_s", r->seconds);
		ok = ok && add_number(obj, "achieved_flops", a->roof.achieved_flops);
		ok = ok && add_number(obj, "achieved_bytes_per_s", a->roof.achieved_bytes_per_s);
		ok = ok && add_number(obj, "fraction_of_roof", a->roof.fraction_of_roof);
		ok = ok && add_number(obj, "fraction_of_compute_roof", a->roof.fraction_compute);
		ok = ok && add_number(obj, "fraction_of_memory_roof", a->roof.fraction_memory);
		ok = ok && add_number(obj, "overhead_threshold", r->overhead_threshold);
		ok = ok && cJSON_AddBoolToObject(obj, "above_roof", a->roof.above_roof) != NULL;
	}
	if (r->kind == WORK_DECODE)
		ok = ok && add_decode_json(obj, r, a);
	return print_json_or_fail(obj, ok);
}

static void warn_above_roof(const roofline_answer *a)
{
	char b1[48], b2[48];

	fprintf(stderr,
	        "nextstep: warning: achieved %s is above the %s roof (%s): check the counts, --time and "
	        "--device\n",
	        units_format_si(a->roof.achieved_flops, "FLOP/s", b1, sizeof(b1)),
	        a->roof.intensity >= a->roof.ridge ? "compute" : "memory",
	        units_format_si(a->roof.attainable, "FLOP/s", b2, sizeof(b2)));
}

static int write_svg(const roofline_run *r, const roofline_answer *a)
{
	roofline_plot plot = {a->dev,
	                      a->dtype,
	                      r->label != NULL ? r->label : a->description,
	                      a->roof.intensity,
	                      a->roof.attainable,
	                      a->roof.timed,
	                      a->roof.achieved_flops,
	                      a->roof.fraction_of_roof};
	ns_error err;

	ns_error_clear(&err);
	if (roofline_svg_save(r->svg_path, &plot, &err) != NS_OK) {
		cli_report_error(r->svg_path, &err);
		return EXIT_BAD_INPUT;
	}
	return EXIT_ROUTED;
}

static int report_roofline(const roofline_run *r, const roofline_answer *a)
{
	if (a->roof.above_roof)
		warn_above_roof(a);
	switch (r->cfg.format.kind) {
	case FORMAT_QUIET:
		printf("%s\n", regime_name(a->roof.regime));
		break;
	case FORMAT_JSON:
		if (print_roofline_json(r, a) != EXIT_ROUTED)
			return EXIT_BAD_INPUT;
		break;
	case FORMAT_TEXT:
		print_roofline_line(r, a);
		if (r->kind == WORK_DECODE)
			print_decode_line(r, a);
		if (r->cfg.format.verbose)
			print_roofline_explain(r, a);
		break;
	}
	fflush(stdout);
	return r->svg_path != NULL ? write_svg(r, a) : EXIT_ROUTED;
}

static int run_roofline(roofline_run *r)
{
	static const mode_text m = {"roofline", roofline_usage, roofline_help};
	roofline_answer a;
	ns_error err;
	int rc;

	memset(&a, 0, sizeof(a));
	if ((rc = load_devices(&r->table, r->device_files, r->ndevice_files)) != EXIT_ROUTED)
		return rc;
	ns_error_clear(&err);
	if (resolve_device(r, &a, &err) != NS_OK || compute_work(r, &a, &err) != NS_OK)
		return status_exit(&m, &err);
	roofline_input in = {a.work.flops,  a.work.bytes, a.dev->peak[a.dtype],
	                     a.dev->mem_bw, r->seconds,   r->overhead_threshold};
	if (roofline_place(&in, &a.roof, &err) != NS_OK)
		return status_exit(&m, &err);
	return report_roofline(r, &a);
}

static void roofline_run_init(roofline_run *r)
{
	memset(r, 0, sizeof(*r));
	r->dtype_text = "bf16";
	r->batch = 1;
	r->inputs = 1;
	r->outputs = 1;
	r->flops_per_element = 1;
	r->overhead_threshold = ROOFLINE_OVERHEAD_DEFAULT;
}

/* Parses argv into r; returns -1 to go on, or an exit status. */
static int parse_args(const mode_text *m, const struct option *own, int argc, char **argv, router_config *cfg,
                      int (*own_option)(void *ctx, int opt, const char *arg, ns_error *err), void *ctx)
{
	struct option *options = cli_options_merge(own);
	ns_error err;
	int opt, rc = -1;

	if (options == NULL) {
		fprintf(stderr, "nextstep: out of memory\n");
		return EXIT_BAD_INPUT;
	}
	optind = 1;
	opterr = 0;
	while (rc < 0 && (opt = getopt_long(argc, argv, ":h" CLI_COMMON_SHORT, options, NULL)) != -1) {
		if (opt >= OPT_FLOPS && opt <= OPT_LABEL) {
			ns_error_clear(&err);
			if (own_option(ctx, opt, optarg, &err) != NS_OK)
				rc = status_exit(m, &err);
		} else {
			rc = common_option(m, opt, cfg, argv);
		}
	}
	free(options);
	return rc;
}

static int roofline_own_option(void *ctx, int opt, const char *arg, ns_error *err)
{
	return roofline_option(ctx, opt, arg, err);
}

static int start_config(router_config *cfg)
{
	ns_error err;

	ns_error_clear(&err);
	if (router_config_init(cfg, &err) != NS_OK) {
		cli_report_error(NULL, &err);
		return EXIT_BAD_INPUT;
	}
	return -1;
}

int cli_roofline_main(int argc, char **argv)
{
	static const mode_text m = {"roofline", roofline_usage, roofline_help};
	roofline_run r;
	const char *conflict;
	int rc;

	roofline_run_init(&r);
	if ((rc = start_config(&r.cfg)) >= 0)
		return rc;
	rc = parse_args(&m, roofline_options, argc, argv, &r.cfg, roofline_own_option, &r);
	if (rc < 0 && optind < argc)
		rc = usage_error(&m, "roofline takes no operands; give the workload with options");
	if (rc < 0 && (conflict = roofline_conflict(&r)) != NULL)
		rc = usage_error(&m, conflict);
	if (rc < 0)
		rc = run_roofline(&r);
	devices_free(&r.table);
	router_config_free(&r.cfg);
	return rc;
}

/* ---- scaling ---- */

typedef struct {
	router_config cfg;
	const char *label;
	bool have_t1, have_t2;
	double t1, t2, overhead_below, work_above;
} scaling_run;

static ns_status parse_ratio(const char *arg, const char *what, double *out, ns_error *err)
{
	if (units_parse(arg, UNIT_COUNT, what, out, err) != NS_OK)
		return err->status;
	if (*out <= 1.0 || *out > 2.0)
		return ns_error_set(err, NS_ERR_USAGE, "%s: '%s' must be a time ratio above 1 and at most 2",
		                    what, arg);
	return NS_OK;
}

static int scaling_own_option(void *ctx, int opt, const char *arg, ns_error *err)
{
	scaling_run *s = ctx;

	switch (opt) {
	case OPT_TIME:
		s->have_t1 = true;
		return units_parse_time(arg, "--time", &s->t1, err);
	case OPT_TIME_2X:
		s->have_t2 = true;
		return units_parse_time(arg, "--time-2x", &s->t2, err);
	case OPT_OVERHEAD_BELOW:
		return parse_ratio(arg, "--overhead-below", &s->overhead_below, err);
	case OPT_WORK_ABOVE:
		return parse_ratio(arg, "--work-above", &s->work_above, err);
	case OPT_LABEL:
		s->label = arg;
		return NS_OK;
	default:
		return ns_error_set(err, NS_ERR_INTERNAL, "unhandled option %d", opt);
	}
}

static void print_scaling_line(const scaling_run *s, const scaling_result *res)
{
	const ns_route *route = &s->cfg.routes.route[REGIME_OVERHEAD];

	print_label(stdout, s->label);
	printf("%s%s%s (2x work -> %.2fx time, ~", color_on(&s->cfg), scaling_kind_word(res->kind),
	       color_off(&s->cfg), res->ratio);
	print_percent(stdout, res->fixed_share);
	if (res->kind == SCALING_WORK)
		printf(" fixed cost): not overhead; 'nextstep roofline' tells compute-bound from "
		       "memory-bound\n");
	else
		printf(" fixed cost) -> %s (%s)\n", route->fix, route->module);
}

static void print_scaling_explain(const scaling_run *s, const scaling_result *res)
{
	char b1[32], b2[32], b3[32], b4[32];
	double fixed = fmax(0.0, 2.0 * s->t1 - s->t2), work = fmax(0.0, s->t2 - s->t1);

	printf("model: time = fixed + work; T1 = %s, T2 (2x work) = %s\n",
	       units_format_time(s->t1, b1, sizeof(b1)), units_format_time(s->t2, b2, sizeof(b2)));
	if (fixed > 0.0 && work > 0.0)
		printf("  fixed = 2*T1 - T2 = %s, work = T2 - T1 = %s\n",
		       units_format_time(fixed, b3, sizeof(b3)), units_format_time(work, b4, sizeof(b4)));
	printf("thresholds: overhead-bound below %.2fx, work-bound from %.2fx (--overhead-below, "
	       "--work-above)\n",
	       s->overhead_below, s->work_above);
	if (res->kind != SCALING_WORK && s->cfg.routes.route[REGIME_OVERHEAD].next_check != NULL)
		printf("next check: %s\n", s->cfg.routes.route[REGIME_OVERHEAD].next_check);
}

static int print_scaling_json(const scaling_run *s, const scaling_result *res)
{
	bool overhead = res->kind != SCALING_WORK;
	cJSON *obj = verdict_json(s->label, overhead ? regime_name(REGIME_OVERHEAD) : NULL,
	                          scaling_kind_word(res->kind),
	                          overhead ? &s->cfg.routes.route[REGIME_OVERHEAD] : NULL);
	bool ok = obj != NULL;

	ok = ok && add_number(obj, "time_s", s->t1);
	ok = ok && add_number(obj, "time_2x_s", s->t2);
	ok = ok && add_number(obj, "ratio", tidy(res->ratio));
	ok = ok && add_number(obj, "fixed_share", tidy(res->fixed_share));
	ok = ok && add_number(obj, "overhead_below", s->overhead_below);
	ok = ok && add_number(obj, "work_above", s->work_above);
	return print_json_or_fail(obj, ok);
}

static int run_scaling(scaling_run *s)
{
	static const mode_text m = {"scaling", scaling_usage, scaling_help};
	scaling_result res;
	ns_error err;

	ns_error_clear(&err);
	if (roofline_scaling(s->t1, s->t2, s->overhead_below, s->work_above, &res, &err) != NS_OK)
		return status_exit(&m, &err);
	if (res.faster)
		fprintf(
		    stderr,
		    "nextstep: warning: the doubled run was faster (%.2fx): measure again after warm-up\n",
		    res.ratio);
	switch (s->cfg.format.kind) {
	case FORMAT_QUIET:
		printf("%s\n", res.kind == SCALING_WORK ? "work" : regime_name(REGIME_OVERHEAD));
		break;
	case FORMAT_JSON:
		return print_scaling_json(s, &res);
	case FORMAT_TEXT:
		print_scaling_line(s, &res);
		if (s->cfg.format.verbose)
			print_scaling_explain(s, &res);
		break;
	}
	return EXIT_ROUTED;
}

int cli_scaling_main(int argc, char **argv)
{
	static const mode_text m = {"scaling", scaling_usage, scaling_help};
	scaling_run s;
	int rc;

	memset(&s, 0, sizeof(s));
	s.overhead_below = SCALING_OVERHEAD_BELOW;
	s.work_above = SCALING_WORK_ABOVE;
	if ((rc = start_config(&s.cfg)) >= 0)
		return rc;
	rc = parse_args(&m, scaling_options, argc, argv, &s.cfg, scaling_own_option, &s);
	if (rc < 0 && optind < argc)
		rc = usage_error(&m, "scaling takes no operands");
	if (rc < 0 && !(s.have_t1 && s.have_t2))
		rc = usage_error(&m,
		                 "scaling needs --time T1 and --time-2x T2 (the step with twice the work)");
	if (rc < 0 && s.overhead_below > s.work_above)
		rc = usage_error(&m, "--overhead-below must not be above --work-above");
	if (rc < 0)
		rc = run_scaling(&s);
	router_config_free(&s.cfg);
	return rc;
}

/* ---- devices ---- */

typedef struct {
	router_config cfg;
	const char *device_files[DEVICE_FILES_MAX];
	size_t ndevice_files;
} devices_run;

static int devices_own_option(void *ctx, int opt, const char *arg, ns_error *err)
{
	devices_run *d = ctx;

	if (opt != OPT_DEVICE_FILE)
		return ns_error_set(err, NS_ERR_INTERNAL, "unhandled option %d", opt);
	if (d->ndevice_files == DEVICE_FILES_MAX)
		return ns_error_set(err, NS_ERR_USAGE, "at most %d --device-file options", DEVICE_FILES_MAX);
	d->device_files[d->ndevice_files++] = arg;
	return NS_OK;
}

/* Datasheet figures as printed there: 989.5 stays 989.5, 312 stays 312. */
static void print_peak_cell(double peak)
{
	double t = peak / 1e12;

	if (peak <= 0.0)
		printf(" %7s", "-");
	else if (fabs(t - round(t)) < 1e-9)
		printf(" %7.0f", t);
	else
		printf(" %7.1f", t);
}

static void print_device_row(const ns_device *d)
{
	printf("%-15s %-6s %6.0f %7.0f %5d", d->name, d->vendor ? d->vendor : "-", d->mem_bytes / 1e9,
	       d->mem_bw / 1e9, d->sms);
	for (int i = 0; i < DTYPE_COUNT; i++)
		print_peak_cell(d->peak[i]);
	putchar('\n');
}

static void print_device_details(const ns_device *d)
{
	char ridge[32];

	printf("  aliases:");
	for (size_t i = 0; i < d->naliases; i++)
		printf("%s %s", i ? "," : "", d->aliases[i]);
	printf("\n  ridge (FLOP/B):");
	for (int i = 0; i < DTYPE_COUNT; i++)
		if (d->peak[i] > 0.0)
			printf(" %s %s", dtype_name((ns_dtype)i),
			       units_format_plain(device_ridge(d, (ns_dtype)i), ridge, sizeof(ridge)));
	printf("\n  source: %s\n", d->source ? d->source : "-");
	if (d->notes != NULL)
		printf("  notes: %s\n", d->notes);
}

static void print_devices_table(const ns_device_table *t, const ns_device *only, bool verbose)
{
	printf("%-15s %-6s %6s %7s %5s", "DEVICE", "VENDOR", "MEM GB", "BW GB/s", "SMs");
	for (int i = 0; i < DTYPE_COUNT; i++) {
		char head[16];
		snprintf(head, sizeof(head), "%s", dtype_name((ns_dtype)i));
		for (char *c = head; *c; c++)
			*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
		printf(" %7s", head);
	}
	putchar('\n');
	for (size_t i = 0; i < t->n; i++) {
		if (only != NULL && &t->dev[i] != only)
			continue;
		print_device_row(&t->dev[i]);
		if (verbose || only != NULL)
			print_device_details(&t->dev[i]);
	}
	printf("peaks: dense TFLOP/s (INT8: TOPS), no 2:4 sparsity; '-': not on the datasheet. SMs: CUs on "
	       "AMD.\n");
	if (!verbose && only == NULL)
		printf("-v shows aliases, ridge points and the datasheet each number comes from.\n");
}

static cJSON *device_json(const ns_device *d)
{
	cJSON *obj = cJSON_CreateObject(), *peaks, *ridges, *aliases;
	bool ok = obj != NULL;

	ok = ok && add_text(obj, "name", d->name);
	ok = ok && add_text(obj, "vendor", d->vendor);
	ok = ok && (aliases = cJSON_AddArrayToObject(obj, "aliases")) != NULL;
	for (size_t i = 0; ok && i < d->naliases; i++)
		ok = cJSON_AddItemToArray(aliases, cJSON_CreateString(d->aliases[i]));
	ok = ok && (peaks = cJSON_AddObjectToObject(obj, "peak_tflops")) != NULL;
	ok = ok && (ridges = cJSON_AddObjectToObject(obj, "ridge")) != NULL;
	for (int i = 0; ok && i < DTYPE_COUNT; i++)
		if (d->peak[i] > 0.0)
			ok = add_number(peaks, dtype_name((ns_dtype)i), d->peak[i] / 1e12) &&
			     add_number(ridges, dtype_name((ns_dtype)i), device_ridge(d, (ns_dtype)i));
	ok = ok && add_number(obj, "memory_bandwidth_gbs", d->mem_bw / 1e9);
	ok = ok && (d->mem_bytes > 0.0 ? add_number(obj, "memory_gb", d->mem_bytes / 1e9)
	                               : cJSON_AddNullToObject(obj, "memory_gb") != NULL);
	ok = ok && (d->sms > 0 ? add_number(obj, "sms", d->sms) : cJSON_AddNullToObject(obj, "sms") != NULL);
	ok = ok && add_text(obj, "source", d->source);
	ok = ok && add_text(obj, "notes", d->notes);
	if (!ok) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

static int print_devices_json(const ns_device_table *t, const ns_device *only)
{
	cJSON *obj = cJSON_CreateObject(), *list;
	bool ok = obj != NULL && (list = cJSON_AddArrayToObject(obj, "devices")) != NULL;

	for (size_t i = 0; ok && i < t->n; i++) {
		cJSON *one;
		if (only != NULL && &t->dev[i] != only)
			continue;
		ok = (one = device_json(&t->dev[i])) != NULL && cJSON_AddItemToArray(list, one);
	}
	return print_json_or_fail(obj, ok);
}

int cli_devices_main(int argc, char **argv)
{
	static const mode_text m = {"devices", devices_usage, devices_help};
	devices_run d;
	ns_device_table table;
	const ns_device *only = NULL;
	char msg[256];
	int rc;

	memset(&d, 0, sizeof(d));
	devices_init(&table);
	if ((rc = start_config(&d.cfg)) >= 0)
		return rc;
	rc = parse_args(&m, devices_options, argc, argv, &d.cfg, devices_own_option, &d);
	if (rc < 0 && argc - optind > 1)
		rc = usage_error(&m, "devices takes at most one NAME");
	if (rc < 0) {
		rc = load_devices(&table, d.device_files, d.ndevice_files);
		if (rc == EXIT_ROUTED)
			rc = -1; /* loaded: go on to list */
	}
	if (rc < 0 && optind < argc && (only = devices_find(&table, argv[optind])) == NULL) {
		snprintf(msg, sizeof(msg), "unknown device '%.100s'", argv[optind]);
		rc = usage_error(&m, msg);
	}
	if (rc < 0 && d.cfg.format.kind == FORMAT_JSON)
		rc = print_devices_json(&table, only);
	else if (rc < 0)
		print_devices_table(&table, only, d.cfg.format.verbose);
	devices_free(&table);
	router_config_free(&d.cfg);
	return rc < 0 ? EXIT_ROUTED : rc;
}
