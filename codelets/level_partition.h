/* Partitioned chains (level_batch_options.partition_compartments): a long chain system swept in
 * two halves at once. One thread walking a branch alone waits, element after element, for its
 * elimination chain, so a level whose systems cannot fill a GPU lasts as long as its longest
 * branch takes one thread; two threads a branch halve that chain. Half 0 holds rows 0 .. m - 1,
 * half 1 rows m .. size - 1 (m = size / 2); each half's first row is a separator, the others
 * its interior. Backward, each half eliminates its interior bottom-up (carrying the coupling to
 * the next half's separator along: the spike) and sums what eliminating it top-down would leave
 * in its last row (a fixed combination of its rows' rhs), two independent chains; the
 * separators' rows then form a 2 x 2 tridiagonal system, eliminated from the far half.
 * Forward, the separators are solved first (from the junction's voltage), then each half's
 * interior from its separator and the next one. The algebra is that of
 * scripts/bench/level_partition_cost.cu (passive_constants_host, upfront_part_backward/forward),
 * where it was measured against the serial chain (BENCHMARKS.md, "Partitioned elimination,
 * measured in isolation"); it differs from the serial chain's, so the last bits differ from a whole
 * sweep's. Passive only, with constant pivots: every constant below depends on the morphology's
 * rows (level_layout.c, fill_partition_constants), only the rhs changes from step to step. A half's
 * sweep (level_partition_half_backward/forward) is the same function whether one thread runs both
 * halves (CPU workers, the GPU's generic sweeps) or two GPU threads run one each (the lean kernels,
 * hines_level_cuda.cu) and pass the separators' values by shuffles, so every worker computes the
 * same bits. Included by hines_level_kernels.h, which it needs. */
#ifndef HINES_LEVEL_PARTITION_H
#define HINES_LEVEL_PARTITION_H

static inline HINES_HOST_DEVICE int level_partition_middle(int size) {
  return size / 2;
}

/* The partition constants of system s's row 0 (v->partition_columns past the row factors). */
static inline HINES_HOST_DEVICE const double *
level_partition_constants(const struct level_block_view *v, int s,
                          const double *LEVEL_RESTRICT row_factor) {
  return row_factor + v->partition_columns + (size_t)CONST_PARTITION_COLUMNS * v->first_row[s];
}

/* The rows a half's sweep takes at once: their old voltages (or scaled rhs) and every constant
 * the sweep reads of them are loaded a group ahead, since a thread cannot load an element before
 * the stores of the elements before it (they might alias: the sweeps overwrite each row in
 * place), and one element at a time each load would wait its full latency. Measured on the H100
 * (BENCHMARKS.md, "Partitioned chains in the solver"): with the voltages a group ahead but the
 * partition constants loaded element by element, cold, T's full step 1.03 -> 2.77 ms. The
 * arithmetic does not depend on it. */
#define LEVEL_PARTITION_GROUP 4

/* What a backward group reads of rows first, first - 1, ..., first - count + 1: the row's
 * membrane terms and old voltage, and its partition constants. */
struct level_partition_group {
  double old_voltage[LEVEL_PARTITION_GROUP], c_over_dt[LEVEL_PARTITION_GROUP],
      leak_current[LEVEL_PARTITION_GROUP], inverse[LEVEL_PARTITION_GROUP],
      factor[LEVEL_PARTITION_GROUP], down[LEVEL_PARTITION_GROUP];
};

static inline HINES_HOST_DEVICE void
level_partition_load(const struct level_block_view *v, int s, int first, int count,
                     const double *LEVEL_RESTRICT rows, const double *LEVEL_RESTRICT part,
                     const double *voltage, struct level_partition_group *g) {
  LEVEL_UNROLL
  for (int b = 0; b < LEVEL_PARTITION_GROUP; b++)
    if (b < count) {
      const int j = first - b;
      g->old_voltage[b] = voltage[v->row_offset[j] + s];
      g->c_over_dt[b] = rows[(size_t)j * CONST_STRIDE + CONST_C_OVER_DT];
      g->leak_current[b] = rows[(size_t)j * CONST_STRIDE + CONST_LEAK_CURRENT];
      g->inverse[b] = part[CONST_PARTITION_COLUMNS * j + PARTITION_INVERSE];
      g->factor[b] = part[CONST_PARTITION_COLUMNS * j + PARTITION_FACTOR];
      g->down[b] = part[CONST_PARTITION_COLUMNS * j + PARTITION_DOWN];
    }
}

/* Row j's rhs before elimination: the membrane's (the stimulus where it enters), and at the far
 * end the children's contributions, as the whole sweep builds it. */
