/* Hostile Nsight Systems exports, made by SQLite itself: the fuzzer's bytes are an SQL script run into an
 * in-memory database (so mutations reach wrong types, NULLs, huge and odd strings, missing or extra tables
 * and columns, views, dangling and cyclic ids), or, when they start with SQLite's header, a database image
 * read as it is (corrupt pages). The database then goes through the reader the CLI runs (nsys_read_db, with
 * nsys_limit_db's limits) into the split, whose buckets must sum exactly to every step. The script itself
 * runs under a step budget, without ATTACH (no files) or PRAGMA. */
#define _GNU_SOURCE
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/kernel_rules.h"
#include "nextstep/nsys_read.h"
#include "nextstep/trace_split.h"
#include "nsys/nsys_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Virtual-machine steps the script may take (checked every 1000), and the longest string it may build. */
#define SCRIPT_STEPS  20000
#define SCRIPT_STRING (1 << 20)

static ns_kernel_rules *rules;

static int budget(void *ctx)
{
	int *left = ctx;

	return --*left < 0;
}

static int no_files(void *ctx, int action, const char *a, const char *b, const char *c, const char *d)
{
	(void)ctx;
	(void)a;
	(void)b;
	(void)c;
	(void)d;
	return action == SQLITE_ATTACH || action == SQLITE_DETACH || action == SQLITE_PRAGMA ? SQLITE_DENY
	                                                                                     : SQLITE_OK;
}

static sqlite3 *database_of(const uint8_t *data, size_t size)
{
	sqlite3 *db = NULL;
	int left = SCRIPT_STEPS;

	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) != SQLITE_OK)
		abort();
	if (ns_is_sqlite(data, size)) {
		unsigned char *image = sqlite3_malloc64(size);
		if (image == NULL)
			abort();
		memcpy(image, data, size);
		if (sqlite3_deserialize(db, "main", image, (sqlite3_int64)size, (sqlite3_int64)size,
		                        SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) !=
		    SQLITE_OK) {
			sqlite3_close(db);
			return NULL;
		}
		return db;
	}
	char *script = malloc(size + 1);
	if (script == NULL)
		abort();
	memcpy(script, data, size);
	script[size] = '\0';
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, SCRIPT_STRING);
	sqlite3_set_authorizer(db, no_files, NULL);
	sqlite3_progress_handler(db, 1000, budget, &left);
	sqlite3_exec(db, script, NULL, NULL, NULL); /* what ran before an error stays: a partial export */
	sqlite3_progress_handler(db, 0, NULL, NULL);
	sqlite3_set_authorizer(db, NULL, NULL);
	free(script);
	return db;
}

static void check_buckets(const ns_split_result *res)
{
	for (size_t d = 0; d < res->ndevices; d++) {
		for (size_t w = 0; w < res->device[d].nsteps; w++) {
			ns_split_window x = ns_split_device_step(&res->device[d], w);
			int64_t sum = 0;
			for (int b = 0; b < NS_REGIME_COUNT; b++) {
				if (x.bucket_ns[b] < 0)
					abort();
				sum += x.bucket_ns[b];
			}
			if (sum != x.dur_ns)
				abort();
		}
	}
}

static ns_status count_event(const ns_trace_event *ev, void *ctx, ns_error *err)
{
	(void)ev;
	(void)err;
	++*(long *)ctx;
	return NS_OK;
}

/* StringIds joined row by row (the path for a table past what is held in memory) reads the same: the same
 * status, unless memory ran out on one side. (Not the same events: an id stored as a real, say 5.0, is found
 * by the join's comparison only, and an OS call without a name is not handed on.) */
static void check_joined(sqlite3 *db, ns_status held_st)
{
	ns_trace_meta meta;
	ns_error err;
	long n = 0;
	ns_status st;

	memset(&meta, 0, sizeof(meta));
	ns_error_clear(&err);
	st = nsys_read_db_joining(db, "fuzz", count_event, &n, &meta, &err);
	if (st == NS_ERR_NOMEM || held_st == NS_ERR_NOMEM)
		return;
	if (st != held_st)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sqlite3 *db;
	ns_trace_split *split;
	ns_trace_meta meta;
	ns_split_result res;
	ns_error err;
	ns_status st;

	if (rules == NULL && ns_kernel_rules_default(&rules, &err) != NS_OK)
		abort();
	if ((db = database_of(data, size)) == NULL)
		return 0;
	nsys_limit_db(db);
	if ((split = ns_trace_split_new(rules)) == NULL)
		abort();
	memset(&meta, 0, sizeof(meta));
	memset(&res, 0, sizeof(res));
	ns_error_clear(&err);
	st = nsys_read_db(db, "fuzz", ns_trace_split_event, split, &meta, &err);
	if (st == NS_OK && (meta.ndevices > NS_TRACE_MAX_DEVICES || (meta.has_rank && meta.rank < 0)))
		abort();
	if (st == NS_OK)
		st = ns_trace_split_finish(split, &meta, &res, &err);
	if (st == NS_OK)
		check_buckets(&res);
	if (st != NS_OK && err.msg[0] == '\0')
		abort(); /* every refusal says why */
	check_joined(db, st);
	ns_split_result_free(&res);
	ns_trace_split_free(split);
	sqlite3_close(db);
	return 0;
}
