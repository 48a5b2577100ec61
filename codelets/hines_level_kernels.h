/* Kernels of the multi-morphology level solver, one system (branch) at a time, shared verbatim
 * by the CUDA codelet (one thread per system) and the CPU codelets (which sweep most blocks row
 * by row with the same per-element operations, level_rows_cpu.h): the same arithmetic in the
 * same order on both, the multiply-adds of the sweeps as explicit fma (issue #18). See
 * level_layout.h for the storage. */
#ifndef HINES_LEVEL_KERNELS_H
#define HINES_LEVEL_KERNELS_H

#include "level_layout.h"
#include "step_model.h"
#include <stdint.h>
#ifndef __CUDACC__
#include "channel_lanes_cpu.h"
#endif

struct level_step_arguments {
  struct stimulus stimulus;
  struct channel_set channels; /* mechanisms.h */
  int hh_rates;                /* enum hh_rates: HH_RATES_TABLE reads the constants' rate table */
  double dt_ms;
  double time_ms;
  int constant_rows;
  int systems; /* systems of the block (GPU launch size without reading the block back) */
  /* Not 0: a sweep without channels may read each row's inverse pivot from the constants
   * (CONST_INVERSE_PIVOT, level_layout.h) instead of computing it: the same bits, a shorter
   * chain. CPU codelets read them whenever this is not 0, a GPU level of fewer systems than
   * this. Sweeps with channels, or rows assembled apart, compute their pivots whatever this
   * says, and a sweep may always ignore it. */
  int stored_pivots;
  /* Not 0: on a GPU, the thread sweeps of NCP chain levels too small to fill the device run as
   * the lean kernels (hines_level_cuda.cu; the backward one only with stored pivots): the same
   * bits. runtime/multi_batch.c sets it for passive steps only. */
  int lean_sweeps;
  /* Not 0 (passive steps of the level kernels' chunk tasks, runtime/multi_batch.c): the sweeps
   * without channels leave each element's factor unstored and the forward sweeps read its row's
   * (CONST_ROW_FACTOR, level_layout.h; level_row_factors): the same bits. Warp-swept systems keep
   * theirs in the factor array both ways. */
  int row_factors;
};

/* A kernel that reads, later in the same launch, what it wrote (the cell-block kernel,
 * codelets/cell_block.h) defines it empty before including this file: with restrict, the
 * compiler may read a const array through the GPU's non-coherent read-only cache. */
#ifndef LEVEL_RESTRICT
#ifdef __CUDACC__
#define LEVEL_RESTRICT __restrict__
#else
#define LEVEL_RESTRICT restrict
#endif
#endif

/* A GPU thread walks a long branch alone, so its time is the chain of dependent memory
 * latencies. The sweeps therefore go in groups of elements: every load of a group is issued
 * before the arithmetic of the previous group (software pipelining), so the loads of two groups
 * are in flight while the sequential arithmetic runs. The arithmetic and its order are those of
 * the one-element-at-a-time sweep. Measured on the H200 (real-SWC mix, 33,390 neurons, ms per
 * step): backward groups of 4 and forward groups of 8 1.83-1.84; both 4 1.87-1.88; both 16
 * 1.93; backward 2, forward 8 1.91; without pipelining, both 8 1.94 and both 4 2.10. Wider
 * groups cost registers (the backward sweep of groups of 4 takes 128 a thread) and occupancy. */
#ifndef LEVEL_PREFETCH
#define LEVEL_PREFETCH 4
#endif
/* With channels a backward element also loads and stores its gates and computes their rows,
 * and groups of 4 took the CUDA kernel 164 registers (3 blocks of 128 an SM, 18.8 % occupancy;
 * ncu on the H100: the leaves' kernel of the HH mix at 1.25 TB/s, latency bound). One element
 * ahead takes 98 (5 blocks). Measured on the H100 (the six shipped cells x 33,390 neurons, HH
 * everywhere, ms per step, two runs): groups of 4 6.81-6.85, of 2 6.34-6.35, of 1 6.06-6.08;
 * passive with groups of 1 2.44 against 2.17, so the passive sweep keeps its 4. At most
 * LEVEL_PREFETCH. */
#ifndef LEVEL_CHANNELS_PREFETCH
#define LEVEL_CHANNELS_PREFETCH 1
#endif
#ifndef LEVEL_FORWARD_PREFETCH
#define LEVEL_FORWARD_PREFETCH 8
#endif
/* How many elements ahead of the element it eliminates a GPU thread asks L2 for the values of a
 * backward sweep (HINES_PREFETCH_L2, host_device.h; 0: no hint): a chain without channels, one
 * with channels (which also hints its gates), a leaf subtree (backward and forward). The chain
 * sweeps already hold their next group's loads in registers, and the hint reaches further at no
 * register cost. Measured on the H200 (BENCHMARKS.md, "Asking L2 ahead"; ms a step at mono's
 * compartments, no hint / the kept distances): the six shipped cells 1.70-1.74 / 1.61-1.65
 * (chains 6: 1.65-1.69, 12: 1.63-1.66), deep chains 1.69-1.72 / 1.53 (6: 1.67), the six cells
 * with HH 4.17-4.18 / 3.47-3.51 (channels 4: 3.73-3.77), random trees 1.79-1.83 / 1.44-1.47
 * (subtrees 4: 1.49-1.51). The forward chain sweep, 8 elements ahead in registers, gained
 * nothing from a hint 16 ahead. Channels 1 ahead rather than 2: the six cells with HH 2-3 %
 * faster on the H100 (4.15-4.21 against 4.29-4.33 ms), the large cells 1-2 %, random trees and
 * CA1 unchanged (BENCHMARKS.md, "HH sweeps: registers and L2 distance"). */
#ifndef LEVEL_L2_AHEAD
#define LEVEL_L2_AHEAD 8
#endif
#ifndef LEVEL_CHANNELS_L2_AHEAD
#define LEVEL_CHANNELS_L2_AHEAD 1
#endif
#ifndef LEVEL_TREE_L2_AHEAD
#define LEVEL_TREE_L2_AHEAD 2
#endif
#ifdef __CUDACC__
#define LEVEL_UNROLL _Pragma("unroll")
#else
#define LEVEL_UNROLL _Pragma("GCC unroll 8")
#endif

/* Where a sweep has issued its first group's loads, which read nothing the previous kernel of
 * its stream writes, and is about to read what that kernel does write (child contributions, the
 * parent's voltage). The CUDA codelet defines it as "wait for the previous kernel": the kernels
 * are launched as programmatic dependent launches, so a level's kernel starts and issues its
 * first loads while the previous level's kernel is still finishing (see hines_level_cuda.cu).
 * Nothing to wait for on a CPU. */
#ifndef LEVEL_AFTER_FIRST_LOADS
#define LEVEL_AFTER_FIRST_LOADS() ((void)0)
#endif
/* A read of what the previous kernel wrote (after LEVEL_AFTER_FIRST_LOADS): the CUDA codelet
 * reads it past the SM's L1, which may hold lines loaded while that kernel was still writing. */
#ifndef LEVEL_LOAD_PRODUCED
#define LEVEL_LOAD_PRODUCED(pointer) (*(pointer))
#endif

/* An element's pivot, once eliminated: its factor (off-diagonal / pivot) and scaled rhs (rhs /
 * pivot) through one reciprocal. A GPU thread walks a branch's elimination chain element after
 * element, and a double division is a dependent sequence of about ten instructions; with two of
 * them an element (ncu on the H200: their lines held much of the chain's stall samples) every
 * mix ran 3-9 % slower (H100, BENCHMARKS.md, "One reciprocal per pivot"). A chain with no
 * division at all (the pivot as a ratio of multiply-add recurrences) measured slower still, and
 * less accurate. Every sweep (thread, subtree and warp, CPU and GPU) eliminates through this
 * helper, so their bits stay equal; the error stays within test_accuracy's bound. */
