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
 * Blocks they do not cover (CP padding, subtree systems, channels computed inside the sweep
 * where they reach the block: level_rows_channels_in) go branch by branch, but for runs of copies
 * of one subtree, which go row by row across the copies (level_backward_tree_rows,
 * level_forward_tree_rows: each copy's calls in the order of level_backward_tree_into and
 * level_forward_tree_from). */
#ifndef HINES_LEVEL_ROWS_CPU_H
#define HINES_LEVEL_ROWS_CPU_H

#include "hines_level_kernels.h"
#if defined(__AVX512F__) && defined(__AVX512VL__)
#include <immintrin.h>
#define LEVEL_RUN_LANES 8 /* the copies of a run a vector of registers holds */
#endif

/* Systems a block of the row sweeps holds: its state (three doubles a system backward, one
 * forward) stays in L1 while the rows stream through. */
#define LEVEL_ROWS_BLOCK 128
/* ... but a block starts where a run of copies of one branch (or subtree) starts, if that is
 * fewer than LEVEL_ROWS_BLOCK / 2 systems back, so that the runs are not cut into pieces too
 * short to go along (LEVEL_ROWS_RUN): a block holds up to this many. */
#define LEVEL_ROWS_BLOCK_MAX (LEVEL_ROWS_BLOCK + LEVEL_ROWS_BLOCK / 2)

/* Where block `block` of v's systems starts (v->systems past the last): block b holds
 * [level_rows_block_begin(v, b), level_rows_block_begin(v, b + 1)). */
static inline int level_rows_block_begin(const struct level_block_view *v, int block) {
  const int at = block * LEVEL_ROWS_BLOCK;
  if (at <= 0 || at >= v->systems)
    return at <= 0 ? 0 : v->systems;
  for (int s = at; s > at - LEVEL_ROWS_BLOCK / 2; s--)
    if (v->first_row[s - 1] != v->first_row[at])
      return s;
  return at; /* a longer run: cut where it was */
}

/* Whether channels computed inside a sweep (not assembled apart) reach an element of systems
 * [begin, end) of v: with mechanisms on the soma alone (PLACE_SOMA, compartment 0) only the
 * system holding it; elsewhere a sweep with gates computes just the membrane's row, as the
 * passive row sweeps do (pivots computed, factors stored: level_stored_pivots and
 * level_row_factors give none with gates), so those blocks go row by row too (dev machine, 2
 * cores, HH on the somas: the six cells x 3,000 18.3-19.4 ms a step against 51.5-52.3 system
 * by system, the large cells x 400 9.6-11.2 against 28.8-29.5, random trees x 800 4.7-4.8
 * against 15.2-16.0). */
static inline int level_rows_channels_in(const struct level_block_view *v, int begin, int end,
                                         const struct channel_set *channels) {
  if (channels->placement != PLACE_SOMA)
    return channels->placement != PLACE_NONE;
  for (int s = begin; s < end; s++)
    if (v->first_compartment[s] <= 0 && v->first_compartment[s] + v->size[s] > 0)
      return 1;
  return 0;
}

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

/* Systems in a run of at least this many with one first row (the copies of one branch, which
 * level_layout.c puts side by side) are swept with their row's constants read once, not gathered
 * system by system: passive multi steps on the dev machine's 2 cores, the six cells x 6,000
 * 26.5-26.9 ms against 34.6-35.5 with gathers, the large cells x 400 8.6-8.8 against 12.0-13.2,
 * the six cells x 1,200 (branch kernel) 7.9-8.3 against 9.4-10.2. Since the runs go along
 * their own rows (LEVEL_RUNS_ALONG) runs of 4 pay too (dev machine, one core, the level kernels,
 * 48 copies of one large cell (041018-zA) in chunks of 4 and 6 neurons: 0.32-0.43 G compartment
 * steps/s against 0.23-0.29 with runs of 8 or more; in chunks of 2, runs of 2 no faster). */
#ifndef LEVEL_ROWS_RUN
#define LEVEL_ROWS_RUN 4
#endif
/* ... and runs of at least this many copies of one subtree unit (a small leaf subtree solved as
 * one system, level_layout.h) go row by row across the copies instead of one copy after
 * another (dev machine, 2 cores, passive: random trees x 800 3.6-3.7 ms a step against 9.2-9.3,
 * x 3,000 12.7-14.0 against 49.6-50.3, the six cells x 6,000 23.3-24.3 against 26.9-28.1; HH
 * random trees x 400 7.9-8.1 against 10.8-11.3; the deep chains, with no subtree, even). Runs
 * shorter than this go side by side in registers (level_backward_tree_cpu, up to
 * LEVEL_TREE_CPU_COPIES at once), which beat these vectorised rows up to 16 copies (the Intel dev
 * machine, one core, random trees in arranged chunks of 12 and 16 copies 1.11-1.24x); from 32
 * copies the rows are as fast or faster (64: 1.2x). */
#ifndef LEVEL_TREE_ROWS_RUN
#define LEVEL_TREE_ROWS_RUN 17
#endif
/* ... and a block holding a subtree sweeps its stretches of at least this many chains between
 * subtrees row by row (level_backward_systems), the rest system by system: before, one subtree
 * sent a whole block of chains system by system, scalar. Dev machine (2 cores of an AMD EPYC,
 * CPU workers alone, two interleaved runs against the build before, 7680809): the six cells x
 * 1,200 in chunks of 10 neurons on one core 15.7-15.9 ms a step against 20.8-21.2, of 40
 * 11.3-13.9 against 14.5-14.9; the defaults: all 15 shared cells x 600 5.83-5.85 against
 * 7.43-7.59, the six cells x 2,000 HH on the somas 8.4-8.7 against 10.4-10.6, x 1,200 HH
 * everywhere 15.8-17.1 against 19.5-20.1, x 4,000 56.4-58.0 against 64.1-65.0; the six cells x
 * 6,000, the large cells x 400, random trees x 800 and CA1 x 300 passive even (within the runs'
 * spread). */
#ifndef LEVEL_CHAIN_ROWS_STRETCH
#define LEVEL_CHAIN_ROWS_STRETCH 4
#endif

/* A part's constants gathered once per element (laid out as its voltages: element j of system s
 * of a level at row_offset[j] + s from the level's base), so that the rows of systems with rows of
 * their own (a chunk of a few neurons of many cells holds few copies of any branch) read them
 * contiguously instead of gathering each row's five from the constants table every step. A CPU
 * chunk task of several steps builds them once (level_element_constants_fill); the values are the
 * table's, so the bits are too. `pivots`: diagonal holds the stored inverse pivots (as the sweeps
 * read them when level_stored_pivots gives them), else the diagonals' base. */
struct level_element_constants {
  double *off_diagonal, *diagonal, *c_over_dt, *leak_current;
  double *row_factor; /* NULL where the sweeps read no row factors */
  int pivots;
};

/* The same at one row of a block: each pointer at the row's system `begin`. */
struct level_row_constants {
  const double *off_diagonal, *diagonal, *c_over_dt, *leak_current, *row_factor;
};

/* ec from element `e` on (a level's base in its part). */
static inline struct level_element_constants
level_element_constants_from(const struct level_element_constants *ec, size_t e) {
  return (struct level_element_constants){ec->off_diagonal + e,
                                          ec->diagonal + e,
                                          ec->c_over_dt + e,
                                          ec->leak_current + e,
                                          ec->row_factor ? ec->row_factor + e : 0,
                                          ec->pivots};
}

static inline struct level_row_constants
level_row_constants_at(const struct level_element_constants *ec, size_t at) {
  return (struct level_row_constants){ec->off_diagonal + at, ec->diagonal + at, ec->c_over_dt + at,
                                      ec->leak_current + at,
                                      ec->row_factor ? ec->row_factor + at : 0};
}

/* Fills ec's entries of the NCP level block v, whose elements start at `base` in ec's arrays:
 * each element's constants row, its stored inverse pivot or its diagonal's base, its row factor
 * where ec has them (inverse_pivots, row_factor: what level_stored_pivots and level_row_factors
 * give the sweeps, or NULL). */
static inline void
level_element_constants_fill(const struct level_block_view *v, const double *constants,
                             const double *inverse_pivots, const double *row_factor,
                             const struct level_element_constants *ec, size_t base) {
  for (int s = 0; s < v->systems; s++)
    for (int j = 0; j < v->size[s]; j++) {
      const size_t e = base + (size_t)v->row_offset[j] + (size_t)s;
      const int r = v->first_row[s] + j;
      const double *row = constants + (size_t)r * CONST_STRIDE;
      ec->off_diagonal[e] = row[CONST_OFF_DIAGONAL];
      ec->diagonal[e] = inverse_pivots ? inverse_pivots[r] : row[CONST_DIAGONAL_BASE];
      ec->c_over_dt[e] = row[CONST_C_OVER_DT];
      ec->leak_current[e] = row[CONST_LEAK_CURRENT];
      if (ec->row_factor)
        ec->row_factor[e] = row_factor ? row_factor[r] : 0.0;
    }
}

