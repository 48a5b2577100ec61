/* The per-morphology tables of the mono-morphology kernels (format in hines_mono_kernels.h). */
#include <stdlib.h>
#include <string.h>

#include "hines_mono_kernels.h"

/* parent[n] | child_first[n+1] | child[...]: the children of every node, for the gather form of
 * the backward sweep. */
int *mono_topology_build(int n, const int *parent) {
  int *topology = calloc(topology_size(n), sizeof(int));
  if (!topology)
    return NULL;
  int *child_first = topology + n, *child = topology + 2 * n + 1;
  memcpy(topology, parent, (size_t)n * sizeof(int));
  for (int i = 1; i < n; i++)
    child_first[parent[i] + 1]++;
  for (int i = 0; i < n; i++)
    child_first[i + 1] += child_first[i];
  int *fill = calloc((size_t)n, sizeof(int));
  if (!fill) {
    free(topology);
    return NULL;
  }
  for (int i = 1; i < n; i++)
    child[child_first[parent[i]] + fill[parent[i]]++] = i;
  free(fill);
  return topology;
}

int mono_coefficients_fill(const struct morphology *m, const struct cable_parameters *cable,
                           double dt_ms, double *coefficients, struct hines_error *err) {
  struct cable_coefficients c;
  int status = cable_coefficients_build(m, cable, &c, err);
  if (status)
    return status;
  const int n = m->n_compartments;
  for (int i = 0; i < n; i++) {
    const struct membrane_constants k = membrane_constants_of(&c, i, cable, dt_ms);
    coefficients[COEF_UPPER * n + i] = c.off_diagonal[i];
    coefficients[COEF_LOWER * n + i] = c.off_diagonal[i];
    coefficients[COEF_C_OVER_DT * n + i] = k.c_over_dt;
    coefficients[COEF_DIAGONAL_BASE * n + i] = k.diagonal_base;
    coefficients[COEF_LEAK_CURRENT * n + i] = k.leak_current;
    coefficients[COEF_HH_SCALE * n + i] = k.hh_scale;
    coefficients[COEF_LEAK_US * n + i] = c.leak_uS[i];
    coefficients[COEF_AXIAL_SUM * n + i] = c.axial_sum_uS[i];
  }
  cable_coefficients_free(&c);
  return HINES_OK;
}
