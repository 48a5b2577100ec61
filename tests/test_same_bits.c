/* Same bits wherever a neuron's step runs (issue #18): with Hodgkin-Huxley channels everywhere
 * and a stimulus that fires the cells, a neuron's voltages after 200 steps must not change by a
 * single bit with
 *   - the mono CPU kernels' vector width (cpu_group 1, 7, 8, 32, 64), the neurons per task, the
 *     layout (flat runs width 1, scalar; the others vectorise across neurons);
 *   - the level solver's chunking (neurons per task, parts per task, per-level or chunk tasks, a
 *     trunk or none, padded or not) and its kernel (per level, or the cell-block kernel's CPU
 *     emulation with any number of neurons a block);
 *   - a parameter sweep (--params: every neuron its own membrane, channels and stimulus) the same
 *     way;
 *   - the vector kernel or the scalar thread body the CUDA kernels run (hines_step_one and
 *     hines_solve_one, here compiled for the CPU: the CPU-side stand-in for a GPU thread, since
 *     both compilers round every operation alike without contraction, and the explicit fma of
 *     the kernels is correctly rounded on both).
 * Each with the gates' rates computed exactly and through the rate table (--hh-rates).
 * It prints one digest per kind of batch: tests/same_digest.sh runs it under two schedulers with
 * one seed and requires the same digests, and scripts/gpu_run.sh check-bits on CUDA workers,
 * where they must equal the CPU workers' digests. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <starpu.h>

#include "hines_mono_kernels.h"
#include "mono_batch.h"
#include "multi_batch.h"
#include "swc.h"
#include "synthetic.h"
#include "testing.h"

static uint64_t seed_state;
static const int steps = 200;
static const double dt = 0.025;

static uint64_t digest(const double *values, size_t n, uint64_t hash) {
  for (size_t i = 0; i < n; i++) {
    uint64_t bits;
    memcpy(&bits, &values[i], sizeof bits);
    hash = (hash ^ bits) * 1099511628211ull;
  }
  return hash;
}

/* 1 (and the first difference) when two runs differ in a bit, else 0; neuron < 0: a whole
 * buffer. */
static int report_difference(const double *got, const double *want, size_t n, const char *what,
                             int neuron) {
  if (memcmp(got, want, n * sizeof(double)) == 0)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (memcmp(&got[i], &want[i], sizeof(double)) != 0) {
      if (neuron >= 0)
        print_error("%s: neuron %d compartment %zu: %.17g, expected %.17g (difference %.3e)\n",
                    what, neuron, i, got[i], want[i], got[i] - want[i]);
      else
        print_error("%s: value %zu: %.17g, expected %.17g (difference %.3e)\n", what, i, got[i],
                    want[i], got[i] - want[i]);
      break;
    }
  return 1;
}

/* A random tree with varied geometry (so that every row's constants differ). */
static void random_morphology(int n, struct morphology *m) {
  int *parent = malloc((size_t)n * sizeof(int));
  struct compartment_geometry *geometry = malloc((size_t)n * sizeof *geometry);
  testing_random_parents(&seed_state, n, parent);
  for (int i = 0; i < n; i++)
    geometry[i] = (struct compartment_geometry){.length_um = 5 + 20 * testing_uniform(&seed_state),
                                                .radius_um = 0.3 + testing_uniform(&seed_state),
                                                .swc_type = 3,
                                                .is_sphere = i == 0};
  struct hines_error err;
  assert_int_equal(morphology_from_tree("random", n, parent, geometry, m, &err), HINES_OK);
  free(parent);
  free(geometry);
}

static const int rate_kinds[] = {HH_RATES_EXACT, HH_RATES_TABLE};
static const char *const rate_names[] = {"exact", "table"}; /* enum hh_rates */

/* Where the batch tests put the M current beside hh everywhere (PLACE_NONE: hh alone, the
 * kernels' specialisation; otherwise their generic mechanism loop). */
static int model_km = PLACE_NONE;

static struct step_model spiking_model(int stimulated_compartment, int hh_rates) {
  struct channel_set hh = channel_set_hh(PLACE_ALL);
  channel_set_place(&hh, MECHANISM_KM, model_km);
  hh.mechanism[MECHANISM_KM].gbar[0] = 0.02; /* enough to change the voltages */
  return (struct step_model){.cable = cable_defaults,
                             .dt_ms = dt,
                             .initial_mV = -65,
                             .stimulus = {.compartment = stimulated_compartment,
                                          .amplitude_nA = 1.0,
                                          .start_ms = 0.1,
                                          .stop_ms = 1e9,
                                          .spread = 0.8},
                             .channels = hh,
                             .hh_rates = hh_rates};
}

/* ---------------------------------------------------------------- mono batches */

struct mono_variant {
  enum batch_layout_kind layout;
  int block_size, neurons_per_task, cpu_group;
};

