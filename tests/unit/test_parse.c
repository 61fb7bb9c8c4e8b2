/* Profile JSON: keys and values of one object, and the stream reader (object, array, NDJSON, documents). */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nextstep/json_file.h"
#include "nextstep/parse_flags.h"
#include "nextstep/parse_json.h"
#include "router/parse_flat.h"

typedef struct {
	const char *json;
	ns_status want;
	double compute;    /* expected compute share when OK */
	const char *label; /* expected label when OK */
	const char *says;  /* part of the error message, or when OK the unknown keys, comma-separated */
} object_case;

static const object_case object_cases[] = {
    {"{\"compute\": 0.72, \"memory\": 0.15}", NS_OK, 0.72, "", ""},
    {"{\"compute_pct\": 0.72, \"idle_pct\": 0.08}", NS_OK, 0.72, "", ""},
    {"{\"compute\": \"72%\"}", NS_OK, 0.72, "", ""},
    {"{\"compute\": \"0.5\", \"label\": \"run 1\"}", NS_OK, 0.5, "run 1", ""},
    {"{\"compute\": 0.5, \"name\": \"resnet\"}", NS_OK, 0.5, "resnet", ""},
    {"{\"compute\": 0.5, \"gpu\": 1, \"step\": 3}", NS_OK, 0.5, "", "gpu,step"},
    {"{\"regime\": \"x\", \"split\": {\"compute\": 0.4, \"idle\": 0.6}, \"label\": \"v\", \"kernels\": 9}",
     NS_OK, 0.4, "v", ""},
    {"{\"compute\": 0.5, \"compute\": 0.2}", NS_ERR_KEY, 0, NULL, "duplicate key \"compute\""},
    {"{\"compute\": 0.5, \"compute_pct\": 0.2}", NS_ERR_KEY, 0, NULL, "bucket compute given twice"},
    {"{\"compute\": 0.5, \"label\": \"a\", \"name\": \"b\"}", NS_ERR_KEY, 0, NULL, "both given"},
    {"{\"compute\": -0.1}", NS_ERR_VALUE, 0, NULL, "negative"},
    {"{\"compute\": 72}", NS_ERR_VALUE, 0, NULL, "72%"},
    {"{\"compute\": 1e999}", NS_ERR_VALUE, 0, NULL, "finite"},
    {"{\"compute\": true}", NS_ERR_VALUE, 0, NULL, "must be a number"},
    {"{\"compute\": null}", NS_ERR_VALUE, 0, NULL, "must be a number"},
    {"{\"compute\": \"lots\"}", NS_ERR_VALUE, 0, NULL, "not a number"},
    {"{\"compute\": \"NaN\"}", NS_ERR_VALUE, 0, NULL, "not a number"},
    {"{\"label\": 3, \"compute\": 0.1}", NS_ERR_VALUE, 0, NULL, "must be a string"},
    {"[1]", NS_ERR_VALUE, 0, NULL, "expected a JSON object"},
    {"{\"split\": {\"gpu\": 0.1}}", NS_ERR_KEY, 0, NULL, "unknown bucket"},
};

START_TEST(object_keys_and_values)
{
	const object_case *c = &object_cases[_i];
	cJSON *obj = cJSON_Parse(c->json);
	ns_profile_unknown_keys unknown;
	ns_profile p;
	ns_error err;
	ns_status st;

	ck_assert_ptr_nonnull(obj);
	ns_error_clear(&err);
	st = ns_parse_profile_json(obj, &p, false, &unknown, &err);
	cJSON_Delete(obj);
	ck_assert_msg(st == c->want, "%s: status %d (%s)", c->json, st, err.msg);
	if (st == NS_OK) {
		ck_assert_double_eq_tol(p.share[NS_REGIME_COMPUTE], c->compute, 1e-12);
		ck_assert_str_eq(p.label, c->label);
		char keys[256] = "";
		for (size_t k = 0; k < unknown.count && k < NS_PROFILE_UNKNOWN_KEPT; k++)
			snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%s", k ? "," : "",
			         unknown.name[k]);
		ck_assert_msg(strcmp(keys, c->says) == 0, "%s: unknown keys '%s'", c->json, keys);
	} else {
		ck_assert_msg(strstr(err.msg, c->says) != NULL, "%s: message '%s'", c->json, err.msg);
	}
}
END_TEST

