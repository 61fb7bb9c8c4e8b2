/* Unit tests for the streaming trace reader. Every document is read twice: from a file (big reads) and
 * through a pipe that hands over 1-7 bytes at a time, so every token straddles a chunk boundary. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <zlib.h>

#include "nextstep/trace_read.h"

#define MAX_KEPT 8
#define TEXT_MAX 96

typedef enum { VIA_FILE, VIA_TINY_PIPE, VIA_COUNT } via;
static const char *const via_name[] = {"file", "tiny pipe"};

/* What a callback saw, with string slices copied out (they are valid only during the callback). */
typedef struct {
	long n;
	ns_trace_event ev[MAX_KEPT];
	char name[MAX_KEPT][TEXT_MAX], cat[MAX_KEPT][TEXT_MAX], dims[MAX_KEPT][TEXT_MAX],
	    types[MAX_KEPT][TEXT_MAX], meta[MAX_KEPT][TEXT_MAX];
	unsigned long long digest; /* over every event, for comparing two reads of one document */
	long stop_after;           /* return NS_ERR_VALUE from this event on (-1: never) */
} collected;

static void copy_text(char *dst, ns_str s)
{
	size_t n = s.len < TEXT_MAX - 1 ? s.len : TEXT_MAX - 1;
	if (n > 0) /* an absent slice has a NULL ptr */
		memcpy(dst, s.ptr, n);
	dst[n] = '\0';
}

static unsigned long long mix(unsigned long long h, unsigned long long v)
{
	return (h ^ v) * 1099511628211ull;
}

static ns_status collect(const ns_trace_event *ev, void *ctx, ns_error *err)
{
	collected *c = ctx;

	c->digest = mix(c->digest, (unsigned long long)ev->ts_ns);
	c->digest = mix(c->digest, (unsigned long long)ev->dur_ns);
	c->digest = mix(c->digest, (unsigned long long)ev->pid ^ ((unsigned long long)ev->tid << 1));
	c->digest = mix(c->digest, (unsigned long long)ev->cat * 31 + (unsigned long long)ev->ph);
	for (size_t i = 0; i < ev->name.len; i++)
		c->digest = mix(c->digest, (unsigned char)ev->name.ptr[i]);
	if (c->n < MAX_KEPT) {
		c->ev[c->n] = *ev;
		copy_text(c->name[c->n], ev->name);
		copy_text(c->cat[c->n], ev->cat_raw);
		copy_text(c->dims[c->n], ev->input_dims);
		copy_text(c->types[c->n], ev->input_types);
		copy_text(c->meta[c->n], ev->meta_name);
	}
	c->n++;
	if (c->stop_after >= 0 && ev->index >= c->stop_after)
		return ns_error_set(err, NS_ERR_VALUE, "stopped by the callback");
	return NS_OK;
}

/* The pipe writer hands over one small piece, then waits until the reader has drained it. */
typedef struct {
	int fd, read_fd;
	const unsigned char *data;
	size_t len;
	atomic_int reader_done;
} trickle;

static void *trickle_writer(void *arg)
{
	trickle *t = arg;
	unsigned seed = 7;

	for (size_t pos = 0; pos < t->len && !atomic_load(&t->reader_done);) {
		size_t n = 1 + (size_t)(rand_r(&seed) % 7);
		ssize_t put;
		int pending = 1;
		if (n > t->len - pos)
			n = t->len - pos;
		put = write(t->fd, t->data + pos, n);
		if (put <= 0)
			break;
		pos += (size_t)put;
		while (pending > 0 && !atomic_load(&t->reader_done)) {
			if (ioctl(t->read_fd, FIONREAD, &pending) != 0)
				break;
			if (pending > 0)
				sched_yield();
		}
	}
	close(t->fd);
	return NULL;
}

/* Reads doc into fn from a file or through the trickling pipe. */
static ns_status read_with(via how, const void *doc, size_t len, ns_trace_event_fn fn, void *ctx,
                           ns_trace_meta *meta, ns_error *err)
{
	ns_input in;
	ns_status st;

	if (how == VIA_FILE) {
		char path[] = "/tmp/test_trace_read.XXXXXX";
		int fd = mkstemp(path);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, doc, len), (ssize_t)len);
		close(fd);
		ck_assert_int_eq(ns_input_open(&in, path, err), NS_OK);
		unlink(path);
		st = ns_trace_read(&in, fn, ctx, meta, err);
		ns_input_close(&in);
		return st;
	}
	int fds[2];
	pthread_t writer;
	trickle t = {.data = doc, .len = len};
	ck_assert_int_eq(pipe(fds), 0);
	t.fd = fds[1];
	t.read_fd = fds[0];
	atomic_init(&t.reader_done, 0);
	ck_assert_int_eq(pthread_create(&writer, NULL, trickle_writer, &t), 0);
	memset(&in, 0, sizeof(in));
	in.fd = fds[0];
	in.name = "pipe";
	st = ns_trace_read(&in, fn, ctx, meta, err);
	atomic_store(&t.reader_done, 1);
	pthread_join(writer, NULL);
	close(fds[0]);
	return st;
}

static ns_status read_via(via how, const void *doc, size_t len, collected *c, ns_trace_meta *meta,
                          ns_error *err)
{
	memset(c, 0, sizeof(*c));
	c->stop_after = -1;
	return read_with(how, doc, len, collect, c, meta, err);
}

static ns_status read_doc(via how, const char *doc, collected *c, ns_trace_meta *meta, ns_error *err)
{
	return read_via(how, doc, strlen(doc), c, meta, err);
}

/* ---- timestamps: exact decimal microseconds to integer nanoseconds ---- */

typedef struct {
	const char *text;
	int64_t ns;
} time_case;

static const time_case time_cases[] = {
    {"0", 0},
    {"123", 123000},
    {"1.5", 1500},
    {"0.123", 123},
    {"321456789012.345", 321456789012345LL},
    {"4458676522690.655", 4458676522690655LL},
    {"1695835542514261", 1695835542514261000LL},
    {"68.0", 68000},
    {"-2.5", -2500},
    {"1.0005", 1001},     /* a fourth decimal rounds half away from zero */
    {"1.00049999", 1000}, /* ... and only from one half up */
    {"-1.0005", -1001},
    {"0.0004", 0},
    {"1e3", 1000000},
    {"1.5E-3", 2},
    {"2.5e+1", 25000},
    {"12345e-6", 12},
    {"9223372036854775", 9223372036854775000LL},
    {"1695835542514261.999", 1695835542514261999LL}, /* 19 digits of nanoseconds */
    {"9223372036854775.807", INT64_MAX},
    {"0.000000000000000000000000001", 0},
    {"100000000000000000000e-20", 1000}, /* 21 digits, scaled back into range */
    {"100000000000000000000e-17", 1000000},
    {"1e-4", 0},
    {"5e-4", 1},
    /* integer parts around the reader's eight-digit loads: 7, 8, 9, 15 and 16 digits (16 is the most
     * that microseconds with three decimals hold in 19 digits of nanoseconds) */
    {"1234567", 1234567000LL},
    {"12345678", 12345678000LL},
    {"99999999", 99999999000LL},
    {"123456789", 123456789000LL},
    {"12345678.5", 12345678500LL},
    {"87654321.001", 87654321001LL},
    {"876543210987654", 876543210987654000LL},
    {"1234567890123456", 1234567890123456000LL},
    {"1000000000000000.5", 1000000000000000500LL},
};

