/* Kernels of the mono-morphology solver, free of StarPU: they see one chunk of neurons stored
 * as "base(k) + i*stride" (see batch_layout.h) and the shared per-morphology constants.
 * CPU versions live in hines_mono_cpu.c, CUDA versions in hines_mono_cuda.cu; the codelets in
 * hines_mono_codelets.c adapt both to StarPU. */
#ifndef HINES_MONO_KERNELS_H
#define HINES_MONO_KERNELS_H

#include <stddef.h>

#include "batch_layout.h"
#include "neuron_parameters.h"
#include "step_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-morphology constants, in one int array and one double array so that each is a single
 * read-only StarPU handle replicated once to every memory node:
 *   topology:     parent[n] | child_first[n+1] | child[n-1 (at least 1)]
 *   coefficients: upper[n] | lower[n] | c_over_dt[n] | diagonal_base[n] | leak_current[n] |
 *                 hh_scale[n] | leak_uS[n] | axial_sum_uS[n] | then, in a step batch's array,
 *                 the channels' rate table for its dt (CHANNEL_RATE_TABLE_SIZE, mechanisms.h;
 *                 read with --hh-rates table)
 * upper[i] = A[parent(i)][i], lower[i] = A[i][parent(i)], diagonal_base = C/dt + gL + sum g_axial,
 * leak_current = gL * EL. The last two are read only by a sweep of per-neuron membrane values
 * (codelets/neuron_parameters.h), which assembles diagonal_base and leak_current per neuron. */
enum {
  COEF_UPPER,
  COEF_LOWER,
  COEF_C_OVER_DT,
  COEF_DIAGONAL_BASE,
  COEF_LEAK_CURRENT,
  COEF_HH_SCALE,  /* membrane area * 1e-2: channel densities in S/cm^2 -> uS */
  COEF_LEAK_US,   /* gL */
  COEF_AXIAL_SUM, /* sum g_axial */
  COEF_COUNT
};
static inline size_t topology_size(int n) {
  return (size_t)n + (size_t)(n + 1) + (size_t)(n > 1 ? n - 1 : 1);
}

/* Doubles of a step batch's coefficient array: the per-compartment values, then the rate table
 * (mono_coefficients_fill fills the former, channel_rate_table_fill the latter). */
static inline size_t mono_coefficients_size(int n) {
  return (size_t)COEF_COUNT * (size_t)n + CHANNEL_RATE_TABLE_SIZE;
}

/* The per-morphology arrays the step codelets share (layouts above):
 * the topology (malloc'd, NULL when out of memory) and the COEF_COUNT * n coefficients. */
int *mono_topology_build(int n, const int *parent);
int mono_coefficients_fill(const struct morphology *m, const struct cable_parameters *cable,
                           double dt_ms, double *coefficients, struct hines_error *err);

/* Where a chunk's neurons sit in their buffer. */
struct chunk_geometry {
  int n_compartments;
  int n_neurons;  /* neurons in the chunk, padding lanes of the last block included */
  int layout;     /* enum batch_layout_kind */
  int block_size; /* block layouts */
  size_t ld;      /* the StarPU matrix leading dimension of the chunk */
};
/* base(k) and stride of neuron k of the chunk (mirrors batch_layout_index). */
static inline size_t chunk_base(const struct chunk_geometry *g, int k) {
  switch (g->layout) {
  case BATCH_LAYOUT_FLAT:
    return (size_t)k * g->ld;
  case BATCH_LAYOUT_INTERLEAVED:
    return (size_t)k;
  default: /* block and shared: ld is the size of one block */
    return (size_t)(k / g->block_size) * g->ld + (size_t)(k % g->block_size);
  }
}
static inline size_t chunk_stride(const struct chunk_geometry *g) {
  return g->layout == BATCH_LAYOUT_FLAT          ? 1
         : g->layout == BATCH_LAYOUT_INTERLEAVED ? g->ld
                                                 : (size_t)g->block_size;
}

