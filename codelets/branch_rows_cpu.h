/* The branch kernel's phases A and C (codelets/branch_step.h) on CPUs row by row, as the level
 * sweeps of level_rows_cpu.h: the systems of a block of a level advance together one row at a
 * time, streaming each row's contiguous elements and vectorising across systems. Each element
 * gets branch_grounded_system's and branch_response_system's operations in their order, and
 * the systems of a level are independent in both phases, so the bits are theirs
 * (test_multi_levels asserts it). Blocks level_rows_cover refuses go system by system. */
#ifndef HINES_BRANCH_ROWS_CPU_H
#define HINES_BRANCH_ROWS_CPU_H

#include "branch_step.h"
#include "level_rows_cpu.h"

/* Phase A for systems [begin, end) of v, at most LEVEL_ROWS_BLOCK: the grounded voltages X in
 * `voltage`, and system s's XL and KR in contribution[2s], [2s + 1] (contribution: the level's
 * pairs). */
static inline void branch_grounded_rows(const struct level_block_view *v, int begin, int end,
                                        const double *LEVEL_RESTRICT constants,
                                        const struct level_step_arguments *args, double *voltage,
                                        double *LEVEL_RESTRICT contribution) {
  if (end - begin > LEVEL_ROWS_BLOCK || !level_rows_cover(v, begin, end)) {
    for (int s = begin; s < end; s++)
      branch_grounded_system(v, s, constants, args, voltage, &contribution[2 * s + 1],
                             &contribution[2 * s]);
    return;
  }
  const int n = end - begin;
  const double *LEVEL_RESTRICT inverse = constants + CONST_INVERSE_PIVOT(args->constant_rows);
  const double *LEVEL_RESTRICT row_factor = constants + CONST_ROW_FACTOR(args->constant_rows);
  double previous_factor[LEVEL_ROWS_BLOCK], previous_rhs[LEVEL_ROWS_BLOCK],
      injected[LEVEL_ROWS_BLOCK], x[LEVEL_ROWS_BLOCK];
  int stimulated[LEVEL_ROWS_BLOCK], first_row[LEVEL_ROWS_BLOCK];
  level_rows_systems(v, begin, n, args, first_row, stimulated, injected);
  struct level_rows_segments segments; /* runs of copies: their row's constants read once */
  level_rows_segments_of(first_row, n, &segments);
  for (int k = 0; k < n; k++)
    previous_factor[k] = previous_rhs[k] = x[k] = 0.0;
  const int top = n > 0 ? v->size[begin] : 0;
  for (int j = top - 1; j >= 0; j--) { /* elimination, C = 0 */
    const int holding = level_rows_holding(v, j, begin, n);
    const int going_on = level_rows_holding(v, j + 1, begin, n); /* j < size - 1 */
    double *LEVEL_RESTRICT row_voltage = voltage + v->row_offset[j] + begin;
    /* the diagonal is dead (the pivot is stored): 0 in its place */
#define GROUNDED_ELEMENT(R, AT)                                                                    \
  do {                                                                                             \
    double dj, rj;                                                                                 \
    membrane_row(0.0, constants[(AT) + CONST_C_OVER_DT], constants[(AT) + CONST_LEAK_CURRENT],     \
                 row_voltage[k], j == stimulated[k] ? injected[k] : 0.0, &dj, &rj);                \
    (void)dj;                                                                                      \
    if (k < going_on)                                                                              \
      rj = fma(-previous_factor[k], previous_rhs[k], rj);                                          \
    previous_factor[k] = row_factor[R];                                                            \
    row_voltage[k] = rj * inverse[R];                                                              \
    previous_rhs[k] = rj;                                                                          \
  } while (0)
    for (int g = 0, k0 = 0, k1; g < segments.count && k0 < holding; k0 = segments.end[g++]) {
      k1 = level_rows_segment_end(&segments, g, holding);
      if (segments.row[g] >= 0) {
        const int r = segments.row[g] + j, at = r * CONST_STRIDE;
#pragma omp simd
        for (int k = k0; k < k1; k++)
          GROUNDED_ELEMENT(r, at);
      } else {
#pragma omp simd
        for (int k = k0; k < k1; k++) {
          const int r = first_row[k] + j, at = r * CONST_STRIDE;
          GROUNDED_ELEMENT(r, at);
        }
      }
    }
#undef GROUNDED_ELEMENT
  }
  for (int j = 0; j < top; j++) { /* substitution, u = 0 */
    const int holding = level_rows_holding(v, j, begin, n);
    double *LEVEL_RESTRICT row_voltage = voltage + v->row_offset[j] + begin;
    level_rows_substitute(&segments, holding, j, first_row, row_factor, 0, x, row_voltage);
  }
  for (int k = 0; k < n; k++) {
    contribution[2 * (begin + k)] = x[k];                                     /* XL */
    contribution[2 * (begin + k) + 1] = previous_factor[k] * previous_rhs[k]; /* KR */
  }
}

/* Phase C for systems [begin, end) of v, at most LEVEL_ROWS_BLOCK: every element but a chain's
 * far end from its X, given the system's u and C in contribution[2s], [2s + 1]. */
static inline void branch_response_rows(const struct level_block_view *v, int begin, int end,
                                        const double *LEVEL_RESTRICT constants,
                                        const struct level_step_arguments *args, double *voltage,
                                        const double *LEVEL_RESTRICT contribution) {
  if (end - begin > LEVEL_ROWS_BLOCK || !level_rows_cover(v, begin, end)) {
    for (int s = begin; s < end; s++)
      branch_response_system(v, s, constants, args, voltage, contribution[2 * s],
                             contribution[2 * s + 1]);
    return;
  }
  const int n = end - begin;
  const double *LEVEL_RESTRICT p = constants + CONST_BRANCH_P(args->constant_rows);
  const double *LEVEL_RESTRICT q = constants + CONST_BRANCH_Q(args->constant_rows);
  double u[LEVEL_ROWS_BLOCK], c[LEVEL_ROWS_BLOCK];
  int first_row[LEVEL_ROWS_BLOCK];
  for (int k = 0; k < n; k++) {
    u[k] = contribution[2 * (begin + k)];
    c[k] = contribution[2 * (begin + k) + 1];
    first_row[k] = v->first_row[begin + k];
  }
  struct level_rows_segments segments; /* runs of copies: their row's constants read once */
  level_rows_segments_of(first_row, n, &segments);
  const int top = n > 0 ? v->size[begin] - 1 : 0; /* a chain's far end is phase B's */
  for (int j = 0; j < top; j++) {
    const int counted = level_rows_holding(v, j + 1, begin, n); /* j < size - 1 */
    double *LEVEL_RESTRICT row_voltage = voltage + v->row_offset[j] + begin;
    for (int g = 0, k0 = 0, k1; g < segments.count && k0 < counted; k0 = segments.end[g++]) {
      k1 = level_rows_segment_end(&segments, g, counted);
      if (segments.row[g] >= 0) {
        const double pj = p[segments.row[g] + j], qj = q[segments.row[g] + j];
#pragma omp simd
        for (int k = k0; k < k1; k++)
          row_voltage[k] = fma(qj, c[k], fma(pj, u[k], row_voltage[k]));
      } else {
#pragma omp simd
        for (int k = k0; k < k1; k++)
          row_voltage[k] =
              fma(q[first_row[k] + j], c[k], fma(p[first_row[k] + j], u[k], row_voltage[k]));
      }
    }
  }
}

#endif
