/* The simulation as the program drives it: the batch the options describe behind four
 * operations, the time loop with its probes, and the verification against the sequential
 * reference. */
#ifndef HINES_SIMULATION_H
#define HINES_SIMULATION_H

#include "morphology.h"
#include "options.h"
#include "spike_set.h"

/* Mono and multi batches seen through the operations the time loop, the verification and the
 * report need. */
struct batch_ops {
  void *batch;
  /* The batch's neurons are first_neuron .. first_neuron + n_neurons - 1 of the whole batch (a
   * rank's share of a distributed run; 0 and o->neurons otherwise). The operations below take
   * indices from 0 within the batch. */
  int first_neuron, n_neurons;
  /* Submits steps (the last one filling probe row sample_row unless it is -1) without waiting
   * for them; sync waits for everything submitted. */
  int (*run)(void *batch, int steps, double t0_ms, int sample_row);
  void (*sync)(void *batch);
  /* Probes sampled on the device, and their rows read back once at the end. */
  int (*probes)(void *batch, int n, const int *neuron, const int *compartment, int rows,
                struct hines_error *err);
  void (*probes_read)(void *batch, int rows, double *values);
  /* Spike detection on the device (runtime/spike_set.h): set up before the first step, read
   * without waiting at least every SPIKE_SET_READ_EVERY steps (spike_set_request, more steps
   * following) and, waiting, at the end (spike_set_read), through the batch's spike_set. */
  int (*spikes)(void *batch, double threshold_mV, struct hines_error *err);
  struct spike_set *(*spike_set)(void *batch);
  void (*voltage)(void *batch, int neuron, double *out_mV);
  int (*find_nonfinite)(void *batch, int *neuron, int *compartment);
  int tasks_per_step;
  int task_steps;         /* steps per step task (mono; 1 otherwise) */
  int cpu_share_neurons;  /* mono: neurons in the chunks cut for CPU cores (0: no share) */
  int window;             /* steps submitted ahead (0: the runtime's default) */
  int arranged_neurons;   /* multi: neurons laid out by morphology (0: round robin) */
  int aligned_neurons;    /* multi: neurons in GPU chunks of aligned rows (0: none) */
  int aligned_tail;       /* multi: of those, the first cell's taken from the share's tail */
  int interleaved_chunks; /* mono: block-layout chunks stored interleaved (the GPU's) */
  int share_uncalibrated; /* mono: a share chosen, none cut: the models lack measurements */
  int probed_neurons;     /* the cores' share's first cut, probed (*_batch_share_probe) */
  double probe_measured_us, probe_predicted_us; /* ... a round of it on the cores (0: none) */
  /* multi: the probe's busiest core's round, the GPUs' largest chunk's predicted task (0: none) */
  double probe_busiest_us, probe_gpu_task_us;
  int set_up_neurons;        /* multi: the share a whole set larger, probed (0: none) */
  double set_up_measured_us; /* ... a round of it on the cores (multi_batch_share_set_up) */
  int cell_neurons;          /* multi, --level-kernel cell: neurons per block (resolved); else 0 */
  int level_kernel;          /* multi: the chunk tasks' enum level_kernel (auto resolved) */
  int rows_apart_below;      /* multi: levels of fewer systems build their rows apart on GPUs */
  int trunk_levels;          /* multi: the levels a trunk of branches solves (0: none) */
  long long warp_systems; /* multi: branches GPUs sweep with warps (the resolved --level-warps) */
  int level_priorities;   /* multi: small levels first (the resolved --level-priorities) */
  const struct morphology *morphologies;
  int n_morphologies; /* neuron k has morphologies[k % n_morphologies] */
};

/* One rank's share of a distributed run and what it measured (the JSON summary's "ranks"). */
struct rank_share {
  int first_neuron, neurons, cpu_workers, cuda_workers, tasks_per_step;
  int node_rank, first_core, last_core, gpu_driver_pu; /* how the rank shared its node */
  char gpu[128];                                       /* its first GPU, as StarPU names it */
  long long compartments;
  long long tasks_on_gpus, tasks_on_cpus;   /* where its StarPU ran its tasks; -1: not counted */
  double seconds_steps, seconds_first_step; /* over the timed steps, and the first */
};

/* The spikes of a run (--spikes): every upward crossing of the threshold at a soma, sorted by
 * neuron (the batch's numbering from 0, plus first_neuron) then time. */
struct spike_report {
  struct spike *spikes;
  size_t n_spikes;
  int neurons, neurons_with_spikes;
  long long min_per_neuron, max_per_neuron;
  int lost; /* a ring overflowed between two reads (never expected: spike_set.h) */
};

