#include "ops/common.h"

#include <algorithm>
#include <cmath>

namespace plexus::conformance {

const std::vector<std::string> kSome = {"0d",        "one",       "odd",        "prime_2d",
                                        "bcast_lhs", "bcast_rhs", "transposed", "mixed_layouts"};

Make tiled(Make gen) {
  return [gen](Rng& rng, DType t, const ref::Sizes& sizes, size_t k) {
    constexpr int64_t kBlock = 4099;
    if (ref::numel_of(sizes) <= 65536) return gen(rng, t, sizes, k);
    ref::Tensor block = gen(rng, t, {kBlock}, k), out(block.dtype, sizes);
    for (int64_t e = 0; e < out.numel(); ++e) {
      if (out.integral())
        out.set_int(e, block.at_int(e % kBlock));
      else
        out.set_float(e, block.at(e % kBlock));
    }
    return out;
  };
}

ref::Tensor wide(Rng& rng, DType t, const ref::Sizes& sizes) {
  return is_floating(t) ? random(rng, t, sizes) : random(rng, t, sizes, {-1e19, 1e19});
}

std::vector<double> accumulation_scale(DType dt, std::vector<double> abs_sums, int64_t terms) {
  double f = std::sqrt(static_cast<double>(std::max<int64_t>(terms, 1))) *
             dtype_eps(dt == DType::F64 ? DType::F64 : DType::F32) / dtype_eps(dt);
  for (double& s : abs_sums) s *= f;
  return abs_sums;
}

}  // namespace plexus::conformance
