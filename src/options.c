#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "synthetic.h"

const char *const program = "hinestask";

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
      "  --task-neurons N     neurons per task (default: 4 tasks per GPU; with CPU and GPU\n"
      "                       workers both, plus one CPU-sized chunk per CPU worker, sized by\n"
      "                       the performance models; without GPU, 4 per CPU worker)\n"
      "  --pin                run each chunk only on the kind of worker it was sized for\n"
      "                       (default: the scheduler places every chunk)\n"
      "  --window N           steps submitted ahead of the computed ones (default 4; 1 waits\n"
      "                       after every step)\n"
      "  --task-parts P       multi: split each chunk task into P independent neuron sets run on\n"
      "                       P GPU streams, each starting when the previous one has eliminated\n"
      "                       its deepest level (default 1)\n"
      "  --trunk-below N      multi, chunk tasks: the levels from the root up to the first one\n"
      "                       with N systems or more are swept by one GPU thread per neuron\n"
      "                       instead of one kernel per level (default 0: never)\n"
      "  --gpu-launch early|plain|auto  multi, chunk tasks: launch each level's GPU kernel\n"
      "                       early, so it starts while the previous level finishes (compute\n"
      "                       capability 9.0 and newer), or plainly after it; auto (default):\n"
      "                       early with up to 4 chunks per GPU, plain with more\n"
      "  --padding cp|ncp     multi: pad every branch of a level to the longest (cp) or not\n"
      "                       (ncp, default)\n"
      "  --multi-tasks chunk|levels|neuron  multi: one task per chunk and step sweeping all\n"
      "                       its levels (default), one task per level and sweep, or the\n"
      "                       papers' baseline: the mono kernel with one tree per neuron\n"
      "  --level-order depth|height  multi: level of a branch counted from the root (the\n"
      "                       papers'; default with --multi-tasks levels) or from the leaves\n"
      "                       (all leaves in one level; default with chunk tasks)\n"
      "  --calibrate          calibration run: keep the task durations measured in this run in\n"
      "                       the performance models (under STARPU_HOME; without it the models\n"
      "                       still learn during the run, from what calibrations kept)\n"
      "  --hh none|soma|all   Hodgkin-Huxley channels (NEURON's hh) on no, the first or every\n"
      "                       compartment (default none; all in the default job)\n"
      "  --probe N:C          record compartment C of neuron N (repeatable)\n"
      "  --probe-every MS     probe sampling interval (default 0.1)\n"
      "  --probes FILE        write the probe voltages as CSV\n"
      "  --cpu-group W        neurons vectorised together by CPU kernels, 1-64 (default 32)\n"
      "  --dx UM              resample SWC morphologies to compartments of at most UM um\n"
      "Time:\n"
      "  --steps N            time steps (default 1000; 200 ms worth in the default job)\n"
      "  --dt MS              step length in ms (default 0.025)\n"
      "Membrane and stimulus (units: mV, ms, nA, uF/cm2, Ohm cm, S/cm2):\n"
      "  --cm C  --ra R  --gl G  --el E   passive membrane (default 1, 100, 1e-4, -65)\n"
      "  --stim-amp NA        current clamp amplitude in nA (default 0.1)\n"
      "  --stim-start MS, --stim-stop MS  clamp window (default 1 and 1e9)\n"
      "  --stim-compartment I compartment that receives the clamp (default 0, the soma)\n"
      "  --stim-spread S      amplitude varies by +-S/2 across the batch (default 0.5)\n"
      "Output:\n"
      "  --summary            print the morphology summary of each --morph, then exit\n"
      "  --verify             compare sampled neurons against the sequential reference solver\n"
      "  --trace DIR          record an FxT trace and convert it into DIR/paje.trace\n"
      "  --json FILE          write the run summary as JSON\n"
      "  --quiet              no progress or banner; errors still go to stderr\n"
      "  --help, --version\n"
      "\n"
      "Environment: STARPU_SCHED (scheduler, default dmdas; unknown names are refused),\n"
      "STARPU_NCPU and STARPU_NCUDA (worker counts), STARPU_NWORKER_PER_CUDA (concurrent\n"
      "streams per GPU, default 16), STARPU_HOME (performance models), STARPU_LIMIT_CUDA_MEM\n"
      "(MB per GPU); hinestask also sets STARPU_MINIMUM_CLEAN_BUFFERS=0,\n"
      "STARPU_TARGET_CLEAN_BUFFERS=0 and STARPU_CUDA_PIPELINE=4 unless they are set.\n"
      "Exit status: 0 success, 1 failure during the run, 2 bad usage or bad input.\n",
      program,
      "24 neurons of the six cells in morph/data (multi-morphology), HH channels\n"
      "everywhere, a 1 nA step into each soma from 20 to 180 ms, 200 ms simulated; soma\n"
      "voltages and the JSON summary go to hinestask-results/");
}

