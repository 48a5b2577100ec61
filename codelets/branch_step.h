/* The branch step of a level-solved chunk (LEVEL_KERNEL_BRANCHES, issue #19: small batches).
 * The level kernels, the cell-block and on-chip kernels all sweep level after level, so a step
 * waits for the sum over levels of the longest branch there (a CA1 cell: 17 levels, 327
 * elements a sweep) however few cells there are. Without channels every pivot is a constant
 * (CONST_INVERSE_PIVOT), and then each branch's solution is affine in the two values that couple
 * it to the rest of its tree: u, the voltage of its junction, and C, the sum of what its child
 * branches add to its far end's rhs. So a step goes in three phases, three launches per part:
 *   A. every branch of the part at once (a thread a system, in the level arrays' order, so a
 *      warp walks copies of one branch side by side), as if u = 0 and C = 0: its elimination
 *      chain (its grounded contribution KR) then its substitution chain (X, its grounded
 *      voltages, and X at its far end, XL). A step now waits for the longest branch, not the
 *      levels' sum.
 *   B. the junctions, each thread block owning a few neurons (the cell-block schedule,
 *      codelets/cell_block.h) in shared memory, level by level but one multiply-add a branch:
 *      deepest first, each branch's C (its children's contributions, in their fixed order) and
 *      contribution K = KR + G C; then from the root, each chain's far-end voltage X + P u + Q C
 *      from its junction's u.
 *   C. every branch at once again: each element's x = X + P u + Q C (P, Q, G: level_layout.h,
 *      CONST_BRANCH_*).
 * Same data as the level kernels (NCP, any cut, subtrees, roots); a leaf subtree has no children
 * (Q = 0): its phase A is the level kernels' subtree sweeps with u = 0. The voltages agree with
 * the level solver's to rounding, not bit for bit (the sums are regrouped); the host emulation
 * and the CUDA kernels (hines_branch_cuda.cu) compute the same operations in the same order, so
 * CPU and GPU workers give the same bits.
 * Between phases, system g of the part (its index in the part's arrays) keeps in
 * contribution[2g], [2g + 1]: XL and KR after A, u and C after B; X stays in the voltages. */
#ifndef HINES_BRANCH_STEP_H
#define HINES_BRANCH_STEP_H

#include "cell_block.h"

/* Threads a block at most (one a system where a block has no more systems). */
#define BRANCH_MAX_THREADS 512
/* Elements whose loads a thread issues together in phase A and C (the arithmetic and its order
 * do not depend on it). */
#ifndef BRANCH_GROUP
#define BRANCH_GROUP 8
#endif

/* After the cell-block schedule (at branch_links_of): [BRANCH_MOST_ITEMS] the most systems a
 * block has, [BRANCH_SYSTEMS] the part's systems, [BRANCH_MOST_CHILDREN] the most child links a
 * block has, then for every item i of the schedule's list (a block's systems, levels in order)
 * parent[i], its junction's system as an item of the same block (-1: a root), then its children
 * as items of the same block, child[child_first[i]] .. child[child_first[i + 1] - 1], in the
 * level layout's child order (the sums' order). A block's values between phases are indexed by
 * item - the block's first: K (KR, then K), C, X (XL, then a chain's far-end voltage). */
enum branch_header { BRANCH_MOST_ITEMS, BRANCH_SYSTEMS, BRANCH_MOST_CHILDREN, BRANCH_HEADER_SIZE };

/* A schedule over the levels nearest the roots only (the trunk, branch_schedule_build_top) has
 * children below its levels, solved by the level kernels before it: such a child is listed as
 * BRANCH_CHILD_BELOW(its system in the chunk), a negative number, and phase B adds its
 * contribution from the level kernels' contributions before its items' own (the level kernels'
 * contribution of a system is what the branch kernel calls its K). */
#define BRANCH_CHILD_BELOW(system) (-1 - (system))

