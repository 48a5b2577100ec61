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

/* The schedule of chunk `chunk` of a level batch built with chunk links: its neurons grouped by
 * morphology, in neuron order, neurons_per_block to a block (the last block of a morphology may
 * hold fewer). Returns the array (malloc) and its length in *length, NULL when out of memory or
 * when an offset exceeds an int. */
int *cell_schedule_build(const struct level_batch *batch, int chunk, int neurons_per_block,
                         size_t *length);

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
#ifdef __cplusplus
}
#endif

#endif
