/* Loading a side: a trace is read and split, then summarised through its report document without its steps
 * and the split's steps (so a saved report of the same trace summarises the same); a small JSON document is a
 * saved report or a profile. The two sides are loaded at once, one on a second thread: reading a large trace
 * is CPU-bound (inflate, scan). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "diff_private.h"
#include "nextstep/json_file.h"
#include "nextstep/parse_json.h"
#include "nextstep/trace_input.h"
#include "nextstep/trace_read.h"
#include "nextstep/trace_report.h"
#include "nextstep/trace_split.h"
#include "trace/report/report_private.h"
#include "util/text.h"
#include "util/vec.h"

static bool kernel_list_cut(const ns_split_result *res)
{
	for (size_t i = 0; i < res->ndevices; i++)
		if (res->device[i].nkernel_time > NS_DIFF_MAX_KERNELS)
			return true;
	return false;
}

/* The trace's report document, as `nextstep trace --format json` prints it but without its steps (printed to
 * memory and parsed back: a trace and the report saved from it then summarise the same); the steps are read
 * from the split itself (diff_side_from_trace_report). */
static ns_status report_document(const ns_split_result *res, const char *source,
                                 const ns_diff_load_options *o, cJSON **out, ns_error *err)
{
	ns_format_options f = {.kind = NS_FORMAT_JSON};
	ns_report_options ro = {.classify = o->classify,
	                        .routes = o->routes,
	                        .format = &f,
	                        .source = source,
	                        .steps = false,
	                        .top = NS_DIFF_MAX_KERNELS};
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	ns_status st;

	if (mem == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	st = report_print_json_as(mem, res, &ro, REPORT_JSON_NO_STEPS, err);
	if (fclose(mem) != 0 && st == NS_OK)
		st = ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	if (st == NS_OK && (*out = cJSON_ParseWithLength(text, len)) == NULL)
		st = ns_error_set(err, NS_ERR_NOMEM, "out of memory reading the trace's report back");
	free(text);
	return st;
}

/* A trace side: summarised from its report without steps and its split's steps; it keeps the split (owned
 * from here, freed with the side) to print its report in the diff's JSON. */
static ns_status side_from_split(ns_split_result *res, const char *source, const ns_diff_load_options *o,
                                 ns_diff_side *s, ns_error *err)
{
	cJSON *doc = NULL;
	ns_status st = report_document(res, source, o, &doc, err);

	if (st == NS_OK)
		st = diff_side_from_trace_report(doc, res, s, err);
	if (st == NS_OK)
		st = ns_split_result_steps_status(res, err);
	cJSON_Delete(doc);
	if (st == NS_OK && (s->trace_source = strdup(source)) == NULL)
		st = ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	if (st != NS_OK) {
		ns_split_result_free(res);
		free(res);
		return st;
	}
	s->origin = NS_DIFF_FROM_TRACE;
	s->kernels_partial = kernel_list_cut(res);
	s->trace = res;
	s->trace_classify = o->classify;
	s->trace_routes = o->routes;
	s->trace_top = o->report_top;
	return NS_OK;
}

static ns_status load_trace(ns_input *in, const ns_diff_load_options *o, int which, ns_diff_side *s,
                            ns_error *err)
{
	ns_trace_split *split = ns_trace_split_new(o->rules[which]);
	ns_split_result *res = calloc(1, sizeof(*res));
	ns_trace_meta meta;
	ns_status st;

	if (split == NULL || res == NULL) {
		ns_trace_split_free(split);
		free(res);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	memset(&meta, 0, sizeof(meta));
	st = ns_trace_read_input(in, ns_trace_split_event, split, &meta, err);
	if (st == NS_OK && meta.events == 0)
		st = ns_error_set(err, NS_ERR_VALUE, "traceEvents is empty: nothing to compare");
	if (st == NS_OK)
		st = ns_trace_split_finish(split, &meta, res, err);
	ns_trace_split_free(split);
	if (st != NS_OK) {
		ns_split_result_free(res);
		free(res);
		return st;
	}
	return side_from_split(res, ns_input_display_name(in), o, s, err);
}

/* The whole input, up to NS_JSON_FILE_MAX bytes. */
static ns_status read_all(ns_input *in, char **out, size_t *len, ns_error *err)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);

	if (buf == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	for (;;) {
		ssize_t got;
		if (n == cap) {
			char *grown = ns_grow_capped(buf, &cap, cap + 1, 1, NS_JSON_FILE_MAX);
			if (grown == NULL) {
				free(buf);
				return cap >= NS_JSON_FILE_MAX
				           ? ns_error_set(
				                 err, NS_ERR_LIMIT,
				                 "larger than %u bytes: not a saved report or profile",
				                 NS_JSON_FILE_MAX)
				           : ns_error_set(err, NS_ERR_NOMEM, "out of memory");
			}
			buf = grown;
		}
		got = ns_input_read(in, buf + n, cap - n);
		if (got == 0)
			break;
		if (got < 0) {
			free(buf);
			return ns_error_set(err, NS_ERR_IO, "read error: %s", strerror(in->read_errno));
		}
		n += (size_t)got;
	}
	*out = buf;
	*len = n;
	return NS_OK;
}

static bool any_bucket(const ns_profile *p)
{
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		if (p->present[r])
			return true;
	return false;
}

/* A profile (the router's input, or a verdict it printed): shares only. */
static ns_status side_from_profile(const cJSON *obj, const ns_diff_load_options *o, ns_diff_side *s,
                                   ns_error *err)
{
	ns_profile_unknown_keys unknown;
	ns_verdict v;

	/* Unknown keys are ignored as the router does by default; a document with no bucket at all is
	 * refused. */
	if (ns_parse_profile_json(obj, &s->shares, false, &unknown, err) != NS_OK)
		return err->status;
	if (!any_bucket(&s->shares))
		return ns_error_set(
		    err, NS_ERR_VALUE,
		    "neither a saved report (no \"devices\") nor a profile (no bucket share)");
	if (ns_profile_validate(&s->shares, false, err) != NS_OK)
		return err->status;
	s->origin = NS_DIFF_FROM_PROFILE;
	ns_classify_profile(&s->shares, o->classify, &v);
	s->report = ns_format_verdict_json(s->shares.label, &v, o->routes);
	return s->report != NULL ? NS_OK : ns_error_set(err, NS_ERR_NOMEM, "out of memory");
}

static bool only_space(const char *p, const char *end)
{
	for (; p < end; p++)
		if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
			return false;
	return true;
}

/* *str as UTF-8: left alone when it is, else replaced by a copy with U+FFFD for each byte that begins no
 * character. False on OOM. */
static bool clean_utf8(char **str)
{
	size_t n = strlen(*str), i = 0, len, cap;
	char *clean;

	while (i < n && (len = ns_utf8_char(*str + i, n - i, NULL)) > 0)
		i += len;
	if (i == n)
		return true;
	cap = n * NS_UTF8_REPLACEMENT_LEN + 1;
	if ((clean = cJSON_malloc(cap)) == NULL)
		return false;
	ns_utf8_clean(*str, n, clean, cap);
	cJSON_free(*str);
	*str = clean;
	return true;
}

/* A saved report is printed again inside the diff's JSON ("before", "after") and its names in the text: its
 * keys and strings are made UTF-8 first, as every output is. False on OOM. */
static bool clean_strings(cJSON *item)
{
	for (; item != NULL; item = item->next) {
		if (item->string != NULL && !(item->type & cJSON_StringIsConst) && !clean_utf8(&item->string))
			return false;
		if (cJSON_IsString(item) && item->valuestring != NULL && !clean_utf8(&item->valuestring))
			return false;
		if (!clean_strings(item->child))
			return false;
	}
	return true;
}

/* The deepest nesting of text before pos: brackets outside strings. cJSON stops at CJSON_NESTING_LIMIT and
 * returns NULL, as for malformed text: this tells the two apart. */
static size_t depth_before(const char *text, size_t pos)
{
	size_t depth = 0, deepest = 0;
	bool in_string = false;

	for (size_t i = 0; i < pos; i++) {
		char c = text[i];
		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
		} else if (c == '[' || c == '{') {
			deepest = ++depth > deepest ? depth : deepest;
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		}
	}
	return deepest;
}

