/* A neuron morphology as the solvers see it: compartments in Hines order (parent[i] < i,
 * root 0), grouped into branches (unbranched runs of compartments) with their depth level.
 * Nothing here knows about StarPU or the command line. */
#ifndef HINES_MORPHOLOGY_H
#define HINES_MORPHOLOGY_H

#include <stddef.h>

#include "hines_status.h"

/* Geometry of one compartment before Hines ordering, in any order the source provides.
 * Two kinds. Shape compartments (is_integrated 0: the synthetic cells, the `cylinders` SWC
 * geometry) are a cylinder or a sphere, and cable.c derives area and axial resistance from
 * length and radius. Integrated compartments (is_integrated 1: the NEURON SWC geometry, see
 * import3d.h) carry the membrane area and the axial path to the parent node, integrated over
 * the truncated cones between SWC samples; length and radius then only describe them. */
struct compartment_geometry {
  double length_um; /* cable length represented by the compartment (0: a junction node) */
  double radius_um; /* cylinder radius (soma: radius of the equivalent sphere); integrated:
                       the mean radius over the length, or the cable's radius at a junction */
  int swc_type;     /* 1 soma, 2 axon, 3 basal, 4 apical, other codes kept as given */
  int is_sphere;    /* soma compartment: area 4 pi r^2 and no axial resistance of its own */
  int is_integrated;
  double area_um2; /* integrated only: membrane area; 0 for a junction node (no membrane) */
  /* Integrated only: the integral of dx / (pi r(x)^2) along the cable from this compartment's
   * node to its parent's node, in 1/um (Ra times it is the axial resistance); 0 at the root. */
  double axial_path_per_um;
};

struct morphology {
  char *name; /* file path or synthetic spec, for messages and summaries */
  int n_compartments;
  int *parent; /* parent[i] < i, parent[0] == -1 */
  struct compartment_geometry *geometry;

  /* Branches: compartments branch_start[b] .. branch_start[b] + branch_size[b] - 1, in order
   * from the junction outwards. A branch's first compartment hangs from junction node
   * branch_junction[b] (the last compartment of the parent branch; -1 for the root branch). */
  int n_branches;
  int *branch_start;
  int *branch_size;
  int *branch_junction;
  int *branch_parent; /* parent branch, -1 for the root branch */
  int *branch_level;  /* root branch 0, its children 1, ... */
  int *branch_of;     /* compartment -> branch */
  int n_levels;       /* 1 + the deepest branch level */
  int max_depth;      /* compartments on the longest root-to-leaf path */
  double total_length_um;
};

/* Builds a morphology from a tree given in any order: source_parent[k] is the index of k's parent
 * (-1 for the single root). Renumbers depth-first (children in source order) so that each
 * branch is contiguous and parent[i] < i, then records branches and levels.
 * Rejects (HINES_BAD_INPUT) a tree with no root, several roots, or a cycle. `name` is copied. */
int morphology_from_tree(const char *name, int n, const int *source_parent,
                         const struct compartment_geometry *geometry, struct morphology *out,
                         struct hines_error *err);

/* The compartment that makes the lowest root: the middle of a longest path, where the longest
 * root-to-leaf path (the Hines sweeps' chain of dependent steps) is about half the tree's
 * diameter. *height (if not NULL): that path's compartments. -1: out of memory. */
int morphology_center(const struct morphology *m, int *height);

/* The same tree rooted at compartment `root` and renumbered depth-first from there (children in
 * their old index order): the same cable, so the same matrix up to the order of its rows.
 * new_index[i] (n ints, filled): where m's compartment i went. */
int morphology_reroot(const struct morphology *m, int root, struct morphology *out, int *new_index,
                      struct hines_error *err);

/* The same from a bare parent array (unit geometry), as tests and generators use. */
int morphology_from_parents(const char *name, int n, const int *source_parent,
                            struct morphology *out, struct hines_error *err);

void morphology_free(struct morphology *m);

/* Checks every invariant the solvers rely on (p[i] < i, branches contiguous, junction
 * consistency, levels); returns HINES_OK or HINES_FAILURE with the first broken invariant. */
int morphology_check(const struct morphology *m, struct hines_error *err);

#endif
