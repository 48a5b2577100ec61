#include "reference_simulation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hines_reference.h"

int reference_simulate(const struct morphology *m, const struct cable_parameters *cable,
                       const struct channel_set *channels, double dt_ms, int steps, double t0_ms,
                       const struct stimulus *stim, int global_neuron, double *v_mV,
                       struct hines_error *err) {
  return reference_simulate_keeping_last_rows(m, cable, channels, HH_RATES_EXACT, dt_ms, steps,
                                              t0_ms, stim, global_neuron, v_mV, NULL, NULL, err);
}

int reference_simulate_rates(const struct morphology *m, const struct cable_parameters *cable,
                             const struct channel_set *channels, int hh_rates, double dt_ms,
                             int steps, double t0_ms, const struct stimulus *stim,
                             int global_neuron, double *v_mV, struct hines_error *err) {
  return reference_simulate_keeping_last_rows(m, cable, channels, hh_rates, dt_ms, steps, t0_ms,
                                              stim, global_neuron, v_mV, NULL, NULL, err);
}

int reference_simulate_keeping_last_rows(const struct morphology *m,
                                         const struct cable_parameters *cable,
                                         const struct channel_set *channels, int hh_rates,
                                         double dt_ms, int steps, double t0_ms,
                                         const struct stimulus *stim, int global_neuron,
                                         double *v_mV, double *last_diagonal, double *last_rhs,
                                         struct hines_error *err) {
  struct cable_coefficients c;
  int status = cable_coefficients_build(m, cable, &c, err);
  if (status)
    return status;
  const int n = m->n_compartments;
  const int with_channels = channels && channels->placement != PLACE_NONE;
  const int n_gates = with_channels ? channels->n_gates : 0;
  double *diagonal = malloc((size_t)n * sizeof(double));
  double *gates = malloc(((size_t)n_gates * n + 1) * sizeof(double)); /* gate g at g * n + i */
  double *rate_table = with_channels && hh_rates == HH_RATES_TABLE
                           ? malloc(RATE_TABLE_SIZE(n_gates) * sizeof(double))
                           : NULL;
  if (!diagonal || !gates || (with_channels && hh_rates == HH_RATES_TABLE && !rate_table)) {
    free(diagonal), free(gates), free(rate_table);
    cable_coefficients_free(&c);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  if (rate_table)
    channel_rate_table_fill(channels, dt_ms, rate_table);
  for (int i = 0; with_channels && i < n; i++)
    channels_rest(channels, v_mV[i], &gates[i], (size_t)n);
  for (int s = 0; s < steps; s++) {
    double t = t0_ms + s * dt_ms;
    double injected = stim ? stimulus_current(stim, global_neuron, t) : 0.0;
    /* Row i of the implicit step (step_model.h); the rhs overwrites v, which the solve turns
     * into the new voltage. */
    for (int i = 0; i < n; i++) {
      const struct membrane_constants k = membrane_constants_of(&c, i, cable, dt_ms);
      const double old_voltage = v_mV[i];
      membrane_row(k.diagonal_base, k.c_over_dt, k.leak_current, old_voltage,
                   stim && i == stim->compartment ? injected : 0.0, &diagonal[i], &v_mV[i]);
      if (with_channels && channels_apply(channels, i))
        channels_row_any(channels, &channels->mechanism[MECHANISM_HH], rate_table, i, old_voltage,
                         dt_ms, k.hh_scale, &gates[i], (size_t)n, &diagonal[i], &v_mV[i]);
    }
    if (s == steps - 1 && last_diagonal && last_rhs) {
      memcpy(last_diagonal, diagonal, (size_t)n * sizeof(double));
      memcpy(last_rhs, v_mV, (size_t)n * sizeof(double));
    }
    hines_solve_reference(n, m->parent, c.off_diagonal, c.off_diagonal, diagonal, v_mV);
  }
  free(diagonal), free(gates), free(rate_table);
  cable_coefficients_free(&c);
  return HINES_OK;
}

/* Gershgorin's bound of the 2-norm condition number of a morphology's step matrix: the matrix
 * is symmetric and diagonally dominant, d_i = C_i/dt + gL_i + g_channels_i + sum_j g_ij with
 * off-diagonal row sums sum_j g_ij, so its eigenvalues lie between min_i (C_i/dt + gL_i) and
 * max_i (C_i/dt + gL_i + g_channels_i + 2 sum_j g_ij). Channel conductances are bounded by their
 * maxima (the sum of every placed mechanism's gbar). NEURON's geometry has zero-area nodes (where
 * several sections meet), whose rows have no membrane term: their voltage is a weighted mean of
 * their neighbours'. Eliminating them leaves a matrix on the other nodes with the same row sums and
 * no larger a diagonal, whose eigenvalues bound those of the solve; so the minimum is taken over
 * the nodes with membrane. Returns 0 when the coefficients cannot be built. */
double reference_condition_bound(const struct morphology *m, const struct cable_parameters *cable,
                                 const struct channel_set *channels, double dt_ms) {
  struct cable_coefficients c;
  struct hines_error err;
  if (cable_coefficients_build(m, cable, &c, &err) != HINES_OK) {
    cable_coefficients_free(&c);
    return 0;
  }
  double gbar = 0; /* the placed mechanisms' maximal conductances, all of them */
  for (int k = 0; channels && k < MECHANISM_COUNT; k++)
    for (int g = 0; g < channels->mechanism[k].shape.n_currents; g++)
      if (channels->mechanism[k].placement != PLACE_NONE)
        gbar += channels->mechanism[k].gbar[g];
  double lowest = INFINITY, highest = 0;
  for (int i = 0; i < c.n; i++) {
    double base = c.capacitance_nF[i] / dt_ms + c.leak_uS[i];
    if (base > 0)
      lowest = fmin(lowest, base);
    highest = fmax(highest, base + gbar * c.area_um2[i] * 1e-2 + 2 * c.axial_sum_uS[i]);
  }
  cable_coefficients_free(&c);
  return lowest > 0 && isfinite(lowest) ? highest / lowest : INFINITY;
}
