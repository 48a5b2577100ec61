#include "hines_reference.h"

#include <math.h>

void hines_solve_reference(int n, const int *parent, const double *upper, const double *lower,
                           double *diagonal, double *rhs) {
  /* Backward sweep: eliminate each node into its parent, leaves first (children have larger
   * indices than their parent in Hines order). */
  for (int i = n - 1; i > 0; i--) {
    double factor = upper[i] / diagonal[i];
    diagonal[parent[i]] = fma(-factor, lower[i], diagonal[parent[i]]);
    rhs[parent[i]] = fma(-factor, rhs[i], rhs[parent[i]]);
  }
  /* Forward sweep: root first. */
  rhs[0] /= diagonal[0];
  for (int i = 1; i < n; i++)
    rhs[i] = fma(-lower[i], rhs[parent[i]], rhs[i]) / diagonal[i];
}

void hines_solve_reference_extended(int n, const int *parent, const double *upper,
                                    const double *lower, const double *diagonal, const double *rhs,
                                    long double *x, long double *scratch_diagonal) {
  long double *d = scratch_diagonal;
  for (int i = 0; i < n; i++) {
    d[i] = diagonal[i];
    x[i] = rhs[i];
  }
  for (int i = n - 1; i > 0; i--) {
    long double factor = (long double)upper[i] / d[i];
    d[parent[i]] -= factor * lower[i];
    x[parent[i]] -= factor * x[i];
  }
  x[0] /= d[0];
  for (int i = 1; i < n; i++)
    x[i] = (x[i] - lower[i] * x[parent[i]]) / d[i];
}
