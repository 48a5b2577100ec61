/* Which systems of a level a GPU sweeps with a warp each (level_layout.h, "Warp sweeps"): the
 * cost model's choices on levels whose answer is clear, and what the layout stores. The warp
 * sweeps' bits are checked against the thread sweeps and the CPU on the GPU machine
 * (scripts/gpu_run.sh check-warps): a CPU sweeps every system alone whatever the block says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "level_layout.h"
#include "morph_spec.h"
#include "testing.h"

static void off_all_and_empty(void **state) {
  (void)state;
  const int top[] = {900, 40, 30};
  for (int channels = 0; channels < 2; channels++) {
    assert_int_equal(level_warp_systems(top, 3, LEVEL_WARPS_OFF, channels, 1), 0);
    assert_int_equal(level_warp_systems(top, 3, LEVEL_WARPS_ALL, channels, 1), 3);
    assert_int_equal(level_warp_systems(top, 0, LEVEL_WARPS_AUTO, channels, 1), 0);
    assert_int_equal(level_warp_systems(top, 0, LEVEL_WARPS_ALL, channels, 1), 0);
  }
}

/* A few long branches: the level lasts as long as the longest takes one thread, so it gets a
 * warp; the short ones stay with threads when they are cheaper there. */
static void a_long_branch_gets_a_warp(void **state) {
  (void)state;
  const int top[] = {900, 40, 30};
  /* one long branch among many one-compartment ones: only it */
  int *many = malloc(10001 * sizeof *many);
  assert_non_null(many);
  many[0] = 2000;
  for (int s = 1; s <= 10000; s++)
    many[s] = 1;
  for (int channels = 0; channels < 2; channels++) {
    assert_true(level_warp_systems(top, 3, LEVEL_WARPS_AUTO, channels, 1) >= 1);
    assert_int_equal(level_warp_systems(many, 10001, LEVEL_WARPS_AUTO, channels, 1), 1);
  }
  free(many);
}

/* A level whose longest system is shorter than LEVEL_WARP_MIN_CHAIN (8) gets no warp whatever
 * the model would say: thousands of one-element systems, as the six shipped cells' levels near
 * the root, measured slower with a warp each (BENCHMARKS.md, "Levels of subtrees"); one element
 * more than that and the model decides again. */
static void short_levels_keep_threads(void **state) {
  (void)state;
  int *top = malloc(2783 * sizeof *top);
  assert_non_null(top);
  for (int longest = 1; longest <= 7; longest++) {
    for (int s = 0; s < 2783; s++)
      top[s] = longest;
    for (int channels = 0; channels < 2; channels++) {
      assert_int_equal(level_warp_systems(top, 2783, LEVEL_WARPS_AUTO, channels, 1), 0);
      assert_int_equal(level_warp_systems(top, 2783, LEVEL_WARPS_ALL, channels, 1), 2783);
    }
  }
  /* a level of 8-element chains and a few long ones still gives the long ones warps */
  top[0] = top[1] = 600;
  for (int s = 2; s < 2783; s++)
    top[s] = 8;
  for (int channels = 0; channels < 2; channels++)
    assert_true(level_warp_systems(top, 2783, LEVEL_WARPS_AUTO, channels, 1) >= 2);
  free(top);
}

/* A level of `systems` systems, largest first: `longest` long, one shorter every `per_length`
 * systems. The caller frees it. */
static int *stepped_level(int systems, int longest, int per_length) {
  int *top = malloc((size_t)systems * sizeof *top);
  assert_non_null(top);
  for (int s = 0; s < systems; s++)
    top[s] = longest - s / per_length;
  return top;
}

/* A level so large that streaming its elements dominates: warps would only add their chain's
 * arithmetic, so none. */
static void a_streaming_level_keeps_threads(void **state) {
  (void)state;
  const int systems = 400000;
  int *top = stepped_level(systems, 50, 20000); /* 50 down to 31 */
  for (int channels = 0; channels < 2; channels++)
    assert_int_equal(level_warp_systems(top, systems, LEVEL_WARPS_AUTO, channels, 1), 0);
  free(top);
}

/* A random level's system sizes, largest first: 1 to max_systems systems, the first one
 * shortest to shortest + span - 1 long, each next one shorter by 1 to max_drop one time in
 * drop_one_in. The caller frees it. */
