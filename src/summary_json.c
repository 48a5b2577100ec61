/* The run's JSON summary: everything that shaped the run (command line, machine, StarPU, the
 * options in effect, membrane, channels, stimulus, time step), then what it measured. Written so
 * that the run can be repeated from it: `command_line` run again in `working_directory`, or the
 * parameters alone (tests/test_json_rerun.sh does both and compares the voltages bit for bit).
 * Only the options that apply to the run are written (no `multi_tasks` in a mono run); input
 * values print as a person writes them (the shortest text that reads back as the same double:
 * 0.025, not 0.025000000000000001). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hinestask_commit.h"
#include "output_files.h"
#include "params_file.h"
#include "placement.h"
#include "reports.h"
#include "runtime.h"

/* Keys of one object level at a time: a comma and a newline before every key but the first. */
struct json {
  FILE *f;
  int depth;
  int first[8];
};

/* Valid JSON whatever bytes the text holds (output_files.h: UTF-8 kept, other bytes escaped). */
static void json_string(struct json *j, const char *text) {
  output_json_string(j->f, text);
}

static void json_key(struct json *j, const char *key) {
  fprintf(j->f, "%s\n%*s", j->first[j->depth] ? "" : ",", 2 * (j->depth + 1), "");
  j->first[j->depth] = 0;
  json_string(j, key);
  fputs(": ", j->f);
}

static void json_open(struct json *j, const char *key) {
  if (key)
    json_key(j, key);
  fputc('{', j->f);
  j->first[++j->depth] = 1;
}

static void json_close(struct json *j) {
  int empty = j->first[j->depth];
  j->depth--;
  if (empty)
    fputc('}', j->f); /* {} */
  else
    fprintf(j->f, "\n%*s}", 2 * (j->depth + 1), "");
}

/* An input value: the shortest %g text that reads back as the same double; null if not finite. */
static void json_exact(FILE *f, double value) {
  if (!isfinite(value)) {
    fputs("null", f);
    return;
  }
  char text[64];
  int digits = 1;
  for (; digits < 17; digits++) {
    snprintf(text, sizeof text, "%.*g", digits, value);
    if (strtod(text, NULL) == value)
      break;
  }
  snprintf(text, sizeof text, "%.*e", digits - 1, value);
  int exponent = atoi(strchr(text, 'e') + 1);
  /* Without an exponent where a person would write none: 100, 0.0001, not 1e+02, 1e-04. */
  if (exponent >= -6 && exponent < 16) {
    int decimals = digits - 1 - exponent;
    snprintf(text, sizeof text, "%.*f", decimals > 0 ? decimals : 0, value);
  }
  if (strtod(text, NULL) != value)
    snprintf(text, sizeof text, "%.17g", value);
  fputs(text, f);
}

/* A value computed from inputs (a product, say): its shortest text once rounded to 12
 * significant digits, so 0.3 * 0.75 prints 0.225, not 0.22499999999999998. */
static void json_derived(FILE *f, double value) {
  char text[32];
  snprintf(text, sizeof text, "%.12g", value);
  json_exact(f, strtod(text, NULL));
}

/* A measured value: nine significant digits are more than the measurement holds. */
static void json_measured(FILE *f, double value) {
  if (isfinite(value))
    fprintf(f, "%.9g", value);
  else
    fputs("null", f);
}

/* The CPU workers' task counts (executing 0) or ms executing (1) as an array, null when StarPU's
 * profiling counted nothing (runtime_cpu_worker_load). */
static void write_cpu_worker_load(FILE *f, int executing) {
  if (runtime_tasks_on_cpus() < 0) {
    fputs("null", f);
    return;
  }
  fputc('[', f);
  long long tasks;
  double ms;
  for (int i = 0; runtime_cpu_worker_load(i, &tasks, &ms) == 0; i++) {
    fputs(i ? ", " : "", f);
    if (executing)
      fprintf(f, "%.1f", ms);
    else
      fprintf(f, "%lld", tasks);
  }
  fputc(']', f);
}

