/* NEURON's sections, segments and nodes for an SWC tree: see import3d.h. The stages follow
 * what NEURON 8.2 does, each named after the NEURON procedure it reproduces:
 *   mark_branch, sectionify  (read_swc.hoc): where sections end, the NeuroMorpho 3-point soma
 *   mksection                (read_swc.hoc): each section's points, parent and parent x
 *   chk_valid, sphere_rep    (import3d_gui.hoc): zero-length sections go, a one-point soma
 *                            becomes a cylinder as long as it is wide
 *   nseg                     (the CellBuilder's rules)
 *   nrn_area_ri, connection_coef (treeset.cpp): areas and half-segment resistances
 * and the node graph is then rooted at soma(0.5). */
#include "import3d.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum {
  SOMA_TYPE = 1,
  /* Import3d counts the children of a sample in hundredths: +1 per child, +.01 more for a
   * child that does not follow its parent in the file or changes type. A sample ends a section
   * unless its count is exactly 1. Integers keep that test exact. */
  ONE_CONTIGUOUS_CHILD = 100,
};

/* NEURON clamps a piece of cable shorter than this in its resistance integral (treeset.cpp),
 * so that a zero-length piece adds almost nothing rather than dividing by zero. */
static const double NEURON_MIN_PIECE_UM = 1e-15;

struct section {
  int first, last; /* its own samples: a contiguous index range */
  int parent;      /* section index, -1 for the root section */
  double parent_x; /* Import3d's parentx: 0, 0.5 or 1 */
  bool wire;       /* Import3d's `first = 1`: the copy of the parent point is left out */
  bool removed;    /* chk_valid: a two-point section of length 0 */
  bool sphere;     /* root section made of one point (sphere_rep) */
  int type;
  double first_diameter_um; /* diameter given to the copy of the parent point */
  /* Points after wire removal and sphere_rep: offset into the point arrays, count. */
  int point_offset, n_points;
  int nseg;
  int first_node; /* node of segment 0; segments are first_node .. first_node + nseg - 1 */
  double attach_path_per_um; /* from segment 0's node to the section's 0-end */
  /* The junction node at the section's 1-end (-1 when it is merged away) and, for the root
   * section, the one at its 0-end. */
  int end_junction, start_junction;
};

struct builder {
  const char *path;
  FILE *warnings;
  int n;
  const struct import3d_sample *samples;
  int *parent;      /* Import3d's pid, changed for a NeuroMorpho 3-point soma */
  double *diameter; /* 2 r */
  int *child_count; /* hundredths, see ONE_CONTIGUOUS_CHILD */
  bool *connect_to_proximal;
  int *soma_children; /* soma children of each soma sample */
  bool three_point_soma;
  struct section *sections;
  int n_sections;
  int *section_of; /* sample -> section */
  /* Points of every section, one after the other. */
  double *point_x, *point_y, *point_z, *point_diameter, *point_arc;
  int n_points;
};

static void builder_free(struct builder *b) {
  free(b->parent);
  free(b->diameter);
  free(b->child_count);
  free(b->connect_to_proximal);
  free(b->soma_children);
  free(b->sections);
  free(b->section_of);
  free(b->point_x);
  free(b->point_y);
  free(b->point_z);
  free(b->point_diameter);
  free(b->point_arc);
}

static double sample_distance(const struct import3d_sample *a, const struct import3d_sample *b) {
  double dx = a->x - b->x, dy = a->y - b->y, dz = a->z - b->z;
  return sqrt(dx * dx + dy * dy + dz * dz);
}

/* ---- where sections end (mark_branch, sectionify) ---- */

static void mark_branches(struct builder *b) {
  const struct import3d_sample *s = b->samples;
  for (int i = 0; i < b->n; i++) {
    int p = b->parent[i];
    if (p < 0)
      continue;
    b->child_count[p] += ONE_CONTIGUOUS_CHILD;
    if (p != i - 1) {
      b->child_count[p] += 1;
      /* A branch from the first point of a neurite that is wired to the soma (or from a
       * soma-less root) joins the proximal end of that neurite's section rather than cutting
       * a one-point section off it. Import3d tests p > 1, not p > 0: kept as it is. */
      bool to_proximal = p > 1 ? s[p].type != SOMA_TYPE && s[b->parent[p]].type == SOMA_TYPE
                               : p == 0 && s[p].type != SOMA_TYPE;
      if (to_proximal) {
        b->connect_to_proximal[i] = true;
        b->child_count[p] = ONE_CONTIGUOUS_CHILD;
      }
    }
    if (s[p].type != s[i].type)
      b->child_count[p] += 1; /* a type change ends a section without being a branch */
  }
}

