/* Private to the Nsight Systems reader (src/nsys/), its unit tests and its fuzz harness.
 *
 * The module owns everything that knows the layout of an `nsys export --type sqlite` database: which tables
 * and columns each export schema has (nsys_schema.c), how a row of each becomes the ns_trace_event a Kineto
 * trace would have given for the same activity (nsys_map.c), and the streaming queries that read them
 * (nsys_read.c). Nothing past ns_trace_event knows the events came from nsys: the split, the report, the job
 * view and diff are the Kineto path's. docs/nsys.md documents the mapping table by table. */
#ifndef NEXTSTEP_NSYS_PRIVATE_H
#define NEXTSTEP_NSYS_PRIVATE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nextstep/nsys_read.h"
#include "nextstep/trace_read.h"

/* ---- the schema (nsys_schema.c) ---- */

/* The tables read. Each is optional (newer exports create a table only when it has rows); a table that is
 * present must have its required columns. */
typedef enum {
	NT_KERNEL,
	NT_MEMCPY,
	NT_MEMSET,
	NT_SYNC,
	NT_RUNTIME,
	NT_NVTX,
	NT_STRINGS,
	NT_GPU,
	NT_CUDA_DEVICE,
	NT_META_OLD,    /* EXPORT_META_DATA (schema 2.x) */
	NT_META,        /* META_DATA_EXPORT (schema 3.x) */
	NT_CAPTURE,     /* META_DATA_CAPTURE: the profiled process's command and environment */
	NT_EVENT_TYPES, /* ENUM_NSYS_EVENT_TYPE: checked against the NVTX event types the reader relies on */
	NT_THREAD_NAMES,
	NT_OSRT,       /* OSRT_API: the OS runtime calls nsys traces with -t osrt (reads, waits, locks) */
	NT_PROCESSES,  /* PROCESSES: each process's name, for what the profiled program is */
	NT_SAMPLES,    /* COMPOSITE_EVENTS: CPU samples (time and thread) */
	NT_CALLCHAINS, /* SAMPLING_CALLCHAINS: each sample's call stack; the innermost function is read */
	NT_COUNT
} nsys_table;

/* Optional columns, by bit. */
enum {
	NC_GLOBAL_PID = 1u << 0, /* globalPid of the GPU tables */
	NC_SRC_KIND = 1u << 1,   /* MEMCPY.srcKind, dstKind */
	NC_MEM_KIND = 1u << 2,   /* MEMSET.memKind */
	NC_CU_DEVICE = 1u << 3,  /* TARGET_INFO_GPU.cuDevice */
	NC_SAMPLE_ID = 1u << 4,  /* COMPOSITE_EVENTS.id, globalTid: samples are read with both */
	NC_SAMPLE_TID = 1u << 5,
	NC_SAMPLE_THREAD = NC_SAMPLE_ID | NC_SAMPLE_TID,
	NC_CHAIN_SYMBOL = 1u << 6, /* SAMPLING_CALLCHAINS.symbol, stackDepth: the innermost function */
	NC_CHAIN_DEPTH = 1u << 7,
	NC_CHAIN_LEAF = NC_CHAIN_SYMBOL | NC_CHAIN_DEPTH,
};

typedef struct {
	bool has[NT_COUNT];
	unsigned cols[NT_COUNT]; /* NC_* bits of the optional columns present */
	char version[32];        /* EXPORT_SCHEMA_VERSION, "" when not recorded */
} nsys_schema;

/* The table's name as nsys writes it. */
const char *nsys_table_name(nsys_table t);
/* Reads which tables and columns db has. A present table without a column the reader needs, an object of a
 * known name that is not a table (a view would run arbitrary SQL), a StringIds whose id is not its integer
 * primary key (every name lookup would scan it), an event-type enum that numbers NVTX ranges differently, and
 * a database with none of the event tables, are errors that name the table or column. */
ns_status nsys_schema_read(sqlite3 *db, nsys_schema *s, ns_error *err);

/* ---- the mapping (nsys_map.c) ---- */

/* The process and thread ids packed into a serialized globalTid (globalPid carries the process only):
 * pid = globalTid / 2^24 mod 2^24, tid = globalTid mod 2^24 (the nsys exporter's documentation,
 * "Serialized process and thread identifiers"). */
int64_t nsys_pid_of(int64_t global_id);
int64_t nsys_tid_of(int64_t global_id);

/* Length of a CUDA API name without the version suffix nsys appends to runtime calls
 * ("cudaLaunchKernel_v7000"
 * -> "cudaLaunchKernel"): a final "_v" and four or more digits. Driver names keep "_v2" ("cuMemAlloc_v2"),
 * which is part of the symbol. */
size_t nsys_api_name_len(const char *s, size_t len);

