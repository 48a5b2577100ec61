/* CPU kernels of the mono-morphology solver. The group kernels loop compartments outer and
 * neurons inner, so with interleaved storage the inner loop runs over contiguous memory and
 * vectorises across neurons; a group is kept small (cpu_group neurons) so that its whole
 * working set (n compartments x group x 16 bytes) stays in L2. The arithmetic is that of the
 * CUDA thread bodies (hines_mono_kernels.h), explicit fma included: with -march=native GCC
 * turns fma() into vector fused multiply-adds (vfnmadd), no libm call. */
#include "channel_lanes_cpu.h"
#include "hines_mono_kernels.h"

#define MAX_GROUP HINES_CPU_MAX_GROUP
_Static_assert(MAX_GROUP <= CHANNEL_LANES_MAX, "channel_lanes_any takes a whole group");

/* The channels of `width` lanes at compartment i, vectorised: the channel code is branch-free
 * IEEE arithmetic (hines_exp, or the table's gathers and fmas), so each lane computes the bits
 * the scalar code, and the CUDA kernel's thread, computes. Inlined with a constant variant (one
 * loop per variant, channel_lanes), so a lane never computes another variant's code. lanes:
 * each lane's own numbers (a parameter sweep; the set's placements and gates), NULL: the set's.
 * hh alone reads each lane's hh numbers from lane_hh, a copy of them without the rest of the set
 * (GCC vectorises loads of a small structure's fields better). */
static inline __attribute__((always_inline)) void
channel_lanes_of(const struct channel_set *channels, const struct channel_set *lanes,
                 const struct channel_mechanism *lane_hh, int variant,
                 const double *restrict rate_table, int compartment, const double *restrict vi,
                 double dt_ms, double scale, double *restrict gates, size_t gate_step,
                 double *restrict d, double *restrict r, int width) {
  const int hh_variant = variant == CHANNELS_HH_EXACT || variant == CHANNELS_HH_TABLE;
  if (lanes && hh_variant) {
#pragma omp simd
    for (int k = 0; k < width; k++)
      channels_row(channels, &lane_hh[k], variant, rate_table, compartment, vi[k], dt_ms, scale,
                   gates + k, gate_step, &d[k], &r[k]);
  } else if (lanes) {
#pragma omp simd
    for (int k = 0; k < width; k++)
      channels_row(&lanes[k], &lanes[k].mechanism[MECHANISM_HH], variant, rate_table, compartment,
                   vi[k], dt_ms, scale, gates + k, gate_step, &d[k], &r[k]);
  } else {
#pragma omp simd
    for (int k = 0; k < width; k++)
      channels_row(channels, &channels->mechanism[MECHANISM_HH], variant, rate_table, compartment,
                   vi[k], dt_ms, scale, gates + k, gate_step, &d[k], &r[k]);
  }
}

