// Dim collapsing of strided layouts: the loop nest N operands of one shape
// share, with size-1 dims dropped and neighbouring dims merged where every
// operand steps over the two as over one. Every plugin's loops and launches,
// and the host's, collapse dims through this.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace plexus::sdk {

// The most dims the SDK's loops (elementwise.hpp) take.
inline constexpr int32_t kMaxIterDims = 64;

// The dims of N strided operands of one shape, outermost first: sizes[d] and
// operand k's stride strides[k][d] (in elements). At most MaxDims of them, in
// fixed arrays, so a layout can travel to a GPU kernel by value.
template <size_t N, int32_t MaxDims = kMaxIterDims>
struct CollapsedDims {
  int32_t ndim = 0;
  int64_t numel = 1;  // the product of every size pushed (0 when one is 0)
  int64_t sizes[MaxDims];
  int64_t strides[N][MaxDims];

  // Appends a dim inside those pushed so far: dropped when of size 1, merged
  // into the innermost one when every operand's stride there is this dim's
  // stride times its size. False, with nothing appended, when it would be a
  // new dim past MaxDims.
  bool push(int64_t size, const std::array<int64_t, N>& s) {
    if (size == 1) return true;
    int32_t last = ndim - 1;
    bool merge = last >= 0;
    for (size_t k = 0; k < N && merge; ++k) merge = strides[k][last] == s[k] * size;
    if (merge) {
      sizes[last] *= size;
      for (size_t k = 0; k < N; ++k) strides[k][last] = s[k];
    } else {
      if (ndim == MaxDims) return false;
      sizes[ndim] = size;
      for (size_t k = 0; k < N; ++k) strides[k][ndim] = s[k];
      ++ndim;
    }
    numel *= size;
    return true;
  }
};

// Collapses a shape of ndim sizes over N operands (strides[k]: operand k's
// strides) into out, which starts empty. False when more than MaxDims dims remain.
template <size_t N, int32_t MaxDims>
bool collapse_dims(int32_t ndim, const int64_t* sizes, const std::array<const int64_t*, N>& strides,
                   CollapsedDims<N, MaxDims>& out) {
  out.ndim = 0;
  out.numel = 1;
  for (int32_t d = 0; d < ndim; ++d) {
    std::array<int64_t, N> s{};
    for (size_t k = 0; k < N; ++k) s[k] = strides[k][d];
    if (!out.push(sizes[d], s)) return false;
  }
  return true;
}

}  // namespace plexus::sdk
