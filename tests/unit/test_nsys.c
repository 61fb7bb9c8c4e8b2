/* The Nsight Systems reader: the mapping of each table's rows to trace events, the layouts it refuses, and
 * hostile databases (wrong types, NULLs, dangling ids, huge strings, views, a second GPU process). Databases
 * are built in memory from SQL; the expected events follow from the rows by the rules in docs/nsys.md (and
 * for names from PyTorch's getNvtxStr and libkineto's copy names), not from the reader's output. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/trace_kernels.h"
#include "nextstep/trace_split.h"
#include "nsys/nsys_private.h"

/* ---- the mapping's pure parts ---- */

static const struct {
	const char *name, *want;
} api_names[] = {
    {"cudaLaunchKernel_v7000", "cudaLaunchKernel"},
    {"cudaStreamSynchronize_v3020", "cudaStreamSynchronize"},
    {"cudaGetDeviceProperties_v2_v12000", "cudaGetDeviceProperties_v2"},
    {"cuMemAlloc_v2", "cuMemAlloc_v2"}, /* a driver symbol's own suffix stays */
    {"cuLaunchKernel", "cuLaunchKernel"},
    {"_v1234", "_v1234"}, /* nothing before the suffix: not one */
    {"f_v123", "f_v123"}, /* three digits: not a version */
};

START_TEST(runtime_names_lose_the_version_suffix)
{
	size_t n = nsys_api_name_len(api_names[_i].name, strlen(api_names[_i].name));

	ck_assert_int_eq((int)n, (int)strlen(api_names[_i].want));
	ck_assert(strncmp(api_names[_i].name, api_names[_i].want, n) == 0);
}
END_TEST

/* globalTid 283004824020018 and globalPid 283004823928832 of nsysai-mock-torch: its PROCESSES table says pid
 * 91186; the thread is the process's main thread (tid == pid). */
START_TEST(global_ids_decode_to_pid_and_tid)
{
	ck_assert_int_eq(nsys_pid_of(283004824020018LL), 91186);
	ck_assert_int_eq(nsys_tid_of(283004824020018LL), 91186);
	ck_assert_int_eq(nsys_pid_of(283004823928832LL), 91186);
	ck_assert_int_eq(nsys_tid_of(283004823928832LL), 0);
	ck_assert_int_eq(nsys_pid_of(-1), 0xFFFFFF); /* hostile: masked, never negative */
}
END_TEST

START_TEST(copies_are_named_as_kineto_names_them)
{
	char name[64];

	ck_assert_str_eq(nsys_memcpy_name(1, 0, 2, name, sizeof(name)), "Memcpy HtoD (Pageable -> Device)");
	ck_assert_str_eq(nsys_memcpy_name(2, 2, 1, name, sizeof(name)), "Memcpy DtoH (Device -> Pinned)");
	ck_assert_str_eq(nsys_memcpy_name(8, 2, 2, name, sizeof(name)), "Memcpy DtoD (Device -> Device)");
	ck_assert_str_eq(nsys_memcpy_name(99, -1, 42, name, sizeof(name)),
	                 "Memcpy Unknown (Unknown -> Unknown)");
	ck_assert_str_eq(nsys_memset_name(2), "Memset (Device)");
	ck_assert_str_eq(nsys_memset_name(-1), "Memset (Device)");
}
END_TEST

static const struct {
	const char *text, *name, *sizes;
	ns_trace_category cat;
	int64_t seq;
} ranges[] = {
    {"aten::addmm, seq = 12, op_id = 40, sizes = [[2, 3], [3, 4], []], input_op_ids = [(39, 0)]",
     "aten::addmm", "[[2, 3], [3, 4], []]", NS_TCAT_CPU_OP, 12},
    {"aten::empty, op_id = 7", "aten::empty", "", NS_TCAT_CPU_OP, -1},
    {"AddmmBackward0, seq = 12, op_id = 80", "AddmmBackward0", "", NS_TCAT_CPU_OP, 12},
    {"record_param_comms", "record_param_comms", "", NS_TCAT_CPU_OP, -1},
    {"TransformReplay::replayCasP", "TransformReplay::replayCasP", "", NS_TCAT_CPU_OP, -1},
    {"ProfilerStep#3", "ProfilerStep#3", "", NS_TCAT_USER_ANNOTATION, -1},
    {"## forward ##, op_id = 3", "## forward ##", "", NS_TCAT_USER_ANNOTATION, -1},
    {"MPI_Send", "MPI_Send", "", NS_TCAT_USER_ANNOTATION, -1},
    {"step 7", "step 7", "", NS_TCAT_USER_ANNOTATION, -1},
    {"", "", "", NS_TCAT_USER_ANNOTATION, -1},
};

START_TEST(nvtx_ranges_read_as_ops_or_annotations)
{
	nsys_range r;

	nsys_range_of((ns_str){ranges[_i].text, strlen(ranges[_i].text)}, &r);
	ck_assert_int_eq(r.cat, ranges[_i].cat);
	ck_assert_int_eq((int)r.name.len, (int)strlen(ranges[_i].name));
	ck_assert(memcmp(r.name.ptr, ranges[_i].name, r.name.len) == 0);
	ck_assert_int_eq(r.seq, ranges[_i].seq);
	ck_assert_int_eq((int)r.sizes.len, (int)strlen(ranges[_i].sizes));
	ck_assert(r.sizes.len == 0 || memcmp(r.sizes.ptr, ranges[_i].sizes, r.sizes.len) == 0);
}
END_TEST