/* constant_shapes: channel_shapes_are_constant(channels), where lanes is NULL. */
static void channel_lanes(const struct channel_set *channels, const struct channel_set *lanes,
                          const struct channel_mechanism *lane_hh, int constant_shapes,
                          const double *restrict rate_table, int compartment,
                          const double *restrict vi, double dt_ms, double scale,
                          double *restrict gates, size_t gate_step, double *restrict d,
                          double *restrict r, int width) {
  const int variant = channel_variant_of(channels, rate_table);
  /* hh alone from the table too: channel_lanes_any reads the lanes' entries as columns
   * (rate_table_columns), which channels_row's per-lane loads cannot */
  if (!lanes && constant_shapes &&
      (variant == CHANNELS_ANY_EXACT || variant == CHANNELS_ANY_TABLE ||
       variant == CHANNELS_HH_TABLE)) {
    if (variant != CHANNELS_ANY_EXACT)
      channel_lanes_any(channels, 1, rate_table, compartment, vi, dt_ms, &scale, 0, gates,
                        gate_step, d, r, width);
    else
      channel_lanes_any(channels, 0, NULL, compartment, vi, dt_ms, &scale, 0, gates, gate_step, d,
                        r, width);
    return;
  }
  switch (variant) {
  case CHANNELS_HH_EXACT:
    channel_lanes_of(channels, lanes, lane_hh, CHANNELS_HH_EXACT, NULL, compartment, vi, dt_ms,
                     scale, gates, gate_step, d, r, width);
    break;
  case CHANNELS_HH_TABLE:
    channel_lanes_of(channels, lanes, lane_hh, CHANNELS_HH_TABLE, rate_table, compartment, vi,
                     dt_ms, scale, gates, gate_step, d, r, width);
    break;
  case CHANNELS_ANY_EXACT:
    channel_lanes_of(channels, lanes, lane_hh, CHANNELS_ANY_EXACT, NULL, compartment, vi, dt_ms,
                     scale, gates, gate_step, d, r, width);
    break;
  default:
    channel_lanes_of(channels, lanes, lane_hh, CHANNELS_ANY_TABLE, rate_table, compartment, vi,
                     dt_ms, scale, gates, gate_step, d, r, width);
  }
}

void hines_solve_group_cpu(const int *topology, const double *coefficients,
                           const struct chunk_geometry *g, double *diagonal, double *rhs,
                           size_t base, int width) {
  const int n = g->n_compartments;
  const int *parent = topology;
  const double *upper = coefficients + (size_t)COEF_UPPER * n;
  const double *lower = coefficients + (size_t)COEF_LOWER * n;
  const size_t stride = chunk_stride(g);
  double *restrict d = diagonal + base;
  double *restrict r = rhs + base;
  for (int i = n - 1; i > 0; i--) {
    double *restrict di = d + (size_t)i * stride, *restrict ri = r + (size_t)i * stride;
    double *restrict dp = d + (size_t)parent[i] * stride, *restrict rp =
                                                              r + (size_t)parent[i] * stride;
    const double u = upper[i], l = lower[i];
#pragma omp simd
    for (int k = 0; k < width; k++) {
      double factor = u / di[k];
      dp[k] = fma(-factor, l, dp[k]);
      rp[k] = fma(-factor, ri[k], rp[k]);
    }
  }
#pragma omp simd
  for (int k = 0; k < width; k++)
    r[k] /= d[k];
  for (int i = 1; i < n; i++) {
    double *restrict di = d + (size_t)i * stride, *restrict ri = r + (size_t)i * stride;
    const double *restrict rp = r + (size_t)parent[i] * stride;
    const double l = lower[i];
#pragma omp simd
    for (int k = 0; k < width; k++)
      ri[k] = fma(-l, rp[k], ri[k]) / di[k];
  }
}

/* Backward sweep of a group of `width` neurons: assemble row i and gather its (already
 * eliminated) children, leaves first. The voltage slot of i then holds the eliminated rhs and
 * the work slot the pivot. gates: the group's first gate (NULL without channels). */
