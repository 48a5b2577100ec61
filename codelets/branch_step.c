/* The branch step's schedule and its host emulation (codelets/branch_step.h). */
#include "branch_step.h"

#include <stdlib.h>
#include <string.h>

int *branch_schedule_build(const struct level_batch *batch, int chunk, int neurons_per_block,
                           size_t *length) {
  return branch_schedule_build_top(batch, chunk, neurons_per_block, batch->n_levels, length);
}

int *branch_schedule_build_top(const struct level_batch *batch, int chunk, int neurons_per_block,
                               int top_levels, size_t *length) {
  size_t cell_length = 0;
  int *cell = cell_schedule_build_top(batch, chunk, neurons_per_block, top_levels, &cell_length);
  if (!cell)
    return NULL;
  struct cell_schedule_view c = cell_schedule_describe(cell);
  const int levels = c.levels, items = c.first[(size_t)c.blocks * levels];
  const int n_levels = batch->n_levels;
  const size_t at = (size_t)chunk * (n_levels + 1);
  const size_t systems = batch->system_offset[at + levels]; /* the schedule's levels' */
  const size_t chunk_systems = batch->system_offset[at + n_levels];
  /* every item's children, in the layout's order, and its parent */
  size_t children = 0;
  int *item_of = malloc((chunk_systems > 0 ? chunk_systems : 1) * sizeof(int));
  int *level_of = malloc(((size_t)items > 0 ? (size_t)items : 1) * sizeof(int));
  if (!item_of || !level_of) {
    free(item_of), free(level_of), free(cell);
    return NULL;
  }
  for (size_t g = 0; g < chunk_systems; g++)
    item_of[g] = -1; /* a system below the schedule's levels */
  int most = 1;
  for (int b = 0; b < c.blocks; b++) {
    const int *first = c.first + (size_t)b * levels;
    most = first[levels] - first[0] > most ? first[levels] - first[0] : most;
    for (int level = 0; level < levels; level++)
      for (int i = first[level]; i < first[level + 1]; i++) {
        item_of[batch->system_offset[at + level] + (size_t)c.system[i]] = i;
        level_of[i] = level;
        const struct level_block_view v =
            level_block_describe(batch->blocks[chunk * n_levels + level]);
        children += (size_t)(v.child_first[c.system[i] + 1] - v.child_first[c.system[i]]);
      }
  }
  *length = cell_length + BRANCH_HEADER_SIZE + 2 * (size_t)items + 1 + children;
  int *ints = realloc(cell, *length * sizeof(int));
  if (!ints) {
    free(item_of), free(level_of), free(cell);
    return NULL;
  }
  c = cell_schedule_describe(ints);
  int *links = ints + cell_length;
  links[BRANCH_MOST_ITEMS] = most;
  links[BRANCH_SYSTEMS] = (int)systems;
  int *parent = links + BRANCH_HEADER_SIZE, *child_first = parent + items;
  int *child = child_first + items + 1;
  for (int i = 0; i < items; i++)
    parent[i] = -1;
  int n = 0, most_children = 0;
  for (int b = 0; b < c.blocks; b++) {
    const int base = c.first[(size_t)b * levels], block_first_child = n;
    for (int i = base; i < c.first[(size_t)(b + 1) * levels]; i++) {
      const struct level_block_view v =
          level_block_describe(batch->blocks[chunk * n_levels + level_of[i]]);
      const int s = c.system[i];
      child_first[i] = n;
      for (int k = v.child_first[s]; k < v.child_first[s + 1]; k++) {
        const int item = item_of[v.child[k]]; /* chunk links: the chunk's system index */
        if (item < 0) { /* below the schedule: its contribution comes from the level kernels */
          child[n++] = BRANCH_CHILD_BELOW(v.child[k]);
          continue;
        }
        child[n++] = item - base;
        parent[item] = i - base;
      }
    }
    most_children = n - block_first_child > most_children ? n - block_first_child : most_children;
  }
  links[BRANCH_MOST_CHILDREN] = most_children;
  child_first[items] = n;
  free(item_of), free(level_of);
  const int threads = (most + 31) / 32 * 32;
  ints[CELL_THREADS] = threads < BRANCH_MAX_THREADS ? threads : BRANCH_MAX_THREADS;
  return ints;
}

/* The kernel's steps in its order; within a step the items are independent (those of one
 * level), so their order here does not change a bit. */
void branch_junctions_host(const int *part_ints, const struct cell_schedule_view *c, int block,
                           const double *constants, const struct level_step_arguments *args,
                           double *voltage, double *contribution, double *scratch) {
  const struct branch_links links = branch_links_of(c);
  const int levels = c->levels;
  const int *first = c->first + (size_t)block * levels;
  const int base = first[0];
  const struct branch_block_values values = branch_block_values_at(scratch, links.most_items);
  for (int level = 0; level < levels; level++)
    for (int i = first[level]; i < first[level + 1]; i++)
      branch_junction_load(part_ints, c, &links, level, i, base, constants, args, contribution,
                           &values);
  for (int level = levels - 1; level >= 0; level--)
    for (int i = first[level]; i < first[level + 1]; i++)
      branch_junction_backward(&links, i, base, &values);
  for (int level = 0; level < levels; level++)
    for (int i = first[level]; i < first[level + 1]; i++)
      branch_junction_forward(&links, i, base, voltage, &values);
  for (int level = 0; level < levels; level++)
    for (int i = first[level]; i < first[level + 1]; i++)
      branch_junction_store(c, &links, level, i, base, contribution, &values);
}
