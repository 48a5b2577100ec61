// What partitioned elimination would save on a level of long branches (issue 15's remaining
// lever, BENCHMARKS.md "What a level boundary costs"): a chain of 72 branch levels, each level S
// systems (branches) of L interleaved elements (element j of system s at j * S + s), the Hines
// sweeps as the level solver runs them: 72 backward kernels from the deepest level to the root,
// each folding its child level's contribution into its last element and handing its first
// element's contribution up, then 72 forward kernels from the root down, each taking its parent's
// voltage. Kernels replayed as one CUDA graph.
//   serial: one thread a branch, the solver's chains of L pivots and L forward steps.
//   partP:  P lanes of a warp a branch (P = 2, 4, 8), each owning a segment of L / P elements
//           whose first element is a separator: backward, each lane eliminates its segment's
//           interior from both ends at once (one chain of L / P - 1 steps, two streams), the lanes
//           share their separators' rows by shuffles and each lane eliminates the reduced
//           P x P tridiagonal system; forward, each lane solves the reduced system's forward
//           chain and then its interior (a chain of L / P - 1 steps). The arithmetic differs from
//           the serial chain's, so the voltages differ in the last bits (printed: the largest
//           relative difference against serial over every element of every level, same inputs).
// Prints CSV: systems,elements,chunks,variant,us_per_level,max_rel_diff (us per level: backward and
// forward kernel together, median of 7 batches of 20 graph launches).
// Build: nvcc -O3 -arch=sm_90 --fmad=false -o level_partition_cost level_partition_cost.cu
// A measurement for planning, not a part of hinestask.
#include "bench_cuda.h"

#include <cmath>

constexpr int kLevels = 72, kThreads = 128;
constexpr unsigned kAll = 0xffffffffu;

struct level_arrays {
  const double *d, *off, *r; // inputs, shared by every level: diagonal, coupling to j - 1, rhs
  double *inverse, *rhs, *spike, *x; // per level: S * L each (scratch of the sweeps, solution)
};

// Level `level`'s slice of a per-level array.
__device__ inline double *slice(double *base, int level, int systems, int length) {
  return base + (size_t)level * systems * length;
}

__global__ void serial_backward(level_arrays a, int level, int systems, int length,
                                const double *child_diagonal, const double *child_rhs,
                                double *up_diagonal, double *up_rhs) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= systems)
    return;
  double *inverse = slice(a.inverse, level, systems, length),
         *rhs = slice(a.rhs, level, systems, length);
  size_t at = (size_t)(length - 1) * systems + s;
  double pivot = a.d[at] - (child_diagonal ? child_diagonal[s] : 0.0);
  double right = a.r[at] - (child_rhs ? child_rhs[s] : 0.0);
  for (int j = length - 1; j > 0; j--) {
    const double q = 1.0 / pivot, off = a.off[at];
    inverse[at] = q;
    rhs[at] = right;
    const double factor = off * q;
    at -= systems;
    pivot = a.d[at] - factor * off;
    right = a.r[at] - factor * right;
  }
  const double q = 1.0 / pivot, off = a.off[at];
  inverse[at] = q;
  rhs[at] = right;
  up_diagonal[s] = off * off * q;
  up_rhs[s] = off * right * q;
}

__global__ void serial_forward(level_arrays a, int level, int systems, int length,
                               const double *parent_voltage, double *child_voltage) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= systems)
    return;
  const double *inverse = slice(a.inverse, level, systems, length),
               *rhs = slice(a.rhs, level, systems, length);
  double *x = slice(a.x, level, systems, length);
  size_t at = s;
  double v = (rhs[at] - a.off[at] * (parent_voltage ? parent_voltage[s] : 0.0)) * inverse[at];
  x[at] = v;
  for (int j = 1; j < length; j++) {
    at += systems;
    v = (rhs[at] - a.off[at] * v) * inverse[at];
    x[at] = v;
  }
  child_voltage[s] = v;
}

