/* How the batch is cut and submitted must not change a single bit: 1, 4 and 16 tasks per step,
 * steps submitted ahead (the window) or one at a time, give bitwise identical voltages and probe
 * samples, for mono batches (interleaved and block layouts) and multi batches (chunk and level
 * tasks). And the size models (codelets/size_model.h) predict what they should: measured sizes,
 * interpolation, extrapolation, priors, and their file round trip. CPU workers only (ctest). */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <starpu.h>

#include "batch_layout.h"
#include "mono_batch.h"
#include "multi_batch.h"
#include "placement.h"
#include "runtime.h"
#include "size_model.h"
#include "spike_set.h"
#include "synthetic.h"
#include "testing.h"

static uint64_t seed_state;

enum { NEURONS = 64, STEPS = 90, EVERY = 4, ROWS = STEPS / EVERY + 2, PROBES = 5 };
static const int probe_neuron[PROBES] = {0, 7, 31, 40, 63};
static const int probe_compartment[PROBES] = {0, 3, 1, 9, 2};

static struct step_model hh_model(void) {
  struct channel_set hh = channel_set_hh(PLACE_SOMA);
  return (struct step_model){.cable = cable_defaults,
                             .dt_ms = 0.025,
                             .initial_mV = -65,
                             .stimulus = {.compartment = 0,
                                          .amplitude_nA = 1.5,
                                          .start_ms = 0.3,
                                          .stop_ms = 1.7,
                                          .spread = 0.6},
                             .channels = hh};
}

/* What one run leaves: every neuron's voltages, then the probe rows. */
struct outcome {
  double *voltages, *probes;
  size_t n_voltages;
  struct spike *spikes; /* mono: the spikes detected, in the order read */
  size_t n_spikes;
};

/* The time loop as src/simulation.c drives it: slices ending where a sample is due. */
typedef int (*run_fn)(void *batch, int steps, double t0, int row);
static void drive(void *batch, run_fn run, double dt) {
  int done = 0, row = 1;
  while (done < STEPS) {
    int count = EVERY - done % EVERY;
    if (count > STEPS - done)
      count = STEPS - done;
    assert_int_equal(run(batch, count, done * dt, (done + count) % EVERY == 0 ? row++ : -1),
                     HINES_OK);
    done += count;
  }
}

static int run_mono(void *b, int steps, double t0, int row) {
  return mono_batch_run_sampled(b, steps, t0, row);
}
static int run_multi(void *b, int steps, double t0, int row) {
  return multi_batch_run_sampled(b, steps, t0, row);
}

/* mono_outcome_stored's cores_alone (runtime/mono_batch.h), and its last batch's chunks and
 * neurons cut for the cores. */
static int mono_cores_alone, mono_chunks, mono_core_neurons;

/* interleaved: the batch's interleaved_chunks (runtime/mono_batch.h). */
static struct outcome mono_outcome_stored(const struct morphology *m, enum batch_layout_kind layout,
                                          int per_task, int window, int task_steps,
                                          int interleaved) {
  struct mono_batch_config config = {.morphology = m,
                                     .layout = layout,
                                     .block_size = 8,
                                     .n_neurons = NEURONS,
                                     .neurons_per_task = per_task,
                                     .window = window,
                                     .task_steps = task_steps,
                                     .interleaved_chunks = interleaved,
                                     .cores_alone = mono_cores_alone,
                                     .model = hh_model()};
  config.model.stimulus.n_neurons_total = NEURONS;
  struct mono_batch *batch;
  struct hines_error err;
  assert_int_equal(mono_batch_create(&config, &batch, &err), HINES_OK);
  mono_chunks = mono_batch_chunks(batch);
  mono_core_neurons = mono_batch_cpu_share_neurons(batch);
  assert_int_equal(mono_batch_probes(batch, PROBES, probe_neuron, probe_compartment, ROWS, &err),
                   HINES_OK);
  assert_int_equal(mono_batch_spikes(batch, 0.0, &err), HINES_OK);
  drive(batch, run_mono, config.model.dt_ms);
  mono_batch_sync(batch);
  struct spike_set *spikes = mono_batch_spike_set(batch);
  assert_int_equal(spike_set_read(spikes, &err), HINES_OK);
  const int n = m->n_compartments;
  struct outcome o = {.n_voltages = (size_t)NEURONS * n, .n_spikes = spikes->n_spikes};
  o.spikes = malloc((o.n_spikes + 1) * sizeof *o.spikes);
  if (o.n_spikes)
    memcpy(o.spikes, spikes->spikes, o.n_spikes * sizeof *o.spikes);
  qsort(o.spikes, o.n_spikes, sizeof *o.spikes, spike_set_order);
  o.voltages = malloc(o.n_voltages * sizeof(double));
  o.probes = calloc((size_t)ROWS * PROBES, sizeof(double));
  mono_batch_probes_read(batch, ROWS, o.probes);
  for (int k = 0; k < NEURONS; k++)
    mono_batch_voltage(batch, k, o.voltages + (size_t)k * n);
  mono_batch_destroy(batch);
  return o;
}

static struct outcome mono_outcome(const struct morphology *m, enum batch_layout_kind layout,
                                   int per_task, int window, int task_steps) {
  return mono_outcome_stored(m, layout, per_task, window, task_steps, 0);
}

/* multi_outcome's --arrange (enum placement_share's values), and what its last batch laid out
 * by morphology (multi_batch_arranged_neurons) in how many tasks a step. */
static int multi_arrange = PLACEMENT_SHARE_AUTO, multi_arranged, multi_tasks;

static struct outcome multi_outcome(const struct morphology *shapes, int n_shapes, int level_tasks,
                                    int per_task, int window, int task_steps) {
  struct multi_batch_config config = {.morphologies = shapes,
                                      .n_morphologies = n_shapes,
                                      .n_neurons = NEURONS,
                                      .neurons_per_task = per_task,
                                      .level_tasks = level_tasks,
                                      .window = window,
                                      .task_steps = task_steps,
                                      .arrange = multi_arrange,
                                      .model = hh_model()};
  config.model.stimulus.n_neurons_total = NEURONS;
  struct multi_batch *batch;
  struct hines_error err;
  assert_int_equal(multi_batch_create(&config, &batch, &err), HINES_OK);
  assert_int_equal(multi_batch_probes(batch, PROBES, probe_neuron, probe_compartment, ROWS, &err),
                   HINES_OK);
  multi_arranged = multi_batch_arranged_neurons(batch);
  multi_tasks = multi_batch_tasks_per_step(batch);
  drive(batch, run_multi, config.model.dt_ms);
  multi_batch_sync(batch);
  struct outcome o = {0};
  for (int k = 0; k < NEURONS; k++)
    o.n_voltages += (size_t)shapes[k % n_shapes].n_compartments;
  o.voltages = malloc(o.n_voltages * sizeof(double));
  o.probes = calloc((size_t)ROWS * PROBES, sizeof(double));
  multi_batch_probes_read(batch, ROWS, o.probes);
  size_t at = 0;
  for (int k = 0; k < NEURONS; k++) {
    multi_batch_voltage(batch, k, o.voltages + at);
    at += (size_t)shapes[k % n_shapes].n_compartments;
  }
  multi_batch_destroy(batch);
  return o;
}

static void outcome_free(struct outcome *o) {
  free(o->voltages);
  free(o->probes);
  free(o->spikes);
}

/* Bitwise: the same doubles, bit for bit, and the probes equal to the final voltages' source. */
static void assert_same_bits(const struct outcome *a, const struct outcome *b, const char *what) {
  assert_int_equal(a->n_voltages, b->n_voltages);
  if (memcmp(a->voltages, b->voltages, a->n_voltages * sizeof(double)) != 0)
    fail_msg("%s: voltages differ", what);
  if (memcmp(a->probes, b->probes, (size_t)ROWS * PROBES * sizeof(double)) != 0)
    fail_msg("%s: probe samples differ", what);
  if (a->n_spikes != b->n_spikes)
    fail_msg("%s: %zu spikes against %zu", what, b->n_spikes, a->n_spikes);
  for (size_t j = 0; j < a->n_spikes; j++)
    if (a->spikes[j].neuron != b->spikes[j].neuron ||
        memcmp(&a->spikes[j].time_ms, &b->spikes[j].time_ms, sizeof(double)) != 0)
      fail_msg("%s: spike %zu differs", what, j);
}

/* 1, 4 and 16 tasks per step, windows 1 (a wait after every step), 4 and 128: one set of bits. */
static const int per_task[] = {NEURONS, NEURONS / 4, NEURONS / 16};
/* a wait after every step, the default window, and a multi share's (placement_level_window):
 * every step of these runs submitted at once */
static const int windows[] = {1, RUNTIME_DEFAULT_WINDOW, PLACEMENT_LEVEL_SHARE_WINDOW};

static void mono_tasks_and_windows_give_identical_bits(void **state) {
  (void)state;
  struct morphology m;
  struct hines_error err;
  assert_int_equal(
      synthetic_random(20, 60, (unsigned)(testing_uniform(&seed_state) * 1e9), &m, &err), HINES_OK);
  const enum batch_layout_kind layouts[] = {BATCH_LAYOUT_INTERLEAVED, BATCH_LAYOUT_BLOCK};
  for (int l = 0; l < 2; l++) {
    struct outcome reference = mono_outcome(&m, layouts[l], per_task[0], windows[0], 1);
    /* the probes saw the spike: not a batch at rest */
    double spread = 0;
    for (int r = 1; r < ROWS - 1; r++)
      spread = fmax(spread, fabs(reference.probes[r * PROBES] - reference.probes[PROBES]));
    assert_true(spread > 1.0);
    assert_true(reference.n_spikes > 0);
    for (int t = 0; t < 3; t++)
      for (int w = 0; w < 3; w++) {
        if (t == 0 && w == 0)
          continue;
        struct outcome o = mono_outcome(&m, layouts[l], per_task[t], windows[w], 1);
        char what[96];
        snprintf(what, sizeof what, "mono layout %d, %d neurons per task, window %d", layouts[l],
                 per_task[t], windows[w]);
        assert_same_bits(&reference, &o, what);
        outcome_free(&o);
      }
    /* Tasks of several steps (--task-steps): 3 does not divide the runs between samples, 16
     * spans several of them; the same bits again. */
    const int task_steps[] = {3, 16};
    for (int s = 0; s < 2; s++) {
      struct outcome o = mono_outcome(&m, layouts[l], per_task[1], windows[1], task_steps[s]);
      char what[96];
      snprintf(what, sizeof what, "mono layout %d, %d steps per task", layouts[l], task_steps[s]);
      assert_same_bits(&reference, &o, what);
      outcome_free(&o);
    }
    /* The whole batch cut for the CPU workers alone (a small batch beside GPUs,
     * placement_cores_plan): PLACEMENT_CPU_ALONE_CHUNKS_PER_CORE chunks a worker, at most one a
     * block, every neuron the cores'; the same bits. */
    if (layouts[l] == BATCH_LAYOUT_BLOCK) {
      mono_cores_alone = 1;
      struct outcome o = mono_outcome(&m, layouts[l], 0, windows[1], 0);
      mono_cores_alone = 0;
      const int cpus = (int)starpu_cpu_worker_get_count(), blocks = NEURONS / 8,
                wanted = PLACEMENT_CPU_ALONE_CHUNKS_PER_CORE * cpus;
      assert_int_equal(mono_chunks, wanted < blocks ? wanted : blocks);
      assert_int_equal(mono_core_neurons, NEURONS);
      assert_same_bits(&reference, &o, "mono blocks cut for the cores alone");
      outcome_free(&o);
    }
    /* Blocks whose first chunks are stored interleaved (the GPU's chunks beside the cores'
     * share): 3 and all 4 chunks of two blocks (a chunk of one block is stored the same either
     * way); the same bits, probes and spikes. */
    if (layouts[l] == BATCH_LAYOUT_BLOCK) {
      const int interleaved[] = {3, 4};
      for (int i = 0; i < 2; i++) {
        struct outcome o =
            mono_outcome_stored(&m, layouts[l], per_task[1], windows[1], 3, interleaved[i]);
        char what[96];
        snprintf(what, sizeof what, "mono blocks, %d neurons per task, %d chunks interleaved",
                 per_task[1], interleaved[i]);
        assert_same_bits(&reference, &o, what);
        outcome_free(&o);
      }
    }
    outcome_free(&reference);
  }
  morphology_free(&m);
}

/* A mono batch's step tasks of one step have a history apart from tasks of several steps (a core
 * runs a compartment-step faster in a task of several steps, its group in cache), and tasks of
 * any number of steps above one share theirs: after tasks of 3 steps the model has measured tasks
 * of 2, 8 or 13 steps (a run's last round, or a probe interval, of fewer steps than the others
 * must not be a kind nothing measured: codelets/hines_mono_codelets.c says what that cost), and
 * not tasks of one step (a fresh random shape each run: the models persist in the tests'
 * STARPU_HOME). */
static void step_model_keeps_one_step_apart(void **state) {
  (void)state;
  struct morphology m;
  struct hines_error err;
  assert_int_equal(
      synthetic_random(97, 131, (unsigned)(testing_uniform(&seed_state) * 1e9), &m, &err),
      HINES_OK);
  struct mono_batch_config config = {.morphology = &m,
                                     .layout = BATCH_LAYOUT_BLOCK,
                                     .block_size = 8,
                                     .n_neurons = NEURONS,
                                     .neurons_per_task = NEURONS / 4,
                                     .task_steps = 3,
                                     .model = hh_model()};
  config.model.stimulus.n_neurons_total = NEURONS;
  struct mono_batch *batch;
  assert_int_equal(mono_batch_create(&config, &batch, &err), HINES_OK);
  const int cpu = starpu_worker_get_by_type(STARPU_CPU_WORKER, 0);
  assert_true(cpu >= 0);
  /* The models learn from StarPU's task profiles, as in hinestask (runtime.c enables them). */
  const int profiling = starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  assert_int_equal(mono_batch_run(batch, 30, 0.0), HINES_OK);
  mono_batch_sync(batch);
  starpu_profiling_status_set(profiling);
  assert_true(mono_batch_steps_measured(batch, 3, cpu));
  assert_true(mono_batch_steps_measured(batch, 2, cpu));
  assert_true(mono_batch_steps_measured(batch, 8, cpu));
  assert_true(mono_batch_steps_measured(batch, 13, cpu));
  assert_false(mono_batch_steps_measured(batch, 1, cpu));
  mono_batch_destroy(batch);
  morphology_free(&m);
}

