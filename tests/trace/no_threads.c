/* A pthread_create that always fails with EAGAIN, as when a process is at its thread limit (tests/trace/
 * chunk-same.sh preloads it): every helper thread nextstep would start (the parse worker, the placement
 * beside the split's end, gzip's inflate thread, the pool's workers) must then be done on the calling
 * thread, with the output of one thread. With PTHREAD_FAILS_MARK set, a refusal creates that file, so the
 * test knows a thread was asked for. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
	const char *mark = getenv("PTHREAD_FAILS_MARK");
	int fd = mark != NULL ? open(mark, O_WRONLY | O_CREAT, 0600) : -1;

	(void)thread;
	(void)attr;
	(void)start;
	(void)arg;
	if (fd >= 0)
		close(fd);
	return EAGAIN;
}
