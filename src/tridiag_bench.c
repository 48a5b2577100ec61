/* tridiag_bench: the "pure tridiagonal" benchmark of the OGST 2018 paper (its Fig. 9-13).
 * Batches of independent, diagonally dominant tridiagonal systems are solved on one GPU by
 *   thomas_cp                  interleaved Thomas, every system padded to the largest (CP)
 *   thomas_ncp                 interleaved Thomas, no computed padding (NCP, sorted by size)
 *   thomas_flat                Thomas, one thread per contiguous system (uncoalesced baseline)
 *   cusparse_gtsv2_strided     cusparse{S,D}gtsv2StridedBatch (CR + PCR, contiguous systems)
 *   cusparse_gtsv_interleaved  cusparse{S,D}gtsvInterleavedBatch, algo 0 (Thomas, interleaved)
 * in two modes: fixed sizes (every method) and variable sizes uniform in [size/2, size] (CP and
 * NCP only: the CP/NCP comparison; cuSPARSE takes one size per batch).
 *
 * Timing: one CUDA event pair around each solve, after 1 + warmup untimed solves; the inputs a
 * method overwrites are restored from pristine device copies (outside the events) before every
 * solve, so each solve sees the original systems (a batch smaller than the L2 cache then starts
 * from L2, as it would inside a time loop). seconds_* are the median/min/max over the
 * repeats; unknowns_per_s = (sum of the real system sizes) / median, so padding CP computes on
 * counts as overhead, not as work.
 *
 * Validation: the first solve's x is copied back and (1) compared, on a sample of systems (evenly
 * spread, plus the largest and smallest), with a long double Thomas reference built from the
 * same-precision inputs: max_rel_error = max over samples of max|x - x_ref| / max|x_ref|; and
 * (2) checked on every system by its normwise residual max|Ax - d| / (max row |A| max|x| +
 * max|d|). A result over tolerance is reported on stderr and makes the exit status 1.
 *
 * device_bytes: what the method itself needs on the device: its four input arrays, the NCP index
 * arrays, the cuSPARSE work buffer. The harness also holds pristine copies; a method whose total
 * (with those) would pass --max-device-gb is skipped, with a note on stderr.
 *
 * Any CUDA or cuSPARSE error ends the program with status 1. CSV on stdout:
 * method,precision,batch,size,variable_sizes,seconds_median,seconds_min,seconds_max,
 * unknowns_per_s,max_rel_error,device_bytes */
#include <cuda_runtime.h>
/* cusparse.h's own declarations of its deprecated types warn when compiled as C; none of the
 * deprecated API is used here (gtsv2StridedBatch and gtsvInterleavedBatch are current). */
#define DISABLE_CUSPARSE_DEPRECATED
#include <cusparse.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "thomas_batch.h"

/* ---- errors ---------------------------------------------------------------------------- */

static void cuda_check(cudaError_t status, const char *call, const char *file, int line) {
  if (status != cudaSuccess) {
    fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, call, cudaGetErrorName(status),
            cudaGetErrorString(status));
    exit(1);
  }
}

static void cusparse_check(cusparseStatus_t status, const char *call, const char *file, int line) {
  if (status != CUSPARSE_STATUS_SUCCESS) {
    fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, call, cusparseGetErrorName(status),
            cusparseGetErrorString(status));
    exit(1);
  }
}

#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)
/* Our launchers return a cudaError_t as an int. */
#define LAUNCH_CHECK(call) cuda_check((cudaError_t)(call), #call, __FILE__, __LINE__)
#define CUSPARSE_CHECK(call) cusparse_check((call), #call, __FILE__, __LINE__)

static void *host_alloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

/* The large host arrays, allocated once for the largest point of the run and reused by every
 * point: fresh host memory is slow on the GPU machines (page faults under gVisor, a VM whose
 * memory grows as it is first touched), and the set-up must not dominate the run. */
struct host_pool {
  double *generated[4]; /* a, b, c, d of the fp64 problem, flat */
  float *rounded[4];    /* the same rounded to fp32 */
  void *packed[4];      /* a, b, c, d in CP or NCP storage, either precision */
  void *x_host;         /* a result as copied back from the device */
  void *x_flat;         /* a result unpacked to flat storage */
};

static void host_pool_init(struct host_pool *pool, size_t elements) {
  for (int i = 0; i < 4; i++) {
    pool->generated[i] = host_alloc(elements * sizeof(double));
    pool->rounded[i] = host_alloc(elements * sizeof(float));
    pool->packed[i] = host_alloc(elements * sizeof(double));
  }
  pool->x_host = host_alloc(elements * sizeof(double));
  pool->x_flat = host_alloc(elements * sizeof(double));
}

