/* How accurate is each solver? One implicit step of every neuron is solved three ways from the
 * same double-precision matrix: by the batched solver under test (the level solver of a multi
 * batch, the mono kernels of a mono batch), by the sequential solver (the papers' Algorithm 1 in
 * double) and in long double (hines_solve_reference_extended). The errors of both double solvers
 * against the extended solve are printed per morphology, and the batched solver's must stay
 * within SOLVER_ERROR_FACTOR times the sequential solver's own error plus SOLVER_ERROR_ULPS units
 * of the last place: the bound README.md states. Morphologies: the six cells of morph/data, fresh
 * random trees and the papers' synthetic classes. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hines_reference.h"
#include "mono_batch.h"
#include "morph_spec.h"
#include "multi_batch.h"
#include "synthetic.h"
#include "testing.h"

#define SOLVER_ERROR_FACTOR 2.5
#define SOLVER_ERROR_ULPS 4.0
#define STEPS_BEFORE 4 /* steps run before the measured one, so the state is not uniform */
#define MAX_SHAPES 16

static uint64_t seed_state;

static const struct step_model test_model = {
    .cable = {.cm_uF_per_cm2 = 1.0, .ra_ohm_cm = 100.0, .gl_S_per_cm2 = 1e-4, .el_mV = -65.0},
    .dt_ms = 0.025,
    .initial_mV = -65.0,
    .stimulus =
        {.compartment = 0, .amplitude_nA = 0.5, .start_ms = 0.0, .stop_ms = 1e9, .spread = 0.8},
    .channels = {.placement = PLACE_NONE}};

struct errors {
  double sequential, batched; /* worst relative error against the extended solve */
};

/* Max |a - x| / max |x| over one neuron's compartments. */
static double error_against(int n, const double *a, const long double *x) {
  long double worst = 0, scale = LDBL_MIN;
  for (int i = 0; i < n; i++) {
    worst = fmaxl(worst, fabsl((long double)a[i] - x[i]));
    scale = fmaxl(scale, fabsl(x[i]));
  }
  return (double)(worst / scale);
}

/* The step that took `before` (neuron k's voltages after STEPS_BEFORE steps) to `after`, solved
 * again sequentially and in long double; the worst errors of each double solver go into *e. */
static void measure_step(const struct morphology *m, int k, int n_neurons, const double *before,
                         const double *after, struct errors *e) {
  const int n = m->n_compartments;
  struct cable_coefficients c;
  struct hines_error err;
  assert_int_equal(cable_coefficients_build(m, &test_model.cable, &c, &err), HINES_OK);
  double *diagonal = malloc(n * sizeof *diagonal), *rhs = malloc(n * sizeof *rhs);
  double *sequential = malloc(n * sizeof *sequential);
  long double *extended = malloc(n * sizeof *extended), *scratch = malloc(n * sizeof *scratch);
  assert_true(diagonal && rhs && sequential && extended && scratch);
  struct stimulus stimulus = test_model.stimulus;
  stimulus.n_neurons_total = n_neurons;
  const double injected = stimulus_current(&stimulus, k, STEPS_BEFORE * test_model.dt_ms);
  for (int i = 0; i < n; i++) {
    const struct membrane_constants constants =
        membrane_constants_of(&c, i, &test_model.cable, test_model.dt_ms);
    membrane_row(constants.diagonal_base, constants.c_over_dt, constants.leak_current, before[i],
                 i == stimulus.compartment ? injected : 0.0, &diagonal[i], &rhs[i]);
  }
  hines_solve_reference_extended(n, m->parent, c.off_diagonal, c.off_diagonal, diagonal, rhs,
                                 extended, scratch);
  memcpy(sequential, rhs, n * sizeof *rhs);
  hines_solve_reference(n, m->parent, c.off_diagonal, c.off_diagonal, diagonal, sequential);
  e->sequential = fmax(e->sequential, error_against(n, sequential, extended));
  e->batched = fmax(e->batched, error_against(n, after, extended));
  free(diagonal), free(rhs), free(sequential), free(extended), free(scratch);
  cable_coefficients_free(&c);
}

static void check_bound(const char *solver, const char *shape, int n, const struct errors *e) {
  const double bound = SOLVER_ERROR_FACTOR * e->sequential + SOLVER_ERROR_ULPS * DBL_EPSILON;
  printf("# %-12s %-32s %6d compartments: sequential %.2e, batched %.2e (%.1f ulp vs %.1f)\n",
         solver, shape, n, e->sequential, e->batched, e->sequential / DBL_EPSILON,
         e->batched / DBL_EPSILON);
  if (!(e->batched <= bound))
    fail_msg("%s on %s: error %.3e exceeds %.1f x the sequential solver's %.3e + %.0f ulp", solver,
             shape, e->batched, SOLVER_ERROR_FACTOR, e->sequential, SOLVER_ERROR_ULPS);
}

