/* libsqlite3 opened on first use (nsys_sqlite.h says why). */
#include "nsys/nsys_sqlite.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The library's soname: the one ABI of SQLite 3, which keeps old entry points for good. */
#define SQLITE_SONAME "libsqlite3.so.0"

nsys_sqlite_api nsys_sq;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256]; /* "" once loaded */

/* Copies the symbol's address into a function pointer: ISO C has no cast from void * to one. */
#define NSYS_SQLITE_BIND(f)                                                                                  \
	if (ok) {                                                                                            \
		void *sym = dlsym(lib, "sqlite3_" #f);                                                       \
		_Static_assert(sizeof(sym) == sizeof(nsys_sq.f), "function and data pointers differ");       \
		if (sym == NULL) {                                                                           \
			snprintf(load_error, sizeof(load_error), "%s has no sqlite3_%s", SQLITE_SONAME, #f); \
			ok = false;                                                                          \
		} else {                                                                                     \
			memcpy(&nsys_sq.f, &sym, sizeof(sym));                                               \
		}                                                                                            \
	}

static void load(void)
{
	/* Kept open for the process's life: the reader may run again on another export. */
	void *lib = dlopen(SQLITE_SONAME, RTLD_NOW | RTLD_LOCAL);
	bool ok = lib != NULL;

	if (!ok) {
		const char *why = dlerror();
		snprintf(load_error, sizeof(load_error), "%s",
		         why != NULL ? why : SQLITE_SONAME " not found");
		return;
	}
	NSYS_SQLITE_FUNCTIONS(NSYS_SQLITE_BIND)
	if (!ok)
		memset(&nsys_sq, 0, sizeof(nsys_sq));
}

bool nsys_sqlite_load(ns_error *err)
{
	pthread_once(&load_once, load);
	if (load_error[0] == '\0')
		return true;
	if (err != NULL)
		ns_error_set(err, NS_ERR_IO, "cannot read Nsight Systems exports: %s", load_error);
	return false;
}
