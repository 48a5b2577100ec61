// The GPU half of probe_samples.h: one block, one thread per probe.
#include <cuda_runtime.h>

#include "probe_samples.h"

namespace {
__global__ void gather_kernel(const double *source, size_t ld, double *samples, int row) {
  const int count = (int)samples[0], j = threadIdx.x;
  if (j >= count)
    return;
  const size_t x = (size_t)samples[1 + j], y = (size_t)samples[1 + count + j];
  samples[1 + 2 * (size_t)count + (size_t)row * count + j] = source[y * ld + x];
}
} // namespace

extern "C" int probe_samples_gather_cuda(const double *source, size_t ld, double *samples, int row,
                                         void *stream) {
  gather_kernel<<<1, PROBE_SAMPLES_MAX, 0, (cudaStream_t)stream>>>(source, ld, samples, row);
  return (int)cudaGetLastError();
}
