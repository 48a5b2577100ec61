/* StarPU adapters for the level kernels: on CPUs OpenMP over blocks of a level's systems, each
 * block swept row by row (level_rows_cpu.h; with the threads StarPU grants the task), one thread
 * per system on GPUs. */
#include "hines_level_codelets.h"

#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "branch_rows_cpu.h"
#include "cell_block.h"
#include "level_flow.h"
#include "level_rows_cpu.h"
#include "probe_samples.h"
#include "spike_record.h"
#include "step_outputs.h"
#include "task_insert.h"
#ifdef HINES_CUDA_CODELETS
#include "task_streams.h"
#endif
#include "worker_threads.h"

#define VECTOR(i, type) ((type *)STARPU_VECTOR_GET_PTR(buffers[i]))

/* Forward and chunk tasks' arguments carry the probe sample row they fill (-1: none; the probe
 * buffer, codelets/probe_samples.h, is then the task's last buffer but the spike record) and the
 * step number for the spike record (0: none; codelets/spike_record.h, then the last buffer). */
struct forward_task {
  struct level_step_arguments step;
  int sample_row;
  int spike_step;
};
struct chunk_task {
  struct chunk_step_arguments chunk;
  int sample_row;
  int spike_step;
  int steps, run_step; /* chunk_step_data's: the steps advanced, the run's number of the first */
  double run_t0_ms;
  unsigned long long chunk_id; /* chunk_step_data's */
};

/* The start of the task's step j, computed as the submitting loop computes it for one-step
 * tasks (t0 + s * dt), so that a task's length does not change a stimulus time's bits. */
static double chunk_task_time(const struct chunk_task *task, int j) {
  return task->run_t0_ms + (task->run_step + j) * task->chunk.step.dt_ms;
}

static double *samples_if(void *buffers[], int sample_row, int spike_step) {
  if (sample_row < 0)
    return NULL;
  return VECTOR((int)STARPU_TASK_GET_NBUFFERS(starpu_task_get_current()) - 1 - (spike_step > 0),
                double);
}

/* The spike record and its neuron count, or NULL. */
static double *spikes_if(void *buffers[], int spike_step, int *n) {
  if (spike_step <= 0)
    return NULL;
  const int last = (int)STARPU_TASK_GET_NBUFFERS(starpu_task_get_current()) - 1;
  *n = spike_record_neurons(STARPU_VECTOR_GET_NX(buffers[last]));
  return VECTOR(last, double);
}

/* The gates are a seventh buffer when the batch carries Hodgkin-Huxley channels. */
static double *backward_gates(void *buffers[]) {
  return STARPU_TASK_GET_NBUFFERS(starpu_task_get_current()) > 6 ? VECTOR(6, double) : NULL;
}

/* With channels on every compartment, a level's rows are assembled first, row by row and
 * vectorised across systems (level_assemble_rows: the scalar calls' bits, 3x faster than the
 * channel code inside the branch-by-branch sweep); returns whether it did. */
static int assemble_rows(const struct level_block_view *v, const double *constants,
                         const struct level_step_arguments *args, double *voltage, double *factor,
                         double *gates, int threads) {
  if (!gates || args->channels.placement != PLACE_ALL)
    return 0;
  FOR_ON_THREADS(threads, dynamic, j, v->max_size,
                 level_assemble_rows(v, j, j + 1, constants, args, voltage, factor, gates));
  return 1;
}

/* The end of block `block` of the row sweeps (level_rows_cpu.h) over v's systems. */
static int rows_block_end(const struct level_block_view *v, int block) {
  return level_rows_block_begin(v, block + 1);
}

static void level_backward_cpu(void *buffers[], void *cl_arg) {
  struct level_step_arguments args;
  memcpy(&args, cl_arg, sizeof args);
  double *gates = backward_gates(buffers);
  const struct level_block_view v = level_block_describe(VECTOR(0, const int));
  const int threads = starpu_combined_worker_get_size();
  const int assembled = assemble_rows(&v, VECTOR(1, const double), &args, VECTOR(2, double),
                                      VECTOR(3, double), gates, threads);
  const int blocks = (v.systems + LEVEL_ROWS_BLOCK - 1) / LEVEL_ROWS_BLOCK;
  FOR_ON_THREADS(threads, dynamic, block, blocks,
                 level_backward_rows(&v, level_rows_block_begin(&v, block),
                                     rows_block_end(&v, block), VECTOR(1, const double), &args,
                                     VECTOR(2, double), VECTOR(3, double), VECTOR(4, double),
                                     VECTOR(5, const double), gates, assembled,
                                     args.stored_pivots != 0, NULL));
}

static void level_forward_cpu(void *buffers[], void *cl_arg) {
  struct forward_task task;
  memcpy(&task, cl_arg, sizeof task);
  const struct level_block_view v = level_block_describe(VECTOR(0, const int));
  const int blocks = (v.systems + LEVEL_ROWS_BLOCK - 1) / LEVEL_ROWS_BLOCK;
  const int threads = starpu_combined_worker_get_size();
  FOR_ON_THREADS(threads, dynamic, block, blocks,
                 level_forward_rows(&v, level_rows_block_begin(&v, block),
                                    rows_block_end(&v, block), VECTOR(1, double),
                                    VECTOR(2, const double), NULL, VECTOR(3, const double), NULL));
  int n_spiking = 0;
  step_outputs_cpu(VECTOR(1, const double), 0,
                   samples_if(buffers, task.sample_row, task.spike_step), task.sample_row,
                   spikes_if(buffers, task.spike_step, &n_spiking), task.spike_step,
                   task.step.dt_ms);
}

/* The buffers of a chunk_step task, in codelet order (gates only with channels). */
struct chunk_buffers {
  const int *ints;
  const double *constants;
  double *voltage, *factor, *contribution, *gates;
  size_t n_gates; /* per element */
};

static struct chunk_buffers chunk_buffers_of(void *buffers[], int extra, int n_gates) {
  return (struct chunk_buffers){.n_gates = (size_t)n_gates,
                                .ints = VECTOR(0, const int),
                                .constants = VECTOR(1, const double),
                                .voltage = VECTOR(2, double),
                                .factor = VECTOR(3, double),
                                .contribution = VECTOR(4, double),
                                .gates = (int)STARPU_TASK_GET_NBUFFERS(starpu_task_get_current()) >
                                                 5 + extra
                                             ? VECTOR(5, double)
                                             : NULL};
}

/* One part of a chunk task: its slices of the task's buffers. */
static struct chunk_buffers part_buffers(const struct chunk_buffers *b,
                                         const struct chunk_levels *part) {
  return (struct chunk_buffers){.ints = b->ints + part->ints_base,
                                .constants = b->constants,
                                .voltage = b->voltage + part->element_base,
                                .factor = b->factor + part->element_base,
                                .contribution = b->contribution + 2 * part->system_base,
                                .gates =
                                    b->gates ? b->gates + b->n_gates * part->element_base : NULL,
                                .n_gates = b->n_gates};
}

/* Phase A (grounded: response 0) or C (response 1) of the branch step over a part's schedule c
 * on a CPU, level by level, row by row in blocks of systems (codelets/branch_rows_cpu.h); `ec`:
 * the part's element constants (branch_constants_make), or NULL. */
static void branch_phase_cpu(const struct chunk_buffers *b, const struct cell_schedule_view *c,
                             const struct level_step_arguments *step, int threads, int response,
                             const struct branch_element_constants *ec) {
  for (int level = 0; level < c->levels; level++) {
    const struct level_block_view v = level_block_describe(b->ints + c->ints_offset[level]);
    double *voltage = b->voltage + c->element_offset[level];
    double *pairs = b->contribution + 2 * (size_t)c->system_offset[level];
    const struct branch_element_constants level_ec =
        ec ? branch_element_constants_from(ec, (size_t)c->element_offset[level])
           : (struct branch_element_constants){0};
    const int blocks = (v.systems + LEVEL_ROWS_BLOCK - 1) / LEVEL_ROWS_BLOCK;
    FOR_ON_THREADS(threads, dynamic, block, blocks, {
      if (response)
        branch_response_rows(&v, level_rows_block_begin(&v, block), rows_block_end(&v, block),
                             b->constants, step, voltage, pairs, ec ? &level_ec : NULL);
      else
        branch_grounded_rows(&v, level_rows_block_begin(&v, block), rows_block_end(&v, block),
                             b->constants, step, voltage, pairs, ec ? &level_ec : NULL);
    });
  }
}

