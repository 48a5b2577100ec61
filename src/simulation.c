#include "simulation.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cable.h"
#include "mono_batch.h"
#include "multi_batch.h"
#include "neuron_batch.h"
#include "placement.h"
#include "reference_simulation.h"
#include "runtime.h"

/* The automatic mode. Measured on the H200 (scripts/results/mixes_h200_2026-11-23.csv): the mono
 * kernel, one thread per neuron, runs 22 G compartment-steps/s with 30,000 neurons, 58 with
 * 100,000 and 66 with 256,000, whatever the cell; the level solver runs a 2,619-compartment cell
 * at 7.1 G/s with 500 neurons (mono: 0.6) and 58.6 with 30,000 (mono: 21.6), a 319-compartment
 * cell at 22.9 with 30,000 (a tie) and 25.4 with 100,000 (mono: 57.7). On CPU workers the mono
 * kernels, vectorised across neurons, were faster at every size (2-core machine, same script). */
#define MONO_FILLS_A_GPU_NEURONS 50000

void simulation_choose_mode(struct options *o) {
  if (strcmp(o->mode, "auto") != 0)
    return;
  const int gpus = runtime_gpu_count();
  /* A rank of a distributed run decides for its own share and its own GPUs. */
  if (gpus > 0 && simulation_local_neurons(o) < (long long)MONO_FILLS_A_GPU_NEURONS * gpus) {
    o->mode = "multi";
    o->mode_reason = "automatic: fewer than 50,000 neurons per GPU, too few to fill it with one "
                     "thread per neuron";
  } else {
    o->mode = "mono";
    o->mode_reason = gpus > 0 ? "automatic: at least 50,000 neurons per GPU"
                              : "automatic: CPU workers only, where the mono kernels are faster";
  }
}

/* The mono batch the options describe over this process's n_neurons neurons of `morphology`. */
static struct mono_batch_config mono_config_of(const struct options *o,
                                               const struct morphology *morphology, int n_neurons) {
  return (struct mono_batch_config){.morphology = morphology,
                                    .layout = o->layout,
                                    .n_neurons = n_neurons,
                                    .first_neuron = o->first_neuron,
                                    .total_neurons = o->neurons,
                                    .block_size = o->block_size,
                                    .neurons_per_task = o->neurons_per_task,
                                    .cpu_group = o->cpu_group,
                                    .window = o->window,
                                    .task_steps = o->task_steps,
                                    .pin = o->pin,
                                    .cpu_share = o->cpu_share,
                                    .cores_alone = o->cores_alone,
                                    .model = o->model};
}

/* On CPU workers only the block layout runs 1.1-4.0x faster than interleaved (the dev machine's
 * 2 cores, every class, passive and HH: BENCHMARKS.md, "The block layout on CPU workers"): a
 * task's neurons then lie in one contiguous range that its cores' caches stream through, instead
 * of a band of rows a whole batch apart. GPU workers run large passive batches (a GPU's share of
 * 64 M compartments or more, placement_large_passive_batch) 2-3 % faster in blocks, smaller ones
 * and HH 1-4 % slower (runtime/placement.h says where): blocks for the large ones (where CPU
 * workers beside one GPU also get a share, placement_cpus_share), interleaved otherwise. A share,
 * asked for (--cpu-share on) or chosen (placement_share_chosen), runs in blocks whatever the
 * size: the cores' chunks in a band of
 * interleaved rows ran far slower than the models predicted from calibration (H200 machine,
 * commit f6411ca: medium-high 25,600 0.69-0.74 ms a step against 0.34 for the GPU alone, 256,000
 * with HH 2.66-2.76 against 2.04; in blocks 0.344 and 2.00). Both layouts give the same bits.
 * The sizes are this process's share of the batch. */
