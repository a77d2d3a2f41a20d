// Conformance cases of max_pool2d.
#include "reference/pool.h"

#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "ops/common.h"
#include "suite.h"

namespace plexus::conformance {

namespace {

using Ints = std::vector<int64_t>;
constexpr double kInf = std::numeric_limits<double>::infinity();

struct PoolSpec {
  std::string name;
  ref::Sizes sizes;
  Ints kernel, stride = {}, padding = {0}, dilation = {1};
  bool ceil_mode = false;
  uint32_t layout = Contiguous;
  Range range = {};
};

// The cases "nan" (NaN sprinkled: a NaN in a window wins) and "neg_inf"
// (half the values -inf, channel 0 all -inf), made by `add` with self at
// argument position `self_arg`.
template <typename Add>
void add_nan_and_neg_inf(CaseSet& set, Add& add, size_t self_arg) {
  const DType dt = set.dtype();
  {
    Case& c = add({"nan", {2, 3, 9, 9}, {3}, {2}, {1}, {1}, true});
    std::get<TensorArg>(c.args[self_arg].second).values =
        sprinkle(c.rng, random(c.rng, dt, {2, 3, 9, 9}), NAN, 0.08);
  }
  {
    Case& c = add({"neg_inf", {1, 2, 8, 8}, {2}, {2}, {1}});
    ref::Tensor x = sprinkle(c.rng, random(c.rng, dt, {1, 2, 8, 8}), -kInf, 0.5);
    for (int64_t k = 0; k < 64; ++k) x.set_float(k, -kInf);  // channel 0 all -inf
    std::get<TensorArg>(c.args[self_arg].second).values = std::move(x);
  }
}

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
  add_nan_and_neg_inf(set, add, 0);
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

// max_pool2d_backward: grad_output of the forward's result shape, and self.
void max_pool2d_backward_cases(CaseSet& set) {
  const DType dt = set.dtype();
  auto add = [&](const PoolSpec& s, bool ties = false) -> Case& {
    Case& c = set.add(s.name);
    ref::Pool2dParams p;
    auto two = [](const Ints& v) { return std::array<int64_t, 2>{v[0], v.back()}; };
    p.kernel = two(s.kernel);
    p.stride = two(s.stride.empty() ? s.kernel : s.stride);
    p.padding = two(s.padding);
    p.dilation = two(s.dilation);
    p.ceil_mode = s.ceil_mode;
    ref::Sizes out{s.sizes[0], s.sizes[1]};
    for (int d = 0; d < 2; ++d)
      out.push_back(ref::pool_output_size(s.sizes[2 + d], p.kernel[d], p.stride[d], p.padding[d],
                                          p.dilation[d], p.ceil_mode));
    // Small integers in self make ties in most windows; in grad_output they
    // make the sums at shared maxima exact.
    c.tensor("grad_output", small_integers(c.rng, dt, out, -4, 4), s.layout)
        .tensor("self", ties ? small_integers(c.rng, dt, s.sizes, -2, 2)
                             : random(c.rng, dt, s.sizes, s.range),
                s.layout)
        .arg("kernel_size", s.kernel);
    if (!s.stride.empty()) c.arg("stride", s.stride);
    if (s.padding != Ints{0}) c.arg("padding", s.padding);
    if (s.dilation != Ints{1}) c.arg("dilation", s.dilation);
    if (s.ceil_mode) c.arg("ceil_mode", true);
    // Each element adds the gradients of the windows whose maximum it is:
    // small integers, exact in every dtype.
    c.ref([p](const Inputs& in) {
       return expect(ref::max_pool2d_backward(in["grad_output"], in["self"], p));
     }).tolerance(Tolerance{});
    return c;
  };
  add({"k2", {1, 1, 4, 4}, {2}});
  add({"k3_s1", {2, 3, 7, 8}, {3}, {1}});
  add({"one", {1, 1, 1, 1}, {1}});
  add({"kernel_is_input", {1, 2, 3, 5}, {3, 5}});
  add({"k3_s2_p1", {1, 3, 9, 9}, {3}, {2}, {1}});
  add({"padding_negative", {2, 2, 6, 7}, {3}, {2}, {1}, {1}, false, Contiguous, {-8, -1}});
  add({"dilation_3_1", {2, 1, 13, 8}, {2, 3}, {2, 1}, {1}, {3, 1}});
  add({"ceil_padding", {1, 2, 7, 7}, {3}, {2}, {1}, {1}, true, Contiguous, {-8, -1}});
  add({"ceil_dilation", {2, 2, 10, 9}, {3, 2}, {2, 3}, {1}, {2, 1}, true});
  // Stride over the kernel: positions no window reads get 0.
  add({"stride_over_kernel", {1, 2, 9, 10}, {2}, {3}});
  add({"batch", {3, 4, 9, 7}, {3}, {2}});
  add({"empty_batch", {0, 2, 6, 6}, {2}});
  add({"transposed", {2, 3, 8, 9}, {3}, {2}, {1}, {1}, false, Transposed}).out_layout = Transposed;
  add({"strided", {2, 3, 8, 9}, {2}, {}, {0}, {1}, false, Strided}).out_layout = Strided;
  add({"offset", {1, 2, 7, 7}, {3}, {2}, {1}, {1}, false, Offset}).out_layout = Offset;
  add({"large", {2, 16, 64, 64}, {3}, {2}, {1}});
  // Ties: the first maximum in row-major order takes the gradient.
  add({"ties_k2", {2, 2, 8, 8}, {2}}, true);
  add({"ties_overlapping", {2, 3, 9, 9}, {3}, {1}, {1}}, true);
  add({"ties_dilation_ceil", {1, 2, 10, 9}, {3, 2}, {2, 3}, {1}, {2, 1}, true}, true);
  // NaN: the first NaN in a window takes its gradient; -inf windows give it
  // to their first tap inside the input.
  add_nan_and_neg_inf(set, add, 1);
  // Errors: grad_output of the wrong shape, padding over half the kernel.
  {
    Case& c = add({"error_grad_shape", {1, 1, 6, 6}, {2}});
    std::get<TensorArg>(c.args[0].second).values = random(c.rng, dt, {1, 1, 2, 2});
    c.expect_error = "grad_output";
  }
  add({"error_padding", {1, 1, 6, 6}, {3}, {1}, {1}}).arg("padding", Ints{2}).expect_error =
      "padding";
  add({"stress", {2, 8, 32, 32}, {2}}).stress = true;
}

}  // namespace

void add_pool_ops(std::vector<OpInfo>& v) {
  v.push_back({"max_pool2d.out", max_pool2d_cases});
  v.push_back({"max_pool2d_backward.out", max_pool2d_backward_cases});
}

}  // namespace plexus::conformance
