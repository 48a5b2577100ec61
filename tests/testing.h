/* Helpers shared by the test programs: fresh random inputs, a dense reference solve, error
 * norms. Tests are cmocka programs; ctest runs them with TAP output. */
#ifndef HINES_TESTING_H
#define HINES_TESTING_H

#include <stdint.h>

/* Seeded from the clock unless HINES_TEST_SEED is set; the seed is printed so a failure can be
 * replayed. */
uint64_t testing_seed(void);
double testing_uniform(uint64_t *state);   /* in [0, 1) */
int testing_below(uint64_t *state, int n); /* in [0, n) */

/* parent[0] = -1, parent[i] uniform in [0, i). */
void testing_random_parents(uint64_t *state, int n, int *parent);
/* Diagonally dominant Hines values: off-diagonals in [-1, -0.1], diagonal = 1 + |row sum|. */
void testing_random_hines_values(uint64_t *state, int n, const int *parent, double *upper,
                                 double *lower, double *diagonal, double *rhs);

/* Gaussian elimination with partial pivoting on the dense matrix of a Hines system. */
void testing_dense_solve(int n, const int *parent, const double *upper, const double *lower,
                         const double *diagonal, const double *rhs, double *x);

/* max_i |a_i - b_i| / max(max_i |b_i|, tiny) */
double testing_relative_error(int n, const double *a, const double *b);

/* The repository's folder `relative` (e.g. "morph/data"): under $HINES_SOURCE_DIR (ctest sets
 * it), else the current folder when it holds morph/data (the repository root), else "..", made
 * absolute. The result is a static buffer, one of four used in turn. */
const char *testing_source_path(const char *relative);

/* cmocka group set-up / tear-down: start StarPU with the environment's workers, stop it. */
int testing_starpu_start(void **state);
int testing_starpu_stop(void **state);
/* Submits a CPU task that holds worker `workerid`'s core for *microseconds (read when it runs:
 * the caller keeps it alive until then); StarPU's status. */
int testing_spin_on_worker(int workerid, const double *microseconds);

/* True under HINES_TEST_SCHEDULER_ONLY=1: ctest's scheduler variants (the same program under each
 * StarPU policy, tests/CMakeLists.txt) set it, and the cases that never submit a task (host
 * arithmetic, layout checks) then skip: they run once in the plain test, and a policy cannot
 * change them. */
int testing_scheduler_only(void);
#define TESTING_SKIP_UNLESS_SCHEDULED()                                                            \
  do {                                                                                             \
    if (testing_scheduler_only())                                                                  \
      skip();                                                                                      \
  } while (0)

/* 77 tells ctest the test was skipped (e.g. no CUDA worker). */
#define TESTING_SKIP 77

#endif
