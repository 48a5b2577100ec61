/* StarPU adapters for the mono-morphology kernels: read the buffers' matrix interfaces, split the
 * chunk into cache-sized neuron groups, and spread the groups over the OpenMP threads StarPU
 * grants the task (the combined worker's size under pheft/peager, one thread otherwise, so we
 * never oversubscribe the cores StarPU pinned). */
#include "hines_mono_codelets.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "probe_samples.h"
#include "spike_record.h"
#include "step_outputs.h"
#include "task_insert.h"
#ifdef HINES_CUDA_CODELETS
#include "task_streams.h"
#endif
#include "worker_threads.h"

/* A step task's arguments: the step, the probe sample row this task fills (-1: none; the
 * probe buffer is then the task's last buffer but the spike record) and the number of the step
 * for the spike record (0: none; the record is then the task's last buffer). */
struct step_task {
  struct step_arguments step;
  int sample_row;
  int spike_step;
  int steps;    /* steps this task advances (hines_step_data) */
  int run_step; /* step j of the task starts at run_t0_ms + (run_step + j) * dt */
  double run_t0_ms;
  int gates, own; /* whether the task has a gates buffer, a sweep's parameter buffer */
  struct neuron_columns columns; /* the sweep's (own) */
};

static int task_steps(const struct step_task *task) {
  return task->steps > 1 ? task->steps : 1;
}

/* The start of the task's step j, computed as the submitting loop computed it for one-step
 * tasks (t0 + s * dt), so that a task's length does not change a stimulus time's bits. */
static double task_step_time(const struct step_task *task, int j) {
  return task->run_t0_ms + (task->run_step + j) * task->step.dt_ms;
}

static double *task_samples(void *buffers[], const struct step_task *task) {
  if (task->sample_row < 0)
    return NULL;
  int last = (int)STARPU_TASK_GET_NBUFFERS(starpu_task_get_current()) - 1 - (task->spike_step > 0);
  return (double *)STARPU_VECTOR_GET_PTR(buffers[last]);
}

/* The spike record (codelets/spike_record.h) and its neuron count, or NULL. */
static double *task_spikes(void *buffers[], const struct step_task *task, int *n) {
  if (task->spike_step <= 0)
    return NULL;
  int last = (int)STARPU_TASK_GET_NBUFFERS(starpu_task_get_current()) - 1;
  *n = spike_record_neurons(STARPU_VECTOR_GET_NX(buffers[last]));
  return (double *)STARPU_VECTOR_GET_PTR(buffers[last]);
}

/* Completes the chunk geometry from the matrix interface of the chunk's per-neuron buffer. */
static void chunk_from_interface(struct chunk_geometry *g, void *matrix) {
  size_t nx = STARPU_MATRIX_GET_NX(matrix), ny = STARPU_MATRIX_GET_NY(matrix);
  g->ld = STARPU_MATRIX_GET_LD(matrix);
  switch (g->layout) {
  case BATCH_LAYOUT_FLAT:
    g->n_neurons = (int)ny;
    break;
  case BATCH_LAYOUT_INTERLEAVED:
    g->n_neurons = (int)nx;
    break;
  default:
    g->n_neurons = (int)ny * g->block_size;
    break;
  }
}

/* Neurons [k, k + width) form a group when they share one stride and consecutive bases: the
 * same block for block layouts, anything for interleaved, a single neuron for flat. */
static int group_width(const struct chunk_geometry *g, int k, int preferred) {
  int width = preferred;
  if (g->layout == BATCH_LAYOUT_FLAT)
    return 1;
  if (g->layout != BATCH_LAYOUT_INTERLEAVED) {
    int left_in_block = g->block_size - k % g->block_size;
    width = width < left_in_block ? width : left_in_block;
  }
  int left = g->n_neurons - k;
  return width < left ? width : left;
}

static int preferred_group(const struct chunk_geometry *g, int cpu_group) {
  if (g->layout == BATCH_LAYOUT_FLAT)
    return 1;
  int group = cpu_group > 0 ? cpu_group : 32;
  return group > HINES_CPU_MAX_GROUP ? HINES_CPU_MAX_GROUP : group;
}

