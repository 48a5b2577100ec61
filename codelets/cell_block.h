/* The cell-block step of a level-solved chunk (issue #19): one GPU kernel launch per step, each
 * thread block owning a few neurons and sweeping all their levels itself, __syncthreads()
 * between levels instead of one kernel per level (the idea of DeepDendrite's Dendritic
 * Hierarchical Scheduling). A per-level kernel costs a launch and a first round of memory
 * latency whatever its size, so a step of a small batch (tens of levels, two sweeps) was a chain
 * of latency, not of work.
 *
 * The data are the chunk's own level arrays (codelets/level_layout.h), untouched: a block takes,
 * level by level, the systems (branches) of its neurons in that level, and each thread runs
 * level_backward_system / level_forward_system on its systems, the very functions of the level
 * kernels, so every value has the bits of the level solver's (CPU and GPU alike). A system's
 * children sit in deeper levels (links index the chunk's arrays), eliminated before the block's
 * barrier; its junction in a shallower one, solved before. The copies of one branch are
 * neighbours in a level (level_layout.c sorts by size, morphology, branch, neuron), so a block
 * of G neurons of one morphology reads G consecutive values per branch: G = 4 fills a 32-byte
 * sector.
 *
 * The schedule of a part (one array of ints, appended to the chunk's read-only ints):
 *   [CELL_BLOCKS] blocks, [CELL_LEVELS] levels L, [CELL_THREADS] threads a block,
 *   then ints_offset[L], element_offset[L], system_offset[L] (the part's level pieces),
 *   then first[blocks * L + 1]: block b's systems of level l are system[first[b * L + l]] ..
 *   system[first[b * L + l + 1] - 1], ascending (the level's storage order: longest first,
 *   copies of a branch side by side); thread t takes every threads-th of them from the t-th. */
#ifndef HINES_CELL_BLOCK_H
#define HINES_CELL_BLOCK_H

#include "hines_level_kernels.h"

enum cell_header { CELL_BLOCKS, CELL_LEVELS, CELL_THREADS, CELL_HEADER_SIZE };

/* Threads a block at most. The backward sweep takes up to 168 registers a thread with channels
 * (ptxas, sm_90), so an SM keeps about 384 threads of this kernel: three blocks of 128. */
#define CELL_MAX_THREADS 128

struct cell_schedule_view {
  int blocks, levels, threads;
  const int *ints_offset, *element_offset, *system_offset, *first, *system;
};

static inline HINES_HOST_DEVICE struct cell_schedule_view cell_schedule_describe(const int *ints) {
  struct cell_schedule_view c;
  c.blocks = ints[CELL_BLOCKS];
  c.levels = ints[CELL_LEVELS];
  c.threads = ints[CELL_THREADS];
  c.ints_offset = ints + CELL_HEADER_SIZE;
  c.element_offset = c.ints_offset + c.levels;
  c.system_offset = c.element_offset + c.levels;
  c.first = c.system_offset + c.levels;
  c.system = c.first + (size_t)c.blocks * c.levels + 1;
  return c;
}

/* Whether block `block` has systems in `level` (the same answer for all its threads, so a
 * barrier after a level may be skipped when it has none). */
static inline HINES_HOST_DEVICE int cell_level_used(const struct cell_schedule_view *c, int block,
                                                    int level) {
  const int at = block * c->levels + level;
  return c->first[at + 1] > c->first[at];
}

/* Thread `thread` of block `block`: the backward sweeps of its systems in `level`. part_ints,
 * voltage, factor, contribution and gates are the part's arrays (level_layout.h: links index
 * them); gates NULL when passive. */
static inline HINES_HOST_DEVICE void
cell_backward_level(const int *part_ints, const struct cell_schedule_view *c, int block, int level,
                    int thread, const double *LEVEL_RESTRICT constants,
                    const struct level_step_arguments *args, double *voltage, double *factor,
                    double *contribution, double *gates) {
  const int at = block * c->levels + level;
  const struct level_block_view v = level_block_describe(part_ints + c->ints_offset[level]);
  const size_t e = (size_t)c->element_offset[level];
  for (int i = c->first[at] + thread; i < c->first[at + 1]; i += c->threads)
    level_backward_system(&v, c->system[i], constants, args, voltage + e, factor + e,
                          contribution + 2 * (size_t)c->system_offset[level], contribution,
                          gates ? gates + (size_t)args->channels.n_gates * e : NULL, 0);
}

