/* hines_bench: the baselines that hinestask's StarPU runs are compared with, built with the same
 * flags and run on the same machine by scripts/bench_mono.sh:
 *   sequential   the reference time loop (assemble + Algorithm 1) neuron after neuron, one core
 *   openmp-flat  the same loop over neurons split across all cores with OpenMP, no StarPU
 *   cuda-direct  the CUDA step kernel of a layout launched directly (no StarPU), CUDA events
 *   cpu-step-passive, cpu-step-exact, cpu-step-table  the mono CPU step kernel alone
 *                (hines_step_group_cpu, interleaved, groups of 32, this thread only), passive or
 *                with Hodgkin-Huxley channels everywhere, rates exact or from the rate table
 *                (--hh-rates); the median of the steps' thread CPU times, which another job
 *                sharing the core disturbs less than wall time
 *   cpu-step-km-exact, cpu-step-km-table  the same with the M current (km) everywhere too: the
 *                kernels' generic mechanism loop instead of hh's specialisation
 * It prints one CSV line: engine,layout,block_size,neurons,compartments,steps,seconds_per_step,
 * compartment_solves_per_s. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch_layout.h"
#include "cable.h"
#include "hines_mono_kernels.h"
#include "hines_reference.h"
#include "mono_batch.h"
#include "morph_spec.h"

#ifdef HINESTASK_WITH_CUDA
#include <cuda_runtime.h>
#endif

static double thread_cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median thread CPU seconds of `steps` steps of the mono CPU step kernel, interleaved
 * neurons in groups of 32; hh and km each PLACE_NONE or PLACE_ALL, rates `hh_rates`. */
