#include "placement.h"

#include <math.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "size_model.h"

int placement_cuda_devices(void) {
  int ids[STARPU_NMAXWORKERS],
      n = starpu_worker_get_ids_by_type(STARPU_CUDA_WORKER, ids, STARPU_NMAXWORKERS);
  int devices = 0;
  for (int i = 0; i < n; i++) {
    int seen = 0;
    for (int j = 0; j < i && !seen; j++)
      seen = starpu_worker_get_devid(ids[j]) == starpu_worker_get_devid(ids[i]);
    devices += !seen;
  }
  return devices;
}

int placement_gpu_chunks(void) {
  return PLACEMENT_CHUNKS_PER_GPU * placement_cuda_devices();
}

int placement_neurons_per_task(int requested, int n_neurons, int granule, int chunks_per_gpu) {
  if (requested > 0)
    return requested;
  int cpu = (int)starpu_cpu_worker_get_count();
  const int devices = placement_cuda_devices();
  int gpu_chunks = chunks_per_gpu * devices;
  if (devices > 0 && chunks_per_gpu > 1) { /* no chunk below a GPU-filling size */
    int fit = n_neurons / (devices * PLACEMENT_MIN_GPU_CHUNK_NEURONS);
    gpu_chunks = (fit < 1 ? 1 : fit < chunks_per_gpu ? fit : chunks_per_gpu) * devices;
  }
  int chunks =
      gpu_chunks > 0 ? gpu_chunks : PLACEMENT_CPU_ALONE_CHUNKS_PER_CORE * (cpu > 0 ? cpu : 1);
  int per_task = (n_neurons + chunks - 1) / chunks;
  if (granule > 1)
    per_task = (per_task + granule - 1) / granule * granule;
  return per_task < 1 ? 1 : per_task;
}

int placement_level_chunks_per_gpu(long long compartments, int gpus) {
  const long long chunks =
      compartments / (gpus > 1 ? gpus : 1) / PLACEMENT_LEVEL_CHUNK_COMPARTMENTS;
  if (chunks < 2)
    return compartments / (gpus > 1 ? gpus : 1) >= PLACEMENT_LEVEL_TWO_CHUNKS_FROM ? 2 : 1;
  return chunks > PLACEMENT_LEVEL_MAX_CHUNKS_PER_GPU ? PLACEMENT_LEVEL_MAX_CHUNKS_PER_GPU
                                                     : (int)chunks;
}

int placement_level_priorities(int asked, long long chunk_compartments,
                               long long aligned_compartments, double neuron_compartments) {
  if (asked >= 0)
    return asked != 0;
  if (neuron_compartments >= PLACEMENT_PRIORITIES_LARGE_CELLS_FROM &&
      aligned_compartments > PLACEMENT_PRIORITIES_LARGE_CELLS_UP_TO)
    return 0;
  return chunk_compartments <= PLACEMENT_PRIORITIES_UP_TO_COMPARTMENTS;
}

int placement_level_neurons_per_task(int requested, int n_neurons, long long compartments) {
  const int devices = placement_cuda_devices();
  if (requested > 0 || devices == 0)
    return placement_neurons_per_task(requested, n_neurons, 1, 1);
  const int chunks = placement_level_chunks_per_gpu(compartments, devices) * devices;
  const int per_task = (n_neurons + chunks - 1) / chunks;
  return per_task < 1 ? 1 : per_task;
}

unsigned long placement_sized_for(int requested) {
  if (requested > 0)
    return STARPU_CPU | STARPU_CUDA;
  return starpu_cuda_worker_get_count() > 0 ? STARPU_CUDA : STARPU_CPU;
}

unsigned long placement_where(unsigned long sized_for, int pin) {
  return pin ? sized_for : STARPU_CPU | STARPU_CUDA;
}

unsigned long placement_share_gpu_where(int pin, int calibrating) {
  return placement_where(STARPU_CUDA, pin || calibrating);
}

static int first_worker_of(enum starpu_worker_archtype type) {
  int id = -1;
  starpu_worker_get_ids_by_type(type, &id, 1);
  return id;
}

/* Splits `units` units into `chunks` near-equal chunks (the first ones one larger) at
 * plan->units[first ...]. */
static void split_equal(struct placement_plan *plan, int first, int chunks, int units,
                        unsigned long sized_for) {
  for (int c = 0; c < chunks; c++) {
    plan->units[first + c] = units / chunks + (c < units % chunks);
    plan->sized_for[first + c] = sized_for;
  }
}