/* A parameter sweep for run_mono (NULL: none): every parameter of every neuron its own. */
static double *mono_sweep;
/* The block batches' chunks run_mono stores interleaved (runtime/mono_batch.h). */
static int mono_interleaved;

/* Random per-neuron values of every parameter (rows of NEURON_PARAMETER_COUNT), about the
 * spiking model's, that keep the cells firing. */
static double *random_sweep(int neurons) {
  double *sweep = malloc((size_t)neurons * NEURON_PARAMETER_COUNT * sizeof(double));
  for (int k = 0; k < neurons; k++) {
    double *row = sweep + (size_t)k * NEURON_PARAMETER_COUNT;
#define AROUND(value, spread) ((value) * (1.0 + (spread) * (testing_uniform(&seed_state) - 0.5)))
    row[NEURON_CM] = AROUND(1.0, 0.5);
    row[NEURON_RA] = AROUND(100.0, 1.0);
    row[NEURON_GL] = AROUND(1e-4, 1.0);
    row[NEURON_EL] = AROUND(-65.0, 0.1);
    /* every mechanism's conductances and reversals about the table's (hh's as before) */
    struct channel_set defaults;
    channel_set_init(&defaults);
    for (int p = NEURON_CHANNEL_FIRST; p < NEURON_PARAMETER_COUNT; p++) {
      const int reversal = neuron_parameter_slot(p) >= MECHANISM_MAX_CURRENTS;
      row[p] = AROUND(*channel_parameter_in(&defaults, p), reversal ? 0.1 : 0.5);
    }
    row[NEURON_GL_HH] = AROUND(3e-4, 1.0);
    row[NEURON_STIM_AMP] = AROUND(1.0, 1.0);
    row[NEURON_STIM_START] = AROUND(0.5, 1.0);
    row[NEURON_STIM_STOP] = row[NEURON_STIM_START] + AROUND(3.0, 1.0);
#undef AROUND
  }
  return sweep;
}

static double *run_mono(const struct morphology *m, int neurons, const struct mono_variant *v,
                        int stimulated, int hh_rates) {
  struct mono_batch_config config = {.morphology = m,
                                     .layout = v->layout,
                                     .n_neurons = neurons,
                                     .block_size = v->block_size,
                                     .neurons_per_task = v->neurons_per_task,
                                     .cpu_group = v->cpu_group,
                                     .interleaved_chunks = mono_interleaved,
                                     .model = spiking_model(stimulated, hh_rates),
                                     .sweep = mono_sweep};
  for (int p = 0; p < NEURON_PARAMETER_COUNT; p++)
    config.swept[p] = mono_sweep != NULL;
  struct mono_batch *batch;
  struct hines_error err;
  assert_int_equal(mono_batch_create(&config, &batch, &err), HINES_OK);
  /* Two calls: the time of the second starts where the first stopped. */
  assert_int_equal(mono_batch_run(batch, steps / 2, 0.0), HINES_OK);
  assert_int_equal(mono_batch_run(batch, steps - steps / 2, steps / 2 * dt), HINES_OK);
  const int n = m->n_compartments;
  double *v_mV = malloc((size_t)neurons * n * sizeof(double));
  for (int k = 0; k < neurons; k++)
    mono_batch_voltage(batch, k, v_mV + (size_t)k * n);
  mono_batch_destroy(batch);
  return v_mV;
}

/* Runs variant v of the batch and counts the neurons whose voltages differ by as much as a bit
 * from `want`, each reported with `label` and the variant. */
static int mono_variant_differences(const struct morphology *m, int neurons,
                                    const struct mono_variant *v, int stimulated, int hh_rates,
                                    const double *want, const char *label) {
  const int n = m->n_compartments;
  double *got = run_mono(m, neurons, v, stimulated, hh_rates);
  char what[200];
  snprintf(what, sizeof what,
           "%s, layout %s block %d, %d neurons per task, cpu_group %d, %d chunks interleaved",
           label, batch_layout_name(v->layout), v->block_size, v->neurons_per_task, v->cpu_group,
           mono_interleaved);
  int failures = 0;
  for (int k = 0; k < neurons; k++)
    failures += report_difference(got + (size_t)k * n, want + (size_t)k * n, n, what, k);
  free(got);
  return failures;
}

/* Block batches whose first chunks are stored interleaved (the GPU's chunks beside the cores'
 * share): chunks of two blocks of 8, the first two interleaved, then all three (the last holding
 * the padding lanes of 45 neurons); the differences from `want`. */
static int stored_interleaved_differences(const struct morphology *m, int neurons, int cpu_group,
                                          int stimulated, int hh_rates, const double *want,
                                          const char *label) {
  const struct mono_variant blocks = {BATCH_LAYOUT_BLOCK, 8, 16, cpu_group};
  int failures = 0;
  for (mono_interleaved = 2; mono_interleaved <= 3; mono_interleaved++)
    failures += mono_variant_differences(m, neurons, &blocks, stimulated, hh_rates, want, label);
  mono_interleaved = 0;
  return failures;
}