static inline HINES_HOST_DEVICE double
level_partition_rhs(const struct level_block_view *v, int s, int j, int size,
                    const struct level_partition_group *g, int b, int stimulated, double injected,
                    const double *LEVEL_RESTRICT child_contribution) {
  double dj, rj;
  membrane_row(0.0, g->c_over_dt[b], g->leak_current[b], g->old_voltage[b],
               j == stimulated ? injected : 0.0, &dj, &rj);
  (void)dj;
  if (j == size - 1)
    level_gather_children_rhs(v, s, child_contribution, &rj);
  return rj;
}

/* Backward sweep of half `half` of partitioned system s: its interior's scaled rhs into
 * voltage; returns its separator's rhs with the first interior row eliminated into it, and in
 * *bottom half 0's last interior row's top-down rhs (which the next half's separator takes). */
static inline HINES_HOST_DEVICE double level_partition_half_backward(
    const struct level_block_view *v, int s, int half, const double *LEVEL_RESTRICT constants,
    const double *LEVEL_RESTRICT part, const struct level_step_arguments *args, double *voltage,
    const double *LEVEL_RESTRICT child_contribution, double *bottom) {
  const int size = v->size[s], middle = level_partition_middle(size);
  const int separator = half ? middle : 0, lo = separator + 1, hi = half ? size - 1 : middle - 1;
  const int *row_offset = v->row_offset;
  const double *rows = constants + (size_t)v->first_row[s] * CONST_STRIDE;
  const int stimulated = args->stimulus.compartment - v->first_compartment[s];
  const double injected = stimulated >= 0 && stimulated < size
                              ? stimulus_current(&args->stimulus, v->neuron[s], args->time_ms)
                              : 0.0;
  /* what the half reads, asked of L2 first (nothing on a CPU): no step writes the constants,
   * but each step streams the batch's voltages through L2, which evicts them */
  level_hint_lines(rows + (size_t)separator * CONST_STRIDE, (hi - separator + 1) * CONST_STRIDE);
  level_hint_lines(part + CONST_PARTITION_COLUMNS * separator,
                   (hi - separator + 1) * CONST_PARTITION_COLUMNS);
  if (HINES_ON_GPU)
    for (int j = separator; j <= hi; j++)
      HINES_PREFETCH_L2(voltage + row_offset[j] + s);
  const double first_coupling =
      part[CONST_PARTITION_COLUMNS * separator + PARTITION_FIRST_COUPLING];
  /* rows hi, hi - 1, ..., separator in groups: the first holds hi and the group after it */
  struct level_partition_group current = {.old_voltage = {0.0}}, next = {.old_voltage = {0.0}};
  const int first_count = (hi - separator) % LEVEL_PARTITION_GROUP + 1;
  level_partition_load(v, s, hi, first_count, rows, part, voltage, &current);
  LEVEL_AFTER_FIRST_LOADS();
  /* up: row i's rhs with the rows below it eliminated; down (half 0 only: the last half has no
   * next separator): the last row's rhs with the rows above it eliminated, a fixed combination of
   * the rows' rhs (PARTITION_DOWN) summed in the same pass, since the sweep overwrites each row's
   * old voltage with its scaled rhs as it goes; below_inverse, below_factor: the constants of
   * the row eliminated last (row i + 1) */
  double up = 0.0, down = 0.0, separator_rhs = 0.0, below_inverse = 0.0, below_factor = 0.0;
  for (int top = hi, count = first_count; top >= separator;) {
    const int after = top - count; /* the next group's first row */
    if (after >= separator)
      level_partition_load(v, s, after, LEVEL_PARTITION_GROUP, rows, part, voltage, &next);
    LEVEL_UNROLL
    for (int b = 0; b < LEVEL_PARTITION_GROUP; b++)
      if (b < count) {
        const int i = top - b;
        const double rhs = level_partition_rhs(v, s, i, size, &current, b, stimulated, injected,
                                               child_contribution);
        if (i == hi) {
          up = down = rhs;
        } else if (i == separator) {
          separator_rhs = rhs;
          continue;
        } else { /* row i + 1 eliminated into row i */
          voltage[row_offset[i + 1] + s] = up * below_inverse;
          up = fma(-below_factor, up, rhs);
          if (!half)
            down = fma(current.down[b], rhs, down);
        }
        below_inverse = current.inverse[b], below_factor = current.factor[b];
      }
    current = next;
    top = after;
    count = LEVEL_PARTITION_GROUP;
  }
  voltage[row_offset[lo] + s] = up * below_inverse;
  *bottom = down;
  return fma(-first_coupling, up, separator_rhs);
}