static void backward_group(const int *topology, const double *coefficients,
                           const struct step_arguments *args, double *restrict v,
                           double *restrict w, double *gates, size_t gates_stride,
                           const double *injected, int width) {
  const struct chunk_geometry *g = &args->geometry;
  const int n = g->n_compartments;
  const int *child_first = topology + n;
  const int *child = topology + 2 * n + 1;
  const double *upper = coefficients + (size_t)COEF_UPPER * n;
  const double *lower = coefficients + (size_t)COEF_LOWER * n;
  const double *c_over_dt = coefficients + (size_t)COEF_C_OVER_DT * n;
  const double *diagonal_base = coefficients + (size_t)COEF_DIAGONAL_BASE * n;
  const double *leak_current = coefficients + (size_t)COEF_LEAK_CURRENT * n;
  const double *hh_scale = coefficients + (size_t)COEF_HH_SCALE * n;
  const double *rate_table = mono_rate_table(coefficients, n, args);
  const size_t stride = chunk_stride(g);
  const int stim = args->stimulus.compartment;
  /* A local copy, so that nothing the loops read may change with their stores. */
  const struct channel_set channels = args->channels;
  const int constant_shapes = gates && channel_shapes_are_constant(&channels);
  for (int i = n - 1; i >= 0; i--) {
    double d[MAX_GROUP], r[MAX_GROUP];
    double *restrict vi = v + (size_t)i * stride;
    const double cdt = c_over_dt[i], dbase = diagonal_base[i], leak = leak_current[i];
#pragma omp simd
    for (int k = 0; k < width; k++)
      membrane_row(dbase, cdt, leak, vi[k], i == stim ? injected[k] : 0.0, &d[k], &r[k]);
    if (gates && channels_apply(&channels, i))
      channel_lanes(&channels, NULL, NULL, constant_shapes, rate_table, i, vi, args->dt_ms,
                    hh_scale[i], gates + (size_t)i * gates_stride, (size_t)n * gates_stride, d, r,
                    width);
    for (int e = child_first[i]; e < child_first[i + 1]; e++) {
      const int c = child[e];
      const double u = upper[c], l = lower[c];
      const double *restrict wc = w + (size_t)c * stride, *restrict vc = v + (size_t)c * stride;
#pragma omp simd
      for (int k = 0; k < width; k++) {
        double factor = u / wc[k];
        d[k] = fma(-factor, l, d[k]);
        r[k] = fma(-factor, vc[k], r[k]);
      }
    }
    double *restrict wi = w + (size_t)i * stride;
#pragma omp simd
    for (int k = 0; k < width; k++) {
      wi[k] = d[k];
      vi[k] = r[k];
    }
  }
}

/* backward_group for a sweep's neurons: each lane with its own channels and, when the sweep
 * gives membrane values, its own membrane factors (the rows and off-diagonals of
 * hines_step_one with those, lane by lane). */
