// CUDA side of the level solver: one thread per system (branch) of a level block. Element j of
// consecutive systems is contiguous, so a warp's accesses coalesce; with NCP a thread stops at its
// own system's size, with CP every thread runs to the longest and computes on identity padding.
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

// Programmatic dependent launch (compute capability 9.0): wait until the previous kernel of the
// stream has finished and its writes are visible, then let the next kernel start. Without a
// pending previous kernel (plain launches, older GPUs) the wait returns at once.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define LEVEL_AFTER_FIRST_LOADS()                                                                  \
  asm volatile("griddepcontrol.wait;\n\tgriddepcontrol.launch_dependents;" ::: "memory")
#else
#define LEVEL_AFTER_FIRST_LOADS() ((void)0)
#endif
// Past L1 (cached in L2 only): lines of these arrays may have entered the SM's L1 before the wait.
static __host__ __device__ inline double level_load_produced(const double *pointer) {
#ifdef __CUDA_ARCH__
  return __ldcg(pointer);
#else
  return *pointer;
#endif
}
#define LEVEL_LOAD_PRODUCED(pointer) level_load_produced(pointer)

#include "hines_level_kernels.h"
#include "level_warps_cuda.cuh"

namespace {

using warp_sweeps::backward_warp_system;
using warp_sweeps::forward_warp_system;
using warp_sweeps::kWarp;

// Threads a block (64 and 256 measured within 1 % of 128 on the H200).
#ifndef LEVEL_CUDA_THREADS
#define LEVEL_CUDA_THREADS 128
#endif
constexpr int kThreads = LEVEL_CUDA_THREADS;
// The backward kernels' register bounds. The channel kernel (one element ahead) takes 108
// registers unbounded (nvcc 13.0, sm_90; 4 blocks of 128 an SM). Bounded to 80 (6 blocks, 112
// bytes of spill stores a thread) it once gained 5 % (H100, the six shipped cells x 33,390
// neurons, HH everywhere: 5.69-5.74 against 6.02-6.07 ms per step). Since its sweep asks L2 ahead
// (host_device.h) its memory waits are shorter, and the spills cost more than the sixth block
// gives: bounded to 96 (5 blocks, 32 bytes of spill stores), H100, HH everywhere at mono's
// compartments, two runs, the channel hint 1 ahead, against 80: the six cells 4.12 against
// 4.15-4.21 ms, random trees 3.72 against 3.90-3.93, the large cells 4.63-4.64 against
// 4.68-4.71, CA1 x 500 equal, CA1 x 3,000 0.72-0.73 against 0.70-0.72; 72 and 64 slower
// (BENCHMARKS.md, "HH sweeps: registers and L2 distance"). The passive kernel keeps 4 blocks
// (128 registers): bounded to 80 it ran 1.5x slower (2.14 -> 3.30 ms, the same mix passive);
// with the subtree sweep beside the chain sweep it took 130 unbounded, 3 blocks an SM, and every
// multi batch lost 5-20 % (H200, BENCHMARKS.md, "Leaf subtrees"), so it is bounded to 128.
// __maxnreg__, not __launch_bounds__, which also moved the passive kernel off its 128.
// LEVEL_BACKWARD_MIN_BLOCKS overrides both.
#ifdef LEVEL_BACKWARD_MIN_BLOCKS
#define LEVEL_BACKWARD_BOUNDS __launch_bounds__(LEVEL_CUDA_THREADS, LEVEL_BACKWARD_MIN_BLOCKS)
#else
#ifndef LEVEL_CHANNELS_MAX_REGISTERS
#define LEVEL_CHANNELS_MAX_REGISTERS 96 /* 65,536 / (5 x 128), rounded down to 8 */
#endif
#ifndef LEVEL_PASSIVE_MAX_REGISTERS
#define LEVEL_PASSIVE_MAX_REGISTERS 128 /* 65,536 / (4 x 128) */
#endif
// The channel kernel compiled for HH's table form alone (kVariant) takes 76 registers, no spill
// (6 blocks an SM, against 5 with 24 bytes of spill for the run-time switch); bounded to 72 or 64
// it ran within 1 % (H200, HH mixes; BENCHMARKS.md, "HH rows: one form compiled, ...").
#ifndef LEVEL_CHANNELS_TABLE_MAX_REGISTERS
#define LEVEL_CHANNELS_TABLE_MAX_REGISTERS 80 /* 65,536 / (6 x 128) */
#endif
#define LEVEL_BACKWARD_BOUNDS                                                                      \
  __maxnreg__(kTreeLevel                     ? LEVEL_TREE_MAX_REGISTERS                            \
              : (kChannels && kVariant >= 0) ? LEVEL_CHANNELS_TABLE_MAX_REGISTERS                  \
              : kChannels                    ? LEVEL_CHANNELS_MAX_REGISTERS                        \
                                             : LEVEL_PASSIVE_MAX_REGISTERS)
#endif
// A level that is mostly leaf subtrees (level_layout.h; the random trees' last level holds 99 %
// of its elements in subtrees and 92 % of the batch's) is swept by kernels of their own, bounded
// to 64 registers (8 blocks of 128 an SM, against 4 at 120 and 5 at 96), its chains loading 2
// elements ahead (backward) and 4 (forward) instead of 4 and 8: a subtree sweep loads one element
// ahead whatever the bound, so its memory latency is hidden by more threads, not by more
// registers. Measured on the H100 (BENCHMARKS.md, "Levels of subtrees"): random trees at mono's
// compartments 2.49-2.54 -> 2.18-2.23 ms a step, with HH 5.15-5.19 -> 5.00-5.03; every level
// built that way made the six cells 8 % and CA1 x 3,000 10 % slower (their chains need the loads
// ahead), and levels of short chains (at most 8 or 16 elements) that way gained nothing. Passive
// or rows assembled apart only: the channel kernel keeps its own bound.
#ifndef LEVEL_TREE_MAX_REGISTERS
#define LEVEL_TREE_MAX_REGISTERS 64
#endif
#ifndef LEVEL_TREE_PREFETCH
#define LEVEL_TREE_PREFETCH 2
#endif

// The block's description: read by the kernel from the block itself, or, when the caller has the
// host copy of the block, built on the host and passed by value (one dependent memory round trip
// less at the start of every thread, which is much of a small level's time).
struct block_description {
  level_block_view view; // valid when view.systems >= 0
  const int *block_ints; // device copy
};

__device__ inline level_block_view describe(const block_description &d) {
  return d.view.systems >= 0 ? d.view : level_block_describe(d.block_ints);
}

block_description description_of(const int *block_ints, const int *host_block) {
  block_description d;
  d.block_ints = block_ints;
  d.view.systems = -1;
  if (host_block) {
    d.view = level_block_describe(host_block);
    // the same offsets from the device copy's start
    const auto rebase = [&](const int *p) { return block_ints + (p - host_block); };
    d.view.size = rebase(d.view.size);
    d.view.row_offset = rebase(d.view.row_offset);
    d.view.first_row = rebase(d.view.first_row);
    d.view.junction = rebase(d.view.junction);
    d.view.child_first = rebase(d.view.child_first);
    d.view.child = rebase(d.view.child);
    d.view.neuron = rebase(d.view.neuron);
    d.view.first_compartment = rebase(d.view.first_compartment);
    d.view.tree = rebase(d.view.tree);
    d.view.shapes = rebase(d.view.shapes);
  }
  return d;
}

// Which system a thread sweeps: the first blocks give kLanes lanes to each of systems
// 0 .. warp_systems - 1 (*by_warp; -1 for the lanes past the last one, which keep step with
// their warp), the others a thread to each system after those (-1: none).
template <int kLanes>
__device__ inline int system_of_thread(int systems, int warp_systems, bool *by_warp) {
  const int warp_blocks = (warp_systems * kLanes + blockDim.x - 1) / blockDim.x;
  *by_warp = (int)blockIdx.x < warp_blocks;
  if (*by_warp) {
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) / kLanes;
    return w < warp_systems ? w : -1;
  }
  const int s = warp_systems + (blockIdx.x - warp_blocks) * blockDim.x + threadIdx.x;
  return s < systems ? s : -1;
}