static void host_pool_free(struct host_pool *pool) {
  for (int i = 0; i < 4; i++) {
    free(pool->generated[i]);
    free(pool->rounded[i]);
    free(pool->packed[i]);
  }
  free(pool->x_host);
  free(pool->x_flat);
}

static void *device_alloc(size_t bytes) {
  void *p = NULL;
  CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
  return p;
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* ---- options --------------------------------------------------------------------------- */

enum precision { FP64, FP32 };
static const char *const precision_name[] = {"fp64", "fp32"};
static const size_t precision_bytes[] = {sizeof(double), sizeof(float)};

struct options {
  int batches[64], n_batches;
  int sizes[64], n_sizes;
  int use_precision[2]; /* indexed by enum precision */
  int fixed, variable;
  int repeats, warmup;
  double max_device_bytes;
  uint64_t seed;
  int header;
};

static void usage(const char *program) {
  fprintf(stderr,
          "usage: %s --batches N[,N...] --sizes N[,N...] [--precision fp32,fp64]\n"
          "          [--modes fixed,variable] [--repeats 15] [--warmup 3] [--max-device-gb 20]\n"
          "          [--seed 1] [--no-header]\n",
          program);
  exit(2);
}

static int parse_ints(const char *text, int *out, int max) {
  int n = 0;
  const char *p = text;
  while (*p) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v < 1 || v > 1000000000 || n == max || (*end && *end != ','))
      return -1;
    out[n++] = (int)v;
    p = *end == ',' ? end + 1 : end;
  }
  return n;
}

static struct options parse_options(int argc, char **argv) {
  struct options o = {.use_precision = {1, 1},
                      .fixed = 1,
                      .variable = 1,
                      .repeats = 15,
                      .warmup = 3,
                      .max_device_bytes = 20e9,
                      .seed = 1,
                      .header = 1};
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(arg, "--no-header")) {
      o.header = 0;
      continue;
    }
    if (!value)
      usage(argv[0]);
    i++;
    if (!strcmp(arg, "--batches")) {
      o.n_batches = parse_ints(value, o.batches, 64);
    } else if (!strcmp(arg, "--sizes")) {
      o.n_sizes = parse_ints(value, o.sizes, 64);
    } else if (!strcmp(arg, "--precision")) {
      o.use_precision[FP64] = strstr(value, "fp64") != NULL;
      o.use_precision[FP32] = strstr(value, "fp32") != NULL;
    } else if (!strcmp(arg, "--modes")) {
      o.fixed = strstr(value, "fixed") != NULL;
      o.variable = strstr(value, "variable") != NULL;
    } else if (!strcmp(arg, "--repeats")) {
      o.repeats = atoi(value);
    } else if (!strcmp(arg, "--warmup")) {
      o.warmup = atoi(value);
    } else if (!strcmp(arg, "--max-device-gb")) {
      o.max_device_bytes = atof(value) * 1e9;
    } else if (!strcmp(arg, "--seed")) {
      o.seed = strtoull(value, NULL, 0);
    } else {
      usage(argv[0]);
    }
  }
  if (o.n_batches < 1 || o.n_sizes < 1 || o.repeats < 10 || o.warmup < 0 ||
      !(o.use_precision[FP64] || o.use_precision[FP32]) || !(o.fixed || o.variable) ||
      !(o.max_device_bytes > 0)) {
    fprintf(stderr, "bad options (repeats must be >= 10)\n");
    usage(argv[0]);
  }
  return o;
}

/* ---- problems on the host -------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static double uniform01(uint64_t *state) {
  return (splitmix64(state) >> 11) * 0x1.0p-53;
}

/* One batch in flat storage (system k's rows contiguous from offset[k]) in one precision, the
 * storage cusparse gtsv2StridedBatch and thomas_flat take when all sizes are equal. */
struct problem {
  int count, nominal_size, variable;
  int *sizes;
  size_t *offset; /* [count + 1] */
  size_t total;   /* unknowns: sum of sizes */
  enum precision precision;
  void *coef[4]; /* a (lower), b (diagonal), c (upper), d (rhs), flat */
  /* validation */
  int n_samples, *sample;
  long double *reference; /* x of the sampled systems, one after another */
};

enum { A, B, C, D };

static double value_at(enum precision p, const void *array, size_t i) {
  return p == FP64 ? ((const double *)array)[i] : (double)((const float *)array)[i];
}

/* Sizes are fixed or uniform in [size/2, size]; values are diagonally dominant (|b| >= |a| +
 * |c| + 0.5) with a[0] = c[n-1] = 0, which cuSPARSE requires. Every system draws from its own
 * stream so the batch does not depend on the thread count. */
