#include "reference_simulation.h"

#include <stdlib.h>

#include "hines_reference.h"

int reference_simulate(const struct morphology *m, const struct cable_parameters *cable,
                       const struct hh_parameters *hh, double dt_ms, int steps, double t0_ms,
                       const struct stimulus *stim, int global_neuron, double *v_mV,
                       struct hines_error *err) {
  return reference_simulate_rates(m, cable, hh, HH_RATES_EXACT, dt_ms, steps, t0_ms, stim,
                                  global_neuron, v_mV, err);
}

int reference_simulate_rates(const struct morphology *m, const struct cable_parameters *cable,
                             const struct hh_parameters *hh, int hh_rates, double dt_ms, int steps,
                             double t0_ms, const struct stimulus *stim, int global_neuron,
                             double *v_mV, struct hines_error *err) {
  struct cable_coefficients c;
  int status = cable_coefficients_build(m, cable, &c, err);
  if (status)
    return status;
  const int n = m->n_compartments;
  const int with_hh = hh && hh->placement != HH_NONE;
  double *diagonal = malloc((size_t)n * sizeof(double));
  double *gates = malloc(3 * (size_t)n * sizeof(double)); /* m | h | n */
  double *rate_table =
      with_hh && hh_rates == HH_RATES_TABLE ? malloc(HH_RATE_TABLE_SIZE * sizeof(double)) : NULL;
  if (!diagonal || !gates || (with_hh && hh_rates == HH_RATES_TABLE && !rate_table)) {
    free(diagonal), free(gates), free(rate_table);
    cable_coefficients_free(&c);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  if (rate_table)
    hh_rate_table_fill(dt_ms, rate_table);
  for (int i = 0; with_hh && i < n; i++)
    hh_rest(v_mV[i], &gates[i], &gates[n + i], &gates[2 * n + i]);
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
      if (with_hh && hh_applies(hh, i))
        membrane_row_channels(hh, rate_table, old_voltage, dt_ms, k.hh_scale, &gates[i],
                              &gates[n + i], &gates[2 * n + i], &diagonal[i], &v_mV[i]);
    }
    hines_solve_reference(n, m->parent, c.off_diagonal, c.off_diagonal, diagonal, v_mV);
  }
  free(diagonal), free(gates), free(rate_table);
  cable_coefficients_free(&c);
  return HINES_OK;
}