START_TEST(rank_variables_in_priority_order)
{
	bool size;
	int which;
	int64_t v;

	ck_assert(nsys_env_rank("RANK=\"3\"", 8, &size, &which, &v) && !size && which == 0 && v == 3);
	ck_assert(nsys_env_rank("WORLD_SIZE=8", 12, &size, &which, &v) && size && which == 0 && v == 8);
	ck_assert(nsys_env_rank("OMPI_COMM_WORLD_RANK=\"5\"", 24, &size, &which, &v) && !size && which == 1);
	ck_assert(nsys_env_rank("SLURM_NTASKS=\"16\"", 17, &size, &which, &v) && size && which == 3 &&
	          v == 16);
	ck_assert(!nsys_env_rank("LOCAL_RANK=\"1\"", 14, &size, &which, &v));
	ck_assert(!nsys_env_rank("RANK=\"x\"", 8, &size, &which, &v));
	ck_assert(!nsys_env_rank("RANK=\"3\"junk", 12, &size, &which, &v));
}
END_TEST

START_TEST(strings_are_escaped_for_the_event_stream)
{
	char *buf = NULL;
	size_t cap = 0, n = 0;
	bool too_long;
	const unsigned char s[] = "a\\b\n";

	ck_assert(!nsys_needs_escape((const unsigned char *)"plain", 5));
	/* past the eight-byte scan: each byte that needs it, at each position of a word, and none */
	for (size_t at = 0; at < 24; at++) {
		unsigned char name[24];
		memset(name, 'a', sizeof(name));
		ck_assert(!nsys_needs_escape(name, sizeof(name)));
		name[at] = '\\';
		ck_assert(nsys_needs_escape(name, sizeof(name)));
		name[at] = 0x1f;
		ck_assert(nsys_needs_escape(name, sizeof(name)));
		name[at] = 0x20;
		ck_assert(!nsys_needs_escape(name, sizeof(name)));
		name[at] = 0xff; /* UTF-8 bytes are not escaped */
		ck_assert(!nsys_needs_escape(name, sizeof(name)));
	}
	ck_assert(nsys_needs_escape(s, 4));
	ck_assert_ptr_nonnull(nsys_escape(s, 4, &buf, &cap, &n, &too_long));
	ck_assert_int_eq((int)n, 10);
	ck_assert(memcmp(buf, "a\\\\b\\u000a", 10) == 0);
	free(buf);
}
END_TEST

/* Interpreters and PyTorch's main thread are Python; a program named otherwise is not (pythonic names that
 * are no interpreter included). */
static const struct {
	const char *name;
	bool python;
} program_names[] = {
    {"python", true},
    {"python3", true},
    {"python3.11", true},
    {"/usr/bin/python3", true},
    {"/opt/venv/bin/python", true},
    {"pypy3", true},
    {"pt_main_thread", true},
    {"./saxpy-mpi-cuda", false},
    {"./bin/test_matmul", false},
    {"pythonista", false},
    {"/opt/python3/bin/app", false},
    {"pt_main", false},
    {"", false},
};

START_TEST(process_names_say_python_or_not)
{
	ck_assert_msg(nsys_is_python_name(program_names[_i].name, strlen(program_names[_i].name)) ==
	                  program_names[_i].python,
	              "%s", program_names[_i].name);
}
END_TEST

/* ---- databases ---- */

#define MAX_EVENTS 16
typedef struct {
	size_t n;
	struct {
		ns_trace_category cat;
		char ph;
		char name[128], cat_raw[32], sizes[64];
		int64_t pid, tid, ts, dur, device, stream, corr, seq;
	} ev[MAX_EVENTS];
} collected;

static ns_status collect(const ns_trace_event *ev, void *ctx, ns_error *err)
{
	collected *c = ctx;
	(void)err;

	if (c->n < MAX_EVENTS) {
		c->ev[c->n].cat = ev->cat;
		c->ev[c->n].ph = ev->ph;
		snprintf(c->ev[c->n].name, sizeof(c->ev[0].name), "%.*s", (int)ev->name.len, ev->name.ptr);
		snprintf(c->ev[c->n].cat_raw, sizeof(c->ev[0].cat_raw), "%.*s", (int)ev->cat_raw.len,
		         ev->cat_raw.ptr);
		snprintf(c->ev[c->n].sizes, sizeof(c->ev[0].sizes), "%.*s", (int)ev->input_dims.len,
		         ev->input_dims.ptr != NULL ? ev->input_dims.ptr : "");
		c->ev[c->n].pid = ev->pid;
		c->ev[c->n].tid = ev->tid;
		c->ev[c->n].ts = ev->ts_ns;
		c->ev[c->n].dur = ev->has_dur ? ev->dur_ns : -1;
		c->ev[c->n].device = ev->device;
		c->ev[c->n].stream = ev->stream;
		c->ev[c->n].corr = ev->correlation;
		c->ev[c->n].seq = ev->seq_number;
	}
	c->n++;
	return NS_OK;
}

/* The 3.x layout's columns that the reader reads (the rest of a real export's are left out). */
static const char schema[] =
    "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
    " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
    " correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER, srcKind INTEGER,"
    " dstKind INTEGER);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, globalTid "
    "INTEGER,"
    " correlationId INTEGER, nameId INTEGER);"
    "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, globalTid INTEGER, text TEXT,"
    " textId INTEGER, domainId INTEGER);"
    "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"
    "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.16.1');";

/* pid 7, tid 9: (1 << 48) + (7 << 24) + 9; its process: (1 << 48) + (7 << 24). */
#define GTID "281475094151177"
#define GPID "281475094151168"

/* Read with StringIds joined row by row (the reader's path for a table past its caps) instead of held. */
static bool joining;

