/* sched_getaffinity and the CPU_* macros (runtime_start reads the processors it may use) */
#define _GNU_SOURCE
#include "runtime.h"

#include "hines_codelet.h"

#include <errno.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cluster.h"
#include "size_model.h"

#ifdef HINESTASK_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

static char scheduler_in_use[64];
static int started_distributed; /* runtime_options.distributed */
/* The run's workers, noted at start-up: the summary is written after StarPU stops. */
#define MAX_NOTED_GPUS 16
static int cpu_workers, cuda_workers, noted_gpus;
static char gpu_names[MAX_NOTED_GPUS][128];
static int gpu_driver_pus[MAX_NOTED_GPUS]; /* where StarPU bound each GPU's driver thread */
static int noted_devices[MAX_NOTED_GPUS];  /* the CUDA device number of each noted GPU */
/* Tasks each GPU's workers and the CPU workers ran, summed from StarPU's profiling counts by
 * runtime_count_tasks (-1: not read yet, or profiling off). */
static long long tasks_on_gpu[MAX_NOTED_GPUS], tasks_on_cpus = -1;
/* ... and each CPU worker's tasks and the time it spent executing them, in the order of StarPU's
 * CPU workers (a share whose cores fall behind the GPU shows here as busy cores, or as one core
 * with more than its part). */
#define MAX_NOTED_CPUS 1024
static long long cpu_worker_tasks[MAX_NOTED_CPUS];
static double cpu_worker_executing_ms[MAX_NOTED_CPUS];
static struct cluster_node_share node_share;

/* How much lower the CPU workers' scheduling priority is than the GPUs' driver threads (a nice
 * increment; 0: the same). Each GPU's driver thread launches its kernels and polls their end:
 * when processes started after the run began take cores, the kernel's scheduler shares each
 * core between them and the thread that ran there, and a driver thread that waits for its core
 * delays every kernel behind it, while a CPU worker that waits delays only its own chunk. Off:
 * at +5 the driver threads still waited as long in the rounds that fell short, and a CPU worker
 * sharing its core with another process got a quarter of it and held the run (BENCHMARKS.md,
 * "The GPU's driver thread waiting for its core, and three ways tried to spare it"). */
#ifndef RUNTIME_CPU_WORKERS_NICE
#define RUNTIME_CPU_WORKERS_NICE 0
#endif
/* The other way round, measured too (both off): each GPU's driver thread at a higher priority
 * than the CPU workers and any other process, RUNTIME_DRIVER_NICE a (negative) nice increment or
 * RUNTIME_DRIVER_SCHED_RR 1 for the real-time round-robin class, which a thread of the normal
 * class never delays. Both need a privilege (CAP_SYS_NICE, or RLIMIT_NICE / RLIMIT_RTPRIO): a
 * thread that lacks it keeps its priority and the run goes on as it would have. Not measured:
 * the lent GPU machine refused the real-time class, as root (EPERM), and the nice was not run.
 * What spared the driver thread instead: CPU workers that sleep while idle (scripts/setup.sh,
 * StarPU's blocking drivers). */
#ifndef RUNTIME_DRIVER_NICE
#define RUNTIME_DRIVER_NICE 0
#endif
#ifndef RUNTIME_DRIVER_SCHED_RR
#define RUNTIME_DRIVER_SCHED_RR 0
#endif
#define RUNTIME_DRIVER_PRIORITY (RUNTIME_DRIVER_NICE < 0 || RUNTIME_DRIVER_SCHED_RR)
/* 1: at the end of a run, stderr gets how long the driver threads and the CPU workers waited for
 * a core while runnable (Linux's schedstat), beside how long they ran: what the priority above
 * is for. */
#ifndef RUNTIME_THREAD_WAITS_DEBUG
#define RUNTIME_THREAD_WAITS_DEBUG 0
#endif
#define MAX_NOTED_THREADS 1088
static pid_t worker_thread_ids[MAX_NOTED_THREADS];
static int worker_thread_is_cpu[MAX_NOTED_THREADS];
static unsigned long long thread_ran_ns[MAX_NOTED_THREADS], thread_waited_ns[MAX_NOTED_THREADS];
static int noted_threads;
static pthread_mutex_t noted_threads_lock = PTHREAD_MUTEX_INITIALIZER;