unsigned blocks_for(int systems, int warp_systems, int lanes) {
  return (warp_systems * lanes + kThreads - 1) / kThreads +
         (systems - warp_systems + kThreads - 1) / kThreads;
}

// The systems swept by warps: the block's choice when the host has the block (the grid's size
// depends on it), otherwise none.
int warp_systems_of(const block_description &block, int systems) {
  if (block.view.systems < 0)
    return 0;
  return block.view.warp_systems < systems ? block.view.warp_systems : systems;
}

// A level's row offsets (level_layout.h: where element j of every system starts) staged in shared
// memory by each block before its sweeps. Every element's index is row_offset[j] + s, so a thread
// walking a branch otherwise loads row_offset[j] from global memory for each of its elements (and
// again for each L2 hint ahead), and the element's own loads wait for that round trip: in a level
// too small to fill the GPU, where each thread walks its branch alone, those waits were the
// largest stall of the sweep (ncu, H100, the deep chains' levels of 3,072 to 24,576 systems). The
// offsets are the layout's, never written by a kernel, so they are read before the wait on the
// previous kernel. Addresses only: the arithmetic and its order are unchanged (same bits). Levels
// whose longest system is longer than kStagedRowOffsets - 1, or shorter than LEVEL_STAGE_MIN_SIZE,
// read them from global memory: where every system is short the copy and its barrier cost more
// than the few loads they save (staging every level made CA1 x 500 4-8 % slower). Measured on the
// H100 x2 machine against a build without staging (BENCHMARKS.md, "Row offsets staged"): the deep
// chains over two GPUs 1.06x, the six cells over two GPUs 1.02-1.04x (one run of four 0.90x),
// one-GPU batches and CA1 within the runs' spread.
#ifndef LEVEL_STAGE_ROW_OFFSETS
#define LEVEL_STAGE_ROW_OFFSETS 1
#endif
constexpr int kStagedRowOffsets = 512;
#ifndef LEVEL_STAGE_MIN_SIZE
#define LEVEL_STAGE_MIN_SIZE 32
#endif

// Every thread of the block calls it (a barrier inside).
__device__ inline void stage_row_offsets(level_block_view &v, int *staged) {
  if (!LEVEL_STAGE_ROW_OFFSETS || v.max_size < LEVEL_STAGE_MIN_SIZE ||
      v.max_size + 1 > kStagedRowOffsets)
    return;
  for (int i = threadIdx.x; i <= v.max_size; i += blockDim.x)
    staged[i] = v.row_offset[i];
  __syncthreads();
  v.row_offset = staged;
}

// Two instances: without channels the gates are a compile-time null, so the Hodgkin-Huxley code
// (and the registers it needs) vanishes from the passive kernel (ptxas, sm_90: 168 registers a
// thread with the channel code, 128 without). kLanes: lanes per warp-swept system.
// kAssembled: the row kernel below has built every element's row (channels included), so the
// sweep only eliminates, with the passive kernel's registers and loads ahead.
// kStored: without channels, the sweeps (thread and warp) read each row's inverse pivot from the
// constants (level_step_arguments.stored_pivots) instead of computing it.
template <bool kChannels, int kLanes, bool kAssembled = false, bool kTreeLevel = false,
          bool kStored = false, int kVariant = -1>
