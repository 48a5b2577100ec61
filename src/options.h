/* hinestask's command line: the options, their defaults, the default job. The only layer that
 * knows option names (lower layers take plain values and return plain messages). */
#ifndef HINES_OPTIONS_H
#define HINES_OPTIONS_H

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "batch_layout.h"
#include "hines_level_kernels.h"
#include "level_layout.h"
#include "neuron_parameters.h"
#include "step_model.h"
#include "swc.h"

#ifndef HINESTASK_VERSION
#define HINESTASK_VERSION "unknown"
#endif

/* Long options whose presence struct options records (options.c checks it fits). */
#define OPTIONS_TRACKED 128

#define MAX_MORPHOLOGIES 256
/* --level-subtrees' default (codelets/level_layout.h, subtree_compartments). */
#define LEVEL_SUBTREES_DEFAULT 64
#define LEVEL_SUBTREES_DEFAULT_TEXT "64"
/* --level-split's default (codelets/level_layout.h, split_compartments; 0: off). */
#define LEVEL_SPLIT_DEFAULT 64
#define LEVEL_SPLIT_DEFAULT_TEXT "64"
/* --trunk-branches auto (the default): the trunk the morphologies call for. */
#define TRUNK_BRANCHES_AUTO LEVEL_TRUNK_AUTO
#define MAX_PROBES 64
/* Probe samples kept in memory before the CSV is written (at 8 bytes each: 400 MB). */
#define MAX_PROBE_VALUES 50000000LL
/* Time steps of one run: step counters are 32-bit ints through the runtime, and a billion steps
 * is already days of run time for the smallest batch. */
#define MAX_STEPS 1000000000LL
#define RESULTS_DIR "hinestask-results"

struct options {
  const char *morph_specs[MAX_MORPHOLOGIES];
  int n_morph_specs;
  int neurons;
  const char *mode; /* "mono", "multi", or "auto" until simulation_choose_mode decides */
  /* Why the mode is what it is (given, or the automatic choice's reason), for people and JSON. */
  const char *mode_reason;
  int mono_option_given, multi_option_given; /* an option that applies to one mode only */
  enum batch_layout_kind layout;
  int layout_auto; /* neither --layout nor --block-size given: simulation_choose_layout picks */
  /* mono: the CPU workers take the whole batch beside the GPUs (simulation_choose_layout,
   * mono_cores_alone_chosen), in blocks */
  int cores_alone;
  int block_size;
  int neurons_per_task;
  int parts_per_task;    /* multi: 0 for the default */
  int trunk_below;       /* multi: 0 none (the default), else systems */
  double trunk_branches; /* multi: --trunk-branches R (systems a neuron; 0 none; auto: negative) */
  enum gpu_launch gpu_launch;     /* multi, chunk tasks */
  enum level_kernel level_kernel; /* multi, chunk tasks: --level-kernel */
  enum level_rows level_rows;     /* multi, level kernels on GPUs: --level-rows */
  int rows_apart_below;           /* --level-rows N (apart below N branches); 0: the word's */
  int stored_pivots_below;        /* multi: --level-pivots (0: computed, INT_MAX: stored) */
  int level_priorities;           /* multi, level GPU kernels: --level-priorities (1/0/-1 auto) */
  int level_lean;                 /* multi, level kernels on GPUs: --level-lean (1: on) */
  int level_row_factors;          /* multi, level kernels: --level-factors rows (1) or elements */
  enum level_warps level_warps;   /* multi, chunk tasks: --level-warps */
  int warp_lanes;                 /* multi, chunk tasks: --warp-lanes */
  int subtree_compartments;       /* multi: --level-subtrees (0: off) */
  int split_compartments;         /* multi: --level-split (0: off) */
  int level_root_center;          /* multi: --level-root center (1) or soma (0) */
  int cell_neurons;               /* --cell-neurons; 0: automatic */
  int cpu_group;
  int steps;
  double dx_um;
  int summary, verify, quiet;
  int padded;      /* multi: CP (1) or NCP (0) */
  int level_tasks; /* multi: one task per level (1) or per chunk and step (0) */
  int per_neuron;  /* multi: the papers' baseline, the mono kernel with one tree per neuron */
  enum level_order level_order; /* multi: AUTO unless --level-order was given */
  const char *trace_dir;
  const char *json_path;
  /* Membrane, channels, stimulus and dt: made once, with the batch's size, by options_parse. */
  struct step_model model;
  int verify_samples;
  /* Voltage probes: neuron and compartment of each, recorded every probe_every_ms. */
  int n_probes;
  int probe_neuron[MAX_PROBES], probe_compartment[MAX_PROBES];
  double probe_every_ms;
  int probe_every_steps; /* probe_every_ms in steps, from 1 to steps (options_parse) */
  const char *probes_path;
  /* --spikes FILE: upward crossings of spike_threshold_mV at every soma, detected on the
   * device (runtime/spike_set.h); NULL: no detection. */
  const char *spikes_path;
  double spike_threshold_mV;
  int force;               /* --force: outputs may replace existing files */
  double verify_tolerance; /* --verify-tolerance; 0: the tolerance simulation_verify computes */
  int default_job;         /* no --morph given: the shipped multi-morphology job */
  int hh_given, probe_every_given;
  const char *channels_spec; /* --channels as typed (NULL: not given) */
  int calibrate;             /* --calibrate: StarPU calibration run */
  /* SWC geometry and segmentation (--geometry, --d-lambda) and --tstop: see morph/swc.h. */
  enum swc_geometry geometry;
  double d_lambda, d_lambda_hz; /* 0: not given */
  int nseg_factor;              /* --nseg-factor; 0: not given (1) */
  double tstop_ms;              /* 0: not given */
  const char *tstop_text;
  /* How the run was asked for, for its JSON summary: the command line as given, and when the
   * program started (wall clock, UTC). */
  int argc;
  char **argv;
  time_t started;
  /* options given explicitly: entry (option - first option), options.c (one byte each, so a new
   * option never outgrows it; a 64-bit mask did at the 65th) */
  unsigned char given[OPTIONS_TRACKED];
  int history_models; /* --models starpu: StarPU's own history models (codelets/hines_codelet.h) */
  int window;         /* --window: steps in flight (0: the runtime's default) */
  int task_steps;     /* --task-steps: steps per mono step task (0: one) */
  int pin;            /* --pin: chunks only on the kind of worker they were sized for */
  int cpu_share;      /* --cpu-share: enum placement_share (runtime/placement.h) */
  int cpu_chunks;     /* --cpu-chunks: the multi share's chunks a CPU worker (0: default) */
  int arrange;        /* --arrange: multi chunks by morphology (enum placement_share's values) */
  /* A distributed run (mpirun, runtime/cluster.h): this process is rank `rank` of `ranks` and
   * computes neurons first_neuron .. first_neuron + local_neurons - 1 of the batch. Not set by
   * the command line; all 0 for a run of one process (the whole batch). */
  int rank, ranks, first_neuron, local_neurons;
  /* --params FILE: a parameter sweep (src/params_file.h), read by main with the other inputs:
   * neuron k's value of parameter p at params_values[k * NEURON_PARAMETER_COUNT + p] for the p
   * with params_given[p]; NULL without --params. */
  const char *params_path;
  double *params_values;
  int params_rows;
  int params_given[NEURON_PARAMETER_COUNT];
};

