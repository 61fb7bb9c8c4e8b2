/* A rank summary: made from a trace split, freed, and written as one NDJSON line. The line's form is in
 * docs/job.md. Times are integer nanoseconds written as offsets from "t0" (itself a decimal string), so they
 * survive JSON numbers (doubles) exactly whatever the clock's epoch. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_private.h"
#include "util/text.h"
#include "util/vec.h"

/* A copy of s as UTF-8 (U+FFFD for the bytes that are not): a file name need not be, a summary line must. */
static char *dup_text(const char *s)
{
	size_t n = strlen(s), cap = n * NS_UTF8_REPLACEMENT_LEN + 1;
	char *d = malloc(cap);

	if (d != NULL)
		ns_utf8_clean(s, n, d, cap);
	return d;
}

static ns_status oom(ns_error *err)
{
	return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
}

/* The evidence of sd's routes, its frames' names copied (cut at NS_JOB_FRAME_NAME_MAX, as a summary read
 * back keeps them). */
static ns_status copy_evidence(const ns_split_result *r, const ns_split_device *sd, ns_job_device *d,
                               ns_error *err)
{
	ns_route_evidence_of(r, sd, &d->evidence);
	for (int h = 0; h < NS_EVIDENCE_HOSTS; h++)
		for (size_t k = 0; k < d->evidence.python[h].nframes; k++) {
			const char *name = d->evidence.python[h].frame[k].name;
			d->evidence.python[h].frame[k].name = NULL;
			if ((d->frame_names[h][k] = malloc(NS_JOB_FRAME_NAME_MAX)) == NULL)
				return oom(err);
			ns_utf8_clean(name, strlen(name), d->frame_names[h][k], NS_JOB_FRAME_NAME_MAX);
			d->evidence.python[h].frame[k].name = d->frame_names[h][k];
		}
	return NS_OK;
}

static ns_status copy_device(const ns_split_result *r, const ns_split_device *sd, ns_job_device *d,
                             ns_error *err)
{
	d->id = sd->id;
	memcpy(d->name, sd->name, sizeof(d->name));
	d->overall = sd->overall;
	if (sd->nsteps > 0) {
		d->steps = malloc(sd->nsteps * sizeof(*d->steps));
		if (d->steps == NULL)
			return oom(err);
		for (size_t i = 0; i < sd->nsteps; i++)
			d->steps[i] = ns_split_device_step(sd, i);
		d->nsteps = sd->nsteps;
		if (sd->step_stall_ns != NULL) {
			if ((d->step_stall_ns = malloc(sd->nsteps * sizeof(*d->step_stall_ns))) == NULL)
				return oom(err);
			memcpy(d->step_stall_ns, sd->step_stall_ns, sd->nsteps * sizeof(*d->step_stall_ns));
		}
	}
	if (sd->ncoll > 0) {
		d->coll = malloc(sd->ncoll * sizeof(*d->coll));
		if (d->coll == NULL)
			return oom(err);
		memcpy(d->coll, sd->coll, sd->ncoll * sizeof(*d->coll));
		d->ncoll = sd->ncoll;
	}
	return copy_evidence(r, sd, d, err);
}

ns_status ns_job_rank_from_split(const ns_split_result *r, const char *file, ns_job_rank **out, ns_error *err)
{
	ns_job_rank *k = calloc(1, sizeof(*k));
	ns_status st = NS_OK;

	*out = NULL;
	if (k == NULL)
		return oom(err);
	k->has_rank = r->has_rank;
	k->rank = r->has_rank ? r->rank : -1;
	k->world_size = r->world_size;
	k->quality = (int)r->quality.grade;
	k->host_stalls = r->host_stalls;
	k->host_stall_ns = r->host_stall_ns;
	k->alloc_calls = r->alloc_calls;
	k->alloc_ns = r->alloc_ns;
	k->file = dup_text(file != NULL ? file : "");
	if (r->ndevices > 0)
		k->dev = calloc(r->ndevices, sizeof(*k->dev));
	if (k->file == NULL || (r->ndevices > 0 && k->dev == NULL))
		st = oom(err);
	for (size_t i = 0; st == NS_OK && k->dev != NULL && i < r->ndevices; i++) {
		k->ndev++;
		st = copy_device(r, &r->device[i], &k->dev[i], err);
	}
	if (st != NS_OK) {
		ns_job_rank_free(k);
		return st;
	}
	*out = k;
	return NS_OK;
}

