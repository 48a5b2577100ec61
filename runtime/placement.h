/* How a batch is cut into tasks and where those tasks may run: the one policy every kind of
 * batch (mono, multi, the per-neuron baseline) follows. The runtime places the tasks (the
 * schedulers, with the size models of codelets/size_model.h); where-masks only when asked. */
#ifndef HINES_PLACEMENT_H
#define HINES_PLACEMENT_H

/* Chunks a GPU gets by default: enough to keep it busy while one chunk's step ends and the
 * next begins (measured on the H200: 4 chunks of a mono batch run 6 % faster than one), few
 * enough that a multi batch's chunks stay large. */
#define PLACEMENT_CHUNKS_PER_GPU 4
/* ... but none below this many neurons (one GPU thread each): on the H200 one task of 128,000
 * medium-high neurons took 0.618 ms per step launched directly, four of 32,000 on one GPU 0.679
 * (a GPU's share in a two-rank run); at 256,000 four chunks of 64,000 took 1.177 against 1.227
 * for one. */
#define PLACEMENT_MIN_GPU_CHUNK_NEURONS 64000
int placement_gpu_chunks(void); /* PLACEMENT_CHUNKS_PER_GPU x the GPUs StarPU drives */
/* Steps a mono step task advances when the user does not say (--task-steps): with GPU workers
 * only and every chunk GPU-sized (at least PLACEMENT_MIN_GPU_CHUNK_NEURONS neurons) or at most
 * PLACEMENT_FEW_CHUNKS_PER_GPU chunks per GPU, tasks of
 * PLACEMENT_GPU_TASK_STEPS steps; with GPU workers only and more, smaller chunks,
 * PLACEMENT_MANY_CHUNKS_TASK_STEPS; with no GPU worker PLACEMENT_CPU_TASK_STEPS (below); otherwise
 * one. Measured on the H200 x2 (commit 0297a28, one
 * run each): one task of 256,000 medium-high neurons 1.235-1.241 ms per step with 8 steps per
 * task against 1.258-1.286 with one; a rank's 128,000 (two ranks, one GPU each) 0.610 against
 * 0.645; four chunks of 64,000 the same either way (1.177). CPU workers with chunks of their own:
 * PLACEMENT_SHARE_TASK_STEPS below. With CPU workers that got none (nothing measured
 * on them yet) under dmda/dmdas, on the H200 x2 machine (9f1e100, two GPUs): 0.68-0.70 ms a step
 * with 1 step per task against 0.61 for the GPUs alone with 8. */
#define PLACEMENT_GPU_TASK_STEPS 8
/* ... and also for chunks of any size when a GPU has at most this many: 16 tasks of 16,000
 * neurons over two GPUs (H200 x2 machine, 8a3a205, medians of 2) took 0.706 ms a step with one
 * step per task, 0.645 with 2, 0.636 with 4 and 0.643 with 8 (one GPU's one task: 1.256). */
#define PLACEMENT_FEW_CHUNKS_PER_GPU 8
/* ... and tasks of this many steps for more, smaller chunks on GPU workers alone. With the
 * driver's 8 hardware queues per GPU, 64 tasks of 4,000 neurons took 3.0 ms a step with 8 steps
 * per task (the kernels of streams sharing a queue ran one after another); with 32 queues
 * (CUDA_DEVICE_MAX_CONNECTIONS, runtime.c) on the H200 (80d4da9, 256,000 medium-high, one GPU's
 * one task 1.245-1.253 ms): 1 step per task 1.31-1.32 (eager, lws) but 1.30-1.76 (dmda, dmdas:
 * StarPU's cost per task on the GPU's one driver thread), 8 steps 1.33-1.34 under all four,
 * 4 steps 1.296-1.301 under all four. */
#define PLACEMENT_MANY_CHUNKS_TASK_STEPS 4
struct placement_plan;
int placement_task_steps(int requested, const struct placement_plan *plan,
                         int smallest_chunk_neurons);
/* ... and when CPU workers have chunks of their own: `requested` when positive, else
 * PLACEMENT_SHARE_TASK_STEPS. A core keeps its group's values in cache across a task's steps
 * (15 cores of the H200 machine alone in blocks: 4.8 G compartment-steps/s at one step a task,
 * 5.9 at 8; small-high 3.3 and 6.1), and the GPU queues its chunks' steps back to back. Measured
 * on the H200 machine (steps25, steps25b: share on, against the GPU alone in blocks): 8 steps
 * against one, 256,000 medium-high 1.006-1.008x against 0.967-0.987x, 512,000 1.046-1.052x
 * against 0.986-0.990x, 25,600 1.006-1.031x against 0.56-0.58x; 4 and 16 within a few per
 * cent of 8 (steps25: 16 ahead at 25,600, 4 with HH, 8 at 256,000). */
#define PLACEMENT_SHARE_TASK_STEPS 8
int placement_share_task_steps(int requested);
/* ... and for a multi batch whose cores have a share of their own: `requested` when positive,
 * else PLACEMENT_LEVEL_SHARE_TASK_STEPS. Beside 15 CPU workers finishing 5,000-7,500 tasks a
 * second (3,780 a run of 1,000 steps at 8 steps a task), the share's GPU part at 8 steps a task
 * ran slower than its share of the neurons says while the cores idled 5-30 % of the run; likely
 * (not traced) StarPU's cost between a GPU chunk's dependent tasks grows while the cores' tasks
 * keep the scheduler busy, and 32 steps pay it a quarter as often. Measured on the H200 machine
 * (BENCHMARKS.md, "Longer tasks for the multi share", steps129, aac376e, six batches of 43-57 M,
 * fresh homes, two rounds each, against the GPU alone by default): 8 steps 1.001-1.107x, 6 of 12
 * rounds at 1.03x or more; 32 steps 1.037-1.084x, 12 of 12; the GPU alone with 32 within 1 %
 * of 8. The cores' chunks are unchanged; a chain's last task can end up to 32 steps after the
 * others'. */