/* A block's systems cut into segments: segment g holds [end[g - 1], end[g]) (from 0 for g = 0),
 * whose first row is row[g] for a run of LEVEL_ROWS_RUN or more copies, -1 for a stretch of
 * shorter runs whose rows are gathered; gathered[0 .. n_gathered) those stretches' g in order.
 * The sweeps across the block's rows that leave the runs to go along their own rows
 * (LEVEL_RUNS_ALONG) visit only these, not every segment at every row: where a few copies of one
 * cell fall between another cell's runs (a chunk of two cells), a chunk of 7 copies of one large
 * cell and 1 of another took 4.5 ns a compartment-step against 5.4-5.7 (dev machine, one core,
 * tasks of 8 steps; 8 copies of one cell 1.1-1.8 either way). */
struct level_rows_segments {
  int count, n_gathered;
  int end[LEVEL_ROWS_BLOCK_MAX], row[LEVEL_ROWS_BLOCK_MAX], gathered[LEVEL_ROWS_BLOCK_MAX];
};

static inline void level_rows_segments_of(const int *first_row, int n,
                                          struct level_rows_segments *segments) {
  segments->count = 0;
  for (int k = 0, run_end; k < n; k = run_end) {
    for (run_end = k + 1; run_end < n && first_row[run_end] == first_row[k];)
      run_end++;
    const int g = segments->count;
    if (run_end - k >= LEVEL_ROWS_RUN) {
      segments->end[g] = run_end, segments->row[g] = first_row[k], segments->count++;
    } else if (g > 0 && segments->row[g - 1] < 0) {
      segments->end[g - 1] = run_end; /* the gathered stretch goes on */
    } else {
      segments->end[g] = run_end, segments->row[g] = -1, segments->count++;
    }
  }
  segments->n_gathered = 0;
  for (int g = 0; g < segments->count; g++)
    if (segments->row[g] < 0)
      segments->gathered[segments->n_gathered++] = g;
}

/* Segment g's first system. */
static inline int level_rows_segment_begin(const struct level_rows_segments *segments, int g) {
  return g > 0 ? segments->end[g - 1] : 0;
}

/* The segments a sweep across row j visits, those before `limit` (the systems holding the
 * row): for (i = 0; LEVEL_ROWS_NEXT_SEGMENT(...); i++) sets g and k0 (its first system) to each
 * in turn, every segment, or with skip_runs only the gathered stretches. */
#define LEVEL_ROWS_NEXT_SEGMENT(segments, skip_runs, i, limit, g, k0)                              \
  ((i) < ((skip_runs) ? (segments)->n_gathered : (segments)->count) &&                             \
   ((g) = (skip_runs) ? (segments)->gathered[i] : (i),                                             \
    (k0) = level_rows_segment_begin((segments), (g))) < (limit))

/* Segment g's end, cut at `limit` (the systems holding the row). */
static inline int level_rows_segment_end(const struct level_rows_segments *segments, int g,
                                         int limit) {
  return segments->end[g] < limit ? segments->end[g] : limit;
}

/* Row j of a forward substitution for the block's systems [0, holding) with the constants' row
 * factors: x[k] (system k's element solved last) becomes element j's solution, stored in
 * row_voltage[k]; skip_runs: not the runs of copies (segments with a row; LEVEL_RUNS_ALONG). */
static inline __attribute__((always_inline)) void
level_rows_substitute(const struct level_rows_segments *segments, int holding, int j,
                      const int *LEVEL_RESTRICT first_row, const double *LEVEL_RESTRICT row_factor,
                      const double *LEVEL_RESTRICT element_row_factor, double *LEVEL_RESTRICT x,
                      double *LEVEL_RESTRICT row_voltage, int skip_runs) {
  for (int i = 0, g, k0, k1; LEVEL_ROWS_NEXT_SEGMENT(segments, skip_runs, i, holding, g, k0); i++) {
    k1 = level_rows_segment_end(segments, g, holding);
    if (segments->row[g] >= 0) {
      const double f = row_factor[segments->row[g] + j];
#pragma omp simd
      for (int k = k0; k < k1; k++) {
        x[k] = fma(-f, x[k], row_voltage[k]);
        row_voltage[k] = x[k];
      }
    } else if (element_row_factor) { /* each its own, read in a row (struct above) */
#pragma omp simd
      for (int k = k0; k < k1; k++) {
        x[k] = fma(-element_row_factor[k], x[k], row_voltage[k]);
        row_voltage[k] = x[k];
      }
    } else {
#pragma omp simd
      for (int k = k0; k < k1; k++) {
        x[k] = fma(-row_factor[first_row[k] + j], x[k], row_voltage[k]);
        row_voltage[k] = x[k];
      }
    }
  }
}

/* Element j of block system k that continues from row j + 1, given its row's constants. */
static inline __attribute__((always_inline)) void level_rows_going_on_element(
    int k, int j, double off_diagonal, double diagonal, double c_over_dt, double leak_current,
    double inverse_pivot, const int *LEVEL_RESTRICT stimulated,
    const double *LEVEL_RESTRICT injected, double *LEVEL_RESTRICT row_voltage,
    double *LEVEL_RESTRICT row_factor_out, double *LEVEL_RESTRICT previous_factor,
    double *LEVEL_RESTRICT previous_rhs, double *LEVEL_RESTRICT previous_off_diagonal,
    const int rows_assembled, const int pivots, const int store_factor) {
  double dj, rj;
  if (rows_assembled) {
    dj = row_factor_out[k];
    rj = row_voltage[k];
  } else {
    membrane_row(diagonal, c_over_dt, leak_current, row_voltage[k],
                 j == stimulated[k] ? injected[k] : 0.0, &dj, &rj);
  }
  dj = fma(-previous_factor[k], previous_off_diagonal[k], dj);
  rj = fma(-previous_factor[k], previous_rhs[k], rj);
  double scaled_rhs, eliminated_factor;
  if (pivots)
    level_pivot_stored(off_diagonal, rj, inverse_pivot, &eliminated_factor, &scaled_rhs);
  else
    level_pivot(off_diagonal, rj, dj, &eliminated_factor, &scaled_rhs);
  if (store_factor)
    row_factor_out[k] = eliminated_factor;
  row_voltage[k] = scaled_rhs;
  previous_factor[k] = eliminated_factor;
  previous_rhs[k] = rj;
  previous_off_diagonal[k] = off_diagonal;
}

/* Row j of the backward sweep for the block's systems [k0, k1), which continue from row j + 1
 * (level_backward_rows); `row`: their common first row, or -1 (each its own, gathered).
 * rows_assembled, pivots (read the inverse pivots) and store_factor are constants where this is
 * inlined, so that each combination is a loop of its own without branches, which the compiler
 * vectorises. */
static inline __attribute__((always_inline)) void level_rows_going_on(
    int k0, int k1, int row, int j, const double *LEVEL_RESTRICT constants,
    const double *LEVEL_RESTRICT inverse_pivots, const int *LEVEL_RESTRICT first_row,
    const int *LEVEL_RESTRICT stimulated, const double *LEVEL_RESTRICT injected,
    double *LEVEL_RESTRICT row_voltage, double *LEVEL_RESTRICT row_factor_out,
    double *LEVEL_RESTRICT previous_factor, double *LEVEL_RESTRICT previous_rhs,
    double *LEVEL_RESTRICT previous_off_diagonal, const struct level_row_constants *rc,
    const int rows_assembled, const int pivots, const int store_factor) {
#define GOING_ON_ELEMENT(R, AT)                                                                    \
  level_rows_going_on_element(                                                                     \
      k, j, constants[(AT) + CONST_OFF_DIAGONAL],                                                  \
      pivots ? inverse_pivots[R] : constants[(AT) + CONST_DIAGONAL_BASE],                          \
      constants[(AT) + CONST_C_OVER_DT], constants[(AT) + CONST_LEAK_CURRENT],                     \
      pivots ? inverse_pivots[R] : 0.0, stimulated, injected, row_voltage, row_factor_out,         \
      previous_factor, previous_rhs, previous_off_diagonal, rows_assembled, pivots, store_factor)
  if (row >= 0) { /* one row's constants for the whole run: read once */
    const int r = row + j, at = r * CONST_STRIDE;
#pragma omp simd
    for (int k = k0; k < k1; k++)
      GOING_ON_ELEMENT(r, at);
  } else if (rc) { /* each its own, read in a row (level_element_constants) */
    const double *LEVEL_RESTRICT off = rc->off_diagonal, *LEVEL_RESTRICT diagonal = rc->diagonal,
                                 *LEVEL_RESTRICT c_over_dt = rc->c_over_dt,
                                 *LEVEL_RESTRICT leak = rc->leak_current;
#pragma omp simd
    for (int k = k0; k < k1; k++)
      level_rows_going_on_element(k, j, off[k], diagonal[k], c_over_dt[k], leak[k],
                                  pivots ? diagonal[k] : 0.0, stimulated, injected, row_voltage,
                                  row_factor_out, previous_factor, previous_rhs,
                                  previous_off_diagonal, rows_assembled, pivots, store_factor);
  } else {
#pragma omp simd
    for (int k = k0; k < k1; k++) {
      const int r = first_row[k] + j, at = r * CONST_STRIDE; /* gathers */
      GOING_ON_ELEMENT(r, at);
    }
  }
#undef GOING_ON_ELEMENT
}

