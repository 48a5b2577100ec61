/* The papers' synthetic morphologies, deterministic for a seed. Geometry is uniform (a soma
 * sphere and 10 um cylinders) so that only the tree shape differs between classes. */
#ifndef HINES_SYNTHETIC_H
#define HINES_SYNTHETIC_H

#include "morphology.h"

/* Table 1 of the papers: exact compartments / branches. */
struct synthetic_class_info {
  const char *name; /* "small-low" ... "big-high" */
  int compartments;
  int branches;
};
extern const struct synthetic_class_info synthetic_classes[6];

/* One of the six classes by name; HINES_BAD_INPUT for an unknown name. */
int synthetic_class(const char *name, unsigned seed, struct morphology *out,
                    struct hines_error *err);
/* A tree of `compartments` of which about `branch_percent` % are branch starts (Fig. 6). */
int synthetic_fig6(int compartments, double branch_percent, unsigned seed, struct morphology *out,
                   struct hines_error *err);
/* Fig. 14: a 512-compartment binary tree with `levels` (2..4) branch levels, each level holding
 * half of what remains (the first level half of the nodes). */
int synthetic_fig14(int levels, struct morphology *out, struct hines_error *err);
/* Exactly `compartments` compartments and `branches` branches (branches odd or even, >= 1). */
int synthetic_tree(const char *name, int compartments, int branches, unsigned seed,
                   struct morphology *out, struct hines_error *err);
/* A comb: an axis of `teeth` compartments with a one-compartment tooth on each but the last.
 * Every axis compartment is a branch of its own (a branch point), so the tree has `teeth` branch
 * levels of one compartment each: a level solver's step is then its cost per level alone. */
int synthetic_comb(int teeth, struct morphology *out, struct hines_error *err);
/* A random tree with a size drawn in [min_compartments, max_compartments]. */
int synthetic_random(int min_compartments, int max_compartments, unsigned seed,
                     struct morphology *out, struct hines_error *err);

#endif
