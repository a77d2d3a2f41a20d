// Fused pointwise ops of three operands, one pass over memory: lerp, addcmul,
// addcdiv (shaders/pointwise.comp). float16/bfloat16 compute in float;
// integers wrap.
#include "kernels.h"
#include "launch.h"

namespace plexus::vulkan {
namespace {

enum PointwiseOp { kLerp, kAddcmul, kAddcdiv };

// lerp.Scalar_out(self, end, weight, *, out)
void lerp_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  ElementwisePush push;
  push.s0 = scalar_bits(args.scalar(2), call.dtype);
  launch_elementwise(b.device(call.device_index), call.stream,
                     module_name("pointwise", call.dtype).c_str(), {kLerp},
                     {&args.tensor(3), &args.tensor(0), &args.tensor(1)}, push);
}

// addcmul.out / addcdiv.out(self, tensor1, tensor2, *, value, out)
template <int Op>
void addc_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  ElementwisePush push;
  push.s0 = scalar_bits(args.scalar(3), call.dtype);
  launch_elementwise(b.device(call.device_index), call.stream,
                     module_name("pointwise", call.dtype).c_str(), {Op},
                     {&args.tensor(4), &args.tensor(0), &args.tensor(1), &args.tensor(2)}, push);
}

}  // namespace

void register_pointwise(VulkanBackend& b) {
  b.register_kernel<&lerp_out>("lerp.Scalar_out", sdk::kFloatingDTypes);
  b.register_kernel<&addc_out<kAddcmul>>("addcmul.out", sdk::kNumericDTypes);
  b.register_kernel<&addc_out<kAddcdiv>>("addcdiv.out", sdk::kFloatingDTypes);
}

}  // namespace plexus::vulkan
