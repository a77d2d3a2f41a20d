// Conformance cases of the binary arithmetic ops: add, sub, mul, div, pow,
// maximum, minimum.
#include <cmath>

#include "reference/elementwise.h"
#include "suite.h"

namespace plexus::conformance {

namespace {

// add.out and sub.out: alpha 1 on every standard case, then a non-trivial
// alpha on a few. On special values floating alpha is -0.5, so alpha * other
// cannot overflow where self + alpha * other does not (a fused multiply-add
// and a separate multiply then agree).
void add_sub_cases(CaseSet& set, bool subtract) {
  DType dt = set.dtype();
  struct Pass {
    double alpha;
    std::vector<std::string> only;
  };
  std::vector<Pass> passes = {{1.0, {}}};
  if (is_floating(dt)) {
    passes.push_back({-2.5, {"prime_2d", "bcast_rhs", "transposed", "stress"}});
    passes.push_back({-0.5, {"special"}});
  } else if (dt != DType::Bool) {
    passes.push_back({3.0, {"prime_2d", "bcast_rhs", "transposed", "special", "stress"}});
  }
  for (const Pass& p : passes) {
    double alpha = p.alpha;
    ElementwiseSpec s;
    s.inputs = {"self", "other"};
    if (dt == DType::Bool) s.args = {{"alpha", Scalar(true)}};
    else if (is_floating(dt)) s.args = {{"alpha", Scalar(alpha)}};
    else s.args = {{"alpha", Scalar(static_cast<int64_t>(alpha))}};
    s.reference = [alpha, subtract](const Inputs& in) {
      const ref::Tensor &a = in["self"], &b = in["other"];
      Expected e = expect(subtract ? ref::sub(a, b, alpha) : ref::add(a, b, alpha));
      // alpha * b may be rounded before the add: its size bounds that error.
      if (!e.values.integral())
        e.scale = ref::map2(a, b, [alpha](double, double y) { return std::fabs(alpha * y); }).f;
      return e;
    };
    s.tol = {.ulps = 1, .acc = 1};
    s.make = [](Rng& rng, DType t, const ref::Sizes& sizes, size_t) {
      return is_floating(t) ? random(rng, t, sizes) : random(rng, t, sizes, {-1e18, 1e18});
    };
    if (alpha != 1.0) {
      s.prefix = alpha == -0.5 ? "alpha_half_" : "alpha_";
      s.only = p.only;
    }
    elementwise_cases(set, s);
  }
}

}  // namespace

void add_binary_ops(std::vector<OpInfo>& v) {
  v.push_back({"add.out", [](CaseSet& s) { add_sub_cases(s, false); }});
  v.push_back({"sub.out", [](CaseSet& s) { add_sub_cases(s, true); }});
}

}  // namespace plexus::conformance
