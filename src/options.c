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

#include "hinestask_commit.h"
#include "multi_batch.h"
#include "placement.h"
#include "runtime.h"
#include "synthetic.h"

const char *const program = "hinestask";

/* A mechanism's parameter names (each current's gbar and reversal), joined by `separator`. */
static void mechanism_parameter_names(const struct mechanism_description *d, const char *separator,
                                      char *list, size_t size) {
  *list = '\0';
  for (int c = 0; c < MECHANISM_MAX_CURRENTS; c++) {
    const char *names[2] = {d->gbar_names[c], d->reversal_names[c]};
    for (int k = 0; k < 2; k++)
      if (names[k]) {
        strncat(list, *list ? separator : "", size - strlen(list) - 1);
        strncat(list, names[k], size - strlen(list) - 1);
      }
  }
}

/* The mechanism table's lines of --help. */
static const char *mechanism_help(void) {
  static char text[2048];
  size_t used = 0;
  for (int m = 0; m < MECHANISM_COUNT && used < sizeof text; m++) {
    const struct mechanism_description *d = &mechanism_table[m];
    char parameters[200];
    mechanism_parameter_names(d, " ", parameters, sizeof parameters);
    static const char *const places[] = {"none", "soma", "all"};
    used += (size_t)snprintf(text + used, sizeof text - used,
                             "                         %s: %s;\n"
                             "                           %s; default place %s\n",
                             d->name, d->title, parameters, places[d->defaults.placement]);
  }
  return text;
}

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
      "                       synthetic:random:MIN:MAX[:SEED], synthetic:tree:N:B[:SEED],\n"
      "                       synthetic:comb:TEETH (one level per tooth);\n"
      "                       files must be regular files, - reads standard input\n"
      "  --neurons N          neurons in the batch (default 2560; 24 in the default job)\n"
      "  --mode auto|mono|multi  mono-morphology layouts (one GPU thread per neuron) or the\n"
      "                       branch-level solver; auto (the default) takes the level solver\n"
      "                       for a mix, or when one cell's batch cannot fill the GPUs (fewer\n"
      "                       than 50,000 neurons per GPU), the mono layouts otherwise and on\n"
      "                       CPUs only; an option of one mode (--layout, --padding...) picks it\n"
      "  --layout L           mono layout: flat, interleaved, block, shared (default:\n"
      "                       block on CPU workers only, for passive batches of 64 M\n"
      "                       compartments a GPU or more and with the cores' share\n"
      "                       (--cpu-share; its GPU chunks then interleaved with channels\n"
      "                       or under 64 M), interleaved otherwise)\n"
      "  --block-size BS      neurons per block for block/shared (default 32); alone, it\n"
      "                       asks for the block layout\n"
      "  --task-neurons N     neurons per task (default: 4 tasks per GPU; the level solver\n"
      "                       one per 10 M compartments a GPU, 1 to 4, for passive chunk\n"
      "                       tasks, otherwise one a GPU, each GPU chunk of the level\n"
      "                       kernels 32 copies of every cell at a time, 128 or more\n"
      "                       (a warp sweeps one branch's copies), the rest in one more\n"
      "                       chunk; with CPU and GPU workers both, as --cpu-share says,\n"
      "                       plus CPU-sized chunks (four a CPU worker, the level solver's\n"
      "                       --cpu-chunks), sized by the performance models; without GPU,\n"
      "                       4 per CPU worker; 1,024 or more are rounded up to a multiple\n"
      "                       of 32)\n"
      "  --pin                run each chunk only on the kind of worker it was sized for\n"
      "                       (default: the scheduler places every chunk)\n"
      "  --cpu-share auto|on|off  CPU and GPU workers both: CPU-sized chunks (four a CPU\n"
      "                       worker, multi --cpu-chunks) beside the GPUs' chunks, sized by\n"
      "                       the performance models (on), none (off), or (auto, the\n"
      "                       default) for mono batches of 64 M compartments or more on\n"
      "                       one GPU, passive or with channels, or of 30 M with 100,000\n"
      "                       neurons or more, under a dm* scheduler, --window not 1; multi chunk\n"
      "                       tasks (one part, default sizes) when passive, 40 M\n"
      "                       compartments a GPU or more\n"
      "  --cpu-chunks N       multi, the cores' share: N chunks a CPU worker (default 2)\n"
      "  --arrange auto|on|off  multi, chunk tasks: lay each chunk out by morphology, the\n"
      "                       copies of one cell together (of two where chunks are\n"
      "                       fewer than cells) (on; with the cores' share beside GPUs,\n"
      "                       the share's chunks), or the neurons in\n"
      "                       their round-robin order (off); auto (default): on with CPU\n"
      "                       workers alone and for the cores' share beside GPUs, off for\n"
      "                       GPUs' chunks (same bits)\n"
      "  --window N           steps submitted ahead of the computed ones (default 4, and 128\n"
      "                       rounds of tasks for a multi batch with the cores' share; 1\n"
      "                       waits after every step)\n"
      "  --task-steps K       each task advances its chunk K steps: StarPU's cost per task\n"
      "                       paid once per K steps (a GPU no longer idles between dependent\n"
      "                       steps), a CPU group kept in cache across them; the same voltages,\n"
      "                       bit for bit. mono default on GPU workers alone 8 with chunks of\n"
      "                       64,000 neurons or more or at most 8 chunks per GPU, else 4; 8\n"
      "                       when CPU workers have chunks of their own (--cpu-share), 1 with\n"
      "                       CPU workers under a scheduler other than dm*, 8 with no GPU\n"
      "                       worker. multi default 8 where GPUs take the chunks (no CPU\n"
      "                       workers, or a dm* scheduler) and with no GPU worker, 32 with\n"
      "                       the cores' share (--cpu-share), else 1\n"
      "  --task-parts P       multi: split each chunk task into P independent neuron sets run on\n"
      "                       P GPU streams, each starting when the previous one has eliminated\n"
      "                       its deepest level (default 1)\n"
      "  --trunk-below N      multi, chunk tasks: the levels from the root up to the first one\n"
      "                       with N systems or more are swept by one GPU thread per neuron\n"
      "                       instead of one kernel per level (default 0: never)\n"
      "  --trunk-branches auto|R  multi, level kernels, passive NCP: the levels from the root\n"
      "                       up to the first where the cells have R systems a neuron or more\n"
      "                       are solved by the branch kernel's three phases between the level\n"
      "                       kernels' sweeps; auto (default): the levels near the roots of\n"
      "                       cells with long chains of few branches there, none elsewhere\n"
      "                       (or with channels, CP, --trunk-below); 0: none; R not with\n"
      "                       --trunk-below\n"
      "  --gpu-launch early|plain|auto  multi, chunk tasks: launch each level's GPU kernel\n"
      "                       early, so it starts while the previous level finishes (compute\n"
      "                       capability 9.0 and newer), or plainly after it; auto (default):\n"
      "                       early with up to 4 chunks per GPU, plain with more\n"
      "  --padding cp|ncp     multi: pad every branch of a level to the longest (cp) or not\n"
      "                       (ncp, default)\n"
      "  --multi-tasks chunk|levels|neuron  multi: one task per chunk and step sweeping all\n"
      "                       its levels (default), one task per level and sweep, or the\n"
      "                       papers' baseline: the mono kernel with one tree per neuron\n"
      "  --level-kernel auto|levels|cell|flow|shared|branches  multi, chunk tasks: the branch\n"
      "                       kernel for a passive NCP batch of at most 4 M compartments whose\n"
      "                       cells have at most ~700 branches, the level kernels otherwise\n"
      "                       (auto, the default; the choice depends on the batch only, so CPU\n"
      "                       and GPU workers give the same bits), one GPU\n"
      "                       kernel per level and sweep, one cell-block kernel per step\n"
      "                       whose thread blocks each sweep every level of a few neurons, one\n"
      "                       flow kernel per sweep whose branches wait only for their own\n"
      "                       children or parent (no boundary between levels), one on-chip cell\n"
      "                       kernel per step whose blocks hold their neurons in GPU shared\n"
      "                       memory (16 bytes a compartment; same bits), or one branch kernel\n"
      "                       per step (passive, NCP): every branch swept at once with its ends\n"
      "                       grounded, the junctions solved, each branch's response added (a\n"
      "                       step waits for the longest branch, not the levels' sum; voltages\n"
      "                       to rounding of the others', the same bits on CPU and GPU)\n"
      "  --level-rows auto|fused|apart|N  multi, level kernels on GPUs, channels on every\n"
      "                       compartment: build each element's row inside its branch's sweep\n"
      "                       (fused) or first, two elements a GPU thread, then only\n"
      "                       eliminate (apart; same bits); auto (default): apart at the\n"
      "                       levels of fewer than 262,144 branches; N: of fewer than N\n"
      "                       branches\n"
      "  --level-pivots auto|stored|computed|N  multi, no channels: the sweeps read each\n"
      "                       compartment's pivot, computed once per morphology (stored: a\n"
      "                       shorter elimination chain, the same bits), or compute every\n"
      "                       pivot every step (computed); N: stored on GPU levels of fewer\n"
      "                       than N branches, CPUs always; auto (default): as N = all\n"
      "                       levels; with channels pivots are always computed\n"
      "  --level-priorities auto|on|off  multi, level kernels on GPUs: run the kernels of\n"
      "                       levels too small to fill a GPU at its highest stream priority,\n"
      "                       so that chunks sharing a GPU overlap one's levels near the root\n"
      "                       with another's large levels; auto (default): on for chunks of\n"
      "                       at most 15 M compartments (aligned chunks of at most 12 M where\n"
      "                       the cells average 5,000 or more), off for larger (same bits)\n"
      "  --level-lean on|off  multi, level kernels on GPUs, passive steps: sweep the levels\n"
      "                       too small to fill a GPU with the lean kernels (on, the default;\n"
      "                       same bits)\n"
      "  --level-factors rows|elements  multi, level kernels, passive steps: the forward\n"
      "                       sweeps read each element's elimination factor from its row of\n"
      "                       the constants (rows, the default: 16 bytes less an element a\n"
      "                       step) or the backward sweeps store it (elements); same bits\n"
      "  --cell-neurons G     neurons of one morphology per cell block (cell: default 2 to 16\n"
      "                       by the neurons per GPU; shared and branches: default 1; a\n"
      "                       trunk of branches: default up to 64, as the GPU's shared\n"
      "                       memory allows; same bits)\n"
      "  --level-warps auto|off|all  multi, chunk tasks on GPUs: sweep a level's longest\n"
      "                       branches with lanes of a warp each (elements loaded and assembled\n"
      "                       at once; same bits): as a cost model says (default; none in\n"
      "                       passive steps of the level kernels with --level-lean on),\n"
      "                       never, or every branch\n"
      "  --warp-lanes 8|16|32 lanes of a warp per warp-swept branch (default 16; the cell\n"
      "                       kernel gives a whole warp)\n"
      "  --level-subtrees N|off  multi: every leaf subtree of at most N compartments is\n"
      "                       one system, swept whole by one thread as mono sweeps a tree,\n"
      "                       instead of one system per branch "
      "(default " LEVEL_SUBTREES_DEFAULT_TEXT "; off or 0:\n"
      "                       one system per branch)\n"
      "  --level-split N|off  multi: cut every branch longer than N compartments into\n"
      "                       segments of at most N, each one system, so long branches of\n"
      "                       different cells stop adding up level after level "
      "(default " LEVEL_SPLIT_DEFAULT_TEXT ";\n"
      "                       off or 0: branches whole)\n"
      "  --level-root center|soma  multi: root each cell's systems at its center (the middle\n"
      "                       of its longest path) where that shortens the path by an eighth\n"
      "                       or more (default center, with the stimulus at the soma), or at\n"
      "                       the soma; the same matrix, eliminated in another order\n"
      "  --level-order depth|height  multi: level of a branch counted from the root (the\n"
      "                       papers'; default with --multi-tasks levels) or from the leaves\n"
      "                       (all leaves in one level; default with chunk tasks)\n"
      "  --calibrate          calibration run: keep the task durations measured in this run in\n"
      "                       the performance models (under STARPU_HOME; without it the models\n"
      "                       still learn during the run, from what calibrations kept)\n"
      "  --models size|starpu performance models: hinestask's size models, which predict any\n"
      "                       task size (default), or StarPU's own history models, which\n"
      "                       starpu_perfmodel_display and starpu_perfmodel_plot -i read\n"
      "  --hh none|soma|all   Hodgkin-Huxley channels (NEURON's hh) on no, the first or every\n"
      "                       compartment (default none; all in the default job)\n"
      "  --hh-rates table|exact  the gates' rates: from a table over -100..100 mV in 1 mV\n"
      "                       steps built for the run's dt, as NEURON does (default), or\n"
      "                       computed exactly every step (9 exp a compartment)\n"
      "  --gnabar G  --gkbar G  --gl-hh G  --el-hh E  the hh mechanism's maximal conductances\n"
      "                       and leak (default 0.12, 0.036, 0.0003 S/cm2 and -54.3 mV)\n"
      "  --channels LIST      channel mechanisms and where: comma items NAME:none|soma|all\n"
      "                       (NAME alone: its default place), NAME.PARAM=VALUE sets a maximal\n"
      "                       conductance (S/cm2) or reversal (mV); --hh P is hh:P; --hh-rates\n"
      "                       applies to all. Mechanisms (codelets/mechanisms.c), PARAMs:\n"
      "%s"
      "  --probe N:C          record compartment C of neuron N (repeatable)\n"
      "  --probe-every MS     probe sampling interval (default 0.1)\n"
      "  --probes FILE        write the probe voltages as CSV (needed with --probe, except in\n"
      "                       the default job)\n"
      "  --spikes FILE        detect spikes at every soma (compartment 0) on the device and\n"
      "                       write them as CSV: neuron,time_ms, by neuron then time; the\n"
      "                       time is interpolated linearly within the step of the crossing\n"
      "  --spike-threshold MV spike threshold, an upward crossing (default 0 mV)\n"
      "  --params FILE        parameter sweep (mono mode): a CSV whose header names any of\n"
      "                       cm ra gl el gnabar gkbar gl_hh el_hh stim_amp stim_start\n"
      "                       stim_stop, or any mechanism's NAME.PARAM (km.gbar, ih.ehcn,\n"
      "                       hh.ek), then one row per neuron (as many as --neurons); each\n"
      "                       neuron takes its row's values, the options the others\n"
      "  --cpu-group W        neurons vectorised together by CPU kernels, 1-64 (default 32)\n"
      "  --geometry neuron|cylinders  how SWC samples become compartments: as NEURON's\n"
      "                       Import3d and nseg make them (default), or one cylinder per\n"
      "                       sample and a soma sphere (the older benchmarks' layout)\n"
      "  --dx UM              SWC segments of at most UM um: NEURON's d_X rule, an odd nseg\n"
      "                       per section (cylinders: resample every branch); default one\n"
      "                       segment per sample\n"
      "  --d-lambda F[:HZ]    nseg by NEURON's d_lambda rule: segments of at most F length\n"
      "                       constants at HZ (default 100) Hz\n"
      "  --nseg-factor K      every section's nseg from the rule above times K (3, 9, 27:\n"
      "                       a nested refinement, every coarser node stays a node)\n"
      "Time:\n"
      "  --steps N            time steps (default 1000; 200 ms worth in the default job)\n"
      "  --tstop MS           simulated time instead of --steps: round(MS / dt) steps\n"
      "  --dt MS              step length in ms (default 0.025)\n"
      "Membrane and stimulus (units: mV, ms, nA, uF/cm2, Ohm cm, S/cm2):\n"
      "  --cm C  --ra R  --gl G  --el E   passive membrane (default 1, 100, 1e-4, -65)\n"
      "  --stim-amp NA        current clamp amplitude in nA (default 0.1)\n"
      "  --stim-start MS, --stim-stop MS  clamp window (default 1 and 1e9)\n"
      "  --stim-compartment I compartment that receives the clamp (default 0, the soma)\n"
      "  --stim-spread S      the amplitude goes from (1-S/2) to (1+S/2) times --stim-amp\n"
      "                       across the batch, by neuron number (default 0.5: +-25 %%);\n"
      "                       a comparison with another simulator needs --stim-spread 0\n"
      "Output:\n"
      "  --summary            print the morphology summary of each --morph, then exit\n"
      "  --verify             compare sampled neurons against the sequential reference solver\n"
      "                       (tolerance scaled by the condition of the step's matrix)\n"
      "  --verify-tolerance R fail --verify above the relative error R instead\n"
      "  --trace DIR          record an FxT trace and convert it into DIR/paje.trace\n"
      "  --json FILE          write the run summary as JSON: what shaped the run (command\n"
      "                       line, commit, machine, parameters) and its timings;\n"
      "                       scripts/rerun_json.py repeats the run from it\n"
      "  --force              let --json, --probes, --spikes and --trace replace existing\n"
      "                       results (without it an existing non-empty file, or a trace\n"
      "                       folder holding a trace, is refused; outputs must be regular\n"
      "                       files)\n"
      "  --quiet              no progress or banner; errors still go to stderr\n"
      "  --help, --version\n"
      "\n"
      "Environment: STARPU_SCHED (scheduler, default dmdas; unknown names are refused),\n"
      "STARPU_NCPU and STARPU_NCUDA (worker counts), STARPU_NWORKER_PER_CUDA (concurrent\n"
      "streams per GPU, default 16), STARPU_HOME (performance models), STARPU_LIMIT_CUDA_MEM\n"
      "(MB per GPU); hinestask also sets STARPU_MINIMUM_CLEAN_BUFFERS=0,\n"
      "STARPU_TARGET_CLEAN_BUFFERS=0, STARPU_CUDA_PIPELINE=4 and STARPU_SCHED_BETA=10 unless\n"
      "they are set.\n"
      "Exit status: 0 success, 1 failure during the run (a write error included), 2 bad\n"
      "usage or bad input (checked before the run; nothing is written then).\n",
      program,
      "24 neurons of the six cells in morph/data (multi-morphology), HH channels\n"
      "everywhere, a current step into each soma from 20 to 180 ms of 0.75 to 1.25 nA\n"
      "(1 nA +-25 % across the batch, --stim-spread), 200 ms simulated; soma voltages\n"
      "and the JSON summary go to a new folder hinestask-results/run-DATE-TIME/",
      mechanism_help());
}

