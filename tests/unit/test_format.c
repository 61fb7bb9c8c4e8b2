/* Formatter and routes: the exact one-line form, labels, quiet, JSON fields, explanations and playbooks. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nextstep/format.h"

typedef struct {
	double share[NS_REGIME_COUNT];
	const char *label;
	const char *want;
} line_case;

/* The lesson's four profiles and the lines its Python prints, plus the two new regimes' word forms. */
static const line_case line_cases[] = {
    {{0.72, 0.15, 0.05, 0, 0, 0.08},
     NULL,
     "compute-bound (72%) -> write/use a fused kernel or lower precision (Module 4/5)\n"},
    {{0.20, 0.55, 0.10, 0, 0, 0.15},
     NULL,
     "memory-bound (55%) -> fuse ops, cut activation memory, or shrink dtype (Module 4/5)\n"},
    {{0.30, 0.10, 0.50, 0, 0, 0.10},
     NULL,
     "comm-bound (50%) -> overlap all-reduce, bucket gradients, or check topology (Module 6/8)\n"},
    {{0.35, 0.15, 0.10, 0, 0, 0.40},
     NULL,
     "idle (40%) -> data-loader stall or host-device sync gap, check the trace timeline (Module 3)\n"},
    {{0.72, 0.15, 0.05, 0, 0, 0.08},
     "resnet50",
     "resnet50: compute-bound (72%) -> write/use a fused kernel or lower precision (Module 4/5)\n"},
    {{0.2, 0, 0, 0.334, 0, 0.3},
     NULL,
     "dataloader-bound (33%) -> the input pipeline is the bottleneck: more DataLoader workers, pinned "
     "memory, "
     "prefetching, persistent workers (Module 3)\n"},
    {{0.2, 0, 0, 0, 0.615, 0.1},
     NULL,
     "overhead-bound (62%) -> launch/dispatch overhead: CUDA graphs, torch.compile, larger batches, fewer "
     "tiny "
     "kernels (Lesson 02.11, launch overhead)\n"},
    /* A label is one line of text on the terminal: its newline and escape sequence are shown, not obeyed. */
    {{0.72, 0.15, 0.05, 0, 0, 0.08},
     "two\nlines\x1b[2J",
     "two\\nlines\\x1b[2J: compute-bound (72%) -> write/use a fused kernel or lower precision (Module "
     "4/5)\n"},
    /* Half-way values round to even, as Python's {:.0%} does. */
    {{0.125, 0.005, 0, 0, 0, 0},
     NULL,
     "compute-bound (12%) -> write/use a fused kernel or lower precision (Module 4/5)\n"},
};

static ns_routes routes;
static ns_classify_options copts;

static void setup(void)
{
	ns_error err;

	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	ns_classify_options_default(&copts);
}

static void teardown(void)
{
	ns_routes_free(&routes);
}

static ns_verdict verdict_of(const double *share)
{
	ns_profile p;
	ns_verdict v;

	ns_profile_init(&p);
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		p.share[r] = share[r];
	ns_classify_profile(&p, &copts, &v);
	return v;
}

/* Runs one format call into a string the caller frees. */
static char *render(const char *label, const ns_verdict *v, const ns_format_options *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ns_format_verdict(out, label, v, &routes, o);
	fclose(out);
	return buf;
}

static int count_of(const char *text, const char *what)
{
	size_t len = strlen(what);
	int n = 0;

	for (size_t i = 0; text[i] != '\0'; i++)
		n += strncmp(text + i, what, len) == 0;
	return n;
}

START_TEST(text_line_matches_the_lesson_exactly)
{
	const line_case *c = &line_cases[_i];
	ns_format_options o = {NS_FORMAT_TEXT, false, false};
	ns_verdict v = verdict_of(c->share);
	char *got = render(c->label, &v, &o);

	ck_assert_str_eq(got, c->want);
	free(got);
}
END_TEST

START_TEST(quiet_prints_only_the_regime_name)
{
	double share[NS_REGIME_COUNT] = {0.1, 0, 0, 0.5, 0, 0.4};
	ns_format_options o = {NS_FORMAT_QUIET, false, false};
	ns_verdict v = verdict_of(share);
	char *got = render("label", &v, &o);

	ck_assert_str_eq(got, "dataloader\n");
	free(got);
}
END_TEST

