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

static int run_mono(void *batch, int steps, double t0) {
  return mono_batch_run(batch, steps, t0);
}
static void voltage_mono(void *batch, int neuron, double *out) {
  mono_batch_voltage(batch, neuron, out);
}
static int nonfinite_mono(void *batch, int *neuron, int *compartment) {
  return mono_batch_find_nonfinite(batch, neuron, compartment);
}
static int nonfinite_multi(void *batch, int *neuron, int *compartment) {
  return multi_batch_find_nonfinite(batch, neuron, compartment);
}
static int run_neuron(void *batch, int steps, double t0) {
  return neuron_batch_run(batch, steps, t0);
}
static void voltage_neuron(void *batch, int neuron, double *out) {
  neuron_batch_voltage(batch, neuron, out);
}
static int nonfinite_neuron(void *batch, int *neuron, int *compartment) {
  return neuron_batch_find_nonfinite(batch, neuron, compartment);
}
static int run_multi(void *batch, int steps, double t0) {
  return multi_batch_run(batch, steps, t0);
}
static void voltage_multi(void *batch, int neuron, double *out) {
  multi_batch_voltage(batch, neuron, out);
}

/* Verification: the sampled neurons, re-simulated by the sequential reference. */
double simulation_verify(const struct options *o, const struct batch_ops *ops, int *sampled) {
  double worst = 0;
  /* Neurons s * (N - 1) / (samples - 1): distinct while samples <= N. */
  int samples = o->verify_samples < o->neurons ? o->verify_samples : o->neurons;
  *sampled = samples;
  for (int s = 0; s < samples && isfinite(worst); s++) {
    int neuron = samples > 1 ? (int)((long long)s * (o->neurons - 1) / (samples - 1)) : 0;
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
  int largest = 0;
  for (int i = 0; i < ops->n_morphologies; i++)
    if (ops->morphologies[i].n_compartments > largest)
      largest = ops->morphologies[i].n_compartments;
  p->scratch = malloc((size_t)largest * sizeof(double));
  if (!p->values || !p->scratch)
    return HINES_FAILURE;
  for (int j = 0; j < o->n_probes; j++) /* t = 0: every neuron starts at rest */
    p->values[1 + j] = o->model.cable.el_mV;
  p->values[0] = 0.0;
  p->rows = 1;
  return HINES_OK;
}

static void probe_record_sample(struct probe_record *p, const struct batch_ops *ops, int step) {
  if (!p->values || step % p->every != 0 || p->rows >= p->capacity)
    return;
  double *row = p->values + (size_t)p->rows * (1 + p->o->n_probes);
  row[0] = step * p->o->model.dt_ms;
  for (int j = 0; j < p->o->n_probes; j++) {
    ops->voltage(ops->batch, p->o->probe_neuron[j], p->scratch);
    row[1 + j] = p->scratch[p->o->probe_compartment[j]];
  }
  p->rows++;
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
                                        .model = o->model};
    if (o->per_neuron) {
      struct neuron_batch *batch;
      int status = neuron_batch_create(&config, &batch, err);
      if (status)
        return status;
      ops->batch = batch;
      ops->run = run_neuron;
      ops->voltage = voltage_neuron;
      ops->find_nonfinite = nonfinite_neuron;
      ops->tasks_per_step = neuron_batch_tasks_per_step(batch);
      return HINES_OK;
    }
    struct multi_batch *batch;
    int status = multi_batch_create(&config, &batch, err);
    if (status)
      return status;
    ops->batch = batch;
    ops->run = run_multi;
    ops->voltage = voltage_multi;
    ops->find_nonfinite = nonfinite_multi;
    ops->tasks_per_step = multi_batch_tasks_per_step(batch);
    return HINES_OK;
  }
  struct mono_batch_config config = {.morphology = &morphologies[0],
                                     .layout = o->layout,
                                     .n_neurons = o->neurons,
                                     .block_size = o->block_size,
                                     .neurons_per_task = o->neurons_per_task,
                                     .cpu_group = o->cpu_group,
                                     .model = o->model};
  struct mono_batch *batch;
  int status = mono_batch_create(&config, &batch, err);
  if (status)
    return status;
  ops->batch = batch;
  ops->run = run_mono;
  ops->voltage = voltage_mono;
  ops->find_nonfinite = nonfinite_mono;
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

