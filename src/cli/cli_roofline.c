/* nextstep roofline: the workload options into FLOPs and bytes, placed on the device's roofline and printed
 * by roofline_report. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "cli_model.h"
#include "cli_options.h"
#include "cli_output.h"
#include "nextstep/roofline_report.h"
#include "nextstep/roofline_svg.h"
#include "nextstep/transformer_report.h"
#include "nextstep/units.h"

/* Without --dtype: the precision mixed-precision training runs in on that device, the first of these it has a
 * dense peak for (bf16 since Ampere and CDNA2; fp16 on V100 and T4). */
static const ns_dtype default_dtypes[] = {NS_DTYPE_BF16, NS_DTYPE_FP16, NS_DTYPE_FP32, NS_DTYPE_FP64};

static void choose_work(cli_workload *w, work_kind k)
{
	if (w->kind != k)
		w->nkinds++;
	w->kind = k;
}

static ns_status parse_matmul(const char *arg, const char *flag, double mnk[3], ns_error *err)
{
	char buf[128], *save = NULL, *tok;
	size_t len = strlen(arg);
	int n = 0;

	if (len >= sizeof(buf))
		return ns_error_set(err, NS_ERR_USAGE, "%s: '%.40s...' is too long", flag, arg);
	memcpy(buf, arg, len + 1);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (n == 3)
			break;
		if (ns_units_parse_whole(tok, NS_UNIT_COUNT, flag, &mnk[n++], err) != NS_OK)
			return err->status;
	}
	if (n != 3 || tok != NULL)
		return ns_error_set(err, NS_ERR_USAGE, "%s wants M,N,K (three sizes), not '%s'", flag, arg);
	return NS_OK;
}

static ns_status parse_positive(const char *arg, ns_units_kind kind, const char *what, double *out,
                                ns_error *err)
{
	if (ns_units_parse(arg, kind, what, out, err) != NS_OK)
		return err->status;
	if (*out <= 0.0)
		return ns_error_set(err, NS_ERR_USAGE, "%s: '%s' must be more than zero", what, arg);
	return NS_OK;
}

static ns_status parse_threshold(const char *arg, const char *flag, double *out, ns_error *err)
{
	if (ns_profile_parse_share(arg, out, err) != NS_OK || *out <= 0.0)
		return ns_error_set(err, NS_ERR_USAGE,
		                    "%s wants a fraction in (0, 1] or a percentage, not '%s'", flag, arg);
	return NS_OK;
}

/* The whole-number options: which flag, which field, which flag group they belong to. */
static ns_status whole_option(cli_workload *w, int opt, const char *flag, const char *arg, ns_error *err)
{
	static const struct {
		int opt;
		size_t offset;
		int group; /* 1: elementwise, 2: decode, 3: batch */
	} wholes[] = {
	    {OPT_ELEMENTWISE, offsetof(cli_workload, elements), 0},
	    {OPT_INPUTS, offsetof(cli_workload, inputs), 1},
	    {OPT_OUTPUTS, offsetof(cli_workload, outputs), 1},
	    {OPT_BATCH, offsetof(cli_workload, batch), 3},
	    {OPT_CONTEXT, offsetof(cli_workload, decode.context), 2},
	    {OPT_LAYERS, offsetof(cli_workload, decode.layers), 2},
	    {OPT_KV_HEADS, offsetof(cli_workload, decode.kv_heads), 2},
	    {OPT_HEAD_DIM, offsetof(cli_workload, decode.head_dim), 2},
	    {OPT_HEADS, offsetof(cli_workload, decode.heads), 2},
	};

	for (size_t i = 0; i < sizeof(wholes) / sizeof(wholes[0]); i++) {
		if (wholes[i].opt != opt)
			continue;
		w->elementwise_opts = w->elementwise_opts || wholes[i].group == 1;
		w->decode_opts = w->decode_opts || wholes[i].group == 2;
		w->have_batch = w->have_batch || wholes[i].group == 3;
		if (opt == OPT_ELEMENTWISE)
			choose_work(w, WORK_ELEMENTWISE);
		return ns_units_parse_whole(arg, NS_UNIT_COUNT, flag,
		                            (double *)((char *)w + wholes[i].offset), err);
	}
	return NS_ERR_INTERNAL;
}

