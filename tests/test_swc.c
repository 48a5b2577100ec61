/* SWC reader: every shipped morphology (morph/data) loads; every malformed file of tests/data
 * gets its documented outcome (reject with FILE:LINE, or repair with a warning); small written
 * files cover what those sets lack; resampling keeps length, area and branch points. The larger
 * optional set $HINES_SHARED_MORPHOLOGIES (../shared/morphologies) is checked the same way when
 * it is present, and skipped (not failed) when it is not. */
#define _GNU_SOURCE /* nftw */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <ftw.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cable.h"
#include "morphology.h"
#include "swc.h"
#include "testing.h"

/* The optional shared set; NULL when it is not there. */
static const char *shared_directory(void) {
  const char *given = getenv("HINES_SHARED_MORPHOLOGIES");
  struct stat info;
  return given && *given && stat(given, &info) == 0 && S_ISDIR(info.st_mode) ? given : NULL;
}

static const char *shipped_directory(void) {
  return testing_source_path("morph/data");
}
static const char *malformed_directory(void) {
  return testing_source_path("tests/data/malformed");
}

/* Skips the calling test, saying why, when the optional shared set is absent. */
#define SHARED_OR_SKIP()                                                                           \
  do {                                                                                             \
    if (!shared_directory()) {                                                                     \
      print_message("# shared morphologies not present (HINES_SHARED_MORPHOLOGIES=%s): "           \
                    "skipped\n",                                                                   \
                    getenv("HINES_SHARED_MORPHOLOGIES") ? getenv("HINES_SHARED_MORPHOLOGIES")      \
                                                        : "unset");                                \
      skip();                                                                                      \
    }                                                                                              \
  } while (0)

/* ---- loading with captured warnings ---- */

struct loaded {
  int status;
  struct morphology morphology;
  struct hines_error error;
  char *warnings; /* everything written to options.warnings */
};

static void load(const char *path, double max_compartment_um, struct loaded *result) {
  size_t size = 0;
  result->warnings = NULL;
  FILE *stream = open_memstream(&result->warnings, &size);
  assert_non_null(stream);
  /* The rules tested here (one cylinder per sample, a soma sphere, --dx resampling) are the
   * cylinders geometry's; the NEURON geometry has its own tests (test_neuron_geometry.c). */
  struct swc_options options = {.geometry = SWC_GEOMETRY_CYLINDERS,
                                .max_compartment_um = max_compartment_um,
                                .warnings = stream};
  /* Garbage in *out shows whether a rejection really leaves it empty. */
  memset(&result->morphology, 0x5a, sizeof result->morphology);
  result->error.message[0] = '\0';
  result->status = swc_load(path, &options, &result->morphology, &result->error);
  fclose(stream);
}

static void unload(struct loaded *result) {
  if (result->status == HINES_OK)
    morphology_free(&result->morphology);
  free(result->warnings);
}

static void assert_contains(const char *text, const char *expected) {
  if (!strstr(text, expected))
    fail_msg("expected \"%s\" in \"%s\"", expected, text);
}

static void assert_morphology_empty(const struct morphology *m) {
  static const struct morphology empty;
  if (memcmp(m, &empty, sizeof empty) != 0)
    fail_msg("*out is not zeroed after a rejection");
}

/* Every warning line reads "PATH:LINE: warning: ...". */
static void assert_warning_format(const char *path, const char *warnings) {
  size_t path_length = strlen(path);
  for (const char *line = warnings; *line;) {
    const char *end = strchr(line, '\n');
    assert_non_null(end);
    if (strncmp(line, path, path_length) != 0 || line[path_length] != ':')
      fail_msg("warning does not start with the path: %.*s", (int)(end - line), line);
    const char *number = line + path_length + 1;
    size_t digits = strspn(number, "0123456789");
    if (digits == 0 || strncmp(number + digits, ": warning: ", 11) != 0)
      fail_msg("warning has no line number: %.*s", (int)(end - line), line);
    line = end + 1;
  }
}

static int count_lines(const char *text) {
  int lines = 0;
  for (; *text; text++)
    lines += *text == '\n';
  return lines;
}

static double total_length(const struct morphology *m) {
  double sum = 0;
  for (int i = 0; i < m->n_compartments; i++)
    sum += m->geometry[i].length_um;
  return sum;
}

static double membrane_area(const struct morphology *m) {
  double sum = 0;
  for (int i = 0; i < m->n_compartments; i++) {
    const struct compartment_geometry *g = &m->geometry[i];
    sum += g->is_sphere ? 4 * M_PI * g->radius_um * g->radius_um
                        : 2 * M_PI * g->radius_um * g->length_um;
  }
  return sum;
}

static void assert_close(double actual, double expected, double relative_tolerance) {
  double scale = fabs(expected) > 1 ? fabs(expected) : 1;
  if (!(fabs(actual - expected) <= relative_tolerance * scale))
    fail_msg("got %.15g, expected %.15g", actual, expected);
}

/* A morphology the solvers can use: Hines invariants hold and the cable coefficients build
 * (no compartment of zero size). */
static void assert_usable(const struct morphology *m) {
  struct hines_error err;
  if (morphology_check(m, &err) != HINES_OK)
    fail_msg("%s", err.message);
  struct cable_coefficients coefficients;
  if (cable_coefficients_build(m, &cable_defaults, &coefficients, &err) != HINES_OK)
    fail_msg("%s", err.message);
  cable_coefficients_free(&coefficients);
}

/* ---- (a) every shipped (and shared) morphology ---- */

/* Counts from PROVENANCE.md; they check the independent counter below as well as the reader. */
static const struct {
  const char *file;
  int points, soma_points;
  double soma_radius_um; /* 1-point and 3-point somas; 0: multi-point or none */
  const char *warning;   /* the only warning expected, NULL for none */
  bool shipped;          /* in morph/data too (permissive license) */
} provenance[] = {
    {"Cha-F-000012.CNG.swc", 187, 0, 0, NULL, true},
    {"mp_ma_40984_gc2.CNG.swc", 353, 1, 12.030, NULL, false},
    {"1220882a.CNG.swc", 459, 1, 1.91816, NULL, false},
    {"HSN-fluoro02.CNG.swc", 998, 3, 12.779, NULL, true},
    {"tc200.CNG.swc", 1219, 12, 0, NULL, false},
    {"c91662.swc", 1510, 3, 8.8677, NULL, true},
    {"v_e_purk2.CNG.swc", 1521, 1, 2.55,
     "v_e_purk2.CNG.swc:23: warning: sample 1 has radius 0; using 2.55 um from the nearest "
     "sample with a non-zero radius (no soma sample has one), sample 2 (line 24)",
     false},
    {"l22.CNG.swc", 1602, 10, 0, NULL, false},
    {"morph_ca1_n120.swc", 2630, 12, 0, NULL, true},
    {"morph_allen_485574832.swc", 3573, 1, 6.0176, NULL, true},
    {"C220498B-I4.CNG.swc", 4911, 1, 11.105, NULL, false},
    {"pyramidal.swc", 5799, 3, 4.46694, NULL, true},
    {"ri05.CNG.swc", 8992, 25, 0, NULL, false},
    {"041018-zA.CNG.swc", 15039, 3, 9.0152, NULL, false},
    {"test_swc.swc", 26161, 1, 7.7811, NULL, false},
};
enum { N_PROVENANCE = sizeof provenance / sizeof provenance[0] };

/* Sample lines and type-1 lines, counted without the reader: first two fields of every line
 * that has anything before its '#'. */