static int plan_alloc(struct placement_plan *plan, int chunks) {
  plan->n_chunks = chunks;
  plan->units = malloc((size_t)chunks * sizeof *plan->units);
  plan->sized_for = malloc((size_t)chunks * sizeof *plan->sized_for);
  return plan->units && plan->sized_for ? 0 : -1;
}

/* The largest share of a core (in units) that it finishes, in PLACEMENT_CPU_CHUNKS_PER_CORE
 * tasks, no later than a GPU worker finishes its share of the rest (a little earlier: a late CPU
 * chunk holds up the step, an early one only idles a core); 0 when even one unit would make a CPU
 * core the slower, or when `predict` has no measurement to go by (NAN). */
static int cpu_chunk_units(int n_units, int neurons_per_unit, const struct placement_workers *w,
                           placement_predictor predict, const void *context) {
  const int cpu = w->cpus, cuda = w->gpu_chunks, cpu_worker = w->cpu_worker,
            cuda_worker = w->cuda_worker;
  const int per_core = w->chunks_per_core > 0 ? w->chunks_per_core : PLACEMENT_CPU_CHUNKS_PER_CORE;
  const double ends_by = w->ends_by > 0.0 ? w->ends_by : PLACEMENT_SHARE_ENDS_BY;
  int low = 0, high = n_units / (2 * cpu); /* the CPUs never take more than half */
  while (low < high) {
    int mid = (low + high + 1) / 2;
    int gpu_units = (n_units - mid * cpu + cuda - 1) / cuda;
    /* a core's round: its chunks (per_core, or a unit each when it takes fewer) as the cut
     * below makes them, the cores' units split evenly over their chunks, `larger` of them a unit
     * longer than the others: the mean core's. Costing every chunk as the largest made the round
     * cost as if it held up to per_core - 1 units more: mono big-low x 100,000 with HH (69.5 M)
     * got 8 units of 32 neurons a core, 9 being costed as 12, its cores busy 0.71 of the step
     * (1.025-1.037x the GPU alone on the H200, its cut's ceiling 1.04x) */
    const int tasks = mid < per_core ? mid : per_core;
    int task_units = mid / tasks, larger = mid % tasks;
    if (w->chunks_costed_as_largest && larger > 0)
      task_units++, larger = 0;
    double cpu_us = (tasks - larger) * predict(context, task_units * neurons_per_unit, cpu_worker);
    if (larger > 0)
      cpu_us += larger * predict(context, (task_units + 1) * neurons_per_unit, cpu_worker);
    double gpu_us = predict(context, gpu_units * neurons_per_unit, cuda_worker);
    if (PLACEMENT_SHARE_DEBUG)
      fprintf(stderr,
              "share cut: %d a core (%d tasks of %d, %d of them one more), cores %.1f us, GPU "
              "%.1f us (%d)\n",
              mid, tasks, task_units, larger, cpu_us, gpu_us, gpu_units);
    if (isnan(cpu_us) || !isfinite(gpu_us))
      return 0;
    if (cpu_us <= ends_by * gpu_us) /* (an infinite cpu_us is too slow) */
      low = mid;
    else
      high = mid - 1;
  }
  return low;
}

int placement_cpus_share(long long neurons, long long compartments, int gpus, int window) {
  if (gpus != 1 || window == 1)
    return 0;
  const int large = compartments >= PLACEMENT_LARGE_BATCH_COMPARTMENTS;
  const int many_neurons = neurons >= PLACEMENT_SHARE_NEURONS &&
                           compartments >= PLACEMENT_SHARE_FROM_COMPARTMENTS &&
                           compartments < PLACEMENT_LARGE_BATCH_COMPARTMENTS;
  return large || many_neurons;
}

int placement_share_gpu_interleaved(long long compartments, int gpus, int channels) {
  return gpus > 0 && !placement_large_passive_batch(compartments, gpus, channels);
}

int placement_share_chosen(int asked, long long neurons, long long compartments, int window) {
  if (asked != PLACEMENT_SHARE_AUTO)
    return asked == PLACEMENT_SHARE_ON;
  return placement_cpus_share(neurons, compartments, placement_cuda_devices(), window) &&
         starpu_cpu_worker_get_count() > 0 && placement_model_scheduler();
}

int placement_large_passive_batch(long long compartments, int gpus, int channels) {
  return !channels && gpus > 0 && compartments / gpus >= PLACEMENT_LARGE_BATCH_COMPARTMENTS;
}

