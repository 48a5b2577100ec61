/* Synthetic morphologies (morph/synthetic.c) and the --morph spec grammar (morph/morph_spec.c):
 * exact compartment and branch counts, determinism, the Fig. 6 rounding rule, the Fig. 14 level
 * layout, and the one-line messages for bad specs. Random cases draw from testing_seed(). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph_spec.h"
#include "synthetic.h"
#include "testing.h"

static uint64_t random_state;

static unsigned random_seed(void) {
  return (unsigned)testing_below(&random_state, INT_MAX);
}

static int branch_size_min(const struct morphology *m) {
  int smallest = INT_MAX;
  for (int b = 0; b < m->n_branches; b++)
    smallest = m->branch_size[b] < smallest ? m->branch_size[b] : smallest;
  return smallest;
}

static int branch_size_max(const struct morphology *m) {
  int largest = 0;
  for (int b = 0; b < m->n_branches; b++)
    largest = m->branch_size[b] > largest ? m->branch_size[b] : largest;
  return largest;
}

/* The shape contract of every generator: exact counts, the solver invariants, a soma sphere at
 * the root, 10 um cylinders elsewhere whose radius never grows away from the soma. */
static void assert_synthetic_shape(const struct morphology *m, int compartments, int branches) {
  struct hines_error err = {{0}};
  assert_int_equal(m->n_compartments, compartments);
  assert_int_equal(m->n_branches, branches);
  if (morphology_check(m, &err) != HINES_OK)
    fail_msg("%s", err.message);
  assert_true(branch_size_min(m) >= 1);
  assert_int_equal(m->geometry[0].is_sphere, 1);
  assert_int_equal(m->geometry[0].swc_type, 1);
  assert_true(m->geometry[0].radius_um == 10.0);
  for (int i = 1; i < m->n_compartments; i++) {
    const struct compartment_geometry *g = &m->geometry[i];
    assert_int_equal(g->is_sphere, 0);
    assert_int_equal(g->swc_type, 3);
    assert_true(g->length_um == 10.0);
    assert_true(g->radius_um >= 0.2 && g->radius_um <= 1.0);
    int p = m->parent[i];
    if (p > 0)
      assert_true(g->radius_um <= m->geometry[p].radius_um);
  }
}

static int same_tree(const struct morphology *a, const struct morphology *b) {
  return a->n_compartments == b->n_compartments && a->n_branches == b->n_branches &&
         memcmp(a->parent, b->parent, (size_t)a->n_compartments * sizeof(int)) == 0 &&
         memcmp(a->geometry, b->geometry, (size_t)a->n_compartments * sizeof *a->geometry) == 0;
}

static void assert_empty(const struct morphology *m) {
  assert_null(m->name);
  assert_null(m->parent);
  assert_int_equal(m->n_compartments, 0);
}

/* Table 1 of the papers, typed in independently of synthetic.c. */
static void test_class_table_is_table_1(void **state) {
  (void)state;
  static const struct synthetic_class_info table_1[6] = {
      {"small-low", 76, 7},      {"small-high", 76, 29}, {"medium-low", 305, 30},
      {"medium-high", 319, 157}, {"big-low", 695, 66},   {"big-high", 691, 341},
  };
  for (int c = 0; c < 6; c++) {
    assert_string_equal(synthetic_classes[c].name, table_1[c].name);
    assert_int_equal(synthetic_classes[c].compartments, table_1[c].compartments);
    assert_int_equal(synthetic_classes[c].branches, table_1[c].branches);
  }
}

static void test_classes_have_exact_counts(void **state) {
  (void)state;
  unsigned seeds[] = {1, 2, random_seed(), random_seed()};
  for (int c = 0; c < 6; c++)
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
      struct morphology m;
      struct hines_error err = {{0}};
      if (synthetic_class(synthetic_classes[c].name, seeds[s], &m, &err) != HINES_OK)
        fail_msg("%s", err.message);
      assert_synthetic_shape(&m, synthetic_classes[c].compartments, synthetic_classes[c].branches);
      /* Branch lengths vary rather than being a regular comb. */
      assert_true(branch_size_max(&m) > branch_size_min(&m));
      morphology_free(&m);
    }
}

