// Rows of a tensor, shared by the row kernels (softmax, layer_norm, pool,
// embedding): a row gathered into its compute type and scattered back, rows
// found by number, rows split across threads.
//
// A dense float row is read and written in place; any other row (strided, or
// Half, BFloat16) is gathered into a per-thread buffer in its compute type first.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "parallel.h"

namespace plexus::cpu {
// Internal linkage, as when these lived in one kernel file: GCC inlines them
// into the kernels' loops as it did then.
namespace {

// n elements p[0], p[s], ... as their compute type C, into dst.
template <typename C, typename T>
void gather(const T* p, int64_t n, int64_t s, C* dst) {
#ifdef __F16C__
  if constexpr (std::is_same_v<T, sdk::Half>) {
    if (s == 1) {
      int64_t i = 0;
      for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i,
                         _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))));
      for (; i < n; ++i) dst[i] = _cvtsh_ss(p[i].bits);
      return;
    }
  }
#endif
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<C>(p[i * s]);
}

// n values of src into p[0], p[s], ... as T, rounded once to nearest even.
template <typename T, typename C>
void scatter(const C* src, int64_t n, T* p, int64_t s) {
#ifdef __F16C__
  if constexpr (std::is_same_v<T, sdk::Half>) {
    int64_t i = 0;
    if (s == 1)
      for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; ++i)
      p[i * s] = sdk::Half::from_bits(_cvtss_sh(src[i], _MM_FROUND_TO_NEAREST_INT));
    return;
  }
#endif
  for (int64_t i = 0; i < n; ++i) p[i * s] = T(src[i]);
}

// The dims that index rows (all but the row's own), with their strides in
// the input and the output; offsets() finds a row by its row-major number.
struct RowIndex {
  int32_t ndim = 0;
  int64_t size[sdk::kMaxIterDims];
  int64_t in_stride[sdk::kMaxIterDims];
  int64_t out_stride[sdk::kMaxIterDims];
  int64_t count = 1;

  void push(int64_t n, int64_t si, int64_t so) {
    size[ndim] = n;
    in_stride[ndim] = si;
    out_stride[ndim] = so;
    ++ndim;
    count *= n;
  }
  // The offsets of row r in the input and the output.
  void offsets(int64_t r, int64_t& in, int64_t& out) const {
    in = out = 0;
    for (int32_t d = ndim - 1; d >= 0; --d) {
      int64_t i = r % size[d];
      r /= size[d];
      in += i * in_stride[d];
      out += i * out_stride[d];
    }
  }
};

// Calls f(part, begin, end) on `parts` disjoint ranges of [0, n) in parallel,
// where parts = parts_for(n); `part` indexes per-part scratch.
inline int64_t parts_for(int64_t n) {
  return std::max<int64_t>(1, std::min<int64_t>(omp_get_max_threads(), n));
}
template <typename F>
void parallel_parts(int64_t n, int64_t cost_per_item, F f) {
  int64_t parts = parts_for(n);
  parallel_for(parts, std::max<int64_t>(1, n / parts) * cost_per_item, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) f(p, n * p / parts, n * (p + 1) / parts);
  });
}

// The trailing k dims of t as one dense run (size-1 dims aside).
inline bool trailing_dense(const plexus_tensor& t, int32_t k) {
  int64_t expected = 1;
  for (int32_t d = t.ndim - 1; d >= t.ndim - k; --d) {
    if (t.sizes[d] != 1 && t.strides[d] != expected) return false;
    expected *= t.sizes[d];
  }
  return true;
}

// Throws UNSUPPORTED for a tensor of more dims than a RowIndex holds.
inline void check_dims(const plexus_tensor& t, const char* op) {
  if (t.ndim > sdk::kMaxIterDims)
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "{}: {} dims (at most {})", op, t.ndim, sdk::kMaxIterDims);
}

// Lanes that keep row loops vectorized: four 256-bit registers.
template <typename C>
inline constexpr int kLanes = 128 / sizeof(C);

}  // namespace
}  // namespace plexus::cpu
