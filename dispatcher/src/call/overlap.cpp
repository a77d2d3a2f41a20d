#include "call/overlap.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "call/transfer.h"

namespace plexus {

Overlap overlap(const Tensor& a, const Tensor& b) {
  if (a.numel() == 0 || b.numel() == 0 || a.storage() != b.storage()) return Overlap::None;
  if (a.storage_offset() == b.storage_offset() && a.dtype() == b.dtype() &&
      std::equal(a.sizes().begin(), a.sizes().end(), b.sizes().begin(), b.sizes().end()) &&
      std::equal(a.strides().begin(), a.strides().end(), b.strides().begin(), b.strides().end()))
    return Overlap::Full;
  auto [a0, a1] = byte_extent(a);
  auto [b0, b1] = byte_extent(b);
  return (a0 < b1 && b0 < a1) ? Overlap::Partial : Overlap::None;
}

bool has_internal_overlap(const Tensor& t) {
  if (t.numel() == 0 || t.is_contiguous()) return false;
  return has_internal_overlap(t.sizes(), t.strides());
}

bool has_internal_overlap(IntArrayRef sizes, IntArrayRef strides) {
  // Sort dims by stride; the layout is free of overlap when each stride is at
  // least the span of all smaller-stride dims.
  boost::container::small_vector<std::pair<int64_t, int64_t>, 6> dims;  // (stride, size)
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return false;
    if (sizes[d] > 1) dims.emplace_back(strides[d], sizes[d]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t span = 1;
  for (auto [stride, size] : dims) {
    if (stride < span) return true;
    span = stride * (size - 1) + span;
  }
  return false;
}

}  // namespace plexus
