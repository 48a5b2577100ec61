/* The interleaved batch Thomas solvers (codelets/thomas_batch.h) on the CPU: random batches of
 * diagonally dominant systems of random sizes, packed CP and NCP, solved, unpacked, and compared
 * with a plain per-system Thomas written here, and on small systems with a dense solve. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"
#include "thomas_batch.h"

static uint64_t rng;

static int setup(void **state) {
  (void)state;
  rng = testing_seed();
  return 0;
}

/* A batch in flat storage (system k at flat_offset[k]), as the caller of the packers has it. */
struct batch {
  int count, *sizes;
  size_t total, *offset;
  double *a, *b, *c, *d;
};

static void batch_free(struct batch *batch) {
  free(batch->sizes);
  free(batch->offset);
  free(batch->a);
  free(batch->b);
  free(batch->c);
  free(batch->d);
}

/* Diagonally dominant: off-diagonals in [-1, 1], |b| >= |a| + |c| + 0.5, b of either sign. */
static struct batch random_batch(int count, int min_size, int max_size) {
  struct batch batch = {.count = count};
  batch.sizes = malloc((size_t)count * sizeof(int));
  batch.offset = malloc(((size_t)count + 1) * sizeof(size_t));
  batch.offset[0] = 0;
  for (int k = 0; k < count; k++) {
    batch.sizes[k] = min_size + testing_below(&rng, max_size - min_size + 1);
    batch.offset[k + 1] = batch.offset[k] + (size_t)batch.sizes[k];
  }
  batch.total = batch.offset[count];
  batch.a = malloc(batch.total * sizeof(double));
  batch.b = malloc(batch.total * sizeof(double));
  batch.c = malloc(batch.total * sizeof(double));
  batch.d = malloc(batch.total * sizeof(double));
  for (size_t i = 0; i < batch.total; i++) {
    batch.a[i] = 2 * testing_uniform(&rng) - 1;
    batch.c[i] = 2 * testing_uniform(&rng) - 1;
    double magnitude = fabs(batch.a[i]) + fabs(batch.c[i]) + 0.5 + testing_uniform(&rng);
    batch.b[i] = testing_uniform(&rng) < 0.5 ? -magnitude : magnitude;
    batch.d[i] = 2 * testing_uniform(&rng) - 1;
  }
  return batch;
}

/* The textbook Thomas algorithm on one system, out of place: c' and x. */
static void thomas_reference(int n, const double *a, const double *b, const double *c,
                             const double *d, double *c_prime, double *x) {
  c_prime[0] = c[0] / b[0];
  x[0] = d[0] / b[0];
  for (int j = 1; j < n; j++) {
    double pivot = b[j] - a[j] * c_prime[j - 1];
    c_prime[j] = c[j] / pivot;
    x[j] = (d[j] - a[j] * x[j - 1]) / pivot;
  }
  for (int j = n - 2; j >= 0; j--)
    x[j] -= c_prime[j] * x[j + 1];
}

static void thomas_reference_f32(int n, const float *a, const float *b, const float *c,
                                 const float *d, float *c_prime, float *x) {
  c_prime[0] = c[0] / b[0];
  x[0] = d[0] / b[0];
  for (int j = 1; j < n; j++) {
    float pivot = b[j] - a[j] * c_prime[j - 1];
    c_prime[j] = c[j] / pivot;
    x[j] = (d[j] - a[j] * x[j - 1]) / pivot;
  }
  for (int j = n - 2; j >= 0; j--)
    x[j] -= c_prime[j] * x[j + 1];
}

/* Worst system of the batch: max_j |got - want| / max_j |want|. */
static double worst_relative_error(const struct batch *batch, const double *got,
                                   const double *want) {
  double worst = 0;
  for (int k = 0; k < batch->count; k++) {
    double error =
        testing_relative_error(batch->sizes[k], got + batch->offset[k], want + batch->offset[k]);
    if (error > worst || isnan(error))
      worst = isnan(error) ? INFINITY : error;
  }
  return worst;
}

static double *copy_doubles(const double *from, size_t n) {
  double *to = malloc(n * sizeof(double));
  memcpy(to, from, n * sizeof(double));
  return to;
}

/* Packs `batch`, solves it with the fp64 CPU solver of `padding`, unpacks x and c'. */
static void solve_interleaved(const struct batch *batch, enum thomas_padding padding, double *x,
                              double *c_prime) {
  struct thomas_layout layout;
  assert_int_equal(thomas_layout_init(&layout, padding, batch->count, batch->sizes), 0);
  size_t n = layout.elements;
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
  double *c = malloc(n * sizeof(double)), *d = malloc(n * sizeof(double));
  thomas_pack_f64(&layout, batch->a, batch->b, batch->c, batch->d, a, b, c, d);
  if (padding == THOMAS_CP)
    thomas_interleaved_cp_f64(layout.count, layout.rows, a, b, c, d);
  else
    thomas_interleaved_ncp_f64(layout.rows, layout.rows_count, layout.row_offset, a, b, c, d);
  thomas_unpack_array_f64(&layout, d, x);
  thomas_unpack_array_f64(&layout, c, c_prime);
  free(a);
  free(b);
  free(c);
  free(d);
  thomas_layout_free(&layout);
}

