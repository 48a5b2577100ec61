/* Multi-morphology batches (OGST 2018): every neuron has its own tree. Each tree is split into
 * branches (unbranched runs), the branches of all neurons of a chunk are grouped by depth level,
 * and each (level, chunk) "level block" is a batch of variable-size tridiagonal systems stored
 * interleaved:
 *   NCP (no compute padding): systems sorted by size, largest first; row j holds only the systems
 *       longer than j, contiguously: element j of system s at row_offset[j] + s.
 *   CP (compute padding): every system padded to the longest; row_offset[j] = j * systems; the
 *       padding rows are identity rows that the kernels compute on.
 * Levels are coupled exactly through their junctions: the backward sweep of a level gathers each
 * system's children's contributions (no atomics, a fixed order, so results are bitwise
 * reproducible), the forward sweep reads the junction's solution from the parent level.
 * Which level a branch goes to (any order works where children come after their parent):
 *   depth (the papers'): the root branch at level 0, its children at 1, ...;
 *   height: every leaf branch in the last level, every other branch one level before the first
 *       level holding one of its children. A level's sweep lasts as long as its longest branch, so
 * what a step waits for is the sum over levels of the longest branch there. Aligning the leaves
 * instead of the roots puts most short branches in one large level and leaves few, small levels
 * behind the long paths: for the six shipped cells that sum is 865 compartments instead of 2,476
 *       (the longest root-to-leaf path is 644).
 * Links (junction, child) are element and system indices either in the adjacent level's arrays
 * (per-level tasks, depth order only: a task sees only the adjacent level) or in the chunk's
 * concatenated arrays (one task per chunk: a child may then sit several levels deeper).
 * Electrical constants live once per distinct morphology in one table; a branch's compartments
 * have consecutive rows there, so each system stores only the row of its first element (row 0 is
 * the identity row used by padding). */
#ifndef HINES_LEVEL_LAYOUT_H
#define HINES_LEVEL_LAYOUT_H

#include <stddef.h>

#include "cable.h"
#include "mechanisms.h"
#include "morphology.h"

/* The integer description of one level block, in one array (one read-only StarPU handle):
 * header then the arrays below, at the offsets level_block_ints gives. */
enum level_header {
  LEVEL_SYSTEMS,       /* S */
  LEVEL_MAX_SIZE,      /* longest system */
  LEVEL_ELEMENTS,      /* values stored (padding included for CP) */
  LEVEL_CHILDREN,      /* child systems in the next level */
  LEVEL_PADDED,        /* 1: CP, 0: NCP */
  LEVEL_WARP_SYSTEMS,  /* the first (longest) systems a GPU sweeps with a warp each (below) */
  LEVEL_WARP_LANES,    /* lanes of a warp per such system: 8, 16 or 32 */
  LEVEL_TREES,         /* systems that are leaf subtrees (below); 0: every system is a chain */
  LEVEL_SHAPE_INTS,    /* ints of the subtree shapes */
  LEVEL_TREE_ELEMENTS, /* elements of the leaf subtree systems (a GPU sweeps a level that is
                          mostly subtrees with kernels of its own: hines_level_cuda.cu) */
  LEVEL_HEADER_SIZE
};

/* Leaf subtrees (level_batch_options.subtree_compartments): a small subtree with every branch
 * below its root is one system, swept whole by one thread in its neuron's depth-first order, as
 * the mono kernels sweep a whole tree, instead of one system per branch of a few compartments
 * (each paying a description, a contribution, its children's gather and a thread of its own).
 * Such a subtree is a contiguous run of its morphology's compartments (depth-first numbering),
 * so element j is still compartment first_compartment + j and constants row first_row + j; only
 * its couplings differ: its shape (2 ints an element, shared by every copy of the subtree in
 * the block) gives element j's parent as j - shape[2j] (shape[0] unused) and the next sibling
 * of j as j + shape[2j + 1] (0: none). A subtree system has no child systems. */
enum level_shape { SHAPE_PARENT_STEP, SHAPE_SIBLING_STEP, SHAPE_INTS_PER_ELEMENT };
/* Only subtrees of short branches are merged: a chain sweep streams a long branch with its loads
 * four elements ahead, and the per-branch costs that merging saves matter where branches are
 * short. Measured on the H200 (BENCHMARKS.md, "Leaf subtrees"): merging every subtree of up to 64
 * compartments made random trees (branches of 2.5 compartments) 26 % faster but the six shipped
 * cells (14) 8 % slower. */
/* Long branches (level_batch_options.split_compartments): a level's sweep lasts as long as its
 * longest branch takes one thread, so what a step waits for is the sum over levels of the longest
 * branch there, which in a mix of cells adds long branches of different cells at different
 * levels (all 15 shared cells: 3,349 compartments a sweep for a longest root-to-leaf path of
 * 1,446). A chain longer than the limit is cut into segments, each one system hanging from the
 * previous segment's last compartment as from a junction with one child: the same tridiagonal
 * elimination, but the segments of one long branch now fill levels where other cells' short
 * branches run, and the sum approaches the longest path (1,617 at 64). The cut depends on the
 * morphology only, so the bits do not depend on the worker or the chunks. */
