/* Which export layout a database has: the tables the reader reads, their columns, and the checks that keep
 * its queries cheap and its meaning right on a database it does not know. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "nsys_private.h"
#include "nsys_sqlite.h"

typedef struct {
	const char *name;
	unsigned bit;
} opt_column;

typedef struct {
	const char *name;
	const char *required[8];
	opt_column optional[3];
} table_def;

/* The columns every known schema (2.9.1, 3.16.1, 3.24.14) has; optional ones are read when present. */
static const table_def tables[NT_COUNT] = {
    [NT_KERNEL] = {"CUPTI_ACTIVITY_KIND_KERNEL",
                   {"start", "end", "deviceId", "streamId", "correlationId", "demangledName", "shortName"},
                   {{"globalPid", NC_GLOBAL_PID}}},
    [NT_MEMCPY] = {"CUPTI_ACTIVITY_KIND_MEMCPY",
                   {"start", "end", "deviceId", "streamId", "correlationId", "copyKind"},
                   {{"globalPid", NC_GLOBAL_PID}, {"srcKind", NC_SRC_KIND}, {"dstKind", NC_SRC_KIND}}},
    [NT_MEMSET] = {"CUPTI_ACTIVITY_KIND_MEMSET",
                   {"start", "end", "deviceId", "streamId", "correlationId"},
                   {{"globalPid", NC_GLOBAL_PID}, {"memKind", NC_MEM_KIND}}},
    [NT_SYNC] = {"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                 {"start", "end", "deviceId", "streamId", "correlationId"},
                 {{"globalPid", NC_GLOBAL_PID}}},
    [NT_RUNTIME] = {"CUPTI_ACTIVITY_KIND_RUNTIME",
                    {"start", "end", "eventClass", "globalTid", "correlationId", "nameId"},
                    {{NULL, 0}}},
    [NT_NVTX] = {"NVTX_EVENTS", {"start", "end", "eventType", "globalTid", "text", "textId"}, {{NULL, 0}}},
    [NT_STRINGS] = {"StringIds", {"id", "value"}, {{NULL, 0}}},
    [NT_GPU] = {"TARGET_INFO_GPU", {"id", "name"}, {{"cuDevice", NC_CU_DEVICE}}},
    [NT_CUDA_DEVICE] = {"TARGET_INFO_CUDA_DEVICE", {"gpuId", "cudaId", "pid"}, {{NULL, 0}}},
    [NT_META_OLD] = {"EXPORT_META_DATA", {"name", "value"}, {{NULL, 0}}},
    [NT_META] = {"META_DATA_EXPORT", {"name", "value"}, {{NULL, 0}}},
    [NT_CAPTURE] = {"META_DATA_CAPTURE", {"name", "value"}, {{NULL, 0}}},
    [NT_EVENT_TYPES] = {"ENUM_NSYS_EVENT_TYPE", {"id", "name"}, {{NULL, 0}}},
    [NT_THREAD_NAMES] = {"ThreadNames", {"nameId", "globalTid"}, {{NULL, 0}}},
    [NT_OSRT] = {"OSRT_API", {"start", "end", "globalTid", "nameId"}, {{NULL, 0}}},
    [NT_PROCESSES] = {"PROCESSES", {"pid", "name"}, {{NULL, 0}}},
    [NT_SAMPLES] = {"COMPOSITE_EVENTS", {"start"}, {{"id", NC_SAMPLE_ID}, {"globalTid", NC_SAMPLE_TID}}},
    [NT_CALLCHAINS] = {"SAMPLING_CALLCHAINS",
                       {"id"},
                       {{"symbol", NC_CHAIN_SYMBOL}, {"stackDepth", NC_CHAIN_DEPTH}}},
};

/* The NVTX event types the reader selects, by the names nsys gives them. */
static const struct {
	int id;
	const char *name;
} nvtx_types[] = {{59, "NvtxPushPopRange"}, {60, "NvtxStartEndRange"}};

const char *nsys_table_name(nsys_table t)
{
	return tables[t].name;
}

static ns_status sql_error(sqlite3 *db, ns_error *err)
{
	return ns_error_set(err, NS_ERR_IO,
	                    "reading the database schema: %s (a damaged or truncated export?)",
	                    sqlite3_errmsg(db));
}

/* 1: a table; 0: no object of that name; an error for anything else of that name. */
static ns_status find_table(sqlite3 *db, const char *name, bool *found, ns_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*found = false;
	if (sqlite3_prepare_v2(db, "SELECT type FROM sqlite_master WHERE name = ?1 COLLATE NOCASE", -1, &st,
	                       NULL) != SQLITE_OK)
		return sql_error(db, err);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		if (type == NULL || strcmp(type, "table") != 0) {
			char shown[32];
			snprintf(shown, sizeof(shown), "%s", type != NULL ? type : "object");
			sqlite3_finalize(st);
			return ns_error_set(err, NS_ERR_VALUE,
			                    "%s is a %s, not a table: not an Nsight Systems export", name,
			                    shown);
		}
		*found = true;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? NS_OK : sql_error(db, err);
}

