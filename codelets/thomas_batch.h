/* Batches of independent tridiagonal systems solved by the Thomas algorithm, one system per
 * thread/lane (cuThomasBatch / cuThomasVBatch, OGST 2018). No StarPU here: the layouts, the CPU
 * solvers (thomas_batch_cpu.c) and the CUDA launchers (thomas_batch_cuda.cu).
 *
 * System k of size n is  a[j] x[j-1] + b[j] x[j] + c[j] x[j+1] = d[j],  j = 0 .. n-1
 * (a lower, b diagonal, c upper, d right-hand side; a[0] and c[n-1] are never used). The solvers
 * are the plain Thomas algorithm without pivoting, so every system must be diagonally dominant
 * (or otherwise safe without pivoting). They work in place: on return c holds the modified
 * upper diagonal c' and d holds the solution x (it held the modified right-hand side d' between
 * the two sweeps):
 *   c'[0] = c[0] / b[0],  d'[0] = d[0] / b[0]
 *   c'[j] = c[j] / (b[j] - a[j] c'[j-1]),  d'[j] = (d[j] - a[j] d'[j-1]) / (b[j] - a[j] c'[j-1])
 *   x[n-1] = d'[n-1],  x[j] = d'[j] - c'[j] x[j+1]
 *
 * Storage. "Flat" is per-system storage: system k's rows are contiguous, starting at
 * flat_offset[k] (the prefix sum of the sizes in the caller's order). The interleaved layouts
 * store row j of every system together so that consecutive threads (or SIMD lanes) touch
 * consecutive addresses; each system owns a "slot" s:
 *   CP  (compute padding): every system is padded to rows = max size; slot s = system s; element
 *       j of slot s is at j*count + s. Padding rows are identity rows (a = c = 0, b = 1, d = 0),
 *       so solving them leaves x = 0 there and does not touch the real rows; every thread runs
 *       all `rows` rows.
 *   NCP (no compute padding): slots are the systems sorted by size, largest first (ties keep
 *       the caller's order). Row j holds only the rows_count[j] slots whose size exceeds j, stored
 *       compactly: element j of slot s is at row_offset[j] + s, for s < rows_count[j]. Each
 *       thread stops at its own size; nothing is padded. */
#ifndef THOMAS_BATCH_H
#define THOMAS_BATCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum thomas_padding { THOMAS_CP, THOMAS_NCP };

/* Where every element of a batch lives in one interleaved layout (host arrays). */
struct thomas_layout {
  enum thomas_padding padding;
  int count;            /* systems */
  int rows;             /* the largest size */
  size_t elements;      /* stored elements per array: count*rows (CP), sum of sizes (NCP) */
  size_t flat_elements; /* sum of sizes: elements per array in flat storage */
  int *size;            /* [count] size of the system in slot s (NCP: non-increasing) */
  int *system_of_slot;  /* [count] caller's index of the system in slot s */
  int *slot_of_system;  /* [count] inverse of system_of_slot */
  int *rows_count;      /* [rows] slots stored in row j: count (CP), #{size > j} (NCP) */
  size_t *row_offset;   /* [rows + 1] index of row j's slot 0; row_offset[rows] = elements */
  size_t *flat_offset;  /* [count + 1] first flat element of system k (caller's order) */
};

/* sizes[k] >= 1 for k < count, count >= 1. Returns 0, or -1 on bad arguments or no memory (the
 * layout is then empty and thomas_layout_free is still safe). */
int thomas_layout_init(struct thomas_layout *layout, enum thomas_padding padding, int count,
                       const int *sizes);
void thomas_layout_free(struct thomas_layout *layout);

/* Index, in the interleaved arrays, of row `row` (< sizes[system]) of the caller's `system`. */
static inline size_t thomas_layout_index(const struct thomas_layout *layout, int system, int row) {
  return layout->row_offset[row] + (size_t)layout->slot_of_system[system];
}

/* Flat -> interleaved for the four arrays; CP padding rows become identity rows. */
void thomas_pack_f64(const struct thomas_layout *layout, const double *a, const double *b,
                     const double *c, const double *d, double *a_out, double *b_out, double *c_out,
                     double *d_out);
void thomas_pack_f32(const struct thomas_layout *layout, const float *a, const float *b,
                     const float *c, const float *d, float *a_out, float *b_out, float *c_out,
                     float *d_out);
/* One array flat -> interleaved, CP padding rows set to `padding_value`. */
void thomas_pack_array_f64(const struct thomas_layout *layout, const double *flat,
                           double *interleaved, double padding_value);
void thomas_pack_array_f32(const struct thomas_layout *layout, const float *flat,
                           float *interleaved, float padding_value);
/* One array interleaved -> flat (padding dropped): gets the solution x back from d. */
void thomas_unpack_array_f64(const struct thomas_layout *layout, const double *interleaved,
                             double *flat);
void thomas_unpack_array_f32(const struct thomas_layout *layout, const float *interleaved,
                             float *flat);

/* CPU solvers, in place (see above). Rows outer, systems inner, so the inner loops vectorise
 * across systems; systems are taken in tiles so one tile's c' and d' stay in cache between the
 * forward and the backward sweep. */
void thomas_interleaved_cp_f64(int count, int rows, const double *a, const double *b, double *c,
                               double *d);
void thomas_interleaved_cp_f32(int count, int rows, const float *a, const float *b, float *c,
                               float *d);
/* rows_count and row_offset as in struct thomas_layout; rows_count[0] is the number of systems. */
void thomas_interleaved_ncp_f64(int rows, const int *rows_count, const size_t *row_offset,
                                const double *a, const double *b, double *c, double *d);
void thomas_interleaved_ncp_f32(int rows, const int *rows_count, const size_t *row_offset,
                                const float *a, const float *b, float *c, float *d);
/* Either of the above, as the layout says. */
void thomas_interleaved_f64(const struct thomas_layout *layout, const double *a, const double *b,
                            double *c, double *d);
void thomas_interleaved_f32(const struct thomas_layout *layout, const float *a, const float *b,
                            float *c, float *d);

/* CUDA launchers (thomas_batch_cuda.cu): one thread per system, asynchronous on `stream` (a
 * cudaStream_t; NULL is the default stream); every pointer is device memory. They return 0, or
 * the cudaError_t of the launch (or cudaErrorInvalidValue for bad sizes).
 *   cp:   arrays of count*rows elements, element j of system s at j*count + s.
 *   ncp:  size[count] (non-increasing) and row_offset[rows + 1] copied from a thomas_layout
 *         (size and row_offset members) to the device.
 *   flat: fixed-size systems stored one after another, element j of system s at s*size + j
 *         (for comparison: uncoalesced, as every thread walks its own contiguous system). */
int thomas_interleaved_cuda_cp_f64(int count, int rows, const double *a, const double *b, double *c,
                                   double *d, void *stream);
int thomas_interleaved_cuda_cp_f32(int count, int rows, const float *a, const float *b, float *c,
                                   float *d, void *stream);
int thomas_interleaved_cuda_ncp_f64(int count, const int *size, const size_t *row_offset,
                                    const double *a, const double *b, double *c, double *d,
                                    void *stream);
int thomas_interleaved_cuda_ncp_f32(int count, const int *size, const size_t *row_offset,
                                    const float *a, const float *b, float *c, float *d,
                                    void *stream);
int thomas_flat_cuda_f64(int count, int size, const double *a, const double *b, double *c,
                         double *d, void *stream);
int thomas_flat_cuda_f32(int count, int size, const float *a, const float *b, float *c, float *d,
                         void *stream);

#ifdef __cplusplus
}
#endif

#endif
