/* The flow kernel's schedule and its CPU emulation (level_flow.h). */
#include "level_flow.h"

#include <limits.h>
#include <stdlib.h>

#include "hines_level_kernels.h"

int *level_flow_schedule(const int *const *blocks, int n_levels, const size_t *ints_offset,
                         const size_t *element_offset, const size_t *system_offset,
                         size_t *length) {
  *length = 0;
  const size_t systems = system_offset[n_levels];
  if (systems > INT_MAX || element_offset[n_levels] > INT_MAX || ints_offset[n_levels] > INT_MAX)
    return NULL;
  size_t tiles = 0;
  for (int level = 0; level < n_levels; level++) {
    const struct level_block_view v = level_block_describe(blocks[level]);
    tiles += (size_t)flow_level_tiles(v.systems, v.warp_systems, v.warp_lanes);
  }
  tiles *= 2; /* both sweeps */
  /* the tiles' dependencies, each once, at most one per child (or parent) link */
  size_t links = 0;
  for (int level = 0; level < n_levels; level++)
    links += (size_t)level_block_describe(blocks[level]).children;
  size_t ints = FLOW_HEADER_SIZE + 3 * (size_t)n_levels + systems + FLOW_TILE_INTS * tiles + tiles +
                1 + 2 * links;
  if (ints > INT_MAX || tiles > INT_MAX)
    return NULL;
  int *schedule = malloc(ints * sizeof *schedule);
  /* per level, the global number of its first tile in each sweep */
  int *first_tile = malloc(2 * (size_t)(n_levels + 1) * sizeof *first_tile);
  int *listed = malloc((tiles + 1) * sizeof *listed);
  if (!schedule || !first_tile || !listed) {
    free(schedule), free(first_tile), free(listed);
    return NULL;
  }
  schedule[FLOW_TILES] = (int)tiles;
  schedule[FLOW_BACKWARD_TILES] = (int)(tiles / 2);
  schedule[FLOW_SYSTEMS] = (int)systems;
  schedule[FLOW_LEVELS] = n_levels;
  int *at = schedule + FLOW_HEADER_SIZE;
  for (int level = 0; level < n_levels; level++) {
    at[level] = (int)ints_offset[level];
    at[n_levels + level] = (int)element_offset[level];
    at[2 * n_levels + level] = (int)system_offset[level];
  }
  int *parent = at + 3 * n_levels, *tile = parent + systems;
  for (size_t s = 0; s < systems; s++)
    parent[s] = -1;
  for (int level = 0; level < n_levels; level++) {
    const struct level_block_view v = level_block_describe(blocks[level]);
    for (int s = 0; s < v.systems; s++)
      for (int c = v.child_first[s]; c < v.child_first[s + 1]; c++)
        parent[v.child[c]] = (int)system_offset[level] + s;
  }
  /* backward: deepest level first (children always sit deeper than their parent); forward:
   * level 0 first. Within a level the warp-swept (longest) systems come first. */
  size_t t = 0;
  for (int sweep = 0; sweep < 2; sweep++)
    for (int i = 0; i < n_levels; i++) {
      const int level = sweep == 0 ? n_levels - 1 - i : i;
      const struct level_block_view v = level_block_describe(blocks[level]);
      const int count = flow_level_tiles(v.systems, v.warp_systems, v.warp_lanes);
      for (int index = 0; index < count; index++, t++) {
        int *record = tile + FLOW_TILE_INTS * t;
        record[FLOW_TILE_LEVEL] = level;
        record[FLOW_TILE_INDEX] = index;
        for (int h = 0; h < LEVEL_HEADER_SIZE; h++)
          record[FLOW_TILE_BLOCK_HEADER + h] = blocks[level][h];
        record[FLOW_TILE_INTS_OFFSET] = (int)ints_offset[level];
        record[FLOW_TILE_ELEMENT_OFFSET] = (int)element_offset[level];
        record[FLOW_TILE_SYSTEM_OFFSET] = (int)system_offset[level];
      }
    }
  for (int sweep = 0, next = 0; sweep < 2; sweep++)
    for (int i = 0; i < n_levels; i++) {
      const int level = sweep == 0 ? n_levels - 1 - i : i;
      const struct level_block_view v = level_block_describe(blocks[level]);
      first_tile[sweep * (n_levels + 1) + level] = next;
      next += flow_level_tiles(v.systems, v.warp_systems, v.warp_lanes);
    }
  /* what each tile waits for: backward, the tiles of its systems' children; forward, those of
   * their parents (in the parent's level: the one whose system range holds it) */
  int *dependency_first = tile + FLOW_TILE_INTS * tiles, *dependency = dependency_first + tiles + 1;
  size_t n = 0;
  for (size_t i = 0; i <= tiles; i++)
    listed[i] = -1;
  for (t = 0; t < tiles; t++) {
    dependency_first[t] = (int)n;
    const int *record = tile + FLOW_TILE_INTS * t;
    const int level = record[FLOW_TILE_LEVEL], backward = t < tiles / 2;
    const struct level_block_view v = level_block_describe(blocks[level]);
    for (int thread = 0; thread < FLOW_THREADS; thread++) {
      int by_warp;
      const int s = flow_tile_system(&v, record[FLOW_TILE_INDEX], thread, &by_warp);
      if (s < 0)
        continue;
      for (int c = backward ? v.child_first[s] : 0; c < (backward ? v.child_first[s + 1] : 1);
           c++) {
        const int other = backward ? v.child[c] : parent[system_offset[level] + s];
        if (other < 0)
          continue; /* a root in the forward sweep */
        int other_level = 0;
        while (other_level + 1 < n_levels && (int)system_offset[other_level + 1] <= other)
          other_level++;
        const struct level_block_view ov = level_block_describe(blocks[other_level]);
        const int d = first_tile[!backward * (n_levels + 1) + other_level] +
                      flow_system_tile(&ov, other - (int)system_offset[other_level]);
        if (listed[d] != (int)t) {
          listed[d] = (int)t;
          dependency[n++] = d;
        }
      }
    }
  }
  dependency_first[tiles] = (int)n;
  schedule[FLOW_DEPENDENCIES] = (int)n;
  free(first_tile), free(listed);
  *length = ints - (2 * links - n);
  return schedule;
}

