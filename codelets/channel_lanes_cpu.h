/* The CPU kernels' channel terms over lanes of contiguous elements (a mono group's neurons at
 * one compartment, a level row's systems): each placed mechanism as a loop of its own, its shape
 * a compile-time constant, which GCC 12 vectorises where one loop over the lanes calling
 * channels_row for any set does not ("control flow in loop"). Host code only. */
#ifndef HINES_CHANNEL_LANES_CPU_H
#define HINES_CHANNEL_LANES_CPU_H

#include <stddef.h>
#include <string.h>
#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "mechanisms.h"

/* The widest run of lanes (the callers' groups and blocks). */
#define CHANNEL_LANES_MAX 64

/* Whether every placed mechanism of the set has its table entry's shape, the constant that
 * channel_lanes_any compiles in for it (so today: --channels sets places and numbers, never a
 * shape). */
static inline int channel_shapes_are_constant(const struct channel_set *set) {
  _Static_assert(MECHANISM_COUNT == 3, "channel_lanes_any: a shape for every mechanism");
  static const struct mechanism_shape shapes[MECHANISM_COUNT] = {
      [MECHANISM_HH] = MECHANISM_HH_SHAPE,
      [MECHANISM_KM] = MECHANISM_KM_SHAPE,
      [MECHANISM_IH] = MECHANISM_IH_SHAPE};
  for (int m = 0; m < MECHANISM_COUNT; m++)
    if (set->mechanism[m].placement != PLACE_NONE &&
        memcmp(&set->mechanism[m].shape, &shapes[m], sizeof shapes[m]) != 0)
      return 0;
  return 1;
}

/* The rate table's values of `width` lanes as columns: columns[j][k] = table[entry[k] + first +
 * j] for j < n_values, a copy of what each lane reads from its own entry. The gates' update then
 * reads a column with one vector load where it read each lane's value through a gather (or,
 * where GCC's tuning has no gathers, -mtune=generic, a scalar load per lane inserted into the
 * vector): HH on the CPU workers spent about 60 % of its time in those loads (perf, dev
 * machine, mono medium-high x 8,000, blocks). With AVX-512 a lane's four values of a gate are
 * one 32-byte load and eight lanes' loads are turned into four columns by a transposition in
 * registers (with AVX alone, four lanes' loads into four columns); the lanes past the last such
 * group, and machines without AVX, copy value by value. The same numbers are read either way,
 * so the same bits follow. */
static inline __attribute__((always_inline)) void
rate_table_columns_scalar(const double *restrict table, const size_t *restrict entry, size_t first,
                          int n_values, int begin, int width,
                          double (*restrict columns)[CHANNEL_LANES_MAX]) {
  for (int k = begin; k < width; k++)
    for (int j = 0; j < n_values; j++)
      columns[j][k] = table[entry[k] + first + (size_t)j];
}

static inline __attribute__((always_inline)) void
rate_table_columns(const double *restrict table, const size_t *restrict entry, size_t first,
                   int n_values, int width, double (*restrict columns)[CHANNEL_LANES_MAX]) {
  int k = 0;
#if defined(__AVX512F__)
  if (n_values % 4 == 0) {
    /* rows R0..R7 (a lane's 4 values each): Z_i = [R_i | R_i+4], the pairs' unpacks give
     * T0 = [R0_0 R1_0 R0_2 R1_2 R4_0 R5_0 R4_2 R5_2] and its kin, and a two-source permutation
     * picks each column's 128-bit pieces from two of them */
    const __m512i even = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
    const __m512i odd = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    for (; k + 8 <= width; k += 8) {
      const double *row[8];
      for (int i = 0; i < 8; i++)
        row[i] = table + entry[k + i] + first;
      for (int j = 0; j < n_values; j += 4) {
        __m512d z[4];
        for (int i = 0; i < 4; i++)
          z[i] = _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_loadu_pd(row[i] + j)),
                                    _mm256_loadu_pd(row[i + 4] + j), 1);
        const __m512d t0 = _mm512_unpacklo_pd(z[0], z[1]), t1 = _mm512_unpackhi_pd(z[0], z[1]);
        const __m512d t2 = _mm512_unpacklo_pd(z[2], z[3]), t3 = _mm512_unpackhi_pd(z[2], z[3]);
        _mm512_storeu_pd(&columns[j + 0][k], _mm512_permutex2var_pd(t0, even, t2));
        _mm512_storeu_pd(&columns[j + 1][k], _mm512_permutex2var_pd(t1, even, t3));
        _mm512_storeu_pd(&columns[j + 2][k], _mm512_permutex2var_pd(t0, odd, t2));
        _mm512_storeu_pd(&columns[j + 3][k], _mm512_permutex2var_pd(t1, odd, t3));
      }
    }
  }
#endif
#if defined(__AVX__)
  if (n_values % 4 == 0) {
    /* four lanes: the pairs' unpacks, then each column's two 128-bit halves */
    for (; k + 4 <= width; k += 4) {
      const double *row[4];
      for (int i = 0; i < 4; i++)
        row[i] = table + entry[k + i] + first;
      for (int j = 0; j < n_values; j += 4) {
        const __m256d r0 = _mm256_loadu_pd(row[0] + j), r1 = _mm256_loadu_pd(row[1] + j);
        const __m256d r2 = _mm256_loadu_pd(row[2] + j), r3 = _mm256_loadu_pd(row[3] + j);
        const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
        const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
        _mm256_storeu_pd(&columns[j + 0][k], _mm256_permute2f128_pd(t0, t2, 0x20));
        _mm256_storeu_pd(&columns[j + 1][k], _mm256_permute2f128_pd(t1, t3, 0x20));
        _mm256_storeu_pd(&columns[j + 2][k], _mm256_permute2f128_pd(t0, t2, 0x31));
        _mm256_storeu_pd(&columns[j + 3][k], _mm256_permute2f128_pd(t1, t3, 0x31));
      }
    }
  }
