// Math of one tensor in float32: neg, abs, relu, clamp, exp, log, sqrt,
// rsqrt, sin, cos, tanh, sigmoid, silu, gelu ('none' and 'tanh').
#include <cmath>
#include <optional>
#include <string_view>

#include "kernels.h"
#include "layout.h"

namespace plexus::gpu {
namespace {

constexpr uint32_t kF32 = PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32);

// 1 / (1 + exp(-x)) without overflow for either sign of x.
__device__ __forceinline__ float sigmoid(float x) {
  float e = expf(-fabsf(x));
  float s = 1.0f / (1.0f + e);
  return x >= 0.0f ? s : e * s;
}

#define PLEXUS_UNARY_OP(Name, expr)                               \
  struct Name {                                                   \
    __device__ float operator()(float x) const { return (expr); } \
  };
PLEXUS_UNARY_OP(NegOp, -x)
PLEXUS_UNARY_OP(AbsOp, fabsf(x))
PLEXUS_UNARY_OP(ReluOp, x < 0.0f ? 0.0f : x)  // NaN and -0.0 pass through
PLEXUS_UNARY_OP(ExpOp, expf(x))
PLEXUS_UNARY_OP(LogOp, logf(x))
PLEXUS_UNARY_OP(SqrtOp, sqrtf(x))
PLEXUS_UNARY_OP(RsqrtOp, 1.0f / sqrtf(x))
PLEXUS_UNARY_OP(SinOp, sinf(x))
PLEXUS_UNARY_OP(CosOp, cosf(x))
PLEXUS_UNARY_OP(TanhOp, tanhf(x))
PLEXUS_UNARY_OP(SigmoidOp, sigmoid(x))
PLEXUS_UNARY_OP(SiluOp, x* sigmoid(x))
PLEXUS_UNARY_OP(GeluOp, 0.5f * x * (1.0f + erff(x * 0.7071067811865476f)))
PLEXUS_UNARY_OP(GeluTanhOp,
                0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x))))
#undef PLEXUS_UNARY_OP

// min(max(x, lo), hi) with either bound optional; NaN x stays NaN, a NaN
// bound makes every element NaN.
struct ClampOp {
  float lo, hi;
  bool has_lo, has_hi;
  __device__ float operator()(float x) const {
    if (lo != lo || hi != hi) return lo + hi;
    if (has_lo) x = x < lo ? lo : x;
    if (has_hi) x = hi < x ? hi : x;
    return x;
  }
};

// out = op(self) for (self, out) arguments.
template <typename Op>
void unary_out(const plexus_kernel_call& call) {
  launch_map<float, float, 2>(call, {tensor_arg(call, 1), tensor_arg(call, 0)}, Op{});
}

// gelu.out(self, *, approximate, out)
void gelu_out(const plexus_kernel_call& call) {
  std::string_view mode = sdk::Args(call).string(1);
  const plexus_tensor* const tensors[2] = {tensor_arg(call, 2), tensor_arg(call, 0)};
  if (mode == "none")
    launch_map<float, float, 2>(call, tensors, GeluOp{});
  else if (mode == "tanh")
    launch_map<float, float, 2>(call, tensors, GeluTanhOp{});
  else
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "gelu.out: approximate must be 'none' or 'tanh', got '" + std::string(mode) + "'");
}

// clamp.out(self, min, max, *, out): a NaN bound gives NaN everywhere.
void clamp_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  std::optional<sdk::Scalar> min = args.optional_scalar(1), max = args.optional_scalar(2);
  if (!min && !max) sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "clamp.out: min and max are None");
  ClampOp op{min ? min->to<float>() : 0.0f, max ? max->to<float>() : 0.0f, bool(min), bool(max)};
  launch_map<float, float, 2>(call, {tensor_arg(call, 3), tensor_arg(call, 0)}, op);
}

}  // namespace

void register_unary(const Registrar& r) {
  r.kernel<&unary_out<NegOp>>("neg.out", kF32);
  r.kernel<&unary_out<AbsOp>>("abs.out", kF32);
  r.kernel<&unary_out<ReluOp>>("relu.out", kF32);
  r.kernel<&clamp_out>("clamp.out", kF32);
  r.kernel<&unary_out<ExpOp>>("exp.out", kF32);
  r.kernel<&unary_out<LogOp>>("log.out", kF32);
  r.kernel<&unary_out<SqrtOp>>("sqrt.out", kF32);
  r.kernel<&unary_out<RsqrtOp>>("rsqrt.out", kF32);
  r.kernel<&unary_out<SinOp>>("sin.out", kF32);
  r.kernel<&unary_out<CosOp>>("cos.out", kF32);
  r.kernel<&unary_out<TanhOp>>("tanh.out", kF32);
  r.kernel<&unary_out<SigmoidOp>>("sigmoid.out", kF32);
  r.kernel<&unary_out<SiluOp>>("silu.out", kF32);
  r.kernel<&gelu_out>("gelu.out", kF32);
}

}  // namespace plexus::gpu
