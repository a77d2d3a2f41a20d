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

// Window parameters given as one value (both dims) or two.
ref::Conv2dParams params(Ints stride, Ints padding, Ints dilation, int64_t groups) {
  ref::Conv2dParams p;
  p.stride = {stride[0], stride.back()};
  p.padding = {padding[0], padding.back()};
  p.dilation = {dilation[0], dilation.back()};
  p.groups = groups;
  return p;
}

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

// conv2d's output sizes for input sizes `in` and weight sizes `wt`.
ref::Sizes conv_output(const ref::Sizes& in, const ref::Sizes& wt, const ref::Conv2dParams& p) {
  ref::Sizes out{in[0], wt[0]};
  for (int s = 0; s < 2; ++s)
    out.push_back((in[2 + s] + 2 * p.padding[s] - p.dilation[s] * (wt[2 + s] - 1) - 1) /
                      p.stride[s] + 1);
  return out;
}

// The cases of conv2d_backward_input (weight_grad false) or
// conv2d_backward_weight: grad_output of the forward's result shape, the
// other tensor (weight or input), and the size of the gradient asked for.
void conv2d_backward_cases(CaseSet& set, bool weight_grad) {
  const DType dt = set.dtype();
  const char* size_name = weight_grad ? "weight_size" : "input_size";
  auto add = [&](const ConvSpec& s, bool exact = false, uint32_t grad_layout = Contiguous) -> Case& {
    Case& c = set.add(s.name);
    auto make = [&](const ref::Sizes& sz) {
      return exact ? small_integers(c.rng, dt, sz, -2, 2) : random(c.rng, dt, sz, {-2, 2});
    };
    const ref::Conv2dParams p = s.p;
    const ref::Sizes out = conv_output(s.input, s.weight, p);
    c.tensor("grad_output", make(out), grad_layout);
    if (weight_grad)
      c.tensor("input", make(s.input), s.input_layout).arg(size_name, Ints(s.weight));
    else
      c.tensor("weight", make(s.weight), s.weight_layout).arg(size_name, Ints(s.input));
    auto pair = [](const std::array<int64_t, 2>& a) { return Ints{a[0], a[1]}; };
    if (p.stride != std::array<int64_t, 2>{1, 1}) c.arg("stride", pair(p.stride));
    if (p.padding != std::array<int64_t, 2>{0, 0}) c.arg("padding", pair(p.padding));
    if (p.dilation != std::array<int64_t, 2>{1, 1}) c.arg("dilation", pair(p.dilation));
    if (p.groups != 1) c.arg("groups", p.groups);
    // Terms added per element: at most C_out/groups kH kW (input) or N oH oW (weight).
    const double len = weight_grad ? static_cast<double>(out[0] * out[2] * out[3])
                                   : static_cast<double>(s.weight[0] / p.groups * s.weight[2] *
                                                         s.weight[3]);
    const ref::Sizes in_sizes = s.input, wt_sizes = s.weight;
    c.ref([=](const Inputs& in) {
      std::vector<double> sc;
      ref::Tensor g =
          weight_grad
              ? ref::conv2d_backward_weight(in["grad_output"], in["input"], wt_sizes, p, &sc)
              : ref::conv2d_backward_input(in["grad_output"], in["weight"], in_sizes, p, &sc);
      return accumulated(std::move(g), std::move(sc), len);
    });
    c.tolerance(exact ? Tolerance{} : Tolerance{.ulps = 1, .acc = 1});
    return c;
  };
  add({"basic", {1, 3, 7, 7}, {4, 3, 3, 3}});
  add({"batch", {3, 2, 9, 11}, {5, 2, 3, 3}});
  add({"one_by_one", {2, 5, 6, 6}, {3, 5, 1, 1}});
  add({"one_element", {1, 1, 1, 1}, {1, 1, 1, 1}});
  add({"kernel_is_input", {2, 2, 5, 3}, {3, 2, 5, 3}});
  add({"stride2", {2, 3, 9, 9}, {4, 3, 3, 3}, false, params({2}, {0}, {1}, 1)});
  // Stride larger than the kernel: input positions no window reads get 0.
  add({"stride_over_kernel", {1, 2, 10, 11}, {3, 2, 2, 2}, false, params({3}, {0}, {1}, 1)});
  add({"padding_2_1", {1, 2, 5, 8}, {3, 2, 5, 3}, false, params({1}, {2, 1}, {1}, 1)});
  add({"padding_large", {1, 2, 3, 3}, {2, 2, 3, 3}, false, params({1}, {3}, {1}, 1)});
  add({"dilation_1_3", {2, 2, 9, 13}, {3, 2, 3, 3}, false, params({1}, {1}, {1, 3}, 1)});
  add({"groups2", {2, 4, 7, 7}, {6, 2, 3, 3}, false, params({1}, {1}, {1}, 2)});
  add({"depthwise", {2, 5, 8, 7}, {5, 1, 3, 3}, false, params({1}, {1}, {1}, 5)});
  add({"everything", {2, 4, 13, 11}, {6, 2, 5, 3}, false, params({2, 1}, {1, 2}, {2, 1}, 2)});
  add({"empty_batch", {0, 3, 7, 7}, {4, 3, 3, 3}});
  add({"transposed", {2, 3, 7, 9}, {4, 3, 3, 3}, false, params({1}, {1}, {1}, 1), Transposed,
       Transposed}, false, Transposed)
      .out_layout = Transposed;
  add({"strided", {2, 3, 7, 9}, {4, 3, 3, 3}, false, params({2}, {1}, {1}, 1), Strided, Strided},
      false, Strided)
      .out_layout = Strided;
  add({"offset", {1, 4, 6, 6}, {4, 2, 3, 3}, false, params({1}, {0}, {1}, 2), Offset, Offset},
      false, Offset)
      .out_layout = Offset;
  add({"expanded_grad", {3, 2, 6, 6}, {3, 2, 3, 3}}, false, Expanded);
  add({"large", {2, 16, 32, 32}, {32, 16, 3, 3}, false, params({1}, {1}, {1}, 1)});
  add({"exact_groups", {2, 4, 11, 9}, {6, 2, 3, 3}, false, params({2}, {1}, {2}, 2)}, true);
  add({"exact_wide", {1, 16, 8, 8}, {8, 16, 3, 3}, false, params({1}, {1}, {1}, 1)}, true);
  // Errors: grad_output of the wrong shape, a size with three values.
  {
    Case& c = add({"error_grad_shape", {1, 3, 7, 7}, {4, 3, 3, 3}});
    c.arg(size_name, weight_grad ? Ints{4, 3, 2, 2} : Ints{1, 3, 8, 8});
    c.expect_error = "grad_output";
  }
  {
    Case& c = add({"error_size", {1, 3, 7, 7}, {4, 3, 3, 3}});
    c.arg(size_name, weight_grad ? Ints{4, 3, 3} : Ints{3, 7, 7});
    c.expect_error = size_name;
  }
  add({"stress", {2, 4, 16, 16}, {8, 4, 3, 3}, false, params({1}, {1}, {1}, 1)}).stress = true;
}

}  // namespace

void add_conv_ops(std::vector<OpInfo>& v) {
  v.push_back({"conv2d.out", conv2d_cases});
  v.push_back({"conv2d_backward_input.out", [](CaseSet& s) { conv2d_backward_cases(s, false); }});
  v.push_back({"conv2d_backward_weight.out", [](CaseSet& s) { conv2d_backward_cases(s, true); }});
}

}  // namespace plexus::conformance
