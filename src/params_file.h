/* --params FILE: a parameter sweep, one CSV row per neuron (codelets/neuron_parameters.h). */
#ifndef HINES_PARAMS_FILE_H
#define HINES_PARAMS_FILE_H

#include "neuron_parameters.h"
#include "options.h"

/* The column name of parameter p in the CSV header (enum neuron_parameter), or NULL where p
 * is no column (a mechanism's slot it has no current for). */
const char *params_column_name(int p);
/* The parameter a header cell names (hh's also as hh.PARAM), or -1. */
int params_column_find(const char *name);
/* The j-th column in the order lists give them (cm, ra, gl, el, gnabar, gkbar, gl_hh, el_hh,
 * stim_amp, stim_start, stim_stop, then the other mechanisms'), or -1 past the last. */
int params_column_listed(int j);
/* "cm, ra, gl, ...": every column, in that order, for messages and --help. */
const char *params_known_columns(void);

/* Reads o->params_path into o->params_values (o->params_rows rows of NEURON_PARAMETER_COUNT
 * values, those of the columns the header names, o->params_given), checking every cell against
 * the run the options describe: HINES_OK, or HINES_BAD_INPUT with the one line
 * "FILE:LINE: column: problem" in err (nothing is kept then). */
int params_file_read(struct options *o, struct hines_error *err);

#endif
