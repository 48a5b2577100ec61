#include "cell_block.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

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
  return cell_schedule_build_top(batch, chunk, neurons_per_block, batch->n_levels, length);
}

int *cell_schedule_build_top(const struct level_batch *batch, int chunk, int neurons_per_block,
                             int top_levels, size_t *length) {
  const int n_levels = batch->n_levels, morphologies = batch->n_morphologies;
  const int levels = top_levels > 0 && top_levels < n_levels ? top_levels : n_levels;
  const int first = batch->chunk_first_neuron[chunk], last = batch->chunk_first_neuron[chunk + 1];
  const int per_block = neurons_per_block > 0 ? neurons_per_block : 1;
  *length = 0;
  /* The chunk's neurons by morphology, then by number; a block never mixes morphologies. */
  int *order = malloc((size_t)(last - first) * sizeof(int));
  int *block_start = malloc(((size_t)(last - first) + 1) * sizeof(int));
  struct branches_by_level *buckets = calloc((size_t)morphologies, sizeof *buckets);
  int ok = order && block_start && buckets;
  int blocks = 0, placed = 0;
  long long systems = 0;
  for (int m = 0; ok && m < morphologies; m++) {
    ok = branches_by_level_build(batch, m, &buckets[m]) == 0;
    if (!ok || buckets[m].first[levels] == 0)
      continue; /* no branch in the schedule's levels: no block */
    int in_block = 0;
    for (int p = first; ok && p < last; p++) {
      const int k = level_batch_neuron_at(batch, p);
      if (k % morphologies != m)
        continue;
      if (in_block == 0)
        block_start[blocks++] = placed;
      order[placed++] = k;
      systems += buckets[m].first[levels];
      in_block = (in_block + 1) % per_block;
    }
  }
  int *ints = NULL;
  const size_t at = (size_t)chunk * (n_levels + 1);
  if (ok) {
    block_start[blocks] = placed;
    *length = CELL_HEADER_SIZE + 3 * (size_t)levels + (size_t)blocks * levels + 1 + (size_t)systems;
    ok = systems < INT_MAX && batch->ints_offset[at + n_levels] < INT_MAX &&
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

/* What block `block`'s level `level` needs: its systems in the chunk's level and their totals. */
struct shared_level_totals {
  int count, max_size, elements, children, trees, shape_ints;
};

static struct shared_level_totals shared_level_totals(const struct cell_schedule_view *c,
                                                      const struct level_block_view *v, int block,
                                                      int level) {
  const int at = block * c->levels + level;
  struct shared_level_totals t = {.count = c->first[at + 1] - c->first[at]};
  for (int i = c->first[at]; i < c->first[at + 1]; i++) {
    const int s = c->system[i], size = v->size[s];
    if (size > t.max_size)
      t.max_size = size;
    t.elements += size;
    t.children += v->child_first[s + 1] - v->child_first[s];
    if (v->trees && v->tree[s] >= 0) {
      t.trees++;
      t.shape_ints += SHAPE_INTS_PER_ELEMENT * size;
    }
  }
  return t;
}

/* Block `block`'s description (cell_block.h) at out, whose length blocks_ints gave; local_of:
 * scratch of the chunk's systems (indexed like its contributions). */
static void shared_block_fill(const struct cell_schedule_view *c, int block,
                              const struct level_block_view *views, int *local_of, int *out,
                              int *bytes, int *elements) {
  const int levels = c->levels;
  /* the chunk's level offsets (ints: cell_shared_schedule_build checked that they fit) */
  const int *element_offset = c->element_offset, *system_offset = c->system_offset;
  int *ints_offset = out, *local_elements = out + levels,
      *local_systems = local_elements + levels + 1;
  int *chunk_offset = local_systems + levels + 1, *chunk_elements = chunk_offset + levels;
  int cursor = 5 * levels + 2;
  for (int level = 0; level < levels; level++) {
    chunk_offset[level] = element_offset[level];
    chunk_elements[level] = views[level].elements;
  }
  local_elements[0] = local_systems[0] = 0;
  /* Headers, sizes and rows first: the links below need every level's rows. */
  for (int level = 0; level < levels; level++) {
    const int at = block * levels + level;
    const struct level_block_view *v = &views[level];
    const struct shared_level_totals t = shared_level_totals(c, v, block, level);
    int *ints = out + cursor;
    ints_offset[level] = cursor;
    cursor += (int)level_block_ints(t.count, t.max_size, t.elements, t.children, t.shape_ints);
    local_elements[level + 1] = local_elements[level] + t.elements;
    local_systems[level + 1] = local_systems[level] + t.count;
    ints[LEVEL_SYSTEMS] = t.count;
    ints[LEVEL_MAX_SIZE] = t.max_size;
    ints[LEVEL_ELEMENTS] = t.elements;
    ints[LEVEL_CHILDREN] = t.children;
    ints[LEVEL_PADDED] = 0;
    ints[LEVEL_WARP_SYSTEMS] = 0; /* one thread a system: the same bits as a warp's */
    ints[LEVEL_WARP_LANES] = v->warp_lanes;
    ints[LEVEL_TREES] = t.trees;
    ints[LEVEL_SHAPE_INTS] = t.shape_ints;
    ints[LEVEL_TREE_ELEMENTS] = 0; /* added up below */
    const struct level_block_view local = level_block_describe(ints);
    int *size = (int *)local.size, *row_offset = (int *)local.row_offset;
    int *first_row = (int *)local.first_row, *neuron = (int *)local.neuron;
    int *first_compartment = (int *)local.first_compartment, *tree = (int *)local.tree;
    int *shapes = (int *)local.shapes, shape_at = 0;
    for (int i = 0; i < t.count; i++) {
      const int s = c->system[c->first[at] + i];
      local_of[system_offset[level] + s] = i;
      size[i] = v->size[s]; /* the chunk's order: longest first */
      first_row[i] = v->first_row[s];
      neuron[i] = v->neuron[s];
      first_compartment[i] = v->first_compartment[s];
      tree[i] = -1;
      if (v->trees && v->tree[s] >= 0) {
        ints[LEVEL_TREE_ELEMENTS] += size[i];
        tree[i] = shape_at;
        memcpy(shapes + shape_at, v->shapes + v->tree[s],
               SHAPE_INTS_PER_ELEMENT * (size_t)size[i] * sizeof(int));
        shape_at += SHAPE_INTS_PER_ELEMENT * size[i];
      }
    }
    int in_row = t.count;
    row_offset[0] = 0;
    for (int j = 0; j < t.max_size; j++) {
      while (in_row > 0 && size[in_row - 1] <= j)
        in_row--;
      row_offset[j + 1] = row_offset[j] + in_row;
    }
  }
  /* Junctions and children, renumbered into the block's arrays (the chunk's child order). */
  for (int level = 0; level < levels; level++) {
    const int at = block * levels + level;
    const struct level_block_view *v = &views[level];
    const struct level_block_view local = level_block_describe(out + ints_offset[level]);
    int *junction = (int *)local.junction, *child_first = (int *)local.child_first;
    int *child = (int *)local.child, child_at = 0;
    for (int i = 0; i < local.systems; i++) {
      const int s = c->system[c->first[at] + i];
      junction[i] = -1;
      if (v->junction[s] >= 0) {
        const int e = v->junction[s];
        const int parent_level = level_last_at_most(element_offset, levels, e);
        const struct level_block_view *pv = &views[parent_level];
        const int in_level = e - element_offset[parent_level];
        const int j = level_last_at_most(pv->row_offset, pv->max_size + 1, in_level);
        const int parent = in_level - pv->row_offset[j];
        const struct level_block_view parent_local =
            level_block_describe(out + ints_offset[parent_level]);
        junction[i] = local_elements[parent_level] + parent_local.row_offset[j] +
                      local_of[system_offset[parent_level] + parent];
      }
      child_first[i] = child_at;
      for (int k = v->child_first[s]; k < v->child_first[s + 1]; k++) {
        const int g = v->child[k];
        const int child_level = level_last_at_most(system_offset, levels, g);
        child[child_at++] = local_systems[child_level] + local_of[g];
      }
    }
    child_first[local.systems] = child_at;
  }
  /* Where each value is in the chunk's arrays, level by level. */
  int *global_element = out + cursor;
  for (int level = 0; level < levels; level++) {
    const int at = block * levels + level;
    const struct level_block_view *v = &views[level];
    const struct level_block_view local = level_block_describe(out + ints_offset[level]);
    for (int j = 0; j < local.max_size; j++)
      for (int i = local.row_offset[j]; i < local.row_offset[j + 1]; i++) {
        const int s = c->system[c->first[at] + i - local.row_offset[j]];
        global_element[local_elements[level] + i] = element_offset[level] + v->row_offset[j] + s;
      }
  }
  /* its values, then a copy of its description (cursor ints) */
  const int block_bytes = (int)(sizeof(double) * (2 * (size_t)local_elements[levels] +
                                                  2 * (size_t)local_systems[levels]) +
                                sizeof(int) * (size_t)cursor);
  if (block_bytes > *bytes)
    *bytes = block_bytes;
  if (local_elements[levels] > *elements)
    *elements = local_elements[levels];
}

int *cell_shared_schedule_build(const struct level_batch *batch, int chunk, int neurons_per_block,
                                size_t *length) {
  *length = 0;
  if (batch->padded || !batch->chunk_links)
    return NULL;
  size_t cell_length = 0;
  int *cell = cell_schedule_build(batch, chunk, neurons_per_block, &cell_length);
  if (!cell)
    return NULL;
  const struct cell_schedule_view c = cell_schedule_describe(cell);
  const int levels = c.levels;
  struct level_block_view *views = malloc((size_t)levels * sizeof *views);
  const size_t chunk_systems = batch->system_offset[(size_t)chunk * (levels + 1) + levels];
  int *local_of = malloc((chunk_systems > 0 ? chunk_systems : 1) * sizeof(int));
  size_t *block_length = malloc(((size_t)c.blocks + 1) * sizeof(size_t));
  int *ints = NULL;
  int ok = views && local_of && block_length;
  for (int level = 0; ok && level < levels; level++)
    views[level] = level_block_describe(batch->blocks[chunk * levels + level]);
  size_t total = SHARED_HEADER_SIZE + (size_t)c.blocks + 1;
  for (int b = 0; ok && b < c.blocks; b++) {
    block_length[b] = 5 * (size_t)levels + 2;
    for (int level = 0; level < levels; level++) {
      const struct shared_level_totals t = shared_level_totals(&c, &views[level], b, level);
      block_length[b] +=
          level_block_ints(t.count, t.max_size, t.elements, t.children, t.shape_ints) +
          (size_t)t.elements; /* its global_element entries */
    }
    total += block_length[b];
  }
  ok = ok && cell_length + total < INT_MAX &&
       batch->element_offset[(size_t)chunk * (levels + 1) + levels] < INT_MAX &&
       (ints = realloc(cell, (cell_length + total) * sizeof(int))) != NULL;
  if (ok) {
    cell = NULL; /* now ints */
    /* The rows and the write-back spread over the whole block: all of its threads. */
    ints[CELL_THREADS] = CELL_MAX_THREADS;
    const struct cell_schedule_view view = cell_schedule_describe(ints);
    int *part = ints + cell_length, bytes = 0, elements = 0;
    size_t at = SHARED_HEADER_SIZE + (size_t)view.blocks + 1;
    for (int b = 0; b < view.blocks; b++) {
      part[SHARED_HEADER_SIZE + b] = (int)at;
      shared_block_fill(&view, b, views, local_of, part + at, &bytes, &elements);
      at += block_length[b];
    }
    part[SHARED_HEADER_SIZE + view.blocks] = (int)at;
    part[SHARED_BYTES] = bytes;
    part[SHARED_ELEMENTS] = elements;
    *length = cell_length + total;
  }
  free(cell), free(views), free(local_of), free(block_length);
  return ok ? ints : NULL;
}