#ifndef LEVEL_SUBTREE_MEAN_BRANCH
#define LEVEL_SUBTREE_MEAN_BRANCH 4
#endif

struct level_block_view {
  int systems, max_size, elements, children, padded, warp_systems, warp_lanes, trees, shape_ints,
      tree_elements;
  const int *size;              /* [S] */
  const int *row_offset;        /* [max_size + 1] */
  const int *first_row;         /* [S] constants row of element 0 (element j: first_row + j; a
                                   CP padding element uses the identity row 0) */
  const int *junction;          /* [S] element of the parent branch's last compartment, -1
                                   for a root branch (see links above) */
  const int *child_first;       /* [S + 1] */
  const int *child;             /* [children] systems of the child branches (see links) */
  const int *neuron;            /* [S] global neuron index */
  const int *first_compartment; /* [S] compartment of element 0 in its neuron's morphology */
  const int *tree;              /* [S] where the system's shape starts in shapes, -1: a chain */
  const int *shapes;            /* [shape_ints] */
};

#include "host_device.h"

/* The last index i of sorted[0 .. n - 1] with sorted[i] <= value (sorted ascending, n >= 1): an
 * element's row (row_offset), an item's or a system's level (where each level starts). */
static inline HINES_HOST_DEVICE int level_last_at_most(const int *sorted, int n, int value) {
  int low = 0, high = n - 1;
  while (low < high) {
    const int middle = (low + high + 1) / 2;
    if (sorted[middle] <= value)
      low = middle;
    else
      high = middle - 1;
  }
  return low;
}

/* A level block from its header and the arrays after it, wherever each is read from (the flow
 * kernel keeps a copy of the header in each tile's record, codelets/level_flow.h). */
static inline HINES_HOST_DEVICE struct level_block_view level_block_view_of(const int *header,
                                                                            const int *arrays) {
  struct level_block_view v;
  v.systems = header[LEVEL_SYSTEMS];
  v.max_size = header[LEVEL_MAX_SIZE];
  v.elements = header[LEVEL_ELEMENTS];
  v.children = header[LEVEL_CHILDREN];
  v.padded = header[LEVEL_PADDED];
  v.warp_systems = header[LEVEL_WARP_SYSTEMS];
  v.warp_lanes = header[LEVEL_WARP_LANES];
  v.trees = header[LEVEL_TREES];
  v.shape_ints = header[LEVEL_SHAPE_INTS];
  v.tree_elements = header[LEVEL_TREE_ELEMENTS];
  const int *at = arrays;
  v.size = at;
  at += v.systems;
  v.row_offset = at;
  at += v.max_size + 1;
  v.first_row = at;
  at += v.systems;
  v.junction = at;
  at += v.systems;
  v.child_first = at;
  at += v.systems + 1;
  v.child = at;
  at += v.children;
  v.neuron = at;
  at += v.systems;
  v.first_compartment = at;
  at += v.systems;
  v.tree = at;
  at += v.systems;
  v.shapes = at;
  return v;
}

static inline HINES_HOST_DEVICE struct level_block_view level_block_describe(const int *ints) {
  return level_block_view_of(ints, ints + LEVEL_HEADER_SIZE);
}

static inline size_t level_block_ints(int systems, int max_size, int elements, int children,
                                      int shape_ints) {
  (void)elements; /* no per-element integers: an element's place and row follow from j and s */
  return LEVEL_HEADER_SIZE + (size_t)systems * 7 + 2 + (size_t)max_size + (size_t)children +
         (size_t)shape_ints;
}

/* Constants table: one row of CONST_STRIDE doubles per compartment of each distinct morphology
 * (row 0: identity), value c of row r at r * CONST_STRIDE + c, then the Hodgkin-Huxley area
 * scale of every row (read only when channels are on) at CONST_STRIDE * rows + r. Rows rather
 * than one array per constant: the threads of a warp read rows of different compartments, and a
 * 32-byte row is one L2 sector (measured on the H200 with ncu: the level kernels were bound by
 * those scattered reads). The cable matrix is symmetric, so one off-diagonal serves as both the
 * upper and the lower entry. */
#define CONST_STRIDE 4
enum level_constants {
  CONST_OFF_DIAGONAL,
  CONST_C_OVER_DT,
  CONST_DIAGONAL_BASE,
  CONST_LEAK_CURRENT,
};
/* After the area scales: every row's inverse pivot without channels (1 / its diagonal once its
 * children are eliminated), at CONST_INVERSE_PIVOT(rows) + r. Without channels a row's diagonal
 * does not change from step to step (only its rhs does), so neither do the pivots of the
 * elimination: level_batch_build computes them once, with the very operations of the sweeps
 * (level_layout.c, fill_inverse_pivots), and a sweep that reads them
 * (level_step_arguments.stored_pivots) leaves out the chain's reciprocal and its dependent
 * multiply-add, which set the pace of a thread walking a long branch alone, with the same bits.
 * A row depends on its morphology only (its branches' cut, its children's order), so one value
 * a row serves every copy of the cell. */
