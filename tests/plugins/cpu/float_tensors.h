// Float32 tensors and checks shared by the cpu plugin's row-kernel tests
// (softmax, layer_norm, pool, embedding).
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "plexus/factories.h"

namespace plexus::testing {

using Sizes = std::vector<int64_t>;
using Floats = std::vector<float>;

inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kInf = std::numeric_limits<float>::infinity();

inline Sizes sizes_of(const Tensor& t) {
  return Sizes(t.sizes().begin(), t.sizes().end());
}

// Checks every value of got is within `eps` (relative) or `margin` of want.
inline void check_close(const Floats& got, const Floats& want, double eps = 1e-6,
                        double margin = 1e-7) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    if (std::isinf(want[i]))
      CHECK(got[i] == want[i]);
    else
      CHECK(got[i] == Approx(want[i]).epsilon(eps).margin(margin));
  }
}

// A float32 tensor of the given sizes holding offset + scale * i at position i.
inline Tensor iota(Sizes sizes, float scale = 1, float offset = 0) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  Tensor t = empty(sizes, TensorOptions(DType::F32));
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = offset + scale * static_cast<float>(i);
  return t;
}

}  // namespace plexus::testing
