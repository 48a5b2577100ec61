/* The CPU codelets' level sweeps row by row: the systems of a block of a level advance together,
 * one row (element j of each system) at a time, so that a core streams each row's contiguous
 * elements (level_layout.h: element j of system s at row_offset[j] + s) and vectorises across
 * systems, as a GPU's threads do. The branch-by-branch sweeps of hines_level_kernels.h walk one
 * system down its rows a whole level's width apart, a cache line for every element.
 *
 * Each element gets the branch-by-branch sweep's calls in its order (membrane_row, the
 * children's contributions in their fixed order, level_pivot or level_pivot_stored), and systems
 * do not depend on one another within a level, so the bits are those of
 * level_backward_system_in_groups and level_forward_system_rows (test_multi_levels asserts it).
 * Blocks they do not cover (CP padding, subtree systems, channels assembled inside the sweep)
 * go branch by branch. */
#ifndef HINES_LEVEL_ROWS_CPU_H
#define HINES_LEVEL_ROWS_CPU_H

#include "hines_level_kernels.h"

/* Systems a block of the row sweeps holds: its state (three doubles a system backward, one
 * forward) stays in L1 while the rows stream through. */
#define LEVEL_ROWS_BLOCK 128

/* Whether systems [begin, end) of v can go row by row: NCP, no subtree system, sizes not
 * increasing (so the systems holding row j are a prefix of the block). */
static inline int level_rows_cover(const struct level_block_view *v, int begin, int end) {
  if (v->padded)
    return 0;
  for (int s = begin; s < end; s++)
    if ((v->trees && v->tree[s] >= 0) || (s > begin && v->size[s] > v->size[s - 1]))
      return 0;
  return 1;
}

/* How many systems of [begin, begin + n) hold row j (0 to n). */
static inline int level_rows_holding(const struct level_block_view *v, int j, int begin, int n) {
  if (j >= v->max_size)
    return 0;
  const int holding = v->row_offset[j + 1] - v->row_offset[j] - begin;
  return holding < 0 ? 0 : holding > n ? n : holding;
}

/* What a block's backward rows read of each of its n systems from `begin` on: its constants'
 * first row, the row its stimulus enters (as the per-system sweeps compute it) and the current
 * injected there (0 when it enters none of the system's rows). */
static inline void level_rows_systems(const struct level_block_view *v, int begin, int n,
                                      const struct level_step_arguments *args, int *first_row,
                                      int *stimulated, double *injected) {
  for (int k = 0; k < n; k++) {
    const int s = begin + k;
    first_row[k] = v->first_row[s];
    stimulated[k] = args->stimulus.compartment - v->first_compartment[s];
    injected[k] = stimulated[k] >= 0 && stimulated[k] < v->size[s]
                      ? stimulus_current(&args->stimulus, v->neuron[s], args->time_ms)
                      : 0.0;
  }
}

/* Row j of the backward sweep for the systems [0, going_on) of a block that continue from row
 * j + 1 (level_backward_rows): rows_assembled, pivots (read the inverse pivots) and
 * store_factor are constants where this is inlined, so that each combination is a loop of its
 * own without branches, which the compiler vectorises (gathering the constants' rows). */