__global__ void LEVEL_BACKWARD_BOUNDS backward_kernel(
    block_description block, const double *constants, level_step_arguments args, double *voltage,
    double *factor, double *contribution, const double *child_contribution, double *gates,
    int warp_systems, bool wait_first) {
  __shared__ int staged_row_offsets[kStagedRowOffsets];
  level_block_view v = describe(block);
  stage_row_offsets(v, staged_row_offsets);
  if (wait_first)
    LEVEL_AFTER_FIRST_LOADS();
  bool by_warp;
  const int s = system_of_thread<kLanes>(v.systems, warp_systems, &by_warp);
  if (by_warp)
    backward_warp_system<kLanes>(v, s, constants, args, voltage, factor, contribution,
                                 child_contribution, kChannels ? gates : nullptr, kAssembled,
                                 kStored && !kChannels && !kAssembled, kVariant);
  else if (s >= 0)
    level_backward_system_as(&v, s, constants, &args, voltage, factor, contribution,
                             child_contribution, kChannels ? gates : nullptr, kAssembled,
                             kChannels    ? LEVEL_CHANNELS_PREFETCH
                             : kTreeLevel ? LEVEL_TREE_PREFETCH
                                          : LEVEL_PREFETCH,
                             kStored && !kChannels && !kAssembled, kVariant);
}

// Lean sweeps: the thread sweeps of the levels too small to fill the GPU, where a step waits on
// one thread's chain along its branch (ncu, H100: ~74 instructions an element, an instruction
// every 6.5 cycles, BENCHMARKS.md "Where a small level's time goes"). For the common case only:
// NCP chain systems of a passive step with stored pivots (backward) and any NCP chain system
// (forward). Each thread first asks L2 for every element it will load (its branch's old voltages,
// or its factors and scaled rhs), then walks its branch in groups of kGroup whose loads are
// issued a group ahead; the first group is the partial one, so the loop after it runs full
// groups with no per-element tests, each constants row read as two 16-byte loads. The arithmetic
// is level_backward_system_in_groups' and level_forward_system_in_groups', operation for
// operation, so the bits are those of the CPU codelets.

// What both lean kernels do first, every thread of the block (a barrier inside): the level's
// description with its row offsets staged, the wait on the previous kernel when the launch asks
// for it first, and the thread's system (-1: none, past the level's last one).
__device__ inline int lean_thread_system(const block_description &block, level_block_view &v,
                                         int *staged_row_offsets, bool wait_first) {
  v = describe(block);
  stage_row_offsets(v, staged_row_offsets);
  if (wait_first)
    LEVEL_AFTER_FIRST_LOADS();
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  return s < v.systems ? s : -1;
}

// What each lean thread asks for at its start, beside the L2 hints of its elements: its branch's
// constant rows and inverse pivots (backward) or row factors (forward), which no step writes.
// LEVEL_LEAN_PREFETCH_CONSTANTS 2 (the default): into L2 (level_hint_lines); 0: nothing. Measured
// on the H100 (2026-12-07, BENCHMARKS.md "Lean sweeps at half the batch"; ms a step, full batch /
// half batch, medians of two rounds, none / L2): the large cells x 6,643 1.110 / 0.591 against
// 1.105 / 0.576, the deep chains x 7,404 1.104 / 0.596 against 1.101 / 0.584, all 15 cells x
// 16,356 1.208 / 0.649 against 1.198 / 0.633; the part of a step that does not halve with the
// batch fell from 0.071-0.098 ms to 0.047-0.068 ms. Into the SM's L1 instead measured the same
// within 0.005 ms (removed). Experimental, off by default: LEVEL_LEAN_L1_ELEMENTS, the elements'
// old voltages (backward) or scaled rhs and factors (forward) into L1 in place of their L2 hints;
// LEVEL_LEAN_THREADS, the lean kernels' block.
#ifndef LEVEL_LEAN_PREFETCH_CONSTANTS
#define LEVEL_LEAN_PREFETCH_CONSTANTS 2
#endif
#ifndef LEVEL_LEAN_L1_ELEMENTS
#define LEVEL_LEAN_L1_ELEMENTS 0
#endif
#ifndef LEVEL_LEAN_THREADS
#define LEVEL_LEAN_THREADS kThreads
#endif
constexpr int kLeanThreads = LEVEL_LEAN_THREADS;

__device__ inline void lean_prefetch_element(const double *pointer) {
#if LEVEL_LEAN_L1_ELEMENTS
  asm volatile("prefetch.global.L1 [%0];" ::"l"(pointer));
#else
  HINES_PREFETCH_L2(pointer);
#endif
}

// The `count` doubles from `begin`, as LEVEL_LEAN_PREFETCH_CONSTANTS says.
__device__ inline void lean_prefetch_constants(const double *begin, int count) {
  if (LEVEL_LEAN_PREFETCH_CONSTANTS == 2)
    level_hint_lines(begin, count);
}

template <int kGroup> struct lean_backward_group {
  int e[kGroup];
  double old_voltage[kGroup], inverse[kGroup], off_diagonal[kGroup], c_over_dt[kGroup],
      leak_current[kGroup];
};

// Elements hi, hi - 1, ..., hi - count + 1 (count a constant kGroup where the loop is full).
template <int kGroup>
__device__ inline void lean_backward_load(const int *row_offset, int s, int hi, int count,
                                          const double2 *rows, const double *inverse,
                                          const double *voltage, lean_backward_group<kGroup> &g) {
#pragma unroll
  for (int b = 0; b < kGroup; b++)
    if (b < count) {
      const int j = hi - b;
      g.e[b] = row_offset[j] + s;
      g.old_voltage[b] = voltage[g.e[b]];
      g.inverse[b] = inverse[j];
      const double2 first = rows[2 * j], second = rows[2 * j + 1];
      static_assert(CONST_OFF_DIAGONAL == 0 && CONST_C_OVER_DT == 1 && CONST_LEAK_CURRENT == 3,
                    "the two 16-byte loads assume this row order");
      g.off_diagonal[b] = first.x;
      g.c_over_dt[b] = first.y;
      g.leak_current[b] = second.y;
    }
}

struct lean_chain {
  double factor, rhs, off_diagonal; // of the element eliminated last
};

