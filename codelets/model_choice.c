/* Which performance models the codelets carry (hines_codelet.h). */
#include "hines_codelet.h"
#include "hines_level_codelets.h"
#include "hines_mono_codelets.h"

void hines_codelets_use_history_models(void) {
  struct starpu_codelet *const all[] = {&hines_solve_codelet,   &hines_step_codelet,
                                        &neuron_step_codelet,   &level_backward_codelet,
                                        &level_forward_codelet, &chunk_step_codelet};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
    /* StarPU's own history model under the same symbol: StarPU stores it under STARPU_HOME,
     * where starpu_perfmodel_display and starpu_perfmodel_plot (-i TRACE too) find it. */
    all[i]->model->type = STARPU_HISTORY_BASED;
    all[i]->model->arch_cost_function = NULL;
  }
}