/* The branch step's three phases over a part's schedule c on a CPU (the whole part, or its
 * trunk); scratch: `doubles` a thread; `ec` as branch_phase_cpu's. */
static void branch_part_cpu(const struct chunk_buffers *b, const struct cell_schedule_view *c,
                            const struct level_step_arguments *step, int threads, double *scratch,
                            size_t doubles, const struct branch_element_constants *ec) {
  branch_phase_cpu(b, c, step, threads, 0, ec);
  FOR_ON_THREADS(threads, dynamic, block, c->blocks,
                 branch_junctions_host(b->ints, c, block, b->constants, step, b->voltage,
                                       b->contribution,
                                       scratch + (size_t)omp_get_thread_num() * doubles));
  branch_phase_cpu(b, c, step, threads, 1, ec);
}

/* The cell-block, on-chip cell or branch step on a CPU: its host emulation, one block at a time
 * per OpenMP thread (the blocks of a part are independent); the on-chip and branch ones give each
 * thread a scratch "shared memory" for the block's own arrays. -1 when that scratch cannot be had:
 * nothing has been computed, the caller sweeps level by level instead (the same bits; the branch
 * kernel's to rounding only). */
static int block_step_cpu(const struct chunk_step_arguments *args, const struct chunk_buffers *all,
                          int threads, const struct branch_element_constants *branch_constants) {
  size_t doubles = 0; /* a thread's scratch (on-chip and branch kernels) */
  for (int p = 0; p < args->n_parts &&
                  (args->kernel == LEVEL_KERNEL_SHARED || args->kernel == LEVEL_KERNEL_BRANCHES);
       p++) {
    const struct chunk_levels *part = &args->parts[p];
    const struct cell_schedule_view c =
        cell_schedule_describe(part_buffers(all, part).ints + part->schedule_offset);
    const size_t part_doubles =
        args->kernel == LEVEL_KERNEL_BRANCHES
            ? BRANCH_VALUE_DOUBLES * (size_t)branch_links_of(&c).most_items
            : (size_t)cell_shared_part(&c)[SHARED_BYTES] / sizeof(double) + 1;
    doubles = part_doubles > doubles ? part_doubles : doubles;
  }
  double *scratch = doubles ? malloc((size_t)threads * doubles * sizeof(double)) : NULL;
  if (doubles && !scratch)
    return -1;
  for (int p = 0; p < args->n_parts; p++) {
    const struct chunk_levels *part = &args->parts[p];
    const struct chunk_buffers b = part_buffers(all, part);
    const struct cell_schedule_view c = cell_schedule_describe(b.ints + part->schedule_offset);
    if (args->kernel == LEVEL_KERNEL_BRANCHES) {
      branch_part_cpu(&b, &c, &args->step, threads, scratch, doubles,
                      branch_constants && branch_constants[p].c_over_dt ? &branch_constants[p]
                                                                        : NULL);
      continue;
    }
    FOR_ON_THREADS(threads, dynamic, block, c.blocks, {
      if (scratch)
        cell_shared_step_host(b.ints, &c, block, b.constants, &args->step, b.voltage, b.gates,
                              scratch + (size_t)omp_get_thread_num() * doubles);
      else
        cell_block_step_host(b.ints, &c, block, b.constants, &args->step, b.voltage, b.factor,
                             b.contribution, b.gates);
    });
  }
  free(scratch);
  return 0;
}

/* One step of the chunk on the CPU, at args->step.time_ms; `element_constants`,
 * `branch_constants`: each part's (element_constants_make, branch_constants_make), or NULL. */
static void chunk_one_step_cpu(const struct chunk_step_arguments *chunk_args,
                               const struct chunk_buffers *all_buffers, int threads,
                               const struct level_element_constants *element_constants,
                               const struct branch_element_constants *branch_constants) {
  const struct chunk_step_arguments args = *chunk_args;
  const struct chunk_buffers all = *all_buffers;
  /* the block kernels' emulations, else (or when the on-chip one has no scratch) level by level */
  const int by_blocks = (args.kernel == LEVEL_KERNEL_CELL || args.kernel == LEVEL_KERNEL_SHARED ||
                         args.kernel == LEVEL_KERNEL_BRANCHES) &&
                        block_step_cpu(&args, &all, threads, branch_constants) == 0;
  for (int p = 0; p < args.n_parts && !by_blocks; p++) {
    /* (the flow kernel's bits are the level kernels': level by level here) */
    const struct chunk_levels *levels = &args.parts[p];
    const struct chunk_buffers b = part_buffers(&all, levels);
    /* Links index the part's arrays: children and junctions are read from their bases. The
     * levels of the trunk (if any) go neuron by neuron. */
    /* A trunk of branches takes a scratch a thread; without it, every level is swept (the
     * same voltages to rounding). Only then is there a schedule to describe. */
    const int with_branches = levels->trunk_branches && levels->tail_levels > 0;
    struct cell_schedule_view trunk_schedule = {0};
    if (with_branches)
      trunk_schedule = cell_schedule_describe(b.ints + levels->schedule_offset);
    const size_t doubles =
        with_branches ? BRANCH_VALUE_DOUBLES * (size_t)branch_links_of(&trunk_schedule).most_items
                      : 0;
    double *scratch = doubles ? malloc((size_t)threads * doubles * sizeof(double)) : NULL;
    const int tail = doubles && !scratch ? 0 : levels->tail_levels;
    const int *trunk = b.ints + levels->trunk_offset;
    const struct level_element_constants *part_constants =
        element_constants && element_constants[p].off_diagonal ? &element_constants[p] : NULL;
    for (int level = levels->n_levels - 1; level >= tail; level--) {
      const struct level_block_view v = level_block_describe(b.ints + levels->ints_offset[level]);
      const size_t e = levels->element_offset[level];
      const struct level_element_constants level_constants =
          part_constants ? level_element_constants_from(part_constants, e)
                         : (struct level_element_constants){0};
      double *gates = b.gates ? b.gates + b.n_gates * e : NULL;
      const int assembled =
          assemble_rows(&v, b.constants, &args.step, b.voltage + e, b.factor + e, gates, threads);
      const int blocks = (v.systems + LEVEL_ROWS_BLOCK - 1) / LEVEL_ROWS_BLOCK;
      FOR_ON_THREADS(
          threads, dynamic, block, blocks,
          level_backward_rows(&v, level_rows_block_begin(&v, block), rows_block_end(&v, block),
                              b.constants, &args.step, b.voltage + e, b.factor + e,
                              b.contribution + 2 * levels->system_offset[level], b.contribution,
                              gates, assembled, args.step.stored_pivots != 0,
                              part_constants ? &level_constants : NULL));
    }
    /* what the backward sweeps above left unstored (passive steps: level_row_factors) */
    const double *row_factor = level_row_factors(b.constants, &args.step, b.gates, 0);
    if (tail > 0 && scratch) {
      branch_part_cpu(&b, &trunk_schedule, &args.step, threads, scratch, doubles, NULL);
    } else if (tail > 0) {
      FOR_ON_THREADS(threads, static, t, levels->trunk_threads,
                     level_trunk_backward(b.ints, trunk, t, b.constants, &args.step, b.voltage,
                                          b.factor, b.contribution, b.gates));
      FOR_ON_THREADS(threads, static, t, levels->trunk_threads,
                     level_trunk_forward(b.ints, trunk, t, b.voltage, b.factor, row_factor));
    }
    for (int level = tail; level < levels->n_levels; level++) {
      const struct level_block_view v = level_block_describe(b.ints + levels->ints_offset[level]);
      const size_t e = levels->element_offset[level];
      const struct level_element_constants level_constants =
          part_constants ? level_element_constants_from(part_constants, e)
                         : (struct level_element_constants){0};
      const int blocks = (v.systems + LEVEL_ROWS_BLOCK - 1) / LEVEL_ROWS_BLOCK;
      FOR_ON_THREADS(threads, dynamic, block, blocks,
                     level_forward_rows(&v, level_rows_block_begin(&v, block),
                                        rows_block_end(&v, block), b.voltage + e, b.factor + e,
                                        row_factor, b.voltage,
                                        part_constants ? &level_constants : NULL));
    }
    free(scratch);
  }
}