START_TEST(ts_converts_decimal_microseconds_exactly_to_nanoseconds)
{
	const time_case *tc = &time_cases[_i];
	char doc[256];
	collected c;
	ns_trace_meta meta;
	ns_error err;

	snprintf(doc, sizeof(doc), "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":%s,\"dur\":%s}]}", tc->text,
	         tc->ns >= 0 ? tc->text : "0");
	for (int how = 0; how < VIA_COUNT; how++) {
		ck_assert_msg(read_doc(how, doc, &c, &meta, &err) == NS_OK, "%s via %s: %s", tc->text,
		              via_name[how], err.msg);
		ck_assert_int_eq(c.n, 1);
		ck_assert(c.ev[0].has_ts);
		ck_assert_msg(c.ev[0].ts_ns == tc->ns, "%s: got %lld", tc->text, (long long)c.ev[0].ts_ns);
		if (tc->ns >= 0)
			ck_assert_int_eq(c.ev[0].dur_ns, tc->ns);
	}
}
END_TEST

/* ---- categories: both spellings map to one value ---- */

typedef struct {
	const char *cat;
	ns_trace_category want;
} category_case;

static const category_case category_cases[] = {
    {"cpu_op", NS_TCAT_CPU_OP},
    {"Operator", NS_TCAT_CPU_OP},
    {"user_annotation", NS_TCAT_USER_ANNOTATION},
    {"gpu_user_annotation", NS_TCAT_GPU_USER_ANNOTATION},
    {"cuda_runtime", NS_TCAT_RUNTIME},
    {"Runtime", NS_TCAT_RUNTIME},
    {"cuda_driver", NS_TCAT_RUNTIME},
    {"kernel", NS_TCAT_KERNEL},
    {"Kernel", NS_TCAT_KERNEL},
    {"gpu_memcpy", NS_TCAT_MEMCPY},
    {"Memcpy", NS_TCAT_MEMCPY},
    {"gpu_memset", NS_TCAT_MEMSET},
    {"Memset", NS_TCAT_MEMSET},
    {"ac2g", NS_TCAT_FLOW},
    {"python_function", NS_TCAT_PYTHON},
    {"Trace", NS_TCAT_OTHER},
    {"kernels", NS_TCAT_OTHER},
    {"", NS_TCAT_OTHER},
};

START_TEST(category_maps_both_spellings_to_one_value)
{
	const category_case *cc = &category_cases[_i];
	char doc[256];
	collected c;
	ns_trace_meta meta;
	ns_error err;

	snprintf(doc, sizeof(doc), "{\"traceEvents\":[{\"cat\":\"%s\",\"ph\":\"X\",\"ts\":1,\"dur\":1}]}",
	         cc->cat);
	for (int how = 0; how < VIA_COUNT; how++) {
		ck_assert_int_eq(read_doc(how, doc, &c, &meta, &err), NS_OK);
		ck_assert_int_eq(c.ev[0].cat, cc->want);
		ck_assert_str_eq(c.cat[0], cc->cat);
	}
}
END_TEST

/* ---- whole events: fields, ids, args ---- */

typedef struct {
	const char *what;
	const char *doc;
	long events;
	int at; /* the event whose fields are checked */
	char ph;
	const char *name; /* as written, escapes kept */
	int64_t pid, tid; /* STRING_ID: expect a hashed string id */
	bool has_ts, has_dur;
	int64_t ts_ns, dur_ns;
	int64_t device, stream, correlation, external_id;
	double flops;
	const char *dims;
	const char *types;
} event_case;

#define KERNEL_DOC                                                                                           \
	"{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sgemm\",\"pid\":0,\"tid\":7,\"ts\":"  \
	"10,"                                                                                                \
	"\"dur\":2.5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":42,\"External "                     \
	"id\":9,\"queued\":0}}]}"
#define STRING_ID INT64_MIN
#define NO_ARGS   -1, -1, -1, -1, -1.0, "", ""

static const event_case event_cases[] = {
    {"a kernel with every field", KERNEL_DOC, 1, 0, 'X', "sgemm", 0, 7, true, true, 10000, 2500, 0, 7, 42, 9,
     -1.0, "", ""},
    {"string tids hash with bit 62 set",
     "{\"traceEvents\":[{\"ph\":\"X\",\"pid\":\"Spans\",\"tid\":\"stream "
     "7\",\"ts\":1,\"dur\":2}]}",
     1, 0, 'X', "", STRING_ID, STRING_ID, true, true, 1000, 2000, NO_ARGS},
    {"escapes in names stay as written",
     "{\"traceEvents\":[{\"name\":\"a\\\"b\\\\c\\u00e9\\n\",\"ph\":\"i\",\"ts\":5,\"pid\":1,\"tid\":2}]}", 1,
     0, 'i', "a\\\"b\\\\c\\u00e9\\n", 1, 2, true, false, 5000, 0, NO_ARGS},
    {"metadata events need no ts",
     "{\"traceEvents\":[{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":3,\"tid\":0,"
     "\"args\":{\"name\":\"python\"}}]}",
     1, 0, 'M', "process_name", 3, 0, false, false, 0, 0, NO_ARGS},
    {"unknown keys and nested values are skipped",
     "{\"traceEvents\":[{\"x\":{\"a\":[1,2,{\"b\":null}],\"c\":true},\"ph\":\"X\",\"name\":\"n\",\"ts\":1,"
     "\"dur\":1,"
     "\"y\":[[],{}],\"z\":-1.5e-3,\"args\":{\"grid\":[1,1,1],\"Call stack\":\"f(1);g\",\"stream\":3}}]}",
     1, 0, 'X', "n", -1, -1, true, true, 1000, 1000, -1, 3, -1, -1, -1.0, "", ""},
    {"Input Dims keeps its raw JSON text",
     "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"ts\":1,\"dur\":1,\"args\":{"
     "\"Input Dims\": [[2, 3], [3, 4]],\"External id\":5,\"flops\":48}}]}",
     1, 0, 'X', "aten::mm", -1, -1, true, true, 1000, 1000, -1, -1, -1, 5, 48.0, "[[2, 3], [3, 4]]", ""},
    {"Input type keeps its raw JSON text",
     "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"ts\":1,\"dur\":1,"
     "\"args\":{\"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"\"],\"Input Dims\":[[4], [2, 3], "
     "[3, "
     "4]]}}]}",
     1, 0, 'X', "aten::addmm", -1, -1, true, true, 1000, 1000, -1, -1, -1, -1, -1.0, "[[4], [2, 3], [3, 4]]",
     "[\"c10::BFloat16\", \"c10::BFloat16\", \"\"]"},
    {"the older external id spelling is read",
     "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"Runtime\",\"ts\":1,\"dur\":1,\"args\":{\"external id\":537,"
     "\"correlation\":34417}}]}",
     1, 0, 'X', "", -1, -1, true, true, 1000, 1000, -1, -1, 34417, 537, -1.0, "", ""},
    {"an event of another phase without dur reports it absent", "{\"traceEvents\":[{\"ph\":\"i\",\"ts\":1}]}",
     1, 0, 'i', "", -1, -1, true, false, 1000, 0, NO_ARGS},
    {"other phases pass through",
     "{\"traceEvents\":[{\"ph\":\"s\",\"id\":1,\"ts\":1},{\"ph\":\"f\",\"ts\":2,"
     "\"bp\":\"e\"},{\"ph\":\"C\",\"ts\":3}]}",
     3, 2, 'C', "", -1, -1, true, false, 3000, 0, NO_ARGS},
    {"empty traceEvents is not an error", "{\"schemaVersion\":1,\"traceEvents\":[]}", 0, -1, 0, "", 0, 0,
     false, false, 0, 0, NO_ARGS},
    {"whitespace anywhere is allowed",
     " \n{ \"traceEvents\" :\t[ { \"ph\" : \"X\" , \"ts\" : 7 , \"dur\" : 0 } , { } ] , \"a\" : [ ] }\r\n ",
     2, 0, 'X', "", -1, -1, true, true, 7000, 0, NO_ARGS},
    {"large pids and negative ids are numbers",
     "{\"traceEvents\":[{\"ph\":\"X\",\"pid\":2910249,\"tid\":-5,\"ts\":4458676522690.655,\"dur\":156.777}]}",
     1, 0, 'X', "", 2910249, -5, true, true, 4458676522690655LL, 156777, NO_ARGS},
};