static ns_status workload_value(cli_workload *w, int opt, const char *flag, const char *arg, ns_error *err)
{
	switch (opt) {
	case OPT_FLOPS:
		w->have_flops = true;
		choose_work(w, WORK_COUNTS);
		return parse_positive(arg, NS_UNIT_FLOP, flag, &w->flops, err);
	case OPT_BYTES:
		w->have_bytes = true;
		choose_work(w, WORK_COUNTS);
		return parse_positive(arg, NS_UNIT_BYTE, flag, &w->bytes, err);
	case OPT_MATMUL:
		choose_work(w, WORK_MATMUL);
		return parse_matmul(arg, flag, w->mnk, err);
	case OPT_FLOPS_PER_ELEMENT:
		w->elementwise_opts = true;
		return parse_positive(arg, NS_UNIT_FLOP, flag, &w->flops_per_element, err);
	case OPT_DECODE:
		w->decode_given = true;
		choose_work(w, WORK_DECODE);
		return NS_OK;
	case OPT_PARAMS:
		w->decode_opts = true;
		return parse_positive(arg, NS_UNIT_COUNT, flag, &w->decode.params, err);
	case OPT_OVERHEAD_THRESHOLD:
		return parse_threshold(arg, flag, &w->overhead_threshold, err);
	case OPT_SVG:
		w->svg_path = arg;
		return NS_OK;
	default:
		return whole_option(w, opt, flag, arg, err);
	}
}

cfg_result cli_workload_option(cli_config *c, int opt, const char *arg)
{
	ns_error err;
	char flag[CLI_FLAG_MAX];

	if (opt < OPT_FLOPS || opt > OPT_SVG || opt == OPT_TIME)
		return CFG_NOT_MINE;
	ns_error_clear(&err);
	if (workload_value(&c->work, opt, cli_option_flag(opt, flag), arg, &err) == NS_OK)
		return CFG_TAKEN;
	return cli_option_exit(c->mode, &err) == EXIT_USAGE ? CFG_REFUSED : CFG_FAILED;
}

/* --transformer's combinations; --decode is a flag of it, not a workload of its own. */
static const char *transformer_conflict(const cli_config *c, char *buf, size_t size)
{
	const cli_workload *w = &c->work;
	const char *missing = cli_model_missing(c);

	if (w->nkinds > (w->decode_given ? 1 : 0))
		return "give one workload: --flops/--bytes, --matmul, --elementwise, --decode or "
		       "--transformer";
	if (missing != NULL) {
		snprintf(buf, size,
		         "--transformer needs %s (and --layers, --hidden, --heads, --vocab at least)",
		         missing);
		return buf;
	}
	if (w->decode.params > 0.0)
		return "--params goes with --decode alone: --transformer counts the parameters from the "
		       "architecture";
	if (w->elementwise_opts)
		return "--inputs, --outputs and --flops-per-element go with --elementwise";
	if (c->model.train && w->decode_given)
		return "give --train or --decode, not both";
	if (c->model.seq == 0.0 && !w->decode_given)
		return "--transformer needs --seq (tokens per sequence in the pass), or --decode";
	if (w->svg_path != NULL)
		return "--svg draws one kernel; --transformer places several terms";
	return NULL;
}

