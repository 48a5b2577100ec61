#include "cell_block.h"

#include <limits.h>
#include <stdlib.h>

/* Blocks a GPU should have at least: two resident blocks an SM of an H200 (132 SMs). */
#define CELL_TARGET_BLOCKS 264

int cell_neurons_per_block_auto(long long neurons_per_gpu) {
  int neurons = 2;
  while (neurons < 16 && neurons_per_gpu / (2 * neurons) >= CELL_TARGET_BLOCKS)
    neurons *= 2;
  return neurons;
}

static int ascending(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The branches of morphology m bucketed by their level: level l's are
 * branch[first[l]] .. branch[first[l + 1] - 1], in branch order. */
struct branches_by_level {
  int *first, *branch;
};

static int branches_by_level_build(const struct level_batch *batch, int m,
                                   struct branches_by_level *out) {
  const int levels = batch->n_levels, n = batch->morphologies[m].n_branches;
  const int *level = batch->branch_level[m];
  out->first = calloc((size_t)levels + 1, sizeof(int));
  out->branch = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
  int *fill = calloc((size_t)levels, sizeof(int));
  if (!out->first || !out->branch || !fill) {
    free(fill);
    return -1;
  }
  for (int b = 0; b < n; b++)
    out->first[level[b] + 1]++;
  for (int l = 0; l < levels; l++)
    out->first[l + 1] += out->first[l];
  for (int b = 0; b < n; b++)
    out->branch[out->first[level[b]] + fill[level[b]]++] = b;
  free(fill);
  return 0;
}

int *cell_schedule_build(const struct level_batch *batch, int chunk, int neurons_per_block,
                         size_t *length) {
  const int levels = batch->n_levels, morphologies = batch->n_morphologies;
  const int first = batch->chunk_first_neuron[chunk], last = batch->chunk_first_neuron[chunk + 1];
  const int per_block = neurons_per_block > 0 ? neurons_per_block : 1;
  *length = 0;
  /* The chunk's neurons by morphology, then by number; a block never mixes morphologies. */
  int *order = malloc((size_t)(last - first) * sizeof(int));
  int *block_start = malloc(((size_t)(last - first) + 1) * sizeof(int));
  struct branches_by_level *buckets = calloc((size_t)morphologies, sizeof *buckets);
  int ok = order && block_start && buckets;
  int blocks = 0, placed = 0;
  for (int m = 0; ok && m < morphologies; m++) {
    ok = branches_by_level_build(batch, m, &buckets[m]) == 0;
    int in_block = 0;
    for (int k = first + (m - first % morphologies + morphologies) % morphologies; ok && k < last;
         k += morphologies) {
      if (in_block == 0)
        block_start[blocks++] = placed;
      order[placed++] = k;
      in_block = (in_block + 1) % per_block;
    }
  }
  int *ints = NULL;
  const size_t at = (size_t)chunk * (levels + 1);
  const long long systems = batch->branch_offset[last] - batch->branch_offset[first];
  if (ok) {
    block_start[blocks] = placed;
    *length = CELL_HEADER_SIZE + 3 * (size_t)levels + (size_t)blocks * levels + 1 + (size_t)systems;
    ok = systems < INT_MAX && batch->ints_offset[at + levels] < INT_MAX &&
         (ints = malloc(*length * sizeof(int))) != NULL;
  }
  if (ok) {
    ints[CELL_BLOCKS] = blocks;
    ints[CELL_LEVELS] = levels;
    int *offsets = ints + CELL_HEADER_SIZE;
    for (int l = 0; l < levels; l++) {
      offsets[l] = (int)batch->ints_offset[at + l];
      offsets[levels + l] = (int)batch->element_offset[at + l];
      offsets[2 * levels + l] = (int)batch->system_offset[at + l];
    }
    int *first_of = offsets + 3 * levels, *system = first_of + (size_t)blocks * levels + 1;
    int cursor = 0, widest = 1;
    for (int b = 0; b < blocks; b++)
      for (int l = 0; l < levels; l++) {
        first_of[b * levels + l] = cursor;
        for (int i = block_start[b]; i < block_start[b + 1]; i++) {
          const int k = order[i], m = k % morphologies;
          for (int j = buckets[m].first[l]; j < buckets[m].first[l + 1]; j++)
            system[cursor++] = batch->branch_system[batch->branch_offset[k] + buckets[m].branch[j]];
        }
        const int count = cursor - first_of[b * levels + l];
        qsort(system + first_of[b * levels + l], (size_t)count, sizeof(int), ascending);
        if (count > widest)
          widest = count;
      }
    first_of[(size_t)blocks * levels] = cursor;
    /* Whole warps, as many threads as the widest level wants, up to the register budget. */
    int threads = (widest + 31) / 32 * 32;
    ints[CELL_THREADS] = threads < CELL_MAX_THREADS ? threads : CELL_MAX_THREADS;
  }
  for (int m = 0; buckets && m < morphologies; m++)
    free(buckets[m].first), free(buckets[m].branch);
  free(buckets), free(order), free(block_start);
  if (!ok) {
    free(ints);
    *length = 0;
    return NULL;
  }
  return ints;
}