#define PLACEMENT_LEVEL_SHARE_TASK_STEPS 32
int placement_level_share_task_steps(int requested);
/* ... and when there is no GPU worker at all (mono and multi): each core keeps its chunk's or
 * group's values in cache across a task's steps. Until 2026-11-30 such runs took one step a
 * task. The dev machine's 2 cores (AMD EPYC), 8 against 1, three runs each: mono medium-high x
 * 47,600 10.7-11.0 against 14.4-15.0 ms a step, x 4,000 0.93 against 1.05, HH small-low x 20,000
 * 6.5-7.0 against 16.0-16.1, big-high x 2,000 0.98-0.99 against 1.10-1.12; multi, the large
 * cells x 400 6.3-6.7 against 9.4-11.8, the six cells x 6,000 26.6-27.8 against 28.3-28.6, random
 * trees x 200 3.3-3.5 against 3.6-4.0 and x 2,000 45.5-46.7 against 44.9-47.0 (even); 16 and 4
 * within a few per cent of 8 (16 ahead with HH). The H200 machine's 16 cores (BENCHMARKS.md, "CPU
 * workers alone"): mono medium-high x 256,000 1.76-2.21x, x 4,000 8.7-8.9x (StarPU's cost per
 * task was most of a small batch's step), multi CA1 x 300 3.4-3.6x, other mixes 1.0-1.2x; under
 * eager and lws too (cpu31: mono x 256,000 1.73x and 1.85x, the six cells x 33,390 1.44x and
 * 1.31x, CA1 x 300 2.10x and 1.71x). */
#define PLACEMENT_CPU_TASK_STEPS 8
/* Steps each multi chunk task advances: `requested` when positive, else
 * PLACEMENT_MULTI_TASK_STEPS where GPUs take the chunks as placement_task_steps decides
 * (no CPU workers, or a model-based scheduler that keeps the GPU-sized chunks off them),
 * PLACEMENT_CPU_TASK_STEPS with no GPU worker, else (CPU and GPU workers under a greedy
 * scheduler) one. A chunk task's steps queue back to back on its GPU stream, so the GPU no longer
 * idles between dependent steps while StarPU sees one task end and starts the next. Measured on the
 * H200 x2 machine (fifteenth session, BENCHMARKS.md "Chunk tasks of several steps"), against 1:
 * CA1 x 500 1.22-1.25x with 8 (16 the same), CA1 x 3,000 1.10-1.12x, the six cells over two
 * GPUs 1.06-1.07x, on one GPU even. */
#define PLACEMENT_MULTI_TASK_STEPS 8
int placement_multi_task_steps(int requested);
/* Whether StarPU's scheduler places tasks by the performance models (dmda, dmdas, dmdar...)
 * rather than greedily (eager, lws...: an idle CPU core takes a GPU-sized chunk). */
int placement_model_scheduler(void);
/* GPUs StarPU drives (not CUDA workers: STARPU_NWORKER_PER_CUDA workers share one). */
int placement_cuda_devices(void);

/* Neurons per task for a batch cut into equal chunks: `requested` when positive, else
 * `chunks_per_gpu` chunks per GPU (fewer where chunks would hold under
 * PLACEMENT_MIN_GPU_CHUNK_NEURONS neurons), or four chunks per CPU worker when there is no GPU (so
 * the schedulers can balance), rounded up to a multiple of `granule` (a layout's block size, or 1).
 * Mono batches take PLACEMENT_CHUNKS_PER_GPU; batches solved by levels take
 * PLACEMENT_LEVEL_CHUNKS_PER_GPU. */
int placement_neurons_per_task(int requested, int n_neurons, int granule, int chunks_per_gpu);
/* A level-solved batch's chunks per GPU: one per PLACEMENT_LEVEL_CHUNK_COMPARTMENTS
 * compartments a GPU holds, 1 to PLACEMENT_LEVEL_MAX_CHUNKS_PER_GPU, and two from
 * PLACEMENT_LEVEL_TWO_CHUNKS_FROM; for what was measured below
 * only, passive chunk tasks of the level kernels (runtime/multi_batch.c gives batches with
 * channels, per-level tasks, parts and the cell, flow and on-chip kernels one chunk a GPU, as
 * measured before). The chunks a GPU holds run
 * at once on their tasks' own streams (codelets/task_streams.h), so one chunk's levels near the
 * root, which cannot fill the GPU, overlap another's large levels; a chunk too small is all such
 * levels. Measured on the H200 x2 machine (BENCHMARKS.md, "Chunks per GPU", 2026-11-27, two runs,
 * ms a step for 1 / 2 / 4 chunks a GPU): at mono's 81.7 M compartments on one GPU the six cells
 * 1.60-1.61 / 1.57 / 1.53-1.54, the large cells 1.57-1.61 / 1.46 / 1.41-1.43, all 15 1.63-1.66 /
 * 1.56-1.58 / 1.53, deep chains 1.50 / 1.36-1.38 / 1.36, random trees 1.44-1.47 / 1.34 /
 * 1.35-1.36; CA1 x 3,000 (8.1 M) the same all three ways, CA1 x 500 (1.4 M) 0.14 / 0.14-0.16 /
 * 0.17-0.19; two GPUs, the six cells 0.96-0.97 / 0.91-0.92 / 0.97, the large cells 1.01-1.02 /
 * 0.97-0.98 / 0.94-0.97. (On 2026-11-23, before the kernels' graphs and streams, four chunks had
 * cost the 15 cells a third of their speed, hence one a GPU until now.) With the small levels
 * run first (--level-priorities, codelets/hines_level_codelets.c) the chunks overlap better, and
 * on two GPUs 4 chunks a GPU beat 2 (the same machine, same call, two runs: the six cells
 * 0.885-0.892 against 0.910-0.913 ms, the large cells 0.959-0.971 against 0.958-1.001;
 * BENCHMARKS.md, "Small levels first"), hence one chunk per 10 M compartments (it was 20 M).
 * Since the forward factors come from the rows (2026-11-27, H200 x2, BENCHMARKS.md "Chunks
 * after the row factors"): CA1 x 3,000 (8.1 M) 0.209-0.211 ms a step in one chunk, 0.189 in two,
 * 0.195-0.230 in four, and in a later call 0.212-0.215 in two against 0.217-0.226 in one; at 42 M
 * a GPU 8 chunks lost to 4 (the six cells 1.294 against 1.277-1.284, the large cells 1.09-1.10
 * against 1.04-1.05), and one chunk per 4 M (4 a GPU for the deep chains over two GPUs, 36.7 M a
 * GPU) took them 0.557-0.563 against 0.479-0.500 with 3; hence two chunks from 8 M, the rule
 * above otherwise. */
