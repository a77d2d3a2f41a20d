// Conformance cases of the fused pointwise ops of three operands: lerp,
// addcmul, addcdiv.
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "reference/elementwise.h"
#include "ops/common.h"
#include "suite.h"

namespace plexus::conformance {

namespace {

// ---- lerp ------------------------------------------------------------------------

// Each rounding before the last (end - self, the weight's, the product) is
// off by at most half an ulp of |weight| * |end - self| or of
// |1 - weight| * |end - self|, by the formula a kernel takes; on top of the
// final rounding's ulp.
constexpr Tolerance kLerpTol = {.ulps = 1, .acc = 1};

Expected lerp_expected(const Inputs& in, double weight) {
  const ref::Tensor &self = in["self"], &end = in["end"];
  Expected e = expect(ref::lerp(self, end, weight));
  double k = std::max(std::fabs(weight), std::fabs(1 - weight));
  e.scale = ref::map2(self, end, [k](double a, double b) { return k * std::fabs(b - a); }).f;
  return e;
}

void lerp_cases(CaseSet& set) {
  const DType dt = set.dtype();
  struct Pass {
    Scalar weight;
    bool special;
  };
  // Both of PyTorch's formulas (|weight| below and above 0.5), the ends, and
  // extrapolation. -0.5 gets no special values: (1 - weight) * (end - self)
  // may overflow in the compute dtype for finite inputs whose result is finite.
  const std::vector<Pass> passes = {{Scalar(0.3), true},   {Scalar(0.7), true},
                                    {Scalar(0.0), true},   {Scalar(int64_t{1}), true},
                                    {Scalar(-0.5), false}, {Scalar(1.5), true}};
  for (size_t p = 0; p < passes.size(); ++p) {
    const Scalar w = passes[p].weight;
    // The weight converts to the compute dtype (0.3 is no float).
    const double weight = ref::round_to(ref::compute_dtype(dt), w.to_double());
    ElementwiseSpec s;
    s.inputs = {"self", "end"};
    s.args = {{"weight", w}};
    s.make = tiled(
        [](Rng& rng, DType t, const ref::Sizes& sizes, size_t) { return random(rng, t, sizes); });
    s.reference = [weight](const Inputs& in) { return lerp_expected(in, weight); };
    s.tol = kLerpTol;
    s.special = passes[p].special;
    if (p > 0) {
      s.prefix = "weight_" + w.str() + "_";
      s.only = kSome;
      if (passes[p].special) s.only.push_back("special");
    }
    elementwise_cases(set, s);
  }
  // Small integers: with weights of a quarter every step is exact, so the
  // result must be too, whatever formula a kernel takes.
  for (double w : {0.25, 0.75}) {
    Case& c = set.add("exact_weight_" + Scalar(w).str());
    c.tensor("self", small_integers(c.rng, dt, {13, 17}, -16, 16));
    c.tensor("end", small_integers(c.rng, dt, {13, 17}, -16, 16));
    c.arg("weight", Scalar(w)).ref([w](const Inputs& in) {
      return expect(ref::lerp(in["self"], in["end"], w));
    });
  }
  // end must have self's dtype (no promotion, as in PyTorch).
  Case& c = set.add("end_dtype_differs");
  c.tensor("self", random(c.rng, dt, {5}));
  c.tensor("end", random(c.rng, dt == DType::F32 ? DType::F64 : DType::F32, {5}));
  c.arg("weight", Scalar(0.5)).expect_error = "must have self's dtype";
}

// ---- addcmul, addcdiv --------------------------------------------------------------

// The product or quotient is rounded up to twice (value * tensor1, then by
// tensor2) before the sum: eps * |value * tensor1 op tensor2| on top of the
// final rounding's ulp.
constexpr Tolerance kAddcTol = {.ulps = 1, .acc = 1};

Expected addc_expected(const Inputs& in, const Scalar& value, bool divide) {
  const ref::Tensor &self = in["self"], &t1 = in["tensor1"], &t2 = in["tensor2"];
  Expected e =
      expect(divide ? ref::addcdiv(self, t1, t2, value) : ref::addcmul(self, t1, t2, value));
  if (!e.values.integral()) {
    double v = value.to_double();
    e.scale = ref::map({&self, &t1, &t2}, self.dtype,
                       [v, divide](const std::vector<double>& x) {
                         return std::fabs(v * (divide ? x[1] / x[2] : x[1] * x[2]));
                       },
                       {})
                  .f;
  }
  return e;
}

// tensor2 of addcmul in [-1, 1] and of addcdiv in +-[1, 4]: the product or
// quotient is no larger than tensor1, so it overflows in a kernel's compute
// dtype only where the double reference does too.
ref::Tensor addc_tensor2(Rng& rng, DType t, const ref::Sizes& sizes, bool divide) {
  if (!is_floating(t)) return wide(rng, t, sizes);
  if (!divide) return random(rng, t, sizes, {-1, 1});
  ref::Tensor out = random(rng, t, sizes, {1, 4});
  for (int64_t k = 0; k < out.numel(); ++k)
    if (rng.coin()) out.set_float(k, -out.at(k));
  return out;
}

void addc_cases(CaseSet& set, bool divide) {
  const DType dt = set.dtype();
  const bool fl = is_floating(dt);
  // The default value 1 everywhere (special values: no scaling that could
  // overflow before the sum), then a non-trivial one on some cases.
  const std::vector<Scalar> values = {Scalar(int64_t{1}), fl ? Scalar(-2.5) : Scalar(int64_t{-3})};
  for (size_t p = 0; p < values.size(); ++p) {
    const Scalar value = values[p];
    ElementwiseSpec s;
    s.inputs = {"self", "tensor1", "tensor2"};
    if (p > 0) s.args = {{"value", value}};
    s.make = tiled([divide](Rng& rng, DType t, const ref::Sizes& sizes, size_t k) {
      return k == 2 ? addc_tensor2(rng, t, sizes, divide) : wide(rng, t, sizes);
    });
    s.reference = [value, divide](const Inputs& in) { return addc_expected(in, value, divide); };
    s.tol = kAddcTol;
    if (p > 0) {
      s.prefix = "value_" + value.str() + "_";
      s.only = kSome;
    }
    elementwise_cases(set, s);
  }
  // Small integers (tensor2 of addcdiv a power of two): every step is exact.
  Case& c = set.add("exact");
  c.tensor("self", small_integers(c.rng, dt, {13, 17}, -8, 8));
  c.tensor("tensor1", small_integers(c.rng, dt, {13, 17}, -8, 8));
  ref::Tensor t2 = small_integers(c.rng, dt, {13, 17}, -8, 8);
  if (divide) {
    for (int64_t k = 0; k < t2.numel(); ++k)
      t2.set_float(k, std::ldexp(c.rng.coin() ? 1.0 : -1.0, static_cast<int>(c.rng.integer(0, 2))));
  }
  c.tensor("tensor2", t2);
  const Scalar two = fl ? Scalar(2.0) : Scalar(int64_t{2});
  c.arg("value", two).ref([two, divide](const Inputs& in) {
    const ref::Tensor &a = in["self"], &b = in["tensor1"], &d = in["tensor2"];
    return expect(divide ? ref::addcdiv(a, b, d, two) : ref::addcmul(a, b, d, two));
  });
  // value must fit the inputs: no float for integers, no bool for numbers.
  Case& bad = set.add("value_kind_mismatch");
  bad.tensor("self", random(bad.rng, dt, {4}));
  bad.tensor("tensor1", random(bad.rng, dt, {4}));
  bad.tensor("tensor2", addc_tensor2(bad.rng, dt, {4}, divide));
  bad.arg("value", fl ? Scalar(true) : Scalar(0.5)).expect_error =
      fl ? "may be a bool" : "must be an integer";
  if (!divide) return;

  // x / 0 is +-inf or NaN, and so is the sum.
  Case& z = set.add("zero_divisor");
  std::vector<double> sv = special_values(dt);
  int64_t n = static_cast<int64_t>(sv.size());
  z.tensor("self", random(z.rng, dt, {n}));
  z.tensor("tensor1", from_values(dt, {n}, sv));
  z.tensor("tensor2", from_values(dt, {n}, {0.0, -0.0}));
  z.ref([](const Inputs& in) { return addc_expected(in, Scalar(int64_t{1}), true); }).tol =
      kAddcTol;
  if (dt != DType::F32) return;
  // An integer tensor1 with floating tensors computes in float32.
  Case& mixed = set.add("int_tensor1");
  mixed.tensor("self", random(mixed.rng, dt, {13, 17}));
  mixed.tensor("tensor1", random(mixed.rng, DType::I32, {13, 17}, {-100, 100}));
  mixed.tensor("tensor2", addc_tensor2(mixed.rng, dt, {13, 17}, true));
  mixed
      .ref([](const Inputs& in) {
        Inputs f = in;
        f.tensors_["tensor1"] = ref::convert(in["tensor1"], DType::F32);
        return addc_expected(f, Scalar(int64_t{1}), true);
      })
      .tol = kAddcTol;
  // Two integer operands of the division are refused (PyTorch removed integer addcdiv).
  Case& ints = set.add("integer_division");
  for (const char* name : {"self", "tensor1", "tensor2"})
    ints.tensor(name, random(ints.rng, DType::I32, {4}, {1, 9}));
  ints.expect_error = "is not supported";
}

// mse_loss_backward(grad_output, self, target, reduction): norm (self -
// target) grad_output, norm 2 / numel for 'mean' (1), else 2. Three
// roundings (the difference, two products; norm's own for 'mean').
Expected mse_grad_expected(const Inputs& in, int64_t reduction) {
  const ref::Tensor &g = in["grad_output"], &x = in["self"], &t = in["target"];
  ref::Sizes shape = ref::broadcast_shapes(ref::broadcast_shapes(g.sizes, x.sizes), t.sizes);
  const double n = static_cast<double>(std::max<int64_t>(ref::numel_of(shape), 1));
  const double norm = reduction == 1 ? 2 / n : 2;
  DType dt = x.dtype;
  return expect(ref::map({&g, &x, &t}, dt,
                         [norm](const std::vector<double>& v) { return norm * (v[1] - v[2]) * v[0]; },
                         {}));
}

void mse_loss_backward_cases(CaseSet& set) {
  const DType dt = set.dtype();
  const Tolerance tol{.ulps = 4};
  // reduction 'none': every input elementwise, broadcasting included.
  ElementwiseSpec s;
  s.inputs = {"grad_output", "self", "target"};
  s.args = {{"reduction", int64_t{0}}};
  s.reference = [](const Inputs& in) { return mse_grad_expected(in, 0); };
  s.tol = tol;
  s.special = false;
  s.inplace = false;
  elementwise_cases(set, s);
  // 'mean' and 'sum': a 0-d grad_output scales every element.
  for (int64_t reduction : {int64_t{1}, int64_t{2}}) {
    for (const ref::Sizes& shape : {ref::Sizes{}, ref::Sizes{7}, ref::Sizes{13, 17}, ref::Sizes{0, 3}}) {
      std::string dims;
      for (int64_t n : shape) dims += (dims.empty() ? "" : "x") + std::to_string(n);
      std::string name = (reduction == 1 ? "mean_" : "sum_") + (dims.empty() ? "0d" : dims);
      Case& c = set.add(name);
      c.tensor("grad_output", random(c.rng, dt, {}))
          .tensor("self", random(c.rng, dt, shape))
          .tensor("target", random(c.rng, dt, shape), Transposed)
          .arg("reduction", reduction);
      c.ref([reduction](const Inputs& in) { return mse_grad_expected(in, reduction); })
          .tolerance(tol);
    }
    Case& bad = set.add(reduction == 1 ? "error_mean_grad_shape" : "error_sum_grad_shape");
    bad.tensor("grad_output", random(bad.rng, dt, {3}))
        .tensor("self", random(bad.rng, dt, {3}))
        .tensor("target", random(bad.rng, dt, {3}))
        .arg("reduction", reduction);
    bad.expect_error = "grad_output";
  }
  Case& c = set.add("error_reduction");
  c.tensor("grad_output", random(c.rng, dt, {}))
      .tensor("self", random(c.rng, dt, {3}))
      .tensor("target", random(c.rng, dt, {3}))
      .arg("reduction", int64_t{3});
  c.expect_error = "reduction";
}

}  // namespace

void add_pointwise_ops(std::vector<OpInfo>& v) {
  v.push_back({"lerp.Scalar_out", lerp_cases});
  v.push_back({"addcmul.out", [](CaseSet& s) { addc_cases(s, false); }});
  v.push_back({"addcdiv.out", [](CaseSet& s) { addc_cases(s, true); }});
  v.push_back({"mse_loss_backward.out", mse_loss_backward_cases});
}

}  // namespace plexus::conformance