START_TEST(strict_turns_unknown_keys_into_errors)
{
	cJSON *obj = cJSON_Parse("{\"compute\": 0.5, \"gpu\": 1}");
	ns_profile_unknown_keys unknown;
	ns_profile p;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_parse_profile_json(obj, &p, true, &unknown, &err), NS_ERR_KEY);
	ck_assert_ptr_nonnull(strstr(err.msg, "\"gpu\""));
	ck_assert_int_eq(err.param, NS_PROFILE_PARAM_STRICT);
	cJSON_Delete(obj);
}
END_TEST

START_TEST(flag_given_twice_is_a_usage_error)
{
	ns_profile p;
	ns_error err;

	ns_profile_init(&p);
	ns_error_clear(&err);
	ck_assert_int_eq(ns_parse_flag_bucket(&p, NS_REGIME_IDLE, "8%", &err), NS_OK);
	ck_assert_double_eq_tol(p.share[NS_REGIME_IDLE], 0.08, 1e-12);
	ck_assert_int_eq(ns_parse_flag_bucket(&p, NS_REGIME_IDLE, "0.1", &err), NS_ERR_VALUE);
	ck_assert_str_eq(err.msg, "--idle given twice");
}
END_TEST

/* ---- stream ---- */

/* Expected record outcomes: 'c','m','i',... the dominant bucket's first letter is too loose, so each record
 * is summarised as "ok:<compute share>" or "bad:<line or item>". */
typedef struct {
	const char *name;
	const char *text;
	const char *want; /* space-separated outcomes */
	size_t len;       /* bytes of text when it holds NUL bytes; 0: strlen */
} stream_case;

/* A case whose text holds NUL bytes: its length is the literal's. */
#define WITH_NUL(name, text, want)                                                                           \
	{                                                                                                    \
		name, text, want, sizeof(text) - 1                                                           \
	}

static const stream_case stream_cases[] = {
    {"one_object", "{\"compute\": 0.7}\n", "ok:0.70", 0},
    {"one_object_without_newline", "{\"compute\": 0.7}", "ok:0.70", 0},
    {"ndjson_skips_blank_lines", "{\"compute\": 0.1}\n\n  \n{\"compute\": 0.2}\r\n", "ok:0.10 ok:0.20", 0},
    {"ndjson_bad_lines_keep_their_place",
     "{\"compute\": 0.1}\n{\"compute\": 2}\nnot json\n{\"compute\": 0.4}\n{\"compute\": 0.5} x\n",
     "ok:0.10 bad:2 bad:3 ok:0.40 bad:5", 0},
    {"array_of_objects", "[{\"compute\": 0.1},\n {\"compute\": 0.2}]\n", "ok:0.10 ok:0.20", 0},
    {"array_bad_item_is_reported_by_index", "[{\"compute\": 0.1}, 3, {\"compute\": 0.3}]",
     "ok:0.10 bad:#2 ok:0.30", 0},
    {"malformed_array_is_one_error", "[{\"compute\": 0.1},\n {\"compute\": ]", "bad:2", 0},
    {"pretty_printed_objects_one_after_another",
     "{\n  \"compute\": 0.3,\n  \"label\": \"a { b\"\n}\n{\n  \"compute\": 0.6\n}\n", "ok:0.30 ok:0.60", 0},
    {"truncated_pretty_object", "{\n  \"compute\": 0.3,\n", "bad:1", 0},
    {"empty_input", "", "bad:-1", 0},
    {"only_blank_lines", "\n\n\n", "bad:-1", 0},
    {"first_line_garbage_then_ndjson", "hello\n{\"compute\": 0.2}\n", "bad:1 ok:0.20", 0},
    {"bom_before_a_pretty_printed_object_is_skipped", "\xef\xbb\xbf{\n  \"compute\": 0.3\n}\n", "ok:0.30", 0},
    {"bom_before_ndjson_is_skipped", "\xef\xbb\xbf{\"compute\": 0.1}\n{\"compute\": 0.2}\n",
     "ok:0.10 ok:0.20", 0},
    WITH_NUL("nul_byte_inside_an_ndjson_object_is_an_error_for_that_record",
             "{\"compute\": 0.1}\n{\"compute\": 0.2\0}\n{\"compute\": 0.3}\n", "ok:0.10 bad:2 ok:0.30"),
    WITH_NUL("nul_byte_in_a_pretty_printed_object_names_its_line", "{\n  \"compute\": 0.3\n  \0\n}\n",
             "bad:3"),
    WITH_NUL("binary_input_is_one_error_and_the_end", "\0\0\0\n{\"compute\": 0.2}\n", "bad:1"),
    WITH_NUL("binary_input_after_blank_lines_names_its_line", "\n\n \0", "bad:3"),
    WITH_NUL("nul_byte_in_an_array_is_one_error", "[{\"compute\": 0.1},\n\0]", "bad:2"),
};

