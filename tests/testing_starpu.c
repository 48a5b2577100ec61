/* cmocka group set-up and tear-down that start and stop StarPU with the workers the test
 * environment asks for (CPU-only under ctest). */
#include <starpu.h>

#include "testing.h"

int testing_starpu_start(void **state) {
  (void)state;
  return starpu_init(NULL) == 0 ? 0 : -1;
}

int testing_starpu_stop(void **state) {
  (void)state;
  starpu_shutdown();
  return 0;
}
