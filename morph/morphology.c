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

int morphology_from_tree(const char *name, int n, const int *source_parent,
                         const struct compartment_geometry *geometry, struct morphology *out,
                         struct hines_error *err) {
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
  free(order);
  free(new_index);
  if (record_branches(out)) {
    morphology_free(out);
    return hines_fail(err, HINES_FAILURE, "%s: out of memory", name);
  }
  return HINES_OK;
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
