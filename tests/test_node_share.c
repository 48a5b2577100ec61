/* How the ranks of one node share it (runtime/cluster.h, cluster_share_node_for): each rank its
 * own GPU and its own slice of cores, set through StarPU's variables, and whatever the user or
 * the launcher chose left alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cluster.h"
#include "testing.h"

static const char *const variables[] = {"STARPU_WORKERS_CUDAID",
                                        "STARPU_NCUDA",
                                        "STARPU_WORKERS_COREID",
                                        "STARPU_WORKERS_CPUID",
                                        "STARPU_WORKERS_NOBIND",
                                        "STARPU_WORKERS_GETBIND",
                                        "STARPU_NCPU",
                                        "STARPU_NCPUS",
                                        "STARPU_MPI_THREAD_COREID",
                                        "STARPU_MPI_THREAD_CPUID"};

static void clear_variables(void) {
  for (size_t i = 0; i < sizeof variables / sizeof *variables; i++)
    unsetenv(variables[i]);
}

static void assert_variable(const char *name, const char *expected) {
  const char *value = getenv(name);
  if (!expected) {
    if (value)
      fail_msg("%s=%s, expected unset", name, value);
    return;
  }
  if (!value)
    fail_msg("%s unset, expected %s", name, expected);
  assert_string_equal(value, expected);
}

static void two_ranks_two_gpus(void **state) {
  (void)state;
  struct cluster_node_share share;
  const char *coreid[] = {"0-14", "16-30"}, *mpi_core[] = {"15", "31"}, *gpu[] = {"0", "1"};
  for (int me = 0; me < 2; me++) {
    clear_variables();
    cluster_share_node_for(2, me, 32, 2, &share);
    assert_int_equal(share.gpu, me);
    assert_int_equal(share.first_core, 16 * me);
    assert_int_equal(share.last_core, 16 * me + 15);
    assert_variable("STARPU_WORKERS_CUDAID", gpu[me]);
    assert_variable("STARPU_NCUDA", "1");
    assert_variable("STARPU_WORKERS_COREID", coreid[me]);
    assert_variable("STARPU_MPI_THREAD_COREID", mpi_core[me]);
    /* 16 cores: the MPI thread's, the GPU's driver thread's, 14 CPU workers */
    assert_variable("STARPU_NCPU", "14");
  }
}

static void slices_are_disjoint_and_cover(void **state) {
  (void)state;
  uint64_t seed = testing_seed();
  for (int trial = 0; trial < 500; trial++) {
    const int ranks = 2 + testing_below(&seed, 16);
    const int cores = 2 * ranks + testing_below(&seed, 200), gpus = testing_below(&seed, 9);
    int next = 0;
    for (int me = 0; me < ranks; me++) {
      clear_variables();
      struct cluster_node_share share;
      cluster_share_node_for(ranks, me, cores, gpus, &share);
      assert_int_equal(share.first_core, next);
      assert_true(share.last_core - share.first_core >= 1); /* a worker core and the MPI one */
      next = share.last_core + 1;
      assert_int_equal(share.gpu, gpus > 1 ? me % gpus : -1);
      const int workers = atoi(getenv("STARPU_NCPU"));
      const int drivers = gpus > 1 ? 1 : gpus;
      /* never more threads than cores in the slice */
      assert_true(workers + drivers + 1 <= share.last_core - share.first_core + 1 || workers == 0);
    }
    assert_int_equal(next, cores);
  }
}

static void choices_made_elsewhere_stand(void **state) {
  (void)state;
  struct cluster_node_share share;
  /* the launcher showed each rank one GPU (CUDA_VISIBLE_DEVICES): no GPU choice, one driver */
  clear_variables();
  cluster_share_node_for(2, 1, 32, 1, &share);
  assert_int_equal(share.gpu, -1);
  assert_variable("STARPU_WORKERS_CUDAID", NULL);
  assert_variable("STARPU_NCUDA", NULL);
  assert_variable("STARPU_NCPU", "14");
  /* the user's own binding, GPU and worker counts */
  const char *user[][2] = {{"STARPU_WORKERS_CPUID", "3 4"},
                           {"STARPU_WORKERS_COREID", "1-2"},
                           {"STARPU_WORKERS_NOBIND", "1"},
                           {"STARPU_WORKERS_GETBIND", "1"}};
  for (size_t i = 0; i < sizeof user / sizeof *user; i++) {
    clear_variables();
    setenv(user[i][0], user[i][1], 1);
    setenv("STARPU_NCUDA", "2", 1);
    cluster_share_node_for(2, 0, 32, 2, &share);
    assert_int_equal(share.first_core, -1);
    assert_int_equal(share.gpu, -1);
    assert_variable(user[i][0], user[i][1]);
    assert_variable("STARPU_NCUDA", "2");
    assert_variable("STARPU_WORKERS_CUDAID", NULL);
    assert_variable("STARPU_NCPU", NULL);
    assert_variable("STARPU_MPI_THREAD_COREID", NULL);
  }
  clear_variables();
  setenv("STARPU_NCPU", "3", 1);
  setenv("STARPU_MPI_THREAD_CPUID", "7", 1);
  cluster_share_node_for(2, 0, 32, 0, &share);
  assert_variable("STARPU_WORKERS_COREID", "0-14");
  assert_variable("STARPU_NCPU", "3");
  assert_variable("STARPU_MPI_THREAD_CPUID", "7");
  assert_variable("STARPU_MPI_THREAD_COREID", NULL);
}

static void alone_or_crowded_nodes_unchanged(void **state) {
  (void)state;
  struct cluster_node_share share;
  clear_variables();
  cluster_share_node_for(1, 0, 64, 4, &share); /* one rank on its node: StarPU's own defaults */
  for (size_t i = 0; i < sizeof variables / sizeof *variables; i++)
    assert_variable(variables[i], NULL);
  assert_int_equal(share.gpu, -1);
  clear_variables();
  cluster_share_node_for(3, 2, 5, 0, &share); /* fewer than two cores a rank: no slices */
  for (size_t i = 0; i < sizeof variables / sizeof *variables; i++)
    assert_variable(variables[i], NULL);
  assert_int_equal(share.first_core, -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(two_ranks_two_gpus),
      cmocka_unit_test(slices_are_disjoint_and_cover),
      cmocka_unit_test(choices_made_elsewhere_stand),
      cmocka_unit_test(alone_or_crowded_nodes_unchanged),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
