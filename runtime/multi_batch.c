#include "multi_batch.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "branch_step.h"
#include "cell_block.h"
#include "hines_level_codelets.h"
#include "hines_mono_codelets.h"
#include "level_flow.h"
#include "placement.h"
#include "probe_set.h"
#include "runtime.h"
#include "spike_set.h"

/* One chunk of neurons: its levels concatenated in single arrays (so a whole step can be one
 * task), and, in per-level mode, those arrays partitioned by level. */
struct chunk {
  /* The level batch's chunks first_part ... first_part + n_parts - 1, back to back. */
  int first_part, n_parts;
  struct chunk_levels *parts;
  /* Per-level tasks (a single part): where each level's piece starts. */
  const size_t *ints_offset, *element_offset, *system_offset; /* n_levels + 1 each */
  int *systems;                                               /* [part * n_levels + level] */
  int *ints;
  double *voltage, *factor, *contribution, *gates;
  size_t n_ints, n_elements, n_systems; /* the arrays' lengths (gates: n_gates x n_elements) */
  starpu_data_handle_t ints_handle, voltage_handle, factor_handle, contribution_handle,
      gates_handle;
  char name[64];
  char (*backward_names)[64], (*forward_names)[64];
  unsigned long long id; /* chunk_step_data's chunk_id */
  unsigned long where;   /* runtime/placement.h */
  /* MULTI_SHARE_LAG_TO_GPUS: its batch, its tasks submitted and ended since the guard's clock
   * started (multi_batch_run_sampled), and whether the cores gave it up to the GPUs. */
  struct multi_batch *batch;
  long long tasks_submitted, tasks_ended;
  int given_up;
};

struct multi_batch {
  struct multi_batch_config config;
  struct level_batch levels;
  struct chunk *chunks;
  starpu_data_handle_t constants, dummy;
  double dummy_values[2];
  int parts_per_chunk;  /* level batch chunks per chunk task */
  int cell_neurons;     /* neurons per block of the cell-block kernel (0: level kernels) */
  int rows_apart_below; /* chunk_step_arguments' (enum level_rows, resolved) */
  int n_chunks;         /* chunk tasks per step */
  int task_steps;       /* steps each chunk task advances */
  /* The cores' share (--cpu-share): the last cpu_chunks chunks, cpu_share_neurons neurons in
   * all, were cut for CPU workers; share_uncalibrated: one was asked for (or chosen:
   * placement_level_share_chosen) but the models had measured nothing to cut it by. */
  int cpu_chunks, cpu_share_neurons, share_uncalibrated;
  int arranged_neurons; /* level_batch_options.arranged_tail as built */
  /* The GPUs' chunks cut in copies of every cell (level_aligned_cut): aligned_neurons neurons in
   * them, rest_chunk 1 when the last GPU chunk holds the neurons left over. */
  int aligned_neurons, rest_chunk;
  /* The copies of cells, a warp at a time, the GPUs' last aligned chunk takes from the front of
   * the cores' arranged tail (level_aligned_lead, MULTI_SHARE_ALIGNED_TAIL): aligned_tail in all
   * (counted in aligned_neurons; 0: none), tail_lead[m] of cell m (n_morphologies counts, or
   * NULL). */
  int aligned_tail;
  int *tail_lead;
  /* The share's probe (share_probe): its first cut's neurons, the cores' time over a round
   * measured and predicted (0: no probe), the busiest core's round and the GPUs' largest
   * chunk's task as the models predict it (share_busiest_down; 0: not compared). */
  int probed_neurons;
  double probe_measured_us, probe_predicted_us, probe_busiest_us, probe_gpu_task_us;
  /* The neurons the aligned cut gave back to the GPUs from the cores' cut (the rest's
   * complement, level_aligned_share_shift; 0: none), and the share a whole set larger probed in
   * its place (share_set_up: its neurons, the cores' time over a round, 0: none probed), taken
   * or not (cpu_share_neurons says). */
  int share_given_back, set_up_neurons;
  double set_up_measured_us;
  /* Probe buffers: one per chunk, or per chunk and level with per-level tasks (the level's
   * forward task fills it). */
  struct probe_set probes;
  /* Spike records, grouped as the probe buffers; the steps submitted so far. */
  struct spike_set spikes;
  int steps_done;
  /* The GPUs' chunks' tasks submitted and ended (MULTI_SHARE_TAIL_TO_GPUS, tail_to_gpus 1): when
   * every one submitted has ended, the cores' homes open (placement_cpu_homes_open) until the
   * next is submitted. */
  int tail_to_gpus;
  long long gpu_tasks_submitted, gpu_tasks_ended;
  pthread_mutex_t tail_lock;
  /* MULTI_SHARE_LAG_TO_GPUS (lag_guard 1), under tail_lock: the clock's start and the GPUs'
   * chunks' last task's end (starpu_timing_now), the tasks the cores ended since the start
   * (chunks they kept, and those they gave up before they did), the count at which the cores'
   * progress is next compared with the GPUs', and the chunks given up. gpu_tasks_submitted and
   * gpu_tasks_ended count the GPUs' own chunks' tasks since the start. */
  int lag_guard;
  double lag_start_us, gpu_last_end_us;
  double lag_most, lag_most_at_us; /* MULTI_SHARE_LAG_DEBUG: the largest cores' over GPUs' left */
  long long cpu_tasks_ended, lag_next_check;
  int chunks_given_up;
};

/* Registers `count` values and, in per-level mode, splits them into one piece per level. */
static void register_levels(starpu_data_handle_t *handle, void *values, size_t element_size,
                            size_t count, const size_t *offset, int n_levels, size_t scale,
                            int per_level) {
  starpu_vector_data_register(handle, STARPU_MAIN_RAM, (uintptr_t)values, (uint32_t)(scale * count),
                              element_size);
  if (!per_level)
    return;
  uint32_t *lengths = malloc((size_t)n_levels * sizeof(uint32_t));
  for (int level = 0; level < n_levels; level++)
    lengths[level] = (uint32_t)(scale * (offset[level + 1] - offset[level]));
  struct starpu_data_filter filter = {.filter_func = starpu_vector_filter_list,
                                      .nchildren = (unsigned)n_levels,
                                      .filter_arg_ptr = lengths};
  starpu_data_partition(*handle, &filter);
  free(lengths);
}

/* A block of the on-chip cell kernel that does not fit a GPU's shared memory cannot be launched:
 * refuse it before anything runs. */
static int check_on_chip(const int *schedule, int neurons_per_block, struct hines_error *err) {
  const struct cell_schedule_view c = cell_schedule_describe(schedule);
  const int needed = cell_shared_part(&c)[SHARED_BYTES];
  int available = 0;
  hines_shared_block_limit_on_workers(1, &available);
  if (available == 0 || needed <= available) /* (0: no CUDA worker runs it) */
    return HINES_OK;
  return hines_fail(
      err, HINES_BAD_INPUT,
      "on-chip cell kernel: a block of %d neuron%s needs %d KiB of GPU shared memory "
      "(16 bytes a compartment and its description), the GPU gives a block %d KiB; use the level "
      "kernels%s",
      neurons_per_block, neurons_per_block > 1 ? "s" : "", (needed + 1023) / 1024, available / 1024,
      neurons_per_block > 1 ? " or fewer neurons a block" : "");
}

/* The branch kernel's phase B keeps a block's branches in GPU shared memory: refused before the
 * run where a GPU worker could not launch it. */
/* trunk: the schedule is a trunk's (the level kernels run the rest), not the whole step's. */
static int check_branch_blocks(const int *schedule, int neurons_per_block, int trunk,
                               struct hines_error *err) {
  const struct cell_schedule_view c = cell_schedule_describe(schedule);
  const struct branch_links links = branch_links_of(&c);
  const size_t needed = branch_shared_bytes(&links);
  int available = 0;
  hines_shared_block_limit_on_workers(1, &available);
  if (available == 0 || needed <= (size_t)available) /* (0: no CUDA worker runs it) */
    return HINES_OK;
  return hines_fail(err, HINES_BAD_INPUT,
                    "%s: a block of %d neuron%s has %d branches and needs %zu KiB of GPU "
                    "shared memory, the GPU gives a block %d KiB; %s%s",
                    trunk ? "trunk of branches" : "branch kernel", neurons_per_block,
                    neurons_per_block > 1 ? "s" : "", links.most_items, (needed + 1023) / 1024,
                    available / 1024, trunk ? "ask for a smaller trunk" : "use the level kernels",
                    neurons_per_block > 1 ? " or fewer neurons a block" : "");
}

/* The trunk's branch schedule of level-batch chunk `part`, `asked` cells a block, or with 0 the
 * most cells a block, up to MULTI_TRUNK_CELL_NEURONS, whose block fits every GPU's shared memory
 * (*used: the cells a block it took). The branch step's junction phase (its phase B) is a
 * chain of a few steps a trunk level in every block; blocks of many cells run that chain once
 * for all of them, where blocks of one cell fill the GPU with small blocks each waiting on it:
 * 64 cells a block ran the large real cells' trunk 1.1 % faster on one H200 than 16 cells a
 * block and the deep chains' 0.7 % (BENCHMARKS.md, "A trunk by default"). Which block a cell
 * joins changes no bits. NULL when out of memory. */
static int *trunk_schedule(const struct level_batch *lb, int part, int asked, int *used,
                           size_t *ints) {
  int available = 0;
  hines_shared_block_limit_on_workers(1, &available);
  for (int per_block = asked > 0 ? asked : MULTI_TRUNK_CELL_NEURONS;; per_block /= 2) {
    int *schedule =
        branch_schedule_build_top(lb, part, per_block, lb->trunk[part][TRUNK_LEVELS], ints);
    *used = per_block;
    if (!schedule || asked > 0 || per_block == 1 || available == 0)
      return schedule;
    const struct cell_schedule_view c = cell_schedule_describe(schedule);
    const struct branch_links links = branch_links_of(&c);
    if (branch_shared_bytes(&links) <= (size_t)available)
      return schedule;
    free(schedule);
  }
}

/* Chunk c's plan and arrays: its parts, the kernel's schedules (copied into its ints), the
 * arrays allocated; chunks_ints and chunks_at_rest then write them, on the cores, and
 * chunk_register registers them. */
