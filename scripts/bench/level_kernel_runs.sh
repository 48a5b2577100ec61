#!/usr/bin/env bash
# The level kernels' runs of 2026-11-27 (BENCHMARKS.md, "Small levels first" and "Row offsets
# staged"), on the H200 x2 and H100 x2 machines: a bundle in .bundle (scripts/gpu_bundle.sh, with
# the shared morphologies in .bundle/morphologies), then COMMIT=... bash THIS MODE with MODE
#   prio11    the orders of priority tried (HINES_PRIORITY_MODE 1-3 needs that experiment build)
#   prio11b   --level-priorities on against off, every mix (priorities_*)
#   final11   the chunk rule of 10 M against 20 M, and bench_mpi.sh for the six cells (chunks10m_*)
#   prof11    ncu on the deep chains' and CA1's level kernels, SASS of two kernels (ncu_*)
#   stage11, stage11b, stage11c   row offsets staged (this build) against hinestask_nostage.gz
#             (scripts/bench/build_variants.sh .bundle/bin nostage='-DLEVEL_STAGE_ROW_OFFSETS=0')
# and of the twelfth session (BENCHMARKS.md, "Lean sweeps"), H200 x2 machine:
#   stagger12 chunks started out of phase (HINES_STAGGER_US: an experiment build of a2115a0,
#             not committed; stagger_*)
#   lean12, lean12b   the lean kernels' groups and thresholds (HINES_LEAN_BELOW, _GROUP, _L2:
#             knobs of the experiment builds of a2115a0, not committed; lean_explore_*)
#   final12   --level-lean on against off, every mix, one and two GPUs, bench_mpi.sh (lean_*)
#   hh12      the same with HH everywhere (lean_hh_*)
#   chunks12  8 chunks a GPU against the rule's 4 (and 2), with the lean sweeps (chunks_lean_*)
# and of the thirteenth session (BENCHMARKS.md, "Stretches: measured slower"), H200 x2 machine,
# for a build of commit e7af629 (stretch13) or e7af629 with scripts/results/stretches_e7af629-wip.patch
# (stretch13b, prof13): --level-stretches and HINES_TEAM_WAVES exist only there (reverted):
#   stretch13 --level-stretches on against off and against the build before stretches
#             (hinestask_head.gz: scripts/bench/build_variants.sh from a worktree of that commit),
#             every mix, one and two GPUs, HH too (stretch_*)
#   stretch13b the same with the team kernels' reach (HINES_TEAM_WAVES: an experiment knob, not
#             committed; 0: no team kernels)
#   prof13    ncu, kernel by kernel, of one step: the lean kernels (--level-stretches off) against
#             the team kernels at every lean level (HINES_TEAM_WAVES=1000), deep chains and CA1
# and, with this commit's build:
#   warps13   --level-warps off against the cost model (auto), every mix, one and two GPUs, HH
#             (a level given warp sweeps cannot be lean) (warps_*)
#   final13   the defaults after it (auto gives no warps to passive lean batches), every mix, one
#             and two GPUs, bench_mpi.sh for the six cells (final13_*, mpi13_*)
# and of the fourteenth session (BENCHMARKS.md, "Roots at the cells' centers"), H200 x2 machine:
#   root14    --level-root center (the default) against soma, every mix, one and two GPUs, HH for
#             the six and the large cells, bench_mpi.sh for the six cells (root_*, mpi14_*)
#   final14   the defaults after it (the center only where it cuts the path by an eighth), every
#             mix, one GPU and two in the same round, three rounds, bench_mpi.sh mono and multi
#             (final14_*, mpi14b_*)
#   factors14 --level-factors rows (the default) against elements, every mix, one and two GPUs,
#             bench_mpi.sh for the six cells (factors_*, mpi14c_*)
#   chunks14  chunks per GPU after the row factors: the rule's 4 a GPU against 8 and 2 over two
#             GPUs, 8 on one, CA1 x 3,000 in 1, 2 and 4 chunks (chunks14_*)
#   final14b  the defaults after one chunk per 4 M compartments: every mix, one and two GPUs,
#             CA1 x 3,000 and x 6,000 and the six cells x 4,174 against one chunk, HH, bench_mpi.sh
#             for the six cells (final14b_*, mpi14d_*)
#   chunks14b the rule kept at 10 M with two chunks from 8 M: CA1 x 3,000 and x 6,000 against one
#             chunk, the deep chains over two GPUs against 4 chunks a GPU (chunks14b_*)
#   mpi14     bench_mpi.sh for the six cells, five runs each (mpi14e_*)
# and of the fifteenth session (BENCHMARKS.md, "Chunk tasks of several steps"), H200 x2 machine:
#   steps15   --task-steps K for multi chunk tasks (1, the old behaviour, against 2 to 16): CA1 x
#             500 and x 3,000, the six cells and the large cells on one and two GPUs, HH, mono
#             for the ratio, bench_mpi.sh for the six cells at 1 and 8 (steps_*, mpi15_*)
#   final15   the defaults after it (8 steps a chunk task), every mix, one and two GPUs, two
#             rounds; CA1 x 500 against the level solver's options at 8 steps; the defaults with
#             CPU workers beside the GPUs; HH variants of the large cells; bench_mpi.sh mono and
#             multi (final15_*, mpi15b_*)
#   diag15    the large cells with HH and exact rates (an abort in StarPU's CUDA driver in
#             final15), compute-sanitizer on a small batch of them; chunks a GPU over two GPUs
#             with 8 steps a task (large cells, deep chains, all 15); bench_mpi.sh (diag15_*)
#   diag15b   which paths of an HH run with exact rates fail on the GPU (options one at a time),
#             compute-sanitizer's memcheck with the API errors left out
#   verify15  after the fix (the row kernel's rate-table pointer): the same option list, CPU and
#             GPU probe files with exact rates, test_multi_levels, HH timings with exact rates,
#             bench_mpi.sh mono and multi five runs each (verify15_*, mpi15c_*)
#   verify15b after channels_row_any became channels_row_of_variant (mono kernels recompiled):
#             the checks, the option list, HH timings against the build before
#             (bin/hinestask_prev.gz) (verify15b_*)
#   hh16      (sixteenth session) the HH row kernel beside the deepest levels' sweeps and the
#             kernels compiled for the table form: checks, every HH mix against bin/hinestask_prev.gz
#             and HINES_ROWS_SIDE=0, ncu of the large cells again (hh16_*, prof16b_*)
#   hh16b     register bounds, loads ahead and the row kernel's elements a thread, as build
#             variants (scripts/bench/level_variant.sh BUILD .bundle/bin r72='-DLEVEL_CHANNELS_TABLE_MAX_REGISTERS=72'
#             r64=..=64 l2a2='-DLEVEL_CHANNELS_L2_AHEAD=2' rp2='-DLEVEL_ROWS_PER_THREAD=2'
#             rp4=..=4, on the build of cdb1a4f's kernels at one element a thread); SASS stalls of
#             the row and channel kernels (prof16c_*; their files did not come back)
#   hh16c     the kept change against the build before: checks (dmda with CPU and GPU workers
#             too), bench_mixes.sh with HH everywhere, small and passive batches (hh16c_*)
#   hh16d     where rows are built apart (--level-rows N) and the sweep at 72 registers, HH mixes
#             (hh16d_*)
#   hh16e     two GPUs after cdb1a4f: checks with both GPUs, HH and passive on one and two
#             (hh16e_*)
#   ca1x16    CA1 x 500 against level options not measured at 8 steps a task (ca1x16_*)
#   prof16    (sixteenth session) ncu of one chunk of the large cells' steps, HH and passive, every
#             kernel (prof16_*); HH timings; the defaults beside CPU workers (cpus15's rows)
#   split15   longer branch pieces (--level-split 128, 256, off: fewer levels, fewer kernels on
#             the critical path) over two GPUs for the large cells, all 15 and the deep chains;
#             the same for the large cells with HH on one GPU (split15_*)
#   br17      (seventeenth session) the branch kernel: CPU and GPU probe files, test_multi_levels
#             on the GPU, against the level kernels on CA1 x 300 to x 3,000 and every mix (br17_*)
#   br17b     the same after each block's branch values went to shared memory and loads to
#             groups, with register and group variants (level_variant.sh, VARIANT_SOURCE=
#             hines_branch_cuda.cu: r128, g4, g16) on small batches (br17b_*)
#   br17c     phase B's constants loaded in phase A: bits, phases alone (BRANCH_PHASES variants
#             pA, pAB, pAC; results wrong), ncu of the kernel (br17c_*, ncu_br17_*)
#   br17d     the branch step in three launches: bits, small batches and mixes against the
#             level kernels, phases alone (pA, pAC) (br17d_*)
#   br17e     phase B from shared memory only (the block's links copied in): test_multi_levels'
#             failures on the GPU, bits, small batches (br17e_*)
#   br17f     phase B's items loaded and stored flat: every batch size against the level kernels
#             (br17f_*)
#   br17g     the defaults after --level-kernel auto: the kernel each batch runs, CPU and GPU bits
#             of default runs, test_multi_levels and test_accuracy on the GPU (br17g_*)
#   br17h     the final commit's defaults on small batches, three rounds, with the checks (br17h_*)
# and of the eighteenth session (BENCHMARKS.md, "A trunk of branches"), two-GPU machine:
#   trunk18   (build of a4ab0b7) --trunk-below T --trunk-kernel branches, the trunk's levels
#             chosen per chunk (the levels near the roots solved by the branch step between the
#             level kernels' sweeps) against the defaults, the mixes at mono's compartments on two
#             GPUs and one; checks: test_multi_levels on the GPU, CPU and GPU probe files (trunk18_*)
#   diag18    (build of a4ab0b7) why those probe files differed (the chunks; diag18_*)
#   trunk18b  --trunk-branches R (the same trunk levels in every chunk) against the defaults, two
#             GPUs and one, with the checks (trunk18b_*)
#   trunk18c  the trunk with --level-split 32 and 48 and with plain launches, two GPUs (trunk18c_*)
#   trunk18d  the trunk with two and three chunks a GPU, two GPUs (trunk18d_*)
#   steps19   (nineteenth session) one GPU, whole batches against halves over 100 and 1,000
#             steps, chunks' first steps staggered (experiment build), tasks of 32 steps (steps19_*)
#   pair19    two GPUs against one over 1,000 steps: every mix, the trunk options, mono in 16 tasks
#   fixed19   both stimulus states' graphs at the first step against the old build (hinestask_old),
#             100 and 1,000 steps, one GPU and two; all 15's trunk options (fixed19_*)
#   cells19   the trunk's blocks of several cells, other cuts and thresholds, two GPUs (cells19_*)
#   cells19b  cells19's best settings combined, 1,000 and 100 steps (cells19b_*)
#   cost19    what those settings cost on one GPU; a small trunk on every mix (cost19_*)
#   fixed19b  a run's fixed cost: 100 to 1,000 steps, stimulus switch or not, window, 1 step a task
# and of the twentieth session:
#   trunkc20  the trunk's blocks of 16 and 64 cells at R 1, 1.5, 2.5, one GPU and two, every mix;
#             checks: CPU and GPU probe files with blocks of 16 (trunkc20_*)
#   auto20    the default trunk against none, one GPU and two, mixes kept apart from its rule
#             (A, B, C), two sizes; checks: probe files, test_multi_levels on the GPU (auto20_*)
#   chunks20  auto against none: 1, 4 and 16 chunks on one GPU, eager, lws and dmda on one GPU and
#             two, CPU workers beside one GPU (chunks20_*)
#   short20   the default trunk over 100 steps, one GPU and two; mono in 16 tasks (short20_*)
#   sched20   lws and eager over two GPUs: workers per GPU and CUDA pipeline (sched20_*)
#   sched20b  eager and lws with their new defaults over several GPUs, dmdas beside (sched20b_*)
# and of the twenty-first session (mixes D and E new, kept apart from every rule):
#   rule21    the default trunk's thresholds, one GPU and two, six mixes (HINES_TRUNK_SYSTEMS,
#             _BRANCHES, _SHARE: knobs of an experiment build of 5505835,
#             scripts/results/trunk_thresholds_knob_5505835.patch); the SM clocks sampled by
#             nvidia-smi over 100-step runs (rule21_*)
#   chunks21  chunks a GPU (3, 4, 6, 8) over two GPUs and one; D's half batch on one GPU; E with
#             the thresholds v1 (chunks21_*)
#   rule21b   the trunk up to 4 systems a neuron (the new default) against 2.5, with the knob
#             patch applied for the old rule; checks: probe files, test_multi_levels (rule21b_*)
#   split21   --level-split 48 and 56 against 64 with that default, one GPU and two (split21_*)
#   split22   split 56 against 64 on every mix, small batches, HH; a
#             traced half batch (the run's fixed cost)
#   chain23   bit-neutral options against the two-GPU fixed part
#   prio23    level priorities on against off, every mix, one GPU and two; the cores alone
#   prio23b   --level-priorities auto (by chunk size) against on, one GPU; two GPUs; checks
#   accept23  issue 15's rows at the priorities' rule: 1/4/16 chunks, mono 16 tasks, schedulers
#   small30   (one-GPU machine) CPU workers alone, small batches: one step a task against the
#             new default of 8
#   soma30    (one-GPU machine) HH on the somas alone, the CPU blocks without a soma row by row:
#             CPU and GPU probe files; CPU workers alone against the build before
#   two30     (two-GPU machine) standing figures of two GPUs against one for the real-cell
#             mixes at this build (last measured 2026-11-28, prio23b), mono in 16 tasks
#   cpu30b    (one-GPU machine) the same after runs of subtree copies went row by row; multi
#             CPU + GPU (calibrated dmdas) against the GPU alone: do the cores take chunks?
#   cpu30     (one-GPU machine) CPU workers alone: tasks of 8 steps by default, copies' rows
#             read once (against hinestask_old.gz, the build before); CPU and GPU probe files
#             with runs of copies in the CPU chunks
#   cpurows24 (one-GPU machine) the CPU row sweeps: CPU and GPU probe files, 16 cores' rates
#   hh27      (one-GPU machine) HH: the share against the GPU alone in blocks and interleaved
#   robust27  (one-GPU machine) the default share uncalibrated, with probes every 12 steps, a
#             window of 1, under lws and eager, a last round of 4 steps
#   default27 (one-GPU machine) the defaults after the share from 64 M passive compartments with
#             no upper bound (HH too in that build): nine batches, a size never seen, a trace
#   share27   (one-GPU machine) after one step kind for tasks of several steps: --cpu-share on
#             against the GPU alone over 300, 500, 1,000 steps, seven batches, HH
#   diag27b   (one-GPU machine) big-high 256,000 with the share over 160, 500, 1,000 steps and
#             traces of 160 and 500 (scripts/bench/share_rounds.py reads their tasks.rec)
#   diag27    (one-GPU machine) the host's CPUs, a trace of big-high 256,000's share, the cores
#             alone on its chunks
#   final26b  (one-GPU machine) the same after one chunk a GPU beside the cores' share
#   final26   (one-GPU machine) the same after a GPU's prediction for the cores' chunks grew to
#             more than a core's round: 256,000 six rounds, a trace, four more batches
#   chunks26  (one-GPU machine) the cores' share in four chunks a core: same bits, 256,000 eight
#             rounds, a size never seen, a trace, four more batches
#   default26 (one-GPU machine) the defaults after it (the share from 64 M passive compartments
#             on one GPU; --cpu-share on in blocks): a size never seen, six batches, a trace
#   home26    (one-GPU machine) the cores' chunks kept at home: same bits, --cpu-share on against
#             the GPU alone, 256,000 medium-high eight rounds, six more batches
#   repeat25  (one-GPU machine) default25's CPU + GPU against the GPU alone, more rounds
#   two25     (two-GPU machine) the rule over two GPUs with 30 CPU workers: 512,000 and
#             1,024,000 medium-high; 256,000 interleaved against blocks, 16 tasks against one
#   default25 (one-GPU machine) the defaults after the large-batch rule (blocks and the cores'
#             share at 8 steps from 64 M passive compartments a GPU), six batches; same bits; a
#             trace of the default CPU + GPU run at 256,000
#   steps25b  (one-GPU machine) the same at 1 and 8 steps, each calibrated, after the steps went
#             into the step model's kind; CPU workers alone at 1 and 8 steps a task
#   steps25   (one-GPU machine) CPU workers' share (--cpu-share on) with tasks of 1, 4, 8 and 16
#             steps against the GPU alone, six batches; same bits of the share at 8 steps
#   default24 (one-GPU machine) the default layout with CPU workers beside the GPU (block and
#             the cores' share from 150 M passive compartments a GPU), five batches; same bits
#   share24   (one-GPU machine) CPU workers' share only for GPU chunks of 1.5 ms or more:
#             (share24b: only passive batches of 150 M compartments a GPU or more)
#             CPU + GPU in blocks against the GPU alone, eight batches; a trace at 512,000
#   hetero24  (one-GPU machine) mono's new default with CPU workers (block) against the GPU
#             alone, six batches; same bits; a trace of the default CPU + GPU run
#   hetero23  (one-GPU machine) CPU + GPU against the GPU alone, mono block and interleaved
#   layout23  mono block against interleaved, GPU alone, classes and sizes, one GPU and two
#   cpudiag22 CPU workers beside two GPUs, large cells: slow or stuck (cells22's timeout)
#   cpudiag22b the size model's predictions in those runs (a printing build)
#   cpufix22  CPU workers beside the GPUs after the size model's bound (runs after runs)
#   cpusweep22 the same over the other batches, one GPU and two
#   cells22   the trunk's cells a block: default, 32, 16; the new trunk under eager, lws,
#             dmda, with CPU workers, over 100 steps
# Each row: GPUs, batch, label, ms per step, G compartment-steps/s; check(): CPU workers and
# the GPU give identical probe files (HH and passive, chunks, rows apart), test_multi_levels.
# and of the thirty-fourth session (BENCHMARKS.md, "The multi share by default"), with this
# commit's build unless said:
#   share39   one core: the branch kernel's element constants against hinestask_noec; the share
#             from fresh homes on C, the large cells, the six cells
#   stag40    chunks out of phase once more (hinestask_stag, the diff beside stag40's CSV; as
#             stagger12 had found: no gain)
#   share41   the multi share by default over the eight mixes (default_share); plain launches
#   fixed42   where the two-GPU fixed part is not: half batches in 1-8 chunks, D's cells apart
#   two43     (two-GPU machine) the multi share by default over two GPUs; two chunks a GPU
#   trace44   the trace of traces/reference-h200-multi-cpu-gpu-six-default
#   chunks45  the default share with two chunks a core (--cpu-chunks 2), four mixes
#   chunks46  two chunks a core against four in one call (MIXES)
#   arranged47  the cores' share laid out by morphology against round robin (MIXES)
#   fine48    a core's share in any number of neurons against multiples of four, and round robin
#             (a0a858f's PLACEMENT_LEVEL_SHARE_FINE_UNITS, reverted in 9bbb444)
#   two49     (two GPUs) the share laid out by morphology against round robin (MIXES)
#   weight50  (two GPUs, short) the laid-out chunks cut by a core's cost against compartments
#             (c64e995's MULTI_SHARE_SYSTEM_WEIGHT, reverted)
#   arrange51 the whole batch laid out by morphology (hinestask_all: cd7b8e4 built with
#             -DMULTI_ARRANGE_ALL=1, the switch --arrange replaced)
#   arrange52 --arrange's default (laid out with CPU workers alone) against --arrange off: CPU
#             workers alone over every mix, passive and HH, small batches; probe files
#   arrange53 (one GPU, short) the build with --arrange on the GPU: test_multi_levels with and
#             without CPU workers, the share's probe files, the default share (C, B), --arrange on
#   arrange54 (two GPUs) --arrange on against the default over both GPUs at ~82 M a GPU, and CPU
#             workers alone (StarPU's count) laid out against --arrange off
#   cores55   (one GPU) the cores' rate at the share's sizes: 15 CPU workers alone, share-sized
#             batches in chunks of 5, 10 and 20 neurons, builds with runs of copies from 8 (the
#             default), 16 and 32 (hinestask_run16, _run32); then the share beside the GPU from
#             fresh homes with --cpu-chunks 4 (the default), 2 and 1, and the run16 build at 1 and 2
#   sizes56   (one GPU) the GPU alone at batch sizes a few neurons apart (the GPU's part of the
#             share runs: B x 8,195 after 135 neurons went to the cores ran 1.043x B x 8,330),
#             then B's share again at 1 and 4 chunks a core, both builds
#   align57   (one GPU) the GPU alone in chunks whose every cell has a multiple of 16 copies
#             (--task-neurons, the rest in a fifth chunk): every level row then starts on a
#             128-byte line (sizes56: B x 8,192 ran 1.12x B x 8,330's rate a compartment)
#   aligned58 (one GPU) the aligned cut by default (level_aligned_cut): test_multi_levels on the
#             GPU, probe files against CPU workers, then the default against the build before
#             (hinestask_old, 37e7ffe) on the GPU alone (passive 82 M and 41 M, HH) and CPU + GPU
#   two59     (two GPUs) the aligned cut over two GPUs against one GPU, ~82 M a GPU; probe files
#             against round robin (the bundle's build): probe files of both builds, GPU alone at
#             82 M and half that, CPU workers alone
#   gaps60    (one GPU) what the aligned cut left unmeasured: test_multi_levels on the GPU (the
#             8-unit bound), the cores' rate at the share's sizes with element constants against
#             table gathers (hinestask_noec: -DLEVEL_ELEMENT_CONSTANTS_MAX=0), the GPU alone
#             under eager, lws and dmda, B's and C's share with both builds; MIXES: the default
#             share on those mixes
#   share62   (one GPU) the default share beside the GPU's aligned chunks on the seven mixes gaps60
#             left, then a trace of the six cells' default share (trace_share)
#   cores63   (one GPU) the cores' subtree and row runs from fewer copies: builds with
#             LEVEL_TREE_ROWS_RUN 2 (hinestask_trt2), 4 (trt4), and LEVEL_ROWS_RUN 3 with it at 2
#             (rr3t2) against the default 8 and 8: 15 CPU workers alone at the share's chunk
#             sizes, then the default share of random trees and E with each build
#   trace64   (one GPU) traces of the default share where it gained nothing or lost in share62
#             and cores63: random trees x 23,585, A x 8,820, E x 18,711 (trace_share)
#   share65   (one GPU) the default share with a core's chunk predicted from the mean rate of
#             the cores' tasks near its size (MULTI_SHARE_RATE_SPREAD): every mix, two rounds
#   whole66   (one GPU) the share with the GPUs' part in whole sets (MULTI_SHARE_WHOLE_SETS):
#             the share's probes against the GPU alone's on random trees, test_multi_levels on the
#             GPU with CPU workers, then the default share on every mix, two rounds, random
#             trees and E also with the rest's chunk on the GPU (hinestask_rest.gz:
#             scripts/bench/build_variants.sh .bundle/bin rest='-DMULTI_SHARE_WHOLE_SETS=0');
#             SKIP_CHECK=1: no probes or tests; REST_MIXES, MIXES: the batches of each part
#   two61     (two GPUs) the aligned cut on A, the six cells, random trees and E over two GPUs
#             against one; test_multi_levels on both GPUs; the default share over two GPUs
#   contend67 (one GPU) why the GPU's rounds slow beside the cores' share: from a fresh home and
#             three --calibrate runs, rounds of the GPU alone, the GPU with 15 idle CPU workers
#             (--cpu-share off), the default share with 15, 14 and 12 CPU workers and with the
#             main thread on a core of its own (STARPU_MAIN_THREAD_BIND), and the GPU alone
#             beside a CPU-only hinestask on 14 other cores (load_row); MIXES
#   ceiling68 (one GPU) what the cores can add: 15 CPU workers alone, one chunk a worker of
#             T neurons laid out by morphology (T in CHUNKS, default 4 16 48), every mix (CEILING_MIXES:
#             name:neurons of a GPU batch, the CPU batch 15 T of the same cells), then the share
#             with --cpu-chunks 1 and 2 against the default 4 (CHUNK_MIXES), fresh homes
#   ceiling69 (one GPU) the most a share could give: the GPU alone at the batch less 0, 2 and 4 %
#             in whole sets (16 copies of every cell), and 15 CPU workers alone (eager, two chunks
#             a worker) at 1, 2 and 3 % of the batch, every mix (CEILING_MIXES: name-neurons-cells)
#             (the call of 2026-11-30 ran with the batch's size overwritten after its first row:
#             its GPU rows at 4 % and its cores' rows are of the size the line gives, see the log)
#   trace70   (one GPU) traces of random trees x 23,585 and B x 8,330: the default share, the
#             share with --cpu-chunks 2, the GPU alone, and the GPU alone at the share's GPU
#             part (the traces' tasks.rec and summaries in trace70-*.tar.gz)
#   steps71   (one GPU) the GPU alone's time against its neurons in whole sets: random trees
#             23,552 - 64 k (k 0-14) and A 8,784 - 48 k (k 0-8), two rounds; then the share with
#             --cpu-chunks 2 against the default 4 on the six cells, C, D and the large cells
#             (K_MIXES), one round each from fresh homes
#   trace73   (one GPU) the default share (two chunks a core, the chunks' kept element
#             constants) on MIXES: a trace of it and of the GPU alone at its GPU part, two rounds
#             of the GPU alone, the GPU alone at the share's GPU part and the share; then 15 CPU
#             workers alone in chunks of 48 (as ceiling68) on random trees, A and E
#   nine74    (one GPU) the default share on the nine mixes (MIXES), then the share cut to end
#             by 90 % of a GPU chunk's task (hinestask_eb90, PLACEMENT_LEVEL_SHARE_ENDS_BY 0.9)
#             on EB_MIXES; fresh homes, three --calibrate runs, two rounds each
#   rounds75  (one GPU) how often the default share runs slow, and what its cores did then: from
#             a fresh home per mix (MIXES), three --calibrate runs, then six rounds of the share
#             (BIND_MIXES: also with the main thread on a core of its own) and the GPU alone,
#             each share row followed by its CPU workers' task counts and ms executing
#   steal76   (one GPU) whether the share's slow rounds are the machine's: eight rounds of the
#             default share and the GPU alone on MIXES (fresh home, three --calibrate runs), each
#             share row followed by its workers' load and the machine's CPU time over the row
#             from /proc/stat (user, system, idle, steal: the hypervisor's) and the cores' mean
#             MHz 2 s into the row
#   pages77   (one GPU) the share's arrays on 2 MiB pages (this build) against hinestask_old
#             (4 KiB pages): the host's transparent_hugepage settings, then per mix (MIXES) a
#             fresh home, three --calibrate runs and five rounds of the share with each build
#             (their workers' load; AnonHugePages 3 s into the first) and the GPU alone
#   ends78    (one GPU) the share cut to end by 70 % of a GPU chunk's task (hinestask_eb70)
#             against the default 80 %, rounds interleaved from one calibrated home per mix
#             (MIXES; three --calibrate runs with the default), each with its workers' load, and
#             the GPU alone
#   scale79   (one GPU) whether the cores' share is bound by the host's memory: the host's copy
#             bandwidth (PyTorch CPU tensors, 1 GiB copied, 1 to 15 threads); CPU workers alone
#             on the share's chunk shapes (SCALE_MIXES: mix:neurons a chunk), 2 chunks a worker for
#             1, 4, 8 and 15 workers, and 15 workers in chunks of half and twice that size; then
#             rounds of the default share on A, each after the copy bandwidth of 15 threads
#   fit80     (one GPU) the cores' chunks against the host's caches: 15 CPU workers alone on A, E
#             and random trees in chunks of three sizes with this build, hinestask_noec (no
#             element constants: rows gathered from the constants table) and hinestask_rr4 (runs of
#             4 copies read their row's constants once); then per mix a fresh home per build
#             (three --calibrate runs each) and rounds of the default share with each build, the
#             default with --cpu-chunks 4, and the GPU alone
#   one81     (one GPU) one chunk a core (--cpu-chunks 1: wider rows, the rate of a core's
#             chunk grows with its copies) against the default two: per mix (MIXES) a fresh home
#             per setting (three --calibrate runs each), then rounds of both and the GPU alone
#   small82   (one GPU) small mono batches, where the GPU alone is latency-bound: per batch
#             (SMALL) a fresh home, two --calibrate runs of CPU + GPU, then rounds of the GPU alone,
#             the CPU workers alone (16: STARPU_NCUDA=0) and CPU + GPU by default, with the
#             tasks each kind of worker ran
#   alone83   (one GPU) small mono batches on the cores alone (mono_cores_alone_chosen): per
#             batch (SMALL) a fresh home, two --calibrate runs, then rounds of the default, the GPU
#             alone and the CPU workers alone, each default row followed by its JSON's cores_alone
#             and cpu_share_neurons; then the probes of the default (cores alone) against the GPU
#             alone's, medium-high x 1,000 passive and HH (SMALL= for the probes alone)
#   auto84    (one GPU) the same small batches with --mode auto (the default: the level solver
#             on GPUs below 50,000 neurons a GPU) against --mode mono (the cores alone where the
#             rule says): per batch (SMALL) a fresh home, two --calibrate runs of each, then rounds
#             of both, and of each on the GPU alone
#   probe85   (one GPU) the multi share's probe (MULTI_SHARE_PROBE): the probes of a share that
#             ran it against the GPU alone's (six cells x 4,000, --cpu-share on); then per mix
#             (MIXES) a fresh home, three --calibrate runs, and rounds of the default (the cut made
#             again where the probe says), hinestask_report (probe measured, cut kept) and the GPU
#             alone, each share row followed by its JSON's probe keys and the cores' loads
#   probe86   (one GPU) probe85 with the probe's values fixed, and each round also run beside
#             HOGS (default 3) other processes copying 512 MiB arrays on the host (PyTorch, one
#             thread each: cores slower than the models say, as in the share's slow runs;
#             LOADS=quiet for the quiet rounds alone)
#   probe87   (one GPU) the mono share's probe (MONO_SHARE_PROBE) and the multi probe's
#             prediction made before its rounds: the probes of a mono share that ran it against
#             the GPU alone's (medium-high x 100,000, --cpu-share on); then per mono batch (MONO;
#             SHARE_ON=1 adds --cpu-share on) a fresh home, two --calibrate runs, and ROUNDS rounds
#             of the default, hinestask_report (probes measured, cuts kept; VARIANTS: the
#             builds, default report) and the GPU alone,
#             quiet and beside HOGS memory-copying processes (LOADS); then the multi mixes
#             (MIXES, probe86's rows, quiet)
#   columns89 (one GPU) the rate table's columns against hinestask_old (the build before them):
#             CPU workers alone (CPU_BATCHES, CPU_ROUNDS), then the mono HH share (MONO, ROUNDS),
#             each build calibrated in a home of its own
#   leave90   (one GPU) cores busy with other processes left to them: the mono HH share beside
#             memory-copying processes (MONO, ROUNDS) and once quiet, against the GPU alone
#   hhcheck89 (one GPU) HH probes of CPU + GPU against the GPU alone's (mono and multi, the cores'
#             share on), then the mono HH share beside memory-copying processes (MONO, ROUNDS)
#   leave91   (one GPU) the busy-cores rule with the multi share and the mono passive share: per
#             batch (BATCHES) a fresh home, two calibration runs, ROUNDS rounds beside HOGS
#             memory-copying processes, one quiet round of 1,000 steps, and the GPU alone at the
#             quiet share's GPU part (the batch less the cores' neurons: how the GPU's time falls
#             with its neurons, the share's ceiling)
#   ceiling92 (one GPU) the GPU alone's time by its neurons (BATCHES at 100, 97, 94 and 88 % of
#             their neurons, two rounds): how far the GPU's step falls when the cores take
#             neurons; then CPU workers alone at the share's chunk shapes (CPU_SHAPES,
#             BATCH:NEURONS_A_CHUNK), this build against hinestask_CPU_BUILD, three rounds
#   ends93    (one GPU) the multi share's cut with more of the cores' time against the default:
#             for each mix (MIXES) this build and hinestask_eb90 (PLACEMENT_LEVEL_SHARE_ENDS_BY
#             0.9: scripts/bench/build_variants.sh), each in a fresh home, three calibration runs,
#             ROUNDS rounds against the GPU alone (builds_share)
#   window94  (one GPU) the share with every step submitted at once (--window WIDE, default 128)
#             against the default window of 4: per mix (MIXES) a fresh home, two calibration
#             runs, ROUNDS quiet rounds of 1,000 steps and ROUNDS rounds of 300 beside HOGS
#             memory-copying processes, each the default, the wide window and the GPU alone
#   window95  (one GPU) the default since the share's window (placement_level_window) against
#             --window 4 (the window before it) and the GPU alone: per mix (MIXES) a fresh home,
#             two calibration runs, one quiet round of 1,000 steps, and for the mixes in LOADED
#             one round of 300 beside HOGS memory-copying processes
#   along96   (one GPU) the cores' level kernels walking runs of copies along their own rows
#             (LEVEL_RUNS_ALONG, blocks starting at runs, runs of 4) against the build before
#             (hinestask_base): the share's probes against the GPU alone's (A), CPU workers alone
#             at the share's chunk shapes (CPU_SHAPES, ROUNDS_CPU rounds), then per mix (MIXES)
#             both builds from fresh homes, three calibration runs, ROUNDS rounds against the GPU
#             alone (builds_share)
#   nine98    (one GPU) the share by default on every mix (MIXES): per mix a fresh home, three
#             calibration runs, ROUNDS quiet rounds of 1,000 steps against the GPU alone
#             (builds_share), then for the mixes in LOADED, in the same home, one round of 300
#             beside HOGS memory-copying processes (hogs_rounds, ROUNDS_LOADED)
#   slow99    (one GPU) the cores' time round by round, this build against hinestask_base:
#             per mix (MIXES) and build a fresh home, three calibration runs, ROUNDS rounds of
#             the default (its workers' load) against the GPU alone (builds_share)
#   contend100 (one GPU) the GPU alone at A's GPU part (A-8400, cores 0-1) beside CPU workers
#             sweeping the cores' share's shapes (A x 420 in chunks of 14, 14 workers on cores
#             2-15) with this build and with hinestask_base, and with nothing beside; ROUNDS
#             rounds: whether the cores' kernels slow the GPU's step
#   shapes97  (no GPU) CPU workers alone (16) at the share's chunk shapes (CPU_SHAPES,
#             BATCH:NEURONS_A_CHUNK), this build and each hinestask_BUILD (BUILDS), ROUNDS
#             interleaved rounds of 400 steps
#   chain102  (one GPU) the share with the arranged cut that keeps a cell's copies together
#             against hinestask_base (the cut before): per mix (MIXES; BASE_MIXES also with the
#             base build) a fresh home, three calibration runs, ROUNDS rounds against the GPU
#             alone (builds_share, workers' load), then a 1,000-step trace of A's share
#   trace101  (one GPU) where the share's time goes on A: the host's CPU topology; per mix
#             (MIXES) a fresh home, three calibration runs, ROUNDS rounds of the default (its
#             workers' load), of 14 CPU workers (a core left to the submitting thread and the
#             drivers' helpers) and of the GPU alone; then 1,000-step traces of the default share
#             and of the GPU alone at the share's GPU part (tasks.rec and summaries kept)
#   why103    (one GPU) why a share's cut stops where it does: per mix (WHY_MIXES) a fresh home,
#             three calibration runs and ROUNDS rounds of hinestask_dbg (PLACEMENT_SHARE_DEBUG 1:
#             the cut's predictions on stderr, kept in why103-logs.tar.gz with the home's models)
#             against the GPU alone; then nine98's rounds on every mix (MIXES) with this build
#   explore104 (one GPU) calibration runs that explore larger chunks for the cores
#             (MULTI_SHARE_EXPLORE 1.5, the build of 3cd1dda, reverted after this measurement)
#             against hinestask_base (none): per mix (MIXES) both builds from fresh homes, three
#             calibration runs, ROUNDS rounds against the GPU alone
#   warps106  (one GPU) the GPUs' aligned chunks in copies of every cell 32 at a time (a warp of
#             systems one branch's copies) against this build's 16: hinestask_c32
#             (-DLEVEL_ALIGNED_COPIES=32); the GPU alone at SIZES (whole sets of 16 that are and
#             are not sets of 32), the builds interleaved, ROUNDS rounds; then per mix (MIXES) each
#             build's share from a fresh home, three calibration runs, ROUNDS rounds against its
#             own GPU alone (labels default-BUILD, gpu-BUILD). warps108 is this mode run with
#             SIZES empty, MIXES "D-7404 C-11720 large-6643", LIMIT 390 and
#             BUILDS "c32 base16" (hinestask_c32: 2bda3ea; hinestask_base16: e663399, 16 copies)
#             beside 962b534; warps109 with MIXES "random-23585 all15-16356 E-18711 B-8330" and
#             BUILDS " " (962b534 alone)
#   warps107  (one GPU) the build with chunks of 32 copies (LEVEL_ALIGNED_COPIES 32, at least
#             128 copies a chunk) on the GPU: test_multi_levels (.bundle/bin, if there); per mix
#             (MIXES) its share from a fresh home, three calibration runs, ROUNDS rounds against
#             the GPU alone; the GPU alone at SIZES (batches of one or two chunks, where the
#             smallest aligned chunk matters) against hinestask_base16 (16 copies, at least 8
#             sets), ROUNDS rounds interleaved; then at WIDE_SIZES against hinestask_c64
#             (-DLEVEL_ALIGNED_COPIES=64)
#   cells105  (one GPU) the share's chunks cut by cells (hinestask_cells:
#             scripts/bench/build_variants.sh .bundle/bin cells='-DLEVEL_ARRANGED_MIN_COPIES=8')
#             against this build (the equal cut): per mix (MIXES) both builds from fresh homes,
#             three calibration runs, ROUNDS rounds against the GPU alone (builds_share);
#             BUILDS other variants beside it (floor: PLACEMENT_SHARE_PROBE_LEAST 1.0, the multi
#             default since f152a62; the fifty-first session: base, the build of ec5f280, and
#             cells125: -DLEVEL_ARRANGED_MIN_COPIES=8 -DLEVEL_ARRANGED_CELL_GROWTH=1.25)
#   unseen114 (one GPU, 2026-12-03 fifty-fourth session) the default share on mixes and sizes
#             never tuned on (MIXES: F, G, H, R2, ca1 at ~82 M, C at 122 M, all 15 at 167 M),
#             fresh homes, ROUNDS rounds against the GPU alone; a trace of TRACE_MIX's share;
#             the second call: MIXES of mono (autoc-*: cells and sizes never tuned on) and T
#   why115    (one GPU, fifty-fourth session) mono big-low x 100,000 HH's cut step by step
#             (hinestask_dbg) beside medium-high x 128,000 HH's
#   exact116  (one GPU, fifty-fourth session) a core's round costed as its chunks are cut against
#             hinestask_old (each as the largest): MIXES both builds from fresh homes
#   exact118  (one GPU, 2026-12-03 fifty-seventh session) the multi share's core round costed as
#             its chunks are cut (hinestask_exact) against this build: MIXES both builds from
#             fresh homes, ROUNDS rounds each against the GPU alone; BUILDS=off: the share a
#             whole set larger probed and taken (this build) against hinestask_off
#             (-DMULTI_SHARE_SET_UP=0)
#   busiest119 (one GPU, 2026-12-04 fifty-eighth session) the multi share's cut again where the
#             probe's busiest core ends after the GPUs' largest chunk (this build) against
#             hinestask_off (-DMULTI_SHARE_PROBE_BUSIEST=0): per batch (MIXES; one listed twice
#             runs in two homes) one fresh home, three calibration runs of this build, then
#             ROUNDS rounds of both builds from the same models, each against the GPU alone
#             (fifty-ninth session: results small122_*, this mode at e139f42, the GPUs' part
#             aligned from one unit a chunk, MIXES of 34.6-51.0 M)
#   rest121   (one GPU, 2026-12-04 fifty-ninth session) as busiest119, hinestask_off built with
#             -DMULTI_SHARE_SET_UP=1: the share with the GPUs' rest probed and taken (this build)
#             against a chunk of the rest left on the GPU; sixtieth session (results tail123_*,
#             idle124_*, idle125_*): hinestask_off built with -DMULTI_SHARE_ALIGNED_TAIL=0 (and
#             -DMULTI_SHARE_SET_UP=2 in idle124, idle125; in lead126 the 94c3c9e build, warps of
#             the first cell alone), the JSON's aligned_tail_neurons shown
#   steps127  (one GPU, 2026-12-04 sixty-first session) does the GPU alone's step follow its
#             largest aligned chunk? ROUNDS interleaved rounds of the GPU alone at whole sets
#             around the share's sizes (SIZES: batch names), 1,000 steps, the JSON's aligned
#             neurons shown; VARIANTS (say "on off"): each also with --level-priorities V
#             (NODEF=1: those alone); BUILDS (say "off"): each also with hinestask_BUILD
#   equal128  (one GPU, 2026-12-04 sixty-second session) are the GPU's chunks of whole sets
#             slower where the sets do not divide among them? ROUNDS interleaved rounds of the
#             GPU alone (SIZES: batch names), 1,000 steps: the default (aligned chunks of whole
#             sets), --task-neurons of a quarter of the batch (equal chunks, not whole sets), each
#             also with --level-priorities off (labels gpu, gpu-off, equal, equal-off)
#   steps129  (one GPU, 2026-12-04 sixty-second session) the share with longer tasks: per
#             batch (MIXES) and per STEPS value K (say "8 32"), a fresh home, three calibration
#             runs with --task-steps K, then ROUNDS rounds of the default share with it against
#             the GPU alone with it and the GPU alone by default (labels share-tK, gpu-tK, gpu),
#             the CPU workers' loads shown
#   longer130 (one GPU, 2026-12-04 sixty-second session) the multi share's tasks of 32 steps by
#             default (this build) against hinestask_off (8, aac376e): first probe files of the
#             share against the GPU alone (B x 5,300 and the six cells x 20,000 with HH, probes
#             every 0.2 ms), then per batch (MIXES) builds_share: a fresh home each build, three
#             calibration runs, ROUNDS rounds of the default against the GPU alone
#   again132  (one GPU, 2026-12-04 sixty-fourth session) the probe's new cut probed again
#             (MULTI_SHARE_PROBE_AGAIN: the bundle's hinestask built with
#             scripts/results/again132_share_probe_again_least_ecacffc.patch, an experiment not
#             kept, -DMULTI_SHARE_LEAST=0 for again132) against hinestask_off (ecacffc, the new cut
#             kept unprobed) in one home per batch: the probe files of the share against the GPU
#             alone (CHECK_MIXES), then per batch (MIXES) a fresh home, three calibration runs,
#             ROUNDS rounds of this build's default, each of BUILDS' (default off) and the GPU
#             alone (probe keys); again132b: BUILDS="again off", this build dropping shares under
#             MULTI_SHARE_LEAST, hinestask_again the probe again alone
#   trees133  (one GPU, 2026-12-05 sixty-seventh session: trees133, b, c) the CPU workers'
#             faster level sweeps against builds without them, each of BUILDS (default
#             "teams generic") built with scripts/bench/build_variants.sh .bundle/bin
#             teams='-DHINES_FOR_ON_THREADS_ALWAYS=1' (an OpenMP region for every loop, one
#             thread too: the sixty-sixth session's change undone)
#             generic='-DLEVEL_TREE_CPU=0 -DLEVEL_TREE_ROWS_RUN=8 -DHINES_FOR_ON_THREADS_ALWAYS=1'
#             (the subtree sweeps of a4298a4 and f68f82f's one-copy sweeps, which
#             LEVEL_TREE_CPU=0 turns off with them, undone as well: the cores as at 3dc03ea): the
#             share's probe files against the GPU alone (CHECK_MIXES), 15 CPU workers alone at the
#             share's chunk shapes (CPU_MIXES batch:task-neurons, CPU_ROUNDS rounds, default
#             2; CPU_MIXES=" " skips them), then per batch
#             (MIXES) builds_share: a fresh home each build, three calibration runs, ROUNDS rounds
#             of the default against the GPU alone
#   tail135   (one GPU, 2026-12-05 sixty-ninth session) the cores' chunks' last tasks open to the
#             GPU once its own chunks' tasks have all ended (MULTI_SHARE_TAIL_TO_GPUS 1, the
#             bundle's hinestask) against the homes held to the end (hinestask_notail, the same
#             commit built with -DMULTI_SHARE_TAIL_TO_GPUS=0): first the share's probe files
#             against the GPU alone (CHECK_MIXES), then per batch (MIXES) builds_share with the
#             CPU workers' loads: a fresh home each build, three calibration runs, ROUNDS rounds
#             against the GPU alone (tasks_on_cpus under the cores' chunks x 32 tasks: the rest
#             ran on the GPU)
#   tail135b  (one GPU, 2026-12-05 sixty-ninth session) the same two builds as tail135 where the
#             cores run late: per batch (MIXES) and build a fresh home, three quiet calibration
#             runs, then ROUNDS rounds of 300 steps beside HOGS memory-copying processes (one
#             thread each) of the share (its workers' load) and of the GPU alone
#   cut136    (one GPU, 2026-12-05 seventieth session) three parts: the share's cut step by step
#             (hinestask_dbg, built with -DPLACEMENT_SHARE_DEBUG=1) from a fresh home on DBG_MIXES,
#             three calibration runs and DBG_ROUNDS rounds, stderr's share lines in cut136-dbg.txt;
#             then tail135b on LATE_MIXES (empty: none); then builds_share of the default alone on
#             MIXES, mixes never tuned on (G, H, F, R2), ROUNDS rounds with the CPU workers' loads
#   cut136b   (one GPU, 2026-12-05 seventieth session) the share's set up run by run: DBG_MIXES
#             from a fresh home, three calibration runs, DBG_ROUNDS rounds of hinestask_dbg (probe
#             keys, stderr's probe and set-up lines in cut136b-dbg.txt), the GPU alone every third;
#             then per LATE_MIXES one home for both builds (the bundle's and hinestask_notail),
#             ROUNDS rounds beside HOGS copying processes, the builds' order alternating
#   unseen136 (one GPU, 2026-12-05 seventieth session) the default share (the cores' homes held,
#             c83bd0e) on sizes and mixes never tuned on, against hinestask_su85 (the set up taken
#             only where its probe ends by 0.85 of the GPUs' chunk, -DMULTI_SHARE_SET_UP_ENDS_BY=0.85):
#             first the share's probe files against the GPU alone (CHECK_MIXES), then per batch
#             (MIXES) builds_share with the CPU workers' loads and the probes' keys, ROUNDS rounds
#   reprobe137 (one GPU, written in the seventieth session, run in the seventy-first) the set up
#             probed again near its bound (hinestask_reprobe: -DMULTI_SHARE_SET_UP_REPROBE_BAND=0.05)
#             against the default (one probe decides): first the share's probe files against the
#             GPU alone (CHECK_MIXES), then per batch (MIXES) builds_share with the CPU workers'
#             loads and the probes' keys, ROUNDS rounds
#   idle138   (one GPU, seventy-first session, 2026-12-05) each step up of the share grown by as
#             much as its probe says ends in time (hinestask_idle: -DMULTI_SHARE_IDLE_GROWTH_MOST=3.0)
#             against the steps' fixed growths (the default): first the share's probe files against
#             the GPU alone with the variant (CHECK_MIXES), then per batch (MIXES) a fresh home,
#             three calibration runs, its models saved, and ROUNDS rounds of the default and the
#             variant each from those saved models (the same models decide both) and the GPU alone,
#             each share row with its CPU workers' loads and the probes' keys
#   idle138b  (one GPU, seventy-first session, 2026-12-05) idle138 with no share run straight
#             after another for the default and hinestask_idle, and the back-to-back runs apart:
#             per batch (MIXES) a fresh home, three calibration runs, its models saved, then ROUNDS
#             rounds, each run from the saved models, of: the default, the GPU alone, hinestask_idle,
#             the default again straight after it (label b2b-default), hinestask_retry straight after
#             that (-DMULTI_SHARE_PROBE_AGAIN_ABOVE=1.5: a probe far slower than the models taken
#             again; label b2b-retry), the GPU alone
#   stuck138  (one GPU, seventy-first session, 2026-12-05) fresh homes for one batch (MIXES, default
#             large-3322) until LIMIT: three calibration runs, the models saved, then from them the
#             default, the GPU alone and hinestask_idle; each share row with the probes' keys (the
#             homes whose models cut the large cells x 3,322 to 60 neurons beside 62 of the rest)
#   steps139  (one GPU, written in the seventy-first session, run in the seventy-second) the share
#             stepped up again from each step taken (hinestask_steps3: -DMULTI_SHARE_SET_UP_STEPS=3;
#             hinestask_steps3idle: that and -DMULTI_SHARE_IDLE_GROWTH_MOST=3.0) against one step
#             (the default): first the share's probe files against the GPU alone with steps3idle
#             (CHECK_MIXES), then per batch (MIXES) a fresh home, three calibration runs, its
#             models saved, and ROUNDS rounds, each share run from the saved models and each
#             followed by the GPU alone: the default, steps3, steps3idle (VARIANTS: those named);
#             each share row with its CPU workers' loads and the probes' keys
#   lag141    (one GPU, seventy-fifth session, 2026-12-06) the cores giving chunks up to the GPU
#             once they fall behind (hinestask_lag: -DMULTI_SHARE_LAG_TO_GPUS=1
#             -DMULTI_SHARE_LAG_DEBUG=1) against the default: per batch (MIXES) a fresh home, three
#             calibration runs, the models saved, then ROUNDS rounds, each share run from the saved
#             models: quiet, the default and lag, then the GPU alone; late, HOGS copying processes
#             started and stopped before the run and let go LATE_S seconds after it starts (after
#             its probe, which sees an idle host), the default and lag, then the GPU alone the same
#             way; each share row with its CPU workers' loads, lag's with its give-up lines
#             (lag141-lines.txt: each give-up, and at the end the most the cores' time left was
#             of the GPU's); ALTERNATE=1: the builds' order swapped every other round
#   nice142   (one GPU, seventy-sixth session, 2026-12-06) the CPU workers at a lower scheduling
#             priority than the GPU's driver thread (RUNTIME_CPU_WORKERS_NICE), against the same
#             priority, with each run's thread waits (all builds -DRUNTIME_THREAD_WAITS_DEBUG=1:
#             hinestask_waits the default, hinestask_nice5 the CPU workers at nice +5,
#             hinestask_nice5lag that and -DMULTI_SHARE_LAG_TO_GPUS=1; VARIANTS: those named):
#             per batch (MIXES) a fresh home, three calibration runs, the models saved, then
#             ROUNDS rounds, each share run from the saved models: quiet, each variant (the order
#             turned by one each round), then the GPU alone (hinestask_waits); late, HOGS copying
#             processes let go LATE_S seconds into each run as in lag141, each variant, then the
#             GPU alone; the thread-wait lines of each run in nice142-lines.txt
#             chunks143 (the same call, seventy-sixth session): the same mode with VARIANTS
#             'waits c3=waits:--cpu-chunks,3 c4=waits:--cpu-chunks,4' and CALIBRATE_OPTIONS:
#             the cores' share in three and four chunks a CPU worker against two (the default),
#             so that a core a copying process slows holds fewer of the share's neurons
#             block145 (written in the seventy-sixth session, not yet run): the same mode with
#             VARIANTS 'waits blocking=waits@lib-blocking:' (hinestask_waits against StarPU built
#             with --enable-blocking-drivers: STARPU_CONFIGURE_EXTRA=--enable-blocking-drivers
#             scripts/setup.sh, its stripped libstarpu-1.3.so.9 and libstarpumpi-1.3.so.3 in the
#             bundle's lib-blocking/): StarPU 1.3's CPU workers poll while idle unless so built,
#             so they never leave a core to the driver thread or to other processes
#             cpublock146 (seventy-seventh session): the same mode with VARIANTS 'waits
#             cpublock=waits@lib-cpublock: drvrr' and GPU_BUILDS 'waits
#             cpublock=waits@lib-cpublock:' (lib-cpublock: StarPU built with
#             --enable-blocking-drivers and scripts/starpu-patches/03-blocking-cpu-workers-only.patch,
#             where only CPU workers sleep; hinestask_drvrr: -DRUNTIME_DRIVER_SCHED_RR=1), and
#             CPU_MIXES: the CPU workers alone with each library first
#             park144 (the same session): the same mode with VARIANTS 'waits park parklag'
#             (hinestask_park: -DWORKER_GUARD_PARK=1, CPU workers step aside once the GPU's
#             driver thread waits for its core, codelets/worker_guard.h of 13fafdf, reverted
#             after this measurement; hinestask_parklag: that and -DMULTI_SHARE_LAG_TO_GPUS=1;
#             all three built from 13fafdf with -DRUNTIME_THREAD_WAITS_DEBUG=1, whose lines there
#             end with the workers parked)
#   unseen140 (one GPU, seventy-third session, 2026-12-06) the default share alone on sizes no
#             session had run (MIXES; the script's list at 41-56 M): first the share's probe files
#             against the GPU alone (CHECK_MIXES), then per batch a fresh home, three calibration
#             runs and ROUNDS rounds of the share and the GPU alone, each share row with its CPU
#             workers' loads and the probes' keys
#   thp134    (one GPU, 2026-12-05 sixty-eighth session) the share's rounds with and without
#             transparent huge pages for what glibc maps (GLIBC_TUNABLES=glibc.malloc.hugetlb=1):
#             the host's THP settings, then per batch (MIXES) a fresh home shared by both
#             variants (each run updates the models that cut the next), three calibration runs,
#             ROUNDS rounds of default, default-thp and the GPU alone, each share row with its CPU
#             workers' loads; the host's steal time and huge pages sampled into thp134-samples.txt
#   cpugpu148 (one GPU, 2026-12-07 eighty-sixth session) CPU workers alone against the GPU alone
#             (this build, its default kernels): per batch of MIXES, 200 steps with the stimulus on,
#             probes of five neurons every 0.1 ms; the two probe files must be the same bytes
#             (issue #18's same bits, on the batches whose middle levels the lean sweeps take);
#             EXTRA: options added to both runs, commas for spaces (eighty-eighth session:
#             EXTRA=--level-partition,32, the lean kernels' two threads a partitioned chain; that option was
#             removed in the ninetieth session)
#   samebits144 (one GPU, 2026-12-07 eighty-fourth session) whether builds compute the same
#             bits: per batch of MIXES (default "large-3322 D-3702 all15-8178 E-9356"), 200 steps
#             with the stimulus on and probes on five neurons, the probe file of each of BUILDS
#             (hinestask_BUILD.gz beside bin/hinestask) against this build's: PASS or FAIL a row
#   half141   (one GPU, 2026-12-06 eighty-second session) half132's question for builds: per
#             pair FULL:HALF of PAIRS, ROUNDS rounds of FULL and HALF by this build, then FULL by
#             each of FULL_BUILDS and HALF by each of HALF_BUILDS (label[:build[:options]], build
#             defaulting to the label, options with commas for spaces; a build is
#             hinestask_BUILD.gz beside bin/hinestask, from scripts/bench/build_variants.sh).
#             Eighty-third session (skip143): builds of a worktree with
#             scripts/results/skip143_level_bench_skip_e38c4e2.patch, s8='-DLEVEL_BENCH_SKIP_SMALL_DIV=8'
#             (likewise s16, s32), l8='-DLEVEL_BENCH_SKIP_LARGE_DIV=8' (l32), none='-DLEVEL_BENCH_SKIP_ALL=1',
#             FULL_BUILDS and HALF_BUILDS "s8 s32 l8 none"; skip143b "s16 l32
#             leanoff:base:--level-lean,off leanwoff:base:--level-lean,off,--level-warps,off"
#             (hinestask_base.gz: the same worktree with no -D)
#             Eighty-fifth session (lean144-146, BENCHMARKS.md "Lean sweeps at half the batch"):
#             builds c1 c2 ce p pc1, then old w wne (old: the default before 125e331), then
#             "t64 lw2 po::--level-priorities,off" (an empty build: this one, with options)
#             Eighty-sixth session (half148*, BENCHMARKS.md "The lean hints on every mix at half
#             the batch"): FULL_BUILDS=old HALF_BUILDS=old on E, B and A (old:
#             -DLEVEL_LEAN_PREFETCH_CONSTANTS=0), the default alone on PAIRS of ~82 M:~41 M of the
#             large cells, all 15, six, random, F, G, H, R2 and T; then HALF_BUILDS of options
#             ("s32::--level-split,32 ... po::--level-priorities,off tb4::--trunk-branches,4",
#             "sub16::--level-subtrees,16", likewise 32 and 48) on T, deep, Tt and six real-cell mixes
#   half132   (one GPU, 2026-12-04 sixty-fourth session) what a GPU's step at half the batch
#             (~41 M, each GPU's part when two share one ~82 M batch) costs beyond half the whole
#             one: per pair FULL:HALF of PAIRS, ROUNDS rounds of FULL by default, HALF by default
#             and HALF with each of HALF_VARIANTS (label:options, commas for spaces; a label cK
#             adds --task-neurons for K chunks, as c6 or c6e:--gpu-launch,early), FULL with each
#             of FULL_VARIANTS (label:options; none by default). Sixty-eighth session (2026-12-05):
#             FULL_VARIANTS=flow:--level-kernel,flow HALF_VARIANTS="flow:--level-kernel,flow
#             c1f:--level-kernel,flow c2f:--level-kernel,flow" (half132f)
#   rescaled131 (one GPU, 2026-12-04 sixty-third session) the share set up after a probe that cut
#             it again (this build: b8d5ab2 with the new cut probed and set up from, the step the
#             sixty-third session narrowed to MULTI_SHARE_RESCALED_REST) against hinestask_off
#             (the cut kept, b8d5ab2): first probe files of the share against the GPU alone (CHECK_MIXES,
#             random trees x 14,000, probes every 0.2 ms, one in the share), then per batch (MIXES)
#             builds_share with the CPU workers' loads and the probes' keys: a fresh home each
#             build, three calibration runs, ROUNDS rounds of the default against the GPU alone
#   chunks131 (one GPU, 2026-12-04 sixty-third session) the multi share's chunks a core where
#             the share is small (41-48 M): chunk_counts_share over MIXES, --cpu-chunks COUNTS
#             (default "2 1"), ROUNDS rounds (labels default-kK)
#   two127    (two GPUs, 2026-12-04 sixty-first session) the two-GPU rows at GPU chunks of 32
#             copies: PARTS (default "check pairs mono unseen trace"): check: CPU and GPU probe
#             files, test_multi_levels on both GPUs with CPU workers; pairs: ROUNDS rounds of the
#             real-cell mixes (PAIRS, ~82 M a GPU) on one GPU, over two at twice the batch
#             (throughput) and over two at the same batch (gpu2-same); mono: 256,000 medium-high
#             in one task on one GPU against 4, 16 and 64 tasks over two, under the default and
#             eager, lws, dmda and dmdas (16 tasks); unseen: a fresh home calibrated at 256,000 on
#             one GPU, then 512,000 over two on its first and second run against one GPU's one
#             task; trace: traces over two GPUs (mono in 16 tasks, the large cells x 13,286)
#             with their transfer summaries; share: the default share over two GPUs (MIXES);
#             BUILDS (say "off"): the pairs' two-GPU rows also with hinestask_BUILD (sixty-first
#             session: hinestask_off the build before the GPUs' chunks were balanced by units)
#   small120  (one GPU, 2026-12-04 fifty-eighth session) the multi share asked for (--cpu-share on)
#             below the default rule's 80 M a GPU: per batch (MIXES) a fresh home, three
#             calibration runs with it, ROUNDS rounds against the GPU alone
#   setup117  (one GPU, 2026-12-03 fifty-fifth session) the batch written by batch_fill tasks on
#             the cores (this build) against hinestask_old (one thread, a0c72e7): per batch
#             (SETUP_MIXES) SETUP_ROUNDS interleaved pairs of 20-step runs beside 15 CPU workers (no
#             share: nothing calibrated), the runs' seconds (total, first step, building) and
#             probe files compared (SETUP_NCPU CPU workers, all by default: 0 for none); then
#             with hinestask_dbg (this build printing the phases of a run's end) 20-step runs of
#             DBG_MIXES (none by default); then the GPU alone's step of both builds, 1,000 steps,
#             STEP_ROUNDS pairs in alternating order per STEP_MIXES (none by default); then the
#             default share from fresh homes on MIXES (builds_share, ROUNDS rounds against the GPU
#             alone)
#   scope110  (one GPU, 2026-12-02 fifty-third session) three questions in one call: (1) the
#             cores' level sweeps with rows fetched ahead (the bundle's hinestask: 2b26d4c with
#             _mm_prefetch of a run's rows 8 ahead in level_rows_cpu.h's lanes, a patch not kept)
#             against hinestask_base (2b26d4c), CPU workers alone (16) at the share's chunk shapes
#             (CPU_SHAPES, as shapes97), ROUNDS interleaved rounds; (2) HH on the GPU alone with
#             the aligned chunks in sets of 32 copies (this build) against hinestask_c16
#             (-DLEVEL_ALIGNED_COPIES=16) at HH_SIZES, ROUNDS interleaved rounds of 300 steps;
#             first (3) trace101's rows and traces (MIXES, say E-18711): the share against the
#             GPU alone at the share's GPU part, where its time goes
set -uo pipefail
T0=$(date +%s)
bundle=$(readlink -f .bundle)
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
cuda_dirs=$(for lib in libcublas.so.13 libcusparse.so.12 libnvJitLink.so.13; do
  find /usr/local/cuda*/ /usr/lib /opt -name "$lib" 2>/dev/null | head -n 1 | xargs -r dirname
done | sort -u | paste -sd:)
export LD_LIBRARY_PATH="$bundle/lib:${cuda_dirs}"
export STARPU_HOME=$out/starpu-home STARPU_SILENT=1 STARPU_FXT_TRACE=0
mkdir -p "$STARPU_HOME"
H=$bundle/bin/hinestask
for gz in $bundle/bin/hinestask_*.gz; do [ -f "$gz" ] || continue; b=${gz%.gz}; b=$out/$(basename $b); gunzip -c $gz > $b; chmod +x $b; done
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
ngpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
commit=${COMMIT:-unknown}
mode=${1:-prio11b}
LIMIT=${LIMIT:-540}
six=(); for f in morph/data/*.swc; do six+=(--morph "$f"); done
shared=(); for f in .bundle/morphologies/*.swc; do shared+=(--morph "$f"); done
large=(); for f in 041018-zA.CNG.swc C220498B-I4.CNG.swc pyramidal.swc ri05.CNG.swc test_swc.swc; do large+=(--morph .bundle/morphologies/$f); done
# Mixes kept apart from the trunk's default rule (twentieth session): A, B, and C (the large
# cells with the six shipped ones, about the issue's 7,000 compartments a neuron).
mix_of() { local f; for f in "$@"; do printf -- '--morph\n.bundle/morphologies/%s.swc\n' "$f"; done; }
mapfile -t mixA < <(mix_of 041018-zA.CNG ri05.CNG morph_allen_485574832)
mapfile -t mixB < <(mix_of C220498B-I4.CNG pyramidal test_swc v_e_purk2.CNG)
mixC=("${large[@]}" "${six[@]}")
mapfile -t mixD < <(mix_of 041018-zA.CNG test_swc c91662 HSN-fluoro02.CNG)
mapfile -t mixE < <(mix_of ri05.CNG pyramidal morph_allen_485574832 v_e_purk2.CNG tc200.CNG)
# D's two shallow, large cells (14 and 24 branch levels) and its two deep, small ones (36)
mapfile -t mixZT < <(mix_of 041018-zA.CNG test_swc)
mapfile -t mixCH < <(mix_of c91662 HSN-fluoro02.CNG)
args_of() {
  case $1 in
  A-*) n=${1#A-}; A=(--mode multi "${mixA[@]}" --neurons "${n%-hh}" --steps 100) ;;
  B-*) n=${1#B-}; A=(--mode multi "${mixB[@]}" --neurons "${n%-hh}" --steps 100) ;;
  C-*) n=${1#C-}; A=(--mode multi "${mixC[@]}" --neurons "${n%-hh}" --steps 100) ;;
  D-*) n=${1#D-}; A=(--mode multi "${mixD[@]}" --neurons "${n%-hh}" --steps 1000) ;;
  ZT-*) n=${1#ZT-}; A=(--mode multi "${mixZT[@]}" --neurons "$n" --steps 1000) ;;
  CH-*) n=${1#CH-}; A=(--mode multi "${mixCH[@]}" --neurons "$n" --steps 1000) ;;
  E-*) n=${1#E-}; A=(--mode multi "${mixE[@]}" --neurons "${n%-hh}" --steps 1000) ;;
  tsw-*) n=${1#tsw-}; A=(--mode multi --morph .bundle/morphologies/test_swc.swc --neurons "$n" --steps 1000) ;;
  ca1-*) n=${1#ca1-}; A=(--mode multi --morph morph/data/morph_ca1_n120.swc --neurons "${n%-hh}" --steps 400) ;;
  six-*) n=${1#six-}; A=(--mode multi "${six[@]}" --neurons "${n%-hh}" --steps 200) ;;
  large-*) n=${1#large-}; A=(--mode multi "${large[@]}" --neurons "${n%-hh}" --steps 100) ;;
  random-*) n=${1#random-}; A=(--mode multi --neurons "${n%-hh}" --steps 200); for r in 1 2 3 4; do A+=(--morph synthetic:random:100:8000:$r); done ;;
  # mixes never tuned on (fifty-fourth session): F the four smallest cells, G five cells of
  # 1,200-1,900 compartments, H four of 2,700-9,100, R2 random trees of other seeds, T three
  # generated trees of 3,000 compartments and a comb
  F-*) n=${1#F-}; A=(--mode multi $(mix_of 1220882a.CNG Cha-F-000012.CNG mp_ma_40984_gc2.CNG l22.CNG) --neurons "${n%-hh}" --steps 100) ;;
  G-*) n=${1#G-}; A=(--mode multi $(mix_of l22.CNG tc200.CNG v_e_purk2.CNG c91662 HSN-fluoro02.CNG) --neurons "${n%-hh}" --steps 100) ;;
  H-*) n=${1#H-}; A=(--mode multi $(mix_of ri05.CNG C220498B-I4.CNG morph_allen_485574832 morph_ca1_n120) --neurons "${n%-hh}" --steps 100) ;;
  R2-*) n=${1#R2-}; A=(--mode multi --neurons "${n%-hh}" --steps 200); for r in 5 6 7 8; do A+=(--morph synthetic:random:100:8000:$r); done ;;
  # T without its comb (eighty-sixth session: what of T's step does not halve)
  Tt-*) n=${1#Tt-}; A=(--mode multi --morph synthetic:tree:3000:6:1 --morph synthetic:tree:3000:6:2 --morph synthetic:tree:3000:6:3 --neurons "${n%-hh}" --steps 200) ;;
  T-*) n=${1#T-}; A=(--mode multi --morph synthetic:tree:3000:6:1 --morph synthetic:tree:3000:6:2 --morph synthetic:tree:3000:6:3 --morph synthetic:comb:40 --neurons "${n%-hh}" --steps 200) ;;
  all15-*) n=${1#all15-}; A=(--mode multi "${shared[@]}" --neurons "${n%-hh}" --steps 100) ;;
  deep-*) n=${1#deep-}; A=(--mode multi --morph synthetic:tree:4000:9 --morph synthetic:tree:2000:5 --neurons "${n%-hh}" --steps 100) ;;
  monoc-*) c=${1#monoc-}; c=${c%-hh}; n=${c##*-}; c=${c%-*}; A=(--mode mono --morph synthetic:$c --neurons $n --steps 1000) ;;
  autoc-*) c=${1#autoc-}; c=${c%-hh}; n=${c##*-}; c=${c%-*}; A=(--morph synthetic:$c --neurons $n --steps 1000) ;;
  mono*) A=(--mode mono --morph synthetic:medium-high --neurons 256000 --steps 100) ;;
  esac
  case $1 in *-hh) A+=(--hh all) ;; *) A+=(--hh none) ;; esac
}
# row GPUS BATCH LABEL [BUILD] -- options...
row() {
  local g=$1 batch=$2 label=$3 bin=$H; shift 3
  if [ $# -gt 0 ] && [ "$1" != -- ]; then bin=$out/hinestask_$1; shift; fi
  [ "${1:-}" = -- ] && shift
  if [ $(( $(date +%s) - T0 )) -gt $LIMIT ]; then echo "SKIPPED (time) $batch $label"; return; fi
  args_of $batch
  local t1=$(date +%s%N)
  # ROW_NCPU=all: StarPU's own count of CPU workers beside the GPUs (STARPU_NCPU unset)
  local ncpu=(STARPU_NCPU=${ROW_NCPU:-0}); [ "${ROW_NCPU:-0}" = all ] && ncpu=(-u STARPU_NCPU)
  if env "${ncpu[@]}" STARPU_NCUDA=$g timeout 120 "$bin" --quiet --force "${A[@]}" "$@" --json "$out/t.json" >"$out/t.log" 2>&1; then
    python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print("%s,%.4f,%.3f,%s,%.1f"%(sys.argv[2],j["seconds_per_step"]*1e3,j["compartment_solves_per_s"]/1e9,j["compartments"],float(sys.argv[3])))' "$out/t.json" "$(date -u +%FT%TZ),$commit,$gpu,$g,$batch,$label,$rep" "$(( ($(date +%s%N) - t1) / 1000000 ))e-3" | tee -a "$out/$mode.csv"
  else echo "FAILED $g $batch $label: $(tail -2 "$out/t.log")" | tee -a "$out/$mode.csv"; fi
}
# cores: the tasks the last row's run ran on CPU cores (its JSON's tasks_on_cpus).
cores() { grep -o '"tasks_on_cpus": [0-9-]*' $out/t.json 2>/dev/null | paste -sd' '; }
# share_rounds GPUS BATCH ROUNDS: the first CPU + GPU run on the models the call holds, two
# calibration runs, ROUNDS rounds of CPU + GPU against the GPU alone (hinestask's defaults), and
# the GPU alone interleaved once.
share_rounds() {
  local g=$1 b=$2 rounds=$3 st=()
  case $b in *-hh|*-1024000) st=(--steps 300) ;; esac
  rep=0; ROW_NCPU=all row $g $b cpu+gpu-first -- "${st[@]}"; cores
  for pass in 1 2; do ROW_NCPU=all row $g $b calibrate -- --steps 200 --calibrate; cores; done
  for rep in $(seq $rounds); do ROW_NCPU=all row $g $b cpu+gpu -- "${st[@]}"; cores; row $g $b gpu -- "${st[@]}"; done
  rep=1; row $g $b gpu-interleaved -- --layout interleaved "${st[@]}"
}
# share_start: cores() prints the share's counts; CPU + GPU with the cores' share (--cpu-share
# on) against the GPU alone, 100,000 passive medium-high neurons, probe files compared (PASS or
# FAIL); then a fresh STARPU_HOME. Two calibration runs first: in a fresh STARPU_HOME nothing is
# measured and no share is cut (the comparison before 2026-11-29's wide28 compared no share).
share_start() {
  cores() { grep -o '"tasks_on_cpus": [0-9-]*\|"cpu_share_neurons": [0-9-]*\|"tasks_per_step": [0-9]*' $out/t.json 2>/dev/null | paste -sd' '; }
  pa=(--mode mono --morph synthetic:medium-high --neurons 100000 --hh none --steps 160 --probe 0:0 --probe 60000:5 --probe 99999:300 --probe-every 0.2 --stim-amp 1)
  for pass in 1 2; do timeout 120 "$H" --quiet --force "${pa[@]}" --cpu-share on --calibrate > $out/c.log 2>&1 || echo "FAIL calibration $(tail -1 $out/c.log)"; done
  timeout 120 "$H" --quiet --force "${pa[@]}" --cpu-share on --probes $out/p_both.csv --json $out/t.json > $out/c.log 2>&1 || echo "FAIL cpu+gpu probes $(tail -1 $out/c.log)"; cores
  STARPU_NCPU=0 timeout 120 "$H" --quiet --force "${pa[@]}" --probes $out/p_gpu.csv > $out/c.log 2>&1 || echo "FAIL gpu probes $(tail -1 $out/c.log)"
  cmp -s $out/p_both.csv $out/p_gpu.csv && echo "PASS mono: CPU + GPU (share) identical to the GPU alone" || echo "FAIL mono probes differ"
  rm -f $out/p_*.csv $out/c.log; rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
}
# shares: the last run's share (its JSON's cpu_share_neurons, tasks_on_cpus, tasks_per_step,
# cpu_share_uncalibrated). share_probes NAME options...: two calibration runs with --cpu-share on,
# then CPU + GPU with it against the GPU alone, probe files compared (PASS or FAIL).
shares() { grep -o '"cpu_share_neurons": [0-9-]*\|"aligned_neurons": [0-9]*\|"aligned_tail_neurons": [0-9]*\|"tasks_on_cpus": [0-9-]*\|"tasks_per_step": [0-9]*\|"cpu_share_uncalibrated": [a-z]*' $out/t.json 2>/dev/null | paste -sd' '; }
# worker_load: the last run's CPU workers' task counts and ms executing (its JSON)
worker_load() { grep -o '"cpu_worker_tasks": [^]]*]\|"cpu_worker_executing_ms": [^]]*]' $out/t.json 2>/dev/null | paste -sd' '; }
# probe_keys: the last run's share probe (its JSON's share_probe_* keys; share_dropped_neurons and
# share_reprobe_* came from again132's experiment builds only). hogs_on, hogs_off: HOGS
# (default 3) processes copying 512 MiB arrays, one thread each, started (and 4 s to settle) and
# stopped.
probe_keys() { grep -o '"share_dropped_neurons": [0-9]*\|"share_probe_[a-z_]*": [0-9.e+-]*\|"share_probed_neurons": [0-9]*\|"share_set_up_[a-z_]*": [0-9.e+-]*\|"share_rescaled_[a-z_]*": [0-9.e+-]*\|"share_reprobe[a-z_]*": [0-9.e+-]*' $out/t.json 2>/dev/null | paste -sd' '; }
hog_pids=()
# left: how many cores the last row's run left to other processes, how busy it found the host, its
# CPU workers (its JSON's cores_left_to_others, host_busy_processors, cpu_workers).
left() { grep -o '"cores_left_to_others": [0-9]*\|"host_busy_processors": [0-9.null]*\|"cpu_workers": [0-9]*' $out/t.json 2>/dev/null | paste -sd' '; }
hogs_on() {
  for h in $(seq ${HOGS:-3}); do
    python3 -c 'import torch; torch.set_num_threads(1); s = torch.ones(1 << 26, dtype=torch.float64); d = torch.empty_like(s)
while True: d.copy_(s)' > /dev/null 2>&1 & hog_pids+=($!)
  done
  sleep 4
}
hogs_off() { kill "${hog_pids[@]}" 2>/dev/null; wait "${hog_pids[@]}" 2>/dev/null; hog_pids=(); }
# hogs_rounds BATCH WHAT: ROUNDS (default 2) rounds beside the copying processes of the default
# (CPU + GPU, 300 steps, then its shares, WHAT and its workers' load) and the GPU alone.
hogs_rounds() {
  local b=$1 what=$2
  for rep in $(seq ${ROUNDS:-2}); do
    hogs_on
    ROW_NCPU=all row 1 $b default-hogs -- --steps 300; shares; $what; worker_load
    row 1 $b gpu-hogs -- --steps 300
    hogs_off
  done
}
share_probes() {
  local name=$1; shift
  for pass in 1 2; do timeout 120 "$H" --quiet --force "$@" --cpu-share on --calibrate --probes $out/p_cal.csv --json $out/t.json > $out/c.log 2>&1 || echo "FAIL calibration $name $(tail -1 $out/c.log)"; echo "calibration $pass: $(shares)"; done
  timeout 120 "$H" --quiet --force "$@" --cpu-share on --probes $out/p_both.csv --json $out/t.json > $out/c.log 2>&1 || echo "FAIL cpu+gpu $name $(tail -1 $out/c.log)"; echo "cpu+gpu: $(shares)"
  STARPU_NCPU=0 timeout 120 "$H" --quiet --force "$@" --probes $out/p_gpu.csv > $out/c.log 2>&1 || echo "FAIL gpu $name $(tail -1 $out/c.log)"
  cmp -s $out/p_both.csv $out/p_gpu.csv && echo "PASS $name: CPU + GPU (share) identical to the GPU alone" || echo "FAIL $name probes differ"
  rm -f $out/p_*.csv $out/c.log
}
# share_probes_check "BATCHES" PROBES...: share_probes for each batch from a fresh STARPU_HOME,
# 300 steps, probes every 0.2 ms at 0:0 and PROBES (LAST, for batches named NAME-N: neuron N - 10, in
# the cores' share), the share's probe keys after it, then a fresh home; into $out/check.txt.
share_probes_check() {
  local b p probes
  for b in $1; do
    probes=(); for p in "${@:2}"; do probes+=("${p/LAST/$(( ${b##*-} - 10 ))}"); done
    args_of $b; rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
    share_probes $b "${A[@]}" --steps 300 --probe 0:0 "${probes[@]}" --probe-every 0.2; echo "probe: $(probe_keys)"
  done 2>&1 | tee $out/check.txt
  rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
}
# one_core_against BUILD "BATCHES" "CHUNK SIZES" ROUNDS: one core alone (StarPU's one CPU
# worker, no GPU), the level kernels in chunks of each size, the defaults against hinestask_BUILD
# (rows labelled tnN and tnN-BUILD), ROUNDS interleaved rounds; ONE_CORE_ARGS (if set) instead of
# "--steps 40 --level-kernel levels".
one_core_against() {
  local build=$1 b tn opts=(--steps 40 --level-kernel levels)
  [ -n "${ONE_CORE_ARGS:-}" ] && read -r -a opts <<< "$ONE_CORE_ARGS"
  for rep in $(seq $4); do
    for b in $2; do
      for tn in $3; do
        ROW_NCPU=1 row 0 $b tn$tn -- "${opts[@]}" --task-neurons $tn
        ROW_NCPU=1 row 0 $b tn$tn-$build $build -- "${opts[@]}" --task-neurons $tn
      done
    done
  done
}
# fresh_share BATCH FIRST LAST SUFFIX [options]: a fresh STARPU_HOME, three calibration runs
# with --cpu-share on, then rounds FIRST..LAST of CPU + GPU with it against the GPU alone, 1,000
# steps (labels calibrateSUFFIX, cpu+gpuSUFFIX, gpu; the options go to the share's runs), on
# FRESH_GPUS GPUs (1 unless set), the share's runs with build FRESH_BUILD (hinestask_NAME; this
# build unless set).
fresh_share() {
  local b=$1 first=$2 last=$3 suffix=$4 pass; shift 4
  rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
  local g=${FRESH_GPUS:-1} build=(); [ -n "${FRESH_BUILD:-}" ] && build=("$FRESH_BUILD")
  for pass in 1 2 3; do ROW_NCPU=all row $g $b calibrate$suffix "${build[@]}" -- --steps 200 --cpu-share on --calibrate "$@"; shares; done
  for rep in $(seq $first $last); do ROW_NCPU=all row $g $b cpu+gpu$suffix "${build[@]}" -- --steps 1000 --cpu-share on "$@"; shares; row $g $b gpu -- --steps 1000; done
}
# builds_share GPUS ROUNDS "BATCHES" MAIN [BUILD...]: for each batch, the bundle's hinestask (rows
# labelled calibrate-MAIN, default-MAIN) and each hinestask_BUILD (-BUILD), each from a fresh
# STARPU_HOME: three --calibrate runs of 200 steps, then ROUNDS rounds of the default against
# the GPUs alone, 1,000 steps (modes arranged47 to weight50)
builds_share() {
  local g=$1 rounds=$2 batches=$3 main=$4 b v pass bld; shift 4
  for b in $batches; do
    for v in $main "$@"; do
      bld=(); [ $v != $main ] && bld=($v)
      rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
      for pass in 1 2 3; do ROW_NCPU=all row $g $b calibrate-$v "${bld[@]}" -- --steps 200 --calibrate; shares; done
      for rep in $(seq $rounds); do ROW_NCPU=all row $g $b default-$v "${bld[@]}" -- --steps 1000; shares; [ -n "${BUILDS_LOAD:-}" ] && worker_load; [ -n "${BUILDS_PROBE:-}" ] && probe_keys; row $g $b gpu -- --steps 1000; done
    done
  done
}
# late_share "BATCHES": per batch the default build and each of BUILDS (default notail) from a
# fresh home, three quiet calibration runs, then ROUNDS rounds of 300 steps beside HOGS
# memory-copying processes of the share (its workers' load, the cores it left) and the GPU alone.
late_share() {
  local b v pass bld
  for b in $1; do
    for v in default ${BUILDS:-notail}; do
      bld=(); [ $v != default ] && bld=($v)
      rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
      for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-$v "${bld[@]}" -- --steps 200 --calibrate; shares; done
      for rep in $(seq ${ROUNDS:-2}); do
        hogs_on
        ROW_NCPU=all row 1 $b hogs-$v "${bld[@]}" -- --steps 300; shares; worker_load; left
        row 1 $b gpu-hogs -- --steps 300
        hogs_off
      done
    done
  done
}
# chunk_counts_share "BATCHES" "COUNTS" ROUNDS PREFIX: for each batch and each count K of the
# cores' chunks a CPU worker (--cpu-chunks K), from a fresh STARPU_HOME: three --calibrate runs
# of 200 steps, then ROUNDS rounds of the share against the GPU alone, 1,000 steps (labels
# calibrate-PREFIXK, default-PREFIXK, gpu)
chunk_counts_share() {
  local b k pass
  for b in $1; do
    for k in $2; do
      rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
      for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-$4$k -- --steps 200 --calibrate --cpu-chunks $k; shares; done
      for rep in $(seq $3); do ROW_NCPU=all row 1 $b default-$4$k -- --steps 1000 --cpu-chunks $k; shares; row 1 $b gpu -- --steps 1000; done
    done
  done
}
# default_share GPUS BATCH: the default (no option) from a fresh STARPU_HOME, as a new user
# runs it: a first run, three --calibrate runs of 200 steps, then two rounds of the default run
# against the GPUs alone, 1,000 steps (labels default-first, calibrate-default, default, gpu)
default_share() {
  local g=$1 b=$2 pass
  rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
  ROW_NCPU=all row $g $b default-first -- --steps 1000; shares
  for pass in 1 2 3; do ROW_NCPU=all row $g $b calibrate-default -- --steps 200 --calibrate; shares; done
  for rep in 1 2; do ROW_NCPU=all row $g $b default -- --steps 1000; shares; row $g $b gpu -- --steps 1000; done
}
# rounds26 BATCH ROUNDS [options]: two calibration runs of 200 steps, then ROUNDS rounds of
# CPU + GPU against the GPU alone (hinestask's defaults plus the options).
rounds26() {
  local b=$1 r=$2; shift 2
  rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; cores; done
  for rep in $(seq $r); do ROW_NCPU=all row 1 $b cpu+gpu -- "$@"; cores; row 1 $b gpu -- "$@"; done
}
# share_trace: a trace of the default CPU + GPU run at 256,000 medium-high, 80 steps, its summary
# (worker lines left out) and trace-cpu-gpu-256000.tar.gz.
share_trace() {
  local d=$out/trace-cpu-gpu-256000
  PATH="$bundle/bin:$PATH" timeout 150 "$H" --quiet --mode mono --morph synthetic:medium-high --neurons 256000 --steps 80 --probe 0:0 --probe 200000:5 --probe-every 0.2 --probes $out/tp.csv --json $out/trace.json --trace $d > $out/c.log 2>&1 || echo "FAIL trace $(tail -2 $out/c.log)"
  python3 $bundle/trace_report.py $d --until-last-task --png $d-gantt.png --title "hinestask defaults, 256,000 medium-high, H200 + 15 CPU workers, calibrated dmdas" > $d-summary.txt 2>&1; grep -v "^CUDA 0\\|^CPU [0-9]" $d-summary.txt
  tar -C $out -czf $out/trace-cpu-gpu-256000.tar.gz trace-cpu-gpu-256000/paje.trace trace-cpu-gpu-256000/tasks.rec trace-cpu-gpu-256000/data.rec trace-cpu-gpu-256000-summary.txt $(cd $out && ls trace-cpu-gpu-256000-gantt.png 2>/dev/null) trace.json
  rm -rf $d $out/tp.csv $out/c.log $out/trace.json $d-summary.txt $d-gantt.png
}
# probe_args SPEC: the batch of one probe comparison, in the array a.
probe_args() {
  local six_probes=(--probe 0:0 --probe 5:0 --probe 17:7 --probe 239:2)
  local deep=(--mode multi --morph synthetic:tree:4000:9 --morph synthetic:tree:2000:5 --neurons 40)
  local random=(--mode multi --morph synthetic:random:100:8000:1 --morph synthetic:random:100:8000:2 --neurons 40)
  case $1 in
  mono-hh) a=(--mode mono --morph synthetic:medium-high --neurons 3001 --task-neurons 1000 --hh all --probe 0:0 --probe 1500:300 --probe 3000:17) ;;
  six-hh) a=(--mode multi "${six[@]}" --neurons 240 --task-neurons 24 --hh all "${six_probes[@]}") ;;
  six-rows) a=(--mode multi "${six[@]}" --neurons 240 --hh all --level-rows apart "${six_probes[@]}") ;;
  six-p) a=(--mode multi "${six[@]}" --neurons 240 --task-neurons 24 --hh none "${six_probes[@]}") ;;
  six-p-off) a=(--mode multi "${six[@]}" --neurons 240 --task-neurons 24 --hh none --level-priorities off "${six_probes[@]}") ;;
  six-p-plain) a=(--mode multi "${six[@]}" --neurons 240 --task-neurons 24 --hh none --level-stretches off "${six_probes[@]}") ;;
  six-p-one) a=(--mode multi "${six[@]}" --neurons 240 --hh none "${six_probes[@]}") ;;
  random) a=("${random[@]}" --hh none --probe 0:0 --probe 39:50 --probe 38:3000) ;;
  rnd-hh) a=("${random[@]}" --hh all --probe 0:0 --probe 39:50 --probe 38:3000) ;;
  deep-p) a=("${deep[@]}" --task-neurons 10 --hh none --probe 0:0 --probe 38:3000 --probe 17:1500) ;;
  deep-nosplit) a=("${deep[@]}" --level-split 0 --hh all --probe 0:0 --probe 38:3000 --probe 17:1500) ;;
  ca1-p) a=(--mode multi --morph morph/data/morph_ca1_n120.swc --neurons 300 --hh none --probe 0:0 --probe 299:2000 --probe 7:100) ;;
  # tasks of several steps: a sample every 40 steps, so that tasks of 7 and 16 steps run whole
  six-ts) a=(--mode multi "${six[@]}" --neurons 240 --task-neurons 24 --hh all --task-steps 7 --probe-every 1 "${six_probes[@]}") ;;
  six-parts-ts) a=(--mode multi "${six[@]}" --neurons 240 --task-parts 2 --hh none --task-steps 16 --probe-every 1 "${six_probes[@]}") ;;
  six-exact) a=(--mode multi "${six[@]}" --neurons 240 --task-neurons 24 --hh all --hh-rates exact "${six_probes[@]}") ;;
  six-fork) a=(--mode multi "${six[@]}" --neurons 240 --task-neurons 24 --hh all --level-rows 100 "${six_probes[@]}") ;;
  rnd-fork) a=("${random[@]}" --hh all --level-rows 30 --probe 0:0 --probe 39:50 --probe 38:3000) ;;
  large-fork) a=(--mode multi "${large[@]}" --neurons 20 --hh all --level-rows 30 --probe 0:0 --probe 19:300 --probe 7:5) ;;
  large-exact) a=(--mode multi "${large[@]}" --neurons 20 --hh all --hh-rates exact --probe 0:0 --probe 19:300 --probe 7:5) ;;
  ca1-ts) a=(--mode multi --morph morph/data/morph_ca1_n120.swc --neurons 300 --hh all --task-steps 16 --probe-every 1 --probe 0:0 --probe 299:2000 --probe 7:100) ;;
  # the branch kernel (seventeenth session)
  ca1-br) a=(--mode multi --morph morph/data/morph_ca1_n120.swc --neurons 300 --hh none --level-kernel branches --probe 0:0 --probe 299:2000 --probe 7:100) ;;
  ca1-br3) a=(--mode multi --morph morph/data/morph_ca1_n120.swc --neurons 301 --hh none --level-kernel branches --cell-neurons 3 --task-steps 7 --probe 0:0 --probe 300:2000 --probe 7:100) ;;
  six-br) a=(--mode multi "${six[@]}" --neurons 240 --task-neurons 24 --hh none --level-kernel branches "${six_probes[@]}") ;;
  rnd-br) a=("${random[@]}" --hh none --level-kernel branches --probe 0:0 --probe 39:50 --probe 38:3000) ;;
  deep-br) a=("${deep[@]}" --task-neurons 10 --hh none --level-kernel branches --level-root soma --probe 0:0 --probe 38:3000 --probe 17:1500) ;;
  large-br) a=(--mode multi "${large[@]}" --neurons 20 --hh none --level-kernel branches --level-subtrees 0 --probe 0:0 --probe 19:300 --probe 7:5) ;;
  # a trunk of branches (eighteenth session)
  large-trunk) a=(--mode multi "${large[@]}" --neurons 20 --hh none --level-kernel levels --trunk-branches 2 --probe 0:0 --probe 19:300 --probe 7:5) ;;
  six-trunk) a=(--mode multi "${six[@]}" --neurons 240 --task-neurons 24 --hh none --level-kernel levels --trunk-branches 3 "${six_probes[@]}") ;;
  large-trunk-c16) a=(--mode multi "${large[@]}" --neurons 40 --hh none --level-kernel levels --trunk-branches 2.5 --cell-neurons 16 --probe 0:0 --probe 39:300 --probe 7:5) ;;
  six-trunk-c16) a=(--mode multi "${six[@]}" --neurons 240 --task-neurons 120 --hh none --level-kernel levels --trunk-branches 1.5 --cell-neurons 16 "${six_probes[@]}") ;;
  large-auto) a=(--mode multi "${large[@]}" --neurons 40 --task-neurons 10 --hh none --level-kernel levels --probe 0:0 --probe 39:300 --probe 7:5) ;;
  C-auto) a=(--mode multi "${mixC[@]}" --neurons 110 --task-neurons 30 --hh none --level-kernel levels --probe 0:0 --probe 109:300 --probe 7:5) ;;
  # GPU chunks of copies of every cell 16 at a time and a chunk of the rest (thirty-seventh session)
  B-aligned) a=(--mode multi "${mixB[@]}" --neurons 1030 --hh none --level-kernel levels --probe 0:0 --probe 1029:300 --probe 517:5) ;;
  six-aligned-hh) a=(--mode multi "${six[@]}" --neurons 200 --hh all --level-kernel levels "${six_probes[@]/239:2/199:2}") ;;
  D-auto) a=(--mode multi "${mixD[@]}" --neurons 50 --task-neurons 15 --hh none --probe 0:0 --probe 49:300 --probe 7:5) ;;
  tsw-auto) a=(--mode multi --morph .bundle/morphologies/test_swc.swc --neurons 20 --task-neurons 7 --hh none --probe 0:0 --probe 19:3000 --probe 7:5) ;;
  deep-trunk) a=("${deep[@]}" --task-neurons 10 --hh none --level-kernel levels --trunk-branches 4 --probe 0:0 --probe 38:3000 --probe 17:1500) ;;
  ca1-trunk) a=(--mode multi --morph morph/data/morph_ca1_n120.swc --neurons 300 --hh none --level-kernel levels --trunk-branches 2 --probe 0:0 --probe 299:2000 --probe 7:100) ;;
  # chunks holding runs of 8 or more copies of a branch (thirtieth session: the CPU row sweeps
  # read such a run's constants once)
  six-runs) a=(--mode multi "${six[@]}" --neurons 480 --task-neurons 240 --hh none "${six_probes[@]}") ;;
  six-runs-lv) a=(--mode multi "${six[@]}" --neurons 480 --task-neurons 240 --hh none --level-kernel levels "${six_probes[@]}") ;;
  six-runs-hh) a=(--mode multi "${six[@]}" --neurons 240 --task-neurons 240 --hh all "${six_probes[@]}") ;;
  ca1-runs) a=(--mode multi --morph morph/data/morph_ca1_n120.swc --neurons 300 --task-neurons 300 --hh none --probe 0:0 --probe 299:2000 --probe 7:100) ;;
  ca1-runs-lv) a=(--mode multi --morph morph/data/morph_ca1_n120.swc --neurons 300 --task-neurons 150 --hh none --level-kernel levels --probe 0:0 --probe 299:2000 --probe 7:100) ;;
  large-runs) a=(--mode multi "${large[@]}" --neurons 200 --task-neurons 100 --hh none --level-kernel levels --probe 0:0 --probe 199:300 --probe 7:5) ;;
  D-runs) a=(--mode multi "${mixD[@]}" --neurons 200 --task-neurons 100 --hh none --probe 0:0 --probe 199:300 --probe 7:5) ;;
  rnd-runs) a=("${random[@]}" --neurons 400 --task-neurons 200 --hh none --probe 0:0 --probe 399:50 --probe 38:3000) ;;
  six-runs-soma) a=(--mode multi "${six[@]}" --neurons 480 --task-neurons 240 --hh soma "${six_probes[@]}") ;;
  rnd-runs-soma) a=("${random[@]}" --neurons 400 --task-neurons 200 --hh soma --probe 0:0 --probe 399:50 --probe 38:3000) ;;
  large-runs-soma) a=(--mode multi "${large[@]}" --neurons 200 --task-neurons 100 --hh soma --probe 0:0 --probe 199:300 --probe 7:5) ;;
  rnd-runs-hh) a=("${random[@]}" --neurons 160 --task-neurons 160 --hh all --probe 0:0 --probe 159:50 --probe 38:3000) ;;
  # both stimulus states' graphs captured at the first step (nineteenth session)
  six-lv) a=(--mode multi "${six[@]}" --neurons 240 --task-neurons 24 --hh none --level-kernel levels "${six_probes[@]}") ;;
  six-lv-on) a=(--mode multi "${six[@]}" --neurons 240 --task-neurons 24 --hh none --level-kernel levels --stim-start 0 --stim-stop 3 "${six_probes[@]}") ;;
  large-hh-on) a=(--mode multi "${large[@]}" --neurons 20 --hh all --stim-start 0.5 --stim-stop 4 --task-steps 8 --probe 0:0 --probe 19:300 --probe 7:5) ;;
  large-trunk-on) a=(--mode multi "${large[@]}" --neurons 20 --hh none --level-kernel levels --trunk-branches 2 --stim-start 0 --stim-stop 2 --probe 0:0 --probe 19:300 --probe 7:5) ;;
  esac
}
# tml_both: the bundle's test_multi_levels on the GPU alone (tml.txt) and beside CPU workers
# (tml2.txt), each one line with its exit status and last line.
tml_both() {
  STARPU_NCPU=0 timeout 200 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels, GPU alone: rc=$? $(tail -1 $out/tml.txt)"
  timeout 200 "$bundle/bin/test_multi_levels" > "$out/tml2.txt" 2>&1; echo "test_multi_levels, CPU and GPU workers: rc=$? $(tail -1 $out/tml2.txt)"
}
# trace_share BATCH NAME TITLE: a trace of the default share (no option) from a fresh STARPU_HOME
# after three --calibrate runs, 80 steps, first and last neurons probed; the GPU alone's probe
# file must be the same bits; the trace's files in $out/NAME.tar.gz
trace_share() {
  local b=$1 name=$2 title=$3 pass d=$out/$2 last
  rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
  for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-default -- --steps 200 --calibrate; shares; done
  args_of $b; last=$(( ${b##*-} - 1 ))
  local pr=(--probe 0:0 --probe $last:5 --probe-every 0.2)
  PATH="$bundle/bin:$PATH" timeout 150 "$H" --quiet "${A[@]}" --steps 80 "${pr[@]}" --probes $out/tp.csv --json $out/trace.json --trace $d > $out/c.log 2>&1 || echo "FAIL trace $(tail -2 $out/c.log)"
  python3 $bundle/trace_report.py $d --until-last-task --png $d-gantt.png --title "$title" > $d-summary.txt 2>&1; grep -v "^CUDA 0\\|^CPU [0-9]" $d-summary.txt | head -40
  grep -o '"cpu_share_neurons": [0-9]*\|"aligned_neurons": [0-9]*\|"seconds_per_step": [0-9.e-]*\|"tasks_on_cpus": [0-9]*\|"cpu_share": "[a-z]*"' $out/trace.json | paste -sd' '
  STARPU_NCPU=0 timeout 120 "$H" --quiet --force "${A[@]}" --steps 80 "${pr[@]}" --probes $out/tp_gpu.csv > $out/c.log 2>&1 || echo "FAIL gpu probes $(tail -1 $out/c.log)"
  cmp -s $out/tp.csv $out/tp_gpu.csv && echo "PASS $b: the default share's probes identical to the GPU alone's" || echo "FAIL $b probes differ"
  tar -C $out -czf $out/$name.tar.gz $name/paje.trace $name/tasks.rec $name/data.rec $name-summary.txt $(cd $out && ls $name-gantt.png 2>/dev/null) trace.json
  rm -rf $d $out/tp.csv $out/tp_gpu.csv $out/c.log $out/trace.json $d-summary.txt $d-gantt.png
}
# same_probes SPEC [STEPS]: CPU workers only against the GPU only (--verify), probe files compared
# byte for byte; returns 1 when they differ or the GPU run fails.
same_probes() {
  local spec=$1 steps=${2:-400} ok=0
  probe_args "$spec"
  STARPU_NCUDA=0 timeout 120 "$H" --quiet --force "${a[@]}" --stim-amp 1 --steps "$steps" --probes $out/p_cpu.csv > $out/c.log 2>&1 || echo "FAIL cpu $spec $(tail -1 $out/c.log)"
  STARPU_NCPU=0 timeout 120 "$H" --quiet --force "${a[@]}" --stim-amp 1 --steps "$steps" --verify --probes $out/p_gpu.csv > $out/c.log 2>&1 || { ok=1; echo "FAIL run $spec $(tail -1 $out/c.log)"; }
  if cmp -s $out/p_cpu.csv $out/p_gpu.csv; then echo "PASS $spec GPU identical to CPU"; else echo "FAIL $spec differs"; ok=1; fi
  rm -f $out/p_*.csv $out/c.log
  return $ok
}
check() {
  local pass=1
  for spec in mono-hh six-hh six-rows random rnd-hh; do same_probes $spec || pass=0; done
  STARPU_NCPU=0 timeout 200 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels rc=$? $(tail -1 $out/tml.txt)"
  [ $pass = 1 ] && echo "CHECK: PASS" || echo "CHECK: FAIL"
}
# The branch kernel's checks (seventeenth session): CPU and GPU probe files, and with
# test_multi_levels on the GPU.
branch_probes() { for spec in ca1-br ca1-br3 six-br rnd-br deep-br large-br; do same_probes $spec; done; }
branch_checks() {
  branch_probes
  STARPU_NCPU=0 timeout 200 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1
  echo "test_multi_levels rc=$? $(grep -c 'branch kernel' $out/tml.txt) branch cases; $(tail -1 $out/tml.txt)"
}
# unpack_variant LABEL: bin/hinestask_LABEL.gz of the bundle as $out/hinestask_LABEL (row's BUILD)
unpack_variant() {
  python3 -c 'import gzip,shutil,sys; shutil.copyfileobj(gzip.open(sys.argv[1]), open(sys.argv[2],"wb"))' "$bundle/bin/hinestask_$1.gz" "$out/hinestask_$1"
  chmod +x "$out/hinestask_$1"
}
# against_nostage LABEL "ONE-GPU BATCHES" "TWO-GPU BATCHES": this build (LABEL) and the nostage
# variant side by side, two rounds.
against_nostage() {
  local label=$1 batch
  for rep in 1 2; do
    for batch in $2; do row 1 $batch $label; row 1 $batch nostage nostage; done
    [ $ngpu -ge 2 ] && for batch in $3; do row 2 $batch $label; row 2 $batch nostage nostage; done
  done
}
echo "date,commit,gpu,gpus,batch,label,rep,ms_per_step,G_per_s,compartments,wall_s" > "$out/$mode.csv"
# prow MODE GPUS BATCH LABEL -- options: row with HINES_PRIORITY_MODE=MODE (0: unset)
prow() {
  local m=$1; shift
  if [ "$m" = 0 ]; then unset HINES_PRIORITY_MODE; else export HINES_PRIORITY_MODE=$m; fi
  row "$@"
  unset HINES_PRIORITY_MODE
}
if [ "$mode" = prio11 ]; then
  check 2>&1 | tee $out/check.txt
  for m in 1 3; do HINES_PRIORITY_MODE=$m same_probes six-p; done 2>&1 | tee -a $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  for rep in 1 2; do
    row 1 mono default
    for batch in six-33390 large-6643; do
      for m in 0 1 2 3; do prow $m 1 $batch m$m; done
      for m in 0 1 3; do prow $m 1 $batch c2-m$m -- --task-neurons $(( ${batch#*-} / 2 + 1 )); done
      HINES_PRIORITY_SMALL=67584 prow 2 1 $batch m2-s67k
      HINES_PRIORITY_SMALL=67584 prow 3 1 $batch m3-s67k
    done
    [ $ngpu -ge 2 ] && for batch in six-33390 large-6643; do
      for m in 0 1 2 3; do prow $m 2 $batch m$m; done
      for m in 0 1 3; do prow $m 2 $batch c4-m$m -- --task-neurons $(( ${batch#*-} / 8 + 1 )); done
    done
    for batch in all15-16356 deep-24499 random-23585; do for m in 0 1 3; do prow $m 1 $batch m$m; done; done
    for m in 0 1 3; do prow $m 1 large-6643-hh m$m -- --task-neurons 1661; done
    prow 0 1 large-6643-hh c1
    prow 0 1 large-6643-hh c2 -- --task-neurons 3322
  done
fi
if [ "$mode" = prio11b ]; then
  check 2>&1 | tee $out/check.txt
  for spec in six-p six-p-off; do same_probes $spec; done 2>&1 | tee -a $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  for rep in 1 2; do
    row 1 mono default
    for batch in six-33390 large-6643 all15-16356 deep-24499 random-23585 six-16695 large-3322 ca1-3000 ca1-500; do
      row 1 $batch on
      row 1 $batch off -- --level-priorities off
    done
    [ $ngpu -ge 2 ] && for batch in six-33390 large-6643; do
      row 2 $batch on
      row 2 $batch off -- --level-priorities off
    done
    [ $ngpu -ge 2 ] && row 2 six-33390 c4-on -- --task-neurons 4174
    [ $ngpu -ge 2 ] && row 2 large-6643 c4-on -- --task-neurons 831
    row 1 six-33390 c8-on -- --task-neurons 4174
    row 1 six-33390 c8-off -- --task-neurons 4174 --level-priorities off
    row 1 large-6643 c8-on -- --task-neurons 831
    row 1 large-6643 c8-off -- --task-neurons 831 --level-priorities off
    for batch in six-33390-hh large-6643-hh; do
      row 1 $batch on
      row 1 $batch off -- --level-priorities off
    done
  done
fi
if [ "$mode" = final11 ]; then
  check 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  for rep in 1 2; do
    row 1 mono default
    for batch in six-33390 large-6643 all15-16356 deep-24499 random-23585 ca1-3000 ca1-500; do row 1 $batch default; done
    row 1 six-16695 default
    row 1 six-16695 old-rule -- --task-neurons 8348
    row 1 large-3322 default
    row 1 large-3322 old-rule -- --task-neurons 1661
    row 1 deep-24499 old-rule -- --task-neurons 8167
    [ $ngpu -ge 2 ] && {
      row 2 six-33390 default
      row 2 six-33390 old-rule -- --task-neurons 8348
      row 2 large-6643 default
      row 2 large-6643 old-rule -- --task-neurons 1661
      row 2 all15-16356 default
      row 2 all15-16356 old-rule -- --task-neurons 4089
      row 2 random-23585 default
      row 2 random-23585 old-rule -- --task-neurons 5897
      row 2 deep-24499 default
      row 2 deep-24499 old-rule -- --task-neurons 12250
    }
  done
  echo "rows done at $(( $(date +%s) - T0 )) s"
  [ $ngpu -ge 2 ] && { COMMIT=$commit REPS=2 STEPS=300 BATCHES=multi CASES="1x1 2x1 1x2" timeout 170 scripts/bench_mpi.sh $bundle/bin $out/mpi.csv > $out/mpi.log 2>&1; echo "bench_mpi rc=$?"; tail -8 $out/mpi.log; }
fi
# srow US CHUNKS GPUS BATCH LABEL -- options: row with HINES_STAGGER_US=US (0: unset)
srow() {
  local us=$1 k=$2; shift 2
  if [ "$us" = 0 ]; then unset HINES_STAGGER_US; else export HINES_STAGGER_US=$us HINES_STAGGER_CHUNKS=$k; fi
  row "$@"
  unset HINES_STAGGER_US HINES_STAGGER_CHUNKS
}
if [ "$mode" = stagger12 ]; then
  HINES_STAGGER_US=300 same_probes six-p 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    row 1 mono default
    for us in 0 100 200 300; do srow $us 4 1 six-16695 s$us; done
    for us in 0 200 400; do srow $us 2 1 six-16695 c2-s$us -- --task-neurons 8348; done
    for us in 0 150 300 450; do srow $us 4 1 six-33390 s$us; done
    for us in 0 200 400; do srow $us 4 1 large-6643 s$us; done
    for us in 0 200 400; do srow $us 4 1 deep-24499 s$us; done
    for us in 0 200 400; do srow $us 4 1 all15-16356 s$us; done
    [ $ngpu -ge 2 ] && for us in 0 100 200 300; do srow $us 4 2 six-33390 s$us; done
    [ $ngpu -ge 2 ] && for us in 0 150 300; do srow $us 4 2 large-6643 s$us; done
  done
  python3 -c "import json; print(\"tasks_per_step\", json.load(open(\"$out/t.json\"))[\"tasks_per_step\"])"
fi
# envrow VARIABLE VALUE GPUS BATCH LABEL [BUILD] -- options: row with VARIABLE=VALUE (-: unset)
envrow() {
  local variable=$1 value=$2
  shift 2
  if [ "$value" = - ]; then unset "$variable"; else export "$variable=$value"; fi
  row "$@"
  unset "$variable"
}
# lrow BELOW GPUS BATCH LABEL [BUILD] -- options: row with HINES_LEAN_BELOW=BELOW (-: unset)
lrow() { envrow HINES_LEAN_BELOW "$@"; }
if [ "$mode" = lean12 ]; then
  for v in g8 nol2; do unpack_variant $v; done
  { check; for spec in six-p ca1-p deep-p; do same_probes $spec; done
    Hdefault=$H; for v in g8 nol2; do H=$out/hinestask_$v; echo "variant $v:"; same_probes six-p; same_probes ca1-p; done; H=$Hdefault
    HINES_LEAN_BELOW=0 same_probes six-p; } 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  for rep in 1 2; do
    row 1 mono default
    for batch in six-16695 six-33390 large-6643 deep-24499 all15-16356 random-23585 ca1-3000 ca1-500 six-33390-hh; do
      lrow - 1 $batch lean
      lrow 0 1 $batch off
      lrow 65536 1 $batch lean-below-64k
    done
    for batch in six-16695 large-6643 deep-24499 ca1-3000 ca1-500; do
      lrow - 1 $batch g8 g8
      lrow - 1 $batch nol2 nol2
    done
    [ $ngpu -ge 2 ] && for batch in six-33390 large-6643; do
      lrow - 2 $batch lean
      lrow 0 2 $batch off
    done
  done
fi
# crow CONFIG GPUS BATCH -- options: row with the lean sweeps' settings of CONFIG
# (off | gG-BELOW[-nol2], e.g. g8-65536-nol2)
crow() {
  local c=$1; shift
  case $c in
  off) export HINES_LEAN_BELOW=0 ;;
  g*) local rest=${c#g}; export HINES_LEAN_GROUP=${rest%%-*}; rest=${rest#*-}
      export HINES_LEAN_BELOW=${rest%%-*} HINES_LEAN_L2=1; [[ $c == *-nol2 ]] && export HINES_LEAN_L2=0 ;;
  esac
  local g=$1 b=$2; shift 2
  row $g $b $c "$@"
  unset HINES_LEAN_BELOW HINES_LEAN_GROUP HINES_LEAN_L2
}
if [ "$mode" = lean12b ]; then
  { for c in g4-65536 g8-65536 g8-16384-nol2; do
      echo "config $c:"; crow_env=$c
      case $c in g4*) export HINES_LEAN_GROUP=4 ;; *) export HINES_LEAN_GROUP=8 ;; esac
      export HINES_LEAN_BELOW=${c#g?-}; export HINES_LEAN_BELOW=${HINES_LEAN_BELOW%-nol2}
      [[ $c == *-nol2 ]] && export HINES_LEAN_L2=0 || export HINES_LEAN_L2=1
      for spec in six-p ca1-p deep-p random six-hh; do same_probes $spec; done
      unset HINES_LEAN_BELOW HINES_LEAN_GROUP HINES_LEAN_L2
    done; } 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  for rep in 1 2; do
    row 1 mono default
    for batch in six-16695 six-33390 large-6643 deep-24499 all15-16356 random-23585 ca1-3000 ca1-500; do
      for c in off g4-65536 g8-65536 g8-32768 g8-16384 g8-65536-nol2; do crow $c 1 $batch; done
    done
    [ $ngpu -ge 2 ] && for batch in six-33390 large-6643 deep-24499; do
      for c in off g4-65536 g8-65536 g8-32768; do crow $c 2 $batch; done
    done
    for c in off g8-65536; do crow $c 1 six-33390-hh; done
  done
fi
# every_mix ON OFF OPTIONS...: mono, then every mix on one GPU and the five largest on two, with
# the defaults (label ON) and with OPTIONS (label OFF)
every_mix() {
  local on=$1 off=$2 batch
  shift 2
  row 1 mono default
  for batch in six-16695 six-33390 large-6643 deep-24499 all15-16356 random-23585 ca1-3000 ca1-500; do
    row 1 $batch $on
    row 1 $batch $off -- "$@"
  done
  [ $ngpu -ge 2 ] && for batch in six-33390 large-6643 deep-24499 all15-16356 random-23585; do
    row 2 $batch $on
    row 2 $batch $off -- "$@"
  done
}
if [ "$mode" = final12 ]; then
  { check; for spec in six-p ca1-p deep-p; do same_probes $spec; done; } 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  for rep in 1 2; do every_mix lean off --level-lean off; done
  echo "rows done at $(( $(date +%s) - T0 )) s"
  [ $ngpu -ge 2 ] && [ $(( $(date +%s) - T0 )) -lt 360 ] && { COMMIT=$commit REPS=2 STEPS=300 BATCHES=multi CASES="1x1 2x1 1x2" timeout 130 scripts/bench_mpi.sh $bundle/bin $out/mpi.csv > $out/mpi.log 2>&1; echo "bench_mpi rc=$?"; tail -8 $out/mpi.log; }
fi
if [ "$mode" = hh12 ]; then
  for rep in 1 2; do
    for batch in large-6643-hh six-33390-hh ca1-3000-hh; do
      row 1 $batch lean
      row 1 $batch off -- --level-lean off
    done
  done
fi
if [ "$mode" = chunks12 ]; then
  for rep in 1 2; do
    row 2 six-33390 default
    row 2 six-33390 c8-a-gpu -- --task-neurons 2087
    row 2 six-33390 c2-a-gpu -- --task-neurons 8348
    row 1 six-33390 default
    row 1 six-33390 c8 -- --task-neurons 4174
    row 1 six-16695 default
    row 1 six-16695 c8 -- --task-neurons 2087
    row 2 all15-16356 default
    row 2 all15-16356 c8-a-gpu -- --task-neurons 1023
  done
fi
if [ "$mode" = stretch13 ]; then
  unpack_variant head
  { check; for spec in six-p six-p-one six-p-plain ca1-p deep-p; do same_probes $spec; done; } 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  for rep in 1 2; do
    row 1 mono default
    row 1 mono head head
    for batch in six-16695 six-33390 large-6643 deep-24499 all15-16356 random-23585 ca1-3000 ca1-500; do
      row 1 $batch stretches
      row 1 $batch off -- --level-stretches off
      row 1 $batch head head
    done
    [ $ngpu -ge 2 ] && for batch in six-33390 large-6643 deep-24499 all15-16356 random-23585; do
      row 2 $batch stretches
      row 2 $batch head head
    done
    for batch in six-33390-hh large-6643-hh; do
      row 1 $batch stretches
      row 1 $batch head head
    done
  done
  echo "rows done at $(( $(date +%s) - T0 )) s"
fi
# wrow WAVES GPUS BATCH LABEL [BUILD] -- options: row with HINES_TEAM_WAVES=WAVES (-: unset)
wrow() { envrow HINES_TEAM_WAVES "$@"; }
if [ "$mode" = stretch13b ]; then
  unpack_variant head
  { for spec in six-p six-p-one ca1-p deep-p random; do same_probes $spec; done
    for w in 0 1000; do echo "HINES_TEAM_WAVES=$w:"; for spec in six-p deep-p ca1-p; do HINES_TEAM_WAVES=$w same_probes $spec; done; done
    STARPU_NCPU=0 timeout 200 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels rc=$? $(tail -1 $out/tml.txt)"
    HINES_TEAM_WAVES=1000 STARPU_NCPU=0 timeout 200 "$bundle/bin/test_multi_levels" > "$out/tml2.txt" 2>&1; echo "test_multi_levels (teams everywhere lean) rc=$? $(tail -1 $out/tml2.txt)"
  } 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  for rep in 1 2; do
    row 1 mono default
    for batch in six-16695 six-33390 large-6643 deep-24499 all15-16356 random-23585 ca1-3000 ca1-500; do
      wrow - 1 $batch w1
      wrow 0 1 $batch w0
      wrow 4 1 $batch w4
      wrow 1000 1 $batch wall
      row 1 $batch off -- --level-stretches off
      row 1 $batch head head
    done
    [ $ngpu -ge 2 ] && for batch in six-33390 deep-24499 all15-16356 large-6643; do
      wrow - 2 $batch w1
      wrow 1000 2 $batch wall
      row 2 $batch head head
    done
  done
  echo "rows done at $(( $(date +%s) - T0 )) s"
fi
if [ "$mode" = warps13 ]; then
  { for spec in six-p deep-p; do same_probes $spec; done; } 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    every_mix auto off --level-warps off
    row 1 six-33390-hh auto
    row 1 six-33390-hh off -- --level-warps off
  done
  echo "rows done at $(( $(date +%s) - T0 )) s"
fi
if [ "$mode" = final13 ]; then
  { for spec in six-p six-p-one deep-p; do same_probes $spec; done
    STARPU_NCPU=0 timeout 80 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels rc=$? $(tail -1 $out/tml.txt)"; } 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    row 1 mono default
    for batch in six-16695 six-33390 large-6643 deep-24499 all15-16356 random-23585 ca1-3000 ca1-500; do
      row 1 $batch default
    done
    [ $ngpu -ge 2 ] && for batch in six-33390 large-6643 deep-24499 all15-16356 random-23585; do
      row 2 $batch default
    done
  done
  echo "rows done at $(( $(date +%s) - T0 )) s"
  [ $ngpu -ge 2 ] && [ $(( $(date +%s) - T0 )) -lt 230 ] && { COMMIT=$commit REPS=2 STEPS=300 BATCHES=multi CASES="1x1 2x1 1x2" timeout 90 scripts/bench_mpi.sh $bundle/bin $out/mpi.csv > $out/mpi.log 2>&1; echo "bench_mpi rc=$?"; tail -8 $out/mpi.log; }
fi
if [ "$mode" = root14 ]; then
  { for spec in six-p six-hh deep-p ca1-p rnd-hh; do same_probes $spec; done
    STARPU_NCPU=0 timeout 80 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels rc=$? $(tail -1 $out/tml.txt)"; } 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    every_mix center soma --level-root soma
    row 1 six-33390-hh center
    row 1 six-33390-hh soma -- --level-root soma
    row 1 large-6643-hh center
    row 1 large-6643-hh soma -- --level-root soma
  done
  echo "rows done at $(( $(date +%s) - T0 )) s"
  [ $ngpu -ge 2 ] && [ $(( $(date +%s) - T0 )) -lt 450 ] && { COMMIT=$commit REPS=2 STEPS=300 BATCHES=multi CASES="1x1 2x1 1x2" timeout 90 scripts/bench_mpi.sh $bundle/bin $out/mpi.csv > $out/mpi.log 2>&1; echo "bench_mpi rc=$?"; tail -8 $out/mpi.log; }
fi
if [ "$mode" = final14 ]; then
  { for spec in six-p six-hh deep-p ca1-p; do same_probes $spec; done
    STARPU_NCPU=0 timeout 80 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels rc=$? $(tail -1 $out/tml.txt)"; } 2>&1 | tee $out/check.txt
  for rep in 1 2 3; do
    row 1 mono default
    for batch in six-16695 six-33390 large-6643 deep-24499 all15-16356 random-23585 ca1-3000 ca1-500; do
      row 1 $batch default
      case $batch in six-33390|large-6643|deep-24499|all15-16356|random-23585) [ $ngpu -ge 2 ] && row 2 $batch default ;; esac
    done
  done
  row 1 six-33390-hh default
  row 1 large-6643-hh default
  echo "rows done at $(( $(date +%s) - T0 )) s"
  [ $ngpu -ge 2 ] && [ $(( $(date +%s) - T0 )) -lt 380 ] && { COMMIT=$commit REPS=3 STEPS=300 CASES="1x1 2x1 1x2" timeout 170 scripts/bench_mpi.sh $bundle/bin $out/mpi.csv > $out/mpi.log 2>&1; echo "bench_mpi rc=$?"; tail -8 $out/mpi.log; }
fi
if [ "$mode" = factors14 ]; then
  { for spec in six-p six-p-one deep-p ca1-p random six-hh; do same_probes $spec; done
    STARPU_NCPU=0 timeout 80 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels rc=$? $(tail -1 $out/tml.txt)"; } 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    every_mix rows elements --level-factors elements
  done
  echo "rows done at $(( $(date +%s) - T0 )) s"
  [ $ngpu -ge 2 ] && [ $(( $(date +%s) - T0 )) -lt 400 ] && { COMMIT=$commit REPS=3 STEPS=300 BATCHES=multi CASES="1x1 2x1 1x2" timeout 120 scripts/bench_mpi.sh $bundle/bin $out/mpi.csv > $out/mpi.log 2>&1; echo "bench_mpi rc=$?"; tail -8 $out/mpi.log; }
fi
if [ "$mode" = chunks14 ]; then
  for rep in 1 2; do
    for batch in six-33390 large-6643 all15-16356 deep-24499; do
      n=${batch#*-}
      row 2 $batch default
      row 2 $batch c16 -- --task-neurons $(( (n + 15) / 16 ))
      row 2 $batch c4 -- --task-neurons $(( (n + 3) / 4 ))
      row 1 $batch default
      row 1 $batch c8 -- --task-neurons $(( (n + 7) / 8 ))
    done
    row 1 ca1-3000 default
    row 1 ca1-3000 c4 -- --task-neurons 750
    row 1 ca1-3000 c2 -- --task-neurons 1500
  done
  echo "rows done at $(( $(date +%s) - T0 )) s"
fi
if [ "$mode" = final14b ]; then
  { for spec in six-p ca1-p; do same_probes $spec; done; } 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    row 1 mono default
    for batch in six-33390 large-6643 deep-24499 all15-16356 random-23585; do
      row 1 $batch default
      [ $ngpu -ge 2 ] && row 2 $batch default
    done
    row 1 ca1-3000 default
    row 1 ca1-3000 c1 -- --task-neurons 3000
    row 1 ca1-500 default
    row 1 ca1-6000 default
    row 1 ca1-6000 c2 -- --task-neurons 3000
    row 1 six-4174 default
    row 1 six-4174 c1 -- --task-neurons 4174
  done
  row 1 six-33390-hh default
  row 1 large-6643-hh default
  echo "rows done at $(( $(date +%s) - T0 )) s"
  [ $ngpu -ge 2 ] && [ $(( $(date +%s) - T0 )) -lt 330 ] && { COMMIT=$commit REPS=3 STEPS=300 BATCHES=multi CASES="1x1 2x1 1x2" timeout 110 scripts/bench_mpi.sh $bundle/bin $out/mpi.csv > $out/mpi.log 2>&1; echo "bench_mpi rc=$?"; tail -8 $out/mpi.log; }
fi
if [ "$mode" = chunks14b ]; then
  for rep in 1 2; do
    row 1 ca1-3000 default
    row 1 ca1-3000 c1 -- --task-neurons 3000
    [ $ngpu -ge 2 ] && row 2 deep-24499 default
    [ $ngpu -ge 2 ] && row 2 deep-24499 c4 -- --task-neurons 3063
    row 1 ca1-6000 default
    row 1 ca1-6000 c1 -- --task-neurons 6000
  done
  echo "rows done at $(( $(date +%s) - T0 )) s"
fi
if [ "$mode" = steps15 ]; then
  { check; for spec in six-ts six-parts-ts ca1-ts; do same_probes $spec; done; } 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  for rep in 1 2; do
    row 1 mono default
    for k in 1 2 4 8 16; do row 1 ca1-500 k$k -- --task-steps $k; done
    for k in 1 4 8 16; do row 1 ca1-3000 k$k -- --task-steps $k; done
    for k in 1 4 8; do row 1 six-33390 k$k -- --task-steps $k; done
    [ $ngpu -ge 2 ] && for k in 1 4 8; do row 2 six-33390 k$k -- --task-steps $k; done
    [ $ngpu -ge 2 ] && for k in 1 8; do row 2 large-6643 k$k -- --task-steps $k; done
    for k in 1 8; do row 1 large-6643-hh k$k -- --task-steps $k; done
  done
  echo "rows done at $(( $(date +%s) - T0 )) s"
  for k in 1 8; do
    [ $ngpu -ge 2 ] && [ $(( $(date +%s) - T0 )) -lt $(( LIMIT - 100 )) ] && { COMMIT=$commit REPS=3 STEPS=300 BATCHES=multi CASES="1x1 2x1 1x2" TASK_STEPS=$k timeout 95 scripts/bench_mpi.sh $bundle/bin $out/mpi_k$k.csv > $out/mpi_k$k.log 2>&1; echo "bench_mpi k$k rc=$?"; tail -4 $out/mpi_k$k.log; }
  done
fi
if [ "$mode" = final15 ]; then
  { for spec in six-ts ca1-ts; do same_probes $spec; done; } 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    row 1 mono default
    for batch in six-33390 large-6643 deep-24499 all15-16356 random-23585; do
      row 1 $batch default
      [ $ngpu -ge 2 ] && row 2 $batch default
    done
    row 1 ca1-3000 default
    row 1 ca1-500 default
    row 1 ca1-500 k1 -- --task-steps 1
  done
  echo "rows done at $(( $(date +%s) - T0 )) s"
  # CA1 x 500 at 8 steps a task: the level solver's options
  row 1 ca1-500 center -- --level-root center
  row 1 ca1-500 c2 -- --task-neurons 250
  row 1 ca1-500 shared -- --level-kernel shared
  row 1 ca1-500 plain -- --gpu-launch plain
  row 1 ca1-500 split32 -- --level-split 32
  row 1 ca1-500 split128 -- --level-split 128
  row 1 ca1-500 split0 -- --level-split off
  row 1 ca1-500 sub16 -- --level-subtrees 16
  row 1 ca1-500 sub0 -- --level-subtrees off
  row 1 ca1-500 warpsall -- --level-warps all
  row 1 ca1-500 prio-off -- --level-priorities off
  row 1 ca1-500 window16 -- --window 16
  row 1 ca1-500 k32 -- --task-steps 32
  # the defaults with StarPU's CPU workers beside the GPUs
  ROW_NCPU=all row 1 ca1-500 withcpus
  ROW_NCPU=all row 1 six-33390 withcpus
  [ $ngpu -ge 2 ] && ROW_NCPU=all row 2 six-33390 withcpus
  # HH everywhere on the large cells
  row 1 large-6643-hh default
  row 1 large-6643-hh k1 -- --task-steps 1
  row 1 large-6643-hh apart -- --level-rows apart
  row 1 large-6643-hh fused -- --level-rows fused
  row 1 large-6643-hh exact -- --hh-rates exact
  row 1 large-6643-hh c2 -- --task-neurons 3322
  row 1 six-33390-hh default
  echo "variants done at $(( $(date +%s) - T0 )) s"
  [ $ngpu -ge 2 ] && [ $(( $(date +%s) - T0 )) -lt $(( LIMIT - 60 )) ] && { COMMIT=$commit REPS=3 STEPS=300 CASES="1x1 2x1 1x2" timeout 170 scripts/bench_mpi.sh $bundle/bin $out/mpi.csv > $out/mpi.log 2>&1; echo "bench_mpi rc=$?"; tail -8 $out/mpi.log; }
fi
if [ "$mode" = diag15 ]; then
  san=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  echo "compute-sanitizer: $san"
  row 1 large-6643-hh exact -- --hh-rates exact
  cp $out/t.log $out/exact_k8.log
  row 1 large-6643-hh exact-k1 -- --hh-rates exact --task-steps 1
  cp $out/t.log $out/exact_k1.log
  row 1 large-1000-hh exact -- --hh-rates exact
  row 1 six-33390-hh exact -- --hh-rates exact
  row 1 large-6643-hh exact-fused -- --hh-rates exact --level-rows fused
  row 1 large-6643-hh exact-apart -- --hh-rates exact --level-rows apart
  args_of large-200-hh
  [ -n "$san" ] && STARPU_NCPU=0 timeout 150 $san --print-limit 20 $H --quiet --force "${A[@]}" --hh-rates exact --steps 3 > $out/sanitizer_large_exact.txt 2>&1; echo "sanitizer rc=$? $(grep -c 'Invalid\|ERROR' $out/sanitizer_large_exact.txt) lines at $(( $(date +%s) - T0 )) s"
  head -c 3000 $out/sanitizer_large_exact.txt
  echo "diag done at $(( $(date +%s) - T0 )) s"
  for rep in 1 2; do
    for batch in large-6643 deep-24499 all15-16356; do
      args_of $batch; n=${A[$(( ${#A[@]} - 5 ))]}
      row 1 $batch default
      row 2 $batch default
      for c in 2 3 6 8; do row 2 $batch c${c}g -- --task-neurons $(( (n + 2 * c - 1) / (2 * c) )); done
      row 2 $batch k16 -- --task-steps 16
    done
  done
  echo "rows done at $(( $(date +%s) - T0 )) s"
fi
if [ "$mode" = diag15b ] || [ "$mode" = verify15 ] || [ "$mode" = verify15b ]; then
  san=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  small=(--mode multi "${six[@]}" --neurons 240 --hh all --hh-rates exact --steps 20 --quiet --force)
  for v in "" "--level-rows fused" "--level-rows apart" "--gpu-launch plain" "--task-steps 1" "--level-root soma" "--level-warps off" "--level-kernel flow" "--level-kernel cell" "--multi-tasks levels" "--hh soma" "--hh-rates table" "--level-subtrees off --level-split off" "--padding cp"; do
    read -r -a o <<<"$v"
    STARPU_NCPU=0 timeout 60 $H "${small[@]}" "${o[@]}" > $out/d.log 2>&1 && echo "PASS [$v]" || echo "FAIL [$v] $(grep -o 'CUDA error.*' $out/d.log | head -1)"
  done
  STARPU_NCPU=0 timeout 60 $H --mode mono --morph synthetic:medium-high --neurons 3000 --hh all --hh-rates exact --steps 20 --quiet --force > $out/d.log 2>&1 && echo "PASS mono exact" || echo "FAIL mono exact"
  STARPU_NCPU=0 timeout 60 $H --mode multi --morph synthetic:medium-high --neurons 300 --hh all --hh-rates exact --steps 20 --quiet --force > $out/d.log 2>&1 && echo "PASS multi medium-high exact" || echo "FAIL multi medium-high exact"
  [ -n "$san" ] && STARPU_NCPU=0 STARPU_NCUDA=1 timeout 200 $san --tool memcheck --report-api-errors no --print-limit 6 $H "${small[@]}" --neurons 24 --steps 2 > $out/sanitizer_exact.txt 2>&1; echo "sanitizer rc=$?"
  grep -v 'Host Frame\|^=========\s*$' $out/sanitizer_exact.txt | head -60
fi
if [ "$mode" = verify15 ]; then
  { check; for spec in six-exact large-exact six-ts ca1-ts; do same_probes $spec; done; } 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  rep=1 row 1 mono default
  for rep in 1 2; do
    row 1 ca1-500 default
    row 1 ca1-3000 default
  done
  row 1 large-6643-hh table
  row 1 large-6643-hh exact -- --hh-rates exact
  row 1 six-33390-hh exact -- --hh-rates exact
  echo "rows done at $(( $(date +%s) - T0 )) s"
  [ $ngpu -ge 2 ] && { COMMIT=$commit REPS=5 STEPS=300 CASES="1x1 2x1 1x2" timeout 260 scripts/bench_mpi.sh $bundle/bin $out/mpi.csv > $out/mpi.log 2>&1; echo "bench_mpi rc=$?"; tail -8 $out/mpi.log; }
fi
if [ "$mode" = verify15b ]; then
  { check; for spec in six-exact large-exact; do same_probes $spec; done; } 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    for batch in mono-hh six-33390-hh ca1-500; do
      row 1 $batch now
      row 1 $batch prev prev
    done
    row 1 mono-hh exact -- --hh-rates exact
    row 1 mono-hh exact-prev prev -- --hh-rates exact
  done
fi
if [ "$mode" = cpus15 ]; then
  rep=1
  for k in 8 1; do
    ROW_NCPU=all row 1 ca1-500 withcpus-k$k -- --task-steps $k
    ROW_NCPU=all row 1 six-33390 withcpus-k$k -- --task-steps $k
  done
  grep -o '"scheduler": "[a-z]*"\|"cpu_workers": [0-9]*\|"tasks_on_cpus": [0-9]*\|"task_steps": [0-9]*' $out/t.json
fi
if [ "$mode" = hh16 ]; then
  # the HH row kernel beside the deepest levels' sweeps, both compiled for the table form alone,
  # against the build before (hinestask_prev) and without the side stream (HINES_ROWS_SIDE=0)
  unpack_variant prev
  { check; for spec in six-fork rnd-fork large-fork six-exact large-exact; do same_probes $spec; done
    HINES_ROWS_SIDE=0 same_probes six-fork; } 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  for rep in 1 2; do
    for batch in large-6643-hh six-33390-hh; do
      row 1 $batch now
      envrow HINES_ROWS_SIDE 0 1 $batch noside
      row 1 $batch prev prev
    done
    row 1 mono-hh now
    row 1 mono-hh prev prev
  done
  rep=1
  for batch in all15-16356-hh deep-24499-hh random-23585-hh ca1-3000-hh ca1-500-hh large-6643; do
    row 1 $batch now
    row 1 $batch prev prev
  done
  [ $ngpu -ge 2 ] && for batch in large-6643-hh six-33390-hh; do row 2 $batch now; row 2 $batch prev prev; done
  echo "rows done at $(( $(date +%s) - T0 )) s"
  ncu_bin=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active
  args_of large-6643-hh
  STARPU_NCPU=0 STARPU_NCUDA=1 timeout 150 $ncu_bin --clock-control none --metrics $metrics --csv --page raw \
    $H --quiet --force "${A[@]}" --task-neurons 6643 --steps 3 --task-steps 1 > $out/prof16b_large-6643-hh.csv 2> $out/prof16b.err
  echo "ncu rc=$? at $(( $(date +%s) - T0 )) s"; gzip -f $out/prof16b_*.csv
fi
if [ "$mode" = hh16b ]; then
  # register bounds of the channel sweep compiled for the table form (r72, r64), its loads ahead
  # (p2: 2 elements at 96 registers; l2a2: L2 hints 2 ahead), the row kernel with L2 prefetches
  # and 1, 2 or 4 elements a thread (rp1, rp2, rp4), against this build (now: 80 registers, one
  # element a thread, no prefetch)
  for b in r72 r64 l2a2 rp2 rp4; do unpack_variant $b; done
  { for b in r64 rp2 rp4; do echo "build $b:"; H=$out/hinestask_$b same_probes six-fork; H=$out/hinestask_$b same_probes rnd-hh; done; } 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  for rep in 1 2; do
    for batch in large-6643-hh six-33390-hh deep-24499-hh; do
      row 1 $batch now
      for b in r72 r64 l2a2 rp2 rp4; do row 1 $batch $b $b; done
    done
  done
  rep=1
  for batch in ca1-3000-hh ca1-500-hh random-23585-hh; do
    row 1 $batch now
    for b in r72 r64 rp2 rp4; do row 1 $batch $b $b; done
  done
  echo "rows done at $(( $(date +%s) - T0 )) s"
  ncu_bin=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  args_of large-6643-hh
  for k in rows_kernel:1 backward_kernel:31; do
    skip=${k#*:} k=${k%:*}
    STARPU_NCPU=0 STARPU_NCUDA=1 timeout 100 $ncu_bin --clock-control none --kernel-name regex:$k --launch-skip $skip --launch-count 1 \
      --section WarpStateStats --section SourceCounters --section Occupancy --section MemoryWorkloadAnalysis --page source --print-source sass --csv \
      $H --quiet --force "${A[@]}" --task-neurons 6643 --steps 3 --task-steps 1 > $out/prof16c_sass_$k.csv 2> $out/prof16c_$k.err
    echo "ncu $k rc=$? at $(( $(date +%s) - T0 )) s"
  done
  gzip -f $out/prof16c_*.csv
fi
if [ "$mode" = hh16c ]; then
  # the kept change (HH kernels compiled for the table form, row kernel at two elements a thread)
  # against the build before it (bin/hinestask_prev.gz): checks, every HH mix at mono's
  # compartments (bench_mixes.sh, verified), small batches, passive batches unchanged
  unpack_variant prev; mkdir -p /tmp/prevbin; cp $out/hinestask_prev /tmp/prevbin/hinestask
  { check; for spec in six-fork rnd-fork large-fork six-exact large-exact six-ts; do same_probes $spec; done
    probe_args six-hh
    STARPU_NCPU=0 timeout 120 "$H" --quiet --force "${a[@]}" --stim-amp 1 --steps 400 --probes $out/p_gpu.csv > /dev/null 2>&1
    STARPU_SCHED=dmda timeout 200 "$H" --quiet --force "${a[@]}" --stim-amp 1 --steps 400 --json $out/mixed.json --probes $out/p_mixed.csv > /dev/null 2>&1
    grep -o '"tasks_on_cpus": [0-9]*\|"cuda_workers": [0-9]*\|"cpu_workers": [0-9]*' $out/mixed.json | paste -sd' '
    cmp -s $out/p_gpu.csv $out/p_mixed.csv && echo "PASS six-hh dmda CPU+GPU identical to GPU only" || echo "FAIL six-hh dmda CPU+GPU differs"
    rm -f $out/p_*.csv; } 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  STARPU_NCPU=0 STARPU_NCUDA=1 MIXES_ONLY=1 MIX_ARGS="--hh all" HINESTASK_COMMIT=$commit timeout 200 scripts/bench_mixes.sh $bundle/bin $out/mixes_hh_now.csv .bundle/morphologies > $out/mixes_now.log 2>&1; echo "mixes now rc=$? at $(( $(date +%s) - T0 )) s"
  STARPU_NCPU=0 STARPU_NCUDA=1 MIXES_ONLY=1 MIX_ARGS="--hh all" HINESTASK_COMMIT=prev timeout 200 scripts/bench_mixes.sh /tmp/prevbin $out/mixes_hh_prev.csv .bundle/morphologies > $out/mixes_prev.log 2>&1; echo "mixes prev rc=$? at $(( $(date +%s) - T0 )) s"
  cat $out/mixes_hh_now.csv $out/mixes_hh_prev.csv | cut -d, -f2,5,7,10,11,12
  for rep in 1 2; do
    for batch in large-6643-hh deep-24499-hh ca1-3000-hh ca1-500-hh large-6643 six-33390 ca1-500; do
      row 1 $batch now
      row 1 $batch prev prev
    done
  done
  rm -f $out/hinestask_* $out/t.json $out/t.log
fi
if [ "$mode" = hh16d ]; then
  # after cdb1a4f: where rows are built apart (--level-rows N against the default 262,144) and
  # the channel sweep bound to 72 registers (r72: level_variant.sh), HH mixes
  unpack_variant r72
  for rep in 1 2; do
    for batch in large-6643-hh six-33390-hh all15-16356-hh deep-24499-hh random-23585-hh; do
      row 1 $batch now
      row 1 $batch r72 r72
      for n in 65536 131072 500000 1000000; do row 1 $batch n$n -- --level-rows $n; done
    done
  done
  rep=1
  for batch in ca1-3000-hh ca1-500-hh six-4174-hh; do
    row 1 $batch now
    row 1 $batch r72 r72
    for n in 65536 500000; do row 1 $batch n$n -- --level-rows $n; done
  done
  rm -f $out/hinestask_* $out/t.json $out/t.log
fi
if [ "$mode" = hh16e ]; then
  # two GPUs after cdb1a4f: the checks with both GPUs visible (chunks on both), HH and passive
  # batches on one GPU and on two in the same round
  { check; for spec in six-fork large-fork six-exact; do same_probes $spec; done; } 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  for rep in 1 2; do
    for batch in large-6643-hh six-33390-hh all15-16356-hh large-6643 six-33390 mono; do
      row 1 $batch default
      [ $ngpu -ge 2 ] && row 2 $batch default
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = ca1x16 ]; then
  # CA1 x 500 (issue 19's last target) against level options not measured at 8 steps a task
  for rep in 1 2 3; do
    row 1 ca1-500 default
    for o in "--level-split 48" "--level-split 96" "--level-subtrees 32" "--level-subtrees 48" \
      "--window 8" "--level-lean off" "--level-factors elements" "--level-pivots computed" \
      "--level-warps off" "--level-order depth" "--task-steps 64"; do
      row 1 ca1-500 "$(echo $o | tr -d ' -')" -- $o
    done
    row 1 ca1-300 default
    row 1 ca1-1000 default
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = br17 ]; then
  # the branch kernel (--level-kernel branches): CPU and GPU bits, --verify, then against the
  # level kernels on small batches and every mix
  branch_checks 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  br=(--level-kernel branches)
  for rep in 1 2; do
    for batch in ca1-500 ca1-300 ca1-1000 ca1-3000; do
      row 1 $batch levels; row 1 $batch branches -- "${br[@]}"
    done
    row 1 ca1-500 branches-g2 -- "${br[@]}" --cell-neurons 2
    row 1 ca1-3000 branches-g4 -- "${br[@]}" --cell-neurons 4
    row 1 mono default
    for batch in six-33390 large-6643 all15-16356 deep-24499 random-23585 six-1044; do
      row 1 $batch levels; row 1 $batch branches -- "${br[@]}"
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = br17b ]; then
  # the branch kernel with each block's branch values in shared memory and loads in groups:
  # bits, then small batches against the level kernels, register and group variants
  branch_checks 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  for v in r128 g4 g16; do unpack_variant $v; done
  br=(--level-kernel branches)
  for rep in 1 2; do
    for batch in ca1-500 ca1-300 ca1-1000 ca1-3000; do
      row 1 $batch levels; row 1 $batch branches -- "${br[@]}"
      for v in r128 g4 g16; do row 1 $batch $v $v -- "${br[@]}"; done
      row 1 $batch branches-g2 -- "${br[@]}" --cell-neurons 2
    done
    for batch in six-1044 random-2000 deep-2000; do
      row 1 $batch levels; row 1 $batch branches -- "${br[@]}"
    done
  done
  rep=1; row 1 six-33390 branches -- "${br[@]}"; row 1 mono default
  rm -f $out/t.json $out/t.log $out/hinestask_*
fi
if [ "$mode" = br17c ]; then
  # the branch kernel with phase B's constants loaded in phase A: bits, the phases' times
  # (variants running only some phases, results wrong), ncu of one launch
  branch_checks 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  vs="pA pAB pAC"; for v in $vs; do unpack_variant $v; done
  br=(--level-kernel branches)
  for rep in 1 2; do
    for batch in ca1-500 ca1-300 ca1-1000 ca1-3000; do
      row 1 $batch levels; row 1 $batch branches -- "${br[@]}"; row 1 $batch branches-g2 -- "${br[@]}" --cell-neurons 2
      for v in $vs; do row 1 $batch $v-g2 $v -- "${br[@]}" --cell-neurons 2; done
    done
  done
  rep=1
  for batch in six-1044 random-2000 deep-2000; do row 1 $batch levels; row 1 $batch branches-g2 -- "${br[@]}" --cell-neurons 2; done
  echo "rows done at $(( $(date +%s) - T0 )) s"
  ncu_bin=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  metrics=gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
  args_of ca1-500
  for g in 1 2; do
    STARPU_NCPU=0 STARPU_NCUDA=1 timeout 120 $ncu_bin --clock-control none --metrics $metrics --csv --page raw \
      $H --quiet --force "${A[@]}" "${br[@]}" --cell-neurons $g --steps 4 --task-steps 1 > $out/ncu_br17_ca1-500-g$g.csv 2> $out/ncu.err
    echo "ncu g$g rc=$?"; tail -1 $out/ncu.err
  done
  STARPU_NCPU=0 STARPU_NCUDA=1 timeout 120 $ncu_bin --clock-control none --metrics gpu__time_duration.sum --csv --page raw \
    $H --quiet --force "${A[@]}" --steps 4 --task-steps 1 > $out/ncu_br17_ca1-500-levels.csv 2> $out/ncu.err
  echo "ncu levels rc=$?"
  STARPU_NCPU=0 STARPU_NCUDA=1 timeout 150 $ncu_bin --clock-control none --set full --import-source no -k regex:branch_step --launch-skip 2 --launch-count 1 -o $out/br17 \
    $H --quiet --force "${A[@]}" "${br[@]}" --cell-neurons 2 --steps 4 --task-steps 1 > $out/ncu.log 2>&1
  echo "ncu full rc=$?"
  $ncu_bin -i $out/br17.ncu-rep --page details --csv > $out/ncu_br17_details.csv 2>&1
  $ncu_bin -i $out/br17.ncu-rep --page source --csv --print-source sass > $out/ncu_br17_sass.csv 2>&1
  rm -f $out/br17.ncu-rep; gzip -f $out/ncu_br17_*.csv
  rm -f $out/t.json $out/t.log $out/hinestask_*
fi
if [ "$mode" = br17d ]; then
  # the branch step in three launches (phases A and C a thread a system in the level arrays'
  # order, B a block a neuron): bits, small batches, phases alone (pA, pAC; results wrong)
  branch_checks 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  vs="pA pAC"; for v in $vs; do unpack_variant $v; done
  br=(--level-kernel branches)
  for rep in 1 2; do
    for batch in ca1-500 ca1-300 ca1-1000 ca1-3000; do
      row 1 $batch levels; row 1 $batch branches -- "${br[@]}"; row 1 $batch branches-g2 -- "${br[@]}" --cell-neurons 2
      for v in $vs; do row 1 $batch $v $v -- "${br[@]}"; done
    done
    for batch in six-1044 random-2000 deep-2000 six-33390 large-6643; do row 1 $batch levels; row 1 $batch branches -- "${br[@]}"; done
  done
  rep=1; row 1 mono default
  rm -f $out/t.json $out/t.log $out/hinestask_* $out/tml.txt
fi
if [ "$mode" = br17e ]; then
  # phase B reading only shared memory (the block's links copied in): test_multi_levels on the
  # GPU (its failures kept), bits, small batches against the level kernels, phases alone
  STARPU_NCPU=0 timeout 300 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels rc=$?"
  grep -E "ERROR|FAILED|error" $out/tml.txt | head -20 > $out/tml_failures.txt; cat $out/tml_failures.txt
  branch_probes 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  vs="pA pAC"; for v in $vs; do unpack_variant $v; done
  br=(--level-kernel branches)
  for rep in 1 2; do
    for batch in ca1-500 ca1-300 ca1-1000 ca1-3000 six-1044 deep-2000 random-2000; do
      row 1 $batch levels; row 1 $batch branches -- "${br[@]}"
    done
    for batch in ca1-500 ca1-3000; do
      row 1 $batch branches-g2 -- "${br[@]}" --cell-neurons 2
      for v in $vs; do row 1 $batch $v $v -- "${br[@]}"; done
    done
  done
  rep=1; for batch in six-4174 large-800 ca1-6000; do row 1 $batch levels; row 1 $batch branches -- "${br[@]}"; done
  row 1 mono default
  rm -f $out/t.json $out/t.log $out/hinestask_*
fi
if [ "$mode" = br17f ]; then
  # phase B loading and storing its items flat (a thread an item): test_multi_levels on the GPU,
  # bits, every batch size against the level kernels (where each kernel wins), phases alone
  STARPU_NCPU=0 timeout 300 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels rc=$? $(grep -c 'branch kernel' $out/tml.txt) branch cases; $(tail -1 $out/tml.txt)"
  grep -E "ERROR|FAILED" $out/tml.txt | head -20
  branch_probes 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  vs="pA pAC"; for v in $vs; do unpack_variant $v; done
  br=(--level-kernel branches)
  for rep in 1 2; do
    for batch in ca1-500 ca1-300 ca1-1000 ca1-3000 ca1-6000 six-1044 six-4174 deep-2000 random-2000 large-800 large-3322; do
      row 1 $batch levels; row 1 $batch branches -- "${br[@]}"
    done
    for batch in ca1-500 ca1-3000; do for v in $vs; do row 1 $batch $v $v -- "${br[@]}"; done; done
  done
  rep=1; for batch in six-33390 large-6643 deep-24499 random-23585; do row 1 $batch levels; row 1 $batch branches -- "${br[@]}"; done
  row 1 mono default
  rm -f $out/t.json $out/t.log $out/hinestask_*
fi
if [ "$mode" = br17g ]; then
  # the defaults after --level-kernel auto: which kernel each batch runs, CPU and GPU bits of the
  # default runs, test_multi_levels and test_accuracy on the GPU, small batches and mixes
  { STARPU_NCPU=0 timeout 300 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels rc=$? $(tail -1 $out/tml.txt)"
    STARPU_NCPU=0 HINES_SOURCE_DIR=$PWD timeout 300 "$bundle/bin/test_accuracy" > "$out/tacc.txt" 2>&1; echo "test_accuracy rc=$? $(tail -1 $out/tacc.txt)"
    grep -E "branches NCP|levels NCP" $out/tacc.txt | head -40
    for spec in ca1-p six-p random deep-p six-hh; do same_probes $spec; done
  } 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  for rep in 1 2; do
    for batch in ca1-500 ca1-300 ca1-1000 ca1-3000 six-1044 deep-2000 large-800 random-2000; do
      row 1 $batch default; grep -o '"level_kernel": "[a-z]*"' $out/t.json
      row 1 $batch levels -- --level-kernel levels
    done
    row 1 ca1-500-hh default; grep -o '"level_kernel": "[a-z]*"' $out/t.json
    row 1 six-33390 default; grep -o '"level_kernel": "[a-z]*"' $out/t.json
    row 1 mono default
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = br17h ]; then
  # the final commit's defaults on small batches, three rounds, with the checks
  { branch_checks; for spec in ca1-p six-p six-hh; do same_probes $spec; done; } 2>&1 | tee $out/check.txt
  for rep in 1 2 3; do
    for batch in ca1-500 ca1-300 ca1-1000 ca1-3000 six-1044; do
      row 1 $batch default; grep -o '"level_kernel": "[a-z]*"' $out/t.json
      row 1 $batch levels -- --level-kernel levels
    done
  done
  rep=1; row 1 mono default
  rm -f $out/t.json $out/t.log $out/tml.txt
fi
# trunk_checks: test_multi_levels on the GPU and CPU against GPU probe files of trunks of
# branches (eighteenth session), into check.txt.
trunk_checks() {
  { STARPU_NCPU=0 timeout 300 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels rc=$? $(grep -c 'trunk of branches' $out/tml.txt) trunk cases; $(tail -1 $out/tml.txt)"
    grep -E "ERROR|FAILED" $out/tml.txt | head -20
    for spec in large-trunk six-trunk deep-trunk ca1-trunk; do same_probes $spec; done
  } 2>&1 | tee $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
}
if [ "$mode" = trunk18 ]; then
  # a4ab0b7's build (--trunk-below T --trunk-kernel branches: the trunk's levels chosen per
  # chunk; CPU and GPU probe files differed where the chunks did); the rows of trunk18_*.csv
  trunk_checks
  tr=(--trunk-kernel branches)
  for rep in 1 2; do
    for batch in large-6643 all15-16356 deep-24499 six-33390; do
      for g in 2 1; do
        [ $g -gt $ngpu ] && continue
        row $g $batch default
        for t in ${TRUNKS:-1000 3000 10000 30000}; do row $g $batch b$t -- --trunk-below $t "${tr[@]}"; done
      done
    done
  done
  rep=1; row 1 mono default
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = trunk18b ]; then
  # --trunk-branches R (the trunk: the same levels in every chunk, from the morphologies'
  # systems a neuron): checks, then R against the defaults on two GPUs and one
  trunk_checks
  for rep in 1 2; do
    for batch in large-6643 all15-16356 deep-24499 six-33390; do
      row 2 $batch default
      for r in ${RS2:-1 1.5 2.5 4}; do row 2 $batch r$r -- --trunk-branches $r; done
      row 1 $batch default
      for r in ${RS1:-1.5 2.5}; do row 1 $batch r$r -- --trunk-branches $r; done
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = trunk18c ]; then
  # a trunk of branches with shorter branch pieces (its phase A walks each piece at once) and
  # plain launches, two GPUs against one GPU's defaults
  for rep in 1 2; do
    for spec in large-6643:2.5 all15-16356:1.5 deep-24499:1.5; do
      batch=${spec%:*}; r=${spec#*:}
      row 1 $batch default
      row 2 $batch default
      row 2 $batch r$r -- --trunk-branches $r
      for c in 32 48; do row 2 $batch r$r-s$c -- --trunk-branches $r --level-split $c; done
      row 2 $batch r$r-plain -- --trunk-branches $r --gpu-launch plain
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = steps19 ]; then
  # one GPU, the whole batch against half of it (what each GPU of a pair holds): ms per step over
  # 100 and 1,000 steps (a run's start and drain spread over fewer steps), chunks' first steps
  # staggered (HINES_STAGGER_US: read only by that call's uncommitted experiment build, a spin
  # kernel of k x US before chunk k's first timed step; other builds ignore it), tasks of 32 steps
  for rep in 1 2 3; do
    for s in 100 1000; do for b in large-6643 large-3322; do row 1 $b s$s -- --steps $s; done; done
    for b in large-6643 large-3322; do row 1 $b r2.5-s1000 -- --trunk-branches 2.5 --steps 1000; done
    for us in 40 120; do export HINES_STAGGER_US=$us
      row 1 large-3322 stagger$us-s1000 -- --steps 1000; row 1 large-6643 stagger$us-s1000 -- --steps 1000
      unset HINES_STAGGER_US; done
    row 1 large-3322 k32-s1000 -- --task-steps 32 --steps 1000
    for b in all15-16356 all15-8178 deep-24499 deep-12250 six-33390 six-16695; do row 1 $b s1000 -- --steps 1000; done
    row 1 all15-8178 r1.5-s48-s1000 -- --trunk-branches 1.5 --level-split 48 --steps 1000
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = pair19 ]; then
  # two GPUs against one over 1,000 steps (and 100 for the large cells): every mix's defaults,
  # the trunk options of the eighteenth session, mono in 16 tasks
  for rep in 1 2 3; do
    for b in large-6643 all15-16356 deep-24499 six-33390 random-23585; do row 1 $b s1000 -- --steps 1000; row 2 $b s1000 -- --steps 1000; done
    row 2 large-6643 r2.5-s1000 -- --trunk-branches 2.5 --steps 1000
    row 2 all15-16356 r1.5-s48-s1000 -- --trunk-branches 1.5 --level-split 48 --steps 1000
    row 2 deep-24499 r1.5-s1000 -- --trunk-branches 1.5 --steps 1000
    row 1 large-6643 s100 -- --steps 100; row 2 large-6643 s100 -- --steps 100
    row 2 large-6643 r2.5-s100 -- --trunk-branches 2.5 --steps 100
    row 1 mono s1000 -- --steps 1000; row 2 mono t16-s1000 -- --steps 1000 --task-neurons 16000
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = fixed19 ]; then
  # a run's fixed cost: both stimulus states' graphs captured at the first step (this build)
  # against capturing the second at the switch (old, 6e61b46), 100 and 1,000 steps, one GPU and
  # two; the trunk options for all 15 over two GPUs
  { for spec in six-lv six-lv-on large-hh-on large-trunk-on six-hh ca1-p; do same_probes $spec; done
    STARPU_NCPU=0 timeout 200 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels rc=$? $(tail -1 $out/tml.txt)"
  } 2>&1 | tee $out/check.txt
  for rep in 1 2 3; do
    for g in 1 2; do for b in large-6643 all15-16356; do row $g $b old-s100 old -- --steps 100; row $g $b s100 -- --steps 100; done; done
    row 2 large-6643 old-r2.5-s100 old -- --trunk-branches 2.5 --steps 100; row 2 large-6643 r2.5-s100 -- --trunk-branches 2.5 --steps 100
    row 2 all15-16356 r1.5-s48-s100 -- --trunk-branches 1.5 --level-split 48 --steps 100
    for g in 1 2; do row $g large-6643 s1000 -- --steps 1000; row $g all15-16356 s1000 -- --steps 1000; done
    row 2 large-6643 r2.5-s1000 -- --trunk-branches 2.5 --steps 1000
    for r in 1 1.5 2 2.5; do for sp in 40 48; do row 2 all15-16356 r$r-s$sp-s1000 -- --trunk-branches $r --level-split $sp --steps 1000; done; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = cells19 ]; then
  # the trunk's blocks of several cells, other cuts and thresholds, two GPUs over 1,000 steps
  for rep in 1 2; do
    for b in all15-16356 large-6643 deep-24499; do row 1 $b s1000 -- --steps 1000; done
    for cn in 1 2 4; do row 2 all15-16356 r1-s48-c$cn -- --trunk-branches 1 --level-split 48 --cell-neurons $cn --steps 1000; done
    for sp in 44 56; do row 2 all15-16356 r1-s$sp -- --trunk-branches 1 --level-split $sp --steps 1000; done
    row 2 all15-16356 r0.75-s48 -- --trunk-branches 0.75 --level-split 48 --steps 1000
    for cn in 1 2 4; do row 2 large-6643 r2.5-c$cn -- --trunk-branches 2.5 --cell-neurons $cn --steps 1000; done
    row 2 large-6643 r3 -- --trunk-branches 3 --steps 1000
    row 2 large-6643 r2.5-s56 -- --trunk-branches 2.5 --level-split 56 --steps 1000
    row 2 deep-24499 r1.5-s48 -- --trunk-branches 1.5 --level-split 48 --steps 1000
    row 2 deep-24499 r1.5-c2 -- --trunk-branches 1.5 --cell-neurons 2 --steps 1000
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = cells19b ]; then
  # cells19's best settings combined and neighbours, over 1,000 and 100 steps
  for rep in 1 2 3; do
    for b in all15-16356 large-6643 deep-24499; do row 1 $b s1000 -- --steps 1000; done
    for v in r0.75-s48-c4 r0.75-s48-c2 r0.5-s48-c4 r0.75-s44-c4; do set -- $(echo $v | sed 's/r\([0-9.]*\)-s\([0-9]*\)-c\([0-9]*\)/\1 \2 \3/')
      row 2 all15-16356 $v -- --trunk-branches $1 --level-split $2 --cell-neurons $3 --steps 1000; done
    for v in r1.5-c4 r1-c2 r2-c2; do set -- $(echo $v | sed 's/r\([0-9.]*\)-c\([0-9]*\)/\1 \2/')
      row 2 deep-24499 $v -- --trunk-branches $1 --cell-neurons $2 --steps 1000; done
    row 2 large-6643 r2.5-c2 -- --trunk-branches 2.5 --cell-neurons 2 --steps 1000
    row 1 all15-16356 s100 -- --steps 100; row 2 all15-16356 r0.75-s48-c4-s100 -- --trunk-branches 0.75 --level-split 48 --cell-neurons 4 --steps 100
    row 1 deep-24499 s100 -- --steps 100; row 2 deep-24499 r1.5-c2-s100 -- --trunk-branches 1.5 --cell-neurons 2 --steps 100
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = cost19 ]; then
  # what the two-GPU trunk settings cost on one GPU, and a small trunk (R 0.75, blocks of 4
  # cells) on every mix, 1,000 steps
  for rep in 1 2; do
    for b in all15-16356 large-6643 deep-24499 six-33390 random-23585; do
      row 1 $b default -- --steps 1000; row 1 $b r0.75-c4 -- --trunk-branches 0.75 --cell-neurons 4 --steps 1000
      row 2 $b r0.75-c4 -- --trunk-branches 0.75 --cell-neurons 4 --steps 1000; done
    row 1 all15-16356 r0.75-s48-c4 -- --trunk-branches 0.75 --level-split 48 --cell-neurons 4 --steps 1000
    row 1 large-6643 r2.5-c2 -- --trunk-branches 2.5 --cell-neurons 2 --steps 1000
    row 1 deep-24499 r1.5-c4 -- --trunk-branches 1.5 --cell-neurons 4 --steps 1000
    for b in six-33390 random-23585; do row 2 $b default -- --steps 1000; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = trunkc20 ]; then
  # the trunk's blocks of many cells (the junction phase's blocks: fewer, each more cells), one
  # GPU and two, every mix, 1,000 steps; CPU and GPU probe files with blocks of 16
  for spec in large-trunk-c16 six-trunk-c16; do same_probes $spec; done 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    for b in large-6643 all15-16356 deep-24499 six-33390; do
      for g in 1 2; do row $g $b default -- --steps 1000; done
      for v in r1.5-c16 r2.5-c16 r2.5-c64 r1-c16; do set -- $(echo $v | sed 's/r\([0-9.]*\)-c\([0-9]*\)/\1 \2/')
        for g in 1 2; do row $g $b $v -- --trunk-branches $1 --cell-neurons $2 --steps 1000; done; done
    done
    for g in 1 2; do row $g random-23585 default -- --steps 1000; row $g random-23585 r1.5-c16 -- --trunk-branches 1.5 --cell-neurons 16 --steps 1000; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = auto20 ]; then
  # the default trunk (--trunk-branches auto) against none (0, the old default), one GPU and two,
  # 1,000 steps: the mixes it was set on (large, all 15) and three kept apart (A, B, C), the
  # large cells at half and twice the size; checks: CPU and GPU probe files with the default
  # trunk, test_multi_levels on the GPU
  { for spec in large-auto C-auto; do same_probes $spec; done
    STARPU_NCPU=0 timeout 200 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels rc=$? $(tail -1 $out/tml.txt)"
    grep "default trunk" "$out/tml.txt"
  } 2>&1 | tee $out/check.txt
  for rep in 1 2 3; do
    for b in large-6643 all15-16356 A-8820 B-8330 C-11720; do
      for g in 1 2; do row $g $b auto -- --steps 1000; row $g $b t0 -- --trunk-branches 0 --steps 1000; done
    done
    row 1 large-3322 auto -- --steps 1000; row 1 large-3322 t0 -- --trunk-branches 0 --steps 1000
    row 2 large-13286 auto -- --steps 1000; row 2 large-13286 t0 -- --trunk-branches 0 --steps 1000
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = chunks20 ]; then
  # the default trunk (auto) against none (t0) where the issue's other rows ask: the large cells
  # and mix C in 1, 4 and 16 chunks on one GPU; schedulers other than dmdas on one GPU and two;
  # CPU workers beside one GPU (dmdas, the first run calibrates); 1,000 steps
  for rep in 1 2; do
    for t in auto t0; do o=(); [ $t = t0 ] && o=(--trunk-branches 0)
      for n in 6643 1661 416; do row 1 large-6643 $t-n$n -- "${o[@]}" --task-neurons $n --steps 1000; done
      for n in 11720 2930 733; do row 1 C-11720 $t-n$n -- "${o[@]}" --task-neurons $n --steps 1000; done
      for sched in eager lws dmda; do export STARPU_SCHED=$sched
        for g in 1 2; do row $g large-6643 $t-$sched -- "${o[@]}" --steps 1000; done
        unset STARPU_SCHED; done
      ROW_NCPU=all row 1 large-6643 $t-cpu -- "${o[@]}" --steps 1000
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = short20 ]; then
  # the default trunk over 100 steps (a run's first steps are slower: BENCHMARKS.md), the large
  # cells and mix C, one GPU and two; mono in 16 tasks over two GPUs against one task on one
  for rep in 1 2 3; do
    for b in large-6643 C-11720; do for g in 1 2; do row $g $b s100 -- --steps 100; done; done
    row 1 mono s1000 -- --steps 1000; row 2 mono t16-s1000 -- --steps 1000 --task-neurons 16000
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = sched20 ]; then
  # why lws and eager do not spread the large cells' chunks over two GPUs: workers per GPU
  # (STARPU_NWORKER_PER_CUDA, hinestask's default 16) and tasks each worker queues
  # (STARPU_CUDA_PIPELINE, default 4), one GPU and two, 1,000 steps
  for rep in 1 2; do
    for sched in lws eager; do export STARPU_SCHED=$sched
      for v in w16p4 w4p4 w8p4 w16p1 w4p1 w4p0; do
        w=${v#w}; w=${w%p*}; p=${v#*p}
        export STARPU_NWORKER_PER_CUDA=$w STARPU_CUDA_PIPELINE=$p
        for g in 1 2; do row $g large-6643 $sched-$v -- --steps 1000; done
        unset STARPU_NWORKER_PER_CUDA STARPU_CUDA_PIPELINE
      done
      unset STARPU_SCHED
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = sched20b ]; then
  # eager and lws with hinestask's new defaults for them over several GPUs (4 workers a GPU, 1
  # task queued each: runtime_greedy_workers), one GPU and two; dmdas as the control
  for rep in 1 2; do
    for sched in eager lws; do export STARPU_SCHED=$sched
      for b in large-6643 six-33390 mono; do for g in 1 2; do row $g $b $sched -- --steps 1000; done; done
      for g in 1 2; do row $g mono $sched-t16 -- --steps 1000 --task-neurons 16000; done
      unset STARPU_SCHED
    done
    row 1 large-6643 dmdas -- --steps 1000; row 2 large-6643 dmdas -- --steps 1000
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = rule21 ]; then
  # the default trunk's thresholds (HINES_TRUNK_SYSTEMS, _BRANCHES, _SHARE: knobs of an
  # experiment build, not committed), one GPU and two, 1,000 steps, the mixes it was set on and
  # kept apart (A, B, C, and D, new); the SM clocks sampled over 100-step runs
  nvidia-smi --query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw,utilization.gpu --format=csv,noheader -lms 20 > $out/clocks.csv 2>&1 &
  smi=$!
  rep=0; for g in 1 2; do echo "clocks: $g GPUs from $(date -u +%T.%N)" >> $out/clocks-marks.txt; row $g large-6643 s100 -- --steps 100; echo "clocks: done $(date -u +%T.%N)" >> $out/clocks-marks.txt; done
  kill $smi
  for rep in 1 2; do
    for b in B-8330 C-11720 all15-16356 D-7404 large-6643 A-8820; do
      for v in v0:2.5:2.5e-3:0.05 v1:4:2.5e-3:0.05 v2:4:4e-3:0.07 v3:6:6e-3:0.1; do
        IFS=: read -r name sy br sh <<< "$v"
        export HINES_TRUNK_SYSTEMS=$sy HINES_TRUNK_BRANCHES=$br HINES_TRUNK_SHARE=$sh
        for g in 1 2; do row $g $b $name -- --steps 1000; done
        unset HINES_TRUNK_SYSTEMS HINES_TRUNK_BRANCHES HINES_TRUNK_SHARE
      done
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = chunks21 ]; then
  # chunks a GPU (--task-neurons: 3, the rule's 4, 6, 8 a GPU; early launches kept past 4 with
  # --gpu-launch early) over two GPUs and one, 1,000 steps; D's half batch on one GPU; E (kept
  # apart) with the experiment build's thresholds v1 against the defaults
  per() { echo $(( ($1 + $2 - 1) / $2 )); }
  for rep in 1 2; do
    for b in D-7404 C-11720 all15-16356 B-8330 large-6643; do
      n=${b#*-}; s=(--steps 1000)
      row 1 $b c4 -- "${s[@]}"
      row 1 $b c6e -- "${s[@]}" --task-neurons $(per $n 6) --gpu-launch early
      row 1 $b c8e -- "${s[@]}" --task-neurons $(per $n 8) --gpu-launch early
      row 2 $b c4 -- "${s[@]}"
      row 2 $b c3 -- "${s[@]}" --task-neurons $(per $n 6)
      row 2 $b c6e -- "${s[@]}" --task-neurons $(per $n 12) --gpu-launch early
      row 2 $b c8e -- "${s[@]}" --task-neurons $(per $n 16) --gpu-launch early
      row 2 $b c8 -- "${s[@]}" --task-neurons $(per $n 16)
    done
    row 1 D-3702 half
    for g in 1 2; do row $g E-18711 v0; HINES_TRUNK_SYSTEMS=4 row $g E-18711 v1; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = rule21b ]; then
  # the default trunk up to 4 systems a neuron (this build) against 2.5 (the experiment knob
  # HINES_TRUNK_SYSTEMS=2.5: the rule before), one GPU and two, 1,000 steps, the mixes it changes
  # (B, D, A, the large cells, test_swc alone); checks: CPU and GPU probe files with the new
  # default, test_multi_levels on the GPU
  { for spec in large-auto C-auto D-auto tsw-auto; do same_probes $spec; done
    STARPU_NCPU=0 timeout 200 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels rc=$? $(tail -1 $out/tml.txt)"
    grep "default trunk" "$out/tml.txt"
  } 2>&1 | tee $out/check.txt
  for rep in 1 2 3; do
    for b in D-7404 B-8330 large-6643 A-8820 tsw-3110; do
      for g in 1 2; do
        row $g $b s4 -- --steps 1000
        HINES_TRUNK_SYSTEMS=2.5 row $g $b s2.5 -- --steps 1000
      done
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = split21 ]; then
  # branch pieces of at most 48 and 56 compartments (--level-split) against the default 64, with
  # the default trunk up to 4 systems a neuron, one GPU and two, 1,000 steps
  for rep in 1 2; do
    for b in D-7404 C-11720 all15-16356 B-8330 large-6643; do
      for g in 1 2; do for sp in 64 56 48; do row $g $b split$sp -- --steps 1000 --level-split $sp; done; done
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = cells22 ]; then
  # (prepared for the next session) the trunk's cells a block: the default (as many as fit up to
  # 64: 64 for B, C, D and all 15 at 199 KiB of shared memory, one block an SM; 32 for the large
  # cells at 123 KiB) against 32 and 16 (--cell-neurons; same bits whatever the block), one GPU
  # and two, 1,000 steps
  for rep in 1 2; do
    for b in C-11720 all15-16356 D-7404 B-8330 large-6643 A-8820; do
      for g in 1 2; do
        row $g $b cauto -- --steps 1000
        row $g $b c32 -- --steps 1000 --cell-neurons 32
        row $g $b c16 -- --steps 1000 --cell-neurons 16
      done
    done
  done
  # the new trunk (4 systems a neuron) where only dmdas GPU-only over 1,000 steps measured it:
  # eager, lws, dmda, one GPU and two; CPU workers beside the GPUs (dmdas); 100 steps
  rep=1
  for sched in eager lws dmda; do export STARPU_SCHED=$sched
    for b in large-6643 C-11720; do for g in 1 2; do row $g $b $sched -- --steps 1000; done; done
    unset STARPU_SCHED; done
  for b in large-6643 C-11720; do for g in 1 2; do ROW_NCPU=all row $g $b cpu -- --steps 1000; done; done
  for b in large-6643 C-11720; do for g in 1 2; do row $g $b s100 -- --steps 100; done; done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = cpudiag22 ]; then
  # cells22's CPU workers beside two GPUs ran the large cells past the 120 s timeout (1,000
  # steps; C and one GPU finished in 5 s): slow or stuck? Progress lines, StarPU's watchdog
  # (no task ended for 2 s), a backtrace of every thread after 30 s, then 100 steps' JSON
  args_of large-6643
  env -u STARPU_NCPU STARPU_NCUDA=2 STARPU_WATCHDOG_TIMEOUT=2000000 timeout 50 "$H" --force "${A[@]}" --steps 1000 --json $out/cpudiag-1000.json > $out/cpudiag-1000.log 2>&1 &
  pid=$!; sleep 30
  if kill -0 $pid 2>/dev/null; then
    child=$(pgrep -P $pid | head -1); gdb_bin=$(command -v gdb)
    echo "after 30 s still running (hinestask pid ${child:-?}); gdb: ${gdb_bin:-none}"
    [ -n "$gdb_bin" ] && [ -n "$child" ] && timeout 15 gdb -p $child -batch -ex "thread apply all bt 12" > $out/cpudiag-bt.txt 2>&1
    top -b -n 1 -H -p ${child:-1} 2>/dev/null | head -30 > $out/cpudiag-top.txt
  fi
  wait $pid; echo "1000 steps rc=$?"; tail -5 $out/cpudiag-1000.log
  env -u STARPU_NCPU STARPU_NCUDA=2 timeout 40 "$H" --force "${A[@]}" --steps 100 --json $out/cpudiag-100.json > $out/cpudiag-100.log 2>&1
  echo "100 steps rc=$?"; tail -3 $out/cpudiag-100.log
  grep -o '"seconds_per_step": [0-9.e-]*\|"tasks_on_cpus": [0-9-]*\|"cpu_workers": [0-9]*\|"task_steps": [0-9]*\|"tasks_per_step": [0-9]*' $out/cpudiag-100.json | paste -sd' '
fi
if [ "$mode" = cpudiag22b ]; then
  # cpudiag22: a second run in the same STARPU_HOME put 103 of 112 chunk tasks on CPU cores (233
  # ms a step against 0.53). The size model's predictions and records (a build printing them,
  # hinestask_dbg: scripts/results/size_model_debug_print_87e889e.patch on 87e889e, never
  # committed), a fresh STARPU_HOME then the same one again, 100 steps each
  args_of large-6643
  for run in fresh again again2; do
    env -u STARPU_NCPU STARPU_NCUDA=2 HINES_DEBUG_PREDICT=1 timeout 60 $out/hinestask_dbg --force "${A[@]}" --steps 100 --json $out/dbg-$run.json > $out/dbg-$run.out 2> $out/dbg-$run.err
    echo "$run rc=$? $(grep -h 'tasks run' $out/dbg-$run.out) $(grep -h 'then' $out/dbg-$run.out)"
    gzip -f $out/dbg-$run.err
  done
  ls $STARPU_HOME/.starpu/sampling/ $STARPU_HOME/.starpu/sampling/* | head -30
fi
if [ "$mode" = cpufix22 ]; then
  # the size model kept between the nearest size's time and its proportion beyond the measured
  # sizes (cpudiag22b: a line through two near sizes put tasks of 8 steps at 12 s on the GPU);
  # StarPU's own CPU workers beside one GPU and two, runs after runs in one STARPU_HOME, 100 and
  # 1,000 steps; the GPU alone beside them; tasks on CPU cores after each row
  { same_probes large-auto; } 2>&1 | tee $out/check.txt
  rep=1
  for r in 1 2 3; do ROW_NCPU=all row 2 large-6643 cpu-s100-r$r -- --steps 100; cores; done
  for rep in 1 2; do
    for b in large-6643 C-11720 all15-16356 D-7404; do
      ROW_NCPU=all row 2 $b cpu -- --steps 1000; cores
      row 2 $b gpu -- --steps 1000
    done
    for b in large-6643 C-11720; do ROW_NCPU=all row 1 $b cpu -- --steps 1000; cores; row 1 $b gpu -- --steps 1000; done
    ROW_NCPU=all row 2 mono cpu -- --steps 1000; cores
    ROW_NCPU=all row 2 mono cpu-t16 -- --steps 1000 --task-neurons 16000; cores
    row 2 mono gpu -- --steps 1000
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = cpusweep22 ]; then
  # the size model's bound over the other batches: StarPU's CPU workers beside two GPUs and one
  # (smaller chunks, HH, small batches), against the GPUs alone; tasks on CPU cores after each
  for rep in 1 2; do
    for b in six-33390 random-23585 deep-24499 E-18711 B-8330 A-8820 large-6643-hh six-33390-hh; do
      ROW_NCPU=all row 2 $b cpu -- --steps 1000; cores; row 2 $b gpu -- --steps 1000
    done
    for b in ca1-500 ca1-3000 six-4174 large-800; do
      for g in 1 2; do ROW_NCPU=all row $g $b cpu; cores; row $g $b gpu; done
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = chain23 ]; then
  # the part of a step that does not halve over two GPUs (F in
  # t = F + W / GPUs: D 0.100 ms, all 15 0.073, C 0.063 against A's 0.004) follows the chain the
  # level kernels walk below the trunk (832 compartments for B, C, D, all 15; 558 for A). Options
  # that shorten a walked element or the gaps between levels, all bit-neutral: warps instead of
  # lean sweeps, 8 lanes, plain launches, no level priorities, 16 steps a task, a window of 8;
  # one GPU and two, 1,000 steps; the three mixes short of 1.9x only (84 rows fit one call)
  for rep in 1 2; do
    for b in D-7404 C-11720 all15-16356; do
      for g in 1 2; do
        row $g $b default -- --steps 1000
        row $g $b warps -- --steps 1000 --level-lean off --level-warps auto
        row $g $b warps8 -- --steps 1000 --level-lean off --level-warps all --warp-lanes 8
        row $g $b plain -- --steps 1000 --gpu-launch plain
        row $g $b noprio -- --steps 1000 --level-priorities off
        row $g $b k16 -- --steps 1000 --task-steps 16
        row $g $b w8 -- --steps 1000 --window 8
      done
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = prio23 ]; then
  # chain23: without level priorities one GPU ran D, C and all 15 1.8-2.4 % faster, two GPUs
  # 0-2.3 % slower. The other mixes, one GPU and two, on against off; and each kind of chunk
  # size on the other GPU count (one GPU's 20 M chunks on two GPUs, two GPUs' 10 M on one);
  # first the level kernels' rate on the host's cores alone (the bound on CPU + GPU for multi)
  rep=1
  for b in large-200 six-1000 D-200; do ROW_NCPU=16 row 0 $b cpu16 -- --steps 50; done
  for rep in 1 2; do
    for b in large-6643 A-8820 B-8330 E-18711 six-33390 random-23585 deep-24499 ca1-3000 large-6643-hh D-7404; do
      for g in 1 2; do
        row $g $b default -- --steps 1000
        row $g $b noprio -- --steps 1000 --level-priorities off
      done
    done
    for b in D-7404:925 C-11720:1465; do
      n=${b#*:}; b=${b%:*}
      row 1 $b c8 -- --steps 1000 --task-neurons $n --gpu-launch early
      row 1 $b c8-noprio -- --steps 1000 --task-neurons $n --gpu-launch early --level-priorities off
      row 2 $b c2 -- --steps 1000 --task-neurons $(( n * 4 ))
      row 2 $b c2-noprio -- --steps 1000 --task-neurons $(( n * 4 )) --level-priorities off
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = prio23b ]; then
  # --level-priorities auto (on for chunks of at most 15 M compartments, off above) against on
  # (the default before); checks: CPU and GPU probe files with priorities off and by default, the
  # large cells on one GPU (auto: off) and with on give identical probe files, test_multi_levels
  { for spec in six-p-off large-auto C-auto; do same_probes $spec; done
    args_of large-6643; pr=(--probe 0:0 --probe 6642:300 --probe 17:5 --steps 200 --stim-amp 1)
    for p in auto on; do
      STARPU_NCPU=0 STARPU_NCUDA=1 timeout 120 "$H" --quiet --force "${A[@]}" "${pr[@]}" --level-priorities $p --probes $out/p_$p.csv --json $out/t.json > $out/c.log 2>&1 || echo "FAIL $p $(tail -1 $out/c.log)"
      grep -o '"level_priorities[a-z_]*": "[a-z]*"' $out/t.json | paste -sd' '
    done
    cmp -s $out/p_auto.csv $out/p_on.csv && echo "PASS large cells one GPU: auto (off) identical to on" || echo "FAIL large cells auto differs from on"
    rm -f $out/p_*.csv
    STARPU_NCPU=0 timeout 200 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels rc=$? $(tail -1 $out/tml.txt)"
  } 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    for b in large-6643 A-8820 B-8330 C-11720 D-7404 E-18711 all15-16356 six-33390 random-23585 deep-24499 ca1-3000 large-6643-hh; do
      row 1 $b auto -- --steps 1000
      row 1 $b on -- --steps 1000 --level-priorities on
    done
    row 2 large-13286 auto -- --steps 1000
    row 2 large-13286 on -- --steps 1000 --level-priorities on
    for b in C-11720 D-7404 all15-16356 six-33390; do row 2 $b auto -- --steps 1000; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = accept23 ]; then
  # issue 15's rows at the level priorities' rule (auto: off for chunks above 15 M compartments):
  # the real-cell mixes in 1, 4 and 16 chunks on one GPU (one chunk also with priorities on);
  # mono in 16 tasks over two GPUs against one task on one; the large cells over two GPUs
  # under eager, lws, dmda; 1,000 steps
  for rep in 1 2; do
    for b in large-6643:6643 C-11720:11720 D-7404:7404 all15-16356:16356; do
      n=${b#*:}; b=${b%:*}
      for c in 1 4 16; do row 1 $b c$c -- --task-neurons $(( (n + c - 1) / c )) --steps 1000; done
      row 1 $b c1-on -- --task-neurons $n --level-priorities on --steps 1000
    done
    row 1 mono t1 -- --steps 1000 --task-neurons 256000
    row 2 mono t16 -- --steps 1000 --task-neurons 16000
    for sched in eager lws dmda; do export STARPU_SCHED=$sched
      row 2 large-6643 $sched -- --steps 1000; unset STARPU_SCHED; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = hetero23 ]; then
  # (the one-GPU machine: 16 cores) issue 15's CPU + GPU row at the current code, last measured
  # on 2026-11-23 (1.044-1.055x): mono 256,000 medium-high, block layout, two calibration runs
  # with StarPU's CPU workers beside the GPU, then CPU + GPU against the GPU alone (dmdas, no
  # mask); the interleaved default the same way; the large cells (multi) once; tasks on cores
  blk=(--layout block --block-size 32)
  rep=0
  for pass in 1 2; do ROW_NCPU=all row 1 mono calibrate-block -- "${blk[@]}" --steps 100 --calibrate; cores; done
  for rep in 1 2 3; do
    ROW_NCPU=all row 1 mono cpu+gpu-block -- "${blk[@]}" --steps 1000; cores
    row 1 mono gpu-block -- "${blk[@]}" --steps 1000
  done
  rep=0; ROW_NCPU=all row 1 mono calibrate-inter -- --steps 100 --calibrate; cores
  for rep in 1 2; do
    ROW_NCPU=all row 1 mono cpu+gpu-inter -- --steps 1000; cores
    row 1 mono gpu-inter -- --steps 1000
  done
  rep=1; ROW_NCPU=all row 1 large-6643 cpu+gpu -- --steps 1000; cores; row 1 large-6643 gpu -- --steps 1000
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = cpurows24 ]; then
  # (the one-GPU machine) the CPU level sweeps and branch phases row by row
  # (codelets/level_rows_cpu.h, branch_rows_cpu.h): CPU workers and the GPU give identical probe
  # files (level kernels passive and HH, trunks of branches, the branch kernel); then 16 CPU
  # workers alone on prio23's batches (1.08-1.19 G/s before, H200 x2 host) and larger ones.
  for spec in large-auto six-hh rnd-hh large-trunk ca1-br six-br deep-br random; do same_probes $spec 200; done
  rep=1
  for b in large-200 six-1000 D-200 six-10000 ca1-3000; do ROW_NCPU=16 row 0 $b cpu16 -- --steps 50; grep -o '"level_kernel": "[a-z]*"' $out/t.json; done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = default24 ]; then
  # (the one-GPU machine) the default layout with CPU workers beside the GPU: block, with the
  # cores' share, for passive batches of 150 M compartments or more, interleaved and no share
  # below. Per batch: the first default run (fresh models for its kind), two calibration runs,
  # then CPU + GPU against the GPU alone, both with hinestask's defaults, two rounds. Then the
  # same bits: CPU + GPU (block, shared) against the GPU alone (interleaved), probes.
  cores() { grep -o '"tasks_on_cpus": [0-9-]*\|"layout": "[a-z]*"' $out/t.json 2>/dev/null | paste -sd' '; }
  for b in monoc-medium-high-512000 monoc-big-high-256000 monoc-small-high-2000000 monoc-medium-high-1024000 monoc-medium-high-256000; do
    st=(); case $b in *-1024000|monoc-big-high-256000) st=(--steps 300) ;; esac
    rep=0; ROW_NCPU=all row 1 $b cpu+gpu-first -- "${st[@]}"; cores
    for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 100 --calibrate; cores; done
    for rep in 1 2; do
      ROW_NCPU=all row 1 $b cpu+gpu -- "${st[@]}"; cores
      row 1 $b gpu -- "${st[@]}"; cores
    done
  done
  pa=(--mode mono --morph synthetic:medium-high --neurons 512000 --steps 200 --probe 0:0 --probe 400000:5 --probe 511999:300 --stim-amp 1)
  timeout 120 "$H" --quiet --force "${pa[@]}" --probes $out/p_both.csv --json $out/t.json > $out/c.log 2>&1 || echo "FAIL cpu+gpu probes $(tail -1 $out/c.log)"; cores
  STARPU_NCPU=0 timeout 120 "$H" --quiet --force "${pa[@]}" --probes $out/p_gpu.csv --json $out/t.json > $out/c.log 2>&1 || echo "FAIL gpu probes $(tail -1 $out/c.log)"; cores
  cmp -s $out/p_both.csv $out/p_gpu.csv && echo "PASS 512,000 passive: CPU + GPU (block, shared) identical to the GPU alone (interleaved)" || echo "FAIL probes differ"
  rm -f $out/p_*.csv $out/c.log $out/t.json $out/t.log
fi
# rounds27 BATCH ROUNDS STEPS: two calibration runs of 200 steps with --cpu-share on, then ROUNDS
# rounds of CPU + GPU with --cpu-share on against the GPU alone (its defaults), over STEPS steps.
rounds27() {
  local b=$1 r=$2 st=$3
  rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate --cpu-share on; cores; done
  for rep in $(seq $r); do ROW_NCPU=all row 1 $b cpu+gpu-share-$st -- --steps $st --cpu-share on; cores; row 1 $b gpu-$st -- --steps $st; done
}
# mono_trace NAME TITLE options...: a traced run of hinestask's defaults plus the options (80
# steps, probes every 0.2 ms), its summary (the worker lines left out), what it shared, and
# NAME.tar.gz under $out.
mono_trace() {
  local name=$1 title=$2; shift 2
  local d=$out/$name
  PATH="$bundle/bin:$PATH" timeout 150 "$H" --quiet --mode mono "$@" --steps 80 --probe-every 0.2 --probes $out/tp.csv --json $out/trace.json --trace $d > $out/c.log 2>&1 || echo "FAIL trace $(tail -2 $out/c.log)"
  python3 $bundle/trace_report.py $d --until-last-task --png $d-gantt.png --title "$title" > $d-summary.txt 2>&1; grep -v "^CUDA 0\\|^CPU [0-9]" $d-summary.txt
  grep -o '"cpu_share_neurons": [0-9]*\|"seconds_per_step": [0-9.e-]*\|"tasks_on_cpus": [0-9]*\|"interleaved_chunks": [0-9]*' $out/trace.json | paste -sd' '
  tar -C $out -czf $out/$name.tar.gz $name/paje.trace $name/tasks.rec $name/data.rec $name-summary.txt $(cd $out && ls $name-gantt.png 2>/dev/null) trace.json
  rm -rf $d $out/tp.csv $out/c.log $out/trace.json $d-summary.txt $d-gantt.png
}
# bits_compare CLASS NEURONS COMPARTMENT options...: CPU + GPU (hinestask's defaults plus the
# options) against the GPU alone, probes (the last neuron's at COMPARTMENT) and spikes compared
# (PASS or FAIL), with what the first run shared (cores).
bits_compare() {
  local c=$1 n=$2 last=$3; shift 3
  local pa=(--mode mono --morph synthetic:$c --neurons $n --steps 300 --stim-amp 1 --probe 0:0 --probe $((n / 2)):5 --probe $((n - 1)):$last --probe-every 0.2 --spike-threshold 0 "$@")
  timeout 120 "$H" --quiet --force "${pa[@]}" --probes $out/p_both.csv --spikes $out/s_both.csv --json $out/t.json > $out/c.log 2>&1 || echo "FAIL cpu+gpu $(tail -1 $out/c.log)"
  grep -o '"tasks_on_cpus": [0-9-]*\|"cpu_share_neurons": [0-9-]*\|"interleaved_chunks": [0-9]*\|"layout": "[a-z]*"' $out/t.json | paste -sd' '
  STARPU_NCPU=0 timeout 120 "$H" --quiet --force "${pa[@]}" --probes $out/p_gpu.csv --spikes $out/s_gpu.csv > $out/c.log 2>&1 || echo "FAIL gpu $(tail -1 $out/c.log)"
  cmp -s $out/p_both.csv $out/p_gpu.csv && cmp -s <(sort $out/s_both.csv) <(sort $out/s_gpu.csv) && echo "PASS $c $n $*: CPU + GPU identical to the GPU alone (probes, $(($(wc -l < $out/s_gpu.csv) - 1)) spikes)" || echo "FAIL $c $n $*: probes or spikes differ"
  rm -f $out/p_*.csv $out/s_*.csv $out/c.log
}
# bits28 CLASS NEURONS HH [COMPARTMENT]: bits_compare with --hh HH, the last probe at
# COMPARTMENT (300 unless given).
bits28() { bits_compare $1 $2 ${4:-300} --hh $3; }
if [ "$mode" = big28 ]; then
  # (the one-GPU machine) robust28's big-high 512,000 HH (354 M) ran 10.33 ms a step with the
  # default share after calibration runs of 8.63-8.72: in a fresh STARPU_HOME two calibration
  # runs and three rounds of CPU + GPU against the GPU alone (defaults, 300 steps) for it, then
  # medium-high 1,024,000 HH (327 M), two rounds.
  cores() { grep -o '"tasks_on_cpus": [0-9-]*\|"cpu_share_neurons": [0-9-]*\|"interleaved_chunks": [0-9]*' $out/t.json 2>/dev/null | paste -sd' '; }
  rounds26 monoc-big-high-512000-hh 3 --steps 300
  rounds26 monoc-medium-high-1024000-hh 2 --steps 300
  find $STARPU_HOME -name "hinestask-sizes*" -exec cp {} $out/ \;
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = robust28 ]; then
  # (the one-GPU machine) the default HH share where users may meet it otherwise, HH medium-high
  # 256,000: in a fresh STARPU_HOME CPU + GPU against the GPU alone before any calibration, then
  # after two calibration runs a trace of the default run (80 steps, probes), probes every 0.3 ms
  # (12 steps), 333 steps (a last round of 4), --window 1 (no share by default), hh and km on
  # every compartment (its own calibration); big-high 512,000 HH (354 M); same bits for
  # big-high 128,000 HH once calibrated.
  cores() { grep -o '"tasks_on_cpus": [0-9-]*\|"cpu_share_neurons": [0-9-]*\|"interleaved_chunks": [0-9]*' $out/t.json 2>/dev/null | paste -sd' '; }
  b=monoc-medium-high-256000-hh
  rep=0; ROW_NCPU=all row 1 $b cpu+gpu-uncalibrated -- --steps 300; cores; row 1 $b gpu -- --steps 300
  for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; cores; done
  mono_trace trace-hh-share "hinestask defaults, HH medium-high 256,000, H200 + 15 CPU workers, calibrated dmdas" --morph synthetic:medium-high --neurons 256000 --hh all --probe 0:0 --probe 200000:5
  pr=(--probe 0:0 --probe 200000:5 --probe-every 0.3 --probes $out/pr.csv)
  rep=1; ROW_NCPU=all row 1 $b cpu+gpu-probes -- --steps 300 "${pr[@]}"; cores; row 1 $b gpu-probes -- --steps 300 "${pr[@]}"; rm -f $out/pr.csv
  rep=1; ROW_NCPU=all row 1 $b cpu+gpu-333 -- --steps 333; cores; row 1 $b gpu-333 -- --steps 333
  rep=1; ROW_NCPU=all row 1 $b cpu+gpu-window1 -- --steps 300 --window 1; cores; row 1 $b gpu-window1 -- --steps 300 --window 1
  km=(--channels hh:all,km:all --steps 300)
  rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate-km -- "${km[@]}" --steps 200 --calibrate; cores; done
  for rep in 1 2; do ROW_NCPU=all row 1 $b cpu+gpu-km -- "${km[@]}"; cores; row 1 $b gpu-km -- "${km[@]}"; done
  rounds26 monoc-big-high-128000-hh 1 --steps 300
  bits28 big-high 128000 all
  rounds26 monoc-big-high-512000-hh 2 --steps 300
  find $STARPU_HOME -name "hinestask-sizes*" -exec cp {} $out/ \;
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = default28 ]; then
  # (the one-GPU machine) the cores' share by default with HH too (64 M or more on one GPU, the
  # GPU's chunks interleaved beside it): in a fresh STARPU_HOME, two calibration runs (defaults)
  # and rounds of CPU + GPU against the GPU alone (hinestask's defaults, no option) for HH
  # medium-high 256,000 (300 and 1,000 steps), big-high 128,000, small-high 1,000,000, big-high
  # 256,000 (177 M), the first run at medium-high 512,000 HH (a size never measured), and passive
  # medium-high 256,000 (unchanged: blocks); same bits once calibrated (the share active), HH
  # and passive.
  cores() { grep -o '"tasks_on_cpus": [0-9-]*\|"cpu_share_neurons": [0-9-]*\|"interleaved_chunks": [0-9]*' $out/t.json 2>/dev/null | paste -sd' '; }
  rounds26 monoc-medium-high-256000-hh 3 --steps 300
  bits28 medium-high 256000 all
  rep=4; ROW_NCPU=all row 1 monoc-medium-high-256000-hh cpu+gpu-1000 -- --steps 1000; cores; row 1 monoc-medium-high-256000-hh gpu-1000 -- --steps 1000
  rep=1; ROW_NCPU=all row 1 monoc-medium-high-512000-hh cpu+gpu-unseen -- --steps 300; cores; row 1 monoc-medium-high-512000-hh gpu -- --steps 300
  rounds26 monoc-big-high-128000-hh 2 --steps 300
  rounds26 monoc-small-high-1000000-hh 2 --steps 300
  rounds26 monoc-big-high-256000-hh 2 --steps 300
  rounds26 monoc-medium-high-256000 1
  bits28 medium-high 256000 none
  find $STARPU_HOME -name "hinestask-sizes*" -exec cp {} $out/ \;
  rm -f $out/t.json $out/t.log
fi
# rounds29 BATCH TAG ROUNDS STEPS options...: two calibration runs of 200 steps with the
# options, then ROUNDS rounds of CPU + GPU against the GPU alone (defaults plus the options) over
# STEPS steps, labelled cpu+gpu-TAG and gpu-TAG.
rounds29() {
  local b=$1 tag=$2 r=$3 st=$4; shift 4
  rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate-$tag -- "$@" --steps 200 --calibrate; cores; done
  for rep in $(seq $r); do ROW_NCPU=all row 1 $b cpu+gpu-$tag -- "$@" --steps $st; cores; row 1 $b gpu-$tag -- "$@" --steps $st; done
}
# bits29 CLASS NEURONS options...: bits_compare with the options (channels), the last probe at
# compartment 70.
bits29() { local c=$1 n=$2; shift 2; bits_compare $c $n 70 "$@"; }
if [ "$mode" = two29 ]; then
  # (the two-GPU machine) the cores' share beside two GPUs since the cores' home (never measured
  # so): in a fresh STARPU_HOME, two calibration runs with --cpu-share on, then rounds of CPU +
  # both GPUs with the share against both GPUs alone (defaults), 300 steps: passive medium-high
  # 512,000 (82 M a GPU), then HH medium-high 256,000.
  cores() { grep -o '"tasks_on_cpus": [0-9-]*\|"cpu_share_neurons": [0-9-]*\|"tasks_per_gpu": [^]]*]' $out/t.json 2>/dev/null | paste -sd' '; }
  for b in monoc-medium-high-512000 monoc-medium-high-256000-hh; do
    rep=0; for pass in 1 2; do ROW_NCPU=all row 2 $b calibrate -- --steps 200 --calibrate --cpu-share on; cores; done
    for rep in 1 2; do ROW_NCPU=all row 2 $b cpu+gpus-share -- --cpu-share on --steps 300; cores; row 2 $b gpus -- --steps 300; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = note29 ]; then
  # (the one-GPU machine) the note of a share that waits for the models (a212527): in a fresh
  # STARPU_HOME a default run of passive medium-high 256,000 (CPU + GPU) prints it and its JSON
  # says cpu_share_uncalibrated true; after two --calibrate runs the same run prints no note, and
  # its cores take a share.
  pa=(--mode mono --morph synthetic:medium-high --neurons 256000 --hh none --steps 100 --force)
  for when in before after; do
    if [ $when = after ]; then for pass in 1 2; do timeout 120 "$H" --quiet "${pa[@]}" --calibrate > $out/c.log 2>&1 || echo "FAIL calibration"; done; fi
    timeout 120 "$H" "${pa[@]}" --json $out/t.json > $out/n.log 2>&1 || echo "FAIL run $when: $(tail -2 $out/n.log)"
    echo "$when: $(grep -c 'note: the CPU workers take no share' $out/n.log) note(s); $(grep -o '"cpu_share_uncalibrated": [a-z]*\|"cpu_share_neurons": [0-9]*\|"seconds_per_step": [0-9.e-]*' $out/t.json | paste -sd' ')"
    grep "note:" $out/n.log
  done
  rm -f $out/c.log $out/n.log $out/t.json
fi
if [ "$mode" = weak29 ]; then
  # (the one-GPU machine) the mid-range default share's weak spots and its bits with HH: in a
  # fresh STARPU_HOME, HH small-low 600,000 calibrated (two runs), then CPU + GPU against the GPU
  # alone, probes and spikes compared (bits28); four rounds each of HH medium-high 128,000 and
  # 200,000 (defaults, 300 steps); then the first run of HH medium-high 170,000, a size no run
  # of the call measured.
  cores() { grep -o '"tasks_on_cpus": [0-9-]*\|"cpu_share_neurons": [0-9-]*\|"interleaved_chunks": [0-9]*\|"layout": "[a-z]*"' $out/t.json 2>/dev/null | paste -sd' '; }
  b=monoc-small-low-600000-hh
  rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; cores; done
  bits28 small-low 600000 all 70
  rounds26 monoc-medium-high-128000-hh 4 --steps 300
  rounds26 monoc-medium-high-200000-hh 4 --steps 300
  rep=1; ROW_NCPU=all row 1 monoc-medium-high-170000-hh cpu+gpu-unseen -- --steps 300; cores; row 1 monoc-medium-high-170000-hh gpu -- --steps 300
  find $STARPU_HOME -name "hinestask-sizes*" -exec cp {} $out/ \;
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = more29 ]; then
  # (the one-GPU machine) the default share from 30 M with 100,000 neurons on more batches the
  # rule was not drawn from (in a fresh STARPU_HOME, two calibration runs each, then rounds of
  # CPU + GPU against the GPU alone, no option): HH medium-high 200,000 (63.8 M), passive
  # small-high 800,000 (61 M), HH medium-low 100,000 (30.5 M), hh + km medium-high 140,000; then
  # a trace of the default run of HH medium-low 150,000 (46 M, 80 steps, probes) and its summary.
  cores() { grep -o '"tasks_on_cpus": [0-9-]*\|"cpu_share_neurons": [0-9-]*\|"interleaved_chunks": [0-9]*\|"layout": "[a-z]*"' $out/t.json 2>/dev/null | paste -sd' '; }
  rounds26 monoc-medium-high-200000-hh 2 --steps 300
  rounds26 monoc-small-high-800000 2
  rounds26 monoc-medium-low-100000-hh 2 --steps 300
  rounds29 monoc-medium-high-140000-hh km 2 300 --channels hh:all,km:all
  rounds26 monoc-medium-low-150000-hh 1 --steps 300
  mono_trace trace-hh-mid "hinestask defaults, HH medium-low 150,000 (46 M), H200 + 15 CPU workers, calibrated dmdas" --morph synthetic:medium-low --neurons 150000 --hh all --probe 0:0 --probe 120000:5
  find $STARPU_HOME -name "hinestask-sizes*" -exec cp {} $out/ \;
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = km29 ]; then
  # (the one-GPU machine) the cores' share with a second and third mechanism once the CPU
  # kernel vectorises any channel set (27fc3d3): in a fresh STARPU_HOME, for each set two
  # calibration runs and rounds of CPU + GPU against the GPU alone, no other option, 300 steps:
  # hh and km everywhere at medium-high 256,000 (robust28 before: 1.009-1.013x) and 128,000,
  # hh, km and ih everywhere at 256,000; same bits with the share active (probes, spikes).
  cores() { grep -o '"tasks_on_cpus": [0-9-]*\|"cpu_share_neurons": [0-9-]*\|"interleaved_chunks": [0-9]*' $out/t.json 2>/dev/null | paste -sd' '; }
  rounds29 monoc-medium-high-256000-hh km 3 300 --channels hh:all,km:all
  bits29 medium-high 256000 --channels hh:all,km:all
  rounds29 monoc-medium-high-256000-hh kmih 2 300 --channels hh:all,km:all,ih:all
  rounds29 monoc-medium-high-128000-hh km 2 300 --channels hh:all,km:all
  bits29 medium-high 128000 --channels hh:all,km:all,ih:all
  find $STARPU_HOME -name "hinestask-sizes*" -exec cp {} $out/ \;
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = mid29b ]; then
  # (the one-GPU machine) the default share from 30 M with 100,000 neurons or more (mid29's
  # rule) on sizes and classes mid29 did not run: in a fresh STARPU_HOME two calibration runs
  # (defaults) and three rounds of CPU + GPU against the GPU alone, no option; passive 1,000
  # steps, HH 300; same bits with the share active (probes, spikes). The size models come back.
  cores() { grep -o '"tasks_on_cpus": [0-9-]*\|"cpu_share_neurons": [0-9-]*\|"interleaved_chunks": [0-9]*\|"layout": "[a-z]*"' $out/t.json 2>/dev/null | paste -sd' '; }
  for b in medium-high-110000 small-low-450000 medium-low-120000; do rounds26 monoc-$b 3; done
  bits28 medium-high 110000 none
  for b in medium-high-140000 medium-low-150000 small-low-600000; do rounds26 monoc-$b-hh 3 --steps 300; done
  bits28 small-low 600000 all 70
  rounds26 monoc-big-high-90000 1
  find $STARPU_HOME -name "hinestask-sizes*" -exec cp {} $out/ \;
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = mid29 ]; then
  # (the one-GPU machine) where below 64 M the cores' share pays: the GPU alone hardly speeds up
  # below about 64,000 neurons (one thread a neuron, latency-bound: wide28's medium-high 25,600
  # ran 0.354 ms a step, 64,000 0.42), so taking neurons from it gains little there. Two
  # calibration runs with --cpu-share on, then three rounds of CPU + GPU with the share against
  # the GPU alone (its defaults), passive (1,000 steps) and HH (300 steps), 30-55 M compartments
  # with 48,000 to 512,000 neurons. The size models' file comes back.
  cores() { grep -o '"tasks_on_cpus": [0-9-]*\|"cpu_share_neurons": [0-9-]*\|"interleaved_chunks": [0-9]*\|"layout": "[a-z]*"' $out/t.json 2>/dev/null | paste -sd' '; }
  for b in medium-high-100000 medium-high-128000 medium-high-160000 small-high-400000 small-high-512000 big-high-48000 big-high-64000 big-low-64000; do
    rounds27 monoc-$b 3 1000
  done
  for b in medium-high-128000 medium-high-160000 small-high-512000 big-high-64000; do
    rounds27 monoc-$b-hh 3 300
  done
  find $STARPU_HOME -name "hinestask-sizes*" -exec cp {} $out/ \;
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = wide28 ]; then
  # (the one-GPU machine) the cores' share with the GPU's chunks stored interleaved (8dac6b2):
  # same bits (passive, share_start; HH with probes and spikes: CPU + GPU with the share against
  # the GPU alone); then, two calibration runs with --cpu-share on and rounds of CPU + GPU with the
  # share against the GPU alone (its defaults): HH medium-high 256,000, big-high 128,000,
  # small-high 1,000,000, medium-high 64,000 (300 steps), passive medium-high 64,000 and 25,600
  # (1,000 steps). The size models' file comes back.
  share_start
  pa=(--mode mono --morph synthetic:medium-high --neurons 100000 --hh all --steps 400 --stim-amp 1 --probe 0:0 --probe 70000:5 --probe 99999:300 --probe-every 0.2 --spike-threshold 0)
  timeout 120 "$H" --quiet --force "${pa[@]}" --cpu-share on --probes $out/p_both.csv --spikes $out/s_both.csv --json $out/t.json > $out/c.log 2>&1 || echo "FAIL hh cpu+gpu $(tail -1 $out/c.log)"; cores; grep -o '"interleaved_chunks": [0-9]*\|"layout": "[a-z]*"' $out/t.json | paste -sd' '
  STARPU_NCPU=0 timeout 120 "$H" --quiet --force "${pa[@]}" --probes $out/p_gpu.csv --spikes $out/s_gpu.csv > $out/c.log 2>&1 || echo "FAIL hh gpu $(tail -1 $out/c.log)"
  echo "spikes: $(wc -l < $out/s_gpu.csv) lines"
  cmp -s $out/p_both.csv $out/p_gpu.csv && cmp -s <(sort $out/s_both.csv) <(sort $out/s_gpu.csv) && echo "PASS mono HH: CPU + GPU (share, GPU chunks interleaved) identical to the GPU alone (probes, spikes)" || echo "FAIL mono HH probes or spikes differ"
  rm -f $out/p_*.csv $out/s_*.csv $out/c.log
  rounds27 monoc-medium-high-256000-hh 3 300
  rounds27 monoc-big-high-128000-hh 2 300
  rounds27 monoc-small-high-1000000-hh 2 300
  rounds27 monoc-medium-high-64000-hh 2 300
  rounds27 monoc-medium-high-64000 2 1000
  rounds27 monoc-medium-high-25600 2 1000
  find $STARPU_HOME -name "hinestask-sizes*" -exec cp {} $out/ \;
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = hh27 ]; then
  # (the one-GPU machine) where the HH share loses: for three HH batches, two calibration runs
  # with --cpu-share on, then CPU + GPU with the share (blocks) against the GPU alone in blocks
  # and interleaved (its default), 300 steps, two rounds.
  for b in monoc-small-high-1000000-hh monoc-big-high-128000-hh monoc-medium-high-256000-hh; do
    rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate --cpu-share on; cores; done
    for rep in 1 2; do
      ROW_NCPU=all row 1 $b cpu+gpu-share -- --steps 300 --cpu-share on; cores
      row 1 $b gpu-block -- --steps 300 --layout block
      row 1 $b gpu-interleaved -- --steps 300
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = robust27 ]; then
  # (the one-GPU machine) the default share where users may meet it otherwise: same bits; in a
  # fresh STARPU_HOME CPU + GPU against the GPU alone before any calibration (no share: nothing
  # measured), then after two calibration runs: probes every 0.3 ms (12 steps: rounds of 8 and
  # 4), a window of 1, lws and eager (no share under greedy schedulers), 333 steps (a last round
  # of 4), medium-high 256,000; big-high 256,000 over 333 steps after its calibration.
  share_start
  b=monoc-medium-high-256000
  rep=0; ROW_NCPU=all row 1 $b cpu+gpu-uncalibrated -- --steps 500; cores; row 1 $b gpu -- --steps 500
  for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; cores; done
  pr=(--probe 0:0 --probe 200000:5 --probe-every 0.3 --probes $out/pr.csv)
  rep=1; ROW_NCPU=all row 1 $b cpu+gpu-probes -- "${pr[@]}"; cores; row 1 $b gpu-probes -- "${pr[@]}"; rm -f $out/pr.csv
  rep=1; ROW_NCPU=all row 1 $b cpu+gpu-window1 -- --window 1; cores; row 1 $b gpu-window1 -- --window 1
  rep=1; ROW_NCPU=all row 1 $b cpu+gpu-333 -- --steps 333; cores; row 1 $b gpu-333 -- --steps 333
  for sched in lws eager; do
    export STARPU_SCHED=$sched
    rep=1; ROW_NCPU=all row 1 $b cpu+gpu-$sched; cores; row 1 $b gpu-$sched
  done
  unset STARPU_SCHED
  b=monoc-big-high-256000
  rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; cores; done
  rep=1; ROW_NCPU=all row 1 $b cpu+gpu-333 -- --steps 333; cores; row 1 $b gpu-333 -- --steps 333
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = default27 ]; then
  # (the one-GPU machine) the defaults after the cores' share for every batch of 64 M
  # compartments or more on one GPU, HH included (placement_cpus_share), no upper bound: same
  # bits; in a fresh STARPU_HOME two calibration runs then rounds of CPU + GPU against the GPU
  # alone (hinestask's defaults, no option) for medium-high 256,000 (1,000 and 300 steps), the
  # first run at 512,000 (a size never seen), big-high 256,000 and medium-high 1,024,000 (500
  # steps), big-high 512,000 (300), small-high 1,000,000 (1,000), HH: medium-high 256,000,
  # big-high 128,000, small-high 1,000,000 (300); a trace of the default big-high 256,000 over 500
  # steps. The size models' file comes back.
  share_start
  rounds26 monoc-medium-high-256000 3
  rep=4; ROW_NCPU=all row 1 monoc-medium-high-256000 cpu+gpu-300 -- --steps 300; cores; row 1 monoc-medium-high-256000 gpu-300 -- --steps 300
  rep=1; ROW_NCPU=all row 1 monoc-medium-high-512000 cpu+gpu-unseen -- --steps 500; cores; row 1 monoc-medium-high-512000 gpu -- --steps 500
  rounds26 monoc-big-high-256000 2 --steps 500
  rounds26 monoc-medium-high-1024000 3 --steps 500
  rounds26 monoc-big-high-512000 2 --steps 300
  rounds26 monoc-medium-high-256000-hh 2 --steps 300
  rounds26 monoc-big-high-128000-hh 2 --steps 300
  rounds26 monoc-small-high-1000000-hh 1 --steps 300
  rounds26 monoc-small-high-1000000 2
  d=$out/trace-big-high-default
  PATH="$bundle/bin:$PATH" timeout 150 "$H" --quiet --mode mono --morph synthetic:big-high --neurons 256000 --steps 500 --probe 0:0 --probe 200000:5 --probe-every 0.2 --probes $out/tp.csv --json $out/trace.json --trace $d > $out/c.log 2>&1 || echo "FAIL trace $(tail -2 $out/c.log)"
  python3 $bundle/trace_report.py $d --until-last-task --png $d-gantt.png --title "hinestask defaults, big-high 256,000, 500 steps, H200 + 15 CPU workers, calibrated dmdas" > $d-summary.txt 2>&1; grep -v "^CUDA 0\\|^CPU [0-9]" $d-summary.txt
  grep -o '"cpu_share_neurons": [0-9]*\\|"seconds_per_step": [0-9.e-]*\\|"tasks_on_cpus": [0-9]*' $out/trace.json | paste -sd' '
  tar -C $out -czf $out/trace-big-high-default.tar.gz trace-big-high-default/paje.trace trace-big-high-default/tasks.rec trace-big-high-default/data.rec trace-big-high-default-summary.txt $(cd $out && ls trace-big-high-default-gantt.png 2>/dev/null) trace.json
  rm -rf $d $out/tp.csv $out/c.log $out/trace.json $d-summary.txt $d-gantt.png
  find $STARPU_HOME -name "hinestask-sizes*" -exec cp {} $out/ \;
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share27 ]; then
  # (the one-GPU machine) after one step kind for every task of several steps (a run's last round
  # of 3 steps no longer a kind nothing measured): same bits; the cores' share (--cpu-share on)
  # against the GPU alone (its defaults) over step counts whose last round is short (300, 500)
  # and 1,000, for batches inside and outside the 64-170 M default: big-high 256,000 (177 M),
  # medium-high 1,024,000 (327 M), 256,000 (82 M), 64,000 (20 M), 25,600 (8 M), big-low 100,000
  # (70 M), and medium-high 256,000 with HH. The size models' file comes back.
  share_start
  rounds27 monoc-big-high-256000 2 500
  rep=3; ROW_NCPU=all row 1 monoc-big-high-256000 cpu+gpu-share-1000 -- --steps 1000 --cpu-share on; cores; row 1 monoc-big-high-256000 gpu-1000 -- --steps 1000
  rounds27 monoc-medium-high-1024000 2 300
  rounds27 monoc-medium-high-256000 2 300
  rounds27 monoc-big-low-100000 2 500
  rounds27 monoc-medium-high-64000 2 1000
  rounds27 monoc-medium-high-25600 2 1000
  rounds27 monoc-medium-high-256000-hh 2 300
  find $STARPU_HOME -name "hinestask-sizes*" -exec cp {} $out/ \;
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = diag27b ]; then
  # (the one-GPU machine) diag27's share of big-high 256,000 ran 1.12x over 160 steps (a trace)
  # and 0.79x over 500: in a fresh STARPU_HOME two calibration runs with --cpu-share on, CPU + GPU
  # with the share against the GPU alone over 160, 500 and 1,000 steps, and a trace of 500 steps
  # (tasks.rec comes back: scripts/bench/share_rounds.py reads it round by round).
  b=monoc-big-high-256000
  rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate --cpu-share on; cores; done
  for st in 160 500 1000; do rep=$st; ROW_NCPU=all row 1 $b cpu+gpu-share -- --steps $st --cpu-share on; cores; row 1 $b gpu -- --steps $st; done
  for st in 500 160; do
    d=$out/trace-$st
    PATH="$bundle/bin:$PATH" timeout 150 "$H" --quiet --mode mono --morph synthetic:big-high --neurons 256000 --hh none --steps $st --cpu-share on --json $out/trace-$st.json --trace $d > $out/c.log 2>&1 || echo "FAIL trace $(tail -2 $out/c.log)"
    python3 $bundle/trace_report.py $d --until-last-task > $d-summary.txt 2>&1; grep -v "^CUDA 0" $d-summary.txt
    grep -o '"cpu_share_neurons": [0-9]*\|"seconds_per_step": [0-9.e-]*\|"tasks_on_cpus": [0-9]*' $out/trace-$st.json | paste -sd' '
    mv $d/tasks.rec $out/tasks-$st.rec; gzip $out/tasks-$st.rec; rm -rf $d $out/c.log
  done
  find $STARPU_HOME -name "hinestask-sizes*" -exec cp {} $out/ \;
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = diag27 ]; then
  # (the one-GPU machine) why the cores' share of big-high 256,000 (177 M) ran 0.75-0.78x in
  # final26: the host's CPUs; two calibration runs with --cpu-share on and one round over 500
  # steps; a trace of the share run (160 steps, every worker's line); the cores alone (15 CPU
  # workers, no GPU) on the share's chunks (248 neurons a chunk, 8 steps a task, blocks) and on
  # medium-high's (224), and one core alone on each: a core's rate with and without the GPU's
  # workers beside it. The size models' file comes back.
  lscpu > $out/lscpu.txt 2>&1; nproc >> $out/lscpu.txt
  share_start
  b=monoc-big-high-256000
  rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate --cpu-share on; cores; done
  rep=1; ROW_NCPU=all row 1 $b cpu+gpu-share -- --steps 500 --cpu-share on; cores; row 1 $b gpu -- --steps 500
  d=$out/trace-big-high-share
  PATH="$bundle/bin:$PATH" timeout 150 "$H" --quiet --mode mono --morph synthetic:big-high --neurons 256000 --hh none --steps 160 --cpu-share on --json $out/trace.json --trace $d > $out/c.log 2>&1 || echo "FAIL trace $(tail -2 $out/c.log)"
  python3 $bundle/trace_report.py $d --until-last-task > $d-summary.txt 2>&1; cat $d-summary.txt
  grep -o '"cpu_share_neurons": [0-9]*\|"seconds_per_step": [0-9.e-]*' $out/trace.json | paste -sd' '
  tar -C $out -czf $out/trace-big-high-share.tar.gz trace-big-high-share/paje.trace trace-big-high-share/tasks.rec trace-big-high-share-summary.txt trace.json
  rm -rf $d $out/trace.json $out/c.log $d-summary.txt
  for spec in big-high:248:14880 medium-high:224:13440; do
    IFS=: read cls per total <<< "$spec"
    for w in 15 1; do
      tot=$total; [ $w = 1 ] && tot=$((per * 4))
      STARPU_NCUDA=0 STARPU_NCPU=$w timeout 120 "$H" --quiet --force --mode mono --morph synthetic:$cls --neurons $tot --hh none --steps 160 --task-neurons $per --task-steps 8 --layout block --json $out/t.json > $out/t.log 2>&1 || echo "FAIL cores $(tail -1 $out/t.log)"
      python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print("cores-alone %s workers=%s neurons=%s: %.4f ms/step, %.3f G/s in all, %.3f G/s a core"%(sys.argv[2],sys.argv[3],sys.argv[4],j["seconds_per_step"]*1e3,j["compartment_solves_per_s"]/1e9,j["compartment_solves_per_s"]/1e9/int(sys.argv[3])))' $out/t.json $cls $w $tot
    done
  done
  find $STARPU_HOME -name "hinestask-sizes*" -exec cp {} $out/ \;
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = final26b ]; then
  # (the one-GPU machine) final26 after one chunk a GPU beside the cores' share: same bits; in a
  # fresh STARPU_HOME big-high 256,000 over 500 steps (two calibration runs, two rounds), 256,000
  # medium-high (three rounds), a trace of its default CPU + GPU run, medium-high 1,024,000 over
  # 500 steps and small-high 1,000,000 (two rounds each), the first runs at 512,000.
  share_start
  rounds26 monoc-big-high-256000 2 --steps 500
  rounds26 monoc-medium-high-256000 3
  share_trace
  rounds26 monoc-medium-high-1024000 2 --steps 500
  rounds26 monoc-small-high-1000000 2
  rep=1; ROW_NCPU=all row 1 monoc-medium-high-512000 cpu+gpu-unseen; cores; row 1 monoc-medium-high-512000 gpu
  find $STARPU_HOME -name "hinestask-sizes*" -exec cp {} $out/ \;
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = final26 ]; then
  # (the one-GPU machine) the cores' share in four chunks a core, a GPU's prediction for them
  # adding more than a core's round (size_model.c, HOME_CPUS): same bits; in a fresh
  # STARPU_HOME two calibration runs at 256,000 medium-high, six rounds of CPU + GPU against the
  # GPU alone, a trace of the default CPU + GPU run, the first runs at 512,000 (never seen);
  # big-high 256,000 and medium-high 1,024,000 over 500 steps (two calibration runs, three
  # rounds), small-high 1,000,000 (two rounds). The size models' file comes back.
  share_start
  rounds26 monoc-medium-high-256000 6
  share_trace
  rep=1; ROW_NCPU=all row 1 monoc-medium-high-512000 cpu+gpu-unseen; cores; row 1 monoc-medium-high-512000 gpu
  for b in monoc-big-high-256000 monoc-medium-high-1024000; do rounds26 $b 3 --steps 500; done
  rounds26 monoc-small-high-1000000 2
  find $STARPU_HOME -name "hinestask-sizes*" -exec cp {} $out/ \;
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = chunks26 ]; then
  # (the one-GPU machine) the cores' share in four chunks a core (placement.h,
  # PLACEMENT_CPU_CHUNKS_PER_CORE), the defaults otherwise: same bits (share against the GPU
  # alone); in a fresh STARPU_HOME two calibration runs at 256,000 medium-high, eight rounds of
  # CPU + GPU against the GPU alone, the first runs at 512,000 (a size never seen), a trace of
  # the default CPU + GPU run at 256,000; small-high 1,000,000, big-high 256,000 and medium-high
  # 1,024,000 (two calibration runs, two rounds each); --cpu-share on at 25,600. The size models'
  # file comes back.
  share_start
  rounds26 monoc-medium-high-256000 8
  rep=1; ROW_NCPU=all row 1 monoc-medium-high-512000 cpu+gpu-unseen; cores; row 1 monoc-medium-high-512000 gpu
  share_trace
  rounds26 monoc-small-high-1000000 2
  for b in monoc-big-high-256000 monoc-medium-high-1024000; do rounds26 $b 2 --steps 300; done
  b=monoc-medium-high-25600
  rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate-share -- --cpu-share on --steps 200 --calibrate; cores; done
  for rep in 1 2; do ROW_NCPU=all row 1 $b cpu+gpu-share -- --cpu-share on; cores; row 1 $b gpu; done
  find $STARPU_HOME -name "hinestask-sizes*" -exec cp {} $out/ \;
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = default26 ]; then
  # (the one-GPU machine) the defaults after the cores' home, the share from 64 M passive
  # compartments on one GPU: in a fresh STARPU_HOME, two calibration runs at 256,000 medium-high,
  # then the first runs of a size never seen (512,000) against the GPU alone; 256,000 six
  # rounds; a trace of the default CPU + GPU run at 256,000; then small-high 1,000,000 (76 M),
  # big-high 256,000 (177 M) and medium-high 1,024,000 (327 M), two calibration runs and two
  # rounds each; --cpu-share on with the layout left to hinestask (blocks now) at 25,600 and
  # with HH, against the GPU alone by default. The JSON's layout and the cores' tasks after
  # each CPU + GPU row.
  cores() { grep -o '"tasks_on_cpus": [0-9-]*\|"layout": "[a-z]*"\|"cpu_share": "[a-z]*"' $out/t.json 2>/dev/null | paste -sd' '; }
  b=monoc-medium-high-256000
  rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; cores; done
  rep=1; ROW_NCPU=all row 1 monoc-medium-high-512000 cpu+gpu-unseen; cores; row 1 monoc-medium-high-512000 gpu
  for rep in 1 2 3 4 5 6; do ROW_NCPU=all row 1 $b cpu+gpu; cores; row 1 $b gpu; done
  share_trace
  for b in monoc-small-high-1000000 monoc-big-high-256000 monoc-medium-high-1024000; do
    st=(); case $b in monoc-big-high-256000|*-1024000) st=(--steps 300) ;; esac
    rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; cores; done
    for rep in 1 2; do ROW_NCPU=all row 1 $b cpu+gpu -- "${st[@]}"; cores; row 1 $b gpu -- "${st[@]}"; done
  done
  for b in monoc-medium-high-25600 monoc-medium-high-256000-hh; do
    st=(); case $b in *-hh) st=(--steps 300) ;; esac
    rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate-share -- --cpu-share on --steps 200 --calibrate; cores; done
    for rep in 1 2; do ROW_NCPU=all row 1 $b cpu+gpu-share -- --cpu-share on "${st[@]}"; cores; row 1 $b gpu -- "${st[@]}"; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = home26 ]; then
  # (the one-GPU machine) the cores' chunks kept at home (codelets/size_model.c, HOME_CPUS):
  # same bits (CPU + GPU with a share against the GPU alone, passive and HH); then, per batch,
  # two calibration runs with --cpu-share on, and rounds of CPU + GPU with the share against the
  # GPU alone, both with hinestask's defaults otherwise (blocks from 64 M compartments): 256,000
  # medium-high (82 M) eight rounds, six more batches two rounds, two of them in blocks too.
  for hh in none all; do
    pa=(--mode mono --morph synthetic:medium-high --neurons 100000 --hh $hh --steps 160 --probe 0:0 --probe 60000:5 --probe 99999:300 --probe-every 0.2 --stim-amp 1)
    timeout 120 "$H" --quiet --force "${pa[@]}" --cpu-share on --probes $out/p_both.csv --json $out/t.json > $out/c.log 2>&1 || echo "FAIL cpu+gpu probes $(tail -1 $out/c.log)"; cores
    STARPU_NCPU=0 timeout 120 "$H" --quiet --force "${pa[@]}" --probes $out/p_gpu.csv > $out/c.log 2>&1 || echo "FAIL gpu probes $(tail -1 $out/c.log)"
    cmp -s $out/p_both.csv $out/p_gpu.csv && echo "PASS mono hh=$hh: CPU + GPU (share) identical to the GPU alone" || echo "FAIL mono hh=$hh probes differ"
  done
  rm -f $out/p_*.csv $out/c.log
  home_rounds() { # BATCH ROUNDS LABEL-SUFFIX [options...]
    local b=$1 rounds=$2 x=$3 st=(); shift 3
    case $b in *-hh) st=(--steps 300) ;; esac
    rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate$x -- --cpu-share on "$@" --steps 200 --calibrate; cores; done
    for rep in $(seq $rounds); do ROW_NCPU=all row 1 $b cpu+gpu-share$x -- --cpu-share on "$@" "${st[@]}"; cores; row 1 $b gpu$x -- "$@" "${st[@]}"; done
  }
  home_rounds monoc-medium-high-256000 8 ""
  for b in monoc-medium-high-25600 monoc-medium-high-256000-hh monoc-small-high-1000000 monoc-big-high-256000 monoc-medium-high-512000 monoc-medium-high-100000; do home_rounds $b 2 ""; done
  for b in monoc-medium-high-25600 monoc-medium-high-256000-hh; do home_rounds $b 2 -block --layout block; done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = repeat25 ]; then
  # (the one-GPU machine) default25's CPU + GPU against the GPU alone again, more rounds, in a
  # fresh STARPU_HOME: 256,000 (four rounds) and 1,024,000 medium-high (two).
  for b in monoc-medium-high-256000 monoc-medium-high-1024000; do
    st=(); rounds=4; case $b in *-1024000) st=(--steps 300); rounds=2 ;; esac
    rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; cores; done
    for rep in $(seq $rounds); do ROW_NCPU=all row 1 $b cpu+gpu -- "${st[@]}"; cores; row 1 $b gpu -- "${st[@]}"; done
  done
fi
if [ "$mode" = two25 ]; then
  # (the two-GPU machine) the large-batch rule over two GPUs with StarPU's CPU workers (30):
  # 512,000 and 1,024,000 medium-high (82 M and 163 M a GPU: blocks and the cores' share) as in
  # default25; 256,000 (41 M a GPU: interleaved) against blocks, and 16 tasks over both GPUs
  # against one task on one GPU.
  for b in monoc-medium-high-512000 monoc-medium-high-1024000; do share_rounds 2 $b 2; done
  b=monoc-medium-high-256000
  for rep in 1 2; do
    row 2 $b gpu -- ; row 2 $b gpu-block -- --layout block
    row 2 $b gpu-16tasks -- --task-neurons 16000; row 1 $b gpu1-1task -- --task-neurons 256000
  done
fi
if [ "$mode" = default25 ]; then
  # (the one-GPU machine) the defaults after the large-batch rule (a passive batch of 64 M
  # compartments a GPU or more: blocks, and the cores' share at 8 steps a task): per batch the
  # first CPU + GPU run on the models the call holds, two calibration runs, then CPU + GPU
  # against the GPU alone (both by default), two rounds, and the GPU alone interleaved (the old
  # default) once. Then the same bits at 256,000 (CPU + GPU, calibrated, against the GPU alone)
  # and a trace of the default CPU + GPU run at 256,000.
  for b in monoc-medium-high-256000 monoc-big-high-256000 monoc-small-high-1000000 monoc-medium-high-512000 monoc-medium-high-25600 monoc-medium-high-256000-hh; do
    share_rounds 1 $b 2
  done
  pa=(--mode mono --morph synthetic:medium-high --neurons 256000 --hh none --steps 400 --probe 0:0 --probe 200000:5 --probe 255999:300 --probe-every 0.2 --stim-amp 1)
  timeout 120 "$H" --quiet --force "${pa[@]}" --probes $out/p_both.csv --json $out/t.json > $out/c.log 2>&1 || echo "FAIL cpu+gpu probes $(tail -1 $out/c.log)"; cores
  STARPU_NCPU=0 timeout 120 "$H" --quiet --force "${pa[@]}" --probes $out/p_gpu.csv > $out/c.log 2>&1 || echo "FAIL gpu probes $(tail -1 $out/c.log)"
  cmp -s $out/p_both.csv $out/p_gpu.csv && echo "PASS 256,000 passive: CPU + GPU (share) identical to the GPU alone" || echo "FAIL probes differ"
  rm -f $out/p_*.csv $out/c.log
  d=$out/trace-cpu-gpu-256000
  PATH="$bundle/bin:$PATH" timeout 150 "$H" --quiet --mode mono --morph synthetic:medium-high --neurons 256000 --steps 80 --probe 0:0 --probe 200000:5 --probe-every 0.2 --probes $out/tp.csv --json $out/trace.json --trace $d > $out/c.log 2>&1 || echo "FAIL trace $(tail -2 $out/c.log)"
  python3 $bundle/trace_report.py $d --until-last-task --png $d-gantt.png --title "hinestask defaults, 256,000 medium-high, H200 + 15 CPU workers, calibrated dmdas" > $d-summary.txt 2>&1; cat $d-summary.txt
  tar -C $out -czf $out/trace-cpu-gpu-256000.tar.gz trace-cpu-gpu-256000/paje.trace trace-cpu-gpu-256000/tasks.rec trace-cpu-gpu-256000/data.rec trace-cpu-gpu-256000-summary.txt $(cd $out && ls trace-cpu-gpu-256000-gantt.png 2>/dev/null) trace.json
  rm -rf $d $out/tp.csv $out/c.log $out/t.json $out/t.log $out/trace.json $d-summary.txt $d-gantt.png
fi
if [ "$mode" = steps25b ]; then
  # (the one-GPU machine) after steps25, with the tasks' steps in the step model's kind: CPU
  # workers alone in blocks at 1 and 8 steps a task (what a step costs a core either way); then
  # per batch, for K = 1 and 8, two calibration runs and two of CPU + GPU with a share
  # (--cpu-share on, block), and the GPU alone in blocks and interleaved, two rounds.
  rep=1; for k in 1 8; do ROW_NCPU=all row 0 monoc-medium-high-25600 cpus-k$k -- --layout block --task-steps $k --steps 100; ROW_NCPU=all row 0 monoc-small-high-256000 cpus-k$k -- --layout block --task-steps $k --steps 100; done
  blk=(--layout block --cpu-share on)
  for b in monoc-medium-high-256000 monoc-medium-high-512000 monoc-medium-high-25600 monoc-small-high-256000 monoc-medium-high-256000-hh monoc-big-high-256000; do
    st=(); case $b in *-hh) st=(--steps 300) ;; esac
    for k in 1 8; do
      rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate-k$k -- "${blk[@]}" --task-steps $k --steps 200 --calibrate; cores; done
      for rep in 1 2; do ROW_NCPU=all row 1 $b cpu+gpu-share-k$k -- "${blk[@]}" --task-steps $k "${st[@]}"; cores; done
    done
    for rep in 1 2; do
      row 1 $b gpu-block -- --layout block "${st[@]}"
      row 1 $b gpu-default -- "${st[@]}"
    done
  done
fi
if [ "$mode" = steps25 ]; then
  # (the one-GPU machine) CPU workers' share (--cpu-share on, block layout) with tasks of K
  # steps for every chunk (--task-steps 1, 4, 8, 16) against the GPU alone in blocks and
  # interleaved (its defaults), six batches below and above the share's 150 M rule; per batch two
  # calibration runs (share on, 8 steps), then two rounds. First the same bits: probes of CPU +
  # GPU with a share at 8 steps a task against the GPU alone, passive and HH.
  for hh in none all; do
    pa=(--mode mono --morph synthetic:medium-high --neurons 100000 --hh $hh --steps 160 --probe 0:0 --probe 60000:5 --probe 99999:300 --probe-every 0.2 --stim-amp 1)
    timeout 120 "$H" --quiet --force "${pa[@]}" --layout block --cpu-share on --task-steps 8 --probes $out/p_both.csv --json $out/t.json > $out/c.log 2>&1 || echo "FAIL cpu+gpu probes $(tail -1 $out/c.log)"; cores
    STARPU_NCPU=0 timeout 120 "$H" --quiet --force "${pa[@]}" --probes $out/p_gpu.csv > $out/c.log 2>&1 || echo "FAIL gpu probes $(tail -1 $out/c.log)"
    cmp -s $out/p_both.csv $out/p_gpu.csv && echo "PASS mono hh=$hh: CPU + GPU (share, 8 steps a task) identical to the GPU alone" || echo "FAIL mono hh=$hh probes differ"
  done
  rm -f $out/p_*.csv $out/c.log
  blk=(--layout block --cpu-share on)
  for b in monoc-medium-high-256000 monoc-medium-high-25600 monoc-small-high-256000 monoc-big-high-32000 monoc-medium-high-256000-hh monoc-medium-high-512000; do
    st=(); case $b in *-hh) st=(--steps 300) ;; esac
    rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- "${blk[@]}" --task-steps 8 --steps 200 --calibrate; cores; done
    for rep in 1 2; do
      for k in 1 4 8 16; do ROW_NCPU=all row 1 $b cpu+gpu-share-k$k -- "${blk[@]}" --task-steps $k "${st[@]}"; cores; done
      row 1 $b gpu-block -- --layout block "${st[@]}"
      row 1 $b gpu-default -- "${st[@]}"
    done
  done
fi
if [ "$mode" = share24 ] || [ "$mode" = share24b ]; then
  # (the one-GPU machine) after hetero24: CPU workers beside the GPU get a share only when a GPU
  # chunk is predicted at 1.5 ms or more (placement_cpus_share). Per batch, two calibration runs
  # in blocks, then CPU + GPU against the GPU alone in blocks, two rounds; the default
  # (interleaved) both ways once. Then a trace of CPU + GPU in blocks at 512,000 neurons.
  blk=(--layout block)
  batches="monoc-medium-high-512000 monoc-medium-high-256000-hh monoc-medium-high-384000 monoc-medium-high-1024000 monoc-medium-high-256000 monoc-big-high-32000 monoc-small-high-256000 monoc-medium-high-25600"
  # share24b: the rule by compartments (150 M passive a GPU); 512,000 again at the end, after
  # the other batches' measurements
  [ "$mode" = share24b ] && batches="monoc-medium-high-512000 monoc-medium-high-1024000 monoc-medium-high-384000 monoc-medium-high-256000 monoc-medium-high-25600 monoc-medium-high-256000-hh monoc-medium-high-512000"
  for b in $batches; do
    st=(); case $b in *-hh|*-1024000) st=(--steps 300) ;; esac
    rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- "${blk[@]}" --steps 100 --calibrate; cores; done
    for rep in 1 2; do
      ROW_NCPU=all row 1 $b cpu+gpu-block -- "${blk[@]}" "${st[@]}"; cores
      row 1 $b gpu-block -- "${blk[@]}" "${st[@]}"
    done
    rep=1; [ "$mode" = share24 ] && { ROW_NCPU=all row 1 $b cpu+gpu-default -- "${st[@]}"; cores; }
    row 1 $b gpu-default -- "${st[@]}"
  done
  d=$out/trace-cpu-gpu-512000
  PATH="$bundle/bin:$PATH" timeout 150 "$H" --quiet --mode mono --morph synthetic:medium-high --neurons 512000 --layout block --steps 40 --probe 0:0 --probe 400000:5 --probe-every 0.025 --probes $out/tp.csv --json $out/trace.json --trace $d > $out/c.log 2>&1 || echo "FAIL trace $(tail -2 $out/c.log)"
  python3 $bundle/trace_report.py $d --png $d-gantt.png --title "hinestask --layout block, 512,000 medium-high, H200 + 15 CPU workers, calibrated dmdas" > $d-summary.txt 2>&1; cat $d-summary.txt
  tar -C $out -czf $out/trace-cpu-gpu-512000.tar.gz trace-cpu-gpu-512000/paje.trace trace-cpu-gpu-512000/tasks.rec trace-cpu-gpu-512000/data.rec trace-cpu-gpu-512000-summary.txt $(cd $out && ls trace-cpu-gpu-512000-gantt.png 2>/dev/null) trace.json
  rm -rf $d $out/tp.csv $out/c.log $out/t.json $out/t.log
fi
if [ "$mode" = hetero24 ]; then
  # (the one-GPU machine: 16 cores) mono with StarPU's CPU workers beside the GPU now defaults
  # to the block layout (interleaved only for GPU workers alone): per batch, the first default
  # run on whatever models the call has, two calibration runs, then CPU + GPU (default) against
  # the GPU alone (default: interleaved), two rounds; the old default (interleaved) with the
  # cores and the GPU alone in blocks once. Then the same bits (CPU + GPU against the GPU
  # alone, probes) and a trace of the default CPU + GPU run.
  for b in monoc-medium-high-256000 monoc-medium-high-25600 monoc-small-high-256000 monoc-big-high-32000 monoc-medium-high-512000 monoc-medium-high-256000-hh; do
    st=(); case $b in *-hh) st=(--steps 300) ;; esac
    rep=0; ROW_NCPU=all row 1 $b cpu+gpu-first -- "${st[@]}"; cores
    for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 100 --calibrate; cores; done
    for rep in 1 2; do
      ROW_NCPU=all row 1 $b cpu+gpu -- "${st[@]}"; cores
      row 1 $b gpu -- "${st[@]}"
    done
    rep=1; ROW_NCPU=all row 1 $b cpu+gpu-inter -- "${st[@]}" --layout interleaved; cores
    row 1 $b gpu-block -- "${st[@]}" --layout block
  done
  pa=(--mode mono --morph synthetic:medium-high --neurons 256000 --hh all --steps 200 --probe 0:0 --probe 200000:5 --probe 255999:300 --stim-amp 1)
  timeout 120 "$H" --quiet --force "${pa[@]}" --probes $out/p_both.csv > $out/c.log 2>&1 || echo "FAIL cpu+gpu probes $(tail -1 $out/c.log)"
  STARPU_NCPU=0 timeout 120 "$H" --quiet --force "${pa[@]}" --probes $out/p_gpu.csv > $out/c.log 2>&1 || echo "FAIL gpu probes $(tail -1 $out/c.log)"
  cmp -s $out/p_both.csv $out/p_gpu.csv && echo "PASS mono HH: CPU + GPU (block) identical to the GPU alone (interleaved)" || echo "FAIL mono HH probes differ"
  rm -f $out/p_*.csv $out/c.log
  d=$out/trace-cpu-gpu-default
  PATH="$bundle/bin:$PATH" timeout 150 "$H" --quiet --mode mono --morph synthetic:medium-high --neurons 256000 --steps 40 --probe 0:0 --probe 200000:5 --probe-every 0.025 --probes $out/tp.csv --json $out/trace.json --trace $d > $out/c.log 2>&1 || echo "FAIL trace $(tail -2 $out/c.log)"
  python3 $bundle/trace_report.py $d --png $d-gantt.png --title "hinestask default, 256,000 medium-high, H200 + 15 CPU workers, dmdas" > $d-summary.txt 2>&1; cat $d-summary.txt
  tar -C $out -czf $out/trace-cpu-gpu-default.tar.gz trace-cpu-gpu-default/paje.trace trace-cpu-gpu-default/tasks.rec trace-cpu-gpu-default/data.rec trace-cpu-gpu-default-summary.txt $(cd $out && ls trace-cpu-gpu-default-gantt.png 2>/dev/null) trace.json
  rm -rf $d $out/tp.csv $out/c.log $out/t.json $out/t.log
fi
if [ "$mode" = layout23 ]; then
  # mono: the block layout (BS 32) against interleaved (the default) on GPU workers alone, one
  # GPU and two, several classes and sizes, HH; hetero23 measured block 3 % faster at 256,000
  # (and on the dev VM's cores block runs 2-4x faster)
  for rep in 1 2; do
    for b in monoc-medium-high-256000 monoc-medium-high-25600 monoc-medium-high-512000 monoc-small-high-256000 monoc-big-high-32000 monoc-medium-high-256000-hh; do
      st=(); case $b in *-hh) st=(--steps 300) ;; esac
      row 1 $b interleaved -- --layout interleaved "${st[@]}"
      row 1 $b block -- --layout block --block-size 32 "${st[@]}"
    done
    for b in monoc-medium-high-256000 monoc-medium-high-512000; do
      row 2 $b interleaved -- --layout interleaved; row 2 $b block -- --layout block --block-size 32
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = split22 ]; then
  # (prepared for the next session) --level-split 56 against the default 64 on every mix the
  # split also changes: the issue's mixes again, the six cells, CA1 (issue 19's x 500 and
  # x 3,000), random trees, the deep chains, small batches, HH; one GPU and two, 1,000 steps
  # (CA1 400, as args_of gives); checks: CPU and GPU probe files with split 56
  { for spec in large-auto C-auto D-auto; do same_probes $spec; done
  } 2>&1 | tee $out/check.txt
  # a run's fixed cost (about 2.5-4 ms over the first 100 steps with tasks of 8 steps, 0-2 ms
  # with tasks of one; fixed19b): are the chunks sharing a GPU in step at the start, apart at the
  # end? Traced half batch of large cells, one GPU, 100 steps (pj_dump the paje.trace here)
  rep=0; args_of large-3322
  STARPU_NCPU=0 STARPU_NCUDA=1 timeout 120 "$H" --quiet --force "${A[@]}" --trace $out/trace-half > $out/trace.log 2>&1
  rm -f $out/trace-half/hinestask-fxt_* $out/trace-half/dag.dot
  for rep in 1 2; do
    for b in D-7404 C-11720 all15-16356 large-6643 B-8330 E-18711 six-33390 random-23585 deep-24499; do
      for g in 1 2; do for sp in 64 56; do row $g $b split$sp -- --steps 1000 --level-split $sp; done; done
    done
    for b in ca1-500 ca1-3000 six-4174 large-800 large-6643-hh six-33390-hh; do
      for sp in 64 56; do row 1 $b split$sp -- --level-split $sp; done
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = fixed19b ]; then
  # where a run's fixed cost comes from: the half batch of large cells on one GPU over 100 to
  # 1,000 steps, the stimulus on from the start or never on, a wider window, one step a task
  for rep in 1 2; do
    for s in 100 200 400 1000; do row 1 large-3322 s$s -- --steps $s; done
    row 1 large-3322 on-s100 -- --stim-start 0 --steps 100
    row 1 large-3322 off-s100 -- --stim-start 100 --steps 100
    row 1 large-3322 w16-s100 -- --window 16 --steps 100
    row 1 large-3322 k1-s100 -- --task-steps 1 --steps 100
    row 1 large-3322 k1-s1000 -- --task-steps 1 --steps 1000
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = trunk18d ]; then
  # a trunk of branches with fewer chunks a GPU (the rule gives the large cells and all 15 four,
  # the deep chains three): two GPUs against one GPU's defaults
  for rep in 1 2; do
    row 1 large-6643 default; row 2 large-6643 r2.5 -- --trunk-branches 2.5
    for c in 1661 1108; do row 2 large-6643 r2.5-n$c -- --trunk-branches 2.5 --task-neurons $c; done
    row 1 all15-16356 default; row 2 all15-16356 r1.5-s48 -- --trunk-branches 1.5 --level-split 48
    for c in 4089 2726; do row 2 all15-16356 r1.5-s48-n$c -- --trunk-branches 1.5 --level-split 48 --task-neurons $c; done
    row 1 deep-24499 default; row 2 deep-24499 r1.5 -- --trunk-branches 1.5
    row 2 deep-24499 r1.5-n6125 -- --trunk-branches 1.5 --task-neurons 6125
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = prof16 ]; then
  # where HH's time goes in the large cells' step (one chunk: HH chunk tasks take one a GPU)
  ncu_bin=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  echo "ncu: $ncu_bin"
  for rep in 1 2; do
    row 1 large-6643-hh default
    row 1 large-6643 default
    row 1 mono-hh default
  done
  rep=1
  row 1 six-33390-hh default
  for k in 8 1; do
    ROW_NCPU=all row 1 ca1-500 withcpus-k$k -- --task-steps $k
    ROW_NCPU=all row 1 six-33390 withcpus-k$k -- --task-steps $k
    grep -o '"scheduler": "[a-z]*"\|"cpu_workers": [0-9]*\|"tasks_on_cpus": [0-9]*\|"task_steps": [0-9]*' $out/t.json | paste -sd' '
  done
  echo "rows done at $(( $(date +%s) - T0 )) s"
  metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
  for batch in large-6643-hh large-6643; do
    args_of $batch
    STARPU_NCPU=0 STARPU_NCUDA=1 timeout 200 $ncu_bin --clock-control none --metrics $metrics --csv --page raw \
      $H --quiet --force "${A[@]}" --task-neurons 6643 --steps 3 --task-steps 1 > $out/prof16_$batch.csv 2> $out/prof16_$batch.err
    echo "ncu $batch rc=$? at $(( $(date +%s) - T0 )) s"; tail -2 $out/prof16_$batch.err
  done
  gzip -f $out/prof16_*.csv
fi
if [ "$mode" = split15 ]; then
  for rep in 1 2; do
    for batch in large-6643 all15-16356 deep-24499; do
      row 2 $batch default
      for c in 128 256; do row 2 $batch s$c -- --level-split $c; done
      row 2 $batch soff -- --level-split off
    done
    row 1 large-6643 default
    row 1 large-6643 s128 -- --level-split 128
  done
  rep=1
  row 1 large-6643-hh default
  row 1 large-6643-hh s128 -- --level-split 128
  row 1 large-6643-hh soff -- --level-split off
  row 1 large-6643-hh sub16 -- --level-subtrees 16
  echo "rows done at $(( $(date +%s) - T0 )) s"
fi
if [ "$mode" = mpi14 ]; then
  [ $ngpu -ge 2 ] && { COMMIT=$commit REPS=5 STEPS=300 BATCHES=multi CASES="1x1 2x1 1x2" timeout 200 scripts/bench_mpi.sh $bundle/bin $out/mpi.csv > $out/mpi.log 2>&1; echo "bench_mpi rc=$?"; tail -8 $out/mpi.log; }
fi
if [ "$mode" = prof13 ]; then
  ncu_bin=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  echo "ncu: $ncu_bin"
  args_of deep-6125; deep=("${A[@]}")
  args_of ca1-500; ca1=("${A[@]}")
  for rep in 1 2; do
    row 1 deep-6125 lean -- --task-neurons 6125 --level-priorities off --level-stretches off
    wrow 1000 1 deep-6125 teams -- --task-neurons 6125 --level-priorities off
    row 1 ca1-500 lean -- --level-priorities off --level-stretches off
    wrow 1000 1 ca1-500 teams -- --level-priorities off
  done
  for v in lean teams; do
    if [ $v = lean ]; then o=(--level-stretches off); unset HINES_TEAM_WAVES; else o=(); export HINES_TEAM_WAVES=1000; fi
    STARPU_NCPU=0 timeout 120 $ncu_bin --clock-control none --launch-skip 160 --launch-count 80 \
      --section SpeedOfLight --section LaunchStats --section WarpStateStats --metrics smsp__inst_executed.sum --csv --page details \
      $H --quiet --force "${deep[@]}" --steps 4 --task-neurons 6125 --level-priorities off "${o[@]}" > $out/prof13_deep_$v.csv 2> $out/prof13_deep_$v.err; echo "deep $v rc=$? at $(( $(date +%s) - T0 )) s"
    STARPU_NCPU=0 timeout 90 $ncu_bin --clock-control none --launch-skip 80 --launch-count 40 \
      --section SpeedOfLight --section LaunchStats --section WarpStateStats --metrics smsp__inst_executed.sum --csv --page details \
      $H --quiet --force "${ca1[@]}" --steps 4 --level-priorities off "${o[@]}" > $out/prof13_ca1_$v.csv 2> $out/prof13_ca1_$v.err; echo "ca1 $v rc=$? at $(( $(date +%s) - T0 )) s"
  done
  unset HINES_TEAM_WAVES
  gzip -f $out/prof13_*.csv
fi
if [ "$mode" = prof11 ]; then
  ncu_bin=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  echo "ncu: $ncu_bin"
  args_of deep-6125; deep=("${A[@]}")
  args_of ca1-500; ca1=("${A[@]}")
  row 1 deep-6125 c1 -- --task-neurons 6125 --level-priorities off
  row 1 ca1-500 c1 -- --level-priorities off
  STARPU_NCPU=0 timeout 170 $ncu_bin --clock-control none --launch-skip 160 --launch-count 80 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --csv --page details \
    $H --quiet --force "${deep[@]}" --steps 4 --task-neurons 6125 --level-priorities off > $out/prof_deep.csv 2> $out/prof_deep.err; echo "deep rc=$? at $(( $(date +%s) - T0 )) s"
  STARPU_NCPU=0 timeout 100 $ncu_bin --clock-control none --launch-skip 80 --launch-count 40 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --csv --page details \
    $H --quiet --force "${ca1[@]}" --steps 4 --level-priorities off > $out/prof_ca1.csv 2> $out/prof_ca1.err; echo "ca1 rc=$? at $(( $(date +%s) - T0 )) s"
  for k in backward forward; do
    STARPU_NCPU=0 timeout 100 $ncu_bin --clock-control none --kernel-name regex:${k}_kernel --launch-skip 90 --launch-count 1 \
      --section WarpStateStats --section SourceCounters --page source --print-source sass --csv \
      $H --quiet --force "${deep[@]}" --steps 4 --task-neurons 6125 --level-priorities off > $out/prof_deep_sass_$k.csv 2> $out/prof_deep_sass_$k.err; echo "sass $k rc=$? at $(( $(date +%s) - T0 )) s"
  done
  gzip -f $out/prof_*.csv
fi
if [ "$mode" = stage11 ]; then
  unpack_variant nostage
  check 2>&1 | tee $out/check.txt
  for spec in deep-p deep-nosplit six-p; do same_probes $spec; done 2>&1 | tee -a $out/check.txt
  echo "check done at $(( $(date +%s) - T0 )) s"
  for rep in 1 2; do
    row 1 mono default
    for batch in deep-24499 six-33390 six-16695 large-6643 all15-16356 random-23585 ca1-3000 ca1-500 six-33390-hh; do
      row 1 $batch staged
      row 1 $batch nostage nostage
    done
    [ $ngpu -ge 2 ] && for batch in six-33390 deep-24499 large-6643; do
      row 2 $batch staged
      row 2 $batch nostage nostage
    done
  done
fi
if [ "$mode" = stage11b ]; then
  unpack_variant nostage
  for spec in deep-p deep-nosplit; do same_probes $spec; done 2>&1 | tee -a $out/check.txt
  against_nostage staged "deep-24499 six-16695 ca1-500 six-33390" "six-33390 deep-24499"
fi
if [ "$mode" = stage11c ]; then
  unpack_variant nostage
  for spec in deep-p six-hh ca1-p; do same_probes $spec 200; done 2>&1 | tee -a $out/check.txt
  against_nostage staged32 "ca1-500 ca1-3000 deep-24499 six-16695" "six-33390 deep-24499"
fi
if [ "$mode" = cpu30 ]; then
  # (the one-GPU machine) CPU workers alone, StarPU's own count (16 with no GPU worker): tasks
  # of 8 steps by default (--task-steps 1: the default before), and the level solver's row
  # sweeps reading a run of copies' constants once (hinestask_old: the build before, b5b4fa4,
  # one step a task); CPU and GPU probe files with runs of copies in the CPU chunks first
  { for spec in six-runs six-runs-lv six-runs-hh ca1-runs ca1-runs-lv large-runs D-runs; do same_probes $spec 200; done
    STARPU_NCPU=0 timeout 200 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels rc=$? $(tail -1 $out/tml.txt)"
  } 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    for b in monoc-medium-high-256000 monoc-small-low-200000-hh monoc-big-high-20000; do
      ROW_NCPU=all row 0 $b ts1 -- --steps 48 --task-steps 1
      ROW_NCPU=all row 0 $b default -- --steps 48
    done
    for b in large-6643 six-33390 D-7404 all15-16356 random-23585 ca1-3000 deep-24499 six-4000-hh; do
      st=24; case $b in *-hh) st=16 ;; esac
      ROW_NCPU=all row 0 $b old old -- --steps $st
      [ $rep = 1 ] && ROW_NCPU=all row 0 $b ts1 -- --steps $st --task-steps 1
      ROW_NCPU=all row 0 $b default -- --steps $st
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = cpu30b ]; then
  # (the one-GPU machine) after the runs of subtree copies (de999a2): CPU and GPU probe files,
  # then CPU workers alone, the build before this session (hinestask_old, b5b4fa4) against the
  # defaults; then multi with StarPU's CPU workers beside the GPU after two calibration runs
  # (calibrated dmdas) against the GPU alone, and the tasks the cores ran
  { for spec in rnd-runs rnd-runs-hh six-runs six-runs-hh large-runs D-runs; do same_probes $spec 200; done
    STARPU_NCPU=0 timeout 200 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels rc=$? $(tail -1 $out/tml.txt)"
  } 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    for b in random-23585 six-33390 large-6643 D-7404 all15-16356 C-11720 random-4000-hh; do
      st=24; case $b in *-hh) st=16 ;; esac
      ROW_NCPU=all row 0 $b old old -- --steps $st
      ROW_NCPU=all row 0 $b default -- --steps $st
    done
  done
  for b in large-6643 random-23585; do
    rep=0; for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 100 --calibrate; cores; done
    for rep in 1 2; do ROW_NCPU=all row 1 $b cpu+gpu -- --steps 300; cores; row 1 $b gpu -- --steps 300; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = two30 ]; then
  # (the two-GPU machine) one GPU against two, the defaults, 1,000 steps, two rounds; mono
  # 256,000 in 16 tasks over both against one task on one; CPU and GPU probe files for C and D
  { for spec in C-auto D-auto rnd-runs; do same_probes $spec 200; done; } 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    for b in D-7404 C-11720 all15-16356 B-8330 large-6643 A-8820 E-18711 six-33390 random-23585; do
      for g in 1 2; do row $g $b default -- --steps 1000; done
    done
    row 1 mono t1 -- --steps 1000 --task-neurons 256000
    row 2 mono t16 -- --steps 1000 --task-neurons 16000
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = soma30 ]; then
  # (the one-GPU machine) after 2a78bb1 (HH on the somas: the CPU blocks without a soma row by
  # row): CPU and GPU probe files; CPU workers alone, hinestask_old (b5b4fa4) against the defaults
  { for spec in six-runs-soma rnd-runs-soma large-runs-soma rnd-runs six-runs-hh; do same_probes $spec 200; done
    STARPU_NCPU=0 timeout 200 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels rc=$? $(tail -1 $out/tml.txt)"
  } 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    for b in six-16000 large-3000 random-12000 D-3700; do
      ROW_NCPU=all row 0 $b old old -- --steps 16 --hh soma
      ROW_NCPU=all row 0 $b default -- --steps 16 --hh soma
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = small30 ]; then
  # (the one-GPU machine) CPU workers alone (StarPU's 16), small batches, where tasks of 8 steps
  # leave the fewest tasks to spread: --task-steps 1 (the default before 5e6173b) against the
  # default, 400 steps, three rounds
  for rep in 1 2 3; do
    for b in monoc-medium-high-4000 monoc-small-low-2000-hh monoc-big-high-500 ca1-300 six-240-hh six-1200 random-400; do
      ROW_NCPU=all row 0 $b ts1 -- --steps 400 --task-steps 1
      ROW_NCPU=all row 0 $b default -- --steps 400
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share31 ]; then
  # (the one-GPU machine) the multi batch's cores' share (--cpu-share on): test_multi_levels with
  # CPU and CUDA workers (its unequal chunks pinned to both kinds), CPU + GPU probe files against
  # the GPU alone after two calibration runs, then per batch two calibration runs and two rounds
  # of CPU + GPU (StarPU's CPU workers, calibrated dmdas) against the GPU alone, 1,000 steps
  timeout 200 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels (CPU and CUDA workers) rc=$? $(grep -c 'digest' $out/tml.txt) digests; $(tail -1 $out/tml.txt)"
  grep "unequal\|FAIL" $out/tml.txt | head -5
  share_probes six-4000 --mode multi "${six[@]}" --neurons 4000 --hh none --steps 160 --stim-amp 1 --probe 0:0 --probe 3999:5 --probe 3990:200 --probe-every 0.2
  share_probes large-2000-hh --mode multi "${large[@]}" --neurons 2000 --hh all --steps 160 --stim-amp 1 --probe 0:0 --probe 1999:300 --probe 1990:7 --probe-every 0.2
  rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
  for b in six-33390 large-6643 random-23585 D-7404 all15-16356 random-4000-hh; do
    rep=0; ROW_NCPU=all row 1 $b first -- --steps 200 --cpu-share on; shares
    for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --cpu-share on --calibrate; shares; done
    for rep in 1 2; do ROW_NCPU=all row 1 $b cpu+gpu -- --steps 1000 --cpu-share on; shares; row 1 $b gpu -- --steps 1000; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share31b ]; then
  # (the one-GPU machine) the multi share's chunks a core (--cpu-chunks 1, 2, 4): probe files of
  # CPU + GPU against the GPU alone (the share cut, calibrated), then per batch calibration runs
  # at 1 and 4 chunks a core and two rounds of each against the GPU alone, 1,000 steps
  share_probes six-4000 --mode multi "${six[@]}" --neurons 4000 --hh none --steps 160 --stim-amp 1 --probe 0:0 --probe 3999:5 --probe 3990:200 --probe-every 0.2 --cpu-chunks 1
  share_probes large-2000-hh --mode multi "${large[@]}" --neurons 2000 --hh all --steps 160 --stim-amp 1 --probe 0:0 --probe 1999:300 --probe 1990:7 --probe-every 0.2 --cpu-chunks 1
  share_probes random-8000 --mode multi --morph synthetic:random:100:8000:1 --morph synthetic:random:100:8000:2 --neurons 8000 --hh none --steps 160 --stim-amp 1 --probe 0:0 --probe 7999:50 --probe 7990:3000 --probe-every 0.2
  rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
  for b in six-33390 large-6643 random-23585 D-7404 all15-16356 C-11720; do
    rep=0
    for k in 1 1 4; do ROW_NCPU=all row 1 $b calibrate-k$k -- --steps 200 --cpu-share on --cpu-chunks $k --calibrate; shares; done
    for rep in 1 2; do
      for k in 1 2 4; do ROW_NCPU=all row 1 $b cpu+gpu-k$k -- --steps 1000 --cpu-share on --cpu-chunks $k; shares; done
      row 1 $b gpu -- --steps 1000
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share31c ]; then
  # (the one-GPU machine) the multi share at its default 4 chunks a core, each batch in a fresh
  # STARPU_HOME (two calibration runs, then three rounds of CPU + GPU against the GPU alone, 1,000
  # steps); then a trace of the six cells x 33,390 with the share (80 steps after calibrating)
  for b in six-33390 large-6643 random-23585 D-7404 all15-16356 C-11720 E-18711; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --cpu-share on --calibrate; shares; done
    for rep in 1 2 3; do ROW_NCPU=all row 1 $b cpu+gpu -- --steps 1000 --cpu-share on; shares; row 1 $b gpu -- --steps 1000; done
  done
  rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
  for pass in 1 2; do ROW_NCPU=all row 1 six-33390 calibrate -- --steps 200 --cpu-share on --calibrate; shares; done
  d=$out/trace-multi-cpu-gpu-six
  args_of six-33390
  PATH="$bundle/bin:$PATH" timeout 150 "$H" --quiet "${A[@]}" --cpu-share on --steps 80 --probe 0:0 --probe 33389:5 --probe-every 0.2 --probes $out/tp.csv --json $out/trace.json --trace $d > $out/c.log 2>&1 || echo "FAIL trace $(tail -2 $out/c.log)"
  python3 $bundle/trace_report.py $d --until-last-task --png $d-gantt.png --title "hinestask multi, six cells x 33,390, --cpu-share on, H200 + 15 CPU workers, calibrated dmdas" > $d-summary.txt 2>&1; grep -v "^CUDA 0\\|^CPU [0-9]" $d-summary.txt | head -40
  grep -o '"cpu_share_neurons": [0-9]*\|"seconds_per_step": [0-9.e-]*\|"tasks_on_cpus": [0-9]*' $out/trace.json | paste -sd' '
  tar -C $out -czf $out/trace-multi-cpu-gpu-six.tar.gz trace-multi-cpu-gpu-six/paje.trace trace-multi-cpu-gpu-six/tasks.rec trace-multi-cpu-gpu-six/data.rec trace-multi-cpu-gpu-six-summary.txt $(cd $out && ls trace-multi-cpu-gpu-six-gantt.png 2>/dev/null) trace.json
  rm -rf $d $out/tp.csv $out/c.log $out/trace.json $d-summary.txt $d-gantt.png $out/t.json $out/t.log
fi
if [ "$mode" = share31d ]; then
  # (the one-GPU machine) the multi share with its reach (no core's chunk past twice the largest
  # task measured on a core): as share31c for the large cells, C and the six cells
  for b in large-6643 C-11720 six-33390; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --cpu-share on --calibrate; shares; done
    for rep in 1 2 3; do ROW_NCPU=all row 1 $b cpu+gpu -- --steps 1000 --cpu-share on; shares; row 1 $b gpu -- --steps 1000; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = cpu31 ]; then
  # (the one-GPU machine) CPU workers alone (StarPU's 16) under the greedy schedulers: tasks of 8
  # steps (the default since 5e6173b) against one step a task under eager, lws and dmdas, one round
  rep=1
  for sched in eager lws dmdas; do
    for b in monoc-medium-high-256000 six-33390 ca1-300; do
      st=48; case $b in six-*) st=24 ;; ca1-*) st=200 ;; esac
      STARPU_SCHED=$sched ROW_NCPU=all row 0 $b $sched-ts1 -- --steps $st --task-steps 1
      STARPU_SCHED=$sched ROW_NCPU=all row 0 $b $sched-default -- --steps $st
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share32 ]; then
  # (the one-GPU machine) the level solver's CPU chunks after the chain stretches (256e010):
  # test_multi_levels with CPU and CUDA workers; one core alone (StarPU's CPU worker, no GPU)
  # by chunk size, the build without the stretches (hinestask_nostretch, the same source with
  # LEVEL_CHAIN_ROWS_STRETCH past any block) against the defaults, and one cell's copies (CA1);
  # then the multi share at 1 and 4 chunks a core, each in a fresh STARPU_HOME with three
  # calibration runs, two rounds of CPU + GPU against the GPU alone, 1,000 steps
  timeout 200 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels (CPU and CUDA workers) rc=$? $(grep -c 'digest' $out/tml.txt) digests; $(tail -1 $out/tml.txt)" | tee $out/check.txt
  one_core_against nostretch "six-1200 C-440" "2 10 40 160" 1
  for tn in 2 10 40; do ROW_NCPU=1 row 0 ca1-1200 tn$tn -- --steps 40 --level-kernel levels --task-neurons $tn; done
  for b in six-33390 C-11720 large-6643 D-7404; do
    for k in 1 4; do fresh_share $b 1 2 -k$k --cpu-chunks $k; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share32b ]; then
  # (the one-GPU machine) after 0b9e2de (a core's prediction past what it was measured at grows
  # in proportion): CPU + GPU probe files against the GPU alone with the share; one core alone,
  # the chain stretches against the build without them (hinestask_nostretch), three interleaved
  # rounds; then the multi share at its default 4 chunks a core on eight mixes, each in a fresh
  # STARPU_HOME with three calibration runs, two rounds of CPU + GPU against the GPU alone
  share_probes six-4000 --mode multi "${six[@]}" --neurons 4000 --hh none --steps 160 --stim-amp 1 --probe 0:0 --probe 3999:5 --probe 3990:200 --probe-every 0.2
  one_core_against nostretch "six-1200 C-440" "10 40" 3
  for b in six-33390 C-11720 large-6643 D-7404 all15-16356 E-18711 random-23585 B-8330; do
    fresh_share $b 1 2 ""
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share32c ]; then
  # (the one-GPU machine) the multi share's rounds against one core left to the submitting
  # thread: each batch in a fresh STARPU_HOME with three calibration runs (StarPU's 15 CPU
  # workers), then four rounds of CPU + GPU with 15 CPU workers, with 14, and the GPU alone
  for b in all15-16356 six-33390 C-11720; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --cpu-share on --calibrate; shares; done
    for rep in 1 2 3 4; do
      ROW_NCPU=all row 1 $b cpu15+gpu -- --steps 1000 --cpu-share on; shares
      ROW_NCPU=14 row 1 $b cpu14+gpu -- --steps 1000 --cpu-share on; shares
      row 1 $b gpu -- --steps 1000
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share32d ]; then
  # (the one-GPU machine) after 9dd6a71 (the reach counts only the cores' own chunks): each batch
  # twice from a fresh STARPU_HOME, three calibration runs, one CPU + GPU run against the GPU alone
  for b in C-11720 large-6643 all15-16356 six-33390; do
    for round in 1 2; do fresh_share $b $round $round ""; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = weight50 ]; then
  # (the two-GPU machine, a short call) the share's laid-out chunks cut by a core's cost
  # (compartments plus MULTI_SHARE_SYSTEM_WEIGHT a system: the build) against compartments alone
  # (hinestask_cmp, -DMULTI_SHARE_SYSTEM_WEIGHT=0, two49's default): each mix of MIXES from a
  # fresh STARPU_HOME per build, three --calibrate runs, rounds of the default against the GPUs
  # alone while LIMIT allows
  builds_share ${GPUS:-2} 1 "${MIXES:-D-14808}" weighted cmp
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = two49 ]; then
  # (the two-GPU machine) the multi share laid out by morphology (the default) against
  # hinestask_rr (round robin) at about 82 M a GPU: each mix of MIXES from a fresh STARPU_HOME per
  # build, three --calibrate runs, two rounds of the default against the GPUs alone
  builds_share 2 2 "${MIXES:-C-23440 D-14808 all15-32712}" arranged rr
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = fine48 ]; then
  # (the one-GPU machine) the multi share as built (laid out by morphology, a core's neurons any
  # number: PLACEMENT_LEVEL_SHARE_FINE_UNITS) against hinestask_coarse (laid out, a core's neurons
  # a multiple of its four chunks, as arranged47's default) and hinestask_rr (round robin,
  # multiples of four: the default before arranged47): each mix of MIXES from a fresh STARPU_HOME
  # per build, three --calibrate runs, two rounds of the default against the GPU alone
  builds_share 1 2 "${MIXES:-D-7404 B-8330 random-23585 large-6643}" fine coarse rr
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = arranged47 ]; then
  # (the one-GPU machine) the cores' share laid out by morphology (each core's chunk copies of one
  # or two cells, cut by compartments: MULTI_SHARE_ARRANGED, the default build) against the
  # round-robin share (hinestask_rr, built with -DMULTI_SHARE_ARRANGED=0, the switch that
  # --arrange off replaced): probes of tail neurons
  # identical to the GPU alone's, then each mix of MIXES from a fresh STARPU_HOME per build, three
  # --calibrate runs, two rounds of the default against the GPU alone
  args_of C-11720
  share_probes arranged-C "${A[@]}" --steps 200 --probe 0:0 --probe 11719:5 --probe 11700:0 --probe 11650:30 --probe-every 0.2
  builds_share 1 2 "${MIXES:-C-11720 all15-16356 E-18711 six-33390 D-7404}" arranged rr
  # the unequal chunks' digest with CPU and GPU workers both (each chunk pinned to its kind)
  rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
  CMOCKA_MESSAGE_OUTPUT=TAP timeout 150 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels (CPU + GPU workers) rc=$? $(grep -c '^ok' $out/tml.txt) ok, $(grep -c '^not ok' $out/tml.txt) not ok"
  grep "^not ok\|unequal" $out/tml.txt | head -5
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = chunks46 ]; then
  # (the one-GPU machine) chunks45's lead in one call: the default share with four chunks a core
  # and with two (--cpu-chunks 2), each from a fresh STARPU_HOME (three --calibrate runs with its
  # option, two rounds against the GPU alone), over the mixes in MIXES (default: four of the
  # eight; a call holds about four mixes)
  chunk_counts_share "${MIXES:-six-33390 C-11720 all15-16356 E-18711}" "4 2" 2 cc
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = chunks45 ]; then
  # (the one-GPU machine) the multi share by default with two chunks a core (--cpu-chunks 2,
  # each twice the default's size: a core's level-solver task pays a fixed cost a level and
  # step) against share41's four: each mix from a fresh STARPU_HOME, three --calibrate runs, two
  # rounds against the GPU alone
  for b in C-11720 six-33390 random-23585 D-7404; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-cc2 -- --steps 200 --calibrate --cpu-chunks 2; shares; done
    for rep in 1 2; do ROW_NCPU=all row 1 $b default-cc2 -- --steps 1000 --cpu-chunks 2; shares; row 1 $b gpu -- --steps 1000; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = trace44 ]; then
  # (the one-GPU machine) a trace of the multi share by default (no option): the six cells x
  # 33,390 in a fresh STARPU_HOME after three --calibrate runs, 80 steps; then the GPU alone with
  # the same probes (the default's probe file must be the same bits)
  trace_share six-33390 trace-multi-cpu-gpu-six-default "hinestask multi, six cells x 33,390, default share, H200 + 15 CPU workers, calibrated dmdas"
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = two43 ]; then
  # (the two-GPU machine) the multi share by default over two GPUs (no option, 30 CPU workers):
  # four mixes of ~82 M a GPU, each from a fresh STARPU_HOME, share37's steps; then D and C over
  # two GPUs with two chunks a GPU (fixed42: D's half batch ran 3 % faster so) against the default
  for b in six-66780 C-23440 D-14808 all15-32712; do default_share 2 $b; done
  for rep in 1 2; do
    row 1 D-7404 gpu1 -- --steps 1000; row 2 D-7404 gpu2 -- --steps 1000
    row 2 D-7404 gpu2-chunks2 -- --steps 1000 --task-neurons 1851
    row 1 C-11720 gpu1 -- --steps 1000; row 2 C-11720 gpu2 -- --steps 1000
    row 2 C-11720 gpu2-chunks2 -- --steps 1000 --task-neurons 2930
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = fixed42 ]; then
  # (the one-GPU machine) where the part of a step two GPUs do not halve comes from: GPU alone,
  # the half batch (a GPU's load over two) and the whole in 1-8 chunks; then D's shallow large
  # cells and its deep small ones apart, each at two sizes (F = 2 t(N/2) - t(N))
  for rep in 1 2; do
    for b in D-3702 D-7404 C-5860 C-11720; do
      n=${b#*-}
      for k in 1 2 4 8; do row 1 $b chunks$k -- --steps 1000 --task-neurons $(( (n + k - 1) / k )); done
    done
    for b in ZT-1851 ZT-3702 CH-1851 CH-3702 CH-14808 CH-29616; do row 1 $b default -- --steps 1000; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share41 ]; then
  # (the one-GPU machine) first the stagger of stag40 with plain launches (early-launched kernels
  # hold their SM slots while they wait, which could keep the chunks in phase), GPU alone; then
  # the multi share by default again (from 80 M a GPU, the cut's 20 % margin): each of the eight
  # mixes from a fresh STARPU_HOME, no option, share37's steps
  for b in D-3702 D-7404; do
    rep=1; row 1 $b default -- --steps 1000
    row 1 $b plain stag -- --steps 1000 --gpu-launch plain
    HINES_STAGGER_US=120 row 1 $b plain-stag120 stag -- --steps 1000 --gpu-launch plain
    row 1 $b plain-prio stag -- --steps 1000 --gpu-launch plain --level-priorities on
    HINES_STAGGER_US=120 row 1 $b plain-prio-stag120 stag -- --steps 1000 --gpu-launch plain --level-priorities on
  done
  for b in C-11720 six-33390 all15-16356 D-7404 E-18711 random-23585 B-8330 large-6643; do default_share 1 $b; done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = stag40 ]; then
  # (the one-GPU machine) the part of a step two GPUs do not halve: a GPU's load over two GPUs is
  # the half batch on one (the GPUs share nothing). hinestask_stag (an experiment, not in the
  # tree: chunk r of every 4 starts its first timed task r x HINES_STAGGER_US later, once) asks
  # whether chunks sharing a GPU run their small-level chains in phase, all at once, so that
  # the chains never overlap another chunk's large levels
  for rep in 1 2; do
    for b in D-3702 C-5860 all15-8178 B-4165 D-7404 C-11720; do
      row 1 $b default -- --steps 1000
      for us in 60 120 200; do HINES_STAGGER_US=$us row 1 $b stag$us stag -- --steps 1000; done
      row 1 $b stag0 stag -- --steps 1000
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share39 ]; then
  # (the one-GPU machine) the branch kernel's per-element constants (de72aa0) on the H200's cores:
  # one core, the default kernel (branches for these mixes), 200 steps, chunks of the share's
  # sizes, against hinestask_noec (the same source with -DLEVEL_ELEMENT_CONSTANTS_MAX=0), three
  # rounds; then the share (its 80 % cut) from fresh homes on the three mixes they help most
  ONE_CORE_ARGS="--steps 200" one_core_against noec "C-88 large-45" "3 4" 3
  ONE_CORE_ARGS="--steps 200" one_core_against noec "six-260" "13" 3
  for b in C-11720 large-6643 six-33390; do fresh_share $b 1 2 ""; done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share38 ]; then
  # (the one-GPU machine) the multi share's cut with a 20 % margin (hinestask_e80: this source
  # built with -DPLACEMENT_LEVEL_SHARE_ENDS_BY=0.8), each mix from a fresh STARPU_HOME
  for b in C-11720 six-33390 all15-16356; do FRESH_BUILD=e80 fresh_share $b 1 2 -e80; done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share37 ]; then
  # (the one-GPU machine) the multi share by default (d3ab8b9, no --cpu-share option): from a
  # fresh STARPU_HOME the first run (no share, cpu_share_uncalibrated true), three calibration
  # runs, then rounds of the default CPU + GPU run against the GPU alone
  for b in C-11720 six-33390; do default_share 1 $b; done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share36 ]; then
  # (the two-GPU machine) the multi share over two GPUs, each batch from a fresh STARPU_HOME:
  # the six cells x 66,780 (169 M) and C x 23,440 (163 M), about 82 M a GPU
  for b in six-66780 C-23440; do FRESH_GPUS=2 fresh_share $b 1 3 ""; done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share35 ]; then
  # (the one-GPU machine) where the multi share, calibrated, may be the default: each batch from a
  # fresh STARPU_HOME (three calibration runs, rounds of CPU + GPU against the GPU alone) at about
  # 20 M compartments (the six cells, C, all 15), with HH at 13.9 M, and at 253 M; then, in the
  # home calibrated at 253 M, a size never run there (the six cells x 60,000, 152 M)
  for b in six-8000 C-2930; do fresh_share $b 1 3 ""; done
  fresh_share six-5500-hh 1 2 ""
  fresh_share all15-4000 1 2 ""
  fresh_share six-100000 1 2 ""
  rep=1; ROW_NCPU=all row 1 six-60000 cpu+gpu-unseen -- --steps 1000 --cpu-share on; shares; row 1 six-60000 gpu -- --steps 1000
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share34 ]; then
  # (the one-GPU machine) after the size model's cores predict in proportion past their largest
  # size (share33 lost three of sixteen rounds to 11-13 GPU chunks dmdas ran on cores): probe
  # files of the share against the GPU alone, then each mix from a fresh STARPU_HOME, three
  # calibration runs, three rounds of CPU + GPU against the GPU alone
  share_probes six-4000 --mode multi "${six[@]}" --neurons 4000 --hh none --steps 160 --stim-amp 1 --probe 0:0 --probe 3999:5 --probe 3990:200 --probe-every 0.2
  for b in all15-16356 D-7404 random-23585 six-33390 C-11720 large-6643 E-18711 B-8330; do fresh_share $b 1 3 ""; done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share33 ]; then
  # (the one-GPU machine) after 9d06d75 (calibration runs keep the share's GPU chunks on GPUs) and
  # 959d72f (the cores' chunks read per-element constants): probe files of the share against the
  # GPU alone; one core, the build without the per-element constants (hinestask_noec:
  # -DLEVEL_ELEMENT_CONSTANTS_MAX=0) against the defaults, three interleaved rounds; then each mix
  # twice from a fresh STARPU_HOME, three calibration runs, CPU + GPU against the GPU alone
  share_probes six-4000 --mode multi "${six[@]}" --neurons 4000 --hh none --steps 160 --stim-amp 1 --probe 0:0 --probe 3999:5 --probe 3990:200 --probe-every 0.2
  one_core_against noec "C-440 six-1200" "4 10" 3
  for b in C-11720 six-33390 all15-16356 large-6643 D-7404 E-18711 random-23585 B-8330; do
    for round in 1 2; do fresh_share $b $round $round ""; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = arrange51 ]; then
  # (the one-GPU machine) every chunk copies of one or two cells, cut by compartments
  # (hinestask_all) against round robin: same probe files first (GPU alone with both builds,
  # CPU workers alone with the new one), then GPU alone and CPU workers alone, rounds interleaved
  for spec in C-auto six-hh rnd-hh large-auto; do
    probe_args $spec
    STARPU_NCPU=0 timeout 120 "$H" --quiet --force "${a[@]}" --stim-amp 1 --steps 300 --probes $out/p_rr.csv > $out/c.log 2>&1 || echo "FAIL rr $spec $(tail -1 $out/c.log)"
    STARPU_NCPU=0 timeout 120 $out/hinestask_all --quiet --force "${a[@]}" --stim-amp 1 --steps 300 --probes $out/p_all.csv > $out/c.log 2>&1 || echo "FAIL all $spec $(tail -1 $out/c.log)"
    STARPU_NCUDA=0 timeout 120 $out/hinestask_all --quiet --force "${a[@]}" --stim-amp 1 --steps 300 --probes $out/p_cpu.csv > $out/c.log 2>&1 || echo "FAIL all-cpu $spec $(tail -1 $out/c.log)"
    cmp -s $out/p_rr.csv $out/p_all.csv && cmp -s $out/p_rr.csv $out/p_cpu.csv && echo "PASS $spec: laid out (GPU, CPU) identical to round robin" || echo "FAIL $spec probes differ"
  done
  rm -f $out/p_*.csv $out/c.log
  for rep in 1 2; do
    for b in ${GPU_MIXES:-D-7404 C-11720 all15-16356 B-8330 D-3702 C-5860 all15-8178 B-4165 large-6643 six-33390 E-18711 random-23585}; do
      row 1 $b gpu -- --steps 1000; row 1 $b gpu-all all -- --steps 1000
    done
    for b in ${CPU_MIXES:-C-11720 D-7404 all15-16356 six-33390 B-8330 random-23585}; do
      ROW_NCPU=all row 0 $b cpu -- --steps 24; ROW_NCPU=all row 0 $b cpu-all all -- --steps 24
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = arrange52 ]; then
  # (the one-GPU machine) CPU workers alone (StarPU's count), the default (--arrange auto: laid
  # out) against --arrange off (round robin), rounds interleaved; first CPU (laid out) and GPU
  # (round robin) probe files
  { for spec in C-auto six-hh rnd-hh large-auto; do same_probes $spec 300; done; } 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    for b in ${CPU_MIXES:-C-11720 D-7404 all15-16356 six-33390 B-8330 random-23585 large-6643 E-18711 A-8820 six-1200 ca1-3000 random-4000-hh six-8000-hh}; do
      st=48; case $b in *-hh) st=16 ;; esac
      ROW_NCPU=all row 0 $b cpu -- --steps $st; ROW_NCPU=all row 0 $b cpu-off -- --steps $st --arrange off
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = arrange53 ]; then
  # (the one-GPU machine) after --arrange (1e2d473): test_multi_levels on the GPU alone and with
  # CPU workers beside it; the default share's tail probes against the GPU alone's; the default
  # share from fresh homes (C, B: as arranged47); --arrange on against the default, GPU alone
  { tml_both
    args_of C-11720
    share_probes arranged-C "${A[@]}" --steps 200 --probe 0:0 --probe 11719:5 --probe 11700:0 --probe 11650:30 --probe-every 0.2
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
  } 2>&1 | tee $out/check.txt
  builds_share 1 2 "${MIXES:-C-11720 B-8330}" default
  for rep in 1 2; do for b in six-33390 E-18711; do row 1 $b gpu -- --steps 1000; row 1 $b gpu-arrange-on -- --steps 1000 --arrange on; done; done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = arrange54 ]; then
  # (the two-GPU machine) the GPUs' chunks laid out (--arrange on) against round robin (the
  # default) over both GPUs, then the machine's CPU workers alone, laid out (the default) against
  # --arrange off; rounds interleaved
  for rep in 1 2; do
    for b in ${GPU_MIXES:-six-66780 E-37422 all15-32712 D-14808 C-23440 B-16660}; do
      row 2 $b gpu -- --steps 1000; row 2 $b gpu-arrange-on -- --steps 1000 --arrange on
    done
  done
  for rep in 1 2; do
    for b in ${CPU_MIXES:-C-11720 all15-16356 D-7404 six-33390}; do
      ROW_NCPU=all row 0 $b cpu -- --steps 48; ROW_NCPU=all row 0 $b cpu-off -- --steps 48 --arrange off
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = cores55 ]; then
  # (the one-GPU machine) what a core's share chunk runs at: CPU workers alone (15, as beside the
  # GPU), share-sized batches laid out in chunks of 5, 10 and 20 neurons, three builds; then the
  # share beside the GPU at 1, 2 and 4 chunks a core (fresh homes, three calibrations, two rounds)
  for rep in 1 2; do
    for b in ${CPU_MIXES:-C-300 six-720 D-180}; do
      for tn in 5 10 20; do
        for v in main run16 run32; do
          bld=(); [ $v != main ] && bld=($v)
          ROW_NCPU=15 row 0 $b tn$tn-$v "${bld[@]}" -- --steps 400 --task-neurons $tn
        done
      done
    done
  done
  for b in ${GPU_MIXES:-C-11720 B-8330}; do
    for v in main:4 main:1 run16:1 run16:2; do
      bld=(); [ ${v%:*} != main ] && bld=(${v%:*}); k=${v#*:}
      rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
      for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-${v/:/-k} "${bld[@]}" -- --steps 200 --calibrate --cpu-chunks $k; shares; done
      for rep in 1 2; do ROW_NCPU=all row 1 $b default-${v/:/-k} "${bld[@]}" -- --steps 1000 --cpu-chunks $k; shares; row 1 $b gpu -- --steps 1000; done
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = sizes56 ]; then
  # (the one-GPU machine) does the GPU's own batch size explain the share runs' spread? the GPU
  # alone at sizes a few neurons apart, two rounds; then cores55's B runs again from fresh homes
  for rep in 1 2; do
    for b in ${GPU_SIZES:-B-8330 B-8210 B-8195 B-8192 B-8200 B-8060 six-33390 six-32670 six-32640 C-11720 C-11540 C-11525}; do
      row 1 $b gpu -- --steps 1000
    done
  done
  for v in run16:1 main:1 main:4 run16:1; do
    b=B-8330; bld=(); [ ${v%:*} != main ] && bld=(${v%:*}); k=${v#*:}
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-${v/:/-k} "${bld[@]}" -- --steps 200 --calibrate --cpu-chunks $k; shares; done
    for rep in 1 2; do ROW_NCPU=all row 1 $b default-${v/:/-k} "${bld[@]}" -- --steps 1000 --cpu-chunks $k; shares; row 1 $b gpu -- --steps 1000; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = align57 ]; then
  # (the one-GPU machine) the default chunks against chunks of multiples of 16 copies of every
  # cell (the rest in a fifth chunk), with the default and early launches; two rounds
  for rep in 1 2; do
    for bt in ${ALIGN_MIXES:-B-8330:2048 six-33390:8160 C-11720:2816 D-7404:1792 E-18711:4640 all15-16356:3840 random-23585:5888 large-6643:1600}; do
      b=${bt%:*}; tn=${bt#*:}
      row 1 $b gpu -- --steps 1000; row 1 $b gpu-aligned -- --steps 1000 --task-neurons $tn
      row 1 $b gpu-aligned-early -- --steps 1000 --task-neurons $tn --gpu-launch early
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = aligned58 ]; then
  # (the one-GPU machine) the GPUs' chunks in copies of every cell 16 at a time by default
  { tml_both
    grep "aligned_cut" $out/tml.txt $out/tml2.txt
    for spec in B-aligned six-aligned-hh; do same_probes $spec 300; done
    probe_args B-aligned
    STARPU_NCPU=0 timeout 120 "$H" --quiet --force "${a[@]}" --stim-amp 1 --steps 300 --probes $out/p_new.csv --json $out/t.json > $out/c.log 2>&1 || echo "FAIL new $(tail -1 $out/c.log)"
    grep -o '"aligned_neurons": [0-9]*\|"tasks_per_step": [0-9]*' $out/t.json | paste -sd' '
    STARPU_NCPU=0 timeout 120 $out/hinestask_old --quiet --force "${a[@]}" --stim-amp 1 --steps 300 --probes $out/p_old.csv > $out/c.log 2>&1 || echo "FAIL old $(tail -1 $out/c.log)"
    cmp -s $out/p_new.csv $out/p_old.csv && echo "PASS B-aligned: the aligned cut identical to the build before" || echo "FAIL B-aligned differs from the build before"
    rm -f $out/p_*.csv $out/c.log
  } 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    for b in ${GPU_MIXES:-B-8330 six-33390 C-11720 D-7404 E-18711 all15-16356 random-23585 large-6643 A-8820 D-3702 C-5860 B-4165 all15-8178 six-8000-hh random-4000-hh}; do
      st=1000; case $b in *-hh) st=300 ;; esac
      row 1 $b gpu -- --steps $st; grep -o '"aligned_neurons": [0-9]*\|"tasks_per_step": [0-9]*' $out/t.json | paste -sd' '
      row 1 $b gpu-old old -- --steps $st
    done
  done
  builds_share 1 2 "${MIXES:-B-8330 C-11720}" default old
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = two59 ]; then
  # (the two-GPU machine) two GPUs against one with the aligned cut (2bf6119), GPUs alone
  { for spec in B-aligned six-aligned-hh; do same_probes $spec 300; done; } 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    for bb in ${PAIRS:-B-8330:B-16660 C-11720:C-23440 all15-16356:all15-32712 D-7404:D-14808 large-6643:large-13286}; do
      row 1 ${bb%:*} gpu1 -- --steps 1000; row 2 ${bb#*:} gpu2 -- --steps 1000
      grep -o '"aligned_neurons": [0-9]*\|"tasks_per_step": [0-9]*\|"tasks_per_gpu": [^]]*' $out/t.json | paste -sd' '
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = gaps60 ]; then
  # (the one-GPU machine) the aligned cut's unmeasured rows: tests, the cores' rate at the share's
  # sizes by how a core reads its constants, other schedulers, B's and C's share with both builds;
  # MIXES: the default share on more mixes
  { tml_both; grep -c "^\[       OK \]" $out/tml.txt; } 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    for bt in ${CPU_MIXES:-B-120:2 C-300:5 six-720:12 D-180:3 all15-300:5 random-660:11}; do
      b=${bt%:*}; tn=${bt#*:}
      ROW_NCPU=15 row 0 $b tn$tn -- --steps 200 --task-neurons $tn
      ROW_NCPU=15 row 0 $b tn$tn-noec noec -- --steps 200 --task-neurons $tn
    done
  done
  rep=1
  for b in ${SCHED_MIXES:-B-8330 six-33390}; do
    for s in eager lws dmda; do STARPU_SCHED=$s row 1 $b gpu-$s -- --steps 1000; done
    row 1 $b gpu -- --steps 1000
  done
  builds_share 1 2 "${NOEC_MIXES:-B-8330 C-11720}" default noec
  [ -n "${MIXES:-}" ] && builds_share 1 2 "$MIXES" default
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = two61 ]; then
  # (the two-GPU machine) two GPUs against one with the aligned cut on the mixes two59 left, the
  # tests on both GPUs, then the default share over two GPUs
  { for spec in B-aligned six-aligned-hh; do same_probes $spec 300; done
    timeout 200 "$bundle/bin/test_multi_levels" > "$out/tml2.txt" 2>&1; echo "test_multi_levels, CPU and GPU workers: rc=$? $(tail -1 $out/tml2.txt)"
  } 2>&1 | tee $out/check.txt
  for rep in 1 2; do
    for bb in ${PAIRS:-A-8820:A-17640 six-33390:six-66780 random-23585:random-47170 E-18711:E-37422}; do
      row 1 ${bb%:*} gpu1 -- --steps 1000; row 2 ${bb#*:} gpu2 -- --steps 1000
      grep -o '"aligned_neurons": [0-9]*\|"tasks_per_step": [0-9]*\|"tasks_per_gpu": [^]]*' $out/t.json | paste -sd' '
    done
  done
  builds_share 2 2 "${MIXES:-B-16660}" default
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share62 ]; then
  # (the one-GPU machine) the default share on the mixes gaps60 left, two rounds each from a fresh
  # STARPU_HOME; then a trace of the six cells' default share with the aligned cut
  builds_share 1 2 "${MIXES:-six-33390 D-7404 E-18711 all15-16356 random-23585 large-6643 A-8820}" default
  trace_share six-33390 trace-multi-cpu-gpu-six-aligned "hinestask multi, six cells x 33,390, default share beside aligned GPU chunks, H200 + 15 CPU workers, calibrated dmdas" 2>&1 | tee $out/check.txt
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = cores63 ]; then
  # (the one-GPU machine) runs of subtree copies row by row from 2 or 4 copies instead of 8, and
  # runs of branch copies from 3: the cores at the share's chunk sizes, then the share itself
  for rep in 1 2; do
    for bt in ${CPU_MIXES:-random-180:3 random-660:11 E-360:6 six-900:15 C-240:4}; do
      b=${bt%:*}; tn=${bt#*:}
      for v in main trt2 trt4 rr3t2; do
        bld=(); [ $v != main ] && bld=($v)
        ROW_NCPU=15 row 0 $b tn$tn-$v "${bld[@]}" -- --steps 200 --task-neurons $tn --level-kernel levels
      done
    done
  done
  builds_share 1 2 "${MIXES:-random-23585 E-18711}" default trt2 trt4 rr3t2
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = trace64 ]; then
  # (the one-GPU machine) traces of the default share on the mixes it did not speed up
  for b in ${MIXES:-random-23585 A-8820 E-18711}; do
    trace_share $b trace-multi-cpu-gpu-${b%%-*}-aligned "hinestask multi, $b, default share, H200 + 15 CPU workers, calibrated dmdas"
    rep=1; row 1 $b gpu -- --steps 1000; ROW_NCPU=all row 1 $b default -- --steps 1000; shares
  done 2>&1 | tee $out/check.txt
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = share65 ]; then
  # (the one-GPU machine) the default share on the nine mixes, fresh homes, two rounds each
  builds_share 1 2 "${MIXES:-random-23585 E-18711 A-8820 B-8330 C-11720 six-33390 D-7404 all15-16356 large-6643}" default
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = whole66 ]; then
  # (the one-GPU machine) the share with no chunk of the rest beside the GPUs' aligned chunks
  [ -z "${SKIP_CHECK:-}" ] && { args_of random-23585; rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
    share_probes random-23585 "${A[@]}" --probe 0:0 --probe 23584:5 --probe 11000:50 --probe-every 0.2
    timeout 200 "$bundle/bin/test_multi_levels" > "$out/tml.txt" 2>&1; echo "test_multi_levels, CPU and GPU workers: rc=$? $(tail -1 $out/tml.txt)"
  } 2>&1 | tee $out/check.txt
  builds_share 1 2 "${REST_MIXES:-random-23585 E-18711}" default rest
  builds_share 1 2 "${MIXES:-A-8820 B-8330 C-11720 six-33390 D-7404 all15-16356 large-6643}" default
  rm -f $out/t.json $out/t.log
fi
# load_row BATCH LABEL: the GPU alone (its CUDA thread on core 0) while a CPU-only hinestask of
# random trees x 600 runs on cores 1-14 (unbound workers), started 6 s before
load_row() {
  local b=$1 label=$2 bg
  args_of random-600
  STARPU_NCUDA=0 STARPU_NCPU=14 STARPU_WORKERS_NOBIND=1 taskset -c 1-14 timeout 60 "$H" --quiet --force "${A[@]}" --steps 200000 > $out/bg.log 2>&1 &
  bg=$!; sleep 6
  STARPU_WORKERS_CPUID=0 row 1 $b $label -- --steps 1000
  kill $bg 2>/dev/null; wait $bg 2>/dev/null; rm -f $out/bg.log
}
if [ "$mode" = contend67 ]; then
  { lscpu | grep -E "^(Model name|Socket|Core|Thread|CPU\(s\)|NUMA node[0-9] CPU)"; nproc
    args_of random-600
    STARPU_DISPLAY_BINDINGS=1 STARPU_NCUDA=1 timeout 60 "$H" --quiet --force "${A[@]}" --steps 10 2>&1 | head -40
  } 2>&1 | tee $out/check.txt
  for b in ${MIXES:-random-23585 A-8820 E-18711}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    for rep in 1 2; do
      row 1 $b gpu -- --steps 1000
      ROW_NCPU=all row 1 $b idle-cpus -- --steps 1000 --cpu-share off; shares
      ROW_NCPU=all row 1 $b default -- --steps 1000; shares
      ROW_NCPU=14 row 1 $b share14 -- --steps 1000; shares
      ROW_NCPU=12 row 1 $b share12 -- --steps 1000; shares
      STARPU_MAIN_THREAD_BIND=1 ROW_NCPU=all row 1 $b mainbind -- --steps 1000; shares
      load_row $b gpu-beside-load
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = ceiling68 ]; then
  for rep in 1 2; do
    for b in ${CEILING_MIXES:-random E A B C six D all15 large}; do
      for t in ${CHUNKS:-4 16 48}; do
        ROW_NCPU=15 row 0 $b-$((15 * t)) cores-t$t -- --steps 200 --task-neurons $t
      done
    done
  done
  chunk_counts_share "${CHUNK_MIXES:-random-23585 E-18711 A-8820}" "4 1 2" 2 k
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = ceiling69 ]; then
  for rep in 1 2; do
    for bc in ${CEILING_MIXES:-random-23585-4 E-18711-5 A-8820-3 B-8330-4 C-11720-11 six-33390-6 D-7404-4 all15-16356-15 large-6643-5}; do
      # (args_of, inside row, sets n: the batch's size is kept in whole)
      name=${bc%%-*}; whole=${bc#*-}; cells=${whole#*-}; whole=${whole%-*}; unit=$((16 * cells))
      for f in 0 2 4; do
        g=$(( whole * (100 - f) / 100 )); [ $f -gt 0 ] && g=$(( g / unit * unit ))
        row 1 $name-$g gpu-less$f -- --steps 1000
      done
      for f in 1 2 3; do
        c=$(( whole * f / 100 )); t=$(( (c + 29) / 30 ))
        STARPU_SCHED=eager ROW_NCPU=15 row 0 $name-$c cores-$f -- --steps 200 --task-neurons $t
      done
    done
  done
  rm -f $out/t.json $out/t.log
fi
# gpu_trace BATCH NAME [options]: a trace of the GPU alone, 80 steps, its summary and tasks.rec
# in $out/NAME.tar.gz
gpu_trace() {
  local b=$1 name=$2 d=$out/$2; shift 2
  args_of $b
  STARPU_NCPU=0 PATH="$bundle/bin:$PATH" timeout 150 "$H" --quiet "${A[@]}" --steps 80 "$@" --json $out/trace.json --trace $d > $out/c.log 2>&1 || echo "FAIL trace $(tail -2 $out/c.log)"
  python3 $bundle/trace_report.py $d > $d-summary.txt 2>&1; grep -v "^CUDA 0\|^CPU [0-9]" $d-summary.txt | head -30
  grep -o '"aligned_neurons": [0-9]*\|"seconds_per_step": [0-9.e-]*\|"tasks_per_step": [0-9]*' $out/trace.json | paste -sd' '
  tar -C $out -czf $out/$name.tar.gz $name/tasks.rec $name-summary.txt trace.json
  rm -rf $d $out/c.log $out/trace.json $d-summary.txt
}
# share_trace_k BATCH NAME K: trace_share's trace of the share with --cpu-chunks K (after three
# --calibrate runs with it, from a fresh home), without the probe comparison
share_trace_k() {
  local b=$1 name=$2 k=$3 pass d=$out/$2
  rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
  for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-k$k -- --steps 200 --calibrate --cpu-chunks $k; shares; done
  args_of $b
  PATH="$bundle/bin:$PATH" timeout 150 "$H" --quiet "${A[@]}" --steps 80 --cpu-chunks $k --json $out/trace.json --trace $d > $out/c.log 2>&1 || echo "FAIL trace $(tail -2 $out/c.log)"
  python3 $bundle/trace_report.py $d > $d-summary.txt 2>&1; grep -v "^CUDA 0\|^CPU [0-9]" $d-summary.txt | head -30
  grep -o '"cpu_share_neurons": [0-9]*\|"aligned_neurons": [0-9]*\|"seconds_per_step": [0-9.e-]*\|"tasks_on_cpus": [0-9]*' $out/trace.json | paste -sd' '
  tar -C $out -czf $out/$name.tar.gz $name/tasks.rec $name-summary.txt trace.json
  rm -rf $d $out/c.log $out/trace.json $d-summary.txt
}
if [ "$mode" = trace70 ]; then
  for b in ${MIXES:-random-23585 B-8330}; do
    n0=${b#*-}; m=${b%%-*}
    { echo "== $b: the default share"; share_trace_k $b trace70-$m-k4 4
      echo "== $b: the share, two chunks a core"; share_trace_k $b trace70-$m-k2 2
      echo "== $b: the GPU alone"; gpu_trace $b trace70-$m-gpu
      parts=$(tar -xOzf $out/trace70-$m-k2.tar.gz trace.json | grep -o '"aligned_neurons": [0-9]*' | grep -o '[0-9]*$')
      echo "== $b: the GPU alone at the share's GPU part ($parts)"; [ -n "$parts" ] && gpu_trace $m-$parts trace70-$m-gpu-part
      rep=1; for r in 1 2; do row 1 $b gpu -- --steps 1000; [ -n "$parts" ] && row 1 $m-$parts gpu-part -- --steps 1000; ROW_NCPU=all row 1 $b share-k2 -- --steps 1000 --cpu-chunks 2; shares; done
    } 2>&1 | tee -a $out/check.txt
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = steps71 ]; then
  for rep in 1 2; do
    for k in $(seq 0 14); do row 1 random-$((23552 - 64 * k)) gpu-sets -- --steps 1000; done
    for k in $(seq 0 8); do row 1 A-$((8784 - 48 * k)) gpu-sets -- --steps 1000; done
  done
  chunk_counts_share "${K_MIXES:-six-33390 C-11720 D-7404 large-6643}" "4 2" 1 k
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = trace73 ]; then
  for b in ${MIXES:-random-23585 A-8820 E-18711 B-8330 six-33390}; do
    m=${b%%-*}
    { echo "== $b: the default share"; share_trace_k $b trace73-$m 2
      parts=$(tar -xOzf $out/trace73-$m.tar.gz trace.json | grep -o '"aligned_neurons": [0-9]*' | grep -o '[0-9]*$')
      echo "== $b: the GPU alone at the share's GPU part ($parts)"; [ -n "$parts" ] && gpu_trace $m-$parts trace73-$m-gpu-part
      rep=1; for r in 1 2; do rep=$r; row 1 $b gpu -- --steps 1000; [ -n "$parts" ] && row 1 $m-$parts gpu-part -- --steps 1000; ROW_NCPU=all row 1 $b share -- --steps 1000; shares; done
    } 2>&1 | tee -a $out/check.txt
  done
  rep=1; for b in random A E; do ROW_NCPU=15 row 0 $b-720 cores-t48 -- --steps 200 --task-neurons 48; done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = nine74 ]; then
  builds_share 1 2 "${MIXES:-random-23585 A-8820 E-18711 B-8330 C-11720 six-33390 D-7404 all15-16356 large-6643}" default
  for b in ${EB_MIXES:-A-8820 random-23585 B-8330 C-11720 E-18711}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-eb90 eb90 -- --steps 200 --calibrate; shares; done
    for rep in 1 2; do ROW_NCPU=all row 1 $b default-eb90 eb90 -- --steps 1000; shares; row 1 $b gpu -- --steps 1000; done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = rounds75 ]; then
  for b in ${MIXES:-B-8330 A-8820 random-23585 E-18711}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    for rep in 1 2 3 4 5 6; do
      ROW_NCPU=all row 1 $b default -- --steps 1000; shares; worker_load
      case " ${BIND_MIXES:-B-8330 A-8820} " in *" $b "*)
        STARPU_MAIN_THREAD_BIND=1 ROW_NCPU=all row 1 $b mainbind -- --steps 1000; shares; worker_load ;; esac
      row 1 $b gpu -- --steps 1000
    done
  done
  rm -f $out/t.json $out/t.log
fi
# proc_cpu: the aggregate cpu line of /proc/stat (user nice system idle iowait irq softirq steal)
proc_cpu() { awk '/^cpu /{print $2, $3, $4, $5, $6, $7, $8, $9}' /proc/stat; }
if [ "$mode" = steal76 ]; then
  for b in ${MIXES:-A-8820 E-18711}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    for rep in 1 2 3 4 5 6 7 8; do
      before=$(proc_cpu)
      (sleep 2; awk -F: '/MHz/{s+=$2; n++} END{if (n) printf "MHz %.0f\n", s/n}' /proc/cpuinfo) > $out/mhz.txt &
      ROW_NCPU=all row 1 $b default -- --steps 1000; shares; worker_load
      wait; after=$(proc_cpu)
      echo "$before $after $(cat $out/mhz.txt)" | awk '{for (i = 1; i <= 8; i++) d[i] = $(i + 8) - $i; t = 0; for (i = 1; i <= 8; i++) t += d[i]; printf "cpu time over the row: user %.1f %% system %.1f %% idle %.1f %% steal %.2f %% (%d ticks); %s %s\n", 100 * (d[1] + d[2]) / t, 100 * (d[3] + d[6] + d[7]) / t, 100 * (d[4] + d[5]) / t, 100 * d[8] / t, t, $17, $18}'
      row 1 $b gpu -- --steps 1000
    done
  done
  rm -f $out/t.json $out/t.log $out/mhz.txt
fi
if [ "$mode" = pages77 ]; then
  { for f in enabled defrag; do echo "transparent_hugepage/$f: $(cat /sys/kernel/mm/transparent_hugepage/$f 2>&1)"; done; } | tee -a $out/check.txt
  for b in ${MIXES:-A-8820 E-18711 random-23585}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    for rep in 1 2 3 4 5; do
      [ $rep = 1 ] && (sleep 3; grep AnonHugePages /proc/meminfo) &
      ROW_NCPU=all row 1 $b huge -- --steps 1000; shares; worker_load; wait
      ROW_NCPU=all row 1 $b small old -- --steps 1000; shares; worker_load
      row 1 $b gpu -- --steps 1000
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = ends78 ]; then
  for b in ${MIXES:-A-8820 E-18711 random-23585}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    for rep in $(seq ${ROUNDS:-4}); do
      ROW_NCPU=all row 1 $b default -- --steps 1000; shares; worker_load
      ROW_NCPU=all row 1 $b eb70 eb70 -- --steps 1000; shares; worker_load
      row 1 $b gpu -- --steps 1000
    done
  done
  rm -f $out/t.json $out/t.log
fi
# host_copy THREADS...: GB/s (bytes read and written) of a 1 GiB copy between CPU tensors, the
# best of five, per thread count (PyTorch's threads; the device machine's python3 holds PyTorch).
host_copy() {
  python3 -c '
import sys, time, torch
src = torch.ones(1 << 27, dtype=torch.float64); dst = torch.empty_like(src)
for t in map(int, sys.argv[1:]):
    torch.set_num_threads(t); best = 1e9
    for _ in range(5):
        t0 = time.perf_counter(); dst.copy_(src); best = min(best, time.perf_counter() - t0)
    print("host copy %d threads: %.1f GB/s" % (t, 2 * src.numel() * 8 / best / 1e9))
' "$@" 2>&1 | tail -n 20
}
if [ "$mode" = scale79 ]; then
  host_copy 1 4 8 15 | tee -a $out/check.txt
  for spec in ${SCALE_MIXES:-A:10 E:30 random:36}; do
    m=${spec%:*}; cn=${spec#*:}
    for rep in 1 2; do
      for w in 1 4 8 15; do
        ROW_NCPU=$w row 0 $m-$((2 * w * cn)) cores$w-chunk$cn -- --task-neurons $cn --arrange on --steps 400; worker_load
      done
      for c in $((cn / 2)) $((2 * cn)); do
        ROW_NCPU=15 row 0 $m-$((30 * cn)) cores15-chunk$c -- --task-neurons $c --arrange on --steps 400; worker_load
      done
    done
  done
  rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
  for pass in 1 2 3; do ROW_NCPU=all row 1 A-8820 calibrate -- --steps 200 --calibrate; shares; done
  for rep in $(seq ${ROUNDS:-6}); do
    host_copy 15
    ROW_NCPU=all row 1 A-8820 default -- --steps 1000; shares; worker_load
    row 1 A-8820 gpu -- --steps 1000
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = fit80 ]; then
  for rep in 1 2; do
    for spec in ${FIT_MIXES:-A-300:3:5:10 E-900:10:15:30 random-1080:12:18:36}; do
      b=${spec%%:*}; sizes=${spec#*:}
      for c in ${sizes//:/ }; do
        for v in default noec rr4; do
          bin=(); [ $v != default ] && bin=($v)
          ROW_NCPU=15 row 0 $b cores15-chunk$c-$v "${bin[@]}" -- --task-neurons $c --arrange on --steps 400; worker_load
        done
      done
    done
  done
  home=$STARPU_HOME
  for b in ${MIXES:-A-8820 E-18711 random-23585}; do
    rep=0
    for v in default noec rr4; do
      bin=(); [ $v != default ] && bin=($v)
      export STARPU_HOME=$home-$v; rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
      for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-$v "${bin[@]}" -- --steps 200 --calibrate; shares; done
    done
    export STARPU_HOME=$home-chunks4; rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-chunks4 -- --steps 200 --calibrate --cpu-chunks 4; shares; done
    for rep in $(seq ${ROUNDS:-3}); do
      for v in default noec rr4; do
        bin=(); [ $v != default ] && bin=($v)
        export STARPU_HOME=$home-$v
        ROW_NCPU=all row 1 $b $v "${bin[@]}" -- --steps 1000; shares; worker_load
      done
      export STARPU_HOME=$home-chunks4
      ROW_NCPU=all row 1 $b chunks4 -- --steps 1000 --cpu-chunks 4; shares; worker_load
      row 1 $b gpu -- --steps 1000
    done
    rm -rf $home-*
  done
  export STARPU_HOME=$home
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = one81 ]; then
  home=$STARPU_HOME
  for b in ${MIXES:-A-8820 E-18711 random-23585 B-8330}; do
    rep=0
    for k in 1 2; do
      export STARPU_HOME=$home-$k; rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
      for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-chunks$k -- --steps 200 --calibrate --cpu-chunks $k; shares; done
    done
    for rep in $(seq ${ROUNDS:-3}); do
      for k in 1 2; do
        export STARPU_HOME=$home-$k
        ROW_NCPU=all row 1 $b chunks$k -- --steps 1000 --cpu-chunks $k; shares; worker_load
      done
      row 1 $b gpu -- --steps 1000
    done
    rm -rf $home-*
  done
  export STARPU_HOME=$home
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = small82 ]; then
  for b in ${SMALL:-monoc-medium-high-1000 monoc-medium-high-4000 monoc-medium-high-16000 monoc-big-high-2000 monoc-medium-high-4000-hh}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 400 --calibrate; shares; done
    for rep in 1 2; do
      row 1 $b gpu -- --steps 1000
      ROW_NCPU=16 row 0 $b cpu16 -- --steps 1000
      ROW_NCPU=all row 1 $b default -- --steps 1000; shares
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = alone83 ]; then
  alone() { grep -o '"cores_alone": [a-z]*\|"cpu_share_neurons": [0-9-]*\|"tasks_per_step": [0-9]*\|"layout": "[a-z-]*"' $out/t.json 2>/dev/null | paste -sd' '; }
  for b in ${SMALL-monoc-medium-high-1000 monoc-medium-high-4000 monoc-medium-high-8000 monoc-medium-high-16000 monoc-big-high-2000 monoc-small-low-20000 monoc-medium-high-1000-hh monoc-medium-high-4000-hh}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    ROW_NCPU=all row 1 $b first -- --steps 400; alone
    for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 400 --calibrate; alone; done
    for rep in 1 2; do
      ROW_NCPU=all row 1 $b default -- --steps 1000; alone
      row 1 $b gpu -- --steps 1000
      ROW_NCPU=16 row 0 $b cpu16 -- --steps 1000
    done
  done
  for hh in none all; do
    pa=(--mode mono --morph synthetic:medium-high --neurons 1000 --hh $hh --steps 400 --probe 0:0 --probe 500:5 --probe 999:300 --probe-every 0.2 --stim-amp 1)
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
    for pass in 1 2; do timeout 120 "$H" --quiet --force "${pa[@]}" --calibrate --probes $out/p_cal.csv --json $out/t.json > $out/c.log 2>&1 || echo "FAIL calibration $(tail -1 $out/c.log)"; echo "hh $hh calibration $pass: $(alone)"; done
    timeout 120 "$H" --quiet --force "${pa[@]}" --probes $out/p_both.csv --json $out/t.json > $out/c.log 2>&1 || echo "FAIL default probes $(tail -1 $out/c.log)"; echo "hh $hh default: $(alone)"
    STARPU_NCPU=0 timeout 120 "$H" --quiet --force "${pa[@]}" --probes $out/p_gpu.csv > $out/c.log 2>&1 || echo "FAIL gpu probes $(tail -1 $out/c.log)"
    cmp -s $out/p_both.csv $out/p_gpu.csv && echo "PASS hh $hh: default probes identical to the GPU alone's" || echo "FAIL hh $hh probes differ"
    rm -f $out/p_*.csv $out/c.log
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = probe85 ] || [ "$mode" = probe86 ] || [ "$mode" = probe87 ]; then
  loads=(${LOADS:-quiet hogs}); [ $mode = probe85 ] && loads=(plain) # probe85: no load, labels without one
  if [ $mode = probe87 ]; then
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
    share_probes mono-100000 --mode mono --morph synthetic:medium-high --neurons 100000 --hh none --steps 160 --stim-amp 1 --probe 0:0 --probe 60000:5 --probe 99999:300 --probe-every 0.2
    echo "mono-100000 cpu+gpu probe: $(probe_keys)"
    for b in ${MONO-monoc-medium-high-256000 monoc-medium-high-256000-hh monoc-medium-high-128000-hh monoc-small-high-1000000 monoc-medium-high-200000-hh}; do
      on=(); [ "${SHARE_ON:-0}" = 1 ] && on=(--cpu-share on)
      st=(--steps 1000); case $b in *-hh) st=(--steps 300) ;; esac
      rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
      for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate "${on[@]}"; shares; done
      for rep in $(seq ${ROUNDS:-3}); do
        for load in "${loads[@]}"; do
          [ $load = hogs ] && hogs_on
          ROW_NCPU=all row 1 $b default-$load -- "${st[@]}" "${on[@]}"; shares; probe_keys; worker_load
          for v in ${VARIANTS:-report}; do
            ROW_NCPU=all row 1 $b $v-$load $v -- "${st[@]}" "${on[@]}"; shares; probe_keys; worker_load
          done
          row 1 $b gpu-$load -- "${st[@]}"
          [ $load = hogs ] && hogs_off
        done
      done
    done
    loads=(quiet)
  else
  rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
  share_probes six-4000 --mode multi "${six[@]}" --neurons 4000 --hh none --steps 160 --stim-amp 1 --probe 0:0 --probe 3999:5 --probe 3990:200 --probe-every 0.2
  echo "six-4000 cpu+gpu probe: $(probe_keys)"
  fi
  for b in ${MIXES-A-8820 random-23585 E-18711 B-8330}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    for rep in $(seq ${ROUNDS:-3}); do
      for load in "${loads[@]}"; do
        sfx=-$load; [ $load = plain ] && sfx=
        [ $load = hogs ] && hogs_on
        ROW_NCPU=all row 1 $b default$sfx -- --steps 1000; shares; probe_keys; worker_load
        ROW_NCPU=all row 1 $b report$sfx report -- --steps 1000; shares; probe_keys; worker_load
        row 1 $b gpu$sfx -- --steps 1000
        [ $load = hogs ] && hogs_off
      done
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = columns89 ]; then
  # the rate table's columns (rate_table_columns: each lane's entry read with one load per gate and
  # transposed, not gathered) against the build before them (hinestask_old): the CPU workers
  # alone, alternating the builds (HH mono and multi, passive mono as the control, whose code is
  # the same); then the mono HH share, each build calibrated in its own home, rounds of the
  # share with the new build, the old one, and the GPU alone
  for rep in $(seq ${CPU_ROUNDS:-3}); do
    for b in ${CPU_BATCHES:-monoc-medium-high-64000-hh six-2000-hh monoc-medium-high-64000}; do
      ROW_NCPU=all row 0 $b cpu-new -- --steps 100; worker_load
      ROW_NCPU=all row 0 $b cpu-old old -- --steps 100; worker_load
    done
  done
  for b in ${MONO-monoc-medium-high-128000-hh monoc-medium-high-200000-hh}; do
    rep=0
    for v in new old; do
      export STARPU_HOME=$out/starpu-home-$v; rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
      bin=(); [ $v = old ] && bin=(old)
      for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate-$v "${bin[@]}" -- --steps 200 --calibrate; shares; done
    done
    for rep in $(seq ${ROUNDS:-3}); do
      export STARPU_HOME=$out/starpu-home-new
      ROW_NCPU=all row 1 $b share-new -- --steps 300; shares; probe_keys; worker_load
      export STARPU_HOME=$out/starpu-home-old
      ROW_NCPU=all row 1 $b share-old old -- --steps 300; shares; probe_keys; worker_load
      export STARPU_HOME=$out/starpu-home-new
      row 1 $b gpu -- --steps 300
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = hhcheck89 ]; then
  # the rate table's columns on a GPU machine: HH probes of CPU + GPU (the cores' share, --cpu-share
  # on) against the GPU alone's, mono and multi (PASS or FAIL); then the mono HH share beside
  # HOGS memory-copying processes (MONO, ROUNDS), the share against the GPU alone
  rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
  share_probes mono-hh-128000 --mode mono --morph synthetic:medium-high --neurons 128000 --hh all --steps 160 --probe 0:0 --probe 70000:5 --probe 127999:300 --probe-every 0.2
  echo "mono-hh-128000 cpu+gpu probe: $(probe_keys)"
  rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
  share_probes six-4000-hh --mode multi "${six[@]}" --neurons 4000 --hh all --steps 160 --probe 0:0 --probe 3999:5 --probe 3990:200 --probe-every 0.2
  for b in ${MONO-monoc-medium-high-128000-hh monoc-medium-high-200000-hh monoc-medium-high-256000-hh}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    hogs_rounds $b probe_keys
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = leave90 ]; then
  # cores other processes keep busy left to them (runtime_cores_to_leave): the mono HH share beside
  # HOGS memory-copying processes against the GPU alone (ROUNDS), then one quiet round; each share
  # row's JSON says how many cores it left and how busy it found the host
  for b in ${MONO-monoc-medium-high-128000-hh monoc-medium-high-200000-hh}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; left; done
    hogs_rounds $b left
    rep=1; ROW_NCPU=all row 1 $b default-quiet -- --steps 300; shares; left
    row 1 $b gpu-quiet -- --steps 300
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = leave91 ]; then
  for b in ${BATCHES-A-8820 random-23585 E-18711 B-8330 monoc-medium-high-256000}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; left; done
    hogs_rounds $b left
    rep=1; ROW_NCPU=all row 1 $b default-quiet -- --steps 1000; shares; left; probe_keys; worker_load
    cut=$(grep -o '"cpu_share_neurons": [0-9]*' $out/t.json 2>/dev/null | grep -o '[0-9]*$')
    row 1 $b gpu-quiet -- --steps 1000
    [ "${cut:-0}" -gt 0 ] && row 1 ${b%-*}-$(( ${b##*-} - cut )) gpu-part -- --steps 1000
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = ceiling92 ]; then
  for b in ${BATCHES-A-8820 B-8330 random-23585 E-18711 C-11720 six-33390}; do
    for rep in 1 2; do
      for f in 100 97 94 88; do row 1 ${b%-*}-$(( ${b##*-} * f / 100 )) gpu$f -- --steps 1000; done
    done
  done
  for rep in 1 2 3; do
    for bt in ${CPU_SHAPES-A-552:6 A-552:12 B-540:9 random-1730:29 E-1100:18}; do
      ROW_NCPU=all row 0 ${bt%:*} tn${bt#*:} -- --steps 400 --task-neurons ${bt#*:}
      [ -n "${CPU_BUILD:-}" ] && ROW_NCPU=all row 0 ${bt%:*} tn${bt#*:}-$CPU_BUILD $CPU_BUILD -- --steps 400 --task-neurons ${bt#*:}
    done
  done
fi
if [ "$mode" = ends93 ]; then
  builds_share 1 ${ROUNDS:-2} "${MIXES:-A-8820 random-23585 B-8330 E-18711}" default eb90
fi
if [ "$mode" = window94 ]; then
  for b in ${MIXES:-A-8820 random-23585 B-8330 E-18711}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    for rep in $(seq ${ROUNDS:-2}); do
      ROW_NCPU=all row 1 $b default-quiet -- --steps 1000; shares; worker_load
      ROW_NCPU=all row 1 $b wide-quiet -- --steps 1000 --window ${WIDE:-128}; shares; worker_load
      row 1 $b gpu-quiet -- --steps 1000
    done
    for rep in $(seq ${ROUNDS:-2}); do
      hogs_on
      ROW_NCPU=all row 1 $b default-hogs -- --steps 300; shares; left; worker_load
      ROW_NCPU=all row 1 $b wide-hogs -- --steps 300 --window ${WIDE:-128}; shares; worker_load
      row 1 $b gpu-hogs -- --steps 300
      hogs_off
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = window95 ]; then
  for b in ${MIXES:-A-8820 random-23585 B-8330 E-18711 C-11720 six-33390 D-7404 all15-16356 large-6643}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    rep=1
    ROW_NCPU=all row 1 $b default-quiet -- --steps 1000; shares; worker_load
    ROW_NCPU=all row 1 $b narrow-quiet -- --steps 1000 --window 4; shares; worker_load
    row 1 $b gpu-quiet -- --steps 1000
    case " ${LOADED-A-8820 random-23585 B-8330 E-18711} " in *" $b "*)
      hogs_on
      ROW_NCPU=all row 1 $b default-hogs -- --steps 300; shares; left; worker_load
      ROW_NCPU=all row 1 $b narrow-hogs -- --steps 300 --window 4; shares; worker_load
      row 1 $b gpu-hogs -- --steps 300
      hogs_off ;;
    esac
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = along96 ]; then
  share_probes A-8820 --mode multi "${mixA[@]}" --neurons 8820 --steps 100 --probe 0:0 --probe 4000:100 --probe 8819:7
  for rep in $(seq ${ROUNDS_CPU:-1}); do
    for bt in ${CPU_SHAPES-A-552:6 A-552:12 B-540:9 random-1730:29 E-1100:18}; do
      ROW_NCPU=all row 0 ${bt%:*} tn${bt#*:} -- --steps 400 --task-neurons ${bt#*:}
      ROW_NCPU=all row 0 ${bt%:*} tn${bt#*:}-base base -- --steps 400 --task-neurons ${bt#*:}
    done
  done
  builds_share 1 ${ROUNDS:-2} "${MIXES:-A-8820 random-23585 E-18711 B-8330}" default base
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = nine98 ]; then
  for b in ${MIXES:-A-8820 random-23585 E-18711 B-8330 C-11720 six-33390 D-7404 all15-16356 large-6643}; do
    builds_share 1 ${ROUNDS:-2} $b default
    case " ${LOADED-A-8820 random-23585 E-18711 B-8330} " in *" $b "*) ROUNDS=${ROUNDS_LOADED:-1} hogs_rounds $b left ;; esac
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = slow99 ]; then
  BUILDS_LOAD=1 builds_share 1 ${ROUNDS:-4} "${MIXES:-A-8820 E-18711}" default base
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = contend100 ]; then
  beside() { # beside LABEL BIN: the GPU row with a CPU-only load of BIN on cores 2-15
    local lb=$1 bin=$2 pid
    STARPU_NCUDA=0 STARPU_NCPU=14 STARPU_WORKERS_CPUID=2-15 taskset -c 2-15 timeout 40 "$bin" --quiet --force --mode multi "${mixA[@]}" --neurons 420 --task-neurons 14 --steps 1000000 --json $out/load.json > $out/load.log 2>&1 & pid=$!
    sleep 6
    STARPU_WORKERS_CPUID=0-1 row 1 A-8400 $lb -- --steps 1000
    kill $pid 2>/dev/null; wait $pid 2>/dev/null
  }
  for rep in $(seq ${ROUNDS:-2}); do
    row 1 A-8400 gpu-alone -- --steps 1000
    beside gpu-beside-new $H
    beside gpu-beside-base $out/hinestask_base
  done
  rm -f $out/t.json $out/t.log $out/load.json $out/load.log
fi
if [ "$mode" = shapes97 ]; then
  for rep in $(seq ${ROUNDS:-2}); do
    for bt in ${CPU_SHAPES-A-552:6 A-552:9 A-552:12 A-552:17 B-540:9 E-1100:18 random-1730:29 C-400:13 six-1100:37}; do
      ROW_NCPU=all row 0 ${bt%:*} tn${bt#*:} -- --steps 400 --task-neurons ${bt#*:}
      for v in ${BUILDS-}; do ROW_NCPU=all row 0 ${bt%:*} tn${bt#*:}-$v $v -- --steps 400 --task-neurons ${bt#*:}; done
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = auto84 ]; then
  alone() { grep -o '"cores_alone": [a-z]*\|"mode": "[a-z]*"\|"tasks_per_step": [0-9]*\|"layout": "[a-z-]*"' $out/t.json 2>/dev/null | paste -sd' '; }
  for sb in ${SMALL:-medium-high-1000 medium-high-4000 big-high-2000 medium-high-1000-hh}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2; do
      ROW_NCPU=all row 1 autoc-$sb calibrate-auto -- --steps 400 --calibrate; alone
      ROW_NCPU=all row 1 monoc-$sb calibrate-mono -- --steps 400 --calibrate; alone
    done
    for rep in 1 2; do
      ROW_NCPU=all row 1 autoc-$sb auto; alone
      ROW_NCPU=all row 1 monoc-$sb mono; alone
      row 1 autoc-$sb auto-gpu
      row 1 monoc-$sb mono-gpu
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = trace101 ] || [ "$mode" = scope110 ]; then
  lscpu | grep -i "^CPU(s)\|Thread(s) per core\|Core(s) per socket\|Socket(s)\|NUMA node" ; nproc
  for c in 0 1 2 8 15; do echo "cpu$c siblings $(cat /sys/devices/system/cpu/cpu$c/topology/thread_siblings_list 2>/dev/null)"; done
  # trace_long BATCH NAME [env...]: a traced 1,000-step run of BATCH (default, CPU workers beside
  # the GPU), its tasks.rec and summary into NAME.tar.gz
  trace_long() {
    local b=$1 name=$2 d=$out/$2; shift 2
    args_of $b
    PATH="$bundle/bin:$PATH" env "$@" timeout 200 "$H" --quiet --force "${A[@]}" --steps 1000 --json $out/tr.json --trace $d > $out/c.log 2>&1 || echo "FAIL trace $name $(tail -2 $out/c.log)"
    echo "trace $name: $(grep -o '"seconds_per_step": [0-9.e-]*\|"cpu_share_neurons": [0-9]*\|"aligned_neurons": [0-9]*\|"tasks_on_cpus": [0-9]*' $out/tr.json | paste -sd' ')"
    python3 $bundle/trace_report.py $d > $d-summary.txt 2>&1; grep -v "^CPU [0-9]" $d-summary.txt | head -30
    tar -C $out -czf $out/$name.tar.gz $name/tasks.rec $name-summary.txt tr.json
    rm -rf $d $d-summary.txt $out/c.log
  }
  # threads_seen BATCH: a default run of BATCH with, half a second in, its threads' cores and CPU
  # use, the host's busiest threads and the interrupts each core took during the run
  threads_seen() {
    local pid; args_of $1
    cp /proc/interrupts $out/irq0
    timeout 60 "$H" --quiet --force "${A[@]}" --steps 3000 > /dev/null 2>&1 & pid=$!
    sleep 1.5
    ps -L -p $pid -o tid,psr,pcpu,comm | sort -k3 -n -r | head -24
    ps -eLo psr,pcpu,comm --sort=-pcpu | head -24
    wait $pid
    cp /proc/interrupts $out/irq1
    python3 - $out/irq0 $out/irq1 <<'PY' 2>&1 | tail -1
import sys
def counts(path):
    lines = open(path).read().splitlines()
    n = len(lines[0].split())
    rows = {}
    for line in lines[1:]:
        f = line.split()
        if f and f[0].endswith(":"):
            rows[f[0]] = [int(x) for x in f[1:1 + n] if x.isdigit()]
    return n, rows
n, a = counts(sys.argv[1])
_, b = counts(sys.argv[2])
print("interrupts per core during the run:", [sum(b[k][c] - a[k][c] for k in a if k in b and len(a[k]) == len(b[k]) == n) for c in range(n)])
PY
    rm -f $out/irq0 $out/irq1
  }
  for b in ${MIXES:-A-8820 E-18711}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-default -- --steps 200 --calibrate; shares; done
    [ -n "${THREADS:-}" ] && threads_seen $b
    for rep in $(seq ${ROUNDS:-2}); do
      ROW_NCPU=all row 1 $b default -- --steps 1000; shares; worker_load
      ROW_NCPU=14 row 1 $b ncpu14 -- --steps 1000; shares; worker_load
      row 1 $b gpu -- --steps 1000
    done
    trace_long $b trace101-${b%%-*}-share -u STARPU_NCPU
    aligned=$(grep -o '"aligned_neurons": [0-9]*' $out/tr.json | grep -o '[0-9]*$')
    [ -n "$aligned" ] && trace_long ${b%%-*}-$aligned trace101-${b%%-*}-gpu-part STARPU_NCPU=0
  done
  rm -f $out/t.json $out/t.log $out/tr.json
fi
if [ "$mode" = why103 ]; then
  mkdir -p $out/why103
  for b in ${WHY_MIXES:-B-8330 random-23585 A-8820}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do
      ROW_NCPU=all row 1 $b calibrate-dbg dbg -- --steps 200 --calibrate; shares
      cp $out/t.log $out/why103/$b-calibrate$pass.log
    done
    for rep in $(seq ${ROUNDS:-2}); do
      ROW_NCPU=all row 1 $b default-dbg dbg -- --steps 1000; shares; probe_keys; worker_load
      cp $out/t.log $out/why103/$b-default$rep.log
      row 1 $b gpu -- --steps 1000
    done
    tar -C $STARPU_HOME -czf $out/why103/$b-models.tar.gz . 2>/dev/null
  done
  tar -C $out -czf $out/why103-logs.tar.gz why103; rm -rf $out/why103
  [ -n "${MIXES-x}" ] && for b in ${MIXES:-A-8820 random-23585 E-18711 B-8330 C-11720 six-33390 D-7404 all15-16356 large-6643}; do
    builds_share 1 ${ROUNDS:-2} $b default
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = explore104 ]; then
  for b in ${MIXES:-B-8330 random-23585 A-8820 E-18711 C-11720 six-33390 D-7404 all15-16356 large-6643}; do
    builds_share 1 ${ROUNDS:-1} $b default base
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = warps106 ]; then
  for rep in $(seq ${ROUNDS:-2}); do
    for b in ${SIZES-random-23585 random-23296 random-22848 A-8820 A-8544 B-8330 B-8128 E-18711 C-11720 D-7404 large-6643 six-33390 all15-16356}; do
      row 1 $b gpu-default -- --steps 1000; shares
      for v in ${BUILDS:-c32}; do row 1 $b gpu-$v $v -- --steps 1000; shares; done
    done
  done
  for b in ${MIXES-random-23585 A-8820 B-8330}; do
    for v in default ${BUILDS:-c32}; do
      bld=(); [ $v != default ] && bld=($v)
      rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
      for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-$v "${bld[@]}" -- --steps 200 --calibrate; shares; done
      for rep in $(seq ${ROUNDS:-2}); do
        ROW_NCPU=all row 1 $b default-$v "${bld[@]}" -- --steps 1000; shares; worker_load
        row 1 $b gpu-$v "${bld[@]}" -- --steps 1000; shares
      done
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = warps107 ]; then
  if [ -x $bundle/bin/test_multi_levels ]; then
    (cd $bundle/.. && HINES_SOURCE_DIR=$PWD timeout 200 $bundle/bin/test_multi_levels > $out/test_multi_levels.txt 2>&1; echo "test_multi_levels rc=$?")
    grep -c "^\[       OK \]" $out/test_multi_levels.txt; grep "FAILED\|PASSED\|SKIPPED" $out/test_multi_levels.txt | head
  fi
  for b in ${MIXES-C-11720 D-7404 E-18711 large-6643 six-33390 all15-16356}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-default -- --steps 200 --calibrate; shares; done
    for rep in $(seq ${ROUNDS:-2}); do
      ROW_NCPU=all row 1 $b default -- --steps 1000; shares; worker_load
      row 1 $b gpu -- --steps 1000; shares
    done
  done
  for rep in $(seq ${ROUNDS:-2}); do
    for b in ${SIZES-all15-4000 six-8000 C-3000 random-6000 A-2200 B-2100 D-1850 E-4700 large-1660 six-2000 ca1-3000}; do
      row 1 $b gpu-default -- --steps 1000; shares
      row 1 $b gpu-base16 base16 -- --steps 1000; shares
    done
  done
  for rep in $(seq ${ROUNDS:-2}); do
    for b in ${WIDE_SIZES-all15-16356 D-7404 B-8330 random-23296 large-6643 C-11720}; do
      row 1 $b gpu-default -- --steps 1000; shares
      row 1 $b gpu-c64 c64 -- --steps 1000; shares
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = cells105 ]; then
  for b in ${MIXES:-B-8330 random-23585 large-6643 E-18711 A-8820 C-11720 six-33390 D-7404 all15-16356}; do
    BUILDS_LOAD=1 builds_share 1 ${ROUNDS:-2} $b default ${BUILDS:-cells}
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = chain102 ]; then
  for b in ${MIXES:-A-8820 E-18711 random-23585 B-8330 C-11720 six-33390 D-7404 all15-16356 large-6643}; do
    case " ${BASE_MIXES-A-8820 E-18711 random-23585 B-8330} " in
    *" $b "*) BUILDS_LOAD=1 builds_share 1 ${ROUNDS:-2} $b default base ;;
    *) BUILDS_LOAD=1 builds_share 1 ${ROUNDS:-2} $b default ;;
    esac
  done
  if [ -n "${TRACE_MIX:-A-8820}" ]; then
    b=${TRACE_MIX:-A-8820}; args_of $b; d=$out/chain102-trace
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-trace -- --steps 200 --calibrate; shares; done
    PATH="$bundle/bin:$PATH" timeout 200 "$H" --quiet --force "${A[@]}" --steps 1000 --json $out/tr.json --trace $d > $out/c.log 2>&1 || echo "FAIL trace $(tail -2 $out/c.log)"
    echo "trace: $(grep -o '"seconds_per_step": [0-9.e-]*\|"cpu_share_neurons": [0-9]*\|"aligned_neurons": [0-9]*' $out/tr.json | paste -sd' ')"
    tar -C $out -czf $out/chain102-trace.tar.gz chain102-trace/tasks.rec tr.json
    rm -rf $d $out/c.log $out/tr.json
  fi
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = unseen114 ]; then
  # the default share on mixes and sizes never tuned on: per mix (MIXES) a fresh home, three
  # calibration runs, ROUNDS rounds against the GPU alone, the workers' load; then a trace of the
  # default share (TRACE_MIX, 80 steps, probes checked against the GPU alone) and ROUNDS rounds of
  # 1,000 steps from the trace's home
  for b in ${MIXES:-F-122000 G-53500 H-16000 R2-19000 ca1-30300 C-17580 all15-32712}; do
    BUILDS_LOAD=1 builds_share 1 ${ROUNDS:-2} $b default
  done
  if [ -n "${TRACE_MIX-all15-16356}" ]; then
    b=${TRACE_MIX:-all15-16356}
    trace_share $b trace-multi-cpu-gpu-$b "hinestask defaults, multi $b, 80 steps, H200 + 15 CPU workers, calibrated dmdas"
    for rep in $(seq ${ROUNDS:-2}); do ROW_NCPU=all row 1 $b default-traced-home -- --steps 1000; shares; worker_load; row 1 $b gpu -- --steps 1000; done
  fi
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = why115 ]; then
  # why mono big-low x 100,000 HH's cut stays at 3.8 % (cores busy 57-70 % of the step): per batch
  # (WHY_MIXES) a fresh home, three calibration runs and ROUNDS rounds of hinestask_dbg
  # (-DPLACEMENT_SHARE_DEBUG=1: the cut's steps), the probe's keys and the workers' load
  mkdir -p $out/why115
  for b in ${WHY_MIXES:-autoc-big-low-100000-hh autoc-medium-high-128000-hh}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do
      ROW_NCPU=all row 1 $b calibrate-dbg dbg -- --steps 200 --calibrate; shares
      grep "share cut" $out/t.log > $out/why115/$b-calibrate$pass.txt
    done
    for rep in $(seq ${ROUNDS:-2}); do
      ROW_NCPU=all row 1 $b default-dbg dbg -- --steps 1000; shares; probe_keys; worker_load
      grep "share cut" $out/t.log > $out/why115/$b-default$rep.txt
      row 1 $b gpu -- --steps 1000
    done
    for rep in 1; do ROW_NCPU=all row 1 $b default -- --steps 1000; shares; probe_keys; worker_load; done
  done
  tar -C $out -czf $out/why115.tar.gz why115; rm -rf $out/why115
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = exact116 ] || [ "$mode" = exact118 ]; then
  # the share's cut with a core's round costed as its chunks are cut (this build) against
  # hinestask_old (each chunk costed as the largest, f797d02): per batch (MIXES) both builds from
  # fresh homes, three calibration runs, ROUNDS rounds against the GPU alone, the probe's keys;
  # exact118: the multi share against hinestask_exact, or BUILDS (say off)
  mixes116="autoc-big-low-100000-hh monoc-medium-high-256000 B-8330 autoc-big-low-120000-hh" other=old
  [ "$mode" = exact118 ] && mixes116="B-8330 random-23585 A-8820 E-18711 C-11720" other=exact
  for b in ${MIXES:-$mixes116}; do
    for v in default ${BUILDS:-$other}; do
      bld=(); [ $v != default ] && bld=($v)
      rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
      for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-$v "${bld[@]}" -- --steps 200 --calibrate; shares; done
      for rep in $(seq ${ROUNDS:-2}); do ROW_NCPU=all row 1 $b default-$v "${bld[@]}" -- --steps 1000; shares; probe_keys; worker_load; row 1 $b gpu -- --steps 1000; done
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = small120 ]; then
  for b in ${MIXES:-F-90000 T-27000 E-14000 C-8790 C-5860 all15-8000 six-16695 B-4165}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-on -- --steps 200 --calibrate --cpu-share on; shares; done
    for rep in $(seq ${ROUNDS:-2}); do
      ROW_NCPU=all row 1 $b default-on -- --steps 1000 --cpu-share on; shares; probe_keys; worker_load
      row 1 $b gpu -- --steps 1000
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = busiest119 ] || [ "$mode" = rest121 ]; then
  for b in ${MIXES:-C-11720 D-7404 B-8330 C-11720 A-8820}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    for rep in $(seq ${ROUNDS:-2}); do
      for v in default off; do
        bld=(); [ $v != default ] && bld=($v)
        ROW_NCPU=all row 1 $b default-$v "${bld[@]}" -- --steps 1000; shares; probe_keys; worker_load
      done
      row 1 $b gpu -- --steps 1000
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = setup117 ]; then
  # the runs' seconds: total, first step, building (this build only), share
  building() { grep -o '"seconds_total": [0-9.e+-]*\|"seconds_first_step": [0-9.e+-]*\|"seconds_building": [0-9.e+-]*\|"seconds_starting": [0-9.e+-]*\|"seconds_ending": [0-9.e+-]*\|"cpu_share_neurons": [0-9]*' $out/t.json 2>/dev/null | paste -sd' '; }
  for b in ${SETUP_MIXES:-all15-16356 monoc-medium-high-256000 autoc-medium-high-256000-hh large-6643 C-17580}; do
    for rep in $(seq ${SETUP_ROUNDS:-3}); do
      rm -f $out/p_new.csv $out/p_old.csv # (a failed run leaves none to compare)
      for v in new old; do
        bld=(); [ $v != new ] && bld=($v)
        ROW_NCPU=${SETUP_NCPU:-all} row 1 $b setup-$v "${bld[@]}" -- --steps 20 --probe 0:0 --probe 5:3 --probes $out/p_$v.csv; building
      done
      cmp -s $out/p_new.csv $out/p_old.csv && echo "PASS $b: probes identical" || echo "FAIL $b: probes differ"
    done
  done
  rm -f $out/p_*.csv
  # where the end of a run goes (hinestask_dbg: this build printing the phases after the steps),
  # with 15 CPU workers and none (DBG_MIXES, none unless given)
  for b in ${DBG_MIXES:-}; do
    rep=0
    for n in all 0; do
      ROW_NCPU=$n row 1 $b ending-dbg-ncpu-$n dbg -- --steps 20; building; grep DBG $out/t.log
    done
  done
  # the GPU alone's step, this build against hinestask_old, 1,000 steps, the order alternating
  # (STEP_MIXES, none unless given; STEP_ROUNDS pairs each)
  for b in ${STEP_MIXES:-}; do
    for rep in $(seq ${STEP_ROUNDS:-2}); do
      order="new old"; [ $((rep % 2)) = 0 ] && order="old new"
      for v in $order; do
        bld=(); [ $v != new ] && bld=($v)
        row 1 $b step-$v "${bld[@]}" -- --steps 1000; building
      done
    done
  done
  for b in ${MIXES:-C-11720 six-33390 autoc-big-low-100000-hh}; do
    BUILDS_LOAD=1 builds_share 1 ${ROUNDS:-2} $b default
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = scope110 ]; then
  for rep in $(seq ${ROUNDS:-2}); do
    for bt in ${CPU_SHAPES-A-552:12 B-540:9 E-1100:18 random-1730:29 C-400:13 six-1100:37}; do
      ROW_NCPU=all row 0 ${bt%:*} tn${bt#*:} -- --steps 400 --task-neurons ${bt#*:}
      ROW_NCPU=all row 0 ${bt%:*} tn${bt#*:}-base base -- --steps 400 --task-neurons ${bt#*:}
    done
  done
  for rep in $(seq ${ROUNDS:-2}); do
    for b in ${HH_SIZES-six-33390-hh large-6643-hh random-23585-hh all15-16356-hh}; do
      row 1 $b gpu-default -- --steps 300; shares
      row 1 $b gpu-c16 c16 -- --steps 300; shares
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = two127 ]; then
  # trace_two BATCH NAME TITLE [options]: a trace of 60 steps over both GPUs (GPUs alone), its
  # summary without the worker lines, and NAME.tar.gz
  trace_two() {
    local b=$1 name=$2 title=$3 d=$out/$2; shift 3
    args_of $b
    STARPU_NCPU=0 STARPU_NCUDA=2 PATH="$bundle/bin:$PATH" timeout 150 "$H" --quiet --force "${A[@]}" "$@" --steps 60 --probe 0:0 --probe-every 0.2 --probes $out/tp.csv --json $out/trace.json --trace $d > $out/c.log 2>&1 || echo "FAIL trace $b $(tail -2 $out/c.log)"
    python3 $bundle/trace_report.py $d --until-last-task --png $d-gantt.png --title "$title" > $d-summary.txt 2>&1; grep -v "^CUDA [0-9]\\|^CPU [0-9]" $d-summary.txt | head -45
    grep -o '"seconds_per_step": [0-9.e-]*\|"tasks_per_gpu": [^]]*\|"tasks_per_step": [0-9]*' $out/trace.json | paste -sd' '
    tar -C $out -czf $out/$name.tar.gz $name/paje.trace $name/tasks.rec $name/data.rec $name-summary.txt $(cd $out && ls $name-gantt.png 2>/dev/null) trace.json
    rm -rf $d $out/tp.csv $out/c.log $out/trace.json $d-summary.txt $d-gantt.png
  }
  gpus() { grep -o '"aligned_neurons": [0-9]*\|"tasks_per_step": [0-9]*\|"tasks_per_gpu": [^]]*\|"nworker_per_cuda": [0-9]*' $out/t.json 2>/dev/null | paste -sd' '; }
  parts=${PARTS:-check pairs mono unseen trace}
  case " $parts " in *" check "*)
    { for spec in B-aligned six-aligned-hh; do same_probes $spec 300; done
      timeout 240 "$bundle/bin/test_multi_levels" > "$out/tml2.txt" 2>&1; echo "test_multi_levels, CPU and two GPUs' workers: rc=$? $(tail -1 $out/tml2.txt)"
    } 2>&1 | tee $out/check.txt ;;
  esac
  case " $parts " in *" mono "*)
    for rep in $(seq ${ROUNDS:-2}); do
      row 1 mono t1 -- --steps 1000 --task-neurons 256000; gpus
      for tn in 64000 16000 4000; do row 2 mono t$((256000 / tn)) -- --steps 1000 --task-neurons $tn; gpus; done
      for s in eager lws dmda dmdas; do STARPU_SCHED=$s row 2 mono t16-$s -- --steps 1000 --task-neurons 16000; gpus; done
    done ;;
  esac
  case " $parts " in *" unseen "*)
    saved=$STARPU_HOME; export STARPU_HOME=$out/starpu-home-unseen; rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME
    rep=0; for pass in 1 2; do row 1 mono calibrate-256000 -- --steps 200 --calibrate; done
    rep=1; row 2 monoc-medium-high-512000 unseen-first -- --steps 1000; gpus
    rep=2; row 2 monoc-medium-high-512000 unseen-second -- --steps 1000; gpus
    rep=1; row 1 monoc-medium-high-512000 gpu1-t1 -- --steps 1000 --task-neurons 512000; gpus
    export STARPU_HOME=$saved ;;
  esac
  case " $parts " in *" trace "*)
    { trace_two mono trace-two-gpus-16-tasks "hinestask mono 256,000 medium-high, 16 tasks a step over 2 x H200 (GPUs alone)" --task-neurons 16000
      trace_two large-13286 trace-two-gpus-multi-large "hinestask multi, the large cells x 13,286, 2 x H200 (GPUs alone), default chunks"
    } 2>&1 | tee $out/traces.txt ;;
  esac
  case " $parts " in *" pairs "*)
    for rep in $(seq ${ROUNDS:-2}); do
      for bb in ${PAIRS:-large-6643:large-13286 D-7404:D-14808 B-8330:B-16660 C-11720:C-23440 all15-16356:all15-32712 A-8820:A-17640 six-33390:six-66780 random-23585:random-47170 E-18711:E-37422}; do
        row 1 ${bb%:*} gpu1 -- --steps 1000; gpus
        row 2 ${bb#*:} gpu2 -- --steps 1000; gpus
        for v in ${BUILDS:-}; do row 2 ${bb#*:} gpu2-$v $v -- --steps 1000; gpus; done
        row 2 ${bb%:*} gpu2-same -- --steps 1000; gpus
        for v in ${BUILDS:-}; do row 2 ${bb%:*} gpu2-same-$v $v -- --steps 1000; gpus; done
      done
    done ;;
  esac
  case " $parts " in *" share "*) builds_share 2 ${ROUNDS:-2} "${MIXES:-B-16660 large-13286}" default ;; esac
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = again132 ] || [ "$mode" = again132b ]; then
  [ -z "${SKIP_CHECK:-}" ] && share_probes_check "${CHECK_MIXES:-random-12000}" --probe 39:50 --probe LAST:50
  for b in ${MIXES:-random-12000 random-12400 random-12800 random-13200 R2-12000 A-5000 large-4000 B-4165 D-4000 E-10000}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    for rep in $(seq ${ROUNDS:-3}); do
      ROW_NCPU=all row 1 $b default -- --steps 1000; shares; worker_load; probe_keys
      for v in ${BUILDS:-off}; do ROW_NCPU=all row 1 $b default-$v $v -- --steps 1000; shares; worker_load; probe_keys; done
      row 1 $b gpu -- --steps 1000
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = trees133 ]; then
  [ -z "${SKIP_CHECK:-}" ] && share_probes_check "${CHECK_MIXES:-random-12000}" --probe 39:50 --probe LAST:50
  for rep in $(seq ${CPU_ROUNDS:-2}); do
    for bt in ${CPU_MIXES:-random-180:3 random-660:11 R2-180:3 random-180-hh:3 E-360:6 six-900:15 C-240:4 D-180:6}; do
      b=${bt%:*}; tn=${bt#*:}
      for v in main ${BUILDS:-teams generic}; do
        bld=(); [ $v != main ] && bld=($v)
        ROW_NCPU=15 row 0 $b tn$tn-$v "${bld[@]}" -- --steps 200 --task-neurons $tn --level-kernel levels
      done
    done
  done
  # every round with its CPU workers' loads (the first call's one short round had none)
  BUILDS_LOAD=${BUILDS_LOAD-1} builds_share 1 ${ROUNDS:-3} "${MIXES:-random-12000 random-12400 random-13200 R2-12400 A-5000 E-10000 B-4165}" default ${BUILDS:-teams generic}
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = tail135 ]; then
  [ -z "${SKIP_CHECK:-}" ] && share_probes_check "${CHECK_MIXES:-A-5000}" --probe 39:50 --probe LAST:50
  BUILDS_LOAD=${BUILDS_LOAD-1} builds_share 1 ${ROUNDS:-3} "${MIXES:-A-5000 six-20000 random-12000 D-3702 E-10000 C-5860 B-4165 large-3322 all15-8178 T-20000}" default ${BUILDS:-notail}
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = tail135b ]; then
  late_share "${MIXES:-A-5000 six-20000 random-12000}"
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = cut136 ]; then
  # the cut's steps on stderr (hinestask_dbg: PLACEMENT_SHARE_DEBUG 1) from a fresh home
  for b in ${DBG_MIXES:-D-3702 H-10000}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do
      ROW_NCPU=all row 1 $b calibrate-dbg dbg -- --steps 200 --calibrate; shares
      { echo "== $b calibrate $pass"; grep -i "share" $out/t.log | head -300; } >> $out/cut136-dbg.txt
    done
    for rep in $(seq ${DBG_ROUNDS:-2}); do
      ROW_NCPU=all row 1 $b default-dbg dbg -- --steps 1000; shares; worker_load
      { echo "== $b default $rep"; grep -i "share" $out/t.log | head -300; } >> $out/cut136-dbg.txt
      row 1 $b gpu -- --steps 1000
    done
  done
  # the cores made late (tail135b's rounds) ...
  late_share "${LATE_MIXES-A-5000 six-20000 D-3702}"
  # ... and the default share on mixes never tuned on (fresh homes, the CPU workers' loads)
  BUILDS_LOAD=1 builds_share 1 ${ROUNDS:-3} "${MIXES:-G-32000 H-10000 F-80000 R2-12000}" default
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = cut136b ]; then
  # the set up's probes run by run (hinestask_dbg, the probes' keys): DBG_ROUNDS rounds a batch
  for b in ${DBG_MIXES:-D-3702 large-3322}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-dbg dbg -- --steps 200 --calibrate; shares; done
    for rep in $(seq ${DBG_ROUNDS:-10}); do
      ROW_NCPU=all row 1 $b default-dbg dbg -- --steps 1000; shares; probe_keys; worker_load
      { echo "== $b default $rep"; grep -i "share probe\|share set up\|share busiest" $out/t.log | head -40; } >> $out/cut136b-dbg.txt
      [ $((rep % 3)) = 1 ] && row 1 $b gpu -- --steps 1000
    done
  done
  # the two builds in the same rounds beside the copying processes, one home a batch, the
  # builds' order alternating round by round
  for b in ${LATE_MIXES:-D-3702 A-5000 six-20000}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    for rep in $(seq ${ROUNDS:-4}); do
      order="default notail"; [ $((rep % 2)) = 0 ] && order="notail default"
      hogs_on
      for v in $order; do
        bld=(); [ $v != default ] && bld=($v)
        ROW_NCPU=all row 1 $b hogs-$v "${bld[@]}" -- --steps 300; shares; worker_load; left
      done
      row 1 $b gpu-hogs -- --steps 300
      hogs_off
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = unseen136 ]; then
  [ -z "${SKIP_CHECK:-}" ] && share_probes_check "${CHECK_MIXES:-H-8000}" --probe 39:50 --probe LAST:50
  BUILDS_LOAD=1 BUILDS_PROBE=1 builds_share 1 ${ROUNDS:-3} "${MIXES:-G-27000 H-8000 F-62000 R2-9600 deep-15000 ca1-17000 H-12000 G-40000}" default ${BUILDS-su85}
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = reprobe137 ]; then
  [ -z "${SKIP_CHECK:-}" ] && share_probes_check "${CHECK_MIXES:-D-3702}" --probe 39:50 --probe LAST:50
  BUILDS_LOAD=1 BUILDS_PROBE=1 builds_share 1 ${ROUNDS:-4} "${MIXES:-D-3702 large-3322 B-4165 D-5520 A-5000 random-12000}" default ${BUILDS-reprobe}
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = idle138 ]; then
  if [ -z "${SKIP_CHECK:-}" ]; then
    Hdefault=$H; H=$out/hinestask_idle
    share_probes_check "${CHECK_MIXES:-large-3322}" --probe 39:50 --probe LAST:50; H=$Hdefault
  fi
  for b in ${MIXES:-large-3322 large-2900 large-4000 D-3702 B-4165 A-5000 C-5860 E-12000 all15-8000 G-27000 H-8000 random-12000}; do
    rm -rf $STARPU_HOME $out/saved-home; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    cp -a $STARPU_HOME $out/saved-home
    for rep in $(seq ${ROUNDS:-3}); do
      for v in default idle; do
        bld=(); [ $v != default ] && bld=($v)
        rm -rf $STARPU_HOME; cp -a $out/saved-home $STARPU_HOME
        ROW_NCPU=all row 1 $b share-$v "${bld[@]}" -- --steps 1000; shares; worker_load; probe_keys
      done
      row 1 $b gpu -- --steps 1000
    done
  done
  rm -rf $out/saved-home; rm -f $out/t.json $out/t.log
fi
if [ "$mode" = idle138b ]; then
  # from_saved BATCH LABEL [BUILD]: a share row from the saved models, its loads and probe keys
  from_saved() {
    rm -rf $STARPU_HOME; cp -a $out/saved-home $STARPU_HOME
    ROW_NCPU=all row 1 $1 $2 ${3:-} -- --steps 1000; shares; worker_load; probe_keys
  }
  for b in ${MIXES:-large-3322 H-8000 C-5860 G-27000 large-4000 B-4165 A-5000 random-12000 D-3702 E-12000 all15-8000 ca1-17000}; do
    rm -rf $STARPU_HOME $out/saved-home; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    cp -a $STARPU_HOME $out/saved-home
    for rep in $(seq ${ROUNDS:-2}); do
      from_saved $b share-default; row 1 $b gpu -- --steps 1000
      from_saved $b share-idle idle; from_saved $b b2b-default; from_saved $b b2b-retry retry
      row 1 $b gpu -- --steps 1000
    done
  done
  rm -rf $out/saved-home; rm -f $out/t.json $out/t.log
fi
if [ "$mode" = stuck138 ]; then
  home=0
  while [ $(( $(date +%s) - T0 + 15 )) -lt $LIMIT ]; do
    b=${MIXES:-large-3322}; home=$((home + 1)); rep=$home
    rm -rf $STARPU_HOME $out/saved-home; mkdir -p $STARPU_HOME
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    cp -a $STARPU_HOME $out/saved-home
    for v in default gpu idle; do
      if [ $v = gpu ]; then row 1 $b gpu -- --steps 1000; continue; fi
      bld=(); [ $v != default ] && bld=($v)
      rm -rf $STARPU_HOME; cp -a $out/saved-home $STARPU_HOME
      ROW_NCPU=all row 1 $b share-$v "${bld[@]}" -- --steps 1000; shares; probe_keys
    done
  done
  rm -rf $out/saved-home; rm -f $out/t.json $out/t.log
fi
if [ "$mode" = steps139 ]; then
  if [ -z "${SKIP_CHECK:-}" ]; then
    Hdefault=$H; H=$out/hinestask_steps3idle
    share_probes_check "${CHECK_MIXES:-large-4000}" --probe 39:50 --probe LAST:50; H=$Hdefault
  fi
  for b in ${MIXES:-large-4000 large-3322 large-4700 D-3702 B-4165 A-5000 H-8000 random-12000 C-5860 all15-8000}; do
    rm -rf $STARPU_HOME $out/saved-home; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    cp -a $STARPU_HOME $out/saved-home
    for rep in $(seq ${ROUNDS:-2}); do
      for v in ${VARIANTS:-default steps3 steps3idle}; do
        bld=(); [ $v != default ] && bld=($v)
        rm -rf $STARPU_HOME; cp -a $out/saved-home $STARPU_HOME
        ROW_NCPU=all row 1 $b share-$v "${bld[@]}" -- --steps 1000; shares; worker_load; probe_keys
        row 1 $b gpu -- --steps 1000
      done
    done
  done
  rm -rf $out/saved-home; rm -f $out/t.json $out/t.log
fi
if [ "$mode" = lag141 ]; then
  # lag_row BATCH LABEL [BUILD]: a share row from the saved models; LATE set: the stopped copying
  # processes let go LATE_S seconds into the run, stopped again after it
  lag_row() {
    local waker=
    rm -f $out/t.json $out/t.log # a row skipped for time must not leave the last run's lines
    rm -rf $STARPU_HOME; cp -a $out/saved-home $STARPU_HOME
    [ -n "${LATE:-}" ] && { (sleep ${LATE_S:-1.8}; kill -CONT "${hog_pids[@]}" 2>/dev/null) & waker=$!; }
    if [ "$2" = gpu ]; then row 1 $1 $2$LATE -- --steps 1000
    else ROW_NCPU=all row 1 $1 $2$LATE ${3:-} -- --steps 1000; shares; worker_load
      grep "^share lag" $out/t.log | sed "s/^/$1 $2$LATE $rep: /" >> $out/lag141-lines.txt; fi
    [ -n "$waker" ] && { wait $waker 2>/dev/null; kill -STOP "${hog_pids[@]}" 2>/dev/null; }
    return 0
  }
  for b in ${MIXES:-D-4100 large-4200 C-6400 A-5000 six-20000 random-13000 B-5400 E-9800 H-8600 all15-9400}; do
    rm -rf $STARPU_HOME $out/saved-home; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    cp -a $STARPU_HOME $out/saved-home
    for rep in $(seq ${ROUNDS:-2}); do
      # the builds' order alternates round by round (lag141b on; the first call kept it)
      order="default lag"; [ -n "${ALTERNATE:-}" ] && [ $((rep % 2)) = 0 ] && order="lag default"
      for v in $order; do LATE= lag_row $b share-$v $([ $v = lag ] && echo lag); done
      LATE= lag_row $b gpu
      hogs_on; kill -STOP "${hog_pids[@]}" 2>/dev/null
      for v in $order; do LATE=-late lag_row $b share-$v $([ $v = lag ] && echo lag); done
      LATE=-late lag_row $b gpu
      kill -CONT "${hog_pids[@]}" 2>/dev/null; hogs_off
    done
  done
  rm -rf $out/saved-home; rm -f $out/t.json $out/t.log
fi
if [ "$mode" = nice142 ]; then
  # nice_row BATCH LABEL BUILD: a row from the saved models (LABEL gpu: the GPU alone); LATE set:
  # the stopped copying processes let go LATE_S seconds into the run, stopped again after it
  # A variant is BUILD, or LABEL=BUILD[@LIBDIR]:[OPTION,OPTION...] (chunks143: hinestask's
  # options; block145: LIBDIR, a folder of the bundle whose libstarpu the build runs with).
  nice_row() {
    local waker= build=$3 opts=() libdir=
    case $3 in *=*) build=${3#*=}; IFS=, read -r -a opts <<< "${build#*:}"; build=${build%%:*} ;; esac
    case $build in *@*) libdir=$bundle/${build#*@}; build=${build%%@*} ;; esac
    local LD_LIBRARY_PATH=${libdir:+$libdir:}$LD_LIBRARY_PATH
    rm -f $out/t.json $out/t.log
    rm -rf $STARPU_HOME; cp -a $out/saved-home $STARPU_HOME
    [ -n "${LATE:-}" ] && { (sleep ${LATE_S:-1.8}; kill -CONT "${hog_pids[@]}" 2>/dev/null) & waker=$!; }
    if [ "${2%%-*}" = gpu ]; then row 1 $1 $2$LATE $build -- --steps 1000
    else ROW_NCPU=all row 1 $1 $2$LATE $build -- --steps 1000 "${opts[@]}"; shares; worker_load; fi
    grep "^thread waits" $out/t.log 2>/dev/null | sed "s/^/$1 $2$LATE $rep: /" >> $out/nice142-lines.txt
    [ -n "$waker" ] && { wait $waker 2>/dev/null; kill -STOP "${hog_pids[@]}" 2>/dev/null; }
    return 0
  }
  read -r -a variants <<< "${VARIANTS:-waits nice5 nice5lag}"
  # GPU_BUILDS (block145b): the GPU alone with each of these variants (LABEL=BUILD@LIBDIR: rows
  # labelled gpu-LABEL), so that a library that helps the share is seen not to slow the GPU alone
  read -r -a gpu_builds <<< "${GPU_BUILDS:-waits}"
  gpu_label() { case $1 in *=*) echo gpu-${1%%=*} ;; *) echo gpu ;; esac; }
  # CPU_MIXES (cpublock146): first the CPU workers alone (no GPU), 1,000 steps, each of GPU_BUILDS
  # (rows cpu and cpu-LABEL), CPU_ROUNDS rounds in turned order: a library whose idle CPU
  # workers sleep must not slow the cores alone, whose tasks start and end more often
  for b in ${CPU_MIXES:-}; do
    for rep in $(seq ${CPU_ROUNDS:-3}); do
      nb=${#gpu_builds[@]} # (args_of sets n)
      for i in $(seq 0 $((nb - 1))); do
        v=${gpu_builds[$(( (i + rep - 1) % nb ))]} build= libdir=
        build=${v#*=}; build=${build%%:*}; [ "$build" = "$v" ] && build=${v%%:*}
        case $build in *@*) libdir=$bundle/${build#*@}; build=${build%%@*} ;; esac
        label=$(gpu_label $v); label=cpu${label#gpu}
        LD_LIBRARY_PATH=${libdir:+$libdir:}$LD_LIBRARY_PATH ROW_NCPU=all row 0 $b $label $build -- --steps 1000
      done
    done
  done
  for b in ${MIXES:-six-20000 A-5000 D-4100 random-13000 large-4200 C-6400 E-9800 all15-9400}; do
    rm -rf $STARPU_HOME $out/saved-home; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate -- --steps 200 --calibrate; shares; done
    # CALIBRATE_OPTIONS: one more calibration run for each of these option sets (OPTION,VALUE
    # ...; chunks143: the size models measure the chunk sizes those cut too)
    for o in ${CALIBRATE_OPTIONS:-}; do ROW_NCPU=all row 1 $b calibrate-$o -- --steps 200 --calibrate ${o//,/ }; shares; done
    cp -a $STARPU_HOME $out/saved-home
    for rep in $(seq ${ROUNDS:-2}); do
      n=${#variants[@]}; order=()
      for i in $(seq 0 $((n - 1))); do order+=(${variants[$(( (i + rep - 1) % n ))]}); done
      for v in "${order[@]}"; do LATE= nice_row $b share-${v%%=*} $v; done
      for v in "${gpu_builds[@]}"; do LATE= nice_row $b $(gpu_label $v) $v; done
      hogs_on; kill -STOP "${hog_pids[@]}" 2>/dev/null
      for v in "${order[@]}"; do LATE=-late nice_row $b share-${v%%=*} $v; done
      for v in "${gpu_builds[@]}"; do LATE=-late nice_row $b $(gpu_label $v) $v; done
      kill -CONT "${hog_pids[@]}" 2>/dev/null; hogs_off
    done
  done
  rm -rf $out/saved-home; rm -f $out/t.json $out/t.log
fi
if [ "$mode" = unseen140 ]; then
  [ -z "${SKIP_CHECK:-}" ] && share_probes_check "${CHECK_MIXES:-D-4400}" --probe 39:50 --probe LAST:50
  BUILDS_LOAD=1 BUILDS_PROBE=1 builds_share 1 ${ROUNDS:-3} "${MIXES:-D-3800 D-4400 large-3500 large-4200 C-6400 E-10600 all15-8600 six-17000 G-29000 H-9400 R2-11500 deep-16000}" default
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = thp134 ]; then
  echo "THP enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled) defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag)"
  grep -m1 "model name" /proc/cpuinfo; grep MHz /proc/cpuinfo | sort | uniq -c | head -4
  # the host's steal time (jiffies, all CPUs: a KVM guest's cores taken by other guests) and
  # anonymous huge pages, every 0.25 s, beside each share row's start and end
  (while :; do echo "sample $(date +%s.%N) $(awk '/^cpu /{print $9}' /proc/stat) $(awk '/AnonHugePages/{print $2}' /proc/meminfo)"; sleep 0.25; done) > $out/thp134-samples.txt &
  sampler=$!
  for b in ${MIXES:-A-5000 random-12000 six-20000}; do
    rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
    for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-default -- --steps 200 --calibrate; shares; done
    for rep in $(seq ${ROUNDS:-6}); do
      echo "start $(date +%s.%N) $b default $rep"
      ROW_NCPU=all row 1 $b default -- --steps 1000; shares; worker_load
      echo "end $(date +%s.%N)"; echo "start $(date +%s.%N) $b default-thp $rep"
      GLIBC_TUNABLES=glibc.malloc.hugetlb=1 ROW_NCPU=all row 1 $b default-thp -- --steps 1000; shares; worker_load
      echo "end $(date +%s.%N)"
      row 1 $b gpu -- --steps 1000
    done
  done
  kill $sampler
  rm -f $out/t.json $out/t.log
fi
# five_neuron_probes N: pr, the options of a 200-step run with the stimulus on and probes of
# five of N neurons every 0.1 ms (the bit checks' runs).
five_neuron_probes() {
  local n=$1 k
  pr=(--steps 200 --stim-amp 1 --probe-every 0.1)
  for k in 0 1 $(( n / 3 )) $(( n / 2 + 1 )) $(( n - 1 )); do pr+=(--probe $k:0 --probe $k:40); done
}
if [ "$mode" = cpugpu148 ]; then
  for b in ${MIXES:-large-3322 D-3702 all15-8178 C-5860}; do
    args_of $b; n=${b##*-}
    five_neuron_probes $n
    rm -f $out/p_gpu.csv $out/p_cpu.csv # a failed run must leave no file behind to compare
    IFS=, read -r -a extra <<< "${EXTRA:-}"
    STARPU_NCPU=0 timeout 120 "$H" --quiet --force "${A[@]}" "${extra[@]}" "${pr[@]}" --probes $out/p_gpu.csv > $out/t.log 2>&1 || echo "FAIL $b GPU alone: $(tail -1 $out/t.log)"
    STARPU_NCUDA=0 timeout 300 "$H" --quiet --force "${A[@]}" "${extra[@]}" "${pr[@]}" --probes $out/p_cpu.csv > $out/t.log 2>&1 || echo "FAIL $b CPU workers alone: $(tail -1 $out/t.log)"
    [ -s $out/p_gpu.csv ] && cmp -s $out/p_gpu.csv $out/p_cpu.csv && echo "PASS $b: CPU workers alone and the GPU alone, the same probe bits ($(wc -l < $out/p_cpu.csv) lines)" || echo "FAIL $b: CPU and GPU probe files differ or missing"
  done
  rm -f $out/p_gpu.csv $out/p_cpu.csv $out/t.log
fi
if [ "$mode" = samebits144 ]; then
  for b in ${MIXES:-large-3322 D-3702 all15-8178 E-9356}; do
    args_of $b; n=${b##*-}
    five_neuron_probes $n
    rm -f $out/p_ref.csv # a failed run must leave no file behind to compare
    STARPU_NCPU=0 timeout 120 "$H" --quiet --force "${A[@]}" "${pr[@]}" --probes $out/p_ref.csv > $out/t.log 2>&1 || echo "FAIL $b reference: $(tail -1 $out/t.log)"
    for v in ${BUILDS:-}; do
      rm -f $out/p_v.csv
      STARPU_NCPU=0 timeout 120 "$out/hinestask_$v" --quiet --force "${A[@]}" "${pr[@]}" --probes $out/p_v.csv > $out/t.log 2>&1 || echo "FAIL $b $v: $(tail -1 $out/t.log)"
      [ -s $out/p_ref.csv ] && cmp -s $out/p_ref.csv $out/p_v.csv && echo "PASS $b $v: same probe bits as this build ($(wc -l < $out/p_v.csv) lines)" || echo "FAIL $b $v: probe files differ or missing"
    done
  done
  rm -f $out/p_ref.csv $out/p_v.csv $out/t.log
fi
if [ "$mode" = half141 ]; then
  for rep in $(seq ${ROUNDS:-2}); do
    for bb in ${PAIRS:-large-6643:large-3322 D-7404:D-3702 B-8330:B-4165 C-11720:C-5860 all15-16356:all15-8178 A-8820:A-4410 E-18711:E-9356}; do
      for side in full half; do
        [ $side = full ] && b=${bb%:*} builds=${FULL_BUILDS:-} || b=${bb#*:} builds=${HALF_BUILDS:-}
        row 1 $b $side -- --steps 1000; shares
        for v in $builds; do
          label=${v%%:*} rest=${v#*:}; [ "$rest" = "$v" ] && rest=$label
          build=${rest%%:*} opts=(); [ "${rest#*:}" != "$rest" ] && IFS=, read -r -a opts <<< "${rest#*:}"
          row 1 $b $side-$label $build -- --steps 1000 "${opts[@]}"; shares
        done
      done
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = half132 ]; then
  for rep in $(seq ${ROUNDS:-2}); do
    for bb in ${PAIRS:-large-6643:large-3322 D-7404:D-3702 B-8330:B-4165 C-11720:C-5860 all15-16356:all15-8178 A-8820:A-4410 E-18711:E-9356}; do
      half=${bb#*:}; n=${half##*-}
      row 1 ${bb%:*} full -- --steps 1000; shares
      for v in ${FULL_VARIANTS:-}; do
        IFS=, read -r -a opts <<< "${v#*:}"
        row 1 ${bb%:*} full-${v%%:*} -- --steps 1000 "${opts[@]}"; shares
      done
      row 1 $half half -- --steps 1000; shares
      for v in ${HALF_VARIANTS:-parts2:--task-parts,2 c2 c3 split56:--level-split,56 trunk6:--trunk-branches,6 trunk10:--trunk-branches,10 priooff:--level-priorities,off steps32:--task-steps,32 warpsall:--level-warps,all}; do
        case $v in
        c[0-9]*) k=${v%%:*}; k=${k#c}; k=${k%%[!0-9]*}; opts=(--task-neurons $(( (n + k - 1) / k ))) ;;
        *) opts=() ;;
        esac
        if [ "${v#*:}" != "$v" ]; then IFS=, read -r -a more <<< "${v#*:}"; opts+=("${more[@]}"); v=${v%%:*}; fi
        row 1 $half half-$v -- --steps 1000 "${opts[@]}"; shares
      done
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = longer130 ]; then
  [ -z "${SKIP_CHECK:-}" ] && share_probes_check "B-5300 six-20000-hh" --probe 17:5 --probe 5001:50
  BUILDS_LOAD=1 builds_share 1 ${ROUNDS:-2} "${MIXES:-B-6200 large-5000 A-7000 D-6000 C-9000 all15-12500 E-12000 six-20000 random-14000 F-70000}" default off
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = rescaled131 ]; then
  [ -z "${SKIP_CHECK:-}" ] && share_probes_check "${CHECK_MIXES:-random-14000}" --probe 39:50 --probe LAST:50
  BUILDS_LOAD=1 BUILDS_PROBE=1 builds_share 1 ${ROUNDS:-2} "${MIXES:-random-14000 random-12000 R2-14000 A-5000 large-4000 C-5860 all15-8000 B-4165 E-12000 D-6000}" default off
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = chunks131 ]; then
  chunk_counts_share "${MIXES:-random-14000 random-12000 large-4000 B-4165 A-5000 D-6000}" "${COUNTS:-2 1}" ${ROUNDS:-2} k
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = steps129 ]; then
  for b in ${MIXES:-large-4400 A-5800 C-7600 D-3900 B-5300 H-11000}; do
    for k in ${STEPS:-8 32}; do
      rm -rf $STARPU_HOME; mkdir -p $STARPU_HOME; rep=0
      for pass in 1 2 3; do ROW_NCPU=all row 1 $b calibrate-t$k -- --steps 200 --calibrate --task-steps $k; shares; done
      for rep in $(seq ${ROUNDS:-2}); do
        ROW_NCPU=all row 1 $b share-t$k -- --steps 1000 --task-steps $k; shares; worker_load
        row 1 $b gpu-t$k -- --steps 1000 --task-steps $k
        row 1 $b gpu -- --steps 1000
      done
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = equal128 ]; then
  for rep in $(seq ${ROUNDS:-3}); do
    for b in ${SIZES:-D-5120 D-5248 D-5376 B-4736 B-4864 large-4160 A-5088 all15-9120}; do
      q=$(( (${b##*-} + 3) / 4 ))
      row 1 $b gpu -- --steps 1000; shares
      row 1 $b gpu-off -- --steps 1000 --level-priorities off; shares
      row 1 $b equal -- --steps 1000 --task-neurons $q; shares
      row 1 $b equal-off -- --steps 1000 --task-neurons $q --level-priorities off; shares
    done
  done
  rm -f $out/t.json $out/t.log
fi
if [ "$mode" = steps127 ]; then
  for rep in $(seq ${ROUNDS:-3}); do
    for b in ${SIZES:-D-5120 D-5248 D-5376 D-5504 D-5520 B-4608 B-4736 B-4864 B-4992 large-3840 large-4000 large-4160 large-4320 large-4480 A-4992 A-5088 A-5184 A-5280 A-5376}; do
      [ -z "${NODEF:-}" ] && { row 1 $b gpu -- --steps 1000; shares; }
      for v in ${VARIANTS:-}; do row 1 $b gpu-prio-$v -- --steps 1000 --level-priorities $v; shares; done
      for v in ${BUILDS:-}; do row 1 $b gpu-$v $v -- --steps 1000; shares; done
    done
  done
  rm -f $out/t.json $out/t.log
fi