#define CONST_INVERSE_PIVOT(rows) ((size_t)(CONST_STRIDE + 1) * (size_t)(rows))
/* Then room for the channels' rate table for the batch's dt (CHANNEL_RATE_TABLE_SIZE,
 * mechanisms.h; level_batch_build leaves it zero, the batch's user fills it with
 * channel_rate_table_fill), read by steps with --hh-rates table. */
#define CONST_RATE_TABLE(rows) ((size_t)(CONST_STRIDE + 2) * (size_t)(rows))
/* Then every row's elimination factor without channels (off-diagonal x inverse pivot, the
 * product every passive sweep computes), at CONST_ROW_FACTOR(rows) + r: a passive step of the
 * level kernels (level_step_arguments.row_factors) reads it in its forward sweep instead of
 * storing each element's factor in the backward sweep and loading it back, 16 bytes of GPU
 * memory an element a step less, the same bits. Row 0 (CP padding): 0. */
#define CONST_ROW_FACTOR(rows) (CONST_RATE_TABLE(rows) + CHANNEL_RATE_TABLE_SIZE)
/* Then three columns for the branch kernel (codelets/branch_step.h, LEVEL_KERNEL_BRANCHES),
 * passive only. With constant pivots a branch's solution is affine in the two values its
 * neighbours give it: u, its junction's voltage, and C, the sum of what its children add to its
 * far end. So that kernel sweeps every branch at once as if both were 0 (X), solves the small
 * system of junctions, then adds each element's response: x = X + P u + Q C. Element rows hold
 * their P (CONST_BRANCH_P) and Q (CONST_BRANCH_Q); a system's first row (element 0) holds its
 * G (CONST_BRANCH_G), what it adds to its junction's rhs per unit of C (its contribution is
 * K = KR + G C, KR its grounded one). Filled with the inverse pivots (level_layout.c); a row
 * depends on its morphology and cut only. */
#define CONST_BRANCH_P(rows) (CONST_ROW_FACTOR(rows) + (size_t)(rows))
#define CONST_BRANCH_Q(rows) (CONST_BRANCH_P(rows) + (size_t)(rows))
#define CONST_BRANCH_G(rows) (CONST_BRANCH_Q(rows) + (size_t)(rows))
/* Doubles of the whole table for `rows` rows. */
#define CONST_TABLE_SIZE(rows) (CONST_BRANCH_G(rows) + (size_t)(rows))

enum level_order {
  LEVEL_ORDER_AUTO,   /* height with chunk links, depth with level links */
  LEVEL_ORDER_DEPTH,  /* the root branch at level 0 */
  LEVEL_ORDER_HEIGHT, /* every leaf branch in the last level */
};

/* Warp sweeps (GPU only; a CPU sweeps every system alone). One thread sweeping a branch alone
 * waits, element after element, for that element's loads and for its channels' arithmetic, so a
 * level lasts as long as its longest branch takes one thread: for a few hundred cells, almost the
 * whole step (the six shipped cells: 36 levels whose longest branches add up to 898 compartments).
 * A group of lanes of a warp (LEVEL_WARP_LANES: 8, 16 or 32) sweeping one branch loads and
 * assembles that many of its elements at once, one a lane, and only the elimination chain (a
 * multiply-add and a division an element) runs element after element, on every lane with the
 * values passed by shuffles: the same operations in the same order, so the same bits. Measured,
 * it streams elements about 8 times more slowly than thread sweeps, so a level gives warps only
 * to its longest systems, as many as level_warp_systems' cost model says pays. */
enum level_warps {
  LEVEL_WARPS_AUTO, /* the cost model */
  LEVEL_WARPS_OFF,  /* one thread per system everywhere */
  LEVEL_WARPS_ALL,  /* a warp per system everywhere */
};

/* How many of a level's systems (sizes, largest first: `top` is each one's swept length) a GPU
 * sweeps with a warp each. chunks_sharing: how many chunks' levels run on one GPU at once (they
 * share its bandwidth, so the level's elements stream that many times more slowly; at most 1
 * counts as 1). */
int level_warp_systems(const int *top, int systems, enum level_warps mode, int channels_everywhere,
                       int chunks_sharing);

/* The default trunk of branches (level_batch_options.trunk_systems_per_neuron), measured on the
 * H200 x2 machine (BENCHMARKS.md, "A trunk by default" and "A trunk up to 4 systems a neuron"):
 * up to the first level of 4 systems a neuron, at most 2.5 branches per 1,000 compartments and
 * 5 % of them, and only where the levels' longest branches add up to 300 compartments. Up to 4
 * rather than 2.5: two GPUs 0.7-3.5 % faster on every mix it changes (the large cells, mixes A,
 * B, D, test_swc alone), one GPU 0.3-0.8 % faster for the large cells, B and D, 0.4-0.6 % slower
 * for A and 1.2-1.6 % for test_swc alone; 6 with larger caps cost one GPU up to 3.3 %. */
