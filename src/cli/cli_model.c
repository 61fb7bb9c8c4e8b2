/* The transformer options (roofline --transformer and budget): their values, the architecture they describe,
 * and the library's architecture errors named by their option. */
#define _POSIX_C_SOURCE 200809L
#include "cli_model.h"

#include <string.h>

#include "cli_common.h"
#include "cli_options.h"
#include "nextstep/units.h"

static cfg_result whole(cli_config *c, int opt, const char *arg, double *out)
{
	char flag[CLI_FLAG_MAX];
	ns_error err;

	ns_error_clear(&err);
	if (ns_units_parse_whole(arg, NS_UNIT_COUNT, cli_option_flag(opt, flag), out, &err) != NS_OK)
		return cli_option_refused(c->mode, "%s", err.msg);
	return CFG_TAKEN;
}

static cfg_result dtype_option(cli_config *c, int opt, const char *arg, const char **out)
{
	char flag[CLI_FLAG_MAX];
	ns_dtype dt;

	if (!ns_dtype_from_name(arg, &dt))
		return cli_option_refused(
		    c->mode, "%s: unknown dtype '%.100s' (fp64, fp32, tf32, bf16, fp16, fp8, int8, fp4)",
		    cli_option_flag(opt, flag), arg);
	*out = arg;
	return CFG_TAKEN;
}

static cfg_result arch_option(cli_config *c, int opt, const char *arg)
{
	char flag[CLI_FLAG_MAX];
	cli_model *m = &c->model;

	m->arch_given = true;
	switch (opt) {
	case OPT_HIDDEN:
		return whole(c, opt, arg, &m->hidden);
	case OPT_VOCAB:
		return whole(c, opt, arg, &m->vocab);
	case OPT_INTERMEDIATE:
		return whole(c, opt, arg, &m->intermediate);
	case OPT_TIED_EMBEDDINGS:
		m->tied = true;
		return CFG_TAKEN;
	case OPT_BIASES:
		m->biases = true;
		return CFG_TAKEN;
	case OPT_POSITIONS:
		return whole(c, opt, arg, &m->positions);
	default: /* OPT_MLP */
		if (strcmp(arg, "gated") != 0 && strcmp(arg, "plain") != 0)
			return cli_option_refused(c->mode, "%s must be gated or plain, not '%.40s'",
			                          cli_option_flag(opt, flag), arg);
		m->mlp = arg[0] == 'g' ? NS_MLP_GATED : NS_MLP_PLAIN;
		return CFG_TAKEN;
	}
}

static cfg_result train_option(cli_config *c, int opt, const char *arg)
{
	char flag[CLI_FLAG_MAX];
	cli_model *m = &c->model;

	m->train_given = true;
	switch (opt) {
	case OPT_OPTIMIZER:
		if (!ns_optimizer_from_name(arg, &m->optimizer))
			return cli_option_refused(c->mode, "%s must be adamw, sgd or adafactor, not '%.40s'",
			                          cli_option_flag(opt, flag), arg);
		return CFG_TAKEN;
	case OPT_GRAD_DTYPE:
		return dtype_option(c, opt, arg, &m->grad_dtype);
	case OPT_STATE_DTYPE:
		return dtype_option(c, opt, arg, &m->state_dtype);
	case OPT_NO_MASTER_WEIGHTS:
		m->no_master_weights = true;
		return CFG_TAKEN;
	case OPT_CHECKPOINTING:
		m->checkpointing = true;
		return CFG_TAKEN;
	case OPT_DROPOUT:
		m->dropout = true;
		return CFG_TAKEN;
	default: /* OPT_EAGER_ATTENTION: applies to inference too, but only training keeps the scores */
		m->eager_attention = true;
		return CFG_TAKEN;
	}
}

cfg_result cli_model_option(cli_config *c, int opt, const char *arg)
{
	char flag[CLI_FLAG_MAX];
	cli_model *m = &c->model;
	ns_error err;

	switch (opt) {
	case OPT_TRANSFORMER:
		m->transformer = true;
		return CFG_TAKEN;
	case OPT_SEQ:
		return whole(c, opt, arg, &m->seq);
	case OPT_TRAIN:
		m->train = true;
		return CFG_TAKEN;
	case OPT_KV_DTYPE:
		return dtype_option(c, opt, arg, &m->kv_dtype);
	case OPT_DEVICE_MEMORY:
		ns_error_clear(&err);
		cli_option_flag(opt, flag);
		if (ns_units_parse(arg, NS_UNIT_BYTE, flag, &m->device_memory, &err) != NS_OK)
			return cli_option_refused(c->mode, "%s", err.msg);
		if (!(m->device_memory > 0.0))
			return cli_option_refused(c->mode, "%s: '%s' must be more than zero", flag, arg);
		return CFG_TAKEN;
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
		return CFG_NOT_MINE;
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