/* The 2 x 2 system of the separators, eliminated from the far half: from each half's separator
 * rhs and half 0's bottom, the separators' eliminated rhs (*first, *second). */
static inline HINES_HOST_DEVICE void
level_partition_join_backward(const double *LEVEL_RESTRICT part, int middle, double first_rhs,
                              double second_rhs, double first_bottom, double *first,
                              double *second) {
  *second = fma(-part[CONST_PARTITION_COLUMNS * middle + PARTITION_PREVIOUS_COUPLING], first_bottom,
                second_rhs);
  *first = fma(-part[PARTITION_REDUCED_FACTOR], *second, first_rhs);
}

/* What a half stores at its separator once the join is known, and half 0 what the system adds
 * to its junction's row: the whole sweep's diagonal term (its pivots fixed the parent's) and
 * the row factor times the eliminated rhs of row 0. */
static inline HINES_HOST_DEVICE void level_partition_separator_backward(
    const struct level_block_view *v, int s, int half, const double *LEVEL_RESTRICT constants,
    const double *LEVEL_RESTRICT part, const double *LEVEL_RESTRICT row_factor, double eliminated,
    double *voltage, double *contribution) {
  const int separator = half ? level_partition_middle(v->size[s]) : 0;
  voltage[v->row_offset[separator] + s] =
      eliminated * part[CONST_PARTITION_COLUMNS * separator + PARTITION_SEPARATOR_INVERSE];
  if (half == 0) {
    const int first_row = v->first_row[s];
    const double f0 = row_factor[first_row];
    contribution[2 * s] = f0 * constants[(size_t)first_row * CONST_STRIDE + CONST_OFF_DIAGONAL];
    contribution[2 * s + 1] = f0 * eliminated;
  }
}

/* Both halves by one thread (the CPU's and the GPU's whole sweeps). */
static inline HINES_HOST_DEVICE void level_partition_backward(
    const struct level_block_view *v, int s, const double *LEVEL_RESTRICT constants,
    const double *LEVEL_RESTRICT row_factor, const struct level_step_arguments *args,
    double *voltage, double *LEVEL_RESTRICT contribution,
    const double *LEVEL_RESTRICT child_contribution) {
  const double *part = level_partition_constants(v, s, row_factor);
  double first_bottom, second_bottom;
  const double first_rhs = level_partition_half_backward(v, s, 0, constants, part, args, voltage,
                                                         child_contribution, &first_bottom);
  const double second_rhs = level_partition_half_backward(v, s, 1, constants, part, args, voltage,
                                                          child_contribution, &second_bottom);
  (void)second_bottom;
  double first, second;
  level_partition_join_backward(part, level_partition_middle(v->size[s]), first_rhs, second_rhs,
                                first_bottom, &first, &second);
  level_partition_separator_backward(v, s, 0, constants, part, row_factor, first, voltage,
                                     contribution);
  level_partition_separator_backward(v, s, 1, constants, part, row_factor, second, voltage,
                                     contribution);
}

/* The separators' voltages from their scaled rhs and the junction's voltage. */
static inline HINES_HOST_DEVICE void level_partition_join_forward(const double *LEVEL_RESTRICT part,
                                                                  int middle, double first_scaled,
                                                                  double second_scaled,
                                                                  double junction_voltage,
                                                                  double *first, double *second) {
  *first = fma(-part[PARTITION_SEPARATOR_FACTOR], junction_voltage, first_scaled);
  *second = fma(-part[CONST_PARTITION_COLUMNS * middle + PARTITION_SEPARATOR_FACTOR], *first,
                second_scaled);
}

/* What a forward group reads of rows first .. first + count - 1: their scaled rhs and the two
 * constants the forward sweep takes of each. */
struct level_partition_forward_group {
  double scaled[LEVEL_PARTITION_GROUP], factor[LEVEL_PARTITION_GROUP], spike[LEVEL_PARTITION_GROUP];
};

static inline HINES_HOST_DEVICE void
level_partition_forward_load(const struct level_block_view *v, int s, int first, int end,
                             const double *LEVEL_RESTRICT part, const double *voltage,
                             int constants_ahead, struct level_partition_forward_group *g) {
  LEVEL_UNROLL
  for (int b = 0; b < LEVEL_PARTITION_GROUP; b++)
    if (first + b < end) {
      const int j = first + b;
      g->scaled[b] = voltage[v->row_offset[j] + s];
      if (constants_ahead) {
        g->factor[b] = part[CONST_PARTITION_COLUMNS * j + PARTITION_FACTOR];
        g->spike[b] = part[CONST_PARTITION_COLUMNS * j + PARTITION_SPIKE];
      }
    }
}

