/* The sequential Hines solver (Algorithm 1) against a dense Gaussian elimination on fresh random
 * trees, and the cable discretisation against the analytic sealed-end cable. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "cable.h"
#include "hines_reference.h"
#include "morphology.h"
#include "testing.h"

static uint64_t seed_state;

static void hines_matches_dense_solve_on_random_trees(void **state) {
  (void)state;
  const int sizes[] = {1, 2, 3, 5, 17, 64, 150, 300};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    for (int trial = 0; trial < 5; trial++) {
      int n = sizes[s];
      int *parent = malloc(n * sizeof(int));
      double *upper = malloc(n * sizeof(double)), *lower = malloc(n * sizeof(double));
      double *d = malloc(n * sizeof(double)), *r = malloc(n * sizeof(double));
      double *x = malloc(n * sizeof(double));
      testing_random_parents(&seed_state, n, parent);
      testing_random_hines_values(&seed_state, n, parent, upper, lower, d, r);
      testing_dense_solve(n, parent, upper, lower, d, r, x);
      hines_solve_reference(n, parent, upper, lower, d, r);
      double error = testing_relative_error(n, r, x);
      if (error > 1e-12)
        fail_msg("n=%d trial %d: relative error %.3e vs dense solve", n, trial, error);
      free(parent), free(upper), free(lower), free(d), free(r), free(x);
    }
  }
}

/* A dense solve is only a reference if it is itself right: check A x = r by multiplication. */
static void dense_reference_satisfies_the_system(void **state) {
  (void)state;
  int n = 40;
  int parent[40];
  double upper[40], lower[40], d[40], r[40], x[40];
  testing_random_parents(&seed_state, n, parent);
  testing_random_hines_values(&seed_state, n, parent, upper, lower, d, r);
  testing_dense_solve(n, parent, upper, lower, d, r, x);
  double ax[40];
  for (int i = 0; i < n; i++)
    ax[i] = d[i] * x[i];
  for (int i = 1; i < n; i++) {
    ax[parent[i]] += upper[i] * x[i];
    ax[i] += lower[i] * x[parent[i]];
  }
  assert_true(testing_relative_error(n, ax, r) < 1e-13);
}

/* Steady state of a sealed-end cable of length L with current I injected at x = 0:
 * V(x) - EL = I r_a lambda cosh((L - x)/lambda) / sinh(L/lambda). Returns the largest error at
 * the compartment centres relative to the largest deflection. */
static double sealed_cable_error(int n_compartments) {
  const double length_um = 1000.0, radius_um = 1.0, current_nA = 0.05;
  struct cable_parameters p = {
      .cm_uF_per_cm2 = 1, .ra_ohm_cm = 100, .gl_S_per_cm2 = 1e-4, .el_mV = -65};
  int *parent = malloc(n_compartments * sizeof(int));
  struct compartment_geometry *g = malloc(n_compartments * sizeof *g);
  double dx = length_um / n_compartments;
  for (int i = 0; i < n_compartments; i++) {
    parent[i] = i - 1;
    g[i] = (struct compartment_geometry){.length_um = dx, .radius_um = radius_um, .swc_type = 3};
  }
  struct morphology m;
  struct hines_error err;
  assert_int_equal(morphology_from_tree("cable", n_compartments, parent, g, &m, &err), HINES_OK);
  struct cable_coefficients c;
  assert_int_equal(cable_coefficients_build(&m, &p, &c, &err), HINES_OK);
  double *d = malloc(n_compartments * sizeof(double)), *v = malloc(n_compartments * sizeof(double));
  for (int i = 0; i < n_compartments; i++) { /* steady state: no capacitive term */
    d[i] = c.leak_uS[i] + c.axial_sum_uS[i];
    v[i] = c.leak_uS[i] * p.el_mV + (i == 0 ? current_nA : 0);
  }
  hines_solve_reference(n_compartments, m.parent, c.off_diagonal, c.off_diagonal, d, v);

  double a_cm = radius_um * 1e-4, l_cm = length_um * 1e-4;
  double rm = 1.0 / p.gl_S_per_cm2;                      /* Ohm cm^2 */
  double lambda = sqrt(a_cm * rm / (2.0 * p.ra_ohm_cm)); /* cm */
  double ra_per_cm = p.ra_ohm_cm / (M_PI * a_cm * a_cm); /* Ohm / cm */
  double worst = 0, scale = 0;
  for (int i = 0; i < n_compartments; i++) {
    double x = (i + 0.5) * dx * 1e-4;
    double exact = current_nA * 1e-9 * ra_per_cm * lambda * cosh((l_cm - x) / lambda) /
                   sinh(l_cm / lambda) * 1e3; /* mV */
    worst = fmax(worst, fabs(v[i] - p.el_mV - exact));
    scale = fmax(scale, fabs(exact));
  }
  cable_coefficients_free(&c);
  morphology_free(&m);
  free(parent), free(g), free(d), free(v);
  return worst / scale;
}

static void sealed_cable_reaches_analytic_steady_state_with_second_order(void **state) {
  (void)state;
  double coarse = sealed_cable_error(50), fine = sealed_cable_error(100),
         finer = sealed_cable_error(200);
  print_message("sealed cable relative error: dx=20um %.3e, 10um %.3e, 5um %.3e\n", coarse, fine,
                finer);
  assert_true(coarse < 1e-3);
  /* Second order: halving dx divides the error by about 4. */
  assert_true(coarse / fine > 3.5 && coarse / fine < 4.5);
  assert_true(fine / finer > 3.5 && fine / finer < 4.5);
}

int main(void) {
  seed_state = testing_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hines_matches_dense_solve_on_random_trees),
      cmocka_unit_test(dense_reference_satisfies_the_system),
      cmocka_unit_test(sealed_cable_reaches_analytic_steady_state_with_second_order),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
