/* CPU workers that step aside for a GPU's driver thread.
 *
 * A GPU's driver thread launches its kernels and polls their end. Beside the cores' share every
 * core runs a StarPU thread, so a process that starts during the run takes a core from one of
 * them; where that is the driver's core, the kernel's scheduler gives the driver half of it, and
 * every kernel waits (BENCHMARKS.md, "The GPU's driver thread waiting for its core": 100-340 ms
 * of a 0.7 s run, the share's short rounds). The driver thread measures how long it waited
 * while runnable (Linux's schedstat); past a threshold one more CPU worker, the one that waited
 * least (its core has no other process), takes no further task and sleeps, so its core goes
 * idle and the kernel moves the waiting process there. A parked worker stays parked until the
 * run ends. */
#ifndef WORKER_GUARD_H
#define WORKER_GUARD_H

#include <starpu.h>
#include <sys/types.h>

/* 1: the guard runs (the default, once measured); 0: never parks. */
#ifndef WORKER_GUARD_PARK
#define WORKER_GUARD_PARK 0
#endif

/* Starts the guard afresh for StarPU's CPU workers: thread[i] is the Linux thread id of StarPU
 * worker worker[i]; n of them. */
void worker_guard_start(const int *worker, const pid_t *thread, int n);
/* Called on a worker's thread after each task: on a CUDA driver thread, the wait check. */
void worker_guard_task_ended(void);
/* The codelets' can_execute: a parked CPU worker takes no task. */
int worker_guard_can_execute(unsigned workerid, struct starpu_task *task, unsigned nimpl);
/* How many CPU workers the run parked so far. */
int worker_guard_parked(void);
/* Parks worker (a StarPU worker id); the guard's own choice and the tests'. */
void worker_guard_park(int worker);

#endif