/* The window a level-solved batch keeps (placement_level_window): the one asked for, else the
 * default, and with the cores' share one that submits a run of 1,000 steps in tasks of 8 at once
 * (so the GPU's chunks never wait for a core that slowed). */
static void share_window_submits_the_run_ahead(void **state) {
  (void)state;
  assert_int_equal(placement_level_window(0, 0), RUNTIME_DEFAULT_WINDOW);
  assert_int_equal(placement_level_window(0, 1), PLACEMENT_LEVEL_SHARE_WINDOW);
  assert_true(placement_level_window(0, 1) * placement_level_share_task_steps(0) >= 1000);
  for (int asked = 1; asked <= 9; asked += 4) {
    assert_int_equal(placement_level_window(asked, 0), asked);
    assert_int_equal(placement_level_window(asked, 1), asked);
  }
}

static void multi_tasks_and_windows_give_identical_bits(void **state) {
  (void)state;
  struct morphology shapes[3];
  struct hines_error err;
  for (int i = 0; i < 3; i++)
    assert_int_equal(
        synthetic_random(15, 80, (unsigned)(testing_uniform(&seed_state) * 1e9), &shapes[i], &err),
        HINES_OK);
  for (int level_tasks = 0; level_tasks < 2; level_tasks++) {
    struct outcome reference = multi_outcome(shapes, 3, level_tasks, per_task[0], windows[0], 1);
    for (int t = 0; t < 3; t++)
      for (int w = 0; w < 3; w++) {
        if (t == 0 && w == 0)
          continue;
        struct outcome o = multi_outcome(shapes, 3, level_tasks, per_task[t], windows[w], 1);
        char what[96];
        snprintf(what, sizeof what, "multi (level tasks %d), %d neurons per task, window %d",
                 level_tasks, per_task[t], windows[w]);
        assert_same_bits(&reference, &o, what);
        outcome_free(&o);
      }
    /* Chunk tasks of several steps (--task-steps; per-level tasks keep one): 3 does not
     * divide the runs between samples, 16 spans several of them. */
    const int task_steps[] = {3, 16};
    for (int s = 0; s < 2 && !level_tasks; s++) {
      struct outcome o = multi_outcome(shapes, 3, 0, per_task[1], windows[1], task_steps[s]);
      char what[96];
      snprintf(what, sizeof what, "multi, %d steps per chunk task", task_steps[s]);
      assert_same_bits(&reference, &o, what);
      outcome_free(&o);
    }
    outcome_free(&reference);
  }
  for (int i = 0; i < 3; i++)
    morphology_free(&shapes[i]);
}

/* Chunks laid out by morphology (--arrange, placement_level_arranged): with CPU workers alone (as
 * under ctest) by default, and when asked, every chunk task's chunk holds copies of one or two
 * cells (the batch's last NEURONS - 3 neurons laid out), at the sizes asked and at the default cut
 * by compartments; off keeps the neurons' round robin; the bits are round robin's. */
static void arranged_chunks_give_identical_bits(void **state) {
  (void)state;
  struct morphology shapes[3];
  struct hines_error err;
  for (int i = 0; i < 3; i++)
    assert_int_equal(synthetic_random(10 + 30 * i, 60 + 40 * i,
                                      (unsigned)(testing_uniform(&seed_state) * 1e9), &shapes[i],
                                      &err),
                     HINES_OK);
  multi_arrange = PLACEMENT_SHARE_OFF;
  struct outcome reference = multi_outcome(shapes, 3, 0, per_task[1], windows[1], 1);
  assert_int_equal(multi_arranged, 0);
  const int asked[] = {PLACEMENT_SHARE_AUTO, PLACEMENT_SHARE_ON};
  const int sizes[] = {per_task[1], per_task[2], 0, 5};
  for (int a = 0; a < 2; a++)
    for (int t = 0; t < 4; t++) {
      multi_arrange = asked[a];
      struct outcome o = multi_outcome(shapes, 3, 0, sizes[t], windows[t % 3], 1 + t);
      char what[96];
      snprintf(what, sizeof what, "laid out by morphology (%s), %d neurons per task (%d tasks)",
               a ? "on" : "auto", sizes[t], multi_tasks);
      /* the sizes asked for give several tasks, and so does the default cut on CPU workers
       * alone (beside a GPU it may give one chunk a GPU) */
      const int cuda = starpu_cuda_worker_get_count() > 0;
      if (sizes[t] > 0 || !cuda)
        assert_true(multi_tasks > 1);
      /* laid out where the chunks are several; auto only without a GPU
       * (placement_level_arranged) */
      const int laid_out = multi_tasks > 1 && (a || !cuda) ? NEURONS - 3 : 0;
      if (multi_arranged != laid_out)
        fail_msg("%s: %d neurons laid out, not %d", what, multi_arranged, laid_out);
      assert_same_bits(&reference, &o, what);
      outcome_free(&o);
    }
  multi_arrange = PLACEMENT_SHARE_AUTO;
  outcome_free(&reference);
  for (int i = 0; i < 3; i++)
    morphology_free(&shapes[i]);
}

/* --- size models --- */

static double fixed_size(struct starpu_task *task) {
  (void)task;
  return 1000;
}
static uint32_t fixed_kind(struct starpu_task *task) {
  (void)task;
  return 7;
}
static const struct size_model test_model = {.symbol = "test_model",
                                             .size = fixed_size,
                                             .kind = fixed_kind,
                                             .cpu_rate = 100,
                                             .cuda_rate = 1e4,
                                             .cuda_latency_us = 5};

static void size_model_predicts_any_size(void **state) {
  (void)state;
  size_model_clear();
  struct starpu_perfmodel_device cpu_device = {.type = STARPU_CPU_WORKER, .devid = 0, .ncores = 1};
  struct starpu_perfmodel_arch cpu = {.ndevices = 1, .devices = &cpu_device};
  struct starpu_perfmodel_device cpu4_device = {.type = STARPU_CPU_WORKER, .ncores = 4};
  struct starpu_perfmodel_arch cpu4 = {.ndevices = 1, .devices = &cpu4_device};
  /* nothing measured: the prior, size / (rate x cores) */
  assert_float_equal(size_model_expected_us(&test_model, 7, 5000, &cpu), 50.0, 1e-9);
  assert_float_equal(size_model_expected_us(&test_model, 7, 5000, &cpu4), 12.5, 1e-9);
  /* the first measurement of a size is warm-up; then the mean of what follows */
  size_model_record("test_model", 7, 1000, &cpu, 999);
  assert_float_equal(size_model_expected_us(&test_model, 7, 1000, &cpu), 10.0, 1e-9);
  size_model_record("test_model", 7, 1000, &cpu, 20);
  size_model_record("test_model", 7, 1000, &cpu, 40);
  assert_float_equal(size_model_expected_us(&test_model, 7, 1000, &cpu), 30.0, 1e-9);
  /* one size measured: proportional to size, both ways */
  assert_float_equal(size_model_expected_us(&test_model, 7, 4000, &cpu), 120.0, 1e-9);
  assert_float_equal(size_model_expected_us(&test_model, 7, 500, &cpu), 15.0, 1e-9);
  /* two sizes: interpolation between them and the line below (t = 10 + 0.02 x); past the
   * largest a core's time grows in proportion (70 us at 3000) */
  size_model_record("test_model", 7, 3000, &cpu, 1);
  size_model_record("test_model", 7, 3000, &cpu, 70);
  assert_float_equal(size_model_expected_us(&test_model, 7, 2000, &cpu), 50.0, 1e-9);
  assert_float_equal(size_model_expected_us(&test_model, 7, 10000, &cpu), 70.0 * 10000 / 3000,
                     1e-9);
  assert_float_equal(size_model_expected_us(&test_model, 7, 100, &cpu), 12.0, 1e-9);
  /* other kinds and archs keep their own */
  assert_float_equal(size_model_expected_us(&test_model, 8, 1000, &cpu), 10.0, 1e-9);
  assert_float_equal(size_model_expected_us(&test_model, 7, 1000, &cpu4), 2.5, 1e-9);
  /* a GPU never measured borrows another GPU's measurements; its own, once there, win */
  struct starpu_perfmodel_device cuda0_device = {.type = STARPU_CUDA_WORKER, .devid = 0};
  struct starpu_perfmodel_device cuda1_device = {.type = STARPU_CUDA_WORKER, .devid = 1};
  struct starpu_perfmodel_arch cuda0 = {.ndevices = 1, .devices = &cuda0_device};
  struct starpu_perfmodel_arch cuda1 = {.ndevices = 1, .devices = &cuda1_device};
  assert_float_equal(size_model_expected_us(&test_model, 7, 1000, &cuda1), 5.1, 1e-9); /* prior */
  size_model_record("test_model", 7, 1000, &cuda0, 1);                                 /* warm-up */
  size_model_record("test_model", 7, 1000, &cuda0, 3);
  assert_float_equal(size_model_expected_us(&test_model, 7, 1000, &cuda1), 3.0, 1e-9);
  assert_float_equal(size_model_expected_us(&test_model, 7, 2000, &cuda1), 6.0, 1e-9);
  size_model_record("test_model", 7, 1000, &cuda1, 1);
  size_model_record("test_model", 7, 1000, &cuda1, 4);
  assert_float_equal(size_model_expected_us(&test_model, 7, 1000, &cuda1), 4.0, 1e-9);
  assert_float_equal(size_model_expected_us(&test_model, 7, 1000, &cuda0), 3.0, 1e-9);
  assert_float_equal(size_model_expected_us(&test_model, 8, 1000, &cuda1), 5.1, 1e-9); /* kind */
  assert_float_equal(size_model_expected_us(&test_model, 7, 5000, &cpu4), 12.5, 1e-9); /* CPUs */
  /* what stands behind a prediction: measurements of the kind on the arch (any GPU for a GPU) */
  assert_true(size_model_measured(&test_model, 7, &cpu));
  assert_true(size_model_measured(&test_model, 7, &cuda1));
  assert_false(size_model_measured(&test_model, 7, &cpu4));
  assert_false(size_model_measured(&test_model, 8, &cpu));
  assert_false(size_model_measured(&test_model, 8, &cuda0));
  /* the largest size measured, or the largest under a bound (the multi share leaves out what a
   * core ran of the GPUs' chunks) */
  assert_float_equal(size_model_largest_measured(&test_model, 7, &cpu, INFINITY), 3000.0, 1e-9);
  assert_float_equal(size_model_largest_measured(&test_model, 7, &cpu, 3000.0), 1000.0, 1e-9);
  assert_float_equal(size_model_largest_measured(&test_model, 7, &cpu, 1000.0), 0.0, 1e-9);
  assert_float_equal(size_model_largest_measured(&test_model, 7, &cuda0, INFINITY), 1000.0, 1e-9);
  /* through a task, with the codelet's size and kind */
  struct starpu_task task;
  memset(&task, 0, sizeof task);
  assert_float_equal(size_model_task_expected_us(&test_model, &task, &cpu), 30.0, 1e-9);
  /* the file keeps the measurements, not the warm-up */
  char path[] = "/tmp/hinestask-sizes-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(size_model_save(path), 0);
  assert_int_equal(size_model_entries(), 4);
  size_model_clear();
  assert_float_equal(size_model_expected_us(&test_model, 7, 1000, &cpu), 10.0, 1e-9);
  assert_int_equal(size_model_load(path), 0);
  assert_float_equal(size_model_expected_us(&test_model, 7, 1000, &cpu), 30.0, 1e-9);
  assert_float_equal(size_model_expected_us(&test_model, 7, 2000, &cpu), 50.0, 1e-9);
  /* loaded entries need no warm-up: a new sample counts at once */
  size_model_record("test_model", 7, 1000, &cpu, 60);
  assert_float_equal(size_model_expected_us(&test_model, 7, 1000, &cpu), 40.0, 1e-9);
  unlink(path);
  size_model_clear();
}

/* The device number of the g-th GPU the size model's tests pretend to have: past every device
 * StarPU drives here, so that on a GPU machine the real device's CUDA workers (a GPU's prior
 * scales with the workers sharing it) do not change what these tests predict. */
static int fake_gpu(int g) {
  static int first = -1;
  if (first < 0) {
    first = 0;
    for (unsigned w = 0; w < starpu_worker_get_count(); w++)
      if (starpu_worker_get_type((int)w) == STARPU_CUDA_WORKER &&
          starpu_worker_get_devid((int)w) >= first)
        first = starpu_worker_get_devid((int)w) + 1;
  }
  return first + g;
}

/* Archs of the pretended CUDA devices fake_gpu(0 .. n-1) (no worker of this StarPU, so one worker
 * each to the size model), in `arch`, their devices in `device`. */
static void cuda_archs(int n, struct starpu_perfmodel_device *device,
                       struct starpu_perfmodel_arch *arch) {
  for (int g = 0; g < n; g++) {
    device[g] = (struct starpu_perfmodel_device){.type = STARPU_CUDA_WORKER, .devid = fake_gpu(g)};
    arch[g] = (struct starpu_perfmodel_arch){.ndevices = 1, .devices = &device[g]};
  }
}

/* A core's chunk predicted from the mean rate of the tasks measured near its size: chunks of
 * nearly one size but of different cells cost differently, and the line between the two nearest
 * says only what those two cost. */
