/* The CPU kernels' channel terms over lanes of contiguous elements (a mono group's neurons at
 * one compartment, a level row's systems): each placed mechanism as a loop of its own, its shape
 * a compile-time constant, which GCC 12 vectorises where one loop over the lanes calling
 * channels_row for any set does not ("control flow in loop"). Host code only. */
#ifndef HINES_CHANNEL_LANES_CPU_H
#define HINES_CHANNEL_LANES_CPU_H

#include <stddef.h>
#include <string.h>

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
#pragma omp simd
  for (int k = 0; k < width; k++) {
    if (table)
      mechanism_gates_table(shape, rate_table, entry[k] + first, theta[k], gates + k, gate_step);
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
