/* The one place the codelets' insert helpers submit a task. By default starpu_task_insert; a
 * distributed run (runtime/cluster.h) installs an inserter that submits through StarPU-MPI
 * (starpu_mpi_task_insert, owner-computes) instead. The helpers keep choosing and ordering the
 * buffers; the inserter only decides how the task goes in. */
#ifndef HINES_TASK_INSERT_H
#define HINES_TASK_INSERT_H

#include <starpu.h>

/* One task: the codelet, its buffers in order, its argument block (freed by StarPU), its name,
 * where it may run (0: the codelet's own `where`), and the callback run when it ends. */
struct hines_task_spec {
  struct starpu_codelet *codelet;
  struct starpu_data_descr *buffers;
  int n_buffers;
  void *arguments;
  size_t arguments_size;
  const char *name;
  unsigned long where;
  void (*done)(void *);
  void *done_argument;
};

typedef int (*hines_task_inserter)(const struct hines_task_spec *task);

/* The buffers a step task takes after its own when it samples probes (a sample row >= 0) or
 * checks spikes (a spike step > 0), in that order, the one the step codelets read them in:
 * appended at buffers[*n]. *sample_row becomes -1 without samples, *spike_step 0 without a
 * spike record: what the task's arguments then carry. */
void hines_task_add_step_outputs(struct starpu_data_descr *buffers, int *n,
                                 starpu_data_handle_t samples, int *sample_row,
                                 starpu_data_handle_t spikes, int *spike_step);

/* Submits the task with the inserter installed (starpu_task_insert's status). */
int hines_task_insert(const struct hines_task_spec *task);
/* Installs an inserter; NULL restores starpu_task_insert. */
void hines_task_set_inserter(hines_task_inserter inserter);

#endif
