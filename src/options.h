/* hinestask's command line: the options, their defaults, the default job. The only layer that
 * knows option names (lower layers take plain values and return plain messages). */
#ifndef HINES_OPTIONS_H
#define HINES_OPTIONS_H

#include "batch_layout.h"
#include "hines_level_kernels.h"
#include "level_layout.h"
#include "step_model.h"

#ifndef HINESTASK_VERSION
#define HINESTASK_VERSION "unknown"
#endif

#define MAX_MORPHOLOGIES 256
#define MAX_PROBES 64
/* Probe samples kept in memory before the CSV is written (at 8 bytes each: 400 MB). */
#define MAX_PROBE_VALUES 50000000LL
#define RESULTS_DIR "hinestask-results"

struct options {
  const char *morph_specs[MAX_MORPHOLOGIES];
  int n_morph_specs;
  int neurons;
  const char *mode;
  enum batch_layout_kind layout;
  int block_size;
  int neurons_per_task;
  int parts_per_task;         /* multi: 0 for the default */
  int trunk_below;            /* multi: 0 none (the default), else systems */
  enum gpu_launch gpu_launch; /* multi, chunk tasks */
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
  const char *probes_path;
  int default_job; /* no --morph given: the shipped multi-morphology job */
  int hh_given, stimulus_given;
  int calibrate; /* --calibrate: StarPU calibration run */
  int window;    /* --window: steps in flight (0: the runtime's default) */
  int pin;       /* --pin: chunks only on the kind of worker they were sized for */
};

extern const char *const program;

/* Parses argv into *o and resolves the default job; prints one line and exits 2 on bad usage,
 * prints --help or --version and exits 0. */
void options_parse(int argc, char **argv, struct options *o);

/* One line on stderr naming the problem (format with one %s for value) and exit 2. */
void bad_usage(const char *format, const char *value) __attribute__((noreturn));

#endif