static void generate_problem(struct problem *pb, int count, int size, int variable, uint64_t seed,
                             double *const coef[4]) {
  memset(pb, 0, sizeof *pb);
  pb->count = count;
  pb->nominal_size = size;
  pb->variable = variable;
  pb->precision = FP64;
  pb->sizes = host_alloc((size_t)count * sizeof(int));
  pb->offset = host_alloc(((size_t)count + 1) * sizeof(size_t));
  uint64_t size_stream = seed ^ 0x5eedull;
  pb->offset[0] = 0;
  for (int k = 0; k < count; k++) {
    int low = variable ? (size + 1) / 2 : size;
    pb->sizes[k] = low + (int)(uniform01(&size_stream) * (size - low + 1));
    if (pb->sizes[k] > size)
      pb->sizes[k] = size;
    pb->offset[k + 1] = pb->offset[k] + (size_t)pb->sizes[k];
  }
  pb->total = pb->offset[count];
  for (int i = 0; i < 4; i++)
    pb->coef[i] = coef[i];
#pragma omp parallel for schedule(static)
  for (int k = 0; k < count; k++) {
    uint64_t stream = seed * 0x2545f4914f6cdd1dull + (uint64_t)k * 0x9e3779b97f4a7c15ull;
    const int n = pb->sizes[k];
    for (int j = 0; j < n; j++) {
      size_t i = pb->offset[k] + (size_t)j;
      double a = j > 0 ? 2 * uniform01(&stream) - 1 : 0;
      double c = j < n - 1 ? 2 * uniform01(&stream) - 1 : 0;
      coef[A][i] = a;
      coef[C][i] = c;
      coef[B][i] = fabs(a) + fabs(c) + 0.5 + uniform01(&stream);
      coef[D][i] = 2 * uniform01(&stream) - 1;
    }
  }
}

/* The fp32 problem: the same systems rounded to float (the reference is then built from these
 * rounded values, so max_rel_error measures the solver, not the rounding of the inputs). */
static void problem_to_f32(const struct problem *from, struct problem *to, float *const coef[4]) {
  *to = *from;
  to->sizes = host_alloc((size_t)from->count * sizeof(int));
  memcpy(to->sizes, from->sizes, (size_t)from->count * sizeof(int));
  to->offset = host_alloc(((size_t)from->count + 1) * sizeof(size_t));
  memcpy(to->offset, from->offset, ((size_t)from->count + 1) * sizeof(size_t));
  to->precision = FP32;
  for (int i = 0; i < 4; i++) {
    const double *in = from->coef[i];
    float *out = coef[i];
#pragma omp parallel for schedule(static)
    for (size_t e = 0; e < from->total; e++)
      out[e] = (float)in[e];
    to->coef[i] = out;
  }
  to->sample = NULL;
  to->reference = NULL;
}

static void problem_free(struct problem *pb) {
  free(pb->sizes);
  free(pb->offset);
  free(pb->sample); /* the coefficients belong to the host pool */
  free(pb->reference);
  memset(pb, 0, sizeof *pb);
}

static long double coef_ld(const struct problem *pb, int which, size_t i) {
  return (long double)value_at(pb->precision, pb->coef[which], i);
}

/* Reference x in long double for the sampled systems: evenly spread over the batch (first and
 * last included), plus the largest and the smallest system (NCP's first and last slots). */
static void build_reference(struct problem *pb) {
  enum { SPREAD = 128 };
  int spread = pb->count < SPREAD ? pb->count : SPREAD;
  pb->sample = host_alloc((size_t)(spread + 2) * sizeof(int));
  int largest = 0, smallest = 0;
  for (int k = 0; k < pb->count; k++) {
    if (pb->sizes[k] > pb->sizes[largest])
      largest = k;
    if (pb->sizes[k] < pb->sizes[smallest])
      smallest = k;
  }
  pb->n_samples = 0;
  for (int i = 0; i < spread; i++)
    pb->sample[pb->n_samples++] =
        spread > 1 ? (int)((long long)i * (pb->count - 1) / (spread - 1)) : 0;
  pb->sample[pb->n_samples++] = largest;
  pb->sample[pb->n_samples++] = smallest;
  size_t values = 0;
  for (int i = 0; i < pb->n_samples; i++)
    values += (size_t)pb->sizes[pb->sample[i]];
  pb->reference = host_alloc(values * sizeof(long double));
  long double *x = pb->reference;
  long double *c_prime = host_alloc((size_t)pb->nominal_size * sizeof(long double));
  for (int i = 0; i < pb->n_samples; i++) {
    const int k = pb->sample[i], n = pb->sizes[k];
    const size_t o = pb->offset[k];
    c_prime[0] = coef_ld(pb, C, o) / coef_ld(pb, B, o);
    x[0] = coef_ld(pb, D, o) / coef_ld(pb, B, o);
    for (int j = 1; j < n; j++) {
      const size_t at = o + (size_t)j;
      long double pivot = coef_ld(pb, B, at) - coef_ld(pb, A, at) * c_prime[j - 1];
      c_prime[j] = coef_ld(pb, C, at) / pivot;
      x[j] = (coef_ld(pb, D, at) - coef_ld(pb, A, at) * x[j - 1]) / pivot;
    }
    for (int j = n - 2; j >= 0; j--)
      x[j] -= c_prime[j] * x[j + 1];
    x += n;
  }
  free(c_prime);
}

