/* nextstep [options] [FILE|-]...: the router over bucket flags or profile JSON/NDJSON; an input that is a
 * trace is handed to the trace mode's reader. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_common.h"
#include "cli_html.h"
#include "cli_options.h"
#include "cli_trace.h"
#include "nextstep/parse_json.h"

/* One input's context: where it is named and whether reports carry that name (several inputs). */
typedef struct {
	cli_config *cfg;
	const char *where;
	bool labelled;
	ns_html_page *page; /* --html, or NULL */
} router_input;

/* One warning for all the unknown keys of a record: unknown keys "a", "b", "c" ignored. */
static void warn_unknown_keys(const char *where, const ns_error *pos, const ns_profile_unknown_keys *unknown)
{
	ns_error w = *pos;
	size_t named = unknown->count < NS_PROFILE_UNKNOWN_KEPT ? unknown->count : NS_PROFILE_UNKNOWN_KEPT;
	size_t len =
	    (size_t)snprintf(w.msg, sizeof(w.msg), "warning: unknown key%s", unknown->count > 1 ? "s" : "");

	for (size_t i = 0; i < named && len < sizeof(w.msg); i++)
		len += (size_t)snprintf(w.msg + len, sizeof(w.msg) - len, "%s \"%s\"", i ? "," : "",
		                        unknown->name[i]);
	if (unknown->count > named && len < sizeof(w.msg))
		len += (size_t)snprintf(w.msg + len, sizeof(w.msg) - len, " and %zu more",
		                        unknown->count - named);
	if (len < sizeof(w.msg))
		snprintf(w.msg + len, sizeof(w.msg) - len, " ignored");
	cli_report_error(where, &w);
}

/* JSON results of several inputs say which input they came from. False when out of memory (reported, and
 * nothing printed on stdout). */
static bool print_json_labelled(cJSON *obj, const router_input *ri)
{
	bool ok = obj != NULL &&
	          (!ri->labelled || cJSON_AddStringToObject(obj, "source", ri->where) != NULL) &&
	          ns_format_print_json(stdout, obj) != NS_ERR_NOMEM;

	if (!ok)
		fputs("nextstep: out of memory\n", stderr);
	cJSON_Delete(obj);
	return ok;
}

static void report_bad_record(const router_input *ri, ns_error *err)
{
	cJSON *obj;

	cli_name_option(err);
	cli_report_error(ri->where, err);
	if (ri->page != NULL)
		ns_html_router_error(ri->page, err->line, err->msg);
	if (ri->cfg->format.kind != NS_FORMAT_JSON || cli_html_to_stdout(ri->cfg))
		return;
	obj = cJSON_CreateObject();
	if (obj != NULL && cJSON_AddStringToObject(obj, "error", err->msg) != NULL &&
	    (err->line < 0 ? cJSON_AddNullToObject(obj, "line")
	                   : cJSON_AddNumberToObject(obj, "line", (double)err->line)) != NULL)
		print_json_labelled(obj, ri);
	else
		cJSON_Delete(obj);
}

/* False when out of memory (reported, nothing printed on stdout). */
static bool route_profile(const router_input *ri, ns_profile *p)
{
	cli_config *c = ri->cfg;
	ns_verdict v;

	if (c->label != NULL)
		ns_profile_set_label(p, c->label);
	ns_classify_profile(p, &c->classify, &v);
	if (ri->page != NULL)
		ns_html_router_card(ri->page, p->label, &v, &c->routes);
	if (cli_html_to_stdout(c))
		return true;
	if (c->format.kind == NS_FORMAT_QUIET && ri->labelled)
		printf("%s: %s\n", ri->where, ns_regime_name(v.regime));
	else if (ns_format_verdict_write(stdout, p->label, &v, &c->routes, &c->format,
	                                 ri->labelled ? ri->where : NULL) == NS_ERR_NOMEM) {
		fputs("nextstep: out of memory\n", stderr);
		return false;
	}
	return true;
}

/* Results go out in blocks: flushed before the input may wait (ns_input.before_read), so a reader of the
 * stream gets each result before nextstep waits for the next line, and before a message on stderr, so
 * results and messages keep their order. */
static void flush_results(void *ctx)
{
	(void)ctx;
	fflush(stdout);
}