/* Combinations getopt cannot see; returns a message or NULL. */
static const char *roofline_conflict(const cli_config *c, char *buf, size_t size)
{
	const cli_workload *w = &c->work;

	if (c->device == NULL)
		return "roofline needs --device NAME (see 'nextstep devices')";
	if (c->model.transformer)
		return transformer_conflict(c, buf, size);
	if (c->model.arch_given || c->model.seq > 0.0 || c->model.train || c->model.kv_dtype != NULL)
		return "--hidden, --vocab, --intermediate, --mlp, --tied-embeddings, --seq, --train and "
		       "--kv-dtype go "
		       "with --transformer";
	if (w->nkinds == 0)
		return "roofline needs a workload: --flops/--bytes, --matmul, --elementwise, --decode or "
		       "--transformer";
	if (w->nkinds > 1)
		return "give one workload: --flops/--bytes, --matmul, --elementwise, --decode or "
		       "--transformer";
	if (w->kind == WORK_COUNTS && !(w->have_flops && w->have_bytes))
		return w->have_flops ? "--flops needs --bytes" : "--bytes needs --flops";
	if (w->elementwise_opts && w->kind != WORK_ELEMENTWISE)
		return "--inputs, --outputs and --flops-per-element go with --elementwise";
	if (w->decode_opts && w->kind != WORK_DECODE)
		return "--params, --context, --layers, --kv-heads, --head-dim and --heads go with --decode";
	if (w->have_batch && w->kind != WORK_MATMUL && w->kind != WORK_DECODE)
		return "--batch goes with --matmul or --decode";
	if (w->kind == WORK_DECODE && !(w->decode.params > 0.0))
		return "--decode needs --params, a positive parameter count";
	if (w->decode.context > 0.0 &&
	    !(w->decode.layers > 0.0 && w->decode.kv_heads > 0.0 && w->decode.head_dim > 0.0))
		return "--context needs --layers, --kv-heads and --head-dim to size the KV cache";
	return NULL;
}

static void list_dtypes(const ns_device *d, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < NS_DTYPE_COUNT && n < size; i++)
		if (d->peak[i] > 0.0)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
			                      ns_dtype_name((ns_dtype)i));
}

/* --dtype, or the default the device has a peak for (named on stderr when it is not bf16). */
int cli_choose_dtype(const cli_config *c, const ns_device *dev, ns_dtype *out)
{
	char have[128];

	if (c->dtype != NULL)
		ns_dtype_from_name(c->dtype, out); /* checked when parsed */
	for (size_t i = 0; c->dtype == NULL && i < sizeof(default_dtypes) / sizeof(default_dtypes[0]); i++)
		if (dev->peak[default_dtypes[i]] > 0.0) {
			*out = default_dtypes[i];
			if (i > 0)
				fprintf(
				    stderr,
				    "nextstep: note: %s has no bf16 peak: placing it as %s (give --dtype)\n",
				    dev->name, ns_dtype_name(*out));
			return -1;
		}
	if (dev->peak[*out] > 0.0 && c->dtype != NULL)
		return -1;
	list_dtypes(dev, have, sizeof(have));
	if (c->dtype == NULL)
		return cli_usage_error(c->mode,
		                       "%s has no float peak in the device table (it lists %s): give --dtype",
		                       dev->name, have[0] ? have : "none");
	return cli_usage_error(c->mode, "%s has no %s peak in the device table (it lists %s)", dev->name,
	                       ns_dtype_name(*out), have);
}

/* "7B", "350M", "1.3B": how model sizes are spoken of. */
static const char *params_text(double p, char *buf, size_t size)
{
	if (p >= 1e9)
		snprintf(buf, size, "%.3gB", p / 1e9);
	else if (p >= 1e6)
		snprintf(buf, size, "%.3gM", p / 1e6);
	else
		snprintf(buf, size, "%.0f", p);
	return buf;
}