static void backward_group_own(const int *topology, const double *coefficients,
                               const struct step_arguments *args, int membrane,
                               const struct neuron_own *lanes, double *restrict v,
                               double *restrict w, double *gates, size_t gates_stride,
                               const double *injected, int width) {
  const struct chunk_geometry *g = &args->geometry;
  const int n = g->n_compartments;
  const int *child_first = topology + n;
  const int *child = topology + 2 * n + 1;
  const double *upper = coefficients + (size_t)COEF_UPPER * n;
  const double *lower = coefficients + (size_t)COEF_LOWER * n;
  const double *c_over_dt = coefficients + (size_t)COEF_C_OVER_DT * n;
  const double *diagonal_base = coefficients + (size_t)COEF_DIAGONAL_BASE * n;
  const double *leak_current = coefficients + (size_t)COEF_LEAK_CURRENT * n;
  const double *hh_scale = coefficients + (size_t)COEF_HH_SCALE * n;
  const double *leak_uS = coefficients + (size_t)COEF_LEAK_US * n;
  const double *axial_sum = coefficients + (size_t)COEF_AXIAL_SUM * n;
  const double *rate_table = mono_rate_table(coefficients, n, args);
  const size_t stride = chunk_stride(g);
  const int stim = args->stimulus.compartment;
  /* The lanes' values as arrays, and each lane's structures rebuilt from them inside the
   * vectorised loops: GCC vectorises a local structure's fields, not loads from an array of
   * structures. */
  double axial[MAX_GROUP], capacitance[MAX_GROUP], leak_factor[MAX_GROUP], el[MAX_GROUP];
  struct channel_mechanism lane_hh[MAX_GROUP]; /* each lane's hh numbers */
  struct channel_set lane_channels[MAX_GROUP]; /* and all of them (another mechanism than hh) */
  for (int k = 0; k < width; k++) {
    axial[k] = lanes[k].membrane.axial;
    capacitance[k] = lanes[k].membrane.capacitance;
    leak_factor[k] = lanes[k].membrane.leak;
    el[k] = lanes[k].membrane.el_mV;
    lane_hh[k] = lanes[k].channels.mechanism[MECHANISM_HH];
    if (!args->channels.hh_only)
      lane_channels[k] = lanes[k].channels;
  }
  const struct channel_set channels = args->channels;
  const double dt_ms = args->dt_ms;
  for (int i = n - 1; i >= 0; i--) {
    double d[MAX_GROUP], r[MAX_GROUP];
    double *restrict vi = v + (size_t)i * stride;
    const double cdt = c_over_dt[i];
    if (membrane) {
      const double leak = leak_uS[i], sum = axial_sum[i];
#pragma omp simd
      for (int k = 0; k < width; k++) {
        const struct membrane_scales scales = {capacitance[k], axial[k], leak_factor[k], el[k]};
        membrane_row_scaled(&scales, cdt, leak, sum, vi[k], i == stim ? injected[k] : 0.0, &d[k],
                            &r[k]);
      }
    } else {
      const double dbase = diagonal_base[i], leak = leak_current[i];
#pragma omp simd
      for (int k = 0; k < width; k++)
        membrane_row(dbase, cdt, leak, vi[k], i == stim ? injected[k] : 0.0, &d[k], &r[k]);
    }
    if (gates && channels_apply(&channels, i))
      channel_lanes(&channels, lane_channels, lane_hh, 0, rate_table, i, vi, dt_ms, hh_scale[i],
                    gates + (size_t)i * gates_stride, (size_t)n * gates_stride, d, r, width);
    for (int e = child_first[i]; e < child_first[i + 1]; e++) {
      const int c = child[e];
      const double u = upper[c], l = lower[c];
      const double *restrict wc = w + (size_t)c * stride, *restrict vc = v + (size_t)c * stride;
      if (membrane) {
#pragma omp simd
        for (int k = 0; k < width; k++) {
          double factor = u * axial[k] / wc[k];
          d[k] = fma(-factor, l * axial[k], d[k]);
          r[k] = fma(-factor, vc[k], r[k]);
        }
      } else {
#pragma omp simd
        for (int k = 0; k < width; k++) {
          double factor = u / wc[k];
          d[k] = fma(-factor, l, d[k]);
          r[k] = fma(-factor, vc[k], r[k]);
        }
      }
    }
    double *restrict wi = w + (size_t)i * stride;
#pragma omp simd
    for (int k = 0; k < width; k++) {
      wi[k] = d[k];
      vi[k] = r[k];
    }
  }
}

/* Every row of one neuron with channels on some compartment beyond the soma, assembled along
 * the compartments (a loop that vectorises), with the calls hines_step_one makes. Inlined with a
 * constant variant (enum channel_variant), one loop per variant, so no lane computes another
 * variant's code. */
static inline __attribute__((always_inline)) void assemble_rows_channels(
    int n, const double *restrict coefficients, const struct channel_set *channels, int variant,
    const double *restrict rate_table, double dt_ms, double *restrict v, double *restrict w,
    size_t stride, double *restrict gates, size_t gates_stride, int stim, double injected) {
  const double *restrict c_over_dt = coefficients + (size_t)COEF_C_OVER_DT * n;
  const double *restrict diagonal_base = coefficients + (size_t)COEF_DIAGONAL_BASE * n;
  const double *restrict leak_current = coefficients + (size_t)COEF_LEAK_CURRENT * n;
  const double *restrict hh_scale = coefficients + (size_t)COEF_HH_SCALE * n;
  const size_t gate_step = (size_t)n * gates_stride;
#pragma omp simd
  for (int i = 0; i < n; i++) {
    const size_t at = (size_t)i * stride;
    const double old_voltage = v[at];
    double d, r;
    membrane_row(diagonal_base[i], c_over_dt[i], leak_current[i], old_voltage,
                 i == stim ? injected : 0.0, &d, &r);
    if (channels_apply(channels, i))
      channels_row(channels, &channels->mechanism[MECHANISM_HH], variant, rate_table, i,
                   old_voltage, dt_ms, hh_scale[i], gates + (size_t)i * gates_stride, gate_step, &d,
                   &r);
    w[at] = d;
    v[at] = r;
  }
}

