/* hinestask: the voltage step of compartmental neuron simulation for large batches of neurons,
 * on CPUs and NVIDIA GPUs, scheduled by StarPU. This file only parses options and calls the
 * runtime; the solvers live in codelets/, the StarPU side in runtime/. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch_layout.h"
#include "cable.h"
#include "mono_batch.h"
#include "morph_spec.h"
#include "multi_batch.h"
#include "neuron_batch.h"
#include "reference_simulation.h"
#include "runtime.h"
#include "synthetic.h"
#include "trace.h"

#ifndef HINESTASK_VERSION
#define HINESTASK_VERSION "unknown"
#endif

#define MAX_MORPHOLOGIES 256
#define MAX_PROBES 64
/* Probe samples kept in memory before the CSV is written (at 8 bytes each: 400 MB). */
#define MAX_PROBE_VALUES 50000000LL
#define VERIFY_TOLERANCE 1e-9

struct options {
  const char *morph_specs[MAX_MORPHOLOGIES];
  int n_morph_specs;
  int neurons;
  const char *mode;
  enum batch_layout_kind layout;
  int block_size;
  int neurons_per_task;
  int parts_per_task; /* multi: 0 for the default */
  int trunk_below;    /* multi: 0 none (the default), else systems */
  int plain_launches; /* multi, GPU: no early (programmatic dependent) kernel launches */
  int cpu_group;
  int steps;
  double dt_ms;
  double dx_um;
  int summary, verify, quiet;
  int padded;      /* multi: CP (1) or NCP (0) */
  int level_tasks; /* multi: one task per level (1) or per chunk and step (0) */
  int per_neuron;  /* multi: the papers' baseline, the mono kernel with one tree per neuron */
  enum level_order level_order; /* multi: AUTO unless --level-order was given */
  const char *trace_dir;
  const char *json_path;
  struct cable_parameters cable;
  struct hh_parameters hh;
  struct stimulus stimulus;
  int verify_samples;
  /* Voltage probes: neuron and compartment of each, recorded every probe_every_ms. */
  int n_probes;
  int probe_neuron[MAX_PROBES], probe_compartment[MAX_PROBES];
  double probe_every_ms;
  const char *probes_path;
  int default_job; /* no --morph given: the shipped multi-morphology job */
  int hh_given, stimulus_given;
  int calibrate; /* --calibrate: StarPU calibration run */
  /* SWC geometry and segmentation (--geometry, --d-lambda) and --tstop: see swc.h. */
  enum swc_geometry geometry;
  double d_lambda, d_lambda_hz; /* 0: not given */
  double tstop_ms;              /* 0: not given */
  const char *tstop_text;
};

static const char *program = "hinestask";

static void usage(FILE *out) {
  fprintf(
      out,
      "Usage: %s [OPTION]...\n"
      "Compute the implicit voltage step of compartmental neuron models (Hines systems)\n"
      "for a large batch of neurons, as StarPU tasks on CPU cores and CUDA GPUs.\n"
      "With no option it runs the default job:\n%s.\n"
      "\n"
      "Batch:\n"
      "  --morph SPEC         morphology (repeatable): FILE.swc, synthetic:CLASS with CLASS one\n"
      "                       of small-low small-high medium-low medium-high big-low big-high,\n"
      "                       synthetic:fig6:SIZE:PERCENT, synthetic:fig14:LEVELS (2-4),\n"
      "                       synthetic:random:MIN:MAX[:SEED], synthetic:tree:N:B[:SEED]\n"
      "  --neurons N          neurons in the batch (default 2560; 24 in the default job)\n"
      "  --mode mono|multi    mono-morphology layouts or multi-morphology branch levels\n"
      "                       (default mono when --morph is given)\n"
      "  --layout L           mono layout: flat, interleaved, block, shared (default interleaved)\n"
      "  --block-size BS      neurons per block for block/shared (default 32)\n"
      "  --task-neurons N     neurons per task (default: one task per GPU, or 4 per CPU worker)\n"
      "  --task-parts P       multi: split each chunk task into P independent neuron sets run on\n"
      "                       P GPU streams, each starting when the previous one has eliminated\n"
      "                       its deepest level (default 1)\n"
      "  --trunk-below N      multi, chunk tasks: the levels from the root up to the first one\n"
      "                       with N systems or more are swept by one GPU thread per neuron\n"
      "                       instead of one kernel per level (default 0: never)\n"
      "  --gpu-launch early|plain  multi, chunk tasks: launch each level's GPU kernel early, so\n"
      "                       it starts while the previous level finishes (default early;\n"
      "                       compute capability 9.0 and newer), or plainly after it\n"
      "  --padding cp|ncp     multi: pad every branch of a level to the longest (cp) or not\n"
      "                       (ncp, default)\n"
      "  --multi-tasks chunk|levels|neuron  multi: one task per chunk and step sweeping all\n"
      "                       its levels (default), one task per level and sweep, or the\n"
      "                       papers' baseline: the mono kernel with one tree per neuron\n"
      "  --level-order depth|height  multi: level of a branch counted from the root (the\n"
      "                       papers'; default with --multi-tasks levels) or from the leaves\n"
      "                       (all leaves in one level; default with chunk tasks)\n"
      "  --calibrate          calibration run: refine the performance models of every codelet\n"
      "                       on every worker (stored under STARPU_HOME; run it twice before\n"
      "                       trusting dmda with CPU and GPU workers together)\n"
      "  --hh none|soma|all   Hodgkin-Huxley channels (NEURON's hh) on no, the first or every\n"
      "                       compartment (default none; all in the default job)\n"
      "  --probe N:C          record compartment C of neuron N (repeatable)\n"
      "  --probe-every MS     probe sampling interval (default 0.1)\n"
      "  --probes FILE        write the probe voltages as CSV\n"
      "  --cpu-group W        neurons vectorised together by CPU kernels, 1-64 (default 32)\n"
      "  --geometry neuron|cylinders  how SWC samples become compartments: as NEURON's\n"
      "                       Import3d and nseg make them (default), or one cylinder per\n"
      "                       sample and a soma sphere (the older benchmarks' layout)\n"
      "  --dx UM              SWC segments of at most UM um: NEURON's d_X rule, an odd nseg\n"
      "                       per section (cylinders: resample every branch); default one\n"
      "                       segment per sample\n"
      "  --d-lambda F[:HZ]    nseg by NEURON's d_lambda rule: segments of at most F length\n"
      "                       constants at HZ (default 100) Hz\n"
      "Time:\n"
      "  --steps N            time steps (default 1000; 200 ms worth in the default job)\n"
      "  --tstop MS           simulated time instead of --steps: round(MS / dt) steps\n"
      "  --dt MS              step length in ms (default 0.025)\n"
      "Membrane and stimulus (units: mV, ms, nA, uF/cm2, Ohm cm, S/cm2):\n"
      "  --cm C  --ra R  --gl G  --el E   passive membrane (default 1, 100, 1e-4, -65)\n"
      "  --stim-amp NA        current clamp amplitude in nA (default 0.1)\n"
      "  --stim-start MS, --stim-stop MS  clamp window (default 1 and 1e9)\n"
      "  --stim-compartment I compartment that receives the clamp (default 0, the soma)\n"
      "  --stim-spread S      amplitude varies by +-S/2 across the batch (default 0.5); a\n"
      "                       comparison with another simulator needs --stim-spread 0\n"
      "Output:\n"
      "  --summary            print the morphology summary of each --morph, then exit\n"
      "  --verify             compare sampled neurons against the sequential reference solver\n"
      "  --trace DIR          record an FxT trace and convert it into DIR/paje.trace\n"
      "  --json FILE          write the run summary as JSON\n"
      "  --quiet              no progress or banner; errors still go to stderr\n"
      "  --help, --version\n"
      "\n"
      "Environment: STARPU_SCHED (scheduler, e.g. dmda; unknown names are refused),\n"
      "STARPU_NCPU and STARPU_NCUDA (worker counts), STARPU_HOME (performance models),\n"
      "STARPU_LIMIT_CUDA_MEM (MB per GPU).\n"
      "Exit status: 0 success, 1 failure during the run, 2 bad usage or bad input.\n",
      program,
      "24 neurons of the six cells in morph/data (multi-morphology), HH channels\n"
      "everywhere, a 1 nA step into each soma from 20 to 180 ms, 200 ms simulated; soma\n"
      "voltages and the JSON summary go to hinestask-results/");
}

