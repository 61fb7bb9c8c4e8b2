/* Test helper for issue 27: each FILE read on one thread and on two (the parse worker), in several shapes of
 * window, read size and chunk size, must give the same events (every field, every byte of every string), the
 * same error (status, message, byte, event), the same meta and the same report, text and JSON, byte for
 * byte. The small shapes force chunks into windows of a few hundred bytes, so a fixture of 2 KB goes through
 * the chunked path as a trace of gigabytes does.
 * Usage: chunk_same [--min-chunked N] [--min-ahead W] FILE...   exit 0 when all agree, the worker parsed at
 * least N events in all and W windows were read while it parsed on (so the test cannot pass by never using
 * either), 1 otherwise. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nextstep/kernel_rules.h"
#include "nextstep/trace_report.h"
#include "nextstep/trace_split.h"
#include "trace/read/trace_read_private.h"

/* One read: what the callback saw and what came back. */
typedef struct {
	uint64_t *hash; /* one per event */
	size_t n, cap;
	ns_trace_split *split;
	ns_status st;
	ns_error err;
	ns_trace_meta meta;
	char *report[2]; /* text, JSON; NULL when there is nothing to split */
} outcome;

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h;
}

static uint64_t mix_int(uint64_t h, int64_t v)
{
	for (int i = 0; i < 8; i++) {
		h ^= (uint64_t)v >> (8 * i) & 0xFF;
		h *= 1099511628211ull;
	}
	return h;
}

static uint64_t mix_str(uint64_t h, ns_str s)
{
	h = mix_int(h, (int64_t)s.len);
	return s.len > 0 ? mix(h, s.ptr, s.len) : h;
}

/* Every field, strings by their bytes (their addresses differ between reads). */
static uint64_t event_hash(const ns_trace_event *e)
{
	uint64_t h = 14695981039346656037ull;
	int64_t flops;
	const ns_str strs[] = {e->cat_raw,   e->name,    e->input_dims, e->input_types, e->concrete_inputs,
	                       e->coll_name, e->coll_pg, e->coll_dtype, e->meta_name};

	memcpy(&flops, &e->flops, sizeof(flops));
	const int64_t ints[] = {e->index,
	                        e->offset,
	                        e->cat,
	                        e->ph,
	                        e->pid,
	                        e->tid,
	                        e->has_ts,
	                        e->has_dur,
	                        e->ts_ns,
	                        e->dur_ns,
	                        e->device,
	                        e->stream,
	                        e->correlation,
	                        e->external_id,
	                        e->seq_number,
	                        e->coll_seq,
	                        e->coll_in,
	                        e->coll_out,
	                        e->has_sort_index,
	                        e->sort_index,
	                        e->mem_bytes,
	                        e->mem_allocated,
	                        e->mem_reserved,
	                        e->mem_device_type,
	                        e->mem_device_id,
	                        flops};
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		h = mix_int(h, ints[i]);
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		h = mix_str(h, strs[i]);
	return h;
}

static ns_status record(const ns_trace_event *ev, void *ctx, ns_error *err)
{
	outcome *o = ctx;

	if (o->n == o->cap) {
		size_t cap = o->cap > 0 ? 2 * o->cap : 1024;
		uint64_t *h = realloc(o->hash, cap * sizeof(*h));
		if (h == NULL)
			return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
		o->hash = h;
		o->cap = cap;
	}
	o->hash[o->n++] = event_hash(ev);
	return ns_trace_split_event(ev, o->split, err);
}

static char *report(const ns_split_result *res, ns_format_kind kind)
{
	ns_classify_options classify;
	ns_routes routes;
	ns_format_options format = {.kind = kind, .verbose = true};
	ns_report_options ro = {
	    .classify = &classify, .routes = &routes, .format = &format, .source = "t", .top = 10};
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	ns_error err;

	if (f == NULL)
		return NULL;
	ns_classify_options_default(&classify);
	if (ns_routes_init_default(&routes, &err) == NS_OK) {
		if (ns_report_print(f, res, &ro, &err) != NS_OK)
			fprintf(f, "report failed: %s\n", err.msg);
		ns_routes_free(&routes);
	}
	fclose(f);
	return text;
}

static void read_once(const char *path, const ns_kernel_rules *rules, const trace_read_knobs *k, outcome *o)
{
	ns_input in;
	ns_split_result res;

	memset(o, 0, sizeof(*o));
	o->split = ns_trace_split_new(rules);
	if (o->split == NULL || ns_input_open(&in, path, &o->err) != NS_OK) {
		o->st = o->split == NULL ? NS_ERR_NOMEM : o->err.status;
		return;
	}
	o->st = trace_read_tuned(&in, record, o, &o->meta, &o->err, k);
	ns_input_close(&in);
	memset(&res, 0, sizeof(res));
	if ((o->st == NS_OK || (o->meta.truncated && o->meta.events > 0)) && o->meta.events > 0) {
		ns_error err;
		if (ns_trace_split_finish(o->split, &o->meta, &res, &err) == NS_OK) {
			o->report[0] = report(&res, NS_FORMAT_TEXT);
			o->report[1] = report(&res, NS_FORMAT_JSON);
		}
		ns_split_result_free(&res);
	}
}

