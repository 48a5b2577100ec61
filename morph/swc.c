/* SWC reader. Stages, each on the whole file:
 *   read every sample line (syntax and value checks, with line numbers)
 *   -> link parents by id (duplicate ids, missing parents)
 *   -> find the trees (cycles)
 *   -> keep one tree, re-rooted at the soma when needed
 *   -> repair zero radii
 *   -> NEURON geometry (the default): Import3d's sections and NEURON's segments (import3d.c)
 *      cylinders geometry: one compartment per non-soma sample plus one soma sphere, then the
 *      optional resampling (--dx)
 *   -> morphology_from_tree for the Hines order.
 * What is rejected and what is repaired (always with a warning) is listed in morph/README.md. */
#include "swc.h"

#include "cable.h"
#include "import3d.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
  SWC_FIELDS = 7,
  SWC_SOMA_TYPE = 1,
  /* Repairs of one kind beyond this many are summarised in one line rather than listed, so
   * that a file with thousands of zero radii does not bury everything else. */
  WARNINGS_PER_KIND = 10,
  MAX_RESAMPLED_COMPARTMENTS = 1 << 28,
};

/* A non-soma compartment shorter than this (coincident sample points) is lengthened to it:
 * a zero length would give an infinite axial conductance. */
static const double MIN_LENGTH_UM = 0.01;
/* Plausibility bounds for SWC numbers: 1 m, and a thousandth of a nanometre. */
static const double MAX_MICROMETRES = 1e6;
static const double MIN_RADIUS_UM = 1e-6;
/* Radius used when every sample of the file has radius 0 (nothing better to copy from). */
static const double DEFAULT_RADIUS_UM = 1.0;

static const char *const field_names[SWC_FIELDS] = {"id", "type",   "x",     "y",
                                                    "z",  "radius", "parent"};

struct swc_sample {
  long long id;
  long long parent_id;
  double x, y, z;
  double radius_um;
  long line;
  int type;
};

struct reader {
  const char *path; /* as given; "-" is standard input */
  const char *name; /* for messages: the path, or "stdin" */
  /* Micrometres per unit of the file's numbers: 1 unless a header comment states other units
   * (see header_units). */
  double scale;
  FILE *warnings;
  enum swc_geometry geometry_kind;
  double max_compartment_um;
  struct import3d_discretisation discretisation; /* NEURON geometry */

  /* Every sample of the file, in file order. */
  struct swc_sample *samples;
  int n_samples;
  int capacity;
  int *parent; /* index into samples, -1 for a root */

  /* The tree that is kept, renumbered in file order. */
  struct swc_sample *kept;
  int n_kept;
  int *kept_parent;
  int *child_first; /* n_kept + 1 offsets into child_list */
  int *child_list;
  int *top_down; /* breadth-first order from the root: parents before children */
  bool *in_soma; /* type-1 sample joined to the root through type-1 samples */

  /* Compartments before Hines ordering (soma first when there is one). */
  int n_compartments;
  int *compartment_parent;
  struct compartment_geometry *geometry;
};

static void reader_free(struct reader *r) {
  free(r->samples);
  free(r->parent);
  free(r->kept);
  free(r->kept_parent);
  free(r->child_first);
  free(r->child_list);
  free(r->top_down);
  free(r->in_soma);
  free(r->compartment_parent);
  free(r->geometry);
}

static int out_of_memory(const struct reader *r, struct hines_error *err) {
  return hines_fail(err, HINES_FAILURE, "%s: out of memory", r->name);
}

/* ---- warnings ---- */

/* One line "FILE:LINE: warning: ...", escaped as messages are (hines_printable): it quotes the
 * file name and may quote the file. */
__attribute__((format(printf, 3, 4))) static void warn(const struct reader *r, long line,
                                                       const char *format, ...) {
  char raw[1024], shown[1024];
  int length = snprintf(raw, sizeof raw, "%s:%ld: warning: ", r->name, line);
  if (length < 0 || (size_t)length >= sizeof raw)
    length = (int)sizeof raw - 1;
  va_list args;
  va_start(args, format);
  int more = vsnprintf(raw + length, sizeof raw - (size_t)length, format, args);
  va_end(args);
  if (more > 0)
    length += more;
  if ((size_t)length >= sizeof raw)
    length = (int)sizeof raw - 1;
  hines_printable(shown, sizeof shown, raw, (size_t)length);
  fprintf(r->warnings, "%s\n", shown);
}

/* Counts the repairs of one kind; only the first WARNINGS_PER_KIND are printed. */
struct warning_budget {
  int count;
  long first_unlisted_line;
};

static bool budget_allows(struct warning_budget *budget, long line) {
  budget->count++;
  if (budget->count == WARNINGS_PER_KIND + 1)
    budget->first_unlisted_line = line;
  return budget->count <= WARNINGS_PER_KIND;
}

static void budget_summarise(const struct reader *r, const struct warning_budget *budget,
                             const char *what) {
  if (budget->count > WARNINGS_PER_KIND)
    warn(r, budget->first_unlisted_line, "%d more %s (from this line on) repaired the same way",
         budget->count - WARNINGS_PER_KIND, what);
}

/* ---- reading sample lines ---- */

struct field_span {
  const char *start;
  size_t length;
};

/* Whole-field integer: no sign-only text, no trailing characters, no overflow. */
static bool parse_integer(const struct field_span *field, long long *value, bool *overflow) {
  char *end;
  errno = 0;
  *value = strtoll(field->start, &end, 10);
  *overflow = errno == ERANGE;
  return end == field->start + field->length && end != field->start;
}

static bool parse_real(const struct field_span *field, double *value) {
  char *end;
  *value = strtod(field->start, &end);
  return end == field->start + field->length && end != field->start;
}

static int reject_field(const struct reader *r, long line, int index, const char *problem,
                        const struct field_span *field, struct hines_error *err) {
  int shown = field->length > 40 ? 40 : (int)field->length;
  return hines_fail(err, HINES_BAD_INPUT, "%s:%ld: %s field %s: '%.*s'", r->name, line,
                    field_names[index], problem, shown, field->start);
}