/* NeuroMorpho.Org's three-point soma: samples 1 and 2 are children of sample 0 with no children
 * of their own, all three of one diameter, and their distances to sample 0 add up to that
 * diameter (within 1 %). Import3d then keeps sample 0 alone, as a sphere. */
static bool neuromorpho_three_point_soma(struct builder *b) {
  const struct import3d_sample *s = b->samples;
  if (b->n < 3 || b->parent[1] != 0 || b->parent[2] != 0)
    return false;
  if (b->child_count[1] != 0 || b->child_count[2] != 0)
    return false;
  if (b->diameter[1] != b->diameter[0] || b->diameter[2] != b->diameter[0])
    return false;
  double length = sample_distance(&s[1], &s[0]) + sample_distance(&s[2], &s[0]);
  if (!(fabs(length / b->diameter[0] - 1) < .01))
    return false;
  b->parent[2] = 1; /* as Import3d: the three samples then form one soma section */
  return true;
}

static int sectionify(struct builder *b) {
  const struct import3d_sample *s = b->samples;
  int n_soma = s[0].type == SOMA_TYPE;
  for (int i = 1; i < b->n; i++)
    if (s[i].type == SOMA_TYPE) {
      n_soma++;
      int p = b->parent[i];
      if (p >= 0 && s[p].type == SOMA_TYPE)
        b->soma_children[p]++;
    }
  if (n_soma == 3)
    b->three_point_soma = neuromorpho_three_point_soma(b);
  /* Consecutive soma samples stay in one section unless the soma branches there. */
  for (int i = 0; i + 1 < b->n; i++)
    if (s[i].type == SOMA_TYPE && s[i + 1].type == SOMA_TYPE && b->parent[i + 1] == i &&
        !(i != 0 && b->soma_children[i] > 1))
      b->child_count[i] = ONE_CONTIGUOUS_CHILD;
  b->n_sections = 0;
  for (int i = 0; i < b->n; i++)
    b->n_sections += b->child_count[i] != ONE_CONTIGUOUS_CHILD || i == b->n - 1;
  b->sections = calloc((size_t)b->n_sections, sizeof *b->sections);
  if (!b->sections)
    return HINES_FAILURE;
  int k = 0, first = 0;
  for (int i = 0; i < b->n; i++) {
    b->section_of[i] = k;
    if (b->child_count[i] != ONE_CONTIGUOUS_CHILD || i == b->n - 1) {
      b->sections[k].first = first;
      b->sections[k].last = i;
      k++;
      first = i + 1;
    }
  }
  return HINES_OK;
}

/* ---- each section's parent, parent x and points (mksection) ---- */