static void test_unknown_class_is_rejected(void **state) {
  (void)state;
  struct morphology m;
  struct hines_error err = {{0}};
  assert_int_equal(synthetic_class("huge-low", 1, &m, &err), HINES_BAD_INPUT);
  assert_string_equal(err.message, "huge-low: unknown class (one of small-low small-high "
                                   "medium-low medium-high big-low big-high)");
  assert_empty(&m);
}

static void test_same_seed_same_tree_other_seed_other_tree(void **state) {
  (void)state;
  for (int c = 0; c < 6; c++) {
    unsigned seed = random_seed();
    struct morphology a, b, other;
    struct hines_error err = {{0}};
    assert_int_equal(synthetic_class(synthetic_classes[c].name, seed, &a, &err), HINES_OK);
    assert_int_equal(synthetic_class(synthetic_classes[c].name, seed, &b, &err), HINES_OK);
    assert_int_equal(synthetic_class(synthetic_classes[c].name, seed + 1, &other, &err), HINES_OK);
    assert_true(same_tree(&a, &b));
    assert_memory_equal(a.branch_size, b.branch_size, (size_t)a.n_branches * sizeof(int));
    assert_false(same_tree(&a, &other));
    /* The branching pattern itself is random, not only the branch lengths. */
    if (a.n_branches >= 29)
      assert_memory_not_equal(a.branch_parent, other.branch_parent,
                              (size_t)a.n_branches * sizeof(int));
    morphology_free(&a);
    morphology_free(&b);
    morphology_free(&other);
  }
}

/* Fig. 6 rule: branches = lround(percent * n / 100), within 0.5 of the request whenever the
 * request is at least 2.5 branches (always the case for 10 % of 100..1000). */
static void test_fig6_hits_requested_share(void **state) {
  (void)state;
  const double percents[] = {10.0, 50.0};
  unsigned seed = random_seed();
  for (int n = 100; n <= 1000; n++)
    for (int p = 0; p < 2; p++) {
      struct morphology m;
      struct hines_error err = {{0}};
      if (synthetic_fig6(n, percents[p], seed, &m, &err) != HINES_OK)
        fail_msg("%s", err.message);
      double requested = percents[p] * n / 100.0;
      assert_int_equal(m.n_branches, (int)lround(requested));
      assert_true(fabs(m.n_branches - requested) <= 0.5);
      assert_synthetic_shape(&m, n, m.n_branches);
      morphology_free(&m);
    }
}

/* Where the rounded request is not achievable (0, 2, or more than n) the documented nearest
 * achievable count is used: 1, 3 (n >= 3, else 1), n. */
static void test_fig6_adjusts_unachievable_requests(void **state) {
  (void)state;
  static const struct {
    int compartments;
    double percent;
    int branches;
  } cases[] = {
      {10, 10, 1},  /* 1 branch requested: a chain */
      {4, 10, 1},   /* 0.4 rounds to 0 -> 1 */
      {5, 0, 1},    /* no branching at all */
      {20, 10, 3},  /* 2 is impossible, ties go up to 3 */
      {15, 10, 3},  /* 1.5 rounds to 2 -> 3 */
      {25, 10, 3},  /* 2.5 rounds to 3 */
      {2, 100, 1},  /* 2 compartments: only a chain exists */
      {3, 100, 3},  /* a soma with two children */
      {40, 100, 40} /* every compartment starts a branch */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    struct morphology m;
    struct hines_error err = {{0}};
    if (synthetic_fig6(cases[k].compartments, cases[k].percent, 7, &m, &err) != HINES_OK)
      fail_msg("%s", err.message);
    assert_synthetic_shape(&m, cases[k].compartments, cases[k].branches);
    morphology_free(&m);
  }
  struct morphology m;
  struct hines_error err = {{0}};
  assert_int_equal(synthetic_fig6(100, 101, 1, &m, &err), HINES_BAD_INPUT);
  assert_int_equal(synthetic_fig6(100, -1, 1, &m, &err), HINES_BAD_INPUT);
  assert_int_equal(synthetic_fig6(100, NAN, 1, &m, &err), HINES_BAD_INPUT);
  assert_int_equal(synthetic_fig6(0, 10, 1, &m, &err), HINES_BAD_INPUT);
  assert_empty(&m);
}