int placement_mono_blocks(long long compartments, int gpus, int channels, int share) {
  return gpus == 0 || share == PLACEMENT_SHARE_ON ||
         placement_large_passive_batch(compartments, gpus, channels);
}

int placement_plan_make(struct placement_plan *plan, int requested, int n_neurons, int n_units,
                        int neurons_per_unit, placement_predictor predict, const void *context) {
  const struct placement_workers workers = {.cpus = (int)starpu_cpu_worker_get_count(),
                                            .gpu_chunks = placement_gpu_chunks(),
                                            .cpu_worker = first_worker_of(STARPU_CPU_WORKER),
                                            .cuda_worker = first_worker_of(STARPU_CUDA_WORKER)};
  return placement_plan_make_for(plan, &workers, requested, n_neurons, n_units, neurons_per_unit,
                                 predict, context);
}

int placement_plan_make_for(struct placement_plan *plan, const struct placement_workers *workers,
                            int requested, int n_neurons, int n_units, int neurons_per_unit,
                            placement_predictor predict, const void *context) {
  *plan = (struct placement_plan){0};
  const int cuda = workers->gpu_chunks, cpu = workers->cpus;
  const int heterogeneous = requested <= 0 && cuda > 0 && cpu > 0 && predict;
  const int cpu_units =
      heterogeneous ? cpu_chunk_units(n_units, neurons_per_unit, workers, predict, context) : 0;
  if (cpu_units == 0) {
    int per_task = placement_neurons_per_task(requested, n_neurons, neurons_per_unit,
                                              PLACEMENT_CHUNKS_PER_GPU);
    int units_per_task = (per_task + neurons_per_unit - 1) / neurons_per_unit;
    if (units_per_task < 1)
      units_per_task = 1;
    /* A chunk of the interleaved layout is a band of the batch's rows, so a chunk starting
     * between two 32-neuron boundaries has every warp's 256 bytes straddle three 128-byte lines
     * instead of two. Measured on two H100s (256,000 medium-high neurons): 12 tasks of 21,334
     * 1.05 ms a step, 14 of 18,286 1.06, against 0.77 for 16 of 16,000 and 10 of 25,600;
     * one H100, 128,000 neurons: 6 tasks of 21,334 1.048 against 0.771 for 8 of 16,000 and
     * 0.766 for one task. Small tasks keep their size (tests cut tiny batches finely). */
    if (neurons_per_unit == 1 && units_per_task >= PLACEMENT_ALIGNED_FROM)
      units_per_task = (units_per_task + PLACEMENT_ALIGN_NEURONS - 1) / PLACEMENT_ALIGN_NEURONS *
                       PLACEMENT_ALIGN_NEURONS;
    int chunks = (n_units + units_per_task - 1) / units_per_task;
    if (chunks < 1)
      chunks = 1;
    if (plan_alloc(plan, chunks))
      return -1;
    /* The historical cut: full chunks, the last one shorter (as StarPU's block filters). */
    for (int c = 0; c < chunks; c++) {
      int left = n_units - c * units_per_task;
      plan->units[c] = left < units_per_task ? left : units_per_task;
      plan->sized_for[c] = placement_sized_for(requested);
    }
    return 0;
  }
  /* CPU and GPU workers: GPU chunks, then chunks_per_core chunks per CPU worker
   * (fewer when the cores' share has fewer units). */
  const int gpu_units = n_units - cpu_units * cpu;
  const int gpu_chunks = gpu_units < cuda ? (gpu_units > 0 ? gpu_units : 0) : cuda;
  const int per_core =
      workers->chunks_per_core > 0 ? workers->chunks_per_core : PLACEMENT_CPU_CHUNKS_PER_CORE;
  const int cpu_chunks = cpu_units < per_core ? cpu_units * cpu : per_core * cpu;
  if (plan_alloc(plan, gpu_chunks + cpu_chunks))
    return -1;
  split_equal(plan, 0, gpu_chunks, gpu_units, STARPU_CUDA);
  split_equal(plan, gpu_chunks, cpu_chunks, cpu_units * cpu, STARPU_CPU);
  plan->cpu_chunks = cpu_chunks;
  return 0;
}

int placement_cores_alone(double core_round_us, double gpu_us) {
  return isfinite(core_round_us) && isfinite(gpu_us) && core_round_us > 0.0 &&
         core_round_us <= PLACEMENT_CORES_ALONE_BY * gpu_us;
}

