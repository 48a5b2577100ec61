#define _GNU_SOURCE /* getline */
#include "params_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* hh's columns keep the names they had before mechanisms were data; every other channel
 * parameter is NAME.PARAM, as --channels writes it (km.gbar, ih.ehcn). */
static const char *const fixed_column_names[NEURON_CHANNEL_FIRST] = {
    "cm", "ra", "gl", "el", "stim_amp", "stim_start", "stim_stop"};

static char column_names[NEURON_PARAMETER_COUNT][48];
static char known_columns[1024];
static int list_order[NEURON_PARAMETER_COUNT], list_length;

/* Fills the names (once): the fixed ones, hh's old ones, NAME.PARAM for the rest. */
static void column_names_fill(void) {
  if (known_columns[0])
    return;
  for (int p = 0; p < NEURON_PARAMETER_COUNT; p++) {
    char *name = column_names[p];
    if (p < NEURON_CHANNEL_FIRST) {
      snprintf(name, sizeof column_names[p], "%s", fixed_column_names[p]);
      continue;
    }
    const int m = neuron_parameter_mechanism(p), slot = neuron_parameter_slot(p);
    const struct mechanism_description *d = &mechanism_table[m];
    const int reversal = slot >= MECHANISM_MAX_CURRENTS;
    const int current = reversal ? slot - MECHANISM_MAX_CURRENTS : slot;
    const char *param = NULL;
    if (current < d->defaults.shape.n_currents)
      param = reversal ? d->reversal_names[current] : d->gbar_names[current];
    if (!param)
      continue; /* no such current, or a reversal that is not settable: no column */
    if (p == NEURON_GNABAR || p == NEURON_GKBAR)
      snprintf(name, sizeof column_names[p], "%s", param);
    else if (p == NEURON_GL_HH || p == NEURON_EL_HH)
      snprintf(name, sizeof column_names[p], "%s_hh", param);
    else
      snprintf(name, sizeof column_names[p], "%s.%s", d->name, param);
  }
  /* The order of lists (messages, the JSON summary): membrane, hh's old four, stimulus, as
   * before mechanisms were data, then every other parameter in enum order. */
  static const int listed_first[] = {
      NEURON_CM,    NEURON_RA,    NEURON_GL,       NEURON_EL,         NEURON_GNABAR,   NEURON_GKBAR,
      NEURON_GL_HH, NEURON_EL_HH, NEURON_STIM_AMP, NEURON_STIM_START, NEURON_STIM_STOP};
  int listed[NEURON_PARAMETER_COUNT] = {0};
  for (size_t j = 0; j < sizeof listed_first / sizeof *listed_first; j++) {
    list_order[list_length++] = listed_first[j];
    listed[listed_first[j]] = 1;
  }
  for (int p = 0; p < NEURON_PARAMETER_COUNT; p++)
    if (!listed[p] && column_names[p][0])
      list_order[list_length++] = p;
  size_t used = 0;
  for (int j = 0; j < list_length && used < sizeof known_columns; j++)
    used += (size_t)snprintf(known_columns + used, sizeof known_columns - used, "%s%s",
                             j ? ", " : "", column_names[list_order[j]]);
}

int params_column_listed(int j) {
  column_names_fill();
  return j >= 0 && j < list_length ? list_order[j] : -1;
}

const char *params_column_name(int p) {
  column_names_fill();
  return p >= 0 && p < NEURON_PARAMETER_COUNT && column_names[p][0] ? column_names[p] : NULL;
}

int params_column_find(const char *name) {
  column_names_fill();
  for (int p = 0; p < NEURON_PARAMETER_COUNT; p++)
    if (column_names[p][0] && strcmp(name, column_names[p]) == 0)
      return p;
  /* hh's also as NAME.PARAM: hh.gnabar, hh.gl (gl alone is the passive leak) */
  const char *dot = strchr(name, '.');
  if (dot && mechanism_find(name, (size_t)(dot - name)) == MECHANISM_HH)
    for (int c = 0; c < MECHANISM_MAX_CURRENTS; c++)
      for (int reversal = 0; reversal <= 1; reversal++) {
        const char *const *names = reversal ? mechanism_table[MECHANISM_HH].reversal_names
                                            : mechanism_table[MECHANISM_HH].gbar_names;
        if (names[c] && strcmp(dot + 1, names[c]) == 0)
          return neuron_channel_parameter(MECHANISM_HH, c, reversal);
      }
  return -1;
}

const char *params_known_columns(void) {
  column_names_fill();
  return known_columns;
}

#define KNOWN_COLUMNS params_known_columns()

