// CUDA side of the flow kernel (codelets/level_flow.h): two launches per part and step, the
// backward sweep then the forward sweep (each with the registers its own code needs: one kernel
// for both held the forward sweep to the backward sweep's 128 registers and 4 blocks an SM).
// Each block takes a tile, sweeps it as the level kernels do, and publishes its systems' flags.
// A system waits for its children (backward) or its parent (forward) after issuing its first
// group's loads, the point where a level kernel launched early waits for the previous level
// (LEVEL_AFTER_FIRST_LOADS), so those loads are in flight while it waits.
//
// Memory ordering. A producer publishes its flag with a release store (after its results; a
// warp's lanes fence first, then one lane stores). A consumer polls the flag with strong
// (L1-bypassing) relaxed loads, then reads the results past L1 (__ldcg: LEVEL_LOAD_PRODUCED, the
// children's contributions and the parent's voltage); those reads are issued only once the flag
// has been seen, so they reach L2 after the results did. Acquire polls would say the same in the
// memory model's terms but invalidate the SM's L1 (CCTL in the SASS), where the read-only data
// (constants, block descriptions) live: 3-8 % slower when measured (FLOW_ACQUIRE, BENCHMARKS.md).
// What other blocks write during the launch is never read through a const restrict pointer (the
// non-coherent read-only path); the forward sweep's own factors come from the backward launch.
#include <cuda_runtime.h>

static __host__ __device__ inline double flow_load_past_l1(const double *pointer) {
#ifdef __CUDA_ARCH__
  return __ldcg(pointer);
#else
  return *pointer;
#endif
}
#define LEVEL_LOAD_PRODUCED(pointer) flow_load_past_l1(pointer)

#include "level_layout.h"

namespace {
// What the waits of a block read (one tile, one sweep): set by thread 0 before the sweeps.
__shared__ const int *flow_wait_flags; // backward: children's flags; forward: parents'
__shared__ const int *flow_parent;     // forward: parent of each of the tile's level's systems
__shared__ int flow_step;
__host__ __device__ inline void flow_wait_for_inputs(const level_block_view &v, int s);
__host__ __device__ inline void flow_wait_for_inputs(const level_block_view *v, int s) {
  flow_wait_for_inputs(*v, s);
}
} // namespace
// The sweeps' own functions call it with their v and s in scope.
#define LEVEL_AFTER_FIRST_LOADS() flow_wait_for_inputs(v, s)

#include "hines_level_kernels.h"
#include "level_flow.h"
#include "level_warps_cuda.cuh"

namespace {

using warp_sweeps::backward_warp_system;
using warp_sweeps::forward_warp_system;

// Register bounds: with channels the level kernels' 80 (6 blocks of 128 an SM); passive 128 (4
// blocks; unbounded the flow kernel takes 138, 3 blocks).
#ifndef FLOW_CHANNELS_MAX_REGISTERS
#define FLOW_CHANNELS_MAX_REGISTERS 80
#endif
#ifndef FLOW_PASSIVE_MAX_REGISTERS
#define FLOW_PASSIVE_MAX_REGISTERS 128
#endif
#define FLOW_BOUNDS                                                                                \
  __maxnreg__(kChannels ? FLOW_CHANNELS_MAX_REGISTERS : FLOW_PASSIVE_MAX_REGISTERS)

// Which tile a block takes. FLOW_TICKETS 1: the next from a counter (an atomic per block: every
// tile a block holds was handed out after everything it waits for, whatever order the hardware
// starts blocks in). 0: the block's own index, relying on blocks starting in index order.
#ifndef FLOW_TICKETS
#define FLOW_TICKETS 1
#endif

// FLOW_ACQUIRE 1: poll with acquire loads instead (the memory model's own way; measured against
// the relaxed polls in BENCHMARKS.md).
#ifndef FLOW_ACQUIRE
#define FLOW_ACQUIRE 0
#endif
__device__ inline int flag_load(const int *flag) {
  int value;
#if FLOW_ACQUIRE
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(value) : "l"(flag) : "memory");
#else
  asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(value) : "l"(flag) : "memory");