void simulation_choose_layout(struct options *o, const struct morphology *morphology) {
  if (!o->layout_auto || strcmp(o->mode, "mono") != 0)
    return;
  const long long compartments =
      (long long)simulation_local_neurons(o) * morphology->n_compartments;
  const int channels = o->model.channels.placement != PLACE_NONE;
  const int share =
      placement_share_chosen(o->cpu_share, simulation_local_neurons(o), compartments, o->window)
          ? PLACEMENT_SHARE_ON
          : o->cpu_share;
  o->layout = placement_mono_blocks(compartments, runtime_gpu_count(), channels, share)
                  ? BATCH_LAYOUT_BLOCK
                  : BATCH_LAYOUT_INTERLEAVED;
  /* A small batch the GPU alone would run interleaved, one latency-bound thread a neuron, runs
   * on the cores alone, in blocks, when the models say they finish its step sooner
   * (mono_cores_alone_chosen; runtime/placement.h, PLACEMENT_CORES_ALONE_BY, says what it
   * measured). */
  const struct mono_batch_config as_gpu =
      mono_config_of(o, morphology, simulation_local_neurons(o));
  o->cores_alone = o->layout == BATCH_LAYOUT_INTERLEAVED && mono_cores_alone_chosen(&as_gpu);
  if (o->cores_alone)
    o->layout = BATCH_LAYOUT_BLOCK;
}

int simulation_local_neurons(const struct options *o) {
  return o->local_neurons > 0 ? o->local_neurons : o->neurons;
}

double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* The three kinds of batch behind struct batch_ops. */
#define BATCH_OPS(PREFIX, TYPE)                                                                    \
  static int run_##PREFIX(void *batch, int steps, double t0, int sample_row) {                     \
    return PREFIX##_batch_run_sampled((TYPE *)batch, steps, t0, sample_row);                       \
  }                                                                                                \
  static void sync_##PREFIX(void *batch) {                                                         \
    PREFIX##_batch_sync((TYPE *)batch);                                                            \
  }                                                                                                \
  static int probes_##PREFIX(void *batch, int n, const int *neuron, const int *compartment,        \
                             int rows, struct hines_error *err) {                                  \
    return PREFIX##_batch_probes((TYPE *)batch, n, neuron, compartment, rows, err);                \
  }                                                                                                \
  static void probes_read_##PREFIX(void *batch, int rows, double *values) {                        \
    PREFIX##_batch_probes_read((TYPE *)batch, rows, values);                                       \
  }                                                                                                \
  static int spikes_##PREFIX(void *batch, double threshold, struct hines_error *err) {             \
    return PREFIX##_batch_spikes((TYPE *)batch, threshold, err);                                   \
  }                                                                                                \
  static struct spike_set *spike_set_##PREFIX(void *batch) {                                       \
    return PREFIX##_batch_spike_set((TYPE *)batch);                                                \
  }                                                                                                \
  static void voltage_##PREFIX(void *batch, int neuron, double *out) {                             \
    PREFIX##_batch_voltage((TYPE *)batch, neuron, out);                                            \
  }                                                                                                \
  static int nonfinite_##PREFIX(void *batch, int *neuron, int *compartment) {                      \
    return PREFIX##_batch_find_nonfinite((TYPE *)batch, neuron, compartment);                      \
  }                                                                                                \
  static void set_ops_##PREFIX(struct batch_ops *ops, TYPE *batch) {                               \
    ops->batch = batch;                                                                            \
    ops->run = run_##PREFIX;                                                                       \
    ops->sync = sync_##PREFIX;                                                                     \
    ops->probes = probes_##PREFIX;                                                                 \
    ops->probes_read = probes_read_##PREFIX;                                                       \
    ops->spikes = spikes_##PREFIX;                                                                 \
    ops->spike_set = spike_set_##PREFIX;                                                           \
    ops->voltage = voltage_##PREFIX;                                                               \
    ops->find_nonfinite = nonfinite_##PREFIX;                                                      \
  }
BATCH_OPS(mono, struct mono_batch)
BATCH_OPS(multi, struct multi_batch)
BATCH_OPS(neuron, struct neuron_batch)

/* Normwise backward error of x as a solution of the Hines system (diagonal, off_diagonal as
 * both upper and lower, parent) with right-hand side rhs: ||A x - rhs|| / (||A|| ||x|| +
 * ||rhs||), infinity norms (Rigal and Gaches). It is the smallest relative change of A and rhs
 * that makes x exact; a backward-stable solve makes it a few units of roundoff whatever the
 * matrix's condition. The residual is summed in long double, so that its own rounding stays
 * below what it measures. */
