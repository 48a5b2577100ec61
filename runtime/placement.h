/* How a batch is cut into tasks and where those tasks may run: the one policy every kind of
 * batch (mono, multi, the per-neuron baseline) follows. */
#ifndef HINES_PLACEMENT_H
#define HINES_PLACEMENT_H

/* Neurons per task: `requested` when positive, else the batch cut into one chunk per CUDA
 * worker (one-thread-per-neuron kernels need ~100k neurons to fill a GPU), or into four chunks
 * per CPU worker when there is no GPU (so the schedulers can balance), rounded up to a multiple
 * of `granule` (a layout's block size, or 1). */
int placement_neurons_per_task(int requested, int n_neurons, int granule);

/* Where a batch's tasks may run: chunks sized for GPUs by the default above only on GPUs (a GPU
 * sized chunk takes a CPU core hundreds of times longer: an uncalibrated dmda once sent one
 * there, 12 ms per step instead of 1.3 on the H200); chunks the user sized anywhere. */
unsigned long placement_where(int requested);

#endif
