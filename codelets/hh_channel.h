/* Hodgkin-Huxley sodium and potassium channels with the classic squid parameters of NEURON's
 * `hh` mechanism (6.3 degC, rates in 1/ms, V in mV). The gates advance with NEURON's cnexp rule
 * (exact for the linear gate equation at fixed V); the channel currents enter the voltage step
 * linearised, conductance on the diagonal and g*E on the right-hand side, which keeps the
 * implicit step stable. Shared by the CPU and CUDA kernels and the reference time loop. */
#ifndef HINES_HH_CHANNEL_H
#define HINES_HH_CHANNEL_H

#include <math.h>

#include "hines_math.h"
#include "host_device.h"

enum hh_placement { HH_NONE, HH_SOMA, HH_ALL };

struct hh_parameters {
  int placement;            /* enum hh_placement */
  double gnabar, gkbar, gl; /* S/cm^2 */
  double ena, ek, el;       /* mV */
};

#define HH_DEFAULTS                                                                                \
  { HH_NONE, 0.12, 0.036, 0.0003, 50.0, -77.0, -54.3 }

/* x / (exp(x/y) - 1) without the 0/0 at x = 0. */
static inline HINES_HOST_DEVICE double hh_vtrap(double x, double y) {
  return fabs(x / y) < 1e-6 ? y * (1.0 - x / y / 2.0) : x / (hines_exp(x / y) - 1.0);
}

static inline HINES_HOST_DEVICE double hh_relax(double gate, double alpha, double beta, double dt) {
  double rate = alpha + beta;
  double steady = alpha / rate;
  return fma(gate - steady, hines_exp(-dt * rate), steady);
}

/* Gate values at rest for voltage v. */
static inline HINES_HOST_DEVICE void hh_rest(double v, double *m, double *h, double *n) {
  double am = 0.1 * hh_vtrap(-(v + 40.0), 10.0), bm = 4.0 * hines_exp(-(v + 65.0) / 18.0);
  double ah = 0.07 * hines_exp(-(v + 65.0) / 20.0),
         bh = 1.0 / (hines_exp(-(v + 35.0) / 10.0) + 1.0);
  double an = 0.01 * hh_vtrap(-(v + 55.0), 10.0), bn = 0.125 * hines_exp(-(v + 65.0) / 80.0);
  *m = am / (am + bm);
  *h = ah / (ah + bh);
  *n = an / (an + bn);
}

/* Advances the gates by dt at voltage v with the rates computed exactly (9 hines_exp and 6
 * divisions: what makes a step with channels everywhere compute-bound). */
static inline HINES_HOST_DEVICE void hh_gates_exact(double v, double dt, double *m, double *h,
                                                    double *n) {
  double am = 0.1 * hh_vtrap(-(v + 40.0), 10.0), bm = 4.0 * hines_exp(-(v + 65.0) / 18.0);
  double ah = 0.07 * hines_exp(-(v + 65.0) / 20.0),
         bh = 1.0 / (hines_exp(-(v + 35.0) / 10.0) + 1.0);
  double an = 0.01 * hh_vtrap(-(v + 55.0), 10.0), bn = 0.125 * hines_exp(-(v + 65.0) / 80.0);
  *m = hh_relax(*m, am, bm, dt);
  *h = hh_relax(*h, ah, bh, dt);
  *n = hh_relax(*n, an, bn, dt);
}

/* For a compartment whose membrane area times 1e-2 is `scale` (S/cm^2 -> uS), the channels'
 * conductance to add to the diagonal and the current g*E to add to the rhs at gates m, h, n. */
static inline HINES_HOST_DEVICE void hh_currents(const struct hh_parameters *p, double scale,
                                                 double m, double h, double n, double *conductance,
                                                 double *driven_current) {
  double m3 = m * m * m, n2 = n * n;
  double gna = p->gnabar * m3 * h * scale, gk = p->gkbar * n2 * n2 * scale, gl = p->gl * scale;
  *conductance = gna + gk + gl;
  *driven_current = fma(gna, p->ena, fma(gk, p->ek, gl * p->el));
}