/* One line on stderr and exit 2: the contract for bad usage. */
void bad_usage(const char *format, const char *value) {
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
  OPT_WINDOW,
  OPT_PIN,
};

/* The morphologies shipped in morph/data for the default job (permissive licenses, see
 * morph/data/PROVENANCE.md). */
static const char *const shipped_morphologies[] = {
    "c91662.swc",           "pyramidal.swc",
    "morph_ca1_n120.swc",   "morph_allen_485574832.swc",
    "HSN-fluoro02.CNG.swc", "Cha-F-000012.CNG.swc"};
#define N_SHIPPED (sizeof shipped_morphologies / sizeof *shipped_morphologies)

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
      o->steps = (int)(200.0 / o->model.dt_ms + 0.5);
    if (!o->hh_given)
      o->model.hh.placement = HH_ALL;
    if (!o->stimulus_given) {
      o->model.stimulus.amplitude_nA = 1.0;
      o->model.stimulus.start_ms = 20.0;
      o->model.stimulus.stop_ms = 180.0;
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

void options_parse(int argc, char **argv, struct options *o) {
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
      {"window", required_argument, 0, OPT_WINDOW},
      {"pin", no_argument, 0, OPT_PIN},
      {0, 0, 0, 0}};
  *o = (struct options){.neurons = 0, /* 0: the default of the job, resolved below */
                        .mode = NULL,
                        .layout = BATCH_LAYOUT_INTERLEAVED,
                        .block_size = 32,
                        .cpu_group = 32,
                        .steps = 0,
                        .model = {.cable = cable_defaults,
                                  .dt_ms = 0.025,
                                  .stimulus = {.compartment = 0,
                                               .amplitude_nA = 0.1,
                                               .start_ms = 1.0,
                                               .stop_ms = 1e9,
                                               .spread = 0.5},
                                  .hh = HH_DEFAULTS},
                        .probe_every_ms = 0.1,
                        .gpu_launch = GPU_LAUNCH_AUTO,
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
      o->model.dt_ms = parse_double("--dt", optarg, 0, 1);
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
      o->model.cable.cm_uF_per_cm2 = parse_double("--cm", optarg, 0, 1);
      break;
    case OPT_RA:
      o->model.cable.ra_ohm_cm = parse_double("--ra", optarg, 0, 1);
      break;
    case OPT_GL:
      o->model.cable.gl_S_per_cm2 = parse_double("--gl", optarg, 0, 0);
      break;
    case OPT_EL:
      o->model.cable.el_mV = parse_double("--el", optarg, -1e6, 0);
      break;
    case OPT_STIM_AMP:
      o->model.stimulus.amplitude_nA = parse_double("--stim-amp", optarg, -1e9, 0);
      o->stimulus_given = 1;
      break;
    case OPT_STIM_START:
      o->model.stimulus.start_ms = parse_double("--stim-start", optarg, 0, 0);
      o->stimulus_given = 1;
      break;
    case OPT_STIM_STOP:
      o->model.stimulus.stop_ms = parse_double("--stim-stop", optarg, 0, 0);
      o->stimulus_given = 1;
      break;
    case OPT_STIM_COMPARTMENT:
      o->model.stimulus.compartment = parse_int("--stim-compartment", optarg, 0, INT_MAX);
      break;
    case OPT_STIM_SPREAD:
      o->model.stimulus.spread = parse_double("--stim-spread", optarg, 0, 0);
      break;
    case OPT_HH:
      if (strcmp(optarg, "none") == 0)
        o->model.hh.placement = HH_NONE;
      else if (strcmp(optarg, "soma") == 0)
        o->model.hh.placement = HH_SOMA;
      else if (strcmp(optarg, "all") == 0)
        o->model.hh.placement = HH_ALL;
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
    case OPT_WINDOW:
      o->window = parse_int("--window", optarg, 1, 1 << 20);
      break;
    case OPT_PIN:
      o->pin = 1;
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
      if (strcmp(optarg, "early") && strcmp(optarg, "plain") && strcmp(optarg, "auto"))
        bad_usage("--gpu-launch must be early, plain or auto, got '%s'", optarg);
      o->gpu_launch = strcmp(optarg, "plain") == 0   ? GPU_LAUNCH_PLAIN
                      : strcmp(optarg, "early") == 0 ? GPU_LAUNCH_EARLY
                                                     : GPU_LAUNCH_AUTO;
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
  if (o->per_neuron && o->model.hh.placement != HH_NONE)
    bad_usage("--multi-tasks neuron (the per-neuron baseline) has no channels; drop '--hh %s'",
              o->model.hh.placement == HH_SOMA ? "soma" : "all");
  /* The model is complete now: every neuron starts at the leak reversal, and the stimulus
   * varies across this batch's size. */
  o->model.initial_mV = o->model.cable.el_mV;
  o->model.stimulus.n_neurons_total = o->neurons;
}
