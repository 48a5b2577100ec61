/* StarPU start-up and shutdown for hinestask: scheduler validation, worker census, traces. */
#ifndef HINES_RUNTIME_H
#define HINES_RUNTIME_H

#include <stdio.h>

#include "batch_fill.h"
#include "morphology.h"

struct runtime_options {
  int quiet;
  int tracing; /* trace_prepare was called: keep the FxT trace on */
  /* 1: StarPU's own history-based models instead of the size models (codelets/hines_codelet.h) */
  int history_models;
  /* 1: start StarPU through StarPU-MPI (runtime/cluster.h; cluster_init has started MPI), every
   * task submitted with owner-computes semantics; runtime_stop stops StarPU-MPI too. */
  int distributed;
  /* Tasks each step will submit when the program knows it before StarPU starts (--task-neurons),
   * 0 otherwise: STARPU_NWORKER_PER_CUDA then follows runtime_workers_per_gpu. */
  int tasks_per_step;
};

/* CUDA workers per GPU for a step of `tasks` tasks over `gpus` GPUs: one per task where a GPU
 * gets 5 to 15 of them, 0 (hinestask's default, 16) otherwise. Measured on two H100s (256,000
 * medium-high neurons in 16 tasks, 8 a GPU, two runs, BENCHMARKS.md "Let StarPU schedule"):
 * 0.774-0.777 ms a step with 8 workers a GPU, 0.80-0.82 with 16 and 0.81 with 32, against
 * 1.504 for one task on one GPU (1.94x against 1.84-1.87x); with more tasks than 16 a GPU the
 * 16 workers stay (64 tasks on one H200: 1.41 ms with 16, 1.57 with 8), and up to 4 the default
 * already matches one task. Those H100 figures ran with the driver's 8 hardware queues (the 32
 * were set too late then: runtime_start); with 32, 8 workers a GPU gave 0.773-0.778 for the 16
 * tasks, 16 workers not measured again. */
int runtime_workers_per_gpu(long long tasks, int gpus);

/* For a scheduler that places no task by its data or a model (`scheduler`: STARPU_SCHED, NULL
 * unset), several GPUs, and a step of `tasks` tasks (0: hinestask's own chunking, at most
 * PLACEMENT_LEVEL_MAX_CHUNKS_PER_GPU a GPU): the CUDA workers a GPU and the tasks each keeps
 * queued (*workers, *pipeline) that let every GPU take its share, or 0 and 0 to keep the
 * defaults. eager and lws hand a ready task to whichever worker asks first; with the
 * default 16 workers of 4 queued tasks each, the first GPU took every chunk: the large real
 * cells over two H200s ran 1.03 ms a step under lws (0.99x one GPU) and 0.62 under eager (1.64x),
 * 0.525-0.532 with 4 workers a GPU keeping 1 task queued (1.91-1.94x), one GPU unchanged
 * (BENCHMARKS.md, "A trunk by default"). */
void runtime_greedy_workers(const char *scheduler, long long tasks, int gpus, int *workers,
                            int *pipeline);

/* Processors busy with other processes, from two readings of /proc/stat (`before`, `after`: the
 * files' text, or their "cpuN" lines) over an interval in which this process was idle: the busy
 * share of each processor's time (user, nice, system, irq, softirq, steal; not idle nor iowait),
 * summed over the processors this process may run on (allowed[i] not 0, i < n_allowed; a
 * container's /proc/stat is often the whole host's). -1 when no such processor's lines can be
 * read or compared. */
double runtime_busy_processors(const char *before, const char *after, const unsigned char *allowed,
                               int n_allowed);
/* The processors this process may run on (its affinity mask; where that cannot be read, the
 * first of the online ones): their number, 0 if unknown; allowed (NULL: not wanted) gets
 * allowed[i] = 1 for each, 0 for the others, i < RUNTIME_MAX_PROCESSORS. */