static void key_string(struct json *j, const char *key, const char *value) {
  json_key(j, key);
  if (value)
    json_string(j, value);
  else
    fputs("null", j->f);
}
static void key_int(struct json *j, const char *key, long long value) {
  json_key(j, key);
  fprintf(j->f, "%lld", value);
}
static void key_exact(struct json *j, const char *key, double value) {
  json_key(j, key);
  json_exact(j->f, value);
}
static void key_measured(struct json *j, const char *key, double value) {
  json_key(j, key);
  json_measured(j->f, value);
}
static void key_bool(struct json *j, const char *key, int value) {
  json_key(j, key);
  fputs(value ? "true" : "false", j->f);
}

/* The CPU's model name from /proc/cpuinfo ("model name" on x86, "Model name"/"CPU part" on
 * others), or "unknown". */
static void cpu_model(char *out, size_t size) {
  snprintf(out, size, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) && strncmp(line, "Model name", 10) &&
        strncmp(line, "Model", 5))
      continue;
    char *colon = strchr(line, ':');
    if (!colon)
      continue;
    colon++;
    colon += strspn(colon, " \t");
    colon[strcspn(colon, "\n")] = '\0';
    if (*colon) {
      snprintf(out, size, "%s", colon);
      break;
    }
  }
  fclose(f);
}