/* Thread `thread` of block `block`: the forward sweeps of its systems in `level`. */
static inline HINES_HOST_DEVICE void cell_forward_level(const int *part_ints,
                                                        const struct cell_schedule_view *c,
                                                        int block, int level, int thread,
                                                        double *voltage, const double *factor) {
  const int at = block * c->levels + level;
  const struct level_block_view v = level_block_describe(part_ints + c->ints_offset[level]);
  const size_t e = (size_t)c->element_offset[level];
  for (int i = c->first[at] + thread; i < c->first[at + 1]; i += c->threads)
    level_forward_system(&v, c->system[i], voltage + e, factor + e, voltage);
}

/* The on-chip variant (LEVEL_KERNEL_SHARED, issue #19: small batches). The cell-block kernel
 * reads and writes every value of its neurons in GPU memory, so each element of each level's
 * longest branch waits for a memory round trip while the rest of the block waits at the barrier:
 * a few hundred cells took about a step of 0.2 ms however little they held. Here a block first
 * builds every row of its neurons (membrane, channels, stimulus: what the level kernels compute
 * as they load an element) in parallel over elements, straight into shared memory; then it
 * eliminates and substitutes level by level there, and writes the voltages back once. Only the
 * sweeps' chain stays sequential, and its loads are shared memory's.
 * So that the very functions of the level kernels run on the block's shared memory, the block's
 * systems get a description of their own: per level, its systems in the chunk's order (the
 * cell-block schedule's list: longest first), stored like a small chunk with chunk links
 * (level_layout.h), junctions and children renumbered into the block's arrays; neuron ids,
 * constants rows, subtree shapes and the child order are the chunk's, so the rows and the
 * elimination are the level kernels' own (the sweeps run with rows_assembled, as the CPU
 * codelets do) and so are the bits. NCP only.
 * After the cell-block schedule (at cell_shared_part):
 *   [SHARED_BYTES] the most shared memory a block needs, [SHARED_ELEMENTS] the most values,
 *   then block_at[blocks + 1]: block b's data at + block_at[b] from this part's start:
 *   its description: ints_offset[L], element_offset[L + 1], system_offset[L + 1] (the block's
 *   own arrays), chunk_offset[L], chunk_elements[L] (where each level's values start in the
 *   chunk's arrays and how many it has there), then its level descriptions; then
 * global_element[element_offset[L]]: where each of its values is in the chunk's arrays. A block's
 * shared memory: voltages and factors (element_offset[L] each), contributions (2 system_offset[L]),
 * then a copy of its description (so that no sweep waits for GPU memory to learn a size, a row or a
 * link). */
enum cell_shared_header { SHARED_BYTES, SHARED_ELEMENTS, SHARED_HEADER_SIZE };

static inline HINES_HOST_DEVICE const int *cell_shared_part(const struct cell_schedule_view *c) {
  return c->system + c->first[(size_t)c->blocks * c->levels];
}

struct cell_shared_view {
  const int *base; /* the block's description (wherever it was copied) */
  const int *ints_offset, *element_offset, *system_offset, *chunk_offset, *chunk_elements;
  const int *global_element; /* in the schedule */
  int elements, systems, description_ints;
};

/* Block `block`'s view, its description read at `description` (NULL: in the schedule). */
static inline HINES_HOST_DEVICE struct cell_shared_view
cell_shared_block(const struct cell_schedule_view *c, int block, const int *description) {
  const int *part = cell_shared_part(c);
  const int *start = part + part[SHARED_HEADER_SIZE + block];
  const int *end = part + part[SHARED_HEADER_SIZE + block + 1];
  struct cell_shared_view b;
  b.base = description ? description : start;
  b.ints_offset = b.base;
  b.element_offset = b.ints_offset + c->levels;
  b.system_offset = b.element_offset + c->levels + 1;
  b.chunk_offset = b.system_offset + c->levels + 1;
  b.chunk_elements = b.chunk_offset + c->levels;
  b.elements = b.element_offset[c->levels];
  b.systems = b.system_offset[c->levels];
  b.global_element = end - b.elements;
  b.description_ints = (int)(b.global_element - start);
  return b;
}

/* Where block `block`'s description starts in the schedule, and its length. */
static inline HINES_HOST_DEVICE const int *
cell_shared_description(const struct cell_schedule_view *c, int block, int *ints) {
  const struct cell_shared_view b = cell_shared_block(c, block, NULL);
  *ints = b.description_ints;
  return b.base;
}

/* The doubles of a block's shared memory before its description's copy. */
static inline HINES_HOST_DEVICE size_t cell_shared_doubles(const struct cell_shared_view *b) {
  return 2 * (size_t)b->elements + 2 * (size_t)b->systems;
}

/* Element i of the block, element j of system s of `level` (v: that level's view, its elements
 * the gates' stride): its row from the constants given (its row's diagonal, C/dt and leak), left
 * in the block's arrays, its gates advanced. cell_shared_rows and the GPU kernel's batched rows
 * (hines_cell_shared_cuda.cu) both build their rows here, so they give the same bits. */
