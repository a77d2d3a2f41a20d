// Helpers the families of ops/ share: the subset of standard cases a
// secondary pass repeats, cheap large tensors, full-range values, and the
// accumulation scale of reductions and products.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "suite.h"

namespace plexus::conformance {

// The standard cases a secondary pass (another rounding mode, exponent, scalar,
// weight) repeats; the large and stress cases run in the main pass only.
extern const std::vector<std::string> kSome;

// Values for ElementwiseSpec::make: gen's values, except that a tensor of over
// 64K elements (the large case) repeats a block of 4099 of them (a prime, so
// that the pattern lines up with no kernel's chunks): drawing every value of
// every large case would dominate the suite's time.
using Make = std::function<ref::Tensor(Rng&, DType, const ref::Sizes&, size_t)>;
Make tiled(Make gen);

// Integers over their dtype's whole range (so that sums and products wrap),
// floats in [-4, 4], bool 0/1.
ref::Tensor wide(Rng& rng, DType t, const ref::Sizes& sizes);

// The tolerance scale of accumulated results: the error of an accumulation in
// any order grows like sqrt(terms) * eps * sum|terms| in practice. float16 and
// bfloat16 accumulate in float32 (the project's rule: they compute in float32
// and round once), so their accumulation error is float32's, expressed in
// units of the dtype's eps.
std::vector<double> accumulation_scale(DType dt, std::vector<double> abs_sums, int64_t terms);
// Random accumulations: one ulp for the final rounding, twice the scale for
// the order of the additions (an honest float32 accumulation stays well below
// it; one wrong term of average size does not, for the sizes used here).
constexpr Tolerance kAccumulated = {.ulps = 1, .acc = 2};

// float16 and bfloat16 compute in float32 and round once (the project's rule):
// their accumulated rounding is float32's, here in units of the dtype's eps.
double compute_eps_ratio(DType t);
// An expected result whose per-element error bound (in the kernel's compute
// eps) is `scale` times `factor`.
Expected accumulated(ref::Tensor values, std::vector<double> scale, double factor = 1);
// `t` with the elements at about `fraction` of the positions set to `v`.
ref::Tensor sprinkle(Rng& rng, ref::Tensor t, double v, double fraction);

}  // namespace plexus::conformance
