/* The flow kernel of the level solver (`--level-kernel flow`): a chunk's whole step in two
 * launches (one per sweep), without a boundary between levels. Each thread block takes the next
 * tile of work from a counter (a tile: 128 threads' systems of one level), sweeps it as the
 * level kernels would, and waits, system by system, only for what that system reads: the
 * backward sweep of a branch for its child branches' contributions, the forward sweep for its
 * parent's voltages (a root branch: the backward launch has ended). Each finished sweep
 * publishes a flag holding the step's number, so no flag is ever reset.
 *
 * Why: the level kernels end every level at a kernel boundary, and a level lasts as long as its
 * longest branch takes one thread, so a step costs the sum over levels of (boundary + longest
 * chain) whatever the batch size (about 0.4 ms of the six shipped cells' step on an H100). Here
 * a long branch holds up only its own ancestors. Measured (BENCHMARKS.md, "The flow kernel",
 * H100): 4-9 % faster than the level kernels on mixes of large real cells, between 9 % faster
 * and 11 % slower on small batches, 6-8 % slower on the six shipped cells' large batch, 12-15 %
 * on deep synthetic chains and 45 % on random trees; so `--level-kernel levels` stays the
 * default and this one is an option.
 *
 * No deadlock whatever the grid's residency: tiles are handed out in an order where everything
 * a tile waits for comes earlier (backward: deepest level first, children always sit in deeper
 * levels; then forward: level 0 first), so the earliest unfinished tile waits for nothing and
 * is held by a running block.
 *
 * The arithmetic is the level kernels' (the same per-system functions, the same warp sweeps),
 * so the bits are theirs; on a CPU the chunk step runs level by level. The schedule lives in
 * the chunk's description array (one read-only handle), after the level blocks and the trunk.
 *   header, then ints_offset, element_offset, system_offset of each level (levels each), then
 *   parent[systems] (the parent branch's system in the part's arrays, -1: root), then the
 *   tiles, FLOW_TILE_INTS each (the first backward_tiles are backward sweeps): everything a
 *   block needs to start, so that it reads one record, not a chain of offsets and headers. */
#ifndef HINES_LEVEL_FLOW_H
#define HINES_LEVEL_FLOW_H

#include <stddef.h>

#include "host_device.h"
#include "level_layout.h"

/* Threads of a tile (a CUDA block). */
#define FLOW_THREADS 128

enum flow_header { FLOW_TILES, FLOW_BACKWARD_TILES, FLOW_SYSTEMS, FLOW_LEVELS, FLOW_HEADER_SIZE };

/* One tile's record: its level and tile index there, that level block's header
 * (level_layout.h) and where the level starts in the part's arrays. */
enum flow_tile_record {
  FLOW_TILE_LEVEL,
  FLOW_TILE_INDEX,
  FLOW_TILE_BLOCK_HEADER, /* LEVEL_HEADER_SIZE ints */
  FLOW_TILE_INTS_OFFSET = FLOW_TILE_BLOCK_HEADER + LEVEL_HEADER_SIZE,
  FLOW_TILE_ELEMENT_OFFSET,
  FLOW_TILE_SYSTEM_OFFSET,
  FLOW_TILE_INTS
};

struct flow_schedule_view {
  int tiles, backward_tiles, systems, levels;
  const int *ints_offset, *element_offset, *system_offset, *parent, *tile;
};

static inline HINES_HOST_DEVICE struct flow_schedule_view flow_schedule_describe(const int *ints) {
  struct flow_schedule_view f;
  f.tiles = ints[FLOW_TILES];
  f.backward_tiles = ints[FLOW_BACKWARD_TILES];
  f.systems = ints[FLOW_SYSTEMS];
  f.levels = ints[FLOW_LEVELS];
  f.ints_offset = ints + FLOW_HEADER_SIZE;
  f.element_offset = f.ints_offset + f.levels;
  f.system_offset = f.element_offset + f.levels;
  f.parent = f.system_offset + f.levels;
  f.tile = f.parent + f.systems;
  return f;
}

/* The level block of a tile record in the part's descriptions part_ints (what
 * level_block_describe(part_ints + ints offset) gives, its header taken from the record). */
static inline HINES_HOST_DEVICE struct level_block_view flow_tile_block(const int *part_ints,
                                                                        const int *record) {
  return level_block_view_of(record + FLOW_TILE_BLOCK_HEADER,
                             part_ints + record[FLOW_TILE_INTS_OFFSET] + LEVEL_HEADER_SIZE);
}

/* Tiles a level block needs: its warp-swept systems (lanes each) first, then a thread each. */
static inline HINES_HOST_DEVICE int flow_level_tiles(int systems, int warp_systems, int lanes) {
  if (systems <= 0)
    return 0;
  if (warp_systems > systems)
    warp_systems = systems;
  return (warp_systems * lanes + FLOW_THREADS - 1) / FLOW_THREADS +
         (systems - warp_systems + FLOW_THREADS - 1) / FLOW_THREADS;
}

/* The system thread `thread` of tile `index` of level block v sweeps (-1: none; a warp-swept
 * system's lanes past the last one keep step with their warp), and whether a warp sweeps it. */
static inline HINES_HOST_DEVICE int flow_tile_system(const struct level_block_view *v, int index,
                                                     int thread, int *by_warp) {
  const int warp_systems = v->warp_systems < v->systems ? v->warp_systems : v->systems;
  const int lanes = v->warp_lanes > 0 ? v->warp_lanes : 32;
  const int warp_tiles = (warp_systems * lanes + FLOW_THREADS - 1) / FLOW_THREADS;
  *by_warp = index < warp_tiles;
  if (*by_warp) {
    const int w = (index * FLOW_THREADS + thread) / lanes;
    return w < warp_systems ? w : -1;
  }
  const int s = warp_systems + (index - warp_tiles) * FLOW_THREADS + thread;
  return s < v->systems ? s : -1;
}

#ifndef __CUDACC__
/* The schedule of one part (a level batch chunk with chunk links): blocks its n_levels level
 * descriptions, the offsets those of level_batch (n_levels + 1 each) for the part's
 * concatenated arrays. Returns the array (malloc) and its length in *length; NULL when out of
 * memory or an offset exceeds an int. */
int *level_flow_schedule(const int *const *blocks, int n_levels, const size_t *ints_offset,
                         const size_t *element_offset, const size_t *system_offset, size_t *length);

struct level_step_arguments;
/* The GPU's step on a CPU, tile after tile in the counter's order, checking before each system
 * that what it waits for is done (as the GPU's flags would say). Returns 0, or -1 when a system
 * would wait for one not yet swept (a schedule that could deadlock). For tests: the chunk codelet
 * sweeps level by level on CPUs, with the same bits. */
int level_flow_step_host(const int *part_ints, const int *schedule, const double *constants,
                         const struct level_step_arguments *args, double *voltage, double *factor,
                         double *contribution, double *gates);
#endif

#ifdef __cplusplus
extern "C" {
#endif
struct level_step_arguments;
/* One part's flow step on `stream` (device pointers; host_schedule: the schedule's host copy,
 * for its tile count). flags: 2 x systems ints, tickets: 4 unsigned, both zero before a part's
 * first step on this device and kept between its steps; step: 1, 2, ... on this device (below
 * 2^31: a flag holds it).
 * 0 or a cudaError_t. */
int level_flow_cuda(const int *part_ints, const int *schedule, const int *host_schedule, int *flags,
                    unsigned *tickets, int step, const double *constants,
                    const struct level_step_arguments *args, double *voltage, double *factor,
                    double *contribution, double *gates, void *stream);
#ifdef __cplusplus
}
#endif

#endif