void ns_job_rank_set_roof(ns_job_rank *rank, const ns_split_result *res, const ns_troof_report *roof)
{
	for (size_t i = 0; roof != NULL && i < rank->ndev && i < res->ndevices; i++) {
		ns_roof_time t[NS_KCLASS_COUNT];
		ns_troof_roof_times(roof, res, &res->device[i], t);
		for (int k = 0; k < NS_KCLASS_COUNT; k++)
			if (t[k].state == NS_ROOF_PLACED)
				rank->dev[i].roof[k] = t[k];
	}
}

void ns_job_rank_free(ns_job_rank *rank)
{
	if (rank == NULL)
		return;
	for (size_t i = 0; i < rank->ndev; i++) {
		free(rank->dev[i].steps);
		free(rank->dev[i].step_stall_ns);
		free(rank->dev[i].coll);
		for (int h = 0; h < NS_EVIDENCE_HOSTS; h++)
			for (int k = 0; k < NS_EVIDENCE_FRAMES; k++)
				free(rank->dev[i].frame_names[h][k]);
	}
	free(rank->dev);
	free(rank->file);
	free(rank);
}

/* ---- writing ---- */

typedef struct {
	char *p;
	size_t n, cap;
	bool nomem;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One formatting of the arguments, tried again after growing: a copy of the list each time (clang's
 * analyzer loses a va_start made inside the loop). */
static void put(sbuf *b, const char *fmt, ...)
{
	va_list ap;

	if (b->nomem)
		return;
	va_start(ap, fmt);
	for (;;) {
		va_list aq;
		int n;
		va_copy(aq, ap);
		n = vsnprintf(b->p + b->n, b->cap - b->n, fmt, aq);
		va_end(aq);
		if (n < 0) {
			b->nomem = true;
			break;
		}
		if ((size_t)n < b->cap - b->n) {
			b->n += (size_t)n;
			break;
		}
		char *grown = ns_grow(b->p, &b->cap, b->n + (size_t)n + 1, 1);
		if (grown == NULL) {
			b->nomem = true;
			break;
		}
		b->p = grown;
	}
	va_end(ap);
}

/* A JSON string: quote, backslash and control bytes escaped, other bytes as they are. */
static void put_string(sbuf *b, const char *s)
{
	put(b, "\"");
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			put(b, "\\%c", c);
		else if (c < 0x20)
			put(b, "\\u%04x", c);
		else
			put(b, "%c", c);
	}
	put(b, "\"");
}

/* stall: the host stalls' time in the window (a step of a rank with stalls), -1 to write none. */
static void put_window(sbuf *b, const ns_split_window *w, int64_t t0, int64_t stall)
{
	bool first = true;

	put(b, "{\"step\":%" PRId64 ",\"start\":%" PRId64 ",\"dur\":%" PRId64 ",\"b\":[", w->step,
	    w->start_ns - t0, w->dur_ns);
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		put(b, "%s%" PRId64, r > 0 ? "," : "", w->bucket_ns[r]);
	put(b, "],\"c\":{");
	for (int c = 0; c < NS_CAUSE_COUNT; c++) {
		char key[64];
		if (w->cause_ns[c] == 0)
			continue;
		ns_cause_key((ns_cause)c, key, sizeof(key));
		put(b, "%s\"%s\":%" PRId64, first ? "" : ",", key, w->cause_ns[c]);
		first = false;
	}
	put(b, "},\"hidden\":%" PRId64 ",\"kernels\":%ld", w->comm_overlapped_ns, w->kernels);
	if (w->kernel_ns >= 0)
		put(b, ",\"busy\":%" PRId64, w->kernel_ns);
	if (stall >= 0)
		put(b, ",\"stall\":%" PRId64, stall);
	put(b, "%s}", w->warmup ? ",\"warmup\":true" : "");
}

static void put_collective(sbuf *b, const ns_split_collective *c, int64_t t0)
{
	put(b, "{\"start\":%" PRId64 ",\"end\":%" PRId64 ",\"step\":%" PRId64, c->start_ns - t0,
	    c->end_ns - t0, c->step);
	if (c->seq >= 0)
		put(b, ",\"seq\":%" PRId64, c->seq);
	if (c->in_nelems >= 0)
		put(b, ",\"in\":%" PRId64, c->in_nelems);
	if (c->out_nelems >= 0)
		put(b, ",\"out\":%" PRId64, c->out_nelems);
	if (c->name[0] != '\0') {
		put(b, ",\"name\":");
		put_string(b, c->name);
	}
	if (c->group[0] != '\0') {
		put(b, ",\"group\":");
		put_string(b, c->group);
	}
	if (c->dtype[0] != '\0') {
		put(b, ",\"dtype\":");
		put_string(b, c->dtype);
	}
	put(b, ",\"exposed\":[");
	for (unsigned i = 0; i < c->npieces; i++)
		put(b, "%s[%" PRId64 ",%" PRId64 ",%" PRId64 "]", i > 0 ? "," : "", c->piece[i].start_ns - t0,
		    c->piece[i].end_ns - t0, c->piece[i].ns);
	put(b, "]}");
}