START_TEST(color_wraps_the_verdict_word_only_when_asked)
{
	double share[NS_REGIME_COUNT] = {0.72, 0.15, 0.05, 0, 0, 0.08};
	ns_format_options plain = {NS_FORMAT_TEXT, false, false};
	ns_format_options color = {NS_FORMAT_TEXT, false, true};
	ns_verdict v = verdict_of(share);
	char *a = render(NULL, &v, &plain);
	char *b = render(NULL, &v, &color);

	ck_assert_ptr_null(strchr(a, '\033'));
	ck_assert_ptr_nonnull(strstr(b, "\033[1;33mcompute-bound\033[0m (72%)"));
	free(a);
	free(b);
}
END_TEST

/* The palette's colours (Okabe-Ito), as 24-bit foregrounds: compute #0072B2 = 0,114,178; idle #BBBBBB =
 * 187,187,187; memory #E69F00 = 230,159,0. */
START_TEST(color_draws_each_bucket_bar_in_its_palette_colour)
{
	double share[NS_REGIME_COUNT] = {0.72, 0.15, 0.05, 0, 0, 0.08};
	ns_format_options o = {NS_FORMAT_TEXT, true, true};
	ns_verdict v = verdict_of(share);
	char *text = render(NULL, &v, &o);

	ck_assert_ptr_nonnull(strstr(text, "compute        72%  \033[38;2;0;114;178m#"));
	ck_assert_ptr_nonnull(strstr(text, "memory         15%  \033[38;2;230;159;0m######\033[0m\n"));
	ck_assert_ptr_nonnull(strstr(text, "idle            8%  \033[38;2;187;187;187m###\033[0m\n"));
	free(text);
}
END_TEST

START_TEST(explain_shows_bars_runner_up_tie_note_findings_and_next_check)
{
	double share[NS_REGIME_COUNT] = {0.1, 0.1, 0, 0.4, 0, 0.4};
	ns_format_options o = {NS_FORMAT_TEXT, true, false};
	ns_verdict v = verdict_of(share);
	char *got = render(NULL, &v, &o);

	ck_assert_ptr_nonnull(strstr(got, "\n  dataloader     40%  ################\n"));
	ck_assert_ptr_nonnull(strstr(got, "runner-up: idle (40%), margin 0.0 points\n"));
	ck_assert_ptr_nonnull(
	    strstr(got, "tie: dataloader and idle are tied; the priority order, not the numbers, "
	                "decided\n"));
	ck_assert_ptr_nonnull(strstr(got, "finding: idle 40% (high)"));
	ck_assert_ptr_nonnull(strstr(got, "finding: compute 10% (moderate)"));
	ck_assert_ptr_nonnull(strstr(got, "next check: the dataloader share after raising num_workers"));
	/* once, after the next check: the section of the fixes page for the verdict's fix */
	ck_assert_ptr_nonnull(strstr(got, "\nfix explained: fixes.md#data-loader\n"));
	ck_assert_int_eq(count_of(got, "fix explained"), 1);
	free(got);
}
END_TEST

START_TEST(json_object_carries_the_contract_fields)
{
	double share[NS_REGIME_COUNT] = {0.39, 0.17, 0, 0.33, 0.04, 0.07};
	ns_verdict v = verdict_of(share);
	cJSON *obj = ns_format_verdict_json("run", &v, &routes);
	const char *keys[] = {"regime",    "share",  "label",      "module",   "fix",   "next_check",
	                      "runner_up", "margin", "decided_by", "findings", "split", "unattributed"};
	const cJSON *findings;

	ck_assert_ptr_nonnull(obj);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		ck_assert_msg(cJSON_HasObjectItem(obj, keys[i]), "missing %s", keys[i]);
	ck_assert_str_eq(cJSON_GetObjectItem(obj, "regime")->valuestring, "compute");
	ck_assert_str_eq(cJSON_GetObjectItem(obj, "runner_up")->valuestring, "dataloader");
	ck_assert_str_eq(cJSON_GetObjectItem(obj, "decided_by")->valuestring, "share");
	ck_assert_double_eq_tol(cJSON_GetObjectItem(obj, "margin")->valuedouble, 0.06, 1e-9);
	findings = cJSON_GetObjectItem(obj, "findings");
	ck_assert_int_eq(cJSON_GetArraySize(findings), 3);
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(findings, 0), "grade")->valuestring, "high");
	ck_assert_double_eq_tol(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "split"), "dataloader")->valuedouble, 0.33, 1e-12);
	cJSON_Delete(obj);
}
END_TEST

