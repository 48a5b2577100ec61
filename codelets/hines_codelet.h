/* One macro declares a codelet together with its performance model, as Chameleon does (the
 * model predicts any task size: codelets/size_model.h): every hinestask codelet is a fork-join
 * CPU function (OpenMP on the combined worker StarPU grants it), an asynchronous CUDA function
 * (on the streams of codelets/task_streams.h) when this build compiled the CUDA halves, and
 * takes its buffers' access modes from each task. */
#ifndef HINES_CODELET_H
#define HINES_CODELET_H

#include <limits.h>
#include <starpu.h>
#include <stdlib.h>
#include <string.h>

#include "size_model.h"

/* The CUDA halves exist when this build compiled them (CMake's HINESTASK_WITH_CUDA), not merely
 * when the StarPU we link could drive a GPU. */
#if defined(STARPU_USE_CUDA) && defined(HINESTASK_WITH_CUDA)
#define HINES_CUDA_CODELETS 1
#define HINES_CUDA_FIELDS(function) .cuda_funcs = {function}, .cuda_flags = {STARPU_CUDA_ASYNC},
#else
#define HINES_CUDA_FIELDS(function)
#endif

/* Defines `struct starpu_codelet NAME_codelet` (model symbol and trace name "NAME", one colour
 * in traces) from CPU function CPU and CUDA function GPU, with a size model
 * (codelets/size_model.h): SIZE(task) is the task's work in compartment-steps, KIND(task) what
 * besides size sets its cost; CPU_RATE, CUDA_RATE and CUDA_LATENCY are the priors used before
 * anything is measured. The insert helpers pass HINES_SIZE_MODEL_CALLBACK(NAME) so that the
 * measured durations feed the model. */
#define HINES_DECLARE_CODELET(NAME, CPU, GPU, SIZE, KIND, CPU_RATE, CUDA_RATE, CUDA_LATENCY,       \
                              COLOUR)                                                              \
  static const struct size_model NAME##_size_model = {.symbol = #NAME,                             \
                                                      .size = SIZE,                                \
                                                      .kind = KIND,                                \
                                                      .cpu_rate = CPU_RATE,                        \
                                                      .cuda_rate = CUDA_RATE,                      \
                                                      .cuda_latency_us = CUDA_LATENCY};            \
  static double NAME##_model_cost(struct starpu_task *task, struct starpu_perfmodel_arch *arch,    \
                                  unsigned nimpl) {                                                \
    (void)nimpl;                                                                                   \
    return size_model_task_expected_us(&NAME##_size_model, task, arch);                            \
  }                                                                                                \
  static struct starpu_perfmodel NAME##_model = {                                                  \
      .type = STARPU_PER_ARCH, .symbol = #NAME, .arch_cost_function = NAME##_model_cost};          \
  struct starpu_codelet NAME##_codelet = {.name = #NAME,                                           \
                                          .type = STARPU_FORKJOIN,                                 \
                                          .max_parallelism = INT_MAX,                              \
                                          .cpu_funcs = {CPU},                                      \
                                          .cpu_funcs_name = {#CPU},                                \
                                          HINES_CUDA_FIELDS(GPU).nbuffers =                        \
                                              STARPU_VARIABLE_NBUFFERS,                            \
                                          .model = &NAME##_model,                                  \
                                          .color = COLOUR}

/* starpu_task_insert arguments that report the task's measured duration to NAME's size model. */
#define HINES_SIZE_MODEL_CALLBACK(NAME)                                                            \
  STARPU_CALLBACK_WITH_ARG_NFREE, size_model_task_done, (void *)&NAME##_size_model
/* The same callback as the fields of a struct hines_task_spec (task_insert.h). */
#define HINES_SIZE_MODEL_DONE(NAME)                                                                \
  .done = size_model_task_done, .done_argument = (void *)&NAME##_size_model

/* A number that tells tasks of different cost apart (the size models' kinds). */
static inline uint32_t hines_kind_hash(uint32_t hash, uint32_t value) {
  return starpu_hash_crc32c_be(value, hash);
}

/* Gives every hinestask codelet StarPU's own history-based model (same symbols) instead of its
 * size model: StarPU's tools (starpu_perfmodel_display, starpu_perfmodel_plot -i TRACE) then
 * read what the runs measured, at the price of placement that needs a calibration per size.
 * Call before starpu_init. */
void hines_codelets_use_history_models(void);

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