static int chunk_build(struct multi_batch *batch, int c, struct hines_error *err) {
  const struct level_batch *lb = &batch->levels;
  const struct multi_batch_config *config = &batch->config;
  struct chunk *k = &batch->chunks[c];
  const int n_levels = lb->n_levels;
  static unsigned long long chunks_made; /* chunk ids: unique over the process */
  k->id = __atomic_add_fetch(&chunks_made, 1, __ATOMIC_RELAXED);
  k->first_part = c * batch->parts_per_chunk;
  k->n_parts = lb->n_chunks - k->first_part < batch->parts_per_chunk ? lb->n_chunks - k->first_part
                                                                     : batch->parts_per_chunk;
  k->parts = calloc((size_t)k->n_parts, sizeof *k->parts);
  k->systems = calloc((size_t)k->n_parts * n_levels, sizeof(int));
  k->backward_names = calloc((size_t)n_levels, sizeof *k->backward_names);
  k->forward_names = calloc((size_t)n_levels, sizeof *k->forward_names);
  if (!k->parts || !k->systems || !k->backward_names || !k->forward_names)
    return hines_fail(err, HINES_FAILURE, "out of memory");
  /* The kernel's schedules of the parts (cell-block or flow), appended to their ints after the
   * trunk. */
  int **schedules = calloc((size_t)k->n_parts, sizeof *schedules);
  size_t *schedule_ints = calloc((size_t)k->n_parts, sizeof *schedule_ints);
  if (!schedules || !schedule_ints) {
    free(schedules), free(schedule_ints);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  int status = HINES_OK;
  for (int p = 0; p < k->n_parts && config->level_kernel == LEVEL_KERNEL_CELL && !status; p++)
    if (!(schedules[p] =
              cell_schedule_build(lb, k->first_part + p, batch->cell_neurons, &schedule_ints[p])))
      status = hines_fail(err, HINES_FAILURE, "out of memory for the cell-block schedule");
  for (int p = 0; p < k->n_parts && config->level_kernel == LEVEL_KERNEL_BRANCHES && !status; p++)
    if (!(schedules[p] =
              branch_schedule_build(lb, k->first_part + p, batch->cell_neurons, &schedule_ints[p])))
      status = hines_fail(err, HINES_FAILURE, "out of memory for the branch schedule");
  for (int p = 0; p < k->n_parts && config->level_kernel == LEVEL_KERNEL_BRANCHES && !status; p++)
    status = check_branch_blocks(schedules[p], batch->cell_neurons, 0, err);
  /* a trunk of branches: the branch schedule over the trunk's levels, --cell-neurons a block */
  for (int p = 0; p < k->n_parts && config->level_kernel == LEVEL_KERNEL_LEVELS &&
                  config->trunk_branches != 0 && !status;
       p++)
    if (lb->trunk[k->first_part + p]) {
      int trunk_neurons = 0;
      if (!(schedules[p] = trunk_schedule(lb, k->first_part + p, config->cell_neurons,
                                          &trunk_neurons, &schedule_ints[p])))
        status = hines_fail(err, HINES_FAILURE, "out of memory for the trunk's branch schedule");
      else
        status = check_branch_blocks(schedules[p], trunk_neurons, 1, err);
    }
  for (int p = 0; p < k->n_parts && config->level_kernel == LEVEL_KERNEL_SHARED && !status; p++)
    if (!(schedules[p] = cell_shared_schedule_build(lb, k->first_part + p, batch->cell_neurons,
                                                    &schedule_ints[p])))
      status = hines_fail(err, HINES_FAILURE, "out of memory for the on-chip cell schedule");
  for (int p = 0; p < k->n_parts && config->level_kernel == LEVEL_KERNEL_SHARED && !status; p++)
    status = check_on_chip(schedules[p], batch->cell_neurons, err);
  for (int p = 0; p < k->n_parts && config->level_kernel == LEVEL_KERNEL_FLOW && !status; p++) {
    const int part = k->first_part + p;
    const size_t at = (size_t)part * (n_levels + 1);
    if (!(schedules[p] = level_flow_schedule(
              (const int *const *)lb->blocks + part * n_levels, n_levels, lb->ints_offset + at,
              lb->element_offset + at, lb->system_offset + at, &schedule_ints[p])))
      status = hines_fail(err, HINES_FAILURE,
                          "out of memory for the flow schedule (or a chunk past 2^31 values)");
  }
  size_t ints = 0, elements = 0, systems = 0;
  for (int p = 0; p < k->n_parts && !status; p++) {
    const int part = k->first_part + p; /* a chunk of the level batch */
    const size_t at = (size_t)part * (n_levels + 1);
    for (int level = 0; level < n_levels; level++)
      k->systems[p * n_levels + level] =
          level_block_describe(lb->blocks[part * n_levels + level]).systems;
    k->parts[p] = (struct chunk_levels){.n_levels = n_levels,
                                        .ints_offset = lb->ints_offset + at,
                                        .element_offset = lb->element_offset + at,
                                        .system_offset = lb->system_offset + at,
                                        .systems = k->systems + p * n_levels,
                                        .ints_base = ints,
                                        .element_base = elements,
                                        .system_base = systems};
    k->parts[p].trunk_offset = lb->ints_offset[at + n_levels]; /* after the level blocks */
    if (lb->trunk[part]) {
      k->parts[p].tail_levels = lb->trunk[part][TRUNK_LEVELS];
      k->parts[p].trunk_threads = lb->trunk[part][TRUNK_THREADS];
      k->parts[p].trunk_branches = config->trunk_branches != 0 && schedules[p] != NULL;
    }
    k->parts[p].schedule_offset = k->parts[p].trunk_offset + lb->trunk_ints[part];
    if (schedules[p]) {
      k->parts[p].cell_blocks = schedules[p][CELL_BLOCKS];
      k->parts[p].cell_threads = schedules[p][CELL_THREADS];
    }
    ints += lb->ints_offset[at + n_levels] + lb->trunk_ints[part] + schedule_ints[p];
    elements += lb->element_offset[at + n_levels];
    systems += lb->system_offset[at + n_levels];
  }
  /* Per-level tasks partition the arrays of a single part by level. */
  k->ints_offset = k->parts[0].ints_offset;
  k->element_offset = k->parts[0].element_offset;
  k->system_offset = k->parts[0].system_offset;
  for (int level = 0; level < n_levels; level++) {
    /* Trace names are the codelets' (see mono_batch_create): one Paje state per codelet. */
    snprintf(k->backward_names[level], sizeof k->backward_names[level], "%s",
             level_backward_codelet.name);
    snprintf(k->forward_names[level], sizeof k->forward_names[level], "%s",
             level_forward_codelet.name);
  }
  snprintf(k->name, sizeof k->name, "%s", chunk_step_codelet.name);
  k->n_ints = ints, k->n_elements = elements, k->n_systems = systems;
  k->ints = malloc(ints * sizeof(int));
  k->voltage = malloc(elements * sizeof(double));
  k->factor = calloc(elements, sizeof(double));
  k->contribution = calloc(2 * systems, sizeof(double));
  const struct channel_set *channels = &config->model.channels;
  const int n_gates = channels->n_gates;
  if (channels->placement != PLACE_NONE)
    k->gates = malloc((size_t)n_gates * elements * sizeof(double));
  if (!status && (!k->ints || !k->voltage || !k->factor || !k->contribution ||
                  (channels->placement != PLACE_NONE && !k->gates)))
    status = hines_fail(err, HINES_FAILURE, "out of memory for the level blocks");
  for (int p = 0; p < k->n_parts && !status; p++)
    if (schedules[p])
      memcpy(k->ints + k->parts[p].ints_base + k->parts[p].schedule_offset, schedules[p],
             schedule_ints[p] * sizeof(int));
  for (int p = 0; p < k->n_parts; p++)
    free(schedules[p]);
  free(schedules), free(schedule_ints);
  if (status)
    return status;
  for (int p = 0; p < k->n_parts; p++)
    k->parts[p].host_ints = k->ints + k->parts[p].ints_base;
  return HINES_OK;
}

/* What chunk_build allocated of ints, written: each chunk's level blocks and trunk copied in, by
 * runtime_copy_runs in pieces of the runs (one chunk holds a GPU's whole batch with channels).
 * Returns nonzero out of memory. */
static int chunks_ints(const struct multi_batch *batch) {
  const struct level_batch *lb = &batch->levels;
  const int n_levels = lb->n_levels;
  size_t runs = 0;
  for (int c = 0; c < batch->n_chunks; c++)
    runs += (size_t)batch->chunks[c].n_parts * (n_levels + 1);
  void **to = malloc(runs * sizeof *to);
  const void **from = malloc(runs * sizeof *from);
  size_t *bytes = malloc(runs * sizeof *bytes);
  if (!to || !from || !bytes) {
    free(to), free(from), free(bytes);
    return 1;
  }
  size_t run = 0;
  for (int c = 0; c < batch->n_chunks; c++) {
    const struct chunk *k = &batch->chunks[c];
    for (int p = 0; p < k->n_parts; p++) {
      const struct chunk_levels *part = &k->parts[p];
      if (lb->trunk[k->first_part + p]) {
        to[run] = k->ints + part->ints_base + part->trunk_offset;
        from[run] = lb->trunk[k->first_part + p];
        bytes[run++] = lb->trunk_ints[k->first_part + p] * sizeof(int);
      }
      for (int level = 0; level < n_levels; level++) {
        to[run] = k->ints + part->ints_base + part->ints_offset[level];
        from[run] = lb->blocks[(k->first_part + p) * n_levels + level];
        bytes[run++] = (part->ints_offset[level + 1] - part->ints_offset[level]) * sizeof(int);
      }
    }
  }
  runtime_copy_runs((int)run, to, (const void *const *)from, bytes);
  free(to), free(from), free(bytes);
  return 0;
}

/* The chunks' voltages at the initial one and each gate at rest for it, gate by gate in each
 * level's block, by runtime_fill_doubles: in pieces of the runs, not a chunk a task, since with
 * channels a GPU takes the whole batch as one chunk (multi_batch_create). As a chunk's task the
 * fill of one chunk of all 15 shared cells x 4,000 with HH took 1.23 s of a 1.40 s building on
 * the dev VM, and all 15 x 16,356 with HH built in 2.6-2.8 s on the H200 against 0.4-0.5 s
 * passive (BENCHMARKS.md, "The batch built, checked and let go on the cores"). Returns nonzero
 * out of memory. */
static int chunks_at_rest(const struct multi_batch *batch) {
  const struct level_batch *lb = &batch->levels;
  const struct channel_set *channels = &batch->config.model.channels;
  const int n_levels = lb->n_levels, n_gates = channels->n_gates;
  size_t runs = 0;
  for (int c = 0; c < batch->n_chunks; c++)
    runs +=
        1 + (batch->chunks[c].gates ? (size_t)batch->chunks[c].n_parts * n_levels * n_gates : 0);
  double **arrays = malloc(runs * sizeof *arrays);
  size_t *counts = malloc(runs * sizeof *counts);
  double *values = malloc(runs * sizeof *values);
  if (!arrays || !counts || !values) {
    free(arrays), free(counts), free(values);
    return 1;
  }
  double rest[CHANNELS_MAX_GATES];
  channels_rest(channels, batch->config.model.initial_mV, rest, 1);
  size_t run = 0;
  for (int c = 0; c < batch->n_chunks; c++) {
    const struct chunk *k = &batch->chunks[c];
    arrays[run] = k->voltage, counts[run] = k->n_elements;
    values[run++] = batch->config.model.initial_mV;
    for (int p = 0; k->gates && p < k->n_parts; p++) {
      const struct chunk_levels *part = &k->parts[p];
      for (int level = 0; level < n_levels; level++) {
        const size_t first = part->element_offset[level];
        const size_t count = part->element_offset[level + 1] - first;
        double *gates = k->gates + (size_t)n_gates * (part->element_base + first);
        for (int g = 0; g < n_gates; g++) {
          arrays[run] = gates + (size_t)g * count, counts[run] = count;
          values[run++] = rest[g];
        }
      }
    }
  }
  runtime_fill_doubles((int)run, arrays, counts, values);
  free(arrays), free(counts), free(values);
  return 0;
}

/* The chunk's data registered with StarPU, once written (chunks_ints, chunks_at_rest). */
static void chunk_register(struct multi_batch *batch, int c) {
  struct chunk *k = &batch->chunks[c];
  const int n_levels = batch->levels.n_levels;
  const int n_gates = batch->config.model.channels.n_gates;
  const size_t elements = k->n_elements, systems = k->n_systems;
  const int per_level = batch->config.level_tasks;
  register_levels(&k->ints_handle, k->ints, sizeof(int), k->n_ints, k->ints_offset, n_levels, 1,
                  per_level);
  register_levels(&k->voltage_handle, k->voltage, sizeof(double), elements, k->element_offset,
                  n_levels, 1, per_level);
  register_levels(&k->factor_handle, k->factor, sizeof(double), elements, k->element_offset,
                  n_levels, 1, per_level);
  register_levels(&k->contribution_handle, k->contribution, sizeof(double), systems,
                  k->system_offset, n_levels, 2, per_level);
  if (k->gates)
    register_levels(&k->gates_handle, k->gates, sizeof(double), elements, k->element_offset,
                    n_levels, n_gates, per_level);
}

/* The level batch with its chunks' level blocks built by batch_fill tasks on the cores, a chunk a
 * task, or where the chunks are fewer than twice the cores a run of a chunk's levels a task
 * (level_batch_build_levels), then each chunk linked (level_batch_link_chunk): at all 15 shared
 * cells x 16,356 the blocks were 1.5 s of a 2.8 s building on one thread of the dev VM, most of it
 * the kernel zeroing their pages. The first failing piece's error is the batch's (a chunk's in
 * order, then its levels'), as level_batch_build would give. */
struct chunks_build {
  struct level_build *build;
  int *status; /* a piece's, then a chunk's link */
  struct hines_error *errors;
  int *piece_chunk, *piece_first_level; /* piece p: its chunk's levels from piece_first_level[p] */
  int build_levels;                     /* the batch's levels */
};

static void level_levels_piece(void *argument, int piece) {
  struct chunks_build *b = argument;
  const int chunk = b->piece_chunk[piece];
  const int last =
      b->piece_chunk[piece + 1] == chunk ? b->piece_first_level[piece + 1] : b->build_levels;
  b->status[piece] = level_batch_build_levels(b->build, chunk, b->piece_first_level[piece], last,
                                              &b->errors[piece]);
}

static void level_link_piece(void *argument, int chunk) {
  struct chunks_build *b = argument;
  b->status[chunk] = level_batch_link_chunk(b->build, chunk, &b->errors[chunk]);
}

/* The first failing of `count` statuses, its error into *err. */
static int first_failing(const int *status, const struct hines_error *errors, int count,
                         struct hines_error *err) {
  for (int i = 0; i < count; i++)
    if (status[i]) {
      *err = errors[i];
      return status[i];
    }
  return HINES_OK;
}

static int level_batch_on_cores(const struct multi_batch_config *config,
                                const struct level_batch_options *options,
                                struct level_batch *levels, struct hines_error *err) {
  struct chunks_build b = {0};
  int status =
      level_batch_begin(config->morphologies, config->n_morphologies, config->n_neurons, options,
                        &config->model.cable, config->model.dt_ms, levels, &b.build, err);
  if (status)
    return status;
  const int chunks = levels->n_chunks, n_levels = levels->n_levels;
  b.build_levels = n_levels;
  /* Runs of a chunk's levels where the chunks are fewer than twice the cores, so that every
   * core has blocks to build (one chunk: a GPU's whole batch with channels). */
  const int cores = runtime_fill_threads();
  const int groups = chunks < 2 * cores ? (2 * cores + chunks - 1) / chunks : 1;
  const size_t most = (size_t)chunks * (groups < n_levels ? groups : n_levels) + 1;
  b.piece_chunk = malloc(most * sizeof *b.piece_chunk);
  b.piece_first_level = malloc(most * sizeof *b.piece_first_level);
  int *first_level = malloc((size_t)(groups + 1) * sizeof *first_level);
  b.status = calloc(most > (size_t)chunks ? most : (size_t)chunks, sizeof *b.status);
  b.errors = calloc(most > (size_t)chunks ? most : (size_t)chunks, sizeof *b.errors);
  double *bytes = malloc(most * sizeof *bytes); /* what each writes, about */
  int pieces = 0;
  if (!b.piece_chunk || !b.piece_first_level || !first_level || !b.status || !b.errors || !bytes)
    status = hines_fail(err, HINES_FAILURE, "out of memory");
  for (int c = 0; !status && c < chunks; c++) {
    long long compartments = 0;
    for (int p = levels->chunk_first_neuron[c]; p < levels->chunk_first_neuron[c + 1]; p++)
      compartments +=
          config->morphologies[level_batch_neuron_at(levels, p) % config->n_morphologies]
              .n_compartments;
    int made = 1;
    first_level[0] = 0, first_level[1] = n_levels;
    if (groups > 1)
      made = level_batch_level_groups(b.build, c, groups, first_level);
    for (int g = 0; g < made; g++) {
      b.piece_chunk[pieces] = c;
      b.piece_first_level[pieces] = first_level[g];
      bytes[pieces++] = 16.0 * (double)compartments / made;
    }
  }
  if (!status) {
    b.piece_chunk[pieces] = -1; /* (level_levels_piece: the last piece ends at n_levels) */
    runtime_fill_on_cores(level_levels_piece, &b, pieces, bytes);
    status = first_failing(b.status, b.errors, pieces, err);
  }
  if (!status) {
    memset(b.status, 0, (size_t)chunks * sizeof *b.status);
    runtime_fill_on_cores(level_link_piece, &b, chunks, NULL);
    status = first_failing(b.status, b.errors, chunks, err);
  }
  free(bytes), free(first_level);
  free(b.status), free(b.errors), free(b.piece_chunk), free(b.piece_first_level);
  return level_batch_end(b.build, status, err);
}

/* GPU_LAUNCH_AUTO's choice (multi_batch.h) for `gpu_chunks` chunks on `gpus` GPUs. */
static enum gpu_launch launch_for(const struct multi_batch_config *config, int gpu_chunks,
                                  int gpus) {
  if (config->gpu_launch != GPU_LAUNCH_AUTO)
    return config->gpu_launch;
  return gpu_chunks <= MULTI_EARLY_CHUNKS_PER_GPU * (gpus > 0 ? gpus : 1) ? GPU_LAUNCH_EARLY
                                                                          : GPU_LAUNCH_PLAIN;
}

/* LEVEL_KERNEL_AUTO's choice (multi_batch.h): from the batch alone, never its workers. */
static enum level_kernel level_kernel_resolved(const struct multi_batch_config *config) {
  if (config->level_kernel != LEVEL_KERNEL_AUTO)
    return config->level_kernel;
  if (config->model.channels.placement != PLACE_NONE || config->padded || config->level_tasks ||
      config->n_morphologies <= 0)
    return LEVEL_KERNEL_LEVELS;
  const int neurons = config->total_neurons > 0 ? config->total_neurons : config->n_neurons;
  long long compartments = 0;
  for (int k = 0; k < neurons && compartments <= MULTI_BRANCH_KERNEL_COMPARTMENTS; k++)
    compartments += config->morphologies[k % config->n_morphologies].n_compartments;
  if (compartments > MULTI_BRANCH_KERNEL_COMPARTMENTS)
    return LEVEL_KERNEL_LEVELS;
  /* A block's branches must fit the shared memory every GPU gives without asking (a cell of
   * thousands of branches would be refused by a GPU, and the choice may not depend on the
   * workers): at most a branch plus one segment per split_compartments compartments each, a few
   * more for a root moved to the center, 68 bytes each (branch_shared_bytes). */
  const int per_block = config->cell_neurons > 0 ? config->cell_neurons : 1;
  for (int m = 0; m < config->n_morphologies; m++) {
    const struct morphology *cell = &config->morphologies[m];
    const long long systems =
        (long long)cell->n_branches + 2 +
        (config->split_compartments > 0 ? cell->n_compartments / config->split_compartments : 0);
    if (per_block * systems * 68 + 4 > MULTI_BRANCH_KERNEL_SHARED_BYTES)
      return LEVEL_KERNEL_LEVELS;
  }
  return LEVEL_KERNEL_BRANCHES;
}

/* placement_predictor for the cores' share: a chunk task of `steps` steps over so many neurons of
 * the batch (each the batch's mean compartments). A calibration run cuts by the priors and
 * measures the chunks it made; any other run by measurements only. */
struct share_shape {
  struct chunk_step_arguments args;
  struct chunk_levels part; /* what the task kind reads of a chunk (its levels) */
  int steps;
  double compartments_per_neuron;
  /* Past this many values a task measured on a core was not one of the cores' chunks (the cut
   * gives a core at most half the batch over the cores, placement.c): a GPU chunk that dmdas ran
   * on a core, which says nothing of the cores' chunks' sizes. */
  double core_chunk_values;
  /* The cores' predictions times this (share_probe: what the cores measured over what the models
   * predicted for the share's round, where the two differ; 1 otherwise). */
  double core_scale;
};

static double predict_chunk_values(const struct share_shape *shape, double values, int worker) {
  const double largest = chunk_step_largest_measured(
      &shape->args, shape->steps, worker,
      starpu_worker_get_type(worker) == STARPU_CPU_WORKER ? shape->core_chunk_values : INFINITY);
  if (!runtime_calibrating() && largest == 0.0)
    return NAN;
  /* A level-solver task on a core is far from proportional to its size (a fixed cost a level
   * and step, and vectorised runs only where a chunk holds many copies of a cell): beyond
   * MULTI_SHARE_REACH times the largest task a core was measured at, the model's line is not
   * trusted, so a share grows run by run as the cores' tasks are measured. Without it the
   * large cells, calibrated from a fresh STARPU_HOME, gave the cores half the batch: 39-53 ms
   * a step against 1.01 for the GPU alone (BENCHMARKS.md, "The multi share"). Between the
   * largest measured and the reach, at least in proportion to size (placement_core_prediction):
   * a line through measurements of one size had doubled the six cells' chunks at the same
   * predicted time. The largest a core was measured at counts only the cores' chunks: in a first
   * calibration run from a fresh STARPU_HOME dmdas ran 94 of C's 100 GPU chunk tasks on cores,
   * which made the reach as large as a GPU chunk, and the next run gave the cores half the
   * batch, 38-41 ms a step against 1.09 for the GPU alone (share32c). */
  if (starpu_worker_get_type(worker) != STARPU_CPU_WORKER)
    return chunk_step_expected_us(&shape->args, shape->steps, values, worker);
  if (!(largest > 0.0))
    return shape->core_scale * chunk_step_expected_us(&shape->args, shape->steps, values, worker);
  /* a core's chunk from the rate of the cores' tasks of about its size (MULTI_SHARE_RATE_SPREAD) */
  const double expected =
      chunk_step_rate_near_us(&shape->args, shape->steps, values, worker, MULTI_SHARE_RATE_SPREAD);
  const double at_largest = values <= largest
                                ? expected
                                : chunk_step_rate_near_us(&shape->args, shape->steps, largest,
                                                          worker, MULTI_SHARE_RATE_SPREAD);
  if (PLACEMENT_SHARE_DEBUG)
    fprintf(stderr,
            "share core task: %.0f values, largest measured %.0f, near %.1f us, at largest %.1f "
            "us, scale %.3f\n",
            values, largest, expected, at_largest, shape->core_scale);
  if (values <= largest)
    return shape->core_scale * expected;
  return shape->core_scale *
         placement_core_prediction(expected, at_largest, largest, values, MULTI_SHARE_REACH);
}

static double predict_chunk_task(const void *context, int neurons, int worker) {
  const struct share_shape *shape = context;
  return predict_chunk_values(shape, neurons * shape->compartments_per_neuron, worker);
}

/* The cores' share arranged by morphology (level_batch_options.arranged_tail) behind the copies
 * of each cell (`lead`, NULL: none) the GPUs' last chunk takes from the tail's front
 * (level_aligned_lead), its `chunks` chunks (sizes, cpu_share neurons in all) cut anew by
 * compartments (level_arranged_cut_after). Returns the tail to arrange, 0 (sizes unchanged) where
 * the batch is too small for one. */
static int share_arrange(const struct multi_batch_config *config, int *sizes, int chunks,
                         int cpu_share, const int *lead) {
  int tail = cpu_share;
  for (int m = 0; lead && m < config->n_morphologies; m++)
    tail += lead[m];
  if (tail > config->n_neurons - config->n_morphologies)
    return 0;
  level_arranged_cut_after(config->morphologies, config->n_morphologies, config->n_neurons, tail,
                           lead, chunks, sizes);
  return tail;
}

/* The compartments of a cell on average (the round robin's per neuron). */
static double mean_cell_compartments(const struct multi_batch_config *config) {
  double all = 0.0;
  for (int m = 0; m < config->n_morphologies; m++)
    all += config->morphologies[m].n_compartments;
  return config->n_morphologies > 0 ? all / config->n_morphologies : 0.0;
}

/* What the share's cut predicts by (struct share_shape) for chunk tasks of `steps` steps over
 * `compartments` in all. The task kind needs the batch's levels, which a batch of one neuron of
 * each morphology has too. */
static int share_shape_init(const struct multi_batch_config *config,
                            const struct level_batch_options *options, enum gpu_launch launch,
                            int steps, long long compartments, struct share_shape *shape,
                            struct hines_error *err) {
  struct level_batch sample;
  struct level_batch_options one_chunk = *options;
  const int sample_neurons =
      config->n_neurons < config->n_morphologies ? config->n_neurons : config->n_morphologies;
  one_chunk.neurons_per_chunk = sample_neurons;
  one_chunk.chunk_neurons = NULL, one_chunk.n_chunk_sizes = 0, one_chunk.arranged_tail = 0;
  int status =
      level_batch_build(config->morphologies, config->n_morphologies, sample_neurons, &one_chunk,
                        &config->model.cable, config->model.dt_ms, &sample, err);
  if (status)
    return status;
  const unsigned cores = starpu_cpu_worker_get_count();
  *shape = (struct share_shape){.part = {.n_levels = sample.n_levels},
                                .steps = steps,
                                .compartments_per_neuron = (double)compartments / config->n_neurons,
                                .core_chunk_values =
                                    (config->n_neurons / (2.0 * (cores > 0 ? cores : 1)) + 1.0) *
                                    compartments / config->n_neurons,
                                .core_scale = 1.0};
  level_batch_free(&sample);
  shape->args = (struct chunk_step_arguments){
      .step = {.channels = config->model.channels, .hh_rates = config->model.hh_rates},
      .gpu_launch = launch,
      .kernel = config->level_kernel,
      .n_parts = 1,
      .parts = &shape->part};
  return HINES_OK;
}

/* The chunk sizes of a batch with the cores' share, cut by `shape`'s predictions: *sizes
 * (gpu_chunks GPU chunks, then the cores'), *count and *cpu_chunks; *sizes NULL when no share
 * could be cut, and then *waits_for_models 1 when that is because the models have measured no
 * chunk task of the batch's kind on the cores or on a GPU (not because no core's chunk would end
 * in time). */
static int share_cut(const struct multi_batch_config *config, const struct share_shape *shape,
                     int gpu_chunks, int **sizes, int *count, int *cpu_chunks,
                     int *waits_for_models, struct hines_error *err) {
  *sizes = NULL;
  *count = *cpu_chunks = *waits_for_models = 0;
  struct placement_plan plan;
  const int per_core =
      config->cpu_chunks_per_core > 0 ? config->cpu_chunks_per_core : MULTI_CPU_CHUNKS_PER_CORE;
  if (placement_level_share_plan(&plan, config->n_neurons, gpu_chunks, per_core, predict_chunk_task,
                                 shape))
    return hines_fail(err, HINES_FAILURE, "out of memory");
  if (plan.cpu_chunks > 0) {
    *sizes = plan.units;
    plan.units = NULL;
    *count = plan.n_chunks;
    *cpu_chunks = plan.cpu_chunks;
  } else if (!runtime_calibrating()) {
    const int cpu = starpu_worker_get_by_type(STARPU_CPU_WORKER, 0),
              cuda = starpu_worker_get_by_type(STARPU_CUDA_WORKER, 0);
    *waits_for_models =
        cpu >= 0 && cuda >= 0 &&
        (chunk_step_largest_measured(&shape->args, shape->steps, cpu, shape->core_chunk_values) ==
             0.0 ||
         chunk_step_largest_measured(&shape->args, shape->steps, cuda, INFINITY) == 0.0);
  }
  placement_plan_free(&plan);
  return HINES_OK;
}

/* The cores' `chunks` chunks cut anew to hold `neurons` neurons in all, as equal as may be
 * (share_arrange recuts them by compartments where the share is laid out by morphology). */
static void share_resize(int *sizes, int chunks, int neurons) {
  for (int c = 0; c < chunks; c++)
    sizes[c] = neurons / chunks + (c < neurons % chunks);
}

/* GPU chunks of aligned rows (level_aligned_cut, each of the gpu_count GPUs' chunks as many units
 * as another's, within one) for a batch whose GPUs take the first
 * `gpu_neurons` neurons in round-robin order in `gpu_chunks` chunks, followed by the `after` sizes
 * of `tail` chunks (the cores' share): a new array of sizes in *sizes and its length in *count, or
 * *sizes NULL where fewer than min_units units (copies of every cell) fit a chunk;
 * *aligned_neurons and *rest_chunk as in struct multi_batch. */
static int aligned_sizes(const struct multi_batch_config *config, int gpu_neurons, int gpu_chunks,
                         int gpu_count, int min_units, const int *after, int tail, int **sizes,
                         int *count, int *aligned_neurons, int *rest_chunk) {
  *sizes = NULL;
  *count = *aligned_neurons = *rest_chunk = 0;
  int *cut = malloc((size_t)(gpu_chunks + 1 + tail) * sizeof *cut);
  if (!cut)
    return -1;
  const int aligned = level_aligned_cut(gpu_neurons, config->n_morphologies, gpu_chunks, gpu_count,
                                        min_units, cut, rest_chunk);
  if (aligned == 0) {
    free(cut);
    return 0;
  }
  for (int c = 0; c < aligned; c++)
    *aligned_neurons += cut[c];
  for (int c = 0; c < tail; c++)
    cut[aligned + *rest_chunk + c] = after[c];
  *sizes = cut;
  *count = aligned + *rest_chunk + tail;
  return 0;
}

/* The cores' share of a batch whose GPUs' part is cut in aligned chunks moved to `neurons` (its
 * cpu_chunks chunks cut anew where that changes it), the GPUs' part cut again by level_aligned_cut
 * (a chunk of the rest where it holds no whole number of units) and, where `lead` is not NULL and
 * the share is laid out by morphology, ending with the lead's copies of each cell from the front
 * of the share's tail (level_aligned_lead: the GPUs' part past them whole units), the share laid
 * out by morphology where placement_level_arranged says: *cut_sizes, *cut_count and the layout
 * options as share_layout's. */
static int share_move(const struct multi_batch_config *config, int gpu_count,
                      struct multi_batch *batch, struct level_batch_options *options,
                      int **cut_sizes, int *cut_count, int neurons, const int *lead,
                      struct hines_error *err) {
  if (neurons != batch->cpu_share_neurons) {
    batch->cpu_share_neurons = neurons;
    share_resize(*cut_sizes + *cut_count - batch->cpu_chunks, batch->cpu_chunks, neurons);
  }
  /* the GPUs' chunks as many as before, a chunk of the rest (batch->rest_chunk) not one of them;
   * the lead's warps at the end of the last aligned chunk */
  const int arranged = placement_level_arranged(config->arrange, gpu_count, 1);
  const int gpu_chunks = *cut_count - batch->cpu_chunks - batch->rest_chunk;
  int tail = 0;
  if (arranged && MULTI_SHARE_ALIGNED_TAIL && lead) {
    if (!batch->tail_lead &&
        !(batch->tail_lead = calloc((size_t)config->n_morphologies, sizeof *batch->tail_lead)))
      return hines_fail(err, HINES_FAILURE, "out of memory");
    if (lead != batch->tail_lead)
      memcpy(batch->tail_lead, lead, (size_t)config->n_morphologies * sizeof *lead);
    for (int m = 0; m < config->n_morphologies; m++)
      tail += lead[m];
  }
  int *realigned = NULL, realigned_count = 0;
  if (aligned_sizes(config, config->n_neurons - batch->cpu_share_neurons - tail, gpu_chunks,
                    gpu_count, MULTI_SHARE_ALIGNED_MIN_UNITS,
                    *cut_sizes + *cut_count - batch->cpu_chunks, batch->cpu_chunks, &realigned,
                    &realigned_count, &batch->aligned_neurons, &batch->rest_chunk))
    return hines_fail(err, HINES_FAILURE, "out of memory");
  if (realigned) {
    free(*cut_sizes);
    *cut_sizes = realigned, *cut_count = realigned_count;
    (*cut_sizes)[gpu_chunks - 1] += tail; /* (whole units: no chunk of the rest) */
    batch->aligned_neurons += tail;
  } else {
    tail = 0; /* (not reached: the share's rules leave the GPUs their units) */
  }
  batch->aligned_tail = tail;
  options->chunk_neurons = *cut_sizes;
  options->n_chunk_sizes = *cut_count;
  options->arranged_tail = 0;
  options->tail_lead = tail ? batch->tail_lead : NULL;
  if (arranged)
    options->arranged_tail =
        share_arrange(config, *cut_sizes + *cut_count - batch->cpu_chunks, batch->cpu_chunks,
                      batch->cpu_share_neurons, tail ? batch->tail_lead : NULL);
  return HINES_OK;
}

/* With MULTI_SHARE_ALIGNED_TAIL and the share laid out by morphology, the share for the models'
 * cut of `share` neurons with the GPUs' part past its whole sets in warps of cells' copies
 * (level_aligned_lead: the GPUs keep the sets the cut leaves them, the cores at least the cut's
 * compartments, the cells' copies of one neuron on average): *lead_share and *lead (a new array
 * of n_morphologies counts, the caller's to free), *lead_share 0 where no warp fits, the cores'
 * compartments would grow by more than MULTI_SHARE_REST_GROWTH, or the GPUs keep fewer than
 * MULTI_SHARE_ALIGNED_MIN_UNITS sets a chunk of `gpu_chunks`. */
static int share_lead(const struct multi_batch_config *config, int gpu_count, int gpu_chunks,
                      int cpu_chunks, int share, int *lead_share, int **lead,
                      struct hines_error *err) {
  *lead_share = 0, *lead = NULL;
  const long long unit = (long long)LEVEL_ALIGNED_COPIES * config->n_morphologies;
  if (!MULTI_SHARE_ALIGNED_TAIL || !placement_level_arranged(config->arrange, gpu_count, 1) ||
      unit < 1 || share < 1 || config->n_neurons <= share)
    return HINES_OK;
  const long long units = (config->n_neurons - share) / unit;
  if (units < 1 || units < (long long)MULTI_SHARE_ALIGNED_MIN_UNITS * gpu_chunks)
    return HINES_OK;
  if (!(*lead = malloc((size_t)config->n_morphologies * sizeof **lead)))
    return hines_fail(err, HINES_FAILURE, "out of memory");
  const double target = share * mean_cell_compartments(config);
  long long compartments = 0;
  const int got = level_aligned_lead(config->morphologies, config->n_morphologies,
                                     config->n_neurons, (int)units, target, *lead, &compartments);
  int taken = 0;
  for (int m = 0; m < config->n_morphologies; m++)
    taken += (*lead)[m];
  if (taken > 0 && got >= cpu_chunks && compartments <= (1.0 + MULTI_SHARE_REST_GROWTH) * target &&
      got + taken <= config->n_neurons - config->n_morphologies)
    *lead_share = got;
  return HINES_OK;
}

/* The cores' share of a batch cut by `shape`: its chunk sizes (*cut_sizes, *cut_count; the
 * batch's layout options point to them), and the batch's cpu_chunks, cpu_share_neurons,
 * share_uncalibrated, aligned_neurons and rest_chunk; the GPUs' part in aligned chunks where
 * `aligned_cut` (all of them where no share is cut), the share laid out by morphology where
 * placement_level_arranged says. */
static int share_layout(const struct multi_batch_config *config, const struct share_shape *shape,
                        int level_chunks, int gpu_count, int aligned_cut, struct multi_batch *batch,
                        struct level_batch_options *options, int **cut_sizes, int *cut_count,
                        struct hines_error *err) {
  batch->cpu_chunks = batch->cpu_share_neurons = batch->share_uncalibrated = 0;
  batch->aligned_neurons = batch->rest_chunk = batch->aligned_tail = 0;
  options->chunk_neurons = NULL, options->n_chunk_sizes = 0, options->arranged_tail = 0;
  options->tail_lead = NULL;
  int status = share_cut(config, shape, level_chunks, cut_sizes, cut_count, &batch->cpu_chunks,
                         &batch->share_uncalibrated, err);
  if (status)
    return status;
  for (int c = *cut_count - batch->cpu_chunks; c < *cut_count; c++)
    batch->cpu_share_neurons += (*cut_sizes)[c];
  if (aligned_cut && batch->cpu_chunks == 0) { /* no share cut: the GPUs' aligned chunks alone */
    free(*cut_sizes);
    *cut_sizes = NULL, *cut_count = 0;
    if (aligned_sizes(config, config->n_neurons, level_chunks, gpu_count, LEVEL_ALIGNED_MIN_UNITS,
                      NULL, 0, cut_sizes, cut_count, &batch->aligned_neurons, &batch->rest_chunk))
      return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  batch->share_given_back = 0;
  if (aligned_cut && batch->cpu_chunks > 0) { /* the GPUs' part in aligned chunks */
    /* the GPUs' part past whole sets in warps of cells' copies where some fit
     * (MULTI_SHARE_ALIGNED_TAIL: share_lead) */
    int lead_share = 0, *lead = NULL;
    status = share_lead(config, gpu_count, *cut_count - batch->cpu_chunks, batch->cpu_chunks,
                        batch->cpu_share_neurons, &lead_share, &lead, err);
    if (!status && lead_share > 0)
      status = share_move(config, gpu_count, batch, options, cut_sizes, cut_count, lead_share, lead,
                          err);
    free(lead);
    if (status || lead_share > 0)
      return status;
    /* else the neurons left over beyond whole sets to the cores (MULTI_SHARE_WHOLE_SETS), or their
     * complement from the cores to the GPUs (MULTI_SHARE_REST_GIVE) */
    const int rest_to_cores =
        MULTI_SHARE_WHOLE_SETS
            ? level_aligned_share_shift(
                  config->n_neurons, config->n_morphologies, *cut_count - batch->cpu_chunks,
                  MULTI_SHARE_ALIGNED_MIN_UNITS, batch->cpu_share_neurons, batch->cpu_chunks,
                  MULTI_SHARE_REST_GROWTH, MULTI_SHARE_REST_GIVE)
            : 0;
    batch->share_given_back = rest_to_cores < 0 ? -rest_to_cores : 0;
    return share_move(config, gpu_count, batch, options, cut_sizes, cut_count,
                      batch->cpu_share_neurons + rest_to_cores, NULL, err);
  }
  options->chunk_neurons = *cut_sizes;
  options->n_chunk_sizes = *cut_count;
  if (placement_level_arranged(config->arrange, gpu_count, 1) && batch->cpu_chunks > 0)
    options->arranged_tail = share_arrange(config, *cut_sizes + *cut_count - batch->cpu_chunks,
                                           batch->cpu_chunks, batch->cpu_share_neurons, NULL);
  return HINES_OK;
}

/* The level-step arguments of a batch's tasks (the stimulus' time left to the caller). */
static struct level_step_arguments step_arguments_of(const struct multi_batch *batch) {
  const struct step_model *model = &batch->config.model;
  return (struct level_step_arguments){
      .stimulus = model->stimulus,
      .channels = model->channels,
      .hh_rates = model->hh_rates,
      .dt_ms = model->dt_ms,
      .constant_rows = batch->levels.constant_rows,
      /* passive rows' pivots never change (level_layout.h) */
      .stored_pivots =
          model->channels.placement == PLACE_NONE ? batch->config.stored_pivots_below : 0,
      /* with channels the lean forward sweeps measured 0-2 % slower (BENCHMARKS.md) */
      .lean_sweeps = model->channels.placement == PLACE_NONE ? batch->config.level_lean : 0,
      /* the cell, flow and on-chip kernels, and per-level tasks, keep their factors */
      .row_factors = model->channels.placement == PLACE_NONE &&
                     batch->config.level_kernel == LEVEL_KERNEL_LEVELS &&
                     !batch->config.level_tasks && batch->config.level_row_factors};
}

static int submit_chunk_task(struct multi_batch *batch, struct chunk *k, int c,
                             const struct level_step_arguments *step, int sample_row,
                             int step_number, int steps, int run_step, double t0_ms);

/* The cores' share as cut (its `chunks` chunks of `sizes` neurons, `neurons` in all) measured
 * before the batch is built: the same chunks (the copies of the same cells, laid out by morphology
 * where the share is) built apart and run on the CPU workers alone, a round to warm up and
 * PLACEMENT_SHARE_PROBE_ROUNDS rounds of every chunk's task of shape->steps steps. *measured_us:
 * the CPU workers' time executing a round's tasks (StarPU's profiling); *predicted_us: the same
 * predicted by the models the cut went by. Both 0 where no probe could be made (profiling off, a
 * share too small to lay out apart). Why: the cores' tasks ran up to 45 % longer in some runs
 * than in others on the H200 machine, in streaks of several runs, while the GPU's time held
 * (BENCHMARKS.md, "The kept constants beside the GPU, and the share's slow runs"); a cut from the
 * models' mean over past runs then made the cores late every round. */
static int share_probe(const struct multi_batch_config *config, const struct share_shape *shape,
                       const int *sizes, int chunks, int neurons, const int *lead,
                       double *measured_us, double *predicted_us, double *busiest_us,
                       struct hines_error *err) {
  *measured_us = *predicted_us = *busiest_us = 0.0;
  const int cpu_worker = starpu_worker_get_by_type(STARPU_CPU_WORKER, 0);
  if (starpu_profiling_status_get() != STARPU_PROFILING_ENABLE || cpu_worker < 0 || chunks < 1)
    return HINES_OK;
  /* a first chunk of one copy of each cell (for the GPUs, never run), with the copies of cells
   * the GPUs take from the tail's front where they take some (lead: level_aligned_lead), then
   * the share's: the arrangement leaves the first copies in place, as in the batch, and the tail
   * from a multiple of the cells holds the batch's copies of each cell */
  const int n_morphologies = config->n_morphologies;
  int *probe_sizes = malloc((size_t)(chunks + 1) * sizeof *probe_sizes);
  if (!probe_sizes)
    return hines_fail(err, HINES_FAILURE, "out of memory");
  const int arranged = placement_level_arranged(config->arrange, placement_cuda_devices(), 1);
  int gpu_tail = 0;
  for (int m = 0; arranged && lead && m < n_morphologies; m++)
    gpu_tail += lead[m];
  probe_sizes[0] = n_morphologies + gpu_tail;
  if (arranged)
    level_arranged_cut_after(config->morphologies, n_morphologies,
                             neurons + gpu_tail + n_morphologies, neurons + gpu_tail,
                             gpu_tail ? lead : NULL, chunks, probe_sizes + 1);
  else
    memcpy(probe_sizes + 1, sizes, (size_t)chunks * sizeof *sizes);
  struct multi_batch_config probe = *config;
  probe.n_neurons = neurons + gpu_tail + n_morphologies;
  probe.tail_lead = gpu_tail ? lead : NULL;
  probe.first_neuron = probe.total_neurons = 0;
  probe.chunk_sizes = probe_sizes;
  probe.n_chunk_sizes = chunks + 1;
  probe.cpu_sized_chunks = chunks;
  probe.task_steps = shape->steps;
  struct multi_batch *sample = NULL;
  int status = multi_batch_create(&probe, &sample, err);
  free(probe_sizes);
  if (status)
    return status;
  struct level_step_arguments args = step_arguments_of(sample);
  const int first = sample->n_chunks - sample->cpu_chunks;
  /* Predicted before the rounds run: the size model records every task it sees, and the probe's
   * own tasks, at the very sizes predicted, would pull the prediction toward what they measure
   * (all the way where those sizes had no measurement yet). Each chunk by its values (a chunk of
   * copies of a small cell holds more neurons). */
  const struct level_batch *lb = &sample->levels;
  double predicted = 0.0;
  for (int c = first; c < sample->n_chunks; c++)
    predicted += predict_chunk_values(
        shape, (double)lb->element_offset[(size_t)c * (lb->n_levels + 1) + lb->n_levels],
        cpu_worker);
  runtime_cpu_executing_us(); /* what ran before */
  for (int round = 0; round <= PLACEMENT_SHARE_PROBE_ROUNDS && !status; round++) {
    if (round == 1)
      runtime_cpu_executing_us(); /* the warm-up round's */
    for (int c = first; c < sample->n_chunks && !status; c++) {
      sample->chunks[c].where = STARPU_CPU;
      status = submit_chunk_task(sample, &sample->chunks[c], c, &args, -1, round * shape->steps + 1,
                                 shape->steps, 0, 0.0);
    }
    starpu_task_wait_for_all();
  }
  double busiest = 0.0;
  const double executing_us = runtime_cpu_executing_read(&busiest);
  multi_batch_destroy(sample);
  if (status)
    return hines_fail(err, HINES_FAILURE, "cannot submit the cores' share's probe");
  placement_share_probe_round(executing_us, predicted, measured_us, predicted_us);
  if (*measured_us > 0.0)
    *busiest_us = busiest / PLACEMENT_SHARE_PROBE_ROUNDS;
  return HINES_OK;
}

/* The next share up from the batch's that lays out: the fewest compartments more on the cores
 * with the GPUs keeping their whole sets, else one set fewer, and warps of cells' copies back to
 * them from the share's tail (level_aligned_lead; whole sets alone without
 * MULTI_SHARE_ALIGNED_TAIL or the share laid out by morphology), where it adds at most `growth`
 * times the share's compartments and takes at most half the batch: *up (0: none) and *up_lead (a
 * new array, the caller's to free; NULL: whole sets). */
static int share_next_up(const struct multi_batch_config *config, int gpu_count, int gpu_chunks,
                         const struct multi_batch *batch, double growth, int *up, int **up_lead,
                         struct hines_error *err) {
  *up = 0, *up_lead = NULL;
  const int n = config->n_neurons, share = batch->cpu_share_neurons, taken = batch->aligned_tail;
  const long long unit = (long long)LEVEL_ALIGNED_COPIES * config->n_morphologies,
                  units = (n - share - taken) / unit,
                  least = (long long)MULTI_SHARE_ALIGNED_MIN_UNITS * gpu_chunks;
  if (!MULTI_SHARE_ALIGNED_TAIL || !placement_level_arranged(config->arrange, gpu_count, 1)) {
    const long long whole = n - (units - 1) * unit; /* a set fewer on the GPUs */
    if (units - 1 >= least && units > 1 && whole <= growth * share && whole <= n / 2)
      *up = (int)whole;
    return HINES_OK;
  }
  const long long now = level_arranged_compartments(config->morphologies, config->n_morphologies, n,
                                                    share + taken, taken ? batch->tail_lead : NULL);
  int *lead = malloc((size_t)config->n_morphologies * sizeof *lead);
  if (!lead)
    return hines_fail(err, HINES_FAILURE, "out of memory");
  for (long long u = units; u >= units - 1 && u >= least && u >= 1; u--) {
    long long compartments = 0;
    const int got = level_aligned_lead(config->morphologies, config->n_morphologies, n, (int)u,
                                       (double)now + 1.0, lead, &compartments);
    if (got <= 0 || compartments <= now)
      continue; /* (these sets leave the cores no more) */
    int lead_taken = 0;
    for (int m = 0; m < config->n_morphologies; m++)
      lead_taken += lead[m];
    if (compartments <= growth * now && got <= n / 2 && got >= batch->cpu_chunks) {
      *up = got;
      if (lead_taken > 0)
        *up_lead = lead, lead = NULL;
    }
    break;
  }
  free(lead);
  return HINES_OK;
}

/* Where the aligned cut gave the rest's complement back to the GPUs (the cores' cut fell between
 * two whole sets of the GPUs' part), the share a whole set larger (LEVEL_ALIGNED_COPIES copies of
 * every cell more on the cores, at most MULTI_SHARE_SET_UP_GROWTH times the share), and with
 * MULTI_SHARE_SET_UP 2 where it left the GPUs a chunk of the rest (too many for the cores by
 * MULTI_SHARE_REST_GROWTH, too few to complete by MULTI_SHARE_REST_GIVE), the share with the
 * rest on the cores, or where the GPUs' last chunk took warps of cells' copies from the share's
 * tail (batch->aligned_tail), the share with them back (the GPUs then whole sets; at most
 * MULTI_SHARE_REST_UP_GROWTH times the share either way), probed as the first cut was
 * (share_probe), and with MULTI_SHARE_SET_UP 3 where none of those gave a share to probe (a
 * rest's chunk aside) but the probe's cores ended their round by MULTI_SHARE_IDLE_BY of the GPUs'
 * largest chunk's predicted task, the next share up that lays out (share_next_up); each taken
 * where a core's mean round of it (the CPU workers' time over a round over their number) ends by
 * MULTI_SHARE_SET_UP_ENDS_BY of the GPUs' largest aligned chunk's task as the models predict it.
 * With `idle_step`, each step may grow the share by as much as the probe of the share as cut says
 * still ends by that bound, up to MULTI_SHARE_IDLE_GROWTH_MOST (placement_share_idle_growth).
 * Why: the share moves by whole sets, 128 neurons for B's four cells (x 8,330: 138, 266 or
 * 394), and the models, trusted only in proportion beyond the largest chunk a core was measured
 * at (MULTI_SHARE_REACH), cut below the next set where a core's chunks of more copies of a cell
 * run faster a neuron (BENCHMARKS.md, "A whole set more on the cores, measured"). `idle_step`
 * 0: no step up where the cores idle (the share's probe, batch->probe_measured_us, is not of
 * the share as cut). */
static int share_set_up(const struct multi_batch_config *config, const struct share_shape *shape,
                        int gpu_count, int idle_step, struct multi_batch *batch,
                        struct level_batch_options *options, int **cut_sizes, int *cut_count,
                        struct hines_error *err) {
  batch->set_up_neurons = 0, batch->set_up_measured_us = 0.0;
  const int cores = (int)starpu_cpu_worker_get_count(),
            cuda_worker = starpu_worker_get_by_type(STARPU_CUDA_WORKER, 0);
  const int gpu_chunks = *cut_count - batch->cpu_chunks - batch->rest_chunk;
  const long long unit = (long long)LEVEL_ALIGNED_COPIES * config->n_morphologies;
  const int given_back = batch->share_given_back > 0 && !batch->rest_chunk,
            rest_left = MULTI_SHARE_SET_UP > 1 && batch->rest_chunk,
            tail_back = MULTI_SHARE_SET_UP > 1 && batch->aligned_tail > 0,
            idle = idle_step && MULTI_SHARE_SET_UP > 2 && batch->rest_chunk == 0;
  if (!MULTI_SHARE_SET_UP || !(given_back || rest_left || tail_back || idle) ||
      batch->aligned_neurons < 1 || cores < 1 || cuda_worker < 0 || gpu_chunks < 1)
    return HINES_OK;
  const int share = batch->cpu_share_neurons;
  /* How far the probe's round (of the share as cut, with idle_step) says the share may grow and
   * still end by the bound, beside the GPUs' largest chunk as it stands */
  int largest = 0;
  for (int c = 0; c < gpu_chunks; c++)
    largest = (*cut_sizes)[c] > largest ? (*cut_sizes)[c] : largest;
  const double gpu_now_us = predict_chunk_task(shape, largest, cuda_worker),
               round_us = idle_step ? batch->probe_measured_us / cores : 0.0,
               probe_growth =
                   placement_share_idle_growth(round_us, gpu_now_us, MULTI_SHARE_SET_UP_ENDS_BY,
                                               1.0, MULTI_SHARE_IDLE_GROWTH_MOST),
               set_growth = fmax(MULTI_SHARE_SET_UP_GROWTH, probe_growth),
               rest_growth = fmax(MULTI_SHARE_REST_UP_GROWTH, probe_growth);
  int up = 0;
  if (tail_back) { /* the GPUs' warps of cells back to the cores: whole sets */
    const int whole_tail = share + batch->aligned_tail;
    if (whole_tail <= rest_growth * share && whole_tail <= config->n_neurons / 2)
      up = whole_tail;
  } else if (given_back || rest_left) {
    up = level_aligned_set_up(config->n_neurons, config->n_morphologies, gpu_chunks,
                              MULTI_SHARE_ALIGNED_MIN_UNITS, share,
                              rest_left ? rest_growth : set_growth);
  }
  int *up_lead = NULL, status = HINES_OK;
  if (up == 0 && idle && isfinite(gpu_now_us) && round_us > 0.0 &&
      round_us <= MULTI_SHARE_IDLE_BY * gpu_now_us) /* the cores' probed round ended early */
    status = share_next_up(config, gpu_count, gpu_chunks, batch, set_growth, &up, &up_lead, err);
  if (status || up == 0)
    return status;
  int up_taken = 0;
  for (int m = 0; up_lead && m < config->n_morphologies; m++)
    up_taken += up_lead[m];
  const long long gpu_units = (config->n_neurons - up - up_taken) / unit;
  int *sizes = malloc((size_t)batch->cpu_chunks * sizeof *sizes);
  if (!sizes) {
    free(up_lead);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  share_resize(sizes, batch->cpu_chunks, up);
  double measured_us = 0.0, predicted_us = 0.0, busiest_us = 0.0;
  status = share_probe(config, shape, sizes, batch->cpu_chunks, up, up_lead, &measured_us,
                       &predicted_us, &busiest_us, err);
  if (!status && measured_us > 0.0) {
    const int largest_chunk = (int)(((gpu_units + gpu_chunks - 1) / gpu_chunks) * unit) + up_taken;
    const double gpu_us = predict_chunk_task(shape, largest_chunk, cuda_worker);
    if (placement_share_reprobe(measured_us / cores, MULTI_SHARE_SET_UP_ENDS_BY * gpu_us,
                                MULTI_SHARE_SET_UP_REPROBE_BAND)) {
      /* a round so near the bound that the probe's own spread decides it: the mean of two */
      double again_us = 0.0, again_predicted_us = 0.0, again_busiest_us = 0.0;
      status = share_probe(config, shape, sizes, batch->cpu_chunks, up, up_lead, &again_us,
                           &again_predicted_us, &again_busiest_us, err);
      if (PLACEMENT_SHARE_DEBUG)
        fprintf(stderr, "share set up probed again: %.1f us a round each, then %.1f\n",
                measured_us / cores, again_us / cores);
      if (!status && again_us > 0.0) {
        measured_us = 0.5 * (measured_us + again_us);
        busiest_us = again_busiest_us > busiest_us ? again_busiest_us : busiest_us;
      }
    }
    batch->set_up_neurons = up, batch->set_up_measured_us = measured_us;
    if (PLACEMENT_SHARE_DEBUG)
      fprintf(stderr, "share set up: %d neurons, cores %.1f us a round each, GPU %.1f us (%d)\n",
              up, measured_us / cores, gpu_us, largest_chunk);
    if (!status && isfinite(gpu_us) && measured_us / cores <= MULTI_SHARE_SET_UP_ENDS_BY * gpu_us &&
        !(MULTI_SHARE_PROBE_BUSIEST && busiest_us > MULTI_SHARE_BUSIEST_ENDS_BY * gpu_us))
      status =
          share_move(config, gpu_count, batch, options, cut_sizes, cut_count, up, up_lead, err);
  }
  free(sizes);
  free(up_lead);
  return status;
}

/* share_set_up from the share as cut, then again from each step it took, at most
 * MULTI_SHARE_SET_UP_STEPS steps: each step's own probe, of the share as it then stands, is the
 * probe the next step goes by (the cores' round and the GPUs' chunk), and the report keeps the
 * last step probed that was taken (else the first probed). Why: a core's round grew far less than
 * the share between small shares (the large cells x 4,000, the 15 CPU workers' time over a
 * probe's round: 160 neurons 190-227 ms, 256 193-245 ms, 320 229-301 ms; idle138, idle138b, H100
 * machine), so one step, the fewest compartments more (160 to 128 with 192 of the tail on the
 * GPUs), left the cores at 0.59-0.71 of the GPUs' chunk and the run at 1.020-1.030x the GPU alone,
 * where a home that had cut 256-320 ran 1.040-1.069x in five rounds of six. One step by default
 * (MULTI_SHARE_SET_UP_STEPS: three won on the H100 machine and lost on the H200, steps139). */
static int share_set_up_steps(const struct multi_batch_config *config,
                              const struct share_shape *shape, int gpu_count,
                              struct multi_batch *batch, struct level_batch_options *options,
                              int **cut_sizes, int *cut_count, struct hines_error *err) {
  const double first_probe_us = batch->probe_measured_us;
  int kept_neurons = 0, status = HINES_OK;
  double kept_us = 0.0;
  for (int step = 0; !status && step < MULTI_SHARE_SET_UP_STEPS; step++) {
    const int before = batch->cpu_share_neurons;
    status = share_set_up(config, shape, gpu_count, 1, batch, options, cut_sizes, cut_count, err);
    if (step == 0 || batch->cpu_share_neurons != before)
      kept_neurons = batch->set_up_neurons, kept_us = batch->set_up_measured_us;
    if (status || batch->cpu_share_neurons == before || !(batch->set_up_measured_us > 0.0))
      break;
    batch->probe_measured_us = batch->set_up_measured_us; /* the share as it now stands */
  }
  batch->probe_measured_us = first_probe_us; /* (reported as the first probe's) */
  batch->set_up_neurons = kept_neurons, batch->set_up_measured_us = kept_us;
  return status;
}

/* The probe's busiest core's round against the GPUs' largest chunk's task as the models predict
 * it (recorded for the JSON), and with MULTI_SHARE_PROBE_BUSIEST, where the probe's cores agreed
 * with the models (the cut kept) but the busiest ends after MULTI_SHARE_BUSIEST_ENDS_BY of that
 * task, the cut made again with the cores' predictions scaled by how much longer the busiest ran
 * than their mean (the cut's slack, PLACEMENT_LEVEL_SHARE_ENDS_BY, is for the mean); 1 in
 * *cut_again where it was. Tried for C x 11,720's 0.982x once at 808 neurons (its cores busy
 * 0.82-0.99 of the step); off by default since the probe's busiest core said little of the run's
 * (multi_batch.h). */
static int share_busiest_down(const struct multi_batch_config *config, struct share_shape *shape,
                              int level_chunks, int gpu_count, int aligned_cut,
                              struct multi_batch *batch, struct level_batch_options *options,
                              int **cut_sizes, int *cut_count, int *cut_again,
                              struct hines_error *err) {
  *cut_again = 0;
  const int cores = (int)starpu_cpu_worker_get_count(),
            cuda_worker = starpu_worker_get_by_type(STARPU_CUDA_WORKER, 0);
  const int gpu_chunks = *cut_count - batch->cpu_chunks;
  if (cores < 1 || cuda_worker < 0 || gpu_chunks < 1 || !(batch->probe_measured_us > 0.0) ||
      !(batch->probe_busiest_us > 0.0))
    return HINES_OK;
  int largest_chunk = 0;
  for (int c = 0; c < gpu_chunks; c++)
    largest_chunk = (*cut_sizes)[c] > largest_chunk ? (*cut_sizes)[c] : largest_chunk;
  const double gpu_us = predict_chunk_task(shape, largest_chunk, cuda_worker);
  if (!isfinite(gpu_us) || !(gpu_us > 0.0))
    return HINES_OK;
  batch->probe_gpu_task_us = gpu_us;
  const double scale =
      placement_share_busiest_scale(batch->probe_busiest_us, batch->probe_measured_us, cores,
                                    gpu_us, MULTI_SHARE_BUSIEST_ENDS_BY);
  if (PLACEMENT_SHARE_DEBUG)
    fprintf(stderr, "share busiest: core %.1f us a round, GPU %.1f us (%d), scale %.3f\n",
            batch->probe_busiest_us, gpu_us, largest_chunk, scale);
  if (!MULTI_SHARE_PROBE_BUSIEST || scale == 1.0)
    return HINES_OK;
  shape->core_scale *= scale;
  free(*cut_sizes);
  *cut_sizes = NULL, *cut_count = 0;
  *cut_again = 1;
  return share_layout(config, shape, level_chunks, gpu_count, aligned_cut, batch, options,
                      cut_sizes, cut_count, err);
}

int multi_batch_create(const struct multi_batch_config *asked, struct multi_batch **out,
                       struct hines_error *err) {
  *out = NULL;
  struct multi_batch *batch = calloc(1, sizeof *batch);
  if (!batch)
    return hines_fail(err, HINES_FAILURE, "out of memory");
  pthread_mutex_init(&batch->tail_lock, NULL);
  struct multi_batch_config resolved = *asked;
  resolved.level_kernel = level_kernel_resolved(asked);
  /* The default trunk (negative: LEVEL_TRUNK_AUTO) where a trunk of branches can run, passive NCP
   * chunk tasks of the level kernels with no trunk swept by threads; none elsewhere. */
  if (resolved.trunk_branches < 0 &&
      (resolved.level_kernel != LEVEL_KERNEL_LEVELS || resolved.level_tasks || resolved.padded ||
       resolved.trunk_below > 0 || resolved.model.channels.placement != PLACE_NONE))
    resolved.trunk_branches = 0;
  const struct multi_batch_config *config = &resolved;
  batch->config = resolved;
  batch->config.model.stimulus.n_neurons_total = /* step_model.h */
      config->total_neurons > 0 ? config->total_neurons : config->n_neurons;
  batch->config.model.stimulus.first_neuron = config->first_neuron;
  /* Where the rule was measured only (placement.h): passive chunk tasks of the level kernels in
   * one part. With channels, per-level tasks, parts or the other kernels, one chunk a GPU as
   * measured before (0 compartments give one). */
  const int measured = config->model.channels.placement == PLACE_NONE && !config->level_tasks &&
                       config->level_kernel == LEVEL_KERNEL_LEVELS && config->parts_per_task <= 1;
  long long all_compartments = 0;
  for (int k = 0; k < config->n_neurons; k++)
    all_compartments += config->morphologies[k % config->n_morphologies].n_compartments;
  const long long compartments = measured ? all_compartments : 0;
  int per_task =
      placement_level_neurons_per_task(config->neurons_per_task, config->n_neurons, compartments);
  const unsigned long where =
      placement_where(placement_sized_for(config->neurons_per_task), config->pin);
  /* Parts (independent neuron sets of one task on separate GPU streams) are meant to let one
   * set's latency-bound levels near the root overlap another's large levels. Measured on the
   * H200 (real-SWC mix): 2 parts 4-6 % slower than 1, more parts slower still; so one unless
   * asked. Per-level tasks always have one. */
  int parts = config->parts_per_task > 0 ? config->parts_per_task : 1;
  if (config->level_tasks)
    parts = 1;
  if (parts > 8) {
    free(batch);
    return hines_fail(err, HINES_BAD_INPUT, "at most 8 parts per task (got %d)", parts);
  }
  if (parts > per_task)
    parts = per_task;
  if (config->level_kernel != LEVEL_KERNEL_LEVELS && config->level_tasks) {
    free(batch);
    return hines_fail(err, HINES_BAD_INPUT,
                      "the %s kernel sweeps a whole step in one task: it needs chunk "
                      "tasks, not one task per level",
                      config->level_kernel == LEVEL_KERNEL_CELL       ? "cell-block"
                      : config->level_kernel == LEVEL_KERNEL_SHARED   ? "on-chip cell"
                      : config->level_kernel == LEVEL_KERNEL_BRANCHES ? "branch"
                                                                      : "flow");
  }
  if (config->level_kernel == LEVEL_KERNEL_BRANCHES && config->padded) {
    free(batch);
    return hines_fail(err, HINES_BAD_INPUT,
                      "the branch kernel stores no padding: it needs NCP (no compute padding)");
  }
  if (config->level_kernel == LEVEL_KERNEL_BRANCHES &&
      config->model.channels.placement != PLACE_NONE) {
    free(batch);
    return hines_fail(err, HINES_BAD_INPUT,
                      "the branch kernel needs constant pivots: passive membranes only, "
                      "not channels");
  }
  if (config->trunk_branches > 0 && config->trunk_below > 0) {
    free(batch);
    return hines_fail(err, HINES_BAD_INPUT,
                      "a trunk is swept by threads or solved by branches, not both");
  }
  if (config->trunk_branches > 0 &&
      (config->padded || config->model.channels.placement != PLACE_NONE)) {
    free(batch);
    return hines_fail(err, HINES_BAD_INPUT,
                      "a trunk of branches needs constant pivots and no padding: passive NCP "
                      "only");
  }
  if (config->level_kernel == LEVEL_KERNEL_SHARED && config->padded) {
    free(batch);
    return hines_fail(
        err, HINES_BAD_INPUT,
        "the on-chip cell kernel stores no padding: it needs NCP (no compute padding)");
  }
  if (config->cell_neurons < 0) {
    free(batch);
    return hines_fail(err, HINES_BAD_INPUT, "neurons per cell block must be positive (got %d)",
                      config->cell_neurons);
  }
  if (config->level_kernel == LEVEL_KERNEL_SHARED || config->level_kernel == LEVEL_KERNEL_BRANCHES)
    batch->cell_neurons = config->cell_neurons > 0 ? config->cell_neurons : 1;
  if (config->level_kernel == LEVEL_KERNEL_CELL) {
    const int gpus = placement_cuda_devices();
    batch->cell_neurons =
        config->cell_neurons > 0
            ? config->cell_neurons
            : cell_neurons_per_block_auto(config->n_neurons / (gpus > 0 ? gpus : 1));
  }
  batch->parts_per_chunk = parts;
  /* Levels whose rows GPUs build apart (enum level_rows): none, all, or those of fewer systems
   * than MULTI_ROWS_APART_SYSTEMS. Chunk tasks of the level kernels only (a per-level task
   * builds its rows in its sweep). */
  batch->rows_apart_below = 0;
  if (config->level_kernel == LEVEL_KERNEL_LEVELS && !config->level_tasks &&
      config->model.channels.placement == PLACE_ALL)
    batch->rows_apart_below = config->level_rows == LEVEL_ROWS_APART   ? INT_MAX
                              : config->level_rows == LEVEL_ROWS_FUSED ? 0
                              : config->rows_apart_below > 0           ? config->rows_apart_below
                                                                       : MULTI_ROWS_APART_SYSTEMS;
  /* Warp sweeps: auto gives none to a passive batch of the level kernels with lean sweeps, the
   * cost model's choice otherwise (the cell and flow kernels have no lean sweeps). A level with
   * warp-swept branches cannot be lean (hines_level_cuda.cu, lean_group), and since the lean
   * kernels came the cost model's warps (fitted before them) cost passive batches up to 11-13 % on
   * one GPU (CA1 x 500) and 7-13 % over two (the large cells, all 15 shared cells; H200 x2,
   * BENCHMARKS.md, "No warps where the sweeps are lean"); with HH everywhere they measured even. */
  const enum level_warps warps =
      config->level_kernel == LEVEL_KERNEL_BRANCHES /* a thread a branch, always */
          ? LEVEL_WARPS_OFF
          : config->level_warps == LEVEL_WARPS_AUTO && config->level_lean &&
                    config->level_kernel == LEVEL_KERNEL_LEVELS &&
                    config->model.channels.placement == PLACE_NONE
                ? LEVEL_WARPS_OFF
                : config->level_warps;
  /* Chunks (parts included) that one GPU runs at once, for the warp cost model: all of them
   * spread evenly over the GPUs (those a scheduler gives CPU workers are counted too). */
  const int chunk_neurons = (per_task + parts - 1) / parts;
  const int gpu_count = placement_cuda_devices();
  const long long level_chunks = (config->n_neurons + chunk_neurons - 1) / chunk_neurons;
  const int chunks_per_gpu = gpu_count > 0 ? (int)((level_chunks + gpu_count - 1) / gpu_count) : 1;
  struct level_batch_options options = {
      .neurons_per_chunk = chunk_neurons,
      .chunks_per_gpu = chunks_per_gpu,
      .padded = config->padded,
      .chunk_links = !config->level_tasks,
      .order = config->order,
      /* the cell-block kernel sweeps every level itself */
      .warps = warps,
      .warp_lanes = config->warp_lanes,
      .subtree_compartments = config->subtree_compartments,
      .split_compartments = config->split_compartments,
      .reroot = config->level_root_center,
      .channels_everywhere = config->model.channels.placement == PLACE_ALL,
      .rows_apart_below = batch->rows_apart_below,
      .trunk_below = config->trunk_below > 0 && config->level_kernel == LEVEL_KERNEL_LEVELS
                         ? config->trunk_below
                         : 0,
      .trunk_systems_per_neuron =
          config->level_kernel == LEVEL_KERNEL_LEVELS ? config->trunk_branches : 0};
  /* The cores' share (placement_level_share_chosen): chunk tasks of one part at the default
   * sizes, beside GPUs. Its GPU chunks are the chunks the batch would have without it. */
  const int share =
      !config->level_tasks && parts == 1 && config->neurons_per_task <= 0 && gpu_count > 0 &&
      starpu_cpu_worker_get_count() > 0 &&
      placement_level_share_chosen(config->cpu_share, all_compartments,
                                   config->model.channels.placement != PLACE_NONE, config->window);
  /* The GPUs' chunks of the default cut, round robin, in copies of every cell that start each
   * level row on a warp's first thread (level_aligned_cut, LEVEL_ALIGNED_COPIES), the neurons
   * left over in one more chunk: chunk tasks of the level kernels in one part. Measured on the
   * H200 with rows on 128-byte lines (aligned58, GPU alone, fifteen batches of 14-84 M, passive
   * and HH): 1.049-1.153x the equal cut; over two H200s (two59) 1.94-1.99x one on the mixes that
   * had 1.79-1.87x (BENCHMARKS.md); on warps a further 1.4-3.9 % at 82 M, up to 9 % at 20 M
   * (warps106, warps107). */
  const int aligned_cut = gpu_count > 0 && !config->level_tasks && parts == 1 &&
                          config->neurons_per_task <= 0 &&
                          config->level_kernel == LEVEL_KERNEL_LEVELS &&
                          !placement_level_arranged(config->arrange, gpu_count, 0);
  int *cut_sizes = NULL, cut_count = 0, status = HINES_OK;
  if (config->chunk_sizes) { /* the caller's cut */
    if (parts > 1 || config->level_tasks || config->cpu_sized_chunks < 0 ||
        config->cpu_sized_chunks > config->n_chunk_sizes) {
      free(batch);
      return hines_fail(err, HINES_BAD_INPUT,
                        "chunks of given sizes need chunk tasks of one part, and at most as many "
                        "CPU-sized chunks as chunks");
    }
    options.chunk_neurons = config->chunk_sizes;
    options.n_chunk_sizes = config->n_chunk_sizes;
    batch->cpu_chunks = config->cpu_sized_chunks;
    for (int c = config->n_chunk_sizes - batch->cpu_chunks; c < config->n_chunk_sizes; c++)
      batch->cpu_share_neurons += config->chunk_sizes[c];
    /* the cores' chunks arranged as the share's are, at the caller's sizes, behind the copies
     * of cells the chunk before them takes from the tail's front (config->tail_lead) */
    int tail = batch->cpu_share_neurons, taken = 0;
    for (int m = 0; config->tail_lead && m < config->n_morphologies; m++)
      taken += config->tail_lead[m];
    tail += taken;
    if (placement_level_arranged(config->arrange, gpu_count, 1) &&
        tail <= config->n_neurons - config->n_morphologies) {
      options.arranged_tail = tail;
      options.tail_lead = taken ? config->tail_lead : NULL;
      batch->aligned_tail = taken;
    }
  } else if (share) {
    struct share_shape shape;
    status = share_shape_init(config, &options, launch_for(config, (int)level_chunks, gpu_count),
                              placement_level_share_task_steps(config->task_steps),
                              all_compartments, &shape, err);
    if (!status)
      status = share_layout(config, &shape, (int)level_chunks, gpu_count, aligned_cut, batch,
                            &options, &cut_sizes, &cut_count, err);
    if (!status && MULTI_SHARE_PROBE && batch->cpu_chunks > 0 && !runtime_calibrating()) {
      /* The cores' speed from run to run (share_probe): the cut again where it differs. */
      batch->probed_neurons = batch->cpu_share_neurons;
      status = share_probe(config, &shape, cut_sizes + cut_count - batch->cpu_chunks,
                           batch->cpu_chunks, batch->cpu_share_neurons,
                           batch->aligned_tail ? batch->tail_lead : NULL, &batch->probe_measured_us,
                           &batch->probe_predicted_us, &batch->probe_busiest_us, err);
      if (!status &&
          placement_share_probe_again(batch->probe_measured_us, batch->probe_predicted_us,
                                      MULTI_SHARE_PROBE_AGAIN_ABOVE)) {
        /* a probe this far off the models most likely caught a passing load: once more, the
         * faster kept (a host busy for good reads slow both times) */
        double again_us = 0.0, again_predicted_us = 0.0, again_busiest_us = 0.0;
        status = share_probe(config, &shape, cut_sizes + cut_count - batch->cpu_chunks,
                             batch->cpu_chunks, batch->cpu_share_neurons,
                             batch->aligned_tail ? batch->tail_lead : NULL, &again_us,
                             &again_predicted_us, &again_busiest_us, err);
        if (PLACEMENT_SHARE_DEBUG)
          fprintf(stderr, "share probed again: %.1f us, then %.1f us\n", batch->probe_measured_us,
                  again_us);
        if (!status && again_us > 0.0 && again_us < batch->probe_measured_us)
          batch->probe_measured_us = again_us, batch->probe_busiest_us = again_busiest_us;
      }
      const double scale = placement_share_probe_scale(
          batch->probe_measured_us, batch->probe_predicted_us, MULTI_SHARE_PROBE_LEAST);
      if (PLACEMENT_SHARE_DEBUG)
        fprintf(stderr,
                "share probe: %d neurons, measured %.1f us, predicted %.1f us, scale %.3f\n",
                batch->probed_neurons, batch->probe_measured_us, batch->probe_predicted_us, scale);
      if (!status && MULTI_SHARE_PROBE > 1 && scale != 1.0) {
        shape.core_scale = scale;
        free(cut_sizes);
        cut_sizes = NULL, cut_count = 0;
        status = share_layout(config, &shape, (int)level_chunks, gpu_count, aligned_cut, batch,
                              &options, &cut_sizes, &cut_count, err);
        /* a chunk of the rest the cut made again left on the GPUs: the share with it, probed
         * (share_set_up; MULTI_SHARE_RESCALED_REST says why) */
        if (!status && MULTI_SHARE_RESCALED_REST && batch->cpu_chunks > 0 && batch->rest_chunk)
          status = share_set_up(config, &shape, gpu_count, 0, batch, &options, &cut_sizes,
                                &cut_count, err);
      }
      int cut_again = 0;
      if (!status && batch->cpu_chunks > 0 && scale == 1.0)
        status = share_busiest_down(config, &shape, (int)level_chunks, gpu_count, aligned_cut,
                                    batch, &options, &cut_sizes, &cut_count, &cut_again, err);
      if (!status && batch->cpu_chunks > 0 && scale == 1.0 && !cut_again)
        status = share_set_up_steps(config, &shape, gpu_count, batch, &options, &cut_sizes,
                                    &cut_count, err);
    }
    if (status) {
      free(cut_sizes);
      free(batch->tail_lead);
      free(batch);
      return status;
    }
  } else if (placement_level_arranged(config->arrange, gpu_count, 0) && parts == 1 &&
             level_chunks > 1 && config->n_neurons - config->n_morphologies >= level_chunks) {
    /* Every chunk laid out by morphology: all but the first neuron of each cell (the
     * arrangement's bound) in the order of their cells; the chunks at the --task-neurons asked
     * for (options.neurons_per_chunk), else cut by compartments. */
    const int tail = config->n_neurons - config->n_morphologies;
    if (config->neurons_per_task <= 0) {
      cut_sizes = malloc((size_t)level_chunks * sizeof *cut_sizes);
      if (!cut_sizes) {
        free(batch);
        return hines_fail(err, HINES_FAILURE, "out of memory");
      }
      level_arranged_cut(config->morphologies, config->n_morphologies, config->n_neurons, tail,
                         (int)level_chunks, cut_sizes);
      cut_sizes[0] += config->n_morphologies;
      options.chunk_neurons = cut_sizes;
      options.n_chunk_sizes = (int)level_chunks;
    }
    options.arranged_tail = tail;
  } else if (aligned_cut) {
    if (aligned_sizes(config, config->n_neurons, (int)level_chunks, gpu_count,
                      LEVEL_ALIGNED_MIN_UNITS, NULL, 0, &cut_sizes, &cut_count,
                      &batch->aligned_neurons, &batch->rest_chunk)) {
      free(batch);
      return hines_fail(err, HINES_FAILURE, "out of memory");
    }
    if (cut_sizes) {
      options.chunk_neurons = cut_sizes;
      options.n_chunk_sizes = cut_count;
    }
  }
  batch->arranged_neurons = options.arranged_tail;
  status = level_batch_on_cores(config, &options, &batch->levels, err);
  free(cut_sizes);
  free(batch->tail_lead); /* (laid out: the level batch's positions hold it) */
  batch->tail_lead = NULL;
  if (status) {
    free(batch);
    return status;
  }
  channel_rate_table_fill(&config->model.channels, config->model.dt_ms,
                          batch->levels.constants + CONST_RATE_TABLE(batch->levels.constant_rows));
  struct level_batch *lb = &batch->levels;
  batch->n_chunks = (lb->n_chunks + parts - 1) / parts;
  /* The GPUs' chunks decide how their tasks run (the cores' share, the last chunks, aside). */
  const int gpu_chunks = batch->n_chunks - batch->cpu_chunks;
  long long gpu_compartments = lb->total_compartments;
  for (int c = gpu_chunks; c < batch->n_chunks; c++)
    gpu_compartments -=
        (long long)lb->element_offset[(size_t)c * (lb->n_levels + 1) + lb->n_levels];
  /* The chunk of the neurons left over runs beside the aligned ones: early launches and homes
   * follow the aligned chunks; the priorities' rule counts it (as measured in aligned58), and,
   * for large cells, the aligned chunks' size without it (steps127). */
  const int full_gpu_chunks = gpu_chunks - batch->rest_chunk;
  long long full_compartments = gpu_compartments; /* (the rest's chunk aside) */
  if (batch->rest_chunk && gpu_chunks > 0)
    full_compartments -=
        (long long)lb->element_offset[(size_t)(gpu_chunks - 1) * (lb->n_levels + 1) + lb->n_levels];
  batch->config.level_priorities = placement_level_priorities(
      config->level_priorities, gpu_compartments / (gpu_chunks > 0 ? gpu_chunks : 1),
      full_compartments / (full_gpu_chunks > 0 ? full_gpu_chunks : 1),
      (double)all_compartments / config->n_neurons);
  batch->task_steps = config->level_tasks ? 1
                      : batch->cpu_chunks ? placement_level_share_task_steps(config->task_steps)
                                          : placement_multi_task_steps(config->task_steps);
  batch->config.gpu_launch = launch_for(config, full_gpu_chunks, gpu_count);
  batch->chunks = calloc((size_t)batch->n_chunks, sizeof *batch->chunks);
  if (!batch->chunks) {
    level_batch_free(lb);
    free(batch);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  starpu_vector_data_register(&batch->constants, STARPU_MAIN_RAM, (uintptr_t)lb->constants,
                              (uint32_t)CONST_TABLE_SIZE(lb->constant_rows), sizeof(double));
  /* Read by every task and never written once registered (runtime/README.md, "Costs per
   * task"). */
  starpu_data_set_sequential_consistency_flag(batch->constants, 0);
  starpu_vector_data_register(&batch->dummy, STARPU_MAIN_RAM, (uintptr_t)batch->dummy_values, 2,
                              sizeof(double));
  for (int c = 0; c < batch->n_chunks; c++) {
    status = chunk_build(batch, c, err);
    if (status) {
      multi_batch_destroy(batch);
      return status;
    }
  }
  if (chunks_ints(batch) || chunks_at_rest(batch)) {
    multi_batch_destroy(batch);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  for (int c = 0; c < batch->n_chunks; c++)
    chunk_register(batch, c);
  /* The cores' chunks' last tasks go to GPUs with nothing left of their own where those end
   * them first (MULTI_SHARE_TAIL_TO_GPUS); not per-level tasks, nor chunks pinned to the cores. */
  batch->tail_to_gpus = MULTI_SHARE_TAIL_TO_GPUS && batch->cpu_chunks > 0 && gpu_chunks > 0 &&
                        !config->level_tasks && !config->pin;
  /* The cores give chunks up to the GPUs where they fall behind (MULTI_SHARE_LAG_TO_GPUS): the
   * same conditions, and not while calibrating (its chunks stay where they were cut for). */
  batch->lag_guard = MULTI_SHARE_LAG_TO_GPUS && !batch->tail_to_gpus && batch->cpu_chunks > 0 &&
                     gpu_chunks > 0 && !config->level_tasks && !config->pin &&
                     !runtime_calibrating();
  for (int c = 0; c < batch->n_chunks; c++)
    batch->chunks[c].batch = batch;
  /* Chunks start spread over the GPUs (runtime/placement.h); per-level pieces follow their
   * chunk. */
  for (int c = 0; c < batch->n_chunks; c++) {
    struct chunk *k = &batch->chunks[c];
    k->where = c < gpu_chunks ? (batch->cpu_chunks
                                     ? placement_share_gpu_where(config->pin, runtime_calibrating())
                                     : where)
                              : placement_where(STARPU_CPU, config->pin);
    if (c >= gpu_chunks) { /* the cores' own: kept in RAM, the cores their home */
      placement_cpu_home(k->voltage_handle);
      continue;
    }
    /* the chunk left over joins the last aligned chunk's GPU (level_aligned_cut gives the
     * first GPUs' chunks the extra units) */
    int node = placement_home_node(c < full_gpu_chunks ? c : full_gpu_chunks - 1, full_gpu_chunks);
    int pieces = batch->config.level_tasks ? batch->levels.n_levels : 1;
    for (int p = 0; p < pieces; p++) {
      starpu_data_handle_t handles[] = {k->ints_handle, k->voltage_handle, k->gates_handle};
      for (int h = 0; h < 3; h++)
        if (handles[h])
          placement_prefetch(batch->config.level_tasks ? starpu_data_get_sub_data(handles[h], 1, p)
                                                       : handles[h],
                             node);
    }
  }
  *out = batch;
  return HINES_OK;
}

enum gpu_launch multi_batch_gpu_launch(const struct multi_batch *batch) {
  return batch->config.gpu_launch;
}

int multi_batch_arranged_neurons(const struct multi_batch *batch) {
  return batch->arranged_neurons;
}

int multi_batch_aligned_neurons(const struct multi_batch *batch) {
  return batch->aligned_neurons;
}

int multi_batch_aligned_tail_neurons(const struct multi_batch *batch) {
  return batch->aligned_tail;
}

int multi_batch_level_priorities(const struct multi_batch *batch) {
  return batch->config.level_priorities;
}

int multi_batch_cell_neurons(const struct multi_batch *batch) {
  return batch->cell_neurons;
}

enum level_kernel multi_batch_level_kernel(const struct multi_batch *batch) {
  return batch->config.level_kernel;
}

int multi_batch_trunk_levels(const struct multi_batch *batch) {
  const struct level_batch *lb = &batch->levels;
  if (batch->config.trunk_branches == 0 || !lb->trunk)
    return 0;
  for (int part = 0; part < lb->n_chunks; part++)
    if (lb->trunk[part])
      return lb->trunk[part][TRUNK_LEVELS];
  return 0;
}

int multi_batch_rows_apart_below(const struct multi_batch *batch) {
  return batch->rows_apart_below;
}

long long multi_batch_warp_systems(const struct multi_batch *batch) {
  const struct level_batch *lb = &batch->levels;
  long long systems = 0;
  for (int b = 0; b < lb->n_chunks * lb->n_levels; b++)
    if (lb->blocks[b])
      systems += lb->blocks[b][LEVEL_WARP_SYSTEMS];
  return systems;
}

int multi_batch_task_steps(const struct multi_batch *batch) {
  return batch->task_steps;
}

int multi_batch_window(const struct multi_batch *batch) {
  return placement_level_window(batch->config.window, batch->cpu_chunks > 0);
}

int multi_batch_cpu_share_neurons(const struct multi_batch *batch) {
  return batch->cpu_share_neurons;
}

void multi_batch_share_probe(const struct multi_batch *batch, int *first_neurons,
                             double *measured_us, double *predicted_us) {
  *first_neurons = batch->probed_neurons;
  *measured_us = batch->probe_measured_us;
  *predicted_us = batch->probe_predicted_us;
}

void multi_batch_share_busiest(const struct multi_batch *batch, double *busiest_us,
                               double *gpu_task_us) {
  *busiest_us = batch->probe_busiest_us;
  *gpu_task_us = batch->probe_gpu_task_us;
}

void multi_batch_share_set_up(const struct multi_batch *batch, int *neurons, double *measured_us) {
  *neurons = batch->set_up_neurons;
  *measured_us = batch->set_up_measured_us;
}

int multi_batch_share_uncalibrated(const struct multi_batch *batch) {
  return batch->share_uncalibrated;
}

int multi_batch_tasks_per_step(const struct multi_batch *batch) {
  return batch->config.level_tasks ? 2 * batch->n_chunks * batch->levels.n_levels : batch->n_chunks;
}

long long multi_batch_compartments(const struct multi_batch *batch) {
  return batch->levels.total_compartments;
}

static int submit_level_tasks(struct multi_batch *batch, struct chunk *k, int c,
                              struct level_step_arguments *args, int sample_row, int step) {
  const int n_levels = batch->levels.n_levels;
#define PIECE(handle, level) starpu_data_get_sub_data((handle), 1, (level))
  for (int level = n_levels - 1; level >= 0; level--) {
    args->systems = k->systems[level];
    const struct level_backward_data data = {
        .block = PIECE(k->ints_handle, level),
        .constants = batch->constants,
        .voltage = PIECE(k->voltage_handle, level),
        .factor = PIECE(k->factor_handle, level),
        .contribution = PIECE(k->contribution_handle, level),
        .child_contribution =
            level + 1 < n_levels ? PIECE(k->contribution_handle, level + 1) : batch->dummy,
        .gates = k->gates_handle ? PIECE(k->gates_handle, level) : NULL};
    if (level_backward_insert(&data, args, k->backward_names[level]))
      return HINES_FAILURE;
  }
  for (int level = 0; level < n_levels; level++) {
    args->systems = k->systems[level];
    const struct level_forward_data data = {
        .block = PIECE(k->ints_handle, level),
        .voltage = PIECE(k->voltage_handle, level),
        .factor = PIECE(k->factor_handle, level),
        .parent_voltage = level > 0 ? PIECE(k->voltage_handle, level - 1) : batch->dummy,
        .samples = sample_row >= 0 ? probe_set_samples(&batch->probes, c * n_levels + level) : NULL,
        .sample_row = sample_row,
        .spikes = spike_set_record(&batch->spikes, c * n_levels + level),
        .spike_step = step};
    if (level_forward_insert(&data, args, k->forward_names[level]))
      return HINES_FAILURE;
  }
#undef PIECE
  return HINES_OK;
}

/* A GPU chunk's task ended (chunk_step_data.ended, MULTI_SHARE_TAIL_TO_GPUS): the last one
 * submitted opens the cores' homes to the GPUs. */
static void gpu_chunk_task_ended(void *argument) {
  struct multi_batch *batch = argument;
  pthread_mutex_lock(&batch->tail_lock);
  if (++batch->gpu_tasks_ended == batch->gpu_tasks_submitted)
    placement_cpu_homes_open(1);
  pthread_mutex_unlock(&batch->tail_lock);
}

/* Needs tail_lock; lag_guard 1. Where the cores' chunks, at the rate their tasks have ended
 * since the clock started, would end their tasks left after the GPUs' own chunks would end
 * theirs (MULTI_SHARE_LAG_MARGIN), the cores give up as many chunks as that excess is of the
 * time left, the chunks with the most tasks left first: their tasks run on a GPU from then on
 * (placement_gpus_home). Compared once the GPUs' chunks and the cores' have each ended two tasks
 * a chunk, and again a task a core after chunks were given up. Why: a round whose cores ran
 * 1.1-1.5 times slower than in another round at the same cut left the GPU waiting on the cores
 * at the end (BENCHMARKS.md, "The default share on sizes no session had run"), and no probe
 * made before the run sees that. */
static void share_lag_check(struct multi_batch *batch, double now_us) {
  const int gpu_chunks = batch->n_chunks - batch->cpu_chunks;
  const int cores = (int)starpu_cpu_worker_get_count();
  if (batch->gpu_tasks_ended < 2LL * gpu_chunks || batch->cpu_tasks_ended < batch->lag_next_check ||
      batch->cpu_tasks_ended < 2LL * batch->cpu_chunks || cores < 1 ||
      !(now_us > batch->lag_start_us) || !(batch->gpu_last_end_us > batch->lag_start_us))
    return;
  int kept = 0;
  long long cpu_left = 0;
  for (int c = gpu_chunks; c < batch->n_chunks; c++) {
    const struct chunk *k = &batch->chunks[c];
    if (!k->given_up)
      kept++, cpu_left += k->tasks_submitted - k->tasks_ended;
  }
  if (kept <= cores) /* a chunk a core at least stays on the cores */
    return;
  /* Half a task a core is under way: the cores' rate counts it done, their tasks left not. */
  const double running = 0.5 * cores;
  const double cores_left_us =
      (cpu_left - running) * (now_us - batch->lag_start_us) / (batch->cpu_tasks_ended + running);
  const double gpu_chunk_tasks = (double)batch->gpu_tasks_ended / gpu_chunks;
  const double gpus_left_us = batch->gpu_last_end_us - now_us +
                              (double)(batch->gpu_tasks_submitted - batch->gpu_tasks_ended) /
                                  gpu_chunks * (batch->gpu_last_end_us - batch->lag_start_us) /
                                  gpu_chunk_tasks;
  if (MULTI_SHARE_LAG_DEBUG && gpus_left_us > 0.0 && cores_left_us / gpus_left_us > batch->lag_most)
    batch->lag_most = cores_left_us / gpus_left_us,
    batch->lag_most_at_us = now_us - batch->lag_start_us;
  if (!(cores_left_us > (1.0 + MULTI_SHARE_LAG_MARGIN) * (gpus_left_us > 0.0 ? gpus_left_us : 0.0)))
    return;
  const double excess = 1.0 - (gpus_left_us > 0.0 ? gpus_left_us : 0.0) / cores_left_us;
  int give = (int)ceil(excess * kept);
  give = give < 1 ? 1 : give > kept - cores ? kept - cores : give;
  for (int g = 0; g < give; g++) {
    struct chunk *most = NULL;
    for (int c = gpu_chunks; c < batch->n_chunks; c++) {
      struct chunk *k = &batch->chunks[c];
      if (!k->given_up && k->tasks_submitted - k->tasks_ended >= MULTI_SHARE_LAG_TASKS_LEFT &&
          (!most ||
           k->tasks_submitted - k->tasks_ended >= most->tasks_submitted - most->tasks_ended))
        most = k;
    }
    if (!most)
      break;
    most->given_up = 1;
    placement_gpus_home(most->voltage_handle);
    batch->chunks_given_up++;
  }
  if (MULTI_SHARE_LAG_DEBUG)
    fprintf(stderr,
            "share lag: at %.1f ms cores' %lld tasks ended, %lld left, %.1f ms left against the "
            "GPUs' %.1f ms (%lld of %lld ended): %d chunks of %d given up\n",
            (now_us - batch->lag_start_us) / 1e3, batch->cpu_tasks_ended, cpu_left,
            cores_left_us / 1e3, gpus_left_us / 1e3, batch->gpu_tasks_ended,
            batch->gpu_tasks_submitted, batch->chunks_given_up, batch->cpu_chunks);
  batch->lag_next_check = batch->cpu_tasks_ended + cores;
}

/* A chunk task ended (chunk_step_data.ended, lag_guard 1): the chunk's count, the GPUs' or the
 * cores' progress, and the cores' compared with the GPUs' (share_lag_check). */
static void share_task_ended(void *argument) {
  struct chunk *k = argument;
  struct multi_batch *batch = k->batch;
  const double now_us = starpu_timing_now();
  pthread_mutex_lock(&batch->tail_lock);
  k->tasks_ended++;
  if (k - batch->chunks < batch->n_chunks - batch->cpu_chunks) {
    batch->gpu_tasks_ended++;
    batch->gpu_last_end_us = now_us;
  } else if (!k->given_up) {
    batch->cpu_tasks_ended++;
    share_lag_check(batch, now_us);
  }
  pthread_mutex_unlock(&batch->tail_lock);
}

/* lag_guard 1, before a run's tasks are submitted: with none of the batch's tasks under way,
 * the clock starts again (the first step, run alone, waits for its data to move). */
static void share_lag_clock(struct multi_batch *batch) {
  pthread_mutex_lock(&batch->tail_lock);
  int idle = batch->gpu_tasks_ended == batch->gpu_tasks_submitted;
  for (int c = 0; c < batch->n_chunks && idle; c++)
    idle = batch->chunks[c].tasks_ended == batch->chunks[c].tasks_submitted;
  if (idle) {
    for (int c = 0; c < batch->n_chunks; c++)
      batch->chunks[c].tasks_submitted = batch->chunks[c].tasks_ended = 0;
    batch->gpu_tasks_submitted = batch->gpu_tasks_ended = 0;
    batch->cpu_tasks_ended = batch->lag_next_check = 0;
    batch->lag_start_us = batch->gpu_last_end_us = starpu_timing_now();
  }
  pthread_mutex_unlock(&batch->tail_lock);
}

/* Chunk c's task for `steps` steps from the run's step run_step (t0_ms its start). */
static int submit_chunk_task(struct multi_batch *batch, struct chunk *k, int c,
                             const struct level_step_arguments *step, int sample_row,
                             int step_number, int steps, int run_step, double t0_ms) {
  const struct chunk_step_arguments args = {.step = *step,
                                            .gpu_launch = batch->config.gpu_launch,
                                            .kernel = batch->config.level_kernel,
                                            .rows_apart_below = batch->rows_apart_below,
                                            .level_priorities = batch->config.level_priorities,
                                            .n_parts = k->n_parts,
                                            .parts = k->parts};
  struct chunk_step_data data = {.ints = k->ints_handle,
                                 .constants = batch->constants,
                                 .voltage = k->voltage_handle,
                                 .factor = k->factor_handle,
                                 .contribution = k->contribution_handle,
                                 .gates = k->gates_handle,
                                 .samples =
                                     sample_row >= 0 ? probe_set_samples(&batch->probes, c) : NULL,
                                 .sample_row = sample_row,
                                 .spikes = spike_set_record(&batch->spikes, c),
                                 .spike_step = step_number,
                                 .steps = steps,
                                 .run_step = run_step,
                                 .run_t0_ms = t0_ms,
                                 .chunk_id = k->id};
  const int gpus_own = c < batch->n_chunks - batch->cpu_chunks;
  const int counted = batch->lag_guard || (batch->tail_to_gpus && gpus_own);
  if (counted) {
    pthread_mutex_lock(&batch->tail_lock);
    k->tasks_submitted++;
    if (gpus_own)
      batch->gpu_tasks_submitted++;
    if (batch->tail_to_gpus) { /* the GPUs have work of their own again: the homes hold */
      data.ended = gpu_chunk_task_ended, data.ended_argument = batch;
      placement_cpu_homes_open(0);
    } else
      data.ended = share_task_ended, data.ended_argument = k;
    pthread_mutex_unlock(&batch->tail_lock);
  }
  if (!chunk_step_insert(&data, &args, k->name, k->where))
    return HINES_OK;
  if (counted) { /* never submitted: it will not end */
    pthread_mutex_lock(&batch->tail_lock);
    k->tasks_submitted--;
    if (gpus_own)
      batch->gpu_tasks_submitted--;
    pthread_mutex_unlock(&batch->tail_lock);
  }
  return HINES_FAILURE;
}

int multi_batch_run_sampled(struct multi_batch *batch, int steps, double t0_ms, int sample_row) {
  const struct step_model *model = &batch->config.model;
  struct level_step_arguments args = step_arguments_of(batch);
  const int window = multi_batch_window(batch);
  const int per_task = batch->task_steps;
  if (batch->lag_guard)
    share_lag_clock(batch);
  for (int s = 0; s < steps; s += per_task) {
    /* The window counts rounds of tasks, each round per_task steps. */
    runtime_window_wait(window, multi_batch_tasks_per_step(batch));
    const int count = steps - s < per_task ? steps - s : per_task;
    args.time_ms = t0_ms + s * model->dt_ms;
    const int row = s + count == steps ? sample_row : -1;
    const int number = batch->steps_done + 1;
    batch->steps_done += count;
    for (int c = 0; c < batch->n_chunks; c++) {
      int status =
          batch->config.level_tasks
              ? submit_level_tasks(batch, &batch->chunks[c], c, &args, row, number)
              : submit_chunk_task(batch, &batch->chunks[c], c, &args, row, number, count, s, t0_ms);
      if (status)
        return status;
    }
  }
  return HINES_OK;
}

int multi_batch_run(struct multi_batch *batch, int steps, double t0_ms) {
  return multi_batch_run_sampled(batch, steps, t0_ms, -1);
}

void multi_batch_sync(struct multi_batch *batch) {
  (void)batch;
  starpu_task_wait_for_all();
}

/* The chunk task, part and level batch chunk holding `neuron`. */
static struct chunk *chunk_of_neuron(struct multi_batch *batch, int neuron, int *chunk,
                                     const struct chunk_levels **levels) {
  const int part = level_batch_chunk_of(&batch->levels, neuron); /* the level batch's chunk */
  *chunk = part / batch->parts_per_chunk;
  struct chunk *k = &batch->chunks[*chunk];
  *levels = &k->parts[part % batch->parts_per_chunk];
  return k;
}

/* Where compartment[j] of neuron[j] lies: the chunk (or, with per-level tasks, the chunk's
 * level piece) group[j] and the element x[j] of its voltage vector. */
static int positions(struct multi_batch *batch, int n, const int *neuron, const int *compartment,
                     int *group, long long *x, struct hines_error *err) {
  const struct level_batch *lb = &batch->levels;
  for (int j = 0; j < n; j++) {
    const struct morphology *m = &lb->morphologies[neuron[j] % lb->n_morphologies];
    if (neuron[j] < 0 || neuron[j] >= batch->config.n_neurons || compartment[j] < 0 ||
        compartment[j] >= m->n_compartments)
      return hines_fail(err, HINES_BAD_INPUT, "probe %d:%d is outside the batch", neuron[j],
                        compartment[j]);
    int c, block, element;
    const struct chunk_levels *levels;
    chunk_of_neuron(batch, neuron[j], &c, &levels);
    level_batch_locate(lb, neuron[j], compartment[j], &block, &element);
    const int level = block % lb->n_levels;
    if (batch->config.level_tasks) { /* the level's piece: a single part per chunk */
      group[j] = c * lb->n_levels + level;
      x[j] = element;
    } else {
      group[j] = c;
      x[j] = (long long)(levels->element_base + levels->element_offset[level]) + element;
    }
  }
  return HINES_OK;
}

static int groups_of(const struct multi_batch *batch) {
  return batch->n_chunks * (batch->config.level_tasks ? batch->levels.n_levels : 1);
}

int multi_batch_probes(struct multi_batch *batch, int n, const int *neuron, const int *compartment,
                       int rows, struct hines_error *err) {
  int *group = malloc((size_t)(n > 0 ? n : 1) * sizeof *group);
  long long *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
  long long *y = calloc((size_t)(n > 0 ? n : 1), sizeof *y); /* vectors: y is 0 */
  if (!group || !x || !y) {
    free(group), free(x), free(y);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  int status = positions(batch, n, neuron, compartment, group, x, err);
  probe_set_destroy(&batch->probes);
  spike_set_destroy(&batch->spikes);
  if (status == HINES_OK)
    status = probe_set_create(&batch->probes, groups_of(batch), n, group, x, y, rows, err);
  free(group), free(x), free(y);
  return status;
}

int multi_batch_spikes(struct multi_batch *batch, double threshold_mV, struct hines_error *err) {
  const int n = batch->config.n_neurons;
  int *neuron = malloc((size_t)n * sizeof *neuron), *group = malloc((size_t)n * sizeof *group);
  int *soma = calloc((size_t)n, sizeof *soma);
  long long *x = malloc((size_t)n * sizeof *x), *y = calloc((size_t)n, sizeof *y);
  int status = HINES_OK;
  if (!neuron || !group || !soma || !x || !y)
    status = hines_fail(err, HINES_FAILURE, "out of memory");
  for (int k = 0; status == HINES_OK && k < n; k++)
    neuron[k] = k;
  if (status == HINES_OK)
    status = positions(batch, n, neuron, soma, group, x, err);
  spike_set_destroy(&batch->spikes);
  if (status == HINES_OK)
    status = spike_set_create(&batch->spikes, groups_of(batch), n, group, x, y, threshold_mV,
                              batch->config.model.initial_mV, err);
  free(neuron), free(group), free(soma), free(x), free(y);
  return status;
}

struct spike_set *multi_batch_spike_set(struct multi_batch *batch) {
  return &batch->spikes;
}

void multi_batch_probes_read(struct multi_batch *batch, int rows, double *values) {
  probe_set_read(&batch->probes, rows, values);
}

/* A chunk's voltages on the host for reading (every level piece in per-level mode). */
static starpu_data_handle_t voltage_piece(struct multi_batch *batch, struct chunk *k, int p) {
  return batch->config.level_tasks ? starpu_data_get_sub_data(k->voltage_handle, 1, p)
                                   : k->voltage_handle;
}

static void chunk_voltage_acquire(struct multi_batch *batch, struct chunk *k) {
  int pieces = batch->config.level_tasks ? batch->levels.n_levels : 1;
  for (int p = 0; p < pieces; p++)
    starpu_data_acquire(voltage_piece(batch, k, p), STARPU_R);
}

static void chunk_voltage_release(struct multi_batch *batch, struct chunk *k) {
  int pieces = batch->config.level_tasks ? batch->levels.n_levels : 1;
  for (int p = 0; p < pieces; p++)
    starpu_data_release(voltage_piece(batch, k, p));
}

void multi_batch_voltage(struct multi_batch *batch, int neuron, double *out_mV) {
  const struct level_batch *lb = &batch->levels;
  const struct morphology *m = &lb->morphologies[neuron % lb->n_morphologies];
  int c;
  const struct chunk_levels *levels;
  struct chunk *k = chunk_of_neuron(batch, neuron, &c, &levels);
  /* Only this neuron's chunk comes back to the host. */
  chunk_voltage_acquire(batch, k);
  for (int i = 0; i < m->n_compartments; i++) {
    int block, element;
    level_batch_locate(lb, neuron, i, &block, &element);
    out_mV[i] =
        k->voltage[levels->element_base + levels->element_offset[block % lb->n_levels] + element];
  }
  chunk_voltage_release(batch, k);
}

int multi_batch_find_nonfinite(struct multi_batch *batch, int *neuron, int *compartment) {
  const struct level_batch *lb = &batch->levels;
  int found = 0;
  for (int c = 0; c < batch->n_chunks && !found; c++) {
    struct chunk *k = &batch->chunks[c];
    chunk_voltage_acquire(batch, k);
    for (int p = 0; p < k->n_parts && !found; p++) {
      const struct chunk_levels *part = &k->parts[p];
      for (int level = 0; level < lb->n_levels && !found; level++) {
        const struct level_block_view v =
            level_block_describe(k->ints + part->ints_base + part->ints_offset[level]);
        const double *values = k->voltage + part->element_base + part->element_offset[level];
        for (int s = 0; s < v.systems && !found; s++)
          for (int j = 0; j < v.size[s] && !found; j++)
            if (!isfinite(values[v.row_offset[j] + s])) {
              *neuron = v.neuron[s];
              *compartment =
                  level_batch_user_compartment(lb, v.neuron[s], v.first_compartment[s] + j);
              found = 1;
            }
      }
    }
    chunk_voltage_release(batch, k);
  }
  return found;
}

/* keep: the values written back to RAM (the voltages, read at the end of the run); otherwise
 * dropped where they are (runtime_unregister_discarding). */
static void unregister(starpu_data_handle_t handle, int partitioned, int keep) {
  if (!handle)
    return;
  if (!keep) {
    runtime_unregister_discarding(handle);
    return;
  }
  if (partitioned)
    starpu_data_unpartition(handle, STARPU_MAIN_RAM);
  starpu_data_unregister(handle);
}

void multi_batch_destroy(struct multi_batch *batch) {
  if (!batch)
    return;
  starpu_task_wait_for_all(); /* the chunks' GPU graphs go before their last tasks have run */
  probe_set_destroy(&batch->probes);
  spike_set_destroy(&batch->spikes);
  int partitioned = batch->config.level_tasks;
  for (int c = 0; batch->chunks && c < batch->n_chunks; c++) {
    struct chunk *k = &batch->chunks[c];
    if (k->id)
      chunk_step_forget(k->id);
    /* no handle keeps a home once unregistered (StarPU may reuse it: the share's probe makes and
     * unregisters a batch before the run's) */
    const starpu_data_handle_t homed[] = {k->ints_handle, k->voltage_handle, k->factor_handle,
                                          k->contribution_handle, k->gates_handle};
    for (size_t h = 0; h < sizeof homed / sizeof homed[0]; h++)
      for (int p = 0; homed[h] && p < (partitioned ? batch->levels.n_levels : 1); p++)
        placement_forget_home(partitioned ? starpu_data_get_sub_data(homed[h], 1, p) : homed[h]);
    unregister(k->ints_handle, partitioned, 0);
    unregister(k->voltage_handle, partitioned, 1);
    unregister(k->factor_handle, partitioned, 0);
    unregister(k->contribution_handle, partitioned, 0);
    unregister(k->gates_handle, partitioned, 0); /* nobody reads the gates after the run */
    free(k->systems), free(k->parts);
    free(k->backward_names), free(k->forward_names);
    free(k->ints), free(k->voltage), free(k->factor), free(k->contribution), free(k->gates);
  }
  if (batch->constants) {
    starpu_data_unregister(batch->constants);
    starpu_data_unregister(batch->dummy);
  }
  free(batch->chunks);
  level_batch_free(&batch->levels);
  if (batch->tail_to_gpus)
    placement_cpu_homes_open(0);
  if (MULTI_SHARE_LAG_DEBUG && batch->lag_guard)
    fprintf(stderr, "share lag: most %.3f at %.1f ms, %d chunks given up\n", batch->lag_most,
            batch->lag_most_at_us / 1e3, batch->chunks_given_up);
  pthread_mutex_destroy(&batch->tail_lock);
  free(batch);
}