#ifndef PLACEMENT_LEVEL_CHUNK_COMPARTMENTS /* -D for scripts/bench/build_variants.sh */
#define PLACEMENT_LEVEL_CHUNK_COMPARTMENTS 10000000LL
#endif
#ifndef PLACEMENT_LEVEL_TWO_CHUNKS_FROM
#define PLACEMENT_LEVEL_TWO_CHUNKS_FROM 8000000LL
#endif
#ifndef PLACEMENT_LEVEL_MAX_CHUNKS_PER_GPU
#define PLACEMENT_LEVEL_MAX_CHUNKS_PER_GPU 4
#endif
/* The rule above for a batch of `compartments` over `gpus` GPUs (at least 1). */
int placement_level_chunks_per_gpu(long long compartments, int gpus);
/* Small levels first (--level-priorities auto): chunk tasks whose chunks hold more than this many
 * compartments run without stream priorities. Measured on the H200 x2 machine (BENCHMARKS.md,
 * "Level priorities by chunk size", 2026-11-28, two runs, 1,000 steps, calls chain23 and prio23):
 * with four chunks of about 20 M on one GPU, priorities off ran the large cells 1.1 %, A 0.9 %,
 * B 2.0 %, E 1.3 %, C 1.8 %, D 2.1 % and all 15 shared cells 2.3 % faster, random trees, deep
 * chains and HH even, the six cells 0.6 % slower; with four of about 10 M a GPU (the same batches
 * on two GPUs) off was slower for A, B, C, E, all 15, random trees (1-3.5 %) and the six cells (6.2
 * %), even for D and deep chains, 0.6 % faster for the large cells; CA1 x 3,000 (chunks of about 4
 * M) 4.4 % slower off on one GPU. A GPU's chunks are what it runs at once whatever the number of
 * GPUs, so the rule goes by a chunk's size, not by GPUs; in a second call the rule beat `on` by
 * 0.9-2.1 % on seven batches of one GPU and on the large cells x 13,286 over two GPUs (four chunks
 * of about 20 M a GPU), lost 0.5 % for the six cells and random trees. */
#define PLACEMENT_PRIORITIES_UP_TO_COMPARTMENTS 15000000LL
/* ... but off where the cells are large (LARGE_CELLS_FROM compartments a neuron on average) and
 * the aligned chunks, the rest's chunk aside, hold more than LARGE_CELLS_UP_TO. Measured on the
 * H200 (steps127, 2026-12-04, after the GPUs' chunks were aligned in 32 copies, GPU alone, two
 * rounds, 1,000 steps): at 55 M (four aligned chunks of about 13.8 M and the rest's, 11 M on
 * average with it), off ran A, B, C, D, the large cells and all 15 shared cells 0.7-3.8 % faster
 * (cells of 5,100 to 12,300 compartments on average), E even (4,400), the six cells 2.9 % and
 * random trees 1.6 % slower (2,500 and 3,500); D x 5,505 to 5,631 2.5-3.3 %, B x 5,100 2.6 % and
 * the large cells x 4,150 3.0 %; at 40 M (aligned chunks of 10 M) on stayed as fast or faster for
 * seven mixes of nine (A 2.8 % and the large cells 1.9 % slower). */
#define PLACEMENT_PRIORITIES_LARGE_CELLS_UP_TO 12000000LL
#define PLACEMENT_PRIORITIES_LARGE_CELLS_FROM 5000
/* 1 (priorities on) or 0 for `asked` (1 on, 0 off, negative auto), chunks of
 * `chunk_compartments` compartments on average (the rest's chunk counted), the aligned chunks
 * `aligned_compartments` (without it) and neurons of `neuron_compartments` on average. */
int placement_level_priorities(int asked, long long chunk_compartments,
                               long long aligned_compartments, double neuron_compartments);
/* Neurons per task of a level-solved batch of `compartments` in all: `requested` when positive,
 * else placement_level_chunks_per_gpu's chunks on each GPU StarPU drives, or
 * placement_neurons_per_task's CPU rule without GPU. */
int placement_level_neurons_per_task(int requested, int n_neurons, long long compartments);

/* A passive mono batch of at least this many compartments a GPU is large: GPUs run it in blocks
 * (the block layout) faster than interleaved. Measured on the H200 machines (BENCHMARKS.md,
 * "Mono layouts on GPU workers alone", "Blocks for large batches, and the cores' share at 8
 * steps"), the GPU alone in blocks against interleaved: one GPU 2.9-3.0 % faster at 82 M
 * (medium-high 256,000), 2.0-3.0 % at 163 M, 2.2-2.6 % at 177 M (big-high 256,000); two GPUs
 * 2.8 % at 82 M a GPU and 6.5 % at 163 M; but 3 % slower at 41 M a GPU (256,000 over two GPUs),
 * 1-4 % slower at 8-22 M (medium-high 25,600, small-high 256,000, big-high 32,000), and with HH
 * 1.2 %. Small-high x 1,000,000 (76 M) is the one batch over the size measured slower in
 * blocks: 0.7-1.0 % (0.9363-0.9392 against 0.9298 ms). */
#define PLACEMENT_LARGE_BATCH_COMPARTMENTS 64000000LL
/* Whether a mono batch of `compartments` over `gpus` GPUs, with (not 0) or without channels, is
 * large as above: the block layout by default (src/simulation.c). */
int placement_large_passive_batch(long long compartments, int gpus, int channels);
/* Whether a mono batch of `compartments` runs in blocks by default (src/simulation.c says why):
 * without GPUs, for large passive batches, and when the cores' share is asked for (`share`:
 * enum placement_share, below); interleaved otherwise. */
