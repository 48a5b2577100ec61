/* The channels' rate tables (codelets/mechanisms.h, --hh-rates table) against the exact rates
 * they are built from, for hh and for hh with the M current (km) and Ih: one step of each gate over
 * a voltage sweep stays within a stated bound of the exact cnexp step; on a grid point it is the
 * exact step's decay form itself; the ends clamp as NEURON's TABLE does. The sweep also prints how
 * far NEURON's own interpolation (x_inf and tau on the same grid, then exp(-dt/tau)) is from the
 * exact step, for comparison (BENCHMARKS.md, "Rate tables"). Spike counts with tables and exact
 * rates: tests/test_spikes.sh. The table's rate forms are also checked against hh.mod's and
 * km.mod's and Ih.mod's expressions written out: hh's bit for bit (its rates are those hinestask
 * had before mechanisms were data). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "channel_lanes_cpu.h"
#include "mechanisms.h"
#include "testing.h"

static uint64_t seed_state;

/* Every placed gate of set one step at v: exact rates, or through the table. */
static void gates_exact(const struct channel_set *set, double v, double dt, double *x) {
  for (int m = 0; m < MECHANISM_COUNT; m++)
    if (set->mechanism[m].placement != PLACE_NONE)
      mechanism_gates_exact(&set->mechanism[m], set->mechanism[m].shape, v, dt,
                            x + set->mechanism[m].first_gate, 1);
}
static void gates_table(const struct channel_set *set, const double *table, double v, double *x) {
  double theta;
  const size_t e = rate_table_entry(table, v, RATE_TABLE_PER_GATE * (size_t)set->n_gates, &theta);
  for (int m = 0; m < MECHANISM_COUNT; m++)
    if (set->mechanism[m].placement != PLACE_NONE)
      mechanism_gates_table(set->mechanism[m].shape, table,
                            e + RATE_TABLE_PER_GATE * (size_t)set->mechanism[m].first_gate, theta,
                            x + set->mechanism[m].first_gate, 1);
}

/* x_inf and tau of the three gates at v (NEURON's hh.mod rates(), written out). */
static void inf_tau(double v, double inf[3], double tau[3]) {
  const double alpha[3] = {0.1 * hh_vtrap(-(v + 40.0), 10.0), 0.07 * hines_exp(-(v + 65.0) / 20.0),
                           0.01 * hh_vtrap(-(v + 55.0), 10.0)};
  const double beta[3] = {4.0 * hines_exp(-(v + 65.0) / 18.0),
                          1.0 / (hines_exp(-(v + 35.0) / 10.0) + 1.0),
                          0.125 * hines_exp(-(v + 65.0) / 80.0)};
  for (int g = 0; g < 3; g++) {
    tau[g] = 1.0 / (alpha[g] + beta[g]);
    inf[g] = alpha[g] * tau[g];
  }
}

/* NEURON's step with usetable_hh = 1: x_inf and tau interpolated linearly in 1 mV steps over
 * [-100, 100] (clamped), then cnexp's x += (1 - exp(-dt/tau)) (x_inf - x). */
static void neuron_table_step(double v, double dt, double x[3]) {
  double position = v + 100.0;
  position = position < 0 ? 0 : position > 200 ? 200 : position;
  const int i = position >= 200 ? 199 : (int)position;
  const double theta = position - i;
  double inf0[3], tau0[3], inf1[3], tau1[3];
  inf_tau(-100.0 + i, inf0, tau0);
  inf_tau(-100.0 + i + 1, inf1, tau1);
  for (int g = 0; g < 3; g++) {
    const double inf = inf0[g] + theta * (inf1[g] - inf0[g]);
    const double tau = tau0[g] + theta * (tau1[g] - tau0[g]);
    x[g] += (1.0 - exp(-dt / tau)) * (inf - x[g]);
  }
}

/* The largest difference, over the sweep, of one gate step from the exact step, for the table
 * and for NEURON's interpolation, on [low, high] mV. */