static double backward_error(int n, const int *parent, const double *off_diagonal,
                             const double *diagonal, const double *rhs, const double *x) {
  long double *residual = malloc((size_t)n * sizeof(long double));
  long double *row_norm = malloc((size_t)n * sizeof(long double));
  if (!residual || !row_norm) {
    free(residual), free(row_norm);
    return INFINITY;
  }
  for (int i = 0; i < n; i++) {
    residual[i] = (long double)diagonal[i] * x[i] - rhs[i];
    row_norm[i] = fabsl((long double)diagonal[i]);
  }
  for (int i = 1; i < n; i++) {
    const int p = parent[i];
    residual[i] += (long double)off_diagonal[i] * x[p];
    residual[p] += (long double)off_diagonal[i] * x[i];
    row_norm[i] += fabsl((long double)off_diagonal[i]);
    row_norm[p] += fabsl((long double)off_diagonal[i]);
  }
  long double r = 0, a = 0, xs = 0, b = 0;
  for (int i = 0; i < n; i++) {
    r = isnan(x[i]) ? INFINITY : fmaxl(r, fabsl(residual[i]));
    a = fmaxl(a, row_norm[i]);
    xs = fmaxl(xs, fabsl((long double)x[i]));
    b = fmaxl(b, fabsl((long double)rhs[i]));
  }
  free(residual), free(row_norm);
  long double scale = a * xs + b;
  return scale > 0 ? (double)(r / scale) : (r > 0 ? INFINITY : 0);
}

/* Verification: the sampled neurons, re-simulated by the sequential reference. Each neuron's
 * tolerance is the larger of VERIFY_TOLERANCE_FLOOR and 2 n eps kappa (n compartments, kappa
 * the condition bound above): the forward error a backward-stable solve of one step may make,
 * twice, since both solvers make one. The two solvers eliminate in different orders, so an
 * ill-conditioned step (large axial conductance, small capacitance, long dt) differs by more
 * than a fixed tolerance allows while both are right. Steps do not amplify errors (the step
 * map's norm is at most 1), and the tests show that per-step bound covers the accumulation. */
