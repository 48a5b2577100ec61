/* Performance models that predict a task's duration for any task size, measured or not, so
 * that dmda/dmdas place chunks of any size sensibly without where-masks.
 *
 * StarPU 1.3's own models cannot: a history model knows only the sizes it has measured, its
 * regressions refuse to predict outside 0.9x-1.1x of the sizes seen, and an unknown prediction
 * makes dmda send the task to the worker that lacks it, to calibrate: a GPU-sized chunk to a CPU
 * core, hundreds of times slower. So every hinestask codelet has a STARPU_PER_ARCH model whose
 * cost function is this one. For a task of size x (compartment-steps) on an arch it returns
 *   1. the mean duration measured for exactly this size, kind and arch, if any;
 *   2. else the line through the two measured sizes nearest to x (one: time proportional to
 *      size); beyond the measured sizes kept between the nearest one's time and that time in
 *      proportion to size (a line through two near, noisy sizes would otherwise predict
 *      anything far out), and on a CPU past its largest measured size in proportion (a core's
 *      time per unit never grows with size, and a line through small tasks predicted large ones
 *      as nearly free);
 *   3. else, on a GPU never measured, what 1 and 2 give for another GPU that was;
 *   4. else, for an arch with no measurement at all, a prior: x / (rate per core x cores) on
 *      CPUs, latency + x x (workers sharing the GPU) / rate on a GPU.
 * Measurements come from StarPU's profiling (each task's start and end, recorded by the
 * callback the insert helpers attach) and are kept under STARPU_HOME after a calibration run,
 * beside StarPU's own models (runtime/runtime.c loads and saves them).
 *
 * A GPU worker with several tasks queued runs them concurrently (codelets/task_streams.h); what
 * StarPU measures as a task's duration is then the time between successive ends, i.e. the
 * worker's throughput, which is what dmda's one-task-after-another model of a worker needs. */
#ifndef HINES_SIZE_MODEL_H
#define HINES_SIZE_MODEL_H

#include <starpu.h>
#include <stdint.h>

/* What a codelet tells the size model about its tasks. */
struct size_model {
  const char *symbol; /* the codelet's name */
  /* The task's work in compartment-steps, and its kind: tasks of one kind differ by size only
   * (layout, compartments per neuron, channels...). */
  double (*size)(struct starpu_task *task);
  uint32_t (*kind)(struct starpu_task *task);
  /* Priors for an arch never measured: compartment-steps per microsecond on one CPU core and
   * on one whole GPU, and a GPU task's fixed time in microseconds. */
  double cpu_rate, cuda_rate, cuda_latency_us;
};

/* Expected duration in microseconds (always > 0) of a task of `kind` and `size` on `arch`.
 * size_model_task_expected_us adds a home GPU per piece of data a task writes (where the runtime
 * put it, else round robin over the GPUs as the data are first seen): on any other GPU the
 * prediction is twice as long, which spreads the first step's chunks over the GPUs when nothing
 * tells them apart and keeps each chunk on its GPU unless that GPU falls a task behind; data given
 * the cores as home (size_model_set_cpu_home) add more than a core's round on every GPU. */
double size_model_expected_us(const struct size_model *model, uint32_t kind, double size,
                              struct starpu_perfmodel_arch *arch);
/* The same from the mean time a unit of size of every measurement of `kind` on `arch` within
 * `spread` times `size` either way, each size weighted by its samples (size_model_expected_us
 * where none): tasks of nearly one size can differ in cost (the cores' share's chunks of
 * different cells), and the line between the two nearest measured sizes then says what those
 * two happened to cost. */
double size_model_rate_near_us(const struct size_model *model, uint32_t kind, double size,
                               struct starpu_perfmodel_arch *arch, double spread);
/* Whether anything measured (not the prior) stands behind size_model_expected_us for `kind` on
 * `arch`, at any size. */
int size_model_measured(const struct size_model *model, uint32_t kind,
                        const struct starpu_perfmodel_arch *arch);
/* The largest size under `below` (INFINITY: any) measured for `kind` on `arch` (0: none), as
 * size_model_measured counts. */
double size_model_largest_measured(const struct size_model *model, uint32_t kind,
                                   const struct starpu_perfmodel_arch *arch, double below);
/* The same for a task (the body of the codelets' arch_cost_function). */
double size_model_task_expected_us(const struct size_model *model, struct starpu_task *task,
                                   struct starpu_perfmodel_arch *arch);
/* With pool set, every GPU's measurements count for all GPUs, as for one device (for GPUs of
 * one model); else each GPU learns alone (the default). Kept across size_model_clear. */
void size_model_pool_gpus(int pool);
/* Makes CUDA device `devid` the home of `handle` (where the runtime put it): tasks writing it
 * first are predicted HOME_PENALTY longer on any other GPU. */
void size_model_set_home(starpu_data_handle_t handle, int devid);
/* Makes the CPU cores the home of `handle` (data the runtime cut for a core): tasks writing it
 * first are predicted on any GPU as their GPU time plus a core's for one more than a core's round
 * of such chunks, so an idle CUDA worker never looks cheaper than a core that could start it
 * within a round (size_model.c, HOME_CPUS). Needs a GPU at least. */
void size_model_set_cpu_home(starpu_data_handle_t handle);
/* Makes the GPUs the home of `handle`, data the cores had as home and give up during a run
 * (runtime/multi_batch.c, MULTI_SHARE_LAG_TO_GPUS): tasks writing it first are predicted never to
 * end on a core, so the scheduler gives them to a GPU. Needs a GPU at least. */
void size_model_set_gpus_home(starpu_data_handle_t handle);
/* open 1: a GPU's prediction for a task at the cores' home is its GPU time alone, with no core's
 * round added, so the scheduler gives it to whichever worker ends it first; 0 (the default):
 * the cores' round added again. For the end of a run whose GPUs have no work of their own left
 * (runtime/multi_batch.c, MULTI_SHARE_TAIL_TO_GPUS). */
void size_model_open_cpu_homes(int open);
/* `handle` has no home any more (its data is unregistered: StarPU may reuse the handle). */
void size_model_forget_home(starpu_data_handle_t handle);
/* The GPUs (CUDA device numbers) homes go round; by default, at first use, the devices of
 * StarPU's CUDA workers. n = -1 restores the default; also forgets every home given and holds
 * the cores' homes closed again. */
void size_model_set_gpus(const int *devids, int n);
/* Task callback (argument: the codelet's struct size_model): records the duration StarPU's
 * profiling measured for the task that just ended. Does nothing when profiling is off. */
void size_model_task_done(void *model);
/* Records one measurement (microseconds). The first one of each size, kind and arch in a run
 * is dropped as warm-up. */
void size_model_record(const char *symbol, uint32_t kind, double size,
                       const struct starpu_perfmodel_arch *arch, double us);

/* The measurements, as text: one line per size (symbol kind arch size samples mean m2).
 * size_model_load adds a file's measurements (a missing file is no error: returns 0, -1 on a
 * malformed one); size_model_save writes everything; size_model_clear forgets everything. */
int size_model_load(const char *path);
int size_model_save(const char *path);
void size_model_clear(void);
/* Sizes measured in all (for reports). */
int size_model_entries(void);

#endif
