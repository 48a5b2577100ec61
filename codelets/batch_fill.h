/* A batch's host arrays written by tasks on the CPU cores instead of the one thread that builds
 * the batch. The first write to a fresh page makes the kernel zero it: writing a batch of tens of
 * millions of compartments (its voltages, gates and tables) was most of the time a run spent
 * before its first step (all 15 shared cells x 16,356, 83 M compartments: 2.5 s of a 4.35 s run
 * on the H200 machine's host, most of it one thread zeroing and filling pages). Tasks of this
 * codelet write one piece each; the cores StarPU drives take the pieces, so the work spreads over
 * them without a thread beside StarPU's workers. */
#ifndef HINES_BATCH_FILL_H
#define HINES_BATCH_FILL_H

#include <starpu.h>

/* Writes piece `piece` of what `argument` describes; pieces write disjoint memory. */
typedef void (*batch_fill_function)(void *argument, int piece);

extern struct starpu_codelet batch_fill_codelet;

/* A task (not detached: starpu_task_wait ends and frees it) that runs fill(argument, piece) on a
 * CPU core, `bytes` the memory it writes (what its model predicts from); NULL when out of memory.
 * The caller submits it with starpu_task_submit: a fill is the node's own, never an MPI task. */
struct starpu_task *batch_fill_task(batch_fill_function fill, void *argument, int piece,
                                    double bytes);

#endif