static void note_worker_thread(void *unused) {
  (void)unused;
  const pid_t thread = (pid_t)syscall(SYS_gettid);
  const int cpu = starpu_worker_get_type(starpu_worker_get_id()) == STARPU_CPU_WORKER;
  if (cpu && RUNTIME_CPU_WORKERS_NICE > 0 && cuda_workers > 0) { /* a GPU to protect */
    /* On Linux a thread id names one thread, and raising one's own nice needs no privilege. */
    errno = 0;
    const int now = getpriority(PRIO_PROCESS, (id_t)thread);
    if (errno == 0)
      setpriority(PRIO_PROCESS, (id_t)thread, now + RUNTIME_CPU_WORKERS_NICE);
  }
  if (!cpu && RUNTIME_DRIVER_NICE < 0) {
    errno = 0;
    const int now = getpriority(PRIO_PROCESS, (id_t)thread);
    if (errno == 0 && setpriority(PRIO_PROCESS, (id_t)thread, now + RUNTIME_DRIVER_NICE) != 0 &&
        RUNTIME_THREAD_WAITS_DEBUG)
      fprintf(stderr, "thread waits: the driver thread's nice not lowered: %s\n", strerror(errno));
  }
  if (!cpu && RUNTIME_DRIVER_SCHED_RR) {
    struct sched_param param = {.sched_priority = 1};
    const int failed = pthread_setschedparam(pthread_self(), SCHED_RR, &param);
    if (failed && RUNTIME_THREAD_WAITS_DEBUG)
      fprintf(stderr, "thread waits: the driver thread not made real-time: %s\n", strerror(failed));
  }
  /* The CUDA workers of one GPU share its driver thread: each thread is noted once. */
  pthread_mutex_lock(&noted_threads_lock);
  int seen = 0;
  for (int i = 0; i < noted_threads; i++)
    seen |= worker_thread_ids[i] == thread;
  if (!seen && noted_threads < MAX_NOTED_THREADS) {
    worker_thread_ids[noted_threads] = thread;
    worker_thread_is_cpu[noted_threads++] = cpu;
  }
  pthread_mutex_unlock(&noted_threads_lock);
}

/* A thread's time on a core and its time runnable but waiting for one, in ns (0 where unread). */
static void thread_times(pid_t thread, unsigned long long *ran, unsigned long long *waited) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)thread);
  FILE *file = fopen(path, "r");
  *ran = *waited = 0;
  if (!file)
    return;
  if (fscanf(file, "%llu %llu", ran, waited) != 2)
    *ran = *waited = 0;
  fclose(file);
}

/* Only where there is a GPU to protect or waits to report: it runs one task per worker. */
static void note_worker_threads(void) {
  noted_threads = 0;
  if (!(RUNTIME_THREAD_WAITS_DEBUG ||
        ((RUNTIME_CPU_WORKERS_NICE > 0 || RUNTIME_DRIVER_PRIORITY) && cuda_workers > 0)))
    return;
  starpu_execute_on_each_worker(note_worker_thread, NULL, STARPU_CPU | STARPU_CUDA);
  for (int i = 0; i < noted_threads; i++)
    thread_times(worker_thread_ids[i], &thread_ran_ns[i], &thread_waited_ns[i]);
  /* Those tasks are not the run's: each read restarts StarPU's per-worker counts. */
  for (int w = 0; w < (int)starpu_worker_get_count(); w++) {
    struct starpu_profiling_worker_info info;
    starpu_profiling_worker_get_info(w, &info);
  }
}

static void report_thread_waits(void) {
  if (!RUNTIME_THREAD_WAITS_DEBUG)
    return;
  for (int kind = 0; kind < 2; kind++) {
    unsigned long long ran = 0, waited = 0, most_waited = 0;
    int threads = 0;
    for (int i = 0; i < noted_threads; i++) {
      if (worker_thread_is_cpu[i] != kind)
        continue;
      unsigned long long ran_now, waited_now;
      thread_times(worker_thread_ids[i], &ran_now, &waited_now);
      ran += ran_now - thread_ran_ns[i];
      waited += waited_now - thread_waited_ns[i];
      if (waited_now - thread_waited_ns[i] > most_waited)
        most_waited = waited_now - thread_waited_ns[i];
      threads++;
    }
    if (threads)
      fprintf(stderr, "thread waits: %s %d threads ran %.1f ms, waited %.1f ms (most %.1f ms)\n",
              kind ? "cpu" : "driver", threads, ran / 1e6, waited / 1e6, most_waited / 1e6);
  }
}

int runtime_check_scheduler(const char *name, struct hines_error *err) {
  struct starpu_sched_policy **policies = starpu_sched_get_predefined_policies();
  char list[HINES_MESSAGE_SIZE] = "";
  for (int i = 0; policies[i]; i++) {
    if (strcmp(policies[i]->policy_name, name) == 0)
      return HINES_OK;
    size_t used = strlen(list);
    snprintf(list + used, sizeof list - used, "%s%s", used ? " " : "", policies[i]->policy_name);
  }
  return hines_fail(err, HINES_BAD_INPUT, "STARPU_SCHED=%s: unknown scheduler; StarPU offers: %s",
                    name, list);
}

