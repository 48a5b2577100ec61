#include "size_model.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Measurements of one size: Welford's running mean and sum of squared deviations. */
struct entry {
  double size, samples, mean, m2;
  int warm; /* a first (warm-up) measurement was dropped, or the entry came from a file */
};

/* All sizes measured for one codelet, kind and arch, sorted by size. */
struct series {
  char symbol[48];
  uint32_t kind;
  char arch[24];
  int count, capacity;
  struct entry *entries;
};

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static struct series *all;
static int n_series, series_capacity;

/* Whether the GPUs measure for all (size_model_pool_gpus). Each GPU learning alone let the
 * first step's start-up (transfers, first launches) make one GPU look 1.5 times slower than its
 * twin for the next steps, and dmda moved chunks to the other for good (two H100s, 24 tasks of
 * 10,667 neurons: 336 tasks against 288, 0.88 ms a step against 0.81). StarPU's own switch for
 * this (STARPU_PERF_MODEL_HOMOGENEOUS_CUDA) would give every GPU's workers device 0's arch, and
 * with it the same prediction for a chunk on every GPU: no home GPU could be told apart. */
static int pooled_gpus;

void size_model_pool_gpus(int pool) {
  pthread_rwlock_wrlock(&lock);
  pooled_gpus = pool != 0;
  pthread_rwlock_unlock(&lock);
}

/* "cpu1" (a CPU worker; cpuN for a combined worker of N cores) or "cuda0" (device 0; every
 * device when the GPUs measure for all). */
static void arch_key(const struct starpu_perfmodel_arch *arch, char *key, size_t size) {
  if (arch->ndevices >= 1 && arch->devices[0].type == STARPU_CUDA_WORKER)
    snprintf(key, size, "cuda%d", pooled_gpus ? 0 : arch->devices[0].devid);
  else
    snprintf(key, size, "cpu%d", arch->ndevices >= 1 ? arch->devices[0].ncores : 1);
}

static struct series *series_find(const char *symbol, uint32_t kind, const char *arch) {
  for (int i = 0; i < n_series; i++)
    if (all[i].kind == kind && strcmp(all[i].arch, arch) == 0 && strcmp(all[i].symbol, symbol) == 0)
      return &all[i];
  return NULL;
}

/* Needs the write lock. */
static struct entry *entry_get(const char *symbol, uint32_t kind, const char *arch, double size) {
  struct series *s = series_find(symbol, kind, arch);
  if (!s) {
    if (n_series == series_capacity) {
      int capacity = series_capacity ? 2 * series_capacity : 16;
      struct series *grown = realloc(all, (size_t)capacity * sizeof *grown);
      if (!grown)
        return NULL;
      all = grown;
      series_capacity = capacity;
    }
    s = &all[n_series++];
    memset(s, 0, sizeof *s);
    snprintf(s->symbol, sizeof s->symbol, "%s", symbol);
    snprintf(s->arch, sizeof s->arch, "%s", arch);
    s->kind = kind;
  }
  int at = 0;
  while (at < s->count && s->entries[at].size < size)
    at++;
  if (at < s->count && s->entries[at].size == size)
    return &s->entries[at];
  if (s->count == s->capacity) {
    int capacity = s->capacity ? 2 * s->capacity : 8;
    struct entry *grown = realloc(s->entries, (size_t)capacity * sizeof *grown);
    if (!grown)
      return NULL;
    s->entries = grown;
    s->capacity = capacity;
  }
  memmove(&s->entries[at + 1], &s->entries[at], (size_t)(s->count - at) * sizeof *s->entries);
  s->entries[at] = (struct entry){.size = size};
  s->count++;
  return &s->entries[at];
}

static void entry_add(struct entry *e, double samples, double mean, double m2) {
  double total = e->samples + samples, delta = mean - e->mean;
  e->m2 += m2 + delta * delta * e->samples * samples / total;
  e->mean += delta * samples / total;
  e->samples = total;
}

void size_model_record(const char *symbol, uint32_t kind, double size,
                       const struct starpu_perfmodel_arch *arch, double us) {
  if (!(size > 0) || !(us > 0) || !isfinite(us))
    return;
  char key[24];
  arch_key(arch, key, sizeof key);
  pthread_rwlock_wrlock(&lock);
  struct entry *e = entry_get(symbol, kind, key, size);
  if (e && !e->warm)
    e->warm = 1; /* module loading, first touch, a first transfer's tail: not the steady state */
  else if (e)
    entry_add(e, 1, us, 0);
  pthread_rwlock_unlock(&lock);
}

