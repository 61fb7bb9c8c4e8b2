/* Reading rank summary lines back (untrusted input: every value checked, every error located), one line or a
 * stream of them. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "job_private.h"
#include "util/text.h"
#include "util/vec.h"

/* Integers beyond this are not exact in a JSON number read as a double. */
#define EXACT_MAX 9007199254740992.0
/* Times are offsets from t0 within this (52 days of nanoseconds), so that written again from their earliest
 * time they still fit in EXACT_MAX. */
#define TIME_OFFSET_MAX 4503599627370496LL

typedef struct {
	ns_error *err;
	int64_t t0;
	const char
	    *key; /* the key being read, for the message (formatted only then: a summary has millions)... */
	const char *sub; /* ...and the object key inside it ("c"'s cause), or NULL */
	char where[96];  /* or this, when not "" */
} reader;

static ns_status bad(reader *r, const char *what)
{
	if (r->where[0] != '\0')
		return ns_error_set(r->err, NS_ERR_VALUE, "summary: %s: %s", r->where, what);
	if (r->sub != NULL)
		return ns_error_set(r->err, NS_ERR_VALUE, "summary: \"%s\".\"%.40s\": %s", r->key, r->sub,
		                    what);
	return ns_error_set(r->err, NS_ERR_VALUE, "summary: \"%s\": %s", r->key, what);
}

/* The key being read (a literal or a key of the line, alive while it is read). */
static void at_key(reader *r, const char *key, const char *sub)
{
	r->key = key;
	r->sub = sub;
	r->where[0] = '\0';
}

static ns_status get_int(reader *r, const cJSON *obj, const char *key, bool required, int64_t absent,
                         int64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = absent;
	at_key(r, key, NULL);
	if (v == NULL) {
		return required ? bad(r, "missing") : NS_OK;
	}
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || fabs(v->valuedouble) > EXACT_MAX ||
	    v->valuedouble != floor(v->valuedouble))
		return bad(r, "not an integer (at most 2^53 in size)");
	*out = (int64_t)v->valuedouble;
	return NS_OK;
}

static ns_status get_nonneg(reader *r, const cJSON *obj, const char *key, int64_t *out)
{
	ns_status st = get_int(r, obj, key, true, 0, out);

	if (st == NS_OK && *out < 0)
		return bad(r, "negative");
	return st;
}

/* A time: an offset from t0, so t0 + offset must fit. */
static ns_status get_time(reader *r, const cJSON *obj, const char *key, int64_t *out)
{
	int64_t off;
	ns_status st = get_int(r, obj, key, true, 0, &off);

	if (st != NS_OK)
		return st;
	if (off > TIME_OFFSET_MAX || off < -TIME_OFFSET_MAX || (off > 0 && r->t0 > INT64_MAX - off) ||
	    (off < 0 && r->t0 < INT64_MIN - off))
		return bad(r, "time out of range");
	*out = r->t0 + off;
	return NS_OK;
}

static ns_status get_text(reader *r, const cJSON *obj, const char *key, char *buf, size_t size)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	buf[0] = '\0';
	if (v == NULL)
		return NS_OK;
	at_key(r, key, NULL);
	if (!cJSON_IsString(v))
		return bad(r, "not a string");
	/* another tool may have written the line: kept as UTF-8, cut between characters */
	ns_utf8_clean(v->valuestring, strlen(v->valuestring), buf, size);
	return NS_OK;
}

static const cJSON *get_array(reader *r, const cJSON *obj, const char *key, ns_status *st)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	at_key(r, key, NULL);
	if (!cJSON_IsArray(v)) {
		*st = bad(r, v == NULL ? "missing" : "not an array");
		return NULL;
	}
	*st = NS_OK;
	return v;
}

static ns_status read_buckets(reader *r, const cJSON *w, split_window *out)
{
	ns_status st;
	const cJSON *b = get_array(r, w, "b", &st);
	int i = 0;
	int64_t sum = 0;
	const cJSON *v;

	if (b == NULL)
		return st;
	if (cJSON_GetArraySize(b) != REGIME_COUNT)
		return bad(r, "not one number per bucket");
	cJSON_ArrayForEach(v, b)
	{
		if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > EXACT_MAX ||
		    v->valuedouble != floor(v->valuedouble))
			return bad(r, "a bucket is not a non-negative integer");
		out->bucket_ns[i++] = (int64_t)v->valuedouble;
		sum += (int64_t)v->valuedouble;
	}
	if (sum != out->dur_ns)
		return bad(r, "buckets do not sum to dur");
	return NS_OK;
}

