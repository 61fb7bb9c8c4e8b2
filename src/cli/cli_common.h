/* What the modes share: the configuration steps cli_parse() runs, error printing, the device table as the
 * options ask for it, and the checks that output still reaches its reader. */
#ifndef NEXTSTEP_CLI_COMMON_H
#define NEXTSTEP_CLI_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "nextstep/devices.h"
#include "nextstep/error.h"
#include "nextstep/input.h"
#include "nextstep/trace_report.h"

/* Defaults for mode. */
void cli_config_init(cli_config *c, cli_mode mode);
/* Stores one option's value: CFG_TAKEN, or what ends the run (CFG_NOT_MINE never). */
cfg_result cli_config_set(cli_config *c, int opt, const char *arg);
/* --dtype, or the first of bf16, fp16, fp32, fp64 the device has a peak for (a note on stderr when not bf16);
 * -1 with *out set, or the usage error's exit status (cli_roofline.c). */
int cli_choose_dtype(const cli_config *c, const ns_device *dev, ns_dtype *out);
/* The roofline workload options (cli_roofline.c); CFG_NOT_MINE when opt is not one. */
cfg_result cli_workload_option(cli_config *c, int opt, const char *arg);
/* After the last option: colour, thresholds against each other, the routes and --playbook. -1 or an exit
 * status. */
int cli_config_finish(cli_config *c);

/* Prints "nextstep: WHERE:LINE: msg" (or ": item N:", ": byte N:") to stderr; where may be NULL. */
void cli_report_error(const char *where, const ns_error *err);
/* The same message into msgs (a worker's buffer, written out later in input order). */
void cli_report_error_to(FILE *msgs, const char *where, const ns_error *err);
/* Names the option behind a library error that a setting decides (err->param), e.g. " (--strict)". */
void cli_name_option(ns_error *err);
/* A usage error for the CLI's own NS_ERR_USAGE (exit 2), else the message and EXIT_BAD_INPUT. */
int cli_status_exit(cli_mode mode, const ns_error *err);
/* The error of a library call whose inputs are the command line's: a value error (NS_ERR_VALUE: a count,
 * size or time the library refuses) is a usage error (exit 2); anything else as cli_status_exit(). The
 * library never returns NS_ERR_USAGE: only its caller knows where a value came from. */
int cli_option_exit(cli_mode mode, const ns_error *err);
/* The built-in device table and the --device-file overlays; a bad file is reported. EXIT_ROUTED or
 * EXIT_BAD_INPUT. */
int cli_load_devices(const cli_config *c, ns_device_table *t);
/* Gives stdout a block of 64 KiB (a pipe) or 256 KiB (a file) unless it is a terminal; before anything is
 * written to it. */
void cli_buffer_stdout(void);
/* True while stdout takes what is written; false (after one message on stderr) once a write failed (a full
 * disk, a closed pipe): a stream stops there. */
bool cli_output_ok(void);
/* An input nextstep does not read and that users give it (an Nsight Systems report by its name, an SQLite
 * database by its first bytes): true with err set to what it is and what to run instead. */
bool cli_unreadable_input(ns_input *in, ns_error *err);
/* Reports an input that could not be opened; a directory gets what the mode would take instead. */
void cli_report_open_error(cli_mode mode, const char *path, const ns_error *err);
/* The operands, or "-" (stdin) when there are none, and their number. */
char *const *cli_operands(const cli_config *c);
size_t cli_noperands(const cli_config *c);
/* Reads one opened input; labelled: several inputs, so its report names it. Returns an exit status. */
typedef int (*cli_input_fn)(void *ctx, ns_input *in, bool labelled);
/* Opens each operand (stdin "-" when there is none) and hands it to fn: a file that cannot be opened is
 * reported and the others still run; stops early once output fails. Returns the worst exit status. */
int cli_each_input(const cli_config *c, cli_input_fn fn, void *ctx);
/* The report's suggestions worded with this CLI's flags (ns_report_options.hints). */
extern const char *const cli_report_hints[NS_REPORT_HINT_COUNT];
/* The same, for the report of the rank that --rank N picked out of a job. */
extern const char *const cli_report_hints_one_rank[NS_REPORT_HINT_COUNT];
/* The built-in routes' follow-ups in the command line's words (ns_routes_init_worded). */
extern const char *const cli_follow_ups[NS_FOLLOW_UP_COUNT];
/* Of two inputs' exit statuses, the one the run exits with: usage error, then bad input, then the quality
 * gate. */
int cli_worse_exit(int a, int b);
/* path as it may be printed (escaped as ns_text_escape does, cut to size bytes): a file name may hold a
 * newline or a terminal escape. Returns buf. */
const char *cli_shown(const char *path, char *buf, size_t size);
/* "==> NAME <==" before each input's text report when there are several inputs. */
void cli_print_input_header(FILE *out, const char *name);

#endif