static ns_status read_sql(const char *rows, collected *c, ns_trace_meta *meta, ns_error *err)
{
	sqlite3 *db = NULL;
	ns_status st;

	memset(c, 0, sizeof(*c));
	memset(meta, 0, sizeof(*meta));
	ns_error_clear(err);
	ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(db, rows, NULL, NULL, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(db));
	nsys_limit_db(db);
	st = (joining ? nsys_read_db_joining : nsys_read_db)(db, "test", collect, c, meta, err);
	sqlite3_close(db);
	return st;
}

static char *with_schema(const char *rows)
{
	size_t n = strlen(schema) + strlen(rows) + 1;
	char *s = malloc(n);

	ck_assert_ptr_nonnull(s);
	(void)snprintf(s, n, "%s%s", schema, rows);
	return s;
}

static ns_status read_rows(const char *rows, collected *c, ns_trace_meta *meta, ns_error *err)
{
	char *sql = with_schema(rows);
	ns_status st = read_sql(sql, c, meta, err);

	free(sql);
	return st;
}

START_TEST(a_kernel_and_its_launch)
{
	collected c;
	ns_trace_meta m;
	ns_error err;

	ck_assert_int_eq(
	    read_rows("INSERT INTO StringIds VALUES (1, 'void gemm<float>(float*)'), (2, 'gemm'),"
	              " (3, 'cudaLaunchKernel_v7000');"
	              "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 150, 0, " GTID ", 5, 3);"
	              "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (200, 260, 1, 7, 5, " GPID ", 1, 2);",
	              &c, &m, &err),
	    NS_OK);
	ck_assert_int_eq((int)c.n, 2);
	ck_assert_int_eq(m.events, 2);
	ck_assert(m.nsys);
	ck_assert_str_eq(m.nsys_schema, "3.16.1");
	/* the launch: runtime call on pid 7 tid 9, the version suffix gone, correlation 5 in pid 7's space */
	ck_assert_int_eq(c.ev[0].cat, NS_TCAT_RUNTIME);
	ck_assert_str_eq(c.ev[0].cat_raw, "cuda_runtime");
	ck_assert_str_eq(c.ev[0].name, "cudaLaunchKernel");
	ck_assert_int_eq(c.ev[0].pid, 7);
	ck_assert_int_eq(c.ev[0].tid, 9);
	ck_assert_int_eq(c.ev[0].ts, 100);
	ck_assert_int_eq(c.ev[0].dur, 50);
	ck_assert_int_eq(c.ev[0].corr, (7LL << 32) | 5);
	/* the kernel: device 1 stream 7, filed as Kineto files it (pid the device), the same correlation */
	ck_assert_int_eq(c.ev[1].cat, NS_TCAT_KERNEL);
	ck_assert_str_eq(c.ev[1].name, "void gemm<float>(float*)");
	ck_assert_int_eq(c.ev[1].device, 1);
	ck_assert_int_eq(c.ev[1].stream, 7);
	ck_assert_int_eq(c.ev[1].pid, 1);
	ck_assert_int_eq(c.ev[1].corr, (7LL << 32) | 5);
	ck_assert_int_eq(c.ev[1].dur, 60);
}
END_TEST

START_TEST(a_kernel_without_demangled_name_takes_its_short_name)
{
	collected c;
	ns_trace_meta m;
	ns_error err;

	ck_assert_int_eq(
	    read_rows("INSERT INTO StringIds VALUES (2, 'gemm');"
	              "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 7, 5, " GPID ", NULL, 2);"
	              "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (3, 4, 0, 7, 6, " GPID ", 99, 98);",
	              &c, &m, &err),
	    NS_OK);
	ck_assert_str_eq(c.ev[0].name, "gemm");
	ck_assert_str_eq(c.ev[1].name, ""); /* dangling ids: an unnamed kernel, still counted */
}
END_TEST

/* Schema 2.9.1 records each runtime call twice: eventClass 0 and its CUDA-backtrace copy (67). Driver calls
 * are class 1. */
START_TEST(backtrace_copies_of_runtime_calls_are_skipped)
{
	collected c;
	ns_trace_meta m;
	ns_error err;

	ck_assert_int_eq(read_rows("INSERT INTO StringIds VALUES (1, 'cudaMemcpy_v3020'), (2, 'cudaMemcpy'),"
	                           " (3, 'cuLaunchKernel');"
	                           "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10, 20, 67, " GTID
	                           ", 4, 2),"
	                           " (11, 19, 0, " GTID ", 4, 1), (30, 40, 1, " GTID ", 5, 3);",
	                           &c, &m, &err),
	                 NS_OK);
	ck_assert_int_eq((int)c.n, 2);
	ck_assert_str_eq(c.ev[0].name, "cudaMemcpy");
	ck_assert_int_eq(c.ev[0].ts, 11);
	ck_assert_str_eq(c.ev[1].cat_raw, "cuda_driver");
}
END_TEST

START_TEST(copies_take_their_kinds)
{
	collected c;
	ns_trace_meta m;
	ns_error err;

	ck_assert_int_eq(read_rows("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (5, 9, 0, 7, 3, " GPID
	                           ", 64, 2, 2, 0);",
	                           &c, &m, &err),
	                 NS_OK);
	ck_assert_int_eq(c.ev[0].cat, NS_TCAT_MEMCPY);
	ck_assert_str_eq(c.ev[0].name, "Memcpy DtoH (Device -> Pageable)");
}
END_TEST

