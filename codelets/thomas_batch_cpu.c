/* Interleaved batch layouts (CP and NCP) and the CPU Thomas solvers for them; see
 * thomas_batch.h for the storage and the algorithm. The fp64 and fp32 versions are one body
 * expanded twice by the DEFINE_* macros below, so the two precisions cannot drift apart. */
#include "thomas_batch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Systems per tile of the CPU solvers and of the packing: wide enough for several SIMD vectors
 * per row, narrow enough that a tile's c' and d' (rows * tile * 2 values) stay in L2 between the
 * forward and the backward sweep for the few-hundred-row systems neurons have. */
#define THOMAS_TILE 64

static int min_int(int x, int y) {
  return x < y ? x : y;
}

void thomas_layout_free(struct thomas_layout *layout) {
  free(layout->size);
  free(layout->system_of_slot);
  free(layout->slot_of_system);
  free(layout->rows_count);
  free(layout->row_offset);
  free(layout->flat_offset);
  memset(layout, 0, sizeof *layout);
}

/* NCP slots: a counting sort by size, largest first, stable so that equal sizes keep the
 * caller's order (with one size for all, NCP is then exactly CP). */
static int sort_slots_by_size(struct thomas_layout *layout, const int *sizes) {
  const int count = layout->count, rows = layout->rows;
  int *next_slot = calloc((size_t)rows + 2, sizeof(int)); /* indexed by size, 1 .. rows */
  if (!next_slot)
    return -1;
  for (int k = 0; k < count; k++)
    next_slot[sizes[k]]++;
  /* rows_count[j] = #{k : sizes[k] > j}: a suffix sum of the size histogram. */
  int larger = 0;
  for (int n = rows; n >= 1; n--) {
    layout->rows_count[n - 1] = larger + next_slot[n];
    const int with_size_n = next_slot[n];
    next_slot[n] = larger; /* the first slot of the systems of size n */
    larger += with_size_n;
  }
  for (int k = 0; k < count; k++) {
    const int s = next_slot[sizes[k]]++;
    layout->system_of_slot[s] = k;
    layout->size[s] = sizes[k];
  }
  free(next_slot);
  return 0;
}

int thomas_layout_init(struct thomas_layout *layout, enum thomas_padding padding, int count,
                       const int *sizes) {
  memset(layout, 0, sizeof *layout);
  if (count < 1 || !sizes || (padding != THOMAS_CP && padding != THOMAS_NCP))
    return -1;
  int rows = 0;
  for (int k = 0; k < count; k++) {
    if (sizes[k] < 1)
      return -1;
    if (sizes[k] > rows)
      rows = sizes[k];
  }
  layout->padding = padding;
  layout->count = count;
  layout->rows = rows;
  layout->size = malloc((size_t)count * sizeof(int));
  layout->system_of_slot = malloc((size_t)count * sizeof(int));
  layout->slot_of_system = malloc((size_t)count * sizeof(int));
  layout->rows_count = malloc((size_t)rows * sizeof(int));
  layout->row_offset = malloc(((size_t)rows + 1) * sizeof(size_t));
  layout->flat_offset = malloc(((size_t)count + 1) * sizeof(size_t));
  if (!layout->size || !layout->system_of_slot || !layout->slot_of_system || !layout->rows_count ||
      !layout->row_offset || !layout->flat_offset)
    goto fail;

  layout->flat_offset[0] = 0;
  for (int k = 0; k < count; k++)
    layout->flat_offset[k + 1] = layout->flat_offset[k] + (size_t)sizes[k];
  layout->flat_elements = layout->flat_offset[count];

  if (padding == THOMAS_CP) {
    for (int s = 0; s < count; s++) {
      layout->system_of_slot[s] = s;
      layout->size[s] = sizes[s];
    }
    for (int j = 0; j < rows; j++)
      layout->rows_count[j] = count;
  } else if (sort_slots_by_size(layout, sizes)) {
    goto fail;
  }
  for (int s = 0; s < count; s++)
    layout->slot_of_system[layout->system_of_slot[s]] = s;
  layout->row_offset[0] = 0;
  for (int j = 0; j < rows; j++)
    layout->row_offset[j + 1] = layout->row_offset[j] + (size_t)layout->rows_count[j];
  layout->elements = layout->row_offset[rows];
  return 0;

fail:
  thomas_layout_free(layout);
  return -1;
}