static void make_sections(struct builder *b) {
  const struct import3d_sample *s = b->samples;
  for (int k = 0; k < b->n_sections; k++) {
    struct section *sec = &b->sections[k];
    int first = sec->first, own = sec->last - sec->first + 1;
    sec->type = s[first].type;
    if (k == 0) {
      sec->parent = -1;
      sec->parent_x = 0;
      continue;
    }
    int parent_sample = b->parent[first];
    sec->parent = b->section_of[parent_sample];
    sec->parent_x = 1;
    const struct section *psec = &b->sections[sec->parent];
    /* Import3d's d.size of the parent: its points, the copied parent point included. */
    int parent_size = psec->parent < 0 ? (b->three_point_soma ? 1 : psec->last - psec->first + 1)
                                       : psec->last - psec->first + 2;
    bool neurite_on_soma = psec->type == SOMA_TYPE && s[first].type != SOMA_TYPE;
    bool on_soma = psec->type == SOMA_TYPE;
    bool handled = false;
    if (sec->parent == 0) {
      handled = true;
      if (neurite_on_soma && parent_size == 1) {
        /* One-point (or NeuroMorpho 3-point) soma: to its middle, by a wire. */
        sec->parent_x = 0.5;
        sec->wire = own > 1;
      } else if (parent_sample == psec->first) {
        sec->parent_x = 0;
        sec->wire = s[first].type != SOMA_TYPE && b->soma_children[parent_sample] > 1;
      } else {
        handled = false;
      }
    }
    if (!handled && on_soma) {
      int offset = psec->first == 0 ? -1 : -2;
      if (parent_sample < psec->first + parent_size + offset) {
        /* A neurite from inside a multi-point soma section joins its middle. */
        sec->parent_x = 0.5;
        sec->wire = neurite_on_soma && own > 1;
      } else if (own > 1 && b->soma_children[parent_sample] > 1 && s[first].type != SOMA_TYPE) {
        sec->wire = true;
      }
    }
    /* A neurite on the soma starts with its own diameter, not the soma's. */
    sec->first_diameter_um = psec->type == SOMA_TYPE && sec->type != SOMA_TYPE
                                 ? b->diameter[first]
                                 : b->diameter[parent_sample];
    if (b->connect_to_proximal[first])
      sec->parent_x = 0;
  }
}

/* chk_valid: a two-point section whose points coincide is dropped; its children take its
 * parent and parent x. Sections come after their parents, so going backwards carries children
 * up through several dropped sections. */
static void drop_zero_length_sections(struct builder *b) {
  const struct import3d_sample *s = b->samples;
  int dropped = 0;
  for (int k = b->n_sections - 1; k > 0; k--) {
    struct section *sec = &b->sections[k];
    int own = sec->last - sec->first + 1;
    int visible = own + (sec->wire ? 0 : 1);
    if (visible > 2)
      continue;
    const struct import3d_sample *a = sec->wire ? &s[sec->first] : &s[b->parent[sec->first]];
    const struct import3d_sample *z = sec->wire ? &s[sec->first + 1] : &s[sec->first];
    if (visible == 2 && (a->x != z->x || a->y != z->y || a->z != z->z))
      continue;
    sec->removed = true;
    for (int j = k + 1; j < b->n_sections; j++)
      if (b->sections[j].parent == k) {
        b->sections[j].parent = sec->parent;
        b->sections[j].parent_x = sec->parent_x;
      }
    if (++dropped <= 10 && b->warnings)
      fprintf(b->warnings,
              "%s:%ld: warning: sample %lld lies where its parent sample %lld does; the "
              "section of length 0 they form is dropped and its children join its parent, "
              "as NEURON's Import3d does\n",
              b->path, s[sec->last].line, s[sec->last].id, s[b->parent[sec->first]].id);
  }
  if (dropped > 10 && b->warnings)
    fprintf(b->warnings, "%s:%ld: warning: %d more sections of length 0 dropped the same way\n",
            b->path, s[0].line, dropped - 10);
}

