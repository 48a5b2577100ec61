/* Every mono layout through the StarPU CPU codelets equals the sequential solver: the pure solve
 * on fresh random systems, and the fused voltage step against the reference time loop. ctest
 * runs this program once per scheduler (STARPU_SCHED). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <starpu.h>

#include "batch_layout.h"
#include "hines_reference.h"
#include "mono_batch.h"
#include "reference_simulation.h"
#include "testing.h"

static uint64_t seed_state;
static const enum batch_layout_kind layouts[] = {BATCH_LAYOUT_FLAT, BATCH_LAYOUT_INTERLEAVED,
                                                 BATCH_LAYOUT_BLOCK, BATCH_LAYOUT_SHARED};

/* Random tree shapes: a deep chain, a bushy random tree, a comb. */
static void tree_shape(int shape, int n, int *parent) {
  switch (shape) {
  case 0:
    for (int i = 0; i < n; i++)
      parent[i] = i - 1;
    break;
  case 1:
    testing_random_parents(&seed_state, n, parent);
    break;
  default:
    parent[0] = -1;
    for (int i = 1; i < n; i++)
      parent[i] = i % 2 ? (i - 1) / 2 * 2 : i - 1;
    break;
  }
}

static void pure_solve_matches_reference_in_every_layout(void **state) {
  (void)state;
  const int batch_sizes[] = {1, 7, 45, 257};
  const int block_sizes[] = {4, 32};
  const int sizes[] = {1, 13, 120};
  for (size_t s = 0; s < 3; s++)
    for (int shape = 0; shape < 3; shape++) {
      int n = sizes[s];
      int *parent = malloc(n * sizeof(int));
      double *upper = malloc(n * sizeof(double)), *lower = malloc(n * sizeof(double));
      tree_shape(shape, n, parent);
      for (size_t b = 0; b < 4; b++) {
        int neurons = batch_sizes[b];
        size_t values = (size_t)neurons * n;
        double *d = malloc(values * sizeof(double)), *r = malloc(values * sizeof(double));
        double *want = malloc(values * sizeof(double)), *d_ref = malloc(values * sizeof(double));
        /* Each neuron gets its own random diagonal and rhs; upper/lower are shared. */
        for (int k = 0; k < neurons; k++)
          testing_random_hines_values(&seed_state, n, parent, upper, lower, d + (size_t)k * n,
                                      r + (size_t)k * n);
        testing_random_hines_values(&seed_state, n, parent, upper, lower, d_ref, want);
        for (int k = 0; k < neurons; k++) /* keep diagonal dominance for the shared upper/lower */
          for (int i = 0; i < n; i++)
            d[(size_t)k * n + i] += 2.0;
        memcpy(want, r, values * sizeof(double));
        memcpy(d_ref, d, values * sizeof(double));
        for (int k = 0; k < neurons; k++)
          hines_solve_reference(n, parent, upper, lower, d_ref + (size_t)k * n,
                                want + (size_t)k * n);
        for (size_t l = 0; l < 4; l++)
          for (size_t bs = 0; bs < 2; bs++) {
            int per_task = 1 + testing_below(&seed_state, neurons + 3);
            double *dd = malloc(values * sizeof(double)), *rr = malloc(values * sizeof(double));
            memcpy(dd, d, values * sizeof(double));
            memcpy(rr, r, values * sizeof(double));
            struct hines_error err;
            assert_int_equal(mono_solve(n, parent, upper, lower, layouts[l], neurons,
                                        block_sizes[bs], per_task, dd, rr, &err),
                             HINES_OK);
            double error = testing_relative_error((int)values, rr, want);
            if (error > 1e-12)
              fail_msg("layout %s n=%d shape %d neurons %d bs %d per task %d: error %.3e",
                       batch_layout_name(layouts[l]), n, shape, neurons, block_sizes[bs], per_task,
                       error);
            free(dd);
            free(rr);
          }
        free(d), free(r), free(want), free(d_ref);
      }
      free(parent), free(upper), free(lower);
    }
}

