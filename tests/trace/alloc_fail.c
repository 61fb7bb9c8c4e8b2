/* Preloaded by tests/trace/alloc-fail.sh: allocation number ALLOC_FAIL_AT (malloc, calloc and realloc counted
 * together, from 1) returns NULL with ENOMEM, as when memory runs out at that point; 0 or unset: none fails.
 * With ALLOC_COUNT_FILE set, the number of allocations made is written there at exit, so the test knows how
 * many points to try. The real functions come from dlsym, which may itself call calloc before it has found
 * calloc: those first few come from a small static pool. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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

__attribute__((destructor)) static void write_count(void)
{
	const char *path = getenv("ALLOC_COUNT_FILE");
	FILE *f = path != NULL ? fopen(path, "w") : NULL;

	if (f != NULL) {
		fprintf(f, "%lu\n", made);
		fclose(f);
	}
}
