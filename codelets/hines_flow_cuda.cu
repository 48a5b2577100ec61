// CUDA side of the flow kernel (codelets/level_flow.h): one launch per part and step; each block
// takes a tile, waits for what each of its systems reads (flags holding the step's number),
// sweeps as the level kernels do, and publishes its systems' flags.
//
// Memory ordering. A producer stores its results, fences (__threadfence: they have reached the
// device's coherence point, L2) and then stores the flag. A consumer polls the flag with strong
// (L1-bypassing) relaxed loads, then reads the results past L1 (__ldcg: LEVEL_LOAD_PRODUCED for
// children's contributions and the parent's voltage, LEVEL_LOAD_SWEPT for the system's own
// factors in the forward sweep, which another block may have stored). Those reads are issued only
// once the flag has been seen, so they reach L2 after the results did. Acquire loads would say the
// same in the memory model's terms, but may invalidate the SM's L1, where the read-only data
// (constants, block descriptions) live (FLOW_ACQUIRE below). What other blocks write in the launch is never read through
// a const restrict pointer (the non-coherent read-only path), so the read-only data keep restrict.
#include <cuda_runtime.h>

static __host__ __device__ inline double flow_load_past_l1(const double *pointer) {
#ifdef __CUDA_ARCH__
  return __ldcg(pointer);
#else
  return *pointer;
#endif
}
#define LEVEL_LOAD_PRODUCED(pointer) flow_load_past_l1(pointer)
#define LEVEL_LOAD_SWEPT(pointer) flow_load_past_l1(pointer)

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

__device__ inline void flag_store(int *flag, int value) {
  asm volatile("st.relaxed.gpu.global.s32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
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

struct flow_arguments {
  const int *part_ints, *schedule;
  int *flags; // [systems] backward done, then [systems] forward done
  unsigned *tickets;
  int step, systems, backward_tiles, tiles_at; // tiles_at: the records' offset in the schedule
  const double *constants;
  double *voltage, *factor, *contribution, *gates;
};

// One tile (record): the systems of its level block that this block's threads sweep, kLanes
// lanes a warp-swept system.
template <bool kChannels, int kLanes>
__device__ inline void flow_tile(const flow_arguments &a, const level_step_arguments &args,
                                 const int *record, const level_block_view &v, bool backward) {
  int by_warp;
  const int s = flow_tile_system(&v, record[FLOW_TILE_INDEX], threadIdx.x, &by_warp);
  const size_t e = (size_t)record[FLOW_TILE_ELEMENT_OFFSET];
  const int first_system = record[FLOW_TILE_SYSTEM_OFFSET];
  const int me = first_system + s;
  int *backward_done = a.flags, *forward_done = a.flags + a.systems;
  double *voltage = a.voltage + e, *factor = a.factor + e;
  if (backward) {
    double *gates = kChannels ? a.gates + (size_t)args.channels.n_gates * e : nullptr;
    if (s >= 0)
      for (int c = v.child_first[s]; c < v.child_first[s + 1]; c++)
        flag_wait(&backward_done[v.child[c]], a.step);
    if (by_warp) {
      __syncwarp();
      backward_warp_system<kLanes>(v, s, a.constants, args, voltage, factor,
                                   a.contribution + 2 * (size_t)first_system, a.contribution,
                                   gates);
      __threadfence(); // every lane's factors and voltages before the flag
      __syncwarp();
      if ((threadIdx.x & (kLanes - 1)) == 0 && s >= 0)
        flag_store(&backward_done[me], a.step);
    } else if (s >= 0) {
      level_backward_system_in_groups(
          &v, s, a.constants, &args, voltage, factor, a.contribution + 2 * (size_t)first_system,
          a.contribution, gates, 0, kChannels ? LEVEL_CHANNELS_PREFETCH : LEVEL_PREFETCH);
      __threadfence();
      flag_store(&backward_done[me], a.step);
    }
  } else {
    if (s >= 0)
      flag_wait(a.schedule[a.tiles_at - a.systems + me] >= 0 // the parent, or the root's own
                    ? &forward_done[a.schedule[a.tiles_at - a.systems + me]]
                    : &backward_done[me],
                a.step);
    if (by_warp) {
      __syncwarp();
      forward_warp_system<kLanes>(v, s, voltage, factor, a.voltage);
      __threadfence();
      __syncwarp();
      if ((threadIdx.x & (kLanes - 1)) == 0 && s >= 0)
        flag_store(&forward_done[me], a.step);
    } else if (s >= 0) {
      level_forward_system(&v, s, voltage, factor, a.voltage);
      __threadfence();
      flag_store(&forward_done[me], a.step);
    }
  }
}

template <bool kChannels>
__global__ void __launch_bounds__(FLOW_THREADS) FLOW_BOUNDS
    flow_kernel(flow_arguments a, level_step_arguments args) {
#if FLOW_TICKETS
  __shared__ unsigned shared_tile;
  if (threadIdx.x == 0) {
    const unsigned t = atomicAdd(&a.tickets[a.step & 1], 1u);
    if (t == 0) // the other counter is the next step's; the previous launch has ended
      a.tickets[(a.step + 1) & 1] = 0;
    shared_tile = t;
  }
  __syncthreads();
  const unsigned t = shared_tile;
#else
  const unsigned t = blockIdx.x;
#endif
  const int *record = a.schedule + a.tiles_at + FLOW_TILE_INTS * (size_t)t;
  const level_block_view v = flow_tile_block(a.part_ints, record);
  const bool backward = (int)t < a.backward_tiles;
  switch (v.warp_systems > 0 ? v.warp_lanes : 32) {
  case 8:
    flow_tile<kChannels, 8>(a, args, record, v, backward);
    break;
  case 16:
    flow_tile<kChannels, 16>(a, args, record, v, backward);
    break;
  default:
    flow_tile<kChannels, 32>(a, args, record, v, backward);
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
  if (gates)
    flow_kernel<true><<<f.tiles, FLOW_THREADS, 0, s>>>(a, *args);
  else
    flow_kernel<false><<<f.tiles, FLOW_THREADS, 0, s>>>(a, *args);
  return (int)cudaGetLastError();
}
