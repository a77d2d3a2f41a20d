// Conformance cases of the binary arithmetic ops: add, sub, mul, div, pow,
// maximum, minimum.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reference/elementwise.h"
#include "ops/common.h"
#include "suite.h"

namespace plexus::conformance {

namespace {

using BinaryRef = std::function<ref::Tensor(const ref::Tensor&, const ref::Tensor&)>;
void exact_rounding_case(CaseSet& set, const BinaryRef& f);

// add.out and sub.out: alpha 1 on every standard case, then a non-trivial
// alpha on a few. On special values floating alpha is -0.5, so alpha * other
// cannot overflow where self + alpha * other does not (a fused multiply-add
// and a separate multiply then agree).
void add_sub_cases(CaseSet& set, bool subtract) {
  DType dt = set.dtype();
  struct Pass {
    double alpha;
    std::vector<std::string> only;
    bool integer_scalar = false;  // alpha arrives as an integer Scalar
  };
  std::vector<Pass> passes = {{1.0, {}}};
  if (is_floating(dt)) {
    passes.push_back({-2.5, {"prime_2d", "bcast_rhs", "transposed", "stress"}});
    passes.push_back({-0.5, {"special"}});
    // add(a, b, 2) in C++ sends an integer Scalar to a floating kernel: a
    // kernel must read the Scalar by its kind.
    passes.push_back({-2.0, {"prime_2d", "bcast_rhs"}, true});
  } else if (dt != DType::Bool) {
    passes.push_back({3.0, {"prime_2d", "bcast_rhs", "transposed", "special", "stress"}});
  }
  for (const Pass& p : passes) {
    double alpha = p.alpha;
    ElementwiseSpec s;
    s.inputs = {"self", "other"};
    if (dt == DType::Bool) s.args = {{"alpha", Scalar(true)}};
    else if (p.integer_scalar) s.args = {{"alpha", Scalar(static_cast<int64_t>(alpha))}};
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
      s.prefix = p.integer_scalar ? "alpha_int_" : alpha == -0.5 ? "alpha_half_" : "alpha_";
      s.only = p.only;
    }
    elementwise_cases(set, s);
  }
  exact_rounding_case(set, [subtract](const ref::Tensor& a, const ref::Tensor& b) {
    return subtract ? ref::sub(a, b, 1.0) : ref::add(a, b, 1.0);
  });
}

// ---- shared ----------------------------------------------------------------------

// Integers, each either small or anywhere in the dtype's range.
ref::Tensor small_or_wide(Rng& rng, DType t, const ref::Sizes& sizes) {
  const int64_t lo = dtype_min_int(t), hi = dtype_max_int(t);
  ref::Tensor out(t, sizes);
  for (int64_t k = 0; k < out.numel(); ++k)
    out.set_int(k, rng.coin() ? rng.integer(lo, hi) : rng.integer(std::max<int64_t>(lo, -9), 9));
  return out;
}

// small_or_wide without zeros, for divisors.
ref::Tensor nonzero_integers(Rng& rng, DType t, const ref::Sizes& sizes) {
  ref::Tensor out = small_or_wide(rng, t, sizes);
  for (int64_t k = 0; k < out.numel(); ++k)
    if (out.at_int(k) == 0) out.set_int(k, 1);
  return out;
}

// The dtype's special values once each (int64's edge values included).
ref::Tensor specials(DType t) {
  std::vector<double> sv = special_values(t);
  return from_values(t, {t == DType::I64 ? 7 : static_cast<int64_t>(sv.size())}, sv);
}

// The elements of `values` for which keep(v) holds.
ref::Tensor filtered(const ref::Tensor& values, const std::function<bool(double)>& keep) {
  std::vector<double> kept;
  for (double v : values.f)
    if (keep(v)) kept.push_back(v);
  return from_values(values.dtype, {static_cast<int64_t>(kept.size())}, kept);
}

// Two tensors holding every pair (a, b) of `values` for which keep(a, b) holds.
std::pair<ref::Tensor, ref::Tensor> pairs_of(const ref::Tensor& values,
                                             const std::function<bool(double, double)>& keep) {
  std::vector<std::pair<int64_t, int64_t>> picked;
  for (int64_t a = 0; a < values.numel(); ++a)
    for (int64_t b = 0; b < values.numel(); ++b)
      if (keep(values.at(a), values.at(b))) picked.emplace_back(a, b);
  int64_t n = static_cast<int64_t>(picked.size());
  ref::Tensor x(values.dtype, {n}), y(values.dtype, {n});
  for (int64_t k = 0; k < n; ++k) {
    auto [a, b] = picked[static_cast<size_t>(k)];
    if (values.integral()) {
      x.set_int(k, values.at_int(a));
      y.set_int(k, values.at_int(b));
    } else {
      x.set_float(k, values.at(a));
      y.set_float(k, values.at(b));
    }
  }
  return {x, y};
}

// ---- exact rounding in float16 and bfloat16 ------------------------------------------

// Two 16-bit floats of magnitude 1/8 to 16 have an exact sum, difference and
// product in float32 (at most 19 significant bits), so a correct kernel -
// float32 arithmetic rounded once to nearest even, or anything as exact -
// gives the correctly rounded result, and this case requires it bit for bit.
// About half of the sums of neighbouring exponents fall on a tie. A kernel
// that truncates to 16 bits, or rounds ties away from zero, is at most one
// ulp off and passes the one-ulp tolerance of the other cases, not this one.
void exact_rounding_case(CaseSet& set, const BinaryRef& f) {
  const DType dt = set.dtype();
  if (dt != DType::F16 && dt != DType::BF16) return;
  Case& c = set.add("exact_rounding");
  auto magnitudes = [&](Rng& rng) {
    ref::Tensor t(dt, {8, 64});
    for (int64_t k = 0; k < t.numel(); ++k) {
      double v = ref::round_to(dt, std::ldexp(rng.uniform(1.0, 2.0), int(rng.integer(-3, 3))));
      t.set_float(k, rng.coin() ? -v : v);
    }
    return t;
  };
  c.tensor("self", magnitudes(c.rng)).tensor("other", magnitudes(c.rng));
  c.ref([f](const Inputs& in) { return expect(f(in["self"], in["other"])); });
  c.tol = {.signed_zero = true};  // exact
}

// ---- mul, maximum, minimum ---------------------------------------------------------

void wide_binary_cases(CaseSet& set, const BinaryRef& f, Tolerance tol) {
  ElementwiseSpec s;
  s.inputs = {"self", "other"};
  s.make =
      tiled([](Rng& rng, DType t, const ref::Sizes& sizes, size_t) { return wide(rng, t, sizes); });
  s.reference = [f](const Inputs& in) { return expect(f(in["self"], in["other"])); };
  s.tol = tol;
  elementwise_cases(set, s);
}

// ---- div -------------------------------------------------------------------------

// True division of integer and bool inputs computes in float32: they convert
// to float32 first (large int64 values round) and x / 0 is +-inf or NaN.
void integer_input_div_cases(CaseSet& set, const std::vector<std::pair<std::string, Arg>>& args) {
  auto finish = [&](Case& c) {
    for (const auto& [n, v] : args) c.arg(n, v);
    c.ref([](const Inputs& in) {
      return expect(
          ref::div(ref::convert(in["self"], DType::F32), ref::convert(in["other"], DType::F32)));
    });
    c.tol = {.ulps = 1};  // one correctly rounded quotient
  };
  Case& i32 = set.add("int32_inputs");
  i32.tensor("self", random(i32.rng, DType::I32, {13, 17}, {-1000, 1000}));
  i32.tensor("other", random(i32.rng, DType::I32, {13, 17}, {-5, 5}));
  finish(i32);
  Case& i64 = set.add("int64_inputs");
  i64.tensor("self", random(i64.rng, DType::I64, {61}, {-1e18, 1e18}));
  i64.tensor("other", random(i64.rng, DType::I64, {61}, {-1e9, 1e9}));
  finish(i64);
  Case& b = set.add("bool_inputs");
  b.tensor("self", from_values(DType::Bool, {4}, {0, 0, 1, 1}));
  b.tensor("other", from_values(DType::Bool, {4}, {0, 1, 0, 1}));
  finish(b);
}

void div_cases(CaseSet& set) {
  ElementwiseSpec s;
  s.inputs = {"self", "other"};
  s.make = tiled(
      [](Rng& rng, DType t, const ref::Sizes& sizes, size_t) { return random(rng, t, sizes); });
  s.reference = [](const Inputs& in) { return expect(ref::div(in["self"], in["other"])); };
  s.tol = {.ulps = 1};  // one correctly rounded quotient
  elementwise_cases(set, s);
  if (set.dtype() == DType::F32) integer_input_div_cases(set, {});
}

using Mode = std::optional<std::string>;

Arg mode_arg(const Mode& mode) {
  return mode ? Arg(*mode) : Arg(NoneArg{});
}

ref::Tensor div_mode_ref(const Mode& mode, const ref::Tensor& a, const ref::Tensor& b) {
  if (!mode) return ref::div(a, b);
  return *mode == "trunc" ? ref::div_trunc(a, b) : ref::div_floor(a, b);
}

// A quotient rounded to an integer is exact, its zero's sign included. Floor
// of a quotient beyond the dtype's consecutive integers may land one ulp off
// (x - x % y rounds there); true division is one correctly rounded quotient.
Tolerance div_mode_tol(const Mode& mode) {
  if (!mode) return {.ulps = 1};
  if (*mode == "trunc") return {.signed_zero = true};
  return {.ulps = 1, .signed_zero = true};
}

// Integer modes: every pair of edge values but those dividing by 0, and
// division by 0, which must raise an error (its message is the plugin's own).
void integer_div_mode_cases(CaseSet& set, const Mode& mode, const std::string& prefix) {
  const DType dt = set.dtype();
  auto [x, y] = pairs_of(specials(dt), [](double, double b) { return b != 0; });
  Case& c = set.add(prefix + "special");
  c.tensor("self", x).tensor("other", y).arg("rounding_mode", mode_arg(mode));
  c.ref([mode](const Inputs& in) { return expect(div_mode_ref(mode, in["self"], in["other"])); });

  Case& z = set.add(prefix + "zero_divisor");
  ref::Tensor b = nonzero_integers(z.rng, dt, {2, 5});
  b.set_int(7, 0);
  z.tensor("self", nonzero_integers(z.rng, dt, {2, 5})).tensor("other", b);
  z.arg("rounding_mode", mode_arg(mode)).expect_error = "";
  Case& z0 = set.add(prefix + "zero_divisor_0d");
  z0.tensor("self", nonzero_integers(z0.rng, dt, {5})).tensor("other", ref::Tensor(dt, {}));
  z0.arg("rounding_mode", mode_arg(mode)).expect_error = "";
}

// Pairs (a, b) whose quotient rounded to the compute dtype is an integer the
// exact one is not (1 / 0.1 rounds to 10, but is below it), each also with -a:
// floor takes the exact quotient (9), trunc the rounded one (10). Only
// float32 and float64 have such pairs whose results differ after rounding.
std::pair<ref::Tensor, ref::Tensor> near_integer_quotients(DType dt) {
  std::vector<double> as, bs;
  for (int j = 1; j <= 64 && as.size() < 32; ++j) {
    for (int k = 2; k <= 64 && as.size() < 32; ++k) {
      double a = j, b = ref::round_to(dt, 1.0 / k);
      double rounded = ref::round_to(dt, a / b);
      long double exact = static_cast<long double>(a) / b;
      if (std::floor(rounded) == std::floor(exact)) continue;
      as.insert(as.end(), {a, -a});
      bs.insert(bs.end(), {b, b});
    }
  }
  int64_t n = static_cast<int64_t>(as.size());
  return {from_values(dt, {n}, as), from_values(dt, {n}, bs)};
}

void div_mode_cases(CaseSet& set) {
  const DType dt = set.dtype();
  const bool fl = is_floating(dt);
  std::vector<std::pair<Mode, std::vector<std::string>>> passes = {{"floor", {}}, {"trunc", kSome}};
  if (fl) passes.emplace_back(std::nullopt, kSome);
  for (const auto& [pass_mode, only] : passes) {
    const Mode mode = pass_mode;
    ElementwiseSpec s;
    s.inputs = {"self", "other"};
    s.args = {{"rounding_mode", mode_arg(mode)}};
    if (fl) {
      // Quotients up to a few dozen, so that they round to many integers.
      s.make = tiled([](Rng& rng, DType t, const ref::Sizes& sizes, size_t k) {
        return random(rng, t, sizes, k == 0 ? Range{-50, 50} : Range{});
      });
    } else {
      s.make = tiled([](Rng& rng, DType t, const ref::Sizes& sizes, size_t) {
        return nonzero_integers(rng, t, sizes);
      });
      s.special = false;  // pairs of edge values would divide by 0
    }
    s.reference = [mode](const Inputs& in) {
      return expect(div_mode_ref(mode, in["self"], in["other"]));
    };
    s.tol = div_mode_tol(mode);
    std::string prefix = only.empty() ? "" : (mode ? *mode : std::string("none")) + "_";
    s.prefix = prefix;
    s.only = only;
    if (fl && !only.empty()) s.only.push_back("special");
    elementwise_cases(set, s);
    if (dt == DType::F32 || dt == DType::F64) {
      auto [a, b] = near_integer_quotients(dt);
      Case& c = set.add(prefix + "near_integer");
      c.tensor("self", a).tensor("other", b).arg("rounding_mode", mode_arg(mode));
      c.ref(s.reference).tolerance(s.tol);
    }
    if (!fl) integer_div_mode_cases(set, mode, prefix);
  }
  if (dt == DType::F32) integer_input_div_cases(set, {{"rounding_mode", NoneArg{}}});
  Case& bad = set.add("bad_mode");
  bad.tensor("self", random(bad.rng, dt, {3})).tensor("other", random(bad.rng, dt, {3}, {1, 4}));
  bad.arg("rounding_mode", std::string("round")).expect_error = "must be None";
}

// ---- pow -------------------------------------------------------------------------

// pow is C's pow to within an ulp or so (x ** 3 may be x * x * x, two
// roundings); a float16/bfloat16 result rounds a float32 one a second time.
constexpr Tolerance kPowTol = {.ulps = 2};

// Exponents in [-4, 4], half of them integers (so that negative bases give
// real results too).
ref::Tensor float_exponents(Rng& rng, DType t, const ref::Sizes& sizes) {
  ref::Tensor e = random(rng, t, sizes);
  for (int64_t k = 0; k < e.numel(); ++k)
    if (rng.coin()) e.set_float(k, std::round(e.at(k)));
  return e;
}

void pow_tensor_cases(CaseSet& set) {
  ElementwiseSpec s;
  s.inputs = {"self", "exponent"};
  // Integers: bases small or anywhere (products wrap), exponents up to 40 and
  // a few negative ones (1, -1 and 0 for those: see ref::pow).
  s.make = tiled([](Rng& rng, DType t, const ref::Sizes& sizes, size_t k) {
    if (is_floating(t)) return k == 0 ? random(rng, t, sizes) : float_exponents(rng, t, sizes);
    return k == 0 ? small_or_wide(rng, t, sizes) : random(rng, t, sizes, {-3, 40});
  });
  s.reference = [](const Inputs& in) { return expect(ref::pow(in["self"], in["exponent"])); };
  s.tol = kPowTol;
  elementwise_cases(set, s);
}

void pow_scalar_cases(CaseSet& set) {
  const DType dt = set.dtype();
  const bool fl = is_floating(dt);
  const double inf = std::numeric_limits<double>::infinity();
  struct Pass {
    Scalar exponent;
    std::vector<std::string> only;  // empty: the main pass, every case
  };
  const std::vector<std::string> special_only = {"special"};
  std::vector<Pass> passes;
  if (fl) {
    passes = {{Scalar(int64_t{3}), {}},
              {Scalar(2.0), kSome},
              {Scalar(0.5), kSome},
              {Scalar(-0.5), kSome},
              {Scalar(int64_t{-1}), kSome},
              {Scalar(-2.0), kSome},
              {Scalar(0.0), kSome},
              {Scalar(int64_t{1}), kSome},
              {Scalar(2.5), kSome},
              {Scalar(-1.5), kSome},
              {Scalar(inf), special_only},
              {Scalar(-inf), special_only},
              {Scalar(std::nan("")), special_only}};
    // 1/3 is not a float32: the exponent converts to the compute dtype first.
    if (dt == DType::F32 || dt == DType::F64) passes.push_back({Scalar(1.0 / 3), kSome});
  } else {
    passes = {{Scalar(int64_t{3}), {}},    {Scalar(int64_t{0}), kSome},
              {Scalar(int64_t{1}), kSome}, {Scalar(int64_t{2}), kSome},
              {Scalar(int64_t{7}), kSome}, {Scalar(int64_t{63}), kSome}};
  }
  for (const Pass& p : passes) {
    const Scalar e = p.exponent;
    // x ** 0.5 and x ** -0.5 may be sqrt and 1 / sqrt: they disagree with C's
    // pow on -inf (NaN, not +inf) and rsqrt on -0 (-inf, not +inf); PyTorch
    // itself gives either, by dtype. Those values are left out for them.
    const bool root = fl && std::fabs(e.to_double()) == 0.5;
    ElementwiseSpec s;
    s.inputs = {"self"};
    s.args = {{"exponent", e}};
    s.make = tiled([](Rng& rng, DType t, const ref::Sizes& sizes, size_t) {
      return is_floating(t) ? random(rng, t, sizes) : small_or_wide(rng, t, sizes);
    });
    s.reference = [e](const Inputs& in) { return expect(ref::pow(in["self"], e)); };
    s.tol = kPowTol;
    s.special = !root;
    std::string prefix = p.only.empty() ? "" : "exp_" + e.str() + "_";
    s.prefix = prefix;
    s.only = p.only;
    if (fl && !p.only.empty() && !root && p.only != special_only) s.only.push_back("special");
    elementwise_cases(set, s);
    if (root) {
      bool rsqrt = e.to_double() < 0;
      Case& c = set.add(prefix + "special");
      c.tensor("self", filtered(specials(dt), [rsqrt](double v) {
                 return (!std::isinf(v) || v > 0) && !(rsqrt && v == 0 && std::signbit(v));
               }));
      c.arg("exponent", e).ref(s.reference).tolerance(kPowTol);
    }
  }
  if (!fl) {
    // Integers to negative integer powers are refused (PyTorch's rule).
    Case& c = set.add("negative_exponent");
    c.tensor("self", small_or_wide(c.rng, dt, {7})).arg("exponent", Scalar(int64_t{-1}));
    c.expect_error = "negative integer powers";
  }
}

}  // namespace

void add_binary_ops(std::vector<OpInfo>& v) {
  v.push_back({"add.out", [](CaseSet& s) { add_sub_cases(s, false); }});
  v.push_back({"sub.out", [](CaseSet& s) { add_sub_cases(s, true); }});
  // One correctly rounded product (bool: logical and; integers wrap).
  v.push_back({"mul.out", [](CaseSet& s) {
                 wide_binary_cases(s, ref::mul, {.ulps = 1});
                 exact_rounding_case(s, ref::mul);
               }});
  v.push_back({"div.out", div_cases});
  v.push_back({"div.out_mode", div_mode_cases});
  v.push_back({"pow.Tensor_Tensor_out", pow_tensor_cases});
  v.push_back({"pow.Tensor_Scalar_out", pow_scalar_cases});
  // Exact: one of the inputs, or NaN.
  v.push_back({"maximum.out", [](CaseSet& s) { wide_binary_cases(s, ref::maximum, {}); }});
  v.push_back({"minimum.out", [](CaseSet& s) { wide_binary_cases(s, ref::minimum, {}); }});
}

}  // namespace plexus::conformance
