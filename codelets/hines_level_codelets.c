/* StarPU adapters for the level kernels: OpenMP over the systems of a level block on CPUs (with
 * the threads StarPU grants the task), one thread per system on GPUs. */
#include "hines_level_codelets.h"

#include <limits.h>
#include <omp.h>
#include <string.h>

#define VECTOR(i, type) ((type *)STARPU_VECTOR_GET_PTR(buffers[i]))

static void level_backward_cpu(void *buffers[], void *cl_arg) {
  struct level_step_arguments args;
  memcpy(&args, cl_arg, sizeof args);
  const struct level_block_view v = level_block_describe(VECTOR(0, const int));
#pragma omp parallel for num_threads(starpu_combined_worker_get_size()) schedule(static)
  for (int s = 0; s < v.systems; s++)
    level_backward_system(&v, s, VECTOR(1, const double), &args, VECTOR(2, double),
                          VECTOR(3, double), VECTOR(4, double), VECTOR(5, const double));
}

static void level_forward_cpu(void *buffers[], void *cl_arg) {
  struct level_step_arguments args;
  memcpy(&args, cl_arg, sizeof args);
  const struct level_block_view v = level_block_describe(VECTOR(0, const int));
#pragma omp parallel for num_threads(starpu_combined_worker_get_size()) schedule(static)
  for (int s = 0; s < v.systems; s++)
    level_forward_system(&v, s, VECTOR(1, const double), args.constant_rows, VECTOR(2, double),
                         VECTOR(3, const double), VECTOR(4, const double));
}

#ifdef STARPU_USE_CUDA
/* The block description lives on the GPU; its system count travels in the arguments. */
static void level_backward_gpu(void *buffers[], void *cl_arg) {
  struct level_step_arguments args;
  memcpy(&args, cl_arg, sizeof args);
  int status = level_backward_cuda(VECTOR(0, const int), args.systems, VECTOR(1, const double),
                                   &args, VECTOR(2, double), VECTOR(3, double), VECTOR(4, double),
                                   VECTOR(5, const double), starpu_cuda_get_local_stream());
  if (status)
    STARPU_CUDA_REPORT_ERROR((cudaError_t)status);
}

static void level_forward_gpu(void *buffers[], void *cl_arg) {
  struct level_step_arguments args;
  memcpy(&args, cl_arg, sizeof args);
  int status = level_forward_cuda(VECTOR(0, const int), args.systems, VECTOR(1, const double),
                                  args.constant_rows, VECTOR(2, double), VECTOR(3, const double),
                                  VECTOR(4, const double), starpu_cuda_get_local_stream());
  if (status)
    STARPU_CUDA_REPORT_ERROR((cudaError_t)status);
}
#endif

static struct starpu_perfmodel level_backward_model = {.type = STARPU_HISTORY_BASED,
                                                       .symbol = "level_backward"};
static struct starpu_perfmodel level_forward_model = {.type = STARPU_HISTORY_BASED,
                                                      .symbol = "level_forward"};

struct starpu_codelet level_backward_codelet = {
    .name = "level_backward",
    .type = STARPU_FORKJOIN,
    .max_parallelism = INT_MAX,
    .cpu_funcs = {level_backward_cpu},
    .cpu_funcs_name = {"level_backward_cpu"},
#ifdef STARPU_USE_CUDA
    .cuda_funcs = {level_backward_gpu},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = 6,
    .modes = {STARPU_R, STARPU_R, STARPU_RW, STARPU_W, STARPU_W, STARPU_R},
    .model = &level_backward_model,
    .color = 0x2ca02c,
};

struct starpu_codelet level_forward_codelet = {
    .name = "level_forward",
    .type = STARPU_FORKJOIN,
    .max_parallelism = INT_MAX,
    .cpu_funcs = {level_forward_cpu},
    .cpu_funcs_name = {"level_forward_cpu"},
#ifdef STARPU_USE_CUDA
    .cuda_funcs = {level_forward_gpu},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = 5,
    .modes = {STARPU_R, STARPU_R, STARPU_RW, STARPU_R, STARPU_R},
    .model = &level_forward_model,
    .color = 0xd62728,
};
