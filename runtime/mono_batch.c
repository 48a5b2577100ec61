#include "mono_batch.h"

#include <math.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hines_mono_codelets.h"
#include "placement.h"
#include "probe_set.h"
#include "runtime.h"
#include "spike_set.h"

/* A layout's storage as one StarPU matrix whose split along one axis gives chunks of neurons. */
struct layout_matrix {
  size_t ld, nx, ny;
  int split_along_x; /* interleaved: neurons run along x; flat and block: along y */
  int units;         /* neurons (flat, interleaved) or blocks (block layouts) */
  int neurons_per_unit;
};

static struct layout_matrix layout_matrix(const struct batch_layout *layout) {
  size_t n = (size_t)layout->n_compartments;
  struct layout_matrix m;
  switch (layout->kind) {
  case BATCH_LAYOUT_FLAT:
    m = (struct layout_matrix){n, n, (size_t)layout->n_neurons, 0, layout->n_neurons, 1};
    break;
  case BATCH_LAYOUT_INTERLEAVED: /* rows padded to whole warps; the padding: plan_cover_padding */
    m = (struct layout_matrix){
        (size_t)layout->block_size, (size_t)layout->block_size, n, 1, layout->block_size, 1};
    break;
  default:
    m = (struct layout_matrix){(size_t)layout->block_size * n,
                               (size_t)layout->block_size * n,
                               (size_t)layout->n_blocks,
                               0,
                               layout->n_blocks,
                               layout->block_size};
    break;
  }
  return m;
}

/* How filter_units cuts a layout matrix: `units` columns (interleaved) or rows (flat, block)
 * per chunk along its split axis, in order; and the first `interleaved` chunks of a block matrix
 * (rows of one block of neurons_per_unit neurons each) reshaped as one block as wide as the
 * chunk: its values' rows (compartments) of all its neurons, i.e. the chunk interleaved. */
struct chunk_cut {
  const int *units;
  int along_x;
  int interleaved;
  int neurons_per_unit;
};

/* A split of the layout matrix into children of plan-given widths (struct chunk_cut). */
static void filter_units(void *father_interface, void *child_interface,
                         struct starpu_data_filter *f, unsigned id, unsigned nchildren) {
  (void)nchildren;
  const struct starpu_matrix_interface *father = father_interface;
  struct starpu_matrix_interface *child = child_interface;
  const struct chunk_cut *cut = f->filter_arg_ptr;
  const int *units = cut->units;
  const int along_x = cut->along_x;
  const int reshaped = (int)id < cut->interleaved;
  size_t first = 0;
  for (unsigned c = 0; c < id; c++)
    first += (size_t)units[c];
  *child = *father;
  child->nx = along_x ? (uint32_t)units[id] : father->nx;
  child->ny = along_x ? father->ny : (uint32_t)units[id];
  child->allocsize = (size_t)child->nx * child->ny * father->elemsize;
  if (father->dev_handle) {
    size_t offset = (along_x ? first : first * father->ld) * father->elemsize;
    if (father->ptr)
      child->ptr = father->ptr + offset;
    child->ld = father->ld;
    child->dev_handle = father->dev_handle;
    child->offset = father->offset + offset;
  }
  if (reshaped) { /* the same values, in the same place: a block's row of values per neuron */
    const uint32_t width = (uint32_t)(units[id] * cut->neurons_per_unit);
    child->ny = father->nx / (uint32_t)cut->neurons_per_unit;
    child->nx = width;
    child->ld = width;
  }
}

/* The units a plan cuts: the neurons themselves for the interleaved layout (whose padding
 * neurons then go to the last chunk, plan_cover_padding), the matrix's units otherwise. */
static int plan_units(const struct layout_matrix *m, int n_neurons) {
  return m->split_along_x ? n_neurons : m->units;
}

/* Gives the interleaved layout's padding neurons to the plan's last chunk, so that the chunks
 * cover the matrix and each keeps a whole number of warps when its size is one. */
static void plan_cover_padding(struct placement_plan *plan, const struct layout_matrix *m,
                               int n_neurons) {
  if (m->split_along_x && plan->n_chunks > 0)
    plan->units[plan->n_chunks - 1] += m->units - n_neurons;
}

/* Registers `values` and partitions it into the plan's chunks, the first `interleaved` of a
 * block matrix stored interleaved (struct chunk_cut). */
static void register_partitioned(starpu_data_handle_t *handle, double *values,
                                 const struct layout_matrix *m, const struct placement_plan *plan,
                                 int interleaved) {
  starpu_matrix_data_register(handle, STARPU_MAIN_RAM, (uintptr_t)values, (uint32_t)m->ld,
                              (uint32_t)m->nx, (uint32_t)m->ny, sizeof(double));
  struct chunk_cut cut = {.units = plan->units,
                          .along_x = m->split_along_x,
                          .interleaved = interleaved,
                          .neurons_per_unit = m->neurons_per_unit};
  struct starpu_data_filter filter = {
      .filter_func = filter_units, .nchildren = (unsigned)plan->n_chunks, .filter_arg_ptr = &cut};
  starpu_data_partition(*handle, &filter);
}

/* Global index of each chunk's first neuron. */
static void chunk_first_neurons(const struct placement_plan *plan, const struct layout_matrix *m,
                                int *first) {
  int at = 0;
  for (int c = 0; c < plan->n_chunks; c++) {
    first[c] = at;
    at += plan->units[c] * m->neurons_per_unit;
  }
}

/* The chunks a batch stores interleaved (runtime/mono_batch.h, interleaved_chunks). */
static int interleaved_chunks_of(const struct mono_batch_config *config,
                                 const struct placement_plan *plan) {
  if (config->layout != BATCH_LAYOUT_BLOCK)
    return 0;
  /* The GPUs' chunks; every chunk where the cores got none (a share the models could not cut
   * yet, or one the probe left nothing), as the GPU alone would store them (with HH 1.3-6.6 %
   * faster than blocks), but for chunks of a --task-neurons size, which a core may run. */
  if (config->interleaved_chunks == MONO_INTERLEAVE_GPU_CHUNKS)
    return plan->cpu_chunks > 0           ? plan->n_chunks - plan->cpu_chunks
           : config->neurons_per_task > 0 ? 0
                                          : plan->n_chunks;
  if (config->interleaved_chunks < 0)
    return 0;
  return config->interleaved_chunks < plan->n_chunks ? config->interleaved_chunks : plan->n_chunks;
}

