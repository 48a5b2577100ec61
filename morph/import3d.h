/* NEURON's reading of an SWC tree: the sections Import3d makes of it (NEURON 8.2,
 * read_swc.hoc and import3d_gui.hoc: soma conventions, wires to the soma, the copied parent
 * point), the segments NEURON cuts them into (nseg), and the nodes NEURON solves for: one at
 * each segment centre, with the area and axial resistances integrated over the truncated cones
 * between the 3-D points (treeset.cpp), plus the zero-area node at the 1-end of a section
 * where several children meet. The result is a set of integrated compartments (morphology.h)
 * whose matrix is NEURON's. The rules, and how they were checked against NEURON, are in
 * morph/README.md. No StarPU, no file reading: swc.c calls this on the repaired tree. */
#ifndef HINES_IMPORT3D_H
#define HINES_IMPORT3D_H

#include <stdio.h>

#include "morphology.h"

struct import3d_sample {
  double x, y, z;   /* um */
  double radius_um; /* > 0: zero radii are repaired before */
  int type;         /* SWC type code; 1 is the soma */
  int parent;       /* index of the parent sample, below the sample's own; -1 for sample 0 */
  long long id;     /* for messages */
  long line;        /* for messages */
};

/* How many segments (nseg) each section gets: the rules of NEURON's CellBuilder. */
enum nseg_rule {
  /* One segment per piece between consecutive 3-D points of the section (NEURON's n3d() - 1);
   * a one-point or NeuroMorpho three-point soma, which Import3d makes a cylinder, has one. */
  NSEG_PER_SAMPLE,
  /* d_X: nseg = int((L/dx + .999)/2)*2 + 1, the odd count that keeps segments at most dx. */
  NSEG_FIXED_LENGTH,
  /* d_lambda: nseg = int((L/(d_lambda*lambda_f(f)) + .999)/2)*2 + 1, lambda_f being the AC
   * length constant at frequency f integrated over the 3-D points (stdlib.hoc). */
  NSEG_D_LAMBDA,
};

struct import3d_discretisation {
  enum nseg_rule rule;
  double dx_um;         /* NSEG_FIXED_LENGTH */
  double d_lambda;      /* NSEG_D_LAMBDA: fraction of the length constant */
  double frequency_hz;  /* NSEG_D_LAMBDA */
  double ra_ohm_cm;     /* NSEG_D_LAMBDA: the length constant depends on Ra and cm */
  double cm_uF_per_cm2; /* NSEG_D_LAMBDA */
  /* Every section's nseg from the rule, times this (0 or 1: the rule's count). Multiplying by
   * 3, 9, 27 ... keeps every coarser node a node (odd factors keep x = 0.5 on a node too): a
   * nested refinement, whose error falls by the same factor in every section. */
  int nseg_factor;
};

/* Compartments in no particular order (the Hines order is morphology_from_tree's job) with
 * compartment 0 the root: the node of the root section (the soma) that NEURON calls
 * soma(0.5). Every geometry entry is integrated. */
struct import3d_result {
  int n_compartments;
  int *parent; /* parent[0] == -1 */
  struct compartment_geometry *geometry;
  int n_sections;        /* NEURON sections, after Import3d drops zero-length ones */
  int n_junction_nodes;  /* zero-area nodes kept (1-ends with two or more children) */
  int root_section_nseg; /* nseg of the root section */
};

/* Builds NEURON's compartments of the tree `samples` (n of them, sample 0 the root, every
 * parent before its child). Repairs Import3d makes (a zero-length section dropped) are reported
 * as "PATH:LINE: warning: ..." on `warnings`. More than max_compartments compartments, or a
 * discretisation parameter out of range, is HINES_BAD_INPUT. */
int import3d_build(const char *path, int n, const struct import3d_sample *samples,
                   const struct import3d_discretisation *discretisation, FILE *warnings,
                   long long max_compartments, struct import3d_result *out,
                   struct hines_error *err);
void import3d_result_free(struct import3d_result *result);

/* NEURON's segment count of one section with `n_points` 3-D points (arc length from 0,
 * diameters), under a rule; `one_point_soma` marks Import3d's cylinder for a one-point or
 * three-point soma. Exposed for the tests. */
int import3d_nseg(const struct import3d_discretisation *discretisation, int n_points,
                  const double *arc_um, const double *diameter_um, int one_point_soma);

#endif