START_TEST(nvtx_ops_annotations_and_open_ranges)
{
	collected c;
	ns_trace_meta m;
	ns_error err;

	ck_assert_int_eq(read_rows("INSERT INTO StringIds VALUES (4, 'ProfilerStep#3');"
	                           "INSERT INTO NVTX_EVENTS VALUES (0, 1000, 59, " GTID ", NULL, 4, 0),"
	                           " (10, 20, 59, " GTID
	                           ", 'aten::mm, seq = 4, op_id = 9, sizes = [[2, 2], [2, 2]]', NULL, 0),"
	                           " (30, NULL, 59, " GTID ", 'step', NULL, 0), (40, 50, 34, " GTID
	                           ", 'a mark', NULL, 0),"
	                           " (1, NULL, 39, " GTID ", 'MPI Rank 4', NULL, 0);",
	                           &c, &m, &err),
	                 NS_OK);
	ck_assert_int_eq((int)c.n, 3); /* the mark and the thread name are not spans */
	ck_assert_int_eq(c.ev[0].cat, NS_TCAT_USER_ANNOTATION);
	ck_assert_str_eq(c.ev[0].name, "ProfilerStep#3");
	ck_assert_int_eq(c.ev[1].cat, NS_TCAT_CPU_OP);
	ck_assert_str_eq(c.ev[1].name, "aten::mm");
	ck_assert_int_eq(c.ev[1].seq, 4);
	ck_assert_str_eq(c.ev[1].sizes, "[[2, 2], [2, 2]]");
	ck_assert_int_eq(c.ev[2].ph, 'B'); /* open at the capture's end */
	ck_assert(m.has_rank);
	ck_assert_int_eq(m.rank, 4);
	ck_assert_int_eq(m.world_size, 0);
}
END_TEST

START_TEST(rank_and_world_size_from_the_capture_environment)
{
	collected c;
	ns_trace_meta m;
	ns_error err;

	ck_assert_int_eq(read_rows("CREATE TABLE META_DATA_CAPTURE (name TEXT, value TEXT);"
	                           "INSERT INTO META_DATA_CAPTURE VALUES"
	                           " ('PROCESS_0:ENVIRONMENT_VARIABLE', 'OMPI_COMM_WORLD_RANK=\"9\"'),"
	                           " ('PROCESS_0:ENVIRONMENT_VARIABLE', 'WORLD_SIZE=\"8\"'),"
	                           " ('PROCESS_0:ENVIRONMENT_VARIABLE', 'RANK=\"3\"'),"
	                           " ('PROCESS_0:ENVIRONMENT_VARIABLE', 'LOCAL_RANK=\"1\"');",
	                           &c, &m, &err),
	                 NS_OK);
	ck_assert(m.has_rank);
	ck_assert_int_eq(m.rank, 3);
	ck_assert_int_eq(m.world_size, 8);
}
END_TEST

/* PROCESSES and COMPOSITE_EVENTS with the columns of the real exports (schema 2.9.1 and 3.16.1 alike):
 * process 7 runs the GPU work. */
#define PROGRAM_TABLES                                                                                       \
	"CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);"                                \
	"CREATE TABLE COMPOSITE_EVENTS (id INTEGER PRIMARY KEY, start INTEGER, cpu INTEGER, threadState "    \
	"INTEGER, globalTid INTEGER, cpuCycles INTEGER);"                                                    \
	"INSERT INTO StringIds VALUES (1, 'k');"                                                             \
	"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (200, 260, 0, 7, 5, " GPID ", 1, 1);"

START_TEST(the_program_is_told_by_what_the_export_shows)
{
	collected c;
	ns_trace_meta m;
	ns_error err;

	/* a C program: its process name, CPU samples, MPI ranges; no OS runtime table */
	ck_assert_int_eq(read_rows(PROGRAM_TABLES
	                           "INSERT INTO PROCESSES VALUES (1, 1, 'init'), (" GPID ", 7, './stencil');"
	                           "INSERT INTO COMPOSITE_EVENTS VALUES (1, 100, 0, 1, " GTID ", 0);"
	                           "INSERT INTO NVTX_EVENTS VALUES (0, 50, 59, " GTID
	                           ", 'MPI_Send', NULL, 1);",
	                           &c, &m, &err),
	                 NS_OK);
	ck_assert_str_eq(m.program.process, "./stencil");
	ck_assert_int_eq(m.program.kind, NS_PROGRAM_NATIVE);
	ck_assert_int_eq(m.program.by, NS_PROGRAM_BY_PROCESS);
	ck_assert(m.program.cpu_samples);
	ck_assert(m.program.mpi);
	ck_assert(!m.program.osrt);
	/* PyTorch's ranges outweigh the process name (an embedded interpreter, a renamed binary) */
	ck_assert_int_eq(read_rows(PROGRAM_TABLES "INSERT INTO PROCESSES VALUES (" GPID ", 7, 'trainer');"
	                                          "INSERT INTO NVTX_EVENTS VALUES (0, 50, 59, " GTID
	                                          ", 'aten::mm, seq = 3', NULL, 0);",
	                           &c, &m, &err),
	                 NS_OK);
	ck_assert_int_eq(m.program.kind, NS_PROGRAM_PYTHON);
	ck_assert_int_eq(m.program.by, NS_PROGRAM_BY_NVTX);
	ck_assert(!m.program.cpu_samples && !m.program.mpi);
	/* an interpreter's process name */
	ck_assert_int_eq(
	    read_rows(PROGRAM_TABLES "INSERT INTO PROCESSES VALUES (" GPID ", 7, 'python3');", &c, &m, &err),
	    NS_OK);
	ck_assert_int_eq(m.program.kind, NS_PROGRAM_PYTHON);
	ck_assert_int_eq(m.program.by, NS_PROGRAM_BY_PROCESS);
	/* nothing says: no process row for the GPU's process */
	ck_assert_int_eq(
	    read_rows(PROGRAM_TABLES "INSERT INTO PROCESSES VALUES (1, 1, 'init');", &c, &m, &err), NS_OK);
	ck_assert_str_eq(m.program.process, "");
	ck_assert_int_eq(m.program.kind, NS_PROGRAM_UNKNOWN);
	ck_assert_int_eq(m.program.by, NS_PROGRAM_BY_NONE);
}
END_TEST