static void size_model_rates_near_a_size(void **state) {
  (void)state;
  size_model_clear();
  struct starpu_perfmodel_device cpu_device = {.type = STARPU_CPU_WORKER, .devid = 0, .ncores = 1};
  struct starpu_perfmodel_arch cpu = {.ndevices = 1, .devices = &cpu_device};
  const double sizes[] = {1000, 1000, 1040, 1100, 5000}, times[] = {10, 10, 26, 11, 50};
  for (int i = 0; i < 5; i++) {
    if (i != 1)
      size_model_record("test_model", 7, sizes[i], &cpu, 999); /* each size's warm-up */
    size_model_record("test_model", 7, sizes[i], &cpu, times[i]);
  }
  /* the line between 1040 (26 us) and 1100 (11 us) */
  assert_float_equal(size_model_expected_us(&test_model, 7, 1050, &cpu), 23.5, 1e-9);
  /* sizes 700-1575: 1000 (two samples, 0.01 us a unit), 1040 (0.025), 1100 (0.01) */
  const double rate = (2 * 0.01 + 0.025 + 0.01) / 4;
  assert_float_equal(size_model_rate_near_us(&test_model, 7, 1050, &cpu, 1.5), rate * 1050, 1e-9);
  /* a wider spread takes 5000 in too */
  const double wider = (2 * 0.01 + 0.025 + 0.01 + 0.01) / 5;
  assert_float_equal(size_model_rate_near_us(&test_model, 7, 1050, &cpu, 5.0), wider * 1050, 1e-9);
  /* nothing measured near: size_model_expected_us (past the largest on a core: in proportion) */
  assert_float_equal(size_model_rate_near_us(&test_model, 7, 20000, &cpu, 1.5), 200.0, 1e-9);
  assert_float_equal(size_model_rate_near_us(&test_model, 8, 1050, &cpu, 1.5),
                     size_model_expected_us(&test_model, 8, 1050, &cpu), 1e-9); /* the prior */
}

/* Far beyond two near, noisy sizes a prediction stays between the nearest size's time and that
 * time in proportion, whatever the line through them says: the first step's chunks of a run on
 * two GPUs once put the next tasks of 8 steps at 12 s (28 ms in proportion), and dmdas gave
 * them to CPU cores. */
static void size_model_extrapolates_within_bounds(void **state) {
  (void)state;
  size_model_clear();
  struct starpu_perfmodel_device cpu_device = {.type = STARPU_CPU_WORKER, .devid = 0, .ncores = 1};
  struct starpu_perfmodel_arch cpu = {.ndevices = 1, .devices = &cpu_device};
  size_model_record("test_model", 9, 10211992, &cpu, 1);
  size_model_record("test_model", 9, 10211992, &cpu, 1776);
  size_model_record("test_model", 9, 10221939, &cpu, 1);
  size_model_record("test_model", 9, 10221939, &cpu, 3476);
  assert_float_equal(size_model_expected_us(&test_model, 9, 81775512, &cpu),
                     3476.0 * 81775512 / 10221939, 1e-6);
  assert_float_equal(size_model_expected_us(&test_model, 9, 10231939, &cpu),
                     3476.0 * 10231939 / 10221939, 1e-6); /* even just beyond */
  assert_float_equal(size_model_expected_us(&test_model, 9, 1000000, &cpu), 1776.0 / 10.211992,
                     1e-6); /* below: the line would give less than nothing */
  /* a line falling with size: on a GPU no less than the nearest size's time beyond it; on a
   * core past its largest size in proportion, however flat the line (the multi share's small
   * chunks on the cores once predicted the GPUs' chunks, 200 times larger, as cheap) */
  struct starpu_perfmodel_device cuda_device = {.type = STARPU_CUDA_WORKER, .devid = 0};
  struct starpu_perfmodel_arch cuda = {.ndevices = 1, .devices = &cuda_device};
  const struct starpu_perfmodel_arch *archs[] = {&cpu, &cuda};
  for (int a = 0; a < 2; a++) {
    size_model_record("test_model", 10, 2000, archs[a], 1);
    size_model_record("test_model", 10, 2000, archs[a], 100);
    size_model_record("test_model", 10, 2100, archs[a], 1);
    size_model_record("test_model", 10, 2100, archs[a], 50);
  }
  assert_float_equal(size_model_expected_us(&test_model, 10, 8000, &cuda), 50.0, 1e-9);
  assert_float_equal(size_model_expected_us(&test_model, 10, 8000, &cpu), 50.0 * 8000 / 2100, 1e-9);
  assert_float_equal(size_model_expected_us(&test_model, 10, 500, &cpu), 100.0, 1e-9);
  assert_float_equal(size_model_expected_us(&test_model, 10, 500, &cuda), 100.0, 1e-9);
  /* a line rising faster than in proportion: on a core, in proportion past the largest */
  size_model_record("test_model", 11, 1000, &cpu, 1);
  size_model_record("test_model", 11, 1000, &cpu, 10);
  size_model_record("test_model", 11, 1100, &cpu, 1);
  size_model_record("test_model", 11, 1100, &cpu, 12);
  assert_float_equal(size_model_expected_us(&test_model, 11, 2200, &cpu), 24.0, 1e-9);
  size_model_clear();
}

/* Several GPUs and nothing measured: each chunk (the data its task writes) gets a home GPU, round
 * robin as chunks are first seen, and the other GPUs' predictions are twice as long, so dmda
 * spreads a first step over the GPUs instead of taking the first of equals every time. */
static void size_model_spreads_chunks_over_gpus(void **state) {
  (void)state;
  size_model_clear();
  const int devids[] = {fake_gpu(0), fake_gpu(1), fake_gpu(2)};
  size_model_set_gpus(devids, 3);
  struct starpu_perfmodel_device gpu_device[3];
  struct starpu_perfmodel_arch gpu[3];
  cuda_archs(3, gpu_device, gpu);
  struct starpu_codelet writes = {.nbuffers = 2, .modes = {STARPU_R, STARPU_RW}};
  struct starpu_codelet reads = {.nbuffers = 1, .modes = {STARPU_R}};
  static char chunk_data[12], shared_data;
  const double prior = 5 + 1000 / 1e4; /* latency + size / rate, one worker a GPU */
  int placed[3] = {0, 0, 0};
  for (int round = 0; round < 2; round++) { /* the same chunk keeps its home */
    for (int c = 0; c < 12; c++) {
      struct starpu_task task;
      memset(&task, 0, sizeof task);
      task.cl = &writes;
      task.handles[0] = (starpu_data_handle_t)&shared_data; /* read by every chunk: no home */
      task.handles[1] = (starpu_data_handle_t)&chunk_data[c];
      int best = 0;
      for (int g = 0; g < 3; g++) {
        const double us = size_model_task_expected_us(&test_model, &task, &gpu[g]);
        assert_true(us == prior || us == prior * 2.0);
        if (us < size_model_task_expected_us(&test_model, &task, &gpu[best]))
          best = g;
      }
      assert_int_equal(best, c % 3);
      placed[best] += round == 0;
    }
  }
  assert_int_equal(placed[0], 4);
  assert_int_equal(placed[1], 4);
  assert_int_equal(placed[2], 4);
  /* a task that writes nothing, and CPU workers, are never penalised */
  struct starpu_task reader;
  memset(&reader, 0, sizeof reader);
  reader.cl = &reads;
  reader.handles[0] = (starpu_data_handle_t)&shared_data;
  for (int g = 0; g < 3; g++)
    assert_float_equal(size_model_task_expected_us(&test_model, &reader, &gpu[g]), prior, 1e-12);
  /* one GPU: nothing to spread */
  size_model_set_gpus(devids, 1);
  struct starpu_task task;
  memset(&task, 0, sizeof task);
  task.cl = &writes;
  task.handles[1] = (starpu_data_handle_t)&chunk_data[1];
  assert_float_equal(size_model_task_expected_us(&test_model, &task, &gpu[1]), prior, 1e-12);
  size_model_clear();
}

/* The predictions on GPUs 0 and 1 for a task whose one buffer, written, is `data`. */
static void predict_writer(void *data, struct starpu_perfmodel_arch *gpu, double *on0,
                           double *on1) {
  static struct starpu_codelet writes = {.nbuffers = 1, .modes = {STARPU_RW}};
  struct starpu_task task;
  memset(&task, 0, sizeof task);
  task.cl = &writes;
  task.handles[0] = (starpu_data_handle_t)data;
  *on0 = size_model_task_expected_us(&test_model, &task, &gpu[0]);
  *on1 = size_model_task_expected_us(&test_model, &task, &gpu[1]);
}

/* Homes the runtime gives (where it prefetched each chunk: contiguous runs of chunks a GPU) win
 * over the round robin, for good; data given none still go round robin. */
static void size_model_keeps_chunks_at_given_homes(void **state) {
  (void)state;
  size_model_clear();
  const int devids[] = {fake_gpu(0), fake_gpu(1)};
  size_model_set_gpus(devids, 2);
  struct starpu_perfmodel_device gpu_device[2];
  struct starpu_perfmodel_arch gpu[2];
  cuda_archs(2, gpu_device, gpu);
  static char chunk_data[8], other_data[2];
  for (int c = 0; c < 8; c++) /* chunks 0-3 on GPU 0, 4-7 on GPU 1 */
    size_model_set_home((starpu_data_handle_t)&chunk_data[c], fake_gpu(c < 4 ? 0 : 1));
  size_model_set_home((starpu_data_handle_t)&chunk_data[5], fake_gpu(1)); /* again: no change */
  double on0, on1;
  for (int round = 0; round < 3; round++)
    for (int c = 0; c < 8; c++) {
      predict_writer(&chunk_data[c], gpu, &on0, &on1);
      assert_float_equal(c < 4 ? on1 / on0 : on0 / on1, 2.0, 1e-12);
    }
  /* two chunks the runtime placed nowhere: the first free GPU, then the next */
  for (int k = 0; k < 2; k++) {
    predict_writer(&other_data[k], gpu, &on0, &on1);
    assert_true(k == 0 ? on0 < on1 : on1 < on0);
  }
  size_model_clear();
}

/* A fresh size model with one GPU (devids[0]) and the cores: a chunk's size (fixed_size: 1000)
 * measured at 2 us on the GPU and 900 on a core (each after a warm-up, dropped). */
static void one_gpu_beside_cores(const int *devids, struct starpu_perfmodel_device *gpu_device,
                                 struct starpu_perfmodel_arch *gpu,
                                 struct starpu_perfmodel_device *core_device,
                                 struct starpu_perfmodel_arch *core) {
  size_model_clear();
  size_model_set_gpus(devids, 1);
  cuda_archs(1, gpu_device, gpu);
  *core_device = (struct starpu_perfmodel_device){.type = STARPU_CPU_WORKER, .ncores = 1};
  *core = (struct starpu_perfmodel_arch){.ndevices = 1, .devices = core_device};
  for (int k = 0; k < 3; k++) {
    size_model_record("test_model", 7, 1000, &gpu[0], k ? 2 : 50);
    size_model_record("test_model", 7, 1000, core, k ? 900 : 5000);
  }
}

/* A chunk cut for the cores has them as home: on the GPU (one here, as on the H200 machine) its
 * task is predicted as the GPU's time plus a core's for one more than a core's round of such
 * chunks (the chunks at home over StarPU's CPU workers, rounded up), so where dmda compares
 * an idle CUDA worker with a core the core wins unless it is busy for longer than that round and
 * the GPU's own time. Given a GPU home again, or forgotten (its handle unregistered and reused),
 * the chunk loses the cores' home. The GPU's own chunks and the cores' predictions are untouched.
 */
static void size_model_keeps_core_chunks_on_cores(void **state) {
  (void)state;
  const int devids[] = {fake_gpu(0)};
  struct starpu_perfmodel_device gpu_device[1], core_device;
  struct starpu_perfmodel_arch gpu[1], core;
  one_gpu_beside_cores(devids, gpu_device, gpu, &core_device, &core);
  static char core_chunk, gpu_chunk;
  size_model_set_cpu_home((starpu_data_handle_t)&core_chunk);
  size_model_set_home((starpu_data_handle_t)&gpu_chunk, fake_gpu(0)); /* one GPU: none kept */
  static struct starpu_codelet writes = {.nbuffers = 1, .modes = {STARPU_RW}};
  struct starpu_task task;
  memset(&task, 0, sizeof task);
  task.cl = &writes;
  task.handles[0] = (starpu_data_handle_t)&core_chunk;
  const double on_gpu = size_model_task_expected_us(&test_model, &task, &gpu[0]);
  const double on_core = size_model_task_expected_us(&test_model, &task, &core);
  assert_float_equal(on_gpu, 2.0 + 2 * 900.0, 1e-9); /* one chunk at home: a round of one */
  assert_float_equal(on_core, 900.0, 1e-9);
  /* dmda's choice: the earliest expected end, a worker's queue end plus the prediction */
  const double now = 0, transfer = 30;
  for (double cores_free_at = 0; cores_free_at <= 1000; cores_free_at += 10) {
    const int gpu_wins = now + transfer + on_gpu < cores_free_at + on_core;
    assert_int_equal(gpu_wins, cores_free_at > transfer + 2.0 + 900.0);
  }
  /* the homes opened (the GPUs' own chunks all ended): the GPU's own time, so dmda now gives the
   * task to the idle GPU (its transfer and 2 us against a core's 900), where with the homes held
   * the core won unless busy past transfer + 902 us; the cores' prediction untouched */
  size_model_open_cpu_homes(1);
  const double open_gpu = size_model_task_expected_us(&test_model, &task, &gpu[0]);
  assert_float_equal(open_gpu, 2.0, 1e-9);
  assert_float_equal(size_model_task_expected_us(&test_model, &task, &core), 900.0, 1e-9);
  const double idle_gpu_ends = now + transfer + open_gpu, idle_core_ends = now + on_core;
  assert_true(idle_gpu_ends < idle_core_ends);
  /* closed again, or a new start: the round added back */
  size_model_open_cpu_homes(0);
  assert_float_equal(size_model_task_expected_us(&test_model, &task, &gpu[0]), on_gpu, 1e-9);
  size_model_open_cpu_homes(1);
  size_model_set_gpus(devids, 1); /* a new start holds them closed */
  size_model_set_cpu_home((starpu_data_handle_t)&core_chunk);
  assert_float_equal(size_model_task_expected_us(&test_model, &task, &gpu[0]), on_gpu, 1e-9);
  /* four chunks at home: a round of four over one CPU worker, shorter over more */
  static char more_chunks[3];
  for (int c = 0; c < 3; c++)
    size_model_set_cpu_home((starpu_data_handle_t)&more_chunks[c]);
  const int cores = (int)starpu_cpu_worker_get_count();
  const int round = cores <= 1 ? 4 : (4 + cores - 1) / cores;
  assert_float_equal(size_model_task_expected_us(&test_model, &task, &gpu[0]),
                     2.0 + (1 + (round > 1 ? round : 1)) * 900.0, 1e-9);
  for (int c = 0; c < 3; c++) /* forgotten: back to a round of one */
    size_model_forget_home((starpu_data_handle_t)&more_chunks[c]);
  assert_float_equal(size_model_task_expected_us(&test_model, &task, &gpu[0]), 2.0 + 2 * 900.0,
                     1e-9);
  task.handles[0] = (starpu_data_handle_t)&gpu_chunk;
  assert_float_equal(size_model_task_expected_us(&test_model, &task, &gpu[0]), 2.0, 1e-9);
  /* a GPU home given later, or the home forgotten: the GPU's own time again */
  for (int way = 0; way < 2; way++) {
    size_model_set_cpu_home((starpu_data_handle_t)&core_chunk);
    if (way == 0)
      size_model_set_home((starpu_data_handle_t)&core_chunk, fake_gpu(0));
    else
      size_model_forget_home((starpu_data_handle_t)&core_chunk);
    task.handles[0] = (starpu_data_handle_t)&core_chunk;
    assert_float_equal(size_model_task_expected_us(&test_model, &task, &gpu[0]), 2.0, 1e-9);
  }
  /* no GPU: no home at all */
  size_model_set_gpus(devids, 0);
  size_model_set_cpu_home((starpu_data_handle_t)&core_chunk);
  assert_float_equal(size_model_task_expected_us(&test_model, &task, &gpu[0]), 2.0, 1e-9);
  size_model_clear();
}