START_TEST(json_label_is_null_when_absent)
{
	double share[NS_REGIME_COUNT] = {0.5, 0, 0, 0, 0, 0};
	ns_verdict v = verdict_of(share);
	cJSON *obj = ns_format_verdict_json("", &v, &routes);

	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(obj, "label")));
	cJSON_Delete(obj);
}
END_TEST

static char *write_temp(const char *text)
{
	char *path = strdup("/tmp/nextstep-playbook-XXXXXX");
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

START_TEST(playbook_extends_the_built_in_routes)
{
	char *path =
	    write_temp("{\"routes\": {\"compute\": {\"module\": \"Unit 9\", \"fix\": \"use cuBLASLt\"}}}");
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_routes_load_playbook(&routes, path, &err), NS_OK);
	ck_assert_str_eq(routes.route[NS_REGIME_COMPUTE].module, "Unit 9");
	ck_assert_str_eq(routes.route[NS_REGIME_COMPUTE].fix, "use cuBLASLt");
	/* fields and regimes the playbook does not name stay built in */
	ck_assert_ptr_nonnull(strstr(routes.route[NS_REGIME_COMPUTE].next_check, "TFLOP/s"));
	ck_assert_str_eq(routes.route[NS_REGIME_MEMORY].module, "Module 4/5");
	unlink(path);
	free(path);
}
END_TEST

/* A playbook's fix is the team's own words: the page that explains the built-in fix is no longer named for
 * it; a route the playbook leaves alone, or whose fix it keeps, keeps its page. */
START_TEST(playbook_fix_drops_the_fixes_page_of_that_route_only)
{
	char *path =
	    write_temp("{\"routes\": {\"compute\": {\"module\": \"Unit 9\", \"fix\": \"use cuBLASLt\"},"
	               " \"memory\": {\"module\": \"Unit 7\"}}}");
	ns_error err;

	ns_error_clear(&err);
	ck_assert_str_eq(routes.route[NS_REGIME_COMPUTE].doc, "fixes.md#compute-bound");
	ck_assert_int_eq(ns_routes_load_playbook(&routes, path, &err), NS_OK);
	ck_assert_ptr_null(routes.route[NS_REGIME_COMPUTE].doc);
	ck_assert_str_eq(routes.route[NS_REGIME_MEMORY].doc, "fixes.md#memory-bound");
	ck_assert_str_eq(routes.route[NS_REGIME_DATALOADER].doc, "fixes.md#data-loader");
	unlink(path);
	free(path);
}
END_TEST