/* A chunk task of at least LEVEL_ELEMENT_CONSTANTS_STEPS steps on the CPU, passive and swept
 * level by level, reads each part of at most LEVEL_ELEMENT_CONSTANTS_MAX elements with its
 * element constants (level_rows_cpu.h): five doubles an element, gathered once for the task's
 * steps instead of every step where the rows gather them. */
#define LEVEL_ELEMENT_CONSTANTS_STEPS 4
#define MAX_CHUNK_PARTS 8 /* (runtime/multi_batch.c refuses more) */
#ifndef LEVEL_ELEMENT_CONSTANTS_MAX
#define LEVEL_ELEMENT_CONSTANTS_MAX (1 << 17)
#endif

static size_t part_elements(const struct chunk_levels *part) {
  return part->element_offset[part->n_levels];
}

/* Room for `arrays` doubles an element of each part of at most LEVEL_ELEMENT_CONSTANTS_MAX
 * elements: the memory to free (NULL: no such part, or no memory), and each such part's room in
 * base[p] (the others NULL). */
static double *element_constants_memory(const struct chunk_step_arguments *args, int arrays,
                                        double **base) {
  size_t total = 0;
  for (int p = 0; p < args->n_parts; p++) {
    const size_t elements = part_elements(&args->parts[p]);
    total += elements <= LEVEL_ELEMENT_CONSTANTS_MAX ? elements : 0;
  }
  double *memory = total ? malloc(total * (size_t)arrays * sizeof(double)) : NULL, *at = memory;
  for (int p = 0; p < args->n_parts; p++) {
    const size_t elements = part_elements(&args->parts[p]);
    base[p] = memory && elements <= LEVEL_ELEMENT_CONSTANTS_MAX ? at : NULL;
    if (base[p])
      at += (size_t)arrays * elements;
  }
  return memory;
}

/* Fills ec[0 .. n_parts - 1] (a part left without: all pointers NULL) and returns the memory to
 * free, or NULL when no part gets them. */
static double *element_constants_make(const struct chunk_step_arguments *args,
                                      const struct chunk_buffers *all, int steps,
                                      struct level_element_constants *ec) {
  for (int p = 0; p < args->n_parts; p++)
    ec[p] = (struct level_element_constants){0};
  if (steps < LEVEL_ELEMENT_CONSTANTS_STEPS || all->gates ||
      !(args->kernel == LEVEL_KERNEL_LEVELS || args->kernel == LEVEL_KERNEL_FLOW))
    return NULL;
  const double *inverse_pivots =
      args->step.stored_pivots ? level_stored_pivots(all->constants, &args->step, NULL, 0) : NULL;
  const double *row_factor = level_row_factors(all->constants, &args->step, NULL, 0);
  double *base[MAX_CHUNK_PARTS];
  double *memory = element_constants_memory(args, row_factor ? 5 : 4, base);
  for (int p = 0; p < args->n_parts && memory; p++) {
    if (!base[p])
      continue;
    const struct chunk_levels *part = &args->parts[p];
    const size_t elements = part_elements(part);
    double *at = base[p];
    ec[p] = (struct level_element_constants){.off_diagonal = at,
                                             .diagonal = at + elements,
                                             .c_over_dt = at + 2 * elements,
                                             .leak_current = at + 3 * elements,
                                             .row_factor = row_factor ? at + 4 * elements : NULL,
                                             .pivots = inverse_pivots != NULL};
    const int *ints = all->ints + part->ints_base;
    for (int level = 0; level < part->n_levels; level++) {
      const struct level_block_view v = level_block_describe(ints + part->ints_offset[level]);
      if (!v.padded)
        level_element_constants_fill(&v, all->constants, inverse_pivots, row_factor, &ec[p],
                                     part->element_offset[level]);
    }
  }
  return memory;
}

/* The same for the branch kernel (branch_rows_cpu.h): six doubles an element, for a passive
 * chunk task of at least LEVEL_ELEMENT_CONSTANTS_STEPS steps, each part of at most
 * LEVEL_ELEMENT_CONSTANTS_MAX elements whose levels are all unpadded. */
static double *branch_constants_make(const struct chunk_step_arguments *args,
                                     const struct chunk_buffers *all, int steps,
                                     struct branch_element_constants *ec) {
  for (int p = 0; p < args->n_parts; p++)
    ec[p] = (struct branch_element_constants){0};
  if (steps < LEVEL_ELEMENT_CONSTANTS_STEPS || all->gates || args->kernel != LEVEL_KERNEL_BRANCHES)
    return NULL;
  double *base[MAX_CHUNK_PARTS];
  double *memory = element_constants_memory(args, 6, base);
  for (int p = 0; p < args->n_parts && memory; p++) {
    if (!base[p])
      continue;
    const size_t elements = part_elements(&args->parts[p]);
    double *at = base[p];
    const struct branch_element_constants part_ec = {at,
                                                     at + elements,
                                                     at + 2 * elements,
                                                     at + 3 * elements,
                                                     at + 4 * elements,
                                                     at + 5 * elements};
    const int *ints = all->ints + args->parts[p].ints_base;
    const struct cell_schedule_view c =
        cell_schedule_describe(ints + args->parts[p].schedule_offset);
    int usable = 1;
    for (int level = 0; level < c.levels && usable; level++) {
      const struct level_block_view v = level_block_describe(ints + c.ints_offset[level]);
      /* (every element the level's rows read lies in the part's voltages) */
      usable = !v.padded && (size_t)c.element_offset[level] + (size_t)v.elements <= elements;
      if (usable)
        branch_element_constants_fill(&v, all->constants, args->step.constant_rows, &part_ec,
                                      (size_t)c.element_offset[level]);
    }
    if (usable)
      ec[p] = part_ec;
  }
  return memory;
}

/* A chunk's element constants (element_constants_make, branch_constants_make) kept from its first
 * CPU task to the end of the chunk (chunk_step_forget), instead of gathered anew by every task:
 * they depend only on the chunk's layout and the batch's constants, which no task writes. Made
 * once per task, the gathering (stores a level's width apart) took a quarter of a core's time in
 * tasks of 8 steps (perf, dev machine, random trees in chunks of 22 copies). Dev machine, one CPU
 * worker, 600 steps, five runs each alternating with the build before (medians, ms a step):
 * random trees in chunks of 22 copies 2.72 against 3.67, of 2 copies 0.85 against 0.93; all 15
 * shared cells in chunks of 9 (6.50 against 6.70) and the six cells in chunks of 35 (4.90 against
 * 4.90) even within the machine's spread; again against a CPU-only build of the commit before:
 * 2.47 against 3.12, 0.77 against 0.88, all 15 6.87 against 6.81, six cells 4.42 against 5.22.
 * The cache holds at most LEVEL_ELEMENT_CONSTANTS_CACHE_BYTES in all (counted as five and six
 * doubles an element of every part, an upper bound; a chunk past it gathers per task as before),
 * so a CPU-only run of a large batch does not double its memory; the cores' share beside GPUs (a
 * few million elements) fits. Tasks of one chunk never run at once (they write its voltages), so
 * an entry is used by one task at a time. */
#ifndef LEVEL_ELEMENT_CONSTANTS_CACHE_BYTES
#define LEVEL_ELEMENT_CONSTANTS_CACHE_BYTES ((size_t)256 << 20)
#endif
#define CPU_CONSTANTS_MAX 4096
struct cpu_constants {
  /* the key: the chunk and what its constants were made from (the step's stored pivots and row
   * factors, as element_constants_make reads them) */
  unsigned long long chunk;
  const double *constants, *inverse_pivots, *row_factors;
  const int *ints;
  int kernel;
  /* the constants: each part's, and the memory they lie in (NULL: none made) */
  double *element_memory, *branch_memory;
  size_t bytes;
  struct level_element_constants element[MAX_CHUNK_PARTS];
  struct branch_element_constants branch[MAX_CHUNK_PARTS];
};
static struct cpu_constants cpu_constants_cache[CPU_CONSTANTS_MAX];
static int n_cpu_constants;
static size_t cpu_constants_bytes, cpu_constants_limit = LEVEL_ELEMENT_CONSTANTS_CACHE_BYTES;
static pthread_mutex_t cpu_constants_lock = PTHREAD_MUTEX_INITIALIZER;

size_t chunk_step_cpu_cache_limit(size_t bytes) {
  pthread_mutex_lock(&cpu_constants_lock);
  const size_t before = cpu_constants_limit;
  cpu_constants_limit = bytes;
  pthread_mutex_unlock(&cpu_constants_lock);
  return before;
}