static int place_points(struct builder *b) {
  const struct import3d_sample *s = b->samples;
  int total = 0;
  for (int k = 0; k < b->n_sections; k++) {
    struct section *sec = &b->sections[k];
    int own = sec->last - sec->first + 1;
    if (k == 0 && b->three_point_soma)
      own = 1;
    sec->sphere = k == 0 && own == 1;
    sec->n_points = sec->sphere ? 3 : own + (k > 0 && !sec->wire ? 1 : 0);
    sec->point_offset = total;
    total += sec->n_points;
  }
  b->n_points = total;
  size_t bytes = (size_t)total * sizeof(double);
  b->point_x = malloc(bytes);
  b->point_y = malloc(bytes);
  b->point_z = malloc(bytes);
  b->point_diameter = malloc(bytes);
  b->point_arc = malloc(bytes);
  if (!b->point_x || !b->point_y || !b->point_z || !b->point_diameter || !b->point_arc)
    return HINES_FAILURE;
  for (int k = 0; k < b->n_sections; k++) {
    struct section *sec = &b->sections[k];
    int at = sec->point_offset;
    if (sec->sphere) {
      /* sphere_rep: three points along x, as long as the soma is wide: the lateral area of
       * this cylinder is the sphere's 4 pi r^2. */
      const struct import3d_sample *c = &s[sec->first];
      double d = b->diameter[sec->first];
      for (int i = 0; i < 3; i++) {
        b->point_x[at + i] = c->x + (i - 1) * d / 2;
        b->point_y[at + i] = c->y;
        b->point_z[at + i] = c->z;
        b->point_diameter[at + i] = d;
      }
    } else {
      if (k > 0 && !sec->wire) {
        const struct import3d_sample *p = &s[b->parent[sec->first]];
        b->point_x[at] = p->x;
        b->point_y[at] = p->y;
        b->point_z[at] = p->z;
        b->point_diameter[at] = sec->first_diameter_um;
        at++;
      }
      for (int i = sec->first; at < sec->point_offset + sec->n_points; i++, at++) {
        b->point_x[at] = s[i].x;
        b->point_y[at] = s[i].y;
        b->point_z[at] = s[i].z;
        b->point_diameter[at] = b->diameter[i];
      }
    }
    at = sec->point_offset;
    b->point_arc[at] = 0;
    for (int i = at + 1; i < at + sec->n_points; i++) {
      double dx = b->point_x[i] - b->point_x[i - 1], dy = b->point_y[i] - b->point_y[i - 1],
             dz = b->point_z[i] - b->point_z[i - 1];
      b->point_arc[i] = b->point_arc[i - 1] + sqrt(dx * dx + dy * dy + dz * dz);
    }
  }
  return HINES_OK;
}

/* ---- segments ---- */

/* CellBuilder's rounding to an odd count: int((ratio + .999)/2)*2 + 1. */
static double odd_segments(double ratio) {
  return floor((ratio + .999) / 2) * 2 + 1;
}

int import3d_nseg(const struct import3d_discretisation *d, int n_points, const double *arc_um,
                  const double *diameter_um, int one_point_soma) {
  double length = arc_um[n_points - 1];
  double count = 1;
  switch (d->rule) {
  case NSEG_PER_SAMPLE:
    count = one_point_soma || n_points < 2 ? 1 : n_points - 1;
    break;
  case NSEG_FIXED_LENGTH:
    count = odd_segments(length / d->dx_um);
    break;
  case NSEG_D_LAMBDA: {
    /* lambda_f: the section's length in AC length constants, piece by piece, with the
     * geometric-mean-like sqrt(d1 + d2) weighting of stdlib.hoc. */
    double lambdas = 0;
    for (int i = 1; i < n_points; i++)
      lambdas += (arc_um[i] - arc_um[i - 1]) / sqrt(diameter_um[i - 1] + diameter_um[i]);
    lambdas *= sqrt(2) * 1e-5 * sqrt(4 * M_PI * d->frequency_hz * d->ra_ohm_cm * d->cm_uF_per_cm2);
    count = length > 0 ? odd_segments(lambdas / d->d_lambda) : 1;
    break;
  }
  }
  if (d->nseg_factor > 1)
    count *= d->nseg_factor;
  return count < 1 ? 1 : count > 1e9 ? 1000000000 : (int)count;
}

/* Integrals over a stretch of cable whose diameter is linear between the 3-D points. */
struct cable_integrals {
  double area_um2;        /* lateral area of the truncated cones */
  double path_per_um;     /* integral of dx / (pi r^2) */
  double diameter_length; /* integral of the diameter, um^2 */
};

static void add_truncated_cone(struct cable_integrals *sum, double length, double d1, double d2) {
  double half_step = 0.5 * (d2 - d1);
  sum->area_um2 += 0.5 * M_PI * (d1 + d2) * sqrt(length * length + half_step * half_step);
  /* Exact for a truncated cone: the integral of 4/(pi d(x)^2) is 4 L / (pi d1 d2). */
  sum->path_per_um += 4.0 / M_PI * fmax(length, NEURON_MIN_PIECE_UM) / (d1 * d2);
  sum->diameter_length += 0.5 * (d1 + d2) * length;
}

struct section_cursor {
  const double *arc, *diameter;
  int n_points;
  int piece; /* the piece from point `piece` to `piece + 1` that holds the current position */
  double diameter_here; /* where the previous integral ended (the first point's at first) */
};