static ns_status read_causes(reader *r, const cJSON *w, split_window *out)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(w, "c"), *v;

	at_key(r, "c", NULL);
	if (c == NULL)
		return NS_OK;
	if (!cJSON_IsObject(c))
		return bad(r, "not an object");
	cJSON_ArrayForEach(v, c)
	{
		ns_cause k;
		at_key(r, "c", v->string);
		if (!cause_from_key(v->string, &k))
			return bad(r, "unknown cause");
		if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > EXACT_MAX ||
		    v->valuedouble != floor(v->valuedouble) ||
		    (int64_t)v->valuedouble > out->bucket_ns[cause_bucket(k)])
			return bad(r, "not an integer within its bucket");
		out->cause_ns[k] = (int64_t)v->valuedouble;
	}
	return NS_OK;
}

static ns_status read_window(reader *r, const cJSON *w, split_window *out)
{
	ns_status st;
	int64_t kernels;
	const cJSON *wu;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsObject(w))
		return ns_error_set(r->err, NS_ERR_VALUE, "summary: a window is not an object");
	st = get_int(r, w, "step", true, -1, &out->step);
	if (st == NS_OK)
		st = get_time(r, w, "start", &out->start_ns);
	if (st == NS_OK)
		st = get_nonneg(r, w, "dur", &out->dur_ns);
	if (st == NS_OK && out->start_ns > INT64_MAX - out->dur_ns)
		st = bad(r, "window ends out of range");
	if (st == NS_OK)
		st = read_buckets(r, w, out);
	if (st == NS_OK)
		st = read_causes(r, w, out);
	if (st == NS_OK)
		st = get_nonneg(r, w, "hidden", &out->comm_overlapped_ns);
	if (st == NS_OK)
		st = get_nonneg(r, w, "kernels", &kernels);
	if (st != NS_OK)
		return st;
	out->kernels = kernels > (int64_t)LONG_MAX ? LONG_MAX : (long)kernels;
	/* "busy" (the kernel time) came after the first summaries: without it GPU-Util is unknown */
	out->kernel_ns = -1;
	if (cJSON_GetObjectItemCaseSensitive(w, "busy") != NULL &&
	    (st = get_nonneg(r, w, "busy", &out->kernel_ns)) != NS_OK)
		return st;
	wu = cJSON_GetObjectItemCaseSensitive(w, "warmup");
	out->warmup = cJSON_IsTrue(wu);
	return NS_OK;
}

static ns_status read_pieces(reader *r, const cJSON *c, split_collective *out)
{
	ns_status st;
	const cJSON *x = get_array(r, c, "exposed", &st), *p;

	if (x == NULL)
		return st;
	if (cJSON_GetArraySize(x) > SPLIT_COLL_PIECES)
		return bad(r, "too many pieces");
	cJSON_ArrayForEach(p, x)
	{
		int64_t v[3] = {0, 0, 0};
		int i = 0;
		const cJSON *e;
		if (!cJSON_IsArray(p) || cJSON_GetArraySize(p) != 3)
			return bad(r, "a piece is not [start, end, ns]");
		cJSON_ArrayForEach(e, p)
		{
			if (!cJSON_IsNumber(e) || fabs(e->valuedouble) > EXACT_MAX ||
			    e->valuedouble != floor(e->valuedouble))
				return bad(r, "a piece holds a non-integer");
			v[i++] = (int64_t)e->valuedouble;
		}
		if (v[0] > TIME_OFFSET_MAX || v[0] < -TIME_OFFSET_MAX || v[1] > TIME_OFFSET_MAX ||
		    v[1] < -TIME_OFFSET_MAX || (v[0] > 0 && r->t0 > INT64_MAX - v[0]) ||
		    (v[0] < 0 && r->t0 < INT64_MIN - v[0]) || (v[1] > 0 && r->t0 > INT64_MAX - v[1]) ||
		    (v[1] < 0 && r->t0 < INT64_MIN - v[1]))
			return bad(r, "a piece's time out of range");
		v[0] += r->t0;
		v[1] += r->t0;
		if (v[1] < v[0] || v[2] < 0 || v[2] > v[1] - v[0] || v[0] < out->start_ns ||
		    v[1] > out->end_ns || (out->npieces > 0 && v[0] < out->piece[out->npieces - 1].end_ns))
			return bad(r, "a piece is not in order inside its collective");
		out->piece[out->npieces++] = (split_piece){v[0], v[1], v[2]};
		out->exposed_ns += v[2];
	}
	return NS_OK;
}