struct mono_batch {
  struct mono_batch_config config;
  struct batch_layout layout;
  struct layout_matrix matrix;
  struct layout_matrix gates_matrix; /* the gates stored as n_gates * n compartments */
  int n_chunks;
  struct placement_plan plan; /* units per chunk and what each was sized for */
  unsigned long *where;       /* per chunk (runtime/placement.h) */
  int *chunk_first;
  int interleaved_chunks; /* the first chunks, stored interleaved (interleaved_chunks_of) */
  int share_uncalibrated; /* a share was chosen, but the models cannot cut it yet */
  /* The share's probe (share_probe): its first cut's neurons, the cores' time over a round of
   * its chunks measured and predicted (microseconds; 0 and 0: no probe ran). */
  int probed_neurons;
  double probe_measured_us, probe_predicted_us;
  struct probe_set probes;
  struct spike_set spikes; /* with spike detection: one record per chunk */
  int steps_done;          /* steps submitted so far: the number of the next one less 1 */
  int tasks_per_step;
  int task_steps; /* steps each step task advances (placement_task_steps) */
  char **chunk_names;
  int *topology;
  double *coefficients;
  double *voltage, *work, *gates;
  starpu_data_handle_t topology_handle, coefficients_handle, voltage_handle, work_handle,
      gates_handle;
  /* A sweep's per-neuron values: columns.count rows of all the (padded) neurons, split like
   * the voltages (own_units: each chunk's neurons). */
  struct neuron_columns columns;
  double *own;
  int *own_units;
  starpu_data_handle_t own_handle;
};

static int chunk_of_neuron(const struct mono_batch *batch, int neuron) {
  int c = 0;
  while (c + 1 < batch->n_chunks && batch->chunk_first[c + 1] <= neuron)
    c++;
  return c;
}

/* Where value i of neuron k lies in the storage of `layout` (the voltages', or the gates' of
 * n_gates * n values a neuron): batch_layout_index's place, but within one of the chunks stored
 * interleaved, the chunk's row i holds value i of its neurons (filter_units). */
static size_t stored_index(const struct mono_batch *batch, const struct batch_layout *layout,
                           int neuron, int i) {
  const int stored = batch->interleaved_chunks;
  if (stored == 0 || (stored < batch->n_chunks && neuron >= batch->chunk_first[stored]))
    return batch_layout_index(layout, neuron, i);
  const int c = chunk_of_neuron(batch, neuron); /* one of the first chunks */
  const size_t first = (size_t)batch->chunk_first[c];
  const size_t width = (size_t)batch->plan.units[c] * (size_t)batch->matrix.neurons_per_unit;
  return first * (size_t)layout->n_compartments + (size_t)i * width + ((size_t)neuron - first);
}

/* The gates at rest, one piece of neurons a batch_fill task (runtime_fill_on_cores): a value at a
 * time through stored_index, 4 gates x 319 compartments x 256,000 neurons took 4.5 s of HH's
 * building on one thread of the H200 machine's host. Pieces of about 2 M values, whole sets of
 * 64 neurons (interleaved neighbours share cache lines only at a piece's ends). */
#define GATES_PIECE_VALUES ((size_t)1 << 21)
struct gates_at_rest {
  const struct mono_batch *batch;
  const struct batch_layout *layout;
  int n, neurons_per_piece;
  double rest[CHANNELS_MAX_GATES];
};

static void gates_rest_piece(void *argument, int piece) {
  const struct gates_at_rest *job = argument;
  const struct mono_batch *batch = job->batch;
  const int n = job->n, n_gates = job->layout->n_compartments / n;
  const int first = piece * job->neurons_per_piece;
  const int last = first + job->neurons_per_piece < batch->config.n_neurons
                       ? first + job->neurons_per_piece
                       : batch->config.n_neurons;
  for (int k = first; k < last; k++)
    for (int g = 0; g < n_gates; g++)
      for (int i = 0; i < n; i++)
        batch->gates[stored_index(batch, job->layout, k, g * n + i)] = job->rest[g];
}

/* A Block-Shared block whose values do not fit a GPU's shared memory cannot be launched: refuse
 * it before anything runs (the launch would fail inside a task). */
static int check_shared_block(int n, int block_size, struct hines_error *err) {
  int bytes_per_block;
  int limit = hines_shared_block_limit_on_workers(n, &bytes_per_block);
  if (block_size <= limit)
    return HINES_OK;
  double needed_kib = (double)sizeof(double) * n * block_size / 1024;
  if (limit == 0)
    return hines_fail(err, HINES_BAD_INPUT,
                      "Block-Shared layout: one neuron of %d compartments needs %.0f KiB of GPU "
                      "shared memory, more than the %d KiB a block gets here; use the block "
                      "layout",
                      n, (double)sizeof(double) * n / 1024, bytes_per_block / 1024);
  return hines_fail(err, HINES_BAD_INPUT,
                    "Block-Shared layout: a block of %d neurons x %d compartments needs %.0f KiB "
                    "of GPU shared memory, the GPU gives a block %d KiB: at most %d neurons per "
                    "block fit",
                    block_size, n, needed_kib, bytes_per_block / 1024, limit);
}

static int check_sizes(enum batch_layout_kind layout, int n, int n_neurons, int block_size,
                       struct hines_error *err) {
  if (n_neurons < 1)
    return hines_fail(err, HINES_BAD_INPUT, "the batch needs at least one neuron (got %d)",
                      n_neurons);
  if ((layout == BATCH_LAYOUT_BLOCK || layout == BATCH_LAYOUT_SHARED) && block_size < 1)
    return hines_fail(err, HINES_BAD_INPUT, "block size must be at least 1 (got %d)", block_size);
  if (layout == BATCH_LAYOUT_SHARED && check_shared_block(n, block_size, err))
    return HINES_BAD_INPUT;
  double bytes = 3.0 * (double)n * n_neurons * sizeof(double);
  if (bytes > 1e15)
    return hines_fail(err, HINES_BAD_INPUT, "%d neurons x %d compartments is too large", n_neurons,
                      n);
  return HINES_OK;
}