static void count_points(const char *path, int *points, int *soma_points) {
  FILE *file = fopen(path, "r");
  assert_non_null(file);
  char *line = NULL;
  size_t size = 0;
  *points = *soma_points = 0;
  while (getline(&line, &size, file) >= 0) {
    char *comment = strchr(line, '#');
    if (comment)
      *comment = '\0';
    char *saveptr;
    char *id = strtok_r(line, " \t\r\n", &saveptr);
    char *type = id ? strtok_r(NULL, " \t\r\n", &saveptr) : NULL;
    if (!id)
      continue;
    (*points)++;
    *soma_points += type && strcmp(type, "1") == 0;
  }
  free(line);
  fclose(file);
}

static bool has_suffix(const char *name, const char *suffix) {
  size_t n = strlen(name), s = strlen(suffix);
  return n >= s && strcmp(name + n - s, suffix) == 0;
}

/* Every .swc file of `folder` loads, is usable, and matches its PROVENANCE counts; every file
 * of the table with `shipped` set (or all of them when !shipped_only) must be there. */
static void check_folder_loads(const char *folder, int shipped_only) {
  DIR *directory = opendir(folder);
  if (!directory)
    fail_msg("cannot open %s", folder);
  int n_files = 0;
  bool seen[N_PROVENANCE] = {false};
  struct dirent *entry;
  while ((entry = readdir(directory))) {
    if (!has_suffix(entry->d_name, ".swc"))
      continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
    struct stat info;
    if (stat(path, &info) != 0 || !S_ISREG(info.st_mode))
      continue;
    n_files++;
    int points, soma_points;
    count_points(path, &points, &soma_points);
    struct loaded result;
    load(path, 0, &result);
    if (result.status != HINES_OK)
      fail_msg("%s", result.error.message);
    const struct morphology *m = &result.morphology;
    assert_usable(m);
    int expected = soma_points > 0 ? points - (soma_points - 1) : points;
    if (m->n_compartments != expected)
      fail_msg("%s: %d compartments, expected %d", path, m->n_compartments, expected);
    assert_true(m->total_length_um > 0);
    assert_close(m->total_length_um, total_length(m), 1e-12);
    assert_int_equal(m->geometry[0].is_sphere, soma_points > 0);
    for (int i = 1; i < m->n_compartments; i++)
      assert_int_equal(m->geometry[i].is_sphere, 0);
    assert_warning_format(path, result.warnings);
    bool listed = false;
    for (int p = 0; p < N_PROVENANCE; p++) {
      if (strcmp(provenance[p].file, entry->d_name) != 0)
        continue;
      seen[p] = listed = true;
      assert_int_equal(points, provenance[p].points);
      assert_int_equal(soma_points, provenance[p].soma_points);
      if (provenance[p].soma_radius_um > 0)
        assert_close(m->geometry[0].radius_um, provenance[p].soma_radius_um, 1e-12);
      if (provenance[p].warning) {
        assert_contains(result.warnings, provenance[p].warning);
        assert_int_equal(count_lines(result.warnings), 1);
      } else if (*result.warnings) {
        fail_msg("%s: unexpected warnings:\n%s", path, result.warnings);
      }
    }
    /* A shipped file needs its line in the table (and in morph/data/PROVENANCE.md). */
    if (shipped_only && !listed)
      fail_msg("%s has no line in this test's provenance table", path);
    unload(&result);
  }
  closedir(directory);
  for (int p = 0; p < N_PROVENANCE; p++)
    if (!seen[p] && (provenance[p].shipped || !shipped_only))
      fail_msg("%s is missing from %s", provenance[p].file, folder);
}

static void test_shipped_files_load(void **state) {
  (void)state;
  check_folder_loads(shipped_directory(), 1);
}

static void test_shared_files_load(void **state) {
  (void)state;
  SHARED_OR_SKIP();
  check_folder_loads(shared_directory(), 0);
}

/* A multi-point soma is a stack of truncated cones; its sphere has their area. `soma` lists the
 * file's soma samples: id, x, y, z, radius, parent id (the first one the root). */
static void check_stacked_soma(const char *path, const double (*soma)[6], int n) {
  double area = 0;
  for (int s = 1; s < n; s++) {
    int p = 0;
    while (soma[p][0] != soma[s][5])
      p++;
    double dx = soma[s][1] - soma[p][1], dy = soma[s][2] - soma[p][2], dz = soma[s][3] - soma[p][3];
    double slant = sqrt(dx * dx + dy * dy + dz * dz + pow(soma[s][4] - soma[p][4], 2));
    area += M_PI * (soma[s][4] + soma[p][4]) * slant;
  }
  struct loaded result;
  load(path, 0, &result);
  assert_int_equal(result.status, HINES_OK);
  assert_close(result.morphology.geometry[0].radius_um, sqrt(area / (4 * M_PI)), 1e-12);
  unload(&result);
}

/* morph_ca1_n120 (shipped): 12 soma samples in two chains from the root. */
static void test_stacked_soma_area(void **state) {
  (void)state;
  char path[4096];
  snprintf(path, sizeof path, "%s/morph_ca1_n120.swc", shipped_directory());
  static const double soma[12][6] = {
      {1, 0.0, 0.0, 0.0, 8.119, -1},      {2, 1.85, -4.03, 0.0, 7.23, 1},
      {3, 1.98, -6.0, 0.0, 6.28, 2},      {4, 1.99, -7.26, 0.0, 5.81, 3},
      {5, 2.17, -8.49, 0.0, 4.34, 4},     {6, 2.2, -8.67, 0.0, 4.34, 5},
      {7, 2.74, -9.85, 0.0, 4.019, 6},    {8, 3.0, -10.35, 0.0, 3.86, 7},
      {9, 4.06, -11.45, 0.0, 2.6, 8},     {852, -0.76, 1.5, 0.0, 7.96, 1},
      {853, -1.54, 4.27, 0.0, 7.96, 852}, {854, -2.45, 7.92, 0.0, 7.8, 853}};
  check_stacked_soma(path, soma, 12);
}

/* l22 (shared set only): 10 soma samples. */
static void test_stacked_soma_area_shared(void **state) {
  (void)state;
  SHARED_OR_SKIP();
  char path[4096];
  snprintf(path, sizeof path, "%s/l22.CNG.swc", shared_directory());
  /* Soma samples of l22 (PROVENANCE lists 10): id, x, y, z, radius, parent id. */
  static const double soma[10][6] = {
      {1, 0.0, -5.114, 4.688, 7.843, -1},     {2, -0.313, -0.323, 4.906, 7.645, 1},
      {3, -0.625, 4.469, 5.125, 5.932, 2},    {4, -0.938, 9.26, 5.344, 4.287, 3},
      {5, -1.25, 14.051, 5.562, 3.303, 4},    {6, -1.563, 18.843, 5.781, 2.833, 5},
      {7, -1.875, 23.634, 6.0, 2.73, 6},      {8, -2.913, 28.103, 10.7, 2.42, 7},
      {1137, 0.313, -9.905, 4.469, 6.961, 1}, {1138, 0.469, -12.301, 4.359, 4.681, 1137}};
  check_stacked_soma(path, soma, 10);
}

/* ---- (b) the malformed files ---- */

enum outcome { REJECT, REPAIR, ACCEPT };

struct expected_load {
  const char *file;
  enum outcome outcome;
  /* REJECT: substring of the error. REPAIR: substrings of the warnings. */
  const char *message;
  const char *second_message;
  int compartments;    /* when accepted */
  double total_length; /* when accepted; NAN: not checked */
  double total_area;   /* when accepted; 0: not checked (no accepted file has area 0) */
  bool shared_only;    /* not shipped in tests/data/malformed (license), checked when present */
};

