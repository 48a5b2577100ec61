// CUDA kernels of the mono-morphology solver: one thread per neuron (cuHinesBatch). Every thread
// walks the same tree, so the topology and coefficient reads are warp-wide broadcasts and only
// the per-neuron values differ; with interleaved or block storage consecutive threads touch
// consecutive addresses and the accesses coalesce.
#include <cuda_runtime.h>

#include "hines_mono_kernels.h"

namespace {

template <int Layout>
__device__ __forceinline__ size_t neuron_base(int k, size_t ld, int block_size) {
  if (Layout == BATCH_LAYOUT_FLAT)
    return (size_t)k * ld;
  if (Layout == BATCH_LAYOUT_INTERLEAVED)
    return (size_t)k;
  return (size_t)(k / block_size) * ld + (size_t)(k % block_size);
}

template <int Layout> __device__ __forceinline__ size_t neuron_stride(size_t ld, int block_size) {
  if (Layout == BATCH_LAYOUT_FLAT)
    return 1;
  if (Layout == BATCH_LAYOUT_INTERLEAVED)
    return ld;
  return (size_t)block_size;
}

template <int Layout>
__global__ void
solve_kernel(int n, int n_neurons, size_t ld, int block_size, const int *__restrict__ topology,
             const double *__restrict__ coefficients, double *diagonal, double *rhs) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n_neurons)
    return;
  size_t base = neuron_base<Layout>(k, ld, block_size);
  hines_solve_one(n, topology, coefficients + COEF_UPPER * (size_t)n,
                  coefficients + COEF_LOWER * (size_t)n, diagonal + base, rhs + base,
                  neuron_stride<Layout>(ld, block_size));
}

// Block-Shared: the block's rhs lives in shared memory during the solve (loaded and stored
// coalesced); the diagonal stays in global memory.
__global__ void solve_kernel_shared(int n, int n_neurons, size_t ld,
                                    const int *__restrict__ topology,
                                    const double *__restrict__ coefficients, double *diagonal,
                                    double *rhs) {
  extern __shared__ double block_rhs[];
  const int block_size = blockDim.x, lane = threadIdx.x;
  const size_t block_base = (size_t)blockIdx.x * ld;
  const size_t values = (size_t)n * block_size;
  for (size_t j = lane; j < values; j += block_size)
    block_rhs[j] = rhs[block_base + j];
  __syncthreads();
  int k = blockIdx.x * block_size + lane;
  if (k < n_neurons)
    hines_solve_one(n, topology, coefficients + COEF_UPPER * (size_t)n,
                    coefficients + COEF_LOWER * (size_t)n, diagonal + block_base + lane,
                    block_rhs + lane, (size_t)block_size);
  __syncthreads();
  for (size_t j = lane; j < values; j += block_size)
    rhs[block_base + j] = block_rhs[j];
}

// The thread bodies, hines_solve_one and hines_step_one, are shared with the CPU tests
// (hines_mono_kernels.h).

// Own: 0 without a parameter sweep (today's kernel: the batch's parameters, from the kernel's
// arguments), 1 with a sweep of channel or stimulus values (the thread loads its neuron's from
// the chunk's parameter columns, one coalesced load each), 2 with membrane values too (the rows
// from the neuron's membrane factors, codelets/neuron_parameters.h); plus kHhOnly where the run's
// channels are hh alone and the sweep's channel columns hh's classic four, so that the sweep's
// kernel compiles hh's code only. A template argument, so that the kernel without a sweep is the
// same code as before sweeps existed. With a third mechanism in the table the generic code of
// one sweep kernel for every set spilled (about 240 bytes a thread under the 64-register
// bound): a sweep of gnabar, gkbar and stim_amp with hh alone cost 4.0 % over the run without
// it (0.9 % before; H100, 256,000 medium-high); hh's code only, but all six of its numbers per
// neuron, 2.8 %.
constexpr int kOwnMembrane = 2, kHhOnly = 4;
template <int Own> struct neuron_parameters_of {
  static constexpr int hh_only = (Own & kHhOnly) != 0;
  neuron_own own;
  __device__ __forceinline__ neuron_parameters_of(const step_arguments &args,
                                                  const neuron_sweep &sweep, int k) {
    if (Own)
      neuron_own_load(&sweep.columns, sweep.values + k, sweep.ld, &args.channels, &args.stimulus,
                      &own, hh_only ? NEURON_OWN_CLASSIC_HH : NEURON_OWN_ANY);
  }
  __device__ __forceinline__ const channel_set *channels(const step_arguments &args) const {
    return Own ? &own.channels : &args.channels;
  }
  __device__ __forceinline__ const stimulus *stim(const step_arguments &args) const {
    return Own ? &own.stimulus : &args.stimulus;
  }
  __device__ __forceinline__ const membrane_scales *membrane() const {
    return (Own & kOwnMembrane) ? &own.membrane : nullptr;
  }
};