/* One line on stderr and exit 2: the contract for bad usage. */
void bad_usage(const char *format, const char *value) {
  /* The value is what was typed; it may hold control bytes, shown as \xNN (hines_printable). */
  char shown[1024];
  hines_printable(shown, sizeof shown, value, strlen(value));
  fprintf(stderr, "%s: ", program);
  fprintf(stderr, format, shown);
  fprintf(stderr, " (try '%s --help')\n", program);
  exit(2);
}

/* none, soma, all (the first `length` characters of text): enum channel_placement, or -1. */
static int placement_of(const char *text, size_t length) {
  static const char *const names[] = {"none", "soma", "all"};
  for (int p = PLACE_NONE; p <= PLACE_ALL; p++)
    if (strlen(names[p]) == length && strncmp(text, names[p], length) == 0)
      return p;
  return -1;
}

/* --channels: comma items NAME[:none|soma|all] (no place: the table's default place) or
 * NAME.PARAM=VALUE (PARAM one of the mechanism's conductance or reversal names, mechanisms.c). */
static void parse_channels(struct options *o, const char *text) {
  o->channels_spec = text;
  const char *item = text;
  if (!*text)
    bad_usage("--channels needs NAME:PLACE items (names: %s), got ''", mechanism_names());
  for (;;) {
    const char *end = strchr(item, ',');
    const size_t length = end ? (size_t)(end - item) : strlen(item);
    char typed[256];
    snprintf(typed, sizeof typed, "%.*s", (int)(length < 200 ? length : 200), item);
    const size_t name_length = strcspn(typed, ":.=");
    const int m = mechanism_find(typed, name_length);
    if (m < 0) {
      char message[400];
      snprintf(message, sizeof message,
               "--channels: unknown mechanism in '%%s' (known: %s; NAME:none|soma|all or "
               "NAME.PARAM=VALUE)",
               mechanism_names());
      bad_usage(message, typed);
    }
    const struct mechanism_description *d = &mechanism_table[m];
    const char *rest = typed + name_length;
    if (*rest == '\0' || *rest == ':') {
      const int place = *rest ? placement_of(rest + 1, strlen(rest + 1)) : d->defaults.placement;
      if (place < 0)
        bad_usage("--channels: the place must be none, soma or all, got '%s'", typed);
      channel_set_place(&o->model.channels, m, place);
      if (m == MECHANISM_HH)
        o->hh_given = 1;
    } else if (*rest == '.') {
      const char *equals = strchr(rest, '=');
      const size_t parameter_length = equals ? (size_t)(equals - rest - 1) : 0;
      double *target = NULL;
      for (int c = 0; c < MECHANISM_MAX_CURRENTS && !target; c++) {
        if (d->gbar_names[c] && strlen(d->gbar_names[c]) == parameter_length &&
            strncmp(rest + 1, d->gbar_names[c], parameter_length) == 0)
          target = &o->model.channels.mechanism[m].gbar[c];
        if (d->reversal_names[c] && strlen(d->reversal_names[c]) == parameter_length &&
            strncmp(rest + 1, d->reversal_names[c], parameter_length) == 0)
          target = &o->model.channels.mechanism[m].reversal[c];
      }
      if (!target) {
        char message[400], known[200];
        mechanism_parameter_names(d, ", ", known, sizeof known);
        snprintf(message, sizeof message,
                 "--channels: '%%s' sets no parameter of %s (%s.PARAM=VALUE, PARAM one of %s)",
                 d->name, d->name, known);
        bad_usage(message, typed);
      }
      char *number_end;
      errno = 0;
      const double value = strtod(equals + 1, &number_end);
      const int reversal = target == &o->model.channels.mechanism[m].reversal[0] ||
                           target == &o->model.channels.mechanism[m].reversal[1] ||
                           target == &o->model.channels.mechanism[m].reversal[2];
      if (errno || number_end == equals + 1 || *number_end || !isfinite(value) ||
          (!reversal && value < 0))
        bad_usage(reversal ? "--channels: '%s' needs a number (mV)"
                           : "--channels: '%s' needs a number >= 0 (S/cm2)",
                  typed);
      *target = value;
    } else {
      bad_usage("--channels: '%s' is neither NAME:PLACE nor NAME.PARAM=VALUE", typed);
    }
    if (!end)
      break;
    item = end + 1;
  }
}