/* The anchor GitHub gives a heading: lower case, spaces to '-', other punctuation but '-' dropped. */
static void heading_anchor(const char *heading, char *out, size_t size)
{
	size_t n = 0;

	for (const char *c = heading; *c != '\0' && *c != '\n' && n + 1 < size; c++) {
		if (*c >= 'A' && *c <= 'Z')
			out[n++] = (char)(*c - 'A' + 'a');
		else if ((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-')
			out[n++] = *c;
		else if (*c == ' ')
			out[n++] = '-';
	}
	out[n] = '\0';
}

/* Whether docs/fixes.md has a "## " heading whose anchor is the part of doc after '#'. */
static bool fixes_page_has(const char *doc)
{
	const char *root = getenv("NS_SOURCE_DIR");
	const char *hash = strchr(doc, '#');
	char path[4096], line[512], anchor[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/docs/fixes.md", root != NULL ? root : ".");
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	while (!found && hash != NULL && fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "## ", 3) != 0)
			continue;
		heading_anchor(line + 3, anchor, sizeof(anchor));
		found = strcmp(anchor, hash + 1) == 0;
	}
	fclose(f);
	return found;
}

/* Every built-in route (buckets, causes, host-only buckets, findings) names its section of docs/fixes.md, and
 * the section is there; the caller's folder goes in front. */
START_TEST(every_built_in_route_names_a_section_of_the_fixes_page)
{
	const ns_route *all[NS_REGIME_COUNT + NS_CAUSE_COUNT + NS_REGIME_COUNT + NS_FINDING_COUNT];
	size_t n = 0, named = 0;
	ns_error err;

	for (int i = 0; i < NS_REGIME_COUNT; i++)
		all[n++] = &routes.route[i];
	for (int i = 0; i < NS_CAUSE_COUNT; i++)
		all[n++] = &routes.cause[i];
	for (int i = 0; i < NS_REGIME_COUNT; i++)
		all[n++] = &routes.host_only[i];
	for (int i = 0; i < NS_FINDING_COUNT; i++)
		all[n++] = &routes.finding[i];
	for (size_t i = 0; i < n; i++) {
		if (all[i]->fix == NULL) /* a host-only bucket without its own route */
			continue;
		ck_assert_msg(all[i]->doc != NULL, "route %zu (%s) names no section", i, all[i]->fix);
		ck_assert_msg(strncmp(all[i]->doc, "fixes.md#", 9) == 0, "route %zu: %s", i, all[i]->doc);
		ck_assert_msg(fixes_page_has(all[i]->doc), "docs/fixes.md has no section %s", all[i]->doc);
		named++;
	}
	ck_assert_uint_eq(named,
	                  NS_REGIME_COUNT + NS_CAUSE_COUNT + 4 + NS_FINDING_COUNT); /* 4 host-only routes */
	ns_error_clear(&err);
	ck_assert_int_eq(ns_routes_set_doc_dir(&routes, "/opt/ns/share/doc/nextstep", &err), NS_OK);
	ck_assert_str_eq(routes.cause[NS_CAUSE_SYNC].doc, "/opt/ns/share/doc/nextstep/fixes.md#host-sync");
	ck_assert_str_eq(routes.finding[NS_FINDING_DECODE_MEMORY].doc,
	                 "/opt/ns/share/doc/nextstep/fixes.md#decode-memory");
}
END_TEST

typedef struct {
	const char *text;
	ns_status want;
	const char *says;
} playbook_case;

static const playbook_case bad_playbooks[] = {
    {"{\"routes\": {\"gpu\": {\"fix\": \"x\", \"module\": \"y\"}}}", NS_ERR_KEY, "unknown regime \"gpu\""},
    {"{\"routes\": {\"compute\": {\"fix\": 3}}}", NS_ERR_VALUE,
     "routes.compute.fix must be a non-empty string"},
    {"{\"routes\": {\"compute\": {\"fixx\": \"a\"}}}", NS_ERR_KEY, "unknown key \"fixx\""},
    {"{\"routes\": {\"compute\": \"a\"}}", NS_ERR_VALUE, "must be an object"},
    {"{\"routes\": []}", NS_ERR_VALUE, "\"routes\" must be an object"},
    {"{\"replace\": true, \"routes\": {\"compute\": {\"fix\": \"a\", \"module\": \"b\"}}}", NS_ERR_VALUE,
     "no route for \"memory\""},
    {"{\"routes\": {\"compute\": {\"fix\": \"a\", \"module\": \"b\"},\n \"compute\": {\"fix\": \"a\", "
     "\"module\": \"b\"}}}",
     NS_ERR_KEY, "duplicate key \"compute\" in routes"},
    /* Duplicate keys anywhere are errors, as in profiles (JSON leaves the winner undefined). */
    {"{\"routes\": {\"compute\": {\"fix\": \"a\", \"module\": \"b\", \"fix\": \"c\"}}}", NS_ERR_KEY,
     "duplicate key \"fix\" in routes.compute"},
    {"{\"routes\": {}, \"routes\": {}}", NS_ERR_KEY, "duplicate key \"routes\" in the top-level object"},
    {"{\"routes\": {\"a\":1, \"b\":1, \"c\":1, \"d\":1, \"e\":1, \"f\":1, \"g\":1, \"h\":1, \"i\":1, "
     "\"j\":1, \"k\":1, \"l\":1, \"m\":1, \"n\":1, \"o\":1, \"p\":1, \"q\":1, \"r\":1, \"e\":2}}",
     NS_ERR_KEY, "duplicate key \"e\" in routes"}, /* a large object: checked through the hash index */
    {"{\"routes\": {\"compute\": {\"fix\": \"a\", \"module\": \"b\", \"next_check\": \"c\"}}, \"x\": "
     "[{\"k\": 1}, {\"k\": 1, \"k\": 2}]}",
     NS_ERR_KEY, "duplicate key \"k\" in x[1]"},
    {"{\"routes\": {\n", NS_ERR_SYNTAX, "malformed JSON"},
    {"[]", NS_ERR_VALUE, "JSON object"},
    {"{\"route\": {}}", NS_ERR_KEY, "unknown key \"route\""},
};

START_TEST(bad_playbook_is_a_clear_error_and_changes_nothing)
{
	const playbook_case *c = &bad_playbooks[_i];
	char *path = write_temp(c->text);
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_routes_load_playbook(&routes, path, &err), c->want);
	ck_assert_msg(strstr(err.msg, c->says) != NULL, "got '%s', want '%s'", err.msg, c->says);
	ck_assert_str_eq(routes.route[NS_REGIME_COMPUTE].module, "Module 4/5");
	unlink(path);
	free(path);
}
END_TEST

