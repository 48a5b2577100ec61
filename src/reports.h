/* What a run reports: the JSON summary, the probe CSV, the morphology summary. */
#ifndef HINES_REPORTS_H
#define HINES_REPORTS_H

#include "simulation.h"

void print_summary(const struct morphology *m);
/* Each writes through output_open/output_commit (output_files.h): a unique temporary file renamed
 * onto the path once complete; HINES_FAILURE with the reason in err if it cannot. */
int write_json(const struct options *o, const struct run_result *r, struct hines_error *err);
int write_probes(const struct options *o, struct probe_record *p, struct hines_error *err);
/* The spikes as CSV: a header line "neuron,time_ms", then one line per spike, by neuron then
 * time, times with 17 significant digits (they read back as the same double). */
int write_spikes(const struct options *o, const struct spike_report *s, struct hines_error *err);
/* The JSON summary's text (src/summary_json.c): what shaped the run and what it measured. */
void json_write_summary(FILE *f, const struct options *o, const struct run_result *r);

#endif