int runtime_check_environment(struct hines_error *err) {
  const char *requested = getenv("STARPU_SCHED");
  if (requested && *requested) {
    int status = runtime_check_scheduler(requested, err);
    if (status)
      return status;
  }
  /* StarPU reads these with atoi and would quietly take "abc" for 0 workers. */
  const char *counts[] = {"STARPU_NCPU", "STARPU_NCPUS", "STARPU_NCUDA"};
  for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
    const char *value = getenv(counts[i]);
    if (!value || !*value)
      continue;
    char *end;
    long number = strtol(value, &end, 10);
    if (*end || number < -1 || number > 4096)
      return hines_fail(err, HINES_BAD_INPUT, "%s=%s: not a worker count", counts[i], value);
  }
  return HINES_OK;
}

/* StarPU settings hinestask needs to keep data on the GPUs and several tasks per GPU in flight.
 * Each is set only where the user has not set the variable, before starpu_init reads it (no
 * starpu_conf field exists for any of them). */
static const struct {
  const char *name, *value, *why;
} defaults[] = {
    /* StarPU 1.3.10's memory manager writes dirty GPU chunks back to RAM (idle fetches) whenever
     * fewer than 5 % of a GPU's chunks are clean, and it counts even read-only chunks as dirty
     * (fixed only in 1.4): from about 16 chunks per GPU it copied the next tasks' voltages to the
     * host every step (6.25 GB in 8 steps, 53 ms per step instead of 1.3). Eviction when memory
     * runs out still writes back what it must. */
    {"STARPU_MINIMUM_CLEAN_BUFFERS", "0", "no write-back of GPU data between steps"},
    {"STARPU_TARGET_CLEAN_BUFFERS", "0", "no write-back of GPU data between steps"},
    /* Several workers (streams) per GPU, all driven by the device's one thread: tasks of one
     * GPU run concurrently, so a step cut into many chunks fills the GPU like one chunk
     * (H200, 64 tasks of 4,000 neurons per step: 2.08 ms with 4 workers, 1.52 with 8, 1.37
     * with 16, against 1.25 for one task of 256,000). */
    {"STARPU_NWORKER_PER_CUDA", "16", "concurrent tasks per GPU"},
    /* Tasks each CUDA worker keeps queued (StarPU's maximum); the codelets spread a worker's
     * queued tasks over their own streams (codelets/task_streams.h). */
    {"STARPU_CUDA_PIPELINE", "4", "queued tasks per CUDA worker"},
    /* The CUDA driver feeds a GPU through 8 hardware work queues by default (at most 32); the
     * 16 workers' StarPU streams and their 64 task streams share them, and kernels of streams
     * mapped to one queue run one after the other. Read when CUDA starts in the process, at
     * the first CUDA call: runtime_start sets it before its own. */
    {"CUDA_DEVICE_MAX_CONNECTIONS", "32", "hardware queues per GPU"},
    /* Placement by the performance models (codelets/size_model.h) rather than greedy: eager
     * and lws would hand a GPU-sized chunk to an idle CPU core. */
    {"STARPU_SCHED", "dmdas", "placement by performance models"},
    /* dmda/dmdas weigh a task's predicted data transfers by this factor (StarPU's default 1).
     * Measured on the H200 machine (15 CPU workers + the GPU, calibrated dmdas, no mask, five
     * runs each, commit 476ab06): CPU+GPU 1.130 ms per step with 1 (1.129-1.159), 1.098 with
     * 10 (1.097-1.119), 34 ms with 100. With 10 a chunk stays where its data is, as --pin would
     * keep it, but the scheduler still places every task. */
    {"STARPU_SCHED_BETA", "10", "keep chunks where their data is"},
};

/* Sets the default of `only` (NULL: of every variable) where the user has not set it. */
static void set_defaults(const char *only) {
  for (size_t i = 0; i < sizeof defaults / sizeof *defaults; i++)
    if (!only || strcmp(defaults[i].name, only) == 0)
      setenv(defaults[i].name, defaults[i].value, 0);
}

/* Sets `name` to `value` where the user has not set it, when value is positive. */
static void set_positive_default(const char *name, int value) {
  char text[16];
  snprintf(text, sizeof text, "%d", value);
  if (value > 0)
    setenv(name, text, 0);
}

void runtime_set_defaults(void) {
  set_defaults(NULL);
}

int runtime_workers_per_gpu(long long tasks, int gpus) {
  if (tasks <= 0 || gpus <= 0)
    return 0;
  const long long per_gpu = (tasks + gpus - 1) / gpus;
  return per_gpu > 4 && per_gpu < 16 ? (int)per_gpu : 0;
}

void runtime_greedy_workers(const char *scheduler, long long tasks, int gpus, int *workers,
                            int *pipeline) {
  *workers = *pipeline = 0;
  const int greedy =
      scheduler && (strcmp(scheduler, "eager") == 0 || strcmp(scheduler, "lws") == 0);
  if (!greedy || gpus < 2 || (tasks > 0 && (tasks + gpus - 1) / gpus > 4))
    return;
  *workers = 4;
  *pipeline = 1;
}