START_TEST(missing_playbook_is_an_io_error)
{
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_routes_load_playbook(&routes, "/nonexistent/playbook.json", &err), NS_ERR_IO);
}
END_TEST

/* cJSON allocates through hooks: this malloc fails from the fail_at-th call on. */
static long allocs, fail_at;

static void *failing_malloc(size_t n)
{
	return allocs++ >= fail_at ? NULL : malloc(n);
}

START_TEST(json_verdict_out_of_memory_is_an_error_and_prints_nothing)
{
	double share[NS_REGIME_COUNT] = {0.72, 0.15, 0.05, 0, 0, 0.08};
	ns_verdict v = verdict_of(share);
	cJSON_Hooks hooks = {failing_malloc, free};
	bool succeeded = false;

	/* Every allocation in turn fails; until enough succeed there must be no output at all. */
	for (fail_at = 0; fail_at < 1000 && !succeeded; fail_at++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);
		ns_status st;

		cJSON *obj;
		allocs = 0;
		cJSON_InitHooks(&hooks);
		obj = ns_format_verdict_json("run", &v, &routes);
		st = obj != NULL ? ns_format_print_json(out, obj) : NS_ERR_NOMEM;
		cJSON_Delete(obj);
		cJSON_InitHooks(NULL);
		fclose(out);
		if (st == NS_OK) {
			succeeded = true;
			ck_assert_ptr_nonnull(strstr(buf, "\"regime\":\"compute\""));
		} else {
			ck_assert_int_eq(st, NS_ERR_NOMEM);
			ck_assert_msg(len == 0, "failing allocation %ld: printed '%s'", fail_at, buf);
		}
		free(buf);
	}
	ck_assert(succeeded);
	ck_assert_int_gt(fail_at, 1); /* the first failures really were failures */
}
END_TEST

START_TEST(json_label_escapes_controls_and_stays_one_line)
{
	double share[NS_REGIME_COUNT] = {0.72, 0.15, 0.05, 0, 0, 0.08};
	ns_format_options o = {NS_FORMAT_JSON, false, false};
	ns_verdict v = verdict_of(share);
	char *got = render("a\nb\x1b", &v, &o);

	ck_assert_ptr_nonnull(strstr(got, "\"label\":\"a\\nb\\u001b\""));
	ck_assert_ptr_eq(strchr(got, '\n'), got + strlen(got) - 1);
	free(got);
}
END_TEST

START_TEST(json_label_is_well_formed_utf8_whatever_the_caller_passed)
{
	cJSON *obj = ns_format_route_json("bad\xff"
	                                  "byte",
	                                  "compute", "compute-bound", 0.5, NULL);
	const cJSON *label = cJSON_GetObjectItemCaseSensitive(obj, "label");

	ck_assert_ptr_nonnull(obj);
	ck_assert_str_eq(label->valuestring, "bad\xef\xbf\xbd"
	                                     "byte");
	cJSON_Delete(obj);
}
END_TEST

START_TEST(write_error_on_the_stream_is_reported)
{
	double share[NS_REGIME_COUNT] = {0.72, 0.15, 0.05, 0, 0, 0.08};
	ns_format_options o = {NS_FORMAT_TEXT, false, false};
	ns_verdict v = verdict_of(share);
	FILE *full = fopen("/dev/full", "w");

	if (full == NULL)
		return; /* no /dev/full on this system */
	ck_assert_int_eq(ns_format_verdict(full, NULL, &v, &routes, &o), NS_ERR_IO);
	fclose(full);
}
END_TEST