START_TEST(devices_are_named_per_cuda_device)
{
	collected c;
	ns_trace_meta m;
	ns_error err;

	ck_assert_int_eq(
	    read_rows("CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, cuDevice INTEGER);"
	              "CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER, pid INTEGER);"
	              "INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA A100', 0), (1, 'NVIDIA H100', 1);"
	              "INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (1, 0, 7);",
	              &c, &m, &err),
	    NS_OK);
	ck_assert_int_eq((int)m.ndevices, 1); /* CUDA_VISIBLE_DEVICES=1: the process's device 0 is GPU 1 */
	ck_assert_int_eq(m.devices[0].id, 0);
	ck_assert_str_eq(m.devices[0].name, "NVIDIA H100");
}
END_TEST

/* Hostile databases: each is refused with a message that says what is wrong, or read with the bad value
 * treated as absent; none crashes, and none runs SQL of its own. */
static const struct {
	const char *rows, *msg; /* msg: part of the error; NULL: read fine */
} hostile[] = {
    {"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ('x', 2, 0, 7, 5, " GPID ", 1, 1);",
     "CUPTI_ACTIVITY_KIND_KERNEL row 1: start is not an integer"},
    {"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (5, 2, 0, 7, 5, " GPID ", 1, 1);",
     "row 1: end before start"},
    {"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, NULL, 0, 7, 5, " GPID ", 1, 1);",
     "end is not an integer"},
    {"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 'gpu', 7, 5, " GPID ", 1, 1);",
     "deviceId is not a device number"},
    {"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (-9223372036854775808, 9223372036854775807, 0, 7, 5, 1, "
     "1, 1);",
     "longer than 292 years"},
    {"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 7, 5, " GPID ", 1, 1),"
     " (3, 4, 0, 7, 6, 281475111059456, 1, 1);",
     "more than one process"},
    {"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1, 2, 'x', NULL, 'y', NULL);", NULL},
    {"INSERT INTO StringIds VALUES (1, substr(hex(zeroblob(9000000)), 1, 17000000));"
     "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 7, 5, " GPID ", 1, 1);",
     "longer than 16 MiB"},
    {"DROP TABLE NVTX_EVENTS; CREATE VIEW NVTX_EVENTS AS SELECT 1 AS start;",
     "NVTX_EVENTS is a view, not a table"},
    {"DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME; CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start, end, "
     "globalTid);",
     "table CUPTI_ACTIVITY_KIND_RUNTIME has no column eventClass"},
    {"DROP TABLE StringIds; CREATE TABLE StringIds (id TEXT, value TEXT);",
     "StringIds.id is not its INTEGER"},
    {"DROP TABLE StringIds;", "no StringIds table"},
    {"CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER, name TEXT); INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES"
     " (59, 'NvtxMark');",
     "numbers its event types differently (59 is not NvtxPushPopRange)"},
};

START_TEST(hostile_databases_are_refused_or_read_safely)
{
	collected c;
	ns_trace_meta m;
	ns_error err;
	ns_status st = read_rows(hostile[_i].rows, &c, &m, &err);

	if (hostile[_i].msg == NULL) {
		ck_assert_msg(st == NS_OK, "%s", err.msg);
		return;
	}
	ck_assert_int_ne(st, NS_OK);
	ck_assert_msg(strstr(err.msg, hostile[_i].msg) != NULL, "'%s' lacks '%s'", err.msg, hostile[_i].msg);
}
END_TEST

/* StringIds held in memory (names looked up by id, escaped once) and joined row by row give the same events,
 * status and message: on every hostile database, and on names that are sparse, dangling, NULL, escaped or
 * registered NVTX text. */
static const char *const same_both_ways[] = {
    "INSERT INTO StringIds VALUES (1, 'void gemm<float>(float*)'), (2, 'gemm'), (1000000, "
    "'cudaLaunchKernel_v7000'),"
    " (7, 'a\\b'), (8, 'tab\there');"
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 150, 0, " GTID ", 5, 1000000), (160, 170, 0, " GTID
    ", 6, 424242), (171, 172, 1, " GTID ", 7, NULL);"
    "INSERT INTO NVTX_EVENTS VALUES (0, 400, 59, " GTID ", NULL, 7, 0), (10, 20, 59, " GTID
    ", 'aten::mm', 1, 0), (30, 40, 60, " GTID ", NULL, 8, 0), (45, 46, 59, " GTID ", NULL, 555, 0),"
    " (50, 60, 34, " GTID ", 'mark', NULL, 0);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (200, 260, 1, 7, 5, " GPID
    ", 1, 2), (300, 310, 1, 7, 6, " GPID ", 99, 2), (320, 330, 1, 7, 7, " GPID
    ", NULL, 8), (340, 350, 1, 7, 8, " GPID ", 'x', 424242);",
    /* ids at both ends of int64: the dense lookup's offset must not overflow */
    "INSERT INTO StringIds VALUES (-9223372036854775808, 'lo'), (9223372036854775807, 'cudaFree_v3020');"
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1, 2, 0, " GTID
    ", 1, 9223372036854775807), (3, 4, 0, " GTID ", 2, -9223372036854775808), (5, 6, 0, " GTID ", 3, 0);",
};

