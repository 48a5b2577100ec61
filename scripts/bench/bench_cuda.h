// What the standalone CUDA planning benchmarks here share: a checked CUDA call and a median.
#ifndef HINES_BENCH_CUDA_H
#define HINES_BENCH_CUDA_H

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t status_ = (call);                                                                  \
    if (status_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(status_));        \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

static inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A stream and two events to time what is launched on it.
struct bench_timer {
  cudaStream_t stream;
  cudaEvent_t start, stop;
};

static inline bench_timer bench_timer_make() {
  bench_timer t;
  CHECK(cudaStreamCreateWithFlags(&t.stream, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&t.start));
  CHECK(cudaEventCreate(&t.stop));
  return t;
}

// Median over `batches` batches (after one warm-up batch) of the microseconds one call of
// launch(t.stream) takes, each batch `repeats` calls back to back.
template <class Launch>
double median_us(const bench_timer &t, int batches, int repeats, Launch launch) {
  std::vector<double> us;
  for (int batch = -1; batch < batches; batch++) {
    CHECK(cudaEventRecord(t.start, t.stream));
    for (int r = 0; r < repeats; r++)
      launch(t.stream);
    CHECK(cudaEventRecord(t.stop, t.stream));
    CHECK(cudaEventSynchronize(t.stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, t.start, t.stop));
    if (batch >= 0)
      us.push_back(1e3 * ms / repeats);
  }
  return median(us);
}

#endif
