/* A multi-morphology batch as StarPU tasks. Each chunk of neurons keeps its levels in single
 * arrays registered once for the whole time loop. With level tasks the arrays are partitioned by
 * level: per step and chunk the backward tasks run from the deepest level to the root and the
 * forward tasks back down, ordered by the data handles alone (a level's backward reads its
 * children's contributions, a level's forward its parent's voltages). Otherwise one task per
 * chunk and step sweeps all levels. */
#ifndef HINES_MULTI_BATCH_H
#define HINES_MULTI_BATCH_H

#include <limits.h>

#include "hines_level_kernels.h"
#include "level_layout.h"
#include "step_model.h"

struct multi_batch_config {
  const struct morphology *morphologies;
  int n_morphologies;
  int n_neurons;
  int neurons_per_task; /* neurons per chunk; 0: the default of runtime/placement.h */
  /* Independent neuron sets in one chunk task, pipelined on as many streams on a GPU (at most
   * 8); 0: 2 for the default GPU chunks, else 1. Per-level tasks always have one. */
  int parts_per_task;
  int padded; /* CP (1) or NCP (0) */
  /* 1: one task per level and chunk for each sweep (the paper's decomposition: traces show the
   * levels, several workers can share a chunk's levels); 0: one task per chunk and step that
   * sweeps every level itself (no runtime round trip between levels). */
  int level_tasks;
  /* Which level each branch goes to (codelets/level_layout.h); AUTO: by height with one task per
   * chunk, by depth with per-level tasks (height needs one task per chunk). */
  enum level_order order;
  /* Chunk tasks: the levels from the root up to the first one with at least this many systems
   * are swept by one thread per neuron (codelets/level_layout.h); 0 or negative: no trunk (the
   * default: measured on the H200 with early launches, 32,768 loses 2 % on the real-SWC mix of
   * 33,390 neurons, and a batch too small to reach it becomes one thread per neuron, 4x
   * slower). */
  int trunk_below;
  /* Level kernels' chunk tasks, passive NCP: where positive, the levels from the root up to the
   * first where the morphologies have on average this many systems a neuron or more form a trunk
   * that the branch step solves (codelets/branch_step.h: three launches instead of two kernels a
   * level), the same levels in every chunk; 0: none; negative (LEVEL_TRUNK_AUTO): the trunk the
   * morphologies call for (codelets/level_layout.c), none where a trunk of branches cannot run.
   * Positive not with trunk_below. */
  double trunk_branches;
  /* Chunk tasks with one part (codelets/hines_level_kernels.h); GPU_LAUNCH_EARLY is 0.
   * GPU_LAUNCH_AUTO: early with up to MULTI_EARLY_CHUNKS_PER_GPU chunks per GPU, plain beyond.
   * Early-launched kernels wait on the GPU for the previous level, holding their SM slots:
   * with many chunks sharing a GPU the waiting blocks crowd out the other chunks' levels
   * (H200, real-SWC mix: one chunk 1.73 ms early, 1.82 plain; 16 chunks 1.93 early, 1.76
   * plain). */
  enum gpu_launch gpu_launch;
  /* Chunk tasks: one kernel per level and sweep, or one cell-block kernel per step
   * (codelets/cell_block.h), or one flow kernel per step (codelets/level_flow.h), ...;
   * trunk_below applies to the first only. LEVEL_KERNEL_LEVELS is 0. LEVEL_KERNEL_AUTO: the
   * branch kernel or the level kernels, by MULTI_BRANCH_KERNEL_COMPARTMENTS. */
  enum level_kernel level_kernel;
  /* Level kernels on GPUs with channels on every compartment: rows built inside the sweeps or
   * first (codelets/hines_level_kernels.h); LEVEL_ROWS_FUSED is 0. LEVEL_ROWS_AUTO: apart at
   * the levels of fewer than MULTI_ROWS_APART_SYSTEMS systems. */
  enum level_rows level_rows;
  int rows_apart_below; /* with LEVEL_ROWS_AUTO: the limit instead of MULTI_ROWS_APART_SYSTEMS
                           (0: that) */
  /* Without channels, sweeps may read each row's inverse pivot from the constants, computed
   * once (level_layout.h, CONST_INVERSE_PIVOT; the same bits): GPU levels of fewer systems than
   * this read them, CPU workers whenever it is not 0; 0: every pivot computed every step
   * (--level-pivots; MULTI_STORED_PIVOTS_BELOW is the command line's default). */
  int stored_pivots_below;
  /* Level kernels on GPUs (chunk tasks): 1 runs the kernels of levels too small to fill a GPU at
   * its highest stream priority, the others at its lowest, so that chunks sharing a GPU overlap
   * one's levels near the root with another's large levels (--level-priorities); 0 none;
   * negative: placement_level_priorities's rule by chunk size (multi_batch_level_priorities says
   * which ran). */
  int level_priorities;
  /* Level kernels on GPUs, passive steps: nonzero sweeps the NCP chain levels too small to fill
   * a GPU with the lean kernels (level_step_arguments.lean_sweeps, --level-lean); the same
   * bits. */
  int level_lean;
  /* Level kernels' chunk tasks, passive steps: nonzero leaves the elimination factors unstored
   * and has the forward sweeps read their rows' (level_step_arguments.row_factors); the same
   * bits. */
  int level_row_factors;
  /* Level kernels on GPUs: which systems warps sweep and with how many lanes each (8, 16 or 32;
   * 0: 32) (codelets/level_layout.h). */
  enum level_warps level_warps;
  int warp_lanes;
  /* Leaf subtrees of at most this many compartments are one system each (0: none;
   * codelets/level_layout.h, level_batch_options). */
  int subtree_compartments;
  /* Chain systems longer than this many compartments are cut into segments (0: none;
   * codelets/level_layout.h, level_batch_options). */
  int split_compartments;
  /* Systems rooted at each cell's center (codelets/level_layout.h, level_batch_options.reroot);
   * asked only with the stimulus at the soma. */
  int level_root_center;
  /* LEVEL_KERNEL_CELL: neurons of one morphology per thread block; 0: from the neurons per GPU
   * (cell_neurons_per_block_auto). */
  int cell_neurons;
  int window; /* steps submitted ahead, as mono_batch_config's */
  /* Steps each chunk task advances (chunk_step_data.steps); 0: the default
   * (placement_multi_task_steps: 8 where GPUs take the chunks or no GPU worker, else 1). Per-level
   * tasks always advance one. */
  int task_steps;
  int pin; /* as mono_batch_config's */
  /* The cores' share (enum placement_share, runtime/placement.h): with CPU and GPU workers both,
   * chunk tasks of one part at the default sizes, MULTI_CPU_CHUNKS_PER_CORE CPU-sized chunks a
   * CPU worker after the GPUs' chunks, sized by the chunk tasks' models
   * (placement_level_share_chosen says when). */
  int cpu_share;
  int cpu_chunks_per_core; /* the share's chunks a CPU worker (0: MULTI_CPU_CHUNKS_PER_CORE) */
  /* Chunks laid out by morphology (level_batch_options.arranged_tail), each the copies of one
   * or two cells, against the neurons' round robin (--arrange; enum placement_share's values):
   * on every chunk, off none, auto placement_level_arranged's rule (the cores' share always, the
   * other chunks with CPU workers alone). Chunk tasks of one part; the same bits either way. */
  int arrange;
  /* Or chunks of these sizes (n_chunk_sizes of them, adding up to n_neurons; the last
   * cpu_sized_chunks cut for CPU cores, kept in RAM, the others for GPUs) instead of the default
   * cut and any share; chunk tasks of one part. NULL: the default. */
  const int *chunk_sizes;
  int n_chunk_sizes, cpu_sized_chunks;
  /* With chunk_sizes, where the cores' chunks are laid out by morphology (--arrange) and not
   * NULL: n_morphologies counts, the chunk before them ending with tail_lead[m] copies of each
   * cell m from the front of that tail (as the share's last GPU chunk does: level_aligned_lead,
   * MULTI_SHARE_ALIGNED_TAIL). */
  const int *tail_lead;
  /* A rank's share of a distributed batch (runtime/cluster.h): the batch holds neurons
   * first_neuron .. first_neuron + n_neurons - 1 of a batch of total_neurons, which the stimulus
   * goes by; its accessors still take indices from 0. 0 and 0: a whole batch. */
  int first_neuron, total_neurons;
  struct step_model model;
};

