/* A batch of N neurons sharing one morphology, registered with StarPU once and kept partitioned
 * into chunks of neurons (one task per chunk and step) for the whole time loop, so the data stays
 * resident where the tasks run; only what the caller asks for comes back to the host. */
#ifndef HINES_MONO_BATCH_H
#define HINES_MONO_BATCH_H

#include "batch_layout.h"
#include "cable.h"
#include "hines_mono_kernels.h"
#include "morphology.h"

struct mono_batch_config {
  const struct morphology *morphology;
  struct cable_parameters cable;
  enum batch_layout_kind layout;
  int n_neurons;
  int block_size;       /* block layouts */
  int neurons_per_task; /* 0: one task per worker-sized share (see mono_batch_default_chunk) */
  int cpu_group;        /* neurons vectorised together by CPU kernels (0: 32) */
  double dt_ms;
  double initial_mV;
  struct stimulus stimulus;
  struct hh_parameters hh; /* placement HH_NONE: passive membrane only */
};

struct mono_batch;

/* Allocates and registers the batch (voltage at initial_mV); HINES_BAD_INPUT for bad sizes. */
int mono_batch_create(const struct mono_batch_config *config, struct mono_batch **out,
                      struct hines_error *err);
/* Submits `steps` voltage steps starting at time t0_ms and waits for them. */
int mono_batch_run(struct mono_batch *batch, int steps, double t0_ms);
/* Copies neuron k's voltages (n values) to the host. */
void mono_batch_voltage(struct mono_batch *batch, int neuron, double *out_mV);
int mono_batch_chunks(const struct mono_batch *batch);
/* Brings the voltages home and looks for a value that is not finite; returns 1 and the first
 * such neuron and compartment, or 0. */
int mono_batch_find_nonfinite(struct mono_batch *batch, int *neuron, int *compartment);
void mono_batch_destroy(struct mono_batch *batch);

/* The per-morphology arrays the step codelets share (layouts in codelets/hines_mono_kernels.h):
 * the topology (malloc'd, NULL when out of memory) and the COEF_COUNT * n coefficients. */
int *mono_topology_build(int n, const int *parent);
int mono_coefficients_fill(const struct morphology *m, const struct cable_parameters *cable,
                           double dt_ms, double *coefficients, struct hines_error *err);

/* Neurons per task when the user gives none: one chunk per CUDA worker when there are GPUs
 * (one-thread-per-neuron kernels need ~100k neurons to fill a GPU), else a few chunks per CPU
 * worker so that the schedulers can balance. */
int mono_batch_default_chunk(int n_neurons, int block_size, enum batch_layout_kind layout);

/* Pure Hines solve of N systems sharing parent/upper/lower (papers' benchmark operation and the
 * --verify path): diagonal and rhs are flat (k*n + i); rhs receives the solutions. */
int mono_solve(int n, const int *parent, const double *upper, const double *lower,
               enum batch_layout_kind layout, int n_neurons, int block_size, int neurons_per_task,
               double *diagonal, double *rhs, struct hines_error *err);

#endif
