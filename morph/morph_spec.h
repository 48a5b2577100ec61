/* The --morph SPEC grammar: a path to an .swc file, `synthetic:CLASS[:SEED]`,
 * `synthetic:fig6:SIZE:PERCENT[:SEED]`, `synthetic:fig14:LEVELS`,
 * `synthetic:random:MIN:MAX[:SEED]`, `synthetic:tree:N:B[:SEED]` or `synthetic:comb:TEETH`
 * (seeds default to 1). */
#ifndef HINES_MORPH_SPEC_H
#define HINES_MORPH_SPEC_H

#include "morphology.h"
#include "swc.h"

int morphology_load_spec(const char *spec, const struct swc_options *options,
                         struct morphology *out, struct hines_error *err);

#endif