static void mono_bits_do_not_depend_on_groups_tasks_or_layout(void **state) {
  (void)state;
  const int n = 90, neurons = 45;
  struct morphology m;
  random_morphology(n, &m);
  const int stimulated = 0; /* the soma: the cells fire whatever their random shape */
  const struct mono_variant reference = {BATCH_LAYOUT_INTERLEAVED, 32, 0, 32};
  const struct mono_variant variants[] = {
      {BATCH_LAYOUT_INTERLEAVED, 32, 0, 1},   {BATCH_LAYOUT_INTERLEAVED, 32, 0, 8},
      {BATCH_LAYOUT_INTERLEAVED, 32, 0, 7},   {BATCH_LAYOUT_INTERLEAVED, 32, 0, 64},
      {BATCH_LAYOUT_INTERLEAVED, 32, 1, 32},  {BATCH_LAYOUT_INTERLEAVED, 32, 10, 8},
      {BATCH_LAYOUT_INTERLEAVED, 32, 45, 32}, {BATCH_LAYOUT_FLAT, 32, 0, 32},
      {BATCH_LAYOUT_FLAT, 32, 7, 1},          {BATCH_LAYOUT_BLOCK, 8, 0, 32},
      {BATCH_LAYOUT_BLOCK, 32, 13, 8},        {BATCH_LAYOUT_SHARED, 16, 0, 1},
      {BATCH_LAYOUT_SHARED, 32, 20, 32},
  };
  /* With exact rates (no longer the default) a few variants only: the scalar width-1 path, an
   * odd width, flat and shared; the rates change the channel call, not how the variants cut the
   * loops around it, and the whole list twice took the pheft run of this test near its time
   * limit. */
  const int exact_variants[] = {0, 2, 8, 11};
  int failures = 0;
  for (int rates = 0; rates < 2; rates++) {
    double *want = run_mono(&m, neurons, &reference, stimulated, rate_kinds[rates]);
    /* The cells fired: after a spike the potassium current takes the membrane below rest
     * (-65 mV), which a depolarising current alone never does. */
    double lowest = INFINITY, highest = -INFINITY;
    for (size_t i = 0; i < (size_t)neurons * n; i++)
      lowest = fmin(lowest, want[i]), highest = fmax(highest, want[i]);
    printf("# mono HH batch, %s rates: voltages in [%.3f, %.3f] mV after %d steps\n",
           rate_names[rates], lowest, highest, steps);
    assert_true(lowest < -70.0);
    const size_t count = rate_kinds[rates] == HH_RATES_EXACT
                             ? sizeof exact_variants / sizeof exact_variants[0]
                             : sizeof variants / sizeof variants[0];
    for (size_t c = 0; c < count; c++) {
      const size_t i = rate_kinds[rates] == HH_RATES_EXACT ? (size_t)exact_variants[c] : c;
      char label[40];
      snprintf(label, sizeof label, "%s rates", rate_names[rates]);
      failures += mono_variant_differences(&m, neurons, &variants[i], stimulated, rate_kinds[rates],
                                           want, label);
    }
    char label[40];
    snprintf(label, sizeof label, "%s rates", rate_names[rates]);
    failures +=
        stored_interleaved_differences(&m, neurons, 8, stimulated, rate_kinds[rates], want, label);
    printf("# mono HH batch, %s rates: %d neurons x %d compartments, %zu variants; result digest "
           "%016llx\n",
           rate_names[rates], neurons, n, count,
           (unsigned long long)digest(want, (size_t)neurons * n, 14695981039346656037ull));
    free(want);
  }
  morphology_free(&m);
  assert_int_equal(failures, 0);
}

/* The same with a parameter sweep (--params): every neuron its own membrane, channels and
 * stimulus (the kernels' membrane factors and per-lane values), on every layout and width. */