/* Which shape of run the options describe: what applies to it (the JSON summary writes only
 * those options, options_warn names the others). */
static inline int options_multi(const struct options *o) {
  return strcmp(o->mode, "multi") == 0;
}
/* Multi runs with one task per chunk and step (the default), per level, or the per-neuron
 * baseline. */
static inline int options_chunk_tasks(const struct options *o) {
  return options_multi(o) && !o->level_tasks && !o->per_neuron;
}
/* Whether the level solver roots its systems at each cell's center (--level-root center, the
 * default): only with the stimulus at the soma, which the kernels find by its number relative
 * to the soma (codelets/level_layout.h, level_batch_options.reroot); elsewhere at the soma. */
static inline int options_level_root_center(const struct options *o) {
  return o->level_root_center && o->model.stimulus.compartment == 0;
}
static inline int options_block_layout(const struct options *o) {
  return o->layout == BATCH_LAYOUT_BLOCK || o->layout == BATCH_LAYOUT_SHARED;
}

extern const char *const program;

/* Parses argv into *o and resolves the default job; prints one line and exits 2 on bad usage,
 * prints --help or --version and exits 0. */
void options_parse(int argc, char **argv, struct options *o);

/* One "hinestask: warning: ..." line on `out` per option given that does not apply to the run
 * the options describe (and so is ignored), and for more CPU workers asked for (STARPU_NCPU)
 * than this process may use cores. Call once every input is accepted. */
void options_warn(const struct options *o, FILE *out);

/* The default job's banner line, from the values in effect (options override any of it). */
void options_print_default_job(const struct options *o, FILE *out);

/* One line on stderr naming the problem (format with one %s for value) and exit 2. */
void bad_usage(const char *format, const char *value) __attribute__((noreturn));

/* What --level-kernel calls a kernel (also the JSON's level_kernel). */
const char *options_level_kernel_word(enum level_kernel kernel);
/* What --level-priorities calls the choice asked for (the JSON's level_priorities_asked). */
const char *options_level_priorities_word(const struct options *o);
/* What --arrange asked for (the JSON's arrange_asked). */
const char *options_arrange_word(const struct options *o);
/* What --level-rows calls a choice (also the JSON's level_rows). */
const char *options_level_rows_word(const struct options *o);
/* What --level-pivots calls a choice (also the JSON's level_pivots): auto, stored, computed or
 * the number given. */
const char *options_level_pivots_word(const struct options *o);

#endif