/* Feeds n bytes of text through a pipe so the reader sees what a shell pipe would show it. */
static ns_input *pipe_bytes(const char *text, size_t n)
{
	static ns_input in;
	int fds[2];
	ns_error err;

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(write(fds[1], text, n), (ssize_t)n);
	close(fds[1]);
	ck_assert_int_eq(ns_input_open(&in, "-", &err), NS_OK);
	in.fd = fds[0];
	in.owns_fd = true;
	return &in;
}

static ns_input *pipe_input(const char *text)
{
	return pipe_bytes(text, strlen(text));
}

START_TEST(stream_records_in_order)
{
	const stream_case *c = &stream_cases[_i];
	ns_input *in = pipe_bytes(c->text, c->len != 0 ? c->len : strlen(c->text));
	ns_profile_reader *r;
	char got[512] = "";
	ns_profile_unknown_keys unknown;
	ns_profile p;
	ns_error err;
	ns_profile_read_result res;

	ns_input_sniff(in); /* as the CLI does: it drops a byte order mark */
	r = ns_profile_reader_new(in, false);
	while ((res = ns_profile_reader_next(r, &p, &unknown, &err)) != NS_PROFILE_READ_END) {
		size_t used = strlen(got);
		const char *sep = used > 0 ? " " : "";
		if (res == NS_PROFILE_READ_OK && ns_profile_validate(&p, false, &err) == NS_OK)
			snprintf(got + used, sizeof(got) - used, "%sok:%.2f", sep,
			         p.share[NS_REGIME_COMPUTE]);
		else if (err.line < 0 && err.index > 0)
			snprintf(got + used, sizeof(got) - used, "%sbad:#%ld", sep, err.index);
		else
			snprintf(got + used, sizeof(got) - used, "%sbad:%ld", sep, err.line);
	}
	ck_assert_msg(strcmp(got, c->want) == 0, "%s: got '%s', want '%s'", c->name, got, c->want);
	ns_profile_reader_free(r);
	ns_input_close(in);
}
END_TEST

/* A record must come out while the writer still holds the pipe open: NDJSON behind `tail -f`. */
START_TEST(ndjson_record_is_returned_before_the_stream_ends)
{
	int fds[2];
	ns_input in;
	ns_error err;
	ns_profile p;
	ns_profile_unknown_keys unknown;
	ns_profile_reader *r;
	const char *first = "{\"compute\": 0.25}\n";
	const char *second = "{\"compute\": 0.75}\n";

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(ns_input_open(&in, "-", &err), NS_OK);
	in.fd = fds[0];
	in.owns_fd = true;
	ck_assert_int_eq(write(fds[1], first, strlen(first)), (ssize_t)strlen(first));
	ck_assert_int_eq(ns_input_sniff(&in), NS_INPUT_PROFILE);
	r = ns_profile_reader_new(&in, false);
	ck_assert_int_eq(ns_profile_reader_next(r, &p, &unknown, &err), NS_PROFILE_READ_OK);
	ck_assert_double_eq_tol(p.share[NS_REGIME_COMPUTE], 0.25, 1e-12);
	ck_assert_int_eq(write(fds[1], second, strlen(second)), (ssize_t)strlen(second));
	ck_assert_int_eq(ns_profile_reader_next(r, &p, &unknown, &err), NS_PROFILE_READ_OK);
	ck_assert_double_eq_tol(p.share[NS_REGIME_COMPUTE], 0.75, 1e-12);
	close(fds[1]);
	ck_assert_int_eq(ns_profile_reader_next(r, &p, &unknown, &err), NS_PROFILE_READ_END);
	ns_profile_reader_free(r);
	ns_input_close(&in);
}
END_TEST

