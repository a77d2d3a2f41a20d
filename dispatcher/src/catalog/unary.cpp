// Unary math: neg, abs, exp, log, sqrt, rsqrt, sin, cos, tanh, sigmoid, relu,
// gelu, silu, clamp; and the gradients of the activations, which autograd's
// rules call: threshold_backward (relu), sigmoid_backward, tanh_backward,
// silu_backward, gelu_backward. Each of those is elementwise over
// grad_output and the forward's input (self) or result (output), has a
// composite default in catalog ops, and one pass over memory where a plugin
// registers a kernel.
#include <fmt/format.h>

#include <cmath>
#include <numbers>

#include "catalog/catalog.h"
#include "plexus/ops.h"

namespace plexus {
namespace {

// Keeps the input's dtype (abs, relu).
OutputSpec same_type_meta(MetaContext& ctx) {
  return elementwise_meta(ctx, {0});
}

// Floating functions: integer and bool inputs compute as float32.
OutputSpec float_meta(MetaContext& ctx) {
  return elementwise_meta(ctx, {0}, ResultRule::IntToFloat);
}

// Activations (silu, gelu) take floating tensors only, as in PyTorch: an
// integer or bool input is refused rather than computed as float32
// (docs/semantics.md).
OutputSpec activation_meta(MetaContext& ctx) {
  DType t = ctx.tensor(0).dtype();
  if (!is_floating(t))
    fail_arg(ctx.name(0), "{} takes floating tensors, got {}; convert with .to(float32)",
             ctx.op().schema().name, dtype_name(t));
  return float_meta(ctx);
}

OutputSpec neg_meta(MetaContext& ctx) {
  if (ctx.tensor(0).dtype() == DType::Bool)
    fail_arg(ctx.name(0),
             "negating a bool tensor is not supported; to invert a mask use "
             "logical_not() (the ~ operator) instead");
  return same_type_meta(ctx);
}

OutputSpec gelu_meta(MetaContext& ctx) {
  std::optional<std::string_view> mode = ctx.optional_string(1);
  if (mode != "none" && mode != "tanh")
    fail_arg(ctx.name(1), "must be 'none' or 'tanh', got {}",
             mode ? fmt::format("'{}'", *mode) : "None");
  return activation_meta(ctx);
}

// The bounds promote with self as Python scalars would: an integer tensor
// clamped by a float bound gives a float result.
OutputSpec clamp_meta(MetaContext& ctx) {
  if (ctx.arg(1).is_none() && ctx.arg(2).is_none())
    fail_arg(ctx.name(1), "at least one of min and max must be given");
  return elementwise_meta_with_scalars(ctx, {0}, {1, 2});
}

// Composites receive the out variant's arguments: inputs already in the
// compute dtype and the output's shape, `out` last.
const Tensor& arg(const KernelCall& call, size_t i) {
  return call.args[i].to_tensor();
}
const Tensor& out_arg(const KernelCall& call) {
  return call.args.back().to_tensor();
}

// neg.out(self, *, out): self * -1.
void neg_composite(void*, KernelCall& call) {
  mul_out(out_arg(call), arg(call, 0), wrapped_scalar(-1));
}

// abs.out(self, *, out): where(self < 0, -self, self), plus 0 for floats so
// that abs(-0) is +0 (-0 < 0 is false; -0 + 0 is +0).
void abs_composite(void*, KernelCall& call) {
  const Tensor& self = arg(call, 0);
  const Tensor& out = out_arg(call);
  where_out(out, lt(self, 0), neg(self), self);
  if (is_floating(out.dtype())) out.add_(wrapped_scalar(0));
}

// rsqrt.out(self, *, out): 1 / sqrt(self).
void rsqrt_composite(void*, KernelCall& call) {
  div_out(out_arg(call), wrapped_scalar(1), sqrt(arg(call, 0)));
}

// sigmoid.out(self, *, out): 1 / (1 + exp(-self)).
void sigmoid_composite(void*, KernelCall& call) {
  div_out(out_arg(call), wrapped_scalar(1), exp(neg(arg(call, 0))) + 1);
}

// silu.out(self, *, out): self * sigmoid(self).
void silu_composite(void*, KernelCall& call) {
  const Tensor& self = arg(call, 0);
  mul_out(out_arg(call), self, sigmoid(self));
}

// relu.out(self, *, out): clamp(self, min=0).
void relu_composite(void*, KernelCall& call) {
  clamp_out(out_arg(call), arg(call, 0), 0, std::nullopt);
}

// clamp.out(self, min, max, *, out): minimum(maximum(self, min), max); max wins
// when min > max, as in PyTorch.
void clamp_composite(void*, KernelCall& call) {
  const Tensor& self = arg(call, 0);
  const Tensor& out = out_arg(call);
  const Value& min = call.args[1];
  const Value& max = call.args[2];
  if (min.is_none()) {
    minimum_out(out, self, wrapped_scalar(max.to_scalar()));
  } else if (max.is_none()) {
    maximum_out(out, self, wrapped_scalar(min.to_scalar()));
  } else {
    minimum_out(out, maximum(self, wrapped_scalar(min.to_scalar())),
                wrapped_scalar(max.to_scalar()));
  }
}

// gelu.out(self, approximate, *, out). 'tanh' decomposes:
// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
// 'none' needs erf, which the catalog lacks: the composite declines and the
// dispatcher's fallback policy decides (the cpu under 'cpu', else an error).
void gelu_composite(void*, KernelCall& call) {
  const Tensor& x = arg(call, 0);
  const Tensor& out = out_arg(call);
  if (call.args[1].to_string() == "tanh") {
    const double beta = std::sqrt(2.0 / std::numbers::pi);
    Tensor inner = (x + x * x * x * 0.044715) * beta;
    mul_out(out, x * 0.5, tanh(inner) + 1);
    return;
  }
  call.declined = true;
}

// ---- Gradients of the activations -------------------------------------------

// (grad_output, self or output, ...): floating tensors, promoted and broadcast.
OutputSpec activation_backward_meta(MetaContext& ctx) {
  for (size_t i : {size_t{0}, size_t{1}}) {
    DType t = ctx.tensor(i).dtype();
    if (!is_floating(t))
      fail_arg(ctx.name(i), "{} takes floating tensors, got {}", ctx.op().schema().name,
               dtype_name(t));
  }
  return elementwise_meta(ctx, {0, 1});
}

OutputSpec threshold_backward_meta(MetaContext& ctx) {
  OutputSpec spec = activation_backward_meta(ctx);
  check_scalar_fits(ctx, 2, spec.compute_dtype);
  return spec;
}

OutputSpec gelu_backward_meta(MetaContext& ctx) {
  std::optional<std::string_view> mode = ctx.optional_string(2);
  if (mode != "none" && mode != "tanh")
    fail_arg(ctx.name(2), "must be 'none' or 'tanh', got {}",
             mode ? fmt::format("'{}'", *mode) : "None");
  return activation_backward_meta(ctx);
}

// The composites below compute in float32 for float16 and bfloat16 and
// round once, into out: grad_output and x converted, f applied, copied.
template <typename F>
void backward_composite(KernelCall& call, F f) {
  const Tensor& g = arg(call, 0);
  const DType t = accumulate_dtype(g.dtype());
  out_arg(call).copy_(f(g.to(t), arg(call, 1).to(t)));
}

// threshold_backward.out(grad_output, self, threshold, *, out): grad_output
// where self > threshold, else 0 (a NaN gradient where self is at or below
// the threshold gives 0 too: where, not a product).
void threshold_backward_composite(void*, KernelCall& call) {
  where_out(out_arg(call), gt(arg(call, 1), call.args[2].to_scalar()), arg(call, 0),
            wrapped_scalar(0));
}

// sigmoid_backward.out(grad_output, output, *, out): g * y * (1 - y).
void sigmoid_backward_composite(void*, KernelCall& call) {
  backward_composite(call, [](const Tensor& g, const Tensor& y) { return g * (y * (-y + 1)); });
}

// tanh_backward.out(grad_output, output, *, out): g * (1 - y^2).
void tanh_backward_composite(void*, KernelCall& call) {
  backward_composite(call, [](const Tensor& g, const Tensor& y) { return g * (-(y * y) + 1); });
}

// silu_backward.out(grad_output, self, *, out): g * s * (1 + x * (1 - s)),
// s = sigmoid(x).
void silu_backward_composite(void*, KernelCall& call) {
  backward_composite(call, [](const Tensor& g, const Tensor& x) {
    Tensor s = sigmoid(x);
    return g * (s * (x * (-s + 1) + 1));
  });
}

// gelu_backward.out(grad_output, self, approximate, *, out). 'none':
// Phi(x) + x phi(x), with Phi(x) = gelu(x) / x (1/2 at 0) and phi the normal
// density. 'tanh': 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 a x^2), with
// t = tanh(k (x + a x^3)).
void gelu_backward_composite(void*, KernelCall& call) {
  const bool exact = call.args[2].to_string() == "none";
  backward_composite(call, [exact](const Tensor& g, const Tensor& x) {
    Tensor x2 = x * x;
    if (exact) {
      Tensor cdf = where(eq(x, 0), Scalar(0.5), gelu(x) / x);
      Tensor pdf = exp(x2 * -0.5) * (1.0 / std::sqrt(2.0 * std::numbers::pi));
      return g * (cdf + x * pdf);
    }
    const double k = std::sqrt(2.0 / std::numbers::pi), a = 0.044715;
    Tensor t = tanh((x + x2 * x * a) * k);
    Tensor left = (t + 1) * 0.5;
    Tensor right = x * (-(t * t) + 1) * ((x2 * (3 * a) + 1) * k) * 0.5;
    return g * (left + right);
  });
}

// One op of one tensor argument: name, name_ and name.out.
struct UnaryOp {
  std::string_view name;
  MetaFn meta;
  KernelFn composite;
  DTypeSet dtypes;
};

constexpr UnaryOp kUnaryOps[] = {
    {"neg", neg_meta, neg_composite, kNumericTypes},
    {"abs", same_type_meta, abs_composite, kNumericTypes},
    {"exp", float_meta, nullptr, kFloatTypes},
    {"log", float_meta, nullptr, kFloatTypes},
    {"sqrt", float_meta, nullptr, kFloatTypes},
    {"rsqrt", float_meta, rsqrt_composite, kFloatTypes},
    {"sin", float_meta, nullptr, kFloatTypes},
    {"cos", float_meta, nullptr, kFloatTypes},
    {"tanh", float_meta, nullptr, kFloatTypes},
    {"sigmoid", float_meta, sigmoid_composite, kFloatTypes},
    {"silu", activation_meta, silu_composite, kFloatTypes},
    {"relu", same_type_meta, relu_composite, kNumericTypes},
};

}  // namespace

void define_unary_ops(Dispatcher& d) {
  for (const UnaryOp& u : kUnaryOps) {
    std::string functional = fmt::format("{}(Tensor self) -> Tensor", u.name);
    std::string inplace = fmt::format("{}_(Tensor(a!) self) -> Tensor(a!)", u.name);
    std::string out = fmt::format("{}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", u.name);
    d.define({.functional = functional,
              .inplace = inplace,
              .out = out,
              .meta = u.meta,
              .composite = u.composite,
              .dtypes = u.dtypes,
              .elementwise = true});
  }
  d.define({.functional = "gelu(Tensor self, *, str approximate='none') -> Tensor",
            .inplace = "gelu_(Tensor(a!) self, *, str approximate='none') -> Tensor(a!)",
            .out = "gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out) -> "
                   "Tensor(a!)",
            .meta = gelu_meta,
            .composite = gelu_composite,
            .dtypes = kFloatTypes,
            .elementwise = true});
  d.define({.functional = "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
            .inplace = "clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)",
            .out = "clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, "
                   "Tensor(a!) out) -> Tensor(a!)",
            .meta = clamp_meta,
            .composite = clamp_composite,
            .dtypes = kNumericTypes,
            .elementwise = true});
  // The gradients of the activations.
  struct BackwardOp {
    std::string_view name, args;
    MetaFn meta;
    KernelFn composite;
  };
  for (const BackwardOp& b :
       {BackwardOp{"threshold_backward", "Tensor grad_output, Tensor self, Scalar threshold",
                   threshold_backward_meta, threshold_backward_composite},
        BackwardOp{"sigmoid_backward", "Tensor grad_output, Tensor output",
                   activation_backward_meta, sigmoid_backward_composite},
        BackwardOp{"tanh_backward", "Tensor grad_output, Tensor output", activation_backward_meta,
                   tanh_backward_composite},
        BackwardOp{"silu_backward", "Tensor grad_output, Tensor self", activation_backward_meta,
                   silu_backward_composite},
        BackwardOp{"gelu_backward", "Tensor grad_output, Tensor self, *, str approximate='none'",
                   gelu_backward_meta, gelu_backward_composite}}) {
    bool keyword = b.args.find('*') != std::string_view::npos;
    std::string functional = fmt::format("{}({}) -> Tensor", b.name, b.args);
    std::string out = fmt::format("{}.out({}{} Tensor(a!) out) -> Tensor(a!)",
                                  b.name, b.args, keyword ? "," : ", *,");
    d.define({.functional = functional,
              .out = out,
              .meta = b.meta,
              .composite = b.composite,
              .dtypes = kFloatTypes,
              .elementwise = true});
  }
}

}  // namespace plexus