int placement_cores_plan(struct placement_plan *plan, int n_units, int cpus) {
  *plan = (struct placement_plan){0};
  const int wanted = PLACEMENT_CPU_ALONE_CHUNKS_PER_CORE * (cpus > 0 ? cpus : 1);
  const int chunks = n_units < wanted ? (n_units > 0 ? n_units : 1) : wanted;
  if (plan_alloc(plan, chunks))
    return -1;
  split_equal(plan, 0, chunks, n_units, STARPU_CPU);
  plan->cpu_chunks = chunks;
  return 0;
}

int placement_level_share_plan(struct placement_plan *plan, int n_neurons, int gpu_chunks,
                               int chunks_per_core, placement_predictor predict,
                               const void *context) {
  const struct placement_workers workers = {.cpus = (int)starpu_cpu_worker_get_count(),
                                            .gpu_chunks = gpu_chunks,
                                            .chunks_per_core = chunks_per_core,
                                            .cpu_worker = first_worker_of(STARPU_CPU_WORKER),
                                            .cuda_worker = first_worker_of(STARPU_CUDA_WORKER),
                                            .ends_by = PLACEMENT_LEVEL_SHARE_ENDS_BY,
                                            .chunks_costed_as_largest =
                                                PLACEMENT_LEVEL_CHUNKS_COSTED_AS_LARGEST};
  *plan = (struct placement_plan){0};
  if (workers.cpus < 1 || gpu_chunks < 1 || !predict ||
      cpu_chunk_units(n_neurons, 1, &workers, predict, context) == 0)
    return 0;
  return placement_plan_make_for(plan, &workers, 0, n_neurons, n_neurons, 1, predict, context);
}

/* Both a probe's times are numbers it can go by: positive and finite. */
static int probe_times_usable(double measured_us, double predicted_us) {
  return isfinite(measured_us) && measured_us > 0.0 && isfinite(predicted_us) && predicted_us > 0.0;
}

void placement_share_probe_round(double executing_us, double predicted_us,
                                 double *round_measured_us, double *round_predicted_us) {
  const int usable = probe_times_usable(executing_us, predicted_us);
  *round_measured_us = usable ? executing_us / PLACEMENT_SHARE_PROBE_ROUNDS : 0.0;
  *round_predicted_us = usable ? predicted_us : 0.0;
}

double placement_share_probe_scale(double measured_us, double predicted_us, double least) {
  if (!probe_times_usable(measured_us, predicted_us))
    return 1.0;
  const double ratio = measured_us / predicted_us;
  if (fabs(ratio - 1.0) <= PLACEMENT_SHARE_PROBE_BAND)
    return 1.0;
  return ratio < least ? least : ratio;
}

int placement_share_reprobe(double round_us, double bound_us, double band) {
  return band > 0.0 && probe_times_usable(round_us, bound_us) && round_us <= bound_us &&
         round_us > (1.0 - band) * bound_us;
}

int placement_share_probe_again(double measured_us, double predicted_us, double above) {
  return above > 0.0 && probe_times_usable(measured_us, predicted_us) &&
         measured_us > above * predicted_us;
}

double placement_share_idle_growth(double round_us, double gpu_task_us, double ends_by,
                                   double least, double most) {
  if (!probe_times_usable(round_us, gpu_task_us) || !(ends_by > 0.0))
    return least;
  const double growth = ends_by * gpu_task_us / round_us;
  return growth < least ? least : growth > most ? most : growth;
}

double placement_share_busiest_scale(double busiest_us, double round_us, int cores,
                                     double gpu_task_us, double ends_by) {
  if (!probe_times_usable(busiest_us, round_us) || !probe_times_usable(gpu_task_us, ends_by) ||
      cores < 1 || busiest_us <= ends_by * gpu_task_us)
    return 1.0;
  const double imbalance = busiest_us * cores / round_us;
  return imbalance > 1.0 ? imbalance : 1.0;
}

int placement_level_cpus_share(long long compartments, int gpus, int channels, int window) {
  return gpus > 0 && !channels && window != 1 &&
         compartments / gpus >= PLACEMENT_LEVEL_SHARE_FROM_COMPARTMENTS;
}

int placement_level_share_chosen(int asked, long long compartments, int channels, int window) {
  if (asked != PLACEMENT_SHARE_AUTO)
    return asked == PLACEMENT_SHARE_ON;
  return placement_level_cpus_share(compartments, placement_cuda_devices(), channels, window) &&
         starpu_cpu_worker_get_count() > 0 && placement_model_scheduler();
}