// At most 64 registers a thread (65,536 / (512 x 2)), for any block size up to 512: at 66 (what
// nvcc chose once the kernel had spike and fma code, 64 before) an SM holds 7 blocks of 128
// instead of 8, and one task of 256,000 medium-high neurons (2,000 blocks, one long sweep per
// thread) took 3 waves instead of 2: 1.536 ms per step launched directly on the H200, against
// 1.238 when the same kernel fitted 64.
template <int Layout, int Own>
__global__ void __launch_bounds__(512, 2)
    step_kernel(step_arguments args, const int *__restrict__ topology,
                const double *__restrict__ coefficients, double *voltage, double *work,
                double *gates, const neuron_sweep sweep) {
  const chunk_geometry &g = args.geometry;
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= g.n_neurons)
    return;
  size_t base = neuron_base<Layout>(k, g.ld, g.block_size);
  size_t stride = neuron_stride<Layout>(g.ld, g.block_size);
  const neuron_parameters_of<Own> p(args, sweep, k);
  double injected = stimulus_current(p.stim(args), args.first_neuron + k, args.time_ms);
  const chunk_geometry &gg = args.gates_geometry;
  hines_step_one(g.n_compartments, topology, coefficients, voltage + base, stride, work + base,
                 stride, injected, args.stimulus.compartment, &args, p.channels(args), p.membrane(),
                 gates ? gates + neuron_base<Layout>(k, gg.ld, gg.block_size) : nullptr,
                 neuron_stride<Layout>(gg.ld, gg.block_size), p.hh_only, 1);
}

template <int Own>
__global__ void step_kernel_shared(step_arguments args, const int *__restrict__ topology,
                                   const double *__restrict__ coefficients, double *voltage,
                                   double *work, double *gates, const neuron_sweep sweep) {
  extern __shared__ double block_voltage[];
  const chunk_geometry &g = args.geometry;
  const int block_size = blockDim.x, lane = threadIdx.x, n = g.n_compartments;
  const size_t block_base = (size_t)blockIdx.x * g.ld;
  const size_t values = (size_t)n * block_size;
  for (size_t j = lane; j < values; j += block_size)
    block_voltage[j] = voltage[block_base + j];
  __syncthreads();
  int k = blockIdx.x * block_size + lane;
  if (k < g.n_neurons) {
    const neuron_parameters_of<Own> p(args, sweep, k);
    double injected = stimulus_current(p.stim(args), args.first_neuron + k, args.time_ms);
    const chunk_geometry &gg = args.gates_geometry;
    hines_step_one(n, topology, coefficients, block_voltage + lane, (size_t)block_size,
                   work + block_base + lane, (size_t)block_size, injected,
                   args.stimulus.compartment, &args, p.channels(args), p.membrane(),
                   gates ? gates + neuron_base<BATCH_LAYOUT_BLOCK>(k, gg.ld, gg.block_size)
                         : nullptr,
                   (size_t)block_size, p.hh_only, 0);
  }
  __syncthreads();
  for (size_t j = lane; j < values; j += block_size)
    voltage[block_base + j] = block_voltage[j];
}

// Each thread walks its own neuron's tree: the topology and coefficient reads are no longer
// warp-wide broadcasts, which is what the papers' Fig. 6 measures.
__global__ void neuron_step_kernel(step_arguments args, const int *__restrict__ neurons,
                                   const int *__restrict__ topology,
                                   const double *__restrict__ coefficients, double *voltage,
                                   double *work, int count) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count)
    return;
  const int *entry = neurons + 1 + 3 * ((args.first_neuron + k) % neurons[0]);
  const size_t ld = args.geometry.ld;
  double injected = stimulus_current(&args.stimulus, args.first_neuron + k, args.time_ms);
  hines_step_one(entry[0], topology + entry[1], coefficients + entry[2], voltage + k, ld, work + k,
                 ld, injected, args.stimulus.compartment, &args, &args.channels, nullptr, nullptr,
                 0, 0, 1);
}

constexpr int kThreads = 128;

int blocks_for(int n_neurons, int threads) {
  return (n_neurons + threads - 1) / threads;
}

int prepare_shared(const void *kernel, size_t bytes) {
  cudaError_t status =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
  return (int)status;
}

} // namespace

extern "C" int hines_shared_memory_per_block(int device) {
  int optin = 0;
  if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) !=
      cudaSuccess)
    return 0;
  return optin;
}

