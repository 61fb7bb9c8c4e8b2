/* The streaming queries over an Nsight Systems export: one per table, each row handed on as a ns_trace_event.
 *
 * Exports carry no index (the exporter's documentation: "no indexes or extra constraints are created"), so a
 * query in time order would sort each table through a temporary B-tree as large as the table; the consumers
 * do not need time order (Kineto's JSON has none either), so each table is read in the order it is stored,
 * and only StringIds, whose id is the rowid, is looked up by key. Memory: SQLite's page cache
 * (NSYS_CACHE_KIB) and the current row. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_private.h"
#include "nsys_sqlite.h"
#include "util/magic.h"
#include "util/satmath.h"
#include "util/vec.h"

/* SQLite's page cache for one export, KiB: while StringIds is joined row by row (its pages are read again
 * and again), and once it is in memory (the tables are scanned once each: the cache holds the B-trees'
 * inner pages). */
#define NSYS_CACHE_KIB      16384
#define NSYS_SCAN_CACHE_KIB "2048"
/* Rows read from the small tables (devices, the capture's environment): more are not looked at. */
#define NSYS_SMALL_ROWS 4096
/* NVTX event types (ENUM_NSYS_EVENT_TYPE): ranges, and a thread's name. */
enum { NVTX_THREAD_NAME = 39, NVTX_PUSH_POP = 59, NVTX_START_END = 60 };
/* CUPTI_ACTIVITY_KIND_RUNTIME.eventClass (ENUM_NSYS_EVENT_CLASS). */
enum { CLASS_RUNTIME = 0, CLASS_DRIVER = 1, CLASS_BACKTRACE = 67 };

bool ns_is_sqlite(const void *head, size_t n)
{
	return n >= NS_SQLITE_MAGIC_LEN && memcmp(head, NS_SQLITE_MAGIC, NS_SQLITE_MAGIC_LEN) == 0;
}

typedef struct {
	sqlite3 *db;
	const char *where;
	nsys_schema schema;
	ns_trace_event_fn fn;
	void *ctx;
	ns_trace_meta *meta;
	ns_error *err;
	nsys_table table; /* the table being read, and its row (1-based) */
	long row;
	char *buf; /* an escaped string */
	size_t cap;
	bool have_gpu_pid; /* the one process whose GPU work the export holds */
	int64_t gpu_pid;
	int env_rank_which, env_size_which; /* priority of the variable each came from; -1: none */
	int64_t env_rank, env_size;
	int64_t mpi_rank;           /* from an NVTX thread name "MPI Rank N"; -1: none */
	int64_t host_pid;           /* the process of the first CUDA call; -1: none */
	bool pytorch_nvtx;          /* a range PyTorch writes: an emit_nvtx op, aten::..., ProfilerStep# */
	bool pt_thread;             /* a thread named pt_main_thread */
	nsys_strings strings;       /* StringIds, when held in memory (else each query joins it) */
	struct sample_thread *sthr; /* CPU samples: each sampled thread's period and pending sample */
	size_t nsthr;
} reader;

static ns_status row_error(reader *r, ns_status status, const char *what)
{
	r->err->offset = -1;
	r->err->index = r->meta->events;
	return ns_error_set(r->err, status, "%s row %ld: %s", nsys_table_name(r->table), r->row, what);
}

static ns_status step_error(reader *r, int rc)
{
	if (rc == SQLITE_TOOBIG)
		return row_error(r, NS_ERR_LIMIT, "a value longer than 16 MiB");
	if (rc == SQLITE_NOMEM)
		return ns_error_set(r->err, NS_ERR_NOMEM, "out of memory");
	r->err->offset = -1;
	return ns_error_set(r->err, NS_ERR_IO, "%s row %ld: %s", nsys_table_name(r->table), r->row,
	                    sqlite3_errmsg(r->db));
}

static void blank_event(ns_trace_event *ev, long index)
{
	memset(ev, 0, sizeof(*ev));
	ev->index = index;
	ev->offset = -1;
	ev->ph = 'X';
	ev->pid = ev->tid = -1;
	ev->device = ev->stream = ev->correlation = ev->external_id = ev->seq_number = -1;
	ev->coll_seq = ev->coll_in = ev->coll_out = -1;
}

/* Whether column col is an integer, and its value in *v. One call into the statement per column (each
 * sqlite3_column_* call costs a lock and an error check; the value's own accessors do not): every row of
 * every table passes here several times. */
static inline bool int_at(sqlite3_stmt *st, int col, int64_t *v)
{
	sqlite3_value *val = sqlite3_column_value(st, col);

	if (sqlite3_value_type(val) != SQLITE_INTEGER)
		return false;
	*v = sqlite3_value_int64(val);
	return true;
}

/* A StringIds id in column col: an integer, or a text or real that SQLite's comparison with the integer
 * key would take as one (numeric affinity), as a join finds it. */
static inline bool id_at(sqlite3_stmt *st, int col, int64_t *v)
{
	sqlite3_value *val = sqlite3_column_value(st, col);

	if (sqlite3_value_type(val) != SQLITE_INTEGER && sqlite3_value_numeric_type(val) != SQLITE_INTEGER)
		return false;
	*v = sqlite3_value_int64(val);
	return true;
}