// Lane k of a branch owns rows [k m, (k + 1) m - 1]: the separator k m, then the interior
// lo = k m + 1 .. hi = (k + 1) m - 1 (m >= 2). Backward: the interior eliminated bottom-up (the
// spike to the separator below carried along) gives row lo in terms of both separators; top-down
// it gives row hi likewise; the separators' rows then form a tridiagonal system.
template <int P>
__global__ void part_backward(level_arrays a, int level, int systems, int length,
                              const double *child_diagonal, const double *child_rhs,
                              double *up_diagonal, double *up_rhs) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int s = t / P, k = t % P, m = length / P;
  const bool live = s < systems;
  double *inverse = slice(a.inverse, level, systems, length),
         *rhs = slice(a.rhs, level, systems, length),
         *spike = slice(a.spike, level, systems, length);
  const int lo = k * m + 1, hi = k * m + m - 1;
  const bool last = k == P - 1;
  double D = 1, C = 0, B = 0, R = 0, off0 = 0;
  double gB = 0, uB = 0, wB = 0;
  if (live) {
    const double child_d = last && child_diagonal ? child_diagonal[s] : 0.0;
    const double child_r = last && child_rhs ? child_rhs[s] : 0.0;
    // bottom-up stream (i) and top-down stream (i2) in one loop: independent chains
    size_t at = (size_t)hi * systems + s, at2 = (size_t)lo * systems + s;
    double pivot = a.d[at] - child_d, right = a.r[at] - child_r;
    double spike_below = last ? 0.0 : a.off[at + systems];
    double pivot2 = a.d[at2] - (lo == hi ? child_d : 0.0),
           right2 = a.r[at2] - (lo == hi ? child_r : 0.0);
    double spike_above = a.off[at2];
    for (int step = 0; step < m - 2; step++) {
      const double q = 1.0 / pivot, off = a.off[at];
      inverse[at] = q;
      rhs[at] = right;
      spike[at] = spike_below;
      const double factor = off * q;
      at -= systems;
      pivot = a.d[at] - factor * off;
      right = a.r[at] - factor * right;
      spike_below = -factor * spike_below;
      const size_t next2 = at2 + systems;
      const double off2 = a.off[next2], h = off2 / pivot2;
      const bool bottom2 = next2 == (size_t)hi * systems + s;
      pivot2 = a.d[next2] - (bottom2 ? child_d : 0.0) - h * off2;
      right2 = a.r[next2] - (bottom2 ? child_r : 0.0) - h * right2;
      spike_above = -h * spike_above;
      at2 = next2;
    }
    const double q = 1.0 / pivot; // row lo
    inverse[at] = q;
    rhs[at] = right;
    spike[at] = spike_below;
    // row hi: pivot2 x_hi + spike_above x_sep + off[hi + 1] x_next_sep = right2
    const double q2 = 1.0 / pivot2;
    gB = right2 * q2;
    uB = spike_above * q2;
    wB = last ? 0.0 : a.off[(size_t)(hi + 1) * systems + s] * q2;
    const size_t sep = (size_t)(k * m) * systems + s;
    const double off_lo = a.off[at]; // couples the separator and row lo
    D = a.d[sep] - off_lo * off_lo * q;
    C = -off_lo * spike_below * q;
    R = a.r[sep] - off_lo * right * q;
    off0 = a.off[sep];
  }
  // the previous lane's row hi couples to this separator through off[sep]
  const double gUp = __shfl_up_sync(kAll, gB, 1, P), uUp = __shfl_up_sync(kAll, uB, 1, P),
               wUp = __shfl_up_sync(kAll, wB, 1, P);
  if (k > 0) {
    D -= off0 * wUp;
    B = -off0 * uUp;
    R -= off0 * gUp;
  }
  double Dk[P], Ck[P], Bk[P], Rk[P];
#pragma unroll
  for (int kk = 0; kk < P; kk++) {
    Dk[kk] = __shfl_sync(kAll, D, kk, P);
    Ck[kk] = __shfl_sync(kAll, C, kk, P);
    Bk[kk] = __shfl_sync(kAll, B, kk, P);
    Rk[kk] = __shfl_sync(kAll, R, kk, P);
  }
  // the reduced system's backward elimination, redundantly on every lane
#pragma unroll
  for (int kk = P - 2; kk >= 0; kk--) {
    const double factor = Ck[kk] / Dk[kk + 1];
    Dk[kk] -= factor * Bk[kk + 1];
    Rk[kk] -= factor * Rk[kk + 1];
  }
  if (!live)
    return;
  double mine_d = 0, mine_r = 0;
#pragma unroll
  for (int kk = 0; kk < P; kk++)
    if (kk == k) {
      mine_d = Dk[kk];
      mine_r = Rk[kk];
    }
  const size_t sep = (size_t)(k * m) * systems + s;
  inverse[sep] = 1.0 / mine_d;
  rhs[sep] = mine_r;
  spike[sep] = B;
  if (k == 0) {
    up_diagonal[s] = off0 * off0 / Dk[0];
    up_rhs[s] = off0 * Rk[0] / Dk[0];
  }
}

template <int P>
__global__ void part_forward(level_arrays a, int level, int systems, int length,
                             const double *parent_voltage, double *child_voltage) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int s = t / P, k = t % P, m = length / P;
  const bool live = s < systems;
  const double *inverse = slice(a.inverse, level, systems, length),
               *rhs = slice(a.rhs, level, systems, length),
               *spike = slice(a.spike, level, systems, length);
  double *x = slice(a.x, level, systems, length);
  const size_t sep = (size_t)(k * m) * systems + s;
  double q = 1, right = 0, b = 0, parent = 0;
  if (live) {
    q = inverse[sep];
    right = rhs[sep];
    b = k == 0 ? a.off[sep] : spike[sep];
    parent = k == 0 && parent_voltage ? parent_voltage[s] : 0.0;
  }
  double v = 0, mine = 0, below = 0;
  parent = __shfl_sync(kAll, parent, 0, P);
