/* How one batch is shared among the processes of a distributed run (StarPU-MPI): each rank gets
 * a contiguous range of neurons, the ranges weighted by compartments so that mixes of large and
 * small cells balance. Deterministic: every rank computes the same ranges from the same inputs,
 * with no communication. */
#ifndef HINES_DISTRIBUTION_H
#define HINES_DISTRIBUTION_H

/* Neuron k of the batch has compartments[k % n_morphologies] compartments. Fills first[0..ranks]
 * (first[r] is rank r's first neuron, first[ranks] = n_neurons): rank r starts at the first
 * neuron whose preceding compartments reach r/ranks of the total, so no rank holds more than
 * its share plus one neuron. A rank may get no neuron when there are more ranks than neurons. */
void distribution_ranges(int n_neurons, const int *compartments, int n_morphologies, int ranks,
                         int *first);

#endif
