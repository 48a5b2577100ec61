/* The time loop as a neuroscientist uses it: a passive cable reaches its analytic steady state
 * through the whole tasked time loop; a Hodgkin-Huxley soma fires repetitively under a current
 * step and rests near -65 mV; HH batches (mono and multi) follow the sequential reference. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <starpu.h>

#include "mono_batch.h"
#include "multi_batch.h"
#include "reference_simulation.h"
#include "synthetic.h"
#include "testing.h"

static uint64_t seed_state;

static struct morphology cable_morphology(int n, double length_um, double radius_um) {
  int *parent = malloc(n * sizeof(int));
  struct compartment_geometry *g = malloc(n * sizeof *g);
  for (int i = 0; i < n; i++) {
    parent[i] = i - 1;
    g[i] = (struct compartment_geometry){
        .length_um = length_um / n, .radius_um = radius_um, .swc_type = 3};
  }
  struct morphology m;
  struct hines_error err;
  assert_int_equal(morphology_from_tree("cable", n, parent, g, &m, &err), HINES_OK);
  free(parent);
  free(g);
  return m;
}

static void passive_cable_reaches_analytic_steady_state_through_the_time_loop(void **state) {
  (void)state;
  const int n = 100;
  const double length_um = 1000, radius_um = 1, current_nA = 0.05;
  struct morphology m = cable_morphology(n, length_um, radius_um);
  struct cable_parameters p = cable_defaults; /* tau = cm / gl = 10 ms */
  struct mono_batch_config config = {
      .morphology = &m,
      .layout = BATCH_LAYOUT_INTERLEAVED,
      .n_neurons = 5,
      .neurons_per_task = 2,
      .model = {
          .cable = p,
          .dt_ms = 0.5,
          .initial_mV = p.el_mV,
          .stimulus = {.compartment = 0, .amplitude_nA = current_nA, .start_ms = 0, .stop_ms = 1e9},
          .channels = {.placement = PLACE_NONE}}};
  struct mono_batch *batch;
  struct hines_error err;
  assert_int_equal(mono_batch_create(&config, &batch, &err), HINES_OK);
  assert_int_equal(mono_batch_run(batch, 600, 0), HINES_OK); /* 300 ms = 30 tau */
  double v[100];
  mono_batch_voltage(batch, 3, v);
  mono_batch_destroy(batch);
  double a_cm = radius_um * 1e-4, l_cm = length_um * 1e-4;
  double lambda = sqrt(a_cm / p.gl_S_per_cm2 / (2 * p.ra_ohm_cm));
  double ra_per_cm = p.ra_ohm_cm / (M_PI * a_cm * a_cm);
  double worst = 0, scale = 0;
  for (int i = 0; i < n; i++) {
    double x = (i + 0.5) * (length_um / n) * 1e-4;
    double exact = current_nA * 1e-9 * ra_per_cm * lambda * cosh((l_cm - x) / lambda) /
                   sinh(l_cm / lambda) * 1e3;
    worst = fmax(worst, fabs(v[i] - p.el_mV - exact));
    scale = fmax(scale, fabs(exact));
  }
  print_message("cable through the time loop: relative error %.3e (deflection %.3f mV)\n",
                worst / scale, scale);
  assert_true(scale > 1.0);
  assert_true(worst / scale < 1e-4);
  morphology_free(&m);
}

