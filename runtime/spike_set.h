/* The spike records of a batch (codelets/spike_record.h): each chunk (or level piece) holding
 * somata gets a record that its step tasks update on whichever worker they run. The host reads
 * the records back only when asked: at least every SPIKE_SET_READ_EVERY steps, so that no
 * neuron's ring wraps between two reads (spike_set_request: without waiting, each record read
 * as soon as the steps submitted so far have updated it, while the next steps queue behind),
 * and at the end of the run (spike_set_read, which waits). Each read appends the spikes that
 * are new since the last one to the set's list. */
#ifndef HINES_SPIKE_SET_H
#define HINES_SPIKE_SET_H

#include <pthread.h>
#include <starpu.h>

#include "morphology.h"
#include "spike_record.h"

/* The most steps between two reads that loses no spike time. */
#define SPIKE_SET_READ_EVERY SPIKE_RECORD_READ_EVERY

struct spike {
  int neuron; /* index within the batch */
  double time_ms;
};

struct spike_set {
  int n_neurons, n_groups;
  double **values; /* per group: its record, or NULL when no soma falls in it */
  starpu_data_handle_t *handles;
  int **neuron_of;  /* per group: the neuron of each record entry */
  long long *count; /* per neuron: spikes read so far */
  struct spike *spikes;
  size_t n_spikes, capacity;
  int lost;             /* a neuron spiked more often than its ring holds between two reads */
  int failed;           /* a read could not keep the spikes (out of memory) */
  pthread_mutex_t lock; /* the list and counts, which reads of several records update */
};

/* Records for the somata of n neurons: neuron j's soma lies in group group[j] (0 .. n_groups -
 * 1) at position (x[j], y[j]) of that group's voltage buffer; every neuron starts at
 * initial_mV. HINES_FAILURE when out of memory. */
int spike_set_create(struct spike_set *set, int n_groups, int n, const int *group,
                     const long long *x, const long long *y, double threshold_mV, double initial_mV,
                     struct hines_error *err);
/* The record a step task of `group` updates, or NULL. */
static inline starpu_data_handle_t spike_set_record(const struct spike_set *set, int group) {
  return set->handles && group >= 0 && group < set->n_groups ? set->handles[group] : NULL;
}
/* Asks for every record to be read once the steps submitted so far have updated it, without
 * waiting (starpu_data_acquire_cb): the spikes new since the last read go into set->spikes
 * then. More steps must be submitted after it before spike_set_read or spike_set_destroy (so
 * that those wait for these reads). */
void spike_set_request(struct spike_set *set);
/* Waits for the steps submitted and appends the spikes new since the last read to set->spikes
 * (in time order for each neuron). HINES_FAILURE when out of memory (now or in a request). */
int spike_set_read(struct spike_set *set, struct hines_error *err);
void spike_set_destroy(struct spike_set *set);
/* qsort's order of spikes: by neuron, then time (records of several chunks are read in no fixed
 * order). */
int spike_set_order(const void *a, const void *b);

#endif
