/* The ranges of a distributed batch (runtime/distribution.h): contiguous, covering every neuron
 * once, balanced by compartments within one neuron, and the same for the same inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "distribution.h"
#include "testing.h"

static long long range_compartments(const int *compartments, int m, int begin, int end) {
  long long sum = 0;
  for (int k = begin; k < end; k++)
    sum += compartments[k % m];
  return sum;
}

static void ranges_cover_and_balance(void **state) {
  (void)state;
  uint64_t seed = testing_seed();
  for (int trial = 0; trial < 200; trial++) {
    const int m = 1 + testing_below(&seed, 20), neurons = 1 + testing_below(&seed, 5000);
    const int ranks = 1 + testing_below(&seed, 40);
    int compartments[20], largest = 0;
    for (int i = 0; i < m; i++) {
      /* mixes of tiny and large cells, as real mixes are */
      compartments[i] = testing_below(&seed, 2) ? 1 + testing_below(&seed, 50)
                                                : 1000 + testing_below(&seed, 25000);
      largest = compartments[i] > largest ? compartments[i] : largest;
    }
    int *first = malloc((ranks + 1) * sizeof *first), *again = malloc((ranks + 1) * sizeof *again);
    distribution_ranges(neurons, compartments, m, ranks, first);
    distribution_ranges(neurons, compartments, m, ranks, again);
    const long long total = range_compartments(compartments, m, 0, neurons);
    assert_int_equal(first[0], 0);
    assert_int_equal(first[ranks], neurons);
    for (int r = 0; r < ranks; r++) {
      assert_int_equal(first[r], again[r]);
      assert_true(first[r] <= first[r + 1]);
      /* each rank within one neuron of its exact share */
      long long got = range_compartments(compartments, m, first[r], first[r + 1]);
      assert_true(got <= total / ranks + 2 * largest);
      assert_true(got >= total / ranks - 2 * largest);
    }
    free(first), free(again);
  }
}

/* Equal cells split as evenly as whole neurons allow; 3 ranks over 10 neurons: 4, 3, 3 or so. */
static void equal_cells_split_evenly(void **state) {
  (void)state;
  const int one[] = {319};
  int first[4];
  distribution_ranges(10, one, 1, 3, first);
  assert_int_equal(first[1], 4); /* before 4 neurons: 1276 >= 3190/3 = 1063 */
  assert_int_equal(first[2], 7); /* before 7: 2233 >= 2126 */
  assert_int_equal(first[3], 10);
  int single[2];
  distribution_ranges(10, one, 1, 1, single);
  assert_int_equal(single[0], 0);
  assert_int_equal(single[1], 10);
  int many[9]; /* more ranks than neurons: the last ranks get none */
  distribution_ranges(3, one, 1, 8, many);
  assert_int_equal(many[8], 3);
  for (int r = 0; r < 8; r++)
    assert_true(many[r] <= many[r + 1]);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(ranges_cover_and_balance),
                                     cmocka_unit_test(equal_cells_split_evenly)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