/* An integer column, or dflt when it is NULL or not an integer. */
static int64_t int_or(sqlite3_stmt *st, int col, int64_t dflt)
{
	int64_t v;

	return int_at(st, col, &v) ? v : dflt;
}

/* start and end (columns 0 and 1) of every event table: integers, end not before start. */
static ns_status span_of(reader *r, sqlite3_stmt *st, ns_trace_event *ev)
{
	int64_t start, end;

	if (!int_at(st, 0, &start))
		return row_error(r, NS_ERR_VALUE, "start is not an integer");
	if (!int_at(st, 1, &end))
		return row_error(r, NS_ERR_VALUE, "end is not an integer");
	if (end < start)
		return row_error(r, NS_ERR_VALUE, "end before start");
	if ((uint64_t)end - (uint64_t)start > (uint64_t)INT64_MAX)
		return row_error(r, NS_ERR_VALUE, "a span longer than 292 years");
	ev->ts_ns = start;
	ev->dur_ns = (int64_t)((uint64_t)end - (uint64_t)start);
	ev->has_ts = ev->has_dur = true;
	return NS_OK;
}

/* A text column as a ns_trace_event string (escaped where it must be); an empty string for NULL. */
static ns_status text_of(reader *r, sqlite3_stmt *st, int col, ns_str *out)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	size_t len = (size_t)sqlite3_column_bytes(st, col), n = 0;
	bool too_long;

	*out = (ns_str){"", 0};
	if (s == NULL)
		return sqlite3_errcode(r->db) == SQLITE_NOMEM
		           ? ns_error_set(r->err, NS_ERR_NOMEM, "out of memory")
		           : NS_OK;
	if (!nsys_needs_escape(s, len)) {
		*out = (ns_str){(const char *)s, len};
		return NS_OK;
	}
	if (nsys_escape(s, len, &r->buf, &r->cap, &n, &too_long) == NULL)
		return too_long ? row_error(r, NS_ERR_LIMIT, "a name longer than 16 MiB once escaped")
		                : ns_error_set(r->err, NS_ERR_NOMEM, "out of memory");
	*out = (ns_str){r->buf, n};
	return NS_OK;
}

/* A row's name: by its id column (id_col) from StringIds in memory, else the joined value (value_col). */
static ns_status name_of(reader *r, sqlite3_stmt *st, int id_col, int value_col, ns_str *out)
{
	int64_t id;

	if (!r->strings.loaded)
		return text_of(r, st, value_col, out);
	if (!id_at(st, id_col, &id) || !nsys_strings_get(&r->strings, id, out))
		*out = (ns_str){"", 0};
	return NS_OK;
}

/* A correlation id made unique across the processes of one export (CUPTI numbers them per process): the
 * process id above bit 32. */
static int64_t correlation_of(sqlite3_stmt *st, int col, int64_t pid)
{
	int64_t c = int_or(st, col, -1);

	if (c < 0)
		return -1;
	return pid >= 0 && c <= (int64_t)UINT32_MAX ? pid << 32 | c : c;
}

/* GPU work of a second process: each rank is one capture (one file) to nextstep. */
static ns_status note_gpu_process(reader *r, int64_t pid)
{
	if (pid < 0)
		return NS_OK;
	if (!r->have_gpu_pid) {
		r->have_gpu_pid = true;
		r->gpu_pid = pid;
		return NS_OK;
	}
	if (pid == r->gpu_pid)
		return NS_OK;
	r->err->offset = -1;
	return ns_error_set(
	    r->err, NS_ERR_VALUE,
	    "the export holds GPU work of more than one process (pid %lld and %lld): nextstep reads "
	    "one process per file; profile each rank into its own report "
	    "(nsys profile -o rank%%q{RANK} ...) and give the directory of their exports",
	    (long long)r->gpu_pid, (long long)pid);
}

static ns_status emit(reader *r, const ns_trace_event *ev)
{
	ns_status st;

	r->meta->events++;
	st = r->fn(ev, r->ctx, r->err);
	r->err->offset = -1; /* a database has no byte offsets */
	return st;
}

/* The columns common to the GPU tables: start, end, deviceId, streamId, correlationId, globalPid. */
static ns_status gpu_event(reader *r, sqlite3_stmt *st, ns_trace_category cat, const char *cat_raw,
                           ns_trace_event *ev)
{
	int64_t gpid, pid = int_at(st, 5, &gpid) ? nsys_pid_of(gpid) : -1;
	ns_status s;

	blank_event(ev, r->meta->events);
	if ((s = span_of(r, st, ev)) != NS_OK)
		return s;
	ev->cat = cat;
	ev->cat_raw = (ns_str){cat_raw, strlen(cat_raw)};
	ev->device = int_or(st, 2, -1);
	ev->stream = int_or(st, 3, -1);
	if (ev->device < 0 || ev->device > INT32_MAX)
		return row_error(r, NS_ERR_VALUE, "deviceId is not a device number");
	ev->pid = ev->device; /* as Kineto files device work: pid the device, tid the stream */
	ev->tid = ev->stream;
	ev->correlation = correlation_of(st, 4, pid);
	return note_gpu_process(r, pid);
}

typedef ns_status (*row_fn)(reader *r, sqlite3_stmt *st);

