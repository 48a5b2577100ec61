#include "level_layout.h"

#include "step_model.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A branch waiting for its place in a level block. */
struct pending_system {
  int size, tree, morphology, branch, neuron; /* tree: a subtree unit (level_layout.h) */
};

/* Largest first, chains before subtrees; then by morphology, branch, then neuron, so the order (and
 * every result) is reproducible and the copies of one branch in a batch sit side by side: the
 * threads of a warp then read the same constants row for their element j (one broadcast instead of
 * 32 scattered reads) whenever the batch repeats its morphologies. */
static int by_size_descending(const void *a, const void *b) {
  const struct pending_system *x = a, *y = b;
  if (x->size != y->size)
    return y->size - x->size;
  if (x->tree != y->tree) /* chains first: a warp sweeps only chains, the longest */
    return x->tree - y->tree;
  if (x->morphology != y->morphology)
    return x->morphology - y->morphology;
  if (x->branch != y->branch)
    return x->branch - y->branch;
  return x->neuron - y->neuron;
}

/* The shapes of one morphology's subtree units: unit u's at pool + first[u] (2 ints an element,
 * level_layout.h), first[u] = -1 for a chain. */
struct unit_shapes {
  int *first, *pool;
};

/* The branch arrays of a units copy (level_layout.h: level_batch.units); the compartment arrays
 * belong to the given morphology. */
static void units_free(struct morphology *u) {
  free(u->branch_start);
  free(u->branch_size);
  free(u->branch_junction);
  free(u->branch_parent);
  free(u->branch_level);
  free(u->branch_of);
  u->branch_start = u->branch_size = u->branch_junction = NULL;
  u->branch_parent = u->branch_level = u->branch_of = NULL;
}

static void shapes_free(struct unit_shapes *shapes, int n) {
  for (int m = 0; shapes && m < n; m++)
    free(shapes[m].first), free(shapes[m].pool);
  free(shapes);
}

/* Copies m with its branches regrouped into systems: every maximal leaf subtree of at most
 * `limit` compartments with more than one branch, its branches LEVEL_SUBTREE_MEAN_BRANCH
 * compartments or shorter on average (level_layout.h), becomes one "branch" (a subtree unit,
 * with its shape in *shapes); every other branch stays itself. HINES_FAILURE only for memory. */
static int units_build(const struct morphology *m, int limit, struct morphology *out,
                       struct unit_shapes *shapes) {
  const int nb = m->n_branches, n = m->n_compartments;
  *out = *m; /* compartments shared; branch arrays replaced below */
  out->branch_start = out->branch_size = out->branch_junction = NULL;
  out->branch_parent = out->branch_level = out->branch_of = NULL;
  shapes->first = shapes->pool = NULL;
  int *below = malloc((size_t)nb * sizeof(int)); /* compartments of the subtree from b */
  int *children = calloc((size_t)nb, sizeof(int));
  int *branches = malloc((size_t)nb * sizeof(int)); /* branches of the subtree from b */
  int *unit = malloc((size_t)nb * sizeof(int));     /* unit holding branch b */
  int *is_tree = calloc((size_t)nb, sizeof(int));   /* by unit */
  int *sub = malloc((size_t)(limit > 0 ? limit : 1) * sizeof(int));
  int status = below && children && branches && unit && is_tree && sub ? HINES_OK : HINES_FAILURE;
  for (int b = 0; !status && b < nb; b++)
    below[b] = m->branch_size[b], branches[b] = 1;
  for (int b = nb - 1; !status && b > 0; b--) { /* a parent branch precedes its children */
    below[m->branch_parent[b]] += below[b];
    branches[m->branch_parent[b]] += branches[b];
    children[m->branch_parent[b]]++;
  }
  int units = 0, pool = 0;
  for (int b = 0; !status && b < nb; b++) {
    const int parent = m->branch_parent[b];
    if (parent >= 0 && is_tree[unit[parent]]) { /* below a subtree unit's root: inside it */
      unit[b] = unit[parent];
      continue;
    }
    unit[b] = units++;
    /* the topmost qualifying branch: its descendants are absorbed above */
    if (limit > 0 && children[b] > 0 && below[b] <= limit &&
        below[b] <= LEVEL_SUBTREE_MEAN_BRANCH * branches[b]) {
      is_tree[unit[b]] = 1;
      pool += SHAPE_INTS_PER_ELEMENT * below[b];
    }
  }
  if (!status) {
    out->n_branches = units;
    out->branch_start = malloc((size_t)units * sizeof(int));
    out->branch_size = malloc((size_t)units * sizeof(int));
    out->branch_junction = malloc((size_t)units * sizeof(int));
    out->branch_parent = malloc((size_t)units * sizeof(int));
    out->branch_level = malloc((size_t)units * sizeof(int));
    out->branch_of = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    shapes->first = malloc((size_t)units * sizeof(int));
    shapes->pool = malloc((size_t)(pool > 0 ? pool : 1) * sizeof(int));
    if (!out->branch_start || !out->branch_size || !out->branch_junction || !out->branch_parent ||
        !out->branch_level || !out->branch_of || !shapes->first || !shapes->pool)
      status = HINES_FAILURE;
  }
  int at = 0;
  out->n_levels = 0;
  for (int b = 0; !status && b < nb; b++) {
    const int u = unit[b], parent = m->branch_parent[b];
    if (parent >= 0 && unit[parent] == u)
      continue; /* a branch inside a subtree unit */
    const int tree = is_tree[u], start = m->branch_start[b];
    const int size = tree ? below[b] : m->branch_size[b];
    out->branch_start[u] = start;
    out->branch_size[u] = size;
    out->branch_junction[u] = m->branch_junction[b];
    out->branch_parent[u] = parent < 0 ? -1 : unit[parent];
    out->branch_level[u] = m->branch_level[b];
    if (m->branch_level[b] + 1 > out->n_levels)
      out->n_levels = m->branch_level[b] + 1;
    shapes->first[u] = -1;
    if (!tree)
      continue;
    /* Depth-first numbering: the subtree is compartments start .. start + size - 1. */
    int *shape = shapes->pool + at;
    shapes->first[u] = at;
    at += SHAPE_INTS_PER_ELEMENT * size;
    for (int j = 0; j < size; j++)
      sub[j] = 1;
    for (int j = size - 1; j > 0; j--)
      sub[m->parent[start + j] - start] += sub[j];
    for (int j = 0; j < size; j++) {
      const int p = j > 0 ? m->parent[start + j] - start : -1, next = j + sub[j];
      shape[SHAPE_INTS_PER_ELEMENT * j + SHAPE_PARENT_STEP] = j > 0 ? j - p : 0;
      shape[SHAPE_INTS_PER_ELEMENT * j + SHAPE_SIBLING_STEP] =
          j > 0 && next < size && m->parent[start + next] - start == p ? sub[j] : 0;
    }
  }
  for (int i = 0; !status && i < n; i++)
    out->branch_of[i] = unit[m->branch_of[i]];
  free(below);
  free(children);
  free(branches);
  free(unit);
  free(is_tree);
  free(sub);
  if (status) {
    units_free(out);
    free(shapes->first);
    free(shapes->pool);
    shapes->first = shapes->pool = NULL;
  }
  return status;
}

void level_batch_free(struct level_batch *batch) {
  if (!batch)
    return;
  for (int b = 0; batch->blocks && b < batch->n_chunks * batch->n_levels; b++)
    free(batch->blocks[b]);
  free(batch->blocks);
  free(batch->chunk_first_neuron);
  free(batch->position_neuron);
  free(batch->neuron_position);
  free(batch->constants);
  free(batch->morphology_row);
  free(batch->branch_offset);
  free(batch->branch_system);
  for (int m = 0; batch->branch_level && m < batch->n_morphologies; m++)
    free(batch->branch_level[m]);
  free(batch->branch_level);
  for (int m = 0; batch->units && m < batch->n_morphologies; m++)
    units_free(&batch->units[m]);
  free(batch->units);
  for (int m = 0; batch->rerooted && m < batch->n_morphologies; m++) {
    morphology_free(&batch->rerooted[m]);
    free(batch->internal_compartment[m]);
    free(batch->user_compartment[m]);
  }
  free(batch->rerooted);
  free(batch->internal_compartment);
  free(batch->user_compartment);
  free(batch->soma_compartment);
  for (int c = 0; batch->trunk && c < batch->n_chunks; c++)
    free(batch->trunk[c]);
  free(batch->trunk);
  free(batch->trunk_ints);
  free(batch->ints_offset);
  free(batch->element_offset);
  free(batch->system_offset);
  memset(batch, 0, sizeof *batch);
}

static int build_constants(struct level_batch *batch, const struct cable_parameters *cable,
                           double dt_ms, struct hines_error *err) {
  int rows = 1;
  batch->morphology_row = malloc((size_t)batch->n_morphologies * sizeof(int));
  if (!batch->morphology_row)
    return hines_fail(err, HINES_FAILURE, "out of memory");
  for (int m = 0; m < batch->n_morphologies; m++) {
    batch->morphology_row[m] = rows;
    rows += batch->morphologies[m].n_compartments;
  }
  batch->constant_rows = rows;
  batch->constants = calloc(CONST_TABLE_SIZE(rows), sizeof(double));
  if (!batch->constants)
    return hines_fail(err, HINES_FAILURE, "out of memory");
  double *c = batch->constants;
  c[CONST_DIAGONAL_BASE] = 1.0; /* identity row for padding */
  for (int m = 0; m < batch->n_morphologies; m++) {
    struct cable_coefficients cc;
    int status = cable_coefficients_build(&batch->morphologies[m], cable, &cc, err);
    if (status)
      return status;
    for (int i = 0; i < cc.n; i++) {
      int row = batch->morphology_row[m] + i;
      const struct membrane_constants k = membrane_constants_of(&cc, i, cable, dt_ms);
      c[(size_t)row * CONST_STRIDE + CONST_OFF_DIAGONAL] = cc.off_diagonal[i];
      c[(size_t)row * CONST_STRIDE + CONST_C_OVER_DT] = k.c_over_dt;
      c[(size_t)row * CONST_STRIDE + CONST_DIAGONAL_BASE] = k.diagonal_base;
      c[(size_t)row * CONST_STRIDE + CONST_LEAK_CURRENT] = k.leak_current;
      c[(size_t)CONST_STRIDE * rows + row] = k.hh_scale;
    }
    cable_coefficients_free(&cc);
  }
  /* The rate table (after the rows) is the channels' (channel_rate_table_fill): its user fills it.
   */
  return HINES_OK;
}