// One element of level_backward_system_in_groups with stored pivots (first: j == size - 1).
template <int kGroup>
__device__ inline void lean_backward_element(const lean_backward_group<kGroup> &g, int b, int j,
                                             bool first, int stimulated, double injected,
                                             const level_block_view &v, int s,
                                             const double *child_contribution, double *voltage,
                                             double *factor, bool store_factor, lean_chain &c) {
  double dj, rj;
  membrane_row(0.0, g.c_over_dt[b], g.leak_current[b], g.old_voltage[b],
               j == stimulated ? injected : 0.0, &dj, &rj);
  (void)dj;
  if (first)
    level_gather_children_rhs(&v, s, child_contribution, &rj);
  else
    rj = fma(-c.factor, c.rhs, rj);
  double scaled_rhs;
  level_pivot_stored(g.off_diagonal[b], rj, g.inverse[b], &c.factor, &scaled_rhs);
  if (store_factor)
    factor[g.e[b]] = c.factor;
  voltage[g.e[b]] = scaled_rhs;
  c.rhs = rj;
  c.off_diagonal = g.off_diagonal[b];
}

template <int kGroup>
__device__ inline void
lean_backward_system(const level_block_view &v, int s, const double *constants,
                     const level_step_arguments &args, double *voltage, double *factor,
                     double *contribution, const double *child_contribution) {
  const int size = v.size[s], first_row = v.first_row[s];
  const int *row_offset = v.row_offset;
  const double2 *rows =
      reinterpret_cast<const double2 *>(constants + (size_t)first_row * CONST_STRIDE);
  const double *inverse = constants + CONST_INVERSE_PIVOT(args.constant_rows) + first_row;
  lean_prefetch_constants(reinterpret_cast<const double *>(rows), size * CONST_STRIDE);
  lean_prefetch_constants(inverse, size);
  for (int j = 0; j < size; j++)
    lean_prefetch_element(voltage + row_offset[j] + s);
  const int stimulated = args.stimulus.compartment - v.first_compartment[s];
  const double injected = stimulated >= 0 && stimulated < size
                              ? stimulus_current(&args.stimulus, v.neuron[s], args.time_ms)
                              : 0.0;
  lean_chain c = {0.0, 0.0, 0.0};
  const bool store_factor = !args.row_factors;
  if (size > 0) {
    lean_backward_group<kGroup> current, next;
    const int first_count = (size - 1) % kGroup + 1;
    int hi = size - 1;
    lean_backward_load<kGroup>(row_offset, s, hi, first_count, rows, inverse, voltage, current);
    LEVEL_AFTER_FIRST_LOADS();
    if (hi - first_count >= 0)
      lean_backward_load<kGroup>(row_offset, s, hi - first_count, kGroup, rows, inverse, voltage,
                                 next);
#pragma unroll
    for (int b = 0; b < kGroup; b++)
      if (b < first_count)
        lean_backward_element<kGroup>(current, b, hi - b, b == 0, stimulated, injected, v, s,
                                      child_contribution, voltage, factor, store_factor, c);
    for (hi -= first_count; hi >= 0; hi -= kGroup) {
      current = next;
      if (hi - kGroup >= 0)
        lean_backward_load<kGroup>(row_offset, s, hi - kGroup, kGroup, rows, inverse, voltage,
                                   next);
#pragma unroll
      for (int b = 0; b < kGroup; b++)
        lean_backward_element<kGroup>(current, b, hi - b, false, stimulated, injected, v, s,
                                      child_contribution, voltage, factor, store_factor, c);
    }
  } else {
    LEVEL_AFTER_FIRST_LOADS();
  }
  contribution[2 * s] = c.factor * c.off_diagonal;
  contribution[2 * s + 1] = c.factor * c.rhs;
}

template <int kGroup>
__global__ void lean_backward_kernel(block_description block, const double *constants,
                                     level_step_arguments args, double *voltage, double *factor,
                                     double *contribution, const double *child_contribution,
                                     bool wait_first) {
  __shared__ int staged_row_offsets[kStagedRowOffsets];
  level_block_view v;
  const int s = lean_thread_system(block, v, staged_row_offsets, wait_first);
  if (s < 0)
    return;
  if (v.trees && v.tree[s] >= 0)
    level_backward_system_in_groups(&v, s, constants, &args, voltage, factor, contribution,
                                    child_contribution, nullptr, 0, LEVEL_PREFETCH, 1);
  else
    lean_backward_system<kGroup>(v, s, constants, args, voltage, factor, contribution,
                                 child_contribution);
}

template <int kGroup> struct lean_forward_group {
  int e[kGroup];
  double scaled_rhs[kGroup], factor[kGroup];
};

// row_factor: the factors of the system's rows from its first (NULL: the factor array).
template <int kGroup>
__device__ inline void lean_forward_load(const int *row_offset, int s, int lo, int count,
                                         const double *voltage, const double *factor,
                                         const double *row_factor, lean_forward_group<kGroup> &g) {
#pragma unroll
  for (int b = 0; b < kGroup; b++)
    if (b < count) {
      g.e[b] = row_offset[lo + b] + s;
      g.scaled_rhs[b] = voltage[g.e[b]];
      g.factor[b] = row_factor ? row_factor[lo + b] : factor[g.e[b]];
    }
}

