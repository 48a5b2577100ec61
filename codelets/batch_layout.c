#include "batch_layout.h"

#include <string.h>

static const char *const layout_names[] = {"flat", "interleaved", "block", "shared"};

int batch_layout_parse(const char *name) {
  for (int kind = 0; kind < 4; kind++)
    if (strcmp(name, layout_names[kind]) == 0)
      return kind;
  return -1;
}

const char *batch_layout_name(enum batch_layout_kind kind) {
  return layout_names[kind];
}

void batch_layout_init(struct batch_layout *layout, enum batch_layout_kind kind, int n_compartments,
                       int n_neurons, int block_size) {
  layout->kind = kind;
  layout->n_compartments = n_compartments;
  layout->n_neurons = n_neurons;
  switch (kind) {
  case BATCH_LAYOUT_FLAT:
    layout->block_size = 1;
    break;
  case BATCH_LAYOUT_INTERLEAVED: /* one block: rows padded to whole warps (batch_layout.h) */
    layout->block_size =
        (n_neurons + BATCH_LAYOUT_ROW_ALIGN - 1) / BATCH_LAYOUT_ROW_ALIGN * BATCH_LAYOUT_ROW_ALIGN;
    break;
  case BATCH_LAYOUT_BLOCK:
  case BATCH_LAYOUT_SHARED:
    layout->block_size = block_size;
    break;
  }
  layout->n_blocks = (n_neurons + layout->block_size - 1) / layout->block_size;
}

size_t batch_layout_size(const struct batch_layout *layout) {
  return (size_t)layout->n_blocks * layout->block_size * layout->n_compartments;
}

size_t batch_layout_stride(const struct batch_layout *layout) {
  return layout->kind == BATCH_LAYOUT_FLAT ? 1 : (size_t)layout->block_size;
}

size_t batch_layout_index(const struct batch_layout *layout, int neuron, int compartment) {
  size_t n = (size_t)layout->n_compartments, bs = (size_t)layout->block_size;
  size_t block = (size_t)neuron / bs, lane = (size_t)neuron % bs;
  return block * bs * n + (size_t)compartment * batch_layout_stride(layout) +
         (layout->kind == BATCH_LAYOUT_FLAT ? 0 : lane);
}

void batch_layout_from_flat(const struct batch_layout *layout, const double *flat, double *stored) {
  int n = layout->n_compartments;
  for (int k = 0; k < layout->n_neurons; k++)
    for (int i = 0; i < n; i++)
      stored[batch_layout_index(layout, k, i)] = flat[(size_t)k * n + i];
}

void batch_layout_to_flat(const struct batch_layout *layout, const double *stored, double *flat) {
  int n = layout->n_compartments;
  for (int k = 0; k < layout->n_neurons; k++)
    for (int i = 0; i < n; i++)
      flat[(size_t)k * n + i] = stored[batch_layout_index(layout, k, i)];
}

void batch_layout_fill(const struct batch_layout *layout, double *stored, double value) {
  size_t size = batch_layout_size(layout);
  for (size_t j = 0; j < size; j++)
    stored[j] = value;
}