static void voltage_steps_match_reference_time_loop(void **state) {
  (void)state;
  const int n = 60, neurons = 37, steps = 40;
  int parent[60];
  tree_shape(1, n, parent);
  struct compartment_geometry geometry[60];
  for (int i = 0; i < n; i++)
    geometry[i] = (struct compartment_geometry){.length_um = 5 + 20 * testing_uniform(&seed_state),
                                                .radius_um = 0.3 + testing_uniform(&seed_state),
                                                .swc_type = 3,
                                                .is_sphere = i == 0};
  struct morphology m;
  struct hines_error err;
  assert_int_equal(morphology_from_tree("random", n, parent, geometry, &m, &err), HINES_OK);
  struct stimulus stim = {.compartment = testing_below(&seed_state, n),
                          .amplitude_nA = 0.2,
                          .start_ms = 0.1,
                          .stop_ms = 0.6,
                          .spread = 0.8};
  for (size_t l = 0; l < 4; l++) {
    struct mono_batch_config config = {
        .morphology = &m,
        .layout = layouts[l],
        .n_neurons = neurons,
        .block_size = 8,
        .neurons_per_task = 10,
        .cpu_group = 4,
        .model = {.cable = cable_defaults, .dt_ms = 0.025, .initial_mV = -65, .stimulus = stim}};
    struct mono_batch *batch;
    assert_int_equal(mono_batch_create(&config, &batch, &err), HINES_OK);
    /* Two runs of the time loop: data stays partitioned and resident in between. */
    assert_int_equal(mono_batch_run(batch, steps / 2, 0.0), HINES_OK);
    assert_int_equal(mono_batch_run(batch, steps / 2, steps / 2 * 0.025), HINES_OK);
    double got[60], want[60];
    for (int k = 0; k < neurons; k += 6) {
      struct stimulus s = stim;
      s.n_neurons_total = neurons;
      for (int i = 0; i < n; i++)
        want[i] = -65;
      assert_int_equal(
          reference_simulate(&m, &cable_defaults, NULL, 0.025, steps, 0, &s, k, want, &err),
          HINES_OK);
      mono_batch_voltage(batch, k, got);
      double error = testing_relative_error(n, got, want);
      if (error > 1e-12)
        fail_msg("layout %s neuron %d: error %.3e", batch_layout_name(layouts[l]), k, error);
      /* The stimulus really moved the voltage, or the comparison proves little. */
      assert_true(fabs(want[stim.compartment] + 65) > 1e-3);
    }
    mono_batch_destroy(batch);
  }
  morphology_free(&m);
}

/* HINES_TEST_CUDA_ONLY=1 runs the same checks on CUDA workers alone (skipped without a GPU). */
static int cuda_only(void) {
  const char *flag = getenv("HINES_TEST_CUDA_ONLY");
  return flag && strcmp(flag, "1") == 0;
}

/* Block-Shared: the block limit a GPU's shared memory allows (a block larger than that is refused
 * before the run by mono_batch_create, see check_shared_block). 232,448 bytes is what an H100
 * or H200 gives a block. */
static void shared_block_limit_follows_shared_memory(void **state) {
  (void)state;
  assert_int_equal(hines_shared_block_limit(232448, 319), 91);  /* 319 x 8 B = 2,552 B a neuron */
  assert_int_equal(hines_shared_block_limit(232448, 3171), 9);  /* the large cell of #19 */
  assert_int_equal(hines_shared_block_limit(232448, 29056), 1); /* 232,448 B: just fits */
  assert_int_equal(hines_shared_block_limit(232448, 29057), 0); /* 232,456 B: not one neuron */
  assert_int_equal(hines_shared_block_limit(232448, 1), 1024);  /* one thread per neuron */
  assert_int_equal(hines_shared_block_limit(0, 10), 0);
}

int main(void) {
  seed_state = testing_seed();
  if (cuda_only()) {
    /* No CPU worker: every task must run on a GPU. */
    setenv("STARPU_NCPU", "0", 1);
    struct starpu_conf conf;
    starpu_conf_init(&conf);
    conf.ncpus = 0;
    if (starpu_init(&conf) != 0 || starpu_cuda_worker_get_count() == 0) {
      fprintf(stderr, "# no CUDA worker: skipped\n");
      return TESTING_SKIP;
    }
    starpu_shutdown();
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(shared_block_limit_follows_shared_memory),
      cmocka_unit_test(pure_solve_matches_reference_in_every_layout),
      cmocka_unit_test(voltage_steps_match_reference_time_loop),
  };
  return cmocka_run_group_tests(tests, testing_starpu_start, testing_starpu_stop);
}