#endif
  return value;
}

__device__ inline void flag_release(int *flag, int value) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}

// Until the flag holds this step's number; short sleeps so that a waiting thread leaves the SM's
// issue slots to the sweeps it waits for.
__device__ inline void flag_wait(const int *flag, int step) {
  unsigned pause = 32;
  while (flag_load(flag) != step) {
    __nanosleep(pause);
    if (pause < 256)
      pause *= 2;
  }
}

// (host and device only because the sweeps are: nothing to wait for on a host)
__host__ __device__ inline void flow_wait_for_inputs(const level_block_view &v, int s) {
#ifdef __CUDA_ARCH__
  if (s < 0)
    return;
  if (!flow_parent) {
    for (int c = v.child_first[s]; c < v.child_first[s + 1]; c++)
      flag_wait(&flow_wait_flags[v.child[c]], flow_step);
  } else if (flow_parent[s] >= 0) { // a root's backward sweep ended with the previous launch
    flag_wait(&flow_wait_flags[flow_parent[s]], flow_step);
  }
#else
  (void)v, (void)s;
#endif
}

struct flow_arguments {
  const int *part_ints, *schedule;
  int *flags; // [systems] backward done, then [systems] forward done
  unsigned *tickets;
  int step, systems, backward_tiles, tiles_at; // tiles_at: the records' offset in the schedule
  const double *constants;
  double *voltage, *factor, *contribution, *gates;
};

// The tile this block sweeps (the first of the sweep's tiles: first) and the block's waits.
__device__ inline const int *flow_take_tile(const flow_arguments &a, bool backward) {
  __shared__ unsigned shared_tile;
  if (threadIdx.x == 0) {
#if FLOW_TICKETS
    unsigned *counter = a.tickets + 2 * !backward;
    const unsigned t = atomicAdd(&counter[a.step & 1], 1u);
    if (t == 0) // the other counter is the next step's; the previous launch has ended
      counter[(a.step + 1) & 1] = 0;
#else
    const unsigned t = blockIdx.x;
#endif
    shared_tile = t + (backward ? 0 : a.backward_tiles);
    const int *record = a.schedule + a.tiles_at + FLOW_TILE_INTS * (size_t)shared_tile;
    flow_step = a.step;
    flow_wait_flags = a.flags + (backward ? 0 : a.systems);
    flow_parent =
        backward ? nullptr : a.schedule + a.tiles_at - a.systems + record[FLOW_TILE_SYSTEM_OFFSET];
  }
  __syncthreads();
  return a.schedule + a.tiles_at + FLOW_TILE_INTS * (size_t)shared_tile;
}

// One backward tile (record): the systems of its level block that this block's threads sweep,
// kLanes lanes a warp-swept system.
template <bool kChannels, int kLanes>
__device__ inline void flow_backward_tile(const flow_arguments &a, const level_step_arguments &args,
                                          const int *record, const level_block_view &v) {
  int by_warp;
  const int s = flow_tile_system(&v, record[FLOW_TILE_INDEX], threadIdx.x, &by_warp);
  const size_t e = (size_t)record[FLOW_TILE_ELEMENT_OFFSET];
  const int first_system = record[FLOW_TILE_SYSTEM_OFFSET];
  double *gates = kChannels ? a.gates + (size_t)args.channels.n_gates * e : nullptr;
  double *contribution = a.contribution + 2 * (size_t)first_system;
  if (by_warp) {
    backward_warp_system<kLanes>(v, s, a.constants, args, a.voltage + e, a.factor + e, contribution,
                                 a.contribution, gates);
    __threadfence(); // every lane's results before the flag
    __syncwarp();
    if ((threadIdx.x & (kLanes - 1)) == 0 && s >= 0)
      flag_release(&a.flags[first_system + s], a.step);
  } else if (s >= 0) {
    level_backward_system_in_groups(&v, s, a.constants, &args, a.voltage + e, a.factor + e,
                                    contribution, a.contribution, gates, 0,
                                    kChannels ? LEVEL_CHANNELS_PREFETCH : LEVEL_PREFETCH, 0);
    flag_release(&a.flags[first_system + s], a.step);
  }
}