/* The index of `text` among the n words, or bad usage: "OPTION must be A, B or C, got 'X'". */
/* The index of text among words[0 .. n - 1], or -1. */
static int keyword_index(const char *text, const char *const *words, int n) {
  for (int i = 0; i < n; i++)
    if (strcmp(text, words[i]) == 0)
      return i;
  return -1;
}

static int parse_keyword(const char *option, const char *text, const char *const *words, int n) {
  const int found = keyword_index(text, words, n);
  if (found >= 0)
    return found;
  char message[256];
  int at = snprintf(message, sizeof message, "%s must be ", option);
  for (int i = 0; i < n && at > 0 && (size_t)at < sizeof message; i++)
    at += snprintf(message + at, sizeof message - (size_t)at, "%s%s", words[i],
                   i + 2 < n    ? ", "
                   : i + 2 == n ? " or "
                                : ", got '%s'");
  bad_usage(message, text);
  return -1;
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

enum long_only_options {
  OPT_MORPH = 256,
  OPT_NEURONS,
  OPT_MODE,
  OPT_LAYOUT,
  OPT_BLOCK_SIZE,
  OPT_TASK_NEURONS,
  OPT_TASK_PARTS,
  OPT_TRUNK_BELOW,
  OPT_TRUNK_BRANCHES,
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
  OPT_FORCE,
  OPT_VERIFY_TOLERANCE,
  OPT_WINDOW,
  OPT_TASK_STEPS,
  OPT_MODELS,
  OPT_PIN,
  OPT_CPU_SHARE,
  OPT_CPU_CHUNKS,
  OPT_SPIKES,
  OPT_SPIKE_THRESHOLD,
  OPT_LEVEL_KERNEL,
  OPT_LEVEL_ROWS,
  OPT_LEVEL_PIVOTS,
  OPT_LEVEL_PRIORITIES,
  OPT_ARRANGE,
  OPT_LEVEL_LEAN,
  OPT_LEVEL_FACTORS,
  OPT_LEVEL_WARPS,
  OPT_WARP_LANES,
  OPT_CELL_NEURONS,
  OPT_LEVEL_SUBTREES,
  OPT_LEVEL_SPLIT,
  OPT_LEVEL_ROOT,
  OPT_HH_RATES,
  OPT_NSEG_FACTOR,
  OPT_PARAMS,
  OPT_GNABAR,
  OPT_GKBAR,
  OPT_GL_HH,
  OPT_EL_HH,
  OPT_CHANNELS,
  OPT_AFTER_LAST /* not an option */
};
_Static_assert(OPT_AFTER_LAST - OPT_MORPH <= OPTIONS_TRACKED,
               "struct options' `given` needs an entry for every long option");

/* Whether an option was given on the command line. */
static int given(const struct options *o, int option) {
  return o->given[option - OPT_MORPH];
}

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
 * probed, results in a new folder hinestask-results/run-DATE-TIME/. Options given explicitly
 * keep their values. */
static void resolve_default_job(struct options *o) {
  static char paths[N_SHIPPED][PATH_MAX];
  if (o->n_morph_specs == 0 && (!o->mode || strcmp(o->mode, "multi") == 0)) {
    o->default_job = 1;
    o->mode = "multi";
    o->mode_reason = "the default job";
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
    if (!o->steps) {
      /* 200 ms, counted in double: a tiny --dt must be refused, not wrap round an int. */
      double steps = floor(200.0 / o->model.dt_ms + 0.5);
      if (steps > (double)MAX_STEPS) {
        char message[300], typed[32];
        snprintf(message, sizeof message,
                 "--dt %%s ms makes the default job's 200 ms %.3g steps, more than the %lld "
                 "allowed (step counts are 32-bit and a billion steps takes days); give a larger "
                 "--dt, or --steps",
                 steps, MAX_STEPS);
        snprintf(typed, sizeof typed, "%g", o->model.dt_ms);
        bad_usage(message, typed);
      }
      o->steps = steps < 1 ? 1 : (int)steps;
    }
    if (!o->hh_given)
      channel_set_place(&o->model.channels, MECHANISM_HH, PLACE_ALL);
    if (!given(o, OPT_STIM_AMP))
      o->model.stimulus.amplitude_nA = 1.0;
    if (!given(o, OPT_STIM_START))
      o->model.stimulus.start_ms = 20.0;
    if (!given(o, OPT_STIM_STOP))
      o->model.stimulus.stop_ms = 180.0;
    if (o->n_probes == 0)
      for (int i = 0; i < (int)N_SHIPPED && i < o->neurons; i++) {
        o->probe_neuron[o->n_probes] = i;
        o->probe_compartment[o->n_probes++] = 0;
      }
    /* Without --probes and --json, both go into a new run folder, made when the run starts
     * (output_plan_start): a run never replaces an earlier run's results. */
  }
  if (given(o, OPT_BLOCK_SIZE) && !given(o, OPT_LAYOUT)) { /* blocks of that size */
    o->layout = BATCH_LAYOUT_BLOCK;
    o->layout_auto = 0;
  }
  if (!o->mode)
    o->mode = "auto";
  if (strcmp(o->mode, "auto") == 0 && o->n_morph_specs > 1) {
    o->mode = "multi";
    o->mode_reason = "a mix of morphologies";
  } else if (strcmp(o->mode, "auto") == 0 && o->mono_option_given != o->multi_option_given) {
    o->mode = o->mono_option_given ? "mono" : "multi";
    o->mode_reason = "an option of that mode was given";
  } else if (!o->mode_reason) {
    o->mode_reason = strcmp(o->mode, "auto") == 0 ? NULL : "given with --mode";
  }
  if (o->n_morph_specs == 0)
    o->morph_specs[o->n_morph_specs++] = "synthetic:medium-high";
  if (!o->neurons)
    o->neurons = 2560;
  if (!o->steps)
    o->steps = 1000;
}

/* getopt_long's '?': an unknown option, or a known one at the end with no value. getopt_long
 * sets optopt to the option's value for a missing value, to 0 for an unknown long option, and to
 * the character for an unknown short one (every short option is unknown: there are none). */
static void unknown_or_incomplete_option(int argc, char **argv, const struct option *long_options) {
  if (optopt >= OPT_MORPH) {
    for (const struct option *l = long_options; l->name; l++)
      if (l->val == optopt) {
        char typed[64];
        snprintf(typed, sizeof typed, "--%s", l->name);
        bad_usage("option '%s' needs a value", typed);
      }
  }
  if (optopt == 0)
    bad_usage("unknown option '%s'", argv[optind - 1]);
  /* A short option: getopt stops at the first character of the word, so the word is the one it
   * has just passed ("-x") or, when more characters follow ("-neurons"), the one it is on. */
  const char *word = argv[optind - 1];
  if (!(word[0] == '-' && word[1] == optopt && word[2] == '\0') && optind < argc)
    word = argv[optind];
  const char *name = word + 1;
  size_t length = strcspn(name, "=");
  for (const struct option *l = long_options; l->name; l++)
    if (strlen(l->name) == length && strncmp(l->name, name, length) == 0) {
      char message[200];
      snprintf(message, sizeof message,
               "unknown option '%%s' (long options take two dashes: '--%s')", l->name);
      bad_usage(message, word);
    }
  bad_usage("unknown option '%s'", word);
}

/* Step and sample counts, in 64 bits and with limits: a tiny --dt must not wrap the step count
 * round, nor a huge --probe-every the sampling interval. */
static void check_counts(struct options *o) {
  char message[400];
  double dt = o->model.dt_ms;
  double simulated = (double)o->steps * dt;
  if (o->n_probes && !o->probes_path && !o->default_job) {
    char typed[32];
    snprintf(typed, sizeof typed, "%d:%d", o->probe_neuron[0], o->probe_compartment[0]);
    bad_usage("--probe %s needs --probes FILE to write the voltages to", typed);
  }
  if (!isfinite(simulated) || simulated > 1e12) {
    snprintf(message, sizeof message,
             "--dt %%s ms with --steps %d would simulate %g ms, more than the 1e12 ms (30 years) "
             "allowed",
             o->steps, simulated);
    char typed[32];
    snprintf(typed, sizeof typed, "%g", dt);
    bad_usage(message, typed);
  }
  /* The sampling interval in steps, 1 at least (at most once per step). */
  double every = floor(o->probe_every_ms / dt + 0.5);
  if (every < 1)
    every = 1;
  if (every > o->steps) {
    if (o->probe_every_given && o->n_probes) {
      snprintf(message, sizeof message,
               "--probe-every %%s ms is longer than the %g ms simulated (%d steps of %g ms); "
               "give at most %g",
               simulated, o->steps, dt, simulated);
      char typed[32];
      snprintf(typed, sizeof typed, "%g", o->probe_every_ms);
      bad_usage(message, typed);
    }
    every = o->steps; /* the default interval in a short run: the start and the end */
  }
  o->probe_every_steps = (int)every;
  long long rows = o->steps / o->probe_every_steps + 2;
  if (o->n_probes && rows * (1 + o->n_probes) > MAX_PROBE_VALUES) {
    snprintf(message, sizeof message,
             "--steps %d with --probe-every %g ms and %d probes would record %lld values, more "
             "than the %lld kept in memory (400 MB); record less often (--probe-every) or "
             "fewer --probe (got '%%s')",
             o->steps, o->probe_every_ms, o->n_probes, rows * (1 + o->n_probes), MAX_PROBE_VALUES);
    char typed[32];
    snprintf(typed, sizeof typed, "%g", o->probe_every_ms);
    bad_usage(message, typed);
  }
}

/* --level-kernel's words, in enum level_kernel's order. */
static const char *const level_kernel_words[] = {"levels", "cell",     "flow",
                                                 "shared", "branches", "auto"};

const char *options_level_kernel_word(enum level_kernel kernel) {
  return level_kernel_words[kernel];
}

/* --level-rows' words, in enum level_rows' order. */
static const char *const level_rows_words[] = {"fused", "apart", "auto"};
/* --level-priorities' words, in that order: struct options' -1, 1 and 0 */
static const char *const level_priorities_words[] = {"auto", "on", "off"};

/* --arrange's words, in that order: enum placement_share's AUTO, ON and OFF */
static const char *const arrange_words[] = {"auto", "on", "off"};

const char *options_arrange_word(const struct options *o) {
  return arrange_words[o->arrange == PLACEMENT_SHARE_ON    ? 1
                       : o->arrange == PLACEMENT_SHARE_OFF ? 2
                                                           : 0];
}

const char *options_level_priorities_word(const struct options *o) {
  return level_priorities_words[o->level_priorities < 0 ? 0 : o->level_priorities ? 1 : 2];
}

const char *options_level_pivots_word(const struct options *o) {
  static char number[16];
  if (o->stored_pivots_below == MULTI_STORED_PIVOTS_BELOW)
    return "auto";
  if (o->stored_pivots_below == INT_MAX || o->stored_pivots_below == 0)
    return o->stored_pivots_below ? "stored" : "computed";
  snprintf(number, sizeof number, "%d", o->stored_pivots_below);
  return number;
}

const char *options_level_rows_word(const struct options *o) {
  static char number[16];
  if (o->rows_apart_below <= 0)
    return level_rows_words[o->level_rows];
  snprintf(number, sizeof number, "%d", o->rows_apart_below);
  return number;
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
      {"trunk-branches", required_argument, 0, OPT_TRUNK_BRANCHES},
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
      {"force", no_argument, 0, OPT_FORCE},
      {"verify-tolerance", required_argument, 0, OPT_VERIFY_TOLERANCE},
      {"window", required_argument, 0, OPT_WINDOW},
      {"task-steps", required_argument, 0, OPT_TASK_STEPS},
      {"models", required_argument, 0, OPT_MODELS},
      {"pin", no_argument, 0, OPT_PIN},
      {"cpu-share", required_argument, 0, OPT_CPU_SHARE},
      {"cpu-chunks", required_argument, 0, OPT_CPU_CHUNKS},
      {"arrange", required_argument, 0, OPT_ARRANGE},
      {"spikes", required_argument, 0, OPT_SPIKES},
      {"spike-threshold", required_argument, 0, OPT_SPIKE_THRESHOLD},
      {"level-kernel", required_argument, 0, OPT_LEVEL_KERNEL},
      {"level-rows", required_argument, 0, OPT_LEVEL_ROWS},
      {"level-pivots", required_argument, 0, OPT_LEVEL_PIVOTS},
      {"level-priorities", required_argument, 0, OPT_LEVEL_PRIORITIES},
      {"level-lean", required_argument, 0, OPT_LEVEL_LEAN},
      {"level-factors", required_argument, 0, OPT_LEVEL_FACTORS},
      {"level-warps", required_argument, 0, OPT_LEVEL_WARPS},
      {"level-subtrees", required_argument, 0, OPT_LEVEL_SUBTREES},
      {"level-split", required_argument, 0, OPT_LEVEL_SPLIT},
      {"level-root", required_argument, 0, OPT_LEVEL_ROOT},
      {"warp-lanes", required_argument, 0, OPT_WARP_LANES},
      {"cell-neurons", required_argument, 0, OPT_CELL_NEURONS},
      {"hh-rates", required_argument, 0, OPT_HH_RATES},
      {"nseg-factor", required_argument, 0, OPT_NSEG_FACTOR},
      {"params", required_argument, 0, OPT_PARAMS},
      {"gnabar", required_argument, 0, OPT_GNABAR},
      {"gkbar", required_argument, 0, OPT_GKBAR},
      {"gl-hh", required_argument, 0, OPT_GL_HH},
      {"el-hh", required_argument, 0, OPT_EL_HH},
      {"channels", required_argument, 0, OPT_CHANNELS},
      {0, 0, 0, 0}};
  *o = (struct options){.neurons = 0, /* 0: the default of the job, resolved below */
                        .mode = NULL,
                        .layout = BATCH_LAYOUT_INTERLEAVED,
                        .layout_auto = 1,
                        .block_size = 32,
                        .cpu_group = 32,
                        .level_kernel = LEVEL_KERNEL_AUTO,
                        .trunk_branches = TRUNK_BRANCHES_AUTO,
                        .steps = 0,
                        .model = {.cable = cable_defaults,
                                  .dt_ms = 0.025,
                                  .stimulus = {.compartment = 0,
                                               .amplitude_nA = 0.1,
                                               .start_ms = 1.0,
                                               .stop_ms = 1e9,
                                               .spread = 0.5},
                                  .hh_rates = HH_RATES_TABLE},
                        .probe_every_ms = 0.1,
                        .gpu_launch = GPU_LAUNCH_AUTO,
                        .level_rows = LEVEL_ROWS_AUTO,
                        .stored_pivots_below = MULTI_STORED_PIVOTS_BELOW,
                        .level_priorities = -1,
                        .level_lean = 1,
                        .level_row_factors = 1,
                        .warp_lanes = 16,
                        .subtree_compartments = LEVEL_SUBTREES_DEFAULT,
                        .split_compartments = LEVEL_SPLIT_DEFAULT,
                        .level_root_center = 1,
                        .verify_samples = 8};
  channel_set_init(&o->model.channels);
  o->argc = argc;
  o->argv = argv;
  o->started = time(NULL);
  opterr = 0; /* our own one-line messages */
  int c;
  while ((c = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
    if (c >= OPT_MORPH && c < OPT_AFTER_LAST)
      o->given[c - OPT_MORPH] = 1;
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
      if (strcmp(optarg, "mono") && strcmp(optarg, "multi") && strcmp(optarg, "auto"))
        bad_usage("--mode must be auto, mono or multi, got '%s'", optarg);
      o->mode = optarg;
      break;
    case OPT_LAYOUT: {
      o->mono_option_given = 1;
      int layout = batch_layout_parse(optarg);
      if (layout < 0)
        bad_usage("--layout must be flat, interleaved, block or shared, got '%s'", optarg);
      o->layout = (enum batch_layout_kind)layout;
      o->layout_auto = 0;
      break;
    }
    case OPT_BLOCK_SIZE:
      o->mono_option_given = 1;
      o->block_size = parse_int("--block-size", optarg, 1, 1 << 20);
      break;
    case OPT_TASK_NEURONS:
      o->neurons_per_task = parse_int("--task-neurons", optarg, 1, INT_MAX / 2);
      break;
    case OPT_TASK_PARTS:
      o->multi_option_given = 1;
      o->parts_per_task = parse_int("--task-parts", optarg, 1, 8);
      break;
    case OPT_TRUNK_BELOW:
      o->multi_option_given = 1;
      o->trunk_below = parse_int("--trunk-below", optarg, 0, INT_MAX);
      break;
    case OPT_TRUNK_BRANCHES:
      o->multi_option_given = 1;
      if (strcmp(optarg, "auto") == 0) {
        o->trunk_branches = TRUNK_BRANCHES_AUTO;
      } else {
        char *end;
        errno = 0;
        o->trunk_branches = strtod(optarg, &end);
        if (errno || end == optarg || *end || !isfinite(o->trunk_branches) || o->trunk_branches < 0)
          bad_usage("--trunk-branches needs auto or a number >= 0, got '%s'", optarg);
      }
      break;
    case OPT_CPU_GROUP:
      o->mono_option_given = 1;
      o->cpu_group = parse_int("--cpu-group", optarg, 1, 64);
      break;
    case OPT_STEPS:
      o->steps = parse_int("--steps", optarg, 1, (int)MAX_STEPS);
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
      o->json_path = optarg; /* checked with the other outputs (output_files.c) */
      break;
    case OPT_QUIET:
      o->quiet = 1;
      break;
    case OPT_FORCE:
      o->force = 1;
      break;
    case OPT_VERIFY_TOLERANCE:
      o->verify_tolerance = parse_double("--verify-tolerance", optarg, 0, 1);
      break;
    case OPT_HELP:
      usage(stdout);
      exit(0);
    case OPT_VERSION:
      printf("hinestask %s (commit %s)\n", HINESTASK_VERSION, HINESTASK_COMMIT);
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
      break;
    case OPT_STIM_START:
      o->model.stimulus.start_ms = parse_double("--stim-start", optarg, 0, 0);
      break;
    case OPT_STIM_STOP:
      o->model.stimulus.stop_ms = parse_double("--stim-stop", optarg, 0, 0);
      break;
    case OPT_STIM_COMPARTMENT:
      o->model.stimulus.compartment = parse_int("--stim-compartment", optarg, 0, INT_MAX);
      break;
    case OPT_STIM_SPREAD:
      o->model.stimulus.spread = parse_double("--stim-spread", optarg, 0, 0);
      break;
    case OPT_HH: {
      const int place = placement_of(optarg, strlen(optarg));
      if (place < 0)
        bad_usage("--hh must be none, soma or all, got '%s'", optarg);
      channel_set_place(&o->model.channels, MECHANISM_HH, place);
    }
      o->hh_given = 1;
      break;
    case OPT_HH_RATES:
      if (strcmp(optarg, "table") == 0)
        o->model.hh_rates = HH_RATES_TABLE;
      else if (strcmp(optarg, "exact") == 0)
        o->model.hh_rates = HH_RATES_EXACT;
      else
        bad_usage("--hh-rates must be table or exact, got '%s'", optarg);
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
      o->probe_every_given = 1;
      break;
    case OPT_PROBES:
      o->probes_path = optarg;
      break;
    case OPT_SPIKES:
      o->spikes_path = optarg; /* checked with the other outputs (output_files.c) */
      break;
    case OPT_GNABAR:
      o->model.channels.mechanism[MECHANISM_HH].gbar[HH_CURRENT_NA] =
          parse_double("--gnabar", optarg, 0, 0);
      break;
    case OPT_GKBAR:
      o->model.channels.mechanism[MECHANISM_HH].gbar[HH_CURRENT_K] =
          parse_double("--gkbar", optarg, 0, 0);
      break;
    case OPT_GL_HH:
      o->model.channels.mechanism[MECHANISM_HH].gbar[HH_CURRENT_LEAK] =
          parse_double("--gl-hh", optarg, 0, 0);
      break;
    case OPT_EL_HH:
      o->model.channels.mechanism[MECHANISM_HH].reversal[HH_CURRENT_LEAK] =
          parse_double("--el-hh", optarg, -1e6, 0);
      break;
    case OPT_CHANNELS:
      parse_channels(o, optarg);
      break;
    case OPT_PARAMS:
      o->mono_option_given = 1; /* per-neuron values: the mono batches only */
      o->params_path = optarg;
      break;
    case OPT_SPIKE_THRESHOLD:
      o->spike_threshold_mV = parse_double("--spike-threshold", optarg, -1e6, 0);
      break;
    case OPT_GEOMETRY:
      if (strcmp(optarg, "neuron") && strcmp(optarg, "cylinders"))
        bad_usage("--geometry must be neuron or cylinders, got '%s'", optarg);
      o->geometry = strcmp(optarg, "neuron") == 0 ? SWC_GEOMETRY_NEURON : SWC_GEOMETRY_CYLINDERS;
      break;
    case OPT_NSEG_FACTOR:
      o->nseg_factor = parse_int("--nseg-factor", optarg, 1, 1000000);
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
    case OPT_CALIBRATE:
      /* StarPU's calibration mode: every task of this run feeds the history models under
       * STARPU_HOME, and dmda explores all workers instead of trusting partial models. */
      setenv("STARPU_CALIBRATE", "1", 1);
      o->calibrate = 1;
      break;
    case OPT_MODELS:
      if (strcmp(optarg, "size") && strcmp(optarg, "starpu"))
        bad_usage("--models must be size or starpu, got '%s'", optarg);
      o->history_models = strcmp(optarg, "starpu") == 0;
      break;
    case OPT_WINDOW:
      o->window = parse_int("--window", optarg, 1, 1 << 20);
      break;
    case OPT_TASK_STEPS:
      o->mono_option_given = 1;
      o->task_steps = parse_int("--task-steps", optarg, 1, 1024);
      break;
    case OPT_PIN:
      o->pin = 1;
      break;
    case OPT_CPU_CHUNKS:
      o->multi_option_given = 1;
      o->cpu_chunks = parse_int("--cpu-chunks", optarg, 1, 64);
      break;
    case OPT_ARRANGE: {
      o->multi_option_given = 1;
      const int word = parse_keyword("--arrange", optarg, arrange_words, 3);
      o->arrange = word == 0   ? PLACEMENT_SHARE_AUTO
                   : word == 1 ? PLACEMENT_SHARE_ON
                               : PLACEMENT_SHARE_OFF;
      break;
    }
    case OPT_CPU_SHARE:
      if (strcmp(optarg, "auto") == 0)
        o->cpu_share = PLACEMENT_SHARE_AUTO;
      else if (strcmp(optarg, "on") == 0)
        o->cpu_share = PLACEMENT_SHARE_ON;
      else if (strcmp(optarg, "off") == 0)
        o->cpu_share = PLACEMENT_SHARE_OFF;
      else
        bad_usage("--cpu-share must be auto, on or off, got '%s'", optarg);
      break;
    case OPT_MULTI_TASKS:
      o->multi_option_given = 1;
      if (strcmp(optarg, "levels") && strcmp(optarg, "chunk") && strcmp(optarg, "neuron"))
        bad_usage("--multi-tasks must be chunk, levels or neuron, got '%s'", optarg);
      o->level_tasks = strcmp(optarg, "levels") == 0;
      o->per_neuron = strcmp(optarg, "neuron") == 0;
      break;
    case OPT_PADDING:
      o->multi_option_given = 1;
      if (strcmp(optarg, "cp") && strcmp(optarg, "ncp"))
        bad_usage("--padding must be cp or ncp, got '%s'", optarg);
      o->padded = strcmp(optarg, "cp") == 0;
      break;
    case OPT_LEVEL_ORDER:
      o->multi_option_given = 1;
      if (strcmp(optarg, "depth") && strcmp(optarg, "height"))
        bad_usage("--level-order must be depth or height, got '%s'", optarg);
      o->level_order = strcmp(optarg, "depth") == 0 ? LEVEL_ORDER_DEPTH : LEVEL_ORDER_HEIGHT;
      break;
    case OPT_LEVEL_KERNEL:
      o->multi_option_given = 1;
      o->level_kernel =
          (enum level_kernel)parse_keyword("--level-kernel", optarg, level_kernel_words, 6);
      break;
    case OPT_LEVEL_ROWS:
      o->multi_option_given = 1;
      if (optarg[0] >= '0' && optarg[0] <= '9') { /* N: apart at levels of fewer branches */
        o->level_rows = LEVEL_ROWS_AUTO;
        o->rows_apart_below = parse_int("--level-rows", optarg, 1, INT_MAX);
      } else {
        const int word = keyword_index(optarg, level_rows_words, 3);
        if (word < 0)
          bad_usage("--level-rows must be fused, apart, auto or a number of branches, got '%s'",
                    optarg);
        o->level_rows = (enum level_rows)word;
        o->rows_apart_below = 0;
      }
      break;
    case OPT_LEVEL_PIVOTS:
      o->multi_option_given = 1;
      o->stored_pivots_below = strcmp(optarg, "auto") == 0     ? MULTI_STORED_PIVOTS_BELOW
                               : strcmp(optarg, "stored") == 0 ? INT_MAX
                               : strcmp(optarg, "computed") == 0
                                   ? 0
                                   : parse_int("--level-pivots", optarg, 1, INT_MAX);
      break;
    case OPT_LEVEL_PRIORITIES: {
      o->multi_option_given = 1;
      const int word = parse_keyword("--level-priorities", optarg, level_priorities_words, 3);
      o->level_priorities = word == 0 ? -1 : word == 1; /* auto -1, on 1, off 0 */
      break;
    }
    case OPT_LEVEL_LEAN: {
      static const char *const words[] = {"on", "off"};
      o->multi_option_given = 1;
      o->level_lean = parse_keyword("--level-lean", optarg, words, 2) == 0;
      break;
    }
    case OPT_LEVEL_FACTORS: {
      static const char *const words[] = {"rows", "elements"};
      o->multi_option_given = 1;
      o->level_row_factors = parse_keyword("--level-factors", optarg, words, 2) == 0;
      break;
    }
    case OPT_LEVEL_WARPS:
      o->multi_option_given = 1;
      { /* in enum level_warps' order */
        static const char *const words[] = {"auto", "off", "all"};
        o->level_warps = (enum level_warps)parse_keyword("--level-warps", optarg, words, 3);
      }
      break;
    case OPT_WARP_LANES:
      o->multi_option_given = 1;
      o->warp_lanes = parse_int("--warp-lanes", optarg, 8, 32);
      if (o->warp_lanes != 8 && o->warp_lanes != 16 && o->warp_lanes != 32)
        bad_usage("--warp-lanes must be 8, 16 or 32, got '%s'", optarg);
      break;
    case OPT_LEVEL_SUBTREES:
      o->multi_option_given = 1;
      o->subtree_compartments =
          strcmp(optarg, "off") == 0 ? 0 : parse_int("--level-subtrees", optarg, 0, 4096);
      break;
    case OPT_LEVEL_SPLIT:
      o->multi_option_given = 1;
      o->split_compartments =
          strcmp(optarg, "off") == 0 ? 0 : parse_int("--level-split", optarg, 0, 1000000);
      break;
    case OPT_LEVEL_ROOT:
      o->multi_option_given = 1;
      if (strcmp(optarg, "center") && strcmp(optarg, "soma"))
        bad_usage("--level-root must be center or soma, got '%s'", optarg);
      o->level_root_center = strcmp(optarg, "center") == 0;
      break;
    case OPT_CELL_NEURONS:
      o->multi_option_given = 1;
      o->cell_neurons = parse_int("--cell-neurons", optarg, 1, 1024);
      break;
    case OPT_GPU_LAUNCH:
      o->multi_option_given = 1;
      { /* in enum gpu_launch's order */
        static const char *const words[] = {"early", "plain", "auto"};
        o->gpu_launch = (enum gpu_launch)parse_keyword("--gpu-launch", optarg, words, 3);
      }
      break;
    case '?':
    default:
      unknown_or_incomplete_option(argc, argv, long_options);
    }
  }
  if (optind < argc)
    bad_usage("unexpected argument '%s'", argv[optind]);
  if (o->tstop_ms > 0) {
    if (o->steps)
      bad_usage("give --tstop or --steps, not both (got --tstop %s and --steps)", o->tstop_text);
    double steps = floor(o->tstop_ms / o->model.dt_ms + 0.5);
    if (!(steps >= 1 && steps <= 1e9))
      bad_usage("--tstop %s ms is less than one step of --dt or more than 1000000000 steps",
                o->tstop_text);
    o->steps = (int)steps;
  }
  if (o->d_lambda > 0 && o->dx_um > 0)
    bad_usage("--dx and --d-lambda are two rules for the segments; give one, not both (%s)",
              "--d-lambda");
  if (o->d_lambda > 0 && o->geometry == SWC_GEOMETRY_CYLINDERS)
    bad_usage("--d-lambda cuts NEURON sections; drop '--geometry %s'", "cylinders");
  if (o->nseg_factor > 1 && o->geometry == SWC_GEOMETRY_CYLINDERS)
    bad_usage("--nseg-factor multiplies NEURON sections' nseg; drop '--geometry %s'", "cylinders");
  resolve_default_job(o);
  check_counts(o);
  if (o->level_tasks && o->level_order == LEVEL_ORDER_HEIGHT)
    bad_usage("--level-order height needs one task per chunk (a branch's children may sit several "
              "levels deeper than a per-level task sees); drop '--multi-tasks %s'",
              "levels");
  if (o->level_tasks && o->level_kernel != LEVEL_KERNEL_LEVELS &&
      o->level_kernel != LEVEL_KERNEL_AUTO)
    bad_usage("--level-kernel %s sweeps a whole step in one task per chunk; drop "
              "'--multi-tasks levels'",
              options_level_kernel_word(o->level_kernel));
  if (o->level_kernel == LEVEL_KERNEL_SHARED && o->padded)
    bad_usage("--level-kernel shared stores no padding; drop '--padding %s'", "cp");
  if (o->trunk_branches > 0 && o->trunk_below > 0)
    bad_usage("a trunk is swept by threads (--trunk-below) or solved by branches "
              "(--trunk-branches), not both; drop one%s",
              "");
  if (o->trunk_branches > 0 && o->padded)
    bad_usage("--trunk-branches stores no padding; drop '--padding %s'", "cp");
  if (o->trunk_branches > 0 && o->model.channels.placement != PLACE_NONE)
    bad_usage("--trunk-branches needs constant pivots, a passive membrane: add '--hh %s' or "
              "drop it",
              "none");
  if (o->level_kernel == LEVEL_KERNEL_BRANCHES && o->padded)
    bad_usage("--level-kernel branches stores no padding; drop '--padding %s'", "cp");
  if (o->level_kernel == LEVEL_KERNEL_BRANCHES && o->model.channels.placement != PLACE_NONE)
    bad_usage("--level-kernel branches needs constant pivots, a passive membrane: add "
              "'--hh %s' or pick another --level-kernel",
              "none");
  if (o->params_path && strcmp(o->mode, "multi") == 0)
    bad_usage("--params %s: parameter sweeps run in --mode mono only (one --morph, one row per "
              "neuron); this run is multi-morphology",
              o->params_path);
  if (o->per_neuron && o->model.channels.placement != PLACE_NONE) {
    const int hh = o->model.channels.mechanism[MECHANISM_HH].placement;
    if (o->model.channels.hh_only)
      bad_usage("--multi-tasks neuron (the per-neuron baseline) has no channels; drop '--hh %s'",
                hh == PLACE_SOMA ? "soma" : "all");
    else
      bad_usage("--multi-tasks neuron (the per-neuron baseline) has no channels; drop "
                "'--channels %s'",
                o->channels_spec ? o->channels_spec : "");
  }
  /* The model is complete now: every neuron starts at the leak reversal, and the stimulus
   * varies across this batch's size. */
  o->model.initial_mV = o->model.cable.el_mV;
  o->model.stimulus.n_neurons_total = o->neurons;
}