static void check_id(int64_t got, int64_t want, const char *what)
{
	if (want == STRING_ID)
		ck_assert_msg(got > 0 && (got & (1LL << 62)) != 0, "%s: %lld is not a string id", what,
		              (long long)got);
	else
		ck_assert_msg(got == want, "%s: got %lld want %lld", what, (long long)got, (long long)want);
}

START_TEST(event_fields_are_read_as_written)
{
	const event_case *ec = &event_cases[_i];
	collected c;
	ns_trace_meta meta;
	ns_error err;

	for (int how = 0; how < VIA_COUNT; how++) {
		ck_assert_msg(read_doc(how, ec->doc, &c, &meta, &err) == NS_OK, "%s via %s: byte %lld: %s",
		              ec->what, via_name[how], err.offset, err.msg);
		ck_assert_int_eq(c.n, ec->events);
		ck_assert_int_eq(meta.events, ec->events);
		ck_assert_int_eq(meta.bytes, (long long)strlen(ec->doc));
		ck_assert(!meta.compressed);
		if (ec->at < 0)
			continue;
		const ns_trace_event *ev = &c.ev[ec->at];
		ck_assert_int_eq(ev->index, ec->at);
		ck_assert_int_eq(ev->ph, ec->ph);
		ck_assert_str_eq(c.name[ec->at], ec->name);
		check_id(ev->pid, ec->pid, "pid");
		check_id(ev->tid, ec->tid, "tid");
		ck_assert_int_eq(ev->has_ts, ec->has_ts);
		ck_assert_int_eq(ev->has_dur, ec->has_dur);
		if (ec->has_ts)
			ck_assert_int_eq(ev->ts_ns, ec->ts_ns);
		if (ec->has_dur)
			ck_assert_int_eq(ev->dur_ns, ec->dur_ns);
		ck_assert_int_eq(ev->device, ec->device);
		ck_assert_int_eq(ev->stream, ec->stream);
		ck_assert_int_eq(ev->correlation, ec->correlation);
		ck_assert_int_eq(ev->external_id, ec->external_id);
		ck_assert_double_eq(ev->flops, ec->flops);
		ck_assert_str_eq(c.dims[ec->at], ec->dims);
		ck_assert_str_eq(c.types[ec->at], ec->types);
		ck_assert_int_eq(ec->doc[ev->offset], '{');
	}
}
END_TEST

START_TEST(string_ids_are_stable_and_distinct)
{
	const char *doc =
	    "{\"traceEvents\":[{\"tid\":\"stream 7\"},{\"tid\":\"stream 7\"},{\"tid\":\"stream 8\"},"
	    "{\"tid\":\"\"}]}";
	collected c;
	ns_trace_meta meta;
	ns_error err;

	ck_assert_int_eq(read_doc(VIA_FILE, doc, &c, &meta, &err), NS_OK);
	ck_assert_int_eq(c.n, 4);
	ck_assert_int_eq(c.ev[0].tid, c.ev[1].tid);
	ck_assert_int_ne(c.ev[0].tid, c.ev[2].tid);
	check_id(c.ev[3].tid, STRING_ID, "empty string tid");
}
END_TEST

/* The reader keeps each thread's last short ids (issue 27): a number that shares a prefix, a length or an
 * ending with the one before it must still be read as written, including a number cut by the pipe's small
 * reads. */
typedef struct {
	long n;
	int64_t pid[32], tid[32], device[32], stream[32];
} id_list;

static ns_status keep_ids(const ns_trace_event *ev, void *ctx, ns_error *err)
{
	id_list *l = ctx;

	(void)err;
	if (l->n < 32) {
		l->pid[l->n] = ev->pid;
		l->tid[l->n] = ev->tid;
		l->device[l->n] = ev->device;
		l->stream[l->n] = ev->stream;
	}
	l->n++;
	return NS_OK;
}

START_TEST(repeated_ids_are_read_as_written_each_time)
{
	static const struct {
		const char *pid, *tid, *device, *stream;
		int64_t want_pid, want_tid, want_device, want_stream;
	} rows[] = {
	    {"12", "7", "0", "7", 12, 7, 0, 7},
	    {"123", "7 ", "0", "7", 123, 7, 0, 7},
	    {"12", "70", "1", "17", 12, 70, 1, 17},
	    {"1234567", "7", "0", "7", 1234567, 7, 0, 7},
	    {"12345678", "7", "10", "7", 12345678, 7, 10, 7},
	    {"1234567", "-7", "0", "77", 1234567, -7, 0, 77},
	    {"1234568", "7", "0", "7", 1234568, 7, 0, 7},
	    {"-5", "7", "0", "7", -5, 7, 0, 7},
	    {"5", "1.5", "0", "7", 5, 2, 0, 7},
	    {"-5", "1.5", "0.4", "7", -5, 2, 0, 7},
	    {"1e3", "1.5", "0", "7", 1000, 2, 0, 7},
	    {"1e3 ", "15", "0", "7", 1000, 15, 0, 7},
	    {"1e4", "1", "0", "7", 10000, 1, 0, 7},
	    {"2910249", "2910249", "0", "7", 2910249, 2910249, 0, 7},
	    {"2910249", "2910250", "0", "7", 2910249, 2910250, 0, 7},
	    {"0", "7", "0", "7", 0, 7, 0, 7},
	};
	enum { ROW_COUNT = sizeof(rows) / sizeof(rows[0]) };
	char doc[4096];
	size_t at = 0;

	at += (size_t)snprintf(doc + at, sizeof(doc) - at, "{\"traceEvents\":[");
	for (int i = 0; i < ROW_COUNT; i++)
		at += (size_t)snprintf(doc + at, sizeof(doc) - at,
		                       "%s{\"ph\":\"i\",\"pid\":%s,\"tid\":%s,\"ts\":1,"
		                       "\"args\":{\"device\":%s,\"stream\":%s}}",
		                       i > 0 ? "," : "", rows[i].pid, rows[i].tid, rows[i].device,
		                       rows[i].stream);
	at += (size_t)snprintf(doc + at, sizeof(doc) - at, "]}");
	ck_assert_uint_lt(at, sizeof(doc));
	for (int how = 0; how < VIA_COUNT; how++) {
		id_list l = {0};
		ns_trace_meta meta;
		ns_error err;
		ns_status st = read_with(how, doc, at, keep_ids, &l, &meta, &err);

		ck_assert_msg(st == NS_OK, "via %s: %s", via_name[how], err.msg);
		ck_assert_int_eq(l.n, ROW_COUNT);
		for (int i = 0; i < ROW_COUNT; i++) {
			ck_assert_msg(l.pid[i] == rows[i].want_pid && l.tid[i] == rows[i].want_tid &&
			                  l.device[i] == rows[i].want_device &&
			                  l.stream[i] == rows[i].want_stream,
			              "via %s, event %d: pid %lld tid %lld device %lld stream %lld",
			              via_name[how], i, (long long)l.pid[i], (long long)l.tid[i],
			              (long long)l.device[i], (long long)l.stream[i]);
		}
	}
}
END_TEST

