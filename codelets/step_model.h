/* The model of one implicit voltage step, written once for every kernel: the mono CPU and CUDA
 * kernels, the level kernels, the sequential reference and the benchmarks' baselines all build
 * their matrix rows through the functions below, so a new channel or stimulus touches this file
 * (and the mechanism's own header) only, and CPU and GPU do the same arithmetic in the same order.
 * Multiply-adds are written as explicit fma (correctly rounded in C and CUDA alike, one rounding
 * and one instruction instead of two): the kernels are built without contraction (issue #18),
 * so an fma happens only where the source says so, the same on every side.
 *
 * Row i of the backward Euler step (morph/cable.h):
 *   d_i   = C_i/dt + gL_i + sum_j g_ij              + channel conductance
 *   rhs_i = C_i/dt V_i + gL_i EL + injected current  + channel current (g*E)
 * The constant parts are computed once per morphology (struct membrane_constants). */
#ifndef HINES_STEP_MODEL_H
#define HINES_STEP_MODEL_H

#include "cable.h"
#include "hh_channel.h"
#include "stimulus.h"

/* Everything that shapes a step besides the morphology, shared by mono and multi batches. */
struct step_model {
  struct cable_parameters cable;
  double dt_ms;
  double initial_mV;
  /* The stimulus varies across a batch by position, so stimulus.n_neurons_total is the batch's
   * size: a batch sets it in its own copy when it is created; a caller of the reference sets it
   * to the size of the batch it compares with. */
  struct stimulus stimulus;
  struct hh_parameters hh; /* placement HH_NONE: passive membrane only */
  int hh_rates;            /* enum hh_rates (hh_channel.h): how the gates' rates are computed */
};

/* The per-compartment constants of a row. */
struct membrane_constants {
  double c_over_dt;     /* C_i / dt */
  double diagonal_base; /* C_i/dt + gL_i + sum_j g_ij */
  double leak_current;  /* gL_i * EL */
  double hh_scale;      /* membrane area * 1e-2: channel densities in S/cm^2 -> uS */
};

static inline struct membrane_constants membrane_constants_of(const struct cable_coefficients *c,
                                                              int i,
                                                              const struct cable_parameters *cable,
                                                              double dt_ms) {
  struct membrane_constants k;
  k.c_over_dt = c->capacitance_nF[i] / dt_ms;
  k.diagonal_base = k.c_over_dt + c->leak_uS[i] + c->axial_sum_uS[i];
  k.leak_current = c->leak_uS[i] * cable->el_mV;
  k.hh_scale = c->area_um2[i] * 1e-2;
  return k;
}

/* The membrane's share of row i at the old voltage: capacitive, leak and injected current. */
static inline HINES_HOST_DEVICE void membrane_row(double diagonal_base, double c_over_dt,
                                                  double leak_current, double old_voltage,
                                                  double injected, double *diagonal, double *rhs) {
  *diagonal = diagonal_base;
  *rhs = fma(c_over_dt, old_voltage, leak_current) + injected;
}

/* The channels' share of row i: the gates advance on the old voltage, then their conductance
 * joins the diagonal and their driving current the rhs (linearised, so the step stays
 * implicit). The gates' rates computed exactly, or interpolated in the batch's rate table for dt
 * (hh_channel.h); membrane_row_channels picks by rate_table (NULL: exact). CPU loops that
 * vectorise these calls keep one loop per kind, calling the kind's function directly: a test on
 * rate_table inside the loop would keep GCC from vectorising it, or make each lane compute
 * both. */
static inline HINES_HOST_DEVICE void membrane_row_channels_exact(const struct hh_parameters *hh,
                                                                 double old_voltage, double dt_ms,
                                                                 double hh_scale, double *m,
                                                                 double *h, double *n,
                                                                 double *diagonal, double *rhs) {
  double conductance, driven;
  hh_step(hh, old_voltage, dt_ms, hh_scale, m, h, n, &conductance, &driven);
  *diagonal += conductance;
  *rhs += driven;
}

static inline HINES_HOST_DEVICE void
membrane_row_channels_table(const struct hh_parameters *hh, const double *HINES_RESTRICT rate_table,
                            double old_voltage, double hh_scale, double *m, double *h, double *n,
                            double *diagonal, double *rhs) {
  double conductance, driven;
  hh_step_table(hh, rate_table, old_voltage, hh_scale, m, h, n, &conductance, &driven);
  *diagonal += conductance;
  *rhs += driven;
}

static inline HINES_HOST_DEVICE void
membrane_row_channels(const struct hh_parameters *hh, const double *HINES_RESTRICT rate_table,
                      double old_voltage, double dt_ms, double hh_scale, double *m, double *h,
                      double *n, double *diagonal, double *rhs) {
  if (rate_table)
    membrane_row_channels_table(hh, rate_table, old_voltage, hh_scale, m, h, n, diagonal, rhs);
  else
    membrane_row_channels_exact(hh, old_voltage, dt_ms, hh_scale, m, h, n, diagonal, rhs);
}

#endif
