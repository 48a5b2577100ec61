/* Distributed runs: one batch spread over the processes of `mpirun -np N`, each rank computing
 * a contiguous share of the neurons (runtime/distribution.h) on its own CPUs and GPUs through
 * its own StarPU, started by StarPU-MPI. Every piece of data a rank's tasks use is registered
 * with starpu_mpi_data_register as owned by that rank, and every task goes in through
 * starpu_mpi_task_insert (codelets/task_insert.h): owner-computes runs it where its data lives,
 * so the time loop sends nothing between ranks. Results meet on rank 0 through MPI collectives
 * on what StarPU hands back, once the ranks' StarPU has stopped.
 *
 * Without StarPU-MPI at build time (HINESTASK_WITH_MPI undefined), or when the program was not
 * started by an MPI launcher, cluster_launched() is 0 and everything here is a no-op for one
 * process of rank 0: the program runs exactly as it does alone. */
#ifndef HINES_CLUSTER_H
#define HINES_CLUSTER_H

#include <stddef.h>

#include "hines_status.h"

/* 1 when the program was started by mpirun (Open MPI's OMPI_COMM_WORLD_SIZE, or PMI_SIZE) and
 * built with StarPU-MPI. */
int cluster_launched(void);
/* 1 when built with StarPU-MPI. */
int cluster_built_with_mpi(void);
/* This process's rank and the number of ranks: from the launcher's environment before
 * cluster_init (so that bad input is refused identically on every rank before MPI starts),
 * from MPI after it; 0 and 1 when not launched. */
int cluster_rank(void);
int cluster_size(void);
/* Ranks on this node (the launcher's OMPI_COMM_WORLD_LOCAL_SIZE or MPI_LOCALNRANKS; 1 if
 * unknown or not launched). */
int cluster_node_size(void);
/* This process's rank among the ranks of its node (OMPI_COMM_WORLD_LOCAL_RANK or
 * MPI_LOCALRANKID; 0 if unknown or not launched). */
int cluster_node_rank(void);
/* How the ranks of one node share it out, decided by cluster_share_node. */
struct cluster_node_share {
  int node_ranks, node_rank;
  int gpu;                   /* the one GPU this rank drives, -1 if not chosen here */
  int first_core, last_core; /* this rank's cores (hwloc logical numbers), -1 if not chosen */
};
/* Before StarPU starts, with several ranks on one node: gives each rank its own GPU (rank k of
 * the node: GPU k modulo the GPUs it sees) and its own contiguous slice of the node's cores, by
 * setting StarPU's variables (STARPU_WORKERS_CUDAID/NCUDA, STARPU_WORKERS_COREID,
 * STARPU_MPI_THREAD_COREID, STARPU_NCPU) where neither the user nor the launcher chose. */
void cluster_share_node(struct cluster_node_share *share);
/* The rule itself, for rank `me` of `ranks` on a node of `cores` cores and `gpus` GPUs (what
 * cluster_share_node finds with hwloc and CUDA): sets the variables, fills `share`. */
void cluster_share_node_for(int ranks, int me, int cores, int gpus,
                            struct cluster_node_share *share);
/* Starts MPI (MPI_THREAD_SERIALIZED, as StarPU-MPI needs). HINES_FAILURE with a message. */
int cluster_init(struct hines_error *err);
/* Starts StarPU through StarPU-MPI on MPI_COMM_WORLD (MPI already started by cluster_init) and
 * installs the StarPU-MPI task inserter; returns starpu_mpi_init_conf's status. */
struct starpu_conf;
int cluster_starpu_init(struct starpu_conf *conf);
/* Waits for this rank's tasks and stops StarPU-MPI and StarPU. MPI stays up for the gathers. */
void cluster_starpu_shutdown(void);
/* Sums `n` doubles over the ranks into rank 0's array (others' arrays are left as they were).
 * A rank holding zeros where another holds the value gives that value exactly. */
void cluster_sum_to_root(double *values, long long n);
/* Rank 0 receives `bytes` bytes from every rank, in rank order, into all (size * bytes). */
void cluster_gather_to_root(const void *mine, int bytes, void *all);
/* The largest of the ranks' values, on every rank. */
int cluster_max(int value);
void cluster_barrier(void);
/* Ends MPI (every rank, at the end of main). */
void cluster_finish(void);
/* Stops every rank (MPI_Abort) with `status`, after a rank could not go on. */
void cluster_abort(int status);

#endif