/* A chunk the cores give up during a run (MULTI_SHARE_LAG_TO_GPUS) has the GPUs as home: a core
 * never ends its task (INFINITY, so dmda gives it to a GPU), a GPU's prediction is its own time
 * with no core's round added, and the cores' other chunks still add a round (one fewer chunk at
 * home). Forgotten (unregistered), or at the cores' home again, it predicts as before. */
static void size_model_gives_chunks_up_to_gpus(void **state) {
  (void)state;
  const int devids[] = {fake_gpu(0)};
  struct starpu_perfmodel_device gpu_device[1], core_device;
  struct starpu_perfmodel_arch gpu[1], core;
  one_gpu_beside_cores(devids, gpu_device, gpu, &core_device, &core);
  static char given_up, kept[2];
  size_model_set_cpu_home((starpu_data_handle_t)&given_up);
  for (int c = 0; c < 2; c++)
    size_model_set_cpu_home((starpu_data_handle_t)&kept[c]);
  static struct starpu_codelet writes = {.nbuffers = 1, .modes = {STARPU_RW}};
  struct starpu_task task, kept_task;
  memset(&task, 0, sizeof task);
  task.cl = &writes;
  task.handles[0] = (starpu_data_handle_t)&given_up;
  kept_task = task;
  kept_task.handles[0] = (starpu_data_handle_t)&kept[0];
  const int cores = (int)starpu_cpu_worker_get_count();
  const int round3 = cores <= 1 ? 3 : (3 + cores - 1) / cores;
  const int round2 = cores <= 1 ? 2 : (2 + cores - 1) / cores;
  assert_float_equal(size_model_task_expected_us(&test_model, &kept_task, &gpu[0]),
                     2.0 + (1 + round3) * 900.0, 1e-9);
  size_model_set_gpus_home((starpu_data_handle_t)&given_up);
  assert_true(isinf(size_model_task_expected_us(&test_model, &task, &core)));
  assert_float_equal(size_model_task_expected_us(&test_model, &task, &gpu[0]), 2.0, 1e-9);
  /* dmda's choice: an idle core never ends it before a GPU, however busy the GPU */
  for (double gpu_free_at = 0; gpu_free_at <= 1e6; gpu_free_at += 1e5)
    assert_true(gpu_free_at + size_model_task_expected_us(&test_model, &task, &gpu[0]) <
                0.0 + size_model_task_expected_us(&test_model, &task, &core));
  /* the chunks kept: the cores' prediction untouched, the GPU's a round of two chunks */
  assert_float_equal(size_model_task_expected_us(&test_model, &kept_task, &core), 900.0, 1e-9);
  assert_float_equal(size_model_task_expected_us(&test_model, &kept_task, &gpu[0]),
                     2.0 + (1 + round2) * 900.0, 1e-9);
  /* forgotten, or the cores' home given back: the predictions of a chunk with no home, then of
   * one at the cores' home */
  size_model_forget_home((starpu_data_handle_t)&given_up);
  assert_float_equal(size_model_task_expected_us(&test_model, &task, &core), 900.0, 1e-9);
  assert_float_equal(size_model_task_expected_us(&test_model, &task, &gpu[0]), 2.0, 1e-9);
  size_model_set_cpu_home((starpu_data_handle_t)&given_up);
  size_model_set_gpus_home((starpu_data_handle_t)&given_up);
  size_model_set_cpu_home((starpu_data_handle_t)&given_up);
  assert_float_equal(size_model_task_expected_us(&test_model, &task, &core), 900.0, 1e-9);
  assert_float_equal(size_model_task_expected_us(&test_model, &task, &gpu[0]),
                     2.0 + (1 + round3) * 900.0, 1e-9);
  /* a new start forgets every home */
  size_model_set_gpus_home((starpu_data_handle_t)&given_up);
  size_model_set_gpus(devids, 1);
  assert_float_equal(size_model_task_expected_us(&test_model, &task, &core), 900.0, 1e-9);
  size_model_clear();
}

/* GPUs of one model pool their measurements: what one GPU measured is every GPU's prediction,
 * and two GPUs' samples of a size make one mean. Apart, each GPU keeps its own. */
static void size_model_pools_alike_gpus(void **state) {
  (void)state;
  struct starpu_perfmodel_device gpu_device[2];
  struct starpu_perfmodel_arch gpu[2];
  cuda_archs(2, gpu_device, gpu);
  for (int pool = 0; pool < 2; pool++) {
    size_model_clear();
    size_model_pool_gpus(pool);
    size_model_record("test_model", 3, 1000, &gpu[0], 999); /* warm-up, dropped */
    size_model_record("test_model", 3, 1000, &gpu[0], 100);
    if (!pool)
      size_model_record("test_model", 3, 1000, &gpu[1], 999); /* GPU 1's own warm-up */
    size_model_record("test_model", 3, 1000, &gpu[1], 160);
    const double on0 = size_model_expected_us(&test_model, 3, 1000, &gpu[0]);
    const double on1 = size_model_expected_us(&test_model, 3, 1000, &gpu[1]);
    if (pool) { /* one series: (100 + 160) / 2 for both */
      assert_float_equal(on0, 130.0, 1e-9);
      assert_float_equal(on1, 130.0, 1e-9);
    } else {
      assert_float_equal(on0, 100.0, 1e-9);
      assert_float_equal(on1, 160.0, 1e-9);
    }
  }
  size_model_pool_gpus(0);
  size_model_clear();
}

#define assert_close(got, want, tolerance) assert_true(fabs((got) - (want)) <= (tolerance))

/* Beside GPUs, the cores other processes keep busy are left to them (runtime.h): the busy share
 * of each allowed processor's /proc/stat counters between two readings, summed; rounded to the
 * nearest core, none under half of one, one core kept, none without a GPU; no readable allowed
 * processor gives -1. */
static void busy_cores_are_left_to_others(void **state) {
  (void)state;
  /* cpu0 busy all along (user), cpu1 half (system, the rest idle), cpu2 iowait and idle, cpu3
   * steal and irq; the aggregate "cpu" line and others are not read */
  const char *before = "cpu  9 9 9 9 9 9 9 9 0 0\n"
                       "cpu0 100 0 0 0 0 0 0 0 0 0\n"
                       "cpu1 0 0 100 100 0 0 0 0 0 0\n"
                       "cpu2 0 0 0 100 100 0 0 0 0 0\n"
                       "cpu3 0 0 0 0 0 100 0 100 0 0\n"
                       "intr 12345\n";
  const char *after = "cpu  1 1 1 1 1 1 1 1 0 0\n"
                      "cpu0 200 0 0 0 0 0 0 0 0 0\n"
                      "cpu1 0 0 150 150 0 0 0 0 0 0\n"
                      "cpu2 0 0 0 150 150 0 0 0 0 0\n"
                      "cpu3 0 0 0 0 0 150 0 150 0 0\n";
  const unsigned char all[4] = {1, 1, 1, 1}, first_two[4] = {1, 1, 0, 0}, third[4] = {0, 0, 1, 0},
                      none[4] = {0};
  assert_close(runtime_busy_processors(before, after, all, 4), 1.0 + 0.5 + 0.0 + 1.0, 1e-12);
  assert_close(runtime_busy_processors(before, after, first_two, 4), 1.5, 1e-12);
  assert_close(runtime_busy_processors(before, after, third, 4), 0.0, 1e-12);
  /* a processor past the text's, one with no time, counters that went back: not counted */
  const unsigned char five[5] = {1, 1, 1, 1, 1};
  assert_close(runtime_busy_processors(before, after, five, 5), 2.5, 1e-12);
  assert_close(runtime_busy_processors(before, before, all, 4), -1.0, 0.0);
  assert_close(runtime_busy_processors(after, before, all, 4), -1.0, 0.0);
  assert_close(runtime_busy_processors(before, after, none, 4), -1.0, 0.0);
  assert_close(runtime_busy_processors("intr 1 2 3\n", after, all, 4), -1.0, 0.0);
  /* "cpu1" is not "cpu12" */
  const unsigned char twelve[13] = {[12] = 1};
  assert_close(runtime_busy_processors("cpu1 0 0 0 0 0 0 0 0\ncpu12 0 0 0 10 0 0 0 0\n",
                                       "cpu1 50 0 0 0 0 0 0 0\ncpu12 0 0 0 20 0 0 0 0\n", twelve,
                                       13),
               0.0, 1e-12);
  assert_int_equal(runtime_cores_to_leave(3.02, 16, 1), 3); /* three copying processes */
  assert_int_equal(runtime_cores_to_leave(2.6, 16, 1), 3);
  assert_int_equal(runtime_cores_to_leave(2.4, 16, 2), 2);
  assert_int_equal(runtime_cores_to_leave(0.6, 16, 1), 1);
  assert_int_equal(runtime_cores_to_leave(0.45, 16, 1), 0); /* a quiet host's daemons */
  assert_int_equal(runtime_cores_to_leave(40.0, 16, 1), 15);
  assert_int_equal(runtime_cores_to_leave(3.0, 16, 0), 0); /* CPU workers alone: all of them */
  assert_int_equal(runtime_cores_to_leave(-1.0, 16, 1), 0);
  assert_int_equal(runtime_cores_to_leave(NAN, 16, 1), 0);
  assert_int_equal(runtime_cores_to_leave(3.0, 1, 1), 0);
}

/* runtime_measure_busy_processors on this machine: a thread of this process spinning through the
 * reading counts as about one busy processor (others' load may add to it), never more than the
 * processors this process may use (this test's StarPU workers may add theirs). Skipped where
 * /proc/stat cannot be read. */
static atomic_int spinning;
static void *spin(void *unused) {
  (void)unused;
  volatile double x = 1.0;
  while (atomic_load(&spinning))
    x = x * 1.0000001 + 1e-9;
  return NULL;
}
static void busy_processors_are_measured(void **state) {
  (void)state;
  int allowed = 0;
  if (access("/proc/stat", R_OK) != 0)
    skip();
  assert_true(runtime_measure_busy_processors(&allowed) >= 0.0);
  assert_true(allowed >= 1);
  unsigned char flags[RUNTIME_MAX_PROCESSORS];
  int flagged = 0;
  assert_int_equal(runtime_usable_processors(flags), allowed);
  for (int cpu = 0; cpu < RUNTIME_MAX_PROCESSORS; cpu++)
    flagged += flags[cpu];
  assert_int_equal(flagged, allowed);
  assert_int_equal(runtime_usable_processors(NULL), allowed);
  atomic_store(&spinning, 1);
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, spin, NULL), 0);
  const struct timespec settle = {0, 20 * 1000 * 1000};
  nanosleep(&settle, NULL);
  const double busy = runtime_measure_busy_processors(&allowed);
  atomic_store(&spinning, 0);
  pthread_join(thread, NULL);
  print_message("busy processors with one spinning thread: %.2f of %d\n", busy, allowed);
  assert_true(busy >= 0.7);
  assert_true(busy <= allowed + 1e-9);
}

/* CUDA workers per GPU follow the tasks a GPU gets where that is 5 to 15 (runtime.h), and stay
 * at hinestask's default (0 here) elsewhere. */
static void workers_per_gpu_follow_tasks(void **state) {
  (void)state;
  assert_int_equal(runtime_workers_per_gpu(16, 2), 8); /* 16 tasks over two GPUs */
  assert_int_equal(runtime_workers_per_gpu(12, 2), 6);
  assert_int_equal(runtime_workers_per_gpu(15, 1), 15);
  assert_int_equal(runtime_workers_per_gpu(17, 2), 9); /* 9 and 8: the larger share */
  assert_int_equal(runtime_workers_per_gpu(16, 1), 0); /* 16 a GPU: the default */
  assert_int_equal(runtime_workers_per_gpu(64, 1), 0); /* more: the default */
  assert_int_equal(runtime_workers_per_gpu(8, 2), 0);  /* 4 a GPU: the default */
  assert_int_equal(runtime_workers_per_gpu(4, 1), 0);
  assert_int_equal(runtime_workers_per_gpu(16, 0), 0); /* no GPU */
  assert_int_equal(runtime_workers_per_gpu(0, 2), 0);
}