/* ---- top-level facts, before or after traceEvents ---- */

static const char *const meta_docs[] = {
    "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A100-SXM4-80GB\",\"numSms\":108},"
    "{\"name\":\"NVIDIA "
    "H100\",\"id\":1}],\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":3,\"world_size\":8,"
    "\"pg_config\":[{\"ranks\":[0,1]}]},\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":1}],\"traceName\":"
    "\"t\"}",
    "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":1}],\"displayTimeUnit\":\"ms\",\"distributedInfo\":{"
    "\"world_"
    "size\":8,"
    "\"rank\":3},\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA "
    "A100-SXM4-80GB\"},{\"id\":1,\"name\":\"NVIDIA "
    "H100\"}],\"baseTimeNanoseconds\":1700000000000000000}",
};

START_TEST(meta_is_filled_before_or_after_trace_events)
{
	collected c;
	ns_trace_meta meta;
	ns_error err;

	for (int how = 0; how < VIA_COUNT; how++) {
		ck_assert_msg(read_doc(how, meta_docs[_i], &c, &meta, &err) == NS_OK, "%s", err.msg);
		ck_assert_int_eq(meta.events, 1);
		ck_assert(meta.has_rank);
		ck_assert_int_eq(meta.rank, 3);
		ck_assert_int_eq(meta.world_size, 8);
		ck_assert_uint_eq(meta.ndevices, 2);
		ck_assert_int_eq(meta.devices[0].id, 0);
		ck_assert_str_eq(meta.devices[0].name, "NVIDIA A100-SXM4-80GB");
		ck_assert_int_eq(meta.devices[1].id, 1);
		ck_assert_str_eq(meta.devices[1].name, "NVIDIA H100");
	}
}
END_TEST

START_TEST(meta_without_distributed_info_has_no_rank)
{
	collected c;
	ns_trace_meta meta;
	ns_error err;

	ck_assert_int_eq(read_doc(VIA_FILE, "{\"traceEvents\":[]}", &c, &meta, &err), NS_OK);
	ck_assert(!meta.has_rank);
	ck_assert_uint_eq(meta.ndevices, 0);
	ck_assert_int_eq(meta.events, 0);
}
END_TEST

/* ---- malformed documents: an error with a position, never a crash ---- */

typedef struct {
	const char *what;
	const char *doc;
	ns_status status;
	long index; /* event index the error names, or -1 */
} bad_case;

