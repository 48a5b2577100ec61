/* The multi-morphology level solver against the sequential reference time loop, on a mix of the
 * shipped cells (morph/data), every SWC file of ../shared/morphologies when that optional set is
 * present ($HINES_SHARED_MORPHOLOGIES), and random trees, in both storage variants (CP and NCP).
 * It prints a digest of the final voltages: tests/same_digest.sh runs it under two schedulers
 * with one seed and requires bitwise identical digests. */
#include <dirent.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <starpu.h>

#include "branch_rows_cpu.h"
#include "cell_block.h"
#include "hines_level_codelets.h"
#include "hines_level_kernels.h"
#include "level_flow.h"
#include "level_rows_cpu.h"
#include "morph_spec.h"
#include "multi_batch.h"
#include "neuron_batch.h"
#include "reference_simulation.h"
#include "synthetic.h"
#include "testing.h"

#define MAX_MIX 64
static uint64_t seed_state;
static struct morphology mix[MAX_MIX];
static int mix_count;

/* Loads every .swc file of `folder` whose name is not among the first n_known of the mix; -1
 * when the folder cannot be opened. */
static int load_folder(const char *folder, int n_known) {
  DIR *dir = opendir(folder);
  if (!dir)
    return -1;
  static char loaded_names[MAX_MIX][256];
  struct dirent *entry;
  struct swc_options options = {.warnings = fopen("/dev/null", "w")};
  int added = 0;
  while ((entry = readdir(dir)) && mix_count < MAX_MIX - 4) {
    size_t length = strlen(entry->d_name);
    if (length < 4 || length >= sizeof loaded_names[0] ||
        strcmp(entry->d_name + length - 4, ".swc") != 0)
      continue;
    int seen = 0;
    for (int k = 0; k < n_known && !seen; k++)
      seen = strcmp(loaded_names[k], entry->d_name) == 0;
    if (seen)
      continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
    struct hines_error err;
    if (swc_load(path, &options, &mix[mix_count], &err) != HINES_OK)
      fail_msg("%s", err.message);
    snprintf(loaded_names[mix_count], sizeof loaded_names[0], "%s", entry->d_name);
    mix_count++;
    added++;
  }
  closedir(dir);
  fclose(options.warnings);
  return added;
}

static void load_mix(void) {
  const char *shipped = testing_source_path("morph/data");
  if (load_folder(shipped, 0) < 6)
    fail_msg("expected the six shipped cells in %s", shipped);
  const char *shared = getenv("HINES_SHARED_MORPHOLOGIES");
  int added = shared && *shared ? load_folder(shared, mix_count) : -1;
  if (added < 0)
    print_message("# shared morphologies not present (HINES_SHARED_MORPHOLOGIES=%s): the mix "
                  "has the shipped cells and random trees only\n",
                  shared ? shared : "unset");
  for (int r = 0; r < 4; r++) {
    struct hines_error err;
    unsigned seed = (unsigned)(testing_uniform(&seed_state) * 1e9);
    assert_int_equal(synthetic_random(20, 400, seed, &mix[mix_count++], &err), HINES_OK);
  }
}

static uint64_t digest(const double *values, int n, uint64_t hash) {
  for (int i = 0; i < n; i++) {
    uint64_t bits;
    memcpy(&bits, &values[i], sizeof bits);
    hash = (hash ^ bits) * 1099511628211ull;
  }
  return hash;
}

/* How far a batch's voltages after `steps` steps may be from the sequential time loop's, relative
 * to their largest: steps x 2 n eps kappa (kappa: reference_condition_bound), what a
 * backward-stable solve of each step may add to the forward error, twice (--verify allows one
 * step's worth), the step map being a contraction; kept between 1e-12 and 1e-10. The two solvers
 * eliminate in different orders: a fixed 1e-12 failed for fresh random trees, 1.55e-12 apart for
 * one of 133 compartments (kappa 460; HINES_TEST_SEED=1795882888216284792) and 4.2e-12 for
 * another (synthetic:random:20:400:692022124, 40 steps; HINES_TEST_SEED=1795884344992774226),
 * both solvers right. The cap holds every cell, the real ones too (their Gershgorin bound reaches
 * 1e10 while they measure under 1e-12), to a check that a wrong coefficient or row fails. */
static double reference_tolerance(const struct morphology *m, const struct channel_set *channels,
                                  double dt_ms, int steps) {
  const double kappa = reference_condition_bound(m, &cable_defaults, channels, dt_ms);
  return fmax(1e-12, fmin(steps * 2.0 * m->n_compartments * DBL_EPSILON * kappa, 1e-10));
}

/* Neuron k's voltages after `steps` steps against the sequential time loop; fails above
 * reference_tolerance and when the stimulus left the soma at rest (the comparison would then
 * show little). */
static double compare_with_reference(const double *got, int k, int neurons, int steps,
                                     const struct stimulus *stim, const char *what) {
  const struct morphology *m = &mix[k % mix_count];
  double *want = malloc(m->n_compartments * sizeof(double));
  for (int i = 0; i < m->n_compartments; i++)
    want[i] = -65;
  struct stimulus s = *stim;
  s.n_neurons_total = neurons;
  struct hines_error err;
  assert_int_equal(reference_simulate(m, &cable_defaults, NULL, 0.025, steps, 0, &s, k, want, &err),
                   HINES_OK);
  double error = testing_relative_error(m->n_compartments, got, want);
  const double tolerance = reference_tolerance(m, NULL, 0.025, steps);
  if (!(error <= tolerance))
    fail_msg("%s neuron %d (%s): relative error %.3e, above %.3e", what, k, m->name, error,
             tolerance);
  assert_true(fabs(want[0] + 65) > 1e-3);
  free(want);
  return error;
}

static const char *order_name(enum level_order order) {
  return order == LEVEL_ORDER_DEPTH ? "depth" : order == LEVEL_ORDER_HEIGHT ? "height" : "auto";
}

/* On a GPU the chunk tasks launch their kernels early unless HINES_TEST_PLAIN_LAUNCHES=1
 * (gpu_run.sh check-multi runs this test both ways on CUDA workers). */
static enum gpu_launch gpu_launch_of_test(void) {
  const char *plain = getenv("HINES_TEST_PLAIN_LAUNCHES");
  return plain && strcmp(plain, "1") == 0 ? GPU_LAUNCH_PLAIN : GPU_LAUNCH_EARLY;
}

/* Chunks of given sizes for the next run_and_compare_trunk (NULL: its per_task), the last
 * `cut_cpu_chunks` of them cut for CPU cores, and whether each chunk runs only on the kind of
 * worker it was cut for. */
static const int *cut_sizes;
static int cut_count, cut_cpu_chunks, cut_pin;
/* ... the copies of each cell the chunk before the cores' takes from their tail (tail_lead). */
static const int *cut_tail_lead;
/* ... and the chunk kernel of the next run_and_compare_trunk (the level kernels unless set). */
static enum level_kernel cut_kernel = LEVEL_KERNEL_LEVELS;

/* What the CPU tasks kept of element constants at the end of the last run_and_compare_trunk,
 * before its batch was destroyed. */
static size_t cached_bytes_at_end;

/* Returns a digest of every neuron's voltages. */
static uint64_t run_and_compare_trunk(int padded, int neurons, int per_task, int parts,
                                      int level_tasks, enum level_order order, int trunk_below) {
  const int steps = 20;
  struct stimulus stim = {
      .compartment = 0, .amplitude_nA = 0.5, .start_ms = 0.05, .stop_ms = 1e9, .spread = 0.8};
  struct multi_batch_config config = {
      .morphologies = mix,
      .n_morphologies = mix_count,
      .n_neurons = neurons,
      .neurons_per_task = per_task,
      .parts_per_task = parts,
      .padded = padded,
      .level_tasks = level_tasks,
      .order = order,
      .trunk_below = trunk_below,
      .gpu_launch = gpu_launch_of_test(),
      .stored_pivots_below = INT_MAX, /* the command line's default: pivots read, not divided */
      .level_lean = 1,                /* the command line's default: lean small levels on GPUs */
      .level_row_factors = 1, /* and forward factors from the rows (per-level tasks store them) */
      .chunk_sizes = cut_sizes,
      .n_chunk_sizes = cut_count,
      .cpu_sized_chunks = cut_cpu_chunks,
      .tail_lead = cut_tail_lead,
      .pin = cut_pin,
      .level_kernel = cut_kernel,
      .model = {.cable = cable_defaults, .dt_ms = 0.025, .initial_mV = -65, .stimulus = stim}};
  struct multi_batch *batch;
  struct hines_error err;
  assert_int_equal(multi_batch_create(&config, &batch, &err), HINES_OK);
  if (cut_sizes) {
    assert_int_equal(multi_batch_tasks_per_step(batch), cut_count);
    int cpu_neurons = 0;
    for (int c = cut_count - cut_cpu_chunks; c < cut_count; c++)
      cpu_neurons += cut_sizes[c];
    assert_int_equal(multi_batch_cpu_share_neurons(batch), cpu_neurons);
    int lead_neurons = 0;
    for (int c = 0; cut_tail_lead && c < mix_count; c++)
      lead_neurons += cut_tail_lead[c];
    assert_int_equal(multi_batch_aligned_tail_neurons(batch), lead_neurons);
  }
  assert_int_equal(multi_batch_run(batch, steps / 2, 0), HINES_OK);
  assert_int_equal(multi_batch_run(batch, steps / 2, steps / 2 * 0.025), HINES_OK);
  uint64_t hash = 14695981039346656037ull;
  double worst = 0;
  for (int k = 0; k < neurons; k++) {
    const struct morphology *m = &mix[k % mix_count];
    double *got = malloc(m->n_compartments * sizeof(double));
    multi_batch_voltage(batch, k, got);
    hash = digest(got, m->n_compartments, hash);
    worst =
        fmax(worst, compare_with_reference(got, k, neurons, steps, &stim, padded ? "CP" : "NCP"));
    free(got);
  }
  cached_bytes_at_end = chunk_step_cpu_cache_bytes();
  multi_batch_destroy(batch);
  printf("# %s %s, levels by %s, neurons %d per task %d in %d parts, trunk below %d systems: "
         "max relative error %.3e; result digest %016llx\n",
         padded ? "CP" : "NCP", level_tasks ? "level tasks" : "chunk tasks", order_name(order),
         neurons, per_task, parts, trunk_below, worst, (unsigned long long)hash);
  return hash;
}

/* A neuron's voltages depend on its morphology only, not on how the batch is cut or run: one
 * chunk, chunks of 7 and of 5 neurons, two parts a task, the trunk, per-level tasks in depth
 * order (links to the adjacent level) give the same digest, to the bit. On CUDA workers the
 * same runs take the lean, subtree and warp kernels each chunking gives. */
static void level_solver_bits_do_not_depend_on_chunks(void **state) {
  (void)state;
  const int neurons = 2 * mix_count + 3;
  const struct {
    int per_task, parts, level_tasks, trunk_below;
    enum level_order order;
  } runs[] = {{0, 0, 0, 0, LEVEL_ORDER_HEIGHT},  {7, 0, 0, 0, LEVEL_ORDER_HEIGHT},
              {5, 0, 0, 0, LEVEL_ORDER_HEIGHT},  {9, 2, 0, 0, LEVEL_ORDER_HEIGHT},
              {0, 0, 0, 20, LEVEL_ORDER_HEIGHT}, {7, 0, 1, 0, LEVEL_ORDER_DEPTH},
              {0, 0, 1, 0, LEVEL_ORDER_DEPTH}};
  uint64_t first = 0;
  for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
    const uint64_t hash =
        run_and_compare_trunk(0, neurons, runs[r].per_task, runs[r].parts, runs[r].level_tasks,
                              runs[r].order, runs[r].trunk_below);
    if (r == 0)
      first = hash;
    else if (hash != first)
      fail_msg("run %zu: digest %016llx, the one-chunk run's %016llx", r, (unsigned long long)hash,
               (unsigned long long)first);
  }
  /* Chunks of unequal sizes, as the cores' share cuts them (--cpu-share): a large chunk, then
   * small ones (the last three cut for the cores); with GPU workers each chunk runs on the kind
   * of worker it was cut for, so GPU and CPU chunks of one batch meet the one-chunk digest. A
   * neuron's chunk starts anywhere in the mix, and chunks of one neuron occur. */
  const int sizes[] = {neurons - 9, 1, 3, 2, 3};
  cut_sizes = sizes;
  cut_count = 5;
  cut_cpu_chunks = 3;
  const int pinned = starpu_cuda_worker_get_count() > 0 && starpu_cpu_worker_get_count() > 0;
  cut_pin = pinned;
  const uint64_t hash = run_and_compare_trunk(0, neurons, 0, 0, 0, LEVEL_ORDER_HEIGHT, 0);
  /* the cell-block kernel builds its schedule from the chunk's positions (the cores' chunks are
   * laid out by morphology: --arrange, placement_level_arranged) */
  cut_kernel = LEVEL_KERNEL_CELL;
  const uint64_t cell_hash = run_and_compare_trunk(0, neurons, 0, 0, 0, LEVEL_ORDER_HEIGHT, 0);
  cut_kernel = LEVEL_KERNEL_LEVELS;
  cut_sizes = NULL;
  cut_count = cut_cpu_chunks = cut_pin = 0;
  if (hash != first || cell_hash != first)
    fail_msg("unequal chunks%s: digest %016llx (cell-block kernel %016llx), the one-chunk run's "
             "%016llx",
             pinned ? " on GPU and CPU workers" : "", (unsigned long long)hash,
             (unsigned long long)cell_hash, (unsigned long long)first);
}

/* The CPU tasks' element constants kept from a chunk's first task to its end give the bits of
 * constants gathered by every task (none kept), with the level and the branch kernels, in tasks
 * of 8 steps and a shorter last one (which reads what an earlier task kept); a destroyed batch
 * leaves nothing kept. */
static void kept_element_constants_keep_bits(void **state) {
  (void)state;
  const int neurons = 2 * mix_count + 3;
  const enum level_kernel kernels[] = {LEVEL_KERNEL_LEVELS, LEVEL_KERNEL_BRANCHES};
  const int cpus_only = starpu_cuda_worker_get_count() == 0;
  for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
    cut_kernel = kernels[k];
    const uint64_t kept = run_and_compare_trunk(0, neurons, 7, 0, 0, LEVEL_ORDER_HEIGHT, 0);
    const size_t kept_bytes = cached_bytes_at_end;
    assert_int_equal(chunk_step_cpu_cache_bytes(), 0);
    const size_t limit = chunk_step_cpu_cache_limit(0);
    const uint64_t gathered = run_and_compare_trunk(0, neurons, 7, 0, 0, LEVEL_ORDER_HEIGHT, 0);
    const size_t gathered_bytes = cached_bytes_at_end;
    chunk_step_cpu_cache_limit(limit);
    cut_kernel = LEVEL_KERNEL_LEVELS;
    if (cpus_only && kept_bytes == 0)
      fail_msg("kernel %zu: no element constants kept on CPU workers", k);
    assert_int_equal(gathered_bytes, 0);
    if (kept != gathered)
      fail_msg("kernel %zu: kept constants digest %016llx, gathered per task %016llx", k,
               (unsigned long long)kept, (unsigned long long)gathered);
  }
}

static void run_and_compare_parts(int padded, int neurons, int per_task, int parts, int level_tasks,
                                  enum level_order order) {
  run_and_compare_trunk(padded, neurons, per_task, parts, level_tasks, order, 0);
}

static void run_and_compare(int padded, int neurons, int per_task, int level_tasks,
                            enum level_order order) {
  run_and_compare_parts(padded, neurons, per_task, 0, level_tasks, order);
}

static void level_solver_matches_reference_ncp(void **state) {
  (void)state;
  run_and_compare(0, 2 * mix_count + 3, 7, 1, LEVEL_ORDER_AUTO);
  run_and_compare(0, mix_count, 0, 1, LEVEL_ORDER_DEPTH);
  run_and_compare(0, 2 * mix_count + 3, 7, 0, LEVEL_ORDER_AUTO);
  run_and_compare(0, 2 * mix_count + 3, 5, 0, LEVEL_ORDER_DEPTH);
  run_and_compare(0, mix_count + 1, 0, 0, LEVEL_ORDER_HEIGHT);
  /* Chunk tasks of several parts (independent neuron sets in one task), a short last part. */
  run_and_compare_parts(0, 2 * mix_count + 3, 9, 2, 0, LEVEL_ORDER_AUTO);
  run_and_compare_parts(0, 2 * mix_count + 3, 0, 3, 0, LEVEL_ORDER_DEPTH);
  /* The trunk (levels near the root swept neuron by neuron): part of the levels (the first
   * levels with fewer than 20, 12 or 60 systems: see the next test for what they cover) or
   * every level. */
  run_and_compare_trunk(0, 2 * mix_count + 3, 0, 0, 0, LEVEL_ORDER_HEIGHT, 1 << 30);
  run_and_compare_trunk(0, 2 * mix_count + 3, 0, 2, 0, LEVEL_ORDER_HEIGHT, 20);
  run_and_compare_trunk(0, 3 * mix_count, 0, 0, 0, LEVEL_ORDER_HEIGHT, 12);
  run_and_compare_trunk(0, 3 * mix_count, 0, 0, 0, LEVEL_ORDER_DEPTH, 60);
}

static void level_solver_matches_reference_cp(void **state) {
  (void)state;
  run_and_compare(1, 2 * mix_count + 3, 11, 1, LEVEL_ORDER_AUTO);
  run_and_compare(1, 2 * mix_count + 3, 11, 0, LEVEL_ORDER_HEIGHT);
  run_and_compare(1, 2 * mix_count + 3, 4, 0, LEVEL_ORDER_DEPTH);
  run_and_compare_parts(1, 2 * mix_count + 3, 12, 4, 0, LEVEL_ORDER_HEIGHT);
  run_and_compare_trunk(1, 2 * mix_count + 3, 0, 0, 0, LEVEL_ORDER_HEIGHT, 20);
}

/* The launch plan of a chunk step (codelets/hines_level_kernels.h) on random level sizes, empty
 * levels and trunks: a kernel that issues loads before waiting for the previous kernel must come
 * right after one that writes none of them (a deeper backward level before a backward level; a
 * shallower forward level or the trunk before a forward level). On the GPU, breaking this rule
 * read a level's values while the kernel before was still writing them (chunks whose levels near
 * the root were empty). */
enum { KERNEL_BACKWARD, KERNEL_TRUNK_BACKWARD, KERNEL_TRUNK_FORWARD, KERNEL_FORWARD };
struct queued_kernel {
  int kind, level, launch;
};

static void early_launches_preload_only_what_the_previous_kernel_leaves(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  int preloading_seen = 0;
  for (int trial = 0; trial < 2000; trial++) {
    const int n_levels = 1 + (int)(testing_uniform(&seed_state) * 12);
    int systems[12], backward[12], forward[12], trunk;
    for (int level = 0; level < n_levels; level++)
      systems[level] = testing_uniform(&seed_state) < 0.3 ? 0 : 1 + level * 7;
    const int tail =
        testing_uniform(&seed_state) < 0.5 ? 0 : (int)(testing_uniform(&seed_state) * n_levels);
    const int trunk_threads = testing_uniform(&seed_state) < 0.2 ? 0 : 5;
    for (int early = 0; early <= 1; early++) {
      level_plan_launches(n_levels, systems, tail, trunk_threads, early, backward, forward, &trunk);
      struct queued_kernel queue[2 * 12 + 2];
      int queued = 0;
      for (int level = n_levels - 1; level >= 0; level--) {
        assert_int_equal(backward[level] >= 0, level >= tail && systems[level] > 0);
        if (backward[level] >= 0)
          queue[queued++] = (struct queued_kernel){KERNEL_BACKWARD, level, backward[level]};
      }
      assert_int_equal(trunk >= 0, tail > 0 && trunk_threads > 0);
      if (trunk >= 0) {
        queue[queued++] = (struct queued_kernel){KERNEL_TRUNK_BACKWARD, -1, trunk};
        queue[queued++] = (struct queued_kernel){KERNEL_TRUNK_FORWARD, -1, trunk};
      }
      for (int level = 0; level < n_levels; level++) {
        assert_int_equal(forward[level] >= 0, level >= tail && systems[level] > 0);
        if (forward[level] >= 0)
          queue[queued++] = (struct queued_kernel){KERNEL_FORWARD, level, forward[level]};
      }
      for (int i = 0; i < queued; i++) {
        const struct queued_kernel *k = &queue[i], *before = i > 0 ? &queue[i - 1] : NULL;
        if (!early) {
          assert_int_equal(k->launch, LEVEL_LAUNCH_PLAIN);
          continue;
        }
        assert_int_not_equal(k->launch, LEVEL_LAUNCH_PLAIN);
        if (k->launch != LEVEL_LAUNCH_EARLY_LOADS)
          continue;
        preloading_seen++;
        assert_non_null(before); /* never the step's first kernel */
        if (k->kind == KERNEL_BACKWARD)
          assert_true(before->kind == KERNEL_BACKWARD && before->level > k->level);
        else if (k->kind == KERNEL_FORWARD)
          assert_true((before->kind == KERNEL_FORWARD && before->level < k->level) ||
                      before->kind == KERNEL_TRUNK_FORWARD);
        else
          fail_msg("the trunk's kernels read the level below them first: they must wait");
      }
    }
  }
  assert_true(preloading_seen > 1000); /* the plans do preload */
}