/* base: the item parent[0] and child_first[0] stand for (0 in the schedule; a GPU block copies
 * its own links to shared memory, child_first then counted from its first child). */
struct branch_links {
  int most_items, systems, most_children; /* systems: the part's, every level's */
  int base;
  const int *parent, *child_first, *child;
};

static inline HINES_HOST_DEVICE struct branch_links
branch_links_of(const struct cell_schedule_view *c) {
  const int items = c->first[(size_t)c->blocks * c->levels];
  const int *at = c->system + items;
  struct branch_links l;
  l.most_items = at[BRANCH_MOST_ITEMS];
  l.systems = at[BRANCH_SYSTEMS];
  l.most_children = at[BRANCH_MOST_CHILDREN];
  l.base = 0;
  l.parent = at + BRANCH_HEADER_SIZE;
  l.child_first = l.parent + items;
  l.child = l.child_first + items + 1;
  return l;
}

/* A block's values of its items in phase B (index: item - the block's first; shared memory on
 * a GPU): k (KR, then K), sum (C), x (XL, then a chain's far-end voltage), and what phase B reads
 * of the constants: g (G), p and q (P and Q of a chain's far end), far_end (where a chain's far
 * end is in the part's voltages; -1 for a subtree). */
struct branch_block_values {
  double *k, *sum, *x, *g, *p, *q;
  int *far_end;
};
#define BRANCH_VALUE_DOUBLES 7 /* doubles an item takes (far_end in the last) */

static inline HINES_HOST_DEVICE struct branch_block_values branch_block_values_at(double *base,
                                                                                  int most_items) {
  struct branch_block_values b;
  b.k = base;
  b.sum = b.k + most_items;
  b.x = b.sum + most_items;
  b.g = b.x + most_items;
  b.p = b.g + most_items;
  b.q = b.p + most_items;
  b.far_end = (int *)(b.q + most_items);
  return b;
}

/* The shared memory a GPU block of phase B takes: its items' values and a copy of its links. */
static inline HINES_HOST_DEVICE size_t branch_shared_bytes(const struct branch_links *l) {
  return BRANCH_VALUE_DOUBLES * sizeof(double) * (size_t)l->most_items +
         sizeof(int) * (2 * (size_t)l->most_items + 1 + (size_t)l->most_children);
}

/* Phase A for system s of a level (v; voltage: that level's values): KR and XL. Loads go in
 * groups of BRANCH_GROUP, all issued before the group's arithmetic (a GPU thread walking a
 * branch alone would otherwise wait a memory latency an element); the arithmetic and its order
 * do not depend on the group. */
