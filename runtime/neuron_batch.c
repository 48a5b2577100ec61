#include "neuron_batch.h"

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

struct neuron_batch {
  struct multi_batch_config config;
  int max_compartments, n_chunks;
  int *neurons; /* M, then n, topology offset, coefficients offset per morphology */
  int *topology;
  double *coefficients;
  double *voltage, *work; /* compartment i of neuron k at i * n_neurons + k */
  int *chunk_first;
  char (*names)[64];
  unsigned long where;
  struct probe_set probes;
  struct spike_set spikes; /* spike records, one per chunk; steps submitted so far */
  int steps_done;
  starpu_data_handle_t neurons_handle, topology_handle, coefficients_handle, voltage_handle,
      work_handle;
};

static int build_tables(struct neuron_batch *b, struct hines_error *err) {
  const int m_count = b->config.n_morphologies;
  size_t topology_total = 0, coefficients_total = 0;
  for (int m = 0; m < m_count; m++) {
    int n = b->config.morphologies[m].n_compartments;
    topology_total += topology_size(n);
    coefficients_total += (size_t)COEF_COUNT * n;
    if (n > b->max_compartments)
      b->max_compartments = n;
  }
  b->neurons = malloc((1 + 3 * (size_t)m_count) * sizeof(int));
  b->topology = malloc(topology_total * sizeof(int));
  b->coefficients = malloc(coefficients_total * sizeof(double));
  if (!b->neurons || !b->topology || !b->coefficients)
    return hines_fail(err, HINES_FAILURE, "out of memory");
  b->neurons[0] = m_count;
  size_t topology_at = 0, coefficients_at = 0;
  for (int m = 0; m < m_count; m++) {
    const struct morphology *morphology = &b->config.morphologies[m];
    int n = morphology->n_compartments;
    int *one = mono_topology_build(n, morphology->parent);
    if (!one)
      return hines_fail(err, HINES_FAILURE, "out of memory");
    memcpy(b->topology + topology_at, one, topology_size(n) * sizeof(int));
    free(one);
    int status = mono_coefficients_fill(morphology, &b->config.model.cable, b->config.model.dt_ms,
                                        b->coefficients + coefficients_at, err);
    if (status)
      return status;
    b->neurons[1 + 3 * m] = n;
    b->neurons[2 + 3 * m] = (int)topology_at;
    b->neurons[3 + 3 * m] = (int)coefficients_at;
    topology_at += topology_size(n);
    coefficients_at += (size_t)COEF_COUNT * n;
  }
  return HINES_OK;
}