static void hines_solve_cpu(void *buffers[], void *cl_arg) {
  struct chunk_geometry g;
  memcpy(&g, cl_arg, sizeof g);
  chunk_from_interface(&g, buffers[2]);
  const int *topology = (const int *)STARPU_VECTOR_GET_PTR(buffers[0]);
  const double *coefficients = (const double *)STARPU_VECTOR_GET_PTR(buffers[1]);
  double *diagonal = (double *)STARPU_MATRIX_GET_PTR(buffers[2]);
  double *rhs = (double *)STARPU_MATRIX_GET_PTR(buffers[3]);
  const int group = preferred_group(&g, 32);
  const int n_groups = (g.n_neurons + group - 1) / group;
  const int threads = starpu_combined_worker_get_size();
  FOR_ON_THREADS(threads, static, gi, n_groups, {
    int k = gi * group;
    for (int done = 0; done < group && k + done < g.n_neurons;) {
      int width = group_width(&g, k + done, group - done);
      hines_solve_group_cpu(topology, coefficients, &g, diagonal, rhs, chunk_base(&g, k + done),
                            width);
      done += width;
    }
  });
}

/* The gates matrix is the fifth buffer when the task carries channels. */
static double *step_gates(void *buffers[], const struct step_task *task,
                          struct step_arguments *args) {
  if (!task->gates)
    return NULL;
  args->gates_geometry.layout = args->geometry.layout;
  args->gates_geometry.block_size = args->geometry.block_size;
  args->gates_geometry.n_compartments = args->channels.n_gates * args->geometry.n_compartments;
  chunk_from_interface(&args->gates_geometry, buffers[4]);
  return (double *)STARPU_MATRIX_GET_PTR(buffers[4]);
}

/* A sweep's per-neuron values (codelets/neuron_parameters.h) follow the gates: a matrix of the
 * chunk's neurons along x, one row per swept parameter; NULL without a sweep. */
static const struct neuron_sweep *step_own(void *buffers[], const struct step_task *task,
                                           struct neuron_sweep *sweep) {
  if (!task->own)
    return NULL;
  void *matrix = buffers[4 + task->gates];
  *sweep = (struct neuron_sweep){.columns = task->columns,
                                 .values = (const double *)STARPU_MATRIX_GET_PTR(matrix),
                                 .ld = STARPU_MATRIX_GET_LD(matrix)};
  return sweep;
}

static void hines_step_cpu(void *buffers[], void *cl_arg) {
  struct step_task task;
  memcpy(&task, cl_arg, sizeof task);
  struct step_arguments args = task.step;
  struct chunk_geometry *g = &args.geometry;
  if (args.stored_interleaved)
    g->layout = BATCH_LAYOUT_INTERLEAVED;
  chunk_from_interface(g, buffers[2]);
  const int *topology = (const int *)STARPU_VECTOR_GET_PTR(buffers[0]);
  const double *coefficients = (const double *)STARPU_VECTOR_GET_PTR(buffers[1]);
  double *voltage = (double *)STARPU_MATRIX_GET_PTR(buffers[2]);
  double *work = (double *)STARPU_MATRIX_GET_PTR(buffers[3]);
  double *gates = step_gates(buffers, &task, &args);
  struct neuron_sweep sweep_values;
  const struct neuron_sweep *sweep = step_own(buffers, &task, &sweep_values);
  double *samples = task_samples(buffers, &task);
  int n_spiking = 0;
  double *spikes = task_spikes(buffers, &task, &n_spiking);
  const int group = preferred_group(g, args.cpu_group);
  const int n_groups = (g->n_neurons + group - 1) / group;
  const int steps = task_steps(&task);
  /* Each group takes all the task's steps while its values are in cache (neurons do not
   * interact within a step), then checks its own somata for spikes after each step: the
   * record's neuron k is the chunk's neuron k. */
  const int threads = starpu_combined_worker_get_size();
  FOR_ON_THREADS(threads, static, gi, n_groups, {
    const int k = gi * group;
    const int end = k + group < g->n_neurons ? k + group : g->n_neurons;
    struct step_arguments own = args;
    for (int j = 0; j < steps; j++) {
      own.time_ms = task_step_time(&task, j);
      /* A group that would straddle a block boundary is cut into same-stride pieces. */
      for (int at = k; at < end;) {
        int width = group_width(g, at, end - at);
        hines_step_group_cpu(topology, coefficients, &own, voltage, work, gates, sweep,
                             chunk_base(g, at), width, at);
        at += width;
      }
      for (int q = k; spikes && q < end && q < n_spiking; q++)
        spike_record_check(voltage, g->ld, spikes, n_spiking, q, task.spike_step + j, args.dt_ms);
    }
  });
  step_outputs_cpu(voltage, g->ld, samples, task.sample_row, NULL, 0, args.dt_ms);
}

