#include "task_insert.h"

static hines_task_inserter installed;

static int insert_locally(const struct hines_task_spec *t) {
  if (t->where)
    return starpu_task_insert(t->codelet, STARPU_DATA_MODE_ARRAY, t->buffers, t->n_buffers,
                              STARPU_CL_ARGS, t->arguments, t->arguments_size, STARPU_NAME, t->name,
                              STARPU_EXECUTE_WHERE, t->where, STARPU_CALLBACK_WITH_ARG_NFREE,
                              t->done, t->done_argument, 0);
  return starpu_task_insert(t->codelet, STARPU_DATA_MODE_ARRAY, t->buffers, t->n_buffers,
                            STARPU_CL_ARGS, t->arguments, t->arguments_size, STARPU_NAME, t->name,
                            STARPU_CALLBACK_WITH_ARG_NFREE, t->done, t->done_argument, 0);
}

int hines_task_insert(const struct hines_task_spec *task) {
  return installed ? installed(task) : insert_locally(task);
}

void hines_task_set_inserter(hines_task_inserter inserter) {
  installed = inserter;
}

void hines_task_add_step_outputs(struct starpu_data_descr *buffers, int *n,
                                 starpu_data_handle_t samples, int *sample_row,
                                 starpu_data_handle_t spikes, int *spike_step) {
  if (samples && *sample_row >= 0)
    buffers[(*n)++] = (struct starpu_data_descr){samples, STARPU_RW};
  else
    *sample_row = -1;
  if (spikes && *spike_step > 0)
    buffers[(*n)++] = (struct starpu_data_descr){spikes, STARPU_RW};
  else
    *spike_step = 0;
}
