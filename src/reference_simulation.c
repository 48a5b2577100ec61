#include "reference_simulation.h"

#include <stdlib.h>

#include "hines_reference.h"

int reference_simulate(const struct morphology *m, const struct cable_parameters *cable,
                       double dt_ms, int steps, double t0_ms, const struct stimulus *stim,
                       int global_neuron, double *v_mV, struct hines_error *err) {
  struct cable_coefficients c;
  int status = cable_coefficients_build(m, cable, &c, err);
  if (status)
    return status;
  int n = m->n_compartments;
  double *diagonal = malloc((size_t)n * sizeof(double));
  double *injected = calloc((size_t)n, sizeof(double));
  if (!diagonal || !injected) {
    free(diagonal);
    free(injected);
    cable_coefficients_free(&c);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  for (int s = 0; s < steps; s++) {
    double t = t0_ms + s * dt_ms;
    if (stim && stim->compartment >= 0 && stim->compartment < n)
      injected[stim->compartment] = stimulus_current(stim, global_neuron, t);
    /* The new rhs overwrites v, which the solve turns into the new voltage. */
    cable_assemble(&c, cable, dt_ms, v_mV, injected, diagonal, v_mV);
    hines_solve_reference(n, m->parent, c.off_diagonal, c.off_diagonal, diagonal, v_mV);
  }
  free(diagonal);
  free(injected);
  cable_coefficients_free(&c);
  return HINES_OK;
}
