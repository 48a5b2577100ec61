// CUDA side of the cell-block step (codelets/cell_block.h): one launch per part and step, block b
// sweeps the levels of its neurons, a barrier between levels. A barrier orders the global writes
// of the block's threads before it with their loads after it, and only the block's own threads
// write what it reads during the step, so no grid-level wait (no LEVEL_AFTER_FIRST_LOADS).
// Unlike a level kernel, this one reads what it wrote earlier in the same launch (children's
// contributions, parents' voltages, its own factors), so none of those may come through the
// non-coherent read-only cache: no restrict on the sweeps' pointers (the compiler would be free
// to use that cache for a const restrict array), and the other threads' results read past L1
// (__ldcg, as the level kernels read a previous kernel's). The arithmetic is the level kernels'.
#include <cuda_runtime.h>

#define LEVEL_RESTRICT
static __host__ __device__ inline double cell_load_produced(const double *pointer) {
#ifdef __CUDA_ARCH__
  return __ldcg(pointer);
#else
  return *pointer;
#endif
}
#define LEVEL_LOAD_PRODUCED(pointer) cell_load_produced(pointer)

#include "cell_block.h"
#include "level_warps_cuda.cuh"

namespace {

using warp_sweeps::backward_warp_system;
using warp_sweeps::forward_warp_system;
using warp_sweeps::kWarp;

// Where the block's systems of a level (ascending: longest first) stop being swept by a warp
// each: those below the level's warp_systems (level_layout.h, "Warp sweeps"; a whole warp a
// system here, whatever --warp-lanes says) go to the block's warps, the rest to its threads.
__device__ inline int cell_warp_split(const cell_schedule_view &c, const level_block_view &v,
                                      int at) {
  int split = c.first[at];
  while (split < c.first[at + 1] && c.system[split] < v.warp_systems)
    split++;
  return split;
}

// Two instances, as the level kernels: without channels the Hodgkin-Huxley code (and its
// registers) vanishes. Per level: the warp-swept systems a warp each, then the others a thread
// each, then a barrier.
template <bool kChannels>
__global__ void __launch_bounds__(CELL_MAX_THREADS)
    cell_step_kernel(const int *part_ints, const int *schedule, const double *constants,
                     level_step_arguments args, double *voltage, double *factor,
                     double *contribution, double *gates) {
  const cell_schedule_view c = cell_schedule_describe(schedule);
  const int block = blockIdx.x, thread = threadIdx.x;
  const int warp = thread / kWarp, warps = c.threads / kWarp;
  for (int level = c.levels - 1; level >= 0; level--)
    if (cell_level_used(&c, block, level)) {
      const int at = block * c.levels + level;
      const level_block_view v = level_block_describe(part_ints + c.ints_offset[level]);
      const size_t e = (size_t)c.element_offset[level];
      const int split = cell_warp_split(c, v, at);
      for (int i = c.first[at] + warp; i < split; i += warps) // warp-uniform
        backward_warp_system<kWarp>(v, c.system[i], constants, args, voltage + e, factor + e,
                                    contribution + 2 * (size_t)c.system_offset[level], contribution,
                                    kChannels ? gates + (size_t)args.channels.n_gates * e
                                              : nullptr);
      for (int i = split + thread; i < c.first[at + 1]; i += c.threads)
        level_backward_system(&v, c.system[i], constants, &args, voltage + e, factor + e,
                              contribution + 2 * (size_t)c.system_offset[level], contribution,
                              kChannels ? gates + (size_t)args.channels.n_gates * e : nullptr, 0);
      __syncthreads(); // the next level gathers these contributions
    }
  for (int level = 0; level < c.levels; level++)
    if (cell_level_used(&c, block, level)) {
      const int at = block * c.levels + level;
      const level_block_view v = level_block_describe(part_ints + c.ints_offset[level]);
      const size_t e = (size_t)c.element_offset[level];
      const int split = cell_warp_split(c, v, at);
      for (int i = c.first[at] + warp; i < split; i += warps)
        forward_warp_system<kWarp>(v, c.system[i], voltage + e, factor + e, voltage);
      for (int i = split + thread; i < c.first[at + 1]; i += c.threads)
        level_forward_system(&v, c.system[i], voltage + e, factor + e, voltage);
      __syncthreads(); // the next level reads these junction voltages
    }
}

} // namespace

extern "C" int cell_step_cuda(const int *part_ints, const int *schedule, const int *host_schedule,
                              const double *constants, const level_step_arguments *args,
                              double *voltage, double *factor, double *contribution, double *gates,
                              void *stream) {
  const int blocks = host_schedule[CELL_BLOCKS], threads = host_schedule[CELL_THREADS];
  if (blocks == 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  if (gates)
    cell_step_kernel<true><<<blocks, threads, 0, s>>>(part_ints, schedule, constants, *args,
                                                      voltage, factor, contribution, gates);
  else
    cell_step_kernel<false><<<blocks, threads, 0, s>>>(part_ints, schedule, constants, *args,
                                                       voltage, factor, contribution, nullptr);
  return (int)cudaGetLastError();
}