/* Needs the read lock. NAN when nothing is measured for this series. `on_cores`: the series is a
 * CPU arch's, whose predictions past its largest measured size grow in proportion (below). */
static double series_predict(const struct series *s, double x, int on_cores) {
  if (!s)
    return NAN;
  /* The measured entries nearest below and above x. */
  int below = -1, above = -1;
  for (int i = 0; i < s->count; i++) {
    if (!(s->entries[i].samples > 0))
      continue;
    if (s->entries[i].size == x)
      return s->entries[i].mean;
    if (s->entries[i].size < x)
      below = i;
    else if (above < 0)
      above = i;
  }
  int a = below, b = above; /* the two nearest measured sizes */
  if (a < 0 || b < 0) {
    int near = a >= 0 ? a : b;
    if (near < 0)
      return NAN;
    int step = a >= 0 ? -1 : 1, other = -1;
    for (int i = near + step; i >= 0 && i < s->count; i += step)
      if (s->entries[i].samples > 0) {
        other = i;
        break;
      }
    const struct entry *n = &s->entries[near];
    double proportional = n->mean * x / n->size;
    /* A core past the largest size it ran: in proportion. A core's time per compartment-step
     * only falls with size (its fixed costs spread), so this errs on the side of keeping large
     * tasks off the cores; the line through the multi share's small chunks (a level's fixed
     * cost dominating) stayed near flat, and in runs that read the models dmdas ran 11-13 of
     * the GPUs' chunks of 8 steps on cores: 1.91-2.40 ms a step against 1.01-1.12 for the GPU
     * alone (H200, 15 CPU workers, three mixes of eight from fresh STARPU_HOMEs). */
    if (other < 0 || (on_cores && x > n->size))
      return proportional;
    /* Beyond the measured sizes a task costs no less than the nearest (time grows with size)
     * and no more than that in proportion (a task's fixed part does not grow). The line alone
     * amplifies the noise of two near sizes by the distance to x: the first step's chunks of
     * the large cells over two GPUs (10,211,992 and 10,221,939 compartment-steps, 1.8 and 3.5
     * ms on the GPU) put the next tasks of 8 steps at 12 s, against a CPU core's prior of 2.7
     * s, and dmdas ran 95-104 of 112 chunk tasks on the cores: 212-233 ms a step against
     * 0.53 (H200 x2, 30 CPU workers; 4 of the 5 runs that followed another in one STARPU_HOME). */
    const struct entry *o = &s->entries[other];
    double line = n->mean + (o->mean - n->mean) * (x - n->size) / (o->size - n->size);
    double low = x > n->size ? n->mean : proportional, high = x > n->size ? proportional : n->mean;
    return line < low ? low : line > high ? high : line;
  }
  const struct entry *p = &s->entries[a], *q = &s->entries[b];
  /* Between two measured sizes: the line between their means. */
  return p->mean + (q->mean - p->mean) * (x - p->size) / (q->size - p->size);
}

/* CUDA workers sharing one device (STARPU_NWORKER_PER_CUDA). */
static int workers_per_device(int devid) {
  int count = 0;
  unsigned n = starpu_worker_get_count();
  for (unsigned w = 0; w < n; w++)
    if (starpu_worker_get_type((int)w) == STARPU_CUDA_WORKER &&
        starpu_worker_get_devid((int)w) == devid)
      count++;
  return count > 0 ? count : 1;
}

static double prior_us(const struct size_model *model, double size,
                       const struct starpu_perfmodel_arch *arch) {
  if (arch->ndevices >= 1 && arch->devices[0].type == STARPU_CUDA_WORKER)
    return model->cuda_latency_us +
           size * workers_per_device(arch->devices[0].devid) / model->cuda_rate;
  int cores = arch->ndevices >= 1 && arch->devices[0].ncores > 0 ? arch->devices[0].ncores : 1;
  return size / (model->cpu_rate * cores);
}

