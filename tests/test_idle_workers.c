/* StarPU as scripts/setup.sh builds it (--enable-blocking-drivers with
 * scripts/starpu-patches/03-blocking-cpu-workers-only.patch): an idle CPU worker sleeps instead of
 * polling, so it leaves its core to a GPU's driver thread and to other programs (BENCHMARKS.md,
 * "CPU workers that sleep while idle"), and it still wakes for the next task. A StarPU whose idle
 * workers poll fails the first test: its idle workers then share the cores with the busy one (the
 * dev machine's polling build: 266-273 of 400 ms each, the busy one 264-268). */
#define _GNU_SOURCE /* syscall */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <starpu.h>

#include "runtime.h"
#include "testing.h"

#define MAX_WORKERS 256
static pid_t worker_threads[MAX_WORKERS];

static void note_thread(void *unused) {
  (void)unused;
  const int worker = starpu_worker_get_id();
  if (worker >= 0 && worker < MAX_WORKERS)
    worker_threads[worker] = (pid_t)syscall(SYS_gettid);
}

/* Nanoseconds the thread has run on a core (Linux schedstat); -1 where it cannot be read. */
static long long thread_ran_ns(pid_t thread) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)thread);
  FILE *file = fopen(path, "r");
  if (!file)
    return -1;
  long long ran = -1;
  if (fscanf(file, "%lld", &ran) != 1)
    ran = -1;
  fclose(file);
  return ran;
}

static void sleep_ms(long ms) {
  struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&pause, &pause) != 0)
    ;
}

static int start(void **state) {
  (void)state;
  setenv("STARPU_NCPU", "3", 1); /* one busy, two idle (below) */
  struct hines_error err = {0};
  if (runtime_start(NULL, &err) != 0) {
    fprintf(stderr, "runtime_start: %s\n", err.message);
    return -1;
  }
  return 0;
}

static int stop(void **state) {
  (void)state;
  runtime_stop();
  return 0;
}

static void idle_cpu_workers_leave_their_cores(void **state) {
  (void)state;
  const int workers = (int)starpu_cpu_worker_get_count();
  assert_true(workers >= 2);
  starpu_execute_on_each_worker(note_thread, NULL, STARPU_CPU);
  pid_t threads[MAX_WORKERS];
  for (int i = 0; i < workers; i++)
    threads[i] = worker_threads[starpu_worker_get_by_type(STARPU_CPU_WORKER, i)];
  if (thread_ran_ns(threads[0]) < 0)
    skip(); /* no schedstat (a kernel without CONFIG_SCHEDSTATS) */
  /* StarPU 1.3 keeps the last awake worker of a scheduling context polling
   * (_starpu_sched_ctx_last_worker_awake), and two idle workers can each take the other for
   * awake: so one worker is kept busy, as a GPU's driver thread is during a run, and every other
   * one must sleep. */
  const long idle_ms = 400;
  const double spin_us = 700e3; /* the busy worker, past the measured interval */
  assert_int_equal(
      testing_spin_on_worker(starpu_worker_get_by_type(STARPU_CPU_WORKER, 0), &spin_us), 0);
  sleep_ms(100); /* the task runs, the other workers' last pops end */
  long long before[MAX_WORKERS];
  for (int i = 0; i < workers; i++)
    before[i] = thread_ran_ns(threads[i]);
  sleep_ms(idle_ms);
  long long ran[MAX_WORKERS];
  for (int i = 0; i < workers; i++) {
    ran[i] = thread_ran_ns(threads[i]) - before[i];
    printf("# CPU worker %d (%s) ran %.1f of %ld ms\n", i, i ? "idle" : "busy", ran[i] / 1e6,
           idle_ms);
  }
  starpu_task_wait_for_all();
  /* The busy worker shows the measure works. A polling idle worker shares the cores with it and
   * runs about as long (the dev machine: 266-273 ms each of 400, the busy one 264-268), a sleeping
   * one only StarPU's housekeeping (0.0 ms). Against the busy worker, not the interval: other
   * tests running beside this one (ctest -j) take the cores from all of them alike. */
  assert_true(ran[0] > idle_ms * 1000000LL / 10);
  for (int i = 1; i < workers; i++)
    if (ran[i] > ran[0] / 4)
      fail_msg("idle CPU worker %d ran %.1f ms beside a busy one's %.1f: StarPU's idle workers "
               "poll (scripts/setup.sh builds it with --enable-blocking-drivers)",
               i, ran[i] / 1e6, ran[0] / 1e6);
}

static void sleeping_workers_wake_for_new_tasks(void **state) {
  (void)state;
  const int workers = (int)starpu_cpu_worker_get_count();
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < workers; i++)
      worker_threads[starpu_worker_get_by_type(STARPU_CPU_WORKER, i)] = 0;
    sleep_ms(50); /* asleep again */
    starpu_execute_on_each_worker(note_thread, NULL, STARPU_CPU);
    for (int i = 0; i < workers; i++)
      assert_true(worker_threads[starpu_worker_get_by_type(STARPU_CPU_WORKER, i)] > 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(idle_cpu_workers_leave_their_cores),
      cmocka_unit_test(sleeping_workers_wake_for_new_tasks),
  };
  return cmocka_run_group_tests(tests, start, stop);
}
