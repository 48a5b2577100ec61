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
  struct step_model model;
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

/* Pure Hines solve of N systems sharing parent/upper/lower (papers' benchmark operation and the
 * --verify path): diagonal and rhs are flat (k*n + i); rhs receives the solutions. */
int mono_solve(int n, const int *parent, const double *upper, const double *lower,
               enum batch_layout_kind layout, int n_neurons, int block_size, int neurons_per_task,
               double *diagonal, double *rhs, struct hines_error *err);

#endif