static void check_against_reference_f64(enum thomas_padding padding) {
  for (int trial = 0; trial < 20; trial++) {
    struct batch batch = random_batch(1 + testing_below(&rng, 500), 1, 300);
    double *x_want = malloc(batch.total * sizeof(double));
    double *c_want = malloc(batch.total * sizeof(double));
    double *x_got = malloc(batch.total * sizeof(double));
    double *c_got = malloc(batch.total * sizeof(double));
    for (int k = 0; k < batch.count; k++) {
      size_t o = batch.offset[k];
      thomas_reference(batch.sizes[k], batch.a + o, batch.b + o, batch.c + o, batch.d + o,
                       c_want + o, x_want + o);
    }
    solve_interleaved(&batch, padding, x_got, c_got);
    double x_error = worst_relative_error(&batch, x_got, x_want);
    double c_error = worst_relative_error(&batch, c_got, c_want);
    if (x_error > 1e-12 || c_error > 1e-12)
      fprintf(stderr, "# %s trial %d: %d systems, x error %.3g, c' error %.3g\n",
              padding == THOMAS_CP ? "CP" : "NCP", trial, batch.count, x_error, c_error);
    assert_true(x_error <= 1e-12);
    assert_true(c_error <= 1e-12); /* the in-place contract: c holds c' on return */
    free(x_want);
    free(c_want);
    free(x_got);
    free(c_got);
    batch_free(&batch);
  }
}

static void test_cp_matches_per_system_thomas_f64(void **state) {
  (void)state;
  check_against_reference_f64(THOMAS_CP);
}

static void test_ncp_matches_per_system_thomas_f64(void **state) {
  (void)state;
  check_against_reference_f64(THOMAS_NCP);
}

static float *to_floats(const double *from, size_t n) {
  float *to = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; i++)
    to[i] = (float)from[i];
  return to;
}

static void check_against_reference_f32(enum thomas_padding padding) {
  for (int trial = 0; trial < 20; trial++) {
    struct batch batch = random_batch(1 + testing_below(&rng, 500), 1, 300);
    size_t total = batch.total;
    float *a = to_floats(batch.a, total), *b = to_floats(batch.b, total);
    float *c = to_floats(batch.c, total), *d = to_floats(batch.d, total);
    float *c_prime = malloc(total * sizeof(float)), *x = malloc(total * sizeof(float));
    double *x_want = malloc(total * sizeof(double)), *x_got = malloc(total * sizeof(double));
    for (int k = 0; k < batch.count; k++) {
      size_t o = batch.offset[k];
      thomas_reference_f32(batch.sizes[k], a + o, b + o, c + o, d + o, c_prime + o, x + o);
    }
    for (size_t i = 0; i < total; i++)
      x_want[i] = x[i];

    struct thomas_layout layout;
    assert_int_equal(thomas_layout_init(&layout, padding, batch.count, batch.sizes), 0);
    size_t n = layout.elements;
    float *ia = malloc(n * sizeof(float)), *ib = malloc(n * sizeof(float));
    float *ic = malloc(n * sizeof(float)), *id = malloc(n * sizeof(float));
    thomas_pack_f32(&layout, a, b, c, d, ia, ib, ic, id);
    thomas_interleaved_f32(&layout, ia, ib, ic, id);
    thomas_unpack_array_f32(&layout, id, x);
    for (size_t i = 0; i < total; i++)
      x_got[i] = x[i];
    double error = worst_relative_error(&batch, x_got, x_want);
    if (error > 1e-5)
      fprintf(stderr, "# fp32 %s trial %d: error %.3g\n", padding == THOMAS_CP ? "CP" : "NCP",
              trial, error);
    assert_true(error <= 1e-5);

    thomas_layout_free(&layout);
    free(ia);
    free(ib);
    free(ic);
    free(id);
    free(a);
    free(b);
    free(c);
    free(d);
    free(c_prime);
    free(x);
    free(x_want);
    free(x_got);
    batch_free(&batch);
  }
}

static void test_cp_matches_per_system_thomas_f32(void **state) {
  (void)state;
  check_against_reference_f32(THOMAS_CP);
}

static void test_ncp_matches_per_system_thomas_f32(void **state) {
  (void)state;
  check_against_reference_f32(THOMAS_NCP);
}