static inline HINES_HOST_DEVICE void branch_grounded_system(const struct level_block_view *v, int s,
                                                            const double *LEVEL_RESTRICT constants,
                                                            const struct level_step_arguments *args,
                                                            double *voltage,
                                                            double *grounded_contribution,
                                                            double *grounded_far_end) {
  const double *inverse = constants + CONST_INVERSE_PIVOT(args->constant_rows);
  const double *row_factor = constants + CONST_ROW_FACTOR(args->constant_rows);
  if (v->trees && v->tree[s] >= 0) { /* no children: the level kernels' sweeps, from u = 0 */
    double contribution[2];
    level_backward_tree_into(v, s, constants, args, voltage, 0, contribution, 0, 0, 1, inverse,
                             row_factor, -1);
    level_forward_tree_from(v, s, voltage, 0, row_factor, 0);
    *grounded_contribution = contribution[1];
    *grounded_far_end = 0.0;
    return;
  }
  const int size = v->size[s], first_row = v->first_row[s];
  const int stimulated = args->stimulus.compartment - v->first_compartment[s];
  const double injected = stimulated >= 0 && stimulated < size
                              ? stimulus_current(&args->stimulus, v->neuron[s], args->time_ms)
                              : 0.0;
  if (HINES_ON_GPU)
    for (int j = 0; j < size; j++)
      HINES_PREFETCH_L2(voltage + v->row_offset[j] + s);
  double previous_factor = 0.0, previous_rhs = 0.0;
  for (int group = size - 1; group >= 0; group -= BRANCH_GROUP) { /* elimination, C = 0 */
    int e[BRANCH_GROUP] = {0};
    double old[BRANCH_GROUP] = {0}, c_over_dt[BRANCH_GROUP] = {0}, leak[BRANCH_GROUP] = {0},
           inv[BRANCH_GROUP] = {0}, f[BRANCH_GROUP] = {0};
    LEVEL_UNROLL
    for (int b = 0; b < BRANCH_GROUP; b++)
      if (group - b >= 0) {
        const int r = first_row + group - b;
        const double *row = constants + (size_t)r * CONST_STRIDE;
        e[b] = v->row_offset[group - b] + s;
        old[b] = voltage[e[b]];
        c_over_dt[b] = row[CONST_C_OVER_DT];
        leak[b] = row[CONST_LEAK_CURRENT];
        inv[b] = inverse[r];
        f[b] = row_factor[r];
      }
    LEVEL_UNROLL
    for (int b = 0; b < BRANCH_GROUP; b++)
      if (group - b >= 0) {
        const int j = group - b;
        double dj, rj;
        /* the diagonal is dead (the pivot is stored): 0 in its place */
        membrane_row(0.0, c_over_dt[b], leak[b], old[b], j == stimulated ? injected : 0.0, &dj,
                     &rj);
        (void)dj;
        if (j < size - 1)
          rj = fma(-previous_factor, previous_rhs, rj);
        previous_factor = f[b];
        voltage[e[b]] = rj * inv[b];
        previous_rhs = rj;
      }
  }
  *grounded_contribution = previous_factor * previous_rhs; /* KR */
  double x = 0.0;
  for (int group = 0; group < size; group += BRANCH_GROUP) { /* substitution, u = 0 */
    int e[BRANCH_GROUP] = {0};
    double scaled_rhs[BRANCH_GROUP] = {0}, f[BRANCH_GROUP] = {0};
    LEVEL_UNROLL
    for (int b = 0; b < BRANCH_GROUP; b++)
      if (group + b < size) {
        e[b] = v->row_offset[group + b] + s;
        scaled_rhs[b] = voltage[e[b]];
        f[b] = row_factor[first_row + group + b];
      }
    LEVEL_UNROLL
    for (int b = 0; b < BRANCH_GROUP; b++)
      if (group + b < size) {
        x = fma(-f[b], x, scaled_rhs[b]);
        voltage[e[b]] = x;
      }
  }
  *grounded_far_end = x; /* XL */
}

/* Phase B, backward, item i of a block whose first item is `base`: its C from its children's
 * K, its K over its KR. */
static inline HINES_HOST_DEVICE void branch_junction_backward(const struct branch_links *links,
                                                              int i, int base,
                                                              const struct branch_block_values *b) {
  double c = b->sum[i - base]; /* the children below the schedule's (0.0 without) */
  const int at = i - links->base;
  for (int n = links->child_first[at]; n < links->child_first[at + 1]; n++)
    if (links->child[n] >= 0)
      c += b->k[links->child[n]];
  b->k[i - base] = fma(b->g[i - base], c, b->k[i - base]);
  b->sum[i - base] = c;
}

/* Phase B, forward, item i: a chain's far-end voltage from its junction's, into x and the
 * part's voltages. */
static inline HINES_HOST_DEVICE void branch_junction_forward(const struct branch_links *links,
                                                             int i, int base, double *voltage,
                                                             const struct branch_block_values *b) {
  const int at = i - base, parent = links->parent[i - links->base];
  if (b->far_end[at] < 0)
    return;
  const double u = parent >= 0 ? b->x[parent] : 0.0;
  b->x[at] = fma(b->q[at], b->sum[at], fma(b->p[at], u, b->x[at]));
  voltage[b->far_end[at]] = b->x[at];
}

