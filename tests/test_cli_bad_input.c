/* The command-line contract for bad input (../shared/cli.md): every bad option value,
 * unreadable or malformed file, unknown scheduler or oversized batch makes hinestask exit 2 with
 * exactly one line on stderr naming the problem, and write nothing: no JSON file (nor its
 * .partial), no trace folder, nothing on stdout.
 *
 * One table row per case. Each row runs the built program ($HINESTASK) in a fresh empty folder
 * that holds only the row's fixture (an empty file, a folder, a small SWC file), with the row's
 * extra environment, and checks the exit status, the stderr line, the run time and that the
 * folder holds nothing new afterwards. "@SHARED@" in an argument stands for
 * $HINES_SHARED_MORPHOLOGIES. The --help row is a positive control of the harness itself. */
#define _GNU_SOURCE /* nftw, mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum {
  MAX_ARGS = 16,
  MAX_ENV = 4,
  BAD_INPUT = 2,
};

/* Seconds a row may take unless it says otherwise: every row stops before any simulation. */
static const double DEFAULT_SECONDS_ALLOWED = 30.0;

/* What the run folder holds before the program starts. */
enum fixture_kind {
  NO_FIXTURE,
  FIXTURE_FILE,   /* fixture_name with fixture_content */
  FIXTURE_FOLDER, /* an empty folder fixture_name */
};

struct cli_case {
  const char *name;
  const char *args[MAX_ARGS]; /* after the program name; NULL-terminated */
  const char *env[MAX_ENV];   /* "NAME=value" set for this run only */
  int exit_status;
  /* BAD_INPUT: a substring of the single stderr line. Otherwise: a substring of stdout. */
  const char *expected_text;
  double seconds_allowed; /* 0: DEFAULT_SECONDS_ALLOWED */
  enum fixture_kind fixture;
  const char *fixture_name;
  const char *fixture_content;
};

/* Options that make a run tiny, in case a bad value were ever accepted. */
#define SMALL_SIZES "--neurons", "2", "--steps", "2"
#define SMALL_RUN "--morph", "synthetic:fig14:2", SMALL_SIZES
/* Outputs that must not appear when the command line is refused (rows on --probes add p.csv). */
#define OUTPUTS "--json", "out.json", "--trace", "tdir"

