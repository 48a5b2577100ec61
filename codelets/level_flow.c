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
  const size_t ints = FLOW_HEADER_SIZE + 3 * (size_t)n_levels + systems + FLOW_TILE_INTS * tiles;
  if (ints > INT_MAX || tiles > INT_MAX)
    return NULL;
  int *schedule = malloc(ints * sizeof *schedule);
  if (!schedule)
    return NULL;
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
  *length = ints;
  return schedule;
}

int level_flow_step_host(const int *part_ints, const int *schedule, const double *constants,
                         const struct level_step_arguments *args, double *voltage, double *factor,
                         double *contribution, double *gates) {
  const struct flow_schedule_view f = flow_schedule_describe(schedule);
  char *backward_done = calloc((size_t)f.systems + 1, 1);
  char *forward_done = calloc((size_t)f.systems + 1, 1);
  int status = backward_done && forward_done ? 0 : -1;
  for (int t = 0; t < f.tiles && !status; t++) {
    const int *record = f.tile + FLOW_TILE_INTS * (size_t)t;
    const int index = record[FLOW_TILE_INDEX], backward = t < f.backward_tiles;
    const struct level_block_view v = flow_tile_block(part_ints, record);
    const size_t e = (size_t)record[FLOW_TILE_ELEMENT_OFFSET];
    const int first_system = record[FLOW_TILE_SYSTEM_OFFSET];
    for (int thread = 0; thread < FLOW_THREADS && !status; thread++) {
      int by_warp;
      const int s = flow_tile_system(&v, index, thread, &by_warp);
      /* a warp-swept system's other lanes: the same system, swept once here */
      if (s < 0 || (by_warp && thread % (v.warp_lanes > 0 ? v.warp_lanes : 32) != 0))
        continue;
      const int me = first_system + s;
      if (backward) {
        for (int c = v.child_first[s]; c < v.child_first[s + 1]; c++)
          if (!backward_done[v.child[c]])
            status = -1;
        if (!status)
          level_backward_system(&v, s, constants, args, voltage + e, factor + e,
                                contribution + 2 * (size_t)first_system, contribution,
                                gates ? gates + (size_t)args->channels.n_gates * e : NULL, 0);
        backward_done[me] = 1;
      } else {
        const int parent = f.parent[me];
        if (parent >= 0 ? !forward_done[parent] : !backward_done[me])
          status = -1;
        if (!status)
          level_forward_system(&v, s, voltage + e, factor + e, voltage);
        forward_done[me] = 1;
      }
    }
  }
  for (int level = 0; level < f.levels && !status; level++) { /* a system no tile swept */
    const int systems = level_block_describe(part_ints + f.ints_offset[level]).systems;
    for (int s = f.system_offset[level]; s < f.system_offset[level] + systems; s++)
      if (!backward_done[s] || !forward_done[s])
        status = -1;
  }
  free(backward_done);
  free(forward_done);
  return status;
}
