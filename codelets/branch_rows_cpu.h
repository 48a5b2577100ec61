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

/* The constants the branch rows read, gathered once per element and laid out as the voltages
 * (element j of system s of a level at row_offset[j] + s from the level's base), as
 * level_rows_cpu.h's level_element_constants for the level sweeps: a chunk of a few neurons of many
 * cells holds few copies of any branch, so its rows would otherwise gather six constants an
 * element every step. The values are the table's, so the bits are too. */
struct branch_element_constants {
  double *c_over_dt, *leak_current, *inverse_pivot, *row_factor, *p, *q;
};

/* ec from element `e` on (a level's base in its part). */
static inline struct branch_element_constants
branch_element_constants_from(const struct branch_element_constants *ec, size_t e) {
  return (struct branch_element_constants){
      ec->c_over_dt + e, ec->leak_current + e, ec->inverse_pivot + e, ec->row_factor + e, ec->p + e,
      ec->q + e};
}

/* Fills ec's entries of level block v (not padded), whose elements start at `base` in ec's
 * arrays, from the constants table of `constant_rows` rows. */
static inline void branch_element_constants_fill(const struct level_block_view *v,
                                                 const double *constants, int constant_rows,
                                                 const struct branch_element_constants *ec,
                                                 size_t base) {
  const double *inverse = constants + CONST_INVERSE_PIVOT(constant_rows);
  const double *row_factor = constants + CONST_ROW_FACTOR(constant_rows);
  const double *p = constants + CONST_BRANCH_P(constant_rows);
  const double *q = constants + CONST_BRANCH_Q(constant_rows);
  /* row by row (row j holds the systems [0, row_offset[j + 1] - row_offset[j])): the writes go
   * in order. System by system the six cells' chunks of 20 neurons ran 3 % slower a step than
   * without the element constants (one core of the dev machine); row by row 2-3 % faster. (The
   * level sweeps' fill, level_element_constants_fill, reading four values of a row's table
   * entry, ran 7-9 % slower row by row: all 15 cells in chunks of 4.) */
  for (int j = 0; j < v->max_size; j++)
    for (int s = 0; s < v->row_offset[j + 1] - v->row_offset[j]; s++) {
      const size_t e = base + (size_t)v->row_offset[j] + (size_t)s;
      const int r = v->first_row[s] + j;
      ec->c_over_dt[e] = constants[(size_t)r * CONST_STRIDE + CONST_C_OVER_DT];
      ec->leak_current[e] = constants[(size_t)r * CONST_STRIDE + CONST_LEAK_CURRENT];
      ec->inverse_pivot[e] = inverse[r];
      ec->row_factor[e] = row_factor[r];
      ec->p[e] = p[r];
      ec->q[e] = q[r];
    }
}

/* Phase A for systems [begin, end) of v, at most LEVEL_ROWS_BLOCK_MAX: the grounded voltages X in
 * `voltage`, and system s's XL and KR in contribution[2s], [2s + 1] (contribution: the level's
 * pairs). `ec`: the level's element constants (from its base), or NULL to read the table. */