/* The end of the run of subtree copies from system s (level_layout.h: copies of one unit, one
 * shape, side by side), at most `end`; s + 1 when s is a chain. */
static inline int level_rows_tree_run_end(const struct level_block_view *v, int s, int end) {
  int t = s + 1;
  if (v->trees && v->tree[s] >= 0)
    while (t < end && v->tree[t] == v->tree[s] && v->first_row[t] == v->first_row[s])
      t++;
  return t;
}

/* The backward sweep of a run of n copies of one subtree unit from system `begin`, row by row:
 * for each copy level_backward_tree_into's calls in its order (element j's row, its later
 * children's stored parts in their order, then its first child's from the chain, the pivot),
 * vectorised across the copies, whose shape and constants are one. No channels in the sweep
 * (passive, or rows assembled). */
static inline void level_backward_tree_rows(const struct level_block_view *v, int begin, int n,
                                            const double *LEVEL_RESTRICT constants,
                                            const struct level_step_arguments *args,
                                            double *voltage, double *factor, double *contribution,
                                            int rows_assembled, const double *inverse_pivots,
                                            const double *row_factor) {
  double below_factor[LEVEL_ROWS_BLOCK_MAX], below_rhs[LEVEL_ROWS_BLOCK_MAX],
      injected[LEVEL_ROWS_BLOCK_MAX];
  double dj[LEVEL_ROWS_BLOCK_MAX], rj[LEVEL_ROWS_BLOCK_MAX];
  int stimulated[LEVEL_ROWS_BLOCK_MAX], first_row[LEVEL_ROWS_BLOCK_MAX];
  level_rows_systems(v, begin, n, args, first_row, stimulated, injected);
  const int size = v->size[begin], row0 = v->first_row[begin];
  double below_off_diagonal = 0.0; /* one shape: these two are the run's */
  int below_is_first_child = 0;
  for (int k = 0; k < n; k++)
    below_factor[k] = below_rhs[k] = 0.0;
  for (int j = size - 1; j >= 0; j--) {
    const int r = row0 + j, at = r * CONST_STRIDE;
    double *LEVEL_RESTRICT row_voltage = voltage + v->row_offset[j] + begin;
    double *LEVEL_RESTRICT row_factors = factor + v->row_offset[j] + begin;
    const double off_diagonal = constants[at + CONST_OFF_DIAGONAL];
    if (rows_assembled) {
#pragma omp simd
      for (int k = 0; k < n; k++)
        dj[k] = row_factors[k], rj[k] = row_voltage[k];
    } else {
      const double diagonal =
          inverse_pivots ? inverse_pivots[r] : constants[at + CONST_DIAGONAL_BASE];
      const double c_over_dt = constants[at + CONST_C_OVER_DT];
      const double leak_current = constants[at + CONST_LEAK_CURRENT];
#pragma omp simd
      for (int k = 0; k < n; k++)
        membrane_row(diagonal, c_over_dt, leak_current, row_voltage[k],
                     j == stimulated[k] ? injected[k] : 0.0, &dj[k], &rj[k]);
    }
    if (below_is_first_child) {
      for (int c = j + 1, step; (step = level_shape(v, begin, c, SHAPE_SIBLING_STEP)) != 0;) {
        c += step;
        const double *LEVEL_RESTRICT child_voltage = voltage + v->row_offset[c] + begin;
        const double *LEVEL_RESTRICT child_factor = factor + v->row_offset[c] + begin;
        const double off_c = constants[(size_t)(row0 + c) * CONST_STRIDE + CONST_OFF_DIAGONAL];
        const double row_factor_c = row_factor ? row_factor[row0 + c] : 0.0;
#pragma omp simd
        for (int k = 0; k < n; k++) {
          dj[k] = fma(-(row_factor ? row_factor_c : child_factor[k]), off_c, dj[k]);
          rj[k] = fma(-off_c, child_voltage[k], rj[k]);
        }
      }
#pragma omp simd
      for (int k = 0; k < n; k++) {
        dj[k] = fma(-below_factor[k], below_off_diagonal, dj[k]);
        rj[k] = fma(-below_factor[k], below_rhs[k], rj[k]);
      }
    }
    const double inverse = inverse_pivots ? inverse_pivots[r] : 0.0;
#pragma omp simd
    for (int k = 0; k < n; k++) {
      double scaled_rhs, eliminated_factor;
      if (inverse_pivots)
        level_pivot_stored(off_diagonal, rj[k], inverse, &eliminated_factor, &scaled_rhs);
      else
        level_pivot(off_diagonal, rj[k], dj[k], &eliminated_factor, &scaled_rhs);
      if (!row_factor)
        row_factors[k] = eliminated_factor;
      row_voltage[k] = scaled_rhs;
      below_factor[k] = eliminated_factor;
      below_rhs[k] = rj[k];
    }
    below_off_diagonal = off_diagonal;
    below_is_first_child = level_shape(v, begin, j, SHAPE_PARENT_STEP) == 1;
  }
  for (int k = 0; k < n; k++) {
    contribution[2 * (begin + k)] = below_factor[k] * below_off_diagonal;
    contribution[2 * (begin + k) + 1] = below_factor[k] * below_rhs[k];
  }
}

/* The forward sweep of such a run (level_forward_tree_from's calls for each copy, in order):
 * element j's parent is the element solved just before or an earlier one, one shape for all. */
static inline void level_forward_tree_rows(const struct level_block_view *v, int begin, int n,
                                           double *voltage, const double *LEVEL_RESTRICT factor,
                                           const double *LEVEL_RESTRICT row_factor,
                                           const double *parent_voltage) {
  double x[LEVEL_ROWS_BLOCK_MAX]; /* each copy's element solved last: first its junction's */
  for (int k = 0; k < n; k++) {
    const int junction = v->junction[begin + k];
    x[k] = junction >= 0 ? parent_voltage[junction] : 0.0;
  }
  const int size = v->size[begin], row0 = v->first_row[begin];
  for (int j = 0; j < size; j++) {
    const int step = j == 0 ? 0 : level_shape(v, begin, j, SHAPE_PARENT_STEP);
    double *LEVEL_RESTRICT row_voltage = voltage + v->row_offset[j] + begin;
    const double *LEVEL_RESTRICT row_factors = factor + v->row_offset[j] + begin;
    const double f = row_factor ? row_factor[row0 + j] : 0.0;
    if (j == 0 || step == 1) {
#pragma omp simd
      for (int k = 0; k < n; k++) {
        x[k] = fma(-(row_factor ? f : row_factors[k]), x[k], row_voltage[k]);
        row_voltage[k] = x[k];
      }
    } else {
      const double *LEVEL_RESTRICT parent = voltage + v->row_offset[j - step] + begin;
#pragma omp simd
      for (int k = 0; k < n; k++) {
        x[k] = fma(-(row_factor ? f : row_factors[k]), parent[k], row_voltage[k]);
        row_voltage[k] = x[k];
      }
    }
  }
}

/* Where the stretch of chain systems (no subtree) from system s of v ends, at most `end`: their
 * sizes never grow (a level's systems are sorted longest first), so the rows cover it. */
static inline int level_rows_chain_stretch_end(const struct level_block_view *v, int s, int end) {
  int t = s;
  while (t < end && !(v->trees && v->tree[t] >= 0))
    t++;
  return t;
}

static inline void level_backward_rows(const struct level_block_view *v, int begin, int end,
                                       const double *LEVEL_RESTRICT constants,
                                       const struct level_step_arguments *args, double *voltage,
                                       double *LEVEL_RESTRICT factor,
                                       double *LEVEL_RESTRICT contribution,
                                       const double *LEVEL_RESTRICT child_contribution,
                                       double *LEVEL_RESTRICT gates, int rows_assembled,
                                       int stored_pivots, const struct level_element_constants *ec);