#define LEVEL_TRUNK_AUTO (-1.0)
#define LEVEL_TRUNK_AUTO_SYSTEMS 4.0
#define LEVEL_TRUNK_AUTO_BRANCHES 2.5e-3
#define LEVEL_TRUNK_AUTO_SHARE 0.05
#define LEVEL_TRUNK_AUTO_CHAIN 300

struct level_batch_options {
  int neurons_per_chunk;
  /* Or, where not NULL, chunks of unequal sizes: chunk c holds chunk_neurons[c] neurons (each at
   * least 1, n_chunk_sizes of them adding up to the batch), neurons_per_chunk ignored. The
   * runtime cuts CPU cores' chunks smaller than GPUs' (runtime/multi_batch.c); a chunk's
   * neurons get the same bits whatever chunk they sit in. */
  const int *chunk_neurons;
  int n_chunk_sizes;
  int padded;      /* CP (1) or NCP (0) */
  int chunk_links; /* 1: links index the chunk's concatenated arrays; 0: the adjacent level's */
  enum level_order order;
  /* Trunk (chunk links only): the levels from the root up to the first one with at least this
   * many systems are swept by one thread per neuron instead of one kernel per level; 0: none. */
  int trunk_below;
  /* Or, where positive, the trunk of every chunk is the same levels: from the root up to the
   * first where the morphologies have on average at least this many systems a neuron (the
   * branch step's trunk: its sums regroup, so its levels may not depend on the chunks);
   * LEVEL_TRUNK_AUTO: the levels the morphologies call for (level_layout.c, trunk_levels_auto),
   * often none. */
  double trunk_systems_per_neuron;
  enum level_warps warps;
  int warp_lanes;          /* lanes per warp-swept system: 8, 16 or 32 (0: 16, the CLI default) */
  int channels_everywhere; /* the warp cost model's: channels on every compartment */
  /* The warp cost model's too: how many chunks run on one GPU at once (0 or 1: each chunk has
   * its GPU alone). Warps pay where a level's threads leave the GPU idle; the chunks beside it
   * fill it instead. */
  int chunks_per_gpu;
  /* With channels everywhere, a GPU builds the rows of the levels of fewer systems than this
   * apart (hines_level_kernels.h, enum level_rows): the warp cost model takes the passive costs
   * there. */
  int rows_apart_below;
  /* Leaf subtrees of at most this many compartments (and more than one branch) are one system
   * each (above); 0: every branch is a system. With CP a subtree's padding rows are not
   * computed on. */
  int subtree_compartments;
  /* Long branches (above): a chain system longer than this many compartments is cut into
   * segments of at most this many; 0: branches stay whole. */
  int split_compartments;
  /* Roots (1): each morphology's systems hang from its center (morphology_center) instead of its
   * soma. A step waits for the sweeps along the longest root-to-leaf path, and a soma near one
   * end of its cell (a long axon or apical trunk on one side) makes that path up to the whole
   * diameter: rooted at the middle it is about half (the Allen cell of morph/data: 661 -> 392
   * compartments, the deep chains 2,256 -> 1,129). Same matrix, rows in another order: the
   * elimination order changes, so do the last bits (every worker still computes the same ones).
   * Only where the center cuts that path by at least an eighth (else the soma stays the root).
   * Kernels see compartment numbers relative to the soma (level_batch.soma_compartment): the
   * soma is 0 as the mechanisms' and the stimulus' placements expect, so the caller asks for
   * this only with the stimulus at the soma (compartment 0). */
  int reroot;
  /* Where positive, the last this many neurons (at most n_neurons - n_morphologies) are laid
   * out grouped by morphology (all the tail's copies of one cell, then the next's, each group in
   * the neurons' order) instead of in the neurons' round-robin order; chunks hold consecutive
   * positions, so the chunks cut from that tail hold copies of one cell (level_arranged_cut; of one
   * or two where chunks are fewer than cells). Why: a CPU core
   * sweeps the rows of a level across its systems, and copies of a cell give it rows of equal
   * length and one constants row for the whole run (level_rows_cpu.h); the cores' share of a
   * batch is its last, smallest chunks, a few neurons each, which round-robin makes a few
   * different cells. Dev machine, one core, passive, the level kernels in chunks of 4 neurons,
   * the 11 cells of the large-cell and shipped mixes: each cell's 8 copies alone (two chunks of 4
   * copies) 1.66-1.68 ms a step for the 11 together, against 2.62-2.65 for the 88 neurons
   * round-robin. A neuron's bits do not depend on its chunk. */
  int arranged_tail;
  /* With arranged_tail, where not NULL: n_morphologies counts, the first tail_lead[m] copies of
   * each cell m in the tail laid out before the rest (level_arranged_fill_lead), for the chunk
   * before the tail's chunks to end with (level_aligned_lead). */
  const int *tail_lead;
};

