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

// float16 and bfloat16 compute in float32 and round once (the project's rule):
// their accumulated rounding is float32's, here in units of the dtype's eps.
double compute_eps_ratio(DType t) {
  return t == DType::F16 || t == DType::BF16 ? dtype_eps(DType::F32) / dtype_eps(t) : 1.0;
}

// An expected result whose per-element error bound (in the kernel's compute
// eps) is `scale` times `factor`.
Expected accumulated(ref::Tensor values, std::vector<double> scale, double factor) {
  const double r = compute_eps_ratio(values.dtype) * factor;
  for (double& s : scale) s *= r;
  return Expected{std::move(values), std::move(scale)};
}

// A tensor of `sizes` whose elements at `fraction` of the positions are `v`.
ref::Tensor sprinkle(Rng& rng, ref::Tensor t, double v, double fraction) {
  for (int64_t k = 0; k < t.numel(); ++k)
    if (rng.uniform(0, 1) < fraction) t.set_float(k, v);
  return t;
}

}  // namespace plexus::conformance
