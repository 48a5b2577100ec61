/* The command-line contract for bad input (hinestask --help): every bad option value,
 * unreadable or malformed file, unknown scheduler or oversized batch makes hinestask exit 2 with
 * exactly one line on stderr naming the problem, and write nothing: no JSON file (nor its
 * .partial), no trace folder, nothing on stdout.
 *
 * One table row per case. Each row runs the built program ($HINESTASK) in a fresh empty folder
 * that holds only the row's fixture (an empty file, a folder, a small SWC file), with the row's
 * extra environment, and checks the exit status, the stderr line, the run time and that the
 * folder holds nothing new afterwards, that the fixture (a file's bytes, a link and its target)
 * is unchanged, and that stderr holds no control byte (file names and contents are shown
 * escaped). "@DATA@" in an argument stands for the repository's tests/data
 * ($HINES_SOURCE_DIR/tests/data). The --help row is
 * a positive control of the harness itself. Rows that must succeed (exit 0) or fail during the
 * run (exit 1) may require one stderr line too (expected_stderr).
 *
 * After the table, cases that a table row cannot set up: a device node made with mknod (skipped
 * where mknod is not allowed), two runs writing one file at once, two default jobs at once, a
 * full tmpfs in a private mount namespace (skipped where unshare/mount are not allowed), stdout
 * on /dev/full, and the JSON of a run whose morphology path is not UTF-8. */
#define _GNU_SOURCE /* nftw, mkdtemp, unshare */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testing.h"

enum {
  MAX_ARGS = 24,
  MAX_ENV = 4,
  BAD_INPUT = 2,
};

/* Seconds a row may take unless it says otherwise: every row stops before any simulation. */
static const double DEFAULT_SECONDS_ALLOWED = 30.0;

/* What the run folder holds before the program starts. */
enum fixture_kind {
  NO_FIXTURE,
  FIXTURE_FILE,    /* fixture_name with fixture_content */
  FIXTURE_FOLDER,  /* an empty folder fixture_name */
  FIXTURE_SYMLINK, /* fixture_name -> LINK_TARGET, which holds fixture_content */
  FIXTURE_FIFO,    /* a FIFO fixture_name */
};
#define LINK_TARGET "target.json"