/* The trunk of a chunk: the levels 0 .. tail_levels - 1 (few systems each, so a kernel per
 * level would be latency-bound), swept neuron by neuron. One int array:
 *   [TRUNK_THREADS] neurons with systems there, [TRUNK_LEVELS] tail_levels,
 *   then ints_offset, element_offset, system_offset of each tail level (tail_levels each),
 *   then list_first[threads + 1], then the lists: (level, system) pairs, deepest level first
 *   (the backward order; the forward sweep reads each list backwards). */
enum trunk_header { TRUNK_THREADS, TRUNK_LEVELS, TRUNK_HEADER_SIZE };

struct level_batch {
  int n_neurons, n_chunks, n_levels, padded, chunk_links;
  enum level_warps warps;
  int warp_lanes, channels_everywhere, rows_apart_below, chunks_per_gpu;
  enum level_order order; /* depth or height, never AUTO */
  int n_morphologies;
  /* Neuron k has morphologies[k % n_morphologies], as given, except that its "branches" are the
   * batch's systems: with leaf subtrees, each subtree is one branch of these copies, with long
   * branches cut, each segment is one (they share
   * the given morphologies' compartment arrays and own only their branch arrays). */
  const struct morphology *morphologies;
  struct morphology *units; /* those copies (owned), or NULL: morphologies are the given ones */
  int subtree_compartments, split_compartments;
  /* Rooted at their centers (level_batch_options.reroot): the re-rooted copies (owned; the units
   * above, when there are, share their compartment arrays), and for each morphology where its
   * compartment i went (internal_compartment[m][i]) and back (user_compartment[m][internal]);
   * NULL without. soma_compartment[m]: the internal number of the soma (0 without), which the
   * blocks' first_compartment values are relative to. */
  struct morphology *rerooted;
  int **internal_compartment, **user_compartment;
  int *soma_compartment;
  /* Chunk c holds positions chunk_first_neuron[c] .. chunk_first_neuron[c + 1] - 1; position p
   * holds neuron p, or position_neuron[p] where the batch has an arranged tail
   * (level_batch_options.arranged_tail; neuron_position is the inverse). Use
   * level_batch_neuron_at and level_batch_chunk_of. */
  int *chunk_first_neuron;                /* [n_chunks + 1] */
  int *position_neuron, *neuron_position; /* [n_neurons] each, or NULL */
  int **blocks;      /* [chunk * n_levels + level] -> int description (NULL if empty) */
  double *constants; /* CONST_TABLE_SIZE(constant_rows) */
  int constant_rows;
  int *morphology_row; /* first constants row of each morphology */
  /* Where each neuron's branches went: system index of branch b of neuron k is
   * branch_system[branch_offset[k] + b] in block (chunk of k, level of b). */
  long long *branch_offset;
  int *branch_system;
  int **branch_level; /* [morphology][branch]: the level a branch is stored at */
  /* Where level L of chunk c starts in the chunk's concatenated arrays, at
   * [c * (n_levels + 1) + L]: its description (ints), its values (elements) and its systems.
   * An empty level keeps one element and one system, so every per-level piece exists. */
  size_t *ints_offset, *element_offset, *system_offset;
  int **trunk;        /* [chunk]: the trunk array above, NULL without a trunk */
  size_t *trunk_ints; /* [chunk]: its length */
  long long total_compartments;
};

/* Builds the level blocks for n_neurons neurons (morphologies repeated round-robin) split into
 * chunks of options->neurons_per_chunk neurons (or options->chunk_neurons). HINES_BAD_INPUT for bad
 * sizes, cable parameters, or height order with adjacent-level links. */
int level_batch_build(const struct morphology *morphologies, int n_morphologies, int n_neurons,
                      const struct level_batch_options *options,
                      const struct cable_parameters *cable, double dt_ms, struct level_batch *out,
                      struct hines_error *err);
/* level_batch_build in three calls, so that the chunks' level blocks can be built at once:
 * level_batch_begin does everything but them (*build: what the other two need; NULL on failure),
 * level_batch_build_chunk builds chunk `chunk`'s (chunks apart write disjoint memory: the calls
 * for different chunks may run at the same time, each with its own err), and level_batch_end
 * finishes given the first failing chunk's status (0: none) and frees the build; begin and end
 * free `out` when they fail. level_batch_build is begin, each chunk in order, end. */
struct level_build;
int level_batch_begin(const struct morphology *morphologies, int n_morphologies, int n_neurons,
                      const struct level_batch_options *options,
                      const struct cable_parameters *cable, double dt_ms, struct level_batch *out,
                      struct level_build **build, struct hines_error *err);
int level_batch_build_chunk(struct level_build *build, int chunk, struct hines_error *err);
/* level_batch_build_chunk in finer calls, for a batch of fewer chunks than cores (with channels a
 * GPU takes the batch as one chunk): level_batch_build_levels builds the chunk's level blocks
 * first_level .. last_level - 1 (calls for disjoint levels, or chunks, may run at the same time),
 * and once all of a chunk's are built level_batch_link_chunk lays them end to end and links
 * them (offsets, junctions, children, trunk). level_batch_level_groups cuts a chunk's levels
 * into at most `groups` runs of about equal compartments, first_level[0 .. made] (made + 1
 * entries, the last n_levels), and returns made (1 and one run when out of memory). */
