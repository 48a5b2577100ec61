#include "reference_simulation.h"

#include <stdlib.h>

#include "hines_reference.h"

int reference_simulate(const struct morphology *m, const struct cable_parameters *cable,
                       const struct hh_parameters *hh, double dt_ms, int steps, double t0_ms,
                       const struct stimulus *stim, int global_neuron, double *v_mV,
                       struct hines_error *err) {
  struct cable_coefficients c;
  int status = cable_coefficients_build(m, cable, &c, err);
  if (status)
    return status;
  const int n = m->n_compartments;
  const int with_hh = hh && hh->placement != HH_NONE;
  double *diagonal = malloc((size_t)n * sizeof(double));
  double *gates = malloc(3 * (size_t)n * sizeof(double));  /* m | h | n */
  double *channel = calloc(2 * (size_t)n, sizeof(double)); /* g | g*E */
  if (!diagonal || !gates || !channel) {
    free(diagonal), free(gates), free(channel);
    cable_coefficients_free(&c);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  for (int i = 0; with_hh && i < n; i++)
    hh_rest(v_mV[i], &gates[i], &gates[n + i], &gates[2 * n + i]);
  for (int s = 0; s < steps; s++) {
    double t = t0_ms + s * dt_ms;
    double injected = stim ? stimulus_current(stim, global_neuron, t) : 0.0;
    /* Channels advance on the old voltage, before the assembly overwrites it. */
    for (int i = 0; with_hh && i < n; i++)
      if (hh_applies(hh, i))
        hh_step(hh, v_mV[i], dt_ms, c.area_um2[i] * 1e-2, &gates[i], &gates[n + i],
                &gates[2 * n + i], &channel[i], &channel[n + i]);
    /* Row i of the implicit step (cable.h), in the order the batched kernels use; the rhs
     * overwrites v, which the solve turns into the new voltage. */
    for (int i = 0; i < n; i++) {
      double c_over_dt = c.capacitance_nF[i] / dt_ms;
      diagonal[i] = c_over_dt + c.leak_uS[i] + c.axial_sum_uS[i];
      v_mV[i] = c_over_dt * v_mV[i] + c.leak_uS[i] * cable->el_mV +
                (stim && i == stim->compartment ? injected : 0.0);
      if (with_hh && hh_applies(hh, i)) {
        diagonal[i] += channel[i];
        v_mV[i] += channel[n + i];
      }
    }
    hines_solve_reference(n, m->parent, c.off_diagonal, c.off_diagonal, diagonal, v_mV);
  }
  free(diagonal), free(gates), free(channel);
  cable_coefficients_free(&c);
  return HINES_OK;
}
