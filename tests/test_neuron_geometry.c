/* The NEURON SWC geometry (morph/import3d.c): truncated-cone areas and resistances against
 * their closed forms, the nseg rules, Import3d's soma conventions and junction nodes, the soma
 * voltage of small cells against numbers measured with NEURON 8.2.2 (Debian python3-neuron,
 * Import3d, usetable_hh = 0; scripts/compare_neuron.py runs the same models), and convergence
 * under refinement. CPU only, through the sequential reference time loop. */
#define _GNU_SOURCE /* nftw, open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cable.h"
#include "import3d.h"
#include "reference_simulation.h"
#include "swc.h"

static void assert_close(double actual, double expected, double tolerance, const char *what) {
  if (!(fabs(actual - expected) <= tolerance))
    fail_msg("%s: got %.12g, expected %.12g (tolerance %g)", what, actual, expected, tolerance);
}

/* ---- files ---- */

static char folder[] = "/tmp/test_neuron_geometry.XXXXXX";

static int create_folder(void **state) {
  (void)state;
  return mkdtemp(folder) ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *info, int flag, struct FTW *ftw) {
  (void)info, (void)flag, (void)ftw;
  return remove(path);
}

static int remove_folder(void **state) {
  (void)state;
  return nftw(folder, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *write_swc(const char *name, const char *content) {
  static char path[4096];
  snprintf(path, sizeof path, "%s/%s", folder, name);
  FILE *file = fopen(path, "w");
  assert_non_null(file);
  fputs(content, file);
  assert_int_equal(fclose(file), 0);
  return path;
}

/* A NeuroMorpho three-point soma (radius 5), a dendrite from the soma centre that branches in
 * two (one branch a single sample), and an axon. */
static const char three_point_soma[] = "1 1 0 0 0 5 -1\n"
                                       "2 1 0 -5 0 5 1\n"
                                       "3 1 0 5 0 5 1\n"
                                       "4 3 6 0 0 1 1\n"
                                       "5 3 20 0 0 0.8 4\n"
                                       "6 3 30 6 0 0.5 5\n"
                                       "7 3 30 -6 0 0.7 5\n"
                                       "8 3 38 -10 0 0.6 7\n"
                                       "9 2 -6 0 0 0.6 1\n"
                                       "10 2 -40 0 0 0.5 9\n";
/* The same cell with a one-point soma. */
static const char one_point_soma[] = "1 1 0 0 0 5 -1\n"
                                     "2 3 6 0 0 1 1\n"
                                     "3 3 20 0 0 0.8 2\n"
                                     "4 3 30 6 0 0.5 3\n"
                                     "5 3 30 -6 0 0.7 3\n"
                                     "6 3 38 -10 0 0.6 5\n"
                                     "7 2 -6 0 0 0.6 1\n"
                                     "8 2 -40 0 0 0.5 7\n";
/* A four-sample soma (a stack): a dendrite from its last sample (soma(1)), one from an interior
 * sample (soma(0.5), by a wire) and an axon from its first (soma(0)). */
static const char stacked_soma[] = "1 1 0 0 0 4 -1\n"
                                   "2 1 0 3 0 5 1\n"
                                   "3 1 0 6 0 4.5 2\n"
                                   "4 1 0 9 0 3 3\n"
                                   "5 3 0 12 0 1 4\n"
                                   "6 3 0 30 0 0.8 5\n"
                                   "7 3 5 6 0 1.2 3\n"
                                   "8 3 20 6 0 1 7\n"
                                   "9 2 0 -3 0 0.5 1\n"
                                   "10 2 0 -30 0 0.4 9\n";

/* A one-point soma; a dendrite wired to it whose first sample has a second child listed later
 * in the file (Import3d joins that child to the dendrite's 0-end, connect2prox), and an axon
 * that changes type (2 to 4) without branching. */
static const char wired_branch[] = "1 1 0 0 0 5 -1\n"
                                   "2 3 8 0 0 1 1\n"
                                   "3 3 20 0 0 0.9 2\n"
                                   "4 3 40 0 0 0.8 3\n"
                                   "5 3 60 5 0 0.5 4\n"
                                   "6 3 60 -5 0 0.6 4\n"
                                   "7 3 8 10 0 0.7 2\n"
                                   "8 3 8 30 0 0.5 7\n"
                                   "9 2 -8 0 0 0.5 1\n"
                                   "10 4 -20 0 0 0.5 9\n"
                                   "11 4 -40 0 0 0.4 10\n";
/* No soma: three branches from the root sample (its 0-end), one of them branching again. */
static const char no_soma[] = "1 3 0 0 0 1 -1\n"
                              "2 3 10 0 0 1 1\n"
                              "3 3 20 0 0 0.9 2\n"
                              "4 3 0 10 0 0.8 1\n"
                              "5 3 0 20 0 0.7 4\n"
                              "6 3 -10 0 0 0.6 1\n"
                              "7 3 -20 0 0 0.5 6\n"
                              "8 3 30 5 0 0.5 3\n"
                              "9 3 30 -5 0 0.5 3\n";
/* A soma that branches into two soma sections, with neurites on both, an axon on its first
 * sample and a dendrite wired to its first sample. */
static const char branched_soma[] = "1 1 0 0 0 3 -1\n"
                                    "2 1 0 3 0 4 1\n"
                                    "3 1 0 6 0 3.5 2\n"
                                    "4 1 3 9 0 2 3\n"
                                    "5 1 -3 9 0 2 3\n"
                                    "6 3 6 12 0 1 4\n"
                                    "7 3 10 20 0 0.8 6\n"
                                    "8 3 -6 12 0 1 5\n"
                                    "9 3 -10 20 0 0.8 8\n"
                                    "10 2 0 -3 0 0.5 1\n"
                                    "11 2 0 -20 0 0.4 10\n"
                                    "12 3 3 0 0 0.9 1\n"
                                    "13 3 15 0 0 0.7 12\n";

struct loaded {
  struct morphology morphology;
  char *warnings;
};

static void load_refined(const char *path, enum nseg_rule rule, double value, int nseg_factor,
                         struct loaded *out) {
  size_t size = 0;
  out->warnings = NULL;
  FILE *stream = open_memstream(&out->warnings, &size);
  struct swc_options options = {.geometry = SWC_GEOMETRY_NEURON,
                                .max_compartment_um = rule == NSEG_FIXED_LENGTH ? value : 0,
                                .d_lambda = rule == NSEG_D_LAMBDA ? value : 0,
                                .nseg_factor = nseg_factor,
                                .warnings = stream};
  struct hines_error err;
  int status = swc_load(path, &options, &out->morphology, &err);
  fclose(stream);
  if (status != HINES_OK)
    fail_msg("%s", err.message);
  if (morphology_check(&out->morphology, &err) != HINES_OK)
    fail_msg("%s", err.message);
}

static void load(const char *path, enum nseg_rule rule, double value, struct loaded *out) {
  load_refined(path, rule, value, 1, out);
}

static void unload(struct loaded *l) {
  morphology_free(&l->morphology);
  free(l->warnings);
}

static double total_area(const struct morphology *m) {
  double sum = 0;
  for (int i = 0; i < m->n_compartments; i++)
    sum += m->geometry[i].area_um2;
  return sum;
}

static int zero_area_nodes(const struct morphology *m) {
  int count = 0;
  for (int i = 0; i < m->n_compartments; i++)
    count += m->geometry[i].area_um2 == 0;
  return count;
}

/* ---- truncated cones ---- */

/* A soma-less cable of three samples along z, radius 2 - z/100: two segments (one per piece),
 * the root node is segment 1 (NEURON's node at x = 0.5 of two segments), segment 0 its child. */
static void areas_and_resistances_are_the_truncated_cones(void **state) {
  (void)state;
  const char *path = write_swc("cone.swc", "1 3 0 0 0 2 -1\n2 3 0 0 50 1.5 1\n3 3 0 0 100 1 2\n");
  struct loaded l;
  load(path, NSEG_PER_SAMPLE, 0, &l);
  const struct morphology *m = &l.morphology;
  assert_int_equal(m->n_compartments, 2);
  /* lateral area pi (r1 + r2) sqrt(L^2 + (r1 - r2)^2) */
  double distal = M_PI * (1.5 + 1) * sqrt(2500 + 0.25),
         proximal = M_PI * (2 + 1.5) * sqrt(2500 + 0.25);
  assert_close(m->geometry[0].area_um2, distal, 1e-9, "distal segment area");
  assert_close(m->geometry[1].area_um2, proximal, 1e-9, "proximal segment area");
  /* integral of dx / (pi r^2) over a cone is L / (pi r1 r2): half of each segment */
  double axial = 25 / (M_PI * 1.75 * 1.5) + 25 / (M_PI * 1.5 * 1.25);
  assert_close(m->geometry[1].axial_path_per_um, axial, 1e-12, "axial path");
  struct cable_coefficients c;
  struct hines_error err;
  assert_int_equal(cable_coefficients_build(m, &cable_defaults, &c, &err), HINES_OK);
  assert_close(c.axial_uS[1], 1 / (cable_defaults.ra_ohm_cm * axial * 1e-2), 1e-9,
               "axial conductance");
  assert_close(c.capacitance_nF[0], cable_defaults.cm_uF_per_cm2 * distal * 1e-5, 1e-15,
               "capacitance");
  /* the mean radius over the segment */
  assert_close(m->geometry[0].radius_um, 1.25, 1e-12, "mean radius");
  assert_close(m->total_length_um, 100, 1e-12, "length");
  cable_coefficients_free(&c);
  unload(&l);
}

/* ---- nseg ---- */

static void nseg_rules_are_the_cellbuilders(void **state) {
  (void)state;
  double arc[2] = {0, 100}, diameter[2] = {2, 2};
  struct import3d_discretisation dx = {.rule = NSEG_FIXED_LENGTH, .dx_um = 10};
  /* d_X: int((L/dx + .999)/2)*2 + 1, the odd count that keeps segments at most dx (with
   * 1e-4 of slack) */
  const double lengths[] = {100, 10, 10.005, 10.02, 30, 30.1};
  const int counts[] = {11, 1, 1, 3, 3, 5};
  for (int i = 0; i < 6; i++) {
    arc[1] = lengths[i];
    assert_int_equal(import3d_nseg(&dx, 2, arc, diameter, 0), counts[i]);
  }
  /* d_lambda on a cylinder: lambda_f = 1e5 sqrt(d / (4 pi f Ra cm)) = 282.09 um for d = 1 um at
   * 100 Hz, Ra 100, cm 1; 100 um / (0.1 * 282.09) = 3.545 -> 5 segments; 1000 um -> 37. */
  struct import3d_discretisation lambda = {.rule = NSEG_D_LAMBDA,
                                           .d_lambda = 0.1,
                                           .frequency_hz = 100,
                                           .ra_ohm_cm = 100,
                                           .cm_uF_per_cm2 = 1};
  diameter[0] = diameter[1] = 1;
  arc[1] = 100;
  assert_int_equal(import3d_nseg(&lambda, 2, arc, diameter, 0), 5);
  arc[1] = 1000;
  assert_int_equal(import3d_nseg(&lambda, 2, arc, diameter, 0), 37);
  struct import3d_discretisation per_sample = {.rule = NSEG_PER_SAMPLE};
  double arcs[4] = {0, 1, 2, 3}, diameters[4] = {1, 1, 1, 1};
  assert_int_equal(import3d_nseg(&per_sample, 4, arcs, diameters, 0), 3);
  assert_int_equal(import3d_nseg(&per_sample, 3, arcs, diameters, 1), 1);
}

/* ---- Import3d's somas and junctions ---- */

static void three_point_soma_is_neurons_cylinder(void **state) {
  (void)state;
  struct loaded three, one;
  load(write_swc("three.swc", three_point_soma), NSEG_PER_SAMPLE, 0, &three);
  load(write_swc("one.swc", one_point_soma), NSEG_PER_SAMPLE, 0, &one);
  const struct morphology *m = &three.morphology;
  /* NEURON: 5 sections, 6 segments (soma 1, dendrite from sample 4 by a wire 1, the one-sample
   * branch 1, the other branch 2, axon by a wire 1), area 649.9641156946 um2. The dendrite's
   * 1-end, where two branches meet, is one zero-area node. */
  assert_int_equal(m->n_compartments, 7);
  assert_int_equal(zero_area_nodes(m), 1);
  assert_close(total_area(m), 649.9641156946, 1e-5, "area"); /* NEURON: float diameters */
  /* Import3d's soma: a cylinder 10 um long and wide, lateral area 4 pi r^2 */
  assert_close(m->geometry[0].area_um2, 100 * M_PI, 1e-9, "soma area");
  assert_close(m->geometry[0].length_um, 10, 1e-12, "soma length");
  /* NeuroMorpho's three-point soma and the one-point soma are the same NEURON cell */
  assert_int_equal(one.morphology.n_compartments, m->n_compartments);
  for (int i = 0; i < m->n_compartments; i++) {
    assert_int_equal(one.morphology.parent[i], m->parent[i]);
    assert_close(one.morphology.geometry[i].area_um2, m->geometry[i].area_um2, 1e-9, "area");
    assert_close(one.morphology.geometry[i].axial_path_per_um, m->geometry[i].axial_path_per_um,
                 1e-12, "axial path");
  }
  /* The wire: the 6 um from the soma centre to the dendrite's first sample are not cable. */
  assert_close(m->total_length_um, 10 + 14 + sqrt(136) + sqrt(136) + sqrt(80) + 34, 1e-9, "length");
  unload(&three);
  unload(&one);
}

/* chk_valid: a one-sample branch on top of its parent sample is dropped, with a warning, and
 * changes nothing else. */
static void zero_length_section_is_dropped(void **state) {
  (void)state;
  char with_extra[sizeof one_point_soma + 64];
  snprintf(with_extra, sizeof with_extra, "%s9 3 20 0 0 0.3 3\n", one_point_soma);
  struct loaded plain, extra;
  load(write_swc("plain.swc", one_point_soma), NSEG_PER_SAMPLE, 0, &plain);
  const char *path = write_swc("extra.swc", with_extra);
  load(path, NSEG_PER_SAMPLE, 0, &extra);
  if (!strstr(extra.warnings, ":9: warning: sample 9 lies where its parent sample 3 does"))
    fail_msg("warnings: '%s'", extra.warnings);
  assert_int_equal(extra.morphology.n_compartments, plain.morphology.n_compartments);
  assert_close(total_area(&extra.morphology), total_area(&plain.morphology), 1e-9, "area");
  unload(&plain);
  unload(&extra);
}

/* ---- soma voltage against NEURON ---- */

/* The soma (compartment 0) voltage at 5 and 50 ms: 0.1 nA passive, or 0.5 nA with hh
 * everywhere, from 1 ms on (NEURON's IClamp del = 1, which NEURON evaluates mid-step, hence
 * the half step), dt 0.025 ms, cm 1, Ra 100, g_pas 1e-4, e_pas -65. */
static void soma_voltage(const struct morphology *m, int hh_everywhere, double out[2]) {
  const double dt = 0.025;
  struct cable_parameters p = cable_defaults;
  struct channel_set hh = channel_set_hh(hh_everywhere ? PLACE_ALL : PLACE_NONE);
  struct stimulus stim = {.compartment = 0,
                          .amplitude_nA = hh_everywhere ? 0.5 : 0.1,
                          .start_ms = 1 - dt / 2,
                          .stop_ms = 1e9,
                          .n_neurons_total = 1};
  double *v = malloc((size_t)m->n_compartments * sizeof(double));
  for (int i = 0; i < m->n_compartments; i++)
    v[i] = p.el_mV;
  struct hines_error err;
  /* hh gates start at rest for v; a run in two parts must not restart them, so one run each */
  assert_int_equal(reference_simulate(m, &p, &hh, dt, 200, 0, &stim, 0, v, &err), HINES_OK);
  out[0] = v[0];
  for (int i = 0; i < m->n_compartments; i++)
    v[i] = p.el_mV;
  assert_int_equal(reference_simulate(m, &p, &hh, dt, 2000, 0, &stim, 0, v, &err), HINES_OK);
  out[1] = v[0];
  free(v);
}

struct neuron_number {
  const char *cell;
  const char *content;
  enum nseg_rule rule;
  double value;
  int hh;
  int segments; /* NEURON's total nseg */
  double v5, v50;
};

/* Measured with NEURON 8.2.2 (scripts/compare_neuron.py's NEURON model, run on these files). */
static const struct neuron_number neuron_numbers[] = {
    {"three", three_point_soma, NSEG_PER_SAMPLE, 0, 0, 6, -14.2229988076, 87.8076301144},
    {"three", three_point_soma, NSEG_PER_SAMPLE, 0, 1, 6, -67.3894801967, -54.5918960687},
    {"three", three_point_soma, NSEG_FIXED_LENGTH, 2, 0, 47, -14.2453023903, 87.7853265317},
    {"three", three_point_soma, NSEG_FIXED_LENGTH, 2, 1, 47, -67.4858811636, -54.8416769692},
    {"three", three_point_soma, NSEG_D_LAMBDA, 0.1, 0, 7, -14.2370623442, 87.7935665778},
    {"three", three_point_soma, NSEG_D_LAMBDA, 0.1, 1, 7, -67.4491152234, -54.7621359909},
    {"stacked", stacked_soma, NSEG_PER_SAMPLE, 0, 0, 8, -7.0968303051, 109.3900885361},
    {"stacked", stacked_soma, NSEG_PER_SAMPLE, 0, 1, 8, -66.4926480417, -57.7070563758},
    {"stacked", stacked_soma, NSEG_FIXED_LENGTH, 2, 0, 40, -7.1046117873, 109.3823070539},
    {"stacked", stacked_soma, NSEG_FIXED_LENGTH, 2, 1, 40, -66.5287224890, -57.7376786495},
    {"stacked", stacked_soma, NSEG_D_LAMBDA, 0.1, 0, 6, -7.0954798926, 109.3914389486},
    {"stacked", stacked_soma, NSEG_D_LAMBDA, 0.1, 1, 6, -66.4844556135, -57.6958248064},
    {"wired", wired_branch, NSEG_PER_SAMPLE, 0, 0, 11, -30.6927397866, 37.9600621442},
    {"wired", wired_branch, NSEG_FIXED_LENGTH, 3, 0, 58, -30.7016673186, 37.9511346122},
    {"no-soma", no_soma, NSEG_PER_SAMPLE, 0, 0, 8, 15.6366446620, 177.5863927755},
    {"no-soma", no_soma, NSEG_FIXED_LENGTH, 3, 0, 31, 15.5872985356, 177.5370466492},
    {"branched", branched_soma, NSEG_PER_SAMPLE, 0, 0, 12, -8.7748075496, 104.3942874759},
    {"branched", branched_soma, NSEG_FIXED_LENGTH, 3, 0, 31, -8.7761641606, 104.3929308649},
};

static void soma_voltage_is_neurons(void **state) {
  (void)state;
  for (size_t k = 0; k < sizeof neuron_numbers / sizeof neuron_numbers[0]; k++) {
    const struct neuron_number *n = &neuron_numbers[k];
    char name[64];
    snprintf(name, sizeof name, "%s-%zu.swc", n->cell, k);
    struct loaded l;
    load(write_swc(name, n->content), n->rule, n->value, &l);
    double v[2];
    soma_voltage(&l.morphology, n->hh, v);
    print_message("%s rule %d (%g)%s: soma %.10f mV at 5 ms (NEURON %.10f), %.10f at 50 ms "
                  "(NEURON %.10f)\n",
                  n->cell, (int)n->rule, n->value, n->hh ? ", hh" : "", v[0], n->v5, v[1], n->v50);
    /* NEURON keeps 3-D points in single precision: agreement to about 1e-6 mV here */
    assert_close(v[0], n->v5, 1e-5, "soma voltage at 5 ms");
    assert_close(v[1], n->v50, 1e-5, "soma voltage at 50 ms");
    assert_int_equal(l.morphology.n_compartments - zero_area_nodes(&l.morphology), n->segments);
    unload(&l);
  }
}

/* ---- refinement ---- */

/* Steady state at compartment 0 (the root section's middle) under a constant current: backward
 * Euler with dt = 1 ms for 400 ms (40 membrane time constants). */
static double steady_soma_voltage(const struct morphology *m, double current_nA) {
  struct cable_parameters p = cable_defaults;
  struct channel_set hh = channel_set_hh(PLACE_NONE);
  struct stimulus stim = {.compartment = 0,
                          .amplitude_nA = current_nA,
                          .start_ms = 0,
                          .stop_ms = 1e9,
                          .n_neurons_total = 1};
  double *v = malloc((size_t)m->n_compartments * sizeof(double));
  for (int i = 0; i < m->n_compartments; i++)
    v[i] = p.el_mV;
  struct hines_error err;
  assert_int_equal(reference_simulate(m, &p, &hh, 1.0, 400, 0, &stim, 0, v, &err), HINES_OK);
  double result = v[0];
  free(v);
  return result;
}

/* A uniform soma-less cable 2 L = 2000 um long, radius 1 um, sampled every 10 um, with current
 * into its middle: two sealed half-cables in parallel, V - EL = I R_inf coth(L / lambda) / 2.
 * Under d_X = 2 L / n (n odd) the error falls as dx^2. */
static void uniform_cable_converges_at_second_order(void **state) {
  (void)state;
  char *content = malloc(201 * 64);
  size_t used = 0;
  for (int i = 0; i <= 200; i++)
    used += (size_t)sprintf(content + used, "%d 3 0 0 %d 1 %d\n", i + 1, 10 * i, i == 0 ? -1 : i);
  const char *path = write_swc("uniform.swc", content);
  free(content);
  const double current_nA = 0.05, half_um = 1000, radius_cm = 1e-4;
  struct cable_parameters p = cable_defaults;
  double lambda_cm = sqrt(radius_cm / p.gl_S_per_cm2 / (2 * p.ra_ohm_cm));
  double r_inf_ohm = p.ra_ohm_cm * lambda_cm / (M_PI * radius_cm * radius_cm);
  double exact = current_nA * 1e-9 * r_inf_ohm / tanh(half_um * 1e-4 / lambda_cm) / 2 * 1e3;
  const int counts[] = {3, 9, 27, 81};
  double error[4];
  for (int k = 0; k < 4; k++) {
    struct loaded l;
    load(path, NSEG_FIXED_LENGTH, 2 * half_um / counts[k], &l);
    assert_int_equal(l.morphology.n_compartments, counts[k]);
    error[k] = fabs(steady_soma_voltage(&l.morphology, current_nA) - p.el_mV - exact);
    print_message("uniform cable, %2d segments: error %.3e mV of %.4f mV\n", counts[k], error[k],
                  exact);
    unload(&l);
  }
  for (int k = 1; k < 4; k++) /* dx / 3 -> error / 9 */
    assert_true(error[k] < error[k - 1] / 7);
  assert_true(error[3] < 2e-4 * exact);
}

/* A three-point soma with a tapering, branching dendrite: the soma voltage under d_X = 40, 20,
 * 10, 5, 2.5 um moves monotonically towards its value at d_X = 0.5 um. */
static void branching_cell_converges_monotonically(void **state) {
  (void)state;
  char content[4096];
  size_t used = (size_t)snprintf(content, sizeof content,
                                 "1 1 0 0 0 6 -1\n2 1 0 -6 0 6 1\n"
                                 "3 1 0 6 0 6 1\n");
  /* a trunk from 2 um to 1 um radius over 300 um, two branches of 200 um down to 0.3 um */
  for (int i = 0; i < 30; i++)
    used += (size_t)snprintf(content + used, sizeof content - used, "%d 4 0 %d 0 %g %d\n", 4 + i,
                             6 + 10 * (i + 1), 2 - i / 29.0, i == 0 ? 1 : 3 + i);
  for (int branch = 0; branch < 2; branch++)
    for (int i = 0; i < 20; i++)
      used += (size_t)snprintf(content + used, sizeof content - used, "%d 4 %d %d 0 %g %d\n",
                               34 + 20 * branch + i, (branch ? -7 : 7) * (i + 1), 306 + 7 * (i + 1),
                               1 - 0.7 * i / 19.0, i == 0 ? 33 : 33 + 20 * branch + i);
  const char *path = write_swc("branching.swc", content);
  struct loaded l;
  load(path, NSEG_FIXED_LENGTH, 0.5, &l);
  double reference = steady_soma_voltage(&l.morphology, 0.1);
  unload(&l);
  const double dx[] = {40, 20, 10, 5, 2.5};
  double previous = INFINITY;
  for (int k = 0; k < 5; k++) {
    load(path, NSEG_FIXED_LENGTH, dx[k], &l);
    double error = fabs(steady_soma_voltage(&l.morphology, 0.1) - reference);
    print_message("branching cell, d_X %4.1f um (%d compartments): |V - V(0.5 um)| %.3e mV\n",
                  dx[k], l.morphology.n_compartments, error);
    assert_true(error < previous);
    previous = error;
    unload(&l);
  }
  assert_true(previous < 1e-3);
}

/* Compartment 0's voltage every step: 0.1 nA from 1 ms (mid-step, as NEURON), passive, dt
 * 0.025 ms, for `steps` steps (VALIDATION.md's refinement runs, shorter). */
static double *soma_trace(const struct morphology *m, int steps) {
  const double dt = 0.025;
  struct cable_parameters p = cable_defaults;
  struct channel_set hh = channel_set_hh(PLACE_NONE);
  struct stimulus stim = {.compartment = 0,
                          .amplitude_nA = 0.1,
                          .start_ms = 1 - dt / 2,
                          .stop_ms = 1e9,
                          .n_neurons_total = 1};
  double *v = malloc((size_t)m->n_compartments * sizeof(double));
  double *trace = malloc((size_t)steps * sizeof(double));
  for (int i = 0; i < m->n_compartments; i++)
    v[i] = p.el_mV;
  struct hines_error err;
  for (int s = 0; s < steps; s++) {
    assert_int_equal(reference_simulate(m, &p, &hh, dt, 1, s * dt, &stim, 0, v, &err), HINES_OK);
    trace[s] = v[0];
  }
  free(v);
  return trace;
}

/* --nseg-factor: every section's nseg times K, and a nested refinement of Cha-F-000012 (no soma:
 * current into the middle of a 9-um, 1-um-thick axon, the one shared cell whose d_X ladder is
 * not monotone, VALIDATION.md): d_X 20 um times 1, 3, 9, 27 against times 81, max |dV| at
 * compartment 0 over 20 ms. The error falls about 9 times per level (second order; NEURON:
 * 0.00709, 0.000724, 7.9e-5, 8.7e-6 mV over 200 ms). */
static void nested_refinement_converges_at_second_order(void **state) {
  (void)state;
  const char *source = getenv("HINES_SOURCE_DIR");
  assert_non_null(source);
  char path[4096];
  snprintf(path, sizeof path, "%s/morph/data/Cha-F-000012.CNG.swc", source);
  const int steps = 800;
  struct loaded l;
  load_refined(path, NSEG_FIXED_LENGTH, 20, 81, &l);
  double *reference = soma_trace(&l.morphology, steps);
  unload(&l);
  load(path, NSEG_FIXED_LENGTH, 20, &l);
  const int segments = l.morphology.n_compartments - zero_area_nodes(&l.morphology);
  const int junctions = zero_area_nodes(&l.morphology);
  assert_int_equal(segments, 55); /* NEURON's nseg at d_X 20, summed over the 49 sections */
  unload(&l);
  const int factors[] = {1, 3, 9, 27};
  double previous = INFINITY;
  for (int k = 0; k < 4; k++) {
    load_refined(path, NSEG_FIXED_LENGTH, 20, factors[k], &l);
    assert_int_equal(l.morphology.n_compartments, factors[k] * segments + junctions);
    double *trace = soma_trace(&l.morphology, steps), error = 0;
    for (int s = 0; s < steps; s++)
      error = fmax(error, fabs(trace[s] - reference[s]));
    print_message("Cha-F-000012, d_X 20 um, nseg x%-2d (%d compartments): max |V - V(x81)| "
                  "%.3e mV\n",
                  factors[k], l.morphology.n_compartments, error);
    assert_true(error < previous / 7);
    previous = error;
    free(trace);
    unload(&l);
  }
  assert_true(previous < 2e-5);
  free(reference);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(areas_and_resistances_are_the_truncated_cones),
      cmocka_unit_test(nseg_rules_are_the_cellbuilders),
      cmocka_unit_test(three_point_soma_is_neurons_cylinder),
      cmocka_unit_test(zero_length_section_is_dropped),
      cmocka_unit_test(soma_voltage_is_neurons),
      cmocka_unit_test(uniform_cable_converges_at_second_order),
      cmocka_unit_test(branching_cell_converges_monotonically),
      cmocka_unit_test(nested_refinement_converges_at_second_order),
  };
  return cmocka_run_group_tests(tests, create_folder, remove_folder);
}