START_TEST(overlong_line_is_one_error_and_the_stream_goes_on)
{
	size_t big = NS_PROFILE_LINE_MAX + 100;
	char *text = malloc(big + 64);
	char path[] = "/tmp/nextstep-long-XXXXXX";
	int fd = mkstemp(path);
	ns_input in;
	ns_error err;
	ns_profile p;
	ns_profile_unknown_keys unknown;
	ns_profile_reader *r;

	memset(text, ' ', big);
	text[0] = '{';
	strcpy(text + big, "}\n{\"memory\": 0.5}\n");
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	ck_assert_int_eq(ns_input_open(&in, path, &err), NS_OK);
	r = ns_profile_reader_new(&in, false);
	ck_assert_int_eq(ns_profile_reader_next(r, &p, &unknown, &err), NS_PROFILE_READ_BAD);
	ck_assert_int_eq(err.line, 1);
	ck_assert_int_eq(ns_profile_reader_next(r, &p, &unknown, &err), NS_PROFILE_READ_OK);
	ck_assert_double_eq_tol(p.share[NS_REGIME_MEMORY], 0.5, 1e-12);
	ck_assert_int_eq(err.line, 2);
	ns_profile_reader_free(r);
	ns_input_close(&in);
	unlink(path);
	free(text);
}
END_TEST

