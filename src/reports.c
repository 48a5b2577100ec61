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
  const char *layout = strcmp(o->mode, "multi") == 0 ? (o->padded ? "levels-cp" : "levels-ncp")
                                                     : batch_layout_name(o->layout);
  fprintf(f, "{\n  \"mode\": \"%s\",\n  \"layout\": \"%s\",\n  \"scheduler\": \"%s\",\n", o->mode,
          layout, runtime_scheduler());
  fprintf(f, "  \"cpu_workers\": %d,\n  \"cuda_workers\": %d,\n  \"neurons\": %d,\n",
          runtime_cpu_workers(), runtime_cuda_workers(), o->neurons);
  fprintf(f, "  \"compartments\": %lld,\n  \"steps\": %d,\n  \"dt_ms\": %.17g,\n", r->compartments,
          o->steps, o->model.dt_ms);
  fprintf(f, "  \"block_size\": %d,\n  \"seconds_total\": %.9g,\n  \"seconds_per_step\": %.9g,\n",
          o->block_size, r->seconds_total, r->seconds_steps / r->timed_steps);
  fprintf(f, "  \"seconds_first_step\": %.9g,\n  \"tasks_per_step\": %d,\n", r->seconds_first_step,
          r->tasks_per_step);
  static const char *const hh_names[] = {"none", "soma", "all"};
  fprintf(f, "  \"hh\": \"%s\",\n  \"multi_tasks\": \"%s\",\n", hh_names[o->model.hh.placement],
          o->per_neuron    ? "neuron"
          : o->level_tasks ? "levels"
                           : "chunk");
  if (strcmp(o->mode, "multi") == 0 && !o->per_neuron)
    fprintf(f, "  \"level_order\": \"%s\",\n",
            o->level_order == LEVEL_ORDER_DEPTH ||
                    (o->level_order == LEVEL_ORDER_AUTO && o->level_tasks)
                ? "depth"
                : "height");
  else
    fprintf(f, "  \"level_order\": null,\n");
  if (strcmp(o->mode, "multi") == 0 && !o->per_neuron && !o->level_tasks)
    fprintf(f, "  \"trunk_below\": %d,\n", o->trunk_below);
  else
    fprintf(f, "  \"trunk_below\": null,\n");
  if (strcmp(o->mode, "multi") == 0 && !o->per_neuron && !o->level_tasks)
    fprintf(f, "  \"gpu_launch\": \"%s\",\n",
            o->gpu_launch == GPU_LAUNCH_PLAIN   ? "plain"
            : o->gpu_launch == GPU_LAUNCH_EARLY ? "early"
                                                : "auto");
  else
    fprintf(f, "  \"gpu_launch\": null,\n");
  if (o->parts_per_task > 0)
    fprintf(f, "  \"task_parts\": %d,\n", o->parts_per_task);
  else
    fprintf(f, "  \"task_parts\": null,\n"); /* the default */
  if (o->neurons_per_task > 0)
    fprintf(f, "  \"task_neurons\": %d,\n", o->neurons_per_task);
  else
    fprintf(f, "  \"task_neurons\": null,\n"); /* the default: one task per GPU or a few per CPU */
  fprintf(f, "  \"window\": %d,\n  \"pin\": %s,\n",
          o->window > 0 ? o->window : RUNTIME_DEFAULT_WINDOW, o->pin ? "true" : "false");
  const char *streams = getenv("STARPU_NWORKER_PER_CUDA");
  fprintf(f, "  \"nworker_per_cuda\": %d,\n", streams && *streams ? atoi(streams) : 1);
  fprintf(f, "  \"compartment_solves_per_s\": %.9g,\n",
          (double)r->compartments * r->timed_steps / r->seconds_steps);
  if (r->verified)
    fprintf(f, "  \"max_rel_error\": %.3e,\n", r->max_rel_error);
  else
    fprintf(f, "  \"max_rel_error\": null,\n");
  fprintf(f, "  \"version\": \"%s\",\n  \"morphologies\": [", HINESTASK_VERSION);
  for (int i = 0; i < o->n_morph_specs; i++) {
    fputc('"', f);
    for (const char *c = o->morph_specs[i]; *c; c++) {
      if (*c == '"' || *c == '\\')
        fputc('\\', f);
      if ((unsigned char)*c < 0x20)
        fprintf(f, "\\u%04x", *c);
      else
        fputc(*c, f);
    }
    fprintf(f, "\"%s", i + 1 < o->n_morph_specs ? ", " : "");
  }
  fprintf(f, "]\n}\n");
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