/* "1 h 05 min", "3 min 20 s", "12 s" */
static void format_duration(double seconds, char *out, size_t size) {
  long s = seconds < 0 ? 0 : (long)(seconds + 0.5);
  if (s >= 3600)
    snprintf(out, size, "%ld h %02ld min", s / 3600, s % 3600 / 60);
  else if (s >= 60)
    snprintf(out, size, "%ld min %02ld s", s / 60, s % 60);
  else
    snprintf(out, size, "%ld s", s);
}

/* Progress for whoever runs the program: on stderr unless --quiet. On a terminal one line,
 * rewritten in place about twice a second; elsewhere (a log file, a pipe, a batch job) a
 * newline-terminated line every 5 seconds, or every $HINESTASK_PROGRESS_SECONDS. Runs shorter
 * than that print nothing off a terminal. */
struct progress {
  int on, terminal, printed;
  double start, last, every;
};

static void progress_report(struct progress *p, int done, int steps, int first_done) {
  double now = now_seconds();
  if (!p->on || now - p->last < p->every)
    return;
  p->last = now;
  double elapsed = now - p->start;
  double rate = elapsed > 0 ? (done - first_done) / elapsed : 0;
  char left[32] = "?";
  if (rate > 0)
    format_duration((steps - done) / rate, left, sizeof left);
  char speed[32]; /* 12300 steps/s, not 1.23e+04 */
  snprintf(speed, sizeof speed, rate >= 100 ? "%.0f" : "%.3g", rate);
  fprintf(stderr, "%sstep %d/%d (%.0f %%), %s steps/s, %s left%s", p->terminal ? "\r" : "", done,
          steps, 100.0 * done / steps, speed, left, p->terminal ? "   " : "\n");
  fflush(stderr);
  p->printed = 1;
}

int simulation_run(const struct options *o, const struct batch_ops *ops,
                   struct probe_record *probes, struct run_result *result) {
  struct progress progress = {.on = !o->quiet, .terminal = isatty(STDERR_FILENO), .every = 5.0};
  if (progress.on)
    fflush(stdout); /* the banner before the progress lines, also when both go to one file */
  const char *every = getenv("HINESTASK_PROGRESS_SECONDS");
  if (progress.terminal)
    progress.every = 0.5;
  else if (every && strtod(every, NULL) > 0)
    progress.every = strtod(every, NULL);
  int status = HINES_OK;
  if (o->n_probes)
    status = probe_record_init(probes, o, ops);
  /* The first step moves the batch to where its tasks run and loads the kernels; the time per
   * step is measured over the others, with the data resident. */
  double first_start = now_seconds();
  if (status == HINES_OK)
    status = ops->run(ops->batch, 1, 0.0);
  double first_seconds = now_seconds() - first_start;
  int done = 1;
  probe_record_sample(probes, ops, done);
  double loop_start = now_seconds();
  progress.start = progress.last = loop_start;
  /* Each call runs `slice` steps and waits for them. Without progress, one call runs them all
   * (probes aside); with it, a call lasts about SLICE_TARGET_S, sized from the steps so far. */
  const double SLICE_TARGET_S = progress.every / 2 < 1.0 ? progress.every / 2 : 1.0;
  double seconds_per_step = first_seconds;
  while (done < o->steps && status == HINES_OK) {
    int count = o->steps - done;
    if (progress.on && seconds_per_step > 0 && SLICE_TARGET_S / seconds_per_step < count)
      count = SLICE_TARGET_S / seconds_per_step < 1 ? 1 : (int)(SLICE_TARGET_S / seconds_per_step);
    if (o->n_probes && probes->every - done % probes->every < count)
      count = probes->every - done % probes->every;
    status = ops->run(ops->batch, count, done * o->model.dt_ms);
    done += count;
    probe_record_sample(probes, ops, done);
    seconds_per_step = (now_seconds() - loop_start) / (done - 1);
    progress_report(&progress, done, o->steps, 1);
  }
  if (progress.printed && progress.terminal)
    fputc('\n', stderr);
  result->seconds_steps = o->steps > 1 ? now_seconds() - loop_start : first_seconds;
  result->timed_steps = o->steps > 1 ? o->steps - 1 : 1;
  result->seconds_first_step = first_seconds;
  result->tasks_per_step = ops->tasks_per_step;
  return status;
}
