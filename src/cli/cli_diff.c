/* nextstep diff [options] BEFORE AFTER: the comparison of two runs, and the CI gates. The options are parsed
 * with every other mode's (cli_options.c); this file opens the two inputs, has the library load and compare
 * them (ns_diff_analyse), prints what it decided, and applies the gates. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_common.h"
#include "cli_html.h"
#include "cli_options.h"
#include "datadir.h"
#include "nextstep/diff.h"
#include "nextstep/kernel_rules.h"
#include "nextstep/trace_report.h"

/* A --fail-if-* gate tripped: the comparison worked and the change is one the caller asked to stop. */
#define EXIT_GATE 3

/* As 'nextstep trace' does: --kernel-rules extends the built-in table, --kernel-rules-only replaces it. */
static int load_rules(const cli_config *c, ns_kernel_rules **rules)
{
	const char *flag = c->rules_only ? "--kernel-rules-only" : "--kernel-rules";
	ns_error err;

	ns_error_clear(&err);
	if ((c->rules_path != NULL ? ns_kernel_rules_load(c->rules_path, rules, &err)
	                           : ns_kernel_rules_default(rules, &err)) == NS_OK) {
		if (c->rules_path != NULL && !c->rules_only)
			ns_kernel_rules_then_builtin(*rules);
		return -1;
	}
	if (c->rules_path == NULL)
		cli_report_error(NULL, &err);
	else if (err.line > 0)
		fprintf(stderr, "nextstep: %s %s:%ld: %s\n", flag, c->rules_path, err.line, err.msg);
	else
		fprintf(stderr, "nextstep: %s %s: %s\n", flag, c->rules_path, err.msg);
	return EXIT_BAD_INPUT;
}

/* "nextstep: FILE:LINE: msg" for a saved report or profile, "nextstep: FILE: byte N: msg" inside a trace. */
static void report_side_error(const char *raw_path, const ns_error *err)
{
	char shown[NS_INPUT_DISPLAY_MAX];
	const char *path = cli_shown(raw_path, shown, sizeof(shown));

	if (err->line > 0)
		fprintf(stderr, "nextstep: %s:%ld: %s\n", path, err->line, err->msg);
	else if (err->offset >= 0)
		fprintf(stderr, "nextstep: %s: byte %lld: %s\n", path, err->offset, err->msg);
	else
		fprintf(stderr, "nextstep: %s: %s\n", path, err->msg);
}

static int print_result(const cli_config *c, const ns_diff_side sides[2], const ns_diff_result *r)
{
	ns_diff_print_options po = {{c->operands[0], c->operands[1]}, c->format.verbose, c->top};
	ns_error err;

	switch (c->format.kind) {
	case NS_FORMAT_JSON:
		ns_error_clear(&err);
		if (ns_diff_print_json(stdout, &sides[0], &sides[1], r, c->top, &err) != NS_OK) {
			if (err.status == NS_ERR_IO)
				cli_output_ok(); /* said once, with its reason, as stdout's */
			else
				cli_report_error(NULL, &err);
			return EXIT_BAD_INPUT;
		}
		break;
	case NS_FORMAT_QUIET:
		printf("%s\n", ns_diff_change_name(r->change));
		break;
	case NS_FORMAT_TEXT:
		ns_diff_print_text(stdout, &sides[0], &sides[1], r, &po);
		break;
	}
	return EXIT_ROUTED;
}

/* The gates, after the output so a failing CI job still shows the comparison. */
static int apply_gates(const cli_config *c, const ns_diff_result *r)
{
	int rc = EXIT_ROUTED;

	if (c->gate_slower && r->change == NS_DIFF_TIME_UNKNOWN) {
		fputs("nextstep: --fail-if-slower: a side is a profile (shares only): no step time to gate\n",
		      stderr);
		return EXIT_BAD_INPUT;
	}
	if (c->gate_slower && ns_diff_gate_slower(r, c->slower_pct)) {
		fprintf(stderr, "nextstep: --fail-if-slower %g: median step %.3f ms -> %.3f ms (%+.1f%%)\n",
		        c->slower_pct, r->before.median, r->after.median,
		        100.0 * (r->after.median / r->before.median - 1));
		rc = EXIT_GATE;
	}
	if (c->gate_slower && !r->noise.known && r->before.n > 0)
		fputs("nextstep: --fail-if-slower: a side has fewer than 2 steps: noise cannot be told from "
		      "change, "
		      "the gate did not trip\n",
		      stderr);
	if (c->gate_regime && ns_diff_gate_regime(r)) {
		fprintf(stderr, "nextstep: --fail-if-regime-changes: %s -> %s\n",
		        ns_regime_bound_word(r->verdict[0].regime),
		        ns_regime_bound_word(r->verdict[1].regime));
		rc = EXIT_GATE;
	}
	return rc;
}