/* Parses one line (already cut at '#'). *is_sample is false for a blank line. */
static int parse_line(const struct reader *r, const char *text, long line,
                      struct swc_sample *sample, bool *is_sample, struct hines_error *err) {
  static const char separators[] = " \t\r\n\v\f";
  struct field_span fields[SWC_FIELDS];
  int n_fields = 0;
  const char *cursor = text + strspn(text, separators);
  const char *content = cursor;
  while (*cursor) {
    size_t length = strcspn(cursor, separators);
    if (n_fields < SWC_FIELDS)
      fields[n_fields] = (struct field_span){cursor, length};
    n_fields++;
    cursor += length;
    cursor += strspn(cursor, separators);
  }
  *is_sample = n_fields > 0;
  if (n_fields == 0)
    return HINES_OK;
  if (n_fields != SWC_FIELDS) {
    int shown = (int)strcspn(content, "\r\n");
    return hines_fail(err, HINES_BAD_INPUT,
                      "%s:%ld: expected 7 fields (id type x y z radius parent), found %d: "
                      "'%.*s'",
                      r->name, line, n_fields, shown > 60 ? 60 : shown, content);
  }

  long long integers[SWC_FIELDS];
  double reals[SWC_FIELDS];
  for (int f = 0; f < SWC_FIELDS; f++) {
    bool integer_field = f == 0 || f == 1 || f == 6;
    if (integer_field) {
      bool overflow;
      if (!parse_integer(&fields[f], &integers[f], &overflow))
        return reject_field(r, line, f, "is not an integer", &fields[f], err);
      if (overflow || (f == 1 && (integers[f] < INT_MIN || integers[f] > INT_MAX)))
        return reject_field(r, line, f, "is out of range", &fields[f], err);
    } else {
      if (!parse_real(&fields[f], &reals[f]))
        return reject_field(r, line, f, "is not a number", &fields[f], err);
      if (!isfinite(reals[f]))
        return reject_field(r, line, f, "is not a finite number", &fields[f], err);
    }
  }
  *sample = (struct swc_sample){.id = integers[0],
                                .type = (int)integers[1],
                                .x = reals[2] * r->scale,
                                .y = reals[3] * r->scale,
                                .z = reals[4] * r->scale,
                                .radius_um = reals[5] * r->scale,
                                .parent_id = integers[6],
                                .line = line};
  if (sample->id < 0)
    return hines_fail(err, HINES_BAD_INPUT, "%s:%ld: negative sample id %lld", r->name, line,
                      sample->id);
  if (sample->parent_id < -1)
    return hines_fail(err, HINES_BAD_INPUT,
                      "%s:%ld: parent %lld of sample %lld is invalid (a root has parent -1)",
                      r->name, line, sample->parent_id, sample->id);
  if (sample->parent_id == sample->id)
    return hines_fail(err, HINES_BAD_INPUT, "%s:%ld: sample %lld is its own parent", r->name, line,
                      sample->id);
  if (sample->radius_um < 0)
    return hines_fail(err, HINES_BAD_INPUT, "%s:%ld: negative radius %g of sample %lld", r->name,
                      line, sample->radius_um, sample->id);
  /* Finite but absurd numbers would overflow or underflow the cable coefficients (a neuron is
   * not a kilometre long, nor a compartment thinner than an atom): refuse them here, where the
   * line is known. Zero radii stay allowed; they are repaired later. */
  if (sample->radius_um > MAX_MICROMETRES ||
      (sample->radius_um > 0 && sample->radius_um < MIN_RADIUS_UM))
    return hines_fail(err, HINES_BAD_INPUT,
                      "%s:%ld: radius %g um of sample %lld is outside %g..%g um", r->name, line,
                      sample->radius_um, sample->id, MIN_RADIUS_UM, MAX_MICROMETRES);
  if (fabs(sample->x) > MAX_MICROMETRES || fabs(sample->y) > MAX_MICROMETRES ||
      fabs(sample->z) > MAX_MICROMETRES)
    return hines_fail(err, HINES_BAD_INPUT,
                      "%s:%ld: coordinates of sample %lld are beyond %g um from the origin",
                      r->name, line, sample->id, MAX_MICROMETRES);
  return HINES_OK;
}

static int append_sample(struct reader *r, const struct swc_sample *sample,
                         struct hines_error *err) {
  if (r->n_samples == r->capacity) {
    if (r->capacity > INT_MAX / 4)
      return hines_fail(err, HINES_BAD_INPUT, "%s:%ld: too many samples", r->name, sample->line);
    int capacity = r->capacity ? 2 * r->capacity : 1024;
    struct swc_sample *grown = realloc(r->samples, (size_t)capacity * sizeof *grown);
    if (!grown)
      return out_of_memory(r, err);
    r->samples = grown;
    r->capacity = capacity;
  }
  r->samples[r->n_samples++] = *sample;
  return HINES_OK;
}

/* ---- units stated in the header ---- */

/* Length units a header comment may state, and micrometres per unit. */
static const struct {
  const char *word;
  double micrometres;
  const char *plural; /* for the warning */
} length_units[] = {
    {"um", 1, "micrometres"},
    {"\xc2\xb5m", 1, "micrometres"},
    {"\xce\xbcm", 1, "micrometres"},
    {"micron", 1, "micrometres"},
    {"microns", 1, "micrometres"},
    {"micrometer", 1, "micrometres"},
    {"micrometers", 1, "micrometres"},
    {"micrometre", 1, "micrometres"},
    {"micrometres", 1, "micrometres"},
    {"nm", 1e-3, "nanometres"},
    {"nanometer", 1e-3, "nanometres"},
    {"nanometers", 1e-3, "nanometres"},
    {"nanometre", 1e-3, "nanometres"},
    {"nanometres", 1e-3, "nanometres"},
    {"mm", 1e3, "millimetres"},
    {"millimeter", 1e3, "millimetres"},
    {"millimeters", 1e3, "millimetres"},
    {"millimetre", 1e3, "millimetres"},
    {"millimetres", 1e3, "millimetres"},
    {"m", 1e6, "metres"},
    {"meter", 1e6, "metres"},
    {"meters", 1e6, "metres"},
    {"metre", 1e6, "metres"},
    {"metres", 1e6, "metres"},
};
/* Words that may stand between "units" and the unit ("# units of the coordinates are nm"). */
static const char *const filler_words[] = {
    "are",         "is",         "in",    "of",     "the",     "all",    "for", "and",
    "coordinates", "coordinate", "radii", "radius", "lengths", "length", "xyz"};

static bool word_in(const char *word, size_t length, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strlen(list[i]) == length && strncmp(list[i], word, length) == 0)
      return true;
  return false;
}

/* A header comment (text after '#', before the first sample) that states units: the word
 * "unit" or "units" followed by a length unit, as in "# units: nm" or "# Coordinate units are
 * nanometres". Sets r->scale (with a warning unless the unit is the micrometre), or warns that
 * the unit is unknown and the file is read in micrometres. A comment that only mentions
 * nanometres or millimetres spelled out ("# traced at 200 nanometres resolution") gets a
 * warning and no conversion. Only the first units statement counts. */