/* Advances the gates by dt at voltage v (exact rates) and returns the channels' conductance and
 * driving current (hh_currents). */
static inline HINES_HOST_DEVICE void hh_step(const struct hh_parameters *p, double v, double dt,
                                             double scale, double *m, double *h, double *n,
                                             double *conductance, double *driven_current) {
  hh_gates_exact(v, dt, m, h, n);
  hh_currents(p, scale, *m, *h, *n, conductance, driven_current);
}

/* Rate tables, as NEURON's hh.mod (TABLE ... FROM -100 TO 100 WITH 200, on by default there:
 * usetable_hh = 1). The cnexp update of gate x at fixed v is x_new = x A(v) + B(v) with
 * A = exp(-dt (alpha + beta)) and B = x_inf (1 - A); the table holds A and B of the three gates
 * at every millivolt from -100 to 100 for the run's dt (hh_rate_table_fill, on the host, from
 * the exact rates above), and a step interpolates them linearly in v: one index and fraction
 * per compartment, then an fma per coefficient and one per gate instead of 9 exponentials and 6
 * divisions. Outside [-100, 100] mV the end point's values hold, as NEURON's table clamps (NaN
 * reads the first point; the voltage stays NaN and is reported as such).
 * NEURON interpolates x_inf and tau and takes the exponential of -dt/tau each step; the decay
 * form tabulates that exponential too, so the step has none. Both are second-order accurate in
 * the grid spacing; BENCHMARKS.md ("Rate tables") measures the two against exact rates and
 * against NEURON.
 * The table starts with its grid (HH_TABLE_HEADER doubles: the first voltage, points per mV, and
 * the clamp's ends 0 and 200 in grid units); then entry i (interval [v_i, v_i + 1 mV],
 * i = 0 .. 200) holds, for m, h and n in turn, A(v_i), the slope A(v_i+1) - A(v_i), B(v_i) and
 * its slope: the 12 doubles one compartment reads are contiguous (96 bytes), and the
 * interpolation is a single fma per value. Entry 200 has slopes 0, so v >= 100 mV reads exactly
 * the last point, as NEURON does. The kernels read the grid from the header, not from
 * constants: with constant clamp ends GCC 12 turns the clamp into branches (it specialises the
 * index for the constant cases) and no longer vectorises the CPU loops ("control flow in
 * loop"); read from memory, the ends are loop invariants and the loop vectorises with gathers. */
enum hh_rates { HH_RATES_EXACT, HH_RATES_TABLE };
#define HH_TABLE_VMIN_MV (-100.0)
#define HH_TABLE_INTERVALS 200 /* grid points 0 .. 200 */
#define HH_TABLE_PER_MV 1.0    /* 200 intervals over 200 mV */
enum hh_table_header {
  HH_TABLE_FIRST_MV,
  HH_TABLE_POINTS_PER_MV,
  HH_TABLE_LOW,
  HH_TABLE_HIGH,
  HH_TABLE_HEADER
};
#define HH_TABLE_ENTRY 12
#define HH_RATE_TABLE_SIZE (HH_TABLE_HEADER + (size_t)(HH_TABLE_INTERVALS + 1) * HH_TABLE_ENTRY)

/* The channels' share of a task's kind for the size models (codelets/size_model.h): tables
 * and exact rates cost differently per compartment. Exact rates keep the placement alone, the
 * kinds models learnt before tables existed. */
static inline unsigned hh_cost_kind(int placement, int rates) {
  return (unsigned)placement + (placement != HH_NONE && rates == HH_RATES_TABLE ? 16u : 0u);
}

/* A and B (decay form above) of gates m, h, n at voltage v and step dt, from the exact rates. */
static inline void hh_decay_coefficients(double v, double dt, double a[3], double b[3]) {
  const double alpha[3] = {0.1 * hh_vtrap(-(v + 40.0), 10.0), 0.07 * hines_exp(-(v + 65.0) / 20.0),
                           0.01 * hh_vtrap(-(v + 55.0), 10.0)};
  const double beta[3] = {4.0 * hines_exp(-(v + 65.0) / 18.0),
                          1.0 / (hines_exp(-(v + 35.0) / 10.0) + 1.0),
                          0.125 * hines_exp(-(v + 65.0) / 80.0)};
  for (int g = 0; g < 3; g++) {
    const double rate = alpha[g] + beta[g];
    a[g] = hines_exp(-dt * rate);
    b[g] = alpha[g] / rate * -expm1(-dt * rate); /* 1 - A without cancellation */
  }
}