/* The child branches of every branch of every morphology, as compressed lists. */
struct branch_children {
  int *first; /* per morphology: n_branches + 1 offsets */
  int *child;
  /* The branches of each level in branch order: by_level[level_first[l] .. level_first[l + 1]) */
  int *level_first, *by_level;
};

/* Fills l's branches by level (level[b]: branch b's level, below n_levels); a batch's level
 * blocks then visit each branch once, not once a level (all 15 shared cells: 31 levels). */
static int branches_by_level(const struct morphology *m, const int *level, int n_levels,
                             struct branch_children *l) {
  l->level_first = calloc((size_t)n_levels + 1, sizeof(int));
  l->by_level = malloc((size_t)(m->n_branches > 0 ? m->n_branches : 1) * sizeof(int));
  if (!l->level_first || !l->by_level)
    return HINES_FAILURE;
  for (int b = 0; b < m->n_branches; b++)
    if (level[b] >= 0 && level[b] < n_levels) /* (any other is in no level's block) */
      l->level_first[level[b] + 1]++;
  for (int v = 0; v < n_levels; v++)
    l->level_first[v + 1] += l->level_first[v];
  int *at = malloc((size_t)(n_levels > 0 ? n_levels : 1) * sizeof(int));
  if (!at)
    return HINES_FAILURE;
  memcpy(at, l->level_first, (size_t)n_levels * sizeof(int));
  for (int b = 0; b < m->n_branches; b++) /* ascending: a level's branches in branch order */
    if (level[b] >= 0 && level[b] < n_levels)
      l->by_level[at[level[b]]++] = b;
  free(at);
  return HINES_OK;
}

static int branch_children_build(const struct morphology *m, struct branch_children *out) {
  out->first = calloc((size_t)m->n_branches + 1, sizeof(int));
  out->child = malloc((size_t)(m->n_branches > 1 ? m->n_branches - 1 : 1) * sizeof(int));
  if (!out->first || !out->child)
    return HINES_FAILURE;
  for (int b = 1; b < m->n_branches; b++)
    out->first[m->branch_parent[b] + 1]++;
  for (int b = 0; b < m->n_branches; b++)
    out->first[b + 1] += out->first[b];
  int *fill = calloc((size_t)m->n_branches, sizeof(int));
  if (!fill)
    return HINES_FAILURE;
  for (int b = 1; b < m->n_branches; b++) /* ascending: children in branch order */
    out->child[out->first[m->branch_parent[b]] + fill[m->branch_parent[b]]++] = b;
  free(fill);
  return HINES_OK;
}

/* The cost model of warp sweeps (level_layout.h), in microseconds for the GPU's two sweeps of one
 * element, passive and with channels everywhere: one thread per system is bound by the chain of
 * an element's loads and arithmetic (thread_chain) and streams a large level at thread_stream an
 * element; a warp per system leaves its elimination chain in the path (warp_chain) but computes
 * that chain on all 32 lanes (warp_stream). Fitted to one H100 run of gpu_run.sh bench-warps
 * (eb1ba61, GPU only, 100 steps): thread_chain from the six cells x 1,044 (0.54 ms over their
 * 898-compartment path) and CA1 x 500 with HH (0.83 ms over 380); the stream costs from CA1 x
 * 10,000 and the six cells x 33,390 with --level-warps off and all (25 and 200 ps an element
 * passive, about 100 and 350 with HH); warp_chain from the same small batches with all. A
 * level's time with warps for its K longest systems is the longest of: the longest warp system's
 * chain, the longest thread system's chain, and all its elements streamed; the K taken is the
 * one that makes it least (fewest warps on ties). Chunks that run on one GPU at once stream
 * their elements through the same memory, so with C of them a level's stream takes C times as
 * long while its chains do not: the model had given warps to 16 chunks of the six cells as if
 * each had the H200 alone, and the step ran at 2.53-2.61 ms against 1.68-1.69 with no warps
 * (one chunk 1.62-1.68 either way; BENCHMARKS.md, "Warps when chunks share a GPU"). */
struct warp_costs {
  double thread_chain, thread_stream, warp_chain, warp_stream;
};
/* No warp for a level whose longest system is shorter than this: its chain is short whoever
 * sweeps it, and a warp still runs a whole group of lanes for it. The model above said warps
 * paid on the six shipped cells' levels near the root (1 to 6 elements a system, thousands of
 * systems), where ncu measured a warp-swept backward kernel at 12-15 us against 6 for a thread-
 * swept one of like size. Measured on the H100 (BENCHMARKS.md, "Levels of subtrees", two runs,
 * ms a step, without this rule -> with it at 8): six cells x 16,695 1.348-1.352 -> 1.286-1.302, CA1
 * x 500 0.198 -> 0.168-0.181, six cells x 4,174 with HH 1.137-1.173 -> 1.093-1.134, x 33,390, x
 * 1,044, CA1 x 3,000 and all 15 x 8,178 equal or faster; 16 and 32 cost CA1 x 3,000 3-6 %. */
#ifndef LEVEL_WARP_MIN_CHAIN
#define LEVEL_WARP_MIN_CHAIN 8
#endif
static const struct warp_costs warp_costs_passive = {0.6, 25e-6, 0.3, 200e-6};
static const struct warp_costs warp_costs_channels = {2.2, 100e-6, 0.5, 350e-6};

int level_warp_systems(const int *top, int systems, enum level_warps mode, int channels_everywhere,
                       int chunks_sharing) {
  if (mode == LEVEL_WARPS_OFF || systems == 0)
    return 0;
  if (mode == LEVEL_WARPS_ALL)
    return systems;
  if (top[0] < LEVEL_WARP_MIN_CHAIN)
    return 0;
  const struct warp_costs *c = channels_everywhere ? &warp_costs_channels : &warp_costs_passive;
  const double sharing = chunks_sharing > 1 ? chunks_sharing : 1;
  double elements = 0.0;
  for (int s = 0; s < systems; s++)
    elements += top[s];
  int best = 0;
  double best_us = fmax(top[0] * c->thread_chain, sharing * elements * c->thread_stream);
  double warp_elements = 0.0;
  for (int k = 1; k <= systems; k++) {
    warp_elements += top[k - 1];
    if (k < systems && top[k] == top[k - 1])
      continue; /* a cut between equal systems saves no chain */
    const double thread_chain = k < systems ? top[k] * c->thread_chain : 0.0;
    const double streamed =
        sharing * (warp_elements * c->warp_stream + (elements - warp_elements) * c->thread_stream);
    const double us = fmax(fmax(top[0] * c->warp_chain, thread_chain), streamed);
    if (us < best_us)
      best = k, best_us = us;
  }
  return best;
}

/* Lays out one level of one chunk from its pending systems (already sorted: the copies of one
 * subtree unit are side by side, so each shape is stored once per run of copies). */
static int *build_block(const struct level_batch *batch, const struct branch_children *lists,
                        const struct unit_shapes *shapes, const struct pending_system *systems,
                        int count) {
  int max_size = count ? systems[0].size : 0;
  int elements = 0, children = 0, trees = 0, shape_ints = 0, tree_elements = 0;
  for (int s = 0; s < count; s++) {
    const struct branch_children *l = &lists[systems[s].neuron % batch->n_morphologies];
    elements += systems[s].size;
    children += l->first[systems[s].branch + 1] - l->first[systems[s].branch];
    trees += systems[s].tree;
    tree_elements += systems[s].tree ? systems[s].size : 0;
    if (systems[s].tree && (s == 0 || systems[s - 1].morphology != systems[s].morphology ||
                            systems[s - 1].branch != systems[s].branch))
      shape_ints += SHAPE_INTS_PER_ELEMENT * systems[s].size;
  }
  if (batch->padded)
    elements = count * max_size;
  int *ints =
      calloc(level_block_ints(count, max_size, elements, children, shape_ints), sizeof(int));
  if (!ints)
    return NULL;
  ints[LEVEL_SYSTEMS] = count;
  ints[LEVEL_MAX_SIZE] = max_size;
  ints[LEVEL_ELEMENTS] = elements;
  ints[LEVEL_CHILDREN] = children;
  ints[LEVEL_PADDED] = batch->padded;
  ints[LEVEL_TREES] = trees;
  ints[LEVEL_SHAPE_INTS] = shape_ints;
  ints[LEVEL_TREE_ELEMENTS] = tree_elements;
  struct level_block_view v = level_block_describe(ints);
  int *size = (int *)v.size, *row_offset = (int *)v.row_offset, *first_row = (int *)v.first_row,
      *junction = (int *)v.junction, *child_first = (int *)v.child_first, *child = (int *)v.child,
      *neuron = (int *)v.neuron, *first_compartment = (int *)v.first_compartment,
      *tree = (int *)v.tree, *shape = (int *)v.shapes;
  /* size[] holds each system's swept length (CP: the padding too) for the model, then, below,
   * its real size */
  for (int s = 0; s < count; s++)
    size[s] = batch->padded ? max_size : systems[s].size;
  int warp_systems = level_warp_systems(
      size, count, batch->warps, batch->channels_everywhere && count >= batch->rows_apart_below,
      batch->chunks_per_gpu);
  for (int s = 0; s < warp_systems; s++)
    if (systems[s].tree) /* a warp sweeps chains only */
      warp_systems = s;
  ints[LEVEL_WARP_SYSTEMS] = warp_systems;
  ints[LEVEL_WARP_LANES] = batch->warp_lanes;
  /* Row j holds the systems longer than j: a prefix, since they are sorted largest first. */
  int in_row = count;
  row_offset[0] = 0;
  for (int j = 0; j < max_size; j++) {
    if (!batch->padded)
      while (in_row > 0 && systems[in_row - 1].size <= j)
        in_row--;
    row_offset[j + 1] = row_offset[j] + in_row;
  }
  int child_at = 0, shape_at = 0;
  for (int s = 0; s < count; s++) {
    int k = systems[s].neuron, b = systems[s].branch;
    int morphology = k % batch->n_morphologies;
    const struct morphology *m = &batch->morphologies[morphology];
    size[s] = systems[s].size;
    tree[s] = -1;
    if (systems[s].tree) {
      if (s > 0 && systems[s - 1].tree && systems[s - 1].morphology == morphology &&
          systems[s - 1].branch == b) {
        tree[s] = tree[s - 1];
      } else {
        tree[s] = shape_at;
        const int n = SHAPE_INTS_PER_ELEMENT * systems[s].size;
        memcpy(shape + shape_at, shapes[morphology].pool + shapes[morphology].first[b],
               (size_t)n * sizeof(int));
        shape_at += n;
      }
    }
    neuron[s] = k;
    first_compartment[s] =
        m->branch_start[b] - (batch->soma_compartment ? batch->soma_compartment[morphology] : 0);
    first_row[s] = batch->morphology_row[morphology] + m->branch_start[b];
    /* -1 at a root; else -2 - the parent branch, resolved once every level of the chunk is
     * laid out (link_chunk: the parent's level may be built apart from this one) */
    junction[s] = m->branch_parent[b] < 0 ? -1 : -2 - m->branch_parent[b];
    child_first[s] = child_at;
    const struct branch_children *l = &lists[morphology];
    for (int e = l->first[b]; e < l->first[b + 1]; e++)
      child[child_at++] = -1 - l->child[e]; /* resolved once the next level is laid out */
  }
  child_first[count] = child_at;
  return ints;
}

