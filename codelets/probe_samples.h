/* Probe samples taken where the data is: a step task that ends on a sampling time copies the
 * probed compartments of its chunk into a small buffer of its own (on the GPU when the task runs
 * there), so a probe moves one value per sample and only when the run reads the buffer back,
 * never a chunk of voltages.
 *
 * The buffer is doubles: [count, x_0 .. x_{count-1}, y_0 .. y_{count-1}], then one row of
 * count values per sample. Probe j reads source[y_j * ld + x_j] of the task's voltage buffer
 * (ld = the matrix's leading dimension as the task sees it, 0 for a vector: element x_j).
 * Positions are stored as doubles (exact below 2^53) so the buffer is one registered vector. */
#ifndef HINES_PROBE_SAMPLES_H
#define HINES_PROBE_SAMPLES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Probes one buffer (one task) holds at most: the GPU gather is one block of this many threads. */
#define PROBE_SAMPLES_MAX 64

static inline size_t probe_samples_header(int count) {
  return 1 + 2 * (size_t)count;
}
static inline size_t probe_samples_size(int count, int rows) {
  return probe_samples_header(count) + (size_t)rows * (size_t)count;
}
static inline double *probe_samples_row(double *samples, int row) {
  int count = (int)samples[0];
  return samples + probe_samples_header(count) + (size_t)row * (size_t)count;
}

/* Writes the header of a buffer of `count` probes at positions (x_j, y_j). */
static inline void probe_samples_init(double *samples, int count, const long long *x,
                                      const long long *y) {
  samples[0] = count;
  for (int j = 0; j < count; j++) {
    samples[1 + j] = (double)x[j];
    samples[1 + count + j] = (double)y[j];
  }
}

/* Copies the probed values of `source` into sample row `row` (CPU). */
static inline void probe_samples_gather_cpu(const double *source, size_t ld, double *samples,
                                            int row) {
  const int count = (int)samples[0];
  double *out = probe_samples_row(samples, row);
  for (int j = 0; j < count; j++)
    out[j] = source[(size_t)samples[1 + count + j] * ld + (size_t)samples[1 + j]];
}

/* The same on the GPU, queued on `stream` (probe_samples_cuda.cu); 0 or a cudaError_t. */
int probe_samples_gather_cuda(const double *source, size_t ld, double *samples, int row,
                              void *stream);

#ifdef __cplusplus
}
#endif

#endif
