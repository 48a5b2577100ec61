#define _DEFAULT_SOURCE /* realpath */
#include "testing.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int testing_scheduler_only(void) {
  const char *flag = getenv("HINES_TEST_SCHEDULER_ONLY");
  return flag && strcmp(flag, "1") == 0;
}

uint64_t testing_seed(void) {
  const char *given = getenv("HINES_TEST_SEED");
  uint64_t seed;
  if (given && *given) {
    seed = strtoull(given, NULL, 0);
  } else {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    seed = (uint64_t)now.tv_sec * 1000000007ull ^ (uint64_t)now.tv_nsec;
  }
  fprintf(stderr, "# HINES_TEST_SEED=%llu\n", (unsigned long long)seed);
  return seed | 1;
}

const char *testing_source_path(const char *relative) {
  static char paths[4][PATH_MAX + 256];
  static int next_path;
  const char *source = getenv("HINES_SOURCE_DIR");
  if (!source || !*source)
    source = access("morph/data", F_OK) == 0 ? "." : "..";
  char root[PATH_MAX];
  if (!realpath(source, root)) /* absolute, so it still holds after a chdir */
    snprintf(root, sizeof root, "%s", source);
  char *path = paths[next_path++ % 4];
  snprintf(path, sizeof paths[0], "%s/%s", root, relative);
  return path;
}

static uint64_t next(uint64_t *state) { /* xorshift64* */
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 2685821657736338717ull;
}

double testing_uniform(uint64_t *state) {
  return (next(state) >> 11) * (1.0 / 9007199254740992.0);
}

int testing_below(uint64_t *state, int n) {
  return (int)(testing_uniform(state) * n);
}

void testing_random_parents(uint64_t *state, int n, int *parent) {
  parent[0] = -1;
  for (int i = 1; i < n; i++)
    parent[i] = testing_below(state, i);
}

void testing_random_hines_values(uint64_t *state, int n, const int *parent, double *upper,
                                 double *lower, double *diagonal, double *rhs) {
  double *row_sum = calloc((size_t)n, sizeof(double));
  for (int i = 0; i < n; i++) {
    upper[i] = i ? -(0.1 + 0.9 * testing_uniform(state)) : 0;
    lower[i] = i ? -(0.1 + 0.9 * testing_uniform(state)) : 0;
  }
  for (int i = 1; i < n; i++) {
    row_sum[i] += fabs(lower[i]);
    row_sum[parent[i]] += fabs(upper[i]);
  }
  for (int i = 0; i < n; i++) {
    diagonal[i] = 1.0 + row_sum[i] + testing_uniform(state);
    rhs[i] = 2.0 * testing_uniform(state) - 1.0;
  }
  free(row_sum);
}

void testing_dense_solve(int n, const int *parent, const double *upper, const double *lower,
                         const double *diagonal, const double *rhs, double *x) {
  double *a = calloc((size_t)n * n, sizeof(double));
  double *b = malloc((size_t)n * sizeof(double));
  for (int i = 0; i < n; i++) {
    a[(size_t)i * n + i] = diagonal[i];
    b[i] = rhs[i];
    if (i > 0) {
      a[(size_t)parent[i] * n + i] = upper[i];
      a[(size_t)i * n + parent[i]] = lower[i];
    }
  }
  for (int col = 0; col < n; col++) {
    int pivot = col;
    for (int r = col + 1; r < n; r++)
      if (fabs(a[(size_t)r * n + col]) > fabs(a[(size_t)pivot * n + col]))
        pivot = r;
    if (pivot != col) {
      for (int c = 0; c < n; c++) {
        double t = a[(size_t)col * n + c];
        a[(size_t)col * n + c] = a[(size_t)pivot * n + c];
        a[(size_t)pivot * n + c] = t;
      }
      double t = b[col];
      b[col] = b[pivot];
      b[pivot] = t;
    }
    for (int r = col + 1; r < n; r++) {
      double f = a[(size_t)r * n + col] / a[(size_t)col * n + col];
      if (f == 0)
        continue;
      for (int c = col; c < n; c++)
        a[(size_t)r * n + c] -= f * a[(size_t)col * n + c];
      b[r] -= f * b[col];
    }
  }
  for (int r = n - 1; r >= 0; r--) {
    double s = b[r];
    for (int c = r + 1; c < n; c++)
      s -= a[(size_t)r * n + c] * x[c];
    x[r] = s / a[(size_t)r * n + r];
  }
  free(a);
  free(b);
}

double testing_relative_error(int n, const double *a, const double *b) {
  double diff = 0, scale = 1e-300;
  for (int i = 0; i < n; i++) {
    if (isnan(a[i]) || isnan(b[i]))
      return INFINITY;
    diff = fmax(diff, fabs(a[i] - b[i]));
    scale = fmax(scale, fabs(b[i]));
  }
  return diff / scale;
}