/* Each row's inverse pivot without channels (CONST_INVERSE_PIVOT, level_layout.h): the backward
 * sweep of one neuron of every morphology, keeping only its diagonal arithmetic, operation for
 * operation that of level_backward_system_in_groups (chains: the children's contributions
 * subtracted in their order at the far end, then one multiply-add an element) and of
 * level_backward_tree (subtrees: later children through their stored factors, then the first
 * child's), each pivot through level_pivot's one division. Built without contraction like every
 * kernel, so the values are those every sweep computes (test_multi_levels checks the bits). A CP
 * padding element's chain starts afresh at each system's far end, so padding never reaches a
 * real row; row 0, the padding's identity row, gets its own inverse. */
/* The branch kernel's columns of system s (level_layout.h, CONST_BRANCH_P/Q/G), from its rows'
 * factors f (CONST_ROW_FACTOR) and inverse pivots. Forward, x_j = X_j + P_j u + Q_j C with
 * x_j = x_parent - ... as the sweeps: x_j = fma(-f_j, x_{j-1}, s_j), so P_j = -f_j P_{j-1}
 * (P_{-1} = 1; in a subtree j's parent instead of j - 1). Backward along a chain, the far end's
 * rhs loses C, so element j's eliminated rhs gains g_j C with g_{n-1} = -1, g_j = -f_{j+1} g_{j+1};
 * its scaled rhs h_j C = g_j / pivot_j C; then Q_j = fma(-f_j, Q_{j-1}, h_j), and the
 * contribution f_0 r_0 gains G C = f_0 g_0 C. A subtree has no children: Q = 0, G = 0. */
static void fill_branch_responses(struct level_batch *batch, const struct level_block_view *v,
                                  int s) {
  const int rows = batch->constant_rows, size = v->size[s], first_row = v->first_row[s];
  const double *inverse = batch->constants + CONST_INVERSE_PIVOT(rows);
  const double *f = batch->constants + CONST_ROW_FACTOR(rows);
  double *p = batch->constants + CONST_BRANCH_P(rows), *q = batch->constants + CONST_BRANCH_Q(rows);
  double *g_out = batch->constants + CONST_BRANCH_G(rows);
  if (v->trees && v->tree[s] >= 0) {
    for (int j = 0; j < size; j++) {
      const int step = v->shapes[v->tree[s] + SHAPE_INTS_PER_ELEMENT * j + SHAPE_PARENT_STEP];
      const double above = j == 0 ? 1.0 : p[first_row + j - step];
      p[first_row + j] = -f[first_row + j] * above;
      q[first_row + j] = 0.0;
    }
    g_out[first_row] = 0.0;
    return;
  }
  /* g_j into q (overwritten by Q_j below, which needs g_j only at j) */
  double g = -1.0;
  for (int j = size - 1; j >= 0; j--) {
    q[first_row + j] = g;
    if (j > 0)
      g = -f[first_row + j] * g;
  }
  g_out[first_row] = f[first_row] * q[first_row];
  double above_p = 1.0, above_q = 0.0;
  for (int j = 0; j < size; j++) {
    const int r = first_row + j;
    above_p = -f[r] * above_p;
    above_q = fma(-f[r], above_q, q[r] * inverse[r]);
    p[r] = above_p;
    q[r] = above_q;
  }
}

static int fill_inverse_pivots(struct level_batch *batch, int n_neurons) {
  const double *c = batch->constants;
  double *inverse = batch->constants + CONST_INVERSE_PIVOT(batch->constant_rows);
  double *row_factor = batch->constants + CONST_ROW_FACTOR(batch->constant_rows);
  inverse[0] = 1.0 / c[CONST_DIAGONAL_BASE];
  row_factor[0] = c[CONST_OFF_DIAGONAL] * inverse[0];
  const int needed = n_neurons < batch->n_morphologies ? n_neurons : batch->n_morphologies;
  int positions = needed; /* the positions up to the last of neurons 0 .. needed - 1 */
  for (int k = 0; batch->neuron_position && k < needed; k++)
    if (batch->neuron_position[k] >= positions)
      positions = batch->neuron_position[k] + 1;
  for (int chunk = 0; chunk < batch->n_chunks && batch->chunk_first_neuron[chunk] < positions;
       chunk++) {
    const size_t *system_offset = batch->system_offset + (size_t)chunk * (batch->n_levels + 1);
    int longest = 1;
    for (int level = 0; level < batch->n_levels; level++) {
      const int *ints = batch->blocks[chunk * batch->n_levels + level];
      if (ints && level_block_describe(ints).max_size > longest)
        longest = level_block_describe(ints).max_size;
    }
    double *diagonal_contribution = calloc(system_offset[batch->n_levels], sizeof(double));
    double *tree_factor = malloc((size_t)longest * sizeof(double));
    if (!diagonal_contribution || !tree_factor) {
      free(diagonal_contribution), free(tree_factor);
      return HINES_FAILURE;
    }
    for (int level = batch->n_levels - 1; level >= 0; level--) { /* children first */
      const int *ints = batch->blocks[chunk * batch->n_levels + level];
      if (!ints)
        continue;
      const struct level_block_view v = level_block_describe(ints);
      const size_t child_base = batch->chunk_links ? 0 : system_offset[level + 1];
      for (int s = 0; s < v.systems; s++) {
        if (v.neuron[s] >= needed)
          continue;
        const int size = v.size[s], first_row = v.first_row[s];
        double previous_factor = 0.0, previous_off_diagonal = 0.0;
        const int tree = v.trees && v.tree[s] >= 0;
        int below_is_first_child = 0;
        for (int j = size - 1; j >= 0; j--) {
          const int row = first_row + j;
          const double off_diagonal = c[(size_t)row * CONST_STRIDE + CONST_OFF_DIAGONAL];
          double diagonal = c[(size_t)row * CONST_STRIDE + CONST_DIAGONAL_BASE];
          if (tree) {
            if (below_is_first_child) {
              for (int k = j + 1, step;
                   (step = v.shapes[v.tree[s] + SHAPE_INTS_PER_ELEMENT * k + SHAPE_SIBLING_STEP]) !=
                   0;) {
                k += step;
                diagonal =
                    fma(-tree_factor[k],
                        c[(size_t)(first_row + k) * CONST_STRIDE + CONST_OFF_DIAGONAL], diagonal);
              }
              diagonal = fma(-previous_factor, previous_off_diagonal, diagonal);
            }
            below_is_first_child =
                v.shapes[v.tree[s] + SHAPE_INTS_PER_ELEMENT * j + SHAPE_PARENT_STEP] == 1;
          } else if (j == size - 1) {
            for (int k = v.child_first[s]; k < v.child_first[s + 1]; k++)
              diagonal -= diagonal_contribution[child_base + (size_t)v.child[k]];
          } else {
            diagonal = fma(-previous_factor, previous_off_diagonal, diagonal);
          }
          const double inverse_pivot = 1.0 / diagonal;
          inverse[row] = inverse_pivot;
          previous_factor = off_diagonal * inverse_pivot;
          row_factor[row] = previous_factor;
          previous_off_diagonal = off_diagonal;
          tree_factor[j] = previous_factor;
        }
        diagonal_contribution[system_offset[level] + (size_t)s] =
            previous_factor * previous_off_diagonal;
        fill_branch_responses(batch, &v, s);
      }
    }
    free(diagonal_contribution);
    free(tree_factor);
  }
  return HINES_OK;
}

static int trunk_levels_auto(const struct level_batch *batch, const struct morphology *morphologies,
                             int n_morphologies);

/* The trunk's levels when the batch fixes them (level_batch_options.trunk_systems_per_neuron):
 * from the root up to the first level where the morphologies have, on average, at least
 * per_neuron systems a neuron; negative per_neuron: trunk_levels_auto's. */
