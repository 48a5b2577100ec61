#include "cable.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct cable_parameters cable_defaults = {
    .cm_uF_per_cm2 = 1.0, .ra_ohm_cm = 100.0, .gl_S_per_cm2 = 1e-4, .el_mV = -65.0};

static double compartment_area_um2(const struct compartment_geometry *g) {
  if (g->is_integrated)
    return g->area_um2;
  if (g->is_sphere)
    return 4.0 * M_PI * g->radius_um * g->radius_um;
  return 2.0 * M_PI * g->radius_um * g->length_um;
}

/* Axial resistance (MOhm) of half a compartment, from its centre to its end. */
static double half_resistance_MOhm(const struct compartment_geometry *g, double ra_ohm_cm) {
  if (g->is_sphere)
    return 0.0;
  return ra_ohm_cm * (0.5 * g->length_um) / (M_PI * g->radius_um * g->radius_um) * 1e-2;
}

void cable_coefficients_free(struct cable_coefficients *c) {
  if (!c)
    return;
  free(c->area_um2);
  free(c->capacitance_nF);
  free(c->leak_uS);
  free(c->axial_uS);
  free(c->off_diagonal);
  free(c->axial_sum_uS);
  memset(c, 0, sizeof *c);
}

int cable_coefficients_build(const struct morphology *m, const struct cable_parameters *p,
                             struct cable_coefficients *out, struct hines_error *err) {
  int n = m->n_compartments;
  memset(out, 0, sizeof *out);
  if (!(p->cm_uF_per_cm2 > 0) || !(p->ra_ohm_cm > 0) || !(p->gl_S_per_cm2 >= 0))
    return hines_fail(err, HINES_BAD_INPUT, "cable parameters must be positive");
  out->n = n;
  size_t bytes = (size_t)n * sizeof(double);
  out->area_um2 = malloc(bytes);
  out->capacitance_nF = malloc(bytes);
  out->leak_uS = malloc(bytes);
  out->axial_uS = malloc(bytes);
  out->off_diagonal = malloc(bytes);
  out->axial_sum_uS = calloc((size_t)n, sizeof(double));
  if (!out->area_um2 || !out->capacitance_nF || !out->leak_uS || !out->axial_uS ||
      !out->off_diagonal || !out->axial_sum_uS) {
    cable_coefficients_free(out);
    return hines_fail(err, HINES_FAILURE, "%s: out of memory", m->name);
  }
  for (int i = 0; i < n; i++) {
    const struct compartment_geometry *g = &m->geometry[i];
    if (g->is_integrated != m->geometry[0].is_integrated) {
      cable_coefficients_free(out);
      return hines_fail(err, HINES_FAILURE,
                        "%s: compartment %d mixes integrated and cylinder geometry", m->name, i);
    }
    if (!g->is_integrated && (!(g->radius_um > 0) || (!g->is_sphere && !(g->length_um > 0)))) {
      cable_coefficients_free(out);
      return hines_fail(err, HINES_BAD_INPUT,
                        "%s: compartment %d has zero size (radius %g um, length %g um)", m->name, i,
                        g->radius_um, g->length_um);
    }
    out->area_um2[i] = compartment_area_um2(g);
    /* An integrated junction node has no membrane (area 0): its row is the algebraic current
     * balance of the cables that meet there, as at NEURON's zero-area nodes. */
    int zero_area_allowed = g->is_integrated && n > 1;
    if (!isfinite(out->area_um2[i]) || out->area_um2[i] < 0 ||
        (!zero_area_allowed && !(out->area_um2[i] > 0))) {
      cable_coefficients_free(out);
      return hines_fail(err, HINES_BAD_INPUT,
                        "%s: compartment %d has unusable geometry (length %g um, radius %g um)",
                        m->name, i, g->length_um, g->radius_um);
    }
    out->capacitance_nF[i] = p->cm_uF_per_cm2 * out->area_um2[i] * 1e-5;
    out->leak_uS[i] = p->gl_S_per_cm2 * out->area_um2[i] * 1e-2;
    out->axial_uS[i] = 0.0;
    out->off_diagonal[i] = 0.0;
  }
  for (int i = 1; i < n; i++) {
    int parent = m->parent[i];
    double r = m->geometry[i].is_integrated
                   ? p->ra_ohm_cm * m->geometry[i].axial_path_per_um * 1e-2
                   : half_resistance_MOhm(&m->geometry[i], p->ra_ohm_cm) +
                         half_resistance_MOhm(&m->geometry[parent], p->ra_ohm_cm);
    out->axial_uS[i] = 1.0 / r;
    /* Absurd geometry (1e308 um apart, 1e-320 um radius) would put inf or 0 in the matrix. */
    if (!isfinite(r) || !(out->axial_uS[i] > 0) || !isfinite(out->axial_uS[i]) ||
        !isfinite(out->area_um2[i]) || out->area_um2[i] < 0) {
      cable_coefficients_free(out);
      return hines_fail(err, HINES_BAD_INPUT,
                        "%s: compartment %d has unusable geometry (length %g um, radius %g um)",
                        m->name, i, m->geometry[i].length_um, m->geometry[i].radius_um);
    }
    out->off_diagonal[i] = -out->axial_uS[i];
    out->axial_sum_uS[i] += out->axial_uS[i];
    out->axial_sum_uS[parent] += out->axial_uS[i];
  }
  return HINES_OK;
}