/* Runs sql over table t, calling fn for each row. */
static ns_status stream(reader *r, nsys_table t, const char *sql, row_fn fn)
{
	sqlite3_stmt *st = NULL;
	ns_status s = NS_OK;
	int rc;

	r->table = t;
	r->row = 0;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK) {
		r->err->offset = -1;
		return ns_error_set(r->err, NS_ERR_VALUE, "%s: %s", nsys_table_name(t),
		                    sqlite3_errmsg(r->db));
	}
	while (s == NS_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		r->row++;
		s = fn(r, st);
	}
	if (s == NS_OK && rc != SQLITE_DONE) {
		r->row++;
		s = step_error(r, rc);
	}
	sqlite3_finalize(st);
	return s;
}

/* ---- the tables ---- */

/* The demangled name (column 6, joined 8), else the short one (7, joined 9). */
static ns_status kernel_name(reader *r, sqlite3_stmt *st, ns_str *out)
{
	int64_t id;

	if (!r->strings.loaded)
		return text_of(r, st, sqlite3_column_type(st, 8) != SQLITE_NULL ? 8 : 9, out);
	if (id_at(st, 6, &id) && nsys_strings_get(&r->strings, id, out))
		return NS_OK;
	return name_of(r, st, 7, 9, out);
}

static ns_status kernel_row(reader *r, sqlite3_stmt *st)
{
	ns_trace_event ev;
	ns_status s = gpu_event(r, st, NS_TCAT_KERNEL, "kernel", &ev);

	if (s == NS_OK)
		s = kernel_name(r, st, &ev.name);
	return s == NS_OK ? emit(r, &ev) : s;
}

static ns_status memcpy_row(reader *r, sqlite3_stmt *st)
{
	char name[64];
	ns_trace_event ev;
	ns_status s = gpu_event(r, st, NS_TCAT_MEMCPY, "gpu_memcpy", &ev);

	if (s != NS_OK)
		return s;
	nsys_memcpy_name(int_or(st, 6, 0), int_or(st, 7, -1), int_or(st, 8, -1), name, sizeof(name));
	ev.name = (ns_str){name, strlen(name)};
	return emit(r, &ev);
}

static ns_status memset_row(reader *r, sqlite3_stmt *st)
{
	ns_trace_event ev;
	ns_status s = gpu_event(r, st, NS_TCAT_MEMSET, "gpu_memset", &ev);
	const char *name = nsys_memset_name(int_or(st, 6, -1));

	if (s != NS_OK)
		return s;
	ev.name = (ns_str){name, strlen(name)};
	return emit(r, &ev);
}

/* The GPU side of a synchronisation: Kineto's cuda_sync, which the split does not count (the host call is
 * what it reads). Not named by syncType: both exports at hand record a cudaStreamSynchronize as 2, which
 * their own ENUM_CUPTI_SYNC_TYPE calls a stream wait on an event. */
static ns_status sync_row(reader *r, sqlite3_stmt *st)
{
	static const char name[] = "Synchronize";
	ns_trace_event ev;
	ns_status s = gpu_event(r, st, NS_TCAT_OTHER, "cuda_sync", &ev);

	if (s != NS_OK)
		return s;
	ev.name = (ns_str){name, sizeof(name) - 1};
	return emit(r, &ev);
}

/* Host events: the thread from globalTid (column 3). */
static void host_thread(sqlite3_stmt *st, int col, ns_trace_event *ev)
{
	int64_t gtid;

	if (int_at(st, col, &gtid)) {
		ev->pid = nsys_pid_of(gtid);
		ev->tid = nsys_tid_of(gtid);
	}
}

static ns_status runtime_row(reader *r, sqlite3_stmt *st)
{
	static const char runtime[] = "cuda_runtime", driver[] = "cuda_driver";
	ns_trace_event ev;
	ns_status s;

	blank_event(&ev, r->meta->events);
	if ((s = span_of(r, st, &ev)) != NS_OK)
		return s;
	ev.cat = NS_TCAT_RUNTIME;
	ev.cat_raw = int_or(st, 2, CLASS_RUNTIME) == CLASS_DRIVER ? (ns_str){driver, sizeof(driver) - 1}
	                                                          : (ns_str){runtime, sizeof(runtime) - 1};
	host_thread(st, 3, &ev);
	if (r->host_pid < 0)
		r->host_pid = ev.pid;
	ev.correlation = correlation_of(st, 4, ev.pid);
	if ((s = name_of(r, st, 5, 6, &ev.name)) != NS_OK)
		return s;
	ev.name.len = nsys_api_name_len(ev.name.ptr, ev.name.len);
	return emit(r, &ev);
}

static void note_mpi_rank(reader *r, ns_str name)
{
	static const char prefix[] = "MPI Rank ";
	int64_t v = 0;
	size_t i = sizeof(prefix) - 1;

	if (r->mpi_rank >= 0 || name.len <= i || name.len > i + 9 || memcmp(name.ptr, prefix, i) != 0)
		return;
	for (; i < name.len; i++) {
		if (name.ptr[i] < '0' || name.ptr[i] > '9')
			return;
		v = v * 10 + (name.ptr[i] - '0');
	}
	r->mpi_rank = v;
}