struct multi_batch;

#define MULTI_EARLY_CHUNKS_PER_GPU 4
/* The cores' share of a multi batch: chunks a CPU worker (--cpu-chunks). Two rather than four:
 * a core sweeps a chunk of more copies of a cell faster (15 CPU workers alone on the H200
 * machine, random trees in chunks of 4, 16 and 48 neurons: 0.4-0.5, 1.2, 2.5 G
 * compartment-steps/s), so the cut gives the cores more neurons in two chunks than in four. The
 * default share beside one H200 against the GPU alone, two chunks a core against four from fresh
 * homes in one call (BENCHMARKS.md, "Two chunks a core, and the GPU's time by neurons"): random
 * trees 1.003, 1.010x against 0.959, 0.970x (another call: 1.010x and once 0.946x), the six cells
 * 1.041 against 1.039, C 1.037 against 1.031, D 1.039 against 1.031, the large cells 1.031
 * against 1.028, E 1.015-1.017 against 1.017-1.018, A 1.000-1.002 against 0.997-1.001. */
#define MULTI_CPU_CHUNKS_PER_CORE 2
/* ... no chunk more than this many times the largest task the cores were measured at. */
#define MULTI_SHARE_REACH 2.0
/* ... and a core's chunk predicted from the mean rate of the cores' tasks measured within this
 * many times its size either way (chunk_step_rate_near_us), not the line between the two nearest:
 * the share's chunks hold copies of one or two cells cut to equal compartments, and their costs
 * differ by cell. Traced on the H200 (trace64, random trees x 23,585, 600 neurons on the cores in
 * chunks of 32,035-38,161 values): 1.0-1.4 ms a task of 8 steps for two cells' chunks, 2.5-2.6
 * for the two others'; the line between the two nearest sizes (two chunks of a fast cell) said
 * 1.0, so the cores' rounds ended 10-22 ms after the GPU's 8 ms and the run took 1.045x the GPU
 * alone's time. With it (share65, nine mixes, two rounds each): every mix within the rounds'
 * spread of the line's cut; random trees still cut 180 neurons and lose 3-4 %, where the rest's
 * chunk, latency-bound on the GPU, sets the step (BENCHMARKS.md). */