/* eager and lws over several GPUs: 4 workers a GPU keeping 1 task queued where a GPU gets 4
 * tasks or fewer (or hinestask's own chunking); the defaults otherwise. */
static void greedy_schedulers_leave_every_gpu_a_share(void **state) {
  (void)state;
  int workers, pipeline;
  const char *greedy[] = {"eager", "lws"};
  for (int i = 0; i < 2; i++) {
    runtime_greedy_workers(greedy[i], 0, 2, &workers, &pipeline); /* hinestask's chunks */
    assert_int_equal(workers, 4), assert_int_equal(pipeline, 1);
    runtime_greedy_workers(greedy[i], 8, 2, &workers, &pipeline); /* 4 a GPU */
    assert_int_equal(workers, 4), assert_int_equal(pipeline, 1);
    runtime_greedy_workers(greedy[i], 9, 2, &workers, &pipeline); /* 5 on one */
    assert_int_equal(workers, 0), assert_int_equal(pipeline, 0);
    runtime_greedy_workers(greedy[i], 0, 1, &workers, &pipeline); /* one GPU */
    assert_int_equal(workers, 0), assert_int_equal(pipeline, 0);
  }
  const char *others[] = {"dmdas", "dmda", "pheft", "peager", "random", "ws", NULL};
  for (int i = 0; i < 7; i++) {
    runtime_greedy_workers(others[i], 0, 2, &workers, &pipeline);
    assert_int_equal(workers, 0), assert_int_equal(pipeline, 0);
  }
}

/* A level-solved batch gets one chunk per 10 M compartments a GPU, 1 to 4, and two from 8 M
 * (placement.h): the mixes at mono's 81.7 M compartments four a GPU on one GPU and on two, the
 * deep chains three a GPU on two, 3,000 CA1 cells (8.1 M) two, 500 one, 400 M compartments on
 * one GPU no more than four. */
static void level_chunks_follow_compartments(void **state) {
  (void)state;
  assert_int_equal(placement_level_chunks_per_gpu(84498960, 1), 4); /* six cells x 33,390 */
  assert_int_equal(placement_level_chunks_per_gpu(84498960, 2), 4);
  assert_int_equal(placement_level_chunks_per_gpu(81680876, 1), 4); /* large cells x 6,643 */
  assert_int_equal(placement_level_chunks_per_gpu(73498000, 1), 4); /* deep chains */
  assert_int_equal(placement_level_chunks_per_gpu(42244868, 1), 4); /* six cells x 16,695 */
  assert_int_equal(placement_level_chunks_per_gpu(8112000, 1), 2);  /* CA1 x 3,000 */
  assert_int_equal(placement_level_chunks_per_gpu(1352000, 2), 1);  /* CA1 x 500 */
  assert_int_equal(placement_level_chunks_per_gpu(400000000, 1), 4);
  assert_int_equal(placement_level_chunks_per_gpu(7999999, 1), 1);
  assert_int_equal(placement_level_chunks_per_gpu(8000000, 1), 2);
  assert_int_equal(placement_level_chunks_per_gpu(8000000, 2), 1);
  assert_int_equal(placement_level_chunks_per_gpu(73498000, 2), 3); /* deep chains, two GPUs */
  assert_int_equal(placement_level_chunks_per_gpu(30000000, 2), 2);
  assert_int_equal(placement_level_chunks_per_gpu(19999999, 1), 2);
  assert_int_equal(placement_level_chunks_per_gpu(30000000, 1), 3);
  assert_int_equal(placement_level_chunks_per_gpu(12000000, 0), 2); /* no GPU counts as one */
}

/* Small levels first (--level-priorities auto, placement.h): on for chunks of at most 15 M
 * compartments (the mixes at 81.7 M over two GPUs, four chunks of about 10 M a GPU; CA1), at most
 * 12 M where the cells hold 5,000 compartments or more on average (steps127), off for larger (the
 * same mixes on one GPU, four chunks of about 20 M; HH's one chunk a GPU); on and off as asked
 * whatever the size. */
static void level_priorities_follow_chunk_size(void **state) {
  (void)state;
  /* chunks of large cells (12,296 compartments a neuron) and of the six small ones (2,531) */
  const long long big = 81680876;
  assert_int_equal(placement_level_priorities(-1, big / 8, big / 8, 12296), 1); /* two GPUs */
  assert_int_equal(placement_level_priorities(-1, 73498000 / 6, 73498000 / 6, 3000), 1);
  assert_int_equal(placement_level_priorities(-1, 73498000 / 6, 73498000 / 6, 7000), 0);
  assert_int_equal(placement_level_priorities(-1, 8112000 / 2, 8112000 / 2, 2700), 1); /* CA1 */
  assert_int_equal(placement_level_priorities(-1, 15000000, 15000000, 2531), 1);
  assert_int_equal(placement_level_priorities(-1, 15000001, 15000001, 2531), 0);
  assert_int_equal(placement_level_priorities(-1, 12000000, 12000000, 12296), 1);
  assert_int_equal(placement_level_priorities(-1, 12000001, 12000001, 12296), 0);
  /* 55 M of large cells in four aligned chunks and the rest's: off by the aligned chunks' size */
  assert_int_equal(placement_level_priorities(-1, 11000000, 13700000, 9261), 0);
  assert_int_equal(placement_level_priorities(-1, 11000000, 13700000, 4999), 1); /* E: even */
  assert_int_equal(placement_level_priorities(-1, big / 4, big / 4, 2531), 0);   /* one GPU */
  assert_int_equal(placement_level_priorities(-1, big, big, 12296), 0);          /* HH, one chunk */
  assert_int_equal(placement_level_priorities(1, big, big, 12296), 1);
  assert_int_equal(placement_level_priorities(0, 1000, 1000, 12296), 0);
  assert_int_equal(placement_level_priorities(1, 1000, 1000, 12296), 1);
  /* laid out by morphology: the cores' share always, the other chunks without GPUs */
  assert_true(placement_level_arranged(PLACEMENT_SHARE_AUTO, 0, 0));
  assert_false(placement_level_arranged(PLACEMENT_SHARE_AUTO, 1, 0));
  assert_false(placement_level_arranged(PLACEMENT_SHARE_AUTO, 2, 0));
  assert_true(placement_level_arranged(PLACEMENT_SHARE_AUTO, 1, 1));
  assert_true(placement_level_arranged(PLACEMENT_SHARE_ON, 2, 0));
  assert_false(placement_level_arranged(PLACEMENT_SHARE_OFF, 0, 0));
  assert_false(placement_level_arranged(PLACEMENT_SHARE_OFF, 1, 1));
}

/* Large passive batches (placement.h: blocks on GPUs): 256,000 medium-high neurons (319
 * compartments) on one GPU, 512,000 over two, not 256,000 over two, not 25,600, not small-high (76
 * compartments) x 256,000, not with channels, never without a GPU. The CPU workers' share by
 * default: batches of 64 M compartments or more on one GPU, passive or HH (of any size above:
 * 177 M, 204 M, 327 M, 354 M), not over two GPUs, not without one (this test's StarPU has none: the
 * default asks for none, on and off are taken as asked); the share's tasks take 8 steps unless
 * asked; the default mono layout (placement_mono_blocks). */
