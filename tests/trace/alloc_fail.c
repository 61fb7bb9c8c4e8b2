/* Preloaded by tests/trace/alloc-fail.sh: makes one allocation fail (malloc, calloc and realloc counted
 * together) and judges what the program does then.
 *
 * ALLOC_SWEEP=all or N (the last N allocations): the library's constructor, which runs before main, drives
 * the whole test in this one process start. It forks the program, still before main, once with no failure
 * (the reference: its output, exit status and allocation count) and then once for each allocation to fail,
 * and judges each run: it must either exit 1 with a line "nextstep: ..." (out of memory, or what could not be
 * done for want of it) or print exactly what the reference printed, with its exit status (and write the same
 * ALLOC_SWEEP_PAGE, when set); it may not crash or hang. Each run's standard output and error go to one file
 * in ALLOC_SWEEP_DIR. The driver prints a line for each bad run and ends with "alloc-sweep: N runs, N bad";
 * it never reaches main. A fork costs a fraction of an exec of the program and its libraries: measured in
 * the commit that made it.
 *
 * ALLOC_FAIL_AT=N (from 1; 0 or unset: none fails) makes allocation N fail in a plain run, to look at one
 * under a debugger. The real functions come from dlsym, which may itself call calloc before it has found
 * calloc: those first few come from a small static pool. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned long made, fail_at;
static int fail_at_read;
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static _Alignas(16) char pool[4096];
/* dlsym's object pointer stored into a function pointer, as POSIX has it (ISO C has no such conversion) */
#define REAL(fn, name) (*(void **)(&(fn)) = dlsym(RTLD_NEXT, name))
static size_t pool_used;
/* In a sweep's run: where it leaves its allocation count at exit, for the driver (shared memory). */
static unsigned long *count_out;

static int fails_now(void)
{
	unsigned long n = __atomic_add_fetch(&made, 1, __ATOMIC_RELAXED);

	if (!fail_at_read) {
		const char *s = getenv("ALLOC_FAIL_AT");
		fail_at = s != NULL ? strtoul(s, NULL, 10) : 0;
		fail_at_read = 1;
	}
	if (fail_at == 0 || n != fail_at)
		return 0;
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	if (real_malloc == NULL)
		REAL(real_malloc, "malloc");
	return fails_now() ? NULL : real_malloc(n);
}

void *calloc(size_t count, size_t size)
{
	if (real_calloc == NULL) {
		size_t n = count * size;
		if (pool_used + n <= sizeof(pool)) { /* dlsym's own, before calloc is known */
			void *p = pool + pool_used;
			pool_used += (n + 15) & ~(size_t)15;
			return p;
		}
		REAL(real_calloc, "calloc");
	}
	return fails_now() ? NULL : real_calloc(count, size);
}

void *realloc(void *p, size_t n)
{
	if (real_realloc == NULL)
		REAL(real_realloc, "realloc");
	return fails_now() ? NULL : real_realloc(p, n);
}

void free(void *p)
{
	if ((char *)p >= pool && (char *)p < pool + sizeof(pool))
		return;
	if (real_free == NULL)
		REAL(real_free, "free");
	real_free(p);
}

__attribute__((destructor)) static void leave_count(void)
{
	if (count_out != NULL)
		*count_out = made;
}

/* ---- the sweep's driver: no allocation of its own (its runs start from its count), output by write() ----
 */

__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0 && write(1, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1) < 0)
		_exit(2);
}

typedef struct {
	const char *dir, *page;
	char got[4096], want[4096], want_page[4096];
	unsigned long base; /* the allocations made before main, the same in every run */
} sweep;

typedef struct {
	char *p;
	size_t n;
	bool ok;
} mapped;