/* GPUs StarPU will drive: STARPU_NCUDA where set (-1: all), else those CUDA shows this process. */
static int gpus_to_drive(void) {
  int visible = 0;
#ifdef HINESTASK_WITH_CUDA
  if (cudaGetDeviceCount(&visible) != cudaSuccess)
    visible = 0;
#endif
  const char *value = getenv("STARPU_NCUDA");
  if (value && *value && atoi(value) >= 0)
    return atoi(value) < visible ? atoi(value) : visible;
  return visible;
}

/* Whether every GPU this process sees is of one model (same name and multiprocessors). */
static int gpus_alike(void) {
#ifdef HINESTASK_WITH_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2)
    return 0;
  struct cudaDeviceProp first, other;
  if (cudaGetDeviceProperties(&first, 0) != cudaSuccess)
    return 0;
  for (int d = 1; d < count; d++)
    if (cudaGetDeviceProperties(&other, d) != cudaSuccess || strcmp(first.name, other.name) != 0 ||
        first.multiProcessorCount != other.multiProcessorCount)
      return 0;
  return 1;
#else
  return 0;
#endif
}

/* Processor `cpu`'s counters in a /proc/stat text (its "cpuN" line), into t[8]: 0, or -1. */
static int cpu_counters(const char *text, int cpu, unsigned long long t[8]) {
  char name[24];
  snprintf(name, sizeof name, "cpu%d ", cpu);
  const size_t length = strlen(name);
  for (const char *line = text; line && *line;) {
    if (strncmp(line, name, length) == 0) {
      memset(t, 0, 8 * sizeof *t);
      return sscanf(line + length, "%llu %llu %llu %llu %llu %llu %llu %llu", &t[0], &t[1], &t[2],
                    &t[3], &t[4], &t[5], &t[6], &t[7]) >= 4
                 ? 0
                 : -1;
    }
    line = strchr(line, '\n');
    line = line ? line + 1 : NULL;
  }
  return -1;
}

double runtime_busy_processors(const char *before, const char *after, const unsigned char *allowed,
                               int n_allowed) {
  double busy = 0.0;
  int counted = 0;
  for (int cpu = 0; cpu < n_allowed; cpu++) {
    unsigned long long a[8], b[8];
    if (!allowed[cpu] || cpu_counters(before, cpu, a) || cpu_counters(after, cpu, b))
      continue;
    /* user nice system idle iowait irq softirq steal */
    double total = 0.0;
    int backwards = 0;
    for (int i = 0; i < 8; i++) {
      backwards |= b[i] < a[i];
      total += (double)(b[i] - a[i]);
    }
    if (backwards || total <= 0.0)
      continue;
    const double idle = (double)(b[3] - a[3]) + (double)(b[4] - a[4]);
    busy += (total - idle) / total;
    counted++;
  }
  return counted ? busy : -1.0;
}

int runtime_cores_to_leave(double busy, int cores, int gpus) {
  if (gpus <= 0 || cores <= 1 || !(busy >= 0.5))
    return 0;
  const int rounded = (int)(busy + 0.5);
  return rounded < cores - 1 ? rounded : cores - 1;
}

static int cores_left;
static double busy_measured = -1.0;
int runtime_cores_left(void) {
  return cores_left;
}
double runtime_busy_measured(void) {
  return busy_measured;
}

/* /proc/stat's "cpu" lines (they come first) into `text`, or -1. */
static int read_cpu_lines(char *text, size_t size) {
  FILE *stat = fopen("/proc/stat", "r");
  if (!stat)
    return -1;
  size_t used = 0;
  text[0] = '\0';
  while (used + 1 < size && fgets(text + used, (int)(size - used), stat) &&
         strncmp(text + used, "cpu", 3) == 0)
    used += strlen(text + used);
  text[used] = '\0';
  fclose(stat);
  return used ? 0 : -1;
}

int runtime_usable_processors(unsigned char *allowed) {
  _Static_assert(RUNTIME_MAX_PROCESSORS == CPU_SETSIZE, "one flag per processor of a cpu_set_t");
  cpu_set_t set;
  int count;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    count = CPU_COUNT(&set);
  } else {
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    count = online > 0 ? (int)(online < CPU_SETSIZE ? online : CPU_SETSIZE) : 0;
    CPU_ZERO(&set);
    for (int cpu = 0; cpu < count; cpu++)
      CPU_SET(cpu, &set);
  }
  if (allowed)
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
      allowed[cpu] = CPU_ISSET(cpu, &set) ? 1 : 0;
  return count;
}