double size_model_expected_us(const struct size_model *model, uint32_t kind, double size,
                              struct starpu_perfmodel_arch *arch) {
  char key[24];
  arch_key(arch, key, sizeof key);
  pthread_rwlock_rdlock(&lock);
  const int on_gpu = arch->ndevices >= 1 && arch->devices[0].type == STARPU_CUDA_WORKER;
  double us = series_predict(series_find(model->symbol, kind, key), size, !on_gpu);
  /* A GPU with no measurement of its own borrows another GPU's: against one GPU's measured
   * times, the other's prior (a guess, usually slower) made dmda send every chunk to the
   * measured one (H200 x2, the six-cell mix after one-GPU runs in the same STARPU_HOME: 1.785 ms
   * per step on two GPUs, as on one). */
  if (!(us > 0) && on_gpu)
    for (int i = 0; i < n_series && !(us > 0); i++)
      if (all[i].kind == kind && strncmp(all[i].arch, "cuda", 4) == 0 &&
          strcmp(all[i].symbol, model->symbol) == 0)
        us = series_predict(&all[i], size, 0);
  pthread_rwlock_unlock(&lock);
  if (!(us > 0))
    us = prior_us(model, size, arch);
  /* dmda reads 0 as "no prediction". */
  return us > 0.01 ? us : 0.01;
}

double size_model_rate_near_us(const struct size_model *model, uint32_t kind, double size,
                               struct starpu_perfmodel_arch *arch, double spread) {
  char key[24];
  arch_key(arch, key, sizeof key);
  double weighted = 0.0, samples = 0.0;
  pthread_rwlock_rdlock(&lock);
  const struct series *s = series_find(model->symbol, kind, key);
  for (int i = 0; s && i < s->count; i++) {
    const struct entry *e = &s->entries[i];
    if (e->samples > 0 && e->size >= size / spread && e->size <= size * spread) {
      weighted += e->samples * e->mean / e->size;
      samples += e->samples;
    }
  }
  pthread_rwlock_unlock(&lock);
  return samples > 0 ? weighted / samples * size : size_model_expected_us(model, kind, size, arch);
}

/* Home GPUs. With several GPUs and nothing measured yet (a batch size never seen, a fresh
 * STARPU_HOME) every GPU's workers get the same prediction for a chunk, and dmda, taking the first
 * of equals, put every chunk of the first step on the first GPU's streams; the data then stayed
 * there for the whole run (H200 x2, the six-cell mix in two chunks: 1.79 ms per step on the
 * first run, 1.12 once measured). So each piece of data a task writes has a home GPU, and the
 * other GPUs' predictions for it are HOME_PENALTY longer. The runtime gives the homes where it
 * prefetches a batch's chunks (size_model_set_home); data it names none for get one the first
 * time the model sees them, round robin in the order tasks are placed.
 * Why a whole task's length: dmda sees each of a GPU's CUDA workers as a device of its own, so
 * when two of a GPU's chunks land on one of its workers it finds the chunk's home GPU a task
 * behind, while moving the chunk costs only its transfer, on NVLink a fraction of a task of
 * several steps. Two H100s, 256,000 neurons, five runs of each cut (commit 29483d8 + these
 * changes, GPU measurements pooled, the driver's 8 hardware queues then): with 1.05, 32 tasks moved
 * chunks for good in 4 runs of 5 (560 tasks on one GPU against 272, up to 1.30 ms a step against
 * 0.93); with 2, in 35 runs of 2 to 32 tasks the GPUs ran equal task counts in 32 and within 5 % in
 * the other 3. A chunk still leaves a GPU that falls more than a task behind: the scheduler still
 * decides. */
#define HOME_SLOTS 8192 /* data seen beyond this get no home */
#define HOME_PENALTY 2.0
/* The cores' home. A GPU's CUDA workers share it (16 by default), and dmda sees each as a device
 * of its own: with four chunks running, twelve look idle, so a chunk cut for a core, a few
 * hundredths of a GPU chunk, can look cheaper on an idle CUDA worker than on the core, though
 * running it there takes the GPU's time from its own chunks, which set the step; which side wins
 * then hangs on the GPU's prediction for a size it has not measured, and once a core's chunk has
 * run on the GPU that size is measured there. One H200 and 15 cores, 256,000 medium-high with the
 * cores' share, 18 runs of one build (commit be1e0ab): 1.08-1.11x the GPU alone in the four where
 * the cores ran 1,521-1,877 of their 1,877 tasks, 0.99-1.00x where they ran under 110. So data
 * the runtime cut for the cores have the cores as home, and a GPU's prediction for a task writing
 * them adds what a core would take for one more than a core's round of such chunks (the chunks
 * at home over the CPU workers, rounded up): a GPU takes one only when no core could start it
 * within a round. One core's time was enough with a chunk a core (home26: the cores ran every
 * task in 8 runs of 8), not with four a core, whose cores hold about three ready tasks each:
 * the GPU ran 5 to 33 of the cores' tasks a run, at 3.7-25 ms each for what a core ran in 3.2-8.2
 * (a small kernel waits behind the GPU's own chunks), and two runs of 300 steps took 1.6 and 2x
 * as long as the GPU alone (chunks26, commit f2f0314; how much of that the moved tasks caused
 * was not measured). */
