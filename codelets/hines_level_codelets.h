/* The multi-morphology level codelets and the helpers that submit their tasks; the helpers are
 * the only place that orders a task's buffers (hines_level_codelets.c unpacks them in the same
 * file). Each helper returns starpu_task_insert's status (-ENOMEM when out of memory).
 * Per-level tasks show the paper's decomposition in traces and let several workers share the
 * levels of a chunk; a chunk task sweeps all its levels (kernels queued back to back on the GPU
 * stream, no runtime round trip between levels). */
#ifndef HINES_LEVEL_CODELETS_H
#define HINES_LEVEL_CODELETS_H

#include "hines_codelet.h"

#include "hines_level_kernels.h"

extern struct starpu_codelet level_backward_codelet;
extern struct starpu_codelet level_forward_codelet;
extern struct starpu_codelet chunk_step_codelet;

/* The backward sweep of one level block: block is its description (level_layout.h), constants
 * the batch's table; factor and contribution (2 per system) are written; child_contribution is
 * the next level's contribution (a 2-value dummy on the deepest level); gates NULL when
 * passive. */
struct level_backward_data {
  starpu_data_handle_t block, constants, voltage, factor, contribution, child_contribution, gates;
};
int level_backward_insert(const struct level_backward_data *data,
                          const struct level_step_arguments *args, const char *name);

/* The forward sweep of one level block: parent_voltage is the previous level's voltage (a dummy
 * on level 0). samples: this level piece's probe buffer (codelets/probe_samples.h), whose row
 * sample_row receives the probed voltages after the sweep; NULL or sample_row < 0: none.
 * spikes: the piece's spike record (codelets/spike_record.h), checked after step number
 * spike_step (from 1); NULL or spike_step 0: none. */
struct level_forward_data {
  starpu_data_handle_t block, voltage, factor, parent_voltage, samples, spikes;
  int sample_row, spike_step;
};
int level_forward_insert(const struct level_forward_data *data,
                         const struct level_step_arguments *args, const char *name);

/* A whole step of one chunk: ints are the chunk's concatenated level descriptions; gates NULL
 * when passive; samples, sample_row, spikes and spike_step as in level_forward_data, for the
 * chunk's voltages.
 * chunk_id names the chunk for the whole process (a number no other chunk has had; 0: none):
 * on a GPU a one-part chunk's step is captured once into a CUDA graph and replayed, one launch
 * instead of one per level, keyed by it.
 * steps: the steps the task advances (0 or 1: one, at args->step.time_ms); step j of the task
 * starts at run_t0_ms + (run_step + j) * dt, spikes are checked after each (step numbers
 * spike_step + j) and sample_row is filled after the last. On a GPU the steps queue back to
 * back on the task's stream: StarPU's round trip between dependent tasks (the GPU idle while
 * the worker sees one task end and starts the next) is paid once per task.
 * ended: see the struct. */
struct chunk_step_data {
  starpu_data_handle_t ints, constants, voltage, factor, contribution, gates, samples, spikes;
  int sample_row, spike_step;
  int steps, run_step;
  double run_t0_ms;
  unsigned long long chunk_id;
  /* Called (on the worker that ran it, after the size model has recorded it) when the task
   * ends, with `ended_argument`; NULL: nothing. */
  void (*ended)(void *ended_argument);
  void *ended_argument;
};
int chunk_step_insert(const struct chunk_step_data *data, const struct chunk_step_arguments *args,
                      const char *name, unsigned long where);
/* The size model's prediction, in microseconds, for a chunk task of `steps` steps over `values`
 * values (its voltage buffer's length) of the kind `args` describes (channels, kernel, parts,
 * launch, levels) on StarPU worker `worker` (codelets/size_model.h); and the largest task
 * measured on that worker's kind under `below` values (INFINITY: any), in values (a task's size
 * over `steps`; 0: nothing measured, the prediction is the prior). runtime/multi_batch.c cuts the
 * cores' share with them. */
double chunk_step_expected_us(const struct chunk_step_arguments *args, int steps, double values,
                              int worker);
double chunk_step_largest_measured(const struct chunk_step_arguments *args, int steps, int worker,
                                   double below);
/* ... and from the mean rate of every task measured within `spread` times `values` either way
 * (size_model_rate_near_us). */
double chunk_step_rate_near_us(const struct chunk_step_arguments *args, int steps, double values,
                               int worker, double spread);
/* Frees the CUDA graphs and the CPU tasks' cached element constants of a chunk whose tasks have
 * all ended (its buffers are going away). */
void chunk_step_forget(unsigned long long chunk_id);
/* The most the CPU tasks keep of chunks' element constants across tasks, in bytes, in all
 * (default LEVEL_ELEMENT_CONSTANTS_CACHE_BYTES; 0: none kept, every task gathers its own; the
 * same bits either way). Applies to constants made from then on; returns the limit before. */
size_t chunk_step_cpu_cache_limit(size_t bytes);
/* What the CPU tasks keep of chunks' element constants now, in bytes. */
size_t chunk_step_cpu_cache_bytes(void);

#endif