#endif
  rate_table_columns_scalar(table, entry, first, n_values, k, width, columns);
}

/* mechanism_gates_table with lane k's values read from columns (rate_table_columns): the same
 * fmas on the same numbers. */
static inline __attribute__((always_inline)) void
mechanism_gates_columns(const struct mechanism_shape shape,
                        const double (*restrict columns)[CHANNEL_LANES_MAX], int k, double theta,
                        double *gates, size_t gate_step) {
  MECHANISM_UNROLL
  for (int g = 0; g < MECHANISM_MAX_GATES; g++)
    if (g < shape.n_gates) {
      const int at = RATE_TABLE_PER_GATE * g;
      double *x = &MECHANISM_GATE(gates, g, gate_step);
      *x = fma(*x, fma(theta, columns[at + 1][k], columns[at + 0][k]),
               fma(theta, columns[at + 3][k], columns[at + 2][k]));
    }
}

/* One mechanism of the set at one compartment over `width` lanes, its shape a constant: the
 * body of channels_row's loop for that mechanism, lane by lane (gates advanced, then its
 * conductance and current added to the lane's row). gates: the mechanism's first gate of lane
 * 0; entry, theta: each lane's place in the rate table (table not 0); scale: lane k's area
 * scale at scale[k * scale_step] (0: one for every lane). */
static inline __attribute__((always_inline)) void
mechanism_lanes(const struct channel_mechanism *mechanism, const struct mechanism_shape shape,
                int table, const double *restrict rate_table, const size_t *restrict entry,
                const double *restrict theta, const double *restrict vi, double dt_ms,
                const double *restrict scale, size_t scale_step, double *restrict gates,
                size_t gate_step, double *restrict d, double *restrict r, int width) {
  const struct channel_mechanism m = *mechanism; /* a local: the loop's stores cannot change it */
  const size_t first = RATE_TABLE_PER_GATE * (size_t)m.first_gate;
  double columns[RATE_TABLE_PER_GATE * MECHANISM_MAX_GATES][CHANNEL_LANES_MAX];
  if (table)
    rate_table_columns(rate_table, entry, first, RATE_TABLE_PER_GATE * shape.n_gates, width,
                       columns);
#pragma omp simd
  for (int k = 0; k < width; k++) {
    if (table)
      mechanism_gates_columns(shape, (const double(*)[CHANNEL_LANES_MAX])columns, k, theta[k],
                              gates + k, gate_step);
    else
      mechanism_gates_exact(&m, shape, vi[k], dt_ms, gates + k, gate_step);
    double conductance, driven;
    mechanism_currents(&m, shape, scale[(size_t)k * scale_step], gates + k, gate_step, &conductance,
                       &driven);
    d[k] += conductance;
    r[k] += driven;
  }
}

/* channels_row's any-set form over `width` lanes (at most CHANNEL_LANES_MAX), with the
 * mechanisms' loop outside the lanes' and each mechanism's shape a constant: in one loop over
 * lanes with the shapes read at run time, GCC 12 vectorises nothing ("control flow in loop"),
 * and hh with km on every compartment ran 2.2x as long as hh alone on the cores (mono, dev
 * machine, 8-step tasks; the GPU: 1.45x). Each lane gets channels_row's operations in its order
 * (the table's entry first, then each placed mechanism's gates and terms in table order), so
 * the same bits. compartment: where each mechanism's placement is tested, the same for every
 * lane (a level row, whose lanes are different compartments, passes only sets placed everywhere
 * or nowhere); vi: the lanes' voltages; scale, scale_step: as mechanism_lanes. */
static inline __attribute__((always_inline)) void
channel_lanes_any(const struct channel_set *channels, int table, const double *restrict rate_table,
                  int compartment, const double *restrict vi, double dt_ms,
                  const double *restrict scale, size_t scale_step, double *restrict gates,
                  size_t gate_step, double *restrict d, double *restrict r, int width) {
  size_t entry[CHANNEL_LANES_MAX];
  double theta[CHANNEL_LANES_MAX];
  if (table) {
    const size_t entry_size = RATE_TABLE_PER_GATE * (size_t)channels->n_gates;
#pragma omp simd
    for (int k = 0; k < width; k++)
      entry[k] = rate_table_entry(rate_table, vi[k], entry_size, &theta[k]);
  }
  const struct mechanism_shape hh = MECHANISM_HH_SHAPE, km = MECHANISM_KM_SHAPE,
                               ih = MECHANISM_IH_SHAPE;
  for (int mi = 0; mi < MECHANISM_COUNT; mi++) {
    const struct channel_mechanism *m = &channels->mechanism[mi];
    if (!placement_applies(m->placement, compartment))
      continue;
    double *own = gates + (size_t)m->first_gate * gate_step;
    if (mi == MECHANISM_HH)
      mechanism_lanes(m, hh, table, rate_table, entry, theta, vi, dt_ms, scale, scale_step, own,
                      gate_step, d, r, width);
    else if (mi == MECHANISM_KM)
      mechanism_lanes(m, km, table, rate_table, entry, theta, vi, dt_ms, scale, scale_step, own,
                      gate_step, d, r, width);
    else
      mechanism_lanes(m, ih, table, rate_table, entry, theta, vi, dt_ms, scale, scale_step, own,
                      gate_step, d, r, width);
  }
}

#endif