static int trunk_levels_of(const struct level_batch *batch, const struct morphology *morphologies,
                           int n_morphologies, double per_neuron) {
  if (per_neuron < 0)
    return trunk_levels_auto(batch, morphologies, n_morphologies);
  int tail = 0;
  for (; tail < batch->n_levels; tail++) {
    long long systems = 0;
    for (int m = 0; m < n_morphologies; m++)
      for (int b = 0; b < morphologies[m].n_branches; b++)
        systems += batch->branch_level[m][b] == tail;
    if ((double)systems >= per_neuron * n_morphologies)
      break;
  }
  return tail;
}

/* The trunk the batch gets by default (LEVEL_TRUNK_AUTO), from the morphologies alone: the
 * levels from the root up to the first where the cells average LEVEL_TRUNK_AUTO_SYSTEMS systems
 * a neuron, cut back while they hold more than LEVEL_TRUNK_AUTO_BRANCHES branches or
 * LEVEL_TRUNK_AUTO_SHARE of the compartments (the branch step's own work, paid on every GPU),
 * and none unless the sum over them of each level's longest branch, the chain of dependent
 * elements their level kernels walk one after the other, reaches LEVEL_TRUNK_AUTO_CHAIN: the
 * trunk pays where that chain, not the GPU's bandwidth, sets a chunk's pace. */
static int trunk_levels_auto(const struct level_batch *batch, const struct morphology *morphologies,
                             int n_morphologies) {
  const int n_levels = batch->n_levels;
  long long *systems = calloc((size_t)n_levels + 1, sizeof *systems);
  long long *elements = calloc((size_t)n_levels + 1, sizeof *elements);
  int *longest = calloc((size_t)n_levels + 1, sizeof *longest);
  long long compartments = 0;
  int tail = 0;
  if (!systems || !elements || !longest)
    goto done; /* no trunk: the levels alone solve the same system */
  for (int m = 0; m < n_morphologies; m++) {
    compartments += morphologies[m].n_compartments;
    for (int b = 0; b < morphologies[m].n_branches; b++) {
      const int level = batch->branch_level[m][b], size = morphologies[m].branch_size[b];
      systems[level]++, elements[level] += size;
      if (size > longest[level])
        longest[level] = size;
    }
  }
  while (tail < n_levels &&
         (double)systems[tail] < LEVEL_TRUNK_AUTO_SYSTEMS * (double)n_morphologies)
    tail++;
  for (;; tail--) {
    long long branches = 0, held = 0;
    for (int level = 0; level < tail; level++)
      branches += systems[level], held += elements[level];
    if ((double)branches <= LEVEL_TRUNK_AUTO_BRANCHES * (double)compartments &&
        (double)held <= LEVEL_TRUNK_AUTO_SHARE * (double)compartments)
      break;
  }
  int chain = 0;
  for (int level = 0; level < tail; level++)
    chain += longest[level];
  if (chain < LEVEL_TRUNK_AUTO_CHAIN)
    tail = 0;
done:
  free(systems), free(elements), free(longest);
  return tail;
}

/* The trunk of chunk `chunk` (see level_layout.h), or NULL with *length 0 when its levels from
 * the root already hold enough systems. HINES_FAILURE only for memory. */
static int build_trunk(struct level_batch *batch, int chunk, int first, int last, int below_systems,
                       int fixed_tail) {
  const int n_levels = batch->n_levels;
  const size_t at = (size_t)chunk * (n_levels + 1);
  int tail = fixed_tail;
  while (fixed_tail == 0 && tail < n_levels &&
         level_block_describe(batch->blocks[chunk * n_levels + tail]).systems < below_systems)
    tail++;
  batch->trunk[chunk] = NULL;
  batch->trunk_ints[chunk] = 0;
  if (tail == 0)
    return HINES_OK;
  int threads = 0, entries = 0;
  for (int p = first; p < last; p++) {
    const int morphology = level_batch_neuron_at(batch, p) % batch->n_morphologies;
    const struct morphology *m = &batch->morphologies[morphology];
    int mine = 0;
    for (int b = 0; b < m->n_branches; b++)
      mine += batch->branch_level[morphology][b] < tail;
    threads += mine > 0;
    entries += mine;
  }
  size_t length = TRUNK_HEADER_SIZE + 3 * (size_t)tail + (size_t)threads + 1 + 2 * (size_t)entries;
  int *t = malloc(length * sizeof(int));
  if (!t)
    return HINES_FAILURE;
  t[TRUNK_THREADS] = threads;
  t[TRUNK_LEVELS] = tail;
  int *offsets = t + TRUNK_HEADER_SIZE;
  for (int level = 0; level < tail; level++) {
    offsets[level] = (int)batch->ints_offset[at + level];
    offsets[tail + level] = (int)batch->element_offset[at + level];
    offsets[2 * tail + level] = (int)batch->system_offset[at + level];
  }
  int *list_first = offsets + 3 * tail, *list = list_first + threads + 1;
  /* Per morphology, its trunk branches deepest level first (children before parents). */
  int **order = calloc((size_t)batch->n_morphologies, sizeof(int *));
  int *order_count = calloc((size_t)batch->n_morphologies, sizeof(int));
  int ok = order && order_count;
  for (int morphology = 0; ok && morphology < batch->n_morphologies; morphology++) {
    const struct morphology *m = &batch->morphologies[morphology];
    ok = (order[morphology] = malloc((size_t)m->n_branches * sizeof(int))) != NULL;
    for (int level = tail - 1; ok && level >= 0; level--)
      for (int b = 0; b < m->n_branches; b++)
        if (batch->branch_level[morphology][b] == level)
          order[morphology][order_count[morphology]++] = b;
  }
  int thread = 0, entry = 0;
  for (int p = first; ok && p < last; p++) {
    const int k = level_batch_neuron_at(batch, p), morphology = k % batch->n_morphologies;
    if (order_count[morphology] == 0)
      continue;
    list_first[thread++] = entry;
    for (int i = 0; i < order_count[morphology]; i++) {
      const int b = order[morphology][i];
      list[2 * entry] = batch->branch_level[morphology][b];
      list[2 * entry + 1] = batch->branch_system[batch->branch_offset[k] + b];
      entry++;
    }
  }
  list_first[threads] = entry;
  for (int morphology = 0; order && morphology < batch->n_morphologies; morphology++)
    free(order[morphology]);
  free(order);
  free(order_count);
  if (!ok) {
    free(t);
    return HINES_FAILURE;
  }
  batch->trunk[chunk] = t;
  batch->trunk_ints[chunk] = length;
  return HINES_OK;
}

/* The level of every branch of m in the given order (n_levels levels in all). */
static int *branch_levels(const struct morphology *m, enum level_order order, int n_levels) {
  int *level = malloc((size_t)m->n_branches * sizeof(int));
  if (!level)
    return NULL;
  if (order == LEVEL_ORDER_DEPTH) {
    memcpy(level, m->branch_level, (size_t)m->n_branches * sizeof(int));
    return level;
  }
  /* Height (0 for a leaf branch): parents have smaller indices, so one backward pass. */
  for (int b = 0; b < m->n_branches; b++)
    level[b] = 0;
  for (int b = m->n_branches - 1; b > 0; b--)
    if (level[b] + 1 > level[m->branch_parent[b]])
      level[m->branch_parent[b]] = level[b] + 1;
  for (int b = 0; b < m->n_branches; b++)
    level[b] = n_levels - 1 - level[b];
  return level;
}

/* Cuts every chain system of a units copy longer than `split` compartments into
 * ceil(size / split) segments of near-equal size, from the junction outwards (level_layout.h:
 * long branches): segment i + 1 hangs from segment i's last compartment, the branch's children
 * from its last segment. Subtree units stay whole. Recomputes branch_of, the depth levels and
 * n_levels; shapes->first follows the new systems. HINES_FAILURE only for memory. */
static int units_split(struct morphology *u, struct unit_shapes *shapes, int split) {
  const int nb = u->n_branches;
  int *first = malloc((size_t)(nb + 1) * sizeof(int)); /* first segment of each system */
  if (!first)
    return HINES_FAILURE;
  first[0] = 0;
  for (int b = 0; b < nb; b++) {
    const int chain = shapes->first[b] < 0;
    first[b + 1] =
        first[b] +
        (chain && u->branch_size[b] > split ? (u->branch_size[b] + split - 1) / split : 1);
  }
  const int systems = first[nb];
  if (systems == nb) {
    free(first);
    return HINES_OK;
  }
  int *start = malloc((size_t)systems * sizeof(int)), *size = malloc((size_t)systems * sizeof(int));
  int *junction = malloc((size_t)systems * sizeof(int));
  int *parent = malloc((size_t)systems * sizeof(int)),
      *level = malloc((size_t)systems * sizeof(int));
  int *shape_first = malloc((size_t)systems * sizeof(int));
  if (!start || !size || !junction || !parent || !level || !shape_first) {
    free(first), free(start), free(size), free(junction), free(parent), free(level);
    free(shape_first);
    return HINES_FAILURE;
  }
  u->n_levels = 0;
  for (int b = 0; b < nb; b++) {
    const int pieces = first[b + 1] - first[b], whole = u->branch_size[b];
    const int base = whole / pieces, longer = whole % pieces; /* the first `longer` get one more */
    int at = u->branch_start[b];
    for (int i = 0; i < pieces; i++) {
      const int v = first[b] + i;
      start[v] = at;
      size[v] = base + (i < longer);
      at += size[v];
      junction[v] = i > 0 ? start[v] - 1 : u->branch_junction[b];
      parent[v] = i > 0 ? v - 1 : u->branch_parent[b] < 0 ? -1 : first[u->branch_parent[b] + 1] - 1;
      level[v] = parent[v] < 0 ? 0 : level[parent[v]] + 1; /* a parent precedes its children */
      shape_first[v] = i == 0 ? shapes->first[b] : -1;
      if (level[v] + 1 > u->n_levels)
        u->n_levels = level[v] + 1;
      /* every system (chain or subtree) is a contiguous run of compartments */
      for (int c = start[v]; c < start[v] + size[v]; c++)
        u->branch_of[c] = v;
    }
  }
  free(first);
  free(u->branch_start), free(u->branch_size), free(u->branch_junction);
  free(u->branch_parent), free(u->branch_level), free(shapes->first);
  u->n_branches = systems;
  u->branch_start = start, u->branch_size = size, u->branch_junction = junction;
  u->branch_parent = parent, u->branch_level = level, shapes->first = shape_first;
  return HINES_OK;
}