/* The table's columns against its definition: required ones must all be there. */
static ns_status check_columns(sqlite3 *db, const table_def *t, unsigned *cols, ns_error *err)
{
	sqlite3_stmt *st = NULL;
	unsigned required = 0;
	int rc, pk_id = 0, pks = 0;

	*cols = 0;
	if (sqlite3_prepare_v2(db, "SELECT name, type, pk FROM pragma_table_info(?1)", -1, &st, NULL) !=
	    SQLITE_OK)
		return sql_error(db, err);
	sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);
		int pk = sqlite3_column_int(st, 2);
		if (name == NULL)
			continue;
		pks += pk > 0;
		for (int k = 0; t->required[k] != NULL; k++)
			if (strcasecmp(name, t->required[k]) == 0) {
				required |= 1u << k;
				pk_id |=
				    k == 0 && pk == 1 && type != NULL && strcasecmp(type, "INTEGER") == 0;
			}
		for (int k = 0; k < 3 && t->optional[k].name != NULL; k++)
			if (strcasecmp(name, t->optional[k].name) == 0)
				*cols |= t->optional[k].bit;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_error(db, err);
	for (int k = 0; t->required[k] != NULL; k++)
		if (!(required & (1u << k)))
			return ns_error_set(err, NS_ERR_VALUE,
			                    "table %s has no column %s: not an export layout nextstep knows "
			                    "(docs/nsys.md lists the columns read)",
			                    t->name, t->required[k]);
	if (t == &tables[NT_STRINGS] && (!pk_id || pks != 1))
		return ns_error_set(
		    err, NS_ERR_VALUE,
		    "StringIds.id is not its INTEGER PRIMARY KEY: not an Nsight Systems export "
		    "(each name lookup would scan the table)");
	return NS_OK;
}

/* Exports from the 3.x schemas have the event-type enum: the NVTX ranges must be the types selected. */
static ns_status check_event_types(sqlite3 *db, ns_error *err)
{
	sqlite3_stmt *st = NULL;
	ns_status status = NS_OK;

	if (sqlite3_prepare_v2(db, "SELECT name FROM ENUM_NSYS_EVENT_TYPE WHERE id = ?1", -1, &st, NULL) !=
	    SQLITE_OK)
		return sql_error(db, err);
	for (size_t k = 0; k < sizeof(nvtx_types) / sizeof(nvtx_types[0]) && status == NS_OK; k++) {
		sqlite3_reset(st);
		sqlite3_bind_int(st, 1, nvtx_types[k].id);
		if (sqlite3_step(st) == SQLITE_ROW) {
			const unsigned char *name = sqlite3_column_text(st, 0);
			if (name == NULL || strcmp((const char *)name, nvtx_types[k].name) != 0)
				status = ns_error_set(
				    err, NS_ERR_VALUE,
				    "ENUM_NSYS_EVENT_TYPE numbers its event types differently (%d is "
				    "not %s): not an export layout nextstep knows",
				    nvtx_types[k].id, nvtx_types[k].name);
		}
	}
	sqlite3_finalize(st);
	return status;
}

static void read_version(sqlite3 *db, nsys_schema *s)
{
	sqlite3_stmt *st = NULL;
	char sql[96];

	s->version[0] = '\0';
	if (!s->has[NT_META] && !s->has[NT_META_OLD])
		return;
	snprintf(sql, sizeof(sql), "SELECT value FROM %s WHERE name = 'EXPORT_SCHEMA_VERSION'",
	         tables[s->has[NT_META] ? NT_META : NT_META_OLD].name);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) == SQLITE_TEXT)
		snprintf(s->version, sizeof(s->version), "%.*s", (int)sizeof(s->version) - 1,
		         (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

ns_status nsys_schema_read(sqlite3 *db, nsys_schema *s, ns_error *err)
{
	static const nsys_table events[] = {NT_KERNEL,  NT_MEMCPY, NT_MEMSET, NT_SYNC,
	                                    NT_RUNTIME, NT_NVTX,   NT_OSRT};
	bool any = false;
	ns_status st;

	memset(s, 0, sizeof(*s));
	for (int t = 0; t < NT_COUNT; t++) {
		if ((st = find_table(db, tables[t].name, &s->has[t], err)) != NS_OK)
			return st;
		if (s->has[t] && (st = check_columns(db, &tables[t], &s->cols[t], err)) != NS_OK)
			return st;
	}
	for (size_t k = 0; k < sizeof(events) / sizeof(events[0]); k++) {
		any = any || s->has[events[k]];
		if (s->has[events[k]] && events[k] != NT_MEMCPY && events[k] != NT_MEMSET &&
		    events[k] != NT_SYNC && !s->has[NT_STRINGS])
			return ns_error_set(err, NS_ERR_VALUE,
			                    "the database has %s but no StringIds table for its names",
			                    tables[events[k]].name);
	}
	if (!any && !s->has[NT_META] && !s->has[NT_META_OLD])
		return ns_error_set(
		    err, NS_ERR_VALUE,
		    "an SQLite database, but not an Nsight Systems export: none of its tables "
		    "(CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME, NVTX_EVENTS, "
		    "META_DATA_EXPORT, ...)");
	if (s->has[NT_EVENT_TYPES] && (st = check_event_types(db, err)) != NS_OK)
		return st;
	read_version(db, s);
	return NS_OK;
}