/* The layouts themselves: sizes, offsets and index function as documented; pack then unpack
 * gives back every array bit for bit; CP padding rows are identity rows. */
static void check_layout(const struct batch *batch, enum thomas_padding padding) {
  struct thomas_layout layout;
  assert_int_equal(thomas_layout_init(&layout, padding, batch->count, batch->sizes), 0);
  int rows = 0;
  for (int k = 0; k < batch->count; k++)
    rows = batch->sizes[k] > rows ? batch->sizes[k] : rows;
  assert_int_equal(layout.rows, rows);
  assert_int_equal(layout.flat_elements, batch->total);
  assert_int_equal(layout.elements,
                   padding == THOMAS_CP ? (size_t)batch->count * rows : batch->total);
  for (int k = 0; k < batch->count; k++) {
    int s = layout.slot_of_system[k];
    assert_int_equal(layout.system_of_slot[s], k);
    assert_int_equal(layout.size[s], batch->sizes[k]);
  }
  for (int j = 0; j < rows; j++) {
    int expected = 0;
    for (int k = 0; k < batch->count; k++)
      expected += padding == THOMAS_CP || batch->sizes[k] > j;
    assert_int_equal(layout.rows_count[j], expected);
    assert_int_equal(layout.row_offset[j + 1] - layout.row_offset[j], expected);
  }
  if (padding == THOMAS_NCP)
    for (int s = 1; s < batch->count; s++) {
      assert_true(layout.size[s] <= layout.size[s - 1]);
      if (layout.size[s] == layout.size[s - 1]) /* stable: equal sizes keep their order */
        assert_true(layout.system_of_slot[s] > layout.system_of_slot[s - 1]);
    }

  size_t n = layout.elements;
  double *packed[4], *back = malloc(batch->total * sizeof(double));
  const double *flat[4] = {batch->a, batch->b, batch->c, batch->d};
  for (int i = 0; i < 4; i++) {
    packed[i] = malloc(n * sizeof(double));
    for (size_t e = 0; e < n; e++)
      packed[i][e] = NAN; /* every element must be written */
  }
  thomas_pack_f64(&layout, batch->a, batch->b, batch->c, batch->d, packed[0], packed[1], packed[2],
                  packed[3]);
  for (int k = 0; k < batch->count; k++)
    for (int j = 0; j < batch->sizes[k]; j++) {
      size_t at = thomas_layout_index(&layout, k, j);
      if (padding == THOMAS_CP)
        assert_int_equal(at, (size_t)j * batch->count + k);
      for (int i = 0; i < 4; i++)
        assert_true(packed[i][at] == flat[i][batch->offset[k] + j]);
    }
  if (padding == THOMAS_CP)
    for (int k = 0; k < batch->count; k++)
      for (int j = batch->sizes[k]; j < rows; j++) {
        size_t at = (size_t)j * batch->count + k;
        assert_true(packed[0][at] == 0 && packed[1][at] == 1 && packed[2][at] == 0 &&
                    packed[3][at] == 0);
      }
  for (int i = 0; i < 4; i++) {
    memset(back, 0xff, batch->total * sizeof(double));
    thomas_unpack_array_f64(&layout, packed[i], back);
    assert_memory_equal(back, flat[i], batch->total * sizeof(double));
    free(packed[i]);
  }

  /* fp32: the same positions. */
  float *flat32 = to_floats(batch->d, batch->total), *packed32 = malloc(n * sizeof(float));
  float *back32 = calloc(batch->total, sizeof(float));
  thomas_pack_array_f32(&layout, flat32, packed32, 0);
  thomas_unpack_array_f32(&layout, packed32, back32);
  assert_memory_equal(back32, flat32, batch->total * sizeof(float));
  free(flat32);
  free(packed32);
  free(back32);
  free(back);
  thomas_layout_free(&layout);
}

static void test_layout_round_trips_are_exact(void **state) {
  (void)state;
  for (int trial = 0; trial < 20; trial++) {
    struct batch batch = random_batch(1 + testing_below(&rng, 500), 1, 300);
    check_layout(&batch, THOMAS_CP);
    check_layout(&batch, THOMAS_NCP);
    batch_free(&batch);
  }
  struct batch one = random_batch(1, 1, 1); /* the smallest batch there is */
  check_layout(&one, THOMAS_CP);
  check_layout(&one, THOMAS_NCP);
  batch_free(&one);
}