static void outcome_free(outcome *o)
{
	free(o->hash);
	free(o->report[0]);
	free(o->report[1]);
	ns_trace_split_free(o->split);
}

static bool same_meta(const ns_trace_meta *a, const ns_trace_meta *b)
{
	return a->events == b->events && a->bytes == b->bytes && a->truncated == b->truncated &&
	       a->truncated_in_events == b->truncated_in_events && a->truncated_at == b->truncated_at &&
	       a->has_rank == b->has_rank && a->rank == b->rank && a->world_size == b->world_size &&
	       a->ndevices == b->ndevices && a->compressed == b->compressed &&
	       memcmp(a->devices, b->devices, a->ndevices * sizeof(a->devices[0])) == 0;
}

static bool same_text(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* What differs between one and two threads, or NULL. */
static const char *difference(const outcome *one, const outcome *two, size_t *at)
{
	*at = 0;
	if (one->st != two->st || strcmp(one->err.msg, two->err.msg) != 0 ||
	    one->err.offset != two->err.offset || one->err.index != two->err.index ||
	    one->err.line != two->err.line)
		return "error";
	if (one->n != two->n)
		return "event count";
	for (; *at < one->n; ++*at)
		if (one->hash[*at] != two->hash[*at])
			return "event";
	if (!same_meta(&one->meta, &two->meta))
		return "meta";
	if (!same_text(one->report[0], two->report[0]))
		return "text report";
	if (!same_text(one->report[1], two->report[1]))
		return "JSON report";
	return NULL;
}

/* The shapes: {max_read, window, threads, chunk_min}. The first is the reader as the CLI runs it. */
static const trace_read_knobs shapes[] = {
    {0, 0, 2, 0, NULL, NULL},  {0, 0, 2, 1, NULL, NULL},    {0, 4096, 2, 256, NULL, NULL},
    {7, 64, 2, 1, NULL, NULL}, {0, 256, 2, 16, NULL, NULL}, {64, 1024, 3, 8, NULL, NULL},
};

/* Reads of a few bytes cost a system call each: large files are read whole. */
#define SMALL_READS_MAX_FILE (64L << 10)

static int check_file(const char *path, const ns_kernel_rules *rules, long *chunked, long *ahead)
{
	struct stat sb;
	bool large = stat(path, &sb) == 0 && sb.st_size > SMALL_READS_MAX_FILE;
	int bad = 0;

	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		trace_read_knobs k1 = shapes[s], k2 = shapes[s];
		outcome one, two;
		const char *what;
		size_t at;
		if (large && shapes[s].max_read > 0)
			continue;
		k1.threads = 1;
		k1.chunk_min = 0;
		k2.chunked = chunked;
		k2.ahead = ahead;
		read_once(path, rules, &k1, &one);
		read_once(path, rules, &k2, &two);
		if ((what = difference(&one, &two, &at)) != NULL) {
			fprintf(stderr,
			        "chunk_same: %s: shape %zu (read %zu, window %zu, chunk %zu): the %s differs "
			        "(event %zu; status %d/%d, byte %lld/%lld: %s / %s)\n",
			        path, s, k2.max_read, k2.window, k2.chunk_min, what, at, one.st, two.st,
			        one.err.offset, two.err.offset, one.err.msg, two.err.msg);
			bad = 1;
		}
		outcome_free(&one);
		outcome_free(&two);
	}
	return bad;
}

int main(int argc, char **argv)
{
	ns_kernel_rules *rules = NULL;
	ns_error err;
	long chunked = 0, min_chunked = 0, ahead = 0, min_ahead = 0;
	int bad = 0, a = 1, files = 0;

	for (; a + 1 < argc && strncmp(argv[a], "--min-", 6) == 0; a += 2) {
		if (strcmp(argv[a], "--min-chunked") == 0)
			min_chunked = strtol(argv[a + 1], NULL, 10);
		else if (strcmp(argv[a], "--min-ahead") == 0)
			min_ahead = strtol(argv[a + 1], NULL, 10);
		else
			break;
	}
	if (ns_kernel_rules_default(&rules, &err) != NS_OK) {
		fprintf(stderr, "chunk_same: %s\n", err.msg);
		return 1;
	}
	for (; a < argc; a++, files++)
		bad |= check_file(argv[a], rules, &chunked, &ahead);
	ns_kernel_rules_free(rules);
	printf(
	    "chunk_same: %d files x %zu shapes, %ld events parsed by the worker, %ld windows read while it "
	    "parsed on, %s\n",
	    files, sizeof(shapes) / sizeof(shapes[0]), chunked, ahead, bad ? "DIFFERENCES" : "all the same");
	if (chunked < min_chunked || ahead < min_ahead) {
		fprintf(stderr,
		        "chunk_same: the worker parsed %ld events (at least %ld wanted) and %ld windows were "
		        "read ahead (at least %ld wanted)\n",
		        chunked, min_chunked, ahead, min_ahead);
		bad = 1;
	}
	return bad;
}