template <int kLanes>
__device__ inline void flow_forward_tile(const flow_arguments &a, const int *record,
                                         const level_block_view &v) {
  int by_warp;
  const int s = flow_tile_system(&v, record[FLOW_TILE_INDEX], threadIdx.x, &by_warp);
  const size_t e = (size_t)record[FLOW_TILE_ELEMENT_OFFSET];
  int *done = a.flags + a.systems + record[FLOW_TILE_SYSTEM_OFFSET];
  if (by_warp) {
    forward_warp_system<kLanes>(v, s, a.voltage + e, a.factor + e, a.voltage);
    __threadfence();
    __syncwarp();
    if ((threadIdx.x & (kLanes - 1)) == 0 && s >= 0)
      flag_release(&done[s], a.step);
  } else if (s >= 0) {
    level_forward_system(&v, s, a.voltage + e, a.factor + e, a.voltage);
    flag_release(&done[s], a.step);
  }
}

template <bool kChannels>
__global__ void __launch_bounds__(FLOW_THREADS) FLOW_BOUNDS
    flow_backward_kernel(flow_arguments a, level_step_arguments args) {
  const int *record = flow_take_tile(a, true);
  const level_block_view v = flow_tile_block(a.part_ints, record);
  switch (v.warp_systems > 0 ? v.warp_lanes : 32) {
  case 8:
    flow_backward_tile<kChannels, 8>(a, args, record, v);
    break;
  case 16:
    flow_backward_tile<kChannels, 16>(a, args, record, v);
    break;
  default:
    flow_backward_tile<kChannels, 32>(a, args, record, v);
  }
}

__global__ void __launch_bounds__(FLOW_THREADS) flow_forward_kernel(flow_arguments a) {
  const int *record = flow_take_tile(a, false);
  const level_block_view v = flow_tile_block(a.part_ints, record);
  switch (v.warp_systems > 0 ? v.warp_lanes : 32) {
  case 8:
    flow_forward_tile<8>(a, record, v);
    break;
  case 16:
    flow_forward_tile<16>(a, record, v);
    break;
  default:
    flow_forward_tile<32>(a, record, v);
  }
}

} // namespace

extern "C" int level_flow_cuda(const int *part_ints, const int *schedule, const int *host_schedule,
                               int *flags, unsigned *tickets, int step, const double *constants,
                               const level_step_arguments *args, double *voltage, double *factor,
                               double *contribution, double *gates, void *stream) {
  const flow_schedule_view f = flow_schedule_describe(host_schedule);
  if (f.tiles == 0)
    return 0;
  flow_arguments a;
  a.part_ints = part_ints;
  a.schedule = schedule;
  a.flags = flags;
  a.tickets = tickets;
  a.step = step;
  a.systems = f.systems;
  a.backward_tiles = f.backward_tiles;
  a.tiles_at = (int)(f.tile - host_schedule);
  a.constants = constants;
  a.voltage = voltage;
  a.factor = factor;
  a.contribution = contribution;
  a.gates = gates;
  cudaStream_t s = (cudaStream_t)stream;
  const int backward_tiles = f.backward_tiles, forward_tiles = f.tiles - f.backward_tiles;
  if (gates)
    flow_backward_kernel<true><<<backward_tiles, FLOW_THREADS, 0, s>>>(a, *args);
  else
    flow_backward_kernel<false><<<backward_tiles, FLOW_THREADS, 0, s>>>(a, *args);
  flow_forward_kernel<<<forward_tiles, FLOW_THREADS, 0, s>>>(a);
  return (int)cudaGetLastError();
}
