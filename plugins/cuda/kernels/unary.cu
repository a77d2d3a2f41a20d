// Math of one floating tensor (float16 and bfloat16 compute in float): neg,
// abs, relu, clamp, exp, log, sqrt, rsqrt, sin, cos, tanh, sigmoid, silu,
// gelu ('none' and 'tanh').
#include <cmath>
#include <optional>
#include <string_view>

#include "dtype.h"
#include "kernels.h"
#include "layout.h"

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
PLEXUS_UNARY_OP(NegOp, -x)
PLEXUS_UNARY_OP(AbsOp, fabs(x))
PLEXUS_UNARY_OP(ReluOp, x < C(0) ? C(0) : x)  // NaN and -0.0 pass through
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

// min(max(x, lo), hi) with either bound optional; NaN x stays NaN, a NaN
// bound makes every element NaN.
template <typename C>
struct ClampOp {
  C lo, hi;
  bool has_lo, has_hi;
  __device__ C operator()(C x) const {
    if (lo != lo || hi != hi) return lo + hi;
    if (has_lo) x = x < lo ? lo : x;
    if (has_hi) x = hi < x ? hi : x;
    return x;
  }
};

// out = op(self) for (self, out, at out_arg) arguments and op's compute type.
template <template <typename> class Op>
void unary(const plexus_kernel_call& call, int64_t out_arg) {
  visit_float(call.dtype, [&](auto tag) {
    using T = decltype(tag);
    launch_map<T, T, 2>(call, {tensor_arg(call, out_arg), tensor_arg(call, 0)}, Op<compute_t<T>>{});
  });
}

template <template <typename> class Op>
void unary_out(const plexus_kernel_call& call) {
  unary<Op>(call, 1);
}

// gelu.out(self, *, approximate, out)
void gelu_out(const plexus_kernel_call& call) {
  std::string_view mode = sdk::Args(call).string(1);
  if (mode == "none")
    unary<GeluOp>(call, 2);
  else if (mode == "tanh")
    unary<GeluTanhOp>(call, 2);
  else
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "gelu.out: approximate must be 'none' or 'tanh', got '" + std::string(mode) + "'");
}

// clamp.out(self, min, max, *, out): a NaN bound gives NaN everywhere.
void clamp_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  std::optional<sdk::Scalar> min = args.optional_scalar(1), max = args.optional_scalar(2);
  if (!min && !max) sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "clamp.out: min and max are None");
  visit_float(call.dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    ClampOp<C> op{min ? min->to<C>() : C(0), max ? max->to<C>() : C(0), bool(min), bool(max)};
    launch_map<T, T, 2>(call, {tensor_arg(call, 3), tensor_arg(call, 0)}, op);
  });
}

}  // namespace

void register_unary(const Registrar& r) {
  r.kernel<&unary_out<NegOp>>("neg.out", kFloatTypes);
  r.kernel<&unary_out<AbsOp>>("abs.out", kFloatTypes);
  r.kernel<&unary_out<ReluOp>>("relu.out", kFloatTypes);
  r.kernel<&clamp_out>("clamp.out", kFloatTypes);
  r.kernel<&unary_out<ExpOp>>("exp.out", kFloatTypes);
  r.kernel<&unary_out<LogOp>>("log.out", kFloatTypes);
  r.kernel<&unary_out<SqrtOp>>("sqrt.out", kFloatTypes);
  r.kernel<&unary_out<RsqrtOp>>("rsqrt.out", kFloatTypes);
  r.kernel<&unary_out<SinOp>>("sin.out", kFloatTypes);
  r.kernel<&unary_out<CosOp>>("cos.out", kFloatTypes);
  r.kernel<&unary_out<TanhOp>>("tanh.out", kFloatTypes);
  r.kernel<&unary_out<SigmoidOp>>("sigmoid.out", kFloatTypes);
  r.kernel<&unary_out<SiluOp>>("silu.out", kFloatTypes);
  r.kernel<&gelu_out>("gelu.out", kFloatTypes);
}

}  // namespace plexus::gpu