/* One line on stderr and exit 2: the contract for bad usage. */
static void bad_usage(const char *format, const char *value) {
  fprintf(stderr, "%s: ", program);
  fprintf(stderr, format, value);
  fprintf(stderr, " (try '%s --help')\n", program);
  exit(2);
}

static int parse_int(const char *option, const char *text, int min, int max) {
  char *end;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (errno || end == text || *end || value < min || value > max) {
    char message[160];
    snprintf(message, sizeof message, "%s needs a whole number from %d to %d, got '%%s'", option,
             min, max);
    bad_usage(message, text);
  }
  return (int)value;
}

static double parse_double(const char *option, const char *text, double min, int min_exclusive) {
  char *end;
  errno = 0;
  double value = strtod(text, &end);
  if (errno || end == text || *end || !isfinite(value) || value < min ||
      (min_exclusive && value == min)) {
    char message[160];
    snprintf(message, sizeof message, "%s needs a number %s %g, got '%%s'", option,
             min_exclusive ? ">" : ">=", min);
    bad_usage(message, text);
  }
  return value;
}

/* A file we will write must be creatable: its folder exists and is writable. */
static void check_writable_path(const char *option, const char *path) {
  if (!*path) {
    char message[160];
    snprintf(message, sizeof message, "%s needs a file name, got '%%s'", option);
    bad_usage(message, path);
  }
  char folder[PATH_MAX];
  snprintf(folder, sizeof folder, "%s", path);
  char *slash = strrchr(folder, '/');
  if (slash == folder)
    folder[1] = 0;
  else if (slash)
    *slash = 0;
  else
    snprintf(folder, sizeof folder, ".");
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    char message[160];
    snprintf(message, sizeof message, "%s '%%s' is a directory, not a file", option);
    bad_usage(message, path);
  }
  if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode) || access(folder, W_OK) != 0) {
    char message[160];
    snprintf(message, sizeof message, "%s '%%s': folder does not exist or is not writable", option);
    bad_usage(message, path);
  }
}

enum long_only_options {
  OPT_MORPH = 256,
  OPT_NEURONS,
  OPT_MODE,
  OPT_LAYOUT,
  OPT_BLOCK_SIZE,
  OPT_TASK_NEURONS,
  OPT_TASK_PARTS,
  OPT_TRUNK_BELOW,
  OPT_GPU_LAUNCH,
  OPT_CPU_GROUP,
  OPT_STEPS,
  OPT_DT,
  OPT_DX,
  OPT_SUMMARY,
  OPT_VERIFY,
  OPT_TRACE,
  OPT_JSON,
  OPT_QUIET,
  OPT_HELP,
  OPT_VERSION,
  OPT_CM,
  OPT_RA,
  OPT_GL,
  OPT_EL,
  OPT_STIM_AMP,
  OPT_STIM_START,
  OPT_STIM_STOP,
  OPT_STIM_COMPARTMENT,
  OPT_STIM_SPREAD,
  OPT_PADDING,
  OPT_LEVEL_ORDER,
  OPT_HH,
  OPT_PROBE,
  OPT_PROBE_EVERY,
  OPT_PROBES,
  OPT_MULTI_TASKS,
  OPT_CALIBRATE,
  OPT_GEOMETRY,
  OPT_D_LAMBDA,
  OPT_TSTOP,
};

/* The morphologies shipped in morph/data for the default job (permissive licenses, see
 * morph/data/PROVENANCE.md). */
static const char *const shipped_morphologies[] = {
    "c91662.swc",           "pyramidal.swc",
    "morph_ca1_n120.swc",   "morph_allen_485574832.swc",
    "HSN-fluoro02.CNG.swc", "Cha-F-000012.CNG.swc"};
#define N_SHIPPED (sizeof shipped_morphologies / sizeof *shipped_morphologies)
#define RESULTS_DIR "hinestask-results"

/* With no --morph, hinestask runs its default job: a multi-morphology batch of the shipped
 * cells (or, if the data folder is gone, of the papers' synthetic classes) with Hodgkin-Huxley
 * channels everywhere, a current step into each soma, 200 ms of simulated time, the somas
 * probed, results in hinestask-results/. Options given explicitly keep their values. */