struct cli_case {
  const char *name;
  const char *args[MAX_ARGS]; /* after the program name; NULL-terminated */
  const char *env[MAX_ENV];   /* "NAME=value" set for this run only */
  int exit_status;
  /* BAD_INPUT: a substring of the single stderr line. Otherwise: a substring of stdout. */
  const char *expected_text;
  /* Exit 0 or 1 rows: when set, stderr must be exactly one line holding this text ('*' stands
   * for anything). */
  const char *expected_stderr;
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
    {.name = "level_rows_zero",
     .args = {SMALL_RUN, OUTPUTS, "--level-rows", "0"},
     .exit_status = BAD_INPUT,
     .expected_text = "--level-rows needs a whole number from 1 to"},
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
    {.name = "nseg_factor_zero",
     .args = {SMALL_RUN, OUTPUTS, "--nseg-factor", "0"},
     .exit_status = BAD_INPUT,
     .expected_text = "--nseg-factor"},
    {.name = "nseg_factor_with_cylinders",
     .args = {SMALL_RUN, OUTPUTS, "--nseg-factor", "3", "--geometry", "cylinders"},
     .exit_status = BAD_INPUT,
     .expected_text = "--nseg-factor multiplies NEURON sections' nseg"},
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
     .expected_text = "--mode must be auto, mono or multi"},
    {.name = "unknown_padding",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--padding", "some"},
     .exit_status = BAD_INPUT,
     .expected_text = "--padding must be cp or ncp"},
    {.name = "unknown_hh_placement",
     .args = {SMALL_RUN, OUTPUTS, "--hh", "nope"},
     .exit_status = BAD_INPUT,
     .expected_text = "--hh must be none, soma or all"},
    {.name = "unknown_mechanism",
     .args = {SMALL_RUN, OUTPUTS, "--channels", "hh:all,kdr:soma"},
     .exit_status = BAD_INPUT,
     .expected_text = "--channels: unknown mechanism in 'kdr:soma' (known: hh, km, ih;"},
    {.name = "unknown_mechanism_place",
     .args = {SMALL_RUN, OUTPUTS, "--channels", "km:dendrites"},
     .exit_status = BAD_INPUT,
     .expected_text = "--channels: the place must be none, soma or all, got 'km:dendrites'"},
    {.name = "unknown_mechanism_parameter",
     .args = {SMALL_RUN, OUTPUTS, "--channels", "km.gnabar=1"},
     .exit_status = BAD_INPUT,
     .expected_text = "--channels: 'km.gnabar=1' sets no parameter of km"},
    {.name = "negative_mechanism_conductance",
     .args = {SMALL_RUN, OUTPUTS, "--channels", "km:soma,km.gbar=-0.1"},
     .exit_status = BAD_INPUT,
     .expected_text = "--channels: 'km.gbar=-0.1' needs a number >= 0 (S/cm2)"},
    {.name = "mechanism_reversal_not_a_number",
     .args = {SMALL_RUN, OUTPUTS, "--channels", "km.ek=cold"},
     .exit_status = BAD_INPUT,
     .expected_text = "--channels: 'km.ek=cold' needs a number (mV)"},
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
     .expected_text = "--gpu-launch must be early, plain or auto"},
    {.name = "unknown_level_warps",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--level-warps", "some"},
     .exit_status = BAD_INPUT,
     .expected_text = "--level-warps must be auto, off or all, got 'some'"},
    {.name = "warp_lanes_not_8_16_32",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--warp-lanes", "12"},
     .exit_status = BAD_INPUT,
     .expected_text = "--warp-lanes must be 8, 16 or 32"},
    {.name = "level_subtrees_not_a_number",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--level-subtrees", "many"},
     .exit_status = BAD_INPUT,
     .expected_text = "--level-subtrees needs a whole number from 0 to 4096, got 'many'"},
    {.name = "level_split_negative",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--level-split", "-3"},
     .exit_status = BAD_INPUT,
     .expected_text = "--level-split needs a whole number from 0 to 1000000, got '-3'"},
    {.name = "height_order_with_level_tasks",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--multi-tasks", "levels", "--level-order",
              "height"},
     .exit_status = BAD_INPUT,
     .expected_text = "drop '--multi-tasks levels'"},
    {.name = "unknown_level_kernel",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--level-kernel", "block"},
     .exit_status = BAD_INPUT,
     .expected_text = "--level-kernel must be levels, cell, flow, shared, branches or auto"},
    {.name = "branch_kernel_with_channels",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--level-kernel", "branches", "--hh", "all"},
     .exit_status = BAD_INPUT,
     .expected_text = "--level-kernel branches needs constant pivots, a passive membrane"},
    {.name = "branch_kernel_with_padding",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--level-kernel", "branches", "--hh", "none",
              "--padding", "cp"},
     .exit_status = BAD_INPUT,
     .expected_text = "--level-kernel branches stores no padding; drop '--padding cp'"},
    {.name = "unknown_level_rows",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--level-rows", "inline"},
     .exit_status = BAD_INPUT,
     .expected_text = "--level-rows must be fused, apart, auto or a number of branches"},
    {.name = "unknown_level_priorities",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--level-priorities", "high"},
     .exit_status = BAD_INPUT,
     .expected_text = "--level-priorities must be auto, on or off, got 'high'"},
    {.name = "unknown_arrange",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--arrange", "by-size"},
     .exit_status = BAD_INPUT,
     .expected_text = "--arrange must be auto, on or off, got 'by-size'"},
    {.name = "unknown_level_lean",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--level-lean", "fast"},
     .exit_status = BAD_INPUT,
     .expected_text = "--level-lean must be on or off, got 'fast'"},
    {.name = "cell_kernel_with_level_tasks",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--multi-tasks", "levels", "--level-kernel",
              "cell"},
     .exit_status = BAD_INPUT,
     .expected_text = "--level-kernel cell sweeps a whole step in one task per chunk"},
    {.name = "flow_kernel_with_level_tasks",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--multi-tasks", "levels", "--level-kernel",
              "flow"},
     .exit_status = BAD_INPUT,
     .expected_text = "--level-kernel flow sweeps a whole step in one task per chunk"},
    {.name = "shared_kernel_with_level_tasks",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--multi-tasks", "levels", "--level-kernel",
              "shared"},
     .exit_status = BAD_INPUT,
     .expected_text = "--level-kernel shared sweeps a whole step in one task per chunk"},
    {.name = "shared_kernel_with_padding",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--padding", "cp", "--level-kernel", "shared"},
     .exit_status = BAD_INPUT,
     .expected_text = "--level-kernel shared stores no padding; drop '--padding cp'"},
    {.name = "zero_cell_neurons",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--level-kernel", "cell", "--cell-neurons",
              "0"},
     .exit_status = BAD_INPUT,
     .expected_text = "--cell-neurons"},
    {.name = "too_many_task_parts",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--task-parts", "9"},
     .exit_status = BAD_INPUT,
     .expected_text = "--task-parts"},
    {.name = "negative_trunk_threshold",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--trunk-below", "-5"},
     .exit_status = BAD_INPUT,
     .expected_text = "--trunk-below"},
    {.name = "negative_trunk_of_branches",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--trunk-branches", "-1"},
     .exit_status = BAD_INPUT,
     .expected_text = "--trunk-branches needs auto or a number >= 0, got '-1'"},
    {.name = "trunk_of_branches_word",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--trunk-branches", "many"},
     .exit_status = BAD_INPUT,
     .expected_text = "--trunk-branches needs auto or a number >= 0, got 'many'"},
    {.name = "trunk_of_branches_with_channels",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--trunk-branches", "2", "--hh", "all"},
     .exit_status = BAD_INPUT,
     .expected_text = "--trunk-branches needs constant pivots, a passive membrane"},
    {.name = "trunk_of_branches_and_of_threads",
     .args = {SMALL_RUN, OUTPUTS, "--mode", "multi", "--trunk-branches", "2", "--trunk-below",
              "100"},
     .exit_status = BAD_INPUT,
     .expected_text = "not both"},
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
     .expected_text = "--probe 5:0: there is no neuron 5, the batch has 2 (0 to 1)"},
    {.name = "probe_compartment_outside_neuron",
     .args = {SMALL_RUN, OUTPUTS, "--probes", "p.csv", "--probe", "1:99999"},
     .exit_status = BAD_INPUT,
     .expected_text = "--probe 1:99999: neuron 1 (synthetic:fig14:2) has "},
    {.name = "probe_without_probes_file",
     .args = {SMALL_RUN, OUTPUTS, "--probe", "1:0"},
     .exit_status = BAD_INPUT,
     .expected_text = "--probe 1:0 needs --probes FILE to write the voltages to"},
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
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "bad_syntax.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "bad_syntax.swc:3: expected 7 fields (id type x y z radius parent), found "
                      "2: 'asd asda'",
     .fixture = FIXTURE_FILE,
     .fixture_name = "bad_syntax.swc",
     .fixture_content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\nasd asda\n"},
    {.name = "malformed_repeated_id",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "@DATA@/malformed/repeated_id.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "repeated_id.swc:6: duplicate id 4 (already on line 5)"},
    {.name = "malformed_morph_multiple_roots",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "@DATA@/malformed/morph_multiple_roots.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "morph_multiple_roots.swc:9: duplicate id 3"},
    {.name = "malformed_missing_parent",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "missing_parent.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "missing_parent.swc:3: parent 4 of sample 5 does not exist",
     .fixture = FIXTURE_FILE,
     .fixture_name = "missing_parent.swc",
     .fixture_content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n5 3 0 0 20 1 4\n"},
    {.name = "malformed_bad_root_point",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "@DATA@/malformed/bad_root_point.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "bad_root_point.swc:2: parent 0 of sample 1 does not exist"},
    {.name = "malformed_neuron_missing_ids",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "@DATA@/malformed/Neuron_missing_ids.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "Neuron_missing_ids.swc:42: parent 7 of sample 8 does not exist"},
    {.name = "malformed_in_summary_mode",
     .args = {"--summary", "--morph", "@DATA@/malformed/repeated_id.swc"},
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

    /* Outputs (#21 item 2, #16): regular files only, never an input, never two on one file,
     * an existing result only with --force. The fixture must survive byte for byte. */
    {.name = "json_onto_a_symlink",
     .args = {SMALL_RUN, "--json", "link.json"},
     .exit_status = BAD_INPUT,
     .expected_text = "--json 'link.json' is a symbolic link",
     .fixture = FIXTURE_SYMLINK,
     .fixture_name = "link.json",
     .fixture_content = "{\"earlier\": 1}\n"},
    {.name = "json_onto_a_symlink_with_force",
     .args = {SMALL_RUN, "--force", "--json", "link.json"},
     .exit_status = BAD_INPUT,
     .expected_text = "--json 'link.json' is a symbolic link",
     .fixture = FIXTURE_SYMLINK,
     .fixture_name = "link.json",
     .fixture_content = "{\"earlier\": 1}\n"},
    {.name = "json_onto_a_fifo",
     .args = {SMALL_RUN, "--force", "--json", "pipe"},
     .exit_status = BAD_INPUT,
     .expected_text = "--json 'pipe' is a FIFO, not a file",
     .seconds_allowed = 10,
     .fixture = FIXTURE_FIFO,
     .fixture_name = "pipe"},
    {.name = "probes_onto_a_fifo",
     .args = {SMALL_RUN, "--probe", "0:0", "--probes", "pipe"},
     .exit_status = BAD_INPUT,
     .expected_text = "--probes 'pipe' is a FIFO, not a file",
     .seconds_allowed = 10,
     .fixture = FIXTURE_FIFO,
     .fixture_name = "pipe"},
    {.name = "json_onto_dev_stdout",
     .args = {SMALL_RUN, "--json", "/dev/stdout"},
     .exit_status = BAD_INPUT,
     .expected_text = "--json '/dev/stdout' is a symbolic link"},
    {.name = "json_onto_its_own_input",
     .args = {SMALL_SIZES, "--morph", "cell.swc", "--force", "--json", "cell.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "--json 'cell.swc' is also an input of this run (--morph cell.swc)",
     .fixture = FIXTURE_FILE,
     .fixture_name = "cell.swc",
     .fixture_content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n"},
    {.name = "probes_onto_its_own_input",
     .args = {SMALL_SIZES, "--morph", "./cell.swc", "--force", "--probe", "0:0", "--probes",
              "cell.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "--probes 'cell.swc' is also an input of this run",
     .fixture = FIXTURE_FILE,
     .fixture_name = "cell.swc",
     .fixture_content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n"},
    {.name = "json_and_probes_on_one_file",
     .args = {SMALL_RUN, "--json", "X", "--probe", "0:0", "--probes", "./X"},
     .exit_status = BAD_INPUT,
     .expected_text = "--json and --probes both name './X'"},
    {.name = "json_exists_without_force",
     .args = {SMALL_RUN, "--json", "out.json"},
     .exit_status = BAD_INPUT,
     .expected_text = "--json 'out.json' exists (15 bytes); give --force to replace it",
     .fixture = FIXTURE_FILE,
     .fixture_name = "out.json",
     .fixture_content = "{\"earlier\": 1}\n"},
    {.name = "probes_exist_without_force",
     .args = {SMALL_RUN, "--probe", "0:0", "--probes", "p.csv"},
     .exit_status = BAD_INPUT,
     .expected_text = "--probes 'p.csv' exists (14 bytes); give --force",
     .fixture = FIXTURE_FILE,
     .fixture_name = "p.csv",
     .fixture_content = "time_ms,v\n0,1\n"},
    {.name = "trace_folder_holds_a_trace",
     .args = {SMALL_RUN, "--trace", "tdir"},
     .exit_status = BAD_INPUT,
     .expected_text = "--trace 'tdir' holds an earlier trace (paje.trace); give --force",
     .fixture = FIXTURE_FILE,
     .fixture_name = "tdir/paje.trace",
     .fixture_content = "%EventDef\n"},
    {.name = "json_name_300_characters",
     .args = {SMALL_RUN, "--json",
              "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"
              "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"
              "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"
              "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn.json"},
     .exit_status = BAD_INPUT,
     .expected_text = "File name too long (305 bytes, at most 255)"},
    {.name = "json_under_a_file",
     .args = {SMALL_RUN, "--json", "taken/out.json"},
     .exit_status = BAD_INPUT,
     .expected_text = "--json 'taken/out.json': folder does not exist ('taken' is a regular file)",
     .fixture = FIXTURE_FILE,
     .fixture_name = "taken",
     .fixture_content = "x"},
    {.name = "default_job_results_folder_is_a_file",
     .args = {"--steps", "2"},
     .exit_status = BAD_INPUT,
     .expected_text = "hinestask-results exists and is a regular file, not a folder",
     .fixture = FIXTURE_FILE,
     .fixture_name = "hinestask-results",
     .fixture_content = "not a folder\n"},
    {.name = "probe_without_probes",
     .args = {SMALL_RUN, OUTPUTS, "--probe", "0:0"},
     .exit_status = BAD_INPUT,
     .expected_text = "--probe 0:0 needs --probes FILE"},

    /* Step and sample counts (#21 item 4): 64-bit, with limits, refused up front. */
    {.name = "default_job_dt_1e-9",
     .args = {"--dt", "1e-9", OUTPUTS},
     .exit_status = BAD_INPUT,
     .expected_text = "--dt 1e-09 ms makes the default job's 200 ms 2e+11 steps, more than the "
                      "1000000000 allowed",
     .seconds_allowed = 5},
    {.name = "default_job_dt_1e-300_with_probe",
     .args = {"--dt", "1e-300", "--probe", "0:0", OUTPUTS},
     .exit_status = BAD_INPUT,
     .expected_text = "2e+302 steps, more than the 1000000000 allowed",
     .seconds_allowed = 5},
    {.name = "steps_above_the_limit",
     .args = {SMALL_RUN, OUTPUTS, "--steps", "2000000000"},
     .exit_status = BAD_INPUT,
     .expected_text = "--steps needs a whole number from 1 to 1000000000"},
    {.name = "simulated_time_overflows",
     .args = {SMALL_RUN, OUTPUTS, "--dt", "1e308", "--steps", "1000"},
     .exit_status = BAD_INPUT,
     .expected_text = "--dt 1e+308 ms with --steps 1000 would simulate inf ms"},
    {.name = "probe_every_1e12",
     .args = {SMALL_RUN, OUTPUTS, "--probe", "0:0", "--probes", "p.csv", "--probe-every", "1e12"},
     .exit_status = BAD_INPUT,
     .expected_text = "--probe-every 1e+12 ms is longer than the 0.05 ms simulated"},
    {.name = "dt_1e-300_probe_every_default",
     .args = {SMALL_RUN, OUTPUTS, "--dt", "1e-300", "--probe", "0:0", "--probes", "p.csv",
              "--probe-every", "1"},
     .exit_status = BAD_INPUT,
     .expected_text = "--probe-every 1 ms is longer than the 2e-300 ms simulated"},

    /* Inputs (#21 item 7): regular files only, BOM, escaped bytes, units. */
    {.name = "morph_is_a_fifo",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "cell.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "cell.swc: is a FIFO, not a regular file (give a file, or - for standard "
                      "input)",
     .seconds_allowed = 10,
     .fixture = FIXTURE_FIFO,
     .fixture_name = "cell.swc"},
    {.name = "morph_is_dev_zero",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "/dev/zero"},
     .exit_status = BAD_INPUT,
     .expected_text = "/dev/zero: is a character device, not a regular file",
     .seconds_allowed = 10},
    {.name = "morph_byte_order_mark_accepted",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "bom.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "bom.swc:2: negative radius -1 of sample 2", /* not "line 1: id field" */
     .fixture = FIXTURE_FILE,
     .fixture_name = "bom.swc",
     .fixture_content = "\xef\xbb\xbf"
                        "1 1 0 0 0 5 -1\n2 3 0 0 10 -1 1\n"},
    {.name = "morph_byte_order_mark_summary",
     .args = {"--summary", "--geometry", "cylinders", "--morph", "bom.swc"},
     .exit_status = 0,
     .expected_text = "bom.swc: 2 compartments, 1 branches, 1 levels, max depth 2, total length "
                      "10.0 um",
     .fixture = FIXTURE_FILE,
     .fixture_name = "bom.swc",
     .fixture_content = "\xef\xbb\xbf"
                        "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n"},
    {.name = "morph_escape_sequence_in_file",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "esc.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "esc.swc:2: z field is not a number: '\\x1b[2J\\x1b[31mred'",
     .fixture = FIXTURE_FILE,
     .fixture_name = "esc.swc",
     .fixture_content = "1 1 0 0 0 5 -1\n2 3 0 0 \x1b[2J\x1b[31mred 1 1\n"},
    {.name = "morph_escape_sequence_in_name",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "\x1b]0;owned\x07.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "\\x1b]0;owned\\x07.swc:1: negative radius",
     .fixture = FIXTURE_FILE,
     .fixture_name = "\x1b]0;owned\x07.swc",
     .fixture_content = "1 1 0 0 0 -5 -1\n"},
    {.name = "morph_non_utf8_name",
     .args = {SMALL_SIZES, OUTPUTS, "--morph", "caf\xe9.swc"},
     .exit_status = BAD_INPUT,
     .expected_text = "caf\\xe9.swc:1: negative radius",
     .fixture = FIXTURE_FILE,
     .fixture_name = "caf\xe9.swc",
     .fixture_content = "1 1 0 0 0 -5 -1\n"},
    {.name = "option_value_with_escape",
     .args = {SMALL_RUN, OUTPUTS, "--layout", "\x1b[31m"},
     .exit_status = BAD_INPUT,
     .expected_text = "--layout must be flat, interleaved, block or shared, got '\\x1b[31m'"},
    {.name = "morph_nanometre_header_converted",
     .args = {"--summary", "--geometry", "cylinders", "--morph", "nm.swc"},
     .exit_status = 0,
     .expected_text = "nm.swc: 2 compartments, 1 branches, 1 levels, max depth 2, total length "
                      "10.0 um",
     .expected_stderr = "nm.swc:1: warning: the header gives the units as nanometres; "
                        "coordinates and radii converted to micrometres",
     .fixture = FIXTURE_FILE,
     .fixture_name = "nm.swc",
     .fixture_content = "# units: nanometers\n1 1 0 0 0 5000 -1\n2 3 0 0 10000 1000 1\n"},

    /* getopt messages (#21 item 8). */
    {.name = "unknown_short_option",
     .args = {"-x", OUTPUTS},
     .exit_status = BAD_INPUT,
     .expected_text = "unknown option '-x' (try"},
    {.name = "single_dash_long_option",
     .args = {SMALL_RUN, OUTPUTS, "-neurons", "4"},
     .exit_status = BAD_INPUT,
     .expected_text = "unknown option '-neurons' (long options take two dashes: '--neurons')"},
    {.name = "missing_value_after_flag",
     .args = {"--quiet", OUTPUTS, "--steps"},
     .exit_status = BAD_INPUT,
     .expected_text = "option '--steps' needs a value"},

    /* --verify (#21 item 8): an ill-conditioned step passes the scaled tolerance; a failure
     * names the neuron and compartment in one line and exits 1. */
    {.name = "verify_ill_conditioned_passes",
     .args = {"--morph", "synthetic:medium-high", "--neurons", "8", "--steps", "100", "--ra",
              "1e-3", "--cm", "1e-6", "--dt", "1", "--verify", "--quiet"},
     .exit_status = 0,
     .expected_text = "): ok"},
    {.name = "verify_failure_names_neuron_and_compartment",
     .args = {"--morph", "synthetic:medium-high", "--neurons", "8", "--steps", "100", "--ra",
              "1e-3", "--cm", "1e-6", "--dt", "1", "--verify", "--verify-tolerance", "1e-12",
              "--quiet"},
     .exit_status = 1,
     .expected_text = "FAILED",
     .expected_stderr = "verify FAILED: neuron * compartment * differs from the sequential "
                        "reference by a relative *e-09, above its tolerance 1.00e-12"},

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

/* "@DATA@/x" -> "$HINES_SOURCE_DIR/tests/data/x"; anything else is kept. */
static char *expand_argument(const char *argument) {
  static const char placeholder[] = "@DATA@";
  if (strncmp(argument, placeholder, strlen(placeholder)) != 0)
    return strdup(argument);
  char *expanded;
  if (asprintf(&expanded, "%s%s", testing_source_path("tests/data"),
               argument + strlen(placeholder)) < 0)
    return NULL;
  return expanded;
}

/* A program started in the background: see start_program and finish_program. */
struct started_program {
  pid_t child;
  double started;
  char *argv[MAX_ARGS + 2];
  int argc;
  char out_path[512], err_path[512];
};

/* Starts `program args` in `folder` with stderr, and stdout unless `stdout_path` is given,
 * captured into files named after `label` in `capture_folder`. */
static void start_program(const char *program, const struct cli_case *c, const char *folder,
                          const char *capture_folder, const char *label, const char *stdout_path,
                          struct started_program *p) {
  p->argc = 0;
  p->argv[p->argc++] = (char *)program;
  for (int i = 0; i < MAX_ARGS && c->args[i]; i++) {
    p->argv[p->argc] = expand_argument(c->args[i]);
    assert_non_null(p->argv[p->argc]);
    p->argc++;
  }
  p->argv[p->argc] = NULL;
  snprintf(p->out_path, sizeof p->out_path, "%s/%sstdout", capture_folder, label);
  snprintf(p->err_path, sizeof p->err_path, "%s/%sstderr", capture_folder, label);
  if (stdout_path) { /* nothing to read back: an empty capture */
    FILE *empty = fopen(p->out_path, "w");
    assert_non_null(empty);
    fclose(empty);
  }
  p->started = now_seconds();
  p->child = fork();
  assert_true(p->child >= 0);
  if (p->child == 0) {
    int out = open(stdout_path ? stdout_path : p->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(p->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = open("/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || in < 0 || dup2(out, STDOUT_FILENO) < 0 ||
        dup2(err, STDERR_FILENO) < 0 || dup2(in, STDIN_FILENO) < 0 || chdir(folder) != 0)
      _exit(126);
    for (int i = 0; i < MAX_ENV && c->env[i]; i++)
      putenv((char *)c->env[i]);
    execv(program, p->argv);
    _exit(127);
  }
}

/* Waits for a started program (killing it after `seconds_allowed`) and reads its output. */
static void finish_program(struct started_program *p, double seconds_allowed,
                           struct captured_run *run) {
  memset(run, 0, sizeof *run);
  int status = 0;
  for (;;) {
    pid_t done = waitpid(p->child, &status, WNOHANG);
    assert_true(done >= 0);
    if (done == p->child)
      break;
    if (now_seconds() - p->started > seconds_allowed) {
      kill(p->child, SIGKILL);
      waitpid(p->child, &status, 0);
      run->timed_out = 1;
      break;
    }
    struct timespec pause = {0, 5 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  run->seconds = now_seconds() - p->started;
  run->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  run->out = read_whole_file(p->out_path);
  run->err = read_whole_file(p->err_path);
  for (int i = 1; i < p->argc; i++)
    free(p->argv[i]);
}

/* Runs `program args` in `folder` with stdout and stderr captured into files beside it. */
static void run_program(const char *program, const struct cli_case *c, const char *folder,
                        const char *capture_folder, double seconds_allowed,
                        struct captured_run *run) {
  struct started_program p;
  start_program(program, c, folder, capture_folder, "", NULL, &p);
  finish_program(&p, seconds_allowed, run);
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
  char *slash = strrchr(path + strlen(folder) + 1, '/'); /* "dir/file": make dir first */
  if (slash) {
    *slash = '\0';
    assert_int_equal(mkdir(path, 0755), 0);
    *slash = '/';
  }
  if (c->fixture == FIXTURE_FOLDER) {
    assert_int_equal(mkdir(path, 0755), 0);
    return;
  }
  if (c->fixture == FIXTURE_FIFO) {
    assert_int_equal(mkfifo(path, 0644), 0);
    return;
  }
  if (c->fixture == FIXTURE_SYMLINK) {
    assert_int_equal(symlink(LINK_TARGET, path), 0);
    snprintf(path, sizeof path, "%s/%s", folder, LINK_TARGET);
  }
  FILE *file = fopen(path, "w");
  assert_non_null(file);
  fputs(c->fixture_content, file);
  assert_int_equal(fclose(file), 0);
}

/* "" when the fixture is as it was made, else what changed: nothing the program was refused
 * (or failed) on may be destroyed. */
static void fixture_changes(const struct cli_case *c, const char *folder, char *problem,
                            size_t size) {
  char path[1024];
  struct stat st;
  problem[0] = '\0';
  if (c->fixture == NO_FIXTURE)
    return;
  snprintf(path, sizeof path, "%s/%s", folder, c->fixture_name);
  if (lstat(path, &st) != 0) {
    snprintf(problem, size, "the fixture %s is gone", c->fixture_name);
    return;
  }
  mode_t expected = c->fixture == FIXTURE_FOLDER    ? S_IFDIR
                    : c->fixture == FIXTURE_FIFO    ? S_IFIFO
                    : c->fixture == FIXTURE_SYMLINK ? S_IFLNK
                                                    : S_IFREG;
  if ((st.st_mode & S_IFMT) != expected) {
    snprintf(problem, size, "the fixture %s changed kind", c->fixture_name);
    return;
  }
  if (c->fixture == FIXTURE_SYMLINK) {
    char target[256];
    ssize_t length = readlink(path, target, sizeof target - 1);
    if (length < 0 || (target[length] = '\0', strcmp(target, LINK_TARGET) != 0)) {
      snprintf(problem, size, "the link %s points elsewhere", c->fixture_name);
      return;
    }
    snprintf(path, sizeof path, "%s/%s", folder, LINK_TARGET);
  }
  if (c->fixture == FIXTURE_FILE || c->fixture == FIXTURE_SYMLINK) {
    char *content = read_whole_file(path);
    if (strcmp(content, c->fixture_content) != 0)
      snprintf(problem, size, "the bytes of %s changed", c->fixture_name);
    free(content);
  }
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
static int has_control_bytes(const char *text) {
  for (const unsigned char *c = (const unsigned char *)text; *c; c++)
    if ((*c < 0x20 && *c != '\n') || *c == 0x7f)
      return 1;
  return 0;
}

/* Whether `text` holds the pieces of `pattern` (separated by '*') in that order. */
static int contains_in_order(const char *text, const char *pattern) {
  char piece[512];
  while (*pattern) {
    size_t length = strcspn(pattern, "*");
    snprintf(piece, sizeof piece, "%.*s", (int)length, pattern);
    const char *found = strstr(text, piece);
    if (!found)
      return 0;
    text = found + length;
    pattern += length + (pattern[length] == '*');
  }
  return 1;
}

static int is_one_line(const char *text) {
  size_t length = strlen(text);
  return length >= 2 && strchr(text, '\n') == text + length - 1;
}

static void find_problem(const struct cli_case *c, const struct captured_run *run,
                         int written_nothing, double seconds_allowed, char *problem, size_t size) {
  const char *err = run->err, *out = run->out;
  size_t length = strlen(err);
  problem[0] = '\0';
  if (has_control_bytes(err))
    snprintf(problem, size, "stderr holds a raw control byte: '%.1500s'", err);
  else if (c->expected_stderr && !is_one_line(err))
    snprintf(problem, size, "stderr is not exactly one line: '%.1500s'", err);
  else if (c->expected_stderr && !contains_in_order(err, c->expected_stderr))
    snprintf(problem, size, "expected '%s' in stderr '%.1500s'", c->expected_stderr, err);
  else if (run->timed_out)
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
  else if (c->exit_status != BAD_INPUT && c->expected_text && !strstr(out, c->expected_text))
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
  /* The sanitizers slow every run 3-6x (scripts/sanitize.sh sets the variable): a refusal that
   * takes 1-2 s here took 5.2 s there beside another build, past the 5 s of its limit. */
  if (getenv("HINES_SANITIZER_BUILD"))
    seconds_allowed *= 3;
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
  char destroyed[256];
  fixture_changes(c, folder, destroyed, sizeof destroyed);
  assert_int_equal(nftw(base, remove_entry, 16, FTW_DEPTH | FTW_PHYS), 0);

  char problem[2048];
  find_problem(c, &run, written_nothing, seconds_allowed, problem, sizeof problem);
  if (!problem[0] && destroyed[0])
    snprintf(problem, sizeof problem, "%s", destroyed);
  free(run.out);
  free(run.err);
  if (problem[0])
    fail_msg("%s: %s", c->name, problem);
}

/* ---- cases a table row cannot set up ---- */

static const char *hinestask_program(void) {
  const char *program = getenv("HINESTASK");
  if (!program || !*program)
    fail_msg("HINESTASK (the path of the built hinestask) is not set; run through ctest");
  return program;
}

/* A fresh base folder for captures with an empty "run" folder in it (the program's folder). */
struct scratch {
  char base[64];
  char folder[80];
};

static void scratch_make(struct scratch *s) {
  snprintf(s->base, sizeof s->base, "/tmp/test_cli_bad_input.XXXXXX");
  assert_non_null(mkdtemp(s->base));
  snprintf(s->folder, sizeof s->folder, "%s/run", s->base);
  assert_int_equal(mkdir(s->folder, 0755), 0);
}

static void scratch_remove(struct scratch *s) {
  assert_int_equal(nftw(s->base, remove_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static void write_text(const char *folder, const char *name, const char *text) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", folder, name);
  FILE *file = fopen(path, "w");
  assert_non_null(file);
  fputs(text, file);
  assert_int_equal(fclose(file), 0);
}

static char *read_text(const char *folder, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", folder, name);
  return read_whole_file(path);
}

/* Runs `args` (NULL-terminated, at most MAX_ARGS) in the scratch folder. */
static void run_args(struct scratch *s, const char *const *args, const char *stdout_path,
                     struct captured_run *run) {
  struct cli_case c = {.name = "custom"};
  for (int i = 0; args[i]; i++)
    c.args[i] = args[i];
  struct started_program p;
  start_program(hinestask_program(), &c, s->folder, s->base, "", stdout_path, &p);
  finish_program(&p, DEFAULT_SECONDS_ALLOWED, run);
  describe_run(&c, run);
}

/* Exit status `status` and exactly one stderr line holding `text` (pieces split by '*'). */
static void assert_one_line(const struct captured_run *run, int status, const char *text) {
  if (run->exit_status != status)
    fail_msg("exit status %d, expected %d; stderr '%s'", run->exit_status, status, run->err);
  if (!is_one_line(run->err) || has_control_bytes(run->err))
    fail_msg("stderr is not one clean line: '%s'", run->err);
  if (!contains_in_order(run->err, text))
    fail_msg("expected '%s' in stderr '%s'", text, run->err);
}

static int compare_lines(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* list_folder's lines in sorted order (nftw lists in the file system's order). */
static const char *sorted_listing(const char *folder) {
  static char sorted[sizeof listing];
  char *copy = strdup(list_folder(folder)), *lines[256];
  assert_non_null(copy);
  int n = 0;
  for (char *line = strtok(copy, "\n"); line && n < 256; line = strtok(NULL, "\n"))
    lines[n++] = line;
  qsort(lines, (size_t)n, sizeof *lines, compare_lines);
  sorted[0] = '\0';
  for (int i = 0; i < n; i++)
    snprintf(sorted + strlen(sorted), sizeof sorted - strlen(sorted), "%s\n", lines[i]);
  free(copy);
  return sorted;
}

static void free_run(struct captured_run *run) {
  free(run->out);
  free(run->err);
}

/* A device node where an output goes (--json /dev/null as root turned the node into a regular
 * file): refused with exit 2, and the node is still the same device. */
static void test_output_onto_device_node(void **state) {
  (void)state;
  struct scratch s;
  scratch_make(&s);
  char node[128];
  snprintf(node, sizeof node, "%s/null", s.folder);
  if (mknod(node, S_IFCHR | 0666, makedev(1, 3)) != 0) {
    fprintf(stderr, "# mknod not allowed here (%s): device case skipped\n", strerror(errno));
    scratch_remove(&s);
    skip();
  }
  const char *json[] = {SMALL_RUN, "--json", "null", NULL};
  const char *probes[] = {SMALL_RUN, "--force", "--probe", "0:0", "--probes", "null", NULL};
  const char *const *variants[] = {json, probes};
  const char *expected[] = {"--json 'null' is a character device, not a file",
                            "--probes 'null' is a character device, not a file"};
  for (int v = 0; v < 2; v++) {
    struct captured_run run;
    run_args(&s, variants[v], NULL, &run);
    assert_one_line(&run, BAD_INPUT, expected[v]);
    free_run(&run);
    struct stat st;
    assert_int_equal(lstat(node, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_true(st.st_rdev == makedev(1, 3));
  }
  scratch_remove(&s);
}

/* "neurons": N of a JSON summary, or -1. */
static int json_neurons(const char *json) {
  const char *at = strstr(json, "\"neurons\": ");
  return at ? atoi(at + strlen("\"neurons\": ")) : -1;
}

/* Two runs writing one file at once (they shared one temporary name: one exited 0 while the
 * file held the other's data). Without --force the first to finish writes the file and the
 * other fails (exit 1, or 2 when it started after the file appeared); with --force both
 * succeed and the file is one run's whole summary. Never a temporary file left behind. */
static void test_two_runs_write_one_file(void **state) {
  (void)state;
  for (int force = 0; force < 2; force++)
    for (int round = 0; round < 3; round++) {
      struct scratch s;
      scratch_make(&s);
      struct cli_case runs[2] = {
          {.name = "writer_a",
           .args = {"--morph", "synthetic:fig14:2", "--neurons", "2", "--steps", "50", "--quiet",
                    "--json", "shared.json", force ? "--force" : NULL}},
          {.name = "writer_b",
           .args = {"--morph", "synthetic:fig14:2", "--neurons", "3", "--steps", "50", "--quiet",
                    "--json", "shared.json", force ? "--force" : NULL}}};
      struct started_program p[2];
      struct captured_run run[2];
      start_program(hinestask_program(), &runs[0], s.folder, s.base, "a-", NULL, &p[0]);
      start_program(hinestask_program(), &runs[1], s.folder, s.base, "b-", NULL, &p[1]);
      for (int k = 0; k < 2; k++) {
        finish_program(&p[k], DEFAULT_SECONDS_ALLOWED, &run[k]);
        describe_run(&runs[k], &run[k]);
      }
      char *json = read_text(s.folder, "shared.json");
      int neurons = json_neurons(json);
      /* One whole summary: its morphology, and its closing brace at the very end. */
      assert_true(strstr(json, "\"morphologies\": [\"synthetic:fig14:2\"]") != NULL);
      assert_true(strlen(json) >= 2 && strcmp(json + strlen(json) - 2, "}\n") == 0);
      if (force) {
        assert_int_equal(run[0].exit_status, 0);
        assert_int_equal(run[1].exit_status, 0);
        assert_true(neurons == 2 || neurons == 3);
      } else {
        int winner = run[0].exit_status == 0 ? 0 : 1, loser = 1 - winner;
        assert_int_equal(run[winner].exit_status, 0);
        assert_int_equal(neurons, winner == 0 ? 2 : 3);
        if (run[loser].exit_status == 1)
          assert_one_line(&run[loser], 1, "--json 'shared.json' appeared during the run");
        else
          assert_one_line(&run[loser], BAD_INPUT, "--json 'shared.json' exists");
      }
      free(json);
      assert_string_equal(list_folder(s.folder), "shared.json\n");
      for (int k = 0; k < 2; k++)
        free_run(&run[k]);
      scratch_remove(&s);
    }
}

/* Two default jobs at once: each gets a run folder of its own with both of its files. */
static void test_two_default_jobs_at_once(void **state) {
  (void)state;
  struct scratch s;
  scratch_make(&s);
  struct cli_case job = {.name = "default_job", .args = {"--steps", "2", "--quiet"}};
  struct started_program p[2];
  struct captured_run run[2];
  start_program(hinestask_program(), &job, s.folder, s.base, "a-", NULL, &p[0]);
  start_program(hinestask_program(), &job, s.folder, s.base, "b-", NULL, &p[1]);
  for (int k = 0; k < 2; k++) {
    finish_program(&p[k], DEFAULT_SECONDS_ALLOWED, &run[k]);
    describe_run(&job, &run[k]);
    assert_int_equal(run[k].exit_status, 0);
    assert_string_equal(run[k].err, "");
  }
  const char *listed = list_folder(s.folder);
  int folders = 0, summaries = 0, probes = 0;
  for (const char *line = listed; *line; line = strchr(line, '\n') + 1) {
    folders += strncmp(line, "hinestask-results/run-", 22) == 0 && strchr(line, '/')[1] &&
               strchr(line, '\n')[-1] == '/';
    summaries += strstr(line, "/summary.json\n") == strchr(line, '\n') - 13;
    probes += strstr(line, "/probes.csv\n") == strchr(line, '\n') - 11;
  }
  print_as_comments("listing", listed, 12);
  assert_int_equal(folders, 2);
  assert_int_equal(summaries, 2);
  assert_int_equal(probes, 2);
  for (int k = 0; k < 2; k++)
    free_run(&run[k]);
  scratch_remove(&s);
}

/* Writing to a full disk (a 64 KiB tmpfs filled up, in a private mount namespace): exit 1, one
 * line with the reason, the earlier file unchanged, no temporary file and no empty trace file
 * left. Skipped where unshare or mount is not allowed. */
static void test_full_disk(void **state) {
  (void)state;
  struct scratch s;
  scratch_make(&s);
  if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
      mount("tmpfs", s.folder, "tmpfs", 0, "size=64k") != 0) {
    fprintf(stderr, "# unshare -m / mount -t tmpfs not allowed here (%s): full-disk case skipped\n",
            strerror(errno));
    scratch_remove(&s);
    skip();
  }
  write_text(s.folder, "out.json", "{\"earlier\": 1}\n");
  write_text(s.folder, "p.csv", "time_ms,v\n0,1\n");
  char fill_path[128];
  snprintf(fill_path, sizeof fill_path, "%s/fill", s.folder);
  FILE *fill = fopen(fill_path, "w");
  assert_non_null(fill);
  static const char block[4096];
  while (fwrite(block, 1, sizeof block, fill) == sizeof block)
    ;
  fclose(fill); /* fails: the disk is full, as it should be */
  const char *before = "fill\nout.json\np.csv\n";

  const char *json[] = {SMALL_RUN, "--force", "--json", "out.json", NULL};
  const char *probes[] = {SMALL_RUN, "--force", "--probe", "0:0", "--probes", "p.csv", NULL};
  const char *trace[] = {SMALL_RUN, "--trace", "tdir", NULL};
  const char *const *variants[] = {json, probes, trace};
  const char *expected[] = {
      "cannot write out.json: No space left on device (the existing file keeps what it held)",
      "cannot write p.csv: No space left on device (the existing file keeps what it held)",
      "--trace: trace folder tdir: cannot write the trace (*No space left on device*); its "
      "partial files were removed"};
  for (int v = 0; v < 3; v++) {
    struct captured_run run;
    run_args(&s, variants[v], NULL, &run);
    assert_one_line(&run, 1, expected[v]);
    free_run(&run);
    char *content = read_text(s.folder, "out.json");
    assert_string_equal(content, "{\"earlier\": 1}\n");
    free(content);
    content = read_text(s.folder, "p.csv");
    assert_string_equal(content, "time_ms,v\n0,1\n");
    free(content);
    const char *after = sorted_listing(s.folder);
    if (strcmp(after, before) != 0) {
      print_as_comments("after", after, 20);
      fail_msg("the failed run left files behind");
    }
  }
  /* Room for part of the raw trace: FxT then says so ("write buffer: ...") and goes on. */
  assert_int_equal(truncate(fill_path, 40000), 0);
  struct captured_run run;
  run_args(&s, trace, NULL, &run);
  assert_one_line(&run, 1, expected[2]);
  free_run(&run);
  assert_string_equal(sorted_listing(s.folder), before);
  assert_int_equal(umount(s.folder), 0);
  scratch_remove(&s);
}

/* A failed write to stdout (/dev/full) is a failure: exit 1 and the reason, not exit 0. */
static void test_stdout_write_errors(void **state) {
  (void)state;
  if (access("/dev/full", W_OK) != 0) {
    fprintf(stderr, "# no /dev/full here: case skipped\n");
    skip();
  }
  struct scratch s;
  scratch_make(&s);
  const char *help[] = {"--help", NULL};
  const char *version[] = {"--version", NULL};
  const char *summary[] = {"--summary", "--morph", "synthetic:fig14:2", NULL};
  const char *run_banner[] = {SMALL_RUN, NULL};
  const char *const *variants[] = {help, version, summary, run_banner};
  for (int v = 0; v < 4; v++) {
    struct captured_run run;
    run_args(&s, variants[v], "/dev/full", &run);
    assert_one_line(&run, 1, "hinestask: cannot write to standard output: No space left on device");
    free_run(&run);
  }
  assert_string_equal(list_folder(s.folder), "");
  scratch_remove(&s);
}

/* --force replaces an existing result, an empty file (mktemp's) is replaced without it, and
 * the last line of the run names every file written. */
static void test_force_and_files_written(void **state) {
  (void)state;
  struct scratch s;
  scratch_make(&s);
  write_text(s.folder, "out.json", "{\"earlier\": 1}\n");
  write_text(s.folder, "p.csv", "");
  const char *args[] = {SMALL_RUN, "--force",  "--json", "out.json", "--probe",
                        "0:0",     "--probes", "p.csv",  NULL};
  struct captured_run run;
  run_args(&s, args, NULL, &run);
  assert_int_equal(run.exit_status, 0);
  const char *last = run.out + strlen(run.out) - 1;
  while (last > run.out && last[-1] != '\n')
    last--;
  assert_string_equal(last, "files written: p.csv, out.json\n");
  free_run(&run);
  char *json = read_text(s.folder, "out.json");
  assert_int_equal(json_neurons(json), 2);
  free(json);
  const char *empty_only[] = {SMALL_RUN, "--probe", "0:0", "--probes", "q.csv", NULL};
  write_text(s.folder, "q.csv", "");
  run_args(&s, empty_only, NULL, &run);
  assert_int_equal(run.exit_status, 0);
  free_run(&run);
  char *csv = read_text(s.folder, "q.csv");
  assert_true(strncmp(csv, "time_ms,neuron0_compartment0_mV\n", 32) == 0);
  free(csv);
  assert_string_equal(sorted_listing(s.folder), "out.json\np.csv\nq.csv\n");
  scratch_remove(&s);
}

/* A morphology path that is not UTF-8 and holds control bytes and a quote: the JSON summary
 * stays valid (ASCII here: \u00XX escapes), and the messages show the bytes escaped. */
static void test_json_of_non_utf8_path(void **state) {
  (void)state;
  struct scratch s;
  scratch_make(&s);
  const char *name = "caf\xe9\x1b\"q.swc";
  write_text(s.folder, name, "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n");
  const char *args[] = {SMALL_SIZES, "--morph", name, "--json", "out.json", NULL};
  struct captured_run run;
  run_args(&s, args, NULL, &run);
  assert_int_equal(run.exit_status, 0);
  assert_false(has_control_bytes(run.out));
  assert_non_null(strstr(run.out, "caf\\xe9\\x1b\"q.swc"));
  free_run(&run);
  char *json = read_text(s.folder, "out.json");
  assert_non_null(strstr(json, "\"morphologies\": [\"caf\\u00e9\\u001b\\\"q.swc\"]"));
  for (const unsigned char *c = (const unsigned char *)json; *c; c++)
    if ((*c < 0x20 && *c != '\n') || *c >= 0x7f)
      fail_msg("out.json holds byte 0x%02x", *c);
  free(json);
  scratch_remove(&s);
}

int main(void) {
  static const struct CMUnitTest custom[] = {
      cmocka_unit_test(test_output_onto_device_node),
      cmocka_unit_test(test_two_runs_write_one_file),
      cmocka_unit_test(test_two_default_jobs_at_once),
      cmocka_unit_test(test_stdout_write_errors),
      cmocka_unit_test(test_force_and_files_written),
      cmocka_unit_test(test_json_of_non_utf8_path),
      cmocka_unit_test(test_full_disk), /* last: it leaves this process in its own namespace */
  };
  enum { N_CUSTOM = sizeof custom / sizeof custom[0] };
  struct CMUnitTest tests[N_CASES + N_CUSTOM];
  for (int i = 0; i < N_CASES; i++)
    tests[i] = (struct CMUnitTest){
        .name = cases[i].name, .test_func = run_case, .initial_state = (void *)&cases[i]};
  for (int i = 0; i < N_CUSTOM; i++)
    tests[N_CASES + i] = custom[i];
  return cmocka_run_group_tests_name("cli_bad_input", tests, NULL, NULL);
}
