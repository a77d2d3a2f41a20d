#include "plexus/shape.h"

#include <fmt/format.h>

#include "plexus/error.h"

namespace plexus {

std::string shape_str(IntArrayRef s) {
  return fmt::format("[{}]", fmt::join(s, ", "));
}

int64_t checked_numel(IntArrayRef sizes, std::string_view what) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    PLEXUS_CHECK(s >= 0, ErrorCode::InvalidArgument, "{} {}: sizes must be non-negative", what,
                 shape_str(sizes));
    PLEXUS_CHECK(!__builtin_mul_overflow(n, s, &n), ErrorCode::InvalidArgument,
                 "{} {}: the number of elements overflows int64", what, shape_str(sizes));
  }
  return n;
}

Shape contiguous_strides(IntArrayRef sizes) {
  Shape strides(sizes.size());
  int64_t st = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = st;
    if (i > 0)
      PLEXUS_CHECK(!__builtin_mul_overflow(st, sizes[i] > 1 ? sizes[i] : 1, &st),
                   ErrorCode::InvalidArgument,
                   "sizes {}: the strides of a contiguous layout overflow int64",
                   shape_str(sizes));
  }
  return strides;
}

int64_t wrap_dim(int64_t dim, int64_t ndim, std::string_view what, bool scalar_ok) {
  int64_t n = (ndim == 0 && scalar_ok) ? 1 : ndim;
  PLEXUS_CHECK(n > 0, ErrorCode::InvalidArgument,
               "{} {} is out of range: the tensor has no dimensions", what, dim);
  PLEXUS_CHECK(dim >= -n && dim < n, ErrorCode::InvalidArgument,
               "{} {} is out of range: expected a value in [{}, {}]", what, dim, -n, n - 1);
  return dim < 0 ? dim + n : dim;
}

Shape broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    PLEXUS_CHECK(x == y || x == 1 || y == 1, ErrorCode::InvalidArgument,
                 "shapes {} and {} do not broadcast: dimension {} is {} in one and {} in the other",
                 shape_str(a), shape_str(b), i, x, y);
    out[i] = x == 1 ? y : x;
  }
  return out;
}

}  // namespace plexus
