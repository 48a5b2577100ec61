/* Kernels of the multi-morphology level solver, one system (branch) at a time, shared verbatim
 * by the CPU codelet (OpenMP over systems) and the CUDA codelet (one thread per system): the
 * same arithmetic in the same order on both. See src/level_layout.h for the storage. */
#ifndef HINES_LEVEL_KERNELS_H
#define HINES_LEVEL_KERNELS_H

#include "hh_channel.h"
#include "level_layout.h"
#include "stimulus.h"

struct level_step_arguments {
  struct stimulus stimulus;
  struct hh_parameters hh;
  double dt_ms;
  double time_ms;
  int constant_rows;
  int systems; /* systems of the block (GPU launch size without reading the block back) */
};

#ifdef __CUDACC__
#define LEVEL_RESTRICT __restrict__
#else
#define LEVEL_RESTRICT restrict
#endif

/* A GPU thread walks a long branch alone, so its time is the chain of dependent memory
 * latencies. The sweeps therefore go LEVEL_PREFETCH elements at a time:
 * first every load of the group (indices, constants rows, voltages, constants), then the
 * sequential arithmetic, so several loads are in flight instead of one. The arithmetic and its
 * order are those of the one-element-at-a-time sweep. Measured on the H200 (real-SWC mix,
 * 33,390 neurons): 4 elements 2.90 ms per step, 8 elements 3.01 ms (130 against 168 registers
 * a thread), one element 4.18 ms. */
#ifndef LEVEL_PREFETCH
#define LEVEL_PREFETCH 4
#endif
#ifdef __CUDACC__
#define LEVEL_UNROLL _Pragma("unroll")
#else
#define LEVEL_UNROLL _Pragma("GCC unroll 8")
#endif

/* Backward sweep of system s: assemble each element, eliminate the chain from its far end to the
 * junction, gathering the child systems' contributions at the far end (their fixed order makes
 * the result reproducible). Leaves in contribution[2s], [2s+1] what the system adds to its
 * junction's diagonal and rhs. */
static inline LEVEL_HOST_DEVICE void level_backward_system(
    const struct level_block_view *v, int s, const double *LEVEL_RESTRICT constants,
    const struct level_step_arguments *args, double *LEVEL_RESTRICT voltage,
    double *LEVEL_RESTRICT pivot, double *LEVEL_RESTRICT contribution,
    const double *LEVEL_RESTRICT child_contribution, double *LEVEL_RESTRICT gates) {
#define ROW(ref, c) constants[(size_t)(ref)*CONST_STRIDE + (c)]
  const int size = v->size[s];
  const int top = v->padded ? v->max_size : size; /* CP computes on the padding rows too */
  const int stimulated = args->stimulus.compartment - v->first_compartment[s];
  const double injected = stimulated >= 0 && stimulated < size
                              ? stimulus_current(&args->stimulus, v->neuron[s], args->time_ms)
                              : 0.0;
  double previous_pivot = 1.0, previous_rhs = 0.0, previous_upper = 0.0, previous_lower = 0.0;
  for (int group = top - 1; group >= 0; group -= LEVEL_PREFETCH) {
    int e[LEVEL_PREFETCH] = {0}, ref[LEVEL_PREFETCH] = {0};
    double old_voltage[LEVEL_PREFETCH] = {0}, d[LEVEL_PREFETCH] = {0}, r[LEVEL_PREFETCH] = {0};
    double up[LEVEL_PREFETCH] = {0}, low[LEVEL_PREFETCH] = {0};
    LEVEL_UNROLL
    for (int b = 0; b < LEVEL_PREFETCH; b++)
      if (group - b >= 0) {
        e[b] = v->row_offset[group - b] + s;
        ref[b] = v->element_ref[e[b]];
        old_voltage[b] = voltage[e[b]];
      }
    LEVEL_UNROLL
    for (int b = 0; b < LEVEL_PREFETCH; b++)
      if (group - b >= 0) {
        const int j = group - b;
        d[b] = ROW(ref[b], CONST_DIAGONAL_BASE);
        r[b] = ROW(ref[b], CONST_C_OVER_DT) * old_voltage[b] + ROW(ref[b], CONST_LEAK_CURRENT) +
               (j == stimulated ? injected : 0.0);
        up[b] = ROW(ref[b], CONST_OFF_DIAGONAL); /* symmetric: upper and lower entry */
        low[b] = up[b];
      }
    LEVEL_UNROLL
    for (int b = 0; b < LEVEL_PREFETCH; b++)
      if (group - b >= 0) {
        const int j = group - b;
        double dj = d[b], rj = r[b];
        if (gates && j < size && hh_applies(&args->hh, v->first_compartment[s] + j)) {
          /* gates: m | h | n, one block of `elements` each */
          double conductance, driven;
          hh_step(&args->hh, old_voltage[b], args->dt_ms,
                  constants[(size_t)CONST_STRIDE * args->constant_rows + ref[b]], &gates[e[b]],
                  &gates[v->elements + e[b]], &gates[2 * v->elements + e[b]], &conductance,
                  &driven);
          dj += conductance;
          rj += driven;
        }
        if (j == size - 1) {
          for (int c = v->child_first[s]; c < v->child_first[s + 1]; c++) {
            dj -= child_contribution[2 * v->child[c]];
            rj -= child_contribution[2 * v->child[c] + 1];
          }
        } else if (j + 1 < top) {
          double factor = previous_upper / previous_pivot;
          dj -= factor * previous_lower;
          rj -= factor * previous_rhs;
        }
        pivot[e[b]] = dj;
        voltage[e[b]] = rj;
        previous_pivot = dj;
        previous_rhs = rj;
        previous_upper = up[b];
        previous_lower = low[b];
      }
  }
  double factor = previous_upper / previous_pivot;
  contribution[2 * s] = factor * previous_lower;
  contribution[2 * s + 1] = factor * previous_rhs;
#undef ROW
}