struct verify_result simulation_verify(const struct options *o, const struct batch_ops *ops) {
  struct verify_result result = {.neuron = -1, .compartment = -1, .backward_neuron = -1};
  double worst_ratio = -1;
  /* Neurons s * (N - 1) / (samples - 1): distinct while samples <= N. */
  const int samples = o->verify_samples < o->neurons ? o->verify_samples : o->neurons;
  for (int s = 0; s < samples; s++) {
    int neuron = samples > 1 ? (int)((long long)s * (o->neurons - 1) / (samples - 1)) : 0;
    if (neuron < ops->first_neuron || neuron >= ops->first_neuron + ops->n_neurons)
      continue; /* another rank's (distributed run) */
    const struct morphology *m = &ops->morphologies[neuron % ops->n_morphologies];
    int n = m->n_compartments;
    /* The neuron's own parameters in a sweep (--params), the batch's otherwise. */
    struct step_model model = o->model;
    if (o->params_values)
      neuron_model_of(&o->model, o->params_values + (size_t)neuron * NEURON_PARAMETER_COUNT,
                      o->params_given, &model);
    double *got = malloc((size_t)n * sizeof(double)), *want = malloc((size_t)n * sizeof(double));
    double *last_diagonal = malloc((size_t)n * sizeof(double));
    double *last_rhs = malloc((size_t)n * sizeof(double));
    struct hines_error err;
    struct cable_coefficients c = {0};
    if (want)
      for (int i = 0; i < n; i++)
        want[i] = o->model.cable.el_mV;
    if (!got || !want || !last_diagonal || !last_rhs ||
        cable_coefficients_build(m, &model.cable, &c, &err) ||
        reference_simulate_keeping_last_rows(m, &model.cable, &model.channels, model.hh_rates,
                                             model.dt_ms, o->steps, 0.0, &model.stimulus, neuron,
                                             want, last_diagonal, last_rhs, &err)) {
      result.max_rel_error = INFINITY;
      result.backward_error = INFINITY;
      result.failed = 1;
      result.neuron = neuron;
      free(got), free(want), free(last_diagonal), free(last_rhs);
      cable_coefficients_free(&c);
      break;
    }
    ops->voltage(ops->batch, neuron - ops->first_neuron, got);
    double diff = 0, scale = 1e-300;
    int at = 0;
    for (int i = 0; i < n; i++) {
      double d = isnan(got[i]) ? INFINITY : fabs(got[i] - want[i]);
      if (d > diff) {
        diff = d;
        at = i;
      }
      scale = fmax(scale, fabs(want[i]));
    }
    double condition = reference_condition_bound(m, &model.cable, &model.channels, model.dt_ms);
    double tolerance = o->verify_tolerance > 0
                           ? o->verify_tolerance
                           : fmax(VERIFY_TOLERANCE_FLOOR, 2.0 * n * DBL_EPSILON * condition);
    double error = diff / scale, ratio = error / tolerance;
    /* Both against the system the reference solved last: the sequential solver's own figure is
     * the yardstick of what double precision does with it. */
    double backward = backward_error(n, m->parent, c.off_diagonal, last_diagonal, last_rhs, got);
    double sequential_backward =
        backward_error(n, m->parent, c.off_diagonal, last_diagonal, last_rhs, want);
    result.backward_error = isnan(backward) ? INFINITY : fmax(result.backward_error, backward);
    result.sequential_backward_error = fmax(result.sequential_backward_error, sequential_backward);
    if (!(backward <= VERIFY_BACKWARD_ERROR_BOUND)) {
      result.failed = 1;
      result.backward_failed = 1;
      if (result.backward_neuron < 0)
        result.backward_neuron = neuron;
    }
    result.max_rel_error = fmax(result.max_rel_error, error);
    if (ratio > worst_ratio || isnan(ratio)) {
      worst_ratio = isnan(ratio) ? INFINITY : ratio;
      result.neuron = neuron;
      result.compartment = at;
      result.error = error;
      result.tolerance = tolerance;
      result.condition = condition;
      result.compartments = n;
    }
    if (!(error <= tolerance))
      result.failed = 1;
    result.ran++;
    free(got), free(want), free(last_diagonal), free(last_rhs);
    cable_coefficients_free(&c);
  }
  return result;
}

/* Host bytes of the batch the options describe, counted from what each kind of batch allocates
 * (runtime/mono_batch.c, multi_batch.c, neuron_batch.c) rather than assumed per compartment:
 *   mono: voltage and work in the layout (padded to whole blocks), and 3 gates per value in
 *     the same layout with channels; the coefficients are per morphology (negligible);
 *   multi, levels: the level batch's int blocks, which every chunk copies into its own array
 *     (so twice), voltage and elimination factor per element (padding included with CP),
 *     2 contributions per system, 3 gates per element with channels, the branch map;
 *     measured on a sample batch (every morphology, round robin) built by level_batch_build
 *     itself and scaled to the batch's compartments;
 *   multi, per neuron: voltage and work for every neuron at the largest morphology's size.
 * Plus the probe record, the spike records and a parameter sweep's values. */