static const bad_case bad_cases[] = {
    {"empty input", "", NS_ERR_SYNTAX, -1},
    {"only blanks", "  \n", NS_ERR_SYNTAX, -1},
    {"top level is a string", "\"traceEvents\"", NS_ERR_SYNTAX, -1},
    {"an event of the array form is a number", "[{},1]", NS_ERR_VALUE, 1},
    {"truncated in an event of the array form", "[{\"ph\":\"X\",\"ts\":1", NS_ERR_SYNTAX, 0},
    {"garbage after the top-level array", "[] x", NS_ERR_SYNTAX, -1},
    {"an object after the top-level array", "[{}]{\"traceEvents\":[]}", NS_ERR_SYNTAX, -1},
    {"no traceEvents", "{\"schemaVersion\":1}", NS_ERR_SYNTAX, -1},
    {"empty object", "{}", NS_ERR_SYNTAX, -1},
    {"traceEvents is an object", "{\"traceEvents\":{}}", NS_ERR_VALUE, -1},
    {"duplicate traceEvents", "{\"traceEvents\":[],\"traceEvents\":[]}", NS_ERR_KEY, -1},
    {"an event is a number", "{\"traceEvents\":[{},1]}", NS_ERR_VALUE, 1},
    {"truncated in an event", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1", NS_ERR_SYNTAX, 0},
    {"truncated in a string", "{\"traceEvents\":[{\"name\":\"ab", NS_ERR_SYNTAX, 0},
    {"truncated after the array", "{\"traceEvents\":[]", NS_ERR_SYNTAX, -1},
    {"truncated between events", "{\"traceEvents\":[{},", NS_ERR_SYNTAX, -1},
    {"ts is a string", "{\"traceEvents\":[{\"ts\":\"1\"}]}", NS_ERR_VALUE, 0},
    {"dur is null", "{\"traceEvents\":[{\"ts\":1,\"dur\":null}]}", NS_ERR_VALUE, 0},
    {"negative dur", "{\"traceEvents\":[{},{\"ts\":1,\"dur\":-2}]}", NS_ERR_VALUE, 1},
    /* a complete event is a span: without its length it was split as nothing ("compute-bound (0%)") */
    {"a complete event without dur",
     "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":1},{\"ph\":\"X\",\"ts\":1}]}", NS_ERR_VALUE, 1},
    {"ts does not fit in int64 ns", "{\"traceEvents\":[{\"ts\":9223372036854776}]}", NS_ERR_VALUE, 0},
    {"ts with a huge exponent", "{\"traceEvents\":[{\"ts\":1e400}]}", NS_ERR_VALUE, 0},
    {"ts one past int64 ns", "{\"traceEvents\":[{\"ts\":9223372036854775.808}]}", NS_ERR_VALUE, 0},
    {"ts with 17 integer digits", "{\"traceEvents\":[{\"ts\":12345678901234567}]}", NS_ERR_VALUE, 0},
    {"an args id past int64", "{\"traceEvents\":[{\"args\":{\"correlation\":9223372036854775808}}]}",
     NS_ERR_VALUE, 0},
    {"leading zero", "{\"traceEvents\":[{\"ts\":01}]}", NS_ERR_SYNTAX, 0},
    {"bare fraction", "{\"traceEvents\":[{\"ts\":.5}]}", NS_ERR_VALUE, 0},
    {"dot without digits", "{\"traceEvents\":[{\"ts\":1.}]}", NS_ERR_SYNTAX, 0},
    {"exponent without digits", "{\"traceEvents\":[{\"ts\":1e}]}", NS_ERR_SYNTAX, 0},
    {"plus sign", "{\"traceEvents\":[{\"x\":+1}]}", NS_ERR_SYNTAX, 0},
    {"invalid escape", "{\"traceEvents\":[{\"name\":\"a\\qb\"}]}", NS_ERR_SYNTAX, 0},
    {"short unicode escape", "{\"traceEvents\":[{\"name\":\"\\u12g4\"}]}", NS_ERR_SYNTAX, 0},
    {"raw newline in a string", "{\"traceEvents\":[{\"name\":\"a\nb\"}]}", NS_ERR_SYNTAX, 0},
    {"missing colon", "{\"traceEvents\":[{\"ts\" 1}]}", NS_ERR_SYNTAX, 0},
    {"trailing comma in an event", "{\"traceEvents\":[{\"ts\":1,}]}", NS_ERR_SYNTAX, 0},
    {"trailing comma in the array", "{\"traceEvents\":[{},]}", NS_ERR_VALUE, 1},
    {"missing comma between events", "{\"traceEvents\":[{} {}]}", NS_ERR_SYNTAX, -1},
    {"bad literal", "{\"traceEvents\":[{\"x\":nul}]}", NS_ERR_SYNTAX, 0},
    {"unquoted key", "{\"traceEvents\":[{ts:1}]}", NS_ERR_SYNTAX, 0},
    {"garbage after the object", "{\"traceEvents\":[]} x", NS_ERR_SYNTAX, -1},
    {"a second object after the first", "{\"traceEvents\":[]}{}", NS_ERR_SYNTAX, -1},
    {"a NUL byte between tokens", "{\"traceEvents\":[]\0}", NS_ERR_SYNTAX, -1},
    {"bad value in another member", "{\"traceEvents\":[],\"x\":[1,2,]}", NS_ERR_SYNTAX, -1},
    {"unclosed array in args", "{\"traceEvents\":[{\"args\":{\"a\":[1,2}}]}", NS_ERR_SYNTAX, 0},
    {"nesting too deep in args",
     "{\"traceEvents\":[{\"args\":{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
     "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}]}",
     NS_ERR_LIMIT, 0},
    {"deviceProperties is malformed", "{\"deviceProperties\":[{\"id\":0,}],\"traceEvents\":[]}",
     NS_ERR_SYNTAX, -1},
};

START_TEST(malformed_documents_fail_with_a_position)
{
	const bad_case *bc = &bad_cases[_i];
	/* The NUL case needs its true length; the others are C strings. */
	size_t len = strcmp(bc->what, "a NUL byte between tokens") == 0 ? 20 : strlen(bc->doc);
	long long offsets[VIA_COUNT];
	collected c;
	ns_trace_meta meta;
	ns_error err;

	for (int how = 0; how < VIA_COUNT; how++) {
		ns_status st = read_via(how, bc->doc, len, &c, &meta, &err);
		ck_assert_msg(st == bc->status, "%s via %s: status %d (%s: %s), want %d", bc->what,
		              via_name[how], st, ns_strerror(st), err.msg, bc->status);
		ck_assert_int_eq(err.status, bc->status);
		ck_assert_msg(err.offset >= 0 && err.offset <= (long long)len, "%s: offset %lld", bc->what,
		              err.offset);
		ck_assert_msg(err.index == bc->index, "%s: index %ld, want %ld", bc->what, err.index,
		              bc->index);
		ck_assert(err.msg[0] != '\0');
		offsets[how] = err.offset;
	}
	/* Where the error is must not depend on where the chunks happened to end. */
	ck_assert_int_eq(offsets[VIA_FILE], offsets[VIA_TINY_PIPE]);
}
END_TEST

/* The Trace Event Format's JSON Array Format (the legacy autograd profiler's export_chrome_trace, Chrome's
 * tracing writers): the document is the array of events, and its closing ']' is optional, so that a process
 * killed while tracing leaves a readable file; a last ',' may be left too. */
static const struct {
	const char *what, *doc;
	long events;
} array_docs[] = {
    {"closed", "[{\"ph\":\"X\",\"ts\":1,\"dur\":2},{\"ph\":\"i\",\"ts\":3}]", 2},
    {"no closing bracket", "[{\"ph\":\"X\",\"ts\":1,\"dur\":2},{\"ph\":\"i\",\"ts\":3}\n", 2},
    {"a last comma, no bracket", "[{\"ph\":\"X\",\"ts\":1,\"dur\":2},{\"ph\":\"i\",\"ts\":3},", 2},
    {"empty", " [ ] ", 0},
    {"only its opening bracket", "[", 0},
    {"a string pid, as the legacy profiler writes",
     "[{\"name\":\"aten::mm\",\"ph\":\"X\",\"ts\":1.5,"
     "\"dur\":2,\"tid\":1,\"pid\":\"CPU functions\",\"args\":{}}]",
     1},
};

START_TEST(the_array_form_is_read_with_or_without_its_closing_bracket)
{
	for (int how = 0; how < VIA_COUNT; how++) {
		collected c;
		ns_trace_meta meta;
		ns_error err;
		ns_status st = read_doc(how, array_docs[_i].doc, &c, &meta, &err);
		ck_assert_msg(st == NS_OK, "%s via %s: %s", array_docs[_i].what, via_name[how], err.msg);
		ck_assert_int_eq(c.n, array_docs[_i].events);
	}
}
END_TEST

/* The same events read from the object form and the array form are the same events. */
START_TEST(the_array_form_gives_the_events_of_the_object_form)
{
	static const char events[] = "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,"
	                             "\"ts\":10.5,\"dur\":4,\"args\":{\"device\":0,\"correlation\":3}},"
	                             "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
	                             "\"pid\":1,\"tid\":1,\"ts\":9,\"dur\":1,\"args\":{\"correlation\":3}}";
	char object[512], array[512];
	collected a, b;
	ns_trace_meta meta;
	ns_error err;

	snprintf(object, sizeof(object), "{\"traceEvents\":[%s]}", events);
	snprintf(array, sizeof(array), "[%s]", events);
	ck_assert_int_eq(read_doc(VIA_FILE, object, &a, &meta, &err), NS_OK);
	ck_assert_int_eq(read_doc(VIA_FILE, array, &b, &meta, &err), NS_OK);
	ck_assert_int_eq(a.n, 2);
	ck_assert_int_eq(b.n, 2);
	ck_assert(a.digest == b.digest);
	ck_assert_str_eq(b.name[0], "k");
	ck_assert_int_eq(b.ev[0].ts_ns, 10500);
	ck_assert_int_eq(b.ev[0].dur_ns, 4000);
}
END_TEST

/* Metadata events name threads (args."name", escapes kept as written) and place them (args."sort_index", a
 * whole number, negative too); a sort_index that is no whole number is left absent, not an error. */
START_TEST(metadata_events_give_thread_names_and_sort_indexes)
{
	static const char doc[] =
	    "{\"traceEvents\":["
	    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":2,\"args\":{\"name\":"
	    "\"pt\\u005fautograd_0\"}},"
	    "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"ts\":0,\"pid\":1,\"tid\":2,\"args\":{\"sort_"
	    "index\":-3}},"
	    "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":3,\"args\":{\"sort_index\":1.5}},"
	    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":3,\"args\":{\"name\":7}}]}";
	collected c;
	ns_trace_meta meta;
	ns_error err;

	for (int how = 0; how < VIA_COUNT; how++) {
		ck_assert_int_eq(read_doc(how, doc, &c, &meta, &err), NS_OK);
		ck_assert_int_eq(c.n, 4);
		ck_assert_str_eq(c.meta[0], "pt\\u005fautograd_0");
		ck_assert(!c.ev[0].has_sort_index);
		ck_assert(c.ev[1].has_sort_index);
		ck_assert_int_eq(c.ev[1].sort_index, -3);
		ck_assert(!c.ev[2].has_sort_index);
		ck_assert_str_eq(c.meta[3], "");
	}
}
END_TEST

/* A document that simply stops is a cut file (a killed job): the read fails as before, and meta says where it
 * ended and whether inside traceEvents, so a caller can report the events handed out before the cut. */
typedef struct {
	const char *doc;
	bool truncated, in_events;
} cut_case;

static const cut_case cut_cases[] = {
    {"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1", true, true},
    {"{\"traceEvents\":[{\"name\":\"ab", true, true},
    {"{\"traceEvents\":[{},", true, true},
    {"{\"traceEvents\":[{}", true, true},
    {"{\"traceEvents\":[", true, true},
    {"{\"traceEvents\":[{}]", true, false},
    {"{\"traceEvents\":[{}],\"traceName\":\"x", true, false},
    {"{\"schemaVersion\":1,", true, false},
    {"", false, false},
    {"{\"traceEvents\":[{} {}]}", false, false},
    {"{\"traceEvents\":[{\"ts\":01}]}", false, false},
};

START_TEST(a_cut_document_says_where_it_ended)
{
	const cut_case *cc = &cut_cases[_i];
	collected c;
	ns_trace_meta meta;
	ns_error err;

	for (int how = 0; how < VIA_COUNT; how++) {
		ck_assert_int_ne(read_via(how, cc->doc, strlen(cc->doc), &c, &meta, &err), NS_OK);
		ck_assert_msg(meta.truncated == cc->truncated, "%s via %s: truncated %d", cc->doc,
		              via_name[how], meta.truncated);
		ck_assert_msg(meta.truncated_in_events == cc->in_events, "%s: in_events %d", cc->doc,
		              meta.truncated_in_events);
		if (cc->truncated)
			ck_assert_int_eq(meta.truncated_at, (long long)strlen(cc->doc));
	}
}
END_TEST

START_TEST(no_trace_events_is_reported_as_not_a_trace)
{
	collected c;
	ns_trace_meta meta;
	ns_error err;

	ck_assert_int_eq(read_doc(VIA_FILE, "{\"schemaVersion\":1,\"x\":[]}", &c, &meta, &err),
	                 NS_ERR_SYNTAX);
	ck_assert_str_eq(err.msg, "not a trace: no traceEvents");
}
END_TEST

START_TEST(negative_dur_points_at_the_value)
{
	const char *doc = "{\"traceEvents\":[{\"ts\":1,\"dur\":-2}]}";
	collected c;
	ns_trace_meta meta;
	ns_error err;

	ck_assert_int_eq(read_doc(VIA_FILE, doc, &c, &meta, &err), NS_ERR_VALUE);
	ck_assert_int_eq(err.offset, strstr(doc, "-2") - doc);
	ck_assert_int_eq(err.index, 0);
}
END_TEST

START_TEST(callback_status_stops_the_read)
{
	const char *doc = "{\"traceEvents\":[{},{},{},{}]}";
	collected c;
	ns_trace_meta meta;
	ns_error err;
	char path[] = "/tmp/test_trace_read.XXXXXX";
	int fd = mkstemp(path);
	ns_input in;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, doc, strlen(doc)), (ssize_t)strlen(doc));
	close(fd);
	ck_assert_int_eq(ns_input_open(&in, path, &err), NS_OK);
	unlink(path);
	memset(&c, 0, sizeof(c));
	c.stop_after = 1;
	ck_assert_int_eq(ns_trace_read(&in, collect, &c, &meta, &err), NS_ERR_VALUE);
	ns_input_close(&in);
	ck_assert_int_eq(c.n, 2);
	ck_assert_str_eq(err.msg, "stopped by the callback");
	ck_assert_int_eq(err.index, 1);
	ck_assert_int_eq(err.offset, strstr(doc, "},{") - doc + 2);
}
END_TEST