// level_forward_system_in_groups of a chain system, its last group the partial one.
template <int kGroup>
__device__ inline void lean_forward_system(const level_block_view &v, int s, double *voltage,
                                           const double *factor, const double *row_factors,
                                           const double *parent_voltage) {
  const int size = v.size[s], junction = v.junction[s];
  const int *row_offset = v.row_offset;
  const double *row_factor = row_factors ? row_factors + v.first_row[s] : nullptr;
  if (row_factor)
    lean_prefetch_constants(row_factor, size);
  for (int j = 0; j < size; j++) {
    lean_prefetch_element(voltage + row_offset[j] + s);
    if (!row_factor)
      lean_prefetch_element(factor + row_offset[j] + s);
  }
  const int full = size / kGroup * kGroup;
  lean_forward_group<kGroup> current, next;
  if (full > 0)
    lean_forward_load<kGroup>(row_offset, s, 0, kGroup, voltage, factor, row_factor, current);
  else
    lean_forward_load<kGroup>(row_offset, s, 0, size, voltage, factor, row_factor, current);
  LEVEL_AFTER_FIRST_LOADS();
  double x = junction >= 0 ? LEVEL_LOAD_PRODUCED(&parent_voltage[junction]) : 0.0;
  int lo = 0;
  for (; lo < full; lo += kGroup) {
    if (lo + kGroup < full)
      lean_forward_load<kGroup>(row_offset, s, lo + kGroup, kGroup, voltage, factor, row_factor,
                                next);
    else if (lo + kGroup < size)
      lean_forward_load<kGroup>(row_offset, s, lo + kGroup, size - full, voltage, factor,
                                row_factor, next);
#pragma unroll
    for (int b = 0; b < kGroup; b++) {
      x = fma(-current.factor[b], x, current.scaled_rhs[b]);
      voltage[current.e[b]] = x;
    }
    current = next;
  }
#pragma unroll
  for (int b = 0; b < kGroup; b++)
    if (b < size - full) {
      x = fma(-current.factor[b], x, current.scaled_rhs[b]);
      voltage[current.e[b]] = x;
    }
}

template <int kGroup>
__global__ void lean_forward_kernel(block_description block, double *voltage, const double *factor,
                                    const double *row_factor, const double *parent_voltage,
                                    bool wait_first) {
  __shared__ int staged_row_offsets[kStagedRowOffsets];
  level_block_view v;
  const int s = lean_thread_system(block, v, staged_row_offsets, wait_first);
  if (s < 0)
    return;
  if (v.trees && v.tree[s] >= 0)
    level_forward_system_in_groups(&v, s, voltage, factor, row_factor, parent_voltage,
                                   LEVEL_FORWARD_PREFETCH);
  else
    lean_forward_system<kGroup>(v, s, voltage, factor, row_factor, parent_voltage);
}

// The rows of a part's levels, one thread per element, before its backward sweeps: with channels
// everywhere a thread sweeping a branch would compute every element's gates one after another
// inside its elimination chain (and the channel kernel's registers cost occupancy), where here
// every element's gates are computed at once by a full grid. Block b belongs to level L when
// block_first[L] <= b < block_first[L + 1]; a launch takes up to kRowLevels levels.
constexpr int kRowLevels = 32;
struct row_levels {
  int n_levels;
  int block_first[kRowLevels + 1];
  int ints_offset[kRowLevels];
  long long element_offset[kRowLevels];
};

// kVariant: the step's channel form (channel_variant_of), so that only its code is compiled
// (the table form at two elements a thread: 38 registers, against 70 for the run-time switch of
// four forms; 32 and 62 at one element a thread).
// Each thread builds LEVEL_ROWS_PER_THREAD elements, kThreads apart, and first asks L2 for all
// their voltages and gates (element i of a level is at i: level_assemble_element's
// row_offset[j] + s), so that those memory round trips overlap each other and the chain of
// description reads (row search, system arrays, constants rows) each element waits for. ncu on
// the H200 (the large cells x 6,643, HH everywhere, one element a thread, no prefetch): 0.80 ms
// for 1.87 GB, 2.3 TB/s at 93 % occupancy: bound by each thread's chain of dependent reads, not by
// bandwidth. Two elements a thread with the prefetches made that batch's step 1.08x faster (3.22
// against 3.48 ms), the deep chains 1.25x, CA1 x 3,000 1.17x; four, 1.05x and 1.15x
// (BENCHMARKS.md, "HH rows: one form compiled, two elements a thread").
#ifndef LEVEL_ROWS_PER_THREAD
#define LEVEL_ROWS_PER_THREAD 2
#endif
#ifndef LEVEL_ROWS_PREFETCH
#define LEVEL_ROWS_PREFETCH 1
#endif
template <int kVariant>
__global__ void rows_kernel(const int *part_ints, row_levels levels, const double *constants,
                            level_step_arguments args, double *voltage, double *factor,
                            double *gates, int n_gates) {
  LEVEL_AFTER_FIRST_LOADS(); // the previous step's last kernels wrote the voltages
  int level = 0;
  while (level + 1 < levels.n_levels && (int)blockIdx.x >= levels.block_first[level + 1])
    level++;
  const long long e = levels.element_offset[level];
  const int first =
      ((int)blockIdx.x - levels.block_first[level]) * kThreads * LEVEL_ROWS_PER_THREAD +
      (int)threadIdx.x;
  const level_block_view v = level_block_describe(part_ints + levels.ints_offset[level]);
  const int elements = v.row_offset[v.max_size];
  if (LEVEL_ROWS_PREFETCH) {
#pragma unroll
    for (int k = 0; k < LEVEL_ROWS_PER_THREAD; k++) {
      const int i = first + k * kThreads;
      if (i < elements) {
        HINES_PREFETCH_L2(voltage + e + i);
        for (int g = 0; g < n_gates && gates; g++)
          HINES_PREFETCH_L2(gates + (long long)n_gates * e + (long long)g * v.elements + i);
      }
    }
  }
  for (int k = 0; k < LEVEL_ROWS_PER_THREAD; k++) {
    const int i = first + k * kThreads;
    if (i >= elements)
      return;
    const int j = level_row_of_element(&v, i);
    level_assemble_element(&v, i - v.row_offset[j], j, constants, &args, voltage + e, factor + e,
                           gates ? gates + (long long)n_gates * e : nullptr, kVariant);
  }
}