#define HOME_CPUS (-2)
/* Data the cores gave up to the GPUs during a run (size_model_set_gpus_home): tasks writing it
 * are predicted never to end on a core, so the scheduler puts them on a GPU. */
#define HOME_GPUS (-3)
static pthread_mutex_t home_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  starpu_data_handle_t handle;
  int device;
} homes[HOME_SLOTS];
static int homes_given, gpus_known = -1, gpu_devids[STARPU_MAXCUDADEVS];
static int cpu_homes;      /* data whose home is the cores */
static int gpus_homes;     /* data the cores gave up to the GPUs (HOME_GPUS; read atomically) */
static int cpu_homes_open; /* size_model_open_cpu_homes: the GPUs' own work is done */

void size_model_set_gpus(const int *devids, int n) {
  pthread_mutex_lock(&home_lock);
  memset(homes, 0, sizeof homes);
  homes_given = 0;
  cpu_homes = 0;
  __atomic_store_n(&gpus_homes, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&cpu_homes_open, 0, __ATOMIC_RELAXED);
  gpus_known = n < 0 ? -1 : n < STARPU_MAXCUDADEVS ? n : STARPU_MAXCUDADEVS;
  for (int i = 0; i < gpus_known; i++)
    gpu_devids[i] = devids[i];
  pthread_mutex_unlock(&home_lock);
}

/* Needs home_lock: the CUDA devices StarPU's workers drive, in worker order. */
static void find_gpus(void) {
  gpus_known = 0;
  unsigned n = starpu_worker_get_count();
  for (unsigned w = 0; w < n; w++) {
    if (starpu_worker_get_type((int)w) != STARPU_CUDA_WORKER)
      continue;
    int devid = starpu_worker_get_devid((int)w), seen = 0;
    for (int g = 0; g < gpus_known; g++)
      seen |= gpu_devids[g] == devid;
    if (!seen && gpus_known < STARPU_MAXCUDADEVS)
      gpu_devids[gpus_known++] = devid;
  }
}

/* Needs home_lock. Without `replace`: the home of `handle` (a CUDA device number or HOME_CPUS,
 * -1 for none), the next GPU round robin when it has none yet. With it: makes `device` its home
 * (-1: none). GPU homes need two GPUs (one has nothing to tell apart); the cores' home one. */
static int home_of(starpu_data_handle_t handle, int device, int replace) {
  if (gpus_known < 0)
    find_gpus();
  const int kept = device == HOME_CPUS || device == HOME_GPUS ? gpus_known >= 1
                                                              : device >= -1 && gpus_known >= 2;
  size_t slot = (size_t)(((uintptr_t)handle >> 4) * UINT64_C(0x9E3779B97F4A7C15) >> 51);
  for (int probe = 0; probe < HOME_SLOTS; probe++, slot = (slot + 1) % HOME_SLOTS) {
    if (homes[slot].handle == handle) {
      if (replace) { /* also on one GPU: a handle StarPU reuses must lose the cores' home */
        cpu_homes += (device == HOME_CPUS) - (homes[slot].device == HOME_CPUS);
        __atomic_add_fetch(&gpus_homes, (device == HOME_GPUS) - (homes[slot].device == HOME_GPUS),
                           __ATOMIC_RELAXED);
        homes[slot].device = device;
      }
      return homes[slot].device;
    }
    if (!homes[slot].handle) {
      if (!kept || (replace && device == -1))
        return -1;
      homes[slot].handle = handle;
      cpu_homes += device == HOME_CPUS;
      __atomic_add_fetch(&gpus_homes, device == HOME_GPUS, __ATOMIC_RELAXED);
      return homes[slot].device = device != -1 ? device : gpu_devids[homes_given++ % gpus_known];
    }
  }
  return -1;
}

/* Makes `device` the home of `handle` (-1: none). */
static void home_set(starpu_data_handle_t handle, int device) {
  if (!handle)
    return;
  pthread_mutex_lock(&home_lock);
  home_of(handle, device, 1);
  pthread_mutex_unlock(&home_lock);
}

void size_model_set_home(starpu_data_handle_t handle, int devid) {
  if (devid >= 0)
    home_set(handle, devid);
}

