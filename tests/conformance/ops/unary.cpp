// Conformance cases of the unary ops: neg, abs, exp, log, sqrt, rsqrt, sin,
// cos, tanh, sigmoid, silu, relu, gelu, clamp.
#include "reference/unary.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "suite.h"

namespace plexus::conformance {

namespace {

using RefFn = ref::Tensor (*)(const ref::Tensor&);
using MakeFn = std::function<ref::Tensor(Rng&, DType, const ref::Sizes&, size_t)>;

bool reduced(DType t) {
  return t == DType::F16 || t == DType::BF16;
}

// The tolerance of a floating function that an honest kernel gets within
// `ulps` in float32/float64 (2 for exp, log, sin, cos, tanh: the bound of
// common libms, CUDA's float functions included). float16 and bfloat16
// compute in float32 and round once: a few float32 ulps only move a near-tie,
// by one ulp of their own.
Tolerance function_tol(DType t, double ulps) {
  return {.ulps = reduced(t) ? 1 : ulps};
}

// One float32 ulp in units of t's ulps (1 for float32 and float64): `acc`
// bounds an error made in the compute dtype, float32 for float16/bfloat16.
double compute_eps_ratio(DType t) {
  return reduced(t) ? dtype_eps(DType::F32) / dtype_eps(t) : 1;
}

// Values uniform in [lo, hi] for every input.
MakeFn uniform(double lo, double hi) {
  return [lo, hi](Rng& rng, DType t, const ref::Sizes& s, size_t) {
    return random(rng, t, s, {lo, hi});
  };
}

// Positive values with exponents spread evenly from the dtype's smallest
// subnormal to its largest value; with `near_one`, every other one is in
// [0.5, 2] instead, where log's result cancels to small values.
MakeFn magnitudes(bool near_one) {
  return [near_one](Rng& rng, DType t, const ref::Sizes& s, size_t) {
    ref::Tensor out(t, s);
    double lo = std::log2(ulp_of(t, 0)), hi = std::log2(dtype_max(t));
    for (int64_t k = 0; k < out.numel(); ++k) {
      double v = near_one && rng.coin() ? rng.uniform(0.5, 2) : std::exp2(rng.uniform(lo, hi));
      out.set_float(k, ref::round_to(t, v));
    }
    return out;
  };
}

// Floating or integral values over the dtype's whole range.
ref::Tensor full_range(Rng& rng, DType t, const ref::Sizes& s, size_t) {
  return is_floating(t) ? random(rng, t, s) : random(rng, t, s, {-1e19, 1e19});
}

void unary_cases(CaseSet& set, RefFn f, MakeFn make, Tolerance tol) {
  ElementwiseSpec s;
  s.inputs = {"self"};
  s.make = std::move(make);
  s.reference = [f](const Inputs& in) { return expect(f(in["self"])); };
  s.tol = tol;
  elementwise_cases(set, s);
}

// A floating function of one argument.
OpInfo float_op(std::string op, RefFn f, MakeFn make, double ulps, bool signed_zero = false) {
  return {std::move(op), [=](CaseSet& set) {
            Tolerance t = function_tol(set.dtype(), ulps);
            t.signed_zero = signed_zero;
            unary_cases(set, f, make, t);
          }};
}

// gelu, exact and tanh-approximated. For negative x both sum 1 and a value
// near -1 and multiply by x/2: the sum's rounding (and the error of erf or
// tanh there) costs about |x| * eps in absolute terms, however small the
// result, so `scale` is |x| with acc 2 (in compute-dtype ulps) over 2 ulps.
void gelu_cases(CaseSet& set) {
  DType dt = set.dtype();
  for (bool tanh_mode : {false, true}) {
    ElementwiseSpec s;
    s.inputs = {"self"};
    s.make = uniform(-8, 8);
    if (tanh_mode) {
      s.args = {{"approximate", std::string("tanh")}};
      s.prefix = "tanh_";
      // Every standard case but the large one, which the exact form has.
      s.only = {"0d",         "empty",   "empty_2d", "one",      "odd",     "prime_2d", "3d",
                "transposed", "strided", "offset",   "expanded", "aliased", "special",  "stress"};
    }
    s.reference = [tanh_mode](const Inputs& in) {
      const ref::Tensor& x = in["self"];
      Expected e = expect(ref::gelu(x, tanh_mode));
      e.scale = ref::map1(x, [](double v) { return std::isfinite(v) ? std::fabs(v) : 0.0; }).f;
      return e;
    };
    s.tol = function_tol(dt, 2);
    s.tol.acc = 2 * compute_eps_ratio(dt);
    elementwise_cases(set, s);
  }
  Case& c = set.add("bad_approximate");
  c.tensor("self", random(c.rng, dt, {4})).arg("approximate", std::string("exact"));
  c.expect_error = "must be 'none' or 'tanh'";
}

// clamp with bounds `min` and `max` (nullopt: None) on the standard cases
// listed in `only` (all when empty), names prefixed by `prefix`.
struct Bounds {
  std::string prefix;
  std::optional<Scalar> min, max;
  std::vector<std::string> only;
  MakeFn make;
};

void clamp_pass(CaseSet& set, const Bounds& b) {
  DType dt = set.dtype();
  ElementwiseSpec s;
  s.inputs = {"self"};
  s.make = b.make;
  s.prefix = b.prefix;
  s.only = b.only;
  s.args = {{"min", b.min ? Arg(*b.min) : Arg(NoneArg{})},
            {"max", b.max ? Arg(*b.max) : Arg(NoneArg{})}};
  s.reference = [b, dt](const Inputs& in) {
    if (is_floating(dt)) {
      auto bound = [](const std::optional<Scalar>& v) -> std::optional<double> {
        if (!v) return std::nullopt;
        return v->to_double();
      };
      return expect(ref::clamp(in["self"], bound(b.min), bound(b.max)));
    }
    auto bound = [](const std::optional<Scalar>& v) -> std::optional<int64_t> {
      if (!v) return std::nullopt;
      return v->to_int();
    };
    return expect(ref::clamp_int(in["self"], bound(b.min), bound(b.max)));
  };
  // The result is the input or a bound: exact.
  s.tol = {};
  elementwise_cases(set, s);
}

void clamp_cases(CaseSet& set) {
  DType dt = set.dtype();
  const std::vector<std::string> some = {"0d", "odd", "prime_2d", "transposed", "special"};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<Bounds> passes;
  if (is_floating(dt)) {
    MakeFn make = uniform(-4, 4);
    passes = {
        {"", Scalar(-1.5), Scalar(2.25), {}, make},
        {"min_", Scalar(-0.5), std::nullopt, some, make},
        {"max_", std::nullopt, Scalar(1.25), some, make},
        // PyTorch: when min > max every element is max (NaN stays NaN).
        {"swapped_", Scalar(2.0), Scalar(-1.0), some, make},
        // Bounds that the dtype rounds (0.1 is not exact in any of them).
        {"inexact_", Scalar(-0.3), Scalar(0.1), {"prime_2d", "special"}, make},
        // Integer bounds on a floating tensor keep its dtype.
        {"int_bounds_", Scalar(int64_t{-1}), Scalar(int64_t{2}), {"prime_2d", "special"}, make},
        {"inf_", Scalar(-inf), Scalar(inf), {"prime_2d", "special"}, make},
        // A NaN bound makes every element NaN.
        {"nan_min_", Scalar(nan), Scalar(1.0), {"odd", "special"}, make},
        {"nan_max_", std::nullopt, Scalar(nan), {"odd", "special"}, make},
    };
  } else {
    // Values around the bounds, so that both sides are clamped.
    MakeFn make = uniform(-100, 100);
    int64_t lo = dt == DType::U8 ? 13 : -37;
    int64_t dmin = dtype_min_int(dt), dmax = dtype_max_int(dt);
    passes = {
        {"", Scalar(lo), Scalar(int64_t{61}), {}, make},
        {"min_", Scalar(lo), std::nullopt, some, make},
        {"max_", std::nullopt, Scalar(int64_t{61}), some, make},
        {"swapped_", Scalar(int64_t{50}), Scalar(int64_t{20}), some, make},
        // The dtype's edge values against bounds next to them.
        {"edges_", Scalar(dmin + 1), Scalar(dmax - 1), {"special", "prime_2d"}, full_range},
    };
    if (dt == DType::I64) {
      // Bounds a double cannot hold: a kernel must compare them as integers.
      int64_t big = (int64_t{1} << 62) + 1;
      passes.push_back({"big_", Scalar(-big), Scalar(big), {"prime_2d", "special"}, full_range});
    } else {
      // Bounds outside the dtype's range saturate to it (as tests/plugins/cpu decided):
      // the first pass changes nothing, the second sets every element to the max.
      passes.push_back(
          {"wide_", Scalar(dmin - 5), Scalar(dmax + 45), {"prime_2d", "special"}, full_range});
      passes.push_back(
          {"above_", Scalar(dmax + 100), std::nullopt, {"odd", "special"}, full_range});
    }
  }
  for (const Bounds& b : passes) clamp_pass(set, b);
  Case& c = set.add("no_bounds");
  c.tensor("self", random(c.rng, dt, {4}));
  c.expect_error = "at least one of min and max";
}

// ---- Gradients of the activations ---------------------------------------------

// One activation's gradient op: out = f(g, x) elementwise over grad_output
// and x (the forward's input or result), with per-element error scale
// `scale(g, x)` (in units of the compute dtype's eps, times acc).
using GradFn = std::function<double(double, double)>;
using ExtraArgs = std::vector<std::pair<std::string, Arg>>;
struct ActivationGrad {
  std::string op;  // "sigmoid_backward.out"
  std::string x;   // "self" or "output"
  MakeFn make_x;
  double ulps = 0, acc = 0;
  bool special = false;  // the special-values case (only where x's range is the dtype's)
  // One pass of the standard cases per entry: the case-name prefix, the
  // non-tensor arguments, the function and its error scale.
  struct Pass {
    std::string prefix;
    ExtraArgs args;
    GradFn f, scale;
  };
  std::vector<Pass> passes;
};

OpInfo activation_grad_op(ActivationGrad a) {
  return {a.op, [a](CaseSet& set) {
            const DType dt = set.dtype();
            for (const ActivationGrad::Pass& p : a.passes) {
              ElementwiseSpec s;
              s.inputs = {"grad_output", a.x};
              s.args = p.args;
              s.prefix = p.prefix;
              MakeFn make_x = a.make_x;
              s.make = [make_x](Rng& rng, DType t, const ref::Sizes& sz, size_t k) {
                return k == 0 ? random(rng, t, sz, {-2, 2}) : make_x(rng, t, sz, k);
              };
              std::string x = a.x;
              s.reference = [x, p](const Inputs& in) {
                const ref::Tensor &g = in["grad_output"], &xv = in[x];
                Expected e = expect(ref::map2(g, xv, p.f));
                if (p.scale) e.scale = ref::map2(g, xv, p.scale).f;
                return e;
              };
              s.tol = {.ulps = reduced(dt) ? std::min(a.ulps, 1.0) : a.ulps,
                       .acc = a.acc * compute_eps_ratio(dt)};
              s.special = a.special;
              s.inplace = false;
              elementwise_cases(set, s);
            }
          }};
}

double sigmoid_of(double x) { return 1 / (1 + std::exp(-x)); }

void add_activation_grads(std::vector<OpInfo>& v) {
  // threshold_backward: g where x > threshold, else 0; exact, over the dtype's range.
  auto threshold_at = [](double t) -> GradFn {
    return [t](double g, double x) { return x > t ? g : 0.0; };
  };
  v.push_back(activation_grad_op({"threshold_backward.out", "self", uniform(-2, 2), 0, 0, true,
                                  {{"", {{"threshold", Scalar(0.0)}}, threshold_at(0), {}},
                                   {"half_", {{"threshold", Scalar(0.5)}}, threshold_at(0.5), {}}}}));
  // sigmoid_backward: g y (1 - y) for y a sigmoid's result in [0, 1]: three
  // roundings of a product.
  v.push_back(activation_grad_op(
      {"sigmoid_backward.out", "output", uniform(0, 1), 3, 0, false,
       {{"", {}, [](double g, double y) { return g * y * (1 - y); }, {}}}}));
  // tanh_backward: g (1 - y^2) for y in [-1, 1]; 1 - y^2 cancels near |y| = 1,
  // where y^2's rounding is what is left.
  v.push_back(activation_grad_op(
      {"tanh_backward.out", "output", uniform(-1, 1), 2, 4, false,
       {{"", {}, [](double g, double y) { return g * (1 - y * y); },
         [](double g, double y) { return std::fabs(g) * y * y; }}}}));
  // silu_backward: g s (1 + x (1 - s)); 1 + x (1 - s) cancels near x = -1.28.
  v.push_back(activation_grad_op(
      {"silu_backward.out", "self", uniform(-12, 12), 4, 8, false,
       {{"", {},
         [](double g, double x) {
           double s = sigmoid_of(x);
           return g * s * (1 + x * (1 - s));
         },
         [](double g, double x) { return std::fabs(g * sigmoid_of(x)) * (1 + std::fabs(x)); }}}}));
  // gelu_backward: Phi(x) + x phi(x) ('none'); Phi comes from 1 + erf (or
  // 1 + tanh), whose cancellation for negative x leaves an error of about
  // eps, not eps * Phi.
  GradFn exact = [](double g, double x) {
    double cdf = 0.5 * std::erfc(-x / std::sqrt(2.0));
    return g * (cdf + x * std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI));
  };
  GradFn approx = [](double g, double x) {
    const double k = std::sqrt(2 / M_PI), c = 0.044715;
    double t = std::tanh(k * (x + c * x * x * x));
    return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * c * x * x));
  };
  GradFn gelu_scale = [](double g, double x) {
    return std::fabs(g) * (1 + std::fabs(x) * (1 + 0.134145 * x * x));
  };
  v.push_back(activation_grad_op(
      {"gelu_backward.out", "self", uniform(-8, 8), 4, 8, false,
       {{"", {{"approximate", std::string("none")}}, exact, gelu_scale},
        {"tanh_", {{"approximate", std::string("tanh")}}, approx, gelu_scale}}}));
}

}  // namespace

