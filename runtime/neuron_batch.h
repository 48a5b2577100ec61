/* The papers' multi-morphology baseline (OGST 2018, Fig. 6): a batch of different trees solved by
 * the mono-morphology step kernel, one neuron per thread, each with its own parent array. Kept to
 * measure what the branch-level solver (multi_batch.h) gains; same interface. */
#ifndef HINES_NEURON_BATCH_H
#define HINES_NEURON_BATCH_H

#include "multi_batch.h"

struct neuron_batch;

/* Uses the fields of multi_batch_config that apply (no padding, task shape or channels: HH is
 * refused with HINES_BAD_INPUT). */
int neuron_batch_create(const struct multi_batch_config *config, struct neuron_batch **out,
                        struct hines_error *err);
int neuron_batch_run(struct neuron_batch *batch, int steps, double t0_ms);
/* As mono_batch_run_sampled, mono_batch_sync, mono_batch_probes and mono_batch_probes_read. */
int neuron_batch_run_sampled(struct neuron_batch *batch, int steps, double t0_ms, int sample_row);
void neuron_batch_sync(struct neuron_batch *batch);
int neuron_batch_probes(struct neuron_batch *batch, int n, const int *neuron,
                        const int *compartment, int rows, struct hines_error *err);
void neuron_batch_probes_read(struct neuron_batch *batch, int rows, double *values);
/* As mono_batch_spikes and mono_batch_spike_set (runtime/spike_set.h). */
struct spike_set;
int neuron_batch_spikes(struct neuron_batch *batch, double threshold_mV, struct hines_error *err);
struct spike_set *neuron_batch_spike_set(struct neuron_batch *batch);
void neuron_batch_voltage(struct neuron_batch *batch, int neuron, double *out_mV);
int neuron_batch_find_nonfinite(struct neuron_batch *batch, int *neuron, int *compartment);
int neuron_batch_tasks_per_step(const struct neuron_batch *batch);
void neuron_batch_destroy(struct neuron_batch *batch);

#endif