#pragma unroll
  for (int kk = 0; kk < P; kk++) {
    const double qk = __shfl_sync(kAll, q, kk, P), rk = __shfl_sync(kAll, right, kk, P),
                 bk = __shfl_sync(kAll, b, kk, P);
    v = (rk - bk * (kk == 0 ? parent : v)) * qk;
    if (kk == k)
      mine = v;
    if (kk == k + 1)
      below = v;
  }
  if (!live)
    return;
  x[sep] = mine;
  double u = mine;
  size_t at = sep;
  for (int j = 1; j < m; j++) {
    at += systems;
    u = (rhs[at] - a.off[at] * u - spike[at] * below) * inverse[at];
    x[at] = u;
  }
  if (k == P - 1)
    child_voltage[s] = u;
}

// Passive (constant pivots, as the multi mixes run): only the right-hand sides chain. Every
// constant below depends on the row j alone (one branch shape shared by all systems, as a
// morphology's rows are shared by its copies); only r (per element) and the links change.
struct passive_constants {
  // serial: inverse pivot q and factor f = off q of row j
  const double *q, *f;
  // partitioned (rows of a lane's interior): bottom-up inverse pivot qb and factor fb, the spike
  // to the next separator scaled by qb (sbq), top-down factor ht; per separator row sk: cA (its
  // coupling to row lo, scaled), cB (to the previous lane's row hi, scaled), fr (the reduced
  // elimination's factor), invDp (the reduced pivot's inverse), bq (the coupling to the previous
  // separator, or to the parent for sk = 0, scaled by invDp)
  const double *qb, *fb, *sbq, *ht, *cA, *cB, *fr, *invDp, *bq;
  double up; // off_0 for the contribution to the parent: up_r = off_0 invDp_0 Rp_0
};

__device__ inline void prefetch_l2(const double *pointer) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(pointer));
}

__global__ void passive_serial_backward(const double *__restrict__ r, passive_constants c,
                                        double *__restrict__ scaled, int level, int systems,
                                        int length, const double *__restrict__ child_rhs,
                                        double *__restrict__ up_rhs) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= systems)
    return;
  double *v = scaled + (size_t)level * systems * length;
  for (int j = 0; j < length; j++)
    prefetch_l2(r + (size_t)j * systems + s);
  double rp = r[(size_t)(length - 1) * systems + s] - (child_rhs ? child_rhs[s] : 0.0);
#pragma unroll 8
  for (int j = length - 1; j > 0; j--) {
    v[(size_t)j * systems + s] = rp * c.q[j];
    rp = fma(-c.f[j], rp, r[(size_t)(j - 1) * systems + s]);
  }
  v[s] = rp * c.q[0];
  up_rhs[s] = c.f[0] * rp;
}

__global__ void passive_serial_forward(passive_constants c, double *__restrict__ scaled,
                                       double *__restrict__ solution, int level, int systems,
                                       int length, const double *__restrict__ parent_voltage,
                                       double *__restrict__ child_voltage) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= systems)
    return;
  const double *v = scaled + (size_t)level * systems * length;
  double *x = solution + (size_t)level * systems * length;
  for (int j = 0; j < length; j++)
    prefetch_l2(v + (size_t)j * systems + s);
  double u = fma(-c.f[0], parent_voltage ? parent_voltage[s] : 0.0, v[s]);
  x[s] = u;
#pragma unroll 8
  for (int j = 1; j < length; j++) {
    u = fma(-c.f[j], u, v[(size_t)j * systems + s]);
    x[(size_t)j * systems + s] = u;
  }
  child_voltage[s] = u;
}

// The reduced system of a partitioned branch, the same in both partitioned forms (every lane of
// the branch's P calls it; lane k's separator row is sk = k * segment). Backward: R, this lane's
// separator rhs once its segment's row lo is eliminated, and right2, its row hi's top-down rhs,
// which the next lane's separator takes; every lane then eliminates the reduced system and keeps
// its own separator's rhs (returned) and the first's (*first, for the parent).
template <int P>
__device__ inline double reduced_backward(const passive_constants &c, int k, int sk, int segment,
                                          double R, double right2, double *first) {
  const double previous_hi = __shfl_up_sync(kAll, right2, 1, P);
  if (k > 0)
    R = fma(-c.cB[sk], previous_hi, R);
  double Rk[P];
#pragma unroll
  for (int kk = 0; kk < P; kk++)
    Rk[kk] = __shfl_sync(kAll, R, kk, P);
#pragma unroll
  for (int kk = P - 2; kk >= 0; kk--)
    Rk[kk] = fma(-c.fr[kk * segment], Rk[kk + 1], Rk[kk]);
  double mine = 0;
#pragma unroll
  for (int kk = 0; kk < P; kk++)
    if (kk == k)
      mine = Rk[kk];
  *first = Rk[0];
  return mine;
}

