/* Reader for SWC morphology files (NeuroMorpho.Org: `id type x y z radius parent`).
 * The policy for every problem class (what is rejected, what is repaired with a warning)
 * is documented in morph/README.md. */
#ifndef HINES_SWC_H
#define HINES_SWC_H

#include <stdio.h>

#include "morphology.h"

struct swc_options {
  /* 0: one compartment per SWC sample. > 0: resample every branch into compartments of at
   * most this many micrometres, keeping branch points (the --dx option). */
  double max_compartment_um;
  /* Where repairs are reported as "FILE:LINE: warning: ..." lines; NULL means stderr. */
  FILE *warnings;
};

/* Loads `path` into a Hines-ordered morphology. On bad input returns HINES_BAD_INPUT with
 * err->message = "FILE:LINE: what is wrong" and leaves *out empty (nothing half-built). */
int swc_load(const char *path, const struct swc_options *options, struct morphology *out,
             struct hines_error *err);

#endif