static void sweep(const double *table, double dt, double low, double high, double worst[2]) {
  const struct channel_set hh = channel_set_hh(PLACE_ALL);
  worst[0] = worst[1] = 0;
  const int points = 200000;
  for (int p = 0; p < points; p++) {
    const double v = low + (high - low) * testing_uniform(&seed_state);
    for (int start = 0; start < 4; start++) {
      const double x0 = start < 3 ? 0.5 * start : testing_uniform(&seed_state);
      double exact[3] = {x0, x0, x0}, tabled[3] = {x0, x0, x0}, neuron[3] = {x0, x0, x0};
      gates_exact(&hh, v, dt, exact);
      gates_table(&hh, table, v, tabled);
      neuron_table_step(v, dt, neuron);
      for (int g = 0; g < 3; g++) {
        worst[0] = fmax(worst[0], fabs(tabled[g] - exact[g]));
        worst[1] = fmax(worst[1], fabs(neuron[g] - exact[g]));
      }
    }
  }
}

/* One step of a gate through the table stays within a bound of the exact step, at dt 0.025 ms
 * (the default) and 0.1 ms. Measured (200,000 random voltages x 4 gate values, the largest
 * difference of any gate): 6.2e-5 over [-100, 100] mV and 5.4e-5 over [-80, 40] at dt 0.025,
 * 1.2e-4 and 6.2e-5 at dt 0.1; NEURON's table 1.3e-4 and 6.7e-5, 1.4e-4 and 1.4e-4. The bounds
 * leave the sampling room (the largest difference sits between grid points) and nothing more:
 * linear interpolation's error is h^2/8 max|f''| with h = 1 mV, so a table twice as coarse or a
 * wrong slope breaks them. */
static void table_step_is_close_to_exact(void **state) {
  (void)state;
  const double dts[] = {0.025, 0.1};
  const double bound_full[] = {8e-5, 1.5e-4}, bound_range[] = {7e-5, 8e-5};
  const struct channel_set hh = channel_set_hh(PLACE_ALL);
  double *table = malloc(RATE_TABLE_SIZE(3) * sizeof(double));
  for (int d = 0; d < 2; d++) {
    channel_rate_table_fill(&hh, dts[d], table);
    double full[2], range[2];
    sweep(table, dts[d], -100, 100, full);
    sweep(table, dts[d], -80, 40, range);
    printf("# dt %g ms: one gate step, largest difference from exact rates: decay-form table "
           "%.3g over [-100, 100] mV, %.3g over [-80, 40]; NEURON's (x_inf, tau) table %.3g and "
           "%.3g\n",
           dts[d], full[0], range[0], full[1], range[1]);
    assert_true(full[0] <= bound_full[d]);
    assert_true(range[0] <= bound_range[d]);
  }
  free(table);
}

/* On grid point v_i the table gives x A(v_i) + B(v_i) of gate_decay_coefficients, bit for bit,
 * which is the exact step in decay form (a few ulps from hh_relax's form); v >= 100 mV reads the
 * point at 100 mV and a voltage below the first point (-100 mV, hh.mod's; -150 with ih) that
 * point, as NEURON's TABLE clamps. For hh alone
 * and for hh with km (4 gates an entry, km's after hh's). */
static void grid_points_and_clamping_of(const struct channel_set *set) {
  const double dt = 0.025;
  const int n = set->n_gates;
  double *table = malloc(RATE_TABLE_SIZE(n) * sizeof(double));
  channel_rate_table_fill(set, dt, table);
  const double first = table[RATE_TABLE_FIRST_MV];
  const int intervals = (int)table[RATE_TABLE_HIGH];
  /* hh.mod's -100 mV, or -150 with ih; always up to 100 mV */
  assert_true(first == (set->mechanism[MECHANISM_IH].placement != PLACE_NONE ? -150.0 : -100.0));
  assert_true(first + intervals / RATE_TABLE_PER_MV == RATE_TABLE_VMAX_MV);
  for (int i = 0; i <= intervals; i++) {
    const double v = first + i / RATE_TABLE_PER_MV;
    double a[CHANNELS_MAX_GATES], b[CHANNELS_MAX_GATES];
    for (int m = 0; m < MECHANISM_COUNT; m++)
      for (int g = 0;
           set->mechanism[m].placement != PLACE_NONE && g < set->mechanism[m].shape.n_gates; g++)
        gate_decay_coefficients(&set->mechanism[m], g, v, dt, &a[set->mechanism[m].first_gate + g],
                                &b[set->mechanism[m].first_gate + g]);
    const double x0 = testing_uniform(&seed_state);
    double x[CHANNELS_MAX_GATES], exact[CHANNELS_MAX_GATES];
    for (int g = 0; g < n; g++)
      x[g] = exact[g] = x0;
    gates_table(set, table, v, x);
    gates_exact(set, v, dt, exact);
    for (int g = 0; g < n; g++) {
      assert_true(x[g] == fma(x0, a[g], b[g]));
      assert_true(fabs(x[g] - exact[g]) <= 1e-15);
    }
  }
  const double beyond[][2] = {{150.0, 100.0}, {1e6, 100.0}, {first - 50.0, first}, {-1e6, first}};
  for (int c = 0; c < 4; c++) {
    double x[CHANNELS_MAX_GATES] = {0.3, 0.6, 0.2, 0.4},
           y[CHANNELS_MAX_GATES] = {0.3, 0.6, 0.2, 0.4};
    gates_table(set, table, beyond[c][0], x);
    gates_table(set, table, beyond[c][1], y);
    assert_memory_equal(x, y, sizeof x);
  }
  /* A NaN voltage reads a point inside the table (no wild read); the run reports the NaN. */
  double x[CHANNELS_MAX_GATES] = {0.3, 0.6, 0.2, 0.4};
  gates_table(set, table, NAN, x);
  for (int g = 0; g < n; g++)
    assert_true(isfinite(x[g]));
  free(table);
}