// Forward: from each lane's scaled separator rhs (own) and the parent's voltage (lane 0's), every
// lane solves the reduced chain and keeps its separator's voltage and the next one's (below).
template <int P>
__device__ inline void reduced_forward(const passive_constants &c, int k, int segment, double own,
                                       double parent, double *mine, double *below) {
  double u = 0;
#pragma unroll
  for (int kk = 0; kk < P; kk++) {
    u = fma(-c.bq[kk * segment], kk == 0 ? parent : u, __shfl_sync(kAll, own, kk, P));
    if (kk == k)
      *mine = u;
    if (kk == k + 1)
      *below = u;
  }
}

template <int P>
__global__ void passive_part_backward(const double *__restrict__ r, passive_constants c,
                                      double *__restrict__ scaled, int level, int systems,
                                      int length, const double *__restrict__ child_rhs,
                                      double *__restrict__ up_rhs) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int s = t / P, k = t % P, m = length / P;
  const bool live = s < systems, last = k == P - 1;
  const int sk = k * m, lo = sk + 1, hi = sk + m - 1;
  double *v = scaled + (size_t)level * systems * length;
  double R = 0, right2 = 0;
  if (live) {
    for (int j = sk; j <= hi; j++)
      prefetch_l2(r + (size_t)j * systems + s);
    const double child = last && child_rhs ? child_rhs[s] : 0.0;
    double right = r[(size_t)hi * systems + s] - child;
    right2 = r[(size_t)lo * systems + s] - (lo == hi ? child : 0.0);
    int i2 = lo;
#pragma unroll 8
    for (int i = hi; i > lo; i--) { // two independent chains: bottom-up i, top-down i2
      v[(size_t)i * systems + s] = right * c.qb[i];
      right = fma(-c.fb[i], right, r[(size_t)(i - 1) * systems + s]);
      i2++;
      right2 = fma(-c.ht[i2], right2, r[(size_t)i2 * systems + s] - (i2 == hi ? child : 0.0));
    }
    v[(size_t)lo * systems + s] = right * c.qb[lo];
    R = fma(-c.cA[sk], right, r[(size_t)sk * systems + s]);
  }
  double first = 0;
  const double mine = reduced_backward<P>(c, k, sk, m, R, right2, &first);
  if (!live)
    return;
  v[(size_t)sk * systems + s] = mine * c.invDp[sk];
  if (k == 0)
    up_rhs[s] = c.up * c.invDp[0] * first;
}

template <int P>
__global__ void passive_part_forward(passive_constants c, double *__restrict__ scaled,
                                     double *__restrict__ solution, int level, int systems,
                                     int length, const double *__restrict__ parent_voltage,
                                     double *__restrict__ child_voltage) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int s = t / P, k = t % P, m = length / P;
  const bool live = s < systems;
  const int sk = k * m;
  const double *v = scaled + (size_t)level * systems * length;
  double *x = solution + (size_t)level * systems * length;
  double own = 0, parent = 0;
  if (live) {
    for (int j = sk; j < sk + m; j++)
      prefetch_l2(v + (size_t)j * systems + s);
    own = v[(size_t)sk * systems + s];
    parent = k == 0 && parent_voltage ? parent_voltage[s] : 0.0;
  }
  parent = __shfl_sync(kAll, parent, 0, P);
  double mine = 0, below = 0;
  reduced_forward<P>(c, k, m, own, parent, &mine, &below);
  if (!live)
    return;
  x[(size_t)sk * systems + s] = mine;
  double u = mine;
#pragma unroll 8
  for (int j = sk + 1; j < sk + m; j++) {
    u = fma(-c.fb[j], u, fma(-c.sbq[j], below, v[(size_t)j * systems + s]));
    x[(size_t)j * systems + s] = u;
  }
  if (k == P - 1)
    child_voltage[s] = u;
}

// The same two sweeps with their loads as the solver's lean kernels issue them
// (hines_level_cuda.cu, lean_backward_system): groups of kGroup elements, the next group's loads
// issued before the current group's chain (length a multiple of kGroup).
constexpr int kGroup = 8;

__global__ void lean_serial_backward(const double *__restrict__ r, passive_constants c,
                                     double *__restrict__ scaled, int level, int systems,
                                     int length, const double *__restrict__ child_rhs,
                                     double *__restrict__ up_rhs) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= systems)
    return;
  double *v = scaled + (size_t)level * systems * length;
  for (int j = 0; j < length; j++)
    prefetch_l2(r + (size_t)j * systems + s);
  double current[kGroup], next[kGroup];
