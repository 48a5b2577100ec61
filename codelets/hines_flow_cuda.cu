// CUDA side of the flow kernel (codelets/level_flow.h): two launches per part and step, the
// backward sweep then the forward sweep (each with the registers its own code needs: one kernel
// for both held the forward sweep to the backward sweep's 128 registers and 4 blocks an SM).
// Each block takes a tile; its first warp waits for the tiles the tile depends on while every
// thread issues its system's first loads, then waits (in LEVEL_AFTER_FIRST_LOADS, where a level
// kernel launched early waits for the previous level) for the first warp's word; at the end the
// block publishes its tile's flag. One waiting warp a block, not a thread a system: with a
// thread polling each system's children, the polls of the waiting threads (random trees:
// children spread over all of the next level's tiles) took the step from 3.3 to 4.8 ms (H100).
//
// Memory ordering. A tile's threads store their results, meet at a barrier, and one thread
// fences and stores the flag. The waiting warp polls flags with strong (L1-bypassing) relaxed
// loads; the results are then read past L1 (__ldcg: LEVEL_LOAD_PRODUCED, the children's
// contributions and the parent's voltage), issued only once the flag has been seen, so they
// reach L2 after the results did. Acquire polls would say the same in the memory model's terms
// but invalidate the SM's L1 (CCTL in the SASS), where the read-only data (constants, block
// descriptions) live: 3.5 % slower (FLOW_ACQUIRE, BENCHMARKS.md). What other blocks write during
// the launch is never read through a const restrict pointer (the non-coherent read-only path);
// the forward sweep's own factors come from the backward launch.
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
// Set by the block's first warp once every tile its tile depends on is done.
__shared__ int flow_inputs_ready;
__host__ __device__ inline void flow_wait_for_inputs(int s) {
#ifdef __CUDA_ARCH__
  if (s >= 0)
    while (!*(volatile int *)&flow_inputs_ready)
      __nanosleep(20);
#else
  (void)s; // (host and device only because the sweeps are: nothing to wait for on a host)
#endif
}
} // namespace
// The sweeps' own functions call it with their v and s in scope.
#define LEVEL_AFTER_FIRST_LOADS() flow_wait_for_inputs(s)

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
__host__ struct flow_arguments {
  const int *part_ints, *schedule;
  int *flags; // [tiles]: the step each tile was last done in
  unsigned *tickets;
  // the records' and the dependency lists' offsets in the schedule
  int step, tiles, backward_tiles, tiles_at, dependencies_at;
  const double *constants;
  double *voltage, *factor, *contribution, *gates;
};

// The first warp's wait.
__device__ inline void flow_wait_for_dependencies(const flow_arguments &a, int t) {
  const int *first = a.schedule + a.dependencies_at + t;
  for (int d = first[0] + threadIdx.x; d < first[1]; d += 32)
    flag_wait(&a.flags[a.schedule[a.dependencies_at + a.tiles + 1 + d]], a.step);
  __syncwarp();
  if (threadIdx.x == 0)
    *(volatile int *)&flow_inputs_ready = 1;
}

// The tile this block sweeps; its first warp then waits for the tiles it depends on (the other
// warps go on to their first loads) and says so in flow_inputs_ready.
__device__ inline int flow_take_tile(const flow_arguments &a, bool backward) {
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
    flow_inputs_ready = 0;
  }
  __syncthreads();
  const int t = (int)shared_tile;
  if (threadIdx.x < 32)
    flow_wait_for_dependencies(a, t);
  return t;
}

// After the block's sweeps: its tile's flag, once every thread's results are stored.
__device__ inline void flow_tile_done(const flow_arguments &a, int t) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    flag_release(&a.flags[t], a.step);
  }
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
  } else if (s >= 0) {
    level_backward_system_in_groups(&v, s, a.constants, &args, a.voltage + e, a.factor + e,
                                    contribution, a.contribution, gates, 0,
                                    kChannels ? LEVEL_CHANNELS_PREFETCH : LEVEL_PREFETCH);
  }
}

template <int kLanes>
__device__ inline void flow_forward_tile(const flow_arguments &a, const int *record,
                                         const level_block_view &v) {
  int by_warp;
  const int s = flow_tile_system(&v, record[FLOW_TILE_INDEX], threadIdx.x, &by_warp);
  const size_t e = (size_t)record[FLOW_TILE_ELEMENT_OFFSET];
  if (by_warp) {
    forward_warp_system<kLanes>(v, s, a.voltage + e, a.factor + e, a.voltage);
  } else if (s >= 0) {
    level_forward_system(&v, s, a.voltage + e, a.factor + e, a.voltage);
  }
}

template <bool kChannels>
__global__ void __launch_bounds__(FLOW_THREADS) FLOW_BOUNDS
    flow_backward_kernel(flow_arguments a, level_step_arguments args) {
  const int t = flow_take_tile(a, true);
  const int *record = a.schedule + a.tiles_at + FLOW_TILE_INTS * (size_t)t;
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
  flow_tile_done(a, t);
}

// 96 registers, the level kernels' forward sweep's (5 blocks an SM).
__global__ void __maxnreg__(96) flow_forward_kernel(flow_arguments a) {
  const int t = flow_take_tile(a, false);
  const int *record = a.schedule + a.tiles_at + FLOW_TILE_INTS * (size_t)t;
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
  flow_tile_done(a, t);
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
  a.tiles = f.tiles;
  a.backward_tiles = f.backward_tiles;
  a.tiles_at = (int)(f.tile - host_schedule);
  a.dependencies_at = (int)(f.dependency_first - host_schedule);
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