/* The smallest value each parameter may take: > 0 (cm, ra), >= 0 (conductances, times), any
 * finite value (reversals, amplitude), as the command-line options take them. */
enum lower_bound { ANY, NOT_NEGATIVE, POSITIVE };
static enum lower_bound lower_bound_of(int p) {
  if (neuron_parameter_is_channel(p)) /* conductances >= 0, reversals any */
    return neuron_parameter_slot(p) >= MECHANISM_MAX_CURRENTS ? ANY : NOT_NEGATIVE;
  switch (p) {
  case NEURON_CM:
  case NEURON_RA:
    return POSITIVE;
  case NEURON_EL:
  case NEURON_STIM_AMP:
    return ANY;
  default:
    return NOT_NEGATIVE;
  }
}

/* Cuts `line` at its commas (in place) into at most `most` cells, spaces around each trimmed;
 * returns the number of cells the line has (more than `most` possibly). */
static int split_cells(char *line, char **cells, int most) {
  int count = 0;
  char *at = line;
  for (;;) {
    char *comma = strchr(at, ',');
    if (comma)
      *comma = '\0';
    while (*at == ' ' || *at == '\t')
      at++;
    char *end = at + strlen(at);
    while (end > at && (end[-1] == ' ' || end[-1] == '\t'))
      *--end = '\0';
    if (count < most)
      cells[count] = at;
    count++;
    if (!comma)
      return count;
    at = comma + 1;
  }
}

static int fail_cell(struct hines_error *err, const char *path, long line, const char *column,
                     const char *problem, const char *value) {
  char shown[64];
  hines_printable(shown, sizeof shown, value, strlen(value));
  return hines_fail(err, HINES_BAD_INPUT, "%s:%ld: %s: '%s' %s", path, line, column, shown,
                    problem);
}