static inline void level_forward_rows(const struct level_block_view *v, int begin, int end,
                                      double *voltage, const double *LEVEL_RESTRICT factor,
                                      const double *LEVEL_RESTRICT row_factor,
                                      const double *parent_voltage,
                                      const struct level_element_constants *ec);

/* level_backward_tree_into on CPU workers where no channel reaches the subtree inside the sweep,
 * for a run of `copies` copies of one subtree unit (one shape, one first row, side by side:
 * level_rows_tree_run_end) shorter than the row sweeps' runs (LEVEL_TREE_ROWS_RUN), and for each
 * way its rows come (enum level_tree_rows): each copy's calls in level_backward_tree_into's order,
 * without the branches the case never takes, so the same bits. `copies` is a constant where
 * this is inlined (level_backward_tree_cpu's switch): the copies' chains then advance side by
 * side in registers, the shape and the rows read once for all; longer runs in groups of
 * LEVEL_TREE_CPU_COPIES. The generic sweep took one system at a time, reloaded its many pointers
 * for every element and spilled its state (half a chunk's time on random trees in chunks of 3
 * neurons): BENCHMARKS.md, "A subtree's sweep on CPU workers". */
#ifndef LEVEL_TREE_CPU
#define LEVEL_TREE_CPU 1 /* 0: the generic sweep (a build to measure against) */
#endif
#ifndef LEVEL_TREE_ONE_CPU
#define LEVEL_TREE_ONE_CPU 1 /* 0: one copy swept backward as several (a build to measure) */
#endif
#ifndef LEVEL_TREE_ONE_FORWARD
#define LEVEL_TREE_ONE_FORWARD 1 /* 0: one copy's forward sweep by the generic one */
#endif
#ifndef LEVEL_TREE_CPU_COPIES
#define LEVEL_TREE_CPU_COPIES 16 /* the longest run it takes at once */
#endif
#define LEVEL_TREE_CPU_CASES_8                                                                     \
  TREE_CASE(1)                                                                                     \
  TREE_CASE(2) TREE_CASE(3) TREE_CASE(4) TREE_CASE(5) TREE_CASE(6) TREE_CASE(7) TREE_CASE(8)
#if LEVEL_TREE_CPU_COPIES > 8
#define LEVEL_TREE_CPU_CASES                                                                       \
  LEVEL_TREE_CPU_CASES_8 TREE_CASE(9) TREE_CASE(10) TREE_CASE(11) TREE_CASE(12) TREE_CASE(13)      \
      TREE_CASE(14) TREE_CASE(15) TREE_CASE(16)
#else
#define LEVEL_TREE_CPU_CASES LEVEL_TREE_CPU_CASES_8
#endif
enum level_tree_rows {
  TREE_ROWS_STORED_PIVOTS, /* passive: rows from the constants, stored inverse pivots */
  TREE_ROWS_PIVOTS,        /* rows from the constants, pivots computed (row_factor as given) */
  TREE_ROWS_ASSEMBLED      /* rows assembled apart: diagonal in factor[e], rhs in voltage[e] */
};
HINES_ALWAYS_INLINE void
level_backward_tree_cpu_as(const struct level_block_view *v, int s, const int copies,
                           const double *LEVEL_RESTRICT constants,
                           const struct level_step_arguments *args, double *voltage,
                           double *LEVEL_RESTRICT factor, double *LEVEL_RESTRICT contribution,
                           const double *LEVEL_RESTRICT inverse_pivots,
                           const double *LEVEL_RESTRICT row_factor, enum level_tree_rows how) {
  const int size = v->size[s], first_row = v->first_row[s];
  int stimulated[LEVEL_TREE_CPU_COPIES];
  double injected[LEVEL_TREE_CPU_COPIES];
  for (int k = 0; k < copies; k++) {
    stimulated[k] = args->stimulus.compartment - v->first_compartment[s + k];
    injected[k] = how != TREE_ROWS_ASSEMBLED && stimulated[k] >= 0 && stimulated[k] < size
                      ? stimulus_current(&args->stimulus, v->neuron[s + k], args->time_ms)
                      : 0.0;
  }
  const int *LEVEL_RESTRICT shape = v->shapes + v->tree[s];
  const int *LEVEL_RESTRICT row_offset = v->row_offset;
  const double *LEVEL_RESTRICT rows = constants + (size_t)first_row * CONST_STRIDE;
  const double *LEVEL_RESTRICT inverse =
      how == TREE_ROWS_STORED_PIVOTS ? inverse_pivots + first_row : 0;
  const double *LEVEL_RESTRICT factors = row_factor ? row_factor + first_row : 0;
  double below_factor[LEVEL_TREE_CPU_COPIES], below_rhs[LEVEL_TREE_CPU_COPIES];
  double dj[LEVEL_TREE_CPU_COPIES], rj[LEVEL_TREE_CPU_COPIES];
  for (int k = 0; k < copies; k++)
    below_factor[k] = below_rhs[k] = 0.0;
  double below_off_diagonal = 0.0; /* one shape: the run's */
  int below_is_first_child = 0;
  for (int j = size - 1; j >= 0; j--) {
    const double *LEVEL_RESTRICT row = rows + (size_t)j * CONST_STRIDE;
    double *row_voltage = voltage + row_offset[j] + s;
    for (int k = 0; k < copies; k++) {
      if (how == TREE_ROWS_ASSEMBLED) {
        dj[k] = factor[row_offset[j] + s + k];
        rj[k] = row_voltage[k];
      } else {
        membrane_row(row[CONST_DIAGONAL_BASE], row[CONST_C_OVER_DT], row[CONST_LEAK_CURRENT],
                     row_voltage[k], j == stimulated[k] ? injected[k] : 0.0, &dj[k], &rj[k]);
      }
    }
    if (below_is_first_child) {
      for (int c = j + 1, step; (step = shape[SHAPE_INTS_PER_ELEMENT * c + SHAPE_SIBLING_STEP]);) {
        c += step;
        const double *child_voltage = voltage + row_offset[c] + s;
        const double off_c = rows[(size_t)c * CONST_STRIDE + CONST_OFF_DIAGONAL];
        for (int k = 0; k < copies; k++) {
          if (how != TREE_ROWS_STORED_PIVOTS)
            dj[k] = fma(-(factors ? factors[c] : factor[row_offset[c] + s + k]), off_c, dj[k]);
          rj[k] = fma(-off_c, child_voltage[k], rj[k]);
        }
      }
      for (int k = 0; k < copies; k++) {
        if (how != TREE_ROWS_STORED_PIVOTS)
          dj[k] = fma(-below_factor[k], below_off_diagonal, dj[k]);
        rj[k] = fma(-below_factor[k], below_rhs[k], rj[k]);
      }
    }
    const double off_diagonal = row[CONST_OFF_DIAGONAL];
    for (int k = 0; k < copies; k++) {
      if (how == TREE_ROWS_STORED_PIVOTS)
        level_pivot_stored(off_diagonal, rj[k], inverse[j], &below_factor[k], &row_voltage[k]);
      else
        level_pivot(off_diagonal, rj[k], dj[k], &below_factor[k], &row_voltage[k]);
      if (!factors)
        factor[row_offset[j] + s + k] = below_factor[k];
      below_rhs[k] = rj[k];
    }
    below_off_diagonal = off_diagonal;
    below_is_first_child = shape[SHAPE_INTS_PER_ELEMENT * j + SHAPE_PARENT_STEP] == 1;
  }
  for (int k = 0; k < copies; k++) {
    contribution[2 * (s + k)] = below_factor[k] * below_off_diagonal;
    contribution[2 * (s + k) + 1] = below_factor[k] * below_rhs[k];
  }
}

/* a where `pick` (0 or 1) is 1, else b: with AVX-512 a masked move, which GCC keeps as a select
 * (a plain ?: it compiled into a branch on the shape). */
static inline double level_pick(unsigned pick, double a, double b) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
  return _mm_cvtsd_f64(_mm_mask_blend_pd((__mmask8)pick, _mm_set_sd(b), _mm_set_sd(a)));
#else
  return pick ? a : b;
#endif
}

/* level_backward_tree_cpu_as for one copy with stored pivots (passive steps): the first child's
 * chain added by a select, not a branch on the shape. Random trees end a branch every 2-20
 * elements, and that branch was mispredicted at every leaf. The same calls in the same order, so
 * the same bits. With pivots computed the chain runs through a division, and the select lost (HH
 * everywhere in chunks of 3 neurons 0.96x): those stay with level_backward_tree_cpu_as.
 * BENCHMARKS.md, "A CPU worker's loops without OpenMP teams". */
