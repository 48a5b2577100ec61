/* Cable-equation coefficients of a morphology: the Hines matrix of one implicit (backward
 * Euler) voltage step. Units, chosen so no conversion factor appears in the solvers:
 *   voltage mV, time ms, current nA, conductance uS, capacitance nF  (nA = uS * mV = nF * mV/ms).
 * Physical inputs: specific capacitance uF/cm^2, axial resistivity Ohm*cm, leak conductance
 * S/cm^2, leak reversal mV, dt ms; geometry in um.
 *
 * Compartment i (area A_i um^2, length L_i, radius a_i) is joined to its parent p by the two
 * half-cylinders in series, R_ip = Ra*(L_i/2)/(pi a_i^2) + Ra*(L_p/2)/(pi a_p^2) (a soma sphere
 * contributes no resistance of its own), g_ip = 1/R_ip. An integrated compartment (the NEURON
 * SWC geometry) brings A_i and the path integral P_i of dx/(pi r(x)^2) from its node to its
 * parent's, R_ip = Ra*P_i; a junction node there has A_i = 0, so no capacitance or leak, and
 * its row is the algebraic balance of the axial currents, as at NEURON's zero-area nodes.
 * Backward Euler for
 *   C_i dV_i/dt = -gL_i (V_i - EL) + sum_j g_ij (V_j - V_i) + I_i
 * gives the Hines system (the papers' Eq. 2)
 *   d_i V_i' + sum_j off_ij V_j' = rhs_i,   off_ij = -g_ij,
 *   d_i   = C_i/dt + gL_i + sum_j g_ij      (+ channel conductances, per step)
 *   rhs_i = C_i/dt V_i + gL_i EL + I_i       (+ channel currents, per step)
 * Conversions: C[nF] = cm*A*1e-5, gL[uS] = gl*A*1e-2, R[MOhm] = Ra*L/(pi a^2)*1e-2. */
#ifndef HINES_CABLE_H
#define HINES_CABLE_H

#include "morphology.h"

struct cable_parameters {
  double cm_uF_per_cm2; /* specific membrane capacitance */
  double ra_ohm_cm;     /* axial resistivity */
  double gl_S_per_cm2;  /* leak conductance */
  double el_mV;         /* leak reversal potential */
};
/* NEURON's defaults for a passive membrane: cm 1, Ra 35.4, g_pas 1e-3... we use gl 1e-4. */
extern const struct cable_parameters cable_defaults;

/* Per-morphology constants, shared by every neuron of that shape. */
struct cable_coefficients {
  int n;
  double *area_um2;       /* membrane area */
  double *capacitance_nF; /* C_i */
  double *leak_uS;        /* gL_i */
  double *axial_uS;       /* g_{i,parent(i)}, 0 for the root */
  double *off_diagonal;   /* -axial_uS: both upper and lower entry of row/column i */
  double *axial_sum_uS;   /* sum_j g_ij over the parent and children of i */
};

int cable_coefficients_build(const struct morphology *m, const struct cable_parameters *p,
                             struct cable_coefficients *out, struct hines_error *err);
void cable_coefficients_free(struct cable_coefficients *c);

#endif