int placement_mono_blocks(long long compartments, int gpus, int channels, int share);
/* CPU workers beside a GPU get a share of a mono batch (CPU-sized chunks, tasks of
 * PLACEMENT_SHARE_TASK_STEPS steps, in blocks) by default when the batch holds
 * PLACEMENT_LARGE_BATCH_COMPARTMENTS (64 M) compartments or more on one GPU, passive or with
 * channels (with channels, above 180 M only since 2026-12-01, below). Every share is sized by the
 * models to finish with the GPU's chunks, and the cores are its chunks' home in the models
 * (placement_cpu_home), so dmdas leaves them to the cores. Measured on the H200 machine (15 cores
 * and the GPU, calibrated dmdas, against the GPU alone in its default layout), worst beside best:
 * passive, no option (commit 3d9c501, BENCHMARKS.md "A short last round"), 76 M (small-high
 * 1,000,000) 1.087-1.088x, 82 M (medium-high 256,000) 1.075-1.080x over 1,000 steps and 1.066x over
 * 300, 163 M (512,000, its first run, a size never measured) 1.085x, 177 M (big-high
 * 256,000) 1.067-1.071x, 327 M (medium-high 1,024,000) 1.075-1.076x, 354 M (big-high
 * 512,000) 1.075-1.077x; big-low 100,000 (70 M) 1.074-1.110x with --cpu-share on (1e495f6). HH
 * since the GPU's chunks stay interleaved beside the share (placement_share_gpu_interleaved), no
 * option (default28, robust28, d09cf57): medium-high 256,000 1.042-1.050x over 300 and 1,000
 * steps, 1.042x with probes every 12 steps, 1.037x over 333, 512,000 (its first run) 1.047x,
 * big-high 128,000 1.049-1.065x, small-high 1,000,000 1.047-1.049x, big-high 256,000 (177
 * M) 1.050-1.052x (in blocks, hh27: 0.982-1.035x); hh and km on every compartment 1.050-1.057x,
 * with ih too 1.048-1.052x (km29, once the cores' kernel vectorised any channel set; robust28
 * before it: 1.008-1.013x). Before 1e495f6 every run whose last round was short
 * (300 or 500 steps: 3 steps in the last round) lost 20-50 % above 170 M: the last tasks of the
 * GPU's chunks went to cores (codelets/hines_mono_codelets.c). Not by default: below 64 M (passive
 * medium-high 64,000 1.024-1.053x, 25,600 0.942-0.992x, HH 64,000 0.989-1.003x with --cpu-share on,
 * wide28: within the GPU's own spread or below), several GPUs (two H200s and 31 CPU workers with
 * the cores' home, two29, --cpu-share on: medium-high 512,000 1.026x and 1.050x, HH 256,000
 * 1.010x and 1.022x; 0.844-1.019x before the home), nor with a window of 1 (`window`: steps
 * submitted ahead, 0 the default): waiting after every round, each round lasts as long as the
 * slower side's, and the cores' four chunks each rarely end with the GPU's (robust27, 256,000
 * medium-high: 1.423 ms a step against 1.120 for the GPU alone with --window 1; 0.945 against
 * 1.015 over 333 steps with the default window of 4). `--cpu-share on` asks for one.
 * Also by default from PLACEMENT_SHARE_FROM_COMPARTMENTS (30 M) when the GPU holds
 * PLACEMENT_SHARE_NEURONS (100,000) neurons or more, passive or with channels: the GPU alone runs
 * one thread a neuron, and with fewer neurons its step hardly shortens when the cores take some
 * of them (mid29, --cpu-share on, H200 machine, three rounds each: medium-high 25,600 ran 0.354 ms
 * a step and 64,000 0.42, so big-high 48,000 and 64,000 and big-low 64,000 gained only
 * 1.019-1.032x, HH big-high 64,000 0.926-1.019x), while with 100,000 or more the share paid:
 * passive medium-high 100,000 (32 M) 1.084-1.095x, 128,000 1.039-1.054x, 160,000 1.095-1.101x,
 * small-high 400,000 (30 M) 1.076-1.078x and once 1.003x, 512,000 1.063-1.070x; HH medium-high
 * 128,000 1.042-1.046x and once 0.984x, 160,000 1.067-1.097x, small-high 512,000 1.035-1.041x.
 * By default on sizes and classes not in mid29 (mid29b, no option): passive medium-high 110,000
 * 1.092-1.108x, small-low 450,000 1.058-1.068x, medium-low 120,000 1.126-1.133x; HH medium-high
 * 140,000 1.162-1.169x, medium-low 150,000 1.100-1.113x, small-low 600,000 1.031-1.042x.
 * Over mid29, mid29b, km29, more29 and weak29, 62 runs in this range: passive 1.039-1.133x but
 * once 1.003x, with channels 1.020-1.169x but 0.967x, 0.984x and 0.997x once each (HH and hh +
 * km medium-high 128,000, HH 200,000), which in weak29 ran 1.041-1.056x in every round of four:
 * each call cuts the share from its own calibration, and one cut ran 1.027x and 0.997x.
 * With channels above 180 M there was no default share until the share was measured before it
 * runs (MONO_SHARE_PROBE) and the cores' HH kernel read the rate table as columns
 * (codelets/channel_lanes_cpu.h, 1.33-1.36x the cores' HH rate): at 354 M (big-high 512,000 HH)
 * the share had run 1.029x and 1.044x in two rounds, about 0.97x and 0.89x in two other runs
 * (robust28, big28: the cut the same in every round, its time varying by 7 % from run to run,
 * against a gain of 5 %); with the probe 1.030-1.035x (probe87, 390dece), and with the probe and
 * the columns 1.039-1.048x in four rounds of two calls and medium-high 640,000 HH (204 M)
 * 1.039-1.048x in two (probe87 at 446e54c, H200 machine, --cpu-share on).
 * `neurons`, `compartments`: the GPU's process's share of the batch. */
int placement_cpus_share(long long neurons, long long compartments, int gpus, int window);
#define PLACEMENT_SHARE_NEURONS 100000LL
#define PLACEMENT_SHARE_FROM_COMPARTMENTS 30000000LL
/* Whether, beside the cores' share, the GPU's chunks of a batch whose layout was chosen for the
 * share are stored interleaved (runtime/mono_batch.h, interleaved_chunks): where the GPU alone
 * would run interleaved (with channels, and below PLACEMENT_LARGE_BATCH_COMPARTMENTS a GPU). With
 * HH the GPU ran 1.3-6.6 % slower in blocks than interleaved (hh27, H200 machine). */
int placement_share_gpu_interleaved(long long compartments, int gpus, int channels);
/* Whether a mono batch of `neurons` and `compartments` (this process's), submitted `window`
 * steps ahead (0: the default), gets the cores' share: as `asked`
 * (enum placement_share) when on or off; by default when placement_cpus_share says so for StarPU's
 * GPUs, there are CPU workers, and the scheduler is a dm* one (the share is sized by the models,
 * and its tasks of 8 steps would make a greedy scheduler's GPU-sized chunk on a core 8 times as
 * long). */
int placement_share_chosen(int asked, long long neurons, long long compartments, int window);
/* The cores' share is cut into this many chunks a core. With one, each core kept its chunk (the
 * next task of a chunk is ready when the last ends, on the core that just freed), so the slowest
 * core set the step, while the cut is sized for the mean: in a trace of 256,000 medium-high (H200
 * machine, commit d477ec9) the cores' 8-step tasks took 6.3 ms on average and up to 9.0, and
 * runs of one call ran 0.87-1.06x the GPU alone though the cores kept every task. Several
 * chunks a core let a free core take the next ready chunk, whichever core ran it before: four
 * ran 1.053-1.079x in 14 runs of 14 at 256,000 (f2f0314, 5692193). The GPUs keep
 * placement_gpu_chunks(): one chunk a GPU instead (c3c465b, reverted) gave the cores 27,360
 * neurons of 256,000 against 13,440 and ran 0.87-0.88x. */