static void resolve_default_job(struct options *o) {
  static char paths[N_SHIPPED][PATH_MAX];
  if (o->n_morph_specs == 0 && (!o->mode || strcmp(o->mode, "multi") == 0)) {
    o->default_job = 1;
    o->mode = "multi";
    for (size_t i = 0; i < N_SHIPPED; i++) {
      snprintf(paths[i], sizeof paths[i], "%s/%s", HINESTASK_DATA_DIR, shipped_morphologies[i]);
      o->morph_specs[o->n_morph_specs++] =
          access(paths[i], R_OK) == 0 ? paths[i] : synthetic_classes[i % 6].name;
    }
    if (access(paths[0], R_OK) != 0) { /* synthetic class names need their prefix */
      for (int i = 0; i < o->n_morph_specs; i++) {
        snprintf(paths[i], sizeof paths[i], "synthetic:%s", synthetic_classes[i % 6].name);
        o->morph_specs[i] = paths[i];
      }
    }
    if (!o->neurons)
      o->neurons = 4 * (int)N_SHIPPED;
    if (!o->steps)
      o->steps = (int)(200.0 / o->dt_ms + 0.5);
    if (!o->hh_given)
      o->hh.placement = HH_ALL;
    if (!o->stimulus_given) {
      o->stimulus.amplitude_nA = 1.0;
      o->stimulus.start_ms = 20.0;
      o->stimulus.stop_ms = 180.0;
    }
    if (o->n_probes == 0)
      for (int i = 0; i < (int)N_SHIPPED && i < o->neurons; i++) {
        o->probe_neuron[o->n_probes] = i;
        o->probe_compartment[o->n_probes++] = 0;
      }
    if (!o->probes_path)
      o->probes_path = RESULTS_DIR "/default-probes.csv";
    if (!o->json_path)
      o->json_path = RESULTS_DIR "/default-summary.json";
  }
  if (!o->mode)
    o->mode = "mono";
  if (o->n_morph_specs == 0)
    o->morph_specs[o->n_morph_specs++] = "synthetic:medium-high";
  if (!o->neurons)
    o->neurons = 2560;
  if (!o->steps)
    o->steps = 1000;
}

