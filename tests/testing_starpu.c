/* cmocka group set-up and tear-down that start and stop StarPU with the workers the test
 * environment asks for (CPU-only under ctest). */
#include <starpu.h>
#include <time.h>

#include "testing.h"

int testing_starpu_start(void **state) {
  (void)state;
  return starpu_init(NULL) == 0 ? 0 : -1;
}

int testing_starpu_stop(void **state) {
  (void)state;
  starpu_shutdown();
  return 0;
}

/* The task's cl_arg: the microseconds to hold the core, a double. */
static void spin_cpu(void *buffers[], void *argument) {
  (void)buffers;
  const double us = *(const double *)argument;
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do
    clock_gettime(CLOCK_MONOTONIC, &now);
  while ((now.tv_sec - start.tv_sec) * 1e6 + (now.tv_nsec - start.tv_nsec) / 1e3 < us);
}

static struct starpu_codelet spin_codelet = {
    .cpu_funcs = {spin_cpu}, .nbuffers = 0, .name = "test_spin"};

int testing_spin_on_worker(int workerid, const double *microseconds) {
  struct starpu_task *task = starpu_task_create();
  task->cl = &spin_codelet;
  task->cl_arg = (void *)microseconds;
  task->cl_arg_size = sizeof *microseconds;
  task->execute_on_a_specific_worker = 1;
  task->workerid = (unsigned)workerid;
  return starpu_task_submit(task);
}