void json_write_summary(FILE *f, const struct options *o, const struct run_result *r) {
  struct json j = {.f = f, .depth = 0};
  fputc('{', f);
  j.first[0] = 1;

  /* What ran, where, when. */
  key_string(&j, "program", "hinestask");
  key_string(&j, "version", HINESTASK_VERSION);
  key_string(&j, "commit", HINESTASK_COMMIT);
  json_key(&j, "command_line");
  fputc('[', f);
  for (int i = 0; i < o->argc; i++) {
    json_string(&j, o->argv[i]);
    fputs(i + 1 < o->argc ? ", " : "", f);
  }
  fputc(']', f);
  char text[PATH_MAX];
  key_string(&j, "working_directory", getcwd(text, sizeof text) ? text : NULL);
  struct tm utc;
  if (gmtime_r(&o->started, &utc) && strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc))
    key_string(&j, "started_utc", text);
  else
    key_string(&j, "started_utc", NULL);
  key_string(&j, "host", gethostname(text, sizeof text) == 0 ? text : NULL);
  cpu_model(text, sizeof text);
  key_string(&j, "cpu", text);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  key_int(&j, "cpu_cores", cores > 0 ? cores : 0);
  json_key(&j, "gpus");
  fputc('[', f);
  for (int i = 0; i < runtime_gpu_count(); i++) {
    json_string(&j, runtime_gpu_name(i));
    fputs(i + 1 < runtime_gpu_count() ? ", " : "", f);
  }
  fputc(']', f);
  key_string(&j, "starpu_version", runtime_starpu_version());
  key_string(&j, "scheduler", runtime_scheduler());
  key_int(&j, "cpu_workers", runtime_cpu_workers());
  /* beside GPUs, cores other processes kept busy at start-up are left to them (runtime.h) */
  key_int(&j, "cores_left_to_others", runtime_cores_left());
  if (runtime_busy_measured() >= 0.0)
    key_measured(&j, "host_busy_processors", runtime_busy_measured());
  else
    key_string(&j, "host_busy_processors", NULL);
  key_int(&j, "cuda_workers", runtime_cuda_workers());
  /* Where StarPU ran the tasks: per GPU (in the order of "gpus") and on CPU cores; null when
   * StarPU's profiling was off (STARPU_PROFILING=0). */
  json_key(&j, "tasks_per_gpu");
  if (runtime_tasks_on_cpus() < 0) {
    fputs("null", f);
  } else {
    fputc('[', f);
    for (int i = 0; i < runtime_gpu_count(); i++)
      fprintf(f, "%s%lld", i ? ", " : "", runtime_tasks_on_gpu(i));
    fputc(']', f);
  }
  json_key(&j, "tasks_on_cpus");
  if (runtime_tasks_on_cpus() < 0)
    fputs("null", f);
  else
    fprintf(f, "%lld", runtime_tasks_on_cpus());
  /* Each CPU worker's tasks and ms executing them over the run (null as above): how evenly the
   * cores shared their work, and how busy they were against the run's seconds. */
  json_key(&j, "cpu_worker_tasks");
  write_cpu_worker_load(f, 0);
  json_key(&j, "cpu_worker_executing_ms");
  write_cpu_worker_load(f, 1);
  /* The StarPU variables that choose workers and models, as the run saw them. */
  static const char *const variables[] = {
      "STARPU_SCHED",     "STARPU_NCPU",           "STARPU_NCPUS",          "STARPU_NCUDA",
      "STARPU_CALIBRATE", "STARPU_LIMIT_CUDA_MEM", "STARPU_WORKERS_NOBIND", "STARPU_HOME"};
  json_open(&j, "environment");
  for (size_t i = 0; i < sizeof variables / sizeof *variables; i++) {
    const char *value = getenv(variables[i]);
    /* --calibrate sets STARPU_CALIBRATE itself: the summary says "calibrate" instead. */
    if (value && !(o->calibrate && strcmp(variables[i], "STARPU_CALIBRATE") == 0))
      key_string(&j, variables[i], value);
  }
  json_close(&j);

  /* The batch and the options that apply to it. */
  int multi = options_multi(o);
  key_bool(&j, "default_job", o->default_job);
  key_string(&j, "mode", o->mode);
  key_string(&j, "mode_reason", o->mode_reason); /* --mode given, or auto's choice */
  if (!multi) {
    key_string(&j, "layout", batch_layout_name(o->layout));
    /* auto: neither --layout nor --block-size given (simulation_choose_layout) */
    key_string(&j, "layout_asked", o->layout_auto ? "auto" : batch_layout_name(o->layout));
    /* a small batch beside GPUs run by the CPU workers alone (simulation_choose_layout) */
    key_bool(&j, "cores_alone", o->cores_alone);
    if (options_block_layout(o))
      key_int(&j, "block_size", o->block_size);
    key_int(&j, "cpu_group", o->cpu_group);
  } else {
    /* "layout" names the multi storage too, as the benchmark scripts read it. */
    key_string(&j, "layout", o->per_neuron ? "neuron" : o->padded ? "levels-cp" : "levels-ncp");
    key_string(&j, "multi_tasks", o->per_neuron ? "neuron" : o->level_tasks ? "levels" : "chunk");
    if (!o->per_neuron) {
      key_string(&j, "padding", o->padded ? "cp" : "ncp");
      key_int(&j, "level_subtrees", o->subtree_compartments);
      key_int(&j, "level_split", o->split_compartments);
      key_string(&j, "level_root", options_level_root_center(o) ? "center" : "soma");
      key_string(&j, "level_order",
                 o->level_order == LEVEL_ORDER_DEPTH ||
                         (o->level_order == LEVEL_ORDER_AUTO && o->level_tasks)
                     ? "depth"
                     : "height");
      key_string(&j, "level_pivots", options_level_pivots_word(o));
      key_int(&j, "stored_pivots_below", o->stored_pivots_below);
    }
    if (options_chunk_tasks(o)) {
      key_int(&j, "trunk_below", o->trunk_below);
      if (o->trunk_branches < 0) /* auto; trunk_levels: the levels its trunk of branches took */
        key_string(&j, "trunk_branches", "auto");
      else
        key_exact(&j, "trunk_branches", o->trunk_branches);
      key_int(&j, "trunk_levels", r->trunk_levels);
      key_int(&j, "task_parts", o->parts_per_task > 0 ? o->parts_per_task : 1);
      /* the kernel the chunk tasks ran; level_kernel_asked: auto when the batch chose it */
      key_string(&j, "level_kernel", options_level_kernel_word((enum level_kernel)r->level_kernel));
      key_string(&j, "level_kernel_asked", options_level_kernel_word(o->level_kernel));
      key_string(&j, "level_rows", options_level_rows_word(o));
      /* what ran; level_priorities_asked: auto when the chunks' size chose it */
      key_string(&j, "level_priorities", r->level_priorities ? "on" : "off");
      key_string(&j, "level_priorities_asked", options_level_priorities_word(o));
      key_string(&j, "level_lean", o->level_lean ? "on" : "off");
      key_string(&j, "level_factors", o->level_row_factors ? "rows" : "elements");
      if (o->level_rows == LEVEL_ROWS_AUTO) /* GPUs build apart the rows of smaller levels */
        key_int(&j, "rows_apart_below", r->rows_apart_below);
      key_string(&j, "level_warps",
                 o->level_warps == LEVEL_WARPS_OFF   ? "off"
                 : o->level_warps == LEVEL_WARPS_ALL ? "all"
                                                     : "auto");
      key_int(&j, "warp_lanes", o->warp_lanes);
      /* what --level-warps resolved to: auto gives none to a passive batch with lean sweeps */
      key_int(&j, "warp_systems", r->warp_systems);
      if (r->level_kernel == LEVEL_KERNEL_CELL || r->level_kernel == LEVEL_KERNEL_SHARED ||
          r->level_kernel == LEVEL_KERNEL_BRANCHES) /* the neurons per block the batch used */
        key_int(&j, "cell_neurons", r->cell_neurons > 0 ? r->cell_neurons : o->cell_neurons);
      if (runtime_cuda_workers() > 0)
        /* early: on GPUs of compute capability 9.0 and newer, plain launches elsewhere */
        key_string(&j, "gpu_launch",
                   o->gpu_launch == GPU_LAUNCH_PLAIN   ? "plain"
                   : o->gpu_launch == GPU_LAUNCH_EARLY ? "early"
                                                       : "auto");
    }
  }
  /* How the runtime ran the steps (runtime.h): steps in flight, where-masks, GPU streams. */
  key_int(&j, "window",
          r->window > 0   ? r->window
          : o->window > 0 ? o->window
                          : RUNTIME_DEFAULT_WINDOW);
  json_key(&j, "pin");
  fputs(o->pin ? "true" : "false", f);
  key_string(&j, "cpu_share",
             o->cpu_share == PLACEMENT_SHARE_ON    ? "on"
             : o->cpu_share == PLACEMENT_SHARE_OFF ? "off"
                                                   : "auto");
  if (multi) { /* the multi share's chunks a CPU worker; null: the default */
    json_key(&j, "cpu_chunks");
    if (o->cpu_chunks > 0)
      fprintf(f, "%d", o->cpu_chunks);
    else
      fputs("null", f);
    key_string(&j, "arrange_asked", options_arrange_word(o));
  }
  if (runtime_cuda_workers() > 0) {
    const char *streams = getenv("STARPU_NWORKER_PER_CUDA");
    key_int(&j, "nworker_per_cuda", streams && *streams ? atoi(streams) : 1);
  }
  json_key(&j, "task_neurons"); /* null: the default, one task per GPU or four per CPU worker */
  if (o->neurons_per_task > 0)
    fprintf(f, "%d", o->neurons_per_task);
  else
    fputs("null", f);
  /* null: the default (task_steps says what it resolved to); a rerun asks what was asked */
  json_key(&j, "task_steps_asked");
  if (o->task_steps > 0)
    fprintf(f, "%d", o->task_steps);
  else
    fputs("null", f);
  json_key(&j, "morphologies");
  fputc('[', f);
  for (int i = 0; i < o->n_morph_specs; i++) {
    json_string(&j, o->morph_specs[i]);
    fputs(i + 1 < o->n_morph_specs ? ", " : "", f);
  }
  fputc(']', f);
  if (o->dx_um > 0)
    key_exact(&j, "dx_um", o->dx_um);
  if (o->nseg_factor > 1)
    key_int(&j, "nseg_factor", o->nseg_factor);
  key_int(&j, "neurons", o->neurons);
  key_int(&j, "compartments", r->compartments);
  key_int(&j, "steps", o->steps);
  key_exact(&j, "dt_ms", o->model.dt_ms);

  /* The model: membrane, channels, stimulus (units of morph/cable.h). */
  const struct cable_parameters *cable = &o->model.cable;
  json_open(&j, "membrane");
  key_exact(&j, "cm_uF_per_cm2", cable->cm_uF_per_cm2);
  key_exact(&j, "ra_ohm_cm", cable->ra_ohm_cm);
  key_exact(&j, "gl_S_per_cm2", cable->gl_S_per_cm2);
  key_exact(&j, "el_mV", cable->el_mV);
  key_exact(&j, "initial_mV", o->model.initial_mV);
  json_close(&j);
  static const char *const hh_names[] = {"none", "soma", "all"};
  const struct channel_set *channels = &o->model.channels;
  const struct channel_mechanism *hh = &channels->mechanism[MECHANISM_HH];
  key_string(&j, "hh", hh_names[hh->placement]);
  static const char *const rates_names[] = {"exact", "table"}; /* enum hh_rates */
  key_string(&j, "hh_rates", rates_names[o->model.hh_rates]);
  if (hh->placement != PLACE_NONE) {
    json_open(&j, "hh_channels"); /* NEURON's hh (codelets/mechanisms.c) */
    key_exact(&j, "gnabar_S_per_cm2", hh->gbar[HH_CURRENT_NA]);
    key_exact(&j, "gkbar_S_per_cm2", hh->gbar[HH_CURRENT_K]);
    key_exact(&j, "gl_S_per_cm2", hh->gbar[HH_CURRENT_LEAK]);
    key_exact(&j, "ena_mV", hh->reversal[HH_CURRENT_NA]);
    key_exact(&j, "ek_mV", hh->reversal[HH_CURRENT_K]);
    key_exact(&j, "el_mV", hh->reversal[HH_CURRENT_LEAK]);
    json_close(&j);
  }
  char spec[256];
  channel_set_spec(channels, spec, sizeof spec);
  key_string(&j, "channels", spec);
  /* Every placed mechanism in full, as the kernels compute it (scripts/compare_neuron.py builds
   * NEURON's channels from this). Rates: a * exp((v - vh)/s), a / (exp((v - vh)/s) + 1) and
   * a * (v - vh) / (1 - exp(-(v - vh)/s)) (mechanisms.h). */
  if (channels->placement != PLACE_NONE) {
    static const char *const forms[] = {"exp", "sigmoid", "linoid"}; /* enum rate_kind */
    json_open(&j, "mechanisms");
    for (int m = 0; m < MECHANISM_COUNT; m++) {
      const struct channel_mechanism *mech = &channels->mechanism[m];
      const struct mechanism_description *d = &mechanism_table[m];
      if (mech->placement == PLACE_NONE)
        continue;
      json_open(&j, d->name);
      key_string(&j, "placement", hh_names[mech->placement]);
      key_string(&j, "title", d->title);
      json_open(&j, "currents");
      for (int c = 0; c < mech->shape.n_currents; c++) {
        json_open(&j, d->gbar_names[c]);
        key_exact(&j, "gbar_S_per_cm2", mech->gbar[c]);
        key_exact(&j, "reversal_mV", mech->reversal[c]);
        if (d->reversal_names[c]) /* the --channels NAME.PARAM that sets it */
          key_string(&j, "reversal_parameter", d->reversal_names[c]);
        json_close(&j);
      }
      json_close(&j);
      json_open(&j, "gates");
      for (int g = 0; g < mech->shape.n_gates; g++) {
        json_open(&j, d->gate_names[g]);
        key_string(&j, "current", d->gbar_names[mech->shape.current[g]]);
        key_int(&j, "power", mech->shape.power[g]);
        for (int which = 0; which < 2; which++) {
          const struct rate_form *f = which ? &mech->beta[g] : &mech->alpha[g];
          json_open(&j, which ? "beta" : "alpha");
          key_string(&j, "form",
                     forms[which ? mech->shape.beta_kind[g] : mech->shape.alpha_kind[g]]);
          key_exact(&j, "a", f->a);
          key_exact(&j, "vh_mV", f->vh);
          key_exact(&j, "s_mV", f->s);
          json_close(&j);
        }
        json_close(&j);
      }
      json_close(&j);
      json_close(&j);
    }
    json_close(&j);
  }
  const struct stimulus *s = &o->model.stimulus;
  json_open(&j, "stimulus");
  key_int(&j, "compartment", s->compartment);
  key_exact(&j, "amplitude_nA", s->amplitude_nA);
  key_exact(&j, "spread", s->spread);
  /* codelets/stimulus.h: amplitude * (1 + spread * (position - 0.5)), position 0 to 1 by
   * neuron number (0.5 for a single neuron). */
  json_key(&j, "amplitude_range_nA");
  fputc('[', f);
  json_derived(f, o->neurons > 1 ? s->amplitude_nA * (1 - s->spread / 2) : s->amplitude_nA);
  fputs(", ", f);
  json_derived(f, o->neurons > 1 ? s->amplitude_nA * (1 + s->spread / 2) : s->amplitude_nA);
  fputc(']', f);
  key_exact(&j, "start_ms", s->start_ms);
  key_exact(&j, "stop_ms", s->stop_ms);
  json_close(&j);
  if (o->params_path) {
    /* A parameter sweep: these columns of the file replace the values above, neuron by
     * neuron (a neuron with its own stim_amp gets no spread). */
    json_open(&j, "params");
    key_string(&j, "file", o->params_path);
    key_int(&j, "rows", o->params_rows);
    json_key(&j, "columns");
    fputc('[', f);
    for (int j = 0, p, written = 0; (p = params_column_listed(j)) >= 0; j++)
      if (o->params_given[p])
        fprintf(f, "%s\"%s\"", written++ ? ", " : "", params_column_name(p));
    fputc(']', f);
    json_close(&j);
  }

  /* Outputs asked for. */
  if (o->n_probes) {
    json_key(&j, "probes");
    fputc('[', f);
    for (int p = 0; p < o->n_probes; p++)
      fprintf(f, "\"%d:%d\"%s", o->probe_neuron[p], o->probe_compartment[p],
              p + 1 < o->n_probes ? ", " : "");
    fputc(']', f);
    key_exact(&j, "probe_every_ms", o->probe_every_ms);
    key_string(&j, "probes_file", o->probes_path);
  }
  if (o->spikes_path) {
    /* Upward crossings of the threshold at every soma, detected on the device; the times
     * (linearly interpolated within the step) are in the file, the counts summed up here. */
    json_open(&j, "spikes");
    key_string(&j, "file", o->spikes_path);
    key_exact(&j, "threshold_mV", o->spike_threshold_mV);
    key_string(&j, "time", "interpolated");
    if (r->spikes) {
      key_int(&j, "total", (long long)r->spikes->n_spikes);
      key_int(&j, "neurons_with_spikes", r->spikes->neurons_with_spikes);
      key_int(&j, "min_per_neuron", r->spikes->min_per_neuron);
      key_int(&j, "max_per_neuron", r->spikes->max_per_neuron);
    }
    json_close(&j);
  }
  if (o->calibrate)
    key_bool(&j, "calibrate", 1);
  if (o->trace_dir)
    key_string(&j, "trace_dir", o->trace_dir);

  /* What the run measured. */
  key_measured(&j, "seconds_total", r->seconds_total);
  key_measured(&j, "seconds_per_step", r->seconds_steps / r->timed_steps);
  key_measured(&j, "seconds_first_step", r->seconds_first_step);
  key_measured(&j, "seconds_building", r->seconds_building);
  key_measured(&j, "seconds_starting", r->seconds_starting);
  key_measured(&j, "seconds_ending", r->seconds_ending);
  key_int(&j, "tasks_per_step", r->tasks_per_step);
  key_int(&j, "task_steps", r->task_steps > 1 ? r->task_steps : 1); /* steps per step task */
  key_int(&j, "cpu_share_neurons", r->cpu_share_neurons);           /* the cores' own chunks */
  key_int(&j, "interleaved_chunks", r->interleaved_chunks);         /* the GPU's, beside them */
  key_int(&j, "arranged_neurons", r->arranged_neurons); /* multi: laid out by morphology */
  key_int(&j, "aligned_neurons", r->aligned_neurons);   /* multi: GPU chunks of aligned rows */
  key_int(&j, "aligned_tail_neurons", r->aligned_tail); /* of which the share's first cell's */
  /* a share chosen, none cut yet: the models lack this batch's measurements (--calibrate) */
  key_bool(&j, "cpu_share_uncalibrated", r->share_uncalibrated);
  if (r->probe_predicted_us > 0.0) {
    /* the cores' share measured before the batch ran (runtime/multi_batch.h, MULTI_SHARE_PROBE;
     * runtime/mono_batch.h, MONO_SHARE_PROBE): a round of its chunks on the cores, measured and
     * predicted, and the neurons of the cut before it (cpu_share_neurons: after) */
    key_measured(&j, "share_probe_measured_ms", r->probe_measured_us / 1e3);
    key_measured(&j, "share_probe_predicted_ms", r->probe_predicted_us / 1e3);
    key_int(&j, "share_probed_neurons", r->probed_neurons);
  }
  if (r->probe_gpu_task_us > 0.0) {
    /* multi: the probe's busiest core's round against the GPUs' largest chunk's task as the
     * models predict it; the cut made again where the core ends after it (runtime/multi_batch.h,
     * MULTI_SHARE_PROBE_BUSIEST) */
    key_measured(&j, "share_probe_busiest_ms", r->probe_busiest_us / 1e3);
    key_measured(&j, "share_probe_gpu_task_ms", r->probe_gpu_task_us / 1e3);
  }
  if (r->set_up_neurons > 0) {
    /* multi: the share a whole set larger, or with the GPUs' rest, probed in the same way
     * (runtime/multi_batch.h, MULTI_SHARE_SET_UP), taken where cpu_share_neurons is as large */
    key_int(&j, "share_set_up_neurons", r->set_up_neurons);
    key_measured(&j, "share_set_up_measured_ms", r->set_up_measured_us / 1e3);
  }
  key_measured(&j, "compartment_solves_per_s",
               (double)r->compartments * r->timed_steps / r->seconds_steps);
  if (r->shares) {
    /* A distributed run (mpirun): the totals above are the whole batch's, the time per step the
     * slowest rank's; each rank's share and what it measured follow, in rank order. */
    key_int(&j, "ranks", r->ranks);
    key_measured(&j, "seconds_gather", r->seconds_gather);
    json_key(&j, "rank_shares");
    fputc('[', f);
    for (int k = 0; k < r->ranks; k++) {
      const struct rank_share *share = &r->shares[k];
      fputs(k ? ", " : "", f);
      json_open(&j, NULL);
      key_int(&j, "rank", k);
      key_int(&j, "first_neuron", share->first_neuron);
      key_int(&j, "neurons", share->neurons);
      key_int(&j, "compartments", share->compartments);
      key_int(&j, "cpu_workers", share->cpu_workers);
      key_int(&j, "cuda_workers", share->cuda_workers);
      key_int(&j, "tasks_per_step", share->tasks_per_step);
      if (share->tasks_on_cpus >= 0) { /* what its StarPU ran, on its GPUs and its cores */
        key_int(&j, "tasks_on_gpus", share->tasks_on_gpus);
        key_int(&j, "tasks_on_cpus", share->tasks_on_cpus);
      }
      key_int(&j, "node_rank", share->node_rank);
      if (share->first_core >= 0) { /* the cores hinestask gave it (runtime/cluster.h) */
        key_int(&j, "first_core", share->first_core);
        key_int(&j, "last_core", share->last_core);
      }
      if (share->gpu[0]) {
        key_string(&j, "gpu", share->gpu);
        key_int(&j, "gpu_driver_cpu", share->gpu_driver_pu);
      }
      key_measured(&j, "seconds_per_step", share->seconds_steps / r->timed_steps);
      key_measured(&j, "seconds_first_step", share->seconds_first_step);
      key_measured(&j, "compartment_solves_per_s",
                   (double)share->compartments * r->timed_steps / share->seconds_steps);
      json_close(&j);
    }
    fputc(']', f);
  }
  if (r->verified) {
    key_int(&j, "verified_neurons", r->verified_neurons);
    json_key(&j, "backward_error");
    if (isfinite(r->backward_error))
      fprintf(f, "%.3e", r->backward_error);
    else
      fputs("null", f);
    json_key(&j, "max_rel_error");
    if (isfinite(r->max_rel_error))
      fprintf(f, "%.3e", r->max_rel_error);
    else
      fputs("null", f);
  } else {
    key_string(&j, "max_rel_error", NULL); /* not verified (--verify) */
  }
  fputs("\n}\n", f);
}