/* The multi-morphology baseline (hines_neuron_step_cuda's comment): each neuron its own tree,
 * one neuron at a time per thread, through the same step kernel as the mono batches. */
static void neuron_step_cpu(void *buffers[], void *cl_arg) {
  struct step_task task;
  memcpy(&task, cl_arg, sizeof task);
  struct step_arguments args = task.step;
  double *samples = task_samples(buffers, &task);
  const int *neurons = (const int *)STARPU_VECTOR_GET_PTR(buffers[0]);
  const int *topology = (const int *)STARPU_VECTOR_GET_PTR(buffers[1]);
  const double *coefficients = (const double *)STARPU_VECTOR_GET_PTR(buffers[2]);
  double *voltage = (double *)STARPU_MATRIX_GET_PTR(buffers[3]);
  double *work = (double *)STARPU_MATRIX_GET_PTR(buffers[4]);
  const int count = (int)STARPU_MATRIX_GET_NX(buffers[3]);
  args.geometry.layout = BATCH_LAYOUT_INTERLEAVED;
  args.geometry.ld = STARPU_MATRIX_GET_LD(buffers[3]);
  args.geometry.n_neurons = count;
  const int threads = starpu_combined_worker_get_size();
  FOR_ON_THREADS(threads, static, k, count, {
    const int *entry = neurons + 1 + 3 * ((args.first_neuron + k) % neurons[0]);
    struct step_arguments own = args;
    own.geometry.n_compartments = entry[0];
    hines_step_group_cpu(topology + entry[1], coefficients + entry[2], &own, voltage, work, NULL,
                         NULL, (size_t)k, 1, k);
  });
  int n_spiking = 0;
  double *spikes = task_spikes(buffers, &task, &n_spiking);
  step_outputs_cpu(voltage, args.geometry.ld, samples, task.sample_row, spikes, task.spike_step,
                   args.dt_ms);
}

#ifdef HINES_CUDA_CODELETS
static void report_cuda(const char *what, int status) {
  if (status)
    STARPU_CUDA_REPORT_ERROR((cudaError_t)status);
  (void)what;
}

static void hines_solve_cuda_codelet(void *buffers[], void *cl_arg) {
  struct chunk_geometry g;
  memcpy(&g, cl_arg, sizeof g);
  chunk_from_interface(&g, buffers[2]);
  cudaStream_t stream = hines_task_stream_begin();
  report_cuda("hines_solve", hines_solve_cuda((const int *)STARPU_VECTOR_GET_PTR(buffers[0]),
                                              (const double *)STARPU_VECTOR_GET_PTR(buffers[1]), &g,
                                              (double *)STARPU_MATRIX_GET_PTR(buffers[2]),
                                              (double *)STARPU_MATRIX_GET_PTR(buffers[3]), stream));
  report_cuda("hines_solve", hines_task_stream_end(stream));
}

