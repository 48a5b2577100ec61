/* syscall(SYS_gettid), pread */
#define _GNU_SOURCE
#include "worker_guard.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* How often a driver thread reads its wait (reading costs a few microseconds), the share of an
 * interval it may wait before a worker is parked, how long the kernel is given to move the
 * process before the next check can park again, and the most CPU workers parked (a fifth:
 * the cores' share left 14-44 % of its run idle in the measured rounds). */
#define GUARD_INTERVAL_NS 4000000LL
#define GUARD_WAIT_SHARE 0.25
#define GUARD_SETTLE_NS 20000000LL
#define GUARD_MOST_PARKED_SHARE 5

#define GUARD_MAX_WORKERS 1088
static int guard_workers;                      /* CPU workers known to the guard */
static int guard_worker_id[GUARD_MAX_WORKERS]; /* their StarPU ids */
static pid_t guard_thread[GUARD_MAX_WORKERS];  /* and Linux thread ids */
static char parked[STARPU_NMAXWORKERS];        /* by StarPU id (read atomically) */
static int parked_count;                       /* (updated under guard_lock) */
static long long guard_quiet_until_ns;         /* no park before (under guard_lock) */
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* A thread's wait for a core while runnable, in ns (-1 where unreadable); fd: an open
 * schedstat file, re-read from its start. */
static long long waited_ns(int fd) {
  char text[96];
  const ssize_t got = pread(fd, text, sizeof text - 1, 0);
  if (got <= 0)
    return -1;
  text[got] = 0;
  unsigned long long ran, waited;
  return sscanf(text, "%llu %llu", &ran, &waited) == 2 ? (long long)waited : -1;
}

static long long thread_waited_ns(pid_t thread) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)thread);
  const int fd = open(path, O_RDONLY);
  if (fd < 0)
    return -1;
  const long long waited = waited_ns(fd);
  close(fd);
  return waited;
}

void worker_guard_start(const int *worker, const pid_t *thread, int n) {
  pthread_mutex_lock(&guard_lock);
  guard_workers = n < GUARD_MAX_WORKERS ? n : GUARD_MAX_WORKERS;
  for (int i = 0; i < guard_workers; i++)
    guard_worker_id[i] = worker[i], guard_thread[i] = thread[i];
  for (int w = 0; w < STARPU_NMAXWORKERS; w++)
    __atomic_store_n(&parked[w], 0, __ATOMIC_RELAXED);
  parked_count = 0;
  guard_quiet_until_ns = 0;
  pthread_mutex_unlock(&guard_lock);
}

void worker_guard_park(int worker) {
  if (worker < 0 || worker >= STARPU_NMAXWORKERS)
    return;
  if (!__atomic_exchange_n(&parked[worker], 1, __ATOMIC_RELAXED))
    __atomic_add_fetch(&parked_count, 1, __ATOMIC_RELAXED);
}

int worker_guard_parked(void) {
  return __atomic_load_n(&parked_count, __ATOMIC_RELAXED);
}

int worker_guard_can_execute(unsigned workerid, struct starpu_task *task, unsigned nimpl) {
  (void)task, (void)nimpl;
  return workerid >= STARPU_NMAXWORKERS || !__atomic_load_n(&parked[workerid], __ATOMIC_RELAXED);
}

/* Parks the unparked CPU worker that waited least since the last look: its core holds no other
 * process, so once it sleeps the core is idle and takes a waiting one. */
static void park_one(void) {
  static long long last_waited[GUARD_MAX_WORKERS];
  int best = -1;
  long long best_wait = 0;
  for (int i = 0; i < guard_workers; i++) {
    if (__atomic_load_n(&parked[guard_worker_id[i]], __ATOMIC_RELAXED))
      continue;
    const long long waited = thread_waited_ns(guard_thread[i]);
    if (waited < 0)
      continue;
    const long long recent = waited - last_waited[i];
    last_waited[i] = waited;
    if (best < 0 || recent < best_wait)
      best = i, best_wait = recent;
  }
  if (best >= 0)
    worker_guard_park(guard_worker_id[best]);
}

void worker_guard_task_ended(void) {
  if (!WORKER_GUARD_PARK)
    return;
  static _Thread_local int fd = -2;
  static _Thread_local long long last_check_ns, last_waited_ns;
  if (fd == -1)
    return; /* not a driver thread, or no schedstat here */
  const long long now = now_ns();
  if (fd >= 0 && now - last_check_ns < GUARD_INTERVAL_NS)
    return;
  if (fd == -2) {
    const int worker = starpu_worker_get_id();
    if (worker < 0 || starpu_worker_get_type(worker) != STARPU_CUDA_WORKER) {
      fd = -1;
      return;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)syscall(SYS_gettid));
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      fd = -1;
      return;
    }
    last_check_ns = now;
    last_waited_ns = waited_ns(fd);
    return;
  }
  const long long waited = waited_ns(fd);
  const long long interval = now - last_check_ns;
  const long long recent = waited - last_waited_ns;
  last_check_ns = now, last_waited_ns = waited;
  if (waited < 0 || recent < GUARD_WAIT_SHARE * interval)
    return;
  pthread_mutex_lock(&guard_lock);
  const int most = guard_workers / GUARD_MOST_PARKED_SHARE;
  if (now >= guard_quiet_until_ns && worker_guard_parked() < most) {
    park_one();
    guard_quiet_until_ns = now + GUARD_SETTLE_NS;
  }
  pthread_mutex_unlock(&guard_lock);
}
