/* Spikes detected where the data is: a step task whose chunk carries a spike record compares,
 * after its step, the soma voltage of each of its neurons with the one it kept from the step
 * before, and on an upward crossing of the threshold (previous < threshold <= now) stores the
 * crossing time in that neuron's ring of spike times. One read and two writes of a few bytes
 * per neuron and step, on whichever worker the task runs; the host reads the record back only
 * at points where it waits anyway (runtime/spike_set.h).
 *
 * The crossing time is interpolated linearly between the two samples, as
 * scripts/compare_neuron.py does for NEURON's traces:
 *   t = t_before + (threshold - v_before) / (v_now - v_before) * dt,  t_before = (step - 1) * dt
 * with `step` the number of the step just computed (1 for the first). CPU and GPU evaluate the
 * same expression in the same order, built without contraction, so both give the same bits.
 *
 * The record is one vector of doubles: [count n, threshold, x_0 .. x_{n-1}, y_0 .. y_{n-1},
 * previous voltage of each neuron (n), spikes of each neuron so far (n), then each neuron's ring
 * of SPIKE_RECORD_CAPACITY spike times]. Spike s of neuron j sits at ring slot s mod capacity.
 * Neuron j's soma is source[y_j * ld + x_j] of the task's voltage buffer (ld: the matrix's leading
 * dimension as the task sees it, 0 for a vector). An upward crossing needs a step below the
 * threshold between two crossings, so a neuron crosses at most once in two steps: a reader that
 * comes back at least every SPIKE_RECORD_READ_EVERY steps never loses a time. */
#ifndef HINES_SPIKE_RECORD_H
#define HINES_SPIKE_RECORD_H

#include <stddef.h>

#include "host_device.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPIKE_RECORD_CAPACITY 32
#define SPIKE_RECORD_READ_EVERY (2 * SPIKE_RECORD_CAPACITY)
#define SPIKE_RECORD_HEADER 2

/* Doubles of a record of n neurons. */
static inline size_t spike_record_size(int n) {
  return SPIKE_RECORD_HEADER + (size_t)n * (4 + SPIKE_RECORD_CAPACITY);
}
/* The neurons of a record of `size` doubles (from the vector's length, on the host). */
static inline int spike_record_neurons(size_t size) {
  return (int)((size - SPIKE_RECORD_HEADER) / (4 + SPIKE_RECORD_CAPACITY));
}
static inline HINES_HOST_DEVICE double *spike_record_previous(double *record, int n) {
  return record + SPIKE_RECORD_HEADER + 2 * (size_t)n;
}
static inline HINES_HOST_DEVICE double *spike_record_counts(double *record, int n) {
  return record + SPIKE_RECORD_HEADER + 3 * (size_t)n;
}
static inline HINES_HOST_DEVICE double *spike_record_ring(double *record, int n, int j) {
  return record + SPIKE_RECORD_HEADER + 4 * (size_t)n + (size_t)j * SPIKE_RECORD_CAPACITY;
}

/* Writes a record of n neurons whose somata are at (x_j, y_j), all at initial_mV, no spikes. */
static inline void spike_record_init(double *record, int n, double threshold_mV, double initial_mV,
                                     const long long *x, const long long *y) {
  record[0] = n;
  record[1] = threshold_mV;
  for (int j = 0; j < n; j++) {
    record[SPIKE_RECORD_HEADER + j] = (double)x[j];
    record[SPIKE_RECORD_HEADER + n + j] = (double)y[j];
    spike_record_previous(record, n)[j] = initial_mV;
    spike_record_counts(record, n)[j] = 0;
  }
  for (size_t i = 0; i < (size_t)n * SPIKE_RECORD_CAPACITY; i++)
    spike_record_ring(record, n, 0)[i] = 0;
}

/* Neuron j's check after step `step` of length dt_ms (the CPU loop and the GPU thread body). */
static inline HINES_HOST_DEVICE void spike_record_check(const double *source, size_t ld,
                                                        double *record, int n, int j, int step,
                                                        double dt_ms) {
  const double threshold = record[1];
  const size_t x = (size_t)record[SPIKE_RECORD_HEADER + j];
  const size_t y = (size_t)record[SPIKE_RECORD_HEADER + n + j];
  const double now = source[y * ld + x];
  double *previous = spike_record_previous(record, n) + j;
  const double before = *previous;
  if (before < threshold && threshold <= now) {
    double *count = spike_record_counts(record, n) + j;
    const long long s = (long long)*count;
    const double t_before = (double)(step - 1) * dt_ms;
    spike_record_ring(record, n, j)[s % SPIKE_RECORD_CAPACITY] =
        t_before + (threshold - before) / (now - before) * dt_ms;
    *count = (double)(s + 1);
  }
  *previous = now;
}

/* Every neuron of the record, on the CPU. */
static inline void spike_record_check_cpu(const double *source, size_t ld, double *record, int step,
                                          double dt_ms) {
  const int n = (int)record[0];
  for (int j = 0; j < n; j++)
    spike_record_check(source, ld, record, n, j, step, dt_ms);
}

/* The same on the GPU, one thread per neuron, queued on `stream` (spike_record_cuda.cu); n is
 * the record's neuron count (spike_record_neurons of its length). 0 or a cudaError_t. */
int spike_record_check_cuda(const double *source, size_t ld, double *record, int n, int step,
                            double dt_ms, void *stream);

#ifdef __cplusplus
}
#endif

#endif