static void warn_ignored(FILE *out, const char *option, const char *why) {
  fprintf(out, "%s: warning: %s %s; ignored\n", program, option, why);
}

void options_warn(const struct options *o, FILE *out) {
  static const struct {
    int option;
    const char *name;
  } multi_only[] = {{OPT_PADDING, "--padding"},
                    {OPT_MULTI_TASKS, "--multi-tasks"},
                    {OPT_LEVEL_ORDER, "--level-order"},
                    {OPT_TRUNK_BELOW, "--trunk-below"},
                    {OPT_TRUNK_BRANCHES, "--trunk-branches"},
                    {OPT_GPU_LAUNCH, "--gpu-launch"},
                    {OPT_TASK_PARTS, "--task-parts"},
                    {OPT_LEVEL_KERNEL, "--level-kernel"},
                    {OPT_LEVEL_ROWS, "--level-rows"},
                    {OPT_CELL_NEURONS, "--cell-neurons"},
                    {OPT_LEVEL_WARPS, "--level-warps"},
                    {OPT_WARP_LANES, "--warp-lanes"},
                    {OPT_LEVEL_SUBTREES, "--level-subtrees"},
                    {OPT_LEVEL_SPLIT, "--level-split"},
                    {OPT_LEVEL_ROOT, "--level-root"},
                    {OPT_LEVEL_PIVOTS, "--level-pivots"},
                    {OPT_LEVEL_PRIORITIES, "--level-priorities"},
                    {OPT_LEVEL_LEAN, "--level-lean"},
                    {OPT_LEVEL_FACTORS, "--level-factors"},
                    {OPT_CPU_CHUNKS, "--cpu-chunks"},
                    {OPT_ARRANGE, "--arrange"}};
  if (!options_multi(o)) {
    for (size_t i = 0; i < sizeof multi_only / sizeof *multi_only; i++)
      if (given(o, multi_only[i].option))
        warn_ignored(out, multi_only[i].name, "applies to --mode multi only");
    if (given(o, OPT_BLOCK_SIZE) && !options_block_layout(o))
      warn_ignored(out, "--block-size", "applies to the block and shared layouts only");
  } else {
    if (given(o, OPT_LAYOUT))
      warn_ignored(out, "--layout",
                   "applies to --mode mono only (multi batches are stored by branch level, "
                   "--padding)");
    if (given(o, OPT_BLOCK_SIZE))
      warn_ignored(out, "--block-size", "applies to --mode mono only");
    if (given(o, OPT_CPU_GROUP))
      warn_ignored(out, "--cpu-group", "applies to --mode mono only");
    if (given(o, OPT_CPU_CHUNKS) && o->cpu_share == PLACEMENT_SHARE_OFF)
      warn_ignored(out, "--cpu-chunks", "does not apply with --cpu-share off");
    if (given(o, OPT_CPU_SHARE) && (o->per_neuron || o->level_tasks))
      warn_ignored(out, "--cpu-share",
                   "applies to mono batches and multi chunk tasks only (not per-level or "
                   "per-neuron tasks)");
    if (given(o, OPT_TASK_STEPS) && (o->per_neuron || o->level_tasks))
      warn_ignored(out, "--task-steps",
                   "applies to chunk tasks only (per-level and per-neuron tasks advance one step)");
    for (size_t i = 0; i < sizeof multi_only / sizeof *multi_only; i++) {
      int option = multi_only[i].option;
      if (!given(o, option) || option == OPT_MULTI_TASKS)
        continue;
      if (o->per_neuron)
        warn_ignored(out, multi_only[i].name,
                     "does not apply to --multi-tasks neuron (the per-neuron baseline)");
      else if (o->level_tasks && option != OPT_PADDING && option != OPT_LEVEL_ORDER &&
               option != OPT_LEVEL_SUBTREES && option != OPT_LEVEL_SPLIT &&
               option != OPT_LEVEL_ROOT && option != OPT_LEVEL_PIVOTS)
        warn_ignored(out, multi_only[i].name,
                     "applies to chunk tasks only, not to --multi-tasks levels");
      else if (o->level_kernel != LEVEL_KERNEL_LEVELS && o->level_kernel != LEVEL_KERNEL_AUTO &&
               (option == OPT_LEVEL_ROWS || option == OPT_LEVEL_PRIORITIES ||
                option == OPT_LEVEL_LEAN || option == OPT_LEVEL_FACTORS))
        warn_ignored(out, multi_only[i].name, "applies to --level-kernel levels only");
      else if (o->level_kernel == LEVEL_KERNEL_FLOW &&
               (option == OPT_TRUNK_BELOW || option == OPT_TRUNK_BRANCHES ||
                option == OPT_GPU_LAUNCH))
        warn_ignored(out, multi_only[i].name,
                     "does not apply to --level-kernel flow (one kernel sweeps every level)");
      else if (o->level_kernel == LEVEL_KERNEL_CELL &&
               (option == OPT_TRUNK_BELOW || option == OPT_TRUNK_BRANCHES ||
                option == OPT_GPU_LAUNCH))
        warn_ignored(out, multi_only[i].name,
                     "does not apply to --level-kernel cell (one kernel sweeps every level)");
      else if (o->level_kernel == LEVEL_KERNEL_CELL && option == OPT_WARP_LANES)
        warn_ignored(out, multi_only[i].name,
                     "does not apply to --level-kernel cell (a whole warp a warp-swept branch)");
      else if (o->level_kernel == LEVEL_KERNEL_SHARED &&
               (option == OPT_TRUNK_BELOW || option == OPT_TRUNK_BRANCHES ||
                option == OPT_GPU_LAUNCH || option == OPT_LEVEL_WARPS || option == OPT_WARP_LANES))
        warn_ignored(out, multi_only[i].name,
                     "does not apply to --level-kernel shared (one kernel sweeps every level, a "
                     "thread a branch)");
      else if (o->level_kernel == LEVEL_KERNEL_BRANCHES &&
               (option == OPT_TRUNK_BELOW || option == OPT_TRUNK_BRANCHES ||
                option == OPT_GPU_LAUNCH || option == OPT_LEVEL_WARPS || option == OPT_WARP_LANES ||
                option == OPT_LEVEL_PIVOTS))
        warn_ignored(out, multi_only[i].name,
                     "does not apply to --level-kernel branches (one kernel sweeps every branch "
                     "at once, a thread a branch, with stored pivots)");
      else if (o->level_kernel != LEVEL_KERNEL_CELL && o->level_kernel != LEVEL_KERNEL_SHARED &&
               o->level_kernel != LEVEL_KERNEL_BRANCHES && o->level_kernel != LEVEL_KERNEL_AUTO &&
               option == OPT_CELL_NEURONS &&
               (o->trunk_branches == 0 ||
                (o->trunk_branches < 0 &&
                 (o->padded || o->trunk_below > 0 || o->model.channels.placement != PLACE_NONE))))
        warn_ignored(out, multi_only[i].name,
                     "applies to --level-kernel cell, shared or branches (or a trunk of branches) "
                     "only");
    }
    if (given(o, OPT_LEVEL_ROOT) && o->level_root_center && !o->per_neuron &&
        !options_level_root_center(o))
      warn_ignored(out, "--level-root center",
                   "needs the stimulus at the soma (--stim-compartment 0): the systems stay "
                   "rooted at the soma");
  }
  if (o->n_probes == 0 && given(o, OPT_PROBES))
    fprintf(out,
            "%s: warning: --probes %s without --probe N:C: nothing is recorded and %s is "
            "not written\n",
            program, o->probes_path, o->probes_path);
  else if (o->n_probes == 0 && given(o, OPT_PROBE_EVERY))
    warn_ignored(out, "--probe-every", "without --probe N:C records nothing");
  static const struct {
    int option;
    const char *name;
  } channel_options[] = {{OPT_GNABAR, "--gnabar"},
                         {OPT_GKBAR, "--gkbar"},
                         {OPT_GL_HH, "--gl-hh"},
                         {OPT_EL_HH, "--el-hh"}};
  for (size_t i = 0; i < sizeof channel_options / sizeof *channel_options; i++)
    if (o->model.channels.mechanism[MECHANISM_HH].placement == PLACE_NONE &&
        given(o, channel_options[i].option))
      warn_ignored(out, channel_options[i].name, "without --hh soma or all has no channel to set");
  if (!o->spikes_path && given(o, OPT_SPIKE_THRESHOLD))
    warn_ignored(out, "--spike-threshold", "without --spikes FILE detects nothing");
  if (given(o, OPT_DX)) {
    int swc_files = 0;
    for (int i = 0; i < o->n_morph_specs; i++)
      swc_files += strncmp(o->morph_specs[i], "synthetic:", 10) != 0;
    if (!swc_files)
      warn_ignored(out, "--dx", "resamples SWC files and this run has none");
  }
  /* StarPU starts as many CPU workers as asked, one thread each, cores or not. */
  const char *variables[] = {"STARPU_NCPU", "STARPU_NCPUS"};
  int cores = runtime_usable_processors(NULL);
  for (size_t i = 0; i < sizeof variables / sizeof *variables; i++) {
    const char *value = getenv(variables[i]);
    long workers = value && *value ? strtol(value, NULL, 10) : 0;
    if (cores > 0 && workers > cores) {
      fprintf(out,
              "%s: warning: %s=%ld asks for more CPU workers than the %d core%s this process may "
              "use: workers will share cores and timings will suffer\n",
              program, variables[i], workers, cores, cores == 1 ? "" : "s");
      break;
    }
  }
}