static void mono_sweep_bits_do_not_depend_on_groups_tasks_or_layout(void **state) {
  (void)state;
  const int n = 70, neurons = 45;
  struct morphology m;
  random_morphology(n, &m);
  mono_sweep = random_sweep(neurons);
  const struct mono_variant reference = {BATCH_LAYOUT_INTERLEAVED, 32, 0, 32};
  const struct mono_variant variants[] = {
      {BATCH_LAYOUT_INTERLEAVED, 32, 0, 1},   {BATCH_LAYOUT_INTERLEAVED, 32, 0, 7},
      {BATCH_LAYOUT_INTERLEAVED, 32, 10, 64}, {BATCH_LAYOUT_FLAT, 32, 7, 1},
      {BATCH_LAYOUT_BLOCK, 8, 0, 32},         {BATCH_LAYOUT_BLOCK, 32, 13, 8},
      {BATCH_LAYOUT_SHARED, 16, 0, 1},        {BATCH_LAYOUT_SHARED, 32, 20, 32},
  };
  int failures = 0;
  for (int rates = 0; rates < 2; rates++) {
    double *want = run_mono(&m, neurons, &reference, 0, rate_kinds[rates]);
    double lowest = INFINITY;
    for (size_t i = 0; i < (size_t)neurons * n; i++)
      lowest = fmin(lowest, want[i]);
    assert_true(lowest < -70.0); /* the cells fired */
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
      char label[40];
      snprintf(label, sizeof label, "sweep, %s rates", rate_names[rates]);
      failures +=
          mono_variant_differences(&m, neurons, &variants[i], 0, rate_kinds[rates], want, label);
    }
    char label[40];
    snprintf(label, sizeof label, "sweep, %s rates", rate_names[rates]);
    failures += stored_interleaved_differences(&m, neurons, 7, 0, rate_kinds[rates], want, label);
    printf("# mono HH sweep, %s rates: %d neurons x %d compartments, %zu variants; result digest "
           "%016llx\n",
           rate_names[rates], neurons, n, sizeof variants / sizeof variants[0],
           (unsigned long long)digest(want, (size_t)neurons * n, 14695981039346656037ull));
    free(want);
  }
  free(mono_sweep);
  mono_sweep = NULL;
  morphology_free(&m);
  assert_int_equal(failures, 0);
}

/* ---------------------------------------------------------------- vector kernel vs thread body */

/* The channel sets the kernel tests step: hh, km and ih each nowhere, on the soma or
 * everywhere (hh alone: the kernels' specialisation; with another: their generic mechanism
 * loop). */
static const int channel_configurations[][3] = {
    {PLACE_NONE, PLACE_NONE, PLACE_NONE}, {PLACE_SOMA, PLACE_NONE, PLACE_NONE},
    {PLACE_ALL, PLACE_NONE, PLACE_NONE},  {PLACE_ALL, PLACE_SOMA, PLACE_NONE},
    {PLACE_SOMA, PLACE_ALL, PLACE_NONE},  {PLACE_ALL, PLACE_ALL, PLACE_NONE},
    {PLACE_NONE, PLACE_SOMA, PLACE_NONE}, {PLACE_ALL, PLACE_SOMA, PLACE_ALL},
    {PLACE_NONE, PLACE_NONE, PLACE_ALL}};
#define CHANNEL_CONFIGURATIONS (sizeof channel_configurations / sizeof channel_configurations[0])

/* args->channels set to configuration c (km with a conductance that changes the spikes), and
 * the coefficients' rate table filled for it. */
static void use_channels(struct step_arguments *args, size_t c, double *coefficients, int n) {
  channel_set_place(&args->channels, MECHANISM_HH, channel_configurations[c][0]);
  channel_set_place(&args->channels, MECHANISM_KM, channel_configurations[c][1]);
  channel_set_place(&args->channels, MECHANISM_IH, channel_configurations[c][2]);
  args->channels.mechanism[MECHANISM_KM].gbar[0] = 0.02;
  args->channels.mechanism[MECHANISM_IH].gbar[0] = 0.002;
  args->gates_geometry.n_compartments = args->channels.n_gates * n;
  channel_rate_table_fill(&args->channels, dt, coefficients + (size_t)COEF_COUNT * n);
}

/* Steps one interleaved batch (initial_mV, gates at rest) `steps` times with the CPU kernel in
 * groups of `group` neurons and with the thread body one neuron at a time (each neuron's own
 * values loaded as a CUDA thread loads them when `sweep` is given), then asserts the same bits. */
static void step_kernels_agree(int n, int neurons, const int *topology, const double *coefficients,
                               struct step_arguments *args, double initial_mV,
                               const struct neuron_sweep *sweep, int group, const char *what) {
  const size_t values = (size_t)n * neurons;
  double *v_vector = malloc(values * sizeof(double)), *v_scalar = malloc(values * sizeof(double));
  double *work = malloc(values * sizeof(double));
  const int n_gates = args->channels.n_gates;
  double *g_vector = malloc(((size_t)n_gates * values + 1) * sizeof(double)),
         *g_scalar = malloc(((size_t)n_gates * values + 1) * sizeof(double));
  double rest[CHANNELS_MAX_GATES];
  channels_rest(&args->channels, initial_mV, rest, 1);
  for (size_t i = 0; i < values; i++) {
    v_vector[i] = v_scalar[i] = initial_mV;
    for (int g = 0; g < n_gates; g++)
      g_vector[g * values + i] = g_scalar[g * values + i] = rest[g];
  }
  for (int s = 0; s < steps; s++) {
    args->time_ms = s * dt;
    for (int k = 0; k < neurons; k += group)
      hines_step_group_cpu(topology, coefficients, args, v_vector, work, g_vector, sweep, (size_t)k,
                           neurons - k < group ? neurons - k : group, k);
    for (int k = 0; k < neurons; k++) {
      struct neuron_own mine = {.channels = args->channels, .stimulus = args->stimulus};
      /* as the CUDA sweep kernels: hh's classic numbers only, and hh's code only, in a run of
       * hh alone whose sweep has no other channel column */
      const int hh_only =
          sweep && args->channels.hh_only && neuron_columns_classic_hh(&sweep->columns);
      if (sweep)
        neuron_own_load(&sweep->columns, sweep->values + k, sweep->ld, &args->channels,
                        &args->stimulus, &mine, hh_only ? NEURON_OWN_CLASSIC_HH : NEURON_OWN_ANY);
      hines_step_one(n, topology, coefficients, v_scalar + k, (size_t)neurons, work + k,
                     (size_t)neurons, stimulus_current(&mine.stimulus, k, args->time_ms),
                     args->stimulus.compartment, args, &mine.channels,
                     sweep && sweep->columns.membrane ? &mine.membrane : NULL, g_scalar + k,
                     (size_t)neurons, hh_only, 1);
    }
  }
  assert_int_equal(report_difference(v_vector, v_scalar, values, what, -1), 0);
  assert_int_equal(report_difference(g_vector, g_scalar, (size_t)n_gates * values, what, -1), 0);
  free(v_vector), free(v_scalar), free(work), free(g_vector), free(g_scalar);
}