static double diameter_in_piece(const struct section_cursor *c, double x) {
  int j = c->piece;
  double span = c->arc[j + 1] - c->arc[j];
  double fraction = span < 1e-10 ? 1 : (x - c->arc[j]) / span; /* NEURON's tolerance */
  return (1 - fraction) * c->diameter[j] + fraction * c->diameter[j + 1];
}

/* Integrates from `from` (where the previous call ended, 0 at first) to `to`, through the
 * points between them; a piece of length 0 (two points at one place) adds the area of the
 * ring between its diameters, as in NEURON. */
static struct cable_integrals integrate(struct section_cursor *c, double from, double to) {
  struct cable_integrals sum = {0};
  double x1 = from, d1 = c->diameter_here;
  for (;;) {
    bool last_piece = c->piece + 2 >= c->n_points;
    double next_point = c->arc[c->piece + 1];
    if (next_point > to || last_piece) {
      double d2 = diameter_in_piece(c, to);
      add_truncated_cone(&sum, to - x1, d1, d2);
      c->diameter_here = d2;
      return sum;
    }
    add_truncated_cone(&sum, next_point - x1, d1, c->diameter[c->piece + 1]);
    x1 = next_point;
    d1 = c->diameter[c->piece + 1];
    c->piece++;
  }
}

/* ---- nodes ---- */

struct node_graph {
  int n_nodes;
  double *area_um2, *length_um, *radius_um;
  int *type;
  int n_edges;
  int *edge_a, *edge_b;
  double *edge_path_per_um;
};

static void node_graph_free(struct node_graph *g) {
  free(g->area_um2);
  free(g->length_um);
  free(g->radius_um);
  free(g->type);
  free(g->edge_a);
  free(g->edge_b);
  free(g->edge_path_per_um);
}

static void add_edge(struct node_graph *g, int a, int b, double path_per_um) {
  g->edge_a[g->n_edges] = a;
  g->edge_b[g->n_edges] = b;
  g->edge_path_per_um[g->n_edges] = path_per_um;
  g->n_edges++;
}

/* NEURON's node_index: the segment holding x (0 < x < 1). */
static int segment_at(const struct section *sec, double x) {
  int i = (int)(sec->nseg * x);
  return i >= sec->nseg ? sec->nseg - 1 : i;
}

