/* The transformer options (roofline --transformer and budget): their values, the architecture they describe,
 * and the library's architecture errors named by their option. */
#define _POSIX_C_SOURCE 200809L
#include "cli_model.h"

#include <string.h>

#include "cli_common.h"
#include "cli_options.h"
#include "nextstep/units.h"

static int whole(cli_config *c, const char *flag, const char *arg, double *out)
{
	ns_error err;

	ns_error_clear(&err);
	if (ns_units_parse_whole(arg, NS_UNIT_COUNT, flag, out, &err) != NS_OK)
		return cli_usage_error(c->mode, "%s", err.msg);
	return -1;
}

static int dtype_option(cli_config *c, const char *flag, const char *arg, const char **out)
{
	ns_dtype dt;

	if (!ns_dtype_from_name(arg, &dt))
		return cli_usage_error(
		    c->mode, "%s: unknown dtype '%.100s' (fp64, fp32, tf32, bf16, fp16, fp8, int8, fp4)",
		    flag, arg);
	*out = arg;
	return -1;
}

static int arch_option(cli_config *c, int opt, const char *arg)
{
	cli_model *m = &c->model;

	m->arch_given = true;
	switch (opt) {
	case OPT_HIDDEN:
		return whole(c, "--hidden", arg, &m->hidden);
	case OPT_VOCAB:
		return whole(c, "--vocab", arg, &m->vocab);
	case OPT_INTERMEDIATE:
		return whole(c, "--intermediate", arg, &m->intermediate);
	case OPT_TIED_EMBEDDINGS:
		m->tied = true;
		return -1;
	case OPT_BIASES:
		m->biases = true;
		return -1;
	case OPT_POSITIONS:
		return whole(c, "--positions", arg, &m->positions);
	default: /* OPT_MLP */
		if (strcmp(arg, "gated") != 0 && strcmp(arg, "plain") != 0)
			return cli_usage_error(c->mode, "--mlp must be gated or plain, not '%.40s'", arg);
		m->mlp = arg[0] == 'g' ? NS_MLP_GATED : NS_MLP_PLAIN;
		return -1;
	}
}

static int train_option(cli_config *c, int opt, const char *arg)
{
	cli_model *m = &c->model;

	m->train_given = true;
	switch (opt) {
	case OPT_OPTIMIZER:
		if (!ns_optimizer_from_name(arg, &m->optimizer))
			return cli_usage_error(
			    c->mode, "--optimizer must be adamw, sgd or adafactor, not '%.40s'", arg);
		return -1;
	case OPT_GRAD_DTYPE:
		return dtype_option(c, "--grad-dtype", arg, &m->grad_dtype);
	case OPT_STATE_DTYPE:
		return dtype_option(c, "--state-dtype", arg, &m->state_dtype);
	case OPT_NO_MASTER_WEIGHTS:
		m->no_master_weights = true;
		return -1;
	case OPT_CHECKPOINTING:
		m->checkpointing = true;
		return -1;
	case OPT_DROPOUT:
		m->dropout = true;
		return -1;
	default: /* OPT_EAGER_ATTENTION: applies to inference too, but only training keeps the scores */
		m->eager_attention = true;
		return -1;
	}
}

int cli_model_option(cli_config *c, int opt, const char *arg)
{
	cli_model *m = &c->model;
	ns_error err;

	switch (opt) {
	case OPT_TRANSFORMER:
		m->transformer = true;
		return -1;
	case OPT_SEQ:
		return whole(c, "--seq", arg, &m->seq);
	case OPT_TRAIN:
		m->train = true;
		return -1;
	case OPT_KV_DTYPE:
		return dtype_option(c, "--kv-dtype", arg, &m->kv_dtype);
	case OPT_DEVICE_MEMORY:
		ns_error_clear(&err);
		if (ns_units_parse(arg, NS_UNIT_BYTE, "--device-memory", &m->device_memory, &err) != NS_OK)
			return cli_usage_error(c->mode, "%s", err.msg);
		if (!(m->device_memory > 0.0))
			return cli_usage_error(c->mode, "--device-memory: '%s' must be more than zero", arg);
		return -1;
	case OPT_HIDDEN:
	case OPT_VOCAB:
	case OPT_INTERMEDIATE:
	case OPT_MLP:
	case OPT_TIED_EMBEDDINGS:
	case OPT_BIASES:
	case OPT_POSITIONS:
		return arch_option(c, opt, arg);
	case OPT_OPTIMIZER:
	case OPT_GRAD_DTYPE:
	case OPT_STATE_DTYPE:
	case OPT_NO_MASTER_WEIGHTS:
	case OPT_CHECKPOINTING:
	case OPT_EAGER_ATTENTION:
	case OPT_DROPOUT:
		return train_option(c, opt, arg);
	default:
		return -2;
	}
}

bool cli_model_whole(const cli_config *c)
{
	return c->model.hidden > 0.0 || c->model.vocab > 0.0;
}

void cli_model_arch(const cli_config *c, ns_transformer_arch *a)
{
	const cli_model *m = &c->model;
	const ns_roofline_decode_spec *d = &c->work.decode;

	memset(a, 0, sizeof(*a));
	a->layers = d->layers;
	a->hidden = m->hidden;
	a->heads = d->heads;
	a->kv_heads = d->kv_heads;
	a->head_dim = d->head_dim;
	a->vocab = m->vocab;
	a->intermediate = m->intermediate;
	a->mlp = m->mlp;
	a->tied_embeddings = m->tied;
	a->biases = m->biases;
	a->positions = m->positions;
}

/* The architecture's options, for the messages: which ones a whole architecture needs at least. */
const char *cli_model_missing(const cli_config *c)
{
	const ns_roofline_decode_spec *d = &c->work.decode;

	if (d->layers == 0.0)
		return "--layers";
	if (c->model.hidden == 0.0)
		return "--hidden";
	if (d->heads == 0.0)
		return "--heads";
	if (c->model.vocab == 0.0)
		return "--vocab";
	return NULL;
}

void cli_model_name_option(ns_error *err)
{
	static const char *const flags[NS_ARCH_PARAM_COUNT] = {
	    [NS_ARCH_PARAM_LAYERS] = "--layers",
	    [NS_ARCH_PARAM_HIDDEN] = "--hidden",
	    [NS_ARCH_PARAM_HEADS] = "--heads",
	    [NS_ARCH_PARAM_KV_HEADS] = "--kv-heads",
	    [NS_ARCH_PARAM_HEAD_DIM] = "--head-dim",
	    [NS_ARCH_PARAM_VOCAB] = "--vocab",
	    [NS_ARCH_PARAM_INTERMEDIATE] = "--intermediate",
	    [NS_ARCH_PARAM_BATCH] = "--batch",
	    [NS_ARCH_PARAM_SEQ] = "--seq",
	    [NS_ARCH_PARAM_CONTEXT] = "--context",
	};
	char msg[sizeof(err->msg)];
	size_t n;

	if (err->param <= 0 || err->param >= NS_ARCH_PARAM_COUNT || flags[err->param] == NULL)
		return;
	n = (size_t)snprintf(msg, sizeof(msg), "%s: ", flags[err->param]);
	if (n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, "%.*s", (int)(sizeof(msg) - n - 1), err->msg);
	memcpy(err->msg, msg, sizeof(err->msg));
	ns_error_set_param(err, 0); /* named */
}

ns_dtype cli_model_dtype(const char *name, ns_dtype fallback)
{
	ns_dtype dt = fallback;

	if (name != NULL)
		ns_dtype_from_name(name, &dt); /* checked when parsed */
	return dt;
}