static void hines_step_cuda_codelet(void *buffers[], void *cl_arg) {
  struct step_task task;
  memcpy(&task, cl_arg, sizeof task);
  struct step_arguments args = task.step;
  if (args.stored_interleaved)
    args.geometry.layout = BATCH_LAYOUT_INTERLEAVED;
  chunk_from_interface(&args.geometry, buffers[2]);
  double *gates = step_gates(buffers, &task, &args);
  struct neuron_sweep sweep_values;
  const struct neuron_sweep *sweep = step_own(buffers, &task, &sweep_values);
  double *samples = task_samples(buffers, &task);
  double *voltage = (double *)STARPU_MATRIX_GET_PTR(buffers[2]);
  int n_spiking = 0;
  double *spikes = task_spikes(buffers, &task, &n_spiking);
  const int steps = task_steps(&task);
  cudaStream_t stream = hines_task_stream_begin();
  int status = 0;
  /* The task's steps queue back to back on its stream: no StarPU work between them. */
  for (int j = 0; j < steps && !status; j++) {
    args.time_ms = task_step_time(&task, j);
    status = hines_step_cuda((const int *)STARPU_VECTOR_GET_PTR(buffers[0]),
                             (const double *)STARPU_VECTOR_GET_PTR(buffers[1]), &args, voltage,
                             (double *)STARPU_MATRIX_GET_PTR(buffers[3]), gates, sweep, stream);
    if (!status)
      status = step_outputs_cuda(voltage, args.geometry.ld, j == steps - 1 ? samples : NULL,
                                 task.sample_row, spikes, n_spiking, task.spike_step + j,
                                 args.dt_ms, stream);
  }
  if (!status)
    status = hines_task_stream_end(stream);
  report_cuda("hines_step", status);
}

static void neuron_step_cuda_codelet(void *buffers[], void *cl_arg) {
  struct step_task task;
  memcpy(&task, cl_arg, sizeof task);
  struct step_arguments args = task.step;
  args.geometry.ld = STARPU_MATRIX_GET_LD(buffers[3]);
  double *samples = task_samples(buffers, &task);
  double *voltage = (double *)STARPU_MATRIX_GET_PTR(buffers[3]);
  cudaStream_t stream = hines_task_stream_begin();
  int status = hines_neuron_step_cuda((const int *)STARPU_VECTOR_GET_PTR(buffers[0]),
                                      (const int *)STARPU_VECTOR_GET_PTR(buffers[1]),
                                      (const double *)STARPU_VECTOR_GET_PTR(buffers[2]), &args,
                                      voltage, (double *)STARPU_MATRIX_GET_PTR(buffers[4]),
                                      (int)STARPU_MATRIX_GET_NX(buffers[3]), stream);
  int n_spiking = 0;
  double *spikes = task_spikes(buffers, &task, &n_spiking);
  if (!status)
    status = step_outputs_cuda(voltage, args.geometry.ld, samples, task.sample_row, spikes,
                               n_spiking, task.spike_step, args.dt_ms, stream);
  if (!status)
    status = hines_task_stream_end(stream);
  report_cuda("neuron_step", status);
}
#endif

/* Size models (codelets/size_model.h): a chunk's work is its values (neurons x compartments,
 * padding lanes included); its kind the layout, the compartments per neuron, the block size and
 * the channels, which set the cost per value. */
static double chunk_size(struct starpu_task *task) {
  starpu_data_handle_t values = STARPU_TASK_GET_HANDLE(task, 2);
  return (double)starpu_matrix_get_nx(values) * (double)starpu_matrix_get_ny(values);
}

/* A step task's work: its values times the steps it advances. */
static double step_size(struct starpu_task *task) {
  return chunk_size(task) * task_steps((const struct step_task *)task->cl_arg);
}

/* A step task's kind tells tasks of one step from tasks of several: a CPU group keeps its values
 * in cache across a task's steps, so a compartment-step costs less in a task of 8 steps than of
 * one (the H200 machine's 15 cores in blocks: 5.9 against 4.8 G compartment-steps/s,
 * medium-high), and one history for both sized the CPU-sized chunks about five times too large
 * (steps25, steps25b: BENCHMARKS.md). Tasks of 2 steps or more share one kind (their size counts
 * the steps): a run's last round, or a probe interval, of fewer steps than the others was a kind
 * of its own, measured first on the small chunks a GPU picked up, and a GPU chunk's prediction
 * scaled from those put the last tasks of the GPU's chunks on cores (a trace of big-high 256,000
 * over 500 steps, 3 in the last round: four tasks of 230-263 ms on cores against 16 ms a round
 * on the GPU, 2.86 ms a step against 2.05 over 160 steps; diag27b, BENCHMARKS.md). */