static void test_fig14_levels(void **state) {
  (void)state;
  /* Branch size per level: the root branch holds 256, each level half of what remains. */
  static const int sizes[5][4] = {[2] = {256, 128}, [3] = {256, 64, 32}, [4] = {256, 64, 16, 8}};
  for (int levels = 2; levels <= 4; levels++) {
    struct morphology m;
    struct hines_error err = {{0}};
    if (synthetic_fig14(levels, &m, &err) != HINES_OK)
      fail_msg("%s", err.message);
    assert_synthetic_shape(&m, 512, (1 << levels) - 1);
    assert_int_equal(m.n_levels, levels);
    int per_level[4] = {0}, children[15] = {0}, depth = 0;
    for (int b = 0; b < m.n_branches; b++) {
      int level = m.branch_level[b];
      assert_int_equal(m.branch_size[b], sizes[levels][level]);
      per_level[level]++;
      if (b > 0)
        children[m.branch_parent[b]]++;
    }
    for (int level = 0; level < levels; level++) {
      assert_int_equal(per_level[level], 1 << level);
      depth += sizes[levels][level];
    }
    for (int b = 0; b < m.n_branches; b++) /* binary: inner branches split in two */
      assert_int_equal(children[b], m.branch_level[b] == levels - 1 ? 0 : 2);
    assert_int_equal(m.max_depth, depth);
    morphology_free(&m);
  }
  int rejected[] = {-1, 0, 1, 5, 9};
  for (size_t k = 0; k < sizeof rejected / sizeof rejected[0]; k++) {
    struct morphology m;
    struct hines_error err = {{0}};
    assert_int_equal(synthetic_fig14(rejected[k], &m, &err), HINES_BAD_INPUT);
    assert_empty(&m);
  }
}

/* A comb of T teeth: 2T - 1 one-compartment branches, every axis compartment a branch point
 * with the next axis compartment and a tooth as children, T levels; T < 2 refused. */
static void test_comb_levels(void **state) {
  (void)state;
  const int teeth[] = {2, 3, 17, 200};
  for (size_t t = 0; t < sizeof teeth / sizeof teeth[0]; t++) {
    const int n = teeth[t];
    struct morphology m;
    struct hines_error err = {{0}};
    if (synthetic_comb(n, &m, &err) != HINES_OK)
      fail_msg("%s", err.message);
    assert_synthetic_shape(&m, 2 * n - 1, 2 * n - 1);
    assert_int_equal(m.n_levels, n);
    assert_int_equal(m.max_depth, n);
    int *children = calloc((size_t)m.n_branches, sizeof *children);
    assert_non_null(children);
    for (int b = 0; b < m.n_branches; b++) {
      assert_int_equal(m.branch_size[b], 1);
      if (b > 0)
        children[m.branch_parent[b]]++;
    }
    int forks = 0;
    for (int b = 0; b < m.n_branches; b++) {
      assert_true(children[b] == 0 || children[b] == 2);
      forks += children[b] == 2;
    }
    assert_int_equal(forks, n - 1);
    free(children);
    morphology_free(&m);
  }
  const int rejected[] = {-3, 0, 1};
  for (size_t k = 0; k < sizeof rejected / sizeof rejected[0]; k++) {
    struct morphology m;
    struct hines_error err = {{0}};
    assert_int_equal(synthetic_comb(rejected[k], &m, &err), HINES_BAD_INPUT);
    assert_empty(&m);
  }
}

/* Random (n, B) pairs drawn uniformly from the achievable set {1} u {3..n}. */
static void test_tree_exact_counts_random_pairs(void **state) {
  (void)state;
  for (int trial = 0; trial < 400; trial++) {
    int n = 1 + testing_below(&random_state, trial < 300 ? 300 : 3000);
    int pick = n < 3 ? 0 : testing_below(&random_state, n - 1);
    int branches = pick == 0 ? 1 : pick + 2;
    unsigned seed = random_seed();
    struct morphology m;
    struct hines_error err = {{0}};
    if (synthetic_tree("pair", n, branches, seed, &m, &err) != HINES_OK)
      fail_msg("n=%d B=%d seed=%u: %s", n, branches, seed, err.message);
    assert_string_equal(m.name, "pair");
    assert_synthetic_shape(&m, n, branches);
    morphology_free(&m);
  }
  /* The extremes of the achievable set. */
  static const int edges[][2] = {{1, 1},   {2, 1},   {3, 3},     {4, 4},    {500, 1},
                                 {500, 3}, {500, 4}, {500, 499}, {500, 500}};
  for (size_t k = 0; k < sizeof edges / sizeof edges[0]; k++) {
    struct morphology m;
    struct hines_error err = {{0}};
    if (synthetic_tree("edge", edges[k][0], edges[k][1], 3, &m, &err) != HINES_OK)
      fail_msg("%s", err.message);
    assert_synthetic_shape(&m, edges[k][0], edges[k][1]);
    morphology_free(&m);
  }
}