#ifndef MULTI_SHARE_RATE_SPREAD
#define MULTI_SHARE_RATE_SPREAD 1.5
#endif
/* With a share the cores take the neurons the GPUs' aligned chunks leave over (less than a set of
 * LEVEL_ALIGNED_COPIES copies of every cell), so no chunk of the rest runs beside the aligned
 * ones, where that adds at most MULTI_SHARE_REST_GROWTH of the cores' share
 * (level_aligned_share_shift). Why: traced on the H200 (trace64, random trees x 23,585, 600
 * neurons on the cores), the rest's chunk of 9 neurons took 7.6-8.7 ms a task of 8 steps on the
 * GPU, as long as an aligned chunk of 5,700, latency-bound, so the cores' share shortened the
 * aligned chunks but not the step. Measured (whole66, against a build with
 * MULTI_SHARE_WHOLE_SETS 0 in the same calls, each round against its own GPU alone): random
 * trees 0.981-0.992x in 4 rounds against 0.962-0.984x, all 15 cells 1.030-1.031x against
 * 1.019-1.022x, the six cells 1.035-1.048x against 1.019-1.038x, E 0.982-1.029x against
 * 0.992-1.019x (BENCHMARKS.md). The growth stays inside PLACEMENT_LEVEL_SHARE_ENDS_BY's 20 %
 * slack. MULTI_SHARE_WHOLE_SETS 0: the rest's chunk on a GPU (a build to compare with). */
#ifndef MULTI_SHARE_WHOLE_SETS
#define MULTI_SHARE_WHOLE_SETS 1
#endif
#define MULTI_SHARE_REST_GROWTH 0.2
/* With a share laid out by morphology, the GPUs' part past whole sets ends with copies of cells,
 * LEVEL_ALIGNED_COPIES at a time, taken from the front of the share's tail: the most
 * compartments of such warps that leave the cores the models' cut (level_aligned_lead,
 * share_lead in multi_batch.c), where the cores' compartments then grow by at most
 * MULTI_SHARE_REST_GROWTH; no chunk of the rest is left. The share then moves by warps of any
 * cell instead of whole sets; the whole sets' rules (above and below) where no warp fits. 0: whole
 * sets only (a build to compare with). */
#ifndef MULTI_SHARE_ALIGNED_TAIL
#define MULTI_SHARE_ALIGNED_TAIL 1
#endif
/* Where the cores would grow by more, they give the GPUs the rest's complement (the neurons that
 * make the GPUs' part whole sets) where it is at most this much of the GPUs' part: a chunk of the
 * rest, latency-bound, costs the step 1.5-2.5 % (level_aligned_share_shift says what was
 * measured), the complement about its share of the GPUs' neurons. Until 2026-12-02 the bound was
 * 0.15 of the cores' share (C's 54 of 510 given, B's 27 of 165 not; 884f685 gave 0.1), but with
 * sets of 32 copies (LEVEL_ALIGNED_COPIES) the rest's chunk came back in the H200's rounds
 * (warps107: C's 268 beside 540 on the cores, complement 84, 0.75 % of the GPUs' 11,180; D's 64
 * beside 300, 0.9 %; the large cells' 73 beside 330, complement 87, 1.4 %). 0: the rest's chunk
 * stays (a build to compare with). */