/* level_batch_options.reroot: out->morphologies (as given) replaced by copies rooted at their
 * centers, with the maps between the numberings. */
static int reroot_at_centers(struct level_batch *out, struct hines_error *err) {
  const int n = out->n_morphologies;
  out->rerooted = calloc((size_t)n, sizeof *out->rerooted);
  out->internal_compartment = calloc((size_t)n, sizeof(int *));
  out->user_compartment = calloc((size_t)n, sizeof(int *));
  out->soma_compartment = calloc((size_t)n, sizeof(int));
  if (!out->rerooted || !out->internal_compartment || !out->user_compartment ||
      !out->soma_compartment)
    return hines_fail(err, HINES_FAILURE, "out of memory");
  for (int m = 0; m < n; m++) {
    const struct morphology *given = &out->morphologies[m];
    const int compartments = given->n_compartments;
    int *internal = out->internal_compartment[m] = malloc((size_t)compartments * sizeof(int));
    int *user = out->user_compartment[m] = malloc((size_t)compartments * sizeof(int));
    int height;
    const int center = morphology_center(given, &height);
    if (!internal || !user || center < 0)
      return hines_fail(err, HINES_FAILURE, "out of memory");
    /* Where the center cuts the longest path by less than an eighth the soma stays the root
     * (root 0 keeps the numbering): the new root also reshapes the levels, and for CA1 (a cut of
     * 6 %, 189 -> 177 compartments) it cost 2-3 % at 3,000 cells (H200, BENCHMARKS.md, "Roots at
     * the cells' centers"). */
    const int root = 8 * height <= 7 * given->max_depth ? center : 0;
    const int status = morphology_reroot(given, root, &out->rerooted[m], internal, err);
    if (status)
      return status;
    for (int i = 0; i < compartments; i++)
      user[internal[i]] = i;
    out->soma_compartment[m] = internal[0];
  }
  out->morphologies = out->rerooted;
  return HINES_OK;
}

int level_batch_user_compartment(const struct level_batch *batch, int neuron, int relative) {
  if (!batch->rerooted)
    return relative;
  const int m = neuron % batch->n_morphologies;
  return batch->user_compartment[m][relative + batch->soma_compartment[m]];
}

/* What level_batch_begin leaves the chunks' builds and level_batch_end. */
struct level_build {
  struct level_batch *out;
  const struct morphology *morphologies; /* the systems' (rerooted, units) */
  int n_morphologies, n_neurons, trunk_below, fixed_tail;
  struct unit_shapes *shapes;
  struct branch_children *lists;
};

static void level_build_free(struct level_build *build) {
  for (int m = 0; build->lists && m < build->n_morphologies; m++)
    free(build->lists[m].first), free(build->lists[m].child), free(build->lists[m].level_first),
        free(build->lists[m].by_level);
  free(build->lists);
  shapes_free(build->shapes, build->n_morphologies);
  free(build);
}