double simulation_host_bytes(const struct options *o, const struct morphology *morphologies,
                             long long compartments, struct hines_error *err) {
  double bytes = 0;
  int n_morph = o->n_morph_specs;
  if (strcmp(o->mode, "multi") != 0) {
    struct batch_layout layout;
    int n = morphologies[0].n_compartments;
    batch_layout_init(&layout, o->layout, n, o->neurons, o->block_size);
    bytes = 2.0 * (double)batch_layout_size(&layout) * sizeof(double);
    if (o->model.channels.placement != PLACE_NONE) {
      batch_layout_init(&layout, o->layout, o->model.channels.n_gates * n, o->neurons,
                        o->block_size);
      bytes += (double)batch_layout_size(&layout) * sizeof(double);
    }
  } else if (o->per_neuron) {
    int largest = 0;
    for (int k = 0; k < n_morph; k++)
      if (morphologies[k].n_compartments > largest)
        largest = morphologies[k].n_compartments;
    bytes = 2.0 * o->neurons * (double)largest * sizeof(double) + 12.0 * o->neurons;
  } else {
    int sample = o->neurons < 64 * n_morph ? o->neurons : 64 * n_morph;
    const struct level_batch_options options = {.neurons_per_chunk = sample,
                                                .padded = o->padded,
                                                .chunk_links = !o->level_tasks,
                                                .order = o->level_order,
                                                .trunk_below = o->trunk_below,
                                                .warps = o->level_warps,
                                                .warp_lanes = o->warp_lanes,
                                                .subtree_compartments = o->subtree_compartments,
                                                .split_compartments = o->split_compartments,
                                                .reroot = options_level_root_center(o)};
    struct level_batch lb;
    int status = level_batch_build(morphologies, n_morph, sample, &options, &o->model.cable,
                                   o->model.dt_ms, &lb, err);
    if (status)
      return -status;
    double sample_bytes = 0;
    for (int c = 0; c < lb.n_chunks; c++) {
      size_t end = (size_t)c * (lb.n_levels + 1) + lb.n_levels;
      double ints = (double)(lb.ints_offset[end] + lb.trunk_ints[c]);
      double elements = (double)lb.element_offset[end], systems = (double)lb.system_offset[end];
      sample_bytes +=
          2 * ints * sizeof(int) + 2 * elements * sizeof(double) + 2 * systems * sizeof(double);
      if (o->model.channels.placement != PLACE_NONE)
        sample_bytes += o->model.channels.n_gates * elements * sizeof(double);
    }
    sample_bytes +=
        (double)lb.branch_offset[sample] * sizeof(int) + (sample + 1.0) * sizeof(long long);
    double per_compartment = sample_bytes / (double)lb.total_compartments;
    level_batch_free(&lb);
    bytes = per_compartment * (double)compartments;
  }
  if (o->n_probes)
    bytes += (o->steps / o->probe_every_steps + 2.0) * (1 + o->n_probes) * sizeof(double);
  if (o->params_values) { /* the sweep as read, and the kernels' columns of it (mono_batch.c) */
    int columns = 0;
    for (int p = 0; p < NEURON_PARAMETER_COUNT; p++)
      columns += o->params_given[p];
    bytes += (double)o->neurons * (NEURON_PARAMETER_COUNT + columns) * sizeof(double);
  }
  if (o->spikes_path) /* the records (codelets/spike_record.h) and each neuron's count read */
    bytes += (double)o->neurons * ((double)spike_record_size(1) * sizeof(double) + 8);
  return bytes;
}

