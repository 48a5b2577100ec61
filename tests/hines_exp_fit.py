#!/usr/bin/env python3
"""The coefficients of hines_exp's polynomial (codelets/hines_math.h): exp(r) = 1 + r + r^2 q(r)
on |r| <= 0.3466 (just over ln2/2), q of degree 10 interpolating (exp(r) - 1 - r) / r^2 at the
Chebyshev nodes, in mpmath at 60 digits, each coefficient rounded to the nearest double. Prints
the coefficients (highest degree first, as the Horner loop uses them) and the approximation
error of the rounded polynomial, in units of 2^-53 relative. Needs python3-mpmath."""
import mpmath as mp

mp.mp.dps = 60
A = mp.mpf("0.3466")
DEGREE = 10


def q(r):
    if abs(r) < mp.mpf(10) ** -20:
        return mp.mpf(1) / 2 + r / 6 + r * r / 24
    return (mp.exp(r) - 1 - r) / r**2


n = DEGREE + 1
nodes = [A * mp.cos(mp.pi * (2 * j + 1) / (2 * n)) for j in range(n)]
coefficients = mp.lu_solve(mp.matrix([[x**i for i in range(n)] for x in nodes]),
                           mp.matrix([q(x) for x in nodes]))
rounded = [float(c) for c in coefficients]
worst = 0
for j in range(4001):
    r = -A + 2 * A * j / 4000
    p = mp.mpf(0)
    for c in reversed(rounded):
        p = p * r + mp.mpf(c)
    worst = max(worst, abs((1 + r + r * r * p) / mp.exp(r) - 1))
for c in reversed(rounded):
    print(c.hex())
print(f"approximation error {float(worst / mp.mpf(2) ** -53):.4f} x 2^-53 relative")
