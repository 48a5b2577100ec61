#include "simulation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mono_batch.h"
#include "multi_batch.h"
#include "neuron_batch.h"
#include "reference_simulation.h"

double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* The three kinds of batch behind struct batch_ops. */
#define BATCH_OPS(PREFIX, TYPE)                                                                    \
  static int run_##PREFIX(void *batch, int steps, double t0, int sample_row) {                     \
    return PREFIX##_batch_run_sampled((TYPE *)batch, steps, t0, sample_row);                        \
  }                                                                                                \
  static void sync_##PREFIX(void *batch) {                                                         \
    PREFIX##_batch_sync((TYPE *)batch);                                                             \
  }                                                                                                \
  static int probes_##PREFIX(void *batch, int n, const int *neuron, const int *compartment,         \
                             int rows, struct hines_error *err) {                                  \
    return PREFIX##_batch_probes((TYPE *)batch, n, neuron, compartment, rows, err);                 \
  }                                                                                                \
  static void probes_read_##PREFIX(void *batch, int rows, double *values) {                         \
    PREFIX##_batch_probes_read((TYPE *)batch, rows, values);                                        \
  }                                                                                                \
  static void voltage_##PREFIX(void *batch, int neuron, double *out) {                              \
    PREFIX##_batch_voltage((TYPE *)batch, neuron, out);                                             \
  }                                                                                                \
  static int nonfinite_##PREFIX(void *batch, int *neuron, int *compartment) {                       \
    return PREFIX##_batch_find_nonfinite((TYPE *)batch, neuron, compartment);                       \
  }                                                                                                \
  static void set_ops_##PREFIX(struct batch_ops *ops, TYPE *batch) {                                \
    ops->batch = batch;                                                                            \
    ops->run = run_##PREFIX;                                                                       \
    ops->sync = sync_##PREFIX;                                                                     \
    ops->probes = probes_##PREFIX;                                                                 \
    ops->probes_read = probes_read_##PREFIX;                                                       \
    ops->voltage = voltage_##PREFIX;                                                               \
    ops->find_nonfinite = nonfinite_##PREFIX;                                                      \
  }
BATCH_OPS(mono, struct mono_batch)
BATCH_OPS(multi, struct multi_batch)
BATCH_OPS(neuron, struct neuron_batch)

/* Verification: the sampled neurons, re-simulated by the sequential reference. */
double simulation_verify(const struct options *o, const struct batch_ops *ops) {
  double worst = 0;
  for (int s = 0; s < o->verify_samples && isfinite(worst); s++) {
    int neuron = o->verify_samples > 1
                     ? (int)((long long)s * (o->neurons - 1) / (o->verify_samples - 1))
                     : 0;
    const struct morphology *m = &ops->morphologies[neuron % ops->n_morphologies];
    int n = m->n_compartments;
    double *got = malloc((size_t)n * sizeof(double)), *want = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++)
      want[i] = o->model.cable.el_mV;
    struct hines_error err;
    if (!got || !want ||
        reference_simulate(m, &o->model.cable, &o->model.hh, o->model.dt_ms, o->steps, 0.0,
                           &o->model.stimulus, neuron, want, &err)) {
      fprintf(stderr, "%s: verification could not run\n", program);
      worst = INFINITY;
    } else {
      ops->voltage(ops->batch, neuron, got);
      double diff = 0, scale = 1e-300;
      for (int i = 0; i < n; i++) {
        diff = fmax(diff, isnan(got[i]) ? INFINITY : fabs(got[i] - want[i]));
        scale = fmax(scale, fabs(want[i]));
      }
      worst = fmax(worst, diff / scale);
    }
    free(got);
    free(want);
  }
  return worst;
}

static int probe_record_init(struct probe_record *p, const struct options *o,
                             const struct batch_ops *ops) {
  p->o = o;
  p->every = (int)(o->probe_every_ms / o->model.dt_ms + 0.5);
  if (p->every < 1)
    p->every = 1;
  p->capacity = o->steps / p->every + 2;
  p->values = malloc((size_t)p->capacity * (1 + o->n_probes) * sizeof(double));
  p->scratch = malloc((size_t)p->capacity * o->n_probes * sizeof(double));
  if (!p->values || !p->scratch)
    return HINES_FAILURE;
  for (int j = 0; j < o->n_probes; j++) /* t = 0: every neuron starts at rest */
    p->values[1 + j] = o->model.cable.el_mV;
  p->values[0] = 0.0;
  p->rows = 1;
  /* The batch samples its probes on the device, each into row r of a small buffer; row 0 (the
   * start) is the resting value above. */
  struct hines_error err;
  if (ops->probes(ops->batch, o->n_probes, o->probe_neuron, o->probe_compartment,
                  (int)p->capacity, &err)) {
    fprintf(stderr, "%s: %s\n", program, err.message);
    return HINES_FAILURE;
  }
  return HINES_OK;
}

/* The probe row that the step ending at `step` fills, or -1 (none due, or no room). */
static int probe_record_row(struct probe_record *p, int step) {
  if (!p->values || step % p->every != 0 || p->rows >= p->capacity)
    return -1;
  p->values[(size_t)p->rows * (1 + p->o->n_probes)] = step * p->o->model.dt_ms;
  return (int)p->rows++;
}