/* Everything a step task needs besides its buffers. */
struct step_arguments {
  struct chunk_geometry geometry;
  struct stimulus stimulus;
  struct channel_set channels; /* mechanisms.h */
  /* The channels' gates (channels.n_gates of them, hh's m, h, n first when placed) of
   * compartment i stored like n_gates * n compartments: gate g of compartment i of neuron k at
   * gates_base(k) + (g*n + i) * gates_stride. */
  struct chunk_geometry gates_geometry;
  int first_neuron; /* global index of the chunk's first neuron */
  int cpu_group;    /* neurons vectorised together by the CPU kernel (fits L2) */
  int hh_rates;     /* enum hh_rates: HH_RATES_TABLE reads the coefficients' rate table */
  /* 1: the chunk of a block-layout batch is stored interleaved (runtime/mono_batch.h,
   * interleaved_chunks); geometry keeps the batch's block layout, which the performance
   * models go by, and the codelets read the chunk as interleaved. */
  int stored_interleaved;
  double dt_ms;
  double time_ms; /* time at the start of the step */
};

/* The rate table a step reads (after the n-compartment coefficients), or NULL: exact rates. */
static inline HINES_HOST_DEVICE const double *mono_rate_table(const double *coefficients, int n,
                                                              const struct step_arguments *args) {
  return args->hh_rates == HH_RATES_TABLE ? coefficients + (size_t)COEF_COUNT * (size_t)n : NULL;
}

/* One neuron's pure Hines solve (Algorithm 1, in place): d and r point at its compartment 0,
 * stride apart. The CUDA solve kernels' thread body. */
static inline HINES_HOST_DEVICE void hines_solve_one(int n, const int *HINES_RESTRICT parent,
                                                     const double *HINES_RESTRICT upper,
                                                     const double *HINES_RESTRICT lower, double *d,
                                                     double *r, size_t stride) {
  for (int i = n - 1; i > 0; i--) {
    size_t at = (size_t)i * stride, parent_at = (size_t)HINES_LDG(parent + i) * stride;
    double factor = HINES_LDG(upper + i) / d[at];
    d[parent_at] = fma(-factor, HINES_LDG(lower + i), d[parent_at]);
    r[parent_at] = fma(-factor, r[at], r[parent_at]);
  }
  r[0] /= d[0];
  for (int i = 1; i < n; i++) {
    size_t at = (size_t)i * stride;
    r[at] = fma(-HINES_LDG(lower + i), r[(size_t)HINES_LDG(parent + i) * stride], r[at]) / d[at];
  }
}

/* How many compartments ahead a GPU thread of the step kernel asks L2 for the values it will
 * load (HINES_PREFETCH_L2, host_device.h; 0: no hint): its voltage (and gates) in the backward
 * sweep, its eliminated rhs and pivot in the forward sweep; without channels and with them.
 * Measured on the H200 (BENCHMARKS.md, "Asking L2 ahead"): passive 1.19 ms a step for 256,000
 * medium-high with no hint, 1.08 at 1, 1.06 at 2 and 3, 1.36 at 16; HH everywhere 2.46 with
 * no hint, 2.04 at 1, 2.11 at 2, 2.48 at 4 (each element's three gates are three more lines). */
#ifndef HINES_MONO_L2_AHEAD
#define HINES_MONO_L2_AHEAD 2
#endif
#ifndef HINES_MONO_CHANNELS_L2_AHEAD
#define HINES_MONO_CHANNELS_L2_AHEAD 1
#endif

/* One implicit voltage step for one neuron: assemble each row and gather its eliminated children
 * (leaves first), then substitute root first. v (stride v_stride) holds the voltage, then the
 * eliminated rhs, then the new voltage; w (stride w_stride) the pivots; gates (stride
 * gates_stride, NULL: passive) n compartments per gate. channels: the neuron's channels
 * (&args->channels, or its own in a sweep); membrane: its membrane factors in a sweep of membrane
 * values (codelets/neuron_parameters.h), NULL otherwise (the shared coefficients as they are).
 * The CUDA step kernels' thread body, and on a CPU the scalar form of what hines_step_group_cpu
 * computes for `width` neurons at once: the same operations in the same order, so both give the
 * same bits (tests/test_same_bits.c checks it on the CPU, where this function is the stand-in
 * for a GPU thread). The multiply-adds of the sweeps' dependent chains are explicit fma on both
 * sides (issue #18: with contraction off, an a*b + c costs a GPU thread two dependent latencies
 * instead of one). hh_only_known: a constant, 1 where the caller knows the channels are hh
 * alone (only hh's code is compiled: a sweep's kernel keeps its registers), 0 otherwise.
 * global_values: a constant, 1 where v, w and gates are in the GPU's global memory, so that a
 * GPU thread may ask L2 for them ahead (HINES_MONO_L2_AHEAD); 0 where v is in shared memory (the
 * Block-Shared kernel), where a prefetch of global memory is not defined. */