int level_batch_begin(const struct morphology *morphologies, int n_morphologies, int n_neurons,
                      const struct level_batch_options *options,
                      const struct cable_parameters *cable, double dt_ms, struct level_batch *out,
                      struct level_build **started, struct hines_error *err) {
  memset(out, 0, sizeof *out);
  *started = NULL;
  const int neurons_per_chunk = options->neurons_per_chunk, padded = options->padded;
  enum level_order order = options->order;
  if (order == LEVEL_ORDER_AUTO)
    order = options->chunk_links ? LEVEL_ORDER_HEIGHT : LEVEL_ORDER_DEPTH;
  if (order == LEVEL_ORDER_HEIGHT && !options->chunk_links)
    return hines_fail(err, HINES_BAD_INPUT,
                      "levels by height need one task per chunk: a branch's children may sit "
                      "several levels deeper than the next level's task can see");
  if (n_morphologies < 1 || n_neurons < 1 || (neurons_per_chunk < 1 && !options->chunk_neurons))
    return hines_fail(err, HINES_BAD_INPUT, "a multi-morphology batch needs neurons (got %d)",
                      n_neurons);
  if (options->chunk_neurons) {
    long long listed = 0;
    for (int c = 0; c < options->n_chunk_sizes; c++) {
      if (options->chunk_neurons[c] < 1)
        return hines_fail(err, HINES_BAD_INPUT, "chunk %d of the batch has %d neurons", c,
                          options->chunk_neurons[c]);
      listed += options->chunk_neurons[c];
    }
    if (listed != n_neurons)
      return hines_fail(err, HINES_BAD_INPUT,
                        "the batch's chunks hold %lld neurons in all, the batch %d", listed,
                        n_neurons);
  }
  if (!(dt_ms > 0))
    return hines_fail(err, HINES_BAD_INPUT, "dt must be positive (got %g ms)", dt_ms);
  out->n_neurons = n_neurons;
  out->padded = padded;
  out->chunk_links = options->chunk_links;
  out->warps = options->warps;
  out->channels_everywhere = options->channels_everywhere;
  out->chunks_per_gpu = options->chunks_per_gpu;
  out->rows_apart_below = options->rows_apart_below;
  out->warp_lanes =
      options->warp_lanes == 8 || options->warp_lanes == 32 ? options->warp_lanes : 16;
  out->order = order;
  out->n_morphologies = n_morphologies;
  out->morphologies = morphologies;
  /* With CP a subtree system's padding rows are left alone (nothing reads them): CP and NCP
   * keep the same systems, so the same bits. */
  out->subtree_compartments = options->subtree_compartments > 1 ? options->subtree_compartments : 0;
  if (options->reroot) {
    int status = reroot_at_centers(out, err);
    if (status) {
      level_batch_free(out);
      return status;
    }
    morphologies = out->rerooted;
  }
  struct unit_shapes *shapes = calloc((size_t)n_morphologies, sizeof *shapes);
  if (!shapes) {
    level_batch_free(out);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  out->split_compartments = options->split_compartments > 0 ? options->split_compartments : 0;
  if (out->subtree_compartments > 0 || out->split_compartments > 0) {
    out->units = calloc((size_t)n_morphologies, sizeof *out->units);
    int ok = out->units != NULL;
    for (int m = 0; ok && m < n_morphologies; m++) {
      ok = units_build(&morphologies[m], out->subtree_compartments, &out->units[m], &shapes[m]) ==
           HINES_OK;
      if (ok && out->split_compartments > 0)
        ok = units_split(&out->units[m], &shapes[m], out->split_compartments) == HINES_OK;
    }
    if (!ok) {
      shapes_free(shapes, n_morphologies);
      level_batch_free(out);
      return hines_fail(err, HINES_FAILURE, "out of memory");
    }
    morphologies = out->morphologies = out->units; /* from here on, branches are systems */
  }
  out->n_levels = 0;
  for (int m = 0; m < n_morphologies; m++)
    if (morphologies[m].n_levels > out->n_levels)
      out->n_levels = morphologies[m].n_levels;
  out->n_chunks = options->chunk_neurons ? options->n_chunk_sizes
                                         : (n_neurons + neurons_per_chunk - 1) / neurons_per_chunk;
  out->chunk_first_neuron = malloc((size_t)(out->n_chunks + 1) * sizeof(int));
  out->blocks = calloc((size_t)out->n_chunks * out->n_levels, sizeof(int *));
  out->branch_offset = malloc(((size_t)n_neurons + 1) * sizeof(long long));
  const size_t offsets = (size_t)out->n_chunks * (out->n_levels + 1);
  out->ints_offset = calloc(offsets, sizeof(size_t));
  out->element_offset = calloc(offsets, sizeof(size_t));
  out->system_offset = calloc(offsets, sizeof(size_t));
  out->branch_level = calloc((size_t)n_morphologies, sizeof(int *));
  out->trunk = calloc((size_t)out->n_chunks, sizeof(int *));
  out->trunk_ints = calloc((size_t)out->n_chunks, sizeof(size_t));
  int status = HINES_OK;
  for (int c = 0, first = 0; out->chunk_first_neuron && c <= out->n_chunks; c++) {
    out->chunk_first_neuron[c] = first < n_neurons ? first : n_neurons;
    if (c < out->n_chunks)
      first += options->chunk_neurons ? options->chunk_neurons[c] : neurons_per_chunk;
  }
  const int tail = options->arranged_tail < n_neurons - n_morphologies ? options->arranged_tail
                                                                       : n_neurons - n_morphologies;
  if (tail > 0) {
    out->position_neuron = malloc((size_t)n_neurons * sizeof(int));
    out->neuron_position = malloc((size_t)n_neurons * sizeof(int));
    if (out->position_neuron && out->neuron_position) {
      for (int p = 0; p < n_neurons - tail; p++)
        out->position_neuron[p] = p;
      level_arranged_fill_lead(n_neurons, n_morphologies, tail,
                               tail == options->arranged_tail ? options->tail_lead : NULL,
                               out->position_neuron + (n_neurons - tail));
      for (int p = 0; p < n_neurons; p++)
        out->neuron_position[out->position_neuron[p]] = p;
    }
    if (!out->position_neuron || !out->neuron_position)
      status = hines_fail(err, HINES_FAILURE, "out of memory");
  }
  if (!out->chunk_first_neuron || !out->blocks || !out->branch_offset || !out->ints_offset ||
      !out->element_offset || !out->system_offset || !out->branch_level || !out->trunk ||
      !out->trunk_ints)
    status = hines_fail(err, HINES_FAILURE, "out of memory");
  for (int m = 0; m < n_morphologies && !status; m++)
    if (!(out->branch_level[m] = branch_levels(&morphologies[m], order, out->n_levels)))
      status = hines_fail(err, HINES_FAILURE, "out of memory");
  if (!status)
    status = build_constants(out, cable, dt_ms, err);
  if (status) {
    shapes_free(shapes, n_morphologies);
    level_batch_free(out);
    return status;
  }
  out->branch_offset[0] = 0;
  for (int k = 0; k < n_neurons; k++) {
    const struct morphology *m = &morphologies[k % n_morphologies];
    out->branch_offset[k + 1] = out->branch_offset[k] + m->n_branches;
    out->total_compartments += m->n_compartments;
  }
  out->branch_system = malloc((size_t)out->branch_offset[n_neurons] * sizeof(int));
  struct level_build *build = calloc(1, sizeof *build);
  struct branch_children *lists = calloc((size_t)n_morphologies, sizeof *lists);
  if (build) {
    *build = (struct level_build){.out = out,
                                  .morphologies = morphologies,
                                  .n_morphologies = n_morphologies,
                                  .n_neurons = n_neurons,
                                  .trunk_below = options->trunk_below,
                                  .shapes = shapes,
                                  .lists = lists};
    shapes = NULL; /* the build's now */
  }
  int lists_ok = lists != NULL;
  for (int m = 0; lists_ok && m < n_morphologies; m++)
    lists_ok = branch_children_build(&morphologies[m], &lists[m]) == HINES_OK &&
               branches_by_level(&morphologies[m], out->branch_level[m], out->n_levels,
                                 &lists[m]) == HINES_OK;
  if (!out->branch_system || !build || !lists_ok) {
    if (build)
      level_build_free(build);
    else {
      free(lists);
      shapes_free(shapes, n_morphologies);
    }
    level_batch_free(out);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  build->fixed_tail =
      out->chunk_links && options->trunk_systems_per_neuron != 0
          ? trunk_levels_of(out, morphologies, n_morphologies, options->trunk_systems_per_neuron)
          : 0;
  *started = build;
  return HINES_OK;
}

int level_batch_build_levels(struct level_build *build, int chunk, int first_level, int last_level,
                             struct hines_error *err) {
  struct level_batch *out = build->out;
  const struct morphology *morphologies = build->morphologies;
  const int n_morphologies = build->n_morphologies;
  const struct unit_shapes *shapes = build->shapes;
  const struct branch_children *lists = build->lists;
  const int first = out->chunk_first_neuron[chunk], last = out->chunk_first_neuron[chunk + 1];
  size_t branches = 1; /* a level's systems in this chunk: at most its neurons' branches there */
  for (int p = first; p < last; p++) {
    const struct branch_children *l = &lists[level_batch_neuron_at(out, p) % n_morphologies];
    size_t most = 0;
    for (int level = first_level; level < last_level; level++) {
      const size_t at = (size_t)(l->level_first[level + 1] - l->level_first[level]);
      most = at > most ? at : most;
    }
    branches += most;
  }
  struct pending_system *pending = malloc(branches * sizeof *pending);
  if (!pending)
    return hines_fail(err, HINES_FAILURE, "out of memory");
  int status = HINES_OK;
  for (int level = first_level; level < last_level; level++) {
    int count = 0;
    for (int p = first; p < last; p++) {
      const int k = level_batch_neuron_at(out, p), morphology = k % n_morphologies;
      const struct morphology *m = &morphologies[morphology];
      const struct branch_children *l = &lists[morphology];
      for (int at = l->level_first[level]; at < l->level_first[level + 1]; at++) {
        const int b = l->by_level[at];
        pending[count++] = (struct pending_system){
            m->branch_size[b], shapes[morphology].first && shapes[morphology].first[b] >= 0,
            morphology, b, k};
      }
    }
    qsort(pending, (size_t)count, sizeof *pending, by_size_descending);
    for (int s = 0; s < count; s++)
      out->branch_system[out->branch_offset[pending[s].neuron] + pending[s].branch] = s;
    int *block = build_block(out, lists, shapes, pending, count);
    if (!block) {
      status = hines_fail(err, HINES_FAILURE, "out of memory");
      break;
    }
    out->blocks[chunk * out->n_levels + level] = block;
  }
  free(pending);
  return status;
}

int level_batch_link_chunk(struct level_build *build, int chunk, struct hines_error *err) {
  struct level_batch *out = build->out;
  const int n_morphologies = build->n_morphologies;
  const int first = out->chunk_first_neuron[chunk], last = out->chunk_first_neuron[chunk + 1];
  size_t *ints_offset = out->ints_offset + (size_t)chunk * (out->n_levels + 1);
  size_t *element_offset = out->element_offset + (size_t)chunk * (out->n_levels + 1);
  size_t *system_offset = out->system_offset + (size_t)chunk * (out->n_levels + 1);
  for (int level = 0; level < out->n_levels; level++) {
    const struct level_block_view v =
        level_block_describe(out->blocks[chunk * out->n_levels + level]);
    ints_offset[level + 1] =
        ints_offset[level] +
        level_block_ints(v.systems, v.max_size, v.elements, v.children, v.shape_ints);
    element_offset[level + 1] = element_offset[level] + (v.elements > 0 ? v.elements : 1);
    system_offset[level + 1] = system_offset[level] + (v.systems > 0 ? v.systems : 1);
    if (element_offset[level + 1] > INT_MAX)
      return hines_fail(err, HINES_BAD_INPUT,
                        "chunk %d holds more than %d values; give fewer neurons per task", chunk,
                        INT_MAX);
  }
  /* Every level has its system numbers now: the junctions (the last element of the parent
   * branch, in the parent's level block) and the children, recorded as -1 - branch. */
  for (int level = 0; level < out->n_levels; level++) {
    struct level_block_view v = level_block_describe(out->blocks[chunk * out->n_levels + level]);
    int *child = (int *)v.child, *junction = (int *)v.junction;
    for (int s = 0; s < v.systems; s++) {
      const int morphology = v.neuron[s] % n_morphologies;
      if (junction[s] <= -2) {
        const int parent_branch = -2 - junction[s];
        const int parent_level = out->branch_level[morphology][parent_branch];
        const int parent_system =
            out->branch_system[out->branch_offset[v.neuron[s]] + parent_branch];
        const struct level_block_view pv =
            level_block_describe(out->blocks[chunk * out->n_levels + parent_level]);
        const size_t base = out->chunk_links ? element_offset[parent_level] : 0;
        junction[s] = (int)base + pv.row_offset[pv.size[parent_system] - 1] + parent_system;
      }
      for (int e = v.child_first[s]; e < v.child_first[s + 1]; e++) {
        int branch = -1 - child[e];
        int child_level = out->branch_level[morphology][branch];
        child[e] = (out->chunk_links ? (int)system_offset[child_level] : 0) +
                   out->branch_system[out->branch_offset[v.neuron[s]] + branch];
      }
    }
  }
  if (out->chunk_links && (build->trunk_below > 0 || build->fixed_tail > 0) &&
      build_trunk(out, chunk, first, last, build->trunk_below, build->fixed_tail))
    return hines_fail(err, HINES_FAILURE, "out of memory");
  return HINES_OK;
}

int level_batch_build_chunk(struct level_build *build, int chunk, struct hines_error *err) {
  int status = level_batch_build_levels(build, chunk, 0, build->out->n_levels, err);
  return status ? status : level_batch_link_chunk(build, chunk, err);
}

int level_batch_level_groups(const struct level_build *build, int chunk, int groups,
                             int *first_level) {
  const struct level_batch *out = build->out;
  const int n_levels = out->n_levels;
  if (groups > n_levels)
    groups = n_levels;
  if (groups < 1)
    groups = 1;
  double *elements = calloc((size_t)n_levels, sizeof *elements), total = 0.0;
  int *copies = calloc((size_t)build->n_morphologies, sizeof *copies);
  if (!elements || !copies) {
    free(elements), free(copies);
    first_level[0] = 0, first_level[1] = n_levels;
    return 1;
  }
  for (int p = out->chunk_first_neuron[chunk]; p < out->chunk_first_neuron[chunk + 1]; p++)
    copies[level_batch_neuron_at(out, p) % build->n_morphologies]++;
  for (int morphology = 0; morphology < build->n_morphologies; morphology++) {
    const struct branch_children *l = &build->lists[morphology];
    const struct morphology *m = &build->morphologies[morphology];
    for (int level = 0; copies[morphology] && level < n_levels; level++)
      for (int at = l->level_first[level]; at < l->level_first[level + 1]; at++)
        elements[level] += (double)copies[morphology] * m->branch_size[l->by_level[at]];
  }
  free(copies);
  for (int level = 0; level < n_levels; level++)
    total += elements[level];
  /* group g ends at the first level where the running sum reaches (g + 1) / groups of it */
  int made = 0;
  double sum = 0.0;
  first_level[0] = 0;
  for (int level = 0; level < n_levels && made < groups - 1; level++) {
    sum += elements[level];
    if (sum >= total * (made + 1) / groups && level + 1 < n_levels)
      first_level[++made] = level + 1;
  }
  first_level[++made] = n_levels;
  free(elements);
  return made;
}

int level_batch_end(struct level_build *build, int status, struct hines_error *err) {
  struct level_batch *out = build->out;
  if (!status && fill_inverse_pivots(out, build->n_neurons))
    status = hines_fail(err, HINES_FAILURE, "out of memory");
  level_build_free(build);
  if (status)
    level_batch_free(out);
  return status;
}

int level_batch_build(const struct morphology *morphologies, int n_morphologies, int n_neurons,
                      const struct level_batch_options *options,
                      const struct cable_parameters *cable, double dt_ms, struct level_batch *out,
                      struct hines_error *err) {
  struct level_build *build;
  int status = level_batch_begin(morphologies, n_morphologies, n_neurons, options, cable, dt_ms,
                                 out, &build, err);
  for (int chunk = 0; !status && chunk < out->n_chunks; chunk++)
    status = level_batch_build_chunk(build, chunk, err);
  return status && !build ? status : level_batch_end(build, status, err);
}

/* A round-robin batch's (neuron k: cell k % M) first neuron of cell m among its last `tail`
 * neurons: from n_neurons - tail on, every M-th after it is a copy too. */
static int tail_first(int n_neurons, int n_morphologies, int tail, int m) {
  const int from = n_neurons - tail;
  return from + ((m - from) % n_morphologies + n_morphologies) % n_morphologies;
}

/* The copies of cell m among those last `tail` neurons. */
static int tail_copies(int n_neurons, int n_morphologies, int tail, int m) {
  const int first = tail_first(n_neurons, n_morphologies, tail, m);
  return first < n_neurons ? (n_neurons - 1 - first) / n_morphologies + 1 : 0;
}

int level_arranged_neuron(int n_neurons, int n_morphologies, int tail, int position) {
  const int from = n_neurons - tail; /* the tail's first neuron */
  if (tail <= 0 || position < from)
    return position;
  int at = position - from;
  for (int m = 0; m < n_morphologies; m++) {
    const int copies = tail_copies(n_neurons, n_morphologies, tail, m);
    if (at < copies)
      return tail_first(n_neurons, n_morphologies, tail, m) + at * n_morphologies;
    at -= copies;
  }
  return position; /* not reached: the tail holds tail positions */
}

void level_arranged_fill(int n_neurons, int n_morphologies, int tail, int *tail_neurons) {
  level_arranged_fill_lead(n_neurons, n_morphologies, tail, NULL, tail_neurons);
}

void level_arranged_fill_lead(int n_neurons, int n_morphologies, int tail, const int *lead,
                              int *tail_neurons) {
  int at = 0;
  for (int pass = lead ? 0 : 1; pass < 2; pass++)          /* the lead's copies, then the others */
    for (int m = 0; tail > 0 && m < n_morphologies; m++) { /* as level_arranged_neuron */
      int copy = 0;
      for (int k = tail_first(n_neurons, n_morphologies, tail, m); k < n_neurons;
           k += n_morphologies, copy++)
        if ((pass == 0) == (lead && copy < lead[m]))
          tail_neurons[at++] = k;
    }
}

/* The tail's positions in order, a morphology's copies at a time: the compartments of the
 * position at hand (arranged_walk_peek) and on to the next (arranged_walk_take), O(1) each. */
struct arranged_walk {
  const struct morphology *morphologies;
  int n_morphologies, n_neurons, from, morphology, left;
  const int *lead; /* each cell's copies at the tail's front, not walked (NULL: none) */
};

static int arranged_walk_peek(struct arranged_walk *w) {
  while (w->left == 0 && w->morphology + 1 < w->n_morphologies) {
    const int m = ++w->morphology;
    w->left = tail_copies(w->n_neurons, w->n_morphologies, w->n_neurons - w->from, m) -
              (w->lead ? w->lead[m] : 0);
  }
  return w->morphologies[w->morphology].n_compartments;
}

static int arranged_walk_take(struct arranged_walk *w) {
  const int compartments = arranged_walk_peek(w);
  w->left--;
  return compartments;
}

/* The tail's cells in order (as arranged_walk visits them): morphology m's copies at positions
 * [first[m], first[m + 1]) of the tail. */
struct arranged_cells {
  const struct morphology *morphologies;
  int n_morphologies;
  int *first; /* n_morphologies + 1 */
};

/* The compartments of the tail's positions before p. */
static long long arranged_compartments_before(const struct arranged_cells *cells, int p) {
  long long before = 0;
  for (int m = 0; m < cells->n_morphologies && cells->first[m] < p; m++) {
    const int end = cells->first[m + 1] < p ? cells->first[m + 1] : p;
    before += (long long)(end - cells->first[m]) * cells->morphologies[m].n_compartments;
  }
  return before;
}

/* The cell whose copies hold tail position p (p < the tail). */
static int arranged_cell_at(const struct arranged_cells *cells, int p) {
  int m = 0;
  while (cells->first[m + 1] <= p)
    m++;
  return m;
}

/* Where the chunk from `start` ends instead of `p` (its equal cut) when p leaves fewer than
 * LEVEL_ARRANGED_RUN copies of a cell beside another cell's in a chunk: the cell's first or last
 * position, whichever holds closer to the chunk's `target` compartments, that leaves the chunk a
 * neuron and the `after` chunks behind it one each; p where none does, or where the cell has
 * fewer copies than that in the tail (no cut makes its copies a run). */
static int arranged_snap(const struct arranged_cells *cells, int tail, int start, int p, int after,
                         long long target) {
  if (p >= tail)
    return p;
  const int m = arranged_cell_at(cells, p);
  const int lo = cells->first[m], hi = cells->first[m + 1];
  if (hi - lo < LEVEL_ARRANGED_RUN)
    return p;
  /* m's copies in the chunk (beside another cell's where it started before m) and after it */
  const int copies_in = p - (start > lo ? start : lo), copies_after = hi - p;
  const int fragment = (copies_in > 0 && copies_in < LEVEL_ARRANGED_RUN && start < lo) ||
                       (copies_after < LEVEL_ARRANGED_RUN && p > lo);
  if (!fragment)
    return p;
  int best = p;
  long long best_off = -1;
  const int candidates[2] = {lo, hi};
  for (int i = 0; i < 2; i++) {
    const int q = candidates[i];
    if (q <= start || q > tail - after || q == p)
      continue;
    const long long off = llabs(arranged_compartments_before(cells, q) - target);
    if (best_off < 0 || off < best_off)
      best = q, best_off = off;
  }
  return best;
}

/* level_arranged_cut_copies's cut by cells: every cell's copies in chunks of their own, as many
 * chunks a cell as keep `min_copies` copies in each (one at least) unless its chunks would then
 * hold more than LEVEL_ARRANGED_CELL_GROWTH times the equal cut's compartments; the chunks left
 * to the cells that can take more, one at a time to the cell whose chunks hold the most
 * compartments. 0 (sizes untouched) where the tail holds more cells than `chunks` or its cells
 * cannot take them all. */
static int arranged_cut_by_cells(const struct arranged_cells *cells, int chunks, int min_copies,
                                 int *sizes) {
  const int n = cells->n_morphologies;
  if (n < 1 || min_copies < 2)
    return 0;
  int *count = calloc((size_t)n, sizeof *count), *most = calloc((size_t)n, sizeof *most);
  int used = 0, cut = 0;
  long long total = 0;
  for (int m = 0; m < n; m++)
    total +=
        (long long)(cells->first[m + 1] - cells->first[m]) * cells->morphologies[m].n_compartments;
  for (int m = 0; count && most && m < n; m++) {
    const int copies = cells->first[m + 1] - cells->first[m];
    if (copies == 0)
      continue;
    const long long compartments = (long long)copies * cells->morphologies[m].n_compartments;
    /* the fewest chunks that keep each within the growth of the equal cut's */
    const long long fewest =
        (long long)ceil((double)compartments * chunks / (LEVEL_ARRANGED_CELL_GROWTH * total));
    long long allowed = copies / min_copies;
    if (allowed < fewest)
      allowed = fewest;
    most[m] = (int)(allowed < 1 ? 1 : allowed > copies ? copies : allowed);
    count[m] = 1;
    used++;
  }
  if (count && most && used <= chunks) {
    for (; used < chunks; used++) { /* the next chunk to the cell whose chunks are largest */
      int best = -1;
      double largest = 0.0;
      for (int m = 0; m < n; m++) {
        const double per_chunk = (double)(cells->first[m + 1] - cells->first[m]) *
                                 cells->morphologies[m].n_compartments / (count[m] ? count[m] : 1);
        if (count[m] > 0 && count[m] < most[m] && per_chunk > largest)
          best = m, largest = per_chunk;
      }
      if (best < 0)
        break;
      count[best]++;
    }
    if (used == chunks) {
      for (int m = 0, c = 0; m < n; m++) {
        const int copies = cells->first[m + 1] - cells->first[m];
        for (int k = 0; k < count[m]; k++)
          sizes[c++] = copies / count[m] + (k < copies % count[m]);
      }
      cut = 1;
    }
  }
  free(count);
  free(most);
  return cut;
}

void level_arranged_cut(const struct morphology *morphologies, int n_morphologies, int n_neurons,
                        int tail, int chunks, int *sizes) {
  level_arranged_cut_copies(morphologies, n_morphologies, n_neurons, tail, chunks,
                            LEVEL_ARRANGED_MIN_COPIES, sizes);
}

/* level_arranged_cut_copies of the tail's positions past the `lead` copies of each cell
 * (level_arranged_cut_after; NULL: none): positions, cells and walk counted from there. */
static void arranged_cut(const struct morphology *morphologies, int n_morphologies, int n_neurons,
                         int tail, const int *lead, int chunks, int min_copies, int *sizes) {
  int cut = tail; /* the positions cut */
  for (int m = 0; lead && m < n_morphologies; m++)
    cut -= lead[m];
  if (chunks < 1 || cut < chunks)
    return;
  const int from = n_neurons - tail;
  int *first = malloc((size_t)(n_morphologies + 1) * sizeof *first);
  struct arranged_cells cells = {morphologies, n_morphologies, first};
  if (first) { /* as arranged_walk_peek counts each cell's copies, less the lead's */
    first[0] = 0;
    for (int m = 0; m < n_morphologies; m++)
      first[m + 1] =
          first[m] + tail_copies(n_neurons, n_morphologies, tail, m) - (lead ? lead[m] : 0);
    if (min_copies > 1 && arranged_cut_by_cells(&cells, chunks, min_copies, sizes)) {
      free(first);
      return;
    }
  }
  const struct arranged_walk walk_start = {morphologies, n_morphologies, n_neurons, from, -1, 0,
                                           lead};
  struct arranged_walk walk = walk_start;
  long long total = 0;
  for (int p = 0; p < cut; p++)
    total += arranged_walk_take(&walk);
  walk = walk_start;
  long long before = 0; /* compartments of the chunks cut so far */
  for (int c = 0, p = 0, start = 0; c < chunks; c++, start = p) {
    const int after = chunks - c - 1; /* chunks after this one, a neuron each at least */
    const long long target = total * (c + 1) / chunks;
    /* a neuron joins the chunk where at least half of it lies before the chunk's target */
    while (p < cut - after) {
      const int compartments = arranged_walk_peek(&walk);
      if (p > start && after > 0 && before + compartments / 2 > target)
        break;
      before += arranged_walk_take(&walk);
      p++;
    }
    if (first && after > 0) {
      const int snapped = arranged_snap(&cells, cut, start, p, after, target);
      if (snapped != p) {
        p = snapped;
        before = arranged_compartments_before(&cells, p);
        walk = walk_start;
        for (int q = 0; q < p; q++)
          arranged_walk_take(&walk);
      }
    }
    sizes[c] = p - start;
  }
  free(first);
}

void level_arranged_cut_copies(const struct morphology *morphologies, int n_morphologies,
                               int n_neurons, int tail, int chunks, int min_copies, int *sizes) {
  arranged_cut(morphologies, n_morphologies, n_neurons, tail, NULL, chunks, min_copies, sizes);
}

void level_arranged_cut_after(const struct morphology *morphologies, int n_morphologies,
                              int n_neurons, int tail, const int *lead, int chunks, int *sizes) {
  arranged_cut(morphologies, n_morphologies, n_neurons, tail, lead, chunks,
               LEVEL_ARRANGED_MIN_COPIES, sizes);
}

/* The first chunk of group g when `chunks` chunks fall in `groups` groups, chunk c in group
 * c * groups / chunks (placement_home_node's devices). */
static int group_first(int g, int chunks, int groups) {
  return (int)(((long long)g * chunks + groups - 1) / groups);
}

int level_aligned_cut(int neurons, int n_morphologies, int chunks, int groups, int min_units,
                      int *sizes, int *rest) {
  *rest = 0;
  if (LEVEL_ALIGNED_COPIES <= 0 || n_morphologies < 1 || chunks < 1 || neurons < 1)
    return 0;
  const long long unit = (long long)LEVEL_ALIGNED_COPIES * n_morphologies;
  const long long units = neurons / unit;
  if (units < 1 || units < (long long)(min_units > 1 ? min_units : 1) * chunks)
    return 0;
  if (groups < 1 || groups > chunks)
    groups = groups < 1 ? 1 : chunks;
  /* The units past an equal share go one a group in turn (every group's first chunk, then every
   * group's second, ...), so that no group's chunks hold more than one unit more than another's:
   * over two GPUs the first four of eight chunks had taken all of them (all 15 shared cells x
   * 32,712 on two H200s: 36 units against 34, 1.89x one GPU). */
  const long long extra = units % chunks;
  for (int c = 0; c < chunks; c++) {
    const int group = (int)((long long)c * groups / chunks),
              position = c - group_first(group, chunks, groups);
    long long before = 0; /* chunks dealt a unit before this one */
    for (int g = 0; g < groups; g++) {
      const int size = group_first(g + 1, chunks, groups) - group_first(g, chunks, groups);
      before += (size < position ? size : position) + (g < group && size > position);
    }
    sizes[c] = (int)((units / chunks + (before < extra)) * unit);
  }
  const int left = (int)(neurons - units * unit);
  if (left > 0)
    sizes[chunks] = left, *rest = 1;
  return chunks;
}

int level_aligned_share_shift(int neurons, int n_morphologies, int gpu_chunks, int min_units,
                              int cpu_share, int cpu_chunks, double growth, double give) {
  const int gpu_neurons = neurons - cpu_share;
  if (LEVEL_ALIGNED_COPIES <= 0 || n_morphologies < 1 || gpu_chunks < 1 || cpu_chunks < 1 ||
      cpu_share < cpu_chunks || gpu_neurons < 1)
    return 0;
  const long long unit = (long long)LEVEL_ALIGNED_COPIES * n_morphologies;
  const long long units = gpu_neurons / unit;
  const int left = (int)(gpu_neurons - units * unit);
  if (units < (long long)(min_units > 1 ? min_units : 1) * gpu_chunks)
    return 0;
  if (left == 0 || left <= growth * cpu_share)
    return left;
  const int complement = (int)(unit - left);
  return complement <= give * gpu_neurons && cpu_share - complement >= cpu_chunks ? -complement : 0;
}

int level_aligned_set_up(int neurons, int n_morphologies, int gpu_chunks, int min_units,
                         int cpu_share, double growth) {
  if (LEVEL_ALIGNED_COPIES <= 0 || n_morphologies < 1 || gpu_chunks < 1 || cpu_share < 1 ||
      neurons <= cpu_share)
    return 0;
  const long long unit = (long long)LEVEL_ALIGNED_COPIES * n_morphologies;
  const long long left = (neurons - cpu_share) % unit;
  const long long up = cpu_share + (left > 0 ? left : unit);
  if (up > neurons / 2 || up > growth * cpu_share)
    return 0;
  return (neurons - up) / unit >= (long long)(min_units > 1 ? min_units : 1) * gpu_chunks ? (int)up
                                                                                          : 0;
}

long long level_arranged_compartments(const struct morphology *morphologies, int n_morphologies,
                                      int n_neurons, int tail, const int *lead) {
  long long compartments = 0;
  for (int m = 0; m < n_morphologies; m++)
    compartments +=
        (long long)(tail_copies(n_neurons, n_morphologies, tail, m) - (lead ? lead[m] : 0)) *
        morphologies[m].n_compartments;
  return compartments;
}

int level_aligned_lead(const struct morphology *morphologies, int n_morphologies, int neurons,
                       int units, double target, int *lead, long long *share_compartments) {
  const long long unit = (long long)LEVEL_ALIGNED_COPIES * n_morphologies;
  *share_compartments = 0;
  for (int m = 0; m < n_morphologies; m++)
    lead[m] = 0;
  if (LEVEL_ALIGNED_COPIES <= 0 || n_morphologies < 1 || units < 1 || units * unit >= neurons)
    return 0;
  const int tail = (int)(neurons - units * unit);
  long long tail_compartments = 0;
  int warps = 0; /* the warps the tail holds, a cell's copies LEVEL_ALIGNED_COPIES at a time */
  for (int m = 0; m < n_morphologies; m++) {
    const int copies = tail_copies(neurons, n_morphologies, tail, m);
    tail_compartments += (long long)copies * morphologies[m].n_compartments;
    warps += copies / LEVEL_ALIGNED_COPIES;
  }
  /* What the GPUs may take and leave the cores `target` compartments: the most that fits, a 0/1
   * knapsack over the warps with each warp's weight rounded up to a grid of LEAD_GRID steps (so
   * what fits on the grid fits), its value exact, then any warp that still fits exactly. */
  enum { LEAD_GRID = 4096 };
  const double room = (double)tail_compartments - target;
  int *item = malloc((size_t)(warps > 0 ? warps : 1) * sizeof *item);
  unsigned char *took = calloc((size_t)(warps > 0 ? warps : 1) * (LEAD_GRID + 1), 1);
  long long *best = malloc((LEAD_GRID + 1) * sizeof *best); /* -1: no choice weighs that */
  if (room > 0.0 && warps > 0 && item && took && best) {
    for (int m = 0, w = 0; m < n_morphologies; m++)
      for (int k = tail_copies(neurons, n_morphologies, tail, m) / LEVEL_ALIGNED_COPIES; k > 0; k--)
        item[w++] = m;
    const double step = room / LEAD_GRID;
    for (int g = 0; g <= LEAD_GRID; g++)
      best[g] = g == 0 ? 0 : -1;
    for (int w = 0; w < warps; w++) {
      const long long value =
          (long long)LEVEL_ALIGNED_COPIES * morphologies[item[w]].n_compartments;
      if (value / step > LEAD_GRID)
        continue;
      const int cells = (int)ceil(value / step);
      for (int g = LEAD_GRID; g >= cells; g--)
        if (best[g - cells] >= 0 && best[g - cells] + value > best[g])
          best[g] = best[g - cells] + value, took[(size_t)w * (LEAD_GRID + 1) + g] = 1;
    }
    int g = 0;
    for (int h = 1; h <= LEAD_GRID; h++)
      g = best[h] > best[g] ? h : g;
    for (int w = warps - 1; w >= 0 && g > 0; w--) /* back through the warps that made best[g] */
      if (took[(size_t)w * (LEAD_GRID + 1) + g]) {
        lead[item[w]] += LEVEL_ALIGNED_COPIES;
        g -= (int)ceil((double)LEVEL_ALIGNED_COPIES * morphologies[item[w]].n_compartments / step);
      }
  }
  free(item);
  free(took);
  free(best);
  long long taken = 0;
  for (int m = 0; m < n_morphologies; m++)
    taken += (long long)lead[m] * morphologies[m].n_compartments;
  for (int m = 0; m < n_morphologies && room > 0.0; m++) /* warps that still fit exactly */
    while (lead[m] + LEVEL_ALIGNED_COPIES <= tail_copies(neurons, n_morphologies, tail, m) &&
           taken + (long long)LEVEL_ALIGNED_COPIES * morphologies[m].n_compartments <= room) {
      lead[m] += LEVEL_ALIGNED_COPIES;
      taken += (long long)LEVEL_ALIGNED_COPIES * morphologies[m].n_compartments;
    }
  int share = tail;
  for (int m = 0; m < n_morphologies; m++)
    share -= lead[m];
  *share_compartments = tail_compartments - taken;
  return share;
}

void level_batch_locate(const struct level_batch *batch, int neuron, int compartment, int *block,
                        int *element) {
  const struct morphology *m = &batch->morphologies[neuron % batch->n_morphologies];
  if (batch->rerooted)
    compartment = batch->internal_compartment[neuron % batch->n_morphologies][compartment];
  const int chunk = level_batch_chunk_of(batch, neuron);
  int branch = m->branch_of[compartment];
  int system = batch->branch_system[batch->branch_offset[neuron] + branch];
  *block = chunk * batch->n_levels + batch->branch_level[neuron % batch->n_morphologies][branch];
  struct level_block_view v = level_block_describe(batch->blocks[*block]);
  *element = v.row_offset[compartment - m->branch_start[branch]] + system;
}
