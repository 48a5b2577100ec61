/* The probes of a batch, sampled where the data is: each chunk (or level piece) holding probed
 * compartments gets a small buffer (codelets/probe_samples.h) that its step tasks fill, one row
 * per sample, on whichever worker they run; only those buffers come back to the host, once, when
 * the samples are read. A probe thus moves one value per sample, never a chunk of voltages. */
#ifndef HINES_PROBE_SET_H
#define HINES_PROBE_SET_H

#include <starpu.h>

#include "morphology.h"

struct probe_set {
  int n_probes, rows;
  int n_groups;    /* the batch's chunks or pieces (the keys below) */
  double **values; /* per group: its buffer, or NULL when no probe falls in it */
  starpu_data_handle_t *handles;
  int **probe_of; /* per group: the probe (column of the record) of each buffer entry */
};

/* Buffers for n probes over `rows` samples: probe j lies in group group[j] (0 .. n_groups - 1)
 * at position (x[j], y[j]) of that group's voltage buffer (probe_samples.h). HINES_BAD_INPUT if
 * a group holds more probes than one buffer takes. */
int probe_set_create(struct probe_set *set, int n_groups, int n, const int *group,
                     const long long *x, const long long *y, int rows, struct hines_error *err);
/* The buffer a step task of `group` fills, or NULL. */
static inline starpu_data_handle_t probe_set_samples(const struct probe_set *set, int group) {
  return set->handles && group >= 0 && group < set->n_groups ? set->handles[group] : NULL;
}
/* Waits for the samples and copies rows 0 .. rows - 1 into values[row * n_probes + probe]. */
void probe_set_read(struct probe_set *set, int rows, double *values);
void probe_set_destroy(struct probe_set *set);

#endif
