#include "cluster.h"

#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "task_insert.h"

static int from_environment(const char *const *names, int fallback) {
  for (int i = 0; names[i]; i++) {
    const char *value = getenv(names[i]);
    if (value && *value)
      return atoi(value);
  }
  return fallback;
}

static const char *const size_variables[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", NULL};
static const char *const rank_variables[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", NULL};

static const char *const node_size_variables[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
                                                  NULL};
static const char *const node_rank_variables[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                                  NULL};

int cluster_node_size(void) {
  int ranks = cluster_launched() ? from_environment(node_size_variables, 1) : 1;
  return ranks > 0 ? ranks : 1;
}

int cluster_node_rank(void) {
  int rank = cluster_launched() ? from_environment(node_rank_variables, 0) : 0;
  return rank >= 0 && rank < cluster_node_size() ? rank : 0;
}

static int is_set(const char *name) {
  const char *value = getenv(name);
  return value && *value;
}

static void set_number(const char *name, int value) {
  char text[32];
  snprintf(text, sizeof text, "%d", value);
  setenv(name, text, 1);
}

void cluster_share_node_for(int ranks, int me, int cores, int gpus,
                            struct cluster_node_share *share) {
  memset(share, 0, sizeof *share);
  share->node_ranks = ranks;
  share->node_rank = me;
  share->first_core = share->last_core = share->gpu = -1;
  if (ranks <= 1)
    return;
  /* GPUs: rank k of the node takes GPU k (round robin when ranks outnumber GPUs). Without this
   * every rank's StarPU drives every GPU of the node, and the ranks' tasks meet on them. A
   * launcher or user that already chose (CUDA_VISIBLE_DEVICES per rank, STARPU_WORKERS_CUDAID,
   * STARPU_NCUDA) is left alone. */
  const int chose_gpus = is_set("STARPU_WORKERS_CUDAID") || is_set("STARPU_NCUDA");
  if (!chose_gpus && gpus > 1) {
    share->gpu = me % gpus;
    set_number("STARPU_WORKERS_CUDAID", share->gpu);
    setenv("STARPU_NCUDA", "1", 1);
  }
  /* Cores: each StarPU binds its threads from the node's first cores, so without a share the
   * ranks' CUDA driver threads, CPU workers and StarPU-MPI threads land on the same cores and
   * spin against each other (H200 x2, 2 ranks x 1 GPU: 0.97x one rank). Rank k gets the k-th
   * contiguous slice of the node's cores (hwloc's logical order, as StarPU numbers them): its
   * workers on all but the last, StarPU-MPI's thread on the last, and by default one CPU worker
   * per core the GPUs' driver threads leave. Users binding themselves (STARPU_WORKERS_CPUID,
   * _COREID, _NOBIND, _GETBIND) are left alone, and so are nodes with fewer than two cores per
   * rank. */
  if (is_set("STARPU_WORKERS_CPUID") || is_set("STARPU_WORKERS_COREID") ||
      is_set("STARPU_WORKERS_NOBIND") || is_set("STARPU_WORKERS_GETBIND"))
    return;
  if (cores < 2 * ranks)
    return;
  const int first = (int)((long long)cores * me / ranks);
  const int last = (int)((long long)cores * (me + 1) / ranks) - 1;
  share->first_core = first;
  share->last_core = last;
  char list[64];
  snprintf(list, sizeof list, "%d-%d", first, last - 1);
  setenv("STARPU_WORKERS_COREID", list, 1);
  if (!is_set("STARPU_MPI_THREAD_CPUID") && !is_set("STARPU_MPI_THREAD_COREID"))
    set_number("STARPU_MPI_THREAD_COREID", last);
  if (!is_set("STARPU_NCPU") && !is_set("STARPU_NCPUS")) {
    int drivers = is_set("STARPU_NCUDA") ? atoi(getenv("STARPU_NCUDA")) : gpus;
    int workers = last - first - (drivers > 0 ? drivers : 0);
    set_number("STARPU_NCPU", workers > 0 ? workers : 0);
  }
}

#ifdef HINESTASK_WITH_MPI
#include <hwloc.h>
#include <mpi.h>
#include <starpu_mpi.h>
#ifdef HINESTASK_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

static int started, my_rank = -1, my_size;

int cluster_built_with_mpi(void) {
  return 1;
}

int cluster_launched(void) {
  return from_environment(size_variables, 0) >= 1;
}

int cluster_rank(void) {
  if (started)
    return my_rank;
  return cluster_launched() ? from_environment(rank_variables, 0) : 0;
}

int cluster_size(void) {
  if (started)
    return my_size;
  return cluster_launched() ? from_environment(size_variables, 1) : 1;
}

int cluster_init(struct hines_error *err) {
  int provided = 0;
  if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    return hines_fail(err, HINES_FAILURE, "MPI failed to start");
  if (provided < MPI_THREAD_SERIALIZED)
    return hines_fail(err, HINES_FAILURE,
                      "the MPI library offers no MPI_THREAD_SERIALIZED, which StarPU-MPI needs");
  MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &my_size);
  started = 1;
  return HINES_OK;
}

/* Every handle a task uses is registered once, the first time, as this rank's own (a partition's
 * children too: StarPU-MPI looks at the handles the task names). The mark is the handle's user
 * data, which StarPU clears for every new handle. */
static char registered_mark;
static starpu_mpi_tag_t next_tag = 1;

static int insert_through_mpi(const struct hines_task_spec *t) {
  for (int i = 0; i < t->n_buffers; i++) {
    starpu_data_handle_t h = t->buffers[i].handle;
    if (starpu_data_get_user_data(h) != &registered_mark) {
      starpu_mpi_data_register(h, next_tag++, my_rank);
      starpu_data_set_user_data(h, &registered_mark);
    }
  }
  if (t->where)
    return starpu_mpi_task_insert(MPI_COMM_WORLD, t->codelet, STARPU_DATA_MODE_ARRAY, t->buffers,
                                  t->n_buffers, STARPU_CL_ARGS, t->arguments, t->arguments_size,
                                  STARPU_NAME, t->name, STARPU_EXECUTE_WHERE, t->where,
                                  STARPU_CALLBACK_WITH_ARG_NFREE, t->done, t->done_argument, 0);
  return starpu_mpi_task_insert(MPI_COMM_WORLD, t->codelet, STARPU_DATA_MODE_ARRAY, t->buffers,
                                t->n_buffers, STARPU_CL_ARGS, t->arguments, t->arguments_size,
                                STARPU_NAME, t->name, STARPU_CALLBACK_WITH_ARG_NFREE, t->done,
                                t->done_argument, 0);
}

/* GPUs this process can see (CUDA_VISIBLE_DEVICES applied), 0 without CUDA. */
static int visible_gpus(void) {
#ifdef HINESTASK_WITH_CUDA
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
#else
  return 0;
#endif
}

void cluster_share_node(struct cluster_node_share *share) {
  const int ranks = cluster_node_size();
  if (ranks <= 1) { /* no hwloc or CUDA start-up for a rank alone on its node */
    cluster_share_node_for(1, 0, 0, 0, share);
    return;
  }
  /* The node's cores as hwloc (and so StarPU) sees them: what cgroups allow. */
  hwloc_topology_t topology;
  int cores = 0, loaded = 0;
  const int initialized = hwloc_topology_init(&topology) == 0;
  if (initialized) {
    loaded = hwloc_topology_load(topology) == 0;
    if (loaded)
      cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
  }
  cluster_share_node_for(ranks, cluster_node_rank(), cores > 0 ? cores : 0, visible_gpus(), share);
  /* The main thread (it submits the tasks) onto the rank's slice too, whatever the launcher
   * bound it to: Open MPI binds each of two ranks to one core by default, which may be a core
   * of the other rank's slice. */
  if (loaded && share->first_core >= 0) {
    hwloc_bitmap_t slice = hwloc_bitmap_alloc();
    for (int c = share->first_core; c <= share->last_core; c++) {
      hwloc_obj_t core = hwloc_get_obj_by_type(topology, HWLOC_OBJ_CORE, (unsigned)c);
      if (core)
        hwloc_bitmap_or(slice, slice, core->cpuset);
    }
    if (hwloc_set_cpubind(topology, slice, HWLOC_CPUBIND_THREAD) != 0)
      fprintf(stderr, "warning: rank %d could not bind its main thread to cores %d-%d\n",
              cluster_rank(), share->first_core, share->last_core);
    hwloc_bitmap_free(slice);
  }
  if (initialized)
    hwloc_topology_destroy(topology);
}

int cluster_starpu_init(struct starpu_conf *conf) {
  int ret = starpu_mpi_init_conf(NULL, NULL, 0, MPI_COMM_WORLD, conf);
  if (ret == 0)
    hines_task_set_inserter(insert_through_mpi);
  return ret;
}

void cluster_starpu_shutdown(void) {
  starpu_task_wait_for_all();
  hines_task_set_inserter(NULL);
  starpu_mpi_shutdown();
}

void cluster_sum_to_root(double *values, long long n) {
  if (!started)
    return;
  const long long slice = 1 << 24;
  for (long long at = 0; at < n; at += slice) {
    int count = (int)(n - at < slice ? n - at : slice);
    if (my_rank == 0)
      MPI_Reduce(MPI_IN_PLACE, values + at, count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    else
      MPI_Reduce(values + at, NULL, count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  }
}

void cluster_gather_to_root(const void *mine, int bytes, void *all) {
  if (!started)
    return;
  MPI_Gather(mine, bytes, MPI_BYTE, all, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
}

int cluster_max(int value) {
  if (!started)
    return value;
  int result = value;
  MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return result;
}

void cluster_barrier(void) {
  if (started)
    MPI_Barrier(MPI_COMM_WORLD);
}

void cluster_finish(void) {
  if (started)
    MPI_Finalize();
  started = 0;
}

void cluster_abort(int status) {
  fflush(stdout);
  fflush(stderr);
  if (started)
    MPI_Abort(MPI_COMM_WORLD, status);
  exit(status);
}

#else /* one process: what hinestask has always been */

int cluster_built_with_mpi(void) {
  return 0;
}
int cluster_launched(void) {
  (void)size_variables, (void)rank_variables, (void)from_environment;
  return 0;
}
int cluster_rank(void) {
  return 0;
}
int cluster_size(void) {
  return 1;
}
int cluster_init(struct hines_error *err) {
  return hines_fail(err, HINES_FAILURE, "this hinestask was built without StarPU-MPI");
}
void cluster_share_node(struct cluster_node_share *share) {
  (void)node_rank_variables;
  cluster_share_node_for(1, 0, 0, 0, share);
}
int cluster_starpu_init(struct starpu_conf *conf) {
  return starpu_init(conf);
}
void cluster_starpu_shutdown(void) {
  starpu_shutdown();
}
void cluster_sum_to_root(double *values, long long n) {
  (void)values, (void)n;
}
void cluster_gather_to_root(const void *mine, int bytes, void *all) {
  if (all != mine)
    memcpy(all, mine, (size_t)bytes);
}
int cluster_max(int value) {
  return value;
}
void cluster_barrier(void) {}
void cluster_finish(void) {}
void cluster_abort(int status) {
  exit(status);
}
#endif
