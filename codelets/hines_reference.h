/* The papers' Algorithm 1: the sequential Hines solver for one neuron. It is the reference every
 * batched, tasked or GPU solver is checked against. */
#ifndef HINES_REFERENCE_H
#define HINES_REFERENCE_H

/* Solves A x = rhs in place for the Hines matrix with diagonal `diagonal`, A[parent[i]][i] =
 * upper[i] and A[i][parent[i]] = lower[i] (parent[i] < i, parent[0] = -1). On return rhs holds x
 * and diagonal the eliminated pivots. */
void hines_solve_reference(int n, const int *parent, const double *upper, const double *lower,
                           double *diagonal, double *rhs);

/* The same system solved in long double (x86: 64-bit significand, 11 more bits than double), the
 * yardstick the double solvers' accuracy is measured against (tests/test_accuracy.c). The
 * inputs stay double, so what is measured is the solve's own rounding; x receives the solution. */
void hines_solve_reference_extended(int n, const int *parent, const double *upper,
                                    const double *lower, const double *diagonal, const double *rhs,
                                    long double *x, long double *scratch_diagonal);

#endif
