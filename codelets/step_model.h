/* The model of one implicit voltage step, written once for every kernel: the mono CPU and CUDA
 * kernels, the level kernels, the sequential reference and the benchmarks' baselines all build
 * their matrix rows through the functions below, so a new channel or stimulus touches this file
 * (and the mechanism table, mechanisms.c) only, and CPU and GPU do the same arithmetic in the same
 * order. Multiply-adds are written as explicit fma (correctly rounded in C and CUDA alike, one
 * rounding and one instruction instead of two): the kernels are built without contraction (issue
 * #18), so an fma happens only where the source says so, the same on every side.
 *
 * Row i of the backward Euler step (morph/cable.h):
 *   d_i   = C_i/dt + gL_i + sum_j g_ij              + channel conductance
 *   rhs_i = C_i/dt V_i + gL_i EL + injected current  + channel current (g*E)
 * The constant parts are computed once per morphology (struct membrane_constants). */
#ifndef HINES_STEP_MODEL_H
#define HINES_STEP_MODEL_H

#include "cable.h"
#include "mechanisms.h"
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
  struct channel_set channels; /* nothing placed: passive membrane only (mechanisms.h) */
  int hh_rates;                /* enum hh_rates (mechanisms.h): how the gates' rates are computed */
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

/* The channels' share of row i: channels_row (mechanisms.h). */

#endif