static inline HINES_HOST_DEVICE void level_pivot(double off_diagonal, double rhs, double pivot,
                                                 double *factor, double *scaled_rhs) {
  const double inverse = 1.0 / pivot;
  *factor = off_diagonal * inverse;
  *scaled_rhs = rhs * inverse;
}

/* The same with the pivot's inverse read from the constants (level_step_arguments.stored_pivots):
 * level_pivot's two products on the value its division would give. */
static inline HINES_HOST_DEVICE void level_pivot_stored(double off_diagonal, double rhs,
                                                        double inverse, double *factor,
                                                        double *scaled_rhs) {
  *factor = off_diagonal * inverse;
  *scaled_rhs = rhs * inverse;
}

/* The constants' inverse pivots where a sweep may read them: no channels, rows not assembled
 * apart, and the step allows it; NULL: the sweep computes its pivots. */
static inline HINES_HOST_DEVICE const double *
level_stored_pivots(const double *constants, const struct level_step_arguments *args,
                    const double *gates, int rows_assembled) {
  return args->stored_pivots && !gates && !rows_assembled
             ? constants + CONST_INVERSE_PIVOT(args->constant_rows)
             : 0;
}

/* The constants' row factors where the sweeps use them: no channels, rows not assembled apart,
 * and the step asks for them; NULL: each element's factor is stored and loaded back. */
static inline HINES_HOST_DEVICE const double *
level_row_factors(const double *constants, const struct level_step_arguments *args,
                  const double *gates, int rows_assembled) {
  return args->row_factors && !gates && !rows_assembled
             ? constants + CONST_ROW_FACTOR(args->constant_rows)
             : 0;
}

/* What one group of the backward sweep reads: element indices, old voltages, constants. */
struct level_backward_group {
  int e[LEVEL_PREFETCH];
  double old_voltage[LEVEL_PREFETCH], diagonal[LEVEL_PREFETCH], c_over_dt[LEVEL_PREFETCH],
      leak_current[LEVEL_PREFETCH], off_diagonal[LEVEL_PREFETCH];
};

/* The rate table a step reads (level_layout.h), or NULL: exact rates. */
static inline HINES_HOST_DEVICE const double *
level_rate_table(const double *constants, const struct level_step_arguments *args) {
  return args->hh_rates == HH_RATES_TABLE ? constants + CONST_RATE_TABLE(args->constant_rows)
                                          : NULL;
}

/* Element j of system s reads constants row first_row + j (a CP padding element the identity
 * row 0). */
static inline HINES_HOST_DEVICE int level_row(int j, int size, int first_row) {
  return j < size ? first_row + j : 0;
}

/* The loads of elements group, group - 1, ... group - prefetch + 1 (prefetch: a constant, at
 * most LEVEL_PREFETCH). assembled_diagonal (rows assembled before the sweep, see
 * level_backward_system_in_groups): where each element's assembled diagonal is, loaded into
 * `diagonal` (old_voltage then holds the assembled rhs); NULL: the constants' rows.
 * inverse_pivots (level_stored_pivots): each row's stored inverse pivot, loaded into `diagonal`
 * instead of the row's diagonal. */
static inline HINES_HOST_DEVICE void
level_backward_load(const struct level_block_view *v, int s, int group, int size, int first_row,
                    const double *LEVEL_RESTRICT constants, const double *voltage,
                    const double *assembled_diagonal, const double *inverse_pivots,
                    struct level_backward_group *g, int prefetch) {
  LEVEL_UNROLL
  for (int b = 0; b < LEVEL_PREFETCH; b++)
    if (b < prefetch && group - b >= 0) {
      const int j = group - b;
      const int r = level_row(j, size, first_row);
      const double *row = constants + (size_t)r * CONST_STRIDE;
      g->e[b] = v->row_offset[j] + s;
      g->old_voltage[b] = voltage[g->e[b]];
      if (inverse_pivots) { /* `diagonal` holds the pivot's inverse */
        g->diagonal[b] = inverse_pivots[r];
        g->c_over_dt[b] = row[CONST_C_OVER_DT];
        g->leak_current[b] = row[CONST_LEAK_CURRENT];
      } else if (assembled_diagonal) {
        g->diagonal[b] = assembled_diagonal[g->e[b]];
      } else {
        g->diagonal[b] = row[CONST_DIAGONAL_BASE];
        g->c_over_dt[b] = row[CONST_C_OVER_DT];
        g->leak_current[b] = row[CONST_LEAK_CURRENT];
      }
      g->off_diagonal[b] = row[CONST_OFF_DIAGONAL]; /* symmetric: upper and lower entry */
    }
}

/* Element j's row before elimination: the membrane's terms with the current `injected`, then
 * the channels' (advancing the gates at gates_e, one block of `elements` per gate; NULL: none).
 * The thread and warp sweeps both build their rows here, so they compute the same bits. */
/* variant: the step's channel_variant_of where the caller knows it at compile time (a GPU
 * kernel's template argument: only that form's code is compiled, fewer registers), -1 where it
 * is picked at run time; the same channels_row call either way, so the same bits. */
static inline HINES_HOST_DEVICE void
level_element_row_as(const struct level_block_view *v, int s, int j, int size, int first_row,
                     double injected, const double *LEVEL_RESTRICT constants,
                     const struct level_step_arguments *args, double diagonal, double c_over_dt,
                     double leak_current, double old_voltage, double *gates_e, double *dj,
                     double *rj, int variant) {
  membrane_row(diagonal, c_over_dt, leak_current, old_voltage, injected, dj, rj);
  if (gates_e && j < size && channels_apply(&args->channels, v->first_compartment[s] + j)) {
    /* the table's place is in every level batch's constants, filled or not (exact rates) */
    const double *table_place = constants + CONST_RATE_TABLE(args->constant_rows);
    const double scale =
        constants[(size_t)CONST_STRIDE * args->constant_rows + level_row(j, size, first_row)];
    if (variant < 0)
      channels_row_of_variant(
          &args->channels, &args->channels.mechanism[MECHANISM_HH],
          channel_variant_of(&args->channels, level_rate_table(constants, args)), table_place,
          v->first_compartment[s] + j, old_voltage, args->dt_ms, scale, gates_e,
          (size_t)v->elements, dj, rj);
    else
      channels_row(&args->channels, &args->channels.mechanism[MECHANISM_HH], variant, table_place,
                   v->first_compartment[s] + j, old_voltage, args->dt_ms, scale, gates_e,
                   (size_t)v->elements, dj, rj);
  }
}

static inline HINES_HOST_DEVICE void
level_element_row(const struct level_block_view *v, int s, int j, int size, int first_row,
                  double injected, const double *LEVEL_RESTRICT constants,
                  const struct level_step_arguments *args, double diagonal, double c_over_dt,
                  double leak_current, double old_voltage, double *gates_e, double *dj,
                  double *rj) {
  level_element_row_as(v, s, j, size, first_row, injected, constants, args, diagonal, c_over_dt,
                       leak_current, old_voltage, gates_e, dj, rj, -1);
}

/* Element j of system s assembled on its own (its row left in factor[e] and voltage[e], its
 * gates advanced), with the calls and inputs of the sweeps' level_element_row: the GPU's row
 * kernel runs it one thread per element before the backward sweeps, which then run with
 * rows_assembled as the CPU codelets do (hines_level_cuda.cu), so the bits are those of the
 * fused sweep. gates: the level's gates (NULL: none). */
