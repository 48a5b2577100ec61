/* The --morph SPEC grammar. Anything not starting with "synthetic:" is an SWC path. Otherwise:
 *   synthetic:CLASS[:SEED]                   a Table 1 class (small-low ... big-high)
 *   synthetic:fig6:SIZE:PERCENT[:SEED]       SIZE compartments, about PERCENT % branch starts
 *   synthetic:fig14:LEVELS                   the 512-compartment tree with 2..4 branch levels
 *   synthetic:random:MIN:MAX[:SEED]          a random size in MIN..MAX
 *   synthetic:tree:COMPARTMENTS:BRANCHES[:SEED]  exact counts
 * SEED defaults to 1 so that a spec always names the same tree. Numbers are plain decimal
 * (no sign on seeds, no exponent, no surrounding blanks): a spec is typed by hand and a typo
 * must not silently become another benchmark. The SWC options (--geometry, --dx, --d-lambda)
 * do not apply to the synthetic trees, whose compartments are already 10 um cylinders. An SWC file
 * whose name starts with "synthetic:" is reached as ./synthetic:... */
#include "morph_spec.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synthetic.h"

#define SYNTHETIC_PREFIX "synthetic:"
#define MAX_FIELDS 4 /* the generator word and at most three numbers */
#define DEFAULT_SEED 1u