template <int kLanes>
__device__ inline void forward_level(const block_description &block, double *voltage,
                                     const double *factor, const double *row_factor,
                                     const double *parent_voltage, int warp_systems,
                                     bool wait_first, int prefetch) {
  __shared__ int staged_row_offsets[kStagedRowOffsets];
  level_block_view v = describe(block);
  stage_row_offsets(v, staged_row_offsets);
  if (wait_first)
    LEVEL_AFTER_FIRST_LOADS();
  bool by_warp;
  const int s = system_of_thread<kLanes>(v.systems, warp_systems, &by_warp);
  if (by_warp)
    forward_warp_system<kLanes>(v, s, voltage, factor, parent_voltage);
  else if (s >= 0)
    level_forward_system_in_groups(&v, s, voltage, factor, row_factor, parent_voltage, prefetch);
}

template <int kLanes>
__global__ void forward_kernel(block_description block, double *voltage, const double *factor,
                               const double *row_factor, const double *parent_voltage,
                               int warp_systems, bool wait_first) {
  forward_level<kLanes>(block, voltage, factor, row_factor, parent_voltage, warp_systems,
                        wait_first, LEVEL_FORWARD_PREFETCH);
}

// A level of subtrees (above): its chains load 4 elements ahead, not 8, within the bound.
#ifndef LEVEL_TREE_FORWARD_PREFETCH
#define LEVEL_TREE_FORWARD_PREFETCH 4
#endif
__global__ void __maxnreg__(LEVEL_TREE_MAX_REGISTERS)
    forward_tree_kernel(block_description block, double *voltage, const double *factor,
                        const double *row_factor, const double *parent_voltage, bool wait_first) {
  forward_level<kWarp>(block, voltage, factor, row_factor, parent_voltage, 0, wait_first,
                       LEVEL_TREE_FORWARD_PREFETCH);
}

template <bool kChannels>
__global__ void trunk_backward_kernel(const int *part_ints, const int *trunk,
                                      const double *constants, level_step_arguments args,
                                      double *voltage, double *factor, double *contribution,
                                      double *gates) {
  LEVEL_AFTER_FIRST_LOADS(); // the trunk reads its first level's children first
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < trunk[TRUNK_THREADS])
    level_trunk_backward(part_ints, trunk, t, constants, &args, voltage, factor, contribution,
                         kChannels ? gates : nullptr);
}

__global__ void trunk_forward_kernel(const int *part_ints, const int *trunk, double *voltage,
                                     const double *factor, const double *row_factor) {
  LEVEL_AFTER_FIRST_LOADS(); // the trunk's backward sweep wrote what it reads
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < trunk[TRUNK_THREADS])
    level_trunk_forward(part_ints, trunk, t, voltage, factor, row_factor);
}

// Whether the current device takes early launches (compute capability 9.0 or newer), asked once
// per device.
bool early_launch_supported() {
  constexpr int kMaxDevices = 64;
  static int major_of_device[kMaxDevices]; // 0: not asked yet (benign race: same value)
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices)
    return false;
  if (major_of_device[device] == 0) {
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess)
      return false;
    major_of_device[device] = major;
  }
  return major_of_device[device] >= 9;
}

// Launches `kernel` on `stream`, early (programmatic stream serialization) when asked and the
// device supports it.
template <typename... Parameters, typename... Arguments>
int launch_blocks_of(int threads, void (*kernel)(Parameters...), unsigned blocks, level_launch how,
                     cudaStream_t stream, Arguments &&...arguments) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.stream = stream;
  cudaLaunchAttribute early[1] = {};
  early[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early[0].val.programmaticStreamSerializationAllowed = 1;
  if (how != LEVEL_LAUNCH_PLAIN && early_launch_supported()) {
    config.attrs = early;
    config.numAttrs = 1;
  }
  return (int)cudaLaunchKernelEx(&config, kernel, std::forward<Arguments>(arguments)...);
}

template <typename... Parameters, typename... Arguments>
int launch(void (*kernel)(Parameters...), unsigned blocks, level_launch how, cudaStream_t stream,
           Arguments &&...arguments) {
  return launch_blocks_of(kThreads, kernel, blocks, how, stream,
                          std::forward<Arguments>(arguments)...);
}

// The blocks of a lean kernel for `systems` threads.
unsigned lean_blocks(int systems) {
  return (systems + kLeanThreads - 1) / kLeanThreads;
}

// Whether a level is swept by the subtree-level kernels (above): the host has its description,
// no warp sweeps, and at least half of its elements are in subtrees.
bool is_tree_level(const block_description &block, int warp_systems) {
  return block.view.systems >= 0 && warp_systems == 0 && block.view.tree_elements > 0 &&
         2 * (long long)block.view.tree_elements >= block.view.elements;
}

// Launches the backward kernel with kLanes lanes per warp-swept system.
template <int kLanes>
int launch_backward(const block_description &block, int systems, int warp_systems,
                    const double *constants, const level_step_arguments *args, double *voltage,
                    double *factor, double *contribution, const double *child_contribution,
                    double *gates, int rows_assembled, level_launch how, cudaStream_t stream) {
  const unsigned blocks = blocks_for(systems, warp_systems, kLanes);
  const bool wait_first = how == LEVEL_LAUNCH_EARLY;
  if (rows_assembled)
    return launch(backward_kernel<false, kLanes, true>, blocks, how, stream, block, constants,
                  *args, voltage, factor, contribution, child_contribution, (double *)nullptr,
                  warp_systems, wait_first);
  if (gates && channel_variant_of(&args->channels, level_rate_table(constants, args)) ==
                   CHANNELS_HH_TABLE) // the common form compiled alone: fewer registers
    return launch(backward_kernel<true, kLanes, false, false, false, CHANNELS_HH_TABLE>, blocks,
                  how, stream, block, constants, *args, voltage, factor, contribution,
                  child_contribution, gates, warp_systems, wait_first);
  if (gates)
    return launch(backward_kernel<true, kLanes>, blocks, how, stream, block, constants, *args,
                  voltage, factor, contribution, child_contribution, gates, warp_systems,
                  wait_first);
  if (systems < args->stored_pivots)
    return launch(backward_kernel<false, kLanes, false, false, true>, blocks, how, stream, block,
                  constants, *args, voltage, factor, contribution, child_contribution,
                  (double *)nullptr, warp_systems, wait_first);
  return launch(backward_kernel<false, kLanes>, blocks, how, stream, block, constants, *args,
                voltage, factor, contribution, child_contribution, (double *)nullptr, warp_systems,
                wait_first);
}