double runtime_measure_busy_processors(int *allowed_count) {
  static unsigned char allowed[RUNTIME_MAX_PROCESSORS];
  *allowed_count = runtime_usable_processors(allowed);
  if (*allowed_count == 0)
    return -1.0;
  const size_t size = 1 << 18; /* 1,024 processors' lines and more */
  char *before = malloc(size), *after = malloc(size);
  double busy = -1.0;
  if (before && after && read_cpu_lines(before, size) == 0) {
    const struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
    if (read_cpu_lines(after, size) == 0)
      busy = runtime_busy_processors(before, after, allowed, RUNTIME_MAX_PROCESSORS);
  }
  free(before);
  free(after);
  return busy;
}

int runtime_start(const struct runtime_options *options, struct hines_error *err) {
  /* Before the first CUDA call below: the driver takes its hardware queues per GPU from the
   * environment when CUDA starts in the process. Set with the other defaults, after a first
   * cudaGetDeviceCount, the 32 came too late and the driver kept 8: one H100, 64 tasks of 4,000
   * neurons, 2.89-2.92 ms a step against 1.62 with it set first (one task: 1.55). */
  set_defaults("CUDA_DEVICE_MAX_CONNECTIONS");
  /* GPUs of one model learn one size model (codelets/size_model.h). */
  size_model_pool_gpus(gpus_alike());
  if (options && !options->distributed) {
    if (options->tasks_per_step > 0)
      set_positive_default("STARPU_NWORKER_PER_CUDA",
                           runtime_workers_per_gpu(options->tasks_per_step, gpus_to_drive()));
    int workers, pipeline; /* eager and lws: a share for every GPU */
    runtime_greedy_workers(getenv("STARPU_SCHED"), options->tasks_per_step, gpus_to_drive(),
                           &workers, &pipeline);
    set_positive_default("STARPU_NWORKER_PER_CUDA", workers);
    set_positive_default("STARPU_CUDA_PIPELINE", pipeline);
  }
  runtime_set_defaults();
  int status = runtime_check_environment(err);
  if (status)
    return status;
  /* StarPU's start-up chatter (FxT, scheduler advice) is for StarPU developers; users who want
   * it set STARPU_SILENT=0. */
  setenv("STARPU_SILENT", "1", 0);
  if (options && options->history_models)
    hines_codelets_use_history_models();
  struct starpu_conf conf;
  starpu_conf_init(&conf);
  /* Beside GPUs, cores other processes keep busy are left to them (runtime_cores_to_leave),
   * unless the user set the CPU workers' count */
  cores_left = 0;
  busy_measured = -1.0;
  if (!(options && options->distributed) && gpus_to_drive() > 0 && !getenv("STARPU_NCPU") &&
      !getenv("STARPU_NCPUS")) {
    int processors;
    busy_measured = runtime_measure_busy_processors(&processors);
    cores_left = runtime_cores_to_leave(busy_measured, processors, gpus_to_drive());
    if (cores_left > 0)
      conf.reserve_ncpus = cores_left;
  }
  if (!(options && options->tracing)) {
    /* A FxT-enabled StarPU 1.3 traces every run into /tmp unless told not to. */
    setenv("STARPU_FXT_TRACE", "0", 0);
  }
  started_distributed = options && options->distributed;
  if (started_distributed)
    cluster_share_node(&node_share);
  else
    memset(&node_share, 0, sizeof node_share);
  int ret = started_distributed ? cluster_starpu_init(&conf) : starpu_init(&conf);
  if (ret == -ENODEV)
    return hines_fail(err, HINES_FAILURE, "StarPU found no worker to run on");
  if (ret != 0)
    return hines_fail(err, HINES_FAILURE, "StarPU failed to start (error %d)", ret);
  struct starpu_sched_policy *policy = starpu_sched_ctx_get_sched_policy(0);
  snprintf(scheduler_in_use, sizeof scheduler_in_use, "%s",
           policy && policy->policy_name ? policy->policy_name : "eager");
  cpu_workers = (int)starpu_cpu_worker_get_count();
  cuda_workers = (int)starpu_cuda_worker_get_count();
  /* One name per GPU, however many workers share it (STARPU_NWORKER_PER_CUDA). */
  noted_gpus = 0;
  tasks_on_cpus = -1;
  for (int w = 0; w < (int)starpu_worker_get_count() && noted_gpus < MAX_NOTED_GPUS; w++) {
    if (starpu_worker_get_type(w) != STARPU_CUDA_WORKER)
      continue;
    int device = starpu_worker_get_devid(w), seen = 0;
    for (int g = 0; g < noted_gpus; g++)
      seen |= noted_devices[g] == device;
    if (seen)
      continue;
    noted_devices[noted_gpus] = device;
    gpu_driver_pus[noted_gpus] = starpu_worker_get_bindid(w);
    starpu_worker_get_name(w, gpu_names[noted_gpus++], sizeof gpu_names[0]);
  }
  note_worker_threads();
  /* The size models learn from each task's measured duration (codelets/size_model.h), which
   * StarPU records only with profiling on; they start from what calibration runs kept, unless
   * STARPU_CALIBRATE=2 asks to start afresh as it does for StarPU's own models. */
  if (!getenv("STARPU_PROFILING")) /* the user's choice, if any, stands */
    starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  size_model_clear();
  const char *calibrate = getenv("STARPU_CALIBRATE");
  if (!(calibrate && atoi(calibrate) == 2) && size_model_load(runtime_size_model_path()) != 0)
    fprintf(stderr, "warning: ignored malformed lines of %s\n", runtime_size_model_path());
  return HINES_OK;
}

