/* The ordered worker pool (cli_parallel.h). Workers take the next task index under one mutex and mark it
 * done; the caller's thread waits for the tasks in index order and emits each. Tasks are whole files, so one
 * lock per task costs nothing next to the work. */
#define _POSIX_C_SOURCE 200809L
#include "cli_parallel.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
	pthread_mutex_t mu;
	pthread_cond_t finished; /* broadcast whenever a task is done */
	size_t ntasks, next;     /* next: the first task not yet taken */
	bool stop;               /* the emitter said stop: take no more tasks */
	bool *done;
	cli_task_fn task;
	void *ctx;
} pool;

typedef struct {
	pool *p;
	unsigned worker;
} worker_arg;

/* The next task to run, or false when there is none left (or the emitter stopped). */
static bool take_task(pool *p, size_t *index)
{
	bool got;

	pthread_mutex_lock(&p->mu);
	got = !p->stop && p->next < p->ntasks;
	if (got)
		*index = p->next++;
	pthread_mutex_unlock(&p->mu);
	return got;
}

static void *worker_main(void *arg)
{
	const worker_arg *w = arg;
	pool *p = w->p;
	size_t i;

	while (take_task(p, &i)) {
		p->task(p->ctx, i, w->worker);
		pthread_mutex_lock(&p->mu);
		p->done[i] = true;
		pthread_cond_broadcast(&p->finished);
		pthread_mutex_unlock(&p->mu);
	}
	return NULL;
}

static void run_inline(size_t ntasks, cli_task_fn task, cli_emit_fn emit, void *ctx)
{
	for (size_t i = 0; i < ntasks; i++) {
		task(ctx, i, 0);
		if (!emit(ctx, i))
			return;
	}
}

/* Emits the tasks in order as they finish; on a stop, lets the workers run dry. */
static void emit_in_order(pool *p, cli_emit_fn emit)
{
	for (size_t i = 0; i < p->ntasks; i++) {
		bool go;
		pthread_mutex_lock(&p->mu);
		while (!p->done[i])
			pthread_cond_wait(&p->finished, &p->mu);
		pthread_mutex_unlock(&p->mu);
		go = emit(p->ctx, i);
		if (!go) {
			pthread_mutex_lock(&p->mu);
			p->stop = true;
			pthread_mutex_unlock(&p->mu);
			return;
		}
	}
}

/* Starts up to n workers; returns how many started. */
static unsigned start_workers(pool *p, pthread_t *threads, worker_arg *args, unsigned n)
{
	unsigned started = 0;

	for (unsigned w = 0; w < n; w++) {
		args[started] = (worker_arg){p, started};
		if (pthread_create(&threads[started], NULL, worker_main, &args[started]) == 0)
			started++;
	}
	return started;
}

void cli_pool_run(size_t ntasks, unsigned workers, cli_task_fn task, cli_emit_fn emit, void *ctx)
{
	pool p = {.ntasks = ntasks, .task = task, .ctx = ctx};
	pthread_t *threads = NULL;
	worker_arg *args = NULL;
	unsigned started = 0;

	if (workers > ntasks)
		workers = (unsigned)ntasks;
	if (workers > 1) {
		p.done = calloc(ntasks, sizeof(*p.done));
		threads = calloc(workers, sizeof(*threads));
		args = calloc(workers, sizeof(*args));
	}
	if (p.done != NULL && threads != NULL && args != NULL) {
		pthread_mutex_init(&p.mu, NULL);
		pthread_cond_init(&p.finished, NULL);
		started = start_workers(&p, threads, args, workers);
		if (started > 0)
			emit_in_order(&p, emit);
		for (unsigned w = 0; w < started; w++)
			pthread_join(threads[w], NULL);
		pthread_cond_destroy(&p.finished);
		pthread_mutex_destroy(&p.mu);
	}
	if (started == 0) /* one worker asked for, or no thread (nor memory for the pool) to be had */
		run_inline(ntasks, task, emit, ctx);
	free(p.done);
	free(threads);
	free(args);
}

unsigned cli_default_workers(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > CLI_WORKERS_MAX ? CLI_WORKERS_MAX : (unsigned)n;
}