/* A record's shares checked; a bad one keeps the line the reader gave it. */
static bool valid_record(ns_profile *p, bool normalize, ns_error *err)
{
	long line = err->line;

	if (ns_profile_validate(p, normalize, err) == NS_OK)
		return true;
	ns_error_at(err, line, -1, -1);
	return false;
}

/* Routes every record of one input; a bad record is reported in its place and the stream goes on, until
 * the output fails. */
static int route_stream(const router_input *ri, ns_input *in)
{
	ns_profile_reader *reader = ns_profile_reader_new(in, ri->cfg->strict);
	ns_profile_unknown_keys unknown;
	ns_profile p;
	ns_error err;
	ns_profile_read_result res;
	int rc = EXIT_ROUTED;

	if (reader == NULL) {
		fprintf(stderr, "nextstep: out of memory\n");
		return EXIT_BAD_INPUT;
	}
	in->before_read = flush_results;
	ns_error_clear(&err);
	while ((res = ns_profile_reader_next(reader, &p, &unknown, &err)) != NS_PROFILE_READ_END) {
		bool good = res == NS_PROFILE_READ_OK && valid_record(&p, ri->cfg->normalize, &err);
		/* A message waits for the results before it, and a failed output stops the stream first. */
		if ((!good || unknown.count > 0 || ferror(stdout)) && !cli_output_ok()) {
			rc = EXIT_BAD_INPUT;
			break;
		}
		if (res == NS_PROFILE_READ_OK && unknown.count > 0)
			warn_unknown_keys(ri->where, &err, &unknown);
		if (!good) {
			report_bad_record(ri, &err);
			rc = EXIT_BAD_INPUT;
		} else if (!route_profile(ri, &p)) {
			rc = EXIT_BAD_INPUT;
		}
	}
	in->before_read = NULL;
	if (!cli_output_ok())
		rc = EXIT_BAD_INPUT;
	if (in->read_errno != 0) {
		ns_error_clear(&err);
		ns_error_set(&err, NS_ERR_IO, "read error: %s", strerror(in->read_errno));
		report_bad_record(ri, &err);
		rc = EXIT_BAD_INPUT;
	}
	ns_profile_reader_free(reader);
	return rc;
}

/* The inputs of one invocation; the trace reader is set up at the first trace. */
typedef struct {
	cli_config *cfg;
	cli_trace_session *traces;
	int traces_rc;  /* -1, or the exit status of a failed set-up (reported once) */
	cli_html *html; /* --html, or NULL */
} router_run;

/* A profile input's section of the page: its cards, then its name, size and SHA-256. */
static int route_stream_html(const router_input *ri, ns_input *in)
{
	cli_html_digest dg;
	ns_html_source src;
	int rc;

	ns_html_router_begin(ri->page, ri->where);
	cli_html_digest_start(&dg, in);
	rc = route_stream(ri, in);
	cli_html_digest_finish(&dg, in, &src);
	ns_html_router_end(ri->page, &src);
	return rc;
}

static int route_input(void *ctx, ns_input *in, bool labelled)
{
	router_run *run = ctx;
	router_input ri = {run->cfg, ns_input_display_name(in), labelled, cli_html_page(run->html)};
	ns_input_kind kind = ns_input_sniff(in);
	ns_error err;

	ns_error_clear(&err);
	if (cli_unreadable_input(in, &err)) {
		cli_report_error(ri.where, &err);
		return EXIT_BAD_INPUT;
	}
	if (ns_input_is_trace(kind)) {
		if (run->traces == NULL && run->traces_rc < 0) {
			run->traces_rc = cli_trace_session_open(run->cfg, &run->traces);
			if (run->traces != NULL)
				cli_trace_session_html(run->traces, run->html);
		}
		return run->traces != NULL ? cli_trace_input(run->traces, in, labelled) : run->traces_rc;
	}
	if (labelled && run->cfg->format.kind == NS_FORMAT_TEXT && !cli_html_to_stdout(run->cfg))
		cli_print_input_header(stdout, ri.where);
	return ri.page != NULL ? route_stream_html(&ri, in) : route_stream(&ri, in);
}

static int route_flags(cli_config *c, ns_html_page *page)
{
	ns_error err;
	router_input ri = {c, NULL, false, page};

	ns_error_clear(&err);
	if (ns_profile_validate(&c->flags, c->normalize, &err) != NS_OK) {
		cli_name_option(&err);
		cli_report_error(NULL, &err);
		return EXIT_USAGE;
	}
	if (page != NULL)
		ns_html_router_begin(page, "the command line");
	route_profile(&ri, &c->flags);
	if (page != NULL)
		ns_html_router_end(page, NULL);
	return EXIT_ROUTED;
}

