/* hinestask: the voltage step of compartmental neuron simulation for large batches of neurons,
 * on CPUs and NVIDIA GPUs, scheduled by StarPU. main reads and checks every input, starts the
 * runtime, runs the simulation and writes the reports: options.c holds the command line,
 * simulation.c the time loop, reports.c the outputs; the solvers live in codelets/, the StarPU
 * side in runtime/. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster.h"
#include "distribution.h"
#include "morph_spec.h"
#include "options.h"
#include "output_files.h"
#include "params_file.h"
#include "placement.h"
#include "reports.h"
#include "runtime.h"
#include "simulation.h"
#include "trace.h"

/* Host memory available to this run: MemAvailable of /proc/meminfo (free memory plus what the
 * kernel can reclaim), else the physical memory. */
static double available_host_bytes(void) {
  FILE *meminfo = fopen("/proc/meminfo", "r");
  char line[256];
  double kib = -1;
  while (meminfo && fgets(line, sizeof line, meminfo))
    if (sscanf(line, "MemAvailable: %lf kB", &kib) == 1)
      break;
  if (meminfo)
    fclose(meminfo);
  if (kib > 0)
    return kib * 1024;
  return (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
}

/* Refuses up front a batch that cannot fit in host memory, with the numbers. */
static void check_host_memory(double bytes, long long compartments) {
  double available = available_host_bytes();
  if (bytes > 0.9 * available) {
    fprintf(stderr,
            "%s: the batch needs %.1f GiB of host memory (%lld compartments, %.1f bytes each) "
            "but %.1f GiB is available (reduce --neurons)\n",
            program, bytes / (1 << 30), compartments, bytes / (double)compartments,
            available / (1 << 30));
    exit(2);
  }
}

/* SWC repair warnings, held back until the run is accepted (see main). */
static char *pending_warnings;
static void free_pending_warnings(void) {
  free(pending_warnings);
  pending_warnings = NULL;
}

/* A distributed run (mpirun): after MPI has started, a rank that cannot go on stops them all
 * (MPI_Abort) rather than leave the others waiting for it at the final gathers. */
static void stop_every_rank(const struct options *o, int status, const char *message) {
  fprintf(stderr, "%s: rank %d of %d: %s; stopping every rank\n", program, o->rank, o->ranks,
          message);
  cluster_abort(status);
}

/* Rank 0 gathers the other ranks' spikes into its report. Each rank's neurons are a contiguous
 * range, in rank order, so the ranks' sorted lists put end to end stay sorted by neuron then
 * time. Every rank learns every rank's count (cluster_max, once per rank), puts its own spikes
 * at its place in an array of them all and zeros elsewhere, and the sum on rank 0 (x + 0 = x,
 * exactly) holds every spike. */
static void gather_spikes(const struct options *o, struct spike_report *s) {
  struct spike_summary {
    long long min, max;
    int neurons, with, lost;
  } mine = {.min = s->min_per_neuron,
            .max = s->max_per_neuron,
            .neurons = s->neurons,
            .with = s->neurons_with_spikes,
            .lost = s->lost};
  struct spike_summary *all = malloc((size_t)o->ranks * sizeof *all);
  if (!all || s->n_spikes > INT_MAX)
    stop_every_rank(o, 1, !all ? "out of memory" : "too many spikes to gather");
  cluster_gather_to_root(&mine, (int)sizeof mine, all);
  long long total = 0, offset = 0;
  for (int r = 0; r < o->ranks; r++) {
    const long long count = cluster_max(r == o->rank ? (int)s->n_spikes : 0);
    offset += r < o->rank ? count : 0;
    total += count;
  }
  double *values = calloc((size_t)(total > 0 ? 2 * total : 1), sizeof *values);
  if (!values)
    stop_every_rank(o, 1, "out of memory for the spikes");
  for (size_t i = 0; i < s->n_spikes; i++) {
    values[2 * (offset + (long long)i)] = s->spikes[i].neuron;
    values[2 * (offset + (long long)i) + 1] = s->spikes[i].time_ms;
  }
  cluster_sum_to_root(values, 2 * total);
  if (o->rank == 0) {
    struct spike *spikes = realloc(s->spikes, (size_t)(total > 0 ? total : 1) * sizeof *spikes);
    if (!spikes)
      stop_every_rank(o, 1, "out of memory for the spikes");
    s->spikes = spikes;
    s->n_spikes = (size_t)total;
    for (long long i = 0; i < total; i++)
      spikes[i] = (struct spike){.neuron = (int)values[2 * i], .time_ms = values[2 * i + 1]};
    *s = (struct spike_report){.spikes = spikes,
                               .n_spikes = (size_t)total,
                               .min_per_neuron = all[0].min,
                               .max_per_neuron = all[0].max};
    for (int r = 0; r < o->ranks; r++) {
      s->neurons += all[r].neurons;
      s->neurons_with_spikes += all[r].with;
      s->lost |= all[r].lost;
      s->min_per_neuron = all[r].min < s->min_per_neuron ? all[r].min : s->min_per_neuron;
      s->max_per_neuron = all[r].max > s->max_per_neuron ? all[r].max : s->max_per_neuron;
    }
  }
  free(values);
  free(all);
}

/* Rank 0 gathers the other ranks' verifications into its own (the worst neuron of them all). */
static void gather_verification(const struct options *o, struct verify_result *v) {
  struct verify_result *all = malloc((size_t)o->ranks * sizeof *all);
  if (!all)
    stop_every_rank(o, 1, "out of memory");
  cluster_gather_to_root(v, (int)sizeof *v, all);
  if (o->rank == 0) {
    struct verify_result sum = {.neuron = -1, .compartment = -1, .backward_neuron = -1};
    double worst = -1, backward = 0, sequential_backward = 0;
    int backward_failed = 0, backward_neuron = -1;
    for (int r = 0; r < o->ranks; r++) {
      const struct verify_result *one = &all[r];
      backward = fmax(backward, one->backward_error);
      sequential_backward = fmax(sequential_backward, one->sequential_backward_error);
      backward_failed |= one->backward_failed;
      if (backward_neuron < 0)
        backward_neuron = one->backward_neuron;
      sum.ran += one->ran;
      sum.failed |= one->failed;
      sum.max_rel_error = fmax(sum.max_rel_error, one->max_rel_error);
      if (one->neuron < 0)
        continue;
      double ratio = one->tolerance > 0 ? one->error / one->tolerance : INFINITY;
      if (isnan(ratio))
        ratio = INFINITY;
      if (ratio > worst || sum.neuron < 0) {
        worst = ratio;
        int ran = sum.ran, failed = sum.failed;
        double max_rel_error = sum.max_rel_error;
        sum = *one;
        sum.ran = ran, sum.failed = failed, sum.max_rel_error = max_rel_error;
      }
    }
    sum.backward_error = backward;
    sum.sequential_backward_error = sequential_backward;
    sum.backward_failed = backward_failed;
    sum.backward_neuron = backward_neuron;
    *v = sum;
  }
  free(all);
}

int main(int argc, char **argv) {
  struct options o;
  atexit(output_check_stdout_at_exit); /* a failed write to stdout is a failure, not exit 0 */
  options_parse(argc, argv, &o);
  /* Started by mpirun: one rank of a distributed run (runtime/cluster.h). Every rank reads and
   * checks every input itself, before MPI starts, so that bad input gives the same one line and
   * exit status on every rank and none waits for another; rank 0 alone prints and writes. */
  const int distributed = cluster_launched();
  o.rank = cluster_rank();
  o.ranks = cluster_size();
  const int root = o.rank == 0;
  if (!root)
    o.quiet = 1;
  double started = now_seconds();
  struct hines_error err;
  /* Every output can be written where it goes, and replaces nothing it should not. */
  if (output_plan_check(&o, &err)) {
    fprintf(stderr, "%s: %s\n", program, err.message);
    return 2;
  }

  /* Every input is read and checked before StarPU starts or anything is written. */
  /* Repair warnings are held back until every file has loaded: a run that is refused prints
   * its one error line and nothing else. */
  size_t warnings_size = 0;
  atexit(free_pending_warnings); /* every early exit below, too */
  struct swc_options swc = {.geometry = o.geometry,
                            .max_compartment_um = o.dx_um,
                            .d_lambda = o.d_lambda,
                            .d_lambda_hz = o.d_lambda_hz,
                            .nseg_factor = o.nseg_factor,
                            .ra_ohm_cm = o.model.cable.ra_ohm_cm,
                            .cm_uF_per_cm2 = o.model.cable.cm_uF_per_cm2,
                            .warnings = open_memstream(&pending_warnings, &warnings_size)};
  static struct morphology morphologies[MAX_MORPHOLOGIES];
  for (int i = 0; i < o.n_morph_specs; i++) {
    int status = morphology_load_spec(o.morph_specs[i], &swc, &morphologies[i], &err);
    if (status) {
      /* A file's message names the file and line; a synthetic spec's names what was typed. */
      const char *spec = o.morph_specs[i];
      fprintf(stderr, "%s: %s%s\n", program,
              !*spec                                 ? "--morph: "
              : strncmp(spec, "synthetic:", 10) == 0 ? "--morph "
                                                     : "",
              err.message);
      for (int j = 0; j < i; j++)
        morphology_free(&morphologies[j]);
      if (swc.warnings)
        fclose(swc.warnings);
      return status;
    }
  }
  if (swc.warnings)
    fclose(swc.warnings);
  /* Geometry that cannot make a usable matrix is bad input too: refuse it before anything runs. */
  for (int i = 0; i < o.n_morph_specs && !o.summary; i++) {
    struct cable_coefficients check;
    int status = cable_coefficients_build(&morphologies[i], &o.model.cable, &check, &err);
    cable_coefficients_free(&check);
    if (status) {
      fprintf(stderr, "%s: %s\n", program, err.message);
      for (int j = 0; j < o.n_morph_specs; j++)
        morphology_free(&morphologies[j]);
      return 2;
    }
  }
  if (o.summary) {
    if (!root) { /* one listing, not one per rank */
      for (int i = 0; i < o.n_morph_specs; i++)
        morphology_free(&morphologies[i]);
      return 0;
    }
    fputs(pending_warnings ? pending_warnings : "", stderr);
    for (int i = 0; i < o.n_morph_specs; i++) {
      print_summary(&morphologies[i]);
      morphology_free(&morphologies[i]);
    }
    return 0;
  }
  if (strcmp(o.mode, "mono") == 0 && o.n_morph_specs != 1)
    bad_usage("--mode mono takes exactly one --morph (got %s); use --mode multi for a mix",
              "several");
  if (o.params_path) {
    int status = params_file_read(&o, &err);
    if (status) {
      fprintf(stderr, "%s: %s\n", program, err.message);
      for (int i = 0; i < o.n_morph_specs; i++)
        morphology_free(&morphologies[i]);
      return status;
    }
  }
  long long compartments = 0;
  int smallest = INT_MAX;
  for (int k = 0; k < o.n_morph_specs; k++) {
    long long copies = o.neurons / o.n_morph_specs + (k < o.neurons % o.n_morph_specs);
    compartments += copies * morphologies[k].n_compartments;
    if (morphologies[k].n_compartments < smallest)
      smallest = morphologies[k].n_compartments;
  }
  if (o.model.stimulus.compartment >= smallest) {
    fprintf(stderr, "%s: --stim-compartment %d is beyond the %d compartments of a morphology\n",
            program, o.model.stimulus.compartment, smallest);
    return 2;
  }
  for (int j = 0; j < o.n_probes; j++) {
    int neuron = o.probe_neuron[j], compartment = o.probe_compartment[j];
    if (neuron >= o.neurons) {
      fprintf(stderr, "%s: --probe %d:%d: there is no neuron %d, the batch has %d (0 to %d)\n",
              program, neuron, compartment, neuron, o.neurons, o.neurons - 1);
      return 2;
    }
    const struct morphology *pm = &morphologies[neuron % o.n_morph_specs]; /* neuron k's */
    if (compartment >= pm->n_compartments) {
      fprintf(stderr,
              "%s: --probe %d:%d: neuron %d (%s) has %d compartments (0 to %d), no compartment "
              "%d\n",
              program, neuron, compartment, neuron, pm->name, pm->n_compartments,
              pm->n_compartments - 1, compartment);
      return 2;
    }
  }
  if (distributed) {
    /* Contiguous ranges weighted by compartments (runtime/distribution.h), the same on every
     * rank. */
    int sizes[MAX_MORPHOLOGIES];
    for (int k = 0; k < o.n_morph_specs; k++)
      sizes[k] = morphologies[k].n_compartments;
    int *first = malloc(((size_t)o.ranks + 1) * sizeof *first);
    if (!first) {
      fprintf(stderr, "%s: out of memory\n", program);
      return 1;
    }
    distribution_ranges(o.neurons, sizes, o.n_morph_specs, o.ranks, first);
    for (int r = 0; r < o.ranks; r++)
      if (first[r + 1] == first[r]) {
        fprintf(stderr,
                "%s: --neurons %d: too few neurons for the %d ranks of mpirun (rank %d would get "
                "none); run fewer ranks\n",
                program, o.neurons, o.ranks, r);
        free(first);
        return 2;
      }
    o.first_neuron = first[o.rank];
    o.local_neurons = first[o.rank + 1] - first[o.rank];
    free(first);
  }
  /* The bytes each kind of batch allocates, counted (simulation_host_bytes). */
  double host_bytes = simulation_host_bytes(&o, morphologies, compartments, &err);
  if (host_bytes < 0) {
    fprintf(stderr, "%s: %s\n", program, err.message);
    return (int)-host_bytes;
  }
  if (distributed) { /* a rank allocates its share only, beside the other ranks of its node */
    long long share = 0;
    for (int k = o.first_neuron; k < o.first_neuron + o.local_neurons; k++)
      share += morphologies[k % o.n_morph_specs].n_compartments;
    host_bytes *= (double)share / (double)compartments * cluster_node_size();
    check_host_memory(host_bytes, share * cluster_node_size());
  } else {
    check_host_memory(host_bytes, compartments);
  }

  if (runtime_check_environment(&err)) {
    fprintf(stderr, "%s: %s\n", program, err.message);
    return 2;
  }
  /* Every check has passed: the repairs made to the input files can be reported now, and the
   * options that do not apply. */
  if (root) {
    fputs(pending_warnings ? pending_warnings : "", stderr);
    options_warn(&o, stderr);
  }
  struct runtime_options runtime_options = {
      .quiet = o.quiet,
      .tracing = o.trace_dir != NULL,
      .history_models = o.history_models,
      .distributed = distributed,
      /* --task-neurons fixes a step's tasks before StarPU starts (workers per GPU follow it) */
      .tasks_per_step =
          o.neurons_per_task > 0
              ? (int)(((long long)o.neurons + o.neurons_per_task - 1) / o.neurons_per_task)
              : 0};
  if (o.trace_dir && trace_prepare_rank(o.trace_dir, o.rank, o.ranks, &err)) {
    fprintf(stderr, "%s: --trace: %s\n", program, err.message);
    return 2;
  }
  /* The default job's run folder, new for this run (rank 0's: the others write nothing). */
  if (!root) {
    o.json_path = NULL;
    o.probes_path = NULL;
  } else if (output_plan_start(&o, &err)) {
    fprintf(stderr, "%s: %s\n", program, err.message);
    return 1;
  }
  if (distributed && cluster_init(&err)) {
    fprintf(stderr, "%s: rank %d: %s\n", program, o.rank, err.message);
    output_plan_abandon();
    return 1;
  }
  if (distributed && o.trace_dir)
    cluster_barrier(); /* rank 0 has cleared the trace folder before any rank traces into it */
  int status = runtime_start(&runtime_options, &err);
  if (status && distributed)
    stop_every_rank(&o, status, err.message);
  if (status) {
    fprintf(stderr, "%s: %s\n", program, err.message);
    output_plan_abandon();
    return status;
  }
  simulation_choose_mode(&o);
  if (distributed) { /* every rank runs the same kind of batch: multi if any share wants it */
    int here = strcmp(o.mode, "multi") == 0;
    if (cluster_max(here) != here) {
      o.mode = "multi";
      o.mode_reason = "automatic: another rank's share has fewer than 50,000 neurons per GPU";
    }
  }
  simulation_choose_layout(&o, &morphologies[0]);
  const int multi = strcmp(o.mode, "multi") == 0;
  /* A greedy scheduler hands the next ready task to whichever worker is idle: with CPU workers
   * beside GPUs, a core takes a GPU-sized chunk (H200 machine, robust27, 256,000 medium-high with
   * StarPU's 15 CPU workers: eager 66.3 ms a step, lws 1.87, against 1.05 for the GPU alone).
   * Only a mask keeps it off, and masks are the user's to ask for. */
  if (root && !placement_model_scheduler() && !o.pin && runtime_cpu_workers() > 0 &&
      runtime_cuda_workers() > 0)
    fprintf(stderr,
            "%s: note: scheduler %s places tasks without performance models: with CPU workers "
            "beside GPUs an idle core takes GPU-sized chunks (a step can take many times the GPU "
            "alone's); use dmdas (the default), --pin, or STARPU_NCPU=0\n",
            program, runtime_scheduler());
  if (!o.quiet) {
    printf("mode %s (%s)%s\n",
           multi ? "multi: the branch-level solver" : "mono: the cuHinesBatch layouts",
           o.mode_reason, strncmp(o.mode_reason, "automatic", 9) == 0 ? "; --mode forces one" : "");
    if (o.default_job)
      options_print_default_job(&o, stdout);
    if (multi)
      printf("hinestask %s: multi-morphology batch of %d neurons from %d morpholog%s "
             "(%lld compartments), %s levels, %d steps of %g ms\n",
             HINESTASK_VERSION, o.neurons, o.n_morph_specs, o.n_morph_specs == 1 ? "y" : "ies",
             compartments, o.padded ? "CP" : "NCP", o.steps, o.model.dt_ms);
    else
      printf("hinestask %s: mono batch of %d x %s (%d compartments), layout %s%s, %d steps of "
             "%g ms\n",
             HINESTASK_VERSION, o.neurons, morphologies[0].name, morphologies[0].n_compartments,
             batch_layout_name(o.layout),
             !o.layout_auto                         ? ""
             : o.layout == BATCH_LAYOUT_INTERLEAVED ? " (automatic with GPU workers)"
                                                    : " (automatic on CPU workers only)",
             o.steps, o.model.dt_ms);
    runtime_describe(stdout);
    if (distributed)
      printf("distributed over %d ranks (StarPU-MPI): rank 0 computes neurons %d to %d, each "
             "rank its contiguous share weighted by compartments\n",
             o.ranks, o.first_neuron, o.first_neuron + o.local_neurons - 1);
  }

  struct batch_ops ops;
  const double building_started = now_seconds();
  status = simulation_create(&o, morphologies, &ops, &err);
  const double seconds_building = now_seconds() - building_started;
  if (status && distributed)
    stop_every_rank(&o, status, err.message);
  if (status) {
    fprintf(stderr, "%s: %s\n", program, err.message);
    runtime_stop();
    output_plan_abandon();
    return status;
  }
  /* The cores' share (placement_share_chosen) is cut by the performance models, which learn
   * the CPU kernel's time only from tasks the cores ran: without a --calibrate run, which cuts
   * by the priors and measures, no run would ever give the cores a share. A multi share grows
   * at most twofold a run (MULTI_SHARE_REACH), so it asks for a few. */
  if (root && !o.quiet && ops.share_uncalibrated)
    fprintf(stderr,
            "%s: note: the CPU workers take no share of this batch yet: the performance models "
            "have not measured its step on both CPU and GPU workers; run it %s with "
            "--calibrate\n",
            program, strcmp(o.mode, "multi") == 0 ? "two or three times" : "once");
  struct probe_record probes = {0};
  struct spike_report spikes = {0};
  struct run_result result = {.compartments = compartments,
                              .seconds_building = seconds_building,
                              .seconds_starting = building_started - started};
  status = simulation_run(&o, &ops, &probes, &spikes, &result);
  const double run_ended = now_seconds();
  if (status == HINES_OK && o.spikes_path) {
    result.spikes = &spikes;
    if (spikes.lost) {
      fprintf(stderr,
              "%s: --spikes: a neuron fired more often than its record holds between two "
              "reads; spike times were lost\n",
              program);
      status = HINES_FAILURE;
    }
  }
  /* Numerical trouble (an unstable parameter choice, say) must not pass silently: the final
   * state comes home anyway when the batch is released, so the scan costs no transfer. */
  int bad_neuron, bad_compartment;
  if (status == HINES_OK && ops.find_nonfinite(ops.batch, &bad_neuron, &bad_compartment)) {
    bad_neuron += o.first_neuron;
    fprintf(stderr,
            "%s: numerical trouble: neuron %d, compartment %d has a non-finite voltage after %d "
            "steps (check the membrane and stimulus parameters)\n",
            program, bad_neuron, bad_compartment, o.steps);
    status = HINES_FAILURE;
  }
  struct verify_result verification = {0};
  if (status == HINES_OK && o.verify) {
    result.verified = 1;
    verification = simulation_verify(&o, &ops);
    result.max_rel_error = verification.max_rel_error;
    result.backward_error = verification.backward_error;
    result.verified_neurons = verification.ran;
  }
  double soma_mV = 0;
  if (root && distributed) {
    double *v = malloc((size_t)morphologies[0].n_compartments * sizeof(double));
    if (v)
      ops.voltage(ops.batch, 0, v); /* neuron 0 is rank 0's */
    soma_mV = v ? v[0] : NAN;
    free(v);
  }
  if (o.level_kernel == LEVEL_KERNEL_AUTO && ops.level_kernel == LEVEL_KERNEL_BRANCHES &&
      (o.trunk_branches > 0 || o.trunk_below > 0) && root)
    fprintf(stderr,
            "hinestask: warning: %s applies to the level kernels, and --level-kernel auto ran the "
            "branch kernel (passive, at most 4 M compartments); ignored\n",
            o.trunk_branches > 0 ? "--trunk-branches" : "--trunk-below");
  /* --trunk-branches auto decides from the cells whether there is a trunk for --cell-neurons */
  if (o.level_kernel == LEVEL_KERNEL_LEVELS && o.cell_neurons > 0 && o.trunk_branches < 0 &&
      ops.trunk_levels == 0 && !o.padded && o.trunk_below == 0 && !o.level_tasks &&
      o.model.channels.placement == PLACE_NONE && root)
    fprintf(stderr, "hinestask: warning: --cell-neurons applies to --level-kernel cell, shared or "
                    "branches (or a trunk of branches) only, and --trunk-branches auto took no "
                    "trunk for these cells; ignored\n");
  if (!o.quiet && !distributed) {
    if (ops.cell_neurons > 0)
      printf("%s kernel%s: %d neuron%s per thread block\n",
             ops.level_kernel == LEVEL_KERNEL_SHARED     ? "on-chip cell"
             : ops.level_kernel == LEVEL_KERNEL_BRANCHES ? "branch"
                                                         : "cell-block",
             o.level_kernel == LEVEL_KERNEL_AUTO
                 ? " (--level-kernel auto: passive, at most 4 M compartments)"
                 : "",
             ops.cell_neurons, ops.cell_neurons > 1 ? "s" : "");
    printf("%d tasks per step; first step %.3f ms; then %.3f ms per step, %.3g "
           "compartment-solves/s\n",
           ops.tasks_per_step, 1e3 * result.seconds_first_step,
           1e3 * result.seconds_steps / result.timed_steps,
           (double)compartments * result.timed_steps / result.seconds_steps);
    runtime_count_tasks(); /* where StarPU ran them: a GPU far ahead of another shows here */
    if (runtime_tasks_on_cpus() >= 0 && runtime_gpu_count() > 0) {
      printf("tasks run:");
      for (int g = 0; g < runtime_gpu_count(); g++)
        printf(" GPU %d %lld,", g, runtime_tasks_on_gpu(g));
      printf(" CPU cores %lld\n", runtime_tasks_on_cpus());
    }
    /* The cores' own chunks, and what the share's probe found (mono_batch.h, multi_batch.h) */
    if (ops.cpu_share_neurons > 0 && runtime_gpu_count() > 0) {
      printf("CPU cores' share: %d neurons", ops.cpu_share_neurons);
      if (ops.probe_predicted_us > 0.0)
        printf(" (probed before the run: a round of %d neurons kept the cores %.1f ms against "
               "%.1f predicted%s)",
               ops.probed_neurons, ops.probe_measured_us / 1e3, ops.probe_predicted_us / 1e3,
               ops.probed_neurons != ops.cpu_share_neurons ? ", so cut again" : "");
      printf("\n");
    }
    double *v = malloc((size_t)morphologies[0].n_compartments * sizeof(double));
    ops.voltage(ops.batch, 0, v);
    printf("soma of neuron 0 (%s) at t = %g ms: %.6f mV\n", morphologies[0].name,
           o.steps * o.model.dt_ms, v[0]);
    free(v);
  }
  simulation_destroy(&o, &ops);
  int held = o.trace_dir ? trace_hold_stderr(o.trace_dir, "hinestask: --trace: ") : -1;
  runtime_stop();
  trace_release_stderr(held);
  if (distributed && o.trace_dir)
    cluster_barrier(); /* every rank has flushed its raw trace before rank 0 merges them */
  const double ended = now_seconds();
  result.seconds_total = ended - started;
  result.seconds_ending = ended - run_ended;
  int exit_status = status == HINES_OK ? 0 : 1;
  /* A distributed run meets on rank 0 now that every rank's StarPU has stopped: the shares'
   * measurements, the verification, the probe columns, and one exit status. */
  struct rank_share *shares = NULL;
  if (distributed) {
    const double gather_started = now_seconds();
    long long mine_compartments = 0;
    for (int k = o.first_neuron; k < o.first_neuron + o.local_neurons; k++)
      mine_compartments += morphologies[k % o.n_morph_specs].n_compartments;
    struct rank_share mine = {.first_neuron = o.first_neuron,
                              .neurons = o.local_neurons,
                              .cpu_workers = runtime_cpu_workers(),
                              .cuda_workers = runtime_cuda_workers(),
                              .tasks_per_step = ops.tasks_per_step,
                              .compartments = mine_compartments,
                              .seconds_steps = result.seconds_steps,
                              .seconds_first_step = result.seconds_first_step};
    const struct cluster_node_share *node = runtime_node_share();
    mine.node_rank = node->node_rank;
    mine.first_core = node->first_core;
    mine.last_core = node->last_core;
    mine.tasks_on_cpus = runtime_tasks_on_cpus();
    mine.tasks_on_gpus = mine.tasks_on_cpus < 0 ? -1 : 0;
    for (int g = 0; g < runtime_gpu_count() && mine.tasks_on_gpus >= 0; g++)
      mine.tasks_on_gpus += runtime_tasks_on_gpu(g);
    mine.gpu_driver_pu = runtime_gpu_driver_pu(0);
    snprintf(mine.gpu, sizeof mine.gpu, "%s", runtime_gpu_name(0));
    shares = calloc((size_t)o.ranks, sizeof *shares);
    if (!shares)
      stop_every_rank(&o, 1, "out of memory");
    cluster_gather_to_root(&mine, (int)sizeof mine, shares);
    if (root) { /* the run takes as long as its slowest rank */
      result.tasks_per_step = 0;
      for (int r = 0; r < o.ranks; r++) {
        result.seconds_steps = fmax(result.seconds_steps, shares[r].seconds_steps);
        result.seconds_first_step = fmax(result.seconds_first_step, shares[r].seconds_first_step);
        result.tasks_per_step += shares[r].tasks_per_step;
      }
      result.ranks = o.ranks;
      result.shares = shares;
    }
    if (o.verify)
      gather_verification(&o, &verification);
    if (o.n_probes) {
      if (!root) { /* the time column and the resting row are rank 0's; the others add only
                    * their own columns */
        for (long long r = 0; r < probes.rows; r++)
          probes.values[(size_t)r * (1 + o.n_probes)] = 0;
        for (int j = 0; j < o.n_probes; j++)
          probes.values[1 + j] = 0;
      }
      cluster_sum_to_root(probes.values, probes.rows * (1 + o.n_probes));
    }
    if (o.spikes_path)
      gather_spikes(&o, &spikes);
    exit_status = cluster_max(exit_status);
    result.seconds_gather = now_seconds() - gather_started;
    result.max_rel_error = verification.max_rel_error;
    result.backward_error = verification.backward_error;
    result.verified_neurons = verification.ran;
    if (!o.quiet) {
      printf("%d tasks per step over %d ranks; first step %.3f ms; then %.3f ms per step (the "
             "slowest rank), %.3g compartment-solves/s\n",
             result.tasks_per_step, o.ranks, 1e3 * result.seconds_first_step,
             1e3 * result.seconds_steps / result.timed_steps,
             (double)compartments * result.timed_steps / result.seconds_steps);
      for (int r = 0; r < o.ranks; r++)
        printf("  rank %d: neurons %d to %d (%lld compartments), %d CPU and %d CUDA workers, "
               "%.3f ms per step\n",
               r, shares[r].first_neuron, shares[r].first_neuron + shares[r].neurons - 1,
               shares[r].compartments, shares[r].cpu_workers, shares[r].cuda_workers,
               1e3 * shares[r].seconds_steps / result.timed_steps);
      printf("soma of neuron 0 (%s) at t = %g ms: %.6f mV\n", morphologies[0].name,
             o.steps * o.model.dt_ms, soma_mV);
    }
  }
  if (result.verified && root) {
    const struct verify_result *v = &verification;
    char why[160];
    if (o.verify_tolerance > 0)
      snprintf(why, sizeof why, "--verify-tolerance");
    else
      snprintf(why, sizeof why, "the larger of %.0e and 2 n eps kappa, n = %d, kappa <= %.2g",
               VERIFY_TOLERANCE_FLOOR, v->compartments, v->condition);
    printf("verify: %d sampled neuron%s, backward error %.2e (sequential solver %.2e, bound "
           "%.0e); max relative error %.3e against the sequential reference (tolerance %.2e, "
           "%s): %s\n",
           v->ran, v->ran == 1 ? "" : "s", v->backward_error, v->sequential_backward_error,
           VERIFY_BACKWARD_ERROR_BOUND, v->max_rel_error, v->tolerance, why,
           v->failed ? "FAILED" : "ok");
    if (v->failed) {
      if (v->ran < (o.verify_samples < o.neurons ? o.verify_samples : o.neurons) && v->error == 0)
        fprintf(stderr, "%s: verify FAILED: the reference simulation of neuron %d could not run\n",
                program, v->neuron);
      else if (v->backward_failed)
        fprintf(stderr,
                "%s: verify FAILED: neuron %d's final voltages solve the reference's last step "
                "only to a backward error of %.3e, above %.0e\n",
                program, v->backward_neuron, v->backward_error, VERIFY_BACKWARD_ERROR_BOUND);
      else
        fprintf(stderr,
                "%s: verify FAILED: neuron %d, compartment %d differs from the sequential "
                "reference by a relative %.3e, above its tolerance %.2e (%s)\n",
                program, v->neuron, v->compartment, v->error, v->tolerance, why);
      exit_status = 1;
    }
  }
  if (distributed) /* a failed verification on any rank fails them all */
    exit_status = cluster_max(exit_status);
  if (o.calibrate && !o.quiet) {
    const char *home = getenv("STARPU_HOME");
    printf("calibration: performance models updated under %s/.starpu/sampling/codelets "
           "(starpu_perfmodel_display -l lists them)\n",
           home && *home ? home : "$HOME");
  }
  if (o.trace_dir && root) {
    if (trace_convert_ranks(o.trace_dir, o.ranks, &err)) {
      fprintf(stderr, "%s: --trace: %s\n", program, err.message);
      exit_status = 1;
    } else {
      for (int i = 0; trace_file_names[i]; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", o.trace_dir, trace_file_names[i]);
        if (access(path, F_OK) == 0)
          output_note_written(path);
      }
      if (!o.quiet)
        printf("trace: %s/paje.trace (vite), tasks.rec, dag.dot; summary and Gantt chart: "
               "scripts/trace_report.py %s --png %s/gantt.png\n",
               o.trace_dir, o.trace_dir, o.trace_dir);
    }
  }
  if (o.n_probes && root && write_probes(&o, &probes, &err)) {
    fprintf(stderr, "%s: %s\n", program, err.message);
    exit_status = 1;
  }
  if (o.n_probes && !o.quiet)
    printf("probes: %d voltages every %g ms in %s (plot: scripts/plot_probes.py %s)\n", o.n_probes,
           probes.every * o.model.dt_ms, o.probes_path, o.probes_path);
  free(probes.values);
  if (result.spikes && root && write_spikes(&o, &spikes, &err)) {
    fprintf(stderr, "%s: %s\n", program, err.message);
    exit_status = 1;
  }
  if (result.spikes && !o.quiet)
    printf("spikes: %zu at %d of %d somata (threshold %g mV, %lld to %lld per neuron) in %s\n",
           spikes.n_spikes, spikes.neurons_with_spikes, spikes.neurons, o.spike_threshold_mV,
           spikes.min_per_neuron, spikes.max_per_neuron, o.spikes_path);
  if (o.json_path && write_json(&o, &result, &err)) {
    fprintf(stderr, "%s: %s\n", program, err.message);
    exit_status = 1;
  }
  for (int i = 0; i < o.n_morph_specs; i++)
    morphology_free(&morphologies[i]);
  free(o.params_values);
  if (exit_status)
    output_plan_abandon(); /* an empty run folder does not stay behind */
  /* The last line names every file this run wrote. */
  if (!o.quiet)
    output_print_written(stdout);
  free(shares);
  free(spikes.spikes);
  if (distributed) {
    exit_status = cluster_max(exit_status); /* rank 0's writing too */
    cluster_finish();
  }
  return exit_status;
}