/* The keys of the evidence's host causes (cause.h keys). */
static const char *const evidence_hosts[NS_EVIDENCE_HOSTS] = {"idle.host_gap", "overhead.launch"};

static void put_python(sbuf *b, const ns_route_evidence *e)
{
	bool first = true;

	put(b, ",\"python\":{");
	for (int h = 0; h < NS_EVIDENCE_HOSTS; h++) {
		const ns_evidence_python *p = &e->python[h];
		if (p->framed_ns == 0 && p->nframes == 0)
			continue;
		put(b, "%s\"%s\":{\"framed\":%" PRId64 ",\"frames\":[", first ? "" : ",", evidence_hosts[h],
		    p->framed_ns);
		for (size_t k = 0; k < p->nframes; k++) {
			put(b, "%s[", k > 0 ? "," : "");
			put_string(b, p->frame[k].name);
			put(b, ",%" PRId64 "]", p->frame[k].ns);
		}
		put(b, "]}");
		first = false;
	}
	put(b, "}");
}

static const char *const program_kinds[] = {
    [NS_PROGRAM_UNKNOWN] = "unknown", [NS_PROGRAM_PYTHON] = "python", [NS_PROGRAM_NATIVE] = "native"};

static void put_program(sbuf *b, const ns_program_info *p)
{
	put(b, ",\"nsys\":{\"program\":\"%s\",\"osrt\":%s,\"cpu_samples\":%s,\"samples_read\":%s,\"mpi\":%s}",
	    program_kinds[p->kind], p->osrt ? "true" : "false", p->cpu_samples ? "true" : "false",
	    p->samples_read ? "true" : "false", p->mpi ? "true" : "false");
}

/* The evidence the rank's routes are decided from (docs/job.md, "Rank summaries"): only what can change a
 * route, so that a summary whose trace has none keeps its bytes. The leading comma is written here. */
/* The kernel classes placed on the roofline (ns_job_device.roof), leading comma written here. */
static void put_roof(sbuf *b, const ns_job_device *d)
{
	static const char *const names[NS_KCLASS_COUNT] = {"compute", "memory", "comm"};
	bool first = true;

	put(b, ",\"roof\":{");
	for (int k = 0; k < NS_KCLASS_COUNT; k++) {
		const ns_roof_time *t = &d->roof[k];
		if (t->state != NS_ROOF_PLACED)
			continue;
		put(b,
		    "%s\"%s\":{\"kernel\":%" PRId64 ",\"placed\":%" PRId64 ",\"roof\":%" PRId64
		    ",\"own\":%" PRId64 ",\"fp32\":%" PRId64 ",\"fp8_roof\":%" PRId64 ",\"fp8\":%" PRId64 "}",
		    first ? "" : ",", names[k], t->kernel_ns, t->placed_ns, t->roof_ns, t->own_roof_ns,
		    t->fp32_ns, t->fp8_roof_ns, t->fp8_ns);
		first = false;
	}
	put(b, "}");
}

bool job_device_placed(const ns_job_device *d)
{
	for (int k = 0; k < NS_KCLASS_COUNT; k++)
		if (d->roof[k].state == NS_ROOF_PLACED)
			return true;
	return false;
}

static void put_evidence(sbuf *b, const ns_job_device *d)
{
	const ns_route_evidence *e = &d->evidence;
	bool roof = job_device_placed(d);
	bool python = e->python_frames, kernels = e->layout_ns > 0 || e->fp32_ns > 0,
	     coll = e->tp_exposed_ns > 0, stalls = e->host_stall_idle_known,
	     optimizer = e->optimizer_known &&
	                 (d->overall.cause_ns[NS_CAUSE_OPTIMIZER] > 0 || e->optimizer_launch_ns > 0);

	if (!python && !e->compiled && !e->nsys && e->capture_ns == 0 && !kernels && !e->inference && !coll &&
	    !optimizer && !stalls && !roof)
		return;
	put(b, ",\"evidence\":{\"frames\":%s", python ? "true" : "false");
	if (e->compiled)
		put(b, ",\"compiled\":true");
	if (e->nsys)
		put_program(b, &e->program);
	if (e->capture_ns > 0)
		put(b, ",\"capture\":%" PRId64, e->capture_ns);
	if (python)
		put_python(b, e);
	if (kernels)
		put(b,
		    ",\"kernels\":{\"memory\":%" PRId64 ",\"layout\":%" PRId64 ",\"compute\":%" PRId64
		    ",\"fp32\":%" PRId64 "}",
		    e->memory_ns, e->layout_ns, e->compute_ns, e->fp32_ns);
	if (e->inference)
		put(b, ",\"inference\":true");
	if (coll)
		put(b, ",\"collectives\":{\"exposed\":%" PRId64 ",\"tp\":%" PRId64 "}", e->coll_exposed_ns,
		    e->tp_exposed_ns);
	if (stalls)
		put(b, ",\"host_stall_idle\":%" PRId64, e->host_stall_idle_ns);
	if (optimizer) {
		put(b, ",\"optimizer\":{\"class\":");
		put_string(b, e->optimizer);
		put(b, ",\"fused\":%s,\"launch\":%" PRId64 "}", e->optimizer_fused ? "true" : "false",
		    e->optimizer_launch_ns);
	}
	if (roof)
		put_roof(b, d);
	put(b, "}");
}

