// CUDA side of the level solver: one thread per system (branch) of a level block. Element j of
// consecutive systems is contiguous, so a warp's accesses coalesce; with NCP a thread stops at its
// own system's size, with CP every thread runs to the longest and computes on identity padding.
#include <cuda_runtime.h>

#include "hines_level_kernels.h"

namespace {

constexpr int kThreads = 128;

// GroupSize 8 keeps eight elements' loads in flight per thread (168 registers): the win when a
// level has few, long branches. GroupSize 1 (79 registers) lets more threads reside: the win
// when a level has more systems than the GPU can hold at 168 registers each.
template <int GroupSize>
__global__ void backward_kernel(const int *block_ints, const double *constants,
                                level_step_arguments args, double *voltage, double *pivot,
                                double *contribution, const double *child_contribution,
                                double *gates) {
  const level_block_view v = level_block_describe(block_ints);
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < v.systems)
    level_backward_system(&v, s, constants, &args, voltage, pivot, contribution, child_contribution,
                          gates, GroupSize);
}

template <int GroupSize>
__global__ void forward_kernel(const int *block_ints, const double *constants, int rows,
                               double *voltage, const double *pivot, const double *parent_voltage) {
  const level_block_view v = level_block_describe(block_ints);
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < v.systems)
    level_forward_system(&v, s, constants, rows, voltage, pivot, parent_voltage, GroupSize);
}

// Threads an H200-class GPU holds at ~168 registers each (132 SMs x 64 K registers / 168).
constexpr int kPrefetchThreadLimit = 50000;

} // namespace

extern "C" int level_backward_cuda(const int *block_ints, int systems, const double *constants,
                                   const level_step_arguments *args, double *voltage, double *pivot,
                                   double *contribution, const double *child_contribution,
                                   double *gates, void *stream) {
  if (systems == 0)
    return 0;
  const int blocks = (systems + kThreads - 1) / kThreads;
  if (systems <= kPrefetchThreadLimit)
    backward_kernel<LEVEL_PREFETCH><<<blocks, kThreads, 0, (cudaStream_t)stream>>>(
        block_ints, constants, *args, voltage, pivot, contribution, child_contribution, gates);
  else
    backward_kernel<1><<<blocks, kThreads, 0, (cudaStream_t)stream>>>(
        block_ints, constants, *args, voltage, pivot, contribution, child_contribution, gates);
  return (int)cudaGetLastError();
}

extern "C" int level_forward_cuda(const int *block_ints, int systems, const double *constants,
                                  int rows, double *voltage, const double *pivot,
                                  const double *parent_voltage, void *stream) {
  if (systems == 0)
    return 0;
  const int blocks = (systems + kThreads - 1) / kThreads;
  if (systems <= kPrefetchThreadLimit)
    forward_kernel<LEVEL_PREFETCH><<<blocks, kThreads, 0, (cudaStream_t)stream>>>(
        block_ints, constants, rows, voltage, pivot, parent_voltage);
  else
    forward_kernel<1><<<blocks, kThreads, 0, (cudaStream_t)stream>>>(
        block_ints, constants, rows, voltage, pivot, parent_voltage);
  return (int)cudaGetLastError();
}