int level_flow_step_host(const int *part_ints, const int *schedule, const double *constants,
                         const struct level_step_arguments *args, double *voltage, double *factor,
                         double *contribution, double *gates) {
  const struct flow_schedule_view f = flow_schedule_describe(schedule);
  char *tile_done = calloc((size_t)f.tiles + 1, 1);
  int *listed = malloc(((size_t)f.tiles + 1) * sizeof *listed);
  /* the tile that swept each system, per sweep (-1: not yet) */
  int *swept_by = malloc(2 * ((size_t)f.systems + 1) * sizeof *swept_by);
  int status = tile_done && listed && swept_by ? 0 : -1;
  for (int i = 0; !status && i <= f.tiles; i++)
    listed[i] = -1;
  for (int i = 0; !status && i < 2 * (f.systems + 1); i++)
    swept_by[i] = -1;
  for (int t = 0; t < f.tiles && !status; t++) {
    const int *record = f.tile + FLOW_TILE_INTS * (size_t)t;
    const int index = record[FLOW_TILE_INDEX], backward = t < f.backward_tiles;
    const struct level_block_view v = flow_tile_block(part_ints, record);
    const size_t e = (size_t)record[FLOW_TILE_ELEMENT_OFFSET];
    const int first_system = record[FLOW_TILE_SYSTEM_OFFSET];
    /* the GPU block waits for these tiles only: each must be done, and listed */
    for (int d = f.dependency_first[t]; d < f.dependency_first[t + 1]; d++) {
      if (!tile_done[f.dependency[d]])
        status = -1;
      listed[f.dependency[d]] = t;
    }
    for (int thread = 0; thread < FLOW_THREADS && !status; thread++) {
      int by_warp;
      const int s = flow_tile_system(&v, index, thread, &by_warp);
      /* a warp-swept system's other lanes: the same system, swept once here */
      if (s < 0 || (by_warp && thread % (v.warp_lanes > 0 ? v.warp_lanes : 32) != 0))
        continue;
      const int me = first_system + s;
      if (backward) {
        for (int c = v.child_first[s]; c < v.child_first[s + 1]; c++) {
          const int by = swept_by[v.child[c]];
          if (by < 0 || listed[by] != t) /* a child not swept, or by a tile not waited for */
            status = -1;
        }
        if (!status)
          level_backward_system(&v, s, constants, args, voltage + e, factor + e,
                                contribution + 2 * (size_t)first_system, contribution,
                                gates ? gates + (size_t)args->channels.n_gates * e : NULL, 0);
        swept_by[me] = t;
      } else {
        const int parent = f.parent[me];
        const int by = parent >= 0 ? swept_by[f.systems + 1 + parent] : 0;
        if (swept_by[me] < 0 || (parent >= 0 && (by < 0 || listed[by] != t)))
          status = -1;
        if (!status)
          level_forward_system(&v, s, voltage + e, factor + e, voltage);
        swept_by[f.systems + 1 + me] = t;
      }
    }
    tile_done[t] = 1;
  }
  for (int level = 0; level < f.levels && !status; level++) { /* a system no tile swept */
    const int systems = level_block_describe(part_ints + f.ints_offset[level]).systems;
    for (int s = f.system_offset[level]; s < f.system_offset[level] + systems; s++)
      if (swept_by[s] < 0 || swept_by[f.systems + 1 + s] < 0)
        status = -1;
  }
  free(tile_done), free(listed), free(swept_by);
  return status;
}