static void grid_points_and_clamping(void **state) {
  (void)state;
  struct channel_set set = channel_set_hh(PLACE_ALL);
  grid_points_and_clamping_of(&set);
  channel_set_place(&set, MECHANISM_KM, PLACE_SOMA);
  assert_int_equal(set.n_gates, 4);
  assert_int_equal(set.mechanism[MECHANISM_KM].first_gate, 3);
  grid_points_and_clamping_of(&set);
  channel_set_place(&set, MECHANISM_IH, PLACE_ALL);
  assert_int_equal(set.n_gates, 5);
  assert_int_equal(set.mechanism[MECHANISM_IH].first_gate, 4);
  grid_points_and_clamping_of(&set);
}

/* hh's table entry computes hh.mod's rates bit for bit (the expressions hinestask computed when
 * hh was its only mechanism), km's entry km.mod's (Mainen & Sejnowski 1996) and ih's Ih.mod's
 * (Kole et al. 2006) to rounding,
 * over random voltages and at the linoids' removable singularities. */
static void table_forms_are_the_mod_files(void **state) {
  (void)state;
  const struct channel_set hh_set = channel_set_hh(PLACE_ALL);
  const struct channel_mechanism *hh = &hh_set.mechanism[MECHANISM_HH];
  const struct channel_mechanism *km = &mechanism_table[MECHANISM_KM].defaults;
  const struct channel_mechanism *ih = &mechanism_table[MECHANISM_IH].defaults;
  for (int p = 0; p < 100000; p++) {
    const double v = p == 0   ? -40.0
                     : p == 1 ? -55.0
                     : p == 2 ? -30.0
                     : p == 3 ? -154.9
                              : -170 + 320 * testing_uniform(&seed_state);
    const double want[6] = {
        0.1 * hh_vtrap(-(v + 40.0), 10.0),    4.0 * hines_exp(-(v + 65.0) / 18.0),
        0.07 * hines_exp(-(v + 65.0) / 20.0), 1.0 / (hines_exp(-(v + 35.0) / 10.0) + 1.0),
        0.01 * hh_vtrap(-(v + 55.0), 10.0),   0.125 * hines_exp(-(v + 65.0) / 80.0)};
    for (int g = 0; g < 3; g++) {
      const double alpha = rate_value(hh->shape.alpha_kind[g], &hh->alpha[g], v);
      const double beta = rate_value(hh->shape.beta_kind[g], &hh->beta[g], v);
      assert_memory_equal(&alpha, &want[2 * g], sizeof alpha);
      assert_memory_equal(&beta, &want[2 * g + 1], sizeof beta);
    }
    /* km.mod: a = Ra (v - tha) / (1 - exp(-(v - tha)/qa)), b = -Rb (v - tha) / (1 - exp((v -
     * tha)/qa)), Ra = Rb = 0.001, tha = -30, qa = 9; at v = tha both are Ra qa. */
    const double x = v + 30.0;
    const double a = fabs(x) < 1e-9 ? 0.009 : 0.001 * x / -expm1(-x / 9.0);
    const double b = fabs(x) < 1e-9 ? 0.009 : -0.001 * x / -expm1(x / 9.0);
    /* the linoid's own cancellation near v = tha (hh.mod's vtrap has it too): 1e-16 / 1e-6 */
    assert_true(fabs(rate_value(km->shape.alpha_kind[0], &km->alpha[0], v) - a) <= 1e-9 * a);
    assert_true(fabs(rate_value(km->shape.beta_kind[0], &km->beta[0], v) - b) <= 1e-9 * b);
    /* Ih.mod (Kole et al. 2006): mAlpha = 0.001 * 6.43 * (v + 154.9) / (exp((v + 154.9) / 11.9)
     * - 1), its limit 0.001 * 6.43 * 11.9 at v = -154.9; mBeta = 0.001 * 193 * exp(v / 33.1). */
    const double y = v + 154.9;
    const double ih_alpha = fabs(y) < 1e-9 ? 0.00643 * 11.9 : 0.00643 * y / expm1(y / 11.9);
    const double ih_beta = 0.193 * exp(v / 33.1);
    assert_true(fabs(rate_value(ih->shape.alpha_kind[0], &ih->alpha[0], v) - ih_alpha) <=
                1e-9 * ih_alpha);
    assert_true(fabs(rate_value(ih->shape.beta_kind[0], &ih->beta[0], v) - ih_beta) <=
                1e-12 * ih_beta);
  }
  /* and the gate's steady state and time constant in the ranges these rates give (worked out
   * by hand from Ih.mod: half activation near -110 mV, mInf(-110) = 0.49; tau(-80) = 55 ms) */
  const double a110 = rate_value(RATE_LINOID, &ih->alpha[0], -110.0);
  const double b110 = rate_value(RATE_EXP, &ih->beta[0], -110.0);
  assert_true(a110 / (a110 + b110) > 0.4 && a110 / (a110 + b110) < 0.6);
  const double a80 = rate_value(RATE_LINOID, &ih->alpha[0], -80.0);
  const double b80 = rate_value(RATE_EXP, &ih->beta[0], -80.0);
  assert_true(1.0 / (a80 + b80) > 50.0 && 1.0 / (a80 + b80) < 60.0);
}

