/* Parameter sweeps (--params): a batch whose neurons each hold their own value of some of the
 * membrane, channel and stimulus parameters. Only the parameters the sweep names are per
 * neuron; the others stay the batch's (struct step_model), so a kernel reads one small column
 * per swept parameter and neuron, and nothing more.
 *
 * The values a kernel reads per neuron: the channel densities and reversals and the stimulus
 * as they are, and the membrane as factors of the batch's coefficients (the per-morphology
 * tables hold the matrix for the batch's cm, ra and gl):
 *   capacitance factor cm_k / cm, axial factor ra / ra_k, leak factor gl_k / gl_ref, el_k.
 * A factor of exactly 1 multiplies exactly, so a neuron whose row repeats the batch's values
 * computes the bits of a run without --params; another differs from a run with its values on
 * the command line by the rounding of the factor (a few ulps, which --verify covers). Written
 * once for the CPU and CUDA kernels and the sequential reference. */
#ifndef HINES_NEURON_PARAMETERS_H
#define HINES_NEURON_PARAMETERS_H

#include <stddef.h>

#include "host_device.h"
#include "step_model.h"

/* The parameters a sweep may give: the membrane's, the stimulus's, then every mechanism's
 * maximal conductances and reversals, MECHANISM_PARAMETERS slots per table entry (gbar of
 * current c at slot c, its reversal at MECHANISM_MAX_CURRENTS + c; a slot the mechanism has no
 * current or no settable reversal for is no column). hh's keep the names they always had. */
#define MECHANISM_PARAMETERS (2 * MECHANISM_MAX_CURRENTS)
enum neuron_parameter {
  NEURON_CM,         /* uF/cm^2 */
  NEURON_RA,         /* Ohm cm */
  NEURON_GL,         /* S/cm^2, the passive leak */
  NEURON_EL,         /* mV, the passive leak's reversal */
  NEURON_STIM_AMP,   /* nA: replaces the batch's amplitude and its spread */
  NEURON_STIM_START, /* ms */
  NEURON_STIM_STOP,  /* ms */
  NEURON_CHANNEL_FIRST,
  NEURON_PARAMETER_COUNT = NEURON_CHANNEL_FIRST + MECHANISM_COUNT * MECHANISM_PARAMETERS,
  /* hh's, by their old names */
  NEURON_GNABAR = NEURON_CHANNEL_FIRST + MECHANISM_HH * MECHANISM_PARAMETERS + HH_CURRENT_NA,
  NEURON_GKBAR = NEURON_CHANNEL_FIRST + MECHANISM_HH * MECHANISM_PARAMETERS + HH_CURRENT_K,
  NEURON_GL_HH = NEURON_CHANNEL_FIRST + MECHANISM_HH * MECHANISM_PARAMETERS + HH_CURRENT_LEAK,
  NEURON_EL_HH = NEURON_CHANNEL_FIRST + MECHANISM_HH * MECHANISM_PARAMETERS +
                 MECHANISM_MAX_CURRENTS + HH_CURRENT_LEAK,
};

static inline int neuron_parameter_is_membrane(int p) {
  return p <= NEURON_EL;
}
static inline int neuron_parameter_is_channel(int p) {
  return p >= NEURON_CHANNEL_FIRST && p < NEURON_PARAMETER_COUNT;
}
/* Channel parameter p's mechanism (table index), and its slot there. */
static inline HINES_HOST_DEVICE int neuron_parameter_mechanism(int p) {
  return (p - NEURON_CHANNEL_FIRST) / MECHANISM_PARAMETERS;
}
static inline HINES_HOST_DEVICE int neuron_parameter_slot(int p) {
  return (p - NEURON_CHANNEL_FIRST) % MECHANISM_PARAMETERS;
}
/* The parameter of `mechanism`'s maximal conductance of current c (reversal 0) or its
 * reversal (reversal 1). */
static inline HINES_HOST_DEVICE int neuron_channel_parameter(int mechanism, int current,
                                                             int reversal) {
  return NEURON_CHANNEL_FIRST + mechanism * MECHANISM_PARAMETERS +
         (reversal ? MECHANISM_MAX_CURRENTS : 0) + current;
}
/* Where channel parameter p's value goes in a mechanism. */
static inline HINES_HOST_DEVICE double *channel_parameter_in(struct channel_set *channels, int p) {
  struct channel_mechanism *m = &channels->mechanism[neuron_parameter_mechanism(p)];
  const int slot = neuron_parameter_slot(p);
  return slot < MECHANISM_MAX_CURRENTS ? &m->gbar[slot]
                                       : &m->reversal[slot - MECHANISM_MAX_CURRENTS];
}