/* ---- limits ---- */

static char *long_string_doc(size_t string_len, size_t *len)
{
	const char *head = "{\"traceEvents\":[{\"name\":\"", *tail = "\"}]}";
	char *doc = malloc(strlen(head) + string_len + strlen(tail) + 1);

	ck_assert_ptr_nonnull(doc);
	strcpy(doc, head);
	memset(doc + strlen(head), 'a', string_len);
	strcpy(doc + strlen(head) + string_len, tail);
	*len = strlen(doc);
	return doc;
}

START_TEST(a_string_over_the_limit_is_refused)
{
	size_t len;
	char *doc = long_string_doc(NS_TRACE_MAX_STRING + 1, &len);
	collected c;
	ns_trace_meta meta;
	ns_error err;

	ck_assert_int_eq(read_via(VIA_FILE, doc, len, &c, &meta, &err), NS_ERR_LIMIT);
	ck_assert_int_eq(err.index, 0);
	free(doc);
}
END_TEST

START_TEST(a_long_string_under_the_limit_is_read)
{
	size_t len;
	char *doc = long_string_doc(3u << 20, &len);
	collected c;
	ns_trace_meta meta;
	ns_error err;

	ck_assert_int_eq(read_via(VIA_FILE, doc, len, &c, &meta, &err), NS_OK);
	ck_assert_int_eq(c.n, 1);
	ck_assert_uint_eq(c.ev[0].name.len, 3u << 20);
	free(doc);
}
END_TEST

/* ---- gzip ---- */

static unsigned char *gzip_bytes(const void *data, size_t len, size_t *out_len)
{
	z_stream zs;
	size_t cap = compressBound((uLong)len) + 64;
	unsigned char *out = malloc(cap);

	ck_assert_ptr_nonnull(out);
	memset(&zs, 0, sizeof(zs));
	ck_assert_int_eq(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)(uintptr_t)data;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	ck_assert_int_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	*out_len = cap - zs.avail_out;
	deflateEnd(&zs);
	return out;
}

/* Two gzip members, split inside the document, as `cat a.gz b.gz` would make. */
static unsigned char *gzip_two_members(const char *doc, size_t *out_len)
{
	size_t half = strlen(doc) / 2, n1, n2;
	unsigned char *a = gzip_bytes(doc, half, &n1), *b = gzip_bytes(doc + half, strlen(doc) - half, &n2);
	unsigned char *both = malloc(n1 + n2);

	ck_assert_ptr_nonnull(both);
	memcpy(both, a, n1);
	memcpy(both + n1, b, n2);
	free(a);
	free(b);
	*out_len = n1 + n2;
	return both;
}