static bool starts_with(ns_str s, const char *lit, size_t n)
{
	return s.len >= n && memcmp(s.ptr, lit, n) == 0;
}

/* What a range says of the program: PyTorch wrote it (Python), or nsys's MPI trace did. */
static void note_program_range(reader *r, const nsys_range *range)
{
	r->pytorch_nvtx = r->pytorch_nvtx || range->seq >= 0 || starts_with(range->name, "aten::", 6) ||
	                  starts_with(range->name, "ProfilerStep#", 13);
	r->meta->program.mpi = r->meta->program.mpi || starts_with(range->name, "MPI_", 4);
}

static ns_status nvtx_row(reader *r, sqlite3_stmt *st)
{
	ns_trace_event ev;
	nsys_range range;
	ns_str text;
	int64_t type = int_or(st, 2, -1);
	ns_status s;

	/* ranges and thread names; marks, domains and registered strings are not read (filtered here: an
	 * IN (...) in the query costs every row a lookup in a temporary index) */
	if (type != NVTX_THREAD_NAME && type != NVTX_PUSH_POP && type != NVTX_START_END)
		return NS_OK;
	/* the text inline, else registered in StringIds (textId) */
	s = sqlite3_column_type(st, 4) != SQLITE_NULL ? text_of(r, st, 4, &text)
	                                              : name_of(r, st, 5, 6, &text);
	if (s != NS_OK)
		return s;
	if (type == NVTX_THREAD_NAME) {
		note_mpi_rank(r, text);
		return NS_OK;
	}
	blank_event(&ev, r->meta->events);
	if (sqlite3_column_type(st, 1) == SQLITE_NULL && sqlite3_column_type(st, 0) == SQLITE_INTEGER) {
		ev.ph = 'B'; /* still open when the capture stopped: a B without its E, as Kineto writes it */
		ev.has_ts = true;
		ev.ts_ns = sqlite3_column_int64(st, 0);
	} else if ((s = span_of(r, st, &ev)) != NS_OK) {
		return s;
	}
	host_thread(st, 3, &ev);
	nsys_range_of(text, &range);
	note_program_range(r, &range);
	ev.cat = range.cat;
	ev.cat_raw = range.cat == NS_TCAT_CPU_OP ? (ns_str){"cpu_op", 6} : (ns_str){"user_annotation", 15};
	ev.name = range.name;
	ev.seq_number = range.seq;
	ev.input_dims = range.sizes;
	return emit(r, &ev);
}

/* A thread's name: Kineto's thread_name metadata event, which labels the thread in the HTML timeline. */
static ns_status thread_name_row(reader *r, sqlite3_stmt *st)
{
	static const char meta[] = "thread_name";
	ns_trace_event ev;
	ns_status s;

	blank_event(&ev, r->meta->events);
	ev.ph = 'M';
	ev.name = (ns_str){meta, sizeof(meta) - 1};
	host_thread(st, 0, &ev);
	if ((s = name_of(r, st, 1, 2, &ev.meta_name)) != NS_OK)
		return s;
	r->pt_thread =
	    r->pt_thread || (ev.meta_name.len == 14 && memcmp(ev.meta_name.ptr, "pt_main_thread", 14) == 0);
	return ev.pid < 0 || ev.meta_name.len == 0 ? NS_OK : emit(r, &ev);
}

/* An OS runtime call (read, poll, pthread_cond_wait, ...): a frame on its thread, as a with_stack trace's
 * python_function frame is, so the time the device idles while the step thread is inside one is attributed to
 * it; the category's own name tells the report these are OS calls, not Python. */
static ns_status osrt_row(reader *r, sqlite3_stmt *st)
{
	ns_trace_event ev;
	ns_status s;

	blank_event(&ev, r->meta->events);
	if ((s = span_of(r, st, &ev)) != NS_OK)
		return s;
	ev.cat = NS_TCAT_PYTHON;
	ev.cat_raw = (ns_str){NS_TRACE_CAT_OS_RUNTIME, sizeof(NS_TRACE_CAT_OS_RUNTIME) - 1};
	host_thread(st, 2, &ev);
	if ((s = name_of(r, st, 3, 4, &ev.name)) != NS_OK)
		return s;
	return ev.pid < 0 || ev.name.len == 0 ? NS_OK : emit(r, &ev);
}

/* ---- CPU samples ---- */

/* A sample stands for its thread's time up to the thread's next sample: the samples of a thread tile its
 * sampled time. A gap over SAMPLE_GAP_FACTOR times the thread's mean gap (the thread was descheduled, or
 * samples were lost) counts one mean gap, as does the thread's last sample. */
#define SAMPLE_GAP_FACTOR  4
#define SAMPLE_THREADS_MAX 4096

typedef struct sample_thread {
	int64_t gtid, period; /* period: the mean gap between the thread's samples; 0: one sample, not read */
	int64_t ts;           /* the pending sample's time, when pending */
	bool pending;
	char *name; /* its innermost function, as an event string */
	size_t len, cap;
} sample_thread;

static int cmp_sample_thread(const void *a, const void *b)
{
	const sample_thread *x = a, *y = b;
	return (x->gtid > y->gtid) - (x->gtid < y->gtid);
}