/* A host-only split (a CPU job on gloo) has no GPU to keep busy: its routes must not send the user to one. */
START_TEST(host_only_routes_give_no_gpu_advice)
{
	static const char *const gpu_words[] = {"GPU", "CUDA", "NCCL", "RCCL", "pinned", "non_blocking"};

	for (int b = 0; b < NS_REGIME_COUNT; b++) {
		const char *fix = routes.host_only[b].fix;
		if (fix == NULL)
			continue;
		for (size_t i = 0; i < sizeof(gpu_words) / sizeof(gpu_words[0]); i++)
			ck_assert_msg(strstr(fix, gpu_words[i]) == NULL, "host-only %s route mentions %s: %s",
			              ns_regime_name((ns_regime)b), gpu_words[i], fix);
	}
	/* the buckets a host-only split can land in, other than compute and memory, all have one */
	ck_assert_ptr_nonnull(routes.host_only[NS_REGIME_COMM].fix);
	ck_assert_ptr_nonnull(routes.host_only[NS_REGIME_OVERHEAD].fix);
	ck_assert_ptr_nonnull(routes.host_only[NS_REGIME_IDLE].fix);
	ck_assert_ptr_nonnull(routes.host_only[NS_REGIME_DATALOADER].fix);
}
END_TEST

/* The library words no command: a follow-up the caller does not word is left out with its parentheses, and
 * one it words goes where the route refers to it, in parentheses, in the middle of a text too. */
START_TEST(follow_ups_are_worded_by_the_caller_or_left_out)
{
	static const char *const words[NS_FOLLOW_UP_COUNT] = {
	    [NS_FOLLOW_UP_SCALING] = "TEST", [NS_FOLLOW_UP_STRAGGLER] = "S"};
	ns_routes worded;
	ns_error err;

	ck_assert_str_eq(routes.route[NS_REGIME_OVERHEAD].next_check,
	                 "the batch-doubling test: after the fix, doubling the work should nearly double the "
	                 "step time");
	ck_assert_str_eq(routes.route[NS_REGIME_COMPUTE].next_check,
	                 "re-profile and compare the top GEMM's achieved TFLOP/s with the device peak");
	ck_assert_ptr_null(strchr(routes.cause[NS_CAUSE_WAIT].fix, '{'));
	ck_assert_int_eq(ns_routes_init_worded(&worded, words, &err), NS_OK);
	ck_assert_str_eq(
	    worded.route[NS_REGIME_OVERHEAD].next_check,
	    "the batch-doubling test (TEST): after the fix, doubling the work should nearly double "
	    "the step time");
	ck_assert_str_eq(
	    worded.cause[NS_CAUSE_WAIT].fix,
	    "collectives wait for the last rank to arrive: fix what makes that rank slow (S), not "
	    "the communication");
	/* no words for the roofline follow-up in this table: left out */
	ck_assert_str_eq(worded.route[NS_REGIME_COMPUTE].next_check,
	                 routes.route[NS_REGIME_COMPUTE].next_check);
	ns_routes_free(&worded);
}
END_TEST

/* The router's next steps added to a verdict's tree, as the stream writes them (format.h): each bucket with
 * time, largest share first, ties in bucket order. */
static void add_next_steps(cJSON *obj, const ns_verdict *v)
{
	cJSON *arr = cJSON_AddArrayToObject(obj, "next_steps");
	bool used[NS_REGIME_COUNT] = {false};

	for (int k = 0; arr != NULL && k < NS_REGIME_COUNT; k++) {
		int best = -1;
		for (int b = 0; b < NS_REGIME_COUNT; b++)
			if (!used[b] && (best < 0 || v->split[b] > v->split[best]))
				best = b;
		used[best] = true;
		if (v->split[best] > 0.0) {
			cJSON *item = cJSON_CreateObject();
			cJSON_AddStringToObject(item, "bucket", ns_regime_name((ns_regime)best));
			cJSON_AddNumberToObject(item, "gain_share", v->split[best]);
			cJSON_AddItemToArray(arr, item);
		}
	}
}

/* The verdict's JSON as the tree prints it (ns_format_verdict_json, the router's next steps, then "source" as
 * the CLI added it). */
static char *tree_json(const char *label, const ns_verdict *v, const ns_routes *r, const char *source)
{
	cJSON *obj = ns_format_verdict_json(label, v, r);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(obj);
	add_next_steps(obj, v);
	if (source != NULL)
		ck_assert_ptr_nonnull(cJSON_AddStringToObject(obj, "source", source));
	ck_assert_int_eq(ns_format_print_json(out, obj), NS_OK);
	cJSON_Delete(obj);
	fclose(out);
	return buf;
}