#define PLACEMENT_CPU_CHUNKS_PER_CORE 4
struct placement_plan;
/* A small mono batch beside GPUs runs on the CPU workers alone when they finish a step sooner
 * (placement_cores_alone): one GPU thread a neuron walks its whole tree, so a small batch's step
 * is that chain's latency whatever the neurons, while the cores' time shrinks with them. Measured
 * on the H200 machine (small82, b13f50e, calibrated dmdas, 1,000 steps, ms a step): medium-high
 * x 1,000 the GPU alone 0.282, 16 CPU workers alone 0.056-0.062; x 4,000 0.285-0.287 against
 * 0.193-0.197; big-high x 2,000 0.612 against 0.210-0.216; but x 16,000 0.330 against
 * 0.710-0.718 and HH medium-high x 4,000 0.605 against 0.688-0.729. The default put every one
 * on the GPU (one task a step). Only below PLACEMENT_SHARE_FROM_COMPARTMENTS, where no share is
 * cut, and only when the cores' round is predicted at most PLACEMENT_CORES_ALONE_BY of the GPU's
 * task. With it (alone83, two calls, two --calibrate runs, two rounds): medium-high x 1,000
 * 0.077-0.206 against 0.284-0.287 for the GPU alone, big-high x 2,000 0.220-0.298 against
 * 0.613-0.619, HH x 1,000 0.240-0.251 against 0.548-0.549; x 4,000 (cores alone 0.243-0.248
 * against 0.287-0.290), 8,000, 16,000, small-low x 20,000 and HH x 4,000 kept on the GPU. */
#define PLACEMENT_CORES_ALONE_BY 0.8
/* Whether a round of the cores' chunks (predicted `core_round_us`: a core's chunks one after
 * another) beats the GPU's task over the whole batch (`gpu_us`) by PLACEMENT_CORES_ALONE_BY;
 * NAN or infinite predictions never do. */
int placement_cores_alone(double core_round_us, double gpu_us);
/* The cut of a batch of n_units units for `cpus` CPU workers alone, as a run without GPUs cuts
 * it (PLACEMENT_CPU_ALONE_CHUNKS_PER_CORE chunks a worker, fewer where there are fewer units):
 * every chunk sized for CPU cores (plan->cpu_chunks = plan->n_chunks). Returns -1 when out of
 * memory. */
int placement_cores_plan(struct placement_plan *plan, int n_units, int cpus);
#define PLACEMENT_CPU_ALONE_CHUNKS_PER_CORE 4
/* --cpu-share: CPU workers' chunks of a mono batch beside GPUs by the rule above (auto), always
 * (on) or never (off). Auto is 0 so that a zeroed configuration takes the rule. */
enum placement_share { PLACEMENT_SHARE_AUTO = 0, PLACEMENT_SHARE_ON, PLACEMENT_SHARE_OFF };

/* A batch cut into chunks for the kinds of workers there are: units (neurons, or blocks of
 * neurons) per chunk, in order, and the kind of worker each chunk was sized for (STARPU_CUDA,
 * STARPU_CPU, or both when the caller chose the size). */
struct placement_plan {
  int n_chunks;
  int *units;
  unsigned long *sized_for;
  int cpu_chunks; /* the trailing chunks sized for CPU cores (0 without them) */
};

/* Predicted microseconds of one task over `neurons` neurons on StarPU worker `worker`; NAN when
 * nothing measured stands behind a prediction and the plan should not rely on it; INFINITY on a
 * CPU worker for a task too far beyond the sizes measured to trust (the plan takes less). */
typedef double (*placement_predictor)(const void *context, int neurons, int worker);

/* Plans the chunks of a batch of n_units units of neurons_per_unit neurons (n_neurons in all).
 * With `requested` > 0 neurons per task, or with one kind of worker only, equal chunks as
 * placement_neurons_per_task says. With CPU and CUDA workers both, a heterogeneous cut:
 * placement_gpu_chunks() chunks for the GPUs and, after them, PLACEMENT_CPU_CHUNKS_PER_CORE
 * chunks per CPU worker, sized with `predict` so that a CPU core takes about as long over its
 * share as a GPU over its own chunk;
 * the equal chunks instead when even one granule would make a CPU core the slower or `predict`
 * says NAN (or is NULL: mono_batch passes none unless a share is asked, --cpu-share or
 * placement_cpus_share). Returns 0, or -1 when out of memory. */
int placement_plan_make(struct placement_plan *plan, int requested, int n_neurons, int n_units,
                        int neurons_per_unit, placement_predictor predict, const void *context);
/* The workers a plan is cut for: placement_plan_make takes StarPU's (its CPU workers,
 * placement_gpu_chunks(), the first worker of each kind, whose predictions stand for all). */
struct placement_workers {
  int cpus, gpu_chunks; /* CPU workers, chunks for the GPUs */
  int chunks_per_core;  /* the cores' chunks a CPU worker (0: PLACEMENT_CPU_CHUNKS_PER_CORE) */
  int cpu_worker, cuda_worker; /* the StarPU workers `predict` is asked about */
  /* The part of a GPU chunk's predicted task a core's round may take (0: PLACEMENT_SHARE_ENDS_BY):
   * a late core holds up the step, an early one only idles. */
  double ends_by;
  /* 1: a core's round costed as its chunks each as long as the largest (ceil(p / chunks) units),
   * not as the cut makes them (p mod chunks of them a unit longer than the others). The multi
   * share keeps it: its ENDS_BY and its rounds were measured so (a neuron a unit, at most a neuron
   * a chunk apart), and costed as cut B x 8,330's first calibration run went from 394
   * neurons to 266 in the one call that compared them on the H200 (1.028-1.032x against
   * 1.044-1.046x; B's homes cut 210-394 before), not measured over the nine mixes. */
  int chunks_costed_as_largest;
};
#define PLACEMENT_SHARE_ENDS_BY 0.95
/* ... for the multi share (placement_level_share_plan; built with another value to measure one,
 * scripts/bench/level_kernel_runs.sh). A core's chunk of a few large cells varies more from run
 * to run than mono's: with 0.95, C x 11,720 got 300 neurons in one call and ran 0.867x and 0.970x
 * the GPU alone (share37), where cuts of 180-240 had gained 1.013-1.020x (share33, share34); with
 * 0.8 (share38, H200 machine, fresh STARPU_HOMEs) C 1.020-1.024x, the six cells x 33,390
 * 1.025-1.027x, all 15 x 16,356 1.013-1.014x, 6 rounds of 6. With the cut measured before it runs
 * (share_probe), 0.9 again lost (ends93, 837e95d, two rounds each against 0.8's in the same
 * call): random trees 0.929-0.944x against 0.980-1.034x, B 1.012-1.016x against 1.020-1.021x,
 * A 1.025-1.026x (the same 276 neurons) against 1.017-1.029x, E 1.026-1.059x against
 * 1.044-1.047x. */