/* Phase C, system s of a level: every element but a chain's far end (phase B's) from its X,
 * given its junction's voltage u and its C. */
static inline HINES_HOST_DEVICE void branch_response_system(const struct level_block_view *v, int s,
                                                            const double *LEVEL_RESTRICT constants,
                                                            const struct level_step_arguments *args,
                                                            double *voltage, double u, double c) {
  const int first_row = v->first_row[s];
  const int count = v->trees && v->tree[s] >= 0 ? v->size[s] : v->size[s] - 1;
  const double *p = constants + CONST_BRANCH_P(args->constant_rows) + first_row;
  const double *q = constants + CONST_BRANCH_Q(args->constant_rows) + first_row;
  for (int group = 0; group < count; group += BRANCH_GROUP) {
    int e[BRANCH_GROUP] = {0};
    double grounded[BRANCH_GROUP] = {0}, pj[BRANCH_GROUP] = {0}, qj[BRANCH_GROUP] = {0};
    LEVEL_UNROLL
    for (int b = 0; b < BRANCH_GROUP; b++)
      if (group + b < count) {
        e[b] = v->row_offset[group + b] + s;
        grounded[b] = voltage[e[b]];
        pj[b] = p[group + b];
        qj[b] = q[group + b];
      }
    LEVEL_UNROLL
    for (int b = 0; b < BRANCH_GROUP; b++)
      if (group + b < count)
        voltage[e[b]] = fma(qj[b], c, fma(pj[b], u, grounded[b]));
  }
}

/* A block's items are its systems over all levels, as one list (the cell-block schedule's, levels
 * in order): item i's level. */
static inline HINES_HOST_DEVICE int branch_item_level(const struct cell_schedule_view *c, int block,
                                                      int i) {
  return level_last_at_most(c->first + (size_t)block * c->levels, c->levels, i);
}

/* The level of system g of the part (system_offset: where each of the part's levels starts). */
static inline HINES_HOST_DEVICE int branch_system_level(const struct cell_schedule_view *c, int g) {
  return level_last_at_most(c->system_offset, c->levels, g);
}

/* Phase A, system g of the part. */
static inline HINES_HOST_DEVICE void branch_grounded_at(const int *part_ints,
                                                        const struct cell_schedule_view *c, int g,
                                                        const double *LEVEL_RESTRICT constants,
                                                        const struct level_step_arguments *args,
                                                        double *voltage, double *contribution) {
  const int level = branch_system_level(c, g);
  const struct level_block_view v = level_block_describe(part_ints + c->ints_offset[level]);
  if (g - c->system_offset[level] >= v.systems)
    return; /* an empty level's place holder */
  double grounded_contribution, grounded_far_end;
  branch_grounded_system(&v, g - c->system_offset[level], constants, args,
                         voltage + c->element_offset[level], &grounded_contribution,
                         &grounded_far_end);
  contribution[2 * (size_t)g] = grounded_far_end;
  contribution[2 * (size_t)g + 1] = grounded_contribution;
}

/* Phase C, system g of the part. */
static inline HINES_HOST_DEVICE void
branch_response_at(const int *part_ints, const struct cell_schedule_view *c, int g,
                   const double *LEVEL_RESTRICT constants, const struct level_step_arguments *args,
                   double *voltage, const double *contribution) {
  const int level = branch_system_level(c, g);
  const struct level_block_view v = level_block_describe(part_ints + c->ints_offset[level]);
  if (g - c->system_offset[level] >= v.systems)
    return;
  branch_response_system(&v, g - c->system_offset[level], constants, args,
                         voltage + c->element_offset[level], contribution[2 * (size_t)g],
                         contribution[2 * (size_t)g + 1]);
}

