#define _GNU_SOURCE /* getline */
#include "params_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const params_column_names[NEURON_PARAMETER_COUNT] = {
    "cm",    "ra",    "gl",       "el",         "gnabar",   "gkbar",
    "gl_hh", "el_hh", "stim_amp", "stim_start", "stim_stop"};

#define KNOWN_COLUMNS "cm, ra, gl, el, gnabar, gkbar, gl_hh, el_hh, stim_amp, stim_start, stim_stop"

/* The smallest value each parameter may take: > 0 (cm, ra), >= 0 (conductances, times), any
 * finite value (reversals, amplitude), as the command-line options take them. */
enum lower_bound { ANY, NOT_NEGATIVE, POSITIVE };
static enum lower_bound lower_bound_of(int p) {
  switch (p) {
  case NEURON_CM:
  case NEURON_RA:
    return POSITIVE;
  case NEURON_EL:
  case NEURON_EL_HH:
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
                              path, j + 1, NEURON_PARAMETER_COUNT);
          break;
        }
        int p = 0;
        while (p < NEURON_PARAMETER_COUNT && strcmp(cells[j], params_column_names[p]) != 0)
          p++;
        char shown[64];
        hines_printable(shown, sizeof shown, cells[j], strlen(cells[j]));
        if (!*cells[j])
          status = hines_fail(err, HINES_BAD_INPUT, "%s:1: column %d: no name (known: %s)", path,
                              j + 1, KNOWN_COLUMNS);
        else if (p == NEURON_PARAMETER_COUNT)
          status = hines_fail(err, HINES_BAD_INPUT, "%s:1: %s: unknown column (known: %s)", path,
                              shown, KNOWN_COLUMNS);
        else if (given[p])
          status = hines_fail(err, HINES_BAD_INPUT, "%s:1: %s: named twice", path, shown);
        else if (neuron_parameter_is_channel(p) &&
                 o->model.channels.mechanism[MECHANISM_HH].placement == PLACE_NONE)
          status = hines_fail(err, HINES_BAD_INPUT,
                              "%s:1: %s: the run has no Hodgkin-Huxley channels (--hh none); "
                              "give --hh soma or all, or drop the column",
                              path, shown);
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
                          params_column_names[order[count]], count, columns);
      break;
    }
    double *row = values + (size_t)rows * NEURON_PARAMETER_COUNT;
    for (int j = 0; j < columns && status == HINES_OK; j++) {
      const int p = order[j];
      const char *name = params_column_names[p];
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