/* Brings the sampled rows home (once, after the last step) into the record. */
static void probe_record_collect(struct probe_record *p, const struct batch_ops *ops) {
  if (!p->values)
    return;
  const int n = p->o->n_probes;
  ops->probes_read(ops->batch, (int)p->rows, p->scratch);
  for (long long r = 1; r < p->rows; r++)
    memcpy(p->values + (size_t)r * (1 + n) + 1, p->scratch + (size_t)r * n,
           (size_t)n * sizeof(double));
}

/* Creates the batch the options describe; HINES_OK or a status with err set. */
int simulation_create(const struct options *o, const struct morphology *morphologies,
                      struct batch_ops *ops, struct hines_error *err) {
  memset(ops, 0, sizeof *ops);
  ops->morphologies = morphologies;
  ops->n_morphologies = o->n_morph_specs;
  if (strcmp(o->mode, "multi") == 0) {
    struct multi_batch_config config = {.morphologies = morphologies,
                                        .n_morphologies = o->n_morph_specs,
                                        .n_neurons = o->neurons,
                                        .neurons_per_task = o->neurons_per_task,
                                        .parts_per_task = o->parts_per_task,
                                        .trunk_below = o->trunk_below,
                                        .gpu_launch = o->gpu_launch,
                                        .padded = o->padded,
                                        .level_tasks = o->level_tasks,
                                        .order = o->level_order,
                                        .window = o->window,
                                        .pin = o->pin,
                                        .model = o->model};
    if (o->per_neuron) {
      struct neuron_batch *batch;
      int status = neuron_batch_create(&config, &batch, err);
      if (status)
        return status;
      set_ops_neuron(ops, batch);
      ops->tasks_per_step = neuron_batch_tasks_per_step(batch);
      return HINES_OK;
    }
    struct multi_batch *batch;
    int status = multi_batch_create(&config, &batch, err);
    if (status)
      return status;
    set_ops_multi(ops, batch);
    ops->tasks_per_step = multi_batch_tasks_per_step(batch);
    return HINES_OK;
  }
  struct mono_batch_config config = {.morphology = &morphologies[0],
                                     .layout = o->layout,
                                     .n_neurons = o->neurons,
                                     .block_size = o->block_size,
                                     .neurons_per_task = o->neurons_per_task,
                                     .cpu_group = o->cpu_group,
                                     .window = o->window,
                                     .pin = o->pin,
                                     .model = o->model};
  struct mono_batch *batch;
  int status = mono_batch_create(&config, &batch, err);
  if (status)
    return status;
  set_ops_mono(ops, batch);
  ops->tasks_per_step = mono_batch_chunks(batch);
  return HINES_OK;
}

void simulation_destroy(const struct options *o, struct batch_ops *ops) {
  if (strcmp(o->mode, "multi") == 0 && o->per_neuron)
    neuron_batch_destroy(ops->batch);
  else if (strcmp(o->mode, "multi") == 0)
    multi_batch_destroy(ops->batch);
  else
    mono_batch_destroy(ops->batch);
}

int simulation_run(const struct options *o, const struct batch_ops *ops,
                   struct probe_record *probes, struct run_result *result) {
  /* Progress only for a person watching: stderr is a terminal and --quiet is off. */
  int progress = !o->quiet && isatty(STDERR_FILENO);
  int status = HINES_OK;
  if (o->n_probes)
    status = probe_record_init(probes, o, ops);
  /* The first step moves the batch to where its tasks run and loads the kernels; the time per
   * step is measured over the others, with the data resident. */
  double first_start = now_seconds();
  if (status == HINES_OK)
    status = ops->run(ops->batch, 1, 0.0, probe_record_row(probes, 1));
  ops->sync(ops->batch);
  double first_seconds = now_seconds() - first_start;
  int slice = progress ? (o->steps + 19) / 20 : o->steps;
  int done = 1;
  /* Steps go in without waiting (the batch keeps a window of them in flight); a slice ends
   * where a probe sample is due, so that its last step fills the sample's row. */
  double loop_start = now_seconds();
  while (done < o->steps && status == HINES_OK) {
    int count = o->steps - done < slice ? o->steps - done : slice;
    if (o->n_probes && probes->every - done % probes->every < count)
      count = probes->every - done % probes->every;
    status = ops->run(ops->batch, count, done * o->model.dt_ms,
                      o->n_probes ? probe_record_row(probes, done + count) : -1);
    done += count;
    if (progress)
      fprintf(stderr, "\rstep %d/%d", done, o->steps);
  }
  ops->sync(ops->batch);
  double loop_end = now_seconds();
  if (progress)
    fputc('\n', stderr);
  if (status == HINES_OK && o->n_probes)
    probe_record_collect(probes, ops);
  result->seconds_steps = o->steps > 1 ? loop_end - loop_start : first_seconds;
  result->timed_steps = o->steps > 1 ? o->steps - 1 : 1;
  result->seconds_first_step = first_seconds;
  result->tasks_per_step = ops->tasks_per_step;
  return status;
}