static int probe_record_init(struct probe_record *p, const struct options *o,
                             const struct batch_ops *ops) {
  p->o = o;
  p->every = o->probe_every_steps; /* 1 to steps, options_parse */
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
  /* In a distributed run each rank samples the probes on its own neurons (their columns; the
   * others' stay 0 here and come from their ranks when the columns are summed on rank 0). */
  int neuron[MAX_PROBES], compartment[MAX_PROBES];
  p->n_local = 0;
  for (int j = 0; j < o->n_probes; j++) {
    int local = o->probe_neuron[j] - ops->first_neuron;
    if (local < 0 || local >= ops->n_neurons)
      continue;
    p->column[p->n_local] = j;
    neuron[p->n_local] = local;
    compartment[p->n_local++] = o->probe_compartment[j];
  }
  struct hines_error err;
  if (ops->probes(ops->batch, p->n_local, neuron, compartment, (int)p->capacity, &err)) {
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
  const int n = p->o->n_probes, local = p->n_local;
  ops->probes_read(ops->batch, (int)p->rows, p->scratch);
  for (long long r = 1; r < p->rows; r++) {
    double *row = p->values + (size_t)r * (1 + n) + 1;
    if (local < n)
      memset(row, 0, (size_t)n * sizeof(double));
    for (int k = 0; k < local; k++)
      row[p->column[k]] = p->scratch[(size_t)r * local + k];
  }
}

/* Creates the batch the options describe; HINES_OK or a status with err set. */
int simulation_create(const struct options *o, const struct morphology *morphologies,
                      struct batch_ops *ops, struct hines_error *err) {
  memset(ops, 0, sizeof *ops);
  ops->morphologies = morphologies;
  ops->n_morphologies = o->n_morph_specs;
  ops->first_neuron = o->first_neuron;
  ops->n_neurons = simulation_local_neurons(o);
  if (strcmp(o->mode, "multi") == 0) {
    /* Neuron k of the whole batch has morphologies[k % M]; a share starting at first_neuron
     * numbers its neurons from 0, so it gets the list rotated to start at first_neuron's. */
    static struct morphology rotated[MAX_MORPHOLOGIES];
    const int m_count = o->n_morph_specs;
    for (int m = 0; m < m_count; m++)
      rotated[m] = morphologies[(o->first_neuron + m) % m_count];
    struct multi_batch_config config = {.morphologies = rotated,
                                        .n_morphologies = o->n_morph_specs,
                                        .n_neurons = ops->n_neurons,
                                        .first_neuron = o->first_neuron,
                                        .total_neurons = o->neurons,
                                        .neurons_per_task = o->neurons_per_task,
                                        .parts_per_task = o->parts_per_task,
                                        .trunk_below = o->trunk_below,
                                        .trunk_branches = o->trunk_branches,
                                        .gpu_launch = o->gpu_launch,
                                        .level_kernel = o->level_kernel,
                                        .level_rows = o->level_rows,
                                        .rows_apart_below = o->rows_apart_below,
                                        .stored_pivots_below = o->stored_pivots_below,
                                        .level_priorities = o->level_priorities,
                                        .level_lean = o->level_lean,
                                        .level_row_factors = o->level_row_factors,
                                        .level_warps = o->level_warps,
                                        .warp_lanes = o->warp_lanes,
                                        .subtree_compartments = o->subtree_compartments,
                                        .split_compartments = o->split_compartments,
                                        .level_root_center = options_level_root_center(o),
                                        .cell_neurons = o->cell_neurons,
                                        .padded = o->padded,
                                        .level_tasks = o->level_tasks,
                                        .order = o->level_order,
                                        .window = o->window,
                                        .task_steps = o->task_steps,
                                        .pin = o->pin,
                                        .cpu_share = o->cpu_share,
                                        .cpu_chunks_per_core = o->cpu_chunks,
                                        .arrange = o->arrange,
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
    ops->task_steps = multi_batch_task_steps(batch);
    ops->cell_neurons = multi_batch_cell_neurons(batch);
    ops->level_kernel = (int)multi_batch_level_kernel(batch);
    ops->rows_apart_below = multi_batch_rows_apart_below(batch);
    ops->trunk_levels = multi_batch_trunk_levels(batch);
    ops->warp_systems = multi_batch_warp_systems(batch);
    ops->level_priorities = multi_batch_level_priorities(batch);
    ops->cpu_share_neurons = multi_batch_cpu_share_neurons(batch);
    ops->window = multi_batch_window(batch);
    ops->arranged_neurons = multi_batch_arranged_neurons(batch);
    ops->aligned_neurons = multi_batch_aligned_neurons(batch);
    ops->aligned_tail = multi_batch_aligned_tail_neurons(batch);
    ops->share_uncalibrated = multi_batch_share_uncalibrated(batch);
    multi_batch_share_probe(batch, &ops->probed_neurons, &ops->probe_measured_us,
                            &ops->probe_predicted_us);
    multi_batch_share_set_up(batch, &ops->set_up_neurons, &ops->set_up_measured_us);
    multi_batch_share_busiest(batch, &ops->probe_busiest_us, &ops->probe_gpu_task_us);
    return HINES_OK;
  }
  struct mono_batch_config config = mono_config_of(o, &morphologies[0], ops->n_neurons);
  /* A layout chosen for the cores' share keeps the GPU's chunks in the layout it would take
   * alone (runtime/placement.h, placement_mono_blocks). */
  const long long compartments = (long long)ops->n_neurons * morphologies[0].n_compartments;
  if (o->layout_auto && placement_share_gpu_interleaved(compartments, runtime_gpu_count(),
                                                        o->model.channels.placement != PLACE_NONE))
    config.interleaved_chunks = MONO_INTERLEAVE_GPU_CHUNKS;
  if (o->params_values) { /* this batch's rows of the sweep (a rank's share from its first) */
    config.sweep = o->params_values + (size_t)o->first_neuron * NEURON_PARAMETER_COUNT;
    memcpy(config.swept, o->params_given, sizeof config.swept);
  }
  struct mono_batch *batch;
  int status = mono_batch_create(&config, &batch, err);
  if (status)
    return status;
  set_ops_mono(ops, batch);
  ops->tasks_per_step = mono_batch_chunks(batch);
  ops->task_steps = mono_batch_task_steps(batch);
  ops->cpu_share_neurons = mono_batch_cpu_share_neurons(batch);
  ops->interleaved_chunks = mono_batch_interleaved_chunks(batch);
  ops->share_uncalibrated = mono_batch_share_uncalibrated(batch);
  mono_batch_share_probe(batch, &ops->probed_neurons, &ops->probe_measured_us,
                         &ops->probe_predicted_us);
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
  if (!p->on || now - p->last < p->every || done <= first_done)
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

/* The spikes read so far (the batch's set, read once more after the last step), sorted, with
 * the counts per neuron summed up. */
static int spike_report_make(const struct options *o, const struct batch_ops *ops,
                             const struct spike_set *set, struct spike_report *report,
                             struct hines_error *err) {
  *report = (struct spike_report){.neurons = ops->n_neurons, .lost = set->lost};
  report->spikes = malloc((set->n_spikes ? set->n_spikes : 1) * sizeof *report->spikes);
  if (!report->spikes)
    return hines_fail(err, HINES_FAILURE, "out of memory for the spike times");
  if (set->n_spikes)
    memcpy(report->spikes, set->spikes, set->n_spikes * sizeof *report->spikes);
  report->n_spikes = set->n_spikes;
  qsort(report->spikes, report->n_spikes, sizeof *report->spikes, spike_set_order);
  for (size_t i = 0; i < report->n_spikes; i++)
    report->spikes[i].neuron += o->first_neuron;
  report->min_per_neuron = set->n_neurons > 0 ? set->count[0] : 0;
  for (int k = 0; k < set->n_neurons; k++) {
    const long long count = set->count[k];
    report->neurons_with_spikes += count > 0;
    report->min_per_neuron = count < report->min_per_neuron ? count : report->min_per_neuron;
    report->max_per_neuron = count > report->max_per_neuron ? count : report->max_per_neuron;
  }
  return HINES_OK;
}

/* The steps of the `submitted` the batch has computed (`per_task` steps a task): those whose
 * tasks are still in flight (a window of them, runtime_window_wait) counted off, so that progress
 * does not run ahead of the run (a multi batch with the cores' share submits about all of a run's
 * steps at once). */
static int steps_computed(const struct batch_ops *ops, int per_task, int submitted) {
  const long long tasks = ops->tasks_per_step > 0 ? ops->tasks_per_step : 1;
  const long long in_flight = (runtime_tasks_in_flight() + tasks - 1) / tasks * per_task;
  return in_flight < submitted ? submitted - (int)in_flight : 0;
}

int simulation_run(const struct options *o, const struct batch_ops *ops,
                   struct probe_record *probes, struct spike_report *spikes,
                   struct run_result *result) {
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
  /* Spikes: each chunk's record is updated by its step tasks where they run and read back every
   * SPIKE_SET_READ_EVERY steps (the most that loses nothing; without waiting) and at the end. */
  struct hines_error err;
  const int spike_every = o->spikes_path ? SPIKE_SET_READ_EVERY : 0;
  struct spike_set *spike_set = spike_every ? ops->spike_set(ops->batch) : NULL;
  if (status == HINES_OK && spike_every && ops->spikes(ops->batch, o->spike_threshold_mV, &err)) {
    fprintf(stderr, "%s: %s\n", program, err.message);
    status = HINES_FAILURE;
  }
  /* The first step moves the batch to where its tasks run and loads the kernels; the time per
   * step is measured over the others, with the data resident. */
  double first_start = now_seconds();
  if (status == HINES_OK)
    status = ops->run(ops->batch, 1, 0.0, probe_record_row(probes, 1));
  ops->sync(ops->batch);
  double first_seconds = now_seconds() - first_start;
  int done = 1;
  double loop_start = now_seconds();
  progress.start = progress.last = loop_start;
  /* Steps go in without waiting (the batch keeps a window of them in flight). Without progress
   * lines one call submits them all; with them, a call covers about SLICE_TARGET_S, in whole
   * tasks, sized from the steps computed so far (not those submitted: with a window of steps in
   * flight the first calls return at once, and sizing by them gave one call the whole run, its
   * progress 100 % from the start). A call also ends where a probe sample is due, so that its
   * last step fills the sample's row. */
  const double SLICE_TARGET_S = progress.every / 2 < 1.0 ? progress.every / 2 : 1.0;
  const int per_task = ops->task_steps > 1 ? ops->task_steps : 1;
  double seconds_per_step = first_seconds;
  while (done < o->steps && status == HINES_OK) {
    int count = o->steps - done;
    if (progress.on && seconds_per_step > 0 && SLICE_TARGET_S / seconds_per_step < count) {
      const double slice = SLICE_TARGET_S / seconds_per_step;
      count = slice < per_task ? per_task : (int)slice / per_task * per_task;
      count = count < o->steps - done ? count : o->steps - done;
    }
    if (o->n_probes && probes->every - done % probes->every < count)
      count = probes->every - done % probes->every;
    if (spike_every && spike_every - done % spike_every < count)
      count = spike_every - done % spike_every;
    status = ops->run(ops->batch, count, done * o->model.dt_ms,
                      o->n_probes ? probe_record_row(probes, done + count) : -1);
    done += count;
    /* Each record is read as soon as this step has updated it, while the next steps queue
     * behind the read; the last read, after the last step, waits. */
    if (status == HINES_OK && spike_every && done % spike_every == 0 && done < o->steps)
      spike_set_request(spike_set);
    const int computed = steps_computed(ops, per_task, done);
    if (computed > 1)
      seconds_per_step = (now_seconds() - loop_start) / (computed - 1);
    progress_report(&progress, computed, o->steps, 1);
  }
  ops->sync(ops->batch);
  double loop_end = now_seconds();
  if (progress.printed && progress.terminal)
    fputc('\n', stderr);
  if (status == HINES_OK && o->n_probes)
    probe_record_collect(probes, ops);
  if (status == HINES_OK && spike_every &&
      (spike_set_read(spike_set, &err) || spike_report_make(o, ops, spike_set, spikes, &err))) {
    fprintf(stderr, "%s: %s\n", program, err.message);
    status = HINES_FAILURE;
  }
  result->seconds_steps = o->steps > 1 ? loop_end - loop_start : first_seconds;
  result->timed_steps = o->steps > 1 ? o->steps - 1 : 1;
  result->seconds_first_step = first_seconds;
  result->tasks_per_step = ops->tasks_per_step;
  result->task_steps = per_task;
  result->cpu_share_neurons = ops->cpu_share_neurons;
  result->window = ops->window;
  result->arranged_neurons = ops->arranged_neurons;
  result->aligned_neurons = ops->aligned_neurons;
  result->aligned_tail = ops->aligned_tail;
  result->interleaved_chunks = ops->interleaved_chunks;
  result->share_uncalibrated = ops->share_uncalibrated;
  result->probed_neurons = ops->probed_neurons;
  result->probe_measured_us = ops->probe_measured_us;
  result->probe_predicted_us = ops->probe_predicted_us;
  result->probe_busiest_us = ops->probe_busiest_us;
  result->probe_gpu_task_us = ops->probe_gpu_task_us;
  result->set_up_neurons = ops->set_up_neurons;
  result->set_up_measured_us = ops->set_up_measured_us;
  result->cell_neurons = ops->cell_neurons;
  result->level_kernel = ops->level_kernel;
  result->rows_apart_below = ops->rows_apart_below;
  result->trunk_levels = ops->trunk_levels;
  result->warp_systems = ops->warp_systems;
  result->level_priorities = ops->level_priorities;
  return status;
}
