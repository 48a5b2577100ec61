/* Storage of per-neuron values (diagonal, rhs, voltage) for a batch of N neurons that share one
 * morphology of n compartments, in the four layouts of cuHinesBatch:
 *   flat         neuron after neuron:              value(k, i) at k*n + i
 *   interleaved  node i of every neuron together:  value(k, i) at i*N' + k, N' = N rounded up
 *                to a multiple of BATCH_LAYOUT_ROW_ALIGN
 *   block        groups of BS neurons interleaved: value(k, i) at (k/BS)*BS*n + i*BS + k%BS
 *   shared       block storage; the GPU kernel keeps the rhs of its block in shared memory
 * Every layout is "base(k) + i*stride": the kernels only need those two numbers, which keeps one
 * kernel per operation instead of one per layout. Block storage is padded to whole blocks; the
 * padding neurons hold a harmless identity system (or, in a simulation, a neuron at rest that
 * nothing reads). Interleaved rows are padded the same way to whole warps: StarPU's copy of a
 * chunk on a GPU is packed, its rows as long as the chunk's neurons, and rows of a length that
 * is not a multiple of 32 make every warp's 256 bytes straddle three 128-byte lines (mono
 * 255,999 x medium-high in one task: 2.12 ms a step against 1.55 for 256,000, H100,
 * BENCHMARKS.md); the batch gives the padding to its last chunk. */
#ifndef HINES_BATCH_LAYOUT_H
#define HINES_BATCH_LAYOUT_H

#include <stddef.h>

enum batch_layout_kind {
  BATCH_LAYOUT_FLAT,
  BATCH_LAYOUT_INTERLEAVED,
  BATCH_LAYOUT_BLOCK,
  BATCH_LAYOUT_SHARED,
};

#define BATCH_LAYOUT_ROW_ALIGN 32 /* neurons: a warp's doubles fill two 128-byte lines */

struct batch_layout {
  enum batch_layout_kind kind;
  int n_compartments;
  int n_neurons;
  int block_size; /* neurons per block (block/shared); 1 for flat; for interleaved the row
                     length, n_neurons rounded up to BATCH_LAYOUT_ROW_ALIGN */
  int n_blocks;
};

/* "flat" -> BATCH_LAYOUT_FLAT ...; returns -1 for an unknown name. */
int batch_layout_parse(const char *name);
const char *batch_layout_name(enum batch_layout_kind kind);

void batch_layout_init(struct batch_layout *layout, enum batch_layout_kind kind, int n_compartments,
                       int n_neurons, int block_size);
/* Values to allocate (padding included). */
size_t batch_layout_size(const struct batch_layout *layout);
size_t batch_layout_index(const struct batch_layout *layout, int neuron, int compartment);
/* Distance between compartment i and i+1 of one neuron. */
size_t batch_layout_stride(const struct batch_layout *layout);

/* Conversion to and from the user's view: `flat` holds neuron after neuron (k*n + i). */
void batch_layout_from_flat(const struct batch_layout *layout, const double *flat, double *stored);
void batch_layout_to_flat(const struct batch_layout *layout, const double *stored, double *flat);
/* Fills every value of the storage (padding included) with `value`. */
void batch_layout_fill(const struct batch_layout *layout, double *stored, double value);

#endif