static inline __attribute__((always_inline)) void
level_rows_going_on(int going_on, int j, const double *LEVEL_RESTRICT constants,
                    const double *LEVEL_RESTRICT inverse_pivots,
                    const int *LEVEL_RESTRICT first_row, const int *LEVEL_RESTRICT stimulated,
                    const double *LEVEL_RESTRICT injected, double *LEVEL_RESTRICT row_voltage,
                    double *LEVEL_RESTRICT row_factor_out, double *LEVEL_RESTRICT previous_factor,
                    double *LEVEL_RESTRICT previous_rhs,
                    double *LEVEL_RESTRICT previous_off_diagonal, const int rows_assembled,
                    const int pivots, const int store_factor) {
#pragma omp simd
  for (int k = 0; k < going_on; k++) {
    const int r = first_row[k] + j, at = r * CONST_STRIDE;
    const double off_diagonal = constants[at + CONST_OFF_DIAGONAL];
    double dj, rj;
    if (rows_assembled) {
      dj = row_factor_out[k];
      rj = row_voltage[k];
    } else {
      membrane_row(pivots ? inverse_pivots[r] : constants[at + CONST_DIAGONAL_BASE],
                   constants[at + CONST_C_OVER_DT], constants[at + CONST_LEAK_CURRENT],
                   row_voltage[k], j == stimulated[k] ? injected[k] : 0.0, &dj, &rj);
    }
    dj = fma(-previous_factor[k], previous_off_diagonal[k], dj);
    rj = fma(-previous_factor[k], previous_rhs[k], rj);
    double scaled_rhs, eliminated_factor;
    if (pivots)
      level_pivot_stored(off_diagonal, rj, inverse_pivots[r], &eliminated_factor, &scaled_rhs);
    else
      level_pivot(off_diagonal, rj, dj, &eliminated_factor, &scaled_rhs);
    if (store_factor)
      row_factor_out[k] = eliminated_factor;
    row_voltage[k] = scaled_rhs;
    previous_factor[k] = eliminated_factor;
    previous_rhs[k] = rj;
    previous_off_diagonal[k] = off_diagonal;
  }
}

/* The backward sweep of systems [begin, end) of v, at most LEVEL_ROWS_BLOCK, row by row: what
 * level_backward_system_in_groups leaves for each of them (voltage, factor, contribution). gates
 * without rows_assembled (channels inside the sweep) go branch by branch. */
static inline void level_backward_rows(
    const struct level_block_view *v, int begin, int end, const double *LEVEL_RESTRICT constants,
    const struct level_step_arguments *args, double *voltage, double *LEVEL_RESTRICT factor,
    double *LEVEL_RESTRICT contribution, const double *LEVEL_RESTRICT child_contribution,
    double *LEVEL_RESTRICT gates, int rows_assembled, int stored_pivots) {
  if ((gates && !rows_assembled) || end - begin > LEVEL_ROWS_BLOCK ||
      !level_rows_cover(v, begin, end)) {
    for (int s = begin; s < end; s++)
      level_backward_system_in_groups(v, s, constants, args, voltage, factor, contribution,
                                      child_contribution, gates, rows_assembled, LEVEL_PREFETCH,
                                      stored_pivots);
    return;
  }
  const int n = end - begin;
  const double *inverse_pivots =
      stored_pivots ? level_stored_pivots(constants, args, gates, rows_assembled) : 0;
  const double *row_factor = level_row_factors(constants, args, gates, rows_assembled);
  /* of each system's element eliminated last (one further from the junction) */
  double previous_factor[LEVEL_ROWS_BLOCK], previous_rhs[LEVEL_ROWS_BLOCK],
      previous_off_diagonal[LEVEL_ROWS_BLOCK], injected[LEVEL_ROWS_BLOCK];
  int stimulated[LEVEL_ROWS_BLOCK], first_row[LEVEL_ROWS_BLOCK];
  level_rows_systems(v, begin, n, args, first_row, stimulated, injected);
  for (int k = 0; k < n; k++)
    previous_factor[k] = previous_rhs[k] = previous_off_diagonal[k] = 0.0;
  const int top = n > 0 ? v->size[begin] : 0; /* the block's longest system */
  for (int j = top - 1; j >= 0; j--) {
    const int holding = level_rows_holding(v, j, begin, n);
    /* systems [0, going_on) continue from row j + 1; [going_on, holding) start at row j */
    const int going_on = level_rows_holding(v, j + 1, begin, n);
    double *LEVEL_RESTRICT row_voltage = voltage + v->row_offset[j] + begin;
    double *LEVEL_RESTRICT row_factor_out = factor + v->row_offset[j] + begin;
#define GOING_ON(ASSEMBLED, PIVOTS, STORE)                                                         \
  level_rows_going_on(going_on, j, constants, inverse_pivots, first_row, stimulated, injected,     \
                      row_voltage, row_factor_out, previous_factor, previous_rhs,                  \
                      previous_off_diagonal, ASSEMBLED, PIVOTS, STORE)
    if (rows_assembled) /* (no stored pivots nor row factors then) */
      GOING_ON(1, 0, 1);
    else if (inverse_pivots && row_factor)
      GOING_ON(0, 1, 0);
    else if (inverse_pivots)
      GOING_ON(0, 1, 1);
    else if (row_factor)
      GOING_ON(0, 0, 0);
    else
      GOING_ON(0, 0, 1);
#undef GOING_ON
    for (int k = going_on; k < holding; k++) { /* far ends: the children's contributions */
      const int s = begin + k;
      const double *row = constants + (size_t)(first_row[k] + j) * CONST_STRIDE;
      const double off_diagonal = row[CONST_OFF_DIAGONAL];
      double dj, rj;
      if (rows_assembled) {
        dj = row_factor_out[k];
        rj = row_voltage[k];
      } else {
        membrane_row(inverse_pivots ? inverse_pivots[first_row[k] + j] : row[CONST_DIAGONAL_BASE],
                     row[CONST_C_OVER_DT], row[CONST_LEAK_CURRENT], row_voltage[k],
                     j == stimulated[k] ? injected[k] : 0.0, &dj, &rj);
      }
      double scaled_rhs, eliminated_factor;
      if (inverse_pivots) {
        level_gather_children_rhs(v, s, child_contribution, &rj);
        level_pivot_stored(off_diagonal, rj, inverse_pivots[first_row[k] + j], &eliminated_factor,
                           &scaled_rhs);
      } else {
        level_gather_children(v, s, child_contribution, &dj, &rj);
        level_pivot(off_diagonal, rj, dj, &eliminated_factor, &scaled_rhs);
      }
      if (!row_factor)
        row_factor_out[k] = eliminated_factor;
      row_voltage[k] = scaled_rhs;
      previous_factor[k] = eliminated_factor;
      previous_rhs[k] = rj;
      previous_off_diagonal[k] = off_diagonal;
    }
  }
  for (int k = 0; k < n; k++) {
    contribution[2 * (begin + k)] = previous_factor[k] * previous_off_diagonal[k];
    contribution[2 * (begin + k) + 1] = previous_factor[k] * previous_rhs[k];
  }
}