static inline void branch_grounded_rows(const struct level_block_view *v, int begin, int end,
                                        const double *LEVEL_RESTRICT constants,
                                        const struct level_step_arguments *args, double *voltage,
                                        double *LEVEL_RESTRICT contribution,
                                        const struct branch_element_constants *ec) {
  if (end - begin > LEVEL_ROWS_BLOCK_MAX || !level_rows_cover(v, begin, end)) {
    for (int s = begin; s < end; s++)
      branch_grounded_system(v, s, constants, args, voltage, &contribution[2 * s + 1],
                             &contribution[2 * s]);
    return;
  }
  const int n = end - begin;
  const double *LEVEL_RESTRICT inverse = constants + CONST_INVERSE_PIVOT(args->constant_rows);
  const double *LEVEL_RESTRICT row_factor = constants + CONST_ROW_FACTOR(args->constant_rows);
  double previous_factor[LEVEL_ROWS_BLOCK_MAX], previous_rhs[LEVEL_ROWS_BLOCK_MAX],
      injected[LEVEL_ROWS_BLOCK_MAX], x[LEVEL_ROWS_BLOCK_MAX];
  int stimulated[LEVEL_ROWS_BLOCK_MAX], first_row[LEVEL_ROWS_BLOCK_MAX];
  level_rows_systems(v, begin, n, args, first_row, stimulated, injected);
  struct level_rows_segments segments; /* runs of copies: their row's constants read once */
  level_rows_segments_of(first_row, n, &segments);
  for (int k = 0; k < n; k++)
    previous_factor[k] = previous_rhs[k] = x[k] = 0.0;
  const int top = n > 0 ? v->size[begin] : 0;
  for (int j = top - 1; j >= 0; j--) { /* elimination, C = 0 */
    const int holding = level_rows_holding(v, j, begin, n);
    const int going_on = level_rows_holding(v, j + 1, begin, n); /* j < size - 1 */
    const size_t row_at = (size_t)v->row_offset[j] + (size_t)begin;
    double *LEVEL_RESTRICT row_voltage = voltage + row_at;
    /* the diagonal is dead (the pivot is stored): 0 in its place */
#define GROUNDED_ELEMENT(C_OVER_DT, LEAK_CURRENT, ROW_FACTOR, INVERSE_PIVOT)                       \
  do {                                                                                             \
    double dj, rj;                                                                                 \
    membrane_row(0.0, C_OVER_DT, LEAK_CURRENT, row_voltage[k],                                     \
                 j == stimulated[k] ? injected[k] : 0.0, &dj, &rj);                                \
    (void)dj;                                                                                      \
    if (k < going_on)                                                                              \
      rj = fma(-previous_factor[k], previous_rhs[k], rj);                                          \
    previous_factor[k] = ROW_FACTOR;                                                               \
    row_voltage[k] = rj * (INVERSE_PIVOT);                                                         \
    previous_rhs[k] = rj;                                                                          \
  } while (0)
    for (int g = 0, k0 = 0, k1; g < segments.count && k0 < holding; k0 = segments.end[g++]) {
      k1 = level_rows_segment_end(&segments, g, holding);
      if (segments.row[g] >= 0) {
        const int r = segments.row[g] + j, at = r * CONST_STRIDE;
#pragma omp simd
        for (int k = k0; k < k1; k++)
          GROUNDED_ELEMENT(constants[at + CONST_C_OVER_DT], constants[at + CONST_LEAK_CURRENT],
                           row_factor[r], inverse[r]);
      } else if (ec) { /* each its own, read in a row */
        const double *LEVEL_RESTRICT c_over_dt = ec->c_over_dt + row_at;
        const double *LEVEL_RESTRICT leak_current = ec->leak_current + row_at;
        const double *LEVEL_RESTRICT factor = ec->row_factor + row_at;
        const double *LEVEL_RESTRICT pivot = ec->inverse_pivot + row_at;
#pragma omp simd
        for (int k = k0; k < k1; k++)
          GROUNDED_ELEMENT(c_over_dt[k], leak_current[k], factor[k], pivot[k]);
      } else {
#pragma omp simd
        for (int k = k0; k < k1; k++) {
          const int r = first_row[k] + j, at = r * CONST_STRIDE;
          GROUNDED_ELEMENT(constants[at + CONST_C_OVER_DT], constants[at + CONST_LEAK_CURRENT],
                           row_factor[r], inverse[r]);
        }
      }
    }
#undef GROUNDED_ELEMENT
  }
  for (int j = 0; j < top; j++) { /* substitution, u = 0 */
    const int holding = level_rows_holding(v, j, begin, n);
    const size_t row_at = (size_t)v->row_offset[j] + (size_t)begin;
    level_rows_substitute(&segments, holding, j, first_row, row_factor,
                          ec ? ec->row_factor + row_at : 0, x, voltage + row_at, 0);
  }
  for (int k = 0; k < n; k++) {
    contribution[2 * (begin + k)] = x[k];                                     /* XL */
    contribution[2 * (begin + k) + 1] = previous_factor[k] * previous_rhs[k]; /* KR */
  }
}

/* Phase C for systems [begin, end) of v, at most LEVEL_ROWS_BLOCK_MAX: every element but a chain's
 * far end from its X, given the system's u and C in contribution[2s], [2s + 1]. `ec` as phase
 * A's. */
static inline void branch_response_rows(const struct level_block_view *v, int begin, int end,
                                        const double *LEVEL_RESTRICT constants,
                                        const struct level_step_arguments *args, double *voltage,
                                        const double *LEVEL_RESTRICT contribution,
                                        const struct branch_element_constants *ec) {
  if (end - begin > LEVEL_ROWS_BLOCK_MAX || !level_rows_cover(v, begin, end)) {
    for (int s = begin; s < end; s++)
      branch_response_system(v, s, constants, args, voltage, contribution[2 * s],
                             contribution[2 * s + 1]);
    return;
  }
  const int n = end - begin;
  const double *LEVEL_RESTRICT p = constants + CONST_BRANCH_P(args->constant_rows);
  const double *LEVEL_RESTRICT q = constants + CONST_BRANCH_Q(args->constant_rows);
  double u[LEVEL_ROWS_BLOCK_MAX], c[LEVEL_ROWS_BLOCK_MAX];
  int first_row[LEVEL_ROWS_BLOCK_MAX];
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
    const size_t row_at = (size_t)v->row_offset[j] + (size_t)begin;
    double *LEVEL_RESTRICT row_voltage = voltage + row_at;
    for (int g = 0, k0 = 0, k1; g < segments.count && k0 < counted; k0 = segments.end[g++]) {
      k1 = level_rows_segment_end(&segments, g, counted);
      if (segments.row[g] >= 0) {
        const double pj = p[segments.row[g] + j], qj = q[segments.row[g] + j];
#pragma omp simd
        for (int k = k0; k < k1; k++)
          row_voltage[k] = fma(qj, c[k], fma(pj, u[k], row_voltage[k]));
      } else if (ec) { /* each its own, read in a row */
        const double *LEVEL_RESTRICT pk = ec->p + row_at, *LEVEL_RESTRICT qk = ec->q + row_at;
#pragma omp simd
        for (int k = k0; k < k1; k++)
          row_voltage[k] = fma(qk[k], c[k], fma(pk[k], u[k], row_voltage[k]));
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
