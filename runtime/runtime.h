/* StarPU start-up and shutdown for hinestask: scheduler validation, worker census, traces. */
#ifndef HINES_RUNTIME_H
#define HINES_RUNTIME_H

#include <stdio.h>

#include "morphology.h"

struct runtime_options {
  int quiet;
  int tracing; /* trace_prepare was called: keep the FxT trace on */
};

/* Checks STARPU_SCHED against StarPU's policies (HINES_BAD_INPUT with the list if unknown), then
 * starts StarPU. */
int runtime_start(const struct runtime_options *options, struct hines_error *err);
void runtime_stop(void);

/* STARPU_SCHED and the worker counts of the environment; HINES_BAD_INPUT if unusable. */
int runtime_check_environment(struct hines_error *err);
/* Returns HINES_OK, or HINES_BAD_INPUT naming the policies StarPU offers. */
int runtime_check_scheduler(const char *name, struct hines_error *err);
/* The policy in use (StarPU's default when STARPU_SCHED is unset). */
const char *runtime_scheduler(void);
/* The worker counts and the CUDA workers' names (StarPU's, e.g. "CUDA 0.0 (NVIDIA H100 ...)"),
 * as runtime_start found them; still valid after runtime_stop. */
int runtime_cpu_workers(void);
int runtime_cuda_workers(void);
/* GPUs driven by the CUDA workers (several workers may share one), and the name of each. */
int runtime_gpu_count(void);
const char *runtime_gpu_name(int i);
/* The StarPU library's version, "1.3.10". */
const char *runtime_starpu_version(void);
void runtime_describe(FILE *out);

#endif
