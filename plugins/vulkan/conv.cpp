// conv2d: direct convolution, an invocation per output element
// (shaders/conv2d.comp); correct for every stride, padding, dilation and
// group count, not yet fast (no tiling or im2col).
#include <algorithm>
#include <vector>

#include "kernels.h"
#include "launch.h"

namespace plexus::vulkan {
namespace {

struct ConvPush {
  uint64_t meta;
  uint64_t x, w, b, y;
  uint32_t n;
  int32_t has_bias;
};

// conv2d.out(input, weight, bias, stride, padding, dilation, groups, *, out)
void conv2d_out(VulkanBackend& be, const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &x = a.tensor(0), &w = a.tensor(1), &y = a.tensor(7);
  const plexus_tensor* bias = a.optional_tensor(2);
  auto stride = a.int_list(3), padding = a.int_list(4), dilation = a.int_list(5);
  int64_t groups = a.integer(6);
  if (x.ndim != 4 || w.ndim != 4 || y.ndim != 4 || stride.size() != 2 || padding.size() != 2 ||
      dilation.size() != 2 || groups < 1)
    sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT,
              "conv2d: expected 4-D input, weight and out, two strides, paddings and "
              "dilations, and groups >= 1");
  int64_t n = numel(y);
  if (n == 0) return;
  std::vector<int32_t> meta{int32_t(x.sizes[1]), int32_t(x.sizes[2]), int32_t(x.sizes[3]),
                            int32_t(y.sizes[1]), int32_t(y.sizes[2]), int32_t(y.sizes[3]),
                            int32_t(w.sizes[2]), int32_t(w.sizes[3]), int32_t(groups)};
  for (const plexus_tensor* t : {&x, &w, &y})
    for (int d = 0; d < 4; ++d) meta.push_back(int32_t(t->strides[d]));
  meta.push_back(bias ? int32_t(bias->strides[0]) : 0);
  for (auto* v : {&stride, &padding, &dilation})
    for (int i = 0; i < 2; ++i) meta.push_back(int32_t((*v)[i]));
  ConvPush p{};
  p.x = address_of(x);
  p.w = address_of(w);
  p.b = bias ? address_of(*bias) : 0;
  p.y = address_of(y);
  p.n = uint32_t(n);
  p.has_bias = bias != nullptr;
  be.device(call.device_index)
      .dispatch(call.stream, module_name("conv2d", x.dtype).c_str(), {}, &p, sizeof p, meta.data(),
                meta.size(), uint32_t(std::min<int64_t>((n + 255) / 256, 4096)));
}

}  // namespace

void register_conv(VulkanBackend& b) {
  b.register_kernel<&conv2d_out>("conv2d.out", sdk::kFloatingDTypes);
}

}  // namespace plexus::vulkan
