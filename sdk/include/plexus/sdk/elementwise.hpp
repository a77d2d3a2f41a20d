// Iteration over views of one shape (the host has already broadcast inputs:
// broadcast dims have stride 0). Dims are collapsed first (layout.hpp), so the
// innermost loop runs as long as the layouts allow.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "plexus/sdk/error.hpp"
#include "plexus/sdk/layout.hpp"
#include "plexus/sdk/tensor_view.hpp"

namespace plexus::sdk {

// Calls row(offsets, n, steps) for every innermost row of a shape shared by N
// strided operands: offsets[k] is where operand k's row starts (in elements
// from its element [0, ..., 0]), steps[k] its stride along the row, n the
// row's length. Rows come in row-major order of the collapsed dims
// (layout.hpp); nothing is called for an empty shape, and a 0-d shape is one
// row of one element.
template <size_t N, typename Row>
void for_each_row(int32_t ndim, const int64_t* sizes, const std::array<const int64_t*, N>& strides,
                  Row&& row) {
  CollapsedDims<N> c;
  if (!collapse_dims(ndim, sizes, strides, c))
    fail(PLEXUS_ERROR_UNSUPPORTED, "for_each_row: " + std::to_string(ndim) + " dims (at most " +
                                       std::to_string(kMaxIterDims) + ")");
  if (c.numel == 0) return;
  std::array<int64_t, N> offsets{}, steps{};
  if (c.ndim == 0) {
    row(offsets, int64_t{1}, steps);
    return;
  }
  const int32_t inner = c.ndim - 1;
  for (size_t k = 0; k < N; ++k) steps[k] = c.strides[k][inner];
  int64_t index[kMaxIterDims] = {};
  for (;;) {
    row(offsets, c.sizes[inner], steps);
    int32_t d = inner - 1;
    for (; d >= 0; --d) {  // advance the outer dims like an odometer
      for (size_t k = 0; k < N; ++k) offsets[k] += c.strides[k][d];
      if (++index[d] < c.sizes[d]) break;
      for (size_t k = 0; k < N; ++k) offsets[k] -= c.strides[k][d] * c.sizes[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

namespace detail {

// Throws unless every view has the first one's shape.
template <typename V0, typename... V>
void check_same_shape(const V0& first, const V&... rest) {
  [[maybe_unused]] auto same = [&](const auto& v) {
    if (v.ndim() != first.ndim()) return false;
    for (int32_t d = 0; d < v.ndim(); ++d)
      if (v.size(d) != first.size(d)) return false;
    return true;
  };
  if (!(same(rest) && ...))
    fail(PLEXUS_ERROR_INVALID_ARGUMENT,
         "elementwise: operands have different shapes (the host broadcasts them first)");
}

// for_each's loop: f(elements...) for views given as a tuple.
template <typename F, typename Views, size_t... K>
void for_each_impl(F& f, const Views& views, std::index_sequence<K...>) {
  const auto& first = std::get<0>(views);
  check_same_shape(std::get<K>(views)...);
  constexpr size_t N = sizeof...(K);
  std::array<const int64_t*, N> strides = {std::get<K>(views).strides()...};
  for_each_row<N>(
      first.ndim(), first.sizes(), strides,
      [&](const std::array<int64_t, N>& off, int64_t n, const std::array<int64_t, N>& step) {
        auto ptrs = std::make_tuple((std::get<K>(views).data() + off[K])...);
        if (((step[K] == 1) && ...)) {  // dense rows: a loop compilers vectorize
          for (int64_t i = 0; i < n; ++i) f(std::get<K>(ptrs)[i]...);
        } else {
          for (int64_t i = 0; i < n; ++i) f(std::get<K>(ptrs)[i * step[K]]...);
        }
      });
}

}  // namespace detail

// for_each(v0, v1, ..., f): calls f(e0, e1, ...) with references to the
// elements of views of one shape at each index, in row-major order.
template <typename... Args>
void for_each(Args&&... args) {
  constexpr size_t n = sizeof...(Args) - 1;
  static_assert(n >= 1, "for_each(views..., f) needs at least one view");
  auto all = std::forward_as_tuple(args...);
  detail::for_each_impl(std::get<n>(all), all, std::make_index_sequence<n>{});
}

// elementwise(out, in..., f): out[i] = f(in[i]...) for views of one shape,
// converting f's result to out's element type with static_cast.
template <typename Out, typename... Args>
void elementwise(const TensorView<Out>& out, Args&&... args) {
  static_assert(!std::is_const_v<Out>, "elementwise: out must be a view of mutable elements");
  constexpr size_t n = sizeof...(Args) - 1;
  auto all = std::forward_as_tuple(out, args...);
  auto& f = std::get<n + 1>(all);
  auto assign = [&f](Out& o, const auto&... in) { o = static_cast<Out>(f(in...)); };
  detail::for_each_impl(assign, all, std::make_index_sequence<n + 1>{});
}

}  // namespace plexus::sdk