size_t chunk_step_cpu_cache_bytes(void) {
  pthread_mutex_lock(&cpu_constants_lock);
  const size_t bytes = cpu_constants_bytes;
  pthread_mutex_unlock(&cpu_constants_lock);
  return bytes;
}

static size_t parts_elements(const struct chunk_step_arguments *args) {
  size_t elements = 0;
  for (int p = 0; p < args->n_parts; p++)
    elements += part_elements(&args->parts[p]);
  return elements;
}

/* The task's constants in *c: the chunk's cached ones, or made for this task (and kept when the
 * cache has room). Returns 1 when *c is the cache's (the task must not free it). */
static int cpu_constants_get(const struct chunk_task *task, const struct chunk_step_arguments *args,
                             const struct chunk_buffers *all, struct cpu_constants *c) {
  *c = (struct cpu_constants){
      .chunk = task->chunk_id,
      .constants = all->constants,
      .inverse_pivots = args->step.stored_pivots
                            ? level_stored_pivots(all->constants, &args->step, all->gates, 0)
                            : NULL,
      .row_factors = level_row_factors(all->constants, &args->step, all->gates, 0),
      .ints = all->ints,
      .kernel = args->kernel};
  if (args->n_parts > MAX_CHUNK_PARTS)
    return 0;
  /* (a task too short to make them, LEVEL_ELEMENT_CONSTANTS_STEPS, still reads them when kept) */
  const int cacheable = task->chunk_id != 0;
  if (cacheable) {
    pthread_mutex_lock(&cpu_constants_lock);
    for (int i = 0; i < n_cpu_constants; i++) {
      const struct cpu_constants *e = &cpu_constants_cache[i];
      if (e->chunk == c->chunk && e->constants == c->constants && e->ints == c->ints &&
          e->kernel == c->kernel && e->inverse_pivots == c->inverse_pivots &&
          e->row_factors == c->row_factors) {
        *c = *e;
        pthread_mutex_unlock(&cpu_constants_lock);
        return 1;
      }
    }
    pthread_mutex_unlock(&cpu_constants_lock);
  }
  c->element_memory = element_constants_make(args, all, task->steps, c->element);
  c->branch_memory = branch_constants_make(args, all, task->steps, c->branch);
  c->bytes = parts_elements(args) * sizeof(double) *
             ((c->element_memory ? 5 : 0) + (c->branch_memory ? 6 : 0));
  if (!cacheable || (!c->element_memory && !c->branch_memory))
    return 0;
  pthread_mutex_lock(&cpu_constants_lock);
  const int kept =
      n_cpu_constants < CPU_CONSTANTS_MAX && cpu_constants_bytes + c->bytes <= cpu_constants_limit;
  if (kept) {
    cpu_constants_cache[n_cpu_constants++] = *c;
    cpu_constants_bytes += c->bytes;
  }
  pthread_mutex_unlock(&cpu_constants_lock);
  return kept;
}

/* Frees a chunk's cached constants (chunk_step_forget). */
static void cpu_constants_forget(unsigned long long chunk_id) {
  pthread_mutex_lock(&cpu_constants_lock);
  int kept = 0;
  for (int i = 0; i < n_cpu_constants; i++) {
    struct cpu_constants *e = &cpu_constants_cache[i];
    if (e->chunk == chunk_id) {
      free(e->element_memory);
      free(e->branch_memory);
      cpu_constants_bytes -= e->bytes;
    } else {
      cpu_constants_cache[kept++] = *e;
    }
  }
  n_cpu_constants = kept;
  pthread_mutex_unlock(&cpu_constants_lock);
}

static void chunk_step_cpu(void *buffers[], void *cl_arg) {
  struct chunk_task task;
  memcpy(&task, cl_arg, sizeof task);
  struct chunk_step_arguments args = task.chunk;
  const struct chunk_buffers all = chunk_buffers_of(
      buffers, (task.sample_row >= 0) + (task.spike_step > 0), task.chunk.step.channels.n_gates);
  const int threads = starpu_combined_worker_get_size();
  double *samples = samples_if(buffers, task.sample_row, task.spike_step);
  int n_spiking = 0;
  double *spikes = spikes_if(buffers, task.spike_step, &n_spiking);
  struct cpu_constants c;
  const int cached = cpu_constants_get(&task, &args, &all, &c);
  for (int j = 0; j < task.steps; j++) {
    args.step.time_ms = chunk_task_time(&task, j);
    chunk_one_step_cpu(&args, &all, threads, c.element_memory ? c.element : NULL,
                       c.branch_memory ? c.branch : NULL);
    step_outputs_cpu(all.voltage, 0, j == task.steps - 1 ? samples : NULL, task.sample_row, spikes,
                     task.spike_step > 0 ? task.spike_step + j : 0, args.step.dt_ms);
  }
  if (!cached) {
    free(c.element_memory);
    free(c.branch_memory);
  }
}

#ifdef HINES_CUDA_CODELETS
/* Streams for the parts of a chunk task, one set per CUDA worker (created on first use by the
 * worker's thread, on its device). Each part has a low-priority stream for its large levels
 * (part 0's is StarPU's own stream) and a high-priority one for its small levels: a small level
 * is latency-bound (its threads cannot fill the GPU, each walks its branch alone), so while one
 * part works through its small levels near the root, the block scheduler gives them SMs first
 * and fills the rest with another part's large levels. Without the priorities the blocks of a
 * large kernel already queued run first and the parts do not overlap (measured on the H200). */
#define MAX_STREAM_PARTS 8
struct part_streams {
  int ready;
  int small_level_systems; /* below this many systems a level goes to the urgent stream */
  cudaStream_t bulk[MAX_STREAM_PARTS], urgent[MAX_STREAM_PARTS];
  cudaEvent_t switched[MAX_STREAM_PARTS], deepest_done[MAX_STREAM_PARTS], done[MAX_STREAM_PARTS];
};
static struct part_streams part_streams_of_worker[STARPU_NMAXWORKERS];

