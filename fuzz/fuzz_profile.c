/* Feeds arbitrary bytes to the profile reader the way the CLI does (sniff, then read every record, then
 * validate and classify each good one). Every record must end as a profile or an error with a message;
 * never a crash, a hang, or a share outside [0,1]; messages, the unknown keys named and the verdict in each
 * form the CLI prints must be safe to show (fuzz_text_safe.h). Two fast paths are checked against the general
 * ones they stand in for: every line the flat reader takes (parse_flat.c) must be read by cJSON and
 * ns_parse_profile_json to the same bits, and the streamed JSON verdict must be the cJSON tree's bytes. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_text_safe.h"
#include "nextstep/classify.h"
#include "nextstep/format.h"
#include "nextstep/parse_json.h"
#include "router/parse_flat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ns_routes routes;
static bool routes_ready;

/* The streamed JSON verdict (ns_format_verdict_write) must be the tree's text, want (len bytes). */
static void check_json_writer(const ns_profile *p, const ns_verdict *v, const char *want, size_t want_len)
{
	ns_format_options fo = {NS_FORMAT_JSON, false, false};
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (mem == NULL)
		abort();
	if (ns_format_verdict_write(mem, p->label, v, &routes, &fo, NULL) != NS_OK || fclose(mem) != 0)
		abort();
	if (len != want_len || memcmp(text, want, len) != 0)
		abort();
	free(text);
}

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

/* The verdict as the router prints it, in the form fo says, checked as that form's output. */
static void check_printed(const ns_profile *p, const ns_verdict *v, const ns_format_options *fo)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	cJSON *obj = NULL;
	ns_status st;

	if (mem == NULL)
		abort();
	if (fo->kind == NS_FORMAT_JSON) {
		obj = ns_format_verdict_json(p->label, v, &routes);
		if (obj != NULL)
			add_next_steps(obj, v);
		st = obj != NULL ? ns_format_print_json(mem, obj) : NS_ERR_NOMEM;
		cJSON_Delete(obj);
	} else {
		st = ns_format_verdict(mem, p->label, v, &routes, fo);
	}
	if (fclose(mem) != 0)
		abort();
	if (st == NS_OK && fo->kind == NS_FORMAT_JSON) {
		fuzz_check_json(text, len);
		check_json_writer(p, v, text, len);
	} else if (st == NS_OK)
		fuzz_check_text(text, len);
	free(text);
}

static void check_profile(ns_profile *p, const ns_profile_unknown_keys *unknown)
{
	ns_classify_options o;
	ns_format_options fo = {NS_FORMAT_TEXT, true, false};
	ns_verdict v;
	ns_error err;

	for (int r = 0; r < NS_REGIME_COUNT; r++)
		if (!(p->share[r] >= 0.0 && p->share[r] <= 1.0))
			abort();
	for (size_t i = 0; i < unknown->count && i < NS_PROFILE_UNKNOWN_KEPT; i++)
		fuzz_check_message(unknown->name[i]);
	if (ns_profile_validate(p, false, &err) != NS_OK) {
		fuzz_check_message(err.msg);
		return;
	}
	ns_classify_options_default(&o);
	ns_classify_profile(p, &o, &v);
	if ((unsigned)v.regime >= NS_REGIME_COUNT || v.share < 0 || v.nfindings >= NS_REGIME_COUNT)
		abort();
	check_printed(p, &v, &fo);
	fo.kind = NS_FORMAT_JSON;
	check_printed(p, &v, &fo);
}

/* Every line the flat reader takes, cJSON and ns_parse_profile_json read to the same bits. */
static void check_flat_line(const char *s, size_t n, bool strict)
{
	ns_profile flat, general;
	ns_profile_unknown_keys flat_unknown, general_unknown;
	const char *end = NULL;
	cJSON *obj;
	ns_error err;

	if (!profile_parse_flat(s, n, strict, &flat, &flat_unknown))
		return;
	obj = cJSON_ParseWithLengthOpts(s, n, &end, 0);
	if (obj == NULL || strspn(end, " \t\r\n") < n - (size_t)(end - s))
		abort();
	ns_error_clear(&err);
	if (ns_parse_profile_json(obj, &general, strict, &general_unknown, &err) != NS_OK)
		abort();
	cJSON_Delete(obj);
	if (memcmp(flat.share, general.share, sizeof(flat.share)) != 0 ||
	    memcmp(flat.present, general.present, sizeof(flat.present)) != 0 ||
	    strcmp(flat.label, general.label) != 0 || flat_unknown.count != general_unknown.count)
		abort();
	for (size_t i = 0; i < flat_unknown.count && i < NS_PROFILE_UNKNOWN_KEPT; i++)
		if (strcmp(flat_unknown.name[i], general_unknown.name[i]) != 0)
			abort();
}

/* The input's lines, each NUL-terminated in a copy (cJSON's end pointer is read up to a NUL). */
static void check_flat_lines(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1);
	size_t start = 0;

	if (copy == NULL)
		abort();
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (size_t i = 0; i <= size; i++) {
		if (i < size && copy[i] != '\n')
			continue;
		copy[i] = '\0';
		check_flat_line(copy + start, i - start, false);
		check_flat_line(copy + start, i - start, true);
		start = i + 1;
	}
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ns_input in;
	ns_error err;
	ns_profile p;
	ns_profile_unknown_keys unknown;
	ns_profile_reader *r;
	ns_profile_read_result res;
	int fd = memfd_create("fuzz_profile", 0);

	ns_error_clear(&err);
	if (!routes_ready && ns_routes_init_default(&routes, &err) != NS_OK)
		abort();
	routes_ready = true;

	check_flat_lines(data, size);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	if (ns_input_open(&in, "-", &err) != NS_OK)
		abort();
	in.fd = fd;
	in.owns_fd = true;
	if (ns_input_sniff(&in) == NS_INPUT_PROFILE || ns_input_sniff(&in) == NS_INPUT_EMPTY) {
		r = ns_profile_reader_new(&in, false);
		if (r == NULL)
			abort();
		while ((res = ns_profile_reader_next(r, &p, &unknown, &err)) != NS_PROFILE_READ_END) {
			if (res == NS_PROFILE_READ_OK)
				check_profile(&p, &unknown);
			else if (err.msg[0] == '\0')
				abort();
			else
				fuzz_check_message(err.msg);
		}
		ns_profile_reader_free(r);
	}
	ns_input_close(&in);
	return 0;
}