static void large_passive_batches(void **state) {
  (void)state;
  /* neurons and compartments a neuron; "compartments" alone: 1,000 neurons of that many */
  const struct {
    long long neurons, per_neuron;
    int gpus, channels, large, share;
  } cases[] = {
      {256000, 319, 1, 0, 1, 1},
      {512000, 319, 1, 0, 1, 1},
      {512000, 319, 2, 0, 1, 0},
      {1024000, 319, 2, 0, 1, 0},
      {256000, 319, 2, 0, 0, 0},
      {25600, 319, 1, 0, 0, 0},
      {256000, 76, 1, 0, 0, 0},  /* 19 M */
      {512000, 319, 1, 1, 0, 1}, /* HH: not large, but a share */
      {256000, 319, 1, 1, 0, 1},
      {256000, 319, 2, 1, 0, 0},
      {512000, 319, 0, 0, 0, 0},
      {1000, PLACEMENT_LARGE_BATCH_COMPARTMENTS / 1000, 1, 0, 1, 1},
      {1000, PLACEMENT_LARGE_BATCH_COMPARTMENTS / 1000 - 1, 1, 0, 0, 0},
      {1000, PLACEMENT_LARGE_BATCH_COMPARTMENTS / 1000 - 1, 1, 1, 0, 0},
      {1000, PLACEMENT_LARGE_BATCH_COMPARTMENTS / 1000, 1, 1, 0, 1},
      {256000, 691, 1, 1, 0, 1},  /* big-high 256,000 HH: 177 M */
      {512000, 691, 1, 1, 0, 1},  /* big-high 512,000 HH: 354 M */
      {1024000, 319, 1, 1, 0, 1}, /* 327 M HH */
      {640000, 319, 1, 1, 0, 1},  /* medium-high 640,000 HH: 204 M */
      {2000, PLACEMENT_LARGE_BATCH_COMPARTMENTS / 1000, 2, 0, 1, 0},
      {256000, 691, 1, 0, 1, 1},  /* big-high 256,000: 177 M */
      {1024000, 319, 1, 0, 1, 1}, /* 327 M */
      {1000000, 76, 1, 0, 1, 1},  /* small-high 1,000,000: 76 M */
      /* below 64 M: a share with PLACEMENT_SHARE_NEURONS neurons from 30 M on */
      {100000, 319, 1, 0, 0, 1}, /* medium-high 100,000: 32 M */
      {100000, 319, 1, 1, 0, 1}, /* and with HH */
      {99999, 319, 1, 0, 0, 0},  /* one neuron fewer */
      {400000, 76, 1, 0, 0, 1},  /* small-high 400,000: 30.4 M */
      {394736, 76, 1, 1, 0, 0},  /* 29.99 M */
      {64000, 691, 1, 0, 0, 0},  /* big-high 64,000: 44 M, too few neurons */
      {64000, 691, 1, 1, 0, 0},  /* and with HH */
      {160000, 319, 2, 0, 0, 0}, /* two GPUs */
      {PLACEMENT_SHARE_NEURONS, PLACEMENT_SHARE_FROM_COMPARTMENTS / PLACEMENT_SHARE_NEURONS, 1, 1,
       0, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const long long neurons = cases[i].neurons,
                    compartments = cases[i].neurons * cases[i].per_neuron;
    assert_int_equal(placement_large_passive_batch(compartments, cases[i].gpus, cases[i].channels),
                     cases[i].large);
    assert_int_equal(placement_cpus_share(neurons, compartments, cases[i].gpus, 0), cases[i].share);
    assert_int_equal(placement_cpus_share(neurons, compartments, cases[i].gpus, 4), cases[i].share);
    /* a window of 1 waits after every round: never a share by default */
    assert_false(placement_cpus_share(neurons, compartments, cases[i].gpus, 1));
  }
  /* the default layout: blocks without GPUs, for large passive batches, and with a share asked */
  const struct {
    long long compartments;
    int gpus, channels, share, blocks;
  } layouts[] = {
      {25600LL * 319, 0, 0, PLACEMENT_SHARE_AUTO, 1},
      {25600LL * 319, 1, 0, PLACEMENT_SHARE_AUTO, 0},
      {25600LL * 319, 1, 0, PLACEMENT_SHARE_ON, 1},
      {25600LL * 319, 1, 0, PLACEMENT_SHARE_OFF, 0},
      {256000LL * 319, 1, 0, PLACEMENT_SHARE_AUTO, 1},
      {256000LL * 319, 1, 1, PLACEMENT_SHARE_AUTO, 0},
      {256000LL * 319, 1, 1, PLACEMENT_SHARE_ON, 1},
      {256000LL * 319, 2, 0, PLACEMENT_SHARE_AUTO, 0},
      {256000LL * 691, 1, 0, PLACEMENT_SHARE_OFF, 1},
  };
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
    assert_int_equal(placement_mono_blocks(layouts[i].compartments, layouts[i].gpus,
                                           layouts[i].channels, layouts[i].share),
                     layouts[i].blocks);
  /* beside the cores' share, the GPU's chunks interleaved where the GPU alone runs interleaved:
   * with HH, and below 64 M; in blocks for large passive batches */
  assert_true(placement_share_gpu_interleaved(256000LL * 319, 1, 1));
  assert_true(placement_share_gpu_interleaved(25600LL * 319, 1, 0));
  assert_false(placement_share_gpu_interleaved(256000LL * 319, 1, 0));
  assert_false(placement_share_gpu_interleaved(256000LL * 319, 0, 1));
  /* On and off as asked; by default none without a GPU (ctest runs this with STARPU_NCUDA=0) */
  if (starpu_cuda_worker_get_count() == 0)
    assert_int_equal(placement_share_chosen(PLACEMENT_SHARE_AUTO, 256000, 256000LL * 319, 0), 0);
  assert_int_equal(placement_share_chosen(PLACEMENT_SHARE_ON, 25600, 25600LL * 319, 1), 1);
  assert_int_equal(placement_share_chosen(PLACEMENT_SHARE_OFF, 256000, 256000LL * 319, 0), 0);
  /* The multi share by default: passive, from 40 M a GPU (with the GPUs' part aligned, fifteen
   * batches at 40.8-51.0 M, the mixes at 60-84 M and the six cells at 253 M gained; random trees
   * at 34.6 M and every mix at 20 M lost), a window of more than one step */
  const struct {
    long long compartments;
    int gpus, channels, window, share;
  } levels[] = {
      {81716102, 1, 0, 0, 1},                                        /* C x 11,720 */
      {253000000, 1, 0, 4, 1},                                       /* the six cells x 100,000 */
      {169000000, 2, 0, 0, 1},                                       /* x 66,780 over two GPUs */
      {PLACEMENT_LEVEL_SHARE_FROM_COMPARTMENTS, 1, 0, 0, 1},         /* from the bound */
      {PLACEMENT_LEVEL_SHARE_FROM_COMPARTMENTS - 1, 1, 0, 0, 0},     /* not below it */
      {2 * PLACEMENT_LEVEL_SHARE_FROM_COMPARTMENTS - 2, 2, 0, 0, 0}, /* a GPU's part counts */
      {60547500, 1, 0, 0, 1},                                        /* F x 90,000 */
      {40853439, 1, 0, 0, 1},                                        /* C x 5,860 */
      {34625000, 1, 0, 0, 0},                                        /* random x 10,000: lost */
      {20400000, 1, 0, 0, 0},                                        /* C x 2,930: lost */
      {81716102, 1, 1, 0, 0},                                        /* channels */
      {81716102, 1, 0, 1, 0},                                        /* a window of 1 */
      {81716102, 0, 0, 0, 0},                                        /* no GPU */
  };
  for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
    assert_int_equal(placement_level_cpus_share(levels[i].compartments, levels[i].gpus,
                                                levels[i].channels, levels[i].window),
                     levels[i].share);
  /* as asked when on or off; by default none without a GPU */
  if (starpu_cuda_worker_get_count() == 0)
    assert_false(placement_level_share_chosen(PLACEMENT_SHARE_AUTO, 253000000, 0, 0));
  assert_true(placement_level_share_chosen(PLACEMENT_SHARE_ON, 1000, 1, 1));
  assert_false(placement_level_share_chosen(PLACEMENT_SHARE_OFF, 253000000, 0, 0));
  assert_int_equal(placement_share_task_steps(0), PLACEMENT_SHARE_TASK_STEPS);
  assert_int_equal(placement_share_task_steps(3), 3);
  /* a multi share's tasks are longer than a mono share's (the GPU's chunks pay StarPU's cost
   * between dependent tasks less often beside busy cores), as asked when asked */
  assert_true(placement_level_share_task_steps(0) > placement_share_task_steps(0));
  assert_int_equal(placement_level_share_task_steps(5), 5);
}

/* Predictions linear in neurons, the CPU worker's (worker 0) and a GPU worker's (worker 1): the
 * cores' share cut on them has a closed form to check against. NAN everywhere when `cpu_us` < 0
 * (nothing measured). */
struct linear_rates {
  double cpu_us, gpu_fixed_us, gpu_us; /* microseconds a neuron, and a GPU task's fixed part */
};
static double linear_predict(const void *context, int neurons, int worker) {
  const struct linear_rates *r = context;
  if (r->cpu_us < 0)
    return NAN;
  return worker == 0 ? neurons * r->cpu_us : r->gpu_fixed_us + neurons * r->gpu_us;
}

/* The same with a fixed cost a CPU task (microseconds). */
struct fixed_cost_rates {
  struct linear_rates rates;
  double cpu_fixed_us;
};
static double fixed_cost_predict(const void *context, int neurons, int worker) {
  const struct fixed_cost_rates *r = context;
  return linear_predict(&r->rates, neurons, worker) + (worker == 0 ? r->cpu_fixed_us : 0.0);
}

/* Linear predictions, infinite on a core past cpu_largest neurons a task. */
struct reach_rates {
  struct linear_rates rates;
  int cpu_largest;
};
static double reach_predict(const void *context, int neurons, int worker) {
  const struct reach_rates *r = context;
  return worker == 0 && neurons > r->cpu_largest ? INFINITY
                                                 : linear_predict(&r->rates, neurons, worker);
}

/* A core's line that stays near its largest measured time beyond it (the slope of a line
 * through measurements of one size), and the same seen through placement_core_prediction (the
 * multi share's predictor). */
struct flat_rates {
  struct linear_rates rates;
  int cpu_largest;
  int trusted; /* 1: through placement_core_prediction */
};
static double flat_predict(const void *context, int neurons, int worker) {
  const struct flat_rates *r = context;
  if (worker != 0 || neurons <= r->cpu_largest)
    return linear_predict(&r->rates, neurons, worker);
  const double at_largest = linear_predict(&r->rates, r->cpu_largest, worker);
  const double flat = at_largest * (1.0 + 1e-3 * (neurons - r->cpu_largest) / r->cpu_largest);
  return r->trusted ? placement_core_prediction(flat, at_largest, r->cpu_largest, neurons, 2.0)
                    : flat;
}

/* placement_core_prediction: the model's own up to the largest size measured (or when none
 * is), at least in proportion from there up to the reach, infinite past it; so a core's line
 * that stays flat past what it measured no longer doubles its chunks (share32: the six cells
 * went from chunks of 20 neurons to 42 at the same predicted time, 1.6x slower than the GPU
 * alone): the cut is the one the true line gives. */
static void core_predictions_grow_past_what_was_measured(void **state) {
  (void)state;
  assert_true(placement_core_prediction(7.0, 5.0, 0.0, 1e9, 2.0) == 7.0);     /* nothing measured */
  assert_true(placement_core_prediction(3.0, 5.0, 100.0, 80.0, 2.0) == 3.0);  /* within */
  assert_true(placement_core_prediction(5.1, 5.0, 100.0, 150.0, 2.0) == 7.5); /* flat: grown */
  assert_true(placement_core_prediction(9.0, 5.0, 100.0, 150.0, 2.0) == 9.0); /* steeper: kept */
  assert_true(isinf(placement_core_prediction(5.1, 5.0, 100.0, 201.0, 2.0))); /* past the reach */
  /* the share's GPU chunks: anywhere, but on GPUs alone when pinned or in a calibration run */
  assert_int_equal(placement_share_gpu_where(0, 0), STARPU_CPU | STARPU_CUDA);
  assert_int_equal(placement_share_gpu_where(0, 1), STARPU_CUDA);
  assert_int_equal(placement_share_gpu_where(1, 0), STARPU_CUDA);
  const struct placement_workers workers = {
      .cpus = 15, .gpu_chunks = 4, .cpu_worker = 0, .cuda_worker = 1};
  const double work = 319.0 * 8;
  const struct linear_rates rates = {work / 400.0, 30.0, work / 20000.0};
  struct placement_plan truth, flat, trusted;
  struct flat_rates raw = {.rates = rates, .cpu_largest = 200}, through = raw;
  through.trusted = 1;
  assert_int_equal(
      placement_plan_make_for(&truth, &workers, 0, 256000, 256000, 1, linear_predict, &rates), 0);
  assert_int_equal(
      placement_plan_make_for(&flat, &workers, 0, 256000, 256000, 1, flat_predict, &raw), 0);
  assert_int_equal(
      placement_plan_make_for(&trusted, &workers, 0, 256000, 256000, 1, flat_predict, &through), 0);
  const int last = truth.n_chunks - 1;
  assert_true(truth.units[last] > 200 && truth.units[last] < 400); /* about 285 */
  assert_true(flat.units[flat.n_chunks - 1] >= 390);               /* up to the reach */
  assert_int_equal(trusted.n_chunks, truth.n_chunks);
  for (int c = 0; c < truth.n_chunks; c++)
    assert_int_equal(trusted.units[c], truth.units[c]);
  placement_plan_free(&truth), placement_plan_free(&flat), placement_plan_free(&trusted);
}

/* Beside the GPUs' chunks, PLACEMENT_CPU_CHUNKS_PER_CORE chunks a CPU worker (fewer when a core
 * takes fewer units), equal to a unit, covering the batch once; each core's share the largest whose
 * four tasks end by 0.95 of a GPU chunk's task (or the `ends_by` given; one unit more would not),
 * near the closed form of linear predictions says; none when nothing is measured or a core is too
 * slow for one unit. 15 cores and 4 GPU chunks as on the H200 machine, medium-high at 8 steps (a
 * core 0.4 G compartment-steps/s, a GPU chunk 20). */
static void share_cut_fills_the_cores_round(void **state) {
  (void)state;
  const struct placement_workers workers = {
      .cpus = 15, .gpu_chunks = 4, .cpu_worker = 0, .cuda_worker = 1};
  const double work = 319.0 * 8; /* compartment-steps a neuron in a task */
  struct linear_rates rates = {work / 400.0, 30.0, work / 20000.0};
  const struct {
    int n_neurons, neurons_per_unit;
    double ends_by; /* 0: the default, PLACEMENT_SHARE_ENDS_BY */
  } batches[] = {
      {256000, 1, 0}, {256000, 32, 0}, {1000003, 1, 0}, {25600, 32, 0}, {256000, 1, 0.8}};
  for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
    struct placement_workers these = workers;
    these.ends_by = batches[b].ends_by;
    const double e = batches[b].ends_by > 0 ? batches[b].ends_by : 0.95;
    const int npu = batches[b].neurons_per_unit;
    const int n_units = (batches[b].n_neurons + npu - 1) / npu;
    struct placement_plan plan;
    assert_int_equal(placement_plan_make_for(&plan, &these, 0, batches[b].n_neurons, n_units, npu,
                                             linear_predict, &rates),
                     0);
    assert_int_equal(plan.n_chunks, workers.gpu_chunks + plan.cpu_chunks);
    int total = 0, cpu_units = 0, low = n_units, high = 0;
    for (int c = 0; c < plan.n_chunks; c++) {
      total += plan.units[c];
      const int cores = c >= workers.gpu_chunks;
      assert_int_equal(plan.sized_for[c], cores ? STARPU_CPU : STARPU_CUDA);
      if (cores) {
        cpu_units += plan.units[c];
        low = plan.units[c] < low ? plan.units[c] : low;
        high = plan.units[c] > high ? plan.units[c] : high;
      }
    }
    assert_int_equal(total, n_units);
    assert_true(high - low <= 1);
    assert_int_equal(cpu_units % workers.cpus, 0);
    /* the closed form: a core's round p * u * c against e (f + (N - 15 p) u g / 4) */
    const double u = npu, c = rates.cpu_us, g = rates.gpu_us, f = rates.gpu_fixed_us;
    const double best = e * (f + n_units * u * g / 4) / (u * c + e * 15 * u * g / 4);
    const int per_core = cpu_units / workers.cpus;
    assert_true(per_core <= best + 0.05); /* + the GPU chunks' rounding up to a whole unit */
    /* ... and a core's chunks are costed as the cut makes them (p units over four chunks, p mod 4
     * of them a unit longer), not each as the largest (up to three units more than p: the cut
     * then stopped up to three units short): one unit more than p would not end in time */
    assert_true(per_core + 1 > best);
    /* the multi share's costing (chunks_costed_as_largest): each chunk as the largest, so at
     * most the exact cut and at most three units under the closed form */
    struct placement_workers largest = these;
    largest.chunks_costed_as_largest = 1;
    struct placement_plan kept;
    assert_int_equal(placement_plan_make_for(&kept, &largest, 0, batches[b].n_neurons, n_units, npu,
                                             linear_predict, &rates),
                     0);
    int kept_units = 0;
    for (int c = workers.gpu_chunks; c < kept.n_chunks; c++)
      kept_units += kept.units[c];
    assert_true(kept_units / workers.cpus <= per_core);
    assert_true(kept_units / workers.cpus + PLACEMENT_CPU_CHUNKS_PER_CORE > best);
    placement_plan_free(&kept);
    /* four chunks a core, or a unit each where a core takes fewer (25,600 in blocks: 3) */
    const int chunks_per_core =
        per_core < PLACEMENT_CPU_CHUNKS_PER_CORE ? per_core : PLACEMENT_CPU_CHUNKS_PER_CORE;
    assert_int_equal(plan.cpu_chunks, chunks_per_core * workers.cpus);
    placement_plan_free(&plan);
  }
  /* A task's fixed cost (the level solver's, per level and step) favours fewer, larger chunks a
   * core: with one a core its round pays it once, so it takes more than with four, in one chunk
   * each core (the multi share's --cpu-chunks 1). */
  struct placement_workers one_each = workers;
  one_each.chunks_per_core = 1;
  struct placement_plan four_plan, one_plan;
  struct fixed_cost_rates costly = {.rates = rates, .cpu_fixed_us = 500.0};
  assert_int_equal(placement_plan_make_for(&four_plan, &workers, 0, 256000, 256000, 1,
                                           fixed_cost_predict, &costly),
                   0);
  assert_int_equal(placement_plan_make_for(&one_plan, &one_each, 0, 256000, 256000, 1,
                                           fixed_cost_predict, &costly),
                   0);
  assert_int_equal(four_plan.cpu_chunks, 4 * workers.cpus);
  assert_int_equal(one_plan.cpu_chunks, workers.cpus);
  int four_units = 0, one_units = 0;
  for (int c = workers.gpu_chunks; c < four_plan.n_chunks; c++)
    four_units += four_plan.units[c];
  for (int c = workers.gpu_chunks; c < one_plan.n_chunks; c++)
    one_units += one_plan.units[c];
  assert_true(one_units > four_units);
  placement_plan_free(&four_plan);
  placement_plan_free(&one_plan);
  /* A core's prediction past what it was measured at is infinite (the multi share's reach): the
   * cut stays within it. */
  struct reach_rates reach = {.rates = rates, .cpu_largest = 100};
  struct placement_plan near_plan;
  assert_int_equal(
      placement_plan_make_for(&near_plan, &workers, 0, 256000, 256000, 1, reach_predict, &reach),
      0);
  assert_int_equal(near_plan.cpu_chunks, 4 * workers.cpus);
  for (int c = workers.gpu_chunks; c < near_plan.n_chunks; c++)
    assert_int_equal(near_plan.units[c], 100); /* (unbounded: about 285) */
  placement_plan_free(&near_plan);
  /* nothing measured, or a core slower than a GPU chunk for one unit: no share */
  struct placement_plan plan;
  struct linear_rates unmeasured = {-1, 0, 0}, slow = {1e9, 30.0, work / 20000.0};
  assert_int_equal(
      placement_plan_make_for(&plan, &workers, 0, 256000, 256000, 1, linear_predict, &unmeasured),
      0);
  assert_int_equal(plan.cpu_chunks, 0);
  placement_plan_free(&plan);
  assert_int_equal(
      placement_plan_make_for(&plan, &workers, 0, 256000, 256000, 1, linear_predict, &slow), 0);
  assert_int_equal(plan.cpu_chunks, 0);
  placement_plan_free(&plan);
}