/* The nesting depth of item (1 for a scalar). */
static size_t depth_of(const cJSON *item)
{
	size_t deepest = 0;

	for (const cJSON *c = item->child; c != NULL; c = c->next) {
		size_t d = depth_of(c);
		deepest = d > deepest ? d : deepest;
	}
	return deepest + 1;
}

ns_status ns_diff_side_parse(const char *text, size_t len, const ns_diff_load_options *o, ns_diff_side *s,
                             ns_error *err)
{
	const char *end = NULL;
	cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	ns_status st;

	if (doc == NULL || !only_space(end, text + len)) {
		size_t pos = end != NULL && end >= text ? (size_t)(end - text) : 0;
		cJSON_Delete(doc);
		if (doc == NULL && depth_before(text, pos < len ? pos + 1 : len) > CJSON_NESTING_LIMIT)
			ns_error_set(err, NS_ERR_LIMIT, "JSON nested more than %d levels deep",
			             CJSON_NESTING_LIMIT);
		else
			ns_error_set(err, NS_ERR_SYNTAX,
			             doc == NULL
			                 ? "malformed JSON"
			                 : "more than one JSON value: a side is one report or one profile");
		return ns_error_at(err, ns_line_of(text, len, pos), -1, -1);
	}
	/* A side is printed again inside the diff's JSON, one level deeper: deeper than this, JSON readers
	 * (cJSON's 1,000 levels among them) could not read the diff back. A report nests about 8 levels. */
	if (depth_of(doc) > NS_DIFF_MAX_DEPTH) {
		cJSON_Delete(doc);
		return ns_error_set(err, NS_ERR_LIMIT,
		                    "JSON nested more than %d levels deep: not a report or profile",
		                    NS_DIFF_MAX_DEPTH);
	}
	if (cJSON_IsObject(doc) && cJSON_HasObjectItem(doc, "devices")) {
		st = clean_strings(doc) ? ns_diff_side_from_report(doc, s, err)
		                        : ns_error_set(err, NS_ERR_NOMEM, "out of memory");
		if (st == NS_OK)
			s->report = doc;
		else
			cJSON_Delete(doc);
		return st;
	}
	st = side_from_profile(doc, o, s, err);
	cJSON_Delete(doc);
	return st;
}

