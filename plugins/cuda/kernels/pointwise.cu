// Fused pointwise ops of three floating operands (float16 and bfloat16
// compute in float): lerp, addcmul, addcdiv.
#include <cmath>

#include "dtype.h"
#include "kernels.h"
#include "layout.h"

namespace plexus::gpu {
namespace {

// self + w * (end - self), from the end nearer to w, as PyTorch does.
template <typename C>
struct LerpOp {
  C w;
  __device__ C operator()(C a, C b) const {
    return fabs(w) < C(0.5) ? a + w * (b - a) : b - (b - a) * (C(1) - w);
  }
};
template <typename C>
struct AddcmulOp {
  C v;
  __device__ C operator()(C s, C a, C b) const { return s + v * a * b; }
};
template <typename C>
struct AddcdivOp {
  C v;
  __device__ C operator()(C s, C a, C b) const { return s + v * a / b; }
};

// lerp.Scalar_out(self, end, weight, *, out)
void lerp_out(const plexus_kernel_call& call) {
  sdk::Scalar w = sdk::Args(call).scalar(2);
  visit_float(call.dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    launch_map<T, T, 3>(call, {tensor_arg(call, 3), tensor_arg(call, 0), tensor_arg(call, 1)},
                        LerpOp<C>{w.to<C>()});
  });
}

// addcmul.out / addcdiv.out(self, tensor1, tensor2, *, value, out)
template <template <typename> class Op>
void addc_out(const plexus_kernel_call& call) {
  sdk::Scalar v = sdk::Args(call).scalar(3);
  visit_float(call.dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    launch_map<T, T, 4>(
        call, {tensor_arg(call, 4), tensor_arg(call, 0), tensor_arg(call, 1), tensor_arg(call, 2)},
        Op<C>{v.to<C>()});
  });
}

}  // namespace

void register_pointwise(const Registrar& r) {
  r.kernel<&lerp_out>("lerp.Scalar_out", kFloatTypes);
  r.kernel<&addc_out<AddcmulOp>>("addcmul.out", kFloatTypes);
  r.kernel<&addc_out<AddcdivOp>>("addcdiv.out", kFloatTypes);
}

}  // namespace plexus::gpu
