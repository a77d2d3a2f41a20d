// Math of one tensor (float16 and bfloat16 compute in float): neg, abs,
// relu, clamp for every numeric dtype (integers wrap: -(-128) and |-128| are
// -128 in int8), exp, log, sqrt, rsqrt, sin, cos, tanh, sigmoid, silu, gelu
// ('none' and 'tanh') for the floating ones.
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "dtype.h"
#include "kernels.h"
#include "layout.h"
#include "plexus/sdk/op_args.hpp"
#include "wrapping.h"

namespace plexus::gpu {
namespace {

// 1 / (1 + exp(-x)) without overflow for either sign of x.
template <typename C>
__device__ __forceinline__ C sigmoid(C x) {
  C e = exp(-fabs(x));
  C s = C(1) / (C(1) + e);
  return x >= C(0) ? s : e * s;
}

#define PLEXUS_UNARY_OP(Name, expr)                       \
  template <typename C>                                   \
  struct Name {                                           \
    __device__ C operator()(C x) const { return (expr); } \
  };
PLEXUS_UNARY_OP(NegOp, negate(x))
PLEXUS_UNARY_OP(ExpOp, exp(x))
PLEXUS_UNARY_OP(LogOp, log(x))
PLEXUS_UNARY_OP(SqrtOp, sqrt(x))
PLEXUS_UNARY_OP(RsqrtOp, C(1) / sqrt(x))
PLEXUS_UNARY_OP(SinOp, sin(x))
PLEXUS_UNARY_OP(CosOp, cos(x))
PLEXUS_UNARY_OP(TanhOp, tanh(x))
PLEXUS_UNARY_OP(SigmoidOp, sigmoid(x))
PLEXUS_UNARY_OP(SiluOp, x* sigmoid(x))
PLEXUS_UNARY_OP(GeluOp, C(0.5) * x * (C(1) + erf(x * C(0.7071067811865476))))
PLEXUS_UNARY_OP(GeluTanhOp,
                C(0.5) * x * (C(1) + tanh(C(0.7978845608028654) * (x + C(0.044715) * x * x * x))))
#undef PLEXUS_UNARY_OP

template <typename C>
struct AbsOp {
  __device__ C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>)
      return x;
    else if constexpr (std::is_integral_v<C>)
      return x < C(0) ? wrap_neg(x) : x;
    else
      return fabs(x);
  }
};
template <typename C>
struct ReluOp {  // NaN and -0.0 pass through
  __device__ C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>)
      return x;
    else
      return x < C(0) ? C(0) : x;
  }
};

// min(max(x, lo), hi) with either bound optional; NaN x stays NaN, a NaN
// bound makes every element NaN.
template <typename C>
struct ClampOp {
  C lo, hi;
  bool has_lo, has_hi;
  __device__ C operator()(C x) const {
    if constexpr (!std::is_integral_v<C>)
      if (lo != lo || hi != hi) return lo + hi;
    if (has_lo) x = x < lo ? lo : x;
    if (has_hi) x = hi < x ? hi : x;
    return x;
  }
};

// out = op(self) for (self, out, at out_arg) arguments and op's compute type;
// over the numeric dtypes when Integers, else the floating ones.
template <template <typename> class Op, bool Integers = false>
void unary(const plexus_kernel_call& call, int64_t out_arg) {
  auto run = [&](auto tag) {
    using T = decltype(tag);
    launch_map<T, T, 2>(call, {tensor_arg(call, out_arg), tensor_arg(call, 0)}, Op<compute_t<T>>{});
  };
  if constexpr (Integers)
    visit_numeric(call.dtype, run);
  else
    visit_float(call.dtype, run);
}

template <template <typename> class Op, bool Integers = false>
void unary_out(const plexus_kernel_call& call) {
  unary<Op, Integers>(call, 1);
}

// gelu.out(self, *, approximate, out)
void gelu_out(const plexus_kernel_call& call) {
  if (sdk::gelu_approximation(sdk::Args(call), 1) == sdk::GeluApproximation::Tanh)
    unary<GeluTanhOp>(call, 2);
  else
    unary<GeluOp>(call, 2);
}

// clamp.out(self, min, max, *, out): a NaN bound gives NaN everywhere.
void clamp_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  const sdk::ClampBounds bounds = sdk::clamp_bounds(args, 1, 2);
  const std::optional<sdk::Scalar>&min = bounds.min, &max = bounds.max;
  visit_numeric(call.dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    ClampOp<C> op{min ? sdk::clamp_bound<C>(*min) : C(0), max ? sdk::clamp_bound<C>(*max) : C(0),
                  bool(min), bool(max)};
    launch_map<T, T, 2>(call, {tensor_arg(call, 3), tensor_arg(call, 0)}, op);
  });
}

}  // namespace

void register_unary(GpuBackend& b) {
  b.register_kernel<&unary_out<NegOp, true>>("neg.out", sdk::kNumericDTypes);
  b.register_kernel<&unary_out<AbsOp, true>>("abs.out", sdk::kNumericDTypes);
  b.register_kernel<&unary_out<ReluOp, true>>("relu.out", sdk::kNumericDTypes);
  b.register_kernel<&clamp_out>("clamp.out", sdk::kNumericDTypes);
  b.register_kernel<&unary_out<ExpOp>>("exp.out", sdk::kFloatingDTypes);
  b.register_kernel<&unary_out<LogOp>>("log.out", sdk::kFloatingDTypes);
  b.register_kernel<&unary_out<SqrtOp>>("sqrt.out", sdk::kFloatingDTypes);
  b.register_kernel<&unary_out<RsqrtOp>>("rsqrt.out", sdk::kFloatingDTypes);
  b.register_kernel<&unary_out<SinOp>>("sin.out", sdk::kFloatingDTypes);
  b.register_kernel<&unary_out<CosOp>>("cos.out", sdk::kFloatingDTypes);
  b.register_kernel<&unary_out<TanhOp>>("tanh.out", sdk::kFloatingDTypes);
  b.register_kernel<&unary_out<SigmoidOp>>("sigmoid.out", sdk::kFloatingDTypes);
  b.register_kernel<&unary_out<SiluOp>>("silu.out", sdk::kFloatingDTypes);
  b.register_kernel<&gelu_out>("gelu.out", sdk::kFloatingDTypes);
}

}  // namespace plexus::gpu
