/* nextstep budget: the options into a budget spec, computed by budget.c and printed by budget_report.c. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "cli_model.h"
#include "cli_options.h"
#include "nextstep/budget_report.h"

/* Combinations getopt cannot see; returns a message or NULL. */
static const char *budget_conflict(const cli_config *c, char *buf, size_t size)
{
	const cli_model *m = &c->model;
	const ns_roofline_decode_spec *d = &c->work.decode;
	const char *missing = cli_model_missing(c);

	if (c->noperands > 0)
		return "budget takes no operands; describe the model with options";
	if (c->device == NULL && !(m->device_memory > 0.0))
		return "budget needs --device NAME (see 'nextstep devices') or --device-memory B";
	if (cli_model_whole(c) && missing != NULL) {
		snprintf(buf, size,
		         "the architecture needs %s (--layers, --hidden, --heads and --vocab at least)",
		         missing);
		return buf;
	}
	if (cli_model_whole(c) && d->params > 0.0)
		return "give --params or the architecture, not both: the architecture gives the parameter "
		       "count";
	if (!cli_model_whole(c) && !(d->params > 0.0))
		return "budget needs --params P, or the architecture (--layers, --hidden, --heads, --vocab)";
	if (m->train && c->work.decode_given)
		return "give --train or --decode, not both";
	if (m->train_given && !m->train)
		return "--optimizer, --grad-dtype, --state-dtype, --no-master-weights, --checkpointing, "
		       "--eager-attention and --dropout go with --train";
	if (m->train && m->kv_dtype != NULL)
		return "--kv-dtype: a training step keeps no KV cache";
	if (d->context == 0.0 && (cli_model_whole(c) || d->layers > 0.0))
		return m->train ? "--train needs --context L, the sequence length"
		                : "budget needs --context L, the tokens in each sequence's KV cache";
	if (d->context > 0.0 && !m->train && !cli_model_whole(c) &&
	    !(d->layers > 0.0 && d->kv_heads > 0.0 && d->head_dim > 0.0))
		return "--context needs the architecture, or --layers, --kv-heads and --head-dim to size the "
		       "KV cache";
	return NULL;
}

static int choose_budget_dtype(const cli_config *c, const ns_device *dev, ns_dtype *out)
{
	*out = NS_DTYPE_BF16;
	if (c->dtype != NULL) {
		ns_dtype_from_name(c->dtype, out); /* checked when parsed */
		return -1;
	}
	/* the ridge needs a peak: the roofline's default dtype for the device */
	if (dev != NULL && c->work.decode_given)
		return cli_choose_dtype(c, dev, out);
	return -1;
}

static void fill_spec(const cli_config *c, const ns_device *dev, ns_dtype dt, ns_budget_spec *s)
{
	const cli_model *m = &c->model;

	memset(s, 0, sizeof(*s));
	cli_model_arch(c, &s->arch);
	s->params = c->work.decode.params;
	s->dtype = dt;
	s->kv_dtype = cli_model_dtype(m->kv_dtype, dt);
	s->context = c->work.decode.context;
	s->batch = c->work.batch;
	s->train = m->train;
	s->decode = c->work.decode_given;
	s->optimizer = m->optimizer;
	s->grad_dtype = cli_model_dtype(m->grad_dtype, dt);
	s->state_dtype = cli_model_dtype(m->state_dtype, NS_DTYPE_FP32);
	s->master_weights = !m->no_master_weights && ns_dtype_bytes(dt) < 4.0;
	s->checkpointing = m->checkpointing;
	s->eager_attention = m->eager_attention;
	s->dropout = m->dropout;
	s->device_bytes = m->device_memory > 0.0 ? m->device_memory : dev != NULL ? dev->mem_bytes : 0.0;
	s->ridge = dev != NULL && s->decode && !s->train ? ns_device_ridge(dev, dt) : 0.0;
}

static int report(const cli_config *c, const ns_device *dev)
{
	ns_budget_spec spec;
	ns_budget_report r;
	ns_dtype dt;
	ns_error err;
	int rc;

	if ((rc = choose_budget_dtype(c, dev, &dt)) >= 0)
		return rc;
	fill_spec(c, dev, dt, &spec);
	if (!(spec.device_bytes > 0.0))
		return dev != NULL
		           ? cli_usage_error(
		                 c->mode, "the device table has no memory size for %s: give --device-memory",
		                 dev->name)
		           : cli_usage_error(c->mode,
		                             "no device memory size: give --device or --device-memory");
	memset(&r, 0, sizeof(r));
	r.label = c->label;
	r.dev = dev;
	r.spec = &spec;
	ns_error_clear(&err);
	if (ns_budget_compute(&spec, &r.budget, &err) != NS_OK) {
		cli_model_name_option(&err);
		return cli_option_exit(c->mode, &err);
	}
	if (ns_budget_report_print(stdout, &r, &c->routes, &c->format, &err) != NS_OK)
		return cli_status_exit(c->mode, &err);
	return EXIT_ROUTED;
}

int cli_budget_run(cli_config *c)
{
	ns_device_table table;
	const ns_device *dev = NULL;
	char buf[160];
	const char *conflict = budget_conflict(c, buf, sizeof(buf));
	int rc;

	if (conflict != NULL)
		return cli_usage_error(c->mode, "%s", conflict);
	ns_devices_init(&table);
	rc = c->device != NULL ? cli_load_devices(c, &table) : EXIT_ROUTED;
	if (rc == EXIT_ROUTED && c->device != NULL && (dev = ns_devices_find(&table, c->device)) == NULL)
		rc = cli_usage_error(c->mode, "unknown device '%s' (see 'nextstep devices')", c->device);
	if (rc == EXIT_ROUTED)
		rc = report(c, dev);
	ns_devices_free(&table);
	return rc;
}