/* Equal chunks of at least PLACEMENT_ALIGNED_FROM neurons start on whole warps (placement.h):
 * 256,000 neurons asked in tasks of 21,334 give 12 chunks of 21,344 and the rest; tiny tasks
 * keep the size asked for. */
/* A small batch goes to the cores alone when their round is predicted at most
 * PLACEMENT_CORES_ALONE_BY of the GPU's task, never on a prediction that is not a number; their
 * cut is a run without GPUs' (PLACEMENT_CPU_ALONE_CHUNKS_PER_CORE chunks a worker, near-equal,
 * every unit covered once, all sized for cores). */
static void cores_alone_rule_and_cut(void **state) {
  (void)state;
  const double gpu = 2000.0 + 1000.0 * testing_uniform(&seed_state);
  assert_true(placement_cores_alone(PLACEMENT_CORES_ALONE_BY * gpu * 0.999, gpu));
  assert_false(placement_cores_alone(PLACEMENT_CORES_ALONE_BY * gpu * 1.001, gpu));
  assert_false(placement_cores_alone(NAN, gpu));
  assert_false(placement_cores_alone(100.0, NAN));
  assert_false(placement_cores_alone(100.0, INFINITY));
  assert_false(placement_cores_alone(INFINITY, gpu));
  assert_false(placement_cores_alone(0.0, gpu));
  const struct { int units, cpus; } cuts[] = {{32, 15}, {1000, 15}, {61, 15}, {1, 16}, {7, 1}};
  for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
    struct placement_plan plan;
    assert_int_equal(placement_cores_plan(&plan, cuts[k].units, cuts[k].cpus), 0);
    const int wanted = PLACEMENT_CPU_ALONE_CHUNKS_PER_CORE * cuts[k].cpus;
    assert_int_equal(plan.n_chunks, cuts[k].units < wanted ? cuts[k].units : wanted);
    assert_int_equal(plan.cpu_chunks, plan.n_chunks);
    int total = 0, low = cuts[k].units, high = 0;
    for (int c = 0; c < plan.n_chunks; c++) {
      assert_int_equal(plan.sized_for[c], STARPU_CPU);
      total += plan.units[c];
      low = plan.units[c] < low ? plan.units[c] : low;
      high = plan.units[c] > high ? plan.units[c] : high;
    }
    assert_int_equal(total, cuts[k].units);
    assert_true(low >= 1 && high - low <= 1);
    placement_plan_free(&plan);
  }
}

/* A share's probe: the cut kept where the cores ran as predicted, else the cores' predictions
 * scaled by what they measured, never below the share's least (mono's
 * PLACEMENT_SHARE_PROBE_LEAST; the multi share's MULTI_SHARE_PROBE_LEAST, 1: only shrinking). */
static void share_probe_scales_the_cores(void **state) {
  (void)state;
  const double predicted = 1000.0 + 9000.0 * testing_uniform(&seed_state);
  const double band = PLACEMENT_SHARE_PROBE_BAND;
  const double least = PLACEMENT_SHARE_PROBE_LEAST;
  assert_true(placement_share_probe_scale(predicted * (1.0 + 0.99 * band), predicted, least) ==
              1.0);
  assert_true(placement_share_probe_scale(predicted * (1.0 - 0.99 * band), predicted, least) ==
              1.0);
  /* (a margin from the band's edges, where rounding could fall either way) */
  const double slow = 1.0 + 1.01 * band + (1.0 - band) * testing_uniform(&seed_state);
  assert_true(fabs(placement_share_probe_scale(predicted * slow, predicted, least) - slow) < 1e-12);
  const double fast = least + (1.0 - 1.01 * band - least) * testing_uniform(&seed_state);
  assert_true(fabs(placement_share_probe_scale(predicted * fast, predicted, least) - fast) < 1e-12);
  assert_true(placement_share_probe_scale(0.3 * predicted, predicted, least) == least);
  /* the multi share's least: a fast probe keeps the cut, a slow one still scales it */
  assert_true(MULTI_SHARE_PROBE_LEAST >= 1.0);
  assert_true(placement_share_probe_scale(predicted * fast, predicted, MULTI_SHARE_PROBE_LEAST) ==
              MULTI_SHARE_PROBE_LEAST);
  assert_true(placement_share_probe_scale(0.3 * predicted, predicted, MULTI_SHARE_PROBE_LEAST) ==
              MULTI_SHARE_PROBE_LEAST);
  assert_true(
      fabs(placement_share_probe_scale(predicted * slow, predicted, MULTI_SHARE_PROBE_LEAST) -
           slow) < 1e-12);
  /* nothing measured or predicted: the cut as it was */
  assert_true(placement_share_probe_scale(0.0, predicted, least) == 1.0);
  assert_true(placement_share_probe_scale(predicted, 0.0, least) == 1.0);
  assert_true(placement_share_probe_scale(NAN, predicted, least) == 1.0);
  assert_true(placement_share_probe_scale(predicted, INFINITY, least) == 1.0);
  /* a probe's rounds: the CPU workers' executing time over its rounds, a round's against the
   * prediction for one; nothing where either is missing (profiling off, no model) */
  double round_measured = -1.0, round_predicted = -1.0;
  placement_share_probe_round(PLACEMENT_SHARE_PROBE_ROUNDS * slow * predicted, predicted,
                              &round_measured, &round_predicted);
  assert_true(fabs(round_measured - slow * predicted) < 1e-9 * predicted);
  assert_true(round_predicted == predicted);
  assert_true(fabs(placement_share_probe_scale(round_measured, round_predicted, least) - slow) <
              1e-12);
  const double missing[][2] = {{0.0, predicted}, {predicted, 0.0},      {predicted, NAN},
                               {NAN, predicted}, {INFINITY, predicted}, {-predicted, predicted}};
  for (size_t k = 0; k < sizeof missing / sizeof missing[0]; k++) {
    placement_share_probe_round(missing[k][0], missing[k][1], &round_measured, &round_predicted);
    assert_true(round_measured == 0.0 && round_predicted == 0.0);
    assert_true(placement_share_probe_scale(round_measured, round_predicted, least) == 1.0);
  }
}

/* A set up's probe probed again only where its round ends by the bound but within the band below
 * it; random bounds and bands, the rounds placed well inside or outside the band's edges. */
static void share_reprobe_only_near_the_bound(void **state) {
  (void)state;
  for (int trial = 0; trial < 200; trial++) {
    const double bound = 100.0 + 9900.0 * testing_uniform(&seed_state);
    const double band = 0.01 + 0.2 * testing_uniform(&seed_state);
    const double inside = bound * (1.0 - band * (0.01 + 0.98 * testing_uniform(&seed_state)));
    const double below = bound * (1.0 - band) * (0.99 - 0.5 * testing_uniform(&seed_state));
    const double above = bound * (1.001 + testing_uniform(&seed_state));
    assert_true(placement_share_reprobe(inside, bound, band));
    assert_true(placement_share_reprobe(bound, bound, band)); /* (ends by it, just) */
    assert_false(placement_share_reprobe(below, bound, band));
    assert_false(placement_share_reprobe(above, bound, band));
    /* no band, or nothing to compare: one probe decides */
    assert_false(placement_share_reprobe(inside, bound, 0.0));
    assert_false(placement_share_reprobe(inside, bound, -band));
    assert_false(placement_share_reprobe(0.0, bound, band));
    assert_false(placement_share_reprobe(inside, NAN, band));
    assert_false(placement_share_reprobe(NAN, bound, band));
    assert_false(placement_share_reprobe(inside, INFINITY, band));
  }
  /* the case that asked for it: D x 3,702's set up to 246 neurons, 16.5 ms a round against 0.9 of
   * an 18.43 ms chunk, probed again with a band of 5 %; 0.85 of it not */
  assert_true(placement_share_reprobe(16508.1, 0.9 * 18429.8, 0.05));
  assert_false(placement_share_reprobe(0.85 * 18429.8, 0.9 * 18429.8, 0.05));
}

/* A probe taken again only where it read more than `above` times the prediction; random times. */
static void share_probe_again_only_far_off(void **state) {
  (void)state;
  for (int trial = 0; trial < 200; trial++) {
    const double predicted = 100.0 + 300000.0 * testing_uniform(&seed_state);
    const double above = 1.1 + 2.0 * testing_uniform(&seed_state);
    const double slow = predicted * above * (1.001 + testing_uniform(&seed_state));
    const double near = predicted * above * (0.2 + 0.79 * testing_uniform(&seed_state));
    assert_true(placement_share_probe_again(slow, predicted, above));
    assert_false(placement_share_probe_again(near, predicted, above));
    assert_false(placement_share_probe_again(slow, predicted, 0.0));
    assert_false(placement_share_probe_again(slow, 0.0, above));
    assert_false(placement_share_probe_again(NAN, predicted, above));
    assert_false(placement_share_probe_again(INFINITY, predicted, above));
  }
  /* the case that asked for it: C x 5,860's probe at 492.9 ms against 208.4 predicted */
  assert_true(placement_share_probe_again(492912.2, 208434.6, 1.5));
  assert_false(placement_share_probe_again(0.8 * 208434.6, 208434.6, 1.5));
}

/* A step up's growth from the probe: what ends by the bound in proportion, clamped to [least,
 * most]; least where the probe has nothing to go by; random rounds and chunks. */
static void share_idle_growth_follows_the_probe(void **state) {
  (void)state;
  for (int trial = 0; trial < 200; trial++) {
    const double gpu = 1000.0 + 30000.0 * testing_uniform(&seed_state);
    const double ends_by = 0.5 + 0.5 * testing_uniform(&seed_state);
    const double least = 1.0 + testing_uniform(&seed_state);
    const double most = least + 2.0 * testing_uniform(&seed_state);
    const double round = gpu * (0.05 + testing_uniform(&seed_state));
    const double growth = placement_share_idle_growth(round, gpu, ends_by, least, most);
    assert_true(growth >= least && growth <= most);
    const double fits = ends_by * gpu / round;
    if (fits > least && fits < most)
      assert_true(fabs(growth - fits) <= 1e-12 * fits); /* the grown share ends by the bound */
    else
      assert_true(growth == (fits <= least ? least : most));
    assert_true(placement_share_idle_growth(0.0, gpu, ends_by, least, most) == least);
    assert_true(placement_share_idle_growth(NAN, gpu, ends_by, least, most) == least);
    assert_true(placement_share_idle_growth(round, INFINITY, ends_by, least, most) == least);
    assert_true(placement_share_idle_growth(round, gpu, 0.0, least, most) == least);
  }
  /* the case that asked for it: the large cells x 3,322's 60 neurons, a core's round 6.7 ms
   * beside an 18.37 ms chunk: the share with the rest (122, 2.03 times) within 3.0 but not 2.0 */
  const double growth = placement_share_idle_growth(6700.0, 18370.0, 0.9, 1.0, 3.0);
  assert_true(growth > 122.0 / 60.0 && growth < 3.0);
  assert_true(placement_share_idle_growth(6700.0, 18370.0, 0.9, 1.0, 1.5) == 1.5);
}

/* The probe's busiest core against the GPUs' chunk: the cut kept while the busiest core ends by
 * the chunk's task (times ends_by), else scaled by how much longer it ran than the mean; random
 * rounds of random workers. */
static void share_busiest_scales_by_the_imbalance(void **state) {
  (void)state;
  for (int trial = 0; trial < 200; trial++) {
    const int cores = 1 + (int)(31 * testing_uniform(&seed_state));
    const double mean = 100.0 + 9900.0 * testing_uniform(&seed_state);
    const double imbalance = 1.0 + testing_uniform(&seed_state);
    const double busiest = mean * imbalance, round = mean * cores;
    const double ends_by = 0.5 + testing_uniform(&seed_state);
    /* a GPU task the busiest ends by (just), and one it ends after */
    const double gpu_late = 1.001 * busiest / ends_by, gpu_early = 0.999 * busiest / ends_by;
    assert_true(placement_share_busiest_scale(busiest, round, cores, gpu_late, ends_by) == 1.0);
    const double scale = placement_share_busiest_scale(busiest, round, cores, gpu_early, ends_by);
    assert_true(fabs(scale - imbalance) < 1e-12 * imbalance);
    /* nothing to compare: the cut kept */
    assert_true(placement_share_busiest_scale(0.0, round, cores, gpu_early, ends_by) == 1.0);
    assert_true(placement_share_busiest_scale(busiest, 0.0, cores, gpu_early, ends_by) == 1.0);
    assert_true(placement_share_busiest_scale(busiest, round, 0, gpu_early, ends_by) == 1.0);
    assert_true(placement_share_busiest_scale(busiest, round, cores, NAN, ends_by) == 1.0);
    assert_true(placement_share_busiest_scale(busiest, round, cores, 0.0, ends_by) == 1.0);
  }
  /* a late core no busier than the mean (the mean itself late): never a scale below 1 */
  assert_true(placement_share_busiest_scale(900.0, 4 * 1000.0, 4, 500.0, 1.0) == 1.0);
}

/* runtime_cpu_executing_read: all CPU workers' executing time and the busiest one's, from tasks
 * of known length pinned to two workers (the probe's busiest core). */
