#include "placement.h"

#include <starpu.h>

int placement_neurons_per_task(int requested, int n_neurons, int granule) {
  if (requested > 0)
    return requested;
  int cuda = (int)starpu_cuda_worker_get_count(), cpu = (int)starpu_cpu_worker_get_count();
  int chunks = cuda > 0 ? cuda : 4 * (cpu > 0 ? cpu : 1);
  int per_task = (n_neurons + chunks - 1) / chunks;
  if (granule > 1)
    per_task = (per_task + granule - 1) / granule * granule;
  return per_task < 1 ? 1 : per_task;
}

unsigned long placement_where(int requested) {
  return requested <= 0 && starpu_cuda_worker_get_count() > 0 ? STARPU_CUDA
                                                              : STARPU_CPU | STARPU_CUDA;
}
