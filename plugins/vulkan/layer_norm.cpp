// layer_norm over the trailing dims, with optional weight and bias:
// shaders/layer_norm.comp, recorded by the rows runner (rows.cpp).
#include <string>
#include <vector>

#include "kernels.h"
#include "rows.h"

namespace plexus::vulkan {
namespace {

// layer_norm.out(input, normalized_shape, weight, bias, eps, *, out)
void layer_norm_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor& input = a.tensor(0);
  int32_t k = int32_t(a.int_list(1).size());
  const plexus_tensor* weight = a.optional_tensor(2);
  const plexus_tensor* bias = a.optional_tensor(3);
  double eps = a.floating(4);
  const plexus_tensor& out = a.tensor(5);
  if (k < 1 || k > input.ndim)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "normalized_shape has {} dims for an input of {}", k,
              input.ndim);
  std::vector<bool> in_row(size_t(input.ndim), false);
  for (int32_t d = input.ndim - k; d < input.ndim; ++d) in_row[size_t(d)] = true;
  run_rows(b, call, "layer_norm", 0, input, out, in_row, weight, bias, eps);
}

}  // namespace

void register_layer_norm(VulkanBackend& b) {
  b.register_kernel<&layer_norm_out>("layer_norm.out", sdk::kFloatingDTypes);
}

}  // namespace plexus::vulkan
