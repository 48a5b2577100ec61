// CUDA side of the on-chip cell step (codelets/cell_block.h, LEVEL_KERNEL_SHARED): one launch per
// part and step, block b holds its neurons' rows in shared memory. Phases, a barrier after each
// level or phase: rows built in parallel over elements (from GPU memory), backward sweeps level
// by level from the deepest, forward sweeps from the root, voltages written back. The sweeps
// read only shared memory and the constants, so their chain waits for no GPU-memory round trip.
// Plain loads throughout: the level kernels' __ldcg would be a global load of a shared address,
// and nothing here waits for another kernel (no griddepcontrol). No L2 hints either
// (HINES_PREFETCH_L2 is a prefetch of global memory; the sweeps' arrays are shared here).
#include <cuda_runtime.h>

#define LEVEL_RESTRICT
#define LEVEL_LOAD_PRODUCED(pointer) (*(pointer))
#define LEVEL_L2_AHEAD 0
#define LEVEL_CHANNELS_L2_AHEAD 0
#define LEVEL_TREE_L2_AHEAD 0

#include "cell_block.h"

namespace {

// The chain sweeps of one system with its rows already built, in shared memory: the arithmetic
// of level_backward_system (rows_assembled) and level_forward_system, operation for operation
// and in their order, so the same bits (gpu_run.sh check-subtrees: CPU and on-chip probe files
// identical), without their general bookkeeping (CP padding, rows built inside the sweep). Here
// a chain element waits mostly for its off-diagonal, read from the constants in GPU memory (an
// L2 round trip: the shared-memory carveout leaves little L1), so these sweeps keep kOffAhead
// of them in flight where the general sweep keeps 4. With them, the batched moves and rows
// below, the on-chip kernel took 3-19 % less time a step (H100, BENCHMARKS.md, "Where a small
// batch's step goes").
constexpr int kOffAhead = 8; // off-diagonals (GPU memory, L2 latency) loaded this far ahead

__device__ inline void chain_backward(const level_block_view &v, int s, const double *constants,
                                      double *voltage, double *factor, double *contribution,
                                      const double *child_contribution) {
  const int size = v.size[s];
  const double *off_row = constants + (size_t)v.first_row[s] * CONST_STRIDE + CONST_OFF_DIAGONAL;
  // off[k] holds the off-diagonal of element top - k of the current window of kOffAhead
  double off_now[kOffAhead], off_later[kOffAhead];
#pragma unroll
  for (int k = 0; k < kOffAhead; k++)
    off_now[k] = size - 1 - k >= 0 ? off_row[(size_t)(size - 1 - k) * CONST_STRIDE] : 0.0;
  int e = v.row_offset[size - 1] + s;
  double dj = factor[e], rj = voltage[e];
  for (int c = v.child_first[s]; c < v.child_first[s + 1]; c++) {
    dj -= child_contribution[2 * v.child[c]];
    rj -= child_contribution[2 * v.child[c] + 1];
  }
  double previous_factor = 0.0, previous_rhs = 0.0, previous_off_diagonal = 0.0, scaled_rhs;
  for (int window = size - 1; window >= 0; window -= kOffAhead) {
#pragma unroll
    for (int k = 0; k < kOffAhead; k++)
      off_later[k] = window - kOffAhead - k >= 0
                         ? off_row[(size_t)(window - kOffAhead - k) * CONST_STRIDE]
                         : 0.0;
#pragma unroll
    for (int k = 0; k < kOffAhead; k++) {
      const int j = window - k;
      if (j >= 0) {
        int e_next = 0;
        double d_next = 0.0, r_next = 0.0;
        if (j > 0) {
          e_next = v.row_offset[j - 1] + s;
          d_next = factor[e_next];
          r_next = voltage[e_next];
        }
        const double off = off_now[k];
        level_pivot(off, rj, dj, &previous_factor, &scaled_rhs);
        factor[e] = previous_factor;
        voltage[e] = scaled_rhs;
        previous_rhs = rj;
        previous_off_diagonal = off;
        if (j > 0) {
          e = e_next;
          dj = fma(-previous_factor, previous_off_diagonal, d_next);
          rj = fma(-previous_factor, previous_rhs, r_next);
        }
      }
    }
#pragma unroll
    for (int k = 0; k < kOffAhead; k++)
      off_now[k] = off_later[k];
  }
  contribution[2 * s] = previous_factor * previous_off_diagonal;
  contribution[2 * s + 1] = previous_factor * previous_rhs;
}

__device__ inline void chain_forward(const level_block_view &v, int s, double *voltage,
                                     const double *factor, const double *parent_voltage) {
  const int size = v.size[s], junction = v.junction[s];
  double x = junction >= 0 ? parent_voltage[junction] : 0.0;
  int e = v.row_offset[0] + s;
  double scaled_rhs = voltage[e], factor_j = factor[e];
  for (int j = 0; j < size; j++) {
    int e_next = 0;
    double scaled_next = 0.0, factor_next = 0.0;
    if (j + 1 < size) {
      e_next = v.row_offset[j + 1] + s;
      scaled_next = voltage[e_next];
      factor_next = factor[e_next];
    }
    x = fma(-factor_j, x, scaled_rhs);
    voltage[e] = x;
    e = e_next, scaled_rhs = scaled_next, factor_j = factor_next;
  }
}

// The rows of cell_shared_rows (store = 0) after the block's voltages are in shared memory, with
// each thread's elements taken kRowBatch at a time: their positions found first (the search is
// cell_shared_rows' own), then the constants of all of them loaded, then each row built by
// cell_shared_element_row as cell_shared_rows builds it (so the same bits), rather than one
// element's L2 round trip for its constants after another.
constexpr int kRowBatch = 4;

__device__ inline void shared_rows(const cell_shared_view *b, int levels, int thread, int threads,
                                   const double *constants, const level_step_arguments *args,
                                   double *gates, double *local_voltage, double *local_factor) {
  int level = -1, j = 0;
  level_block_view local;
  for (int i0 = thread; i0 < b->elements; i0 += kRowBatch * threads) {
    int at_level[kRowBatch], at_row[kRowBatch], at_system[kRowBatch];
#pragma unroll
    for (int k = 0; k < kRowBatch; k++) {
      const int i = i0 + k * threads;
      at_level[k] = -1;
      if (i < b->elements) {
        while (level < levels - 1 && b->element_offset[level + 1] <= i) {
          level++;
          local = level_block_describe(b->base + b->ints_offset[level]);
          j = 0;
        }
        const int in_level = i - b->element_offset[level];
        while (local.row_offset[j + 1] <= in_level)
          j++;
        at_level[k] = level, at_row[k] = j, at_system[k] = in_level - local.row_offset[j];
      }
    }
    double diagonal[kRowBatch], c_over_dt[kRowBatch], leak_current[kRowBatch];
#pragma unroll
    for (int k = 0; k < kRowBatch; k++)
      if (at_level[k] >= 0) {
        const level_block_view v = level_block_describe(b->base + b->ints_offset[at_level[k]]);
        const int s = at_system[k];
        const double *row =
            constants + (size_t)level_row(at_row[k], v.size[s], v.first_row[s]) * CONST_STRIDE;
        diagonal[k] = row[CONST_DIAGONAL_BASE];
        c_over_dt[k] = row[CONST_C_OVER_DT];
        leak_current[k] = row[CONST_LEAK_CURRENT];
      }
#pragma unroll
    for (int k = 0; k < kRowBatch; k++)
      if (at_level[k] >= 0) {
        level_block_view v = level_block_describe(b->base + b->ints_offset[at_level[k]]);
        v.elements = b->chunk_elements[at_level[k]]; /* the gates' stride */
        cell_shared_element_row(b, &v, at_level[k], i0 + k * threads, at_system[k], at_row[k],
                                constants, args, gates, diagonal[k], c_over_dt[k], leak_current[k],
                                local_voltage, local_factor);
      }
  }
}

// The moves between the chunk's voltages and the block's (what cell_shared_rows does on a CPU),
// kMoveBatch elements a thread at a time: each costs a GPU-memory round trip for the element's
// place (global_element) and one for its voltage. With four in flight the moves in and out took
// about 21 and 17 us of a CA1 block's 150 (H100, CA1 x 500, timed phase by phase); in, with
// sixteen, 13 us. The description's copy goes the same way.
constexpr int kMoveBatch = 16;

__device__ inline void move_voltages(const cell_shared_view *b, int thread, int threads,
                                     double *voltage, double *local_voltage, bool out) {
  for (int i0 = thread; i0 < b->elements; i0 += kMoveBatch * threads) {
    int e[kMoveBatch];
#pragma unroll
    for (int k = 0; k < kMoveBatch; k++)
      e[k] = i0 + k * threads < b->elements ? b->global_element[i0 + k * threads] : 0;
    if (out) {
#pragma unroll
      for (int k = 0; k < kMoveBatch; k++)
        if (i0 + k * threads < b->elements)
          voltage[e[k]] = local_voltage[i0 + k * threads];
    } else {
      double value[kMoveBatch];
#pragma unroll
      for (int k = 0; k < kMoveBatch; k++)
        value[k] = i0 + k * threads < b->elements ? voltage[e[k]] : 0.0;
#pragma unroll
      for (int k = 0; k < kMoveBatch; k++)
        if (i0 + k * threads < b->elements)
          local_voltage[i0 + k * threads] = value[k];
    }
  }
}

// cell_shared_sweep with the chain sweeps above for chain systems (subtrees: the general ones).
__device__ inline void shared_sweep(const cell_shared_view *b, int level, int thread, int threads,
                                    const double *constants, const level_step_arguments *args,
                                    double *local_voltage, double *local_factor,
                                    double *local_contribution, int forward) {
  const level_block_view local = level_block_describe(b->base + b->ints_offset[level]);
  const size_t l0 = (size_t)b->element_offset[level];
  double *contribution = local_contribution + 2 * (size_t)b->system_offset[level];
  for (int s = thread; s < local.systems; s += threads) {
    const bool chain = !local.padded && !(local.trees && local.tree[s] >= 0) && local.size[s] > 0;
    if (forward && chain)
      chain_forward(local, s, local_voltage + l0, local_factor + l0, local_voltage);
    else if (forward)
      level_forward_system(&local, s, local_voltage + l0, local_factor + l0, local_voltage);
    else if (chain)
      chain_backward(local, s, constants, local_voltage + l0, local_factor + l0, contribution,
                     local_contribution);
    else
      level_backward_system(&local, s, constants, args, local_voltage + l0, local_factor + l0,
                            contribution, local_contribution, NULL, 1);
  }
}

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
  // kMoveBatch loads in flight a thread: the copy is a chain of memory latencies otherwise
  for (int i = thread; i < description_ints; i += kMoveBatch * threads) {
    int value[kMoveBatch];
#pragma unroll
    for (int k = 0; k < kMoveBatch; k++)
      value[k] = i + k * threads < description_ints ? description[i + k * threads] : 0;
#pragma unroll
    for (int k = 0; k < kMoveBatch; k++)
      if (i + k * threads < description_ints)
        copy[i + k * threads] = value[k];
  }
  __syncthreads();
  const cell_shared_view b = cell_shared_block(&c, block, copy);
  double *local_voltage = on_chip, *local_factor = on_chip + b.elements;
  double *local_contribution = on_chip + 2 * (size_t)b.elements;
  double *block_gates = kChannels ? gates : nullptr;
  move_voltages(&b, thread, threads, voltage, local_voltage, false);
  shared_rows(&b, c.levels, thread, threads, constants, &args, block_gates, local_voltage,
              local_factor);
  __syncthreads();
  for (int level = c.levels - 1; level >= 0; level--)
    if (b.system_offset[level + 1] > b.system_offset[level]) {
      shared_sweep(&b, level, thread, threads, constants, &args, local_voltage, local_factor,
                   local_contribution, 0);
      __syncthreads(); // the next level gathers these contributions
    }
  for (int level = 0; level < c.levels; level++)
    if (b.system_offset[level + 1] > b.system_offset[level]) {
      shared_sweep(&b, level, thread, threads, constants, &args, local_voltage, local_factor,
                   local_contribution, 1);
      __syncthreads(); // the next level reads these junction voltages
    }
  move_voltages(&b, thread, threads, voltage, local_voltage, true);
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