static int *random_level(uint64_t *seed, int max_systems, int shortest, int span, int drop_one_in,
                         int max_drop, int *systems) {
  *systems = 1 + testing_below(seed, max_systems);
  int *top = malloc((size_t)*systems * sizeof *top);
  assert_non_null(top);
  int length = shortest + testing_below(seed, span);
  for (int s = 0; s < *systems; s++) {
    top[s] = length;
    if (length > 1 && testing_below(seed, drop_one_in) == 0)
      length -= 1 + testing_below(seed, length - 1 < max_drop ? length - 1 : max_drop);
  }
  return top;
}

/* Chunks that share a GPU share its memory: a level that streams as long as its longest branch
 * takes one thread gets warps when its chunk has the GPU alone, none when 16 chunks run beside
 * it (the six shipped cells in 16 chunks on one H200 ran 1.5x slower with the warps the model
 * gave them alone, BENCHMARKS.md); a level led by one very long branch keeps its warp whatever
 * shares the GPU. On random levels, more sharing never gives more warps. */
static void chunks_sharing_a_gpu_take_fewer_warps(void **state) {
  (void)state;
  const int systems = 20000;
  int *top = stepped_level(systems, 64, 400); /* 64 down to 15 */
  assert_true(level_warp_systems(top, systems, LEVEL_WARPS_AUTO, 0, 1) > 0);
  assert_int_equal(level_warp_systems(top, systems, LEVEL_WARPS_AUTO, 0, 16), 0);
  assert_int_equal(level_warp_systems(top, systems, LEVEL_WARPS_AUTO, 0, 0),
                   level_warp_systems(top, systems, LEVEL_WARPS_AUTO, 0, 1));
  assert_int_equal(level_warp_systems(top, systems, LEVEL_WARPS_ALL, 0, 16), systems);
  top[0] = 2000;
  for (int s = 1; s < systems; s++)
    top[s] = 1;
  for (int channels = 0; channels < 2; channels++)
    assert_int_equal(level_warp_systems(top, systems, LEVEL_WARPS_AUTO, channels, 16), 1);
  free(top);
  uint64_t seed = testing_seed();
  for (int trial = 0; trial < 200; trial++) {
    int n;
    int *sizes = random_level(&seed, 5000, 8, 600, 8, 50, &n);
    int previous = level_warp_systems(sizes, n, LEVEL_WARPS_AUTO, trial % 2, 1);
    for (int sharing = 2; sharing <= 64; sharing *= 2) {
      const int k = level_warp_systems(sizes, n, LEVEL_WARPS_AUTO, trial % 2, sharing);
      assert_true(k <= previous);
      previous = k;
    }
    free(sizes);
  }
}

/* A cut between two systems of one length saves no chain: never made, on random levels. */
static void no_cut_between_equal_systems(void **state) {
  (void)state;
  uint64_t seed = testing_seed();
  for (int trial = 0; trial < 200; trial++) {
    int systems;
    int *top = random_level(&seed, 3000, 1, 1500, 4, 200, &systems);
    const int k = level_warp_systems(top, systems, LEVEL_WARPS_AUTO, trial % 2, 1);
    assert_true(k >= 0 && k <= systems);
    if (k > 0 && k < systems)
      assert_true(top[k] < top[k - 1]);
    free(top);
  }
}

/* The layout stores each level block's choice: all of its systems with ALL, none with OFF, and
 * with AUTO what level_warp_systems says of the block's own sizes; and the lanes per system. */