int placement_level_window(int requested, int share) {
  if (requested > 0)
    return requested;
  return share ? PLACEMENT_LEVEL_SHARE_WINDOW : RUNTIME_DEFAULT_WINDOW;
}

int placement_level_arranged(int asked, int gpus, int share) {
  if (asked != PLACEMENT_SHARE_AUTO)
    return asked == PLACEMENT_SHARE_ON;
  return share || gpus == 0;
}

void placement_plan_free(struct placement_plan *plan) {
  free(plan->units);
  free(plan->sized_for);
  *plan = (struct placement_plan){0};
}

int placement_home_node(int index, int count) {
  const int devices = placement_cuda_devices();
  if (devices == 0 || count < 1 || index < 0 || index >= count)
    return -1;
  const int device = (int)((long long)index * devices / count);
  /* the memory node of a worker of the device-th GPU, in the order StarPU numbers them */
  int ids[STARPU_NMAXWORKERS],
      n = starpu_worker_get_ids_by_type(STARPU_CUDA_WORKER, ids, STARPU_NMAXWORKERS);
  int seen = 0;
  for (int i = 0; i < n; i++) {
    int first = 1;
    for (int j = 0; j < i && first; j++)
      first = starpu_worker_get_devid(ids[j]) != starpu_worker_get_devid(ids[i]);
    if (first && seen++ == device)
      return (int)starpu_worker_get_memory_node(ids[i]);
  }
  return -1;
}

void placement_prefetch(void *handle, int node) {
  if (!handle || node < 0)
    return;
  starpu_data_prefetch_on_node((starpu_data_handle_t)handle, (unsigned)node, 1);
  /* The scheduler's models keep tasks writing it on that GPU unless it falls behind. */
  size_model_set_home((starpu_data_handle_t)handle, starpu_memory_node_get_devid((unsigned)node));
}

void placement_cpu_home(void *handle) {
  size_model_set_cpu_home((starpu_data_handle_t)handle);
}

void placement_gpus_home(void *handle) {
  size_model_set_gpus_home((starpu_data_handle_t)handle);
}

void placement_cpu_homes_open(int open) {
  size_model_open_cpu_homes(open);
}

void placement_forget_home(void *handle) {
  size_model_forget_home((starpu_data_handle_t)handle);
}

int placement_model_scheduler(void) {
  return strncmp(runtime_scheduler(), "dm", 2) == 0;
}

int placement_multi_task_steps(int requested) {
  if (requested > 0)
    return requested;
  if (placement_cuda_devices() == 0)
    return PLACEMENT_CPU_TASK_STEPS;
  const int cpus_idle = starpu_cpu_worker_get_count() == 0 || placement_model_scheduler();
  return cpus_idle ? PLACEMENT_MULTI_TASK_STEPS : 1;
}

int placement_share_task_steps(int requested) {
  return requested > 0 ? requested : PLACEMENT_SHARE_TASK_STEPS;
}

int placement_level_share_task_steps(int requested) {
  return requested > 0 ? requested : PLACEMENT_LEVEL_SHARE_TASK_STEPS;
}

int placement_task_steps(int requested, const struct placement_plan *plan,
                         int smallest_chunk_neurons) {
  if (requested > 0)
    return requested;
  /* CPU workers beside the GPUs: only when they got no chunk of their own and a model-based
   * scheduler keeps the GPU-sized chunks off them (eager would give one to an idle core). */
  const int cpus_idle =
      starpu_cpu_worker_get_count() == 0 || (plan->cpu_chunks == 0 && placement_model_scheduler());
  const int devices = placement_cuda_devices();
  const int few_per_gpu = devices > 0 && plan->n_chunks <= PLACEMENT_FEW_CHUNKS_PER_GPU * devices;
  if (plan->cpu_chunks > 0 && starpu_cpu_worker_get_count() > 0)
    return placement_share_task_steps(requested);
  if (devices == 0)
    return PLACEMENT_CPU_TASK_STEPS;
  if (!cpus_idle)
    return 1;
  return smallest_chunk_neurons >= PLACEMENT_MIN_GPU_CHUNK_NEURONS || few_per_gpu
             ? PLACEMENT_GPU_TASK_STEPS
             : PLACEMENT_MANY_CHUNKS_TASK_STEPS;
}

double placement_core_prediction(double expected, double at_largest, double largest, double size,
                                 double reach) {
  if (!(largest > 0.0) || size <= largest)
    return expected;
  if (size > reach * largest)
    return INFINITY;
  const double proportional = at_largest * size / largest;
  return proportional > expected ? proportional : expected;
}
