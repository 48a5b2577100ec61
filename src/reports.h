/* What a run reports: the JSON summary, the probe CSV, the morphology summary. */
#ifndef HINES_REPORTS_H
#define HINES_REPORTS_H

#include "simulation.h"

void print_summary(const struct morphology *m);
/* Each writes to a temporary file renamed over the path; HINES_FAILURE if it cannot. */
int write_json(const struct options *o, const struct run_result *r);
int write_probes(const struct options *o, struct probe_record *p);
/* The JSON summary's text (src/summary_json.c): what shaped the run and what it measured. */
void json_write_summary(FILE *f, const struct options *o, const struct run_result *r);

#endif
