/* libFuzzer target for the SWC reader (built and run by scripts/fuzz_swc.sh, not by ctest).
 *
 * Each input is written to a file and read with swc_load, as the program reads --morph FILE.
 * The properties checked (any violation aborts, which libFuzzer reports as a crash):
 *   - a rejection returns a non-zero status with a one-line message naming the file, and leaves
 *     *out all zero (nothing half-built, nothing to free);
 *   - an accepted file gives a morphology that passes morphology_check, has finite positive
 *     sizes, and yields finite cable coefficients of positive area;
 *   - every warning line reads "FILE:LINE: warning: ...";
 *   - an accepted file is also resampled (the --dx path) into at most about a thousand extra
 *     compartments, with the same checks;
 *   - AddressSanitizer and UndefinedBehaviorSanitizer see no error, LeakSanitizer no leak.
 * FUZZ_SWC_SKIP_MAGNITUDE_CHECKS=1 drops the finite-size and finite-coefficient checks (extreme
 * but finite values such as radius 1e200 or coordinates 1e308 apart) and tolerates a clean
 * HINES_BAD_INPUT refusal by cable_coefficients_build, so that a campaign can look for memory and
 * structure errors past those known findings.
 * The input file goes to $FUZZ_SWC_TMPDIR, else /dev/shm, else /tmp. A crash input is replayed
 * with `fuzz_swc CRASH_FILE`. */
#define _GNU_SOURCE /* open_memstream */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cable.h"
#include "morphology.h"
#include "swc.h"

/* Extra compartments a resampling may add, so that a long path cannot exhaust memory. */
enum { RESAMPLED_PIECES_BUDGET = 1000 };

static char input_path[4096];
static int magnitude_checks = 1;

__attribute__((format(printf, 1, 2), noreturn)) static void property_broken(const char *format,
                                                                            ...) {
  va_list args;
  va_start(args, format);
  fprintf(stderr, "fuzz_swc: property broken: ");
  vfprintf(stderr, format, args);
  va_end(args);
  fputc('\n', stderr);
  abort();
}

static void remove_input_file(void) {
  remove(input_path);
}

static void write_input_file(const uint8_t *data, size_t size) {
  if (!input_path[0]) {
    const char *folder = getenv("FUZZ_SWC_TMPDIR");
    if (!folder || !*folder)
      folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(input_path, sizeof input_path, "%s/fuzz_swc.%ld.swc", folder, (long)getpid());
    atexit(remove_input_file);
  }
  FILE *file = fopen(input_path, "wb");
  if (!file || fwrite(data, 1, size, file) != size || fclose(file) != 0) {
    perror(input_path);
    abort();
  }
}

static int all_bytes_zero(const void *memory, size_t size) {
  const unsigned char *bytes = memory;
  for (size_t i = 0; i < size; i++)
    if (bytes[i])
      return 0;
  return 1;
}

static void check_warning_lines(const char *warnings) {
  size_t path_length = strlen(input_path);
  for (const char *line = warnings; *line;) {
    const char *end = strchr(line, '\n');
    if (!end)
      property_broken("warning output does not end with a newline: '%s'", line);
    if (strncmp(line, input_path, path_length) != 0 || line[path_length] != ':' ||
        !strstr(line, ": warning: ") || strstr(line, ": warning: ") > end)
      property_broken("warning line is not 'FILE:LINE: warning: ...': '%.*s'", (int)(end - line),
                      line);
    line = end + 1;
  }
}

static void check_rejection(int status, const struct morphology *out,
                            const struct hines_error *err) {
  if (status != HINES_BAD_INPUT && status != HINES_FAILURE)
    property_broken("swc_load returned unknown status %d", status);
  if (!err->message[0])
    property_broken("rejection (status %d) with an empty message", status);
  if (strncmp(err->message, input_path, strlen(input_path)) != 0)
    property_broken("rejection message does not name the file: '%s'", err->message);
  if (strchr(err->message, '\n'))
    property_broken("rejection message is not one line: '%s'", err->message);
  if (!all_bytes_zero(out, sizeof *out))
    property_broken("rejection left *out non-zero: '%s'", err->message);
}

/* Sizes and coefficients are finite, and every compartment has some membrane, except the
 * junction nodes and zero-length segments of the NEURON geometry (integrated compartments),
 * as long as the cell as a whole has some. */