static inline HINES_HOST_DEVICE void level_assemble_element(const struct level_block_view *v, int s,
                                                            int j,
                                                            const double *LEVEL_RESTRICT constants,
                                                            const struct level_step_arguments *args,
                                                            double *voltage, double *factor,
                                                            double *gates, int variant) {
  const int size = v->size[s], first_row = v->first_row[s];
  if (j >= size && v->trees && v->tree[s] >= 0)
    return; /* a subtree's CP padding: its sweeps stop at its size */
  const int e = v->row_offset[j] + s;
  const int stimulated = args->stimulus.compartment - v->first_compartment[s];
  const double injected = j == stimulated && j < size
                              ? stimulus_current(&args->stimulus, v->neuron[s], args->time_ms)
                              : 0.0;
  const double *row = constants + (size_t)level_row(j, size, first_row) * CONST_STRIDE;
  double dj, rj;
  level_element_row_as(v, s, j, size, first_row, injected, constants, args,
                       row[CONST_DIAGONAL_BASE], row[CONST_C_OVER_DT], row[CONST_LEAK_CURRENT],
                       voltage[e], gates ? &gates[e] : NULL, &dj, &rj, variant);
  factor[e] = dj;
  voltage[e] = rj;
}

/* The row j of element i of a level (0 <= i < elements): the last row starting at or before i
 * (rows are contiguous, row_offset ascending); its system is i - row_offset[j]. */
static inline HINES_HOST_DEVICE int level_row_of_element(const struct level_block_view *v, int i) {
  return level_last_at_most(v->row_offset, v->max_size, i);
}

/* What the child systems of s add to its far end's row, in their fixed order. */
static inline HINES_HOST_DEVICE void
level_gather_children(const struct level_block_view *v, int s,
                      const double *LEVEL_RESTRICT child_contribution, double *dj, double *rj) {
  for (int c = v->child_first[s]; c < v->child_first[s + 1]; c++) {
    *dj -= LEVEL_LOAD_PRODUCED(&child_contribution[2 * v->child[c]]);
    *rj -= LEVEL_LOAD_PRODUCED(&child_contribution[2 * v->child[c] + 1]);
  }
}

/* The rhs half of level_gather_children, for a sweep that reads its pivots. */
static inline HINES_HOST_DEVICE void
level_gather_children_rhs(const struct level_block_view *v, int s,
                          const double *LEVEL_RESTRICT child_contribution, double *rj) {
  for (int c = v->child_first[s]; c < v->child_first[s + 1]; c++)
    *rj -= LEVEL_LOAD_PRODUCED(&child_contribution[2 * v->child[c] + 1]);
}

/* The shape entry of element j of subtree system s (level_layout.h). */
static inline HINES_HOST_DEVICE int level_shape(const struct level_block_view *v, int s, int j,
                                                int entry) {
  return v->shapes[v->tree[s] + SHAPE_INTS_PER_ELEMENT * j + entry];
}

/* What the subtree sweeps read of element j before its arithmetic (issued one element ahead,
 * so that its memory latency overlaps the previous element's chain; in the backward sweep only
 * where the chain sweep also loads ahead: the GPU's channel kernel has no registers for it). */
struct level_tree_loads {
  int e, parent_step;
  double old_voltage, diagonal, c_over_dt, leak_current, off_diagonal;
};

/* assembled_diagonal and inverse_pivots as in level_backward_load. */
static inline HINES_HOST_DEVICE struct level_tree_loads
level_tree_load(const struct level_block_view *v, int s, int j, int first_row,
                const double *LEVEL_RESTRICT constants, const double *voltage,
                const double *assembled_diagonal, const double *inverse_pivots) {
  struct level_tree_loads l;
  const double *row = constants + (size_t)(first_row + j) * CONST_STRIDE;
  l.e = v->row_offset[j] + s;
  l.parent_step = level_shape(v, s, j, SHAPE_PARENT_STEP);
  l.old_voltage = voltage[l.e];
  if (inverse_pivots) {
    l.diagonal = inverse_pivots[first_row + j];
    l.c_over_dt = row[CONST_C_OVER_DT];
    l.leak_current = row[CONST_LEAK_CURRENT];
  } else if (assembled_diagonal) {
    l.diagonal = assembled_diagonal[l.e];
    l.c_over_dt = l.leak_current = 0.0;
  } else {
    l.diagonal = row[CONST_DIAGONAL_BASE];
    l.c_over_dt = row[CONST_C_OVER_DT];
    l.leak_current = row[CONST_LEAK_CURRENT];
  }
  l.off_diagonal = row[CONST_OFF_DIAGONAL];
  return l;
}

/* Asks L2 for every 128-byte line of the `count` doubles from `begin` (HINES_PREFETCH_L2;
 * nothing on a CPU). For a system's constant rows, pivots or row factors: every step reads them
 * and none writes them, but a step streams ~1 GB of voltages and factors through L2, which
 * evicts them before the next step, so each group of a sweep would wait on memory for its rows. */
static inline HINES_HOST_DEVICE void level_hint_lines(const double *begin, int count) {
#if HINES_ON_GPU
  const char *line = (const char *)((uintptr_t)begin & ~(uintptr_t)127);
  for (const char *end = (const char *)(begin + count); line < end; line += 128)
    HINES_PREFETCH_L2(line);
#else
  (void)begin, (void)count;
#endif
}

/* Asks L2 for what a backward sweep will load of element e (HINES_PREFETCH_L2): its voltage,
 * then its assembled diagonal (rows built apart) or its n_gates gates. */
static inline HINES_HOST_DEVICE void level_backward_hint(const struct level_block_view *v, int e,
                                                         const double *voltage,
                                                         const double *factor, const double *gates,
                                                         int n_gates, int rows_assembled) {
  HINES_PREFETCH_L2(voltage + e);
  if (rows_assembled)
    HINES_PREFETCH_L2(factor + e);
  else
    for (int g = 0; g < n_gates; g++)
      HINES_PREFETCH_L2(gates + (size_t)g * v->elements + e);
}

/* Backward sweep of a subtree system (level_layout.h): its elements from the last to the first,
 * in depth-first order, so every element comes after all of its children. Element j + 1, when
 * it is j's first child, passes its part of j's row in registers, as along a chain; j's later
 * children (j + 1 plus their sibling steps) pass theirs through what they stored, factor f =
 * off / d and scaled rhs r / d, as f * off and off * (r / d), in their order. The same calls in
 * the same order on a CPU and a GPU, so the same bits. A subtree has no child systems. Leaves
 * the subtree's contribution to its junction as a chain does. */