static __attribute__((noinline)) void level_backward_tree_one_cpu(
    const struct level_block_view *v, int s, const double *LEVEL_RESTRICT constants,
    const struct level_step_arguments *args, double *voltage, double *LEVEL_RESTRICT factor,
    double *LEVEL_RESTRICT contribution, const double *LEVEL_RESTRICT inverse_pivots,
    const double *LEVEL_RESTRICT row_factor) {
  const int size = v->size[s], first_row = v->first_row[s];
  const int stimulated = args->stimulus.compartment - v->first_compartment[s];
  const double injected = stimulated >= 0 && stimulated < size
                              ? stimulus_current(&args->stimulus, v->neuron[s], args->time_ms)
                              : 0.0;
  const int *LEVEL_RESTRICT shape = v->shapes + v->tree[s];
  const int *LEVEL_RESTRICT row_offset = v->row_offset;
  const double *LEVEL_RESTRICT rows = constants + (size_t)first_row * CONST_STRIDE;
  const double *LEVEL_RESTRICT inverse = inverse_pivots + first_row;
  double below_factor = 0.0, below_rhs = 0.0, below_off_diagonal = 0.0;
  unsigned below_is_first_child = 0;
  for (int j = size - 1; j >= 0; j--) {
    const double *LEVEL_RESTRICT row = rows + (size_t)j * CONST_STRIDE;
    const int e = row_offset[j] + s;
    double dj, rj;
    membrane_row(row[CONST_DIAGONAL_BASE], row[CONST_C_OVER_DT], row[CONST_LEAK_CURRENT],
                 voltage[e], j == stimulated ? injected : 0.0, &dj, &rj);
    (void)dj; /* (the pivot is stored) */
    /* j's later children (where j + 1 is its first child): a branch, taken at the shape's
     * branch points only (a select there, the loads and the multiply-add made for every
     * element, ran chunks of one random tree 0.91x) */
    if (below_is_first_child)
      for (int c = j + 1, step; (step = shape[SHAPE_INTS_PER_ELEMENT * c + SHAPE_SIBLING_STEP]);) {
        c += step;
        const double off_c = rows[(size_t)c * CONST_STRIDE + CONST_OFF_DIAGONAL];
        rj = fma(-off_c, voltage[row_offset[c] + s], rj);
      }
    /* its first child's chain: a select, as that branch was mispredicted at every leaf */
    rj = level_pick(below_is_first_child, fma(-below_factor, below_rhs, rj), rj);
    const double off_diagonal = row[CONST_OFF_DIAGONAL];
    double scaled_rhs;
    level_pivot_stored(off_diagonal, rj, inverse[j], &below_factor, &scaled_rhs);
    voltage[e] = scaled_rhs;
    if (!row_factor)
      factor[e] = below_factor;
    below_rhs = rj;
    below_off_diagonal = off_diagonal;
    below_is_first_child = shape[SHAPE_INTS_PER_ELEMENT * j + SHAPE_PARENT_STEP] == 1;
  }
  contribution[2 * s] = below_factor * below_off_diagonal;
  contribution[2 * s + 1] = below_factor * below_rhs;
}

/* The run of copies of systems [s, s + copies) by level_backward_tree_cpu_as, in groups of at
 * most LEVEL_TREE_CPU_COPIES, where that covers its case (1), else 0: a chain, or channels inside
 * the sweep, are left to the generic sweeps. */
static inline int level_backward_tree_cpu(
    const struct level_block_view *v, int s, int copies, const double *LEVEL_RESTRICT constants,
    const struct level_step_arguments *args, double *voltage, double *LEVEL_RESTRICT factor,
    double *LEVEL_RESTRICT contribution, const double *LEVEL_RESTRICT gates, int rows_assembled,
    const double *LEVEL_RESTRICT inverse_pivots, const double *LEVEL_RESTRICT row_factor) {
  if (!LEVEL_TREE_CPU || !v->trees || v->tree[s] < 0 || copies < 1)
    return 0;
  enum level_tree_rows how;
  if (rows_assembled)
    how = TREE_ROWS_ASSEMBLED, inverse_pivots = row_factor = 0;
  else if (inverse_pivots)
    how = TREE_ROWS_STORED_PIVOTS;
  else if (!gates || !level_rows_channels_in(v, s, s + copies, &args->channels))
    how = TREE_ROWS_PIVOTS;
  else
    return 0;
#define TREE_CASE(COPIES)                                                                          \
  case COPIES:                                                                                     \
    if (how == TREE_ROWS_STORED_PIVOTS)                                                            \
      level_backward_tree_cpu_as(v, g, COPIES, constants, args, voltage, factor, contribution,     \
                                 inverse_pivots, row_factor, TREE_ROWS_STORED_PIVOTS);             \
    else if (how == TREE_ROWS_PIVOTS)                                                              \
      level_backward_tree_cpu_as(v, g, COPIES, constants, args, voltage, factor, contribution, 0,  \
                                 row_factor, TREE_ROWS_PIVOTS);                                    \
    else                                                                                           \
      level_backward_tree_cpu_as(v, g, COPIES, constants, args, voltage, factor, contribution, 0,  \
                                 0, TREE_ROWS_ASSEMBLED);                                          \
    break;
  if (copies == 1 && how == TREE_ROWS_STORED_PIVOTS && LEVEL_TREE_ONE_CPU) {
    level_backward_tree_one_cpu(v, s, constants, args, voltage, factor, contribution,
                                inverse_pivots, row_factor);
    return 1;
  }
  for (int g = s; g < s + copies; g += LEVEL_TREE_CPU_COPIES)
    switch (s + copies - g < LEVEL_TREE_CPU_COPIES ? s + copies - g : LEVEL_TREE_CPU_COPIES) {
      LEVEL_TREE_CPU_CASES
    }
#undef TREE_CASE
  return 1;
}

/* level_forward_tree_from for a run of 2 to LEVEL_TREE_CPU_COPIES copies of one subtree unit,
 * `copies` a constant where inlined: each copy's multiply-adds in its order, the copies side by
 * side (one copy alone: level_forward_tree_one_cpu below; this loop for one copy ran 4-8 %
 * slower than the generic sweep, which loads one element ahead). */
HINES_ALWAYS_INLINE void level_forward_tree_cpu_as(const struct level_block_view *v, int s,
                                                   const int copies, double *voltage,
                                                   const double *LEVEL_RESTRICT factor,
                                                   const double *LEVEL_RESTRICT row_factor,
                                                   const double *parent_voltage) {
  const int size = v->size[s];
  const int *LEVEL_RESTRICT shape = v->shapes + v->tree[s];
  const int *LEVEL_RESTRICT row_offset = v->row_offset;
  const double *LEVEL_RESTRICT factors = row_factor ? row_factor + v->first_row[s] : 0;
  double x[LEVEL_TREE_CPU_COPIES];
  for (int k = 0; k < copies; k++) {
    const int junction = v->junction[s + k];
    x[k] = junction >= 0 ? parent_voltage[junction] : 0.0;
  }
  for (int j = 0; j < size; j++) {
    const int step = j == 0 ? 0 : shape[SHAPE_INTS_PER_ELEMENT * j + SHAPE_PARENT_STEP];
    double *row_voltage = voltage + row_offset[j] + s;
    const double *parent_row = j == 0 || step == 1 ? 0 : voltage + row_offset[j - step] + s;
    for (int k = 0; k < copies; k++) {
      const double parent_x = parent_row ? parent_row[k] : x[k];
      x[k] = fma(-(factors ? factors[j] : factor[row_offset[j] + s + k]), parent_x, row_voltage[k]);
      row_voltage[k] = x[k];
    }
  }
}

/* One copy, branch-free: the parent's value is x (the element solved just before) or one loaded
 * from an element solved earlier, picked by a select, the load's index made safe where it is not
 * used (row 0), so the chain does not wait on the store just made. The same preamble as above,
 * kept apart from that template as level_backward_tree_one_cpu is from its own (inlined there,
 * one copy's code moved the others': BENCHMARKS.md, "One copy of a subtree without a branch at
 * every leaf"). */
