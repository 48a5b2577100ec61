// CUDA side of the level solver: one thread per system (branch) of a level block. Element j of
// consecutive systems is contiguous, so a warp's accesses coalesce; with NCP a thread stops at its
// own system's size, with CP every thread runs to the longest and computes on identity padding.
#include <cuda_runtime.h>

#include "hines_level_kernels.h"

namespace {

constexpr int kThreads = 128;

__global__ void backward_kernel(const int *block_ints, const double *constants,
                                level_step_arguments args, double *voltage, double *pivot,
                                double *contribution, const double *child_contribution,
                                double *gates) {
  const level_block_view v = level_block_describe(block_ints);
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < v.systems)
    level_backward_system(&v, s, constants, &args, voltage, pivot, contribution, child_contribution,
                          gates);
}

__global__ void forward_kernel(const int *block_ints, const double *constants, int rows,
                               double *voltage, const double *pivot, const double *parent_voltage) {
  const level_block_view v = level_block_describe(block_ints);
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < v.systems)
    level_forward_system(&v, s, constants, rows, voltage, pivot, parent_voltage);
}

} // namespace

extern "C" int level_backward_cuda(const int *block_ints, int systems, const double *constants,
                                   const level_step_arguments *args, double *voltage, double *pivot,
                                   double *contribution, const double *child_contribution,
                                   double *gates, void *stream) {
  if (systems == 0)
    return 0;
  backward_kernel<<<(systems + kThreads - 1) / kThreads, kThreads, 0, (cudaStream_t)stream>>>(
      block_ints, constants, *args, voltage, pivot, contribution, child_contribution, gates);
  return (int)cudaGetLastError();
}

extern "C" int level_forward_cuda(const int *block_ints, int systems, const double *constants,
                                  int rows, double *voltage, const double *pivot,
                                  const double *parent_voltage, void *stream) {
  if (systems == 0)
    return 0;
  forward_kernel<<<(systems + kThreads - 1) / kThreads, kThreads, 0, (cudaStream_t)stream>>>(
      block_ints, constants, rows, voltage, pivot, parent_voltage);
  return (int)cudaGetLastError();
}
