/* An ordered worker pool for the CLI: n tasks run on up to `workers` threads, and their results are handed
 * to the caller's thread in task order, each as soon as it and every task before it are done. So what is
 * printed stays in input order and is the same whatever the number of workers, while memory holds only the
 * tasks in flight plus the finished ones waiting for an earlier one. With one worker no thread is started:
 * task i runs, then its result is emitted, then task i+1 runs, exactly the sequential loop. */
#ifndef NEXTSTEP_CLI_PARALLEL_H
#define NEXTSTEP_CLI_PARALLEL_H

#include <stdbool.h>
#include <stddef.h>

/* At most this many workers (-j); more would only cost memory, one file's split each. */
#define CLI_WORKERS_MAX 256

/* Runs task `index` on worker `worker` (0 <= worker < the pool's workers, so a worker may keep state of its
 * own in an array the caller sized). Called on a pool thread: it must touch only its task's data and its
 * worker's state. */
typedef void (*cli_task_fn)(void *ctx, size_t index, unsigned worker);
/* Takes the finished task `index`, on the caller's thread, in index order. Returns false to stop: tasks not
 * yet started are then skipped (those running finish and are not emitted). */
typedef bool (*cli_emit_fn)(void *ctx, size_t index);

/* Runs ntasks tasks on min(workers, ntasks) workers (at least one) and emits them in order. A thread that
 * cannot be started is done without: its tasks go to the threads that did start, or to the caller's. */
void cli_pool_run(size_t ntasks, unsigned workers, cli_task_fn task, cli_emit_fn emit, void *ctx);

/* The default -j: the processors online, at least 1, at most CLI_WORKERS_MAX. */
unsigned cli_default_workers(void);

#endif