START_TEST(gzip_reads_like_the_plain_document)
{
	size_t n;
	unsigned char *gz =
	    _i == 0 ? gzip_bytes(KERNEL_DOC, strlen(KERNEL_DOC), &n) : gzip_two_members(KERNEL_DOC, &n);
	collected plain, packed;
	ns_trace_meta meta;
	ns_error err;

	ck_assert_int_eq(read_doc(VIA_FILE, KERNEL_DOC, &plain, &meta, &err), NS_OK);
	for (int how = 0; how < VIA_COUNT; how++) {
		ck_assert_msg(read_via(how, gz, n, &packed, &meta, &err) == NS_OK, "%s", err.msg);
		ck_assert(meta.compressed);
		ck_assert_int_eq(meta.bytes, (long long)strlen(KERNEL_DOC));
		ck_assert_int_eq(packed.n, plain.n);
		ck_assert_uint_eq(packed.digest, plain.digest);
		ck_assert_int_eq(packed.ev[0].dur_ns, 2500);
	}
	free(gz);
}
END_TEST

typedef enum { GZ_TRUNCATED, GZ_CORRUPT, GZ_TRAILING_GARBAGE, GZ_ONLY_MAGIC } gz_damage;

START_TEST(damaged_gzip_is_an_error)
{
	size_t n;
	unsigned char *gz = gzip_bytes(KERNEL_DOC, strlen(KERNEL_DOC), &n), *bad = malloc(n + 8);
	size_t bad_len = n;
	collected c;
	ns_trace_meta meta;
	ns_error err;

	ck_assert_ptr_nonnull(bad);
	memcpy(bad, gz, n);
	switch ((gz_damage)_i) {
	case GZ_TRUNCATED:
		bad_len = n - 12;
		break;
	case GZ_CORRUPT:
		for (size_t i = 12; i < 20; i++)
			bad[i] ^= 0x5a;
		break;
	case GZ_TRAILING_GARBAGE:
		memcpy(bad + n, "garbage!", 8);
		bad_len = n + 8;
		break;
	case GZ_ONLY_MAGIC:
		bad_len = 2;
		break;
	}
	for (int how = 0; how < VIA_COUNT; how++) {
		ns_status st = read_via(how, bad, bad_len, &c, &meta, &err);
		ck_assert_msg(st == NS_ERR_SYNTAX, "damage %d via %s: %d %s", _i, via_name[how], st, err.msg);
		ck_assert_int_ge(err.offset, 0);
		ck_assert(meta.compressed);
		/* only a stream that stops is a cut file; corrupt data, or nothing inflated, is not */
		ck_assert_msg(meta.truncated == (_i == GZ_TRUNCATED), "damage %d: truncated %d", _i,
		              meta.truncated);
		if (meta.truncated)
			ck_assert_int_eq(meta.truncated_at, err.offset);
	}
	free(gz);
	free(bad);
}
END_TEST

/* A gzip stream cut off mid-member (flushed, not finished) behind a pipe whose writer stays: the reader
 * must see the bytes so far, fail on them, and return without waiting for the writer to close. */
START_TEST(an_error_in_gzip_from_an_open_pipe_returns_without_waiting_for_eof)
{
	const char *doc = "\"not a trace\""; /* neither form: a top-level string */
	unsigned char packed[256];
	z_stream zs;
	int fds[2];
	ns_input in;
	collected c;
	ns_trace_meta meta;
	ns_error err;

	memset(&zs, 0, sizeof(zs));
	ck_assert_int_eq(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)(uintptr_t)doc;
	zs.avail_in = (uInt)strlen(doc);
	zs.next_out = packed;
	zs.avail_out = sizeof(packed);
	ck_assert_int_eq(deflate(&zs, Z_SYNC_FLUSH), Z_OK);
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(write(fds[1], packed, sizeof(packed) - zs.avail_out),
	                 (ssize_t)(sizeof(packed) - zs.avail_out));
	deflateEnd(&zs);
	memset(&in, 0, sizeof(in));
	in.fd = fds[0];
	in.name = "pipe";
	memset(&c, 0, sizeof(c));
	c.stop_after = -1;
	ck_assert_int_eq(ns_trace_read(&in, collect, &c, &meta, &err), NS_ERR_SYNTAX);
	ck_assert_int_eq(err.offset, 0);
	ck_assert(meta.compressed);
	close(fds[0]);
	close(fds[1]);
}
END_TEST

/* ---- a generated and a real trace (need ../shared) ---- */

static bool have_shared(void)
{
	return access("../shared", F_OK) == 0;
}

static ns_status read_path(const char *path, collected *c, ns_trace_meta *meta, ns_error *err)
{
	ns_input in;
	ns_status st;

	memset(c, 0, sizeof(*c));
	c->stop_after = -1;
	st = ns_input_open(&in, path, err);
	if (st != NS_OK)
		return st;
	st = ns_trace_read(&in, collect, c, meta, err);
	ns_input_close(&in);
	return st;
}

typedef struct {
	long kernels, bad_kernels;
} kernel_tally;

static ns_status tally_kernels(const ns_trace_event *ev, void *ctx, ns_error *err)
{
	kernel_tally *t = ctx;

	(void)err;
	if (ev->cat == NS_TCAT_KERNEL && ev->ph == 'X') {
		t->kernels++;
		if (!ev->has_dur || ev->dur_ns < 0 || !ev->has_ts)
			t->bad_kernels++;
	}
	return NS_OK;
}

START_TEST(a_real_trace_reads_with_sane_kernels)
{
	const char *path = "../shared/traces/tbp/resnet50_num_workers_0.pt.trace.json.gz";
	ns_input in;
	ns_trace_meta meta;
	ns_error err;
	kernel_tally t = {0};

	ck_assert_int_eq(ns_input_open(&in, path, &err), NS_OK);
	ck_assert_msg(ns_trace_read(&in, tally_kernels, &t, &meta, &err) == NS_OK, "byte %lld: %s",
	              err.offset, err.msg);
	ns_input_close(&in);
	ck_assert(meta.compressed);
	ck_assert_int_gt(meta.events, 0);
	ck_assert_int_gt(t.kernels, 0);
	ck_assert_int_eq(t.bad_kernels, 0);
	ck_assert_uint_ge(meta.ndevices, 1);
}
END_TEST

/* make-trace writes a trace; gzip makes a second copy; python's json module counts the events. All three
 * must agree with the reader. */
