/* A batch of N neurons sharing one morphology, registered with StarPU once and kept partitioned
 * into chunks of neurons (one task per chunk and step) for the whole time loop, so the data stays
 * resident where the tasks run; only what the caller asks for comes back to the host. */
#ifndef HINES_MONO_BATCH_H
#define HINES_MONO_BATCH_H

#include "batch_layout.h"
#include "hines_mono_kernels.h"
#include "step_model.h"

struct mono_batch_config {
  const struct morphology *morphology;
  enum batch_layout_kind layout;
  int n_neurons;
  int block_size;       /* block layouts */
  int neurons_per_task; /* 0: the default of runtime/placement.h */
  int cpu_group;        /* neurons vectorised together by CPU kernels (0: 32) */
  /* Steps submitted ahead (runtime.h; 0: RUNTIME_DEFAULT_WINDOW, 1: wait after every step). */
  int window;
  /* Steps each task advances (hines_step_data; 0: placement_task_steps decides): fewer, longer
   * tasks for the same steps, the same bits. */
  int task_steps;
  /* 1: each chunk may run only on the kind of worker it was sized for (runtime/placement.h);
   * 0 (the default): anywhere, the scheduler places it. */
  int pin;
  /* Whether CPU workers beside GPUs get chunks of their own (enum placement_share). */
  int cpu_share;
  /* 1: the CPU workers take the whole batch (mono_cores_alone_chosen), cut as a run without
   * GPUs cuts it (placement_cores_plan); the layout should then be BATCH_LAYOUT_BLOCK. */
  int cores_alone;
  /* Chunks of a block-layout batch stored interleaved instead, each one block as wide as the
   * chunk (what a GPU runs fastest with channels, while the cores keep their cache-sized
   * blocks): MONO_INTERLEAVE_GPU_CHUNKS the chunks cut for GPUs when the cores have a share
   * (every chunk when none was cut, unless --task-neurons sized them),
   * k > 0 the first k chunks (tests: the storage never changes the bits), 0 none. */
  int interleaved_chunks;
  /* A rank's share of a distributed batch (runtime/cluster.h): the batch holds neurons
   * first_neuron .. first_neuron + n_neurons - 1 of a batch of total_neurons, which the stimulus
   * goes by; its accessors still take indices from 0. 0 and 0: a whole batch. */
  int first_neuron, total_neurons;
  struct step_model model;
  /* A parameter sweep (--params; codelets/neuron_parameters.h): neuron k of this batch has its
   * own value of each parameter p with swept[p], sweep[k * NEURON_PARAMETER_COUNT + p] (as the
   * sweep gives it: cm in uF/cm2...), the model's elsewhere. NULL: every neuron the model's. The
   * neurons still start at the model's initial voltage. */
  const double *sweep;
  int swept[NEURON_PARAMETER_COUNT];
};

#define MONO_INTERLEAVE_GPU_CHUNKS (-1)

struct mono_batch;

/* Whether `config`'s batch (its layout the one GPUs would run) should run on the CPU workers
 * alone beside the GPUs (placement_cores_alone, runtime/placement.h): --cpu-share auto, no
 * --task-neurons, a dm* scheduler, CPU and CUDA workers both, below
 * PLACEMENT_SHARE_FROM_COMPARTMENTS with no share chosen, and the models' cores' round in the block
 * layout (config->block_size) against the GPU's one task over the batch. Both predictions must
 * stand on measurements, the GPU's at this size or larger (the size model's line would otherwise
 * carry a small batch's latency up to any size): without them the GPU runs it, and a calibration
 * run measures what is missing, the GPU alone first, then the cores alone whatever their prior says
 * (a core's prior is a large batch's rate, a third of a small one's): two --calibrate runs from an
 * empty STARPU_HOME. */
int mono_cores_alone_chosen(const struct mono_batch_config *config);
/* Allocates and registers the batch (voltage at initial_mV); HINES_BAD_INPUT for bad sizes. */
int mono_batch_create(const struct mono_batch_config *config, struct mono_batch **out,
                      struct hines_error *err);
/* Submits `steps` voltage steps starting at time t0_ms, keeping at most the config's window of
 * steps in flight; returns without waiting for the last ones (mono_batch_sync, or any read of
 * the voltages, waits). */