/* The name Kineto gives a copy, "Memcpy HtoD (Pageable -> Device)", from nsys's copyKind and memory kinds
 * (ENUM_CUDA_MEMCPY_OPER, ENUM_CUDA_MEM_KIND; -1: absent). Writes at most cap bytes; returns out. */
const char *nsys_memcpy_name(int64_t copy_kind, int64_t src_kind, int64_t dst_kind, char *out, size_t cap);
/* "Memset (Device)" from a memKind (-1: absent, "Memset (Device)" as for Kineto's CUDA traces). */
const char *nsys_memset_name(int64_t mem_kind);

/* An NVTX range read as what PyTorch's profiler would have recorded. emit_nvtx writes every op as
 * "name, seq = S, op_id = I, sizes = [[...]], input_op_ids = [...]" (torch/csrc/profiler/util.cpp
 * getNvtxStr): the name is the part before those fields, seq the autograd sequence number and sizes the input
 * shapes. */
typedef struct {
	ns_trace_category cat; /* NS_TCAT_CPU_OP for an op, NS_TCAT_USER_ANNOTATION for anything else */
	ns_str name;
	int64_t seq;  /* -1: absent */
	ns_str sizes; /* "[[...], ...]", empty when absent */
} nsys_range;

/* Reads text (JSON-escaped as every ns_trace_event string is). An op is a name with a namespace ("aten::add",
 * "c10d::allreduce_", "autograd::engine::evaluate_function: ..."), one the split knows as a collective's op
 * ("record_param_comms"), or one emit_nvtx gave an autograd sequence number; ProfilerStep#N, record_function
 * scopes and a program's own ranges are annotations. */
void nsys_range_of(ns_str text, nsys_range *r);

/* Copies len bytes of database text into buf as a ns_trace_event string: a backslash and control characters
 * JSON-escaped (the consumers resolve escapes), everything else as stored. *cap grows as needed up to
 * NS_TRACE_MAX_STRING bytes of output; NULL when that is exceeded or memory runs out (*too_long says which).
 */
char *nsys_escape(const unsigned char *s, size_t len, char **buf, size_t *cap, size_t *out_len,
                  bool *too_long);
/* True when the len bytes at s need nsys_escape (a backslash or a control character). */
bool nsys_needs_escape(const unsigned char *s, size_t len);

/* The rank and world size a capture's environment names (RANK/WORLD_SIZE of torchrun, then OMPI_COMM_WORLD_*,
 * PMI_*, SLURM_PROCID/SLURM_NTASKS): one "NAME=value" or NAME="value" entry at a time; false when entry is
 * none of them. *which gets the variable's priority (0 first) so the caller keeps the best. */
bool nsys_env_rank(const char *entry, size_t len, bool *is_size, int *which, int64_t *value);

/* Whether a process name is a Python interpreter's ("python3.11", "/usr/bin/python", "pypy3") or PyTorch's
 * main thread's ("pt_main_thread": PyTorch names the thread that imports it, which names the process when it
 * is the main thread). */
bool nsys_is_python_name(const char *name, size_t len);

/* ---- StringIds in memory (nsys_strings.c) ---- */

/* The table's strings by id: ids ascending, string i at text + off[i] up to off[i + 1] (escaped as
 * nsys_escape does, so a name is used as read). */
typedef struct {
	int64_t *ids;
	uint32_t *off; /* n + 1 offsets */
	char *text;
	size_t n, text_len;
	size_t cap_ids, cap_off, cap_text;
	bool loaded;
} nsys_strings;

/* Reads db's StringIds into s. False (s empty, nothing to free) when the table is past the caps on what is
 * held (64 MiB of text, 2 Mi strings), a value is not text, or memory runs out: the reader then joins it
 * row by row, as before there was a cache. */
bool nsys_strings_load(sqlite3 *db, nsys_strings *s);
/* The string of id; false when there is none (a dangling id reads as no name, as a LEFT JOIN's NULL). */
bool nsys_strings_get(const nsys_strings *s, int64_t id, ns_str *out);
void nsys_strings_free(nsys_strings *s);

/* ---- the reader (nsys_read.c) ---- */

/* Reads an open database (the CLI's file, or the fuzz harness's in-memory one) into fn, as ns_nsys_read()
 * does for a path. where names the database in messages. */
ns_status nsys_read_db(sqlite3 *db, const char *where, ns_trace_event_fn fn, void *ctx, ns_trace_meta *meta,
                       ns_error *err);
/* nsys_read_db() with StringIds joined row by row, as when the table is past what is held in memory: the
 * same events (tests and the fuzz harness read both ways). */
ns_status nsys_read_db_joining(sqlite3 *db, const char *where, ns_trace_event_fn fn, void *ctx,
                               ns_trace_meta *meta, ns_error *err);
/* The per-connection limits the reader sets on every database it reads (string length, page cache). */
void nsys_limit_db(sqlite3 *db);

#endif
