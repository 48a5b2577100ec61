/* StarPU adapters for the level kernels: OpenMP over the systems of a level block on CPUs (with
 * the threads StarPU grants the task), one thread per system on GPUs. */
#include "hines_level_codelets.h"

#include <limits.h>
#include <omp.h>
#include <string.h>

#define VECTOR(i, type) ((type *)STARPU_VECTOR_GET_PTR(buffers[i]))

/* The gates are a seventh buffer when the batch carries Hodgkin-Huxley channels. */
static double *backward_gates(void *buffers[]) {
  return STARPU_TASK_GET_NBUFFERS(starpu_task_get_current()) > 6 ? VECTOR(6, double) : NULL;
}

static void level_backward_cpu(void *buffers[], void *cl_arg) {
  struct level_step_arguments args;
  memcpy(&args, cl_arg, sizeof args);
  double *gates = backward_gates(buffers);
  const struct level_block_view v = level_block_describe(VECTOR(0, const int));
#pragma omp parallel for num_threads(starpu_combined_worker_get_size()) schedule(static)
  for (int s = 0; s < v.systems; s++)
    level_backward_system(&v, s, VECTOR(1, const double), &args, VECTOR(2, double),
                          VECTOR(3, double), VECTOR(4, double), VECTOR(5, const double), gates);
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

/* The buffers of a chunk_step task, in codelet order (gates only with HH channels). */
struct chunk_buffers {
  const int *ints;
  const double *constants;
  double *voltage, *pivot, *contribution, *gates;
};

static struct chunk_buffers chunk_buffers_of(void *buffers[]) {
  return (struct chunk_buffers){
      .ints = VECTOR(0, const int),
      .constants = VECTOR(1, const double),
      .voltage = VECTOR(2, double),
      .pivot = VECTOR(3, double),
      .contribution = VECTOR(4, double),
      .gates = STARPU_TASK_GET_NBUFFERS(starpu_task_get_current()) > 5 ? VECTOR(5, double) : NULL};
}

static void chunk_step_cpu(void *buffers[], void *cl_arg) {
  struct chunk_step_arguments args;
  memcpy(&args, cl_arg, sizeof args);
  const struct chunk_levels *levels = args.levels;
  const struct chunk_buffers b = chunk_buffers_of(buffers);
  const int *ints = b.ints;
  const double *constants = b.constants;
  double *voltage = b.voltage, *pivot = b.pivot, *contribution = b.contribution, *gates = b.gates;
  const int threads = starpu_combined_worker_get_size();
  for (int level = levels->n_levels - 1; level >= 0; level--) {
    const struct level_block_view v = level_block_describe(ints + levels->ints_offset[level]);
    const size_t e = levels->element_offset[level];
    /* the deepest level has no children: it never reads its child contributions */
    const double *children =
        contribution + 2 * (level + 1 < levels->n_levels ? levels->system_offset[level + 1] : 0);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int s = 0; s < v.systems; s++)
      level_backward_system(&v, s, constants, &args.step, voltage + e, pivot + e,
                            contribution + 2 * levels->system_offset[level], children,
                            gates ? gates + 3 * e : NULL);
  }
  for (int level = 0; level < levels->n_levels; level++) {
    const struct level_block_view v = level_block_describe(ints + levels->ints_offset[level]);
    const size_t e = levels->element_offset[level];
    const double *parent = voltage + (level > 0 ? levels->element_offset[level - 1] : 0);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int s = 0; s < v.systems; s++)
      level_forward_system(&v, s, constants, args.step.constant_rows, voltage + e, pivot + e,
                           parent);
  }
}

#ifdef HINES_CUDA_CODELETS
static void chunk_step_gpu(void *buffers[], void *cl_arg) {
  struct chunk_step_arguments args;
  memcpy(&args, cl_arg, sizeof args);
  const struct chunk_levels *levels = args.levels;
  const struct chunk_buffers b = chunk_buffers_of(buffers);
  const int *ints = b.ints;
  const double *constants = b.constants;
  double *voltage = b.voltage, *pivot = b.pivot, *contribution = b.contribution, *gates = b.gates;
  cudaStream_t stream = starpu_cuda_get_local_stream();
  int status = 0;
  for (int level = levels->n_levels - 1; level >= 0 && !status; level--) {
    const size_t e = levels->element_offset[level];
    const double *children =
        contribution + 2 * (level + 1 < levels->n_levels ? levels->system_offset[level + 1] : 0);
    args.step.systems = levels->systems[level];
    status = level_backward_cuda(ints + levels->ints_offset[level], levels->systems[level],
                                 constants, &args.step, voltage + e, pivot + e,
                                 contribution + 2 * levels->system_offset[level], children,
                                 gates ? gates + 3 * e : NULL, stream);
  }
  for (int level = 0; level < levels->n_levels && !status; level++) {
    const size_t e = levels->element_offset[level];
    const double *parent = voltage + (level > 0 ? levels->element_offset[level - 1] : 0);
    status =
        level_forward_cuda(ints + levels->ints_offset[level], levels->systems[level], constants,
                           args.step.constant_rows, voltage + e, pivot + e, parent, stream);
  }
  if (status)
    STARPU_CUDA_REPORT_ERROR((cudaError_t)status);
}

/* The block description lives on the GPU; its system count travels in the arguments. */
static void level_backward_gpu(void *buffers[], void *cl_arg) {
  struct level_step_arguments args;
  memcpy(&args, cl_arg, sizeof args);
  int status = level_backward_cuda(VECTOR(0, const int), args.systems, VECTOR(1, const double),
                                   &args, VECTOR(2, double), VECTOR(3, double), VECTOR(4, double),
                                   VECTOR(5, const double), backward_gates(buffers),
                                   starpu_cuda_get_local_stream());
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

/* block (R), constants (R), voltage (RW), pivot (W), contribution (W), child contribution (R)
 * [, gates (RW)] */
HINES_DECLARE_CODELET(level_backward, level_backward_cpu, level_backward_gpu, NULL, 0x2ca02c);
/* block (R), constants (R), voltage (RW), pivot (R), parent voltage (R) */
HINES_DECLARE_CODELET(level_forward, level_forward_cpu, level_forward_gpu, NULL, 0xd62728);
/* ints (R), constants (R), voltage (RW), pivot (W), contribution (W) [, gates (RW)] */
HINES_DECLARE_CODELET(chunk_step, chunk_step_cpu, chunk_step_gpu, NULL, 0x9467bd);
