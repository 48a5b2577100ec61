#include "probe_set.h"

#include <stdlib.h>
#include <string.h>

#include "probe_samples.h"

int probe_set_create(struct probe_set *set, int n_groups, int n, const int *group,
                     const long long *x, const long long *y, int rows, struct hines_error *err) {
  *set = (struct probe_set){.n_probes = n, .rows = rows, .n_groups = n_groups};
  if (n == 0)
    return HINES_OK;
  set->values = calloc((size_t)n_groups, sizeof *set->values);
  set->handles = calloc((size_t)n_groups, sizeof *set->handles);
  set->probe_of = calloc((size_t)n_groups, sizeof *set->probe_of);
  int *count = calloc((size_t)n_groups, sizeof *count);
  long long *gx = malloc((size_t)n * sizeof *gx), *gy = malloc((size_t)n * sizeof *gy);
  if (!set->values || !set->handles || !set->probe_of || !count || !gx || !gy) {
    free(count), free(gx), free(gy);
    probe_set_destroy(set);
    return hines_fail(err, HINES_FAILURE, "out of memory for the probes");
  }
  int status = HINES_OK;
  for (int j = 0; j < n; j++)
    count[group[j]]++;
  for (int g = 0; g < n_groups && status == HINES_OK; g++) {
    if (!count[g])
      continue;
    if (count[g] > PROBE_SAMPLES_MAX) {
      status = hines_fail(err, HINES_BAD_INPUT, "%d probes in one chunk: at most %d", count[g],
                          PROBE_SAMPLES_MAX);
      break;
    }
    size_t size = probe_samples_size(count[g], rows);
    set->values[g] = calloc(size, sizeof(double));
    set->probe_of[g] = malloc((size_t)count[g] * sizeof(int));
    if (!set->values[g] || !set->probe_of[g]) {
      status = hines_fail(err, HINES_FAILURE, "out of memory for the probes");
      break;
    }
    int k = 0;
    for (int j = 0; j < n; j++)
      if (group[j] == g) {
        set->probe_of[g][k] = j;
        gx[k] = x[j];
        gy[k] = y[j];
        k++;
      }
    probe_samples_init(set->values[g], count[g], gx, gy);
    starpu_vector_data_register(&set->handles[g], STARPU_MAIN_RAM, (uintptr_t)set->values[g],
                                (uint32_t)size, sizeof(double));
  }
  free(count), free(gx), free(gy);
  if (status)
    probe_set_destroy(set);
  return status;
}

void probe_set_read(struct probe_set *set, int rows, double *values) {
  for (int g = 0; set->handles && g < set->n_groups; g++) {
    if (!set->handles[g])
      continue;
    starpu_data_acquire(set->handles[g], STARPU_R);
    const int count = (int)set->values[g][0];
    for (int r = 0; r < rows && r < set->rows; r++) {
      const double *row = probe_samples_row(set->values[g], r);
      for (int k = 0; k < count; k++)
        values[(size_t)r * set->n_probes + set->probe_of[g][k]] = row[k];
    }
    starpu_data_release(set->handles[g]);
  }
}

void probe_set_destroy(struct probe_set *set) {
  for (int g = 0; set->handles && g < set->n_groups; g++)
    if (set->handles[g])
      starpu_data_unregister_no_coherency(set->handles[g]);
  for (int g = 0; set->values && g < set->n_groups; g++) {
    free(set->values[g]);
    if (set->probe_of)
      free(set->probe_of[g]);
  }
  free(set->values), free(set->handles), free(set->probe_of);
  *set = (struct probe_set){0};
}