ns_status ns_diff_side_load(ns_input *in, const ns_diff_load_options *o, int which, ns_diff_side *s,
                            ns_error *err)
{
	ns_input_kind kind = ns_input_sniff(in);
	char *text = NULL;
	size_t len = 0;
	ns_status st;

	if (ns_input_is_trace(kind))
		return load_trace(in, o, which, s, err);
	if (kind == NS_INPUT_EMPTY)
		return ns_error_set(err, NS_ERR_VALUE, "empty input");
	st = read_all(in, &text, &len, err);
	if (st != NS_OK)
		return st;
	st = ns_diff_side_parse(text, len, o, s, err);
	free(text);
	return st;
}

typedef struct {
	ns_input *in;
	const ns_diff_load_options *o;
	int which;
	ns_diff_side *side;
	ns_error *err;
	ns_status st;
} load_job;

static void *run_load_job(void *arg)
{
	load_job *job = arg;

	job->st = ns_diff_side_load(job->in, job->o, job->which, job->side, job->err);
	return NULL;
}

ns_status ns_diff_load_pair(ns_input *before, ns_input *after, const ns_diff_load_options *o,
                            ns_diff_side sides[2], ns_error errs[2])
{
	load_job jobs[2] = {{before, o, 0, &sides[0], &errs[0], NS_OK},
	                    {after, o, 1, &sides[1], &errs[1], NS_OK}};
	pthread_t thread;
	bool threaded;

	for (int i = 0; i < 2; i++) {
		ns_diff_side_init(&sides[i]);
		ns_error_clear(&errs[i]);
	}
	threaded = pthread_create(&thread, NULL, run_load_job, &jobs[0]) == 0;
	if (!threaded)
		run_load_job(&jobs[0]); /* no thread to be had: one after the other */
	run_load_job(&jobs[1]);
	if (threaded)
		pthread_join(thread, NULL);
	return jobs[0].st != NS_OK ? jobs[0].st : jobs[1].st;
}