void options_print_default_job(const struct options *o, FILE *out) {
  static const char *const channels[] = {"passive membrane (no channels)",
                                         "Hodgkin-Huxley channels in the somas",
                                         "Hodgkin-Huxley channels everywhere"};
  char spec[256], described[300];
  channel_set_spec(&o->model.channels, spec, sizeof spec);
  snprintf(described, sizeof described, "channels %s", spec);
  const struct stimulus *s = &o->model.stimulus;
  int synthetic = strncmp(o->morph_specs[0], "synthetic:", 10) == 0;
  fprintf(out, "default job: %d neurons of %d %s morpholog%s, %s, ", o->neurons, o->n_morph_specs,
          synthetic ? "synthetic" : "shipped", o->n_morph_specs == 1 ? "y" : "ies",
          o->model.channels.hh_only || o->model.channels.placement == PLACE_NONE
              ? channels[o->model.channels.placement]
              : described);
  /* stimulus_current: amplitude * (1 + spread * (position - 0.5)), position 0 to 1. */
  if (s->spread == 0 || o->neurons == 1)
    fprintf(out, "a %g nA step", s->amplitude_nA);
  else
    fprintf(out, "a step of %g to %g nA (%g nA +-%g %% across the batch)",
            s->amplitude_nA * (1 - s->spread / 2), s->amplitude_nA * (1 + s->spread / 2),
            s->amplitude_nA, 50 * s->spread);
  fprintf(out,
          " into compartment %d of every neuron%s from %g to %g ms, %g ms simulated (options "
          "override any of it)\n",
          s->compartment, s->compartment == 0 ? " (the soma)" : "", s->start_ms, s->stop_ms,
          o->steps * o->model.dt_ms);
}