int params_file_read(struct options *o, struct hines_error *err) {
  const char *path = o->params_path;
  FILE *file = fopen(path, "r");
  if (!file)
    return hines_fail(err, HINES_BAD_INPUT, "%s: cannot read the --params file: %s", path,
                      strerror(errno));
  char *line = NULL;
  size_t capacity = 0;
  long number = 0;
  int status = HINES_OK;
  int order[NEURON_PARAMETER_COUNT]; /* cell j holds parameter order[j] */
  int columns = 0, rows = 0;
  double *values = NULL;
  int given[NEURON_PARAMETER_COUNT] = {0};
  char *cells[NEURON_PARAMETER_COUNT + 1];
  ssize_t length;
  while (status == HINES_OK && (length = getline(&line, &capacity, file)) >= 0) {
    number++;
    if (memchr(line, '\0', (size_t)length)) {
      status = hines_fail(err, HINES_BAD_INPUT, "%s:%ld: row: a NUL byte (not a text file)", path,
                          number);
      break;
    }
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r'))
      line[--length] = '\0';
    if (number == 1) { /* the header */
      const int count = split_cells(line, cells, NEURON_PARAMETER_COUNT + 1);
      if (length == 0) {
        status = hines_fail(err, HINES_BAD_INPUT,
                            "%s:1: header: empty; the first line names the columns (any of "
                            "%s)",
                            path, KNOWN_COLUMNS);
        break;
      }
      for (int j = 0; j < count && status == HINES_OK; j++) {
        if (j >= NEURON_PARAMETER_COUNT) {
          status = hines_fail(err, HINES_BAD_INPUT,
                              "%s:1: column %d: more columns than the %d parameters there are "
                              "(a column named twice?)",
                              path, j + 1, list_length);
          break;
        }
        const int p = params_column_find(cells[j]);
        char shown[64];
        hines_printable(shown, sizeof shown, cells[j], strlen(cells[j]));
        if (!*cells[j])
          status = hines_fail(err, HINES_BAD_INPUT, "%s:1: column %d: no name (known: %s)", path,
                              j + 1, KNOWN_COLUMNS);
        else if (p < 0)
          status = hines_fail(err, HINES_BAD_INPUT, "%s:1: %s: unknown column (known: %s)", path,
                              shown, KNOWN_COLUMNS);
        else if (given[p])
          status = hines_fail(err, HINES_BAD_INPUT, "%s:1: %s: named twice", path, shown);
        else if (neuron_parameter_is_channel(p) && neuron_parameter_mechanism(p) == MECHANISM_HH &&
                 o->model.channels.mechanism[MECHANISM_HH].placement == PLACE_NONE)
          status = hines_fail(err, HINES_BAD_INPUT,
                              "%s:1: %s: the run has no Hodgkin-Huxley channels (--hh none); "
                              "give --hh soma or all, or drop the column",
                              path, shown);
        else if (neuron_parameter_is_channel(p) &&
                 o->model.channels.mechanism[neuron_parameter_mechanism(p)].placement == PLACE_NONE)
          status = hines_fail(err, HINES_BAD_INPUT,
                              "%s:1: %s: the run has no %s channels; place them (--channels "
                              "%s:soma or %s:all) or drop the column",
                              path, shown, mechanism_table[neuron_parameter_mechanism(p)].name,
                              mechanism_table[neuron_parameter_mechanism(p)].name,
                              mechanism_table[neuron_parameter_mechanism(p)].name);
        if (status == HINES_OK) { /* p names a parameter only then */
          given[p] = 1;
          order[j] = p;
        }
      }
      columns = count;
      values = malloc((size_t)o->neurons * NEURON_PARAMETER_COUNT * sizeof *values);
      if (status == HINES_OK && !values)
        status = hines_fail(err, HINES_FAILURE, "out of memory for --params %s", path);
      continue;
    }
    if (length == 0) {
      status = hines_fail(err, HINES_BAD_INPUT,
                          "%s:%ld: row: empty line (one row of %d values per neuron)", path, number,
                          columns);
      break;
    }
    if (rows == o->neurons) {
      status = hines_fail(err, HINES_BAD_INPUT,
                          "%s:%ld: row: more rows than the %d neurons of the batch (--neurons; "
                          "one row per neuron)",
                          path, number, o->neurons);
      break;
    }
    const int count = split_cells(line, cells, NEURON_PARAMETER_COUNT + 1);
    if (count > columns) {
      status = hines_fail(err, HINES_BAD_INPUT, "%s:%ld: column %d: %d cells, the header has %d",
                          path, number, columns + 1, count, columns);
      break;
    }
    if (count < columns) {
      status = hines_fail(err, HINES_BAD_INPUT,
                          "%s:%ld: %s: missing (the row has %d cells, the header %d)", path, number,
                          params_column_name(order[count]), count, columns);
      break;
    }
    double *row = values + (size_t)rows * NEURON_PARAMETER_COUNT;
    for (int j = 0; j < columns && status == HINES_OK; j++) {
      const int p = order[j];
      const char *name = params_column_name(p);
      char *end;
      errno = 0;
      double value = strtod(cells[j], &end);
      if (!*cells[j])
        status = hines_fail(err, HINES_BAD_INPUT, "%s:%ld: %s: empty cell", path, number, name);
      else if (errno == ERANGE || end == cells[j] || *end || !isfinite(value))
        status = fail_cell(err, path, number, name, "is not a finite number", cells[j]);
      else if (lower_bound_of(p) == POSITIVE && !(value > 0))
        status = fail_cell(err, path, number, name, "must be > 0", cells[j]);
      else if (lower_bound_of(p) == NOT_NEGATIVE && value < 0)
        status = fail_cell(err, path, number, name, "must be >= 0", cells[j]);
      row[p] = value;
    }
    if (status != HINES_OK)
      break;
    const double start =
        given[NEURON_STIM_START] ? row[NEURON_STIM_START] : o->model.stimulus.start_ms;
    const double stop = given[NEURON_STIM_STOP] ? row[NEURON_STIM_STOP] : o->model.stimulus.stop_ms;
    if ((given[NEURON_STIM_START] || given[NEURON_STIM_STOP]) && stop < start) {
      status = hines_fail(err, HINES_BAD_INPUT,
                          "%s:%ld: %s: the stimulus stops (%g ms) before it "
                          "starts (%g ms)",
                          path, number, given[NEURON_STIM_STOP] ? "stim_stop" : "stim_start", stop,
                          start);
      break;
    }
    rows++;
  }
  if (status == HINES_OK && ferror(file))
    status = hines_fail(err, HINES_BAD_INPUT, "%s: cannot read the --params file: %s", path,
                        strerror(errno));
  if (status == HINES_OK && number == 0)
    status = hines_fail(err, HINES_BAD_INPUT,
                        "%s:1: header: the file is empty; the first line names the columns "
                        "(any of %s)",
                        path, KNOWN_COLUMNS);
  if (status == HINES_OK && rows != o->neurons)
    status = hines_fail(err, HINES_BAD_INPUT,
                        "%s:%ld: row: %d row%s for the %d neurons of the batch (--neurons; one "
                        "row per neuron)",
                        path, number, rows, rows == 1 ? "" : "s", o->neurons);
  free(line);
  fclose(file);
  if (status != HINES_OK) {
    free(values);
    return status;
  }
  o->params_values = values;
  o->params_rows = rows;
  memcpy(o->params_given, given, sizeof given);
  return HINES_OK;
}