static mapped map_file(const char *path)
{
	mapped m = {NULL, 0, false};
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return m;
	if (fstat(fd, &st) == 0) {
		m.n = (size_t)st.st_size;
		m.p = m.n > 0 ? mmap(NULL, m.n, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
		m.ok = m.n == 0 || m.p != MAP_FAILED;
	}
	close(fd);
	return m;
}

static void unmap_file(mapped *m)
{
	if (m->ok && m->n > 0)
		munmap(m->p, m->n);
}

static bool same_files(const char *a, const char *b)
{
	mapped x = map_file(a), y = map_file(b);
	bool same = x.ok && y.ok && x.n == y.n && (x.n == 0 || memcmp(x.p, y.p, x.n) == 0);

	unmap_file(&x);
	unmap_file(&y);
	return same;
}

/* Whether the file has a line that starts "nextstep: " (a message). */
static bool has_message(const char *path)
{
	static const char word[] = "nextstep: ";
	mapped m = map_file(path);
	bool found = false;

	for (size_t i = 0; m.ok && i + sizeof(word) - 1 <= m.n && !found; i++)
		found = (i == 0 || m.p[i - 1] == '\n') && memcmp(m.p + i, word, sizeof(word) - 1) == 0;
	unmap_file(&m);
	return found;
}

/* The first lines of what a run printed, indented (at most 400 bytes). */
static void show_start(const char *path)
{
	mapped m = map_file(path);
	size_t n = m.ok ? (m.n < 400 ? m.n : 400) : 0;

	for (size_t i = 0, end; i < n; i = end + 1) {
		for (end = i; end < n && m.p[end] != '\n'; end++)
			;
		say("    %.*s\n", (int)(end - i), m.p + i);
	}
	unmap_file(&m);
}

/* Forks a run that fails allocation at (0: none): true in the run, which goes on into main; in the driver
 * false, with the run's wait status. */
static bool run(const sweep *s, unsigned long at, int *status)
{
	pid_t pid;

	if (s->page != NULL)
		unlink(s->page);
	pid = fork();
	if (pid < 0) {
		say("alloc-sweep: fork: %s\n", strerror(errno));
		_exit(2);
	}
	if (pid == 0) {
		int fd = open(at == 0 ? s->want : s->got, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(125);
		close(fd);
		alarm(60); /* a run that hangs is killed, and judged as a crash */
		made = s->base;
		fail_at = at;
		fail_at_read = 1;
		return true;
	}
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR) {
			say("alloc-sweep: waitpid: %s\n", strerror(errno));
			_exit(2);
		}
	return false;
}

/* Whether a run that failed allocation at ended as it may: a message and exit 1, or the reference's
 * output, page and status. Says why not. */
static bool judge(const sweep *s, unsigned long at, unsigned long total, int status, int want_status)
{
	if (WIFSIGNALED(status)) {
		say("FAIL: allocation %lu of %lu failing: signal %d (a crash, or a hang past 60 s)\n", at,
		    total, WTERMSIG(status));
		return false;
	}
	if (WEXITSTATUS(status) == 1 && has_message(s->got))
		return true;
	if (status == want_status && same_files(s->got, s->want) &&
	    (s->page == NULL || access(s->want_page, F_OK) != 0 || same_files(s->page, s->want_page)))
		return true;
	say("FAIL: allocation %lu of %lu failing: exit %d, and not the report without a failure:\n", at,
	    total, WEXITSTATUS(status));
	show_start(s->got);
	return false;
}

__attribute__((constructor)) static void drive_sweep(void)
{
	const char *spec = getenv("ALLOC_SWEEP");
	static sweep s;
	unsigned long total, first, runs = 0, bad = 0;
	int want_status, status;

	if (spec == NULL)
		return;
	s.dir = getenv("ALLOC_SWEEP_DIR");
	s.page = getenv("ALLOC_SWEEP_PAGE");
	if (s.page != NULL && s.page[0] == '\0')
		s.page = NULL;
	if (s.dir == NULL) {
		say("alloc-sweep: ALLOC_SWEEP_DIR is not set\n");
		_exit(2);
	}
	snprintf(s.got, sizeof(s.got), "%s/got", s.dir);
	snprintf(s.want, sizeof(s.want), "%s/want", s.dir);
	snprintf(s.want_page, sizeof(s.want_page), "%s/want-page", s.dir);
	unlink(s.want_page);
	count_out = mmap(NULL, sizeof(*count_out), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (count_out == MAP_FAILED) {
		say("alloc-sweep: mmap: %s\n", strerror(errno));
		_exit(2);
	}
	unsetenv("ALLOC_SWEEP"); /* a program the runs start is not a sweep */
	s.base = made;
	if (run(&s, 0, &want_status))
		return;
	total = *count_out;
	if (WIFSIGNALED(want_status) || total < s.base + 10) {
		say("alloc-sweep: the run without a failure %s\n",
		    WIFSIGNALED(want_status) ? "crashed" : "made fewer than 10 allocations");
		_exit(2);
	}
	if (s.page != NULL && access(s.page, F_OK) == 0 && rename(s.page, s.want_page) != 0)
		_exit(2);
	first = s.base + 1;
	if (strcmp(spec, "all") != 0) {
		unsigned long last = strtoul(spec, NULL, 10);
		first = total - s.base > last ? total - last + 1 : s.base + 1;
	}
	for (unsigned long at = first; at <= total; at++) {
		if (run(&s, at, &status))
			return;
		runs++;
		bad += !judge(&s, at, total, status, want_status);
	}
	say("alloc-sweep: %lu runs, %lu bad\n", runs, bad);
	_exit(bad == 0 ? 0 : 1);
}