/* With the cores' share the GPUs' chunks are aligned from this many units (copies of every cell
 * LEVEL_ALIGNED_COPIES at a time) a chunk, not LEVEL_ALIGNED_MIN_UNITS: that bound keeps a chunk
 * of the rest small beside the aligned ones, and with a share the cores take the rest, complete
 * it or probe taking it. Why: at 41 M (small120, H200 machine, --cpu-share on) all 15 x 8,000 and
 * C x 5,860 left the GPUs 15 units for four chunks, which then ran unaligned, 0.962-0.987x the
 * GPU alone, whose 16 units were aligned. LEVEL_ALIGNED_MIN_UNITS: as before (a build to compare
 * with). */
#ifndef MULTI_SHARE_ALIGNED_MIN_UNITS
#define MULTI_SHARE_ALIGNED_MIN_UNITS 1
#endif
#ifndef MULTI_SHARE_REST_GIVE
#define MULTI_SHARE_REST_GIVE 0.015
#endif
/* The cores' share is measured before the batch is built (share_probe in multi_batch.c: the
 * share's chunks built apart and run on the CPU workers alone for PLACEMENT_SHARE_PROBE_ROUNDS
 * rounds after one to warm up), outside calibration runs, and cut again where the cores' time
 * differs from what the models predicted (placement_share_probe_scale). MULTI_SHARE_PROBE 0: no
 * probe; 1: measured and reported, the cut kept (a build to compare with); 2: the cut made again.
 * Measured on the H200 machine against the cut kept (probe86, BENCHMARKS.md, "The multi share
 * measured before it is cut"; nine mixes of ~82 M, fresh homes, three calibration runs): 37 quiet
 * rounds 0.978-1.063x the GPU alone, 3 below 1.00x, against 0.805-1.061x and 5 below; beside three
 * memory-copying processes, 22 rounds 0.908-1.065x (5 below) against 0.719-1.059x (11 below). */
#ifndef MULTI_SHARE_PROBE
#define MULTI_SHARE_PROBE 2
#endif
/* A probe that read the cores more than this many times slower than the models predicted is taken
 * again and the faster of the two kept (placement_share_probe_again). 0: one probe, the default:
 * at 1.5 (idle138b, H100 machine, ca27b51, runs straight after another share run) no probe read
 * more than 1.06 times the models, so the retry never ran (24 rounds, mean 1.070x, as the
 * default's). */
#ifndef MULTI_SHARE_PROBE_AGAIN_ABOVE
#define MULTI_SHARE_PROBE_AGAIN_ABOVE 0.0
#endif
/* The least the multi share's probe scales the cores' predictions by (placement_share_probe_scale):
 * 1, a probe only shrinks the cut (a probe that read the cores fast had grown random trees' cut
 * from 1,057 to 1,185 neurons into a 0.927x round, 390dece). Against 0.8 (mono's) in three calls
 * of cells105 (H200 machine, 0b07026, nine mixes, fresh homes): 16 quiet rounds 0.985-1.089x the
 * GPU alone, mean 1.040x, against 0.932-1.076x, mean 1.030x, in 31 rounds of the same calls, a
 * difference inside the rounds' spread (BENCHMARKS.md, "The cut by cells beside the GPU"). */
#ifndef MULTI_SHARE_PROBE_LEAST
#define MULTI_SHARE_PROBE_LEAST 1.0
#endif
/* The share a whole set larger (share_set_up in multi_batch.c) is probed where the aligned cut
 * gave the GPUs the rest's complement, and taken where a core's mean round of it ends by
 * MULTI_SHARE_SET_UP_ENDS_BY of the GPUs' largest chunk's predicted task. MULTI_SHARE_SET_UP 2:
 * also the share with the rest where the aligned cut left the GPUs a chunk of it (latency-bound,
 * 1.5-2.5 % of the step: level_aligned_share_shift), probed and taken in the same way. Why: the
 * rounds short of 1.03x at 60-66 M a GPU ran such a chunk beside cores busy 0.47-0.81 of the
 * step (H200 machine, from60: all 15 x 13,000 1.019-1.022x, 100 neurons left beside 420 on the
 * cores; the large cells x 5,000 1.007-1.009x, 50 beside 150). MULTI_SHARE_SET_UP 3: also,
 * where none of those gave a share to probe (a larger set beyond MULTI_SHARE_SET_UP_GROWTH, or
 * none to try) and no chunk of the rest is left, and the probe's cores ended their round by
 * MULTI_SHARE_IDLE_BY of the GPUs' largest chunk's predicted task, the next share up that lays
 * out (share_next_up in multi_batch.c: the fewest compartments more, with warps of cells back to
 * the GPUs by MULTI_SHARE_ALIGNED_TAIL), probed and taken in the same way. Why: D x 5,520 kept 144
 * neurons (a set and the rest), its cores busy 0.52-0.71 of the step, 1.021-1.026x the GPU alone
 * (H200 machine, tail123), the models' cut too small and nothing above it tried. 2: no idle
 * step; 1: given-back shares only; 0: never probed (builds to compare with). */