static inline void level_forward_tree_one_cpu(const struct level_block_view *v, int s,
                                              double *voltage, const double *LEVEL_RESTRICT factor,
                                              const double *LEVEL_RESTRICT row_factor,
                                              const double *parent_voltage) {
  const int size = v->size[s];
  const int *LEVEL_RESTRICT shape = v->shapes + v->tree[s];
  const int *LEVEL_RESTRICT row_offset = v->row_offset;
  const double *LEVEL_RESTRICT factors = row_factor ? row_factor + v->first_row[s] : 0;
  const int junction = v->junction[s];
  double x = junction >= 0 ? parent_voltage[junction] : 0.0;
  for (int j = 0; j < size; j++) {
    const int step = j == 0 ? 0 : shape[SHAPE_INTS_PER_ELEMENT * j + SHAPE_PARENT_STEP];
    const int far = step > 1;
    const int parent = (j - step) & -far;
    const double *at = voltage + row_offset[parent] + s;
#if defined(__AVX512F__) && defined(__AVX512VL__)
    const unsigned mask = (unsigned)far;
    const double parent_x =
        _mm_cvtsd_f64(_mm_mask_blend_pd((__mmask8)mask, _mm_set_sd(x), _mm_load_sd(at)));
#else
    const double parent_x = far ? *at : x;
#endif
    const int e = row_offset[j] + s;
    x = fma(-(factors ? factors[j] : factor[e]), parent_x, voltage[e]);
    voltage[e] = x;
  }
}

/* The run of copies of systems [s, s + copies), 2 or more, by level_forward_tree_cpu_as in groups
 * of at most LEVEL_TREE_CPU_COPIES (a group of one by the generic sweep) (1), else 0. */
static inline int level_forward_tree_cpu(const struct level_block_view *v, int s, int copies,
                                         double *voltage, const double *LEVEL_RESTRICT factor,
                                         const double *LEVEL_RESTRICT row_factor,
                                         const double *parent_voltage) {
  if (!LEVEL_TREE_CPU || !v->trees || v->tree[s] < 0 || copies < 1)
    return 0;
#define TREE_CASE(COPIES)                                                                          \
  case COPIES:                                                                                     \
    if (row_factor)                                                                                \
      level_forward_tree_cpu_as(v, g, COPIES, voltage, factor, row_factor, parent_voltage);        \
    else                                                                                           \
      level_forward_tree_cpu_as(v, g, COPIES, voltage, factor, 0, parent_voltage);                 \
    break;
  for (int g = s; g < s + copies; g += LEVEL_TREE_CPU_COPIES) {
    const int n = s + copies - g < LEVEL_TREE_CPU_COPIES ? s + copies - g : LEVEL_TREE_CPU_COPIES;
    if (n == 1 && !LEVEL_TREE_ONE_FORWARD)
      level_forward_system_rows(v, g, voltage, factor, row_factor, parent_voltage);
    else if (n == 1)
      level_forward_tree_one_cpu(v, g, voltage, factor, row_factor, parent_voltage);
    else
      switch (n) { LEVEL_TREE_CPU_CASES }
  }
#undef TREE_CASE
  return 1;
}

/* What level_backward_rows does with a block the rows do not cover: system by system, but
 * runs of subtree copies row by row, and the stretches of chains between subtrees row by row
 * (not under CP padding, nor with channels inside the sweep). A function of its own so that the
 * row sweep's loops compile as they did without it. */
static __attribute__((noinline, unused)) void level_backward_systems(
    const struct level_block_view *v, int begin, int end, const double *LEVEL_RESTRICT constants,
    const struct level_step_arguments *args, double *voltage, double *LEVEL_RESTRICT factor,
    double *LEVEL_RESTRICT contribution, const double *LEVEL_RESTRICT child_contribution,
    double *LEVEL_RESTRICT gates, int rows_assembled, int stored_pivots,
    const struct level_element_constants *ec) {
  const double *inverse_pivots =
      stored_pivots ? level_stored_pivots(constants, args, gates, rows_assembled) : 0;
  const double *row_factor = level_row_factors(constants, args, gates, rows_assembled);
  const int tree_runs =
      !v->padded && end - begin <= LEVEL_ROWS_BLOCK_MAX &&
      !(gates && !rows_assembled && level_rows_channels_in(v, begin, end, &args->channels));
  for (int s = begin, t; s < end; s = t) {
    t = tree_runs ? level_rows_tree_run_end(v, s, end) : s + 1;
    if (t - s >= LEVEL_TREE_ROWS_RUN) {
      level_backward_tree_rows(v, s, t - s, constants, args, voltage, factor, contribution,
                               rows_assembled, inverse_pivots, row_factor);
      continue;
    }
    if (tree_runs && level_rows_chain_stretch_end(v, s, end) - s >= LEVEL_CHAIN_ROWS_STRETCH) {
      t = level_rows_chain_stretch_end(v, s, end); /* the rows cover it: no recursion */
      level_backward_rows(v, s, t, constants, args, voltage, factor, contribution,
                          child_contribution, gates, rows_assembled, stored_pivots, ec);
      continue;
    }
    if (level_backward_tree_cpu(v, s, t - s, constants, args, voltage, factor, contribution, gates,
                                rows_assembled, inverse_pivots, row_factor))
      continue;
    for (int u = s; u < t; u++)
      level_backward_system_in_groups(v, u, constants, args, voltage, factor, contribution,
                                      child_contribution, gates, rows_assembled, LEVEL_PREFETCH,
                                      stored_pivots);
  }
}

/* What level_forward_rows does with a block the rows do not cover (as level_backward_systems). */
static __attribute__((noinline, unused)) void
level_forward_systems(const struct level_block_view *v, int begin, int end, double *voltage,
                      const double *LEVEL_RESTRICT factor, const double *LEVEL_RESTRICT row_factor,
                      const double *parent_voltage, const struct level_element_constants *ec) {
  const int tree_runs = !v->padded && end - begin <= LEVEL_ROWS_BLOCK_MAX;
  for (int s = begin, t; s < end; s = t) {
    t = tree_runs ? level_rows_tree_run_end(v, s, end) : s + 1;
    if (t - s >= LEVEL_TREE_ROWS_RUN) {
      level_forward_tree_rows(v, s, t - s, voltage, factor, row_factor, parent_voltage);
      continue;
    }
    if (tree_runs && level_rows_chain_stretch_end(v, s, end) - s >= LEVEL_CHAIN_ROWS_STRETCH) {
      t = level_rows_chain_stretch_end(v, s, end);
      level_forward_rows(v, s, t, voltage, factor, row_factor, parent_voltage, ec);
      continue;
    }
    if (level_forward_tree_cpu(v, s, t - s, voltage, factor, row_factor, parent_voltage))
      continue;
    for (int u = s; u < t; u++)
      level_forward_system_rows(v, u, voltage, factor, row_factor, parent_voltage);
  }
}

/* Runs of LEVEL_ROWS_RUN or more copies of one branch (one first row, so one size) are walked
 * down their own rows, one run after another, instead of row by row across the whole block:
 * each row of a run is then one loop over its copies with the row's constants read once, and
 * the block's other systems (stretches of shorter runs) are not visited at every row. Same calls
 * for each element in the same order (systems do not depend on one another in a level), so the
 * same bits. With AVX-512 a run's elimination state stays in registers down its rows
 * (level_backward_run_lanes: LEVEL_RUN_LANES copies a vector, masked) where the rows across the
 * block loaded and stored it for every element. Dev machine (2 cores of an Intel Xeon,
 * cooperlake), one core, the level kernels, passive: 96 copies of 041018-zA in chunks of 8
 * 0.42-0.50 G compartment steps/s against 0.28-0.31; mix A (041018-zA, ri05, the Allen cell) x
 * 72 in chunks of 9 and 12 neurons (the cores' share's shapes) 0.21 and 0.25 against 0.17 and
 * 0.15 (medians of three). H200 machine, 16 CPU workers alone at the cores' share's chunk
 * shapes (BENCHMARKS.md, "Runs of copies along their own rows"): A, B and E 1.2-1.9x faster, C
 * and random trees (runs of one or two copies, subtree copies) even. 0: every system row by row
 * across the block, as before. */
#ifndef LEVEL_RUNS_ALONG
#define LEVEL_RUNS_ALONG 1
#endif

/* Element j of block system k that starts at row j (its far end): the membrane's row, its
 * children's contributions, the pivot. */
static inline __attribute__((always_inline)) void level_rows_far_end(
    const struct level_block_view *v, int begin, int k, int j,
    const double *LEVEL_RESTRICT constants, const double *LEVEL_RESTRICT inverse_pivots,
    int row_factors_read, const int *LEVEL_RESTRICT first_row, const int *LEVEL_RESTRICT stimulated,
    const double *LEVEL_RESTRICT injected, double *LEVEL_RESTRICT row_voltage,
    double *LEVEL_RESTRICT row_factor_out, const double *LEVEL_RESTRICT child_contribution,
    double *LEVEL_RESTRICT previous_factor, double *LEVEL_RESTRICT previous_rhs,
    double *LEVEL_RESTRICT previous_off_diagonal, int rows_assembled) {
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
  if (!row_factors_read)
    row_factor_out[k] = eliminated_factor;
  row_voltage[k] = scaled_rhs;
  previous_factor[k] = eliminated_factor;
  previous_rhs[k] = rj;
  previous_off_diagonal[k] = off_diagonal;
}

