#include "morphology.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void morphology_free(struct morphology *m) {
  if (!m)
    return;
  free(m->name);
  free(m->parent);
  free(m->geometry);
  free(m->branch_start);
  free(m->branch_size);
  free(m->branch_junction);
  free(m->branch_parent);
  free(m->branch_level);
  free(m->branch_of);
  memset(m, 0, sizeof *m);
}

/* Children of every node as compressed lists, in source order. */
struct child_lists {
  int *first; /* n + 1 offsets */
  int *child;
};

static int child_lists_build(int n, const int *parent, struct child_lists *lists) {
  lists->first = calloc((size_t)n + 1, sizeof(int));
  lists->child = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
  int *fill = calloc((size_t)n + 1, sizeof(int));
  if (!lists->first || !lists->child || !fill) {
    free(fill);
    return HINES_FAILURE;
  }
  for (int k = 0; k < n; k++)
    if (parent[k] >= 0)
      lists->first[parent[k] + 1]++;
  for (int k = 0; k < n; k++)
    lists->first[k + 1] += lists->first[k];
  for (int k = 0; k < n; k++)
    if (parent[k] >= 0) {
      int p = parent[k];
      lists->child[lists->first[p] + fill[p]++] = k;
    }
  free(fill);
  return HINES_OK;
}

static void child_lists_free(struct child_lists *lists) {
  free(lists->first);
  free(lists->child);
}

static int record_branches(struct morphology *m) {
  int n = m->n_compartments;
  int *n_children = calloc((size_t)n, sizeof(int));
  m->branch_of = malloc((size_t)n * sizeof(int));
  if (!n_children || !m->branch_of) {
    free(n_children);
    return HINES_FAILURE;
  }
  for (int i = 1; i < n; i++)
    n_children[m->parent[i]]++;
  /* A compartment starts a branch when it is the root or its parent does not continue in a
   * single line (the parent has several children). In depth-first order such a branch is the
   * run of compartments up to the next branch start. */
  int n_branches = 0;
  for (int i = 0; i < n; i++)
    if (i == 0 || n_children[m->parent[i]] != 1)
      n_branches++;
  m->n_branches = n_branches;
  m->branch_start = malloc((size_t)n_branches * sizeof(int));
  m->branch_size = calloc((size_t)n_branches, sizeof(int));
  m->branch_junction = malloc((size_t)n_branches * sizeof(int));
  m->branch_parent = malloc((size_t)n_branches * sizeof(int));
  m->branch_level = malloc((size_t)n_branches * sizeof(int));
  if (!m->branch_start || !m->branch_size || !m->branch_junction || !m->branch_parent ||
      !m->branch_level) {
    free(n_children);
    return HINES_FAILURE;
  }
  int b = -1;
  int *depth = malloc((size_t)n * sizeof(int));
  if (!depth) {
    free(n_children);
    return HINES_FAILURE;
  }
  m->n_levels = 0;
  m->max_depth = 0;
  m->total_length_um = 0;
  for (int i = 0; i < n; i++) {
    if (i == 0 || n_children[m->parent[i]] != 1) {
      b++;
      m->branch_start[b] = i;
      m->branch_junction[b] = i == 0 ? -1 : m->parent[i];
      m->branch_parent[b] = i == 0 ? -1 : m->branch_of[m->parent[i]];
      m->branch_level[b] = i == 0 ? 0 : m->branch_level[m->branch_parent[b]] + 1;
      if (m->branch_level[b] + 1 > m->n_levels)
        m->n_levels = m->branch_level[b] + 1;
    }
    m->branch_of[i] = b;
    m->branch_size[b]++;
    depth[i] = i == 0 ? 1 : depth[m->parent[i]] + 1;
    if (depth[i] > m->max_depth)
      m->max_depth = depth[i];
    m->total_length_um += m->geometry[i].length_um;
  }
  free(depth);
  free(n_children);
  return HINES_OK;
}

/* morphology_from_tree, also telling where each source compartment went (new_index_out[k]: the
 * Hines index of source compartment k; NULL: not wanted). */