/* The arguments every step task of the batch shares (time and first neuron set per task). */
static struct step_arguments step_arguments_of(const struct mono_batch *batch) {
  const struct mono_batch_config *config = &batch->config;
  return (struct step_arguments){.geometry = {.n_compartments = batch->layout.n_compartments,
                                              .layout = config->layout,
                                              .block_size = batch->layout.block_size},
                                 .stimulus = config->model.stimulus,
                                 .channels = config->model.channels,
                                 .cpu_group = config->cpu_group,
                                 .hh_rates = config->model.hh_rates,
                                 .dt_ms = config->model.dt_ms,
                                 .time_ms = 0.0};
}

/* The sweep's values as the kernels read them (codelets/neuron_parameters.h): row p of the
 * matrix holds parameter column[p] of every neuron, padding lanes of the last block repeating
 * the last neuron's; and each chunk's neurons, to split it like the voltages. */
static int own_values_make(struct mono_batch *batch, const struct mono_batch_config *config,
                           double gl_reference) {
  const size_t padded = (size_t)batch->matrix.units * batch->matrix.neurons_per_unit;
  batch->own = malloc(padded * (size_t)batch->columns.count * sizeof(double));
  batch->own_units = malloc((size_t)batch->n_chunks * sizeof(int));
  if (!batch->own || !batch->own_units)
    return HINES_FAILURE;
  for (int c = 0; c < batch->n_chunks; c++)
    batch->own_units[c] = batch->plan.units[c] * batch->matrix.neurons_per_unit;
  for (int p = 0; p < NEURON_PARAMETER_COUNT; p++) {
    const int column = batch->columns.column[p];
    if (column < 0)
      continue;
    for (size_t k = 0; k < padded; k++) {
      size_t row = k < (size_t)config->n_neurons ? k : (size_t)config->n_neurons - 1;
      batch->own[(size_t)column * padded + k] = neuron_parameter_stored(
          p, config->sweep[row * NEURON_PARAMETER_COUNT + p], &config->model, gl_reference);
    }
  }
  return HINES_OK;
}

/* placement_predictor: a step task over `neurons` neurons of this batch's shape. */
/* The heterogeneous cut goes by measured speeds only, or by the priors in a calibration run
 * (which measures the chunks it makes). A prior is one number per kind of worker for every host:
 * on the H200 x2 machine's 31 cores, whose chunks share the memory bandwidth, the cut it gave
 * took 1.9-3.4 ms a step against 1.18 for the GPU alone (mono 256,000 medium-high); the GPU's
 * chunks alone lose at most what the cores would add (5 % on the H200 machine, measured). */
struct chunk_shape {
  struct step_arguments args;
  int steps; /* the steps a task of a CPU-sized chunk would advance */
  /* The cores' predictions times this (share_probe: what the cores measured over what the models
   * predicted for the share's round, where the two differ; 1 otherwise). */
  double core_scale;
};

static double predict_chunk(const void *context, int neurons, int worker) {
  const struct chunk_shape *shape = context;
  if (!runtime_calibrating() && !hines_step_measured(&shape->args, shape->steps, worker))
    return NAN;
  const double us = hines_step_expected_us(
      &shape->args, shape->steps, (double)neurons * shape->args.geometry.n_compartments, worker);
  return starpu_worker_get_type(worker) == STARPU_CPU_WORKER ? shape->core_scale * us : us;
}

/* The cores' share as cut (the plan's CPU chunks, `neurons` neurons) measured before the batch
 * runs, as the multi share's is (multi_batch.c, share_probe): a batch of those neurons in the
 * same layout, cut as the cores' chunks are (placement_cores_plan: equal chunks, as many a CPU
 * worker as the share's), run on the CPU workers alone, a round to warm up and
 * PLACEMENT_SHARE_PROBE_ROUNDS rounds of tasks of shape->steps steps. *measured_us: the CPU
 * workers' time executing a round (StarPU's profiling); *predicted_us: the same predicted by the
 * models the cut went by, before the rounds ran (the size model records the probe's tasks too).
 * Both 0 where no probe could be made (profiling off, no CPU worker). Why: the cores' speed
 * changes from run to run and with what else runs on the host, while the GPU's holds; a cut from
 * the models' mean over past runs then makes the cores late every round. */
_Static_assert(PLACEMENT_CPU_ALONE_CHUNKS_PER_CORE == PLACEMENT_CPU_CHUNKS_PER_CORE,
               "the share's probe cuts its chunks as the cores alone do");
static int share_probe(const struct mono_batch_config *config, const struct chunk_shape *shape,
                       int neurons, double *measured_us, double *predicted_us,
                       struct hines_error *err) {
  *measured_us = *predicted_us = 0.0;
  const int cpu_worker = starpu_worker_get_by_type(STARPU_CPU_WORKER, 0);
  if (starpu_profiling_status_get() != STARPU_PROFILING_ENABLE || cpu_worker < 0 || neurons < 1)
    return HINES_OK;
  struct mono_batch_config probe = *config;
  probe.n_neurons = neurons;
  probe.first_neuron = probe.total_neurons = 0;
  probe.neurons_per_task = 0;
  probe.cores_alone = 1;
  probe.cpu_share = PLACEMENT_SHARE_OFF;
  probe.interleaved_chunks = 0;
  probe.task_steps = shape->steps;
  struct mono_batch *sample = NULL;
  int status = mono_batch_create(&probe, &sample, err);
  if (status)
    return status;
  double predicted = 0.0;
  for (int c = 0; c < sample->n_chunks; c++) {
    sample->where[c] = STARPU_CPU;
    const int last = c + 1 < sample->n_chunks ? sample->chunk_first[c + 1] : neurons;
    predicted += predict_chunk(shape, last - sample->chunk_first[c], cpu_worker);
  }
  runtime_cpu_executing_us(); /* what ran before */
  status = mono_batch_run(sample, shape->steps, 0.0);
  starpu_task_wait_for_all();
  runtime_cpu_executing_us(); /* the warm-up round's */
  if (!status)
    status = mono_batch_run(sample, PLACEMENT_SHARE_PROBE_ROUNDS * shape->steps, 0.0);
  starpu_task_wait_for_all();
  const double executing_us = runtime_cpu_executing_us();
  mono_batch_destroy(sample);
  if (status)
    return hines_fail(err, HINES_FAILURE, "cannot submit the cores' share's probe");
  placement_share_probe_round(executing_us, predicted, measured_us, predicted_us);
  return HINES_OK;
}