#ifndef PLACEMENT_LEVEL_SHARE_ENDS_BY
#define PLACEMENT_LEVEL_SHARE_ENDS_BY 0.8
#endif
/* 1: the multi share costs a core's round as its chunks each as long as the largest
 * (placement_workers.chunks_costed_as_largest says what was measured); 0: as the cut makes them
 * (a build to compare with, scripts/bench/build_variants.sh). */
#ifndef PLACEMENT_LEVEL_CHUNKS_COSTED_AS_LARGEST
#define PLACEMENT_LEVEL_CHUNKS_COSTED_AS_LARGEST 1
#endif
/* placement_plan_make for `workers` (tests give their own). */
int placement_plan_make_for(struct placement_plan *plan, const struct placement_workers *workers,
                            int requested, int n_neurons, int n_units, int neurons_per_unit,
                            placement_predictor predict, const void *context);
/* Equal chunks of neurons (one neuron a unit) of at least PLACEMENT_ALIGNED_FROM neurons hold a
 * multiple of PLACEMENT_ALIGN_NEURONS (the last one the rest), so that every chunk of the
 * interleaved layout starts on a whole warp's lines (placement.c says what it costs otherwise). */
#define PLACEMENT_ALIGN_NEURONS 32
#define PLACEMENT_ALIGNED_FROM 1024
void placement_plan_free(struct placement_plan *plan);

/* The cores' share of a level-solved (multi) batch beside GPUs: a plan (as placement_plan_make's
 * heterogeneous cut, one neuron a unit) of `gpu_chunks` GPU chunks, then
 * `chunks_per_core` chunks a CPU worker (0: PLACEMENT_CPU_CHUNKS_PER_CORE), sized with `predict` (a
 * chunk task's time over so many neurons) so that a core's round ends a little before a GPU chunk's
 * task. Returns 0 with plan->cpu_chunks 0 and no chunks when no core's chunk would end in time or
 * `predict` has nothing measured (NAN); -1 when out of memory. */
int placement_level_share_plan(struct placement_plan *plan, int n_neurons, int gpu_chunks,
                               int chunks_per_core, placement_predictor predict,
                               const void *context);
/* Whether a level-solved batch of `compartments` (this process's) on `gpus` GPUs, with (not 0) or
 * without channels, submitted `window` steps ahead (0: the default), gets the cores' share by
 * default: passive, from PLACEMENT_LEVEL_SHARE_FROM_COMPARTMENTS a GPU, a window of more than one
 * step. Measured on the H200 machines (BENCHMARKS.md, "The multi share by default"; calibrated
 * dmdas, each batch from a fresh STARPU_HOME, 1,000 steps, against the GPU alone): with this
 * rule and no option, one H200 and 15 CPU workers, eight real-cell mixes of 82-84 M compartments
 * 1.002-1.031x in 16 rounds of 16 (share41, three --calibrate runs first). With --cpu-share on: one
 * H200 and 15 CPU workers, eight real-cell mixes of 82-84 M compartments 1.005-1.023x in 24 rounds
 * of 24 (share34), the six cells x 100,000 (253 M) 1.024-1.026x, x 60,000 in a home calibrated at
 * 100,000 1.007x (share35); two H200s and 30 CPU workers, the six cells x 66,780 and C x
 * 23,440 1.018-1.029x in 6 rounds of 6 (share36). Not below: at 20 M (the GPU's step 0.38-0.40 ms)
 * C x 2,930 0.84-0.92x and all 15 x 4,000 0.81x; not with channels: HH at 13.9 M 0.996-1.006x
 * (share35). The first default (d3ab8b9, share37) had the cut's 5 % margin: C x 11,720, whose third
 * calibration run cut 300 neurons where share34's had cut 180, ran 0.970x and 0.867x; with
 * PLACEMENT_LEVEL_SHARE_ENDS_BY's 20 % (share38, share39) C x 11,720 ran 1.020-1.024x in 4 rounds
 * of 4 with --cpu-share on, 1.014-1.016x by default (share41). With the share laid out by
 * morphology (placement_level_arranged; arranged47, fine48, two49): one H200, eight mixes
 * 1.008-1.038x in 18 rounds of 18 (round robin in the same calls 1.006-1.030x); two H200s, C,
 * all 15 and D at 163 M 1.002-1.025x. The cores take 0.4-4 % of the
 * neurons (a level-solver task on a core pays a fixed cost a level and step and vectorises only
 * across copies of a cell), so the gain stays under 4 %. Since the share is probed, cut one cell
 * a chunk and aligned with the GPUs' sets of copies (fifty-eighth session, small120, H200 machine,
 * `--cpu-share on` from fresh homes, three calibration runs, two rounds each): at 60.5-61.3 M
 * (F x 90,000, T x 27,000, E x 14,000, C x 8,790) 1.073-1.087x in 8 rounds of 8, so from 60 M
 * (80 M before; by default then sixteen batches of 60.5-66.3 M never run, 32 rounds 0.967-1.101x,
 * mean 1.058x, one below 1.00x: E x 14,500 once, its cut grown between rounds); at 41-42 M the six
 * cells x 16,695 1.080-1.089x but B x 4,165 1.023-1.027x, all 15 x 8,000 0.978-0.987x and C x 5,860
 * 0.962-0.982x, so not below then. Those two left the GPUs 15 units of copies for four chunks,
 * which ran unaligned; aligned from one unit a chunk (MULTI_SHARE_ALIGNED_MIN_UNITS, fifty-ninth
 * session, small122, e139f42, sixteen batches at 34.6-51.0 M, twelve never run): at 40.8-51.0 M
 * 30 rounds 1.002-1.091x, 25 at 1.03x or more, none below 1.00x (all 15 x 8,000 1.071-1.073x, C
 * x 5,860 1.027-1.063x; A x 5,000 1.002-1.015x and the large cells x 4,000 1.002-1.018x the
 * least), where the rule of 60 M ran them on the GPU alone; at 34.6 M random trees x 10,000
 * 0.974-0.995x, so from 40 M. */