#pragma unroll
  for (int b = 0; b < kGroup; b++)
    current[b] = r[(size_t)(length - 1 - b) * systems + s];
  double rp = 0;
  for (int top = length - 1; top >= 0; top -= kGroup) {
    if (top - kGroup >= 0) {
#pragma unroll
      for (int b = 0; b < kGroup; b++)
        next[b] = r[(size_t)(top - kGroup - b) * systems + s];
    }
#pragma unroll
    for (int b = 0; b < kGroup; b++) {
      const int j = top - b;
      rp = j == length - 1 ? current[b] - (child_rhs ? child_rhs[s] : 0.0)
                           : fma(-c.f[j + 1], rp, current[b]);
      v[(size_t)j * systems + s] = rp * c.q[j];
    }
#pragma unroll
    for (int b = 0; b < kGroup; b++)
      current[b] = next[b];
  }
  up_rhs[s] = c.f[0] * rp;
}

__global__ void lean_serial_forward(passive_constants c, double *__restrict__ scaled,
                                    double *__restrict__ solution, int level, int systems,
                                    int length, const double *__restrict__ parent_voltage,
                                    double *__restrict__ child_voltage) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= systems)
    return;
  const double *v = scaled + (size_t)level * systems * length;
  double *x = solution + (size_t)level * systems * length;
  for (int j = 0; j < length; j++)
    prefetch_l2(v + (size_t)j * systems + s);
  double current[kGroup], next[kGroup];
#pragma unroll
  for (int b = 0; b < kGroup; b++)
    current[b] = v[(size_t)b * systems + s];
  double u = parent_voltage ? parent_voltage[s] : 0.0;
  for (int low = 0; low < length; low += kGroup) {
    if (low + kGroup < length) {
#pragma unroll
      for (int b = 0; b < kGroup; b++)
        next[b] = v[(size_t)(low + kGroup + b) * systems + s];
    }
#pragma unroll
    for (int b = 0; b < kGroup; b++) {
      const int j = low + b;
      u = fma(-c.f[j], u, current[b]);
      x[(size_t)j * systems + s] = u;
    }
#pragma unroll
    for (int b = 0; b < kGroup; b++)
      current[b] = next[b];
  }
  child_voltage[s] = u;
}

// Partitioned with every load of a lane's segment (M rows) issued at its start: one memory round
// trip a sweep, then the chains in registers.
template <int P, int M>
__global__ void upfront_part_backward(const double *__restrict__ r, passive_constants c,
                                      double *__restrict__ scaled, int level, int systems,
                                      int length, const double *__restrict__ child_rhs,
                                      double *__restrict__ up_rhs) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int s = t / P, k = t % P, sk = k * M;
  const bool live = s < systems, last = k == P - 1;
  double *v = scaled + (size_t)level * systems * length;
  double R = 0, right2 = 0, rows[M], out[M];
  if (live) {
#pragma unroll
    for (int i = 0; i < M; i++)
      rows[i] = r[(size_t)(sk + i) * systems + s];
    if (last && child_rhs)
      rows[M - 1] -= child_rhs[s];
    double right = rows[M - 1];
    right2 = rows[1];
#pragma unroll
    for (int i = M - 1; i > 1; i--) {
      out[i] = right * c.qb[sk + i];
      right = fma(-c.fb[sk + i], right, rows[i - 1]);
      right2 = fma(-c.ht[sk + M + 1 - i], right2, rows[M + 1 - i]);
    }
    out[1] = right * c.qb[sk + 1];
    R = fma(-c.cA[sk], right, rows[0]);
  }
  double first = 0;
  const double mine = reduced_backward<P>(c, k, sk, M, R, right2, &first);
  if (!live)
    return;
  out[0] = mine * c.invDp[sk];
#pragma unroll
  for (int i = 0; i < M; i++)
    v[(size_t)(sk + i) * systems + s] = out[i];
  if (k == 0)
    up_rhs[s] = c.up * c.invDp[0] * first;
}

template <int P, int M>
__global__ void upfront_part_forward(passive_constants c, double *__restrict__ scaled,
                                     double *__restrict__ solution, int level, int systems,
                                     int length, const double *__restrict__ parent_voltage,
                                     double *__restrict__ child_voltage) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int s = t / P, k = t % P, sk = k * M;
  const bool live = s < systems;
  const double *v = scaled + (size_t)level * systems * length;
  double *x = solution + (size_t)level * systems * length;
  double rows[M], parent = 0;
  if (live) {
#pragma unroll
    for (int i = 0; i < M; i++)
      rows[i] = v[(size_t)(sk + i) * systems + s];
    parent = k == 0 && parent_voltage ? parent_voltage[s] : 0.0;
  } else {
#pragma unroll
    for (int i = 0; i < M; i++)
      rows[i] = 0;
  }
  parent = __shfl_sync(kAll, parent, 0, P);
  double mine = 0, below = 0;
  reduced_forward<P>(c, k, M, rows[0], parent, &mine, &below);
  if (!live)
    return;
  x[(size_t)sk * systems + s] = mine;
  double u = mine;
#pragma unroll
  for (int i = 1; i < M; i++) {
    u = fma(-c.fb[sk + i], u, fma(-c.sbq[sk + i], below, rows[i]));
    x[(size_t)(sk + i) * systems + s] = u;
  }
  if (k == P - 1)
    child_voltage[s] = u;
}