static uint32_t geometry_kind(const struct chunk_geometry *g, int hh, int steps) {
  uint32_t hash = hines_kind_hash(0, (uint32_t)g->layout);
  hash = hines_kind_hash(hash, (uint32_t)(steps > 1 ? 2 : 1));
  hash = hines_kind_hash(hash, (uint32_t)g->n_compartments);
  hash = hines_kind_hash(
      hash,
      (uint32_t)(g->layout == BATCH_LAYOUT_BLOCK || g->layout == BATCH_LAYOUT_SHARED ? g->block_size
                                                                                     : 0));
  return hines_kind_hash(hash, (uint32_t)hh);
}

static uint32_t solve_kind(struct starpu_task *task) {
  return geometry_kind((const struct chunk_geometry *)task->cl_arg, 0, 1);
}

static uint32_t step_kind(struct starpu_task *task) {
  const struct step_task *t = (const struct step_task *)task->cl_arg;
  return geometry_kind(&t->step.geometry,
                       (int)channels_cost_kind(&t->step.channels, t->step.hh_rates), task_steps(t));
}

static double neuron_step_size(struct starpu_task *task) {
  starpu_data_handle_t values = STARPU_TASK_GET_HANDLE(task, 3);
  return (double)starpu_matrix_get_nx(values) * (double)starpu_matrix_get_ny(values);
}

static uint32_t neuron_step_kind(struct starpu_task *task) {
  starpu_data_handle_t values = STARPU_TASK_GET_HANDLE(task, 3);
  return hines_kind_hash(0, (uint32_t)starpu_matrix_get_ny(values));
}

/* Priors (compartment-steps per microsecond): one core of the H200 machine's Xeon about 150 in
 * the block layout, one H200 about 60,000 (BENCHMARKS.md); a small GPU task a few
 * microseconds of launch. Measurements replace them as soon as there are any. */
HINES_DECLARE_CODELET(hines_solve, hines_solve_cpu, hines_solve_cuda_codelet, chunk_size,
                      solve_kind, 300.0, 120000.0, 10.0, 0x1f77b4);
HINES_DECLARE_CODELET(hines_step, hines_step_cpu, hines_step_cuda_codelet, step_size, step_kind,
                      150.0, 60000.0, 10.0, 0xff7f0e);
HINES_DECLARE_CODELET(neuron_step, neuron_step_cpu, neuron_step_cuda_codelet, neuron_step_size,
                      neuron_step_kind, 100.0, 20000.0, 10.0, 0x8c564b);

static uint32_t step_model_kind(const struct step_arguments *args, int steps) {
  return geometry_kind(&args->geometry, (int)channels_cost_kind(&args->channels, args->hh_rates),
                       steps);
}

double hines_step_expected_us(const struct step_arguments *args, int steps, double values,
                              int worker) {
  struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(worker, 0);
  const int k = steps > 1 ? steps : 1;
  return arch ? size_model_expected_us(&hines_step_size_model, step_model_kind(args, k), values * k,
                                       arch)
              : 0.0;
}

int hines_step_measured(const struct step_arguments *args, int steps, int worker) {
  struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(worker, 0);
  return arch && size_model_measured(&hines_step_size_model, step_model_kind(args, steps), arch);
}

double hines_step_largest_measured(const struct step_arguments *args, int steps, int worker) {
  struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(worker, 0);
  const int k = steps > 1 ? steps : 1;
  return arch ? size_model_largest_measured(&hines_step_size_model, step_model_kind(args, k), arch,
                                            INFINITY) /
                    k
              : 0.0;
}

int hines_shared_block_limit_on_workers(int n_compartments, int *bytes_per_block) {
  int limit = INT_MAX;
  *bytes_per_block = 0;
#ifdef HINES_CUDA_CODELETS
  for (unsigned w = 0; w < starpu_worker_get_count(); w++) {
    if (starpu_worker_get_type((int)w) != STARPU_CUDA_WORKER)
      continue;
    int bytes = hines_shared_memory_per_block(starpu_worker_get_devid((int)w));
    int fit = hines_shared_block_limit(bytes, n_compartments);
    if (fit < limit) {
      limit = fit;
      *bytes_per_block = bytes;
    }
  }
#else
  (void)n_compartments;
#endif
  return limit;
}