static double cpu_step_seconds(const struct morphology *m, const struct cable_parameters *p,
                               double dt, int neurons, int steps, int placement, int km_placement,
                               int hh_rates, const struct stimulus *stim) {
  struct channel_set channels;
  channel_set_init(&channels);
  channel_set_place(&channels, MECHANISM_HH, placement);
  channel_set_place(&channels, MECHANISM_KM, km_placement);
  const int n_gates = channels.n_gates;
  const int n = m->n_compartments;
  const size_t values = (size_t)n * neurons;
  int *topology = mono_topology_build(n, m->parent);
  double *coefficients = malloc(mono_coefficients_size(n) * sizeof(double));
  double *v = malloc(values * sizeof(double)), *w = malloc(values * sizeof(double));
  double *gates = malloc(((size_t)n_gates * values + 1) * sizeof(double)),
         *times = malloc(steps * sizeof(double));
  struct hines_error err;
  if (!topology || !coefficients || !v || !w || !gates || !times ||
      mono_coefficients_fill(m, p, dt, coefficients, &err))
    return NAN;
  channel_rate_table_fill(&channels, dt, coefficients + (size_t)COEF_COUNT * n);
  struct step_arguments args = {
      .geometry = {n, neurons, BATCH_LAYOUT_INTERLEAVED, 32, (size_t)neurons},
      .stimulus = *stim,
      .channels = channels,
      .gates_geometry = {n_gates * n, neurons, BATCH_LAYOUT_INTERLEAVED, 32, (size_t)neurons},
      .hh_rates = hh_rates,
      .dt_ms = dt};
  double rest[CHANNELS_MAX_GATES];
  channels_rest(&channels, p->el_mV, rest, 1);
  for (size_t i = 0; i < values; i++) {
    v[i] = p->el_mV;
    for (int g = 0; g < n_gates; g++)
      gates[g * values + i] = rest[g];
  }
  for (int s = 0; s < steps; s++) {
    args.time_ms = s * dt;
    const double start = thread_cpu_seconds();
    for (int k = 0; k < neurons; k += 32)
      hines_step_group_cpu(topology, coefficients, &args, v, w, gates, NULL, (size_t)k,
                           neurons - k < 32 ? neurons - k : 32, k);
    times[s] = thread_cpu_seconds() - start;
  }
  qsort(times, (size_t)steps, sizeof *times, compare_doubles);
  const double median = isfinite(v[0]) ? times[steps / 2] : NAN;
  free(topology), free(coefficients), free(v), free(w), free(gates), free(times);
  return median;
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* One neuron's step, exactly as the reference time loop does it. */
static void reference_step(const struct morphology *m, const struct cable_coefficients *c,
                           const struct cable_parameters *p, double dt, double *v, double *d,
                           const struct stimulus *stim, int neuron, double t) {
  int n = m->n_compartments;
  double injected = stimulus_current(stim, neuron, t);
  for (int i = 0; i < n; i++) {
    const struct membrane_constants k = membrane_constants_of(c, i, p, dt);
    membrane_row(k.diagonal_base, k.c_over_dt, k.leak_current, v[i],
                 i == stim->compartment ? injected : 0.0, &d[i], &v[i]);
  }
  hines_solve_reference(n, m->parent, c->off_diagonal, c->off_diagonal, d, v);
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr,
            "usage: %s sequential|openmp-flat|cuda-direct SPEC NEURONS STEPS LAYOUT [BS]\n"
            "       %s cpu-step-passive|cpu-step-exact|cpu-step-table|cpu-step-km-exact|"
            "cpu-step-km-table SPEC NEURONS STEPS "
            "interleaved\n"
            "       %s copy-bandwidth - MIB COPIES flat\n",
            argv[0], argv[0], argv[0]);
    return 2;
  }
  const char *engine = argv[1], *spec = argv[2];
  int neurons = atoi(argv[3]), steps = atoi(argv[4]);
  int layout_kind = batch_layout_parse(argv[5]);
  int block_size = argc > 6 ? atoi(argv[6]) : 32;
  if (strcmp(engine, "copy-bandwidth") == 0) {
#ifdef HINESTASK_WITH_CUDA
    /* The roofline's ceiling: a large device-to-device copy, counting bytes read plus written.
     * NEURONS is reused as the size in MiB. */
    size_t bytes = (size_t)neurons << 20;
    void *from, *to;
    if (cudaMalloc(&from, bytes) != cudaSuccess || cudaMalloc(&to, bytes) != cudaSuccess) {
      fprintf(stderr, "%s: cannot allocate 2 x %d MiB\n", argv[0], neurons);
      return 1;
    }
    cudaMemset(from, 1, bytes);
    cudaEvent_t begin, end;
    cudaEventCreate(&begin);
    cudaEventCreate(&end);
    cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(begin, 0);
    for (int s = 0; s < steps; s++)
      cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(end, 0);
    cudaEventSynchronize(end);
    float ms = 0;
    cudaEventElapsedTime(&ms, begin, end);
    printf("copy-bandwidth,%zu MiB,%d copies,%.3f ms per copy,%.3f TB/s read+written\n",
           bytes >> 20, steps, ms / steps, 2.0 * bytes * steps / (ms * 1e-3) / 1e12);
    cudaFree(from);
    cudaFree(to);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
#else
    fprintf(stderr, "%s: built without CUDA\n", argv[0]);
    return 77;
#endif
  }
  struct morphology m;
  struct hines_error err;
  struct swc_options swc = {0};
  if (neurons < 1 || steps < 1 || layout_kind < 0 || morphology_load_spec(spec, &swc, &m, &err)) {
    fprintf(stderr, "%s: bad arguments\n", argv[0]);
    return 2;
  }
  const struct cable_parameters p = cable_defaults;
  const double dt = 0.025;
  struct cable_coefficients c;
  if (cable_coefficients_build(&m, &p, &c, &err))
    return 2;
  const int n = m.n_compartments;
  struct stimulus stim = {.compartment = 0,
                          .amplitude_nA = 0.1,
                          .start_ms = 0,
                          .stop_ms = 1e9,
                          .spread = 0.5,
                          .n_neurons_total = neurons};
  double seconds = NAN;
  if (strcmp(engine, "sequential") == 0 || strcmp(engine, "openmp-flat") == 0) {
    int threads = strcmp(engine, "sequential") == 0 ? 1 : omp_get_max_threads();
    double *v = malloc((size_t)neurons * n * sizeof(double));
    double *d = malloc((size_t)neurons * n * sizeof(double));
#pragma omp parallel for num_threads(threads)
    for (long j = 0; j < (long)neurons * n; j++)
      v[j] = p.el_mV; /* first touch by the thread that will use it */
    double start = 0;
    for (int s = -1; s < steps; s++) { /* step -1 warms up */
      if (s == 0)
        start = now_seconds();
#pragma omp parallel for num_threads(threads) schedule(static)
      for (int k = 0; k < neurons; k++)
        reference_step(&m, &c, &p, dt, v + (size_t)k * n, d + (size_t)k * n, &stim, k, s * dt);
    }
    seconds = (now_seconds() - start) / steps;
    free(v);
    free(d);
  } else if (strncmp(engine, "cpu-step-", 9) == 0 && layout_kind == BATCH_LAYOUT_INTERLEAVED) {
    const char *channels = engine + 9;
    /* passive, exact, table (hh everywhere), km-exact, km-table (hh and km everywhere) */
    const int km = strncmp(channels, "km-", 3) == 0;
    const char *rates = km ? channels + 3 : channels;
    if ((km || strcmp(rates, "passive")) && strcmp(rates, "exact") && strcmp(rates, "table")) {
      fprintf(stderr, "%s: unknown engine %s\n", argv[0], engine);
      return 2;
    }
    seconds = cpu_step_seconds(&m, &p, dt, neurons, steps,
                               strcmp(rates, "passive") ? PLACE_ALL : PLACE_NONE,
                               km ? PLACE_ALL : PLACE_NONE,
                               strcmp(rates, "table") ? HH_RATES_EXACT : HH_RATES_TABLE, &stim);
  } else if (strcmp(engine, "cuda-direct") == 0) {
#ifdef HINESTASK_WITH_CUDA
    struct batch_layout layout;
    batch_layout_init(&layout, layout_kind, n, neurons, block_size);
    size_t values = batch_layout_size(&layout);
    /* the same shared arrays the StarPU step codelet gets */
    int *topology_host = mono_topology_build(n, m.parent);
    double *coefficients_host = calloc((size_t)COEF_COUNT * n, sizeof(double));
    if (!topology_host || !coefficients_host ||
        mono_coefficients_fill(&m, &p, dt, coefficients_host, &err)) {
      fprintf(stderr, "%s: cannot build the coefficients\n", argv[0]);
      return 1;
    }
    double *voltage_host = malloc(values * sizeof(double));
    batch_layout_fill(&layout, voltage_host, p.el_mV);
    int *topology;
    double *coefficients, *voltage, *work;
    cudaMalloc((void **)&topology, topology_size(n) * sizeof(int));
    cudaMalloc((void **)&coefficients, (size_t)COEF_COUNT * n * sizeof(double));
    cudaMalloc((void **)&voltage, values * sizeof(double));
    cudaMalloc((void **)&work, values * sizeof(double));
    cudaMemcpy(topology, topology_host, topology_size(n) * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(coefficients, coefficients_host, (size_t)COEF_COUNT * n * sizeof(double),
               cudaMemcpyHostToDevice);
    cudaMemcpy(voltage, voltage_host, values * sizeof(double), cudaMemcpyHostToDevice);
    /* The whole batch as one chunk, as hinestask's one-task-per-GPU default gives. */
    struct step_arguments args = {
        .geometry = {.n_compartments = n,
                     .n_neurons = layout_kind >= BATCH_LAYOUT_BLOCK
                                      ? layout.n_blocks * layout.block_size
                                      : neurons,
                     .layout = layout_kind,
                     .block_size = layout.block_size},
        .stimulus = stim};
    args.geometry.ld = layout_kind == BATCH_LAYOUT_FLAT          ? (size_t)n
                       : layout_kind == BATCH_LAYOUT_INTERLEAVED ? (size_t)layout.block_size
                                                                 : (size_t)layout.block_size * n;
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cudaEvent_t begin, end;
    cudaEventCreate(&begin);
    cudaEventCreate(&end);
    int status = hines_step_cuda(topology, coefficients, &args, voltage, work, NULL, NULL, stream);
    cudaEventRecord(begin, stream);
    for (int s = 0; s < steps && !status; s++) {
      args.time_ms = s * dt;
      status = hines_step_cuda(topology, coefficients, &args, voltage, work, NULL, NULL, stream);
    }
    cudaEventRecord(end, stream);
    cudaEventSynchronize(end);
    float ms = 0;
    cudaEventElapsedTime(&ms, begin, end);
    if (status || cudaGetLastError() != cudaSuccess) {
      fprintf(stderr, "%s: CUDA error %d\n", argv[0], status);
      return 1;
    }
    seconds = ms * 1e-3 / steps;
    cudaMemcpy(voltage_host, voltage, values * sizeof(double), cudaMemcpyDeviceToHost);
    if (!isfinite(voltage_host[0])) {
      fprintf(stderr, "%s: non-finite result\n", argv[0]);
      return 1;
    }
    cudaFree(topology), cudaFree(coefficients), cudaFree(voltage), cudaFree(work);
    free(topology_host), free(coefficients_host), free(voltage_host);
#else
    fprintf(stderr, "%s: built without CUDA\n", argv[0]);
    return 77;
#endif
  } else {
    fprintf(stderr, "%s: unknown engine %s\n", argv[0], engine);
    return 2;
  }
  printf("%s,%s,%d,%d,%d,%d,%.9g,%.6g\n", engine, argv[5], block_size, neurons, n, steps, seconds,
         (double)neurons * n / seconds);
  cable_coefficients_free(&c);
  morphology_free(&m);
  return 0;
}