/* The trunk the runs above use covers part of the levels: the levels from the root up to the
 * first one with at least `below` systems, each of their systems exactly once, every neuron's
 * list deepest level first (children before parents in the backward sweep). */
static void trunk_lists_cover_the_small_levels_once(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  const int neurons = 3 * mix_count;
  const int thresholds[] = {8, 40, 300}; /* level 0 holds 6 systems, the leaves' level thousands */
  for (size_t i = 0; i < sizeof thresholds / sizeof thresholds[0]; i++) {
    const struct level_batch_options options = {.neurons_per_chunk = neurons,
                                                .chunk_links = 1,
                                                .order = LEVEL_ORDER_HEIGHT,
                                                .trunk_below = thresholds[i]};
    struct level_batch batch;
    struct hines_error err;
    assert_int_equal(
        level_batch_build(mix, mix_count, neurons, &options, &cable_defaults, 0.025, &batch, &err),
        HINES_OK);
    const int *trunk = batch.trunk[0];
    assert_non_null(trunk);
    const int tail = trunk[TRUNK_LEVELS], threads = trunk[TRUNK_THREADS];
    assert_true(tail > 0 && tail < batch.n_levels); /* a part of the levels, not all */
    for (int level = 0; level <= tail; level++) {
      int systems = level_block_describe(batch.blocks[level]).systems;
      if (level < tail)
        assert_true(systems < thresholds[i]);
      else
        assert_true(systems >= thresholds[i]);
    }
    const int *list_first = trunk + TRUNK_HEADER_SIZE + 3 * tail, *list = list_first + threads + 1;
    int seen[64][512] = {{0}};
    for (int t = 0; t < threads; t++)
      for (int e = list_first[t]; e < list_first[t + 1]; e++) {
        const int level = list[2 * e], system = list[2 * e + 1];
        assert_true(level >= 0 && level < tail);
        assert_true(system >= 0 && system < 512);
        if (e > list_first[t])
          assert_true(level <= list[2 * (e - 1)]);
        seen[level][system]++;
      }
    for (int level = 0; level < tail; level++)
      for (int s = 0; s < level_block_describe(batch.blocks[level]).systems; s++)
        assert_int_equal(seen[level][s], 1);
    level_batch_free(&batch);
  }
}

/* Two builds of one batch are the same: offsets, system numbers, every level block, trunks. */
static void assert_same_levels(const struct level_batch *whole, const struct level_batch *other,
                               int neurons) {
  assert_int_equal(whole->n_chunks, other->n_chunks);
  assert_int_equal(whole->n_levels, other->n_levels);
  const size_t offsets = (size_t)whole->n_chunks * (whole->n_levels + 1);
  assert_memory_equal(whole->ints_offset, other->ints_offset, offsets * sizeof(size_t));
  assert_memory_equal(whole->element_offset, other->element_offset, offsets * sizeof(size_t));
  assert_memory_equal(whole->system_offset, other->system_offset, offsets * sizeof(size_t));
  assert_memory_equal(whole->branch_system, other->branch_system,
                      (size_t)whole->branch_offset[neurons] * sizeof(int));
  int trunks = 0;
  for (int c = 0; c < whole->n_chunks; c++) {
    for (int level = 0; level < whole->n_levels; level++) {
      const size_t at = (size_t)c * (whole->n_levels + 1) + level;
      const int *a = whole->blocks[c * whole->n_levels + level];
      const int *b = other->blocks[c * whole->n_levels + level];
      assert_true((a == NULL) == (b == NULL));
      if (a)
        assert_memory_equal(a, b,
                            (whole->ints_offset[at + 1] - whole->ints_offset[at]) * sizeof(int));
    }
    assert_int_equal(whole->trunk_ints[c], other->trunk_ints[c]);
    if (whole->trunk[c]) {
      trunks++;
      assert_memory_equal(whole->trunk[c], other->trunk[c], whole->trunk_ints[c] * sizeof(int));
    }
  }
  assert_true(trunks > 0);
}

/* level_batch_begin, level_batch_build_chunk and level_batch_end (the runtime builds the chunks'
 * blocks at once, a task each): chunks built in reverse order give what level_batch_build gives,
 * block for block, offsets, system numbers and trunks alike: no chunk's build reads another's.
 * So do runs of a chunk's levels (level_batch_build_levels, as level_batch_level_groups cuts
 * them) built in a random order, then each chunk linked (level_batch_link_chunk). */
static void chunks_built_in_any_order_are_the_same(void **state) {
  (void)state;
  const int neurons = 7 * mix_count + 3;
  const struct level_batch_options options = {.neurons_per_chunk = 5,
                                              .chunk_links = 1,
                                              .order = LEVEL_ORDER_HEIGHT,
                                              .trunk_below = 8,
                                              .arranged_tail = neurons - mix_count};
  struct level_batch whole, reversed, pieces;
  struct level_build *build = NULL;
  struct hines_error err;
  assert_int_equal(
      level_batch_build(mix, mix_count, neurons, &options, &cable_defaults, 0.025, &whole, &err),
      HINES_OK);
  assert_true(whole.n_chunks > 10);
  assert_int_equal(level_batch_begin(mix, mix_count, neurons, &options, &cable_defaults, 0.025,
                                     &reversed, &build, &err),
                   HINES_OK);
  assert_non_null(build);
  for (int c = reversed.n_chunks - 1; c >= 0; c--)
    assert_int_equal(level_batch_build_chunk(build, c, &err), HINES_OK);
  assert_int_equal(level_batch_end(build, HINES_OK, &err), HINES_OK);
  assert_same_levels(&whole, &reversed, neurons);

  /* Runs of each chunk's levels built in a random order, then the chunks linked backwards. */
  assert_int_equal(level_batch_begin(mix, mix_count, neurons, &options, &cable_defaults, 0.025,
                                     &pieces, &build, &err),
                   HINES_OK);
  const int n_levels = pieces.n_levels, groups = 3;
  int(*piece)[3] = malloc((size_t)pieces.n_chunks * groups * sizeof *piece);
  int count = 0, split = 0, first_level[4];
  for (int c = 0; c < pieces.n_chunks; c++) {
    const int made = level_batch_level_groups(build, c, groups, first_level);
    assert_true(made >= 1 && made <= groups);
    assert_int_equal(first_level[0], 0);
    assert_int_equal(first_level[made], n_levels);
    split += made > 1;
    for (int g = 0; g < made; g++) {
      assert_true(first_level[g] < first_level[g + 1]);
      piece[count][0] = c, piece[count][1] = first_level[g], piece[count][2] = first_level[g + 1];
      count++;
    }
  }
  assert_true(split > 0);
  for (int p = count - 1; p > 0; p--) { /* Fisher-Yates */
    const int q = (int)(testing_uniform(&seed_state) * (p + 1));
    int kept[3];
    memcpy(kept, piece[p], sizeof kept);
    memcpy(piece[p], piece[q], sizeof kept);
    memcpy(piece[q], kept, sizeof kept);
  }
  for (int p = 0; p < count; p++)
    assert_int_equal(level_batch_build_levels(build, piece[p][0], piece[p][1], piece[p][2], &err),
                     HINES_OK);
  for (int c = pieces.n_chunks - 1; c >= 0; c--)
    assert_int_equal(level_batch_link_chunk(build, c, &err), HINES_OK);
  assert_int_equal(level_batch_end(build, HINES_OK, &err), HINES_OK);
  assert_same_levels(&whole, &pieces, neurons);
  free(piece);
  level_batch_free(&whole);
  level_batch_free(&reversed);
  level_batch_free(&pieces);
}

/* Height order with per-level tasks cannot be expressed: refused, not silently changed. */
static void height_order_needs_chunk_tasks(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  struct multi_batch_config config = {
      .morphologies = mix,
      .n_morphologies = mix_count,
      .n_neurons = mix_count,
      .level_tasks = 1,
      .order = LEVEL_ORDER_HEIGHT,
      .model = {.cable = cable_defaults, .dt_ms = 0.025, .initial_mV = -65}};
  struct multi_batch *batch = NULL;
  struct hines_error err;
  assert_int_equal(multi_batch_create(&config, &batch, &err), HINES_BAD_INPUT);
  assert_null(batch);
  assert_non_null(strstr(err.message, "one task per chunk"));
}

/* The papers' baseline (the mono kernel, one tree per neuron) follows the reference too. */
static void per_neuron_baseline_matches_reference(void **state) {
  (void)state;
  const int neurons = mix_count + 5, steps = 20;
  struct stimulus stim = {
      .compartment = 0, .amplitude_nA = 0.5, .start_ms = 0.05, .stop_ms = 1e9, .spread = 0.8};
  struct multi_batch_config config = {
      .morphologies = mix,
      .n_morphologies = mix_count,
      .n_neurons = neurons,
      .neurons_per_task = 6,
      .model = {.cable = cable_defaults, .dt_ms = 0.025, .initial_mV = -65, .stimulus = stim}};
  struct neuron_batch *batch;
  struct hines_error err;
  assert_int_equal(neuron_batch_create(&config, &batch, &err), HINES_OK);
  assert_int_equal(neuron_batch_run(batch, steps, 0), HINES_OK);
  for (int k = 0; k < neurons; k++) {
    double *got = malloc(mix[k % mix_count].n_compartments * sizeof(double));
    neuron_batch_voltage(batch, k, got);
    compare_with_reference(got, k, neurons, steps, &stim, "per-neuron baseline");
    free(got);
  }
  neuron_batch_destroy(batch);
}

/* The model of the batches below: a stimulus at every soma from 0.05 ms (spread over the
 * neurons), passive or with Hodgkin-Huxley channels everywhere. */
static struct step_model stimulated_model(int channels) {
  return (struct step_model){.cable = cable_defaults,
                             .dt_ms = 0.025,
                             .initial_mV = -65,
                             .stimulus = {.compartment = 0,
                                          .amplitude_nA = 1.0,
                                          .start_ms = 0.05,
                                          .stop_ms = 1e9,
                                          .spread = 0.8},
                             .channels = channel_set_hh(channels ? PLACE_ALL : PLACE_NONE)};
}

/* The voltages of every neuron after `steps` steps of a chunk-task batch (level kernel or
 * cell-block kernel), neuron after neuron. */
/* --level-subtrees and --level-split of the runs below (0: one system per branch, whole). */
static int subtree_limit, split_limit;
/* --level-root of the runs below (1: center, 0: soma). */
static int root_center;
/* A trunk of branches (multi_batch_config.trunk_branches) in run_chunk_kernel's batches: the
 * levels from the root up to the first of this many systems a neuron (0: none). */
static double trunk_per_neuron;
/* --level-factors of the runs below: 0 rows (hinestask's default), 1 elements. */
static int element_factors;
/* --level-rows of the runs below (enum level_rows; 0: fused, the sweeps build every row). */
static enum level_rows level_rows_mode;

static double *run_chunk_kernel(const struct morphology *morphologies, int n_morphologies,
                                int neurons, int per_task, int parts, enum level_order order,
                                int padded, enum level_kernel kernel, int cell_neurons,
                                const struct step_model *model, int steps, size_t *values) {
  struct multi_batch_config config = {.morphologies = morphologies,
                                      .n_morphologies = n_morphologies,
                                      .n_neurons = neurons,
                                      .neurons_per_task = per_task,
                                      .parts_per_task = parts,
                                      .padded = padded,
                                      .order = order,
                                      .level_kernel = kernel,
                                      .cell_neurons = cell_neurons,
                                      .subtree_compartments = subtree_limit,
                                      .split_compartments = split_limit,
                                      .level_root_center = root_center,
                                      .level_row_factors = !element_factors,
                                      .level_rows = level_rows_mode,
                                      .trunk_branches = trunk_per_neuron,
                                      .model = *model};
  struct multi_batch *batch;
  struct hines_error err;
  const int status = multi_batch_create(&config, &batch, &err);
  /* A block kernel's block that does not fit a GPU's shared memory is refused before the run
   * where a CUDA worker could get it (the mix's largest cells, one a block, on an H100): the
   * case is then left out, on CUDA workers only. */
  if (status == HINES_BAD_INPUT && starpu_cuda_worker_get_count() > 0 &&
      strstr(err.message, "GPU shared memory")) {
    printf("# refused where a CUDA worker runs it: %s\n", err.message);
    *values = 0;
    return NULL;
  }
  assert_int_equal(status, HINES_OK);
  assert_int_equal(multi_batch_run(batch, steps / 2, 0), HINES_OK);
  assert_int_equal(multi_batch_run(batch, steps - steps / 2, steps / 2 * model->dt_ms), HINES_OK);
  *values = 0;
  for (int k = 0; k < neurons; k++)
    *values += (size_t)morphologies[k % n_morphologies].n_compartments;
  double *v = malloc(*values * sizeof(double)), *at = v;
  for (int k = 0; k < neurons; k++) {
    multi_batch_voltage(batch, k, at);
    at += morphologies[k % n_morphologies].n_compartments;
  }
  if (kernel == LEVEL_KERNEL_CELL)
    assert_int_equal(multi_batch_cell_neurons(batch), cell_neurons > 0 ? cell_neurons : 2);
  multi_batch_destroy(batch);
  return v;
}

/* The largest relative error of a batch's voltages (got: neuron after neuron) against the
 * sequential reference time loop; fails above reference_tolerance, naming `what`, the neuron and
 * its cell, and when the stimulus left a soma at rest. */
static double worst_against_reference(const struct morphology *morphologies, int n_morphologies,
                                      int neurons, const struct step_model *model, int steps,
                                      const double *got, const char *what) {
  double worst = 0;
  const double *at = got;
  for (int k = 0; k < neurons; k++) {
    const struct morphology *m = &morphologies[k % n_morphologies];
    double *want = malloc(m->n_compartments * sizeof(double));
    for (int i = 0; i < m->n_compartments; i++)
      want[i] = -65;
    struct stimulus stim = model->stimulus;
    stim.n_neurons_total = neurons;
    struct hines_error err;
    assert_int_equal(reference_simulate(m, &cable_defaults, &model->channels, model->dt_ms, steps,
                                        0, &stim, k, want, &err),
                     HINES_OK);
    const double error = testing_relative_error(m->n_compartments, at, want);
    const double tolerance = reference_tolerance(m, &model->channels, model->dt_ms, steps);
    if (!(error <= tolerance))
      fail_msg("%s, neuron %d (%s): relative error %.3e, above %.3e", what, k, m->name, error,
               tolerance);
    assert_true(fabs(want[0] + 65) > 1e-3);
    worst = fmax(worst, error);
    at += m->n_compartments;
    free(want);
  }
  return worst;
}

/* A kernel that sweeps a whole step per thread block, by its CPU emulation: the cell-block kernel
 * (the GPU blocks' threads one after another, level by level) or the on-chip cell kernel (each
 * block's rows built into its own arrays, then swept level by level there through the block's
 * own descriptions); gpu_run.sh runs this test on CUDA workers too. Against the sequential
 * reference time loop, passive and with channels everywhere, for a batch, a block shape and the
 * layout of the moment (subtree_limit, split_limit); and bit for bit against the level kernels
 * on the same batch. */
static void block_kernel_case(enum level_kernel kernel, const struct morphology *morphologies,
                              int n_morphologies, int neurons, int per_task, int parts,
                              enum level_order order, int padded, int cell_neurons, int channels) {
  const int steps = 40;
  const struct step_model model = stimulated_model(channels);
  size_t values, level_values;
  double *got = run_chunk_kernel(morphologies, n_morphologies, neurons, per_task, parts, order,
                                 padded, kernel, cell_neurons, &model, steps, &values);
  if (!got)
    return;
  double *levels = run_chunk_kernel(morphologies, n_morphologies, neurons, per_task, parts, order,
                                    padded, LEVEL_KERNEL_LEVELS, 0, &model, steps, &level_values);
  assert_int_equal(values, level_values);
  char what[128];
  snprintf(what, sizeof what, "%s kernel, %d neurons a block, subtrees %d, split %d",
           kernel == LEVEL_KERNEL_CELL ? "cell-block" : "on-chip cell", cell_neurons, subtree_limit,
           split_limit);
  const double worst =
      worst_against_reference(morphologies, n_morphologies, neurons, &model, steps, got, what);
  if (memcmp(got, levels, values * sizeof(double)) != 0)
    fail_msg("%s: differs in bits from the level kernels", what);
  printf("# %s, %d morphologies, %d neurons, %d per task in %d parts, %s, %s, %s: max relative "
         "error %.3e, bits of the level kernels\n",
         what, n_morphologies, neurons, per_task, parts, order_name(order), padded ? "CP" : "NCP",
         channels ? "HH all" : "passive", worst);
  free(got), free(levels);
}

/* Where morph_ca1_n120 sits in the mix. */
static int ca1_in_mix(void) {
  for (int i = 0; i < mix_count; i++)
    if (strstr(mix[i].name, "morph_ca1_n120"))
      return i;
  fail_msg("morph_ca1_n120 is not in the mix");
  return -1;
}

/* A mono-morphology batch (many copies of one cell: the case the kernel is for), a random tree,
 * and the whole mix, with several block shapes, passive and HH. */
static void cell_kernel_matches_reference(void **state) {
  (void)state;
  const int ca1 = ca1_in_mix();
  const struct morphology *random_tree = &mix[mix_count - 1]; /* load_mix's synthetic trees */
  const enum level_kernel cell = LEVEL_KERNEL_CELL;
  for (int channels = 0; channels < 2; channels++) {
    block_kernel_case(cell, &mix[ca1], 1, 13, 0, 0, LEVEL_ORDER_AUTO, 0, 4, channels);
    block_kernel_case(cell, &mix[ca1], 1, 9, 0, 0, LEVEL_ORDER_AUTO, 0, 1, channels);
    block_kernel_case(cell, random_tree, 1, 11, 5, 0, LEVEL_ORDER_HEIGHT, 0, 3, channels);
    block_kernel_case(cell, mix, mix_count, 2 * mix_count + 3, 0, 2, LEVEL_ORDER_AUTO, 0, 2,
                      channels);
    block_kernel_case(cell, mix, mix_count, mix_count + 1, 7, 0, LEVEL_ORDER_DEPTH, 1, 0, channels);
  }
}

/* One cell, a random tree and the whole mix, several block shapes and chunkings, branches
 * whole, in subtrees, and cut (the layouts the schedule renumbers), passive and HH. Under the
 * scheduler variants of ctest (testing_scheduler_only) the default layout alone, HH: a policy
 * only places the tasks, the plain run checks the whole matrix. */
static void shared_kernel_matches_reference(void **state) {
  (void)state;
  const int full = !testing_scheduler_only();
  const int ca1 = ca1_in_mix();
  const struct morphology *random_tree = &mix[mix_count - 1]; /* load_mix's synthetic trees */
  const enum level_kernel shared = LEVEL_KERNEL_SHARED;
  const struct { int subtrees, split; } layouts[] = {{64, 64}, {0, 0}, {8, 5}};
  for (size_t l = 0; l < (full ? sizeof layouts / sizeof layouts[0] : 1); l++) {
    subtree_limit = layouts[l].subtrees, split_limit = layouts[l].split;
    for (int channels = !full; channels < 2; channels++) {
      block_kernel_case(shared, &mix[ca1], 1, 5, 0, 0, LEVEL_ORDER_AUTO, 0, 0, channels);
      block_kernel_case(shared, &mix[ca1], 1, 7, 0, 0, LEVEL_ORDER_AUTO, 0, 3, channels);
      block_kernel_case(shared, random_tree, 1, 11, 5, 0, LEVEL_ORDER_HEIGHT, 0, 2, channels);
      block_kernel_case(shared, mix, mix_count, 2 * mix_count + 3, 0, 2, LEVEL_ORDER_AUTO, 0, 1,
                        channels);
      block_kernel_case(shared, mix, mix_count, mix_count + 1, 7, 0, LEVEL_ORDER_DEPTH, 0, 0,
                        channels);
    }
  }
  subtree_limit = split_limit = 0;
}

/* The branch kernel (codelets/branch_step.h: every branch grounded at once, then the junctions,
 * then each branch's response; by its host emulation on CPU workers, the kernel itself on CUDA
 * workers) against the sequential reference within the level kernels' bound, and against the
 * level kernels within rounding (its sums are regrouped: not their bits), passive only. */
