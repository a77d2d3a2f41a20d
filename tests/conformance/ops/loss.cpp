// Conformance cases of mse_loss, a direct composite of catalog ops (no
// kernel): run by `plexus-conformance --composites` on the plugin's device.
//
// The cases' dtype is the result's. Besides the usual shapes and reductions,
// they pass inputs of two different dtypes (bool, integers, another floating
// dtype beside the result's): the composite must promote before it calls its
// parts, whose own dtype rules are stricter (sub refuses bool), and must
// refuse what the loss itself does not take, naming itself (issue 17, bug 7).
#include <cmath>
#include <string>
#include <vector>

#include "ops/common.h"
#include "suite.h"

namespace plexus::conformance {

namespace {

// (self - target)^2 in the promoted dtype, then none/mean/sum. Each squared
// difference rounds twice (sub, mul); mean and sum add them up.
Expected mse_expected(const Inputs& in, DType result, int64_t reduction) {
  ref::Tensor a = ref::convert(in["self"], result), b = ref::convert(in["target"], result);
  ref::Tensor sq = ref::map2(a, b, [result](double x, double y) {
    const double d = ref::round_to(result, x - y);
    return d * d;
  });
  if (reduction == 0) return expect(sq);
  double sum = 0, abs_sum = 0;
  for (double v : sq.f) {
    sum += v;
    abs_sum += std::abs(v);
  }
  const double n = static_cast<double>(sq.numel());
  ref::Tensor out(result, {});
  out.set_float(0, reduction == 1 ? sum / n : sum);
  const double scale = (reduction == 1 ? abs_sum / n : abs_sum) * (2 + std::sqrt(n));
  return Expected{out, {compute_eps_ratio(result) * scale + 2 * (reduction == 1 ? abs_sum / n : abs_sum)}};
}

// Floating result dtype `dt`: the other dtypes a caller may pair with it so
// that the pair promotes to dt.
std::vector<DType> partners(DType dt) {
  std::vector<DType> p = {DType::Bool, DType::U8, DType::I64};
  if (dt == DType::F32) p.insert(p.end(), {DType::F16, DType::BF16});
  if (dt == DType::F64) p.push_back(DType::F32);
  return p;
}

void add_case(CaseSet& set, const std::string& name, DType ta, const ref::Sizes& sa, uint32_t la,
              DType tb, const ref::Sizes& sb, int64_t reduction) {
  const DType dt = set.dtype();
  Case& c = set.add(name);
  c.tensor("self", random(c.rng, ta, sa, {-3, 3}), la)
      .tensor("target", random(c.rng, tb, sb, {-3, 3}))
      .arg("reduction", reduction);
  c.ref([dt, reduction](const Inputs& in) { return mse_expected(in, dt, reduction); })
      .tolerance({.ulps = 2, .acc = 1});
}

void mse_loss_cases(CaseSet& set) {
  const DType dt = set.dtype();
  const char* kReduction[] = {"none", "mean", "sum"};
  for (int64_t r = 0; r < 3; ++r) {
    const std::string red = kReduction[r];
    add_case(set, red + "_0d", dt, {}, Contiguous, dt, {}, r);
    add_case(set, red + "_empty", dt, {0, 3}, Contiguous, dt, {0, 3}, r);
    add_case(set, red + "_odd", dt, {13, 17}, Transposed, dt, {13, 17}, r);
    add_case(set, red + "_bcast", dt, {5, 7}, Strided | Offset, dt, {7}, r);
    // Mixed dtypes, either way round: promoted first (bool - float is no sub).
    for (DType p : partners(dt)) {
      const std::string pn(dtype_name(p));
      add_case(set, red + "_mixed_" + pn + "_self", p, {4, 6}, Contiguous, dt, {4, 6}, r);
      add_case(set, red + "_mixed_" + pn + "_target", dt, {4, 6}, Transposed, p, {6}, r);
    }
  }
  // float16 with bfloat16 promotes to float32.
  if (dt == DType::F32) add_case(set, "mean_mixed_float16_bfloat16", DType::F16, {9}, Contiguous, DType::BF16, {9}, 1);
  // What the loss refuses, named by the loss, not by the op it calls.
  for (DType t : {DType::Bool, DType::I32}) {
    Case& c = set.add(std::string("error_") + std::string(dtype_name(t)) + "_operands");
    c.tensor("self", random(c.rng, t, {3})).tensor("target", random(c.rng, DType::Bool, {3}));
    c.expect_error = "mse_loss needs floating tensors";
  }
  Case& shape = set.add("error_shape");
  shape.tensor("self", random(shape.rng, dt, {3})).tensor("target", random(shape.rng, DType::Bool, {4}));
  shape.expect_error = "target";
  Case& red = set.add("error_reduction");
  red.tensor("self", random(red.rng, dt, {3})).tensor("target", random(red.rng, dt, {3}));
  red.arg("reduction", int64_t{3});
  red.expect_error = "reduction";
}

}  // namespace

void add_loss_ops(std::vector<OpInfo>& v) {
  v.push_back({"mse_loss", mse_loss_cases, DTypeSet::floating()});
}

}  // namespace plexus::conformance