static void put_device(sbuf *b, const ns_job_device *d, int64_t t0)
{
	put(b, "{\"device\":%" PRId64 ",\"name\":", d->id);
	put_string(b, d->name);
	put(b, ",\"overall\":");
	put_window(b, &d->overall, t0, -1);
	put(b, ",\"steps\":[");
	for (size_t i = 0; i < d->nsteps; i++) {
		put(b, "%s", i > 0 ? "," : "");
		put_window(b, &d->steps[i], t0, d->step_stall_ns != NULL ? d->step_stall_ns[i] : -1);
	}
	put(b, "],\"collectives\":[");
	for (size_t i = 0; i < d->ncoll; i++) {
		put(b, "%s", i > 0 ? "," : "");
		put_collective(b, &d->coll[i], t0);
	}
	put(b, "]");
	put_evidence(b, d);
	put(b, "}");
}

static int64_t min_i64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* The earliest time in the summary, so that every written offset is non-negative (and, for a summary read
 * back, within the 2^53 a JSON number holds exactly: the reader keeps times within 2^52 of its t0). */
static int64_t summary_t0(const ns_job_rank *k)
{
	int64_t t0 = INT64_MAX;

	for (size_t i = 0; i < k->ndev; i++) {
		const ns_job_device *d = &k->dev[i];
		t0 = min_i64(t0, d->overall.start_ns);
		for (size_t s = 0; s < d->nsteps; s++)
			t0 = min_i64(t0, d->steps[s].start_ns);
		for (size_t c = 0; c < d->ncoll; c++) {
			t0 = min_i64(t0, d->coll[c].start_ns);
			t0 = min_i64(t0, d->coll[c].end_ns);
			for (unsigned p = 0; p < d->coll[c].npieces; p++)
				t0 = min_i64(t0, d->coll[c].piece[p].start_ns);
		}
	}
	return t0 == INT64_MAX ? 0 : t0;
}

/* The host stalls and allocator calls, only when there are: summaries without them keep their bytes. */
static void put_host_counts(sbuf *b, const ns_job_rank *k)
{
	if (k->host_stalls > 0)
		put(b, ",\"host_stalls\":%" PRId64 ",\"host_stall_ns\":%" PRId64, k->host_stalls,
		    k->host_stall_ns);
	if (k->alloc_calls > 0)
		put(b, ",\"alloc_calls\":%" PRId64 ",\"alloc_ns\":%" PRId64, k->alloc_calls, k->alloc_ns);
}

char *ns_job_rank_to_ndjson(const ns_job_rank *k)
{
	sbuf b = {NULL, 0, 0, false};
	int64_t t0 = summary_t0(k);

	b.p = malloc(256);
	if (b.p == NULL)
		return NULL;
	b.cap = 256;
	put(&b, "{\"nextstep_summary\":%d,\"rank\":", NS_JOB_SUMMARY_VERSION);
	if (k->has_rank)
		put(&b, "%" PRId64, k->rank);
	else
		put(&b, "null");
	put(&b, ",\"world_size\":%" PRId64, k->world_size);
	if (k->quality >= 0)
		put(&b, ",\"quality\":\"%s\"", ns_quality_grade_name((ns_quality_grade)k->quality));
	put_host_counts(&b, k);
	put(&b, ",\"file\":");
	put_string(&b, k->file != NULL ? k->file : "");
	put(&b, ",\"t0\":\"%" PRId64 "\",\"devices\":[", t0);
	for (size_t i = 0; i < k->ndev; i++) {
		put(&b, "%s", i > 0 ? "," : "");
		put_device(&b, &k->dev[i], t0);
	}
	put(&b, "]}");
	if (b.nomem) {
		free(b.p);
		return NULL;
	}
	return b.p;
}
