// Host-side helpers for the cpu kernel tests: build a tensor from values and
// read any view back, both without running a kernel.
#pragma once

#include <catch2/catch.hpp>
#include <type_traits>
#include <vector>

#include "plexus/dtype_dispatch.h"
#include "plexus/ops.h"

namespace plexus::testing {

// A contiguous tensor of dtype t holding `v` in row-major order.
inline Tensor make(DType t, IntArrayRef sizes, const std::vector<double>& v) {
  Tensor x = empty(sizes, t);
  REQUIRE(size_t(x.numel()) == v.size());
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(x.data_ptr());
    for (size_t i = 0; i < v.size(); ++i) p[i] = convert_value<T>(v[i]);
  });
  return x;
}

// The elements of any view in row-major order, read through its strides on
// the host (no kernel involved).
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* base = static_cast<const T*>(t.data_ptr());
    std::vector<int64_t> idx(size_t(t.dim()), 0);
    for (int64_t n = 0; n < t.numel(); ++n) {
      int64_t off = 0;
      for (int64_t d = 0; d < t.dim(); ++d) off += idx[size_t(d)] * t.stride(d);
      out.push_back(static_cast<double>(
          static_cast<
              std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>>(
              base[off])));
      for (int64_t d = t.dim() - 1; d >= 0; --d) {
        if (++idx[size_t(d)] < t.size(d)) break;
        idx[size_t(d)] = 0;
      }
    }
  });
  return out;
}

}  // namespace plexus::testing