enum { SPIN_LONG_US = 40000, SPIN_SHORT_US = 10000 };
static void cpu_executing_names_the_busiest_core(void **state) {
  (void)state;
  const int profiling = starpu_profiling_status_get();
  starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  const int first = starpu_worker_get_by_type(STARPU_CPU_WORKER, 0),
            second = starpu_worker_get_by_type(STARPU_CPU_WORKER, 1);
  assert_true(first >= 0);
  starpu_task_wait_for_all();
  runtime_cpu_executing_us(); /* what ran before */
  double lengths[] = {SPIN_LONG_US, SPIN_SHORT_US};
  const int workers[] = {first, second >= 0 ? second : first};
  for (int k = 0; k < 2; k++)
    assert_int_equal(testing_spin_on_worker(workers[k], &lengths[k]), 0);
  starpu_task_wait_for_all();
  double busiest = -1.0;
  const double all = runtime_cpu_executing_read(&busiest);
  if (second >= 0) { /* the long task's worker */
    assert_true(busiest >= SPIN_LONG_US && all >= SPIN_LONG_US + SPIN_SHORT_US);
    assert_true(all - busiest >= SPIN_SHORT_US); /* the short task's worker was not the busiest */
  } else {                                       /* one worker ran both */
    assert_true(busiest >= SPIN_LONG_US + SPIN_SHORT_US && all == busiest);
  }
  /* read again: the counts restarted */
  assert_true(runtime_cpu_executing_read(&busiest) < SPIN_SHORT_US && busiest < SPIN_SHORT_US);
  starpu_profiling_status_set(profiling);
}

static void chunks_start_on_whole_warps(void **state) {
  (void)state;
  struct placement_plan plan;
  assert_int_equal(placement_plan_make(&plan, 21334, 256000, 256000, 1, NULL, NULL), 0);
  assert_int_equal(plan.n_chunks, 12);
  int total = 0;
  for (int c = 0; c < plan.n_chunks; c++) {
    if (c + 1 < plan.n_chunks)
      assert_int_equal(plan.units[c], 21344);
    total += plan.units[c];
  }
  assert_int_equal(total, 256000);
  placement_plan_free(&plan);
  assert_int_equal(placement_plan_make(&plan, 16000, 256000, 256000, 1, NULL, NULL), 0);
  assert_int_equal(plan.n_chunks, 16); /* already whole warps: unchanged */
  assert_int_equal(plan.units[15], 16000);
  placement_plan_free(&plan);
  assert_int_equal(placement_plan_make(&plan, 10, 100, 100, 1, NULL, NULL), 0);
  assert_int_equal(plan.n_chunks, 10); /* small tasks as asked */
  placement_plan_free(&plan);
  assert_int_equal(placement_plan_make(&plan, 1500, 3000, 94, 32, NULL, NULL), 0);
  assert_int_equal(plan.units[0], 47); /* blocks of 32 neurons: whole blocks already */
  placement_plan_free(&plan);
  /* interleaved rows are whole warps too (batch_layout.h): 1,001 neurons in rows of 1,024 */
  struct batch_layout layout;
  batch_layout_init(&layout, BATCH_LAYOUT_INTERLEAVED, 5, 1001, 32);
  assert_int_equal(layout.block_size, 1024);
  assert_int_equal((int)batch_layout_index(&layout, 1000, 4), 4 * 1024 + 1000);
  assert_int_equal((int)batch_layout_size(&layout), 5 * 1024);
}

/* runtime_fill_on_cores, runtime_fill_doubles and runtime_copy_runs (the batches' first writes,
 * on the cores): every piece runs once, as a task on a CPU worker, over several workers where
 * there are several, the values land where they should across the pieces' bounds, and the fills
 * stay out of the run's task counts. */
enum { FILL_PIECES = 24, FILL_PIECE_VALUES = 50000 };
struct fill_record {
  atomic_int runs[FILL_PIECES];
  int worker[FILL_PIECES];
  double *values;
};
static void record_piece(void *argument, int piece) {
  struct fill_record *r = argument;
  atomic_fetch_add(&r->runs[piece], 1);
  r->worker[piece] = starpu_worker_get_id();
  for (int i = 0; i < FILL_PIECE_VALUES; i++)
    r->values[(size_t)piece * FILL_PIECE_VALUES + i] = piece + i * 1e-6;
}
static void fills_run_on_the_cores(void **state) {
  (void)state;
  const int profiling = starpu_profiling_status_get();
  starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  runtime_count_tasks();
  const long long counted = runtime_tasks_on_cpus();
  struct fill_record *r = calloc(1, sizeof *r);
  r->values = malloc((size_t)FILL_PIECES * FILL_PIECE_VALUES * sizeof(double));
  double bytes[FILL_PIECES];
  for (int p = 0; p < FILL_PIECES; p++)
    bytes[p] = FILL_PIECE_VALUES * sizeof(double);
  /* Where the pieces run is the scheduler's: on a loaded machine one worker can take all 24
   * before the OS runs another (eager, CI's 2 cores busy with other tests). So the fill is
   * repeated, each time checked in full, until it has run over two workers, at most 20 times:
   * pieces that could only ever run on one worker still fail. */
  const int cores = (int)starpu_cpu_worker_get_count();
  int workers_seen = 0;
  for (int attempt = 0; attempt < 20 && workers_seen < (cores > 1 ? 2 : 1); attempt++) {
    for (int p = 0; p < FILL_PIECES; p++)
      atomic_store(&r->runs[p], 0);
    runtime_fill_on_cores(record_piece, r, FILL_PIECES, bytes);
    int seen[STARPU_NMAXWORKERS] = {0};
    workers_seen = 0;
    for (int p = 0; p < FILL_PIECES; p++) {
      assert_int_equal(atomic_load(&r->runs[p]), 1);
      assert_true(r->worker[p] >= 0); /* a worker's task, not this thread */
      assert_int_equal(starpu_worker_get_type(r->worker[p]), STARPU_CPU_WORKER);
      workers_seen += !seen[r->worker[p]]++;
      for (int i = 0; i < FILL_PIECE_VALUES; i += 977)
        assert_true(r->values[(size_t)p * FILL_PIECE_VALUES + i] == p + i * 1e-6);
    }
  }
  assert_true(workers_seen >= (cores > 1 ? 2 : 1));
  runtime_count_tasks();
  assert_true(counted >= 0);
  assert_int_equal(runtime_tasks_on_cpus(), counted); /* the fills are not the run's */

  /* Three arrays: one past a piece of 16 MB and 3 values more, one of 5, one empty (NULL). */
  const size_t long_count = ((size_t)1 << 21) + 3;
  double *long_array = malloc(long_count * sizeof(double)), short_array[5];
  double *const arrays[] = {long_array, short_array, NULL};
  const size_t counts[] = {long_count, 5, 0};
  const double values[] = {-65.25, 1.0, 7.0};
  for (size_t i = 0; i < long_count; i++)
    long_array[i] = 0.0;
  runtime_fill_doubles(3, arrays, counts, values);
  size_t wrong = 0;
  for (size_t i = 0; i < long_count; i++)
    wrong += long_array[i] != -65.25;
  for (int i = 0; i < 5; i++)
    wrong += short_array[i] != 1.0;
  assert_int_equal(wrong, 0);
  free(long_array);

  /* Thousands of short runs of random lengths (a chunk's gate blocks, level by level) with one
   * guard value between each two, and two runs past a piece each: every run takes its own value
   * across the pieces' bounds, and no guard is written. */
  enum { SHORT_RUNS = 3000 };
  double *run_at[SHORT_RUNS + 2], run_value[SHORT_RUNS + 2];
  size_t run_count[SHORT_RUNS + 2], total = 0;
  for (int a = 0; a < SHORT_RUNS + 2; a++) {
    run_count[a] = a < SHORT_RUNS
                       ? (size_t)(testing_uniform(&seed_state) * 3000.0)
                       : ((size_t)1 << 21) + (size_t)(testing_uniform(&seed_state) * 9e5);
    run_value[a] = a + 0.5;
    total += run_count[a] + 1;
  }
  double *all = malloc(total * sizeof(double));
  for (size_t i = 0; i < total; i++)
    all[i] = -1.0; /* the guards' value, never a run's */
  for (size_t a = 0, at = 0; a < SHORT_RUNS + 2; at += run_count[a++] + 1)
    run_at[a] = all + at;
  runtime_fill_doubles(SHORT_RUNS + 2, run_at, run_count, run_value);
  for (size_t a = 0; a < SHORT_RUNS + 2; a++) {
    for (size_t i = 0; i < run_count[a]; i++)
      wrong += run_at[a][i] != run_value[a];
    wrong += run_at[a][run_count[a]] != -1.0;
  }
  assert_int_equal(wrong, 0);
  free(all);

  /* runtime_copy_runs: the same runs' bytes (odd lengths too) copied from a random source, the
   * guard bytes between them untouched. */
  size_t byte_count[SHORT_RUNS + 2], bytes_total = 0;
  void *copy_to[SHORT_RUNS + 2];
  const void *copy_from[SHORT_RUNS + 2];
  for (int a = 0; a < SHORT_RUNS + 2; a++) {
    byte_count[a] = a < SHORT_RUNS
                        ? (size_t)(testing_uniform(&seed_state) * 5001.0)
                        : ((size_t)16 << 20) + (size_t)(testing_uniform(&seed_state) * 7e6);
    bytes_total += byte_count[a] + 1;
  }
  unsigned char *source = malloc(bytes_total), *target = malloc(bytes_total);
  for (size_t i = 0; i < bytes_total; i++)
    source[i] = (unsigned char)(testing_uniform(&seed_state) * 256.0), target[i] = 0xA5;
  for (size_t a = 0, at = 0; a < SHORT_RUNS + 2; at += byte_count[a++] + 1)
    copy_to[a] = target + at, copy_from[a] = source + at;
  runtime_copy_runs(SHORT_RUNS + 2, copy_to, copy_from, byte_count);
  for (size_t a = 0, at = 0; a < SHORT_RUNS + 2; at += byte_count[a++] + 1) {
    wrong += memcmp(target + at, source + at, byte_count[a]) != 0;
    wrong += target[at + byte_count[a]] != 0xA5;
  }
  assert_int_equal(wrong, 0);
  free(source), free(target);
  free(r->values);
  free(r);
  starpu_profiling_status_set(profiling);
}

/* runtime_unregister_discarding (a batch's gates and scratch at its end): it waits for the tasks
 * still writing the handle, partitioned or not, before it lets go of it. Each task sleeps, then
 * writes its piece; every value must be there once the call returns. */
enum { DISCARD_PIECES = 6, DISCARD_VALUES = 1000 };
static void write_piece_late(void *buffers[], void *argument) {
  (void)argument;
  double *values = (double *)STARPU_VECTOR_GET_PTR(buffers[0]);
  const unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
  usleep(20000);
  for (unsigned i = 0; i < n; i++)
    values[i] = 3.5;
}
static struct starpu_codelet write_piece_codelet = {
    .cpu_funcs = {write_piece_late}, .nbuffers = 1, .modes = {STARPU_W}, .name = "test_write"};
static void discarding_waits_for_the_writers(void **state) {
  (void)state;
  for (int partitioned = 0; partitioned < 2; partitioned++) {
    double *values = calloc((size_t)DISCARD_PIECES * DISCARD_VALUES, sizeof(double));
    starpu_data_handle_t handle;
    starpu_vector_data_register(&handle, STARPU_MAIN_RAM, (uintptr_t)values,
                                DISCARD_PIECES * DISCARD_VALUES, sizeof(double));
    if (partitioned) {
      struct starpu_data_filter pieces = {.filter_func = starpu_vector_filter_block,
                                          .nchildren = DISCARD_PIECES};
      starpu_data_partition(handle, &pieces);
      for (int p = 0; p < DISCARD_PIECES; p++)
        assert_int_equal(starpu_task_insert(&write_piece_codelet, STARPU_W,
                                            starpu_data_get_sub_data(handle, 1, p), 0),
                         0);
    } else {
      assert_int_equal(starpu_task_insert(&write_piece_codelet, STARPU_W, handle, 0), 0);
    }
    runtime_unregister_discarding(handle);
    size_t unwritten = 0;
    for (int i = 0; i < DISCARD_PIECES * DISCARD_VALUES; i++)
      unwritten += values[i] != 3.5;
    assert_int_equal(unwritten, 0);
    free(values);
  }
  runtime_unregister_discarding(NULL); /* nothing */
}

int main(void) {
  seed_state = testing_seed();
  runtime_set_defaults();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(workers_per_gpu_follow_tasks),
      cmocka_unit_test(discarding_waits_for_the_writers),
      cmocka_unit_test(greedy_schedulers_leave_every_gpu_a_share),
      cmocka_unit_test(chunks_start_on_whole_warps),
      cmocka_unit_test(cores_alone_rule_and_cut),
      cmocka_unit_test(share_probe_scales_the_cores),
      cmocka_unit_test(share_reprobe_only_near_the_bound),
      cmocka_unit_test(share_idle_growth_follows_the_probe),
      cmocka_unit_test(share_probe_again_only_far_off),
      cmocka_unit_test(share_busiest_scales_by_the_imbalance),
      cmocka_unit_test(cpu_executing_names_the_busiest_core),
      cmocka_unit_test(share_cut_fills_the_cores_round),
      cmocka_unit_test(size_model_predicts_any_size),
      cmocka_unit_test(size_model_extrapolates_within_bounds),
      cmocka_unit_test(size_model_rates_near_a_size),
      cmocka_unit_test(size_model_spreads_chunks_over_gpus),
      cmocka_unit_test(size_model_keeps_chunks_at_given_homes),
      cmocka_unit_test(size_model_keeps_core_chunks_on_cores),
      cmocka_unit_test(size_model_gives_chunks_up_to_gpus),
      cmocka_unit_test(size_model_pools_alike_gpus),
      cmocka_unit_test(level_chunks_follow_compartments),
      cmocka_unit_test(core_predictions_grow_past_what_was_measured),
      cmocka_unit_test(level_priorities_follow_chunk_size),
      cmocka_unit_test(large_passive_batches),
      cmocka_unit_test(busy_cores_are_left_to_others),
      cmocka_unit_test(busy_processors_are_measured),
      cmocka_unit_test(step_model_keeps_one_step_apart),
      cmocka_unit_test(mono_tasks_and_windows_give_identical_bits),
      cmocka_unit_test(multi_tasks_and_windows_give_identical_bits),
      cmocka_unit_test(share_window_submits_the_run_ahead),
      cmocka_unit_test(arranged_chunks_give_identical_bits),
      cmocka_unit_test(fills_run_on_the_cores),
  };
  return cmocka_run_group_tests(tests, testing_starpu_start, testing_starpu_stop);
}