/* (system_contribution: where the subtree's two values go, its pair of the contribution array) */
static inline HINES_HOST_DEVICE void level_backward_tree_into(
    const struct level_block_view *v, int s, const double *LEVEL_RESTRICT constants,
    const struct level_step_arguments *args, double *voltage, double *LEVEL_RESTRICT factor,
    double *LEVEL_RESTRICT system_contribution, double *LEVEL_RESTRICT gates, int rows_assembled,
    int ahead, const double *inverse_pivots, const double *row_factor, int variant) {
  const int size = v->size[s], first_row = v->first_row[s];
  const int stimulated = args->stimulus.compartment - v->first_compartment[s];
  const double injected = stimulated >= 0 && stimulated < size
                              ? stimulus_current(&args->stimulus, v->neuron[s], args->time_ms)
                              : 0.0;
  /* of element j + 1, the one eliminated just before */
  double below_factor = 0.0, below_rhs = 0.0, below_off_diagonal = 0.0;
  int below_is_first_child = 0;
  const double *assembled_diagonal = rows_assembled ? factor : NULL;
  struct level_tree_loads current = level_tree_load(v, s, size - 1, first_row, constants, voltage,
                                                    assembled_diagonal, inverse_pivots);
  LEVEL_AFTER_FIRST_LOADS(); /* nothing here is another kernel's: keeps the launch protocol */
  for (int j = size - 1; j >= 0; j--) {
    struct level_tree_loads next = current;
    if (HINES_ON_GPU && LEVEL_TREE_L2_AHEAD > 0 && j - LEVEL_TREE_L2_AHEAD >= 0)
      level_backward_hint(v, v->row_offset[j - LEVEL_TREE_L2_AHEAD] + s, voltage, factor, gates,
                          gates ? args->channels.n_gates : 0, rows_assembled);
    if (ahead && j > 0)
      next = level_tree_load(v, s, j - 1, first_row, constants, voltage, assembled_diagonal,
                             inverse_pivots);
    const int e = current.e;
    double dj, rj;
    if (rows_assembled) {
      dj = current.diagonal;
      rj = current.old_voltage;
    } else {
      level_element_row_as(v, s, j, size, first_row, j == stimulated ? injected : 0.0, constants,
                           args, current.diagonal, current.c_over_dt, current.leak_current,
                           current.old_voltage, gates ? &gates[e] : NULL, &dj, &rj, variant);
    }
    if (below_is_first_child) {
      for (int c = j + 1, step; (step = level_shape(v, s, c, SHAPE_SIBLING_STEP)) != 0;) {
        c += step;
        const int ec = v->row_offset[c] + s;
        const double off_c = constants[(size_t)(first_row + c) * CONST_STRIDE + CONST_OFF_DIAGONAL];
        dj = fma(-(row_factor ? row_factor[first_row + c] : factor[ec]), off_c, dj);
        rj = fma(-off_c, voltage[ec], rj);
      }
      dj = fma(-below_factor, below_off_diagonal, dj);
      rj = fma(-below_factor, below_rhs, rj);
    }
    double scaled_rhs;
    if (inverse_pivots) /* dj and the loads it needed are dead: the compiler drops them */
      level_pivot_stored(current.off_diagonal, rj, current.diagonal, &below_factor, &scaled_rhs);
    else
      level_pivot(current.off_diagonal, rj, dj, &below_factor, &scaled_rhs);
    if (!row_factor)
      factor[e] = below_factor;
    voltage[e] = scaled_rhs;
    below_rhs = rj;
    below_off_diagonal = current.off_diagonal;
    below_is_first_child = current.parent_step == 1;
    if (j > 0)
      current = ahead ? next
                      : level_tree_load(v, s, j - 1, first_row, constants, voltage,
                                        assembled_diagonal, inverse_pivots);
  }
  system_contribution[0] = below_factor * below_off_diagonal;
  system_contribution[1] = below_factor * below_rhs;
}

static inline HINES_HOST_DEVICE void
level_backward_tree(const struct level_block_view *v, int s, const double *LEVEL_RESTRICT constants,
                    const struct level_step_arguments *args, double *voltage,
                    double *LEVEL_RESTRICT factor, double *LEVEL_RESTRICT contribution,
                    double *LEVEL_RESTRICT gates, int rows_assembled, int ahead,
                    const double *inverse_pivots, const double *row_factor, int variant) {
  level_backward_tree_into(v, s, constants, args, voltage, factor, contribution + 2 * s, gates,
                           rows_assembled, ahead, inverse_pivots, row_factor, variant);
}

/* Backward sweep of system s: assemble each element, eliminate the chain from its far end to the
 * junction, gathering the child systems' contributions at the far end (their fixed order makes
 * the result reproducible). Leaves in contribution[2s], [2s+1] what the system adds to its
 * junction's diagonal and rhs.
 * What the forward sweep needs is stored already divided by the pivot: factor[e] = off-diagonal /
 * pivot and voltage[e] = eliminated rhs / pivot, so that sweep is x = voltage - factor * x with
 * two streamed loads an element and no constants (the cable matrix is symmetric, so the factor
 * that eliminates an element from its parent's row is also its forward-substitution factor).
 * The loads of the next group are issued before the arithmetic of the current one, so memory
 * latency overlaps the elimination chain (the stores of a group never touch the next group's
 * elements).
 * rows_assembled (CPU codelets, channels everywhere): level_assemble_rows has already built
 * every element's row, diagonal in factor[e] and rhs in voltage[e], with the same calls in the
 * same order as below, and advanced the gates; the sweep then only eliminates.
 * prefetch: the group's size, a constant (LEVEL_PREFETCH, or LEVEL_CHANNELS_PREFETCH for a GPU
 * thread that assembles channels); the arithmetic and its order do not depend on it. */
static inline HINES_HOST_DEVICE void level_backward_system_as(
    const struct level_block_view *v, int s, const double *LEVEL_RESTRICT constants,
    const struct level_step_arguments *args, double *voltage, double *LEVEL_RESTRICT factor,
    double *LEVEL_RESTRICT contribution, const double *LEVEL_RESTRICT child_contribution,
    double *LEVEL_RESTRICT gates, int rows_assembled, int prefetch, int stored_pivots,
    int variant) {
  /* stored_pivots: a constant where inlined (the GPU kernels' template flag), so that a kernel
   * that computes its pivots holds no code for reading them and the other way round */
  const double *inverse_pivots =
      stored_pivots ? level_stored_pivots(constants, args, gates, rows_assembled) : 0;
  const double *row_factor = level_row_factors(constants, args, gates, rows_assembled);
  if (v->trees && v->tree[s] >= 0) {
    level_backward_tree(v, s, constants, args, voltage, factor, contribution, gates, rows_assembled,
                        prefetch > 1, inverse_pivots, row_factor, variant);
    return;
  }
  const int size = v->size[s], first_row = v->first_row[s];
  const int top = v->padded ? v->max_size : size; /* CP computes on the padding rows too */
  const int stimulated = args->stimulus.compartment - v->first_compartment[s];
  const double injected = stimulated >= 0 && stimulated < size
                              ? stimulus_current(&args->stimulus, v->neuron[s], args->time_ms)
                              : 0.0;
  /* of the element just eliminated (one further from the junction) */
  double previous_factor = 0.0, previous_rhs = 0.0, previous_off_diagonal = 0.0;
  struct level_backward_group current = {.e = {0}}, next = {.e = {0}};
  const double *assembled_diagonal = rows_assembled ? factor : NULL;
  const int n_gates = gates && !rows_assembled ? args->channels.n_gates : 0;
  const int l2_ahead = !HINES_ON_GPU ? 0 : gates ? LEVEL_CHANNELS_L2_AHEAD : LEVEL_L2_AHEAD;
  if (top > 0)
    level_backward_load(v, s, top - 1, size, first_row, constants, voltage, assembled_diagonal,
                        inverse_pivots, &current, prefetch);
  LEVEL_AFTER_FIRST_LOADS();
  for (int group = top - 1; group >= 0; group -= prefetch) {
    if (group - prefetch >= 0)
      level_backward_load(v, s, group - prefetch, size, first_row, constants, voltage,
                          assembled_diagonal, inverse_pivots, &next, prefetch);
    if (l2_ahead > 0) {
      LEVEL_UNROLL
      for (int b = 0; b < LEVEL_PREFETCH; b++)
        if (b < prefetch && group - b - l2_ahead >= 0)
          level_backward_hint(v, v->row_offset[group - b - l2_ahead] + s, voltage, factor, gates,
                              n_gates, rows_assembled);
    }
    LEVEL_UNROLL
    for (int b = 0; b < LEVEL_PREFETCH; b++)
      if (b < prefetch && group - b >= 0) {
        const int j = group - b, e = current.e[b];
        double dj, rj;
        if (rows_assembled) { /* level_assemble_rows made the two calls below */
          dj = current.diagonal[b];
          rj = current.old_voltage[b];
        } else {
          level_element_row_as(v, s, j, size, first_row, j == stimulated ? injected : 0.0,
                               constants, args, current.diagonal[b], current.c_over_dt[b],
                               current.leak_current[b], current.old_voltage[b],
                               gates ? &gates[e] : NULL, &dj, &rj, variant);
        }
        if (j == size - 1) {
          if (inverse_pivots)
            level_gather_children_rhs(v, s, child_contribution, &rj);
          else
            level_gather_children(v, s, child_contribution, &dj, &rj);
        } else if (j + 1 < top) {
          dj = fma(-previous_factor, previous_off_diagonal, dj);
          rj = fma(-previous_factor, previous_rhs, rj);
        }
        double scaled_rhs;
        if (inverse_pivots) /* dj is dead: no reciprocal, no multiply-add in the chain */
          level_pivot_stored(current.off_diagonal[b], rj, current.diagonal[b], &previous_factor,
                             &scaled_rhs);
        else
          level_pivot(current.off_diagonal[b], rj, dj, &previous_factor, &scaled_rhs);
        if (!row_factor)
          factor[e] = previous_factor;
        voltage[e] = scaled_rhs;
        previous_rhs = rj;
        previous_off_diagonal = current.off_diagonal[b];
      }
    current = next;
  }
  contribution[2 * s] = previous_factor * previous_off_diagonal;
  contribution[2 * s + 1] = previous_factor * previous_rhs;
}