static void header_units(struct reader *r, const char *comment, long line, bool *units_seen) {
  char lower[256];
  size_t n = 0;
  for (; comment[n] && comment[n] != '\n' && n < sizeof lower - 1; n++)
    lower[n] = (char)tolower((unsigned char)comment[n]);
  lower[n] = '\0';
  for (const char *at = strstr(lower, "unit"); at && !*units_seen; at = strstr(at + 1, "unit")) {
    if (at > lower && isalpha((unsigned char)at[-1]))
      continue;
    const char *cursor = at + 4 + (at[4] == 's');
    if (isalpha((unsigned char)*cursor))
      continue; /* "units" must be a word: not "unitary" */
    for (;;) {
      cursor += strspn(cursor, " \t\r:=-\"'()[],");
      size_t length = strcspn(cursor, " \t\r:=-\"'()[],.;");
      if (length == 0)
        return;
      if (word_in(cursor, length, filler_words, sizeof filler_words / sizeof *filler_words)) {
        cursor += length;
        continue;
      }
      *units_seen = true;
      for (size_t u = 0; u < sizeof length_units / sizeof *length_units; u++)
        if (strlen(length_units[u].word) == length &&
            strncmp(length_units[u].word, cursor, length) == 0) {
          r->scale = length_units[u].micrometres;
          if (r->scale != 1)
            warn(r, line,
                 "the header gives the units as %s; coordinates and radii converted to "
                 "micrometres (multiplied by %g)",
                 length_units[u].plural, r->scale);
          return;
        }
      warn(r, line,
           "the header gives the units as '%.*s', which this reader does not know; the numbers "
           "are read as micrometres (SWC's unit)",
           (int)(length > 40 ? 40 : length), cursor);
      return;
    }
  }
  if (!*units_seen && (strstr(lower, "nanomet") || strstr(lower, "millimet")))
    warn(r, line,
         "the header mentions %s but states no units; the numbers are read as micrometres "
         "(SWC's unit; a header line such as '# units: nm' makes the reader convert them)",
         strstr(lower, "nanomet") ? "nanometres" : "millimetres");
}

/* ---- opening ---- */

static const char *file_kind(mode_t mode) {
  return S_ISFIFO(mode)   ? "a FIFO"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a regular file";
}

/* Opens r->path for reading: a regular file, or standard input for "-". The file is opened
 * without blocking and checked before any read, so a FIFO or a device is refused rather than
 * waited on. */
