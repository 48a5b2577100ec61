// CUDA side of the branch step (codelets/branch_step.h): three launches per part and step.
// Phase A and C: a thread a system of the part, in the level arrays' order (a warp walks copies of
// one branch side by side: their values are neighbours, their constants rows the same). Phase B:
// block b owns a few neurons, their systems' values in shared memory, a barrier after each level
// it has. Each launch reads what the one before wrote on the same stream, so no restrict on those
// pointers and a previous kernel's results read past L1 (__ldcg), as the level kernels do.
#include <cuda_runtime.h>

#define LEVEL_RESTRICT
static __host__ __device__ inline double branch_load_produced(const double *pointer) {
#ifdef __CUDA_ARCH__
  return __ldcg(pointer);
#else
  return *pointer;
#endif
}
#define LEVEL_LOAD_PRODUCED(pointer) branch_load_produced(pointer)

#include "branch_step.h"

// Threads a block of phases A and C.
#ifndef BRANCH_SWEEP_THREADS
#define BRANCH_SWEEP_THREADS 128
#endif
// Timing experiments only (results wrong otherwise): the phases run, 1 A, 2 B, 4 C.
#ifndef BRANCH_PHASES
#define BRANCH_PHASES 7
#endif

namespace {

__global__ void __launch_bounds__(BRANCH_SWEEP_THREADS)
    branch_grounded_kernel(const int *part_ints, const int *schedule, const double *constants,
                           level_step_arguments args, double *voltage, double *contribution,
                           int systems) {
  // the deepest levels (the part's last systems, the longest branches) in the first blocks
  const int g = (gridDim.x - 1 - blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= systems)
    return;
  const cell_schedule_view c = cell_schedule_describe(schedule);
  branch_grounded_at(part_ints, &c, g, constants, &args, voltage, contribution);
}

__global__ void __launch_bounds__(BRANCH_MAX_THREADS)
    branch_junctions_kernel(const int *part_ints, const int *schedule, const double *constants,
                            level_step_arguments args, double *voltage, double *contribution) {
  // the block's items' values (branch_step.h), then a copy of its links: every level's step
  // then reads shared memory only
  extern __shared__ double block_values[];
  const cell_schedule_view c = cell_schedule_describe(schedule);
  const branch_links global_links = branch_links_of(&c);
  const branch_block_values values = branch_block_values_at(block_values, global_links.most_items);
  const int block = blockIdx.x, thread = threadIdx.x;
  const int *first = c.first + (size_t)block * c.levels;
  const int base = first[0], items = first[c.levels] - base;
  int *parent = (int *)(block_values + BRANCH_VALUE_DOUBLES * (size_t)global_links.most_items);
  int *child_first = parent + global_links.most_items;
  int *child = child_first + global_links.most_items + 1;
  const int first_child = global_links.child_first[base];
  const int children = global_links.child_first[base + items] - first_child;
  for (int i = thread; i <= items; i += c.threads) {
    if (i < items)
      parent[i] = global_links.parent[base + i];
    child_first[i] = global_links.child_first[base + i] - first_child;
  }
  for (int n = thread; n < children; n += c.threads)
    child[n] = global_links.child[first_child + n];
  branch_links links = global_links;
  links.base = base, links.parent = parent, links.child_first = child_first, links.child = child;
  // the items flat (a thread one item where the block has no more than its threads): walking
  // level by level, thread 0 would load one item of every level, one chain of latencies after
  // another
  for (int i = base + thread; i < base + items; i += c.threads)
    branch_junction_load(part_ints, &c, &global_links, branch_item_level(&c, block, i), i, base,
                         constants, &args, contribution, &values);
  __syncthreads();
  for (int level = c.levels - 1; level >= 0; level--)
    if (first[level + 1] > first[level]) {
      for (int i = first[level] + thread; i < first[level + 1]; i += c.threads)
        branch_junction_backward(&links, i, base, &values);
      __syncthreads(); // the next level gathers these contributions
    }
  for (int level = 0; level < c.levels; level++)
    if (first[level + 1] > first[level]) {
      for (int i = first[level] + thread; i < first[level + 1]; i += c.threads)
        branch_junction_forward(&links, i, base, voltage, &values);
      __syncthreads(); // the next level reads these junction voltages
    }
  for (int i = base + thread; i < base + items; i += c.threads)
    branch_junction_store(&c, &links, branch_item_level(&c, block, i), i, base, contribution,
                          &values);
}

__global__ void __launch_bounds__(BRANCH_SWEEP_THREADS)
    branch_response_kernel(const int *part_ints, const int *schedule, const double *constants,
                           level_step_arguments args, double *voltage, const double *contribution,
                           int systems) {
  const int g = (gridDim.x - 1 - blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= systems)
    return;
  const cell_schedule_view c = cell_schedule_describe(schedule);
  branch_response_at(part_ints, &c, g, constants, &args, voltage, contribution);
}

} // namespace

extern "C" int branch_step_cuda(const int *part_ints, const int *schedule, const int *host_schedule,
                                const double *constants, const level_step_arguments *args,
                                double *voltage, double *contribution, void *stream) {
  const cell_schedule_view c = cell_schedule_describe(host_schedule);
  const branch_links links = branch_links_of(&c);
  if (c.blocks == 0 || links.systems == 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  const size_t bytes = branch_shared_bytes(&links);
  if (bytes > 48 * 1024) { // past the default: ask for it (the device refuses what it lacks)
    const cudaError_t status = cudaFuncSetAttribute(
        branch_junctions_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (status != cudaSuccess)
      return (int)status;
  }
  const int sweep_blocks = (links.systems + BRANCH_SWEEP_THREADS - 1) / BRANCH_SWEEP_THREADS;
  if (BRANCH_PHASES & 1)
    branch_grounded_kernel<<<sweep_blocks, BRANCH_SWEEP_THREADS, 0, s>>>(
        part_ints, schedule, constants, *args, voltage, contribution, links.systems);
  if (BRANCH_PHASES & 2)
    branch_junctions_kernel<<<c.blocks, c.threads, bytes, s>>>(part_ints, schedule, constants,
                                                               *args, voltage, contribution);
  if (BRANCH_PHASES & 4)
    branch_response_kernel<<<sweep_blocks, BRANCH_SWEEP_THREADS, 0, s>>>(
        part_ints, schedule, constants, *args, voltage, contribution, links.systems);
  return (int)cudaGetLastError();
}
