/* Reader for SWC morphology files (NeuroMorpho.Org: `id type x y z radius parent`).
 * The policy for every problem class (what is rejected, what is repaired with a warning)
 * is documented in morph/README.md. */
#ifndef HINES_SWC_H
#define HINES_SWC_H

#include <stdio.h>

#include "morphology.h"

/* How samples become compartments (morph/README.md). */
enum swc_geometry {
  /* NEURON's reading of the file through Import3d, its sections cut into nseg segments, areas
   * and resistances integrated over truncated cones, junction nodes as NEURON's: the same
   * matrix as NEURON's (the default, the --geometry neuron option). */
  SWC_GEOMETRY_NEURON = 0,
  /* One cylinder per sample (its radius, the distance to its parent) and a sphere for the
   * soma, each child joined through its own half-compartments; the layout of the benchmarks
   * measured before the NEURON geometry (--geometry cylinders). */
  SWC_GEOMETRY_CYLINDERS,
};

struct swc_options {
  enum swc_geometry geometry;
  /* 0: one compartment (NEURON: one segment) per sample. > 0: the --dx option. NEURON
   * geometry: every section gets the odd number of segments of CellBuilder's d_X rule, so that
   * none is longer than this. Cylinders: every branch is resampled into equal compartments of
   * at most this many micrometres, keeping branch points. */
  double max_compartment_um;
  /* NEURON geometry only, > 0: nseg by CellBuilder's d_lambda rule, this fraction of the AC
   * length constant at d_lambda_hz (0: 100 Hz), which depends on ra_ohm_cm and cm_uF_per_cm2
   * (0: cable_defaults). Excludes max_compartment_um. */
  double d_lambda;
  double d_lambda_hz;
  /* NEURON geometry only: every section's nseg (from the rule above) times this; 0 or 1 keeps
   * the rule's count. 3, 9, 27, ... refine nested (import3d.h), the --nseg-factor option. */
  int nseg_factor;
  double ra_ohm_cm, cm_uF_per_cm2;
  /* Where repairs are reported as "FILE:LINE: warning: ..." lines; NULL means stderr. */
  FILE *warnings;
};

/* Loads `path` into a Hines-ordered morphology. On bad input returns HINES_BAD_INPUT with
 * err->message = "FILE:LINE: what is wrong" and leaves *out empty (nothing half-built). */
int swc_load(const char *path, const struct swc_options *options, struct morphology *out,
             struct hines_error *err);

#endif