// The passive constants of a branch of `length` rows (d: diagonal, off: coupling to j - 1; the
// child's constant diagonal contribution already in d[length - 1]) for P lanes (P = 1: serial),
// computed with the operations the kernels' exact solve implies.
static std::vector<double> passive_constants_host(const std::vector<double> &d,
                                                  const std::vector<double> &off, int P) {
  const int L = (int)d.size(), m = L / P;
  std::vector<double> all(11 * (size_t)L, 0.0);
  double *q = &all[0], *f = &all[L], *qb = &all[2 * L], *fb = &all[3 * L], *sbq = &all[4 * L],
         *ht = &all[5 * L], *cA = &all[6 * L], *cB = &all[7 * L], *fr = &all[8 * L],
         *invDp = &all[9 * L], *bq = &all[10 * L];
  double pivot = d[L - 1]; // serial
  for (int j = L - 1; j >= 0; j--) {
    q[j] = 1.0 / pivot;
    f[j] = off[j] * q[j];
    if (j > 0)
      pivot = d[j - 1] - f[j] * off[j];
  }
  if (P == 1)
    return all;
  std::vector<double> D(P), C(P), B(P), q2(P), uB(P), wB(P);
  for (int k = 0; k < P; k++) {
    const int sk = k * m, lo = sk + 1, hi = sk + m - 1;
    const bool last = k == P - 1;
    double pb = d[hi], sb = last ? 0.0 : off[hi + 1];
    for (int i = hi; i >= lo; i--) {
      qb[i] = 1.0 / pb;
      fb[i] = off[i] * qb[i];
      sbq[i] = sb * qb[i];
      if (i > lo) {
        pb = d[i - 1] - fb[i] * off[i];
        sb = -fb[i] * sb;
      }
    }
    double pt = d[lo], sa = off[lo];
    for (int i = lo + 1; i <= hi; i++) {
      ht[i] = off[i] / pt;
      pt = d[i] - ht[i] * off[i];
      sa = -ht[i] * sa;
    }
    q2[k] = 1.0 / pt;
    uB[k] = sa * q2[k];
    wB[k] = last ? 0.0 : off[hi + 1] * q2[k];
    cA[sk] = off[lo] * qb[lo];
    D[k] = d[sk] - cA[sk] * off[lo];
    C[k] = -cA[sk] * sbq[lo] / qb[lo];
    if (k > 0) {
      D[k] -= off[sk] * wB[k - 1];
      B[k] = -off[sk] * uB[k - 1];
      cB[sk] = off[sk] * q2[k - 1];
    }
  }
  std::vector<double> Dp(D);
  for (int k = P - 2; k >= 0; k--) {
    fr[k * m] = C[k] / Dp[k + 1];
    Dp[k] = D[k] - fr[k * m] * B[k + 1];
  }
  for (int k = 0; k < P; k++) {
    invDp[k * m] = 1.0 / Dp[k];
    bq[k * m] = (k == 0 ? off[0] : B[k]) * invDp[k * m];
  }
  return all;
}

// Variants: 0 serial, 1-3 partitioned with 2, 4, 8 lanes (pivots computed every step, as with
// channels); 4 passive serial, 5-7 passive partitioned (2, 4, 8 lanes); 8 passive serial with
// the lean kernels' loads, 9-11 passive partitioned (2, 4, 8 lanes) with every load of a lane's
// segment issued at once.
static const char *variant_names[] = {"serial",        "part2",          "part4",
                                      "part8",         "passive_serial", "passive_part2",
                                      "passive_part4", "passive_part8",  "lean_serial",
                                      "upfront_part2", "upfront_part4",  "upfront_part8"};
constexpr int kVariants = 12;