/* The CPU kernel (groups of `group` neurons, vectorised) and the CUDA kernels' thread body
 * (hines_step_one, one neuron at a time, scalar) on one interleaved batch, outside StarPU. */
static void vector_kernel_equals_thread_body(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  const int n = 120, neurons = 77;
  struct morphology m;
  random_morphology(n, &m);
  int *topology = mono_topology_build(n, m.parent);
  double *coefficients = malloc(mono_coefficients_size(n) * sizeof(double));
  struct hines_error err;
  assert_int_equal(mono_coefficients_fill(&m, &cable_defaults, dt, coefficients, &err), HINES_OK);
  const size_t values = (size_t)n * neurons;
  const struct step_model model = spiking_model(testing_below(&seed_state, n), HH_RATES_EXACT);
  struct step_arguments args = {
      .geometry = {n, neurons, BATCH_LAYOUT_INTERLEAVED, 32, (size_t)neurons},
      .stimulus = model.stimulus,
      .channels = model.channels,
      .gates_geometry = {0, neurons, BATCH_LAYOUT_INTERLEAVED, 32, (size_t)neurons},
      .first_neuron = 0,
      .dt_ms = dt};
  args.stimulus.n_neurons_total = neurons;
  const int groups[] = {1, 8, 32, 64, 13};
  /* every channel configuration: group 1 assembles its rows first, its soma's channels apart */
  for (int rates = 0; rates < 2; rates++)
    for (size_t c = 0; c < CHANNEL_CONFIGURATIONS; c++)
      for (size_t gi = 0; gi < sizeof groups / sizeof groups[0]; gi++) {
        use_channels(&args, c, coefficients, n);
        args.hh_rates = rate_kinds[rates];
        char what[160];
        snprintf(what, sizeof what,
                 "step kernel, groups of %d, hh placement %d, km placement %d, ih placement %d, "
                 "%s rates, against the thread body",
                 groups[gi], channel_configurations[c][0], channel_configurations[c][1],
                 channel_configurations[c][2], rate_names[rates]);
        step_kernels_agree(n, neurons, topology, coefficients, &args, model.initial_mV, NULL,
                           groups[gi], what);
      }
  /* The pure solve (the --verify path's kernel) the same way. */
  double *d = malloc(values * sizeof(double)), *r_vector = malloc(values * sizeof(double));
  double *d_copy = malloc(values * sizeof(double)), *r_scalar = malloc(values * sizeof(double));
  for (size_t i = 0; i < values; i++) {
    d[i] = d_copy[i] = 10.0 + testing_uniform(&seed_state);
    r_vector[i] = r_scalar[i] = 2.0 * testing_uniform(&seed_state) - 1.0;
  }
  for (int k = 0; k < neurons; k += 32)
    hines_solve_group_cpu(topology, coefficients, &args.geometry, d, r_vector, (size_t)k,
                          neurons - k < 32 ? neurons - k : 32);
  for (int k = 0; k < neurons; k++)
    hines_solve_one(n, topology, coefficients + COEF_UPPER * (size_t)n,
                    coefficients + COEF_LOWER * (size_t)n, d_copy + k, r_scalar + k,
                    (size_t)neurons);
  assert_int_equal(report_difference(r_vector, r_scalar, values, "solve kernel", -1), 0);
  free(d), free(r_vector), free(d_copy), free(r_scalar);
  free(topology), free(coefficients);
  morphology_free(&m);
}

/* The same with a parameter sweep: the CPU kernel with a chunk's per-neuron values (every
 * parameter, so the membrane factors too; or the channels and stimulus only) against the thread
 * body given each neuron's values as a CUDA thread loads them (neuron_own_load). */