extern "C" int hines_solve_cuda(const int *topology, const double *coefficients,
                                const chunk_geometry *g, double *diagonal, double *rhs,
                                void *stream_ptr) {
  cudaStream_t stream = (cudaStream_t)stream_ptr;
  const int n = g->n_compartments, count = g->n_neurons;
  switch (g->layout) {
  case BATCH_LAYOUT_FLAT:
    solve_kernel<BATCH_LAYOUT_FLAT><<<blocks_for(count, kThreads), kThreads, 0, stream>>>(
        n, count, g->ld, g->block_size, topology, coefficients, diagonal, rhs);
    break;
  case BATCH_LAYOUT_INTERLEAVED:
    solve_kernel<BATCH_LAYOUT_INTERLEAVED><<<blocks_for(count, kThreads), kThreads, 0, stream>>>(
        n, count, g->ld, g->block_size, topology, coefficients, diagonal, rhs);
    break;
  case BATCH_LAYOUT_BLOCK:
    solve_kernel<BATCH_LAYOUT_BLOCK>
        <<<blocks_for(count, g->block_size), g->block_size, 0, stream>>>(
            n, count, g->ld, g->block_size, topology, coefficients, diagonal, rhs);
    break;
  default: {
    size_t bytes = sizeof(double) * (size_t)n * g->block_size;
    int status = prepare_shared((const void *)solve_kernel_shared, bytes);
    if (status)
      return status;
    solve_kernel_shared<<<blocks_for(count, g->block_size), g->block_size, bytes, stream>>>(
        n, count, g->ld, topology, coefficients, diagonal, rhs);
  }
  }
  return (int)cudaGetLastError();
}

namespace {

template <int Own>
int step_launch(const int *topology, const double *coefficients, const step_arguments *args,
                double *voltage, double *work, double *gates, const neuron_sweep &sweep,
                cudaStream_t stream) {
  const chunk_geometry *g = &args->geometry;
  const int count = g->n_neurons;
  switch (g->layout) {
  case BATCH_LAYOUT_FLAT:
    step_kernel<BATCH_LAYOUT_FLAT, Own><<<blocks_for(count, kThreads), kThreads, 0, stream>>>(
        *args, topology, coefficients, voltage, work, gates, sweep);
    break;
  case BATCH_LAYOUT_INTERLEAVED:
    step_kernel<BATCH_LAYOUT_INTERLEAVED, Own>
        <<<blocks_for(count, kThreads), kThreads, 0, stream>>>(*args, topology, coefficients,
                                                               voltage, work, gates, sweep);
    break;
  case BATCH_LAYOUT_BLOCK:
    step_kernel<BATCH_LAYOUT_BLOCK, Own>
        <<<blocks_for(count, g->block_size), g->block_size, 0, stream>>>(
            *args, topology, coefficients, voltage, work, gates, sweep);
    break;
  default: {
    size_t bytes = sizeof(double) * (size_t)g->n_compartments * g->block_size;
    int status = prepare_shared((const void *)step_kernel_shared<Own>, bytes);
    if (status)
      return status;
    step_kernel_shared<Own><<<blocks_for(count, g->block_size), g->block_size, bytes, stream>>>(
        *args, topology, coefficients, voltage, work, gates, sweep);
  }
  }
  return (int)cudaGetLastError();
}

} // namespace

extern "C" int hines_step_cuda(const int *topology, const double *coefficients,
                               const step_arguments *args, double *voltage, double *work,
                               double *gates, const neuron_sweep *sweep, void *stream_ptr) {
  cudaStream_t stream = (cudaStream_t)stream_ptr;
  if (!sweep)
    return step_launch<0>(topology, coefficients, args, voltage, work, gates, neuron_sweep{},
                          stream);
  const int hh_only = args->channels.hh_only && neuron_columns_classic_hh(&sweep->columns);
  if (!sweep->columns.membrane)
    return hh_only
               ? step_launch<1 | kHhOnly>(topology, coefficients, args, voltage, work, gates,
                                          *sweep, stream)
               : step_launch<1>(topology, coefficients, args, voltage, work, gates, *sweep, stream);
  return hh_only ? step_launch<kOwnMembrane | kHhOnly>(topology, coefficients, args, voltage, work,
                                                       gates, *sweep, stream)
                 : step_launch<kOwnMembrane>(topology, coefficients, args, voltage, work, gates,
                                             *sweep, stream);
}

extern "C" int hines_neuron_step_cuda(const int *neurons, const int *topology,
                                      const double *coefficients, const step_arguments *args,
                                      double *voltage, double *work, int count, void *stream_ptr) {
  if (count == 0)
    return 0;
  neuron_step_kernel<<<blocks_for(count, kThreads), kThreads, 0, (cudaStream_t)stream_ptr>>>(
      *args, neurons, topology, coefficients, voltage, work, count);
  return (int)cudaGetLastError();
}