static char *written_json(const char *label, const ns_verdict *v, const ns_routes *r, const char *source)
{
	ns_format_options o = {NS_FORMAT_JSON, false, false};
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ck_assert_int_eq(ns_format_verdict_write(out, label, v, r, &o, source), NS_OK);
	fclose(out);
	return buf;
}

/* The stream's JSON writer and the cJSON tree other reports embed are two printers of one contract: same
 * bytes for shares of every kind (exact, tied, tiny, 0, -0, sums past 1), labels that need escaping or are
 * not UTF-8, a source, and routes without a next check. */
START_TEST(json_writer_prints_what_the_tree_prints)
{
	static const double fixed[][NS_REGIME_COUNT] = {
	    {0.72, 0.15, 0.05, 0, 0, 0.08},
	    {0.25, 0.25, 0.25, 0.25, 0, 0},
	    {1e-7, 0, 0, 0, 0, 0},
	    {0.1, 0.2, 0.3, 0.1, 0.2, 0.1},
	    {-0.0, 0.5, 0, 0, 0, 0},
	    {1.0, 0.01, 0, 0, 0, 0},
	    {0.3333333333333333, 0.6666666666666666, 0, 0, 0, 0},
	};
	static const char *const labels[] = {
	    NULL,
	    "",
	    "step7",
	    "two\nlines\t\x1b[2J",
	    "quote \" and \\ back",
	    "bad\xff\xfe byte",
	    "\xe2\x82",
	    "caf\xc3\xa9 \xe2\x80\xa8",
	};
	static const char *const sources[] = {NULL, "a.ndjson", "dir/\"odd\".ndjson"};
	ns_routes bare = routes;
	unsigned seed = 27;
	char long_label[700];

	memset(long_label, 'x', sizeof(long_label) - 1);
	long_label[sizeof(long_label) - 1] = '\0';
	bare.route[NS_REGIME_MEMORY].next_check = NULL;
	bare.route[NS_REGIME_IDLE].module = NULL;
	for (int i = 0; i < 2000; i++) {
		double share[NS_REGIME_COUNT];
		const ns_routes *r = i % 3 == 0 ? &bare : &routes;
		const char *label =
		    i % 50 == 0 ? long_label : labels[i % (sizeof(labels) / sizeof(labels[0]))];
		const char *source = sources[i % 3];
		ns_verdict v;
		char *want, *got;
		for (int b = 0; b < NS_REGIME_COUNT; b++) {
			seed = seed * 1103515245u + 12345u;
			share[b] =
			    i < 7 ? fixed[i][b] : (double)(seed >> 8 & 0xffff) / (i % 2 ? 65536.0 : 1e6);
		}
		v = verdict_of(share);
		want = tree_json(label, &v, r, source);
		got = written_json(label, &v, r, source);
		ck_assert_str_eq(got, want);
		free(want);
		free(got);
	}
}
END_TEST

/* The writer prints the verdict it is given, not the one it expects: 1,500 verdicts made by hand whose share,
 * the runner-up's and the findings' are not the split's (then they are printed on their own, not copied from
 * the split's texts), with every grade, six findings, the longest numbers (17 digits and a three-digit
 * exponent) in every place and the largest and smallest doubles; each printed by the cJSON tree as well. */
