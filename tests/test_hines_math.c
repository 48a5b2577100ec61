/* hines_exp (codelets/hines_math.h), the exp every kernel uses on CPU and GPU: its error against
 * long double expl over the Hodgkin-Huxley range and the whole double range, its special values,
 * and the same bits whether the compiler vectorises it or not. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hines_math.h"
#include "testing.h"

static uint64_t seed_state;

/* |got - exp(x)| in units of the last place of the double nearest exp(x) (subnormal results:
 * the smallest subnormal). */
static double ulp_error(double got, double x) {
  const long double want = expl((long double)x);
  int exponent;
  frexpl(want, &exponent); /* want in [2^(exponent-1), 2^exponent) */
  const int ulp_exponent = exponent - 53 < -1074 ? -1074 : exponent - 53;
  return (double)(fabsl((long double)got - want) / ldexpl(1.0L, ulp_exponent));
}

struct accuracy {
  double worst, at;
};

static void measure(struct accuracy *a, double x) {
  double e = ulp_error(hines_exp(x), x);
  if (e > a->worst)
    a->worst = e, a->at = x;
}

/* v in [-200, 200] mV gives the rate functions arguments in about [-30, 30]; the cnexp factor
 * exp(-dt (alpha + beta)) small negative ones. */
static void accurate_to_one_ulp_over_the_channel_range(void **state) {
  (void)state;
  struct accuracy grid = {0, 0}, random = {0, 0}, small = {0, 0};
  const int points = 2000000;
  for (int i = 0; i <= points; i++)
    measure(&grid, -30.0 + 60.0 * i / points);
  for (int i = 0; i < 1000000; i++)
    measure(&random, -30.0 + 60.0 * testing_uniform(&seed_state));
  for (int i = 0; i < 1000000; i++)
    measure(&small, -ldexp(testing_uniform(&seed_state), -testing_below(&seed_state, 40)));
  printf("# hines_exp on [-30, 30]: grid max %.4f ulp at %.17g, random max %.4f ulp at %.17g; "
         "on (-1, 0]: max %.4f ulp at %.17g\n",
         grid.worst, grid.at, random.worst, random.at, small.worst, small.at);
  assert_true(grid.worst <= 1.0);
  assert_true(random.worst <= 1.0);
  assert_true(small.worst <= 1.0);
}

static void accurate_over_the_whole_range(void **state) {
  (void)state;
  struct accuracy normal = {0, 0}, subnormal = {0, 0};
  const double lowest_normal = -708.39641853226410; /* ln(DBL_MIN), rounded up */
  for (int i = 0; i < 2000000; i++) {
    double x = lowest_normal + (709.78 - lowest_normal) * testing_uniform(&seed_state);
    measure(&normal, x);
  }
  for (int i = 0; i < 200000; i++) /* results below DBL_MIN: rounded once, at the end */
    measure(&subnormal, -745.13 + (745.13 + lowest_normal) * testing_uniform(&seed_state));
  printf("# hines_exp on [ln DBL_MIN, 709.78]: max %.4f ulp at %.17g; subnormal results: max "
         "%.4f ulp (of the smallest subnormal) at %.17g\n",
         normal.worst, normal.at, subnormal.worst, subnormal.at);
  assert_true(normal.worst <= 1.0);
  assert_true(subnormal.worst <= 1.0);
}

static void special_values(void **state) {
  (void)state;
  assert_true(hines_exp(0.0) == 1.0);
  assert_true(hines_exp(-0.0) == 1.0);
  assert_true(hines_exp(DBL_TRUE_MIN) == 1.0);
  assert_true(hines_exp(-DBL_TRUE_MIN) == 1.0);
  assert_true(isnan(hines_exp(NAN)));
  assert_true(isnan(hines_exp(-NAN)));
  assert_true(isinf(hines_exp(INFINITY)) && hines_exp(INFINITY) > 0);
  assert_true(hines_exp(-INFINITY) == 0.0);
  assert_true(isinf(hines_exp(1e300)));
  assert_true(hines_exp(-1e300) == 0.0);
  /* Overflow: ln(DBL_MAX) = 709.782712893383973096...; the double just below is finite, the
   * one above overflows. */
  assert_true(isfinite(hines_exp(709.782712893384)));
  assert_true(hines_exp(709.782712893384) > 0x1.fffffffffffp1023);
  assert_true(isinf(hines_exp(nextafter(709.782712893384, INFINITY))));
  /* Underflow: exp(x) rounds to the smallest subnormal down to ln(2^-1075) = -745.1332191019411
   * and to 0 below it. */
  assert_true(hines_exp(-745.1332191019411) == DBL_TRUE_MIN);
  assert_true(hines_exp(nextafter(-745.1332191019411, -INFINITY)) == 0.0);
  assert_true(hines_exp(-746.0) == 0.0);
  assert_true(hines_exp(-740.0) > 0.0 && hines_exp(-740.0) < DBL_MIN);
  /* Exact powers of e at integers within one ulp, and e itself. */
  assert_true(ulp_error(hines_exp(1.0), 1.0) <= 1.0);
  for (int k = -700; k <= 700; k++)
    assert_true(ulp_error(hines_exp(k), k) <= 1.0);
}

/* The CPU kernels vectorise hines_exp across neurons: the vector code must give the bits of the
 * scalar code (the CUDA kernels run the scalar form). */
static double scalar_exp(double x) __attribute__((noinline, optimize("no-tree-vectorize")));
static double scalar_exp(double x) {
  return hines_exp(x);
}

static void vectorised_equals_scalar(void **state) {
  (void)state;
  enum { N = 4099 };
  static double x[N], vectorised[N];
  for (int i = 0; i < N; i++)
    x[i] = i % 7 == 0   ? -745.5 + 1455.5 * testing_uniform(&seed_state)
           : i % 7 == 1 ? (i % 3   ? NAN
                           : i % 2 ? INFINITY
                                   : -INFINITY)
                        : -30.0 + 60.0 * testing_uniform(&seed_state);
#pragma omp simd
  for (int i = 0; i < N; i++)
    vectorised[i] = hines_exp(x[i]);
  for (int i = 0; i < N; i++) {
    double want = scalar_exp(x[i]);
    if (memcmp(&want, &vectorised[i], sizeof want) != 0 && !(isnan(want) && isnan(vectorised[i])))
      fail_msg("x = %.17g: vectorised %a, scalar %a", x[i], vectorised[i], want);
  }
}

int main(void) {
  seed_state = testing_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(accurate_to_one_ulp_over_the_channel_range),
      cmocka_unit_test(accurate_over_the_whole_range),
      cmocka_unit_test(special_values),
      cmocka_unit_test(vectorised_equals_scalar),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