/* The same with the channels' form picked at run time (variant -1 of level_element_row_as). */
static inline HINES_HOST_DEVICE void level_backward_system_in_groups(
    const struct level_block_view *v, int s, const double *LEVEL_RESTRICT constants,
    const struct level_step_arguments *args, double *voltage, double *LEVEL_RESTRICT factor,
    double *LEVEL_RESTRICT contribution, const double *LEVEL_RESTRICT child_contribution,
    double *LEVEL_RESTRICT gates, int rows_assembled, int prefetch, int stored_pivots) {
  level_backward_system_as(v, s, constants, args, voltage, factor, contribution, child_contribution,
                           gates, rows_assembled, prefetch, stored_pivots, -1);
}

/* The same in groups of LEVEL_PREFETCH (the CPU codelets, the cell-block kernel). */
static inline HINES_HOST_DEVICE void level_backward_system(
    const struct level_block_view *v, int s, const double *LEVEL_RESTRICT constants,
    const struct level_step_arguments *args, double *voltage, double *LEVEL_RESTRICT factor,
    double *LEVEL_RESTRICT contribution, const double *LEVEL_RESTRICT child_contribution,
    double *LEVEL_RESTRICT gates, int rows_assembled) {
  level_backward_system_in_groups(v, s, constants, args, voltage, factor, contribution,
                                  child_contribution, gates, rows_assembled, LEVEL_PREFETCH, 0);
}

#ifndef __CUDACC__
/* Elements [first + begin, first + end) of row j of an NCP level (every system there holds row
 * j) whose systems the stimulus does not enter: membrane_row then channels_row, the gates
 * advanced in place. A loop of its own because level_assemble_rows_variant's loop over a whole
 * row keeps a private copy of each element's gates (the padding's and the stimulated element's
 * must stay as they are), which keeps GCC 12 from vectorising it ("no vectype"); the
 * multi-morphology HH step on CPU workers spent 60 % of its time there (perf, dev machine, the
 * six cells x 600). hh alone with exact rates vectorises here; hh alone from the table and any
 * other set placed everywhere (lanes_any) go through channel_lanes_any in blocks of lanes. */
static inline __attribute__((always_inline)) void level_assemble_row_run(
    int j, int first, int begin, int end, const int *LEVEL_RESTRICT first_rows,
    const int *LEVEL_RESTRICT first_compartments, const double *LEVEL_RESTRICT constants,
    const double *LEVEL_RESTRICT hh_scale, const struct channel_set *channels, double dt_ms,
    double *LEVEL_RESTRICT voltage, double *LEVEL_RESTRICT factor, double *LEVEL_RESTRICT gates,
    size_t gate_step, const double *LEVEL_RESTRICT rate_table, int variant, int lanes_any) {
  if (lanes_any && (variant == CHANNELS_ANY_EXACT || variant == CHANNELS_ANY_TABLE ||
                    variant == CHANNELS_HH_TABLE)) {
    /* any set placed everywhere, and hh alone from the table (channel_lanes_any reads the
     * lanes' entries as columns, rate_table_columns): blocks of lanes, each mechanism a loop of
     * its own */
    for (int block = begin; block < end; block += CHANNEL_LANES_MAX) {
      const int width = end - block < CHANNEL_LANES_MAX ? end - block : CHANNEL_LANES_MAX;
      const int e0 = first + block;
      double d[CHANNEL_LANES_MAX], r[CHANNEL_LANES_MAX], old_voltage[CHANNEL_LANES_MAX],
          scale[CHANNEL_LANES_MAX];
#pragma omp simd
      for (int k = 0; k < width; k++) {
        const int row = first_rows[block + k] + j, at = row * CONST_STRIDE; /* gathers */
        old_voltage[k] = voltage[e0 + k];
        scale[k] = hh_scale[row];
        membrane_row(constants[at + CONST_DIAGONAL_BASE], constants[at + CONST_C_OVER_DT],
                     constants[at + CONST_LEAK_CURRENT], old_voltage[k], 0.0, &d[k], &r[k]);
      }
      channel_lanes_any(channels, variant != CHANNELS_ANY_EXACT, rate_table, 1, old_voltage, dt_ms,
                        scale, 1, gates + e0, gate_step, d, r, width);
#pragma omp simd
      for (int k = 0; k < width; k++) {
        factor[e0 + k] = d[k];
        voltage[e0 + k] = r[k];
      }
    }
    return;
  }
#pragma omp simd
  for (int s = begin; s < end; s++) {
    const int e = first + s, row = first_rows[s] + j, at = row * CONST_STRIDE; /* gathers */
    const double old_voltage = voltage[e];
    double d, r;
    membrane_row(constants[at + CONST_DIAGONAL_BASE], constants[at + CONST_C_OVER_DT],
                 constants[at + CONST_LEAK_CURRENT], old_voltage, 0.0, &d, &r);
    channels_row(channels, &channels->mechanism[MECHANISM_HH], variant, rate_table,
                 first_compartments[s] + j, old_voltage, dt_ms, hh_scale[row], gates + e, gate_step,
                 &d, &r);
    factor[e] = d;
    voltage[e] = r;
  }
}

/* The row of the element a stimulus enters (system s of row j, element e, constants row `row`):
 * its membrane row with the injected current, then every channel there, in scalar code (the
 * clamp's time test would keep a loop from vectorising). */
static inline void level_assemble_stimulated(const struct level_block_view *v, int j, int s, int e,
                                             int row, const double *LEVEL_RESTRICT constants,
                                             const struct level_step_arguments *args,
                                             const struct channel_set *channels,
                                             const double *LEVEL_RESTRICT hh_scale,
                                             const double *LEVEL_RESTRICT rate_table,
                                             double *voltage, double *factor, double *gates,
                                             size_t gate_step) {
  const double *constant = constants + (size_t)row * CONST_STRIDE;
  const double old_voltage = voltage[e];
  membrane_row(constant[CONST_DIAGONAL_BASE], constant[CONST_C_OVER_DT],
               constant[CONST_LEAK_CURRENT], old_voltage,
               stimulus_current(&args->stimulus, v->neuron[s], args->time_ms), &factor[e],
               &voltage[e]);
  channels_row_any(channels, &channels->mechanism[MECHANISM_HH], rate_table,
                   j + v->first_compartment[s], old_voltage, args->dt_ms, hh_scale[row], &gates[e],
                   gate_step, &factor[e], &voltage[e]);
}

/* The CPU codelets' first pass of a backward sweep when channels are on every compartment
 * (channels.placement PLACE_ALL): every element's row (membrane_row then channels_row, as
 * level_backward_system would call them) left in factor[e] (diagonal) and voltage[e] (rhs), and
 * the gates advanced. Row by row, the systems of a row are contiguous, so this pass vectorises
 * across systems the way the mono kernels vectorise across neurons, with the bits of the scalar
 * calls (a padding element of CP gets its identity row and no channels, as in the sweep). The
 * element a stimulus enters, one system in a row at most, is done apart in scalar code (the
 * clamp's time test would keep the loop from vectorising). The sweep then runs with
 * rows_assembled = 1. variant: a constant (enum channel_variant) where this is inlined. */