static int build_nodes(struct builder *b, const struct import3d_discretisation *d,
                       long long max_compartments, struct node_graph *g,
                       struct import3d_result *out, struct hines_error *err) {
  /* Children joined at each section's 1-end and at the root's 0-end. A child at the 0-end of
   * a non-root section joins that section's own parent node (NEURON's sec(0) is the parent's
   * node), found by walking up. */
  /* (n_sections is never negative; saying so keeps GCC's -Walloc-size-larger-than quiet in
   * the sanitizer build) */
  int *end_children = calloc(b->n_sections > 0 ? (size_t)b->n_sections : 1, sizeof(int));
  int start_children = 0;
  if (!end_children)
    return HINES_FAILURE;
  long long n_segments = 0;
  for (int k = 0; k < b->n_sections; k++) {
    struct section *sec = &b->sections[k];
    if (sec->removed)
      continue;
    sec->nseg = import3d_nseg(d, sec->n_points, b->point_arc + sec->point_offset,
                              b->point_diameter + sec->point_offset, sec->sphere);
    n_segments += sec->nseg;
    if (k == 0)
      continue;
    int parent = sec->parent;
    double x = sec->parent_x;
    while (x == 0 && parent > 0) {
      x = b->sections[parent].parent_x;
      parent = b->sections[parent].parent;
    }
    sec->parent = parent;
    sec->parent_x = x;
    if (x == 1)
      end_children[parent]++;
    else if (x == 0)
      start_children++;
  }
  /* A junction with one child only joins two cables in series: it is merged into the child's
   * axial path. One with no child carries no current: it is left out. */
  int n_junctions = start_children >= 2;
  for (int k = 0; k < b->n_sections; k++)
    n_junctions += !b->sections[k].removed && end_children[k] >= 2;
  if (n_segments + n_junctions > max_compartments) {
    free(end_children);
    long long total = n_segments + n_junctions;
    char factor[48] = "";
    if (d->nseg_factor > 1)
      snprintf(factor, sizeof factor, " with nseg times %d", d->nseg_factor);
    if (d->rule == NSEG_FIXED_LENGTH)
      return hines_fail(err, HINES_BAD_INPUT,
                        "%s: a maximum compartment length of %g um%s would give %lld compartments "
                        "(at most %lld allowed)",
                        b->path, d->dx_um, factor, total, max_compartments);
    if (d->rule == NSEG_D_LAMBDA)
      return hines_fail(err, HINES_BAD_INPUT,
                        "%s: d_lambda %g at %g Hz%s would give %lld compartments (at most %lld "
                        "allowed)",
                        b->path, d->d_lambda, d->frequency_hz, factor, total, max_compartments);
    return hines_fail(err, HINES_BAD_INPUT, "%s: %lld compartments%s (at most %lld allowed)",
                      b->path, total, factor, max_compartments);
  }
  int n_nodes = (int)(n_segments + n_junctions);
  g->n_nodes = n_nodes;
  g->area_um2 = calloc((size_t)n_nodes, sizeof(double));
  g->length_um = calloc((size_t)n_nodes, sizeof(double));
  g->radius_um = calloc((size_t)n_nodes, sizeof(double));
  g->type = calloc((size_t)n_nodes, sizeof(int));
  g->edge_a = malloc((size_t)n_nodes * sizeof(int));
  g->edge_b = malloc((size_t)n_nodes * sizeof(int));
  g->edge_path_per_um = malloc((size_t)n_nodes * sizeof(double));
  if (!g->area_um2 || !g->length_um || !g->radius_um || !g->type || !g->edge_a || !g->edge_b ||
      !g->edge_path_per_um) {
    free(end_children);
    return HINES_FAILURE;
  }

  /* Segment nodes: two half-segment integrals each (nrn_area_ri). */
  int next = 0;
  double root_start_path = 0;
  double *right_half = NULL; /* of the section's last segment, per section */
  right_half = calloc((size_t)b->n_sections, sizeof(double));
  if (!right_half) {
    free(end_children);
    return HINES_FAILURE;
  }
  for (int k = 0; k < b->n_sections; k++) {
    struct section *sec = &b->sections[k];
    if (sec->removed)
      continue;
    struct section_cursor cursor = {.arc = b->point_arc + sec->point_offset,
                                    .diameter = b->point_diameter + sec->point_offset,
                                    .n_points = sec->n_points,
                                    .piece = 0,
                                    .diameter_here = b->point_diameter[sec->point_offset]};
    double length = cursor.arc[sec->n_points - 1], step = length / sec->nseg;
    sec->first_node = next;
    double previous_right = 0;
    for (int i = 0; i < sec->nseg; i++) {
      double start = i * step, middle = start + step / 2, end = middle + step / 2;
      struct cable_integrals left = integrate(&cursor, start, middle);
      struct cable_integrals right = integrate(&cursor, middle, end);
      int node = next++;
      g->area_um2[node] = left.area_um2 + right.area_um2;
      g->length_um[node] = step;
      g->radius_um[node] = step > 0 ? 0.5 * (left.diameter_length + right.diameter_length) / step
                                    : 0.5 * cursor.diameter[0];
      g->type[node] = sec->type;
      if (i == 0)
        sec->attach_path_per_um = left.path_per_um;
      else
        add_edge(g, node - 1, node, previous_right + left.path_per_um);
      previous_right = right.path_per_um;
    }
    right_half[k] = previous_right;
    if (k == 0)
      root_start_path = sec->attach_path_per_um;
  }

  /* Junction nodes. */
  const struct section *root = &b->sections[0];
  for (int k = 0; k < b->n_sections; k++) {
    struct section *sec = &b->sections[k];
    sec->end_junction = sec->start_junction = -1;
    if (sec->removed)
      continue;
    double end_diameter = b->point_diameter[sec->point_offset + sec->n_points - 1];
    if (end_children[k] >= 2) {
      int node = next++;
      sec->end_junction = node;
      g->radius_um[node] = 0.5 * end_diameter;
      g->type[node] = sec->type;
      add_edge(g, sec->first_node + sec->nseg - 1, node, right_half[k]);
    }
  }
  if (start_children >= 2) {
    int node = next++;
    b->sections[0].start_junction = node;
    g->radius_um[node] = 0.5 * b->point_diameter[root->point_offset];
    g->type[node] = root->type;
    add_edge(g, root->first_node, node, root_start_path);
  }
  /* Each section's segment 0 joins its parent's node. */
  for (int k = 1; k < b->n_sections; k++) {
    const struct section *sec = &b->sections[k];
    if (sec->removed)
      continue;
    const struct section *parent = &b->sections[sec->parent];
    double path = sec->attach_path_per_um;
    int target;
    if (sec->parent_x == 1) {
      target = parent->end_junction;
      if (target < 0) { /* the only child: in series with the parent's last half-segment */
        target = parent->first_node + parent->nseg - 1;
        path += right_half[sec->parent];
      }
    } else if (sec->parent_x == 0) {
      target = root->start_junction;
      if (target < 0) {
        target = root->first_node;
        path += root_start_path;
      }
    } else {
      target = parent->first_node + segment_at(parent, sec->parent_x);
    }
    add_edge(g, target, sec->first_node, path);
  }
  free(right_half);
  free(end_children);
  out->n_junction_nodes = n_junctions;
  out->root_section_nseg = root->nseg;
  return HINES_OK;
}

