#include "reports.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

void print_summary(const struct morphology *m) {
  printf("%s: %d compartments, %d branches, %d levels, max depth %d, total length %.1f um\n",
         m->name, m->n_compartments, m->n_branches, m->n_levels, m->max_depth, m->total_length_um);
}

int write_json(const struct options *o, const struct run_result *r) {
  char temporary[PATH_MAX];
  snprintf(temporary, sizeof temporary, "%s.partial", o->json_path);
  FILE *f = fopen(temporary, "w");
  if (!f)
    return HINES_FAILURE;
  json_write_summary(f, o, r);
  if (fclose(f) != 0 || rename(temporary, o->json_path) != 0) {
    remove(temporary);
    return HINES_FAILURE;
  }
  return HINES_OK;
}

int write_probes(const struct options *o, struct probe_record *p) {
  free(p->scratch);
  p->scratch = NULL;
  char temporary[PATH_MAX];
  snprintf(temporary, sizeof temporary, "%s.partial", o->probes_path);
  FILE *f = fopen(temporary, "w");
  if (!f)
    return HINES_FAILURE;
  fprintf(f, "time_ms");
  for (int j = 0; j < o->n_probes; j++)
    fprintf(f, ",neuron%d_compartment%d_mV", o->probe_neuron[j], o->probe_compartment[j]);
  fputc('\n', f);
  for (long long r = 0; r < p->rows; r++) {
    const double *row = p->values + (size_t)r * (1 + o->n_probes);
    fprintf(f, "%.6f", row[0]);
    for (int j = 0; j < o->n_probes; j++)
      fprintf(f, ",%.12g", row[1 + j]);
    fputc('\n', f);
  }
  if (fclose(f) != 0 || rename(temporary, o->probes_path) != 0) {
    remove(temporary);
    return HINES_FAILURE;
  }
  return HINES_OK;
}