/* Phase B's first step, item i of a block whose first item is `base` (of `level`): its values
 * from phase A and the constants, and the sum of its children's below the schedule's levels
 * (links: the schedule's own, links->base 0). */
static inline HINES_HOST_DEVICE void
branch_junction_load(const int *part_ints, const struct cell_schedule_view *c,
                     const struct branch_links *links, int level, int i, int base,
                     const double *LEVEL_RESTRICT constants,
                     const struct level_step_arguments *args, const double *contribution,
                     const struct branch_block_values *b) {
  const struct level_block_view v = level_block_describe(part_ints + c->ints_offset[level]);
  const int s = c->system[i], at = i - base, rows = args->constant_rows;
  const size_t g = (size_t)c->system_offset[level] + (size_t)s;
  const int first_row = v.first_row[s], last = v.size[s] - 1;
  b->x[at] = LEVEL_LOAD_PRODUCED(&contribution[2 * g]);
  b->k[at] = LEVEL_LOAD_PRODUCED(&contribution[2 * g + 1]);
  b->g[at] = constants[CONST_BRANCH_G(rows) + first_row];
  b->p[at] = constants[CONST_BRANCH_P(rows) + first_row + last];
  b->q[at] = constants[CONST_BRANCH_Q(rows) + first_row + last];
  b->far_end[at] =
      v.trees && v.tree[s] >= 0 ? -1 : c->element_offset[level] + v.row_offset[last] + s;
  double below = 0.0;
  for (int n = links->child_first[i]; n < links->child_first[i + 1]; n++)
    if (links->child[n] < 0)
      below += LEVEL_LOAD_PRODUCED(&contribution[2 * (size_t)(-1 - links->child[n]) + 1]);
  b->sum[at] = below;
}

/* Phase B's last step, item i: its u and C for phase C. */
static inline HINES_HOST_DEVICE void branch_junction_store(const struct cell_schedule_view *c,
                                                           const struct branch_links *links,
                                                           int level, int i, int base,
                                                           double *contribution,
                                                           const struct branch_block_values *b) {
  const size_t g = (size_t)c->system_offset[level] + (size_t)c->system[i];
  const int parent = links->parent[i - links->base];
  contribution[2 * g] = parent >= 0 ? b->x[parent] : 0.0;
  contribution[2 * g + 1] = b->sum[i - base];
}

#ifdef __cplusplus
extern "C" {
#endif
#ifndef __CUDACC__
/* The schedule of chunk `chunk`: the cell-block schedule with as many threads a block as its
 * most systems (whole warps, at most BRANCH_MAX_THREADS), then the links above. NULL when out of
 * memory; *length its ints. */
int *branch_schedule_build(const struct level_batch *batch, int chunk, int neurons_per_block,
                           size_t *length);
/* The same over levels 0 .. top_levels - 1 only (a trunk solved by the branch step, between the
 * level kernels' backward and forward sweeps of the levels below; see BRANCH_CHILD_BELOW). */
int *branch_schedule_build_top(const struct level_batch *batch, int chunk, int neurons_per_block,
                               int top_levels, size_t *length);
#endif
/* Phase B of block `block` of a part on a CPU (the kernel's steps, item by item), the same bits as
 * the GPU's; scratch: BRANCH_VALUE_DOUBLES * the most items a block has (branch_links_of). */
void branch_junctions_host(const int *part_ints, const struct cell_schedule_view *c, int block,
                           const double *constants, const struct level_step_arguments *args,
                           double *voltage, double *contribution, double *scratch);
/* The GPU's three launches (0 or a cudaError_t); schedule: the device copy, host_schedule the
 * host's (the launches' sizes). */
int branch_step_cuda(const int *part_ints, const int *schedule, const int *host_schedule,
                     const double *constants, const struct level_step_arguments *args,
                     double *voltage, double *contribution, void *stream);
#ifdef __cplusplus
}
#endif

#endif