/* Which parameters the neurons hold each their own and where: a chunk's values are a matrix of
 * `count` columns, column[p] (-1: the batch's value) holding parameter p of every neuron of the
 * chunk, neuron k's at values[column * ld + k] (consecutive neurons, consecutive addresses: one
 * coalesced load per column on a GPU). count 0: no sweep, the kernels' plain path. */
struct neuron_columns {
  int count;
  int membrane; /* some of cm, ra, gl, el are per neuron: the rows are assembled from factors */
  signed char column[NEURON_PARAMETER_COUNT];
  double el_mV; /* the batch's passive leak reversal (the default of a neuron's own) */
};

/* A chunk's sweep as a kernel sees it: the columns and the chunk's values (neuron k's value of
 * parameter p at values[columns.column[p] * ld + k]). */
struct neuron_sweep {
  struct neuron_columns columns;
  const double *values;
  size_t ld;
};

/* Factors of the batch's membrane coefficients for one neuron (see the top of the file). */
struct membrane_scales {
  double capacitance, axial, leak, el_mV;
};

/* One neuron's parameters: the batch's, where the sweep gives none. */
struct neuron_own {
  struct channel_set channels;
  struct stimulus stimulus;
  struct membrane_scales membrane;
};

/* Which channel numbers neuron_own_load reads: every mechanism's, or hh's classic four only
 * (neuron_columns_classic_hh says when that is all a sweep has). */
enum neuron_own_channels { NEURON_OWN_ANY, NEURON_OWN_CLASSIC_HH };

/* Whether a sweep's channel columns are among hh's gnabar, gkbar, gl_hh and el_hh. */
static inline int neuron_columns_classic_hh(const struct neuron_columns *columns) {
  for (int p = NEURON_CHANNEL_FIRST; p < NEURON_PARAMETER_COUNT; p++)
    if (columns->column[p] >= 0 && p != NEURON_GNABAR && p != NEURON_GKBAR && p != NEURON_GL_HH &&
        p != NEURON_EL_HH)
      return 0;
  return 1;
}

static inline HINES_HOST_DEVICE void neuron_own_load(const struct neuron_columns *columns,
                                                     const double *values, size_t ld,
                                                     const struct channel_set *channels,
                                                     const struct stimulus *stimulus,
                                                     struct neuron_own *own, int what) {
  own->channels = *channels;
  own->stimulus = *stimulus;
  own->membrane.capacitance = 1.0;
  own->membrane.axial = 1.0;
  own->membrane.leak = 1.0;
  own->membrane.el_mV = columns->el_mV;
  const signed char *c = columns->column;
  if (c[NEURON_CM] >= 0)
    own->membrane.capacitance = HINES_LDG(values + (size_t)c[NEURON_CM] * ld);
  if (c[NEURON_RA] >= 0)
    own->membrane.axial = HINES_LDG(values + (size_t)c[NEURON_RA] * ld);
  if (c[NEURON_GL] >= 0)
    own->membrane.leak = HINES_LDG(values + (size_t)c[NEURON_GL] * ld);
  if (c[NEURON_EL] >= 0)
    own->membrane.el_mV = HINES_LDG(values + (size_t)c[NEURON_EL] * ld);
  /* The conductances and reversals the sweep gives: every mechanism's (NEURON_OWN_ANY), or
   * only hh's gnabar, gkbar, gl and el (NEURON_OWN_CLASSIC_HH, a constant where the caller
   * knows the sweep has no other channel column: a GPU thread then holds no other numbers, and
   * hh's reversals of Na and K stay operands from the kernel's arguments). The loops unroll:
   * each slot is a constant index and one test of a column the whole batch shares. */
  if (what == NEURON_OWN_CLASSIC_HH) {
    struct channel_mechanism *hh = &own->channels.mechanism[MECHANISM_HH];
    if (c[NEURON_GNABAR] >= 0)
      hh->gbar[HH_CURRENT_NA] = HINES_LDG(values + (size_t)c[NEURON_GNABAR] * ld);
    if (c[NEURON_GKBAR] >= 0)
      hh->gbar[HH_CURRENT_K] = HINES_LDG(values + (size_t)c[NEURON_GKBAR] * ld);
    if (c[NEURON_GL_HH] >= 0)
      hh->gbar[HH_CURRENT_LEAK] = HINES_LDG(values + (size_t)c[NEURON_GL_HH] * ld);
    if (c[NEURON_EL_HH] >= 0)
      hh->reversal[HH_CURRENT_LEAK] = HINES_LDG(values + (size_t)c[NEURON_EL_HH] * ld);
  } else {
    MECHANISM_UNROLL
    for (int m = 0; m < MECHANISM_COUNT; m++) {
      struct channel_mechanism *mechanism = &own->channels.mechanism[m];
      MECHANISM_UNROLL
      for (int current = 0; current < MECHANISM_MAX_CURRENTS; current++) {
        const int gbar = c[neuron_channel_parameter(m, current, 0)];
        const int reversal = c[neuron_channel_parameter(m, current, 1)];
        if (gbar >= 0)
          mechanism->gbar[current] = HINES_LDG(values + (size_t)gbar * ld);
        if (reversal >= 0)
          mechanism->reversal[current] = HINES_LDG(values + (size_t)reversal * ld);
      }
    }
  }
  if (c[NEURON_STIM_AMP] >= 0) {
    /* The neuron's own amplitude, as a run of that neuron alone would inject it: the spread
     * that varies the batch's amplitude by position does not apply (x (1 + 0) is exact). */
    own->stimulus.amplitude_nA = HINES_LDG(values + (size_t)c[NEURON_STIM_AMP] * ld);
    own->stimulus.spread = 0.0;
  }
  if (c[NEURON_STIM_START] >= 0)
    own->stimulus.start_ms = HINES_LDG(values + (size_t)c[NEURON_STIM_START] * ld);
  if (c[NEURON_STIM_STOP] >= 0)
    own->stimulus.stop_ms = HINES_LDG(values + (size_t)c[NEURON_STIM_STOP] * ld);
}

