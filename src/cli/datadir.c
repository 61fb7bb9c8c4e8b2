#define _XOPEN_SOURCE 700 /* realpath */
#include "datadir.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_common.h"

/* Relative to the binary's folder; CMake derives it from the install layout (bindir -> datadir/nextstep). */
#ifndef NS_DATADIR_FROM_BINDIR
#define NS_DATADIR_FROM_BINDIR "../share/nextstep"
#endif
/* In the build tree CMake copies data/ next to the binary. */
#define BUILD_TREE_DATADIR "share/nextstep"
/* The documentation (fixes.md), likewise: installed in docdir, copied into the build tree. */
#ifndef NS_DOCDIR_FROM_BINDIR
#define NS_DOCDIR_FROM_BINDIR "../share/doc/nextstep"
#endif
#define BUILD_TREE_DOCDIR "share/doc/nextstep"
#define FIXES_FILE        "fixes.md"

#define PATH_MAX_LEN 4096

static bool holds_table(const char *dir)
{
	char path[PATH_MAX_LEN];
	int n = snprintf(path, sizeof(path), "%s/%s", dir, NS_DEVICES_FILE);

	return n > 0 && (size_t)n < sizeof(path) && access(path, R_OK) == 0;
}

/* The folder of the running binary, from /proc/self/exe (Linux); false when it cannot be read. */
static bool exe_dir(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);
	char *slash;

	if (n <= 0 || (size_t)n >= size - 1)
		return false;
	buf[n] = '\0';
	if ((slash = strrchr(buf, '/')) == NULL)
		return false;
	*(slash == buf ? slash + 1 : slash) = '\0';
	return true;
}

static ns_status from_environment(const char *env, char *dir, size_t size, ns_error *err)
{
	if (!holds_table(env))
		return ns_error_set(err, NS_ERR_IO, "no %s in %s=%.300s", NS_DEVICES_FILE, DATADIR_ENV, env);
	if ((size_t)snprintf(dir, size, "%s", env) >= size)
		return ns_error_set(err, NS_ERR_LIMIT, "%s is too long", DATADIR_ENV);
	return NS_OK;
}

ns_status datadir_find(char *dir, size_t size, ns_error *err)
{
	const char *env = getenv(DATADIR_ENV);
	const char *const below[] = {NS_DATADIR_FROM_BINDIR, BUILD_TREE_DATADIR};
	char exe[PATH_MAX_LEN], tried[2][PATH_MAX_LEN + 32];

	if (env != NULL && env[0] != '\0')
		return from_environment(env, dir, size, err);
	if (!exe_dir(exe, sizeof(exe)))
		return ns_error_set(err, NS_ERR_IO,
		                    "cannot find the data directory: /proc/self/exe is unreadable; set %s",
		                    DATADIR_ENV);
	for (size_t i = 0; i < 2; i++) {
		int n = snprintf(tried[i], sizeof(tried[i]), "%s/%s", exe, below[i]);
		if (n > 0 && (size_t)n < sizeof(tried[i]) && holds_table(tried[i])) {
			if ((size_t)snprintf(dir, size, "%s", tried[i]) >= size)
				return ns_error_set(err, NS_ERR_LIMIT,
				                    "the data directory's path is too long");
			return NS_OK;
		}
	}
	return ns_error_set(err, NS_ERR_IO, "no %s in %.200s or %.200s; set %s to the folder that holds it",
	                    NS_DEVICES_FILE, tried[0], tried[1], DATADIR_ENV);
}

int datadir_try_devices(ns_device_table *t)
{
	char dir[PATH_MAX_LEN], path[PATH_MAX_LEN + 32];
	ns_error err, warn;

	ns_devices_init(t);
	ns_error_clear(&err);
	if (datadir_find(dir, sizeof(dir), &err) != NS_OK)
		return EXIT_ROUTED; /* not installed: the advice goes without the peaks */
	if (ns_devices_load_dir(t, dir, path, sizeof(path), &err) == NS_OK)
		return EXIT_ROUTED;
	ns_devices_free(t);
	ns_devices_init(t);
	if (err.status == NS_ERR_NOMEM) { /* not a report that silently lacks the table */
		cli_report_error(NULL, &err);
		return EXIT_BAD_INPUT;
	}
	warn = err; /* a table that is there but cannot be read: said, and left out */
	snprintf(warn.msg, sizeof(warn.msg), "warning: %.200s; going on without the device table", err.msg);
	cli_report_error(path, &warn);
	return EXIT_ROUTED;
}

int datadir_load_devices(ns_device_table *t)
{
	char dir[PATH_MAX_LEN], path[PATH_MAX_LEN + 32];
	ns_error err;

	ns_devices_init(t);
	ns_error_clear(&err);
	if (datadir_find(dir, sizeof(dir), &err) != NS_OK) {
		cli_report_error(NULL, &err);
		return EXIT_BAD_INPUT;
	}
	if (ns_devices_load_dir(t, dir, path, sizeof(path), &err) != NS_OK) {
		cli_report_error(path, &err);
		ns_devices_free(t);
		return EXIT_BAD_INPUT;
	}
	return EXIT_ROUTED;
}

int datadir_find_docs(char *dir, size_t size)
{
	const char *env = getenv(DOCDIR_ENV);
	const char *const below[] = {NS_DOCDIR_FROM_BINDIR, BUILD_TREE_DOCDIR};
	char exe[PATH_MAX_LEN], path[PATH_MAX_LEN + 64];

	if (env != NULL && env[0] != '\0')
		return (size_t)snprintf(dir, size, "%s", env) < size;
	if (!exe_dir(exe, sizeof(exe)))
		return 0;
	for (size_t i = 0; i < 2; i++) {
		int n = snprintf(path, sizeof(path), "%s/%s/%s", exe, below[i], FIXES_FILE);
		if (n <= 0 || (size_t)n >= sizeof(path) || access(path, R_OK) != 0)
			continue;
		char *real;
		bool fits;

		/* the folder, resolved: a path a reader can open, without "bin/.." */
		path[n - sizeof(FIXES_FILE)] = '\0';
		errno = 0;
		if ((real = realpath(path, NULL)) == NULL && errno == ENOMEM)
			return -1; /* not the relative links of a report without the folder */
		if (real == NULL)
			continue;
		fits = (size_t)snprintf(dir, size, "%s", real) < size;
		free(real);
		if (fits)
			return 1;
	}
	return 0;
}