#if defined(LEVEL_RUN_LANES)
/* Rows j = size - 2 down to 0 of the run's copies [k, k + lanes in m) with their elimination's
 * state in registers across the rows (previous_*: the far end's, and left there after row 0).
 * level_rows_going_on_element's operations lane by lane, each rounded as there (fnmadd(a, b, c)
 * is fma(-a, b, c); the stimulus added as + 0.0 where it does not enter), so the same bits. */
static inline __attribute__((always_inline)) void level_backward_run_lanes(
    const struct level_block_view *v, int begin, int k, __mmask8 m, int row, int size,
    const double *LEVEL_RESTRICT constants, const double *LEVEL_RESTRICT inverse_pivots,
    const int *LEVEL_RESTRICT stimulated, const double *LEVEL_RESTRICT injected, double *voltage,
    double *LEVEL_RESTRICT factor, double *LEVEL_RESTRICT previous_factor,
    double *LEVEL_RESTRICT previous_rhs, double *LEVEL_RESTRICT previous_off_diagonal,
    const int rows_assembled, const int pivots, const int store_factor) {
  __m512d below_factor = _mm512_maskz_loadu_pd(m, previous_factor + k);
  __m512d below_rhs = _mm512_maskz_loadu_pd(m, previous_rhs + k);
  __m512d below_off_diagonal = _mm512_maskz_loadu_pd(m, previous_off_diagonal + k);
  const __m256i stimulated_row = _mm256_maskz_loadu_epi32(m, stimulated + k);
  const __m512d injected_current = _mm512_maskz_loadu_pd(m, injected + k);
  for (int j = size - 2; j >= 0; j--) {
    const size_t at = (size_t)v->row_offset[j] + (size_t)(begin + k);
    const int r = row + j;
    const double *c = constants + (size_t)r * CONST_STRIDE;
    const __m512d off_diagonal = _mm512_set1_pd(c[CONST_OFF_DIAGONAL]);
    __m512d dj, rj;
    if (rows_assembled) {
      dj = _mm512_maskz_loadu_pd(m, factor + at);
      rj = _mm512_maskz_loadu_pd(m, voltage + at);
    } else {
      dj = _mm512_set1_pd(pivots ? inverse_pivots[r] : c[CONST_DIAGONAL_BASE]);
      const __mmask8 entered =
          _mm256_mask_cmpeq_epi32_mask(m, stimulated_row, _mm256_set1_epi32(j));
      rj = _mm512_add_pd(_mm512_fmadd_pd(_mm512_set1_pd(c[CONST_C_OVER_DT]),
                                         _mm512_maskz_loadu_pd(m, voltage + at),
                                         _mm512_set1_pd(c[CONST_LEAK_CURRENT])),
                         _mm512_maskz_mov_pd(entered, injected_current));
    }
    dj = _mm512_fnmadd_pd(below_factor, below_off_diagonal, dj);
    rj = _mm512_fnmadd_pd(below_factor, below_rhs, rj);
    const __m512d inverse =
        pivots ? _mm512_set1_pd(inverse_pivots[r]) : _mm512_div_pd(_mm512_set1_pd(1.0), dj);
    const __m512d eliminated_factor = _mm512_mul_pd(off_diagonal, inverse);
    if (store_factor)
      _mm512_mask_storeu_pd(factor + at, m, eliminated_factor);
    _mm512_mask_storeu_pd(voltage + at, m, _mm512_mul_pd(rj, inverse));
    below_factor = eliminated_factor;
    below_rhs = rj;
    below_off_diagonal = off_diagonal;
  }
  _mm512_mask_storeu_pd(previous_factor + k, m, below_factor);
  _mm512_mask_storeu_pd(previous_rhs + k, m, below_rhs);
  _mm512_mask_storeu_pd(previous_off_diagonal + k, m, below_off_diagonal);
}

/* The lanes' mask of copies [k, k1). */
static inline __mmask8 level_run_mask(int k, int k1) {
  const int lanes = k1 - k < LEVEL_RUN_LANES ? k1 - k : LEVEL_RUN_LANES;
  return (__mmask8)((1u << lanes) - 1u);
}
#endif

/* The backward sweep of the run of copies [k0, k1) of one branch whose first row is `row`:
 * its far ends, then its rows toward the junction (LEVEL_RUNS_ALONG). */
static inline __attribute__((always_inline)) void level_backward_run(
    const struct level_block_view *v, int begin, int k0, int k1, int row,
    const double *LEVEL_RESTRICT constants, const double *LEVEL_RESTRICT inverse_pivots,
    int row_factors_read, const int *LEVEL_RESTRICT first_row, const int *LEVEL_RESTRICT stimulated,
    const double *LEVEL_RESTRICT injected, double *voltage, double *LEVEL_RESTRICT factor,
    const double *LEVEL_RESTRICT child_contribution, double *LEVEL_RESTRICT previous_factor,
    double *LEVEL_RESTRICT previous_rhs, double *LEVEL_RESTRICT previous_off_diagonal,
    const int rows_assembled, const int pivots, const int store_factor) {
  const int size = v->size[begin + k0];
  for (int k = k0, j = size - 1; k < k1; k++)
    level_rows_far_end(v, begin, k, j, constants, inverse_pivots, row_factors_read, first_row,
                       stimulated, injected, voltage + v->row_offset[j] + begin,
                       factor + v->row_offset[j] + begin, child_contribution, previous_factor,
                       previous_rhs, previous_off_diagonal, rows_assembled);
#if defined(LEVEL_RUN_LANES)
  for (int k = k0; k < k1; k += LEVEL_RUN_LANES)
    level_backward_run_lanes(v, begin, k, level_run_mask(k, k1), row, size, constants,
                             inverse_pivots, stimulated, injected, voltage, factor, previous_factor,
                             previous_rhs, previous_off_diagonal, rows_assembled, pivots,
                             store_factor);
#else
  for (int j = size - 2; j >= 0; j--)
    level_rows_going_on(k0, k1, row, j, constants, inverse_pivots, first_row, stimulated, injected,
                        voltage + v->row_offset[j] + begin, factor + v->row_offset[j] + begin,
                        previous_factor, previous_rhs, previous_off_diagonal, 0, rows_assembled,
                        pivots, store_factor);
#endif
}

/* The rows the block's systems outside the runs walked along (LEVEL_RUNS_ALONG) reach: the size
 * of the first of them (sizes do not increase in a block), 0 when there is none. */
static inline int level_rows_across_top(const struct level_block_view *v, int begin,
                                        const struct level_rows_segments *segments,
                                        int runs_along) {
  for (int g = 0, k0 = 0; g < segments->count; k0 = segments->end[g++])
    if (!runs_along || segments->row[g] < 0)
      return v->size[begin + k0];
  return 0;
}

/* CALL(rows_assembled, pivots read, factors stored) with the constants of the sweep at hand, each
 * combination a loop of its own (with rows assembled: no stored pivots nor row factors). */
#define LEVEL_ROWS_SPECIALISED(CALL)                                                               \
  do {                                                                                             \
    if (rows_assembled)                                                                            \
      CALL(1, 0, 1);                                                                               \
    else if (inverse_pivots && row_factor)                                                         \
      CALL(0, 1, 0);                                                                               \
    else if (inverse_pivots)                                                                       \
      CALL(0, 1, 1);                                                                               \
    else if (row_factor)                                                                           \
      CALL(0, 0, 0);                                                                               \
    else                                                                                           \
      CALL(0, 0, 1);                                                                               \
  } while (0)

/* The backward sweep of systems [begin, end) of v, at most LEVEL_ROWS_BLOCK_MAX, row by row: what
 * level_backward_system_in_groups leaves for each of them (voltage, factor, contribution). Blocks
 * where channels reach an element inside the sweep (gates without rows_assembled) go branch by
 * branch. */