int neuron_batch_create(const struct multi_batch_config *config, struct neuron_batch **out,
                        struct hines_error *err) {
  *out = NULL;
  if (config->model.channels.placement != PLACE_NONE)
    return hines_fail(err, HINES_BAD_INPUT,
                      "the per-neuron baseline has no channels: it takes a passive membrane only");
  if (config->n_neurons < 1 || config->n_morphologies < 1)
    return hines_fail(err, HINES_BAD_INPUT, "the batch needs neurons");
  struct neuron_batch *b = calloc(1, sizeof *b);
  if (!b)
    return hines_fail(err, HINES_FAILURE, "out of memory");
  b->config = *config;
  b->config.model.stimulus.n_neurons_total = /* step_model.h */
      config->total_neurons > 0 ? config->total_neurons : config->n_neurons;
  b->config.model.stimulus.first_neuron = config->first_neuron;
  int status = build_tables(b, err);
  const size_t n_neurons = (size_t)config->n_neurons;
  const size_t values = n_neurons * (size_t)b->max_compartments;
  if (!status) {
    b->voltage = malloc(values * sizeof(double));
    b->work = malloc(values * sizeof(double));
    if (!b->voltage || !b->work)
      status = hines_fail(err, HINES_FAILURE, "out of memory for %zu values", values);
  }
  if (status) {
    neuron_batch_destroy(b);
    return status;
  }
  for (size_t j = 0; j < values; j++) {
    b->voltage[j] = config->model.initial_mV;
    b->work[j] = 1.0;
  }
  int per_task = placement_neurons_per_task(config->neurons_per_task, config->n_neurons, 1,
                                            PLACEMENT_CHUNKS_PER_GPU);
  b->n_chunks = (config->n_neurons + per_task - 1) / per_task;
  b->where = placement_where(placement_sized_for(config->neurons_per_task), config->pin);
  b->chunk_first = malloc((size_t)(b->n_chunks + 1) * sizeof(int));
  b->names = calloc((size_t)b->n_chunks, sizeof *b->names);
  if (!b->chunk_first || !b->names) {
    neuron_batch_destroy(b);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  starpu_vector_data_register(&b->neurons_handle, STARPU_MAIN_RAM, (uintptr_t)b->neurons,
                              (uint32_t)(1 + 3 * config->n_morphologies), sizeof(int));
  starpu_vector_data_register(
      &b->topology_handle, STARPU_MAIN_RAM, (uintptr_t)b->topology,
      (uint32_t)(b->neurons[2 + 3 * (config->n_morphologies - 1)] +
                 topology_size(b->neurons[1 + 3 * (config->n_morphologies - 1)])),
      sizeof(int));
  starpu_vector_data_register(
      &b->coefficients_handle, STARPU_MAIN_RAM, (uintptr_t)b->coefficients,
      (uint32_t)(b->neurons[3 + 3 * (config->n_morphologies - 1)] +
                 COEF_COUNT * b->neurons[1 + 3 * (config->n_morphologies - 1)]),
      sizeof(double));
  /* neurons along x (contiguous), compartments along y: chunks of neurons split x */
  starpu_data_handle_t *handles[] = {&b->voltage_handle, &b->work_handle};
  double *arrays[] = {b->voltage, b->work};
  for (int h = 0; h < 2; h++) {
    starpu_matrix_data_register(handles[h], STARPU_MAIN_RAM, (uintptr_t)arrays[h],
                                (uint32_t)n_neurons, (uint32_t)n_neurons,
                                (uint32_t)b->max_compartments, sizeof(double));
    struct starpu_data_filter filter = {.filter_func = starpu_matrix_filter_block,
                                        .nchildren = (unsigned)b->n_chunks};
    starpu_data_partition(*handles[h], &filter);
  }
  int at = 0;
  for (int c = 0; c < b->n_chunks; c++) {
    b->chunk_first[c] = at;
    at += (int)starpu_matrix_get_nx(starpu_data_get_sub_data(b->voltage_handle, 1, c));
    /* The trace name is the codelet's (see mono_batch_create). */
    snprintf(b->names[c], sizeof b->names[c], "%s", neuron_step_codelet.name);
  }
  b->chunk_first[b->n_chunks] = at;
  for (int c = 0; c < b->n_chunks; c++) /* spread over the GPUs (runtime/placement.h) */
    placement_prefetch(starpu_data_get_sub_data(b->voltage_handle, 1, c),
                       placement_home_node(c, b->n_chunks));
  *out = b;
  return HINES_OK;
}

int neuron_batch_tasks_per_step(const struct neuron_batch *batch) {
  return batch->n_chunks;
}

int neuron_batch_run_sampled(struct neuron_batch *b, int steps, double t0_ms, int sample_row) {
  struct step_arguments args = {.stimulus = b->config.model.stimulus,
                                .dt_ms = b->config.model.dt_ms};
  const int window = b->config.window > 0 ? b->config.window : RUNTIME_DEFAULT_WINDOW;
  for (int s = 0; s < steps; s++) {
    runtime_window_wait(window, b->n_chunks);
    args.time_ms = t0_ms + s * b->config.model.dt_ms;
    const int row = s == steps - 1 ? sample_row : -1;
    const int step = ++b->steps_done;
    for (int c = 0; c < b->n_chunks; c++) {
      args.first_neuron = b->chunk_first[c];
      const struct neuron_step_data data = {
          .neurons = b->neurons_handle,
          .topology = b->topology_handle,
          .coefficients = b->coefficients_handle,
          .voltage = starpu_data_get_sub_data(b->voltage_handle, 1, c),
          .work = starpu_data_get_sub_data(b->work_handle, 1, c),
          .samples = row >= 0 ? probe_set_samples(&b->probes, c) : NULL,
          .sample_row = row,
          .spikes = spike_set_record(&b->spikes, c),
          .spike_step = step};
      if (neuron_step_insert(&data, &args, b->names[c], b->where))
        return HINES_FAILURE;
    }
  }
  return HINES_OK;
}

int neuron_batch_run(struct neuron_batch *b, int steps, double t0_ms) {
  return neuron_batch_run_sampled(b, steps, t0_ms, -1);
}

void neuron_batch_sync(struct neuron_batch *b) {
  (void)b;
  starpu_task_wait_for_all();
}

static int chunk_of(const struct neuron_batch *b, int neuron) {
  int c = 0;
  while (b->chunk_first[c + 1] <= neuron)
    c++;
  return c;
}

int neuron_batch_probes(struct neuron_batch *b, int n, const int *neuron, const int *compartment,
                        int rows, struct hines_error *err) {
  int *group = malloc((size_t)(n > 0 ? n : 1) * sizeof *group);
  long long *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
  long long *y = malloc((size_t)(n > 0 ? n : 1) * sizeof *y);
  if (!group || !x || !y) {
    free(group), free(x), free(y);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  for (int j = 0; j < n; j++) {
    if (neuron[j] < 0 || neuron[j] >= b->config.n_neurons || compartment[j] < 0 ||
        compartment[j] >= b->neurons[1 + 3 * (neuron[j] % b->config.n_morphologies)]) {
      free(group), free(x), free(y);
      return hines_fail(err, HINES_BAD_INPUT, "probe %d:%d is outside the batch", neuron[j],
                        compartment[j]);
    }
    group[j] = chunk_of(b, neuron[j]);
    x[j] = neuron[j] - b->chunk_first[group[j]]; /* neurons along x, compartments along y */
    y[j] = compartment[j];
  }
  probe_set_destroy(&b->probes);
  int status = probe_set_create(&b->probes, b->n_chunks, n, group, x, y, rows, err);
  free(group), free(x), free(y);
  return status;
}

void neuron_batch_probes_read(struct neuron_batch *b, int rows, double *values) {
  probe_set_read(&b->probes, rows, values);
}

int neuron_batch_spikes(struct neuron_batch *b, double threshold_mV, struct hines_error *err) {
  const int n = b->config.n_neurons;
  int *group = malloc((size_t)n * sizeof *group);
  long long *x = malloc((size_t)n * sizeof *x), *y = calloc((size_t)n, sizeof *y);
  int status = HINES_OK;
  if (!group || !x || !y)
    status = hines_fail(err, HINES_FAILURE, "out of memory");
  for (int k = 0; status == HINES_OK && k < n; k++) {
    group[k] = chunk_of(b, k);
    x[k] = k - b->chunk_first[group[k]]; /* compartment 0: y = 0 */
  }
  spike_set_destroy(&b->spikes);
  if (status == HINES_OK)
    status = spike_set_create(&b->spikes, b->n_chunks, n, group, x, y, threshold_mV,
                              b->config.model.initial_mV, err);
  free(group), free(x), free(y);
  return status;
}

struct spike_set *neuron_batch_spike_set(struct neuron_batch *b) {
  return &b->spikes;
}

void neuron_batch_voltage(struct neuron_batch *b, int neuron, double *out_mV) {
  starpu_data_handle_t chunk = starpu_data_get_sub_data(b->voltage_handle, 1, chunk_of(b, neuron));
  starpu_data_acquire(chunk, STARPU_R);
  int n = b->neurons[1 + 3 * (neuron % b->config.n_morphologies)];
  for (int i = 0; i < n; i++)
    out_mV[i] = b->voltage[(size_t)i * b->config.n_neurons + neuron];
  starpu_data_release(chunk);
}

int neuron_batch_find_nonfinite(struct neuron_batch *b, int *neuron, int *compartment) {
  double *v = malloc((size_t)b->max_compartments * sizeof(double));
  int found = 0;
  for (int k = 0; v && k < b->config.n_neurons && !found; k++) {
    int n = b->neurons[1 + 3 * (k % b->config.n_morphologies)];
    neuron_batch_voltage(b, k, v);
    for (int i = 0; i < n && !found; i++)
      if (!isfinite(v[i])) {
        *neuron = k;
        *compartment = i;
        found = 1;
      }
  }
  free(v);
  return found;
}

void neuron_batch_destroy(struct neuron_batch *b) {
  if (!b)
    return;
  probe_set_destroy(&b->probes);
  spike_set_destroy(&b->spikes);
  if (b->voltage_handle) {
    starpu_data_unpartition(b->voltage_handle, STARPU_MAIN_RAM);
    starpu_data_unregister(b->voltage_handle);
    starpu_data_unpartition(b->work_handle, STARPU_MAIN_RAM);
    starpu_data_unregister_no_coherency(b->work_handle);
    starpu_data_unregister(b->neurons_handle);
    starpu_data_unregister(b->topology_handle);
    starpu_data_unregister(b->coefficients_handle);
  }
  free(b->neurons), free(b->topology), free(b->coefficients), free(b->voltage), free(b->work);
  free(b->chunk_first), free(b->names);
  free(b);
}