static inline HINES_HOST_DEVICE void
hines_step_one(int n, const int *HINES_RESTRICT topology, const double *HINES_RESTRICT coefficients,
               double *v, size_t v_stride, double *w, size_t w_stride, double injected,
               int stimulated, const struct step_arguments *args,
               const struct channel_set *channels, const struct membrane_scales *membrane,
               double *gates, size_t gates_stride, int hh_only_known, int global_values) {
  const int *parent = topology, *child_first = topology + n, *child = topology + 2 * n + 1;
  const double *upper = coefficients + COEF_UPPER * (size_t)n;
  const double *lower = coefficients + COEF_LOWER * (size_t)n;
  const double *c_over_dt = coefficients + COEF_C_OVER_DT * (size_t)n;
  const double *diagonal_base = coefficients + COEF_DIAGONAL_BASE * (size_t)n;
  const double *leak_current = coefficients + COEF_LEAK_CURRENT * (size_t)n;
  const double *hh_scale = coefficients + COEF_HH_SCALE * (size_t)n;
  const double *leak_uS = coefficients + COEF_LEAK_US * (size_t)n;
  const double *axial_sum = coefficients + COEF_AXIAL_SUM * (size_t)n;
  /* x 1 is exact: without membrane factors the products below are the shared values. */
  const double axial_scale = membrane ? membrane->axial : 1.0;
  const double *rate_table = mono_rate_table(coefficients, n, args);
  const int n_gates = gates ? channels->n_gates : 0;
  const int l2_ahead = !HINES_ON_GPU || !global_values ? 0
                       : gates                         ? HINES_MONO_CHANNELS_L2_AHEAD
                                                       : HINES_MONO_L2_AHEAD;
  for (int i = n - 1; i >= 0; i--) {
    double *vi = v + (size_t)i * v_stride;
    if (l2_ahead > 0 && i >= l2_ahead) {
      const size_t ahead = (size_t)(i - l2_ahead);
      HINES_PREFETCH_L2(v + ahead * v_stride);
      for (int g = 0; g < n_gates; g++)
        HINES_PREFETCH_L2(gates + (ahead + (size_t)g * n) * gates_stride);
    }
    double d, r;
    if (membrane)
      membrane_row_scaled(membrane, HINES_LDG(c_over_dt + i), HINES_LDG(leak_uS + i),
                          HINES_LDG(axial_sum + i), *vi, i == stimulated ? injected : 0.0, &d, &r);
    else
      membrane_row(HINES_LDG(diagonal_base + i), HINES_LDG(c_over_dt + i),
                   HINES_LDG(leak_current + i), *vi, i == stimulated ? injected : 0.0, &d, &r);
    if (gates && channels_apply(channels, i))
      channels_row_known(hh_only_known, channels, &channels->mechanism[MECHANISM_HH], rate_table, i,
                         *vi, args->dt_ms, HINES_LDG(hh_scale + i),
                         gates + (size_t)i * gates_stride, (size_t)n * gates_stride, &d, &r);
    const int end = HINES_LDG(child_first + i + 1);
    for (int e = HINES_LDG(child_first + i); e < end; e++) {
      const int c = HINES_LDG(child + e);
      /* Two spellings of one elimination, so that without factors the code is the same as
       * before sweeps existed (operand order and all). */
      if (membrane) {
        double factor = HINES_LDG(upper + c) * axial_scale / w[(size_t)c * w_stride];
        d = fma(-factor, HINES_LDG(lower + c) * axial_scale, d);
        r = fma(-factor, v[(size_t)c * v_stride], r);
      } else {
        double factor = HINES_LDG(upper + c) / w[(size_t)c * w_stride];
        d = fma(-factor, HINES_LDG(lower + c), d);
        r = fma(-factor, v[(size_t)c * v_stride], r);
      }
    }
    w[(size_t)i * w_stride] = d;
    *vi = r;
  }
  v[0] = v[0] / w[0];
  for (int i = 1; i < n; i++) {
    double *vi = v + (size_t)i * v_stride;
    if (l2_ahead > 0 && i + l2_ahead < n) {
      HINES_PREFETCH_L2(vi + (size_t)l2_ahead * v_stride);
      HINES_PREFETCH_L2(w + (size_t)(i + l2_ahead) * w_stride);
    }
    if (membrane)
      *vi = fma(-(HINES_LDG(lower + i) * axial_scale), v[(size_t)HINES_LDG(parent + i) * v_stride],
                *vi) /
            w[(size_t)i * w_stride];
    else
      *vi = fma(-HINES_LDG(lower + i), v[(size_t)HINES_LDG(parent + i) * v_stride], *vi) /
            w[(size_t)i * w_stride];
  }
}