static int spec_fail(struct hines_error *err, const char *spec, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* One line "SPEC: problem" so the user sees which morphology is wrong (as "FILE:LINE: problem"
 * for files). */
static int spec_fail(struct hines_error *err, const char *spec, const char *format, ...) {
  char problem[HINES_MESSAGE_SIZE];
  va_list args;
  va_start(args, format);
  vsnprintf(problem, sizeof problem, format, args);
  va_end(args);
  return hines_fail(err, HINES_BAD_INPUT, "%s: %s", spec, problem);
}

/* Generator messages read "LABEL: problem" where LABEL is the generator's own name for the
 * tree (it never contains ": "); the user typed SPEC, so the label is replaced by it. */
static int relabel_generator_error(int status, struct hines_error *err, const char *spec) {
  if (!err)
    return status;
  char problem[HINES_MESSAGE_SIZE];
  const char *separator = strstr(err->message, ": ");
  snprintf(problem, sizeof problem, "%s", separator ? separator + 2 : err->message);
  return hines_fail(err, status, "%s: %s", spec, problem);
}

enum parse_result { PARSE_OK, PARSE_SYNTAX, PARSE_RANGE };

static int all_digits(const char *text) {
  if (!*text)
    return 0;
  for (; *text; text++)
    if (*text < '0' || *text > '9')
      return 0;
  return 1;
}

/* Optional '-' then digits. The sign is accepted so that "-5" gets the generator's range
 * message rather than a puzzling "not a number". */
static enum parse_result parse_int(const char *text, int *value) {
  if (!all_digits(text[0] == '-' ? text + 1 : text))
    return PARSE_SYNTAX;
  errno = 0;
  long parsed = strtol(text, NULL, 10);
  if (errno == ERANGE || parsed < INT_MIN || parsed > INT_MAX)
    return PARSE_RANGE;
  *value = (int)parsed;
  return PARSE_OK;
}

static enum parse_result parse_seed(const char *text, unsigned *value) {
  if (!all_digits(text))
    return PARSE_SYNTAX;
  errno = 0;
  unsigned long long parsed = strtoull(text, NULL, 10);
  if (errno == ERANGE || parsed > UINT_MAX)
    return PARSE_RANGE;
  *value = (unsigned)parsed;
  return PARSE_OK;
}

/* DIGITS or DIGITS.DIGITS: strtod alone would also take "inf", "nan", "0x1p4" and " 7". */
static enum parse_result parse_percent(const char *text, double *value) {
  const char *dot = strchr(text, '.');
  if (dot) {
    size_t whole = (size_t)(dot - text);
    char integer_part[32];
    if (whole == 0 || whole >= sizeof integer_part)
      return PARSE_SYNTAX;
    memcpy(integer_part, text, whole);
    integer_part[whole] = '\0';
    if (!all_digits(integer_part) || !all_digits(dot + 1))
      return PARSE_SYNTAX;
  } else if (!all_digits(text)) {
    return PARSE_SYNTAX;
  }
  *value = strtod(text, NULL);
  return PARSE_OK;
}

static int number_fail(struct hines_error *err, const char *spec, enum parse_result result,
                       const char *what, const char *text, const char *expected) {
  if (result == PARSE_RANGE)
    return spec_fail(err, spec, "%s '%s' is out of range", what, text);
  return spec_fail(err, spec, "%s '%s' is not %s", what, text, expected);
}

/* Parses one field into *target or returns the "SPEC: WHAT 'text' is not ..." error. */
#define PARSE_OR_FAIL(parser, field, what, expected, target)                                       \
  do {                                                                                             \
    enum parse_result result_ = parser(field, target);                                             \
    if (result_ != PARSE_OK)                                                                       \
      return number_fail(err, spec, result_, what, field, expected);                               \
  } while (0)

#define WHOLE "a whole number"
#define SEED_TEXT "a whole number 0..4294967295"
#define DECIMAL "a decimal number such as 10 or 12.5"

/* fields[0] is the generator word (or class name), fields[1..] its numbers. Returns the
 * generator's status; *out is filled but still carries the generator's label as name. */
static int generate(const char *spec, int n_fields, char **fields, struct morphology *out,
                    struct hines_error *err) {
  const char *kind = fields[0];
  unsigned seed = DEFAULT_SEED;
  if (strcmp(kind, "fig6") == 0) {
    if (n_fields < 3 || n_fields > 4)
      return spec_fail(err, spec, "expected synthetic:fig6:SIZE:PERCENT[:SEED]");
    int size;
    double percent;
    PARSE_OR_FAIL(parse_int, fields[1], "SIZE", WHOLE, &size);
    PARSE_OR_FAIL(parse_percent, fields[2], "PERCENT", DECIMAL, &percent);
    if (n_fields == 4)
      PARSE_OR_FAIL(parse_seed, fields[3], "SEED", SEED_TEXT, &seed);
    return synthetic_fig6(size, percent, seed, out, err);
  }
  if (strcmp(kind, "fig14") == 0) {
    if (n_fields != 2)
      return spec_fail(err, spec, "expected synthetic:fig14:LEVELS");
    int levels;
    PARSE_OR_FAIL(parse_int, fields[1], "LEVELS", WHOLE, &levels);
    return synthetic_fig14(levels, out, err);
  }
  if (strcmp(kind, "comb") == 0) {
    if (n_fields != 2)
      return spec_fail(err, spec, "expected synthetic:comb:TEETH");
    int teeth;
    PARSE_OR_FAIL(parse_int, fields[1], "TEETH", WHOLE, &teeth);
    return synthetic_comb(teeth, out, err);
  }
  if (strcmp(kind, "random") == 0) {
    if (n_fields < 3 || n_fields > 4)
      return spec_fail(err, spec, "expected synthetic:random:MIN:MAX[:SEED]");
    int min, max;
    PARSE_OR_FAIL(parse_int, fields[1], "MIN", WHOLE, &min);
    PARSE_OR_FAIL(parse_int, fields[2], "MAX", WHOLE, &max);
    if (n_fields == 4)
      PARSE_OR_FAIL(parse_seed, fields[3], "SEED", SEED_TEXT, &seed);
    return synthetic_random(min, max, seed, out, err);
  }
  if (strcmp(kind, "tree") == 0) {
    if (n_fields < 3 || n_fields > 4)
      return spec_fail(err, spec, "expected synthetic:tree:COMPARTMENTS:BRANCHES[:SEED]");
    int compartments, branches;
    PARSE_OR_FAIL(parse_int, fields[1], "COMPARTMENTS", WHOLE, &compartments);
    PARSE_OR_FAIL(parse_int, fields[2], "BRANCHES", WHOLE, &branches);
    if (n_fields == 4)
      PARSE_OR_FAIL(parse_seed, fields[3], "SEED", SEED_TEXT, &seed);
    return synthetic_tree(spec, compartments, branches, seed, out, err);
  }
  /* A class name. An unknown one is reported before a bad seed: the name is the likelier typo. */
  int known = 0;
  for (size_t c = 0; c < sizeof synthetic_classes / sizeof synthetic_classes[0]; c++)
    known |= strcmp(kind, synthetic_classes[c].name) == 0;
  if (known && n_fields > 2)
    return spec_fail(err, spec, "expected synthetic:CLASS[:SEED]");
  if (known && n_fields == 2)
    PARSE_OR_FAIL(parse_seed, fields[1], "SEED", SEED_TEXT, &seed);
  return synthetic_class(kind, seed, out, err);
}

/* The morphology's name is what the user typed, made printable (hines_printable): summaries,
 * banners and traces print it, and a file name may hold control bytes. */
static int set_printable_name(struct morphology *out, const char *spec, struct hines_error *err) {
  size_t size = 4 * strlen(spec) + 1;
  char *name = malloc(size);
  if (!name) {
    morphology_free(out);
    return hines_fail(err, HINES_FAILURE, "%s: out of memory", spec);
  }
  hines_printable(name, size, spec, strlen(spec));
  free(out->name);
  out->name = name;
  return HINES_OK;
}

int morphology_load_spec(const char *spec, const struct swc_options *options,
                         struct morphology *out, struct hines_error *err) {
  memset(out, 0, sizeof *out);
  if (!spec || !*spec)
    return hines_fail(err, HINES_BAD_INPUT,
                      "no morphology given (an .swc path or synthetic:CLASS)");
  if (strncmp(spec, SYNTHETIC_PREFIX, strlen(SYNTHETIC_PREFIX)) != 0) {
    int status = swc_load(spec, options, out, err);
    return status == HINES_OK ? set_printable_name(out, spec, err) : status;
  }

  char *copy = strdup(spec + strlen(SYNTHETIC_PREFIX));
  if (!copy)
    return hines_fail(err, HINES_FAILURE, "%s: out of memory", spec);
  /* Split on ':' keeping empty fields, so "fig6::10" reports an empty SIZE. */
  char *fields[MAX_FIELDS];
  int n_fields = 0;
  char *cursor = copy;
  for (;;) {
    char *colon = strchr(cursor, ':');
    if (n_fields == MAX_FIELDS) {
      free(copy);
      return spec_fail(err, spec,
                       "too many ':'-separated fields (at most %d after "
                       "'synthetic:')",
                       MAX_FIELDS);
    }
    fields[n_fields++] = cursor;
    if (!colon)
      break;
    *colon = '\0';
    cursor = colon + 1;
  }
  int status = generate(spec, n_fields, fields, out, err);
  free(copy);
  if (status != HINES_OK) {
    /* Syntax errors already read "SPEC: ..."; generator errors get that form here. */
    size_t spec_length = strlen(spec);
    if (err && (strncmp(err->message, spec, spec_length) != 0 ||
                strncmp(err->message + spec_length, ": ", 2) != 0))
      status = relabel_generator_error(status, err, spec);
    return status;
  }
  /* The name is what the user typed, so summaries and traces match the command line. */
  return set_printable_name(out, spec, err);
}