const char *runtime_size_model_path(void) {
  /* Beside StarPU's own models: SAMPLING/codelets/VERSION/SYMBOL.HOST gives SAMPLING and HOST. */
  static char path[4096];
  char model[4000];
  starpu_perfmodel_get_model_path("hinestask", model, sizeof model);
  char *codelets = strstr(model, "/codelets/"), *host = strrchr(model, '/');
  if (!codelets || !host || strncmp(host, "/hinestask.", 11) != 0) {
    snprintf(path, sizeof path, "hinestask-sizes");
    return path;
  }
  *codelets = 0;
  size_t length = strlen(model);
  while (length > 1 && model[length - 1] == '/')
    model[--length] = 0;
  snprintf(path, sizeof path, "%s/hinestask-sizes.%s", model, host + 11);
  return path;
}

int runtime_tasks_in_flight(void) {
  return starpu_task_nsubmitted();
}

void runtime_window_wait(int window, int tasks_per_step) {
  if (window <= 1)
    starpu_task_wait_for_all();
  else
    starpu_task_wait_for_n_submitted((unsigned)((window - 1) * tasks_per_step));
}

/* Where the run's tasks ran: which GPUs StarPU's scheduler chose, and whether CPU cores took
 * any. A step whose chunks all went to one GPU of two shows here as one count far ahead. */
void runtime_count_tasks(void) {
  if (starpu_profiling_status_get() != STARPU_PROFILING_ENABLE)
    return;
  if (tasks_on_cpus < 0) { /* the first read: StarPU counted from its start */
    tasks_on_cpus = 0;
    for (int g = 0; g < noted_gpus; g++)
      tasks_on_gpu[g] = 0;
    for (int c = 0; c < MAX_NOTED_CPUS; c++)
      cpu_worker_tasks[c] = 0, cpu_worker_executing_ms[c] = 0.0;
  }
  /* Each read returns what StarPU counted since the last one, and restarts its counts. */
  for (int w = 0, cpu = 0; w < (int)starpu_worker_get_count(); w++) {
    struct starpu_profiling_worker_info info;
    if (starpu_profiling_worker_get_info(w, &info) != 0)
      continue;
    if (starpu_worker_get_type(w) == STARPU_CPU_WORKER) {
      tasks_on_cpus += info.executed_tasks;
      if (cpu < MAX_NOTED_CPUS) {
        cpu_worker_tasks[cpu] += info.executed_tasks;
        cpu_worker_executing_ms[cpu] += starpu_timing_timespec_to_us(&info.executing_time) / 1e3;
      }
      cpu++;
      continue;
    }
    for (int g = 0; g < noted_gpus; g++)
      if (starpu_worker_get_type(w) == STARPU_CUDA_WORKER &&
          starpu_worker_get_devid(w) == noted_devices[g])
        tasks_on_gpu[g] += info.executed_tasks;
  }
}

double runtime_cpu_executing_read(double *busiest_us) {
  double us = 0.0, busiest = 0.0;
  for (int w = 0; w < (int)starpu_worker_get_count(); w++) {
    struct starpu_profiling_worker_info info;
    if (starpu_worker_get_type(w) == STARPU_CPU_WORKER &&
        starpu_profiling_worker_get_info(w, &info) == 0) {
      const double worker_us = starpu_timing_timespec_to_us(&info.executing_time);
      us += worker_us;
      busiest = worker_us > busiest ? worker_us : busiest;
    }
  }
  if (busiest_us)
    *busiest_us = busiest;
  return us;
}

double runtime_cpu_executing_us(void) {
  return runtime_cpu_executing_read(NULL);
}

int runtime_fill_threads(void) {
  const int cpus = (int)starpu_cpu_worker_get_count();
  if (cpus > 0)
    return cpus;
  /* a driver thread a GPU, however many workers it drives (STARPU_NWORKER_PER_CUDA: the H200
   * machine's GPU-alone runs have 16 workers on its one GPU, and counting them left no thread) */
  const int left = omp_get_num_procs() - runtime_gpu_count();
  return left > 1 ? left : 1;
}