/* Packing walks tiles of slots and, inside a tile, rows: the reads then follow THOMAS_TILE
 * contiguous flat systems and the writes fill THOMAS_TILE contiguous entries of each row, so
 * neither side strides through memory one element at a time. Rows are visited while the tile
 * still has slots in them (NCP rows only shrink). */
#define DEFINE_PACKING(SUFFIX, REAL)                                                               \
  void thomas_pack_array_##SUFFIX(const struct thomas_layout *layout, const REAL *flat,            \
                                  REAL *interleaved, REAL padding_value) {                         \
    _Pragma("omp parallel for schedule(static)") for (int s0 = 0; s0 < layout->count;              \
                                                      s0 += THOMAS_TILE) {                         \
      const int s1 = min_int(s0 + THOMAS_TILE, layout->count);                                     \
      for (int j = 0; j < layout->rows; j++) {                                                     \
        const int end = min_int(s1, layout->rows_count[j]);                                        \
        if (end <= s0)                                                                             \
          break;                                                                                   \
        REAL *row = interleaved + layout->row_offset[j];                                           \
        for (int s = s0; s < end; s++)                                                             \
          row[s] = j < layout->size[s]                                                             \
                       ? flat[layout->flat_offset[layout->system_of_slot[s]] + (size_t)j]          \
                       : padding_value;                                                            \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  void thomas_unpack_array_##SUFFIX(const struct thomas_layout *layout, const REAL *interleaved,   \
                                    REAL *flat) {                                                  \
    _Pragma("omp parallel for schedule(static)") for (int s0 = 0; s0 < layout->count;              \
                                                      s0 += THOMAS_TILE) {                         \
      const int s1 = min_int(s0 + THOMAS_TILE, layout->count);                                     \
      for (int j = 0; j < layout->rows; j++) {                                                     \
        const int end = min_int(s1, layout->rows_count[j]);                                        \
        if (end <= s0)                                                                             \
          break;                                                                                   \
        const REAL *row = interleaved + layout->row_offset[j];                                     \
        for (int s = s0; s < end; s++)                                                             \
          if (j < layout->size[s])                                                                 \
            flat[layout->flat_offset[layout->system_of_slot[s]] + (size_t)j] = row[s];             \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  void thomas_pack_##SUFFIX(const struct thomas_layout *layout, const REAL *a, const REAL *b,      \
                            const REAL *c, const REAL *d, REAL *a_out, REAL *b_out, REAL *c_out,   \
                            REAL *d_out) {                                                         \
    /* Identity padding rows: x = 0 there, and a = 0 keeps them from reading the real rows. */     \
    thomas_pack_array_##SUFFIX(layout, a, a_out, 0);                                               \
    thomas_pack_array_##SUFFIX(layout, b, b_out, 1);                                               \
    thomas_pack_array_##SUFFIX(layout, c, c_out, 0);                                               \
    thomas_pack_array_##SUFFIX(layout, d, d_out, 0);                                               \
  }

DEFINE_PACKING(f64, double)
DEFINE_PACKING(f32, float)

/* The solver: one row of a tile at a time. The row helpers take restrict pointers to two
 * different rows of the same array, which never overlap, so the compiler may vectorise across
 * the systems of the row.
 *
 * A tile's row j starts at row_start(j) + s0 and holds row_width(j) systems: CP rows are
 * j*count apart and always full; NCP rows come from row_offset and end at rows_count[j]. */
struct tile_rows {
  int count, s0, s1;
  const int *rows_count;    /* NULL: CP */
  const size_t *row_offset; /* NULL: CP */
};

static size_t row_start(const struct tile_rows *t, int j) {
  return (t->row_offset ? t->row_offset[j] : (size_t)j * (size_t)t->count) + (size_t)t->s0;
}

static int row_width(const struct tile_rows *t, int j) {
  const int end = t->rows_count ? min_int(t->s1, t->rows_count[j]) : t->s1;
  return end > t->s0 ? end - t->s0 : 0;
}

#define DEFINE_SOLVER(SUFFIX, REAL, FMA)                                                           \
  static void first_row_##SUFFIX(int width, const REAL *restrict b, REAL *restrict c,              \
                                 REAL *restrict d) {                                               \
    for (int s = 0; s < width; s++) {                                                              \
      const REAL m = (REAL)1 / b[s];                                                               \
      c[s] *= m;                                                                                   \
      d[s] *= m;                                                                                   \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  static void forward_row_##SUFFIX(int width, const REAL *restrict a, const REAL *restrict b,      \
                                   REAL *restrict c, REAL *restrict d,                             \
                                   const REAL *restrict c_prev, const REAL *restrict d_prev) {     \
    for (int s = 0; s < width; s++) {                                                              \
      const REAL m = (REAL)1 / FMA(-a[s], c_prev[s], b[s]);                                        \
      c[s] *= m;                                                                                   \
      d[s] = FMA(-a[s], d_prev[s], d[s]) * m;                                                      \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  /* d holds d' on entry and x on return; x_next is the row below, already solved. */              \
  static void backward_row_##SUFFIX(int width, const REAL *restrict c, REAL *restrict d,           \
                                    const REAL *restrict x_next) {                                 \
    for (int s = 0; s < width; s++)                                                                \
      d[s] = FMA(-c[s], x_next[s], d[s]);                                                          \
  }                                                                                                \
                                                                                                   \
  static void solve_tile_##SUFFIX(const struct tile_rows *t, int rows, const REAL *a,              \
                                  const REAL *b, REAL *c, REAL *d) {                               \
    size_t at = row_start(t, 0);                                                                   \
    first_row_##SUFFIX(row_width(t, 0), b + at, c + at, d + at);                                   \
    int last_row = 0;                                                                              \
    for (int j = 1; j < rows; j++) {                                                               \
      const int width = row_width(t, j);                                                           \
      if (width == 0)                                                                              \
        break; /* NCP: every system of the tile has ended */                                       \
      const size_t prev = at;                                                                      \
      at = row_start(t, j);                                                                        \
      forward_row_##SUFFIX(width, a + at, b + at, c + at, d + at, c + prev, d + prev);             \
      last_row = j;                                                                                \
    }                                                                                              \
    /* Systems whose last row is j keep x = d' there; the others take the row below. */            \
    for (int j = last_row - 1; j >= 0; j--) {                                                      \
      const size_t here = row_start(t, j), below = row_start(t, j + 1);                            \
      backward_row_##SUFFIX(row_width(t, j + 1), c + here, d + here, d + below);                   \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  void thomas_interleaved_cp_##SUFFIX(int count, int rows, const REAL *a, const REAL *b, REAL *c,  \
                                      REAL *d) {                                                   \
    if (count < 1 || rows < 1)                                                                     \
      return;                                                                                      \
    for (int s0 = 0; s0 < count; s0 += THOMAS_TILE) {                                              \
      const struct tile_rows t = {count, s0, min_int(s0 + THOMAS_TILE, count), NULL, NULL};        \
      solve_tile_##SUFFIX(&t, rows, a, b, c, d);                                                   \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  void thomas_interleaved_ncp_##SUFFIX(int rows, const int *rows_count, const size_t *row_offset,  \
                                       const REAL *a, const REAL *b, REAL *c, REAL *d) {           \
    if (rows < 1)                                                                                  \
      return;                                                                                      \
    const int count = rows_count[0];                                                               \
    for (int s0 = 0; s0 < count; s0 += THOMAS_TILE) {                                              \
      const struct tile_rows t = {count, s0, min_int(s0 + THOMAS_TILE, count), rows_count,         \
                                  row_offset};                                                     \
      solve_tile_##SUFFIX(&t, rows, a, b, c, d);                                                   \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  void thomas_interleaved_##SUFFIX(const struct thomas_layout *layout, const REAL *a,              \
                                   const REAL *b, REAL *c, REAL *d) {                              \
    if (layout->padding == THOMAS_CP)                                                              \
      thomas_interleaved_cp_##SUFFIX(layout->count, layout->rows, a, b, c, d);                     \
    else                                                                                           \
      thomas_interleaved_ncp_##SUFFIX(layout->rows, layout->rows_count, layout->row_offset, a, b,  \
                                      c, d);                                                       \
  }

DEFINE_SOLVER(f64, double, fma)
DEFINE_SOLVER(f32, float, fmaf)
