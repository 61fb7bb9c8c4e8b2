/* The transformer options shared by roofline --transformer and budget (cli_model.c). */
#ifndef NEXTSTEP_CLI_MODEL_H
#define NEXTSTEP_CLI_MODEL_H

#include <stdbool.h>

#include "cli.h"
#include "nextstep/transformer.h"

/* Stores one transformer option; CFG_NOT_MINE when opt is not one. */
cfg_result cli_model_option(cli_config *c, int opt, const char *arg);
/* Whether the options describe a whole architecture (--hidden or --vocab given). */
bool cli_model_whole(const cli_config *c);
/* The first option a whole architecture still lacks, or NULL. */
const char *cli_model_missing(const cli_config *c);
/* The architecture the options give (unchecked: ns_transformer_check() fills the defaults). */
void cli_model_arch(const cli_config *c, ns_transformer_arch *a);
/* Prefixes an architecture error's message with the option its err->param names. */
void cli_model_name_option(ns_error *err);
/* The dtype named (checked when parsed), or fallback when NULL. */
ns_dtype cli_model_dtype(const char *name, ns_dtype fallback);

#endif