#ifndef MULTI_SHARE_SET_UP
#define MULTI_SHARE_SET_UP 3
#endif
#ifndef MULTI_SHARE_SET_UP_ENDS_BY
#define MULTI_SHARE_SET_UP_ENDS_BY 0.9
#endif
/* ... and where its probe's round ends within this much below that bound
 * (placement_share_reprobe), the share is probed again and the two rounds' mean decides. 0: one
 * probe decides, the default: at 0.05 no decision differed (reprobe137, H100 machine, d26a974,
 * six batches, a home a build: 24 rounds each, mean 1.058x against 1.056x; D x 3,702's set ups
 * read 0.89-1.10 of the bound in both builds, both taking the one at 0.98). */
#ifndef MULTI_SHARE_SET_UP_REPROBE_BAND
#define MULTI_SHARE_SET_UP_REPROBE_BAND 0.0
#endif
/* ... and again from each step taken, at most this many steps (share_set_up_steps in
 * multi_batch.c), each step's probe the next one's. 1, one step, the default: 3 steps, from the
 * same saved models as one (mode steps139 of scripts/bench/level_kernel_runs.sh, 5700c29), won
 * where a second step ended in time (H100 machine, ten batches of 40.8-57.8 M, 20 rounds each:
 * H x 8,000 at 832 neurons 1.123x against 640's 1.097-1.103x, the large cells x 4,000 at 480
 * 1.091x against 320's 1.051-1.060x; mean 1.077x against 1.073x) and lost where it did not (H200
 * machine, eight more batches, 41.8-54.1 M, 24 rounds each: the large cells x 3,800 stepped
 * 120 to 152 neurons, whose probe read 0.71-0.82 of the GPUs' chunk, and ran 1.010-1.052x against
 * 120's 1.044-1.051x; mean 1.047x against 1.052x, 19 rounds at 1.03x or more against 22). */
#ifndef MULTI_SHARE_SET_UP_STEPS
#define MULTI_SHARE_SET_UP_STEPS 1
#endif
#ifndef MULTI_SHARE_IDLE_BY
#define MULTI_SHARE_IDLE_BY 0.75
#endif
/* The probe's busiest core (share_busiest_down in multi_batch.c), measured and reported (JSON
 * share_probe_busiest_ms beside share_probe_gpu_task_ms). MULTI_SHARE_PROBE_BUSIEST 1: where the
 * cut is kept but the busiest CPU worker's round of the probe ends after
 * MULTI_SHARE_BUSIEST_ENDS_BY of the GPUs' largest chunk's predicted task, the cut again with the
 * cores' predictions times the busiest over the mean, and the set more (share_set_up) taken only
 * where its busiest core ends by it too. Off: the probe's busiest core says little of the run's
 * (H200 machine, busiest119, 2560e0b, fourteen homes over ten mixes, both builds from the same
 * models): its busiest core ended 1.02-1.42 times the GPU's chunk where the run's cores kept up (C
 * at 808 neurons 1.058-1.074x, E at 1,271 1.061-1.072x, B at 522 1.063-1.066x), so the cut it
 * shrank lost (28 rounds mean 1.046x, 2 below 1.03x, against 1.052x and 1; BENCHMARKS.md, "The
 * probe's busiest core"). */
#ifndef MULTI_SHARE_PROBE_BUSIEST
#define MULTI_SHARE_PROBE_BUSIEST 0
#endif
/* Where the probe cut the share again (the cores slower than the models said) and the new cut left
 * a chunk of the rest on the GPUs (latency-bound beside the aligned ones), the share with the rest
 * is probed and taken where a core's round of it ends by MULTI_SHARE_SET_UP_ENDS_BY of the GPUs'
 * largest chunk (share_set_up in multi_batch.c), as for a cut the probe kept. Why: random trees at
 * 41-44 M, whose probe cut 90-128 neurons to 60 beside 36 of the rest, ran 0.906-1.013x the GPU
 * alone in twelve rounds with that chunk on the GPU (H200 machine, b8d5ab2, fresh homes); where a
 * build setting up from the new cut took the rest (x 12,000, three calls) 1.013-1.023x in four
 * rounds against 0.990-1.013x in the build before's four rounds with it (rescaled131, chunks131;
 * BENCHMARKS.md, "Two GPUs with the group-balanced cut, and the rest after the probe's cut"). Only
 * the rest: that build's step up where the new cut's cores idled (MULTI_SHARE_SET_UP 3) grew x
 * 13,200 from 48 neurons to 80 and ran 1.007-1.012x against 1.017-1.018x. 0: the cut made again is
 * kept (a build to compare with). */