/* The membrane's share of row i from the factors: the batch's capacitance, leak and axial sum
 * times the neuron's factors, summed in the order of membrane_constants_of and membrane_row,
 * so that factors of 1 give membrane_row's bits. */
static inline HINES_HOST_DEVICE void membrane_row_scaled(const struct membrane_scales *s,
                                                         double c_over_dt, double leak_uS,
                                                         double axial_sum_uS, double old_voltage,
                                                         double injected, double *diagonal,
                                                         double *rhs) {
  const double cdt = s->capacitance * c_over_dt, leak = s->leak * leak_uS;
  *diagonal = cdt + leak + s->axial * axial_sum_uS;
  *rhs = fma(cdt, old_voltage, leak * s->el_mV) + injected;
}

/* The value a kernel reads for parameter p given `value` in the sweep's file (the factors
 * above); gl_reference: the leak the per-morphology tables hold (the batch's gl, or 1 S/cm^2
 * when that is 0 and the sweep gives gl). */
static inline double neuron_parameter_stored(int p, double value, const struct step_model *model,
                                             double gl_reference) {
  switch (p) {
  case NEURON_CM:
    return value / model->cable.cm_uF_per_cm2;
  case NEURON_RA:
    return model->cable.ra_ohm_cm / value;
  case NEURON_GL:
    return value / gl_reference;
  default:
    return value;
  }
}

/* A neuron's parameters in full, for the sequential reference: the batch's model with the
 * sweep's values (raw, as in the file) put in; values[p] is used where given[p]. */
static inline void neuron_model_of(const struct step_model *batch, const double *values,
                                   const int *given, struct step_model *own) {
  *own = *batch;
  if (given[NEURON_CM])
    own->cable.cm_uF_per_cm2 = values[NEURON_CM];
  if (given[NEURON_RA])
    own->cable.ra_ohm_cm = values[NEURON_RA];
  if (given[NEURON_GL])
    own->cable.gl_S_per_cm2 = values[NEURON_GL];
  if (given[NEURON_EL])
    own->cable.el_mV = values[NEURON_EL];
  for (int p = NEURON_CHANNEL_FIRST; p < NEURON_PARAMETER_COUNT; p++)
    if (given[p])
      *channel_parameter_in(&own->channels, p) = values[p];
  if (given[NEURON_STIM_AMP]) {
    own->stimulus.amplitude_nA = values[NEURON_STIM_AMP];
    own->stimulus.spread = 0.0;
  }
  if (given[NEURON_STIM_START])
    own->stimulus.start_ms = values[NEURON_STIM_START];
  if (given[NEURON_STIM_STOP])
    own->stimulus.stop_ms = values[NEURON_STIM_STOP];
}

#endif