static int from_tree(const char *name, int n, const int *source_parent,
                     const struct compartment_geometry *geometry, struct morphology *out,
                     int *new_index_out, struct hines_error *err) {
  memset(out, 0, sizeof *out);
  if (n <= 0)
    return hines_fail(err, HINES_BAD_INPUT, "%s: morphology has no compartments", name);
  int root = -1;
  for (int k = 0; k < n; k++) {
    if (source_parent[k] < -1 || source_parent[k] >= n)
      return hines_fail(err, HINES_BAD_INPUT, "%s: compartment %d has parent %d out of range", name,
                        k, source_parent[k]);
    if (source_parent[k] == k)
      return hines_fail(err, HINES_BAD_INPUT, "%s: compartment %d is its own parent", name, k);
    if (source_parent[k] == -1) {
      if (root >= 0)
        return hines_fail(err, HINES_BAD_INPUT, "%s: several roots (compartments %d and %d)", name,
                          root, k);
      root = k;
    }
  }
  if (root < 0)
    return hines_fail(err, HINES_BAD_INPUT, "%s: no root compartment (every parent is set)", name);

  struct child_lists lists;
  int *order = malloc((size_t)n * sizeof(int)); /* Hines index -> source index */
  int *stack = malloc((size_t)n * sizeof(int));
  int *new_index = malloc((size_t)n * sizeof(int));
  if (!order || !stack || !new_index || child_lists_build(n, source_parent, &lists)) {
    free(order);
    free(stack);
    free(new_index);
    return hines_fail(err, HINES_FAILURE, "%s: out of memory", name);
  }
  /* Iterative depth-first preorder; children pushed in reverse so they are visited in
   * source order. Preorder gives parent < child and keeps unbranched runs contiguous. */
  int visited = 0, top = 0;
  stack[top++] = root;
  while (top > 0) {
    int k = stack[--top];
    new_index[k] = visited;
    order[visited++] = k;
    for (int c = lists.first[k + 1] - 1; c >= lists.first[k]; c--)
      stack[top++] = lists.child[c];
  }
  child_lists_free(&lists);
  free(stack);
  if (visited != n) {
    free(order);
    free(new_index);
    return hines_fail(err, HINES_BAD_INPUT,
                      "%s: %d compartments are not connected to the root (a cycle)", name,
                      n - visited);
  }

  out->name = strdup(name);
  out->n_compartments = n;
  out->parent = malloc((size_t)n * sizeof(int));
  out->geometry = malloc((size_t)n * sizeof *out->geometry);
  if (!out->name || !out->parent || !out->geometry) {
    free(order);
    free(new_index);
    morphology_free(out);
    return hines_fail(err, HINES_FAILURE, "%s: out of memory", name);
  }
  for (int i = 0; i < n; i++) {
    int k = order[i];
    out->parent[i] = source_parent[k] < 0 ? -1 : new_index[source_parent[k]];
    out->geometry[i] = geometry[k];
  }
  if (new_index_out)
    memcpy(new_index_out, new_index, (size_t)n * sizeof(int));
  free(order);
  free(new_index);
  if (record_branches(out)) {
    morphology_free(out);
    return hines_fail(err, HINES_FAILURE, "%s: out of memory", name);
  }
  return HINES_OK;
}

int morphology_from_tree(const char *name, int n, const int *source_parent,
                         const struct compartment_geometry *geometry, struct morphology *out,
                         struct hines_error *err) {
  return from_tree(name, n, source_parent, geometry, out, NULL, err);
}

/* Distances (compartments on the path, both ends counted) from `from` to every compartment;
 * returns the farthest compartment (the first of equals). */
static int distances_from(const struct morphology *m, const struct child_lists *children, int from,
                          int *distance, int *queue) {
  const int n = m->n_compartments;
  for (int i = 0; i < n; i++)
    distance[i] = 0;
  int head = 0, tail = 0, farthest = from;
  distance[from] = 1;
  queue[tail++] = from;
  while (head < tail) {
    const int u = queue[head++];
    if (distance[u] > distance[farthest] || (distance[u] == distance[farthest] && u < farthest))
      farthest = u;
    const int parent = m->parent[u];
    if (parent >= 0 && !distance[parent]) {
      distance[parent] = distance[u] + 1;
      queue[tail++] = parent;
    }
    for (int c = children->first[u]; c < children->first[u + 1]; c++)
      if (!distance[children->child[c]]) {
        distance[children->child[c]] = distance[u] + 1;
        queue[tail++] = children->child[c];
      }
  }
  return farthest;
}

int morphology_center(const struct morphology *m, int *height) {
  const int n = m->n_compartments;
  struct child_lists children;
  int *to_a = malloc((size_t)n * sizeof(int)), *to_b = malloc((size_t)n * sizeof(int));
  int *queue = malloc((size_t)n * sizeof(int));
  if (!to_a || !to_b || !queue || child_lists_build(n, m->parent, &children)) {
    free(to_a), free(to_b), free(queue);
    return -1;
  }
  /* A longest path runs between the compartment farthest from any start (a) and the one
   * farthest from a (b); a compartment's height as a root is its distance to the farther of
   * the two, least at the path's middle. Equal heights: the smaller index, so the soma (0)
   * keeps the root where it is as low. */
  const int a = distances_from(m, &children, 0, to_a, queue);
  const int b = distances_from(m, &children, a, to_a, queue);
  distances_from(m, &children, b, to_b, queue);
  int center = 0, least = n + 1;
  for (int i = 0; i < n; i++) {
    const int h = to_a[i] > to_b[i] ? to_a[i] : to_b[i];
    if (h < least)
      least = h, center = i;
  }
  if (height)
    *height = least;
  child_lists_free(&children);
  free(to_a), free(to_b), free(queue);
  return center;
}