static const struct expected_load malformed[] = {
    {.file = "bad_syntax.swc",
     .shared_only = true,
     .outcome = REJECT,
     .message = "bad_syntax.swc:6: expected 7 fields (id type x y z radius parent), found 2: "
                "'asd asda'"},
    {.file = "two_somas.swc",
     .shared_only = true,
     .outcome = REPAIR,
     .message = "two_somas.swc:3: warning: sample 3 is another root (parent -1); dropped its "
                "tree of 1 sample, keeping the tree rooted at sample 1 (line 1), the largest "
                "tree with a soma",
     .compartments = 2,
     .total_length = 1.7320508075688772},
    {.file = "single_section_unordered.swc",
     .shared_only = true,
     .outcome = ACCEPT,
     .compartments = 5,
     .total_length = 4.0,
     .total_area = 4 * M_PI * 100 + 2 * M_PI * 2 * 4},
    {.file = "single_section_missing_segment.swc",
     .shared_only = true,
     .outcome = REJECT,
     .message = "single_section_missing_segment.swc:1: parent 4 of sample 5 does not exist"},
    {.file = "bad_root_point.swc",
     .outcome = REJECT,
     .message = "bad_root_point.swc:2: parent 0 of sample 1 does not exist"},
    {.file = "simple-windows-eol.swc",
     .outcome = REPAIR,
     .message = "simple-windows-eol.swc:25: warning: sample 2 is 0 um from its parent sample 1; "
                "compartment length raised to 0.01 um",
     .second_message = "simple-windows-eol.swc:29: warning: sample 6 is 0 um",
     .compartments = 9,
     .total_length = 31.02},
    {.file = "simple-trailing-space.swc",
     .outcome = ACCEPT,
     .compartments = 3,
     .total_length = 3.0 + 2 * 1.7320508075688772},
    {.file = "neurite_wrong_root_point.swc",
     .outcome = ACCEPT,
     .compartments = 5,
     .total_length = 7.0 + 5.0990195135927845,
     .total_area = 4 * M_PI * 25 + 2 * M_PI * 10 * (7.0 + 5.0990195135927845)},
    {.file = "disconnected_neurite.swc",
     .outcome = REPAIR,
     .message = "disconnected_neurite.swc:10: warning: sample 10 is another root (parent -1); "
                "dropped its tree of 1 sample",
     .second_message = "disconnected_neurite.swc:2: warning: sample 2 is 0 um from its parent",
     .compartments = 9,
     .total_length = 31.02},
    {.file = "repeated_id.swc",
     .outcome = REJECT,
     .message = "repeated_id.swc:6: duplicate id 4 (already on line 5)"},
    {.file = "multiple_somata.swc",
     .outcome = REPAIR,
     .message = "multiple_somata.swc:12: warning: sample 10 is another root (parent -1); "
                "dropped its tree of 1 sample",
     .second_message = "multiple_somata.swc:6: warning: sample 4 has radius 0; using 1 um from "
                       "its parent, sample 3 (line 5)",
     .compartments = 9,
     .total_length = 31.02},
    {.file = "soma_with_neurite_parent.swc",
     .outcome = REPAIR,
     .message = "soma_with_neurite_parent.swc:8: warning: soma sample 6 is not the root of its "
                "tree (sample 1 on line 3 is); re-rooted the tree at the soma",
     .compartments = 6,
     .total_length = 9.0,
     .total_area = 4 * M_PI * 9 + 2 * M_PI * 0.5 * 9},
    {.file = "undefined_type.swc",
     .outcome = REPAIR,
     .message = "undefined_type.swc:6: warning: sample 6 has non-standard type code 0",
     .second_message =
         "undefined_type.swc:4: warning: sample 4 has radius 0; using 1 um from its parent",
     .compartments = 9,
     .total_length = 31.02},
    {.file = "Neuron_missing_ids.swc",
     .outcome = REJECT,
     .message = "Neuron_missing_ids.swc:42: parent 7 of sample 8 does not exist"},
    {.file = "morph_multiple_roots.swc",
     .outcome = REJECT,
     .message = "morph_multiple_roots.swc:9: duplicate id 3 (already on line 7)"},
    {.file = "morph_retina_20161028_1.swc",
     .outcome = REPAIR,
     .message = "morph_retina_20161028_1.swc:1: warning: all 7213 samples have radius 0; using "
                "1 um for every sample",
     .compartments = 7213,
     .total_length = NAN},
};
enum { N_MALFORMED = sizeof malformed / sizeof malformed[0] };

static void check_expected_load(const char *path, const struct expected_load *expected,
                                double max_compartment_um) {
  struct loaded result;
  load(path, max_compartment_um, &result);
  if (expected->outcome == REJECT) {
    if (result.status != HINES_BAD_INPUT)
      fail_msg("%s: status %d, expected a rejection", path, result.status);
    assert_contains(result.error.message, expected->message);
    assert_morphology_empty(&result.morphology);
  } else {
    if (result.status != HINES_OK)
      fail_msg("%s: %s", path, result.error.message);
    assert_usable(&result.morphology);
    assert_warning_format(path, result.warnings);
    if (expected->outcome == ACCEPT && *result.warnings)
      fail_msg("%s: unexpected warnings:\n%s", path, result.warnings);
    if (expected->outcome == REPAIR && !*result.warnings)
      fail_msg("%s: repaired without a warning", path);
    if (expected->message)
      assert_contains(result.warnings, expected->message);
    if (expected->second_message)
      assert_contains(result.warnings, expected->second_message);
    if (expected->compartments != result.morphology.n_compartments)
      fail_msg("%s: %d compartments, expected %d", path, result.morphology.n_compartments,
               expected->compartments);
    if (!isnan(expected->total_length))
      assert_close(result.morphology.total_length_um, expected->total_length, 1e-12);
    if (expected->total_area != 0)
      assert_close(membrane_area(&result.morphology), expected->total_area, 1e-12);
  }
  unload(&result);
}

/* Every entry of the table (shipped ones only when shipped_only) loads from `folder` with its
 * outcome, and the table covers the whole folder: a new file there needs a decision here. */
static void check_malformed_folder(const char *folder, int shipped_only) {
  int expected_files = 0;
  for (int c = 0; c < N_MALFORMED; c++) {
    if (shipped_only && malformed[c].shared_only)
      continue;
    expected_files++;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", folder, malformed[c].file);
    check_expected_load(path, &malformed[c], 0);
  }
  DIR *directory = opendir(folder);
  if (!directory)
    fail_msg("cannot open %s", folder);
  int n_files = 0;
  struct dirent *entry;
  while ((entry = readdir(directory))) {
    if (entry->d_name[0] == '.')
      continue;
    n_files++;
    bool listed = false;
    for (int c = 0; c < N_MALFORMED; c++)
      listed |= strcmp(malformed[c].file, entry->d_name) == 0 &&
                !(shipped_only && malformed[c].shared_only);
    if (!listed)
      fail_msg("%s/%s has no expected outcome in this test", folder, entry->d_name);
  }
  closedir(directory);
  assert_int_equal(n_files, expected_files);
}

static void test_malformed_files(void **state) {
  (void)state;
  check_malformed_folder(malformed_directory(), 1);
}

static void test_malformed_files_shared(void **state) {
  (void)state;
  SHARED_OR_SKIP();
  char folder[4096];
  snprintf(folder, sizeof folder, "%s/malformed", shared_directory());
  check_malformed_folder(folder, 0);
}

/* The retina skeleton has radius 0 everywhere and 78 branch starts that repeat their branch
 * point: one line for the radii, ten listed coincident points and one summary of the rest. */