static int open_input(const struct reader *r, FILE **out, struct hines_error *err) {
  *out = NULL;
  if (strcmp(r->path, "-") == 0) {
    *out = stdin;
    return HINES_OK;
  }
  int fd = open(r->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return hines_fail(err, HINES_BAD_INPUT, "%s: cannot open: %s", r->name, strerror(errno));
  struct stat info;
  if (fstat(fd, &info) != 0) {
    int error = errno;
    close(fd);
    return hines_fail(err, HINES_BAD_INPUT, "%s: cannot open: %s", r->name, strerror(error));
  }
  if (S_ISDIR(info.st_mode)) {
    close(fd);
    return hines_fail(err, HINES_BAD_INPUT, "%s: cannot open: %s", r->name, strerror(EISDIR));
  }
  if (!S_ISREG(info.st_mode)) {
    close(fd);
    return hines_fail(err, HINES_BAD_INPUT,
                      "%s: is %s, not a regular file (give a file, or - for standard input)",
                      r->name, file_kind(info.st_mode));
  }
  int flags = fcntl(fd, F_GETFL);
  FILE *file = flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 ? NULL : fdopen(fd, "r");
  if (!file) {
    int error = errno;
    close(fd);
    return hines_fail(err, HINES_FAILURE, "%s: cannot open: %s", r->name, strerror(error));
  }
  *out = file;
  return HINES_OK;
}

static int read_samples(struct reader *r, struct hines_error *err) {
  FILE *file;
  int status = open_input(r, &file, err);
  if (status != HINES_OK)
    return status;
  char *text = NULL;
  size_t size = 0;
  long line = 0;
  bool units_seen = false;
  ssize_t length;
  errno = 0;
  while ((length = getline(&text, &size, file)) >= 0) {
    line++;
    char *start = text;
    /* A UTF-8 byte-order mark, as some Windows editors write, is not part of the first field. */
    if (line == 1 && length >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
      start += 3;
      length -= 3;
    }
    if (memchr(start, '\0', (size_t)length)) {
      status = hines_fail(err, HINES_BAD_INPUT, "%s:%ld: NUL byte in line (not a text file?)",
                          r->name, line);
      break;
    }
    char *comment = strchr(start, '#');
    if (comment) {
      *comment = '\0';
      if (r->n_samples == 0)
        header_units(r, comment + 1, line, &units_seen);
    }
    struct swc_sample sample;
    bool is_sample;
    status = parse_line(r, start, line, &sample, &is_sample, err);
    if (status == HINES_OK && is_sample)
      status = append_sample(r, &sample, err);
    if (status != HINES_OK)
      break;
    errno = 0;
  }
  /* getline also returns -1 on an error, which must not pass for the end of the file. */
  if (status == HINES_OK && !feof(file))
    status = errno == ENOMEM
                 ? out_of_memory(r, err)
                 : hines_fail(err, HINES_BAD_INPUT, "%s: read error: %s", r->name, strerror(errno));
  free(text);
  if (file != stdin)
    fclose(file);
  if (status == HINES_OK && r->n_samples == 0)
    status = hines_fail(err, HINES_BAD_INPUT, "%s: no samples (%ld lines, all blank or comments)",
                        r->name, line);
  return status;
}

/* ---- linking parents ---- */

struct id_entry {
  long long id;
  int index;
};

static int compare_id_entries(const void *a, const void *b) {
  const struct id_entry *x = a, *y = b;
  if (x->id != y->id)
    return x->id < y->id ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

static int find_id(const struct id_entry *entries, int n, long long id) {
  int low = 0, high = n - 1;
  while (low <= high) {
    int middle = low + (high - low) / 2;
    if (entries[middle].id == id)
      return entries[middle].index;
    if (entries[middle].id < id)
      low = middle + 1;
    else
      high = middle - 1;
  }
  return -1;
}

/* Fills r->parent. Reports the duplicate, then the missing parent, that comes first in the file. */
static int link_parents(struct reader *r, struct hines_error *err) {
  int n = r->n_samples;
  struct id_entry *entries = malloc((size_t)n * sizeof *entries);
  r->parent = malloc((size_t)n * sizeof(int));
  if (!entries || !r->parent) {
    free(entries);
    return out_of_memory(r, err);
  }
  for (int k = 0; k < n; k++)
    entries[k] = (struct id_entry){r->samples[k].id, k};
  qsort(entries, (size_t)n, sizeof *entries, compare_id_entries);
  int repeat = -1, original = -1;
  for (int i = 1; i < n; i++)
    if (entries[i].id == entries[i - 1].id && (repeat < 0 || entries[i].index < repeat)) {
      repeat = entries[i].index;
      original = entries[i - 1].index;
    }
  if (repeat >= 0) {
    free(entries);
    return hines_fail(err, HINES_BAD_INPUT, "%s:%ld: duplicate id %lld (already on line %ld)",
                      r->name, r->samples[repeat].line, r->samples[repeat].id,
                      r->samples[original].line);
  }
  for (int k = 0; k < n; k++) {
    const struct swc_sample *s = &r->samples[k];
    r->parent[k] = s->parent_id == -1 ? -1 : find_id(entries, n, s->parent_id);
    if (s->parent_id != -1 && r->parent[k] < 0) {
      free(entries);
      return hines_fail(err, HINES_BAD_INPUT, "%s:%ld: parent %lld of sample %lld does not exist",
                        r->name, s->line, s->parent_id, s->id);
    }
  }
  free(entries);
  return HINES_OK;
}

/* ---- trees and cycles ---- */

static int reject_cycle(const struct reader *r, int member, struct hines_error *err) {
  /* Name the cycle from its first sample in the file, following parents. */
  int first = member;
  for (int k = r->parent[member]; k != member; k = r->parent[k])
    if (k < first)
      first = k;
  char ids[200] = "";
  size_t used = 0;
  int length = 0, k = first;
  do {
    if (used < sizeof ids - 32)
      used += (size_t)snprintf(ids + used, sizeof ids - used, "%lld -> ", r->samples[k].id);
    length++;
    k = r->parent[k];
  } while (k != first);
  if (used < sizeof ids - 32)
    snprintf(ids + used, sizeof ids - used, "%lld", r->samples[first].id);
  else
    snprintf(ids + used, sizeof ids - used, "...");
  return hines_fail(err, HINES_BAD_INPUT,
                    "%s:%ld: sample %lld is in a cycle of %d samples with no root (%s)", r->name,
                    r->samples[first].line, r->samples[first].id, length, ids);
}

/* root_of[k]: the root reached by following parents from k. Rejects a cycle (its first sample
 * in the file), even when a valid tree exists beside it. */
static int find_roots(const struct reader *r, int *root_of, struct hines_error *err) {
  int n = r->n_samples;
  enum { UNSEEN, ON_PATH, DONE };
  unsigned char *state = calloc((size_t)n, 1);
  int *path = malloc((size_t)n * sizeof(int));
  if (!state || !path) {
    free(state);
    free(path);
    return out_of_memory(r, err);
  }
  int cycle_member = -1; /* the cycle member earliest in the file so far */
  for (int start = 0; start < n; start++) {
    if (state[start] != UNSEEN)
      continue;
    int length = 0, k = start;
    while (k >= 0 && state[k] == UNSEEN) {
      state[k] = ON_PATH;
      path[length++] = k;
      k = r->parent[k];
    }
    int root;
    if (k < 0) {
      root = path[length - 1];
    } else if (state[k] == ON_PATH) {
      root = -1;
      int first = k;
      for (int j = r->parent[k]; j != k; j = r->parent[j])
        if (j < first)
          first = j;
      if (cycle_member < 0 || first < cycle_member)
        cycle_member = first;
    } else {
      root = root_of[k];
    }
    for (int i = 0; i < length; i++) {
      state[path[i]] = DONE;
      root_of[path[i]] = root;
    }
  }
  free(state);
  free(path);
  if (cycle_member >= 0)
    return reject_cycle(r, cycle_member, err);
  return HINES_OK;
}

/* Turns the parent pointers on the path from `new_root` to the current root around. */
static void reroot(int *parent, int new_root) {
  int previous = -1, k = new_root;
  while (k >= 0) {
    int next = parent[k];
    parent[k] = previous;
    previous = k;
    k = next;
  }
}

/* Keeps the tree holding the soma (the largest such tree if several do), else the largest
 * tree; drops the others with a warning. Re-roots the kept tree at its first soma sample when
 * the root is not a soma sample. Fills r->kept and r->kept_parent. */
static int keep_one_tree(struct reader *r, struct hines_error *err) {
  int n = r->n_samples;
  int *root_of = malloc((size_t)n * sizeof(int));
  int *tree_size = calloc((size_t)n, sizeof(int));
  bool *tree_has_soma = calloc((size_t)n, sizeof(bool));
  int *new_index = malloc((size_t)n * sizeof(int));
  int status = HINES_OK;
  if (!root_of || !tree_size || !tree_has_soma || !new_index) {
    status = out_of_memory(r, err);
    goto done;
  }
  status = find_roots(r, root_of, err);
  if (status != HINES_OK)
    goto done;
  for (int k = 0; k < n; k++) {
    tree_size[root_of[k]]++;
    if (r->samples[k].type == SWC_SOMA_TYPE)
      tree_has_soma[root_of[k]] = true;
  }
  int kept_root = -1;
  for (int k = 0; k < n; k++)
    if (r->parent[k] == -1 &&
        (kept_root < 0 || tree_has_soma[k] > tree_has_soma[kept_root] ||
         (tree_has_soma[k] == tree_has_soma[kept_root] && tree_size[k] > tree_size[kept_root])))
      kept_root = k;

  struct warning_budget dropped_budget = {0};
  int dropped_samples = 0;
  const char *why = tree_has_soma[kept_root] ? "the largest tree with a soma"
                                             : "the largest tree; no tree has a soma";
  for (int k = 0; k < n; k++) {
    if (r->parent[k] != -1 || k == kept_root)
      continue;
    dropped_samples += tree_size[k];
    if (budget_allows(&dropped_budget, r->samples[k].line))
      warn(r, r->samples[k].line,
           "sample %lld is another root (parent -1); dropped its tree of %d sample%s, keeping "
           "the tree rooted at sample %lld (line %ld), %s",
           r->samples[k].id, tree_size[k], tree_size[k] == 1 ? "" : "s", r->samples[kept_root].id,
           r->samples[kept_root].line, why);
  }
  budget_summarise(r, &dropped_budget, "disconnected trees");
  if (dropped_budget.count > 1)
    warn(r, r->samples[kept_root].line, "dropped %d samples in %d disconnected trees in all",
         dropped_samples, dropped_budget.count);

  if (r->samples[kept_root].type != SWC_SOMA_TYPE && tree_has_soma[kept_root]) {
    int soma = 0;
    while (root_of[soma] != kept_root || r->samples[soma].type != SWC_SOMA_TYPE)
      soma++;
    warn(r, r->samples[soma].line,
         "soma sample %lld is not the root of its tree (sample %lld on line %ld is); re-rooted "
         "the tree at the soma",
         r->samples[soma].id, r->samples[kept_root].id, r->samples[kept_root].line);
    reroot(r->parent, soma);
  }

  r->n_kept = tree_size[kept_root];
  r->kept = malloc((size_t)r->n_kept * sizeof *r->kept);
  r->kept_parent = malloc((size_t)r->n_kept * sizeof(int));
  if (!r->kept || !r->kept_parent) {
    status = out_of_memory(r, err);
    goto done;
  }
  int kept = 0;
  for (int k = 0; k < n; k++)
    if (root_of[k] == kept_root) {
      new_index[k] = kept;
      r->kept[kept++] = r->samples[k];
    }
  for (int k = 0; k < n; k++)
    if (root_of[k] == kept_root)
      r->kept_parent[new_index[k]] = r->parent[k] < 0 ? -1 : new_index[r->parent[k]];
done:
  free(root_of);
  free(tree_size);
  free(tree_has_soma);
  free(new_index);
  return status;
}

/* Children lists and a top-down order of the kept tree; marks the soma samples. */
static int index_kept_tree(struct reader *r, struct hines_error *err) {
  int n = r->n_kept;
  r->child_first = calloc((size_t)n + 1, sizeof(int));
  r->child_list = malloc((size_t)n * sizeof(int));
  r->top_down = malloc((size_t)n * sizeof(int));
  r->in_soma = calloc((size_t)n, sizeof(bool));
  int *fill = calloc((size_t)n, sizeof(int));
  if (!r->child_first || !r->child_list || !r->top_down || !r->in_soma || !fill) {
    free(fill);
    return out_of_memory(r, err);
  }
  int root = -1;
  for (int k = 0; k < n; k++) {
    if (r->kept_parent[k] < 0)
      root = k;
    else
      r->child_first[r->kept_parent[k] + 1]++;
  }
  for (int k = 0; k < n; k++)
    r->child_first[k + 1] += r->child_first[k];
  for (int k = 0; k < n; k++) {
    int p = r->kept_parent[k];
    if (p >= 0)
      r->child_list[r->child_first[p] + fill[p]++] = k;
  }
  free(fill);
  int head = 0, tail = 0;
  r->top_down[tail++] = root;
  while (head < tail) {
    int k = r->top_down[head++];
    for (int c = r->child_first[k]; c < r->child_first[k + 1]; c++)
      r->top_down[tail++] = r->child_list[c];
  }
  for (int i = 0; i < n; i++) {
    int k = r->top_down[i], p = r->kept_parent[k];
    r->in_soma[k] = r->kept[k].type == SWC_SOMA_TYPE && (p < 0 || r->in_soma[p]);
  }
  struct warning_budget budget = {0};
  for (int k = 0; k < n; k++)
    if (r->kept[k].type == SWC_SOMA_TYPE && !r->in_soma[k] &&
        budget_allows(&budget, r->kept[k].line))
      warn(r, r->kept[k].line,
           "soma sample %lld is not joined to the soma at the root through soma samples; it "
           "becomes %s",
           r->kept[k].id,
           r->geometry_kind == SWC_GEOMETRY_NEURON
               ? "a soma section of its own, as in NEURON's Import3d"
               : "an ordinary cylinder compartment");
  budget_summarise(r, &budget, "detached soma samples");
  return HINES_OK;
}

struct type_entry {
  int type;
  int index;
};

static int compare_type_entries(const void *a, const void *b) {
  const struct type_entry *x = a, *y = b;
  if (x->type != y->type)
    return x->type < y->type ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* Codes outside 1-4 are kept (NeuroMorpho uses 5+ for custom labels); one warning per code. */
static int warn_type_codes(const struct reader *r, struct hines_error *err) {
  int n = r->n_kept, n_odd = 0;
  for (int k = 0; k < n; k++)
    n_odd += r->kept[k].type < 1 || r->kept[k].type > 4;
  if (n_odd == 0)
    return HINES_OK;
  struct type_entry *odd = malloc((size_t)n_odd * sizeof *odd);
  if (!odd)
    return out_of_memory(r, err);
  n_odd = 0;
  for (int k = 0; k < n; k++)
    if (r->kept[k].type < 1 || r->kept[k].type > 4)
      odd[n_odd++] = (struct type_entry){r->kept[k].type, k};
  qsort(odd, (size_t)n_odd, sizeof *odd, compare_type_entries);
  struct warning_budget budget = {0};
  for (int i = 0; i < n_odd;) {
    int j = i;
    while (j < n_odd && odd[j].type == odd[i].type)
      j++;
    const struct swc_sample *first = &r->kept[odd[i].index];
    if (budget_allows(&budget, first->line))
      warn(r, first->line,
           "sample %lld has non-standard type code %d (1 soma, 2 axon, 3 basal, 4 apical), as "
           "do %d sample%s in all; kept as given",
           first->id, odd[i].type, j - i, j - i == 1 ? "" : "s");
    i = j;
  }
  budget_summarise(r, &budget, "non-standard type codes");
  free(odd);
  return HINES_OK;
}

/* ---- radii ---- */

/* Multi-source breadth-first search over the undirected tree: nearest[k] is the seed fewest
 * edges away from k (-1 when there is no seed), distance[k] that number of edges. */
static void nearest_seed(const struct reader *r, const bool *is_seed, int *nearest, int *distance,
                         int *queue) {
  int n = r->n_kept, head = 0, tail = 0;
  for (int k = 0; k < n; k++) {
    nearest[k] = is_seed[k] ? k : -1;
    distance[k] = is_seed[k] ? 0 : INT_MAX;
    if (is_seed[k])
      queue[tail++] = k;
  }
  while (head < tail) {
    int k = queue[head++];
    int parent = r->kept_parent[k];
    if (parent >= 0 && nearest[parent] < 0) {
      nearest[parent] = nearest[k];
      distance[parent] = distance[k] + 1;
      queue[tail++] = parent;
    }
    for (int c = r->child_first[k]; c < r->child_first[k + 1]; c++) {
      int child = r->child_list[c];
      if (nearest[child] < 0) {
        nearest[child] = nearest[k];
        distance[child] = distance[k] + 1;
        queue[tail++] = child;
      }
    }
  }
}

/* A zero radius takes, in this order: the parent's radius when the parent is of the same kind
 * (soma or neurite) and non-zero; the nearest non-zero radius of the same kind along the tree;
 * the nearest non-zero radius of any kind; 1 um when the whole file has radius 0. Decisions
 * use the radii as read, so repairs do not chain. */
static int repair_radii(struct reader *r, struct hines_error *err) {
  int n = r->n_kept, n_zero = 0;
  for (int k = 0; k < n; k++)
    n_zero += r->kept[k].radius_um == 0;
  if (n_zero == 0)
    return HINES_OK;
  if (n_zero == n) {
    warn(r, r->kept[0].line, "all %d samples have radius 0; using %g um for every sample", n,
         DEFAULT_RADIUS_UM);
    for (int k = 0; k < n; k++)
      r->kept[k].radius_um = DEFAULT_RADIUS_UM;
    return HINES_OK;
  }
  bool *is_seed = malloc((size_t)n * sizeof(bool));
  int *nearest[2], *distance[2];
  nearest[0] = malloc((size_t)n * sizeof(int));
  nearest[1] = malloc((size_t)n * sizeof(int));
  distance[0] = malloc((size_t)n * sizeof(int));
  distance[1] = malloc((size_t)n * sizeof(int));
  int *queue = malloc((size_t)n * sizeof(int));
  double *repaired = malloc((size_t)n * sizeof(double));
  int status = HINES_OK;
  if (!is_seed || !nearest[0] || !nearest[1] || !distance[0] || !distance[1] || !queue ||
      !repaired) {
    status = out_of_memory(r, err);
    goto done;
  }
  /* kind 1: soma samples, kind 0: everything else */
  for (int kind = 0; kind < 2; kind++) {
    for (int k = 0; k < n; k++)
      is_seed[k] = r->kept[k].radius_um > 0 && (r->kept[k].type == SWC_SOMA_TYPE) == kind;
    nearest_seed(r, is_seed, nearest[kind], distance[kind], queue);
  }
  struct warning_budget budget = {0};
  for (int k = 0; k < n; k++) {
    const struct swc_sample *s = &r->kept[k];
    repaired[k] = s->radius_um;
    if (s->radius_um > 0)
      continue;
    int kind = s->type == SWC_SOMA_TYPE, parent = r->kept_parent[k];
    int source;
    const char *how;
    if (parent >= 0 && r->kept[parent].radius_um > 0 &&
        (r->kept[parent].type == SWC_SOMA_TYPE) == kind) {
      source = parent;
      how = "its parent";
    } else if (nearest[kind][k] >= 0) {
      source = nearest[kind][k];
      how = kind ? "the nearest soma sample with a non-zero radius"
                 : "the nearest non-soma sample with a non-zero radius";
    } else {
      source = nearest[!kind][k];
      how = kind ? "the nearest sample with a non-zero radius (no soma sample has one)"
                 : "the nearest sample with a non-zero radius (only soma samples have one)";
    }
    repaired[k] = r->kept[source].radius_um;
    if (budget_allows(&budget, s->line))
      warn(r, s->line, "sample %lld has radius 0; using %g um from %s, sample %lld (line %ld)",
           s->id, repaired[k], how, r->kept[source].id, r->kept[source].line);
  }
  budget_summarise(r, &budget, "samples with radius 0");
  for (int k = 0; k < n; k++)
    r->kept[k].radius_um = repaired[k];
done:
  free(is_seed);
  free(nearest[0]);
  free(nearest[1]);
  free(distance[0]);
  free(distance[1]);
  free(queue);
  free(repaired);
  return status;
}

/* ---- compartments ---- */

static double distance_um(const struct swc_sample *a, const struct swc_sample *b) {
  double dx = a->x - b->x, dy = a->y - b->y, dz = a->z - b->z;
  return sqrt(dx * dx + dy * dy + dz * dz);
}

/* Radius of the sphere standing for the soma samples (r->in_soma; the root is one of them).
 * 1 sample: its radius. 3 samples of which one is the parent of the other two (NeuroMorpho's
 * standard soma): that centre's radius. Otherwise the samples form a stack of truncated cones
 * (cylinders where both radii are equal) and the sphere gets the same lateral area. */
static double soma_sphere_radius(const struct reader *r, int root) {
  int n_soma = 0;
  for (int k = 0; k < r->n_kept; k++)
    n_soma += r->in_soma[k];
  if (n_soma == 1)
    return r->kept[root].radius_um;
  if (n_soma == 3)
    for (int k = 0; k < r->n_kept; k++) {
      if (!r->in_soma[k])
        continue;
      int soma_children = 0;
      for (int c = r->child_first[k]; c < r->child_first[k + 1]; c++)
        soma_children += r->in_soma[r->child_list[c]];
      if (soma_children == 2)
        return r->kept[k].radius_um;
    }
  double area = 0, largest_radius = 0;
  for (int k = 0; k < r->n_kept; k++) {
    if (!r->in_soma[k])
      continue;
    if (r->kept[k].radius_um > largest_radius)
      largest_radius = r->kept[k].radius_um;
    if (k == root)
      continue;
    const struct swc_sample *s = &r->kept[k], *p = &r->kept[r->kept_parent[k]];
    double slant = hypot(distance_um(s, p), s->radius_um - p->radius_um);
    area += M_PI * (s->radius_um + p->radius_um) * slant;
  }
  if (area > 0)
    return sqrt(area / (4.0 * M_PI));
  warn(r, r->kept[root].line,
       "the %d soma samples all lie at one point; the soma is a sphere of their largest radius, "
       "%g um",
       n_soma, largest_radius);
  return largest_radius;
}

/* One compartment per non-soma sample (length to its parent sample, the sample's radius), one
 * sphere for all soma samples, which also takes the samples attached to any soma sample. */
static int build_compartments(struct reader *r, struct hines_error *err) {
  int n = r->n_kept, root = r->top_down[0];
  bool has_soma = r->in_soma[root];
  int n_soma = 0;
  for (int k = 0; k < n; k++)
    n_soma += r->in_soma[k];
  r->n_compartments = has_soma ? n - n_soma + 1 : n;
  r->compartment_parent = malloc((size_t)r->n_compartments * sizeof(int));
  r->geometry = malloc((size_t)r->n_compartments * sizeof *r->geometry);
  int *compartment_of = malloc((size_t)n * sizeof(int));
  if (!r->compartment_parent || !r->geometry || !compartment_of) {
    free(compartment_of);
    return out_of_memory(r, err);
  }
  int next = 0;
  if (has_soma) {
    r->compartment_parent[0] = -1;
    r->geometry[0] = (struct compartment_geometry){.length_um = 0.0,
                                                   .radius_um = soma_sphere_radius(r, root),
                                                   .swc_type = SWC_SOMA_TYPE,
                                                   .is_sphere = 1};
    next = 1;
  }
  for (int k = 0; k < n; k++)
    compartment_of[k] = r->in_soma[k] ? 0 : next++;
  struct warning_budget budget = {0};
  for (int k = 0; k < n; k++) {
    if (r->in_soma[k])
      continue;
    const struct swc_sample *s = &r->kept[k];
    int c = compartment_of[k], parent = r->kept_parent[k];
    double length;
    if (parent < 0) {
      /* A root without a soma has no segment of its own; a length of one radius gives it a
       * membrane area comparable to its neighbours. */
      length = s->radius_um;
    } else {
      const struct swc_sample *p = &r->kept[parent];
      length = distance_um(s, p);
      if (length < MIN_LENGTH_UM) {
        if (budget_allows(&budget, s->line))
          warn(r, s->line,
               "sample %lld is %g um from its parent sample %lld; compartment length raised to "
               "%g um",
               s->id, length, p->id, MIN_LENGTH_UM);
        length = MIN_LENGTH_UM;
      }
    }
    r->compartment_parent[c] = parent < 0 ? -1 : compartment_of[parent];
    r->geometry[c] = (struct compartment_geometry){
        .length_um = length, .radius_um = s->radius_um, .swc_type = s->type, .is_sphere = 0};
  }
  budget_summarise(r, &budget, "coincident sample points");
  free(compartment_of);
  return HINES_OK;
}

/* ---- resampling ---- */

struct compartment_tree {
  int n;
  const int *parent;
  const struct compartment_geometry *geometry;
  int *child_first;
  int *child_list;
};

static int only_child(const struct compartment_tree *t, int c) {
  return t->child_first[c + 1] - t->child_first[c] == 1 ? t->child_list[t->child_first[c]] : -1;
}

/* Pieces an unbranched run of total length `path_um` is cut into: ceil(path / dx), except that
 * an excess of at most 1e-6 of a piece counts as rounding error of the summed lengths (100 um
 * sampled every 0.1 um at dx = 10 gives 10 pieces, not 11). */
static double pieces_for(double path_um, double dx_um) {
  double ratio = path_um / dx_um, pieces = ceil(ratio);
  if (pieces > 1 && ratio - (pieces - 1) <= 1e-6)
    pieces -= 1;
  return pieces < 1 ? 1 : pieces;
}

/* Cuts the run that starts at compartment `first` (its parent is the root or a branch point)
 * and goes on through only children to a branch point or leaf into equal pieces. A piece's
 * radius is the length-weighted mean of the radii it covers, which keeps the membrane area;
 * its type is that of the compartment under its midpoint. Returns the last source compartment
 * of the run; writes pieces from *next on when `geometry` is not NULL. */
static int cut_run(const struct compartment_tree *t, int first, double dx_um, int attach_to,
                   int *parent_out, struct compartment_geometry *geometry_out, int *next,
                   double *n_pieces) {
  double path = 0;
  int last = first;
  for (int c = first; c >= 0; c = only_child(t, c)) {
    path += t->geometry[c].length_um;
    last = c;
  }
  double pieces = pieces_for(path, dx_um);
  *n_pieces = pieces;
  if (!geometry_out)
    return last;
  int k = (int)pieces;
  double piece_length = path / k;
  int source = first;
  double source_start = 0; /* path position where `source` begins */
  for (int i = 0; i < k; i++) {
    double start = path * i / k, end = i == k - 1 ? path : path * (i + 1) / k;
    double middle = 0.5 * (start + end), radius_integral = 0;
    int type = t->geometry[source].swc_type;
    for (;;) {
      double source_end = source_start + t->geometry[source].length_um;
      double overlap = fmin(end, source_end) - fmax(start, source_start);
      if (overlap > 0)
        radius_integral += overlap * t->geometry[source].radius_um;
      if (source_start <= middle)
        type = t->geometry[source].swc_type;
      if (source_end >= end || source == last)
        break;
      source_start = source_end;
      source = only_child(t, source);
    }
    int index = (*next)++;
    parent_out[index] = i == 0 ? attach_to : index - 1;
    geometry_out[index] =
        (struct compartment_geometry){.length_um = piece_length,
                                      .radius_um = radius_integral / (end - start),
                                      .swc_type = type,
                                      .is_sphere = 0};
  }
  return last;
}

/* Replaces the compartments by runs of equal pieces of at most dx (see cut_run). The root
 * (soma or root sample) and every branch point and leaf keep their place in the tree. */
static int resample(struct reader *r, struct hines_error *err) {
  int n = r->n_compartments;
  double dx = r->max_compartment_um;
  struct compartment_tree t = {.n = n, .parent = r->compartment_parent, .geometry = r->geometry};
  t.child_first = calloc((size_t)n + 1, sizeof(int));
  t.child_list = malloc((size_t)n * sizeof(int));
  int *fill = calloc((size_t)n, sizeof(int));
  int *stack = malloc((size_t)n * sizeof(int));
  int *new_index = malloc((size_t)n * sizeof(int)); /* for the root and run ends only */
  int *new_parent = NULL;
  struct compartment_geometry *new_geometry = NULL;
  int status = HINES_OK;
  if (!t.child_first || !t.child_list || !fill || !stack || !new_index) {
    status = out_of_memory(r, err);
    goto done;
  }
  int root = -1;
  for (int c = 0; c < n; c++) {
    if (r->compartment_parent[c] < 0)
      root = c;
    else
      t.child_first[r->compartment_parent[c] + 1]++;
  }
  for (int c = 0; c < n; c++)
    t.child_first[c + 1] += t.child_first[c];
  for (int c = 0; c < n; c++) {
    int p = r->compartment_parent[c];
    if (p >= 0)
      t.child_list[t.child_first[p] + fill[p]++] = c;
  }

  /* Two passes over the runs from the root outwards: count, then write. */
  double total = 1;
  int n_new = 0;
  for (int pass = 0; pass < 2; pass++) {
    int top = 0, next = 1;
    stack[top++] = root;
    new_index[root] = 0;
    if (pass == 1) {
      new_parent[0] = -1;
      new_geometry[0] = r->geometry[root];
    }
    while (top > 0) {
      int junction = stack[--top];
      for (int c = t.child_first[junction]; c < t.child_first[junction + 1]; c++) {
        double pieces;
        int last = cut_run(&t, t.child_list[c], dx, pass == 1 ? new_index[junction] : -1,
                           new_parent, pass == 1 ? new_geometry : NULL, &next, &pieces);
        if (pass == 0) {
          total += pieces;
        } else {
          new_index[last] = next - 1;
        }
        stack[top++] = last;
      }
    }
    if (pass == 0) {
      if (total > MAX_RESAMPLED_COMPARTMENTS) {
        status = hines_fail(err, HINES_BAD_INPUT,
                            "%s: a maximum compartment length of %g um would give %.0f "
                            "compartments (at most %d allowed)",
                            r->name, dx, total, MAX_RESAMPLED_COMPARTMENTS);
        goto done;
      }
      n_new = (int)total;
      new_parent = malloc((size_t)n_new * sizeof(int));
      new_geometry = malloc((size_t)n_new * sizeof *new_geometry);
      if (!new_parent || !new_geometry) {
        status = out_of_memory(r, err);
        goto done;
      }
    }
  }
  free(r->compartment_parent);
  free(r->geometry);
  r->compartment_parent = new_parent;
  r->geometry = new_geometry;
  r->n_compartments = n_new;
  new_parent = NULL;
  new_geometry = NULL;
done:
  free(t.child_first);
  free(t.child_list);
  free(fill);
  free(stack);
  free(new_index);
  free(new_parent);
  free(new_geometry);
  return status;
}

/* ---- NEURON geometry ---- */

static int compare_ids(const void *a, const void *b) {
  const struct id_entry *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

/* Import3d reads samples in id order and needs every parent before its children. That is the
 * order of every well-formed file; where the repairs made it false (re-rooting) or the file
 * lists children first, the tree is walked depth-first from the root, children in id order. */
static int import3d_order(const struct reader *r, int *order) {
  int n = r->n_kept, root = r->top_down[0];
  struct id_entry *by_id = malloc((size_t)n * sizeof *by_id);
  int *position = malloc((size_t)n * sizeof(int));
  if (!by_id || !position) {
    free(by_id);
    free(position);
    return HINES_FAILURE;
  }
  for (int k = 0; k < n; k++)
    by_id[k] = (struct id_entry){r->kept[k].id, k};
  qsort(by_id, (size_t)n, sizeof *by_id, compare_ids);
  for (int i = 0; i < n; i++)
    position[by_id[i].index] = i;
  bool parents_first = by_id[0].index == root;
  for (int k = 0; k < n && parents_first; k++)
    parents_first = r->kept_parent[k] < 0 || position[r->kept_parent[k]] < position[k];
  if (parents_first) {
    for (int i = 0; i < n; i++)
      order[i] = by_id[i].index;
  } else {
    /* Depth-first preorder; the stack gets the children in reverse id order. */
    int *stack = malloc((size_t)n * sizeof(int));
    int *children = malloc((size_t)n * sizeof(int));
    if (!stack || !children) {
      free(stack);
      free(children);
      free(by_id);
      free(position);
      return HINES_FAILURE;
    }
    int top = 0, visited = 0;
    stack[top++] = root;
    while (top > 0) {
      int k = stack[--top];
      order[visited++] = k;
      int count = 0;
      for (int c = r->child_first[k]; c < r->child_first[k + 1]; c++)
        children[count++] = r->child_list[c];
      /* insertion sort by id: children lists are short */
      for (int i = 1; i < count; i++)
        for (int j = i; j > 0 && position[children[j]] < position[children[j - 1]]; j--) {
          int t = children[j];
          children[j] = children[j - 1];
          children[j - 1] = t;
        }
      for (int i = count - 1; i >= 0; i--)
        stack[top++] = children[i];
    }
    free(stack);
    free(children);
  }
  free(by_id);
  free(position);
  return HINES_OK;
}

/* The compartments NEURON makes of the repaired tree (import3d.c). */
static int build_neuron_compartments(struct reader *r, struct hines_error *err) {
  int n = r->n_kept;
  int *order = malloc((size_t)n * sizeof(int));
  int *position = malloc((size_t)n * sizeof(int));
  struct import3d_sample *samples = malloc((size_t)n * sizeof *samples);
  if (!order || !position || !samples || import3d_order(r, order) != HINES_OK) {
    free(order);
    free(position);
    free(samples);
    return out_of_memory(r, err);
  }
  for (int i = 0; i < n; i++)
    position[order[i]] = i;
  for (int i = 0; i < n; i++) {
    const struct swc_sample *s = &r->kept[order[i]];
    int parent = r->kept_parent[order[i]];
    samples[i] = (struct import3d_sample){.x = s->x,
                                          .y = s->y,
                                          .z = s->z,
                                          .radius_um = s->radius_um,
                                          .type = s->type,
                                          .parent = parent < 0 ? -1 : position[parent],
                                          .id = s->id,
                                          .line = s->line};
  }
  struct import3d_result result;
  int status = import3d_build(r->path, n, samples, &r->discretisation, r->warnings,
                              MAX_RESAMPLED_COMPARTMENTS, &result, err);
  free(order);
  free(position);
  free(samples);
  if (status != HINES_OK)
    return status;
  r->n_compartments = result.n_compartments;
  r->compartment_parent = result.parent;
  r->geometry = result.geometry;
  return HINES_OK;
}

int swc_load(const char *path, const struct swc_options *options, struct morphology *out,
             struct hines_error *err) {
  memset(out, 0, sizeof *out);
  static const struct swc_options no_options = {0};
  if (!options)
    options = &no_options;
  struct reader r = {.path = path,
                     .name = strcmp(path, "-") == 0 ? "stdin" : path,
                     .scale = 1.0,
                     .warnings = options && options->warnings ? options->warnings : stderr,
                     .geometry_kind = options ? options->geometry : SWC_GEOMETRY_NEURON,
                     .max_compartment_um = options ? options->max_compartment_um : 0.0};
  if (!(r.max_compartment_um >= 0) || isinf(r.max_compartment_um))
    return hines_fail(err, HINES_BAD_INPUT,
                      "%s: maximum compartment length %g um is not a positive number (0 keeps "
                      "one compartment per sample)",
                      path, r.max_compartment_um);
  if (options->geometry != SWC_GEOMETRY_NEURON && options->geometry != SWC_GEOMETRY_CYLINDERS)
    return hines_fail(err, HINES_FAILURE, "%s: unknown SWC geometry %d", path,
                      (int)options->geometry);
  if (options->d_lambda != 0) {
    if (options->geometry != SWC_GEOMETRY_NEURON)
      return hines_fail(err, HINES_BAD_INPUT,
                        "%s: the d_lambda rule cuts NEURON sections; the cylinders geometry has "
                        "none",
                        path);
    if (r.max_compartment_um > 0)
      return hines_fail(err, HINES_BAD_INPUT,
                        "%s: a segment length (%g um) and d_lambda (%g) are two rules for nseg; "
                        "give one",
                        path, r.max_compartment_um, options->d_lambda);
  }
  if (options->nseg_factor > 1 && options->geometry != SWC_GEOMETRY_NEURON)
    return hines_fail(err, HINES_BAD_INPUT,
                      "%s: the nseg factor multiplies NEURON sections' nseg; the cylinders "
                      "geometry has none",
                      path);
  r.discretisation = (struct import3d_discretisation){
      .rule = options->d_lambda != 0     ? NSEG_D_LAMBDA
              : r.max_compartment_um > 0 ? NSEG_FIXED_LENGTH
                                         : NSEG_PER_SAMPLE,
      .dx_um = r.max_compartment_um,
      .d_lambda = options->d_lambda,
      .frequency_hz = options->d_lambda_hz != 0 ? options->d_lambda_hz : 100.0,
      .nseg_factor = options->nseg_factor,
      .ra_ohm_cm = options->ra_ohm_cm != 0 ? options->ra_ohm_cm : cable_defaults.ra_ohm_cm,
      .cm_uF_per_cm2 =
          options->cm_uF_per_cm2 != 0 ? options->cm_uF_per_cm2 : cable_defaults.cm_uF_per_cm2};
  int status = read_samples(&r, err);
  if (status == HINES_OK)
    status = link_parents(&r, err);
  if (status == HINES_OK)
    status = keep_one_tree(&r, err);
  if (status == HINES_OK)
    status = index_kept_tree(&r, err);
  if (status == HINES_OK)
    status = warn_type_codes(&r, err);
  if (status == HINES_OK)
    status = repair_radii(&r, err);
  if (status == HINES_OK && r.geometry_kind == SWC_GEOMETRY_NEURON)
    status = build_neuron_compartments(&r, err);
  if (status == HINES_OK && r.geometry_kind == SWC_GEOMETRY_CYLINDERS) {
    status = build_compartments(&r, err);
    if (status == HINES_OK && r.max_compartment_um > 0)
      status = resample(&r, err);
  }
  /* Everything morphology_from_tree rejects (several roots, cycles) was caught above with a
   * line number; a failure here would be a bug of this reader, reported as it comes. */
  if (status == HINES_OK)
    status =
        morphology_from_tree(path, r.n_compartments, r.compartment_parent, r.geometry, out, err);
  reader_free(&r);
  if (status != HINES_OK)
    morphology_free(out);
  return status;
}