/* rate_table_columns, which the CPU kernels' table forms read instead of each lane's entry
 * (the AVX-512 and AVX transpositions and the copy of the lanes past them), against the table
 * itself: every lane's values in their columns, for any width, offset and number of values
 * (4 per gate, 1 to 4 gates: a mechanism's or a whole set's). The table holds distinct values,
 * so a value from the wrong lane or place fails. */
static void columns_hold_each_lanes_entry(void **state) {
  (void)state;
  enum { table_size = 4096 };
  double *table = malloc(table_size * sizeof *table);
  assert_non_null(table);
  for (int i = 0; i < table_size; i++)
    table[i] = 1.0 + i + testing_uniform(&seed_state) * 0.5;
  static double columns[RATE_TABLE_PER_GATE * MECHANISM_MAX_GATES][CHANNEL_LANES_MAX];
  size_t entry[CHANNEL_LANES_MAX];
  for (int trial = 0; trial < 400; trial++) {
    const int width = 1 + testing_below(&seed_state, CHANNEL_LANES_MAX);
    const int n_values = RATE_TABLE_PER_GATE * (1 + testing_below(&seed_state, 4));
    const size_t first = RATE_TABLE_PER_GATE * (size_t)testing_below(&seed_state, 4);
    for (int k = 0; k < width; k++)
      entry[k] = RATE_TABLE_HEADER + (size_t)testing_below(&seed_state, 3000);
    memset(columns, 0, sizeof columns);
    rate_table_columns(table, entry, first, n_values, width, columns);
    for (int j = 0; j < n_values; j++)
      for (int k = 0; k < width; k++)
        if (columns[j][k] != table[entry[k] + first + (size_t)j])
          fail_msg("width %d, %d values: column %d lane %d holds %.17g, its entry %.17g", width,
                   n_values, j, k, columns[j][k], table[entry[k] + first + (size_t)j]);
  }
  free(table);
}

int main(void) {
  seed_state = testing_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(table_step_is_close_to_exact),
      cmocka_unit_test(grid_points_and_clamping),
      cmocka_unit_test(table_forms_are_the_mod_files),
      cmocka_unit_test(columns_hold_each_lanes_entry),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