void size_model_set_cpu_home(starpu_data_handle_t handle) {
  home_set(handle, HOME_CPUS);
}

void size_model_set_gpus_home(starpu_data_handle_t handle) {
  home_set(handle, HOME_GPUS);
}

void size_model_forget_home(starpu_data_handle_t handle) {
  home_set(handle, -1);
}

void size_model_open_cpu_homes(int open) {
  __atomic_store_n(&cpu_homes_open, open != 0, __ATOMIC_RELAXED);
}

/* How many times a core's time a GPU's prediction for a task at the cores' home adds: one more
 * than the rounds the chunks at home make over the CPU workers; none while the homes are open
 * (size_model_open_cpu_homes). */
static double cpu_home_penalty(void) {
  if (__atomic_load_n(&cpu_homes_open, __ATOMIC_RELAXED))
    return 0.0;
  const unsigned cores = starpu_cpu_worker_get_count();
  pthread_mutex_lock(&home_lock);
  const int chunks = cpu_homes;
  pthread_mutex_unlock(&home_lock);
  const int per_core = cores > 1 ? (chunks + (int)cores - 1) / (int)cores : chunks;
  return 1.0 + (per_core > 1 ? per_core : 1);
}

/* The home device of the first piece of data the task writes, -1 for none. */
static int home_device(struct starpu_task *task) {
  starpu_data_handle_t written = NULL;
  const unsigned buffers = STARPU_TASK_GET_NBUFFERS(task);
  for (unsigned i = 0; i < buffers && !written; i++)
    if (STARPU_TASK_GET_MODE(task, i) & STARPU_W)
      written = STARPU_TASK_GET_HANDLE(task, i);
  if (!written)
    return -1;
  pthread_mutex_lock(&home_lock);
  const int device = home_of(written, -1, 0);
  pthread_mutex_unlock(&home_lock);
  return device;
}

double size_model_largest_measured(const struct size_model *model, uint32_t kind,
                                   const struct starpu_perfmodel_arch *arch, double below) {
  char key[24];
  arch_key(arch, key, sizeof key);
  const int cuda = arch->ndevices >= 1 && arch->devices[0].type == STARPU_CUDA_WORKER;
  double largest = 0.0;
  pthread_rwlock_rdlock(&lock);
  for (int i = 0; i < n_series; i++) {
    const struct series *s = &all[i];
    /* A GPU counts as measured when another GPU was (size_model_expected_us borrows). */
    if (s->kind != kind || strcmp(s->symbol, model->symbol) != 0 ||
        (cuda ? strncmp(s->arch, "cuda", 4) != 0 : strcmp(s->arch, key) != 0))
      continue;
    for (int e = 0; e < s->count; e++)
      if (s->entries[e].samples > 0 && s->entries[e].size > largest && s->entries[e].size < below)
        largest = s->entries[e].size;
  }
  pthread_rwlock_unlock(&lock);
  return largest;
}

int size_model_measured(const struct size_model *model, uint32_t kind,
                        const struct starpu_perfmodel_arch *arch) {
  return size_model_largest_measured(model, kind, arch, INFINITY) > 0.0;
}

/* dmda and dmdas ask for a task's duration on every worker in turn when they place it: 16
 * CUDA workers per GPU (STARPU_NWORKER_PER_CUDA) plus the CPU cores, each asking anew with the
 * same answer per arch. They place a task when its predecessor ends, on the thread that drives
 * the GPU, so every microsecond here is taken from the GPU's launches: 64 tasks a step on one
 * GPU, or 16 over two, are paced by that thread. The last task's predictions, one per arch,
 * are kept per thread and given again while StarPU asks about the same task (its job id). */
#define MEMO_ARCHS 16
struct arch_prediction {
  int type, device; /* CUDA: the device number; CPU: the cores of a combined worker */
  double us;
};
struct arch_memo {
  const struct size_model *model;
  const struct starpu_task *task;
  unsigned long job;
  int count;
  struct arch_prediction archs[MEMO_ARCHS];
};
static _Thread_local struct arch_memo memo;