START_TEST(json_writer_prints_any_verdict_as_the_tree_prints_it)
{
	static const double odd[] = {0.0,
	                             -0.0,
	                             1e-300,
	                             4.9406564584124654e-324,
	                             -2.2250738585072014e-308,
	                             1e300,
	                             1.7976931348623157e308,
	                             0.1 + 0.2,
	                             1.0 / 3.0,
	                             -1.0 / 7.0,
	                             123456789.123456,
	                             0.0001,
	                             0.25,
	                             1.0,
	                             NAN,
	                             INFINITY};
	const size_t nodd = sizeof(odd) / sizeof(odd[0]);
	unsigned seed = 2027;

	for (int i = 0; i < 1500; i++) { /* every mix of the cycles below (their periods' product is 420) */
		ns_verdict v;
		char *want, *got;
		seed = seed * 1103515245u + 12345u;
		memset(&v, 0, sizeof(v));
		for (int b = 0; b < NS_REGIME_COUNT; b++) /* finite: the next steps' order compares them */
			v.split[b] = odd[(seed >> (b + 3)) % (nodd - 2)] * (b % 2 ? -1 : 1);
		v.regime = (ns_regime)(seed % NS_REGIME_COUNT);
		v.runner_up = (ns_regime)((seed >> 4) % NS_REGIME_COUNT);
		/* the split's share, or another number of the same regime's */
		v.share = i % 3 ? v.split[v.regime] : odd[(seed >> 9) % nodd];
		v.runner_up_share = i % 4 ? v.split[v.runner_up] : odd[(seed >> 11) % nodd];
		v.margin = odd[(seed >> 13) % nodd];
		v.unattributed = odd[(seed >> 17) % nodd];
		v.by_priority = (seed >> 20) & 1;
		v.nfindings = (size_t)(i % (NS_REGIME_COUNT + 1));
		for (size_t f = 0; f < v.nfindings; f++) {
			v.findings[f].regime = (ns_regime)((seed >> (f + 2)) % NS_REGIME_COUNT);
			v.findings[f].share =
			    (i + (int)f) % 2 ? v.split[v.findings[f].regime] : odd[(f + (size_t)i) % nodd];
			v.findings[f].grade = (ns_grade)(((size_t)i + f) % 3);
		}
		want = tree_json(i % 2 ? "step" : NULL, &v, &routes, i % 5 ? NULL : "src.ndjson");
		got = written_json(i % 2 ? "step" : NULL, &v, &routes, i % 5 ? NULL : "src.ndjson");
		ck_assert_str_eq(got, want);
		free(want);
		free(got);
	}
}
END_TEST

/* ns_format_percent_text rounds as printf does, from 10% up without printf: compared on every half-way and
 * neighbouring value from 9.95% to 100% in steps of 0.005, and on random shares. */
START_TEST(percent_text_matches_printf)
{
	unsigned seed = 7;

	for (int k = 0; k <= 20000; k++) {
		double shares[3] = {0.0995 + k * 0.00005, 0, 0};
		char want[64], got[NS_FORMAT_PERCENT_MAX];
		seed = seed * 1103515245u + 12345u;
		shares[1] = (double)seed / 4294967296.0;
		shares[2] = nextafter(shares[0], 1.0);
		for (int j = 0; j < 3; j++) {
			double pct = shares[j] * 100.0;
			if (pct >= 9.95 || pct == 0.0)
				snprintf(want, sizeof(want), "%.0f%%", pct);
			else
				snprintf(want, sizeof(want), "%.2g%%", pct);
			ns_format_percent_text(shares[j], got);
			ck_assert_str_eq(got, want);
		}
	}
}
END_TEST

static Suite *format_suite(void)
{
	Suite *s = suite_create("format");
	TCase *tc = tcase_create("format");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, text_line_matches_the_lesson_exactly, 0,
	                    sizeof(line_cases) / sizeof(line_cases[0]));
	tcase_add_test(tc, quiet_prints_only_the_regime_name);
	tcase_add_test(tc, follow_ups_are_worded_by_the_caller_or_left_out);
	tcase_add_test(tc, color_wraps_the_verdict_word_only_when_asked);
	tcase_add_test(tc, color_draws_each_bucket_bar_in_its_palette_colour);
	tcase_add_test(tc, explain_shows_bars_runner_up_tie_note_findings_and_next_check);
	tcase_add_test(tc, json_object_carries_the_contract_fields);
	tcase_add_test(tc, json_label_is_null_when_absent);
	tcase_add_test(tc, playbook_extends_the_built_in_routes);
	tcase_add_test(tc, playbook_fix_drops_the_fixes_page_of_that_route_only);
	tcase_add_test(tc, every_built_in_route_names_a_section_of_the_fixes_page);
	tcase_add_loop_test(tc, bad_playbook_is_a_clear_error_and_changes_nothing, 0,
	                    sizeof(bad_playbooks) / sizeof(bad_playbooks[0]));
	tcase_add_test(tc, missing_playbook_is_an_io_error);
	tcase_add_test(tc, json_verdict_out_of_memory_is_an_error_and_prints_nothing);
	tcase_add_test(tc, json_label_escapes_controls_and_stays_one_line);
	tcase_add_test(tc, write_error_on_the_stream_is_reported);
	tcase_add_test(tc, host_only_routes_give_no_gpu_advice);
	tcase_add_test(tc, json_label_is_well_formed_utf8_whatever_the_caller_passed);
	tcase_add_test(tc, json_writer_prints_what_the_tree_prints);
	tcase_add_test(tc, json_writer_prints_any_verdict_as_the_tree_prints_it);
	tcase_add_test(tc, percent_text_matches_printf);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(format_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