static inline __attribute__((always_inline)) void
level_assemble_rows_variant(const struct level_block_view *v, int row_begin, int row_end,
                            const double *LEVEL_RESTRICT constants,
                            const struct level_step_arguments *args, double *LEVEL_RESTRICT voltage,
                            double *LEVEL_RESTRICT factor, double *LEVEL_RESTRICT gates,
                            const double *LEVEL_RESTRICT rate_table, int variant) {
  /* Locals, so that nothing the loop reads may change with its stores: the vectoriser then
   * needs no branch (each lane computes everything, selects keep what the sweep would keep). */
  const struct channel_set channels = args->channels;
  const double dt_ms = args->dt_ms;
  const int stimulus_compartment = args->stimulus.compartment;
  const int n_gates = channels.n_gates;
  const size_t gate_step = v->elements;
  const double *LEVEL_RESTRICT hh_scale = constants + (size_t)CONST_STRIDE * args->constant_rows;
  const int *LEVEL_RESTRICT sizes = v->size, *LEVEL_RESTRICT first_rows = v->first_row;
  const int *LEVEL_RESTRICT first_compartments = v->first_compartment;
  /* channel_lanes_any tests each mechanism's placement once for all its lanes, which in a row
   * are compartments of every kind: only sets with no mechanism on the soma alone */
  int lanes_any = channel_shapes_are_constant(&channels);
  for (int m = 0; m < MECHANISM_COUNT; m++)
    lanes_any &= channels.mechanism[m].placement != PLACE_SOMA;
  for (int j = row_begin; j < row_end; j++) {
    const int first = v->row_offset[j], count = v->row_offset[j + 1] - first;
    if (!v->padded) {
      /* NCP: runs between the systems the stimulus enters vectorised, each of those in scalar
       * code as below (elements do not depend on one another: the same bits in any order) */
      for (int begin = 0; begin < count;) {
        int end = begin;
        while (end < count && j != stimulus_compartment - first_compartments[end])
          end++;
        level_assemble_row_run(j, first, begin, end, first_rows, first_compartments, constants,
                               hh_scale, &channels, dt_ms, voltage, factor, gates, gate_step,
                               rate_table, variant, lanes_any);
        if (end < count)
          level_assemble_stimulated(v, j, end, first + end, first_rows[end] + j, constants, args,
                                    &channels, hh_scale, rate_table, voltage, factor, gates,
                                    gate_step);
        begin = end + 1;
      }
      continue;
    }
#pragma omp simd
    for (int s = 0; s < count; s++) {
      const int e = first + s, real = j < sizes[s];
      const int stimulated = real & (j == stimulus_compartment - first_compartments[s]);
      const int row = level_row(j, sizes[s], first_rows[s]), at = row * CONST_STRIDE; /* gathers */
      const double old_voltage = voltage[e];
      double d, r, dc, rc, advanced[CHANNELS_MAX_GATES];
      for (int g = 0; g < CHANNELS_MAX_GATES; g++)
        if (g < n_gates)
          advanced[g] = gates[(size_t)g * gate_step + e];
      membrane_row(constants[at + CONST_DIAGONAL_BASE], constants[at + CONST_C_OVER_DT],
                   constants[at + CONST_LEAK_CURRENT], old_voltage, 0.0, &d, &r);
      dc = d, rc = r;
      channels_row(&channels, &channels.mechanism[MECHANISM_HH], variant, rate_table,
                   first_compartments[s] + j, old_voltage, dt_ms, hh_scale[row], advanced, 1, &dc,
                   &rc);
      /* padding: the bare row; stimulated: untouched, done below */
      factor[e] = stimulated ? factor[e] : real ? dc : d;
      voltage[e] = stimulated ? voltage[e] : real ? rc : r;
      for (int g = 0; g < CHANNELS_MAX_GATES; g++)
        if (g < n_gates)
          gates[(size_t)g * gate_step + e] =
              real & !stimulated ? advanced[g] : gates[(size_t)g * gate_step + e];
    }
    for (int s = 0; s < count; s++)
      if (j < sizes[s] && j == stimulus_compartment - first_compartments[s])
        level_assemble_stimulated(v, j, s, first + s, first_rows[s] + j, constants, args, &channels,
                                  hh_scale, rate_table, voltage, factor, gates, gate_step);
  }
}
/* One copy of the loop per variant (enum channel_variant), so no lane computes another's code. */
static inline void level_assemble_rows(const struct level_block_view *v, int row_begin, int row_end,
                                       const double *LEVEL_RESTRICT constants,
                                       const struct level_step_arguments *args,
                                       double *LEVEL_RESTRICT voltage,
                                       double *LEVEL_RESTRICT factor,
                                       double *LEVEL_RESTRICT gates) {
  const double *rate_table = level_rate_table(constants, args);
  switch (channel_variant_of(&args->channels, rate_table)) {
  case CHANNELS_HH_EXACT:
    level_assemble_rows_variant(v, row_begin, row_end, constants, args, voltage, factor, gates,
                                NULL, CHANNELS_HH_EXACT);
    break;
  case CHANNELS_HH_TABLE:
    level_assemble_rows_variant(v, row_begin, row_end, constants, args, voltage, factor, gates,
                                rate_table, CHANNELS_HH_TABLE);
    break;
  case CHANNELS_ANY_EXACT:
    level_assemble_rows_variant(v, row_begin, row_end, constants, args, voltage, factor, gates,
                                NULL, CHANNELS_ANY_EXACT);
    break;
  default:
    level_assemble_rows_variant(v, row_begin, row_end, constants, args, voltage, factor, gates,
                                rate_table, CHANNELS_ANY_TABLE);
  }
}
#endif

/* What one group of the forward sweep reads. */
struct level_forward_group {
  int e[LEVEL_FORWARD_PREFETCH];
  double scaled_rhs[LEVEL_FORWARD_PREFETCH], factor[LEVEL_FORWARD_PREFETCH];
};

/* row_factor (level_row_factors): each element's factor from its row instead of the factor
 * array. */
static inline HINES_HOST_DEVICE void level_forward_load(const struct level_block_view *v, int s,
                                                        int group, int top, const double *voltage,
                                                        const double *LEVEL_RESTRICT factor,
                                                        const double *LEVEL_RESTRICT row_factor,
                                                        struct level_forward_group *g,
                                                        int prefetch) {
  LEVEL_UNROLL
  for (int b = 0; b < LEVEL_FORWARD_PREFETCH; b++)
    if (b < prefetch && group + b < top) {
      g->e[b] = v->row_offset[group + b] + s;
      g->scaled_rhs[b] = voltage[g->e[b]];
      g->factor[b] = row_factor ? row_factor[level_row(group + b, v->size[s], v->first_row[s])]
                                : factor[g->e[b]];
    }
}

/* Forward sweep of a subtree system: element j's parent is j - its parent step, the element
 * just solved (registers) or an earlier one (what this thread stored). Element j + 1's loads
 * are issued before element j's arithmetic. */
/* junction_voltage: where the subtree's junction value is (NULL: 0, as for a root, or the
 * grounded sweep of the branch kernel, codelets/branch_step.h). */
static inline HINES_HOST_DEVICE void
level_forward_tree_from(const struct level_block_view *v, int s, double *voltage,
                        const double *LEVEL_RESTRICT factor,
                        const double *LEVEL_RESTRICT row_factor, const double *junction_voltage) {
  const int size = v->size[s], first_row = v->first_row[s];
  int e = v->row_offset[0] + s, step = 0;
  double scaled_rhs = voltage[e], factor_j = row_factor ? row_factor[first_row] : factor[e];
  LEVEL_AFTER_FIRST_LOADS();
  double x = junction_voltage ? LEVEL_LOAD_PRODUCED(junction_voltage) : 0.0;
  for (int j = 0; j < size; j++) {
    int e_next = 0, step_next = 0;
    double scaled_rhs_next = 0.0, factor_next = 0.0;
    if (HINES_ON_GPU && LEVEL_TREE_L2_AHEAD > 0 && j + LEVEL_TREE_L2_AHEAD < size) {
      const int far = v->row_offset[j + LEVEL_TREE_L2_AHEAD] + s;
      HINES_PREFETCH_L2(voltage + far);
      if (!row_factor)
        HINES_PREFETCH_L2(factor + far);
    }
    if (j + 1 < size) {
      e_next = v->row_offset[j + 1] + s;
      step_next = level_shape(v, s, j + 1, SHAPE_PARENT_STEP);
      scaled_rhs_next = voltage[e_next];
      factor_next = row_factor ? row_factor[first_row + j + 1] : factor[e_next];
    }
    const double parent_x = j == 0 || step == 1 ? x : voltage[v->row_offset[j - step] + s];
    x = fma(-factor_j, parent_x, scaled_rhs);
    voltage[e] = x;
    e = e_next, step = step_next, scaled_rhs = scaled_rhs_next, factor_j = factor_next;
  }
}