void runtime_fill_on_cores(batch_fill_function fill, void *argument, int pieces,
                           const double *bytes) {
  struct starpu_task **tasks = NULL;
  int submitted = 0;
  if (pieces > 0 && starpu_cpu_worker_get_count() > 0)
    tasks = calloc((size_t)pieces, sizeof *tasks);
  for (; tasks && submitted < pieces; submitted++) {
    tasks[submitted] = batch_fill_task(fill, argument, submitted, bytes ? bytes[submitted] : 0.0);
    if (!tasks[submitted])
      break;
    if (starpu_task_submit(tasks[submitted]) != 0) {
      starpu_task_destroy(tasks[submitted]);
      break;
    }
  }
  /* The pieces left (all of them with no CPU worker: STARPU_NCPU=0 beside GPUs) by this thread
   * and OpenMP threads on the processors StarPU's workers leave: nothing runs on those workers
   * while a batch is built, and one thread alone took 6.0-6.4 s to set mono medium-high x
   * 256,000's HH gates at rest on the H200 machine's host, against 0.42-0.43 s over 15 CPU
   * workers. */
  const int left = pieces - submitted;
  int helpers = runtime_fill_threads();
  helpers = helpers < left ? helpers : left;
#pragma omp parallel for schedule(dynamic, 1) num_threads(helpers) if (helpers > 1)
  for (int piece = submitted; piece < pieces; piece++)
    fill(argument, piece);
  for (int t = 0; t < submitted; t++)
    if (starpu_task_wait(tasks[t]) != 0) /* (only for a detached task: never one of these) */
      starpu_task_wait_for_all();
  free(tasks);
  if (submitted > 0)
    runtime_cpu_executing_us(); /* reads, so restarts, the counts the fills added to */
}

/* Runs laid end to end, cut in pieces of `piece_units` units (16 MB: a few pieces a core on a
 * batch of tens of millions of compartments, one for a small one; short runs, a gate's block of
 * one level of a chunk, share a piece rather than make a task each): each piece does its part of
 * each run it covers, part(work, run, begin, stop) for units begin .. stop - 1 of the run. */
struct runs_cut {
  int n;
  const size_t *units; /* each run's */
  size_t *first;       /* run a is units first[a] .. first[a + 1] - 1 of them all */
  size_t piece_units;
  void (*part)(const void *work, int run, size_t begin, size_t stop);
  const void *work;
};

static void runs_piece(void *argument, int piece) {
  const struct runs_cut *r = argument;
  const size_t from = (size_t)piece * r->piece_units, total = r->first[r->n];
  const size_t to = from + r->piece_units < total ? from + r->piece_units : total;
  int low = 0, high = r->n - 1; /* the last run starting at or before `from` */
  while (low < high) {
    const int middle = (low + high + 1) / 2;
    if (r->first[middle] <= from)
      low = middle;
    else
      high = middle - 1;
  }
  for (int a = low; a < r->n && r->first[a] < to; a++) {
    const size_t begin = from > r->first[a] ? from - r->first[a] : 0;
    const size_t stop = to < r->first[a + 1] ? to - r->first[a] : r->units[a];
    if (stop > begin)
      r->part(r->work, a, begin, stop);
  }
}

/* The runs' parts by runtime_fill_on_cores (each unit `unit_bytes` written), here where out of
 * memory. */
static void runs_on_cores(struct runs_cut *r, double unit_bytes) {
  r->first = malloc((size_t)(r->n + 1) * sizeof *r->first);
  if (!r->first) {
    for (int a = 0; a < r->n; a++)
      if (r->units[a])
        r->part(r->work, a, 0, r->units[a]);
    return;
  }
  r->first[0] = 0;
  for (int a = 0; a < r->n; a++)
    r->first[a + 1] = r->first[a] + r->units[a];
  const size_t total = r->first[r->n];
  const int pieces = (int)((total + r->piece_units - 1) / r->piece_units);
  double *bytes = malloc((size_t)(pieces > 0 ? pieces : 1) * sizeof *bytes);
  for (int p = 0; bytes && p < pieces; p++)
    bytes[p] =
        unit_bytes * (double)(p + 1 < pieces ? r->piece_units : total - (size_t)p * r->piece_units);
  runtime_fill_on_cores(runs_piece, r, pieces, bytes);
  free(bytes);
  free(r->first);
}

struct doubles_fill {
  double *const *arrays;
  const double *values;
};

static void doubles_fill_part(const void *work, int run, size_t begin, size_t stop) {
  const struct doubles_fill *f = work;
  for (size_t i = begin; i < stop; i++)
    f->arrays[run][i] = f->values[run];
}

void runtime_fill_doubles(int n, double *const *arrays, const size_t *counts,
                          const double *values) {
  const struct doubles_fill fill = {arrays, values};
  struct runs_cut r = {.n = n,
                       .units = counts,
                       .piece_units = ((size_t)16 << 20) / sizeof(double),
                       .part = doubles_fill_part,
                       .work = &fill};
  runs_on_cores(&r, sizeof(double));
}

struct runs_copy {
  void *const *to;
  const void *const *from;
};

