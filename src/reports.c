#include "reports.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output_files.h"
#include "runtime.h"

void print_summary(const struct morphology *m) {
  printf("%s: %d compartments, %d branches, %d levels, max depth %d, total length %.1f um\n",
         m->name, m->n_compartments, m->n_branches, m->n_levels, m->max_depth, m->total_length_um);
}

int write_json(const struct options *o, const struct run_result *r, struct hines_error *err) {
  struct output_file out;
  if (output_open(&out, "--json", o->json_path, o->force, err))
    return HINES_FAILURE;
  FILE *f = out.stream;
  json_write_summary(f, o, r);
  return output_commit(&out, err);
}

int write_probes(const struct options *o, struct probe_record *p, struct hines_error *err) {
  free(p->scratch);
  p->scratch = NULL;
  struct output_file out;
  if (output_open(&out, "--probes", o->probes_path, o->force, err))
    return HINES_FAILURE;
  FILE *f = out.stream;
  fprintf(f, "time_ms");
  for (int j = 0; j < o->n_probes; j++)
    fprintf(f, ",neuron%d_compartment%d_mV", o->probe_neuron[j], o->probe_compartment[j]);
  fputc('\n', f);
  /* Every voltage with 17 significant digits, which read back as the same double: comparing
   * two files compares the bits (CPU against GPU workers, one process against several). */
  for (long long r = 0; r < p->rows; r++) {
    const double *row = p->values + (size_t)r * (1 + o->n_probes);
    fprintf(f, "%.6f", row[0]);
    for (int j = 0; j < o->n_probes; j++)
      fprintf(f, ",%.17g", row[1 + j]);
    fputc('\n', f);
  }
  return output_commit(&out, err);
}

int write_spikes(const struct options *o, const struct spike_report *s, struct hines_error *err) {
  struct output_file out;
  if (output_open(&out, "--spikes", o->spikes_path, o->force, err))
    return HINES_FAILURE;
  FILE *f = out.stream;
  fputs("neuron,time_ms\n", f);
  for (size_t i = 0; i < s->n_spikes; i++)
    fprintf(f, "%d,%.17g\n", s->spikes[i].neuron, s->spikes[i].time_ms);
  return output_commit(&out, err);
}
