// Math of one tensor: neg, abs, relu, clamp (numeric dtypes) and exp, log,
// sqrt, rsqrt, sin, cos, tanh, sigmoid, silu, gelu (floating dtypes; the host
// converts integers to float32 first). float16 and bfloat16 compute in float.
#include <cmath>
#include <limits>
#include <optional>

#include "elementwise.h"
#include "kernels.h"
#include "plexus/sdk/op_args.hpp"
#include "plexus/sdk/tanh.hpp"

namespace plexus::cpu {
namespace {

// out = f(self) for a floating function f given as a generic lambda of the
// compute type; args are (self, out).
template <typename F>
void floating_unary(const plexus_kernel_call& call, F f) {
  sdk::Args args(call);
  visit<sdk::kFloatingDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    map([f](C x) { return f(x); }, output<T>(args, 1), input<T>(args, 0));
  });
}

// 1 / (1 + exp(-x)) without overflow for either sign of x.
template <typename C>
C sigmoid(C x) {
  C e = std::exp(-std::abs(x));
  C s = C(1) / (C(1) + e);
  return x >= 0 ? s : e * s;
}

void exp_out(const plexus_kernel_call& call) {
  floating_unary(call, [](auto x) { return std::exp(x); });
}
void log_out(const plexus_kernel_call& call) {
  floating_unary(call, [](auto x) { return std::log(x); });
}
void sqrt_out(const plexus_kernel_call& call) {
  floating_unary(call, [](auto x) { return std::sqrt(x); });
}
void rsqrt_out(const plexus_kernel_call& call) {
  floating_unary(call, [](auto x) { return decltype(x)(1) / std::sqrt(x); });
}
void sin_out(const plexus_kernel_call& call) {
  floating_unary(call, [](auto x) { return std::sin(x); });
}
void cos_out(const plexus_kernel_call& call) {
  floating_unary(call, [](auto x) { return std::cos(x); });
}
void tanh_out(const plexus_kernel_call& call) {
  floating_unary(call, [](auto x) {
    if constexpr (std::is_same_v<decltype(x), float>)
      return sdk::tanh_f32(x);  // vectorizes; the fused chains of graph replay use it too
    else
      return std::tanh(x);
  });
}
void sigmoid_out(const plexus_kernel_call& call) {
  floating_unary(call, [](auto x) { return sigmoid(x); });
}
void silu_out(const plexus_kernel_call& call) {
  floating_unary(call, [](auto x) { return x * sigmoid(x); });
}

// gelu.out(self, *, approximate, out): exact with erf ('none'), or the tanh
// approximation 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
void gelu_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  const bool tanh_approximation = sdk::gelu_approximation(args, 1) == sdk::GeluApproximation::Tanh;
  visit<sdk::kFloatingDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    auto self = input<T>(args, 0);
    auto out = output<T>(args, 2);
    if (tanh_approximation) {
      const C beta = C(0.7978845608028654), kappa = C(0.044715);  // sqrt(2 / pi)
      map([=](C x) { return C(0.5) * x * (C(1) + std::tanh(beta * (x + kappa * x * x * x))); }, out,
          self);
    } else {
      const C inv_sqrt2 = C(0.7071067811865476);
      map([=](C x) { return C(0.5) * x * (C(1) + std::erf(x * inv_sqrt2)); }, out, self);
    }
  });
}

// ---- Gradients of the activations: out = f(grad_output, x), one pass ----------

// out = f(g, x) for a floating f of the compute type; args are (g, x, ..., out)
// with out at `out_index`.
template <typename F>
void floating_backward(const plexus_kernel_call& call, size_t out_index, F f) {
  sdk::Args args(call);
  visit<sdk::kFloatingDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    map2([f](C g, C x) { return f(g, x); }, output<T>(args, out_index), input<T>(args, 0),
         input<T>(args, 1));
  });
}

// threshold_backward.out(grad_output, self, threshold, *, out): g where x > threshold, else 0.
void threshold_backward_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  visit<sdk::kFloatingDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    C threshold = scalar_to<C>(args.scalar(2));
    map2([threshold](C g, C x) { return x > threshold ? g : C(0); }, output<T>(args, 3),
         input<T>(args, 0), input<T>(args, 1));
  });
}
// sigmoid_backward.out(grad_output, output, *, out): g y (1 - y).
void sigmoid_backward_out(const plexus_kernel_call& call) {
  floating_backward(call, 2, [](auto g, auto y) { return g * y * (decltype(y)(1) - y); });
}
// tanh_backward.out(grad_output, output, *, out): g (1 - y^2).
void tanh_backward_out(const plexus_kernel_call& call) {
  floating_backward(call, 2, [](auto g, auto y) { return g * (decltype(y)(1) - y * y); });
}
// silu_backward.out(grad_output, self, *, out): g s (1 + x (1 - s)), s = sigmoid(x).
void silu_backward_out(const plexus_kernel_call& call) {
  floating_backward(call, 2, [](auto g, auto x) {
    using C = decltype(x);
    C s = sigmoid(x);
    return g * s * (C(1) + x * (C(1) - s));
  });
}
// gelu_backward.out(grad_output, self, *, approximate, out). 'none':
// Phi(x) + x phi(x); 'tanh': the derivative of the tanh approximation.
void gelu_backward_out(const plexus_kernel_call& call) {
  if (sdk::gelu_approximation(sdk::Args(call), 2) == sdk::GeluApproximation::Tanh) {
    floating_backward(call, 3, [](auto g, auto x) {
      using C = decltype(x);
      const C k = C(0.7978845608028654), a = C(0.044715);  // sqrt(2 / pi)
      C t = std::tanh(k * (x + a * x * x * x));
      return g * (C(0.5) * (C(1) + t) + C(0.5) * x * (C(1) - t * t) * k * (C(1) + C(3) * a * x * x));
    });
  } else {
    floating_backward(call, 3, [](auto g, auto x) {
      using C = decltype(x);
      const C inv_sqrt2 = C(0.7071067811865476), inv_sqrt2pi = C(0.3989422804014327);
      C cdf = C(0.5) * (C(1) + std::erf(x * inv_sqrt2));
      return g * (cdf + x * inv_sqrt2pi * std::exp(C(-0.5) * x * x));
    });
  }
}