#ifndef MULTI_SHARE_RESCALED_REST
#define MULTI_SHARE_RESCALED_REST 1
#endif
#ifndef MULTI_SHARE_BUSIEST_ENDS_BY
#define MULTI_SHARE_BUSIEST_ENDS_BY 1.0
#endif
/* ... and only where the set adds at most this much to the share (B x 8,330's 266 to 394 adds
 * 48 %; a larger step, as all 15 cells' 516 to 996, would not end in time and costs its probe). */
#define MULTI_SHARE_SET_UP_GROWTH 1.5
/* Each step up (a set more, the rest, the tail back, or where the cores idled) grows the share by
 * as much more as the probe of the share as cut says still ends by MULTI_SHARE_SET_UP_ENDS_BY of
 * the GPUs' largest chunk (placement_share_idle_growth), at most this much, where that is more
 * than the step's own growth (MULTI_SHARE_SET_UP_GROWTH, MULTI_SHARE_REST_UP_GROWTH); the step's
 * own probe still decides. Why: the large cells x 3,322 kept 60 neurons beside a chunk of 62 of
 * the rest on the GPU, their cores' round 0.36 of the GPU's chunk, and ran 1.021-1.025x the GPU
 * alone in four rounds: the share with the rest, 122 neurons, is 2.03 times 60 (reprobe137, H100
 * machine). 1.5: the steps' own growths alone, the default: 3.0 came out even with it (idle138b,
 * H100 machine, ca27b51, twelve batches from saved models: 24 rounds each, mean 1.070x both; it
 * took a larger step once in idle138, B x 4,165 69 to 197 neurons, 1.065x against 1.035x), and the
 * case that asked for it did not come back in eleven fresh homes (stuck138; BENCHMARKS.md, "The
 * set up probed twice, steps up grown by the probe, and a probe taken again"). */
#ifndef MULTI_SHARE_IDLE_GROWTH_MOST
#define MULTI_SHARE_IDLE_GROWTH_MOST 1.5
#endif
/* ... and the share with the GPUs' rest where it adds at most this much (rest121, H200: all 15 x
 * 13,000's 330 and 190 left, 1.58 times, with the cores busy 0.47-0.66 of the step beside the
 * rest's chunk, 0.983-1.006x the GPU alone; the large cells x 5,000's 120 and 80, 1.67 times,
 * 0.978-1.005x), the probe's round deciding. */
#define MULTI_SHARE_REST_UP_GROWTH 2.0
/* Once every task the GPUs' own chunks were given has ended, the cores' chunks lose their home
 * (placement_cpu_homes_open) until a GPU chunk's next task is submitted: dmdas then gives a
 * core's chunk's next task to a GPU where a GPU ends it first, as it would with no home. Why:
 * whole runs whose cores ran slower than the cut assumed left the GPU idle at the end while
 * the cores finished their tasks (the share's short rounds; BENCHMARKS.md, "The share on the
 * H100"); a GPU with several CUDA workers (STARPU_NWORKER_PER_CUDA) can run several of the cores'
 * small chunks side by side. The same bits wherever a task runs. Measured on the H100 machine
 * (BENCHMARKS.md, "The cores' last tasks open to an idle GPU", tail135, ten batches of 41-62 M,
 * fresh homes): 30 rounds 1.022-1.118x the GPU alone, mean 1.072x, 29 at 1.03x or more,
 * against 1.020-1.140x, mean 1.070x, 28, with the homes held; no round had its cores late at the
 * end (0-4 of 990 tasks moved). Where the host was busy (three memory-copying processes,
 * cut136 and cut136b, H100, BENCHMARKS.md "The cores' tail measured where the host is busy") it
 * did not gain and held the worst rounds: one home a build, 6 rounds 0.861-1.069x the GPU alone
 * (mean 0.986x) against 1.006-1.053x (mean 1.031x) with the homes held; one home for both, the
 * builds alternating, 4 rounds a batch: D x 3,702 and A x 5,000 the same (means within 0.2 %),
 * the six cells x 20,000 0.886-1.066x against 0.996-1.085x. So off: the homes hold to the end.
 * 1: a build to compare with. */