static void test_retina_repairs_are_summarised(void **state) {
  (void)state;
  char path[4096];
  snprintf(path, sizeof path, "%s/morph_retina_20161028_1.swc", malformed_directory());
  struct loaded result;
  load(path, 0, &result);
  assert_int_equal(result.status, HINES_OK);
  for (int i = 0; i < result.morphology.n_compartments; i++)
    assert_true(result.morphology.geometry[i].radius_um == 1.0);
  assert_int_equal(count_lines(result.warnings), 1 + 10 + 1);
  assert_contains(result.warnings, "morph_retina_20161028_1.swc:286: warning: sample 286 is 0 um "
                                   "from its parent sample 54; compartment length raised to "
                                   "0.01 um");
  assert_contains(result.warnings, "morph_retina_20161028_1.swc:2037: warning: 68 more "
                                   "coincident sample points (from this line on) repaired the "
                                   "same way");
  unload(&result);
}

/* ---- (c) written files ---- */

static char temporary_directory[] = "/tmp/test_swc.XXXXXX";

static int create_temporary_directory(void **state) {
  (void)state;
  return mkdtemp(temporary_directory) ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *info, int flag, struct FTW *ftw) {
  (void)info;
  (void)flag;
  (void)ftw;
  chmod(path, 0700);
  return remove(path);
}