static double task_expected_us(const struct size_model *model, struct starpu_task *task,
                               struct starpu_perfmodel_arch *arch) {
  double us = size_model_expected_us(model, model->kind(task), model->size(task), arch);
  if (arch->ndevices >= 1 && arch->devices[0].type == STARPU_CUDA_WORKER) {
    const int home = home_device(task);
    if (home == HOME_CPUS) {
      struct starpu_perfmodel_device core_device = {.type = STARPU_CPU_WORKER, .ncores = 1};
      struct starpu_perfmodel_arch core = {.ndevices = 1, .devices = &core_device};
      us += cpu_home_penalty() *
            size_model_expected_us(model, model->kind(task), model->size(task), &core);
    } else if (home >= 0 && home != arch->devices[0].devid)
      us *= HOME_PENALTY;
  } else if (__atomic_load_n(&gpus_homes, __ATOMIC_RELAXED) > 0 && home_device(task) == HOME_GPUS)
    return INFINITY; /* given up by the cores: a GPU's (the lock only once some data is) */
  return us;
}

double size_model_task_expected_us(const struct size_model *model, struct starpu_task *task,
                                   struct starpu_perfmodel_arch *arch) {
  const int type = arch->ndevices >= 1 ? (int)arch->devices[0].type : -1;
  const int device = arch->ndevices < 1                            ? 0
                     : arch->devices[0].type == STARPU_CUDA_WORKER ? arch->devices[0].devid
                                                                   : arch->devices[0].ncores;
  if (!task->starpu_private) /* not submitted (a test's task): StarPU would make it a job */
    return task_expected_us(model, task, arch);
  const unsigned long job = starpu_task_get_job_id(task);
  if (memo.model != model || memo.task != task || memo.job != job) {
    memo.model = model;
    memo.task = task;
    memo.job = job;
    memo.count = 0;
  }
  for (int i = 0; i < memo.count; i++)
    if (memo.archs[i].type == type && memo.archs[i].device == device)
      return memo.archs[i].us;
  double us = task_expected_us(model, task, arch);
  if (memo.count < MEMO_ARCHS)
    memo.archs[memo.count++] = (struct arch_prediction){type, device, us};
  return us;
}

void size_model_task_done(void *argument) {
  const struct size_model *model = argument;
  struct starpu_task *task = starpu_task_get_current();
  if (!task || !task->profiling_info || task->profiling_info->workerid < 0)
    return;
  struct starpu_profiling_task_info *info = task->profiling_info;
  double us = starpu_timing_timespec_delay_us(&info->start_time, &info->end_time);
  struct starpu_perfmodel_arch *arch =
      starpu_worker_get_perf_archtype(info->workerid, task->sched_ctx);
  if (arch)
    size_model_record(model->symbol, model->kind(task), model->size(task), arch, us);
}

int size_model_load(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  char line[256];
  int status = 0;
  pthread_rwlock_wrlock(&lock);
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n')
      continue;
    char symbol[48], arch[24];
    unsigned kind;
    double size, samples, mean, m2;
    if (sscanf(line, "%47s %u %23s %lf %lf %lf %lf", symbol, &kind, arch, &size, &samples, &mean,
               &m2) != 7 ||
        !(size > 0) || !(samples > 0) || !(mean > 0)) {
      status = -1;
      continue;
    }
    struct entry *e = entry_get(symbol, (uint32_t)kind, arch, size);
    if (e) {
      entry_add(e, samples, mean, m2);
      e->warm = 1;
    }
  }
  pthread_rwlock_unlock(&lock);
  fclose(f);
  return status;
}

int size_model_save(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f)
    return -1;
  fprintf(f, "# hinestask size models (codelets/size_model.h): symbol kind arch size samples "
             "mean_us m2\n");
  pthread_rwlock_rdlock(&lock);
  for (int i = 0; i < n_series; i++)
    for (int j = 0; j < all[i].count; j++) {
      const struct entry *e = &all[i].entries[j];
      if (e->samples > 0)
        fprintf(f, "%s %u %s %.17g %.17g %.17g %.17g\n", all[i].symbol, (unsigned)all[i].kind,
                all[i].arch, e->size, e->samples, e->mean, e->m2);
    }
  pthread_rwlock_unlock(&lock);
  return fclose(f) == 0 ? 0 : -1;
}

void size_model_clear(void) {
  pthread_rwlock_wrlock(&lock);
  for (int i = 0; i < n_series; i++)
    free(all[i].entries);
  free(all);
  all = NULL;
  n_series = series_capacity = 0;
  pthread_rwlock_unlock(&lock);
  size_model_set_gpus(NULL, -1); /* homes forgotten, GPUs found again */
}

int size_model_entries(void) {
  int count = 0;
  pthread_rwlock_rdlock(&lock);
  for (int i = 0; i < n_series; i++)
    for (int j = 0; j < all[i].count; j++)
      count += all[i].entries[j].samples > 0;
  pthread_rwlock_unlock(&lock);
  return count;
}
