/* A qsort that puts records which compare equal in the reverse of their order (tests/trace/ties.sh preloads
 * it): it reverses the table, then merge-sorts it stably. A qsort may order ties any way it likes (glibc's
 * keeps them, musl's and the BSDs' do not), so output that changes under this one would change with the C
 * library. With QSORT_REVERSED_MARK set, loading it creates that file, so the test knows it was preloaded. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor)) static void mark_loaded(void)
{
	const char *mark = getenv("QSORT_REVERSED_MARK");
	int fd = mark != NULL ? open(mark, O_WRONLY | O_CREAT, 0600) : -1;

	if (fd >= 0)
		close(fd);
}

static void swap_bytes(char *a, char *b, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		char t = a[i];
		a[i] = b[i];
		b[i] = t;
	}
}

static void merge_sort(char *b, char *tmp, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	size_t half = n / 2, i = 0, j = half, k = 0;

	if (n < 2)
		return;
	merge_sort(b, tmp, half, size, cmp);
	merge_sort(b + half * size, tmp, n - half, size, cmp);
	while (i < half || j < n) {
		size_t from = j == n || (i < half && cmp(b + j * size, b + i * size) >= 0) ? i++ : j++;
		memcpy(tmp + k++ * size, b + from * size, size);
	}
	memcpy(b, tmp, n * size);
}

void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *b = base, *tmp;

	if (n < 2)
		return;
	if ((tmp = malloc(n * size)) == NULL)
		abort();
	for (size_t i = 0, j = n - 1; i < j; i++, j--)
		swap_bytes(b + i * size, b + j * size, size);
	merge_sort(b, tmp, n, size, cmp);
	free(tmp);
}
