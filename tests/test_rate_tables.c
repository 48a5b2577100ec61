/* The Hodgkin-Huxley rate table (codelets/hh_channel.h, --hh-rates table) against the exact
 * rates it is built from: one step of each gate over a voltage sweep stays within a stated
 * bound of the exact cnexp step; on a grid point it is the exact step's decay form itself; the
 * ends clamp as NEURON's TABLE does. The sweep also prints how far NEURON's own interpolation
 * (x_inf and tau on the same grid, then exp(-dt/tau)) is from the exact step, for comparison
 * (BENCHMARKS.md, "Rate tables"). Spike counts with tables and exact rates: tests/test_spikes.sh.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hh_channel.h"
#include "testing.h"

static uint64_t seed_state;

/* x_inf and tau of the three gates at v (NEURON's hh.mod rates(), with hh_channel.h's rates). */
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
  worst[0] = worst[1] = 0;
  const int points = 200000;
  for (int p = 0; p < points; p++) {
    const double v = low + (high - low) * testing_uniform(&seed_state);
    for (int start = 0; start < 4; start++) {
      const double x0 = start < 3 ? 0.5 * start : testing_uniform(&seed_state);
      double exact[3] = {x0, x0, x0}, tabled[3] = {x0, x0, x0}, neuron[3] = {x0, x0, x0};
      hh_gates_exact(v, dt, &exact[0], &exact[1], &exact[2]);
      hh_gates_table(table, v, &tabled[0], &tabled[1], &tabled[2]);
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
  double *table = malloc(HH_RATE_TABLE_SIZE * sizeof(double));
  for (int d = 0; d < 2; d++) {
    hh_rate_table_fill(dts[d], table);
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

/* On grid point v_i the table gives x A(v_i) + B(v_i) of hh_decay_coefficients, bit for bit,
 * which is the exact step in decay form (a few ulps from hh_relax's form); v >= 100 mV reads the
 * point at 100 mV and v <= -100 mV the point at -100 mV, as NEURON's TABLE clamps. */
static void grid_points_and_clamping(void **state) {
  (void)state;
  const double dt = 0.025;
  double *table = malloc(HH_RATE_TABLE_SIZE * sizeof(double));
  hh_rate_table_fill(dt, table);
  for (int i = 0; i <= HH_TABLE_INTERVALS; i++) {
    const double v = HH_TABLE_VMIN_MV + i / HH_TABLE_PER_MV;
    double a[3], b[3];
    hh_decay_coefficients(v, dt, a, b);
    const double x0 = testing_uniform(&seed_state);
    double x[3] = {x0, x0, x0}, exact[3] = {x0, x0, x0};
    hh_gates_table(table, v, &x[0], &x[1], &x[2]);
    hh_gates_exact(v, dt, &exact[0], &exact[1], &exact[2]);
    for (int g = 0; g < 3; g++) {
      assert_true(x[g] == fma(x0, a[g], b[g]));
      assert_true(fabs(x[g] - exact[g]) <= 1e-15);
    }
  }
  const double beyond[][2] = {{150.0, 100.0}, {1e6, 100.0}, {-150.0, -100.0}, {-1e6, -100.0}};
  for (int c = 0; c < 4; c++) {
    double x[3] = {0.3, 0.6, 0.2}, y[3] = {0.3, 0.6, 0.2};
    hh_gates_table(table, beyond[c][0], &x[0], &x[1], &x[2]);
    hh_gates_table(table, beyond[c][1], &y[0], &y[1], &y[2]);
    assert_memory_equal(x, y, sizeof x);
  }
  /* A NaN voltage reads a point inside the table (no wild read); the run reports the NaN. */
  double x[3] = {0.3, 0.6, 0.2};
  hh_gates_table(table, NAN, &x[0], &x[1], &x[2]);
  assert_true(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]));
  free(table);
}

int main(void) {
  seed_state = testing_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(table_step_is_close_to_exact),
      cmocka_unit_test(grid_points_and_clamping),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