static ns_status compute_work(const cli_config *c, ns_roofline_placement *p, ns_error *err)
{
	const cli_workload *w = &c->work;
	const char *dt = ns_dtype_name(p->dtype);
	char params[32];

	switch (w->kind) {
	case WORK_COUNTS:
		p->work.flops = w->flops;
		p->work.bytes = w->bytes;
		snprintf(p->work.formula, sizeof(p->work.formula), "as given");
		snprintf(p->description, sizeof(p->description), "given counts");
		p->assumption = "the bytes that actually cross the memory bus";
		return NS_OK;
	case WORK_MATMUL:
		snprintf(p->description, sizeof(p->description), "%smatmul %.0fx%.0fx%.0f %s%s",
		         w->batch > 1 ? "batched " : "", w->mnk[0], w->mnk[1], w->mnk[2], dt,
		         w->batch > 1 ? ", batch " : "");
		if (w->batch > 1)
			snprintf(p->description + strlen(p->description),
			         sizeof(p->description) - strlen(p->description), "%.0f", w->batch);
		p->assumption = "ideal reuse: each operand read once, the result written once";
		return ns_roofline_matmul(w->mnk[0], w->mnk[1], w->mnk[2], w->batch, p->dtype, &p->work, err);
	case WORK_ELEMENTWISE:
		snprintf(p->description, sizeof(p->description), "elementwise %.0f x (%.0f in, %.0f out) %s",
		         w->elements, w->inputs, w->outputs, dt);
		p->assumption = "every input read once and every output written once, nothing cached";
		return ns_roofline_elementwise(w->elements, w->inputs, w->outputs, w->flops_per_element,
		                               p->dtype, &p->work, err);
	case WORK_DECODE:
		p->is_decode = true;
		p->decode_spec = w->decode;
		p->decode_spec.batch = w->batch;
		if (ns_roofline_decode_step(&p->decode_spec, p->dtype, ns_device_ridge(p->dev, p->dtype),
		                            &p->decode, err) != NS_OK)
			return err->status;
		p->work = p->decode.work;
		snprintf(p->description, sizeof(p->description), "decode step, %s params, batch %.0f %s",
		         params_text(w->decode.params, params, sizeof(params)), w->batch, dt);
		p->assumption =
		    "weights read once per step for the whole batch; activations ignored; KV cache in the "
		    "same dtype";
		return NS_OK;
	case WORK_NONE:
	case WORK_TRANSFORMER: /* place_transformer() */
		break;
	}
	return ns_error_set(err, NS_ERR_INTERNAL, "no workload");
}

static void warn_above_roof(const ns_roofline_placement *p)
{
	char b1[48], b2[48];

	fprintf(stderr,
	        "nextstep: warning: achieved %s is above the %s roof (%s): check the counts, --time and "
	        "--device\n",
	        ns_units_format_si(p->roof.achieved_flops, "FLOP/s", b1, sizeof(b1)),
	        p->roof.intensity >= p->roof.ridge ? "compute" : "memory",
	        ns_units_format_si(p->roof.attainable, "FLOP/s", b2, sizeof(b2)));
}

/* svg: --svg FILE's file, NULL for '-' (the command line's stdout; cli_output_ok() checks it). */
static int write_svg(const cli_config *c, const ns_roofline_placement *p, cli_output *svg)
{
	ns_roofline_plot plot = {p->dev,
	                         p->dtype,
	                         c->label != NULL ? c->label : p->description,
	                         p->roof.intensity,
	                         p->roof.attainable,
	                         p->roof.timed,
	                         p->roof.achieved_flops,
	                         p->roof.fraction_of_roof};

	ns_roofline_svg_write(svg != NULL ? cli_output_stream(svg) : stdout, &plot);
	return EXIT_ROUTED;
}

/* With --svg - stdout carries only the SVG, so the verdict goes to stderr. */
static int report(const cli_config *c, const ns_roofline_placement *p, cli_output *svg)
{
	bool svg_stdout = c->work.svg_path != NULL && strcmp(c->work.svg_path, "-") == 0;
	ns_error err;

	if (p->roof.above_roof)
		warn_above_roof(p);
	ns_error_clear(&err);
	if (ns_roofline_report_print(svg_stdout ? stderr : stdout, p, &c->routes, &c->format, &err) != NS_OK)
		return cli_status_exit(c->mode, &err);
	fflush(stdout);
	return c->work.svg_path != NULL ? write_svg(c, p, svg) : EXIT_ROUTED;
}

