#include "batch_fill.h"

#include "hines_codelet.h"

struct batch_fill_arguments {
  batch_fill_function fill;
  void *argument;
  int piece;
  double bytes;
};

static void batch_fill_cpu(void *buffers[], void *cl_arg) {
  (void)buffers;
  const struct batch_fill_arguments *a = cl_arg;
  a->fill(a->argument, a->piece);
}

/* The model's size is the doubles a task writes (8 bytes each) */
static double fill_size(struct starpu_task *task) {
  return ((const struct batch_fill_arguments *)task->cl_arg)->bytes / sizeof(double);
}
static uint32_t fill_kind(struct starpu_task *task) {
  (void)task;
  return 0;
}

/* No CUDA function: a fill writes host memory. The prior, about 2 GB/s a core for pages written
 * the first time (zeroed by the kernel, then filled), only orders the pieces among the cores:
 * the fills are never measured (their tasks carry no model callback), and they are the only
 * tasks in flight while a batch is built. Not in hines_codelets_use_history_models's list: a
 * history model would want each piece's size calibrated first. */
HINES_DECLARE_CODELET(batch_fill, batch_fill_cpu, NULL, fill_size, fill_kind, 250.0, 1.0, 0.0,
                      0x7f7f7f);

struct starpu_task *batch_fill_task(batch_fill_function fill, void *argument, int piece,
                                    double bytes) {
  struct batch_fill_arguments *a = malloc(sizeof *a);
  struct starpu_task *task = a ? starpu_task_create() : NULL;
  if (!task) {
    free(a);
    return NULL;
  }
  *a = (struct batch_fill_arguments){fill, argument, piece, bytes};
  task->cl = &batch_fill_codelet;
  task->cl_arg = a;
  task->cl_arg_size = sizeof *a;
  task->cl_arg_free = 1;
  task->name = batch_fill_codelet.name;
  task->detach = 0;
  task->destroy = 1;
  return task;
}