/* Fills table (HH_RATE_TABLE_SIZE doubles) for step dt. */
static inline void hh_rate_table_fill(double dt, double *table) {
  table[HH_TABLE_FIRST_MV] = HH_TABLE_VMIN_MV;
  table[HH_TABLE_POINTS_PER_MV] = HH_TABLE_PER_MV;
  table[HH_TABLE_LOW] = 0.0;
  table[HH_TABLE_HIGH] = HH_TABLE_INTERVALS;
  table += HH_TABLE_HEADER;
  double a[3], b[3], next_a[3], next_b[3];
  hh_decay_coefficients(HH_TABLE_VMIN_MV, dt, a, b);
  for (int i = 0; i <= HH_TABLE_INTERVALS; i++) {
    double *entry = table + (size_t)i * HH_TABLE_ENTRY;
    if (i < HH_TABLE_INTERVALS)
      hh_decay_coefficients(HH_TABLE_VMIN_MV + (i + 1) / HH_TABLE_PER_MV, dt, next_a, next_b);
    for (int g = 0; g < 3; g++) {
      entry[4 * g] = a[g];
      entry[4 * g + 1] = i < HH_TABLE_INTERVALS ? next_a[g] - a[g] : 0.0;
      entry[4 * g + 2] = b[g];
      entry[4 * g + 3] = i < HH_TABLE_INTERVALS ? next_b[g] - b[g] : 0.0;
      a[g] = next_a[g];
      b[g] = next_b[g];
    }
  }
}

/* Advances the gates by the table's dt at voltage v, interpolating the table (read-only data,
 * through the GPU's read-only cache). */
static inline HINES_HOST_DEVICE void hh_gates_table(const double *HINES_RESTRICT table, double v,
                                                    double *m, double *h, double *n) {
  const double low = HINES_LDG(table + HH_TABLE_LOW), high = HINES_LDG(table + HH_TABLE_HIGH);
  double x = (v - HINES_LDG(table + HH_TABLE_FIRST_MV)) * HINES_LDG(table + HH_TABLE_POINTS_PER_MV);
  x = x > low ? x : low; /* below the range, and NaN */
  x = x < high ? x : high;
  const int i = (int)x;
  const double theta = x - (double)i; /* exact */
  /* One offset added to table in every load (not a pointer to the entry): GCC 12 turns that
   * form into gathers, the other it does not vectorise. */
  const size_t e = HH_TABLE_HEADER + (size_t)i * HH_TABLE_ENTRY;
  *m = fma(*m, fma(theta, HINES_LDG(table + e + 1), HINES_LDG(table + e + 0)),
           fma(theta, HINES_LDG(table + e + 3), HINES_LDG(table + e + 2)));
  *h = fma(*h, fma(theta, HINES_LDG(table + e + 5), HINES_LDG(table + e + 4)),
           fma(theta, HINES_LDG(table + e + 7), HINES_LDG(table + e + 6)));
  *n = fma(*n, fma(theta, HINES_LDG(table + e + 9), HINES_LDG(table + e + 8)),
           fma(theta, HINES_LDG(table + e + 11), HINES_LDG(table + e + 10)));
}

/* hh_step with the gates advanced through the rate table (the table's dt). */
static inline HINES_HOST_DEVICE void hh_step_table(const struct hh_parameters *p,
                                                   const double *HINES_RESTRICT table, double v,
                                                   double scale, double *m, double *h, double *n,
                                                   double *conductance, double *driven_current) {
  hh_gates_table(table, v, m, h, n);
  hh_currents(p, scale, *m, *h, *n, conductance, driven_current);
}

static inline HINES_HOST_DEVICE int hh_applies(const struct hh_parameters *p, int compartment) {
  return p->placement == HH_ALL || (p->placement == HH_SOMA && compartment == 0);
}

#endif