int level_batch_build_levels(struct level_build *build, int chunk, int first_level, int last_level,
                             struct hines_error *err);
int level_batch_link_chunk(struct level_build *build, int chunk, struct hines_error *err);
int level_batch_level_groups(const struct level_build *build, int chunk, int groups,
                             int *first_level);
int level_batch_end(struct level_build *build, int status, struct hines_error *err);
void level_batch_free(struct level_batch *batch);

/* The neuron at layout position `position` (level_batch.chunk_first_neuron). */
static inline int level_batch_neuron_at(const struct level_batch *batch, int position) {
  return batch->position_neuron ? batch->position_neuron[position] : position;
}

/* The chunk holding neuron `neuron`. */
static inline int level_batch_chunk_of(const struct level_batch *batch, int neuron) {
  const int position = batch->neuron_position ? batch->neuron_position[neuron] : neuron;
  return level_last_at_most(batch->chunk_first_neuron, batch->n_chunks, position);
}

/* The neuron at position `position` of a batch of n_neurons neurons of n_morphologies
 * morphologies (neuron k: morphology k % n_morphologies) whose last `tail` neurons are arranged
 * by morphology (level_batch_options.arranged_tail; 0: none). */
int level_arranged_neuron(int n_neurons, int n_morphologies, int tail, int position);
/* The same for every position of the tail at once, in O(n_neurons): tail_neurons[i] is the
 * neuron at position n_neurons - tail + i (level_arranged_neuron takes O(n_morphologies)). */
void level_arranged_fill(int n_neurons, int n_morphologies, int tail, int *tail_neurons);
/* The same with the first lead[m] copies of each cell m first (in the cells' order), then the
 * others as level_arranged_fill lays them out (lead NULL: level_arranged_fill). */
void level_arranged_fill_lead(int n_neurons, int n_morphologies, int tail, const int *lead,
                              int *tail_neurons);

/* Cuts such a tail (tail neurons, at least `chunks`) into `chunks` chunks of consecutive
 * positions holding about as many compartments each, a neuron at least: sizes[c] neurons in
 * chunk c. Arranged, a chunk of copies of a large cell holds many times the compartments of one
 * of a small cell, so chunks of equal neurons would give cores unequal work. Where a cut would
 * leave a chunk fewer than LEVEL_ARRANGED_RUN copies of a cell beside another cell's, it moves to
 * that cell's first or last copy (whichever is nearer the chunk's part), for cells with as many
 * copies in the tail: a core sweeps such a fragment's branches one system at a time between the
 * other cell's runs (codelets/level_rows_cpu.h), and a chunk of 7 copies of one large cell and 1
 * of another took 3.1-3.5 times as long a compartment as one of 8 copies (dev machine, one core;
 * about 2.7 times since those sweeps visit only the gathered stretches).
 * In the share's traces on the H200 machine (trace101) those chunks were its slowest, and on A
 * their chain of tasks ended after the GPU's. That is the equal cut (level_arranged_cut_copies
 * with min_copies 0); level_arranged_cut cuts by cells where it can (LEVEL_ARRANGED_MIN_COPIES). */
void level_arranged_cut(const struct morphology *morphologies, int n_morphologies, int n_neurons,
                        int tail, int chunks, int *sizes);
/* (LEVEL_ROWS_RUN of codelets/level_rows_cpu.h: the copies a core walks along their own rows) */
#define LEVEL_ARRANGED_RUN 4
/* The same, with `min_copies` > 1 cut by cells: each cell's copies in chunks of their own, no
 * fewer than min_copies copies a chunk unless that makes a chunk more than
 * LEVEL_ARRANGED_CELL_GROWTH times the equal cut's compartments, the other chunks to the cells
 * with copies to spare (the equal cut where the tail holds more cells than chunks, or too few
 * copies). Why: a core sweeps a chunk of few copies of a large cell slowly, and the equal cut
 * gives a large cell few copies a chunk: B's share of 210-270 neurons in 30 chunks held 2-4
 * copies of test_swc (26,268 compartments) a chunk, which ran 3.6-5.6 ns a compartment-step on
 * one core of the dev machine against 2.0-2.8 for 6-16 copies (level kernels, tasks of 8 steps).
 * level_arranged_cut cuts with LEVEL_ARRANGED_MIN_COPIES (0: the equal cut). With 8 (the
 * fiftieth session's build, cells105, 16 cores beside one H200) the chunks' unequal sizes left 15
 * CPU workers busy 1.37-1.55x apart against 1.09-1.15x for the equal cut, and the larger share
 * the faster chunks got lost on D in 3 rounds of 4 (0.936-0.993x), the large cells in 2 of 4
 * (0.834-0.999x) and B in 1 of 4 (0.878x); E gained (1.036-1.061x in 4). */
void level_arranged_cut_copies(const struct morphology *morphologies, int n_morphologies,
                               int n_neurons, int tail, int chunks, int min_copies, int *sizes);
