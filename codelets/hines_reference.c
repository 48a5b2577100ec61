#include "hines_reference.h"

void hines_solve_reference(int n, const int *parent, const double *upper, const double *lower,
                           double *diagonal, double *rhs) {
  /* Backward sweep: eliminate each node into its parent, leaves first (children have larger
   * indices than their parent in Hines order). */
  for (int i = n - 1; i > 0; i--) {
    double factor = upper[i] / diagonal[i];
    diagonal[parent[i]] -= factor * lower[i];
    rhs[parent[i]] -= factor * rhs[i];
  }
  /* Forward sweep: root first. */
  rhs[0] /= diagonal[0];
  for (int i = 1; i < n; i++)
    rhs[i] = (rhs[i] - lower[i] * rhs[parent[i]]) / diagonal[i];
}