/* max over the sampled systems of max|x - x_ref| / max|x_ref|; x is flat, in the precision. */
static double sample_error(const struct problem *pb, const void *x) {
  double worst = 0;
  const long double *ref = pb->reference;
  for (int i = 0; i < pb->n_samples; i++) {
    const int k = pb->sample[i], n = pb->sizes[k];
    long double diff = 0, scale = 0;
    for (int j = 0; j < n; j++) {
      long double got = value_at(pb->precision, x, pb->offset[k] + (size_t)j);
      long double e = isnan(got) ? INFINITY : fabsl(got - ref[j]);
      diff = e > diff ? e : diff;
      scale = fabsl(ref[j]) > scale ? fabsl(ref[j]) : scale;
    }
    double error = (double)(diff / (scale > 0 ? scale : 1));
    worst = error > worst ? error : worst;
    ref += n;
  }
  return worst;
}

/* Worst normwise residual over every system: max|Ax - d| / (max_j(|a|+|b|+|c|) max|x| + max|d|).
 * A correct solve gives a few units of rounding; a wrong index anywhere gives O(1). */
static double worst_residual(const struct problem *pb, const void *x) {
  double worst = 0;
  const enum precision p = pb->precision;
#pragma omp parallel for schedule(dynamic, 64) reduction(max : worst)
  for (int k = 0; k < pb->count; k++) {
    const int n = pb->sizes[k];
    const size_t o = pb->offset[k];
    double residual = 0, row_norm = 0, x_norm = 0, d_norm = 0;
    for (int j = 0; j < n; j++) {
      const size_t i = o + (size_t)j;
      double a = value_at(p, pb->coef[A], i), b = value_at(p, pb->coef[B], i);
      double c = value_at(p, pb->coef[C], i), d = value_at(p, pb->coef[D], i);
      double xj = value_at(p, x, i);
      double r = b * xj - d;
      if (j > 0)
        r += a * value_at(p, x, i - 1);
      if (j < n - 1)
        r += c * value_at(p, x, i + 1);
      const double r_abs = isnan(r) ? INFINITY : fabs(r), row = fabs(a) + fabs(b) + fabs(c);
      residual = r_abs > residual ? r_abs : residual;
      row_norm = row > row_norm ? row : row_norm;
      x_norm = fabs(xj) > x_norm ? fabs(xj) : x_norm;
      d_norm = fabs(d) > d_norm ? fabs(d) : d_norm;
    }
    double relative = residual / (row_norm * x_norm + d_norm + 1e-300);
    worst = relative > worst ? relative : worst;
  }
  return worst;
}

/* ---- methods on the device ------------------------------------------------------------- */

enum method {
  THOMAS_CP_METHOD,
  THOMAS_NCP_METHOD,
  THOMAS_FLAT_METHOD,
  CUSPARSE_STRIDED_METHOD,
  CUSPARSE_INTERLEAVED_METHOD,
};
static const char *const method_name[] = {"thomas_cp", "thomas_ncp", "thomas_flat",
                                          "cusparse_gtsv2_strided", "cusparse_gtsv_interleaved"};
/* Where the methods read their batch: CP interleaved (thomas_cp, cusparse_gtsv_interleaved, for
 * fixed sizes the same layout), NCP interleaved (thomas_ncp), flat (thomas_flat,
 * cusparse_gtsv2_strided). */
enum storage { STORAGE_CP, STORAGE_NCP, STORAGE_FLAT };
/* Which of a, b, c, d each method overwrites (and the harness restores before every solve):
 * Thomas writes c' and x in place; gtsv2StridedBatch takes const diagonals; gtsvInterleavedBatch
 * takes writable diagonals, so all four are assumed overwritten. */
static const int method_overwrites[][4] = {
    {0, 0, 1, 1}, {0, 0, 1, 1}, {0, 0, 1, 1}, {0, 0, 0, 1}, {1, 1, 1, 1}};

struct gpu {
  cudaStream_t stream;
  cusparseHandle_t sparse;
  cudaEvent_t start, stop;
};

/* One batch in one storage on the device: pristine inputs (and NCP's index arrays, counted in
 * thomas_ncp's device_bytes only). */
