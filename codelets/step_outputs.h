/* What a step task leaves beside the voltages once its step is done, wherever it ran: the probe
 * samples of its row (probe_samples.h) and the spike check of its somata (spike_record.h), each
 * only when the task has the buffer. One place for every step codelet, CPU and CUDA. */
#ifndef HINES_STEP_OUTPUTS_H
#define HINES_STEP_OUTPUTS_H

#include <stddef.h>

#include "probe_samples.h"
#include "spike_record.h"

static inline void step_outputs_cpu(const double *voltage, size_t ld, double *samples,
                                    int sample_row, double *spikes, int spike_step, double dt_ms) {
  if (samples)
    probe_samples_gather_cpu(voltage, ld, samples, sample_row);
  if (spikes)
    spike_record_check_cpu(voltage, ld, spikes, spike_step, dt_ms);
}

/* The same queued on a CUDA stream (n_spiking: the record's neurons); 0 or a cudaError_t. */
static inline int step_outputs_cuda(const double *voltage, size_t ld, double *samples,
                                    int sample_row, double *spikes, int n_spiking, int spike_step,
                                    double dt_ms, void *stream) {
  int status = 0;
  if (samples)
    status = probe_samples_gather_cuda(voltage, ld, samples, sample_row, stream);
  if (!status && spikes)
    status = spike_record_check_cuda(voltage, ld, spikes, n_spiking, spike_step, dt_ms, stream);
  return status;
}

#endif
