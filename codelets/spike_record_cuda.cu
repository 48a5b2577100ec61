// The GPU half of spike_record.h: one thread per neuron of the record.
#include <cuda_runtime.h>

#include "spike_record.h"

namespace {
__global__ void check_kernel(const double *source, size_t ld, double *record, int n, int step,
                             double dt_ms) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n)
    spike_record_check(source, ld, record, n, j, step, dt_ms);
}
} // namespace

extern "C" int spike_record_check_cuda(const double *source, size_t ld, double *record, int n,
                                       int step, double dt_ms, void *stream) {
  if (n <= 0)
    return 0;
  const int threads = 128;
  check_kernel<<<(n + threads - 1) / threads, threads, 0, (cudaStream_t)stream>>>(
      source, ld, record, n, step, dt_ms);
  return (int)cudaGetLastError();
}
