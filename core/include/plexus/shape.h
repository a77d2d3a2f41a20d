// Shape and stride containers, and the shape arithmetic every part of plexus shares.
#pragma once

#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <span>
#include <algorithm>
#include <array>
#include <initializer_list>
#include <string>
#include <vector>

namespace plexus {

// Sizes or strides of a tensor; up to 6 dimensions without a heap allocation.
using Shape = boost::container::small_vector<int64_t, 6>;
// A borrowed list of sizes, strides or dims; converts from Shape, vectors,
// arrays and braced lists (which live until the end of the full expression).
class IntArrayRef {
 public:
  constexpr IntArrayRef() = default;
  constexpr IntArrayRef(const int64_t* data, size_t size) : data_(data), size_(size) {}
  IntArrayRef(const Shape& s) : data_(s.data()), size_(s.size()) {}
  IntArrayRef(const std::vector<int64_t>& v) : data_(v.data()), size_(v.size()) {}
  constexpr IntArrayRef(std::span<const int64_t> s) : data_(s.data()), size_(s.size()) {}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  constexpr IntArrayRef(std::initializer_list<int64_t> l) : data_(l.begin()), size_(l.size()) {}
#pragma GCC diagnostic pop
  template <size_t N>
  constexpr IntArrayRef(const std::array<int64_t, N>& a) : data_(a.data()), size_(N) {}

  constexpr const int64_t* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const int64_t* begin() const { return data_; }
  constexpr const int64_t* end() const { return data_ + size_; }
  constexpr int64_t operator[](size_t i) const { return data_[i]; }
  constexpr int64_t front() const { return data_[0]; }
  constexpr int64_t back() const { return data_[size_ - 1]; }
  bool operator==(IntArrayRef o) const { return std::equal(begin(), end(), o.begin(), o.end()); }

 private:
  const int64_t* data_ = nullptr;
  size_t size_ = 0;
};

// "[2, 3, 4]"
std::string shape_str(IntArrayRef s);
// Product of the sizes; throws InvalidArgument naming `what` on a negative
// size or when the product overflows int64.
int64_t checked_numel(IntArrayRef sizes, std::string_view what = "sizes");
// Row-major strides for these sizes (dims of size 0 or 1 count as 1). Throws
// InvalidArgument when a stride overflows int64, which sizes with a 0 among
// them can do while their element count stays 0.
Shape contiguous_strides(IntArrayRef sizes);
// Wraps a possibly negative dim into [0, ndim); throws naming `what` when out of range.
// A 0-d tensor accepts dims -1 and 0 when scalar_ok (PyTorch's rule for reductions).
int64_t wrap_dim(int64_t dim, int64_t ndim, std::string_view what = "dim", bool scalar_ok = true);
// The broadcast of two shapes; throws InvalidArgument naming both shapes and the dim.
Shape broadcast_shapes(IntArrayRef a, IntArrayRef b);

}  // namespace plexus