static void branch_kernel_case(const struct morphology *morphologies, int n_morphologies,
                               int neurons, int per_task, enum level_order order,
                               int cell_neurons) {
  const int steps = 40;
  const struct step_model model = stimulated_model(0);
  size_t values, level_values;
  double *got = run_chunk_kernel(morphologies, n_morphologies, neurons, per_task, 0, order, 0,
                                 LEVEL_KERNEL_BRANCHES, cell_neurons, &model, steps, &values);
  if (!got)
    return;
  double *levels = run_chunk_kernel(morphologies, n_morphologies, neurons, per_task, 0, order, 0,
                                    LEVEL_KERNEL_LEVELS, 0, &model, steps, &level_values);
  assert_int_equal(values, level_values);
  char what[160];
  snprintf(what, sizeof what, "branch kernel, %d neurons a block, subtrees %d, split %d, root %s",
           cell_neurons, subtree_limit, split_limit, root_center ? "center" : "soma");
  const double worst =
      worst_against_reference(morphologies, n_morphologies, neurons, &model, steps, got, what);
  const double apart = testing_relative_error((int)values, got, levels);
  if (apart > 1e-12)
    fail_msg("%s: %.3e from the level kernels", what, apart);
  printf("# %s, %d morphologies, %d neurons, %d per task, %s: max relative error %.3e, %.3e "
         "from the level kernels\n",
         what, n_morphologies, neurons, per_task, order_name(order), worst, apart);
  free(got), free(levels);
}

/* One cell, a random tree and the whole mix, blocks of 1 to 3 neurons, several chunkings,
 * branches whole, in subtrees and cut, roots at the soma and at the centers. */
static void branch_kernel_matches_reference(void **state) {
  (void)state;
  const int full = !testing_scheduler_only();
  const int ca1 = ca1_in_mix();
  const struct morphology *random_tree = &mix[mix_count - 1];
  const struct {
    int subtrees, split, center;
  } layouts[] = {{64, 64, 1}, {0, 0, 0}, {8, 5, 0}, {0, 64, 1}};
  for (size_t l = 0; l < (full ? sizeof layouts / sizeof layouts[0] : 1); l++) {
    subtree_limit = layouts[l].subtrees, split_limit = layouts[l].split;
    root_center = layouts[l].center;
    branch_kernel_case(&mix[ca1], 1, 5, 0, LEVEL_ORDER_AUTO, 0);
    branch_kernel_case(&mix[ca1], 1, 7, 0, LEVEL_ORDER_AUTO, 3);
    branch_kernel_case(random_tree, 1, 11, 5, LEVEL_ORDER_HEIGHT, 2);
    branch_kernel_case(mix, mix_count, 2 * mix_count + 3, 0, LEVEL_ORDER_AUTO, 1);
    branch_kernel_case(mix, mix_count, mix_count + 1, 7, LEVEL_ORDER_DEPTH, 0);
  }
  subtree_limit = split_limit = root_center = 0;
}

/* A trunk of branches (the levels near the roots solved by the branch step between the level
 * kernels' sweeps of the levels below): against the sequential reference, against the level
 * kernels within rounding, chunks against one chunk bit for bit (the trunk is the same levels in
 * every chunk), and, when the trunk holds every level, bit for bit the branch kernel's (the
 * children below a trunk add nothing then). */
static void trunk_of_branches_case(const struct morphology *morphologies, int n_morphologies,
                                   int neurons, int per_task, double per_neuron, int cell_neurons) {
  const int steps = 40;
  const struct step_model model = stimulated_model(0);
  size_t values, level_values;
  trunk_per_neuron = per_neuron;
  double *got =
      run_chunk_kernel(morphologies, n_morphologies, neurons, per_task, 0, LEVEL_ORDER_AUTO, 0,
                       LEVEL_KERNEL_LEVELS, cell_neurons, &model, steps, &values);
  trunk_per_neuron = 0;
  if (!got)
    return;
  double *levels =
      run_chunk_kernel(morphologies, n_morphologies, neurons, per_task, 0, LEVEL_ORDER_AUTO, 0,
                       LEVEL_KERNEL_LEVELS, 0, &model, steps, &level_values);
  assert_int_equal(values, level_values);
  char what[160];
  if (per_neuron < 0)
    snprintf(what, sizeof what,
             "default trunk of branches, %d neurons a block (0: default), split %d", cell_neurons,
             split_limit);
  else
    snprintf(what, sizeof what,
             "trunk of branches below %g systems a neuron, %d neurons a block, "
             "split %d",
             per_neuron, cell_neurons, split_limit);
  const double worst =
      worst_against_reference(morphologies, n_morphologies, neurons, &model, steps, got, what);
  const double apart = testing_relative_error((int)values, got, levels);
  if (apart > 1e-12)
    fail_msg("%s: %.3e from the level kernels", what, apart);
  if (per_task > 0) { /* the same levels in every chunk: the bits of one chunk */
    trunk_per_neuron = per_neuron;
    double *one = run_chunk_kernel(morphologies, n_morphologies, neurons, 0, 0, LEVEL_ORDER_AUTO, 0,
                                   LEVEL_KERNEL_LEVELS, cell_neurons, &model, steps, &level_values);
    trunk_per_neuron = 0;
    if (memcmp(got, one, values * sizeof(double)) != 0)
      fail_msg("%s: chunks of %d neurons and one chunk differ in bits", what, per_task);
    free(one);
  }
  if (per_neuron >= 1e9) {
    double *branches =
        run_chunk_kernel(morphologies, n_morphologies, neurons, per_task, 0, LEVEL_ORDER_AUTO, 0,
                         LEVEL_KERNEL_BRANCHES, cell_neurons, &model, steps, &level_values);
    if (memcmp(got, branches, values * sizeof(double)) != 0)
      fail_msg("%s: a trunk of every level differs in bits from the branch kernel", what);
    free(branches);
  }
  printf("# %s, %d morphologies, %d neurons, %d per task: max relative error %.3e, %.3e from "
         "the level kernels\n",
         what, n_morphologies, neurons, per_task, worst, apart);
  free(got), free(levels);
}

/* One cell, a random tree and the whole mix; trunks of a few levels, of most and of all. */
static void trunk_of_branches_matches_reference(void **state) {
  (void)state;
  const int ca1 = ca1_in_mix();
  const struct morphology *random_tree = &mix[mix_count - 1];
  const int splits[] = {64, 0};
  for (size_t l = 0; l < (testing_scheduler_only() ? 1 : 2); l++) {
    split_limit = splits[l];
    trunk_of_branches_case(&mix[ca1], 1, 5, 2, 2.0, 0);
    trunk_of_branches_case(&mix[ca1], 1, 7, 3, 6.0, 3);
    trunk_of_branches_case(&mix[ca1], 1, 7, 0, 1e9, 1);
    trunk_of_branches_case(random_tree, 1, 11, 5, 2.0, 2);
    trunk_of_branches_case(mix, mix_count, 2 * mix_count + 3, 4, 1.5, 1);
    trunk_of_branches_case(mix, mix_count, mix_count + 1, 7, 1e9, 1);
  }
  split_limit = 0;
}

/* A cell with a long chain of few branches near its root and a large crown: a spine of `spine`
 * pieces of `piece` compartments, a twig of 2 at each joint, then a complete binary crown of
 * `crown_levels` levels of branches of 5 compartments. */
static void spine_and_crown(int spine, int piece, int crown_levels, struct morphology *out) {
  const int crown_branches = (1 << crown_levels) - 1;
  const int n = spine * (piece + 2) + 5 * crown_branches;
  int *parent = malloc((size_t)n * sizeof(int)), at = 0, joint = -1;
  for (int s = 0; s < spine; s++) {
    for (int i = 0; i < piece; i++, at++)
      parent[at] = i == 0 ? joint : at - 1;
    joint = at - 1;
    parent[at] = joint, parent[at + 1] = at, at += 2; /* the twig */
  }
  int *branch_end = malloc((size_t)crown_branches * sizeof(int));
  for (int b = 0; b < crown_branches; b++) { /* b's parent branch: (b - 1) / 2 */
    for (int i = 0; i < 5; i++, at++)
      parent[at] = i > 0 ? at - 1 : b == 0 ? joint : branch_end[(b - 1) / 2];
    branch_end[b] = at - 1;
  }
  struct hines_error err;
  assert_int_equal(morphology_from_parents("spine and crown", n, parent, out, &err), HINES_OK);
  free(parent), free(branch_end);
}

/* A tree whose every branch point has three children: a root branch, then `levels` levels of
 * branches of 2 to LEVEL_SUBTREE_MEAN_BRANCH compartments (random lengths), three from each tip,
 * so that its leaf subtrees hold elements of three children (the CPU sweeps' loop for a third
 * child on). Branches no longer than that mean keep every subtree within units_build's bound on
 * the mean branch, so with `levels` 3 the level-1 subtrees (13 branches, at most 52 compartments)
 * are subtree units whatever the draw; with branches of up to 7 a draw could leave every subtree
 * above the mean and no unit with an element of three children (CI's seed 1796523558017173859). */
static void three_way_tree(int levels, struct morphology *out) {
  int n_branches = 0, tips = 1;
  for (int l = 0; l <= levels; l++, tips *= 3)
    n_branches += tips;
  int *parent = malloc((size_t)n_branches * LEVEL_SUBTREE_MEAN_BRANCH * sizeof(int)), at = 0;
  int *branch_end = malloc((size_t)n_branches * sizeof(int));
  for (int b = 0; b < n_branches; b++) { /* b's parent branch: (b - 1) / 3 */
    const int length = 2 + (int)(testing_uniform(&seed_state) * (LEVEL_SUBTREE_MEAN_BRANCH - 1));
    for (int i = 0; i < length; i++, at++)
      parent[at] = i > 0 ? at - 1 : b == 0 ? -1 : branch_end[(b - 1) / 3];
    branch_end[b] = at - 1;
  }
  struct hines_error err;
  assert_int_equal(morphology_from_parents("three-way tree", at, parent, out, &err), HINES_OK);
  free(parent), free(branch_end);
}

/* The trunk's levels by default (LEVEL_TRUNK_AUTO), recomputed from one chunk holding each cell
 * once: from the root while the levels average fewer than LEVEL_TRUNK_AUTO_SYSTEMS systems a
 * cell, cut back to LEVEL_TRUNK_AUTO_BRANCHES branches and LEVEL_TRUNK_AUTO_SHARE of the
 * compartments, none unless its levels' longest systems add up to LEVEL_TRUNK_AUTO_CHAIN. */
static int default_trunk_levels(const struct morphology *cells, int n_cells, int *built) {
  const struct level_batch_options options = {.neurons_per_chunk = n_cells,
                                              .chunk_links = 1,
                                              .order = LEVEL_ORDER_AUTO,
                                              .subtree_compartments = 64, /* hinestask's defaults */
                                              .split_compartments = 64,
                                              .trunk_systems_per_neuron = LEVEL_TRUNK_AUTO};
  struct level_batch lb;
  struct hines_error err;
  assert_int_equal(
      level_batch_build(cells, n_cells, n_cells, &options, &cable_defaults, 0.025, &lb, &err),
      HINES_OK);
  *built = lb.trunk[0] ? lb.trunk[0][TRUNK_LEVELS] : 0;
  double compartments = 0;
  for (int m = 0; m < n_cells; m++)
    compartments += cells[m].n_compartments;
  int tail = 0;
  while (tail < lb.n_levels &&
         level_block_describe(lb.blocks[tail]).systems < LEVEL_TRUNK_AUTO_SYSTEMS * n_cells)
    tail++;
  for (;; tail--) {
    double branches = 0, held = 0;
    for (int level = 0; level < tail; level++) {
      const struct level_block_view v = level_block_describe(lb.blocks[level]);
      branches += v.systems, held += v.elements;
    }
    if (branches <= LEVEL_TRUNK_AUTO_BRANCHES * compartments &&
        held <= LEVEL_TRUNK_AUTO_SHARE * compartments)
      break;
  }
  int chain = 0;
  for (int level = 0; level < tail; level++)
    chain += level_block_describe(lb.blocks[level]).max_size;
  level_batch_free(&lb);
  return chain >= LEVEL_TRUNK_AUTO_CHAIN ? tail : 0;
}

/* The default trunk: the levels of a long spine's pieces below a large crown, none for the
 * shipped cells (their levels near the roots hold short branches) nor for a spine too short;
 * recomputed from the batch's levels, and voltages within rounding of the reference, bit for bit
 * whatever the chunks, with the junctions' blocks of the default's many cells and of one. */
static void trunk_of_branches_by_default(void **state) {
  (void)state;
  struct morphology cells[2];
  spine_and_crown(6, 60, 11, &cells[0]); /* a chain of 360 compartments, 2,047 branches */
  spine_and_crown(2, 60, 11, &cells[1]); /* a chain of 120 */
  int built, want = default_trunk_levels(cells, 1, &built);
  assert_int_equal(built, want);
  assert_true(want >= 6); /* every spine piece at least */
  want = default_trunk_levels(cells + 1, 1, &built);
  assert_int_equal(built, want);
  assert_int_equal(want, 0);
  want = default_trunk_levels(mix, 6, &built); /* the shipped cells, loaded first */
  assert_int_equal(built, want);
  assert_int_equal(want, 0);
  want = default_trunk_levels(mix, mix_count, &built); /* with the shared cells where present */
  assert_int_equal(built, want);
  printf("# default trunk: %d levels for the test's whole mix of %d cells\n", want, mix_count);
  want = default_trunk_levels(cells, 2, &built);
  assert_int_equal(built, want);
  printf("# default trunk: %d levels for a spine of 360 and one of 120 together\n", want);
  assert_true(want > 0);
  const int split_before = split_limit, subtrees_before = subtree_limit;
  split_limit = 64, subtree_limit = 64;
  trunk_of_branches_case(cells, 2, 3, 1, LEVEL_TRUNK_AUTO, 0);
  trunk_of_branches_case(cells, 2, 3, 1, LEVEL_TRUNK_AUTO, 1);
  split_limit = split_before, subtree_limit = subtrees_before;
  morphology_free(&cells[0]), morphology_free(&cells[1]);
}

/* The flow kernel (on CPU workers the chunk step runs level by level; on CUDA workers, the flow
 * kernel itself: gpu_run.sh runs this test there) against the sequential reference, and bit
 * for bit against the level kernels, passive and with channels everywhere. */
static void flow_kernel_case(const struct morphology *morphologies, int n_morphologies, int neurons,
                             int per_task, int parts, int padded, int channels) {
  const int steps = 40;
  const struct step_model model = stimulated_model(channels);
  size_t values, level_values;
  double *got =
      run_chunk_kernel(morphologies, n_morphologies, neurons, per_task, parts, LEVEL_ORDER_AUTO,
                       padded, LEVEL_KERNEL_FLOW, 0, &model, steps, &values);
  double *levels =
      run_chunk_kernel(morphologies, n_morphologies, neurons, per_task, parts, LEVEL_ORDER_AUTO,
                       padded, LEVEL_KERNEL_LEVELS, 0, &model, steps, &level_values);
  assert_int_equal(values, level_values);
  const double worst = worst_against_reference(morphologies, n_morphologies, neurons, &model, steps,
                                               got, "flow kernel");
  if (memcmp(got, levels, values * sizeof(double)) != 0)
    fail_msg("flow kernel and level kernels differ in bits");
  printf("# flow kernel, %d morphologies, %d neurons, %d per task in %d parts, %s, %s: max "
         "relative error %.3e, bits of the level kernels\n",
         n_morphologies, neurons, per_task, parts, padded ? "CP" : "NCP",
         channels ? "HH all" : "passive", worst);
  free(got), free(levels);
}

static void flow_kernel_matches_reference(void **state) {
  (void)state;
  const struct morphology *random_tree = &mix[mix_count - 1];
  for (int channels = 0; channels < 2; channels++) {
    flow_kernel_case(random_tree, 1, 11, 5, 0, 0, channels);
    flow_kernel_case(mix, mix_count, 2 * mix_count + 3, 0, 2, 0, channels);
    flow_kernel_case(mix, mix_count, mix_count + 1, 7, 0, 1, channels);
  }
}

/* n random trees (synthetic_random), tree r of first_size + r * size_step compartments and
 * first_branching + r * branching_step branches' worth of splits, each from a fresh seed. */
static void random_trees(struct morphology *trees, int n, int first_size, int size_step,
                         int first_branching, int branching_step) {
  struct hines_error err;
  for (int r = 0; r < n; r++)
    assert_int_equal(
        synthetic_random(first_size + size_step * r, first_branching + branching_step * r,
                         (unsigned)(testing_uniform(&seed_state) * 1e9), &trees[r], &err),
        HINES_OK);
}

/* Two copies of one chunk's state (voltage, factor, contribution, gates), the same random
 * voltages and gates in both, and the chunk's level descriptions back to back (its part ints). */
struct chunk_copies {
  double *state[2][4];
  int *part_ints;
  size_t elements, systems;
};

static struct chunk_copies chunk_copies_make(const struct level_batch *lb, int chunk, int n_gates) {
  struct chunk_copies c;
  const size_t at = (size_t)chunk * (lb->n_levels + 1);
  c.elements = lb->element_offset[at + lb->n_levels];
  c.systems = lb->system_offset[at + lb->n_levels];
  c.part_ints = malloc(lb->ints_offset[at + lb->n_levels] * sizeof(int));
  for (int level = 0; level < lb->n_levels; level++)
    memcpy(c.part_ints + lb->ints_offset[at + level], lb->blocks[chunk * lb->n_levels + level],
           (lb->ints_offset[at + level + 1] - lb->ints_offset[at + level]) * sizeof(int));
  for (int copy = 0; copy < 2; copy++) {
    c.state[copy][0] = malloc(c.elements * sizeof(double));
    c.state[copy][1] = calloc(c.elements, sizeof(double));
    c.state[copy][2] = calloc(2 * c.systems, sizeof(double));
    c.state[copy][3] = n_gates ? malloc(n_gates * c.elements * sizeof(double)) : NULL;
  }
  for (size_t e = 0; e < c.elements; e++)
    c.state[0][0][e] = c.state[1][0][e] = -70 + 10 * testing_uniform(&seed_state);
  for (size_t g = 0; g < n_gates * c.elements; g++)
    c.state[0][3][g] = c.state[1][3][g] = testing_uniform(&seed_state);
  return c;
}

static void chunk_copies_free(struct chunk_copies *c) {
  for (int copy = 0; copy < 2; copy++)
    for (int i = 0; i < 4; i++)
      free(c->state[copy][i]);
  free(c->part_ints);
}

/* The forward sweep of one chunk, level after level, as the CPU chunk codelet runs it; parents
 * in the chunk's arrays (chunk links) or in the level above's (level links). */
static void levels_forward_host(const struct level_batch *lb, int chunk, const int *part_ints,
                                double *voltage, const double *factor) {
  const size_t at = (size_t)chunk * (lb->n_levels + 1);
  for (int level = 0; level < lb->n_levels; level++) {
    const struct level_block_view v = level_block_describe(part_ints + lb->ints_offset[at + level]);
    const size_t e = lb->element_offset[at + level];
    const double *parents =
        voltage + (lb->chunk_links || level == 0 ? 0 : lb->element_offset[at + level - 1]);
    for (int s = 0; s < v.systems; s++)
      level_forward_system(&v, s, voltage + e, factor + e, parents);
  }
}

/* One step of one chunk, level after level, as the CPU chunk codelet sweeps it. */
static void levels_step_host(const struct level_batch *lb, int chunk, const int *part_ints,
                             const struct level_step_arguments *args, double *voltage,
                             double *factor, double *contribution, double *gates) {
  const size_t at = (size_t)chunk * (lb->n_levels + 1);
  for (int level = lb->n_levels - 1; level >= 0; level--) {
    const struct level_block_view v = level_block_describe(part_ints + lb->ints_offset[at + level]);
    const size_t e = lb->element_offset[at + level];
    for (int s = 0; s < v.systems; s++)
      level_backward_system(&v, s, lb->constants, args, voltage + e, factor + e,
                            contribution + 2 * lb->system_offset[at + level], contribution,
                            gates ? gates + (size_t)args->channels.n_gates * e : NULL, 0);
  }
  levels_forward_host(lb, chunk, part_ints, voltage, factor);
}

/* The same step with the rows of the levels of fewer than apart_below systems built apart, as
 * the GPU's row kernel and its rows-assembled backward kernels do it (--level-rows): element i
 * of such a level assembled on its own (level_row_of_element, level_assemble_element), then its
 * sweep eliminates only; the other levels build their rows in their sweeps. */