/* Forward sweep of system s: from the junction's solution (parent level) outwards, loads of a
 * group of elements first, as in the backward sweep. */
static inline LEVEL_HOST_DEVICE void
level_forward_system(const struct level_block_view *v, int s,
                     const double *LEVEL_RESTRICT constants, int rows,
                     double *LEVEL_RESTRICT voltage, const double *LEVEL_RESTRICT pivot,
                     const double *LEVEL_RESTRICT parent_voltage) {
  (void)rows; /* rows of CONST_STRIDE: the row index alone locates a constant */
  const int top = v->padded ? v->max_size : v->size[s];
  double x = v->junction[s] >= 0 ? parent_voltage[v->junction[s]] : 0.0;
  for (int group = 0; group < top; group += LEVEL_PREFETCH) {
    int e[LEVEL_PREFETCH] = {0};
    double rhs[LEVEL_PREFETCH] = {0}, d[LEVEL_PREFETCH] = {0}, l[LEVEL_PREFETCH] = {0};
    LEVEL_UNROLL
    for (int b = 0; b < LEVEL_PREFETCH; b++)
      if (group + b < top) {
        e[b] = v->row_offset[group + b] + s;
        rhs[b] = voltage[e[b]];
        d[b] = pivot[e[b]];
        l[b] = constants[(size_t)v->element_ref[e[b]] * CONST_STRIDE + CONST_OFF_DIAGONAL];
      }
    LEVEL_UNROLL
    for (int b = 0; b < LEVEL_PREFETCH; b++)
      if (group + b < top) {
        x = (rhs[b] - l[b] * x) / d[b];
        voltage[e[b]] = x;
      }
  }
}

/* Where each level of one chunk sits in the chunk's concatenated arrays (host memory): level L's
 * description at ints + ints_offset[L], its values at + element_offset[L] (gates: m | h | n of
 * element_count[L] each at + 3 * element_offset[L]), its contributions at
 * + 2 * system_offset[L]. */
struct chunk_levels {
  int n_levels;
  const size_t *ints_offset, *element_offset, *system_offset;
  const int *systems;
};

/* A whole step of one chunk in one task: every level's backward sweep, deepest first, then
 * every forward sweep. */
struct chunk_step_arguments {
  struct level_step_arguments step;
  const struct chunk_levels *levels;
};

#ifdef __cplusplus
extern "C" {
#endif
/* CUDA launchers (hines_level_cuda.cu), asynchronous on `stream`; 0 or a cudaError_t. */
int level_backward_cuda(const int *block_ints, int systems, const double *constants,
                        const struct level_step_arguments *args, double *voltage, double *pivot,
                        double *contribution, const double *child_contribution, double *gates,
                        void *stream);
int level_forward_cuda(const int *block_ints, int systems, const double *constants, int rows,
                       double *voltage, const double *pivot, const double *parent_voltage,
                       void *stream);
#ifdef __cplusplus
}
#endif

#endif