// The kernels of a level of subtrees (no warp sweeps there: every thread sweeps a system).
int launch_tree_backward(const block_description &block, int systems, const double *constants,
                         const level_step_arguments *args, double *voltage, double *factor,
                         double *contribution, const double *child_contribution, int rows_assembled,
                         level_launch how, cudaStream_t stream) {
  const unsigned blocks = blocks_for(systems, 0, kWarp);
  const bool wait_first = how == LEVEL_LAUNCH_EARLY;
  if (rows_assembled)
    return launch(backward_kernel<false, kWarp, true, true>, blocks, how, stream, block, constants,
                  *args, voltage, factor, contribution, child_contribution, (double *)nullptr, 0,
                  wait_first);
  if (systems < args->stored_pivots)
    return launch(backward_kernel<false, kWarp, false, true, true>, blocks, how, stream, block,
                  constants, *args, voltage, factor, contribution, child_contribution,
                  (double *)nullptr, 0, wait_first);
  return launch(backward_kernel<false, kWarp, false, true>, blocks, how, stream, block, constants,
                *args, voltage, factor, contribution, child_contribution, (double *)nullptr, 0,
                wait_first);
}

int launch_tree_forward(const block_description &block, int systems, double *voltage,
                        const double *factor, const double *row_factor,
                        const double *parent_voltage, level_launch how, cudaStream_t stream) {
  return launch(forward_tree_kernel, blocks_for(systems, 0, kWarp), how, stream, block, voltage,
                factor, row_factor, parent_voltage, how == LEVEL_LAUNCH_EARLY);
}

template <int kLanes>
int launch_forward(const block_description &block, int systems, int warp_systems, double *voltage,
                   const double *factor, const double *row_factor, const double *parent_voltage,
                   level_launch how, cudaStream_t stream) {
  return launch(forward_kernel<kLanes>, blocks_for(systems, warp_systems, kLanes), how, stream,
                block, voltage, factor, row_factor, parent_voltage, warp_systems,
                how == LEVEL_LAUNCH_EARLY);
}

// The lean sweeps' group for a level (above): 8 elements (16 forward) or 4 (8 forward), or 0 for
// the other kernels. Lean where the level cannot fill the GPU: the host has its description, no
// CP padding, no warp sweeps, not a level of subtrees, and its systems fit in one wave of the
// lean kernel (the groups of 8 take ~210 registers a thread, 2 blocks of 128 an SM; of 4, ~120,
// 4 blocks). Groups of 8 where the level's longest system has LEVEL_LEAN_LONG elements or more.
// Measured on the H200 x2 machine (BENCHMARKS.md, "Lean sweeps"): groups of 8 gained where
// branches are 64 elements long (the deep chains 1.10-1.14x on one GPU, 1.41-1.43x on two) and
// lost where they are short and the level needed two waves of them (the six cells 0.98x); groups
// of 4 the other way round (the six cells 1.02-1.08x, the deep chains 0.84x); the other kernels
// keep the levels that fill the GPU (every level lean cost the large cells 11 % and the deep
// chains 14-16 %).
#ifndef LEVEL_LEAN_LONG
#define LEVEL_LEAN_LONG 32
#endif
struct lean_capacity {
  long long group8, group4; // threads of one wave of each backward kernel
};
lean_capacity lean_capacity_of_device() {
  constexpr int kMaxDevices = 64;
  static lean_capacity of_device[kMaxDevices]; // {0, 0}: not asked yet (benign race: same value)
  int device = 0, sms = 0, blocks8 = 0, blocks4 = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices)
    return lean_capacity{0, 0};
  if (of_device[device].group4 == 0) {
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks8, lean_backward_kernel<8>,
                                                      kLeanThreads, 0) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks4, lean_backward_kernel<4>,
                                                      kLeanThreads, 0) != cudaSuccess) {
      (void)cudaGetLastError();
      return lean_capacity{0, 0};
    }
    of_device[device] = lean_capacity{(long long)blocks8 * kLeanThreads * sms,
                                      (long long)blocks4 * kLeanThreads * sms};
  }
  return of_device[device];
}

int lean_group(const block_description &block, int systems, int warp_systems, int lean) {
  if (!lean || block.view.systems < 0 || block.view.padded || warp_systems > 0 ||
      is_tree_level(block, warp_systems))
    return 0;
  const lean_capacity capacity = lean_capacity_of_device();
  if (systems <= capacity.group8 && block.view.max_size >= LEVEL_LEAN_LONG)
    return 8;
  return systems <= capacity.group4 ? 4 : 0;
}

} // namespace

extern "C" int level_backward_cuda(const int *block_ints, const int *host_block, int systems,
                                   const double *constants, const level_step_arguments *args,
                                   double *voltage, double *factor, double *contribution,
                                   const double *child_contribution, double *gates,
                                   int rows_assembled, level_launch how, void *stream) {
  if (systems == 0)
    return 0;
  const block_description block = description_of(block_ints, host_block);
  const int warp_systems = warp_systems_of(block, systems);
  const int lean =
      !rows_assembled && !gates && systems < args->stored_pivots && (uintptr_t)constants % 16 == 0
          ? lean_group(block, systems, warp_systems, args->lean_sweeps)
          : 0;
  if (lean)
    return launch_blocks_of(
        kLeanThreads, lean == 8 ? lean_backward_kernel<8> : lean_backward_kernel<4>,
        lean_blocks(systems), how, (cudaStream_t)stream, block, constants, *args, voltage, factor,
        contribution, child_contribution, how == LEVEL_LAUNCH_EARLY);
  if (is_tree_level(block, warp_systems) && (rows_assembled || !gates))
    return launch_tree_backward(block, systems, constants, args, voltage, factor, contribution,
                                child_contribution, rows_assembled, how, (cudaStream_t)stream);
  switch (warp_systems > 0 ? block.view.warp_lanes : kWarp) {
  case 8:
    return launch_backward<8>(block, systems, warp_systems, constants, args, voltage, factor,
                              contribution, child_contribution, gates, rows_assembled, how,
                              (cudaStream_t)stream);
  case 16:
    return launch_backward<16>(block, systems, warp_systems, constants, args, voltage, factor,
                               contribution, child_contribution, gates, rows_assembled, how,
                               (cudaStream_t)stream);
  default:
    return launch_backward<kWarp>(block, systems, warp_systems, constants, args, voltage, factor,
                                  contribution, child_contribution, gates, rows_assembled, how,
                                  (cudaStream_t)stream);
  }
}

