/* The sequential reference of one neuron's time loop: the rows of step_model.h +
 * hines_solve_reference per step. The batched, tasked, GPU time loops are checked against it
 * (--verify and the tests). */
#ifndef HINES_REFERENCE_SIMULATION_H
#define HINES_REFERENCE_SIMULATION_H

#include "step_model.h"

/* Advances v_mV (n values) by `steps` steps of dt from t0 for neuron `global_neuron`; with
 * channels (channels may be NULL: passive) their gates start at rest for the initial v. */
int reference_simulate(const struct morphology *m, const struct cable_parameters *cable,
                       const struct channel_set *channels, double dt_ms, int steps, double t0_ms,
                       const struct stimulus *stim, int global_neuron, double *v_mV,
                       struct hines_error *err);
/* The same with the gates' rates computed as `hh_rates` says (enum hh_rates; reference_simulate:
 * exact), a rate table built here for dt as the batches build theirs. */
int reference_simulate_rates(const struct morphology *m, const struct cable_parameters *cable,
                             const struct channel_set *channels, int hh_rates, double dt_ms,
                             int steps, double t0_ms, const struct stimulus *stim,
                             int global_neuron, double *v_mV, struct hines_error *err);

/* reference_simulate_rates, keeping the last step's rows before they are solved: last_diagonal and
 * last_rhs (n values each) receive the diagonal and right-hand side of the system A v = rhs whose
 * solution is the final v_mV (the off-diagonals are the morphology's cable coefficients).
 * --verify measures how well another solver's final voltages satisfy that system. */
int reference_simulate_keeping_last_rows(const struct morphology *m,
                                         const struct cable_parameters *cable,
                                         const struct channel_set *channels, int hh_rates,
                                         double dt_ms, int steps, double t0_ms,
                                         const struct stimulus *stim, int global_neuron,
                                         double *v_mV, double *last_diagonal, double *last_rhs,
                                         struct hines_error *err);

/* Gershgorin's bound of the 2-norm condition number of the step matrix of morphology m (channels
 * may be NULL: passive): --verify's and the tests' tolerance against the reference is about
 * 2 n eps times it, the forward error a backward-stable solve of one step may make, twice. */
double reference_condition_bound(const struct morphology *m, const struct cable_parameters *cable,
                                 const struct channel_set *channels, double dt_ms);

#endif
