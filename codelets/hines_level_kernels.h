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

/* Backward sweep of system s: assemble each element, eliminate the chain from its far end to the
 * junction, gathering the child systems' contributions at the far end (their fixed order makes
 * the result reproducible). Leaves in contribution[2s], [2s+1] what the system adds to its
 * junction's diagonal and rhs. A GPU thread walks a long chain alone, so each iteration first
 * issues the loads of the next element (its index, constants row and voltage): their latency
 * then overlaps the arithmetic instead of adding to it. */
static inline LEVEL_HOST_DEVICE void level_backward_system(
    const struct level_block_view *v, int s, const double *LEVEL_RESTRICT constants,
    const struct level_step_arguments *args, double *LEVEL_RESTRICT voltage,
    double *LEVEL_RESTRICT pivot, double *LEVEL_RESTRICT contribution,
    const double *LEVEL_RESTRICT child_contribution, double *LEVEL_RESTRICT gates) {
  const int rows = args->constant_rows;
  const double *upper = constants + CONST_UPPER * rows, *lower = constants + CONST_LOWER * rows;
  const double *c_over_dt = constants + CONST_C_OVER_DT * rows;
  const double *diagonal_base = constants + CONST_DIAGONAL_BASE * rows;
  const double *leak_current = constants + CONST_LEAK_CURRENT * rows;
  const int size = v->size[s];
  const int top = v->padded ? v->max_size : size; /* CP computes on the padding rows too */
  const int stimulated = args->stimulus.compartment - v->first_compartment[s];
  const double injected = stimulated >= 0 && stimulated < size
                              ? stimulus_current(&args->stimulus, v->neuron[s], args->time_ms)
                              : 0.0;
  double previous_pivot = 1.0, previous_rhs = 0.0, previous_upper = 0.0, previous_lower = 0.0;
  int e = top > 0 ? v->row_offset[top - 1] + s : 0;
  int ref = top > 0 ? v->element_ref[e] : 0;
  double old_voltage = top > 0 ? voltage[e] : 0.0;
  for (int j = top - 1; j >= 0; j--) {
    const int e_next = j > 0 ? v->row_offset[j - 1] + s : e;
    const int ref_next = j > 0 ? v->element_ref[e_next] : ref;
    const double voltage_next = j > 0 ? voltage[e_next] : 0.0;
    double d = diagonal_base[ref];
    double r =
        c_over_dt[ref] * old_voltage + leak_current[ref] + (j == stimulated ? injected : 0.0);
    if (gates && j < size && hh_applies(&args->hh, v->first_compartment[s] + j)) {
      /* gates: m | h | n, one block of `elements` each */
      double conductance, driven;
      hh_step(&args->hh, old_voltage, args->dt_ms, constants[CONST_HH_SCALE * rows + ref],
              &gates[e], &gates[v->elements + e], &gates[2 * v->elements + e], &conductance,
              &driven);
      d += conductance;
      r += driven;
    }
    if (j == size - 1) {
      for (int c = v->child_first[s]; c < v->child_first[s + 1]; c++) {
        d -= child_contribution[2 * v->child[c]];
        r -= child_contribution[2 * v->child[c] + 1];
      }
    } else if (j + 1 < top) {
      double factor = previous_upper / previous_pivot;
      d -= factor * previous_lower;
      r -= factor * previous_rhs;
    }
    pivot[e] = d;
    voltage[e] = r;
    previous_pivot = d;
    previous_rhs = r;
    previous_upper = upper[ref];
    previous_lower = lower[ref];
    e = e_next;
    ref = ref_next;
    old_voltage = voltage_next;
  }
  double factor = previous_upper / previous_pivot;
  contribution[2 * s] = factor * previous_lower;
  contribution[2 * s + 1] = factor * previous_rhs;
}

/* Forward sweep of system s: from the junction's solution (parent level) outwards, with the
 * next element's loads issued ahead as in the backward sweep. */
static inline LEVEL_HOST_DEVICE void
level_forward_system(const struct level_block_view *v, int s,
                     const double *LEVEL_RESTRICT constants, int rows,
                     double *LEVEL_RESTRICT voltage, const double *LEVEL_RESTRICT pivot,
                     const double *LEVEL_RESTRICT parent_voltage) {
  const double *lower = constants + CONST_LOWER * rows;
  const int top = v->padded ? v->max_size : v->size[s];
  double x = v->junction[s] >= 0 ? parent_voltage[v->junction[s]] : 0.0;
  if (top == 0)
    return;
  int e = v->row_offset[0] + s;
  double rhs = voltage[e], d = pivot[e], l = lower[v->element_ref[e]];
  for (int j = 0; j < top; j++) {
    const int e_next = j + 1 < top ? v->row_offset[j + 1] + s : e;
    const double rhs_next = voltage[e_next], d_next = pivot[e_next];
    const double l_next = lower[v->element_ref[e_next]];
    x = (rhs - l * x) / d;
    voltage[e] = x;
    e = e_next;
    rhs = rhs_next;
    d = d_next;
    l = l_next;
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
