// What a level's elimination chain costs on a GPU: 72 dependent "levels" (kernels replayed as one
// CUDA graph), each sweeping N systems of L elements with one thread a system, elements
// interleaved (element j of system s at j * N + s), as the level solver's forward sweep does:
//   divide:     v = (r[j] - b[j] * v) / d[j]   (the solver's arithmetic: a chain of divisions)
//   reciprocal: v = (r[j] - b[j] * v) * q[j]   (q = 1 / d stored beforehand: one multiply)
//   loads:      w = (r[j] - b[j] * p[j]) / d[j] (the same loads and divisions, no chain)
//   backward:   e = d[j] - a[j] * b[j] / e     (the backward sweep's pivot chain)
// Prints CSV: systems,elements,variant,us_per_level (median of 7 batches of 50 graph launches).
// Build: nvcc -O3 -arch=sm_90 --fmad=false -o level_chain_cost level_chain_cost.cu (hinestask's
// CUDA flags: --fmad=false keeps GPU and CPU arithmetic alike; without it, FMAs contract)
// A measurement for planning (issues 15 and 19), not a part of hinestask.
#include "bench_cuda.h"

enum variant { DIVIDE, RECIPROCAL, LOADS, BACKWARD, VARIANTS };
static const char *variant_names[] = {"divide", "reciprocal", "loads", "backward"};

// One level: system s starts from the previous level's result for s (its "parent voltage").
__global__ void level(int variant, int n, int length, const double *a, const double *b,
                      const double *d, const double *q, const double *r, const double *in,
                      double *out) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n)
    return;
  double v = in[s], sum = 0;
  for (int j = 0; j < length; j++) {
    const size_t at = (size_t)j * n + s;
    switch (variant) {
    case DIVIDE:
      v = (r[at] - b[at] * v) / d[at];
      break;
    case RECIPROCAL:
      v = (r[at] - b[at] * v) * q[at];
      break;
    case LOADS:
      sum += (r[at] - b[at] * a[at]) / d[at];
      break;
    default:
      v = d[at] - a[at] * b[at] / v;
      break;
    }
  }
  out[s] = v + 1e-300 * sum;
}

int main() {
  const int levels = 72, threads = 128, graphs = 50, batches = 7;
  const bench_timer timer = bench_timer_make();
  cudaStream_t stream = timer.stream;
  std::printf("systems,elements,variant,us_per_level\n");
  const int systems[] = {1024, 16695, 131072};
  const int lengths[] = {1, 16, 64};
  for (int n : systems)
    for (int length : lengths) {
      const size_t count = (size_t)n * length;
      std::vector<double> host(count);
      double *arrays[5], *x, *y;
      for (int k = 0; k < 5; k++) {
        for (size_t i = 0; i < count; i++) // a, b small; d, 1/d near 2 or 1/2; r near 1
          host[i] = k < 2 ? 0.1 + 1e-3 * (i % 7) : k == 2 ? 2 + 1e-3 * (i % 5) : k == 3 ? 0.5 : 1;
        CHECK(cudaMalloc(&arrays[k], count * sizeof(double)));
        CHECK(cudaMemcpy(arrays[k], host.data(), count * sizeof(double), cudaMemcpyHostToDevice));
      }
      CHECK(cudaMalloc(&x, (size_t)n * sizeof(double)));
      CHECK(cudaMalloc(&y, (size_t)n * sizeof(double)));
      std::vector<double> ones(n, 1.0);
      CHECK(cudaMemcpy(x, ones.data(), (size_t)n * sizeof(double), cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(y, ones.data(), (size_t)n * sizeof(double), cudaMemcpyHostToDevice));
      const int blocks = (n + threads - 1) / threads;
      for (int variant = 0; variant < VARIANTS; variant++) {
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        for (int l = 0; l < levels; l++)
          level<<<blocks, threads, 0, stream>>>(variant, n, length, arrays[0], arrays[1], arrays[2],
                                                arrays[3], arrays[4], l % 2 ? y : x, l % 2 ? x : y);
        CHECK(cudaStreamEndCapture(stream, &graph));
        CHECK(cudaGraphInstantiate(&exec, graph, 0));
        const double us = median_us(timer, batches, graphs,
                                    [&](cudaStream_t on) { CHECK(cudaGraphLaunch(exec, on)); });
        std::printf("%d,%d,%s,%.3f\n", n, length, variant_names[variant], us / levels);
        CHECK(cudaGraphExecDestroy(exec));
        CHECK(cudaGraphDestroy(graph));
      }
      for (int k = 0; k < 5; k++)
        CHECK(cudaFree(arrays[k]));
      CHECK(cudaFree(x));
      CHECK(cudaFree(y));
    }
  return 0;
}