START_TEST(a_generated_trace_reads_alike_plain_gzipped_and_by_python)
{
	char dir[] = "/tmp/test_trace_read_gen.XXXXXX"; /* unique: two builds may run their tests at once */
	char cmd[1024], count_text[64] = "";
	collected plain, packed;
	ns_trace_meta pm, gm;
	ns_error err;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
	         "../shared/tools/make-trace --out %s/t.json --steps 3 --style old >/dev/null 2>&1 && "
	         "gzip -c %s/t.json > %s/t.json.gz && python3 -c 'import json,sys; "
	         "print(len(json.load(open(sys.argv[1]))[\"traceEvents\"]))' %s/t.json > %s/count",
	         dir, dir, dir, dir, dir);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
	snprintf(cmd, sizeof(cmd), "%s/count", dir);
	f = fopen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(count_text, sizeof(count_text), f));
	fclose(f);

	snprintf(cmd, sizeof(cmd), "%s/t.json", dir);
	ck_assert_msg(read_path(cmd, &plain, &pm, &err) == NS_OK, "%s", err.msg);
	snprintf(cmd, sizeof(cmd), "%s/t.json.gz", dir);
	ck_assert_msg(read_path(cmd, &packed, &gm, &err) == NS_OK, "%s", err.msg);
	ck_assert_int_eq(plain.n, atol(count_text));
	ck_assert_int_eq(packed.n, plain.n);
	ck_assert_uint_eq(packed.digest, plain.digest);
	ck_assert_int_eq(gm.bytes, pm.bytes);
	ck_assert(gm.compressed && !pm.compressed);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Writes what the reader hands over in the line format of tests/data/trace/dump_events.py. */
static ns_status print_event(const ns_trace_event *e, void *ctx, ns_error *err)
{
	(void)err;
	fprintf((FILE *)ctx, "%ld|%c|%d|%.*s|%.*s|%lld|%lld|%d|%lld|%d|%lld|%lld|%lld|%lld|%lld\n", e->index,
	        e->ph != 0 ? e->ph : '-', (int)e->cat, (int)e->cat_raw.len, e->cat_raw.ptr, (int)e->name.len,
	        e->name.ptr, (long long)e->pid, (long long)e->tid, e->has_ts, (long long)e->ts_ns, e->has_dur,
	        (long long)e->dur_ns, (long long)e->device, (long long)e->stream, (long long)e->correlation,
	        (long long)e->external_id);
	return NS_OK;
}

static const char *const python_checked_traces[] = {
    "../shared/traces/hta/a100_nccl_3steps.json.gz",
    "../shared/traces/tbp/resnet50_num_workers_0.pt.trace.json.gz",
    "../shared/traces/hta/mi250_rocm_minitoy.json.gz",
};

/* Every field of every event, against python's json module reading the same file. */
START_TEST(real_traces_match_python_json_field_by_field)
{
	const char *path = python_checked_traces[_i];
	char dir[] = "/tmp/test_trace_read_py.XXXXXX", mine[64], theirs[64];
	char cmd[512], a[4096], b[4096];
	FILE *out, *fa, *fb;
	ns_input in;
	ns_trace_meta meta;
	ns_error err;
	long line = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(mine, sizeof(mine), "%s/reader.txt", dir);
	snprintf(theirs, sizeof(theirs), "%s/python.txt", dir);
	out = fopen(mine, "w");
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(ns_input_open(&in, path, &err), NS_OK);
	ck_assert_msg(ns_trace_read(&in, print_event, out, &meta, &err) == NS_OK, "%s", err.msg);
	ns_input_close(&in);
	fclose(out);
	snprintf(cmd, sizeof(cmd), "python3 tests/data/trace/dump_events.py %s > %s", path, theirs);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
	fa = fopen(mine, "r");
	fb = fopen(theirs, "r");
	ck_assert(fa != NULL && fb != NULL);
	for (;;) {
		char *ga = fgets(a, sizeof(a), fa), *gb = fgets(b, sizeof(b), fb);
		if (ga == NULL || gb == NULL) {
			ck_assert_msg(ga == NULL && gb == NULL, "%s: line counts differ after %ld", path,
			              line);
			break;
		}
		line++;
		ck_assert_msg(strcmp(a, b) == 0, "%s line %ld:\n reader %s python %s", path, line, a, b);
	}
	ck_assert_int_eq(line, meta.events);
	fclose(fa);
	fclose(fb);
	unlink(mine);
	unlink(theirs);
	rmdir(dir);
}
END_TEST

#define ROWS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *reader_suite(void)
{
	Suite *s = suite_create("trace_read");
	TCase *parse = tcase_create("parse"), *limits = tcase_create("limits"), *gzip = tcase_create("gzip");

	tcase_add_loop_test(parse, ts_converts_decimal_microseconds_exactly_to_nanoseconds, 0,
	                    ROWS(time_cases));
	tcase_add_loop_test(parse, category_maps_both_spellings_to_one_value, 0, ROWS(category_cases));
	tcase_add_loop_test(parse, event_fields_are_read_as_written, 0, ROWS(event_cases));
	tcase_add_test(parse, string_ids_are_stable_and_distinct);
	tcase_add_test(parse, repeated_ids_are_read_as_written_each_time);
	tcase_add_loop_test(parse, meta_is_filled_before_or_after_trace_events, 0, ROWS(meta_docs));
	tcase_add_test(parse, meta_without_distributed_info_has_no_rank);
	tcase_add_loop_test(parse, malformed_documents_fail_with_a_position, 0, ROWS(bad_cases));
	tcase_add_loop_test(parse, a_cut_document_says_where_it_ended, 0, ROWS(cut_cases));
	tcase_add_test(parse, no_trace_events_is_reported_as_not_a_trace);
	tcase_add_test(parse, metadata_events_give_thread_names_and_sort_indexes);
	tcase_add_loop_test(parse, the_array_form_is_read_with_or_without_its_closing_bracket, 0,
	                    ROWS(array_docs));
	tcase_add_test(parse, the_array_form_gives_the_events_of_the_object_form);
	tcase_add_test(parse, negative_dur_points_at_the_value);
	tcase_add_test(parse, callback_status_stops_the_read);
	suite_add_tcase(s, parse);

	tcase_add_test(limits, a_string_over_the_limit_is_refused);
	tcase_add_test(limits, a_long_string_under_the_limit_is_read);
	tcase_set_timeout(limits, 30);
	suite_add_tcase(s, limits);

	tcase_add_loop_test(gzip, gzip_reads_like_the_plain_document, 0, 2);
	tcase_add_loop_test(gzip, damaged_gzip_is_an_error, GZ_TRUNCATED, GZ_ONLY_MAGIC + 1);
	tcase_add_test(gzip, an_error_in_gzip_from_an_open_pipe_returns_without_waiting_for_eof);
	suite_add_tcase(s, gzip);
	return s;
}

static Suite *shared_suite(void)
{
	Suite *s = suite_create("trace_read_shared");
	TCase *real = tcase_create("real");

	tcase_add_test(real, a_real_trace_reads_with_sane_kernels);
	tcase_add_test(real, a_generated_trace_reads_alike_plain_gzipped_and_by_python);
	tcase_add_loop_test(real, real_traces_match_python_json_field_by_field, 0,
	                    ROWS(python_checked_traces));
	tcase_set_timeout(real, 60);
	suite_add_tcase(s, real);
	return s;
}

/* Without arguments: the self-contained tests. With --shared: the ones over ../shared (exit 77 without it).
 */
int main(int argc, char **argv)
{
	bool shared = argc > 1 && strcmp(argv[1], "--shared") == 0;
	SRunner *sr;
	int failed;

	signal(SIGPIPE, SIG_IGN);
	if (shared && !have_shared()) {
		printf("skipped: ../shared not found\n");
		return 77;
	}
	sr = srunner_create(shared ? shared_suite() : reader_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