/* The buffer orders the functions above unpack. */
int hines_solve_insert(starpu_data_handle_t topology, starpu_data_handle_t coefficients,
                       starpu_data_handle_t diagonal, starpu_data_handle_t rhs,
                       const struct chunk_geometry *geometry, const char *name,
                       unsigned long where) {
  struct starpu_data_descr buffers[] = {
      {topology, STARPU_R}, {coefficients, STARPU_R}, {diagonal, STARPU_RW}, {rhs, STARPU_RW}};
  void *arguments = codelet_arguments_copy(geometry, sizeof *geometry);
  if (!arguments)
    return -ENOMEM;
  const struct hines_task_spec spec = {.codelet = &hines_solve_codelet,
                                       .buffers = buffers,
                                       .n_buffers = 4,
                                       .arguments = arguments,
                                       .arguments_size = sizeof *geometry,
                                       .name = name,
                                       .where = where,
                                       HINES_SIZE_MODEL_DONE(hines_solve)};
  return hines_task_insert(&spec);
}

int hines_step_insert(const struct hines_step_data *data, const struct step_arguments *args,
                      const char *name, unsigned long where) {
  struct starpu_data_descr buffers[8] = {{data->topology, STARPU_R},
                                         {data->coefficients, STARPU_R},
                                         {data->voltage, STARPU_RW},
                                         {data->work, STARPU_W}};
  int n = 4;
  if (data->gates)
    buffers[n++] = (struct starpu_data_descr){data->gates, STARPU_RW};
  if (data->own)
    buffers[n++] = (struct starpu_data_descr){data->own, STARPU_R};
  int sample_row = data->sample_row, spike_step = data->spike_step;
  hines_task_add_step_outputs(buffers, &n, data->samples, &sample_row, data->spikes, &spike_step);
  struct step_task task = {.step = *args,
                           .sample_row = sample_row,
                           .spike_step = spike_step,
                           .steps = data->steps > 1 ? data->steps : 1,
                           /* steps 0: one step at args->time_ms */
                           .run_step = data->steps > 0 ? data->run_step : 0,
                           .run_t0_ms = data->steps > 0 ? data->run_t0_ms : args->time_ms,
                           .gates = data->gates != NULL,
                           .own = data->own != NULL};
  if (data->own)
    task.columns = *data->columns;
  void *arguments = codelet_arguments_copy(&task, sizeof task);
  if (!arguments)
    return -ENOMEM;
  const struct hines_task_spec spec = {.codelet = &hines_step_codelet,
                                       .buffers = buffers,
                                       .n_buffers = n,
                                       .arguments = arguments,
                                       .arguments_size = sizeof task,
                                       .name = name,
                                       .where = where,
                                       HINES_SIZE_MODEL_DONE(hines_step)};
  return hines_task_insert(&spec);
}

int neuron_step_insert(const struct neuron_step_data *data, const struct step_arguments *args,
                       const char *name, unsigned long where) {
  struct starpu_data_descr buffers[7] = {{data->neurons, STARPU_R},
                                         {data->topology, STARPU_R},
                                         {data->coefficients, STARPU_R},
                                         {data->voltage, STARPU_RW},
                                         {data->work, STARPU_W}};
  int n = 5;
  int sample_row = data->sample_row, spike_step = data->spike_step;
  hines_task_add_step_outputs(buffers, &n, data->samples, &sample_row, data->spikes, &spike_step);
  const struct step_task task = {.step = *args, .sample_row = sample_row, .spike_step = spike_step};
  void *arguments = codelet_arguments_copy(&task, sizeof task);
  if (!arguments)
    return -ENOMEM;
  const struct hines_task_spec spec = {.codelet = &neuron_step_codelet,
                                       .buffers = buffers,
                                       .n_buffers = n,
                                       .arguments = arguments,
                                       .arguments_size = sizeof task,
                                       .name = name,
                                       .where = where,
                                       HINES_SIZE_MODEL_DONE(neuron_step)};
  return hines_task_insert(&spec);
}
