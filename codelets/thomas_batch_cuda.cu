// CUDA Thomas solvers for batches of tridiagonal systems, one thread per system
// (cuThomasBatch / cuThomasVBatch). The three kernels run the same per-system algorithm and
// differ only in where element j of a system lives (a "position" functor):
//   CP:   j*count + s         consecutive threads read consecutive addresses: coalesced
//   NCP:  row_offset[j] + s   coalesced too; row_offset[j] is one broadcast load per row
//   flat: s*size + j          each thread walks its own contiguous system: uncoalesced
// See thomas_batch.h for the layouts and the in-place contract (c <- c', d <- x).
#include <cuda_runtime.h>

#include "thomas_batch.h"

namespace {

constexpr int kThreadsPerBlock = 128;

struct interleaved_position {
  size_t slot, count;
  __device__ size_t operator()(int j) const {
    return (size_t)j * count + slot;
  }
};

struct ncp_position {
  size_t slot;
  const size_t *__restrict__ row_offset;
  __device__ size_t operator()(int j) const {
    return __ldg(row_offset + j) + slot;
  }
};

struct flat_position {
  size_t first;
  __device__ size_t operator()(int j) const {
    return first + (size_t)j;
  }
};

// The standard Thomas algorithm on one system of n rows. The forward sweep writes c' over c and
// d' over d and keeps the previous row's c', d' in registers; the backward sweep turns d' into x,
// keeping x[j+1] in a register. No pivoting: the systems must be diagonally dominant. The
// multiply-adds are explicit fma (fma(float, float, float) is CUDA's float overload), as in the
// CPU solvers (thomas_batch_cpu.c): the build turns contraction off (issue #18), which would
// otherwise leave these dependent chains unfused.
template <typename Real, typename Position>
__device__ __forceinline__ void thomas_solve_system(int n, Position at, const Real *__restrict__ a,
                                                    const Real *__restrict__ b,
                                                    Real *__restrict__ c, Real *__restrict__ d) {
  size_t i = at(0);
  Real m = Real(1) / b[i];
  Real c_prev = c[i] * m, d_prev = d[i] * m;
  c[i] = c_prev;
  d[i] = d_prev;
  for (int j = 1; j < n; j++) {
    i = at(j);
    const Real a_j = a[i];
    m = Real(1) / fma(-a_j, c_prev, b[i]);
    c_prev = c[i] * m;
    d_prev = fma(-a_j, d_prev, d[i]) * m;
    c[i] = c_prev;
    d[i] = d_prev;
  }
  Real x_next = d_prev; // x[n-1] = d'[n-1], already stored
  for (int j = n - 2; j >= 0; j--) {
    i = at(j);
    x_next = fma(-c[i], x_next, d[i]);
    d[i] = x_next;
  }
}

__device__ __forceinline__ int system_index() {
  return (int)(blockIdx.x * (unsigned)blockDim.x + threadIdx.x);
}

template <typename Real>
__global__ void thomas_cp_kernel(int count, int rows, const Real *__restrict__ a,
                                 const Real *__restrict__ b, Real *__restrict__ c,
                                 Real *__restrict__ d) {
  const int s = system_index();
  if (s < count) // padding rows are identity rows: every system runs all `rows` rows
    thomas_solve_system(rows, interleaved_position{(size_t)s, (size_t)count}, a, b, c, d);
}

template <typename Real>
__global__ void thomas_ncp_kernel(int count, const int *__restrict__ size,
                                  const size_t *__restrict__ row_offset, const Real *__restrict__ a,
                                  const Real *__restrict__ b, Real *__restrict__ c,
                                  Real *__restrict__ d) {
  const int s = system_index();
  if (s < count) // slots are sorted by size, so a warp's threads stop at nearly the same row
    thomas_solve_system(__ldg(size + s), ncp_position{(size_t)s, row_offset}, a, b, c, d);
}

template <typename Real>
__global__ void thomas_flat_kernel(int count, int size, const Real *__restrict__ a,
                                   const Real *__restrict__ b, Real *__restrict__ c,
                                   Real *__restrict__ d) {
  const int s = system_index();
  if (s < count)
    thomas_solve_system(size, flat_position{(size_t)s * (size_t)size}, a, b, c, d);
}

int blocks_for(int count) {
  return (count + kThreadsPerBlock - 1) / kThreadsPerBlock;
}

// Launch errors (bad configuration, no device, an earlier sticky fault) surface here; faults
// inside the kernel surface at the caller's next synchronisation.
int launched() {
  return (int)cudaGetLastError();
}

template <typename Real>
int launch_cp(int count, int rows, const Real *a, const Real *b, Real *c, Real *d, void *stream) {
  if (count < 0 || rows < 1)
    return (int)cudaErrorInvalidValue;
  if (count == 0)
    return 0;
  thomas_cp_kernel<Real>
      <<<blocks_for(count), kThreadsPerBlock, 0, (cudaStream_t)stream>>>(count, rows, a, b, c, d);
  return launched();
}

template <typename Real>
int launch_ncp(int count, const int *size, const size_t *row_offset, const Real *a, const Real *b,
               Real *c, Real *d, void *stream) {
  if (count < 0)
    return (int)cudaErrorInvalidValue;
  if (count == 0)
    return 0;
  thomas_ncp_kernel<Real><<<blocks_for(count), kThreadsPerBlock, 0, (cudaStream_t)stream>>>(
      count, size, row_offset, a, b, c, d);
  return launched();
}

template <typename Real>
int launch_flat(int count, int size, const Real *a, const Real *b, Real *c, Real *d, void *stream) {
  if (count < 0 || size < 1)
    return (int)cudaErrorInvalidValue;
  if (count == 0)
    return 0;
  thomas_flat_kernel<Real>
      <<<blocks_for(count), kThreadsPerBlock, 0, (cudaStream_t)stream>>>(count, size, a, b, c, d);
  return launched();
}

} // namespace

extern "C" {

int thomas_interleaved_cuda_cp_f64(int count, int rows, const double *a, const double *b, double *c,
                                   double *d, void *stream) {
  return launch_cp(count, rows, a, b, c, d, stream);
}

int thomas_interleaved_cuda_cp_f32(int count, int rows, const float *a, const float *b, float *c,
                                   float *d, void *stream) {
  return launch_cp(count, rows, a, b, c, d, stream);
}

int thomas_interleaved_cuda_ncp_f64(int count, const int *size, const size_t *row_offset,
                                    const double *a, const double *b, double *c, double *d,
                                    void *stream) {
  return launch_ncp(count, size, row_offset, a, b, c, d, stream);
}

int thomas_interleaved_cuda_ncp_f32(int count, const int *size, const size_t *row_offset,
                                    const float *a, const float *b, float *c, float *d,
                                    void *stream) {
  return launch_ncp(count, size, row_offset, a, b, c, d, stream);
}

int thomas_flat_cuda_f64(int count, int size, const double *a, const double *b, double *c,
                         double *d, void *stream) {
  return launch_flat(count, size, a, b, c, d, stream);
}

int thomas_flat_cuda_f32(int count, int size, const float *a, const float *b, float *c, float *d,
                         void *stream) {
  return launch_flat(count, size, a, b, c, d, stream);
}

} // extern "C"
