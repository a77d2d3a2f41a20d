// Fused pointwise ops of three operands (float16 and bfloat16 compute in
// float): addcmul for every numeric dtype (integers wrap), lerp and addcdiv
// for the floating ones.
#include <cmath>
#include <type_traits>

#include "dtype.h"
#include "kernels.h"
#include "layout.h"
#include "wrapping.h"

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
  __device__ C operator()(C s, C a, C b) const {
    if constexpr (std::is_integral_v<C>)
      return wrap_add(s, wrap_mul(wrap_mul(v, a), b));
    else
      return s + v * a * b;
  }
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

// addcmul.out / addcdiv.out(self, tensor1, tensor2, *, value, out); over the
// numeric dtypes when Integers, else the floating ones.
template <template <typename> class Op, bool Integers>
void addc_out(const plexus_kernel_call& call) {
  sdk::Scalar v = sdk::Args(call).scalar(3);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    launch_map<T, T, 4>(
        call, {tensor_arg(call, 4), tensor_arg(call, 0), tensor_arg(call, 1), tensor_arg(call, 2)},
        Op<C>{v.to<C>()});
  };
  if constexpr (Integers)
    visit_numeric(call.dtype, run);
  else
    visit_float(call.dtype, run);
}

}  // namespace

void register_pointwise(GpuBackend& b) {
  b.register_kernel<&lerp_out>("lerp.Scalar_out", sdk::kFloatingDTypes);
  b.register_kernel<&addc_out<AddcmulOp, true>>("addcmul.out", sdk::kNumericDTypes);
  b.register_kernel<&addc_out<AddcdivOp, false>>("addcdiv.out", sdk::kFloatingDTypes);
}

}  // namespace plexus::gpu