struct device_batch {
  enum storage storage;
  int count, rows; /* rows: the largest size (the fixed size for flat storage) */
  size_t elements;
  void *pristine[4];
  int *ncp_size;
  size_t *ncp_row_offset;
  size_t index_bytes;
};

/* What one method solves on: arrays it overwrites are private copies, the rest alias the
 * pristine inputs; plus the cuSPARSE buffer. */
struct method_run {
  enum method method;
  enum precision precision;
  const struct device_batch *batch;
  void *array[4];
  void *buffer;
  size_t buffer_bytes;
};

static void restore_inputs(const struct gpu *gpu, const struct method_run *run) {
  const size_t bytes = run->batch->elements * precision_bytes[run->precision];
  for (int i = 0; i < 4; i++)
    if (method_overwrites[run->method][i])
      CUDA_CHECK(cudaMemcpyAsync(run->array[i], run->batch->pristine[i], bytes,
                                 cudaMemcpyDeviceToDevice, gpu->stream));
}

static size_t cusparse_buffer_bytes(const struct gpu *gpu, enum method method, enum precision p,
                                    const struct device_batch *db) {
  size_t bytes = 0;
  void *const *v = db->pristine;
  if (method == CUSPARSE_STRIDED_METHOD) {
    if (p == FP64)
      CUSPARSE_CHECK(cusparseDgtsv2StridedBatch_bufferSizeExt(
          gpu->sparse, db->rows, v[A], v[B], v[C], v[D], db->count, db->rows, &bytes));
    else
      CUSPARSE_CHECK(cusparseSgtsv2StridedBatch_bufferSizeExt(
          gpu->sparse, db->rows, v[A], v[B], v[C], v[D], db->count, db->rows, &bytes));
  } else if (method == CUSPARSE_INTERLEAVED_METHOD) {
    if (p == FP64)
      CUSPARSE_CHECK(cusparseDgtsvInterleavedBatch_bufferSizeExt(
          gpu->sparse, 0, db->rows, v[A], v[B], v[C], v[D], db->count, &bytes));
    else
      CUSPARSE_CHECK(cusparseSgtsvInterleavedBatch_bufferSizeExt(
          gpu->sparse, 0, db->rows, v[A], v[B], v[C], v[D], db->count, &bytes));
  }
  return bytes;
}

/* One solve, asynchronous on the stream. */
static void solve(const struct gpu *gpu, const struct method_run *run) {
  const struct device_batch *db = run->batch;
  void *const *v = run->array;
  void *stream = gpu->stream;
  const int count = db->count, rows = db->rows;
  const int f64 = run->precision == FP64;
  switch (run->method) {
  case THOMAS_CP_METHOD:
    if (f64)
      LAUNCH_CHECK(thomas_interleaved_cuda_cp_f64(count, rows, v[A], v[B], v[C], v[D], stream));
    else
      LAUNCH_CHECK(thomas_interleaved_cuda_cp_f32(count, rows, v[A], v[B], v[C], v[D], stream));
    break;
  case THOMAS_NCP_METHOD:
    if (f64)
      LAUNCH_CHECK(thomas_interleaved_cuda_ncp_f64(count, db->ncp_size, db->ncp_row_offset, v[A],
                                                   v[B], v[C], v[D], stream));
    else
      LAUNCH_CHECK(thomas_interleaved_cuda_ncp_f32(count, db->ncp_size, db->ncp_row_offset, v[A],
                                                   v[B], v[C], v[D], stream));
    break;
  case THOMAS_FLAT_METHOD:
    if (f64)
      LAUNCH_CHECK(thomas_flat_cuda_f64(count, rows, v[A], v[B], v[C], v[D], stream));
    else
      LAUNCH_CHECK(thomas_flat_cuda_f32(count, rows, v[A], v[B], v[C], v[D], stream));
    break;
  case CUSPARSE_STRIDED_METHOD:
    if (f64)
      CUSPARSE_CHECK(cusparseDgtsv2StridedBatch(gpu->sparse, rows, v[A], v[B], v[C], v[D], count,
                                                rows, run->buffer));
    else
      CUSPARSE_CHECK(cusparseSgtsv2StridedBatch(gpu->sparse, rows, v[A], v[B], v[C], v[D], count,
                                                rows, run->buffer));
    break;
  case CUSPARSE_INTERLEAVED_METHOD:
    if (f64)
      CUSPARSE_CHECK(cusparseDgtsvInterleavedBatch(gpu->sparse, 0, rows, v[A], v[B], v[C], v[D],
                                                   count, run->buffer));
    else
      CUSPARSE_CHECK(cusparseSgtsvInterleavedBatch(gpu->sparse, 0, rows, v[A], v[B], v[C], v[D],
                                                   count, run->buffer));
    break;
  }
}