static void hh_soma_fires_repetitively_and_rests_near_minus_65(void **state) {
  (void)state;
  struct compartment_geometry soma = {
      .length_um = 20, .radius_um = 10, .swc_type = 1, .is_sphere = 1};
  int parent = -1;
  struct morphology m;
  struct hines_error err;
  assert_int_equal(morphology_from_tree("soma", 1, &parent, &soma, &m, &err), HINES_OK);
  double area_cm2 = 4 * M_PI * 10e-4 * 10e-4;
  double current_nA = 10e-6 * area_cm2 * 1e9; /* 10 uA/cm^2 */
  struct channel_set hh = channel_set_hh(PLACE_SOMA);
  struct mono_batch_config config = {.morphology = &m,
                                     .layout = BATCH_LAYOUT_BLOCK,
                                     .block_size = 4,
                                     .n_neurons = 3,
                                     .model = {.cable = cable_defaults,
                                               .dt_ms = 0.025,
                                               .initial_mV = -65,
                                               .stimulus = {.compartment = 0,
                                                            .amplitude_nA = current_nA,
                                                            .start_ms = 20,
                                                            .stop_ms = 120},
                                               .channels = hh}};
  struct mono_batch *batch;
  assert_int_equal(mono_batch_create(&config, &batch, &err), HINES_OK);
  int spikes = 0, steps = 6000; /* 150 ms */
  double peak = -1e9, previous = -65, rest_worst = 0, v;
  for (int s = 0; s < steps; s++) {
    assert_int_equal(mono_batch_run(batch, 1, s * 0.025), HINES_OK);
    mono_batch_voltage(batch, 1, &v);
    double t = (s + 1) * 0.025;
    if (t < 20)
      rest_worst = fmax(rest_worst, fabs(v + 65));
    if (t >= 20 && t < 120) {
      spikes += previous < 0 && v >= 0;
      peak = fmax(peak, v);
    }
    previous = v;
  }
  mono_batch_destroy(batch);
  print_message("HH soma: %d spikes in 100 ms, peak %.1f mV, rest within %.2f mV of -65\n", spikes,
                peak, rest_worst);
  assert_true(spikes >= 4);
  assert_true(peak > 20);
  assert_true(rest_worst < 2.0);
  /* and exactly what the sequential reference computes */
  struct stimulus stim = config.model.stimulus;
  stim.n_neurons_total = 3;
  double want = -65;
  assert_int_equal(
      reference_simulate(&m, &cable_defaults, &hh, 0.025, steps, 0, &stim, 1, &want, &err),
      HINES_OK);
  assert_true(fabs(want - v) < 1e-9);
  morphology_free(&m);
}

static void hh_everywhere_batches_follow_the_reference(void **state) {
  (void)state;
  struct morphology shapes[3];
  struct hines_error err;
  for (int i = 0; i < 3; i++)
    assert_int_equal(
        synthetic_random(30, 200, (unsigned)(testing_uniform(&seed_state) * 1e9), &shapes[i], &err),
        HINES_OK);
  struct channel_set hh = channel_set_hh(PLACE_ALL);
  struct stimulus stim = {
      .compartment = 0, .amplitude_nA = 2.0, .start_ms = 0.5, .stop_ms = 1e9, .spread = 0.6};
  const int neurons = 11, steps = 400;
  /* mono: every layout */
  for (int layout = 0; layout < 4; layout++) {
    struct mono_batch_config config = {.morphology = &shapes[0],
                                       .layout = layout,
                                       .block_size = 4,
                                       .n_neurons = neurons,
                                       .neurons_per_task = 3,
                                       .cpu_group = 2,
                                       .model = {.cable = cable_defaults,
                                                 .dt_ms = 0.025,
                                                 .initial_mV = -65,
                                                 .stimulus = stim,
                                                 .channels = hh}};
    struct mono_batch *batch;
    assert_int_equal(mono_batch_create(&config, &batch, &err), HINES_OK);
    assert_int_equal(mono_batch_run(batch, steps, 0), HINES_OK);
    for (int k = 0; k < neurons; k += 5) {
      int n = shapes[0].n_compartments;
      double *got = malloc(n * sizeof(double)), *want = malloc(n * sizeof(double));
      mono_batch_voltage(batch, k, got);
      for (int i = 0; i < n; i++)
        want[i] = -65;
      struct stimulus s = stim;
      s.n_neurons_total = neurons;
      assert_int_equal(
          reference_simulate(&shapes[0], &cable_defaults, &hh, 0.025, steps, 0, &s, k, want, &err),
          HINES_OK);
      double error = testing_relative_error(n, got, want);
      if (error > 1e-9)
        fail_msg("mono layout %d neuron %d: error %.3e", layout, k, error);
      free(got), free(want);
    }
    mono_batch_destroy(batch);
  }
  /* multi: both task shapes */
  for (int level_tasks = 0; level_tasks < 2; level_tasks++) {
    struct multi_batch_config config = {.morphologies = shapes,
                                        .n_morphologies = 3,
                                        .n_neurons = neurons,
                                        .neurons_per_task = 4,
                                        .level_tasks = level_tasks,
                                        .model = {.cable = cable_defaults,
                                                  .dt_ms = 0.025,
                                                  .initial_mV = -65,
                                                  .stimulus = stim,
                                                  .channels = hh}};
    struct multi_batch *batch;
    assert_int_equal(multi_batch_create(&config, &batch, &err), HINES_OK);
    assert_int_equal(multi_batch_run(batch, steps, 0), HINES_OK);
    for (int k = 0; k < neurons; k++) {
      const struct morphology *m = &shapes[k % 3];
      int n = m->n_compartments;
      double *got = malloc(n * sizeof(double)), *want = malloc(n * sizeof(double));
      multi_batch_voltage(batch, k, got);
      for (int i = 0; i < n; i++)
        want[i] = -65;
      struct stimulus s = stim;
      s.n_neurons_total = neurons;
      assert_int_equal(
          reference_simulate(m, &cable_defaults, &hh, 0.025, steps, 0, &s, k, want, &err),
          HINES_OK);
      double error = testing_relative_error(n, got, want);
      if (error > 1e-9)
        fail_msg("multi (level tasks %d) neuron %d: error %.3e", level_tasks, k, error);
      /* the channels did something: the soma left rest */
      assert_true(fabs(want[0] + 65) > 1.0);
      free(got), free(want);
    }
    multi_batch_destroy(batch);
  }
  for (int i = 0; i < 3; i++)
    morphology_free(&shapes[i]);
}

