/* One exp for every kernel, CPU and CUDA alike: the C library's exp (glibc) and CUDA's exp are
 * different approximations, so a channel rate computed through them differs in the last bit
 * between a CPU and a GPU worker, and a neuron's voltage then depends on where its task ran.
 * hines_exp is built from IEEE double operations only (+, -, *, and fma, which C and CUDA both
 * round correctly), so it returns the same bits wherever it runs. It is branch-free, so the CPU
 * kernels vectorise it across neurons (the C library's exp is a call the vectoriser cannot see
 * through).
 *
 * Method: x = k ln2 + r with k = nearest integer to x/ln2 (the 0x1.8p52 shift rounds and leaves
 * k in the low bits) and a Cody-Waite split of ln2 (ln2_hi has 32 significant bits, so k ln2_hi
 * is exact for |k| < 2^21 and x - k ln2_hi is exact by Sterbenz; r_lo keeps what rounding
 * r = x - k ln2 loses); exp(r) = 1 + r + r^2 q(r) for |r| <= 0.3466 with q of degree 10
 * (Chebyshev interpolation of (exp(r) - 1 - r) / r^2, mpmath at 60 digits, coefficients rounded
 * to double: tests/hines_exp_fit.py; approximation error 0.003 x 2^-53), 1 + r summed exactly
 * (Fast2Sum) so that one rounding happens at the result's scale; the result is scaled by 2^k as
 * 2^k1 * 2^k2 with k1 = floor(k/2), k2 = k - k1 built in the exponent bits, exact for every
 * normal result and rounded once for a subnormal one. Every multiply-add is an explicit fma and
 * the products that are not are exact, so compiler contraction could not change the result
 * either (the kernels are built without it anyway: CMakeLists.txt). On a CPU without FMA, fma()
 * is the C library's (correctly rounded, same bits, slow).
 *
 * Accuracy (tests/test_hines_math.c against long double expl, seeds vary): 0.65 ulp at most over
 * [-30, 30] and over every normal result, 0.75 ulp of the smallest subnormal for subnormal
 * results (glibc's exp: 0.51 ulp); exp(0) = 1 exactly; +inf above ln(DBL_MAX), 0 below
 * ln(2^-1075), NaN stays NaN. Cost on the AVX-512 test machine: 4.4 ns a call scalar (glibc exp
 * 3.2 ns), 0.7 ns vectorised (glibc's exp does not vectorise). */
#ifndef HINES_MATH_H
#define HINES_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "host_device.h"

static inline HINES_HOST_DEVICE uint64_t hines_bits_of(double x) {
#ifdef __CUDA_ARCH__
  return (uint64_t)__double_as_longlong(x);
#else
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  return bits;
#endif
}

static inline HINES_HOST_DEVICE double hines_double_of(uint64_t bits) {
#ifdef __CUDA_ARCH__
  return __longlong_as_double((long long)bits);
#else
  double x;
  memcpy(&x, &bits, sizeof x);
  return x;
#endif
}

static inline HINES_HOST_DEVICE double hines_exp(double x) {
  const double shift = 0x1.8p52; /* bits 0x4338000000000000 */
  const double inv_ln2 = 0x1.71547652b82fep0;
  const double ln2_hi = 0x1.62e42fee00000p-1; /* ln2's first 32 significant bits */
  const double ln2_lo = 0x1.a39ef35793c76p-33;
  /* Beyond [-746, 710] the result is 0 or +inf anyway; NaN fails both tests and stays NaN. */
  const double xc = x > 710.0 ? 710.0 : x < -746.0 ? -746.0 : x;
  const double shifted = fma(xc, inv_ln2, shift); /* shift + k, k = round(x / ln2) */
  const double kd = shifted - shift;
  const double hi = fma(-kd, ln2_hi, xc); /* exact, so the same as xc - kd * ln2_hi */
  const double r = fma(-kd, ln2_lo, hi);
  const double r_lo = fma(-kd, ln2_lo, hi - r); /* what r's rounding lost (hi - r is exact) */
  double q = 0x1.1f7301a8efa5cp-29;
  q = fma(q, r, 0x1.af4de6a36d4fcp-26);
  q = fma(q, r, 0x1.27e4db653346ep-22);
  q = fma(q, r, 0x1.71de0232f4775p-19);
  q = fma(q, r, 0x1.a01a01a6d84aap-16);
  q = fma(q, r, 0x1.a01a01abe78f9p-13);
  q = fma(q, r, 0x1.6c16c16c162d5p-10);
  q = fma(q, r, 0x1.11111111100dcp-7);
  q = fma(q, r, 0x1.5555555555556p-5);
  q = fma(q, r, 0x1.5555555555557p-3);
  q = fma(q, r, 0x1.0000000000000p-1);
  /* exp(r + r_lo) = 1 + r + r_lo + r^2 q, in [0.70, 1.42]: 1 + r rounded with its error e
   * (Fast2Sum, exact as |r| < 1), so that only the last addition rounds at the result's scale. */
  const double one_r = 1.0 + r;
  const double e = (1.0 - one_r) + r;
  const double y = one_r + fma(r * r, q, e + r_lo);
  /* k + 2048 from the shifted value's bits (k >= -1077 here, so no wrap), then the two
   * halves' exponent fields: k1 + 1023 = u/2 - 1 and k2 + 1023 = u - u/2 - 1. */
  const uint64_t u = hines_bits_of(shifted) - UINT64_C(0x4338000000000000) + 2048;
  const uint64_t u1 = u >> 1;
  const double scale1 = hines_double_of((u1 - 1) << 52);
  const double scale2 = hines_double_of((u - u1 - 1) << 52);
  return y * scale1 * scale2;
}

#endif
