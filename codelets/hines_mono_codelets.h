/* The mono-morphology codelets. Buffers, in order:
 *   hines_solve_codelet: topology (R, vector of int), coefficients (R, vector of double),
 *                        diagonal (RW, matrix), rhs (RW, matrix)  -- rhs becomes the solution
 *   hines_step_codelet:  topology (R), coefficients (R), voltage (RW, matrix), work (W, matrix)
 * cl_arg: struct chunk_geometry (solve) or struct step_arguments (step), whose ld and neuron
 * count the codelet refreshes from the matrix interface it receives. */
#ifndef HINES_MONO_CODELETS_H
#define HINES_MONO_CODELETS_H

#include "hines_codelet.h"

#include "hines_mono_kernels.h"

extern struct starpu_codelet hines_solve_codelet;
extern struct starpu_codelet hines_step_codelet;
/* The multi-morphology baseline: neuron table (R, int vector), topology table (R), coefficient
 * table (R), voltage (RW, matrix: neurons along x, compartments along y), work (W);
 * cl_arg: struct step_arguments. */
extern struct starpu_codelet neuron_step_codelet;

#endif