int mono_batch_run(struct mono_batch *batch, int steps, double t0_ms);
/* The same, the last step also filling probe sample row `sample_row` (-1: none). */
int mono_batch_run_sampled(struct mono_batch *batch, int steps, double t0_ms, int sample_row);
/* Waits until every step submitted has been computed. */
void mono_batch_sync(struct mono_batch *batch);
/* Probes sampled on the device (runtime/probe_set.h): compartment compartment[j] of neuron
 * neuron[j], for `rows` samples. Replaces any earlier probes. */
int mono_batch_probes(struct mono_batch *batch, int n, const int *neuron, const int *compartment,
                      int rows, struct hines_error *err);
/* Waits for the samples and copies rows 0 .. rows - 1 into values[row * n + j]. */
void mono_batch_probes_read(struct mono_batch *batch, int rows, double *values);
/* Spikes detected on the device (runtime/spike_set.h): upward crossings of threshold_mV at
 * compartment 0 of every neuron, from the next step submitted on (call before the first). */
struct spike_set;
int mono_batch_spikes(struct mono_batch *batch, double threshold_mV, struct hines_error *err);
/* The batch's spike records, read with spike_set_request (without waiting, at least every
 * SPIKE_SET_READ_EVERY steps) and spike_set_read (waiting, at the end). */
struct spike_set *mono_batch_spike_set(struct mono_batch *batch);
/* Copies neuron k's voltages (n values) to the host (the whole chunk that holds it comes
 * back: for the end of a run, not for probes). */
void mono_batch_voltage(struct mono_batch *batch, int neuron, double *out_mV);
int mono_batch_chunks(const struct mono_batch *batch);
/* Steps each of its step tasks advances (the config's task_steps, or placement_task_steps). */
int mono_batch_task_steps(const struct mono_batch *batch);
/* Neurons in the chunks cut for CPU cores beside the GPUs (the trailing chunks; 0 without a
 * share). */
int mono_batch_cpu_share_neurons(const struct mono_batch *batch);
/* The cores' share is measured before the batch runs (share_probe in mono_batch.c: a batch of
 * the share's neurons cut as the cores' chunks are, run on the CPU workers alone for
 * PLACEMENT_SHARE_PROBE_ROUNDS rounds after one to warm up), outside calibration runs, and cut
 * again where the cores' time differs from what the models predicted
 * (placement_share_probe_scale), as the multi share's (multi_batch.h, MULTI_SHARE_PROBE).
 * MONO_SHARE_PROBE 0: no probe; 1: measured and reported, the cut kept (a build to compare with);
 * 2: the cut made again. */
#ifndef MONO_SHARE_PROBE
#define MONO_SHARE_PROBE 2
#endif
/* The share's probe: the neurons of its first cut, and the cores' time executing a round of it,
 * measured and predicted (microseconds; 0 and 0: no probe ran). */
void mono_batch_share_probe(const struct mono_batch *batch, int *first_neurons, double *measured_us,
                            double *predicted_us);
/* The chunks stored interleaved in a block-layout batch (interleaved_chunks). */
int mono_batch_interleaved_chunks(const struct mono_batch *batch);
/* 1 when the cores' share was chosen (placement_share_chosen) beside GPUs but none was cut
 * because the models have not yet measured this batch's step tasks on CPU or CUDA workers (a
 * --calibrate run measures them); 0 otherwise. */
int mono_batch_share_uncalibrated(const struct mono_batch *batch);
/* Whether the step model has measured this batch's step tasks of `steps` steps on StarPU worker
 * `worker`'s kind of worker (tasks of different steps have histories of their own). */
int mono_batch_steps_measured(const struct mono_batch *batch, int steps, int worker);
/* Brings the voltages home and looks for a value that is not finite; returns 1 and the first
 * such neuron and compartment, or 0. */
int mono_batch_find_nonfinite(struct mono_batch *batch, int *neuron, int *compartment);
void mono_batch_destroy(struct mono_batch *batch);

/* Pure Hines solve of N systems sharing parent/upper/lower (papers' benchmark operation and the
 * --verify path): diagonal and rhs are flat (k*n + i); rhs receives the solutions. */
int mono_solve(int n, const int *parent, const double *upper, const double *lower,
               enum batch_layout_kind layout, int n_neurons, int block_size, int neurons_per_task,
               double *diagonal, double *rhs, struct hines_error *err);

#endif