/* The widest group the CPU kernels take (their per-group scratch lives on the stack). */
#define HINES_CPU_MAX_GROUP 64

/* Pure Hines solve (Algorithm 1, in place) for neurons [k_begin, k_end) of a chunk that share
 * one stride and have consecutive bases (interleaved and block layouts, or width 1). */
void hines_solve_group_cpu(const int *topology, const double *coefficients,
                           const struct chunk_geometry *g, double *diagonal, double *rhs,
                           size_t base, int width);

/* One implicit voltage step (assemble + Hines solve by gathering children) for `width`
 * neurons with consecutive bases; voltage is updated in place, work is scratch. sweep: the
 * chunk's per-neuron values of a parameter sweep (codelets/neuron_parameters.h), NULL
 * without one. */
void hines_step_group_cpu(const int *topology, const double *coefficients,
                          const struct step_arguments *args, double *voltage, double *work,
                          double *gates, const struct neuron_sweep *sweep, size_t base, int width,
                          int first_local_neuron);

/* CUDA launchers (hines_mono_cuda.cu): one thread per neuron, on `stream`, asynchronous.
 * Return 0 or the cudaError_t of the launch. */
int hines_solve_cuda(const int *topology, const double *coefficients,
                     const struct chunk_geometry *g, double *diagonal, double *rhs, void *stream);
int hines_step_cuda(const int *topology, const double *coefficients,
                    const struct step_arguments *args, double *voltage, double *work, double *gates,
                    const struct neuron_sweep *sweep, void *stream);
/* The papers' multi-morphology baseline: the mono step kernel with one tree per neuron. A
 * neuron table (neurons[0] = M morphologies, then n, topology offset, coefficients offset of
 * each) says where neuron first_neuron + k's shape sits in the concatenated topology and
 * coefficient tables (neuron k has morphology k % M); voltages are interleaved with ld, padded
 * to the largest morphology. */
int hines_neuron_step_cuda(const int *neurons, const int *topology, const double *coefficients,
                           const struct step_arguments *args, double *voltage, double *work,
                           int count, void *stream);

/* The Block-Shared kernels keep a block's n values of every neuron in shared memory, one thread
 * per neuron: the most neurons a block can have on a device that gives a block
 * shared_bytes_per_block (0 when not even one fits). */
#define HINES_MAX_THREADS_PER_BLOCK 1024
static inline int hines_shared_block_limit(int shared_bytes_per_block, int n_compartments) {
  long long fit = shared_bytes_per_block / ((long long)sizeof(double) * n_compartments);
  return fit > HINES_MAX_THREADS_PER_BLOCK ? HINES_MAX_THREADS_PER_BLOCK : (int)fit;
}
/* The shared memory a block may opt in to on CUDA device `device` (0 if it cannot be read). */
int hines_shared_memory_per_block(int device);

#ifdef __cplusplus
}
#endif

#endif
