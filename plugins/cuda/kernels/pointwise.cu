// Fused pointwise ops of three float32 operands: lerp, addcmul, addcdiv.
#include <cmath>

#include "kernels.h"
#include "layout.h"

namespace plexus::gpu {
namespace {

constexpr uint32_t kF32 = PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32);

// self + w * (end - self), from the end nearer to w, as PyTorch does.
struct LerpOp {
  float w;
  __device__ float operator()(float a, float b) const {
    return fabsf(w) < 0.5f ? a + w * (b - a) : b - (b - a) * (1.0f - w);
  }
};
struct AddcmulOp {
  float v;
  __device__ float operator()(float s, float a, float b) const { return s + v * a * b; }
};
struct AddcdivOp {
  float v;
  __device__ float operator()(float s, float a, float b) const { return s + v * a / b; }
};

// lerp.Scalar_out(self, end, weight, *, out)
void lerp_out(const plexus_kernel_call& call) {
  float w = sdk::Args(call).scalar(2).to<float>();
  launch_map<float, float, 3>(call, {tensor_arg(call, 3), tensor_arg(call, 0), tensor_arg(call, 1)},
                              LerpOp{w});
}

// addcmul.out / addcdiv.out(self, tensor1, tensor2, *, value, out)
template <typename Op>
void addc_out(const plexus_kernel_call& call) {
  float v = sdk::Args(call).scalar(3).to<float>();
  launch_map<float, float, 4>(
      call, {tensor_arg(call, 4), tensor_arg(call, 0), tensor_arg(call, 1), tensor_arg(call, 2)},
      Op{v});
}

}  // namespace

void register_pointwise(const Registrar& r) {
  r.kernel<&lerp_out>("lerp.Scalar_out", kF32);
  r.kernel<&addc_out<AddcmulOp>>("addcmul.out", kF32);
  r.kernel<&addc_out<AddcdivOp>>("addcdiv.out", kF32);
}

}  // namespace plexus::gpu