static ns_status read_collective(reader *r, const cJSON *c, split_collective *out)
{
	ns_status st;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsObject(c))
		return ns_error_set(r->err, NS_ERR_VALUE, "summary: a collective is not an object");
	st = get_time(r, c, "start", &out->start_ns);
	if (st == NS_OK)
		st = get_time(r, c, "end", &out->end_ns);
	if (st == NS_OK && out->end_ns < out->start_ns)
		st = bad(r, "a collective ends before it starts");
	if (st == NS_OK)
		st = get_int(r, c, "step", true, -1, &out->step);
	if (st == NS_OK)
		st = get_int(r, c, "seq", false, -1, &out->seq);
	if (st == NS_OK)
		st = get_int(r, c, "in", false, -1, &out->in_nelems);
	if (st == NS_OK)
		st = get_int(r, c, "out", false, -1, &out->out_nelems);
	if (st == NS_OK)
		st = get_text(r, c, "name", out->name, sizeof(out->name));
	if (st == NS_OK)
		st = get_text(r, c, "group", out->group, sizeof(out->group));
	if (st == NS_OK)
		st = get_text(r, c, "dtype", out->dtype, sizeof(out->dtype));
	if (st == NS_OK)
		st = read_pieces(r, c, out);
	return st;
}

/* An array of n items of size elem, each read by fn. */
typedef ns_status (*item_fn)(reader *r, const cJSON *item, void *out);

static ns_status read_list(reader *r, const cJSON *obj, const char *key, size_t elem, item_fn fn, void **out,
                           size_t *n)
{
	ns_status st;
	const cJSON *a = get_array(r, obj, key, &st), *v;
	size_t count, i = 0;
	char *items;

	*out = NULL;
	*n = 0;
	if (a == NULL)
		return st;
	count = (size_t)cJSON_GetArraySize(a);
	if (count == 0)
		return NS_OK;
	items = calloc(count, elem);
	if (items == NULL)
		return ns_error_set(r->err, NS_ERR_NOMEM, "out of memory");
	*out = items;
	cJSON_ArrayForEach(v, a)
	{
		*n = i + 1; /* counted before it is read: a half-read item is freed with the others */
		if ((st = fn(r, v, items + i * elem)) != NS_OK)
			return st;
		i++;
	}
	return NS_OK;
}

static ns_status window_item(reader *r, const cJSON *item, void *out)
{
	return read_window(r, item, out);
}

static ns_status collective_item(reader *r, const cJSON *item, void *out)
{
	return read_collective(r, item, out);
}

/* A split's steps follow each other in time: the merger finds a collective's steps by binary search. */
static ns_status check_steps(reader *r, const job_device *d)
{
	at_key(r, "steps", NULL);
	for (size_t i = 1; i < d->nsteps; i++) {
		const split_window *p = &d->steps[i - 1];
		if (d->steps[i].start_ns < p->start_ns + p->dur_ns) {
			snprintf(r->where, sizeof(r->where), "\"steps\"[%zu]", i);
			return bad(r,
			           "starts before the step before it ends (steps follow each other in time)");
		}
	}
	return NS_OK;
}

/* A split gives each exposed instant to one collective, the earlier: the exposed pieces of a device's
 * collectives, taken in order, follow each other in time (the merger's waiting pass relies on it). */
static ns_status check_pieces(reader *r, const job_device *d)
{
	int64_t end = INT64_MIN;

	for (size_t i = 0; i < d->ncoll; i++) {
		const split_collective *c = &d->coll[i];
		if (c->npieces == 0)
			continue;
		if (c->piece[0].start_ns < end) {
			snprintf(r->where, sizeof(r->where), "\"collectives\"[%zu].\"exposed\"", i);
			return bad(
			    r, "starts before an earlier collective's exposed piece ends (an exposed instant "
			       "is one collective's)");
		}
		end = c->piece[c->npieces - 1].end_ns;
	}
	return NS_OK;
}