static inline HINES_HOST_DEVICE void
cell_shared_element_row(const struct cell_shared_view *b, const struct level_block_view *v,
                        int level, int i, int s, int j, const double *LEVEL_RESTRICT constants,
                        const struct level_step_arguments *args, double *gates, double diagonal,
                        double c_over_dt, double leak_current, double *local_voltage,
                        double *local_factor) {
  const double injected = j == args->stimulus.compartment - v->first_compartment[s]
                              ? stimulus_current(&args->stimulus, v->neuron[s], args->time_ms)
                              : 0.0;
  double *gates_e = NULL;
  if (gates) {
    const int e = b->global_element[i];
    gates_e = gates + (size_t)args->channels.n_gates * b->chunk_offset[level] +
              (e - b->chunk_offset[level]);
  }
  level_element_row(v, s, j, v->size[s], v->first_row[s], injected, constants, args, diagonal,
                    c_over_dt, leak_current, local_voltage[i], gates_e, &local_factor[i],
                    &local_voltage[i]);
}

/* Thread `thread` of `threads`: the rows of its elements of the block (every level: element i
 * of the block is element j of system s of some level there), or (store = 1) the voltages
 * written back. Its systems carry the chunk's sizes, rows, compartments and neurons, so each row
 * is the level kernels' with the chunk's gates (their stride: the chunk level's values). */
static inline HINES_HOST_DEVICE void
cell_shared_rows(const struct cell_shared_view *b, int levels, int thread, int threads,
                 const double *LEVEL_RESTRICT constants, const struct level_step_arguments *args,
                 double *voltage, double *gates, double *local_voltage, double *local_factor,
                 int store) {
  /* The moves between the chunk's arrays and the block's, four a thread at a time: one after
   * another they would be a chain of memory latencies (a thread's element i is the same in
   * every pass, so no barrier is needed between them). */
  for (int i = thread; i < b->elements; i += 4 * threads) {
    int e[4] = {0, 0, 0, 0};
    double value[4] = {0.0, 0.0, 0.0, 0.0};
    for (int k = 0; k < 4; k++)
      if (i + k * threads < b->elements) {
        e[k] = b->global_element[i + k * threads];
        value[k] = store ? local_voltage[i + k * threads] : voltage[e[k]];
      }
    for (int k = 0; k < 4; k++)
      if (i + k * threads < b->elements) {
        if (store)
          voltage[e[k]] = value[k];
        else
          local_voltage[i + k * threads] = value[k];
      }
  }
  if (store)
    return;
  int level = -1, j = 0;
  struct level_block_view local;
  for (int i = thread; i < b->elements; i += threads) {
    while (level < levels - 1 && b->element_offset[level + 1] <= i) {
      level++;
      local = level_block_describe(b->base + b->ints_offset[level]);
      local.elements = b->chunk_elements[level]; /* the gates' stride */
      j = 0;
    }
    const int in_level = i - b->element_offset[level];
    while (local.row_offset[j + 1] <= in_level)
      j++;
    const int s = in_level - local.row_offset[j];
    const double *row =
        constants + (size_t)level_row(j, local.size[s], local.first_row[s]) * CONST_STRIDE;
    cell_shared_element_row(b, &local, level, i, s, j, constants, args, gates,
                            row[CONST_DIAGONAL_BASE], row[CONST_C_OVER_DT], row[CONST_LEAK_CURRENT],
                            local_voltage, local_factor);
  }
}

/* Thread `thread` of `threads`: the backward (forward = 0) or forward sweeps of its systems of
 * the block's `level`, on the block's arrays (rows already built). */
static inline HINES_HOST_DEVICE void cell_shared_sweep(const struct cell_shared_view *b, int level,
                                                       int thread, int threads,
                                                       const double *LEVEL_RESTRICT constants,
                                                       const struct level_step_arguments *args,
                                                       double *local_voltage, double *local_factor,
                                                       double *local_contribution, int forward) {
  const struct level_block_view local = level_block_describe(b->base + b->ints_offset[level]);
  const size_t l0 = (size_t)b->element_offset[level];
  for (int s = thread; s < local.systems; s += threads)
    if (forward)
      level_forward_system(&local, s, local_voltage + l0, local_factor + l0, local_voltage);
    else
      level_backward_system(&local, s, constants, args, local_voltage + l0, local_factor + l0,
                            local_contribution + 2 * (size_t)b->system_offset[level],
                            local_contribution, NULL, 1);
}