START_TEST(stringids_held_or_joined_read_the_same)
{
	collected a, b;
	ns_trace_meta ma, mb;
	ns_error ea, eb;
	size_t nhostile = sizeof(hostile) / sizeof(hostile[0]);
	const char *rows = (size_t)_i < nhostile ? hostile[_i].rows : same_both_ways[(size_t)_i - nhostile];
	ns_status sa, sb;

	joining = false;
	sa = read_rows(rows, &a, &ma, &ea);
	joining = true;
	sb = read_rows(rows, &b, &mb, &eb);
	joining = false;
	ck_assert_int_eq(sa, sb);
	if (sa != NS_OK) {
		ck_assert_str_eq(ea.msg, eb.msg);
		return;
	}
	ck_assert_int_eq((int)a.n, (int)b.n);
	for (size_t i = 0; i < a.n && i < MAX_EVENTS; i++) {
		ck_assert_str_eq(a.ev[i].name, b.ev[i].name);
		ck_assert_int_eq(a.ev[i].cat, b.ev[i].cat);
		ck_assert_int_eq(a.ev[i].ts, b.ev[i].ts);
		ck_assert_int_eq(a.ev[i].corr, b.ev[i].corr);
	}
	if ((size_t)_i == nhostile) { /* the names, as the rows give them (order: NVTX, runtime, kernels) */
		static const char *const want[] = {
		    "a\\\\b",                   /* NVTX text registered by id, escaped once */
		    "aten::mm",                 /* inline text */
		    "tab\\u0009here",           /* registered, a control character escaped */
		    "",                         /* a dangling textId (the mark, type 34, is not read) */
		    "cudaLaunchKernel",         /* a sparse id */
		    "",                         /* a dangling id */
		    "",                         /* a NULL id */
		    "void gemm<float>(float*)", /* the demangled name */
		    "gemm",                     /* the demangled id dangles: the short name */
		    "tab\\u0009here",           /* no demangled id: the short name */
		    "",                         /* a text where an id belongs, a dangling short id */
		};
		ck_assert_int_eq((int)a.n, (int)(sizeof(want) / sizeof(want[0])));
		for (size_t i = 0; i < a.n; i++)
			ck_assert_str_eq(a.ev[i].name, want[i]);
	}
}
END_TEST

START_TEST(a_database_that_is_no_export_is_named)
{
	collected c;
	ns_trace_meta m;
	ns_error err;

	ck_assert_int_ne(read_sql("CREATE TABLE t (x INTEGER);", &c, &m, &err), NS_OK);
	ck_assert(strstr(err.msg, "not an Nsight Systems export") != NULL);
}
END_TEST

START_TEST(names_with_backslashes_are_escaped)
{
	collected c;
	ns_trace_meta m;
	ns_error err;

	ck_assert_int_eq(read_rows("INSERT INTO StringIds VALUES (1, 'k\\n' || char(10));"
	                           "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 7, 5, " GPID
	                           ", 1, 1);",
	                           &c, &m, &err),
	                 NS_OK);
	ck_assert_str_eq(c.ev[0].name, "k\\\\n\\u000a");
}
END_TEST

/* The committed fixture, through the path the CLI takes: the file, opened read-only. Its rows
 * (tests/data/trace_buckets.json converted, tests/data/nsys/README.md): 5 runtime calls, 4 kernels, a copy, a
 * memset, 3 ops, 3 annotations and the main thread's name = 18 events; the device named as deviceProperties
 * named it. */
static ns_status count(const ns_trace_event *ev, void *ctx, ns_error *err)
{
	(void)ev;
	(void)err;
	++*(long *)ctx;
	return NS_OK;
}

/* OS runtime calls (nsys -t osrt) become frames on their thread, named by StringIds, in their own category.
 */
START_TEST(os_runtime_calls_are_frames_of_their_thread)
{
	collected c;
	ns_trace_meta m;
	ns_error err;

	ck_assert_int_eq(
	    read_rows("CREATE TABLE OSRT_API (start INTEGER, end INTEGER, eventClass INTEGER,"
	              " globalTid INTEGER, nameId INTEGER, returnValue INTEGER, nestingLevel INTEGER,"
	              " callchainId INTEGER);"
	              "INSERT INTO StringIds VALUES (4, 'pthread_cond_timedwait');"
	              "INSERT INTO OSRT_API VALUES (10, 70, 27, " GTID ", 4, 0, 0, 1);"
	              "INSERT INTO OSRT_API VALUES (80, 90, 27, NULL, 4, 0, 0, 1);",
	              &c, &m, &err),
	    NS_OK);
	ck_assert_int_eq((int)c.n, 1); /* the call without a thread is no frame of any thread */
	ck_assert_int_eq(c.ev[0].cat, NS_TCAT_PYTHON);
	ck_assert_str_eq(c.ev[0].cat_raw, NS_TRACE_CAT_OS_RUNTIME);
	ck_assert_str_eq(c.ev[0].name, "pthread_cond_timedwait");
	ck_assert_int_eq(c.ev[0].pid, 7);
	ck_assert_int_eq(c.ev[0].tid, 9);
	ck_assert_int_eq(c.ev[0].ts, 10);
	ck_assert_int_eq(c.ev[0].dur, 60);
	ck_assert_int_eq(
	    read_rows("CREATE TABLE OSRT_API (start INTEGER, end INTEGER, globalTid INTEGER);", &c, &m, &err),
	    NS_ERR_VALUE);
	ck_assert_msg(strstr(err.msg, "OSRT_API") != NULL && strstr(err.msg, "nameId") != NULL, "%s",
	              err.msg);
}
END_TEST