static void levels_step_rows_apart(const struct level_batch *lb, int chunk, const int *part_ints,
                                   const struct level_step_arguments *args, int apart_below,
                                   double *voltage, double *factor, double *contribution,
                                   double *gates) {
  const size_t at = (size_t)chunk * (lb->n_levels + 1);
  for (int level = 0; level < lb->n_levels; level++) {
    const struct level_block_view v = level_block_describe(part_ints + lb->ints_offset[at + level]);
    const size_t e = lb->element_offset[at + level];
    if (v.systems >= apart_below)
      continue;
    for (int i = v.row_offset[v.max_size] - 1; i >= 0; i--) { /* any order: independent */
      const int j = level_row_of_element(&v, i);
      assert_true(i >= v.row_offset[j] && i < v.row_offset[j + 1]);
      /* the form named (as the GPU's row kernel names it) on odd levels, picked at run time on
       * even ones: both must give the fused sweep's bits */
      const int variant =
          level % 2 ? channel_variant_of(&args->channels, level_rate_table(lb->constants, args))
                    : -1;
      level_assemble_element(&v, i - v.row_offset[j], j, lb->constants, args, voltage + e,
                             factor + e, gates ? gates + (size_t)args->channels.n_gates * e : NULL,
                             variant);
    }
  }
  for (int level = lb->n_levels - 1; level >= 0; level--) {
    const struct level_block_view v = level_block_describe(part_ints + lb->ints_offset[at + level]);
    const size_t e = lb->element_offset[at + level];
    const int apart = v.systems < apart_below;
    /* the fused sweeps too: the form named (as the GPU's channel kernel names it) on odd levels */
    const int variant =
        level % 2 ? channel_variant_of(&args->channels, level_rate_table(lb->constants, args)) : -1;
    for (int s = 0; s < v.systems; s++)
      level_backward_system_as(&v, s, lb->constants, args, voltage + e, factor + e,
                               contribution + 2 * lb->system_offset[at + level], contribution,
                               apart || !gates ? NULL : gates + (size_t)args->channels.n_gates * e,
                               apart, LEVEL_PREFETCH, 0, variant);
  }
  levels_forward_host(lb, chunk, part_ints, voltage, factor);
}

/* The stimulus the bit-comparison tests below use: 2 nA +-50 % from 0.05 ms on, into the root
 * (even variants) or compartment 3 (odd ones, inside a branch). */
static struct stimulus variant_stimulus(int variant, int neurons) {
  return (struct stimulus){.compartment = variant % 2 ? 3 : 0,
                           .amplitude_nA = 2.0,
                           .start_ms = 0.05,
                           .stop_ms = 1e9,
                           .spread = 0.5,
                           .n_neurons_total = neurons};
}

/* Rows built apart (the GPU's --level-rows) give the bits of the sweeps that build them inline,
 * voltages and gates, step after step: every level apart or only the small ones, random trees
 * and the mix, NCP and CP, subtrees and cut branches or none, HH and HH with Ih everywhere (rate
 * tables and exact rates), the stimulus at the root and inside a branch while it is on, several
 * chunks. A row built twice or never, or a wrong element's row, changes the bits. */
static void rows_apart_match_fused_sweeps(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  struct hines_error err;
  struct morphology trees[2];
  random_trees(trees, 2, 40, 300, 400, 900);
  for (int set = 0; set < 2; set++) {
    const struct morphology *cells = set == 0 ? trees : mix;
    const int n_cells = set == 0 ? 2 : mix_count, neurons = set == 0 ? 97 : 2 * mix_count + 1;
    for (int variant = 0; variant < 4; variant++) {
      const struct level_batch_options options = {.neurons_per_chunk = neurons / (1 + variant % 2),
                                                  .padded = variant == 1,
                                                  .chunk_links = 1,
                                                  .order = LEVEL_ORDER_HEIGHT,
                                                  .warps = LEVEL_WARPS_OFF,
                                                  .channels_everywhere = 1,
                                                  .subtree_compartments = variant >= 2 ? 0 : 64,
                                                  .split_compartments = variant == 3   ? 0
                                                                        : variant == 2 ? 5
                                                                                       : 64};
      struct level_batch lb;
      assert_int_equal(
          level_batch_build(cells, n_cells, neurons, &options, &cable_defaults, 0.025, &lb, &err),
          HINES_OK);
      struct level_step_arguments args = {.stimulus = variant_stimulus(variant, neurons),
                                          .hh_rates =
                                              variant == 2 ? HH_RATES_EXACT : HH_RATES_TABLE,
                                          .dt_ms = 0.025,
                                          .constant_rows = lb.constant_rows};
      args.channels = channel_set_hh(PLACE_ALL);
      if (variant == 3) { /* a second mechanism everywhere, a third on the soma */
        channel_set_place(&args.channels, mechanism_find("ih", 2), PLACE_ALL);
        channel_set_place(&args.channels, mechanism_find("km", 2), PLACE_SOMA);
      }
      channel_rate_table_fill(&args.channels, args.dt_ms,
                              lb.constants + CONST_RATE_TABLE(lb.constant_rows));
      const int n_gates = args.channels.n_gates;
      for (int chunk = 0; chunk < lb.n_chunks; chunk++) {
        struct chunk_copies c = chunk_copies_make(&lb, chunk, n_gates); /* fused, apart */
        for (int step = 0; step < 6; step++) {
          args.time_ms = step * args.dt_ms;
          levels_step_host(&lb, chunk, c.part_ints, &args, c.state[0][0], c.state[0][1],
                           c.state[0][2], c.state[0][3]);
          /* every level apart, or only those of fewer than 40 systems (a mixed step) */
          levels_step_rows_apart(&lb, chunk, c.part_ints, &args, variant % 2 ? INT_MAX : 40,
                                 c.state[1][0], c.state[1][1], c.state[1][2], c.state[1][3]);
        }
        if (memcmp(c.state[0][0], c.state[1][0], c.elements * sizeof(double)) != 0 ||
            memcmp(c.state[0][3], c.state[1][3], n_gates * c.elements * sizeof(double)) != 0)
          fail_msg("rows apart, set %d variant %d chunk %d: voltages or gates differ from the "
                   "fused sweeps",
                   set, variant, chunk);
        chunk_copies_free(&c);
      }
      level_batch_free(&lb);
    }
  }
  for (int r = 0; r < 2; r++)
    morphology_free(&trees[r]);
}

/* A level batch of `neurons` of cells[0 .. n_cells - 1] with these options (it must build). */
static void build_batch(const struct morphology *cells, int n_cells, int neurons,
                        const struct level_batch_options *options, double dt_ms,
                        struct level_batch *lb) {
  struct hines_error err;
  assert_int_equal(
      level_batch_build(cells, n_cells, neurons, options, &cable_defaults, dt_ms, lb, &err),
      HINES_OK);
}

/* The runs of copies (LEVEL_ROWS_RUN or more systems sharing their first row) that the row
 * sweeps of systems [begin, end) of v read their constants once for, when the rows cover them;
 * else the runs of subtree copies they sweep row by row. */
static int copy_runs(const struct level_block_view *v, int begin, int end) {
  if (end - begin > LEVEL_ROWS_BLOCK_MAX)
    return 0;
  if (!level_rows_cover(v, begin, end)) {
    int tree_runs = 0;
    for (int s = begin, t; s < end; s = t) {
      t = v->padded ? s + 1 : level_rows_tree_run_end(v, s, end);
      tree_runs += t - s >= LEVEL_ROWS_RUN;
    }
    return tree_runs;
  }
  struct level_rows_segments segments;
  level_rows_segments_of(v->first_row + begin, end - begin, &segments);
  int runs = 0;
  for (int g = 0; g < segments.count; g++)
    runs += segments.row[g] >= 0;
  return runs;
}

/* The stretches of chains between subtrees (LEVEL_CHAIN_ROWS_STRETCH or more) that the row
 * sweeps of systems [begin, end) of v take row by row in a block the rows do not cover. */
static int chain_stretches(const struct level_block_view *v, int begin, int end) {
  if (end - begin > LEVEL_ROWS_BLOCK_MAX || v->padded || level_rows_cover(v, begin, end))
    return 0;
  int stretches = 0;
  for (int s = begin, t; s < end; s = t) {
    t = level_rows_tree_run_end(v, s, end);
    if (t - s >= LEVEL_TREE_ROWS_RUN)
      continue;
    const int chains = level_rows_chain_stretch_end(v, s, end);
    if (chains - s >= LEVEL_CHAIN_ROWS_STRETCH) {
      stretches++;
      t = chains;
    }
  }
  return stretches;
}

/* Runs of copies of one subtree unit in systems [begin, end) of v, a block the rows do not
 * cover, that the CPU sweeps take as a run: *longer those the row sweeps of subtree copies take
 * (LEVEL_TREE_ROWS_RUN or more), *shorter those of 2 or more that level_backward_tree_cpu takes
 * side by side; one_copy_subtrees those of one copy (level_backward_tree_one_cpu), and
 * one_copy_subtrees_of_three those among them with an element of three children or more (its
 * loop for the third child on). */
static int one_copy_subtrees, one_copy_subtrees_of_three;
static void subtree_runs(const struct level_block_view *v, int begin, int end, int *longer,
                         int *shorter) {
  if (end - begin > LEVEL_ROWS_BLOCK_MAX || v->padded || level_rows_cover(v, begin, end))
    return;
  for (int s = begin, t; s < end; s = t) {
    t = level_rows_tree_run_end(v, s, end);
    *longer += t - s >= LEVEL_TREE_ROWS_RUN;
    *shorter += t - s >= 2 && t - s < LEVEL_TREE_ROWS_RUN;
    if (t - s == 1 && v->trees && v->tree[s] >= 0) {
      one_copy_subtrees++;
      /* an element of three children or more: its first later child has a sibling after it */
      for (int j = 1; j < v->size[s]; j++) {
        const int later = level_shape(v, s, j, SHAPE_SIBLING_STEP);
        if (level_shape(v, s, j, SHAPE_PARENT_STEP) == 1 && later &&
            level_shape(v, s, j + later, SHAPE_SIBLING_STEP)) {
          one_copy_subtrees_of_three++;
          break;
        }
      }
    }
  }
}
static int longer_subtree_runs, shorter_subtree_runs; /* row_sweeps_match_branch_sweeps' */

/* Block `b` of v's systems in blocks of `block` (> 0), or (ROWS_BLOCKS_OF_CODELETS) in the
 * codelets' blocks, which start where a run of copies starts (level_rows_block_begin): checks
 * that those cover the systems in order, hold at most LEVEL_ROWS_BLOCK_MAX, and cut no run of
 * fewer than LEVEL_ROWS_BLOCK / 2 copies. */
#define ROWS_BLOCKS_OF_CODELETS (-1)
static int rows_block_begin(const struct level_block_view *v, int block, int b) {
  if (block >= 0)
    return b == 0 ? 0 : block > 0 && b * block < v->systems ? b * block : v->systems;
  const int begin = level_rows_block_begin(v, b), end = level_rows_block_begin(v, b + 1);
  if (begin >= v->systems)
    return begin;
  assert_true(begin < end && end <= v->systems && end - begin <= LEVEL_ROWS_BLOCK_MAX);
  if (begin > 0 && v->first_row[begin - 1] == v->first_row[begin]) {
    int run = begin - 1;
    while (run > 0 && v->first_row[run - 1] == v->first_row[begin])
      run--;
    assert_true(begin - run >= LEVEL_ROWS_BLOCK / 2); /* cut only a long run */
  }
  return begin;
}

/* One step of one chunk as the CPU chunk codelet sweeps it: level by level, rows assembled first
 * with channels everywhere; each level's systems branch by branch (block 0) or row by row in
 * blocks of `block` systems or the codelets' blocks (ROWS_BLOCKS_OF_CODELETS; level_rows_cpu.h).
 * Links to the chunk's arrays or to the adjacent level's. Counts in *covered the blocks the row
 * sweeps took (not branch by branch), in *runs the runs of copies among them or of subtree copies
 * elsewhere, the latter in *tree_runs, in *soma_rows the blocks with gates that went row by row
 * (channels on the soma alone, not there), in *stretches the stretches of chains between subtrees
 * that went row by row. `ec`: the chunk's element constants for the row sweeps (level_rows_cpu.h),
 * or NULL: gathered. */
static void cpu_step_sweeps(const struct level_batch *lb, int chunk, const int *part_ints,
                            const struct level_step_arguments *args, int block, double *voltage,
                            double *factor, double *contribution, double *gates, int *covered,
                            int *runs, int *tree_runs, int *soma_rows, int *stretches,
                            const struct level_element_constants *ec) {
  const size_t at = (size_t)chunk * (lb->n_levels + 1);
  const size_t n_gates = (size_t)args->channels.n_gates;
  for (int level = lb->n_levels - 1; level >= 0; level--) {
    const struct level_block_view v = level_block_describe(part_ints + lb->ints_offset[at + level]);
    const size_t e = lb->element_offset[at + level];
    double *level_gates = gates ? gates + n_gates * e : NULL;
    const int assembled = level_gates && args->channels.placement == PLACE_ALL;
    if (assembled)
      level_assemble_rows(&v, 0, v.max_size, lb->constants, args, voltage + e, factor + e,
                          level_gates);
    double *own = contribution + 2 * lb->system_offset[at + level];
    const double *children =
        contribution + (lb->chunk_links ? 0 : 2 * lb->system_offset[at + level + 1]);
    for (int b = 0, begin = 0; begin < v.systems; begin = rows_block_begin(&v, block, ++b)) {
      const int end = block ? rows_block_begin(&v, block, b + 1) : v.systems;
      if (!block) {
        for (int s = begin; s < end; s++)
          level_backward_system_in_groups(&v, s, lb->constants, args, voltage + e, factor + e, own,
                                          children, level_gates, assembled, LEVEL_PREFETCH,
                                          args->stored_pivots);
        continue;
      }
      /* rows unless channels reach the block inside the sweep (on the soma alone: the blocks
         without it go row by row) */
      const int rows =
          !(level_gates && !assembled && level_rows_channels_in(&v, begin, end, &args->channels));
      *covered += rows && level_rows_cover(&v, begin, end);
      *soma_rows += rows && level_gates && !assembled && level_rows_cover(&v, begin, end);
      *runs += rows ? copy_runs(&v, begin, end) : 0;
      *tree_runs += rows && !level_rows_cover(&v, begin, end) ? copy_runs(&v, begin, end) : 0;
      *stretches += rows ? chain_stretches(&v, begin, end) : 0;
      if (rows)
        subtree_runs(&v, begin, end, &longer_subtree_runs, &shorter_subtree_runs);
      const struct level_element_constants level_ec =
          ec ? level_element_constants_from(ec, e) : (struct level_element_constants){0};
      level_backward_rows(&v, begin, end, lb->constants, args, voltage + e, factor + e, own,
                          children, level_gates, assembled, args->stored_pivots,
                          ec ? &level_ec : NULL);
    }
  }
  const double *row_factor = level_row_factors(lb->constants, args, gates, 0);
  for (int level = 0; level < lb->n_levels; level++) {
    const struct level_block_view v = level_block_describe(part_ints + lb->ints_offset[at + level]);
    const size_t e = lb->element_offset[at + level];
    const double *parents =
        voltage + (lb->chunk_links || level == 0 ? 0 : lb->element_offset[at + level - 1]);
    for (int b = 0, begin = 0; begin < v.systems; begin = rows_block_begin(&v, block, ++b)) {
      const int end = block ? rows_block_begin(&v, block, b + 1) : v.systems;
      const struct level_element_constants level_ec =
          ec ? level_element_constants_from(ec, e) : (struct level_element_constants){0};
      if (block)
        level_forward_rows(&v, begin, end, voltage + e, factor + e, row_factor, parents,
                           ec ? &level_ec : NULL);
      else
        for (int s = begin; s < end; s++)
          level_forward_system_rows(&v, s, voltage + e, factor + e, row_factor, parents);
    }
  }
}

/* Chunk `chunk`'s element constants as the CPU chunk codelet builds them, for the pivots and row
 * factors the sweeps read (with or without gates); the arrays to free. */
static double *chunk_element_constants(const struct level_batch *lb, int chunk,
                                       const int *part_ints, size_t elements,
                                       const struct level_step_arguments *args, const double *gates,
                                       struct level_element_constants *ec) {
  const double *inverse_pivots =
      args->stored_pivots ? level_stored_pivots(lb->constants, args, gates, 0) : NULL;
  const double *row_factor = level_row_factors(lb->constants, args, gates, 0);
  double *memory = malloc(5 * elements * sizeof(double));
  assert_non_null(memory);
  *ec = (struct level_element_constants){.off_diagonal = memory,
                                         .diagonal = memory + elements,
                                         .c_over_dt = memory + 2 * elements,
                                         .leak_current = memory + 3 * elements,
                                         .row_factor = row_factor ? memory + 4 * elements : NULL,
                                         .pivots = inverse_pivots != NULL};
  const size_t at = (size_t)chunk * (lb->n_levels + 1);
  for (int level = 0; level < lb->n_levels; level++) {
    const struct level_block_view v = level_block_describe(part_ints + lb->ints_offset[at + level]);
    if (!v.padded)
      level_element_constants_fill(&v, lb->constants, inverse_pivots, row_factor, ec,
                                   lb->element_offset[at + level]);
  }
  return memory;
}

/* A compartment of the middle of a subtree system of chunk `chunk` (0: none), so that a step's
 * stimulus reaches a subtree's sweep inside it. */
static int subtree_compartment(const struct level_batch *lb, int chunk, const int *part_ints) {
  const size_t at = (size_t)chunk * (lb->n_levels + 1);
  for (int level = 0; level < lb->n_levels; level++) {
    const struct level_block_view v = level_block_describe(part_ints + lb->ints_offset[at + level]);
    for (int s = 0; v.trees && s < v.systems; s++)
      if (v.tree[s] >= 0 && v.size[s] > 2 && v.first_compartment[s] > 0)
        return v.first_compartment[s] + v.size[s] / 2;
  }
  return 0;
}

/* The CPU codelets' row sweeps (level_rows_cpu.h) give the bits of the branch-by-branch sweeps,
 * voltages, factors, contributions and gates, step after step: random trees, a tree of three-way
 * branch points and the mix, NCP (rows) and CP (branch by branch), subtrees and cut branches or
 * none, height order with chunk links and depth order with level links, passive with pivots
 * computed, read and row factors, HH everywhere (rows assembled first) and on the somas only
 * (channels in the sweep: branch by branch), the stimulus at the root and inside a branch, blocks
 * of LEVEL_ROWS_BLOCK, of 7 systems (a block's edge inside a row) and the codelets' (starting at
 * runs of copies), fewer neurons than cells, runs of copies walked along their own rows
 * (LEVEL_RUNS_ALONG: their constants read once; runs of 8 to 16 copies, so masked lane groups of 8,
 * 7 and 1) among systems gathered one by one (passive with each pivot form, with the row factors,
 * HH), and with the chunk's element constants read in rows instead of gathered (every other step);
 * and the stimulus inside a subtree, whose sweep the CPU codelets specialise
 * (level_backward_tree_cpu). */
