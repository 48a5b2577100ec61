/* A current clamp, the same formula on CPU, GPU and in the reference simulation: amplitude_nA
 * into `compartment` while start <= t < stop, scaled per neuron by 1 + spread * (k/(N-1) - 1/2)
 * so that a batch is not N copies of one answer. */
#ifndef HINES_STIMULUS_H
#define HINES_STIMULUS_H

#include "host_device.h"

struct stimulus {
  int compartment;
  double amplitude_nA, start_ms, stop_ms, spread;
  int n_neurons_total;
  /* Global index of the batch's neuron 0: a batch that is one rank's share of a distributed
   * batch (runtime/cluster.h) numbers its neurons from 0, the stimulus by their place in the
   * whole batch of n_neurons_total. 0 for a whole batch. */
  int first_neuron;
};

static inline HINES_HOST_DEVICE double stimulus_current(const struct stimulus *s, int global_neuron,
                                                        double t_ms) {
  if (!(t_ms >= s->start_ms && t_ms < s->stop_ms))
    return 0.0;
  double position = s->n_neurons_total > 1
                        ? (double)(s->first_neuron + global_neuron) / (s->n_neurons_total - 1)
                        : 0.5;
  return s->amplitude_nA * (1.0 + s->spread * (position - 0.5));
}

#endif