/* The forward sweep of systems [begin, end) of v, at most LEVEL_ROWS_BLOCK, row by row: what
 * level_forward_system_rows leaves (row_factor: level_row_factors, or NULL). */
static inline void level_forward_rows(const struct level_block_view *v, int begin, int end,
                                      double *voltage, const double *LEVEL_RESTRICT factor,
                                      const double *LEVEL_RESTRICT row_factor,
                                      const double *parent_voltage) {
  if (end - begin > LEVEL_ROWS_BLOCK || !level_rows_cover(v, begin, end)) {
    for (int s = begin; s < end; s++)
      level_forward_system_rows(v, s, voltage, factor, row_factor, parent_voltage);
    return;
  }
  const int n = end - begin;
  double x[LEVEL_ROWS_BLOCK]; /* each system's last solved element: first its junction's */
  int first_row[LEVEL_ROWS_BLOCK];
  for (int k = 0; k < n; k++) {
    const int junction = v->junction[begin + k];
    x[k] = junction >= 0 ? parent_voltage[junction] : 0.0;
    first_row[k] = v->first_row[begin + k];
  }
  const int top = n > 0 ? v->size[begin] : 0;
  for (int j = 0; j < top; j++) {
    const int holding = level_rows_holding(v, j, begin, n);
    double *LEVEL_RESTRICT row_voltage = voltage + v->row_offset[j] + begin;
    const double *LEVEL_RESTRICT row_factors = factor + v->row_offset[j] + begin;
#pragma omp simd
    for (int k = 0; k < holding; k++) {
      const double f = row_factor ? row_factor[first_row[k] + j] : row_factors[k];
      x[k] = fma(-f, x[k], row_voltage[k]);
      row_voltage[k] = x[k];
    }
  }
}

#endif
