// Conformance cases of the nn ops: softmax, log_softmax, layer_norm, conv2d,
// max_pool2d, embedding.
#include "reference/nn.h"

#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "suite.h"

namespace plexus::conformance {

namespace {

using Ints = std::vector<int64_t>;
constexpr double kInf = std::numeric_limits<double>::infinity();

// float16 and bfloat16 compute in float32 and round once (the project's rule):
// their accumulated rounding is float32's, here in units of the dtype's eps.
double compute_eps_ratio(DType t) {
  return t == DType::F16 || t == DType::BF16 ? dtype_eps(DType::F32) / dtype_eps(t) : 1.0;
}

// An expected result whose per-element error bound (in the kernel's compute
// eps) is `scale` times `factor`.
Expected accumulated(ref::Tensor values, std::vector<double> scale, double factor = 1) {
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

// ---- softmax, log_softmax --------------------------------------------------------

void softmax_cases(CaseSet& set, bool log) {
  const DType dt = set.dtype();
  // Rounding of x - max, exp, log and the division, plus the sum's: the
  // reference's scale bounds the accumulated part for any summation order;
  // ulps 2 covers exp/log and the final rounding.
  const Tolerance tol{.ulps = 2, .acc = 1};
  auto reference = [log](int64_t dim, std::optional<DType> to) {
    return [=](const Inputs& in) {
      // dtype=: the input is converted before the op (PyTorch's definition).
      ref::Tensor x = to ? ref::convert(in["self"], *to) : in["self"];
      std::vector<double> s;
      ref::Tensor y = ref::softmax(x, dim, log, &s);
      return accumulated(std::move(y), std::move(s));
    };
  };
  auto add = [&](const std::string& name, ref::Sizes sizes, int64_t dim,
                 uint32_t layout = Contiguous, Range r = {}) -> Case& {
    Case& c = set.add(name);
    c.tensor("self", random(c.rng, dt, sizes, r), layout).arg("dim", dim);
    c.ref(reference(dim, std::nullopt)).tolerance(tol);
    return c;
  };

  add("0d", {}, 0);
  add("0d_neg_dim", {}, -1);
  add("empty", {0}, 0);
  add("empty_rows", {3, 0}, 1);
  add("empty_outer", {0, 5}, 1);
  add("one", {1}, 0);
  add("odd", {7}, 0);
  add("leading_dim", {13, 4}, 0);
  for (int64_t d = 0; d < 3; ++d) {
    add("3d_dim" + std::to_string(d), {3, 5, 7}, d);
    add("3d_dim_neg" + std::to_string(d + 1), {3, 5, 7}, -(d + 1));
  }
  add("4d_dim1", {2, 3, 4, 5}, 1);
  add("prime_2d", {13, 17}, 1);
  add("long_row", {3, 1031}, 1);
  add("large", {127, 1031}, -1);
  add("transposed", {13, 17}, 1, Transposed).out_layout = Transposed;
  add("transposed_dim0", {13, 17}, 0, Transposed);
  add("transposed_3d", {3, 5, 7}, 1, Transposed);
  add("strided", {13, 17}, 1, Strided).out_layout = Strided;
  add("strided_dim0", {13, 17}, 0, Strided);
  add("offset", {37}, 0, Offset).out_layout = Offset;
  add("expanded", {13, 17}, 1, Expanded);
  add("expanded_dim0", {13, 17}, 0, Expanded);
  add("mixed_layout", {9, 11}, 0, Transposed | Offset).out_layout = Strided | Offset;
  // exp(x) overflows (or underflows to 0 for every element) in every dtype,
  // double included: only the max-subtraction gets these right.
  add("large_positive", {5, 33}, 1, Contiguous, {992, 1008});
  add("large_negative", {5, 33}, 1, Contiguous, {-1008, -992});
  add("huge", {5, 33}, 1, Contiguous, {-dtype_max(dt) / 4, dtype_max(dt) / 4});
  // -inf entries give 0 (log: -inf); row 0 is all -inf and gives NaN.
  for (int64_t dim : {int64_t{1}, int64_t{0}}) {
    Case& c = add(dim ? "neg_inf" : "neg_inf_dim0", {9, 11}, dim);
    ref::Tensor x = sprinkle(c.rng, random(c.rng, dt, {9, 11}), -kInf, 0.3);
    for (int64_t k = 0; k < (dim ? 11 : 9); ++k) x.set_float(dim ? k : k * 11, -kInf);
    std::get<TensorArg>(c.args[0].second).values = std::move(x);
  }
  // Special values: rows (dim 1) or columns (dim 0) holding NaN, +inf, the
  // dtype's extremes and subnormals next to ordinary numbers.
  {
    std::vector<double> sv = special_values(dt);
    const int64_t n = static_cast<int64_t>(sv.size());
    ref::Tensor x(dt, {n, 5});
    for (int64_t r = 0; r < n; ++r) {
      const double row[5] = {sv[static_cast<size_t>(r)], 1.0, -2.0, 0.5,
                             sv[static_cast<size_t>((r + 3) % n)]};
      for (int64_t k = 0; k < 5; ++k) x.set_float(r * 5 + k, ref::round_to(dt, row[k]));
    }
    add("special", {n, 5}, 1).tensor("self", x);
    add("special_dim0", {n, 5}, 0).tensor("self", x);
  }
  // dtype=: the kernel computes in dtype after converting self.
  {
    const DType from = dt == DType::F32 ? DType::F16 : DType::F32;
    Case& c = set.add("dtype_arg");
    c.tensor("self", random(c.rng, from, {7, 19})).arg("dim", int64_t{1}).arg("dtype", dt);
    c.ref(reference(1, dt)).tolerance(tol);
    add("dtype_same", {7, 19}, 1).arg("dtype", dt);
    Case& i = set.add("dtype_int_self");
    i.tensor("self", random(i.rng, DType::I32, {5, 9})).arg("dim", int64_t{0}).arg("dtype", dt);
    i.ref(reference(0, dt)).tolerance(tol);
  }
  // Errors: an integer self without dtype, a dim out of range.
  Case& int_self = set.add("error_int_self");
  int_self.tensor("self", random(int_self.rng, DType::I64, {3, 4})).arg("dim", int64_t{1});
  int_self.expect_error = "";
  add("error_dim", {3, 4}, 2).expect_error = "";
  add("error_neg_dim", {3, 4}, -3).expect_error = "";
  add("stress", {64, 257}, 1).stress = true;
}

// ---- layer_norm ------------------------------------------------------------------

void layer_norm_cases(CaseSet& set) {
  const DType dt = set.dtype();
  // Output rounding (ulps 1) plus the mean's and variance's accumulated
  // rounding bounded by the reference's scale (any summation order).
  const Tolerance tol{.ulps = 1, .acc = 1};
  struct Spec {
    std::string name;
    ref::Sizes sizes;
    size_t normalized;  // trailing dims normalized
    bool weight = true, bias = true;
    double eps = 1e-5;
    uint32_t layout = Contiguous;
    Range range = {};
  };
  auto add = [&](const Spec& s) -> Case& {
    Case& c = set.add(s.name);
    ref::Sizes ns(s.sizes.end() - static_cast<ptrdiff_t>(s.normalized), s.sizes.end());
    c.tensor("input", random(c.rng, dt, s.sizes, s.range), s.layout).arg("normalized_shape", ns);
    if (s.weight)
      c.tensor("weight", random(c.rng, dt, ns, {-2, 2}));
    else
      c.arg("weight", NoneArg{});
    if (s.bias) c.tensor("bias", random(c.rng, dt, ns));
    if (s.eps != 1e-5) c.arg("eps", s.eps);
    const int64_t nd = static_cast<int64_t>(s.normalized);
    const double eps = s.eps;
    c.ref([nd, eps](const Inputs& in) {
      std::vector<double> sc;
      ref::Tensor y = ref::layer_norm(in["input"], nd, in.has("weight") ? &in["weight"] : nullptr,
                                      in.has("bias") ? &in["bias"] : nullptr, eps, &sc);
      return accumulated(std::move(y), std::move(sc));
    });
    c.tolerance(tol);
    return c;
  };
  add({"plain", {7, 13}, 1, false, false});
  add({"weight_bias", {7, 13}, 1});
  add({"weight_only", {7, 13}, 1, true, false});
  add({"bias_only", {7, 13}, 1, false, true});
  add({"2d_normalized", {3, 5, 7}, 2});
  add({"2d_normalized_plain", {3, 5, 7}, 2, false, false});
  add({"all_dims", {5, 7}, 2});
  add({"3d_last", {2, 3, 11}, 1});
  add({"1d", {17}, 1});
  add({"one", {1}, 1});
  add({"one_per_row", {6, 1}, 1});
  add({"empty_rows", {0, 5}, 1});
  add({"empty_normalized", {3, 0}, 1, false, false});
  add({"eps_large", {7, 13}, 1, true, true, 0.5});
  add({"eps_1e-3", {7, 13}, 1, true, true, 1e-3});
  add({"eps_zero", {7, 13}, 1, true, true, 0.0});
  add({"offset_values", {6, 33}, 1, true, true, 1e-5, Contiguous, {60, 68}});
  add({"long_row", {3, 2053}, 1});
  add({"large", {256, 1031}, 1});
  add({"transposed", {13, 17}, 1, true, true, 1e-5, Transposed}).out_layout = Transposed;
  add({"transposed_2d", {4, 5, 6}, 2, true, true, 1e-5, Transposed});
  add({"strided", {13, 17}, 1, true, true, 1e-5, Strided}).out_layout = Strided;
  add({"offset", {5, 9}, 2, true, true, 1e-5, Offset}).out_layout = Offset;
  add({"expanded", {13, 17}, 1, true, true, 1e-5, Expanded});
  {
    Case& c = add({"affine_strided", {9, 11}, 1});
    for (auto& [name, a] : c.args)
      if (name == "weight" || name == "bias") std::get<TensorArg>(a).layout = Strided | Offset;
  }
  // Constant rows: variance 0, the result is exactly the bias (small
  // integers: a kernel's mean of them is exact).
  for (double eps : {1e-5, 0.25}) {
    Case& c =
        add({eps == 1e-5 ? "constant_rows" : "constant_rows_eps", {5, 12}, 1, true, true, eps});
    ref::Tensor x(dt, {5, 12});
    for (int64_t k = 0; k < x.numel(); ++k) x.set_float(k, static_cast<double>(k / 12 * 3 - 6));
    c.tensor("input", x);
  }
  // Errors: normalized_shape not the trailing dims, a weight of another shape.
  add({"error_shape", {4, 6}, 1}).arg("normalized_shape", Ints{4}).expect_error = "";
  {
    Case& c = add({"error_weight", {4, 6}, 1});
    c.tensor("weight", random(c.rng, dt, {5}));
    c.expect_error = "";
  }
  add({"stress", {64, 257}, 1}).stress = true;
}

// ---- conv2d ----------------------------------------------------------------------

struct ConvSpec {
  std::string name;
  ref::Sizes input;   // [N, C, H, W]
  ref::Sizes weight;  // [C_out, C / groups, kH, kW]
  bool bias = false;
  ref::Conv2dParams p = {};
  uint32_t input_layout = Contiguous, weight_layout = Contiguous;
};

void conv2d_cases(CaseSet& set) {
  const DType dt = set.dtype();
  // Like a matmul: each output adds K = C/groups * kH * kW products; ulps 1
  // for the final rounding, and len * eps * sum |x * w| (+ |bias|) bounds the
  // accumulated rounding for any summation order.
  const Tolerance tol{.ulps = 1, .acc = 1};
  auto add = [&](const ConvSpec& s, bool exact = false) -> Case& {
    Case& c = set.add(s.name);
    auto make = [&](const ref::Sizes& sz) {
      return exact ? small_integers(c.rng, dt, sz, -2, 2) : random(c.rng, dt, sz, {-2, 2});
    };
    c.tensor("input", make(s.input), s.input_layout)
        .tensor("weight", make(s.weight), s.weight_layout);
    if (s.bias) c.tensor("bias", make({s.weight[0]}));
    auto pair = [](const std::array<int64_t, 2>& a) { return Ints{a[0], a[1]}; };
    if (s.p.stride != std::array<int64_t, 2>{1, 1}) c.arg("stride", pair(s.p.stride));
    if (s.p.padding != std::array<int64_t, 2>{0, 0}) c.arg("padding", pair(s.p.padding));
    if (s.p.dilation != std::array<int64_t, 2>{1, 1}) c.arg("dilation", pair(s.p.dilation));
    if (s.p.groups != 1) c.arg("groups", s.p.groups);
    const ref::Conv2dParams p = s.p;
    const double len = static_cast<double>(s.weight[1] * s.weight[2] * s.weight[3]);
    c.ref([p, len](const Inputs& in) {
      std::vector<double> sc;
      ref::Tensor y =
          ref::conv2d(in["input"], in["weight"], in.has("bias") ? &in["bias"] : nullptr, p, &sc);
      return accumulated(std::move(y), std::move(sc), len);
    });
    // Small integers: every product and partial sum is exact in float32, so
    // the one rounding to the dtype is the only one (ulps 0).
    c.tolerance(exact ? Tolerance{} : tol);
    return c;
  };
  auto params = [](Ints stride, Ints padding, Ints dilation, int64_t groups) {
    ref::Conv2dParams p;
    p.stride = {stride[0], stride.back()};
    p.padding = {padding[0], padding.back()};
    p.dilation = {dilation[0], dilation.back()};
    p.groups = groups;
    return p;
  };
  add({"basic", {1, 3, 7, 7}, {4, 3, 3, 3}});
  add({"bias", {1, 3, 7, 7}, {4, 3, 3, 3}, true});
  add({"batch", {3, 2, 9, 11}, {5, 2, 3, 3}, true});
  add({"one_by_one", {2, 5, 6, 6}, {3, 5, 1, 1}, true});
  add({"kernel_5x3", {2, 3, 11, 9}, {4, 3, 5, 3}, true});
  add({"one_element", {1, 1, 1, 1}, {1, 1, 1, 1}, true});
  add({"odd_spatial", {2, 3, 13, 1}, {2, 3, 3, 1}});
  add({"kernel_is_input", {2, 2, 5, 3}, {3, 2, 5, 3}, true});
  add({"stride2", {2, 3, 9, 9}, {4, 3, 3, 3}, true, params({2}, {0}, {1}, 1)});
  add({"stride_2_3", {1, 2, 11, 13}, {3, 2, 3, 3}, false, params({2, 3}, {0}, {1}, 1)});
  add({"padding1", {2, 3, 7, 7}, {4, 3, 3, 3}, true, params({1}, {1}, {1}, 1)});
  add({"padding_2_1", {1, 2, 5, 8}, {3, 2, 5, 3}, true, params({1}, {2, 1}, {1}, 1)});
  add({"padding_large", {1, 2, 3, 3}, {2, 2, 3, 3}, false, params({1}, {3}, {1}, 1)});
  add({"dilation2", {1, 3, 11, 11}, {2, 3, 3, 3}, true, params({1}, {0}, {2}, 1)});
  add({"dilation_1_3", {2, 2, 9, 13}, {3, 2, 3, 3}, false, params({1}, {1}, {1, 3}, 1)});
  add({"groups2", {2, 4, 7, 7}, {6, 2, 3, 3}, true, params({1}, {1}, {1}, 2)});
  add({"depthwise", {2, 5, 8, 7}, {5, 1, 3, 3}, true, params({1}, {1}, {1}, 5)});
  add({"depthwise_multiplier", {1, 3, 7, 9}, {6, 1, 3, 3}, false, params({2}, {1}, {1}, 3)});
  add({"everything", {2, 4, 13, 11}, {6, 2, 5, 3}, true, params({2, 1}, {1, 2}, {2, 1}, 2)});
  add({"empty_batch", {0, 3, 7, 7}, {4, 3, 3, 3}, true});
  add({"transposed_input", {2, 3, 7, 9}, {4, 3, 3, 3}, true, params({1}, {1}, {1}, 1), Transposed})
      .out_layout = Transposed;
  add({"transposed_weight", {2, 3, 7, 9}, {4, 3, 3, 3}, false, {}, Contiguous, Transposed});
  add({"strided", {2, 3, 7, 9}, {4, 3, 3, 3}, true, params({2}, {1}, {1}, 1), Strided, Strided})
      .out_layout = Strided;
  add({"offset", {1, 4, 6, 6}, {4, 2, 3, 3}, true, params({1}, {0}, {1}, 2), Offset, Offset})
      .out_layout = Offset;
  add({"expanded_batch", {3, 2, 6, 6}, {3, 2, 3, 3}, true, {}, Expanded});
  add({"expanded_weight", {1, 2, 6, 6}, {3, 2, 3, 3}, true, {}, Contiguous, Expanded});
  {
    Case& c = add({"bias_strided", {1, 2, 5, 5}, {3, 2, 3, 3}, true});
    for (auto& [name, a] : c.args)
      if (name == "bias") std::get<TensorArg>(a).layout = Strided | Offset;
  }
  add({"large", {2, 16, 32, 32}, {32, 16, 3, 3}, true, params({1}, {1}, {1}, 1)});
  // Exact-valued: products and sums of small integers.
  add({"exact_3x3", {2, 4, 7, 9}, {3, 4, 3, 3}, true, params({1}, {1}, {1}, 1)}, true);
  add({"exact_groups", {2, 4, 11, 9}, {6, 2, 3, 3}, true, params({2}, {1}, {2}, 2)}, true);
  add({"exact_depthwise", {1, 6, 8, 8}, {6, 1, 5, 3}, false, params({1, 2}, {2, 1}, {1}, 6)}, true);
  add({"exact_wide", {1, 16, 8, 8}, {8, 16, 3, 3}, true, params({1}, {1}, {1}, 1)}, true);
  // Errors: channels that do not fit groups, a kernel larger than the input.
  add({"error_channels", {1, 4, 5, 5}, {2, 3, 3, 3}}).expect_error = "";
  add({"error_groups", {1, 4, 5, 5}, {3, 2, 3, 3}, false, params({1}, {0}, {1}, 2)}).expect_error =
      "";
  add({"error_kernel", {1, 2, 2, 2}, {1, 2, 3, 3}}).expect_error = "";
  add({"stress", {2, 4, 16, 16}, {8, 4, 3, 3}, true, params({1}, {1}, {1}, 1)}).stress = true;
}

// ---- max_pool2d ------------------------------------------------------------------

struct PoolSpec {
  std::string name;
  ref::Sizes sizes;
  Ints kernel, stride = {}, padding = {0}, dilation = {1};
  bool ceil_mode = false;
  uint32_t layout = Contiguous;
  Range range = {};
};

void max_pool2d_cases(CaseSet& set) {
  const DType dt = set.dtype();
  // Picks one of its inputs: exact. -0 and +0 tie, so the sign is not checked.
  const Tolerance tol{};
  auto add = [&](const PoolSpec& s) -> Case& {
    Case& c = set.add(s.name);
    c.tensor("self", random(c.rng, dt, s.sizes, s.range), s.layout).arg("kernel_size", s.kernel);
    if (!s.stride.empty()) c.arg("stride", s.stride);
    if (s.padding != Ints{0}) c.arg("padding", s.padding);
    if (s.dilation != Ints{1}) c.arg("dilation", s.dilation);
    if (s.ceil_mode) c.arg("ceil_mode", true);
    auto two = [](const Ints& v) { return std::array<int64_t, 2>{v[0], v.back()}; };
    ref::Pool2dParams p;
    p.kernel = two(s.kernel);
    p.stride = two(s.stride.empty() ? s.kernel : s.stride);  // stride defaults to the kernel
    p.padding = two(s.padding);
    p.dilation = two(s.dilation);
    p.ceil_mode = s.ceil_mode;
    c.ref([p](const Inputs& in) { return expect(ref::max_pool2d(in["self"], p)); }).tolerance(tol);
    return c;
  };
  add({"k2", {1, 1, 4, 4}, {2}});
  add({"k2_odd", {1, 2, 5, 7}, {2}});
  add({"k3_s1", {2, 3, 7, 8}, {3}, {1}});
  add({"one", {1, 1, 1, 1}, {1}});
  add({"kernel_is_input", {1, 2, 3, 5}, {3, 5}});
  add({"k_2_3", {2, 2, 9, 10}, {2, 3}, {1, 2}, {1}});
  add({"k3_s2_p1", {1, 3, 9, 9}, {3}, {2}, {1}});
  // All inputs negative: padding must act as -inf, not 0.
  add({"padding_negative", {2, 2, 6, 7}, {3}, {2}, {1}, {1}, false, Contiguous, {-8, -1}});
  add({"padding_2_1", {1, 2, 8, 6}, {5, 3}, {1}, {2, 1}});
  add({"dilation2", {1, 2, 11, 11}, {3}, {1}, {1}, {2}});
  add({"dilation_3_1", {2, 1, 13, 8}, {2, 3}, {2, 1}, {1}, {3, 1}});
  add({"ceil", {1, 2, 8, 8}, {3}, {2}, {0}, {1}, true});
  add({"ceil_padding", {1, 2, 7, 7}, {3}, {2}, {1}, {1}, true, Contiguous, {-8, -1}});
  // ceil_mode would start a last window in the right padding: dropped.
  add({"ceil_drop", {1, 1, 6, 6}, {2}, {4}, {1}, {1}, true});
  add({"ceil_dilation", {2, 2, 10, 9}, {3, 2}, {2, 3}, {1}, {2, 1}, true});
  add({"ceil_noop", {1, 1, 9, 9}, {3}, {3}, {0}, {1}, true});
  add({"batch", {3, 4, 9, 7}, {3}, {2}});
  add({"empty_batch", {0, 2, 6, 6}, {2}});
  add({"transposed", {2, 3, 8, 9}, {3}, {2}, {1}, {1}, false, Transposed}).out_layout = Transposed;
  add({"strided", {2, 3, 8, 9}, {2}, {}, {0}, {1}, false, Strided}).out_layout = Strided;
  add({"offset", {1, 2, 7, 7}, {3}, {2}, {1}, {1}, false, Offset}).out_layout = Offset;
  add({"expanded", {3, 2, 6, 6}, {2}, {1}, {0}, {1}, false, Expanded});
  add({"large", {2, 16, 64, 64}, {3}, {2}, {1}});
  // NaN anywhere in a window wins; -inf windows stay -inf.
  {
    Case& c = add({"nan", {2, 3, 9, 9}, {3}, {2}, {1}, {1}, true});
    std::get<TensorArg>(c.args[0].second).values =
        sprinkle(c.rng, random(c.rng, dt, {2, 3, 9, 9}), NAN, 0.08);
  }
  {
    Case& c = add({"neg_inf", {1, 2, 8, 8}, {2}, {2}, {1}});
    ref::Tensor x = sprinkle(c.rng, random(c.rng, dt, {1, 2, 8, 8}), -kInf, 0.5);
    for (int64_t k = 0; k < 64; ++k) x.set_float(k, -kInf);  // channel 0 all -inf
    std::get<TensorArg>(c.args[0].second).values = std::move(x);
  }
  {
    Case& c = add({"special", {1, 3, 8, 8}, {2}, {1}, {1}});
    std::vector<double> sv = special_values(dt);
    ref::Tensor x = from_values(dt, {1, 3, 8, 8}, sv);
    // Shuffled, so special values meet each other in windows in many orders.
    for (int64_t k = x.numel() - 1; k > 0; --k)
      std::swap(x.f[static_cast<size_t>(k)], x.f[static_cast<size_t>(c.rng.integer(0, k))]);
    std::get<TensorArg>(c.args[0].second).values = std::move(x);
  }
  // Errors: padding over half the kernel, a window larger than the input.
  add({"error_padding", {1, 1, 6, 6}, {2}, {1}, {2}}).expect_error = "";
  add({"error_too_small", {1, 1, 2, 2}, {3}}).expect_error = "";
  add({"stress", {2, 8, 32, 32}, {2}}).stress = true;
}

// ---- embedding -------------------------------------------------------------------

void embedding_cases(CaseSet& set) {
  const DType dt = set.dtype();
  // Copies rows: exact, -0 included.
  const Tolerance tol{.signed_zero = true};
  auto indices = [](Rng& rng, DType t, const ref::Sizes& sizes, int64_t num) {
    ref::Tensor idx(t, sizes);
    for (int64_t k = 0; k < idx.numel(); ++k) idx.set_int(k, rng.integer(0, num - 1));
    return idx;
  };
  auto add = [&](const std::string& name, ref::Sizes weight, ref::Sizes idx,
                 DType index_dtype = DType::I64, uint32_t weight_layout = Contiguous,
                 uint32_t index_layout = Contiguous) -> Case& {
    Case& c = set.add(name);
    c.tensor("weight", random(c.rng, dt, weight), weight_layout);
    c.tensor("indices", indices(c.rng, index_dtype, idx, std::max<int64_t>(weight[0], 1)),
             index_layout);
    c.ref([](const Inputs& in) { return expect(ref::embedding(in["weight"], in["indices"])); });
    c.tolerance(tol);
    return c;
  };
  add("basic", {10, 4}, {5});
  add("int32", {10, 4}, {5}, DType::I32);
  add("0d_index", {7, 3}, {});
  add("0d_index_int32", {7, 3}, {}, DType::I32);
  add("empty", {7, 3}, {0});
  add("empty_2d", {7, 3}, {2, 0}, DType::I32);
  add("empty_weight", {0, 3}, {0});
  add("zero_width", {7, 0}, {4});
  add("one", {1, 1}, {1});
  add("3d_indices", {11, 5}, {2, 3, 4});
  add("repeated", {3, 6}, {40});
  add("prime", {13, 17}, {19}, DType::I32);
  add("transposed_weight", {9, 6}, {4, 5}, DType::I64, Transposed).out_layout = Transposed;
  add("strided", {9, 6}, {4, 5}, DType::I32, Strided, Strided).out_layout = Strided;
  add("offset", {9, 6}, {7}, DType::I64, Offset, Offset).out_layout = Offset;
  add("transposed_indices", {9, 6}, {4, 5}, DType::I64, Contiguous, Transposed);
  add("expanded", {9, 6}, {3, 5}, DType::I64, Expanded, Expanded);
  add("large", {1000, 64}, {4001});
  // padding_idx and the other flags only change the backward pass.
  for (int64_t pad : {int64_t{3}, int64_t{-2}}) {
    Case& c = add(pad >= 0 ? "padding_idx" : "padding_idx_negative", {6, 4}, {12});
    c.arg("padding_idx", pad);
    ref::Tensor& idx = std::get<TensorArg>(c.args[1].second).values;
    for (int64_t k = 0; k < 12; k += 2) idx.set_int(k, pad >= 0 ? pad : 6 + pad);
  }
  add("flags", {6, 4}, {8}).arg("scale_grad_by_freq", true).arg("sparse", true);
  {
    // The dtype's special values (int64's edges) copied bit-exactly.
    Case& c = add("special", {15, 3}, {30});
    std::vector<double> sv = special_values(dt);
    std::get<TensorArg>(c.args[0].second).values = from_values(dt, {15, 3}, sv);
  }
  // Errors: an index past the end, a negative one (PyTorch raises for both,
  // whatever padding_idx), indices that are not int32/int64.
  for (DType t : {DType::I64, DType::I32}) {
    std::string suffix = t == DType::I64 ? "" : "_int32";
    Case& past = add("error_index_past_end" + suffix, {5, 3}, {4}, t);
    std::get<TensorArg>(past.args[1].second).values.set_int(2, 5);
    past.expect_error = "";
    Case& neg = add("error_index_negative" + suffix, {5, 3}, {4}, t);
    std::get<TensorArg>(neg.args[1].second).values.set_int(3, -1);
    neg.expect_error = "";
  }
  {
    Case& c = add("error_float_indices", {5, 3}, {4});
    c.tensor("indices", random(c.rng, DType::F32, {4}, {0, 4}));
    c.expect_error = "";
  }
  add("stress", {50, 32}, {16, 8}).stress = true;
}

}  // namespace

void add_nn_ops(std::vector<OpInfo>& v) {
  v.push_back({"softmax.int_out", [](CaseSet& s) { softmax_cases(s, false); }});
  v.push_back({"log_softmax.int_out", [](CaseSet& s) { softmax_cases(s, true); }});
  v.push_back({"layer_norm.out", layer_norm_cases});
  v.push_back({"conv2d.out", conv2d_cases});
  v.push_back({"max_pool2d.out", max_pool2d_cases});
  v.push_back({"embedding.out", embedding_cases});
}

}  // namespace plexus::conformance
