// Conformance cases of conv2d.
#include "reference/conv.h"

#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "ops/common.h"
#include "suite.h"

namespace plexus::conformance {

namespace {

using Ints = std::vector<int64_t>;

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
  // NaN and infinities placed next to window edges: only the outputs whose
  // windows reach them may be NaN or inf. Kernels that read inputs in pairs
  // or vectors and pad the weights with zeros (0 * inf, 0 * NaN) fail here.
  if (is_floating(dt)) {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
    auto specials = [inf, nan](ref::Tensor t) {
      const int64_t w = t.sizes[3], hw = t.sizes[2] * w;
      const std::pair<int64_t, double> at[] = {{5, nan}, {w + 4, inf},   {2 * w + 9, -inf},
                                               {3 * w, nan}, {hw + 7, inf}, {2 * hw - 1, nan}};
      for (auto [flat, v] : at) t.set_float(flat, v);
      return t;
    };
    for (const ConvSpec& s : {ConvSpec{"special_edges_1x3", {1, 2, 4, 10}, {2, 2, 1, 3}},
                              ConvSpec{"special_edges_3x3", {1, 2, 4, 10}, {3, 2, 3, 3}, true},
                              ConvSpec{"special_edges_stride2", {1, 2, 4, 10}, {2, 2, 1, 3}, false,
                                       params({1, 2}, {0, 1}, {1}, 1)}}) {
      Case& c = add(s, true);
      for (auto& [name, a] : c.args)
        if (name == "input") std::get<TensorArg>(a).values = specials(std::get<TensorArg>(a).values);
    }
  }
  // Errors: channels that do not fit groups, a kernel larger than the input.
  add({"error_channels", {1, 4, 5, 5}, {2, 3, 3, 3}}).expect_error = "";
  add({"error_groups", {1, 4, 5, 5}, {3, 2, 3, 3}, false, params({1}, {0}, {1}, 2)}).expect_error =
      "";
  add({"error_kernel", {1, 2, 2, 2}, {1, 2, 3, 3}}).expect_error = "";
  add({"stress", {2, 4, 16, 16}, {8, 4, 3, 3}, true, params({1}, {1}, {1}, 1)}).stress = true;
}

}  // namespace

void add_conv_ops(std::vector<OpInfo>& v) {
  v.push_back({"conv2d.out", conv2d_cases});
}

}  // namespace plexus::conformance