// out = f(self) over the numeric dtypes, f taking the element (integers) or
// the compute type (floats); args are (self, out).
template <typename F>
void numeric_unary(const plexus_kernel_call& call, F f) {
  sdk::Args args(call);
  visit<sdk::kNumericDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    map([f](C x) { return f(x); }, output<T>(args, 1), input<T>(args, 0));
  });
}

// -x; integers wrap (-(-128) is -128 in int8, unsigned negate modulo 2^n).
void neg_out(const plexus_kernel_call& call) {
  numeric_unary(call, [](auto x) {
    if constexpr (std::is_integral_v<decltype(x)>)
      return sdk::wrap_neg(x);
    else
      return -x;
  });
}

// |x|; the most negative integer stays itself, as in PyTorch.
void abs_out(const plexus_kernel_call& call) {
  numeric_unary(call, [](auto x) {
    using C = decltype(x);
    if constexpr (std::is_unsigned_v<C>)
      return x;
    else if constexpr (std::is_integral_v<C>)
      return x < 0 ? sdk::wrap_neg(x) : x;
    else
      return std::abs(x);
  });
}

// max(x, 0); NaN and -0.0 pass through as in PyTorch.
void relu_out(const plexus_kernel_call& call) {
  numeric_unary(call, [](auto x) {
    if constexpr (std::is_unsigned_v<decltype(x)>)
      return x;
    else
      return x < 0 ? decltype(x)(0) : x;
  });
}

// clamp.out(self, min, max, *, out) = min(max(self, min), max): max wins when
// min > max; a NaN element, or a NaN bound, gives NaN.
void clamp_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  const sdk::ClampBounds bounds = sdk::clamp_bounds(args, 1, 2);
  visit<sdk::kNumericDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    auto self = input<T>(args, 0);
    auto out = output<T>(args, 3);
    std::optional<C> lo, hi;
    if (bounds.min) lo = sdk::clamp_bound<C>(*bounds.min);
    if (bounds.max) hi = sdk::clamp_bound<C>(*bounds.max);
    if constexpr (!std::is_integral_v<C>) {
      if ((lo && std::isnan(*lo)) || (hi && std::isnan(*hi))) {
        map([] { return std::numeric_limits<C>::quiet_NaN(); }, out);
        return;
      }
    }
    if (lo && hi)
      map([l = *lo, h = *hi](C x) { return std::min(std::max(x, l), h); }, out, self);
    else if (lo)
      map([l = *lo](C x) { return std::max(x, l); }, out, self);
    else
      map([h = *hi](C x) { return std::min(x, h); }, out, self);
  });
}

}  // namespace

void register_unary(CpuBackend& b) {
  b.register_kernel<&neg_out>("neg.out", sdk::kNumericDTypes);
  b.register_kernel<&abs_out>("abs.out", sdk::kNumericDTypes);
  b.register_kernel<&relu_out>("relu.out", sdk::kNumericDTypes);
  b.register_kernel<&clamp_out>("clamp.out", sdk::kNumericDTypes);
  b.register_kernel<&exp_out>("exp.out", sdk::kFloatingDTypes);
  b.register_kernel<&log_out>("log.out", sdk::kFloatingDTypes);
  b.register_kernel<&sqrt_out>("sqrt.out", sdk::kFloatingDTypes);
  b.register_kernel<&rsqrt_out>("rsqrt.out", sdk::kFloatingDTypes);
  b.register_kernel<&sin_out>("sin.out", sdk::kFloatingDTypes);
  b.register_kernel<&cos_out>("cos.out", sdk::kFloatingDTypes);
  b.register_kernel<&tanh_out>("tanh.out", sdk::kFloatingDTypes);
  b.register_kernel<&sigmoid_out>("sigmoid.out", sdk::kFloatingDTypes);
  b.register_kernel<&silu_out>("silu.out", sdk::kFloatingDTypes);
  b.register_kernel<&gelu_out>("gelu.out", sdk::kFloatingDTypes);
  b.register_kernel<&threshold_backward_out>("threshold_backward.out", sdk::kFloatingDTypes);
  b.register_kernel<&sigmoid_backward_out>("sigmoid_backward.out", sdk::kFloatingDTypes);
  b.register_kernel<&tanh_backward_out>("tanh_backward.out", sdk::kFloatingDTypes);
  b.register_kernel<&silu_backward_out>("silu_backward.out", sdk::kFloatingDTypes);
  b.register_kernel<&gelu_backward_out>("gelu_backward.out", sdk::kFloatingDTypes);
}

}  // namespace plexus::cpu
