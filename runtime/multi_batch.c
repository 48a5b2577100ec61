#include "multi_batch.h"

#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hines_level_codelets.h"

struct level_handles {
  double *voltage, *pivot, *contribution;
  starpu_data_handle_t block, voltage_handle, pivot_handle, contribution_handle;
  char backward_name[64], forward_name[64];
};

struct multi_batch {
  struct multi_batch_config config;
  struct level_batch levels;
  struct level_handles *handles; /* [chunk * n_levels + level] */
  double *constants_copy;
  starpu_data_handle_t constants, dummy;
  double dummy_values[2];
};

static void *arguments_copy(const void *arguments, size_t size) {
  void *copy = malloc(size);
  if (copy)
    memcpy(copy, arguments, size);
  return copy;
}

int multi_batch_create(const struct multi_batch_config *config, struct multi_batch **out,
                       struct hines_error *err) {
  *out = NULL;
  struct multi_batch *batch = calloc(1, sizeof *batch);
  if (!batch)
    return hines_fail(err, HINES_FAILURE, "out of memory");
  batch->config = *config;
  int per_task = config->neurons_per_task;
  if (per_task <= 0) {
    int cuda = (int)starpu_cuda_worker_get_count(), cpu = (int)starpu_cpu_worker_get_count();
    int chunks = cuda > 0 ? cuda : 4 * (cpu > 0 ? cpu : 1);
    per_task = (config->n_neurons + chunks - 1) / chunks;
  }
  int status =
      level_batch_build(config->morphologies, config->n_morphologies, config->n_neurons, per_task,
                        config->padded, &config->cable, config->dt_ms, &batch->levels, err);
  if (status) {
    free(batch);
    return status;
  }
  struct level_batch *lb = &batch->levels;
  int n_blocks = lb->n_chunks * lb->n_levels;
  batch->handles = calloc((size_t)n_blocks, sizeof *batch->handles);
  if (!batch->handles) {
    level_batch_free(lb);
    free(batch);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  starpu_vector_data_register(&batch->constants, STARPU_MAIN_RAM, (uintptr_t)lb->constants,
                              (uint32_t)(CONST_COUNT * lb->constant_rows), sizeof(double));
  starpu_vector_data_register(&batch->dummy, STARPU_MAIN_RAM, (uintptr_t)batch->dummy_values, 2,
                              sizeof(double));
  for (int b = 0; b < n_blocks; b++) {
    struct level_handles *h = &batch->handles[b];
    struct level_block_view v = level_block_describe(lb->blocks[b]);
    /* Empty blocks (a chunk whose trees are shallower) keep one value so every handle exists. */
    size_t elements = v.elements > 0 ? (size_t)v.elements : 1;
    size_t systems = v.systems > 0 ? (size_t)v.systems : 1;
    h->voltage = malloc(elements * sizeof(double));
    h->pivot = malloc(elements * sizeof(double));
    h->contribution = calloc(2 * systems, sizeof(double));
    if (!h->voltage || !h->pivot || !h->contribution) {
      multi_batch_destroy(batch);
      return hines_fail(err, HINES_FAILURE, "out of memory for the level blocks");
    }
    for (size_t e = 0; e < elements; e++) {
      h->voltage[e] = config->initial_mV;
      h->pivot[e] = 1.0;
    }
    starpu_vector_data_register(
        &h->block, STARPU_MAIN_RAM, (uintptr_t)lb->blocks[b],
        (uint32_t)level_block_ints(v.systems, v.max_size, v.elements, v.children), sizeof(int));
    starpu_vector_data_register(&h->voltage_handle, STARPU_MAIN_RAM, (uintptr_t)h->voltage,
                                (uint32_t)elements, sizeof(double));
    starpu_vector_data_register(&h->pivot_handle, STARPU_MAIN_RAM, (uintptr_t)h->pivot,
                                (uint32_t)elements, sizeof(double));
    starpu_vector_data_register(&h->contribution_handle, STARPU_MAIN_RAM,
                                (uintptr_t)h->contribution, (uint32_t)(2 * systems),
                                sizeof(double));
    int chunk = b / lb->n_levels, level = b % lb->n_levels;
    snprintf(h->backward_name, sizeof h->backward_name, "backward %s level %d chunk %d",
             config->padded ? "CP" : "NCP", level, chunk);
    snprintf(h->forward_name, sizeof h->forward_name, "forward %s level %d chunk %d",
             config->padded ? "CP" : "NCP", level, chunk);
  }
  *out = batch;
  return HINES_OK;
}

int multi_batch_tasks_per_step(const struct multi_batch *batch) {
  return 2 * batch->levels.n_chunks * batch->levels.n_levels;
}

long long multi_batch_compartments(const struct multi_batch *batch) {
  return batch->levels.total_compartments;
}

int multi_batch_run(struct multi_batch *batch, int steps, double t0_ms) {
  const struct level_batch *lb = &batch->levels;
  struct level_step_arguments args = {.stimulus = batch->config.stimulus,
                                      .constant_rows = lb->constant_rows};
  args.stimulus.n_neurons_total = batch->config.n_neurons;
  for (int step = 0; step < steps; step++) {
    args.time_ms = t0_ms + step * batch->config.dt_ms;
    for (int chunk = 0; chunk < lb->n_chunks; chunk++) {
      struct level_handles *h = &batch->handles[chunk * lb->n_levels];
      for (int level = lb->n_levels - 1; level >= 0; level--) {
        args.systems = level_block_describe(lb->blocks[chunk * lb->n_levels + level]).systems;
        starpu_data_handle_t children =
            level + 1 < lb->n_levels ? h[level + 1].contribution_handle : batch->dummy;
        if (starpu_task_insert(&level_backward_codelet, STARPU_R, h[level].block, STARPU_R,
                               batch->constants, STARPU_RW, h[level].voltage_handle, STARPU_W,
                               h[level].pivot_handle, STARPU_W, h[level].contribution_handle,
                               STARPU_R, children, STARPU_CL_ARGS,
                               arguments_copy(&args, sizeof args), sizeof args, STARPU_NAME,
                               h[level].backward_name, 0))
          return HINES_FAILURE;
      }
      for (int level = 0; level < lb->n_levels; level++) {
        args.systems = level_block_describe(lb->blocks[chunk * lb->n_levels + level]).systems;
        starpu_data_handle_t parent = level > 0 ? h[level - 1].voltage_handle : batch->dummy;
        if (starpu_task_insert(&level_forward_codelet, STARPU_R, h[level].block, STARPU_R,
                               batch->constants, STARPU_RW, h[level].voltage_handle, STARPU_R,
                               h[level].pivot_handle, STARPU_R, parent, STARPU_CL_ARGS,
                               arguments_copy(&args, sizeof args), sizeof args, STARPU_NAME,
                               h[level].forward_name, 0))
          return HINES_FAILURE;
      }
    }
  }
  starpu_task_wait_for_all();
  return HINES_OK;
}

void multi_batch_voltage(struct multi_batch *batch, int neuron, double *out_mV) {
  const struct level_batch *lb = &batch->levels;
  const struct morphology *m = &lb->morphologies[neuron % lb->n_morphologies];
  int chunk = 0;
  while (lb->chunk_first_neuron[chunk + 1] <= neuron)
    chunk++;
  /* Only this neuron's chunk's level blocks come back to the host. */
  for (int level = 0; level < lb->n_levels; level++)
    starpu_data_acquire(batch->handles[chunk * lb->n_levels + level].voltage_handle, STARPU_R);
  for (int i = 0; i < m->n_compartments; i++) {
    int block, element;
    level_batch_locate(lb, neuron, i, &block, &element);
    out_mV[i] = batch->handles[block].voltage[element];
  }
  for (int level = 0; level < lb->n_levels; level++)
    starpu_data_release(batch->handles[chunk * lb->n_levels + level].voltage_handle);
}

void multi_batch_destroy(struct multi_batch *batch) {
  if (!batch)
    return;
  int n_blocks = batch->levels.n_chunks * batch->levels.n_levels;
  for (int b = 0; batch->handles && b < n_blocks; b++) {
    struct level_handles *h = &batch->handles[b];
    if (h->block) {
      starpu_data_unregister(h->block);
      starpu_data_unregister(h->voltage_handle);
      starpu_data_unregister_no_coherency(h->pivot_handle);
      starpu_data_unregister_no_coherency(h->contribution_handle);
    }
    free(h->voltage);
    free(h->pivot);
    free(h->contribution);
  }
  if (batch->constants) {
    starpu_data_unregister(batch->constants);
    starpu_data_unregister(batch->dummy);
  }
  free(batch->handles);
  level_batch_free(&batch->levels);
  free(batch);
}