static void row_sweeps_match_branch_sweeps(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  struct morphology trees[4]; /* a three-way tree (first: variant 7 takes each cell but the
                                last once) and three random trees */
  three_way_tree(3, &trees[0]);
  random_trees(trees + 1, 3, 30, 500, 300, 1200);
  int covered = 0, runs = 0, tree_runs = 0, soma_rows = 0, stretches = 0, stimulated_trees = 0;
  for (int set = 0; set < 2; set++) {
    const int n_cells = set == 0 ? 4 : mix_count;
    const struct morphology *cells = set == 0 ? trees : mix;
    /* variants 9-11: the stimulus inside a subtree, passive with stored pivots (9), HH on the
       somas with the subtrees' pivots computed (10), HH everywhere (11) */
    /* variant 12: runs of LEVEL_TREE_ROWS_RUN copies and more (level_backward_tree_rows) */
    for (int variant = 0; variant < 13; variant++) {
      const int neurons = variant == 7 ? n_cells - 1
                          : variant == 12
                              ? (LEVEL_TREE_ROWS_RUN + 2) * n_cells
                              : 2 * n_cells + 1 + 40 * (variant % 3 == 0 || variant > 3);
      const int depth = variant == 3,
                channels = (variant >= 4 && variant <= 6) || variant == 10 || variant == 11;
      const struct level_batch_options options = {
          .neurons_per_chunk = variant == 2 ? 5 : neurons,
          .padded = variant == 1 || variant == 6,
          .chunk_links = !depth,
          .order = depth ? LEVEL_ORDER_DEPTH : LEVEL_ORDER_HEIGHT,
          .warps = LEVEL_WARPS_OFF,
          .channels_everywhere = variant == 4 || variant == 6 || variant == 11,
          .subtree_compartments = variant == 2 || depth || variant == 5 ? 0 : 64,
          .split_compartments = variant == 2 ? 5
                                : depth      ? 0
                                             : 64};
      const double dt_ms = 0.025;
      struct level_batch lb;
      build_batch(cells, n_cells, neurons, &options, dt_ms, &lb);
      struct level_step_arguments args = {.stimulus = variant_stimulus(variant, neurons),
                                          .hh_rates = HH_RATES_TABLE,
                                          .dt_ms = dt_ms,
                                          .constant_rows = lb.constant_rows,
                                          .stored_pivots = variant == 0 || variant >= 7,
                                          .row_factors = variant == 1 || variant >= 7};
      channel_set_init(&args.channels);
      if (channels) {
        args.channels = channel_set_hh(variant == 5 || variant == 10 ? PLACE_SOMA : PLACE_ALL);
        channel_rate_table_fill(&args.channels, dt_ms,
                                lb.constants + CONST_RATE_TABLE(lb.constant_rows));
      }
      const int n_gates = args.channels.n_gates;
      for (int chunk = 0; chunk < lb.n_chunks; chunk++) {
        struct chunk_copies c = chunk_copies_make(&lb, chunk, n_gates);
        struct level_element_constants ec;
        double *ec_memory = chunk_element_constants(&lb, chunk, c.part_ints, c.elements, &args,
                                                    n_gates ? c.state[1][3] : NULL, &ec);
        if (variant >= 9) {
          args.stimulus.compartment = subtree_compartment(&lb, chunk, c.part_ints);
          stimulated_trees += args.stimulus.compartment > 0;
        }
        for (int step = 0; step < 5; step++) {
          /* (a step's bits do not depend on the blocks the previous one took) */
          const int block = variant % 2 && step % 2 == 0 ? 7
                            : step % 3 == 1              ? LEVEL_ROWS_BLOCK
                                                         : ROWS_BLOCKS_OF_CODELETS;
          args.time_ms = step * dt_ms;
          cpu_step_sweeps(&lb, chunk, c.part_ints, &args, 0, c.state[0][0], c.state[0][1],
                          c.state[0][2], c.state[0][3], &covered, &runs, &tree_runs, &soma_rows,
                          &stretches, NULL);
          cpu_step_sweeps(&lb, chunk, c.part_ints, &args, block, c.state[1][0], c.state[1][1],
                          c.state[1][2], c.state[1][3], &covered, &runs, &tree_runs, &soma_rows,
                          &stretches, step % 2 ? &ec : NULL);
        }
        free(ec_memory);
        if (memcmp(c.state[0][0], c.state[1][0], c.elements * sizeof(double)) != 0 ||
            memcmp(c.state[0][1], c.state[1][1], c.elements * sizeof(double)) != 0 ||
            memcmp(c.state[0][2], c.state[1][2], 2 * c.systems * sizeof(double)) != 0 ||
            (n_gates &&
             memcmp(c.state[0][3], c.state[1][3], n_gates * c.elements * sizeof(double)) != 0))
          fail_msg("row sweeps, set %d variant %d chunk %d: voltages, factors, contributions or "
                   "gates differ from the branch-by-branch sweeps",
                   set, variant, chunk);
        chunk_copies_free(&c);
      }
      level_batch_free(&lb);
    }
  }
  print_message("# row sweeps took %d blocks (%d with HH on the somas elsewhere), %d runs of "
                "copies (%d of subtrees), %d stretches of chains between subtrees\n",
                covered, soma_rows, runs, tree_runs, stretches);
  assert_true(soma_rows > 20);        /* HH on the somas: the other blocks row by row */
  assert_true(covered > 100);         /* not all branch by branch */
  assert_true(runs > 100);            /* some constants read once a run */
  assert_true(tree_runs > 20);        /* some subtree copies row by row */
  assert_true(stretches > 20);        /* some chains between subtrees row by row */
  assert_true(stimulated_trees >= 6); /* the stimulus inside a subtree: variants 9-11, both sets */
  print_message("# subtree runs: %d of %d copies or more, %d of 2 to %d\n", longer_subtree_runs,
                LEVEL_TREE_ROWS_RUN, shorter_subtree_runs, LEVEL_TREE_ROWS_RUN - 1);
  assert_true(longer_subtree_runs > 10);  /* the row sweeps of subtree copies */
  assert_true(shorter_subtree_runs > 10); /* level_backward_tree_cpu's runs side by side */
  print_message("# one-copy subtrees: %d, %d of them with an element of three children\n",
                one_copy_subtrees, one_copy_subtrees_of_three);
  assert_true(one_copy_subtrees > 10);         /* level_backward_tree_one_cpu */
  assert_true(one_copy_subtrees_of_three > 0); /* and its loop for a third child on */
  for (int r = 0; r < 4; r++)
    morphology_free(&trees[r]);
}

/* The branch kernel's phases A and C row by row (branch_rows_cpu.h), reading the constants table
 * or the element constants, give the bits of the system-by-system ones: voltages and the
 * systems' pairs (XL and KR after A), every level of
 * random trees and the mix, subtrees and cut branches or none, the stimulus at the root and
 * inside a branch, blocks of LEVEL_ROWS_BLOCK, of 7 systems and the codelets' (starting at runs),
 * random voltages and junction values. */
static void branch_rows_match_branch_systems(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  struct morphology trees[3];
  random_trees(trees, 3, 30, 500, 300, 1200);
  int covered = 0, runs = 0;
  for (int set = 0; set < 2; set++) {
    const int n_cells = set == 0 ? 3 : mix_count, neurons = 2 * (set == 0 ? 3 : mix_count) + 41;
    const struct morphology *cells = set == 0 ? trees : mix;
    for (int variant = 0; variant < 4; variant++) {
      const struct level_batch_options options = {.neurons_per_chunk = neurons,
                                                  .chunk_links = 1,
                                                  .order = LEVEL_ORDER_HEIGHT,
                                                  .warps = LEVEL_WARPS_OFF,
                                                  .subtree_compartments = variant == 2 ? 0 : 64,
                                                  .split_compartments = variant == 2   ? 5
                                                                        : variant == 3 ? 0
                                                                                       : 64};
      struct level_batch lb;
      build_batch(cells, n_cells, neurons, &options, 0.025, &lb);
      struct level_step_arguments args = {.stimulus = variant_stimulus(variant, neurons),
                                          .dt_ms = 0.025,
                                          .time_ms = 1.0,
                                          .constant_rows = lb.constant_rows};
      channel_set_init(&args.channels);
      for (int level = 0; level < lb.n_levels; level++) {
        const struct level_block_view v = level_block_describe(lb.blocks[level]);
        /* copy 0 system by system, 1 row by row, 2 row by row from the element constants */
        double *voltage[3], *pairs[3];
        const size_t elements = (size_t)(v.elements > 0 ? v.elements : 1);
        for (int copy = 0; copy < 3; copy++) {
          voltage[copy] = malloc(elements * sizeof(double));
          pairs[copy] = malloc((size_t)(2 * v.systems + 1) * sizeof(double));
        }
        double *ec_memory = malloc(6 * elements * sizeof(double));
        assert_non_null(ec_memory);
        const struct branch_element_constants ec = {ec_memory,
                                                    ec_memory + elements,
                                                    ec_memory + 2 * elements,
                                                    ec_memory + 3 * elements,
                                                    ec_memory + 4 * elements,
                                                    ec_memory + 5 * elements};
        branch_element_constants_fill(&v, lb.constants, lb.constant_rows, &ec, 0);
        for (int e = 0; e < v.elements; e++)
          voltage[0][e] = voltage[1][e] = voltage[2][e] = -70 + 10 * testing_uniform(&seed_state);
        const int block = variant % 2 ? 7 : variant ? LEVEL_ROWS_BLOCK : ROWS_BLOCKS_OF_CODELETS;
        for (int s = 0; s < v.systems; s++) /* phase A, system by system */
          branch_grounded_system(&v, s, lb.constants, &args, voltage[0], &pairs[0][2 * s + 1],
                                 &pairs[0][2 * s]);
        for (int b = 0, begin = 0; begin < v.systems; begin = rows_block_begin(&v, block, ++b)) {
          const int end = rows_block_begin(&v, block, b + 1);
          covered += level_rows_cover(&v, begin, end);
          runs += copy_runs(&v, begin, end);
          branch_grounded_rows(&v, begin, end, lb.constants, &args, voltage[1], pairs[1], NULL);
          branch_grounded_rows(&v, begin, end, lb.constants, &args, voltage[2], pairs[2], &ec);
        }
        for (int copy = 1; copy < 3; copy++)
          if (memcmp(voltage[0], voltage[copy], (size_t)v.elements * sizeof(double)) != 0 ||
              memcmp(pairs[0], pairs[copy], (size_t)2 * v.systems * sizeof(double)) != 0)
            fail_msg("branch phase A, set %d variant %d level %d: rows%s differ from systems", set,
                     variant, level, copy == 2 ? " (element constants)" : "");
        for (int s = 0; s < v.systems; s++) /* u and C, as phase B would leave them */
          for (int i = 0; i < 2; i++)
            pairs[0][2 * s + i] = pairs[1][2 * s + i] = pairs[2][2 * s + i] =
                testing_uniform(&seed_state) - 0.5;
        for (int s = 0; s < v.systems; s++)
          branch_response_system(&v, s, lb.constants, &args, voltage[0], pairs[0][2 * s],
                                 pairs[0][2 * s + 1]);
        for (int b = 0, begin = 0; begin < v.systems; begin = rows_block_begin(&v, block, ++b)) {
          const int end = rows_block_begin(&v, block, b + 1);
          branch_response_rows(&v, begin, end, lb.constants, &args, voltage[1], pairs[1], NULL);
          branch_response_rows(&v, begin, end, lb.constants, &args, voltage[2], pairs[2], &ec);
        }
        for (int copy = 1; copy < 3; copy++)
          if (memcmp(voltage[0], voltage[copy], (size_t)v.elements * sizeof(double)) != 0)
            fail_msg("branch phase C, set %d variant %d level %d: rows%s differ from systems", set,
                     variant, level, copy == 2 ? " (element constants)" : "");
        for (int copy = 0; copy < 3; copy++)
          free(voltage[copy]), free(pairs[copy]);
        free(ec_memory);
      }
      level_batch_free(&lb);
    }
  }
  print_message("# branch row sweeps took %d blocks, %d runs of copies\n", covered, runs);
  assert_true(covered > 20); /* not all system by system */
  assert_true(runs > 20);    /* some constants read once a run */
  for (int r = 0; r < 3; r++)
    morphology_free(&trees[r]);
}

/* One passive step of one chunk as the CPU codelets sweep it, with the pivots computed or read
 * (stored_pivots, level_layout.h's CONST_INVERSE_PIVOT); links to the chunk's arrays (height
 * order) or to the adjacent level's (depth order, per-level tasks). */
static void passive_step_host(const struct level_batch *lb, int chunk, const int *part_ints,
                              const struct level_step_arguments *args, int stored, double *voltage,
                              double *factor, double *contribution) {
  const size_t at = (size_t)chunk * (lb->n_levels + 1);
  for (int level = lb->n_levels - 1; level >= 0; level--) {
    const struct level_block_view v = level_block_describe(part_ints + lb->ints_offset[at + level]);
    const size_t e = lb->element_offset[at + level];
    const double *children =
        contribution + (lb->chunk_links ? 0 : 2 * lb->system_offset[at + level + 1]);
    for (int s = 0; s < v.systems; s++)
      level_backward_system_in_groups(&v, s, lb->constants, args, voltage + e, factor + e,
                                      contribution + 2 * lb->system_offset[at + level], children,
                                      NULL, 0, LEVEL_PREFETCH, stored);
  }
  levels_forward_host(lb, chunk, part_ints, voltage, factor);
}

/* Pivots read from the constants (--level-pivots stored) give the bits of pivots computed every
 * step, voltages and factors, step after step: random trees and the mix, NCP and CP, subtrees
 * and cut branches or none, height order with chunk links and depth order with level links,
 * chunks that hold only some of the cells (the table is filled from the first neuron of each),
 * fewer neurons than cells, the stimulus at the root and inside a branch. And the sweep does read
 * them: one inverse pivot changed by 1e-9 of itself changes the voltages. */
static void stored_pivots_match_computed_pivots(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  struct morphology trees[3]; /* of 30 to 1,030 compartments */
  random_trees(trees, 3, 30, 500, 300, 1200);
  struct hines_error err;
  for (int set = 0; set < 2; set++) {
    const int n_cells = set == 0 ? 3 : mix_count;
    const struct morphology *cells = set == 0 ? trees : mix;
    for (int variant = 0; variant < 5; variant++) {
      const int neurons = variant == 4 ? n_cells - 1 : 2 * n_cells + 1;
      const int depth = variant == 3;
      const struct level_batch_options options = {
          .neurons_per_chunk = variant == 2 ? 2 : neurons,
          .padded = variant == 1,
          .chunk_links = !depth,
          .order = depth ? LEVEL_ORDER_DEPTH : LEVEL_ORDER_HEIGHT,
          .warps = LEVEL_WARPS_OFF,
          .subtree_compartments = variant == 2 || depth ? 0 : 64,
          .split_compartments = variant == 2 ? 5
                                : depth      ? 0
                                             : 64};
      const double dt_ms = 0.025;
      struct level_batch lb;
      assert_int_equal(
          level_batch_build(cells, n_cells, neurons, &options, &cable_defaults, dt_ms, &lb, &err),
          HINES_OK);
      struct level_step_arguments args = {.stimulus = variant_stimulus(variant, neurons),
                                          .dt_ms = dt_ms,
                                          .constant_rows = lb.constant_rows,
                                          .stored_pivots = 1};
      channel_set_init(&args.channels);
      for (int chunk = 0; chunk < lb.n_chunks; chunk++) {
        struct chunk_copies c = chunk_copies_make(&lb, chunk, 0); /* computed, stored */
        for (int step = 0; step < 5; step++) {
          args.time_ms = step * args.dt_ms;
          passive_step_host(&lb, chunk, c.part_ints, &args, 0, c.state[0][0], c.state[0][1],
                            c.state[0][2]);
          passive_step_host(&lb, chunk, c.part_ints, &args, 1, c.state[1][0], c.state[1][1],
                            c.state[1][2]);
        }
        if (memcmp(c.state[0][0], c.state[1][0], c.elements * sizeof(double)) != 0 ||
            memcmp(c.state[0][1], c.state[1][1], c.elements * sizeof(double)) != 0)
          fail_msg("stored pivots, set %d variant %d chunk %d: voltages or factors differ from "
                   "computed pivots",
                   set, variant, chunk);
        chunk_copies_free(&c);
      }
      /* The first neuron's soma row, nudged by 1e-9 of itself (a nudge of one unit in the last
       * place may vanish in the rounding of the product that reads it). */
      double *inverse = lb.constants + CONST_INVERSE_PIVOT(lb.constant_rows);
      const int soma_row = lb.morphology_row[0];
      struct chunk_copies c = chunk_copies_make(&lb, 0, 0);
      passive_step_host(&lb, 0, c.part_ints, &args, 1, c.state[0][0], c.state[0][1], c.state[0][2]);
      inverse[soma_row] *= 1 + 1e-9;
      passive_step_host(&lb, 0, c.part_ints, &args, 1, c.state[1][0], c.state[1][1], c.state[1][2]);
      assert_true(memcmp(c.state[0][0], c.state[1][0], c.elements * sizeof(double)) != 0);
      chunk_copies_free(&c);
      level_batch_free(&lb);
    }
  }
  for (int r = 0; r < 3; r++)
    morphology_free(&trees[r]);
}

/* The flow schedule, run as the GPU's tiles would take it (level_flow_step_host): every system
 * swept once per sweep, never before what it waits for, and the bits of the level-by-level
 * sweeps; over random trees and the mix, CP and NCP, warp sweeps off, chosen and everywhere
 * (8, 16 and 32 lanes: the tiles' shapes), passive and HH with table rates, several chunks. */
static void flow_schedule_keeps_order_and_bits(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  struct hines_error err;
  struct morphology trees[3];
  random_trees(trees, 3, 30, 200, 300, 700);
  const enum level_warps warp_modes[] = {LEVEL_WARPS_OFF, LEVEL_WARPS_AUTO, LEVEL_WARPS_ALL};
  for (int set = 0; set < 2; set++) {
    const struct morphology *cells = set == 0 ? trees : mix;
    const int n_cells = set == 0 ? 3 : mix_count, neurons = set == 0 ? 301 : 2 * mix_count + 1;
    for (int variant = 0; variant < 6; variant++) {
      const int channels = variant % 2, padded = variant == 3;
      const struct level_batch_options options = {.neurons_per_chunk = neurons / (1 + variant % 3),
                                                  .padded = padded,
                                                  .chunk_links = 1,
                                                  .order = variant == 5 ? LEVEL_ORDER_DEPTH
                                                                        : LEVEL_ORDER_HEIGHT,
                                                  .warps = warp_modes[variant % 3],
                                                  .warp_lanes = 8 << (variant % 3),
                                                  .channels_everywhere = channels};
      struct level_batch lb;
      assert_int_equal(
          level_batch_build(cells, n_cells, neurons, &options, &cable_defaults, 0.025, &lb, &err),
          HINES_OK);
      struct level_step_arguments args = {.stimulus = {.compartment = 0,
                                                       .amplitude_nA = 2.0,
                                                       .start_ms = 0.0,
                                                       .stop_ms = 1e9,
                                                       .spread = 0.5,
                                                       .n_neurons_total = neurons},
                                          .channels =
                                              channel_set_hh(channels ? PLACE_ALL : PLACE_NONE),
                                          .hh_rates = HH_RATES_TABLE,
                                          .dt_ms = 0.025,
                                          .constant_rows = lb.constant_rows};
      channel_rate_table_fill(&args.channels, args.dt_ms,
                              lb.constants + CONST_RATE_TABLE(lb.constant_rows));
      int warped = 0;
      for (int chunk = 0; chunk < lb.n_chunks; chunk++) {
        const size_t at = (size_t)chunk * (lb.n_levels + 1);
        const int n_gates = args.channels.n_gates;
        /* level by level, flow: voltage, factor, contribution, gates */
        struct chunk_copies c = chunk_copies_make(&lb, chunk, channels ? n_gates : 0);
        const size_t systems = c.systems;
        for (int level = 0; level < lb.n_levels; level++)
          warped += level_block_describe(lb.blocks[chunk * lb.n_levels + level]).warp_systems;
        size_t length;
        int *schedule = level_flow_schedule((const int *const *)lb.blocks + chunk * lb.n_levels,
                                            lb.n_levels, lb.ints_offset + at,
                                            lb.element_offset + at, lb.system_offset + at, &length);
        assert_non_null(schedule);
        const struct flow_schedule_view f = flow_schedule_describe(schedule);
        assert_int_equal((size_t)(f.tile - schedule) + FLOW_TILE_INTS * (size_t)f.tiles, length);
        for (int t = 0; t < f.tiles; t++) { /* each record: its level's header and offsets */
          const int *record = f.tile + FLOW_TILE_INTS * (size_t)t;
          const int level = record[FLOW_TILE_LEVEL];
          assert_memory_equal(record + FLOW_TILE_BLOCK_HEADER,
                              lb.blocks[chunk * lb.n_levels + level],
                              LEVEL_HEADER_SIZE * sizeof(int));
          assert_int_equal(record[FLOW_TILE_INTS_OFFSET], (int)lb.ints_offset[at + level]);
          assert_int_equal(record[FLOW_TILE_ELEMENT_OFFSET], (int)lb.element_offset[at + level]);
          assert_int_equal(record[FLOW_TILE_SYSTEM_OFFSET], (int)lb.system_offset[at + level]);
        }
        assert_int_equal(f.systems, (int)systems);
        assert_int_equal(f.tiles, 2 * f.backward_tiles);
        for (int step = 0; step < 5; step++) {
          args.time_ms = step * args.dt_ms;
          levels_step_host(&lb, chunk, c.part_ints, &args, c.state[0][0], c.state[0][1],
                           c.state[0][2], c.state[0][3]);
          assert_int_equal(level_flow_step_host(c.part_ints, schedule, lb.constants, &args,
                                                c.state[1][0], c.state[1][1], c.state[1][2],
                                                c.state[1][3]),
                           0);
        }
        if (memcmp(c.state[0][0], c.state[1][0], c.elements * sizeof(double)) != 0)
          fail_msg("flow schedule, set %d variant %d chunk %d: voltages differ from the level "
                   "sweeps",
                   set, variant, chunk);
        chunk_copies_free(&c);
        free(schedule);
      }
      if (options.warps == LEVEL_WARPS_ALL)
        assert_true(warped > 0);
      level_batch_free(&lb);
    }
  }
  for (int r = 0; r < 3; r++)
    morphology_free(&trees[r]);
}

/* A cell-block schedule lists each system of its chunk once, in one block, at its own level, and
 * its blocks never mix morphologies. */
