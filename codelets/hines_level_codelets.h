/* The multi-morphology level codelets. Buffers:
 *   level_backward_codelet: block (R, int vector), constants (R), voltage (RW), factor (W),
 *                           contribution (W, 2 per system), child contribution (R: the next
 *                           level's, or a 2-value dummy on the deepest level)
 *   level_forward_codelet:  block (R), voltage (RW), factor (R),
 *                           parent voltage (R: the previous level's, or a dummy on level 0)
 * cl_arg: struct level_step_arguments. Per-level tasks show the paper's decomposition in traces
 * and let several workers share the levels of a chunk. */
#ifndef HINES_LEVEL_CODELETS_H
#define HINES_LEVEL_CODELETS_H

#include "hines_codelet.h"

#include "hines_level_kernels.h"

extern struct starpu_codelet level_backward_codelet;
extern struct starpu_codelet level_forward_codelet;

/* chunk_step_codelet: one task per chunk and step that sweeps all its levels (kernels queued
 * back to back on the GPU stream, no runtime round trip between levels). Buffers: the chunk's
 * concatenated level descriptions (R), constants (R), voltage (RW), factor (W), contribution (W)
 * [, gates (RW)]; cl_arg: struct chunk_step_arguments. */
extern struct starpu_codelet chunk_step_codelet;

#endif
