// CUDA side of the flow kernel (codelets/level_flow.h): one launch per part and step; each block
// takes the next tile from a counter, waits for what each of its systems reads (flags holding
// the step's number, acquire loads), sweeps as the level kernels do, and publishes its systems'
// flags (release stores). Like the cell-block kernel it reads what other blocks of the same
// launch wrote (contributions, junction voltages, its own system's factors from the backward
// sweep), so no restrict on the sweeps' pointers (the non-coherent read-only cache is not
// coherent within a launch) and the other blocks' results are read past L1 (__ldcg).
#include <cuda_runtime.h>

#define LEVEL_RESTRICT
static __host__ __device__ inline double flow_load_produced(const double *pointer) {
#ifdef __CUDA_ARCH__
  return __ldcg(pointer);
#else
  return *pointer;
#endif
}
#define LEVEL_LOAD_PRODUCED(pointer) flow_load_produced(pointer)

#include "hines_level_kernels.h"
#include "level_flow.h"
#include "level_warps_cuda.cuh"

namespace {

using warp_sweeps::backward_warp_system;
using warp_sweeps::forward_warp_system;

// The level kernels' register bounds (hines_level_cuda.cu): with channels 80 (6 blocks an SM),
// passive unbounded.
#ifndef FLOW_CHANNELS_MAX_REGISTERS
#define FLOW_CHANNELS_MAX_REGISTERS 80
#endif
#ifndef FLOW_PASSIVE_MAX_REGISTERS
#define FLOW_PASSIVE_MAX_REGISTERS 128
#endif
#define FLOW_BOUNDS                                                                                \
  __maxnreg__(kChannels ? FLOW_CHANNELS_MAX_REGISTERS : FLOW_PASSIVE_MAX_REGISTERS)

__device__ inline int flag_load_acquire(const int *flag) {
  int value;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(value) : "l"(flag) : "memory");
  return value;
}

__device__ inline void flag_store_release(int *flag, int value) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}

// Until the flag holds this step's number; short sleeps so that a waiting thread leaves the SM's
// issue slots to the sweeps it waits for.
__device__ inline void flag_wait(const int *flag, int step) {
  unsigned pause = 32;
  while (flag_load_acquire(flag) != step) {
    __nanosleep(pause);
    if (pause < 256)
      pause *= 2;
  }
}

struct flow_arguments {
  const int *part_ints, *schedule;
  int *flags; // [systems] backward done, then [systems] forward done
  unsigned *tickets;
  int step;
  const double *constants;
  double *voltage, *factor, *contribution, *gates;
};

// One tile: the systems of level block v (elements from e, systems from first_system) that this
// block's threads sweep, kLanes lanes a warp-swept system.
template <bool kChannels, int kLanes>
__device__ inline void flow_tile(const flow_arguments &a, const level_step_arguments &args,
                                 const flow_schedule_view &f, const level_block_view &v, int level,
                                 int index, bool backward) {
  int by_warp;
  const int s = flow_tile_system(&v, index, threadIdx.x, &by_warp);
  const size_t e = (size_t)f.element_offset[level];
  const int first_system = f.system_offset[level];
  const int me = first_system + s;
  int *backward_done = a.flags, *forward_done = a.flags + f.systems;
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
        flag_store_release(&backward_done[me], a.step);
    } else if (s >= 0) {
      level_backward_system_in_groups(
          &v, s, a.constants, &args, voltage, factor, a.contribution + 2 * (size_t)first_system,
          a.contribution, gates, 0, kChannels ? LEVEL_CHANNELS_PREFETCH : LEVEL_PREFETCH);
      flag_store_release(&backward_done[me], a.step);
    }
  } else {
    if (s >= 0) {
      const int parent = f.parent[me];
      flag_wait(parent >= 0 ? &forward_done[parent] : &backward_done[me], a.step);
    }
    if (by_warp) {
      __syncwarp();
      forward_warp_system<kLanes>(v, s, voltage, factor, a.voltage);
      __threadfence();
      __syncwarp();
      if ((threadIdx.x & (kLanes - 1)) == 0 && s >= 0)
        flag_store_release(&forward_done[me], a.step);
    } else if (s >= 0) {
      level_forward_system(&v, s, voltage, factor, a.voltage);
      flag_store_release(&forward_done[me], a.step);
    }
  }
}

template <bool kChannels>
__global__ void __launch_bounds__(FLOW_THREADS) FLOW_BOUNDS
    flow_kernel(flow_arguments a, level_step_arguments args) {
  __shared__ int shared_tile[2];
  if (threadIdx.x == 0) {
    const unsigned t = atomicAdd(&a.tickets[a.step & 1], 1u);
    if (t == 0) // the other counter is the next step's; the previous launch has ended
      a.tickets[(a.step + 1) & 1] = 0;
    const int *tile = a.schedule + FLOW_HEADER_SIZE + 3 * a.schedule[FLOW_LEVELS] +
                      a.schedule[FLOW_SYSTEMS] + 2 * (size_t)t;
    shared_tile[0] = (int)t;
    shared_tile[1] = tile[1];
  }
  __syncthreads();
  const flow_schedule_view f = flow_schedule_describe(a.schedule);
  const int t = shared_tile[0], index = shared_tile[1];
  const int level = f.tile[2 * t];
  const level_block_view v = level_block_describe(a.part_ints + f.ints_offset[level]);
  const bool backward = t < f.backward_tiles;
  switch (v.warp_systems > 0 ? v.warp_lanes : 32) {
  case 8:
    flow_tile<kChannels, 8>(a, args, f, v, level, index, backward);
    break;
  case 16:
    flow_tile<kChannels, 16>(a, args, f, v, level, index, backward);
    break;
  default:
    flow_tile<kChannels, 32>(a, args, f, v, level, index, backward);
  }
}

} // namespace

extern "C" int level_flow_cuda(const int *part_ints, const int *schedule, const int *host_schedule,
                               int *flags, unsigned *tickets, int step, const double *constants,
                               const level_step_arguments *args, double *voltage, double *factor,
                               double *contribution, double *gates, void *stream) {
  const int tiles = host_schedule[FLOW_TILES];
  if (tiles == 0)
    return 0;
  const flow_arguments a = {part_ints, schedule, flags,  tickets,      step,
                            constants, voltage,  factor, contribution, gates};
  cudaStream_t s = (cudaStream_t)stream;
  if (gates)
    flow_kernel<true><<<tiles, FLOW_THREADS, 0, s>>>(a, *args);
  else
    flow_kernel<false><<<tiles, FLOW_THREADS, 0, s>>>(a, *args);
  return (int)cudaGetLastError();
}
