// The warp sweeps of the level solver (codelets/level_layout.h, "Warp sweeps"), CUDA only, for
// the level kernels (hines_level_cuda.cu) and the cell-block kernel (hines_cell_cuda.cu). Include
// after hines_level_kernels.h (or cell_block.h): the includer's LEVEL_RESTRICT,
// LEVEL_AFTER_FIRST_LOADS and LEVEL_LOAD_PRODUCED apply here too (a kernel that
// reads what it wrote in the same launch defines LEVEL_RESTRICT empty).
#ifndef HINES_LEVEL_WARPS_CUDA_CUH
#define HINES_LEVEL_WARPS_CUDA_CUH

#include "hines_level_kernels.h"

namespace warp_sweeps {

// Warp sweeps (level_layout.h): a group of kLanes lanes of a warp (a whole warp, or a part of one
// with several systems a warp) sweeps one long system, lane l taking element base - l (backward)
// or base + l (forward) of each group of kLanes elements. A lane loads its element and builds
// its row (channels included) at once with the others; the elimination chain then runs over the
// group's elements in order on every lane of the group, each element's values passed by
// shuffles, and lane l keeps what its element stores. The arithmetic is level_backward_system's
// and level_forward_system's, in their order, so the bits are theirs. The groups of one warp
// loop together (a shuffle needs every lane of the warp), as long as the warp's longest system;
// a group past its own system's end computes nothing.
constexpr int kWarp = 32;
constexpr unsigned kAllLanes = 0xffffffffu;
// The chain's loop is unrolled this far only: fully unrolled, the compiler hoists all 96 shuffles
// of a group and runs out of registers.
#define LEVEL_WARP_UNROLL _Pragma("unroll 4")

// Element groups the warp's longest system needs (every lane of the warp calls it).
__device__ inline int warp_groups(int top, int lanes) {
  const int groups = (top + lanes - 1) / lanes;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return (int)__reduce_max_sync(kAllLanes, (unsigned)groups);
#else // no warp reduction before compute capability 8.0
  int most = groups;
  for (int offset = kWarp / 2; offset > 0; offset /= 2)
    most = max(most, __shfl_xor_sync(kAllLanes, most, offset));
  return most;
#endif
}

// What a lane loads for its element of a backward group (nothing the previous kernel writes).
struct warp_backward_element {
  int e;
  double old_voltage, diagonal, c_over_dt, leak_current, off_diagonal;
};

// assembled_diagonal and inverse_pivots: as in level_backward_load (rows assembled before the
// sweep, the stored inverse pivots loaded into `diagonal`; nullptr: none).
__device__ inline warp_backward_element
warp_backward_load(const level_block_view &v, int s, int j, int size, int first_row,
                   const double *constants, const double *voltage, const double *assembled_diagonal,
                   const double *inverse_pivots) {
  warp_backward_element x = {0, 0.0, 0.0, 0.0, 0.0, 0.0};
  if (j >= 0) {
    const int r = level_row(j, size, first_row);
    const double *row = constants + (size_t)r * CONST_STRIDE;
    x.e = v.row_offset[j] + s;
    x.old_voltage = voltage[x.e];
    if (inverse_pivots) {
      x.diagonal = inverse_pivots[r];
      x.c_over_dt = row[CONST_C_OVER_DT];
      x.leak_current = row[CONST_LEAK_CURRENT];
    } else if (assembled_diagonal) {
      x.diagonal = assembled_diagonal[x.e];
    } else {
      x.diagonal = row[CONST_DIAGONAL_BASE];
      x.c_over_dt = row[CONST_C_OVER_DT];
      x.leak_current = row[CONST_LEAK_CURRENT];
    }
    x.off_diagonal = row[CONST_OFF_DIAGONAL];
  }
  return x;
}

// level_backward_system of system s (-1: none, this group only keeps step with its warp) by a
// group of kLanes lanes (gates: nullptr without channels; rows_assembled as there). stored_pivots
// (a constant where inlined): as level_backward_system_in_groups' (each lane then forms its
// element's factor before the chain, which keeps only the rhs's multiply-add).
template <int kLanes>
__device__ inline void
backward_warp_system(const level_block_view &v, int s, const double *LEVEL_RESTRICT constants,
                     const level_step_arguments &args, double *voltage,
                     double *LEVEL_RESTRICT factor, double *LEVEL_RESTRICT contribution,
                     const double *LEVEL_RESTRICT child_contribution, double *LEVEL_RESTRICT gates,
                     bool rows_assembled = false, bool stored_pivots = false, int variant = -1) {
  const double *assembled_diagonal = rows_assembled ? factor : nullptr;
  const double *inverse_pivots =
      stored_pivots ? level_stored_pivots(constants, &args, gates, rows_assembled) : nullptr;
  const int lane = threadIdx.x & (kLanes - 1);
  const int size = s >= 0 ? v.size[s] : 0, first_row = s >= 0 ? v.first_row[s] : 0;
  const int top = s < 0 ? 0 : v.padded ? v.max_size : size;
  const int stimulated = s >= 0 ? args.stimulus.compartment - v.first_compartment[s] : -1;
  const double injected = stimulated >= 0 && stimulated < size
                              ? stimulus_current(&args.stimulus, v.neuron[s], args.time_ms)
                              : 0.0;
  double previous_factor = 0.0, previous_rhs = 0.0, previous_off_diagonal = 0.0;
  warp_backward_element current =
      warp_backward_load(v, s, top - 1 - lane, size, first_row, constants, voltage,
                         assembled_diagonal, inverse_pivots);
  LEVEL_AFTER_FIRST_LOADS();
  const int groups = warp_groups(top, kLanes);
  for (int g = 0, base = top - 1; g < groups; g++, base -= kLanes) {
    const int j = base - lane; // < 0: past this system's end
    // the next group's loads in flight during this group's rows and chain
    const warp_backward_element next = warp_backward_load(
        v, s, j - kLanes, size, first_row, constants, voltage, assembled_diagonal, inverse_pivots);
    double dj = 0.0, rj = 0.0;
    if (j >= 0) {
      if (rows_assembled) {
        dj = current.diagonal;
        rj = current.old_voltage;
      } else {
        level_element_row_as(&v, s, j, size, first_row, j == stimulated ? injected : 0.0, constants,
                             &args, current.diagonal, current.c_over_dt, current.leak_current,
                             current.old_voltage, gates ? &gates[current.e] : nullptr, &dj, &rj,
                             variant);
      }
      if (j == size - 1) {
        if (inverse_pivots)
          level_gather_children_rhs(&v, s, child_contribution, &rj);
        else
          level_gather_children(&v, s, child_contribution, &dj, &rj);
      }
    }
    // With stored pivots: this lane's element's factor, the product level_pivot_stored forms
    const double own_factor = inverse_pivots ? current.off_diagonal * current.diagonal : 0.0;
    double my_factor = 0.0, my_scaled_rhs = 0.0;
    LEVEL_WARP_UNROLL
    for (int i = 0; i < kLanes; i++) {
      double d = __shfl_sync(kAllLanes, inverse_pivots ? current.diagonal : dj, i, kLanes);
      double r = __shfl_sync(kAllLanes, rj, i, kLanes);
      const double off_diagonal = __shfl_sync(kAllLanes, current.off_diagonal, i, kLanes);
      const double element_factor =
          inverse_pivots ? __shfl_sync(kAllLanes, own_factor, i, kLanes) : 0.0;
      const int ji = base - i;
      if (ji >= 0) {
        if (ji != size - 1 && ji + 1 < top) {
          if (!inverse_pivots)
            d = fma(-previous_factor, previous_off_diagonal, d);
          r = fma(-previous_factor, previous_rhs, r);
        }
        double scaled_rhs;
        if (inverse_pivots) { // d is the inverse pivot
          previous_factor = element_factor;
          scaled_rhs = r * d;
        } else {
          level_pivot(off_diagonal, r, d, &previous_factor, &scaled_rhs);
        }
        if (lane == i)
          my_factor = previous_factor, my_scaled_rhs = scaled_rhs;
        previous_rhs = r;
        previous_off_diagonal = off_diagonal;
      }
    }
    if (j >= 0) {
      factor[current.e] = my_factor;
      voltage[current.e] = my_scaled_rhs;
    }
    current = next;
  }
  if (lane == 0 && s >= 0) {
    contribution[2 * s] = previous_factor * previous_off_diagonal;
    contribution[2 * s + 1] = previous_factor * previous_rhs;
  }
}

// What a lane loads for its element of a forward group.
struct warp_forward_element {
  int e;
  double scaled_rhs, factor;
};

__device__ inline warp_forward_element warp_forward_load(const level_block_view &v, int s, int j,
                                                         int top, const double *voltage,
                                                         const double *factor) {
  warp_forward_element x = {0, 0.0, 0.0};
  if (j < top) {
    x.e = v.row_offset[j] + s;
    x.scaled_rhs = voltage[x.e];
    x.factor = factor[x.e];
  }
  return x;
}

// level_forward_system of system s (-1: none) by a group of kLanes lanes.
template <int kLanes>
__device__ inline void forward_warp_system(const level_block_view &v, int s, double *voltage,
                                           const double *LEVEL_RESTRICT factor,
                                           const double *LEVEL_RESTRICT parent_voltage) {
  const int lane = threadIdx.x & (kLanes - 1);
  const int top = s < 0 ? 0 : v.padded ? v.max_size : v.size[s];
  const int junction = s >= 0 ? v.junction[s] : -1;
  warp_forward_element current = warp_forward_load(v, s, lane, top, voltage, factor);
  LEVEL_AFTER_FIRST_LOADS();
  double x = junction >= 0 ? LEVEL_LOAD_PRODUCED(&parent_voltage[junction]) : 0.0;
  const int groups = warp_groups(top, kLanes);
  for (int g = 0, base = 0; g < groups; g++, base += kLanes) {
    const warp_forward_element next =
        warp_forward_load(v, s, base + kLanes + lane, top, voltage, factor);
    double mine = 0.0;
    LEVEL_WARP_UNROLL
    for (int i = 0; i < kLanes; i++) {
      const double f = __shfl_sync(kAllLanes, current.factor, i, kLanes);
      const double y = __shfl_sync(kAllLanes, current.scaled_rhs, i, kLanes);
      if (base + i < top) {
        x = fma(-f, x, y);
        if (lane == i)
          mine = x;
      }
    }
    if (base + lane < top)
      voltage[current.e] = mine;
    current = next;
  }
}

} // namespace warp_sweeps

#endif
