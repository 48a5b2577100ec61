#include "spike_set.h"

#include <stdlib.h>
#include <string.h>

#include "spike_record.h"

int spike_set_create(struct spike_set *set, int n_groups, int n, const int *group,
                     const long long *x, const long long *y, double threshold_mV, double initial_mV,
                     struct hines_error *err) {
  *set = (struct spike_set){.n_neurons = n, .n_groups = n_groups};
  pthread_mutex_init(&set->lock, NULL);
  set->values = calloc((size_t)n_groups, sizeof *set->values);
  set->handles = calloc((size_t)n_groups, sizeof *set->handles);
  set->neuron_of = calloc((size_t)n_groups, sizeof *set->neuron_of);
  set->count = calloc((size_t)(n > 0 ? n : 1), sizeof *set->count);
  int *members = calloc((size_t)n_groups, sizeof *members);
  long long *gx = malloc((size_t)(n > 0 ? n : 1) * sizeof *gx);
  long long *gy = malloc((size_t)(n > 0 ? n : 1) * sizeof *gy);
  int *first = calloc((size_t)n_groups + 1, sizeof *first), *order = NULL;
  if (first)
    order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
  int status = HINES_OK;
  if (!set->values || !set->handles || !set->neuron_of || !set->count || !members || !gx || !gy ||
      !first || !order) {
    status = hines_fail(err, HINES_FAILURE, "out of memory for the spike records");
  } else {
    /* The neurons of each group in neuron order (a counting sort by group). */
    for (int j = 0; j < n; j++)
      first[group[j] + 1]++;
    for (int g = 0; g < n_groups; g++)
      first[g + 1] += first[g];
    for (int j = 0; j < n; j++)
      order[first[group[j]] + members[group[j]]++] = j;
  }
  for (int g = 0; g < n_groups && status == HINES_OK; g++) {
    const int count = members[g];
    if (!count)
      continue;
    const size_t size = spike_record_size(count);
    set->values[g] = malloc(size * sizeof(double));
    set->neuron_of[g] = malloc((size_t)count * sizeof(int));
    if (!set->values[g] || !set->neuron_of[g]) {
      status = hines_fail(err, HINES_FAILURE, "out of memory for the spike records");
      break;
    }
    for (int k = 0; k < count; k++) {
      const int j = order[first[g] + k];
      set->neuron_of[g][k] = j;
      gx[k] = x[j];
      gy[k] = y[j];
    }
    spike_record_init(set->values[g], count, threshold_mV, initial_mV, gx, gy);
    starpu_vector_data_register(&set->handles[g], STARPU_MAIN_RAM, (uintptr_t)set->values[g],
                                (uint32_t)size, sizeof(double));
  }
  free(members), free(gx), free(gy), free(first), free(order);
  if (status)
    spike_set_destroy(set);
  return status;
}

static int append(struct spike_set *set, int neuron, double time_ms) {
  if (set->n_spikes == set->capacity) {
    size_t capacity = set->capacity ? 2 * set->capacity : 1024;
    struct spike *grown = realloc(set->spikes, capacity * sizeof *grown);
    if (!grown)
      return HINES_FAILURE;
    set->spikes = grown;
    set->capacity = capacity;
  }
  set->spikes[set->n_spikes++] = (struct spike){.neuron = neuron, .time_ms = time_ms};
  return HINES_OK;
}

/* The new spikes of group g's record, which the caller holds (acquired for reading). */
static void take_new(struct spike_set *set, int g) {
  const double *record = set->values[g];
  const int n = (int)record[0];
  const double *counts = spike_record_counts(set->values[g], n);
  pthread_mutex_lock(&set->lock);
  for (int k = 0; k < n && !set->failed; k++) {
    const int neuron = set->neuron_of[g][k];
    const long long total = (long long)counts[k];
    long long s = set->count[neuron];
    if (total - s > SPIKE_RECORD_CAPACITY) { /* cannot happen when read often enough */
      set->lost = 1;
      s = total - SPIKE_RECORD_CAPACITY;
    }
    const double *ring = spike_record_ring(set->values[g], n, k);
    for (; s < total && !set->failed; s++)
      set->failed = append(set, neuron, ring[s % SPIKE_RECORD_CAPACITY]) != HINES_OK;
    set->count[neuron] = total;
  }
  pthread_mutex_unlock(&set->lock);
}

struct request {
  struct spike_set *set;
  int group;
};

static void request_ready(void *argument) {
  struct request *r = argument;
  take_new(r->set, r->group);
  starpu_data_release(r->set->handles[r->group]);
  free(r);
}

void spike_set_request(struct spike_set *set) {
  for (int g = 0; set->handles && g < set->n_groups; g++) {
    if (!set->handles[g])
      continue;
    struct request *r = malloc(sizeof *r);
    if (!r) { /* no room to ask: read it now */
      starpu_data_acquire(set->handles[g], STARPU_R);
      take_new(set, g);
      starpu_data_release(set->handles[g]);
      continue;
    }
    *r = (struct request){.set = set, .group = g};
    starpu_data_acquire_cb(set->handles[g], STARPU_R, request_ready, r);
  }
}

int spike_set_read(struct spike_set *set, struct hines_error *err) {
  for (int g = 0; set->handles && g < set->n_groups; g++) {
    if (!set->handles[g])
      continue;
    starpu_data_acquire(set->handles[g], STARPU_R);
    take_new(set, g);
    starpu_data_release(set->handles[g]);
  }
  return set->failed ? hines_fail(err, HINES_FAILURE, "out of memory for the spike times")
                     : HINES_OK;
}

int spike_set_order(const void *a, const void *b) {
  const struct spike *x = a, *y = b;
  if (x->neuron != y->neuron)
    return x->neuron < y->neuron ? -1 : 1;
  return x->time_ms < y->time_ms ? -1 : x->time_ms > y->time_ms;
}

void spike_set_destroy(struct spike_set *set) {
  for (int g = 0; set->handles && g < set->n_groups; g++)
    if (set->handles[g])
      starpu_data_unregister_no_coherency(set->handles[g]);
  for (int g = 0; set->values && g < set->n_groups; g++) {
    free(set->values[g]);
    if (set->neuron_of)
      free(set->neuron_of[g]);
  }
  free(set->values), free(set->handles), free(set->neuron_of), free(set->count), free(set->spikes);
  if (set->n_groups > 0) /* made by spike_set_create, not a zeroed set */
    pthread_mutex_destroy(&set->lock);
  *set = (struct spike_set){0};
}