static void test_tree_rejects_impossible_counts(void **state) {
  (void)state;
  static const struct {
    int compartments, branches;
    const char *message;
  } cases[] = {
      {10, 2,
       "t: 2 branches is impossible (a branch point adds at least 2 branches to the root "
       "branch, so a tree has 1 or at least 3)"},
      {5, 6, "t: 6 branches do not fit in 5 compartments (each branch needs one)"},
      {2, 3, "t: 3 branches do not fit in 2 compartments (each branch needs one)"},
      {10, 0, "t: 0 branches (a tree has at least 1)"},
      {0, 1, "t: 0 compartments (must be 1..10000000)"},
      {-3, 1, "t: -3 compartments (must be 1..10000000)"},
      {10000001, 3, "t: 10000001 compartments (must be 1..10000000)"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    struct morphology m;
    struct hines_error err = {{0}};
    assert_int_equal(synthetic_tree("t", cases[k].compartments, cases[k].branches, 1, &m, &err),
                     HINES_BAD_INPUT);
    assert_string_equal(err.message, cases[k].message);
    assert_empty(&m);
  }
}

static void test_random_sizes_and_branch_share(void **state) {
  (void)state;
  int distinct_sizes = 0, first_size = -1;
  for (int trial = 0; trial < 200; trial++) {
    unsigned seed = random_seed();
    struct morphology m, again;
    struct hines_error err = {{0}};
    if (synthetic_random(100, 1000, seed, &m, &err) != HINES_OK)
      fail_msg("%s", err.message);
    int n = m.n_compartments;
    assert_true(n >= 100 && n <= 1000);
    /* 5..50 % of the size, rounded to a whole count. */
    assert_true(m.n_branches >= lround(5.0 * n / 100.0) &&
                m.n_branches <= lround(50.0 * n / 100.0));
    assert_synthetic_shape(&m, n, m.n_branches);
    assert_int_equal(synthetic_random(100, 1000, seed, &again, &err), HINES_OK);
    assert_true(same_tree(&m, &again));
    if (first_size < 0)
      first_size = n;
    distinct_sizes += n != first_size;
    morphology_free(&m);
    morphology_free(&again);
  }
  assert_true(distinct_sizes > 0);
  for (int size = 1; size <= 40; size++) { /* tiny sizes still give achievable counts */
    struct morphology m;
    struct hines_error err = {{0}};
    if (synthetic_random(size, size, random_seed(), &m, &err) != HINES_OK)
      fail_msg("%s", err.message);
    assert_int_equal(m.n_compartments, size);
    assert_synthetic_shape(&m, size, m.n_branches);
    morphology_free(&m);
  }
  struct morphology m;
  struct hines_error err = {{0}};
  assert_int_equal(synthetic_random(0, 10, 1, &m, &err), HINES_BAD_INPUT);
  assert_int_equal(synthetic_random(10, 5, 1, &m, &err), HINES_BAD_INPUT);
  assert_empty(&m);
}

/* A spec gives the same tree as the generator it names, with the spec as name; loading the
 * name again gives the same tree (the name is a complete recipe). */
static void test_spec_round_trip(void **state) {
  (void)state;
  struct case_ {
    const char *spec;
    struct morphology direct;
  } cases[10];
  struct hines_error err = {{0}};
  int k = 0;
  cases[k].spec = "synthetic:small-low";
  assert_int_equal(synthetic_class("small-low", 1, &cases[k++].direct, &err), HINES_OK);
  cases[k].spec = "synthetic:big-high:42";
  assert_int_equal(synthetic_class("big-high", 42, &cases[k++].direct, &err), HINES_OK);
  cases[k].spec = "synthetic:fig6:500:10";
  assert_int_equal(synthetic_fig6(500, 10, 1, &cases[k++].direct, &err), HINES_OK);
  cases[k].spec = "synthetic:fig6:300:12.5:9";
  assert_int_equal(synthetic_fig6(300, 12.5, 9, &cases[k++].direct, &err), HINES_OK);
  cases[k].spec = "synthetic:fig14:3";
  assert_int_equal(synthetic_fig14(3, &cases[k++].direct, &err), HINES_OK);
  cases[k].spec = "synthetic:comb:12";
  assert_int_equal(synthetic_comb(12, &cases[k++].direct, &err), HINES_OK);
  cases[k].spec = "synthetic:random:100:200";
  assert_int_equal(synthetic_random(100, 200, 1, &cases[k++].direct, &err), HINES_OK);
  cases[k].spec = "synthetic:random:100:200:5";
  assert_int_equal(synthetic_random(100, 200, 5, &cases[k++].direct, &err), HINES_OK);
  cases[k].spec = "synthetic:tree:50:11";
  assert_int_equal(synthetic_tree("t", 50, 11, 1, &cases[k++].direct, &err), HINES_OK);
  cases[k].spec = "synthetic:tree:50:11:3";
  assert_int_equal(synthetic_tree("t", 50, 11, 3, &cases[k++].direct, &err), HINES_OK);
  for (int c = 0; c < k; c++) {
    struct morphology loaded, reloaded;
    if (morphology_load_spec(cases[c].spec, NULL, &loaded, &err) != HINES_OK)
      fail_msg("%s", err.message);
    assert_string_equal(loaded.name, cases[c].spec);
    assert_true(same_tree(&loaded, &cases[c].direct));
    assert_int_equal(morphology_load_spec(loaded.name, NULL, &reloaded, &err), HINES_OK);
    assert_true(same_tree(&loaded, &reloaded));
    morphology_free(&loaded);
    morphology_free(&reloaded);
    morphology_free(&cases[c].direct);
  }
  /* The seed matters: default 1 differs from seed 2. */
  struct morphology seed_1, seed_2;
  assert_int_equal(morphology_load_spec("synthetic:medium-high", NULL, &seed_1, &err), HINES_OK);
  assert_int_equal(morphology_load_spec("synthetic:medium-high:2", NULL, &seed_2, &err), HINES_OK);
  assert_false(same_tree(&seed_1, &seed_2));
  morphology_free(&seed_1);
  morphology_free(&seed_2);
}

static void test_bad_specs_are_rejected(void **state) {
  (void)state;
  static const struct {
    const char *spec, *message;
  } cases[] = {
      {"synthetic:huge-low", "synthetic:huge-low: unknown class (one of small-low "
                             "small-high medium-low medium-high big-low big-high)"},
      {"synthetic:", "synthetic:: unknown class (one of small-low small-high "
                     "medium-low medium-high big-low big-high)"},
      {"synthetic:huge-low:3", "synthetic:huge-low:3: unknown class (one of small-low "
                               "small-high medium-low medium-high big-low big-high)"},
      {"synthetic:small-low:7:8", "synthetic:small-low:7:8: expected "
                                  "synthetic:CLASS[:SEED]"},
      {"synthetic:small-low:x", "synthetic:small-low:x: SEED 'x' is not a whole number "
                                "0..4294967295"},
      {"synthetic:small-low:4294967296",
       "synthetic:small-low:4294967296: SEED '4294967296' is out of range"},
      {"synthetic:fig6:100", "synthetic:fig6:100: expected "
                             "synthetic:fig6:SIZE:PERCENT[:SEED]"},
      {"synthetic:fig6:abc:10", "synthetic:fig6:abc:10: SIZE 'abc' is not a whole "
                                "number"},
      {"synthetic:fig6::10", "synthetic:fig6::10: SIZE '' is not a whole number"},
      {"synthetic:fig6:100:1e1", "synthetic:fig6:100:1e1: PERCENT '1e1' is not a "
                                 "decimal number such as 10 or 12.5"},
      {"synthetic:fig6:100:nan", "synthetic:fig6:100:nan: PERCENT 'nan' is not a "
                                 "decimal number such as 10 or 12.5"},
      {"synthetic:fig6:100:.5", "synthetic:fig6:100:.5: PERCENT '.5' is not a decimal "
                                "number such as 10 or 12.5"},
      {"synthetic:fig6:100: 10", "synthetic:fig6:100: 10: PERCENT ' 10' is not a "
                                 "decimal number such as 10 or 12.5"},
      {"synthetic:fig6:100:150", "synthetic:fig6:100:150: branch percentage 150 (must "
                                 "be 0..100)"},
      {"synthetic:fig6:100:10:-1", "synthetic:fig6:100:10:-1: SEED '-1' is not a whole "
                                   "number 0..4294967295"},
      {"synthetic:fig14:5", "synthetic:fig14:5: 5 branch levels (must be 2..4)"},
      {"synthetic:fig14", "synthetic:fig14: expected synthetic:fig14:LEVELS"},
      {"synthetic:fig14:3:1", "synthetic:fig14:3:1: expected synthetic:fig14:LEVELS"},
      {"synthetic:random:10:5", "synthetic:random:10:5: size range 10..5 (must be "
                                "within 1..10000000)"},
      {"synthetic:random:0x10:20", "synthetic:random:0x10:20: MIN '0x10' is not a "
                                   "whole number"},
      {"synthetic:random:+10:20", "synthetic:random:+10:20: MIN '+10' is not a whole "
                                  "number"},
      {"synthetic:tree:10:2", "synthetic:tree:10:2: 2 branches is impossible (a branch "
                              "point adds at least 2 branches to the root branch, so a tree "
                              "has 1 or at least 3)"},
      {"synthetic:tree:5:6", "synthetic:tree:5:6: 6 branches do not fit in 5 "
                             "compartments (each branch needs one)"},
      {"synthetic:tree:-5:1", "synthetic:tree:-5:1: -5 compartments (must be "
                              "1..10000000)"},
      {"synthetic:tree:99999999999:3", "synthetic:tree:99999999999:3: COMPARTMENTS "
                                       "'99999999999' is out of range"},
      {"synthetic:tree:20000000:3", "synthetic:tree:20000000:3: 20000000 compartments "
                                    "(must be 1..10000000)"},
      {"synthetic:tree:1:1:2:3", "synthetic:tree:1:1:2:3: too many ':'-separated "
                                 "fields (at most 4 after 'synthetic:')"},
      {"", "no morphology given (an .swc path or synthetic:CLASS)"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    struct morphology m;
    struct hines_error err = {{0}};
    assert_int_equal(morphology_load_spec(cases[k].spec, NULL, &m, &err), HINES_BAD_INPUT);
    assert_string_equal(err.message, cases[k].message);
    assert_null(strchr(err.message, '\n'));
    assert_empty(&m);
  }
}

/* Anything not starting with "synthetic:" is a file for swc_load, whose message names it. */
static void test_other_specs_are_swc_paths(void **state) {
  (void)state;
  const char *paths[] = {"/nonexistent/cell.swc", "synthetic", "Synthetic:small-low",
                         "./synthetic:small-low"};
  for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++) {
    struct morphology m;
    struct hines_error err = {{0}};
    struct swc_options options = {0};
    assert_int_equal(morphology_load_spec(paths[k], &options, &m, &err), HINES_BAD_INPUT);
    assert_non_null(strstr(err.message, paths[k]));
    assert_null(m.parent);
  }
}

int main(void) {
  random_state = testing_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_class_table_is_table_1),
      cmocka_unit_test(test_classes_have_exact_counts),
      cmocka_unit_test(test_unknown_class_is_rejected),
      cmocka_unit_test(test_same_seed_same_tree_other_seed_other_tree),
      cmocka_unit_test(test_fig6_hits_requested_share),
      cmocka_unit_test(test_fig6_adjusts_unachievable_requests),
      cmocka_unit_test(test_fig14_levels),
      cmocka_unit_test(test_comb_levels),
      cmocka_unit_test(test_tree_exact_counts_random_pairs),
      cmocka_unit_test(test_tree_rejects_impossible_counts),
      cmocka_unit_test(test_random_sizes_and_branch_share),
      cmocka_unit_test(test_spec_round_trip),
      cmocka_unit_test(test_bad_specs_are_rejected),
      cmocka_unit_test(test_other_specs_are_swc_paths),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