/* Roots the node graph (a tree: n - 1 edges) at `root` and writes the compartments: the root
 * becomes compartment 0, the others are numbered breadth-first from it. */
static int root_graph(const struct node_graph *g, int root, struct import3d_result *out) {
  int n = g->n_nodes;
  int *first = calloc((size_t)n + 1, sizeof(int));
  int *fill = calloc((size_t)n, sizeof(int));
  int *incident = malloc((size_t)(2 * g->n_edges + 1) * sizeof(int));
  int *number = malloc((size_t)n * sizeof(int));
  int *queue = malloc((size_t)n * sizeof(int));
  out->parent = malloc((size_t)n * sizeof(int));
  out->geometry = calloc((size_t)n, sizeof *out->geometry);
  int status = HINES_OK;
  if (!first || !fill || !incident || !number || !queue || !out->parent || !out->geometry) {
    status = HINES_FAILURE;
    goto done;
  }
  for (int e = 0; e < g->n_edges; e++) {
    first[g->edge_a[e] + 1]++;
    first[g->edge_b[e] + 1]++;
  }
  for (int i = 0; i < n; i++)
    first[i + 1] += first[i];
  for (int e = 0; e < g->n_edges; e++) {
    incident[first[g->edge_a[e]] + fill[g->edge_a[e]]++] = e;
    incident[first[g->edge_b[e]] + fill[g->edge_b[e]]++] = e;
  }
  for (int i = 0; i < n; i++)
    number[i] = -1;
  int head = 0, tail = 0, assigned = 1;
  queue[tail++] = root;
  number[root] = 0;
  out->parent[0] = -1;
  while (head < tail) {
    int node = queue[head++];
    for (int k = first[node]; k < first[node + 1]; k++) {
      int e = incident[k];
      int other = g->edge_a[e] == node ? g->edge_b[e] : g->edge_a[e];
      if (number[other] >= 0)
        continue;
      number[other] = assigned++;
      out->parent[number[other]] = number[node];
      out->geometry[number[other]].axial_path_per_um = g->edge_path_per_um[e];
      queue[tail++] = other;
    }
  }
  if (assigned != n) {
    status = HINES_FAILURE; /* not a tree: a bug here, not bad input */
    goto done;
  }
  for (int i = 0; i < n; i++) {
    struct compartment_geometry *c = &out->geometry[number[i]];
    c->length_um = g->length_um[i];
    c->radius_um = g->radius_um[i];
    c->swc_type = g->type[i];
    c->is_sphere = 0;
    c->is_integrated = 1;
    c->area_um2 = g->area_um2[i];
  }
done:
  free(first);
  free(fill);
  free(incident);
  free(number);
  free(queue);
  return status;
}

void import3d_result_free(struct import3d_result *result) {
  if (!result)
    return;
  free(result->parent);
  free(result->geometry);
  memset(result, 0, sizeof *result);
}

