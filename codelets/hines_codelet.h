/* One macro declares a codelet together with its history-based performance model, as
 * Chameleon does: every hinestask codelet is a fork-join CPU function (OpenMP on the combined
 * worker StarPU grants it), an asynchronous CUDA function on StarPU's local stream when this
 * build compiled the CUDA halves, and takes its buffers' access modes from each task. */
#ifndef HINES_CODELET_H
#define HINES_CODELET_H

#include <limits.h>
#include <starpu.h>
#include <stdlib.h>
#include <string.h>

/* The CUDA halves exist when this build compiled them (CMake's HINESTASK_WITH_CUDA), not merely
 * when the StarPU we link could drive a GPU. */
#if defined(STARPU_USE_CUDA) && defined(HINESTASK_WITH_CUDA)
#define HINES_CUDA_CODELETS 1
#define HINES_CUDA_FIELDS(function) .cuda_funcs = {function}, .cuda_flags = {STARPU_CUDA_ASYNC},
#else
#define HINES_CUDA_FIELDS(function)
#endif

/* Defines `struct starpu_codelet NAME_codelet` (model symbol and trace name "NAME", one colour
 * in traces) from CPU function CPU and CUDA function GPU; FOOTPRINT may be NULL. */
#define HINES_DECLARE_CODELET(NAME, CPU, GPU, FOOTPRINT, COLOUR)                                   \
  static struct starpu_perfmodel NAME##_model = {                                                  \
      .type = STARPU_HISTORY_BASED, .symbol = #NAME, .footprint = FOOTPRINT};                      \
  struct starpu_codelet NAME##_codelet = {.name = #NAME,                                           \
                                          .type = STARPU_FORKJOIN,                                 \
                                          .max_parallelism = INT_MAX,                              \
                                          .cpu_funcs = {CPU},                                      \
                                          .cpu_funcs_name = {#CPU},                                \
                                          HINES_CUDA_FIELDS(GPU).nbuffers =                        \
                                              STARPU_VARIABLE_NBUFFERS,                            \
                                          .model = &NAME##_model,                                  \
                                          .color = COLOUR}

/* Where a task may run when its caller does not restrict it. */
#define HINES_WHERE_ANY (STARPU_CPU | STARPU_CUDA)

/* A private copy of a task's arguments, which StarPU frees when the task is done (the insert
 * helpers pass it with STARPU_CL_ARGS); NULL when out of memory. */
static inline void *codelet_arguments_copy(const void *arguments, size_t size) {
  void *copy = malloc(size);
  if (copy)
    memcpy(copy, arguments, size);
  return copy;
}

#endif