int placement_level_cpus_share(long long compartments, int gpus, int channels, int window);
#define PLACEMENT_LEVEL_SHARE_FROM_COMPARTMENTS 40000000LL
/* Whether a level-solved batch gets the cores' share: as `asked` (enum placement_share) when on
 * or off; by default when placement_level_cpus_share says so for StarPU's GPUs, there are CPU
 * workers, and the scheduler is a dm* one (the share is cut by the models). */
int placement_level_share_chosen(int asked, long long compartments, int channels, int window);
/* Steps a level-solved batch keeps submitted ahead of the computed ones (--window): `requested`
 * when positive, else PLACEMENT_LEVEL_SHARE_WINDOW with the cores' share (`share` not 0),
 * RUNTIME_DEFAULT_WINDOW without. The window counts every chunk's tasks together, so with a
 * share the GPU could run only a few rounds ahead of the cores' slowest chunks: when a core
 * slowed for a while (another process on its core, the shared L3), the GPU waited with it, and
 * the cut's slack (PLACEMENT_LEVEL_SHARE_ENDS_BY) could not take it back once the core recovered.
 * Submitted (almost) all at once, the GPU's chunks and the cores' go at their own pace and meet
 * at the end. Measured on the H200 machine (window94, 837e95d, calibrated dmdas, A, random
 * trees, B, E, rows of one round): against the window of 4, quiet 0.990-1.034x against
 * 0.955-1.033x (8 rounds each), beside three memory-copying processes 0.979-1.032x against
 * 0.964-1.036x (8); 3 rounds of 16 below 1.00x against 4, mean 1.012x against 1.004x; random
 * trees loaded 1.009x and 1.032x against 0.964x and 0.972x, E's slow quiet round 1.022x against
 * 0.955x, A's second loaded round 0.979x against 1.004x. As the default (window95, 7d9f676,
 * nine mixes quiet, four loaded, against --window 4): 0.988-1.061x against 0.960-1.051x, random
 * trees loaded 1.017x against 0.960x; 29 rounds in all, mean 1.017x against 1.011x. The same
 * bits whatever the window (test_schedule). */
int placement_level_window(int requested, int share);
#define PLACEMENT_LEVEL_SHARE_WINDOW 128
/* Whether a level-solved batch's chunks (the cores' share aside, `share` 0) or its cores' share
 * (`share` 1) are laid out by morphology, each chunk the copies of one cell (of one or two where
 * the chunks are fewer than the cells: level_arranged_cut)
 * (level_batch_options.arranged_tail), on `gpus` GPUs: as `asked` (enum placement_share's
 * values) when on or off (--arrange); by default the share always and the other chunks with no
 * GPU. A core sweeps a
 * level's rows across its systems and copies of a cell give it rows of one length and one
 * constants row for the run. Measured on the H200 machine (BENCHMARKS.md, "Chunks laid out by
 * morphology"; arrange51, arranged47): CPU workers alone (16), passive mixes of 82-84 M, medians
 * of two runs, C 1.58x, all 15 1.57x, random trees 1.28x, B 1.18x, six cells 1.20x, D 1.00x;
 * the H200 x2 machine's 32 CPU workers 1.15-2.32x on four mixes (arrange54); the cores' share
 * beside one H200 1.008-1.038x the GPU alone (round robin 1.006-1.030x). Not on GPUs by default:
 * the GPU alone at 82 M gained 0-3.9 % (six cells) but at 41 M lost up to 5.4 % (B x 4,165), and
 * two GPUs at 82 M each lost up to 6.4 % (the six cells; C gained 1 %). */
int placement_level_arranged(int asked, int gpus, int share);
/* What a share's cut (multi or mono) scales the cores' predictions by once its probe measured a
 * round of the cores' chunks (`measured_us`) against the models' prediction (`predicted_us`): 1
 * where either is not positive or they agree within PLACEMENT_SHARE_PROBE_BAND either way, else
 * their ratio, no less than `least` (a probe that ran fast gives the cores more only as far as
 * the cut's slack, PLACEMENT_LEVEL_SHARE_ENDS_BY, covers if the run is not as fast; 1: a probe
 * only shrinks the cut). The mono share's least is PLACEMENT_SHARE_PROBE_LEAST, the multi
 * share's MULTI_SHARE_PROBE_LEAST (multi_batch.h). In the quiet rounds of probe86 (H200 machine,
 * nine mixes) 48 of 74 probes read within 10 % of the prediction, the cut then kept. */
double placement_share_probe_scale(double measured_us, double predicted_us, double least);
/* Whether a share's probed round (`round_us`, a core's mean) that ends by `bound_us` ends so close
 * to it (within `band` of it: above (1 - band) * bound_us) that a second probe should decide: 0
 * where band is not positive or either time is not a positive finite number. Why: the probes of
 * one share in one home read 0.91-1.02 of the GPUs' chunk over ten runs (D x 3,702 at 246
 * neurons, cut136b, H100 machine); the one that read 0.896 was taken against a bound of 0.9, and
 * that run's cores, busy 0.94-0.97 of the step, made it the home's one round below 1.03x. */
int placement_share_reprobe(double round_us, double bound_us, double band);
/* Whether a share's probe that read the cores' round (`measured_us`) more than `above` times what
 * the models predicted (`predicted_us`) should be taken again, the faster of the two then kept:
 * 0 where above is not positive or either time is not a positive finite number. Why: a probe run
 * right after another share's run read 1.57-2.42 times the prediction in 5 of 36 runs and cut the
 * share to a quarter (C x 5,860 from 388 neurons to 90, 1.021x the GPU alone against 1.078-1.089x;
 * H100 machine, idle138), where the probes of runs after a GPU-alone run read 0.68-1.23 times it
 * (on the next call's machine, idle138b, runs in that order read at most 1.06 times it, so the
 * retry, MULTI_SHARE_PROBE_AGAIN_ABOVE, stays off); a host busy for good reads slow both times and
 * keeps its smaller cut. */