static void launch_level(int variant, bool backward, const level_arrays &a,
                         const passive_constants &c, int level, int systems, int length,
                         double *const *links, cudaStream_t stream) {
  // links: contributions (diagonal, rhs) per level, then voltages per level
  double *const *cd = links, *const *cr = links + kLevels, *const *vo = links + 2 * kLevels;
  const int lanes = variant % 4 == 0 ? 1 : 1 << (variant % 4);
  static_assert(kVariants == 12, "variants 8-11 are 0-3's lanes");
  const int blocks = (systems * lanes + kThreads - 1) / kThreads;
  const double *child_d = level > 0 ? cd[level - 1] : nullptr;
  const double *child_r = level > 0 ? cr[level - 1] : nullptr;
  const double *parent = level < kLevels - 1 ? vo[level + 1] : nullptr;
  double *scaled = a.rhs, *solution = a.x;
#define ARGS_B a, level, systems, length, child_d, child_r, cd[level], cr[level]
#define ARGS_F a, level, systems, length, parent, vo[level]
#define PASSIVE_B a.r, c, scaled, level, systems, length, child_r, cr[level]
#define PASSIVE_F c, scaled, solution, level, systems, length, parent, vo[level]
#define LAUNCH(backward_kernel, forward_kernel, args_b, args_f)                                    \
  do {                                                                                             \
    if (backward)                                                                                  \
      backward_kernel<<<blocks, kThreads, 0, stream>>>(args_b);                                    \
    else                                                                                           \
      forward_kernel<<<blocks, kThreads, 0, stream>>>(args_f);                                     \
  } while (0)
  switch (variant) {
  case 0:
    LAUNCH(serial_backward, serial_forward, ARGS_B, ARGS_F);
    break;
  case 1:
    LAUNCH(part_backward<2>, part_forward<2>, ARGS_B, ARGS_F);
    break;
  case 2:
    LAUNCH(part_backward<4>, part_forward<4>, ARGS_B, ARGS_F);
    break;
  case 3:
    LAUNCH(part_backward<8>, part_forward<8>, ARGS_B, ARGS_F);
    break;
  case 4:
    LAUNCH(passive_serial_backward, passive_serial_forward, PASSIVE_B, PASSIVE_F);
    break;
  case 5:
    LAUNCH(passive_part_backward<2>, passive_part_forward<2>, PASSIVE_B, PASSIVE_F);
    break;
  case 6:
    LAUNCH(passive_part_backward<4>, passive_part_forward<4>, PASSIVE_B, PASSIVE_F);
    break;
  case 7:
    LAUNCH(passive_part_backward<8>, passive_part_forward<8>, PASSIVE_B, PASSIVE_F);
    break;
  case 8:
    LAUNCH(lean_serial_backward, lean_serial_forward, PASSIVE_B, PASSIVE_F);
    break;
  default: {
    const int segment = length / lanes;
#define UPFRONT(P, M)                                                                              \
  if (lanes == P && segment == M)                                                                  \
  LAUNCH((upfront_part_backward<P, M>), (upfront_part_forward<P, M>), PASSIVE_B, PASSIVE_F)
    UPFRONT(2, 8);
    UPFRONT(2, 16);
    UPFRONT(2, 32);
    UPFRONT(4, 4);
    UPFRONT(4, 8);
    UPFRONT(4, 16);
    UPFRONT(8, 2);
    UPFRONT(8, 4);
    UPFRONT(8, 8);
    break;
  }
  }
}