static inline HINES_HOST_DEVICE void
level_forward_tree(const struct level_block_view *v, int s, double *voltage,
                   const double *LEVEL_RESTRICT factor, const double *LEVEL_RESTRICT row_factor,
                   const double *LEVEL_RESTRICT parent_voltage) {
  const int junction = v->junction[s];
  level_forward_tree_from(v, s, voltage, factor, row_factor,
                          junction >= 0 ? &parent_voltage[junction] : 0);
}

/* Forward sweep of system s: from the junction's solution (parent level) outwards; the next
 * group's loads are in flight during the current group's arithmetic, as in the backward sweep.
 * prefetch: the group's size, a constant of at most LEVEL_FORWARD_PREFETCH (the arithmetic and
 * its order do not depend on it). */
static inline HINES_HOST_DEVICE void
level_forward_system_in_groups(const struct level_block_view *v, int s, double *voltage,
                               const double *LEVEL_RESTRICT factor,
                               const double *LEVEL_RESTRICT row_factor,
                               const double *LEVEL_RESTRICT parent_voltage, int prefetch) {
  if (v->trees && v->tree[s] >= 0) {
    level_forward_tree(v, s, voltage, factor, row_factor, parent_voltage);
    return;
  }
  const int top = v->padded ? v->max_size : v->size[s], junction = v->junction[s];
  struct level_forward_group current = {.e = {0}}, next = {.e = {0}};
  if (top > 0)
    level_forward_load(v, s, 0, top, voltage, factor, row_factor, &current, prefetch);
  LEVEL_AFTER_FIRST_LOADS();
  double x = junction >= 0 ? LEVEL_LOAD_PRODUCED(&parent_voltage[junction]) : 0.0;
  for (int group = 0; group < top; group += prefetch) {
    if (group + prefetch < top)
      level_forward_load(v, s, group + prefetch, top, voltage, factor, row_factor, &next, prefetch);
    LEVEL_UNROLL
    for (int b = 0; b < LEVEL_FORWARD_PREFETCH; b++)
      if (b < prefetch && group + b < top) {
        x = fma(-current.factor[b], x, current.scaled_rhs[b]);
        voltage[current.e[b]] = x;
      }
    current = next;
  }
}

/* The same in groups of LEVEL_FORWARD_PREFETCH, factors from the array. */
static inline HINES_HOST_DEVICE void
level_forward_system(const struct level_block_view *v, int s, double *voltage,
                     const double *LEVEL_RESTRICT factor,
                     const double *LEVEL_RESTRICT parent_voltage) {
  level_forward_system_in_groups(v, s, voltage, factor, NULL, parent_voltage,
                                 LEVEL_FORWARD_PREFETCH);
}

/* The same, factors from the rows where row_factor is not NULL (level_row_factors). */
static inline HINES_HOST_DEVICE void level_forward_system_rows(
    const struct level_block_view *v, int s, double *voltage, const double *LEVEL_RESTRICT factor,
    const double *LEVEL_RESTRICT row_factor, const double *LEVEL_RESTRICT parent_voltage) {
  level_forward_system_in_groups(v, s, voltage, factor, row_factor, parent_voltage,
                                 LEVEL_FORWARD_PREFETCH);
}

/* The trunk sweeps (level_layout.h): thread t walks its neuron's systems of the levels near
 * the root one after another, the same per-system arithmetic as the level kernels, so the
 * results are bitwise those of the level-by-level sweeps. part_ints: the part's level
 * descriptions (the trunk's offsets index them); links index the part's arrays. */
static inline HINES_HOST_DEVICE void level_trunk_backward(const int *part_ints, const int *trunk,
                                                          int t,
                                                          const double *LEVEL_RESTRICT constants,
                                                          const struct level_step_arguments *args,
                                                          double *voltage, double *factor,
                                                          double *contribution, double *gates) {
  const int tail = trunk[TRUNK_LEVELS], threads = trunk[TRUNK_THREADS];
  const int *ints_offset = trunk + TRUNK_HEADER_SIZE, *element_offset = ints_offset + tail;
  const int *system_offset = element_offset + tail, *list_first = system_offset + tail;
  const int *list = list_first + threads + 1;
  for (int i = list_first[t]; i < list_first[t + 1]; i++) {
    const int level = list[2 * i], s = list[2 * i + 1];
    const struct level_block_view v = level_block_describe(part_ints + ints_offset[level]);
    const size_t e = (size_t)element_offset[level];
    level_backward_system(&v, s, constants, args, voltage + e, factor + e,
                          contribution + 2 * (size_t)system_offset[level], contribution,
                          gates ? gates + (size_t)args->channels.n_gates * e : NULL, 0);
  }
}

static inline HINES_HOST_DEVICE void level_trunk_forward(const int *part_ints, const int *trunk,
                                                         int t, double *voltage,
                                                         const double *factor,
                                                         const double *row_factor) {
  const int tail = trunk[TRUNK_LEVELS], threads = trunk[TRUNK_THREADS];
  const int *ints_offset = trunk + TRUNK_HEADER_SIZE, *element_offset = ints_offset + tail;
  const int *list_first = element_offset + 2 * tail;
  const int *list = list_first + threads + 1;
  for (int i = list_first[t + 1] - 1; i >= list_first[t]; i--) { /* parents first */
    const int level = list[2 * i], s = list[2 * i + 1];
    const struct level_block_view v = level_block_describe(part_ints + ints_offset[level]);
    const size_t e = (size_t)element_offset[level];
    level_forward_system_rows(&v, s, voltage + e, factor + e, row_factor, voltage);
  }
}

/* A chunk task's arrays hold one or more parts (independent sets of neurons, each a level batch
 * chunk of its own) back to back. Part P starts at ints + ints_base, values + element_base (gates
 * at + n_gates * element_base), contributions + 2 * system_base; within it level L's description is
 * at
 * + ints_offset[L], its values at + element_offset[L] (gates: n_gates blocks of that level's count
 * each, at + n_gates * element_offset[L]), its contributions at + 2 * system_offset[L]. Links index
 * the part's arrays. */
struct chunk_levels {
  int n_levels;
  const size_t *ints_offset, *element_offset, *system_offset;
  const int *systems;
  size_t ints_base, element_base, system_base;
  const int *host_ints; /* the part's level descriptions in host memory (read-only) */
  /* Levels 0 .. tail_levels - 1 form the trunk (0: none), swept by trunk_threads threads; its
   * array sits at ints + trunk_offset in the part. With trunk_branches, the branch step solves
   * the trunk instead (codelets/branch_step.h, its schedule over the trunk's levels at
   * schedule_offset): passive NCP steps only. */
  int tail_levels, trunk_threads, trunk_branches;
  size_t trunk_offset;
  /* The kernel's schedule at ints + schedule_offset in the part: the cell-block schedule
   * (codelets/cell_block.h, cell_blocks blocks of cell_threads threads) with LEVEL_KERNEL_CELL,
   * the flow schedule (codelets/level_flow.h) with LEVEL_KERNEL_FLOW, the branch schedule with
   * LEVEL_KERNEL_BRANCHES or a trunk of branches, nothing otherwise. */
  size_t schedule_offset;
  int cell_blocks, cell_threads;
};