/* CPU samples (COMPOSITE_EVENTS with SAMPLING_CALLCHAINS) become frames of their thread named by the
 * innermost function (stackDepth 0), each lasting to the thread's next sample. Ten samples 100 ns apart
 * (1000-1900), one without a call chain at 1050 (skipped, but a sample of the thread), then one at 10000: the
 * thread's mean gap is (10000 - 1000) / 11 = 818 ns, so the gap of 8100 after 1900 is over four mean gaps and
 * that sample, like the last, counts one mean gap. A thread with one sample has no period: its sample is
 * skipped. */
START_TEST(cpu_samples_are_frames_of_their_thread_to_the_next_sample)
{
	collected c;
	ns_trace_meta m;
	ns_error err;
	char sql[4096];
	size_t n = 0;

	n += (size_t)snprintf(
	    sql + n, sizeof(sql) - n,
	    "CREATE TABLE COMPOSITE_EVENTS (id INTEGER PRIMARY KEY, start INTEGER, cpu INTEGER,"
	    " threadState INTEGER, globalTid INTEGER, cpuCycles INTEGER);"
	    "CREATE TABLE SAMPLING_CALLCHAINS (id INTEGER, symbol INTEGER, module INTEGER,"
	    " stackDepth INTEGER, PRIMARY KEY (id, stackDepth));"
	    "INSERT INTO StringIds VALUES (4, 'main'), (5, 'saxpy_host'), (6, 'libc');");
	for (int i = 0; i < 11; i++) {
		int ts = i < 10 ? 1000 + 100 * i : 10000;
		n += (size_t)snprintf(sql + n, sizeof(sql) - n,
		                      "INSERT INTO COMPOSITE_EVENTS VALUES (%d, %d, 0, 1, " GTID ", 0);"
		                      "INSERT INTO SAMPLING_CALLCHAINS VALUES (%d, %d, 6, 0), (%d, 4, 6, 1);",
		                      i + 1, ts, i + 1, i % 2 == 0 ? 4 : 5, i + 1);
	}
	snprintf(sql + n, sizeof(sql) - n,
	         "INSERT INTO COMPOSITE_EVENTS VALUES (20, 1050, 0, 1, " GTID ", 0);" /* no call chain */
	         "INSERT INTO COMPOSITE_EVENTS VALUES (21, 1000, 0, 1, 281475094151178, 0);"
	         "INSERT INTO SAMPLING_CALLCHAINS VALUES (21, 4, 6, 0);"); /* a lone sample of tid 10 */
	ck_assert_int_eq(read_rows(sql, &c, &m, &err), NS_OK);
	ck_assert(m.program.cpu_samples && m.program.samples_read);
	ck_assert_int_eq((int)c.n, 11);
	for (size_t i = 0; i < c.n; i++) {
		ck_assert_int_eq(c.ev[i].cat, NS_TCAT_PYTHON);
		ck_assert_str_eq(c.ev[i].cat_raw, NS_TRACE_CAT_CPU_SAMPLE);
		ck_assert_int_eq(c.ev[i].pid, 7);
		ck_assert_int_eq(c.ev[i].tid, 9);
		ck_assert_int_eq(c.ev[i].ts, i < 10 ? 1000 + 100 * (int64_t)i : 10000);
		ck_assert_int_eq(c.ev[i].dur, i < 9 ? 100 : 818);
		ck_assert_str_eq(c.ev[i].name, i % 2 == 0 ? "main" : "saxpy_host");
	}
}
END_TEST

/* Samples no thread can own (globalTid NULL) are not read, and the export does not claim to have read samples
 * because another table (here OSRT_API) had rows. */
START_TEST(samples_without_a_thread_are_not_read)
{
	collected c;
	ns_trace_meta m;
	ns_error err;

	ck_assert_int_eq(
	    read_rows(
	        "CREATE TABLE OSRT_API (start INTEGER, end INTEGER, globalTid INTEGER, nameId INTEGER);"
	        "CREATE TABLE COMPOSITE_EVENTS (id INTEGER PRIMARY KEY, start INTEGER, globalTid INTEGER);"
	        "CREATE TABLE SAMPLING_CALLCHAINS (id INTEGER, symbol INTEGER, stackDepth INTEGER);"
	        "INSERT INTO StringIds VALUES (4, 'read');"
	        "INSERT INTO OSRT_API VALUES (10, 70, " GTID ", 4);"
	        "INSERT INTO COMPOSITE_EVENTS VALUES (1, 20, NULL), (2, 40, NULL);"
	        "INSERT INTO SAMPLING_CALLCHAINS VALUES (1, 4, 0), (2, 4, 0);",
	        &c, &m, &err),
	    NS_OK);
	ck_assert_int_eq((int)c.n, 1); /* the OS call */
	ck_assert_str_eq(c.ev[0].cat_raw, NS_TRACE_CAT_OS_RUNTIME);
	ck_assert(m.program.cpu_samples);
	ck_assert(!m.program.samples_read);
}
END_TEST

/* Through the split: a step 0-100 on the thread (a ProfilerStep# NVTX range) whose only device work is a
 * kernel at 90-100, so 0-90 is host_gap (no op or call on the thread). Inside it the thread is in read()
 * 10-70 and pthread_mutex_lock() 70-80: 60 and 10 ns of the gap's 90 are behind OS calls, 20 behind none. */
