/* What the files of the trace mode share (not installed): cli_trace.c is the mode and its session (rules,
 * step marker, devices), cli_trace_one.c reads, splits and reports one trace, cli_trace_files.c runs several
 * files on the pool (-j) and writes their reports in input order. */
#ifndef NEXTSTEP_CLI_TRACE_PRIVATE_H
#define NEXTSTEP_CLI_TRACE_PRIVATE_H

#include <stdbool.h>
#include <stdio.h>

#include "cli_files.h"
#include "cli_html.h"
#include "cli_progress.h"
#include "cli_trace.h"
#include "nextstep/analysis.h"
#include "nextstep/devices.h"
#include "nextstep/kernel_rules.h"
#include "nextstep/trace_roofline.h"
#include "nextstep/trace_split.h"

/* What every trace of one invocation shares (cli_trace.h). */
struct cli_trace_session {
	cli_config *cfg;
	/* one thread at a time (its regexes share a JIT stack): each worker has its own */
	ns_kernel_rules *rules;
	/* --step-marker: read-only once compiled; each splitter has its own match data */
	ns_step_marker *marker;
	ns_device_table devices; /* for --roofline */
	ns_troof_options roof;
	cli_html *html; /* --html's page (borrowed), NULL without */
};

/* Where one trace's reading goes: its kernel rules (the worker's), its output and messages, its progress. */
typedef struct {
	ns_kernel_rules *rules;
	FILE *out, *msgs;
	cli_progress_set *progress; /* several files: the shared line; NULL: a line of this file's own */
	unsigned threads;           /* -j's threads for reading this trace (2 or more: a parse worker) */
} trace_sink;

/* One trace read and split, waiting to be reported: with --html the page takes the reports in input order,
 * so a task keeps this until its turn. */
typedef struct {
	ns_status st;
	ns_error err;
	ns_analysis *a; /* the library's analysis (st NS_OK), else NULL; the rest point into it */
	const ns_split_result *res;
	const ns_troof_report *roof_report; /* --roofline's */
	/* the file was cut: res holds what was read (st NS_OK), cut says where; else NULL */
	const ns_error *cut;
	cli_html_digest digest;
	ns_html_source src;
	/* with --html: each device's report, decided once for the page and the text (trace_one_page());
	 * else NULL, and the text decides each as it prints */
	ns_device_report *reports;
} trace_done;

/* The kernel rules the options name (--kernel-rules[-only], else the built-in table). Returns -1, or an exit
 * status after saying what is wrong. */
int cli_trace_load_rules(const cli_config *c, ns_kernel_rules **rules);
/* Reports each file of the list (cli_trace_files.c). Returns an exit status. */
int cli_trace_files(cli_trace_session *s, const cli_file_list *files);

/* "nextstep: FILE: byte N: msg", the position being the byte offset in the decompressed document. */
void trace_one_error(FILE *msgs, const char *where, const ns_error *err);
/* Reads and splits one opened trace into d (d->st says whether it worked; d->err why not). */
void trace_one_analyse(cli_trace_session *s, const trace_sink *k, ns_input *in, trace_done *d);
void trace_done_free(trace_done *d);
/* --html: d as the page's next section. Returns an exit status (EXIT_ROUTED when the trace was bad:
 * trace_one_text() says so). */
int trace_one_page(cli_trace_session *s, FILE *msgs, const char *where, trace_done *d);
/* d as the text report (or its error) to k; labelled: named in the report. Returns an exit status. */
int trace_one_text(cli_trace_session *s, const trace_sink *k, const char *where, bool labelled,
                   trace_done *d);
/* A --kernel-rules regex that gave up on some names, said on msgs. */
void trace_one_note_rules(FILE *msgs, const char *where, const trace_done *d);
/* The page's section, then the text report unless writing the page failed. Returns an exit status. */
int trace_one_report(cli_trace_session *s, const trace_sink *k, const char *where, bool labelled,
                     trace_done *d);

#endif
