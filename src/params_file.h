/* --params FILE: a parameter sweep, one CSV row per neuron (codelets/neuron_parameters.h). */
#ifndef HINES_PARAMS_FILE_H
#define HINES_PARAMS_FILE_H

#include "neuron_parameters.h"
#include "options.h"

/* The column names of the CSV header, by enum neuron_parameter. */
extern const char *const params_column_names[NEURON_PARAMETER_COUNT];

/* Reads o->params_path into o->params_values (o->params_rows rows of NEURON_PARAMETER_COUNT
 * values, those of the columns the header names, o->params_given), checking every cell against
 * the run the options describe: HINES_OK, or HINES_BAD_INPUT with the one line
 * "FILE:LINE: column: problem" in err (nothing is kept then). */
int params_file_read(struct options *o, struct hines_error *err);

#endif