static void check_magnitudes(const struct morphology *m,
                             const struct cable_coefficients *coefficients) {
  for (int i = 0; i < m->n_compartments; i++) {
    const struct compartment_geometry *g = &m->geometry[i];
    if (!(isfinite(g->radius_um) && g->radius_um > 0))
      property_broken("compartment %d of %d has radius %g um", i, m->n_compartments, g->radius_um);
    int may_be_empty = g->is_sphere || g->is_integrated;
    if (!(isfinite(g->length_um) && (may_be_empty ? g->length_um >= 0 : g->length_um > 0)))
      property_broken("compartment %d of %d (sphere %d) has length %g um", i, m->n_compartments,
                      g->is_sphere, g->length_um);
  }
  if (!isfinite(m->total_length_um))
    property_broken("total length %g um", m->total_length_um);
  double total_area = 0;
  for (int i = 0; i < coefficients->n; i++) {
    const double values[] = {coefficients->area_um2[i], coefficients->capacitance_nF[i],
                             coefficients->leak_uS[i], coefficients->axial_uS[i],
                             coefficients->axial_sum_uS[i]};
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++)
      if (!isfinite(values[v]))
        property_broken("cable coefficient %zu of compartment %d is %g", v, i, values[v]);
    if (m->geometry[i].is_integrated ? !(coefficients->area_um2[i] >= 0)
                                     : !(coefficients->area_um2[i] > 0))
      property_broken("compartment %d has membrane area %g um2", i, coefficients->area_um2[i]);
    total_area += coefficients->area_um2[i];
  }
  if (!(total_area > 0))
    property_broken("the cell has membrane area %g um2", total_area);
}

static void check_accepted(const struct morphology *m) {
  struct hines_error err = {{0}};
  if (morphology_check(m, &err) != HINES_OK)
    property_broken("accepted morphology fails morphology_check: %s", err.message);
  if (!m->name || strcmp(m->name, input_path) != 0)
    property_broken("accepted morphology is named '%s', not the file", m->name ? m->name : "");
  struct cable_coefficients coefficients;
  int status = cable_coefficients_build(m, &cable_defaults, &coefficients, &err);
  if (status == HINES_OK) {
    if (magnitude_checks)
      check_magnitudes(m, &coefficients);
    cable_coefficients_free(&coefficients);
    return;
  }
  /* A refusal here means swc_load accepted a file the solver cannot use; it should have been
   * rejected with FILE:LINE. Without the magnitude checks, a clean refusal is tolerated. */
  if (magnitude_checks || status != HINES_BAD_INPUT || !err.message[0] ||
      strchr(err.message, '\n') || strncmp(err.message, input_path, strlen(input_path)) != 0)
    property_broken("cable_coefficients_build refuses an accepted morphology (status %d): '%s'",
                    status, err.message);
  if (!all_bytes_zero(&coefficients, sizeof coefficients))
    property_broken("cable_coefficients_build refusal left coefficients allocated");
}

/* One swc_load of the input file with every property checked; returns the status. */
static int load_and_check(double max_compartment_um, double *total_length_um) {
  char *warnings = NULL;
  size_t warnings_size = 0;
  FILE *warning_stream = open_memstream(&warnings, &warnings_size);
  if (!warning_stream)
    abort();
  struct swc_options options = {.max_compartment_um = max_compartment_um,
                                .warnings = warning_stream};
  struct morphology morphology;
  memset(&morphology, 0x5a, sizeof morphology); /* shows whether a rejection zeroes *out */
  struct hines_error err;
  memset(&err, 0, sizeof err);
  int status = swc_load(input_path, &options, &morphology, &err);
  fclose(warning_stream);
  check_warning_lines(warnings);
  free(warnings);
  if (status == HINES_OK) {
    check_accepted(&morphology);
    if (total_length_um)
      *total_length_um = morphology.total_length_um;
    morphology_free(&morphology);
  } else {
    check_rejection(status, &morphology, &err);
  }
  return status;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *skip = getenv("FUZZ_SWC_SKIP_MAGNITUDE_CHECKS");
  magnitude_checks = !(skip && strcmp(skip, "1") == 0);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  write_input_file(data, size);
  double total_length_um = 0;
  if (load_and_check(0.0, &total_length_um) != HINES_OK)
    return 0;
  /* Resampling: the input's size picks how finely, within the piece budget. */
  if (total_length_um > 0 && isfinite(total_length_um)) {
    double pieces = 1 + (double)(size % RESAMPLED_PIECES_BUDGET);
    if (load_and_check(total_length_um / pieces, NULL) != HINES_OK)
      property_broken("the file loads at dx 0 but not at dx %g um", total_length_um / pieces);
  }
  return 0;
}