/* One size for all: NCP is CP (same order, same offsets), so both give identical bits. */
static void test_ncp_of_equal_sizes_is_cp(void **state) {
  (void)state;
  struct batch batch = random_batch(1 + testing_below(&rng, 300), 64, 64);
  double *x_cp = malloc(batch.total * sizeof(double)),
         *x_ncp = malloc(batch.total * sizeof(double));
  double *c_cp = malloc(batch.total * sizeof(double)),
         *c_ncp = malloc(batch.total * sizeof(double));
  solve_interleaved(&batch, THOMAS_CP, x_cp, c_cp);
  solve_interleaved(&batch, THOMAS_NCP, x_ncp, c_ncp);
  assert_memory_equal(x_cp, x_ncp, batch.total * sizeof(double));
  assert_memory_equal(c_cp, c_ncp, batch.total * sizeof(double));
  free(x_cp);
  free(x_ncp);
  free(c_cp);
  free(c_ncp);
  batch_free(&batch);
}

/* Independent of any Thomas code: Gaussian elimination on the dense matrix (a tridiagonal matrix
 * is the Hines matrix of a chain, parent[j] = j - 1). */
static void test_small_systems_match_dense_solve(void **state) {
  (void)state;
  struct batch batch = random_batch(40, 1, 12);
  double *x_cp = malloc(batch.total * sizeof(double)),
         *x_ncp = malloc(batch.total * sizeof(double));
  double *scratch = malloc(batch.total * sizeof(double));
  solve_interleaved(&batch, THOMAS_CP, x_cp, scratch);
  solve_interleaved(&batch, THOMAS_NCP, x_ncp, scratch);
  for (int k = 0; k < batch.count; k++) {
    int n = batch.sizes[k];
    size_t o = batch.offset[k];
    int parent[12];
    double upper[12], lower[12], x_dense[12];
    for (int j = 0; j < n; j++) {
      parent[j] = j - 1;
      upper[j] = j ? batch.c[o + j - 1] : 0; /* A[j-1][j] */
      lower[j] = j ? batch.a[o + j] : 0;     /* A[j][j-1] */
    }
    testing_dense_solve(n, parent, upper, lower, batch.b + o, batch.d + o, x_dense);
    assert_true(testing_relative_error(n, x_cp + o, x_dense) <= 1e-12);
    assert_true(testing_relative_error(n, x_ncp + o, x_dense) <= 1e-12);
  }
  free(x_cp);
  free(x_ncp);
  free(scratch);
  batch_free(&batch);
}

/* The comparisons above are not vacuous: one wrong value in one system of a solved batch is seen,
 * and a solve of the wrong system (another right-hand side) is far outside the tolerance. */
static void test_checks_see_a_wrong_solution(void **state) {
  (void)state;
  struct batch batch = random_batch(100, 50, 300);
  double *x = malloc(batch.total * sizeof(double)), *c_prime = malloc(batch.total * sizeof(double));
  double *x_want = malloc(batch.total * sizeof(double));
  for (int k = 0; k < batch.count; k++) {
    size_t o = batch.offset[k];
    thomas_reference(batch.sizes[k], batch.a + o, batch.b + o, batch.c + o, batch.d + o,
                     c_prime + o, x_want + o);
  }
  solve_interleaved(&batch, THOMAS_NCP, x, c_prime);
  assert_true(worst_relative_error(&batch, x, x_want) <= 1e-12);
  double *wrong = copy_doubles(x, batch.total);
  wrong[batch.offset[batch.count - 1] + batch.sizes[batch.count - 1] / 2] += 1e-9;
  assert_true(worst_relative_error(&batch, wrong, x_want) > 1e-12);
  batch.d[0] += 1; /* system 0 changes; its old solution must no longer pass */
  solve_interleaved(&batch, THOMAS_CP, wrong, c_prime);
  assert_true(worst_relative_error(&batch, wrong, x_want) > 1e-3);
  free(wrong);
  free(x);
  free(c_prime);
  free(x_want);
  batch_free(&batch);
}

static void test_layout_rejects_bad_sizes(void **state) {
  (void)state;
  struct thomas_layout layout;
  int sizes[3] = {4, 0, 2};
  assert_int_equal(thomas_layout_init(&layout, THOMAS_NCP, 3, sizes), -1);
  assert_int_equal(thomas_layout_init(&layout, THOMAS_CP, 0, sizes), -1);
  thomas_layout_free(&layout); /* safe after a failed init */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cp_matches_per_system_thomas_f64),
      cmocka_unit_test(test_ncp_matches_per_system_thomas_f64),
      cmocka_unit_test(test_cp_matches_per_system_thomas_f32),
      cmocka_unit_test(test_ncp_matches_per_system_thomas_f32),
      cmocka_unit_test(test_layout_round_trips_are_exact),
      cmocka_unit_test(test_ncp_of_equal_sizes_is_cp),
      cmocka_unit_test(test_small_systems_match_dense_solve),
      cmocka_unit_test(test_checks_see_a_wrong_solution),
      cmocka_unit_test(test_layout_rejects_bad_sizes),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
