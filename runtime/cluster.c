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

static const char *const size_variables[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
                                             NULL};
static const char *const rank_variables[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                             NULL};

static const char *const node_size_variables[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
                                                  NULL};

int cluster_node_size(void) {
  int ranks = cluster_launched() ? from_environment(node_size_variables, 1) : 1;
  return ranks > 0 ? ranks : 1;
}

#ifdef HINESTASK_WITH_MPI
#include <mpi.h>
#include <starpu_mpi.h>

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
void cluster_barrier(void) {
}
void cluster_finish(void) {
}
void cluster_abort(int status) {
  exit(status);
}
#endif