#define RUNTIME_MAX_PROCESSORS 1024
int runtime_usable_processors(unsigned char *allowed);
/* What keeps the processors this process may use busy over the next 100 ms, in which the
 * calling thread sleeps (runtime_busy_processors over two readings of /proc/stat; its other
 * threads count too: runtime_start reads it before StarPU's start); -1 where /proc/stat or the
 * affinity cannot be read. *allowed_count: those processors. */
double runtime_measure_busy_processors(int *allowed_count);
/* The cores to leave to other processes beside GPUs: the busy processors, rounded to the
 * nearest, none under half of one, never more than `cores` - 1 (0 without GPU; `cores`: the
 * processors this process may run on). StarPU binds a
 * worker to every core it uses, the GPU's driver thread included: where another process takes a
 * core, the worker there runs at its pace, and a GPU whose driver thread waits idles. Measured
 * on the H200 machine (three processes copying 512 MiB arrays, the mono HH share against the
 * GPU alone, e447225): medium-high x 128,000 ran 0.936-0.977x with 15 CPU workers, the GPU's
 * part of the step 7-11 % longer than quiet; with the three cores left 1.038-1.040x (leave90),
 * the passive share of x 256,000 1.048-1.061x (leave91). The multi share stays at risk there:
 * A, B, E and random trees 0.879-1.026x in eight rounds (leave91), a core another process took
 * running its tasks 3.5 times as long. */
int runtime_cores_to_leave(double busy, int cores, int gpus);
/* The cores runtime_start left to other processes (conf.reserve_ncpus; 0 when none, or STARPU_NCPU
 * was set, or no GPU), and the busy processors it measured (-1: not measured). */
int runtime_cores_left(void);
double runtime_busy_measured(void);

/* Sets hinestask's defaults for the StarPU variables the user has not set (runtime.c lists them
 * with the reason for each; runtime_describe prints the values in effect). runtime_start calls
 * it; programs that call starpu_init themselves may call it first, before any CUDA call (the
 * driver reads CUDA_DEVICE_MAX_CONNECTIONS when CUDA starts in the process). */
void runtime_set_defaults(void);

/* Checks STARPU_SCHED against StarPU's policies (HINES_BAD_INPUT with the list if unknown), then
 * starts StarPU. */
int runtime_start(const struct runtime_options *options, struct hines_error *err);
void runtime_stop(void);

/* Steps a batch keeps submitted ahead of the ones that have finished, unless its config says
 * otherwise: the host waits only when it needs results, never at the end of each step. */
#define RUNTIME_DEFAULT_WINDOW 4
/* Called before a batch submits a step: waits until at most window - 1 earlier steps are still
 * in flight (window <= 1: until none is, a wait after every step). */
void runtime_window_wait(int window, int tasks_per_step);
/* Tasks submitted and not yet done (StarPU's count): about a window of steps while a run's steps
 * are in flight. */
int runtime_tasks_in_flight(void);

/* STARPU_SCHED and the worker counts of the environment; HINES_BAD_INPUT if unusable. */
int runtime_check_environment(struct hines_error *err);
/* Returns HINES_OK, or HINES_BAD_INPUT naming the policies StarPU offers. */
int runtime_check_scheduler(const char *name, struct hines_error *err);
/* The policy in use (StarPU's default when STARPU_SCHED is unset). */
const char *runtime_scheduler(void);
/* The worker counts and the CUDA workers' names (StarPU's, e.g. "CUDA 0.0 (NVIDIA H100 ...)"),
 * as runtime_start found them; still valid after runtime_stop. */
int runtime_cpu_workers(void);
/* Whether this is a calibration run (STARPU_CALIBRATE >= 1, or --calibrate). */
int runtime_calibrating(void);
int runtime_cuda_workers(void);
/* GPUs driven by the CUDA workers (several workers may share one), and the name of each. */
int runtime_gpu_count(void);
const char *runtime_gpu_name(int i);
/* Tasks GPU i's workers, and all CPU workers, ran from runtime_start to the last
 * runtime_count_tasks (StarPU's profiling counts; runtime_stop reads them last); -1 before any
 * read or when STARPU_PROFILING=0. */