static void parse_options(int argc, char **argv, struct options *o) {
  static const struct option long_options[] = {
      {"morph", required_argument, 0, OPT_MORPH},
      {"neurons", required_argument, 0, OPT_NEURONS},
      {"mode", required_argument, 0, OPT_MODE},
      {"layout", required_argument, 0, OPT_LAYOUT},
      {"block-size", required_argument, 0, OPT_BLOCK_SIZE},
      {"task-neurons", required_argument, 0, OPT_TASK_NEURONS},
      {"task-parts", required_argument, 0, OPT_TASK_PARTS},
      {"trunk-below", required_argument, 0, OPT_TRUNK_BELOW},
      {"cpu-group", required_argument, 0, OPT_CPU_GROUP},
      {"steps", required_argument, 0, OPT_STEPS},
      {"dt", required_argument, 0, OPT_DT},
      {"dx", required_argument, 0, OPT_DX},
      {"summary", no_argument, 0, OPT_SUMMARY},
      {"verify", no_argument, 0, OPT_VERIFY},
      {"trace", required_argument, 0, OPT_TRACE},
      {"json", required_argument, 0, OPT_JSON},
      {"quiet", no_argument, 0, OPT_QUIET},
      {"help", no_argument, 0, OPT_HELP},
      {"version", no_argument, 0, OPT_VERSION},
      {"cm", required_argument, 0, OPT_CM},
      {"ra", required_argument, 0, OPT_RA},
      {"gl", required_argument, 0, OPT_GL},
      {"el", required_argument, 0, OPT_EL},
      {"stim-amp", required_argument, 0, OPT_STIM_AMP},
      {"stim-start", required_argument, 0, OPT_STIM_START},
      {"stim-stop", required_argument, 0, OPT_STIM_STOP},
      {"stim-compartment", required_argument, 0, OPT_STIM_COMPARTMENT},
      {"stim-spread", required_argument, 0, OPT_STIM_SPREAD},
      {"padding", required_argument, 0, OPT_PADDING},
      {"level-order", required_argument, 0, OPT_LEVEL_ORDER},
      {"gpu-launch", required_argument, 0, OPT_GPU_LAUNCH},
      {"hh", required_argument, 0, OPT_HH},
      {"probe", required_argument, 0, OPT_PROBE},
      {"probe-every", required_argument, 0, OPT_PROBE_EVERY},
      {"probes", required_argument, 0, OPT_PROBES},
      {"multi-tasks", required_argument, 0, OPT_MULTI_TASKS},
      {"calibrate", no_argument, 0, OPT_CALIBRATE},
      {"geometry", required_argument, 0, OPT_GEOMETRY},
      {"d-lambda", required_argument, 0, OPT_D_LAMBDA},
      {"tstop", required_argument, 0, OPT_TSTOP},
      {0, 0, 0, 0}};
  *o = (struct options){.neurons = 0, /* 0: the default of the job, resolved below */
                        .mode = NULL,
                        .layout = BATCH_LAYOUT_INTERLEAVED,
                        .block_size = 32,
                        .cpu_group = 32,
                        .steps = 0,
                        .dt_ms = 0.025,
                        .cable = cable_defaults,
                        .hh = HH_DEFAULTS,
                        .probe_every_ms = 0.1,
                        .stimulus = {.compartment = 0,
                                     .amplitude_nA = 0.1,
                                     .start_ms = 1.0,
                                     .stop_ms = 1e9,
                                     .spread = 0.5},
                        .verify_samples = 8};
  opterr = 0; /* our own one-line messages */
  int c;
  while ((c = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
    switch (c) {
    case OPT_MORPH:
      if (o->n_morph_specs == MAX_MORPHOLOGIES)
        bad_usage("too many --morph options (at most 256): '%s'", optarg);
      o->morph_specs[o->n_morph_specs++] = optarg;
      break;
    case OPT_NEURONS:
      o->neurons = parse_int("--neurons", optarg, 1, INT_MAX / 2);
      break;
    case OPT_MODE:
      if (strcmp(optarg, "mono") && strcmp(optarg, "multi"))
        bad_usage("--mode must be mono or multi, got '%s'", optarg);
      o->mode = optarg;
      break;
    case OPT_LAYOUT: {
      int layout = batch_layout_parse(optarg);
      if (layout < 0)
        bad_usage("--layout must be flat, interleaved, block or shared, got '%s'", optarg);
      o->layout = (enum batch_layout_kind)layout;
      break;
    }
    case OPT_BLOCK_SIZE:
      o->block_size = parse_int("--block-size", optarg, 1, 1 << 20);
      break;
    case OPT_TASK_NEURONS:
      o->neurons_per_task = parse_int("--task-neurons", optarg, 1, INT_MAX / 2);
      break;
    case OPT_TASK_PARTS:
      o->parts_per_task = parse_int("--task-parts", optarg, 1, 8);
      break;
    case OPT_TRUNK_BELOW:
      o->trunk_below = parse_int("--trunk-below", optarg, 0, INT_MAX);
      break;
    case OPT_CPU_GROUP:
      o->cpu_group = parse_int("--cpu-group", optarg, 1, 64);
      break;
    case OPT_STEPS:
      o->steps = parse_int("--steps", optarg, 1, INT_MAX / 2);
      break;
    case OPT_DT:
      o->dt_ms = parse_double("--dt", optarg, 0, 1);
      break;
    case OPT_DX:
      o->dx_um = parse_double("--dx", optarg, 0, 1);
      break;
    case OPT_SUMMARY:
      o->summary = 1;
      break;
    case OPT_VERIFY:
      o->verify = 1;
      break;
    case OPT_TRACE:
      o->trace_dir = optarg;
      break;
    case OPT_JSON:
      check_writable_path("--json", optarg);
      o->json_path = optarg;
      break;
    case OPT_QUIET:
      o->quiet = 1;
      break;
    case OPT_HELP:
      usage(stdout);
      exit(0);
    case OPT_VERSION:
      printf("hinestask %s\n", HINESTASK_VERSION);
      exit(0);
    case OPT_CM:
      o->cable.cm_uF_per_cm2 = parse_double("--cm", optarg, 0, 1);
      break;
    case OPT_RA:
      o->cable.ra_ohm_cm = parse_double("--ra", optarg, 0, 1);
      break;
    case OPT_GL:
      o->cable.gl_S_per_cm2 = parse_double("--gl", optarg, 0, 0);
      break;
    case OPT_EL:
      o->cable.el_mV = parse_double("--el", optarg, -1e6, 0);
      break;
    case OPT_STIM_AMP:
      o->stimulus.amplitude_nA = parse_double("--stim-amp", optarg, -1e9, 0);
      o->stimulus_given = 1;
      break;
    case OPT_STIM_START:
      o->stimulus.start_ms = parse_double("--stim-start", optarg, 0, 0);
      o->stimulus_given = 1;
      break;
    case OPT_STIM_STOP:
      o->stimulus.stop_ms = parse_double("--stim-stop", optarg, 0, 0);
      o->stimulus_given = 1;
      break;
    case OPT_STIM_COMPARTMENT:
      o->stimulus.compartment = parse_int("--stim-compartment", optarg, 0, INT_MAX);
      break;
    case OPT_STIM_SPREAD:
      o->stimulus.spread = parse_double("--stim-spread", optarg, 0, 0);
      break;
    case OPT_HH:
      if (strcmp(optarg, "none") == 0)
        o->hh.placement = HH_NONE;
      else if (strcmp(optarg, "soma") == 0)
        o->hh.placement = HH_SOMA;
      else if (strcmp(optarg, "all") == 0)
        o->hh.placement = HH_ALL;
      else
        bad_usage("--hh must be none, soma or all, got '%s'", optarg);
      o->hh_given = 1;
      break;
    case OPT_PROBE: {
      char *colon, *end;
      errno = 0;
      long neuron = strtol(optarg, &colon, 10);
      long compartment = *colon == ':' ? strtol(colon + 1, &end, 10) : -1;
      if (errno || colon == optarg || *colon != ':' || colon[1] == '\0' || *end || neuron < 0 ||
          neuron > INT_MAX / 2 || compartment < 0 || compartment > INT_MAX / 2)
        bad_usage("--probe needs NEURON:COMPARTMENT (whole numbers from 0), got '%s'", optarg);
      if (o->n_probes == MAX_PROBES)
        bad_usage("too many --probe options (at most 64): '%s'", optarg);
      o->probe_neuron[o->n_probes] = (int)neuron;
      o->probe_compartment[o->n_probes++] = (int)compartment;
      break;
    }
    case OPT_PROBE_EVERY:
      o->probe_every_ms = parse_double("--probe-every", optarg, 0, 1);
      break;
    case OPT_PROBES:
      check_writable_path("--probes", optarg);
      o->probes_path = optarg;
      break;
    case OPT_CALIBRATE:
      /* StarPU's calibration mode: every task of this run feeds the history models under
       * STARPU_HOME, and dmda explores all workers instead of trusting partial models. */
      setenv("STARPU_CALIBRATE", "1", 1);
      o->calibrate = 1;
      break;
    case OPT_MULTI_TASKS:
      if (strcmp(optarg, "levels") && strcmp(optarg, "chunk") && strcmp(optarg, "neuron"))
        bad_usage("--multi-tasks must be chunk, levels or neuron, got '%s'", optarg);
      o->level_tasks = strcmp(optarg, "levels") == 0;
      o->per_neuron = strcmp(optarg, "neuron") == 0;
      break;
    case OPT_PADDING:
      if (strcmp(optarg, "cp") && strcmp(optarg, "ncp"))
        bad_usage("--padding must be cp or ncp, got '%s'", optarg);
      o->padded = strcmp(optarg, "cp") == 0;
      break;
    case OPT_LEVEL_ORDER:
      if (strcmp(optarg, "depth") && strcmp(optarg, "height"))
        bad_usage("--level-order must be depth or height, got '%s'", optarg);
      o->level_order = strcmp(optarg, "depth") == 0 ? LEVEL_ORDER_DEPTH : LEVEL_ORDER_HEIGHT;
      break;
    case OPT_GPU_LAUNCH:
      if (strcmp(optarg, "early") && strcmp(optarg, "plain"))
        bad_usage("--gpu-launch must be early or plain, got '%s'", optarg);
      o->plain_launches = strcmp(optarg, "plain") == 0;
      break;
    case OPT_GEOMETRY:
      if (strcmp(optarg, "neuron") && strcmp(optarg, "cylinders"))
        bad_usage("--geometry must be neuron or cylinders, got '%s'", optarg);
      o->geometry = strcmp(optarg, "neuron") == 0 ? SWC_GEOMETRY_NEURON : SWC_GEOMETRY_CYLINDERS;
      break;
    case OPT_D_LAMBDA: { /* F or F:HZ */
      char fraction[64];
      const char *colon = strchr(optarg, ':');
      size_t length = colon ? (size_t)(colon - optarg) : strlen(optarg);
      if (length >= sizeof fraction)
        bad_usage("--d-lambda needs F or F:HZ (numbers), got '%s'", optarg);
      snprintf(fraction, sizeof fraction, "%.*s", (int)length, optarg);
      o->d_lambda = parse_double("--d-lambda", fraction, 0, 1);
      o->d_lambda_hz = colon ? parse_double("--d-lambda frequency", colon + 1, 0, 1) : 100.0;
      break;
    }
    case OPT_TSTOP:
      o->tstop_ms = parse_double("--tstop", optarg, 0, 1);
      o->tstop_text = optarg;
      break;
    case '?':
    default:
      if (optopt)
        bad_usage("option '%s' needs a value", argv[optind - 1]);
      bad_usage("unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind < argc)
    bad_usage("unexpected argument '%s'", argv[optind]);
  if (o->tstop_ms > 0) {
    if (o->steps)
      bad_usage("give --tstop or --steps, not both (got --tstop %s and --steps)", o->tstop_text);
    double steps = floor(o->tstop_ms / o->dt_ms + 0.5);
    if (!(steps >= 1 && steps <= INT_MAX / 2))
      bad_usage("--tstop %s ms is less than one step of --dt or more than 1073741823 steps",
                o->tstop_text);
    o->steps = (int)steps;
  }
  if (o->d_lambda > 0 && o->dx_um > 0)
    bad_usage("--dx and --d-lambda are two rules for the segments; give one, not both (%s)",
              "--d-lambda");
  if (o->d_lambda > 0 && o->geometry == SWC_GEOMETRY_CYLINDERS)
    bad_usage("--d-lambda cuts NEURON sections; drop '--geometry %s'", "cylinders");
  if (o->trace_dir) {
    struct stat st;
    if (stat(o->trace_dir, &st) == 0 && !S_ISDIR(st.st_mode))
      bad_usage("--trace '%s' exists and is not a directory", o->trace_dir);
  }
  resolve_default_job(o);
  if (o->level_tasks && o->level_order == LEVEL_ORDER_HEIGHT)
    bad_usage("--level-order height needs one task per chunk (a branch's children may sit several "
              "levels deeper than a per-level task sees); drop '--multi-tasks %s'",
              "levels");
  if (o->per_neuron && o->hh.placement != HH_NONE)
    bad_usage("--multi-tasks neuron (the per-neuron baseline) has no channels; drop '--hh %s'",
              o->hh.placement == HH_SOMA ? "soma" : "all");
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void print_summary(const struct morphology *m) {
  printf("%s: %d compartments, %d branches, %d levels, max depth %d, total length %.1f um\n",
         m->name, m->n_compartments, m->n_branches, m->n_levels, m->max_depth, m->total_length_um);
}

/* Refuses up front a batch that cannot fit in host memory, with the numbers. */
static void check_host_memory(double bytes) {
  double available = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
  if (bytes > 0.9 * available) {
    fprintf(stderr,
            "%s: the batch needs %.1f GiB of host memory but this machine has %.1f GiB "
            "(reduce --neurons)\n",
            program, bytes / (1 << 30), available / (1 << 30));
    exit(2);
  }
}

struct run_result {
  double seconds_total, seconds_steps, seconds_first_step, max_rel_error;
  int timed_steps; /* steps after the first, over which seconds_steps is measured */
  int tasks_per_step;
  int verified;
  long long compartments;
};

static int write_json(const struct options *o, const struct run_result *r) {
  char temporary[PATH_MAX];
  snprintf(temporary, sizeof temporary, "%s.partial", o->json_path);
  FILE *f = fopen(temporary, "w");
  if (!f)
    return HINES_FAILURE;
  const char *layout = strcmp(o->mode, "multi") == 0 ? (o->padded ? "levels-cp" : "levels-ncp")
                                                     : batch_layout_name(o->layout);
  fprintf(f, "{\n  \"mode\": \"%s\",\n  \"layout\": \"%s\",\n  \"scheduler\": \"%s\",\n", o->mode,
          layout, runtime_scheduler());
  fprintf(f, "  \"cpu_workers\": %d,\n  \"cuda_workers\": %d,\n  \"neurons\": %d,\n",
          runtime_cpu_workers(), runtime_cuda_workers(), o->neurons);
  fprintf(f, "  \"compartments\": %lld,\n  \"steps\": %d,\n  \"dt_ms\": %.17g,\n", r->compartments,
          o->steps, o->dt_ms);
  fprintf(f, "  \"block_size\": %d,\n  \"seconds_total\": %.9g,\n  \"seconds_per_step\": %.9g,\n",
          o->block_size, r->seconds_total, r->seconds_steps / r->timed_steps);
  fprintf(f, "  \"seconds_first_step\": %.9g,\n  \"tasks_per_step\": %d,\n", r->seconds_first_step,
          r->tasks_per_step);
  static const char *const hh_names[] = {"none", "soma", "all"};
  fprintf(f, "  \"hh\": \"%s\",\n  \"multi_tasks\": \"%s\",\n", hh_names[o->hh.placement],
          o->per_neuron    ? "neuron"
          : o->level_tasks ? "levels"
                           : "chunk");
  if (strcmp(o->mode, "multi") == 0 && !o->per_neuron)
    fprintf(f, "  \"level_order\": \"%s\",\n",
            o->level_order == LEVEL_ORDER_DEPTH ||
                    (o->level_order == LEVEL_ORDER_AUTO && o->level_tasks)
                ? "depth"
                : "height");
  else
    fprintf(f, "  \"level_order\": null,\n");
  if (strcmp(o->mode, "multi") == 0 && !o->per_neuron && !o->level_tasks)
    fprintf(f, "  \"trunk_below\": %d,\n", o->trunk_below);
  else
    fprintf(f, "  \"trunk_below\": null,\n");
  if (strcmp(o->mode, "multi") == 0 && !o->per_neuron && !o->level_tasks)
    fprintf(f, "  \"gpu_launch\": \"%s\",\n", o->plain_launches ? "plain" : "early");
  else
    fprintf(f, "  \"gpu_launch\": null,\n");
  if (o->parts_per_task > 0)
    fprintf(f, "  \"task_parts\": %d,\n", o->parts_per_task);
  else
    fprintf(f, "  \"task_parts\": null,\n"); /* the default */
  if (o->neurons_per_task > 0)
    fprintf(f, "  \"task_neurons\": %d,\n", o->neurons_per_task);
  else
    fprintf(f, "  \"task_neurons\": null,\n"); /* the default: one task per GPU or a few per CPU */
  fprintf(f, "  \"compartment_solves_per_s\": %.9g,\n",
          (double)r->compartments * r->timed_steps / r->seconds_steps);
  if (r->verified)
    fprintf(f, "  \"max_rel_error\": %.3e,\n", r->max_rel_error);
  else
    fprintf(f, "  \"max_rel_error\": null,\n");
  fprintf(f, "  \"version\": \"%s\",\n  \"morphologies\": [", HINESTASK_VERSION);
  for (int i = 0; i < o->n_morph_specs; i++) {
    fputc('"', f);
    for (const char *c = o->morph_specs[i]; *c; c++) {
      if (*c == '"' || *c == '\\')
        fputc('\\', f);
      if ((unsigned char)*c < 0x20)
        fprintf(f, "\\u%04x", *c);
      else
        fputc(*c, f);
    }
    fprintf(f, "\"%s", i + 1 < o->n_morph_specs ? ", " : "");
  }
  fprintf(f, "]\n}\n");
  if (fclose(f) != 0 || rename(temporary, o->json_path) != 0) {
    remove(temporary);
    return HINES_FAILURE;
  }
  return HINES_OK;
}

/* Mono and multi batches seen through the four operations the time loop, the verification and
 * the report need. */
struct batch_ops {
  void *batch;
  int (*run)(void *batch, int steps, double t0_ms);
  void (*voltage)(void *batch, int neuron, double *out_mV);
  int (*find_nonfinite)(void *batch, int *neuron, int *compartment);
  int tasks_per_step;
  const struct morphology *morphologies;
  int n_morphologies; /* neuron k has morphologies[k % n_morphologies] */
};

static int run_mono(void *batch, int steps, double t0) {
  return mono_batch_run(batch, steps, t0);
}
static void voltage_mono(void *batch, int neuron, double *out) {
  mono_batch_voltage(batch, neuron, out);
}
static int nonfinite_mono(void *batch, int *neuron, int *compartment) {
  return mono_batch_find_nonfinite(batch, neuron, compartment);
}
static int nonfinite_multi(void *batch, int *neuron, int *compartment) {
  return multi_batch_find_nonfinite(batch, neuron, compartment);
}
static int run_neuron(void *batch, int steps, double t0) {
  return neuron_batch_run(batch, steps, t0);
}
static void voltage_neuron(void *batch, int neuron, double *out) {
  neuron_batch_voltage(batch, neuron, out);
}
static int nonfinite_neuron(void *batch, int *neuron, int *compartment) {
  return neuron_batch_find_nonfinite(batch, neuron, compartment);
}
static int run_multi(void *batch, int steps, double t0) {
  return multi_batch_run(batch, steps, t0);
}
static void voltage_multi(void *batch, int neuron, double *out) {
  multi_batch_voltage(batch, neuron, out);
}

/* Verification: the sampled neurons, re-simulated by the sequential reference. */
static double verify_batch(const struct options *o, const struct batch_ops *ops) {
  double worst = 0;
  for (int s = 0; s < o->verify_samples && isfinite(worst); s++) {
    int neuron = o->verify_samples > 1
                     ? (int)((long long)s * (o->neurons - 1) / (o->verify_samples - 1))
                     : 0;
    const struct morphology *m = &ops->morphologies[neuron % ops->n_morphologies];
    int n = m->n_compartments;
    double *got = malloc((size_t)n * sizeof(double)), *want = malloc((size_t)n * sizeof(double));
    struct stimulus stim = o->stimulus;
    stim.n_neurons_total = o->neurons;
    for (int i = 0; i < n; i++)
      want[i] = o->cable.el_mV;
    struct hines_error err;
    if (!got || !want ||
        reference_simulate(m, &o->cable, &o->hh, o->dt_ms, o->steps, 0.0, &stim, neuron, want,
                           &err)) {
      fprintf(stderr, "%s: verification could not run\n", program);
      worst = INFINITY;
    } else {
      ops->voltage(ops->batch, neuron, got);
      double diff = 0, scale = 1e-300;
      for (int i = 0; i < n; i++) {
        diff = fmax(diff, isnan(got[i]) ? INFINITY : fabs(got[i] - want[i]));
        scale = fmax(scale, fabs(want[i]));
      }
      worst = fmax(worst, diff / scale);
    }
    free(got);
    free(want);
  }
  return worst;
}

/* Probe samples: rows of (time, one voltage per probe), kept in memory and written at the end. */
struct probe_record {
  int every; /* steps between samples */
  long long rows, capacity;
  double *values; /* rows x (1 + n_probes) */
  const struct options *o;
  double *scratch; /* one neuron's voltages */
};

static int probe_record_init(struct probe_record *p, const struct options *o,
                             const struct batch_ops *ops) {
  p->o = o;
  p->every = (int)(o->probe_every_ms / o->dt_ms + 0.5);
  if (p->every < 1)
    p->every = 1;
  p->capacity = o->steps / p->every + 2;
  p->values = malloc((size_t)p->capacity * (1 + o->n_probes) * sizeof(double));
  int largest = 0;
  for (int i = 0; i < ops->n_morphologies; i++)
    if (ops->morphologies[i].n_compartments > largest)
      largest = ops->morphologies[i].n_compartments;
  p->scratch = malloc((size_t)largest * sizeof(double));
  if (!p->values || !p->scratch)
    return HINES_FAILURE;
  for (int j = 0; j < o->n_probes; j++) /* t = 0: every neuron starts at rest */
    p->values[1 + j] = o->cable.el_mV;
  p->values[0] = 0.0;
  p->rows = 1;
  return HINES_OK;
}

static void probe_record_sample(struct probe_record *p, const struct batch_ops *ops, int step) {
  if (!p->values || step % p->every != 0 || p->rows >= p->capacity)
    return;
  double *row = p->values + (size_t)p->rows * (1 + p->o->n_probes);
  row[0] = step * p->o->dt_ms;
  for (int j = 0; j < p->o->n_probes; j++) {
    ops->voltage(ops->batch, p->o->probe_neuron[j], p->scratch);
    row[1 + j] = p->scratch[p->o->probe_compartment[j]];
  }
  p->rows++;
}

static int write_probes(const struct options *o, struct probe_record *p) {
  free(p->scratch);
  p->scratch = NULL;
  char temporary[PATH_MAX];
  snprintf(temporary, sizeof temporary, "%s.partial", o->probes_path);
  FILE *f = fopen(temporary, "w");
  if (!f)
    return HINES_FAILURE;
  fprintf(f, "time_ms");
  for (int j = 0; j < o->n_probes; j++)
    fprintf(f, ",neuron%d_compartment%d_mV", o->probe_neuron[j], o->probe_compartment[j]);
  fputc('\n', f);
  for (long long r = 0; r < p->rows; r++) {
    const double *row = p->values + (size_t)r * (1 + o->n_probes);
    fprintf(f, "%.6f", row[0]);
    for (int j = 0; j < o->n_probes; j++)
      fprintf(f, ",%.12g", row[1 + j]);
    fputc('\n', f);
  }
  if (fclose(f) != 0 || rename(temporary, o->probes_path) != 0) {
    remove(temporary);
    return HINES_FAILURE;
  }
  return HINES_OK;
}

/* Creates the batch the options describe; HINES_OK or a status with err set. */
static int create_batch(const struct options *o, const struct morphology *morphologies,
                        struct batch_ops *ops, struct hines_error *err) {
  memset(ops, 0, sizeof *ops);
  ops->morphologies = morphologies;
  ops->n_morphologies = o->n_morph_specs;
  if (strcmp(o->mode, "multi") == 0) {
    struct multi_batch_config config = {.morphologies = morphologies,
                                        .n_morphologies = o->n_morph_specs,
                                        .n_neurons = o->neurons,
                                        .neurons_per_task = o->neurons_per_task,
                                        .parts_per_task = o->parts_per_task,
                                        .trunk_below_systems = o->trunk_below,
                                        .plain_gpu_launches = o->plain_launches,
                                        .padded = o->padded,
                                        .level_tasks = o->level_tasks,
                                        .order = o->level_order,
                                        .cable = o->cable,
                                        .dt_ms = o->dt_ms,
                                        .initial_mV = o->cable.el_mV,
                                        .stimulus = o->stimulus,
                                        .hh = o->hh};
    if (o->per_neuron) {
      struct neuron_batch *batch;
      int status = neuron_batch_create(&config, &batch, err);
      if (status)
        return status;
      ops->batch = batch;
      ops->run = run_neuron;
      ops->voltage = voltage_neuron;
      ops->find_nonfinite = nonfinite_neuron;
      ops->tasks_per_step = neuron_batch_tasks_per_step(batch);
      return HINES_OK;
    }
    struct multi_batch *batch;
    int status = multi_batch_create(&config, &batch, err);
    if (status)
      return status;
    ops->batch = batch;
    ops->run = run_multi;
    ops->voltage = voltage_multi;
    ops->find_nonfinite = nonfinite_multi;
    ops->tasks_per_step = multi_batch_tasks_per_step(batch);
    return HINES_OK;
  }
  struct mono_batch_config config = {.morphology = &morphologies[0],
                                     .cable = o->cable,
                                     .layout = o->layout,
                                     .n_neurons = o->neurons,
                                     .block_size = o->block_size,
                                     .neurons_per_task = o->neurons_per_task,
                                     .cpu_group = o->cpu_group,
                                     .dt_ms = o->dt_ms,
                                     .initial_mV = o->cable.el_mV,
                                     .stimulus = o->stimulus,
                                     .hh = o->hh};
  struct mono_batch *batch;
  int status = mono_batch_create(&config, &batch, err);
  if (status)
    return status;
  ops->batch = batch;
  ops->run = run_mono;
  ops->voltage = voltage_mono;
  ops->find_nonfinite = nonfinite_mono;
  ops->tasks_per_step = mono_batch_chunks(batch);
  return HINES_OK;
}

static void destroy_batch(const struct options *o, struct batch_ops *ops) {
  if (strcmp(o->mode, "multi") == 0 && o->per_neuron)
    neuron_batch_destroy(ops->batch);
  else if (strcmp(o->mode, "multi") == 0)
    multi_batch_destroy(ops->batch);
  else
    mono_batch_destroy(ops->batch);
}

/* SWC repair warnings, held back until the run is accepted (see main). */
static char *pending_warnings;
static void free_pending_warnings(void) {
  free(pending_warnings);
  pending_warnings = NULL;
}

int main(int argc, char **argv) {
  struct options o;
  parse_options(argc, argv, &o);
  double started = now_seconds();

  /* Every input is read and checked before StarPU starts or anything is written. */
  /* Repair warnings are held back until every file has loaded: a run that is refused prints
   * its one error line and nothing else. */
  size_t warnings_size = 0;
  atexit(free_pending_warnings); /* every early exit below, too */
  struct swc_options swc = {.geometry = o.geometry,
                            .max_compartment_um = o.dx_um,
                            .d_lambda = o.d_lambda,
                            .d_lambda_hz = o.d_lambda_hz,
                            .ra_ohm_cm = o.cable.ra_ohm_cm,
                            .cm_uF_per_cm2 = o.cable.cm_uF_per_cm2,
                            .warnings = open_memstream(&pending_warnings, &warnings_size)};
  static struct morphology morphologies[MAX_MORPHOLOGIES];
  struct hines_error err;
  for (int i = 0; i < o.n_morph_specs; i++) {
    int status = morphology_load_spec(o.morph_specs[i], &swc, &morphologies[i], &err);
    if (status) {
      fprintf(stderr, "%s: %s\n", program, err.message);
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
    int status = cable_coefficients_build(&morphologies[i], &o.cable, &check, &err);
    cable_coefficients_free(&check);
    if (status) {
      fprintf(stderr, "%s: %s\n", program, err.message);
      for (int j = 0; j < o.n_morph_specs; j++)
        morphology_free(&morphologies[j]);
      return 2;
    }
  }
  if (o.summary) {
    fputs(pending_warnings ? pending_warnings : "", stderr);
    for (int i = 0; i < o.n_morph_specs; i++) {
      print_summary(&morphologies[i]);
      morphology_free(&morphologies[i]);
    }
    return 0;
  }
  int multi = strcmp(o.mode, "multi") == 0;
  if (!multi && o.n_morph_specs != 1)
    bad_usage("--mode mono takes exactly one --morph (got %s); use --mode multi for a mix",
              "several");
  long long compartments = 0;
  int smallest = INT_MAX;
  for (int k = 0; k < o.n_morph_specs; k++) {
    long long copies = o.neurons / o.n_morph_specs + (k < o.neurons % o.n_morph_specs);
    compartments += copies * morphologies[k].n_compartments;
    if (morphologies[k].n_compartments < smallest)
      smallest = morphologies[k].n_compartments;
  }
  if (o.stimulus.compartment >= smallest) {
    fprintf(stderr, "%s: --stim-compartment %d is beyond the %d compartments of a morphology\n",
            program, o.stimulus.compartment, smallest);
    return 2;
  }
  for (int j = 0; j < o.n_probes; j++) {
    const struct morphology *pm = &morphologies[o.probe_neuron[j] % o.n_morph_specs];
    if (o.probe_neuron[j] >= o.neurons || o.probe_compartment[j] >= pm->n_compartments) {
      fprintf(stderr,
              "%s: --probe %d:%d is outside the batch (%d neurons; neuron %d has %d "
              "compartments)\n",
              program, o.probe_neuron[j], o.probe_compartment[j], o.neurons,
              o.probe_neuron[j] % o.neurons, pm->n_compartments);
      return 2;
    }
  }
  if (o.n_probes &&
      (long long)(o.steps / (int)fmax(1, o.probe_every_ms / o.dt_ms + 0.5) + 2) * (1 + o.n_probes) >
          MAX_PROBE_VALUES) {
    fprintf(stderr,
            "%s: --steps %d with --probe-every %g ms would record more than %lld "
            "probe values; record less often\n",
            program, o.steps, o.probe_every_ms, MAX_PROBE_VALUES);
    return 2;
  }
  /* Voltage and pivots (multi: elimination factors) per compartment. */
  check_host_memory(2.0 * compartments * sizeof(double));

  if (runtime_check_environment(&err)) {
    fprintf(stderr, "%s: %s\n", program, err.message);
    return 2;
  }
  /* Every check has passed: the repairs made to the input files can be reported now. */
  fputs(pending_warnings ? pending_warnings : "", stderr);
  if (o.default_job && mkdir(RESULTS_DIR, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "%s: cannot create %s: %s\n", program, RESULTS_DIR, strerror(errno));
    return 2;
  }
  struct runtime_options runtime_options = {.quiet = o.quiet, .tracing = o.trace_dir != NULL};
  if (o.trace_dir && trace_prepare(o.trace_dir, &err)) {
    fprintf(stderr, "%s: %s\n", program, err.message);
    return 2;
  }
  int status = runtime_start(&runtime_options, &err);
  if (status) {
    fprintf(stderr, "%s: %s\n", program, err.message);
    return status;
  }
  if (!o.quiet) {
    if (o.default_job)
      printf("default job: %d neurons of %d shipped morphologies, Hodgkin-Huxley channels, a %g nA "
             "step from %g to %g ms, %g ms simulated (options override any of it)\n",
             o.neurons, o.n_morph_specs, o.stimulus.amplitude_nA, o.stimulus.start_ms,
             o.stimulus.stop_ms, o.steps * o.dt_ms);
    if (multi)
      printf("hinestask %s: multi-morphology batch of %d neurons from %d morphologies "
             "(%lld compartments), %s levels, %d steps of %g ms\n",
             HINESTASK_VERSION, o.neurons, o.n_morph_specs, compartments, o.padded ? "CP" : "NCP",
             o.steps, o.dt_ms);
    else
      printf("hinestask %s: mono batch of %d x %s (%d compartments), layout %s, %d steps of "
             "%g ms\n",
             HINESTASK_VERSION, o.neurons, morphologies[0].name, morphologies[0].n_compartments,
             batch_layout_name(o.layout), o.steps, o.dt_ms);
    runtime_describe(stdout);
  }

  struct batch_ops ops;
  status = create_batch(&o, morphologies, &ops, &err);
  if (status) {
    fprintf(stderr, "%s: %s\n", program, err.message);
    runtime_stop();
    return status;
  }
  /* Progress only for a person watching: stderr is a terminal and --quiet is off. */
  int progress = !o.quiet && isatty(STDERR_FILENO);
  struct probe_record probes = {0};
  if (o.n_probes)
    status = probe_record_init(&probes, &o, &ops);
  /* The first step moves the batch to where its tasks run and loads the kernels; the time per
   * step is measured over the others, with the data resident. */
  double first_start = now_seconds();
  if (status == HINES_OK)
    status = ops.run(ops.batch, 1, 0.0);
  double first_seconds = now_seconds() - first_start;
  int slice = progress ? (o.steps + 19) / 20 : o.steps;
  int done = 1;
  probe_record_sample(&probes, &ops, done);
  double loop_start = now_seconds();
  while (done < o.steps && status == HINES_OK) {
    int count = o.steps - done < slice ? o.steps - done : slice;
    if (o.n_probes && probes.every - done % probes.every < count)
      count = probes.every - done % probes.every;
    status = ops.run(ops.batch, count, done * o.dt_ms);
    done += count;
    probe_record_sample(&probes, &ops, done);
    if (progress)
      fprintf(stderr, "\rstep %d/%d", done, o.steps);
  }
  double loop_seconds = o.steps > 1 ? now_seconds() - loop_start : first_seconds;
  int timed_steps = o.steps > 1 ? o.steps - 1 : 1;
  if (progress)
    fputc('\n', stderr);

  struct run_result result = {.seconds_steps = loop_seconds,
                              .timed_steps = timed_steps,
                              .seconds_first_step = first_seconds,
                              .tasks_per_step = ops.tasks_per_step,
                              .compartments = compartments};
  /* Numerical trouble (an unstable parameter choice, say) must not pass silently: the final
   * state comes home anyway when the batch is released, so the scan costs no transfer. */
  int bad_neuron, bad_compartment;
  if (status == HINES_OK && ops.find_nonfinite(ops.batch, &bad_neuron, &bad_compartment)) {
    fprintf(stderr,
            "%s: numerical trouble: neuron %d, compartment %d has a non-finite voltage after %d "
            "steps (check the membrane and stimulus parameters)\n",
            program, bad_neuron, bad_compartment, o.steps);
    status = HINES_FAILURE;
  }
  if (status == HINES_OK && o.verify) {
    result.verified = 1;
    result.max_rel_error = verify_batch(&o, &ops);
  }
  if (!o.quiet) {
    printf("%d tasks per step; first step %.3f ms; then %.3f ms per step, %.3g "
           "compartment-solves/s\n",
           ops.tasks_per_step, 1e3 * first_seconds, 1e3 * loop_seconds / timed_steps,
           (double)compartments * timed_steps / loop_seconds);
    double *v = malloc((size_t)morphologies[0].n_compartments * sizeof(double));
    ops.voltage(ops.batch, 0, v);
    printf("soma of neuron 0 (%s) at t = %g ms: %.6f mV\n", morphologies[0].name, o.steps * o.dt_ms,
           v[0]);
    free(v);
  }
  destroy_batch(&o, &ops);
  runtime_stop();
  result.seconds_total = now_seconds() - started;
  int exit_status = status == HINES_OK ? 0 : 1;
  if (result.verified) {
    int ok = result.max_rel_error <= VERIFY_TOLERANCE;
    printf("verify: %d sampled neurons, max relative error %.3e (tolerance %.0e): %s\n",
           o.verify_samples, result.max_rel_error, VERIFY_TOLERANCE, ok ? "ok" : "FAILED");
    if (!ok)
      exit_status = 1;
  }
  if (o.calibrate && !o.quiet) {
    const char *home = getenv("STARPU_HOME");
    printf("calibration: performance models updated under %s/.starpu/sampling/codelets "
           "(starpu_perfmodel_display -l lists them)\n",
           home && *home ? home : "$HOME");
  }
  if (o.trace_dir) {
    if (trace_convert(o.trace_dir, &err)) {
      fprintf(stderr, "%s: %s\n", program, err.message);
      exit_status = 1;
    } else if (!o.quiet) {
      printf("trace: %s/paje.trace (vite), tasks.rec, dag.dot; summary and Gantt chart: "
             "scripts/trace_report.py %s --png %s/gantt.png\n",
             o.trace_dir, o.trace_dir, o.trace_dir);
    }
  }
  if (o.n_probes && write_probes(&o, &probes)) {
    fprintf(stderr, "%s: cannot write %s\n", program, o.probes_path);
    exit_status = 1;
  }
  if (o.n_probes && !o.quiet)
    printf("probes: %d voltages every %g ms in %s (plot: scripts/plot_probes.sh %s)\n", o.n_probes,
           probes.every * o.dt_ms, o.probes_path, o.probes_path);
  free(probes.values);
  if (o.json_path && write_json(&o, &result)) {
    fprintf(stderr, "%s: cannot write %s\n", program, o.json_path);
    exit_status = 1;
  }
  for (int i = 0; i < o.n_morph_specs; i++)
    morphology_free(&morphologies[i]);
  return exit_status;
}