/* level_arranged_cut of the tail's positions past its `lead` copies of each cell (laid out at
 * its front: level_arranged_fill_lead; another chunk's), the `chunks` sizes adding up to the
 * tail less the lead's; lead NULL: level_arranged_cut. */
void level_arranged_cut_after(const struct morphology *morphologies, int n_morphologies,
                              int n_neurons, int tail, const int *lead, int chunks, int *sizes);
/* 2: every cell's copies in chunks of their own wherever the tail has no more cells than chunks,
 * the chunks given a cell by its compartments (as near equal as whole chunks a cell allow). The
 * equal cut's chunks that hold two cells ran 1.4-1.7 times as long a compartment as their
 * neighbours beside the GPU (trace of E's share, H200 machine, 2026-12-02: 2.2-2.6 ns a
 * compartment-step against 1.4-1.9, the cores' last chains), so the cores ended late where a cut
 * grew. Measured against the equal cut (H200 machine, 16 cores, calibrated dmdas, nine mixes of
 * ~82 M, each build from fresh homes in three calls, 36 rounds each, BENCHMARKS.md, "The cores'
 * chunks one cell each"): 1.023-1.087x the GPU alone, mean 1.056x, 34 rounds at 1.03x or more,
 * none below 1.00x, against 0.913-1.083x, mean 1.045x, 31 and 2 (the six cells at a cut of 2,670:
 * 1.080-1.087x against 0.913-0.992x, the cores' busiest worker 988 ms against 1,140-1,254). */
#ifndef LEVEL_ARRANGED_MIN_COPIES
#define LEVEL_ARRANGED_MIN_COPIES 2
#endif
/* (2.0 measured beside the H200 in cells105 with 8 copies a chunk at least; with 2 it seldom
 * binds: a cell may take up to half its copies' count in chunks) */
#ifndef LEVEL_ARRANGED_CELL_GROWTH
#define LEVEL_ARRANGED_CELL_GROWTH 2.0
#endif

/* Copies of every cell in a chunk that make each of its level rows start on a warp's first
 * thread. A row holds the systems longer than its element (copies of one branch side by side), so
 * when a chunk holds c copies of every cell each row holds c times a whole number of systems and
 * each level c times a whole number of elements; with c a multiple of 32 every warp of a level
 * kernel sweeps copies of one branch (one length, no divergence) and its 32 loads of a row are two
 * whole 128-byte lines. 16 (every row on a line, a warp over two branches' copies) was the rule
 * until 2026-12-02. Measured on the H200 (sizes56, GPU alone, 1,000 steps): B x 8,192 (chunks of
 * 512 copies of each cell) 84.5-84.9 G compartment-steps/s against 75.6 for B x 8,330 and
 * 75.6-77.6 for 8,060 to 8,210; then (warps106, GPU alone, four chunks, two or four rounds, ms a
 * step) 32 against 16: all 15 cells x 16,356 1.021-1.023 against 1.062-1.065, D x 7,404
 * 0.923-0.928 against 0.955-0.958, the large cells x 6,643 0.929-0.931 against 0.950-0.952, B x
 * 8,330 0.963-0.966 against 0.981-0.985, the six cells x 33,390 1.172-1.176 against
 * 1.197-1.199, C x 11,720 0.988-0.991 against 1.002-1.005, A x 8,820 0.868-0.870 against
 * 0.875-0.882, E x 18,711 and random trees x 23,585 even; random trees cut to 23,296 (chunks of
 * 91 sets of 16, odd) 0.980 against 1.009-1.011. */
#ifndef LEVEL_ALIGNED_COPIES
#define LEVEL_ALIGNED_COPIES 32
#endif

/* The units (LEVEL_ALIGNED_COPIES copies of every cell) a chunk holds at least for the runtime's
 * default cut to align it: LEVEL_ALIGNED_MIN_COPIES copies of every cell, so that the rest's chunk,
 * less than a unit, holds less than a quarter of a chunk and the GPU it joins carries at most that
 * much more (a batch of many cells, whose unit is large, keeps the equal cut). With units of 16
 * copies this was 8 units: the same 128 copies. */
#define LEVEL_ALIGNED_MIN_COPIES 128
/* (level_aligned_cut takes fewer than 1 as 1; LEVEL_ALIGNED_COPIES 0 aligns nothing) */
#define LEVEL_ALIGNED_MIN_UNITS                                                                    \
  (LEVEL_ALIGNED_MIN_COPIES / (LEVEL_ALIGNED_COPIES > 0 ? LEVEL_ALIGNED_COPIES : 1))

/* Cuts the first `neurons` neurons of a round-robin batch (neuron k: morphology
 * k % n_morphologies) into `chunks` chunks of LEVEL_ALIGNED_COPIES copies of every cell times a
 * whole number (as equal as may be), then, if neurons are left (fewer than LEVEL_ALIGNED_COPIES x
 * n_morphologies), one chunk of them: sizes[c] neurons in chunk c (room for chunks + 1). The
 * chunks fall in `groups` groups of consecutive chunks (chunk c in group c * groups / chunks: the
 * GPUs, as placement_home_node homes them), the units past an equal share dealt one a group in
 * turn: groups of as many chunks differ by one unit at most, the first the larger (the rest's
 * chunk joins the last group; `groups` below 1 is 1, above `chunks` is `chunks`). Returns
 * `chunks`, *rest 1 when the chunk of the rest follows them; 0 (no cut) when the batch holds
 * fewer than min_units units a chunk (or LEVEL_ALIGNED_COPIES is 0). */