int morphology_reroot(const struct morphology *m, int root, struct morphology *out, int *new_index,
                      struct hines_error *err) {
  const int n = m->n_compartments;
  if (root < 0 || root >= n)
    return hines_fail(err, HINES_FAILURE, "%s: no compartment %d to root at", m->name, root);
  int *source_parent = malloc((size_t)n * sizeof(int));
  struct compartment_geometry *geometry = malloc((size_t)n * sizeof *geometry);
  if (!source_parent || !geometry) {
    free(source_parent), free(geometry);
    return hines_fail(err, HINES_FAILURE, "%s: out of memory", m->name);
  }
  memcpy(source_parent, m->parent, (size_t)n * sizeof(int));
  memcpy(geometry, m->geometry, (size_t)n * sizeof *geometry);
  /* Every edge on the path from the new root up to the old one turns round. The axial path of an
   * integrated compartment belongs to the edge to its parent, so it moves with the edge: the
   * path's next compartment takes it from the one below. A cylinder's half resistances add the
   * same either way round. */
  int below = -1;
  double below_path = 0.0;
  for (int u = root; u >= 0;) {
    const int up = m->parent[u];
    const double own_path = m->geometry[u].axial_path_per_um;
    source_parent[u] = below;
    geometry[u].axial_path_per_um = below < 0 ? 0.0 : below_path;
    below = u, below_path = own_path;
    u = up;
  }
  const int status = from_tree(m->name, n, source_parent, geometry, out, new_index, err);
  free(source_parent), free(geometry);
  return status;
}

int morphology_from_parents(const char *name, int n, const int *source_parent,
                            struct morphology *out, struct hines_error *err) {
  struct compartment_geometry *unit = malloc((size_t)(n > 0 ? n : 1) * sizeof *unit);
  if (!unit)
    return hines_fail(err, HINES_FAILURE, "%s: out of memory", name);
  for (int k = 0; k < n; k++)
    unit[k] = (struct compartment_geometry){.length_um = 1.0, .radius_um = 1.0, .swc_type = 3};
  int status = morphology_from_tree(name, n, source_parent, unit, out, err);
  free(unit);
  return status;
}

int morphology_check(const struct morphology *m, struct hines_error *err) {
  int n = m->n_compartments;
  if (n <= 0 || m->parent[0] != -1)
    return hines_fail(err, HINES_FAILURE, "%s: root is not compartment 0", m->name);
  for (int i = 1; i < n; i++)
    if (m->parent[i] < 0 || m->parent[i] >= i)
      return hines_fail(err, HINES_FAILURE, "%s: parent[%d] = %d is not below %d", m->name, i,
                        m->parent[i], i);
  int covered = 0;
  for (int b = 0; b < m->n_branches; b++) {
    int start = m->branch_start[b], size = m->branch_size[b];
    if (start != covered || size <= 0)
      return hines_fail(err, HINES_FAILURE, "%s: branch %d is not contiguous", m->name, b);
    covered += size;
    for (int i = start; i < start + size; i++) {
      if (m->branch_of[i] != b)
        return hines_fail(err, HINES_FAILURE, "%s: compartment %d not in branch %d", m->name, i, b);
      if (i > start && m->parent[i] != i - 1)
        return hines_fail(err, HINES_FAILURE, "%s: branch %d is not a chain at %d", m->name, b, i);
    }
    if (b == 0) {
      if (start != 0 || m->branch_junction[b] != -1 || m->branch_level[b] != 0)
        return hines_fail(err, HINES_FAILURE, "%s: bad root branch", m->name);
      continue;
    }
    int junction = m->branch_junction[b], pb = m->branch_parent[b];
    if (m->parent[start] != junction || m->branch_of[junction] != pb ||
        junction != m->branch_start[pb] + m->branch_size[pb] - 1)
      return hines_fail(err, HINES_FAILURE,
                        "%s: branch %d does not hang from the end of its "
                        "parent branch",
                        m->name, b);
    if (m->branch_level[b] != m->branch_level[pb] + 1 || m->branch_level[b] >= m->n_levels)
      return hines_fail(err, HINES_FAILURE, "%s: branch %d has inconsistent level", m->name, b);
  }
  if (covered != n)
    return hines_fail(err, HINES_FAILURE, "%s: branches cover %d of %d compartments", m->name,
                      covered, n);
  return HINES_OK;
}