static void samples_free(reader *r)
{
	for (size_t i = 0; i < r->nsthr; i++)
		free(r->sthr[i].name);
	free(r->sthr);
	r->sthr = NULL;
	r->nsthr = 0;
}

/* Each thread's mean gap between samples (one GROUP BY scan of COMPOSITE_EVENTS), sorted by globalTid. */
static ns_status sample_periods(reader *r)
{
	static const char sql[] = "SELECT globalTid, count(*), min(start), max(start) FROM COMPOSITE_EVENTS "
	                          "WHERE globalTid IS NOT NULL GROUP BY globalTid";
	sqlite3_stmt *st = NULL;
	int rc;

	r->table = NT_SAMPLES;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK) {
		r->err->offset = -1;
		return ns_error_set(r->err, NS_ERR_VALUE, "%s: %s", nsys_table_name(NT_SAMPLES),
		                    sqlite3_errmsg(r->db));
	}
	r->sthr = calloc(SAMPLE_THREADS_MAX, sizeof(*r->sthr));
	if (r->sthr == NULL) {
		sqlite3_finalize(st);
		return ns_error_set(r->err, NS_ERR_NOMEM, "out of memory");
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && r->nsthr < SAMPLE_THREADS_MAX) {
		int64_t gtid, n, lo, hi;
		if (!int_at(st, 0, &gtid) || !int_at(st, 1, &n) || !int_at(st, 2, &lo) || !int_at(st, 3, &hi))
			continue;
		sample_thread *t = &r->sthr[r->nsthr++];
		t->gtid = gtid;
		uint64_t mean = n > 1 && hi > lo ? ((uint64_t)hi - (uint64_t)lo) / (uint64_t)(n - 1) : 0;
		t->period = mean <= (uint64_t)INT64_MAX ? (int64_t)mean : 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return step_error(r, rc);
	qsort(r->sthr, r->nsthr, sizeof(*r->sthr), cmp_sample_thread);
	return NS_OK;
}

/* The pending sample of t as a frame ending at end. */
static ns_status sample_emit(reader *r, const sample_thread *t, int64_t end)
{
	ns_trace_event ev;

	blank_event(&ev, r->meta->events);
	ev.ph = 'X';
	ev.has_ts = ev.has_dur = true;
	ev.ts_ns = t->ts;
	ev.dur_ns = end - t->ts;
	ev.cat = NS_TCAT_PYTHON;
	ev.cat_raw = (ns_str){NS_TRACE_CAT_CPU_SAMPLE, sizeof(NS_TRACE_CAT_CPU_SAMPLE) - 1};
	ev.pid = nsys_pid_of(t->gtid);
	ev.tid = nsys_tid_of(t->gtid);
	ev.name = (ns_str){t->name, t->len};
	return emit(r, &ev);
}

static ns_status sample_row(reader *r, sqlite3_stmt *st)
{
	sample_thread key = {0}, *t;
	int64_t ts;
	ns_str name;
	ns_status s;

	if (!int_at(st, 0, &ts) || !int_at(st, 1, &key.gtid) ||
	    (t = bsearch(&key, r->sthr, r->nsthr, sizeof(key), cmp_sample_thread)) == NULL || t->period <= 0)
		return NS_OK;
	if (t->pending) {
		int64_t gap = ns_sat_sub_i64(ts, t->ts);
		bool next = gap > 0 && gap <= ns_sat_mul_i64(t->period, SAMPLE_GAP_FACTOR);
		if ((s = sample_emit(r, t, next ? ts : ns_sat_add_i64(t->ts, t->period))) != NS_OK)
			return s;
		t->pending = false;
	}
	if ((s = name_of(r, st, 2, 3, &name)) != NS_OK)
		return s;
	if (name.len == 0)
		return NS_OK;
	void *grown = ns_grow(t->name, &t->cap, name.len, 1);
	if (grown == NULL)
		return ns_error_set(r->err, NS_ERR_NOMEM, "out of memory");
	t->name = grown;
	memcpy(t->name, name.ptr, name.len);
	t->len = name.len;
	t->ts = ts;
	t->pending = true;
	return NS_OK;
}

/* CPU samples, when the export has their call chains: each sample's innermost function (stack depth 0) is a
 * frame of its thread, as an OS runtime call is (docs/nsys.md). */
static ns_status read_samples(reader *r)
{
	char sql[320];
	bool join = !r->strings.loaded;
	ns_status st = sample_periods(r);

	snprintf(
	    sql, sizeof(sql),
	    "SELECT c.start, c.globalTid, s.symbol%s FROM COMPOSITE_EVENTS AS c JOIN SAMPLING_CALLCHAINS "
	    "AS s ON s.id = c.id AND s.stackDepth = 0%s",
	    join ? ", n.value" : "", join ? " LEFT JOIN StringIds AS n ON n.id = s.symbol" : "");
	if (st == NS_OK && r->nsthr > 0)
		st = stream(r, NT_SAMPLES, sql, sample_row);
	for (size_t i = 0; st == NS_OK && i < r->nsthr; i++)
		if (r->sthr[i].pending)
			st = sample_emit(r, &r->sthr[i], ns_sat_add_i64(r->sthr[i].ts, r->sthr[i].period));
	r->meta->program.samples_read = st == NS_OK && r->nsthr > 0 && r->row > 0; /* row: this stream's */
	samples_free(r);
	return st;
}