static void cell_schedule_covers_each_system_once(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  const int neurons = 3 * mix_count + 2;
  const struct level_batch_options options = {
      .neurons_per_chunk = neurons / 2, .chunk_links = 1, .order = LEVEL_ORDER_HEIGHT};
  struct level_batch lb;
  struct hines_error err;
  assert_int_equal(
      level_batch_build(mix, mix_count, neurons, &options, &cable_defaults, 0.025, &lb, &err),
      HINES_OK);
  for (int chunk = 0; chunk < lb.n_chunks; chunk++) {
    for (int per_block = 1; per_block <= 5; per_block += 2) {
      size_t length;
      int *ints = cell_schedule_build(&lb, chunk, per_block, &length);
      assert_non_null(ints);
      const struct cell_schedule_view c = cell_schedule_describe(ints);
      assert_int_equal(c.levels, lb.n_levels);
      assert_true(c.threads >= 32 && c.threads <= CELL_MAX_THREADS && c.threads % 32 == 0);
      assert_int_equal((size_t)(c.system - ints) + (size_t)c.first[c.blocks * c.levels], length);
      const size_t at = (size_t)chunk * (lb.n_levels + 1);
      for (int level = 0; level < lb.n_levels; level++) {
        const struct level_block_view v =
            level_block_describe(lb.blocks[chunk * lb.n_levels + level]);
        int *seen = calloc((size_t)v.systems + 1, sizeof(int));
        assert_int_equal(c.ints_offset[level], (int)lb.ints_offset[at + level]);
        assert_int_equal(c.element_offset[level], (int)lb.element_offset[at + level]);
        assert_int_equal(c.system_offset[level], (int)lb.system_offset[at + level]);
        for (int b = 0; b < c.blocks; b++) {
          const int from = c.first[b * c.levels + level], to = c.first[b * c.levels + level + 1];
          for (int i = from; i < to; i++) {
            const int s = c.system[i];
            assert_true(s >= 0 && s < v.systems);
            assert_true(i == from || c.system[i - 1] < s); /* ascending */
            seen[s]++;
            /* one morphology a block: the block's first system's */
            assert_int_equal(v.neuron[s] % mix_count, v.neuron[c.system[from]] % mix_count);
          }
        }
        for (int s = 0; s < v.systems; s++)
          assert_int_equal(seen[s], 1);
        free(seen);
      }
      free(ints);
    }
  }
  level_batch_free(&lb);
}

static int children_of(const struct morphology *m, int node) {
  int count = 0;
  for (int i = node + 1; i < m->n_compartments; i++)
    count += m->parent[i] == node;
  return count;
}

/* Every compartment of every neuron lies in exactly one system of the batch, where
 * level_batch_locate says, and that system's element maps back to it
 * (level_batch_user_compartment: the identity unless the batch is rooted at the centers). */
static void each_compartment_once(const struct level_batch *lb, int neurons) {
  for (int k = 0; k < neurons; k++) {
    const struct morphology *given = &mix[k % mix_count];
    int *seen = calloc((size_t)given->n_compartments, sizeof(int));
    for (int i = 0; i < given->n_compartments; i++) {
      int block, element;
      level_batch_locate(lb, k, i, &block, &element);
      const struct level_block_view v = level_block_describe(lb->blocks[block]);
      const int j = level_row_of_element(&v, element), s = element - v.row_offset[j];
      assert_int_equal(v.neuron[s], k);
      assert_true(j < v.size[s]);
      const int back = level_batch_user_compartment(lb, k, v.first_compartment[s] + j);
      if (back != i)
        fail_msg("neuron %d: compartment %d is stored as element %d of system %d, which maps "
                 "back to compartment %d",
                 k, i, j, s, back);
      seen[i]++;
    }
    for (int i = 0; i < given->n_compartments; i++)
      assert_int_equal(seen[i], 1);
    free(seen);
  }
}

/* Builds `neurons` of the mix as the chunk tasks lay them out (links between levels, levels by
 * height, subtrees of 8 and pieces of 64 compartments), with the test's own cut, tail or roots in
 * `options`; the build must succeed. */
static void build_chunk_batch(int neurons, struct level_batch_options options,
                              struct level_batch *lb) {
  options.chunk_links = 1;
  options.order = LEVEL_ORDER_HEIGHT;
  options.subtree_compartments = 8;
  options.split_compartments = 64;
  struct hines_error err;
  assert_int_equal(
      level_batch_build(mix, mix_count, neurons, &options, &cable_defaults, 0.025, lb, &err),
      HINES_OK);
}

/* level_arranged_cut's equal chunks for a tail of `tail` of `neurons` over n_cells cells (at most
 * 64 chunks, 16 cells or MAX_MIX): each a neuron at least, together the tail; none holds fewer than
 * LEVEL_ARRANGED_RUN copies of a cell that has as many in the tail beside another cell's; each
 * within a neuron of its fair part of the compartments and fewer than that many copies at each
 * end (each end's cut moves by fewer). */
static void check_arranged_cut(const struct morphology *cells, int n_cells, int neurons, int tail,
                               int chunks) {
  int sizes[64], copies[MAX_MIX] = {0}, largest = 0;
  level_arranged_cut_copies(cells, n_cells, neurons, tail, chunks, 0, sizes);
  long long total = 0;
  for (int p = neurons - tail; p < neurons; p++) {
    const int m = level_arranged_neuron(neurons, n_cells, tail, p) % n_cells;
    copies[m]++, total += cells[m].n_compartments;
  }
  for (int m = 0; m < n_cells; m++)
    largest = cells[m].n_compartments > largest ? cells[m].n_compartments : largest;
  for (int c = 0, p = neurons - tail; c < chunks; c++) {
    assert_true(sizes[c] >= 1);
    int held[MAX_MIX] = {0}, kinds = 0;
    long long compartments = 0;
    for (int i = 0; i < sizes[c]; i++, p++) {
      const int m = level_arranged_neuron(neurons, n_cells, tail, p) % n_cells;
      kinds += held[m]++ == 0;
      compartments += cells[m].n_compartments;
    }
    for (int m = 0; m < n_cells && kinds > 1; m++)
      if (held[m] > 0 && held[m] < LEVEL_ARRANGED_RUN && copies[m] >= LEVEL_ARRANGED_RUN)
        fail_msg("%d cells, tail %d in %d chunks: chunk %d holds %d of cell %d's %d copies beside "
                 "other cells",
                 n_cells, tail, chunks, c, held[m], m, copies[m]);
    if (llabs(compartments - total / chunks) > 2LL * LEVEL_ARRANGED_RUN * largest)
      fail_msg("%d cells, tail %d in %d chunks: chunk %d holds %lld compartments, its part %lld",
               n_cells, tail, chunks, c, compartments, total / chunks);
    if (c == chunks - 1)
      assert_int_equal(p, neurons); /* the cut covers the tail */
  }
}

/* The test mix's tails for the cut's tests: copies of each cell (one neuron more), chunks. */
static const int mix_tails[][2] = {{6, 3}, {9, 4}, {14, 5}, {40, 3}, {40, 8}, {140, 30}, {57, 11}};

/* A fresh random tail for the cut's tests: 1-16 cells of 50-20,050 compartments (the cut reads
 * only their sizes), a tail of 1-600 neurons of a batch up to 50 neurons more than the tail and
 * one copy of each cell, 1-64 chunks. */
static void random_tail(struct morphology cells[16], int *n_cells, int *neurons, int *tail,
                        int *chunks) {
  memset(cells, 0, 16 * sizeof *cells);
  *n_cells = 1 + (int)(testing_uniform(&seed_state) * 16);
  for (int m = 0; m < *n_cells; m++)
    cells[m].n_compartments = 50 + (int)(testing_uniform(&seed_state) * 20000);
  *tail = 1 + (int)(testing_uniform(&seed_state) * 600);
  *neurons = *tail + *n_cells + (int)(testing_uniform(&seed_state) * 50);
  *chunks = 1 + (int)(testing_uniform(&seed_state) * 64);
}

/* check_arranged_cut on tails of 6-140 copies of each cell of the mix (the random trees' sizes
 * fresh each run) in 3-30 chunks, then on 5,000 fresh random tails: 1-16 cells of 50-20,050
 * compartments (the cut reads only their sizes), tails of 1-600, 1-64 chunks. */
static void arranged_cut_keeps_copies_together(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  for (size_t t = 0; t < sizeof mix_tails / sizeof *mix_tails; t++) {
    const int tail = mix_tails[t][0] * mix_count + 1;
    check_arranged_cut(mix, mix_count, tail + mix_count, tail, mix_tails[t][1]);
  }
  for (int trial = 0; trial < 5000; trial++) {
    struct morphology cells[16];
    int n_cells, neurons, tail, chunks;
    random_tail(cells, &n_cells, &neurons, &tail, &chunks);
    if (tail >= chunks)
      check_arranged_cut(cells, n_cells, neurons, tail, chunks);
  }
}

/* level_arranged_cut_copies's cut by cells with `min_copies` for such a tail: where the tail's
 * cells can take the chunks (no more cells than chunks, and enough chunks allowed: at most
 * copies / min_copies a cell, or as many as keep its chunks within LEVEL_ARRANGED_CELL_GROWTH of
 * the equal cut's compartments, one at least, no more than its copies) every chunk holds copies of
 * one cell, a cell's chunks differ by a copy at most, no cell has more chunks than allowed, and no
 * chunk would have done better elsewhere (a cell with room never holds larger chunks than another
 * cell's would be with one chunk fewer); elsewhere the equal cut. */
static void check_cut_by_cells(const struct morphology *cells, int n_cells, int neurons, int tail,
                               int chunks, int min_copies) {
  int sizes[64], equal[64], copies[MAX_MIX] = {0}, count[MAX_MIX] = {0}, allowed[MAX_MIX] = {0};
  level_arranged_cut_copies(cells, n_cells, neurons, tail, chunks, min_copies, sizes);
  level_arranged_cut_copies(cells, n_cells, neurons, tail, chunks, 0, equal);
  long long total = 0;
  for (int p = neurons - tail; p < neurons; p++) {
    const int m = level_arranged_neuron(neurons, n_cells, tail, p) % n_cells;
    copies[m]++, total += cells[m].n_compartments;
  }
  int present = 0, room = 0;
  for (int m = 0; m < n_cells; m++) {
    if (copies[m] == 0)
      continue;
    const long long compartments = (long long)copies[m] * cells[m].n_compartments;
    long long most = copies[m] / min_copies;
    const long long fewest =
        (long long)ceil((double)compartments * chunks / (LEVEL_ARRANGED_CELL_GROWTH * total));
    most = most > fewest ? most : fewest;
    most = most < 1 ? 1 : most > copies[m] ? copies[m] : most;
    allowed[m] = (int)most, present++, room += allowed[m];
  }
  if (present > chunks || room < chunks) {
    for (int c = 0; c < chunks; c++)
      assert_int_equal(sizes[c], equal[c]);
    return;
  }
  for (int c = 0, p = neurons - tail; c < chunks; c++) {
    assert_true(sizes[c] >= 1);
    const int m = level_arranged_neuron(neurons, n_cells, tail, p) % n_cells;
    for (int i = 0; i < sizes[c]; i++, p++)
      if (level_arranged_neuron(neurons, n_cells, tail, p) % n_cells != m)
        fail_msg("%d cells, tail %d in %d chunks: chunk %d holds two cells", n_cells, tail, chunks,
                 c);
    if (count[m]++ > 0 && abs(sizes[c] - sizes[c - 1]) > 1)
      fail_msg("cell %d's chunks of %d and %d copies", m, sizes[c - 1], sizes[c]);
    if (c == chunks - 1)
      assert_int_equal(p, neurons);
  }
  for (int m = 0; m < n_cells; m++) {
    if (copies[m] == 0)
      continue;
    if (count[m] < 1 || count[m] > allowed[m])
      fail_msg("%d cells, tail %d in %d chunks, %d copies a chunk: cell %d (%d copies) in %d "
               "chunks, %d allowed",
               n_cells, tail, chunks, min_copies, m, copies[m], count[m], allowed[m]);
    for (int j = 0; j < n_cells && count[m] < allowed[m]; j++)
      if (copies[j] > 0 && count[j] > 1 &&
          (double)copies[m] * cells[m].n_compartments / count[m] >
              (double)copies[j] * cells[j].n_compartments / (count[j] - 1) * (1 + 1e-12))
        fail_msg("cell %d's chunks larger than cell %d's would be with one fewer", m, j);
  }
}

/* check_cut_by_cells on the test mix's tails and on 5,000 fresh random tails as in
 * arranged_cut_keeps_copies_together, 2-16 copies a chunk. */
static void arranged_cut_by_cells_keeps_copies(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  for (size_t t = 0; t < sizeof mix_tails / sizeof *mix_tails; t++) {
    const int tail = mix_tails[t][0] * mix_count + 1;
    check_cut_by_cells(mix, mix_count, tail + mix_count, tail, mix_tails[t][1], 8);
  }
  int by_cells = 0;
  for (int trial = 0; trial < 5000; trial++) {
    struct morphology cells[16];
    int n_cells, neurons, tail, chunks;
    random_tail(cells, &n_cells, &neurons, &tail, &chunks);
    const int min_copies = 2 + (int)(testing_uniform(&seed_state) * 15);
    if (tail < chunks)
      continue;
    check_cut_by_cells(cells, n_cells, neurons, tail, chunks, min_copies);
    int sizes[64], equal[64];
    level_arranged_cut_copies(cells, n_cells, neurons, tail, chunks, min_copies, sizes);
    level_arranged_cut_copies(cells, n_cells, neurons, tail, chunks, 0, equal);
    by_cells += memcmp(sizes, equal, (size_t)chunks * sizeof *sizes) != 0;
  }
  assert_true(by_cells > 1000); /* the tails mostly cut by cells, not left to the equal cut */
}

/* The runtime's cut of the cores' share (level_arranged_cut, LEVEL_ARRANGED_MIN_COPIES) at the
 * shapes of the H200 machine's shares, 30 chunks (15 CPU workers, two chunks each): E's five cells
 * (the sizes of ri05, pyramidal, the Allen cell, v_e_purk2 and tc200) at the cuts its calibration
 * runs reached (631-1,751 neurons) and the six shipped cells at 2,094-2,670. Every chunk holds
 * copies of one cell, the cut is level_arranged_cut_copies's with LEVEL_ARRANGED_MIN_COPIES, and no
 * chunk holds more than total / (chunks - cells) compartments (what whole chunks a cell allow at
 * worst); the equal cut of the same tails puts two cells in a chunk (its chunks at the cells'
 * boundaries ran 1.4-1.7 times as long a compartment beside the GPU). */
static void arranged_cut_one_cell_a_chunk(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  static const int e_cells[] = {9079, 5893, 3607, 1939, 1314};        /* compartments */
  static const int six_cells[] = {210, 1173, 1597, 3607, 2704, 5893}; /* morph/data, sorted */
  const struct {
    const int *sizes;
    int n_cells, neurons, tail;
  } shares[] = {{e_cells, 5, 18711, 631},   {e_cells, 5, 18711, 1111}, {e_cells, 5, 18711, 1271},
                {e_cells, 5, 18711, 1591},  {e_cells, 5, 18711, 1751}, {six_cells, 6, 33390, 2094},
                {six_cells, 6, 33390, 2670}};
  const int chunks = 30;
  for (size_t t = 0; t < sizeof shares / sizeof *shares; t++) {
    struct morphology cells[6];
    memset(cells, 0, sizeof cells);
    for (int m = 0; m < shares[t].n_cells; m++)
      cells[m].n_compartments = shares[t].sizes[m];
    const int n = shares[t].n_cells, neurons = shares[t].neurons, tail = shares[t].tail;
    int sizes[30], with_min[30], equal[30];
    level_arranged_cut(cells, n, neurons, tail, chunks, sizes);
    level_arranged_cut_copies(cells, n, neurons, tail, chunks, LEVEL_ARRANGED_MIN_COPIES, with_min);
    level_arranged_cut_copies(cells, n, neurons, tail, chunks, 0, equal);
    assert_memory_equal(sizes, with_min, sizeof sizes);
    long long total = 0;
    for (int p = neurons - tail; p < neurons; p++)
      total += cells[level_arranged_neuron(neurons, n, tail, p) % n].n_compartments;
    int equal_mixed = 0;
    for (int pass = 0; pass < 2; pass++) {
      const int *cut = pass == 0 ? sizes : equal;
      for (int c = 0, p = neurons - tail; c < chunks; c++) {
        const int m = level_arranged_neuron(neurons, n, tail, p) % n;
        long long compartments = 0;
        int mixed = 0;
        for (int i = 0; i < cut[c]; i++, p++) {
          const int k = level_arranged_neuron(neurons, n, tail, p) % n;
          mixed |= k != m, compartments += cells[k].n_compartments;
        }
        if (pass == 1) {
          equal_mixed += mixed;
          continue;
        }
        if (mixed)
          fail_msg("tail %d of %d cells: chunk %d holds two cells", tail, n, c);
        if ((double)compartments > (double)total / (chunks - n) * (1 + 1e-12))
          fail_msg("tail %d of %d cells: chunk %d holds %lld compartments, at most %lld", tail, n,
                   c, compartments, total / (chunks - n));
      }
    }
    assert_true(equal_mixed > 0);
  }
}

/* The cores' share laid out by morphology (level_batch_options.arranged_tail): positions before
 * the tail hold their own neuron, the tail holds the same neurons grouped by morphology in number
 * order, each chunk's systems are exactly its positions' neurons, every compartment is located
 * once, and the equal cut (level_arranged_cut_copies, min_copies 0) gives chunks of about equal
 * compartments that cover the tail. */
static void arranged_tail_groups_copies_of_a_cell(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  const int neurons = 5 * mix_count + 2, tail = 3 * mix_count + 1, chunks = 4;
  int sizes[5];
  sizes[0] = neurons - tail;
  level_arranged_cut_copies(mix, mix_count, neurons, tail, chunks, 0, sizes + 1);
  long long per_chunk[4] = {0}, total = 0;
  int largest = 0;
  for (int c = 0, p = neurons - tail; c < chunks; c++) {
    assert_true(sizes[1 + c] >= 1);
    for (int i = 0; i < sizes[1 + c]; i++, p++) {
      const int n =
          mix[level_arranged_neuron(neurons, mix_count, tail, p) % mix_count].n_compartments;
      per_chunk[c] += n, total += n;
      largest = n > largest ? n : largest;
    }
    if (c == chunks - 1)
      assert_int_equal(p, neurons); /* the cut covers the tail */
  }
  /* within a neuron of the chunk's fair part, and fewer than LEVEL_ARRANGED_RUN copies more at
   * each end where the cut moved off a fragment (arranged_cut_keeps_copies_together) */
  for (int c = 0; c < chunks; c++)
    if (llabs(per_chunk[c] - total / chunks) > 2LL * LEVEL_ARRANGED_RUN * largest)
      fail_msg("chunk %d holds %lld compartments, the tail's quarter %lld", c, per_chunk[c],
               total / chunks);
  struct level_batch lb;
  build_chunk_batch(neurons,
                    (struct level_batch_options){
                        .chunk_neurons = sizes, .n_chunk_sizes = 1 + chunks, .arranged_tail = tail},
                    &lb);
  assert_non_null(lb.position_neuron);
  int *held = calloc((size_t)neurons, sizeof(int));
  for (int p = 0; p < neurons; p++) {
    const int k = level_batch_neuron_at(&lb, p);
    held[k]++;
    assert_int_equal(k, level_arranged_neuron(neurons, mix_count, tail, p));
    if (p < neurons - tail)
      assert_int_equal(k, p);
    else if (p > neurons - tail) { /* grouped: morphology, then number, never decreasing */
      const int before = level_batch_neuron_at(&lb, p - 1);
      assert_true(before % mix_count < k % mix_count ||
                  (before % mix_count == k % mix_count && before < k));
    }
    assert_int_equal(level_batch_chunk_of(&lb, k),
                     level_last_at_most(lb.chunk_first_neuron, lb.n_chunks, p));
  }
  for (int k = 0; k < neurons; k++)
    assert_int_equal(held[k], 1);
  for (int chunk = 0; chunk < lb.n_chunks; chunk++)
    for (int level = 0; level < lb.n_levels; level++) {
      if (!lb.blocks[chunk * lb.n_levels + level])
        continue;
      const struct level_block_view v =
          level_block_describe(lb.blocks[chunk * lb.n_levels + level]);
      for (int s = 0; s < v.systems; s++)
        assert_int_equal(level_batch_chunk_of(&lb, v.neuron[s]), chunk);
    }
  each_compartment_once(&lb, neurons);
  free(held);
  level_batch_free(&lb);
  /* level_arranged_fill (the build's, O(n)) against level_arranged_neuron (its definition), over
   * sizes and tails that do and do not divide by the morphologies */
  const int shapes[][3] = {{37, 5, 32},   {37, 5, 1},       {40, 8, 17},   {9, 1, 8},
                           {256, 255, 1}, {1000, 256, 744}, {1001, 7, 500}};
  for (size_t t = 0; t < sizeof shapes / sizeof *shapes; t++) {
    const int n = shapes[t][0], m = shapes[t][1], arranged = shapes[t][2];
    int *filled = malloc((size_t)arranged * sizeof(int));
    level_arranged_fill(n, m, arranged, filled);
    for (int i = 0; i < arranged; i++)
      if (filled[i] != level_arranged_neuron(n, m, arranged, n - arranged + i))
        fail_msg("%d neurons of %d cells, tail %d: position %d holds %d, not %d", n, m, arranged,
                 n - arranged + i, filled[i],
                 level_arranged_neuron(n, m, arranged, n - arranged + i));
    free(filled);
  }
}

/* The level rows of a chunk that do not start on a warp's first thread (element 32 k); with
 * `fail`, the first fails the test. */