START_TEST(host_gap_is_attributed_to_the_os_calls_inside_it)
{
	ns_kernel_rules *rules = NULL;
	ns_trace_split *split;
	ns_split_result res;
	ns_trace_meta m;
	ns_error err = {0};
	sqlite3 *db = NULL;
	char *sql = with_schema(
	    "CREATE TABLE OSRT_API (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,"
	    " nameId INTEGER, returnValue INTEGER, nestingLevel INTEGER, callchainId INTEGER);"
	    "INSERT INTO StringIds VALUES (1, 'ampere_sgemm_128x64_nn'), (2, 'read'), (3, "
	    "'pthread_mutex_lock');"
	    "INSERT INTO NVTX_EVENTS VALUES (0, 100, 59, " GTID ", 'ProfilerStep#1', NULL, 0);"
	    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (90, 100, 0, 7, 5, " GPID ", 1, 1);"
	    "INSERT INTO OSRT_API VALUES (10, 70, 27, " GTID ", 2, 0, 0, 1), (70, 80, 27, " GTID
	    ", 3, 0, 0, 1);");
	const ns_split_python_cause *p;

	ck_assert_int_eq(ns_kernel_rules_default(&rules, &err), NS_OK);
	split = ns_trace_split_new(rules);
	ck_assert_ptr_nonnull(split);
	memset(&res, 0, sizeof(res));
	memset(&m, 0, sizeof(m));
	ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(db));
	ck_assert_msg(nsys_read_db(db, "test", ns_trace_split_event, split, &m, &err) == NS_OK, "%s",
	              err.msg);
	sqlite3_close(db);
	free(sql);
	ck_assert_int_eq(ns_trace_split_finish(split, &m, &res, &err), NS_OK);
	ck_assert(res.nsys);
	ck_assert_uint_eq(res.ndevices, 1);
	ck_assert_int_eq(res.device[0].overall.cause_ns[NS_CAUSE_HOST_GAP], 90);
	p = &res.device[0].python[NS_CAUSE_HOST_GAP];
	ck_assert_int_eq(p->framed_ns, 70);
	ck_assert_uint_eq(p->ntop, 2);
	ck_assert_str_eq(ns_kernel_names_get(res.python_names, p->top[0].name_id), "read");
	ck_assert_int_eq(p->top[0].ns, 60);
	ck_assert_str_eq(ns_kernel_names_get(res.python_names, p->top[1].name_id), "pthread_mutex_lock");
	ck_assert_int_eq(p->top[1].ns, 10);
	ns_trace_split_free(split);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

START_TEST(the_committed_fixture_reads_from_its_file)
{
	ns_trace_meta m;
	ns_error err;
	long n = 0;

	memset(&m, 0, sizeof(m));
	ns_error_clear(&err);
	ck_assert_msg(ns_nsys_read("tests/data/nsys/trace_buckets.sqlite", count, &n, &m, &err) == NS_OK,
	              "%s", err.msg);
	ck_assert_int_eq(n, 18);
	ck_assert_int_eq((int)m.ndevices, 1);
	ck_assert_str_eq(m.devices[0].name, "NVIDIA A100-SXM4-80GB");
	ck_assert_int_ne(ns_nsys_read("tests/data/no-such-file.sqlite", count, &n, &m, &err), NS_OK);
}
END_TEST

static Suite *nsys_suite(void)
{
	Suite *s = suite_create("nsys");
	TCase *map = tcase_create("map"), *db = tcase_create("database");

	tcase_add_loop_test(map, runtime_names_lose_the_version_suffix, 0,
	                    (int)(sizeof(api_names) / sizeof(api_names[0])));
	tcase_add_test(map, global_ids_decode_to_pid_and_tid);
	tcase_add_test(map, copies_are_named_as_kineto_names_them);
	tcase_add_loop_test(map, nvtx_ranges_read_as_ops_or_annotations, 0,
	                    (int)(sizeof(ranges) / sizeof(ranges[0])));
	tcase_add_test(map, rank_variables_in_priority_order);
	tcase_add_loop_test(map, process_names_say_python_or_not, 0,
	                    (int)(sizeof(program_names) / sizeof(program_names[0])));
	tcase_add_test(map, strings_are_escaped_for_the_event_stream);
	tcase_add_test(db, a_kernel_and_its_launch);
	tcase_add_test(db, a_kernel_without_demangled_name_takes_its_short_name);
	tcase_add_test(db, backtrace_copies_of_runtime_calls_are_skipped);
	tcase_add_test(db, copies_take_their_kinds);
	tcase_add_test(db, nvtx_ops_annotations_and_open_ranges);
	tcase_add_test(db, rank_and_world_size_from_the_capture_environment);
	tcase_add_test(db, devices_are_named_per_cuda_device);
	tcase_add_test(db, the_program_is_told_by_what_the_export_shows);
	tcase_add_loop_test(db, hostile_databases_are_refused_or_read_safely, 0,
	                    (int)(sizeof(hostile) / sizeof(hostile[0])));
	tcase_add_loop_test(
	    db, stringids_held_or_joined_read_the_same, 0,
	    (int)(sizeof(hostile) / sizeof(hostile[0]) + sizeof(same_both_ways) / sizeof(same_both_ways[0])));
	tcase_add_test(db, a_database_that_is_no_export_is_named);
	tcase_add_test(db, names_with_backslashes_are_escaped);
	tcase_add_test(db, os_runtime_calls_are_frames_of_their_thread);
	tcase_add_test(db, cpu_samples_are_frames_of_their_thread_to_the_next_sample);
	tcase_add_test(db, samples_without_a_thread_are_not_read);
	tcase_add_test(db, host_gap_is_attributed_to_the_os_calls_inside_it);
	tcase_add_test(db, the_committed_fixture_reads_from_its_file);
	tcase_set_timeout(db, 30);
	suite_add_tcase(s, map);
	suite_add_tcase(s, db);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(nsys_suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