/* A whole step of one chunk task: for each part, every level's backward sweep, deepest first,
 * then every forward sweep. On a GPU the parts run on separate streams, each starting once the
 * previous part's deepest level is eliminated: a part's latency-bound levels near the root then
 * overlap another part's large levels instead of leaving the GPU idle. */
/* How a chunk task launches its level kernels on a GPU of compute capability 9.0 or newer
 * (one part only; elsewhere launches are plain): early, so that each level's kernel starts and
 * issues its first loads while the previous level's kernel finishes (enum level_launch below),
 * or plainly once the previous kernel has finished. AUTO is a batch's choice, resolved before
 * any task sees it (runtime/multi_batch.h). */
enum gpu_launch { GPU_LAUNCH_EARLY, GPU_LAUNCH_PLAIN, GPU_LAUNCH_AUTO };

/* How a chunk task solves its levels: one kernel per level and sweep (the trunk's, the graphs and
 * the launch modes above), one branch kernel per part (below), one cell-block kernel per part
 * for the whole step
 * (codelets/cell_block.h; on a CPU its host emulation), one flow kernel per part
 * (codelets/level_flow.h: no boundary between levels; on a CPU level by level, the same bits),
 * or one on-chip cell kernel per part (codelets/cell_block.h: each block's rows in shared
 * memory; on a CPU level by level, the same bits). */
enum level_kernel {
  LEVEL_KERNEL_LEVELS,
  LEVEL_KERNEL_CELL,
  LEVEL_KERNEL_FLOW,
  LEVEL_KERNEL_SHARED,
  /* one branch kernel per part (codelets/branch_step.h: every branch at once, then the
   * junctions; passive NCP steps only; on a CPU its host emulation, the same bits) */
  LEVEL_KERNEL_BRANCHES,
  /* a batch's choice between the branch kernel and the level kernels, resolved before any task
   * sees it (runtime/multi_batch.h, MULTI_BRANCH_KERNEL_COMPARTMENTS) */
  LEVEL_KERNEL_AUTO
};

/* Where a GPU builds the rows of the level kernels' backward sweeps when channels are on every
 * compartment: inside each branch's sweep (fused: one pass over the data) or first, one thread
 * per element (apart: every gate computed at once by a full grid, the sweeps then eliminate only,
 * at the cost of writing and reading each row once more). The CPU codelets always assemble first
 * (level_assemble_rows); the bits are the same either way. AUTO is a batch's choice, resolved
 * before any task sees it (runtime/multi_batch.h). */
enum level_rows { LEVEL_ROWS_FUSED, LEVEL_ROWS_APART, LEVEL_ROWS_AUTO };

struct chunk_step_arguments {
  struct level_step_arguments step;
  enum gpu_launch gpu_launch;
  enum level_kernel kernel;
  /* With channels everywhere, the levels of fewer systems than this build their rows apart on a
   * GPU (enum level_rows; 0: none, INT_MAX: all). */
  int rows_apart_below;
  /* Nonzero: the kernels of a chunk step's graph that cannot fill the GPU run at the device's
   * highest stream priority, the others at its lowest (small levels first,
   * hines_level_codelets.c); order of execution only, the same bits. */
  int level_priorities;
  int n_parts;
  const struct chunk_levels *parts;
};

/* How a CUDA launcher's kernel follows the previous kernel of its stream. A kernel launched
 * early sits on the SMs left free by the previous one and waits there (LEVEL_AFTER_FIRST_LOADS)
 * for it to finish, so a chain of small levels does not pay a launch and a first round of
 * memory latency per level. Early launches need compute capability 9.0; elsewhere they are
 * plain. A kernel launched early lets the next one start once it has waited. */
enum level_launch {
  LEVEL_LAUNCH_PLAIN,       /* starts once the previous kernel has finished */
  LEVEL_LAUNCH_EARLY_LOADS, /* may start before, and issue its first loads: the previous kernel
                               writes none of them */
  LEVEL_LAUNCH_EARLY,       /* may start before, but waits before any load */
};

/* How each kernel of one part's step is launched, in queue order: backward[level] (deepest
 * first), the trunk's two kernels, forward[level] (root first); -1 where a level has no system
 * (no kernel). A kernel may issue its first loads early only when the kernel queued just before
 * it writes none of them: a backward level after a deeper backward level, a forward level after
 * a shallower forward level or the trunk. The step's first kernel (the stream's previous kernel
 * may be this chunk's last forward sweep of the previous step), the first forward kernel right
 * after the backward kernel of the same level, and the trunk (which reads the level below it
 * first) wait before loading. Empty levels launch nothing, so "just before" skips them. */
static inline void level_plan_launches(int n_levels, const int *systems, int tail,
                                       int trunk_threads, int early, int *backward, int *forward,
                                       int *trunk) {
  int launched = 0;
  for (int level = n_levels - 1; level >= 0; level--) {
    backward[level] = -1;
    if (level >= tail && systems[level] > 0)
      backward[level] = !early       ? LEVEL_LAUNCH_PLAIN
                        : launched++ ? LEVEL_LAUNCH_EARLY_LOADS
                                     : LEVEL_LAUNCH_EARLY;
  }
  const int with_trunk = tail > 0 && trunk_threads > 0;
  *trunk = !with_trunk ? -1 : early ? LEVEL_LAUNCH_EARLY : LEVEL_LAUNCH_PLAIN;
  int first_forward = 1;
  for (int level = 0; level < n_levels; level++) {
    forward[level] = -1;
    if (level >= tail && systems[level] > 0) {
      forward[level] = !early                         ? LEVEL_LAUNCH_PLAIN
                       : first_forward && !with_trunk ? LEVEL_LAUNCH_EARLY
                                                      : LEVEL_LAUNCH_EARLY_LOADS;
      first_forward = 0;
    }
  }
}

#ifdef __cplusplus
extern "C" {
#endif
/* CUDA launchers (hines_level_cuda.cu), asynchronous on `stream`; 0 or a cudaError_t.
 * block_ints is the device copy of the level block; host_block, when not NULL, its host copy
 * (the kernel then gets the description by value instead of reading it first). */
int level_backward_cuda(const int *block_ints, const int *host_block, int systems,
                        const double *constants, const struct level_step_arguments *args,
                        double *voltage, double *factor, double *contribution,
                        const double *child_contribution, double *gates, int rows_assembled,
                        enum level_launch launch, void *stream);
/* Every element's row of a part's levels 0 .. n_levels - 1 (level_assemble_element, one thread
 * an element; gates advanced), for backward sweeps with rows_assembled. part_ints: the part's
 * device ints, host_part_ints their host copy (the launch's size); the offsets as in struct
 * chunk_levels. */
int level_rows_cuda(const int *part_ints, const int *host_part_ints, int n_levels,
                    const size_t *ints_offset, const size_t *element_offset,
                    const double *constants, const struct level_step_arguments *args,
                    double *voltage, double *factor, double *gates, enum level_launch launch,
                    void *stream);
/* lean: level_step_arguments.lean_sweeps of the step; row_factor: level_row_factors of the
 * step's backward sweeps (NULL: the factor array). */
int level_forward_cuda(const int *block_ints, const int *host_block, int systems, double *voltage,
                       const double *factor, const double *row_factor, const double *parent_voltage,
                       int lean, enum level_launch launch, void *stream);
/* The trunk sweeps, one thread per trunk thread (device pointers). */
int level_trunk_backward_cuda(const int *part_ints, const int *trunk, int threads,
                              const double *constants, const struct level_step_arguments *args,
                              double *voltage, double *factor, double *contribution, double *gates,
                              enum level_launch launch, void *stream);
int level_trunk_forward_cuda(const int *part_ints, const int *trunk, int threads, double *voltage,
                             const double *factor, const double *row_factor,
                             enum level_launch launch, void *stream);
#ifdef __cplusplus
}
#endif

#endif
