// Math of one tensor: neg, abs, relu, clamp (numeric dtypes) and exp, log,
// sqrt, rsqrt, sin, cos, tanh, sigmoid, silu, gelu (floating dtypes):
// shaders/unary.comp.
#include <algorithm>
#include <optional>

#include "kernels.h"
#include "launch.h"
#include "plexus/sdk/op_args.hpp"

namespace plexus::vulkan {
namespace {

// Operation codes of shaders/unary.comp.
enum UnaryOp {
  kNeg,
  kAbs,
  kRelu,
  kClamp,
  kExp,
  kLog,
  kSqrt,
  kRsqrt,
  kSin,
  kCos,
  kTanh,
  kSigmoid,
  kSilu,
  kGelu,
  kGeluTanh
};

void run(VulkanBackend& b, const plexus_kernel_call& call, int op, const plexus_tensor& out,
         const plexus_tensor& self, ElementwisePush push = {}, int bounds = 0) {
  launch_elementwise(b.device(call.device_index), call.stream,
                     module_name("unary", call.dtype).c_str(), {op, bounds}, {&out, &self}, push);
}

// (self, *, out)
template <int Op>
void unary_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  run(b, call, Op, args.tensor(1), args.tensor(0));
}

// gelu.out(self, *, approximate, out)
void gelu_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  const bool tanh = sdk::gelu_approximation(args, 1) == sdk::GeluApproximation::Tanh;
  run(b, call, tanh ? kGeluTanh : kGelu, args.tensor(2), args.tensor(0));
}

// A clamp bound in the compute type's bits; integer bounds saturate to the
// dtype's range, so a bound outside it clamps nothing (or to the limit).
uint64_t clamp_bound(const sdk::Scalar& s, plexus_dtype d) {
  uint64_t bits = 0;
  sdk::visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      bits = uint64_t(int64_t(sdk::clamp_bound<T>(s)));
    } else {
      bits = scalar_bits(s, d);
    }
  });
  return bits;
}

// clamp.out(self, min, max, *, out)
void clamp_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  const sdk::ClampBounds bounds = sdk::clamp_bounds(args, 1, 2);
  const std::optional<sdk::Scalar>&min = bounds.min, &max = bounds.max;
  ElementwisePush push;
  if (min) push.s0 = clamp_bound(*min, call.dtype);
  if (max) push.s1 = clamp_bound(*max, call.dtype);
  run(b, call, kClamp, args.tensor(3), args.tensor(0), push, (min ? 1 : 0) | (max ? 2 : 0));
}

}  // namespace

void register_unary(VulkanBackend& b) {
  constexpr uint32_t kNumeric = sdk::kNumericDTypes;
  // The math in shaders/math.glsl is accurate to float32, not to 2 ulps of
  // float64 (sin and cos reduce float64 arguments beyond 1.5e6 as float32).
  constexpr uint32_t kFloat = sdk::kFloatingDTypes & ~PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F64);
  constexpr uint32_t kAnyFloat = sdk::kFloatingDTypes;
  constexpr uint32_t kTrig = kFloat;
  b.register_kernel<&unary_out<kNeg>>("neg.out", kNumeric);
  b.register_kernel<&unary_out<kAbs>>("abs.out", kNumeric);
  b.register_kernel<&unary_out<kRelu>>("relu.out", kNumeric);
  b.register_kernel<&clamp_out>("clamp.out", kNumeric);
  b.register_kernel<&unary_out<kExp>>("exp.out", kFloat);
  b.register_kernel<&unary_out<kLog>>("log.out", kFloat);
  b.register_kernel<&unary_out<kSqrt>>("sqrt.out", kAnyFloat);
  b.register_kernel<&unary_out<kRsqrt>>("rsqrt.out", kAnyFloat);
  b.register_kernel<&unary_out<kSin>>("sin.out", kTrig);
  b.register_kernel<&unary_out<kCos>>("cos.out", kTrig);
  b.register_kernel<&unary_out<kTanh>>("tanh.out", kFloat);
  b.register_kernel<&unary_out<kSigmoid>>("sigmoid.out", kFloat);
  b.register_kernel<&unary_out<kSilu>>("silu.out", kFloat);
  b.register_kernel<&gelu_out>("gelu.out", kFloat);
}

}  // namespace plexus::vulkan
