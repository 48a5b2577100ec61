/* The mono-morphology codelets and the helpers that submit their tasks. The helpers are the
 * only place that orders a task's buffers (hines_mono_codelets.c unpacks them in the same file);
 * callers name the handles. cl_arg: struct chunk_geometry (solve) or struct step_arguments
 * (step), whose ld and neuron count the codelet refreshes from the matrix interface it
 * receives. Each helper returns starpu_task_insert's status (-ENOMEM when out of memory). */
#ifndef HINES_MONO_CODELETS_H
#define HINES_MONO_CODELETS_H

#include "hines_codelet.h"

#include "hines_mono_kernels.h"

extern struct starpu_codelet hines_solve_codelet;
extern struct starpu_codelet hines_step_codelet;
extern struct starpu_codelet neuron_step_codelet;

/* The largest Block-Shared block, in neurons, that every CUDA worker's GPU can run for n
 * compartments (hines_shared_block_limit), INT_MAX when no CUDA worker would run one;
 * *bytes_per_block gets the smallest GPU's shared memory per block (0 without CUDA workers). */
int hines_shared_block_limit_on_workers(int n_compartments, int *bytes_per_block);

/* A pure Hines solve of one chunk: rhs becomes the solution, diagonal the pivots. topology and
 * coefficients are vectors (hines_mono_kernels.h), diagonal and rhs the chunk's matrices. */
int hines_solve_insert(starpu_data_handle_t topology, starpu_data_handle_t coefficients,
                       starpu_data_handle_t diagonal, starpu_data_handle_t rhs,
                       const struct chunk_geometry *geometry, const char *name,
                       unsigned long where);

/* One voltage step of one chunk. work is scratch (written before read); gates is the chunk's
 * Hodgkin-Huxley gates matrix, or NULL for a passive membrane. samples (codelets/probe_samples.h)
 * is the chunk's probe buffer, into whose row sample_row the task copies the probed voltages
 * after the step; NULL (or sample_row < 0) when this step is not sampled. spikes
 * (codelets/spike_record.h) is the chunk's spike record, checked after step number spike_step
 * (from 1); NULL (or spike_step 0) without spike detection.
 * steps (0 counts as 1): the task advances its chunk that many steps, step j (from 0) starting at
 * run_t0_ms + (run_step + j) * dt, and checks spikes after each (numbers spike_step + j); the
 * probe row is filled after the last. One task for several steps pays StarPU's cost per task
 * once, and on a CPU keeps each neuron group in cache across the steps; the arithmetic of each
 * step is that of a one-step task, so the bits do not depend on it. own is the chunk's
 * per-neuron parameters of a sweep (columns says which; codelets/neuron_parameters.h), a
 * matrix of the chunk's neurons along x, or NULL. */
struct hines_step_data {
  starpu_data_handle_t topology, coefficients, voltage, work, gates, own, samples, spikes;
  const struct neuron_columns *columns; /* with own */
  int sample_row, spike_step;
  int steps, run_step;
  double run_t0_ms;
};
int hines_step_insert(const struct hines_step_data *data, const struct step_arguments *args,
                      const char *name, unsigned long where);
/* The step model's prediction, in microseconds, for a task of `steps` steps over a chunk of
 * `values` values (neurons x compartments) of the shape `args` describes on StarPU worker
 * `worker` (0 if unknown). */
double hines_step_expected_us(const struct step_arguments *args, int steps, double values,
                              int worker);
/* Whether the step model has measured tasks of this shape and steps on `worker`'s kind of worker
 * (at any size), rather than only its prior. */
int hines_step_measured(const struct step_arguments *args, int steps, int worker);
/* The largest chunk (neurons x compartments) the step model has measured tasks of this shape and
 * steps at on `worker`'s kind of worker (0: none). */
double hines_step_largest_measured(const struct step_arguments *args, int steps, int worker);

/* The multi-morphology baseline: the mono step with one tree per neuron. neurons, topology and
 * coefficients are the concatenated tables (hines_neuron_step_cuda in hines_mono_kernels.h);
 * voltage and work matrices hold neurons along x, compartments along y. */
struct neuron_step_data {
  starpu_data_handle_t neurons, topology, coefficients, voltage, work, samples, spikes;
  int sample_row, spike_step; /* as in hines_step_data */
};
int neuron_step_insert(const struct neuron_step_data *data, const struct step_arguments *args,
                       const char *name, unsigned long where);

#endif