static int remove_temporary_directory(void **state) {
  (void)state;
  return nftw(temporary_directory, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void write_file(const char *path, const char *content, size_t length) {
  FILE *file = fopen(path, "wb");
  assert_non_null(file);
  assert_int_equal(fwrite(content, 1, length, file), length);
  assert_int_equal(fclose(file), 0);
}

static void temporary_path(char *path, size_t size, const char *name) {
  snprintf(path, size, "%s/%s", temporary_directory, name);
}

struct written_case {
  struct expected_load expected;
  const char *content;
  size_t length; /* 0: strlen(content) */
};

/* Geometry shorthand: soma of radius 5 at the origin unless stated. */
#define REJECTED(name, text) .expected = {.file = name, .outcome = REJECT, .message = text}
static const struct written_case written[] = {
    {REJECTED("nan_radius.swc", "nan_radius.swc:2: radius field is not a finite number: 'nan'"),
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 10 nan 1\n"},
    {REJECTED("inf_coordinate.swc", "inf_coordinate.swc:3: x field is not a finite number: '-inf'"),
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n3 3 -inf 0 10 1 1\n"},
    {REJECTED("huge_coordinate.swc", "huge_coordinate.swc:2: y field is not a finite number"),
     .content = "1 1 0 0 0 5 -1\n2 3 0 1e999 10 1 1\n"},
    {REJECTED("negative_radius.swc", "negative_radius.swc:3: negative radius -0.5 of sample 3"),
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n3 3 0 0 20 -0.5 2\n"},
    {REJECTED("non_numeric.swc", "non_numeric.swc:2: z field is not a number: 'ten'"),
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 ten 1 1\n"},
    {REJECTED("half_number.swc", "half_number.swc:2: radius field is not a number: '1.5um'"),
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1.5um 1\n"},
    {REJECTED("fractional_type.swc", "fractional_type.swc:2: type field is not an integer: '3.5'"),
     .content = "1 1 0 0 0 5 -1\n2 3.5 0 0 10 1 1\n"},
    {REJECTED("fractional_parent.swc",
              "fractional_parent.swc:2: parent field is not an integer: '1.0'"),
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1.0\n"},
    {REJECTED("too_many_fields.swc",
              "too_many_fields.swc:2: expected 7 fields (id type x y z radius parent), found 8"),
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1 0.5\n"},
    {REJECTED("too_few_fields.swc", "too_few_fields.swc:1: expected 7 fields (id type x y z "
                                    "radius parent), found 6: '1 1 0 0 0 5'"),
     .content = "1 1 0 0 0 5\n"},
    {REJECTED("cycle.swc",
              "cycle.swc:1: sample 1 is in a cycle of 3 samples with no root (1 -> 3 -> 2 -> 1)"),
     .content = "1 3 0 0 0 1 3\n2 3 0 0 1 1 1\n3 3 0 0 2 1 2\n"},
    {REJECTED("cycle_beside_tree.swc", "cycle_beside_tree.swc:3: sample 10 is in a cycle of 2 "
                                       "samples with no root (10 -> 11 -> 10)"),
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n10 3 0 0 20 1 11\n11 3 0 0 30 1 10\n"},
    {REJECTED("two_cycles.swc", "two_cycles.swc:1: sample 1 is in a cycle of 2 samples with no "
                                "root (1 -> 2 -> 1)"),
     .content = "1 3 0 0 0 1 2\n2 3 0 0 1 1 1\n3 3 0 0 2 1 4\n4 3 0 0 3 1 3\n"},
    {REJECTED("self_parent.swc", "self_parent.swc:2: sample 2 is its own parent"),
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 2\n"},
    {REJECTED("negative_parent.swc",
              "negative_parent.swc:2: parent -2 of sample 2 is invalid (a root has parent -1)"),
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 -2\n"},
    {REJECTED("negative_id.swc", "negative_id.swc:1: negative sample id -3"),
     .content = "-3 1 0 0 0 5 -1\n"},
    {REJECTED("empty.swc", "empty.swc: no samples (0 lines, all blank or comments)"),
     .content = ""},
    {REJECTED("comments_only.swc",
              "comments_only.swc: no samples (3 lines, all blank or comments)"),
     .content = "# header\n\n   # indented comment\n"},
    {REJECTED("nul_byte.swc", "nul_byte.swc:2: NUL byte in line"),
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 10\0 1 1\n", .length = 31},
    {REJECTED("id_overflow.swc",
              "id_overflow.swc:1: id field is out of range: '99999999999999999999'"),
     .content = "99999999999999999999 1 0 0 0 5 -1\n"},
    {REJECTED("two_duplicates.swc", "two_duplicates.swc:4: duplicate id 2 (already on line 2)"),
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n3 3 0 0 20 1 2\n2 3 0 0 30 1 1\n"
                "1 3 0 0 40 1 2\n"},
    {.expected = {.file = "soma_tree_smaller.swc",
                  .outcome = REPAIR,
                  .message = "soma_tree_smaller.swc:3: warning: sample 3 is another root "
                             "(parent -1); dropped its tree of 3 samples, keeping the tree "
                             "rooted at sample 1 (line 1), the largest tree with a soma",
                  .compartments = 2,
                  .total_length = 10},
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n3 3 50 0 0 1 -1\n4 3 50 0 10 1 3\n"
                "5 3 50 0 20 1 4\n"},
    {.expected = {.file = "soma_tree_second.swc",
                  .outcome = REPAIR,
                  .message = "soma_tree_second.swc:1: warning: sample 1 is another root (parent "
                             "-1); dropped its tree of 3 samples, keeping the tree rooted at "
                             "sample 4 (line 4), the largest tree with a soma",
                  .compartments = 2,
                  .total_length = 10},
     .content = "1 3 0 0 0 1 -1\n2 3 0 0 10 1 1\n3 3 0 0 20 1 2\n4 1 50 0 0 5 -1\n"
                "5 3 50 0 10 1 4\n"},
    {.expected = {.file = "larger_soma_tree_second.swc",
                  .outcome = REPAIR,
                  .message = "larger_soma_tree_second.swc:1: warning: sample 1 is another root "
                             "(parent -1); dropped its tree of 1 sample, keeping the tree rooted "
                             "at sample 2 (line 2), the largest tree with a soma",
                  .compartments = 2,
                  .total_length = 10},
     .content = "1 1 0 0 0 5 -1\n2 1 50 0 0 5 -1\n3 3 50 0 10 1 2\n"},
    {.expected = {.file = "crlf.swc",
                  .outcome = ACCEPT,
                  .compartments = 3,
                  .total_length = 30.0,
                  .total_area = 4 * M_PI * 25 + 2 * M_PI * 30},
     .content = "# CRLF line ends\r\n1 1 0 0 0 5 -1\r\n2 3 0 0 10 1 1\r\n3 3 0 0 30 1 2\r\n"},
    {.expected = {.file = "huge_ids.swc", .outcome = ACCEPT, .compartments = 3, .total_length = 20},
     .content = "9000000001 1 0 0 0 5 -1\n9000000005 3 0 0 10 1 9000000001\n"
                "123456789012345 3 0 0 20 1 9000000005\n"},
    {.expected =
         {.file = "inline_comments.swc", .outcome = ACCEPT, .compartments = 3, .total_length = 20},
     .content = "1 1 0 0 0 5 -1 # soma\n2 3 0 0 10 1 1#no space before the comment\n"
                "\t3\t3 0 0 20 1 2 \t # tabs and spaces\n"},
    {.expected = {.file = "unordered_gaps_no_newline.swc",
                  .outcome = ACCEPT,
                  .compartments = 3,
                  .total_length = 30},
     .content = "50 3 0 0 30 1 30\n30 3 0 0 10 1 7\n7 1 0 0 0 5 -1"},
    {.expected = {.file = "number_forms.swc",
                  .outcome = ACCEPT,
                  .compartments = 2,
                  .total_length = 10,
                  .total_area = 4 * M_PI * 25 + 2 * M_PI * 5 * 10},
     .content = "+1 1 0.0 -0 0 5e0 -1\n2 3 0 0 1.0E1 .5e1 +1\n"},
    {.expected = {.file = "zero_radius_parent.swc",
                  .outcome = REPAIR,
                  .message = "zero_radius_parent.swc:3: warning: sample 3 has radius 0; using 2 "
                             "um from its parent, sample 2 (line 2)",
                  .compartments = 3,
                  .total_length = 20,
                  .total_area = 4 * M_PI * 25 + 2 * M_PI * 2 * 20},
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 10 2 1\n3 3 0 0 20 0 2\n"},
    {.expected = {.file = "zero_radius_nearest.swc",
                  .outcome = REPAIR,
                  .message = "zero_radius_nearest.swc:2: warning: sample 2 has radius 0; using 3 "
                             "um from the nearest non-soma sample with a non-zero radius, "
                             "sample 4 (line 4)",
                  .second_message = "zero_radius_nearest.swc:3: warning: sample 3 has radius 0; "
                                    "using 3 um from the nearest",
                  .compartments = 4,
                  .total_length = 30,
                  .total_area = 4 * M_PI * 25 + 2 * M_PI * 3 * 30},
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 10 0 1\n3 3 0 0 20 0 2\n4 3 0 0 30 3 3\n"},
    {.expected = {.file = "zero_soma_radius.swc",
                  .outcome = REPAIR,
                  .message = "zero_soma_radius.swc:1: warning: sample 1 has radius 0; using 2 um "
                             "from the nearest sample with a non-zero radius (no soma sample "
                             "has one), sample 2 (line 2)",
                  .compartments = 2,
                  .total_length = 10,
                  .total_area = 4 * M_PI * 4 + 2 * M_PI * 2 * 10},
     .content = "1 1 0 0 0 0 -1\n2 3 0 0 10 2 1\n"},
    {.expected = {.file = "all_zero.swc",
                  .outcome = REPAIR,
                  .message = "all_zero.swc:1: warning: all 2 samples have radius 0; using 1 um "
                             "for every sample",
                  .compartments = 2,
                  .total_length = 10,
                  .total_area = 4 * M_PI + 2 * M_PI * 10},
     .content = "1 1 0 0 0 0 -1\n2 3 0 0 10 0 1\n"},
    {.expected = {.file = "coincident.swc",
                  .outcome = REPAIR,
                  .message = "coincident.swc:3: warning: sample 3 is 0 um from its parent sample "
                             "2; compartment length raised to 0.01 um",
                  .compartments = 3,
                  .total_length = 10.01},
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n3 3 0 0 10 1 2\n"},
    {.expected = {.file = "cylinder_soma.swc",
                  .outcome = ACCEPT,
                  .compartments = 2,
                  .total_length = 10,
                  .total_area = 2 * M_PI * 5 * 10 + 2 * M_PI * 10},
     .content = "1 1 0 0 0 5 -1\n2 1 0 0 10 5 1\n3 3 0 0 20 1 2\n"},
    {.expected = {.file = "cone_soma.swc",
                  .outcome = ACCEPT,
                  .compartments = 1,
                  .total_length = 0,
                  .total_area = M_PI * (6 + 2) * 5},
     .content = "1 1 0 0 0 6 -1\n2 1 0 0 3 2 1\n"},
    {.expected = {.file = "nmo_soma.swc",
                  .outcome = ACCEPT,
                  .compartments = 2,
                  .total_length = 6,
                  .total_area = 4 * M_PI * 16 + 2 * M_PI * 6},
     .content = "1 1 0 0 0 4 -1\n2 1 0 -4 0 4 1\n3 1 0 4 0 4 1\n4 3 0 10 0 1 3\n"},
    {.expected = {.file = "three_sample_stack.swc",
                  .outcome = ACCEPT,
                  .compartments = 1,
                  .total_length = 0,
                  .total_area = 2 * M_PI * 3 * 8},
     .content = "1 1 0 0 0 3 -1\n2 1 0 0 4 3 1\n3 1 0 0 8 3 2\n"},
    {.expected = {.file = "coincident_soma.swc",
                  .outcome = REPAIR,
                  .message = "coincident_soma.swc:1: warning: the 2 soma samples all lie at one "
                             "point; the soma is a sphere of their largest radius, 7 um",
                  .compartments = 1,
                  .total_length = 0,
                  .total_area = 4 * M_PI * 49},
     .content = "1 1 0 0 0 7 -1\n2 1 0 0 0 7 1\n"},
    {.expected = {.file = "no_soma.swc",
                  .outcome = ACCEPT,
                  .compartments = 2,
                  .total_length = 12,
                  .total_area = 2 * M_PI * 2 * 12},
     .content = "1 3 0 0 0 2 -1\n2 3 0 0 10 2 1\n"},
    {.expected = {.file = "trees_without_soma.swc",
                  .outcome = REPAIR,
                  .message = "trees_without_soma.swc:1: warning: sample 1 is another root "
                             "(parent -1); dropped its tree of 2 samples, keeping the tree "
                             "rooted at sample 3 (line 3), the largest tree; no tree has a soma",
                  .compartments = 3,
                  .total_length = 1 + 2},
     .content = "1 3 0 0 0 1 -1\n2 3 0 0 1 1 1\n3 3 5 0 0 1 -1\n4 3 5 0 1 1 3\n5 3 5 0 2 1 4\n"},
    {.expected = {.file = "many_trees.swc",
                  .outcome = REPAIR,
                  .message = "many_trees.swc:1: warning: dropped 3 samples in 3 disconnected "
                             "trees in all",
                  .compartments = 2,
                  .total_length = 10},
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n3 3 5 0 0 1 -1\n4 3 6 0 0 1 -1\n"
                "5 3 7 0 0 1 -1\n"},
    {.expected = {.file = "detached_soma_sample.swc",
                  .outcome = REPAIR,
                  .message = "detached_soma_sample.swc:3: warning: soma sample 3 is not joined "
                             "to the soma at the root through soma samples; it becomes an "
                             "ordinary cylinder compartment",
                  .compartments = 3,
                  .total_length = 20,
                  .total_area = 4 * M_PI * 25 + 2 * M_PI * 10 + 2 * M_PI * 2 * 10},
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n3 1 0 0 20 2 2\n"},
    {.expected = {.file = "custom_type.swc",
                  .outcome = REPAIR,
                  .message = "custom_type.swc:2: warning: sample 2 has non-standard type code 7 "
                             "(1 soma, 2 axon, 3 basal, 4 apical), as do 2 samples in all; kept "
                             "as given",
                  .compartments = 3,
                  .total_length = 20},
     .content = "1 1 0 0 0 5 -1\n2 7 0 0 10 1 1\n3 7 0 0 20 1 2\n"},
    /* A UTF-8 byte-order mark before the first field (Windows editors write one). */
    {.expected =
         {.file = "byte_order_mark.swc", .outcome = ACCEPT, .compartments = 2, .total_length = 10},
     .content = "\xef\xbb\xbf"
                "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n"},
    {.expected = {.file = "byte_order_mark_comment.swc",
                  .outcome = ACCEPT,
                  .compartments = 2,
                  .total_length = 10},
     .content = "\xef\xbb\xbf# header\n1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n"},
    /* Only at the start of the file: elsewhere it is a bad field. */
    {REJECTED("byte_order_mark_line_2.swc",
              "byte_order_mark_line_2.swc:2: id field is not an integer: '\\xef\\xbb\\xbf2'"),
     .content = "1 1 0 0 0 5 -1\n\xef\xbb\xbf"
                "2 3 0 0 10 1 1\n"},
    /* Escape sequences and bytes that are not UTF-8 are shown as \xNN, never echoed raw. */
    {REJECTED("escape_bytes.swc",
              "escape_bytes.swc:2: z field is not a number: '\\x1b[2J\\x1b[31mred'"),
     .content = "1 1 0 0 0 5 -1\n2 3 0 0 \x1b[2J\x1b[31mred 1 1\n"},
    {REJECTED("latin1_field.swc", "latin1_field.swc:2: x field is not a number: '\\xe910'"),
     .content = "1 1 0 0 0 5 -1\n2 3 \xe9"
                "10 0 10 1 1\n"},
    {REJECTED("escape_in_line.swc", "escape_in_line.swc:2: expected 7 fields (id type x y z radius "
                                    "parent), found 6: '2\\x073 0 0 10 1\\x1b]0;title\\x07 1'"),
     .content = "1 1 0 0 0 5 -1\n2\a3 0 0 10 1\x1b]0;title\a 1\n"},
    /* Units stated in the header: converted to micrometres, with a warning. */
    {.expected = {.file = "units_nm.swc",
                  .outcome = REPAIR,
                  .message = "units_nm.swc:2: warning: the header gives the units as nanometres; "
                             "coordinates and radii converted to micrometres (multiplied by "
                             "0.001)",
                  .compartments = 2,
                  .total_length = 10,
                  .total_area = 4 * M_PI * 25 + 2 * M_PI * 1 * 10},
     .content = "# traced with a light-sheet\n# Units: nm\n1 1 0 0 0 5000 -1\n"
                "2 3 0 0 10000 1000 1\n"},
    {.expected = {.file = "units_nanometres_words.swc",
                  .outcome = REPAIR,
                  .message = "units_nanometres_words.swc:1: warning: the header gives the units "
                             "as nanometres",
                  .compartments = 2,
                  .total_length = 10},
     .content = "# Coordinate units are nanometres\n1 1 0 0 0 5000 -1\n2 3 0 0 10000 1000 1\n"},
    {.expected = {.file = "units_mm.swc",
                  .outcome = REPAIR,
                  .message = "units_mm.swc:1: warning: the header gives the units as "
                             "millimetres; coordinates and radii converted to micrometres "
                             "(multiplied by 1000)",
                  .compartments = 2,
                  .total_length = 10},
     .content = "#UNITS=mm\n1 1 0 0 0 0.005 -1\n2 3 0 0 0.010 0.001 1\n"},
    {.expected = {.file = "units_um.swc", .outcome = ACCEPT, .compartments = 2, .total_length = 10},
     .content = "# units: micrometers\n1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n"},
    {.expected = {.file = "units_unknown.swc",
                  .outcome = REPAIR,
                  .message = "units_unknown.swc:1: warning: the header gives the units as "
                             "'pixels', which this reader does not know; the numbers are read as "
                             "micrometres",
                  .compartments = 2,
                  .total_length = 10},
     .content = "# units: pixels\n1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n"},
    {.expected = {.file = "nanometres_mentioned.swc",
                  .outcome = REPAIR,
                  .message = "nanometres_mentioned.swc:1: warning: the header mentions nanometres "
                             "but states no units; the numbers are read as micrometres",
                  .compartments = 2,
                  .total_length = 10},
     .content = "# resolution 200 nanometers\n1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n"},
    /* After the first sample a comment states nothing about the samples already read. */
    {.expected = {.file = "units_after_samples.swc",
                  .outcome = ACCEPT,
                  .compartments = 2,
                  .total_length = 10},
     .content = "1 1 0 0 0 5 -1\n# units: nm\n2 3 0 0 10 1 1\n"},
};
#undef REJECTED
enum { N_WRITTEN = sizeof written / sizeof written[0] };

static void test_written_files(void **state) {
  (void)state;
  for (int c = 0; c < N_WRITTEN; c++) {
    char path[4096];
    temporary_path(path, sizeof path, written[c].expected.file);
    size_t length = written[c].length ? written[c].length : strlen(written[c].content);
    write_file(path, written[c].content, length);
    check_expected_load(path, &written[c].expected, 0);
  }
}

/* Resampling the odd shapes above (no soma, soma only, detached soma sample, ...) keeps the
 * tree usable, its length and its membrane area. */
static void test_written_files_resampled(void **state) {
  (void)state;
  for (int c = 0; c < N_WRITTEN; c++) {
    if (written[c].expected.outcome == REJECT)
      continue;
    char path[4096];
    temporary_path(path, sizeof path, written[c].expected.file);
    struct loaded plain, resampled;
    load(path, 0, &plain);
    load(path, 3, &resampled);
    assert_int_equal(plain.status, HINES_OK);
    assert_int_equal(resampled.status, HINES_OK);
    assert_usable(&resampled.morphology);
    assert_close(resampled.morphology.total_length_um, plain.morphology.total_length_um, 1e-12);
    assert_close(membrane_area(&resampled.morphology), membrane_area(&plain.morphology), 1e-12);
    for (int i = 1; i < resampled.morphology.n_compartments; i++)
      assert_true(resampled.morphology.geometry[i].length_um <= 3 * (1 + 1e-6));
    unload(&plain);
    unload(&resampled);
  }
}

static void test_type_codes_kept(void **state) {
  (void)state;
  char path[4096];
  temporary_path(path, sizeof path, "types.swc");
  const char *content = "1 1 0 0 0 5 -1\n2 2 0 0 10 1 1\n3 4 0 0 20 1 2\n4 0 0 0 30 1 3\n";
  write_file(path, content, strlen(content));
  struct loaded result;
  load(path, 0, &result);
  assert_int_equal(result.status, HINES_OK);
  const struct morphology *m = &result.morphology;
  assert_int_equal(m->n_compartments, 4);
  /* A chain: Hines order follows it. */
  static const int expected_types[4] = {1, 2, 4, 0};
  for (int i = 0; i < 4; i++)
    assert_int_equal(m->geometry[i].swc_type, expected_types[i]);
  assert_contains(result.warnings, "types.swc:4: warning: sample 4 has non-standard type code 0");
  unload(&result);
}

static void test_long_lines(void **state) {
  (void)state;
  size_t padding = 100000;
  char *content = malloc(3 * padding + 100);
  assert_non_null(content);
  size_t used = 0;
  content[used++] = '#';
  memset(content + used, 'c', padding);
  used += padding;
  content[used++] = '\n';
  memset(content + used, ' ', padding);
  used += padding;
  used += (size_t)sprintf(content + used, "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1");
  memset(content + used, '\t', padding);
  used += padding;
  content[used++] = '\n';
  char path[4096];
  temporary_path(path, sizeof path, "long_lines.swc");
  write_file(path, content, used);
  free(content);
  struct expected_load expected = {
      .file = "long_lines.swc", .outcome = ACCEPT, .compartments = 2, .total_length = 10};
  check_expected_load(path, &expected, 0);
}

static void test_directory_is_rejected(void **state) {
  (void)state;
  struct loaded result;
  load(temporary_directory, 0, &result);
  assert_int_equal(result.status, HINES_BAD_INPUT);
  char expected[4200];
  snprintf(expected, sizeof expected, "%s: cannot open: Is a directory", temporary_directory);
  assert_string_equal(result.error.message, expected);
  assert_morphology_empty(&result.morphology);
  unload(&result);
}

/* A FIFO (or any file that is not a regular file) is refused before anything reads it: reading
 * would wait for a writer forever. */
static void test_fifo_is_rejected_without_blocking(void **state) {
  (void)state;
  char path[4096];
  temporary_path(path, sizeof path, "pipe.swc");
  assert_int_equal(mkfifo(path, 0600), 0);
  struct loaded result;
  alarm(20); /* a blocking open fails the test instead of hanging it */
  load(path, 0, &result);
  alarm(0);
  assert_int_equal(result.status, HINES_BAD_INPUT);
  assert_contains(result.error.message, "pipe.swc: is a FIFO, not a regular file");
  assert_morphology_empty(&result.morphology);
  unload(&result);
  remove(path);
}

static void test_unreadable_paths_are_rejected(void **state) {
  (void)state;
  char path[4096];
  temporary_path(path, sizeof path, "does_not_exist.swc");
  struct loaded result;
  load(path, 0, &result);
  assert_int_equal(result.status, HINES_BAD_INPUT);
  char expected[4200];
  snprintf(expected, sizeof expected, "%s: cannot open: No such file or directory", path);
  assert_string_equal(result.error.message, expected);
  assert_morphology_empty(&result.morphology);
  unload(&result);

  temporary_path(path, sizeof path, "unreadable.swc");
  write_file(path, "1 1 0 0 0 5 -1\n", 15);
  assert_int_equal(chmod(path, 0), 0);
  if (access(path, R_OK) == 0) {
    /* root reads anything: the permission case cannot be produced here. */
    print_message("# unreadable.swc is readable (running as root): permission case not run\n");
    return;
  }
  load(path, 0, &result);
  assert_int_equal(result.status, HINES_BAD_INPUT);
  snprintf(expected, sizeof expected, "%s: cannot open: Permission denied", path);
  assert_string_equal(result.error.message, expected);
  assert_morphology_empty(&result.morphology);
  unload(&result);
}

static void test_null_options_are_defaults(void **state) {
  (void)state;
  char path[4096];
  temporary_path(path, sizeof path, "plain.swc");
  const char *content = "1 1 0 0 0 5 -1\n2 3 0 0 10 1 1\n3 3 0 0 45 1 2\n";
  write_file(path, content, strlen(content));
  struct morphology m;
  struct hines_error err;
  assert_int_equal(swc_load(path, NULL, &m, &err), HINES_OK);
  /* NULL is the NEURON geometry, one segment per sample: the one-point soma, and the neurite
   * from its first sample on (Import3d joins it to the soma centre by a wire), one piece. */
  assert_int_equal(m.n_compartments, 2);
  assert_int_equal(m.geometry[0].is_integrated, 1);
  assert_close(m.geometry[1].length_um, 35.0, 1e-12);
  assert_string_equal(m.name, path);
  morphology_free(&m);
}

/* ---- (d) resampling ---- */

/* A soma of radius 5 and an unbranched cable of `samples` samples, `spacing` apart along
 * `direction` (a unit vector): type 2 on its first 30 %, then type 3; radius 2 on the first
 * half of its length and 1 on the second. */
static void write_cable(const char *path, int samples, double spacing, const double direction[3]) {
  FILE *file = fopen(path, "w");
  assert_non_null(file);
  fprintf(file, "1 1 0 0 0 5 -1\n");
  for (int k = 1; k <= samples; k++)
    fprintf(file, "%d %d %.17g %.17g %.17g %g %d\n", k + 1, 10 * k <= 3 * samples ? 2 : 3,
            k * spacing * direction[0], k * spacing * direction[1], k * spacing * direction[2],
            2 * k <= samples ? 2.0 : 1.0, k);
  assert_int_equal(fclose(file), 0);
}

static const double along_z[3] = {0, 0, 1};

static void test_resample_straight_cable(void **state) {
  (void)state;
  char path[4096];
  temporary_path(path, sizeof path, "cable.swc");
  write_cable(path, 100, 1.0, along_z);
  struct loaded plain, resampled;
  load(path, 0, &plain);
  load(path, 10, &resampled);
  assert_int_equal(plain.status, HINES_OK);
  assert_int_equal(resampled.status, HINES_OK);
  const struct morphology *m = &resampled.morphology;
  assert_usable(m);
  assert_int_equal(plain.morphology.n_compartments, 101);
  assert_int_equal(m->n_compartments, 11);
  assert_true(fabs(m->total_length_um - 100.0) <= 1e-9);
  assert_true(fabs(total_length(m) - 100.0) <= 1e-9);
  assert_close(membrane_area(m), membrane_area(&plain.morphology), 1e-12);
  assert_int_equal(m->geometry[0].is_sphere, 1);
  assert_close(m->geometry[0].radius_um, 5.0, 0);
  for (int i = 1; i < 11; i++) {
    assert_close(m->geometry[i].length_um, 10.0, 1e-12);
    assert_close(m->geometry[i].radius_um, i <= 5 ? 2.0 : 1.0, 1e-12);
    assert_int_equal(m->geometry[i].swc_type, i <= 3 ? 2 : 3);
  }
  assert_int_equal(m->n_branches, plain.morphology.n_branches);
  assert_string_equal(resampled.warnings, "");
  unload(&plain);
  unload(&resampled);
}

/* A piece straddling a change of radius gets the length-weighted mean radius. */
static void test_resample_radius_is_length_weighted(void **state) {
  (void)state;
  char path[4096];
  temporary_path(path, sizeof path, "cable_mean.swc");
  write_cable(path, 100, 1.0, along_z);
  struct loaded result;
  load(path, 40, &result); /* three pieces of 33.3 um; the middle one is half r=2, half r=1 */
  assert_int_equal(result.status, HINES_OK);
  const struct morphology *m = &result.morphology;
  assert_int_equal(m->n_compartments, 4);
  assert_close(m->geometry[1].radius_um, 2.0, 1e-12);
  assert_close(m->geometry[2].radius_um, 1.5, 1e-12);
  assert_close(m->geometry[3].radius_um, 1.0, 1e-12);
  for (int i = 1; i < 4; i++)
    assert_close(m->geometry[i].length_um, 100.0 / 3, 1e-12);
  unload(&result);
}

/* dx larger than a sample spacing merges samples, and a non-divisible length rounds up. */
static void test_resample_merges_and_rounds_up(void **state) {
  (void)state;
  char path[4096];
  temporary_path(path, sizeof path, "cable_fine.swc");
  /* 100 um in 1000 diagonal steps: the summed lengths come to 100.0000000000001, which a bare
   * ceil(length / 10) would cut into 11 pieces. */
  const double diagonal[3] = {0.6, 0.8, 0};
  write_cable(path, 1000, 0.1, diagonal);
  struct loaded result;
  load(path, 0, &result);
  assert_int_equal(result.status, HINES_OK);
  assert_true(result.morphology.total_length_um > 100.0);
  unload(&result);
  load(path, 10, &result);
  assert_int_equal(result.status, HINES_OK);
  assert_int_equal(result.morphology.n_compartments, 11);
  assert_true(fabs(result.morphology.total_length_um - 100.0) <= 1e-9);
  unload(&result);
  load(path, 30, &result); /* ceil(100 / 30) = 4 */
  assert_int_equal(result.status, HINES_OK);
  assert_int_equal(result.morphology.n_compartments, 5);
  for (int i = 1; i < 5; i++)
    assert_close(result.morphology.geometry[i].length_um, 25.0, 1e-9);
  unload(&result);
}

static void test_resample_keeps_branch_points(void **state) {
  (void)state;
  char path[4096];
  temporary_path(path, sizeof path, "y_shape.swc");
  FILE *file = fopen(path, "w");
  assert_non_null(file);
  /* Soma; trunk of 50 um along z in 2.5 um steps; arm A of 40 um along x in 4 um steps; arm B
   * of 30 um along y in 3 um steps. */
  fprintf(file, "1 1 0 0 0 6 -1\n");
  int id = 2;
  for (int k = 1; k <= 20; k++, id++)
    fprintf(file, "%d 3 0 0 %g 1.5 %d\n", id, 2.5 * k, id - 1);
  int junction = id - 1;
  for (int k = 1; k <= 10; k++, id++)
    fprintf(file, "%d 3 %g 0 50 1 %d\n", id, 4.0 * k, k == 1 ? junction : id - 1);
  for (int k = 1; k <= 10; k++, id++)
    fprintf(file, "%d 3 0 %g 50 0.5 %d\n", id, 3.0 * k, k == 1 ? junction : id - 1);
  assert_int_equal(fclose(file), 0);

  struct loaded plain, resampled;
  load(path, 0, &plain);
  load(path, 7, &resampled);
  assert_int_equal(plain.status, HINES_OK);
  assert_int_equal(resampled.status, HINES_OK);
  const struct morphology *m = &resampled.morphology;
  assert_usable(m);
  assert_int_equal(plain.morphology.n_compartments, 41);
  assert_int_equal(plain.morphology.n_branches, 3);
  assert_int_equal(m->n_branches, 3);
  /* ceil(50/7) + ceil(40/7) + ceil(30/7) = 8 + 6 + 5, plus the soma */
  assert_int_equal(m->n_compartments, 1 + 8 + 6 + 5);
  assert_int_equal(m->branch_size[0], 1 + 8);
  assert_int_equal(m->branch_size[1], 6);
  assert_int_equal(m->branch_size[2], 5);
  static const double branch_lengths[3] = {50, 40, 30}, branch_radii[3] = {1.5, 1, 0.5};
  for (int b = 0; b < 3; b++) {
    double length = 0;
    for (int i = m->branch_start[b]; i < m->branch_start[b] + m->branch_size[b]; i++) {
      length += m->geometry[i].length_um;
      if (!m->geometry[i].is_sphere)
        assert_close(m->geometry[i].radius_um, branch_radii[b], 1e-12);
    }
    assert_close(length, branch_lengths[b], 1e-12);
  }
  /* Both arms hang from the end of the trunk. */
  assert_int_equal(m->branch_junction[1], m->branch_size[0] - 1);
  assert_int_equal(m->branch_junction[2], m->branch_size[0] - 1);
  assert_close(m->total_length_um, 120.0, 1e-12);
  unload(&plain);
  unload(&resampled);
}

static void test_resample_real_file(void **state) {
  (void)state;
  char path[4096];
  snprintf(path, sizeof path, "%s/c91662.swc", shipped_directory());
  struct loaded plain, fine, coarsest;
  load(path, 0, &plain);
  load(path, 5, &fine);
  load(path, 1e9, &coarsest);
  assert_int_equal(plain.status, HINES_OK);
  assert_int_equal(fine.status, HINES_OK);
  assert_int_equal(coarsest.status, HINES_OK);
  const struct morphology *p = &plain.morphology, *f = &fine.morphology, *c = &coarsest.morphology;
  assert_usable(f);
  assert_usable(c);
  assert_true(f->n_compartments > p->n_compartments);
  assert_int_equal(f->n_branches, p->n_branches);
  assert_int_equal(c->n_branches, p->n_branches);
  assert_int_equal(f->n_levels, p->n_levels);
  assert_close(f->total_length_um, p->total_length_um, 1e-12);
  assert_close(c->total_length_um, p->total_length_um, 1e-12);
  assert_close(membrane_area(f), membrane_area(p), 1e-12);
  assert_close(membrane_area(c), membrane_area(p), 1e-12);
  for (int i = 0; i < f->n_compartments; i++)
    assert_true(f->geometry[i].is_sphere || f->geometry[i].length_um <= 5 * (1 + 1e-6));
  /* The soma has several children, so with one piece per unbranched run every compartment
   * starts a branch. */
  assert_int_equal(c->n_compartments, c->n_branches);
  assert_close(f->geometry[0].radius_um, p->geometry[0].radius_um, 0);
  unload(&plain);
  unload(&fine);
  unload(&coarsest);
}

static void test_resample_bad_lengths_rejected(void **state) {
  (void)state;
  char path[4096];
  temporary_path(path, sizeof path, "cable_options.swc");
  write_cable(path, 100, 1.0, along_z);
  const double bad[] = {-1.0, NAN, INFINITY};
  for (int i = 0; i < 3; i++) {
    struct loaded result;
    load(path, bad[i], &result);
    assert_int_equal(result.status, HINES_BAD_INPUT);
    assert_contains(result.error.message, "is not a positive number");
    assert_morphology_empty(&result.morphology);
    unload(&result);
  }
  struct loaded result;
  load(path, 1e-7, &result); /* 1e9 compartments */
  assert_int_equal(result.status, HINES_BAD_INPUT);
  assert_contains(result.error.message, "cable_options.swc: a maximum compartment length of "
                                        "1e-07 um would give 1000000001 compartments");
  assert_morphology_empty(&result.morphology);
  unload(&result);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shipped_files_load),
      cmocka_unit_test(test_shared_files_load),
      cmocka_unit_test(test_stacked_soma_area),
      cmocka_unit_test(test_stacked_soma_area_shared),
      cmocka_unit_test(test_malformed_files),
      cmocka_unit_test(test_malformed_files_shared),
      cmocka_unit_test(test_retina_repairs_are_summarised),
      cmocka_unit_test(test_written_files),
      cmocka_unit_test(test_fifo_is_rejected_without_blocking),
      cmocka_unit_test(test_written_files_resampled),
      cmocka_unit_test(test_type_codes_kept),
      cmocka_unit_test(test_long_lines),
      cmocka_unit_test(test_directory_is_rejected),
      cmocka_unit_test(test_unreadable_paths_are_rejected),
      cmocka_unit_test(test_null_options_are_defaults),
      cmocka_unit_test(test_resample_straight_cable),
      cmocka_unit_test(test_resample_radius_is_length_weighted),
      cmocka_unit_test(test_resample_merges_and_rounds_up),
      cmocka_unit_test(test_resample_keeps_branch_points),
      cmocka_unit_test(test_resample_real_file),
      cmocka_unit_test(test_resample_bad_lengths_rejected),
  };
  return cmocka_run_group_tests(tests, create_temporary_directory, remove_temporary_directory);
}
