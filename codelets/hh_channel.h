/* Hodgkin-Huxley sodium and potassium channels with the classic squid parameters of NEURON's
 * `hh` mechanism (6.3 degC, rates in 1/ms, V in mV). The gates advance with NEURON's cnexp rule
 * (exact for the linear gate equation at fixed V); the channel currents enter the voltage step
 * linearised, conductance on the diagonal and g*E on the right-hand side, which keeps the
 * implicit step stable. Shared by the CPU and CUDA kernels and the reference time loop. */
#ifndef HINES_HH_CHANNEL_H
#define HINES_HH_CHANNEL_H

#include <math.h>

#include "hines_math.h"
#include "host_device.h"

enum hh_placement { HH_NONE, HH_SOMA, HH_ALL };

struct hh_parameters {
  int placement;            /* enum hh_placement */
  double gnabar, gkbar, gl; /* S/cm^2 */
  double ena, ek, el;       /* mV */
};

#define HH_DEFAULTS                                                                                \
  { HH_NONE, 0.12, 0.036, 0.0003, 50.0, -77.0, -54.3 }

/* x / (exp(x/y) - 1) without the 0/0 at x = 0. */
static inline HINES_HOST_DEVICE double hh_vtrap(double x, double y) {
  return fabs(x / y) < 1e-6 ? y * (1.0 - x / y / 2.0) : x / (hines_exp(x / y) - 1.0);
}

static inline HINES_HOST_DEVICE double hh_relax(double gate, double alpha, double beta, double dt) {
  double rate = alpha + beta;
  double steady = alpha / rate;
  return fma(gate - steady, hines_exp(-dt * rate), steady);
}

/* Gate values at rest for voltage v. */
static inline HINES_HOST_DEVICE void hh_rest(double v, double *m, double *h, double *n) {
  double am = 0.1 * hh_vtrap(-(v + 40.0), 10.0), bm = 4.0 * hines_exp(-(v + 65.0) / 18.0);
  double ah = 0.07 * hines_exp(-(v + 65.0) / 20.0),
         bh = 1.0 / (hines_exp(-(v + 35.0) / 10.0) + 1.0);
  double an = 0.01 * hh_vtrap(-(v + 55.0), 10.0), bn = 0.125 * hines_exp(-(v + 65.0) / 80.0);
  *m = am / (am + bm);
  *h = ah / (ah + bh);
  *n = an / (an + bn);
}

/* Advances the gates by dt at voltage v and returns, for a compartment whose membrane area
 * times 1e-2 is `scale` (S/cm^2 -> uS), the conductance to add to the diagonal and the current
 * g*E to add to the rhs. */
static inline HINES_HOST_DEVICE void hh_step(const struct hh_parameters *p, double v, double dt,
                                             double scale, double *m, double *h, double *n,
                                             double *conductance, double *driven_current) {
  double am = 0.1 * hh_vtrap(-(v + 40.0), 10.0), bm = 4.0 * hines_exp(-(v + 65.0) / 18.0);
  double ah = 0.07 * hines_exp(-(v + 65.0) / 20.0),
         bh = 1.0 / (hines_exp(-(v + 35.0) / 10.0) + 1.0);
  double an = 0.01 * hh_vtrap(-(v + 55.0), 10.0), bn = 0.125 * hines_exp(-(v + 65.0) / 80.0);
  *m = hh_relax(*m, am, bm, dt);
  *h = hh_relax(*h, ah, bh, dt);
  *n = hh_relax(*n, an, bn, dt);
  double m3 = *m * *m * *m, n2 = *n * *n;
  double gna = p->gnabar * m3 * *h * scale, gk = p->gkbar * n2 * n2 * scale, gl = p->gl * scale;
  *conductance = gna + gk + gl;
  *driven_current = fma(gna, p->ena, fma(gk, p->ek, gl * p->el));
}

static inline HINES_HOST_DEVICE int hh_applies(const struct hh_parameters *p, int compartment) {
  return p->placement == HH_ALL || (p->placement == HH_SOMA && compartment == 0);
}

#endif