static int compare_doubles(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static int validation_failed;

/* Runs one method on a batch already on the device: validate the first solve, then time.
 * x_host (the storage's elements) and x_flat (pb->total) are host scratch for the result. */
static void run_method(const struct options *o, const struct gpu *gpu, enum method method,
                       const struct problem *pb, const struct device_batch *db,
                       const struct thomas_layout *layout, void *x_host, void *x_flat) {
  const enum precision p = pb->precision;
  const size_t array_bytes = db->elements * precision_bytes[p];
  const int is_cusparse =
      method == CUSPARSE_STRIDED_METHOD || method == CUSPARSE_INTERLEAVED_METHOD;
  if (is_cusparse && db->rows < 3) {
    fprintf(stderr, "# skip %s %s: cuSPARSE needs systems of size >= 3\n", method_name[method],
            precision_name[p]);
    return;
  }
  struct method_run run = {.method = method, .precision = p, .batch = db};
  run.buffer_bytes = cusparse_buffer_bytes(gpu, method, p, db);
  int copies = 0;
  for (int i = 0; i < 4; i++)
    copies += method_overwrites[method][i];
  const size_t index_bytes = method == THOMAS_NCP_METHOD ? db->index_bytes : 0;
  const size_t method_bytes = 4 * array_bytes + index_bytes + run.buffer_bytes;
  const size_t harness_bytes = method_bytes + (size_t)copies * array_bytes;
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t extra_bytes = (size_t)copies * array_bytes + run.buffer_bytes;
  if ((double)harness_bytes > o->max_device_bytes || extra_bytes + (64u << 20) > free_bytes) {
    fprintf(stderr, "# skip %s %s batch %d size %d: needs %.2f GB on the device (limit %.2f GB)\n",
            method_name[method], precision_name[p], pb->count, pb->nominal_size,
            harness_bytes / 1e9, o->max_device_bytes / 1e9);
    return;
  }
  for (int i = 0; i < 4; i++)
    run.array[i] = method_overwrites[method][i] ? device_alloc(array_bytes) : db->pristine[i];
  run.buffer = run.buffer_bytes ? device_alloc(run.buffer_bytes) : NULL;

  /* First solve on the original systems: validate it. */
  restore_inputs(gpu, &run);
  solve(gpu, &run);
  CUDA_CHECK(cudaStreamSynchronize(gpu->stream));
  CUDA_CHECK(cudaMemcpy(x_host, run.array[D], array_bytes, cudaMemcpyDeviceToHost));
  void *x = x_host;
  if (layout) { /* interleaved: back to flat storage */
    x = x_flat;
    if (p == FP64)
      thomas_unpack_array_f64(layout, x_host, x);
    else
      thomas_unpack_array_f32(layout, x_host, x);
  }
  const double error = sample_error(pb, x), residual = worst_residual(pb, x);
  const double error_limit = p == FP64 ? 1e-9 : 1e-3, residual_limit = p == FP64 ? 1e-10 : 1e-4;
  if (!(error <= error_limit) || !(residual <= residual_limit)) {
    fprintf(stderr,
            "# VALIDATION FAILED: %s %s batch %d size %d variable %d: sample error %.3g (limit "
            "%.0e), worst residual %.3g (limit %.0e)\n",
            method_name[method], precision_name[p], pb->count, pb->nominal_size, pb->variable,
            error, error_limit, residual, residual_limit);
    validation_failed = 1;
  }

  for (int w = 0; w < o->warmup; w++) {
    restore_inputs(gpu, &run);
    solve(gpu, &run);
  }
  double *seconds = host_alloc((size_t)o->repeats * sizeof(double));
  for (int r = 0; r < o->repeats; r++) {
    restore_inputs(gpu, &run);
    CUDA_CHECK(cudaEventRecord(gpu->start, gpu->stream));
    solve(gpu, &run);
    CUDA_CHECK(cudaEventRecord(gpu->stop, gpu->stream));
    CUDA_CHECK(cudaEventSynchronize(gpu->stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, gpu->start, gpu->stop));
    seconds[r] = 1e-3 * ms;
  }
  CUDA_CHECK(cudaGetLastError());
  qsort(seconds, (size_t)o->repeats, sizeof(double), compare_doubles);
  const int r = o->repeats;
  const double median = r % 2 ? seconds[r / 2] : 0.5 * (seconds[r / 2 - 1] + seconds[r / 2]);
  printf("%s,%s,%d,%d,%d,%.6e,%.6e,%.6e,%.6e,%.3e,%zu\n", method_name[method], precision_name[p],
         pb->count, pb->nominal_size, pb->variable, median, seconds[0], seconds[r - 1],
         (double)pb->total / median, error, method_bytes);
  fflush(stdout);
  free(seconds);

  for (int i = 0; i < 4; i++)
    if (method_overwrites[method][i])
      CUDA_CHECK(cudaFree(run.array[i]));
  if (run.buffer)
    CUDA_CHECK(cudaFree(run.buffer));
}

/* NCP's per-slot sizes and row offsets on the device, from an NCP layout of the problem. */
static void upload_ncp_index(struct device_batch *db, const struct thomas_layout *ncp) {
  const size_t size_bytes = (size_t)ncp->count * sizeof(int);
  const size_t offset_bytes = ((size_t)ncp->rows + 1) * sizeof(size_t);
  db->ncp_size = device_alloc(size_bytes);
  db->ncp_row_offset = device_alloc(offset_bytes);
  CUDA_CHECK(cudaMemcpy(db->ncp_size, ncp->size, size_bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db->ncp_row_offset, ncp->row_offset, offset_bytes, cudaMemcpyHostToDevice));
  db->index_bytes = size_bytes + offset_bytes;
}

/* With one size for all, the NCP layout is the CP layout (same slots, every row full), so the
 * NCP kernel can run on the CP arrays already on the device. */
static int ncp_is_cp(const struct thomas_layout *ncp) {
  for (int s = 0; s < ncp->count; s++)
    if (ncp->system_of_slot[s] != s)
      return 0;
  return ncp->elements == (size_t)ncp->count * (size_t)ncp->rows;
}

/* Puts the problem on the device in one storage and runs the methods that use it. */
static void run_storage(const struct options *o, const struct gpu *gpu,
                        const struct host_pool *pool, enum storage storage,
                        const enum method *methods, int n_methods, const struct problem *pb) {
  const enum precision p = pb->precision;
  const size_t value_bytes = precision_bytes[p];
  struct thomas_layout layout, ncp;
  const struct thomas_layout *layout_used = NULL;
  struct device_batch db = {.storage = storage, .count = pb->count};
  void *host[4] = {NULL, NULL, NULL, NULL};
  int needs_ncp_index = 0;
  for (int m = 0; m < n_methods; m++)
    needs_ncp_index |= methods[m] == THOMAS_NCP_METHOD;
  if (needs_ncp_index && thomas_layout_init(&ncp, THOMAS_NCP, pb->count, pb->sizes)) {
    fprintf(stderr, "thomas_layout_init failed\n");
    exit(1);
  }
  if (needs_ncp_index && storage == STORAGE_CP && !ncp_is_cp(&ncp)) {
    fprintf(stderr, "internal error: thomas_ncp on CP storage needs one size for all\n");
    exit(1);
  }
  if (storage == STORAGE_FLAT) {
    db.rows = pb->nominal_size; /* flat storage is only run with fixed sizes */
    db.elements = pb->total;
    for (int i = 0; i < 4; i++)
      host[i] = pb->coef[i];
  } else {
    if (thomas_layout_init(&layout, storage == STORAGE_CP ? THOMAS_CP : THOMAS_NCP, pb->count,
                           pb->sizes)) {
      fprintf(stderr, "thomas_layout_init failed\n");
      exit(1);
    }
    layout_used = &layout;
    db.rows = layout.rows;
    db.elements = layout.elements;
    for (int i = 0; i < 4; i++)
      host[i] = pool->packed[i];
    if (p == FP64)
      thomas_pack_f64(&layout, pb->coef[A], pb->coef[B], pb->coef[C], pb->coef[D], host[A], host[B],
                      host[C], host[D]);
    else
      thomas_pack_f32(&layout, pb->coef[A], pb->coef[B], pb->coef[C], pb->coef[D], host[A], host[B],
                      host[C], host[D]);
  }
  const size_t array_bytes = db.elements * value_bytes;
  if (4.0 * array_bytes > o->max_device_bytes) {
    fprintf(stderr, "# skip %s batch %d size %d: inputs alone need %.2f GB\n", precision_name[p],
            pb->count, pb->nominal_size, 4.0 * array_bytes / 1e9);
  } else {
    for (int i = 0; i < 4; i++) {
      db.pristine[i] = device_alloc(array_bytes);
      CUDA_CHECK(cudaMemcpy(db.pristine[i], host[i], array_bytes, cudaMemcpyHostToDevice));
    }
    if (needs_ncp_index)
      upload_ncp_index(&db, &ncp);
    for (int m = 0; m < n_methods; m++)
      run_method(o, gpu, methods[m], pb, &db, layout_used, pool->x_host, pool->x_flat);
    for (int i = 0; i < 4; i++)
      CUDA_CHECK(cudaFree(db.pristine[i]));
    if (db.ncp_size) {
      CUDA_CHECK(cudaFree(db.ncp_size));
      CUDA_CHECK(cudaFree(db.ncp_row_offset));
    }
  }
  if (layout_used)
    thomas_layout_free(&layout);
  if (needs_ncp_index)
    thomas_layout_free(&ncp);
}

static void run_problem(const struct options *o, const struct gpu *gpu,
                        const struct host_pool *pool, const struct problem *pb) {
  if (pb->variable) { /* the CP/NCP comparison: cuSPARSE and flat take one size per batch */
    static const enum method cp_methods[] = {THOMAS_CP_METHOD};
    static const enum method ncp_methods[] = {THOMAS_NCP_METHOD};
    run_storage(o, gpu, pool, STORAGE_CP, cp_methods, 1, pb);
    run_storage(o, gpu, pool, STORAGE_NCP, ncp_methods, 1, pb);
  } else { /* NCP of equal sizes is CP: its kernel runs on the CP arrays */
    static const enum method cp_methods[] = {THOMAS_CP_METHOD, THOMAS_NCP_METHOD,
                                             CUSPARSE_INTERLEAVED_METHOD};
    static const enum method flat_methods[] = {THOMAS_FLAT_METHOD, CUSPARSE_STRIDED_METHOD};
    run_storage(o, gpu, pool, STORAGE_CP, cp_methods, 3, pb);
    run_storage(o, gpu, pool, STORAGE_FLAT, flat_methods, 2, pb);
  }
}

int main(int argc, char **argv) {
  const struct options o = parse_options(argc, argv);
  struct gpu gpu;
  int device = 0;
  struct cudaDeviceProp prop;
  CUDA_CHECK(cudaSetDevice(device));
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  CUDA_CHECK(cudaStreamCreate(&gpu.stream));
  CUDA_CHECK(cudaEventCreate(&gpu.start));
  CUDA_CHECK(cudaEventCreate(&gpu.stop));
  CUSPARSE_CHECK(cusparseCreate(&gpu.sparse));
  CUSPARSE_CHECK(cusparseSetStream(gpu.sparse, gpu.stream));
  int sparse_version = 0;
  CUSPARSE_CHECK(cusparseGetVersion(gpu.sparse, &sparse_version));
  fprintf(stderr, "# device %s (sm_%d%d, %.1f GB), cuSPARSE %d, repeats %d, warm-up %d\n",
          prop.name, prop.major, prop.minor, prop.totalGlobalMem / 1e9, sparse_version, o.repeats,
          1 + o.warmup);
  if (o.header)
    printf("method,precision,batch,size,variable_sizes,seconds_median,seconds_min,seconds_max,"
           "unknowns_per_s,max_rel_error,device_bytes\n");

  int max_batch = 0, max_size = 0;
  for (int i = 0; i < o.n_batches; i++)
    max_batch = o.batches[i] > max_batch ? o.batches[i] : max_batch;
  for (int i = 0; i < o.n_sizes; i++)
    max_size = o.sizes[i] > max_size ? o.sizes[i] : max_size;
  struct host_pool pool; /* every array of every point fits: elements <= batch * size */
  host_pool_init(&pool, (size_t)max_batch * (size_t)max_size);

  for (int variable = 0; variable <= 1; variable++) {
    if (!(variable ? o.variable : o.fixed))
      continue;
    for (int ib = 0; ib < o.n_batches; ib++)
      for (int is = 0; is < o.n_sizes; is++) {
        const int count = o.batches[ib], size = o.sizes[is];
        const double started = now_seconds();
        struct problem f64;
        generate_problem(&f64, count, size, variable,
                         o.seed ^ ((uint64_t)count << 32) ^ ((uint64_t)size << 8) ^
                             (uint64_t)variable,
                         pool.generated);
        if (o.use_precision[FP32]) {
          struct problem f32;
          problem_to_f32(&f64, &f32, pool.rounded);
          build_reference(&f32);
          run_problem(&o, &gpu, &pool, &f32);
          problem_free(&f32);
        }
        if (o.use_precision[FP64]) {
          build_reference(&f64);
          run_problem(&o, &gpu, &pool, &f64);
        }
        problem_free(&f64);
        fprintf(stderr, "# batch %d size %d variable %d: %.1f s\n", count, size, variable,
                now_seconds() - started);
      }
  }
  host_pool_free(&pool);
  CUSPARSE_CHECK(cusparseDestroy(gpu.sparse));
  CUDA_CHECK(cudaEventDestroy(gpu.start));
  CUDA_CHECK(cudaEventDestroy(gpu.stop));
  CUDA_CHECK(cudaStreamDestroy(gpu.stream));
  if (validation_failed)
    fprintf(stderr, "# some results failed validation (see above)\n");
  return validation_failed ? 1 : 0;
}