static int rows_off_warps(const struct level_batch *lb, int chunk, int fail) {
  int off = 0;
  for (int level = 0; level < lb->n_levels; level++) {
    const int *ints = lb->blocks[chunk * lb->n_levels + level];
    if (!ints)
      continue;
    const struct level_block_view v = level_block_describe(ints);
    const size_t base = lb->element_offset[(size_t)chunk * (lb->n_levels + 1) + level];
    for (int j = 0; j <= v.max_size; j++) {
      const size_t start = base + (size_t)v.row_offset[j];
      if (start % 32 == 0)
        continue;
      if (fail)
        fail_msg("aligned chunk %d, level %d: row %d starts at element %zu", chunk, level, j,
                 start);
      off++;
    }
  }
  return off;
}

/* GPU chunks of copies of every cell LEVEL_ALIGNED_COPIES at a time (level_aligned_cut, the
 * default cut of the GPUs' chunks): the cut covers the batch in whole units as equal as may be,
 * the rest (less than a unit) in one more chunk; in every aligned chunk each level and each of
 * its rows starts on a multiple of LEVEL_ALIGNED_COPIES elements (32: a warp's first thread, two
 * 128-byte lines), which the rest's chunk does not give; the cut refuses batches of fewer units a
 * chunk than asked (the runtime asks LEVEL_ALIGNED_MIN_UNITS); the voltages are the one-chunk
 * run's, to the bit, cut so explicitly and by default. */
static void aligned_cut_starts_rows_on_lines(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  const int cuts[][4] = {{1000, 3, 4, 1},  {47, 3, 4, 1},    {48, 3, 4, 1},     {49, 3, 1, 1},
                         {96, 6, 2, 1},    {97, 6, 5, 1},    {5000, 1, 4, 8},   {100003, 15, 8, 8},
                         {4095, 1, 4, 64}, {4096, 1, 4, 64}, {30000, 256, 4, 8}};
  for (size_t t = 0; t < sizeof cuts / sizeof *cuts; t++) {
    const int n = cuts[t][0], m = cuts[t][1], chunks = cuts[t][2], min_units = cuts[t][3],
              unit = LEVEL_ALIGNED_COPIES * m;
    int sizes[9], rest = -1;
    const int aligned = level_aligned_cut(n, m, chunks, 1, min_units, sizes, &rest);
    const int units = n / unit, cut = units >= min_units * chunks;
    assert_int_equal(aligned, cut ? chunks : 0);
    assert_int_equal(rest, cut && n % unit != 0);
    int covered = 0;
    for (int c = 0; c < aligned; c++) {
      assert_true(sizes[c] >= min_units * unit && sizes[c] % unit == 0);
      assert_true(abs(sizes[c] - sizes[0]) <= unit);
      assert_true(c == 0 || sizes[c] <= sizes[c - 1]); /* one group: the first the larger */
      covered += sizes[c];
    }
    if (rest)
      covered += sizes[aligned];
    assert_int_equal(covered, cut ? n : 0);
  }
  /* Over several GPUs (groups of consecutive chunks, chunk c on GPU c * groups / chunks, as
   * placement_home_node homes them): fresh random batches; each chunk as before (whole units,
   * within one unit of the others, covering the batch), and GPUs of as many chunks hold as many
   * units within one, the first the larger. The units past an equal share once all went to the
   * first GPU's chunks: all 15 shared cells x 32,712 on two GPUs in eight chunks, 68 units, gave
   * the first GPU 36 and the second 32 and the rest. */
  int all15[9], all15_rest;
  assert_int_equal(level_aligned_cut(32712, 15, 8, 2, 1, all15, &all15_rest), 8);
  assert_int_equal(all15[0] + all15[1] + all15[2] + all15[3], 34 * LEVEL_ALIGNED_COPIES * 15);
  srand(20261204);
  for (int t = 0; t < 4000; t++) {
    const int m = 1 + rand() % 20, chunks = 1 + rand() % 16, groups = 1 + rand() % 4,
              unit = LEVEL_ALIGNED_COPIES * m, units = chunks + rand() % (40 * chunks),
              n = units * unit + rand() % unit;
    int sizes[17], rest = -1, group_units[4] = {0}, group_chunks[4] = {0};
    assert_int_equal(level_aligned_cut(n, m, chunks, groups, 1, sizes, &rest), chunks);
    assert_int_equal(rest, n % unit != 0);
    int covered = rest ? sizes[chunks] : 0, least = sizes[0], most = sizes[0];
    for (int c = 0; c < chunks; c++) {
      assert_true(sizes[c] > 0 && sizes[c] % unit == 0);
      least = sizes[c] < least ? sizes[c] : least;
      most = sizes[c] > most ? sizes[c] : most;
      const int g = groups > chunks ? c : c * groups / chunks;
      group_units[g] += sizes[c] / unit;
      group_chunks[g]++;
      covered += sizes[c];
    }
    assert_int_equal(covered, n);
    assert_true(most - least <= unit);
    for (int g = 0; g < 4; g++)
      for (int h = g + 1; h < 4; h++)
        if (group_chunks[g] == group_chunks[h] && group_chunks[g] > 0) {
          if (group_units[g] < group_units[h] || group_units[g] - group_units[h] > 1)
            fail_msg("%d units in %d chunks over %d groups: group %d holds %d, group %d %d", units,
                     chunks, groups, g, group_units[g], h, group_units[h]);
        }
  }
  /* the runtime's bound: a batch of 256 cells at 30,000 neurons keeps the equal cut, and a chunk
   * is aligned from 128 copies of every cell on (3 cells, 2 chunks: 768 neurons, not 767) */
  int none[5], none_rest;
  assert_int_equal(level_aligned_cut(30000, 256, 4, 1, LEVEL_ALIGNED_MIN_UNITS, none, &none_rest),
                   0);
  assert_int_equal(level_aligned_cut(768, 3, 2, 1, LEVEL_ALIGNED_MIN_UNITS, none, &none_rest), 2);
  assert_int_equal(level_aligned_cut(767, 3, 2, 1, LEVEL_ALIGNED_MIN_UNITS, none, &none_rest), 0);
  const int neurons = 2 * LEVEL_ALIGNED_COPIES * mix_count + 5;
  int sizes[3], rest;
  assert_int_equal(level_aligned_cut(neurons, mix_count, 2, 1, 1, sizes, &rest), 2);
  assert_int_equal(rest, 1);
  assert_int_equal(sizes[2], 5);
  struct level_batch lb;
  build_chunk_batch(neurons,
                    (struct level_batch_options){.chunk_neurons = sizes, .n_chunk_sizes = 3}, &lb);
  for (int chunk = 0; chunk < 2; chunk++)
    rows_off_warps(&lb, chunk, 1);
  const int rest_unaligned = rows_off_warps(&lb, 2, 0);
  assert_true(rest_unaligned > 0);
  each_compartment_once(&lb, neurons);
  level_batch_free(&lb);
  const uint64_t one_chunk =
      run_and_compare_trunk(0, neurons, neurons, 0, 0, LEVEL_ORDER_HEIGHT, 0);
  assert_int_equal(run_and_compare_trunk(0, neurons, 0, 0, 0, LEVEL_ORDER_HEIGHT, 0), one_chunk);
  cut_sizes = sizes;
  cut_count = 3;
  assert_int_equal(run_and_compare_trunk(0, neurons, 0, 0, 0, LEVEL_ORDER_HEIGHT, 0), one_chunk);
  cut_sizes = NULL;
  cut_count = 0;
}

/* level_aligned_set_up for a share of `share` neurons: `larger` where that fits (at most half the
 * batch and `growth` times the share, min_units units a GPU chunk left), else 0; where it does, the
 * GPUs' part is cut in aligned chunks with no rest. Returns 1 where a share was set up. */
static int set_up_checked(int neurons, int m, int gpu_chunks, int min_units, int share, int larger,
                          double growth) {
  const int unit = LEVEL_ALIGNED_COPIES * m,
            up = level_aligned_set_up(neurons, m, gpu_chunks, min_units, share, growth);
  const int fits = share >= 1 && larger <= neurons / 2 && larger <= growth * share &&
                   (neurons - larger) / unit >= min_units * gpu_chunks;
  if (up != (fits ? larger : 0))
    fail_msg("%d neurons of %d cells, %d GPU chunks, cores %d: set up %d, not %d", neurons, m,
             gpu_chunks, share, up, fits ? larger : 0);
  if (!up)
    return 0;
  int sizes[17], rest = -1;
  assert_int_equal(level_aligned_cut(neurons - up, m, gpu_chunks, 1, min_units, sizes, &rest),
                   gpu_chunks);
  assert_int_equal(rest, 0);
  return 1;
}

/* With the cores' share the GPUs' part holds whole units (level_aligned_share_shift): over fresh
 * random batches the cores take the neurons left over where they add at most `growth` of their
 * share, else give the GPUs the rest's complement where it is at most `give` of their share (a
 * neuron a chunk left), which leaves the GPUs' part whole units that the aligned cut takes with no
 * rest; else nothing moves, and the share the probe may try is the share with the rest. A batch cut
 * so runs on GPU and CPU workers to the one-chunk run's digest, to the bit. */
static void aligned_share_leaves_no_rest(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  const double growth = 0.2, give = MULTI_SHARE_REST_GIVE;
  int gave = 0, set_ups = 0, rest_ups = 0;
  for (int t = 0; t < 20000; t++) {
    const int m = 1 + (int)(testing_uniform(&seed_state) * 20), unit = LEVEL_ALIGNED_COPIES * m,
              gpu_chunks = 1 + (int)(testing_uniform(&seed_state) * 16),
              min_units = 1 + (int)(testing_uniform(&seed_state) * 8),
              cpu_chunks = 1 + (int)(testing_uniform(&seed_state) * 60),
              share = (int)(testing_uniform(&seed_state) * 4000),
              neurons = share + (int)(testing_uniform(&seed_state) * 40 * unit * gpu_chunks);
    const int shift = level_aligned_share_shift(neurons, m, gpu_chunks, min_units, share,
                                                cpu_chunks, growth, give),
              gpu = neurons - share, left = gpu % unit,
              cut = share >= cpu_chunks && gpu >= 1 && gpu / unit >= min_units * gpu_chunks;
    if (!cut || left == 0) {
      assert_int_equal(shift, 0);
      continue;
    }
    const int complement = unit - left;
    const int expected = left <= growth * share ? left
                         : complement <= give * gpu && share - complement >= cpu_chunks
                             ? -complement
                             : 0;
    if (shift != expected)
      fail_msg("%d neurons of %d cells, %d GPU chunks, cores %d in %d: shift %d, not %d", neurons,
               m, gpu_chunks, share, cpu_chunks, shift, expected);
    if (shift == 0) { /* a chunk of the rest stays: the share with it (level_aligned_set_up) */
      rest_ups += set_up_checked(neurons, m, gpu_chunks, min_units, share, share + left,
                                 MULTI_SHARE_REST_UP_GROWTH);
      continue;
    }
    gave += shift < 0;
    if (shift < 0) /* the share a whole unit larger (level_aligned_set_up) */
      set_ups += set_up_checked(neurons, m, gpu_chunks, min_units, share + shift,
                                share + shift + unit, MULTI_SHARE_SET_UP_GROWTH);
    int sizes[17], rest = -1;
    assert_int_equal(
        level_aligned_cut(neurons - share - shift, m, gpu_chunks, 1, min_units, sizes, &rest),
        gpu_chunks);
    assert_int_equal(rest, 0);
  }
  assert_true(gave > 100);    /* the random batches gave complements too */
  assert_true(set_ups > 10);  /* ... and sets more to probe */
  assert_true(rest_ups > 10); /* ... and rests to probe on the cores */
  /* B x 8,330 (four cells, 65 units of 128 and 10 neurons): its share of 266 may grow to 394, not
   * past 1.4 times itself; a share a neuron short leaves the GPUs a rest of one, which it takes */
  const int b_unit = LEVEL_ALIGNED_COPIES * 4, b_neurons = 65 * b_unit + 10,
            b_share = 10 + 2 * b_unit;
  assert_int_equal(level_aligned_set_up(b_neurons, 4, 4, 4, b_share, 1.5), b_share + b_unit);
  assert_int_equal(level_aligned_set_up(b_neurons, 4, 4, 4, b_share, 1.4), 0);
  assert_int_equal(level_aligned_set_up(b_neurons, 4, 4, 4, b_share - 1, 1.5), b_share);
  /* all 15 cells x 13,000 on the H200 (units of 480): 420 on the cores left the GPUs 26 units and
   * a rest of 100, which the cores may take (520, 1.24 times their share), not at 1.2 */
  assert_int_equal(level_aligned_set_up(13000, 15, 4, 4, 420, 1.5), 520);
  assert_int_equal(level_aligned_set_up(13000, 15, 4, 4, 420, 1.2), 0);
  const int unit = LEVEL_ALIGNED_COPIES * mix_count;
  /* the cores take 5 neurons left over (30 + 5), not 7 (more than a fifth of 30); a share of two
   * units beside nine and most of a tenth, too many for the cores (a fifth of their share), gives
   * the GPUs the tenth's missing neurons where they are `give` of the GPUs' part at most
   * (most_given, not one more) */
  assert_int_equal(
      level_aligned_share_shift(2 * unit + 5 + 30, mix_count, 2, 1, 30, 3, growth, give), 5);
  assert_int_equal(
      level_aligned_share_shift(2 * unit + 7 + 30, mix_count, 2, 1, 30, 3, growth, give), 0);
  const int two_units = 2 * unit, most_given = (int)(give * 10 * unit / (1.0 + give));
  assert_true(most_given > 0 && unit - most_given > growth * two_units);
  assert_int_equal(level_aligned_share_shift(10 * unit - most_given + two_units, mix_count, 2, 1,
                                             two_units, 3, growth, give),
                   -most_given);
  assert_int_equal(level_aligned_share_shift(10 * unit - most_given - 1 + two_units, mix_count, 2,
                                             1, two_units, 3, growth, give),
                   0);
  const int neurons = 2 * unit + 35;
  const uint64_t one_chunk =
      run_and_compare_trunk(0, neurons, neurons, 0, 0, LEVEL_ORDER_HEIGHT, 0);
  const int sizes[] = {unit, unit, 12, 12, 11};
  cut_sizes = sizes;
  cut_count = 5;
  cut_cpu_chunks = 3;
  cut_pin = starpu_cuda_worker_get_count() > 0 && starpu_cpu_worker_get_count() > 0;
  const uint64_t shifted = run_and_compare_trunk(0, neurons, 0, 0, 0, LEVEL_ORDER_HEIGHT, 0);
  cut_sizes = NULL;
  cut_count = cut_cpu_chunks = cut_pin = 0;
  assert_int_equal(shifted, one_chunk);
}

/* The copies of cell m among neurons [from, neurons) of a round-robin batch of n_cells cells,
 * counted one by one. */
static int copies_counted(int neurons, int n_cells, int from, int m) {
  int copies = 0;
  for (int k = from; k < neurons; k++)
    copies += k % n_cells == m;
  return copies;
}

/* The most compartments of warps of cells (at most copies[m] / LEVEL_ALIGNED_COPIES of cell m)
 * that fit `room`, over every choice (n_cells small, few warps). */
static long long most_warps(const struct morphology *cells, int n_cells, const int *copies, int m,
                            long long room) {
  if (m == n_cells)
    return 0;
  long long best = 0;
  const long long warp = (long long)LEVEL_ALIGNED_COPIES * cells[m].n_compartments;
  for (int w = 0; w <= copies[m] / LEVEL_ALIGNED_COPIES && w * warp <= room; w++) {
    const long long with = w * warp + most_warps(cells, n_cells, copies, m + 1, room - w * warp);
    best = with > best ? with : best;
  }
  return best;
}

/* The GPUs' part past whole units in warps of cells' copies (level_aligned_lead), over fresh
 * random cells and batches checked neuron by neuron: every cell's copies taken a whole number of
 * warps, no more than the tail holds; the cores keep the target's compartments at least (nothing
 * taken where the tail holds fewer), no warp more fits, and the take is at least the best over
 * every choice that fits the room less the grid's rounding; laid out (level_arranged_fill_lead) the
 * tail's front holds just those copies. level_arranged_cut_after cuts the rest of the tail, as
 * level_arranged_cut where nothing is taken. A level batch whose GPU chunk ends with warps of two
 * cells starts every row of the GPUs' chunks on a warp's first thread, holds each compartment
 * once, and runs on GPU and CPU workers to the one-chunk run's digest, to the bit. */
static void aligned_lead_keeps_rows_on_lines(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  struct morphology cells[8];
  int taken_some = 0;
  for (int t = 0; t < 3000; t++) {
    const int m = 1 + (int)(testing_uniform(&seed_state) * 8), unit = LEVEL_ALIGNED_COPIES * m,
              units = 1 + (int)(testing_uniform(&seed_state) * 6),
              tail = 1 + (int)(testing_uniform(&seed_state) * 3 * unit),
              neurons = units * unit + tail;
    memset(cells, 0, sizeof cells);
    for (int c = 0; c < m; c++)
      cells[c].n_compartments = 100 + (int)(testing_uniform(&seed_state) * 30000);
    int copies[8], lead[8], *order = malloc((size_t)tail * sizeof *order);
    long long tail_compartments = 0, warps = 0;
    for (int c = 0; c < m; c++) {
      copies[c] = copies_counted(neurons, m, units * unit, c);
      tail_compartments += (long long)copies[c] * cells[c].n_compartments;
      warps += copies[c] / LEVEL_ALIGNED_COPIES;
    }
    const double target = testing_uniform(&seed_state) * 1.2 * tail_compartments;
    long long compartments = -1;
    const int share = level_aligned_lead(cells, m, neurons, units, target, lead, &compartments);
    long long taken = 0, kept = 0;
    int lead_neurons = 0;
    for (int c = 0; c < m; c++) {
      if (lead[c] % LEVEL_ALIGNED_COPIES != 0 || lead[c] < 0 || lead[c] > copies[c])
        fail_msg("%d cells x %d, %d units: cell %d lead %d of %d copies", m, neurons, units, c,
                 lead[c], copies[c]);
      taken += (long long)lead[c] * cells[c].n_compartments;
      kept += (long long)(copies[c] - lead[c]) * cells[c].n_compartments;
      lead_neurons += lead[c];
    }
    assert_int_equal(share, tail - lead_neurons);
    assert_true(compartments == kept);
    taken_some += lead_neurons > 0;
    const long long room = (long long)floor((double)tail_compartments - target);
    if (room < 0) {
      assert_int_equal(lead_neurons, 0);
    } else {
      assert_true(taken <= room);
      for (int c = 0; c < m; c++)
        if (lead[c] + LEVEL_ALIGNED_COPIES <= copies[c] &&
            taken + (long long)LEVEL_ALIGNED_COPIES * cells[c].n_compartments <= room)
          fail_msg("%d cells: a warp more of cell %d fits", m, c);
      if (warps <= 12) { /* the grid rounds each warp up by a step at most */
        const long long narrowed = room - warps * (long long)ceil(room / 4096.0 + 1);
        const long long best = narrowed > 0 ? most_warps(cells, m, copies, 0, narrowed) : 0;
        if (taken < best)
          fail_msg("%d cells, room %lld: took %lld, best %lld in %lld", m, room, taken, best,
                   narrowed);
      }
    }
    level_arranged_fill_lead(neurons, m, tail, lead, order);
    int counted[8] = {0};
    for (int p = 0; p < lead_neurons; p++)
      counted[order[p] % m]++;
    for (int c = 0; c < m; c++)
      assert_int_equal(counted[c], lead[c]);
    free(order);
  }
  assert_true(taken_some > 300); /* the random batches took warps */
  /* level_arranged_cut_after: the tail past a random lead, a neuron a chunk at least, as
   * level_arranged_cut where nothing is taken */
  for (int t = 0; t < 2000; t++) {
    const int neurons = mix_count + 2 + (int)(testing_uniform(&seed_state) * 3000),
              tail = 1 + (int)(testing_uniform(&seed_state) * (neurons - mix_count)),
              chunks = 1 + (int)(testing_uniform(&seed_state) * 40);
    int lead[MAX_MIX], lead_neurons = 0;
    for (int c = 0; c < mix_count; c++) {
      lead[c] = (int)(testing_uniform(&seed_state) *
                      (copies_counted(neurons, mix_count, neurons - tail, c) + 1) / 2);
      lead_neurons += lead[c];
    }
    if (tail - lead_neurons < chunks)
      continue;
    int after[40], plain[40], total = 0;
    level_arranged_cut_after(mix, mix_count, neurons, tail, lead, chunks, after);
    for (int c = 0; c < chunks; c++) {
      assert_true(after[c] >= 1);
      total += after[c];
    }
    assert_int_equal(total, tail - lead_neurons);
    level_arranged_cut_after(mix, mix_count, neurons, tail, NULL, chunks, after);
    level_arranged_cut(mix, mix_count, neurons, tail, chunks, plain);
    assert_memory_equal(after, plain, (size_t)chunks * sizeof *after);
  }
  /* The test mix: two GPU chunks of a unit each, the second ending with a warp of the first and
   * the third cells from the cores' tail of a unit and two warps (share: a unit, three chunks). */
  assert_true(mix_count >= 3);
  const int unit = LEVEL_ALIGNED_COPIES * mix_count, taken = 2 * LEVEL_ALIGNED_COPIES,
            neurons = 3 * unit + taken, share = unit;
  int lead[MAX_MIX] = {0};
  lead[0] = lead[2] = LEVEL_ALIGNED_COPIES;
  int sizes[5] = {unit, unit + taken};
  level_arranged_cut_after(mix, mix_count, neurons, share + taken, lead, 3, sizes + 2);
  struct level_batch lb;
  build_chunk_batch(neurons,
                    (struct level_batch_options){.chunk_neurons = sizes,
                                                 .n_chunk_sizes = 5,
                                                 .arranged_tail = share + taken,
                                                 .tail_lead = lead},
                    &lb);
  int in_second[MAX_MIX] = {0};
  for (int k = 0; k < neurons; k++)
    in_second[k % mix_count] += level_batch_chunk_of(&lb, k) == 1;
  for (int c = 0; c < mix_count; c++) /* a unit's and the lead's */
    assert_int_equal(in_second[c], LEVEL_ALIGNED_COPIES + lead[c]);
  for (int chunk = 0; chunk < 2; chunk++)
    rows_off_warps(&lb, chunk, 1);
  each_compartment_once(&lb, neurons);
  level_batch_free(&lb);
  const uint64_t one_chunk =
      run_and_compare_trunk(0, neurons, neurons, 0, 0, LEVEL_ORDER_HEIGHT, 0);
  cut_sizes = sizes;
  cut_count = 5;
  cut_cpu_chunks = 3;
  cut_tail_lead = lead;
  cut_pin = starpu_cuda_worker_get_count() > 0 && starpu_cpu_worker_get_count() > 0;
  const uint64_t led = run_and_compare_trunk(0, neurons, 0, 0, 0, LEVEL_ORDER_HEIGHT, 0);
  cut_sizes = NULL;
  cut_tail_lead = NULL;
  cut_count = cut_cpu_chunks = cut_pin = 0;
  assert_int_equal(led, one_chunk);
}