// One configuration: `chunks` independent chains of 72 levels of S systems x L elements (each
// chunk its own arrays), launched on `chunks` streams inside one graph as the solver's chunks
// share a GPU; prints one row a variant.
static void run_configuration(const bench_timer &timer, int systems, int length, int chunks,
                              const std::vector<int> &variants) {
  const int graphs = 20, batches = 7;
  cudaStream_t stream = timer.stream;
  const size_t count = (size_t)systems * length, all = count * kLevels;
  const bool active = variants.front() < 4; // active variants need the scratch of every array
  std::vector<double> host(count);
  double *d_off[2];
  for (int k = 0; k < 2; k++) { // d near 2.2, off -0.3 to -0.5 (diagonally dominant)
    for (size_t i = 0; i < count; i++)
      host[i] = k == 0 ? 2.2 + 1e-3 * (i % 5) : -0.3 - 0.02 * (i % 11);
    CHECK(cudaMalloc(&d_off[k], count * sizeof(double)));
    CHECK(cudaMemcpy(d_off[k], host.data(), count * sizeof(double), cudaMemcpyHostToDevice));
  }
  std::vector<level_arrays> arrays(chunks);
  std::vector<double *> links((size_t)chunks * 3 * kLevels);
  for (int chunk = 0; chunk < chunks; chunk++) {
    level_arrays &a = arrays[chunk];
    for (size_t i = 0; i < count; i++) // r near 1, each chunk its own
      host[i] = 1 + 1e-2 * ((i + chunk) % 7);
    double *r;
    CHECK(cudaMalloc(&r, count * sizeof(double)));
    CHECK(cudaMemcpy(r, host.data(), count * sizeof(double), cudaMemcpyHostToDevice));
    a.d = d_off[0];
    a.off = d_off[1];
    a.r = r;
    a.inverse = a.spike = nullptr;
    if (active) {
      CHECK(cudaMalloc(&a.inverse, all * sizeof(double)));
      CHECK(cudaMalloc(&a.spike, all * sizeof(double)));
    }
    CHECK(cudaMalloc(&a.rhs, all * sizeof(double)));
    CHECK(cudaMalloc(&a.x, all * sizeof(double)));
    for (int l = 0; l < 3 * kLevels; l++)
      CHECK(cudaMalloc(&links[(size_t)chunk * 3 * kLevels + l], (size_t)systems * sizeof(double)));
  }
  // the passive branch: rows shared by every system; its child's constant diagonal contribution
  // folded into the last row
  std::vector<double> d(length), off(length);
  for (int j = 0; j < length; j++) {
    d[j] = 2.2 + 1e-3 * (j % 5);
    off[j] = -0.3 - 0.02 * (j % 11);
  }
  d[length - 1] -= 0.05;
  double *tables[4] = {nullptr, nullptr, nullptr, nullptr}; // serial, P = 2, 4, 8
  for (int t = 0; t < 4; t++) {
    const std::vector<double> table = passive_constants_host(d, off, t == 0 ? 1 : 1 << t);
    CHECK(cudaMalloc(&tables[t], table.size() * sizeof(double)));
    CHECK(
        cudaMemcpy(tables[t], table.data(), table.size() * sizeof(double), cudaMemcpyHostToDevice));
  }
  std::vector<cudaStream_t> streams(chunks);
  std::vector<cudaEvent_t> done(chunks);
  cudaEvent_t fork;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  for (int chunk = 0; chunk < chunks; chunk++) {
    CHECK(cudaStreamCreateWithFlags(&streams[chunk], cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&done[chunk], cudaEventDisableTiming));
  }
  std::vector<double> reference_x(all), other_x(all);
  for (int variant : variants) {
    passive_constants c;
    double *const T = tables[variant % 4];
    const size_t L = length;
    c.q = T;
    c.f = T + L;
    c.qb = T + 2 * L;
    c.fb = T + 3 * L;
    c.sbq = T + 4 * L;
    c.ht = T + 5 * L;
    c.cA = T + 6 * L;
    c.cB = T + 7 * L;
    c.fr = T + 8 * L;
    c.invDp = T + 9 * L;
    c.bq = T + 10 * L;
    c.up = off[0];
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    CHECK(cudaEventRecord(fork, stream));
    for (int chunk = 0; chunk < chunks; chunk++) {
      cudaStream_t on = chunks == 1 ? stream : streams[chunk];
      if (chunks > 1)
        CHECK(cudaStreamWaitEvent(on, fork, 0));
      double *const *chunk_links = &links[(size_t)chunk * 3 * kLevels];
      for (int level = 0; level < kLevels; level++)
        launch_level(variant, true, arrays[chunk], c, level, systems, length, chunk_links, on);
      for (int level = kLevels - 1; level >= 0; level--)
        launch_level(variant, false, arrays[chunk], c, level, systems, length, chunk_links, on);
      if (chunks > 1) {
        CHECK(cudaEventRecord(done[chunk], on));
        CHECK(cudaStreamWaitEvent(stream, done[chunk], 0));
      }
    }
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaMemset(arrays[0].x, 0, all * sizeof(double)));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    const bool reference = variant == 0 || variant == 4; // the others: against their serial
    CHECK(cudaMemcpy((reference ? reference_x : other_x).data(), arrays[0].x, all * sizeof(double),
                     cudaMemcpyDeviceToHost));
    double worst = 0;
    for (size_t i = 0; !reference && i < all; i++)
      worst = std::max(worst, std::fabs(other_x[i] - reference_x[i]) /
                                  std::max(std::fabs(reference_x[i]), 1e-300));
    const double us = median_us(timer, batches, graphs,
                                [&](cudaStream_t on) { CHECK(cudaGraphLaunch(exec, on)); });
    std::printf("%d,%d,%d,%s,%.3f,%.3g\n", systems, length, chunks, variant_names[variant],
                us / kLevels, worst);
    std::fflush(stdout);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
  }
  for (int chunk = 0; chunk < chunks; chunk++) {
    CHECK(cudaStreamDestroy(streams[chunk]));
    CHECK(cudaEventDestroy(done[chunk]));
    level_arrays &a = arrays[chunk];
    CHECK(cudaFree(const_cast<double *>(a.r)));
    CHECK(cudaFree(a.inverse));
    CHECK(cudaFree(a.spike));
    CHECK(cudaFree(a.rhs));
    CHECK(cudaFree(a.x));
  }
  CHECK(cudaEventDestroy(fork));
  for (double *l : links)
    CHECK(cudaFree(l));
  for (double *t : tables)
    CHECK(cudaFree(t));
  for (double *p : d_off)
    CHECK(cudaFree(p));
}

// No argument: every variant, one chunk, S in 2,656 to 65,536 and L in 16 to 64. With an
// argument K: the passive variants with K chunks sharing the GPU, S a chunk 1,000 to 9,296.
int main(int argc, char **argv) {
  const bench_timer timer = bench_timer_make();
  std::printf("systems,elements,chunks,variant,us_per_level,max_rel_diff\n");
  if (argc > 1) {
    const int chunks = std::atoi(argv[1]);
    for (int systems : {1000, 2656, 4000, 9296})
      for (int length : {32, 64})
        run_configuration(timer, systems, length, chunks, {4, 8, 9, 10, 11});
    return 0;
  }
  std::vector<int> every(kVariants);
  for (int v = 0; v < kVariants; v++)
    every[v] = v;
  for (int systems : {2656, 9296, 16695, 65536})
    for (int length : {16, 32, 64})
      run_configuration(timer, systems, length, 1, every);
  return 0;
}