static inline void level_backward_rows(
    const struct level_block_view *v, int begin, int end, const double *LEVEL_RESTRICT constants,
    const struct level_step_arguments *args, double *voltage, double *LEVEL_RESTRICT factor,
    double *LEVEL_RESTRICT contribution, const double *LEVEL_RESTRICT child_contribution,
    double *LEVEL_RESTRICT gates, int rows_assembled, int stored_pivots,
    const struct level_element_constants *ec) {
  if ((gates && !rows_assembled && level_rows_channels_in(v, begin, end, &args->channels)) ||
      end - begin > LEVEL_ROWS_BLOCK_MAX || !level_rows_cover(v, begin, end)) {
    level_backward_systems(v, begin, end, constants, args, voltage, factor, contribution,
                           child_contribution, gates, rows_assembled, stored_pivots, ec);
    return;
  }
  const int n = end - begin;
  const double *inverse_pivots =
      stored_pivots ? level_stored_pivots(constants, args, gates, rows_assembled) : 0;
  const double *row_factor = level_row_factors(constants, args, gates, rows_assembled);
  /* the element constants where they hold what these rows read (not with rows assembled apart) */
  const int by_element = ec && !rows_assembled && ec->pivots == (inverse_pivots != 0);
  /* of each system's element eliminated last (one further from the junction) */
  double previous_factor[LEVEL_ROWS_BLOCK_MAX], previous_rhs[LEVEL_ROWS_BLOCK_MAX],
      previous_off_diagonal[LEVEL_ROWS_BLOCK_MAX], injected[LEVEL_ROWS_BLOCK_MAX];
  int stimulated[LEVEL_ROWS_BLOCK_MAX], first_row[LEVEL_ROWS_BLOCK_MAX];
  level_rows_systems(v, begin, n, args, first_row, stimulated, injected);
  struct level_rows_segments segments;
  level_rows_segments_of(first_row, n, &segments);
  for (int k = 0; k < n; k++)
    previous_factor[k] = previous_rhs[k] = previous_off_diagonal[k] = 0.0;
  const int runs_along = LEVEL_RUNS_ALONG;
#define RUN(ASSEMBLED, PIVOTS, STORE)                                                              \
  level_backward_run(v, begin, k0, segments.end[g], segments.row[g], constants, inverse_pivots,    \
                     row_factor != 0, first_row, stimulated, injected, voltage, factor,            \
                     child_contribution, previous_factor, previous_rhs, previous_off_diagonal,     \
                     ASSEMBLED, PIVOTS, STORE)
  for (int g = 0, k0 = 0; runs_along && g < segments.count; k0 = segments.end[g++])
    if (segments.row[g] >= 0)
      LEVEL_ROWS_SPECIALISED(RUN);
#undef RUN
  /* the rest row by row across the block, from its longest system */
  const int top = n > 0 ? level_rows_across_top(v, begin, &segments, runs_along) : 0;
  for (int j = top - 1; j >= 0; j--) {
    const int holding = level_rows_holding(v, j, begin, n);
    /* systems [0, going_on) continue from row j + 1; [going_on, holding) start at row j */
    const int going_on = level_rows_holding(v, j + 1, begin, n);
    double *LEVEL_RESTRICT row_voltage = voltage + v->row_offset[j] + begin;
    double *LEVEL_RESTRICT row_factor_out = factor + v->row_offset[j] + begin;
    const struct level_row_constants rc =
        by_element ? level_row_constants_at(ec, (size_t)v->row_offset[j] + (size_t)begin)
                   : (struct level_row_constants){0};
#define GOING_ON(ASSEMBLED, PIVOTS, STORE)                                                         \
  level_rows_going_on(k0, k1, segments.row[g], j, constants, inverse_pivots, first_row,            \
                      stimulated, injected, row_voltage, row_factor_out, previous_factor,          \
                      previous_rhs, previous_off_diagonal, by_element ? &rc : 0, ASSEMBLED,        \
                      PIVOTS, STORE)
    for (int i = 0, g, k0, k1; LEVEL_ROWS_NEXT_SEGMENT(&segments, runs_along, i, going_on, g, k0);
         i++) {
      k1 = level_rows_segment_end(&segments, g, going_on);
      LEVEL_ROWS_SPECIALISED(GOING_ON);
    }
#undef GOING_ON
    /* far ends: the children's contributions */
    for (int i = 0, g, k0; LEVEL_ROWS_NEXT_SEGMENT(&segments, runs_along, i, holding, g, k0); i++) {
      const int k1 = level_rows_segment_end(&segments, g, holding);
      for (int k = k0 > going_on ? k0 : going_on; k < k1; k++)
        level_rows_far_end(v, begin, k, j, constants, inverse_pivots, row_factor != 0, first_row,
                           stimulated, injected, row_voltage, row_factor_out, child_contribution,
                           previous_factor, previous_rhs, previous_off_diagonal, rows_assembled);
    }
  }
  for (int k = 0; k < n; k++) {
    contribution[2 * (begin + k)] = previous_factor[k] * previous_off_diagonal[k];
    contribution[2 * (begin + k) + 1] = previous_factor[k] * previous_rhs[k];
  }
}

/* The forward sweep of systems [begin, end) of v, at most LEVEL_ROWS_BLOCK_MAX, row by row: what
 * level_forward_system_rows leaves (row_factor: level_row_factors, or NULL). */
static inline void level_forward_rows(const struct level_block_view *v, int begin, int end,
                                      double *voltage, const double *LEVEL_RESTRICT factor,
                                      const double *LEVEL_RESTRICT row_factor,
                                      const double *parent_voltage,
                                      const struct level_element_constants *ec) {
  if (end - begin > LEVEL_ROWS_BLOCK_MAX || !level_rows_cover(v, begin, end)) {
    level_forward_systems(v, begin, end, voltage, factor, row_factor, parent_voltage, ec);
    return;
  }
  const int by_element = ec && ec->row_factor && row_factor;
  const int n = end - begin;
  double x[LEVEL_ROWS_BLOCK_MAX]; /* each system's last solved element: first its junction's */
  int first_row[LEVEL_ROWS_BLOCK_MAX];
  for (int k = 0; k < n; k++) {
    const int junction = v->junction[begin + k];
    x[k] = junction >= 0 ? parent_voltage[junction] : 0.0;
    first_row[k] = v->first_row[begin + k];
  }
  struct level_rows_segments segments;
  level_rows_segments_of(first_row, n, &segments);
  const int runs_along = LEVEL_RUNS_ALONG;
  for (int g = 0, k0 = 0; runs_along && g < segments.count; k0 = segments.end[g++]) {
    if (segments.row[g] < 0)
      continue;
    const int k1 = segments.end[g], row = segments.row[g], size = v->size[begin + k0];
#if defined(LEVEL_RUN_LANES)
    for (int k = k0; k < k1; k += LEVEL_RUN_LANES) { /* x in registers across the rows */
      const __mmask8 m = level_run_mask(k, k1);
      __m512d solved = _mm512_maskz_loadu_pd(m, x + k);
      for (int j = 0; j < size; j++) {
        const size_t at = (size_t)v->row_offset[j] + (size_t)(begin + k);
        const __m512d f = row_factor ? _mm512_set1_pd(row_factor[row + j])
                                     : _mm512_maskz_loadu_pd(m, factor + at);
        solved = _mm512_fnmadd_pd(f, solved, _mm512_maskz_loadu_pd(m, voltage + at));
        _mm512_mask_storeu_pd(voltage + at, m, solved);
      }
    }
    continue;
#endif
    for (int j = 0; j < size; j++) {
      double *LEVEL_RESTRICT row_voltage = voltage + v->row_offset[j] + begin;
      const double *LEVEL_RESTRICT row_factors = factor + v->row_offset[j] + begin;
      if (row_factor) {
        const double f = row_factor[row + j];
#pragma omp simd
        for (int k = k0; k < k1; k++) {
          x[k] = fma(-f, x[k], row_voltage[k]);
          row_voltage[k] = x[k];
        }
      } else {
#pragma omp simd
        for (int k = k0; k < k1; k++) {
          x[k] = fma(-row_factors[k], x[k], row_voltage[k]);
          row_voltage[k] = x[k];
        }
      }
    }
  }
  const int top = n > 0 ? level_rows_across_top(v, begin, &segments, runs_along) : 0;
  for (int j = 0; j < top; j++) {
    const int holding = level_rows_holding(v, j, begin, n);
    double *LEVEL_RESTRICT row_voltage = voltage + v->row_offset[j] + begin;
    const double *LEVEL_RESTRICT row_factors = factor + v->row_offset[j] + begin;
    if (row_factor) {
      level_rows_substitute(&segments, holding, j, first_row, row_factor,
                            by_element ? ec->row_factor + v->row_offset[j] + (size_t)begin : 0, x,
                            row_voltage, runs_along);
      continue;
    }
    for (int i = 0, g, k0, k1; LEVEL_ROWS_NEXT_SEGMENT(&segments, runs_along, i, holding, g, k0);
         i++) {
      k1 = level_rows_segment_end(&segments, g, holding);
#pragma omp simd /* each element's factor, stored by the backward sweep */
      for (int k = k0; k < k1; k++) {
        x[k] = fma(-row_factors[k], x[k], row_voltage[k]);
        row_voltage[k] = x[k];
      }
    }
  }
}

#endif