static ns_status read_device(reader *r, const cJSON *d, job_device *out)
{
	ns_status st;
	const cJSON *ov;
	void *v;

	if (!cJSON_IsObject(d))
		return ns_error_set(r->err, NS_ERR_VALUE, "summary: a device is not an object");
	st = get_int(r, d, "device", true, -1, &out->id);
	if (st == NS_OK)
		st = get_text(r, d, "name", out->name, sizeof(out->name));
	if (st != NS_OK)
		return st;
	ov = cJSON_GetObjectItemCaseSensitive(d, "overall");
	if ((st = read_window(r, ov, &out->overall)) != NS_OK)
		return st;
	st = read_list(r, d, "steps", sizeof(split_window), window_item, &v, &out->nsteps);
	out->steps = v;
	if (st != NS_OK)
		return st;
	if ((st = check_steps(r, out)) != NS_OK)
		return st;
	st = read_list(r, d, "collectives", sizeof(split_collective), collective_item, &v, &out->ncoll);
	out->coll = v;
	return st == NS_OK ? check_pieces(r, out) : st;
}

static ns_status device_item(reader *r, const cJSON *item, void *out)
{
	return read_device(r, item, out);
}

static ns_status read_t0(reader *r, const cJSON *root)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "t0");
	char *end;
	long long t;

	at_key(r, "t0", NULL);
	if (!cJSON_IsString(v))
		return bad(r, v == NULL ? "missing" : "not a string");
	errno = 0;
	t = strtoll(v->valuestring, &end, 10);
	if (errno != 0 || end == v->valuestring || *end != '\0')
		return bad(r, "not a decimal integer");
	r->t0 = (int64_t)t;
	return NS_OK;
}

/* "quality": the trace's grade ("good", "degraded", "unfit"); absent in summaries of before it was written.
 */
static ns_status read_quality(reader *r, const cJSON *root, job_rank *k)
{
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(root, "quality");

	k->quality = -1;
	if (q == NULL)
		return NS_OK;
	at_key(r, "quality", NULL);
	for (int g = QUALITY_GOOD; cJSON_IsString(q) && g <= QUALITY_UNFIT; g++)
		if (strcmp(q->valuestring, quality_grade_name((quality_grade)g)) == 0) {
			k->quality = g;
			return NS_OK;
		}
	return bad(r, "not good, degraded or unfit");
}

static ns_status read_rank_fields(reader *r, const cJSON *root, job_rank *k)
{
	const cJSON *rank = cJSON_GetObjectItemCaseSensitive(root, "rank");
	const cJSON *file = cJSON_GetObjectItemCaseSensitive(root, "file");
	ns_status st;

	if (rank == NULL || cJSON_IsNull(rank)) {
		k->rank = -1;
	} else {
		if ((st = get_int(r, root, "rank", true, -1, &k->rank)) != NS_OK)
			return st;
		if (k->rank < 0 || k->rank >= JOB_MAX_RANKS)
			return bad(r, "out of range");
		k->has_rank = true;
	}
	if ((st = get_int(r, root, "world_size", false, 0, &k->world_size)) != NS_OK)
		return st;
	if (k->world_size < 0 || k->world_size > JOB_MAX_RANKS)
		return bad(r, "out of range");
	if ((st = read_quality(r, root, k)) != NS_OK)
		return st;
	at_key(r, "file", NULL);
	if (file != NULL && !cJSON_IsString(file))
		return bad(r, "not a string");
	const char *name = file != NULL ? file->valuestring : "";
	size_t n = strlen(name), cap = n * NS_UTF8_REPLACEMENT_LEN + 1;
	k->file = malloc(cap);
	if (k->file == NULL)
		return ns_error_set(r->err, NS_ERR_NOMEM, "out of memory");
	ns_utf8_clean(name, n, k->file, cap); /* UTF-8, as get_text() keeps names */
	return NS_OK;
}

static ns_status read_version(reader *r, const cJSON *root)
{
	int64_t version;
	ns_status st = get_int(r, root, "nextstep_summary", true, 0, &version);

	if (st != NS_OK)
		return ns_error_set(r->err, NS_ERR_VALUE,
		                    "not a nextstep summary (no \"nextstep_summary\" version key)");
	if (version != JOB_SUMMARY_VERSION)
		return ns_error_set(r->err, NS_ERR_VALUE,
		                    "summary version %lld, this nextstep reads version %d",
		                    (long long)version, JOB_SUMMARY_VERSION);
	return NS_OK;
}