/* A run that blows up is reported with the neuron and compartment, not passed on silently. */
static void nonfinite_voltages_are_found_and_located(void **state) {
  (void)state;
  struct morphology m;
  struct hines_error err;
  assert_int_equal(synthetic_class("small-low", 1, &m, &err), HINES_OK);
  struct channel_set hh = channel_set_hh(PLACE_ALL);
  struct mono_batch_config config = {
      .morphology = &m,
      .layout = BATCH_LAYOUT_INTERLEAVED,
      .n_neurons = 11,
      .neurons_per_task = 4,
      .model = {.cable = cable_defaults,
                .dt_ms = 0.025,
                .initial_mV = -65,
                .stimulus = {.compartment = 0, .start_ms = 0, .stop_ms = 1e9},
                .channels = hh}};
  struct mono_batch *batch;
  assert_int_equal(mono_batch_create(&config, &batch, &err), HINES_OK);
  int neuron = -1, compartment = -1;
  assert_int_equal(mono_batch_run(batch, 20, 0), HINES_OK);
  assert_int_equal(mono_batch_find_nonfinite(batch, &neuron, &compartment), 0);
  mono_batch_destroy(batch);
  /* the same batch driven by an overflowing stimulus: every neuron blows up, and the first one
   * must be the one reported */
  config.model.stimulus.amplitude_nA = 1e308;
  assert_int_equal(mono_batch_create(&config, &batch, &err), HINES_OK);
  assert_int_equal(mono_batch_run(batch, 20, 0), HINES_OK);
  assert_int_equal(mono_batch_find_nonfinite(batch, &neuron, &compartment), 1);
  assert_int_equal(neuron, 0);
  assert_true(compartment >= 0 && compartment < m.n_compartments);
  mono_batch_destroy(batch);
  /* one neuron of a later chunk alone blows up (its own stimulus, a sweep): that one is found */
  for (int layout = 0; layout < 2; layout++) {
    double sweep[11 * NEURON_PARAMETER_COUNT] = {0};
    for (int k = 0; k < 11; k++)
      sweep[k * NEURON_PARAMETER_COUNT + NEURON_STIM_AMP] = k == 6 ? 1e308 : 0.5;
    config.layout = layout ? BATCH_LAYOUT_BLOCK : BATCH_LAYOUT_INTERLEAVED;
    config.block_size = 2;
    config.sweep = sweep;
    config.swept[NEURON_STIM_AMP] = 1;
    assert_int_equal(mono_batch_create(&config, &batch, &err), HINES_OK);
    assert_int_equal(mono_batch_run(batch, 20, 0), HINES_OK);
    neuron = compartment = -1;
    assert_int_equal(mono_batch_find_nonfinite(batch, &neuron, &compartment), 1);
    assert_int_equal(neuron, 6);
    assert_true(compartment >= 0 && compartment < m.n_compartments);
    mono_batch_destroy(batch);
  }
  morphology_free(&m);
}

int main(void) {
  seed_state = testing_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(passive_cable_reaches_analytic_steady_state_through_the_time_loop),
      cmocka_unit_test(hh_soma_fires_repetitively_and_rests_near_minus_65),
      cmocka_unit_test(hh_everywhere_batches_follow_the_reference),
      cmocka_unit_test(nonfinite_voltages_are_found_and_located),
  };
  return cmocka_run_group_tests(tests, testing_starpu_start, testing_starpu_stop);
}