static int place_transformer(const cli_config *c, const ns_device *dev, ns_dtype dt)
{
	ns_transformer_report r;
	ns_error err;

	memset(&r, 0, sizeof(r));
	r.label = c->label;
	r.dev = dev;
	r.seconds = c->have_time ? c->time : 0.0;
	cli_model_arch(c, &r.arch);
	r.pass = (ns_pass_spec){c->work.batch,
	                        c->model.seq > 0.0 ? c->model.seq : 1.0,
	                        c->work.decode.context,
	                        c->model.train,
	                        dt,
	                        cli_model_dtype(c->model.kv_dtype, dt)};
	ns_error_clear(&err);
	if (ns_transformer_check(&r.arch, &err) != NS_OK ||
	    ns_transformer_pass_count(&r.arch, &r.pass, &r.count, &err) != NS_OK) {
		cli_model_name_option(&err);
		return cli_option_exit(c->mode, &err);
	}
	ns_transformer_param_count(&r.arch, &r.params);
	ns_transformer_place(&r.count, dev->peak[dt], dev->mem_bw, &r.roof);
	if (ns_transformer_report_print(stdout, &r, &c->routes, &c->format, &err) != NS_OK)
		return cli_status_exit(c->mode, &err);
	return EXIT_ROUTED;
}

static int place(const cli_config *c, const ns_device_table *table, cli_output *svg)
{
	ns_roofline_placement p;
	ns_error err;
	int rc;

	memset(&p, 0, sizeof(p));
	p.label = c->label;
	p.seconds = c->have_time ? c->time : 0.0;
	p.overhead_threshold = c->work.overhead_threshold;
	if ((p.dev = ns_devices_find(table, c->device)) == NULL)
		return cli_usage_error(c->mode, "unknown device '%s' (see 'nextstep devices')", c->device);
	if ((rc = cli_choose_dtype(c, p.dev, &p.dtype)) >= 0)
		return rc;
	if (c->model.transformer)
		return place_transformer(c, p.dev, p.dtype);
	ns_error_clear(&err);
	if (compute_work(c, &p, &err) != NS_OK)
		return cli_option_exit(c->mode, &err);
	ns_roofline_input in = {p.work.flops,  p.work.bytes, p.dev->peak[p.dtype],
	                        p.dev->mem_bw, p.seconds,    p.overhead_threshold};
	/* the work is the options', the device's numbers are the table's */
	if (ns_roofline_place(&in, &p.roof, &err) != NS_OK)
		return err.param == NS_ROOFLINE_PARAM_WORK ? cli_option_exit(c->mode, &err)
		                                           : cli_status_exit(c->mode, &err);
	return report(c, &p, svg);
}

int cli_roofline_run(cli_config *c)
{
	static const cli_output_kind plot_kind = {"--svg", "plot"};
	ns_device_table table;
	char buf[160];
	const char *conflict = roofline_conflict(c, buf, sizeof(buf));
	cli_output *svg = NULL;
	int rc;

	if (c->noperands > 0)
		return cli_usage_error(c->mode, "roofline takes no operands; give the workload with options");
	if (conflict != NULL)
		return cli_usage_error(c->mode, "%s", conflict);
	if (c->work.svg_path != NULL && strcmp(c->work.svg_path, "-") != 0 &&
	    (rc = cli_output_open(c, &plot_kind, c->work.svg_path, NULL, 0, &svg)) >= 0)
		return rc;
	ns_devices_init(&table);
	rc = cli_load_devices(c, &table);
	if (rc == EXIT_ROUTED)
		rc = place(c, &table, svg);
	ns_devices_free(&table);
	if (!cli_output_close(svg, rc == EXIT_ROUTED))
		rc = EXIT_BAD_INPUT;
	return rc;
}