struct run_result {
  double seconds_total, seconds_steps, seconds_first_step, max_rel_error;
  double backward_error; /* --verify: the batch's, against the reference's last step */
  int timed_steps;       /* steps after the first, over which seconds_steps is measured */
  int tasks_per_step;
  int task_steps;         /* steps each step task advanced */
  int cpu_share_neurons;  /* batch_ops' */
  int window;             /* batch_ops' */
  int arranged_neurons;   /* batch_ops' */
  int aligned_neurons;    /* batch_ops' */
  int aligned_tail;       /* batch_ops' */
  int interleaved_chunks; /* batch_ops' */
  int share_uncalibrated; /* batch_ops' */
  int probed_neurons;     /* batch_ops' */
  double probe_measured_us, probe_predicted_us;
  double probe_busiest_us, probe_gpu_task_us; /* batch_ops' */
  int set_up_neurons;                         /* batch_ops' */
  double set_up_measured_us;
  int cell_neurons;       /* batch_ops' */
  int level_kernel;       /* batch_ops' */
  int rows_apart_below;   /* batch_ops' */
  int trunk_levels;       /* batch_ops' */
  long long warp_systems; /* batch_ops' */
  int level_priorities;   /* batch_ops' */
  int verified;
  int verified_neurons; /* distinct neurons the verification re-simulated */
  long long compartments;
  /* A distributed run: one share per rank, in rank order (rank 0's copy); NULL otherwise. */
  int ranks;
  const struct rank_share *shares;
  double seconds_gather;   /* the final gathers on rank 0 (shares, verification, probe columns) */
  double seconds_building; /* simulation_create: the batch built, its share probed, registered */
  /* Before it: the inputs read and StarPU started; after the steps: the final checks, outputs
   * and the batch released (its voltages home), StarPU stopped. */
  double seconds_starting, seconds_ending;
  const struct spike_report *spikes; /* with --spikes */
};

/* Probe samples: rows of (time, one voltage per probe), kept in memory and written at the end. */
struct probe_record {
  int every; /* steps between samples */
  long long rows, capacity;
  double *values; /* rows x (1 + n_probes) */
  const struct options *o;
  double *scratch; /* the rows as the batch's probe buffers return them */
  /* The probes this process samples (all of them, or a rank's share): their columns. */
  int n_local;
  int column[MAX_PROBES];
};

double now_seconds(void);

/* Settles --mode auto once the workers are known (o->mode becomes "mono" or "multi", with
 * o->mode_reason); leaves a given mode alone. */
void simulation_choose_mode(struct options *o);
/* Settles the mono layout when neither --layout nor --block-size was given: Block-Interleaved
 * (o->block_size) on CPU workers only, for large passive batches on GPUs (a GPU's share of this
 * process's neurons of `morphology`, at least PLACEMENT_LARGE_BATCH_COMPARTMENTS), with the
 * cores' share (--cpu-share on, or chosen by placement_share_chosen) and for a small batch the
 * CPU workers take alone (o->cores_alone, mono_cores_alone_chosen), Full-Interleaved elsewhere.
 * Call after simulation_choose_mode, with StarPU started (the models decide). */
void simulation_choose_layout(struct options *o, const struct morphology *morphology);

/* Creates the batch the options describe; HINES_OK or a status with err set. */
int simulation_create(const struct options *o, const struct morphology *morphologies,
                      struct batch_ops *ops, struct hines_error *err);
void simulation_destroy(const struct options *o, struct batch_ops *ops);

/* Runs o->steps steps, sampling the probes (when o->n_probes) into *probes and, with
 * o->spikes_path, the spikes into *spikes (spikes->spikes is the caller's to free); fills the
 * timings of *result. Returns HINES_OK or HINES_FAILURE. */
int simulation_run(const struct options *o, const struct batch_ops *ops,
                   struct probe_record *probes, struct spike_report *spikes,
                   struct run_result *result);

/* The tolerance of --verify is never below this relative error. */
#define VERIFY_TOLERANCE_FLOOR 1e-9

/* --verify fails when a sampled neuron's final voltages are not the exact solution of a system
 * within this normwise relative distance of the reference's last step system (its backward
 * error, simulation.c). A backward-stable solver stays orders of magnitude below it on every
 * matrix; it is README's stated bound. */
#define VERIFY_BACKWARD_ERROR_BOUND 1e-12

struct verify_result {
  int ran; /* sampled neurons compared: o->verify_samples distinct ones, or all of a smaller batch
            */
  int failed;           /* some neuron's error exceeds its tolerance (or the reference failed) */
  double max_rel_error; /* over every sampled neuron */
  /* The neuron furthest above (or nearest to) its tolerance, and its worst compartment. */
  int neuron, compartment, compartments;
  double error, tolerance, condition;
  /* Normwise backward errors against the reference's last step system (max over the sampled
   * neurons): the batch's final voltages, and the reference's own. */
  double backward_error, sequential_backward_error;
  int backward_failed; /* some neuron's backward error exceeds VERIFY_BACKWARD_ERROR_BOUND */
  int backward_neuron; /* the first such neuron, else -1 */
};

/* The number of neurons of this process's batch: a rank's share, or the whole batch. */
int simulation_local_neurons(const struct options *o);

/* Compares the sampled neurons with the sequential reference (in a distributed run, those of
 * the sampled neurons that are this rank's; result.neuron is a global index); each neuron's
 * tolerance is o->verify_tolerance when given, else max(VERIFY_TOLERANCE_FLOOR, 2 n eps kappa) with
 * kappa the bound of reference_condition_bound (codelets/reference_simulation.c). */
struct verify_result simulation_verify(const struct options *o, const struct batch_ops *ops);

/* Host memory the batch will take, in bytes, counted per kind of batch (simulation.c); a
 * negative status when the sample level batch cannot be built (err set). */
double simulation_host_bytes(const struct options *o, const struct morphology *morphologies,
                             long long compartments, struct hines_error *err);

#endif