static int open_inputs(const cli_config *c, ns_input in[2])
{
	ns_error err;

	if (strcmp(c->operands[0], "-") == 0 && strcmp(c->operands[1], "-") == 0)
		return cli_usage_error(c->mode, "diff: only one side can be read from stdin");
	for (int i = 0; i < 2; i++) {
		ns_error_clear(&err);
		if (ns_input_open(&in[i], c->operands[i], &err) != NS_OK) {
			cli_report_open_error(c->mode, c->operands[i], &err);
			if (i == 1)
				ns_input_close(&in[0]);
			return EXIT_BAD_INPUT;
		}
		if (cli_unreadable_input(&in[i], &err)) {
			cli_report_error(c->operands[i], &err);
			ns_input_close(&in[i]);
			if (i == 1)
				ns_input_close(&in[0]);
			return EXIT_BAD_INPUT;
		}
	}
	return -1;
}

/* --html: the comparison's page, with each side's name, size and SHA-256. */
static int write_html(const cli_config *c, cli_html *html, const ns_html_source src[2],
                      const ns_diff_side sides[2], const ns_diff_result *r)
{
	ns_error err;

	ns_error_clear(&err);
	if (ns_html_diff(cli_html_page(html), src, &sides[0], &sides[1], r, &c->routes, &err) != NS_OK) {
		cli_report_error(c->html_path, &err);
		return EXIT_BAD_INPUT;
	}
	return EXIT_ROUTED;
}

/* Loads both sides and compares them (ns_diff_analyse), prints, gates. With --html the digests are finished
 * (their threads joined) whatever happened. Both sides' errors are reported before giving up. */
static int compare_inputs(const cli_config *c, ns_input in[2], const ns_diff_load_options *lo, cli_html *html)
{
	ns_diff d;
	ns_error err;
	cli_html_digest dg[2];
	ns_html_source src[2];
	ns_status st;
	int rc = -1;

	for (int i = 0; html != NULL && i < 2; i++)
		cli_html_digest_start(&dg[i], &in[i]);
	ns_error_clear(&err);
	st = ns_diff_analyse(&in[0], &in[1], lo, &d, &err);
	for (int i = 0; html != NULL && i < 2; i++) {
		cli_html_digest_finish(&dg[i], &in[i], &src[i]);
		src[i].name = c->operands[i];
	}
	for (int i = 0; i < 2; i++)
		if (d.side_err[i].status != NS_OK) {
			report_side_error(c->operands[i], &d.side_err[i]);
			if (html != NULL)
				ns_html_input_error(cli_html_page(html), &src[i], d.side_err[i].msg);
			rc = EXIT_BAD_INPUT;
		}
	if (rc < 0 && st != NS_OK) {
		cli_report_error(NULL, &err);
		rc = EXIT_BAD_INPUT;
	}
	if (rc < 0) {
		rc = html != NULL ? write_html(c, html, src, d.side, &d.result) : EXIT_ROUTED;
		if (rc == EXIT_ROUTED && !cli_html_to_stdout(c))
			rc = print_result(c, d.side, &d.result);
		if (rc == EXIT_ROUTED)
			rc = apply_gates(c, &d.result);
	}
	ns_diff_free(&d);
	return rc;
}

int cli_diff_run(cli_config *cfg)
{
	ns_kernel_rules *rules[2] = {NULL, NULL};
	ns_input in[2];
	cli_html *html = NULL;
	int rc;

	if (cfg->noperands != 2)
		return cli_usage_error(cfg->mode, "diff: give two inputs, BEFORE and AFTER");
	/* Two tables: the sides are read on two threads, and a table serves one thread at a time. */
	rc = load_rules(cfg, &rules[0]);
	if (rc < 0)
		rc = load_rules(cfg, &rules[1]);
	if (rc < 0)
		rc = cli_html_open(cfg, "nextstep diff report", cfg->operands, 2, &html);
	if (rc < 0)
		rc = open_inputs(cfg, in);
	if (rc < 0) {
		ns_device_table devices; /* the fp32 advice as `trace` gives it; none without the file */
		ns_diff_load_options lo = {
		    {rules[0], rules[1]}, &cfg->classify, &cfg->routes, NS_REPORT_TOP_DEFAULT, &devices};
		rc = datadir_try_devices(&devices) == EXIT_ROUTED ? compare_inputs(cfg, in, &lo, html)
		                                                  : EXIT_BAD_INPUT;
		ns_devices_free(&devices);
		ns_input_close(&in[0]);
		ns_input_close(&in[1]);
	}
	ns_kernel_rules_free(rules[0]);
	ns_kernel_rules_free(rules[1]);
	return cli_html_close(html, rc);
}
