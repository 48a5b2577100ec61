#include "reference_simulation.h"

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