/* Rooted at the centers, the blocks number compartments relative to the soma: the soma is 0
 * (what the mechanisms and the stimulus test), and every compartment maps both ways. */
static void centered_roots_locate_each_compartment_once(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  const int neurons = 2 * mix_count + 1;
  struct level_batch lb;
  build_chunk_batch(neurons,
                    (struct level_batch_options){.neurons_per_chunk = neurons / 2 + 1, .reroot = 1},
                    &lb);
  int rerooted = 0;
  for (int m = 0; m < mix_count; m++) {
    assert_int_equal(lb.user_compartment[m][lb.soma_compartment[m]], 0);
    rerooted += lb.soma_compartment[m] != 0;
  }
  assert_true(rerooted > 0); /* the Allen cell at least */
  each_compartment_once(&lb, neurons);
  level_batch_free(&lb);
}

static void subtree_units_cover_each_compartment_once(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  const int limits[] = {3, 7, 40, 1 << 20};
  const int neurons = 2 * mix_count + 1;
  for (size_t l = 0; l < sizeof limits / sizeof *limits; l++) {
    const struct level_batch_options options = {.neurons_per_chunk = neurons / 2 + 1,
                                                .chunk_links = 1,
                                                .order = LEVEL_ORDER_HEIGHT,
                                                .warps = LEVEL_WARPS_ALL,
                                                .subtree_compartments = limits[l]};
    struct level_batch lb;
    struct hines_error err;
    assert_int_equal(
        level_batch_build(mix, mix_count, neurons, &options, &cable_defaults, 0.025, &lb, &err),
        HINES_OK);
    int trees = 0;
    for (int chunk = 0; chunk < lb.n_chunks; chunk++)
      for (int level = 0; level < lb.n_levels; level++) {
        const struct level_block_view v =
            level_block_describe(lb.blocks[chunk * lb.n_levels + level]);
        int counted = 0;
        for (int s = 0; s < v.systems; s++) {
          if (v.tree[s] < 0)
            continue;
          counted++;
          assert_true(s >= v.warp_systems); /* warps sweep chains only */
          assert_int_equal(v.child_first[s + 1], v.child_first[s]);
          const struct morphology *given = &mix[v.neuron[s] % mix_count];
          const int start = v.first_compartment[s], size = v.size[s];
          assert_true(size <= limits[l] && size > 1);
          int branches = 1;
          for (int j = 1; j < size; j++)
            branches += children_of(given, given->parent[start + j]) > 1;
          assert_true(size <= LEVEL_SUBTREE_MEAN_BRANCH * branches);
          for (int j = 1; j < size; j++) {
            const int step = level_shape(&v, s, j, SHAPE_PARENT_STEP);
            assert_int_equal(start + j - step, given->parent[start + j]);
            const int sibling = level_shape(&v, s, j, SHAPE_SIBLING_STEP);
            if (sibling) { /* the next child of the same parent: none in between */
              assert_int_equal(given->parent[start + j + sibling], given->parent[start + j]);
              for (int i = j + 1; i < j + sibling; i++)
                assert_true(given->parent[start + i] != given->parent[start + j]);
            } else {
              for (int i = j + 1; i < size; i++)
                assert_true(given->parent[start + i] != given->parent[start + j]);
            }
          }
          /* whole: nothing after it hangs from it; maximal: its parent's subtree is larger */
          for (int i = start + size; i < given->n_compartments; i++)
            assert_true(given->parent[i] < start || given->parent[i] >= start + size);
          if (start > 0) { /* the subtree from the first node of the junction's branch */
            int first = given->parent[start];
            while (first > 0 && children_of(given, given->parent[first]) == 1)
              first = given->parent[first];
            int end = first + 1, branches = 1;
            while (end < given->n_compartments && given->parent[end] >= first) {
              branches += children_of(given, given->parent[end]) > 1; /* a branch starts */
              end++;
            }
            assert_true(end - first > limits[l] ||
                        end - first > LEVEL_SUBTREE_MEAN_BRANCH * branches);
          }
        }
        assert_int_equal(counted, v.trees);
        trees += counted;
      }
    each_compartment_once(&lb, neurons);
    printf("# subtrees of at most %d compartments: %d subtree systems in %d levels\n", limits[l],
           trees, lb.n_levels);
    if (limits[l] >= 7) /* a few random trees may have no 3-compartment subtree */
      assert_true(trees > 0);
    level_batch_free(&lb);
  }
}

/* Long branches cut into segments (level_layout.h): every chain system is at most the limit, a
 * branch of n compartments gives ceil(n / limit) systems (subtrees off), subtree systems are
 * left whole, every compartment lies in one system, and with segments of one compartment the
 * batch has as many levels as the longest root-to-leaf path has compartments. */
static void split_segments_cover_each_branch(void **state) {
  (void)state;
  TESTING_SKIP_UNLESS_SCHEDULED();
  const int neurons = 2 * mix_count + 1;
  const struct { int split, subtrees; } cases[] = {{1, 0}, {5, 0}, {16, 0}, {5, 64}, {1 << 20, 0}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    struct level_batch_options options = {.neurons_per_chunk = neurons / 2 + 1,
                                          .chunk_links = 1,
                                          .order = LEVEL_ORDER_HEIGHT,
                                          .subtree_compartments = cases[c].subtrees,
                                          .split_compartments = cases[c].split};
    struct level_batch lb, whole;
    struct hines_error err;
    assert_int_equal(
        level_batch_build(mix, mix_count, neurons, &options, &cable_defaults, 0.025, &lb, &err),
        HINES_OK);
    options.split_compartments = 0;
    assert_int_equal(
        level_batch_build(mix, mix_count, neurons, &options, &cable_defaults, 0.025, &whole, &err),
        HINES_OK);
    long long systems = 0, trees = 0, trees_whole = 0, expected = 0;
    for (int chunk = 0; chunk < lb.n_chunks; chunk++) {
      for (int level = 0; level < lb.n_levels; level++) {
        const int *ints = lb.blocks[chunk * lb.n_levels + level];
        if (!ints)
          continue;
        const struct level_block_view v = level_block_describe(ints);
        systems += v.systems, trees += v.trees;
        for (int s = 0; s < v.systems; s++)
          if (v.tree[s] < 0)
            assert_true(v.size[s] <= cases[c].split);
      }
      for (int level = 0; level < whole.n_levels; level++) {
        const int *ints = whole.blocks[chunk * whole.n_levels + level];
        trees_whole += ints ? level_block_describe(ints).trees : 0;
      }
    }
    assert_int_equal(trees, trees_whole);
    int deepest = 0;
    for (int k = 0; k < neurons; k++) {
      const struct morphology *given = &mix[k % mix_count];
      for (int b = 0; b < given->n_branches; b++)
        expected += (given->branch_size[b] + cases[c].split - 1) / cases[c].split;
      if (given->max_depth > deepest)
        deepest = given->max_depth;
    }
    if (!cases[c].subtrees)
      assert_int_equal(systems, expected);
    if (cases[c].split == 1 && !cases[c].subtrees)
      assert_int_equal(lb.n_levels, deepest);
    each_compartment_once(&lb, neurons);
    printf("# branches cut at %d compartments, subtrees of %d: %lld systems in %d levels (%d "
           "whole)\n",
           cases[c].split, cases[c].subtrees, systems, lb.n_levels, whole.n_levels);
    level_batch_free(&lb);
    level_batch_free(&whole);
  }
}

/* The batch with the layout options of the moment (subtree_limit, split_limit) against the
 * sequential reference, passive (when `whole`) and with channels everywhere, and bit for bit the
 * same whatever the chunks, parts and kernel (level kernels, flow, cell block): a neuron's
 * layout depends on its morphology only. `whole`: every other run below; else two of them. */
static void layout_matches_reference(const char *layout, int whole) {
  const int steps = 40, neurons = 2 * mix_count + 3;
  for (int channels = !whole; channels < 2; channels++) {
    const struct step_model model = stimulated_model(channels);
    size_t values, other;
    double *got = run_chunk_kernel(mix, mix_count, neurons, 0, 0, LEVEL_ORDER_AUTO, 0,
                                   LEVEL_KERNEL_LEVELS, 0, &model, steps, &values);
    const double worst =
        worst_against_reference(mix, mix_count, neurons, &model, steps, got, layout);
    const struct {
      int per_task, parts, padded;
      enum level_kernel kernel;
      const char *what;
    } others[] = {{7, 0, 0, LEVEL_KERNEL_LEVELS, "chunks of 7"},
                  {5, 0, 1, LEVEL_KERNEL_FLOW, "flow kernel, CP"},
                  {0, 3, 0, LEVEL_KERNEL_LEVELS, "3 parts"},
                  {0, 2, 0, LEVEL_KERNEL_CELL, "cell-block kernel"},
                  {0, 0, 1, LEVEL_KERNEL_LEVELS, "CP"}};
    for (size_t o = 0; o < (whole ? sizeof others / sizeof *others : 2); o++) {
      double *again = run_chunk_kernel(mix, mix_count, neurons, others[o].per_task, others[o].parts,
                                       LEVEL_ORDER_AUTO, others[o].padded, others[o].kernel, 0,
                                       &model, steps, &other);
      assert_int_equal(values, other);
      if (memcmp(got, again, values * sizeof(double)) != 0)
        fail_msg("%s: %s differ in bits from one chunk", layout, others[o].what);
      free(again);
    }
    printf("# %s, %s: max relative error %.3e; the same bits in %s\n", layout,
           channels ? "HH all" : "passive", worst,
           whole ? "chunks of 7, CP with the flow kernel, 3 parts, the cell-block kernel, CP"
                 : "chunks of 7, CP with the flow kernel");
    free(got);
  }
}

/* Subtree systems (no branch cut): the whole matrix for the first limit; HH and two of the other
 * runs for the others. Under the scheduler variants of ctest (testing_scheduler_only) the first
 * limit alone, HH, two other runs: a policy only places the tasks, the plain run checks the
 * whole matrix, and CI's time (and the sanitizer build's) is short. */
static void subtree_systems_match_reference(void **state) {
  (void)state;
  const int full = !testing_scheduler_only();
  const int limits[] = {40, 6, 1 << 20};
  for (size_t l = 0; l < (full ? sizeof limits / sizeof *limits : 1); l++) {
    subtree_limit = limits[l];
    char layout[64];
    snprintf(layout, sizeof layout, "subtrees of at most %d compartments", limits[l]);
    layout_matches_reference(layout, full && l == 0);
  }
  subtree_limit = 0;
}

/* Long branches cut into segments (level_layout.h), with and without subtrees: segments of one
 * compartment (every compartment a system: a junction with one child everywhere), of 5 and of
 * 16. The same reduced matrix under the scheduler variants as above. */
struct cut_layout {
  int split, subtrees;
};

/* layout_matches_reference for each cut (the whole matrix for the first; under the scheduler
 * variants the first alone), systems rooted at the centers or not (root_center). */
static void cut_layouts_match_reference(const struct cut_layout *cases, size_t n) {
  const int full = !testing_scheduler_only();
  for (size_t c = 0; c < (full ? n : 1); c++) {
    split_limit = cases[c].split, subtree_limit = cases[c].subtrees;
    char layout[96];
    snprintf(layout, sizeof layout, "%sbranches cut at %d compartments, subtrees of %d",
             root_center ? "roots at the centers, " : "", cases[c].split, cases[c].subtrees);
    layout_matches_reference(layout, full && c == 0);
  }
  split_limit = subtree_limit = 0;
}

static void split_systems_match_reference(void **state) {
  (void)state;
  const struct cut_layout cases[] = {{5, 64}, {1, 0}, {16, 6}};
  cut_layouts_match_reference(cases, sizeof cases / sizeof *cases);
}

/* Systems rooted at each cell's center (the default of hinestask, --level-root center): five of
 * the six shipped cells take the center (all but CA1, whose center cuts its path by less than an
 * eighth; the Allen cell's longest path 661 -> 392 compartments) and the random trees theirs
 * where it pays, with the default cut and subtrees, and with branches whole. */
static void centered_roots_match_reference(void **state) {
  (void)state;
  const struct cut_layout cases[] = {{64, 8}, {0, 0}};
  root_center = 1;
  cut_layouts_match_reference(cases, sizeof cases / sizeof *cases);
  root_center = 0;
}

/* Passive steps read their forward factors from the constants' rows (--level-factors rows, the
 * default) instead of storing them per element: the same bits, with every layout that changes
 * which factors a sweep needs (subtrees, whose later children's factors the backward sweep reads
 * too; cut branches; CP padding; the trunk; chunks, parts), roots at the centers or the soma. */
static void row_factors_match_element_factors(void **state) {
  (void)state;
  const int steps = 30, neurons = 2 * mix_count + 3;
  const struct step_model model = stimulated_model(0);
  const struct {
    int split, subtrees, per_task, parts, padded, root;
  } cases[] = {{64, 8, 0, 0, 0, 1}, {0, 40, 7, 0, 1, 0}, {5, 0, 0, 3, 0, 1}, {16, 6, 5, 2, 1, 0}};
  const int n = testing_scheduler_only() ? 1 : (int)(sizeof cases / sizeof *cases);
  for (int c = 0; c < n; c++) {
    split_limit = cases[c].split, subtree_limit = cases[c].subtrees, root_center = cases[c].root;
    size_t values, other;
    element_factors = 0;
    double *rows = run_chunk_kernel(mix, mix_count, neurons, cases[c].per_task, cases[c].parts,
                                    LEVEL_ORDER_AUTO, cases[c].padded, LEVEL_KERNEL_LEVELS, 0,
                                    &model, steps, &values);
    element_factors = 1;
    double *elements = run_chunk_kernel(mix, mix_count, neurons, cases[c].per_task, cases[c].parts,
                                        LEVEL_ORDER_AUTO, cases[c].padded, LEVEL_KERNEL_LEVELS, 0,
                                        &model, steps, &other);
    element_factors = 0;
    assert_int_equal(values, other);
    if (memcmp(rows, elements, values * sizeof(double)) != 0)
      fail_msg("case %d (cut %d, subtrees %d, %s): row factors differ in bits from stored ones", c,
               cases[c].split, cases[c].subtrees, cases[c].padded ? "CP" : "NCP");
    worst_against_reference(mix, mix_count, neurons, &model, steps, rows, "row factors");
    free(rows), free(elements);
  }
  split_limit = subtree_limit = root_center = 0;
}

/* HH everywhere with its rows built apart (a row kernel, one GPU thread an element, before the
 * sweeps; --level-rows apart and the small levels of auto, hinestask's default) against the
 * fused sweeps, with exact rates and with rate tables, through the runtime: the same bits, and
 * with exact rates the sequential reference. On CUDA workers this runs the row kernel, which
 * read address 0 with exact rates (hinestask --hh all --hh-rates exact aborted on the H200).
 * CPU workers always build the rows first, so there the two runs take one path and only the
 * comparison with the reference can fail. */
static void rows_apart_through_runtime_match_fused_rows(void **state) {
  (void)state;
  const int steps = 20, neurons = 2 * mix_count + 3;
  for (int rates = 0; rates < 2; rates++) {
    struct step_model model = stimulated_model(1);
    model.hh_rates = rates ? HH_RATES_TABLE : HH_RATES_EXACT;
    size_t values, other;
    level_rows_mode = LEVEL_ROWS_FUSED;
    double *fused = run_chunk_kernel(mix, mix_count, neurons, 7, 0, LEVEL_ORDER_AUTO, 0,
                                     LEVEL_KERNEL_LEVELS, 0, &model, steps, &values);
    level_rows_mode = LEVEL_ROWS_APART;
    double *apart = run_chunk_kernel(mix, mix_count, neurons, 7, 0, LEVEL_ORDER_AUTO, 0,
                                     LEVEL_KERNEL_LEVELS, 0, &model, steps, &other);
    level_rows_mode = LEVEL_ROWS_FUSED;
    assert_int_equal(values, other);
    if (memcmp(fused, apart, values * sizeof(double)) != 0)
      fail_msg("%s rates: rows apart differ in bits from the fused sweeps",
               rates ? "table" : "exact");
    if (!rates)
      worst_against_reference(mix, mix_count, neurons, &model, steps, apart,
                              "rows apart, exact rates");
    free(fused), free(apart);
  }
}

static int starpu_started;

static int setup(void **state) {
  (void)state;
  load_mix();
  starpu_started = starpu_init(NULL) == 0;
  return starpu_started ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  if (starpu_started)
    starpu_shutdown();
  for (int i = 0; i < mix_count; i++)
    morphology_free(&mix[i]);
  return 0;
}

int main(void) {
  seed_state = testing_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(level_solver_matches_reference_ncp),
      cmocka_unit_test(level_solver_matches_reference_cp),
      cmocka_unit_test(trunk_lists_cover_the_small_levels_once),
      cmocka_unit_test(chunks_built_in_any_order_are_the_same),
      cmocka_unit_test(early_launches_preload_only_what_the_previous_kernel_leaves),
      cmocka_unit_test(height_order_needs_chunk_tasks),
      cmocka_unit_test(per_neuron_baseline_matches_reference),
      cmocka_unit_test(cell_kernel_matches_reference),
      cmocka_unit_test(cell_schedule_covers_each_system_once),
      cmocka_unit_test(shared_kernel_matches_reference),
      cmocka_unit_test(branch_kernel_matches_reference),
      cmocka_unit_test(trunk_of_branches_matches_reference),
      cmocka_unit_test(trunk_of_branches_by_default),
      cmocka_unit_test(flow_kernel_matches_reference),
      cmocka_unit_test(flow_schedule_keeps_order_and_bits),
      cmocka_unit_test(rows_apart_match_fused_sweeps),
      cmocka_unit_test(stored_pivots_match_computed_pivots),
      cmocka_unit_test(subtree_units_cover_each_compartment_once),
      cmocka_unit_test(subtree_systems_match_reference),
      cmocka_unit_test(split_segments_cover_each_branch),
      cmocka_unit_test(split_systems_match_reference),
      cmocka_unit_test(level_solver_bits_do_not_depend_on_chunks),
      cmocka_unit_test(kept_element_constants_keep_bits),
      cmocka_unit_test(centered_roots_match_reference),
      cmocka_unit_test(centered_roots_locate_each_compartment_once),
      cmocka_unit_test(arranged_tail_groups_copies_of_a_cell),
      cmocka_unit_test(arranged_cut_keeps_copies_together),
      cmocka_unit_test(arranged_cut_by_cells_keeps_copies),
      cmocka_unit_test(arranged_cut_one_cell_a_chunk),
      cmocka_unit_test(aligned_cut_starts_rows_on_lines),
      cmocka_unit_test(aligned_share_leaves_no_rest),
      cmocka_unit_test(aligned_lead_keeps_rows_on_lines),
      cmocka_unit_test(row_factors_match_element_factors),
      cmocka_unit_test(row_sweeps_match_branch_sweeps),
      cmocka_unit_test(branch_rows_match_branch_systems),
      cmocka_unit_test(rows_apart_through_runtime_match_fused_rows),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