static void vector_kernel_equals_thread_body_with_sweep(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  const int n = 80, neurons = 45;
  struct morphology m;
  random_morphology(n, &m);
  int *topology = mono_topology_build(n, m.parent);
  double *coefficients = malloc(mono_coefficients_size(n) * sizeof(double));
  struct hines_error err;
  assert_int_equal(mono_coefficients_fill(&m, &cable_defaults, dt, coefficients, &err), HINES_OK);
  const struct step_model model = spiking_model(0, HH_RATES_EXACT);
  double *sweep = random_sweep(neurons);
  double *own = malloc((size_t)NEURON_PARAMETER_COUNT * neurons * sizeof(double));
  for (int with_membrane = 0; with_membrane <= 1; with_membrane++) {
    struct step_arguments args = {
        .geometry = {n, neurons, BATCH_LAYOUT_INTERLEAVED, 32, (size_t)neurons},
        .stimulus = model.stimulus,
        .channels = model.channels,
        .gates_geometry = {0, neurons, BATCH_LAYOUT_INTERLEAVED, 32, (size_t)neurons},
        .dt_ms = dt};
    args.stimulus.n_neurons_total = neurons;
    struct neuron_sweep sweep_view = {.values = own, .ld = (size_t)neurons};
    struct neuron_columns *columns = &sweep_view.columns;
    columns->el_mV = model.cable.el_mV;
    for (int p = 0; p < NEURON_PARAMETER_COUNT; p++) {
      columns->column[p] = -1;
      if (!with_membrane && neuron_parameter_is_membrane(p))
        continue;
      columns->column[p] = (signed char)columns->count++;
      columns->membrane |= neuron_parameter_is_membrane(p);
      for (int k = 0; k < neurons; k++)
        own[(size_t)columns->column[p] * neurons + k] = neuron_parameter_stored(
            p, sweep[(size_t)k * NEURON_PARAMETER_COUNT + p], &model, model.cable.gl_S_per_cm2);
    }
    const int groups[] = {1, 8, 32, 13};
    for (int rates = 0; rates < 2; rates++)
      for (size_t c = 0; c < CHANNEL_CONFIGURATIONS; c++)
        for (size_t gi = 0; gi < sizeof groups / sizeof groups[0]; gi++) {
          use_channels(&args, c, coefficients, n);
          args.hh_rates = rate_kinds[rates];
          char what[200];
          snprintf(what, sizeof what,
                   "sweep%s, groups of %d, hh placement %d, km placement %d, ih placement %d, %s "
                   "rates, against the thread body",
                   with_membrane ? " with membrane" : "", groups[gi], channel_configurations[c][0],
                   channel_configurations[c][1], channel_configurations[c][2], rate_names[rates]);
          step_kernels_agree(n, neurons, topology, coefficients, &args, model.initial_mV,
                             &sweep_view, groups[gi], what);
        }
  }
  free(own), free(sweep);
  free(topology), free(coefficients);
  morphology_free(&m);
}

/* ---------------------------------------------------------------- level solver */

#define MAX_MIX 16
static struct morphology mix[MAX_MIX];
static int mix_count;

static void load_mix(void) {
  const char *source = getenv("HINES_SOURCE_DIR");
  char folder[4096];
  snprintf(folder, sizeof folder, "%s/morph/data", source && *source ? source : "..");
  DIR *dir = opendir(folder);
  assert_non_null(dir);
  struct dirent *entry;
  struct swc_options options = {.warnings = fopen("/dev/null", "w")};
  while ((entry = readdir(dir)) && mix_count < MAX_MIX - 3) {
    size_t length = strlen(entry->d_name);
    if (length < 4 || strcmp(entry->d_name + length - 4, ".swc") != 0)
      continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
    struct hines_error err;
    if (swc_load(path, &options, &mix[mix_count], &err) != HINES_OK)
      fail_msg("%s", err.message);
    mix_count++;
  }
  closedir(dir);
  fclose(options.warnings);
  assert_true(mix_count >= 3);
  for (int r = 0; r < 3; r++) {
    struct hines_error err;
    unsigned seed = (unsigned)(testing_uniform(&seed_state) * 1e9);
    assert_int_equal(synthetic_random(20, 300, seed, &mix[mix_count++], &err), HINES_OK);
  }
}

struct level_variant {
  int neurons_per_task, parts, level_tasks, padded, trunk_below;
  enum level_order order;
  /* 1: the cell-block kernel (its CPU emulation) with cell_neurons neurons a block */
  int cell, cell_neurons;
};