void runtime_count_tasks(void);
long long runtime_tasks_on_gpu(int i);
long long runtime_tasks_on_cpus(void);
/* The CPU workers' time executing tasks (microseconds, all of them) since StarPU's profiling
 * counts were last read, which this reads: the tasks it covers are left out of
 * runtime_count_tasks's counts (the multi share's probe, before a run). 0 with STARPU_PROFILING=0.
 */
double runtime_cpu_executing_us(void);
/* ... and the busiest CPU worker's in *busiest_us (a share's probe: the core whose round ends
 * last, where dmdas gave the cores' chunks unequally or they ran at unequal speeds). */
double runtime_cpu_executing_read(double *busiest_us);

/* Runs fill(argument, piece) for every piece in [0, pieces) as batch_fill tasks on the CPU cores
 * (codelets/batch_fill.h; bytes[piece], or NULL, what each writes) and waits for them: a batch's
 * arrays are first written, and their pages zeroed by the kernel, by the cores StarPU drives, not
 * by the thread building the batch. The fills are left out of runtime_count_tasks's counts and the
 * CPU workers' executing times (they are the batch's building, not its run); the trace shows them
 * as batch_fill states. With no CPU worker, or a task StarPU refuses, the pieces left run on this
 * thread and OpenMP threads on the processors StarPU's workers leave. Call with no other task in
 * flight. */
void runtime_fill_on_cores(batch_fill_function fill, void *argument, int pieces,
                           const double *bytes);
/* The threads runtime_fill_on_cores runs its pieces over: the CPU workers, or where there are
 * none the processors left beside a driver thread a GPU (at least 1). */
int runtime_fill_threads(void);
/* arrays[a][0 .. counts[a]) = values[a] for each of the n arrays (runs), by runtime_fill_on_cores
 * in pieces of 16 MB or less of the runs laid end to end: many short runs make few tasks. */
void runtime_fill_doubles(int n, double *const *arrays, const size_t *counts, const double *values);
/* memcpy(to[a], from[a], bytes[a]) for each of the n runs, by runtime_fill_on_cores in pieces of
 * 16 MB or less of the runs laid end to end (a chunk's level blocks into its ints). */
void runtime_copy_runs(int n, void *const *to, const void *const *from, const size_t *bytes);
/* Unregisters a handle whose values nobody reads again (a batch's gates, its sweeps' scratch)
 * without writing them back to RAM: its pieces (a partitioned handle's children, one level deep)
 * are first acquired in RAM for writing, which moves nothing, so unpartitioning gathers nothing.
 * A plain unregister or unpartition would copy every GPU-resident byte back (2.6 GB of gates at
 * mono medium-high x 256,000 with HH). Waits for the tasks using it. NULL: nothing. */
void runtime_unregister_discarding(void *handle);
/* CPU worker i's share of those (StarPU's CPU workers in their order): its tasks and the ms it
 * spent executing them. Returns 0, or -1 when not counted (as above) or i is no CPU worker. */
int runtime_cpu_worker_load(int i, long long *tasks, double *executing_ms);
/* The logical CPU StarPU bound GPU i's driver thread to (-1 if unknown). */
int runtime_gpu_driver_pu(int i);
/* How this rank shares its node with the node's other ranks (runtime/cluster.h), as runtime_start
 * set it up; node_ranks 0 when the run is not distributed. */
struct cluster_node_share;
const struct cluster_node_share *runtime_node_share(void);
/* The StarPU library's version, "1.3.10". */
const char *runtime_starpu_version(void);
void runtime_describe(FILE *out);
/* Where the size models (codelets/size_model.h) are kept: beside StarPU's models under
 * STARPU_HOME, loaded by runtime_start and written by runtime_stop after a calibration run
 * (STARPU_CALIBRATE >= 1). */
const char *runtime_size_model_path(void);

#endif