static ns_status read_root(reader *r, const cJSON *root, job_rank *k)
{
	ns_status st;
	void *v;

	if (!cJSON_IsObject(root))
		return ns_error_set(r->err, NS_ERR_VALUE, "a summary line must be a JSON object");
	if ((st = read_version(r, root)) != NS_OK || (st = read_rank_fields(r, root, k)) != NS_OK ||
	    (st = read_t0(r, root)) != NS_OK)
		return st;
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "devices")) > JOB_MAX_DEVICES)
		return ns_error_set(r->err, NS_ERR_LIMIT, "summary: more than %d devices", JOB_MAX_DEVICES);
	st = read_list(r, root, "devices", sizeof(job_device), device_item, &v, &k->ndev);
	k->dev = v;
	return st;
}

/* Only blanks may follow the object: two summaries run together (files concatenated without a final
 * newline, lines that end in a bare CR) would otherwise be read as the first alone, a rank lost unsaid. */
static ns_status check_nothing_after(const char *line, size_t len, const char *end, ns_error *err)
{
	const char *p = end;

	while (p < line + len && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	if (p == line + len)
		return NS_OK;
	ns_error_set(
	    err, NS_ERR_SYNTAX,
	    "text after the summary's JSON object (two summaries on one line? lines that end in a bare "
	    "CR?)");
	if (err != NULL)
		err->offset = p - line;
	return NS_ERR_SYNTAX;
}

ns_status job_rank_from_ndjson(const char *line, size_t len, job_rank **out, ns_error *err)
{
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(line, len, &end, false);
	reader r = {err, 0, "", NULL, ""};
	job_rank *k;
	ns_status st;

	*out = NULL;
	if (err != NULL)
		err->offset = -1;
	if (root == NULL) {
		st = ns_error_set(err, NS_ERR_SYNTAX, "malformed JSON");
		if (err != NULL && end != NULL && end >= line && end <= line + len)
			err->offset = end - line;
		return st;
	}
	if ((st = check_nothing_after(line, len, end, err)) != NS_OK) {
		cJSON_Delete(root);
		return st;
	}
	k = calloc(1, sizeof(*k));
	if (k == NULL) {
		cJSON_Delete(root);
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	}
	st = read_root(&r, root, k);
	cJSON_Delete(root);
	if (st != NS_OK) {
		job_rank_free(k);
		return st;
	}
	*out = k;
	return NS_OK;
}

/* ---- a stream of summary lines ---- */

typedef struct {
	job_merge *m;
	job_line_error_fn on_error;
	void *ctx;
} line_sink;

static void take_line(const line_sink *k, const char *line, size_t len, long lineno)
{
	job_rank *rank = NULL;
	ns_error err;
	size_t i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	if (i == len)
		return; /* blank lines are allowed between records */
	ns_error_clear(&err);
	if (job_rank_from_ndjson(line, len, &rank, &err) != NS_OK ||
	    job_merge_add(k->m, rank, &err) != NS_OK) {
		err.line = lineno;
		err.index = -1;
		err.offset = -1;
		k->on_error(k->ctx, &err);
	}
}

ns_status job_merge_read(job_merge *m, ns_input *in, job_line_error_fn on_error, void *ctx, ns_error *err)
{
	line_sink k = {m, on_error, ctx};
	size_t cap = 1 << 16, n = 0, start = 0;
	char *buf = malloc(cap);
	long lineno = 1;
	ns_status st = NS_OK;

	if (buf == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	for (;;) {
		if (n == cap && start > 0) { /* slide the unfinished line to the front */
			memmove(buf, buf + start, n - start);
			n -= start;
			start = 0;
		}
		if (n == cap) {
			char *grown = ns_grow_capped(buf, &cap, cap + 1, 1, JOB_LINE_MAX);
			if (grown == NULL) {
				st = ns_error_set(err, cap >= JOB_LINE_MAX ? NS_ERR_LIMIT : NS_ERR_NOMEM,
				                  "a summary line longer than %zu bytes (or out of memory)",
				                  cap);
				err->line = lineno;
				break;
			}
			buf = grown;
		}
		ssize_t got = input_read(in, buf + n, cap - n);
		if (got < 0) {
			st = ns_error_set(err, NS_ERR_IO, "read error");
			break;
		}
		if (got == 0)
			break;
		for (size_t i = n; i < n + (size_t)got; i++) {
			if (buf[i] != '\n')
				continue;
			take_line(&k, buf + start, i - start, lineno++);
			start = i + 1;
		}
		n += (size_t)got;
		if (start == n)
			start = n = 0;
	}
	if (st == NS_OK && n > start)
		take_line(&k, buf + start, n - start, lineno);
	free(buf);
	return st;
}