static double *run_levels(int neurons, const struct level_variant *v, int hh_rates,
                          size_t *values) {
  struct multi_batch_config config = {.morphologies = mix,
                                      .n_morphologies = mix_count,
                                      .n_neurons = neurons,
                                      .neurons_per_task = v->neurons_per_task,
                                      .parts_per_task = v->parts,
                                      .padded = v->padded,
                                      .level_tasks = v->level_tasks,
                                      .order = v->order,
                                      .trunk_below = v->trunk_below,
                                      .level_kernel =
                                          v->cell ? LEVEL_KERNEL_CELL : LEVEL_KERNEL_LEVELS,
                                      .cell_neurons = v->cell_neurons,
                                      .model = spiking_model(0, hh_rates)};
  struct multi_batch *batch;
  struct hines_error err;
  assert_int_equal(multi_batch_create(&config, &batch, &err), HINES_OK);
  assert_int_equal(multi_batch_run(batch, steps / 2, 0.0), HINES_OK);
  assert_int_equal(multi_batch_run(batch, steps - steps / 2, steps / 2 * dt), HINES_OK);
  *values = 0;
  for (int k = 0; k < neurons; k++)
    *values += (size_t)mix[k % mix_count].n_compartments;
  double *v_mV = malloc(*values * sizeof(double)), *at = v_mV;
  for (int k = 0; k < neurons; k++) {
    multi_batch_voltage(batch, k, at);
    at += mix[k % mix_count].n_compartments;
  }
  multi_batch_destroy(batch);
  return v_mV;
}

static int compare_levels(const double *got, const double *want, int neurons, const char *what) {
  int failures = 0;
  for (int k = 0; k < neurons; k++) {
    const int n = mix[k % mix_count].n_compartments;
    failures += report_difference(got, want, (size_t)n, what, k);
    got += n, want += n;
  }
  return failures;
}

static const char *order_name(enum level_order order) {
  return order == LEVEL_ORDER_DEPTH ? "depth" : order == LEVEL_ORDER_HEIGHT ? "height" : "auto";
}

/* The chunking must not change a bit: neurons per task, parts per task, per-level or chunk
 * tasks, a trunk, CP or NCP. Nor does the level order (measured: each system is eliminated the
 * same way and gathers its children in the same order either way), so one reference serves. */
static void level_bits_do_not_depend_on_chunking(void **state) {
  (void)state;
  const int neurons = 2 * mix_count + 3;
  const enum level_order height = LEVEL_ORDER_HEIGHT, depth = LEVEL_ORDER_DEPTH;
  const struct level_variant reference = {0, 1, 0, 0, 0, height, 0, 0};
  const struct level_variant variants[] = {
      {1, 1, 0, 0, 0, height, 0, 0},
      {5, 1, 0, 0, 0, height, 0, 0},
      {neurons, 1, 0, 0, 0, height, 0, 0},
      {0, 3, 0, 0, 0, height, 0, 0},
      {7, 1, 0, 1, 0, height, 0, 0},
      {0, 1, 0, 0, 20, height, 0, 0},
      {0, 2, 0, 0, 1 << 30, height, 0, 0},
      {0, 1, 0, 0, 0, depth, 0, 0},
      {9, 2, 0, 1, 0, depth, 0, 0},
      {7, 1, 1, 0, 0, depth, 0, 0},
      {0, 1, 1, 1, 0, depth, 0, 0},
      /* The cell-block kernel, several block shapes (the trunk option does not apply). */
      {0, 1, 0, 0, 0, height, 1, 1},
      {0, 1, 0, 0, 0, height, 1, 3},
      {5, 2, 0, 0, 20, height, 1, 4},
      {0, 1, 0, 1, 0, depth, 1, 2},
      {0, 1, 0, 0, 0, height, 1, 0},
  };
  /* With exact rates a few variants only (see the mono test): one neuron per task, CP, level
   * tasks. */
  const int exact_variants[] = {0, 4, 9};
  int failures = 0;
  for (int rates = 0; rates < 2; rates++) {
    size_t values;
    double *want = run_levels(neurons, &reference, rate_kinds[rates], &values);
    const size_t count = rate_kinds[rates] == HH_RATES_EXACT
                             ? sizeof exact_variants / sizeof exact_variants[0]
                             : sizeof variants / sizeof variants[0];
    for (size_t c = 0; c < count; c++) {
      const size_t i = rate_kinds[rates] == HH_RATES_EXACT ? (size_t)exact_variants[c] : c;
      const struct level_variant *v = &variants[i];
      size_t got_values;
      double *got = run_levels(neurons, v, rate_kinds[rates], &got_values);
      assert_int_equal(got_values, values);
      char what[260];
      snprintf(what, sizeof what,
               "%s rates, levels by %s: %d neurons per task in %d parts, %s tasks, %s, trunk "
               "below %d, %s kernel (%d neurons a block)",
               rate_names[rates], order_name(v->order), v->neurons_per_task, v->parts,
               v->level_tasks ? "level" : "chunk", v->padded ? "CP" : "NCP", v->trunk_below,
               v->cell ? "cell-block" : "level", v->cell_neurons);
      failures += compare_levels(got, want, neurons, what);
      free(got);
    }
    printf("# level solver, HH, %s rates: %d neurons, %zu variants; result digest %016llx\n",
           rate_names[rates], neurons, count,
           (unsigned long long)digest(want, values, 14695981039346656037ull));
    free(want);
  }
  assert_int_equal(failures, 0);
}