void add_unary_ops(std::vector<OpInfo>& v) {
  // neg and abs are exact, and PyTorch defines the sign of their zeros:
  // neg(0) = -0, neg(-0) = +0, abs(-0) = +0.
  v.push_back(
      {"neg.out", [](CaseSet& s) { unary_cases(s, ref::neg, full_range, {.signed_zero = true}); }});
  v.push_back(
      {"abs.out", [](CaseSet& s) { unary_cases(s, ref::abs, full_range, {.signed_zero = true}); }});
  // exp: from where its results are subnormal or 0 to past the overflow to inf.
  v.push_back({"exp.out", [](CaseSet& s) {
                 double l = std::log(dtype_max(s.dtype()));
                 unary_cases(s, ref::exp, uniform(-1.2 * l, 1.1 * l), function_tol(s.dtype(), 2));
               }});
  // log, sqrt, rsqrt: positive values of every magnitude (zero, negatives and
  // infinities come with the special values). sqrt is correctly rounded in
  // IEEE 754, and sqrt(-0) = -0; rsqrt is 1 / sqrt(x), rounded twice.
  v.push_back(float_op("log.out", ref::log, magnitudes(true), 2));
  v.push_back(float_op("sqrt.out", ref::sqrt, magnitudes(false), 1, true));
  v.push_back(float_op("rsqrt.out", ref::rsqrt, magnitudes(false), 2));
  // sin, cos: moderate arguments, where range reduction must still be exact.
  v.push_back(float_op("sin.out", ref::sin, uniform(-100, 100), 2));
  v.push_back(float_op("cos.out", ref::cos, uniform(-100, 100), 2));
  // tanh and sigmoid: well into saturation. sigmoid is 1 / (1 + exp(-x)) (the
  // catalog's composite too): exp's relative error, the sum's and the
  // quotient's add up, and an intermediate's rounding can be up to twice as
  // many ulps of the result: 4 ulps; silu multiplies by x once more: 5.
  v.push_back(float_op("tanh.out", ref::tanh, uniform(-12, 12), 2));
  v.push_back(float_op("sigmoid.out", ref::sigmoid, uniform(-40, 40), 4));
  v.push_back(float_op("silu.out", ref::silu, uniform(-20, 20), 5));
  // relu: exact; the sign of relu(-0) is left open (max(-0, 0) either way).
  v.push_back({"relu.out", [](CaseSet& s) { unary_cases(s, ref::relu, full_range, {}); }});
  v.push_back({"gelu.out", gelu_cases});
  v.push_back({"clamp.out", clamp_cases});
  add_activation_grads(v);
}

}  // namespace plexus::conformance
