// What a level boundary costs on a GPU: a chain of L dependent "levels" over N rows, each level
// reading the previous level's output row by row and writing its own (the memory pattern of the
// level solver's small levels, without their arithmetic), run three ways:
//   launches: one kernel per level on one stream;
//   graph:    the same kernels captured once as a CUDA graph and replayed (what chunk_step does);
//   grid:     one cooperative kernel, levels separated by grid-wide barriers (grid.sync()).
// Prints CSV: rows,levels,variant,us_per_chain,us_per_level (median of 7 batches of 50 chains).
// Build: nvcc -O3 -arch=sm_90 -o level_boundary_cost level_boundary_cost.cu
// A measurement for planning (issues 15 and 19: the multi mix's fixed cost per step), not a
// part of hinestask.
#include "bench_cuda.h"
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// One level: row i of the output from rows i and i+1 (mod n) of the input, as a sweep reads a
// child's contribution; values stay bounded.
__device__ __forceinline__ void level_rows(const double *in, double *out, int n, int first,
                                           int stride) {
  for (int i = first; i < n; i += stride)
    out[i] = 0.5 * in[i] + 0.25 * in[i + 1 < n ? i + 1 : 0] + 1.0;
}

__global__ void one_level(const double *in, double *out, int n) {
  level_rows(in, out, n, blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x);
}

__global__ void all_levels(double *a, double *b, int n, int levels) {
  cg::grid_group grid = cg::this_grid();
  const int first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
  for (int l = 0; l < levels; l++) {
    level_rows(l % 2 ? b : a, l % 2 ? a : b, n, first, stride);
    grid.sync();
  }
}

int main(int argc, char **argv) {
  const int levels = argc > 1 ? std::atoi(argv[1]) : 72;
  const int threads = 256, chains = 50, batches = 7;
  int device = 0, sms = 0, per_sm = 0;
  CHECK(cudaSetDevice(device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, all_levels, threads, 0));
  const bench_timer timer = bench_timer_make();
  cudaStream_t stream = timer.stream;
  std::printf("rows,levels,variant,us_per_chain,us_per_level\n");
  const int sizes[] = {1024, 8192, 16695, 33390, 131072, 1048576};
  for (int n : sizes) {
    double *a, *b;
    CHECK(cudaMalloc(&a, (size_t)n * sizeof(double)));
    CHECK(cudaMalloc(&b, (size_t)n * sizeof(double)));
    CHECK(cudaMemset(a, 0, (size_t)n * sizeof(double)));
    CHECK(cudaMemset(b, 0, (size_t)n * sizeof(double)));
    const int blocks = (n + threads - 1) / threads;
    auto chain_of_launches = [&]() {
      for (int l = 0; l < levels; l++)
        one_level<<<blocks, threads, 0, stream>>>(l % 2 ? b : a, l % 2 ? a : b, n);
    };
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    chain_of_launches();
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    const int grid_blocks = std::min(blocks, per_sm * sms);
    int n_arg = n, levels_arg = levels;
    void *args[] = {&a, &b, &n_arg, &levels_arg};
    const char *names[] = {"launches", "graph", "grid"};
    for (int variant = 0; variant < 3; variant++) {
      const double us = median_us(timer, batches, chains, [&](cudaStream_t on) {
        if (variant == 0)
          chain_of_launches();
        else if (variant == 1)
          CHECK(cudaGraphLaunch(exec, on));
        else
          CHECK(cudaLaunchCooperativeKernel((void *)all_levels, grid_blocks, threads, args, 0, on));
      });
      std::printf("%d,%d,%s,%.2f,%.3f\n", n, levels, names[variant], us, us / levels);
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
  }
  return 0;
}