#ifndef MULTI_SHARE_TAIL_TO_GPUS
#define MULTI_SHARE_TAIL_TO_GPUS 0
#endif
/* 1: where the cores' chunks, at the rate their tasks end during the run, would end after the
 * GPUs' own chunks by more than MULTI_SHARE_LAG_MARGIN of the GPUs' time left, the cores give
 * chunks up to the GPUs for the rest of the run, as many as the excess is of the cores' time
 * left, those with the most tasks left (at least MULTI_SHARE_LAG_TASKS_LEFT) first; a chunk a
 * core stays (share_lag_check in multi_batch.c). Why: the share's short rounds were rounds whose
 * cores ran 1.1-1.5 times slower than at the same cut in another round (BENCHMARKS.md, "The
 * default share on sizes no session had run"), which the probe before the run cannot see.
 * Measured on the H100 machine (BENCHMARKS.md, "The cores giving chunks up to the GPU once they
 * fall behind, measured", 18 batches of 41-53 M, quiet and with memory-copying processes let go
 * during the run): it gave chunks up in 2 of 69 runs, at their end; with the builds' order
 * swapped, quiet rounds even with the default (mean 1.064x both); the short rounds with the host
 * made busy were the GPU's part slowing, the cores not behind (their time left at most 0.86
 * of the GPU's in the second call; behind only in the last milliseconds of two runs). So 0 (the
 * default): a build to compare with where cores do fall behind. */
#ifndef MULTI_SHARE_LAG_TO_GPUS
#define MULTI_SHARE_LAG_TO_GPUS 0
#endif
#ifndef MULTI_SHARE_LAG_MARGIN
#define MULTI_SHARE_LAG_MARGIN 0.02
#endif
#define MULTI_SHARE_LAG_TASKS_LEFT 2
/* 1: each time the cores give chunks up, a line on stderr (a build to measure with). */
#ifndef MULTI_SHARE_LAG_DEBUG
#define MULTI_SHARE_LAG_DEBUG 0
#endif
/* Rows apart pay at a level of few systems, a few threads walking long branches (the row kernel
 * takes the channel work off their chains), and cost at a level that fills the GPU (each row
 * written and read once more): about the threads an H100 or H200 holds (132 SMs x 2,048).
 * Measured on the H100, HH everywhere (BENCHMARKS.md, "Rows apart"): against fused rows every batch
 * tried ran 0.98-1.78x as fast with this limit (the six cells x 33,390 1.11x), 1.06-1.49x with
 * 65,536, less with 16,384, and 0.86-1.8x with every level apart. */
#ifndef MULTI_ROWS_APART_SYSTEMS /* a build may set it (scripts/bench/build_variants.sh) */
#define MULTI_ROWS_APART_SYSTEMS 262144
#endif
/* LEVEL_KERNEL_AUTO: the branch kernel (codelets/branch_step.h) for a passive NCP batch of chunk
 * tasks of at most this many compartments (the whole batch's, every rank's: the choice, and so
 * the bits, do not depend on the workers), the level kernels otherwise. A small batch's step is a
 * chain of latencies, which the branch kernel shortens to its longest branch; a large one is
 * bandwidth, where the level kernels move fewer bytes. Measured on the H100 (BENCHMARKS.md, "The
 * branch kernel"): every batch up to 2.7 M compartments 1.4-2.0x faster (CA1 x 300 to x 1,000,
 * the six cells x 1,044), the deep chains x 2,000 (6 M) and the large cells x 800 (9.8 M)
 * 1.4-1.7x, but CA1 x 3,000 (8.1 M), random trees x 2,000 (6.9 M) and the six cells x 4,174
 * (10.6 M) 0.73-0.90x, and every larger mix slower. */
#ifndef MULTI_BRANCH_KERNEL_COMPARTMENTS
#define MULTI_BRANCH_KERNEL_COMPARTMENTS 4000000
#endif
/* ... and whose cells' branches fit this much GPU shared memory a block (what every GPU gives a
 * block without asking), else the level kernels too. */
#define MULTI_BRANCH_KERNEL_SHARED_BYTES (48 * 1024)
/* A trunk of branches without --cell-neurons: at most this many cells a block of its junction
 * phase (fewer where a block would not fit the GPUs' shared memory; multi_batch.c). */
#define MULTI_TRUNK_CELL_NEURONS 64
/* --level-pivots auto: GPU levels of fewer systems than this read stored pivots. */
#ifndef MULTI_STORED_PIVOTS_BELOW
#define MULTI_STORED_PIVOTS_BELOW INT_MAX
#endif

int multi_batch_create(const struct multi_batch_config *config, struct multi_batch **out,
                       struct hines_error *err);
/* As mono_batch_run, mono_batch_run_sampled, mono_batch_sync, mono_batch_probes and
 * mono_batch_probes_read. */
