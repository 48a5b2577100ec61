/* Roots at the cells' centers (morph/morphology.h: morphology_center, morphology_reroot): the
 * center is the lowest root of all, found against every compartment tried as the root; a
 * re-rooted cell is the same cable (every compartment's membrane and every edge's axial
 * conductance the same bits, the diagonal's sums to rounding), on fresh random trees (cylinder
 * geometry) and a real cell in NEURON's integrated geometry (morph/data). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cable.h"
#include "morph_spec.h"
#include "morphology.h"
#include "synthetic.h"
#include "testing.h"

static uint64_t random_state;

/* Every compartment as the root: none gives a lower tree than the center, and the center's
 * height is the re-rooted tree's. */
static void assert_center_is_lowest(const struct morphology *m) {
  int height = 0;
  const int center = morphology_center(m, &height);
  assert_in_range(center, 0, m->n_compartments - 1);
  int lowest = m->n_compartments + 1;
  int *new_index = malloc((size_t)m->n_compartments * sizeof(int));
  for (int root = 0; root < m->n_compartments; root++) {
    struct morphology r;
    struct hines_error err;
    assert_int_equal(morphology_reroot(m, root, &r, new_index, &err), HINES_OK);
    assert_int_equal(morphology_check(&r, &err), HINES_OK);
    assert_int_equal(new_index[root], 0);
    if (r.max_depth < lowest)
      lowest = r.max_depth;
    if (root == center)
      assert_int_equal(r.max_depth, height);
    if (root == 0) /* the soma's own root renumbers nothing */
      for (int i = 0; i < m->n_compartments; i++)
        assert_int_equal(new_index[i], i);
    morphology_free(&r);
  }
  free(new_index);
  if (height != lowest)
    fail_msg("%s: center %d has height %d, the lowest root %d", m->name, center, height, lowest);
  assert_true(height <= m->max_depth);
}

/* The cable of the cell rooted at its center against the cell as given. */
static void assert_same_cable(const struct morphology *m) {
  const int n = m->n_compartments;
  const int center = morphology_center(m, NULL);
  int *new_index = malloc((size_t)n * sizeof(int));
  struct morphology r;
  struct hines_error err;
  assert_int_equal(morphology_reroot(m, center, &r, new_index, &err), HINES_OK);
  struct cable_coefficients given, rerooted;
  assert_int_equal(cable_coefficients_build(m, &cable_defaults, &given, &err), HINES_OK);
  assert_int_equal(cable_coefficients_build(&r, &cable_defaults, &rerooted, &err), HINES_OK);
  for (int i = 0; i < n; i++) {
    const int j = new_index[i];
    assert_true(given.area_um2[i] == rerooted.area_um2[j]);
    assert_true(given.capacitance_nF[i] == rerooted.capacitance_nF[j]);
    assert_true(given.leak_uS[i] == rerooted.leak_uS[j]);
    /* The same sums in another order. */
    if (fabs(given.axial_sum_uS[i] - rerooted.axial_sum_uS[j]) >
        4e-16 * fabs(given.axial_sum_uS[i]) * (m->n_compartments > 1 ? 4 : 1))
      fail_msg("%s: compartment %d's axial conductances add up to %.17g, re-rooted %.17g", m->name,
               i, given.axial_sum_uS[i], rerooted.axial_sum_uS[j]);
    if (i == 0)
      continue;
    /* The edge to the parent: stored on whichever end is the child now. */
    const int p = new_index[m->parent[i]];
    const int child = r.parent[j] == p ? j : p;
    assert_true(r.parent[j] == p || r.parent[p] == j);
    if (given.off_diagonal[i] != rerooted.off_diagonal[child])
      fail_msg("%s: the edge %d-%d has %.17g, re-rooted %.17g", m->name, i, m->parent[i],
               given.off_diagonal[i], rerooted.off_diagonal[child]);
  }
  cable_coefficients_free(&given);
  cable_coefficients_free(&rerooted);
  morphology_free(&r);
  free(new_index);
}

/* `check` on `count` fresh random trees of 2 to `largest` compartments. */
static void on_random_trees(int count, int largest, void (*check)(const struct morphology *)) {
  for (int t = 0; t < count; t++) {
    struct morphology m;
    struct hines_error err;
    assert_int_equal(
        synthetic_random(2, largest, (unsigned)testing_below(&random_state, 1 << 30), &m, &err),
        HINES_OK);
    check(&m);
    morphology_free(&m);
  }
}

static void center_is_the_lowest_root(void **state) {
  (void)state;
  on_random_trees(12, 300, assert_center_is_lowest);
  /* A chain of 9 from its end: the middle, 5 compartments a side. */
  const int chain[] = {-1, 0, 1, 2, 3, 4, 5, 6, 7};
  struct morphology m;
  struct hines_error err;
  assert_int_equal(morphology_from_parents("chain", 9, chain, &m, &err), HINES_OK);
  int height;
  assert_int_equal(morphology_center(&m, &height), 4);
  assert_int_equal(height, 5);
  assert_center_is_lowest(&m);
  morphology_free(&m);
  /* One compartment: its own center. */
  const int one[] = {-1};
  assert_int_equal(morphology_from_parents("one", 1, one, &m, &err), HINES_OK);
  assert_int_equal(morphology_center(&m, &height), 0);
  assert_int_equal(height, 1);
  morphology_free(&m);
}

static void rerooted_cells_are_the_same_cable(void **state) {
  (void)state;
  on_random_trees(6, 2000, assert_same_cable);
  /* NEURON's geometry: axial paths integrated between nodes, a soma sphere in the middle. */
  const char *cells[] = {"morph/data/Cha-F-000012.CNG.swc", "morph/data/morph_allen_485574832.swc"};
  for (size_t c = 0; c < sizeof cells / sizeof *cells; c++) {
    struct morphology m;
    struct hines_error err;
    assert_int_equal(morphology_load_spec(testing_source_path(cells[c]), NULL, &m, &err), HINES_OK);
    assert_true(m.geometry[0].is_integrated);
    assert_same_cable(&m);
    if (c == 0)
      assert_center_is_lowest(&m);
    int height;
    morphology_center(&m, &height);
    print_message("# %s: longest root-to-leaf path %d compartments from the soma, %d from the "
                  "center\n",
                  cells[c], m.max_depth, height);
    morphology_free(&m);
  }
}

int main(void) {
  random_state = testing_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(center_is_the_lowest_root),
      cmocka_unit_test(rerooted_cells_are_the_same_cable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