/* The M current beside hh (the kernels' generic mechanism loop, km everywhere or on the soma):
 * mono batches of a few shapes (a width-1 group, an odd width, flat, shared) and level batches
 * (one neuron a task, CP, level tasks, the cell-block kernel) give the bits of their reference
 * cut, with table and exact rates. */
static void bits_with_a_second_mechanism(void **state) {
  (void)state;
  const int n = 60, neurons = 37;
  struct morphology m;
  random_morphology(n, &m);
  const struct mono_variant reference = {BATCH_LAYOUT_INTERLEAVED, 32, 0, 32};
  const struct mono_variant variants[] = {{BATCH_LAYOUT_INTERLEAVED, 32, 0, 1},
                                          {BATCH_LAYOUT_INTERLEAVED, 32, 10, 7},
                                          {BATCH_LAYOUT_FLAT, 32, 7, 1},
                                          {BATCH_LAYOUT_SHARED, 16, 0, 32}};
  const enum level_order height = LEVEL_ORDER_HEIGHT, depth = LEVEL_ORDER_DEPTH;
  const struct level_variant level_reference = {0, 1, 0, 0, 0, height, 0, 0};
  const struct level_variant level_variants[] = {{1, 1, 0, 0, 0, height, 0, 0},
                                                 {7, 1, 0, 1, 0, height, 0, 0},
                                                 {7, 1, 1, 0, 0, depth, 0, 0},
                                                 {0, 1, 0, 0, 0, height, 1, 3}};
  const int level_neurons = mix_count + 2;
  int failures = 0;
  for (int km = PLACE_SOMA; km <= PLACE_ALL; km++)
    for (int rates = 0; rates < 2; rates++) {
      model_km = km;
      double *want = run_mono(&m, neurons, &reference, 0, rate_kinds[rates]);
      model_km = PLACE_NONE;
      double *hh_alone = run_mono(&m, neurons, &reference, 0, rate_kinds[rates]);
      model_km = km;
      double lowest = INFINITY, changed = 0;
      for (size_t i = 0; i < (size_t)neurons * n; i++)
        lowest = fmin(lowest, want[i]), changed = fmax(changed, fabs(want[i] - hh_alone[i]));
      printf("# mono hh + km (%s), %s rates: lowest %.3f mV, %.3g mV from hh alone\n",
             km == PLACE_SOMA ? "soma" : "all", rate_names[rates], lowest, changed);
      assert_true(lowest < -70.0); /* the cells fired */
      /* and km changed the voltages (on the soma of some random trees by under 0.01 mV: seen
       * 0.0093; a km that did nothing would leave 0 exactly) */
      assert_true(changed > 1e-4);
      for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        char label[40];
        snprintf(label, sizeof label, "hh + km (%d), %s rates", km, rate_names[rates]);
        failures +=
            mono_variant_differences(&m, neurons, &variants[i], 0, rate_kinds[rates], want, label);
      }
      free(want), free(hh_alone);
      size_t values;
      double *level_want = run_levels(level_neurons, &level_reference, rate_kinds[rates], &values);
      for (size_t i = 0; i < sizeof level_variants / sizeof level_variants[0]; i++) {
        const struct level_variant *v = &level_variants[i];
        size_t got_values;
        double *got = run_levels(level_neurons, v, rate_kinds[rates], &got_values);
        assert_int_equal(got_values, values);
        char what[200];
        snprintf(what, sizeof what,
                 "hh + km (%d), %s rates, levels: %d neurons per task, %s tasks, %s, %s kernel", km,
                 rate_names[rates], v->neurons_per_task, v->level_tasks ? "level" : "chunk",
                 v->padded ? "CP" : "NCP", v->cell ? "cell-block" : "level");
        failures += compare_levels(got, level_want, level_neurons, what);
        free(got);
      }
      free(level_want);
    }
  model_km = PLACE_NONE;
  morphology_free(&m);
  assert_int_equal(failures, 0);
}

static int setup(void **state) {
  (void)state;
  load_mix();
  return starpu_init(NULL) == 0 ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  starpu_shutdown();
  for (int i = 0; i < mix_count; i++)
    morphology_free(&mix[i]);
  return 0;
}

int main(void) {
  seed_state = testing_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(vector_kernel_equals_thread_body),
      cmocka_unit_test(vector_kernel_equals_thread_body_with_sweep),
      cmocka_unit_test(mono_bits_do_not_depend_on_groups_tasks_or_layout),
      cmocka_unit_test(mono_sweep_bits_do_not_depend_on_groups_tasks_or_layout),
      cmocka_unit_test(level_bits_do_not_depend_on_chunking),
      cmocka_unit_test(bits_with_a_second_mechanism),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