/* Neurons in a plan's CPU chunks, the batch's last (padding units counted out). */
static int plan_cpu_neurons(const struct placement_plan *plan, const struct layout_matrix *m,
                            int n_neurons) {
  int gpu_units = 0;
  for (int c = 0; c < plan->n_chunks - plan->cpu_chunks; c++)
    gpu_units += plan->units[c];
  const long long left = (long long)n_neurons - (long long)gpu_units * m->neurons_per_unit;
  return plan->cpu_chunks > 0 && left > 0 ? (int)left : 0;
}

/* Whether a share chosen for `shape` got no chunk because the models have not measured its
 * step on CPU or CUDA workers (predict_chunk says NAN), rather than because no chunk a core
 * could take would end in time. */
static int share_waits_for_models(const struct chunk_shape *shape, int requested_neurons) {
  const int cpu = starpu_worker_get_by_type(STARPU_CPU_WORKER, 0),
            cuda = starpu_worker_get_by_type(STARPU_CUDA_WORKER, 0);
  return requested_neurons <= 0 && cpu >= 0 && cuda >= 0 && !runtime_calibrating() &&
         (!hines_step_measured(&shape->args, shape->steps, cpu) ||
          !hines_step_measured(&shape->args, shape->steps, cuda));
}

int mono_cores_alone_chosen(const struct mono_batch_config *config) {
  const int n = config->morphology->n_compartments, neurons = config->n_neurons;
  const long long compartments = (long long)neurons * n;
  const int cpus = (int)starpu_cpu_worker_get_count();
  if (config->cpu_share != PLACEMENT_SHARE_AUTO || config->neurons_per_task > 0 || cpus == 0 ||
      placement_cuda_devices() == 0 || !placement_model_scheduler() ||
      compartments >= PLACEMENT_SHARE_FROM_COMPARTMENTS ||
      placement_share_chosen(config->cpu_share, neurons, compartments, config->window))
    return 0;
  const int cpu = starpu_worker_get_by_type(STARPU_CPU_WORKER, 0),
            cuda = starpu_worker_get_by_type(STARPU_CUDA_WORKER, 0);
  const int steps = placement_share_task_steps(config->task_steps);
  struct batch_layout blocks;
  batch_layout_init(&blocks, BATCH_LAYOUT_BLOCK, n, neurons, config->block_size);
  const struct step_arguments gpu_args = {
      .geometry = {.n_compartments = n, .layout = config->layout, .block_size = 0},
      .channels = config->model.channels,
      .cpu_group = config->cpu_group,
      .hh_rates = config->model.hh_rates,
      .dt_ms = config->model.dt_ms};
  struct step_arguments core_args = gpu_args;
  core_args.geometry.layout = BATCH_LAYOUT_BLOCK;
  core_args.geometry.block_size = blocks.block_size;
  const double values = (double)compartments;
  if (hines_step_largest_measured(&gpu_args, steps, cuda) < values)
    return 0; /* (a calibration run measures the GPU alone first) */
  if (!hines_step_measured(&core_args, steps, cpu))
    return runtime_calibrating(); /* then the cores: the prior is a large batch's rate */
  /* the cores' round as placement_cores_plan cuts: blocks over the chunks, a core's in turn */
  struct placement_plan plan;
  if (placement_cores_plan(&plan, blocks.n_blocks, cpus))
    return 0;
  const int chunk_blocks = plan.units[0], per_core = (plan.n_chunks + cpus - 1) / cpus;
  placement_plan_free(&plan);
  const double core_round_us =
      per_core *
      hines_step_expected_us(&core_args, steps, (double)chunk_blocks * blocks.block_size * n, cpu);
  return placement_cores_alone(core_round_us,
                               hines_step_expected_us(&gpu_args, steps, values, cuda));
}