/* How many of the inputs are traces and how many profiles, sniffed before any is routed. An input that cannot
 * be opened twice (stdin, a pipe) is kept open, sniffed, in c->opened for cli_each_input(); one that cannot
 * be opened counts as neither (it is reported when it is routed). False when out of memory. */
static bool count_kinds(cli_config *c, int *traces, int *profiles)
{
	char *const *operands = cli_operands(c);
	int n = (int)cli_noperands(c);
	struct stat st;

	c->opened = calloc((size_t)n, sizeof(ns_input *));
	if (c->opened == NULL)
		return false;
	for (int i = 0; i < n; i++) {
		ns_input in;
		ns_error err;
		ns_input_kind kind;
		ns_error_clear(&err);
		if (ns_input_open(&in, operands[i], &err) != NS_OK)
			continue;
		kind = ns_input_sniff(&in);
		*traces += ns_input_is_trace(kind);
		*profiles += kind == NS_INPUT_PROFILE;
		if (fstat(in.fd, &st) == 0 && S_ISREG(st.st_mode) && strcmp(operands[i], "-") != 0)
			ns_input_close(&in);
		else if ((c->opened[i] = malloc(sizeof(in))) != NULL)
			*c->opened[i] = in;
		else {
			ns_input_close(&in);
			return false;
		}
	}
	return true;
}

static void free_opened(cli_config *c)
{
	int n = c->noperands > 0 ? c->noperands : 1;

	for (int i = 0; c->opened != NULL && i < n; i++) {
		if (c->opened[i] != NULL)
			ns_input_close(c->opened[i]);
		free(c->opened[i]);
	}
	free(c->opened);
	c->opened = NULL;
}

/* An option only traces take, when no input is a trace (or one only profiles take, when none is a profile),
 * would be silently ignored: a usage error, like an option of another mode. Returns -1 to go on. */
static int check_option_scope(cli_config *c)
{
	int traces = 0, profiles = 0;

	if (c->traces_only_option == NULL && c->profiles_only_option == NULL)
		return -1;
	if (c->any_flag) /* the one input is the profile the bucket flags give */
		profiles = 1;
	else if (!count_kinds(c, &traces, &profiles)) {
		fputs("nextstep: out of memory\n", stderr);
		return EXIT_BAD_INPUT;
	}
	if (c->traces_only_option != NULL && traces == 0 && profiles > 0)
		return cli_usage_error(MODE_ROUTER,
		                       "option '--%s' applies to traces, and no input is a trace",
		                       c->traces_only_option);
	if (c->profiles_only_option != NULL && profiles == 0 && traces > 0)
		return cli_usage_error(MODE_ROUTER,
		                       "option '--%s' applies to profiles, and no input is a profile",
		                       c->profiles_only_option);
	return -1;
}

int cli_router_run(cli_config *c)
{
	router_run run = {c, NULL, -1, NULL};
	int rc;

	cli_buffer_stdout();
	if (c->any_flag && c->noperands > 0)
		return cli_usage_error(MODE_ROUTER, "give either bucket flags or a FILE, not both");
	if (!c->any_flag && c->noperands == 0 && isatty(STDIN_FILENO)) {
		fputs(cli_subcommand_of(MODE_ROUTER)->usage, stderr);
		fputs("Try 'nextstep --help'.\n", stderr);
		return EXIT_USAGE;
	}
	/* Before any input is read (check_option_scope sniffs them): the page's name may be an input's. */
	if ((rc = cli_html_open(c, "nextstep report", c->any_flag ? NULL : cli_operands(c),
	                        c->any_flag ? 0 : cli_noperands(c), &run.html)) >= 0)
		return rc;
	if ((rc = check_option_scope(c)) >= 0) {
		free_opened(c);
		return cli_html_close(run.html, rc);
	}
	if (c->any_flag)
		return cli_html_close(run.html, route_flags(c, cli_html_page(run.html)));
	rc = cli_each_input(c, route_input, &run);
	free_opened(c);
	cli_trace_session_free(run.traces);
	return cli_html_close(run.html, rc);
}
