// CUDA side of the on-chip cell step (codelets/cell_block.h, LEVEL_KERNEL_SHARED): one launch per
// part and step, block b holds its neurons' rows in shared memory. Phases, a barrier after each
// level or phase: rows built in parallel over elements (from GPU memory), backward sweeps level
// by level from the deepest, forward sweeps from the root, voltages written back. The sweeps
// read only shared memory and the constants, so their chain waits for no GPU-memory round trip.
// Plain loads throughout: the level kernels' __ldcg would be a global load of a shared address,
// and nothing here waits for another kernel (no griddepcontrol).
#include <cuda_runtime.h>

#define LEVEL_RESTRICT
#define LEVEL_LOAD_PRODUCED(pointer) (*(pointer))

#include "cell_block.h"

namespace {

template <bool kChannels>
__global__ void __launch_bounds__(CELL_MAX_THREADS)
    cell_shared_kernel(const int *schedule, const double *constants, level_step_arguments args,
                       double *voltage, double *gates) {
  extern __shared__ double on_chip[];
  const cell_schedule_view c = cell_schedule_describe(schedule);
  const int block = blockIdx.x, thread = threadIdx.x, threads = blockDim.x;
  int description_ints;
  const int *description = cell_shared_description(&c, block, &description_ints);
  const cell_shared_view in_schedule = cell_shared_block(&c, block, nullptr);
  int *copy = (int *)(on_chip + cell_shared_doubles(&in_schedule));
  // four loads in flight a thread: the copy is a chain of memory latencies otherwise
  for (int i = thread; i < description_ints; i += 4 * threads) {
    int value[4];
#pragma unroll
    for (int k = 0; k < 4; k++)
      value[k] = i + k * threads < description_ints ? description[i + k * threads] : 0;
#pragma unroll
    for (int k = 0; k < 4; k++)
      if (i + k * threads < description_ints)
        copy[i + k * threads] = value[k];
  }
  __syncthreads();
  const cell_shared_view b = cell_shared_block(&c, block, copy);
  double *local_voltage = on_chip, *local_factor = on_chip + b.elements;
  double *local_contribution = on_chip + 2 * (size_t)b.elements;
  double *block_gates = kChannels ? gates : nullptr;
  cell_shared_rows(&b, c.levels, thread, threads, constants, &args, voltage, block_gates,
                   local_voltage, local_factor, 0);
  __syncthreads();
  for (int level = c.levels - 1; level >= 0; level--)
    if (b.system_offset[level + 1] > b.system_offset[level]) {
      cell_shared_sweep(&b, level, thread, threads, constants, &args, local_voltage, local_factor,
                        local_contribution, 0);
      __syncthreads(); // the next level gathers these contributions
    }
  for (int level = 0; level < c.levels; level++)
    if (b.system_offset[level + 1] > b.system_offset[level]) {
      cell_shared_sweep(&b, level, thread, threads, constants, &args, local_voltage, local_factor,
                        local_contribution, 1);
      __syncthreads(); // the next level reads these junction voltages
    }
  cell_shared_rows(&b, c.levels, thread, threads, constants, &args, voltage, block_gates,
                   local_voltage, local_factor, 1);
}

template <bool kChannels>
int launch(const int *part_ints, const int *schedule, const int *host_schedule,
           const double *constants, const level_step_arguments *args, double *voltage,
           double *gates, cudaStream_t stream) {
  const cell_schedule_view c = cell_schedule_describe(host_schedule);
  const int *part = cell_shared_part(&c);
  const int bytes = part[SHARED_BYTES];
  // (opting in is per kernel and device, and cheap: done at every launch, whatever the device)
  cudaError_t status = cudaFuncSetAttribute(cell_shared_kernel<kChannels>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (status == cudaSuccess) // as much of L1 as shared memory as the driver allows
    status = cudaFuncSetAttribute(cell_shared_kernel<kChannels>,
                                  cudaFuncAttributePreferredSharedMemoryCarveout,
                                  cudaSharedmemCarveoutMaxShared);
  if (status != cudaSuccess)
    return (int)status;
  (void)part_ints; // (each block's description has what it needs of the chunk's)
  cell_shared_kernel<kChannels>
      <<<c.blocks, c.threads, bytes, stream>>>(schedule, constants, *args, voltage, gates);
  return (int)cudaGetLastError();
}

} // namespace

extern "C" int cell_shared_step_cuda(const int *part_ints, const int *schedule,
                                     const int *host_schedule, const double *constants,
                                     const level_step_arguments *args, double *voltage,
                                     double *gates, void *stream) {
  if (host_schedule[CELL_BLOCKS] == 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  return gates
             ? launch<true>(part_ints, schedule, host_schedule, constants, args, voltage, gates, s)
             : launch<false>(part_ints, schedule, host_schedule, constants, args, voltage, nullptr,
                             s);
}