/* The same for one neuron, its rows assembled first (see hines_step_group_cpu). */
/* Not inlined: inlined into its caller, GCC 12 no longer vectorises the channel loop. */
__attribute__((noinline)) static void
step_one_neuron(const int *topology, const double *coefficients, const struct step_arguments *args,
                double *restrict v, double *restrict w, double *gates, size_t gates_stride,
                double injected) {
  const struct chunk_geometry *g = &args->geometry;
  const int n = g->n_compartments;
  const int *child_first = topology + n;
  const int *child = topology + 2 * n + 1;
  const double *restrict upper = coefficients + (size_t)COEF_UPPER * n;
  const double *restrict lower = coefficients + (size_t)COEF_LOWER * n;
  const double *restrict c_over_dt = coefficients + (size_t)COEF_C_OVER_DT * n;
  const double *restrict diagonal_base = coefficients + (size_t)COEF_DIAGONAL_BASE * n;
  const double *restrict leak_current = coefficients + (size_t)COEF_LEAK_CURRENT * n;
  const double *restrict hh_scale = coefficients + (size_t)COEF_HH_SCALE * n;
  const double *restrict rate_table = mono_rate_table(coefficients, n, args);
  const size_t stride = chunk_stride(g);
  const int stim = args->stimulus.compartment;
  /* Locals, so that nothing the loops read may change with their stores. */
  const struct channel_set channels = args->channels;
  const double dt_ms = args->dt_ms;
  const double soma_voltage = v[0];
  if (gates && channels.placement == PLACE_ALL) {
    switch (channel_variant_of(&channels, rate_table)) {
    case CHANNELS_HH_EXACT:
      assemble_rows_channels(n, coefficients, &channels, CHANNELS_HH_EXACT, NULL, dt_ms, v, w,
                             stride, gates, gates_stride, stim, injected);
      break;
    case CHANNELS_HH_TABLE:
      assemble_rows_channels(n, coefficients, &channels, CHANNELS_HH_TABLE, rate_table, dt_ms, v, w,
                             stride, gates, gates_stride, stim, injected);
      break;
    case CHANNELS_ANY_EXACT:
      assemble_rows_channels(n, coefficients, &channels, CHANNELS_ANY_EXACT, NULL, dt_ms, v, w,
                             stride, gates, gates_stride, stim, injected);
      break;
    default:
      assemble_rows_channels(n, coefficients, &channels, CHANNELS_ANY_TABLE, rate_table, dt_ms, v,
                             w, stride, gates, gates_stride, stim, injected);
    }
  } else {
#pragma omp simd
    for (int i = 0; i < n; i++) {
      const size_t at = (size_t)i * stride;
      double d, r;
      membrane_row(diagonal_base[i], c_over_dt[i], leak_current[i], v[at],
                   i == stim ? injected : 0.0, &d, &r);
      w[at] = d;
      v[at] = r;
    }
    if (gates && channels_apply(&channels, 0)) { /* the soma's channels, after its bare row */
      membrane_row(diagonal_base[0], c_over_dt[0], leak_current[0], soma_voltage,
                   stim == 0 ? injected : 0.0, &w[0], &v[0]);
      channels_row_any(&channels, &channels.mechanism[MECHANISM_HH], rate_table, 0, soma_voltage,
                       dt_ms, hh_scale[0], gates, (size_t)n * gates_stride, &w[0], &v[0]);
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    const size_t at = (size_t)i * stride;
    double d = w[at], r = v[at];
    for (int e = child_first[i]; e < child_first[i + 1]; e++) {
      const int c = child[e];
      const size_t ac = (size_t)c * stride;
      double factor = upper[c] / w[ac];
      d = fma(-factor, lower[c], d);
      r = fma(-factor, v[ac], r);
    }
    w[at] = d;
    v[at] = r;
  }
}

void hines_step_group_cpu(const int *topology, const double *coefficients,
                          const struct step_arguments *args, double *voltage, double *work,
                          double *gates, const struct neuron_sweep *sweep, size_t base, int width,
                          int first_local_neuron) {
  const struct chunk_geometry *g = &args->geometry;
  const int n = g->n_compartments;
  const int *parent = topology;
  const double *lower = coefficients + (size_t)COEF_LOWER * n;
  const size_t stride = chunk_stride(g);
  const int with_hh = gates && args->channels.placement != PLACE_NONE;
  const size_t gates_stride = chunk_stride(&args->gates_geometry);
  const size_t gates_base = with_hh ? chunk_base(&args->gates_geometry, first_local_neuron) : 0;
  double *restrict v = voltage + base;
  double *restrict w = work + base;
  double injected[MAX_GROUP];
  double axial[MAX_GROUP]; /* a sweep's membrane factors of the off-diagonals */
  const int own_membrane = sweep && sweep->columns.membrane;
  if (sweep) {
    /* A sweep (--params): each lane's own parameters, then the same sweeps with them. */
    struct neuron_own lanes[MAX_GROUP];
    for (int k = 0; k < width; k++) {
      neuron_own_load(&sweep->columns, sweep->values + first_local_neuron + k, sweep->ld,
                      &args->channels, &args->stimulus, &lanes[k], NEURON_OWN_ANY);
      injected[k] = stimulus_current(&lanes[k].stimulus,
                                     args->first_neuron + first_local_neuron + k, args->time_ms);
      axial[k] = lanes[k].membrane.axial;
    }
    if (width == 1 && !own_membrane) {
      struct step_arguments one = *args;
      one.channels = lanes[0].channels;
      step_one_neuron(topology, coefficients, &one, v, w, with_hh ? gates + gates_base : NULL,
                      gates_stride, injected[0]);
    } else {
      backward_group_own(topology, coefficients, args, own_membrane, lanes, v, w,
                         with_hh ? gates + gates_base : NULL, gates_stride, injected, width);
    }
  } else {
    for (int k = 0; k < width; k++)
      injected[k] = stimulus_current(&args->stimulus, args->first_neuron + first_local_neuron + k,
                                     args->time_ms);
    if (width == 1) {
      /* One neuron alone (a batch of one, or a group's last lane): the loops below would be one
       * lane wide and the channel arithmetic, most of a step's work with HH, scalar. Every row
       * is assembled first instead, in a loop that vectorises along the compartments (the same
       * calls on the same values: the same bits), then eliminated as below. */
      step_one_neuron(topology, coefficients, args, v, w, with_hh ? gates + gates_base : NULL,
                      gates_stride, injected[0]);
    } else {
      backward_group(topology, coefficients, args, v, w, with_hh ? gates + gates_base : NULL,
                     gates_stride, injected, width);
    }
  }
  /* Forward: root first. */
#pragma omp simd
  for (int k = 0; k < width; k++)
    v[k] /= w[k];
  for (int i = 1; i < n; i++) {
    double *restrict vi = v + (size_t)i * stride;
    const double *restrict wi = w + (size_t)i * stride;
    const double *restrict vp = v + (size_t)parent[i] * stride;
    const double l = lower[i];
    if (own_membrane) {
#pragma omp simd
      for (int k = 0; k < width; k++)
        vi[k] = fma(-(l * axial[k]), vp[k], vi[k]) / wi[k];
    } else {
#pragma omp simd
      for (int k = 0; k < width; k++)
        vi[k] = fma(-l, vp[k], vi[k]) / wi[k];
    }
  }
}