static const struct cli_case cases[] = {
    /* Positive control: the harness must see exit 0 and the usage on stdout. */
    {.name = "help_exits_0", .args = {"--help"}, .exit_status = 0, .expected_text = "Usage:"},

    /* Usage errors. */
    {.name = "unknown_option",
     .args = {"--bogus", OUTPUTS},
     .exit_status = BAD_INPUT,
     .expected_text = "unknown option '--bogus'"},
    {.name = "missing_value_at_end",
     .args = {OUTPUTS, "--neurons"},
     .exit_status = BAD_INPUT,
     .expected_text = "'--neurons' needs a value"},
    {.name = "extra_positional_argument",
     .args = {SMALL_RUN, OUTPUTS, "extra"},
     .exit_status = BAD_INPUT,
     .expected_text = "unexpected argument 'extra'"},
    {.name = "two_extra_positional_arguments",
     .args = {"one", SMALL_RUN, "two"},
     .exit_status = BAD_INPUT,
     .expected_text = "unexpected argument 'one'"},

    /* Numbers. */
    {.name = "neurons_not_a_number",
     .args = {SMALL_RUN, OUTPUTS, "--neurons", "abc"},
     .exit_status = BAD_INPUT,
     .expected_text = "--neurons needs a whole number"},
    {.name = "dt_not_a_number",
     .args = {SMALL_RUN, OUTPUTS, "--dt", "x"},
     .exit_status = BAD_INPUT,
     .expected_text = "--dt needs a number"},
    {.name = "neurons_zero",
     .args = {SMALL_RUN, OUTPUTS, "--neurons", "0"},
     .exit_status = BAD_INPUT,
     .expected_text = "--neurons needs a whole number from 1 to"},
    {.name = "neurons_negative",
     .args = {SMALL_RUN, OUTPUTS, "--neurons", "-5"},
     .exit_status = BAD_INPUT,
     .expected_text = "--neurons needs a whole number from 1 to"},
    {.name = "neurons_trailing_garbage",
     .args = {SMALL_RUN, OUTPUTS, "--neurons", "12x"},
     .exit_status = BAD_INPUT,
     .expected_text = "'12x'"},
    {.name = "dt_zero",
     .args = {SMALL_RUN, OUTPUTS, "--dt", "0"},
     .exit_status = BAD_INPUT,
     .expected_text = "--dt needs a number > 0"},
    {.name = "dt_negative",
     .args = {SMALL_RUN, OUTPUTS, "--dt", "-1"},
     .exit_status = BAD_INPUT,
     .expected_text = "'-1'"},
    {.name = "steps_zero",
     .args = {SMALL_RUN, OUTPUTS, "--steps", "0"},
     .exit_status = BAD_INPUT,
     .expected_text = "--steps needs a whole number"},
    {.name = "block_size_zero",
     .args = {SMALL_RUN, OUTPUTS, "--layout", "block", "--block-size", "0"},
     .exit_status = BAD_INPUT,
     .expected_text = "--block-size needs a whole number"},
    {.name = "neurons_overflow",
     .args = {SMALL_RUN, OUTPUTS, "--neurons", "99999999999999"},
     .exit_status = BAD_INPUT,
     .expected_text = "--neurons needs a whole number from 1 to"},
    {.name = "dt_nan",
     .args = {SMALL_RUN, OUTPUTS, "--dt", "nan"},
     .exit_status = BAD_INPUT,
     .expected_text = "'nan'"},
    {.name = "dt_inf",
     .args = {SMALL_RUN, OUTPUTS, "--dt", "inf"},
     .exit_status = BAD_INPUT,
     .expected_text = "'inf'"},
    {.name = "dx_negative",
     .args = {SMALL_RUN, OUTPUTS, "--dx", "-1"},
     .exit_status = BAD_INPUT,
     .expected_text = "--dx"},
    {.name = "geometry_unknown",
     .args = {SMALL_RUN, OUTPUTS, "--geometry", "spheres"},
     .exit_status = BAD_INPUT,
     .expected_text = "--geometry must be neuron or cylinders, got 'spheres'"},
    {.name = "d_lambda_zero",
     .args = {SMALL_RUN, OUTPUTS, "--d-lambda", "0"},
     .exit_status = BAD_INPUT,
     .expected_text = "--d-lambda needs a number > 0"},
    {.name = "d_lambda_bad_frequency",
     .args = {SMALL_RUN, OUTPUTS, "--d-lambda", "0.1:fast"},
     .exit_status = BAD_INPUT,
     .expected_text = "--d-lambda frequency needs a number > 0, got 'fast'"},
    {.name = "d_lambda_with_dx",
     .args = {SMALL_RUN, OUTPUTS, "--d-lambda", "0.1", "--dx", "5"},
     .exit_status = BAD_INPUT,
     .expected_text = "--dx and --d-lambda are two rules"},
    {.name = "d_lambda_with_cylinders",
     .args = {SMALL_RUN, OUTPUTS, "--d-lambda", "0.1", "--geometry", "cylinders"},
     .exit_status = BAD_INPUT,
     .expected_text = "--d-lambda cuts NEURON sections"},
    {.name = "tstop_with_steps", /* SMALL_RUN gives --steps */
     .args = {SMALL_RUN, OUTPUTS, "--tstop", "10"},
     .exit_status = BAD_INPUT,
     .expected_text = "give --tstop or --steps, not both"},
    {.name = "tstop_below_one_step",
     .args = {"--morph", "synthetic:fig14:2", "--neurons", "2", OUTPUTS, "--tstop", "0.001"},
     .exit_status = BAD_INPUT,
     .expected_text = "--tstop 0.001 ms is less than one step"},

    /* Words. */
    {.name = "unknown_layout",
     .args = {SMALL_RUN, OUTPUTS, "--layout", "diagonal"},
     .exit_status = BAD_INPUT,
     .expected_text = "--layout must be"},
    {.name = "unknown_mode",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "both"},
     .exit_status = BAD_INPUT,
     .expected_text = "--mode must be mono or multi"},
    {.name = "unknown_padding",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--padding", "some"},
     .exit_status = BAD_INPUT,
     .expected_text = "--padding must be cp or ncp"},
    {.name = "unknown_hh_placement",
     .args = {SMALL_RUN, OUTPUTS, "--hh", "nope"},
     .exit_status = BAD_INPUT,
     .expected_text = "--hh must be none, soma or all"},
    {.name = "unknown_multi_tasks",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--multi-tasks", "some"},
     .exit_status = BAD_INPUT,
     .expected_text = "--multi-tasks must be chunk, levels or neuron"},
    {.name = "unknown_level_order",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--level-order", "breadth"},
     .exit_status = BAD_INPUT,
     .expected_text = "--level-order must be depth or height"},
    {.name = "unknown_gpu_launch",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--gpu-launch", "eager"},
     .exit_status = BAD_INPUT,
     .expected_text = "--gpu-launch must be early or plain"},
    {.name = "height_order_with_level_tasks",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--multi-tasks", "levels", "--level-order",
              "height"},
     .exit_status = BAD_INPUT,
     .expected_text = "drop '--multi-tasks levels'"},
    {.name = "too_many_task_parts",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--task-parts", "9"},
     .exit_status = BAD_INPUT,
     .expected_text = "--task-parts"},
    {.name = "negative_trunk_threshold",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--trunk-below", "-5"},
     .exit_status = BAD_INPUT,
     .expected_text = "--trunk-below"},
    {.name = "per_neuron_baseline_with_channels",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--multi-tasks", "neuron", "--hh", "all"},
     .exit_status = BAD_INPUT,
     .expected_text = "drop '--hh all'"},

    /* Probes. */
    {.name = "probe_without_compartment",
     .args = {SMALL_RUN, OUTPUTS, "--probes", "p.csv", "--probe", "3"},
     .exit_status = BAD_INPUT,
     .expected_text = "--probe needs NEURON:COMPARTMENT"},
    {.name = "probe_neuron_outside_batch",
     .args = {SMALL_RUN, OUTPUTS, "--probes", "p.csv", "--probe", "5:0"},
     .exit_status = BAD_INPUT,
     .expected_text = "--probe 5:0 is outside the batch"},
    /* 2^32 must not wrap round to neuron 0 (sscanf %d on an out-of-range number). */
    {.name = "probe_neuron_2_to_the_32",
     .args = {SMALL_RUN, OUTPUTS, "--probes", "p.csv", "--probe", "4294967296:0"},
     .exit_status = BAD_INPUT,
     .expected_text = "--probe"},
    {.name = "probe_every_zero",
     .args = {SMALL_RUN, OUTPUTS, "--probes", "p.csv", "--probe-every", "0"},
     .exit_status = BAD_INPUT,
     .expected_text = "--probe-every needs a number > 0"},
    {.name = "probes_in_missing_folder",
     .args = {SMALL_RUN, OUTPUTS, "--probes", "nowhere/p.csv"},
     .exit_status = BAD_INPUT,
     .expected_text = "--probes 'nowhere/p.csv': folder does not exist"},

    /* Morphology files. */
    {.name = "morph_missing_file",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "missing.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "missing.swc: cannot open: No such file or directory"},
    {.name = "morph_is_a_folder",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "cells"},
     .exit_status = BAD_INPUT,
     .expected_text = "cells: cannot open: Is a directory",
     .fixture = FIXTURE_FOLDER,
     .fixture_name = "cells"},
    {.name = "morph_empty_file",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "empty.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "empty.swc: no samples",
     .fixture = FIXTURE_FILE,
     .fixture_name = "empty.swc",
     .fixture_content = ""},
    {.name = "morph_only_comments",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "comments.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "comments.swc: no samples (2 lines, all blank or comments)",
     .fixture = FIXTURE_FILE,
     .fixture_name = "comments.swc",
     .fixture_content = "# a header\n\n"},
    {.name = "morph_negative_radius_line_3",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "negative.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "negative.swc:3: negative radius",
     .fixture = FIXTURE_FILE,
     .fixture_name = "negative.swc",
     .fixture_content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n3 3 0 0 20 -0.5 2\n"},
    /* Finite values whose membrane area or length overflows to inf or underflows to 0: the
     * solve would give NaN voltages, so the reader should refuse them like 'inf' itself. */
    {.name = "morph_points_1e308_apart",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "far.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "far.swc:2:",
     .fixture = FIXTURE_FILE,
     .fixture_name = "far.swc",
     .fixture_content = "1 1 0 0 0 5 -1\n2 3 1e308 0 0 1 1\n"},
    {.name = "morph_soma_radius_1e200",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "huge_radius.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "huge_radius.swc:1:",
     .fixture = FIXTURE_FILE,
     .fixture_name = "huge_radius.swc",
     .fixture_content = "1 1 0 0 0 1e200 -1\n2 3 10 0 0 1 1\n"},
    {.name = "morph_radius_1e-320",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "tiny_radius.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "tiny_radius.swc:1:",
     .fixture = FIXTURE_FILE,
     .fixture_name = "tiny_radius.swc",
     .fixture_content = "1 3 0 0 0 1e-320 -1\n"},
    /* scripts/fuzz_swc.sh crash-434b2f51: z = 6.7e154 (156 digits); the squared distance
     * overflows, so the compartment is inf um long (any |dz| > 1.4e154 does the same). */
    {.name = "morph_fuzz_crash_434b2f51_distance_overflow",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "fuzz_crash.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "fuzz_crash.swc:2:",
     .fixture = FIXTURE_FILE,
     .fixture_name = "fuzz_crash.swc",
     .fixture_content =
         " 1 2 0  0 0  5 -1\n"
         " 2 66661 0  -0 "
         "06676666666666666666666666666666666666666666666666666444444444444444444444444444444444444"
         "4444444444444444444444444444444444466666666666666666666666666666666  5  1\n"
         " "},
    /* A repair warning, then a rejection: the warning must not make stderr two lines. */
    {.name = "repair_warning_then_rejection",
     .args = {SMALL_SIZES, OUTPUTS, "--dx", "1e-7", "--morph", "zero_radius.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "zero_radius.swc: a maximum compartment length of 1e-07 um",
     .fixture = FIXTURE_FILE,
     .fixture_name = "zero_radius.swc",
     .fixture_content = "1 1 0 0 0 5 -1\n2 3 0 0 100 0 1\n"},
    {.name = "morph_second_of_two_is_bad",
     .args = {"--mode", "multi", "--neurons", "2", "--steps", "2", OUTPUTS, "--morph",
              "synthetic:fig14:2", "--morph", "missing.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "missing.swc: cannot open"},
    {.name = "malformed_bad_syntax",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "@SHARED@/malformed/bad_syntax.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "bad_syntax.swc:6: expected 7 fields"},
    {.name = "malformed_repeated_id",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "@SHARED@/malformed/repeated_id.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "repeated_id.swc:6: duplicate id 4 (already on line 5)"},
    {.name = "malformed_morph_multiple_roots",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "@SHARED@/malformed/morph_multiple_roots.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "morph_multiple_roots.swc:9: duplicate id 3"},
    {.name = "malformed_single_section_missing_segment",
     .args = {SMALL_SIZES, OUTPUTS, "--morph",
              "@SHARED@/malformed/single_section_missing_segment.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "single_section_missing_segment.swc:1: parent 4 of sample 5 does not exist"},
    {.name = "malformed_bad_root_point",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "@SHARED@/malformed/bad_root_point.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "bad_root_point.swc:2: parent 0 of sample 1 does not exist"},
    {.name = "malformed_neuron_missing_ids",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "@SHARED@/malformed/Neuron_missing_ids.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "Neuron_missing_ids.swc:42: parent 7 of sample 8 does not exist"},
    {.name = "malformed_in_summary_mode",
     .args = {"--summary", "--morph", "@SHARED@/malformed/repeated_id.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "repeated_id.swc:6:"},

    /* Synthetic specs. */
    {.name = "synthetic_unknown_class",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "synthetic:nope"},
     .exit_status = BAD_INPUT,
     .expected_text = "--morph synthetic:nope"},
    {.name = "synthetic_fig14_levels_out_of_range",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "synthetic:fig14:9"},
     .exit_status = BAD_INPUT,
     .expected_text = "--morph synthetic:fig14:9"},
    {.name = "synthetic_empty_field",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "synthetic:fig6::10"},
     .exit_status = BAD_INPUT,
     .expected_text = "--morph synthetic:fig6::10"},

    /* Output paths. */
    {.name = "json_in_missing_folder",
     .args = {SMALL_RUN, "--trace", "tdir", "--json", "nowhere/out.json"},
     .exit_status = BAD_INPUT,
     .expected_text = "folder does not exist"},
    {.name = "json_onto_a_folder",
     .args = {SMALL_RUN, "--trace", "tdir", "--json", "results"},
     .exit_status = BAD_INPUT,
     .expected_text = "'results' is a directory",
     .fixture = FIXTURE_FOLDER,
     .fixture_name = "results"},
    {.name = "json_empty_path",
     .args = {SMALL_RUN, "--trace", "tdir", "--json", ""},
     .exit_status = BAD_INPUT,
     .expected_text = "--json"},
    {.name = "trace_onto_a_file",
     .args = {SMALL_RUN, "--json", "out.json", "--trace", "taken"},
     .exit_status = BAD_INPUT,
     .expected_text = "--trace 'taken' exists and is not a directory",
     .fixture = FIXTURE_FILE,
     .fixture_name = "taken",
     .fixture_content = "x"},

    /* Environment. */
    {.name = "unknown_starpu_sched",
     .args = {SMALL_RUN, "--json", "out.json"},
     .env = {"STARPU_SCHED=nonsense"},
     .exit_status = BAD_INPUT,
     .expected_text = "dmda"},
    {.name = "unknown_starpu_sched_with_trace",
     .args = {SMALL_RUN, OUTPUTS},
     .env = {"STARPU_SCHED=nonsense"},
     .exit_status = BAD_INPUT,
     .expected_text = "STARPU_SCHED=nonsense"},
    {.name = "starpu_ncpu_not_a_number",
     .args = {SMALL_RUN, OUTPUTS},
     .env = {"STARPU_NCPU=abc"},
     .exit_status = BAD_INPUT,
     .expected_text = "STARPU_NCPU"},

    /* Batch checks made after the morphologies are read. */
    {.name = "batch_too_large_for_host_memory",
     .args = {"--neurons", "1000000000", "--morph", "synthetic:big-high", "--steps", "2", OUTPUTS},
     .exit_status = BAD_INPUT,
     .expected_text = "GiB",
     .seconds_allowed = 5.0},
    {.name = "stim_compartment_beyond_morphology",
     .args = {SMALL_RUN, OUTPUTS, "--stim-compartment", "100000"},
     .exit_status = BAD_INPUT,
     .expected_text = "--stim-compartment 100000"},
    {.name = "mono_mode_with_two_morphologies",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "mono", "--morph", "synthetic:fig14:3"},
     .exit_status = BAD_INPUT,
     .expected_text = "--mode mono takes exactly one --morph"},
};
enum { N_CASES = sizeof cases / sizeof cases[0] };

/* ---- running one case ---- */

struct captured_run {
  int exit_status; /* -1 when killed by a signal or the time limit */
  int signal;
  int timed_out;
  double seconds;
  char *out; /* stdout */
  char *err; /* stderr */
};

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static char *read_whole_file(const char *path) {
  FILE *file = fopen(path, "rb");
  assert_non_null(file);
  char *text = NULL;
  size_t size = 0;
  FILE *buffer = open_memstream(&text, &size);
  assert_non_null(buffer);
  char chunk[4096];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, file)) > 0)
    fwrite(chunk, 1, got, buffer);
  fclose(buffer);
  fclose(file);
  return text;
}

/* "@SHARED@/x" -> "$HINES_SHARED_MORPHOLOGIES/x"; anything else is kept. */
static char *expand_argument(const char *argument) {
  static const char placeholder[] = "@SHARED@";
  const char *shared = getenv("HINES_SHARED_MORPHOLOGIES");
  if (strncmp(argument, placeholder, strlen(placeholder)) != 0)
    return strdup(argument);
  char *expanded;
  if (asprintf(&expanded, "%s%s", shared && *shared ? shared : "/work/shared/morphologies",
               argument + strlen(placeholder)) < 0)
    return NULL;
  return expanded;
}

/* Runs `program args` in `folder` with stdout and stderr captured into files beside it. */
static void run_program(const char *program, const struct cli_case *c, const char *folder,
                        const char *capture_folder, double seconds_allowed,
                        struct captured_run *run) {
  char *argv[MAX_ARGS + 2];
  int argc = 0;
  argv[argc++] = (char *)program;
  for (int i = 0; i < MAX_ARGS && c->args[i]; i++) {
    argv[argc] = expand_argument(c->args[i]);
    assert_non_null(argv[argc]);
    argc++;
  }
  argv[argc] = NULL;
  char out_path[512], err_path[512];
  snprintf(out_path, sizeof out_path, "%s/stdout", capture_folder);
  snprintf(err_path, sizeof err_path, "%s/stderr", capture_folder);

  double started = now_seconds();
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = open("/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || in < 0 || dup2(out, STDOUT_FILENO) < 0 ||
        dup2(err, STDERR_FILENO) < 0 || dup2(in, STDIN_FILENO) < 0 || chdir(folder) != 0)
      _exit(126);
    for (int i = 0; i < MAX_ENV && c->env[i]; i++)
      putenv((char *)c->env[i]);
    execv(program, argv);
    _exit(127);
  }
  memset(run, 0, sizeof *run);
  int status = 0;
  for (;;) {
    pid_t done = waitpid(child, &status, WNOHANG);
    assert_true(done >= 0);
    if (done == child)
      break;
    if (now_seconds() - started > seconds_allowed) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      run->timed_out = 1;
      break;
    }
    struct timespec pause = {0, 5 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  run->seconds = now_seconds() - started;
  run->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  run->out = read_whole_file(out_path);
  run->err = read_whole_file(err_path);
  for (int i = 1; i < argc; i++)
    free(argv[i]);
}

/* ---- the run folder before and after ---- */

static char listing[8192];
static size_t listing_prefix;

static int list_entry(const char *path, const struct stat *info, int type, struct FTW *where) {
  (void)info;
  (void)type;
  if (where->level == 0)
    return 0;
  size_t used = strlen(listing);
  snprintf(listing + used, sizeof listing - used, "%s%s\n", path + listing_prefix,
           S_ISDIR(info->st_mode) ? "/" : "");
  return 0;
}

/* Every path under `folder` (folders end in '/'), one a line, in nftw order. */
static const char *list_folder(const char *folder) {
  listing[0] = '\0';
  listing_prefix = strlen(folder) + 1;
  assert_int_equal(nftw(folder, list_entry, 16, FTW_PHYS), 0);
  return listing;
}

static int remove_entry(const char *path, const struct stat *info, int type, struct FTW *where) {
  (void)info;
  (void)type;
  (void)where;
  return remove(path);
}

static void create_fixture(const struct cli_case *c, const char *folder) {
  char path[1024];
  if (c->fixture == NO_FIXTURE)
    return;
  snprintf(path, sizeof path, "%s/%s", folder, c->fixture_name);
  if (c->fixture == FIXTURE_FOLDER) {
    assert_int_equal(mkdir(path, 0755), 0);
    return;
  }
  FILE *file = fopen(path, "w");
  assert_non_null(file);
  fputs(c->fixture_content, file);
  assert_int_equal(fclose(file), 0);
}

/* Up to `max_lines` lines of `text`, each as a TAP comment "#   LABEL: line". */
static void print_as_comments(const char *label, const char *text, int max_lines) {
  for (int shown = 0; *text && shown < max_lines; shown++) {
    int length = (int)strcspn(text, "\n");
    fprintf(stderr, "#   %s: %.*s\n", label, length > 400 ? 400 : length, text);
    text += length + (text[length] == '\n');
  }
}

static void describe_run(const struct cli_case *c, const struct captured_run *run) {
  fprintf(stderr, "# case %s: exit %d", c->name, run->exit_status);
  if (run->signal)
    fprintf(stderr, " (signal %d)", run->signal);
  fprintf(stderr, ", %.2f s%s\n", run->seconds, run->timed_out ? " (killed: too slow)" : "");
  print_as_comments("stderr", run->err, 12);
  print_as_comments("stdout", run->out, 1);
}

/* The first way the run breaks the row's expectations, or "" when it meets them all. */
static void find_problem(const struct cli_case *c, const struct captured_run *run,
                         int written_nothing, double seconds_allowed, char *problem, size_t size) {
  const char *err = run->err, *out = run->out;
  size_t length = strlen(err);
  problem[0] = '\0';
  if (run->timed_out)
    snprintf(problem, size, "still running after %.1f s", seconds_allowed);
  else if (run->exit_status != c->exit_status)
    snprintf(problem, size, "exit status %d (signal %d), expected %d", run->exit_status,
             run->signal, c->exit_status);
  else if (c->exit_status == BAD_INPUT && (length < 2 || strchr(err, '\n') != err + length - 1))
    snprintf(problem, size, "stderr is not exactly one line: '%.1500s'", err);
  else if (c->exit_status == BAD_INPUT && !strstr(err, c->expected_text))
    snprintf(problem, size, "expected '%s' in stderr '%.1500s'", c->expected_text, err);
  else if (c->exit_status == BAD_INPUT && *out)
    snprintf(problem, size, "stdout should be empty, got '%.1500s'", out);
  else if (c->exit_status != BAD_INPUT && !strstr(out, c->expected_text))
    snprintf(problem, size, "expected '%s' in stdout", c->expected_text);
  else if (!written_nothing)
    snprintf(problem, size, "the run wrote into its folder (listing above)");
}

static void run_case(void **state) {
  const struct cli_case *c = *state;
  const char *program = getenv("HINESTASK");
  if (!program || !*program)
    fail_msg("HINESTASK (the path of the built hinestask) is not set; run through ctest");

  char base[] = "/tmp/test_cli_bad_input.XXXXXX";
  assert_non_null(mkdtemp(base));
  char folder[sizeof base + 8];
  snprintf(folder, sizeof folder, "%s/run", base);
  assert_int_equal(mkdir(folder, 0755), 0);
  create_fixture(c, folder);
  char *before = strdup(list_folder(folder));
  assert_non_null(before);

  double seconds_allowed = c->seconds_allowed > 0 ? c->seconds_allowed : DEFAULT_SECONDS_ALLOWED;
  struct captured_run run;
  run_program(program, c, folder, base, seconds_allowed, &run);
  const char *after = list_folder(folder);
  describe_run(c, &run);

  int written_nothing = strcmp(before, after) == 0;
  if (!written_nothing) {
    print_as_comments("in the folder before", before, 40);
    print_as_comments("in the folder after", after, 40);
  }
  free(before);
  assert_int_equal(nftw(base, remove_entry, 16, FTW_DEPTH | FTW_PHYS), 0);

  char problem[2048];
  find_problem(c, &run, written_nothing, seconds_allowed, problem, sizeof problem);
  free(run.out);
  free(run.err);
  if (problem[0])
    fail_msg("%s: %s", c->name, problem);
}

int main(void) {
  struct CMUnitTest tests[N_CASES];
  for (int i = 0; i < N_CASES; i++)
    tests[i] = (struct CMUnitTest){
        .name = cases[i].name, .test_func = run_case, .initial_state = (void *)&cases[i]};
  return cmocka_run_group_tests_name("cli_bad_input", tests, NULL, NULL);
}