static void blocks_store_the_choice(void **state) {
  (void)state;
  struct morphology cell;
  struct hines_error err;
  struct swc_options swc = {0};
  assert_int_equal(
      morphology_load_spec(testing_source_path("morph/data/morph_ca1_n120.swc"), &swc, &cell, &err),
      HINES_OK);
  const enum level_warps modes[] = {LEVEL_WARPS_OFF, LEVEL_WARPS_ALL, LEVEL_WARPS_AUTO};
  for (int m = 0; m < 3; m++) {
    for (int padded = 0; padded < 2; padded++) {
      const int channels = padded;                   /* both cost models, once each */
      const int sharing = m == 2 && padded ? 16 : 0; /* and chunks sharing a GPU once */
      const struct level_batch_options options = {.neurons_per_chunk = 5,
                                                  .chunks_per_gpu = sharing,
                                                  .padded = padded,
                                                  .chunk_links = 1,
                                                  .order = LEVEL_ORDER_HEIGHT,
                                                  .warps = modes[m],
                                                  /* 8, 16, 32; unset (0) means 16 */
                                                  .warp_lanes = m == 1 && padded ? 0 : 8 << m,
                                                  .channels_everywhere = channels};
      struct level_batch batch;
      assert_int_equal(
          level_batch_build(&cell, 1, 7, &options, &cable_defaults, 0.025, &batch, &err), HINES_OK);
      int warped = 0;
      for (int b = 0; b < batch.n_chunks * batch.n_levels; b++) {
        if (!batch.blocks[b])
          continue;
        const struct level_block_view v = level_block_describe(batch.blocks[b]);
        int *top = malloc((size_t)(v.systems > 0 ? v.systems : 1) * sizeof *top);
        assert_non_null(top);
        for (int s = 0; s < v.systems; s++)
          top[s] = padded ? v.max_size : v.size[s];
        assert_int_equal(v.warp_lanes, 8 << m);
        assert_int_equal(v.warp_systems,
                         level_warp_systems(top, v.systems, modes[m], channels, sharing));
        warped += v.warp_systems;
        free(top);
      }
      if (modes[m] == LEVEL_WARPS_OFF)
        assert_int_equal(warped, 0);
      else /* 7 CA1 cells: some level is led by a long branch */
        assert_true(warped > 0);
      level_batch_free(&batch);
    }
  }
  morphology_free(&cell);
}

/* Each block's header counts the elements of its subtree systems (LEVEL_TREE_ELEMENTS), which
 * decides on a GPU whether the level gets the subtree-level kernels (hines_level_cuda.cu): the
 * sum of the sizes of its systems with a shape (NCP and CP), none without subtrees, and for
 * random trees (branches of 2.5 compartments) a leaf level that is mostly subtrees. */
static void blocks_count_their_subtree_elements(void **state) {
  (void)state;
  struct morphology cells[2];
  struct hines_error err;
  struct swc_options swc = {0};
  assert_int_equal(morphology_load_spec("synthetic:random:100:800:3", &swc, &cells[0], &err),
                   HINES_OK);
  assert_int_equal(morphology_load_spec("synthetic:random:100:800:4", &swc, &cells[1], &err),
                   HINES_OK);
  for (int subtrees = 0; subtrees <= 64; subtrees += 64) {
    for (int padded = 0; padded < 2; padded++) {
      const struct level_batch_options options = {.neurons_per_chunk = 6,
                                                  .padded = padded,
                                                  .chunk_links = 1,
                                                  .order = LEVEL_ORDER_HEIGHT,
                                                  .subtree_compartments = subtrees,
                                                  .split_compartments = 64};
      struct level_batch batch;
      assert_int_equal(
          level_batch_build(cells, 2, 12, &options, &cable_defaults, 0.025, &batch, &err),
          HINES_OK);
      int mostly_subtrees = 0;
      for (int b = 0; b < batch.n_chunks * batch.n_levels; b++) {
        if (!batch.blocks[b])
          continue;
        const struct level_block_view v = level_block_describe(batch.blocks[b]);
        long long in_subtrees = 0;
        for (int s = 0; s < v.systems; s++)
          if (v.trees && v.tree[s] >= 0)
            in_subtrees += v.size[s];
        assert_int_equal(v.tree_elements, in_subtrees);
        if (subtrees == 0)
          assert_int_equal(v.tree_elements, 0);
        mostly_subtrees += v.tree_elements > 0 && 2LL * v.tree_elements >= v.elements;
      }
      if (subtrees > 0 && !padded) /* CP counts the padding among the elements */
        assert_true(mostly_subtrees > 0);
      level_batch_free(&batch);
    }
  }
  morphology_free(&cells[0]);
  morphology_free(&cells[1]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(off_all_and_empty),
      cmocka_unit_test(a_long_branch_gets_a_warp),
      cmocka_unit_test(a_streaming_level_keeps_threads),
      cmocka_unit_test(short_levels_keep_threads),
      cmocka_unit_test(no_cut_between_equal_systems),
      cmocka_unit_test(chunks_sharing_a_gpu_take_fewer_warps),
      cmocka_unit_test(blocks_store_the_choice),
      cmocka_unit_test(blocks_count_their_subtree_elements),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