int multi_batch_run(struct multi_batch *batch, int steps, double t0_ms);
int multi_batch_run_sampled(struct multi_batch *batch, int steps, double t0_ms, int sample_row);
void multi_batch_sync(struct multi_batch *batch);
int multi_batch_probes(struct multi_batch *batch, int n, const int *neuron, const int *compartment,
                       int rows, struct hines_error *err);
void multi_batch_probes_read(struct multi_batch *batch, int rows, double *values);
/* As mono_batch_spikes and mono_batch_spike_set (runtime/spike_set.h). */
struct spike_set;
int multi_batch_spikes(struct multi_batch *batch, double threshold_mV, struct hines_error *err);
struct spike_set *multi_batch_spike_set(struct multi_batch *batch);
/* Voltages of neuron k (its morphology's n values) copied to the host. */
void multi_batch_voltage(struct multi_batch *batch, int neuron, double *out_mV);
int multi_batch_tasks_per_step(const struct multi_batch *batch);
/* Steps each chunk task advances (multi_batch_config.task_steps, resolved). */
int multi_batch_task_steps(const struct multi_batch *batch);
/* The neurons of the chunks cut for the CPU cores (cpu_share; 0: none), and whether a share was
 * asked for (or chosen: placement_level_share_chosen) but the models had measured no chunk task
 * of the batch's kind on the cores or on a GPU to cut it by (as mono_batch's). */
int multi_batch_cpu_share_neurons(const struct multi_batch *batch);
/* Steps the batch keeps submitted ahead (placement_level_window: the config's, or the default for
 * a batch with or without the cores' share). */
int multi_batch_window(const struct multi_batch *batch);
int multi_batch_share_uncalibrated(const struct multi_batch *batch);
/* The share's probe (MULTI_SHARE_PROBE): the neurons of its first cut, and the cores' time
 * executing a round of it, measured and predicted (microseconds; 0 and 0: no probe ran). */
void multi_batch_share_probe(const struct multi_batch *batch, int *first_neurons,
                             double *measured_us, double *predicted_us);
/* The probe's busiest CPU worker's round and the GPUs' largest chunk's task as the models
 * predict it (microseconds; 0 and 0: not compared, MULTI_SHARE_PROBE_BUSIEST). */
void multi_batch_share_busiest(const struct multi_batch *batch, double *busiest_us,
                               double *gpu_task_us);
/* The share a whole set larger probed where the aligned cut gave the GPUs the rest's complement
 * (share_set_up in multi_batch.c): its neurons and the cores' time executing a round of it
 * (microseconds); 0 and 0: none probed. Taken where multi_batch_cpu_share_neurons says so. */
void multi_batch_share_set_up(const struct multi_batch *batch, int *neurons, double *measured_us);
/* The neurons laid out by morphology (multi_batch_config.arrange, resolved): the batch's last
 * this many, 0 for round robin. */
int multi_batch_arranged_neurons(const struct multi_batch *batch);
/* Neurons in the GPUs' chunks of aligned rows (level_aligned_cut; 0: none). */
int multi_batch_aligned_neurons(const struct multi_batch *batch);
/* Of those, the cells' copies the last aligned chunk takes from the front of the cores' arranged
 * share (MULTI_SHARE_ALIGNED_TAIL; 0: none). */
int multi_batch_aligned_tail_neurons(const struct multi_batch *batch);
/* The launch mode the chunk tasks use (AUTO resolved). */
enum gpu_launch multi_batch_gpu_launch(const struct multi_batch *batch);
/* 1 when the chunk tasks run small levels first (multi_batch_config.level_priorities, resolved),
 * else 0. */
int multi_batch_level_priorities(const struct multi_batch *batch);
/* Neurons per thread block of the cell-block kernel (0 with the level kernels). */
int multi_batch_cell_neurons(const struct multi_batch *batch);
/* The kernel the chunk tasks run (LEVEL_KERNEL_AUTO resolved). */
enum level_kernel multi_batch_level_kernel(const struct multi_batch *batch);
/* GPUs build the rows of the levels of fewer systems than this apart (enum level_rows,
 * resolved: 0 none, INT_MAX all). */
int multi_batch_rows_apart_below(const struct multi_batch *batch);
/* The levels the trunk of branches solves (0: no trunk of branches). */
int multi_batch_trunk_levels(const struct multi_batch *batch);
/* Branches its GPUs sweep with warps (codelets/level_layout.h), over every level and chunk. */
long long multi_batch_warp_systems(const struct multi_batch *batch);
/* As mono_batch_find_nonfinite. */
int multi_batch_find_nonfinite(struct multi_batch *batch, int *neuron, int *compartment);
long long multi_batch_compartments(const struct multi_batch *batch);
void multi_batch_destroy(struct multi_batch *batch);

#endif
