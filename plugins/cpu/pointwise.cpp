// Fused pointwise ops of three operands: lerp, addcmul, addcdiv and
// mse_loss_backward, each one pass over memory. float16 and bfloat16 compute in float; integers wrap.
#include <cmath>

#include "elementwise.h"
#include "kernels.h"

namespace plexus::cpu {
namespace {

// lerp.Scalar_out(self, end, weight, *, out): self + weight * (end - self),
// computed from the end nearer to weight, as PyTorch does, for accuracy.
void lerp_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  visit<sdk::kFloatingDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    C w = scalar_to<C>(args.scalar(2));
    auto out = output<T>(args, 3);
    if (std::abs(w) < C(0.5))
      map2([w](C a, C b) { return a + w * (b - a); }, out, input<T>(args, 0), input<T>(args, 1));
    else
      map2([w](C a, C b) { return b - (b - a) * (C(1) - w); }, out, input<T>(args, 0),
           input<T>(args, 1));
  });
}

// addcmul.out(self, tensor1, tensor2, *, value, out): self + value * tensor1 * tensor2.
void addcmul_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  visit<sdk::kNumericDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    C v = scalar_to<C>(args.scalar(3));
    auto out = output<T>(args, 4);
    auto self = input<T>(args, 0), t1 = input<T>(args, 1), t2 = input<T>(args, 2);
    if constexpr (std::is_integral_v<T>)
      map([v](T s, T a, T b) { return sdk::wrap_add(s, sdk::wrap_mul(sdk::wrap_mul(v, a), b)); },
          out, self, t1, t2);
    else
      map([v](C s, C a, C b) { return s + v * a * b; }, out, self, t1, t2);
  });
}

// addcdiv.out(self, tensor1, tensor2, *, value, out): self + value * tensor1 / tensor2.
void addcdiv_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  visit<sdk::kFloatingDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    C v = scalar_to<C>(args.scalar(3));
    map([v](C s, C a, C b) { return s + v * a / b; }, output<T>(args, 4), input<T>(args, 0),
        input<T>(args, 1), input<T>(args, 2));
  });
}

// mse_loss_backward.out(grad_output, self, target, reduction, *, out):
// norm (self - target) grad_output, norm = 2 / numel(out) for mean, else 2.
void mse_loss_backward_out(const plexus_kernel_call& call) {
  sdk::Args args(call);
  visit<sdk::kFloatingDTypes>(call.dtype, call.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    auto out = output<T>(args, 4);
    const plexus_tensor& o = args.tensor(4);
    int64_t n = 1;
    for (int32_t d = 0; d < o.ndim; ++d) n *= o.sizes[d];
    const C norm = args.integer(3) == 1 ? C(2) / static_cast<C>(n > 0 ? n : 1) : C(2);
    map([norm](C g, C x, C t) { return norm * (x - t) * g; }, out, input<T>(args, 0),
        input<T>(args, 1), input<T>(args, 2));
  });
}

}  // namespace

void register_pointwise(CpuBackend& b) {
  b.register_kernel<&mse_loss_backward_out>("mse_loss_backward.out", sdk::kFloatingDTypes);
  b.register_kernel<&lerp_out>("lerp.Scalar_out", sdk::kFloatingDTypes);
  b.register_kernel<&addcmul_out>("addcmul.out", sdk::kNumericDTypes);
  b.register_kernel<&addcdiv_out>("addcdiv.out", sdk::kFloatingDTypes);
}

}  // namespace plexus::cpu