/* The start of half `half`'s forward sweep, which needs no voltage of another level: its rows
 * and constants asked of L2 (nothing on a CPU) and its interior's first group loaded, so they
 * can be issued before the wait on the parent's voltage (LEVEL_AFTER_FIRST_LOADS). With
 * constants_ahead (a constant where it is inlined: the lean kernels' two threads a system), each
 * group's constants are loaded with its scaled rhs; without (one thread sweeping both halves in
 * the GPU's whole-system kernels, whose register bounds the larger groups overflow: the tree
 * kernel's 64 spilled 296 bytes; and CPU workers), each row's as the sweep reaches it. */
static inline HINES_HOST_DEVICE void level_partition_forward_begin(
    const struct level_block_view *v, int s, int half, const double *LEVEL_RESTRICT part,
    const double *voltage, int constants_ahead, struct level_partition_forward_group *first_group) {
  const int size = v->size[s], middle = level_partition_middle(size);
  const int separator = half ? middle : 0, end = half ? size : middle;
  level_hint_lines(part + CONST_PARTITION_COLUMNS * (separator + 1),
                   (end - separator - 1) * CONST_PARTITION_COLUMNS);
  if (HINES_ON_GPU)
    for (int j = separator + 1; j < end; j++)
      HINES_PREFETCH_L2(voltage + v->row_offset[j] + s);
  level_partition_forward_load(v, s, separator + 1, end, part, voltage, constants_ahead,
                               first_group);
}

/* Forward sweep of half `half`: its separator's voltage `own`, then its interior from it and
 * the next separator's voltage `next` (0 for the last half, whose spikes are 0), from the first
 * group level_partition_forward_begin loaded, each next group loaded a group ahead
 * (LEVEL_PARTITION_GROUP). */
static inline HINES_HOST_DEVICE void
level_partition_half_forward(const struct level_block_view *v, int s, int half,
                             const double *LEVEL_RESTRICT part, double *voltage, double own,
                             double next, int constants_ahead,
                             const struct level_partition_forward_group *first_group) {
  const int size = v->size[s], middle = level_partition_middle(size);
  const int separator = half ? middle : 0, end = half ? size : middle;
  const int *row_offset = v->row_offset;
  voltage[row_offset[separator] + s] = own;
  double x = own;
  struct level_partition_forward_group current = *first_group, ahead = {.scaled = {0.0}};
  for (int first = separator + 1; first < end; first += LEVEL_PARTITION_GROUP) {
    const int after = first + LEVEL_PARTITION_GROUP;
    if (after < end)
      level_partition_forward_load(v, s, after, end, part, voltage, constants_ahead, &ahead);
    LEVEL_UNROLL
    for (int b = 0; b < LEVEL_PARTITION_GROUP; b++)
      if (first + b < end) {
        const int j = first + b;
        const double factor = constants_ahead
                                  ? current.factor[b]
                                  : part[CONST_PARTITION_COLUMNS * j + PARTITION_FACTOR];
        const double spike = constants_ahead ? current.spike[b]
                                             : part[CONST_PARTITION_COLUMNS * j + PARTITION_SPIKE];
        x = fma(-factor, x, fma(-spike, next, current.scaled[b]));
        voltage[row_offset[j] + s] = x;
      }
    current = ahead;
  }
}

static inline HINES_HOST_DEVICE void
level_partition_forward(const struct level_block_view *v, int s, double *voltage,
                        const double *LEVEL_RESTRICT row_factor,
                        const double *LEVEL_RESTRICT parent_voltage) {
  const double *part = level_partition_constants(v, s, row_factor);
  const int middle = level_partition_middle(v->size[s]), junction = v->junction[s];
  const double first_scaled = voltage[v->row_offset[0] + s];
  const double second_scaled = voltage[v->row_offset[middle] + s];
  struct level_partition_forward_group first_group;
  level_partition_forward_begin(v, s, 0, part, voltage, 0, &first_group);
  LEVEL_AFTER_FIRST_LOADS();
  const double junction_voltage =
      junction >= 0 ? LEVEL_LOAD_PRODUCED(&parent_voltage[junction]) : 0.0;
  double first, second;
  level_partition_join_forward(part, middle, first_scaled, second_scaled, junction_voltage, &first,
                               &second);
  level_partition_half_forward(v, s, 0, part, voltage, first, second, 0, &first_group);
  /* the second half's first group only now: both held at once overflow the register bounds of
   * the GPU's whole-system kernels */
  level_partition_forward_begin(v, s, 1, part, voltage, 0, &first_group);
  level_partition_half_forward(v, s, 1, part, voltage, second, 0.0, 0, &first_group);
}

#endif