static struct part_streams *part_streams_get(cudaStream_t local) {
  struct part_streams *ps = &part_streams_of_worker[starpu_worker_get_id_check()];
  if (!ps->ready) {
    int least, greatest, device, sms;
    if (cudaDeviceGetStreamPriorityRange(&least, &greatest) != cudaSuccess ||
        cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
      return NULL;
    /* Threads an SM keeps resident for these kernels, about: a level with fewer systems than
     * the GPU holds threads leaves SMs idle. */
    ps->small_level_systems = sms * 512;
    for (int p = 0; p < MAX_STREAM_PARTS; p++) {
      if ((p > 0 && cudaStreamCreateWithPriority(&ps->bulk[p], cudaStreamNonBlocking, least)) ||
          cudaStreamCreateWithPriority(&ps->urgent[p], cudaStreamNonBlocking, greatest) ||
          cudaEventCreateWithFlags(&ps->switched[p], cudaEventDisableTiming) ||
          cudaEventCreateWithFlags(&ps->deepest_done[p], cudaEventDisableTiming) ||
          cudaEventCreateWithFlags(&ps->done[p], cudaEventDisableTiming))
        return NULL;
    }
    ps->ready = 1;
  }
  ps->bulk[0] = local; /* StarPU's stream for this worker carries part 0's large levels */
  return ps;
}

/* Where one part's kernels go: the stream of the previous kernel, switched (one event) when a
 * level's size class differs. A lone part uses StarPU's stream only. */
struct part_queue {
  cudaStream_t bulk, urgent, current;
  cudaEvent_t switched;
  int small_level_systems;
};

static cudaStream_t part_queue_for(struct part_queue *q, int systems, int *status) {
  cudaStream_t want = systems < q->small_level_systems ? q->urgent : q->bulk;
  if (want != q->current && !*status) {
    *status = (int)cudaEventRecord(q->switched, q->current);
    if (!*status)
      *status = (int)cudaStreamWaitEvent(want, q->switched, 0);
    q->current = want;
  }
  return q->current;
}

/* Queues one part's step; records `deepest_done` (if any) after the backward kernel of its
 * deepest level and leaves the queue on the stream of its last kernel. With `early`, the kernels
 * are launched early as level_plan_launches says (all on one stream). */
static int chunk_part_cuda(const struct chunk_buffers *b, const struct chunk_levels *levels,
                           struct level_step_arguments step, int rows_apart_below,
                           struct part_queue *q, cudaEvent_t deepest_done, int early) {
  int status = 0;
  const int tail = levels->tail_levels, n_levels = levels->n_levels;
  int *backward = malloc(3 * (size_t)n_levels * sizeof *backward), *forward = backward + n_levels;
  int *apart = forward + n_levels;
  size_t *row_offsets = malloc(2 * (size_t)n_levels * sizeof *row_offsets);
  int trunk_launch;
  if (!backward || !row_offsets) {
    free(backward), free(row_offsets);
    return (int)cudaErrorMemoryAllocation;
  }
  level_plan_launches(n_levels, levels->systems, tail, levels->trunk_threads, early, backward,
                      forward, &trunk_launch);
  /* what the backward kernels leave unstored (passive steps: level_row_factors) */
  const double *row_factor = level_row_factors(b->constants, &step, b->gates, 0);
  /* Rows apart (enum level_rows), as the CPU codelets assemble them: channels on every
   * compartment, no trunk (whose sweeps build their own rows), the levels of fewer systems than
   * rows_apart_below. One row kernel builds them all before the first backward kernel, which
   * waits for it before any load (level_plan_launches made it so). */
  int n_apart = 0;
  for (int level = 0; level < n_levels; level++) {
    apart[level] = b->gates && step.channels.placement == PLACE_ALL && tail == 0 &&
                   levels->systems[level] > 0 && levels->systems[level] < rows_apart_below;
    if (apart[level]) {
      row_offsets[n_apart] = levels->ints_offset[level];
      row_offsets[n_levels + n_apart++] = levels->element_offset[level];
    }
  }
  if (n_apart > 0) {
    cudaStream_t stream = part_queue_for(q, q->small_level_systems, &status);
    if (!status)
      status = level_rows_cuda(b->ints, levels->host_ints, n_apart, row_offsets,
                               row_offsets + n_levels, b->constants, &step, b->voltage, b->factor,
                               b->gates, early ? LEVEL_LAUNCH_EARLY : LEVEL_LAUNCH_PLAIN, stream);
  }
  free(row_offsets);
  for (int level = n_levels - 1; level >= tail && !status; level--) {
    const size_t e = levels->element_offset[level];
    step.systems = levels->systems[level];
    cudaStream_t stream = part_queue_for(q, step.systems, &status);
    if (!status && backward[level] >= 0)
      status = level_backward_cuda(
          b->ints + levels->ints_offset[level], levels->host_ints + levels->ints_offset[level],
          levels->systems[level], b->constants, &step, b->voltage + e, b->factor + e,
          b->contribution + 2 * levels->system_offset[level], b->contribution,
          b->gates ? b->gates + b->n_gates * e : NULL, apart[level],
          (enum level_launch)backward[level], stream);
    if (!status && level == n_levels - 1 && deepest_done)
      status = (int)cudaEventRecord(deepest_done, stream);
  }
  if (trunk_launch >= 0 && !status && levels->trunk_branches) { /* the branch step's three */
    cudaStream_t stream = part_queue_for(q, levels->trunk_threads, &status);
    if (!status)
      status = branch_step_cuda(b->ints, b->ints + levels->schedule_offset,
                                levels->host_ints + levels->schedule_offset, b->constants, &step,
                                b->voltage, b->contribution, stream);
  } else if (trunk_launch >= 0 && !status) { /* the trunk: both sweeps, one thread per neuron */
    const int *trunk = b->ints + levels->trunk_offset;
    cudaStream_t stream = part_queue_for(q, levels->trunk_threads, &status);
    if (!status)
      status = level_trunk_backward_cuda(b->ints, trunk, levels->trunk_threads, b->constants, &step,
                                         b->voltage, b->factor, b->contribution, b->gates,
                                         (enum level_launch)trunk_launch, stream);
    if (!status)
      status =
          level_trunk_forward_cuda(b->ints, trunk, levels->trunk_threads, b->voltage, b->factor,
                                   row_factor, (enum level_launch)trunk_launch, stream);
  }
  for (int level = tail; level < n_levels && !status; level++) {
    const size_t e = levels->element_offset[level];
    cudaStream_t stream = part_queue_for(q, levels->systems[level], &status);
    if (!status && forward[level] >= 0)
      status = level_forward_cuda(
          b->ints + levels->ints_offset[level], levels->host_ints + levels->ints_offset[level],
          levels->systems[level], b->voltage + e, b->factor + e, row_factor, b->voltage,
          step.lean_sweeps, (enum level_launch)forward[level], stream);
  }
  free(backward);
  return status;
}

/* A chunk's step as one CUDA graph. A chunk task queues a kernel or two per level (some 70 for
 * the real-SWC mix), which costs the thread driving the GPU more time than the GPU spends on a
 * small chunk: with 16 chunks per step the launches, not the GPU, set the pace. So the first
 * step of each chunk is captured into a graph, and later steps launch that graph, one call.
 * What a step computes depends on its time only through the stimulus being on or off
 * (stimulus_current), so a chunk keeps one graph for each, exact for every step; a graph is
 * also bound to the device and the buffers' addresses (StarPU keeps them while the data stays
 * on the GPU; a chunk evicted and fetched again gets new graphs). */
#define CHUNK_GRAPHS_MAX 4096
struct chunk_graph {
  unsigned long long chunk; /* chunk_step_data's chunk_id */
  int device, stimulated, early, rows_apart_below, priorities;
  const void *buffers[6];
  cudaGraphExec_t exec; /* NULL: capture failed, launch the kernels one by one */
};
static struct chunk_graph chunk_graphs[CHUNK_GRAPHS_MAX];
static int n_chunk_graphs;
static pthread_mutex_t chunk_graphs_lock = PTHREAD_MUTEX_INITIALIZER;

/* The cached graph for this chunk step, or NULL with *slot set to where a new one goes (-1:
 * none, the cache is full). */
static struct chunk_graph *chunk_graph_find(const struct chunk_graph *key, int *slot) {
  struct chunk_graph *found = NULL;
  pthread_mutex_lock(&chunk_graphs_lock);
  for (int i = 0; i < n_chunk_graphs && !found; i++) {
    const struct chunk_graph *g = &chunk_graphs[i];
    if (g->chunk == key->chunk && g->device == key->device && g->stimulated == key->stimulated &&
        g->early == key->early && g->rows_apart_below == key->rows_apart_below &&
        g->priorities == key->priorities &&
        memcmp(g->buffers, key->buffers, sizeof g->buffers) == 0)
      found = &chunk_graphs[i];
  }
  *slot = found || n_chunk_graphs == CHUNK_GRAPHS_MAX ? -1 : n_chunk_graphs++;
  if (*slot >= 0)
    chunk_graphs[*slot] = *key; /* exec NULL until captured: a failed capture stays NULL */
  pthread_mutex_unlock(&chunk_graphs_lock);
  return found;
}

/* Small levels first (chunk_step_arguments.level_priorities): gives each kernel node of a
 * captured step the device's highest stream priority when its grid holds fewer threads than an
 * eighth of what the GPU keeps resident (256 of 2,048 a multiprocessor; 512 measured 0-2 %
 * slower), its lowest otherwise, and
 * returns the flag that makes the graph use them. Chunks sharing a GPU run on their tasks' own
 * streams; with priorities the block scheduler dispatches the few blocks of one chunk's
 * latency-bound levels near the root as soon as an SM has room, instead of after the blocks
 * another chunk's large levels have queued, so those levels' chains overlap the large levels'
 * streaming. Which kernel runs when changes, never what it computes (same bits). Measured on the
 * H200 (BENCHMARKS.md, "Small levels first"). Returns 0 (graph unchanged) where the device or
 * the graph cannot say. */
static unsigned long long graph_small_levels_first(cudaGraph_t graph) {
  int least = 0, greatest = 0, device = 0, sms = 0;
  size_t n = 0;
  if (cudaDeviceGetStreamPriorityRange(&least, &greatest) != cudaSuccess || least == greatest ||
      cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaGraphGetNodes(graph, NULL, &n) != cudaSuccess || n == 0) {
    (void)cudaGetLastError();
    return 0;
  }
  cudaGraphNode_t *nodes = malloc(n * sizeof *nodes);
  int failed = !nodes || cudaGraphGetNodes(graph, nodes, &n) != cudaSuccess;
  const long long small_threads = 256LL * sms;
  for (size_t i = 0; i < n && !failed; i++) {
    enum cudaGraphNodeType type;
    struct cudaKernelNodeParams params;
    if (cudaGraphNodeGetType(nodes[i], &type) != cudaSuccess || type != cudaGraphNodeTypeKernel)
      continue;
    failed = cudaGraphKernelNodeGetParams(nodes[i], &params) != cudaSuccess;
    const long long threads = (long long)params.gridDim.x * params.gridDim.y * params.gridDim.z *
                              params.blockDim.x * params.blockDim.y * params.blockDim.z;
    cudaLaunchAttributeValue value;
    memset(&value, 0, sizeof value);
    value.priority = threads < small_threads ? greatest : least;
    failed = failed || cudaGraphKernelNodeSetAttribute(nodes[i], cudaLaunchAttributePriority,
                                                       &value) != cudaSuccess;
  }
  free(nodes);
  (void)cudaGetLastError();
  return failed ? 0 : (unsigned long long)cudaGraphInstantiateFlagUseNodePriority;
}

/* Captures this part's step, as queued on `stream`, into the graph of `slot` (chunk_graph_find);
 * the slot keeps NULL where the capture fails, and the step then goes as plain launches. */
static void chunk_part_capture(int slot, const struct chunk_buffers *b,
                               const struct chunk_levels *part, struct level_step_arguments step,
                               int rows_apart_below, int priorities, int early,
                               cudaStream_t stream) {
  struct part_queue q = {.bulk = stream, .urgent = stream, .current = stream};
  cudaGraph_t graph = NULL;
  cudaGraphExec_t exec = NULL;
  int status = (int)cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
  if (!status) {
    int queued = chunk_part_cuda(b, part, step, rows_apart_below, &q, NULL, early);
    status = (int)cudaStreamEndCapture(stream, &graph);
    if (!status)
      status = queued;
  }
  if (!status)
    status =
        (int)cudaGraphInstantiate(&exec, graph, priorities ? graph_small_levels_first(graph) : 0);
  if (graph)
    cudaGraphDestroy(graph);
  if (status) {
    (void)cudaGetLastError();
    return;
  }
  pthread_mutex_lock(&chunk_graphs_lock);
  chunk_graphs[slot].exec = exec;
  pthread_mutex_unlock(&chunk_graphs_lock);
}

static int stimulated_at(const struct stimulus *s, double time_ms) {
  return time_ms >= s->start_ms && time_ms < s->stop_ms;
}

/* Queues one part's step on `stream` through its graph, capturing it first if needed. A chunk
 * that captures its first graph also captures the one for the stimulus's other state (on or
 * off), without running it, so that the switch (1 ms into a run by default) finds both ready:
 * otherwise each chunk's worker stops at the switch to capture and instantiate some 70 kernels
 * while its stream idles, and that chunk ends the run late. Set-up work, done at the first
 * step; measured on two H200s: all 15 cells over 100 steps 2-4 % faster, other batches within
 * noise (BENCHMARKS.md, "Two GPUs over 1,000 steps"). */
static int chunk_part_graph(unsigned long long chunk, const struct chunk_buffers *b,
                            const struct chunk_levels *part, struct level_step_arguments step,
                            int rows_apart_below, int priorities, int early, cudaStream_t stream) {
  struct chunk_graph key = {
      .chunk = chunk,
      .stimulated = stimulated_at(&step.stimulus, step.time_ms),
      .early = early,
      .rows_apart_below = rows_apart_below,
      .priorities = priorities,
      .buffers = {b->ints, b->constants, b->voltage, b->factor, b->contribution, b->gates}};
  struct part_queue q = {.bulk = stream, .urgent = stream, .current = stream};
  if (!chunk || cudaGetDevice(&key.device) != cudaSuccess)
    return chunk_part_cuda(b, part, step, rows_apart_below, &q, NULL, early);
  int slot;
  const struct chunk_graph *cached = chunk_graph_find(&key, &slot);
  if (cached)
    return cached->exec ? (int)cudaGraphLaunch(cached->exec, stream)
                        : chunk_part_cuda(b, part, step, rows_apart_below, &q, NULL, early);
  if (slot < 0)
    return chunk_part_cuda(b, part, step, rows_apart_below, &q, NULL, early);
  chunk_part_capture(slot, b, part, step, rows_apart_below, priorities, early, stream);
  /* The other state's step: the stimulus's start when it is off now, its stop when on. */
  struct level_step_arguments other = step;
  other.time_ms = key.stimulated ? step.stimulus.stop_ms : step.stimulus.start_ms;
  struct chunk_graph other_key = key;
  other_key.stimulated = !key.stimulated;
  int other_slot;
  if (stimulated_at(&step.stimulus, other.time_ms) == other_key.stimulated &&
      !chunk_graph_find(&other_key, &other_slot) && other_slot >= 0)
    chunk_part_capture(other_slot, b, part, other, rows_apart_below, priorities, early, stream);
  pthread_mutex_lock(&chunk_graphs_lock);
  cudaGraphExec_t exec = chunk_graphs[slot].exec;
  pthread_mutex_unlock(&chunk_graphs_lock);
  return exec ? (int)cudaGraphLaunch(exec, stream)
              : chunk_part_cuda(b, part, step, rows_apart_below, &q, NULL, early);
}

/* The flow kernel's mutable device state of one part of a chunk on one device (level_flow.h):
 * its flags, its tile counters (two per sweep) and the number of its next step there. Kept between
 * steps (a flag holds the number of the step that set it, so nothing is reset), freed by
 * chunk_step_forget. */
struct flow_state {
  unsigned long long chunk;
  int part, device, next_step;
  int *flags; /* then the four counters */
};
static struct flow_state flow_states[CHUNK_GRAPHS_MAX];
static int n_flow_states;

/* This part's state on the current device, made (zeroed on `stream`) on first use; NULL when
 * the device memory cannot be had. */
static struct flow_state *flow_state_get(unsigned long long chunk, int part, int systems,
                                         cudaStream_t stream) {
  int device;
  if (cudaGetDevice(&device) != cudaSuccess)
    return NULL;
  struct flow_state *found = NULL;
  pthread_mutex_lock(&chunk_graphs_lock);
  for (int i = 0; i < n_flow_states && !found; i++)
    if (flow_states[i].chunk == chunk && flow_states[i].part == part &&
        flow_states[i].device == device)
      found = &flow_states[i];
  if (!found && n_flow_states < CHUNK_GRAPHS_MAX) {
    const size_t bytes = (2 * (size_t)systems + 4) * sizeof(int);
    int *flags = NULL;
    if (cudaMalloc((void **)&flags, bytes) == cudaSuccess &&
        cudaMemsetAsync(flags, 0, bytes, stream) == cudaSuccess) {
      found = &flow_states[n_flow_states++];
      *found = (struct flow_state){
          .chunk = chunk, .part = part, .device = device, .next_step = 1, .flags = flags};
    } else if (flags) {
      cudaFree(flags);
    }
  }
  pthread_mutex_unlock(&chunk_graphs_lock);
  return found;
}

/* One part's step by the flow kernel; the level kernels where it has no state. */
static int chunk_part_flow(unsigned long long chunk, int p, const struct chunk_buffers *b,
                           const struct chunk_levels *part, struct level_step_arguments step,
                           int early, cudaStream_t stream) {
  const int *host_schedule = part->host_ints + part->schedule_offset;
  struct flow_state *state =
      chunk ? flow_state_get(chunk, p, host_schedule[FLOW_SYSTEMS], stream) : NULL;
  if (!state)
    return chunk_part_graph(chunk, b, part, step, 0, 0, early, stream);
  const int systems = host_schedule[FLOW_SYSTEMS];
  /* one task of a chunk at a time: its steps come in order, never concurrently */
  const int number = state->next_step++;
  return level_flow_cuda(b->ints, b->ints + part->schedule_offset, host_schedule, state->flags,
                         (unsigned *)(state->flags + 2 * (size_t)systems), number, b->constants,
                         &step, b->voltage, b->factor, b->contribution, b->gates, stream);
}

/* Queues one step of the chunk, at args->step.time_ms, on `stream`: the task's own stream
 * (task_streams.h), or StarPU's where the chunk has several parts, whose streams then join it. */
static int chunk_one_step_gpu(const struct chunk_task *task, const struct chunk_step_arguments *a,
                              const struct chunk_buffers *all, cudaStream_t stream) {
  const struct chunk_step_arguments args = *a;
  int status = 0;
  if (args.kernel == LEVEL_KERNEL_SHARED) {
    for (int p = 0; p < args.n_parts && !status; p++) {
      const struct chunk_levels *part = &args.parts[p];
      const struct chunk_buffers b = part_buffers(all, part);
      status = cell_shared_step_cuda(b.ints, b.ints + part->schedule_offset,
                                     part->host_ints + part->schedule_offset, b.constants,
                                     &args.step, b.voltage, b.gates, stream);
    }
  } else if (args.kernel == LEVEL_KERNEL_BRANCHES) {
    for (int p = 0; p < args.n_parts && !status; p++) {
      const struct chunk_levels *part = &args.parts[p];
      const struct chunk_buffers b = part_buffers(all, part);
      status = branch_step_cuda(b.ints, b.ints + part->schedule_offset,
                                part->host_ints + part->schedule_offset, b.constants, &args.step,
                                b.voltage, b.contribution, stream);
    }
  } else if (args.kernel == LEVEL_KERNEL_CELL) {
    for (int p = 0; p < args.n_parts && !status; p++) {
      const struct chunk_levels *part = &args.parts[p];
      const struct chunk_buffers b = part_buffers(all, part);
      status = cell_step_cuda(b.ints, b.ints + part->schedule_offset,
                              part->host_ints + part->schedule_offset, b.constants, &args.step,
                              b.voltage, b.factor, b.contribution, b.gates, stream);
    }
  } else if (args.kernel == LEVEL_KERNEL_FLOW) {
    /* One kernel per part, the parts one after another. */
    for (int p = 0; p < args.n_parts && !status; p++) {
      const struct chunk_buffers b = part_buffers(all, &args.parts[p]);
      status = chunk_part_flow(task->chunk_id, p, &b, &args.parts[p], args.step,
                               args.gpu_launch == GPU_LAUNCH_EARLY, stream);
    }
  } else if (args.n_parts == 1) {
    const struct chunk_buffers b = part_buffers(all, &args.parts[0]);
    status = chunk_part_graph(task->chunk_id, &b, &args.parts[0], args.step, args.rows_apart_below,
                              args.level_priorities, args.gpu_launch == GPU_LAUNCH_EARLY, stream);
  } else {
    struct part_streams *ps = args.n_parts <= MAX_STREAM_PARTS ? part_streams_get(stream) : NULL;
    if (!ps)
      status = (int)cudaErrorInvalidValue;
    /* Part p > 0 starts once part p - 1's deepest level is eliminated (which also orders it
     * after the task's inputs, all on StarPU's stream first); StarPU's stream then waits for
     * every part before the step counts as done. */
    for (int p = 0; p < args.n_parts && !status; p++) {
      struct part_queue q = {.bulk = ps->bulk[p],
                             .urgent = ps->urgent[p],
                             .current = ps->bulk[p],
                             .switched = ps->switched[p],
                             .small_level_systems = ps->small_level_systems};
      if (p > 0)
        status = (int)cudaStreamWaitEvent(q.current, ps->deepest_done[p - 1], 0);
      const struct chunk_buffers b = part_buffers(all, &args.parts[p]);
      if (!status)
        status = chunk_part_cuda(&b, &args.parts[p], args.step, args.rows_apart_below, &q,
                                 ps->deepest_done[p], 0);
      if (!status && q.current != stream)
        status = (int)cudaEventRecord(ps->done[p], q.current);
      if (!status && q.current != stream)
        status = (int)cudaStreamWaitEvent(stream, ps->done[p], 0);
    }
  }
  return status;
}

static void chunk_step_gpu(void *buffers[], void *cl_arg) {
  struct chunk_task task;
  memcpy(&task, cl_arg, sizeof task);
  struct chunk_step_arguments args = task.chunk;
  const struct chunk_buffers all = chunk_buffers_of(
      buffers, (task.sample_row >= 0) + (task.spike_step > 0), task.chunk.step.channels.n_gates);
  double *samples = samples_if(buffers, task.sample_row, task.spike_step);
  int n_spiking = 0;
  double *spikes = spikes_if(buffers, task.spike_step, &n_spiking);
  /* Several parts run on the worker's part streams around StarPU's own (part 0's bulk stream);
   * every other kind of chunk on the task's own stream, so that the chunk tasks a worker keeps
   * queued run concurrently (codelets/task_streams.h). */
  const int parted = args.kernel == LEVEL_KERNEL_LEVELS && args.n_parts > 1;
  cudaStream_t stream = parted ? starpu_cuda_get_local_stream() : hines_task_stream_begin();
  int status = 0;
  /* The task's steps queue back to back: no StarPU work between them. */
  for (int j = 0; j < task.steps && !status; j++) {
    args.step.time_ms = chunk_task_time(&task, j);
    status = chunk_one_step_gpu(&task, &args, &all, stream);
    if (!status)
      status = step_outputs_cuda(
          all.voltage, 0, j == task.steps - 1 ? samples : NULL, task.sample_row, spikes, n_spiking,
          task.spike_step > 0 ? task.spike_step + j : 0, args.step.dt_ms, stream);
  }
  if (!status && !parted)
    status = hines_task_stream_end(stream);
  if (status)
    STARPU_CUDA_REPORT_ERROR((cudaError_t)status);
}

/* The block description lives on the GPU; its system count travels in the arguments. */
static void level_backward_gpu(void *buffers[], void *cl_arg) {
  struct level_step_arguments args;
  memcpy(&args, cl_arg, sizeof args);
  int status = level_backward_cuda(
      VECTOR(0, const int), NULL, args.systems, VECTOR(1, const double), &args, VECTOR(2, double),
      VECTOR(3, double), VECTOR(4, double), VECTOR(5, const double), backward_gates(buffers), 0,
      LEVEL_LAUNCH_PLAIN, starpu_cuda_get_local_stream());
  if (status)
    STARPU_CUDA_REPORT_ERROR((cudaError_t)status);
}

static void level_forward_gpu(void *buffers[], void *cl_arg) {
  struct forward_task task;
  memcpy(&task, cl_arg, sizeof task);
  const struct level_step_arguments args = task.step;
  int status =
      level_forward_cuda(VECTOR(0, const int), NULL, args.systems, VECTOR(1, double),
                         VECTOR(2, const double), NULL, VECTOR(3, const double), args.lean_sweeps,
                         LEVEL_LAUNCH_PLAIN, starpu_cuda_get_local_stream());
  int n_spiking = 0;
  double *samples = samples_if(buffers, task.sample_row, task.spike_step);
  double *spikes = spikes_if(buffers, task.spike_step, &n_spiking);
  if (!status)
    status =
        step_outputs_cuda(VECTOR(1, const double), 0, samples, task.sample_row, spikes, n_spiking,
                          task.spike_step, args.dt_ms, starpu_cuda_get_local_stream());
  if (status)
    STARPU_CUDA_REPORT_ERROR((cudaError_t)status);
}
#endif

void chunk_step_forget(unsigned long long chunk_id) {
  cpu_constants_forget(chunk_id);
#ifdef HINES_CUDA_CODELETS
  pthread_mutex_lock(&chunk_graphs_lock);
  int kept = 0;
  for (int i = 0; i < n_chunk_graphs; i++) {
    if (chunk_graphs[i].chunk == chunk_id) {
      if (chunk_graphs[i].exec)
        cudaGraphExecDestroy(chunk_graphs[i].exec);
    } else {
      chunk_graphs[kept++] = chunk_graphs[i];
    }
  }
  n_chunk_graphs = kept;
  kept = 0;
  int device = -1;
  cudaGetDevice(&device);
  for (int i = 0; i < n_flow_states; i++) {
    if (flow_states[i].chunk == chunk_id) {
      if (cudaSetDevice(flow_states[i].device) == cudaSuccess)
        cudaFree(flow_states[i].flags);
    } else {
      flow_states[kept++] = flow_states[i];
    }
  }
  n_flow_states = kept;
  if (device >= 0)
    cudaSetDevice(device);
  pthread_mutex_unlock(&chunk_graphs_lock);
#else
  (void)chunk_id;
#endif
}

/* Size models (codelets/size_model.h): a task's work is the compartments of its voltage buffer;
 * its kind the channels (and, for chunk tasks, the levels, parts and launch mode). */
static double backward_size(struct starpu_task *task) {
  return (double)starpu_vector_get_nx(STARPU_TASK_GET_HANDLE(task, 2));
}
static uint32_t backward_kind(struct starpu_task *task) {
  const struct level_step_arguments *a = (const struct level_step_arguments *)task->cl_arg;
  return hines_kind_hash(0, channels_cost_kind(&a->channels, a->hh_rates));
}
static double forward_size(struct starpu_task *task) {
  return (double)starpu_vector_get_nx(STARPU_TASK_GET_HANDLE(task, 1));
}
static uint32_t forward_kind(struct starpu_task *task) {
  (void)task;
  return 0;
}
/* A chunk task's work: its compartments times the steps it advances. */
static double chunk_size(struct starpu_task *task) {
  const int steps = ((const struct chunk_task *)task->cl_arg)->steps;
  return (double)starpu_vector_get_nx(STARPU_TASK_GET_HANDLE(task, 2)) * (steps > 1 ? steps : 1);
}
static uint32_t chunk_kind_of(const struct chunk_step_arguments *a) {
  uint32_t hash = hines_kind_hash(0, channels_cost_kind(&a->step.channels, a->step.hh_rates));
  hash = hines_kind_hash(hash, (uint32_t)a->n_parts);
  hash = hines_kind_hash(hash, (uint32_t)a->gpu_launch);
  if (a->kernel != LEVEL_KERNEL_LEVELS) /* the level kernels keep their models' keys */
    hash = hines_kind_hash(hash, (uint32_t)a->kernel);
  return hines_kind_hash(hash, (uint32_t)a->parts[0].n_levels);
}
static uint32_t chunk_kind(struct starpu_task *task) {
  return chunk_kind_of(&((const struct chunk_task *)task->cl_arg)->chunk);
}

/* Priors (compartment-steps per microsecond): the real-SWC mix runs at about 47,000 on one
 * H200 in one chunk, whose longest branch chains cost some 300 us whatever the chunk's size; a
 * CPU core does about 30 (BENCHMARKS.md). */
HINES_DECLARE_CODELET(level_backward, level_backward_cpu, level_backward_gpu, backward_size,
                      backward_kind, 60.0, 40000.0, 10.0, 0x2ca02c);
HINES_DECLARE_CODELET(level_forward, level_forward_cpu, level_forward_gpu, forward_size,
                      forward_kind, 120.0, 80000.0, 10.0, 0xd62728);
HINES_DECLARE_CODELET(chunk_step, chunk_step_cpu, chunk_step_gpu, chunk_size, chunk_kind, 30.0,
                      47000.0, 300.0, 0x9467bd);

double chunk_step_expected_us(const struct chunk_step_arguments *args, int steps, double values,
                              int worker) {
  struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(worker, 0);
  return arch ? size_model_expected_us(&chunk_step_size_model, chunk_kind_of(args),
                                       values * (steps > 1 ? steps : 1), arch)
              : 0.0;
}

double chunk_step_rate_near_us(const struct chunk_step_arguments *args, int steps, double values,
                               int worker, double spread) {
  struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(worker, 0);
  return arch ? size_model_rate_near_us(&chunk_step_size_model, chunk_kind_of(args),
                                        values * (steps > 1 ? steps : 1), arch, spread)
              : 0.0;
}

double chunk_step_largest_measured(const struct chunk_step_arguments *args, int steps, int worker,
                                   double below) {
  struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(worker, 0);
  const int n = steps > 1 ? steps : 1;
  return arch ? size_model_largest_measured(&chunk_step_size_model, chunk_kind_of(args), arch,
                                            below * n) /
                    n
              : 0.0;
}

/* The buffer orders the functions above unpack (VECTOR(i) and chunk_buffers_of). */
int level_backward_insert(const struct level_backward_data *data,
                          const struct level_step_arguments *args, const char *name) {
  struct starpu_data_descr buffers[] = {
      {data->block, STARPU_R},        {data->constants, STARPU_R},
      {data->voltage, STARPU_RW},     {data->factor, STARPU_W},
      {data->contribution, STARPU_W}, {data->child_contribution, STARPU_R},
      {data->gates, STARPU_RW}};
  void *arguments = codelet_arguments_copy(args, sizeof *args);
  if (!arguments)
    return -ENOMEM;
  const struct hines_task_spec spec = {.codelet = &level_backward_codelet,
                                       .buffers = buffers,
                                       .n_buffers = data->gates ? 7 : 6,
                                       .arguments = arguments,
                                       .arguments_size = sizeof *args,
                                       .name = name,
                                       HINES_SIZE_MODEL_DONE(level_backward)};
  return hines_task_insert(&spec);
}

int level_forward_insert(const struct level_forward_data *data,
                         const struct level_step_arguments *args, const char *name) {
  struct starpu_data_descr buffers[6] = {{data->block, STARPU_R},
                                         {data->voltage, STARPU_RW},
                                         {data->factor, STARPU_R},
                                         {data->parent_voltage, STARPU_R}};
  int n = 4;
  int sample_row = data->sample_row, spike_step = data->spike_step;
  hines_task_add_step_outputs(buffers, &n, data->samples, &sample_row, data->spikes, &spike_step);
  const struct forward_task task = {
      .step = *args, .sample_row = sample_row, .spike_step = spike_step};
  void *arguments = codelet_arguments_copy(&task, sizeof task);
  if (!arguments)
    return -ENOMEM;
  const struct hines_task_spec spec = {.codelet = &level_forward_codelet,
                                       .buffers = buffers,
                                       .n_buffers = n,
                                       .arguments = arguments,
                                       .arguments_size = sizeof task,
                                       .name = name,
                                       HINES_SIZE_MODEL_DONE(level_forward)};
  return hines_task_insert(&spec);
}

/* A task's callback with chunk_step_data.ended: the size model's record (size_model_task_done),
 * then the caller's. Its argument, allocated for the task, is freed here. */
struct chunk_step_ending {
  void (*ended)(void *);
  void *ended_argument;
};
static void chunk_step_done(void *argument) {
  struct chunk_step_ending *ending = argument;
  size_model_task_done((void *)&chunk_step_size_model);
  ending->ended(ending->ended_argument);
  free(ending);
}

int chunk_step_insert(const struct chunk_step_data *data, const struct chunk_step_arguments *args,
                      const char *name, unsigned long where) {
  struct starpu_data_descr buffers[8] = {{data->ints, STARPU_R},
                                         {data->constants, STARPU_R},
                                         {data->voltage, STARPU_RW},
                                         {data->factor, STARPU_W},
                                         {data->contribution, STARPU_W}};
  int n = 5;
  if (data->gates)
    buffers[n++] = (struct starpu_data_descr){data->gates, STARPU_RW};
  int sample_row = data->sample_row, spike_step = data->spike_step;
  hines_task_add_step_outputs(buffers, &n, data->samples, &sample_row, data->spikes, &spike_step);
  const struct chunk_task task = {.chunk = *args,
                                  .sample_row = sample_row,
                                  .spike_step = spike_step,
                                  .steps = data->steps > 1 ? data->steps : 1,
                                  /* steps 0: one step at args->step.time_ms */
                                  .run_step = data->steps > 0 ? data->run_step : 0,
                                  .run_t0_ms =
                                      data->steps > 0 ? data->run_t0_ms : args->step.time_ms,
                                  .chunk_id = data->chunk_id};
  struct chunk_step_ending *ending = NULL;
  if (data->ended && !(ending = malloc(sizeof *ending)))
    return -ENOMEM;
  void *arguments = codelet_arguments_copy(&task, sizeof task);
  if (!arguments) {
    free(ending);
    return -ENOMEM;
  }
  if (ending)
    *ending = (struct chunk_step_ending){data->ended, data->ended_argument};
  const struct hines_task_spec spec = {.codelet = &chunk_step_codelet,
                                       .buffers = buffers,
                                       .n_buffers = n,
                                       .arguments = arguments,
                                       .arguments_size = sizeof task,
                                       .name = name,
                                       .where = where,
                                       .done = ending ? chunk_step_done : size_model_task_done,
                                       .done_argument = ending ? (void *)ending
                                                               : (void *)&chunk_step_size_model};
  const int status = hines_task_insert(&spec);
  if (status)
    free(ending); /* never submitted: its callback will not run */
  return status;
}