extern "C" int level_rows_cuda(const int *part_ints, const int *host_part_ints, int n_levels,
                               const size_t *ints_offset, const size_t *element_offset,
                               const double *constants, const level_step_arguments *args,
                               double *voltage, double *factor, double *gates, level_launch how,
                               void *stream) {
  for (int first = 0; first < n_levels; first += kRowLevels) {
    row_levels levels = {};
    levels.n_levels = n_levels - first < kRowLevels ? n_levels - first : kRowLevels;
    int blocks = 0;
    for (int l = 0; l < levels.n_levels; l++) {
      const level_block_view v = level_block_describe(host_part_ints + ints_offset[first + l]);
      levels.block_first[l] = blocks;
      levels.ints_offset[l] = (int)ints_offset[first + l];
      levels.element_offset[l] = (long long)element_offset[first + l];
      blocks += (v.row_offset[v.max_size] + kThreads * LEVEL_ROWS_PER_THREAD - 1) /
                (kThreads * LEVEL_ROWS_PER_THREAD);
    }
    levels.block_first[levels.n_levels] = blocks;
    if (blocks == 0)
      continue;
    const level_launch first_how = first == 0 ? how : LEVEL_LAUNCH_PLAIN;
    int status;
    switch (channel_variant_of(&args->channels, level_rate_table(constants, args))) {
    case CHANNELS_HH_TABLE:
      status = launch(rows_kernel<CHANNELS_HH_TABLE>, (unsigned)blocks, first_how,
                      (cudaStream_t)stream, part_ints, levels, constants, *args, voltage, factor,
                      gates, args->channels.n_gates);
      break;
    case CHANNELS_HH_EXACT:
      status = launch(rows_kernel<CHANNELS_HH_EXACT>, (unsigned)blocks, first_how,
                      (cudaStream_t)stream, part_ints, levels, constants, *args, voltage, factor,
                      gates, args->channels.n_gates);
      break;
    default: // channels beside hh: the form picked in the kernel
      status = launch(rows_kernel<-1>, (unsigned)blocks, first_how, (cudaStream_t)stream, part_ints,
                      levels, constants, *args, voltage, factor, gates, args->channels.n_gates);
    }
    if (status)
      return status;
  }
  return 0;
}

extern "C" int level_forward_cuda(const int *block_ints, const int *host_block, int systems,
                                  double *voltage, const double *factor, const double *row_factor,
                                  const double *parent_voltage, int lean, level_launch how,
                                  void *stream) {
  if (systems == 0)
    return 0;
  const block_description block = description_of(block_ints, host_block);
  const int warp_systems = warp_systems_of(block, systems);
  const int lean_by = lean_group(block, systems, warp_systems, lean);
  if (lean_by)
    return launch_blocks_of(kLeanThreads,
                            lean_by == 8 ? lean_forward_kernel<16> : lean_forward_kernel<8>,
                            lean_blocks(systems), how, (cudaStream_t)stream, block, voltage, factor,
                            row_factor, parent_voltage, how == LEVEL_LAUNCH_EARLY);
  if (is_tree_level(block, warp_systems))
    return launch_tree_forward(block, systems, voltage, factor, row_factor, parent_voltage, how,
                               (cudaStream_t)stream);
  switch (warp_systems > 0 ? block.view.warp_lanes : kWarp) {
  case 8:
    return launch_forward<8>(block, systems, warp_systems, voltage, factor, row_factor,
                             parent_voltage, how, (cudaStream_t)stream);
  case 16:
    return launch_forward<16>(block, systems, warp_systems, voltage, factor, row_factor,
                              parent_voltage, how, (cudaStream_t)stream);
  default:
    return launch_forward<kWarp>(block, systems, warp_systems, voltage, factor, row_factor,
                                 parent_voltage, how, (cudaStream_t)stream);
  }
}

extern "C" int level_trunk_backward_cuda(const int *part_ints, const int *trunk, int threads,
                                         const double *constants, const level_step_arguments *args,
                                         double *voltage, double *factor, double *contribution,
                                         double *gates, level_launch how, void *stream) {
  if (threads == 0)
    return 0;
  const unsigned blocks = (threads + kThreads - 1) / kThreads;
  if (gates)
    return launch(trunk_backward_kernel<true>, blocks, how, (cudaStream_t)stream, part_ints, trunk,
                  constants, *args, voltage, factor, contribution, gates);
  return launch(trunk_backward_kernel<false>, blocks, how, (cudaStream_t)stream, part_ints, trunk,
                constants, *args, voltage, factor, contribution, (double *)nullptr);
}

extern "C" int level_trunk_forward_cuda(const int *part_ints, const int *trunk, int threads,
                                        double *voltage, const double *factor,
                                        const double *row_factor, level_launch how, void *stream) {
  if (threads == 0)
    return 0;
  return launch(trunk_forward_kernel, (threads + kThreads - 1) / kThreads, how,
                (cudaStream_t)stream, part_ints, trunk, voltage, factor, row_factor);
}