int mono_batch_create(const struct mono_batch_config *config, struct mono_batch **out,
                      struct hines_error *err) {
  *out = NULL;
  const struct morphology *m = config->morphology;
  const int n = m->n_compartments;
  int status = check_sizes(config->layout, n, config->n_neurons, config->block_size, err);
  if (status)
    return status;
  const struct step_model *model = &config->model;
  if (!(model->dt_ms > 0))
    return hines_fail(err, HINES_BAD_INPUT, "dt must be positive (got %g ms)", model->dt_ms);
  struct mono_batch *batch = calloc(1, sizeof *batch);
  if (!batch)
    return hines_fail(err, HINES_FAILURE, "out of memory");
  batch->config = *config;
  batch->config.model.stimulus.n_neurons_total = /* step_model.h */
      config->total_neurons > 0 ? config->total_neurons : config->n_neurons;
  batch->config.model.stimulus.first_neuron = config->first_neuron;
  batch_layout_init(&batch->layout, config->layout, n, config->n_neurons, config->block_size);
  batch->matrix = layout_matrix(&batch->layout);
  size_t values = batch_layout_size(&batch->layout);
  batch->topology = mono_topology_build(n, m->parent);
  batch->coefficients = malloc(mono_coefficients_size(n) * sizeof(double));
  batch->voltage = malloc(values * sizeof(double));
  batch->work = malloc(values * sizeof(double));
  if (!batch->topology || !batch->coefficients || !batch->voltage || !batch->work) {
    mono_batch_destroy(batch);
    return hines_fail(err, HINES_FAILURE, "cannot allocate %zu MB for %d neurons x %d compartments",
                      2 * values * sizeof(double) >> 20, config->n_neurons, n);
  }
  /* A sweep's columns; the coefficients hold the matrix for the model's cable, but for a sweep
   * of gl from --gl 0, whose factors need a leak to multiply (1 S/cm2; the rows are then all
   * assembled from the factors). */
  struct cable_parameters tables_cable = model->cable;
  batch->columns.el_mV = model->cable.el_mV;
  for (int p = 0; p < NEURON_PARAMETER_COUNT; p++)
    batch->columns.column[p] = -1;
  if (config->sweep) {
    for (int p = 0; p < NEURON_PARAMETER_COUNT; p++)
      if (config->swept[p]) {
        batch->columns.column[p] = (signed char)batch->columns.count++;
        batch->columns.membrane |= neuron_parameter_is_membrane(p);
      }
    if (config->swept[NEURON_GL] && !(tables_cable.gl_S_per_cm2 > 0))
      tables_cable.gl_S_per_cm2 = 1.0;
  }
  status = mono_coefficients_fill(m, &tables_cable, model->dt_ms, batch->coefficients, err);
  if (status) {
    mono_batch_destroy(batch);
    return status;
  }
  /* The rate table rides in the coefficients' handle: read-only, one copy per memory node. */
  channel_rate_table_fill(&model->channels, model->dt_ms,
                          batch->coefficients + (size_t)COEF_COUNT * n);
  /* Gates sit in the same layout as the voltage, as if each neuron had n_gates * n
   * compartments, so the same partition serves both. */
  const int n_gates = model->channels.n_gates;
  struct batch_layout gates_layout;
  if (model->channels.placement != PLACE_NONE) {
    batch_layout_init(&gates_layout, config->layout, n_gates * n, config->n_neurons,
                      config->block_size);
    batch->gates_matrix = layout_matrix(&gates_layout);
    size_t gate_values = batch_layout_size(&gates_layout);
    batch->gates = malloc(gate_values * sizeof(double));
    if (!batch->gates) {
      mono_batch_destroy(batch);
      return hines_fail(err, HINES_FAILURE, "cannot allocate the channel gates");
    }
  }
  /* The voltages at the initial one, the work at 1 and the gates at 0, written by the cores
   * (runtime_fill_on_cores: the pages' first touch) */
  double *const arrays[] = {batch->voltage, batch->work, batch->gates};
  const size_t counts[] = {values, values, batch->gates ? batch_layout_size(&gates_layout) : 0};
  const double fills[] = {model->initial_mV, 1.0, 0.0};
  runtime_fill_doubles(3, arrays, counts, fills);

  const struct chunk_shape proto = {.args = step_arguments_of(batch),
                                    .steps = placement_share_task_steps(config->task_steps),
                                    .core_scale = 1.0};
  const int share = placement_share_chosen(config->cpu_share, config->n_neurons,
                                           (long long)config->n_neurons * n, config->window);
  const int planned =
      config->cores_alone
          ? placement_cores_plan(&batch->plan, plan_units(&batch->matrix, config->n_neurons),
                                 (int)starpu_cpu_worker_get_count())
          : placement_plan_make(&batch->plan, config->neurons_per_task, config->n_neurons,
                                plan_units(&batch->matrix, config->n_neurons),
                                batch->matrix.neurons_per_unit, share ? predict_chunk : NULL,
                                &proto);
  if (planned) {
    mono_batch_destroy(batch);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  if (share && MONO_SHARE_PROBE && !config->cores_alone && batch->plan.cpu_chunks > 0 &&
      !runtime_calibrating()) {
    /* The cores' speed in this run (share_probe): the cut again where it differs. */
    batch->probed_neurons = plan_cpu_neurons(&batch->plan, &batch->matrix, config->n_neurons);
    status = share_probe(config, &proto, batch->probed_neurons, &batch->probe_measured_us,
                         &batch->probe_predicted_us, err);
    if (status) {
      mono_batch_destroy(batch);
      return status;
    }
    struct chunk_shape scaled = proto;
    scaled.core_scale = placement_share_probe_scale(
        batch->probe_measured_us, batch->probe_predicted_us, PLACEMENT_SHARE_PROBE_LEAST);
    if (MONO_SHARE_PROBE > 1 && scaled.core_scale != 1.0) {
      placement_plan_free(&batch->plan);
      if (placement_plan_make(&batch->plan, config->neurons_per_task, config->n_neurons,
                              plan_units(&batch->matrix, config->n_neurons),
                              batch->matrix.neurons_per_unit, predict_chunk, &scaled)) {
        mono_batch_destroy(batch);
        return hines_fail(err, HINES_FAILURE, "out of memory");
      }
    }
  }
  plan_cover_padding(&batch->plan, &batch->matrix, config->n_neurons);
  batch->share_uncalibrated = share && batch->plan.cpu_chunks == 0 &&
                              share_waits_for_models(&proto, config->neurons_per_task);
  batch->n_chunks = batch->plan.n_chunks;
  batch->tasks_per_step = batch->n_chunks;
  const size_t chunks = (size_t)(batch->n_chunks > 0 ? batch->n_chunks : 1);
  batch->chunk_first = malloc(chunks * sizeof(int));
  batch->chunk_names = calloc(chunks, sizeof(char *));
  if (!batch->chunk_first || !batch->chunk_names) {
    mono_batch_destroy(batch);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  chunk_first_neurons(&batch->plan, &batch->matrix, batch->chunk_first);
  batch->interleaved_chunks = interleaved_chunks_of(config, &batch->plan);
  if (batch->gates) { /* at rest for the initial voltage, where the chunks store them */
    struct gates_at_rest job = {.batch = batch, .layout = &gates_layout, .n = n};
    channels_rest(&model->channels, model->initial_mV, job.rest, 1);
    const size_t per_neuron = (size_t)n_gates * n;
    job.neurons_per_piece = (int)(GATES_PIECE_VALUES / per_neuron) / 64 * 64;
    if (job.neurons_per_piece < 64)
      job.neurons_per_piece = 64;
    const int pieces = (config->n_neurons + job.neurons_per_piece - 1) / job.neurons_per_piece;
    double *bytes = malloc((size_t)pieces * sizeof *bytes);
    for (int p = 0; bytes && p < pieces; p++)
      bytes[p] = (double)job.neurons_per_piece * per_neuron * sizeof(double);
    runtime_fill_on_cores(gates_rest_piece, &job, pieces, bytes);
    free(bytes);
  }
  if (batch->columns.count &&
      own_values_make(batch, config, tables_cable.gl_S_per_cm2) != HINES_OK) {
    mono_batch_destroy(batch);
    return hines_fail(err, HINES_FAILURE, "out of memory for the per-neuron parameters");
  }
  batch->where = malloc((size_t)batch->n_chunks * sizeof *batch->where);
  if (!batch->where) {
    mono_batch_destroy(batch);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  for (int c = 0; c < batch->n_chunks; c++)
    batch->where[c] = placement_where(batch->plan.sized_for[c], config->pin);
  starpu_vector_data_register(&batch->topology_handle, STARPU_MAIN_RAM, (uintptr_t)batch->topology,
                              (uint32_t)topology_size(n), sizeof(int));
  starpu_vector_data_register(&batch->coefficients_handle, STARPU_MAIN_RAM,
                              (uintptr_t)batch->coefficients, (uint32_t)mono_coefficients_size(n),
                              sizeof(double));
  /* Read by every task and never written once registered: no implicit dependencies to track
   * (runtime/README.md, "Costs per task"). */
  starpu_data_set_sequential_consistency_flag(batch->topology_handle, 0);
  starpu_data_set_sequential_consistency_flag(batch->coefficients_handle, 0);
  const int interleaved = batch->interleaved_chunks;
  register_partitioned(&batch->voltage_handle, batch->voltage, &batch->matrix, &batch->plan,
                       interleaved);
  register_partitioned(&batch->work_handle, batch->work, &batch->matrix, &batch->plan, interleaved);
  if (batch->gates)
    register_partitioned(&batch->gates_handle, batch->gates, &batch->gates_matrix, &batch->plan,
                         interleaved);
  if (batch->own) {
    const size_t padded = (size_t)batch->matrix.units * batch->matrix.neurons_per_unit;
    starpu_matrix_data_register(&batch->own_handle, STARPU_MAIN_RAM, (uintptr_t)batch->own,
                                (uint32_t)padded, (uint32_t)padded, (uint32_t)batch->columns.count,
                                sizeof(double));
    struct chunk_cut cut = {.units = batch->own_units, .along_x = 1};
    struct starpu_data_filter filter = {.filter_func = filter_units,
                                        .nchildren = (unsigned)batch->n_chunks,
                                        .filter_arg_ptr = &cut};
    starpu_data_partition(batch->own_handle, &filter);
  }
  int smallest = config->n_neurons;
  for (int c = 0; c < batch->n_chunks; c++) {
    const int last = c + 1 < batch->n_chunks ? batch->chunk_first[c + 1] : config->n_neurons;
    smallest = last - batch->chunk_first[c] < smallest ? last - batch->chunk_first[c] : smallest;
  }
  batch->task_steps = placement_task_steps(config->task_steps, &batch->plan, smallest);
  for (int c = 0; c < batch->n_chunks; c++) {
    /* A task's trace name is its codelet's (the perfmodel symbol): one Paje state per codelet,
     * in the codelet's colour, and starpu_perfmodel_plot -s hines_step -i TRACE finds the
     * trace's tasks by it. No spaces: Paje readers split fields on them. */
    char name[96];
    snprintf(name, sizeof name, "%s", hines_step_codelet.name);
    batch->chunk_names[c] = strdup(name);
  }
  /* The GPU chunks start spread over the GPUs (runtime/placement.h); CPU-sized chunks stay in
   * RAM, the cores their home. */
  const int gpu_chunks = batch->n_chunks - batch->plan.cpu_chunks;
  for (int c = 0; c < gpu_chunks; c++) {
    int node = placement_home_node(c, gpu_chunks);
    placement_prefetch(starpu_data_get_sub_data(batch->voltage_handle, 1, c), node);
    if (batch->gates)
      placement_prefetch(starpu_data_get_sub_data(batch->gates_handle, 1, c), node);
    if (batch->own)
      placement_prefetch(starpu_data_get_sub_data(batch->own_handle, 1, c), node);
  }
  for (int c = gpu_chunks; c < batch->n_chunks; c++)
    placement_cpu_home(starpu_data_get_sub_data(batch->voltage_handle, 1, c));
  *out = batch;
  return HINES_OK;
}

int mono_batch_chunks(const struct mono_batch *batch) {
  return batch->n_chunks;
}

int mono_batch_task_steps(const struct mono_batch *batch) {
  return batch->task_steps;
}

int mono_batch_cpu_share_neurons(const struct mono_batch *batch) {
  const int first = batch->n_chunks - batch->plan.cpu_chunks;
  return batch->plan.cpu_chunks ? batch->config.n_neurons - batch->chunk_first[first] : 0;
}

void mono_batch_share_probe(const struct mono_batch *batch, int *first_neurons, double *measured_us,
                            double *predicted_us) {
  *first_neurons = batch->probed_neurons;
  *measured_us = batch->probe_measured_us;
  *predicted_us = batch->probe_predicted_us;
}

int mono_batch_interleaved_chunks(const struct mono_batch *batch) {
  return batch->interleaved_chunks;
}

int mono_batch_share_uncalibrated(const struct mono_batch *batch) {
  return batch->share_uncalibrated;
}

int mono_batch_steps_measured(const struct mono_batch *batch, int steps, int worker) {
  const struct step_arguments args = step_arguments_of(batch);
  return hines_step_measured(&args, steps, worker);
}

/* Every stored voltage is read in storage order first: neuron by neuron through stored_index, an
 * interleaved batch is read a value a cache line, and mono medium-high x 256,000 spent 1.0-1.5 s
 * of its run's end there on the H200 machine's host. Only where a value (padding included) is
 * not finite is the first such neuron and compartment looked for in their order. */
int mono_batch_find_nonfinite(struct mono_batch *batch, int *neuron, int *compartment) {
  for (int c = 0; c < batch->n_chunks; c++)
    starpu_data_acquire(starpu_data_get_sub_data(batch->voltage_handle, 1, c), STARPU_R);
  const size_t values = batch_layout_size(&batch->layout);
  int any = 0;
  for (size_t v = 0; v < values; v++)
    any |= !isfinite(batch->voltage[v]);
  int found = 0;
  for (int c = 0; any && c < batch->n_chunks && !found; c++) {
    int last = c + 1 < batch->n_chunks ? batch->chunk_first[c + 1] : batch->config.n_neurons;
    for (int k = batch->chunk_first[c]; k < last && !found; k++)
      for (int i = 0; i < batch->layout.n_compartments && !found; i++)
        if (!isfinite(batch->voltage[stored_index(batch, &batch->layout, k, i)])) {
          *neuron = k;
          *compartment = i;
          found = 1;
        }
  }
  for (int c = 0; c < batch->n_chunks; c++)
    starpu_data_release(starpu_data_get_sub_data(batch->voltage_handle, 1, c));
  return found;
}

int mono_batch_run_sampled(struct mono_batch *batch, int steps, double t0_ms, int sample_row) {
  const struct mono_batch_config *config = &batch->config;
  struct step_arguments args = step_arguments_of(batch);
  const int window = config->window > 0 ? config->window : RUNTIME_DEFAULT_WINDOW;
  const int per_task = batch->task_steps;
  for (int s = 0; s < steps; s += per_task) {
    /* The window counts rounds of tasks, each round per_task steps. */
    runtime_window_wait(window, batch->tasks_per_step);
    const int count = steps - s < per_task ? steps - s : per_task;
    args.time_ms = t0_ms + s * config->model.dt_ms;
    const int row = s + count == steps ? sample_row : -1;
    const int step = batch->steps_done + 1;
    batch->steps_done += count;
    for (int c = 0; c < batch->n_chunks; c++) {
      args.first_neuron = batch->chunk_first[c];
      args.stored_interleaved = c < batch->interleaved_chunks;
      const struct hines_step_data data = {
          .topology = batch->topology_handle,
          .coefficients = batch->coefficients_handle,
          .voltage = starpu_data_get_sub_data(batch->voltage_handle, 1, c),
          .work = starpu_data_get_sub_data(batch->work_handle, 1, c),
          .gates = batch->gates ? starpu_data_get_sub_data(batch->gates_handle, 1, c) : NULL,
          .own = batch->own ? starpu_data_get_sub_data(batch->own_handle, 1, c) : NULL,
          .columns = &batch->columns,
          .samples = row >= 0 ? probe_set_samples(&batch->probes, c) : NULL,
          .sample_row = row,
          .spikes = spike_set_record(&batch->spikes, c),
          .spike_step = step,
          .steps = count,
          .run_step = s,
          .run_t0_ms = t0_ms};
      if (hines_step_insert(&data, &args, batch->chunk_names[c], batch->where[c]))
        return HINES_FAILURE;
    }
  }
  return HINES_OK;
}

int mono_batch_run(struct mono_batch *batch, int steps, double t0_ms) {
  return mono_batch_run_sampled(batch, steps, t0_ms, -1);
}

void mono_batch_sync(struct mono_batch *batch) {
  (void)batch;
  starpu_task_wait_for_all();
}

/* Where compartment[j] of neuron[j] lies: its chunk group[j] and position (x[j], y[j]) in the
 * chunk's voltage matrix (codelets/probe_samples.h). */
static int positions(const struct mono_batch *batch, int n, const int *neuron,
                     const int *compartment, int *group, long long *x, long long *y,
                     struct hines_error *err) {
  const struct layout_matrix *m = &batch->matrix;
  for (int j = 0; j < n; j++) {
    if (neuron[j] < 0 || neuron[j] >= batch->config.n_neurons || compartment[j] < 0 ||
        compartment[j] >= batch->layout.n_compartments)
      return hines_fail(err, HINES_BAD_INPUT, "probe %d:%d is outside the batch", neuron[j],
                        compartment[j]);
    const int c = chunk_of_neuron(batch, neuron[j]);
    group[j] = c;
    if (c < batch->interleaved_chunks) { /* the chunk's neuron along x, compartment along y */
      x[j] = neuron[j] - batch->chunk_first[c];
      y[j] = compartment[j];
      continue;
    }
    /* The value's place in the whole matrix, then in the chunk's (its first column or row). */
    const size_t at = batch_layout_index(&batch->layout, neuron[j], compartment[j]);
    const size_t first_unit = (size_t)(batch->chunk_first[c] / m->neurons_per_unit);
    x[j] = (long long)(at % m->ld) - (long long)(m->split_along_x ? first_unit : 0);
    y[j] = (long long)(at / m->ld) - (long long)(m->split_along_x ? 0 : first_unit);
  }
  return HINES_OK;
}

int mono_batch_probes(struct mono_batch *batch, int n, const int *neuron, const int *compartment,
                      int rows, struct hines_error *err) {
  int *group = malloc((size_t)(n > 0 ? n : 1) * sizeof *group);
  long long *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
  long long *y = malloc((size_t)(n > 0 ? n : 1) * sizeof *y);
  if (!group || !x || !y) {
    free(group), free(x), free(y);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  int status = positions(batch, n, neuron, compartment, group, x, y, err);
  probe_set_destroy(&batch->probes);
  if (status == HINES_OK)
    status = probe_set_create(&batch->probes, batch->n_chunks, n, group, x, y, rows, err);
  free(group), free(x), free(y);
  return status;
}

int mono_batch_spikes(struct mono_batch *batch, double threshold_mV, struct hines_error *err) {
  const int n = batch->config.n_neurons;
  int *neuron = malloc((size_t)n * sizeof *neuron), *group = malloc((size_t)n * sizeof *group);
  int *soma = calloc((size_t)n, sizeof *soma);
  long long *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
  int status = HINES_OK;
  if (!neuron || !group || !soma || !x || !y)
    status = hines_fail(err, HINES_FAILURE, "out of memory");
  for (int k = 0; status == HINES_OK && k < n; k++)
    neuron[k] = k;
  if (status == HINES_OK)
    status = positions(batch, n, neuron, soma, group, x, y, err);
  spike_set_destroy(&batch->spikes);
  if (status == HINES_OK)
    status = spike_set_create(&batch->spikes, batch->n_chunks, n, group, x, y, threshold_mV,
                              batch->config.model.initial_mV, err);
  free(neuron), free(group), free(soma), free(x), free(y);
  return status;
}

struct spike_set *mono_batch_spike_set(struct mono_batch *batch) {
  return &batch->spikes;
}

void mono_batch_probes_read(struct mono_batch *batch, int rows, double *values) {
  probe_set_read(&batch->probes, rows, values);
}

void mono_batch_voltage(struct mono_batch *batch, int neuron, double *out_mV) {
  /* Acquire only the chunk that holds the neuron: the rest stays where it is. */
  int c = chunk_of_neuron(batch, neuron);
  starpu_data_handle_t chunk = starpu_data_get_sub_data(batch->voltage_handle, 1, c);
  starpu_data_acquire(chunk, STARPU_R);
  for (int i = 0; i < batch->layout.n_compartments; i++)
    out_mV[i] = batch->voltage[stored_index(batch, &batch->layout, neuron, i)];
  starpu_data_release(chunk);
}

void mono_batch_destroy(struct mono_batch *batch) {
  if (!batch)
    return;
  probe_set_destroy(&batch->probes);
  spike_set_destroy(&batch->spikes);
  if (batch->voltage_handle) {
    for (int c = batch->n_chunks - batch->plan.cpu_chunks; c < batch->n_chunks; c++)
      placement_forget_home(starpu_data_get_sub_data(batch->voltage_handle, 1, c));
    starpu_data_unpartition(batch->voltage_handle, STARPU_MAIN_RAM);
    starpu_data_unregister(batch->voltage_handle);
    /* the sweeps' scratch and the gates: nobody reads them after the run */
    runtime_unregister_discarding(batch->work_handle);
    runtime_unregister_discarding(batch->gates_handle);
    if (batch->own_handle) {
      starpu_data_unpartition(batch->own_handle, STARPU_MAIN_RAM);
      starpu_data_unregister(batch->own_handle);
    }
    starpu_data_unregister(batch->topology_handle);
    starpu_data_unregister(batch->coefficients_handle);
  }
  free(batch->own);
  free(batch->own_units);
  for (int c = 0; batch->chunk_names && c < batch->n_chunks; c++)
    free(batch->chunk_names[c]);
  free(batch->chunk_names);
  free(batch->chunk_first);
  free(batch->where);
  placement_plan_free(&batch->plan);
  free(batch->topology);
  free(batch->coefficients);
  free(batch->voltage);
  free(batch->work);
  free(batch->gates);
  free(batch);
}

int mono_solve(int n, const int *parent, const double *upper, const double *lower,
               enum batch_layout_kind layout_kind, int n_neurons, int block_size,
               int neurons_per_task, double *diagonal, double *rhs, struct hines_error *err) {
  int status = check_sizes(layout_kind, n, n_neurons, block_size, err);
  if (status)
    return status;
  struct batch_layout layout;
  batch_layout_init(&layout, layout_kind, n, n_neurons, block_size);
  struct layout_matrix matrix = layout_matrix(&layout);
  size_t values = batch_layout_size(&layout);
  int *topology = mono_topology_build(n, parent);
  double *coefficients = calloc((size_t)COEF_COUNT * n, sizeof(double));
  double *stored_diagonal = malloc(values * sizeof(double));
  double *stored_rhs = malloc(values * sizeof(double));
  if (!topology || !coefficients || !stored_diagonal || !stored_rhs) {
    free(topology);
    free(coefficients);
    free(stored_diagonal);
    free(stored_rhs);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  memcpy(coefficients + COEF_UPPER * n, upper, (size_t)n * sizeof(double));
  memcpy(coefficients + COEF_LOWER * n, lower, (size_t)n * sizeof(double));
  /* Padding lanes of the last block solve the identity system. */
  batch_layout_fill(&layout, stored_diagonal, 1.0);
  batch_layout_fill(&layout, stored_rhs, 0.0);
  batch_layout_from_flat(&layout, diagonal, stored_diagonal);
  batch_layout_from_flat(&layout, rhs, stored_rhs);

  struct placement_plan plan;
  if (placement_plan_make(
          &plan,
          neurons_per_task > 0 ? neurons_per_task
                               : placement_neurons_per_task(0, n_neurons, matrix.neurons_per_unit,
                                                            PLACEMENT_CHUNKS_PER_GPU),
          n_neurons, plan_units(&matrix, n_neurons), matrix.neurons_per_unit, NULL, NULL)) {
    free(topology), free(coefficients), free(stored_diagonal), free(stored_rhs);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  plan_cover_padding(&plan, &matrix, n_neurons);
  int chunks = plan.n_chunks;
  starpu_data_handle_t topology_handle, coefficients_handle, diagonal_handle, rhs_handle;
  starpu_vector_data_register(&topology_handle, STARPU_MAIN_RAM, (uintptr_t)topology,
                              (uint32_t)topology_size(n), sizeof(int));
  starpu_vector_data_register(&coefficients_handle, STARPU_MAIN_RAM, (uintptr_t)coefficients,
                              (uint32_t)(COEF_COUNT * n), sizeof(double));
  register_partitioned(&diagonal_handle, stored_diagonal, &matrix, &plan, 0);
  register_partitioned(&rhs_handle, stored_rhs, &matrix, &plan, 0);
  struct chunk_geometry geometry = {
      .n_compartments = n, .layout = layout_kind, .block_size = layout.block_size};
  status = HINES_OK;
  /* StarPU keeps the name pointers until the tasks are done. */
  char(*names)[64] = malloc((size_t)chunks * sizeof *names);
  for (int c = 0; c < chunks && status == HINES_OK; c++) {
    snprintf(names[c], sizeof names[c], "%s", hines_solve_codelet.name); /* see mono_batch_create */
    if (hines_solve_insert(
            topology_handle, coefficients_handle, starpu_data_get_sub_data(diagonal_handle, 1, c),
            starpu_data_get_sub_data(rhs_handle, 1, c), &geometry, names[c], HINES_WHERE_ANY))
      status = hines_fail(err, HINES_FAILURE, "task submission failed");
  }
  starpu_task_wait_for_all();
  free(names);
  placement_plan_free(&plan);
  starpu_data_unpartition(diagonal_handle, STARPU_MAIN_RAM);
  starpu_data_unpartition(rhs_handle, STARPU_MAIN_RAM);
  starpu_data_unregister(diagonal_handle);
  starpu_data_unregister(rhs_handle);
  starpu_data_unregister(topology_handle);
  starpu_data_unregister(coefficients_handle);
  batch_layout_to_flat(&layout, stored_rhs, rhs);
  batch_layout_to_flat(&layout, stored_diagonal, diagonal);
  free(topology);
  free(coefficients);
  free(stored_diagonal);
  free(stored_rhs);
  return status;
}