int level_aligned_cut(int neurons, int n_morphologies, int chunks, int groups, int min_units,
                      int *sizes, int *rest);

/* For a batch of `neurons` whose last `cpu_share` neurons are the cores' (in `cpu_chunks`
 * chunks) and whose first are the GPUs' in `gpu_chunks` chunks cut by level_aligned_cut: how many
 * neurons the cores' share changes by so that the GPUs' part holds whole units and no chunk of
 * the rest is left beside the aligned ones. The cores take the neurons left over beyond whole
 * units where they add at most `growth` times their share; else they give the GPUs the rest's
 * complement (a negative shift) where that is at most `give` times the GPUs' part (so the GPUs'
 * time grows by about that much, less than the rest's chunk costs) and leaves the cores a neuron
 * a chunk; else 0, as where none are left or the GPUs' part is not cut. Why give: on the
 * H200 (cells105, six calls, builds with the equal cut) the rounds whose GPUs ran a chunk of the
 * rest against those with none: B x 8,330 1.005-1.022x the GPU alone (7 rounds: 56 neurons left
 * beside 210 on the cores, 60 beside 270, 37 beside 165) against 1.021-1.037x (12: 202 to 458), C
 * x 11,720 1.042-1.046x (4) against 1.030-1.080x (8, median 1.058x), D x 7,404 1.044-1.052x (3,
 * 240) against 1.059-1.077x (13, 236), the large cells x 6,643 1.036-1.046x (4) against
 * 1.058-1.071x (11); all 15 cells 1.076-1.078x (3) against 1.001-1.112x (7). A complement of 37 of
 * the cores' 120 (the large cells, whole66) had lost: 1.017-1.019x against 1.030-1.033x. */
int level_aligned_share_shift(int neurons, int n_morphologies, int gpu_chunks, int min_units,
                              int cpu_share, int cpu_chunks, double growth, double give);

/* The cores' share grown to the GPUs' next whole units (LEVEL_ALIGNED_COPIES copies of every
 * cell) for a batch of `neurons` whose last `cpu_share` are the cores' and whose GPUs' part is cut
 * in `gpu_chunks` chunks: cpu_share plus the neurons the GPUs' part holds beyond whole units (its
 * chunk of the rest) where it holds some, else plus a whole unit; where that leaves the GPUs
 * min_units units a chunk at least, takes at most half the batch and at most `growth` times
 * cpu_share; else 0. The share the multi batch probes (share_set_up in multi_batch.c). */
int level_aligned_set_up(int neurons, int n_morphologies, int gpu_chunks, int min_units,
                         int cpu_share, double growth);

/* The compartments of a round-robin batch's last `tail` neurons less `lead[m]` copies of each
 * cell m (NULL: none): a share laid out as level_aligned_lead lays it out. */
long long level_arranged_compartments(const struct morphology *morphologies, int n_morphologies,
                                      int n_neurons, int tail, const int *lead);

/* The cores' share past `units` whole units (LEVEL_ALIGNED_COPIES copies of every cell, the GPUs'
 * first neurons) of a batch of `neurons`, its tail laid out by morphology with `lead[m]` copies of
 * each cell m at its front, LEVEL_ALIGNED_COPIES at a time, that the GPUs' last aligned chunk
 * takes (level_batch_options.tail_lead): the most compartments of such warps that leave the cores
 * `target` compartments at least (a knapsack on a grid of 4,096 steps, then any warp that still
 * fits exactly; none where the tail holds `target` or fewer). Returns the share in neurons (0
 * where the GPUs' units leave no tail), its compartments in *share_compartments. Why: a level
 * row holds the copies of one branch side by side, so a chunk with any cell's copies 32 at a time
 * more still starts every row on a warp's first thread, and the share moves by warps of a cell
 * instead of whole units (128 neurons for D's four cells, 160 and 3 % of a 60 M batch for the
 * large cells, where the cores idled: A x 5,000 took 104 neurons, its cores busy 0.56-0.69 of
 * the step, 1.002-1.015x the GPU alone, H200 machine, small122). */
int level_aligned_lead(const struct morphology *morphologies, int n_morphologies, int neurons,
                       int units, double target, int *lead, long long *share_compartments);

/* The user's number (as the morphology was given) of the compartment a block calls
 * first_compartment[s] + j, for a system s of neuron `neuron`. */
int level_batch_user_compartment(const struct level_batch *batch, int neuron, int relative);

/* Where compartment i of neuron k (the user's numbering) is stored: the level block and the
 * element index in it. */
void level_batch_locate(const struct level_batch *batch, int neuron, int compartment, int *block,
                        int *element);

#endif
