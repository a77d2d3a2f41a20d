// Conformance cases of layer_norm.
#include "reference/layer_norm.h"

#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "ops/common.h"
#include "suite.h"

namespace plexus::conformance {

namespace {

using Ints = std::vector<int64_t>;

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
  add({"many_rows", {65537 + 6, 3}, 1});  // more rows than one grid dimension launches
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

// layer_norm_backward(grad_output, input, normalized_shape, weight, eps).
void layer_norm_backward_cases(CaseSet& set) {
  const DType dt = set.dtype();
  struct Spec {
    std::string name;
    ref::Sizes sizes;
    size_t normalized;
    bool weight = true;
    double eps = 1e-5;
    uint32_t layout = Contiguous;
  };
  auto add = [&](const Spec& s) -> Case& {
    Case& c = set.add(s.name);
    ref::Sizes ns(s.sizes.end() - static_cast<ptrdiff_t>(s.normalized), s.sizes.end());
    c.tensor("grad_output", random(c.rng, dt, s.sizes, {-2, 2}), s.layout)
        .tensor("input", random(c.rng, dt, s.sizes), s.layout)
        .arg("normalized_shape", ns);
    if (s.weight) c.tensor("weight", random(c.rng, dt, ns, {-2, 2}));
    if (s.eps != 1e-5) c.arg("eps", s.eps);
    const int64_t nd = static_cast<int64_t>(s.normalized);
    int64_t len = 1;
    for (int64_t v : ns) len *= v;
    const double eps = s.eps, terms = static_cast<double>(len + 4);
    c.ref([nd, eps, terms](const Inputs& in) {
      std::vector<double> sc;
      ref::Tensor g = ref::layer_norm_backward(in["grad_output"], in["input"], nd,
                                               in.has("weight") ? &in["weight"] : nullptr, eps,
                                               &sc);
      return accumulated(std::move(g), std::move(sc), terms);
    });
    c.tolerance(Tolerance{.ulps = 2, .acc = 1});
    return c;
  };
  add({"plain", {7, 13}, 1, false});
  add({"weight", {7, 13}, 1});
  add({"2d_normalized", {3, 5, 7}, 2});
  add({"all_dims", {5, 7}, 2, false});
  add({"1d", {17}, 1});
  add({"one", {1}, 1});
  add({"one_per_row", {6, 1}, 1});
  add({"empty_rows", {0, 5}, 1});
  add({"empty_normalized", {3, 0}, 1, false});
  add({"eps_large", {7, 13}, 1, true, 0.5});
  add({"long_row", {3, 2053}, 1});
  add({"many_rows", {65537 + 6, 16}, 1});  // rows of 3 random values are too often ill-conditioned
  add({"large", {256, 1031}, 1});
  add({"transposed", {13, 17}, 1, true, 1e-5, Transposed}).out_layout = Transposed;
  add({"strided", {13, 17}, 1, true, 1e-5, Strided}).out_layout = Strided;
  add({"offset", {5, 9}, 2, true, 1e-5, Offset}).out_layout = Offset;
  add({"expanded", {13, 17}, 1, true, 1e-5, Expanded});
  {
    Case& c = add({"error_grad_shape", {4, 6}, 1});
    c.tensor("grad_output", random(c.rng, dt, {6, 4}));
    c.expect_error = "grad_output";
  }
  add({"error_shape", {4, 6}, 1}).arg("normalized_shape", Ints{4}).expect_error =
      "normalized_shape";
  add({"stress", {64, 257}, 1}).stress = true;
}

}  // namespace

void add_layer_norm_ops(std::vector<OpInfo>& v) {
  v.push_back({"layer_norm.out", layer_norm_cases});
  v.push_back({"layer_norm_backward.out", layer_norm_backward_cases});
}

}  // namespace plexus::conformance