/* ---- devices and ranks ---- */

/* The GPUs by CUDA device number: TARGET_INFO_CUDA_DEVICE maps each process's CUDA device to a GPU (newer
 * exports); older ones give each GPU's cuDevice. */
static ns_status read_devices(reader *r)
{
	static const char by_process[] = "SELECT c.cudaId, g.name FROM TARGET_INFO_CUDA_DEVICE AS c JOIN "
	                                 "TARGET_INFO_GPU AS g ON g.id = c.gpuId "
	                                 "LIMIT 4096";
	char sql[128];
	sqlite3_stmt *st = NULL;
	ns_trace_meta *m = r->meta;
	int rc;

	if (!r->schema.has[NT_GPU])
		return NS_OK;
	snprintf(sql, sizeof(sql), "SELECT %s, name FROM TARGET_INFO_GPU LIMIT %d",
	         r->schema.cols[NT_GPU] & NC_CU_DEVICE ? "coalesce(cuDevice, id)" : "id", NSYS_SMALL_ROWS);
	r->table = NT_GPU;
	r->row = 0;
	if (sqlite3_prepare_v2(r->db, r->schema.has[NT_CUDA_DEVICE] ? by_process : sql, -1, &st, NULL) !=
	    SQLITE_OK)
		return step_error(r, sqlite3_errcode(r->db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && m->ndevices < NS_TRACE_MAX_DEVICES) {
		int64_t id = int_or(st, 0, -1);
		ns_str name;
		bool seen = false;
		r->row++;
		for (size_t i = 0; i < m->ndevices; i++)
			seen = seen || m->devices[i].id == id;
		if (id < 0 || seen || text_of(r, st, 1, &name) != NS_OK)
			continue;
		m->devices[m->ndevices].id = id;
		snprintf(m->devices[m->ndevices].name, NS_TRACE_DEVICE_NAME_MAX, "%.*s", (int)name.len,
		         name.ptr);
		m->ndevices++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? NS_OK : step_error(r, rc);
}

/* The rank in the environment nsys recorded for the profiled process (META_DATA_CAPTURE). */
static ns_status read_capture_env(reader *r)
{
	static const char sql[] =
	    "SELECT value FROM META_DATA_CAPTURE WHERE name LIKE 'PROCESS\\_%:ENVIRONMENT\\_VARIABLE' "
	    "ESCAPE '\\' AND (value LIKE '%RANK=%' OR value LIKE '%SIZE=%' OR value LIKE "
	    "'SLURM\\_PROCID=%' ESCAPE '\\' OR value LIKE 'SLURM\\_NTASKS=%' ESCAPE '\\') LIMIT 4096";
	sqlite3_stmt *st = NULL;
	int rc;

	if (!r->schema.has[NT_CAPTURE])
		return NS_OK;
	r->table = NT_CAPTURE;
	r->row = 0;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return step_error(r, sqlite3_errcode(r->db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);
		bool is_size;
		int which;
		int64_t value;
		r->row++;
		if (v == NULL ||
		    !nsys_env_rank(v, (size_t)sqlite3_column_bytes(st, 0), &is_size, &which, &value))
			continue;
		if (is_size && (r->env_size_which < 0 || which < r->env_size_which)) {
			r->env_size_which = which;
			r->env_size = value;
		} else if (!is_size && (r->env_rank_which < 0 || which < r->env_rank_which)) {
			r->env_rank_which = which;
			r->env_rank = value;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? NS_OK : step_error(r, rc);
}

static void set_rank(reader *r)
{
	ns_trace_meta *m = r->meta;

	if (r->env_rank_which >= 0) {
		m->has_rank = true;
		m->rank = r->env_rank;
		m->world_size = r->env_size_which == r->env_rank_which ? r->env_size : 0;
	} else if (r->mpi_rank >= 0) {
		m->has_rank = true;
		m->rank = r->mpi_rank;
		m->world_size = 0;
	}
	if (m->has_rank && m->world_size > 0 && m->rank >= m->world_size)
		m->world_size = 0; /* a rank past its world size is no job's: the job view would refuse it */
}

/* ---- the program ---- */

/* The first row of a one-column query of the export (bound to pid when >= 0): its text into out (cap bytes,
 * "" when none), or just whether there is a row. */
static ns_status first_row(reader *r, nsys_table t, const char *sql, int64_t pid, char *out, size_t cap,
                           bool *found)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*found = false;
	r->table = t;
	r->row = 1;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return step_error(r, sqlite3_errcode(r->db));
	if (pid >= 0)
		sqlite3_bind_int64(st, 1, pid);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(st, 0);
		*found = true;
		if (out != NULL)
			snprintf(out, cap, "%s", v != NULL ? (const char *)v : "");
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? NS_OK : step_error(r, rc);
}

/* What the export says of the program: Python when PyTorch's ranges or threads are there or the process is
 * an interpreter; native when the process is named otherwise; else unknown (docs/nsys.md). */
static ns_status read_program(reader *r)
{
	ns_program_info *p = &r->meta->program;
	int64_t pid = r->have_gpu_pid ? r->gpu_pid : r->host_pid;
	bool found = false;
	ns_status st = NS_OK;

	if (r->schema.has[NT_SAMPLES])
		st = first_row(r, NT_SAMPLES, "SELECT 1 FROM COMPOSITE_EVENTS LIMIT 1", -1, NULL, 0,
		               &p->cpu_samples);
	if (st == NS_OK && r->schema.has[NT_PROCESSES] && pid >= 0)
		st = first_row(r, NT_PROCESSES, "SELECT name FROM PROCESSES WHERE pid = ?1 LIMIT 1", pid,
		               p->process, sizeof(p->process), &found);
	if (st != NS_OK)
		return st;
	if (r->pytorch_nvtx) {
		p->kind = NS_PROGRAM_PYTHON;
		p->by = NS_PROGRAM_BY_NVTX;
	} else if (p->process[0] != '\0') {
		p->kind = nsys_is_python_name(p->process, strlen(p->process)) ? NS_PROGRAM_PYTHON
		                                                              : NS_PROGRAM_NATIVE;
		p->by = NS_PROGRAM_BY_PROCESS;
	}
	if (p->kind != NS_PROGRAM_PYTHON && r->pt_thread) {
		p->kind = NS_PROGRAM_PYTHON;
		p->by = NS_PROGRAM_BY_THREAD;
	}
	return NS_OK;
}

/* ---- the whole export ---- */

static ns_status read_events(reader *r)
{
	char sql[512];
	const nsys_schema *s = &r->schema;
	const char *pid = NULL;
	ns_status st = NS_OK;

	/* with StringIds in memory the queries read ids only; else each joins StringIds for the names */
	bool join = !r->strings.loaded;

	/* NVTX ranges before the runtime calls: the calls inside an op's range then merge into the range's
	 * span as they arrive, and a thread's host list stays the size of its busy time, not of its calls */
	if (s->has[NT_NVTX]) {
		snprintf(
		    sql, sizeof(sql),
		    "SELECT e.start, e.end, e.eventType, e.globalTid, e.text, e.textId%s FROM NVTX_EVENTS "
		    "AS e%s",
		    join ? ", n.value" : "", join ? " LEFT JOIN StringIds AS n ON n.id = e.textId" : "");
		st = stream(r, NT_NVTX, sql, nvtx_row);
	}
	if (st == NS_OK && s->has[NT_RUNTIME]) {
		snprintf(sql, sizeof(sql),
		         "SELECT r.start, r.end, r.eventClass, r.globalTid, r.correlationId, r.nameId%s "
		         "FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r%s WHERE r.eventClass IS NOT 67",
		         join ? ", n.value" : "", join ? " LEFT JOIN StringIds AS n ON n.id = r.nameId" : "");
		st = stream(r, NT_RUNTIME, sql, runtime_row);
	}
	if (st == NS_OK && s->has[NT_THREAD_NAMES] && s->has[NT_STRINGS]) {
		snprintf(sql, sizeof(sql), "SELECT t.globalTid, t.nameId%s FROM ThreadNames AS t%s",
		         join ? ", n.value" : "", join ? " LEFT JOIN StringIds AS n ON n.id = t.nameId" : "");
		st = stream(r, NT_THREAD_NAMES, sql, thread_name_row);
	}
	if (st == NS_OK && s->has[NT_OSRT]) {
		snprintf(sql, sizeof(sql),
		         "SELECT o.start, o.end, o.globalTid, o.nameId%s FROM OSRT_API AS o%s",
		         join ? ", n.value" : "", join ? " LEFT JOIN StringIds AS n ON n.id = o.nameId" : "");
		st = stream(r, NT_OSRT, sql, osrt_row);
		r->meta->program.osrt = r->row > 0;
	}
	if (st == NS_OK && s->has[NT_SAMPLES] && s->has[NT_CALLCHAINS] &&
	    (s->cols[NT_SAMPLES] & NC_SAMPLE_THREAD) == NC_SAMPLE_THREAD &&
	    (s->cols[NT_CALLCHAINS] & NC_CHAIN_LEAF) == NC_CHAIN_LEAF)
		st = read_samples(r);
	pid = s->cols[NT_KERNEL] & NC_GLOBAL_PID ? "k.globalPid" : "NULL";
	snprintf(sql, sizeof(sql),
	         "SELECT k.start, k.end, k.deviceId, k.streamId, k.correlationId, %s, k.demangledName, "
	         "k.shortName%s FROM CUPTI_ACTIVITY_KIND_KERNEL AS k%s",
	         pid, join ? ", d.value, b.value" : "",
	         join
	             ? " LEFT JOIN StringIds AS d ON d.id = k.demangledName LEFT JOIN StringIds AS b ON b.id "
	               "= k.shortName"
	             : "");
	if (st == NS_OK && s->has[NT_KERNEL])
		st = stream(r, NT_KERNEL, sql, kernel_row);
	snprintf(sql, sizeof(sql),
	         "SELECT start, end, deviceId, streamId, correlationId, %s, copyKind, %s "
	         "FROM CUPTI_ACTIVITY_KIND_MEMCPY",
	         s->cols[NT_MEMCPY] & NC_GLOBAL_PID ? "globalPid" : "NULL",
	         s->cols[NT_MEMCPY] & NC_SRC_KIND ? "srcKind, dstKind" : "NULL, NULL");
	if (st == NS_OK && s->has[NT_MEMCPY])
		st = stream(r, NT_MEMCPY, sql, memcpy_row);
	snprintf(
	    sql, sizeof(sql),
	    "SELECT start, end, deviceId, streamId, correlationId, %s, %s FROM CUPTI_ACTIVITY_KIND_MEMSET",
	    s->cols[NT_MEMSET] & NC_GLOBAL_PID ? "globalPid" : "NULL",
	    s->cols[NT_MEMSET] & NC_MEM_KIND ? "memKind" : "NULL");
	if (st == NS_OK && s->has[NT_MEMSET])
		st = stream(r, NT_MEMSET, sql, memset_row);
	snprintf(sql, sizeof(sql),
	         "SELECT start, end, deviceId, streamId, correlationId, %s FROM "
	         "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
	         s->cols[NT_SYNC] & NC_GLOBAL_PID ? "globalPid" : "NULL");
	if (st == NS_OK && s->has[NT_SYNC])
		st = stream(r, NT_SYNC, sql, sync_row);
	return st;
}

void nsys_limit_db(sqlite3 *db)
{
	char pragma[64];

	if (!nsys_sqlite_load(NULL))
		return; /* a caller with a database has the library: this does not happen */
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, (int)NS_TRACE_MAX_STRING);
	sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1 << 16);
	snprintf(pragma, sizeof(pragma), "PRAGMA cache_size = -%d", NSYS_CACHE_KIB);
	sqlite3_exec(db, pragma, NULL, NULL, NULL);
}

static ns_status read_db(sqlite3 *db, const char *where, ns_trace_event_fn fn, void *ctx, ns_trace_meta *meta,
                         ns_error *err, bool hold_strings)
{
	reader r;
	ns_status st;

	memset(&r, 0, sizeof(r));
	r.db = db;
	r.where = where;
	r.fn = fn;
	r.ctx = ctx;
	r.meta = meta;
	r.err = err;
	r.env_rank_which = r.env_size_which = -1;
	r.mpi_rank = -1;
	r.host_pid = -1;
	err->offset = -1;
	if (!nsys_sqlite_load(err))
		return err->status;
	st = nsys_schema_read(db, &r.schema, err);
	/* StringIds in memory, else (past its caps) the queries join it and the page cache keeps its pages */
	if (st == NS_OK && hold_strings && r.schema.has[NT_STRINGS] && nsys_strings_load(db, &r.strings))
		sqlite3_exec(db, "PRAGMA cache_size = -" NSYS_SCAN_CACHE_KIB, NULL, NULL, NULL);
	if (st == NS_OK)
		st = read_devices(&r);
	if (st == NS_OK)
		st = read_capture_env(&r);
	if (st == NS_OK)
		st = read_events(&r);
	if (st == NS_OK)
		set_rank(&r);
	if (st == NS_OK)
		st = read_program(&r);
	meta->nsys = true;
	memcpy(meta->nsys_schema, r.schema.version, sizeof(meta->nsys_schema));
	free(r.buf);
	samples_free(&r);
	nsys_strings_free(&r.strings);
	return st;
}

ns_status nsys_read_db(sqlite3 *db, const char *where, ns_trace_event_fn fn, void *ctx, ns_trace_meta *meta,
                       ns_error *err)
{
	return read_db(db, where, fn, ctx, meta, err, true);
}

ns_status nsys_read_db_joining(sqlite3 *db, const char *where, ns_trace_event_fn fn, void *ctx,
                               ns_trace_meta *meta, ns_error *err)
{
	return read_db(db, where, fn, ctx, meta, err, false);
}

/* path as an SQLite URI: '%', '?' and '#' percent-encoded, so any file name opens as itself. */
static char *uri_of(const char *path)
{
	static const char head[] = "file:", tail[] = "?mode=ro&immutable=1";
	size_t n = strlen(path);
	char *u = malloc(sizeof(head) + 3 * n + sizeof(tail) + 2), *o;

	if (u == NULL)
		return NULL;
	o = u + sprintf(u, "%s%s", head, path[0] == '/' ? "" : "./");
	for (const char *p = path; *p != '\0'; p++)
		o += *p == '%' || *p == '?' || *p == '#' ? sprintf(o, "%%%02X", (unsigned char)*p)
		                                         : (*o = *p, 1);
	memcpy(o, tail, sizeof(tail)); /* with its NUL; the allocation has room for it */
	return u;
}

ns_status ns_nsys_read(const char *path, ns_trace_event_fn fn, void *ctx, ns_trace_meta *meta, ns_error *err)
{
	sqlite3 *db = NULL;
	char *uri = uri_of(path);
	ns_status st;
	int rc;

	if (!nsys_sqlite_load(err)) {
		free(uri);
		return err->status;
	}
	if (uri == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	free(uri);
	if (rc != SQLITE_OK) {
		st = ns_error_set(err, rc == SQLITE_NOMEM ? NS_ERR_NOMEM : NS_ERR_IO,
		                  "cannot open as a database: %s",
		                  db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close(db);
		return st;
	}
	nsys_limit_db(db);
	st = nsys_read_db(db, path, fn, ctx, meta, err);
	sqlite3_close(db);
	return st;
}