int placement_share_probe_again(double measured_us, double predicted_us, double above);
/* How many times itself a share whose probed round (`round_us`, a core's mean) ended before the
 * GPUs' largest chunk's predicted task (`gpu_task_us`) may grow by in one step up: what the probe
 * says still ends by `ends_by` of that task (the cores' time taken in proportion to the share),
 * no less than `least` and no more than `most`; `least` where either time is not a positive
 * finite number or ends_by is not positive. Why: the fixed growths refused steps the cores had
 * time for (large cells x 3,322: 60 neurons whose round was 0.36 of the GPU's chunk, the share
 * with the rest 2.03 times it, multi_batch.h, MULTI_SHARE_IDLE_GROWTH_MOST). */
double placement_share_idle_growth(double round_us, double gpu_task_us, double ends_by,
                                   double least, double most);
/* What a multi share's cut scales the cores' predictions by once its probe's busiest CPU worker
 * took `busiest_us` over a round whose CPU workers (`cores` of them) took `round_us` in all: 1
 * where the busiest ends by `ends_by` times the GPUs' largest chunk's predicted task
 * (`gpu_task_us`) or any of them is not a positive finite number, else how much longer the busiest
 * ran than the workers' mean (at least 1). */
double placement_share_busiest_scale(double busiest_us, double round_us, int cores,
                                     double gpu_task_us, double ends_by);
/* PLACEMENT_SHARE_DEBUG 1: each step of a share's cut (the cores' round and the GPU's chunk
 * predicted at each size tried, the cores' prediction's terms, the probe's times) on stderr, to
 * find why a cut stops where it does (a build to diagnose with, never a default). */
#ifndef PLACEMENT_SHARE_DEBUG
#define PLACEMENT_SHARE_DEBUG 0
#endif
#ifndef PLACEMENT_SHARE_PROBE_BAND
#define PLACEMENT_SHARE_PROBE_BAND 0.1
#endif
#ifndef PLACEMENT_SHARE_PROBE_LEAST
#define PLACEMENT_SHARE_PROBE_LEAST 0.8
#endif
/* Rounds of the cores' chunks a share's probe times (multi_batch.c and mono_batch.c, share_probe),
 * after one to warm up. */
#define PLACEMENT_SHARE_PROBE_ROUNDS 3
/* A share's probe's result from the CPU workers' time executing its PLACEMENT_SHARE_PROBE_ROUNDS
 * rounds (`executing_us`, all workers) and the models' prediction for one round
 * (`predicted_us`): *round_measured_us a round's, *round_predicted_us the prediction; 0 and 0
 * (no probe) where either is not a positive finite number. */
void placement_share_probe_round(double executing_us, double predicted_us,
                                 double *round_measured_us, double *round_predicted_us);
/* What the multi share's cut trusts of a core's prediction for a task of `size`: `expected` (the
 * model's) up to `largest`, the largest size the cores were measured at (0: none, `expected`
 * as it is); past it at least `at_largest` (the model's prediction there) in proportion to size,
 * and INFINITY past `reach` times it. The models' line beyond the sizes measured may stay near
 * the largest one's time (size_model.h): where a core's calibration runs measured chunks of one
 * size, their line's slope is noise, and the six cells x 33,390 got chunks twice the size
 * measured as if they cost the same, 1.99-2.03 ms a step against 1.26 for the GPU alone
 * (BENCHMARKS.md, "The multi share's cut made safe"). Growing in proportion is an upper bound for
 * the level solver on a core (larger chunks vectorise better), so a share grows run by run and
 * never past its time. */
double placement_core_prediction(double expected, double at_largest, double largest, double size,
                                 double reach);

/* Where a chunk's data starts: the memory node of a GPU, or -1 (RAM). The chunks sized for GPUs
 * (or, without a heterogeneous cut, all chunks when there are GPUs) are spread over the GPUs in
 * contiguous runs, chunk `index` of `count`; the batch prefetches them there when it is made.
 * The schedulers still place every task (dmda/dmdas weigh moving the data against waiting);
 * the spread only gives them a sensible start: with several workers per GPU a data-aware
 * scheduler otherwise puts a step's first tasks on the idle workers of one GPU, where the data
 * then stays (H200 x2: 16 tasks per step over two GPUs ran at one GPU's speed). */
int placement_home_node(int index, int count);
/* Prefetches a chunk's handle to its home node (placement_home_node), if it has one, and makes
 * that GPU the chunk's home in the size models (codelets/size_model.h), which predict its tasks
 * twice as long on any other GPU. */
void placement_prefetch(void *handle, int node);
/* Makes the CPU cores the home of a chunk cut for them (its handle stays in RAM): the size
 * models predict its tasks on a GPU as the GPU's time plus more than a core's round of the
 * cores' chunks, so the scheduler leaves it to the cores and a GPU takes it only when no core
 * could start it within a round. */
void placement_cpu_home(void *handle);
/* The cores give a chunk of their share up to the GPUs for the rest of the run
 * (size_model_set_gpus_home): its tasks then run on a GPU. */
void placement_gpus_home(void *handle);
/* open 1: the cores' home adds nothing to a GPU's prediction (size_model_open_cpu_homes), so a
 * GPU with no work of its own left takes the cores' chunks' tasks it would end first; 0: the
 * homes hold again. */
void placement_cpu_homes_open(int open);
/* Before a chunk's handle is unregistered: it has no home any more. */
void placement_forget_home(void *handle);

/* Where a chunk sized for `sized_for` may run: anywhere unless `pin`, which restricts it to the
 * kind of worker it was sized for (the schedulers then need no model to keep GPU-sized chunks
 * off CPU cores, but cannot balance across kinds). */
unsigned long placement_where(unsigned long sized_for, int pin);
/* Where a GPU chunk of a multi batch with the cores' share may run: as placement_where, but on
 * GPUs only in a calibration run (`calibrating`). A GPU chunk that dmdas ran on a core in a
 * calibration run is measured there and kept: the models then hold a core's time for a GPU
 * chunk and the GPU's for it from a run whose cores were late, and the runs after put every GPU
 * chunk on the cores (H200 machine, share32c and share32d: from a fresh STARPU_HOME, C x 11,720
 * and the six cells x 33,390 ran 92-104 GPU chunk tasks of about 100 on cores in their first
 * calibration run, then all of them: 38-75 ms a step against 1.09 and 1.26 for the GPU alone).
 * Runs that only read the models place every chunk freely. */
unsigned long placement_share_gpu_where(int pin, int calibrating);
/* What an equal cut's chunks are sized for (placement_neurons_per_task's rule). */
unsigned long placement_sized_for(int requested);

#endif