static int load_shapes(struct morphology *shapes) {
  static const char *const cells[] = {"c91662.swc",           "pyramidal.swc",
                                      "morph_ca1_n120.swc",   "morph_allen_485574832.swc",
                                      "HSN-fluoro02.CNG.swc", "Cha-F-000012.CNG.swc"};
  const char *source = getenv("HINES_SOURCE_DIR");
  assert_non_null(source);
  struct swc_options options = {.warnings = fopen("/dev/null", "w")};
  struct hines_error err;
  int count = 0;
  for (size_t i = 0; i < sizeof cells / sizeof *cells; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/morph/data/%s", source, cells[i]);
    if (swc_load(path, &options, &shapes[count++], &err) != HINES_OK)
      fail_msg("%s", err.message);
  }
  fclose(options.warnings);
  for (int r = 0; r < 3; r++) {
    unsigned seed = (unsigned)(testing_uniform(&seed_state) * 1e9);
    assert_int_equal(synthetic_random(50, 3000, seed, &shapes[count++], &err), HINES_OK);
  }
  assert_int_equal(morphology_load_spec("synthetic:big-high", NULL, &shapes[count++], &err),
                   HINES_OK);
  assert_int_equal(morphology_load_spec("synthetic:fig14:4", NULL, &shapes[count++], &err),
                   HINES_OK);
  return count;
}

/* The level solver (one multi batch of every shape, a few chunks; the level kernels and the
 * branch kernel) against both references. */
static void level_solver_within_bound(void **state) {
  (void)state;
  struct morphology shapes[MAX_SHAPES];
  const int count = load_shapes(shapes), copies = 3, neurons = count * copies;
  /* NCP and CP with the level kernels, NCP with the branch kernel (its regrouped sums) */
  for (int variant = 0; variant < 3; variant++) {
    const int padded = variant == 1;
    const enum level_kernel kernel = variant == 2 ? LEVEL_KERNEL_BRANCHES : LEVEL_KERNEL_LEVELS;
    struct multi_batch_config config = {.morphologies = shapes,
                                        .n_morphologies = count,
                                        .n_neurons = neurons,
                                        .neurons_per_task = 7,
                                        .padded = padded,
                                        .level_kernel = kernel,
                                        .model = test_model};
    struct multi_batch *batch;
    struct hines_error err;
    assert_int_equal(multi_batch_create(&config, &batch, &err), HINES_OK);
    assert_int_equal(multi_batch_run(batch, STEPS_BEFORE, 0.0), HINES_OK);
    double **before = calloc(neurons, sizeof *before), **after = calloc(neurons, sizeof *after);
    for (int k = 0; k < neurons; k++) {
      before[k] = malloc(shapes[k % count].n_compartments * sizeof(double));
      after[k] = malloc(shapes[k % count].n_compartments * sizeof(double));
      multi_batch_voltage(batch, k, before[k]);
    }
    assert_int_equal(multi_batch_run(batch, 1, STEPS_BEFORE * test_model.dt_ms), HINES_OK);
    for (int k = 0; k < neurons; k++)
      multi_batch_voltage(batch, k, after[k]);
    for (int s = 0; s < count; s++) {
      struct errors e = {0, 0};
      for (int k = s; k < neurons; k += count)
        measure_step(&shapes[s], k, neurons, before[k], after[k], &e);
      check_bound(variant == 2 ? "branches NCP"
                  : padded     ? "levels CP"
                               : "levels NCP",
                  shapes[s].name, shapes[s].n_compartments, &e);
    }
    for (int k = 0; k < neurons; k++)
      free(before[k]), free(after[k]);
    free(before), free(after);
    multi_batch_destroy(batch);
  }
  for (int s = 0; s < count; s++)
    morphology_free(&shapes[s]);
}

/* The mono kernels, every layout, on a few of the shapes. */
static void mono_kernels_within_bound(void **state) {
  (void)state;
  struct morphology shapes[MAX_SHAPES];
  const int count = load_shapes(shapes), neurons = 37;
  const enum batch_layout_kind layouts[] = {BATCH_LAYOUT_FLAT, BATCH_LAYOUT_INTERLEAVED,
                                            BATCH_LAYOUT_BLOCK, BATCH_LAYOUT_SHARED};
  for (int s = 0; s < count; s += 2)
    for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++) {
      const struct morphology *m = &shapes[s];
      struct mono_batch_config config = {.morphology = m,
                                         .layout = layouts[l],
                                         .n_neurons = neurons,
                                         .block_size = 8,
                                         .neurons_per_task = 10,
                                         .model = test_model};
      struct mono_batch *batch;
      struct hines_error err;
      assert_int_equal(mono_batch_create(&config, &batch, &err), HINES_OK);
      assert_int_equal(mono_batch_run(batch, STEPS_BEFORE, 0.0), HINES_OK);
      const int n = m->n_compartments;
      double *before = malloc((size_t)neurons * n * sizeof(double));
      double *after = malloc((size_t)neurons * n * sizeof(double));
      for (int k = 0; k < neurons; k++)
        mono_batch_voltage(batch, k, before + (size_t)k * n);
      assert_int_equal(mono_batch_run(batch, 1, STEPS_BEFORE * test_model.dt_ms), HINES_OK);
      for (int k = 0; k < neurons; k++)
        mono_batch_voltage(batch, k, after + (size_t)k * n);
      struct errors e = {0, 0};
      for (int k = 0; k < neurons; k++)
        measure_step(m, k, neurons, before + (size_t)k * n, after + (size_t)k * n, &e);
      char label[64];
      snprintf(label, sizeof label, "mono %s", batch_layout_name(layouts[l]));
      check_bound(label, m->name, n, &e);
      free(before), free(after);
      mono_batch_destroy(batch);
    }
  for (int s = 0; s < count; s++)
    morphology_free(&shapes[s]);
}

int main(void) {
  seed_state = testing_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(level_solver_within_bound),
      cmocka_unit_test(mono_kernels_within_bound),
  };
  return cmocka_run_group_tests(tests, testing_starpu_start, testing_starpu_stop);
}