static void runs_copy_part(const void *work, int run, size_t begin, size_t stop) {
  const struct runs_copy *c = work;
  memcpy((char *)c->to[run] + begin, (const char *)c->from[run] + begin, stop - begin);
}

void runtime_copy_runs(int n, void *const *to, const void *const *from, const size_t *bytes) {
  const struct runs_copy copy = {to, from};
  struct runs_cut r = {.n = n,
                       .units = bytes,
                       .piece_units = (size_t)16 << 20,
                       .part = runs_copy_part,
                       .work = &copy};
  runs_on_cores(&r, 1.0);
}

void runtime_unregister_discarding(void *handle_pointer) {
  starpu_data_handle_t handle = handle_pointer;
  if (!handle)
    return;
  const int children = starpu_data_get_nb_children(handle);
  if (children > 0) {
    for (int c = 0; c < children; c++) {
      starpu_data_handle_t piece = starpu_data_get_child(handle, (unsigned)c);
      /* write access: RAM's replica becomes the only one, nothing fetched into it */
      if (starpu_data_acquire_on_node(piece, STARPU_MAIN_RAM, STARPU_W) == 0)
        starpu_data_release_on_node(piece, STARPU_MAIN_RAM);
    }
    starpu_data_unpartition(handle, STARPU_MAIN_RAM);
  }
  starpu_data_unregister_no_coherency(handle);
}

long long runtime_tasks_on_gpu(int i) {
  return tasks_on_cpus < 0 || i < 0 || i >= noted_gpus ? -1 : tasks_on_gpu[i];
}

long long runtime_tasks_on_cpus(void) {
  return tasks_on_cpus;
}

int runtime_cpu_worker_load(int i, long long *tasks, double *executing_ms) {
  if (tasks_on_cpus < 0 || i < 0 || i >= cpu_workers || i >= MAX_NOTED_CPUS)
    return -1;
  *tasks = cpu_worker_tasks[i];
  *executing_ms = cpu_worker_executing_ms[i];
  return 0;
}

void runtime_stop(void) {
  starpu_task_wait_for_all();
  runtime_count_tasks();
  report_thread_waits();
  /* Measurements are kept after calibration runs, as StarPU keeps its own models. */
  if (runtime_calibrating() && size_model_save(runtime_size_model_path()) != 0)
    fprintf(stderr, "warning: cannot write %s\n", runtime_size_model_path());
  if (started_distributed)
    cluster_starpu_shutdown();
  else
    starpu_shutdown();
  started_distributed = 0;
}

const char *runtime_scheduler(void) {
  return scheduler_in_use;
}

int runtime_calibrating(void) {
  const char *calibrate = getenv("STARPU_CALIBRATE");
  return calibrate && atoi(calibrate) >= 1;
}

int runtime_cpu_workers(void) {
  return cpu_workers;
}

int runtime_cuda_workers(void) {
  return cuda_workers;
}

int runtime_gpu_count(void) {
  return noted_gpus;
}

int runtime_gpu_driver_pu(int i) {
  return i >= 0 && i < noted_gpus ? gpu_driver_pus[i] : -1;
}

const struct cluster_node_share *runtime_node_share(void) {
  return &node_share;
}

const char *runtime_gpu_name(int i) {
  return i >= 0 && i < noted_gpus ? gpu_names[i] : "";
}

const char *runtime_starpu_version(void) {
  static char version[32];
  int major, minor, release;
  starpu_get_version(&major, &minor, &release);
  snprintf(version, sizeof version, "%d.%d.%d", major, minor, release);
  return version;
}

void runtime_describe(FILE *out) {
  fprintf(out, "StarPU %d.%d.%d, scheduler %s, %d CPU worker%s, %d CUDA worker%s\n",
          STARPU_MAJOR_VERSION, STARPU_MINOR_VERSION, STARPU_RELEASE_VERSION, runtime_scheduler(),
          runtime_cpu_workers(), runtime_cpu_workers() == 1 ? "" : "s", runtime_cuda_workers(),
          runtime_cuda_workers() == 1 ? "" : "s");
  if (cores_left > 0)
    fprintf(out, "  %d core%s left to other processes (%.1f processors were busy with them)\n",
            cores_left, cores_left == 1 ? "" : "s", busy_measured);
  fprintf(out, "  settings:");
  for (size_t i = 0; i < sizeof defaults / sizeof *defaults; i++) {
    const char *value = getenv(defaults[i].name);
    fprintf(out, " %s=%s", defaults[i].name, value ? value : "(unset)");
  }
  fputc('\n', out);
  fprintf(out, "  size models: %d task sizes measured (%s)\n", size_model_entries(),
          runtime_size_model_path());
  int n = (int)starpu_worker_get_count();
  for (int w = 0; w < n; w++) {
    char name[128];
    starpu_worker_get_name(w, name, sizeof name);
    fprintf(out, "  worker %d: %s\n", w, name);
  }
}