int import3d_build(const char *path, int n, const struct import3d_sample *samples,
                   const struct import3d_discretisation *discretisation, FILE *warnings,
                   long long max_compartments, struct import3d_result *out,
                   struct hines_error *err) {
  memset(out, 0, sizeof *out);
  const struct import3d_discretisation *d = discretisation;
  if (d->rule == NSEG_FIXED_LENGTH && !(d->dx_um > 0 && isfinite(d->dx_um)))
    return hines_fail(err, HINES_BAD_INPUT, "%s: segment length %g um is not a positive number",
                      path, d->dx_um);
  if (d->rule == NSEG_D_LAMBDA &&
      !(d->d_lambda > 0 && isfinite(d->d_lambda) && d->frequency_hz > 0 &&
        isfinite(d->frequency_hz) && d->ra_ohm_cm > 0 && d->cm_uF_per_cm2 > 0))
    return hines_fail(err, HINES_BAD_INPUT,
                      "%s: d_lambda %g at %g Hz is not usable (both must be positive)", path,
                      d->d_lambda, d->frequency_hz);
  if (d->nseg_factor < 0)
    return hines_fail(err, HINES_BAD_INPUT, "%s: nseg factor %d is negative", path, d->nseg_factor);
  if (n <= 0)
    return hines_fail(err, HINES_BAD_INPUT, "%s: no samples", path);
  for (int i = 0; i < n; i++)
    if ((i == 0) != (samples[i].parent < 0) || samples[i].parent >= i ||
        !(samples[i].radius_um > 0))
      return hines_fail(err, HINES_FAILURE, "%s: sample %d is not in parent-first order", path, i);
  struct builder b = {.path = path, .warnings = warnings, .n = n, .samples = samples};
  b.parent = malloc((size_t)n * sizeof(int));
  b.diameter = malloc((size_t)n * sizeof(double));
  b.child_count = calloc((size_t)n, sizeof(int));
  b.connect_to_proximal = calloc((size_t)n, sizeof(bool));
  b.soma_children = calloc((size_t)n, sizeof(int));
  b.section_of = malloc((size_t)n * sizeof(int));
  struct node_graph graph = {0};
  int status = HINES_OK;
  if (!b.parent || !b.diameter || !b.child_count || !b.connect_to_proximal || !b.soma_children ||
      !b.section_of) {
    status = hines_fail(err, HINES_FAILURE, "%s: out of memory", path);
    goto done;
  }
  for (int i = 0; i < n; i++) {
    b.parent[i] = samples[i].parent;
    b.diameter[i] = 2 * samples[i].radius_um;
  }
  mark_branches(&b);
  if (sectionify(&b) != HINES_OK) {
    status = hines_fail(err, HINES_FAILURE, "%s: out of memory", path);
    goto done;
  }
  make_sections(&b);
  drop_zero_length_sections(&b);
  if (place_points(&b) != HINES_OK) {
    status = hines_fail(err, HINES_FAILURE, "%s: out of memory", path);
    goto done;
  }
  status = build_nodes(&b, d, max_compartments, &graph, out, err);
  if (status == HINES_FAILURE)
    hines_fail(err, HINES_FAILURE, "%s: out of memory", path);
  if (status != HINES_OK)
    goto done;
  double total_area = 0;
  for (int i = 0; i < graph.n_nodes; i++)
    total_area += graph.area_um2[i];
  if (!(total_area > 0)) { /* no membrane anywhere: the matrix would be singular */
    status = hines_fail(err, HINES_BAD_INPUT,
                        "%s:%ld: the cell has no membrane area (its samples lie at one point)",
                        path, samples[0].line);
    goto done;
  }
  int root = b.sections[0].first_node + segment_at(&b.sections[0], 0.5);
  if (root_graph(&graph, root, out) != HINES_OK) {
    status = hines_fail(err, HINES_FAILURE, "%s: out of memory", path);
    goto done;
  }
  out->n_compartments = graph.n_nodes;
  out->n_sections = 0;
  for (int k = 0; k < b.n_sections; k++)
    out->n_sections += !b.sections[k].removed;
done:
  node_graph_free(&graph);
  builder_free(&b);
  if (status != HINES_OK)
    import3d_result_free(out);
  return status;
}
