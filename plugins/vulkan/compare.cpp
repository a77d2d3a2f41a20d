// Comparisons eq, ne, lt, le, gt, ge (tensor and scalar forms, bool results):
// shaders/compare.comp; and where: shaders/compare_where.comp. Operands arrive in the
// promoted dtype (call.dtype); a scalar other is converted to it first.
#include "kernels.h"
#include "launch.h"

namespace plexus::vulkan {
namespace {

enum CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };

// name.Tensor_out(self, other, *, out)
template <int Op>
void compare_tensor_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  launch_elementwise(b.device(call.device_index), call.stream,
                     module_name("compare", call.dtype).c_str(), {Op, 0},
                     {&args.tensor(2), &args.tensor(0), &args.tensor(1)});
}

// name.Scalar_out(self, other, *, out)
template <int Op>
void compare_scalar_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  ElementwisePush push;
  push.s1 = element_scalar_bits(args.scalar(1), call.dtype);
  launch_elementwise(b.device(call.device_index), call.stream,
                     module_name("compare", call.dtype).c_str(), {Op, 1},
                     {&args.tensor(2), &args.tensor(0)}, push);
}

// where.self_out(condition, self, other, *, out)
void where_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args args(call);
  launch_elementwise(b.device(call.device_index), call.stream, "compare_where",
                     {int32_t(sdk::dtype_size(call.dtype))},
                     {&args.tensor(3), &args.tensor(0), &args.tensor(1), &args.tensor(2)});
}

template <int Op>
void register_comparison(VulkanBackend& b, const char* tensor_op, const char* scalar_op) {
  b.register_kernel<&compare_tensor_out<Op>>(tensor_op, sdk::kAllDTypes);
  b.register_kernel<&compare_scalar_out<Op>>(scalar_op, sdk::kAllDTypes);
}

}  // namespace

void register_compare(VulkanBackend& b) {
  register_comparison<kEq>(b, "eq.Tensor_out", "eq.Scalar_out");
  register_comparison<kNe>(b, "ne.Tensor_out", "ne.Scalar_out");
  register_comparison<kLt>(b, "lt.Tensor_out", "lt.Scalar_out");
  register_comparison<kLe>(b, "le.Tensor_out", "le.Scalar_out");
  register_comparison<kGt>(b, "gt.Tensor_out", "gt.Scalar_out");
  register_comparison<kGe>(b, "ge.Tensor_out", "ge.Scalar_out");
  b.register_kernel<&where_out>("where.self_out", sdk::kAllDTypes);
}

}  // namespace plexus::vulkan