/* Writes text to a temporary file and opens it; the caller unlinks path. */
static void file_input(ns_input *in, char path[32], const char *text, size_t n)
{
	ns_error err;
	int fd;

	strcpy(path, "/tmp/nextstep-parse-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, n), (ssize_t)n);
	close(fd);
	ck_assert_int_eq(ns_input_open(in, path, &err), NS_OK);
}

/* A one-line NDJSON record of exactly n bytes: {"compute": 0.5 then blanks then }. */
static char *record_of_length(size_t n, const char *after)
{
	char *text = malloc(n + strlen(after) + 1);

	ck_assert_ptr_nonnull(text);
	memset(text, ' ', n);
	memcpy(text, "{\"compute\": 0.5", 15);
	text[n - 1] = '}';
	strcpy(text + n, after);
	return text;
}

static const struct {
	size_t len;
	const char *ending;
	ns_profile_read_result want;
} line_limit_cases[] = {
    {NS_PROFILE_LINE_MAX, "\n", NS_PROFILE_READ_OK},      /* "more than 1 MiB" is the limit */
    {NS_PROFILE_LINE_MAX, "\r\n", NS_PROFILE_READ_OK},    /* the CR of a CR LF is not part of the line */
    {NS_PROFILE_LINE_MAX, "", NS_PROFILE_READ_OK},        /* nor is a missing final newline */
    {NS_PROFILE_LINE_MAX + 1, "\n", NS_PROFILE_READ_BAD}, /* one byte more is too long */
    {NS_PROFILE_LINE_MAX + 1, "", NS_PROFILE_READ_BAD},
};

START_TEST(line_of_exactly_one_mebibyte_is_accepted)
{
	char path[32];
	char *text = record_of_length(line_limit_cases[_i].len, line_limit_cases[_i].ending);
	ns_input in;
	ns_error err;
	ns_profile p;
	ns_profile_unknown_keys unknown;
	ns_profile_reader *r;

	file_input(&in, path, text, strlen(text));
	r = ns_profile_reader_new(&in, false);
	ck_assert_int_eq(ns_profile_reader_next(r, &p, &unknown, &err), line_limit_cases[_i].want);
	if (line_limit_cases[_i].want == NS_PROFILE_READ_BAD)
		ck_assert_int_eq(err.status, NS_ERR_LIMIT);
	ck_assert_int_eq(ns_profile_reader_next(r, &p, &unknown, &err), NS_PROFILE_READ_END);
	ns_profile_reader_free(r);
	ns_input_close(&in);
	unlink(path);
	free(text);
}
END_TEST

/* The writer sends more than 1 MiB of one line and then waits without ending it: the reader must say so
 * now, not when the line (which may never end) is complete. */
START_TEST(overlong_line_is_reported_before_it_ends)
{
	int data[2], done[2];
	pid_t child;
	ns_input in;
	ns_error err;
	ns_profile p;
	ns_profile_unknown_keys unknown;
	ns_profile_reader *r;

	ck_assert_int_eq(pipe(data), 0);
	ck_assert_int_eq(pipe(done), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		static char chunk[65536];
		char c;
		close(data[0]);
		close(done[1]);
		memset(chunk, ' ', sizeof(chunk));
		chunk[0] = '{';
		for (int i = 0; i < 20; i++) /* 1.25 MiB */
			if (write(data[1], chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk))
				_exit(1);
		(void)read(done[0], &c, 1); /* until the parent has its answer */
		_exit(0);
	}
	close(data[1]);
	close(done[0]);
	ck_assert_int_eq(ns_input_open(&in, "-", &err), NS_OK);
	in.fd = data[0];
	in.owns_fd = true;
	r = ns_profile_reader_new(&in, false);
	ck_assert_int_eq(ns_profile_reader_next(r, &p, &unknown, &err), NS_PROFILE_READ_BAD);
	ck_assert_int_eq(err.status, NS_ERR_LIMIT);
	ck_assert_int_eq(err.line, 1);
	close(done[1]);
	ck_assert_int_eq(ns_profile_reader_next(r, &p, &unknown, &err), NS_PROFILE_READ_END);
	ns_profile_reader_free(r);
	ns_input_close(&in);
	waitpid(child, NULL, 0);
}
END_TEST

/* One line holding a whole array: 60,000 records is about 1.6 MiB, within the 16 MiB array limit. */
START_TEST(one_line_array_over_one_mebibyte_is_read_whole)
{
	enum { N = 60000 };
	const char *item = "{\"compute\": 0.25, \"label\": \"step\"},";
	size_t ilen = strlen(item), n = 0;
	char *text = malloc(N * ilen + 16), path[32];
	ns_input in;
	ns_error err;
	ns_profile p;
	ns_profile_unknown_keys unknown;
	ns_profile_reader *r;
	ns_profile_read_result res;
	long ok = 0;

	text[n++] = '[';
	for (int i = 0; i < N; i++, n += ilen)
		memcpy(text + n, item, ilen);
	strcpy(text + n - 1, "]\n"); /* the last comma becomes the closing bracket */
	ck_assert_uint_gt(strlen(text), NS_PROFILE_LINE_MAX);
	file_input(&in, path, text, strlen(text));
	r = ns_profile_reader_new(&in, false);
	while ((res = ns_profile_reader_next(r, &p, &unknown, &err)) == NS_PROFILE_READ_OK)
		ok++;
	ck_assert_int_eq(res, NS_PROFILE_READ_END);
	ck_assert_int_eq(ok, N);
	ns_profile_reader_free(r);
	ns_input_close(&in);
	unlink(path);
	free(text);
}
END_TEST

START_TEST(array_over_sixteen_mebibytes_is_one_limit_error)
{
	size_t n = NS_PROFILE_ARRAY_MAX + 1;
	char *text = malloc(n + 1), path[32];
	ns_input in;
	ns_error err;
	ns_profile p;
	ns_profile_unknown_keys unknown;
	ns_profile_reader *r;

	memset(text, ' ', n);
	text[0] = '[';
	text[n - 1] = ']';
	text[n] = '\0';
	file_input(&in, path, text, n);
	r = ns_profile_reader_new(&in, false);
	ck_assert_int_eq(ns_profile_reader_next(r, &p, &unknown, &err), NS_PROFILE_READ_BAD);
	ck_assert_int_eq(err.status, NS_ERR_LIMIT);
	ck_assert_ptr_nonnull(strstr(err.msg, "16 MiB"));
	ck_assert_int_eq(ns_profile_reader_next(r, &p, &unknown, &err), NS_PROFILE_READ_END);
	ns_profile_reader_free(r);
	ns_input_close(&in);
	unlink(path);
	free(text);
}
END_TEST

/* A small JSON document (playbook, rules, devices) of up to NS_JSON_FILE_MAX bytes is read; one byte more is
 * a limit error, not an out-of-memory one. Each file is {} with blanks between, of the given size. */
static const struct {
	size_t bytes;
	ns_status want;
} small_file_cases[] = {
    {2, NS_OK},
    {8191, NS_OK},
    {8192, NS_OK},
    {NS_JSON_FILE_MAX - 4096, NS_OK},
    {NS_JSON_FILE_MAX, NS_OK},
    {NS_JSON_FILE_MAX + 1, NS_ERR_LIMIT},
    {NS_JSON_FILE_MAX + 8192, NS_ERR_LIMIT},
};

START_TEST(small_json_file_is_read_up_to_its_limit_exactly)
{
	size_t n = small_file_cases[_i].bytes;
	char *text = malloc(n), path[] = "/tmp/nextstep-small-XXXXXX";
	int fd = mkstemp(path);
	cJSON *doc = NULL;
	ns_error err;

	ck_assert_ptr_nonnull(text);
	ck_assert_int_ge(fd, 0);
	memset(text, ' ', n);
	text[0] = '{';
	text[n - 1] = '}';
	ck_assert_int_eq(write(fd, text, n), (ssize_t)n);
	close(fd);
	ns_error_clear(&err);
	ck_assert_msg(ns_json_parse_file(path, &doc, &err) == small_file_cases[_i].want, "%zu bytes: %s", n,
	              err.msg);
	ck_assert_int_eq(doc != NULL, small_file_cases[_i].want == NS_OK);
	cJSON_Delete(doc);
	unlink(path);
	free(text);
}
END_TEST

typedef struct {
	const char *text;
	ns_input_kind want;
} sniff_case;

static const sniff_case sniff_cases[] = {
    {"{\"compute\": 0.5}", NS_INPUT_PROFILE},
    {"  \n {\n  \"schemaVersion\": 1, \"traceEvents\": []}", NS_INPUT_TRACE},
    {"{\"traceEvents\": []}", NS_INPUT_TRACE},
    {"{\"deviceProperties\": []}", NS_INPUT_TRACE},
    {"\x1f\x8b\x08", NS_INPUT_GZIP},
    {"[{\"compute\": 0.5}]", NS_INPUT_PROFILE},
    {"", NS_INPUT_EMPTY},
    {"{", NS_INPUT_PROFILE},
    {"{\"traceEv", NS_INPUT_PROFILE},
    {"\xef\xbb\xbf{\"traceEvents\": []}", NS_INPUT_TRACE}, /* a byte order mark is not part of the JSON */
    {"\xef\xbb\xbf", NS_INPUT_EMPTY},
    /* the JSON Array Format: an array whose event has a "ph" key; profiles (even one named "name") have none
     */
    {"[{\"ph\": \"X\", \"ts\": 1}]", NS_INPUT_TRACE},
    {"[\n{\"name\": \"aten::mm\", \"ph\" : \"X\"},\n", NS_INPUT_TRACE},
    {"[{\"name\": \"run 1\", \"compute\": 0.5}]", NS_INPUT_PROFILE},
    {"[{\"label\": \"a \\\"ph\\\": b\", \"compute\": 0.5}]", NS_INPUT_PROFILE},
    {"[]", NS_INPUT_PROFILE},
    /* not SQLite's 16-byte header (the whole one: sniff_names_an_sqlite_database) */
    {"SQLite format 3", NS_INPUT_PROFILE},
    {"SQLite format 2\n", NS_INPUT_PROFILE},
    {"S", NS_INPUT_PROFILE},
};

START_TEST(sniff_tells_traces_from_profiles_by_content)
{
	ns_input *in = pipe_input(sniff_cases[_i].text);

	ck_assert_int_eq(ns_input_sniff(in), sniff_cases[_i].want);
	ns_input_close(in);
}
END_TEST

/* sqlite.org/fileformat.html: the header string "SQLite format 3" and its NUL, 16 bytes. */
START_TEST(sniff_names_an_sqlite_database)
{
	static const char db[] = "SQLite format 3\0\x10\x00\x01\x01";
	ns_input *in = pipe_bytes(db, sizeof(db) - 1);

	ck_assert_int_eq(ns_input_sniff(in), NS_INPUT_SQLITE);
	ns_input_close(in);
}
END_TEST

START_TEST(sniffed_bytes_are_still_read)
{
	ns_input *in = pipe_input("{\"traceEvents\": []}");
	char buf[64];
	ssize_t n;

	ck_assert_int_eq(ns_input_sniff(in), NS_INPUT_TRACE);
	n = ns_input_read(in, buf, sizeof(buf));
	ck_assert_int_eq(n, 19);
	ck_assert_int_eq(memcmp(buf, "{\"traceEvents\": []}", 19), 0);
	ck_assert_int_eq(ns_input_read(in, buf, sizeof(buf)), 0);
	ns_input_close(in);
}
END_TEST

/* ---- the flat fast path (parse_flat.c) against cJSON and ns_parse_profile_json ---- */

typedef struct {
	bool ok;
	ns_profile p;
	ns_profile_unknown_keys unknown;
} general_result;

static general_result read_generally(const char *s, size_t n, bool strict)
{
	general_result g;
	const char *end = NULL;
	cJSON *obj = cJSON_ParseWithLengthOpts(s, n, &end, 0);
	ns_error err;

	ns_error_clear(&err);
	g.ok = obj != NULL && strspn(end, " \t\r\n") == n - (size_t)(end - s) &&
	       ns_parse_profile_json(obj, &g.p, strict, &g.unknown, &err) == NS_OK;
	cJSON_Delete(obj);
	return g;
}

/* When the fast path takes a line, the general path takes it too and reads the same bits. */
static bool flat_agrees(const char *line, bool strict)
{
	size_t n = strlen(line);
	ns_profile p;
	ns_profile_unknown_keys unknown;
	general_result g;

	if (!profile_parse_flat(line, n, strict, &p, &unknown))
		return false;
	g = read_generally(line, n, strict);
	ck_assert_msg(g.ok, "fast path took what the general path refuses: %s", line);
	for (int r = 0; r < NS_REGIME_COUNT; r++) {
		ck_assert_msg(p.present[r] == g.p.present[r], "%s: bucket %d present", line, r);
		ck_assert_msg(memcmp(&p.share[r], &g.p.share[r], sizeof(double)) == 0,
		              "%s: bucket %d: %.17g vs %.17g", line, r, p.share[r], g.p.share[r]);
	}
	ck_assert_str_eq(p.label, g.p.label);
	ck_assert_uint_eq(unknown.count, g.unknown.count);
	for (size_t i = 0; i < unknown.count && i < NS_PROFILE_UNKNOWN_KEPT; i++)
		ck_assert_str_eq(unknown.name[i], g.unknown.name[i]);
	return true;
}

/* What streams are made of: the fast path must take these (else it is dead code), reading them as cJSON. */
static const char *const flat_taken[] = {
    "{\"label\":\"step0\",\"compute\":0.2435,\"memory\":0.1736,\"comm\":0.0593,\"dataloader\":0.0215,"
    "\"overhead\":0.0200,\"idle\":0.0500}",
    "  { \"compute_pct\" : 0.72 ,\t\"idle_pct\": \"8%\" }  \r",
    "{\"compute\": 1, \"name\": null}",
    "{\"compute\": 0, \"memory\": -0, \"comm\": -0.0, \"idle\": 0.0000000000000001}",
    "{\"compute\": 0.1, \"gpu\": 3, \"host\": \"n1\", \"ok\": true, \"bad\": false, \"x\": null, "
    "\"split\": 2}",
    "{\"compute\": 0.1234567890123456, \"memory\": 0.9007199254740992}",
    "{\"compute\": 0.5, \"label\": \"caf\xc3\xa9 \xff\x7f\"}",
    "{}",
    "{\"compute\":\"0.5\",\"memory\":\"1e-1\"}",
    "{\"compute\": 0.5, \"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9}",
};

/* Left to the general path, which reads them (or says what is wrong) as before. */
static const char *const flat_declined[] = {
    "\xef\xbb\xbf{\"compute\": 0.5}",        /* byte order mark */
    "{\"compute\": 5e-1}",                   /* exponent */
    "{\"compute\": 0.5e0}",                  /* exponent after decimals */
    "{\"compute\": 1.}",                     /* strtod reads "1." */
    "{\"compute\": .5}",                     /* cJSON refuses */
    "{\"compute\": +0.5}",                   /* cJSON refuses */
    "{\"compute\": 0.12345678901234567890}", /* 21 digits */
    "{\"compute\": 0.9007199254740993}",     /* above 2^53 as an integer */
    "{\"compute\": 0.5-1}",                  /* cJSON copies the '-' too */
    "{\"compute\": 0.5, \"compute\": 0.2}",  /* duplicate */
    "{\"compute\": 1.5}",                    /* above 1 */
    "{\"compute\": -0.5}",                   /* negative */
    "{\"compute\": \"x\"}",                  /* not a share */
    "{\"compute\": null}",
    "{\"compute\": true}",
    "{\"label\": 3, \"compute\": 0.5}",
    "{\"label\": \"a\\nb\", \"compute\": 0.5}", /* escape */
    "{\"label\": \"a\tb\", \"compute\": 0.5}",  /* raw control byte */
    "{\"comp\\u0075te\": 0.5}",                 /* escaped key */
    "{\"split\": {\"compute\": 0.5}}",          /* a verdict */
    "{\"compute\": 0.5, \"x\": [1]}",           /* nested value */
    "{\"compute\": 0.5,}",                      /* trailing comma */
    "{\"compute\": 0.5} x",                     /* text after */
    "{\"compute\": 0.5}{}",
    "{\"compute\" 0.5}",
    "{\"compute\": 0.5",
    "{\"compute\":\f0.5}", /* a byte cJSON skips as space */
    "[{\"compute\": 0.5}]",
    "0.5",
};

START_TEST(flat_fast_path_reads_common_lines_as_cjson_does)
{
	for (size_t i = 0; i < sizeof(flat_taken) / sizeof(flat_taken[0]); i++)
		ck_assert_msg(flat_agrees(flat_taken[i], false), "fast path declined: %s", flat_taken[i]);
	for (size_t i = 0; i < sizeof(flat_declined) / sizeof(flat_declined[0]); i++) {
		ns_profile p;
		ns_profile_unknown_keys unknown;
		ck_assert_msg(
		    !profile_parse_flat(flat_declined[i], strlen(flat_declined[i]), false, &p, &unknown),
		    "fast path took: %s", flat_declined[i]);
	}
	/* strict: an unknown key is the general path's error to give */
	ck_assert(!flat_agrees("{\"compute\": 0.5, \"gpu\": 1}", true));
	ck_assert(flat_agrees("{\"compute\": 0.5, \"label\": \"a\"}", true));
}
END_TEST

/* Numbers of every length, with and without points, signs and what may follow them, as bucket values and as
 * unknown keys' values: where the fast path takes a line, its doubles are strtod's to the bit. */
START_TEST(flat_numbers_are_strtods_to_the_bit)
{
	static const char *const after[] = {"", " ", "e", "E5", ".", "-", "+1", "0"};
	unsigned seed = 2718;
	int taken = 0;

	for (int i = 0; i < 40000; i++) {
		char num[64], line[160];
		size_t n = 0;
		int digits, point;
		seed = seed * 1103515245u + 12345u;
		digits = 1 + (int)(seed >> 8) % 24;
		point = (int)(seed >> 16) % (digits + 1);
		if ((seed >> 28) == 0)
			num[n++] = '-';
		for (int d = 0; d < digits; d++) {
			seed = seed * 1103515245u + 12345u;
			if (d == point && d > 0)
				num[n++] = '.';
			num[n++] = (char)('0' + (d == 0 && (seed >> 20) % 4 != 0 ? 0 : (seed >> 24) % 10));
		}
		num[n] = '\0';
		snprintf(line, sizeof(line), (i & 1) ? "{\"idle\": %s%s}" : "{\"n\": %s%s, \"idle\": 0.5}",
		         num, after[(seed >> 12) % 8]);
		taken += flat_agrees(line, false);
	}
	ck_assert_int_gt(taken, 4000); /* the test exercised the fast path */
}
END_TEST

static Suite *parse_suite(void)
{
	Suite *s = suite_create("parse");
	TCase *tc = tcase_create("parse");

	tcase_add_loop_test(tc, object_keys_and_values, 0, sizeof(object_cases) / sizeof(object_cases[0]));
	tcase_add_test(tc, strict_turns_unknown_keys_into_errors);
	tcase_add_test(tc, flag_given_twice_is_a_usage_error);
	tcase_add_loop_test(tc, stream_records_in_order, 0, sizeof(stream_cases) / sizeof(stream_cases[0]));
	tcase_add_test(tc, ndjson_record_is_returned_before_the_stream_ends);
	tcase_add_test(tc, overlong_line_is_one_error_and_the_stream_goes_on);
	tcase_add_loop_test(tc, line_of_exactly_one_mebibyte_is_accepted, 0,
	                    sizeof(line_limit_cases) / sizeof(line_limit_cases[0]));
	tcase_add_test(tc, overlong_line_is_reported_before_it_ends);
	tcase_add_test(tc, one_line_array_over_one_mebibyte_is_read_whole);
	tcase_add_test(tc, array_over_sixteen_mebibytes_is_one_limit_error);
	tcase_add_loop_test(tc, small_json_file_is_read_up_to_its_limit_exactly, 0,
	                    sizeof(small_file_cases) / sizeof(small_file_cases[0]));
	tcase_add_loop_test(tc, sniff_tells_traces_from_profiles_by_content, 0,
	                    sizeof(sniff_cases) / sizeof(sniff_cases[0]));
	tcase_add_test(tc, sniff_names_an_sqlite_database);
	tcase_add_test(tc, sniffed_bytes_are_still_read);
	tcase_add_test(tc, flat_fast_path_reads_common_lines_as_cjson_does);
	tcase_add_test(tc, flat_numbers_are_strtods_to_the_bit);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(parse_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