#ifndef __CUDACC__
/* One block's whole step on a CPU: what the GPU block does, its threads run one after another
 * level by level (the threads of a level touch disjoint systems and read only what earlier
 * levels wrote, so any order of them gives the GPU's bits). */
static inline void cell_block_step_host(const int *part_ints, const struct cell_schedule_view *c,
                                        int block, const double *constants,
                                        const struct level_step_arguments *args, double *voltage,
                                        double *factor, double *contribution, double *gates) {
  /* (threads beyond a level's systems have nothing to do there) */
  for (int level = c->levels - 1; level >= 0; level--) {
    const int at = block * c->levels + level, busy = c->first[at + 1] - c->first[at];
    for (int t = 0; t < c->threads && t < busy; t++)
      cell_backward_level(part_ints, c, block, level, t, constants, args, voltage, factor,
                          contribution, gates);
  }
  for (int level = 0; level < c->levels; level++) {
    const int at = block * c->levels + level, busy = c->first[at + 1] - c->first[at];
    for (int t = 0; t < c->threads && t < busy; t++)
      cell_forward_level(part_ints, c, block, level, t, voltage, factor);
  }
}

/* One block's whole on-chip step on a CPU (the GPU kernel's phases, threads one after another;
 * on_chip: cell_shared_doubles of the block). */
static inline void cell_shared_step_host(const int *part_ints, const struct cell_schedule_view *c,
                                         int block, const double *constants,
                                         const struct level_step_arguments *args, double *voltage,
                                         double *gates, double *on_chip) {
  const struct cell_shared_view b = cell_shared_block(c, block, NULL);
  double *local_voltage = on_chip, *local_factor = on_chip + b.elements;
  double *local_contribution = on_chip + 2 * (size_t)b.elements;
  (void)part_ints; /* (the block's description has what it needs of the chunk's) */
  cell_shared_rows(&b, c->levels, 0, 1, constants, args, voltage, gates, local_voltage,
                   local_factor, 0);
  for (int level = c->levels - 1; level >= 0; level--)
    cell_shared_sweep(&b, level, 0, 1, constants, args, local_voltage, local_factor,
                      local_contribution, 0);
  for (int level = 0; level < c->levels; level++)
    cell_shared_sweep(&b, level, 0, 1, constants, args, local_voltage, local_factor,
                      local_contribution, 1);
  cell_shared_rows(&b, c->levels, 0, 1, constants, args, voltage, gates, local_voltage,
                   local_factor, 1);
}

/* The on-chip schedule of chunk `chunk`: the cell-block schedule followed by the blocks' own
 * descriptions (above). NULL when out of memory, when an offset exceeds an int, or when the
 * batch pads (CP). */
int *cell_shared_schedule_build(const struct level_batch *batch, int chunk, int neurons_per_block,
                                size_t *length);

/* The schedule of chunk `chunk` of a level batch built with chunk links: its neurons grouped by
 * morphology, in neuron order, neurons_per_block to a block (the last block of a morphology may
 * hold fewer). Returns the array (malloc) and its length in *length, NULL when out of memory or
 * when an offset exceeds an int. */
int *cell_schedule_build(const struct level_batch *batch, int chunk, int neurons_per_block,
                         size_t *length);
/* The same over levels 0 .. top_levels - 1 only (the levels nearest the roots; all where
 * top_levels is 0 or past them): the schedule's levels are those, and a morphology with no branch
 * there has no block. */
int *cell_schedule_build_top(const struct level_batch *batch, int chunk, int neurons_per_block,
                             int top_levels, size_t *length);

/* Neurons per block when not given, from the neurons one GPU holds: blocks enough for two or
 * three resident blocks an SM (132 SMs on an H200) with at least two neurons each, and more
 * neurons a block (wider sectors of one branch) as the batch grows, up to 16. */
int cell_neurons_per_block_auto(long long neurons_per_gpu);
#endif

#ifdef __cplusplus
extern "C" {
#endif
/* One part's cell-block step on `stream` (device pointers; host_schedule: the schedule's host
 * copy, for its block and thread counts). 0 or a cudaError_t. */
int cell_step_cuda(const int *part_ints, const int *schedule, const int *host_schedule,
                   const double *constants, const struct level_step_arguments *args,
                   double *voltage, double *factor, double *contribution, double *gates,
                   void *stream);
/* One part's on-chip step (LEVEL_KERNEL_SHARED) on `stream`; host_schedule as above. 0 or a
 * cudaError_t (cudaErrorInvalidValue when a block needs more shared memory than the GPU gives). */
int cell_shared_step_cuda(const int *part_ints, const int *schedule, const int *host_schedule,
                          const double *constants, const struct level_step_arguments *args,
                          double *voltage, double *gates, void *stream);
#ifdef __cplusplus
}
#endif

#endif
